"""Every header spelling the installed CUDA toolkit ships is mapped to a HIP header or flagged by HIP002.

Walks the toolkit's include tree (nvcc's, or $CUDA_HOME's, or /usr/local/cuda's), including CUDA 12.8+'s
include/cccl/ (cub/, thrust/, cuda/, nv/ are included from there without the cccl/ prefix), and
lists each header porter neither maps nor flags: that list must be empty. A header whose file name
the tables know under another spelling (nvToolsExt.h, now nvtx3/nvToolsExt.h) must map under this
one too, so that renamed calls (nvtxRangePush -> roctxRangePush) never keep their CUDA header.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from porter.agents.translator import tables
from porter.rules import RuleContext, rules_for, run_rules
from porter.syntax import SourceFile


def _toolkit_include() -> Path | None:
    candidates = []
    if os.environ.get("CUDA_HOME"):
        candidates.append(Path(os.environ["CUDA_HOME"]) / "include")
    if nvcc := shutil.which("nvcc"):
        candidates.append(Path(nvcc).resolve().parent.parent / "include")
    candidates.append(Path("/usr/local/cuda/include"))
    return next((c for c in candidates if (c / "cuda_runtime.h").is_file()), None)


INCLUDE = _toolkit_include()
needs_toolkit = pytest.mark.skipif(INCLUDE is None, reason="no CUDA toolkit include tree (cuda_runtime.h) under "
                                                           "$CUDA_HOME, nvcc's prefix or /usr/local/cuda; CI has one")


def _spellings(include: Path) -> list[str]:
    found = set()
    for base in (include, include / "cccl"):
        if base.is_dir():
            for path in base.rglob("*"):
                rel = path.relative_to(base).as_posix()
                if path.is_file() and not (base == include and rel.startswith("cccl/")):
                    found.add(rel)
    return sorted(found)


def _flagged(spellings: list[str]) -> set[str]:
    source = "".join(f"#include <{s}>\n" for s in spellings)
    unit = SourceFile("all.cu", source.encode(), "cuda")
    chosen = [r for r in rules_for("translator", "cuda") if r.id in ("HIP002", "HIP006")]
    found = run_rules(unit, chosen, RuleContext(), agent="translator").findings
    return {spellings[f.location.line - 1] for f in found}


@needs_toolkit
def test_every_toolkit_header_is_mapped_or_flagged() -> None:
    spellings = _spellings(INCLUDE)
    assert "cuda_runtime.h" in spellings and len(spellings) > 100
    ix = tables.index()
    flagged = _flagged(spellings)
    neither = [s for s in spellings if ix.header(s) is None and s not in flagged]
    assert neither == [], f"{len(neither)} CUDA headers neither mapped nor flagged: {neither[:40]}"


@needs_toolkit
def test_a_header_known_by_another_spelling_maps_in_this_one_too() -> None:
    ix = tables.index()
    by_name = {key.rsplit("/", 1)[-1] for key in ix.headers}
    left = [s for s in _spellings(INCLUDE)
            if "/" in s and "/__" not in s and s.rsplit("/", 1)[-1] in by_name and ix.header(s) is None]
    assert left == []


def test_current_spellings_map() -> None:
    ix = tables.index()
    assert ix.header("nvtx3/nvToolsExt.h").hip == "roctracer/roctx.h"
    assert ix.lookup("nvtxRangePushA").hip == "roctxRangePushA"
    assert ix.header("cub/block/block_reduce.cuh").hip == "hipcub/hipcub.hpp"
    assert ix.header("thrust/device_vector.h").hip == "thrust/device_vector.h"
    assert ix.header("thrust/system/cuda/execution_policy.h").hip.startswith("thrust/system/hip/")
    assert ix.header("crt/host_defines.h").hip == "hip/hip_runtime.h"
    # libcu++ (cuda/std/..., cuda/barrier) and nv/target have no HIP header: flagged, not mapped
    flagged = _flagged(["cuda/std/atomic", "cuda/barrier", "nv/target", "cuda/pipeline"])
    assert flagged == {"cuda/std/atomic", "cuda/barrier", "nv/target", "cuda/pipeline"}
    assert all(ix.header(s) is None for s in flagged)
