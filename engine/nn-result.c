/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-result.c: result files (schema 1 in docs/ARCHITECTURE.md), run ids, the runs folder,
 * and seconds per epoch as every table gives it.
 *
 * A result is written as an atomic file (nn-file.c): a temporary file next
 * to the target, flushed to disk and put in its place in one step, so a
 * crash leaves either the old file or the new one, never half of one.
 */

#include "nn-plan.h"
#include "nn-os.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------- JSON of a result */

#define STR(json, field) _nn_json_string_bounded ((json), (field), sizeof (field))

/* Object members: the key and its value in one call. */
#define KEY_STR(json, key, field) (_nn_json_key ((json), (key)), STR ((json), (field)))

static void
key_int (NnJson *j, const char *key, int64_t value)
{
  _nn_json_key (j, key);
  _nn_json_int (j, value);
}

static void
key_double (NnJson *j, const char *key, double value)
{
  _nn_json_key (j, key);
  _nn_json_double (j, value);
}

static void
key_float (NnJson *j, const char *key, float value)
{
  _nn_json_key (j, key);
  _nn_json_float (j, value);
}

/* "breakdown": the device kind's four parts always, in the order of
 * NnBreakdownPart, and any other part that took time (none does today). */
void
_nn_result_json_breakdown (NnJson *j, const NnBreakdown *b, NnDeviceKind kind)
{
  _nn_json_key (j, "breakdown");
  _nn_json_begin_object (j);
  key_int (j, "steps", b->steps);
  key_double (j, "step_seconds", b->step_seconds);
  _nn_json_key (j, "parts");
  _nn_json_begin_array (j);
  for (int p = 0; p < NN_BREAKDOWN_PARTS; p++)
    if (nn_breakdown_part_on ((NnBreakdownPart) p, kind) || b->part_seconds[p] > 0)
      {
        _nn_json_begin_object (j);
        _nn_json_key (j, "key");
        _nn_json_string (j, nn_breakdown_part_key ((NnBreakdownPart) p));
        key_double (j, "seconds", b->part_seconds[p]);
        _nn_json_end_object (j);
      }
  _nn_json_end_array (j);
  if (b->device_busy_seconds >= 0)
    key_double (j, "device_busy_seconds", b->device_busy_seconds);
  key_double (j, "copy_bytes", b->copy_bytes);
  key_double (j, "evaluation_seconds", b->evaluation_seconds);
  _nn_json_end_object (j);
}

void
_nn_result_json_conditions (NnJson *j, const char *name, const NnConditions *c)
{
  _nn_json_key (j, "conditions");
  _nn_json_begin_object (j);
  _nn_json_key (j, "name");
  _nn_json_string (j, name);
  _nn_json_key (j, "data");
  _nn_json_string (j, nn_data_on_name (c->data));
  _nn_json_key (j, "graph");
  _nn_json_bool (j, c->graph);
  _nn_json_key (j, "loss_every_step");
  _nn_json_bool (j, c->loss_every_step);
  _nn_json_key (j, "fused");
  _nn_json_bool (j, c->fused);
  _nn_json_end_object (j);
}

static const char *
status_text (NnRunStatus status)
{
  switch (status)
    {
    case NN_RUN_COMPLETED: return "completed";
    case NN_RUN_CANCELLED: return "cancelled";
    case NN_RUN_FAILED: return "failed";
    }
  return "failed";
}

void
_nn_result_json_system (NnJson *j, const NnSystemInfo *sys, const NnDeviceInfo *run_device)
{
  NnDeviceInfo devices[17];
  /* The GPUs the process knows of; a CPU run does not load the CUDA module
   * to list them (a broken one would take the run's result with it). */
  int count = _nn_device_list_loaded (devices, 17);
  const NnDeviceInfo *cuda = NULL;

  _nn_json_key (j, "system");
  _nn_json_begin_object (j);

  /* added in schema 1's lifetime: whose run it is, which no hardware name
   * says (nn_machine_id); null where this machine has none to give */
  char id[NN_MACHINE_ID_SIZE];
  _nn_json_key (j, "machine_id");
  if (nn_machine_id (id, NULL, 0, NULL) == NN_OK)
    _nn_json_string (j, id);
  else
    _nn_json_null (j);

  _nn_json_key (j, "os");
  _nn_json_begin_object (j);
  KEY_STR (j, "name", sys->os_name);
  KEY_STR (j, "version", sys->os_version);
  KEY_STR (j, "kernel", sys->kernel);
  /* added in schema 1's lifetime: "wine 8.0", "" natively */
  KEY_STR (j, "emulated_by", sys->os_emulated_by);
  _nn_json_end_object (j);

  _nn_json_key (j, "cpu");
  _nn_json_begin_object (j);
  KEY_STR (j, "model", sys->cpu_model);
  key_int (j, "cores", sys->cpu_cores);
  key_int (j, "threads", sys->cpu_threads);
  _nn_json_end_object (j);

  _nn_json_key (j, "ram_bytes");
  _nn_json_uint (j, sys->ram_bytes);

  _nn_json_key (j, "gpus");
  _nn_json_begin_array (j);
  for (int i = 0; i < count; i++)
    {
      const NnDeviceInfo *d = &devices[i];
      if (d->kind != NN_DEVICE_CUDA || !d->usable)
        continue;
      if (cuda == NULL)
        cuda = d;
      _nn_json_begin_object (j);
      KEY_STR (j, "name", d->name);
      _nn_json_key (j, "memory_bytes");
      _nn_json_uint (j, d->memory_bytes);
      KEY_STR (j, "driver", d->driver);
      _nn_json_end_object (j);
    }
  _nn_json_end_array (j);

  _nn_json_key (j, "blas");
  _nn_json_begin_object (j);
  KEY_STR (j, "name", sys->blas_name);
  KEY_STR (j, "version", sys->blas_version);
  KEY_STR (j, "core", sys->blas_core);
  key_int (j, "threads", sys->blas_threads);
  KEY_STR (j, "note", sys->blas_note);
  _nn_json_end_object (j);

  /* The versions of the run's own GPU when it ran on one, else of the first. */
  if (run_device != NULL && run_device->kind == NN_DEVICE_CUDA && run_device->usable)
    cuda = run_device;
  if (cuda != NULL)
    {
      _nn_json_key (j, "cuda");
      _nn_json_begin_object (j);
      KEY_STR (j, "runtime", cuda->runtime);
      KEY_STR (j, "cublas", cuda->cublas);
      KEY_STR (j, "cudnn", cuda->cudnn);
      _nn_json_end_object (j);
    }

  KEY_STR (j, "compiler", sys->compiler);
  _nn_json_end_object (j);
}

/* The optimizer and the settings that apply to it, by their Keras names. */
static void
write_optimizer (NnJson *j, const NnOptimizer *opt)
{
  _nn_json_key (j, "optimizer");
  _nn_json_begin_object (j);
  _nn_json_key (j, "name");
  _nn_json_string (j, nn_optimizer_name (opt->kind));
  key_float (j, "learning_rate", opt->lr);
  switch (opt->kind)
    {
    case NN_OPT_SGD:
      key_float (j, "momentum", opt->momentum);
      _nn_json_key (j, "nesterov");
      _nn_json_bool (j, opt->nesterov);
      break;
    case NN_OPT_ADAM:
      key_float (j, "beta_1", opt->beta1);
      key_float (j, "beta_2", opt->beta2);
      key_float (j, "epsilon", opt->epsilon);
      break;
    case NN_OPT_ADADELTA:
      key_float (j, "rho", opt->rho);
      key_float (j, "epsilon", opt->epsilon);
      break;
    case NN_OPT_RMSPROP:
      key_float (j, "rho", opt->rho);
      key_float (j, "momentum", opt->momentum);
      key_float (j, "epsilon", opt->epsilon);
      break;
    case NN_OPT_ADAGRAD:
      key_float (j, "initial_accumulator_value", opt->initial_accumulator);
      key_float (j, "epsilon", opt->epsilon);
      break;
    }
  _nn_json_end_object (j);
}

static void
write_result (NnJson *j, const NnRunResult *r, const NnSystemInfo *sys)
{
  const NnTrainConfig *c = &r->config;

  _nn_json_begin_object (j);
  key_int (j, "schema", NN_RESULT_SCHEMA);
  _nn_json_key (j, "app_version");
  _nn_json_string (j, NN_VERSION_STRING);
  KEY_STR (j, "run_id", r->run_id);
  KEY_STR (j, "started_at", r->started_at);
  _nn_json_key (j, "status");
  _nn_json_string (j, status_text (r->status));
  if (r->error[0] != '\0')
    KEY_STR (j, "error", r->error);
  /* added in schema 1's lifetime: the sweep a run is a point of */
  if (r->sweep_id[0] != '\0')
    KEY_STR (j, "sweep", r->sweep_id);

  _nn_result_json_system (j, sys, &r->device);

  _nn_json_key (j, "device");
  _nn_json_begin_object (j);
  _nn_json_key (j, "kind");
  _nn_json_string (j, r->device.kind == NN_DEVICE_CUDA ? "cuda" : "cpu");
  key_int (j, "index", r->device.index);
  KEY_STR (j, "name", r->device.name);
  key_int (j, "threads", r->threads);
  _nn_json_key (j, "tf32");
  _nn_json_bool (j, c->device.tf32);
  _nn_json_end_object (j);

  _nn_json_key (j, "dataset");
  _nn_json_begin_object (j);
  KEY_STR (j, "name", r->dataset_name);
  KEY_STR (j, "path", r->dataset_path);
  key_int (j, "train_samples", r->train_samples);
  key_int (j, "test_samples", r->test_samples);
  _nn_json_end_object (j);

  _nn_json_key (j, "model");
  _nn_json_begin_object (j);
  KEY_STR (j, "spec", r->spec_text);
  key_int (j, "params", r->params);
  _nn_json_key (j, "name");
  if (r->model_name[0] != '\0')
    STR (j, r->model_name);
  else
    _nn_json_null (j);   /* a custom model */
  _nn_json_end_object (j);

  _nn_json_key (j, "hyper");
  _nn_json_begin_object (j);
  write_optimizer (j, &c->optimizer);
  _nn_json_key (j, "loss");
  _nn_json_string (j, nn_loss_name (c->loss));
  key_float (j, "lr", c->optimizer.lr);
  key_int (j, "batch_size", c->batch_size);
  key_int (j, "epochs", c->epochs);
  _nn_json_key (j, "seed");
  /* Readers that store numbers as doubles round seeds above 2^53; still a
   * number, so the field keeps one type. */
  _nn_json_uint (j, c->seed);
  _nn_json_end_object (j);

  /* added in schema 1's lifetime: how the run fed and drove the device;
   * the name from the switches asked for, graph as it ran (never on the
   * CPU, which captures nothing) */
  _nn_result_json_conditions (j, nn_conditions_name (&c->conditions), &r->conditions);

  /* added in schema 1's lifetime: the steps of a training step */
  _nn_json_key (j, "plan");
  _nn_plan_json (j, r->plan, r->plan_count > 0 && r->plan != NULL ? r->plan_count : 0);

  _nn_json_key (j, "epochs");
  _nn_json_begin_array (j);
  for (int32_t i = 0; i < r->epoch_count; i++)
    {
      const NnEpochRecord *e = &r->epochs[i];
      _nn_json_begin_object (j);
      key_int (j, "epoch", e->epoch);
      key_double (j, "seconds", e->seconds);
      key_float (j, "train_loss", e->train_loss);
      key_float (j, "train_accuracy", e->train_accuracy);
      key_float (j, "test_loss", e->test_loss);
      key_float (j, "test_accuracy", e->test_accuracy);
      key_double (j, "samples_per_second", e->samples_per_second);
      _nn_json_end_object (j);
    }
  _nn_json_end_array (j);

  _nn_json_key (j, "steps");
  _nn_json_begin_object (j);
  key_int (j, "count", r->step_count);
  /* added in schema 1's lifetime: the first steps, left out of the times,
   * and the steps the times come from */
  if (c->warmup_steps > 0)
    {
      key_int (j, "warmup_steps", c->warmup_steps);
      key_int (j, "timed", r->steps_timed);
    }
  key_double (j, "seconds_median", r->step_seconds_median);
  key_double (j, "seconds_p10", r->step_seconds_p10);
  key_double (j, "seconds_p90", r->step_seconds_p90);
  _nn_json_key (j, "loss_curve");   /* [[step, loss], ...] */
  _nn_json_begin_array (j);
  int32_t points = r->loss_curve_count;
  if (points > NN_LOSS_CURVE_MAX)
    points = NN_LOSS_CURVE_MAX;
  for (int32_t i = 0; i < points; i++)
    {
      _nn_json_begin_array_inline (j);
      _nn_json_int (j, r->loss_curve_steps[i]);
      _nn_json_float (j, r->loss_curve[i]);
      _nn_json_end_array (j);
    }
  _nn_json_end_array (j);
  _nn_json_end_object (j);

  /* added in schema 1's lifetime, only when measured */
  if (r->breakdown.measured)
    _nn_result_json_breakdown (j, &r->breakdown, r->device.kind);

  key_double (j, "total_seconds", r->total_seconds);
  key_double (j, "time_to_first_step_seconds", r->time_to_first_step_seconds);
  _nn_json_end_object (j);
}

NnStatus
nn_result_write (const NnRunResult *result,
                 const NnSystemInfo *system,
                 const char *path,
                 NnError *error)
{
  NnSystemInfo now;
  NnJson json;

  if (result == NULL || path == NULL || path[0] == '\0')
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "nn_result_write: result and path are required");
  if (result->epoch_count < 0 || (result->epoch_count > 0 && result->epochs == NULL))
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "%s: the result has %d epochs but no epoch records", path,
                          (int) result->epoch_count);
  if (system == NULL)
    {
      nn_system_info (&now);
      system = &now;
    }

  _nn_json_init (&json);
  write_result (&json, result, system);
  if (!_nn_json_ok (&json))
    {
      _nn_json_free (&json);
      return _nn_error_set (error, NN_ERROR_NO_MEMORY, "%s: out of memory writing the result",
                            path);
    }
  NnStatus status = _nn_file_write_atomically (path, json.data, json.len, true, error);
  _nn_json_free (&json);
  return status;
}

/* The run id with another last part: its 4 hex digits drawn again
 * ("...-cpu-4f2a" -> "...-cpu-91c3"), or "-XXXX" added to an id without
 * them. */
static void
run_id_redraw (char *run_id, size_t size)
{
  size_t n = strlen (run_id);
  bool hex = n >= 5 && run_id[n - 5] == '-';
  for (size_t i = n >= 4 ? n - 4 : 0; hex && i < n; i++)
    hex = (run_id[i] >= '0' && run_id[i] <= '9') || (run_id[i] >= 'a' && run_id[i] <= 'f');
  if (hex)
    n -= 5;
  if (n + 6 > size)
    n = size > 6 ? size - 6 : 0;
  snprintf (run_id + n, size - n, "-%04x", (unsigned) (_nn_random_u32 () & 0xffff));
}

NnStatus
nn_result_write_new (NnRunResult *result,
                     const NnSystemInfo *system,
                     const char *folder,
                     char *path,
                     size_t path_size,
                     NnError *error)
{
  NnSystemInfo now;
  char name[NN_FILE_NAME_MAX];
  char target[4096 + sizeof name];

  if (path != NULL && path_size > 0)
    path[0] = '\0';
  if (result == NULL || folder == NULL || folder[0] == '\0')
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "nn_result_write_new: result and folder are required");
  if (result->epoch_count < 0 || (result->epoch_count > 0 && result->epochs == NULL))
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "%s: the result has %d epochs but no epoch records", folder,
                          (int) result->epoch_count);
  if (system == NULL)
    {
      nn_system_info (&now);
      system = &now;
    }
  if (result->run_id[0] == '\0')
    snprintf (result->run_id, sizeof result->run_id, "run");

  /* The run id names the file: a new name, never another run's file. Ids
   * made in the same second by two processes share all but 16 random bits,
   * so a taken name is met now and then: the run then gets another id. */
  for (int attempt = 0; attempt < 64; attempt++)
    {
      if (attempt > 0)
        run_id_redraw (result->run_id, sizeof result->run_id);
      /* a caller's id may be any text: the file's name is a plain one */
      if (!nn_file_name_from_id (result->run_id, ".json", name, sizeof name)
          || !nn_path_join (target, sizeof target, folder, name))
        return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "%.200s...: path too long",
                              folder);

      NnJson json;
      _nn_json_init (&json);
      write_result (&json, result, system);
      if (!_nn_json_ok (&json))
        {
          _nn_json_free (&json);
          return _nn_error_set (error, NN_ERROR_NO_MEMORY, "%s: out of memory writing the result",
                                target);
        }
      NnAtomicFile af;
      bool taken = false;
      NnStatus status = _nn_atomic_file_open_new (&af, target, true, error);
      if (status == NN_OK)
        {
          _nn_atomic_file_write (&af, json.data, json.len);
          status = _nn_atomic_file_commit_new (&af, &taken, error);
        }
      _nn_json_free (&json);
      if (status == NN_OK)
        {
          if (path != NULL && path_size > 0)
            snprintf (path, path_size, "%s", target);
          return NN_OK;
        }
      if (!taken)
        return status;
    }
  return _nn_error_set (error, NN_ERROR_IO, "%s: no free name for the result after 64 tries",
                        folder);
}

/* ---------------------------------------------------------------- run ids */

void
nn_run_id_new (const char *model_name,
               const NnDeviceInfo *device,
               char *run_id,
               size_t run_id_size,
               char *started_at,
               size_t started_at_size)
{
  /* Within one process the suffix walks a permutation of 0..ffff from a
   * random start, so ids made in the same second never collide here; the
   * random start keeps two processes apart. */
  static uint32_t base;      /* 0 until seeded; the seed is never 0 */
  static uint32_t counter;
  uint32_t start = __atomic_load_n (&base, __ATOMIC_ACQUIRE);
  if (start == 0)
    {
      uint32_t seed = _nn_random_u32 () | 0x10000u;
      if (__atomic_compare_exchange_n (&base, &start, seed, false, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE))
        start = seed;
    }
  uint32_t n = __atomic_fetch_add (&counter, 1, __ATOMIC_RELAXED);
  uint32_t suffix = (start + n * 0x9e37u) & 0xffffu;

  time_t t = time (NULL);
  struct tm tm;
  _nn_os_gmtime (t, &tm);

  /* Model name as [a-z0-9-]: other characters become '-', never two in a
   * row, none at either end; at most 30 characters. */
  char model[31];
  size_t len = 0;
  for (const char *p = model_name != NULL ? model_name : ""; *p != '\0' && len < sizeof model - 1; p++)
    {
      char ch = *p;
      if (ch >= 'A' && ch <= 'Z')
        ch = (char) (ch - 'A' + 'a');
      if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')))
        ch = '-';
      if (ch == '-' && (len == 0 || model[len - 1] == '-'))
        continue;
      model[len++] = ch;
    }
  while (len > 0 && model[len - 1] == '-')
    len--;
  model[len] = '\0';
  if (len == 0)
    snprintf (model, sizeof model, "custom");

  char dev[24];
  if (device != NULL && device->kind == NN_DEVICE_CUDA)
    snprintf (dev, sizeof dev, "cuda%d", (int) device->index);
  else
    snprintf (dev, sizeof dev, "cpu");

  if (run_id != NULL && run_id_size > 0)
    snprintf (run_id, run_id_size, "%04d%02d%02dT%02d%02d%02dZ-%s-%s-%04x",
              tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
              tm.tm_sec, model, dev, (unsigned) suffix);
  if (started_at != NULL && started_at_size > 0)
    snprintf (started_at, started_at_size, "%04d-%02d-%02dT%02d:%02d:%02dZ",
              tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
              tm.tm_sec);
}

/* ---------------------------------------------------------------- seconds per epoch */

static int
compare_seconds (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

double
nn_seconds_per_epoch (double *seconds, size_t count)
{
  size_t n = 0;

  if (seconds == NULL)
    return NAN;
  /* an epoch without a time (a file from elsewhere) is left out, not
   * counted as 0 */
  for (size_t i = 0; i < count; i++)
    if (isfinite (seconds[i]))
      seconds[n++] = seconds[i];
  if (n == 0)
    return NAN;
  qsort (seconds, n, sizeof *seconds, compare_seconds);
  return n % 2 == 1 ? seconds[n / 2] : (seconds[n / 2 - 1] + seconds[n / 2]) / 2.0;
}

double
nn_run_result_seconds_per_epoch (const NnRunResult *result)
{
  double *seconds;
  double median;

  if (result == NULL || result->epoch_count <= 0 || result->epochs == NULL)
    return NAN;
  seconds = malloc (sizeof *seconds * (size_t) result->epoch_count);
  if (seconds == NULL)
    return NAN;
  for (int32_t i = 0; i < result->epoch_count; i++)
    seconds[i] = result->epochs[i].seconds;
  median = nn_seconds_per_epoch (seconds, (size_t) result->epoch_count);
  free (seconds);
  return median;
}

/* ---------------------------------------------------------------- runs folder */

void
nn_runs_dir (char *out, size_t size)
{
  _nn_user_data_dir ("runs", out, size);
}

bool
nn_result_seconds_valid (double seconds)
{
  return seconds >= 0 && seconds <= NN_RESULT_SECONDS_MAX;
}

void
nn_run_result_clear (NnRunResult *result)
{
  if (result == NULL)
    return;
  free (result->epochs);
  free (result->plan);
  memset (result, 0, sizeof *result);
}
