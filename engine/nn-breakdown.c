/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-breakdown.c: the training thread's step clock (nn-private.h) and the
 * names of the parts a step's time is split into.
 */

#include "nn-private.h"

#include <string.h>

_Thread_local NnStepClock *_nn_step_clock;

static uint64_t starts;

static const char *const part_keys[NN_BREAKDOWN_PARTS] = {
  [NN_BREAKDOWN_GEMM] = "gemm",
  [NN_BREAKDOWN_LOOPS] = "loops",
  [NN_BREAKDOWN_JOIN_WAIT] = "join_wait",
  [NN_BREAKDOWN_LAUNCH] = "launch",
  [NN_BREAKDOWN_COPY] = "copy",
  [NN_BREAKDOWN_SYNC_WAIT] = "sync_wait",
  [NN_BREAKDOWN_HOST] = "host",
};

const char *
nn_breakdown_part_key (NnBreakdownPart part)
{
  return (int) part >= 0 && part < NN_BREAKDOWN_PARTS ? part_keys[part] : NULL;
}

bool
nn_breakdown_part_on (NnBreakdownPart part, NnDeviceKind kind)
{
  if (part == NN_BREAKDOWN_HOST)
    return true;
  if (kind == NN_DEVICE_CPU)
    return part == NN_BREAKDOWN_GEMM || part == NN_BREAKDOWN_LOOPS
           || part == NN_BREAKDOWN_JOIN_WAIT;
  return part == NN_BREAKDOWN_LAUNCH || part == NN_BREAKDOWN_COPY
         || part == NN_BREAKDOWN_SYNC_WAIT;
}

void
_nn_clock_start (NnStepClock *clock, int part)
{
  clock->part = part;
  clock->mark = _nn_now ();
  _nn_step_clock = clock;
  __atomic_add_fetch (&starts, 1, __ATOMIC_RELAXED);
}

uint64_t
_nn_clock_starts (void)
{
  return __atomic_load_n (&starts, __ATOMIC_RELAXED);
}

void
_nn_clock_stop (NnStepClock *clock)
{
  _nn_clock_switch (clock, clock->part);
  _nn_step_clock = NULL;
}
