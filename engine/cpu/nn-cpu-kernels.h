/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-cpu-kernels.h: the CPU backend's inner loops, built once per x86-64
 * level (x86-64-v4, x86-64-v3, the baseline the engine is built for) into
 * one table each; nn-cpu-dispatch.c picks the table once, from the CPU's
 * features, on Linux and Windows alike. Each loop works on a range the
 * caller's thread owns; none starts threads. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nn-backend-abi.h"

#if defined(__GNUC__) || defined(__clang__)
#define NN_CPU_CONST __attribute__ ((const))
#else
#define NN_CPU_CONST
#endif

/* One build of the loops (nn-cpu-kernels.c); the rules of each are at its
 * wrapper below. */
typedef struct
{
  const char *isa; /* "x86-64-v4", "x86-64-v3", "baseline" */
  void (*sgd) (float *p, const float *g, size_t count, float lr);
  void (*momentum) (float *p, const float *g, float *v, size_t count, float lr, float m,
                    int nesterov);
  void (*adam) (float *p, const float *g, float *m, float *v, size_t count, float b1, float b2,
                float alpha, float eps);
  void (*adadelta) (float *p, const float *g, float *eg, float *ed, size_t count, float lr,
                    float rho, float eps);
  void (*rmsprop) (float *p, const float *g, float *v, size_t count, float lr, float rho,
                   float eps);
  void (*adagrad) (float *p, const float *g, float *a, size_t count, float lr, float eps);
  void (*dropout) (float *y, const float *x, size_t count, uint64_t first, uint64_t seed,
                   int64_t step, uint64_t threshold, float scale);
  void (*bias_act_rows) (int act, float *y, const float *bias, size_t rows, size_t channels);
  void (*bias_act_plane) (int act, float *y, float bias, size_t count);
  float (*act_backward_sum) (int act, const float *y, float *dy, size_t count);
  void (*act_backward_rows) (int act, const float *y, float *dy, float *dbias, size_t rows,
                             size_t cols, size_t ld);
  void (*bytes_to_float) (float *dst, const uint8_t *src, size_t count, float scale);
  void (*maxpool2_row) (const float *a, const float *b, float *out, size_t ow);
  void (*maxpool2_row_backward) (const float *a, const float *b, const float *g, float *da,
                                 float *db, size_t ow);
  void (*im2col) (const NnConvShape *s, const float *x, int b0, int nb, float *col);
  void (*col2im) (const NnConvShape *s, const float *col, int b0, int nb, float *dx);
} NnCpuKernels;

/* The table for this CPU: the widest level it runs, or the one named by
 * TRAINBENCH_CPU_KERNELS (x86-64-v4, x86-64-v3, baseline) when the CPU runs
 * that one. Chosen on the first call; the same pointer on every call after,
 * hence `const`, which lets a loop that calls a wrapper below look it up
 * once. */
const NnCpuKernels *_nn_cpu_kernels (void) NN_CPU_CONST;

/* Every table built in that this CPU runs, widest first; *count gets how
 * many (the tests compare them with each other). */
const NnCpuKernels *const *_nn_cpu_kernel_sets (int *count);

/* Optimizer updates over count parameters (rules in nn-cpu-backend.c). */
static inline void
_nn_cpu_sgd (float *p, const float *g, size_t count, float lr)
{
  _nn_cpu_kernels ()->sgd (p, g, count, lr);
}

static inline void
_nn_cpu_momentum (float *p, const float *g, float *v, size_t count, float lr, float m,
                  int nesterov)
{
  _nn_cpu_kernels ()->momentum (p, g, v, count, lr, m, nesterov);
}

static inline void
_nn_cpu_adam (float *p, const float *g, float *m, float *v, size_t count, float b1, float b2,
              float alpha, float eps)
{
  _nn_cpu_kernels ()->adam (p, g, m, v, count, b1, b2, alpha, eps);
}

static inline void
_nn_cpu_adadelta (float *p, const float *g, float *eg, float *ed, size_t count, float lr,
                  float rho, float eps)
{
  _nn_cpu_kernels ()->adadelta (p, g, eg, ed, count, lr, rho, eps);
}

static inline void
_nn_cpu_rmsprop (float *p, const float *g, float *v, size_t count, float lr, float rho,
                 float eps)
{
  _nn_cpu_kernels ()->rmsprop (p, g, v, count, lr, rho, eps);
}

static inline void
_nn_cpu_adagrad (float *p, const float *g, float *a, size_t count, float lr, float eps)
{
  _nn_cpu_kernels ()->adagrad (p, g, a, count, lr, eps);
}

/* y[i] = x[i] * scale where nn_dropout_keep (seed, step, first + i, rate),
 * else 0; threshold = ceil (rate * 2^24), the same test on integers. */
static inline void
_nn_cpu_dropout (float *y, const float *x, size_t count, uint64_t first, uint64_t seed,
                 int64_t step, uint64_t threshold, float scale)
{
  _nn_cpu_kernels ()->dropout (y, x, count, first, seed, step, threshold, scale);
}

/* rows (rows, channels) = act (rows + bias), bias may be NULL; linear,
 * relu, sigmoid, tanh. */
static inline void
_nn_cpu_bias_act_rows (int act, float *y, const float *bias, size_t rows, size_t channels)
{
  _nn_cpu_kernels ()->bias_act_rows (act, y, bias, rows, channels);
}

/* one plane of count values: y = act (y + bias) */
static inline void
_nn_cpu_bias_act_plane (int act, float *y, float bias, size_t count)
{
  _nn_cpu_kernels ()->bias_act_plane (act, y, bias, count);
}

/* dz = dy * act'(y) in place over count values; returns their sum. */
static inline float
_nn_cpu_act_backward_sum (int act, const float *y, float *dy, size_t count)
{
  return _nn_cpu_kernels ()->act_backward_sum (act, y, dy, count);
}

/* The same over columns [0, cols) of rows rows `ld` apart; dbias (cols)
 * gets the column sums (overwritten) when not NULL. */
static inline void
_nn_cpu_act_backward_rows (int act, const float *y, float *dy, float *dbias, size_t rows,
                           size_t cols, size_t ld)
{
  _nn_cpu_kernels ()->act_backward_rows (act, y, dy, dbias, rows, cols, ld);
}

/* dst[i] = src[i] * scale */
static inline void
_nn_cpu_bytes_to_float (float *dst, const uint8_t *src, size_t count, float scale)
{
  _nn_cpu_kernels ()->bytes_to_float (dst, src, count, scale);
}

/* 2x2 max pooling of one output row: a, b the two input rows (2 ow). */
static inline void
_nn_cpu_maxpool2_row (const float *a, const float *b, float *out, size_t ow)
{
  _nn_cpu_kernels ()->maxpool2_row (a, b, out, ow);
}

/* Its gradient: da, db (2 ow) get g where the first maximum was, else 0. */
static inline void
_nn_cpu_maxpool2_row_backward (const float *a, const float *b, const float *g, float *da,
                               float *db, size_t ow)
{
  _nn_cpu_kernels ()->maxpool2_row_backward (a, b, g, da, db, ow);
}

/* col (crs, nb * ohw) from samples [b0, b0 + nb) of x (n, c, h, w): column
 * b * ohw + oy * out_w + ox of row (c, r, s) is
 * x[b0 + b][c][oy * stride - pad + r][ox * stride - pad + s], 0 outside. */
static inline void
_nn_cpu_im2col (const NnConvShape *s, const float *x, int b0, int nb, float *col)
{
  _nn_cpu_kernels ()->im2col (s, x, b0, nb, col);
}

/* Its adjoint: dx[b0 + b] (overwritten) = sum of the col entries that read it. */
static inline void
_nn_cpu_col2im (const NnConvShape *s, const float *col, int b0, int nb, float *dx)
{
  _nn_cpu_kernels ()->col2im (s, col, b0, nb, dx);
}
