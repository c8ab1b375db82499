/* SPDX-License-Identifier: GPL-3.0-or-later */
/* omp-join-cost.c: what one OpenMP parallel region of 2 threads and one
 * barrier in it cost, after 0, 30 and 100 us of serial work (p10 and median
 * of 3000), natively and, cross-built, under wine.
 *
 *   gcc -O2 -fopenmp omp-join-cost.c -o omp-join-cost
 *   x86_64-w64-mingw32-gcc-posix -O2 -fopenmp omp-join-cost.c -o omp-join-cost.exe -static
 */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now (void) { struct timespec t; clock_gettime (CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static int cmpd (const void *a, const void *b) { double x = *(double*)a, y = *(double*)b; return x < y ? -1 : x > y; }
volatile double sink;
static void work (double us) { double t0 = now (); while (now () - t0 < us * 1e-6) ; }
enum { N = 3000 };
static double t[N];
static void show (const char *what) { qsort (t, N, sizeof *t, cmpd); printf ("%-44s p10 %8.2f  median %8.2f us\n", what, t[N/10]*1e6, t[N/2]*1e6); }
int main (void) {
  omp_set_num_threads (2);
#pragma omp parallel
  sink = 1;
  for (int g = 0; g < 3; g++) {
    double gap = g == 0 ? 0 : g == 1 ? 30 : 100;
    for (int i = 0; i < N; i++) { work (gap); double t0 = now ();
#pragma omp parallel num_threads (2)
      sink = omp_get_thread_num ();
      t[i] = now () - t0; }
    char s[64]; snprintf (s, sizeof s, "region, %3.0f us after the last", gap); show (s);
    for (int i = 0; i < N; i++) { work (gap); double t0 = now ();
#pragma omp parallel num_threads (2)
      {
#pragma omp barrier
      }
      t[i] = now () - t0; }
    snprintf (s, sizeof s, "region + barrier, %3.0f us after the last", gap); show (s); }
  return 0;
}
