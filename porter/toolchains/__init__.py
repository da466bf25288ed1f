"""Compiler wrappers: one module per toolchain (nvcc, clang in HIP mode for gfx950/gfx942).

Each wrapper takes a frozen options dataclass and returns `porter.state.BuildResult`; a
failed compile is data. A compiler that cannot be found raises `ToolchainMissing`, whose
message names every place searched and the environment variable that overrides them.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path


class ToolchainMissing(RuntimeError):
    """A compiler porter needs is not installed where porter looked."""

    def __init__(self, tool: str, searched: Sequence[str], env_var: str) -> None:
        self.tool = tool
        self.searched = tuple(searched)
        self.env_var = env_var
        super().__init__(
            f"{tool} not found; searched: {', '.join(self.searched)}. "
            f"Set {env_var} to the compiler's path to override."
        )


def find_tool(tool: str, env_var: str, candidates: Sequence[str]) -> Path:
    """The first executable among `$env_var`, then each candidate (a name on PATH or a path).

    An `env_var` that is set but does not point at an executable is an error, not a
    reason to fall back: the user asked for that compiler.
    """
    override = os.environ.get(env_var)
    if override:
        if os.access(override, os.X_OK) and Path(override).is_file():
            return Path(override)
        raise ToolchainMissing(tool, [f"${env_var}={override}"], env_var)
    searched = [f"${env_var} (unset)"]
    for cand in candidates:
        searched.append(cand)
        found = shutil.which(cand)
        if found:
            return Path(found)
    raise ToolchainMissing(tool, searched, env_var)


CUDA_LIBS_ENV = "PORTER_CUDA_LIBS"


def find_cuda_libs(explicit: str | os.PathLike[str] | None = None) -> Path | None:
    """The CUDA libraries' folder (cuBLAS, cuFFT, cuRAND, cuSPARSE: include/ and lib/), or None.

    `explicit` (a command-line option), then `$PORTER_CUDA_LIBS`, then the nvidia-* wheels'
    `cu13` folder where they are installed (`pip install porter[cudalibs]`; PyTorch's machines).
    The hip-on-cuda library shims build against it: hipBLAS, hipFFT, hipRAND and hipSPARSE on
    the NVIDIA platform are the CUDA libraries underneath. Imports nothing outside the standard
    library, so that device scripts without porter's dependencies can use it.
    """
    given = explicit or os.environ.get(CUDA_LIBS_ENV)
    if given:
        return Path(given)
    try:
        import nvidia
    except ImportError:
        return None
    for p in nvidia.__path__:
        if (Path(p) / "cu13" / "include" / "cublas_v2.h").is_file():
            return Path(p) / "cu13"
    return None
