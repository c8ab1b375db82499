/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bias-act.h: the bias + activation kernels' declarations
 * (kernels/common.h says how).
 *
 * Layout (n, channels, spatial): dense layers have spatial 1, convolutions
 * spatial = out_h * out_w.
 */
#pragma once

#include "kernels/common.h"

#include <type_traits>

/* bias_act_kernel<W>'s index type: W bits, 32 (when the buffer's index fits:
 * 64-bit division is many times slower) or 64. */
template <int W> using BiasActIndex = std::conditional_t<W == 64, uint64_t, unsigned int>;

#ifndef __CUDACC__
/* bias_act_kernel<W> (its parameters depend on W, so not NN_KERNEL_FAMILY) */
template <int W>
[[maybe_unused]] static const NnCudaKernel<void (
  int act, float *__restrict__ y, const float *__restrict__ bias, BiasActIndex<W> total,
  BiasActIndex<W> channels, BiasActIndex<W> spatial)>
  bias_act_kernel = { &nn_fatbin, "bias_act_kernel", { W }, 1, {} };
#endif

NN_KERNEL (bias_act_vec4_kernel,
           (int act, float4 *__restrict__ y, const float *__restrict__ bias, unsigned int quads,
            unsigned int channels, unsigned int spatial_quads))
NN_KERNEL (bias_act_softmax_kernel,
           (float *__restrict__ y, const float *__restrict__ bias, int rows, int channels,
            int spatial))
NN_KERNEL (bias_act_softmax_backward_kernel,
           (const float *__restrict__ y, float *__restrict__ dy, int rows, int channels,
            int spatial))

/* bias_act_dense_backward_kernel's block: (32, DENSE_ROWS). */
#define DENSE_ROWS 32

NN_KERNEL (bias_act_dense_backward_kernel,
           (int act, const float *__restrict__ y, float *__restrict__ dy,
            float *__restrict__ dbias, int rows, int channels, float rate, float scale,
            uint64_t seed, const int64_t *__restrict__ step))
NN_KERNEL (bias_act_image_backward_kernel,
           (int act, const float *__restrict__ y, float *__restrict__ dy,
            float *__restrict__ partials, int rows, int channels, int spatial, int vec4))
NN_KERNEL (bias_act_sum_partials_kernel,
           (const float *__restrict__ partials, float *__restrict__ dbias, int channels,
            int splits))
