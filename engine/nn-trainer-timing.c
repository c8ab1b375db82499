/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-trainer-timing.c: a training run's figures of time: each step's time
 * (its median, p10 and p90), the loss curve, and the windows of measured
 * steps that say where the steps' time went (the result's breakdown).
 */

#include "nn-trainer-private.h"

#include <stdlib.h>
#include <string.h>

NnStatus
_nn_timing_setup (NnTrainRun *run, NnError *error)
{
  NnTrainTiming *timing = &run->timing;

  timing->step_times_cap = run->total_steps < NN_STEP_TIMES_MAX ? run->total_steps
                                                                : NN_STEP_TIMES_MAX;
  timing->step_times = malloc (sizeof (double)
                               * (size_t) (timing->step_times_cap > 0 ? timing->step_times_cap
                                                                      : 1));
  if (timing->step_times == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for the run's records");
  timing->reservoir_rng = run->config->seed ^ 0x94D049BB133111EBull;
  timing->curve_span = 1;
  return NN_OK;
}

void
_nn_timing_free (NnTrainRun *run)
{
  free (run->timing.step_times);
}

/* ---------------------------------------------------------------- windows of measured steps */

/* Opens a window of measured steps on this thread: what the clock has is
 * dropped. */
void
_nn_timing_open (NnTrainRun *run)
{
  if (!run->timing.breakdown)
    return;
  run->timing.window_bytes = 0;
  _nn_clock_start (&run->timing.clock, NN_BREAKDOWN_HOST);
}

void
_nn_timing_stop (NnTrainRun *run)
{
  _nn_clock_stop (&run->timing.clock);
}

/* A window of the warm-up is not counted (an asynchronous run's interval
 * ends where the warm-up does, so a window is all warm-up or none). */
void
_nn_timing_close (NnTrainRun *run, int64_t first_step, int64_t steps)
{
  NnTrainTiming *timing = &run->timing;

  if (first_step <= run->config->warmup_steps)
    return;
  for (int p = 0; p < NN_BREAKDOWN_PARTS; p++)
    timing->part_total[p] += timing->clock.seconds[p];
  timing->copy_bytes += timing->window_bytes;
  timing->timed_steps += steps;
  timing->timed_seconds += timing->clock.window_seconds;
}

void
_nn_timing_drop (NnTrainRun *run)
{
  if (_nn_step_clock == &run->timing.clock)
    _nn_clock_stop (&run->timing.clock);
}

void
_nn_timing_copied (NnTrainRun *run, int back, size_t bytes)
{
  /* -1: no clock on this thread, no window open */
  if (back >= 0)
    run->timing.window_bytes += (double) bytes;
}

/* ---------------------------------------------------------------- the device's time */

/* A step launched on its own has a span of the backend's timer of its own.
 * Graphs of several steps, back to back, share one until the interval
 * ends: with a span each the breakdown cost 1-3 % of mlp-small's step on
 * an H100, with one at most 0.83 % (bench/results/h100-gpu-2026-12-06.md),
 * and the host queues those graphs far ahead of the GPU, so the shared
 * span holds no time the GPU sat idle (its busy time per step came out the
 * same). */
int
_nn_timing_launch_begin (NnTrainRun *run, int32_t count)
{
  NnTrainTiming *timing = &run->timing;
  int back = _nn_clock_enter (NN_BREAKDOWN_LAUNCH);

  if (count == 1)
    _nn_timing_span_end (run);
  /* no free span (more spans between two reads than the backend keeps):
   * these steps go untimed rather than wait */
  if (!timing->span_open && timing->device_timer)
    timing->span_open = run->ops->timer_begin (run->backend->ctx) == 0;
  return back;
}

void
_nn_timing_launch_end (NnTrainRun *run, int32_t count, int back)
{
  if (run->timing.span_open)
    run->timing.span_steps += count;
  if (count == 1)
    _nn_timing_span_end (run);
  _nn_clock_leave (back);
}

void
_nn_timing_span_end (NnTrainRun *run)
{
  NnTrainTiming *timing = &run->timing;

  if (!timing->span_open)
    return;
  if (run->ops->timer_end (run->backend->ctx, timing->span_steps) != 0)
    timing->device_timer = false;
  timing->span_open = false;
  timing->span_steps = 0;
}

void
_nn_timing_read_device (NnTrainRun *run)
{
  double seconds = 0;
  int64_t steps = 0;

  if (!run->timing.device_timer)
    return;
  if (run->ops->timer_read (run->backend->ctx, &seconds, &steps) == 0)
    {
      run->timing.device_seconds += seconds;
      run->timing.device_steps += steps;
    }
}

/* ---------------------------------------------------------------- step times and the curve */

void
_nn_timing_step (NnTrainRun *run, int64_t step, double seconds)
{
  NnTrainTiming *timing = &run->timing;

  if (step <= run->config->warmup_steps)
    return;
  if (timing->step_times_count < timing->step_times_cap)
    timing->step_times[timing->step_times_count] = seconds;
  else
    {
      /* reservoir sampling: keep a uniform sample of all steps */
      uint64_t j = _nn_splitmix64 (&timing->reservoir_rng)
                   % (uint64_t) (timing->step_times_count + 1);
      if (j < (uint64_t) timing->step_times_cap)
        timing->step_times[j] = seconds;
    }
  timing->step_times_count++;
}

void
_nn_timing_curve_add (NnTrainRun *run, double loss_sum, double samples, int64_t step)
{
  NnTrainTiming *timing = &run->timing;

  if (timing->curve_fill == 0)
    {
      if (timing->curve_count == NN_LOSS_CURVE_MAX)
        {
          for (int32_t i = 0; i < NN_LOSS_CURVE_MAX / 2; i++)
            {
              NnCurvePoint a = timing->curve[2 * i], b = timing->curve[2 * i + 1];
              timing->curve[i].sum = a.sum + b.sum;
              timing->curve[i].samples = a.samples + b.samples;
              timing->curve[i].step = b.step;
            }
          timing->curve_count = NN_LOSS_CURVE_MAX / 2;
          timing->curve_span *= 2;
        }
      timing->curve[timing->curve_count].sum = 0;
      timing->curve[timing->curve_count].samples = 0;
      timing->curve_count++;
    }
  NnCurvePoint *p = &timing->curve[timing->curve_count - 1];
  p->sum += loss_sum;
  p->samples += samples;
  p->step = step;
  if (++timing->curve_fill >= timing->curve_span)
    timing->curve_fill = 0;
}

/* ---------------------------------------------------------------- into the result */

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y ? 1 : 0;
}

static double
percentile (const double *sorted, int64_t count, double p)
{
  double pos, frac;
  int64_t lo;

  if (count == 0)
    return 0.0;
  pos = p * (double) (count - 1);
  lo = (int64_t) pos;
  frac = pos - (double) lo;
  if (lo + 1 >= count)
    return sorted[count - 1];
  return sorted[lo] * (1.0 - frac) + sorted[lo + 1] * frac;
}

void
_nn_timing_result (const NnTrainRun *run, NnRunResult *result)
{
  const NnTrainTiming *timing = &run->timing;
  int64_t kept = timing->step_times_count < timing->step_times_cap ? timing->step_times_count
                                                                    : timing->step_times_cap;
  double *sorted;

  result->steps_timed = timing->step_times_count;
  if (kept > 0 && (sorted = malloc (sizeof (double) * (size_t) kept)) != NULL)
    {
      memcpy (sorted, timing->step_times, sizeof (double) * (size_t) kept);
      qsort (sorted, (size_t) kept, sizeof (double), compare_double);
      result->step_seconds_median = percentile (sorted, kept, 0.5);
      result->step_seconds_p10 = percentile (sorted, kept, 0.1);
      result->step_seconds_p90 = percentile (sorted, kept, 0.9);
      free (sorted);
    }
  result->loss_curve_count = timing->curve_count;
  for (int32_t i = 0; i < timing->curve_count; i++)
    {
      result->loss_curve[i] = timing->curve[i].samples > 0
                                ? (float) (timing->curve[i].sum / timing->curve[i].samples)
                                : 0.0f;
      result->loss_curve_steps[i] = timing->curve[i].step;
    }
  if (timing->breakdown && timing->timed_steps > 0)
    {
      NnBreakdown *b = &result->breakdown;
      double steps = (double) timing->timed_steps;
      b->measured = true;
      b->steps = timing->timed_steps;
      b->step_seconds = timing->timed_seconds / steps;
      for (int p = 0; p < NN_BREAKDOWN_PARTS; p++)
        b->part_seconds[p] = timing->part_total[p] / steps;
      b->device_busy_seconds = timing->device_steps > 0
                                 ? timing->device_seconds / (double) timing->device_steps
                                 : -1.0;
      b->copy_bytes = timing->copy_bytes / steps;
      b->evaluation_seconds = timing->evaluation_seconds;
    }
}
