/* porter hip_on_cuda: <hip/driver_types.h>: HIP's runtime types, here with the runtime API. */
#pragma once
#include <hip/hip_runtime_api.h>
