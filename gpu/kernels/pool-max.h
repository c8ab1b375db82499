/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pool-max.h: the dropout after a pooling as its kernels take it
 * (pool-max.cuh: the device side).
 */
#pragma once

#include <stdint.h>

/* The dropout after a pooling, applied by its kernels (pool2d_forward_dropout,
 * pool2d_backward_act and the argmax ops): off when rate is 0. scale =
 * 1 / (1 - rate), as dropout.cu has it; the mask index is the pooling
 * output's index. */
struct PoolDrop
{
  float rate, scale;
  uint64_t seed;
  const int64_t *step; /* device, or NULL for step 0 */
};
