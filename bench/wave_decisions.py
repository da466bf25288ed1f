"""Wave decisions on real CUDA code: port each program statically, print each kernel's decision and the checker's verdict.

    PORTER_CORPUS=/work/src python bench/wave_decisions.py [--list bench/wave_programs.txt] [--out FILE]

Each line of the list names a program folder under the corpus (NVIDIA+cuda-samples/..., yuhc+gpu-rodinia/...)
with warp-level code. The folder is ported with `porter port --no-verify` (the graph, rules only) into a
temporary folder; for every kernel (and header helper) with warp-level code or wave-dependent quantities it prints the
decision WAVE011 took and whether agents/microarch/wave_check finds the port consistent with it.
Nothing is run on a GPU. Exit 1 when any port is inconsistent.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import sys
import tempfile
from pathlib import Path

from porter.agents.microarch import wave_check, wave_model
from porter.rules import RuleContext
from porter.run import port
from porter.scan import find_kernels
from porter.state import PortOptions
from porter.syntax import SourceFile, lang_for

HERE = Path(__file__).resolve().parent
# Kernels with warp-level code the model counts as wave-neutral (cooperative-groups tiles are logical groups).
COOPERATIVE = re.compile(r"tiled_partition|thread_block_tile|coalesced_threads|cg::reduce|_scan\(")


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and lang_for(p.name) and ".porter" not in p.parts}


def decisions(tree: dict[str, bytes]) -> list[tuple[str, wave_model.KernelWave]]:
    units = {p: SourceFile(p, d, lang_for(p) or "cpp") for p, d in tree.items()}
    headers = {p: u for p, u in units.items() if not p.endswith((".cu", ".cpp", ".cc"))}
    out = []
    for path, unit in sorted(units.items()):
        warp_level = {k.name for k in find_kernels(unit) if k.warp_ops} | {
            f.name for f in wave_model.functions(unit) if f.kernel and COOPERATIVE.search(f.view.src.text(f.node))}
        for k in wave_model.analyse(unit, RuleContext(sources=headers, tree=tree)).kernels:
            if k.quantities or k.kernel in warp_level:
                out.append((path, k))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", type=Path, default=HERE / "wave_programs.txt")
    parser.add_argument("--corpus", type=Path, default=os.environ.get("PORTER_CORPUS"))
    parser.add_argument("--out", type=Path, help="also write the table here")
    args = parser.parse_args()
    if args.corpus is None or not args.corpus.is_dir():
        print("no corpus: set PORTER_CORPUS (or --corpus) to the folder holding NVIDIA+cuda-samples and "
              "yuhc+gpu-rodinia", file=sys.stderr)
        return 2
    programs = [line.split("#")[0].strip() for line in args.list.read_text().splitlines()]
    lines = [f"# wave decisions, {datetime.date.today().isoformat()}: "
             f"PORTER_CORPUS={args.corpus} python bench/wave_decisions.py",
             "program | file | kernel | decision | quantities | consistent | why / first inconsistency"]
    counts = {"keep32": 0, "convert64": 0, "ask": 0}
    bad = 0
    for program in filter(None, programs):
        source = args.corpus / program
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "port"
            port(source, out, PortOptions(verify=False))
            before, after = files(source), files(out)
            found = {(i.path, i.kernel): i for i in wave_check.check_tree(before, after)}
        for path, k in decisions(before):
            issue = found.get((path, k.kernel))
            counts[k.decision] += 1
            bad += issue is not None
            name = f"{k.kernel}{' (helper)' if k.helper else ''}"
            lines.append(f"{program} | {path} | {name} | {k.decision} | {k.summary()} | "
                         f"{'no: ' + str(issue) if issue else 'yes'} | {k.reason}")
    lines.append(f"# kernels: {sum(counts.values())} ({', '.join(f'{v} {k}' for k, v in counts.items())}); "
                 f"inconsistent ports: {bad}")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out:
        args.out.write_text(text)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
