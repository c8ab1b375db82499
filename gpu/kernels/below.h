/* SPDX-License-Identifier: GPL-3.0-or-later */
/* below.h: the layer below a dense layer's backward as its kernels take it
 * (below.cuh: what they do with it), and the host's way to fill it in.
 */
#pragma once

#include "nn-backend-abi.h"

#include <stddef.h>
#include <stdint.h>

/* The layer below, whose dz the kernels write in place of dx (act < 0:
 * none, dx as it is). */
struct Below
{
  int act;
  float rate, scale;
  uint64_t seed;
  const float *y; /* (n, in) */
};

#ifndef __CUDACC__
/* The kernels' form of the ABI's `below`; NULL: none. */
static inline Below
below_of (const NnBackendBelow *b)
{
  if (b == NULL)
    return Below{ -1, 0.0f, 1.0f, 0, NULL };
  return Below{ b->act, b->rate, b->rate > 0.0f ? 1.0f / (1.0f - b->rate) : 1.0f, b->seed, b->y };
}
#endif
