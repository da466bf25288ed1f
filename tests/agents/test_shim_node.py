"""The shim agent writes porter_compat.h and includes it where a unit needs a declaration HIP lacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.run import port
from porter.state import PortOptions

KERNEL = """#include <cuda_runtime.h>

__global__ void stream_copy(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) __stcs(&out[i], __ldcs(&in[i]));
}
"""


def _project(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    (src / "kernels").mkdir(parents=True)
    (src / "kernels" / "copy.cu").write_text(KERNEL)
    return src


def test_compat_header_written_and_included(tmp_path: Path) -> None:
    out = tmp_path / "out"
    state = port(_project(tmp_path), out, PortOptions(verify=False))
    header = (out / "porter_compat.h").read_text()
    assert "__ldcs" in header and "__builtin_nontemporal_load" in header
    unit = (out / "kernels" / "copy.cu").read_text()
    assert '#include <hip/hip_runtime.h>\n#include "../porter_compat.h"\n' in unit
    shim_findings = [f for f in state.findings if f.rule == "SHIM001"]
    assert len(shim_findings) == 2 and all(f.fixed for f in shim_findings)
    assert {p.rule for p in state.patches if p.agent == "shim"} == {"SHIM001"}


@pytest.mark.toolchain("clang")
def test_unit_with_compat_header_compiles_for_gfx950(tmp_path: Path) -> None:
    state = port(_project(tmp_path), tmp_path / "out", PortOptions())
    assert state.units["kernels/copy.cu"].verdict == "compiled", state.units["kernels/copy.cu"].reason
