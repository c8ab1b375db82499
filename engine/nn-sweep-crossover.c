/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-sweep-crossover.c: where the GPU starts to beat the CPU in a sweep's
 * points: which devices are compared, which axes a sweep is shown along,
 * the ratios along one axis and what they say. The CLI's text and the
 * app's heat map both present these.
 */

#include "nn-private.h"

#include <math.h>
#include <string.h>

bool
nn_sweep_crossover_devices (const NnSweepRequest *request, int32_t *cpu, int32_t *gpu)
{
  *cpu = *gpu = -1;
  for (int32_t d = 0; d < request->device_count && d < NN_SWEEP_DEVICES_MAX; d++)
    {
      if (*cpu < 0 && strcmp (request->devices[d], "cpu") == 0)
        *cpu = d;
      else if (*gpu < 0 && strncmp (request->devices[d], "cuda", 4) == 0)
        *gpu = d;
    }
  return *cpu >= 0 && *gpu >= 0;
}

void
nn_sweep_crossover_axes (const NnSweepRequest *request, int32_t *x_axis, int32_t *y_axis)
{
  int32_t n = request->axis_count < NN_SWEEP_AXES_MAX ? request->axis_count : NN_SWEEP_AXES_MAX;
  int32_t batch = -1;

  *x_axis = *y_axis = -1;
  if (n <= 0)
    return;
  for (int32_t a = 0; a < n; a++)
    if (strcmp (request->axes[a].name, "batch") == 0)
      batch = a;
    else if (*x_axis < 0)
      *x_axis = a;
  if (*x_axis < 0)
    *x_axis = 0;
  if (n > 1)
    *y_axis = batch >= 0 && batch != *x_axis ? batch : (*x_axis == 0 ? 1 : 0);
}

/* Whether the request's grid is one nn_sweep_new would lay out (a request
 * may come from a file): 1 to NN_SWEEP_AXES_MAX axes of 1 to
 * NN_SWEEP_VALUES_MAX values, 1 to NN_SWEEP_DEVICES_MAX devices. */
static bool
grid_ok (const NnSweepRequest *request)
{
  if (request->axis_count < 1 || request->axis_count > NN_SWEEP_AXES_MAX
      || request->device_count < 1 || request->device_count > NN_SWEEP_DEVICES_MAX)
    return false;
  for (int32_t a = 0; a < request->axis_count; a++)
    if (request->axes[a].count < 1 || request->axes[a].count > NN_SWEEP_VALUES_MAX)
      return false;
  return true;
}

int32_t
nn_sweep_crossover_line_count (const NnSweepRequest *request, int32_t x_axis)
{
  int32_t lines = 1;

  if (!grid_ok (request) || x_axis < 0 || x_axis >= request->axis_count)
    return 0;
  for (int32_t a = 0; a < request->axis_count; a++)
    if (a != x_axis)
      lines *= request->axes[a].count;
  return lines;
}

/* Whether p is device d's point at the axes' value indices `at`. */
static bool
point_is (const NnSweepRequest *request, const NnSweepPoint *p, const int32_t *at, int32_t d)
{
  if (p->device != d)
    return false;
  for (int32_t a = 0; a < request->axis_count; a++)
    if (p->values[a] != request->axes[a].values[at[a]])
      return false;
  return true;
}

/* The samples per second of device d at the axes' value indices `at`, or
 * NAN when that point has not completed. nn_sweep_new's points are in grid
 * order, so the point is where the grid puts it; a sweep file's may lack
 * some, so otherwise it is looked for by its device and values. */
static double
rate_at (const NnSweepRequest *request, const NnSweepPoint *points, int32_t count,
         const int32_t *at, int32_t d)
{
  const NnSweepPoint *found = NULL;
  int32_t index = 0;

  for (int32_t a = 0; a < request->axis_count; a++)
    index = index * request->axes[a].count + at[a];
  index = index * request->device_count + d;
  if (index < count && point_is (request, &points[index], at, d))
    found = &points[index];
  for (int32_t i = 0; i < count && found == NULL; i++)
    if (point_is (request, &points[i], at, d))
      found = &points[i];
  if (found == NULL || found->status != NN_SWEEP_POINT_COMPLETED
      || !(found->samples_per_second > 0) || !isfinite (found->samples_per_second))
    return NAN;
  return found->samples_per_second;
}

bool
nn_sweep_crossover_line (const NnSweepRequest *request, const NnSweepPoint *points,
                         int32_t point_count, int32_t x_axis, int32_t line, NnCrossoverLine *out)
{
  int32_t cpu, gpu, rest = line, compared = 0, faster = 0, from = -1, last = -1;

  memset (out, 0, sizeof *out);
  out->x_axis = x_axis;
  out->kind = NN_CROSSOVER_NOT_COMPARED;
  out->where = -1;
  if (line < 0 || line >= nn_sweep_crossover_line_count (request, x_axis))
    return false;
  /* the other axes' values, the last fastest */
  for (int32_t a = request->axis_count - 1; a >= 0; a--)
    if (a != x_axis)
      {
        out->at[a] = rest % request->axes[a].count;
        rest /= request->axes[a].count;
      }
  out->count = request->axes[x_axis].count;
  nn_sweep_crossover_devices (request, &cpu, &gpu);
  for (int32_t i = 0; i < out->count; i++)
    {
      int32_t at[NN_SWEEP_AXES_MAX];
      double ratio = NAN;

      memcpy (at, out->at, sizeof at);
      at[x_axis] = i;
      if (cpu >= 0 && gpu >= 0)
        ratio = rate_at (request, points, point_count, at, gpu)
                / rate_at (request, points, point_count, at, cpu);
      out->ratio[i] = ratio;
      if (isnan (ratio))
        continue;
      /* faster is more than 1: an even point is no win for the GPU */
      compared++;
      last = i;
      if (ratio > 1.0)
        {
          faster++;
          if (from < 0)
            from = i;
        }
      else
        from = -1;
    }
  if (compared == 0)
    out->kind = NN_CROSSOVER_NOT_COMPARED;
  else if (faster == 0)
    out->kind = NN_CROSSOVER_CPU_FASTER;
  else if (faster == compared)
    out->kind = NN_CROSSOVER_GPU_FASTER;
  else if (from >= 0)
    {
      out->kind = NN_CROSSOVER_GPU_FROM;
      out->where = from;
    }
  else
    {
      out->kind = NN_CROSSOVER_CPU_AGAIN;
      out->where = last;
    }
  return true;
}
