/* SPDX-License-Identifier: GPL-3.0-or-later */
/* conv-igemm.cc: the implicit-GEMM convolution's plans and launches
 * (kernels/conv-igemm.cu: the kernels, and why they are as they are).
 */

#include "nn-cuda-launch.h"

#include <string.h>

NN_CUDA_FATBIN (conv_igemm, "conv-igemm.cu")
#include "kernels/conv-igemm.h"

/* Floats from one row of an input tile to the next, for cells of cs floats
 * and rows of sw cells under output rows of ow pixels: at least sw cells,
 * and congruent to ow cells modulo 32 banks. Consecutive pixels are cs
 * floats apart within a row, and then also across the end of a row, so a
 * fragment load whose pixels wrap into the next row hits the same 32
 * different banks as one within a row. Rows of 26 pixels (the cnn's data
 * gradient) had n8 tiles that wrap, and 32 % of its shared-memory
 * wavefronts were bank conflicts (ncu). A multiple of 4 floats:
 * ldmatrix and cp.async rows stay 16-byte aligned. */
static int
tile_pitch (int sw, int ow, int cs)
{
  int pitch = sw * cs;
  while ((pitch - ow * cs) % 32 != 0)
    pitch += 4;
  return pitch;
}

/* Tile geometry of the forward-style kernel for a convolution reading
 * (ci, ih, iw) and writing (co, oh, ow). */
static TcGeom
forward_geom (const NnConvShape *s, int ci, int ih, int iw, int co, int oh, int ow, int pad_h,
              int pad_w)
{
  TcGeom g;
  int bm = co <= 32 ? 32 : 64;
  memset (&g, 0, sizeof g);
  g.n = s->n;
  g.ci = ci, g.ih = ih, g.iw = iw;
  g.co = co, g.oh = oh, g.ow = ow;
  g.r = s->r, g.s = s->s;
  g.pad_h = pad_h, g.pad_w = pad_w;
  g.tile_pixels = bm == 64 ? FwdTile<64>::PIXELS : FwdTile<32>::PIXELS;
  g.tiles = (oh * ow + g.tile_pixels - 1) / g.tile_pixels;
  g.sw = ow + s->s - 1;
  g.pitch = tile_pitch (g.sw, ow, FWD_CS);
  g.tile_rows = (g.tile_pixels - 1) / ow + 2 + s->r - 1;
  g.plane = g.tile_rows * g.pitch;
  g.bm = bm;
  g.co_pad = (co + bm - 1) / bm * bm;
  return g;
}

/* The forward pass and the data gradient (dy through the flipped filters,
 * padding r - 1 - pad) as forward-style convolutions. */
static TcGeom
geom_forward (const NnConvShape *s)
{
  return forward_geom (s, s->c, s->h, s->w, s->k, s->out_h, s->out_w, s->pad_h, s->pad_w);
}

static TcGeom
geom_data (const NnConvShape *s)
{
  return forward_geom (s, s->k, s->out_h, s->out_w, s->c, s->h, s->w, s->r - 1 - s->pad_h,
                       s->s - 1 - s->pad_w);
}

/* The forward-style kernel for a geometry, pooling its output, or forming
 * the weight gradient of the layer below from it, or neither. */
typedef NnCudaKernel<void (TcGeom, const float *, const float *, const float *, int, float *,
                            TcPool, TcBelow)>
  FwdKernel;

template <int POOL_RT, bool BELOW>
static const FwdKernel &
forward_kernel_rt (const TcGeom &g)
{
  bool k3 = g.r == 3 && g.s == 3;
  if (block_rows (g) == 64)
    return k3 ? conv_tc_forward_kernel<64, true, POOL_RT, BELOW>
              : conv_tc_forward_kernel<64, false, POOL_RT, BELOW>;
  return k3 ? conv_tc_forward_kernel<32, true, POOL_RT, BELOW>
            : conv_tc_forward_kernel<32, false, POOL_RT, BELOW>;
}

/* The n8 tiles of an output row where a thread's fragments hold whole 2 x 2
 * windows (pool_tile): rows of whole tiles, pairs of which fill a warp's
 * TC_NT tiles, so rows of 8 or 24 pixels (every block's tile is a whole
 * number of warps' pixels, so it holds whole pairs too); 0 for any other
 * width. */
static int
pool_row_tiles (const TcGeom &g)
{
  return g.ow % 8 == 0 && TC_NT % (2 * (g.ow / 8)) == 0 ? g.ow / 8 : 0;
}

static const FwdKernel &
forward_kernel (const TcGeom &g, bool pool, bool below = false)
{
  int rt = pool ? pool_row_tiles (g) : 0;
  if (below)
    return forward_kernel_rt<0, true> (g);
  return rt == 1 ? forward_kernel_rt<1, false> (g) : rt == 3 ? forward_kernel_rt<3, false> (g)
                                                             : forward_kernel_rt<0, false> (g);
}

/* Two stages; with the layer below, room after them for its input tile. */
static size_t
forward_smem (const TcGeom &g, bool below = false)
{
  return (2 * ((size_t) g.plane + (size_t) g.r * g.s * g.bm * FWD_CS) + (below ? TC_BELOW_TILE : 0))
         * sizeof (float);
}

/* Packed weights (see conv_tc_pack_kernel), a multiple of 256 bytes. */
static size_t
pack_bytes (const TcGeom &g)
{
  size_t slices = (size_t) (g.ci + TC_CHUNK - 1) / TC_CHUNK;
  size_t bytes = slices * TC_CHUNK * g.r * g.s * g.co_pad * sizeof (float);
  return (bytes + 255) / 256 * 256;
}

static TcGeom
wgrad_geom (const NnConvShape *s)
{
  TcGeom g;
  memset (&g, 0, sizeof g);
  g.n = s->n;
  g.ci = s->c, g.ih = s->h, g.iw = s->w;
  g.co = s->k, g.oh = s->out_h, g.ow = s->out_w;
  g.r = s->r, g.s = s->s;
  g.pad_h = s->pad_h, g.pad_w = s->pad_w;
  g.tile_pixels = TC_WG_PIXELS;
  g.tiles = (s->out_h * s->out_w + TC_WG_PIXELS - 1) / TC_WG_PIXELS;
  g.sw = s->out_w + s->s - 1;
  g.pitch = tile_pitch (g.sw, s->out_w, WG_CS);
  g.tile_rows = (TC_WG_PIXELS - 1) / s->out_w + 2 + s->r - 1;
  g.plane = g.tile_rows * g.pitch;
  return g;
}

/* Two stages; in clusters, also room for the block's partial sums. */
static size_t
wgrad_smem (const TcGeom &g, int cluster)
{
  size_t stages = 2 * (((size_t) 64 * (TC_WG_PIXELS + 4) + (size_t) g.plane) * sizeof (float)
                       + TC_WG_PIXELS * sizeof (int));
  size_t sums = cluster > 1 ? (size_t) 64 * 32 * g.r * g.s * sizeof (float) : 0;
  return stages > sums ? stages : sums;
}

/* The weight-gradient kernel for a filter shape, in clusters of
 * TC_WG_CLUSTER blocks or alone (cluster 1). */
typedef NnCudaKernel<void (TcGeom, const float *, const float *, float *)> WgradKernel;

static const WgradKernel &
wgrad_kernel (const TcGeom &g, int cluster)
{
  bool k3 = g.r == 3 && g.s == 3;
  if (cluster > 1)
    return k3 ? conv_tc_wgrad_kernel<true, TC_WG_CLUSTER>
              : conv_tc_wgrad_kernel<false, TC_WG_CLUSTER>;
  return k3 ? conv_tc_wgrad_kernel<true, 1> : conv_tc_wgrad_kernel<false, 1>;
}

int
_nn_cuda_conv_igemm_ok (NnCudaContext *ctx, const NnConvShape *s)
{
  int optin = 0;
  if (!ctx->tf32 || ctx->compute_major < 8)
    return 0; /* FP32 answers are cuDNN's (or the direct kernels'); TF32 mma needs sm_80 */
  if (s->stride_h != 1 || s->stride_w != 1 || s->r * s->s > TC_WG_TAPS)
    return 0;
  /* The data gradient reads dy with padding r - 1 - pad: pad must not exceed r - 1. */
  if (s->pad_h > s->r - 1 || s->pad_w > s->s - 1)
    return 0;
  if (nn_cu::cuDeviceGetAttribute (&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                   ctx->cu_device)
      != CUDA_SUCCESS)
    return 0;
  TcGeom f = geom_forward (s), d = geom_data (s), wg = wgrad_geom (s);
  return forward_smem (f) <= (size_t) optin && forward_smem (d) <= (size_t) optin
         && wgrad_smem (wg, 1) <= (size_t) optin;
}

int
_nn_cuda_conv_igemm_pool_ok (const NnConvShape *s, const NnPoolShape *pool)
{
  /* 2 x 2 windows that tile the output, rows pool_tile can pool */
  return pool->win_h == 2 && pool->win_w == 2 && pool->stride_h == 2 && pool->stride_w == 2
         && pool->pad_h == 0 && pool->pad_w == 0 && pool->out_h * 2 == s->out_h
         && pool->out_w * 2 == s->out_w && pool_row_tiles (geom_forward (s)) > 0;
}

/* The weight gradient's partial sums in the workspace: one set a cluster. */
static size_t
wgrad_partials_bytes (const NnConvShape *s, const NnCudaIgemmPlan *plan)
{
  return (size_t) (plan->splits / plan->cluster) * s->k * s->c * s->r * s->s * sizeof (float);
}

int
_nn_cuda_conv_igemm_plan (NnCudaContext *ctx, const NnConvShape *s, NnCudaIgemmPlan *plan,
                          size_t *workspace_bytes)
{
  TcGeom f = geom_forward (s), d = geom_data (s), wg = wgrad_geom (s);
  CUresult err = CUDA_SUCCESS;

  memset (plan, 0, sizeof *plan);
  err = nn_cuda_allow_smem (ctx, forward_kernel (f, false), forward_smem (f));
  if (err == CUDA_SUCCESS && pool_row_tiles (f) > 0)
    err = nn_cuda_allow_smem (ctx, forward_kernel (f, true), forward_smem (f));
  if (err == CUDA_SUCCESS)
    err = nn_cuda_allow_smem (ctx, forward_kernel (d, false), forward_smem (d));
  if (err == CUDA_SUCCESS)
    err = nn_cuda_allow_smem (ctx, wgrad_kernel (wg, 1), wgrad_smem (wg, 1));
  if (err != CUDA_SUCCESS)
    return _nn_cuda_fail (ctx, err, "conv2d plan: shared memory for the implicit GEMM");
  /* the data gradient with a layer below: only where its tile fits too,
   * and the warps' sums fit the stages (a refusal there only means no
   * layer below is fused) */
  plan->below = 2 * ((size_t) d.plane + (size_t) d.r * d.s * d.bm * FWD_CS)
                    >= (size_t) (8 / (d.bm / 32)) * d.bm * TC_BELOW_SUMS
                && nn_cuda_allow_smem (ctx, forward_kernel (d, false, true), forward_smem (d, true))
                       == CUDA_SUCCESS;
  plan->cluster = ctx->compute_major >= 9
                      && nn_cuda_clusters_fit (ctx, wgrad_kernel (wg, TC_WG_CLUSTER),
                                               TC_WG_CLUSTER, TC_THREADS,
                                               wgrad_smem (wg, TC_WG_CLUSTER))
                    ? TC_WG_CLUSTER
                    : 1;

  /* Weight gradient: two blocks per multiprocessor in all, each summing a
   * contiguous range of (image, tile) items. */
  int groups = ((s->c + 31) / 32) * ((s->k + 63) / 64);
  int items = s->n * wg.tiles;
  int want = (2 * (ctx->multiprocessors > 0 ? ctx->multiprocessors : 16) + groups - 1) / groups;
  int splits = want < items ? want : items;
  plan->items_per_split = (items + splits - 1) / splits;
  plan->splits = (items + plan->items_per_split - 1) / plan->items_per_split;
  /* whole clusters: the blocks past the items sum nothing */
  plan->splits = (plan->splits + plan->cluster - 1) / plan->cluster * plan->cluster;

  /* Workspace: packed weights first, then the weight gradient's partials
   * (one set a cluster). */
  plan->partials_offset = pack_bytes (f) > pack_bytes (d) ? pack_bytes (f) : pack_bytes (d);
  *workspace_bytes = plan->partials_offset + wgrad_partials_bytes (s, plan);
  return NN_BACKEND_OK;
}

/* The layer below's input tile for data-gradient geometry d: rows of every
 * output row a block's pixels can touch, whole padded rows. */
static TcBelow
below_geom (const TcGeom &d, const NnConvShape *below)
{
  TcBelow b;
  memset (&b, 0, sizeof b);
  b.c = below->c, b.h = below->h, b.w = below->w;
  b.r = below->r, b.s = below->s;
  b.pad_h = below->pad_h, b.pad_w = below->pad_w;
  b.stride_h = below->stride_h, b.stride_w = below->stride_w;
  b.taps = below->c * below->r * below->s;
  b.rows = ((d.tile_pixels - 1) / d.ow + 1) * below->stride_h + below->r;
  b.cols = (d.ow - 1) * below->stride_w + below->s;
  return b;
}

int
_nn_cuda_conv_igemm_below_ok (const NnConvShape *s, const NnCudaIgemmPlan *plan,
                              const NnConvShape *below)
{
  TcGeom d = geom_data (s);
  TcBelow b = below_geom (d, below);
  size_t partials = (size_t) below->k * d.n * d.tiles * (b.taps + 1) * sizeof (float);
  return plan->below && below->n == s->n && below->k == s->c && below->out_h == s->h
         && below->out_w == s->w && b.taps <= TC_BELOW_TAPS
         && (size_t) b.c * b.rows * b.cols <= TC_BELOW_TILE
         && partials <= wgrad_partials_bytes (s, plan); /* the layer below's go there */
}

/* Pack the weights into the workspace, then run the forward-style kernel,
 * pooling its output when `pool` is not NULL. */
static int
run_forward (NnCudaContext *ctx, const TcGeom &g, int flip, const float *x, const float *w,
             const float *bias, int act, float *y, const TcPool *pool, const TcBelow *below,
             void *workspace, const char *what)
{
  float *wpack = (float *) workspace;
  size_t packed = pack_bytes (g) / sizeof (float);
  /* the packing is small: set up while the kernel before finishes; the
   * convolution after it is launched in whole waves (nn-cuda-launch.h) */
  _nn_cuda_launch (ctx, conv_tc_pack_kernel, _nn_cuda_blocks (ctx, packed, 256), 256, 0, g, flip, w,
                   wpack);
  int rc = _nn_cuda_check_launch (ctx, what);
  if (rc != 0)
    return rc;
  dim3 grid (g.n * g.tiles, g.co_pad / block_rows (g));
  _nn_cuda_launch_serial (ctx, forward_kernel (g, pool != NULL, below != NULL), grid, TC_THREADS,
                          forward_smem (g, below != NULL), g, x, wpack, bias, act, y,
                          pool != NULL ? *pool : TcPool{}, below != NULL ? *below : TcBelow{});
  return _nn_cuda_check_launch (ctx, what);
}

int
_nn_cuda_conv_igemm_forward (NnCudaContext *ctx, const NnConvShape *s, const NnCudaIgemmPlan *plan,
                             const float *x, const float *w, const float *bias, int act, float *y,
                             void *workspace)
{
  return run_forward (ctx, geom_forward (s), 0, x, w, bias, act, y, NULL, NULL, workspace,
                      "conv2d forward (implicit GEMM)");
}

int
_nn_cuda_conv_igemm_forward_pool (NnCudaContext *ctx, const NnConvShape *s, const float *x,
                                  const float *w, const float *bias, int act,
                                  const NnPoolShape *pool, float *y, float *drop_y, float rate,
                                  uint64_t seed, const int64_t *step, uint8_t *argmax,
                                  void *workspace)
{
  TcPool p = { pool->out_h, pool->out_w, y, drop_y, argmax,
               PoolDrop{ rate, _nn_cuda_dropout_scale (rate), seed, step } };
  return run_forward (ctx, geom_forward (s), 0, x, w, bias, act, NULL, &p, NULL, workspace,
                      "conv2d forward with pooling (implicit GEMM)");
}

int
_nn_cuda_conv_igemm_data (NnCudaContext *ctx, const NnConvShape *s, const NnCudaIgemmPlan *plan,
                          const float *w, const float *dy, float *dx, void *workspace)
{
  return run_forward (ctx, geom_data (s), 1, dy, w, NULL, NN_BK_ACT_LINEAR, dx, NULL, NULL,
                      workspace, "conv2d backward input (implicit GEMM)");
}

int
_nn_cuda_conv_igemm_data_below (NnCudaContext *ctx, const NnConvShape *s,
                                const NnCudaIgemmPlan *plan, const float *w, const float *dy,
                                const NnConvShape *below, const float *below_x,
                                const float *below_y, int below_act, float *below_dw,
                                float *below_dbias, void *workspace)
{
  TcGeom d = geom_data (s);
  TcBelow b = below_geom (d, below);
  /* the weight gradient's partials are summed by now (stream order) */
  float *partials = (float *) ((char *) workspace + plan->partials_offset);
  b.x = below_x, b.y = below_y, b.act = below_act, b.partials = partials;
  int rc = run_forward (ctx, d, 1, dy, w, NULL, NN_BK_ACT_LINEAR, NULL, NULL, &b, workspace,
                        "conv2d backward input with the weights below (implicit GEMM)");
  if (rc != 0)
    return rc;
  return _nn_cuda_conv_wgrad_sums (ctx, partials, below->k, b.taps, b.taps + 1, d.n * d.tiles,
                                   below_dw, below_dbias,
                                   "conv2d backward weights below (implicit GEMM sums)");
}

int
_nn_cuda_conv_igemm_weights (NnCudaContext *ctx, const NnConvShape *s,
                             const NnCudaIgemmPlan *plan, const float *x, const float *dy,
                             float *dw, void *workspace)
{
  TcGeom g = wgrad_geom (s);
  g.items_per_split = plan->items_per_split;
  float *part = (float *) ((char *) workspace + plan->partials_offset);
  int count = s->k * s->c * s->r * s->s;
  dim3 grid (plan->splits, (s->c + 31) / 32, (s->k + 63) / 64);
  /* launched serially, as the forward-style kernels (nn-cuda-launch.h) */
  _nn_cuda_launch_cluster (ctx, false, wgrad_kernel (g, plan->cluster), grid, TC_THREADS,
                           wgrad_smem (g, plan->cluster), plan->cluster, g, x, dy, part);
  int rc = _nn_cuda_check_launch (ctx, "conv2d backward weights (implicit GEMM)");
  if (rc != 0)
    return rc;
  unsigned int quads = (unsigned int) ((count + 3) / 4);
  int vec4 = count % 4 == 0 && (uintptr_t) dw % 16 == 0;
  _nn_cuda_launch (ctx, conv_tc_sum_kernel, (quads + 31) / 32, 32 * SUM_RANGES, 0, part, dw, count,
                   plan->splits / plan->cluster, vec4);
  return _nn_cuda_check_launch (ctx, "conv2d backward weights (implicit GEMM sums)");
}
