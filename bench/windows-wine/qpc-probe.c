/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qpc-probe.c: ns per QueryPerformanceCounter call (the engine's clock on
 * Windows), under wine.
 *
 *   x86_64-w64-mingw32-gcc-posix -O2 qpc-probe.c -o qpc-probe.exe
 */
#include <windows.h>
#include <stdio.h>
int main (void) { LARGE_INTEGER a, b, f, x; QueryPerformanceFrequency (&f); QueryPerformanceCounter (&a);
  for (int i = 0; i < 1000000; i++) QueryPerformanceCounter (&x);
  QueryPerformanceCounter (&b); printf ("QPC %.1f ns/call, freq %lld\n", (double)(b.QuadPart - a.QuadPart) / f.QuadPart * 1e9 / 1e6, f.QuadPart); return 0; }
