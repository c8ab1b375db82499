/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gpu-test-util.h: what the GPU tests share: opening the CPU and CUDA
 * backends through the engine's normal path, moving host arrays in and out,
 * and comparing results. Header-only: static inline, so a test that uses
 * only some of them compiles without unused-function warnings.
 */
#pragma once

#include "nn-private.h"
#include "test-util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Why no CUDA device can be used (from nn_device_list), or NULL when one can. */
static inline const char *
gpu_unusable_reason (void)
{
  static char reason[1100];
  NnDeviceInfo devices[16];
  int n = nn_device_list (devices, 16);
  for (int i = 0; i < n; i++)
    if (devices[i].kind == NN_DEVICE_CUDA)
      {
        if (devices[i].usable)
          return NULL;
        snprintf (reason, sizeof reason, "no usable CUDA device: %s", devices[i].reason);
        return reason;
      }
  snprintf (reason, sizeof reason, "no usable CUDA device: the device list has no CUDA entry");
  return reason;
}

static inline bool
gpu_open (NnDeviceKind kind, bool tf32, NnBackend *backend)
{
  NnDeviceOptions options = { .kind = kind, .index = 0, .threads = 0, .tf32 = tf32 };
  NnError error;
  nn_error_clear (&error);
  if (_nn_backend_open (&options, backend, &error) != NN_OK)
    {
      tap_diag ("opening %s: %s", kind == NN_DEVICE_CPU ? "cpu" : "cuda:0", error.message);
      return false;
    }
  return true;
}

/* Device copy of a host array (bytes), or NULL (with a diagnostic). */
static inline void *
gpu_put (NnBackend *b, const void *host, size_t bytes)
{
  void *p = NULL;
  if (b->ops->alloc (b->ctx, bytes, &p) != 0)
    {
      tap_diag ("%s alloc %zu: %s", b->ops->name, bytes, b->ops->last_error (b->ctx));
      return NULL;
    }
  if (host != NULL && bytes > 0 && b->ops->upload (b->ctx, p, host, bytes) != 0)
    {
      tap_diag ("%s upload: %s", b->ops->name, b->ops->last_error (b->ctx));
      b->ops->free (b->ctx, p);
      return NULL;
    }
  return p;
}

/* Host copy (malloc'd) of device bytes. */
static inline void *
gpu_get (NnBackend *b, const void *dev, size_t bytes)
{
  void *host = malloc (bytes > 0 ? bytes : 1);
  if (b->ops->download (b->ctx, host, dev, bytes) != 0)
    {
      tap_diag ("%s download: %s", b->ops->name, b->ops->last_error (b->ctx));
      free (host);
      return NULL;
    }
  return host;
}

/* ||a - b|| / ||b|| (0 when both are 0); infinity when a has a NaN. */
static inline double
gpu_rel_err (const float *a, const float *b, size_t count)
{
  double num = 0.0, den = 0.0;
  if (a == NULL || b == NULL)
    return INFINITY;
  for (size_t i = 0; i < count; i++)
    {
      if (!isfinite (a[i]) && !(isnan (a[i]) && isnan (b[i])) && a[i] != b[i])
        return INFINITY;
      double d = (double) a[i] - b[i];
      num += d * d;
      den += (double) b[i] * b[i];
    }
  if (num == 0.0)
    return 0.0;
  return sqrt (num) / (den > 0.0 ? sqrt (den) : 1e-30);
}

static inline void
gpu_fill_random (float *x, size_t count, uint64_t *rng, float lo, float hi)
{
  for (size_t i = 0; i < count; i++)
    x[i] = test_randf (rng, lo, hi);
}
