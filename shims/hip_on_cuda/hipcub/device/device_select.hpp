/* porter hip_on_cuda: hipCUB's per-algorithm header path; everything is in <hipcub/hipcub.hpp>. */
#pragma once
#include <hipcub/hipcub.hpp>
