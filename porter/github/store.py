"""The App's SQLite tables: deliveries seen (to drop a replayed X-GitHub-Delivery) and the job queue.

The webhook handler only verifies, records and enqueues, so it answers within a second; the
worker claims jobs one at a time. `/porter stop` marks a pull request's queued jobs stopped and
its running job `stopping`, which the sandbox polls and ends.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict

SCHEMA = """
CREATE TABLE IF NOT EXISTS deliveries (id TEXT PRIMARY KEY, received REAL NOT NULL);
CREATE TABLE IF NOT EXISTS jobs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,            -- review | command
  repo TEXT NOT NULL,            -- owner/name
  pr INTEGER NOT NULL,
  installation INTEGER NOT NULL,
  payload TEXT NOT NULL,         -- JSON: what the job needs beyond the PR
  status TEXT NOT NULL,          -- queued | running | stopping | done | failed | stopped
  created REAL NOT NULL,
  started REAL,
  finished REAL,
  error TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS jobs_status ON jobs (status, id);
"""


class Job(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: int
    kind: str
    repo: str
    pr: int
    installation: int
    payload: dict
    status: str
    error: str = ""


class Store:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        self._db.close()

    def first_delivery(self, delivery: str, ttl_s: float, now: float | None = None) -> bool:
        """Record a delivery id; False when it was seen within `ttl_s` (a redelivery or a replay)."""
        now = time.time() if now is None else now
        with self._lock:
            self._db.execute("DELETE FROM deliveries WHERE received < ?", (now - ttl_s,))
            cur = self._db.execute("INSERT OR IGNORE INTO deliveries (id, received) VALUES (?, ?)", (delivery, now))
            return cur.rowcount == 1

    def enqueue(self, kind: str, repo: str, pr: int, installation: int, payload: dict) -> int:
        with self._lock:
            cur = self._db.execute(
                "INSERT INTO jobs (kind, repo, pr, installation, payload, status, created) VALUES (?,?,?,?,?,?,?)",
                (kind, repo, pr, installation, json.dumps(payload), "queued", time.time()))
            return int(cur.lastrowid)

    def claim(self) -> Job | None:
        """The oldest queued command, else the oldest queued review, now running; None when the queue is empty.
        Commands go first so that `/porter stop` overtakes the reviews it stops."""
        with self._lock:
            row = self._db.execute(
                "UPDATE jobs SET status='running', started=? WHERE id = "
                "(SELECT id FROM jobs WHERE status='queued' ORDER BY kind != 'command', id LIMIT 1) "
                "RETURNING id, kind, repo, pr, installation, payload, status, error", (time.time(),)).fetchone()
        return self._job(row) if row else None

    def finish(self, job_id: int, status: str, error: str = "") -> None:
        with self._lock:
            self._db.execute("UPDATE jobs SET status=?, finished=?, error=? WHERE id=?",
                             (status, time.time(), error[:4000], job_id))

    def status(self, job_id: int) -> str:
        with self._lock:
            return self._db.execute("SELECT status FROM jobs WHERE id=?", (job_id,)).fetchone()[0]

    def stop(self, repo: str, pr: int, but: int | None = None) -> int:
        """Stop a pull request's queued jobs and ask its running one to stop; how many were affected."""
        with self._lock:
            a = self._db.execute("UPDATE jobs SET status='stopped', finished=? WHERE repo=? AND pr=? "
                                 "AND status='queued' AND id IS NOT ?", (time.time(), repo, pr, but)).rowcount
            b = self._db.execute("UPDATE jobs SET status='stopping' WHERE repo=? AND pr=? AND status='running' "
                                 "AND id IS NOT ?", (repo, pr, but)).rowcount
            return a + b

    def last_run(self, repo: str, pr: int, before: int) -> Job | None:
        """The pull request's latest job that ran porter (a review, or a port/verify command) before job `before`."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, kind, repo, pr, installation, payload, status, error FROM jobs "
                "WHERE repo=? AND pr=? AND id < ? ORDER BY id DESC", (repo, pr, before)).fetchall()
        for row in rows:
            job = self._job(row)
            if job.kind == "review" or job.payload.get("command") in ("port", "verify"):
                return job
        return None

    def jobs(self) -> list[Job]:
        with self._lock:
            rows = self._db.execute("SELECT id, kind, repo, pr, installation, payload, status, error FROM jobs "
                                    "ORDER BY id").fetchall()
        return [self._job(r) for r in rows]

    @staticmethod
    def _job(row) -> Job:
        return Job(id=row[0], kind=row[1], repo=row[2], pr=row[3], installation=row[4], payload=json.loads(row[5]),
                   status=row[6], error=row[7])
