"""The wave model's findings do not depend on the process: a Ray worker (porter.cluster) has its
own PYTHONHASHSEED, so a set walked in hash order would name a different helper there."""

from __future__ import annotations

import os
import subprocess
import sys

# main's component holds four host helpers; in hash order the unions named it after any of them. A
# component is now named after its first function with a wave quantity: main (`blockDim.x / 32`).
SOURCE = """#include <cuda_runtime.h>
__host__ void alpha(float *a) { a[0] = 1.0f; }
__host__ void beta(float *a) { a[1] = 2.0f; }
__host__ void gamma(float *a) { a[2] = 3.0f; }
__host__ void delta(float *a) { a[3] = 4.0f; }
__global__ void k(float *a) { a[threadIdx.x] = 0.0f; }
int main() {
  float *a = nullptr;
  alpha(a); beta(a); gamma(a); delta(a);
  dim3 blockDim(128);
  int warps = blockDim.x / 32;
  k<<<1, 128>>>(a);
  return warps;
}
"""

PROGRAM = """
import sys
from porter.rules import RuleContext, run_on_files
from porter.state import FileKind, FileRecord
data = sys.stdin.buffer.read()
found, _ = run_on_files("microarch", [FileRecord(path="k.cu", kind=FileKind.cuda)], lambda _: data, RuleContext())
print(sorted(f.message for f in found if f.rule == "WAVE011"))
"""


def test_wave011_names_the_same_helper_whatever_the_hash_seed() -> None:
    outputs = set()
    for seed in ("0", "1", "3"):  # under the set's hash order, these three named delta, gamma and beta
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run([sys.executable, "-c", PROGRAM], input=SOURCE.encode(), capture_output=True,
                             env=env, check=True, timeout=120)
        outputs.add(run.stdout.decode())
    assert len(outputs) == 1, outputs
    assert "helper `main`" in outputs.pop()
