/* SPDX-License-Identifier: GPL-3.0-or-later */
/* wide-op-bench.c: the time of each CPU backend op in an mlp-wide training
 * step (flatten; dense 1000 relu; dropout 0.2; dense 1000 relu; dropout 0.2;
 * dense 10 softmax; Adam; batch 32), called as the engine calls them (same
 * shapes, threads and order), median over many steps: bench/
 * cpu-op-bench.c's mlp path with mlp-wide's layers. Links the engine's
 * static library, so the Linux build and the Windows build (under wine) can
 * be compared op by op; the engine loads OpenBLAS itself (nn-blas.c, so
 * OPENBLAS_CORETYPE and TRAINBENCH_BLAS_LIBRARY apply).
 *
 *   gcc -O2 -fopenmp -Iengine bench/windows-wine/wide-op-bench.c \
 *     BUILD/engine/libtrainbench.a BUILD/engine/libtrainbench-kernels-*.a \
 *     -o wide-op-bench -lz -lm -ldl -lpthread
 *   x86_64-w64-mingw32-gcc-posix -O2 -fopenmp -Iengine bench/windows-wine/wide-op-bench.c \
 *     WINBUILD/engine/libtrainbench.a WINBUILD/engine/libtrainbench-kernels-*.a \
 *     -o wide-op-bench.exe -static -lz -lm -lbcrypt  (next to openblas.dll, vcruntime140*.dll)
 *   [wine] wide-op-bench[.exe] [threads=1] [steps=1500]
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

/* engine/nn-blas.c (private; the static library has it) */
void _nn_blas_info (char *name, size_t name_size, char *version, size_t version_size,
                    char *core, size_t core_size, char *note, size_t note_size);

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
  int threads = argc > 1 ? atoi (argv[1]) : 1;
  int iters = argc > 2 ? atoi (argv[2]) : 1500;
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
  {
    char bn[64], bv[64], bc[64], note[512];
    _nn_blas_info (bn, sizeof bn, bv, sizeof bv, bc, sizeof bc, note, sizeof note);
    printf ("BLAS %s %s core %s%s%s; %d thread(s)\n", bn, bv, bc, note[0] ? "; " : "", note, threads);
  }
  int64_t step = 0;
  float stats[2] = {0};
  int32_t lab[256];

  {
      int n = 32, H = 1000;
      size_t nw1 = 784 * H, nw2 = (size_t) H * H, nw3 = H * 10;
      size_t count = nw1 + H + nw2 + H + nw3 + 10;
      float *params = A (o, ctx, count), *grads = A (o, ctx, count), *state = A (o, ctx, 2 * count);
      memset (state, 0, 2 * count * 4);
      float *W1 = params, *b1 = W1 + nw1, *W2 = b1 + H, *b2 = W2 + nw2, *W3 = b2 + H, *b3 = W3 + nw3;
      float *dW1 = grads, *db1 = dW1 + nw1, *dW2 = db1 + H, *db2 = dW2 + nw2, *dW3 = db2 + H, *db3 = dW3 + nw3;
      float *x = A (o, ctx, n * 784), *y1 = A (o, ctx, n * H), *y1d = A (o, ctx, n * H);
      float *y2 = A (o, ctx, n * H), *y2d = A (o, ctx, n * H), *y3 = A (o, ctx, n * 10);
      float *s3 = A (o, ctx, n * 10), *s2 = A (o, ctx, n * H), *s1 = A (o, ctx, n * H);
      NnBackendOptimizer adam = { .kind = NN_BK_OPT_ADAM, .lr = 0.001f, .beta1 = 0.9f, .beta2 = 0.999f, .epsilon = 1e-7f };
      for (it = 0; it < iters; it++)
        {
          int op = 0;
          t0 = now ();
          o->gather_batch (ctx, images, labels, perm, &step, 1875, n, n, 784, 1.0f / 255, x, lab, NULL, 10); T ("gather");
          o->gemm (ctx, 0, 0, n, H, 784, 1, x, 784, W1, H, 0, y1, H); T ("gemm fwd1");
          o->bias_act_forward (ctx, 1, y1, b1, n, H, 1); T ("bias relu1");
          o->dropout_forward (ctx, y1d, y1, n * H, 0.2f, 7, &step); T ("dropout f1");
          o->gemm (ctx, 0, 0, n, H, H, 1, y1d, H, W2, H, 0, y2, H); T ("gemm fwd2");
          o->bias_act_forward (ctx, 1, y2, b2, n, H, 1); T ("bias relu2");
          o->dropout_forward (ctx, y2d, y2, n * H, 0.2f, 9, &step); T ("dropout f2");
          o->gemm (ctx, 0, 0, n, 10, H, 1, y2d, H, W3, 10, 0, y3, 10); T ("gemm fwd3");
          o->bias_act_forward (ctx, 0, y3, b3, n, 10, 1); T ("bias lin");
          o->loss (ctx, 0, y3, lab, NULL, s3, stats, n, 10); T ("loss");
          o->bias_act_backward (ctx, 0, y3, s3, db3, n, 10, 1); T ("bact b3");
          o->gemm (ctx, 1, 0, H, 10, n, 1, y2d, H, s3, 10, 0, dW3, 10); T ("gemm dW3");
          o->gemm (ctx, 0, 1, n, H, 10, 1, s3, 10, W3, 10, 0, s2, H); T ("gemm dx3");
          o->dropout_backward (ctx, s2, s2, n * H, 0.2f, 9, &step); T ("dropout b2");
          o->bias_act_backward (ctx, 1, y2, s2, db2, n, H, 1); T ("bact b2");
          o->gemm (ctx, 1, 0, H, H, n, 1, y1d, H, s2, H, 0, dW2, H); T ("gemm dW2");
          o->gemm (ctx, 0, 1, n, H, H, 1, s2, H, W2, H, 0, s1, H); T ("gemm dx2");
          o->dropout_backward (ctx, s1, s1, n * H, 0.2f, 7, &step); T ("dropout b1");
          o->bias_act_backward (ctx, 1, y1, s1, db1, n, H, 1); T ("bact b1");
          o->gemm (ctx, 1, 0, 784, H, n, 1, x, 784, s1, H, 0, dW1, H); T ("gemm dW1");
          o->optimizer_update (ctx, &adam, params, grads, state, count, count, &step); T ("adam");
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
