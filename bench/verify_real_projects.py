"""Stage and port real CUDA programs for `porter verify` on a GPU machine (original vs port, own checks).

For every program of a list (default bench/real_projects.toml: NVIDIA/cuda-samples and
yuhc/gpu-rodinia, names and paths only) this stages the program folder and the folders its
build files reach into BUNDLE/src/<name>, ports it with `porter port --no-verify` into
BUNDLE/port/<name>, and prints what `porter.verify.discover` finds to check in it. The bundle
then goes to the GPU machine, where docs/evidence/run_checks_h200.sh runs
`python3 -m porter.verify.evidence port/<name> --source src/<name> --executor hip-on-cuda` on
each: the original built by its own build files with nvcc and run twice, the port built by its
ported build files with porter's hip-on-cuda hipcc and run once, outputs compared.

    python bench/verify_real_projects.py --corpus /work/src BUNDLE [--list FILE] [--only NAME] [-j 2]

The corpus root holds one extracted repository per folder; `--corpus` or $PORTER_CORPUS names it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from real_projects import stage  # bench/ is on the path when a bench script runs

HERE = Path(__file__).resolve().parent
LIST = HERE / "real_projects.toml"


def slug(name: str) -> str:
    return re.sub(r"[^\w.+-]", "_", name)


def port_one(corpus: Path, prog: dict, bundle: Path) -> dict:
    name = slug(prog["name"])
    src, out = bundle / "src" / name, bundle / "port" / name
    for d in (src, out):
        if d.exists():
            shutil.rmtree(d)
    stage(corpus, prog, src)
    proc = subprocess.run([sys.executable, "-c", "from porter.cli import app; app()", "port", str(src), "-o",
                           str(out), "--no-verify"], capture_output=True, text=True, timeout=1800)
    from porter.verify.discover import discover_checks

    d = discover_checks(src)
    return {"name": prog["name"], "slug": name, "program": prog["program"],
            "ported": (out / "porter-report.json").is_file(), "port_rc": proc.returncode,
            "port_error": "" if (out / "porter-report.json").is_file() else (proc.stderr or proc.stdout)[-400:],
            "checks": [c.name for c in d.checks],
            "undiscovered": [f"{u.where}: {u.reason}" for u in d.undiscovered]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bundle", type=Path, help="folder to write src/, port/ and programs.json into")
    ap.add_argument("--corpus", default=os.environ.get("PORTER_CORPUS"))
    ap.add_argument("--list", type=Path, default=LIST, help="programs (TOML [[program]] entries)")
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("-j", type=int, default=2, help="ports at a time")
    args = ap.parse_args()
    if not args.corpus or not Path(args.corpus).is_dir():
        print("verify_real_projects: no corpus. Pass --corpus DIR or set PORTER_CORPUS to a folder holding "
              "the extracted repositories NVIDIA+cuda-samples and yuhc+gpu-rodinia.", file=sys.stderr)
        return 2
    programs = tomllib.loads(args.list.read_text())["program"]
    if args.only:
        programs = [p for p in programs if any(s in p["name"] for s in args.only)]
    args.bundle.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=args.j) as pool:
        rows = list(pool.map(lambda p: port_one(Path(args.corpus), p, args.bundle), programs))
    for r in rows:
        print(f"{r['name']:45} {'ported' if r['ported'] else 'PORT FAILED':11} checks {len(r['checks'])} "
              f"not-checks {len(r['undiscovered'])}", flush=True)
    (args.bundle / "programs.json").write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
