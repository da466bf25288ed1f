"""Shared pieces of the PR bot tests: the App's key pair, the fake GitHub, signed webhook deliveries."""

from __future__ import annotations

import hashlib
import hmac
import json
import uuid
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from fake_github import FakeGitHub

HERE = Path(__file__).parent
PAYLOADS = HERE / "payloads"
SECRET = "It's a Secret to Everybody"
APP_ID = 4242


def payload(name: str) -> dict:
    return json.loads((PAYLOADS / f"{name}.json").read_text())


def signed(body: dict | bytes, event: str, *, secret: str = SECRET, delivery: str | None = None) -> tuple[bytes, dict]:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    sig = "sha256=" + hmac.new(secret.encode(), raw, hashlib.sha256).hexdigest()
    return raw, {"X-GitHub-Event": event, "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
                 "X-Hub-Signature-256": sig, "Content-Type": "application/json"}


@pytest.fixture(scope="session")
def app_key() -> tuple[str, str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    return private, public


@pytest.fixture
def fake(app_key) -> FakeGitHub:
    return FakeGitHub(app_id=APP_ID, public_key=app_key[1])


@pytest.fixture
def app_env(tmp_path, app_key, monkeypatch):
    from porter.github.app import Settings

    pem = tmp_path / "app.pem"
    pem.write_text(app_key[0])
    env = {"PORTER_WEBHOOK_SECRET": SECRET, "PORTER_APP_ID": str(APP_ID), "PORTER_APP_PRIVATE_KEY": str(pem)}
    return Settings.from_env(env, db=tmp_path / "app.sqlite", work=tmp_path / "work",
                             api_url="https://api.github.test")
