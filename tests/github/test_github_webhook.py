"""The App's webhook: signatures, replays, routing, commands and the commenter's permission."""

from __future__ import annotations

import time

import pytest
from conftest import payload, signed
from fastapi.testclient import TestClient

from porter.github.app import create_app, signature_ok
from porter.github.commands import Command, NotACommand, parse

REPO = "octo-org/kernels"


@pytest.fixture
def served(fake, app_env):
    api = create_app(app_env, transport=fake.transport, start_worker=False)
    with TestClient(api) as client:
        yield client, api.state.store, api.state.worker


def post(client, body, event, **kw):
    raw, headers = signed(body, event, **kw)
    return client.post("/webhook", content=raw, headers=headers)


def test_signature_is_checked_in_constant_time_and_bad_ones_get_401(served):
    client, store, _ = served
    body = payload("pull_request.opened")
    r = post(client, body, "pull_request", secret="not the secret")
    assert r.status_code == 401
    raw, headers = signed(body, "pull_request")
    del headers["X-Hub-Signature-256"]
    assert client.post("/webhook", content=raw, headers=headers).status_code == 401
    raw, headers = signed(body, "pull_request")
    assert client.post("/webhook", content=raw + b" ", headers=headers).status_code == 401  # body changed
    assert store.jobs() == []
    # GitHub's documented example (docs "Validating webhook deliveries")
    assert signature_ok("It's a Secret to Everybody", b"Hello, World!",
                        "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17")
    assert not signature_ok("It's a Secret to Everybody", b"Hello, World!", "sha1=01dc10d0c83e72ed246219cdd91669667fe2ca59")


def test_pull_request_is_queued_with_202_within_a_second(served):
    client, store, _ = served
    start = time.monotonic()
    r = post(client, payload("pull_request.opened"), "pull_request")
    assert r.status_code == 202 and time.monotonic() - start < 1.0
    [job] = store.jobs()
    assert (job.kind, job.repo, job.pr, job.installation, job.status) == ("review", REPO, 7, 2311213, "queued")


def test_replayed_delivery_is_dropped(served):
    client, store, _ = served
    body = payload("pull_request.opened")
    assert post(client, body, "pull_request", delivery="72d3162e-cc78-11e3-81ab-4c9367dc0958").status_code == 202
    again = post(client, body, "pull_request", delivery="72d3162e-cc78-11e3-81ab-4c9367dc0958")
    assert again.status_code == 200 and "duplicate" in again.json()["status"]
    assert len(store.jobs()) == 1


def test_delivery_ids_expire_after_the_ttl(tmp_path):
    from porter.github.store import Store

    store = Store(tmp_path / "s.sqlite")
    assert store.first_delivery("d1", ttl_s=60, now=1000.0)
    assert not store.first_delivery("d1", ttl_s=60, now=1030.0)
    assert store.first_delivery("d1", ttl_s=60, now=1100.0)


def test_unknown_event_ping_and_edited_comment_queue_nothing(served):
    client, store, _ = served
    r = post(client, payload("star.created"), "star")
    assert r.status_code == 200 and r.json()["status"] == "ignored"
    assert post(client, payload("ping"), "ping").json()["reason"] == "pong"
    edited = payload("issue_comment.edited")
    assert edited["comment"]["body"] == "/porter port"
    r = post(client, edited, "issue_comment")
    assert r.status_code == 200 and "new comments only" in r.json()["reason"]
    closed = payload("pull_request.opened") | {"action": "closed"}
    assert post(client, closed, "pull_request").json()["status"] == "ignored"
    assert store.jobs() == []


def test_command_only_on_the_first_line_of_a_new_comment(served):
    client, store, _ = served
    body = payload("issue_comment.created")
    body["comment"]["body"] = "Looks good.\n/porter port"
    assert post(client, body, "issue_comment").json()["status"] == "ignored"
    body["comment"]["body"] = "> /porter port\nquoted"
    assert post(client, body, "issue_comment").json()["status"] == "ignored"
    body["comment"]["body"] = "/porter explain wave003\nplease"
    assert post(client, body, "issue_comment").status_code == 202
    [job] = store.jobs()
    assert job.payload == {"command": "explain", "args": ["WAVE003"], "comment": 492700400, "user": "octocat"}


def test_parse_commands():
    assert parse("/porter port src/a.cu src/b") == Command("port", ("src/a.cu", "src/b"))
    assert parse("/porter verify") == Command("verify")
    assert parse("/porter") == Command("help")
    assert parse("/porter explain tri001") == Command("explain", ("TRI001",))
    for bad in ("/porter explain", "/porter explain NOPE1", "/porter frobnicate", "/porter port ../etc",
                "/porter stop now", "porter port", "/porterport"):
        with pytest.raises(NotACommand):
            parse(bad)


def _pr_setup(fake):
    base = fake.add_repo(REPO, {"README.md": b"# kernels\n"})
    return fake.open_pr(REPO, base, {"README.md": b"# kernels\n", "notes.txt": b"hello\n"})


def test_command_from_a_user_without_write_permission_runs_nothing(served, fake):
    client, store, worker = served
    _pr_setup(fake)
    fake.repos[REPO].permissions["octocat"] = "read"
    body = payload("issue_comment.created")  # author_association OWNER: porter asks the API instead
    assert post(client, body, "issue_comment").status_code == 202
    assert worker.run_once()
    state = fake.repos[REPO]
    assert [r["content"] for r in state.reactions] == ["eyes", "-1"]
    assert state.check_runs == [] and state.comments == [] and "heads/porter/pr-7" not in state.refs
    assert any(e["path"].endswith("/collaborators/octocat/permission") for e in fake.log)
    assert "read permission" in store.jobs()[0].error


def test_help_explain_stop_and_retry_for_a_writer(served, fake):
    client, store, worker = served
    _pr_setup(fake)
    fake.repos[REPO].permissions["octocat"] = "write"
    for text in ("/porter help", "/porter explain WAVE003", "/porter retry"):
        body = payload("issue_comment.created")
        body["comment"]["body"] = text
        assert post(client, body, "issue_comment").status_code == 202
        assert worker.run_once()
    replies = [c["body"] for c in fake.repos[REPO].comments]
    assert "/porter port [paths]" in replies[0]
    assert replies[1].startswith("**WAVE003**") and "Why:" in replies[1]
    assert "nothing to retry" in replies[2]
    # a queued review, then /porter stop: the review never runs
    assert post(client, payload("pull_request.opened"), "pull_request").status_code == 202
    body = payload("issue_comment.created")
    body["comment"]["body"] = "/porter stop"
    post(client, body, "issue_comment")
    review = store.jobs()[-2]
    assert worker.run_once()  # commands are claimed before reviews: the stop overtakes the review
    assert {j.id: j.status for j in store.jobs()}[review.id] == "stopped"
    assert "stopped 1 porter job" in fake.repos[REPO].comments[-1]["body"]
    assert [r["content"] for r in fake.repos[REPO].reactions][-2:] == ["eyes", "rocket"]


def test_porter_serve_runs_uvicorn_and_refuses_missing_settings(tmp_path, app_key):
    import os
    import signal
    import socket
    import subprocess
    import sys
    from pathlib import Path

    import httpx

    exe = str(Path(sys.executable).parent / "porter")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PORTER_")}
    r = subprocess.run([exe, "serve"], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "PORTER_WEBHOOK_SECRET" in r.stderr
    pem = tmp_path / "app.pem"
    pem.write_text(app_key[0])
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env |= {"PORTER_WEBHOOK_SECRET": "s3cret", "PORTER_APP_ID": "4242", "PORTER_APP_PRIVATE_KEY": str(pem)}
    proc = subprocess.Popen([exe, "serve", "--port", str(port), "--db", str(tmp_path / "db.sqlite"),
                             "--work", str(tmp_path / "work")], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        raw, headers = signed(payload("ping"), "ping", secret="s3cret")
        assert httpx.post(f"http://127.0.0.1:{port}/webhook", content=raw, headers=headers).status_code == 200
        raw, headers = signed(payload("ping"), "ping", secret="wrong")
        assert httpx.post(f"http://127.0.0.1:{port}/webhook", content=raw, headers=headers).status_code == 401
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)
