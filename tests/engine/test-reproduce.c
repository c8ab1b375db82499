/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-reproduce.c: the runs of reproducing the articles (nn-reproduce.c):
 * every preset on every usable device, a chosen few, and the runs that
 * measure what a claim of the report lacks on this machine.
 */

#include "test-util.h"

#include <stdlib.h>
#include <string.h>

static NnDeviceInfo
device_info (NnDeviceKind kind, int32_t index, bool usable)
{
  NnDeviceInfo d;

  memset (&d, 0, sizeof d);
  d.kind = kind;
  d.index = index;
  d.usable = usable;
  return d;
}

static void
test_runs (void)
{
  NnDeviceInfo devices[4] = {
    device_info (NN_DEVICE_CPU, 0, true),
    device_info (NN_DEVICE_CUDA, 0, false),
    device_info (NN_DEVICE_CUDA, 1, true),
    device_info (NN_DEVICE_CUDA, 2, true),
  };
  NnReproduceRun runs[16];
  int n_presets = 0;
  const NnPreset *presets = nn_presets (&n_presets);
  int32_t n;
  bool ok = true;

  n = nn_reproduce_runs (NULL, 0, devices, 4, runs, 16);
  tap_ok (n == 3 * n_presets, "every preset on each of the 3 usable devices: %d runs", (int) n);
  for (int32_t i = 0; i < n && i < 16; i++)
    {
      static const int32_t entries[] = { 0, 2, 3 };
      ok = ok && runs[i].preset == &presets[i / 3] && runs[i].device == entries[i % 3]
           && runs[i].kind == devices[entries[i % 3]].kind
           && runs[i].index == devices[entries[i % 3]].index;
    }
  tap_ok (ok, "a preset's runs together, on the devices in the list's order, the unusable GPU "
              "left out");

  const NnPreset *cnn = nn_preset_find ("cnn");
  n = nn_reproduce_runs (&cnn, 1, devices, 1, runs, 16);
  tap_ok (n == 1 && runs[0].preset == cnn && runs[0].kind == NN_DEVICE_CPU,
          "the presets and devices a user named");
  tap_ok (nn_reproduce_runs (NULL, 0, devices, 4, runs, 2) == 3 * n_presets
            && runs[1].index == 1,
          "fewer written than there are, and their count");
  tap_ok (nn_reproduce_runs (NULL, 0, devices, 4, NULL, 0) == 3 * n_presets,
          "counted without room to write them");
  tap_ok (nn_reproduce_runs (NULL, 0, &devices[1], 1, runs, 16) == 0,
          "no usable device, no run");
}

/* A report of the four claims, none measured, on a Linux machine with one
 * usable GPU. */
static NnReport *
report_new (void)
{
  NnReport *r = calloc (1, sizeof *r);
  int count = 0;
  const NnClaim *claims = nn_claims (&count);

  snprintf (r->machine.os_name, sizeof r->machine.os_name, "Debian GNU/Linux");
  r->machine.gpus_known = true;
  r->machine.gpu_count = 1;
  r->claim_count = count;
  for (int i = 0; i < count; i++)
    r->claims[i].claim = &claims[i];
  return r;
}

static int32_t
claim_of_kind (const NnReport *r, NnClaimKind kind)
{
  for (int32_t i = 0; i < r->claim_count; i++)
    if (r->claims[i].claim->kind == kind)
      return i;
  return -1;
}

static void
test_claim_runs (void)
{
  NnReport *r = report_new ();
  int32_t gpu_claim = claim_of_kind (r, NN_CLAIM_GPU_VS_CPU);
  int32_t os_claim = claim_of_kind (r, NN_CLAIM_WINDOWS_VS_LINUX);
  const NnPreset *preset = nn_preset_find (r->claims[gpu_claim].claim->preset);
  NnDeviceInfo devices[3] = {
    device_info (NN_DEVICE_CPU, 0, true),
    device_info (NN_DEVICE_CUDA, 0, false),
    device_info (NN_DEVICE_CUDA, 1, true),
  };
  NnReproduceRun runs[4];
  uint32_t sides;
  int32_t n;

  tap_ok (gpu_claim >= 0 && os_claim >= 0, "the claims have both kinds");
  sides = nn_report_claim_unmeasured (r, gpu_claim);
  tap_ok (sides == (NN_REPORT_FIRST_SIDE | NN_REPORT_SECOND_SIDE), "a GPU claim: both sides");
  n = nn_report_claim_runs (r, gpu_claim, sides, devices, 3, runs, 4);
  tap_ok (n == 2 && runs[0].preset == preset && runs[0].kind == NN_DEVICE_CPU
            && runs[0].device == 0 && runs[1].preset == preset && runs[1].kind == NN_DEVICE_CUDA
            && runs[1].index == 1 && runs[1].device == 2,
          "its preset on the CPU and on the first usable GPU");
  r->claims[gpu_claim].first.measured = true;
  tap_ok (nn_report_claim_unmeasured (r, gpu_claim) == NN_REPORT_SECOND_SIDE,
          "a side measured is not measured again");
  tap_ok (nn_report_claim_runs (r, gpu_claim, NN_REPORT_SECOND_SIDE, devices, 2, runs, 4) == 0,
          "no usable GPU in the list, no GPU run");
  r->machine.gpu_count = 0;
  tap_ok (nn_report_claim_unmeasured (r, gpu_claim) == 0, "nor a GPU side without a GPU");

  tap_ok (nn_report_claim_unmeasured (r, os_claim) == NN_REPORT_SECOND_SIDE,
          "Windows against Linux under Linux: the Linux side");
  n = nn_report_claim_runs (r, os_claim, NN_REPORT_SECOND_SIDE, devices, 3, runs, 4);
  tap_ok (n == 1 && runs[0].kind == NN_DEVICE_CPU, "on the CPU");
  snprintf (r->machine.os_name, sizeof r->machine.os_name, "Windows");
  tap_ok (nn_report_claim_unmeasured (r, os_claim) == NN_REPORT_FIRST_SIDE,
          "under Windows: the Windows side");
  snprintf (r->machine.os_emulated_by, sizeof r->machine.os_emulated_by, "wine 8.0");
  tap_ok (nn_report_claim_unmeasured (r, os_claim) == 0, "under wine: neither");
  tap_ok (nn_report_claim_unmeasured (r, 99) == 0 && nn_report_claim_unmeasured (NULL, 0) == 0
            && nn_report_claim_runs (r, -1, 3, devices, 3, runs, 4) == 0,
          "a claim out of range: nothing");
  free (r);
}

int
main (void)
{
  test_runs ();
  test_claim_runs ();
  return tap_done ();
}
