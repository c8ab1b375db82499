/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libm-probe.c: ns per call of exp, log, expf, tanhf, sqrtf in a loop, for
 * glibc against mingw-w64 (cross-built, -static, under wine).
 *
 *   gcc -O2 -std=c11 -fno-math-errno libm-probe.c -o libm-probe -lm
 *   x86_64-w64-mingw32-gcc-posix -std=c11 -O2 -fno-math-errno libm-probe.c -o libm-probe.exe -static
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <time.h>
static double now (void) { struct timespec t; clock_gettime (CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
volatile double sink; volatile float sinkf;
int main (void) {
  enum { N = 10000000 };
  double s = 0, t0 = now ();
  for (int i = 0; i < N; i++) s += exp (-(i % 1000) * 0.01);
  double t1 = now (); sink = s; s = 0;
  for (int i = 0; i < N; i++) s += log (1.0 + (i % 1000) * 0.01);
  double t2 = now (); sink = s; float f = 0;
  for (int i = 0; i < N; i++) f += expf (-(i % 1000) * 0.01f);
  double t3 = now (); sinkf = f; f = 0;
  for (int i = 0; i < N; i++) f += tanhf ((i % 1000) * 0.001f);
  double t4 = now (); sinkf = f; f = 0;
  for (int i = 0; i < N; i++) f += sqrtf ((i % 1000) * 0.001f);
  double t5 = now (); sinkf = f;
  printf ("exp %.1f ns  log %.1f ns  expf %.1f ns  tanhf %.1f ns  sqrtf %.1f ns\n", (t1-t0)/N*1e9, (t2-t1)/N*1e9, (t3-t2)/N*1e9, (t4-t3)/N*1e9, (t5-t4)/N*1e9);
}
