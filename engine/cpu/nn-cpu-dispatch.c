/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-cpu-dispatch.c: which build of the CPU backend's loops runs here.
 * meson compiles nn-cpu-kernels.c once per x86-64 level into one table
 * each (NN_CPU_HAVE_V3, NN_CPU_HAVE_V4 say which exist); the first call
 * picks the widest one the CPU and the OS run, the same way on Linux and
 * Windows (GCC's target_clones, used before, needs ifunc, which only ELF
 * has, so the Windows build ran the SSE2 loops). */

#include "nn-cpu-kernels.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

extern const NnCpuKernels _nn_cpu_kernels_baseline;
#ifdef NN_CPU_HAVE_V3
extern const NnCpuKernels _nn_cpu_kernels_v3;
#endif
#ifdef NN_CPU_HAVE_V4
extern const NnCpuKernels _nn_cpu_kernels_v4;
#endif

/* Whether this CPU (and the OS, which must save the wider registers: the
 * compiler's checks look at XCR0 too) runs the level's instructions. */
static bool
cpu_runs (const NnCpuKernels *k)
{
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  __builtin_cpu_init ();
#if defined(__clang__) || __GNUC__ < 12
  /* no level names before GCC 12: the features that set the levels apart
   * and that compilers use when vectorizing */
  if (strcmp (k->isa, "x86-64-v4") == 0)
    return __builtin_cpu_supports ("avx512f") && __builtin_cpu_supports ("avx512bw")
           && __builtin_cpu_supports ("avx512dq") && __builtin_cpu_supports ("avx512vl")
           && __builtin_cpu_supports ("avx512cd");
  if (strcmp (k->isa, "x86-64-v3") == 0)
    return __builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma")
           && __builtin_cpu_supports ("bmi") && __builtin_cpu_supports ("bmi2");
#else
  if (strcmp (k->isa, "x86-64-v4") == 0)
    return __builtin_cpu_supports ("x86-64-v4");
  if (strcmp (k->isa, "x86-64-v3") == 0)
    return __builtin_cpu_supports ("x86-64-v3");
#endif
#endif
  return strcmp (k->isa, "baseline") == 0;
}

/* Every table built in, widest first. */
static const NnCpuKernels *const built[] = {
#ifdef NN_CPU_HAVE_V4
  &_nn_cpu_kernels_v4,
#endif
#ifdef NN_CPU_HAVE_V3
  &_nn_cpu_kernels_v3,
#endif
  &_nn_cpu_kernels_baseline,
};

enum
{
  BUILT = sizeof built / sizeof built[0]
};

static const NnCpuKernels *
choose (void)
{
  const char *want = getenv ("TRAINBENCH_CPU_KERNELS");
  if (want != NULL && want[0] != '\0')
    for (int i = 0; i < BUILT; i++)
      if (strcmp (built[i]->isa, want) == 0 && cpu_runs (built[i]))
        return built[i];
  for (int i = 0; i < BUILT; i++)
    if (cpu_runs (built[i]))
      return built[i];
  return &_nn_cpu_kernels_baseline;
}

const NnCpuKernels *
_nn_cpu_kernels (void)
{
  /* Two threads that both find NULL choose the same table. */
  static const NnCpuKernels *chosen;
  const NnCpuKernels *k = __atomic_load_n (&chosen, __ATOMIC_ACQUIRE);
  if (k == NULL)
    {
      k = choose ();
      __atomic_store_n (&chosen, k, __ATOMIC_RELEASE);
    }
  return k;
}

const NnCpuKernels *const *
_nn_cpu_kernel_sets (int *count)
{
  static const NnCpuKernels *runnable[BUILT];
  static int n = -1;
  if (__atomic_load_n (&n, __ATOMIC_ACQUIRE) < 0)
    {
      int m = 0;
      for (int i = 0; i < BUILT; i++)
        if (cpu_runs (built[i]))
          runnable[m++] = built[i];
      __atomic_store_n (&n, m, __ATOMIC_RELEASE);
    }
  *count = n;
  return runnable;
}
