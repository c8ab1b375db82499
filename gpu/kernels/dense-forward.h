/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dense-forward.h: the cluster dense forward's kernel (kernels/
 * dense-forward.cu), its geometry and its arguments, as its launcher
 * (ops/dense-forward.cc) fills them in; kernels/common.h says how it is
 * declared.
 */
#pragma once

#include "kernels/common.h"
#include "kernels/epilogue.h"

#include <stddef.h>

#define DF_BM 32       /* batch rows per block */
#define DF_KS 32       /* k per stage */
#define DF_THREADS 256 /* 8 warps: a 16-row half of the tile by BN / 4 outputs each */
#define DF_STAGES 5    /* stages in shared memory: see df_wide (ops/dense-forward.cc) */
#define DF_SPLIT 8     /* blocks per cluster: the portable maximum */
#define DF_XS (DF_KS + 4)

/* Row strides in shared memory, padded so that the fragment loads of a
 * warp hit 32 different banks: A reads rows g at columns t (4 g + t), B
 * reads rows t at columns g (8 t + g); both stay multiples of 16 bytes for
 * cp.async. */
template <int BN> struct DfShape
{
  static const int WS = BN + 8;
  static const int STAGE_FLOATS = DF_BM * DF_XS + DF_KS * WS;
  static const int ROWS = DF_BM / DF_SPLIT; /* the tile's rows each rank adds and stores */
  static const int RS = BN + 4;             /* their row stride where they are received */
  static const int RECV_FLOATS = DF_SPLIT * ROWS * RS; /* (rank sent from, row, column) */
  static const size_t SMEM = ((size_t) DF_STAGES * STAGE_FLOATS + RECV_FLOATS) * sizeof (float);
};

struct DenseCluster
{
  int n, in, out;
  int chunk; /* k per rank, a multiple of DF_KS */
  const float *x; /* (n, in) */
  const float *w; /* (in, out) */
  float *y;       /* (n, out) */
  Epilogue e;
  int early; /* w may be read before the kernel before has finished (weights_early) */
};

/* dense_cluster_kernel<BN>: BN outputs a block, 64 or 32 */
NN_KERNEL_FAMILY (dense_cluster_kernel, (DenseCluster d))
