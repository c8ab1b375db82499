/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-cuda-breakdown.c: where a training step's time goes on CUDA: for
 * each preset the result has the GPU's four parts (launching work, copies,
 * waiting for the device, host code), measured, adding up to the step's own
 * time within 5 %, the device's busy time from events around the steps, the
 * bytes copied and the evaluation apart; with the breakdown off nothing is
 * recorded and no clock starts. Skips without a usable GPU.
 */

#include "gpu-test-util.h"

static const NnBreakdownPart gpu_parts[] = {
  NN_BREAKDOWN_LAUNCH, NN_BREAKDOWN_COPY, NN_BREAKDOWN_SYNC_WAIT, NN_BREAKDOWN_HOST,
};

static char *
read_text (const char *path)
{
  FILE *f = test_fopen (path, "rb");
  char *text = NULL;
  long size;

  if (f == NULL)
    return NULL;
  fseek (f, 0, SEEK_END);
  size = ftell (f);
  fseek (f, 0, SEEK_SET);
  if (size > 0 && (text = calloc (1, (size_t) size + 1)) != NULL
      && fread (text, 1, (size_t) size, f) != (size_t) size)
    {
      free (text);
      text = NULL;
    }
  fclose (f);
  return text;
}

static bool
run_preset (const NnPreset *preset, const NnDataset *data, int32_t steps, bool breakdown,
            NnRunResult *r, const char *path)
{
  NnTrainConfig c;
  NnTrainer *t = NULL;
  NnError e;

  nn_error_clear (&e);
  nn_train_config_init (&c);
  nn_train_config_use_preset (&c, preset);
  c.epochs = 2;
  c.max_steps = steps;
  c.device.kind = NN_DEVICE_CUDA;
  c.breakdown = breakdown;
  memset (r, 0, sizeof *r);
  if (nn_trainer_new (&c, data, &t, &e) != NN_OK)
    return tap_ok (false, "%s: trainer: %s", preset->name, e.message);
  NnStatus s = nn_trainer_run (t, r, &e);
  nn_trainer_free (t);
  if (!tap_ok (s == NN_OK, "%s on cuda:0: %d steps ran (%s)", preset->name, steps, e.message))
    return false;
  return tap_ok (nn_result_write (r, NULL, path, &e) == NN_OK, "%s: result written (%s)",
                 preset->name, e.message);
}

static void
check_preset (const NnPreset *preset, const NnDataset *data, int32_t steps)
{
  const char *name = preset->name;
  char file[64];
  NnRunResult r;

  snprintf (file, sizeof file, "%s.json", name);
  if (!run_preset (preset, data, steps, true, &r, test_path (file)))
    {
      nn_run_result_clear (&r);
      return;
    }
  const NnBreakdown *b = &r.breakdown;
  double sum = 0;
  for (int p = 0; p < NN_BREAKDOWN_PARTS; p++)
    sum += b->part_seconds[p];
  tap_ok (b->measured && b->steps == r.step_count && b->steps == steps,
          "%s: every step measured (%lld of %lld)", name, (long long) b->steps,
          (long long) r.step_count);
  for (size_t i = 0; i < sizeof gpu_parts / sizeof gpu_parts[0]; i++)
    {
      NnBreakdownPart p = gpu_parts[i];
      tap_ok (b->part_seconds[p] > 0, "%s: part %s measured (%g s a step)", name,
              nn_breakdown_part_key (p), b->part_seconds[p]);
    }
  tap_ok (b->part_seconds[NN_BREAKDOWN_GEMM] == 0 && b->part_seconds[NN_BREAKDOWN_LOOPS] == 0
          && b->part_seconds[NN_BREAKDOWN_JOIN_WAIT] == 0,
          "%s: none of the CPU's parts on the GPU", name);
  tap_ok (b->step_seconds > 0 && fabs (sum - b->step_seconds) <= 0.05 * b->step_seconds,
          "%s: the parts add up to %g s, the step took %g s (within 5 %%)", name, sum,
          b->step_seconds);
  tap_windows_hold_steps (name, &r);
  tap_ok (b->device_busy_seconds > 0 && b->device_busy_seconds <= 1.05 * b->step_seconds,
          "%s: the device was busy %g s a step, no more than the step's %g s", name,
          b->device_busy_seconds, b->step_seconds);
  /* the data set is resident: what is copied is the epoch's sample order */
  tap_ok (b->copy_bytes > 0 && b->copy_bytes <= 4.0 * data->train.count * 2 / (double) steps + 1,
          "%s: %g bytes copied a step (the sample order, once an epoch)", name, b->copy_bytes);
  tap_ok (b->evaluation_seconds > 0, "%s: the evaluation timed apart (%g s)", name,
          b->evaluation_seconds);
  char *text = read_text (test_path (file));
  bool keys = text != NULL && strstr (text, "\"breakdown\": {") != NULL
              && strstr (text, "\"device_busy_seconds\": ") != NULL;
  for (size_t i = 0; keys && i < sizeof gpu_parts / sizeof gpu_parts[0]; i++)
    {
      char key[64];
      snprintf (key, sizeof key, "\"key\": \"%s\"", nn_breakdown_part_key (gpu_parts[i]));
      keys = strstr (text, key) != NULL;
    }
  tap_ok (keys, "%s: the file's breakdown has the four parts and the device's time", name);
  free (text);
  nn_run_result_clear (&r);
}

int
main (void)
{
  const char *reason = gpu_unusable_reason ();
  int preset_count = 0;
  const NnPreset *presets = nn_presets (&preset_count);

  if (reason != NULL)
    {
      printf ("1..0 # SKIP %s\n", reason);
      return 0;
    }
  test_isolate_home ();
  NnDataset *data = test_make_dataset (4096, 512, 10, 1, 28, 28, 5);
  if (!tap_ok (data != NULL, "synthetic data set (4096 + 512 images, 28x28)"))
    return tap_done ();
  /* past the first epoch (a second order upload), with graphs replayed */
  for (int i = 0; i < preset_count; i++)
    check_preset (&presets[i], data, presets[i].batch_size >= 256 ? 24 : 160);

  NnRunResult r;
  uint64_t starts = _nn_clock_starts ();
  if (run_preset (&presets[0], data, 40, false, &r, test_path ("off.json")))
    {
      char *text = read_text (test_path ("off.json"));
      tap_ok (!r.breakdown.measured && text != NULL && strstr (text, "breakdown") == NULL,
              "off: nothing measured or written");
      tap_ok (_nn_clock_starts () == starts, "off: no step clock started");
      free (text);
    }
  nn_run_result_clear (&r);
  nn_dataset_free (data);
  return tap_done ();
}
