#pragma once
#include <hiprand/hiprand.h>
