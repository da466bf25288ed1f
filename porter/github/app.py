"""`porter serve`: the GitHub App. A webhook at /webhook, a SQLite job queue, one worker thread.

The handler does three things and answers 202 within a second: it verifies X-Hub-Signature-256
(HMAC-SHA256 of the raw body with the webhook secret, compared in constant time; 401 otherwise),
drops an X-GitHub-Delivery it has seen within the TTL, and queues a job. The worker authenticates
as the App's installation (a JWT signed with the App's key buys an installation token, both
through githubkit), downloads the PR head, ports it in the sandbox and posts the Plan.

Events: `pull_request` (opened, synchronize, reopened, ready_for_review) queue a review;
`issue_comment` `created` on a pull request queues a command when its first line is `/porter ...`.
A command runs only for a commenter whose permission on the repository, asked through the API,
is write or admin; porter reacts 👀 when it picks the command up and 🚀 when the work starts.

Settings: the webhook secret, App id and private key come from the environment
(PORTER_WEBHOOK_SECRET, PORTER_APP_ID, PORTER_APP_PRIVATE_KEY: a path to the .pem), the model
key as for `porter port`; everything else from `porter serve`'s flags.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import shutil
import threading
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from githubkit import AppInstallationAuthStrategy
from githubkit.cache import MemCacheStrategy

from porter.github.analyze import Analysis, analyze, ported_files
from porter.github.commands import Command, NotACommand, parse
from porter.github.diff import from_api_files
from porter.github.plan import help_text
from porter.github.publish import Repo, client
from porter.github.sandbox import SandboxError
from porter.github.store import Job, Store
from porter.state import PortOptions

log = logging.getLogger("porter.github.app")

REVIEW_ACTIONS = frozenset({"opened", "synchronize", "reopened", "ready_for_review"})
WRITERS = frozenset({"admin", "write"})  # the API's `permission`; maintain reads as write
DELIVERY_TTL_S = 7 * 24 * 3600.0  # GitHub redelivers on request for days; a week covers it


class SettingsError(ValueError):
    pass


@dataclass(frozen=True)
class Settings:
    webhook_secret: str
    app_id: str
    private_key: str
    db: Path
    work: Path
    api_url: str = "https://api.github.com"
    executor: str = "none"  # for /porter verify: hip-on-cuda or rocm where the host has that GPU
    timeout_s: float = 900.0
    delivery_ttl_s: float = DELIVERY_TTL_S

    @classmethod
    def from_env(cls, environ: dict[str, str], **flags) -> Settings:
        missing = [k for k in ("PORTER_WEBHOOK_SECRET", "PORTER_APP_ID", "PORTER_APP_PRIVATE_KEY") if not environ.get(k)]
        if missing:
            raise SettingsError(f"set {', '.join(missing)} in the environment")
        key_path = Path(environ["PORTER_APP_PRIVATE_KEY"])
        if not key_path.is_file():
            raise SettingsError(f"PORTER_APP_PRIVATE_KEY={key_path}: not a file (the App's .pem private key)")
        return cls(webhook_secret=environ["PORTER_WEBHOOK_SECRET"], app_id=environ["PORTER_APP_ID"],
                   private_key=key_path.read_text(), **flags)


def signature_ok(secret: str, body: bytes, header: str | None) -> bool:
    """X-Hub-Signature-256 is `sha256=` + the hex HMAC of the raw body; compared in constant time."""
    if not header or not header.startswith("sha256="):
        return False
    expected = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected.encode(), header.encode())


def route(event: str, payload: dict) -> tuple[str, str, int, int, dict] | str:
    """The job an event asks for, as (kind, repo, pr, installation, payload), or why it asks for none."""
    installation = (payload.get("installation") or {}).get("id")
    repo = (payload.get("repository") or {}).get("full_name")
    if event == "pull_request":
        if payload.get("action") not in REVIEW_ACTIONS:
            return f"pull_request {payload.get('action')}: nothing to do"
        pr = payload["pull_request"]
        if pr.get("draft"):
            return "draft pull request: porter waits for ready_for_review"
        return ("review", repo, pr["number"], installation, {"head": pr["head"]["sha"]})
    if event == "issue_comment":
        if payload.get("action") != "created":
            return f"issue_comment {payload.get('action')}: commands come from new comments only"
        issue = payload["issue"]
        if "pull_request" not in issue:
            return "a comment on an issue, not on a pull request"
        comment = payload["comment"]
        if (comment.get("user") or {}).get("type") == "Bot":
            return "a bot's comment"
        try:
            cmd = parse(comment.get("body") or "")
        except NotACommand as e:
            if (comment.get("body") or "").lstrip().startswith("/porter"):
                return ("command", repo, issue["number"], installation,
                        {"command": "invalid", "args": [str(e)], "comment": comment["id"],
                         "user": comment["user"]["login"]})
            return str(e)
        return ("command", repo, issue["number"], installation,
                {"command": cmd.verb, "args": list(cmd.args), "comment": comment["id"],
                 "user": comment["user"]["login"]})
    if event == "ping":
        return "pong"
    return f"event {event!r} is not one porter handles"


def create_app(settings: Settings, *, transport: httpx.BaseTransport | None = None,
               start_worker: bool = True) -> FastAPI:
    store = Store(settings.db)
    worker = Worker(settings, store, transport=transport)

    @asynccontextmanager
    async def lifespan(_: FastAPI):
        thread = threading.Thread(target=worker.loop, name="porter-worker", daemon=True) if start_worker else None
        if thread:
            thread.start()
        yield
        worker.stop_event.set()
        if thread:
            thread.join(timeout=5)

    api = FastAPI(title="porter GitHub App", lifespan=lifespan)
    api.state.store = store
    api.state.worker = worker

    @api.post("/webhook")
    async def webhook(request: Request) -> JSONResponse:
        body = await request.body()
        if not signature_ok(settings.webhook_secret, body, request.headers.get("x-hub-signature-256")):
            return JSONResponse({"error": "bad or missing X-Hub-Signature-256"}, status_code=401)
        delivery = request.headers.get("x-github-delivery", "")
        event = request.headers.get("x-github-event", "")
        if not delivery:
            return JSONResponse({"error": "no X-GitHub-Delivery"}, status_code=400)
        if not store.first_delivery(delivery, settings.delivery_ttl_s):
            return JSONResponse({"status": "duplicate delivery, dropped"}, status_code=200)
        try:
            payload = json.loads(body)
        except ValueError:
            return JSONResponse({"error": "body is not JSON"}, status_code=400)
        routed = route(event, payload)
        if isinstance(routed, str):
            return JSONResponse({"status": "ignored", "reason": routed}, status_code=200)
        kind, repo, pr, installation, job_payload = routed
        if not repo or installation is None:
            return JSONResponse({"error": "payload has no repository or installation"}, status_code=400)
        job = store.enqueue(kind, repo, pr, installation, job_payload)
        return JSONResponse({"status": "queued", "job": job}, status_code=202)

    @api.get("/healthz")
    async def healthz() -> dict:
        return {"ok": True}

    return api


class Worker:
    """Runs queued jobs one at a time."""

    def __init__(self, settings: Settings, store: Store, *, transport: httpx.BaseTransport | None = None) -> None:
        self.settings = settings
        self.store = store
        self.transport = transport
        self.stop_event = threading.Event()
        self.tokens = MemCacheStrategy()  # installation tokens, reused until they expire

    def loop(self) -> None:
        while not self.stop_event.is_set():
            if not self.run_once():
                self.stop_event.wait(0.5)

    def run_once(self) -> bool:
        """Run the oldest queued job; False when there was none."""
        job = self.store.claim()
        if job is None:
            return False
        try:
            status = self.execute(job)
        except SandboxError as e:
            stopped = self.store.status(job.id) == "stopping"
            self.store.finish(job.id, "stopped" if stopped else "failed", str(e))
            log.warning("job %s %s: %s", job.id, "stopped" if stopped else "failed", e)
        except Exception as e:  # a job's failure is recorded and the worker goes on (one bad PR, not the App)
            self.store.finish(job.id, "failed", f"{type(e).__name__}: {e}")
            log.exception("job %s failed", job.id)
        else:
            self.store.finish(job.id, status[0], status[1])
        finally:
            shutil.rmtree(self._work(job), ignore_errors=True)
        return True

    def repo(self, job: Job) -> Repo:
        auth = AppInstallationAuthStrategy(self.settings.app_id, self.settings.private_key, job.installation)
        return Repo(client(auth, base_url=self.settings.api_url, transport=self.transport, tokens=self.tokens),
                    job.repo)

    def _work(self, job: Job) -> Path:
        return self.settings.work / f"job-{job.id}"

    def review(self, job: Job, repo: Repo, options: PortOptions) -> Analysis:
        pull = repo.pull(job.pr)
        head = pull["head"]["sha"]
        diffs = from_api_files(repo.pull_files(job.pr))
        work = self._work(job)
        checkout = repo.download(head, work / "checkout")
        analysis = analyze(checkout, diffs, head, work, options, pr_number=job.pr, timeout_s=self.settings.timeout_s,
                           should_stop=lambda: self.store.status(job.id) == "stopping")
        repo.publish(analysis.plan, job.pr)
        return analysis

    def execute(self, job: Job) -> tuple[str, str]:
        repo = self.repo(job)
        if job.kind == "review":
            self.review(job, repo, PortOptions())
            return ("done", "")
        comment, user = job.payload["comment"], job.payload["user"]
        repo.react(comment, "eyes")
        permission = repo.permission(user)
        if permission not in WRITERS:
            repo.react(comment, "-1")
            return ("done", f"{user} has {permission} permission; commands need write")
        verb, args = job.payload["command"], job.payload.get("args", [])
        if verb == "invalid":
            repo.reply(job.pr, f"@{user} {args[0]}\n\n{help_text()}")
            return ("done", args[0])
        command = Command(verb, tuple(args))
        if command.verb == "help":
            repo.reply(job.pr, help_text())
        elif command.verb == "explain":
            from porter import rules

            try:
                r = rules.get(command.args[0])
            except KeyError as e:
                repo.reply(job.pr, f"@{user} {e.args[0]}")
            else:
                repo.reply(job.pr, f"**{r.id}** ({r.agent}, {r.severity.value}, fix: {r.fix})\n\n```text\n"
                                   f"{r.doc.strip()}\n```")
        elif command.verb == "stop":
            n = self.store.stop(job.repo, job.pr, but=job.id)
            repo.react(comment, "rocket")
            repo.reply(job.pr, f"@{user} stopped {n} porter job(s) on this pull request.")
        elif command.verb == "retry":
            last = self.store.last_run(job.repo, job.pr, before=job.id)
            if last is None:
                repo.reply(job.pr, f"@{user} nothing to retry: porter has not run on this pull request.")
            else:
                self.store.enqueue(last.kind, last.repo, last.pr, job.installation, last.payload)
                repo.react(comment, "rocket")
        elif command.verb == "verify":
            repo.react(comment, "rocket")
            self.review(job, repo, PortOptions(executor=self.settings.executor))
        elif command.verb == "port":
            repo.react(comment, "rocket")
            analysis = self.review(job, repo, PortOptions())
            files = ported_files(analysis, list(command.args) or None)
            if not files:
                repo.reply(job.pr, f"@{user} the port changes no file" + (f" under {', '.join(command.args)}"
                                                                          if command.args else "") + ".")
            else:
                branch = f"porter/pr-{job.pr}"
                sha = repo.push_port(branch, analysis.plan.head_sha, files,
                                     f"porter: port of #{job.pr} for {PortOptions().arch}\n\nRequested by @{user}.")
                repo.reply(job.pr, f"@{user} pushed the full port ({len(files)} file(s)) to branch `{branch}` "
                                   f"at {sha[:7]}; open a pull request from it to take it.")
        return ("done", "")
