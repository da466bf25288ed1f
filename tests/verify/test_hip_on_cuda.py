"""shims/hip_on_cuda: HIP ports compile with nvcc against the wave64-emulating headers.

No GPU is needed: these tests build the fixtures of fixtures/hip_on_cuda (compile only, -c),
and check that the headers reject what ROCm 6.3 rejects (a 32-bit lane mask). Running the
fixtures needs an NVIDIA GPU: fixtures/hip_on_cuda/run.sh.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from porter.toolchains import find_cuda_libs
from porter.toolchains.hoc_guard import GUARD_MACRO, instrument
from porter.toolchains.nvcc import find_cuobjdump, find_nvcc

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "shims" / "hip_on_cuda"
OPTS = INCLUDE / "nvcc.opts"
NATIVE_OPTS = INCLUDE / "nvcc_platform_nvidia.opts"  # the native control's: the renames without the register cap
FIXTURES = ROOT / "fixtures" / "hip_on_cuda"
FIXTURE_NAMES = ("wave32_reduce", "wave64_reduce", "ballot_popc", "mfma", "split_wave", "partner_exit", "late_half", "late_steady",
                 "cub_wave32", "coalesced_group", "multi_wave_tile", "labeled_partition")
# Fixtures that need the CUDA libraries' headers (cuBLAS & co.: the nvidia-* wheels' nvidia/cu13).
LIB_FIXTURE_NAMES = ("libraries",)
MASK_MESSAGE = "The mask must be a 64-bit integer"


def _nvcc(step: str, src: Path, out: Path, *extra: str, opts: Path = OPTS) -> subprocess.CompletedProcess[str]:
    """nvcc `step` (-c, -ptx, -cubin) of `src` against the shims with the options file `opts`."""
    cmd = [str(find_nvcc()), step, "-std=c++17", "-arch=sm_90", f"-I{INCLUDE}", "--options-file", str(opts), *extra,
           str(src), "-o", str(out)]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=out.parent, timeout=600)


def _compile(src: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return _nvcc("-c", src, out)


def test_fixture_set_is_complete() -> None:
    found = sorted(p.name.removesuffix(".hip.cu") for p in FIXTURES.glob("*.hip.cu"))
    assert found == sorted(FIXTURE_NAMES + LIB_FIXTURE_NAMES)
    assert (FIXTURES / "run.sh").is_file()


@pytest.mark.toolchain("nvcc")
@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_fixture_compiles(name: str, tmp_path: Path) -> None:
    proc = _compile(FIXTURES / f"{name}.hip.cu", tmp_path / f"{name}.o")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / f"{name}.o").is_file()


KERNEL_32BIT_MASK = """
#include <hip/hip_runtime.h>
__global__ void k(float* v) {
  float x = v[threadIdx.x];
  x += __shfl_down_sync(0xffffffffu, x, 16);  // CUDA's 32-bit mask, carried over by a port
  v[threadIdx.x] = x;
}
"""


@pytest.mark.toolchain("nvcc")
def test_32bit_mask_is_rejected(tmp_path: Path) -> None:
    src = tmp_path / "mask32.hip.cu"
    src.write_text(KERNEL_32BIT_MASK)
    proc = _compile(src, tmp_path / "mask32.o")
    assert proc.returncode != 0
    assert MASK_MESSAGE in proc.stderr + proc.stdout


@pytest.mark.toolchain("nvcc")
def test_64bit_mask_and_warp_size_compile(tmp_path: Path) -> None:
    src = tmp_path / "mask64.hip.cu"
    src.write_text(KERNEL_32BIT_MASK.replace("0xffffffffu", "0xffffffffffffffffull") + """
static_assert(warpSize == 64, "hip_on_cuda emulates gfx9 wave64");
int wave_size_of(const hipDeviceProp_t& p) { return p.warpSize; }
""")
    proc = _compile(src, tmp_path / "mask64.o")
    assert proc.returncode == 0, proc.stderr



def _build(src: Path, out: Path) -> subprocess.CompletedProcess[str]:
    """Compile and link (a program to run on the host or a GPU)."""
    cmd = [str(find_nvcc()), "-std=c++17", "-O3", "-arch=sm_90", f"-I{INCLUDE}", "--options-file", str(OPTS), str(src), "-o", str(out)]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=out.parent, timeout=600)


# ---- hip/hip_cooperative_groups.h ---------------------------------------------------------------
# A self-checking program against a CPU model of HIP's tile semantics: every member of the subset,
# tiles of 1..64 lanes, full blocks, a one-warp tail wave and partial tiles. Compiled here; on an
# NVIDIA GPU it prints "PASS cg_tiles errors=0" (it did on an H200, see the helper's report).
CG_TILES_PROGRAM = r"""// Cooperative-groups tiles of 1..64 lanes on the emulated wave64, checked against a CPU model of
// HIP's semantics (rank = linear id % N; a read from a lane that does not exist gives 0).
#include <cstdio>
#include <vector>
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr int kOps = 14;

template <unsigned N>
__global__ void tiles(long long* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
  const unsigned t = block.thread_rank();
  const int v = static_cast<int>(t * 7u + 3u);
  long long* o = out + static_cast<size_t>(blockIdx.x * block.size() + t) * kOps;
  o[0] = tile.shfl(v, static_cast<int>(tile.thread_rank() * 3u + 1u));
  o[1] = tile.shfl_down(v, N > 1 ? N / 2 : 1);
  o[2] = tile.shfl_up(v, N > 2 ? N / 4 + 1 : 1);
  o[3] = tile.shfl_xor(v, N - 1);
  o[4] = static_cast<long long>(tile.ballot(t % 3u == 0u));
  o[5] = tile.any(t % 5u == 0u);
  o[6] = tile.all(t % 7u != 3u);
  o[7] = static_cast<long long>(tile.shfl(1.5 * v, 0) * 2.0);  // a 64-bit type
  o[8] = tile.thread_rank() + 1000u * tile.size() + 100000u * tile.num_threads();
  o[9] = tile.meta_group_rank() + 1000u * tile.meta_group_size();
  __shared__ int lds[1024];
  lds[t] = v;
  tile.sync();
  const unsigned nb = (t & ~(N - 1u)) + ((t + 1u) & (N - 1u));
  o[10] = nb < block.size() ? lds[nb] : 0;  // a neighbour's store, after tile.sync()
  block.sync();
  auto sub = cg::tiled_partition<(N > 1 ? N / 2 : 1)>(tile);
  o[11] = sub.thread_rank() + 1000u * sub.meta_group_rank() + 100000u * sub.meta_group_size();
  o[12] = cg::thread_rank(tile) + 1000u * cg::group_size(tile);
  o[13] = static_cast<long long>(tile.shfl(static_cast<float>(v) + 0.25f, 1) * 4.0f);
}

template <unsigned N>
int check(unsigned threads, unsigned blocks) {
  const size_t n = static_cast<size_t>(threads) * blocks * kOps;
  long long* d;
  if (hipMalloc(&d, n * sizeof(long long)) != hipSuccess) return 1;
  tiles<N><<<blocks, threads>>>(d);
  std::vector<long long> got(n);
  if (hipDeviceSynchronize() != hipSuccess ||
      hipMemcpy(got.data(), d, n * sizeof(long long), hipMemcpyDeviceToHost) != hipSuccess) {
    printf("FAIL tile<%u> launch\n", N);
    return 1;
  }
  hipFree(d);
  auto val = [&](unsigned u) -> long long { return u < threads ? static_cast<long long>(u * 7u + 3u) : 0; };
  int errors = 0;
  const unsigned half = N > 1 ? N / 2 : 1;
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned t = 0; t < threads; ++t) {
      const long long* o = &got[(static_cast<size_t>(b) * threads + t) * kOps];
      const unsigned rank = t % N, base = t - rank;
      long long want[kOps];
      want[0] = val(base + (rank * 3u + 1u) % N);
      const unsigned dd = N > 1 ? N / 2 : 1;
      want[1] = rank + dd >= N ? val(t) : val(t + dd);
      const unsigned du = N > 2 ? N / 4 + 1 : 1;
      want[2] = rank < du ? val(t) : val(t - du);
      want[3] = val(t ^ (N - 1u));
      unsigned long long bal = 0;
      for (unsigned r = 0; r < N; ++r)
        if (base + r < threads && (base + r) % 3u == 0u) bal |= 1ull << r;
      want[4] = static_cast<long long>(bal);
      int any = 0, all = 1;
      for (unsigned r = 0; r < N; ++r)
        if (base + r < threads) { any |= (base + r) % 5u == 0u; all &= (base + r) % 7u != 3u; }
      want[5] = any;
      want[6] = all;
      want[7] = static_cast<long long>(1.5 * val(base) * 2.0);
      want[8] = rank + 1000u * N + 100000u * N;
      want[9] = t / N + 1000u * ((threads + N - 1) / N);
      want[10] = val(base + ((t + 1u) & (N - 1u)));
      want[11] = (rank % half) + 1000u * (rank / half) + 100000u * (N / half);
      want[12] = rank + 1000u * N;
      want[13] = static_cast<long long>((static_cast<float>(val(base + 1u % N)) + (base + 1u % N < threads ? 0.25f : 0.0f)) * 4.0f);
      for (int k = 0; k < kOps; ++k)
        if (o[k] != want[k]) {
          if (errors < 8)
            printf("tile<%u> threads=%u block %u thread %u op %d: got %lld want %lld\n", N, threads, b, t, k, o[k], want[k]);
          ++errors;
        }
    }
  return errors;
}

template <unsigned N>
int check_all() {
  // a full block, a block ending in a one-warp tail wave, one ending mid-warp (partial tiles)
  return check<N>(256, 3) + check<N>(96, 2) + check<N>(200, 2);
}

int main() {
  const int errors = check_all<1>() + check_all<2>() + check_all<4>() + check_all<8>() +
                     check_all<16>() + check_all<32>() + check_all<64>();
  printf("%s cg_tiles errors=%d\n", errors ? "FAIL" : "PASS", errors);
  return errors ? 1 : 0;
}
"""

# The golden wave_cg_reduce port's use: a 32-lane tile's expanded cg::reduce, block.sync(), and the
# wave barrier that __syncwarp became.
CG_PORT_KERNEL = """
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(const float* in, float* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  float s = in[threadIdx.x];
  for (unsigned o = tile.size() / 2; o > 0; o /= 2) s += tile.shfl_down(s, o);
  s = tile.shfl(s, 0);
  if (tile.thread_rank() == 0) out[block.thread_rank() / 32] = s;
  block.sync();
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront"), __builtin_amdgcn_wave_barrier(),
      __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
"""


@pytest.mark.toolchain("nvcc")
def test_cooperative_groups_port_kernel_compiles(tmp_path: Path) -> None:
    src = tmp_path / "cg_port.hip.cu"
    src.write_text(CG_PORT_KERNEL)
    proc = _compile(src, tmp_path / "cg_port.o")
    assert proc.returncode == 0, proc.stderr


@pytest.mark.toolchain("nvcc")
def test_cooperative_groups_tiles_of_1_to_64_build(tmp_path: Path) -> None:
    src = tmp_path / "cg_tiles.hip.cu"
    src.write_text(CG_TILES_PROGRAM)
    proc = _build(src, tmp_path / "cg_tiles")
    assert proc.returncode == 0, proc.stderr


@pytest.mark.toolchain("nvcc")
@pytest.mark.parametrize("size", [3, 48, 128])
def test_cooperative_groups_rejects_bad_tile_sizes(size: int, tmp_path: Path) -> None:
    src = tmp_path / "cg_bad.hip.cu"
    src.write_text(CG_PORT_KERNEL.replace("<32>", f"<{size}>"))
    proc = _compile(src, tmp_path / "cg_bad.o")
    assert proc.returncode != 0
    assert "not a power of 2 or greater than the wavefront size" in proc.stderr + proc.stdout


@pytest.mark.toolchain("nvcc")
def test_cooperative_groups_outside_the_subset_fail_to_compile(tmp_path: Path) -> None:
    src = tmp_path / "cg_grid.hip.cu"
    src.write_text(CG_PORT_KERNEL.replace("block.sync();", "cg::this_grid().sync();"))
    proc = _compile(src, tmp_path / "cg_grid.o")
    assert proc.returncode != 0


# ---- porter_hoc/clang_ext.h: what PTX004/PTX007 emit ----------------------------------------------
# PTX007's __bf16 / _Float16 packing and PTX004's compiler barrier in device code. Self-checking:
# on an NVIDIA GPU it prints "PASS clang_ext errors=0" (round to nearest even, bit for bit).
CLANG_EXT_PROGRAM = r"""// PTX007's packing and PTX004's compiler barrier under hip_on_cuda: bf16 / f16 round to nearest
// even on the device, bit for bit, against a CPU model (bf16) and CUDA's host conversion (f16).
#include <cstdio>
#include <cstring>
#include <vector>
#include <hip/hip_runtime.h>

__device__ __forceinline__ unsigned pack_bf16x2(float hi, float lo) {
  return ((unsigned int)__builtin_bit_cast(unsigned short, (__bf16)hi) << 16) | __builtin_bit_cast(unsigned short, (__bf16)lo);
}
__device__ __forceinline__ unsigned pack_f16x2(float hi, float lo) {
  return ((unsigned int)__builtin_bit_cast(unsigned short, (_Float16)hi) << 16) | __builtin_bit_cast(unsigned short, (_Float16)lo);
}

__global__ void convert(const float* in, unsigned* out, float* back, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float a = in[2 * i], b = in[2 * i + 1];
  unsigned p = pack_bf16x2(a, b);
  __atomic_signal_fence(__ATOMIC_SEQ_CST), out[2 * i] = p, __atomic_signal_fence(__ATOMIC_SEQ_CST);
  out[2 * i + 1] = pack_f16x2(a, b);
  back[2 * i] = (float)__builtin_bit_cast(__bf16, (unsigned short)(p >> 16));
  back[2 * i + 1] = (float)__builtin_bit_cast(_Float16, (unsigned short)(out[2 * i + 1] & 0xffffu));
}

static unsigned bf16_ref(float f) {  // round to nearest even; NaN: any quiet NaN
  unsigned u;
  memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0u | (u >> 16 & 0x8000u);
  return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}
static bool is_nan16(unsigned h, bool bf) { return bf ? (h & 0x7fffu) > 0x7f80u : (h & 0x7fffu) > 0x7c00u; }

int main() {
  const int n = 1 << 20;
  std::vector<float> h(2 * n);
  unsigned long long s = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < 2 * n; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    unsigned u = static_cast<unsigned>(s >> 32);
    if (i % 4 == 1) u = (u & 0xffff0000u) | 0x8000u;          // exact ties: even rounding
    if (i % 4 == 2) u = (u & 0x8fffffffu) | 0x38000000u;      // |x| near 1 (normal f16)
    memcpy(&h[i], &u, 4);
  }
  float* d_in; unsigned* d_out; float* d_back;
  hipMalloc(&d_in, 2 * n * sizeof(float));
  hipMalloc(&d_out, 2 * n * sizeof(unsigned));
  hipMalloc(&d_back, 2 * n * sizeof(float));
  hipMemcpy(d_in, h.data(), 2 * n * sizeof(float), hipMemcpyHostToDevice);
  convert<<<(n + 255) / 256, 256>>>(d_in, d_out, d_back, n);
  std::vector<unsigned> out(2 * n);
  std::vector<float> back(2 * n);
  if (hipDeviceSynchronize() != hipSuccess) { printf("FAIL launch\n"); return 1; }
  hipMemcpy(out.data(), d_out, 2 * n * sizeof(unsigned), hipMemcpyDeviceToHost);
  hipMemcpy(back.data(), d_back, 2 * n * sizeof(float), hipMemcpyDeviceToHost);
  int errors = 0;
  for (int i = 0; i < n; ++i) {
    const float a = h[2 * i], b = h[2 * i + 1];
    const unsigned bf[2] = {out[2 * i] >> 16, out[2 * i] & 0xffffu};
    const unsigned f16[2] = {out[2 * i + 1] >> 16, out[2 * i + 1] & 0xffffu};
    const float src[2] = {a, b};
    for (int k = 0; k < 2; ++k) {
      const unsigned want_bf = bf16_ref(src[k]);
      const unsigned want_f16 = __half_as_ushort(__float2half_rn(src[k]));  // CUDA's host RNE
      bool ok_bf = is_nan16(want_bf, true) ? is_nan16(bf[k], true) : bf[k] == want_bf;
      bool ok_f16 = is_nan16(want_f16, false) ? is_nan16(f16[k], false) : f16[k] == want_f16;
      if (!ok_bf || !ok_f16) {
        if (errors < 8) printf("x=%a bf16 %04x want %04x f16 %04x want %04x\n", src[k], bf[k], want_bf, f16[k], want_f16);
        ++errors;
      }
    }
    unsigned bb; float w = back[2 * i]; memcpy(&bb, &w, 4);
    if (!is_nan16(bf[0], true) && bb != bf[0] << 16) ++errors;  // widening is exact
  }
  printf("%s clang_ext errors=%d\n", errors ? "FAIL" : "PASS", errors);
  return errors ? 1 : 0;
}
"""

# The conversions on the host path, against the definition of round-to-nearest-even: runs here.
HALF_HOST_PROGRAM = r"""
#include <cstdio>
#include <cstring>
#include <hip/hip_runtime.h>
static unsigned bf16_ref(unsigned u) { return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16; }
static bool f16_ok(float x, unsigned h) {  // h is a nearest f16, ties to even
  const float got = (float)__builtin_bit_cast(_Float16, (unsigned short)h);
  const float up = (float)__builtin_bit_cast(_Float16, (unsigned short)(h + 1));
  const float dn = (float)__builtin_bit_cast(_Float16, (unsigned short)(h - 1));
  const double e = fabs((double)got - x);
  if (e > fabs((double)up - x) || e > fabs((double)dn - x)) return false;
  if ((e == fabs((double)up - x) || e == fabs((double)dn - x)) && (h & 1u)) return false;
  return true;
}
int main() {
  int errors = 0;
  for (unsigned long long i = 0; i < (1ull << 32); i += 4099) {
    const unsigned u = (unsigned)i;
    float x;
    memcpy(&x, &u, 4);
    if ((u & 0x7fffffffu) >= 0x7f800000u) continue;  // inf / NaN
    const unsigned b = __builtin_bit_cast(unsigned short, (__bf16)x);
    if (b != bf16_ref(u)) ++errors;
    if (fabsf(x) < 60000.0f && fabsf(x) > 1e-4f) {
      const unsigned h = __builtin_bit_cast(unsigned short, (_Float16)x);
      if (!f16_ok(x, h)) ++errors;
    }
    const float widened = [&] { unsigned w = b << 16; float f; memcpy(&f, &w, 4); return f; }();
    if ((float)__builtin_bit_cast(__bf16, (unsigned short)b) != widened) ++errors;
  }
  __bf16 acc = 1.0f;
  acc += 0.00390625f;  // 1 + 2^-8: a tie between 1 and 1 + 2^-7, rounds to even (1)
  if ((float)acc != 1.0f) ++errors;
  _Float16 h = 3;  // from an integer
  h *= 0.5;
  if ((float)h != 1.5f) ++errors;
  printf("%s half_host errors=%d\n", errors ? "FAIL" : "PASS", errors);
  return errors ? 1 : 0;
}
"""


@pytest.mark.toolchain("nvcc")
def test_clang_half_types_and_signal_fence_build(tmp_path: Path) -> None:
    src = tmp_path / "clang_ext.hip.cu"
    src.write_text(CLANG_EXT_PROGRAM)
    proc = _build(src, tmp_path / "clang_ext")
    assert proc.returncode == 0, proc.stderr


@pytest.mark.toolchain("nvcc")
def test_half_conversions_round_to_nearest_even_on_the_host(tmp_path: Path) -> None:
    src = tmp_path / "half_host.hip.cu"
    src.write_text(HALF_HOST_PROGRAM)
    proc = _build(src, tmp_path / "half_host")
    assert proc.returncode == 0, proc.stderr
    run = subprocess.run([str(tmp_path / "half_host")], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and "PASS half_host errors=0" in run.stdout, run.stdout + run.stderr


@pytest.mark.toolchain("nvcc")
@pytest.mark.parametrize("define", ["PORTER_HOC_NO_HALF_KEYWORDS", "PORTER_HOC_NO_SIGNAL_FENCE"])
def test_clang_ext_opt_outs_restore_nvcc_behaviour(define: str, tmp_path: Path) -> None:
    src = tmp_path / "opt_out.hip.cu"
    body = ("unsigned short b = __builtin_bit_cast(unsigned short, (__bf16)x);" if "HALF" in define
            else "__atomic_signal_fence(__ATOMIC_SEQ_CST); unsigned short b = 0;")
    src.write_text(f"#define {define}\n#include <hip/hip_runtime.h>\n"
                   f"__global__ void k(float x, unsigned short* o) {{ {body} *o = b; }}\n")
    proc = _compile(src, tmp_path / "opt_out.o")
    assert proc.returncode != 0


# ---- porter_hoc/wave.h, "Wave barrier": waves that lose one of their warps ------------------------
# In the edge tiles of the MFMA fixtures one warp of a wave returns and the other goes on into the
# MFMA helpers, which take their one-half path there (shims/compat/mfma_gfx950.h): right on gfx950,
# where the returned lanes are merely inactive. The emulation used to pair its warps with a counted
# named barrier, which a warp that has exited never releases (PTX ISA, "exit": only barriers of
# every thread of the CTA are), so both ports hung on an H200. A bounded wait must take its place.
COUNTED_BARRIER = re.compile(r"\b(?:bar|barrier)(?:\.cta)?\.(?:sync|arrive)(?:\.aligned)?\s+[^;\n]*,")
GOLDEN = ROOT / "fixtures" / "golden"
GOLDEN_PORTS = {"mfma_wmma_gemm": "wmma_gemm.cu", "mfma_mma_bf16": "mma_bf16.cu", "ptx_intrinsics": "ptx_kernels.cu"}


@pytest.mark.toolchain("nvcc")
@pytest.mark.parametrize("project", ["mfma_wmma_gemm", "mfma_mma_bf16"])
def test_mfma_port_pairs_its_warps_without_a_counted_barrier(project: str, tmp_path: Path) -> None:
    ptx = tmp_path / "port.ptx"
    cmd = [str(find_nvcc()), "-ptx", "-std=c++17", "-arch=sm_90", f"-I{INCLUDE}", "--options-file", str(OPTS), "-I", str(GOLDEN / project),
           "-x", "cu", str(GOLDEN / project / GOLDEN_PORTS[project]), "-o", str(ptx)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = ptx.read_text()
    assert "mfma" in text or "porter_hoc" in text  # the emulated helpers are in this unit
    assert not COUNTED_BARRIER.findall(text), COUNTED_BARRIER.findall(text)[:3]
    # the wave's mbarrier (arrivals and token waits), the bounded wait (%globaltimer), warp 0's
    # publication of the initialised barrier by atomic exchange and warp 1's giving-up by
    # compare-and-swap of warp 0's word (no Dekker fence), and the trap of a warp found alive
    # after it was presumed exited
    assert "mbarrier.init" in text and "mbarrier.arrive.release.cta" in text and "mbarrier.try_wait.acquire.cta" in text
    assert "%globaltimer" in text and "trap;" in text
    assert "atom.release.cta.shared.exch.b64" in text and "atom.acq_rel.cta.shared.cas.b64" in text
    assert "fence.sc" not in text


def test_counted_barrier_pattern() -> None:
    """What the test above looks for: the old wave barrier, not __syncthreads or __syncwarp."""
    assert COUNTED_BARRIER.findall("\tbarrier.sync \t%r12, %r13;\n")
    assert COUNTED_BARRIER.findall("\tbar.sync \t1, 64;\n")
    assert not COUNTED_BARRIER.findall("\tbar.sync \t0;\n\tbarrier.sync.aligned \t0;\n\tbar.warp.sync \t%r8;\n")


@pytest.mark.toolchain("nvcc")
@pytest.mark.parametrize("project", sorted(GOLDEN_PORTS))
def test_verify_driver_builds_for_golden_port_on_hip_on_cuda(project: str, tmp_path: Path) -> None:
    """What `porter.verify.evidence --executor hip-on-cuda` builds for each kernel spec of the port."""
    from porter.verify.driver import render_driver
    from porter.verify.executors import HipOnCudaExecutor
    from porter.verify.spec import load_spec

    executor = HipOnCudaExecutor()
    for kernel in load_spec(GOLDEN / project).kernels:
        driver = tmp_path / kernel.name / f"porter_driver{executor.driver_suffix}"
        driver.parent.mkdir()
        driver.write_text(render_driver(kernel))
        build = executor.build(GOLDEN / project, driver, tmp_path / kernel.name / "build")
        assert build.ok, f"{kernel.name}: {build.stderr[-3000:]}"


# ---- issue 13: HIP names as functions, identity macros, builtins, runtime table, libraries ----

NAMES_SRC = FIXTURES / "names_and_builtins.hip.txt"


@pytest.mark.toolchain("nvcc")
def test_hip_names_are_functions_identity_and_builtins_build(tmp_path: Path) -> None:
    """A program's own `#define __shfl(v, d) __shfl(v, d)`, `__HIP__` in both passes, no CUDA
    version macro, __hip_atomic_* and the amdgcn builtins: all in one translation unit."""
    src = tmp_path / "names.hip.cu"
    src.write_text(NAMES_SRC.read_text())
    proc = _compile(src, tmp_path / "names.o")
    assert proc.returncode == 0, proc.stderr


@pytest.mark.toolchain("nvcc")
def test_build_without_nvcc_opts_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "k.hip.cu"
    src.write_text("#include <hip/hip_runtime.h>\n__global__ void k() {}\n")
    cmd = [str(find_nvcc()), "-c", "-std=c++17", "-arch=sm_90", f"-I{INCLUDE}", str(src), "-o", str(tmp_path / "k.o")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode != 0 and "nvcc.opts" in proc.stderr + proc.stdout


@pytest.mark.toolchain("nvcc")
def test_width16_shuffle_needs_no_partner_wait(tmp_path: Path) -> None:
    """A 16-lane reduction (segment <= 32 lanes) stays in the caller's warp: its PTX has warp
    shuffles and no wait on the other warp's arrival word (no %globaltimer read, no CAS)."""
    src = tmp_path / "w16.hip.cu"
    src.write_text("""#include <hip/hip_runtime.h>
__global__ void k(float* v) {
  float x = v[threadIdx.x];
  if (threadIdx.y == 0)
    for (int o = 8; o > 0; o /= 2) x += __shfl_down(x, o, 16);
  v[threadIdx.x] = x;
}
""")
    proc = _nvcc("-ptx", src, tmp_path / "w16.ptx")
    assert proc.returncode == 0, proc.stderr
    ptx = (tmp_path / "w16.ptx").read_text()
    assert "shfl.sync" in ptx
    assert "globaltimer" not in ptx and "atom.shared.cas" not in ptx


HEAVY_KERNELS = """#include <hip/hip_runtime.h>
#define BODY                                                                          \\
  float acc[96];                                                                      \\
  _Pragma("unroll") for (int i = 0; i < 96; ++i) acc[i] = a[threadIdx.x + i * 256];  \\
  _Pragma("unroll") for (int k = 0; k < 8; ++k)                                       \\
    _Pragma("unroll") for (int i = 0; i < 96; ++i) acc[i] = acc[i] * acc[(i + k) % 96] + 1.f; \\
  float s = 0;                                                                        \\
  _Pragma("unroll") for (int i = 0; i < 96; ++i) s += acc[i];                        \\
  o[threadIdx.x] = s;
__global__ void unbounded(float* o, const float* a) { BODY }
__global__ void __launch_bounds__(256) bounded(float* o, const float* a) { BODY }
"""


def _heavy_registers(tmp_path: Path, *extra: str, opts: Path = OPTS) -> dict[str, int]:
    """Registers ptxas gives HEAVY_KERNELS' `unbounded` and `bounded` kernels, built with `opts`."""
    src = tmp_path / "heavy.hip.cu"
    src.write_text(HEAVY_KERNELS)
    proc = _nvcc("-cubin", src, tmp_path / "heavy.cubin", *extra, "--resource-usage", opts=opts)
    assert proc.returncode == 0, proc.stderr
    used = re.findall(r"Function properties for _Z\d+(\w+?)PfPKf.*?Used (\d+) registers", proc.stdout + proc.stderr, re.S)
    return {name: int(n) for name, n in used}


@pytest.mark.toolchain("nvcc")
def test_unbounded_kernels_fit_a_1024_thread_block_in_plain_builds(tmp_path: Path) -> None:
    """hip-clang compiles a kernel without __launch_bounds__ for up to 1024 threads per block, so
    nvcc.opts caps such a kernel at 64 registers (65536 / 1024) and leaves a bounded one alone:
    the same kernel body uses 127 registers under __launch_bounds__(256)."""
    used = _heavy_registers(tmp_path)
    assert used["unbounded"] <= 64
    assert used["bounded"] > 64


@pytest.mark.toolchain("nvcc")
def test_collective_fast_path_has_no_inlined_wait_loop(tmp_path: Path) -> None:
    """A ballot in a loop compiles to one try_wait per collective and the retry out of line
    (wait_rest): the retry loop inlined into each collective cost the fast path 3-33% on the
    H200 (docs/evidence/hip-on-cuda-speed-h200-2026-12-01.md, session 9)."""
    src = tmp_path / "b.hip.cu"
    src.write_text("""#include <hip/hip_runtime.h>
__global__ void k(float* v, int n) {
  float x = v[threadIdx.x];
  for (int i = 0; i < n; ++i) x += static_cast<float>(__ballot(x > 0.f) & 1ull);
  v[threadIdx.x] = x;
}
""")
    proc = _nvcc("-ptx", src, tmp_path / "b.ptx")
    assert proc.returncode == 0, proc.stderr
    ptx = (tmp_path / "b.ptx").read_text()
    kernel = ptx[ptx.index(".entry _Z1kPfi"):]
    kernel = kernel[:kernel.index("\n}\n")]
    # one try_wait per copy of the collective (ptxas may unroll the loop), each followed by a
    # call of wait_rest; the inlined loop had a second try_wait per copy and no call
    waits = kernel.count("mbarrier.try_wait")
    assert waits >= 1 and kernel.count("wait_rest") == waits


@pytest.mark.toolchain("nvcc")
@pytest.mark.toolchain("cuobjdump")
@pytest.mark.parametrize("guarded", [False, True], ids=["plain", "guarded"])
def test_collective_loop_keeps_the_warp_converged(guarded: bool, tmp_path: Path) -> None:
    """A loop of wave collectives compiles with no YIELD and no BRA.DIV: every cold decision
    is a warp vote, so ptxas sees the warp converged through the loop. A YIELD at the loop head
    cost 27 ns of a ballot's ~170 (Nsight Compute), and dropping it took the ballot from 10.7x
    to 9.4x of native on the H200 (docs/evidence/hip-on-cuda-speed-h200-2026-12-01.md,
    session 10). Guarded: porter's hipcc's exit guard first in the kernel, whose warp barrier
    with a computed mask alone brought the YIELD back."""
    body = b"""#include <hip/hip_runtime.h>
__global__ void k(float* v, int n) {
  float x = v[threadIdx.x];
  for (int i = 0; i < n; ++i) x += static_cast<float>(__ballot(x > 0.f) & 1ull);
  v[threadIdx.x] = x;
}
"""
    src = tmp_path / "b.hip.cu"
    extra: tuple[str, ...] = ()
    if guarded:
        body = instrument(body, str(src)).text
        extra = (f"-D{GUARD_MACRO}",)
    src.write_bytes(body)
    proc = _nvcc("-cubin", src, tmp_path / "b.cubin", *extra)
    assert proc.returncode == 0, proc.stderr
    sass = subprocess.run([str(find_cuobjdump()), "-sass", str(tmp_path / "b.cubin")], capture_output=True, text=True,
                          timeout=120, check=True).stdout
    assert "VOTE" in sass  # the kernel was disassembled
    for op in ("YIELD", "BRA.DIV"):  # anywhere in the dump, the out-of-line cold paths included
        assert op not in sass, f"{op} in the collective loop's SASS"


def _gen():
    import importlib.util

    spec = importlib.util.spec_from_file_location("hoc_generate", INCLUDE / "gen" / "generate.py")
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    import sys

    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


HIP_HEADERS = Path("/usr/include/hip")


@pytest.mark.skipif(not (HIP_HEADERS / "hip_runtime_api.h").is_file(), reason="HIP's headers (Debian hipcc/libamdhip64-dev) absent")
def test_runtime_table_accounts_for_every_hip_function() -> None:
    gen = _gen()
    table = gen.read_table()
    names = gen.hip_function_names(HIP_HEADERS)
    assert len(names) > 300
    missing = sorted(n for n in names if table.covers(n) is None)
    assert not missing, f"HIP functions neither provided nor listed [absent] with a reason: {missing}"
    # what the table says is provided is declared in the shim's headers
    text = "".join(p.read_text() for p in (INCLUDE / "hip" / "hip_runtime_api.h", INCLUDE / "porter_hoc" / "runtime_table.h"))
    for name in [f[0] for f in table.forward] + table.manual:
        assert re.search(rf"\b{name}\s*\(", text), f"{name} is listed but not declared"


@pytest.mark.skipif(not (HIP_HEADERS / "hip_runtime_api.h").is_file(), reason="HIP's headers absent")
def test_generated_headers_are_current() -> None:
    assert _gen().main(["--check"]) == 0


def test_gfx950_props_come_from_hardware_data() -> None:
    from porter import hardware

    dev = hardware.get("gfx950")
    text = (INCLUDE / "porter_hoc" / "gfx950_props.h").read_text()
    assert f"PORTER_HOC_GFX950_COMPUTE_UNITS {int(dev.spec.compute_units.value)} " in text
    assert f"PORTER_HOC_GFX950_CLOCK_KHZ {int(dev.spec.clock_mhz.value) * 1000} " in text


@pytest.mark.toolchain("nvcc")
def test_hipcub_warp_primitives_are_64_lanes(tmp_path: Path) -> None:
    src = tmp_path / "cubw.hip.cu"
    src.write_text("""#include <hip/hip_runtime.h>
#include <hipcub/hipcub.hpp>
static_assert(HIPCUB_DEVICE_WARP_THREADS == 64, "gfx950 wave");
__global__ void k(const int* in, int* out) {
  typedef hipcub::WarpReduce<int> WR;
  typedef hipcub::WarpScan<int> WS;
  __shared__ WR::TempStorage rs;
  __shared__ WS::TempStorage ss;
  int s = WR(rs).Sum(in[threadIdx.x]);
  int p;
  WS(ss).InclusiveSum(in[threadIdx.x], p);
  out[threadIdx.x] = s + p;
}
""")
    proc = _compile(src, tmp_path / "cubw.o")
    assert proc.returncode == 0, proc.stderr


@pytest.mark.toolchain("nvcc")
@pytest.mark.parametrize("name", LIB_FIXTURE_NAMES)
def test_library_fixture_compiles(name: str, tmp_path: Path) -> None:
    libs = find_cuda_libs()
    if libs is None:
        pytest.skip("CUDA libraries' headers absent (set PORTER_CUDA_LIBS to a folder with include/)")
    cmd = [str(find_nvcc()), "-c", "-std=c++17", "-arch=sm_90", f"-I{INCLUDE}", "--options-file", str(OPTS),
           f"-I{libs / 'include'}", str(FIXTURES / f"{name}.hip.cu"), "-o", str(tmp_path / f"{name}.o")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.toolchain("nvcc")
def test_native_control_mode_builds_with_32_lane_warps(tmp_path: Path) -> None:
    """PORTER_HOC_PLATFORM_NVIDIA (the control of bench/hip_on_cuda_control.py) is HIP's NVIDIA
    platform: warpSize 32, __HIP_PLATFORM_NVIDIA__, CUDA's macros visible."""
    src = tmp_path / "nv.hip.cu"
    src.write_text("""#include <hip/hip_runtime.h>
#if !defined(__HIP_PLATFORM_NVIDIA__) || defined(__HIP_PLATFORM_AMD__) || !defined(CUDART_VERSION)
#error "not the NVIDIA platform"
#endif
static_assert(warpSize == 32, "32-lane warps");
__global__ void k(float* v) { v[threadIdx.x] += __shfl_xor(v[threadIdx.x], 16) + (float)__ballot(1); }
""")
    proc = _nvcc("-c", src, tmp_path / "nv.o", "-DPORTER_HOC_PLATFORM_NVIDIA", opts=NATIVE_OPTS)
    assert proc.returncode == 0, proc.stderr


def test_native_control_options_are_the_renames_without_the_register_cap() -> None:
    """HIP's NVIDIA platform compiles with nvcc and no register cap: the native control's options
    file is nvcc.opts less its -maxrregcount line (with it, the benchmark's native WMMA kernel
    compiled to other code and ran 1.35x faster, docs/evidence/hip-on-cuda-speed-h200-2026-12-01.md)."""
    emulation = OPTS.read_text().splitlines()
    native = NATIVE_OPTS.read_text().splitlines()
    assert "-maxrregcount=64" in emulation
    assert native == [line for line in emulation if not line.startswith("-maxrregcount")]


@pytest.mark.toolchain("nvcc")
def test_native_control_leaves_unbounded_kernels_uncapped(tmp_path: Path) -> None:
    assert _heavy_registers(tmp_path, "-DPORTER_HOC_PLATFORM_NVIDIA", opts=NATIVE_OPTS)["unbounded"] > 64


def test_control_list_names_programs_only() -> None:
    """bench/hip_on_cuda_control.txt: one program per line (directory, sources, libraries), a
    reason for every skipped one; no program code."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("hoc_control", ROOT / "bench" / "hip_on_cuda_control.py")
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    programs = mod.read_list()
    assert len(programs) >= 30
    assert all(p.path.split("/")[0] in {"HIP-Basic", "Applications", "Libraries"} for p in programs)
    assert all(p.skip for p in programs if p.path.endswith(("module_api", "hello_world_cuda")))
    assert {lib for p in programs for lib in p.libs} <= set(mod.LIB_NAMES)


CPU_WARPS = Path(__file__).resolve().parent / "cpu_warps"


def test_partitions_on_a_cpu_model_of_warps(tmp_path: Path) -> None:
    """The emulation's binary_partition and coalesced_threads() on a CPU model of NVIDIA warps whose
    __activemask() names the caller alone (tests/verify/cpu_warps): a group's lanes must be brought
    together by the shim. Before 2026-12-01's fix the shim read __activemask() after a branch and
    binary_partition<32>.size came out 1 here (9 for 11 lanes on the H200)."""
    cxx = shutil.which("g++") or shutil.which("c++")
    assert cxx, "a C++20 host compiler (nvcc needs one too)"
    exe = tmp_path / "partitions"
    build = subprocess.run([cxx, "-std=c++20", "-O1", "-pthread", f"-I{CPU_WARPS}", f"-I{INCLUDE}", "-x", "c++",
                            str(CPU_WARPS / "partitions.hip.cu"), "-o", str(exe)], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.startswith("PASS partitions"), run.stdout[-2000:] + run.stderr[-2000:]
