/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-report.c: the articles' claims against this machine's runs: which
 * result files are this machine's (by the machine id they record), which
 * runs measure each claim, their ratios, a verdict, the measured reason
 * (from "breakdown" and "conditions" where runs have them) and the files
 * each figure comes from.
 *
 * Result files come from other people: they are read with the bounded
 * reader of nn-json-read.c, and a file that is not a readable result is
 * skipped with why, never taken halfway. Nothing a file says about its
 * hardware makes it this machine's, and no start time from the future
 * makes it the newest.
 */

#include "nn-json-read.h"
#include "nn-os.h"
#include "nn-report-private.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------- the claims */

/* As README.md tells them: the articles' figures, units, epochs and
 * hardware as the articles give them. Ratios as NnClaimKind says. */
static const NnClaim claims[] = {
  {
    .id = "mlp-small-gpu-slower",
    .kind = NN_CLAIM_GPU_VS_CPU,
    .preset = "mlp-small",
    .model = "784-128-10 MLP",
    .text = "The small MLP trains slower on the GPU than on the CPU (2.4x).",
    .hardware = "a laptop",
    .epochs = 10,
    .per_epoch = false,
    .unit = "s",
    .first = 52.0,
    .second = 123.0,
    .first_label = "CPU",
    .second_label = "GPU",
    .ratio = 52.0 / 123.0,
  },
  {
    .id = "mlp-wide-gpu-faster",
    .kind = NN_CLAIM_GPU_VS_CPU,
    .preset = "mlp-wide",
    .model = "MLP with two 1000-unit layers",
    .text = "The wide MLP trains 1.7x faster on the GPU than on the CPU.",
    .hardware = "a laptop",
    .epochs = 10,
    .per_epoch = false,
    .unit = "s",
    .first = 390.0,
    .second = 224.0,
    .first_label = "CPU",
    .second_label = "GPU",
    .ratio = 390.0 / 224.0,
  },
  {
    .id = "cnn-gpu-8x",
    .kind = NN_CLAIM_GPU_VS_CPU,
    .preset = "cnn",
    .model = "Keras mnist_cnn",
    .text = "The CNN trains 8x faster on the GPU than on the CPU.",
    .hardware = "a laptop",
    .epochs = 1,
    .per_epoch = true,
    .unit = "s per epoch",
    .first = 162.0,
    .second = 20.0,
    .first_label = "CPU",
    .second_label = "GPU",
    .ratio = 162.0 / 20.0,
  },
  {
    .id = "cnn-windows-slower",
    .kind = NN_CLAIM_WINDOWS_VS_LINUX,
    .preset = "cnn",
    .model = "Keras mnist_cnn",
    .text = "On Windows the CNN takes 20 minutes on the CPU (the GPU unusable), on Ubuntu "
            "3 minutes: Windows is about 6.7x slower.",
    .hardware = "a laptop",
    .epochs = 0,
    .per_epoch = false,
    .unit = "min",
    .first = 20.0,
    .second = 3.0,
    .first_label = "Windows (CPU)",
    .second_label = "Ubuntu (CPU)",
    .ratio = 20.0 / 3.0,
  },
};

#define N_CLAIMS ((int) (sizeof claims / sizeof claims[0]))

const NnClaim *
nn_claims (int *count)
{
  if (count != NULL)
    *count = N_CLAIMS;
  return claims;
}

const char *
nn_verdict_name (NnVerdict verdict)
{
  switch (verdict)
    {
    case NN_VERDICT_HOLDS: return "holds here";
    case NN_VERDICT_DOES_NOT_HOLD: return "does not hold here";
    case NN_VERDICT_NOT_MEASURED: return "not measured yet";
    }
  return "not measured yet";
}

/* ---------------------------------------------------------------- text helpers */

/* Append to a fixed buffer, cutting at its end. */
static void
append (char *buf, size_t size, const char *format, ...) NN_PRINTF (3, 4);

static void
append (char *buf, size_t size, const char *format, ...)
{
  size_t len = strlen (buf);
  va_list args;

  if (len + 1 >= size)
    return;
  va_start (args, format);
  vsnprintf (buf + len, size - len, format, args);
  va_end (args);
}

static void
copy (char *out, size_t size, const char *text)
{
  snprintf (out, size, "%s", text != NULL ? text : "");
}

/* Seconds with three significant digits: "52.3 s", "0.0801 s", "1234 s". */
static void
format_seconds (double s, char *out, size_t size)
{
  if (!isfinite (s))
    snprintf (out, size, "-");
  else if (s >= 100)
    snprintf (out, size, "%.0f s", s);
  else if (s >= 10)
    snprintf (out, size, "%.1f s", s);
  else if (s >= 1)
    snprintf (out, size, "%.2f s", s);
  else
    snprintf (out, size, "%.3g s", s);
}

size_t
nn_report_format_times (double x, char *out, size_t size)
{
  int n;

  if (!isfinite (x) || x <= 0)
    n = snprintf (out, size, "-");
  else if (x >= 10000 || x < 0.01)
    {
      /* "3.2e16x": a ratio that far from 1 is read by its power of ten,
       * not by 17 digits */
      char e[32];
      snprintf (e, sizeof e, "%.1e", x);
      char *mark = strchr (e, 'e');
      long power = mark != NULL ? strtol (mark + 1, NULL, 10) : 0;
      n = snprintf (out, size, "%.*se%ldx", mark != NULL ? (int) (mark - e) : 0, e, power);
    }
  else if (x >= 100)
    n = snprintf (out, size, "%.0fx", x);
  else if (x >= 10)
    n = snprintf (out, size, "%.1fx", x);
  else
    n = snprintf (out, size, "%.2fx", x);
  return n > 0 ? (size_t) n : 0;
}

size_t
nn_report_format_ratio (NnClaimKind kind, double ratio, char *out, size_t size)
{
  char x[32];
  int n;

  if (!isfinite (ratio) || ratio <= 0)
    n = snprintf (out, size, "-");
  else if (ratio < NN_REPORT_EVEN_BAND && ratio > 1.0 / NN_REPORT_EVEN_BAND)
    {
      nn_report_format_times (ratio, x, sizeof x);
      n = snprintf (out, size, "%s, even (within %d %%)", x,
                    (int) lround ((NN_REPORT_EVEN_BAND - 1) * 100));
    }
  else if (kind == NN_CLAIM_GPU_VS_CPU)
    {
      nn_report_format_times (ratio >= 1 ? ratio : 1 / ratio, x, sizeof x);
      n = snprintf (out, size, "GPU %s %s", x, ratio >= 1 ? "faster" : "slower");
    }
  else
    {
      nn_report_format_times (ratio >= 1 ? ratio : 1 / ratio, x, sizeof x);
      n = snprintf (out, size, "Windows %s %s", x, ratio >= 1 ? "slower" : "faster");
    }
  return n > 0 ? (size_t) n : 0;
}

size_t
nn_report_format_article (const NnClaim *claim, bool first, char *out, size_t size)
{
  double v = first ? claim->first : claim->second;
  int n;

  if (claim->per_epoch)
    n = snprintf (out, size, "%g s per epoch", v);
  else if (claim->epochs > 0)
    n = snprintf (out, size, "%g %s (%d epochs)", v, claim->unit, claim->epochs);
  else
    n = snprintf (out, size, "%g %s", v, claim->unit);
  return n > 0 ? (size_t) n : 0;
}

size_t
nn_report_format_measured (const NnReportClaim *rc, bool first, char *out, size_t size)
{
  const NnReportSide *side = first ? &rc->first : &rc->second;
  const NnClaim *claim = rc->claim;
  char a[32], b[32];
  int n;

  if (!side->measured)
    n = snprintf (out, size, "not measured");
  else if (claim->per_epoch || claim->epochs <= 0)
    {
      format_seconds (side->epoch_seconds, a, sizeof a);
      n = snprintf (out, size, "%s per epoch", a);
    }
  else
    {
      format_seconds (side->seconds, a, sizeof a);
      format_seconds (side->epoch_seconds, b, sizeof b);
      n = snprintf (out, size, "%s (%d epochs of %s)", a, claim->epochs, b);
    }
  return n > 0 ? (size_t) n : 0;
}

/* ---------------------------------------------------------------- the machine */

static void
os_label (const char *name, const char *version, const char *emulated_by, char *out,
          size_t size)
{
  out[0] = '\0';
  append (out, size, "%s%s%s", name[0] != '\0' ? name : "an unknown OS",
          version[0] != '\0' ? " " : "", version);
  if (emulated_by[0] != '\0')
    append (out, size, " under %s", emulated_by);
}

void
nn_report_machine_here (NnReportMachine *out)
{
  NnSystemInfo info;
  NnDeviceInfo devices[17];
  NnError error;

  memset (out, 0, sizeof *out);
  nn_error_clear (&error);
  if (nn_machine_id (out->ids[0], NULL, 0, &error) == NN_OK)
    out->id_count = 1;
  else
    copy (out->id_why, sizeof out->id_why, error.message);
  nn_system_info (&info);
  copy (out->os_name, sizeof out->os_name, info.os_name);
  copy (out->os_version, sizeof out->os_version, info.os_version);
  copy (out->os_emulated_by, sizeof out->os_emulated_by, info.os_emulated_by);
  copy (out->cpu_model, sizeof out->cpu_model, info.cpu_model);
  out->cpu_threads = info.cpu_threads;
  out->gpus_known = true;
  int count = nn_device_list (devices, 17);
  for (int i = 0; i < count; i++)
    {
      if (devices[i].kind != NN_DEVICE_CUDA)
        continue;
      if (devices[i].usable && out->gpu_count < 8)
        copy (out->gpus[out->gpu_count++], sizeof out->gpus[0], devices[i].name);
      else if (!devices[i].usable && out->gpu_reason[0] == '\0')
        copy (out->gpu_reason, sizeof out->gpu_reason, devices[i].reason);
    }
}

size_t
nn_report_machine_label (const NnReportMachine *m, char *out, size_t size)
{
  char os[448];

  snprintf (out, size, "%s", m->cpu_model[0] != '\0' ? m->cpu_model : "an unknown CPU");
  for (int i = 0; i < m->gpu_count; i++)
    append (out, size, ", %s", m->gpus[i]);
  if (m->gpus_known && m->gpu_count == 0)
    append (out, size, ", no usable GPU");
  os_label (m->os_name, m->os_version, m->os_emulated_by, os, sizeof os);
  append (out, size, ", %s", os);
  /* the id's first digits, as the runs of other machines are told apart */
  if (m->id_count == 0)
    append (out, size, " (no machine id)");
  for (int i = 0; i < m->id_count; i++)
    append (out, size, "%s%.8s", i == 0 ? (m->id_count == 1 ? " (machine " : " (machines ")
                                         : ", ", m->ids[i]);
  if (m->id_count > 0)
    append (out, size, ")");
  return strlen (out);
}

static bool
machine_has_id (const NnReportMachine *m, const char *id)
{
  if (id[0] == '\0')
    return false;
  for (int i = 0; i < m->id_count && i < NN_REPORT_MACHINE_IDS_MAX; i++)
    if (strcmp (m->ids[i], id) == 0)
      return true;
  return false;
}

/* ---------------------------------------------------------------- reading result files */

static void
copy_member (const NnJsonDoc *doc, const NnJsonNode *obj, const char *key, char *out,
             size_t size)
{
  copy (out, size, _nn_json_get_string (doc, obj, key, ""));
}

static int32_t
int_member (const NnJsonDoc *doc, const NnJsonNode *obj, const char *key, int32_t fallback)
{
  double v = _nn_json_get_number (doc, obj, key, NAN);
  if (!isfinite (v) || v < INT32_MIN || v > INT32_MAX)
    return fallback;
  return (int32_t) v;
}

/* A time the file gives, when it gives one: NN_ERROR_FORMAT naming the
 * field when it is beyond what a result may claim (nn_result_seconds_valid). */
static NnStatus
seconds_member (const NnJsonDoc *doc, const NnJsonNode *obj, const char *key, const char *path,
                const char *field, double *out, NnError *error)
{
  *out = _nn_json_get_number (doc, obj, key, NAN);
  if (isnan (*out) || nn_result_seconds_valid (*out))
    return NN_OK;
  return _nn_error_set (error, NN_ERROR_FORMAT,
                        "%s: %s is %g s: not a time a result may claim (0 to %.0f s, a year)",
                        path, field, *out, NN_RESULT_SECONDS_MAX);
}

static int
days_in_month (int64_t year, int month)
{
  static const int days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : days[month - 1];
}

/* Days from 1970-01-01 to a date of the proleptic Gregorian calendar. */
static int64_t
days_from_civil (int64_t y, int m, int d)
{
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool
_nn_report_parse_time (const char *text, int64_t *out)
{
  /* "YYYY-MM-DDTHH:MM:SSZ", as nn_run_id_new writes it */
  static const char shape[] = "dddd-dd-ddTdd:dd:ddZ";
  int v[6] = { 0 };
  static const int at[6] = { 0, 5, 8, 11, 14, 17 };
  static const int width[6] = { 4, 2, 2, 2, 2, 2 };

  if (strlen (text) != sizeof shape - 1)
    return false;
  for (size_t i = 0; i < sizeof shape - 1; i++)
    if (shape[i] == 'd' ? text[i] < '0' || text[i] > '9' : text[i] != shape[i])
      return false;
  for (int f = 0; f < 6; f++)
    for (int i = 0; i < width[f]; i++)
      v[f] = v[f] * 10 + (text[at[f] + i] - '0');
  if (v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > days_in_month (v[0], v[1]) || v[3] > 23
      || v[4] > 59 || v[5] > 60)
    return false;
  *out = days_from_civil (v[0], v[1], v[2]) * 86400 + v[3] * 3600 + v[4] * 60 + v[5];
  return true;
}

NnStatus
_nn_report_run_from_doc (const NnJsonDoc *doc, const char *path, NnReportRun *run,
                         NnReportHardware *hardware, bool *sweep_file, NnError *error)
{
  const NnJsonNode *root = _nn_json_root (doc);
  NnStatus status;

  memset (run, 0, sizeof *run);
  if (hardware != NULL)
    memset (hardware, 0, sizeof *hardware);
  *sweep_file = false;
  if (root == NULL || root->kind != NN_JSON_OBJECT)
    return _nn_error_set (error, NN_ERROR_FORMAT, "%s: not a result file (not a JSON object)",
                          path);
  if (strcmp (_nn_json_get_string (doc, root, "kind", ""), "trainbench-sweep") == 0)
    {
      *sweep_file = true;
      return NN_OK;
    }
  double schema = _nn_json_get_number (doc, root, "schema", NAN);
  if (schema != 1)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: not a result file of schema 1 (no \"schema\": 1)", path);
  const char *run_id = _nn_json_get_string (doc, root, "run_id", NULL);
  const char *status_text = _nn_json_get_string (doc, root, "status", NULL);
  const NnJsonNode *system = _nn_json_get (doc, root, "system");
  const NnJsonNode *device = _nn_json_get (doc, root, "device");
  if (run_id == NULL || status_text == NULL || system == NULL || system->kind != NN_JSON_OBJECT
      || device == NULL || device->kind != NN_JSON_OBJECT)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: not a whole result file (run_id, status, system or device "
                          "missing)", path);

  copy (run->run_id, sizeof run->run_id, run_id);
  copy (run->status, sizeof run->status, status_text);
  copy_member (doc, root, "started_at", run->started_at, sizeof run->started_at);
  run->start_known = _nn_report_parse_time (run->started_at, &run->start);
  run->sweep = _nn_json_get (doc, root, "sweep") != NULL;

  /* the machine id, only as nn_machine_id makes one: anything else names
   * no machine */
  const char *id = _nn_json_get_string (doc, system, "machine_id", "");
  bool id_ok = strlen (id) == NN_MACHINE_ID_SIZE - 1;
  for (size_t i = 0; id_ok && id[i] != '\0'; i++)
    id_ok = (id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f');
  copy (run->machine_id, sizeof run->machine_id, id_ok ? id : "");

  const NnJsonNode *os = _nn_json_get (doc, system, "os");
  copy_member (doc, os, "name", run->os_name, sizeof run->os_name);
  copy_member (doc, os, "version", run->os_version, sizeof run->os_version);
  copy_member (doc, os, "emulated_by", run->os_emulated_by, sizeof run->os_emulated_by);
  if (hardware != NULL)
    {
      copy_member (doc, _nn_json_get (doc, system, "cpu"), "model", hardware->cpu_model,
                   sizeof hardware->cpu_model);
      for (const NnJsonNode *g = _nn_json_child (doc, _nn_json_get (doc, system, "gpus"));
           g != NULL && hardware->gpu_count < NN_REPORT_GPUS_MAX; g = _nn_json_next (doc, g))
        copy_member (doc, g, "name", hardware->gpus[hardware->gpu_count++],
                     sizeof hardware->gpus[0]);
    }

  run->cuda = strcmp (_nn_json_get_string (doc, device, "kind", ""), "cuda") == 0;
  run->device_index = int_member (doc, device, "index", 0);
  run->threads = int_member (doc, device, "threads", 0);
  copy_member (doc, device, "name", run->device_name, sizeof run->device_name);

  const NnJsonNode *model = _nn_json_get (doc, root, "model");
  copy_member (doc, model, "name", run->preset, sizeof run->preset);
  const NnJsonNode *hyper = _nn_json_get (doc, root, "hyper");
  run->batch = int_member (doc, hyper, "batch_size", 0);
  run->train_samples = int_member (doc, _nn_json_get (doc, root, "dataset"), "train_samples", 0);
  double steps = _nn_json_get_number (doc, _nn_json_get (doc, root, "steps"), "count", 0);
  run->steps = isfinite (steps) && steps >= 0 && steps < 1e15 ? (int64_t) steps : 0;

  /* seconds per epoch: the median, as every table gives it */
  const NnJsonNode *epochs = _nn_json_get (doc, root, "epochs");
  run->epoch_seconds = NAN;
  if (epochs != NULL && epochs->kind == NN_JSON_ARRAY && epochs->count > 0
      && epochs->count <= NN_EPOCHS_MAX)
    {
      double *seconds = malloc (epochs->count * sizeof *seconds);
      if (seconds == NULL)
        return _nn_error_set (error, NN_ERROR_NO_MEMORY, "%s: out of memory", path);
      size_t n = 0;
      status = NN_OK;
      for (const NnJsonNode *e = _nn_json_child (doc, epochs); e != NULL && status == NN_OK;
           e = _nn_json_next (doc, e))
        {
          char field[48];
          snprintf (field, sizeof field, "epochs[%zu].seconds", n);
          status = seconds_member (doc, e, "seconds", path, field, &seconds[n++], error);
        }
      run->epochs_done = (int32_t) n;
      run->epoch_seconds = nn_seconds_per_epoch (seconds, n);
      free (seconds);
      if (status != NN_OK)
        return status;
    }

  /* "conditions" and "breakdown": added in schema 1's lifetime, optional */
  const NnJsonNode *cond = _nn_json_get (doc, root, "conditions");
  if (cond != NULL && cond->kind == NN_JSON_OBJECT)
    {
      run->has_conditions = true;
      copy_member (doc, cond, "name", run->cond_name, sizeof run->cond_name);
      copy (run->cond_data, sizeof run->cond_data, _nn_json_get_string (doc, cond, "data",
                                                                        "device"));
      run->cond_graph = _nn_json_get_bool (doc, cond, "graph", run->cuda);
      run->cond_loss_every_step = _nn_json_get_bool (doc, cond, "loss_every_step", false);
      run->cond_fused = _nn_json_get_bool (doc, cond, "fused", true);
    }
  const NnJsonNode *bd = _nn_json_get (doc, root, "breakdown");
  if (bd != NULL && bd->kind == NN_JSON_OBJECT)
    {
      double step;
      status = seconds_member (doc, bd, "step_seconds", path, "breakdown.step_seconds", &step,
                               error);
      if (status == NN_OK)
        status = seconds_member (doc, bd, "device_busy_seconds", path,
                                 "breakdown.device_busy_seconds", &run->device_busy, error);
      if (status != NN_OK)
        return status;
      if (step > 0)
        {
          run->has_breakdown = true;
          run->step_seconds = step;
          run->copy_bytes = _nn_json_get_number (doc, bd, "copy_bytes", NAN);
          int index = 0;
          for (const NnJsonNode *p = _nn_json_child (doc, _nn_json_get (doc, bd, "parts"));
               p != NULL; p = _nn_json_next (doc, p), index++)
            {
              char field[48];
              double s;
              snprintf (field, sizeof field, "breakdown.parts[%d].seconds", index);
              status = seconds_member (doc, p, "seconds", path, field, &s, error);
              if (status != NN_OK)
                return status;
              const char *key = _nn_json_get_string (doc, p, "key", NULL);
              if (key == NULL || isnan (s) || run->part_count == NN_REPORT_PARTS_MAX)
                continue;
              copy (run->part_keys[run->part_count], sizeof run->part_keys[0], key);
              run->part_seconds[run->part_count++] = s;
            }
        }
    }
  return NN_OK;
}

/* ---------------------------------------------------------------- whose run it is */

static bool
same_os (const NnReportMachine *m, const NnReportRun *r)
{
  return strcmp (m->os_name, r->os_name) == 0 && strcmp (m->os_version, r->os_version) == 0
         && strcmp (m->os_emulated_by, r->os_emulated_by) == 0;
}

static bool
is_windows (const NnReportRun *r)
{
  return strcmp (r->os_name, "Windows") == 0;
}

static void
run_machine_label (const NnReportRun *r, const NnReportHardware *hw, char *out, size_t size)
{
  char os[448];

  snprintf (out, size, "%s", hw->cpu_model[0] != '\0' ? hw->cpu_model : "an unknown CPU");
  for (int i = 0; i < hw->gpu_count; i++)
    append (out, size, ", %s", hw->gpus[i]);
  os_label (r->os_name, r->os_version, r->os_emulated_by, os, sizeof os);
  append (out, size, ", %s", os);
}

static void
run_device_label (const NnReportRun *r, char *out, size_t size)
{
  /* a long device name is cut short: the label is for reading */
  out[0] = '\0';
  if (r->cuda)
    append (out, size, "%s (cuda:%d)", r->device_name[0] != '\0' ? r->device_name : "a GPU",
            (int) r->device_index);
  else
    append (out, size, "%s, %d thread%s", r->device_name[0] != '\0' ? r->device_name : "CPU",
            (int) r->threads, r->threads == 1 ? "" : "s");
}

/* Whether a run of `preset` measures any claim: only those are kept. */
static bool
claim_preset (const char *preset)
{
  for (int i = 0; i < N_CLAIMS; i++)
    if (strcmp (claims[i].preset, preset) == 0)
      return true;
  return false;
}

/* ---------------------------------------------------------------- collecting files */

/* The files read so far, by identity (device and file number), so a file
 * reached again through a link or a second hard link is read once: an
 * open-addressing table. */
typedef struct
{
  uint64_t id[2];
  bool used;
} Seen;

typedef struct
{
  NnReport *report;
  int64_t now;          /* this machine's clock, seconds since 1970 UTC */
  NnReportRun *runs;    /* this machine's runs of a claim's preset */
  size_t run_count;
  size_t run_cap;
  Seen *seen;
  size_t seen_count;
  size_t seen_cap;
  bool out_of_memory;
} Collect;

static size_t
seen_slot (const Seen *table, size_t cap, const uint64_t id[2])
{
  uint64_t h = (id[0] * 0x9E3779B97F4A7C15u) ^ (id[1] * 0xC2B2AE3D27D4EB4Fu);
  size_t i = (size_t) (h ^ (h >> 29)) & (cap - 1);
  while (table[i].used && (table[i].id[0] != id[0] || table[i].id[1] != id[1]))
    i = (i + 1) & (cap - 1);
  return i;
}

/* False when the file was read before. */
static bool
seen_add (Collect *c, const uint64_t id[2])
{
  if (2 * (c->seen_count + 1) > c->seen_cap)
    {
      size_t cap = c->seen_cap > 0 ? 2 * c->seen_cap : 1024;
      Seen *grown = calloc (cap, sizeof *grown);
      if (grown == NULL)
        {
          c->out_of_memory = true;
          return true;
        }
      for (size_t i = 0; i < c->seen_cap; i++)
        if (c->seen[i].used)
          grown[seen_slot (grown, cap, c->seen[i].id)] = c->seen[i];
      free (c->seen);
      c->seen = grown;
      c->seen_cap = cap;
    }
  size_t i = seen_slot (c->seen, c->seen_cap, id);
  if (c->seen[i].used)
    return false;
  c->seen[i].used = true;
  c->seen[i].id[0] = id[0];
  c->seen[i].id[1] = id[1];
  c->seen_count++;
  return true;
}

/* Room for one more entry in a report's list (at most NN_REPORT_LIST_MAX);
 * NULL when the list is full (the caller counts the entry instead) or
 * memory ran out. */
static void *
list_add (Collect *c, void **list, int32_t *count, size_t item_size)
{
  int32_t n = *count;
  if (n >= NN_REPORT_LIST_MAX)
    return NULL;
  /* grown by doubling from 8: the capacity is the next power of two */
  if (n == 0 || (n >= 8 && (n & (n - 1)) == 0))
    {
      size_t cap = n == 0 ? 8 : 2 * (size_t) n;
      void *grown = realloc (*list, cap * item_size);
      if (grown == NULL)
        {
          c->out_of_memory = true;
          return NULL;
        }
      *list = grown;
    }
  (*count)++;
  return memset ((char *) *list + (size_t) n * item_size, 0, item_size);
}

static void
skip (Collect *c, const char *path, const char *why)
{
  NnReport *r = c->report;
  NnReportSkipped *s = list_add (c, (void **) &r->skipped, &r->skipped_count, sizeof *s);
  if (s == NULL)
    {
      r->skipped_more += !c->out_of_memory;
      return;
    }
  copy (s->path, sizeof s->path, path);
  copy (s->why, sizeof s->why, why);
}

/* Skip `path`, said as "PATH: WHAT". */
static void
skip_said (Collect *c, const char *path, const char *what)
{
  char why[NN_ERROR_MESSAGE_MAX] = "";
  append (why, sizeof why, "%s: %s", path, what);
  skip (c, path, why);
}

static void
add_other (Collect *c, const NnReportRun *r, const char *path, const NnReportHardware *hw,
           const char *why)
{
  NnReport *rep = c->report;
  NnReportOther *o = list_add (c, (void **) &rep->others, &rep->other_count, sizeof *o);
  if (o == NULL)
    {
      rep->others_more += !c->out_of_memory;
      return;
    }
  copy (o->path, sizeof o->path, path);
  copy (o->run_id, sizeof o->run_id, r->run_id);
  copy (o->why, sizeof o->why, why);
  run_machine_label (r, hw, o->machine, sizeof o->machine);
  copy (o->preset, sizeof o->preset, r->preset);
  run_device_label (r, o->device, sizeof o->device);
  copy (o->status, sizeof o->status, r->status);
  o->epoch_seconds = r->epoch_seconds;
}

static void
add_undated (Collect *c, const NnReportRun *r, const char *path, const char *why)
{
  NnReport *rep = c->report;
  NnReportUndated *u = list_add (c, (void **) &rep->undated, &rep->undated_count, sizeof *u);
  if (u == NULL)
    {
      rep->undated_more += !c->out_of_memory;
      return;
    }
  copy (u->path, sizeof u->path, path);
  copy (u->run_id, sizeof u->run_id, r->run_id);
  copy (u->started_at, sizeof u->started_at, r->started_at);
  copy (u->why, sizeof u->why, why);
}

/* A run read: counted, listed apart when it is not this machine's or not
 * of its OS, and kept when it may measure a claim. */
static void
take_run (Collect *c, NnReportRun *run, const NnReportHardware *hw, const char *path)
{
  NnReport *rep = c->report;
  bool here = machine_has_id (&rep->machine, run->machine_id);
  char why[128];

  rep->files_read++;
  if (!here && run->machine_id[0] == '\0')
    add_other (c, run, path, hw, "no machine id recorded (an older file, or not Trainbench's)");
  else if (!here)
    {
      snprintf (why, sizeof why, "another machine (%.8s)", run->machine_id);
      add_other (c, run, path, hw, why);
    }
  else
    {
      rep->runs_here++;
      if (!same_os (&rep->machine, run))
        add_other (c, run, path, hw, "this machine under another OS");
    }
  if (!here || !claim_preset (run->preset))
    return;

  run->dated = run->start_known && run->start <= c->now + NN_REPORT_CLOCK_SKEW_SECONDS;
  if (!run->dated)
    add_undated (c, run, path, run->start_known ? "more than a day ahead of this machine's clock"
                                                 : "not a time");

  if (c->run_count == c->run_cap)
    {
      size_t cap = c->run_cap > 0 ? c->run_cap * 2 : 32;
      NnReportRun *grown = realloc (c->runs, cap * sizeof *grown);
      if (grown == NULL)
        {
          c->out_of_memory = true;
          return;
        }
      c->runs = grown;
      c->run_cap = cap;
    }
  run->path = malloc (strlen (path) + 1);
  if (run->path == NULL)
    {
      c->out_of_memory = true;
      return;
    }
  strcpy (run->path, path);
  c->runs[c->run_count++] = *run;
}

static void
read_file (Collect *c, const char *path)
{
  NnJsonDoc *doc = NULL;
  NnError error;
  NnReportRun run;
  NnReportHardware hw;
  bool sweep_file = false;
  uint64_t id[2];

  nn_error_clear (&error);
  if (_nn_os_path_id (path, id) && !seen_add (c, id))
    {
      if (!c->out_of_memory)
        skip_said (c, path, "a file read already under another name (a link to it): read once");
      return;
    }
  NnStatus status = _nn_json_read_file (path, &doc, &error);
  if (status == NN_OK)
    status = _nn_report_run_from_doc (doc, path, &run, &hw, &sweep_file, &error);
  _nn_json_doc_free (doc);
  if (status == NN_ERROR_NO_MEMORY)
    c->out_of_memory = true;
  if (status != NN_OK)
    skip (c, path, error.message);
  else if (!sweep_file)
    take_run (c, &run, &hw, path);
}

static bool
ends_with_json (const char *name)
{
  size_t n = strlen (name);
  if (n < 5 || name[0] == '.')
    return false;
  const char *ext = name + n - 5;
  return (ext[0] == '.' && (ext[1] | 0x20) == 'j' && (ext[2] | 0x20) == 's'
          && (ext[3] | 0x20) == 'o' && (ext[4] | 0x20) == 'n');
}

static int
compare_names (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static void
free_names (char **names, size_t count)
{
  for (size_t i = 0; i < count; i++)
    free (names[i]);
  free (names);
}

/* A folder's names in name order, so that a report reads the same every
 * time; false (and said) when it cannot be listed. */
static bool
list_folder (Collect *c, const char *folder, char ***names, size_t *count)
{
  int err = _nn_os_folder_list (folder, names, count);
  if (err != 0)
    {
      char what[256];
      snprintf (what, sizeof what, "cannot list the folder: %s", strerror (err));
      skip_said (c, folder, what);
      return false;
    }
  /* qsort wants an array even for no names, which an empty folder lists as NULL */
  if (*count > 1)
    qsort (*names, *count, sizeof **names, compare_names);
  return true;
}

/* A link found in a folder that leads to a folder is not followed: `up ->
 * ..` would read the runs twice, `root -> /` the whole disk. Says so, and
 * true, for such a link. */
static bool
folder_link (Collect *c, const char *path)
{
  if (!_nn_os_is_link (path) || _nn_os_path_kind (path, NULL) != NN_OS_FOLDER)
    return false;
  skip_said (c, path, "a link to a folder: not followed");
  return true;
}

/* A folder's *.json files; with `sweeps`, also those of FOLDER/sweeps/NAME/. */
static void
read_folder (Collect *c, const char *folder, bool sweeps)
{
  char **names = NULL;
  size_t count = 0;
  char path[4096];

  if (!list_folder (c, folder, &names, &count))
    return;
  for (size_t i = 0; i < count && !c->out_of_memory; i++)
    {
      if (!nn_path_join (path, sizeof path, folder, names[i]))
        continue;
      if (ends_with_json (names[i]))
        {
          if (!folder_link (c, path) && _nn_os_path_kind (path, NULL) == NN_OS_FILE)
            read_file (c, path);
        }
      else if (sweeps && strcmp (names[i], "sweeps") == 0 && !folder_link (c, path)
               && _nn_os_path_kind (path, NULL) == NN_OS_FOLDER)
        {
          char **subs = NULL;
          size_t n_subs = 0;
          char sub[4096];
          if (!list_folder (c, path, &subs, &n_subs))
            continue;
          for (size_t k = 0; k < n_subs && !c->out_of_memory; k++)
            if (subs[k][0] != '.' && nn_path_join (sub, sizeof sub, path, subs[k])
                && !folder_link (c, sub) && _nn_os_path_kind (sub, NULL) == NN_OS_FOLDER)
              read_folder (c, sub, false);
          free_names (subs, n_subs);
        }
    }
  free_names (names, count);
}

/* ---------------------------------------------------------------- which runs measure a claim */

/* Why a run of the right preset and device cannot measure a claim, or
 * NULL when it can: it completed, at the preset's batch size, every epoch
 * it ran whole (no --max-steps cut) on a whole training set. */
const char *
_nn_report_not_full (const NnReportRun *r, const NnPreset *preset, char *why, size_t size)
{
  if (strcmp (r->status, "completed") != 0)
    snprintf (why, size, "%s (not completed)", r->status[0] != '\0' ? r->status : "no status");
  else if (r->sweep)
    snprintf (why, size, "a sweep's point, not a whole training");
  else if (r->batch != preset->batch_size)
    snprintf (why, size, "batch size %d, not the preset's %d", (int) r->batch,
              (int) preset->batch_size);
  else if (r->epochs_done <= 0 || !isfinite (r->epoch_seconds) || r->epoch_seconds <= 0)
    snprintf (why, size, "no epoch time");
  else if (r->train_samples < NN_REPORT_FULL_TRAIN_SAMPLES)
    snprintf (why, size, "trained on %d samples, not a whole data set (%d)",
              (int) r->train_samples, NN_REPORT_FULL_TRAIN_SAMPLES);
  else
    {
      int64_t per_epoch = ((int64_t) r->train_samples + r->batch - 1) / r->batch;
      if (r->steps != per_epoch * r->epochs_done)
        snprintf (why, size, "cut short: %lld of %lld steps", (long long) r->steps,
                  (long long) (per_epoch * r->epochs_done));
      else
        return NULL;
    }
  return why;
}

/* The conditions a run trained under: the default (none recorded, or
 * "default"), the articles' ("article"), or one switch away from the
 * default (its name into `which`), or several. */
typedef enum
{
  COND_DEFAULT,
  COND_ARTICLE,
  COND_ONE_SWITCH,
  COND_OTHER,
} CondKind;

static CondKind
run_conditions (const NnReportRun *r, char *which, size_t size)
{
  int switches = 0;

  if (!r->has_conditions || strcmp (r->cond_name, "default") == 0)
    return COND_DEFAULT;
  if (strcmp (r->cond_name, "article") == 0)
    return COND_ARTICLE;
  if (strcmp (r->cond_data, "device") != 0)
    {
      switches++;
      snprintf (which, size, "batches copied from %s host memory every batch", r->cond_data);
    }
  if (r->cuda && !r->cond_graph)
    {
      switches++;
      snprintf (which, size, "one launch per op instead of the step's CUDA graph");
    }
  if (r->cond_loss_every_step)
    {
      switches++;
      snprintf (which, size, "the loss read back every step");
    }
  if (!r->cond_fused)
    {
      switches++;
      snprintf (which, size, "no fused steps");
    }
  if (switches == 0)
    return COND_DEFAULT;
  return switches == 1 ? COND_ONE_SWITCH : COND_OTHER;
}

typedef enum
{
  OS_HERE,       /* this machine's OS */
  OS_WINDOWS,    /* Windows (natively or under wine) on this machine */
  OS_LINUX,      /* not Windows, on this machine */
} OsWanted;

typedef struct
{
  const NnReportMachine *machine;
  const NnPreset *preset;
  bool cuda;
  OsWanted os;
  int32_t threads;     /* CPU: only runs with this many threads; 0 any */
} Want;

/* What judging reads and where it says that memory ran out. */
typedef struct
{
  const NnReportRun *runs;
  size_t count;
  bool out_of_memory;
} Judge;

static bool
run_wanted (const NnReportRun *r, const Want *w)
{
  if (strcmp (r->preset, w->preset->name) != 0 || r->cuda != w->cuda)
    return false;
  /* this machine's by its id, never by the hardware it names */
  if (!machine_has_id (w->machine, r->machine_id))
    return false;
  switch (w->os)
    {
    case OS_HERE:
      if (!same_os (w->machine, r))
        return false;
      break;
    case OS_WINDOWS:
      if (!is_windows (r))
        return false;
      break;
    case OS_LINUX:
      if (is_windows (r) || r->os_emulated_by[0] != '\0')
        return false;
      break;
    }
  return w->threads <= 0 || r->threads == w->threads;
}

/* A full run of the default conditions that `w` wants: one that measures. */
static bool
run_measures (const NnReportRun *r, const Want *w)
{
  char why[256], which[128];
  return run_wanted (r, w) && _nn_report_not_full (r, w->preset, why, sizeof why) == NULL
         && run_conditions (r, which, sizeof which) == COND_DEFAULT;
}

/* Whether `a` started after `b`. A run without a start time to trust is
 * older than every run with one; among such runs, and at one time, the
 * run id and then the path decide, so the order is the same every time. */
static bool
newer (const NnReportRun *a, const NnReportRun *b)
{
  if (a->dated != b->dated)
    return a->dated;
  if (a->dated && a->start != b->start)
    return a->start > b->start;
  int c = strcmp (a->run_id, b->run_id);
  if (c != 0)
    return c > 0;
  return strcmp (a->path != NULL ? a->path : "", b->path != NULL ? b->path : "") > 0;
}

static int
compare_newest_first (const void *pa, const void *pb)
{
  const NnReportRun *a = *(const NnReportRun *const *) pa, *b = *(const NnReportRun *const *) pb;
  return newer (a, b) ? -1 : newer (b, a) ? 1 : 0;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median (double *v, size_t n)
{
  if (n == 0)
    return NAN;
  qsort (v, n, sizeof *v, compare_doubles);
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Add a run's file to a list of files a figure rests on. */
static void
add_file (Judge *j, char ***files, int32_t *count, const NnReportRun *r)
{
  if (r->path == NULL)
    return;
  char **grown = realloc (*files, ((size_t) *count + 1) * sizeof *grown);
  char *copy_of = grown != NULL ? malloc (strlen (r->path) + 1) : NULL;
  if (grown != NULL)
    *files = grown;
  if (copy_of == NULL)
    {
      j->out_of_memory = true;
      return;
    }
  strcpy (copy_of, r->path);
  (*files)[(*count)++] = copy_of;
}

/* The runs of one side: full, under default conditions; of them the
 * newest's device (the same GPU, or the same CPU thread count), and the
 * median of all that device's runs, with their files. *newest_out gets
 * the newest. */
static void
measure_side (Judge *j, const Want *w, const NnClaim *claim, NnReportSide *side,
              const NnReportRun **newest_out)
{
  const NnReportRun *newest = NULL;
  char why[256];
  char first_why[256] = "";
  int left_out = 0;

  *newest_out = NULL;
  for (size_t i = 0; i < j->count; i++)
    {
      const NnReportRun *r = &j->runs[i];
      char which[128];
      if (!run_wanted (r, w))
        continue;
      if (_nn_report_not_full (r, w->preset, why, sizeof why) != NULL)
        {
          if (left_out++ == 0)
            copy (first_why, sizeof first_why, why);
          continue;
        }
      if (run_conditions (r, which, sizeof which) != COND_DEFAULT)
        continue;
      if (newest == NULL || newer (r, newest))
        newest = r;
    }

  if (newest == NULL)
    {
      side->measured = false;
      if (left_out > 0)
        append (side->why, sizeof side->why, " (%d run%s left out: %s%s)", left_out,
                left_out == 1 ? "" : "s", first_why, left_out > 1 ? ", ..." : "");
      return;
    }

  double *values = malloc (j->count * sizeof *values);
  const NnReportRun **taken = malloc (j->count * sizeof *taken);
  size_t n = 0;
  if (values == NULL || taken == NULL)
    {
      free (values);
      free (taken);
      j->out_of_memory = true;
      return;
    }
  for (size_t i = 0; i < j->count; i++)
    {
      const NnReportRun *r = &j->runs[i];
      if (!run_measures (r, w) || strcmp (r->device_name, newest->device_name) != 0
          || (!r->cuda && r->threads != newest->threads))
        continue;
      taken[n] = r;
      values[n++] = r->epoch_seconds;
    }
  double m = median (values, n);
  free (values);
  if (n > 1)
    qsort (taken, n, sizeof *taken, compare_newest_first);
  for (size_t i = 0; i < n; i++)
    add_file (j, &side->files, &side->file_count, taken[i]);
  free (taken);

  side->measured = true;
  side->why[0] = '\0';
  side->command[0] = '\0';
  side->runs = (int32_t) n;
  side->epoch_seconds = m;
  side->seconds = claim->per_epoch || claim->epochs <= 0 ? m : m * claim->epochs;
  run_device_label (newest, side->device, sizeof side->device);
  os_label (newest->os_name, newest->os_version, newest->os_emulated_by, side->os,
            sizeof side->os);
  copy (side->newest, sizeof side->newest, newest->run_id);
  copy (side->newest_started, sizeof side->newest_started, newest->started_at);
  side->newest_undated = !newest->dated;
  *newest_out = newest;
}

/* The median seconds per epoch of the full runs `w` wants under the
 * conditions `kind` (one switch: only those of switch `which`); NAN when
 * there are none. With `rc`, their files go to its reason's. */
static double
conditions_median (Judge *j, const Want *w, CondKind kind, const char *which, int *n_out,
                   NnReportClaim *rc)
{
  double *values = malloc ((j->count > 0 ? j->count : 1) * sizeof *values);
  size_t n = 0;
  char why[256];

  *n_out = 0;
  if (values == NULL)
    {
      j->out_of_memory = true;
      return NAN;
    }
  for (size_t i = 0; i < j->count; i++)
    {
      char this_one[128] = "";
      const NnReportRun *r = &j->runs[i];
      if (!run_wanted (r, w) || _nn_report_not_full (r, w->preset, why, sizeof why) != NULL)
        continue;
      if (run_conditions (r, this_one, sizeof this_one) != kind)
        continue;
      if (which != NULL && strcmp (this_one, which) != 0)
        continue;
      values[n++] = r->epoch_seconds;
      if (rc != NULL)
        add_file (j, &rc->reason_files, &rc->reason_file_count, r);
    }
  double m = median (values, n);
  free (values);
  *n_out = (int) n;
  return m;
}

/* ---------------------------------------------------------------- reasons */

const char *
_nn_report_part_label (const char *key, bool cuda)
{
  if (strcmp (key, "gemm") == 0)
    return "matrix products";
  if (strcmp (key, "loops") == 0)
    return "the engine's own loops";
  if (strcmp (key, "join_wait") == 0)
    return "threads waiting at join points";
  if (strcmp (key, "launch") == 0)
    return "preparing and launching work";
  if (strcmp (key, "copy") == 0)
    return "host-to-device copies";
  if (strcmp (key, "sync_wait") == 0)
    return "waiting on the GPU";
  if (strcmp (key, "host") == 0)
    return cuda ? "the host's other work" : "the trainer's serial code";
  return key;
}

/* The largest part of a run's step, as a share of it. */
static int
largest_part (const NnReportRun *r, double *share)
{
  int best = -1;
  for (int i = 0; i < r->part_count; i++)
    if (best < 0 || r->part_seconds[i] > r->part_seconds[best])
      best = i;
  *share = best >= 0 ? r->part_seconds[best] / r->step_seconds : 0;
  return best;
}

/* What a run's breakdown says, with its file among the reason's. */
static void
breakdown_reason (Judge *j, const NnReportRun *r, NnReportClaim *rc)
{
  char *reason = rc->reason;
  size_t size = sizeof rc->reason;
  double share;
  int part = largest_part (r, &share);

  if (r->cuda && isfinite (r->device_busy) && r->device_busy >= 0)
    {
      double busy = r->device_busy / r->step_seconds;
      append (reason, size, "The GPU was busy %.0f %% of the step: the step is %s",
              100 * (busy < 1 ? busy : 1), busy < 0.5 ? "host-bound" : "device-bound");
      if (part >= 0)
        append (reason, size, " (%s: %.0f %% of the step)",
                _nn_report_part_label (r->part_keys[part], true), 100 * share);
      append (reason, size, ". ");
    }
  else if (part >= 0)
    append (reason, size, "On the %s, %s take %.0f %% of the step. ", r->cuda ? "GPU" : "CPU",
            _nn_report_part_label (r->part_keys[part], r->cuda), 100 * share);
  else
    return;
  add_file (j, &rc->reason_files, &rc->reason_file_count, r);
}

/* What the runs with "conditions" say of a GPU-against-CPU claim. */
static void
conditions_reason (Judge *j, const Want *gpu, NnReportClaim *rc)
{
  double cpu_epoch = rc->first.epoch_seconds, gpu_epoch = rc->second.epoch_seconds;
  char *reason = rc->reason;
  size_t size = sizeof rc->reason;
  int n = 0;
  double article = conditions_median (j, gpu, COND_ARTICLE, NULL, &n, NULL);
  char x[32];

  if (n > 0 && isfinite (cpu_epoch))
    {
      double ratio = cpu_epoch / article;
      nn_report_format_times (ratio, x, sizeof x);
      append (reason, size, "Under the article's conditions (batches copied from host memory, "
              "one launch per op, the loss read every step) the GPU is %s the CPU's speed: %s. ",
              x, ratio < 1 ? "it loses then" : "it still wins");
      conditions_median (j, gpu, COND_ARTICLE, NULL, &n, rc);
    }

  /* Each switch on its own, against the default's epoch time. */
  static const char *const switches[] = {
    "batches copied from pageable host memory every batch",
    "batches copied from pinned host memory every batch",
    "one launch per op instead of the step's CUDA graph",
    "the loss read back every step",
    "no fused steps",
  };
  const char *worst = NULL, *second = NULL;
  double worst_x = 0, second_x = 0;
  for (size_t i = 0; i < sizeof switches / sizeof switches[0]; i++)
    {
      double m = conditions_median (j, gpu, COND_ONE_SWITCH, switches[i], &n, NULL);
      if (n == 0 || !isfinite (gpu_epoch))
        continue;
      double slow = m / gpu_epoch;
      if (worst == NULL || slow > worst_x)
        {
          second = worst;
          second_x = worst_x;
          worst = switches[i];
          worst_x = slow;
        }
      else if (second == NULL || slow > second_x)
        {
          second = switches[i];
          second_x = slow;
        }
    }
  if (worst != NULL)
    {
      nn_report_format_times (worst_x, x, sizeof x);
      append (reason, size, "Of one switch at a time, %s costs most (%s the default's epoch "
              "time)", worst, x);
      conditions_median (j, gpu, COND_ONE_SWITCH, worst, &n, rc);
      if (second != NULL)
        {
          nn_report_format_times (second_x, x, sizeof x);
          append (reason, size, "; then %s (%s)", second, x);
          conditions_median (j, gpu, COND_ONE_SWITCH, second, &n, rc);
        }
      append (reason, size, ". ");
    }
}

static void
trim (char *text)
{
  size_t n = strlen (text);
  while (n > 0 && text[n - 1] == ' ')
    text[--n] = '\0';
}

static NnVerdict
verdict_of (double article, double measured)
{
  if (!isfinite (measured) || measured <= 0)
    return NN_VERDICT_NOT_MEASURED;
  if (article > 1)
    return measured > NN_REPORT_EVEN_BAND ? NN_VERDICT_HOLDS : NN_VERDICT_DOES_NOT_HOLD;
  return measured < 1 / NN_REPORT_EVEN_BAND ? NN_VERDICT_HOLDS : NN_VERDICT_DOES_NOT_HOLD;
}

static void
side_command (NnReportSide *side, const char *program, const NnPreset *preset,
              const char *device)
{
  snprintf (side->command, sizeof side->command, "%s train --preset %s --device %s", program,
            preset->name, device);
}

static void
judge_gpu_claim (Judge *j, const NnReportMachine *m, NnReportClaim *rc)
{
  const NnClaim *claim = rc->claim;
  const NnPreset *preset = nn_preset_find (claim->preset);
  Want cpu = { m, preset, false, OS_HERE, 0 };
  Want gpu = { m, preset, true, OS_HERE, 0 };
  const NnReportRun *cpu_run, *gpu_run;

  snprintf (rc->first.why, sizeof rc->first.why, "no completed full run of %s on the CPU of "
            "this machine", preset->name);
  snprintf (rc->second.why, sizeof rc->second.why, "no completed full run of %s on a GPU of "
            "this machine", preset->name);
  if (m->gpus_known && m->gpu_count == 0)
    snprintf (rc->second.why, sizeof rc->second.why, "this machine has no usable GPU%s%s%s",
              m->gpu_reason[0] != '\0' ? " (" : "", m->gpu_reason,
              m->gpu_reason[0] != '\0' ? "): run it on a machine with one" : "");
  measure_side (j, &cpu, claim, &rc->first, &cpu_run);
  measure_side (j, &gpu, claim, &rc->second, &gpu_run);
  if (!rc->first.measured)
    side_command (&rc->first, "trainbench-cli", preset, "cpu");
  if (!rc->second.measured)
    side_command (&rc->second, "trainbench-cli", preset, "cuda:0");

  rc->ratio = rc->first.measured && rc->second.measured
                ? rc->first.epoch_seconds / rc->second.epoch_seconds
                : NAN;
  rc->verdict = verdict_of (claim->ratio, rc->ratio);
  rc->reason[0] = '\0';
  if (rc->verdict == NN_VERDICT_NOT_MEASURED)
    {
      for (int s = 0; s < 2; s++)
        {
          const NnReportSide *side = s == 0 ? &rc->first : &rc->second;
          if (!side->measured)
            append (rc->reason, sizeof rc->reason, "%s: %s; `%s` measures it. ",
                    s == 0 ? "CPU" : "GPU", side->why, side->command);
        }
      trim (rc->reason);
      return;
    }

  if (gpu_run != NULL)
    {
      const NnReportRun *with = NULL;
      for (size_t i = 0; i < j->count; i++)
        if (j->runs[i].has_breakdown && strcmp (j->runs[i].device_name, gpu_run->device_name) == 0
            && (with == NULL || newer (&j->runs[i], with)) && run_measures (&j->runs[i], &gpu))
          with = &j->runs[i];
      if (with != NULL)
        breakdown_reason (j, with, rc);
    }
  if (cpu_run != NULL && cpu_run->has_breakdown)
    breakdown_reason (j, cpu_run, rc);
  conditions_reason (j, &gpu, rc);
  if (rc->reason[0] == '\0')
    append (rc->reason, sizeof rc->reason, "An epoch takes %.3g s on the CPU and %.3g s on the "
            "GPU; these runs record no breakdown of the step, which says where its time goes.",
            rc->first.epoch_seconds, rc->second.epoch_seconds);
  trim (rc->reason);
}

static int
compare_int32 (const void *a, const void *b)
{
  int32_t x = *(const int32_t *) a, y = *(const int32_t *) b;
  return x < y ? -1 : x > y;
}

static void
judge_os_claim (Judge *j, const NnReportMachine *m, NnReportClaim *rc)
{
  const NnClaim *claim = rc->claim;
  const NnPreset *preset = nn_preset_find (claim->preset);
  Want win = { m, preset, false, OS_WINDOWS, 0 };
  Want lin = { m, preset, false, OS_LINUX, 0 };
  const NnReportRun *win_run, *lin_run;

  /* Like with like: the Windows runs' thread count that Linux runs have too
   * (the newest such Windows run decides). The Linux runs' thread counts,
   * sorted, are looked up, so many runs cost no more than sorting them. */
  int32_t *linux_threads = malloc ((j->count > 0 ? j->count : 1) * sizeof *linux_threads);
  size_t n_linux = 0;
  if (linux_threads == NULL)
    {
      j->out_of_memory = true;
      return;
    }
  for (size_t i = 0; i < j->count; i++)
    if (run_measures (&j->runs[i], &lin))
      linux_threads[n_linux++] = j->runs[i].threads;
  if (n_linux > 1)
    qsort (linux_threads, n_linux, sizeof *linux_threads, compare_int32);
  const NnReportRun *pick = NULL;
  for (size_t i = 0; i < j->count; i++)
    {
      const NnReportRun *r = &j->runs[i];
      if ((pick == NULL || newer (r, pick)) && run_measures (r, &win) && n_linux > 0
          && bsearch (&r->threads, linux_threads, n_linux, sizeof *linux_threads, compare_int32)
               != NULL)
        pick = r;
    }
  free (linux_threads);
  if (pick != NULL)
    win.threads = lin.threads = pick->threads;

  snprintf (rc->first.why, sizeof rc->first.why, "no completed full run of %s by the Windows "
            "build on this machine's CPU%s", preset->name,
            pick == NULL ? " with as many threads as a Linux run" : "");
  snprintf (rc->second.why, sizeof rc->second.why, "no completed full run of %s under Linux "
            "on this machine's CPU", preset->name);
  measure_side (j, &win, claim, &rc->first, &win_run);
  measure_side (j, &lin, claim, &rc->second, &lin_run);
  if (!rc->first.measured)
    snprintf (rc->first.command, sizeof rc->first.command,
              "trainbench-cli.exe train --preset %s --device cpu (the Windows build, on "
              "Windows or under wine: bench/os-bench.py)", preset->name);
  if (!rc->second.measured)
    side_command (&rc->second, "trainbench-cli", preset, "cpu");

  rc->ratio = rc->first.measured && rc->second.measured
                ? rc->first.epoch_seconds / rc->second.epoch_seconds
                : NAN;
  rc->verdict = verdict_of (claim->ratio, rc->ratio);
  rc->reason[0] = '\0';
  if (rc->verdict == NN_VERDICT_NOT_MEASURED)
    {
      for (int s = 0; s < 2; s++)
        {
          const NnReportSide *side = s == 0 ? &rc->first : &rc->second;
          if (!side->measured)
            append (rc->reason, sizeof rc->reason, "%s: %s; `%s` measures it. ",
                    s == 0 ? "Windows" : "Linux", side->why, side->command);
        }
    }
  else
    {
      append (rc->reason, sizeof rc->reason, "Both on this machine's CPU with %d thread%s, "
              "Windows as %s. ", (int) win_run->threads, win_run->threads == 1 ? "" : "s",
              rc->first.os);
      if (win_run->has_breakdown && lin_run->has_breakdown)
        {
          /* the part whose share of the step differs most between the two */
          int best = -1;
          double best_d = 0, w_share = 0, l_share = 0;
          for (int i = 0; i < win_run->part_count; i++)
            for (int k = 0; k < lin_run->part_count; k++)
              if (strcmp (win_run->part_keys[i], lin_run->part_keys[k]) == 0)
                {
                  double ws = win_run->part_seconds[i] / win_run->step_seconds;
                  double ls = lin_run->part_seconds[k] / lin_run->step_seconds;
                  if (fabs (ws - ls) > best_d)
                    {
                      best = i;
                      best_d = fabs (ws - ls);
                      w_share = ws;
                      l_share = ls;
                    }
                }
          if (best >= 0)
            {
              append (rc->reason, sizeof rc->reason, "%s take %.0f %% of the step under "
                      "Windows and %.0f %% under Linux. ",
                      _nn_report_part_label (win_run->part_keys[best], false), 100 * w_share,
                      100 * l_share);
              add_file (j, &rc->reason_files, &rc->reason_file_count, win_run);
              add_file (j, &rc->reason_files, &rc->reason_file_count, lin_run);
            }
        }
    }
  append (rc->reason, sizeof rc->reason, "The GPU half (the article's GPU unusable under "
          "Windows) is not compared here: it needs the cnn trained on an NVIDIA GPU by the "
          "Windows build under Windows itself, which wine cannot do.");
  trim (rc->reason);
}

/* ---------------------------------------------------------------- the report */

static void
free_files (char **files, int32_t count)
{
  for (int32_t i = 0; i < count; i++)
    free (files[i]);
  free (files);
}

static void
claims_clear (NnReport *report)
{
  for (int i = 0; i < report->claim_count; i++)
    {
      NnReportClaim *rc = &report->claims[i];
      free_files (rc->first.files, rc->first.file_count);
      free_files (rc->second.files, rc->second.file_count);
      free_files (rc->reason_files, rc->reason_file_count);
    }
  report->claim_count = 0;
}

bool
_nn_report_judge (NnReport *report, const NnReportRun *runs, size_t count)
{
  Judge j = { runs, count, false };

  claims_clear (report);
  report->claim_count = N_CLAIMS;
  for (int i = 0; i < N_CLAIMS; i++)
    {
      NnReportClaim *rc = &report->claims[i];
      memset (rc, 0, sizeof *rc);
      rc->claim = &claims[i];
    }
  for (int i = 0; i < N_CLAIMS && !j.out_of_memory; i++)
    {
      if (claims[i].kind == NN_CLAIM_GPU_VS_CPU)
        judge_gpu_claim (&j, &report->machine, &report->claims[i]);
      else
        judge_os_claim (&j, &report->machine, &report->claims[i]);
    }
  return !j.out_of_memory;
}

NnStatus
nn_report_build (const char *const *paths, int count, const NnReportMachine *machine,
                 NnReport **out, NnError *error)
{
  Collect c;

  *out = NULL;
  memset (&c, 0, sizeof c);
  c.report = calloc (1, sizeof *c.report);
  if (c.report == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for the report");
  c.report->machine = *machine;
  c.now = (int64_t) time (NULL);
  nn_report_machine_label (machine, c.report->machine_label, sizeof c.report->machine_label);

  for (int i = 0; i < count && !c.out_of_memory; i++)
    {
      NnOsKind kind = _nn_os_path_kind (paths[i], NULL);
      if (kind == NN_OS_FOLDER)
        read_folder (&c, paths[i], true);
      else if (kind == NN_OS_MISSING)
        {
          char what[256];
          snprintf (what, sizeof what, "cannot open: %s", strerror (errno));
          skip_said (&c, paths[i], what);
        }
      else
        read_file (&c, paths[i]);
    }

  if (!c.out_of_memory && !_nn_report_judge (c.report, c.runs, c.run_count))
    c.out_of_memory = true;

  for (size_t i = 0; i < c.run_count; i++)
    free (c.runs[i].path);
  free (c.runs);
  free (c.seen);
  if (c.out_of_memory)
    {
      nn_report_free (c.report);
      return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory reading the result files");
    }
  *out = c.report;
  return NN_OK;
}

void
nn_report_free (NnReport *report)
{
  if (report == NULL)
    return;
  claims_clear (report);
  free (report->others);
  free (report->skipped);
  free (report->undated);
  free (report);
}

/* The machine id and hardware of a result file; NN_ERROR_FORMAT when it
 * records no id. */
static NnStatus
machine_file_read (const char *path, NnReportRun *run, NnReportHardware *hw, NnError *error)
{
  NnJsonDoc *doc = NULL;
  bool sweep_file = false;

  NnStatus status = _nn_json_read_file (path, &doc, error);
  if (status == NN_OK)
    status = _nn_report_run_from_doc (doc, path, run, hw, &sweep_file, error);
  _nn_json_doc_free (doc);
  if (status == NN_OK && sweep_file)
    status = _nn_error_set (error, NN_ERROR_FORMAT, "%s: a sweep file, not a result file", path);
  if (status == NN_OK && run->machine_id[0] == '\0')
    status = _nn_error_set (error, NN_ERROR_FORMAT,
                            "%s: records no machine id (a file older than machine ids, or not "
                            "Trainbench's): it names no machine", path);
  return status;
}

NnStatus
nn_report_machine_from_file (const char *path, NnReportMachine *out, NnError *error)
{
  NnReportRun run;
  NnReportHardware hw;

  memset (out, 0, sizeof *out);
  NnStatus status = machine_file_read (path, &run, &hw, error);
  if (status != NN_OK)
    return status;
  out->id_count = 1;
  copy (out->ids[0], sizeof out->ids[0], run.machine_id);
  copy (out->os_name, sizeof out->os_name, run.os_name);
  copy (out->os_version, sizeof out->os_version, run.os_version);
  copy (out->os_emulated_by, sizeof out->os_emulated_by, run.os_emulated_by);
  copy (out->cpu_model, sizeof out->cpu_model, hw.cpu_model);
  out->gpus_known = hw.gpu_count > 0;
  out->gpu_count = hw.gpu_count < 8 ? hw.gpu_count : 8;
  for (int i = 0; i < out->gpu_count; i++)
    copy (out->gpus[i], sizeof out->gpus[i], hw.gpus[i]);
  return NN_OK;
}

NnStatus
nn_report_machine_add_file (NnReportMachine *machine, const char *path, NnError *error)
{
  NnReportRun run;
  NnReportHardware hw;

  NnStatus status = machine_file_read (path, &run, &hw, error);
  if (status != NN_OK)
    return status;
  if (machine_has_id (machine, run.machine_id))
    return NN_OK;
  if (machine->id_count >= NN_REPORT_MACHINE_IDS_MAX)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "%s: a machine has at most %d ids (one per OS installation)", path,
                          NN_REPORT_MACHINE_IDS_MAX);
  copy (machine->ids[machine->id_count++], sizeof machine->ids[0], run.machine_id);
  return NN_OK;
}
