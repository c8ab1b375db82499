/* SPDX-License-Identifier: GPL-3.0-or-later */
/* conv-direct.h: the direct convolution's kernels (conv-direct.cu) as their
 * launchers (ops/conv-direct.cc) see them: the geometry and the weight
 * gradient's plan the kernels take, the sizes both sides derive from the
 * tap count, and the kernels' declarations (kernels/common.h says how).
 */
#pragma once

#include "kernels/common.h"
#include "kernels/conv-direct-plan.h"

#include <stdint.h>

struct DirectGeom
{
  int n, c, h, w, k, r, s, stride_h, stride_w, pad_h, pad_w, out_h, out_w;
};

/* Filters per block in the weight gradient: as many as the registers allow. */
template <int T>
struct Group
{
  static const int K = T <= 16 ? 4 : 2;
};

/* Positions per thread in the forward kernel: each weight read from shared
 * memory serves that many (one thread per position read each weight once
 * per position: 288 shared loads a position for the cnn's first layer). */
#define DIRECT_FWD_POSITIONS 2

/* The forward for T taps (the tap count rounded up: 9, 16 or 32), as
 * conv_direct_forward_kernel_9. */
NN_KERNEL_FAMILY (conv_direct_forward_kernel,
                  (DirectGeom g, const float *__restrict__ x, const float *__restrict__ w,
                   const float *__restrict__ bias, int act, float *__restrict__ y))
/* The weight gradient: T, FUSED (0 or 1: with the activation's backward
 * and the bias gradient) and P (positions a step: 1 or 2), as
 * conv_direct_wgrad_kernel_9_1_2. */
NN_KERNEL_FAMILY (conv_direct_wgrad_kernel,
                  (DirectGeom g, DirectPlan b, const float *__restrict__ x,
                   const float *__restrict__ dy, const float *__restrict__ y, int act,
                   float *__restrict__ partials))
NN_KERNEL (conv_direct_wgrad_sum_kernel,
           (const float *__restrict__ partials, float *__restrict__ dw, float *__restrict__ dbias,
            int k, int taps, int width, int slices))
