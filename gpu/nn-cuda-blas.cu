/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-cuda-blas.cu: row-major matrix products on cuBLAS and our own kernels,
 * and the fused dense ops built on them.
 *
 * cuBLAS is column-major; a row-major (m, n) matrix with row stride ld is
 * the column-major (n, m) matrix with leading dimension ld. So
 * C = op(A) op(B) (row-major) is C^T = op(B)^T op(A)^T (column-major): the
 * same call with the operands swapped and m and n exchanged.
 */

#include "nn-cuda-private.h"
#include "kernels/launch.cuh"
#include "kernels/act.cuh"
#include "kernels/below.cuh"
#include "kernels/epilogue.cuh"
#include "kernels/loss.cuh"

#include <cooperative_groups.h>
#include <stdio.h>

namespace cg = cooperative_groups;

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

/* One lane's share of row `row` of the small-n product: acc[j] += the sum
 * over kk = first, first + step, ... of A (row, kk) B (kk, j). B's loads
 * are unconditional (columns past n read column n - 1, and their sums are
 * never stored) so that a step's SMALL_N_MAX loads are all in flight
 * together: with `if (j < n)` around each, nvcc made each load a branch
 * and waited for it before the next, and 32 x 1000 -> 10 took twice as
 * long. */
template <int TRANS_B>
__device__ __forceinline__ void
small_n_sum (const float *__restrict__ a, const float *__restrict__ b, int m, int n, int k, int lda,
             int ldb, int trans_a, int row, int first, int step, float (&acc)[SMALL_N_MAX])
{
  for (int kk = first; kk < k; kk += step)
    {
      float av = row == m  ? 1.0f
                 : trans_a ? a[(size_t) kk * lda + row]
                           : a[(size_t) row * lda + kk];
      float bv[SMALL_N_MAX];
#pragma unroll
      for (int j = 0; j < SMALL_N_MAX; j++)
        {
          int col = j < n ? j : n - 1;
          bv[j] = TRANS_B ? b[(size_t) col * ldb + kk] : b[(size_t) kk * ldb + col];
        }
#pragma unroll
      for (int j = 0; j < SMALL_N_MAX; j++)
        acc[j] += av * bv[j];
    }
}

/* The warp's N sums over its lanes (a fixed tree); lane 0 leaves them in
 * `to`. */
template <int N>
__device__ __forceinline__ void
warp_sums_to (float (&acc)[N], float *to)
{
#pragma unroll
  for (int j = 0; j < N; j++)
    for (int o = 16; o > 0; o >>= 1)
      acc[j] += __shfl_xor_sync (0xffffffffu, acc[j], o);
  if ((threadIdx.x & 31) == 0)
#pragma unroll
    for (int j = 0; j < N; j++)
      to[j] = acc[j];
}

/* Block `bid` of the small-n product (256 threads). When keep is not NULL,
 * the warp that stores a row's outputs also leaves them in keep[warp]. */
__device__ __forceinline__ void
small_n_block (const SmallN &g, int bid, float (*keep)[SMALL_N_MAX] = NULL)
{
  __shared__ float part[8][SMALL_N_MAX];
  int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  int row = bid * (8 / g.split) + warp / g.split;
  int share = warp % g.split;
  int m = g.m, n = g.n, k = g.k, lda = g.lda, ldb = g.ldb;
  const float *__restrict__ a = g.a;
  const float *__restrict__ b = g.b;
  int rows = m + (g.colsum != NULL);
  float acc[SMALL_N_MAX];
#pragma unroll
  for (int j = 0; j < SMALL_N_MAX; j++)
    acc[j] = 0.0f;
  if (row < rows)
    {
      if (g.trans_b)
        small_n_sum<1> (a, b, m, n, k, lda, ldb, g.trans_a, row, share * 32 + lane, 32 * g.split,
                        acc);
      else
        small_n_sum<0> (a, b, m, n, k, lda, ldb, g.trans_a, row, share * 32 + lane, 32 * g.split,
                        acc);
    }
  warp_sums_to (acc, part[warp]);
  __syncthreads ();
  if (share == 0 && lane < n && row < rows)
    {
      float sum = 0.0f;
      for (int p = 0; p < g.split; p++)
        sum += part[warp + p][lane];
      if (row == m)
        g.colsum[lane] = sum;
      else
        {
          float v = store_out (g.e, epilogue_step (g.e), sum, row, lane, n, g.alpha, g.beta, g.c,
                               g.ldc);
          if (keep != NULL)
            keep[warp][lane] = v;
        }
    }
}

__global__ void __launch_bounds__ (256)
gemm_small_n_kernel (SmallN g)
{
  nn_kernel_enter ();
  small_n_block (g, blockIdx.x);
}

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

/* dense_loss_kernel's dx: for each of the block's rows, whose dz (its
 * loss gradient) is in dzs[the row's lead warp], dx (row, j) = the sum
 * over c of dz[c] w (j, c), in order, for the columns j = tid, tid + 256,
 * ..., DX_COLS at a time. The first DX_COLS columns' w, and the block's
 * first row's y and dropout mask of the layer below there, are loaded and
 * worked out when the kernel starts, while the product and the loss run:
 * after the loss, they took 2.9 us (32 x 1000 -> 10, one row a block).
 * Loads past n or k read column n - 1 or row k - 1, as small_n_sum's do,
 * so that they all go out together. (Each warp working out its row's loss
 * itself, so that none waits for another, was slower.) */
#define DX_COLS 4
struct DxCols
{
  float w[DX_COLS][SMALL_N_MAX];
  float y[DX_COLS];
  bool keep[DX_COLS]; /* below_keeps */
};

/* w's rows at the columns j0 + q * 256 (q < DX_COLS). */
__device__ __forceinline__ void
load_dx_w (const SmallN &g, int j0, DxCols &d)
{
  const float *__restrict__ w = g.b;
#pragma unroll
  for (int q = 0; q < DX_COLS; q++)
    {
      int j = min (j0 + q * (int) blockDim.x, g.k - 1);
#pragma unroll
      for (int c = 0; c < SMALL_N_MAX; c++)
        d.w[q][c] = w[(size_t) j * g.ldb + (c < g.n ? c : g.n - 1)];
    }
}

/* The layer below's y and mask in row r at those columns. */
__device__ __forceinline__ void
load_dx_y (const SmallN &g, const LossArgs &l, int64_t step, int r, int j0, DxCols &d)
{
#pragma unroll
  for (int q = 0; q < DX_COLS; q++)
    {
      size_t cell = (size_t) r * g.k + min (j0 + q * (int) blockDim.x, g.k - 1);
      d.y[q] = below_y (l.below, cell);
      d.keep[q] = below_keeps (l.below, step, cell);
    }
}

__device__ __forceinline__ void
loss_dx (const SmallN &g, const LossArgs &l, int rows_per_block,
         const float (*dzs)[SMALL_N_MAX], int64_t step, DxCols &d)
{
  const int first = blockIdx.x * rows_per_block;
  for (int j0 = threadIdx.x; j0 < g.k; j0 += DX_COLS * blockDim.x)
    {
      if (j0 != (int) threadIdx.x)
        load_dx_w (g, j0, d);
      for (int rw = 0; rw < rows_per_block && first + rw < g.m; rw++)
        {
          const int r = first + rw;
          const float *dz = dzs[rw * g.split];
          if (j0 != (int) threadIdx.x || rw > 0)
            load_dx_y (g, l, step, r, j0, d);
#pragma unroll
          for (int q = 0; q < DX_COLS; q++)
            {
              int j = j0 + q * (int) blockDim.x;
              float s = 0.0f;
#pragma unroll
              for (int c = 0; c < SMALL_N_MAX; c++)
                if (c < g.n)
                  s += dz[c] * d.w[q][c];
              if (j < g.k)
                l.dx[(size_t) r * g.k + j] = dx_value_kept (l.below, d.keep[q], s, d.y[q]);
            }
        }
    }
}

template <bool DX> /* l.dx is not NULL; the loop's registers stay out of dense_loss alone */
__global__ void __launch_bounds__ (256)
dense_loss_kernel (SmallN g, LossArgs l)
{
  nn_kernel_enter ();
  __shared__ float outputs[8][SMALL_N_MAX];
  __shared__ float targets[8][SMALL_N_MAX];
  __shared__ float grads[8][SMALL_N_MAX];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int rows_per_block = 8 / g.split;
  const int row = blockIdx.x * rows_per_block + warp / g.split;
  const bool row_warp = warp % g.split == 0 && row < g.m;
  /* the step of the layer below's dropout mask, and the dx's first loads
   * and mask, while the product runs */
  const int64_t step = DX && l.below.rate > 0.0f ? *l.step : 0;
  DxCols dxc;
  if (DX)
    {
      load_dx_w (g, threadIdx.x, dxc);
      load_dx_y (g, l, step, min (blockIdx.x * rows_per_block, g.m - 1), threadIdx.x, dxc);
    }
  /* The row's label and targets, loaded while the product runs. */
  int label = -1;
  float target = 0.0f;
  if (row_warp && l.labels != NULL)
    label = l.labels[row];
  if (row_warp && l.targets != NULL && lane < g.n)
    target = l.targets[(size_t) row * g.n + lane];
  small_n_block (g, blockIdx.x, outputs);
  if (row_warp && lane < g.n)
    targets[warp][lane] = target;
  __syncthreads ();
  float loss = 0.0f, correct = 0.0f;
  float *grad_row = l.grad != NULL ? l.grad + (size_t) row * g.n : NULL;
  if (row_warp)
    loss = loss_row (l.kind, outputs[warp], label, l.targets != NULL ? targets[warp] : NULL, g.m,
                     g.n, DX ? grads[warp] : grad_row, &correct);
  if (l.stats != NULL)
    add_block_stats<8> (loss, correct, l.stats); /* synchronizes the block */
  if (!DX)
    return;
  if (l.stats == NULL)
    __syncthreads ();
  if (row_warp && lane < g.n)
    grad_row[lane] = grads[warp][lane];
  loss_dx (g, l, rows_per_block, grads, step, dxc);
}

/* dense_loss_dx on sm_90 in thread-block clusters: the LDX_CLUSTER blocks
 * of a row each take a slice of the inputs, for the product and for dx.
 * dense_loss_kernel<true> above, one block a row, runs the row's 1000 inputs
 * through its 256 threads twice, four columns a thread, and was bound by
 * that chain: 1800 instructions a warp at two warps a scheduler, most of
 * its time (ncu); it stays for GPUs without clusters. Here a thread takes one column
 * of each (mlp-wide's 32 x 1000 -> 10), whose weights serve both. Each block
 * sends its partial sums of the outputs to every block of the cluster
 * (distributed shared memory); after one cluster barrier each adds them in
 * rank order, so all hold the same outputs, work out the same loss
 * gradient, and form dx of their own columns from it; rank 0 stores y, the
 * gradient and the statistics. NC: the outputs, rounded up to 4. */
#define LDX_CLUSTER 4
#define LDX_THREADS 256

template <int NC>
__global__ void __launch_bounds__ (LDX_THREADS)
dense_loss_dx_cluster_kernel (SmallN g, LossArgs l, int w_early)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  __shared__ float part[LDX_THREADS / 32][NC];
  __shared__ float recv[LDX_CLUSTER][NC]; /* (rank sent from, output) */
  __shared__ float outputs[NC], targets[NC], grads[NC];
  cg::cluster_group cluster = cg::this_cluster ();
  const int rank = (int) cluster.block_rank ();
  /* distributed shared memory may be written only once every block of the
   * cluster runs: this arrival, waited for just before the sums are sent */
  asm volatile ("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  const int row = blockIdx.x / LDX_CLUSTER, warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int span = (g.k + LDX_CLUSTER - 1) / LDX_CLUSTER;
  const int j = rank * span + threadIdx.x, j_end = min (g.k, (rank + 1) * span);
  const bool one = j + (int) blockDim.x >= j_end; /* the thread's only column is j */
  const float *__restrict__ w = g.b;
  float wj[NC];
  auto load_w = [&] (int col) {
    const size_t at = (size_t) min (col, g.k - 1) * g.ldb;
#pragma unroll
    for (int c = 0; c < NC; c++)
      wj[c] = w[at + min (c, g.n - 1)];
  };
  const bool out_lane = warp == 0 && lane < g.n;
  /* the weights and bias before the kernel before has finished, where the
   * op before did not write them (weights_early in launch.cuh) */
  if (!w_early)
    nn_kernel_enter ();
  load_w (j);
  const float bias = out_lane && g.e.bias != NULL ? g.e.bias[lane] : 0.0f;
  if (w_early)
    nn_kernel_enter ();
  const int64_t step = l.below.rate > 0.0f ? *l.step : 0;
  const size_t cell0 = (size_t) row * g.k + min (j, g.k - 1);
  float yb = below_y (l.below, cell0);
  bool keep = below_keeps (l.below, step, cell0);
  const int label = warp == 0 && l.labels != NULL ? l.labels[row] : -1;
  const float target = out_lane && l.targets != NULL ? l.targets[(size_t) row * g.n + lane] : 0.0f;

  float acc[NC] = {};
  for (int col = j; col < j_end; col += blockDim.x)
    {
      if (col != j)
        load_w (col);
      const float xv = g.a[(size_t) row * g.lda + col];
#pragma unroll
      for (int c = 0; c < NC; c++)
        acc[c] += xv * wj[c];
    }
  warp_sums_to (acc, part[warp]);
  __syncthreads ();
  asm volatile ("barrier.cluster.wait.aligned;" ::: "memory");
  if (warp == 0 && lane < NC)
    {
      float sum = 0.0f;
#pragma unroll
      for (int p = 0; p < LDX_THREADS / 32; p++)
        sum += part[p][lane];
#pragma unroll
      for (int q = 0; q < LDX_CLUSTER; q++)
        cluster.map_shared_rank (&recv[0][0], q)[rank * NC + lane] = sum;
    }
  cluster.sync ();

  if (warp == 0)
    {
      if (out_lane)
        {
          float sum = 0.0f;
#pragma unroll
          for (int q = 0; q < LDX_CLUSTER; q++)
            sum += recv[q][lane];
          const float v = epilogue_value (g.e, sum, bias);
          outputs[lane] = v;
          targets[lane] = target;
          if (rank == 0)
            g.c[(size_t) row * g.ldc + lane] = v;
        }
      __syncwarp ();
      float correct = 0.0f;
      const float loss = loss_row (l.kind, outputs, label, l.targets != NULL ? targets : NULL, g.m,
                                   g.n, grads, &correct);
      if (rank == 0 && out_lane)
        l.grad[(size_t) row * g.n + lane] = grads[lane];
      if (rank == 0 && lane == 0 && l.stats != NULL)
        {
          atomicAdd (&l.stats[0], loss);
          atomicAdd (&l.stats[1], correct);
        }
    }
  __syncthreads ();

  /* dx of this block's columns, summed over the outputs in order */
  for (int col = j; col < j_end; col += blockDim.x)
    {
      const size_t cell = (size_t) row * g.k + col;
      if (!one)
        {
          load_w (col);
          yb = below_y (l.below, cell);
          keep = below_keeps (l.below, step, cell);
        }
      float s = 0.0f;
#pragma unroll
      for (int c = 0; c < NC; c++)
        if (c < g.n)
          s += grads[c] * wj[c];
      l.dx[cell] = dx_value_kept (l.below, keep, s, yb);
    }
#else
  nn_kernel_enter ();
#endif
}

/* The cluster kernel for `out` outputs (at most SMALL_N_MAX). */
static void (*loss_dx_cluster_kernel (int out)) (SmallN, LossArgs, int)
{
  return out <= 4    ? dense_loss_dx_cluster_kernel<4>
         : out <= 8  ? dense_loss_dx_cluster_kernel<8>
         : out <= 12 ? dense_loss_dx_cluster_kernel<12>
                     : dense_loss_dx_cluster_kernel<16>;
}

int
_nn_cuda_loss_cluster_setup (const NnCudaContext *ctx)
{
  if (ctx->compute_major < 9)
    return 0;
  for (int out = 4; out <= SMALL_N_MAX; out += 4)
    if (!nn_cuda_clusters_fit ((const void *) loss_dx_cluster_kernel (out), LDX_CLUSTER,
                               LDX_THREADS, 0))
      return 0;
  return 1;
}

static SmallN
small_n_args (int trans_a, int trans_b, int m, int n, int k, float alpha, const float *a, int lda,
              const float *b, int ldb, float beta, float *c, int ldc, float *colsum,
              const Epilogue &e, unsigned int *blocks)
{
  /* warps sharing a row's sum: each lane's chain of loads and multiply-adds
   * is the kernel's length (mlp-wide's 32 x 1000 -> 10 with the loss: 8
   * warps a row rather than 4 took about 1.5 us off the step; the 128 ->
   * 10 output layers with the loss, 8 rather than 2: mlp-small's step and
   * the cnn's epoch a few per cent shorter) */
  int split = k >= 128 ? 8 : k >= 64 ? 4 : k >= 32 ? 2 : 1;
  int rows_per_block = 8 / split;
  int rows = m + (colsum != NULL);
  *blocks = (unsigned int) ((rows + rows_per_block - 1) / rows_per_block);
  return SmallN{ { trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc }, split, colsum,
                 e };
}

static int
launch_small_n (NnCudaContext *ctx, int trans_a, int trans_b, int m, int n, int k, float alpha,
                const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc,
                float *colsum, const Epilogue &e, const char *what)
{
  unsigned int blocks;
  SmallN g = small_n_args (trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, colsum,
                           e, &blocks);
  _nn_cuda_launch (ctx, gemm_small_n_kernel, blocks, 256, 0, g);
  return _nn_cuda_check_launch (ctx, what);
}

/* Products with a short sum (k <= 64: a dense layer's weight gradient over
 * a batch of 32, or the input gradient of a 10-class layer) and a small
 * output: cuBLAS again splits or picks a tile too big for them. One thread
 * per output element; consecutive threads take consecutive columns, so the
 * reads of B (not transposed) and the writes of C are coalesced and A's
 * element is shared by the warp. */
#define SMALL_K_MAX 64
#define SMALL_K_OUTPUTS (1 << 18)

/* Block `bid` of the small-k product (256 threads). */
__device__ __forceinline__ void
small_k_block (const Gemm &g, int bid)
{
  int idx = bid * blockDim.x + threadIdx.x;
  if (idx >= g.m * g.n)
    return;
  int i = idx / g.n, j = idx % g.n;
  const float *__restrict__ a = g.a;
  const float *__restrict__ b = g.b;
  float sum = 0.0f;
  for (int kk = 0; kk < g.k; kk++)
    {
      float av = g.trans_a ? a[(size_t) kk * g.lda + i] : a[(size_t) i * g.lda + kk];
      float bv = g.trans_b ? b[(size_t) j * g.ldb + kk] : b[(size_t) kk * g.ldb + j];
      sum += av * bv;
    }
  float *cp = g.c + (size_t) i * g.ldc + j;
  /* BLAS: C is not read when beta is 0 */
  *cp = g.beta == 0.0f ? g.alpha * sum : g.alpha * sum + g.beta * *cp;
}

__global__ void __launch_bounds__ (256)
gemm_small_k_kernel (Gemm g)
{
  nn_kernel_enter ();
  small_k_block (g, blockIdx.x);
}

static int
small_k_fits (int m, int n, int k)
{
  return k >= 1 && k <= SMALL_K_MAX && (size_t) m * n <= SMALL_K_OUTPUTS && n > SMALL_N_MAX;
}

/* A small-n and a small-k product in one launch (a dense layer's weight and
 * input gradients, which do not depend on each other): the first n_blocks
 * blocks run the first. */
__global__ void __launch_bounds__ (256)
gemm_pair_kernel (SmallN first, unsigned int n_blocks, Gemm second)
{
  nn_kernel_enter ();
  if (blockIdx.x < n_blocks)
    small_n_block (first, blockIdx.x);
  else
    small_k_block (second, blockIdx.x - n_blocks);
}

/* The row-major product C = alpha op(A) op(B) + beta C on a cuBLAS handle:
 * cuBLAS is column-major, so it computes C^T = op(B)^T op(A)^T, operands
 * swapped. */
static cublasStatus_t
cublas_row_major (cublasHandle_t handle, int trans_a, int trans_b, int m, int n, int k,
                  float alpha, const float *a, int lda, const float *b, int ldb, float beta,
                  float *c, int ldc)
{
  return cublasSgemm (handle, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N,
                      trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &alpha, b, ldb, a, lda, &beta,
                      c, ldc);
}

int
_nn_cuda_gemm (void *vctx, int trans_a, int trans_b, int m, int n, int k, float alpha,
               const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  int rc;

  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (m < 0 || n < 0 || k < 0)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "gemm: negative size (%d, %d, %d)", m, n, k);
  if (m == 0 || n == 0)
    return NN_BACKEND_OK;
  if (small_k_fits (m, n, k))
    {
      int outputs = m * n;
      _nn_cuda_launch (ctx, gemm_small_k_kernel, (outputs + 255) / 256, 256, 0,
                       Gemm{ trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc });
      return _nn_cuda_check_launch (ctx, "gemm");
    }
  if (n <= SMALL_N_MAX && k >= 32)
    return launch_small_n (ctx, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                           NULL, no_epilogue, "gemm");
  cublasStatus_t st = cublas_row_major (ctx->lane.cublas, trans_a, trans_b, m, n, k, alpha, a, lda,
                                        b, ldb, beta, c, ldc);
  if (st != CUBLAS_STATUS_SUCCESS)
    {
      char what[128];
      snprintf (what, sizeof what, "gemm (%d x %d x %d%s%s)", m, n, k, trans_a ? ", A^T" : "",
                trans_b ? ", B^T" : "");
      return _nn_cuda_fail_cublas (ctx, st, what);
    }
  return _nn_cuda_check_launch (ctx, "gemm");
}

/* The epilogue over a finished product y (rows, cols): where cuBLAS made it. */
__global__ void
epilogue_kernel (Epilogue e, float *__restrict__ y, int rows, int cols)
{
  nn_kernel_enter ();
  int64_t t = epilogue_step (e);
  size_t total = (size_t) rows * cols;
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < total;
       i += (size_t) gridDim.x * blockDim.x)
    store_out (e, t, y[i], (int) (i / cols), (int) (i % cols), cols, 1.0f, 0.0f, y, cols);
}

int
_nn_cuda_dense_forward_route (NnCudaContext *ctx, int route, int act, int n, int in, int out,
                              const float *x, const float *w, const float *bias, float *y,
                              float *drop_y, float rate, uint64_t seed, const int64_t *step)
{
  int rc;

  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (n < 0 || in < 0 || out < 0 || act < NN_BK_ACT_LINEAR || act >= NN_BK_ACT_SOFTMAX
      || !(rate >= 0.0f && rate < 1.0f) || (rate > 0.0f && drop_y == NULL))
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "dense_forward: bad arguments");
  if (n == 0 || out == 0)
    return NN_BACKEND_OK;

  Epilogue e = { 1, act, bias, rate > 0.0f ? drop_y : NULL, rate,
                 _nn_cuda_dropout_scale (rate), seed, step };
  const void *at[] = { y, e.drop_y };
  const size_t bytes[] = { (size_t) n * out * sizeof (float), (size_t) n * out * sizeof (float) };
  /* Wider products of short batches go to the cluster kernel
   * (kernels/dense-forward.cu: 32 x 1000 x 1000 with relu and dropout in
   * four fifths of the time in a replayed graph on the H200); others to
   * cuBLAS and one epilogue kernel, faster for 32 x 128 x 784 than a tiled
   * split-K kernel without clusters (removed: it won nowhere) and than
   * gemm, bias_act_forward and dropout_forward apart. */
  if (route == NN_CUDA_DENSE_AUTO)
    route = out <= SMALL_N_MAX && in >= 32 ? NN_CUDA_DENSE_SMALL_N
            : _nn_cuda_dense_cluster_fits (ctx, n, in, out, x, w) ? NN_CUDA_DENSE_CLUSTER
                                                                  : NN_CUDA_DENSE_CUBLAS;
  if (route == NN_CUDA_DENSE_SMALL_N)
    {
      rc = launch_small_n (ctx, 0, 0, n, out, in, 1.0f, x, in, w, out, 0.0f, y, out, NULL, e,
                           "dense_forward");
      _nn_cuda_writes_only (ctx, 2, at, bytes);
      return rc;
    }
  if (route == NN_CUDA_DENSE_CLUSTER)
    {
      if (!_nn_cuda_dense_cluster_fits (ctx, n, in, out, x, w))
        return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR,
                                  "dense_forward: the cluster route does not take %d x %d -> %d "
                                  "here (TF32 off, widths not multiples of 4, or before sm_90)",
                                  n, in, out);
      rc = _nn_cuda_dense_forward_cluster (ctx, n, in, out, x, w, y, e);
      _nn_cuda_writes_only (ctx, 2, at, bytes);
      return rc;
    }
  /* cuBLAS, then one kernel for bias, activation and dropout */
  if ((rc = _nn_cuda_gemm (ctx, 0, 0, n, out, in, 1.0f, x, in, w, out, 0.0f, y, out)) != 0)
    return rc;
  if (act == NN_BK_ACT_LINEAR && bias == NULL && e.drop_y == NULL)
    return NN_BACKEND_OK;
  _nn_cuda_launch (ctx, epilogue_kernel, _nn_cuda_blocks (ctx, (size_t) n * out, 256), 256, 0, e, y,
                   n, out);
  return _nn_cuda_check_launch (ctx, "dense_forward");
}

int
_nn_cuda_dense_forward (void *ctx, int act, int n, int in, int out, const float *x,
                        const float *w, const float *bias, float *y, float *drop_y, float rate,
                        uint64_t seed, const int64_t *step)
{
  return _nn_cuda_dense_forward_route ((NnCudaContext *) ctx, NN_CUDA_DENSE_AUTO, act, n, in, out,
                                       x, w, bias, y, drop_y, rate, seed, step);
}

/* A dense layer's weight gradient with its dz step built in, for a batch of
 * at most DW_MAX_ROWS rows and a small layer (the outputs the small-k kernel
 * would take): separately, dz (relu' and the dropout mask) and dW = x^T dz
 * are two kernels, each mostly waiting on memory (mlp-small's first layer).
 * Block (bx, by) forms dz (n, 32) of its 32 outputs in shared memory from dy,
 * y and the mask, as dense_backward_kernel does, and the (64 inputs, 32
 * outputs) tile of dW from it; the blocks of row by = 0 also write the bias
 * gradient (summed in row order) and, when dz_out is not NULL, dz for the
 * input gradient. dy is only read, since every block of a column forms dz
 * from it. 256 threads: warp tr, lane tc owns output column tc of dW rows
 * 8 tr .. 8 tr + 7 of the tile. */
#define DW_MAX_ROWS 64
#define DW_TILE_IN 64
#define DW_TILE_OUT 32

__global__ void __launch_bounds__ (256)
dense_dw_kernel (int act, const float *__restrict__ x, const float *__restrict__ y,
                 const float *__restrict__ dy, float *__restrict__ dw,
                 float *__restrict__ dbias, float *__restrict__ dz_out, int n, int in, int out,
                 float rate, float scale, uint64_t seed, const int64_t *__restrict__ step)
{
  nn_kernel_enter ();
  __shared__ float dzs[DW_MAX_ROWS][DW_TILE_OUT];
  __shared__ __align__ (16) float xs[DW_MAX_ROWS][DW_TILE_IN];
  int j0 = blockIdx.x * DW_TILE_OUT, i0 = blockIdx.y * DW_TILE_IN;
  int64_t t = rate > 0.0f && step != NULL ? *step : 0;

#pragma unroll 4
  for (int e = threadIdx.x; e < n * DW_TILE_OUT; e += 256)
    {
      int r = e / DW_TILE_OUT, c = e % DW_TILE_OUT, j = j0 + c;
      float dz = 0.0f;
      if (j < out)
        {
          size_t i = (size_t) r * out + j;
          float g = dy[i];
          if (rate > 0.0f)
            g = nn_dropout_keep (seed, t, i, rate) ? g * scale : 0.0f;
          dz = act_backward (act, y[i], g);
        }
      dzs[r][c] = dz;
    }
#pragma unroll 4
  for (int e = threadIdx.x; e < n * DW_TILE_IN; e += 256)
    {
      int r = e / DW_TILE_IN, c = e % DW_TILE_IN, i = i0 + c;
      xs[r][c] = i < in ? x[(size_t) r * in + i] : 0.0f;
    }
  __syncthreads ();

  if (blockIdx.y == 0)
    {
      if (dbias != NULL && threadIdx.x < DW_TILE_OUT && j0 + (int) threadIdx.x < out)
        {
          float sum = 0.0f;
          for (int r = 0; r < n; r++)
            sum += dzs[r][threadIdx.x];
          dbias[j0 + threadIdx.x] = sum;
        }
      if (dz_out != NULL)
        for (int e = threadIdx.x; e < n * DW_TILE_OUT; e += 256)
          {
            int r = e / DW_TILE_OUT, c = e % DW_TILE_OUT;
            if (j0 + c < out)
              dz_out[(size_t) r * out + j0 + c] = dzs[r][c];
          }
    }

  int tc = threadIdx.x & 31, tr = threadIdx.x >> 5;
  float acc[8] = { 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f };
  for (int r = 0; r < n; r++)
    {
      float d = dzs[r][tc];
      float4 a0 = *(const float4 *) &xs[r][tr * 8];
      float4 a1 = *(const float4 *) &xs[r][tr * 8 + 4];
      acc[0] += a0.x * d;
      acc[1] += a0.y * d;
      acc[2] += a0.z * d;
      acc[3] += a0.w * d;
      acc[4] += a1.x * d;
      acc[5] += a1.y * d;
      acc[6] += a1.z * d;
      acc[7] += a1.w * d;
    }
  int j = j0 + tc;
  if (j < out)
#pragma unroll
    for (int q = 0; q < 8; q++)
      {
        int i = i0 + tr * 8 + q;
        if (i < in)
          dw[(size_t) i * out + j] = acc[q];
      }
}

/* dense_loss, or with with_dx dense_loss_dx. */
static int
dense_loss_launch (NnCudaContext *ctx, bool with_dx, int act, int n, int in, int out,
                   const float *x, const float *w, const float *bias, float *y, int kind,
                   const int32_t *labels, const float *targets, float *grad, float *stats,
                   float *dx, const NnBackendBelow *below, const int64_t *step)
{
  const char *what = with_dx ? "dense_loss_dx" : "dense_loss";
  int rc;

  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (n < 0 || in < 0 || out <= 0 || act < NN_BK_ACT_LINEAR || act >= NN_BK_ACT_SOFTMAX
      || kind < NN_BK_LOSS_SPARSE_XENT || kind > NN_BK_LOSS_MSE
      || (kind == NN_BK_LOSS_SPARSE_XENT && labels == NULL)
      || (kind != NN_BK_LOSS_SPARSE_XENT && targets == NULL && labels == NULL)
      || (with_dx
          && (dx == NULL || act != NN_BK_ACT_LINEAR || grad == NULL
              || !_nn_cuda_below_ok (below, step))))
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "%s: bad arguments", what);
  if (n == 0)
    return NN_BACKEND_OK;
  /* One kernel for a classifier's few outputs: on the H200 in a replayed
   * graph (gpu/dev/dense-bench.cu) 32 x 128 -> 10 takes 4.3 us this way
   * against 4.8 us as dense_forward and loss, 32 x 512 -> 10 5.2 against
   * 5.8, 32 x 1000 -> 10 6.8 against 7.3. Other shapes: the dense forward,
   * then the loss op. */
  if (out > SMALL_N_MAX || in < 32)
    {
      if ((rc = _nn_cuda_dense_forward_route (ctx, NN_CUDA_DENSE_AUTO, act, n, in, out, x, w, bias,
                                              y, NULL, 0.0f, 0, NULL))
          != 0
          || (rc = _nn_cuda_loss (ctx, kind, y, labels, targets, grad, stats, n, out)) != 0
          || dx == NULL)
        return rc;
      return _nn_cuda_dx_below (ctx, n, in, out, grad, w, dx, below, step);
    }
  Epilogue e = { 1, act, bias, NULL, 0.0f, 1.0f, 0, NULL };
  unsigned int blocks;
  SmallN g = small_n_args (0, 0, n, out, in, 1.0f, x, in, w, out, 0.0f, y, out, NULL, e, &blocks);
  LossArgs l = { kind, labels, targets, grad, stats, dx, below_of (below), step };
  if (with_dx && ctx->loss_clusters)
    {
      const size_t w_bytes = (size_t) in * out * sizeof (float), b_bytes = out * sizeof (float);
      int early = _nn_cuda_untouched (ctx, w, w_bytes)
                  && (bias == NULL || _nn_cuda_untouched (ctx, bias, b_bytes));
      _nn_cuda_launch_cluster (ctx, true, loss_dx_cluster_kernel (out),
                               dim3 ((unsigned int) n * LDX_CLUSTER), LDX_THREADS, 0, LDX_CLUSTER,
                               g, l, early);
    }
  else if (with_dx)
    _nn_cuda_launch (ctx, dense_loss_kernel<true>, blocks, 256, 0, g, l);
  else
    _nn_cuda_launch (ctx, dense_loss_kernel<false>, blocks, 256, 0, g, l);
  const void *at[] = { y, grad, stats, dx };
  const size_t bytes[] = { (size_t) n * out * sizeof (float), (size_t) n * out * sizeof (float),
                           2 * sizeof (float), (size_t) n * in * sizeof (float) };
  _nn_cuda_writes_only (ctx, 4, at, bytes);
  return _nn_cuda_check_launch (ctx, what);
}

int
_nn_cuda_dense_loss (void *ctx, int act, int n, int in, int out, const float *x, const float *w,
                     const float *bias, float *y, int kind, const int32_t *labels,
                     const float *targets, float *grad, float *stats)
{
  return dense_loss_launch ((NnCudaContext *) ctx, false, act, n, in, out, x, w, bias, y, kind,
                            labels, targets, grad, stats, NULL, NULL, NULL);
}

int
_nn_cuda_dense_loss_dx (void *ctx, int act, int n, int in, int out, const float *x,
                        const float *w, const float *bias, float *y, int kind,
                        const int32_t *labels, const float *targets, float *grad, float *stats,
                        float *dx, const NnBackendBelow *below, const int64_t *step)
{
  return dense_loss_launch ((NnCudaContext *) ctx, true, act, n, in, out, x, w, bias, y, kind,
                            labels, targets, grad, stats, dx, below, step);
}

static int dense_backward_launch (NnCudaContext *ctx, int act, int n, int in, int out,
                                  const float *x, const float *w, const float *y, float *dy,
                                  float *dw, float *dbias, float *dx, float rate, uint64_t seed,
                                  const int64_t *step);

int
_nn_cuda_dense_backward (void *vctx, int act, int n, int in, int out, const float *x,
                         const float *w, const float *y, float *dy, float *dw, float *dbias,
                         float *dx, float rate, uint64_t seed, const int64_t *step)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  int rc;

  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  rc = dense_backward_launch (ctx, act, n, in, out, x, w, y, dy, dw, dbias, dx, rate, seed, step);
  const void *at[] = { dy, dw, dbias, dx };
  const size_t bytes[] = { (size_t) n * out * sizeof (float), (size_t) in * out * sizeof (float),
                           (size_t) out * sizeof (float), (size_t) n * in * sizeof (float) };
  _nn_cuda_writes_only (ctx, 4, at, bytes);
  return rc;
}

/* A large layer's dW and dx on cuBLAS side by side: dx = dz W^T on the
 * side stream while dW = x^T dz (and the bias sums, when not done) run on
 * the op's stream, which waits for the side before the op returns. The two
 * products read only dz, W and x; each alone leaves part of the GPU idle in
 * its last wave (the cnn's 256 x 9216 -> 128: ~72 tiles for dW, ~288 for
 * dx). In a captured step the two become parallel branches of the graph.
 * The join is made whatever failed, so a capture never ends forked. */
#define DENSE_BESIDE_MACS ((size_t) 64 << 20)

static int
dw_dx_beside (NnCudaContext *ctx, int n, int in, int out, const float *x, const float *w,
              float *dz, float *dw, float *dx, float *dbias, const float *y)
{
  cudaError_t err;
  int rc;
  /* the bias sums first: their kernel writes dz back in place */
  if (dbias != NULL
      && (rc = _nn_cuda_dense_dz (ctx, NN_BK_ACT_LINEAR, y, dz, dbias, n, out, 0.0f, 0, NULL)) != 0)
    return rc;
  if ((err = cudaEventRecord (ctx->fork, ctx->lane.stream)) != cudaSuccess)
    return _nn_cuda_fail (ctx, err, "dense_backward (fork)");
  if ((err = cudaStreamWaitEvent (ctx->side_stream, ctx->fork, 0)) != cudaSuccess)
    return _nn_cuda_fail (ctx, err, "dense_backward (fork)");
  /* dx (n, in) = dz (n, out) @ W^T */
  cublasStatus_t st = cublas_row_major (ctx->cublas_side, 0, 1, n, in, out, 1.0f, dz, out, w, out,
                                        0.0f, dx, in);
  cudaError_t joined = cudaEventRecord (ctx->join, ctx->side_stream);
  rc = _nn_cuda_gemm (ctx, 1, 0, in, out, n, 1.0f, x, in, dz, out, 0.0f, dw, out);
  if (joined == cudaSuccess)
    joined = cudaStreamWaitEvent (ctx->lane.stream, ctx->join, 0);
  if (st != CUBLAS_STATUS_SUCCESS)
    return _nn_cuda_fail_cublas (ctx, st, "dense_backward (dx beside dW)");
  if (joined != cudaSuccess)
    return _nn_cuda_fail (ctx, joined, "dense_backward (join)");
  return rc != 0 ? rc : _nn_cuda_check_launch (ctx, "dense_backward");
}

/* The kernels of dense_backward (dz in dy, dbias, dW and dx), on the
 * routes below. */
static int
dense_backward_launch (NnCudaContext *ctx, int act, int n, int in, int out, const float *x,
                       const float *w, const float *y, float *dy, float *dw, float *dbias,
                       float *dx, float rate, uint64_t seed, const int64_t *step)
{
  int rc;

  if (n < 0 || in < 0 || out < 0 || act < NN_BK_ACT_LINEAR || act >= NN_BK_ACT_SOFTMAX
      || !(rate >= 0.0f && rate < 1.0f))
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "dense_backward: bad arguments");
  if (out == 0)
    return NN_BACKEND_OK;

  /* A small layer and a batch of at most DW_MAX_ROWS rows: dz, the bias
   * gradient and dW in one kernel, where they were two (mlp-small's first
   * layer: 3.6 against 5.4 us on the H200; for mlp-wide's 784 x 1000 it
   * took 9.2 against 5.4, so larger layers keep cuBLAS); dz for dx goes to the reduction
   * scratch, which the products below do not use. */
  if (n >= 1 && n <= DW_MAX_ROWS && in > 0 && out > SMALL_N_MAX
      && (size_t) in * out <= SMALL_K_OUTPUTS
      && (dx == NULL || (size_t) n * out <= NN_CUDA_PARTIALS))
    {
      float *dz = dx != NULL ? ctx->lane.partials : NULL;
      dim3 grid ((out + DW_TILE_OUT - 1) / DW_TILE_OUT, (in + DW_TILE_IN - 1) / DW_TILE_IN);
      _nn_cuda_launch (ctx, dense_dw_kernel, grid, 256, 0, act, x, y, dy, dw, dbias, dz, n, in, out,
                       rate, _nn_cuda_dropout_scale (rate), seed, step);
      if ((rc = _nn_cuda_check_launch (ctx, "dense_backward")) != 0 || dx == NULL)
        return rc;
      return _nn_cuda_gemm (ctx, 0, 1, n, in, out, 1.0f, dz, out, w, out, 0.0f, dx, in);
    }

  /* dz in place of dy, with the bias gradient on the way */
  int dbias_done = 0;
  if (act != NN_BK_ACT_LINEAR || rate > 0.0f || n == 0)
    {
      if ((rc = _nn_cuda_dense_dz (ctx, act, y, dy, dbias, n, out, rate, seed, step)) != 0)
        return rc;
      dbias_done = 1;
    }
  if (in == 0)
    return dbias_done || dbias == NULL
             ? NN_BACKEND_OK
             : _nn_cuda_dense_dz (ctx, NN_BK_ACT_LINEAR, y, dy, dbias, n, out, 0.0f, 0, NULL);

  /* dW (in, out) = x^T (in, n) @ dz (n, out): with few outputs on the
   * small-n kernel, which adds dz's column sums (the bias gradient) as one
   * more row; dx (n, in) = dz (n, out) @ W^T (out, in) on the small-k kernel
   * in the same launch when it fits */
  if (out <= SMALL_N_MAX && n >= 32)
    {
      unsigned int n_blocks;
      SmallN dw_args = small_n_args (1, 0, in, out, n, 1.0f, x, in, dy, out, 0.0f, dw, out,
                                     dbias_done ? NULL : dbias, no_epilogue, &n_blocks);
      if (dx != NULL && small_k_fits (n, in, out))
        {
          unsigned int k_blocks = (unsigned int) (((size_t) n * in + 255) / 256);
          _nn_cuda_launch (ctx, gemm_pair_kernel, n_blocks + k_blocks, 256, 0, dw_args, n_blocks,
                           Gemm{ 0, 1, n, in, out, 1.0f, dy, out, w, out, 0.0f, dx, in });
          return _nn_cuda_check_launch (ctx, "dense_backward");
        }
      _nn_cuda_launch (ctx, gemm_small_n_kernel, n_blocks, 256, 0, dw_args);
      if ((rc = _nn_cuda_check_launch (ctx, "dense_backward")) != 0)
        return rc;
      dbias_done = 1;
    }
  else if (dx != NULL && (size_t) n * in * out >= DENSE_BESIDE_MACS)
    return dw_dx_beside (ctx, n, in, out, x, w, dy, dw, dx, dbias_done ? NULL : dbias, y);
  else if ((rc = _nn_cuda_gemm (ctx, 1, 0, in, out, n, 1.0f, x, in, dy, out, 0.0f, dw, out)) != 0)
    return rc;
  if (!dbias_done && dbias != NULL
      && (rc = _nn_cuda_dense_dz (ctx, NN_BK_ACT_LINEAR, y, dy, dbias, n, out, 0.0f, 0, NULL)) != 0)
    return rc;

  if (dx != NULL)
    return _nn_cuda_gemm (ctx, 0, 1, n, in, out, 1.0f, dy, out, w, out, 0.0f, dx, in);
  return NN_BACKEND_OK;
}
