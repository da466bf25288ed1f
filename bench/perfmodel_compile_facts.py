"""Compile bench/gemm_kernel.py's kernels for sm_90a with Triton, without a GPU, and print what the compile did.

    # Triton 3.6.0 (the H200 sweeps' release) unpacked somewhere, e.g.:
    #   pip download triton==3.6.0 --no-deps -d /tmp/tr36 && unzip -q /tmp/tr36/triton-*.whl -d /tmp/t36site
    PYTHONPATH=/tmp/t36site python bench/perfmodel_compile_facts.py --variant nn --dtype fp8 \
        --config 128,128,64,4,3 --config 64,128,128,4,3 [--aligned] [--sample 90 --seed 18]

One JSON line per config: registers and stack per thread (cuobjdump -res-usage), shared memory (the
compiled metadata), and instruction counts of the whole kernel and of its main loop (the longest backward
branch in cuobjdump -sass). Pointers, K and A's row stride are marked 16-divisible as at run time; with
--aligned so are M, N and the other strides, otherwise they are not (N off a multiple of 16, as Triton
specializes 3000x5000x2000). Used for the evidence note of 2026-12-01 (ninth and tenth looks).

The twelfth look's table of the model (porter/perfmodel/data/triton-3.6-sm90a-nn-scalar-b.json, read by
porter/perfmodel/gemm.py's T13 where the kernel's Triton is 3.6 on sm_90): every config of the measured H200 space
compiled for nn at N off 16, then the JSON lines gathered into the table:

    PYTHONPATH=/tmp/t36site python bench/perfmodel_compile_facts.py --variant nn --dtype bf16 --space > bf16.jsonl
    PYTHONPATH=/tmp/t36site python bench/perfmodel_compile_facts.py --variant nn --dtype fp16 --space > fp16.jsonl
    PYTHONPATH=/tmp/t36site python bench/perfmodel_compile_facts.py --variant nn --dtype fp8 --space > fp8.jsonl
    python bench/perfmodel_compile_facts.py --table porter/perfmodel/data/triton-3.6-sm90a-nn-scalar-b.json \
        bf16.jsonl fp16.jsonl fp8.jsonl

(fp16 was added by the first nn fp16 look; the table's dtypes are those of the JSON lines given, so bf16.jsonl and
fp8.jsonl alone write the twelfth and thirteenth looks' table byte for byte.) With --opcodes each line also lists the
main loop's opcodes in program order, to compare two dtypes' schedules.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

OPCODES = ("LDG.E.U8", "LDG.E.U16", "LDG.E.128", "LDGSTS", "STS.U8", "STS.U16", "STSM", "PRMT", "STL", "LDL",
           "HGMMA", "QGMMA", "HMMA", "BAR.SYNC")
KERNELS = {"nt": "gemm_kernel", "nn": "gemm_nn_kernel"}


def compile_config(variant: str, dtype: str, cfg: tuple[int, int, int, int, int], aligned: bool,
                   opcodes: bool = False):
    import gemm_kernel
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    bm, bn, bk, warps, stages = cfg
    ptr = {"bf16": "*bf16", "fp16": "*fp16", "fp8": "*fp8e4nv"}[dtype]
    names = ("a_ptr", "b_ptr" if variant == "nn" else "w_ptr", "c_ptr", "M", "N", "K", "stride_am",
             "stride_bk" if variant == "nn" else "stride_wn", "stride_cm")
    types = (ptr, ptr, "*bf16" if dtype == "fp8" else ptr, *["i32"] * 6)
    signature = dict(zip(names, types)) | dict.fromkeys(("BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M"), "constexpr")
    # 16-divisible at run time: the pointers, K and A's row stride (= K); nt's B stride is K too.
    marked = set(range(9)) if aligned else {0, 1, 2, 5, 6} | ({7} if variant == "nt" else set())
    attrs = {(i,): [["tt.divisibility", 16]] for i in sorted(marked)}
    source = ASTSource(getattr(gemm_kernel, KERNELS[variant]), signature,
                       {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8}, attrs)
    kernel = triton.compile(source, target=GPUTarget("cuda", 90, 32),
                            options={"num_warps": warps, "num_stages": stages})
    cuobjdump = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(kernel.asm["cubin"])
        f.flush()
        usage = subprocess.run([cuobjdump, "-res-usage", f.name], capture_output=True, text=True, check=True).stdout
        sass = subprocess.run([cuobjdump, "-sass", f.name], capture_output=True, text=True, check=True).stdout
    regs = re.search(r"REG:(\d+)", usage)
    stack = re.search(r"STACK:(\d+)", usage)
    instructions = [(int(a, 16), op.strip()) for a, op in re.findall(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);", sass)]
    loop = _main_loop(instructions)
    facts = {"variant": variant, "dtype": dtype, "config": f"{bm}x{bn}x{bk} w{warps} s{stages}", "aligned": aligned,
             "triton": triton.__version__, "registers": int(regs.group(1)) if regs else None,
             "stack_bytes": int(stack.group(1)) if stack else None, "shared_bytes": kernel.metadata.shared,
             "kernel": {op: sum(op in o for _, o in instructions) for op in OPCODES},
             "loop_instructions": len(loop), "loop": {op: sum(op in o for o in loop) for op in OPCODES},
             "loop_constant_loads": sum(_opcode(o).startswith("LDC") for o in loop),
             "loop_latency_rounds": latency_rounds(loop)}
    if opcodes:  # the loop's opcodes in program order (operands left out), to compare two compiles' schedules
        facts["loop_opcodes"] = [_opcode(o) for o in loop]
    return facts


def latency_rounds(loop: list[str], latency: int = 2449) -> float:
    """Memory latencies one pass of the loop waits out in B's scalar loads, from the order of its loads and stores.

    B's scalar loads (LDG.E.U8 / U16) and its shared-memory stores (STS*, STSM) are replayed in program order: a
    load issues in one clock and returns `latency` clocks later (the H200's dram_latency_ns at 1830 MHz); the
    stores consume the loads in order (store j of n_s needs load ceil((j + 1) n_l / n_s) of n_l) and wait for it.
    All loads before the first store: one latency. A compile short of registers interleaves them (16x128x32 w4 s3
    bf16, 56 registers: 5 loads, 2 stores, 1 load, 3 stores, ...) and waits several latencies per K-step.
    """
    ops = [("L" if "LDG.E.U" in o else "S") for o in loop if "LDG.E.U" in o or o.split()[0].startswith(("STS", "@P"))
           and ("STS" in o.split()[0] or (len(o.split()) > 1 and o.split()[1].startswith("STS")))]
    n_l, n_s = ops.count("L"), ops.count("S")
    if not n_l or not n_s:
        return 0.0
    t, ready, j = 0, [], 0
    for op in ops:
        if op == "L":
            ready.append(t + latency)
            t += 1
        else:
            need = min(n_l, -(-(j + 1) * n_l // n_s)) - 1
            t = max(t, ready[need]) + 1 if need < len(ready) else t + 1
            j += 1
    return round(t / latency, 2)


def _opcode(instruction: str) -> str:
    """The opcode of a SASS instruction, past its predicate (``@P6 LDG.E.U16 ...`` -> ``LDG.E.U16``)."""
    words = instruction.split()
    return words[1] if words[0].startswith("@") and len(words) > 1 else words[0]


def _main_loop(instructions: list[tuple[int, str]]) -> list[str]:
    """The instructions of the longest backward branch's body."""
    best = (0, 0)
    for addr, op in instructions:
        m = re.search(r"BRA\s+0x([0-9a-f]+)", op)
        if m and int(m.group(1), 16) < addr and addr - int(m.group(1), 16) > best[1] - best[0]:
            best = (int(m.group(1), 16), addr)
    return [op for a, op in instructions if best[0] <= a <= best[1]]


TABLE_COLUMNS = ("registers", "stack_bytes", "shared_bytes", "loop_instructions", "loop_scalar_b_loads",
                 "loop_local_accesses", "loop_byte_stores", "loop_latency_rounds", "loop_constant_loads")


def write_table(out: Path, sources: list[str]) -> None:
    """Gather --space JSON lines of the nn kernel into the model's table: per dtype and config the TABLE_COLUMNS.

    One table holds one specialisation: every line at N off 16 (the scalar-B table), or every line --aligned (M, N,
    K and the strides 16-divisible: the aligned table, T19)."""
    table: dict[str, dict[str, list[int]]] = {}
    triton, aligned = set(), set()
    for src in sources:
        for line in Path(src).read_text().splitlines():
            r = json.loads(line)
            if r["variant"] != "nn" or r["registers"] is None:
                raise SystemExit(f"{src}: not an nn compile: {r['config']}")
            aligned.add(r["aligned"])
            if len(aligned) > 1:
                raise SystemExit(f"{src}: compiles at N off 16 and aligned ones in one table: {r['config']}")
            triton.add(r["triton"])
            loop = r["loop"]
            table.setdefault(r["dtype"], {})[r["config"]] = [
                r["registers"], r["stack_bytes"], r["shared_bytes"], r["loop_instructions"],
                loop["LDG.E.U16"] + loop["LDG.E.U8"], loop["LDL"] + loop["STL"], loop["STS.U8"],
                r["loop_latency_rounds"], r["loop_constant_loads"]]
    if len(triton) != 1:
        raise SystemExit(f"compiles of more than one Triton release: {sorted(triton)}")
    provenance = {
        "kernel": "bench/gemm_kernel.py gemm_nn_kernel (C = A @ B, B row-major), GROUP_M 8",
        "triton": triton.pop(), "target": "GPUTarget('cuda', 90, 32): sm_90a, with Triton's bundled ptxas",
        "divisibility": ("tt.divisibility 16 on every pointer, M, N, K and stride (--aligned: N on a multiple of 16, "
                         "as Triton specializes 4096x4096x4096)" if aligned == {True} else
                         "tt.divisibility 16 on a_ptr, b_ptr, c_ptr, K, stride_am; not on M, N, stride_bk, "
                         "stride_cm (N off a multiple of 16, as Triton specializes 3000x5000x2000)"),
        "configs": "every config of bench/perfmodel_validate.py measured_space('h200', dtype)",
        "columns": {
            "registers": "REG per thread (cuobjdump -res-usage)",
            "stack_bytes": "STACK per thread (cuobjdump -res-usage): > 0 means the compile spills",
            "shared_bytes": "the compiled kernel's metadata.shared",
            "loop_instructions": "SASS instructions in the main loop (the longest backward branch's body)",
            "loop_scalar_b_loads": "LDG.E.U16 + LDG.E.U8 in that loop: B's scalar loads per thread per K-step",
            "loop_local_accesses": "LDL + STL in that loop (spill traffic per K-step)",
            "loop_byte_stores": "STS.U8 in that loop: B stored to shared memory a byte per lane (fp8)",
            "loop_latency_rounds": "memory latencies one pass of that loop waits in B's scalar loads "
                                   "(latency_rounds: its loads and stores replayed in order)",
            "loop_constant_loads": "LDC in that loop (not ULDC): constant-bank loads, B's row stride reloaded to "
                                   "rebuild its scalar-load addresses where the compile is short of registers"},
        "command": "PYTHONPATH=<triton 3.6.0 unpacked> python bench/perfmodel_compile_facts.py --variant nn "
                   f"--dtype {{{','.join(sorted(table))}}} --space{' --aligned' if aligned == {True} else ''} "
                   "> {dtype}.jsonl; python "
                   f"bench/perfmodel_compile_facts.py --table <this file> {' '.join(f'{d}.jsonl' for d in sorted(table))}",
        "date": "2026-12-01"}
    lines = ["{", f'"provenance": {json.dumps(provenance, indent=1)},', f'"columns": {json.dumps(TABLE_COLUMNS)},',
             '"configs": {']
    for d, (dt, rows) in enumerate(sorted(table.items())):
        lines.append(f'{json.dumps(dt)}: {{')
        items = sorted(rows.items())
        lines += [f'  {json.dumps(cfg)}: {json.dumps(v)}{"," if i < len(items) - 1 else ""}'
                  for i, (cfg, v) in enumerate(items)]
        lines.append("}" + ("," if d < len(table) - 1 else ""))
    lines.append("}}")
    json.loads("\n".join(lines))  # well-formed
    out.write_text("\n".join(lines) + "\n")


def compare(first: str, second: str) -> dict[str, int]:
    """Two dtypes' JSON lines (the same variant and configs), config by config: how many configs differ in each
    column, each kernel / loop opcode count and, where both list them (--opcodes), the loop's opcode order."""
    a, b = ({r["config"]: r for r in map(json.loads, Path(src).read_text().splitlines())} for src in (first, second))
    common = sorted(set(a) & set(b))
    differ: dict[str, int] = {}
    swaps: dict[tuple[str, str], int] = {}  # opcode pairs at the same place of two loops of one length
    identical = 0
    keys = [*TABLE_COLUMNS[:3], "loop_instructions", "loop_latency_rounds", "loop_constant_loads",
            *(f"{part}:{op}" for part in ("kernel", "loop") for op in OPCODES)]
    for cfg in common:
        x, y = a[cfg], b[cfg]
        bad = [k for k in keys if _field(x, k) != _field(y, k)]
        if "loop_opcodes" in x and "loop_opcodes" in y:
            if len(x["loop_opcodes"]) != len(y["loop_opcodes"]):
                bad.append("loop_opcodes (length)")
            pairs = {(u, v) for u, v in zip(x["loop_opcodes"], y["loop_opcodes"]) if u != v}
            for pair in pairs:
                swaps[pair] = swaps.get(pair, 0) + 1
            bad += ["loop_opcodes"] if pairs else []
        for k in bad:
            differ[k] = differ.get(k, 0) + 1
        identical += not bad
    print(f"{first}: {len(a)} configs, {second}: {len(b)}, {len(common)} in both; identical in every field compared: "
          f"{identical}" + ("" if "loop_opcodes" in a[common[0]] else " (no --opcodes: the loop's order not compared)"))
    for k, n in sorted(differ.items(), key=lambda kv: -kv[1]):
        print(f"  {k:<24} differs in {n} configs")
    for (u, v), n in sorted(swaps.items(), key=lambda kv: -kv[1]):
        print(f"  loop opcode {u} -> {v} at the same place in {n} configs")
    return differ


def _field(row: dict, key: str):
    part, _, op = key.partition(":")
    return row[part][op] if op else row[key]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--variant", choices=tuple(KERNELS), default="nn")
    p.add_argument("--dtype", choices=("bf16", "fp16", "fp8"), default="bf16")
    p.add_argument("--config", action="append", default=[], help="BM,BN,BK,warps,stages (repeatable)")
    p.add_argument("--sample", type=int, default=0, help="also this many configs drawn from the measured H200 space")
    p.add_argument("--seed", type=int, default=18)
    p.add_argument("--space", action="store_true", help="also every config of the measured H200 space, in its order")
    p.add_argument("--aligned", action="store_true", help="mark M, N and every stride 16-divisible too")
    p.add_argument("--opcodes", action="store_true",
                   help="also the main loop's opcodes in program order (loop_opcodes), to compare two dtypes' loops")
    p.add_argument("--table", metavar="OUT", help="write the model's table from the JSON lines given as arguments")
    p.add_argument("--compare", action="store_true", help="compare two dtypes' JSON lines, config by config")
    p.add_argument("sources", nargs="*", help="--space JSON lines (with --table; two with --compare)")
    a = p.parse_args()
    if a.compare:
        if len(a.sources) != 2:
            p.error("--compare takes two JSON-lines files")
        compare(*a.sources)
        return
    if a.table:
        write_table(Path(a.table), a.sources)
        return
    configs = [tuple(map(int, c.split(","))) for c in a.config]
    if a.sample:
        import perfmodel_validate as pv

        space = pv.measured_space("h200", a.dtype)
        configs += [(c.block_m, c.block_n, c.block_k, c.num_warps, c.num_stages)
                    for c in random.Random(a.seed).sample(space, a.sample)]
    if a.space:
        import perfmodel_validate as pv

        configs += [(c.block_m, c.block_n, c.block_k, c.num_warps, c.num_stages)
                    for c in pv.measured_space("h200", a.dtype)]
    if not configs:
        p.error("no configs: give --config or --sample")
    for cfg in configs:
        print(json.dumps(compile_config(a.variant, a.dtype, cfg, a.aligned, a.opcodes)), flush=True)


if __name__ == "__main__":
    main()
