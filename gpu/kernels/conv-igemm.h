/* SPDX-License-Identifier: GPL-3.0-or-later */
/* conv-igemm.h: the implicit-GEMM convolution's kernels (conv-igemm.cu) as
 * their launchers (ops/conv-igemm.cc) see them: the tile sizes, the
 * geometry, pooling and layer-below structs the kernels take, and the
 * kernels' declarations (kernels/common.h says how).
 */
#pragma once

#include "kernels/common.h"
#include "kernels/pool-max.h"

#include <stdint.h>

#define TC_THREADS 256 /* 8 warps */
#define TC_CHUNK 8     /* input channels per reduction slice (the mma's k) */
#define TC_NT 6        /* forward: 8-pixel tiles per warp */
#define TC_WG_TAPS 9   /* weight gradient: taps per warp (r * s <= 9) */
#define TC_WG_PIXELS 96 /* weight gradient: pixels per work item */
#define TC_WG_CLUSTER 8 /* weight gradient on sm_90: splits adding their partials in a cluster */
#define TC_BELOW_TAPS 9 /* the layer below a data gradient: taps of its weight gradient */
#define TC_BELOW_TILE 2048 /* ... and the floats of its input a block may hold */
#define TC_BELOW_SUMS 10   /* ... and a warp's sums a filter row: 8 taps by mma, the ninth, bias */
#define TC_BELOW_BATCH 3   /* ... and the n8 tiles whose loads its epilogue issues together */
/* Floats per tile cell (channels fastest): lanes (gid = pixel, tig =
 * channel) of a fragment load then hit 32 different banks. */
#define FWD_CS 12      /* 8 channels */
#define WG_CS 40       /* 32 channels */
/* The weight gradient's sum kernel: warps a block, each summing a range of
 * the splits (conv_tc_sum_kernel says why 16). */
#define SUM_RANGES 16

struct TcGeom
{
  int n;
  int ci, ih, iw;     /* the tensor read: x (forward, weights) or dy (data) */
  int co, oh, ow;     /* the tensor written (forward, data) or dy (weights) */
  int r, s;
  int pad_h, pad_w;   /* input row = output row + ky - pad_h */
  int co_pad;         /* forward: packed weight rows, co rounded up to the block's rows */
  int tiles;          /* pixel tiles per image */
  int tile_pixels;    /* pixels per tile */
  int tile_rows;      /* input rows a tile can touch */
  int sw;             /* tile row length: ow + s - 1 cells */
  int pitch;          /* floats from one tile row to the next: sw cells and padding (tile_pitch) */
  int plane;          /* floats of the input tile: tile_rows * pitch */
  int bm;             /* forward: filters per block (32 or 64) */
  int items_per_split; /* weight gradient */
};

/* The max pooling a pooling forward applies to its output (2 x 2 windows
 * that tile it); y, drop_y and argmax as pool2d_forward_argmax writes them. */
struct TcPool
{
  int out_h, out_w;
  float *y, *drop_y;
  uint8_t *argmax;
  PoolDrop drop;
};

/* The convolution below a data gradient whose weight gradient the data
 * gradient's kernel forms (conv2d_backward_below): the data gradient is
 * that layer's output gradient, dz = act' (y) * it, and is never stored. */
struct TcBelow
{
  const float *x;  /* its input (n, c, h, w) */
  const float *y;  /* its output after the activation: the data gradient's shape */
  int act;
  int c, h, w, r, s, pad_h, pad_w, stride_h, stride_w;
  int taps;        /* c * r * s, at most TC_BELOW_TAPS */
  int rows, cols;  /* the block's input tile in shared memory, per channel */
  float *partials; /* (k, blocks, taps + 1): each block's sums, the bias's last */
};

/* Block: BM output channels x (WARPS_N * TC_NT * 8) pixels of one image;
 * warps are 32 channels x TC_NT * 8 pixels each. */
template <int BM>
struct FwdTile
{
  static const int WARPS_M = BM / 32;
  static const int WARPS_N = 8 / WARPS_M;
  static const int PIXELS = WARPS_N * TC_NT * 8;
};

/* The forward-style kernel's BM for a geometry: its filters per block. */
static inline int
block_rows (const TcGeom &g)
{
  return g.bm;
}

/* The forward pass and the data gradient: BM 32 or 64, K3 (a 3 x 3 filter),
 * POOL_RT (0, or pooling rows of 1 or 3 n8 tiles) and BELOW (the layer
 * below's weight gradient), as conv_tc_forward_kernel_64_1_0_0. */
NN_KERNEL_FAMILY (conv_tc_forward_kernel,
                  (TcGeom g, const float *__restrict__ x, const float *__restrict__ wpack,
                   const float *__restrict__ bias, int act, float *__restrict__ y, TcPool pool,
                   TcBelow below))
NN_KERNEL (conv_tc_pack_kernel,
           (TcGeom g, int flip, const float *__restrict__ w, float *__restrict__ wpack))
/* The weight gradient: K3, and CL (TC_WG_CLUSTER blocks a cluster, or 1). */
NN_KERNEL_FAMILY (conv_tc_wgrad_kernel, (TcGeom g, const float *__restrict__ x,
                                         const float *__restrict__ dy, float *__restrict__ part))
NN_KERNEL (conv_tc_sum_kernel, (const float *__restrict__ part, float *__restrict__ dw, int count,
                                int splits, int vec4))
