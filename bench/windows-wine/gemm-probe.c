/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gemm-probe.c: the median time of one sgemm shape, single-threaded, linked
 * straight against an OpenBLAS (the Windows DLL under wine, or the Linux
 * twin of scipy-openblas32 with -DSCIPY for its prefixed names), to tell an
 * OpenBLAS build from wine.
 *
 *   x86_64-w64-mingw32-gcc-posix -O2 gemm-probe.c -o gemm-probe.exe DIR/libscipy_openblas.dll -static
 *   gcc -O2 -DSCIPY gemm-probe.c -o gemm-probe -LDIR -lscipy_openblas -Wl,-rpath,DIR
 *   [wine] gemm-probe[.exe] M N K [TRANS_A TRANS_B]     (row-major, as the engine calls it)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef SCIPY
#define cblas_sgemm scipy_cblas_sgemm
#define openblas_set_num_threads scipy_openblas_set_num_threads
#define openblas_get_config scipy_openblas_get_config
#define openblas_get_parallel scipy_openblas_get_parallel
#endif
void cblas_sgemm (int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int);
void openblas_set_num_threads (int); char *openblas_get_config (void); int openblas_get_parallel(void);
static double now (void) { struct timespec t; clock_gettime (CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static int cmpd (const void *a, const void *b) { double x = *(double*)a, y = *(double*)b; return x < y ? -1 : x > y; }
int main (int argc, char **argv)
{
  int m = atoi (argv[1]), n = atoi (argv[2]), k = atoi (argv[3]), ta = argc > 4 ? atoi (argv[4]) : 0, tb = argc > 5 ? atoi(argv[5]) : 0;
  openblas_set_num_threads (1);
  printf ("%s par %d\n", openblas_get_config (), openblas_get_parallel ());
  float *a = malloc ((size_t) m * k * 4 + 64), *b = malloc ((size_t) k * n * 4 + 64), *c = malloc ((size_t) m * n * 4 + 64);
  for (size_t i = 0; i < (size_t) m * k; i++) a[i] = (rand () % 100) * 0.01f;
  for (size_t i = 0; i < (size_t) n * k; i++) b[i] = (rand () % 100) * 0.01f;
  enum { N = 3000 };
  static double t[N];
  for (int it = 0; it < N; it++) {
    double t0 = now ();
    cblas_sgemm (101, ta ? 112 : 111, tb ? 112 : 111, m, n, k, 1.0f, a, ta ? m : k, b, tb ? k : n, 0.0f, c, n);
    t[it] = now () - t0; }
  qsort (t, N, sizeof *t, cmpd);
  printf ("%dx%dx%d ta%d tb%d: median %.2f us  p10 %.2f  (%.1f GFLOP/s)\n", m, n, k, ta, tb, t[N/2] * 1e6, t[N/10]*1e6, 2.0*m*n*k/t[N/2]*1e-9);
  return 0;
}
