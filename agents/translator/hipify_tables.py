"""Generate porter's HIPIFY table (`hipify_snapshot.json`) from HIPIFY's own published mapping data.

    python -m porter.agents.translator.hipify_tables /path/to/ROCm/HIPIFY [--commit SHA]

HIPIFY (github.com/ROCm/HIPIFY, MIT licence) ships `bin/hipify-perl`, a script generated from
hipify-clang's mapping tables: every CUDA -> HIP rename is one `subst("cuda", "hip", "kind")`
call, in three groups (the default HIP renames, those behind `-experimental`, and the direct
ROCm-library renames behind `-roc`: cuBLAS -> rocBLAS, cuSPARSE -> rocSPARSE, cuRAND -> rocRAND,
cuSOLVER -> rocSOLVER, cuDNN -> MIOpen), and the names HIPIFY knows have no counterpart are
listed in its `warn*UnsupportedFunctions`. This module reads those data (it never runs the
script) and writes them, with HIPIFY's version and commit, as plain JSON next to `tables.py`,
which merges them at import. The JSON is committed, so a port needs neither HIPIFY nor perl;
rerun this after updating HIPIFY and review the diff.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path

SNAPSHOT = Path(__file__).with_name("hipify_snapshot.json")

_SUB = re.compile(r"^sub (\w+) \{$(.*?)^\}$", re.M | re.S)
_SUBST = re.compile(r'subst\("((?:[^"\\]|\\.)*)", "((?:[^"\\]|\\.)*)", "(\w+)"\)')
_QUOTED = re.compile(r'^\s*"((?:[^"\\]|\\.)*)",?\s*$', re.M)
_VERSION = re.compile(r'"HIP version ([\d.]+)')

# Substitution groups of hipify-perl, by the function that holds them.
GROUPS = {"simpleSubstitutions": "hip", "experimentalSubstitutions": "experimental", "rocSubstitutions": "roc"}
# Name lists: unsupported everywhere, unsupported only when targeting hip* / roc* libraries.
LISTS = {"warnUnsupportedFunctions": "unsupported", "warnHipOnlyUnsupportedFunctions": "hip_only_unsupported",
         "warnRocOnlyUnsupportedFunctions": "roc_only_unsupported"}


def _unescape(s: str) -> str:
    return re.sub(r"\\(.)", r"\1", s)


def parse(script: str) -> dict:
    """The tables inside hipify-perl's text: {group: [[cuda, hip, kind], ...], list: [names]}."""
    bodies = {m.group(1): m.group(2) for m in _SUB.finditer(script)}
    out: dict = {}
    for func, group in GROUPS.items():
        out[group] = [[_unescape(a), _unescape(b), kind] for a, b, kind in _SUBST.findall(bodies[func])]
    for func, name in LISTS.items():
        body = bodies[func]
        listed = body[body.index("foreach") : body.index(")\n")]
        out[name] = sorted({_unescape(n) for n in _QUOTED.findall(listed)})
    return out


def generate(hipify: Path, commit: str = "") -> dict:
    script = (hipify / "bin" / "hipify-perl").read_text()
    version = _VERSION.search(script)
    if not commit:
        found = subprocess.run(["git", "-C", str(hipify), "rev-parse", "HEAD"], capture_output=True, text=True)
        commit = found.stdout.strip() if found.returncode == 0 else "unknown"
    tables = parse(script)
    source = f"HIPIFY {version.group(1) if version else '?'} (ROCm/HIPIFY@{commit}, bin/hipify-perl)"
    return {"engine": source, "licence": "MIT (ROCm/HIPIFY LICENSE.txt)", **tables}


def dumps(data: dict) -> str:
    """JSON with one table row per line, so that a HIPIFY update reviews as a readable diff."""
    parts = []
    for key in sorted(data):
        value = data[key]
        if isinstance(value, list):
            rows = ",\n".join(json.dumps(row) for row in value)
            parts.append(f"{json.dumps(key)}: [\n{rows}\n]")
        elif isinstance(value, dict):
            rows = ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(value.items()))
            parts.append(f"{json.dumps(key)}: {{\n{rows}\n}}")
        else:
            parts.append(f"{json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("hipify", type=Path, help="a checkout or extracted copy of github.com/ROCm/HIPIFY")
    ap.add_argument("--commit", default="", help="the commit of that copy, when it is not a git checkout")
    ap.add_argument("--out", type=Path, default=SNAPSHOT)
    args = ap.parse_args()
    data = generate(args.hipify, args.commit)
    args.out.write_text(dumps(data))
    counts = ", ".join(f"{k} {len(v)}" for k, v in data.items() if isinstance(v, (list, dict)))
    print(f"wrote {args.out} from {data['engine']}: {counts}")


if __name__ == "__main__":
    main()
