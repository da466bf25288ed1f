/* porter hip_on_cuda: <hip/hip_vector_types.h>.
 *
 * Stands in for: ROCm's hip_vector_types.h (float2/float4/int4/... and make_float4 & co.).
 * HIP's vector types carry CUDA's names and members (.x .y .z .w); CUDA's are used.
 * HIP-only operator overloads on them (float4 + float4, ...) are not provided.
 */
#pragma once

#include <porter_hoc/all.h>
