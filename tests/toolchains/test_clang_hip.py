"""porter.toolchains.clang_hip: parsing of recorded clang 22 output, and real compiles.

Recordings in fixtures/toolchains/clang22/ were made once with clang 22.1.8 from the
sources next to them (command in fixtures/toolchains/README.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.toolchains import ToolchainMissing
from porter.toolchains.clang_hip import (
    HEADER_SET,
    ClangHipOptions,
    build_command,
    compile_unit,
    count_mfma,
    demangle,
    find_clang,
    kernel_isa,
    overlay_dir,
    parse_resource_usage,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "toolchains"
RECORDED = FIXTURES / "clang22"
MASK_MESSAGE = ("The mask must be a 64-bit integer. Implicitly promoting a smaller integer "
                "is almost always an error.")


def recorded(name: str) -> tuple[str, str]:
    return (RECORDED / f"{name}.remarks.txt").read_text(), (RECORDED / f"{name}.s").read_text()


# --- parsing recorded output (always run) ---

def test_parse_three_kernels_gfx950() -> None:
    remarks, asm = recorded("mfma_bf16_gfx950")
    ks = {k.kernel: k for k in parse_resource_usage(remarks, "u.hip", "gfx950")}
    assert list(ks) == ["_Z9mfma_tilePKDv8_DF16bS1_PDv4_f", "_Z11lds_reversePf",
                        "_Z8warp_sumILi64EEvPKfPf"]
    mfma = ks["_Z9mfma_tilePKDv8_DF16bS1_PDv4_f"]
    assert (mfma.vgprs, mfma.agprs, mfma.sgprs, mfma.occupancy) == (14, 0, 14, 8)
    assert (mfma.unit, mfma.arch, mfma.mfma_count) == ("u.hip", "gfx950", 0)  # counted separately
    assert ks["_Z11lds_reversePf"].lds_bytes == 4096  # __shared__ float s[1024]
    assert all(k.vgpr_spill == k.sgpr_spill == k.scratch_bytes == 0 for k in ks.values())


def test_parse_spills_gfx942() -> None:
    remarks, _ = recorded("spill_gfx942")
    (k,) = parse_resource_usage(remarks, "s.hip", "gfx942")
    assert (k.vgprs, k.vgpr_spill, k.sgpr_spill, k.scratch_bytes) == (64, 28, 0, 336)


def test_symbolic_remarks_need_metadata() -> None:
    remarks, asm = recorded("extern_call_gfx950")
    assert "VGPRs: _Z1kPf.num_vgpr" in remarks  # the external __ocml_* calls leave it open
    with pytest.raises(ValueError, match="symbolic"):
        parse_resource_usage(remarks, "e.hip", "gfx950")
    (k,) = parse_resource_usage(remarks, "e.hip", "gfx950", metadata=asm)
    # From the amdhsa metadata: .vgpr_count 42, .sgpr_count 42 (36 numbered + 6 extra).
    assert (k.vgprs, k.sgprs, k.agprs) == (42, 42, 0)
    # 42 VGPRs -> 48 allocated -> 512 // 48 = 10, capped at gfx950's 8 waves per SIMD.
    assert k.occupancy == 8


def test_parse_rejects_truncated_block() -> None:
    remarks, _ = recorded("spill_gfx942")
    cut = "\n".join(line for line in remarks.splitlines() if "LDS Size" not in line)
    with pytest.raises(ValueError, match="lds_bytes"):
        parse_resource_usage(cut, "s.hip", "gfx942")


def test_parse_ignores_unrelated_text() -> None:
    assert parse_resource_usage("warning: unused variable 'x'\n", "u", "gfx950") == []


def test_count_mfma_per_function() -> None:
    _, asm = recorded("mfma_bf16_gfx950")
    assert count_mfma(asm) == {"_Z9mfma_tilePKDv8_DF16bS1_PDv4_f": 1, "_Z11lds_reversePf": 0,
                               "_Z8warp_sumILi64EEvPKfPf": 0}


def test_count_mfma_synthetic() -> None:
    asm = "\n".join([
        "\t.type\tf,@function", "f:", "\tv_mfma_f32_32x32x16_bf16 a[0:15], v[0:3], v[4:7], 0",
        "\tv_smfmac_f32_16x16x64_bf16 v[0:3], v[4:7], v[8:15], v16", "\ts_endpgm", ".Lfunc_end0:",
        "\t.type\tg,@function", "g:", "\tv_add_f32 v0, v1, v2", ".Lfunc_end1:",
    ])
    assert count_mfma(asm) == {"f": 2, "g": 0}


# --- options, lookup, overlay ---

@pytest.mark.parametrize("kwargs", [{"arch": "sm_90"}, {"arch": "gfx1100"}, {"std": "c++11"},
                                    {"opt": "-Ofast"}, {"defines": ("1BAD",)}])
def test_options_rejected(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        ClangHipOptions(**kwargs)


def test_options_frozen_and_paths() -> None:
    opts = ClangHipOptions(arch="gfx942", include_dirs=("inc",), defines=("N=4",))
    assert opts.include_dirs == (Path("inc"),)
    with pytest.raises(AttributeError):
        opts.arch = "gfx950"  # type: ignore[misc]


def test_missing_clang_names_paths_and_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PORTER_CLANG", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr("porter.toolchains.clang_hip.CLANG_CANDIDATES", ("clang++-22", "/nonexistent/clang++"))
    with pytest.raises(ToolchainMissing) as err:
        find_clang()
    assert all(s in str(err.value) for s in ("clang++-22", "/nonexistent/clang++", "PORTER_CLANG"))


def test_bad_override_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PORTER_CLANG", "/nonexistent/clang++")
    with pytest.raises(ToolchainMissing, match="PORTER_CLANG=/nonexistent/clang"):
        find_clang()


def test_unit_check_defines_the_wave_size_as_the_hipcc_stand_in_does() -> None:
    # one place for the flag (clang_hip.wavefront_define), read from porter's hardware data
    for arch in ("gfx942", "gfx950"):
        cmd = build_command(Path("clang++"), Path("u.hip"), ClangHipOptions(arch=arch), Path("u.s"))
        assert "-D__AMDGCN_WAVEFRONT_SIZE=64" in cmd


def test_overlay_headers_say_what_they_stand_in_for() -> None:
    headers = sorted(overlay_dir().rglob("*.h"))
    assert {h.name for h in headers} >= {"hip_runtime.h", "hip_bf16.h", "hip_fp16.h", "hipblas.h", "hipblaslt.h",
                                         "hipfft.h", "hipsparse.h", "hipblas-common.h"}
    for h in headers:
        head = h.read_text()[:600]
        assert head.startswith("/* porter overlay"), h
        assert "ROCm" in head, h
    assert "HIP 5.2" in HEADER_SET


# --- real compiles ---

def compile_snippet(tmp_path: Path, code: str, arch: str = "gfx950"):
    src = tmp_path / "unit.hip"
    src.write_text("#include <hip/hip_runtime.h>\n" + code)
    return compile_unit(src, ClangHipOptions(arch=arch), tmp_path / "build")


WARP_SUM = """
__global__ void warp_sum(const float* in, float* out) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down_sync(MASK, v, o);
  if (threadIdx.x % warpSize == 0) out[blockIdx.x] = v;
}
"""


@pytest.mark.toolchain("clang")
def test_warp_reduction_with_64bit_mask_compiles(tmp_path: Path) -> None:
    build, kernels = compile_snippet(tmp_path, WARP_SUM.replace("MASK", "0xffffffffffffffffull"))
    assert build.ok, build.stderr
    assert [k.kernel for k in kernels] == ["warp_sum(float const*, float*)"]
    assert build.cmd[1:4] == ("-x", "hip", "--offload-arch=gfx950")
    assert Path(build.artifacts[0]).is_file()


@pytest.mark.toolchain("clang")
def test_warp_reduction_with_32bit_mask_fails_as_on_rocm63(tmp_path: Path) -> None:
    build, kernels = compile_snippet(tmp_path, WARP_SUM.replace("MASK", "0xffffffff"))
    assert not build.ok and kernels == []
    assert MASK_MESSAGE in build.stderr


@pytest.mark.toolchain("clang")
def test_other_sync_functions_check_the_mask(tmp_path: Path) -> None:
    ok, _ = compile_snippet(tmp_path, """
__global__ void k(int* out) {
  unsigned long long m = __activemask();
  static_assert(sizeof(m) == 8, "");
  int p;
  out[threadIdx.x] = __ballot_sync(m, 1) + __any_sync(m, 1) + __all_sync(m, 1)
      + __match_any_sync(m, threadIdx.x & 3) + __match_all_sync(m, 1.0f, &p) + p
      + __shfl_xor_sync(m, 1, 1) + __shfl_up_sync(m, 1, 1) + __shfl_sync(m, 1, 0);
}""")
    assert ok.ok, ok.stderr
    bad, _ = compile_snippet(tmp_path, "__global__ void k(int* o) { o[0] = __ballot_sync(0xffffffffu, 1); }")
    assert MASK_MESSAGE in bad.stderr


MFMA = """
typedef __bf16 bf16x8 __attribute__((ext_vector_type(8)));
typedef float floatx4 __attribute__((ext_vector_type(4)));
__global__ void mfma_tile(const bf16x8* a, const bf16x8* b, floatx4* c) {
  c[threadIdx.x] = __builtin_amdgcn_mfma_f32_16x16x32_bf16(a[threadIdx.x], b[threadIdx.x],
                                                            c[threadIdx.x], 0, 0, 0);
}
"""


@pytest.mark.toolchain("clang")
def test_gfx950_mfma_is_counted_without_spills(tmp_path: Path) -> None:
    build, (k,) = compile_snippet(tmp_path, MFMA)
    assert build.ok, build.stderr
    assert k.mfma_count >= 1
    assert k.vgpr_spill == k.sgpr_spill == k.scratch_bytes == 0


@pytest.mark.toolchain("clang")
def test_gfx950_only_mfma_fails_on_gfx942(tmp_path: Path) -> None:
    build, kernels = compile_snippet(tmp_path, MFMA, arch="gfx942")
    assert not build.ok and kernels == []
    assert "__builtin_amdgcn_mfma_f32_16x16x32_bf16" in build.stderr


@pytest.mark.toolchain("clang")
def test_lds_bytes_of_static_shared_array(tmp_path: Path) -> None:
    build, (k,) = compile_snippet(tmp_path, """
__global__ void rev(float* x) {
  __shared__ float s[1024];
  s[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = s[1023 - threadIdx.x];
}""")
    assert build.ok, build.stderr
    assert k.lds_bytes == 4096
    assert k.occupancy == 8  # no external calls left: the work-item stand-ins resolve


@pytest.mark.toolchain("clang")
@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_bf16_fp16_and_hipblas_headers_compile(tmp_path: Path, arch: str) -> None:
    build, kernels = compile_snippet(tmp_path, """
#include <hip/hip_bf16.h>
#include <hip/hip_fp16.h>
#include <hipblas/hipblas.h>
__global__ void k(const __hip_bfloat16* a, __hip_bfloat16* c, __half* h) {
  __hip_bfloat16 x = a[threadIdx.x] * a[0] + __float2bfloat16(1.5f);
  float2 f = __bfloat1622float2(__hadd2(__floats2bfloat162_rn(1.f, 2.f), __float2bfloat162_rn(x)));
  c[threadIdx.x] = __hfma(x, x, __hip_bfloat16(f.x + f.y));
  h[threadIdx.x] = hrcp(__hadd(h[threadIdx.x], h[0]));
}
hipblasStatus_t gemm(hipblasHandle_t hd, const float* a, float* c) {
  const float one = 1.f;
  return hipblasSgemm(hd, HIPBLAS_OP_N, HIPBLAS_OP_T, 16, 16, 16, &one, a, 16, a, 16, &one, c, 16);
}""", arch=arch)
    assert build.ok, build.stderr
    assert len(kernels) == 1


ROCM_LIBRARIES = """
#include <hipblas/hipblas.h>
#include <hipblaslt/hipblaslt.h>
#include <hipfft/hipfft.h>
#include <hipsparse/hipsparse.h>
__global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }
int run(float* a, float* c, double* d, hipfftComplex* z, int* rows, int* cols, float* v, float* x, float* y) {
  hipblasHandle_t h; hipblasCreate(&h);
  const float one = 1.f; const double done = 1.0;
  hipblasSgemmStridedBatched(h, HIPBLAS_OP_N, HIPBLAS_OP_T, 16, 16, 16, &one, a, 16, 256, a, 16, 256, &one,
                             c, 16, 256, 4);
  hipblasDgemm(h, HIPBLAS_OP_N, HIPBLAS_OP_N, 8, 8, 8, &done, d, 8, d, 8, &done, d, 8);
  hipblasLtHandle_t lt; hipblasLtCreate(&lt);
  hipblasLtMatmulDesc_t desc; hipblasLtMatmulDescCreate(&desc, HIPBLAS_COMPUTE_32F, HIP_R_32F);
  hipblasOperation_t t = HIPBLAS_OP_T;
  hipblasLtMatmulDescSetAttribute(desc, HIPBLASLT_MATMUL_DESC_TRANSA, &t, sizeof(t));
  hipblasLtMatrixLayout_t la; hipblasLtMatrixLayoutCreate(&la, HIP_R_32F, 16, 16, 16);
  hipblasLtMatmulPreference_t pref; hipblasLtMatmulPreferenceCreate(&pref);
  hipblasLtMatmulHeuristicResult_t res[1]; int n = 0;
  hipblasLtMatmulAlgoGetHeuristic(lt, desc, la, la, la, la, pref, 1, res, &n);
  hipblasLtMatmul(lt, desc, &one, a, la, a, la, &one, c, la, c, la, &res[0].algo, nullptr, 0, 0);
  hipfftHandle plan; hipfftPlan1d(&plan, 256, HIPFFT_C2C, 1);
  hipfftExecC2C(plan, z, z, HIPFFT_FORWARD);
  hipsparseHandle_t sp; hipsparseCreate(&sp);
  hipsparseSpMatDescr_t A; hipsparseDnVecDescr_t X, Y; size_t bytes = 0;
  hipsparseCreateCsr(&A, 4, 4, 4, rows, cols, v, HIPSPARSE_INDEX_32I, HIPSPARSE_INDEX_32I,
                     HIPSPARSE_INDEX_BASE_ZERO, HIP_R_32F);
  hipsparseCreateDnVec(&X, 4, x, HIP_R_32F); hipsparseCreateDnVec(&Y, 4, y, HIP_R_32F);
  hipsparseSpMV_bufferSize(sp, HIPSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &one, Y, HIP_R_32F,
                           HIPSPARSE_SPMV_ALG_DEFAULT, &bytes);
  scale<<<1, 64>>>(x, 2.f);
  return 0;
}
"""


@pytest.mark.toolchain("clang")
def test_units_calling_rocm_libraries_compile_for_gfx950(tmp_path: Path) -> None:
    # hipBLAS, hipBLASLt, hipFFT and hipSPARSE come from porter's overlay (ROCm 6.3 declarations):
    # such units are checked, not "not checked: <hipfft/hipfft.h> ..."
    build, kernels = compile_snippet(tmp_path, ROCM_LIBRARIES)
    assert build.ok, build.stderr
    assert [k.kernel for k in kernels] == ["scale(float*, float)"]


@pytest.mark.toolchain("clang")
def test_overlay_library_calls_are_type_checked(tmp_path: Path) -> None:
    # a wrong argument type still fails, as against ROCm's own headers
    build, _ = compile_snippet(tmp_path, "#include <hipfft/hipfft.h>\n"
                               "int f(hipfftHandle p, double* x) { return hipfftExecR2C(p, x, nullptr); }\n")
    assert not build.ok and "hipfftExecR2C" in build.stderr


@pytest.mark.toolchain("clang")
def test_typed_allocation_wrappers_of_rocm63(tmp_path: Path) -> None:
    # cudaHostAlloc(&int_ptr, ...) ports to hipHostAlloc(&int_ptr, ...): ROCm 6.3 has the typed
    # C++ overload, HIP 5.2 only the void** one (the overlay's hip_runtime_api.h adds it)
    build, _ = compile_snippet(tmp_path, """
int host(int** p, float** q, size_t* pitch) {
  return hipHostAlloc(p, 64, hipHostMallocPortable) == hipSuccess &&
         hipMallocPitch(q, pitch, 16, 16) == hipSuccess;
}""")
    assert build.ok, build.stderr


# Members of ROCm 6.x's hipDeviceProp_t (R0600 layout), in order: ROCm/HIP tag rocm-6.2.2,
# include/hip/hip_runtime_api.h (the same at rocm-6.0.0 and on amd-staging of 2024-10); the two
# reserved arrays left out.
ROCM6_DEVICE_PROP_MEMBERS = (
    "name", "uuid", "luid", "luidDeviceNodeMask", "totalGlobalMem", "sharedMemPerBlock", "regsPerBlock",
    "warpSize", "memPitch", "maxThreadsPerBlock", "maxThreadsDim", "maxGridSize", "clockRate",
    "totalConstMem", "major", "minor", "textureAlignment", "texturePitchAlignment", "deviceOverlap",
    "multiProcessorCount", "kernelExecTimeoutEnabled", "integrated", "canMapHostMemory", "computeMode",
    "maxTexture1D", "maxTexture1DMipmap", "maxTexture1DLinear", "maxTexture2D", "maxTexture2DMipmap",
    "maxTexture2DLinear", "maxTexture2DGather", "maxTexture3D", "maxTexture3DAlt", "maxTextureCubemap",
    "maxTexture1DLayered", "maxTexture2DLayered", "maxTextureCubemapLayered", "maxSurface1D", "maxSurface2D",
    "maxSurface3D", "maxSurface1DLayered", "maxSurface2DLayered", "maxSurfaceCubemap",
    "maxSurfaceCubemapLayered", "surfaceAlignment", "concurrentKernels", "ECCEnabled", "pciBusID",
    "pciDeviceID", "pciDomainID", "tccDriver", "asyncEngineCount", "unifiedAddressing", "memoryClockRate",
    "memoryBusWidth", "l2CacheSize", "persistingL2CacheMaxSize", "maxThreadsPerMultiProcessor",
    "streamPrioritiesSupported", "globalL1CacheSupported", "localL1CacheSupported",
    "sharedMemPerMultiprocessor", "regsPerMultiprocessor", "managedMemory", "isMultiGpuBoard",
    "multiGpuBoardGroupID", "hostNativeAtomicSupported", "singleToDoublePrecisionPerfRatio",
    "pageableMemoryAccess", "concurrentManagedAccess", "computePreemptionSupported",
    "canUseHostPointerForRegisteredMem", "cooperativeLaunch", "cooperativeMultiDeviceLaunch",
    "sharedMemPerBlockOptin", "pageableMemoryAccessUsesHostPageTables", "directManagedMemAccessFromHost",
    "maxBlocksPerMultiProcessor", "accessPolicyMaxWindowSize", "reservedSharedMemPerBlock",
    "hostRegisterSupported", "sparseHipArraySupported", "hostRegisterReadOnlySupported",
    "timelineSemaphoreInteropSupported", "memoryPoolsSupported", "gpuDirectRDMASupported",
    "gpuDirectRDMAFlushWritesOptions", "gpuDirectRDMAWritesOrdering", "memoryPoolSupportedHandleTypes",
    "deferredMappingHipArraySupported", "ipcEventSupported", "clusterLaunch", "unifiedFunctionPointers",
    "gcnArchName", "maxSharedMemoryPerMultiProcessor", "clockInstructionRate", "arch", "hdpMemFlushCntl",
    "hdpRegFlushCntl", "cooperativeMultiDeviceUnmatchedFunc", "cooperativeMultiDeviceUnmatchedGridDim",
    "cooperativeMultiDeviceUnmatchedBlockDim", "cooperativeMultiDeviceUnmatchedSharedMem", "isLargeBar",
    "asicRevision"
)


@pytest.mark.toolchain("clang")
def test_device_properties_have_the_rocm6_members_in_order(tmp_path: Path) -> None:
    # cuda-samples simpleMultiCopy reads prop.asyncEngineCount: a ROCm 6 member HIP 5.2's struct lacks
    reads = " + ".join(f"sizeof(p.{m})" for m in ROCM6_DEVICE_PROP_MEMBERS)
    order = "\n".join(f"static_assert(offsetof(hipDeviceProp_t, {a}) < offsetof(hipDeviceProp_t, {b}), \"{a}\");"
                      for a, b in zip(ROCM6_DEVICE_PROP_MEMBERS, ROCM6_DEVICE_PROP_MEMBERS[1:]))
    build, _ = compile_snippet(tmp_path, f"""
#include <cstddef>
{order}
size_t host(int dev) {{
  hipDeviceProp_t p;
  if (hipGetDeviceProperties(&p, dev) != hipSuccess) return 0;
  int chosen = 0;
  if (hipChooseDevice(&chosen, &p) != hipSuccess) return 0;
  return {reads} + p.asyncEngineCount;
}}""")
    assert build.ok, build.stderr


@pytest.mark.toolchain("clang")
def test_min_of_a_coordinate_resolves_as_on_rocm63(tmp_path: Path) -> None:
    # blockDim.x is an unsigned int in ROCm 6.3; HIP 5.2's proxy type made min(rem, blockDim.x)
    # ambiguous (cuda-samples eigenvalues) until the overlay's porter_coordinates.h
    build, _ = compile_snippet(tmp_path, """
__global__ void k(unsigned* out, unsigned rem) {
  for (unsigned i = 0; i < min(rem, blockDim.x); ++i) out[i] = max(threadIdx.x, rem) + min(blockDim.x, gridDim.x);
}""")
    assert build.ok, build.stderr


@pytest.mark.toolchain("clang")
def test_cooperative_groups_before_the_runtime_header(tmp_path: Path) -> None:
    # <hip/hip_cooperative_groups.h> first (cooperative_groups.h before cuda_runtime.h in the
    # original): ROCm 6.x's helper includes the runtime header it uses, HIP 5.2's did not
    src = tmp_path / "cg_first.hip"
    src.write_text("#include <hip/hip_cooperative_groups.h>\n#include <hip/hip_runtime.h>\n"
                   "namespace cg = cooperative_groups;\n"
                   "__global__ void k(unsigned* o) {\n"
                   "  o[0] = cg::this_grid().size() + cg::this_thread_block().size();\n}\n")
    build, kernels = compile_unit(src, ClangHipOptions(), tmp_path / "build")
    assert build.ok, build.stderr
    assert len(kernels) == 1


@pytest.mark.toolchain("clang")
def test_binary_partition_of_rocm63(tmp_path: Path) -> None:
    # cuda-samples binaryPartitionCG: cg::binary_partition of a tile and of a coalesced group is
    # ROCm 6.3 API (clr release/rocm-rel-6.3.0.1) that HIP 5.2 lacks; the overlay adds it
    src = tmp_path / "bp.hip"
    src.write_text("#include <hip/hip_cooperative_groups.h>\n#include <hip/hip_runtime.h>\n"
                   "namespace cg = cooperative_groups;\n"
                   "__global__ void k(const int* in, int* out) {\n"
                   "  cg::thread_block_tile<32> t = cg::tiled_partition<32>(cg::this_thread_block());\n"
                   "  int e = in[threadIdx.x];\n"
                   "  cg::coalesced_group odd = cg::binary_partition(t, e & 1);\n"
                   "  cg::coalesced_group big = cg::binary_partition(odd, e > 3);\n"
                   "  out[threadIdx.x] = odd.size() + odd.thread_rank() + odd.shfl_down(e, 1) + big.size();\n}\n")
    build, kernels = compile_unit(src, ClangHipOptions(), tmp_path / "build")
    assert build.ok, build.stderr
    assert len(kernels) == 1


@pytest.mark.toolchain("clang")
def test_shuffle_of_a_vector_needs_hip014_split(tmp_path: Path) -> None:
    # ROCm 6.3's tile shuffles take integer and float scalars only (cuda-samples shfl_scan shuffles
    # a uint4); HIP014's one-shuffle-per-component form builds for gfx950
    kernel = ("#include <hip/hip_cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
              "__global__ void k(uint4* p) {\n"
              "  auto tile = cg::tiled_partition<32>(cg::this_thread_block());\n"
              "  uint4 r = p[threadIdx.x];\n  r = SHUFFLE;\n  p[threadIdx.x] = r;\n}\n")
    build, _ = compile_snippet(tmp_path, kernel.replace("SHUFFLE", "tile.shfl_xor(r, 1)"))
    assert not build.ok and "Neither an integer or float type" in build.stderr
    split = ("[&] { auto porter_s = (r); " + " ".join(
        f"porter_s.{c} = tile.shfl_xor(static_cast<unsigned int>(porter_s.{c}), 1);" for c in "xyzw")
        + " return porter_s; }()")
    build, kernels = compile_snippet(tmp_path, kernel.replace("SHUFFLE", split))
    assert build.ok, build.stderr
    assert len(kernels) == 1


# ---- the instruction mix porter.perfmodel.isa reads ------------------------------------------
def _recorded_isa():
    asm = (RECORDED / "mfma_bf16_gfx950.s").read_text()
    kernels = parse_resource_usage((RECORDED / "mfma_bf16_gfx950.remarks.txt").read_text(), "u", "gfx950", metadata=asm)
    names = demangle([k.kernel for k in kernels])
    return kernel_isa(asm, [k.model_copy(update={"kernel": names[k.kernel]}) for k in kernels])


def test_kernel_isa_classes_and_patterns_from_recorded_assembly() -> None:
    found = {name.split("(")[0]: k for name, k in _recorded_isa().items()}
    assert set(found) == {"mfma_tile", "lds_reverse", "void warp_sum<64>"}
    tile = found["mfma_tile"]
    # one v_mfma_f32_16x16x32_bf16: 16 x 16 x 32 MACs x 2 over 64 lanes
    assert [(i.cls, i.flops) for i in tile.instrs if i.cls == "matrix"] == [("matrix", 256)]
    assert [(i.cls, i.bytes, i.pattern) for i in tile.instrs if i.cls.startswith("global")] == \
        [("global_load", 16, "contiguous")] * 3 + [("global_store", 16, "contiguous")]
    rev = found["lds_reverse"]
    assert rev.lds_bytes == 4096 and [i.cls for i in rev.instrs if i.cls in ("lds_read", "lds_write", "barrier")] \
        == ["lds_write", "barrier", "lds_read"]
    ws = found["void warp_sum<64>"]
    assert sum(i.cls == "shuffle" for i in ws.instrs) == 6  # offsets 32 .. 1 over the wave64
    # out[blockIdx.x]: one address for the wave
    assert [i.pattern for i in ws.instrs if i.cls == "global_store"] == ["uniform"]


def test_kernel_isa_lane_arithmetic_and_loops() -> None:
    from porter.state import KernelResources

    asm = """\t.type\tk,@function
k:
\tv_and_b32_e32 v2, 0x3ff, v0
\tv_bfe_u32 v3, v0, 10, 10
\tv_mad_u64_u32 v[4:5], s[0:1], s6, v3, v[2:3]
\tv_lshl_add_u64 v[6:7], v[4:5], 2, s[8:9]
\tglobal_load_dword v8, v[6:7], off
\tv_mul_lo_u32 v9, v2, s5
\tv_lshlrev_b32_e32 v9, 2, v9
.LBB0_1:                                ; =>This Inner Loop Header: Depth=1
\tglobal_load_dword v10, v9, s[2:3]
\tv_fmac_f32_e32 v11, v10, v8
\ts_cbranch_scc1 .LBB0_1
; %bb.2:
\tglobal_store_dword v3, v11, s[4:5]
\ts_endpgm
.Lfunc_end0:
"""
    res = KernelResources(kernel="k", unit="u", arch="gfx950", vgprs=12, agprs=4, sgprs=10, lds_bytes=0,
                          scratch_bytes=0, vgpr_spill=0, sgpr_spill=0, occupancy=8)
    k = kernel_isa(asm, [res])["k"]
    assert k.registers == 16
    # x + y * s6, in 4-byte elements: contiguous; x * s5 (a row stride): strided; y alone: uniform
    assert [(i.cls, i.pattern) for i in k.instrs if i.cls.startswith("global")] == \
        [("global_load", "contiguous"), ("global_load", "strided"), ("global_store", "uniform")]
    assert [[k.instrs[i].cls for i in loop] for loop in k.loops] == [["global_load", "fp", "other"]]
