/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-breakdown.c: where a training step's time goes, on the CPU: for each
 * preset on two threads the result file's "breakdown" has the CPU's four
 * parts, each measured, and they add up to the step's own time; a run with
 * its breakdown off writes no field and starts no clock.
 */

#include "test-util.h"
#include "nn-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The parts as a reader finds them in a result file. */
typedef struct
{
  int count;
  char key[NN_BREAKDOWN_PARTS][16];
  double seconds[NN_BREAKDOWN_PARTS];
  double step_seconds;
} FileParts;

static char *
read_text (const char *path)
{
  FILE *f = test_fopen (path, "rb");
  char *text;
  long size;

  if (f == NULL)
    return NULL;
  fseek (f, 0, SEEK_END);
  size = ftell (f);
  fseek (f, 0, SEEK_SET);
  text = calloc (1, (size_t) size + 1);
  if (text != NULL && fread (text, 1, (size_t) size, f) != (size_t) size)
    {
      free (text);
      text = NULL;
    }
  fclose (f);
  return text;
}

/* The "breakdown" object of a result file as the engine writes it (one
 * member a line); false when it has none. */
static bool
file_parts (const char *text, FileParts *out)
{
  const char *b = strstr (text, "\"breakdown\": {");
  const char *p, *end;

  memset (out, 0, sizeof *out);
  if (b == NULL || (p = strstr (b, "\"step_seconds\": ")) == NULL)
    return false;
  out->step_seconds = strtod (p + strlen ("\"step_seconds\": "), NULL);
  if ((p = strstr (b, "\"parts\": [")) == NULL || (end = strchr (p, ']')) == NULL)
    return false;
  while ((p = strstr (p, "\"key\": \"")) != NULL && p < end && out->count < NN_BREAKDOWN_PARTS)
    {
      p += strlen ("\"key\": \"");
      size_t n = strcspn (p, "\"");
      snprintf (out->key[out->count], sizeof out->key[0], "%.*s", (int) n, p);
      const char *s = strstr (p, "\"seconds\": ");
      if (s == NULL || s > end)
        return false;
      out->seconds[out->count] = strtod (s + strlen ("\"seconds\": "), NULL);
      out->count++;
    }
  return true;
}

static double
file_part (const FileParts *f, const char *key)
{
  for (int i = 0; i < f->count; i++)
    if (strcmp (f->key[i], key) == 0)
      return f->seconds[i];
  return -1.0;
}

/* What a user relies on: every part of the CPU is there and measured, and
 * the parts add up to the step's time within 5 %. A file that lacks a part
 * fails here, whatever the part's size. False with the first fault in
 * `why`. */
static bool
parts_check (const FileParts *f, char *why, size_t why_size)
{
  static const char *const cpu_keys[] = { "gemm", "loops", "join_wait", "host" };
  double sum = 0;

  for (size_t i = 0; i < sizeof cpu_keys / sizeof cpu_keys[0]; i++)
    {
      double s = file_part (f, cpu_keys[i]);
      /* waiting at a join can be nil in a short run (the other thread was
       * always done first): main checks it over all the presets */
      bool measured = strcmp (cpu_keys[i], "join_wait") == 0 ? s >= 0 : s > 0;
      if (!measured)
        {
          snprintf (why, why_size, "part %s %s", cpu_keys[i], s < 0 ? "missing" : "is 0");
          return false;
        }
    }
  for (int i = 0; i < f->count; i++)
    sum += f->seconds[i];
  snprintf (why, why_size, "the parts add up to %g s, the step took %g s", sum, f->step_seconds);
  return f->step_seconds > 0 && fabs (sum - f->step_seconds) <= 0.05 * f->step_seconds;
}

/* A CPU run of `preset` on two threads, at most `steps` steps. */
static bool
run_preset (const char *name, const NnDataset *data, int32_t steps, bool breakdown,
            NnRunResult *r, const char *path)
{
  NnTrainConfig c;
  NnTrainer *t = NULL;
  NnError e;
  const NnPreset *preset = nn_preset_find (name);

  nn_error_clear (&e);
  nn_train_config_init (&c);
  nn_train_config_use_preset (&c, preset);
  c.epochs = 1;
  c.max_steps = steps;
  c.device.threads = 2;
  c.breakdown = breakdown;
  if (nn_trainer_new (&c, data, &t, &e) != NN_OK)
    return tap_ok (false, "%s: trainer: %s", name, e.message);
  NnStatus s = nn_trainer_run (t, r, &e);
  nn_trainer_free (t);
  if (!tap_ok (s == NN_OK, "%s: %d steps ran (%s)", name, steps, e.message))
    return false;
  return tap_ok (nn_result_write (r, NULL, path, &e) == NN_OK, "%s: result written (%s)", name,
                 e.message);
}

/* One preset's run: its breakdown in the result and in the file. */
static void
check_preset (const char *name, int32_t steps, const NnDataset *data, double *join_wait)
{
  char file[64], why[256];
  NnRunResult r;
  FileParts f;

  snprintf (file, sizeof file, "%s.json", name);
  if (!run_preset (name, data, steps, true, &r, test_path (file)))
    {
      nn_run_result_clear (&r);
      return;
    }
  const NnBreakdown *b = &r.breakdown;
  tap_ok (b->measured && b->steps == r.step_count && b->steps == steps,
          "%s: every step measured (%lld of %lld)", name, (long long) b->steps,
          (long long) r.step_count);
  tap_windows_hold_steps (name, &r);
  tap_ok (b->device_busy_seconds < 0 && b->copy_bytes == 0 && b->evaluation_seconds > 0,
          "%s: no device time or copies on the CPU, the evaluation timed apart (%g s)", name,
          b->evaluation_seconds);
  char *text = read_text (test_path (file));
  if (tap_ok (text != NULL && file_parts (text, &f), "%s: the file has \"breakdown\"", name))
    {
      tap_ok (f.count == 4, "%s: the file has the CPU's 4 parts (%d)", name, f.count);
      tap_ok (parts_check (&f, why, sizeof why), "%s: every part measured, and they add up "
              "to the step within 5 %% (%s)", name, why);
      if (file_part (&f, "join_wait") > 0)
        *join_wait += file_part (&f, "join_wait");
      /* the check fails without any one part */
      for (int drop = 0; drop < f.count; drop++)
        {
          FileParts less = f;
          for (int k = drop; k + 1 < less.count; k++)
            {
              less.seconds[k] = less.seconds[k + 1];
              memcpy (less.key[k], less.key[k + 1], sizeof less.key[k]);
            }
          less.count--;
          tap_ok (!parts_check (&less, why, sizeof why), "%s: without %s the check fails (%s)",
                  name, f.key[drop], why);
        }
    }
  free (text);
  nn_run_result_clear (&r);
}

/* Off: no field, no clock started, the steps timed as ever. */
static void
check_off (const NnDataset *data)
{
  NnRunResult r;
  uint64_t starts = _nn_clock_starts ();

  if (run_preset ("mlp-small", data, 20, false, &r, test_path ("off.json")))
    {
      char *text = read_text (test_path ("off.json"));
      tap_ok (!r.breakdown.measured && r.step_count == 20 && r.step_seconds_median > 0,
              "off: nothing measured, the steps timed as ever");
      tap_ok (text != NULL && strstr (text, "breakdown") == NULL
              && strstr (text, "\"steps\"") != NULL, "off: the result file has no \"breakdown\"");
      tap_ok (_nn_clock_starts () == starts, "off: no step clock was started (%llu)",
              (unsigned long long) (_nn_clock_starts () - starts));
      free (text);
    }
  nn_run_result_clear (&r);
  if (run_preset ("mlp-small", data, 5, true, &r, test_path ("on.json")))
    tap_ok (_nn_clock_starts () == starts + 5, "on: the clock starts once a step on the CPU (%llu)",
            (unsigned long long) (_nn_clock_starts () - starts));
  nn_run_result_clear (&r);
}

int
main (void)
{
  static const struct
  {
    const char *name;
    int32_t steps;
  } presets[] = { { "mlp-small", 40 }, { "mlp-wide", 10 }, { "cnn", 3 } };
  NnDataset *data;
  double join_wait = 0;

  test_isolate_home ();
  data = test_make_dataset (2048, 64, 10, 1, 28, 28, 7);
  for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++)
    check_preset (presets[i].name, presets[i].steps, data, &join_wait);
  tap_ok (join_wait > 0, "waiting at joins was measured (%g s a step over the presets)",
          join_wait);
  check_off (data);
  nn_dataset_free (data);
  return tap_done ();
}
