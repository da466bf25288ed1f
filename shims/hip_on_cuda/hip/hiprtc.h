/* porter hip_on_cuda: <hip/hiprtc.h> is not provided - run-time compilation (hiprtc) would have to
 * compile HIP source with this directory at run time; a program that uses it fails to build here. */
#pragma once
#error "porter hip_on_cuda: hiprtc (run-time compilation) is not provided"
