/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fill.cu: set a float buffer to one value (launched by ops/fill.cc). */

#include "kernels/fill.h"
#include "kernels/launch.cuh"

extern "C" __global__ void
fill_kernel (float *__restrict__ dst, float value, uint64_t count)
{
  nn_kernel_enter ();
  for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < count;
       i += (uint64_t) gridDim.x * blockDim.x)
    dst[i] = value;
}
