"""One kernel inventory: the scan's kernels and shared sizes are porter.kernel_facts', which the LDS rules read."""

from __future__ import annotations

from porter import kernel_facts
from porter.scan import find_kernels
from porter.syntax import SourceFile

SRC = b"""#define TILE 32
__shared__ float halo[TILE + 2];
__global__ void stencil(float* out) {
    __shared__ float tile[TILE][TILE + 1];
    out[threadIdx.x] = tile[0][threadIdx.x] + halo[threadIdx.x];
}
__global__ void plain(int* p) { __shared__ int buf[64]; p[0] = buf[0]; }
"""


def test_scan_sizes_shared_memory_as_the_lds_rules_do() -> None:
    unit = SourceFile("k.cu", SRC, "cuda")
    scanned = {k.name: k.static_shared_bytes for k in find_kernels(unit)}
    # #define sizes and the file-scope array the kernel uses count: 32 x 33 x 4 + 34 x 4 bytes.
    assert scanned == {"stencil": 32 * 33 * 4 + 34 * 4, "plain": 64 * 4}
    facts = SourceFile("k.cu", SRC, "cuda")
    assert scanned == {k.name: kernel_facts.static_shared_bytes(facts, k) for k in kernel_facts.kernels(facts)}
