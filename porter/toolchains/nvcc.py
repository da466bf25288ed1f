"""Compile one original CUDA translation unit with nvcc: the baseline that a port is held to.

The verifier compiles the original next to its port, so that a unit which never built
with nvcc is not blamed on the port. Compile only (-c): no GPU and no link are needed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from porter.state import BuildResult
from porter.toolchains import find_tool, process

NVCC_CANDIDATES = ("nvcc", "/usr/local/cuda/bin/nvcc")


def find_nvcc() -> Path:
    """nvcc: $PORTER_NVCC, then nvcc on PATH, then the CUDA toolkit's default prefix."""
    return find_tool("nvcc", "PORTER_NVCC", NVCC_CANDIDATES)


@dataclass(frozen=True)
class NvccOptions:
    arch: str = "sm_90"
    include_dirs: tuple[Path, ...] = ()
    defines: tuple[str, ...] = ()  # "NAME" or "NAME=VALUE"
    std: str = "c++17"

    def __post_init__(self) -> None:
        # sm_XY, with the a/f suffixes of arch-specific (sm_90a) and family (sm_100f) targets.
        if not re.fullmatch(r"sm_\d{2,3}[af]?", self.arch):
            raise ValueError(f"arch {self.arch!r}: expected an NVIDIA target such as sm_90")
        if self.std not in ("c++17", "c++20"):
            raise ValueError(f"std {self.std!r}: nvcc accepts c++17 or c++20 here")
        for d in self.defines:
            if not re.fullmatch(r"[A-Za-z_]\w*(=.*)?", d):
                raise ValueError(f"define {d!r}: expected NAME or NAME=VALUE")
        object.__setattr__(self, "include_dirs", tuple(Path(p) for p in self.include_dirs))


def build_command(nvcc: Path, src: Path, opts: NvccOptions, obj_out: Path) -> list[str]:
    cmd = [str(nvcc), "-c", f"-std={opts.std}", f"-arch={opts.arch}"]
    for d in opts.include_dirs:
        cmd += ["-I", str(d)]
    cmd += [f"-D{d}" for d in opts.defines]
    cmd += [str(src), "-o", str(obj_out)]
    return cmd


def compile_unit(src: Path, opts: NvccOptions, workdir: Path) -> BuildResult:
    """Compile `src` to an object file under `workdir`. Raises only ToolchainMissing."""
    nvcc = find_nvcc()
    src = src.resolve()  # nvcc runs in workdir so that its temporaries stay there
    workdir.mkdir(parents=True, exist_ok=True)
    obj_out = workdir / f"{src.stem}.{opts.arch}.o"
    cmd = build_command(nvcc, src, opts, obj_out)
    return process.build_result("nvcc", process.run(cmd, workdir), [obj_out])
