/* SPDX-License-Identifier: GPL-3.0-or-later */
/* epilogue.h: what a dense product's kernel does with each finished sum, as
 * its launcher fills it in (epilogue.cuh: the device side).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* What a product's kernel does with each output's sum. Off: C = alpha sum +
 * beta C (BLAS). On (the fused dense forward): y = act (sum + bias), and
 * with drop_y also drop_y = y * keep / (1 - rate) with dropout_forward's mask
 * (index row * n + col, so rows must be contiguous: ldc == n). */
struct Epilogue
{
  int on;
  int act;
  const float *bias;     /* (n) or NULL */
  float *drop_y;         /* (m, n) or NULL */
  float rate, scale;     /* scale = 1 / (1 - rate), as dropout_forward has it */
  uint64_t seed;
  const int64_t *step;   /* device, or NULL for step 0 */
};

static const Epilogue no_epilogue = { 0, 0, NULL, NULL, 0.0f, 1.0f, 0, NULL };
