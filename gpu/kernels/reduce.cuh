/* SPDX-License-Identifier: GPL-3.0-or-later */
/* reduce.cuh: a block's sum, for the kernels that leave one partial sum per
 * block (bias gradients over images: bias-act.cu, pool2d.cu).
 */
#pragma once

/* The sum of every thread's `value` in the block, added in a fixed order and
 * stored to *out by thread 0. All threads of the block call it; blockDim.x
 * is a multiple of 32, at most 1024. */
__device__ __forceinline__ void
block_sum_store (float value, float *out)
{
  __shared__ float warp_sums[32];
  for (int o = 16; o > 0; o >>= 1)
    value += __shfl_xor_sync (0xffffffffu, value, o);
  if ((threadIdx.x & 31) == 0)
    warp_sums[threadIdx.x >> 5] = value;
  __syncthreads ();
  if (threadIdx.x < 32)
    {
      int warps = blockDim.x >> 5;
      float s = threadIdx.x < warps ? warp_sums[threadIdx.x] : 0.0f;
      for (int o = 16; o > 0; o >>= 1)
        s += __shfl_xor_sync (0xffffffffu, s, o);
      if (threadIdx.x == 0)
        *out = s;
    }
}
