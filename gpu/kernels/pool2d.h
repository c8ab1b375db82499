/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pool2d.h: the pooling kernels' declarations, and the geometry they and
 * their launchers share (kernels/common.h says how).
 *
 * A kernel templated on its index type (32-bit when it fits: 64-bit
 * division is many times slower) has that type's width W in its name, 32 or
 * 64; TWO_BY_TWO (0 or 1): 2 x 2 windows that tile the input (the cnn's
 * pooling), read as two float2 rows.
 */
#pragma once

#include "kernels/common.h"
#include "kernels/pool-max.h"

struct PoolGeom
{
  int n, c, h, w;
  int win_h, win_w, stride_h, stride_w, pad_h, pad_w, out_h, out_w;
};

/* Windows that tile the input exactly: stride = window, no padding, no
 * remainder, so each cell belongs to one window. */
static inline NN_HD bool
tiles_exactly (const PoolGeom &g)
{
  return g.stride_h == g.win_h && g.stride_w == g.win_w && g.pad_h == 0 && g.pad_w == 0
         && g.out_h * g.win_h == g.h && g.out_w * g.win_w == g.w;
}

/* ... with 2 x 2 windows (the cnn's pooling), which the kernels read as two
 * float2 rows (w is even, so rows stay 8-byte aligned). */
static inline NN_HD bool
two_by_two (const PoolGeom &g)
{
  return tiles_exactly (g) && g.win_h == 2 && g.win_w == 2;
}

/* pool_forward_kernel<W, TWO_BY_TWO> */
NN_KERNEL_FAMILY (pool_forward_kernel,
                  (int mode, PoolGeom g, const float *__restrict__ x, float *__restrict__ y,
                   float *__restrict__ drop_y, PoolDrop drop))
/* pool_backward_tiled_kernel<W> */
NN_KERNEL_FAMILY (pool_backward_tiled_kernel,
                  (int mode, PoolGeom g, const float *__restrict__ x,
                   const float *__restrict__ dy, float *__restrict__ dx))
/* pool_backward_act_kernel<TWO_BY_TWO> */
NN_KERNEL_FAMILY (pool_backward_act_kernel,
                  (int mode, PoolGeom g, int act, const float *__restrict__ x,
                   const float *__restrict__ dy, float *__restrict__ dx,
                   float *__restrict__ partials, PoolDrop drop))
/* pool_forward_argmax_kernel<W, TWO_BY_TWO> */
NN_KERNEL_FAMILY (pool_forward_argmax_kernel,
                  (PoolGeom g, const float *__restrict__ x, float *__restrict__ y,
                   float *__restrict__ drop_y, uint8_t *__restrict__ argmax, PoolDrop drop))
NN_KERNEL (pool_backward_argmax_kernel,
           (PoolGeom g, int act, const uint8_t *__restrict__ argmax, const float *__restrict__ y,
            const float *__restrict__ dy, float *__restrict__ dx, float *__restrict__ partials,
            PoolDrop drop))
NN_KERNEL (pool_backward_argmax_pairs_kernel,
           (PoolGeom g, int act, const uint8_t *__restrict__ argmax, const float *__restrict__ y,
            const float *__restrict__ dy, float *__restrict__ dx, float *__restrict__ partials,
            PoolDrop drop))
/* pool_backward_kernel<W> */
NN_KERNEL_FAMILY (pool_backward_kernel,
                  (int mode, PoolGeom g, const float *__restrict__ x,
                   const float *__restrict__ dy, float *__restrict__ dx))
