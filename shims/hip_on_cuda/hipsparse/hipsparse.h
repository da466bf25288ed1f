/* porter hip_on_cuda: <hipsparse/hipsparse.h> on cuSPARSE, as hipSPARSE runs on its NVIDIA platform:
 * hipSPARSE's API is cuSPARSE's with "hip" in front, the same enumerator values, so the names
 * are typedefs, macros and forwarders - generated (hipsparse/hipsparse_table.h, from
 * gen/hipsparse.txt and cusparse.h by gen/generate.py). Provided: handles, matrix descriptors,
 * the generic API (CSR/COO/CSC, dense vectors and matrices, SpMV, SpMM, SpGEMM, SpSV, SDDMM,
 * sparse<->dense) and coo<->csr. Link: -lcusparse.
 */
#pragma once

#include <hip/hip_runtime.h>
#include <hip/library_types.h>
#include <porter_hoc/cuda_begin.h>
#include <cusparse.h>
#include <porter_hoc/cuda_end.h>
#include <hipsparse/hipsparse_table.h>
