/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gemm-shapes-probe.c: the three presets' products (row-major m n k, transposes),
 * single-threaded, p10 and median, against whichever OpenBLAS it is linked
 * to; OPENBLAS_CORETYPE picks the kernel core (Zen against Haswell).
 *
 *   gcc -O2 gemm-shapes-probe.c -o gemm-shapes-probe -lopenblas
 *   x86_64-w64-mingw32-gcc-posix -O2 gemm-shapes-probe.c -o gemm-shapes-probe.exe DIR/openblas.dll -static
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
void cblas_sgemm (int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int);
void openblas_set_num_threads (int); char *openblas_get_corename (void);
static double now (void) { struct timespec t; clock_gettime (CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static int cmpd (const void *a, const void *b) { double x = *(double*)a, y = *(double*)b; return x < y ? -1 : x > y; }
static const int shapes[][6] = {
  {32,128,784,0,0,1},{784,128,32,1,0,1},{32,1000,784,0,0,2},{32,1000,1000,0,0,2},{1000,1000,32,1,0,2},{32,1000,1000,0,1,2},{784,1000,32,1,0,2},
  {32,676,9,0,0,3},{64,576,288,0,0,3},{64,288,576,0,1,3},{288,576,64,1,0,3},{256,128,9216,0,0,3},{9216,128,256,1,0,3},{256,9216,128,0,1,3}};
int main (void) {
  openblas_set_num_threads (1);
  printf ("core %s\n", openblas_get_corename ());
  float *a = malloc (4 << 24), *b = malloc (4 << 24), *c = malloc (4 << 24);
  for (int i = 0; i < (1 << 24); i++) { a[i] = (i % 97) * 0.01f; b[i] = (i % 89) * 0.01f; }
  double total[4] = {0};
  for (unsigned s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    int m = shapes[s][0], n = shapes[s][1], k = shapes[s][2], ta = shapes[s][3], tb = shapes[s][4];
    double flops = 2.0 * m * n * k; int N = flops < 1e7 ? 400 : flops < 1e8 ? 60 : 12;
    double t[400];
    for (int it = 0; it < N; it++) { double t0 = now ();
      cblas_sgemm (101, ta ? 112 : 111, tb ? 112 : 111, m, n, k, 1.0f, a, ta ? m : k, b, tb ? k : n, 0.0f, c, n);
      t[it] = now () - t0; }
    qsort (t, N, sizeof *t, cmpd);
    printf ("%5dx%5dx%5d %d%d  p10 %9.1f us  median %9.1f us\n", m, n, k, ta, tb, t[N/10]*1e6, t[N/2]*1e6);
  }
  return 0;
}
