/* SPDX-License-Identifier: GPL-3.0-or-later */
/* act.cuh: the element-wise activations and their derivatives, shared by
 * bias-act.cu and the fused dense ops in dense.cu (softmax is not
 * element-wise: bias-act.cu has its own kernels for it).
 */
#pragma once

#include "nn-backend-abi.h"

__device__ __forceinline__ float
act_forward (int act, float z)
{
  switch (act)
    {
    case NN_BK_ACT_RELU: return z > 0.0f ? z : 0.0f;
    case NN_BK_ACT_SIGMOID: return 1.0f / (1.0f + expf (-z));
    case NN_BK_ACT_TANH: return tanhf (z);
    default: return z;
    }
}

/* dz from y = act (z) and dy. */
__device__ __forceinline__ float
act_backward (int act, float y, float dy)
{
  switch (act)
    {
    case NN_BK_ACT_RELU: return y > 0.0f ? dy : 0.0f;
    case NN_BK_ACT_SIGMOID: return dy * y * (1.0f - y);
    case NN_BK_ACT_TANH: return dy * (1.0f - y * y);
    default: return dy;
    }
}
