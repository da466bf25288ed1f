/* porter hip_on_cuda: <hipblas.h> (the older include path) = <hipblas/hipblas.h>. */
#pragma once
#include <hipblas/hipblas.h>
