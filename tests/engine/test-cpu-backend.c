/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-cpu-backend.c: every op of the CPU backend against a naive
 * double-precision reference written here, on random data with odd shapes.
 */

#include "test-util.h"
#include "nn-backend-abi.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const NnBackendOps *ops;
static void *ctx;
static int threads = 2;   /* as the context was made with, or set_threads */
static uint64_t rng = 12345;

static float *
buf (size_t count)
{
  void *p = NULL;
  int rc = ops->alloc (ctx, count * sizeof (float), &p);
  if (rc != 0 || p == NULL)
    {
      tap_ok (false, "alloc of %zu floats: %s", count, ops->last_error (ctx));
      exit (tap_done ());
    }
  return p;
}

static float *
rand_buf (size_t count, float lo, float hi)
{
  float *p = buf (count);
  for (size_t i = 0; i < count; i++)
    p[i] = test_randf (&rng, lo, hi);
  return p;
}

/* Largest |a - b| relative to 1 + |b|, over count entries. */
static double
max_err (const float *a, const double *b, size_t count)
{
  double worst = 0.0;
  for (size_t i = 0; i < count; i++)
    {
      double e = fabs ((double) a[i] - b[i]) / (1.0 + fabs (b[i]));
      if (!(e <= worst)) /* NaN counts as worst */
        worst = isnan (e) ? INFINITY : e;
    }
  return worst;
}

/* ---------------------------------------------------------------- memory */

static void
test_memory (void)
{
  void *p = NULL;
  int rc = ops->alloc (ctx, 1000, &p);
  int zero = 1;
  tap_ok (rc == 0 && p != NULL, "alloc 1000 bytes");
  tap_ok (((uintptr_t) p % 64) == 0, "alloc is 64-byte aligned");
  for (int i = 0; i < 1000; i++)
    zero &= ((unsigned char *) p)[i] == 0;
  tap_ok (zero, "alloc is zero-filled");
  ops->free (ctx, p);

  p = (void *) 1;
  rc = ops->alloc (ctx, (size_t) 1 << 62, &p);
  const char *msg = ops->last_error (ctx);
  tap_ok (rc == NN_BACKEND_OUT_OF_MEMORY, "alloc of 4 EiB gives OUT_OF_MEMORY (rc %d)", rc);
  tap_ok (p == NULL, "failed alloc leaves NULL");
  tap_ok (strstr (msg, "out of memory") != NULL && strstr (msg, "EiB") != NULL,
          "failed alloc message names the size: '%s'", msg);

  float host[37], back[37];
  for (int i = 0; i < 37; i++)
    host[i] = (float) i * 0.5f;
  float *d = buf (37), *e = buf (37);
  tap_ok (ops->upload (ctx, d, host, sizeof host) == 0
          && ops->copy (ctx, e, d, sizeof host) == 0
          && ops->download (ctx, back, e, sizeof host) == 0
          && memcmp (host, back, sizeof host) == 0, "upload, copy, download round trip");
  tap_ok (ops->fill (ctx, d, 2.5f, 37) == 0 && d[0] == 2.5f && d[36] == 2.5f,
          "fill writes the value");
  tap_ok (ops->synchronize (ctx) == 0, "synchronize");
  ops->free (ctx, d);
  ops->free (ctx, e);
}

/* ---------------------------------------------------------------- gemm */

static void
test_gemm_case (int ta, int tb, int m, int n, int k, int pad)
{
  int lda = (ta ? m : k) + pad, ldb = (tb ? k : n) + pad, ldc = n + pad;
  int arows = ta ? k : m, brows = tb ? n : k;
  float *a = rand_buf ((size_t) arows * lda, -1, 1);
  float *b = rand_buf ((size_t) brows * ldb, -1, 1);
  float *c = rand_buf ((size_t) m * ldc, -1, 1);
  double *ref = calloc ((size_t) m * ldc, sizeof (double));
  float alpha = 0.75f, beta = 0.5f;

  for (int i = 0; i < m; i++)
    for (int j = 0; j < ldc; j++)
      {
        if (j >= n)
          {
            ref[i * ldc + j] = c[i * ldc + j]; /* padding untouched */
            continue;
          }
        double s = 0.0;
        for (int p = 0; p < k; p++)
          {
            double av = ta ? a[p * lda + i] : a[i * lda + p];
            double bv = tb ? b[j * ldb + p] : b[p * ldb + j];
            s += av * bv;
          }
        ref[i * ldc + j] = alpha * s + beta * c[i * ldc + j];
      }
  int rc = ops->gemm (ctx, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  double err = max_err (c, ref, (size_t) m * ldc);
  /* float rounding grows about as the square root of the sum's length */
  double tol = k > 100 ? 1e-5 * sqrt (k / 100.0) : 1e-5;
  tap_ok (rc == 0 && err < tol, "gemm ta=%d tb=%d m=%d n=%d k=%d pad=%d (err %.2g)",
          ta, tb, m, n, k, pad, err);
  free (ref);
  ops->free (ctx, a);
  ops->free (ctx, b);
  ops->free (ctx, c);
}

static void
test_gemm (void)
{
  for (int ta = 0; ta < 2; ta++)
    for (int tb = 0; tb < 2; tb++)
      {
        test_gemm_case (ta, tb, 7, 33, 13, 3);
        test_gemm_case (ta, tb, 1, 5, 1, 0);
      }
  test_gemm_case (0, 1, 33, 129, 70, 5);
  /* Over a million multiply-adds: split across the threads, in blocks of
   * columns or of rows, small enough for OpenBLAS's small-matrix kernels
   * where it has them (k under 32 is a case those refuse when B is
   * transposed). */
  for (int ta = 0; ta < 2; ta++)
    for (int tb = 0; tb < 2; tb++)
      {
        test_gemm_case (ta, tb, 33, 1001, 97, 3);
        test_gemm_case (ta, tb, 1001, 33, 97, 1);
        test_gemm_case (ta, tb, 64, 1000, 20, 0);
      }
  /* A small C and a long k (B not transposed): split over k, partial sums
   * added after the threads meet; on 2 threads and on an odd team. */
  for (int ta = 0; ta < 2; ta++)
    {
      test_gemm_case (ta, 0, 32, 128, 784, 0);
      test_gemm_case (ta, 0, 33, 100, 801, 3);
      nn_threads_set (5);
      test_gemm_case (ta, 0, 33, 100, 801, 3);
      nn_threads_set (threads);
    }
}

/* ---------------------------------------------------------------- bias + activation */

static double
ref_act (int act, double z)
{
  switch (act)
    {
    case NN_BK_ACT_RELU: return z > 0 ? z : 0;
    case NN_BK_ACT_SIGMOID: return 1.0 / (1.0 + exp (-z));
    case NN_BK_ACT_TANH: return tanh (z);
    default: return z;
    }
}

static void
test_bias_act_case (int act, int n, int channels, int spatial)
{
  size_t count = (size_t) n * channels * spatial;
  float *y = rand_buf (count, -3, 3);
  float *bias = rand_buf (channels, -1, 1);
  double *ref = calloc (count, sizeof (double));
  double *dref = calloc (count, sizeof (double));
  double *dbref = calloc (channels, sizeof (double));
  static const char *names[] = { "linear", "relu", "sigmoid", "tanh", "softmax" };

  for (int b = 0; b < n; b++)
    for (int c = 0; c < channels; c++)
      for (int s = 0; s < spatial; s++)
        {
          size_t i = ((size_t) b * channels + c) * spatial + s;
          ref[i] = ref_act (act, (double) y[i] + bias[c]);
        }
  if (act == NN_BK_ACT_SOFTMAX)
    for (int b = 0; b < n; b++)
      for (int s = 0; s < spatial; s++)
        {
          double mx = -INFINITY, sum = 0;
          for (int c = 0; c < channels; c++)
            mx = fmax (mx, ref[((size_t) b * channels + c) * spatial + s]);
          for (int c = 0; c < channels; c++)
            sum += exp (ref[((size_t) b * channels + c) * spatial + s] - mx);
          for (int c = 0; c < channels; c++)
            {
              size_t i = ((size_t) b * channels + c) * spatial + s;
              ref[i] = exp (ref[i] - mx) / sum;
            }
        }
  int rc = ops->bias_act_forward (ctx, act, y, bias, n, channels, spatial);
  double err = max_err (y, ref, count);
  tap_ok (rc == 0 && err < 1e-5, "bias_act_forward %s n=%d c=%d sp=%d (err %.2g)",
          names[act], n, channels, spatial, err);

  /* Backward from the forward output y and a random dy. */
  float *dy = rand_buf (count, -1, 1);
  for (int b = 0; b < n; b++)
    for (int s = 0; s < spatial; s++)
      {
        double dot = 0;
        for (int c = 0; c < channels; c++)
          {
            size_t i = ((size_t) b * channels + c) * spatial + s;
            dot += (double) dy[i] * y[i];
          }
        for (int c = 0; c < channels; c++)
          {
            size_t i = ((size_t) b * channels + c) * spatial + s;
            double yv = y[i], d = dy[i];
            switch (act)
              {
              case NN_BK_ACT_LINEAR: dref[i] = d; break;
              case NN_BK_ACT_RELU: dref[i] = yv > 0 ? d : 0; break;
              case NN_BK_ACT_SIGMOID: dref[i] = d * yv * (1 - yv); break;
              case NN_BK_ACT_TANH: dref[i] = d * (1 - yv * yv); break;
              case NN_BK_ACT_SOFTMAX: dref[i] = yv * (d - dot); break;
              }
            dbref[c] += dref[i];
          }
      }
  float *dbias = rand_buf (channels, 5, 6); /* must be overwritten */
  rc = ops->bias_act_backward (ctx, act, y, dy, dbias, n, channels, spatial);
  err = max_err (dy, dref, count);
  double berr = max_err (dbias, dbref, channels);
  tap_ok (rc == 0 && err < 1e-5, "bias_act_backward %s dz n=%d c=%d sp=%d (err %.2g)",
          names[act], n, channels, spatial, err);
  tap_ok (rc == 0 && berr < 1e-4, "bias_act_backward %s dbias (err %.2g)", names[act], berr);
  free (ref);
  free (dref);
  free (dbref);
  ops->free (ctx, y);
  ops->free (ctx, bias);
  ops->free (ctx, dy);
  ops->free (ctx, dbias);
}

static void
test_bias_act (void)
{
  for (int act = NN_BK_ACT_LINEAR; act <= NN_BK_ACT_TANH; act++)
    {
      test_bias_act_case (act, 1, 5, 1);
      test_bias_act_case (act, 7, 13, 9);
      test_bias_act_case (act, 33, 17, 529); /* large enough for the threads */
      /* dense rows split into column blocks across the threads; more
       * channels than the per-thread bias partials hold */
      test_bias_act_case (act, 300, 601, 1);
      test_bias_act_case (act, 3, 5000, 30);
    }
  test_bias_act_case (NN_BK_ACT_SOFTMAX, 1, 10, 1);
  test_bias_act_case (NN_BK_ACT_SOFTMAX, 33, 13, 1);
  test_bias_act_case (NN_BK_ACT_SOFTMAX, 7, 5, 3);

  /* Large logits stay finite. */
  float *y = buf (3);
  y[0] = 1000.0f, y[1] = 999.0f, y[2] = -1000.0f;
  int rc = ops->bias_act_forward (ctx, NN_BK_ACT_SOFTMAX, y, NULL, 1, 3, 1);
  tap_ok (rc == 0 && isfinite (y[0]) && fabs (y[0] + y[1] + y[2] - 1.0) < 1e-6,
          "softmax of large logits is finite and sums to 1");
  ops->free (ctx, y);
  tap_ok (ops->bias_act_forward (ctx, 9, y, NULL, 1, 3, 1) != 0
          && ops->last_error (ctx)[0] != '\0', "unknown activation is an error with a message");
}

/* ---------------------------------------------------------------- dropout */

static void
test_dropout (void)
{
  size_t count = 300007;
  float rate = 0.3f;
  int64_t step = 7;
  float *x = rand_buf (count, 0.5f, 1.5f);
  float *y = buf (count), *dy = rand_buf (count, 0.5f, 1.5f), *dx = buf (count);
  size_t kept = 0, mask_ok = 0, back_ok = 0;

  int rc = ops->dropout_forward (ctx, y, x, count, rate, 99, &step);
  rc |= ops->dropout_backward (ctx, dx, dy, count, rate, 99, &step);
  for (size_t i = 0; i < count; i++)
    {
      int keep = nn_dropout_keep (99, step, i, rate);
      kept += keep;
      if (keep ? fabsf (y[i] - x[i] / (1 - rate)) < 1e-6f * x[i] : y[i] == 0.0f)
        mask_ok++;
      if (keep ? fabsf (dx[i] - dy[i] / (1 - rate)) < 1e-6f * dy[i] : dx[i] == 0.0f)
        back_ok++;
    }
  double frac = (double) kept / count;
  tap_ok (rc == 0, "dropout ops succeed");
  tap_close (frac, 1.0 - rate, 0, 0.01, "dropout keeps about 1 - rate (%.4f)", frac);
  tap_ok (mask_ok == count, "dropout forward uses nn_dropout_keep and scales by 1/(1-rate)");
  tap_ok (back_ok == count, "dropout backward uses the same mask");
  tap_ok (step == 7, "dropout leaves the step counter");

  int64_t other = 8;
  size_t same = 0;
  ops->dropout_forward (ctx, dx, x, count, rate, 99, &other);
  for (size_t i = 0; i < count; i++)
    same += (dx[i] == 0.0f) == (y[i] == 0.0f);
  tap_ok (same < count - count / 5, "another step gives another mask");

  /* in place */
  memcpy (dx, x, count * sizeof (float));
  ops->dropout_forward (ctx, dx, dx, count, rate, 99, &step);
  tap_ok (memcmp (dx, y, count * sizeof (float)) == 0, "dropout in place matches");
  tap_ok (ops->dropout_forward (ctx, y, x, count, 1.5f, 99, &step) != 0,
          "dropout rate outside [0, 1) is an error");

  /* The backend tests the hash's top 24 bits against an integer threshold:
   * the same masks as nn_dropout_keep at rates that are not multiples of
   * 2^-24, at 0, and on the boundary itself. */
  const float rates[] = { 0.0f, 0.2f, 0.25f, 1.0f / 3.0f, 0.5f, 0.9f, 0.999999f,
                          3.0f / 16777216.0f };
  for (size_t r = 0; r < sizeof rates / sizeof rates[0]; r++)
    {
      size_t bad = 0;
      rc = ops->dropout_forward (ctx, y, x, count, rates[r], 12345 + r, &step);
      for (size_t i = 0; i < count; i++)
        bad += (y[i] != 0.0f) != nn_dropout_keep (12345 + r, step, i, rates[r]);
      tap_ok (rc == 0 && bad == 0, "dropout mask at rate %.9g matches nn_dropout_keep (%zu off)",
              (double) rates[r], bad);
    }
  ops->free (ctx, x);
  ops->free (ctx, y);
  ops->free (ctx, dy);
  ops->free (ctx, dx);
}

/* ---------------------------------------------------------------- conv2d */

/* Output size and top/left padding like Keras: valid or same. */
static NnConvShape
conv_shape (int n, int c, int h, int w, int k, int r, int s, int stride, int same)
{
  NnConvShape sh = { n, c, h, w, k, r, s, stride, stride, 0, 0, 0, 0 };
  if (same)
    {
      sh.out_h = (h + stride - 1) / stride;
      sh.out_w = (w + stride - 1) / stride;
      int ph = (sh.out_h - 1) * stride + r - h, pw = (sh.out_w - 1) * stride + s - w;
      sh.pad_h = ph > 0 ? ph / 2 : 0;
      sh.pad_w = pw > 0 ? pw / 2 : 0;
    }
  else
    {
      sh.out_h = (h - r) / stride + 1;
      sh.out_w = (w - s) / stride + 1;
    }
  return sh;
}

static void
set_threads (int count)
{
  threads = nn_threads_set (count);
}

/* run_threads > 0: the thread count changes between plan and run. */
static void
test_conv_case_threads (NnConvShape sh, int run_threads)
{
  size_t xs = (size_t) sh.n * sh.c * sh.h * sh.w;
  size_t ws = (size_t) sh.k * sh.c * sh.r * sh.s;
  size_t ys = (size_t) sh.n * sh.k * sh.out_h * sh.out_w;
  float *x = rand_buf (xs, -1, 1), *w = rand_buf (ws, -1, 1), *y = rand_buf (ys, 9, 10);
  float *dy = rand_buf (ys, -1, 1), *dx = rand_buf (xs, 9, 10), *dw = rand_buf (ws, 9, 10);
  double *yr = calloc (ys, sizeof (double)), *dxr = calloc (xs, sizeof (double));
  double *dwr = calloc (ws, sizeof (double));
  void *plan = NULL, *work = NULL;
  size_t work_bytes = 0;
  char what[160];

  snprintf (what, sizeof what,
            "conv n=%d c=%d %dx%d k=%d %dx%d stride %d pad %d,%d out %dx%d, %d threads%s",
            sh.n, sh.c, sh.h, sh.w, sh.k, sh.r, sh.s, sh.stride_h, sh.pad_h, sh.pad_w,
            sh.out_h, sh.out_w, run_threads > 0 ? run_threads : threads,
            run_threads > 0 ? " (planned for more)" : "");
  for (int b = 0; b < sh.n; b++)
    for (int k = 0; k < sh.k; k++)
      for (int oy = 0; oy < sh.out_h; oy++)
        for (int ox = 0; ox < sh.out_w; ox++)
          {
            size_t yi = (((size_t) b * sh.k + k) * sh.out_h + oy) * sh.out_w + ox;
            double sum = 0;
            for (int c = 0; c < sh.c; c++)
              for (int r = 0; r < sh.r; r++)
                for (int s = 0; s < sh.s; s++)
                  {
                    int iy = oy * sh.stride_h - sh.pad_h + r, ix = ox * sh.stride_w - sh.pad_w + s;
                    if (iy < 0 || iy >= sh.h || ix < 0 || ix >= sh.w)
                      continue;
                    size_t xi = (((size_t) b * sh.c + c) * sh.h + iy) * sh.w + ix;
                    size_t wi = (((size_t) k * sh.c + c) * sh.r + r) * sh.s + s;
                    sum += (double) x[xi] * w[wi];
                    dxr[xi] += (double) dy[yi] * w[wi];
                    dwr[wi] += (double) dy[yi] * x[xi];
                  }
            yr[yi] = sum;
          }

  int rc = ops->conv2d_plan_new (ctx, &sh, &plan, &work_bytes);
  tap_ok (rc == 0, "%s: plan", what);
  if (rc != 0)
    return;
  if (work_bytes > 0 && ops->alloc (ctx, work_bytes, &work) != 0)
    {
      tap_ok (false, "%s: workspace", what);
      return;
    }
  if (run_threads > 0)
    set_threads (run_threads);
  rc = ops->conv2d_forward (ctx, plan, x, w, y, work);
  double err = max_err (y, yr, ys);
  tap_ok (rc == 0 && err < 1e-5, "%s: forward (err %.2g)", what, err);
  rc = ops->conv2d_backward (ctx, plan, x, w, dy, dx, dw, work);
  /* dw sums n * out_h * out_w products per entry: float rounding grows */
  double ex = max_err (dx, dxr, xs), ew = max_err (dw, dwr, ws);
  tap_ok (rc == 0 && ex < 1e-5, "%s: backward dx (err %.2g)", what, ex);
  tap_ok (rc == 0 && ew < 1e-4, "%s: backward dw (err %.2g)", what, ew);
  /* dx NULL: dw alone, still overwritten, and the same bits (the
   * per-thread partial sums are added in a fixed order) */
  float *dw_first = malloc (ws * sizeof (float));
  memcpy (dw_first, dw, ws * sizeof (float));
  for (size_t i = 0; i < ws; i++)
    dw[i] = 7.0f;
  rc = ops->conv2d_backward (ctx, plan, x, w, dy, NULL, dw, work);
  ew = max_err (dw, dwr, ws);
  tap_ok (rc == 0 && ew < 1e-4, "%s: backward without dx (err %.2g)", what, ew);
  tap_ok (memcmp (dw, dw_first, ws * sizeof (float)) == 0, "%s: dw repeats bit for bit", what);
  free (dw_first);

  ops->conv2d_plan_free (ctx, plan);
  ops->free (ctx, work);
  free (yr);
  free (dxr);
  free (dwr);
  ops->free (ctx, x);
  ops->free (ctx, w);
  ops->free (ctx, y);
  ops->free (ctx, dy);
  ops->free (ctx, dx);
  ops->free (ctx, dw);
}

static void
test_conv_case (NnConvShape sh)
{
  test_conv_case_threads (sh, 0);
}

/* The CPU's one fused step, a convolution's forward with its bias and
 * activation, against conv2d_forward then bias_act_forward: the same
 * bits, for each activation, with and without a bias; every other step is
 * refused. */
static void
test_conv_bias_act_case (NnConvShape sh)
{
  size_t xs = (size_t) sh.n * sh.c * sh.h * sh.w;
  size_t ws = (size_t) sh.k * sh.c * sh.r * sh.s;
  size_t ys = (size_t) sh.n * sh.k * sh.out_h * sh.out_w;
  float *x = rand_buf (xs, -1, 1), *w = rand_buf (ws, -1, 1), *bias = rand_buf (sh.k, -1, 1);
  float *y = buf (ys), *want = buf (ys);
  void *plan = NULL, *work = NULL;
  size_t work_bytes = 0;

  if (ops->conv2d_plan_new (ctx, &sh, &plan, &work_bytes) != 0
      || (work_bytes > 0 && ops->alloc (ctx, work_bytes, &work) != 0))
    {
      tap_ok (false, "conv bias+act n=%d k=%d: plan", sh.n, sh.k);
      return;
    }
  NnBackendStep step = { .kind = NN_BK_STEP_CONV, .n = sh.n, .x = x, .w = w, .y = y,
                         .conv = { .plan = plan, .workspace = work } };
  for (int act = NN_BK_ACT_LINEAR; act <= NN_BK_ACT_TANH; act++)
    for (int with_bias = 0; with_bias < 2; with_bias++)
      {
        const float *b = with_bias ? bias : NULL;
        int rc = ops->conv2d_forward (ctx, plan, x, w, want, work);
        rc |= ops->bias_act_forward (ctx, act, want, b, sh.n, sh.k, sh.out_h * sh.out_w);
        step.act = act;
        step.b = (float *) b;
        rc |= !ops->step_supported (ctx, &step);
        rc |= ops->step_run (ctx, &step);
        tap_ok (rc == 0 && memcmp (y, want, ys * sizeof (float)) == 0,
                "conv n=%d c=%d k=%d bias+act in one step, act %d%s: the bits of the two ops",
                sh.n, sh.c, sh.k, act, with_bias ? ", bias" : "");
      }
  step.act = NN_BK_ACT_SOFTMAX;
  tap_ok (!ops->step_supported (ctx, &step) && ops->step_run (ctx, &step) != 0,
          "conv bias+act with softmax is refused");
  NnBackendStep others[] = {
    { .kind = NN_BK_STEP_CONV, .backward = 1, .act = NN_BK_ACT_RELU, .conv = { .plan = plan } },
    { .kind = NN_BK_STEP_CONV, .flags = NN_BK_STEP_POOLED, .act = NN_BK_ACT_RELU,
      .conv = { .plan = plan } },
    { .kind = NN_BK_STEP_DENSE, .act = NN_BK_ACT_RELU, .dense = { 4, 4 } },
    { .kind = NN_BK_STEP_POOL, .flags = NN_BK_STEP_MAXIMA },
    { .kind = NN_BK_STEP_OUTPUT_LOSS },
    { .kind = NN_BK_STEP_JOIN },
  };
  int refused = 0;
  for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
    refused += !ops->step_supported (ctx, &others[i])
               && ops->step_run (ctx, &others[i]) == NN_BACKEND_UNSUPPORTED;
  tap_ok (refused == (int) (sizeof others / sizeof others[0]),
          "every other fused step is refused on the CPU (%d of %zu)", refused,
          sizeof others / sizeof others[0]);
  ops->conv2d_plan_free (ctx, plan);
  ops->free (ctx, work);
  ops->free (ctx, x);
  ops->free (ctx, w);
  ops->free (ctx, bias);
  ops->free (ctx, y);
  ops->free (ctx, want);
}

static void
test_conv (void)
{
  test_conv_case (conv_shape (7, 3, 9, 10, 5, 3, 3, 2, 1));   /* stride 2, same */
  test_conv_case (conv_shape (1, 2, 6, 5, 3, 2, 3, 1, 0));    /* batch 1, valid */
  test_conv_case (conv_shape (7, 1, 11, 11, 6, 5, 5, 1, 1));  /* 5x5 same */
  test_conv_case (conv_shape (33, 1, 28, 28, 4, 3, 3, 1, 0)); /* mnist-like */
  /* big enough that the backend splits the batch into im2col chunks of
   * one sample, and of several with a short last one */
  test_conv_case (conv_shape (33, 9, 48, 48, 3, 3, 3, 1, 1));
  test_conv_case (conv_shape (33, 4, 26, 26, 5, 3, 3, 1, 0));

  /* Each thread takes whole samples: an uneven split (33 over 3), fewer
   * samples than threads (2 of 3), and a plan made for 3 threads run on 1
   * and on 2. */
  set_threads (3);
  test_conv_case (conv_shape (33, 9, 48, 48, 3, 3, 3, 1, 1));
  test_conv_case (conv_shape (2, 9, 48, 48, 8, 3, 3, 1, 1));
  test_conv_case_threads (conv_shape (33, 4, 26, 26, 5, 3, 3, 1, 0), 1);
  set_threads (3);
  test_conv_case_threads (conv_shape (33, 4, 26, 26, 5, 3, 3, 1, 0), 2);
  set_threads (2);

  /* one worker, chunks of several samples; two workers, one sample each */
  test_conv_bias_act_case (conv_shape (3, 2, 9, 9, 4, 3, 3, 1, 1));
  test_conv_bias_act_case (conv_shape (33, 4, 26, 26, 5, 3, 3, 1, 0));
  test_conv_bias_act_case (conv_shape (4, 32, 26, 26, 64, 3, 3, 1, 0));

  NnConvShape bad = conv_shape (1, 1, 4, 4, 1, 3, 3, 1, 0);
  void *plan = NULL;
  size_t wb;
  bad.out_h = 0;
  tap_ok (ops->conv2d_plan_new (ctx, &bad, &plan, &wb) != 0 && plan == NULL,
          "conv plan with a bad shape is an error");
}

/* ---------------------------------------------------------------- pool2d */

static void
test_pool_case (int mode, int n, int c, int h, int w, int win, int stride, int pad,
                int out_h, int out_w)
{
  NnPoolShape sh = { n, c, h, w, win, win, stride, stride, pad, pad, out_h, out_w };
  size_t xs = (size_t) n * c * h * w, ys = (size_t) n * c * out_h * out_w;
  float *x = buf (xs), *y = buf (ys), *dy = rand_buf (ys, -1, 1), *dx = rand_buf (xs, 5, 6);
  double *yr = calloc (ys, sizeof (double)), *dxr = calloc (xs, sizeof (double));

  /* few distinct values, so windows have ties and the first maximum matters */
  for (size_t i = 0; i < xs; i++)
    x[i] = (float) (int) test_randf (&rng, 0, 4);
  for (int p = 0; p < n * c; p++)
    for (int oy = 0; oy < out_h; oy++)
      for (int ox = 0; ox < out_w; ox++)
        {
          double best = -INFINITY, sum = 0;
          long arg = -1;
          int cells = 0;
          for (int dy_ = 0; dy_ < win; dy_++)
            for (int dx_ = 0; dx_ < win; dx_++)
              {
                int iy = oy * stride - pad + dy_, ix = ox * stride - pad + dx_;
                if (iy < 0 || iy >= h || ix < 0 || ix >= w)
                  continue;
                long xi = ((long) p * h + iy) * w + ix;
                cells++;
                sum += x[xi];
                if (x[xi] > best)
                  best = x[xi], arg = xi;
              }
          size_t yi = ((size_t) p * out_h + oy) * out_w + ox;
          yr[yi] = mode == 0 ? best : sum / cells;
          if (mode == 0)
            dxr[arg] += dy[yi];
          else
            for (int dy_ = 0; dy_ < win; dy_++)
              for (int dx_ = 0; dx_ < win; dx_++)
                {
                  int iy = oy * stride - pad + dy_, ix = ox * stride - pad + dx_;
                  if (iy >= 0 && iy < h && ix >= 0 && ix < w)
                    dxr[((long) p * h + iy) * w + ix] += dy[yi] / cells;
                }
        }
  int rc = ops->pool2d_forward (ctx, mode, &sh, x, y);
  double err = max_err (y, yr, ys);
  tap_ok (rc == 0 && err < 1e-6, "%s pool n=%d c=%d %dx%d win %d stride %d pad %d: forward",
          mode ? "avg" : "max", n, c, h, w, win, stride, pad);
  rc = ops->pool2d_backward (ctx, mode, &sh, x, y, dy, dx);
  err = max_err (dx, dxr, xs);
  tap_ok (rc == 0 && err < 1e-6, "%s pool n=%d c=%d %dx%d win %d stride %d pad %d: backward%s",
          mode ? "avg" : "max", n, c, h, w, win, stride, pad, mode ? "" : " (first maximum)");
  free (yr);
  free (dxr);
  ops->free (ctx, x);
  ops->free (ctx, y);
  ops->free (ctx, dy);
  ops->free (ctx, dx);
}

static void
test_pool (void)
{
  for (int mode = 0; mode < 2; mode++)
    {
      test_pool_case (mode, 7, 3, 7, 9, 2, 2, 0, 4, 5);    /* same: overhang right/bottom */
      test_pool_case (mode, 1, 2, 8, 8, 2, 2, 0, 4, 4);    /* exact */
      test_pool_case (mode, 7, 2, 6, 7, 3, 1, 1, 6, 7);    /* 3x3 stride 1 same */
      test_pool_case (mode, 5, 3, 9, 9, 3, 2, 0, 4, 4);    /* overlapping valid */
      test_pool_case (mode, 33, 16, 24, 24, 2, 2, 0, 12, 12); /* threads */
    }
}

/* ---------------------------------------------------------------- loss */

static void
test_loss_case (int kind, int n, int classes, float scale)
{
  static const char *names[] = { "sparse xent", "xent", "mse" };
  float *pred = rand_buf ((size_t) n * classes, -scale, scale);
  float *grad = buf ((size_t) n * classes), *targets = buf ((size_t) n * classes);
  float *stats = buf (2);
  int32_t *labels = (int32_t *) buf (n);
  double *gr = calloc ((size_t) n * classes, sizeof (double));
  double loss = 0;
  int correct = 0;

  for (int i = 0; i < n; i++)
    {
      labels[i] = (int32_t) test_randf (&rng, 0, (float) classes);
      if (labels[i] >= classes)
        labels[i] = classes - 1;
      targets[(size_t) i * classes + labels[i]] = 1.0f;
    }
  if (kind == NN_BK_LOSS_MSE) /* outputs of a softmax-like layer */
    for (size_t i = 0; i < (size_t) n * classes; i++)
      pred[i] = test_randf (&rng, 0, 1);
  for (int i = 0; i < n; i++)
    {
      const float *z = pred + (size_t) i * classes;
      int am = 0;
      for (int j = 1; j < classes; j++)
        if (z[j] > z[am])
          am = j;
      correct += am == labels[i];
      if (kind == NN_BK_LOSS_MSE)
        {
          for (int j = 0; j < classes; j++)
            {
              double t = j == labels[i];
              loss += (z[j] - t) * (z[j] - t) / classes;
              gr[(size_t) i * classes + j] = 2 * (z[j] - t) / ((double) classes * n);
            }
          continue;
        }
      double mx = -INFINITY, sum = 0;
      for (int j = 0; j < classes; j++)
        mx = fmax (mx, z[j]);
      for (int j = 0; j < classes; j++)
        sum += exp (z[j] - mx);
      loss += -(z[labels[i]] - mx - log (sum));
      for (int j = 0; j < classes; j++)
        gr[(size_t) i * classes + j] = (exp (z[j] - mx) / sum - (j == labels[i])) / n;
    }
  stats[0] = 1.5f;
  stats[1] = 2.0f;
  int rc = ops->loss (ctx, kind, pred, labels, targets, grad, stats, n, classes);
  double err = max_err (grad, gr, (size_t) n * classes);
  tap_ok (rc == 0, "%s n=%d classes=%d scale %g: runs", names[kind], n, classes, (double) scale);
  tap_close (stats[0], 1.5 + loss, 1e-5, 1e-5, "%s n=%d: stats[0] accumulates the summed loss",
             names[kind], n);
  tap_close (stats[1], 2.0 + correct, 0, 0, "%s n=%d: stats[1] accumulates correct argmaxes",
             names[kind], n);
  tap_ok (err < 1e-6, "%s n=%d: gradient (err %.2g)", names[kind], n, err);
  rc = ops->loss (ctx, kind, pred, labels, targets, NULL, stats, n, classes);
  tap_ok (rc == 0, "%s n=%d: without gradient", names[kind], n);
  free (gr);
  ops->free (ctx, pred);
  ops->free (ctx, grad);
  ops->free (ctx, targets);
  ops->free (ctx, stats);
  ops->free (ctx, labels);
}

static void
test_loss (void)
{
  for (int kind = 0; kind < 3; kind++)
    {
      test_loss_case (kind, 1, 10, 3);
      test_loss_case (kind, 7, 13, 3);
      test_loss_case (kind, 33, 10, 3);
    }
  test_loss_case (NN_BK_LOSS_SPARSE_XENT, 7, 10, 500); /* large logits */
  test_loss_case (NN_BK_LOSS_XENT, 7, 10, 500);

  float pred[3] = { 0, 1, 2 }, stats[2] = { 0, 0 };
  int32_t label = 3;
  tap_ok (ops->loss (ctx, NN_BK_LOSS_SPARSE_XENT, pred, &label, NULL, NULL, stats, 1, 3) != 0
          && strstr (ops->last_error (ctx), "label") != NULL,
          "a label outside the classes is an error naming it");
}

/* ---------------------------------------------------------------- gather */

static void
test_gather (void)
{
  enum { COUNT = 23, SAMPLE = 7, BATCH = 4, SPE = 5, CLASSES = 6 };
  uint8_t images[COUNT * SAMPLE], labels[COUNT];
  int32_t indices[SPE * BATCH];
  float x[BATCH * SAMPLE], targets[BATCH * CLASSES];
  int32_t lab[BATCH];
  float scale = 1.0f / 255.0f;

  for (int i = 0; i < COUNT * SAMPLE; i++)
    images[i] = (uint8_t) (i * 37 + 11);
  for (int i = 0; i < COUNT; i++)
    labels[i] = (uint8_t) (i % CLASSES);
  for (int i = 0; i < SPE * BATCH; i++)
    indices[i] = (i * 7 + 3) % COUNT;

  for (int pass = 0; pass < 2; pass++)
    {
      int64_t step = 13;                          /* 13 % 5 = batch 3 */
      const int64_t *sp = pass ? &step : NULL;
      const int32_t *rows = pass ? indices + 3 * BATCH : indices;
      int n = pass ? BATCH : 3;                   /* a short last batch */
      int ok_x = 1, ok_l = 1, ok_t = 1;

      memset (targets, 0x7f, sizeof targets);
      int rc = ops->gather_batch (ctx, images, labels, indices, sp, SPE, BATCH, n, SAMPLE, scale,
                                  x, lab, targets, CLASSES);
      for (int i = 0; i < n; i++)
        {
          for (int j = 0; j < SAMPLE; j++)
            ok_x &= fabsf (x[i * SAMPLE + j] - images[rows[i] * SAMPLE + j] * scale) < 1e-7f;
          ok_l &= lab[i] == labels[rows[i]];
          for (int j = 0; j < CLASSES; j++)
            ok_t &= targets[i * CLASSES + j] == (j == labels[rows[i]] ? 1.0f : 0.0f);
        }
      tap_ok (rc == 0 && ok_x, "gather %s: images scaled from the right rows",
              pass ? "with step counter" : "without step");
      tap_ok (ok_l, "gather %s: labels", pass ? "with step counter" : "without step");
      tap_ok (ok_t, "gather %s: one-hot targets", pass ? "with step counter" : "without step");
    }
  int rc = ops->gather_batch (ctx, images, labels, indices, NULL, SPE, BATCH, BATCH, SAMPLE, scale,
                              x, lab, NULL, 0);
  tap_ok (rc == 0 && lab[1] == labels[indices[1]], "gather without targets");
  rc = ops->gather_batch (ctx, images, labels, indices, NULL, SPE, BATCH, BATCH, SAMPLE, scale,
                          x, lab, targets, 3);
  tap_ok (rc != 0, "gather with a label beyond the classes is an error");
}

/* Batches of real sizes: 32 rows of 784 bytes (one thread, rows fetched
 * ahead), 256 rows (threads over the rows). */
static void
test_gather_large (void)
{
  enum { COUNT = 300, SAMPLE = 784, CLASSES = 10 };
  uint8_t *images = malloc ((size_t) COUNT * SAMPLE), labels[COUNT];
  int32_t indices[256], lab[256];
  float *x = malloc (sizeof (float) * 256 * SAMPLE);

  for (int i = 0; i < COUNT * SAMPLE; i++)
    images[i] = (uint8_t) (i * 131 + 7);
  for (int i = 0; i < COUNT; i++)
    labels[i] = (uint8_t) (i % CLASSES);
  for (int i = 0; i < 256; i++)
    indices[i] = (i * 97 + 5) % COUNT;
  for (int n = 32; n <= 256; n *= 8)
    {
      int ok = 1;
      int rc = ops->gather_batch (ctx, images, labels, indices, NULL, 1, n, n, SAMPLE,
                                  1.0f / 255.0f, x, lab, NULL, CLASSES);
      for (int i = 0; i < n; i++)
        {
          for (int j = 0; j < SAMPLE; j++)
            ok &= x[(size_t) i * SAMPLE + j]
                  == (float) images[(size_t) indices[i] * SAMPLE + j] * (1.0f / 255.0f);
          ok &= lab[i] == labels[indices[i]];
        }
      tap_ok (rc == 0 && ok, "gather of %d rows of %d bytes", n, SAMPLE);
    }
  free (images);
  free (x);
}

/* ---------------------------------------------------------------- optimizer basics */

static void
test_optimizer_basics (void)
{
  /* A large arena goes through the threaded loop; compare with a serial one. */
  size_t count = 300001;
  float *p = rand_buf (count, -1, 1), *g = rand_buf (count, -1, 1), *st = buf (2 * count);
  float *p0 = malloc (count * sizeof (float));
  NnBackendOptimizer opt = { NN_BK_OPT_ADAM, 0, 0.01f, 0, 0.9f, 0.999f, 0, 1e-7f };
  int64_t step = 0;
  int ok = 1;

  memcpy (p0, p, count * sizeof (float));
  int rc = ops->optimizer_update (ctx, &opt, p, g, st, count, count, &step);
  for (size_t i = 0; i < count; i++)
    {
      double m = 0.1 * g[i], v = 0.001 * (double) g[i] * g[i];
      double alpha = 0.01 * sqrt (1 - 0.999) / (1 - 0.9);
      double want = p0[i] - alpha * m / (sqrt (v) + 1e-7);
      ok &= fabs (p[i] - want) < 1e-5;
    }
  tap_ok (rc == 0 && ok && step == 1, "adam over %zu parameters, step 1", count);
  /* the first parameters of an arena whose state slots lie one stride
   * apart: the same update, slot 1 found a stride on, nothing else touched */
  {
    size_t first = 1001, stride = 1088;
    float *sp = buf (2 * stride), *pp = rand_buf (first, -1, 1);
    float *pw = malloc (first * sizeof (float)), *sw = buf (2 * first);
    int64_t s1 = 0, s2 = 0;
    memcpy (pw, pp, first * sizeof (float));
    for (size_t i = 0; i < 2 * stride; i++)
      sp[i] = 0.5f;
    for (size_t i = 0; i < 2 * first; i++)
      sw[i] = 0.5f;
    int rs = ops->optimizer_update (ctx, &opt, pp, g, sp, first, stride, &s1);
    int rw = ops->optimizer_update (ctx, &opt, pw, g, sw, first, first, &s2);
    bool same = rs == 0 && rw == 0 && s1 == 1 && memcmp (pp, pw, first * sizeof (float)) == 0
                && memcmp (sp, sw, first * sizeof (float)) == 0
                && memcmp (sp + stride, sw + first, first * sizeof (float)) == 0;
    for (size_t i = first; same && i < stride; i++)
      same = sp[i] == 0.5f && sp[stride + i] == 0.5f;
    tap_ok (same, "adam over the first %zu parameters of an arena, state stride %zu", first,
            stride);
    tap_ok (ops->optimizer_update (ctx, &opt, pp, g, sp, first, first - 1, &s1) != 0 && s1 == 1,
            "a state stride below the parameters is an error");
    ops->free (ctx, sp);
    ops->free (ctx, pp);
    free (pw);
    ops->free (ctx, sw);
  }
  opt.kind = 42;
  tap_ok (ops->optimizer_update (ctx, &opt, p, g, st, count, count, &step) != 0 && step == 1,
          "unknown optimizer is an error and leaves the step");
  free (p0);
  ops->free (ctx, p);
  ops->free (ctx, g);
  ops->free (ctx, st);
}

int
main (void)
{
  NnBackendOptions options = { threads, 0 };
  char error[256] = "";
  char reason[64];

  ops = nn_backend_cpu_get ();
  tap_ok (ops != NULL && ops->abi_version == NN_BACKEND_ABI_VERSION
          && ops->struct_size == sizeof (NnBackendOps), "op table and ABI version");
  tap_ok (ops->device_count (reason, sizeof reason) == 1, "one CPU device");
  tap_ok (ops->context_new (0, &options, &ctx, error, sizeof error) == 0 && ctx != NULL,
          "context_new %s", error);
  if (ctx == NULL)
    return tap_done ();

  test_memory ();
  test_gemm ();
  test_bias_act ();
  test_dropout ();
  test_conv ();
  test_pool ();
  test_loss ();
  test_gather ();
  test_gather_large ();
  test_optimizer_basics ();

  ops->context_free (ctx);
  return tap_done ();
}
