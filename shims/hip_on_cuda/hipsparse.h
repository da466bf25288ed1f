#pragma once
#include <hipsparse/hipsparse.h>
