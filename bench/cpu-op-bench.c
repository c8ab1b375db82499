/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cpu-op-bench.c: the time of each CPU backend op in an mlp-small or a cnn
 * training step, called as the engine calls them (same shapes, threads and
 * order), median over many steps. A development probe, not a test: it links
 * the engine's static library, so two builds (before and after a change)
 * can be compared op by op on the same machine.
 *
 *   gcc -O2 -fopenmp -Iengine bench/cpu-op-bench.c BUILD/engine/libtrainbench.a \
 *     -o cpu-op-bench -lz -lm -ldl -lpthread
 *   cpu-op-bench mlp|cnn [threads=2] [steps=2000]
 *
 * The data are random (the ops' cost does not depend on the values). The
 * first tenth of the steps is left out of the medians (warm-up).
 */
#define _GNU_SOURCE
#include "nn-backend-abi.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>

static double now (void) { struct timespec t; clock_gettime (CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }

enum { MAXOPS = 40 };
static double acc[MAXOPS][4096];
static const char *names[MAXOPS];
static int nops;
static int it;
static double t0;
#define T(name) do { double t1 = now (); acc[op][it] = t1 - t0; names[op++] = name; t0 = now (); } while (0)

static int cmpd (const void *a, const void *b) { double x = *(double*)a, y = *(double*)b; return x < y ? -1 : x > y; }
static double med (double *v, int n) { double *c = malloc (n * sizeof *c); memcpy (c, v, n * sizeof *c); qsort (c, n, sizeof *c, cmpd); double m = c[n/2]; free (c); return m; }

static float *A (const NnBackendOps *o, void *ctx, size_t n) { void *p; o->alloc (ctx, n * 4 + 64, &p); float *f = p; for (size_t i = 0; i < n; i++) f[i] = ((rand () % 2001) - 1000) * 1e-4f; return f; }

int main (int argc, char **argv)
{
  const char *which = argc > 1 ? argv[1] : "mlp";
  int threads = argc > 2 ? atoi (argv[2]) : 2;
  int iters = argc > 3 ? atoi (argv[3]) : 2000;
  if (iters > 4096)
    iters = 4096;
  if (iters < 10)
    iters = 10;
  const NnBackendOps *o = nn_backend_cpu_get ();
  NnBackendOptions opt = { .threads = threads };
  void *ctx; char err[256];
  o->context_new (0, &opt, &ctx, err, sizeof err);
  size_t nimg = 60000;
  uint8_t *images, *labels = malloc (nimg);
  { void *p; o->alloc (ctx, nimg * 784, &p); images = p; }
  for (size_t i = 0; i < nimg * 784; i++) images[i] = rand ();
  for (size_t i = 0; i < nimg; i++) labels[i] = rand () % 10;
  int32_t *perm = malloc (nimg * 4);
  for (size_t i = 0; i < nimg; i++) perm[i] = i;
  for (size_t i = nimg - 1; i > 0; i--) { size_t j = rand () % (i + 1); int32_t t = perm[i]; perm[i] = perm[j]; perm[j] = t; }
  int64_t step = 0;
  float stats[2] = {0};
  int32_t lab[256];

  if (strcmp (which, "mlp") == 0)
    {
      int n = 32, H = 128;
      size_t count = 784 * H + H + H * 10 + 10;
      float *params = A (o, ctx, count), *grads = A (o, ctx, count), *state = A (o, ctx, 2 * count);
      memset (state, 0, 2 * count * 4);
      float *W1 = params, *b1 = W1 + 784 * H, *W2 = b1 + H, *b2 = W2 + H * 10;
      float *dW1 = grads, *db1 = dW1 + 784 * H, *dW2 = db1 + H, *db2 = dW2 + H * 10;
      float *x = A (o, ctx, n * 784), *y1 = A (o, ctx, n * H), *y1d = A (o, ctx, n * H), *y2 = A (o, ctx, n * 10);
      float *s0 = A (o, ctx, n * H), *s1 = A (o, ctx, n * H);
      NnBackendOptimizer adam = { .kind = NN_BK_OPT_ADAM, .lr = 0.001f, .beta1 = 0.9f, .beta2 = 0.999f, .epsilon = 1e-7f };
      for (it = 0; it < iters; it++)
        {
          int op = 0;
          t0 = now ();
          o->gather_batch (ctx, images, labels, perm, &step, 1875, n, n, 784, 1.0f / 255, x, lab, NULL, 10); T ("gather");
          o->gemm (ctx, 0, 0, n, H, 784, 1, x, 784, W1, H, 0, y1, H); T ("gemm fwd1");
          o->bias_act_forward (ctx, 1, y1, b1, n, H, 1); T ("bias relu");
          o->dropout_forward (ctx, y1d, y1, n * H, 0.2f, 7, &step); T ("dropout f");
          o->gemm (ctx, 0, 0, n, 10, H, 1, y1d, H, W2, 10, 0, y2, 10); T ("gemm fwd2");
          o->bias_act_forward (ctx, 0, y2, b2, n, 10, 1); T ("bias lin");
          o->loss (ctx, 0, y2, lab, NULL, s0, stats, n, 10); T ("loss");
          o->bias_act_backward (ctx, 0, y2, s0, db2, n, 10, 1); T ("bact b2");
          o->gemm (ctx, 1, 0, H, 10, n, 1, y1d, H, s0, 10, 0, dW2, 10); T ("gemm dW2");
          o->gemm (ctx, 0, 1, n, H, 10, 1, s0, 10, W2, 10, 0, s1, H); T ("gemm dx2");
          o->dropout_backward (ctx, s1, s1, n * H, 0.2f, 7, &step); T ("dropout b");
          o->bias_act_backward (ctx, 1, y1, s1, db1, n, H, 1); T ("bact b1");
          o->gemm (ctx, 1, 0, 784, H, n, 1, x, 784, s1, H, 0, dW1, H); T ("gemm dW1");
          o->optimizer_update (ctx, &adam, params, grads, state, count, count, &step); T ("adam");
          nops = op;
        }
    }
  else
    {
      int n = 256;
      NnConvShape c1 = { n, 1, 28, 28, 32, 3, 3, 1, 1, 0, 0, 26, 26 };
      NnConvShape c2 = { n, 32, 26, 26, 64, 3, 3, 1, 1, 0, 0, 24, 24 };
      NnPoolShape p1 = { n, 64, 24, 24, 2, 2, 2, 2, 0, 0, 12, 12 };
      void *pl1, *pl2; size_t ws1, ws2;
      o->conv2d_plan_new (ctx, &c1, &pl1, &ws1);
      o->conv2d_plan_new (ctx, &c2, &pl2, &ws2);
      float *ws = A (o, ctx, (ws1 > ws2 ? ws1 : ws2) / 4 + 16);
      size_t nw1 = 32 * 9, nw2 = 64 * 32 * 9, nw3 = 9216 * 128, nw4 = 1280;
      size_t count = nw1 + 32 + nw2 + 64 + nw3 + 128 + nw4 + 10;
      float *params = A (o, ctx, count), *grads = A (o, ctx, count), *state = A (o, ctx, 2 * count);
      memset (state, 0, 2 * count * 4);
      float *w1 = params, *b1 = w1 + nw1, *w2 = b1 + 32, *b2 = w2 + nw2, *w3 = b2 + 64, *b3 = w3 + nw3, *w4 = b3 + 128, *b4 = w4 + nw4;
      float *dw1 = grads, *db1 = dw1 + nw1, *dw2 = db1 + 32, *db2 = dw2 + nw2, *dw3 = db2 + 64, *db3 = dw3 + nw3, *dw4 = db3 + 128, *db4 = dw4 + nw4;
      float *x = A (o, ctx, n * 784), *a1 = A (o, ctx, (size_t) n * 32 * 676), *a2 = A (o, ctx, (size_t) n * 64 * 576);
      float *pp = A (o, ctx, (size_t) n * 9216), *pd = A (o, ctx, (size_t) n * 9216), *h = A (o, ctx, n * 128), *hd = A (o, ctx, n * 128), *z = A (o, ctx, n * 10);
      float *s0 = A (o, ctx, (size_t) n * 64 * 576), *s1 = A (o, ctx, (size_t) n * 64 * 576);
      NnBackendOptimizer ada = { .kind = NN_BK_OPT_ADADELTA, .lr = 1.0f, .rho = 0.95f, .epsilon = 1e-7f };
      for (it = 0; it < iters; it++)
        {
          int op = 0;
          t0 = now ();
          o->gather_batch (ctx, images, labels, perm, &step, 234, n, n, 784, 1.0f / 255, x, lab, NULL, 10); T ("gather");
          o->conv2d_forward (ctx, pl1, x, w1, a1, ws); T ("conv1 f");
          o->bias_act_forward (ctx, 1, a1, b1, n, 32, 676); T ("bias relu1");
          o->conv2d_forward (ctx, pl2, a1, w2, a2, ws); T ("conv2 f");
          o->bias_act_forward (ctx, 1, a2, b2, n, 64, 576); T ("bias relu2");
          o->pool2d_forward (ctx, 0, &p1, a2, pp); T ("pool f");
          o->dropout_forward (ctx, pd, pp, (size_t) n * 9216, 0.25f, 7, &step); T ("drop1 f");
          o->gemm (ctx, 0, 0, n, 128, 9216, 1, pd, 9216, w3, 128, 0, h, 128); T ("gemm fwd3");
          o->bias_act_forward (ctx, 1, h, b3, n, 128, 1); T ("bias relu3");
          o->dropout_forward (ctx, hd, h, (size_t) n * 128, 0.5f, 7, &step); T ("drop2 f");
          o->gemm (ctx, 0, 0, n, 10, 128, 1, hd, 128, w4, 10, 0, z, 10); T ("gemm fwd4");
          o->bias_act_forward (ctx, 0, z, b4, n, 10, 1); T ("bias lin");
          o->loss (ctx, 0, z, lab, NULL, s0, stats, n, 10); T ("loss");
          o->bias_act_backward (ctx, 0, z, s0, db4, n, 10, 1); T ("bact4");
          o->gemm (ctx, 1, 0, 128, 10, n, 1, hd, 128, s0, 10, 0, dw4, 10); T ("gemm dW4");
          o->gemm (ctx, 0, 1, n, 128, 10, 1, s0, 10, w4, 10, 0, s1, 128); T ("gemm dx4");
          o->dropout_backward (ctx, s1, s1, (size_t) n * 128, 0.5f, 7, &step); T ("drop2 b");
          o->bias_act_backward (ctx, 1, h, s1, db3, n, 128, 1); T ("bact3");
          o->gemm (ctx, 1, 0, 9216, 128, n, 1, pd, 9216, s1, 128, 0, dw3, 128); T ("gemm dW3");
          o->gemm (ctx, 0, 1, n, 9216, 128, 1, s1, 128, w3, 128, 0, s0, 9216); T ("gemm dx3");
          o->dropout_backward (ctx, s0, s0, (size_t) n * 9216, 0.25f, 7, &step); T ("drop1 b");
          o->pool2d_backward (ctx, 0, &p1, a2, pp, s0, s1); T ("pool b");
          o->bias_act_backward (ctx, 1, a2, s1, db2, n, 64, 576); T ("bact2");
          o->conv2d_backward (ctx, pl2, a1, w2, s1, s0, dw2, ws); T ("conv2 b");
          o->bias_act_backward (ctx, 1, a1, s0, db1, n, 32, 676); T ("bact1");
          o->conv2d_backward (ctx, pl1, x, w1, s0, NULL, dw1, ws); T ("conv1 b");
          o->optimizer_update (ctx, &ada, params, grads, state, count, count, &step); T ("adadelta");
          nops = op;
        }
    }
  double tot = 0, totmed = 0;
  double *sum = calloc ((size_t) iters, sizeof *sum);
  for (int i = 0; i < iters; i++) for (int k = 0; k < nops; k++) sum[i] += acc[k][i];
  int skip = iters / 10;
  for (int k = 0; k < nops; k++)
    {
      double m = med (acc[k] + skip, iters - skip);
      totmed += m;
      printf ("%-12s %9.2f us\n", names[k], m * 1e6);
    }
  tot = med (sum + skip, iters - skip);
  printf ("%-12s %9.2f us (sum of medians %.2f)\n", "STEP median", tot * 1e6, totmed * 1e6);
  return 0;
}
