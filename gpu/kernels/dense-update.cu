/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dense-update.cu: a dense layer's backward with the optimizer's update
 * built in, the ABI's dense_backward_update.
 *
 * Separately, a layer's weight gradient is written by one kernel and read
 * again by the optimizer's kernel over the whole arena at the end of the
 * step, and dz and the input gradient take a kernel or two each. Here one
 * kernel per layer sums each weight's gradient over the batch in registers
 * and applies the update rule of optimizer.cuh to it (the weight and its
 * state loaded first, so that their latency hides behind the sums: the
 * gradient is never stored), and forms the input gradient from the old
 * weights; where the layer below updates itself too, it forms that layer's
 * dz in place of the input gradient (the ABI's `below`), so the one below
 * reads dz as it is. mlp-wide's backward and update went from eight kernels
 * to four, and its step on the H200 became 8 % shorter.
 *
 * Three kernels: the narrow one for a classifier's few outputs (a thread a
 * row of w), the wide one on tensor cores (TF32 allowed) and with 32-bit
 * multiply-adds otherwise, and one that adds the wide kernels' partial sums
 * of the input gradient when the outputs span several tiles.
 *
 * A step is a chain of dependent kernels, so what counts is how long one
 * kernel takes from start to end: each thread does little (a few weights
 * and one pass over the batch), and there are many threads. That fits the
 * MLP presets' batches of 32; for larger batches the kernels make several
 * passes, and dense_backward_update_pays tells the engine to keep
 * dense_backward and optimizer_update there.
 *
 * Device code only: the geometry and the arguments are in
 * kernels/dense-update.h, the launches in ops/dense-update.cc.
 */

#include "kernels/dense-update.h"
#include "kernels/launch.cuh"
#include "kernels/act.cuh"
#include "kernels/below.cuh"
#include "kernels/mma.cuh"
#include "kernels/optimizer.cuh"

#include <stdint.h>

/* The update's learning rate, computed once a block: Adam's bias
 * correction is two expm1f, a square root and a division, which every
 * thread computed where ncu found the tensor-core kernel bound by
 * instructions and spilling registers; once a block, nvcc's count shows no
 * spills.
 * Every thread of the block must call it. */
template <int KIND>
__device__ __forceinline__ float
block_lr (const OptArgs &o, int64_t t)
{
  __shared__ float lr;
  if (threadIdx.x == 0)
    lr = opt_lr<KIND> (o, t);
  __syncthreads ();
  return lr;
}

/* dz of cell (r, j) of the layer's output from its dy, g: the dropout
 * mask, then the activation's derivative at its output y (the narrow
 * kernel; the wide ones read dz formed already). */
__device__ __forceinline__ float
dz_of (const DenseUpdate &d, int64_t step, int r, int j, float g, float y)
{
  if (d.rate > 0.0f)
    g = nn_dropout_keep (d.seed, step, (size_t) r * d.out + j, d.rate) ? g * d.scale : 0.0f;
  return d.act == NN_BK_ACT_LINEAR ? g : act_backward (d.act, y, g);
}

/* Bias j and its state, loaded at a kernel's start by the thread that will
 * update it (`here`), so the load's latency hides behind the sums. */
struct BiasCell
{
  bool here;
  float p, a, b;
};

__device__ __forceinline__ BiasCell
load_bias (const DenseUpdate &d, int slots, bool here, int j)
{
  BiasCell c = { here, 0.0f, 0.0f, 0.0f };
  if (here)
    {
      c.p = d.bias[j];
      c.a = slots >= 1 ? d.b_s0[j] : 0.0f;
      c.b = slots >= 2 ? d.b_s1[j] : 0.0f;
    }
  return c;
}

/* Its update, by that thread, once its block has summed the gradient:
 * `parts` partial sums, added in order. */
template <int KIND>
__device__ __forceinline__ void
update_bias (const DenseUpdate &d, const OptArgs &o, float lr_t, int slots, int j, BiasCell c,
             const float *parts, int part_stride, int nparts)
{
  if (!c.here)
    return;
  float g = 0.0f;
  for (int k = 0; k < nparts; k++)
    g += parts[k * part_stride];
  update_one<KIND> (o, lr_t, g, c.p, c.a, c.b);
  d.bias[j] = c.p;
  if (slots >= 1)
    d.b_s0[j] = c.a;
  if (slots >= 2)
    d.b_s1[j] = c.b;
}

/* Four weights of w at (row, col .. col + 3) and their state, for the wide
 * kernels: as float4 when VEC (the outputs a multiple of 4, w and its first
 * slot 16-byte aligned; the second slot as load_v<V1>), else as single
 * floats; zero outside w. */
template <bool VEC, int V1>
__device__ __forceinline__ void
load_quad (const DenseUpdate &d, int slots, int row, int col, float (&p)[4], float (&a)[4],
           float (&b)[4])
{
  size_t at = (size_t) row * d.out + col;
  if (VEC)
    {
      float4 pv = make_float4 (0.0f, 0.0f, 0.0f, 0.0f), av = pv, bv = pv;
      if (row < d.in && col < d.out)
        {
          pv = *(const float4 *) (d.w + at);
          if (slots >= 1)
            av = *(const float4 *) (d.w_s0 + at);
          if (slots >= 2)
            bv = load_v<V1> (d.w_s1, at / 4);
        }
      p[0] = pv.x, p[1] = pv.y, p[2] = pv.z, p[3] = pv.w;
      a[0] = av.x, a[1] = av.y, a[2] = av.z, a[3] = av.w;
      b[0] = bv.x, b[1] = bv.y, b[2] = bv.z, b[3] = bv.w;
    }
  else
#pragma unroll
    for (int e = 0; e < 4; e++)
      {
        bool in_w = row < d.in && col + e < d.out;
        p[e] = in_w ? d.w[at + e] : 0.0f;
        a[e] = in_w && slots >= 1 ? d.w_s0[at + e] : 0.0f;
        b[e] = in_w && slots >= 2 ? d.w_s1[at + e] : 0.0f;
      }
}

/* The update of those four weights with their gradients g, stored back. */
template <int KIND, bool VEC, int V1>
__device__ __forceinline__ void
update_quad (const DenseUpdate &d, const OptArgs &o, float lr_t, int slots, int row, int col,
             const float (&g)[4], float (&p)[4], float (&a)[4], float (&b)[4])
{
  size_t at = (size_t) row * d.out + col;
#pragma unroll
  for (int e = 0; e < 4; e++)
    update_one<KIND> (o, lr_t, g[e], p[e], a[e], b[e]);
  if (VEC)
    {
      if (row < d.in && col < d.out)
        {
          *(float4 *) (d.w + at) = make_float4 (p[0], p[1], p[2], p[3]);
          if (slots >= 1)
            *(float4 *) (d.w_s0 + at) = make_float4 (a[0], a[1], a[2], a[3]);
          if (slots >= 2)
            store_v<V1> (d.w_s1, at / 4, make_float4 (b[0], b[1], b[2], b[3]));
        }
    }
  else
#pragma unroll
    for (int e = 0; e < 4; e++)
      if (row < d.in && col + e < d.out)
        {
          d.w[at + e] = p[e];
          if (slots >= 1)
            d.w_s0[at + e] = a[e];
          if (slots >= 2)
            d.w_s1[at + e] = b[e];
        }
}

/* ---------------------------------------------------------------- wide */

/* More outputs than DN_OUT, with 32-bit multiply-adds (TF32 not allowed),
 * from dz (in d.dy: formed by the layer above, or by the host first, in one
 * kernel, since every row of tiles here would otherwise form it again,
 * dropout hashes and all: ncu counted 8.7 M instructions for mlp-wide's
 * first layer that way; with dz formed once (and the narrow kernel
 * changed with it) the step went from 73.2 us to 65.4-65.6).
 * Block (bx, by) owns the tile w[16 by .., 64 bx ..]; thread (tr = tid /
 * 16, tc = tid % 16) its input 16 by + tr and outputs 64 bx + 4 tc .. + 3
 * (load_quad). A pass stages 32 batch rows: of dz's 64 columns, column tid
 * % 64 of rows 4 u + tid / 64 a thread, and the x of the 16 inputs. The
 * input gradient (asked for only when n <= DU_KC) is this tile's partial
 * sum over its 64 outputs; the blocks of the first row of tiles sum dz's
 * columns for the bias. */
template <int KIND, bool VEC, int V1>
static __device__ __forceinline__ void
dense_update_wide_body (const DenseUpdate &d, const OptArgs &o)
{
  nn_kernel_enter ();
  __shared__ __align__ (16) float xs[DU_KC][DW_ROWS];
  __shared__ __align__ (16) float dzs[DU_KC][DW_COLS];
  __shared__ float wt[DW_COLS][DW_ROWS + 1]; /* the old tile, transposed */
  __shared__ float bias_part[4][DW_COLS];

  const int tid = threadIdx.x, tc = tid & 15, tr = tid >> 4;
  const int i0 = blockIdx.y * DW_ROWS, j0 = blockIdx.x * DW_COLS;
  const int row = i0 + tr, col0 = j0 + 4 * tc;
  const int64_t t = *(volatile int64_t *) d.step + 1;
  const int slots = opt_slots<KIND> (o);
  const float lr_t = block_lr<KIND> (o, t);

  float p[4], a[4], b[4];
  load_quad<VEC, V1> (d, slots, row, col0, p, a, b);
  const int jb = j0 + tid;
  const BiasCell bias =
    load_bias (d, slots, blockIdx.y == 0 && d.bias != NULL && tid < DW_COLS && jb < d.out, jb);

  const int cs = tid & 63, q0 = tid >> 6; /* the dz cells a thread stages */
  float zs[DU_KC / 4], xv[2];
  auto stage = [&] (int r0) {
#pragma unroll
    for (int u = 0; u < DU_KC / 4; u++)
      {
        int r = r0 + 4 * u + q0, j = j0 + cs;
        zs[u] = r < d.n && j < d.out ? d.dy[(size_t) r * d.out + j] : 0.0f;
      }
#pragma unroll
    for (int v = 0; v < 2; v++)
      {
        int e = tid + 256 * v, r = r0 + e / DW_ROWS, i = i0 + e % DW_ROWS;
        xv[v] = r < d.n && i < d.in ? d.x[(size_t) r * d.in + i] : 0.0f;
      }
  };
  float acc[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
  float bias_sum = 0.0f;
  stage (0);
  for (int r0 = 0; r0 < d.n; r0 += DU_KC)
    {
      if (r0 > 0)
        __syncthreads ();
#pragma unroll
      for (int u = 0; u < DU_KC / 4; u++)
        {
          dzs[4 * u + q0][cs] = zs[u];
          bias_sum += zs[u];
        }
#pragma unroll
      for (int v = 0; v < 2; v++)
        xs[(tid + 256 * v) / DW_ROWS][(tid + 256 * v) % DW_ROWS] = xv[v];
      __syncthreads ();
      if (r0 + DU_KC < d.n)
        stage (r0 + DU_KC);
#pragma unroll 8
      for (int k = 0; k < DU_KC; k++)
        {
          float xk = xs[k][tr];
          float4 zk = *(const float4 *) &dzs[k][4 * tc];
          acc[0] += xk * zk.x;
          acc[1] += xk * zk.y;
          acc[2] += xk * zk.z;
          acc[3] += xk * zk.w;
        }
    }

  if (d.dx != NULL)
    {
#pragma unroll
      for (int c = 0; c < 4; c++)
        wt[4 * tc + c][tr] = p[c];
      __syncthreads ();
      /* input tid % 16 of the tile, batch rows tid / 16 and that + 16 */
      int i = tid & 15, r = tid >> 4;
      float s0 = 0.0f, s1 = 0.0f;
#pragma unroll 4
      for (int c = 0; c < DW_COLS; c += 4)
        {
          float w0 = wt[c][i], w1 = wt[c + 1][i], w2 = wt[c + 2][i], w3 = wt[c + 3][i];
          float4 z0 = *(const float4 *) &dzs[r][c], z1 = *(const float4 *) &dzs[r + 16][c];
          s0 += z0.x * w0 + z0.y * w1 + z0.z * w2 + z0.w * w3;
          s1 += z1.x * w0 + z1.y * w1 + z1.z * w2 + z1.w * w3;
        }
      float *dst = d.dx + (size_t) blockIdx.x * d.n * d.in;
      const int64_t step = *(volatile int64_t *) d.step;
      if (i0 + i < d.in)
        {
          size_t cell = (size_t) r * d.in + i0 + i;
          if (r < d.n)
            dst[cell] = gridDim.x == 1 ? dx_value (d.below, step, cell, s0, below_y (d.below, cell))
                                       : s0;
          cell += (size_t) 16 * d.in;
          if (r + 16 < d.n)
            dst[cell] = gridDim.x == 1 ? dx_value (d.below, step, cell, s1, below_y (d.below, cell))
                                       : s1;
        }
    }

  update_quad<KIND, VEC, V1> (d, o, lr_t, slots, row, col0, acc, p, a, b);

  if (blockIdx.y == 0 && d.bias != NULL)
    {
      bias_part[q0][cs] = bias_sum;
      __syncthreads ();
      update_bias<KIND> (d, o, lr_t, slots, jb, bias, &bias_part[0][tid], DW_COLS, 4);
    }

  if (d.done != NULL)
    advance_step (d.step, t, d.done);
}

/* The wide kernel on tensor cores (TF32 allowed): with 32-bit multiply-adds
 * the kernel above runs about five instructions per weight (32 of the
 * batch's products, the input gradient's, the staging), where the update
 * itself is about one; mma.sync m16n8k8 does 1024 products an instruction.
 * Block (bx, by) owns the tile w[64 by .., 64 bx ..], with 512 threads:
 * the update's square roots and divisions are chains of dependent
 * instructions, and with 256 threads (16 weights each, 12 warps an SM) ncu
 * found the kernel issuing on 43 % of cycles, waiting on them. Its weights
 * and state are read and written as Adam's kernel does, a warp's float4s
 * covering whole 256-byte rows (thread tid: columns 4 (tid % 16) .. + 3 of
 * rows tid / 16 + 32 k, k < 2; when VEC, else single floats): the mma's
 * own layout, 32 bytes of 8 rows an instruction, took twice Adam's time per
 * byte in the step. So the
 * weight gradient goes through shared memory from the accumulators (warp v:
 * rows 16 (v / 4) .., columns 16 (v % 4) .., two m16n8 tiles) to those
 * threads. A pass stages 32 batch rows of x and dz (column tid % 64 of rows
 * 8 u + tid / 64, u < 4, a thread); the input gradient (n <= DU_KC) is the
 * tile's partial sum, DZ (32 x 64) @ W^T (64 x 64), warp v taking rows 16
 * (v / 8) .. and inputs 8 (v % 8) .., from the old weights in shared
 * memory. */
#define DT_PAD 8 /* x and dz rows: 72 floats, so the fragments' loads hit 32 banks */
#define DT_WPAD 4 /* weight rows: 68 floats, 16-byte aligned */

template <int KIND, bool VEC, int V1>
static __device__ __forceinline__ void
dense_update_tc_body (const DenseUpdate &d, const OptArgs &o)
{
#if __CUDA_ARCH__ >= 800 /* mma.sync with TF32: the host launches it on sm_80+ only */
  /* x and dz of a pass, then (once the products are done) the gradient */
  __shared__ __align__ (16) float buf[2 * DU_KC * (DT_TILE + DT_PAD)];
  __shared__ __align__ (16) float ws[DT_TILE][DT_TILE + DT_WPAD]; /* the old tile */
  __shared__ float bias_part[DT_THREADS / DT_TILE][DT_TILE];
  float (*xs)[DT_TILE + DT_PAD] = (float (*)[DT_TILE + DT_PAD]) buf;
  float (*dzs)[DT_TILE + DT_PAD] = (float (*)[DT_TILE + DT_PAD]) (buf + DU_KC * (DT_TILE + DT_PAD));
  float (*gs)[DT_TILE + DT_WPAD] = (float (*)[DT_TILE + DT_WPAD]) buf;
  static_assert (DT_TILE * (DT_TILE + DT_WPAD) <= 2 * DU_KC * (DT_TILE + DT_PAD),
                 "the gradient fits where x and dz were");

  const int tid = threadIdx.x, lane = tid & 31, v = tid >> 5, g = lane >> 2, t4 = lane & 3;
  const int i0 = blockIdx.y * DT_TILE, j0 = blockIdx.x * DT_TILE;
  const int c4 = 4 * (tid & 15), rs = tid >> 4; /* the streaming layout's columns, first row */
  const int slots = opt_slots<KIND> (o);

  const int cs = tid & 63, q0 = tid >> 6; /* the x and dz cells a thread stages */
  constexpr int SU = DU_KC * DT_TILE / DT_THREADS, SQ = DT_THREADS / DT_TILE;
  float zs[SU], xv[SU];
  auto stage_x = [&] (int r0) {
#pragma unroll
    for (int u = 0; u < SU; u++)
      {
        int r = r0 + SQ * u + q0, i = i0 + cs;
        xv[u] = r < d.n && i < d.in ? d.x[(size_t) r * d.in + i] : 0.0f;
      }
  };
  auto stage_dz = [&] (int r0) {
#pragma unroll
    for (int u = 0; u < SU; u++)
      {
        int r = r0 + SQ * u + q0, j = j0 + cs;
        zs[u] = r < d.n && j < d.out ? d.dy[(size_t) r * d.out + j] : 0.0f;
      }
  };

  /* The weights and their state, requested before the kernel before this
   * one has finished where the op before did not write them (weights_early
   * in launch.cuh), and the first pass's x where it did not write that */
  if (!d.early)
    nn_kernel_enter ();
  float p[2][4], a[2][4], b[2][4];
#pragma unroll
  for (int k = 0; k < 2; k++)
    load_quad<VEC, V1> (d, slots, i0 + rs + 32 * k, j0 + c4, p[k], a[k], b[k]);
  const int jb = j0 + tid;
  const BiasCell bias =
    load_bias (d, slots, blockIdx.y == 0 && d.bias != NULL && tid < DT_TILE && jb < d.out, jb);
  if (d.x_early)
    stage_x (0);
  if (d.early)
    nn_kernel_enter ();
  if (!d.x_early)
    stage_x (0);
  const int64_t t = *(volatile int64_t *) d.step + 1;
  const float lr_t = block_lr<KIND> (o, t);

  /* warp v's m16n8 tiles: rows rw and rw + 8, columns cw + 8 nt + {0, 1} */
  const int rw = 16 * (v >> 2) + g, cw = 16 * (v & 3) + 2 * t4;
  float acc[2][4] = {};
  float bias_sum = 0.0f;
  stage_dz (0);
  for (int r0 = 0; r0 < d.n; r0 += DU_KC)
    {
      if (r0 > 0)
        __syncthreads ();
#pragma unroll
      for (int u = 0; u < SU; u++)
        {
          dzs[SQ * u + q0][cs] = zs[u];
          xs[SQ * u + q0][cs] = xv[u];
          bias_sum += zs[u];
        }
      __syncthreads ();
      if (r0 + DU_KC < d.n)
        {
          stage_x (r0 + DU_KC);
          stage_dz (r0 + DU_KC);
        }
#pragma unroll
      for (int ks = 0; ks < DU_KC; ks += 8)
        {
          /* A = x^T (rows i, k), B = dz (k, columns j) */
          unsigned int af[4] = { to_tf32 (xs[ks + t4][rw]), to_tf32 (xs[ks + t4][rw + 8]),
                                 to_tf32 (xs[ks + t4 + 4][rw]),
                                 to_tf32 (xs[ks + t4 + 4][rw + 8]) };
#pragma unroll
          for (int nt = 0; nt < 2; nt++)
            {
              int col = 16 * (v & 3) + 8 * nt + g;
              mma_tf32 (acc[nt], af, to_tf32 (dzs[ks + t4][col]), to_tf32 (dzs[ks + t4 + 4][col]));
            }
        }
    }

  if (d.dx != NULL)
    {
#pragma unroll
      for (int k = 0; k < 2; k++)
        *(float4 *) &ws[rs + 32 * k][c4] = make_float4 (p[k][0], p[k][1], p[k][2], p[k][3]);
      __syncthreads ();
      /* A = dz (rows r, k = columns c), B = W^T (c, inputs i) */
      const int mr = 16 * (v >> 3), ni = 8 * (v & 7);
      float dxa[4] = {};
#pragma unroll
      for (int kc = 0; kc < DT_TILE; kc += 8)
        {
          unsigned int af[4] = { to_tf32 (dzs[mr + g][kc + t4]), to_tf32 (dzs[mr + g + 8][kc + t4]),
                                 to_tf32 (dzs[mr + g][kc + t4 + 4]),
                                 to_tf32 (dzs[mr + g + 8][kc + t4 + 4]) };
          mma_tf32 (dxa, af, to_tf32 (ws[ni + g][kc + t4]), to_tf32 (ws[ni + g][kc + t4 + 4]));
        }
      float *dst = d.dx + (size_t) blockIdx.x * d.n * d.in;
      const int64_t step = *(volatile int64_t *) d.step;
#pragma unroll
      for (int e = 0; e < 4; e++)
        {
          int r = mr + g + 8 * (e >> 1), i = i0 + ni + 2 * t4 + (e & 1);
          size_t cell = (size_t) r * d.in + i;
          if (r < d.n && i < d.in)
            dst[cell] = gridDim.x == 1
                          ? dx_value (d.below, step, cell, dxa[e], below_y (d.below, cell))
                          : dxa[e];
        }
    }

  /* the gradient to the streaming layout, where x and dz were */
  __syncthreads ();
#pragma unroll
  for (int nt = 0; nt < 2; nt++)
    {
      *(float2 *) &gs[rw][cw + 8 * nt] = make_float2 (acc[nt][0], acc[nt][1]);
      *(float2 *) &gs[rw + 8][cw + 8 * nt] = make_float2 (acc[nt][2], acc[nt][3]);
    }
  if (blockIdx.y == 0 && d.bias != NULL)
    bias_part[q0][cs] = bias_sum;
  __syncthreads ();

#pragma unroll
  for (int k = 0; k < 2; k++)
    {
      float4 gv = *(const float4 *) &gs[rs + 32 * k][c4];
      const float g4[4] = { gv.x, gv.y, gv.z, gv.w };
      update_quad<KIND, VEC, V1> (d, o, lr_t, slots, i0 + rs + 32 * k, j0 + c4, g4, p[k], a[k],
                                  b[k]);
    }
  update_bias<KIND> (d, o, lr_t, slots, jb, bias, &bias_part[0][tid], DT_TILE,
                     DT_THREADS / DT_TILE);

  if (d.done != NULL)
    advance_step (d.step, t, d.done);
#endif
}

/* dx (count) = the sum of `tiles` partials (tiles, count), in tile order
 * (or the layer below's dz from it). */
extern "C" __global__ void __launch_bounds__ (256)
dense_update_dx_kernel (const float *__restrict__ partials, float *__restrict__ dx, uint64_t count,
                        int tiles, Below below, const int64_t *__restrict__ step_at)
{
  nn_kernel_enter ();
  const int64_t step = *(volatile const int64_t *) step_at;
  size_t stride = (size_t) gridDim.x * blockDim.x;
  for (size_t e = blockIdx.x * (size_t) blockDim.x + threadIdx.x; e < count; e += stride)
    {
      float s = 0.0f;
      for (int t = 0; t < tiles; t++)
        s += partials[(size_t) t * count + e];
      dx[e] = dx_value (below, step, e, s, below_y (below, e));
    }
}

/* ---------------------------------------------------------------- narrow */

/* A classifier's few outputs (out <= DN_OUT): 64-wide tiles would leave
 * most threads idle, so a block owns DN_INPUTS whole rows of w, and its
 * threads split the batch: thread (g = tid / DN_INPUTS, i) sums row i's
 * gradient over the rows DN_ROWS g .. + DN_ROWS - 1 of each pass and forms
 * those rows' input gradient (whole: the row holds every output) from the
 * old weights. Then thread (g, i) adds the groups' sums of outputs
 * DN_OUT / DN_GROUPS g .. of row i, in group order, and updates them.
 * Everything a thread loads (its x, the layer below's y) is loaded at the
 * start: the step is a chain of kernels, and this one's length is its
 * threads' longest chain of dependent loads and arithmetic (mlp-wide's
 * 1000 x 10 layer took 8.3 us under ncu with 64 rows of w a block, eight
 * batch rows and four updates a thread, and the layer below's y loaded
 * where dx is stored). Block 0 also sums dz's columns for the bias. */
template <int KIND>
static __device__ __forceinline__ void
dense_update_narrow_body (const DenseUpdate &d, const OptArgs &o)
{
  __shared__ __align__ (16) float dzs[DU_KC][DN_OUT];
  __shared__ float sums[DN_GROUPS][DN_OUT][DN_INPUTS + 1];
  __shared__ float bias_part[DN_THREADS / DN_OUT][DN_OUT];

  const int tid = threadIdx.x, li = tid % DN_INPUTS, g = tid / DN_INPUTS;
  const int i = blockIdx.x * DN_INPUTS + li;
  const bool row_here = i < d.in;
  const int slots = opt_slots<KIND> (o);
  if (!d.early)
    nn_kernel_enter ();
  const size_t at = (size_t) i * d.out;

  float p[DN_OUT], acc[DN_OUT];
#pragma unroll
  for (int c = 0; c < DN_OUT; c++)
    {
      p[c] = row_here && c < d.out ? d.w[at + c] : 0.0f;
      acc[c] = 0.0f;
    }
  /* the outputs this thread updates */
  float pu[DN_UPDATES], a[DN_UPDATES], b[DN_UPDATES];
#pragma unroll
  for (int k = 0; k < DN_UPDATES; k++)
    {
      int c = DN_UPDATES * g + k;
      bool in_w = row_here && c < d.out;
      pu[k] = in_w ? d.w[at + c] : 0.0f;
      a[k] = in_w && slots >= 1 ? d.w_s0[at + c] : 0.0f;
      b[k] = in_w && slots >= 2 ? d.w_s1[at + c] : 0.0f;
    }
  const int bc = tid % DN_OUT, bg = tid / DN_OUT; /* the bias sum's column and group */
  const BiasCell bias = load_bias (d, slots, blockIdx.x == 0 && d.bias != NULL && tid < d.out, tid);
  /* x and the layer below's y of this thread's rows of a pass */
  float xs[DN_ROWS], yb[DN_ROWS];
  auto load_rows = [&] (int r0) {
    const int rg = r0 + DN_ROWS * g;
#pragma unroll
    for (int r = 0; r < DN_ROWS; r++)
      {
        size_t cell = (size_t) (rg + r) * d.in + i;
        bool here = row_here && rg + r < d.n;
        xs[r] = here ? d.x[cell] : 0.0f;
        yb[r] = here && d.dx != NULL ? below_y (d.below, cell) : 0.0f;
      }
  };
  /* the loads above go out before the kernel before this one has finished
   * where the op before did not write w (weights_early in launch.cuh), and
   * the first pass's rows where it did not write those */
  if (d.x_early)
    load_rows (0);
  if (d.early)
    nn_kernel_enter ();
  const int64_t step = *(volatile int64_t *) d.step;
  const int64_t t = step + 1;
  const float lr_t = block_lr<KIND> (o, t);
  float bias_sum = 0.0f;

  for (int r0 = 0; r0 < d.n; r0 += DU_KC)
    {
      const int rg = r0 + DN_ROWS * g; /* this thread's first row */
      if (r0 > 0 || !d.x_early)
        load_rows (r0);
      if (r0 > 0)
        __syncthreads ();
#pragma unroll
      for (int e = tid; e < DU_KC * DN_OUT; e += DN_THREADS)
        {
          int r = r0 + e / DN_OUT, c = e % DN_OUT;
          float dz = 0.0f;
          if (r < d.n && c < d.out)
            {
              size_t cell = (size_t) r * d.out + c;
              dz = dz_of (d, step, r, c, d.dy[cell],
                          d.act != NN_BK_ACT_LINEAR ? d.y[cell] : 0.0f);
            }
          dzs[e / DN_OUT][c] = dz;
        }
      __syncthreads ();
      constexpr int BIAS_ROWS = DU_KC * DN_OUT / DN_THREADS; /* per group of the bias sum */
      if (blockIdx.x == 0)
#pragma unroll
        for (int r = bg * BIAS_ROWS; r < (bg + 1) * BIAS_ROWS; r++)
          bias_sum += dzs[r][bc];
#pragma unroll
      for (int r = 0; r < DN_ROWS; r++)
        {
          const float4 *z4 = (const float4 *) dzs[DN_ROWS * g + r];
          float dxr = 0.0f;
#pragma unroll
          for (int c4 = 0; c4 < DN_OUT / 4; c4++)
            {
              float4 z = z4[c4];
              float zc[4] = { z.x, z.y, z.z, z.w };
#pragma unroll
              for (int k = 0; k < 4; k++)
                {
                  acc[4 * c4 + k] += xs[r] * zc[k];
                  dxr += zc[k] * p[4 * c4 + k];
                }
            }
          if (d.dx != NULL && row_here && rg + r < d.n)
            {
              size_t cell = (size_t) (rg + r) * d.in + i;
              d.dx[cell] = dx_value (d.below, step, cell, dxr, yb[r]);
            }
        }
    }

  /* the groups' sums, added in group order */
#pragma unroll
  for (int c = 0; c < DN_OUT; c++)
    sums[g][c][li] = acc[c];
  if (blockIdx.x == 0 && d.bias != NULL)
    bias_part[bg][bc] = bias_sum;
  __syncthreads ();
  if (row_here)
#pragma unroll
    for (int k = 0; k < DN_UPDATES; k++)
      {
        int c = DN_UPDATES * g + k;
        if (c < d.out)
          {
            float grad = 0.0f;
#pragma unroll
            for (int q = 0; q < DN_GROUPS; q++)
              grad += sums[q][c][li];
            update_one<KIND> (o, lr_t, grad, pu[k], a[k], b[k]);
            d.w[at + c] = pu[k];
            if (slots >= 1)
              d.w_s0[at + c] = a[k];
            if (slots >= 2)
              d.w_s1[at + c] = b[k];
          }
      }
  update_bias<KIND> (d, o, lr_t, slots, tid, bias, &bias_part[0][tid], DN_OUT,
                     DN_THREADS / DN_OUT);

  if (d.done != NULL)
    advance_step (d.step, t, d.done);
}

/* ---------------------------------------------------------------- instances */

/* The kernels the host launches (ops/dense-update.cc, launch_kind): for
 * each optimizer (KIND, its NN_BK_OPT_* value), the narrow kernel, and each
 * wide kernel with VEC 0 (V1 1) or VEC 1 and V1 4, 2 or 1. */
static_assert (NN_BK_OPT_SGD == 0 && NN_BK_OPT_ADAM == 1 && NN_BK_OPT_ADADELTA == 2
                 && NN_BK_OPT_RMSPROP == 3 && NN_BK_OPT_ADAGRAD == 4,
               "the kernels' names carry the optimizers' values");

#define DENSE_UPDATE_WIDE_KERNELS(KIND, VEC, V1)                                                   \
  extern "C" __global__ void __launch_bounds__ (256)                                               \
  NN_KERNEL_NAME3 (dense_update_wide_kernel, KIND, VEC, V1) (DenseUpdate d, OptArgs o)             \
  {                                                                                                \
    dense_update_wide_body<KIND, VEC != 0, V1> (d, o);                                             \
  }                                                                                                \
  extern "C" __global__ void __launch_bounds__ (DT_THREADS, 2)                                     \
  NN_KERNEL_NAME3 (dense_update_tc_kernel, KIND, VEC, V1) (DenseUpdate d, OptArgs o)               \
  {                                                                                                \
    dense_update_tc_body<KIND, VEC != 0, V1> (d, o);                                               \
  }

#define DENSE_UPDATE_KERNELS(KIND)                                                                 \
  extern "C" __global__ void __launch_bounds__ (DN_THREADS)                                        \
  NN_KERNEL_NAME1 (dense_update_narrow_kernel, KIND) (DenseUpdate d, OptArgs o)                    \
  {                                                                                                \
    dense_update_narrow_body<KIND> (d, o);                                                         \
  }                                                                                                \
  DENSE_UPDATE_WIDE_KERNELS (KIND, 0, 1)                                                           \
  DENSE_UPDATE_WIDE_KERNELS (KIND, 1, 4)                                                           \
  DENSE_UPDATE_WIDE_KERNELS (KIND, 1, 2)                                                           \
  DENSE_UPDATE_WIDE_KERNELS (KIND, 1, 1)

DENSE_UPDATE_KERNELS (0)
DENSE_UPDATE_KERNELS (1)
DENSE_UPDATE_KERNELS (2)
DENSE_UPDATE_KERNELS (3)
DENSE_UPDATE_KERNELS (4)
