/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dense.h: the row-major products' and fused dense ops' kernels
 * (kernels/dense.cu), as their launchers (ops/dense.cc) fill them in;
 * kernels/common.h says how they are declared.
 */
#pragma once

#include "kernels/below.h"
#include "kernels/common.h"
#include "kernels/epilogue.h"

#include <stdint.h>

/* Products with few output columns (a layer's 10 classes: the forward
 * product and its weight gradient) and a long enough sum: cuBLAS splits
 * them over k and adds a reduction kernel, which costs more than the
 * product. Here one warp (or `split` warps sharing the sum) computes every
 * column of one output row, in plain float. */
#define SMALL_N_MAX 16

/* A row-major product C = alpha op(A) op(B) + beta C, as _nn_cuda_gemm
 * takes it: what the small-k kernel needs, and the small-n kernel's start. */
struct Gemm
{
  int trans_a, trans_b, m, n, k;
  float alpha;
  const float *a;
  int lda;
  const float *b;
  int ldb;
  float beta;
  float *c;
  int ldc;
};

struct SmallN : Gemm
{
  int split;      /* warps sharing one row's sum: 1, 2, 4 or 8 */
  float *colsum;  /* (n) or NULL: row m is a row of ones, its outputs B's column sums */
  Epilogue e;
};

/* The output layer and the loss in one kernel (dense_loss): the small-n
 * product with its epilogue gives each row's outputs to the warp that
 * stores them, and that warp computes the row's loss from them as the loss
 * op does; a separate loss kernel cost a launch and a trip through memory
 * per step. With dx (dense_loss_dx, act linear), it also forms the rows'
 * input gradient, grad @ w^T, summed over the outputs in order as the
 * narrow update kernel sums it, or the layer below's dz from it (loss_dx,
 * below): the output layer's update then leaves the step's chain of
 * kernels, to run beside the layers below. */
struct LossArgs
{
  int kind;
  const int32_t *labels;
  const float *targets;
  float *grad;  /* (m, n) or NULL */
  float *stats; /* or NULL */
  float *dx;    /* (m, k) or NULL; then grad is not NULL */
  Below below;
  const int64_t *step; /* the dropout of the layer below */
};

/* dense_loss_dx's cluster kernel: blocks a cluster (a row), threads a block. */
#define LDX_CLUSTER 4
#define LDX_THREADS 256

/* dense_dw_kernel: at most DW_MAX_ROWS batch rows; block (bx, by) takes the
 * (DW_TILE_IN inputs, DW_TILE_OUT outputs) tile of dW. */
#define DW_MAX_ROWS 64
#define DW_TILE_IN 64
#define DW_TILE_OUT 32

NN_KERNEL (gemm_small_n_kernel, (SmallN g))
/* dense_loss_kernel<DX>: DX 1 with dx (dense_loss_dx), 0 without */
NN_KERNEL_FAMILY (dense_loss_kernel, (SmallN g, LossArgs l))
/* dense_loss_dx_cluster_kernel<NC>: NC the outputs, rounded up to 4 */
NN_KERNEL_FAMILY (dense_loss_dx_cluster_kernel, (SmallN g, LossArgs l, int w_early))
NN_KERNEL (gemm_small_k_kernel, (Gemm g))
NN_KERNEL (gemm_pair_kernel, (SmallN first, unsigned int n_blocks, Gemm second))
NN_KERNEL (dense_epilogue_kernel, (Epilogue e, float *__restrict__ y, int rows, int cols))
NN_KERNEL (dense_dw_kernel,
           (int act, const float *__restrict__ x, const float *__restrict__ y,
            const float *__restrict__ dy, float *__restrict__ dw, float *__restrict__ dbias,
            float *__restrict__ dz_out, int n, int in, int out, float rate, float scale,
            uint64_t seed, const int64_t *__restrict__ step))
