/* SPDX-License-Identifier: GPL-3.0-or-later */
/* split-k-probe.c: mlp-small's first product (32x128x784) through the
 * engine's _nn_sgemm on 2 threads, 20000 calls: min, p10, p25, median.
 *
 *   gcc -O2 -fopenmp -Iengine split-k-probe.c BUILD/engine/libtrainbench.a -o split-k-probe -lz -lm -ldl -lpthread
 *   x86_64-w64-mingw32-gcc-posix -O2 -fopenmp -Iengine split-k-probe.c WINBUILD/engine/libtrainbench.a -o split-k-probe.exe -lz -lm -lpthread -lbcrypt -static
 */
#define _POSIX_C_SOURCE 200809L
#include "nn-private.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now (void) { struct timespec t; clock_gettime (CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static int cmpd (const void *a, const void *b) { double x = *(double*)a, y = *(double*)b; return x < y ? -1 : x > y; }
int main (void) {
  nn_threads_set (2);
  float *a = calloc (32 * 784, 4), *b = calloc (784 * 128, 4), *c = calloc (32 * 128, 4);
  for (int i = 0; i < 32 * 784; i++) a[i] = (i % 7) * 0.1f;
  for (int i = 0; i < 784 * 128; i++) b[i] = (i % 5) * 0.1f;
  enum { N = 20000 }; static double t[N];
  for (int i = 0; i < N; i++) { double t0 = now (); _nn_sgemm (0, 0, 32, 128, 784, 1.0f, a, 784, b, 128, 0.0f, c, 128); t[i] = now () - t0; }
  qsort (t, N, sizeof *t, cmpd);
  printf ("32x128x784 on 2 threads: min %.2f  p10 %.2f  p25 %.2f  median %.2f us\n", t[0]*1e6, t[N/10]*1e6, t[N/4]*1e6, t[N/2]*1e6);
}
