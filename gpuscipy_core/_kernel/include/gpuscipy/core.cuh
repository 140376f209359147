// Everything a generated gpuscipy kernel may use.
#pragma once
#include <gpuscipy/types.cuh>
#include <gpuscipy/ufuncs.cuh>
