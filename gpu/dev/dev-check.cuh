/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dev-check.cuh: CHECK for the probes in gpu/dev: a CUDA call that fails
 * prints where, the call and the error, and ends the probe (each is a
 * one-shot program; a half-measured table is worse than none).
 */
#pragma once

#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>

#define CHECK(x)                                                                                   \
  do                                                                                               \
    {                                                                                              \
      cudaError_t err_ = (x);                                                                      \
      if (err_ != cudaSuccess)                                                                     \
        {                                                                                          \
          fprintf (stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,                              \
                   cudaGetErrorString (err_));                                                     \
          exit (1);                                                                                \
        }                                                                                          \
    }                                                                                              \
  while (0)
