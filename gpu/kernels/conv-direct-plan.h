/* SPDX-License-Identifier: GPL-3.0-or-later */
/* conv-direct-plan.h: the direct convolution's weight-gradient plan, which
 * the host makes (_nn_cuda_conv_direct_plan, NnCudaDirectPlan) and its
 * kernel takes as it is (conv-direct.cu): one struct for both, of fixed
 * width.
 */
#pragma once

#include <stdint.h>

struct DirectPlan
{
  int band_rows;       /* output rows of a work item (one image's band) */
  int bands;           /* bands per image */
  int in_rows, in_w;   /* the band's input rows and padded width, in shared memory */
  int blocks;          /* the weight gradient's grid */
  int stripes;         /* warps sharing a group of filters */
  uint64_t partial_bytes; /* workspace: (k, blocks * stripes, taps + 1) partial sums */
};
