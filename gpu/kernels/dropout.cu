/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dropout.cu: inverted dropout with the counter-based mask of
 * nn_dropout_keep, so every backend drops the same elements for a seed and
 * step. The step is read on the device: a captured step replays correctly
 * (launched by ops/dropout.cc).
 */

#include "kernels/dropout.h"
#include "kernels/launch.cuh"
#include "nn-backend-abi.h"

extern "C" __global__ void
dropout_kernel (float *__restrict__ y, const float *__restrict__ x, uint64_t count, float rate,
                float scale, uint64_t seed, const int64_t *__restrict__ step)
{
  nn_kernel_enter ();
  int64_t t = step != NULL ? *step : 0;
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < count;
       i += (size_t) gridDim.x * blockDim.x)
    y[i] = nn_dropout_keep (seed, t, i, rate) ? x[i] * scale : 0.0f;
}
