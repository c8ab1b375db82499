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
  memset (clock->ticks, 0, sizeof clock->ticks);
  clock->part = part;
  clock->start_seconds = _nn_now ();
  clock->start_ticks = clock->mark = _nn_clock_ticks ();
  _nn_step_clock = clock;
  __atomic_add_fetch (&starts, 1, __ATOMIC_RELAXED);
}

void
_nn_clock_stop (NnStepClock *clock)
{
  _nn_clock_switch (clock, clock->part);
  double seconds = _nn_now () - clock->start_seconds;
  uint64_t ticks = clock->mark - clock->start_ticks;
  /* the counter's rate over this window; a counter that did not move
   * (none, or a window too short for it) gives all to the current part */
  for (int p = 0; p < NN_BREAKDOWN_PARTS; p++)
    clock->seconds[p] = ticks > 0 ? seconds * ((double) clock->ticks[p] / (double) ticks)
                                  : p == clock->part ? seconds : 0.0;
  clock->window_seconds = seconds;
  _nn_step_clock = NULL;
}

uint64_t
_nn_clock_starts (void)
{
  return __atomic_load_n (&starts, __ATOMIC_RELAXED);
}
