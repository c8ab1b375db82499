/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dense.cu: our kernels of the row-major matrix products and of the fused
 * dense ops built on them (launched by ops/dense.cc, which says when cuBLAS
 * takes a product instead).
 */

#include "kernels/dense.h"
#include "kernels/launch.cuh"
#include "kernels/act.cuh"
#include "kernels/below.cuh"
#include "kernels/epilogue.cuh"
#include "kernels/loss.cuh"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

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

extern "C" __global__ void __launch_bounds__ (256)
gemm_small_n_kernel (SmallN g)
{
  nn_kernel_enter ();
  small_n_block (g, blockIdx.x);
}

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

/* dense_loss_kernel<DX>'s body (the kernels are its instances below). */
template <bool DX> /* l.dx is not NULL; the loop's registers stay out of dense_loss alone */
static __device__ __forceinline__ void
dense_loss_body (const SmallN &g, const LossArgs &l)
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

#define DENSE_LOSS_KERNEL(DX)                                                                      \
  extern "C" __global__ void __launch_bounds__ (256)                                               \
  NN_KERNEL_NAME1 (dense_loss_kernel, DX) (SmallN g, LossArgs l)                                   \
  {                                                                                                \
    dense_loss_body<DX != 0> (g, l);                                                               \
  }
DENSE_LOSS_KERNEL (0)
DENSE_LOSS_KERNEL (1)

/* dense_loss_dx on sm_90 in thread-block clusters: the LDX_CLUSTER blocks
 * of a row each take a slice of the inputs, for the product and for dx.
 * dense_loss_kernel_1 above, one block a row, runs the row's 1000 inputs
 * through its 256 threads twice, four columns a thread, and was bound by
 * that chain: 1800 instructions a warp at two warps a scheduler, most of
 * its time (ncu); it stays for GPUs without clusters. Here a thread takes one column
 * of each (mlp-wide's 32 x 1000 -> 10), whose weights serve both. Each block
 * sends its partial sums of the outputs to every block of the cluster
 * (distributed shared memory); after one cluster barrier each adds them in
 * rank order, so all hold the same outputs, work out the same loss
 * gradient, and form dx of their own columns from it; rank 0 stores y, the
 * gradient and the statistics. NC: the outputs, rounded up to 4. */
template <int NC>
static __device__ __forceinline__ void
dense_loss_dx_cluster_body (const SmallN &g, const LossArgs &l, int w_early)
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

/* The instances the host launches: NC = `out` (at most SMALL_N_MAX)
 * rounded up to 4 (ops/dense.cc, loss_dx_cluster_kernel). */
#define DENSE_LOSS_DX_CLUSTER_KERNEL(NC)                                                           \
  extern "C" __global__ void __launch_bounds__ (LDX_THREADS)                                       \
  NN_KERNEL_NAME1 (dense_loss_dx_cluster_kernel, NC) (SmallN g, LossArgs l, int w_early)           \
  {                                                                                                \
    dense_loss_dx_cluster_body<NC> (g, l, w_early);                                                \
  }
DENSE_LOSS_DX_CLUSTER_KERNEL (4)
DENSE_LOSS_DX_CLUSTER_KERNEL (8)
DENSE_LOSS_DX_CLUSTER_KERNEL (12)
DENSE_LOSS_DX_CLUSTER_KERNEL (16)

/* Products with a short sum (k <= 64: a dense layer's weight gradient over
 * a batch of 32, or the input gradient of a 10-class layer) and a small
 * output: cuBLAS again splits or picks a tile too big for them. One thread
 * per output element; consecutive threads take consecutive columns, so the
 * reads of B (not transposed) and the writes of C are coalesced and A's
 * element is shared by the warp. */

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

extern "C" __global__ void __launch_bounds__ (256)
gemm_small_k_kernel (Gemm g)
{
  nn_kernel_enter ();
  small_k_block (g, blockIdx.x);
}

/* A small-n and a small-k product in one launch (a dense layer's weight and
 * input gradients, which do not depend on each other): the first n_blocks
 * blocks run the first. */
extern "C" __global__ void __launch_bounds__ (256)
gemm_pair_kernel (SmallN first, unsigned int n_blocks, Gemm second)
{
  nn_kernel_enter ();
  if (blockIdx.x < n_blocks)
    small_n_block (first, blockIdx.x);
  else
    small_k_block (second, blockIdx.x - n_blocks);
}

/* The epilogue over a finished product y (rows, cols): where cuBLAS made it. */
extern "C" __global__ void
dense_epilogue_kernel (Epilogue e, float *__restrict__ y, int rows, int cols)
{
  nn_kernel_enter ();
  int64_t t = epilogue_step (e);
  size_t total = (size_t) rows * cols;
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < total;
       i += (size_t) gridDim.x * blockDim.x)
    store_out (e, t, y[i], (int) (i / cols), (int) (i % cols), cols, 1.0f, 0.0f, y, cols);
}

/* A dense layer's weight gradient with its dz step built in, for a batch of
 * at most DW_MAX_ROWS rows and a small layer (the outputs the small-k kernel
 * would take): separately, dz (relu' and the dropout mask) and dW = x^T dz
 * are two kernels, each mostly waiting on memory (mlp-small's first layer).
 * Block (bx, by) forms dz (n, 32) of its 32 outputs in shared memory from dy,
 * y and the mask, as bias_act_dense_backward_kernel does, and the (64 inputs, 32
 * outputs) tile of dW from it; the blocks of row by = 0 also write the bias
 * gradient (summed in row order) and, when dz_out is not NULL, dz for the
 * input gradient. dy is only read, since every block of a column forms dz
 * from it. 256 threads: warp tr, lane tc owns output column tc of dW rows
 * 8 tr .. 8 tr + 7 of the tile. */
extern "C" __global__ void __launch_bounds__ (256)
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
