"""`python -m porter.verify OUT --executor hip-on-cuda --source SRC`: verify a port on this machine.

For a device run outside the graph: reads OUT's verify spec, builds and runs every kernel spec
against the original (SRC, cuda executor) and the port (OUT, the chosen executor), and prints
a JSON summary on stdout. Exit codes: 0 every exercised kernel (and command) passed; 1 some
did not; 2 bad input (no such directory, a bad spec, an unknown executor).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from porter.verify.executors import EXECUTORS, get_executor
from porter.verify.project import CommandVerdict, KernelVerdict, run_commands, verify_project
from porter.verify.spec import SpecError, load_spec


def summary(verdicts: list[KernelVerdict], commands: list[CommandVerdict], executor: str) -> dict:
    """The JSON summary: per kernel its status, per output its errors, and the timing verdict."""
    kernels = []
    for v in verdicts:
        kernels.append({
            "kernel": v.kernel, "unit": v.unit, "status": v.status, "reason": v.reason,
            "outputs": [c.model_dump() for c in v.outputs],
            "timing": v.timing.model_dump() if v.timing else None,
        })
    counts: dict[str, int] = {}
    for v in verdicts:
        counts[v.status] = counts.get(v.status, 0) + 1
    return {"executor": executor, "counts": counts, "kernels": kernels,
            "commands": [c.model_dump(include={"name", "passed", "rc", "seconds", "reason"}) for c in commands]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m porter.verify", description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path, help="the ported tree (holds porter.toml)")
    parser.add_argument("--source", type=Path, required=True, help="the original CUDA tree")
    parser.add_argument("--executor", default="hip-on-cuda", choices=sorted(EXECUTORS))
    parser.add_argument("--arch", default=None, help="target of the port's executor (sm_90, native, gfx950, ...)")
    parser.add_argument("--baseline-arch", default=None, help="target of the original's cuda build (default: sm_90)")
    parser.add_argument("--spec", type=Path, default=None, help="a porter.toml to use instead of OUT's")
    parser.add_argument("--workdir", type=Path, default=None, help="build and output folder (default: OUT/.porter/verify)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per driver run")
    parser.add_argument("--commands", action="store_true", help="also run the port's [[verify.command]] programs")
    parser.add_argument("--no-scan", action="store_true", help="do not list unspecified kernels as not-exercised")
    args = parser.parse_args(argv)
    for d in (args.output, args.source):
        if not d.is_dir():
            print(f"error: {d}: not a directory", file=sys.stderr)
            return 2
    try:
        spec = load_spec(args.spec or args.output)
        executor = get_executor(args.executor, args.arch)
        baseline = get_executor("cuda", args.baseline_arch)
    except (SpecError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    all_kernels: list[tuple[str, str]] = []
    if not args.no_scan:
        from porter.inventory import inventory

        all_kernels = [(k.location.path, k.name) for k in inventory(args.output).kernels]
    verdicts = verify_project(args.output, spec, executor, args.source, baseline_executor=baseline,
                              workdir=args.workdir, all_kernels=all_kernels, timeout=args.timeout)
    commands = run_commands(args.output, spec, {"PORTER_EXECUTOR": executor.name}) if args.commands else []
    print(json.dumps(summary(verdicts, commands, executor.name), indent=2))
    failed = [v for v in verdicts if v.status not in ("pass", "not-exercised")] + [c for c in commands if not c.passed]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
