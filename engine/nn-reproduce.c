/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-reproduce.c: the runs of reproducing the articles: every preset on
 * every usable device (the CLI's reproduce, the app's Reproduce the
 * Articles), and the runs that measure what a claim of the report still
 * lacks on this machine (the Articles page's Measure).
 */

#include "nn-private.h"

#include <string.h>

/* Adds a run to `out` (at most `max`), counting it in *n either way. */
static void
add_run (NnReproduceRun *out, int32_t max, int32_t *n, const NnPreset *preset,
         const NnDeviceInfo *device, int32_t entry)
{
  if (*n < max)
    out[*n] = (NnReproduceRun) { .preset = preset, .kind = device->kind, .index = device->index,
                                 .device = entry };
  (*n)++;
}

int32_t
nn_reproduce_runs (const NnPreset *const *presets, int32_t preset_count,
                   const NnDeviceInfo *devices, int32_t device_count, NnReproduceRun *out,
                   int32_t max)
{
  const NnPreset *all;
  int count = 0;
  int32_t n = 0;

  if (out == NULL || max < 0)
    max = 0;
  all = nn_presets (&count);
  if (presets == NULL)
    preset_count = count;
  for (int32_t p = 0; p < preset_count; p++)
    for (int32_t d = 0; d < device_count; d++)
      if (devices[d].usable)
        add_run (out, max, &n, presets != NULL ? presets[p] : &all[p], &devices[d], d);
  return n;
}

/* Whether the report's machine runs Windows (natively or under wine). */
static bool
machine_is_windows (const NnReportMachine *machine)
{
  return strcmp (machine->os_name, "Windows") == 0;
}

uint32_t
nn_report_claim_unmeasured (const NnReport *report, int32_t index)
{
  const NnReportClaim *rc;
  uint32_t sides = 0;

  if (report == NULL || index < 0 || index >= report->claim_count)
    return 0;
  rc = &report->claims[index];
  if (rc->claim->kind == NN_CLAIM_GPU_VS_CPU)
    {
      if (!rc->first.measured)
        sides |= NN_REPORT_FIRST_SIDE;
      if (!rc->second.measured && report->machine.gpu_count > 0)
        sides |= NN_REPORT_SECOND_SIDE;
    }
  else if (report->machine.os_emulated_by[0] == '\0')
    {
      /* only the side of the OS this machine runs: a Linux machine cannot
       * make a Windows run, and wine's is no Windows figure */
      if (machine_is_windows (&report->machine) && !rc->first.measured)
        sides |= NN_REPORT_FIRST_SIDE;
      if (!machine_is_windows (&report->machine) && !rc->second.measured)
        sides |= NN_REPORT_SECOND_SIDE;
    }
  return sides;
}

int32_t
nn_report_claim_runs (const NnReport *report, int32_t index, uint32_t sides,
                      const NnDeviceInfo *devices, int32_t device_count, NnReproduceRun *out,
                      int32_t max)
{
  const NnClaim *claim;
  const NnPreset *preset;
  int32_t n = 0;

  if (out == NULL || max < 0)
    max = 0;
  if (report == NULL || index < 0 || index >= report->claim_count)
    return 0;
  claim = report->claims[index].claim;
  preset = nn_preset_find (claim->preset);
  if (preset == NULL)
    return 0;
  for (int side = 0; side < 2; side++)
    {
      /* the GPU side of a GPU claim on the first usable GPU; every other
       * side on the CPU */
      NnDeviceKind kind = claim->kind == NN_CLAIM_GPU_VS_CPU && side == 1 ? NN_DEVICE_CUDA
                                                                          : NN_DEVICE_CPU;

      if (!(sides & (side == 0 ? NN_REPORT_FIRST_SIDE : NN_REPORT_SECOND_SIDE)))
        continue;
      for (int32_t d = 0; d < device_count; d++)
        if (devices[d].kind == kind && devices[d].usable)
          {
            add_run (out, max, &n, preset, &devices[d], d);
            break;
          }
    }
  return n;
}
