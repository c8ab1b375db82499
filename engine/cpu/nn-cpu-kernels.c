/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-cpu-kernels.c: the CPU backend's inner loops (optimizers, dropout,
 * bias + activation, byte conversion, 2x2 pooling, im2col). The engine is
 * built for baseline x86-64 (SSE2), so meson compiles this file once more
 * for x86-64-v3 (AVX2, FMA) and x86-64-v4 (AVX-512), each time into a table
 * of its own named by NN_CPU_TABLE (nn-cpu-kernels.h); nn-cpu-dispatch.c
 * picks one. The engine builds with -std=c11, so GCC contracts no a * b + c
 * into an FMA: every level gives the same bits (test-cpu-kernels). */

#include "nn-cpu-kernels.h"
#include "nn-backend-abi.h"

#include <math.h>
#include <string.h>

#ifndef NN_CPU_TABLE
#define NN_CPU_TABLE _nn_cpu_kernels_baseline
#define NN_CPU_ISA "baseline"
#endif

/* im2col copies rows of a few dozen floats; GCC would turn each copy loop
 * into a memcpy call, which costs more than the copy at that length. */
#if defined(__GNUC__) && !defined(__clang__)
#define NO_MEMCPY __attribute__ ((optimize ("no-tree-loop-distribute-patterns")))
#else
#define NO_MEMCPY
#endif

static void
sgd (float *restrict p, const float *restrict g, size_t count, float lr)
{
  for (size_t i = 0; i < count; i++)
    p[i] -= lr * g[i];
}

static void
momentum (float *restrict p, const float *restrict g, float *restrict v, size_t count, float lr,
          float m, int nesterov)
{
  if (nesterov)
    for (size_t i = 0; i < count; i++)
      {
        v[i] = m * v[i] - lr * g[i];
        p[i] += m * v[i] - lr * g[i];
      }
  else
    for (size_t i = 0; i < count; i++)
      {
        v[i] = m * v[i] - lr * g[i];
        p[i] += v[i];
      }
}

static void
adam (float *restrict p, const float *restrict g, float *restrict m, float *restrict v,
      size_t count, float b1, float b2, float alpha, float eps)
{
  for (size_t i = 0; i < count; i++)
    {
      float gi = g[i];
      float mi = b1 * m[i] + (1.0f - b1) * gi;
      float vi = b2 * v[i] + (1.0f - b2) * gi * gi;
      m[i] = mi;
      v[i] = vi;
      p[i] -= alpha * mi / (sqrtf (vi) + eps);
    }
}

static void
adadelta (float *restrict p, const float *restrict g, float *restrict eg, float *restrict ed,
          size_t count, float lr, float rho, float eps)
{
  for (size_t i = 0; i < count; i++)
    {
      float gi = g[i];
      float egi = rho * eg[i] + (1.0f - rho) * gi * gi;
      float d = sqrtf (ed[i] + eps) / sqrtf (egi + eps) * gi;
      eg[i] = egi;
      ed[i] = rho * ed[i] + (1.0f - rho) * d * d;
      p[i] -= lr * d;
    }
}

static void
rmsprop (float *restrict p, const float *restrict g, float *restrict v, size_t count, float lr,
         float rho, float eps)
{
  for (size_t i = 0; i < count; i++)
    {
      float gi = g[i];
      float vi = rho * v[i] + (1.0f - rho) * gi * gi;
      v[i] = vi;
      p[i] -= lr * gi / (sqrtf (vi) + eps);
    }
}

static void
adagrad (float *restrict p, const float *restrict g, float *restrict a, size_t count, float lr,
         float eps)
{
  for (size_t i = 0; i < count; i++)
    {
      float gi = g[i];
      float ai = a[i] + gi * gi;
      a[i] = ai;
      p[i] -= lr * gi / (sqrtf (ai) + eps);
    }
}

/* nn_dropout_keep written so it vectorizes: the hash's input is linear in
 * the index, and (float) (z >> 40) / 2^24 >= rate is exact on integers as
 * (z >> 40) >= ceil (rate * 2^24). test-cpu-backend checks the masks
 * against nn_dropout_keep itself. */
static void
dropout (float *restrict y, const float *restrict x, size_t count, uint64_t first, uint64_t seed,
         int64_t step, uint64_t threshold, float scale)
{
  uint64_t base = seed + 0x9E3779B97F4A7C15ull * ((uint64_t) step + 1);
  for (size_t i = 0; i < count; i++)
    {
      uint64_t z = base + 0xD1B54A32D192ED03ull * (first + i);
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z ^= z >> 31;
      y[i] = (z >> 40) >= threshold ? x[i] * scale : 0.0f;
    }
}

static void
bias_act_rows (int act, float *restrict y, const float *restrict bias, size_t rows, size_t channels)
{
  for (size_t r = 0; r < rows; r++)
    {
      float *p = y + r * channels;
      switch (act)
        {
        case NN_BK_ACT_RELU:
          if (bias != NULL)
            for (size_t j = 0; j < channels; j++)
              {
                float v = p[j] + bias[j];
                p[j] = v < 0.0f ? 0.0f : v; /* keeps NaN */
              }
          else
            for (size_t j = 0; j < channels; j++)
              p[j] = p[j] < 0.0f ? 0.0f : p[j];
          break;
        case NN_BK_ACT_SIGMOID:
          for (size_t j = 0; j < channels; j++)
            p[j] = 1.0f / (1.0f + expf (-(p[j] + (bias != NULL ? bias[j] : 0.0f))));
          break;
        case NN_BK_ACT_TANH:
          for (size_t j = 0; j < channels; j++)
            p[j] = tanhf (p[j] + (bias != NULL ? bias[j] : 0.0f));
          break;
        default: /* linear */
          if (bias != NULL)
            for (size_t j = 0; j < channels; j++)
              p[j] += bias[j];
          break;
        }
    }
}

static void
bias_act_plane (int act, float *restrict y, float bias, size_t count)
{
  switch (act)
    {
    case NN_BK_ACT_RELU:
      for (size_t i = 0; i < count; i++)
        {
          float v = y[i] + bias;
          y[i] = v < 0.0f ? 0.0f : v;
        }
      break;
    case NN_BK_ACT_SIGMOID:
      for (size_t i = 0; i < count; i++)
        y[i] = 1.0f / (1.0f + expf (-(y[i] + bias)));
      break;
    case NN_BK_ACT_TANH:
      for (size_t i = 0; i < count; i++)
        y[i] = tanhf (y[i] + bias);
      break;
    default:
      for (size_t i = 0; i < count; i++)
        y[i] += bias;
      break;
    }
}

/* The sum runs in LANES partial sums (element i into lane i % LANES), added
 * together at the end: one running float sum is a chain of dependent adds
 * that the compiler may not reorder, a few cycles per element, and it set
 * the pace of the whole pass (cnn's conv activations: 9.4M and 5.5M
 * elements a step). */
enum { LANES = 32 };

/* d[i] = EXPR (of y[i] and d[i]) for i < count, and the sum of the new d. */
#define ACT_BACKWARD_SUM(EXPR) \
  do \
    { \
      for (size_t i0 = 0; i0 < whole; i0 += LANES) \
        for (size_t l = 0; l < LANES; l++) \
          { \
            size_t i = i0 + l; \
            float v = (EXPR); \
            d[i] = v; \
            lane[l] += v; \
          } \
      for (size_t i = whole; i < count; i++) \
        { \
          float v = (EXPR); \
          d[i] = v; \
          lane[i - whole] += v; \
        } \
    } \
  while (0)

static float
act_backward_sum (int act, const float *restrict y, float *restrict d, size_t count)
{
  float lane[LANES] = { 0.0f };
  size_t whole = count / LANES * LANES;

  switch (act)
    {
    case NN_BK_ACT_RELU:
      ACT_BACKWARD_SUM (y[i] > 0.0f ? d[i] : 0.0f);
      break;
    case NN_BK_ACT_SIGMOID:
      ACT_BACKWARD_SUM (d[i] * (y[i] * (1.0f - y[i])));
      break;
    case NN_BK_ACT_TANH:
      ACT_BACKWARD_SUM (d[i] * (1.0f - y[i] * y[i]));
      break;
    default: /* linear, softmax (applied by the caller) */
      ACT_BACKWARD_SUM (d[i]);
      break;
    }
  float sum = 0.0f;
  for (size_t l = 0; l < LANES; l++)
    sum += lane[l];
  return sum;
}

static void
act_backward_rows (int act, const float *restrict y, float *restrict dy, float *restrict dbias,
                   size_t rows, size_t cols, size_t ld)
{
  if (dbias != NULL)
    memset (dbias, 0, cols * sizeof (float));
  for (size_t r = 0; r < rows; r++)
    {
      const float *yr = y + r * ld;
      float *d = dy + r * ld;
      switch (act)
        {
        case NN_BK_ACT_RELU:
          for (size_t j = 0; j < cols; j++)
            d[j] = yr[j] > 0.0f ? d[j] : 0.0f;
          break;
        case NN_BK_ACT_SIGMOID:
          for (size_t j = 0; j < cols; j++)
            d[j] *= yr[j] * (1.0f - yr[j]);
          break;
        case NN_BK_ACT_TANH:
          for (size_t j = 0; j < cols; j++)
            d[j] *= 1.0f - yr[j] * yr[j];
          break;
        default:
          break;
        }
      if (dbias != NULL)
        for (size_t j = 0; j < cols; j++)
          dbias[j] += d[j];
    }
}

static void
bytes_to_float (float *restrict dst, const uint8_t *restrict src, size_t count, float scale)
{
  for (size_t i = 0; i < count; i++)
    dst[i] = (float) src[i] * scale;
}

static void
maxpool2_row (const float *restrict a, const float *restrict b, float *restrict out, size_t ow)
{
  for (size_t j = 0; j < ow; j++)
    {
      float m0 = a[2 * j + 1] > a[2 * j] ? a[2 * j + 1] : a[2 * j];
      float m1 = b[2 * j + 1] > b[2 * j] ? b[2 * j + 1] : b[2 * j];
      out[j] = m1 > m0 ? m1 : m0;
    }
}

static void
maxpool2_row_backward (const float *restrict a, const float *restrict b, const float *restrict g,
                       float *restrict da, float *restrict db, size_t ow)
{
  for (size_t j = 0; j < ow; j++)
    {
      /* The first maximum in row-major order a0 a1 b0 b1, as float
       * selects only so the loop vectorizes: b1 if it beats the maximum of
       * the others, else b0 if it beats a0 a1's, else a1 if it beats a0. */
      float a0 = a[2 * j], a1 = a[2 * j + 1], b0 = b[2 * j], b1 = b[2 * j + 1];
      float m1 = a1 > a0 ? a1 : a0;
      float m2 = b0 > m1 ? b0 : m1;
      float gj = g[j];
      float rest3 = b1 > m2 ? 0.0f : gj;
      float rest2 = b0 > m1 ? 0.0f : rest3;
      db[2 * j + 1] = b1 > m2 ? gj : 0.0f;
      db[2 * j] = b0 > m1 ? rest3 : 0.0f;
      da[2 * j + 1] = a1 > a0 ? rest2 : 0.0f;
      da[2 * j] = a1 > a0 ? 0.0f : rest2;
    }
}

/* ---------------------------------------------------------------- im2col */

/* [lo, hi): the output columns whose input column, at filter column q,
 * lies inside the image (the rest read padding). */
static inline void
inside_columns (const NnConvShape *s, int q, int *lo, int *hi)
{
  int ox_lo = 0, ox_hi = s->out_w;
  while (ox_lo < s->out_w && ox_lo * s->stride_w - s->pad_w + q < 0)
    ox_lo++;
  while (ox_hi > ox_lo && (ox_hi - 1) * s->stride_w - s->pad_w + q >= s->w)
    ox_hi--;
  *lo = ox_lo;
  *hi = ox_hi;
}

/* Serial: each runs on one conv worker's samples (nn-cpu-backend.c). */
NO_MEMCPY static void
im2col (const NnConvShape *s, const float *restrict x, int b0, int nb, float *restrict col)
{
  size_t ohw = (size_t) s->out_h * s->out_w;
  long jobs = (long) nb * s->c;
  size_t ld = (size_t) nb * ohw;
  size_t plane = (size_t) s->h * s->w;

  for (long job = 0; job < jobs; job++)
    {
      int b = (int) (job / s->c), c = (int) (job % s->c);
      const float *xp = x + ((size_t) (b0 + b) * s->c + c) * plane;
      for (int r = 0; r < s->r; r++)
        for (int q = 0; q < s->s; q++)
          {
            float *dst = col + (((size_t) c * s->r + r) * s->s + q) * ld + (size_t) b * ohw;
            int ox_lo, ox_hi;
            inside_columns (s, q, &ox_lo, &ox_hi);
            for (int oy = 0; oy < s->out_h; oy++, dst += s->out_w)
              {
                int iy = oy * s->stride_h - s->pad_h + r;
                if (iy < 0 || iy >= s->h)
                  {
                    for (int ox = 0; ox < s->out_w; ox++)
                      dst[ox] = 0.0f;
                    continue;
                  }
                const float *src = xp + (size_t) iy * s->w - s->pad_w + q;
                for (int ox = 0; ox < ox_lo; ox++)
                  dst[ox] = 0.0f;
                if (s->stride_w == 1)
                  for (int ox = ox_lo; ox < ox_hi; ox++)
                    dst[ox] = src[ox];
                else
                  for (int ox = ox_lo; ox < ox_hi; ox++)
                    dst[ox] = src[(size_t) ox * s->stride_w];
                for (int ox = ox_hi; ox < s->out_w; ox++)
                  dst[ox] = 0.0f;
              }
          }
    }
}

NO_MEMCPY static void
col2im (const NnConvShape *s, const float *restrict col, int b0, int nb, float *restrict dx)
{
  size_t ohw = (size_t) s->out_h * s->out_w;
  long jobs = (long) nb * s->c;
  size_t ld = (size_t) nb * ohw;
  size_t plane = (size_t) s->h * s->w;

  for (long job = 0; job < jobs; job++)
    {
      int b = (int) (job / s->c), c = (int) (job % s->c);
      float *xp = dx + ((size_t) (b0 + b) * s->c + c) * plane;
      for (size_t i = 0; i < plane; i++)
        xp[i] = 0.0f;
      for (int r = 0; r < s->r; r++)
        for (int q = 0; q < s->s; q++)
          {
            const float *src = col + (((size_t) c * s->r + r) * s->s + q) * ld + (size_t) b * ohw;
            int ox_lo, ox_hi;
            inside_columns (s, q, &ox_lo, &ox_hi);
            for (int oy = 0; oy < s->out_h; oy++, src += s->out_w)
              {
                int iy = oy * s->stride_h - s->pad_h + r;
                if (iy < 0 || iy >= s->h)
                  continue;
                float *dst = xp + (size_t) iy * s->w - s->pad_w + q;
                if (s->stride_w == 1)
                  for (int ox = ox_lo; ox < ox_hi; ox++)
                    dst[ox] += src[ox];
                else
                  for (int ox = ox_lo; ox < ox_hi; ox++)
                    dst[(size_t) ox * s->stride_w] += src[ox];
              }
          }
    }
}

/* extern: nn-cpu-dispatch.c declares the tables it links in */
extern const NnCpuKernels NN_CPU_TABLE;

const NnCpuKernels NN_CPU_TABLE = {
  .isa = NN_CPU_ISA,
  .sgd = sgd,
  .momentum = momentum,
  .adam = adam,
  .adadelta = adadelta,
  .rmsprop = rmsprop,
  .adagrad = adagrad,
  .dropout = dropout,
  .bias_act_rows = bias_act_rows,
  .bias_act_plane = bias_act_plane,
  .act_backward_sum = act_backward_sum,
  .act_backward_rows = act_backward_rows,
  .bytes_to_float = bytes_to_float,
  .maxpool2_row = maxpool2_row,
  .maxpool2_row_backward = maxpool2_row_backward,
  .im2col = im2col,
  .col2im = col2im,
};
