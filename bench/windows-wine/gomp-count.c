/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gomp-count.c: an LD_PRELOAD library that counts, per outlined function,
 * the OpenMP regions (GOMP_parallel) and barriers (GOMP_barrier, one per
 * thread that reaches it) of a native trainbench-cli run, and writes them to
 * $GOMPWHO_OUT. Two runs with different --max-steps give the counts per step:
 *
 *   gcc -O2 -shared -fPIC gomp-count.c -o gomp-count.so -ldl
 *   GOMPWHO_OUT=a.txt LD_PRELOAD=./gomp-count.so trainbench-cli train --preset cnn \
 *     --threads 2 --max-steps 6 --dataset fashion-mnist --quiet
 *   (the same with --max-steps 18 into b.txt; addr2line -f -e trainbench-cli OFFSET names each)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
enum { MAXF = 64 };
static void *fns[MAXF]; static unsigned long cnt[MAXF], nts[MAXF]; static int nf;
static void *cur_fn;
static unsigned long bars[MAXF];
void GOMP_parallel (void (*fn) (void *), void *data, unsigned nt, unsigned flags)
{
  static void (*real) (void (*) (void *), void *, unsigned, unsigned);
  if (!real) real = dlsym (RTLD_NEXT, "GOMP_parallel");
  int i; for (i = 0; i < nf && fns[i] != (void *) fn; i++) ;
  if (i == nf && nf < MAXF) fns[nf++] = (void *) fn;
  if (i < MAXF) { cnt[i]++; nts[i] = nt; }
  cur_fn = (void *) fn;
  real (fn, data, nt, flags);
}
void GOMP_barrier (void)
{
  static void (*real) (void);
  if (!real) real = dlsym (RTLD_NEXT, "GOMP_barrier");
  int i; for (i = 0; i < nf && fns[i] != cur_fn; i++) ;
  if (i < MAXF) __atomic_fetch_add (&bars[i], 1, __ATOMIC_RELAXED);
  real ();
}
__attribute__ ((destructor)) static void report (void)
{
  FILE *o = fopen (getenv ("GOMPWHO_OUT"), "w");
  for (int i = 0; i < nf; i++) { Dl_info d; dladdr (fns[i], &d);
    fprintf (o, "%s 0x%lx %lu %lu %lu\n", d.dli_fname, (unsigned long) ((uintptr_t) fns[i] - (uintptr_t) d.dli_fbase), cnt[i], nts[i], bars[i]); }
  fclose (o);
}
