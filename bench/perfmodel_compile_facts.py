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


def compile_config(variant: str, dtype: str, cfg: tuple[int, int, int, int, int], aligned: bool):
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
    return {"variant": variant, "dtype": dtype, "config": f"{bm}x{bn}x{bk} w{warps} s{stages}", "aligned": aligned,
            "triton": triton.__version__, "registers": int(regs.group(1)) if regs else None,
            "stack_bytes": int(stack.group(1)) if stack else None, "shared_bytes": kernel.metadata.shared,
            "kernel": {op: sum(op in o for _, o in instructions) for op in OPCODES},
            "loop_instructions": len(loop), "loop": {op: sum(op in o for o in loop) for op in OPCODES}}


def _main_loop(instructions: list[tuple[int, str]]) -> list[str]:
    """The instructions of the longest backward branch's body."""
    best = (0, 0)
    for addr, op in instructions:
        m = re.search(r"BRA\s+0x([0-9a-f]+)", op)
        if m and int(m.group(1), 16) < addr and addr - int(m.group(1), 16) > best[1] - best[0]:
            best = (int(m.group(1), 16), addr)
    return [op for a, op in instructions if best[0] <= a <= best[1]]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--variant", choices=tuple(KERNELS), default="nn")
    p.add_argument("--dtype", choices=("bf16", "fp16", "fp8"), default="bf16")
    p.add_argument("--config", action="append", default=[], help="BM,BN,BK,warps,stages (repeatable)")
    p.add_argument("--sample", type=int, default=0, help="also this many configs drawn from the measured H200 space")
    p.add_argument("--seed", type=int, default=18)
    p.add_argument("--aligned", action="store_true", help="mark M, N and every stride 16-divisible too")
    a = p.parse_args()
    configs = [tuple(map(int, c.split(","))) for c in a.config]
    if a.sample:
        import perfmodel_validate as pv

        space = pv.measured_space("h200", a.dtype)
        configs += [(c.block_m, c.block_n, c.block_k, c.num_warps, c.num_stages)
                    for c in random.Random(a.seed).sample(space, a.sample)]
    if not configs:
        p.error("no configs: give --config or --sample")
    for cfg in configs:
        print(json.dumps(compile_config(a.variant, a.dtype, cfg, a.aligned)), flush=True)


if __name__ == "__main__":
    main()
