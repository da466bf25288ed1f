#pragma once
#include <hipfft/hipfft.h>
