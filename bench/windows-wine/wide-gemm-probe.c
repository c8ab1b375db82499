/* SPDX-License-Identifier: GPL-3.0-or-later */
/* wide-gemm-probe.c: mlp-wide's eight sgemm products at 1 thread, in the
 * order and with the operands a training step uses (its own W1, W2, W3,
 * activations and gradients, so the 4 + 4 + 0.04 MB of weights go through
 * the caches as in training), one OpenBLAS call each as _nn_sgemm makes it
 * at 1 thread for a core without small-matrix kernels (Zen, Haswell).
 * Prints each product's median and p10 over the steps and the median of
 * the step's GEMM total. Linked straight against an OpenBLAS: the Windows
 * DLL under wine, Debian's on Linux, or scipy-openblas32's Linux library
 * (-DSCIPY, for its prefixed names). OPENBLAS_CORETYPE picks the core.
 *
 *   gcc -O2 wide-gemm-probe.c -o wide-gemm-probe -lopenblas
 *   gcc -O2 -DSCIPY wide-gemm-probe.c -o wide-gemm-probe-sob -LDIR -lscipy_openblas -Wl,-rpath,DIR
 *   x86_64-w64-mingw32-gcc-posix -O2 wide-gemm-probe.c -o wide-gemm-probe.exe DIR/openblas.dll -static
 *     (openblas.dll and vcruntime140*.dll next to the .exe)
 *   OPENBLAS_CORETYPE=Zen [wine] wide-gemm-probe[.exe] [steps=1500] [only=-1]
 *
 * `only` >= 0 runs just that product (0-7) in a loop, for perf.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef SCIPY
#define cblas_sgemm scipy_cblas_sgemm
#define openblas_set_num_threads scipy_openblas_set_num_threads
#define openblas_get_config scipy_openblas_get_config
#define openblas_get_corename scipy_openblas_get_corename
#endif
void cblas_sgemm (int, int, int, int, int, int, float, const float *, int, const float *, int,
                  float, float *, int);
void openblas_set_num_threads (int);
char *openblas_get_config (void);
char *openblas_get_corename (void);

static double now (void) { struct timespec t; clock_gettime (CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static int cmpd (const void *a, const void *b) { double x = *(double *) a, y = *(double *) b; return x < y ? -1 : x > y; }
static float *R (size_t n) { float *f = malloc (n * 4 + 64); for (size_t i = 0; i < n; i++) f[i] = ((rand () % 2001) - 1000) * 1e-4f; return f; }

/* row-major C (m, n) = op(A) op(B) as the engine calls it */
static void gemm (int ta, int tb, int m, int n, int k, const float *a, const float *b, float *c)
{
  cblas_sgemm (101, ta ? 112 : 111, tb ? 112 : 111, m, n, k, 1.0f, a, ta ? m : k, b, tb ? k : n,
               0.0f, c, n);
}

enum { NS = 8, MAXIT = 4000 };
static double t[NS + 1][MAXIT];

int main (int argc, char **argv)
{
  int iters = argc > 1 ? atoi (argv[1]) : 1500, only = argc > 2 ? atoi (argv[2]) : -1;
  if (iters > MAXIT) iters = MAXIT;
  openblas_set_num_threads (1);
  printf ("%s / core %s\n", openblas_get_config (), openblas_get_corename ());
  int n = 32, H = 1000;
  float *x = R (n * 784), *W1 = R (784 * H), *W2 = R (H * H), *W3 = R (H * 10);
  float *y1 = R (n * H), *y2 = R (n * H), *y3 = R (n * 10), *d3 = R (n * 10), *d2 = R (n * H), *d1 = R (n * H);
  float *dW1 = R (784 * H), *dW2 = R (H * H), *dW3 = R (H * 10);
  static const char *names[NS] = {
    "fwd1 32x1000x784 NN", "fwd2 32x1000x1000 NN", "fwd3 32x10x1000 NN",
    "dW3 1000x10x32 TN", "dX3 32x1000x10 NT", "dW2 1000x1000x32 TN", "dX2 32x1000x1000 NT",
    "dW1 784x1000x32 TN" };
  for (int it = 0; it < iters; it++)
    {
      double t0 = now (), s = t0, e;
#define G(i, call) if (only < 0 || only == i) { call; e = now (); t[i][it] = e - s; s = e; }
      G (0, gemm (0, 0, n, H, 784, x, W1, y1));
      G (1, gemm (0, 0, n, H, H, y1, W2, y2));
      G (2, gemm (0, 0, n, 10, H, y2, W3, y3));
      G (3, gemm (1, 0, H, 10, n, y2, d3, dW3));
      G (4, gemm (0, 1, n, H, 10, d3, W3, d2));
      G (5, gemm (1, 0, H, H, n, y1, d2, dW2));
      G (6, gemm (0, 1, n, H, H, d2, W2, d1));
      G (7, gemm (1, 0, 784, H, n, x, d1, dW1));
      t[NS][it] = now () - t0;
    }
  int skip = iters / 10, cnt = iters - skip;
  double summed = 0;
  for (int i = 0; i <= NS; i++)
    {
      if (only >= 0 && i != only && i != NS)
        continue;
      qsort (t[i] + skip, cnt, sizeof (double), cmpd);
      double med = t[i][skip + cnt / 2], p10 = t[i][skip + cnt / 10];
      if (i < NS)
        summed += med;
      printf ("%-22s median %8.1f us  p10 %8.1f us\n", i < NS ? names[i] : "all eight (step)",
              med * 1e6, p10 * 1e6);
    }
  printf ("%-22s        %8.1f us\n", "sum of medians", summed * 1e6);
  return 0;
}
