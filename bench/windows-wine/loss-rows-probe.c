/* SPDX-License-Identifier: GPL-3.0-or-later */
/* loss-rows-probe.c: the exps and logs of the loss op of an mlp-small step
 * (32 rows of 10 logits), the C library's against the engine's own
 * (engine/cpu/nn-cpu-math.h), best of 2000.
 *
 *   gcc -O3 -std=c11 -fno-math-errno -Iengine loss-rows-probe.c -o loss-rows-probe -lm
 */
#define _POSIX_C_SOURCE 200809L
#include "cpu/nn-cpu-math.h"
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
static double now (void) { struct timespec t; clock_gettime (CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static float z[320]; volatile double sink;
#define ROWS(EXP, LOG) do { double tot = 0; for (int i = 0; i < 32; i++) { const float *zz = z + i * 10; float mx = zz[0]; for (int j = 1; j < 10; j++) mx = fmaxf (mx, zz[j]); double s = 0, ex[10]; for (int j = 0; j < 10; j++) { double e = EXP ((double) zz[j] - mx); ex[j] = e; s += e; } tot += mx + LOG (s) + ex[3]; } sink = tot; } while (0)
int main (void) {
  for (int i = 0; i < 320; i++) z[i] = (rand () % 2000 - 1000) * 0.005f;
  double best_lib = 1, best_own = 1;
  for (int rep = 0; rep < 2000; rep++) {
    double t0 = now (); for (int k = 0; k < 20; k++) ROWS (exp, log); double t1 = now ();
    for (int k = 0; k < 20; k++) ROWS (_nn_cpu_exp, _nn_cpu_log); double t2 = now ();
    if (t1 - t0 < best_lib) best_lib = t1 - t0; if (t2 - t1 < best_own) best_own = t2 - t1; }
  printf ("32 rows of 10: libm %.2f us  own %.2f us (best of 2000)\n", best_lib / 20 * 1e6, best_own / 20 * 1e6);
}
