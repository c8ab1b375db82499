/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-cuda-lost.c: a context-corrupting error (a kernel writing to an
 * invalid address) turns into NN_BACKEND_DEVICE_LOST, every later op of
 * that context fails fast with it, nothing aborts, and the CPU backend
 * keeps working. Skips, saying why, when no CUDA device is usable. Not run
 * under compute-sanitizer: the fault is the point.
 */

#include "gpu-test-util.h"

int
main (void)
{
  NnBackend gpu, cpu;
  const char *reason = gpu_unusable_reason ();
  if (reason != NULL)
    {
      printf ("1..0 # SKIP %s\n", reason);
      return 0;
    }
  if (!tap_ok (gpu_open (NN_DEVICE_CUDA, false, &gpu), "CUDA backend opens"))
    return tap_done ();

  /* A kernel that writes where nothing is allocated. */
  float *bogus = (float *) (uintptr_t) 0x10000;
  int rc = gpu.ops->fill (gpu.ctx, bogus, 1.0f, 1 << 20);
  if (rc == 0)
    rc = gpu.ops->synchronize (gpu.ctx);
  tap_ok (rc == NN_BACKEND_DEVICE_LOST, "an illegal address is DEVICE_LOST (rc %d: %s)", rc,
          gpu.ops->last_error (gpu.ctx));

  void *p = NULL;
  float host = 0.0f;
  tap_ok (gpu.ops->alloc (gpu.ctx, 64, &p) == NN_BACKEND_DEVICE_LOST, "alloc after: DEVICE_LOST");
  tap_ok (gpu.ops->fill (gpu.ctx, bogus, 1.0f, 1) == NN_BACKEND_DEVICE_LOST
            && gpu.ops->gemm (gpu.ctx, 0, 0, 1, 1, 1, 1.0f, bogus, 1, bogus, 1, 0.0f, bogus, 1)
                 == NN_BACKEND_DEVICE_LOST
            && gpu.ops->download (gpu.ctx, &host, bogus, 4) == NN_BACKEND_DEVICE_LOST
            && gpu.ops->synchronize (gpu.ctx) == NN_BACKEND_DEVICE_LOST,
          "fill, gemm, download, synchronize after: DEVICE_LOST");
  NnError error;
  nn_error_clear (&error);
  NnStatus st = _nn_backend_check (&gpu, NN_BACKEND_DEVICE_LOST, "a step", &error);
  tap_ok (st == NN_ERROR_DEVICE_LOST && strstr (error.message, "unusable") != NULL,
          "the engine reports it as device lost (%s)", error.message);
  _nn_backend_close (&gpu);

  /* the CPU goes on */
  bool cpu_ok = gpu_open (NN_DEVICE_CPU, false, &cpu);
  if (cpu_ok)
    {
      float a[2] = { 1.0f, 2.0f }, b[2] = { 3.0f, 4.0f }, c = 0.0f;
      void *da = gpu_put (&cpu, a, sizeof a), *db = gpu_put (&cpu, b, sizeof b);
      void *dc = gpu_put (&cpu, NULL, sizeof c);
      cpu_ok = da && db && dc
               && cpu.ops->gemm (cpu.ctx, 0, 0, 1, 1, 2, 1.0f, da, 2, db, 1, 0.0f, dc, 1) == 0
               && cpu.ops->download (cpu.ctx, &c, dc, sizeof c) == 0 && c == 11.0f;
      _nn_backend_close (&cpu);
    }
  tap_ok (cpu_ok, "the CPU backend still computes");
  return tap_done ();
}
