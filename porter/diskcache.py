"""Data porter derives once and keeps on disk: the rule catalog, hipify-torch's tables.

What a command needs at start-up and can rebuild from files it can stat (not import) is kept as
JSON under the user's cache directory (`$XDG_CACHE_HOME/porter`, else `~/.cache/porter`),
named by a hash of everything it was derived from: porter's version, and the path, size and
modification time of each source file. A changed input is a new key, so an entry is never
stale; a cache that cannot be read or written is rebuilt in memory, never an error.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from porter import __version__


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "porter"


def files_key(paths: Iterable[Path]) -> str:
    """A key for a set of input files: each one's path, size and modification time."""
    parts = []
    for p in sorted(paths):
        st = p.stat()
        parts.append(f"{p}:{st.st_size}:{st.st_mtime_ns}")
    return "\n".join(parts)


def cached_json(name: str, key: str, build: Callable[[], Any]) -> Any:
    """`build()`'s JSON-able result, from disk when this `key` was built before."""
    digest = hashlib.sha256(f"{__version__}\n{key}".encode()).hexdigest()[:24]
    path = cache_dir() / f"{name}-{digest}.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        pass
    value = build()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as fh:
            json.dump(value, fh)
        os.replace(fh.name, path)  # atomic: a concurrent reader sees the old file or the whole new one
    except OSError:
        pass  # a read-only home: the value was built, only not kept
    return value
