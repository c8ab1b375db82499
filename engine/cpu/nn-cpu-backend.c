/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-cpu-backend.c: the CPU backend, the op table of nn-backend-abi.h on host
 * memory. Matrix products go to OpenBLAS (_nn_sgemm); the engine's own loops
 * (im2col, activations, pooling, optimizer) run on its thread pool.
 *
 * Thread strategy: one pool, the engine's (nn-parallel.c). OpenBLAS runs
 * single-threaded; _nn_sgemm splits large products over the pool, or runs
 * unsplit inside a part, where convolutions give each part whole samples.
 * A loop is cut into as many parts as it has threads worth waking
 * (par_threads); loops too small for that run on the calling thread.
 */

#define _GNU_SOURCE

#include "nn-private.h"
#include "nn-cpu-kernels.h"
#include "nn-cpu-math.h"

#include <math.h>
#include <stdio.h>
#if defined(__SSE2__) || defined(_M_X64)
#include <pmmintrin.h>
#include <xmmintrin.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "nn-os.h"

/* Below this many elements a loop runs on the calling thread only (the
 * loops not yet sized by par_threads). */
#ifndef PAR_MIN
#define PAR_MIN 262144
#endif

/* Streaming loops take one thread per PAR_GRAIN elements at most, so that
 * each thread's share outweighs the cost of waking and joining it (an
 * estimate; the constant was not timed on its own): a small loop (a dense
 * layer's 32x128 activations) stays on the calling thread and a large one
 * uses them all. The optimizer counts 4 per parameter (see there). */
#ifndef PAR_GRAIN
#define PAR_GRAIN 65536
#endif

/* Floats of im2col scratch per chunk of one conv worker (1 MiB): small
 * enough that the columns are still in L2 when the GEMM reads them. For the
 * cnn preset's second conv that is one sample, for its first about 40. */
#ifndef CONV_CHUNK_FLOATS
#define CONV_CHUNK_FLOATS (256u << 10)
#endif

/* All workers' im2col scratch together, at most (64 MiB): bounds the
 * workspace on machines with very many cores. */
#ifndef CONV_WORKSPACE_FLOATS
#define CONV_WORKSPACE_FLOATS (16u << 20)
#endif

#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch (p)
#else
#define PREFETCH(p) ((void) (p))
#endif

typedef struct
{
  char last_error[1024];
  int threads;
} CpuContext;

typedef struct
{
  NnConvShape s;
  int chunk;          /* samples per im2col chunk of one worker */
  int workers;        /* threads the workspace has room for */
  size_t crs;         /* c * r * s */
  size_t ohw;         /* out_h * out_w */
  size_t col_floats;  /* one worker's im2col scratch: crs * chunk * ohw */
  size_t dw_floats;   /* one worker's dw partial sum: k * crs (0 with one worker) */
} CpuConvPlan;

static int
fail (CpuContext *ctx, int code, const char *format, ...) NN_PRINTF (3, 4);

static int
fail (CpuContext *ctx, int code, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  vsnprintf (ctx->last_error, sizeof ctx->last_error, format, args);
  va_end (args);
  return code;
}

static inline int
nthreads (void)
{
  int t = _nn_threads ();
  return t > 0 ? t : 1;
}

/* Threads worth waking for a streaming loop over `work` elements. */
static inline int
par_threads (size_t work)
{
  size_t want = work / PAR_GRAIN;
  int nt = nthreads ();
  if (want < 2 || nt < 2)
    return 1;
  return want < (size_t) nt ? (int) want : nt;
}

/* Parts for a loop of `work` elements that used to go parallel only above
 * PAR_MIN: all threads, or the calling thread alone. */
static inline int
par_min_threads (size_t work)
{
  return work > PAR_MIN ? nthreads () : 1;
}

/* ---------------------------------------------------------------- devices */

static int
cpu_device_count (char *reason, size_t reason_size)
{
  if (reason != NULL && reason_size > 0)
    reason[0] = '\0';
  return 1;
}

static int
cpu_device_info (int index, NnBackendDeviceInfo *info)
{
  if (index != 0 || info == NULL)
    return NN_BACKEND_ERROR;
  memset (info, 0, sizeof *info);
  snprintf (info->name, sizeof info->name, "CPU");
  info->memory_bytes = _nn_physical_memory ();
  return NN_BACKEND_OK;
}

/* ---------------------------------------------------------------- context */

/* Flush denormal floats to zero on this thread, as TensorFlow's CPU threads
 * do under Keras. Late in training Adam's moments and many gradients fall
 * below 1.2e-38, and on Intel cores each denormal operand costs a
 * microcode assist: on the GPU machine's host, 2 threads, a full mlp-wide
 * epoch took 2.7 times as long without the flush as with it. The FP
 * environment is per thread, so every worker sets it. */
static void
flush_denormals (void)
{
#if defined(__SSE2__) || defined(_M_X64)
  _MM_SET_FLUSH_ZERO_MODE (_MM_FLUSH_ZERO_ON);
  _MM_SET_DENORMALS_ZERO_MODE (_MM_DENORMALS_ZERO_ON);
#endif
}

static int
cpu_context_new (int device_index, const NnBackendOptions *options, void **out,
                 char *error, size_t error_size)
{
  CpuContext *ctx;

  *out = NULL;
  if (device_index != 0)
    {
      snprintf (error, error_size, "no CPU device %d (there is only cpu)", device_index);
      return NN_BACKEND_ERROR;
    }
  ctx = calloc (1, sizeof *ctx);
  if (ctx == NULL)
    {
      snprintf (error, error_size, "out of memory for the CPU backend context");
      return NN_BACKEND_OUT_OF_MEMORY;
    }
  /* OpenBLAS and the engine's loops take the same count. */
  ctx->threads = nn_threads_set (options != NULL ? options->threads : 0);
  /* On the calling thread: the pool's workers take the caller's mode with
   * each part they run (nn-parallel.c). */
  flush_denormals ();
  *out = ctx;
  return NN_BACKEND_OK;
}

static void
cpu_context_free (void *ctx)
{
  free (ctx);
}

static const char *
cpu_last_error (void *ctx)
{
  return ctx != NULL ? ((CpuContext *) ctx)->last_error : "no CPU backend context";
}

/* ---------------------------------------------------------------- memory */

static int
cpu_alloc (void *vctx, size_t bytes, void **ptr)
{
  CpuContext *ctx = vctx;
  /* Asking for more than the machine has can only end with the kernel
   * killing us later, so such a request fails at once. */
  uint64_t ram = _nn_physical_memory ();
  char size_text[96];
  void *p = NULL;

  *ptr = NULL;
  if (bytes == 0)
    bytes = 1;
  _nn_format_bytes ((double) bytes, size_text, sizeof size_text);
  if (bytes > SIZE_MAX - 64 || (ram > 0 && bytes > ram))
    return fail (ctx, NN_BACKEND_OUT_OF_MEMORY,
                 "out of memory: cannot allocate %s, more than this machine's memory",
                 size_text);
  /* Round up so vector loops may read whole 64-byte lines; large blocks
   * start on a (huge) page, see _nn_os_alloc_aligned. */
  size_t rounded = (bytes + 63) & ~(size_t) 63;
  p = _nn_os_alloc_aligned (&rounded);
  if (p == NULL)
    return fail (ctx, NN_BACKEND_OUT_OF_MEMORY, "out of memory: cannot allocate %s", size_text);
  memset (p, 0, rounded);
  *ptr = p;
  return NN_BACKEND_OK;
}

static void
cpu_free (void *ctx, void *ptr)
{
  _nn_os_free_aligned (ptr);
}

static int
cpu_copy (void *ctx, void *dst, const void *src, size_t bytes)
{
  if (bytes > 0 && dst != src)
    memmove (dst, src, bytes);
  return NN_BACKEND_OK;
}

static int
cpu_fill (void *ctx, float *dst, float value, size_t count)
{
  if (value == 0.0f)
    {
      memset (dst, 0, count * sizeof (float));
      return NN_BACKEND_OK;
    }
  for (size_t i = 0; i < count; i++)
    dst[i] = value;
  return NN_BACKEND_OK;
}

static int
cpu_synchronize (void *ctx)
{
  return NN_BACKEND_OK;
}

/* Host memory for batches gathered on the host (NN_DATA_PINNED): nothing
 * to lock on the CPU, so the same memory as the device's, and the copy a
 * memcpy that is done when it returns. */
static int
cpu_upload_wait (void *ctx)
{
  return NN_BACKEND_OK;
}

/* ---------------------------------------------------------------- gemm */

static int
cpu_gemm (void *vctx, int trans_a, int trans_b, int m, int n, int k, float alpha,
          const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc)
{
  CpuContext *ctx = vctx;
  if (m < 0 || n < 0 || k < 0)
    return fail (ctx, NN_BACKEND_ERROR, "gemm: negative size (%d, %d, %d)", m, n, k);
  if (m == 0 || n == 0)
    return NN_BACKEND_OK;
  if (ldc < n || lda < (trans_a ? m : k) || ldb < (trans_b ? k : n))
    return fail (ctx, NN_BACKEND_ERROR, "gemm: a row stride is smaller than its row");
  _nn_sgemm (trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  return NN_BACKEND_OK;
}

/* ---------------------------------------------------------------- bias + activation */

/* Softmax over `channels` values `stride` apart, in place. */
static inline void
softmax_row (float *y, int channels, int stride)
{
  float mx = -INFINITY;
  double sum = 0.0;
  for (int j = 0; j < channels; j++)
    mx = fmaxf (mx, y[(size_t) j * stride]);
  for (int j = 0; j < channels; j++)
    {
      float e = expf (y[(size_t) j * stride] - mx);
      y[(size_t) j * stride] = e;
      sum += e;
    }
  float inv = (float) (1.0 / sum);
  for (int j = 0; j < channels; j++)
    y[(size_t) j * stride] *= inv;
}

/* One loop's arguments for its ranges: the activation, the tensors and the
 * sizes the loops below need. */
typedef struct
{
  int act;
  float *y;
  float *dy;
  const float *cy;
  const float *bias;
  float *dbias;
  size_t n, channels, spatial;
} ActLoop;

static void
bias_act_rows_range (void *data, size_t lo, size_t hi)
{
  const ActLoop *l = data;
  _nn_cpu_bias_act_rows (l->act, l->y + lo * l->channels, l->bias, hi - lo, l->channels);
}

static void
bias_act_planes_range (void *data, size_t lo, size_t hi)
{
  const ActLoop *l = data;
  for (size_t row = lo; row < hi; row++)
    _nn_cpu_bias_act_plane (l->act, l->y + row * l->spatial,
                            l->bias != NULL ? l->bias[row % l->channels] : 0.0f, l->spatial);
}

static void
softmax_range (void *data, size_t lo, size_t hi)
{
  const ActLoop *l = data;
  for (size_t g = lo; g < hi; g++)
    {
      size_t b = g / l->spatial, s = g % l->spatial;
      softmax_row (l->y + b * l->channels * l->spatial + s, (int) l->channels, (int) l->spatial);
    }
}

static int
cpu_bias_act_forward (void *vctx, int act, float *y, const float *bias,
                      int n, int channels, int spatial)
{
  CpuContext *ctx = vctx;
  long rows = (long) n * channels;
  size_t sp = (size_t) spatial;

  if (act < NN_BK_ACT_LINEAR || act > NN_BK_ACT_SOFTMAX)
    return fail (ctx, NN_BACKEND_ERROR, "unknown activation %d", act);
  if (act != NN_BK_ACT_SOFTMAX ? act != NN_BK_ACT_LINEAR || bias != NULL : bias != NULL)
    {
      ActLoop l = { .act = act == NN_BK_ACT_SOFTMAX ? NN_BK_ACT_LINEAR : act, .y = y,
                    .bias = bias, .n = (size_t) n, .channels = (size_t) channels,
                    .spatial = sp };
      int nt = par_threads ((size_t) rows * sp);
      if (sp == 1)
        /* dense: rows of `channels` values, the bias along each row */
        _nn_parallel_range ((size_t) n, 1, nt, bias_act_rows_range, &l);
      else
        _nn_parallel_range ((size_t) rows, 1, nt, bias_act_planes_range, &l);
    }
  if (act == NN_BK_ACT_SOFTMAX)
    {
      ActLoop l = { .y = y, .n = (size_t) n, .channels = (size_t) channels, .spatial = sp };
      _nn_parallel_range ((size_t) n * sp, 1, par_min_threads ((size_t) rows * sp),
                          softmax_range, &l);
    }
  return NN_BACKEND_OK;
}

/* dz_i = y_i (dy_i - sum_j dy_j y_j): softmax's Jacobian-vector product. */
static void
softmax_backward_range (void *data, size_t lo, size_t hi)
{
  const ActLoop *l = data;
  size_t sp = l->spatial;
  for (size_t g = lo; g < hi; g++)
    {
      size_t b = g / sp, s = g % sp;
      const float *yr = l->cy + b * l->channels * sp + s;
      float *dr = l->dy + b * l->channels * sp + s;
      double dot = 0.0;
      for (size_t j = 0; j < l->channels; j++)
        dot += (double) dr[j * sp] * yr[j * sp];
      for (size_t j = 0; j < l->channels; j++)
        dr[j * sp] = yr[j * sp] * (dr[j * sp] - (float) dot);
    }
}

/* dense: columns [lo, hi) of every row */
static void
act_backward_columns_range (void *data, size_t lo, size_t hi)
{
  const ActLoop *l = data;
  _nn_cpu_act_backward_rows (l->act, l->cy + lo, l->dy + lo,
                             l->dbias != NULL ? l->dbias + lo : NULL, l->n, hi - lo,
                             l->channels);
}

/* images, channels [lo, hi): each channel's sum over the batch */
static void
act_backward_channels_range (void *data, size_t lo, size_t hi)
{
  const ActLoop *l = data;
  for (size_t c = lo; c < hi; c++)
    {
      double acc = 0.0;
      for (size_t b = 0; b < l->n; b++)
        {
          size_t off = (b * l->channels + c) * l->spatial;
          acc += _nn_cpu_act_backward_sum (l->act, l->cy + off, l->dy + off, l->spatial);
        }
      if (l->dbias != NULL)
        l->dbias[c] = (float) acc;
    }
}

/* images, the samples of one part: its partial bias sums, (channels) at
 * parts + part * channels */
typedef struct
{
  ActLoop l;
  double *parts;
} ActPartials;

static void
act_backward_partials (void *data, int part, int parts)
{
  const ActPartials *p = data;
  const ActLoop *l = &p->l;
  double *sums = p->parts + (size_t) part * l->channels;
  size_t lo, hi;
  _nn_part_range (l->n, 1, part, parts, &lo, &hi);
  for (size_t c = 0; c < l->channels; c++)
    sums[c] = 0.0;
  for (size_t b = lo; b < hi; b++)
    for (size_t c = 0; c < l->channels; c++)
      {
        size_t off = (b * l->channels + c) * l->spatial;
        sums[c] += _nn_cpu_act_backward_sum (l->act, l->cy + off, l->dy + off, l->spatial);
      }
}

static int
cpu_bias_act_backward (void *vctx, int act, const float *y, float *dy, float *dbias,
                       int n, int channels, int spatial)
{
  CpuContext *ctx = vctx;
  size_t sp = (size_t) spatial;
  long total = (long) n * channels * spatial;

  if (act < NN_BK_ACT_LINEAR || act > NN_BK_ACT_SOFTMAX)
    return fail (ctx, NN_BACKEND_ERROR, "unknown activation %d", act);

  ActLoop l = { .cy = y, .dy = dy, .n = (size_t) n, .channels = (size_t) channels,
                .spatial = sp };
  if (act == NN_BK_ACT_SOFTMAX)
    _nn_parallel_range ((size_t) n * sp, 1, par_min_threads ((size_t) total),
                        softmax_backward_range, &l);

  if (dbias == NULL && (act == NN_BK_ACT_LINEAR || act == NN_BK_ACT_SOFTMAX))
    return NN_BACKEND_OK;

  /* The activation's derivative (not for softmax, done above) and the bias
   * gradient summed over samples and positions. */
  l.act = act == NN_BK_ACT_SOFTMAX ? NN_BK_ACT_LINEAR : act;
  l.dbias = dbias;
  int nt = par_threads ((size_t) total);
  if (sp == 1)
    {
      /* dense: each part a block of columns, so no partial sums */
      _nn_parallel_range ((size_t) channels, 16, nt, act_backward_columns_range, &l);
      return NN_BACKEND_OK;
    }
  /* Images: walk the planes in memory order (each thread whole samples),
   * so y and dy stream; visiting one channel across the batch jumps a
   * sample's size between planes. The bias sums go to per-part partials,
   * added in part order: the same bits on every run with this thread
   * count. With the sums vectorised (nn-cpu-kernels.c, LANES), cnn's two
   * activation gradients take 2.2 -> 0.9 ms and 3.6 -> 1.3 ms a step
   * (bench/results/local2core-cpu-ops-2026-11-30.md). */
  enum { PARTS = 8192 };
  double parts[PARTS]; /* (parts, channels) */
  if (nt > n)
    nt = n;
  if ((size_t) nt * channels > PARTS)
    nt = PARTS / channels;
  if (nt < 1 || (dbias == NULL && nt <= 1))
    {
      /* one thread, or too many channels for the partials: per channel */
      _nn_parallel_range ((size_t) channels, 1, par_threads ((size_t) total),
                          act_backward_channels_range, &l);
      return NN_BACKEND_OK;
    }
  ActPartials partials = { l, parts };
  _nn_parallel (nt, act_backward_partials, &partials);
  /* The partials added after the join, in part order: at most PARTS
   * additions, fewer than a second parallel pass would cost. */
  if (dbias != NULL)
    for (int c = 0; c < channels; c++)
      {
        double acc = 0.0;
        for (int u = 0; u < nt; u++)
          acc += parts[(size_t) u * channels + c];
        dbias[c] = (float) acc;
      }
  return NN_BACKEND_OK;
}

/* ---------------------------------------------------------------- dropout */

typedef struct
{
  float *y;
  const float *x;
  uint64_t seed, threshold;
  int64_t step;
  float scale;
} DropoutLoop;

static void
dropout_range (void *data, size_t lo, size_t hi)
{
  const DropoutLoop *l = data;
  _nn_cpu_dropout (l->y + lo, l->x + lo, hi - lo, lo, l->seed, l->step, l->threshold, l->scale);
}

static int
dropout_apply (CpuContext *ctx, float *y, const float *x, size_t count, float rate,
               uint64_t seed, const int64_t *step)
{
  if (!(rate >= 0.0f && rate < 1.0f))
    return fail (ctx, NN_BACKEND_ERROR, "dropout rate %g is outside [0, 1)", (double) rate);
  int64_t st = step != NULL ? *step : 0;
  float scale = 1.0f / (1.0f - rate);
  /* nn_dropout_keep's test on the top 24 bits, as an integer threshold */
  uint64_t threshold = (uint64_t) ceilf (rate * 16777216.0f);
  DropoutLoop l = { y, x, seed, threshold, st, scale };
  _nn_parallel_range (count, 16, par_threads (count), dropout_range, &l);
  return NN_BACKEND_OK;
}

static int
cpu_dropout_forward (void *ctx, float *y, const float *x, size_t count, float rate,
                     uint64_t seed, const int64_t *step)
{
  return dropout_apply (ctx, y, x, count, rate, seed, step);
}

static int
cpu_dropout_backward (void *ctx, float *dx, const float *dy, size_t count, float rate,
                      uint64_t seed, const int64_t *step)
{
  return dropout_apply (ctx, dx, dy, count, rate, seed, step);
}

/* ---------------------------------------------------------------- convolution */

/* How many threads one convolution uses. Each takes whole samples, so every
 * GEMM runs single-threaded on columns still in its core's L2 instead of a
 * 64x288x576 product split over all threads, which stalls when a core is
 * busy (commit 12e7996, measured on the 2-core development machine).
 * With fewer samples than half the threads the samples run one after
 * another and _nn_sgemm splits each product instead; tiny convolutions stay
 * on the calling thread. */
static int
conv_workers (const CpuConvPlan *p, int threads)
{
  const NnConvShape *s = &p->s;
  double flops = 2.0 * s->n * s->k * (double) p->crs * (double) p->ohw;

  if (threads <= 1 || flops < 4e6 || 2 * s->n < threads)
    return 1;
  return threads < s->n ? threads : s->n;
}

static int
cpu_conv2d_plan_new (void *vctx, const NnConvShape *shape, void **plan, size_t *workspace_bytes)
{
  CpuContext *ctx = vctx;
  const NnConvShape *s = shape;
  CpuConvPlan *p;

  *plan = NULL;
  if (s->n < 1 || s->c < 1 || s->h < 1 || s->w < 1 || s->k < 1 || s->r < 1 || s->s < 1
      || s->stride_h < 1 || s->stride_w < 1 || s->pad_h < 0 || s->pad_w < 0
      || s->out_h < 1 || s->out_w < 1)
    return fail (ctx, NN_BACKEND_ERROR,
                 "conv2d: bad shape (n %d, c %d, %dx%d, k %d, %dx%d, stride %dx%d, "
                 "pad %dx%d, out %dx%d)", s->n, s->c, s->h, s->w, s->k, s->r, s->s,
                 s->stride_h, s->stride_w, s->pad_h, s->pad_w, s->out_h, s->out_w);
  p = calloc (1, sizeof *p);
  if (p == NULL)
    return fail (ctx, NN_BACKEND_OUT_OF_MEMORY, "conv2d: out of memory for a plan");
  p->s = *s;
  p->crs = (size_t) s->c * s->r * s->s;
  p->ohw = (size_t) s->out_h * s->out_w;
  size_t per_sample = p->crs * p->ohw;
  p->workers = conv_workers (p, nthreads ());
  /* Scratch grows with the thread count: keep all workers' columns within
   * CONV_WORKSPACE_FLOATS (fewer workers if one sample is that big). */
  while (p->workers > 1 && (size_t) p->workers * per_sample > CONV_WORKSPACE_FLOATS)
    p->workers--;
  size_t per_worker = ((size_t) s->n + p->workers - 1) / p->workers;
  size_t chunk = CONV_CHUNK_FLOATS / per_sample;
  if (chunk < 1)
    chunk = 1;
  if (chunk > per_worker)
    chunk = per_worker;
  p->chunk = (int) chunk;
  /* multiples of 16 floats: each worker's block starts on a cache line */
  p->col_floats = (per_sample * chunk + 15) & ~(size_t) 15;
  p->dw_floats = p->workers > 1 ? ((size_t) s->k * p->crs + 15) & ~(size_t) 15 : 0;
  *workspace_bytes = (size_t) p->workers * (p->col_floats + p->dw_floats) * sizeof (float);
  *plan = p;
  return NN_BACKEND_OK;
}

static void
cpu_conv2d_plan_free (void *ctx, void *plan)
{
  free (plan);
}

/* Samples [lo, hi) of the forward pass on one worker's col (crs, chunk * ohw);
 * with act >= 0, each chunk's y then gets its bias and activation while it
 * is still in this core's cache (conv2d_forward_bias_act). */
static void
conv_forward_range (const CpuConvPlan *p, const float *x, const float *w, float *y,
                    float *col, int lo, int hi, const float *bias, int act)
{
  const NnConvShape *s = &p->s;
  size_t y_sample = (size_t) s->k * p->ohw;

  for (int b0 = lo; b0 < hi; b0 += p->chunk)
    {
      int nb = hi - b0 < p->chunk ? hi - b0 : p->chunk;
      _nn_cpu_im2col (&p->s, x, b0, nb, col);
      /* y[b] (k, ohw) = w (k, crs) @ col[:, b] (crs, ohw) */
      for (int b = 0; b < nb; b++)
        _nn_sgemm (0, 0, s->k, (int) p->ohw, (int) p->crs, 1.0f, w, (int) p->crs,
                   col + (size_t) b * p->ohw, (int) (nb * p->ohw), 0.0f,
                   y + (size_t) (b0 + b) * y_sample, (int) p->ohw);
      if (act < 0 || (act == NN_BK_ACT_LINEAR && bias == NULL))
        continue;
      /* the same plane loop as bias_act_forward's, so the same bits */
      for (size_t row = 0; row < (size_t) nb * s->k; row++)
        _nn_cpu_bias_act_plane (act, y + (size_t) b0 * y_sample + row * p->ohw,
                                bias != NULL ? bias[row % s->k] : 0.0f, p->ohw);
    }
}

/* Samples [lo, hi) of the backward pass: dw_part (k, crs) = their weight
 * gradient (overwritten), dx of those samples when dx is not NULL. */
static void
conv_backward_range (const CpuConvPlan *p, const float *x, const float *w, const float *dy,
                     float *dx, float *dw_part, float *col, int lo, int hi)
{
  const NnConvShape *s = &p->s;
  size_t y_sample = (size_t) s->k * p->ohw;
  int first = 1;

  if (lo >= hi)
    memset (dw_part, 0, (size_t) s->k * p->crs * sizeof (float));
  for (int b0 = lo; b0 < hi; b0 += p->chunk)
    {
      int nb = hi - b0 < p->chunk ? hi - b0 : p->chunk;
      int ld = (int) (nb * p->ohw);
      _nn_cpu_im2col (&p->s, x, b0, nb, col);
      /* dw (k, crs) += dy[b] (k, ohw) @ col[:, b]^T (ohw, crs) */
      for (int b = 0; b < nb; b++, first = 0)
        _nn_sgemm (0, 1, s->k, (int) p->crs, (int) p->ohw, 1.0f,
                   dy + (size_t) (b0 + b) * y_sample, (int) p->ohw,
                   col + (size_t) b * p->ohw, ld, first ? 0.0f : 1.0f, dw_part, (int) p->crs);
      if (dx == NULL)
        continue;
      /* dcol[:, b] (crs, ohw) = w^T (crs, k) @ dy[b] (k, ohw), over col. */
      for (int b = 0; b < nb; b++)
        _nn_sgemm (1, 0, (int) p->crs, (int) p->ohw, s->k, 1.0f, w, (int) p->crs,
                   dy + (size_t) (b0 + b) * y_sample, (int) p->ohw, 0.0f,
                   col + (size_t) b * p->ohw, ld);
      _nn_cpu_col2im (&p->s, col, b0, nb, dx);
    }
}

/* Workers for this call: the plan's room, today's thread count. */
static int
conv_run_workers (const CpuConvPlan *p)
{
  int t = nthreads ();
  return conv_workers (p, t < p->workers ? t : p->workers);
}

/* One convolution's arguments for its parts: part t takes samples
 * [n t / parts, n (t + 1) / parts) and the t-th block of the scratch. */
typedef struct
{
  const CpuConvPlan *p;
  const float *x, *w, *dy, *bias;
  float *y, *dx, *dw, *col, *parts;
  int act;
} ConvCall;

static void
conv_forward_part (void *data, int part, int parts)
{
  const ConvCall *c = data;
  int lo = (int) ((long) c->p->s.n * part / parts);
  int hi = (int) ((long) c->p->s.n * (part + 1) / parts);
  conv_forward_range (c->p, c->x, c->w, c->y, c->col + (size_t) part * c->p->col_floats, lo,
                      hi, c->bias, c->act);
}

static int
conv_forward (const CpuConvPlan *p, const float *x, const float *w, float *y, void *workspace,
              const float *bias, int act)
{
  /* workspace: workers x (crs, chunk * ohw) */
  ConvCall c = { .p = p, .x = x, .w = w, .y = y, .col = workspace, .bias = bias, .act = act };
  _nn_parallel (conv_run_workers (p), conv_forward_part, &c);
  return NN_BACKEND_OK;
}

static int
cpu_conv2d_forward (void *ctx, void *plan, const float *x, const float *w, float *y,
                    void *workspace)
{
  return conv_forward (plan, x, w, y, workspace, NULL, -1);
}

/* The bias and activation applied by each conv worker to its samples right
 * after their products, instead of one more pass over the whole output:
 * cnn's two conv outputs are 22 and 37 MB a step, and those passes took
 * 0.53 and 1.14 ms of its 116 ms step on the 2-core development machine
 * (per-op timer over the backend ops, 2 threads). trainbench-cli train
 * --preset cnn --threads 2 --max-steps 30, median step, 7 rounds
 * interleaved: 113.8-117.2 ms with the two ops, 112.7-113.8 ms with this
 * one (one round with other load: 121.1). */
static int
cpu_conv2d_forward_bias_act (void *vctx, void *plan, const float *x, const float *w,
                             const float *bias, int act, float *y, void *workspace)
{
  CpuContext *ctx = vctx;

  if (act < NN_BK_ACT_LINEAR || act > NN_BK_ACT_TANH)
    return fail (ctx, NN_BACKEND_ERROR, "conv2d_forward_bias_act: activation %d is not "
                 "linear, relu, sigmoid or tanh", act);
  return conv_forward (plan, x, w, y, workspace, bias, act);
}

/* Partial weight gradients added on the calling thread rather than by a
 * second parallel call when there are at most this many additions. The
 * limit was set against OpenMP's barrier (about 0.5 us natively, 25-60 us
 * under wine on 2 threads, bench/windows-wine/omp-join-cost.c) and
 * kept for the engine's pool, whose join was not timed on its own. */
#define DW_AFTER_JOIN 8192

/* dw[i0, i1) = sum of the team's partials (dw_floats apart), in order. */
static void
dw_sum (float *dw, const float *parts, size_t dw_floats, size_t i0, size_t i1, int team)
{
  memcpy (dw + i0, parts + i0, (i1 - i0) * sizeof (float));
  for (int u = 1; u < team; u++)
    {
      const float *pu = parts + (size_t) u * dw_floats;
      for (size_t i = i0; i < i1; i++)
        dw[i] += pu[i];
    }
}

static void
conv_backward_part (void *data, int part, int parts)
{
  const ConvCall *c = data;
  int lo = (int) ((long) c->p->s.n * part / parts);
  int hi = (int) ((long) c->p->s.n * (part + 1) / parts);
  conv_backward_range (c->p, c->x, c->w, c->dy, c->dx, c->parts + (size_t) part * c->p->dw_floats,
                       c->col + (size_t) part * c->p->col_floats, lo, hi);
}

/* dw [lo, hi) = the sum of `act` parts' partials (act: the part count) */
static void
conv_dw_sum_range (void *data, size_t lo, size_t hi)
{
  const ConvCall *c = data;
  dw_sum (c->dw, c->parts, c->p->dw_floats, lo, hi, c->act);
}

static int
cpu_conv2d_backward (void *ctx, void *plan, const float *x, const float *w, const float *dy,
                     float *dx, float *dw, void *workspace)
{
  const CpuConvPlan *p = plan;
  float *col = workspace;   /* workers x (crs, chunk * ohw), then dcol */
  float *parts = col + (size_t) p->workers * p->col_floats; /* workers x (k, crs) */
  size_t dw_count = (size_t) p->s.k * p->crs;
  int workers = conv_run_workers (p);

  if (workers <= 1)
    {
      conv_backward_range (p, x, w, dy, dx, dw, col, 0, p->s.n);
      return NN_BACKEND_OK;
    }
  ConvCall c = { .p = p, .x = x, .w = w, .dy = dy, .dx = dx, .dw = dw, .col = col,
                 .parts = parts, .act = workers };
  _nn_parallel (workers, conv_backward_part, &c);
  /* dw = the partial sums in part order (the same bits on every run with
   * this thread count): a small dw (cnn's first conv: 288 floats) on this
   * thread, a large one (its second: 18432) cut over the threads. */
  _nn_parallel_range (dw_count, 16, dw_count * (workers - 1) > DW_AFTER_JOIN ? workers : 1,
                      conv_dw_sum_range, &c);
  return NN_BACKEND_OK;
}

/* ---------------------------------------------------------------- pooling */

static int
check_pool (CpuContext *ctx, int mode, const NnPoolShape *s)
{
  if (mode != 0 && mode != 1)
    return fail (ctx, NN_BACKEND_ERROR, "pool2d: unknown mode %d", mode);
  if (s->n < 1 || s->c < 1 || s->h < 1 || s->w < 1 || s->win_h < 1 || s->win_w < 1
      || s->stride_h < 1 || s->stride_w < 1 || s->pad_h < 0 || s->pad_w < 0
      || s->out_h < 1 || s->out_w < 1)
    return fail (ctx, NN_BACKEND_ERROR, "pool2d: bad shape");
  return NN_BACKEND_OK;
}

/* The common 2x2, stride 2 pooling that tiles the image exactly: no
 * clipping, so each output reads one aligned pair of input rows. */
static inline int
pool_is_2x2 (const NnPoolShape *s)
{
  return s->win_h == 2 && s->win_w == 2 && s->stride_h == 2 && s->stride_w == 2
         && s->pad_h == 0 && s->pad_w == 0 && s->h == 2 * s->out_h && s->w == 2 * s->out_w;
}

/* One pooling's arguments for its ranges of output rows or planes. */
typedef struct
{
  int mode;
  const NnPoolShape *s;
  const float *x, *dy;
  float *out;
} PoolLoop;

static void
pool_2x2_forward_range (void *data, size_t lo, size_t hi)
{
  const PoolLoop *l = data;
  int mode = l->mode, ow = l->s->out_w, w = l->s->w;
  const float *x = l->x;
  float *y = l->out;

  for (size_t row = lo; row < hi; row++)
    {
      const float *a = x + (size_t) row * 2 * w; /* input rows 2 oy, 2 oy + 1 */
      const float *b = a + w;
      float *o = y + (size_t) row * ow;
      if (mode == 0)
        _nn_cpu_maxpool2_row (a, b, o, (size_t) ow);
      else
        for (int j = 0; j < ow; j++)
          o[j] = 0.25f * ((a[2 * j] + a[2 * j + 1]) + (b[2 * j] + b[2 * j + 1]));
    }
}

static void
pool_2x2_forward (int mode, const NnPoolShape *s, const float *x, float *y)
{
  size_t rows = (size_t) s->n * s->c * s->out_h;
  PoolLoop l = { .mode = mode, .s = s, .x = x, .out = y };
  _nn_parallel_range (rows, 1, par_threads (rows * 4 * (size_t) s->out_w),
                      pool_2x2_forward_range, &l);
}

static void
pool_2x2_backward_range (void *data, size_t lo, size_t hi)
{
  const PoolLoop *l = data;
  int mode = l->mode, ow = l->s->out_w, w = l->s->w;
  const float *x = l->x, *dy = l->dy;
  float *dx = l->out;

  for (size_t row = lo; row < hi; row++)
    {
      const float *a = x + (size_t) row * 2 * w;
      const float *b = a + w;
      float *da = dx + (size_t) row * 2 * w;
      float *db = da + w;
      const float *g = dy + (size_t) row * ow;
      if (mode == 0)
        {
          _nn_cpu_maxpool2_row_backward (a, b, g, da, db, (size_t) ow);
          continue;
        }
      for (int j = 0; j < ow; j++)
        {
          float q = 0.25f * g[j];
          da[2 * j] = da[2 * j + 1] = db[2 * j] = db[2 * j + 1] = q;
        }
    }
}

static void
pool_2x2_backward (int mode, const NnPoolShape *s, const float *x, const float *dy, float *dx)
{
  size_t rows = (size_t) s->n * s->c * s->out_h;
  PoolLoop l = { .mode = mode, .s = s, .x = x, .dy = dy, .out = dx };
  _nn_parallel_range (rows, 1, par_threads (rows * 4 * (size_t) s->out_w),
                      pool_2x2_backward_range, &l);
}

/* The input rows (or columns) [*lo, *hi) under output position o's
 * window, clipped to the image; empty where the window lies wholly in the
 * padding. */
static inline void
pool_span (int o, int stride, int pad, int win, int size, int *lo, int *hi)
{
  int a = o * stride - pad, b = a + win;
  *lo = a < 0 ? 0 : a;
  *hi = b > size ? size : b;
}

static void
pool_forward_range (void *data, size_t lo, size_t hi)
{
  const PoolLoop *l = data;
  const NnPoolShape *s = l->s;
  int mode = l->mode;
  const float *x = l->x;
  float *y = l->out;
  size_t in_plane = (size_t) s->h * s->w, out_plane = (size_t) s->out_h * s->out_w;

  for (size_t pl = lo; pl < hi; pl++)
    {
      const float *xp = x + pl * in_plane;
      float *yp = y + pl * out_plane;
      for (int oy = 0; oy < s->out_h; oy++)
        {
          int y0, y1;
          pool_span (oy, s->stride_h, s->pad_h, s->win_h, s->h, &y0, &y1);
          for (int ox = 0; ox < s->out_w; ox++)
            {
              int x0, x1;
              pool_span (ox, s->stride_w, s->pad_w, s->win_w, s->w, &x0, &x1);
              float v;
              if (mode == 0)
                {
                  v = -INFINITY;
                  for (int iy = y0; iy < y1; iy++)
                    for (int ix = x0; ix < x1; ix++)
                      v = xp[iy * s->w + ix] > v ? xp[iy * s->w + ix] : v;
                }
              else
                {
                  float sum = 0.0f;
                  for (int iy = y0; iy < y1; iy++)
                    for (int ix = x0; ix < x1; ix++)
                      sum += xp[iy * s->w + ix];
                  int cells = (y1 - y0) * (x1 - x0);
                  v = cells > 0 ? sum / (float) cells : 0.0f;
                }
              yp[oy * s->out_w + ox] = v;
            }
        }
    }
}

static int
cpu_pool2d_forward (void *vctx, int mode, const NnPoolShape *shape, const float *x, float *y)
{
  const NnPoolShape *s = shape;
  int rc = check_pool (vctx, mode, s);
  if (rc != 0)
    return rc;
  if (pool_is_2x2 (s))
    {
      pool_2x2_forward (mode, s, x, y);
      return NN_BACKEND_OK;
    }
  size_t planes = (size_t) s->n * s->c;
  PoolLoop l = { .mode = mode, .s = s, .x = x, .out = y };
  _nn_parallel_range (planes, 1, par_min_threads (planes * s->h * s->w), pool_forward_range,
                      &l);
  return NN_BACKEND_OK;
}

static void
pool_backward_range (void *data, size_t lo, size_t hi)
{
  const PoolLoop *l = data;
  const NnPoolShape *s = l->s;
  int mode = l->mode;
  const float *x = l->x, *dy = l->dy;
  float *dx = l->out;
  size_t in_plane = (size_t) s->h * s->w, out_plane = (size_t) s->out_h * s->out_w;

  for (size_t pl = lo; pl < hi; pl++)
    {
      const float *xp = x + pl * in_plane;
      const float *dyp = dy + pl * out_plane;
      float *dxp = dx + pl * in_plane;
      memset (dxp, 0, in_plane * sizeof (float));
      for (int oy = 0; oy < s->out_h; oy++)
        {
          int y0, y1;
          pool_span (oy, s->stride_h, s->pad_h, s->win_h, s->h, &y0, &y1);
          for (int ox = 0; ox < s->out_w; ox++)
            {
              int x0, x1;
              pool_span (ox, s->stride_w, s->pad_w, s->win_w, s->w, &x0, &x1);
              float g = dyp[oy * s->out_w + ox];
              if (y1 <= y0 || x1 <= x0)
                continue;
              if (mode == 0)
                {
                  /* The first maximum in row-major window order. */
                  int best = y0 * s->w + x0;
                  for (int iy = y0; iy < y1; iy++)
                    for (int ix = x0; ix < x1; ix++)
                      if (xp[iy * s->w + ix] > xp[best])
                        best = iy * s->w + ix;
                  dxp[best] += g;
                }
              else
                {
                  float share = g / (float) ((y1 - y0) * (x1 - x0));
                  for (int iy = y0; iy < y1; iy++)
                    for (int ix = x0; ix < x1; ix++)
                      dxp[iy * s->w + ix] += share;
                }
            }
        }
    }
}

static int
cpu_pool2d_backward (void *vctx, int mode, const NnPoolShape *shape, const float *x,
                     const float *y, const float *dy, float *dx)
{
  const NnPoolShape *s = shape;
  int rc = check_pool (vctx, mode, s);
  if (rc != 0)
    return rc;
  if (pool_is_2x2 (s))
    {
      pool_2x2_backward (mode, s, x, dy, dx);
      return NN_BACKEND_OK;
    }
  size_t planes = (size_t) s->n * s->c;
  PoolLoop l = { .mode = mode, .s = s, .x = x, .dy = dy, .out = dx };
  _nn_parallel_range (planes, 1, par_min_threads (planes * s->h * s->w), pool_backward_range,
                      &l);
  return NN_BACKEND_OK;
}

/* ---------------------------------------------------------------- loss */

static inline int
argmax (const float *v, int count)
{
  int best = 0;
  for (int j = 1; j < count; j++)
    if (v[j] > v[best])
      best = j;
  return best;
}

/* Classes whose exponentials cpu_loss keeps on the stack (more are
 * computed twice). */
#define LOSS_KEEP 256

static int
cpu_loss (void *vctx, int kind, const float *pred, const int32_t *labels,
          const float *targets, float *grad, float *stats, int n, int classes)
{
  CpuContext *ctx = vctx;
  double total = 0.0;
  long correct = 0;

  if (n < 1 || classes < 1)
    return fail (ctx, NN_BACKEND_ERROR, "loss: bad batch (%d rows of %d classes)", n, classes);
  if (kind == NN_BK_LOSS_SPARSE_XENT ? labels == NULL : targets == NULL)
    return fail (ctx, NN_BACKEND_ERROR, "loss: no %s given",
                 kind == NN_BK_LOSS_SPARSE_XENT ? "labels" : "targets");
  if (kind == NN_BK_LOSS_SPARSE_XENT)
    for (int i = 0; i < n; i++)
      if (labels[i] < 0 || labels[i] >= classes)
        return fail (ctx, NN_BACKEND_ERROR, "loss: label %d of row %d is outside 0..%d",
                     labels[i], i, classes - 1);

  for (int i = 0; i < n; i++)
    {
      const float *z = pred + (size_t) i * classes;
      float *g = grad != NULL ? grad + (size_t) i * classes : NULL;
      const float *t = targets != NULL ? targets + (size_t) i * classes : NULL;
      int truth = kind == NN_BK_LOSS_SPARSE_XENT ? labels[i] : argmax (t, classes);

      if (argmax (z, classes) == truth)
        correct++;
      if (kind == NN_BK_LOSS_MSE)
        {
          double row = 0.0;
          float k = 2.0f / ((float) classes * (float) n);
          for (int j = 0; j < classes; j++)
            {
              double d = (double) z[j] - t[j];
              row += d * d;
              if (g != NULL)
                g[j] = k * (z[j] - t[j]);
            }
          total += row / classes;
          continue;
        }
      /* log-sum-exp from the logits, so large logits do not overflow. The
       * exponentials are kept in ex for the softmax below: computing them
       * once, not twice, took the loss op of an mlp-small step (32 rows of
       * 10) from 4.5 to 3.2 us (bench/results/local2core-cpu-ops-2026-11-30.md).
       * exp and log are the engine's own (nn-cpu-math.h): the C runtime's
       * are x87 code on Windows and took the op to 9.3 us there. */
      float mx = z[0];
      for (int j = 1; j < classes; j++)
        mx = fmaxf (mx, z[j]);
      double sum = 0.0;
      double ex[LOSS_KEEP];
      bool keep = classes <= LOSS_KEEP;
      for (int j = 0; j < classes; j++)
        {
          double e = _nn_cpu_exp ((double) z[j] - mx);
          if (keep)
            ex[j] = e;
          sum += e;
        }
      double lse = mx + _nn_cpu_log (sum);
      if (kind == NN_BK_LOSS_SPARSE_XENT)
        total += lse - z[truth];
      else
        for (int j = 0; j < classes; j++)
          if (t[j] != 0.0f)
            total -= t[j] * ((double) z[j] - lse);
      if (g != NULL)
        {
          float inv_n = 1.0f / (float) n;
          double inv_sum = 1.0 / sum;
          for (int j = 0; j < classes; j++)
            {
              /* exp (z - lse) = exp (z - mx) / sum */
              float p = keep ? (float) (ex[j] * inv_sum)
                             : (float) _nn_cpu_exp ((double) z[j] - lse);
              float tj = kind == NN_BK_LOSS_SPARSE_XENT ? (j == truth ? 1.0f : 0.0f) : t[j];
              g[j] = (p - tj) * inv_n;
            }
        }
    }
  stats[0] += (float) total;
  stats[1] += (float) correct;
  return NN_BACKEND_OK;
}

/* ---------------------------------------------------------------- data */

typedef struct
{
  const uint8_t *images;
  const int32_t *rows;
  size_t sample_size;
  float scale;
  float *x;
} GatherLoop;

/* Samples [lo, hi) of the batch, as floats. Rows are scattered over the
 * data set (47 MB for Fashion-MNIST): the rows two ahead are fetched while
 * this one converts, so the loop does not wait on memory once per row. */
static void
gather_range (void *data, size_t lo, size_t hi)
{
  const GatherLoop *l = data;
  size_t size = l->sample_size;
  for (size_t i = lo; i < hi; i++)
    {
      if (i + 2 < hi)
        {
          const uint8_t *ahead = l->images + (size_t) l->rows[i + 2] * size;
          for (size_t off = 0; off < size; off += 64)
            PREFETCH (ahead + off);
        }
      _nn_cpu_bytes_to_float (l->x + i * size, l->images + (size_t) l->rows[i] * size, size,
                              l->scale);
    }
}

static int
cpu_gather_batch (void *vctx, const uint8_t *images, const uint8_t *labels,
                  const int32_t *indices, const int64_t *step, int steps_per_epoch,
                  int batch_size, int n, int sample_size, float scale,
                  float *x, int32_t *labels_out, float *targets, int classes)
{
  CpuContext *ctx = vctx;
  const int32_t *rows = indices;

  if (n < 0 || sample_size < 0 || (targets != NULL && classes < 1))
    return fail (ctx, NN_BACKEND_ERROR, "gather_batch: bad sizes");
  if (step != NULL)
    {
      if (steps_per_epoch < 1 || *step < 0)
        return fail (ctx, NN_BACKEND_ERROR, "gather_batch: bad step counter");
      rows = indices + (size_t) (*step % steps_per_epoch) * (size_t) batch_size;
    }
  for (int i = 0; i < n; i++)
    {
      if (rows[i] < 0)
        return fail (ctx, NN_BACKEND_ERROR, "gather_batch: negative row index %d", rows[i]);
      if (targets != NULL && labels[rows[i]] >= classes)
        return fail (ctx, NN_BACKEND_ERROR, "gather_batch: label %d of sample %d is outside 0..%d",
                     labels[rows[i]], rows[i], classes - 1);
    }

  GatherLoop l = { images, rows, (size_t) sample_size, scale, x };
  _nn_parallel_range ((size_t) n, 1, par_threads ((size_t) n * sample_size), gather_range, &l);
  for (int i = 0; i < n; i++)
    {
      int label = labels[rows[i]];
      if (labels_out != NULL)
        labels_out[i] = label;
      if (targets != NULL)
        {
          float *t = targets + (size_t) i * classes;
          memset (t, 0, (size_t) classes * sizeof (float));
          t[label] = 1.0f;
        }
    }
  return NN_BACKEND_OK;
}

/* ---------------------------------------------------------------- optimizer */

/* Keras' update rules (tf.keras 2.x optimizer_v2: SGD, Adam, Adadelta,
 * RMSprop, Adagrad, their _resource_apply_dense and the training ops they
 * call), with t = *step + 1:
 *
 *   SGD        p -= lr g
 *   momentum   v = m v - lr g;  p += v
 *   nesterov   v = m v - lr g;  p += m v - lr g
 *   Adam       m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2
 *              alpha = lr sqrt(1 - b2^t) / (1 - b1^t)
 *              p -= alpha m / (sqrt(v) + eps)
 *   Adadelta   Eg = rho Eg + (1 - rho) g^2
 *              d = sqrt(Ed + eps) / sqrt(Eg + eps) g
 *              Ed = rho Ed + (1 - rho) d^2;  p -= lr d
 *   RMSprop    v = rho v + (1 - rho) g^2;  p -= lr g / (sqrt(v) + eps)
 *   Adagrad    a += g^2;  p -= lr g / (sqrt(a) + eps)
 *
 * State slot j of parameter i is state[j * stride + i]. */
typedef struct
{
  const NnBackendOptimizer *opt;
  float *params;
  const float *grads;
  float *state;
  size_t stride;
  float alpha;
} OptimizerLoop;

/* Parameters [lo, hi), their state slots `stride` floats apart; alpha is
 * Adam's step size. */
static void
optimizer_block (const NnBackendOptimizer *opt, float *params, const float *grads,
                 float *state, size_t stride, size_t lo, size_t hi, float alpha)
{
  size_t len = hi - lo;
  float *p = params + lo;
  const float *g = grads + lo;
  float *s0 = state + lo, *s1 = state + stride + lo;
  const float lr = opt->lr, eps = opt->epsilon;

  switch (opt->kind)
    {
    case NN_BK_OPT_SGD:
      if (opt->momentum == 0.0f)
        _nn_cpu_sgd (p, g, len, lr);
      else
        _nn_cpu_momentum (p, g, s0, len, lr, opt->momentum, opt->nesterov);
      break;
    case NN_BK_OPT_ADAM:
      _nn_cpu_adam (p, g, s0, s1, len, opt->beta1, opt->beta2, alpha, eps);
      break;
    case NN_BK_OPT_ADADELTA:
      _nn_cpu_adadelta (p, g, s0, s1, len, lr, opt->rho, eps);
      break;
    case NN_BK_OPT_RMSPROP:
      _nn_cpu_rmsprop (p, g, s0, len, lr, opt->rho, eps);
      break;
    default:
      _nn_cpu_adagrad (p, g, s0, len, lr, eps);
      break;
    }
}

static void
optimizer_range (void *data, size_t lo, size_t hi)
{
  const OptimizerLoop *l = data;
  optimizer_block (l->opt, l->params, l->grads, l->state, l->stride, lo, hi, l->alpha);
}

static int
cpu_optimizer_update (void *vctx, const NnBackendOptimizer *opt, float *params,
                      const float *grads, float *state, size_t count, size_t state_stride,
                      int64_t *step)
{
  CpuContext *ctx = vctx;
  int64_t t = *step + 1;
  const float lr = opt->lr;
  float alpha = 0.0f;

  if (opt->kind < NN_BK_OPT_SGD || opt->kind > NN_BK_OPT_ADAGRAD)
    return fail (ctx, NN_BACKEND_ERROR, "unknown optimizer %d", opt->kind);
  if (state_stride < count)
    return fail (ctx, NN_BACKEND_ERROR,
                 "optimizer_update: the state's stride %zu is below the %zu parameters",
                 state_stride, count);
  if (opt->kind == NN_BK_OPT_ADAM)
    alpha = (float) ((double) lr * sqrt (1.0 - pow (opt->beta2, (double) t))
                     / (1.0 - pow (opt->beta1, (double) t)));
  /* One pass, each thread a block. A square root and a division per
   * parameter make it compute-bound while it fits in cache, so it goes
   * parallel 4x sooner than a plain stream (mlp-small's 100k parameters
   * get up to 6 threads); mlp-wide's 1.8M (50 MB of traffic for Adam) use
   * every thread. */
  OptimizerLoop l = { opt, params, grads, state, state_stride, alpha };
  _nn_parallel_range (count, 16, par_threads (count * 4), optimizer_range, &l);
  *step = t;
  return NN_BACKEND_OK;
}

/* ---------------------------------------------------------------- fused steps */

/* The one fused step here: a convolution's forward with its bias and
 * activation (cpu_conv2d_forward_bias_act). Every other layer runs its own
 * ops. */
static int
cpu_step_supported (void *ctx, const NnBackendStep *step)
{
  return step->kind == NN_BK_STEP_CONV && !step->backward && step->flags == 0
         && step->below.kind == NN_BK_BELOW_NONE && step->drop.rate == 0.0f
         && step->act >= NN_BK_ACT_LINEAR && step->act <= NN_BK_ACT_TANH
         && step->conv.plan != NULL;
}

static int
cpu_step_run (void *vctx, const NnBackendStep *step)
{
  CpuContext *ctx = vctx;

  if (!cpu_step_supported (ctx, step))
    return fail (ctx, NN_BACKEND_UNSUPPORTED, "step_run: a fused step of kind %d%s is not run "
                 "on the CPU", step->kind, step->backward ? " (backward)" : "");
  return cpu_conv2d_forward_bias_act (ctx, step->conv.plan, step->x, step->w, step->b, step->act,
                                      step->y, step->conv.workspace);
}

/* ---------------------------------------------------------------- table */

static const NnBackendOps cpu_ops = {
  .abi_version = NN_BACKEND_ABI_VERSION,
  .struct_size = sizeof (NnBackendOps),
  .name = "cpu",
  .device_count = cpu_device_count,
  .device_info = cpu_device_info,
  .context_new = cpu_context_new,
  .context_free = cpu_context_free,
  .last_error = cpu_last_error,
  .alloc = cpu_alloc,
  .free = cpu_free,
  .upload = cpu_copy,
  .download = cpu_copy,
  .fill = cpu_fill,
  .copy = cpu_copy,
  .synchronize = cpu_synchronize,
  .gemm = cpu_gemm,
  .bias_act_forward = cpu_bias_act_forward,
  .bias_act_backward = cpu_bias_act_backward,
  .dropout_forward = cpu_dropout_forward,
  .dropout_backward = cpu_dropout_backward,
  .conv2d_plan_new = cpu_conv2d_plan_new,
  .conv2d_plan_free = cpu_conv2d_plan_free,
  .conv2d_forward = cpu_conv2d_forward,
  .conv2d_backward = cpu_conv2d_backward,
  .pool2d_forward = cpu_pool2d_forward,
  .pool2d_backward = cpu_pool2d_backward,
  .loss = cpu_loss,
  .gather_batch = cpu_gather_batch,
  .optimizer_update = cpu_optimizer_update,
  .capture_begin = NULL,
  .capture_end = NULL,
  .graph_launch = NULL,
  .graph_free = NULL,
  .download_async = NULL,
  .step_supported = cpu_step_supported,
  .step_run = cpu_step_run,
  .host_alloc = cpu_alloc,
  .host_free = cpu_free,
  .upload_async = cpu_copy,
  .upload_wait = cpu_upload_wait,
};

const NnBackendOps *
nn_backend_cpu_get (void)
{
  return &cpu_ops;
}
