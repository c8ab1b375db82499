/* SPDX-License-Identifier: GPL-3.0-or-later */
/* conv-igemm.cu: stride-1 convolutions as implicit GEMMs on TF32 tensor
 * cores (mma.sync m16n8k8), NCHW, used when TF32 is allowed on sm_80+.
 *
 * cuDNN 9.14 on the H200 spends 127 + 165 + 212 us on the forward, data
 * gradient and weight gradient of the cnn preset's second layer (32 -> 64
 * channels, 3x3, 26x26, batch 256: 5.4 GFLOP each), most of the cnn's
 * step through cuDNN on the H200; with these kernels the step took about
 * three quarters of cuDNN's time.
 *
 * The reduction runs tap by tap, 8 input channels at a time. For one tap
 * (ky, kx) the operand "8 channels x 8 pixels" is a block of the input tile
 * held in shared memory, shifted by the tap, so the input is read from
 * global memory once per block and never expanded (im2col would write and
 * read 9 copies). The tile keeps the 8 channels of a pixel together, so
 * ldmatrix can fetch four 8x4 fragment blocks at any shift in one
 * instruction.
 *
 *   forward      y (k, pixels)  = sum over taps of w[tap] (k, c) @ x shifted by tap (c, pixels)
 *   data grad    the same kernel: dy convolved with the flipped, transposed
 *                filters and padding r - 1 - pad, which is dx for stride 1
 *   weight grad  dw (k, c, tap) = dy (k, pixels) @ x shifted by tap (pixels, c), the pixel
 *                reduction split over blocks; each writes its partial sums
 *                (on sm_90 a cluster of eight adds theirs first) and a
 *                second kernel adds them in a fixed order, so results are
 *                deterministic
 *
 * The data gradient can also be the output gradient of a convolution below
 * whose own input needs none (conv2d_backward_below): it then forms that
 * layer's dz and weight gradient where its accumulators are (below_tile)
 * and stores nothing else, so the 22 MB of the cnn's first layer are never
 * written and read back, which saves about a fifth of the two kernels'
 * time (ncu).
 *
 * The forward can also pool its own output (conv2d_forward_pool) where each
 * thread's fragments hold whole 2 x 2 windows: a warp's 48 pixels are two
 * rows of 24 (the cnn's second layer) or six of 8. It then stores only each
 * window's maximum, where it is, and the dropout above, never the
 * convolution's output, which the pooling kernel would read back (37.7 MB
 * on the cnn), less than the convolution and the pooling kernel took
 * apart (ncu, warm caches). Staging the outputs in shared memory, to pool
 * any tile of whole rows of windows, cost more instructions than the
 * pooling kernel it saved.
 *
 * Each kernel fetches its next tile (cp.async) while its tensor cores work
 * on the current one. Weights and dy are rounded to TF32 (nearest); x is
 * truncated (see load_input_tile_async). Shared-memory strides make the 32
 * lanes of a fragment load hit 32 different banks (8 or 4 modulo 32 against
 * the fragment's lane layout) and are compile-time constants where they can
 * be, so the innermost loop is loads with immediate offsets and mma.
 */

#include "kernels/conv-igemm.h"
#include "kernels/launch.cuh"
#include "kernels/act.cuh"
#include "kernels/mma.cuh"
#include "kernels/copy-async.cuh"
#include "kernels/pool-max.cuh"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

/* Four 8x4 blocks of 32-bit values from shared memory (see the forward kernel). */
__device__ __forceinline__ void
ldmatrix_x4 (unsigned int d[4], unsigned int addr)
{
  asm volatile ("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                : "r"(addr));
}

/* Zeros `count` floats of shared memory (the block's threads together). */
__device__ __forceinline__ void
zero_shared (float *p, int count)
{
  for (int i = threadIdx.x; i < count; i += TC_THREADS)
    p[i] = 0.0f;
}

/* Channels [c0, c0 + COUNT) of image img, rows from `row0` (input row
 * coordinates, may be negative) into a tile of (tile_rows * sw) cells of CS
 * floats, channel fastest. Column j of the tile is input column j - pad_w.
 * Asynchronous 4-byte copies, so a kernel can fetch its next tile while it
 * works on this one. A warp instruction copies KL channels x 32 / KL
 * columns: for (8 channels, CS 12) KL = 4, for (32 channels, CS 40) KL = 8
 * put those 32 words in 32 different banks. The copies cannot round, so x
 * reaches the tensor core as raw bits, truncated to TF32 (on average 2^-11
 * relative low; the other operand is rounded).
 *
 * Only cells inside the tensor are copied, each with a plain copy and no
 * bounds test: the columns of padding are the same in every tile of a
 * block, so the kernel zeros its tiles once before the first fetch
 * (zero_shared), and rows outside the image or channels past ci (which vary
 * from tile to tile) are zeroed here with plain stores. Copying every cell
 * with cp.async's zero fill cost about 20 instructions a copy for the bounds
 * and the 64-bit addresses (ncu's instruction counts: the loads were half of
 * the forward kernel's instructions, the mma a tenth). */
template <int COUNT, int CS, int KL>
__device__ __forceinline__ void
load_input_tile_async (const TcGeom &g, const float *__restrict__ x, int img, int c0, int row0,
                       float *tile)
{
  const int GROUPS = COUNT / KL, STEP = 32 / KL;
  int lane = threadIdx.x & 31;
  int k = lane % KL, col0 = lane / KL;
  int cols = min (g.iw, g.sw - g.pad_w); /* input columns the tile holds */
  const float *image = x + (size_t) img * g.ci * g.ih * g.iw;
  for (int rq = threadIdx.x >> 5; rq < g.tile_rows * GROUPS; rq += TC_THREADS / 32)
    {
      int row = rq / GROUPS, ch = c0 + (rq % GROUPS) * KL + k;
      int iy = row0 + row;
      float *dst = tile + row * g.pitch + (rq % GROUPS) * KL + k;
      if ((unsigned) iy < (unsigned) g.ih && ch < g.ci)
        {
          const float *src = image + ((size_t) ch * g.ih + iy) * g.iw;
          dst += g.pad_w * CS;
          for (int ix = col0; ix < cols; ix += STEP)
            copy_async_in (dst + ix * CS, src + ix);
        }
      else
        for (int col = col0; col < g.sw; col += STEP)
          dst[col * CS] = 0.0f;
    }
}

/* ---------------------------------------------------------------- forward and data gradient */


/* Where a thread's accumulators lie in the forward kernel's block tile:
 * warp (wm, wn) holds 32 channels x TC_NT * 8 pixels, and a fragment's
 * lane (gid, tig) channel rows gid and gid + 8, pixels 2 tig and 2 tig + 1
 * of each n8 tile. */
template <int BM>
struct FwdLane
{
  int gid, tig, wm, wn;
  __device__ __forceinline__ FwdLane ()
  {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    gid = lane >> 2, tig = lane & 3;
    wm = warp / FwdTile<BM>::WARPS_N, wn = warp % FwdTile<BM>::WARPS_N;
  }
  /* the block's channel row of acc[i][j][2 half] and [2 half + 1] */
  __device__ __forceinline__ int row (int i, int half) const
  {
    return wm * 32 + i * 16 + half * 8 + gid;
  }
  /* the block's pixel of acc[i][j][0] and [2] (the next pixel: [1] and [3]) */
  __device__ __forceinline__ int pixel (int j) const { return wn * TC_NT * 8 + j * 8 + 2 * tig; }
};

/* Calls f (i, half, m, b) for each channel row m of this thread's
 * accumulators (acc[i][j][2 half] and [2 half + 1] of every n8 tile j) that
 * lies inside the output, with b its bias. */
template <int BM, typename F>
__device__ __forceinline__ void
each_channel_row (const TcGeom &g, const FwdLane<BM> &l, int m0, const float *__restrict__ bias,
                  F f)
{
#pragma unroll
  for (int i = 0; i < 2; i++)
#pragma unroll
    for (int half = 0; half < 2; half++)
      {
        int m = m0 + l.row (i, half);
        if (m < g.co)
          f (i, half, m, bias != NULL ? bias[m] : 0.0f);
      }
}

/* The forward's epilogue: bias, activation and the store of y, straight
 * from the fragments. c0/c1: channel row gid, pixels 2 tig and 2 tig + 1;
 * c2/c3: row gid + 8. */
template <int BM>
__device__ __forceinline__ void
store_tile (const TcGeom &g, const float (&acc)[2][TC_NT][4], const float *__restrict__ bias,
            int act, int img, int m0, int p0, float *__restrict__ y)
{
  const FwdLane<BM> l;
  const int pixels = g.oh * g.ow;
  each_channel_row (g, l, m0, bias, [&] (int i, int half, int m, float b) {
    float *row = y + ((size_t) img * g.co + m) * pixels;
#pragma unroll
    for (int j = 0; j < TC_NT; j++)
      {
        int p = p0 + l.pixel (j);
        if (p >= p0 + g.tile_pixels)
          continue;
        float v0 = act_forward (act, acc[i][j][2 * half] + b);
        float v1 = act_forward (act, acc[i][j][2 * half + 1] + b);
        if (p + 1 < pixels && p + 1 < p0 + g.tile_pixels && (pixels & 1) == 0)
          *(float2 *) (row + p) = make_float2 (v0, v1);
        else
          {
            if (p < pixels)
              row[p] = v0;
            if (p + 1 < pixels && p + 1 < p0 + g.tile_pixels)
              row[p + 1] = v1;
          }
      }
  });
}

/* The pooling forward's epilogue, where RT n8 tiles make an output row
 * (ow = 8 RT) and a warp's TC_NT tiles whole pairs of rows: the window of
 * tile j's pixels 2 tig and 2 tig + 1 and of the same pixels of tile j + RT
 * below them is all in this thread's accumulators. Bias and activation as
 * store_tile applies them; then the window's first maximum in row order,
 * as pool_forward_argmax_kernel takes it from y. */
template <int BM, int RT>
__device__ __forceinline__ void
pool_tile (const TcGeom &g, const TcPool &pool, const float (&acc)[2][TC_NT][4],
           const float *__restrict__ bias, int act, int img, int m0, int p0)
{
  const FwdLane<BM> l;
  const int oy = (p0 + l.wn * TC_NT * 8) / g.ow; /* the warp's first row, even */
  const int64_t step = drop_step (pool.drop);
  each_channel_row (g, l, m0, bias, [&] (int i, int half, int m, float b) {
    size_t plane = ((size_t) img * g.co + m) * pool.out_h;
#pragma unroll
    for (int pair = 0; pair < TC_NT / (2 * RT); pair++)
      {
        if (oy + 2 * pair >= g.oh)
          break;
#pragma unroll
        for (int t = 0; t < RT; t++)
          {
            const float *top = acc[i][pair * 2 * RT + t], *low = acc[i][pair * 2 * RT + t + RT];
            int at;
            float v = max_2x2 (act_forward (act, top[2 * half] + b),
                               act_forward (act, top[2 * half + 1] + b),
                               act_forward (act, low[2 * half] + b),
                               act_forward (act, low[2 * half + 1] + b), &at);
            size_t o = (plane + oy / 2 + pair) * pool.out_w + 4 * t + l.tig;
            store_max (pool.drop, step, o, v, at, pool.y, pool.drop_y, pool.argmax);
          }
      }
  });
}

/* The input of the layer below for the block's output rows, every channel,
 * into `tile` (c, rows, cols): row 0 is input row oy_first * stride_h -
 * pad_h, column 0 input column -pad_w, zeros outside the input. Plain
 * loads: the kernel's first barrier orders them before any use. */
__device__ __forceinline__ void
load_below_tile (const TcBelow &b, int img, int oy_first, float *tile)
{
  const int plane = b.rows * b.cols;
  const float *image = b.x + (size_t) img * b.c * b.h * b.w;
  for (int e = threadIdx.x; e < b.c * plane; e += TC_THREADS)
    {
      int ch = e / plane, rest = e - ch * plane;
      int iy = oy_first * b.stride_h - b.pad_h + rest / b.cols, ix = rest % b.cols - b.pad_w;
      tile[e] = (unsigned) iy < (unsigned) b.h && (unsigned) ix < (unsigned) b.w
                    ? image[((size_t) ch * b.h + iy) * b.w + ix]
                    : 0.0f;
    }
}

/* The data gradient's epilogue when it is the output gradient of the layer
 * below (TcBelow): that layer's dz = act' (y) * the accumulators, then its
 * weight gradient over the block's pixels, dw (filter, tap) = sum over
 * pixels of dz (filter, pixel) * x (pixel's patch at tap), as an mma with
 * the pixels as the reduction: a thread's accumulators of tile j, rows gid
 * and gid + 8 at pixels 2 tig and 2 tig + 1, are an A fragment once the
 * pixels are taken in the order 2 t -> k = t, 2 t + 1 -> k = t + 4, and B
 * is then x at the thread's own two pixels and tap gid. Tap 8 and the bias
 * are summed in FP32. The block's sums go to b.partials, slice blockIdx.x,
 * in a fixed order; sums: shared memory for WARPS_N * BM * TC_BELOW_SUMS.
 * ACT is the activation (a constant: this runs in the kernel's tail, where
 * every instruction counts). */
template <int BM, int ACT>
__device__ __forceinline__ void
below_tile (const TcGeom &g, const TcBelow &b, const float (&acc)[2][TC_NT][4], int img, int m0,
            int p0, const float *tile, float *sums)
{
  const FwdLane<BM> l;
  const int pixels = g.oh * g.ow, oy_first = p0 / g.ow;
  const int end = min (pixels, p0 + g.tile_pixels); /* the block's pixels end here */
  const int rs = b.r * b.s, row_step = b.stride_h * b.cols;
  /* the tile offsets of taps gid and 8 from a pixel's patch corner */
  int at[2];
  bool tap_in[2];
#pragma unroll
  for (int t = 0; t < 2; t++)
    {
      int q = t == 0 ? l.gid : 8;
      tap_in[t] = q < b.taps;
      at[t] = tap_in[t] ? (q / rs * b.rows + q % rs / b.s) * b.cols + q % b.s : 0;
    }
  /* the thread's four filter rows of y */
  const float *yrow[2][2];
  bool live[2][2];
#pragma unroll
  for (int i = 0; i < 2; i++)
#pragma unroll
    for (int half = 0; half < 2; half++)
      {
        int m = m0 + l.row (i, half);
        live[i][half] = m < g.co;
        yrow[i][half] = b.y + ((size_t) img * g.co + (live[i][half] ? m : 0)) * pixels;
      }
  /* the thread's first pixel (even: tiles and tig steps are even), then 8
   * on a tile; its row and column kept as it goes, not divided out */
  int p = p0 + l.pixel (0);
  int oy = p / g.ow, ox = p - oy * g.ow;
  const bool pairs = (pixels & 1) == 0;
  float wsum[2][4] = {}, tap8[2][2] = {}, bsum[2][2] = {};
  /* TC_BELOW_BATCH tiles at a time: first all their loads, so that they wait on
   * memory together, then their sums. A tile at a time, the loads of y
   * waited one tile after another at the end of every block, 15 % slower
   * (ncu); all six tiles at once spill registers. */
#pragma unroll
  for (int j0 = 0; j0 < TC_NT; j0 += TC_BELOW_BATCH)
    {
      float2 yv[TC_BELOW_BATCH][2][2];
      float xg[TC_BELOW_BATCH][2], x8[TC_BELOW_BATCH][2];
      bool in[TC_BELOW_BATCH][2];
#pragma unroll
      for (int jj = 0; jj < TC_BELOW_BATCH; jj++)
        {
          in[jj][0] = p < end, in[jj][1] = p + 1 < end;
          int corner0 = (oy - oy_first) * row_step + ox * b.stride_w;
          int corner1 = ox + 1 < g.ow ? corner0 + b.stride_w : (oy + 1 - oy_first) * row_step;
          xg[jj][0] = in[jj][0] && tap_in[0] ? tile[corner0 + at[0]] : 0.0f;
          xg[jj][1] = in[jj][1] && tap_in[0] ? tile[corner1 + at[0]] : 0.0f;
          x8[jj][0] = in[jj][0] && tap_in[1] ? tile[corner0 + at[1]] : 0.0f;
          x8[jj][1] = in[jj][1] && tap_in[1] ? tile[corner1 + at[1]] : 0.0f;
#pragma unroll
          for (int i = 0; i < 2; i++)
#pragma unroll
            for (int half = 0; half < 2; half++)
              {
                float2 v = make_float2 (0.0f, 0.0f);
                if (live[i][half] && in[jj][1] && pairs)
                  v = *(const float2 *) (yrow[i][half] + p);
                else if (live[i][half])
                  {
                    v.x = in[jj][0] ? yrow[i][half][p] : 0.0f;
                    v.y = in[jj][1] ? yrow[i][half][p + 1] : 0.0f;
                  }
                yv[jj][i][half] = v;
              }
          p += 8;
          ox += 8;
          while (ox >= g.ow)
            {
              ox -= g.ow;
              oy++;
            }
        }
#pragma unroll
      for (int jj = 0; jj < TC_BELOW_BATCH; jj++)
#pragma unroll
        for (int i = 0; i < 2; i++)
          {
            const int j = j0 + jj;
            float dz[4];
#pragma unroll
            for (int half = 0; half < 2; half++)
              {
                /* rows past the filters and pixels past the block: 0 */
                float d0 = live[i][half] && in[jj][0] ? acc[i][j][2 * half] : 0.0f;
                float d1 = live[i][half] && in[jj][1] ? acc[i][j][2 * half + 1] : 0.0f;
                dz[2 * half] = act_backward (ACT, yv[jj][i][half].x, d0);
                dz[2 * half + 1] = act_backward (ACT, yv[jj][i][half].y, d1);
                tap8[i][half] += dz[2 * half] * x8[jj][0] + dz[2 * half + 1] * x8[jj][1];
                bsum[i][half] += dz[2 * half] + dz[2 * half + 1];
              }
            const unsigned int a[4]
                = { to_tf32 (dz[0]), to_tf32 (dz[2]), to_tf32 (dz[1]), to_tf32 (dz[3]) };
            __syncwarp (); /* the loads may have diverged; the mma takes the whole warp */
            mma_tf32 (wsum[i], a, to_tf32 (xg[jj][0]), to_tf32 (xg[jj][1]));
          }
    }

  /* each warp's sums per filter row: the mma's taps 2 tig and 2 tig + 1 as
   * they lie, tap 8 and the bias added over the row's four lanes */
#pragma unroll
  for (int i = 0; i < 2; i++)
#pragma unroll
    for (int half = 0; half < 2; half++)
      {
        float t8 = tap8[i][half], bs = bsum[i][half];
#pragma unroll
        for (int off = 1; off < 4; off <<= 1)
          {
            t8 += __shfl_xor_sync (0xffffffffu, t8, off);
            bs += __shfl_xor_sync (0xffffffffu, bs, off);
          }
        int row = l.row (i, half);
        float *at_row = sums + ((size_t) l.wn * BM + row) * TC_BELOW_SUMS;
        at_row[2 * l.tig] = wsum[i][2 * half];
        at_row[2 * l.tig + 1] = wsum[i][2 * half + 1];
        if (l.tig == 0)
          {
            at_row[8] = t8;
            at_row[TC_BELOW_SUMS - 1] = bs;
          }
      }
  __syncthreads ();
  /* the warps' sums in order of wn; column taps is the bias */
  const int width = b.taps + 1, slices = gridDim.x;
  for (int e = threadIdx.x; e < BM * width; e += TC_THREADS)
    {
      int row = e / width, q = e - row * width;
      int col = q < b.taps ? q : TC_BELOW_SUMS - 1;
      if (m0 + row >= g.co)
        continue;
      float total = 0.0f;
      for (int wn = 0; wn < FwdTile<BM>::WARPS_N; wn++)
        total += sums[((size_t) wn * BM + row) * TC_BELOW_SUMS + col];
      b.partials[((size_t) (m0 + row) * slices + blockIdx.x) * width + q] = total;
    }
}

/* POOL_RT: 0, or the n8 tiles of an output row when the kernel pools its
 * output (pool_tile). BELOW: the output is the output gradient of the
 * layer below, which takes its weight gradient from it (below_tile). */
template <int BM, bool K3, int POOL_RT, bool BELOW>
static __device__ __forceinline__ void
conv_tc_forward_kernel_body (TcGeom g, const float *__restrict__ x, const float *__restrict__ wpack,
                             const float *__restrict__ bias, int act, float *__restrict__ y,
                             TcPool pool, TcBelow below)
{
  nn_kernel_enter ();
#if __CUDA_ARCH__ >= 800
  typedef FwdTile<BM> T;
  extern __shared__ __align__ (16) float smem[];
  const int taps = K3 ? 9 : g.r * g.s;
  /* Two stages, each an input tile (tile_rows * sw, FWD_CS): cells of 8
   * channels, then the slice's weights (taps, BM, FWD_CS): filter rows of 8
   * channels. One is filled while the other is used. */
  const int stage = g.plane + taps * BM * FWD_CS;
  float *xs = smem;
  float *ws = smem + g.plane;

  int img = blockIdx.x / g.tiles, tile = blockIdx.x - img * g.tiles;
  int m0 = blockIdx.y * BM;
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int wm = warp / T::WARPS_N, wn = warp % T::WARPS_N;
  int pixels = g.oh * g.ow;
  int p0 = tile * g.tile_pixels;
  int oy_first = p0 / g.ow;

  /* ldmatrix.x4 gives a lane one 32-bit value of each of four 8x4 blocks
   * whose rows are addressed by lanes 8q .. 8q + 7: for A the blocks are
   * (rows 0-7 | 8-15) x (channels 0-3 | 4-7) of a 16-filter tile, for B
   * (channels 0-3 | 4-7) x (pixels of tile j | j + 1), which is exactly the
   * mma's fragment layout. The row this lane addresses: */
  int q = lane >> 3, r = lane & 7;
  unsigned int ws_lane = (unsigned int) __cvta_generic_to_shared (ws)
                         + ((wm * 32 + (q & 1) * 8 + r) * FWD_CS + (q >> 1) * 4) * 4;
  unsigned int xs_lane[TC_NT / 2];
#pragma unroll
  for (int jp = 0; jp < TC_NT / 2; jp++)
    {
      int p = p0 + wn * TC_NT * 8 + (2 * jp + (q >> 1)) * 8 + r;
      p = p < pixels ? p : p0;
      int oy = p / g.ow;
      xs_lane[jp] = (unsigned int) __cvta_generic_to_shared (xs)
                    + ((oy - oy_first) * g.pitch + (p - oy * g.ow) * FWD_CS + (q & 1) * 4) * 4;
    }

  float acc[2][TC_NT][4];
#pragma unroll
  for (int i = 0; i < 2; i++)
#pragma unroll
    for (int j = 0; j < TC_NT; j++)
#pragma unroll
      for (int k = 0; k < 4; k++)
        acc[i][j][k] = 0.0f;

  /* Queue slice c0's input tile and weights into stage `st`. */
  auto fetch = [&] (int c0, int st) {
    load_input_tile_async<TC_CHUNK, FWD_CS, 4> (g, x, img, c0, oy_first - g.pad_h, xs + st * stage);
    const float *src = wpack + ((size_t) (c0 / TC_CHUNK) * taps * g.co_pad + m0) * TC_CHUNK;
    for (int e = threadIdx.x; e < taps * BM * 2; e += TC_THREADS)
      {
        int row = e >> 1, half = e & 1;
        int tap = row / BM, m = row % BM;
        copy_async16 (ws + st * stage + row * FWD_CS + half * 4,
                      src + ((size_t) tap * g.co_pad + m) * TC_CHUNK + half * 4);
      }
    copy_async_commit ();
  };

  zero_shared (xs, g.plane);
  zero_shared (xs + stage, g.plane);
  if constexpr (BELOW)
    load_below_tile (below, img, oy_first, smem + 2 * stage);
  __syncthreads (); /* the zeros are in before any copy lands */
  fetch (0, 0);
  for (int c0 = 0, st = 0; c0 < g.ci; c0 += TC_CHUNK, st ^= 1)
    {
      if (c0 + TC_CHUNK < g.ci)
        {
          fetch (c0 + TC_CHUNK, st ^ 1); /* the stage the previous slice used */
          copy_async_wait_pending<1> ();
        }
      else
        copy_async_wait_pending<0> ();
      __syncthreads (); /* slice c0 has arrived for every thread */
      unsigned int stage_bytes = st * stage * 4;

      /* One tap: its weights' fragments and the input's at the tap's shift. */
      auto tap_mma = [&] (int tap, unsigned int shift) {
        unsigned int a[2][4];
        unsigned int wt = ws_lane + stage_bytes + tap * BM * FWD_CS * 4;
        ldmatrix_x4 (a[0], wt);
        ldmatrix_x4 (a[1], wt + 16 * FWD_CS * 4);
#pragma unroll
        for (int jp = 0; jp < TC_NT / 2; jp++)
          {
            unsigned int b[4];
            ldmatrix_x4 (b, xs_lane[jp] + shift);
            mma_tf32 (acc[0][2 * jp], a[0], b[0], b[1]);
            mma_tf32 (acc[1][2 * jp], a[1], b[0], b[1]);
            mma_tf32 (acc[0][2 * jp + 1], a[0], b[2], b[3]);
            mma_tf32 (acc[1][2 * jp + 1], a[1], b[2], b[3]);
          }
      };
      if (K3)
      /* a 3 x 3 filter: the shifts are a row stride times a constant plus
       * a constant, immediate offsets of the loads (see the weight
       * gradient) */
#pragma unroll
        for (int tap = 0; tap < 9; tap++)
          tap_mma (tap, stage_bytes + (tap / 3) * g.pitch * 4 + (tap % 3) * FWD_CS * 4);
      else
        for (int tap = 0, ky = 0, kx = 0; tap < taps; tap++)
          {
            tap_mma (tap, stage_bytes + (ky * g.pitch + kx * FWD_CS) * 4);
            if (++kx == g.s)
              {
                kx = 0;
                ky++;
              }
          }
      __syncthreads (); /* stage st is read: the next fetch may refill it */
    }

  if constexpr (BELOW)
    {
      /* the stages are read (the loop's last barrier): the warps' sums go there */
      float *tile = smem + 2 * stage;
      switch (below.act)
        {
        case NN_BK_ACT_RELU:
          below_tile<BM, NN_BK_ACT_RELU> (g, below, acc, img, m0, p0, tile, smem);
          break;
        case NN_BK_ACT_SIGMOID:
          below_tile<BM, NN_BK_ACT_SIGMOID> (g, below, acc, img, m0, p0, tile, smem);
          break;
        case NN_BK_ACT_TANH:
          below_tile<BM, NN_BK_ACT_TANH> (g, below, acc, img, m0, p0, tile, smem);
          break;
        default:
          below_tile<BM, NN_BK_ACT_LINEAR> (g, below, acc, img, m0, p0, tile, smem);
        }
    }
  else if constexpr (POOL_RT > 0)
    pool_tile<BM, POOL_RT> (g, pool, acc, bias, act, img, m0, p0);
  else
    store_tile<BM> (g, acc, bias, act, img, m0, p0, y);
#endif
}

/* conv_tc_forward_kernel_BM_K3_POOL_RT_BELOW (K3, BELOW: 0 or 1). */
#define CONV_TC_FORWARD(BM, K3, POOL_RT, BELOW)                                                    \
  extern "C" __global__ void __launch_bounds__ (TC_THREADS, 2)                                     \
  NN_KERNEL_NAME4 (conv_tc_forward_kernel, BM, K3, POOL_RT, BELOW) (                               \
    TcGeom g, const float *__restrict__ x, const float *__restrict__ wpack,                        \
    const float *__restrict__ bias, int act, float *__restrict__ y, TcPool pool, TcBelow below)    \
  {                                                                                                \
    conv_tc_forward_kernel_body<BM, K3 != 0, POOL_RT, BELOW != 0> (g, x, wpack, bias, act, y,      \
                                                                   pool, below);                   \
  }

/* The instances the launchers choose from (ops/conv-igemm.cc: forward_kernel
 * and forward_kernel_rt): each block size and filter kind plain, pooling
 * rows of 1 or 3 n8 tiles, or forming the layer below's weight gradient. */
#define CONV_TC_FORWARD_EACH(BM, K3)                                                               \
  CONV_TC_FORWARD (BM, K3, 0, 0)                                                                   \
  CONV_TC_FORWARD (BM, K3, 1, 0)                                                                   \
  CONV_TC_FORWARD (BM, K3, 3, 0)                                                                   \
  CONV_TC_FORWARD (BM, K3, 0, 1)

CONV_TC_FORWARD_EACH (64, 1)
CONV_TC_FORWARD_EACH (64, 0)
CONV_TC_FORWARD_EACH (32, 1)
CONV_TC_FORWARD_EACH (32, 0)

/* Weights packed for the forward-style kernel: (ci in slices of TC_CHUNK,
 * taps, co_pad, TC_CHUNK), zero where there is no weight and rounded to
 * TF32, so a block copies its filters' rows of 8 channels with aligned
 * 16-byte copies. Forward: w (co, ci, r, s). Data gradient (flip): w (ci,
 * co, r, s) of the layer, read at the flipped tap. */
extern "C" __global__ void
conv_tc_pack_kernel (TcGeom g, int flip, const float *__restrict__ w, float *__restrict__ wpack)
{
  nn_kernel_enter ();
  int taps = g.r * g.s;
  int slices = (g.ci + TC_CHUNK - 1) / TC_CHUNK;
  int count = slices * taps * g.co_pad * TC_CHUNK;
  for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < count; e += gridDim.x * blockDim.x)
    {
      int ch = e % TC_CHUNK, rest = e / TC_CHUNK;
      int m = rest % g.co_pad;
      rest /= g.co_pad;
      int tap = rest % taps, c = rest / taps * TC_CHUNK + ch;
      float v = 0.0f;
      if (m < g.co && c < g.ci)
        v = flip ? w[((size_t) c * g.co + m) * taps + taps - 1 - tap]
                 : w[((size_t) m * g.ci + c) * taps + tap];
      wpack[e] = __uint_as_float (to_tf32 (v)); /* rounded once here, not per fragment */
    }
}

/* ---------------------------------------------------------------- weight gradient */

/* Calls f (filter, channel, tap, sum) for each of a thread's sums in the
 * weight-gradient kernel, filter and channel relative to the block's tile:
 * c0/c1 filter row gid, channels 2 tig and 2 tig + 1; c2/c3 filter row
 * gid + 8. */
template <typename F>
__device__ __forceinline__ void
each_wgrad_sum (int taps, const float (&acc)[2][TC_WG_TAPS][4], F f)
{
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int gid = lane >> 2, tig = lane & 3, wm = warp >> 2, wc = warp & 3;
#pragma unroll
  for (int i = 0; i < 2; i++)
#pragma unroll
    for (int j = 0; j < TC_WG_TAPS; j++)
      {
        if (j >= taps)
          break;
#pragma unroll
        for (int qq = 0; qq < 4; qq++)
          f (wm * 32 + i * 16 + gid + (qq >> 1) * 8, wc * 8 + 2 * tig + (qq & 1), j, acc[i][j][qq]);
      }
}

/* The cluster's CL splits add their partial sums before they leave the
 * kernel (sm_90): each block puts its (64 filters, 32 channels, taps)
 * partial in its shared memory (the stages are read by now), and after a
 * cluster barrier block `rank` adds the CL blocks' values of its eighth of
 * them in rank order (distributed shared memory) and stores that sum as
 * the cluster's partial. The sum kernel then reads CL times fewer
 * partials: for the cnn's second layer 32 sets of 18,432 weights (2.4 MB)
 * in place of 256 (18.9 MB), and the kernel's own stores shrink alike. */
template <int CL>
__device__ __forceinline__ void
cluster_partials (const TcGeom &g, int taps, int k0, int c0, const float (&acc)[2][TC_WG_TAPS][4],
                  float *smem, float *part)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const int cell_floats = 32 * taps; /* one filter's (channel, tap) cells */
  copy_async_wait ();
  __syncthreads ();
  each_wgrad_sum (taps, acc, [&] (int kl, int cl, int j, float v) {
    smem[kl * cell_floats + cl * taps + j] = v;
  });
  cg::cluster_group cluster = cg::this_cluster ();
  cluster.sync ();
  const int rank = (int) cluster.block_rank ();
  const int quads = 64 * cell_floats / 4, share = quads / CL; /* 64 * 32 is a multiple of 4 CL */
  float *out = part + (size_t) (blockIdx.x / CL) * g.co * g.ci * taps;
  for (int q = rank * share + threadIdx.x; q < (rank + 1) * share; q += TC_THREADS)
    {
      float4 sum = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
      for (int r = 0; r < CL; r++)
        {
          float4 v = ((const float4 *) cluster.map_shared_rank (smem, r))[q];
          sum.x += v.x;
          sum.y += v.y;
          sum.z += v.z;
          sum.w += v.w;
        }
      const float sv[4] = { sum.x, sum.y, sum.z, sum.w };
#pragma unroll
      for (int u = 0; u < 4; u++)
        {
          int e = 4 * q + u, kl = e / cell_floats, rest = e - kl * cell_floats;
          int cl = rest / taps, j = rest - cl * taps;
          if (k0 + kl < g.co && c0 + cl < g.ci)
            out[((size_t) (k0 + kl) * g.ci + c0 + cl) * taps + j] = sv[u];
        }
    }
  cluster.sync (); /* the other ranks read this block's shared memory until here */
#endif
}

/* Block: 64 filters x 32 channels x up to 9 taps; warp (wm, wc) owns 32
 * filters x 8 channels x every tap. Work items are (image, TC_WG_PIXELS-pixel tile),
 * a contiguous range of them per block (blockIdx.x), summed in registers.
 * K3 (a 3 x 3 filter, known when compiled): the taps' offsets in the tile
 * are a row stride times a constant plus a constant, so each shared load
 * of B takes its offset as an immediate instead of an address computed per
 * load: a quarter fewer instructions on the cnn's second layer (ncu). */
template <bool K3, int CL>
static __device__ __forceinline__ void
conv_tc_wgrad_kernel_body (TcGeom g, const float *__restrict__ x, const float *__restrict__ dy,
                           float *__restrict__ part)
{
  nn_kernel_enter ();
#if __CUDA_ARCH__ >= 800
  extern __shared__ __align__ (16) float smem[];
  const int taps = K3 ? 9 : g.r * g.s;
  const int s_taps = K3 ? 3 : g.s; /* taps per row */
  const int ld = TC_WG_PIXELS + 4;
  /* Two stages, each dy (64, ld), the input tile (tile_rows * sw, WG_CS)
   * and the pixels' tile offsets (TC_WG_PIXELS ints): one is filled while
   * the other is used. */
  const int stage = 64 * ld + g.plane + TC_WG_PIXELS;
  float *dys = smem;
  float *xs = smem + 64 * ld;
  int *pofs = (int *) (xs + g.plane);

  int k0 = blockIdx.z * 64, c0 = blockIdx.y * 32;
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int gid = lane >> 2, tig = lane & 3;
  int wm = warp >> 2, wc = warp & 3;
  int pixels = g.oh * g.ow;
  int items = g.n * g.tiles;
  int item0 = blockIdx.x * g.items_per_split;
  int item1 = min (items, item0 + g.items_per_split);

  /* ldmatrix rows: filter (q & 1) * 8 + r of the warp's 16, pixels (q >> 1) * 4 on */
  int q = lane >> 3, r = lane & 7;
  unsigned int dys_lane = (unsigned int) __cvta_generic_to_shared (dys)
                          + ((wm * 32 + (q & 1) * 8 + r) * ld + (q >> 1) * 4) * 4;
  int tap_off[TC_WG_TAPS];
  const int row_floats = g.pitch; /* one row of the input tile */
  float acc[2][TC_WG_TAPS][4];
#pragma unroll
  for (int j = 0; j < TC_WG_TAPS; j++)
    tap_off[j] = j < taps ? (j / s_taps) * g.pitch + j % s_taps * WG_CS : 0;
#pragma unroll
  for (int i = 0; i < 2; i++)
#pragma unroll
    for (int j = 0; j < TC_WG_TAPS; j++)
#pragma unroll
      for (int k = 0; k < 4; k++)
        acc[i][j][k] = 0.0f;

  /* Queue item `item`'s dy rows, input tile and pixel offsets into stage st. */
  auto fetch = [&] (int item, int st) {
    int img = item / g.tiles, p0 = (item - img * g.tiles) * TC_WG_PIXELS;
    int oy_first = p0 / g.ow;
    float *d = dys + st * stage;
    /* 16-byte copies when rows of a plane start 16-byte aligned (planes of a
     * multiple of 4 pixels) */
    if ((pixels & 3) == 0)
      for (int e = threadIdx.x; e < 64 * TC_WG_PIXELS / 4; e += TC_THREADS)
        {
          int m = e / (TC_WG_PIXELS / 4), pl = (e % (TC_WG_PIXELS / 4)) * 4;
          bool in = k0 + m < g.co && p0 + pl < pixels;
          copy_async16 (d + m * ld + pl,
                        in ? dy + ((size_t) img * g.co + k0 + m) * pixels + p0 + pl : dy, in);
        }
    else
      for (int e = threadIdx.x; e < 64 * TC_WG_PIXELS; e += TC_THREADS)
        {
          int m = e / TC_WG_PIXELS, pl = e % TC_WG_PIXELS;
          bool in = k0 + m < g.co && p0 + pl < pixels;
          copy_async (d + m * ld + pl, in ? dy + ((size_t) img * g.co + k0 + m) * pixels + p0 + pl : dy,
                      in);
        }
    load_input_tile_async<32, WG_CS, 8> (g, x, img, c0, oy_first - g.pad_h, xs + st * stage);
    for (int pl = threadIdx.x; pl < TC_WG_PIXELS; pl += TC_THREADS)
      {
        int p = p0 + pl < pixels ? p0 + pl : p0; /* its dy is zero */
        int oy = p / g.ow;
        pofs[st * stage + pl] = (oy - oy_first) * g.pitch + (p - oy * g.ow) * WG_CS;
      }
    copy_async_commit ();
  };

  zero_shared (xs, g.plane);
  zero_shared (xs + stage, g.plane);
  __syncthreads (); /* the zeros are in before any copy lands */
  if (item0 < item1)
    fetch (item0, 0);
  for (int item = item0, st = 0; item < item1; item++, st ^= 1)
    {
      if (item + 1 < item1)
        {
          fetch (item + 1, st ^ 1);
          copy_async_wait_pending<1> ();
        }
      else
        copy_async_wait_pending<0> ();
      __syncthreads (); /* item has arrived for every thread */

      const float *xc = xs + st * stage + wc * 8 + gid; /* x truncated to TF32, see the loader */
      const int *po = pofs + st * stage;
      unsigned int dys_stage = dys_lane + st * stage * 4;
#pragma unroll 2
      for (int k8 = 0; k8 < TC_WG_PIXELS; k8 += 8)
        {
          /* A: 16 filters x 8 pixels of dy per ldmatrix.x4 (see the forward
           * kernel), rounded to TF32 here */
          unsigned int a[2][4];
#pragma unroll
          for (int i = 0; i < 2; i++)
            {
              ldmatrix_x4 (a[i], dys_stage + (i * 16 * ld + k8) * 4);
#pragma unroll
              for (int k = 0; k < 4; k++)
                a[i][k] = to_tf32 (__uint_as_float (a[i][k]));
            }
          int o0 = po[k8 + tig], o1 = po[k8 + tig + 4];
          if (K3)
            {
              /* per row of taps one address for each pixel, the taps at
               * immediate offsets from it */
#pragma unroll
              for (int ky = 0; ky < 3; ky++)
                {
                  const float *p0 = xc + o0 + ky * row_floats, *p1 = xc + o1 + ky * row_floats;
#pragma unroll
                  for (int kx = 0; kx < 3; kx++)
                    {
                      unsigned int b0 = __float_as_uint (p0[kx * WG_CS]);
                      unsigned int b1 = __float_as_uint (p1[kx * WG_CS]);
                      mma_tf32 (acc[0][ky * 3 + kx], a[0], b0, b1);
                      mma_tf32 (acc[1][ky * 3 + kx], a[1], b0, b1);
                    }
                }
            }
          else
#pragma unroll
            for (int j = 0; j < TC_WG_TAPS; j++)
              {
                if (j >= taps)
                  break;
                unsigned int b0 = __float_as_uint (xc[o0 + tap_off[j]]);
                unsigned int b1 = __float_as_uint (xc[o1 + tap_off[j]]);
                mma_tf32 (acc[0][j], a[0], b0, b1);
                mma_tf32 (acc[1][j], a[1], b0, b1);
              }
        }
      __syncthreads (); /* stage st is read: the next fetch may refill it */
    }

  if (CL > 1)
    {
      cluster_partials<CL> (g, taps, k0, c0, acc, smem, part);
      return;
    }

  /* Partial dw of this split, laid out as dw (co, ci, r, s). */
  float *out = part + (size_t) blockIdx.x * g.co * g.ci * taps;
  each_wgrad_sum (taps, acc, [&] (int kl, int cl, int j, float v) {
    int k = k0 + kl, c = c0 + cl;
    if (k < g.co && c < g.ci)
      out[((size_t) k * g.ci + c) * taps + j] = v;
  });
#endif
}

/* conv_tc_wgrad_kernel_K3_CL (K3: 0 or 1). */
#define CONV_TC_WGRAD(K3, CL)                                                                      \
  extern "C" __global__ void __launch_bounds__ (TC_THREADS, 2)                                     \
  NN_KERNEL_NAME2 (conv_tc_wgrad_kernel, K3, CL) (TcGeom g, const float *__restrict__ x,           \
                                                  const float *__restrict__ dy,                    \
                                                  float *__restrict__ part)                        \
  {                                                                                                \
    conv_tc_wgrad_kernel_body<K3 != 0, CL> (g, x, dy, part);                                       \
  }

/* The instances wgrad_kernel (ops/conv-igemm.cc) chooses from: each filter
 * kind in clusters of TC_WG_CLUSTER or alone. */
CONV_TC_WGRAD (1, TC_WG_CLUSTER)
CONV_TC_WGRAD (0, TC_WG_CLUSTER)
CONV_TC_WGRAD (1, 1)
CONV_TC_WGRAD (0, 1)

/* dw[i] = the sum of the splits' partials for i. A block takes 32 runs of
 * four outputs (float4 when vec4: count % 4 == 0 and dw 16-byte aligned;
 * the partials are) and its SUM_RANGES warps split the splits (or the
 * clusters' sums of them) into as many
 * contiguous ranges, each summed in order with 8 loads in flight, then the
 * range sums are added in range order: a fixed order, so results do not
 * depend on timing. One thread per output summing every split in turn had
 * too few loads in flight: 12.2 us for the cnn's 256 splits of 18,432
 * weights (18.9 MB, ncu on the H200); 8 ranges 9.1 us, 16 ranges 7.3 us. */
extern "C" __global__ void __launch_bounds__ (32 * SUM_RANGES)
conv_tc_sum_kernel (const float *__restrict__ part, float *__restrict__ dw, int count,
                    int splits, int vec4)
{
  nn_kernel_enter ();
  __shared__ float4 range_sum[SUM_RANGES][32];
  const int lane = threadIdx.x & 31, range = threadIdx.x >> 5;
  const int quads = (count + 3) / 4, q = blockIdx.x * 32 + lane;
  const int per = (splits + SUM_RANGES - 1) / SUM_RANGES;
  const int s0 = range * per, s1 = min (splits, s0 + per);
  float4 acc = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
  if (q < quads && vec4)
    {
      const float4 *p4 = (const float4 *) part;
#pragma unroll 8
      for (int s = s0; s < s1; s++)
        {
          float4 v = p4[(size_t) s * quads + q];
          acc.x += v.x;
          acc.y += v.y;
          acc.z += v.z;
          acc.w += v.w;
        }
    }
  else if (q < quads)
    for (int s = s0; s < s1; s++)
      {
        const float *p = part + (size_t) s * count + 4 * q;
        acc.x += p[0];
        acc.y += 4 * q + 1 < count ? p[1] : 0.0f;
        acc.z += 4 * q + 2 < count ? p[2] : 0.0f;
        acc.w += 4 * q + 3 < count ? p[3] : 0.0f;
      }
  range_sum[range][lane] = acc;
  __syncthreads ();
  if (range != 0 || q >= quads)
    return;
  float4 t = range_sum[0][lane];
#pragma unroll
  for (int r = 1; r < SUM_RANGES; r++)
    {
      float4 v = range_sum[r][lane];
      t.x += v.x;
      t.y += v.y;
      t.z += v.z;
      t.w += v.w;
    }
  if (vec4)
    ((float4 *) dw)[q] = t;
  else
    {
      const float v[4] = { t.x, t.y, t.z, t.w };
      for (int k = 0; k < 4 && 4 * q + k < count; k++)
        dw[4 * q + k] = v[k];
    }
}
