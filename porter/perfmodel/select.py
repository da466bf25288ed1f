"""Zero-warm-up selection: the legal config space per (device, dtype), and the model's pick for a shape.

`select("matmul", (M, N, K), "bf16", "gfx950")` scores every legal candidate with the GEMM model
and returns the fastest and the runner-up, without running anything. The spaces are what a
Triton autotune list for the target would hold; the AMD one adds the backend's knobs
(waves_per_eu, matrix_instr_nonkdim, kpack: ../shared/HARDWARE.md, "Triton on AMD: the knobs").
Candidate columns are built once per (device, dtype) and cached, so a selection costs one
vectorised evaluation: bench/perfmodel_select.py prints its time per shape.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from functools import cache

import numpy as np

from porter import hardware
from porter.hardware import Device
from porter.perfmodel import roofline
from porter.perfmodel.gemm import Candidates, Gemm, GemmConfig, Prediction, Traits, evaluate, prediction

GEMM_OPS = ("matmul", "gemm")
TILES_M = (16, 32, 64, 128, 256)
TILES_N = (16, 32, 64, 128, 256)
TILES_K = (32, 64, 128, 256)


def space(dev: Device, dtype: str) -> list[GemmConfig]:
    """Every config the selector considers for dtype on dev, legal or not (the model rules out the rest).

    NVIDIA (sm_90): tiles 16-256, num_warps 4/8, num_stages 2-5, GROUP_M 8: the axes of Triton's
    own matmul tutorial configs. AMD: tiles 16-256, num_warps 4/8, num_stages 1-3 (AMD's stream
    pipeliner, whose LDS holds num_stages buffers), GROUP_M 4/8, waves_per_eu 0/2, matrix_instr_nonkdim 16/32, kpack 1 (and 2 on gfx942).
    """
    fp8 = dtype == "fp8"
    ks = tuple(k for k in TILES_K if k >= (64 if fp8 else 32) and k <= (256 if fp8 else 128))
    out = []
    if dev.vendor == "nvidia":
        for bm, bn, bk, nw, ns in itertools.product(TILES_M, TILES_N[1:], ks, (4, 8), (2, 3, 4, 5)):
            out.append(GemmConfig(bm, bn, bk, group_m=8, num_warps=nw, num_stages=ns))
        return out
    kpacks = (1, 2) if dev.arch == "gfx942" else (1,)
    for bm, bn, bk, nw, ns, gm, wpe, nonk, kp in itertools.product(
            TILES_M, TILES_N, ks, (4, 8), (1, 2, 3), (4, 8), (0, 2), (16, 32), kpacks):
        out.append(GemmConfig(bm, bn, bk, group_m=gm, num_warps=nw, num_stages=ns, waves_per_eu=wpe,
                              matrix_instr_nonkdim=nonk, kpack=kp))
    return out


@cache
def candidates(device_name: str, dtype: str, traits: Traits = Traits()) -> Candidates:
    """The candidates of space() legal for some N, as model columns; built once per process and (device,
    dtype, traits). A config legal only where B is loaded one element per lane (N off 16) stays: evaluate
    rules out, per shape, what is not legal there."""
    dev = hardware.get(device_name)
    full = Candidates(space(dev, dtype), dev, dtype, traits)
    legal = full.legal | full.scalar_b_legal if full.scalar_b else full.legal
    return Candidates([cfg for cfg, ok in zip(full.configs, legal) if ok], dev, dtype, traits)


@dataclass(frozen=True)
class Selection:
    """The model's pick for one shape, the runner-up, and what the choice cost."""

    op: str
    shape: tuple[int, ...]
    dtype: str
    device: str
    best: Prediction
    runner_up: Prediction | None
    considered: int
    seconds: float  # wall time of the selection, including any table build below
    table_seconds: float = 0.0  # building the candidate table, paid once per process, device and dtype


def select(op: str, shape: tuple[int, ...], dtype: str, arch: str, traits: Traits = Traits()) -> Selection:
    """The fastest legal config for op at shape on arch (a device name or an arch such as gfx950),
    for a GEMM kernel with `traits` (operand layout, persistent or not)."""
    started = time.perf_counter()
    dev = hardware.get(arch)
    if op in GEMM_OPS:
        if len(shape) != 3:
            raise ValueError(f"{op} takes a shape M,N,K; got {','.join(map(str, shape))}")
        dev.peak_tflops(dtype)  # a clear error for a dtype the device has no matrix rate for
        problem = Gemm(*shape, dtype=dtype, traits=traits)
        built = time.perf_counter()
        cands = candidates(dev.name, dtype, traits)
        built = time.perf_counter() - built
        seconds, bound = evaluate(problem, cands)
        order = np.argsort(seconds, kind="stable")[:2]
        best = prediction(problem, cands, int(order[0]), seconds, bound)
        second = prediction(problem, cands, int(order[1]), seconds, bound) if len(order) > 1 else None
        return Selection(op, tuple(shape), dtype, dev.name, best, second, len(cands),
                         time.perf_counter() - started, built)
    if op in roofline.OPS:
        best, second, n = roofline.select(op, tuple(shape), dtype, dev)
        return Selection(op, tuple(shape), dtype, dev.name, best, second, n, time.perf_counter() - started)
    raise ValueError(f"unknown op {op!r}; known: {', '.join(GEMM_OPS + roofline.OPS)}")

