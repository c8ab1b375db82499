/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-result.c: result files (schema 1), atomic replacement, failures that
 * leave the old file alone, the file writer the front ends' exports use,
 * run ids, the runs folder, and seconds per epoch (the median of the
 * epochs' times).
 */

#define _DEFAULT_SOURCE

#include "test-util.h"
#include "json-check.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>
#endif

/* Every schema-1 path, in the order docs/ARCHITECTURE.md lists them. */
static const char *const schema_paths[] = {
  "schema", "app_version", "run_id", "started_at", "status",
  "system", "system.machine_id", "system.os", "system.os.name", "system.os.version", "system.os.kernel",
  "system.os.emulated_by",
  "system.cpu", "system.cpu.model", "system.cpu.cores", "system.cpu.threads",
  "system.ram_bytes", "system.gpus",
  "system.blas", "system.blas.name", "system.blas.version", "system.blas.core",
  "system.blas.threads", "system.blas.note",
  "system.compiler",
  "device", "device.kind", "device.index", "device.name", "device.threads", "device.tf32",
  "dataset", "dataset.name", "dataset.path", "dataset.train_samples", "dataset.test_samples",
  "model", "model.spec", "model.params", "model.name",
  "hyper", "hyper.optimizer", "hyper.optimizer.name", "hyper.optimizer.learning_rate",
  "hyper.optimizer.beta_1", "hyper.optimizer.beta_2", "hyper.optimizer.epsilon",
  "hyper.loss", "hyper.lr", "hyper.batch_size", "hyper.epochs", "hyper.seed",
  "plan", "plan[]", "plan[].pass", "plan[].kind", "plan[].first", "plan[].last",
  "plan[].layers", "plan[].fused", "plan[].fused_with", "plan[].note",
  "epochs", "epochs[]", "epochs[].epoch", "epochs[].seconds", "epochs[].train_loss",
  "epochs[].train_accuracy", "epochs[].test_loss", "epochs[].test_accuracy",
  "epochs[].samples_per_second",
  "steps", "steps.count", "steps.seconds_median", "steps.seconds_p10", "steps.seconds_p90",
  "steps.loss_curve", "steps.loss_curve[]", "steps.loss_curve[][]",
  "total_seconds", "time_to_first_step_seconds",
  NULL,
};

static void
fill_result (NnRunResult *r)
{
  NnDeviceInfo cpu;
  memset (r, 0, sizeof *r);
  memset (&cpu, 0, sizeof cpu);
  cpu.kind = NN_DEVICE_CPU;
  cpu.usable = true;
  snprintf (cpu.name, sizeof cpu.name, "Test CPU \"quoted\"");

  nn_run_id_new ("mlp-small", &cpu, r->run_id, sizeof r->run_id, r->started_at,
                 sizeof r->started_at);
  r->status = NN_RUN_COMPLETED;
  snprintf (r->spec_text, sizeof r->spec_text, "flatten; dense 128 relu; dense 10 softmax");
  snprintf (r->model_name, sizeof r->model_name, "mlp-small");
  r->config.spec_text = r->spec_text;
  r->config.model_name = r->model_name;
  r->config.optimizer.kind = NN_OPT_ADAM;
  r->config.optimizer.lr = 0.001f;
  r->config.optimizer.beta1 = 0.9f;
  r->config.optimizer.beta2 = 0.999f;
  r->config.optimizer.epsilon = 1e-7f;
  r->config.loss = NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY;
  r->config.batch_size = 32;
  r->config.epochs = 2;
  r->config.seed = 42;
  r->device = cpu;
  r->threads = 2;
  snprintf (r->dataset_name, sizeof r->dataset_name, "fashion-mnist");
  snprintf (r->dataset_path, sizeof r->dataset_path, "/usr/share/datasets/fashion-mnist");
  r->train_samples = 60000;
  r->test_samples = 10000;
  r->params = 101770;
  r->epoch_count = 2;
  r->epochs = calloc (2, sizeof *r->epochs);
  for (int i = 0; i < 2; i++)
    {
      r->epochs[i].epoch = i + 1;
      r->epochs[i].seconds = 3.25 - i;
      r->epochs[i].train_loss = 0.5f / (float) (i + 1);
      r->epochs[i].train_accuracy = 0.8f + 0.05f * (float) i;
      r->epochs[i].test_loss = 0.45f;
      r->epochs[i].test_accuracy = 0.84f;
      r->epochs[i].samples_per_second = 18461.5;
    }
  r->step_count = 3750;
  r->step_seconds_median = 0.0008;
  r->step_seconds_p10 = 0.0007;
  r->step_seconds_p90 = 0.0011;
  r->loss_curve_count = 5;
  for (int i = 0; i < 5; i++)
    {
      r->loss_curve_steps[i] = 750 * (i + 1);
      r->loss_curve[i] = 1.0f / (float) (i + 1);
    }
  r->total_seconds = 6.5;
  r->time_to_first_step_seconds = 0.02;
  /* a plan of two steps, as a backend with the fused dense ops makes one */
  r->plan_count = 2;
  r->plan = calloc (2, sizeof *r->plan);
  r->plan[0] = (NnPlanStep){ .backward = false, .kind = "dense", .first = 2, .last = 2,
                             .fused = true, .layers = "dense 128 relu" };
  r->plan[1] = (NnPlanStep){ .backward = true, .kind = "dense_update", .first = 3, .last = 3,
                             .fused = true, .layers = "dense 10 softmax",
                             .fused_with = "optimizer update",
                             .note = "on a branch beside the steps after it" };
}

/* Parse a result file; false (and a diagnostic) when it is not JSON. */
static bool
load (const char *path, JcParser *jp, char **text)
{
  size_t size = 0;
  *text = test_read_file (path, &size);
  memset (jp, 0, sizeof *jp);
  if (*text == NULL)
    {
      tap_diag ("cannot read %s", path);
      return false;
    }
  if (!jc_parse (jp, *text, size))
    {
      tap_diag ("%s is not valid JSON: %s", path, jp->error);
      return false;
    }
  return true;
}

static bool
value_is (const JcParser *jp, const char *path, const char *value)
{
  const JcEntry *e = jc_find (jp, path);
  if (e == NULL || strcmp (e->value, value) != 0)
    {
      tap_diag ("%s: got %s, want %s", path, e ? e->value : "(missing)", value);
      return false;
    }
  return true;
}

/* Names in `dir` that look like our temporary files. */
static int
count_temp_files (const char *dir)
{
  return test_count_names (dir, ".tmp-");
}

static void
test_write_and_schema (void)
{
  NnRunResult r;
  NnError error;
  JcParser jp;
  char *text;
  char dir[4096];
  char path[4200];

  snprintf (dir, sizeof dir, "%s", test_path ("runs/a/b"));   /* does not exist yet */
  snprintf (path, sizeof path, "%s" TEST_SEP "result.json", dir);
  fill_result (&r);
  nn_error_clear (&error);
  NnStatus st = nn_result_write (&r, NULL, path, &error);
  if (!tap_ok (st == NN_OK, "write a result into a new folder (%s)", error.message))
    {
      nn_run_result_clear (&r);
      return;
    }

  if (tap_ok (load (path, &jp, &text), "the result file is valid JSON"))
    {
      /* Every key present, and in the order of the schema. */
      int last = -1;
      bool all = true, ordered = true;
      for (int k = 0; schema_paths[k] != NULL; k++)
        {
          int at = -1;
          for (int i = 0; i < jp.count && at < 0; i++)
            if (strcmp (jp.entries[i].path, schema_paths[k]) == 0)
              at = i;
          if (at < 0)
            {
              all = false;
              tap_diag ("missing key %s", schema_paths[k]);
            }
          else if (at < last)
            {
              ordered = false;
              tap_diag ("key %s out of order", schema_paths[k]);
            }
          else
            last = at;
        }
      tap_ok (all, "every schema-1 key is present");
      tap_ok (ordered, "keys come in the schema's order");

      char quoted[128];
      snprintf (quoted, sizeof quoted, "\"%s\"", r.run_id);
      tap_ok (value_is (&jp, "schema", "1") && value_is (&jp, "app_version", "\"" NN_VERSION_STRING "\"")
              && value_is (&jp, "run_id", quoted) && value_is (&jp, "status", "\"completed\""),
              "schema, app_version, run_id, status");
      tap_ok (jc_find (&jp, "error") == NULL, "no error key when there is no error");
      tap_ok (value_is (&jp, "device.kind", "\"cpu\"") && value_is (&jp, "device.threads", "2")
              && value_is (&jp, "device.tf32", "false")
              && value_is (&jp, "device.name", "\"Test CPU \\\"quoted\\\"\""),
              "device fields");
      tap_ok (value_is (&jp, "hyper.optimizer.name", "\"adam\"")
              && value_is (&jp, "hyper.optimizer.learning_rate", "0.001")
              && value_is (&jp, "hyper.optimizer.beta_2", "0.999")
              && value_is (&jp, "hyper.optimizer.epsilon", "1e-07")
              && jc_find (&jp, "hyper.optimizer.momentum") == NULL
              && jc_find (&jp, "hyper.optimizer.rho") == NULL,
              "Adam's settings by Keras names, and only those");
      tap_ok (value_is (&jp, "hyper.loss", "\"sparse_categorical_crossentropy\"")
              && value_is (&jp, "hyper.seed", "42") && value_is (&jp, "hyper.batch_size", "32"),
              "loss, seed, batch size");
      tap_ok (value_is (&jp, "model.name", "\"mlp-small\"")
              && value_is (&jp, "model.params", "101770")
              && value_is (&jp, "dataset.train_samples", "60000"),
              "model and dataset");
      int epochs = 0, points = 0;
      for (int i = 0; i < jp.count; i++)
        {
          epochs += strcmp (jp.entries[i].path, "epochs[]") == 0;
          points += strcmp (jp.entries[i].path, "steps.loss_curve[]") == 0;
        }
      tap_ok (epochs == 2 && points == 5, "2 epoch records and 5 loss-curve points (%d, %d)",
              epochs, points);
      tap_ok (strstr (text, "[3750, 0.2]") != NULL, "loss curve written as [step, loss]");
      int steps = 0;
      for (int i = 0; i < jp.count; i++)
        steps += strcmp (jp.entries[i].path, "plan[]") == 0;
      const JcEntry *kinds[2] = { NULL, NULL }, *withs[2] = { NULL, NULL };
      for (int i = 0, k = 0, w = 0; i < jp.count; i++)
        {
          if (strcmp (jp.entries[i].path, "plan[].kind") == 0 && k < 2)
            kinds[k++] = &jp.entries[i];
          if (strcmp (jp.entries[i].path, "plan[].fused_with") == 0 && w < 2)
            withs[w++] = &jp.entries[i];
        }
      tap_ok (steps == 2 && value_is (&jp, "plan[].pass", "\"forward\"")
                  && value_is (&jp, "plan[].first", "2") && value_is (&jp, "plan[].fused", "true")
                  && value_is (&jp, "plan[].layers", "\"dense 128 relu\"") && kinds[1] != NULL
                  && strcmp (kinds[1]->value, "\"dense_update\"") == 0 && withs[1] != NULL
                  && strcmp (withs[1]->value, "\"optimizer update\"") == 0,
              "the plan: %d steps, each with its pass, kind, layers and what is fused", steps);
      tap_ok (value_is (&jp, "system.gpus", "[") && jc_find (&jp, "system.gpus[]") == NULL
              && jc_find (&jp, "system.cuda") == NULL,
              "no usable GPU here: empty gpus, no cuda");
      const JcEntry *cores = jc_find (&jp, "system.cpu.cores");
      tap_ok (cores != NULL && atoi (cores->value) >= 1, "system.cpu.cores filled");
    }
  free (jp.entries);
  free (text);

  /* A second write replaces the file in one step and leaves no temp files. */
  r.status = NN_RUN_FAILED;
  snprintf (r.error, sizeof r.error, "dense_1: out of memory\n(\"details\")");
  st = nn_result_write (&r, NULL, path, &error);
  tap_ok (st == NN_OK, "second write to the same path");
  if (tap_ok (load (path, &jp, &text), "the replaced file is valid JSON"))
    tap_ok (value_is (&jp, "status", "\"failed\"")
            && value_is (&jp, "error", "\"dense_1: out of memory\\n(\\\"details\\\")\""),
            "it holds the new status and the error message");
  free (jp.entries);
  free (text);
  tap_ok (count_temp_files (dir) == 0, "no temporary files left in the folder");

  /* Cancelled, with a custom model, a CUDA device and an SGD optimizer. */
  r.status = NN_RUN_CANCELLED;
  r.error[0] = '\0';
  r.model_name[0] = '\0';
  r.device.kind = NN_DEVICE_CUDA;
  r.device.index = 1;
  r.device.usable = true;
  snprintf (r.device.runtime, sizeof r.device.runtime, "12.4");
  snprintf (r.device.cublas, sizeof r.device.cublas, "12.4.5");
  snprintf (r.device.cudnn, sizeof r.device.cudnn, "9.1.0");
  r.config.optimizer.kind = NN_OPT_SGD;
  r.config.optimizer.momentum = 0.9f;
  r.config.optimizer.nesterov = true;
  r.epochs[1].test_loss = 0.0f / 0.0f;   /* NaN */
  free (r.plan);
  r.plan = NULL;
  r.plan_count = 0;                       /* stopped before its plan was made */
  st = nn_result_write (&r, NULL, path, &error);
  tap_ok (st == NN_OK, "third write (cancelled, CUDA, SGD, a NaN loss, no plan)");
  if (tap_ok (load (path, &jp, &text), "it is valid JSON"))
    {
      tap_ok (value_is (&jp, "plan", "[") && jc_find (&jp, "plan[]") == NULL,
              "a run without a plan has an empty one");
      tap_ok (value_is (&jp, "status", "\"cancelled\"") && jc_find (&jp, "error") == NULL
              && value_is (&jp, "model.name", "null") && value_is (&jp, "device.kind", "\"cuda\"")
              && value_is (&jp, "device.index", "1"),
              "cancelled, custom model (null name), cuda:1");
      tap_ok (value_is (&jp, "system.cuda.runtime", "\"12.4\"")
              && value_is (&jp, "system.cuda.cudnn", "\"9.1.0\""),
              "cuda versions of the run's GPU");
      tap_ok (value_is (&jp, "hyper.optimizer.name", "\"sgd\"")
              && value_is (&jp, "hyper.optimizer.momentum", "0.9")
              && value_is (&jp, "hyper.optimizer.nesterov", "true")
              && jc_find (&jp, "hyper.optimizer.beta_1") == NULL,
              "SGD's settings");
      int nulls = 0;
      for (int i = 0; i < jp.count; i++)
        if (strcmp (jp.entries[i].path, "epochs[].test_loss") == 0)
          nulls += strcmp (jp.entries[i].value, "null") == 0;
      tap_ok (nulls == 1, "a NaN loss is written as null");
    }
  free (jp.entries);
  free (text);

  nn_run_result_clear (&r);
  tap_ok (r.epochs == NULL && r.epoch_count == 0 && r.plan == NULL && r.plan_count == 0
              && r.run_id[0] == '\0',
          "nn_run_result_clear frees and zeroes");
  nn_run_result_clear (&r);   /* twice is fine */
}

/* Failures: NN_ERROR_IO naming the path; the old file stays as it was. */
static void
test_failures (void)
{
  NnRunResult r;
  NnError error;
  char dir[4096];
  char path[4200];
  size_t old_size = 0;

  fill_result (&r);
  snprintf (dir, sizeof dir, "%s", test_path ("fail"));
  snprintf (path, sizeof path, "%s" TEST_SEP "result.json", dir);
  if (!tap_ok (nn_result_write (&r, NULL, path, &error) == NN_OK, "write the old file"))
    {
      nn_run_result_clear (&r);
      return;
    }
  char *old = test_read_file (path, &old_size);
  r.status = NN_RUN_FAILED;
  snprintf (r.error, sizeof r.error, "this must not reach the disk");

#ifndef _WIN32
  /* A read-only folder stops everyone but root. (Windows' read-only flag
   * on a folder does not stop new files in it: no such case there.) */
  if (geteuid () != 0)
    {
      chmod (dir, 0500);
      nn_error_clear (&error);
      NnStatus st = nn_result_write (&r, NULL, path, &error);
      chmod (dir, 0700);
      tap_ok (st == NN_ERROR_IO && strstr (error.message, path) != NULL,
              "read-only folder: NN_ERROR_IO naming the path (%s)", error.message);
    }
  else
    tap_skip ("running as root, which may write into a 0500 folder", "read-only folder");

  /* A file larger than RLIMIT_FSIZE fails in write or flush, even for root:
   * the temporary file must go and the old file stay. */
  struct rlimit saved, small;
  getrlimit (RLIMIT_FSIZE, &saved);
  small = saved;
  small.rlim_cur = 256;
  void (*old_handler) (int) = signal (SIGXFSZ, SIG_IGN);
  if (setrlimit (RLIMIT_FSIZE, &small) == 0)
    {
      nn_error_clear (&error);
      NnStatus st = nn_result_write (&r, NULL, path, &error);
      setrlimit (RLIMIT_FSIZE, &saved);
      tap_ok (st == NN_ERROR_IO && strstr (error.message, path) != NULL,
              "write that runs out of space: NN_ERROR_IO naming the path (%s)", error.message);
      tap_ok (count_temp_files (dir) == 0, "its temporary file is removed");
    }
  else
    tap_skip ("setrlimit failed", "write that runs out of space");
  signal (SIGXFSZ, old_handler);
#endif

  /* The target is a folder: the rename fails after the temp file is written. */
  char as_dir[4300];
  snprintf (as_dir, sizeof as_dir, "%s" TEST_SEP "taken.json", dir);
  test_make_folder (as_dir);
  char inside[4400];
  snprintf (inside, sizeof inside, "%s" TEST_SEP "keep", as_dir);
  test_write_file (inside, "x", 1);   /* non-empty, so rename cannot replace it */
  nn_error_clear (&error);
  NnStatus st = nn_result_write (&r, NULL, as_dir, &error);
  tap_ok (st == NN_ERROR_IO && strstr (error.message, as_dir) != NULL,
          "target is a folder: NN_ERROR_IO (%s)", error.message);
  tap_ok (count_temp_files (dir) == 0, "no temporary file left after a failed rename");

  /* A parent that is a regular file. */
  char file_parent[4300];
  snprintf (file_parent, sizeof file_parent, "%s" TEST_SEP "plain-file", dir);
  test_write_file (file_parent, "x", 1);
  char below[4400];
  snprintf (below, sizeof below, "%s" TEST_SEP "sub" TEST_SEP "result.json", file_parent);
  nn_error_clear (&error);
  st = nn_result_write (&r, NULL, below, &error);
  tap_ok (st == NN_ERROR_IO && strstr (error.message, "plain-file") != NULL,
          "parent is a regular file: NN_ERROR_IO (%s)", error.message);

  size_t now_size = 0;
  char *now = test_read_file (path, &now_size);
  tap_ok (old != NULL && now != NULL && now_size == old_size && memcmp (old, now, old_size) == 0,
          "the old file is intact after the failures");
  tap_ok (count_temp_files (dir) == 0, "and no temporary files are left");
  free (old);
  free (now);

  nn_error_clear (&error);
  tap_ok (nn_result_write (&r, NULL, "", &error) == NN_ERROR_INVALID_ARGUMENT
          && nn_result_write (NULL, NULL, path, &error) == NN_ERROR_INVALID_ARGUMENT,
          "empty path or no result: NN_ERROR_INVALID_ARGUMENT");
  NnEpochRecord *keep = r.epochs;
  r.epochs = NULL;
  tap_ok (nn_result_write (&r, NULL, path, &error) == NN_ERROR_INVALID_ARGUMENT,
          "epoch_count without records: NN_ERROR_INVALID_ARGUMENT");
  r.epochs = keep;

  /* A caller's own system info is written as given. */
  NnSystemInfo sys;
  memset (&sys, 0, sizeof sys);
  snprintf (sys.os_name, sizeof sys.os_name, "Plan 9");
  snprintf (sys.blas_core, sizeof sys.blas_core, "Haswell");
  r.status = NN_RUN_COMPLETED;
  r.error[0] = '\0';
  JcParser jp;
  char *text = NULL;
  memset (&jp, 0, sizeof jp);
  if (tap_ok (nn_result_write (&r, &sys, path, &error) == NN_OK && load (path, &jp, &text),
              "write with the caller's system info"))
    tap_ok (value_is (&jp, "system.os.name", "\"Plan 9\"")
            && value_is (&jp, "system.blas.core", "\"Haswell\""),
            "the caller's system info is used");
  free (jp.entries);
  free (text);
  nn_run_result_clear (&r);
}

typedef struct
{
  const char *path;
  NnRunResult *result;
  int failures;
} Writer;

static void *
writer_cb (void *data)
{
  Writer *w = data;
  for (int i = 0; i < 20; i++)
    {
      NnError error;
      if (nn_result_write (w->result, NULL, w->path, &error) != NN_OK)
        w->failures++;
    }
  return NULL;
}

/* Writers racing on one path: each write lands whole, the last one wins. */
static void
test_concurrent (void)
{
  NnRunResult r;
  char dir[4096];
  char path[4200];
  pthread_t threads[4];
  Writer writers[4];

  fill_result (&r);
  snprintf (dir, sizeof dir, "%s", test_path ("race"));
  snprintf (path, sizeof path, "%s" TEST_SEP "result.json", dir);
  for (int t = 0; t < 4; t++)
    {
      writers[t] = (Writer) { path, &r, 0 };
      pthread_create (&threads[t], NULL, writer_cb, &writers[t]);
    }
  int failures = 0;
  for (int t = 0; t < 4; t++)
    {
      pthread_join (threads[t], NULL);
      failures += writers[t].failures;
    }
  tap_ok (failures == 0, "4 threads x 20 writes to one path: %d failures", failures);
  JcParser jp;
  char *text;
  tap_ok (load (path, &jp, &text), "the file they leave is valid JSON");
  free (jp.entries);
  free (text);
  tap_ok (count_temp_files (dir) == 0, "no temporary files left by the race");
  nn_run_result_clear (&r);
}

static bool
is_hex4 (const char *s)
{
  for (int i = 0; i < 4; i++)
    if (!strchr ("0123456789abcdef", s[i]) || s[i] == '\0')
      return false;
  return s[4] == '\0';
}

static void
test_run_ids (void)
{
  char id[64], at[32];
  NnDeviceInfo cuda;
  memset (&cuda, 0, sizeof cuda);
  cuda.kind = NN_DEVICE_CUDA;
  cuda.index = 1;

  nn_run_id_new ("mlp-small", NULL, id, sizeof id, at, sizeof at);
  size_t n = strlen (id);
  tap_ok (n == 16 + 1 + 9 + 1 + 3 + 1 + 4 && id[8] == 'T' && id[15] == 'Z'
          && strstr (id, "Z-mlp-small-cpu-") == id + 15 && is_hex4 (id + n - 4),
          "run id shape: %s", id);
  tap_ok (strlen (at) == 20 && at[4] == '-' && at[10] == 'T' && at[19] == 'Z'
          && memcmp (at, id, 4) == 0,
          "started_at is UTC ISO 8601: %s", at);

  nn_run_id_new ("My Model/\xce\xb2 2!", &cuda, id, sizeof id, NULL, 0);
  tap_ok (strstr (id, "Z-my-model-2-cuda1-") != NULL, "name sanitised, cuda device: %s", id);
  nn_run_id_new (NULL, NULL, id, sizeof id, NULL, 0);
  tap_ok (strstr (id, "Z-custom-cpu-") != NULL, "no name: custom (%s)", id);
  nn_run_id_new ("---", NULL, id, sizeof id, NULL, 0);
  tap_ok (strstr (id, "Z-custom-cpu-") != NULL, "a name of only symbols: custom (%s)", id);
  nn_run_id_new ("a-very-long-model-name-that-goes-on-and-on-and-on-forever", &cuda, id,
                 sizeof id, NULL, 0);
  tap_ok (strlen (id) < sizeof id && strstr (id, "-cuda1-") != NULL, "a long name is cut: %s", id);
  char tiny[8];
  nn_run_id_new ("mlp", NULL, tiny, sizeof tiny, NULL, 0);
  tap_ok (strlen (tiny) == 7, "a small buffer is filled, not overrun");

  /* 2000 ids in one process (mostly in one second) are all different. */
  enum { N = 2000 };
  static char ids[N][64];
  for (int i = 0; i < N; i++)
    nn_run_id_new ("mlp-small", NULL, ids[i], sizeof ids[i], NULL, 0);
  int dup = 0;
  for (int i = 0; i < N; i++)
    for (int k = i + 1; k < N; k++)
      dup += strcmp (ids[i], ids[k]) == 0;
  tap_ok (dup == 0, "%d run ids, %d duplicates", N, dup);
}

/* Restores a variable when the test is done with it. */
typedef struct
{
  const char *name;
  char value[4096];
  bool set;
} SavedEnv;

static void
save_env (SavedEnv *saved, const char *name)
{
  const char *value = test_getenv (name);
  saved->name = name;
  saved->set = value != NULL;
  snprintf (saved->value, sizeof saved->value, "%s", value != NULL ? value : "");
}

static void
restore_env (const SavedEnv *saved)
{
  test_setenv (saved->name, saved->set ? saved->value : NULL);
}

static void
test_runs_dir (void)
{
  char out[4096];
  SavedEnv saved[4];
  save_env (&saved[0], "HOME");
  save_env (&saved[1], "XDG_DATA_HOME");
  save_env (&saved[2], "LOCALAPPDATA");
  save_env (&saved[3], "USERPROFILE");

#ifdef _WIN32
  /* %LOCALAPPDATA%\Trainbench; an absolute XDG_DATA_HOME first, as GLib
   * has it on Windows, so the app and the engine agree */
  test_setenv ("XDG_DATA_HOME", NULL);
  test_setenv ("LOCALAPPDATA", "C:\\Users\\u\\AppData\\Local");
  nn_runs_dir (out, sizeof out);
  tap_ok (strcmp (out, "C:\\Users\\u\\AppData\\Local\\Trainbench\\runs") == 0,
          "LOCALAPPDATA: %s", out);
  test_setenv ("XDG_DATA_HOME", "D:\\data\\x");
  nn_runs_dir (out, sizeof out);
  tap_ok (strcmp (out, "D:\\data\\x\\trainbench\\runs") == 0, "XDG_DATA_HOME: %s", out);
  test_setenv ("XDG_DATA_HOME", "relative");
  nn_runs_dir (out, sizeof out);
  tap_ok (strcmp (out, "C:\\Users\\u\\AppData\\Local\\Trainbench\\runs") == 0,
          "relative XDG_DATA_HOME ignored: %s", out);
  test_setenv ("XDG_DATA_HOME", NULL);
  test_setenv ("LOCALAPPDATA", NULL);
  test_setenv ("USERPROFILE", "C:\\Users\\v");
  nn_runs_dir (out, sizeof out);
  tap_ok (strcmp (out, "C:\\Users\\v\\AppData\\Local\\Trainbench\\runs") == 0,
          "no LOCALAPPDATA: below USERPROFILE: %s", out);

  /* A fresh machine: the runs folder does not exist yet, nor its parent;
   * making it and writing a result there works (it did not: the CLI's
   * mkdir -p split on '/' only). */
  char local[4096];
  snprintf (local, sizeof local, "%s", test_path ("fresh\\AppData\\Local"));
  test_setenv ("LOCALAPPDATA", local);
  nn_runs_dir (out, sizeof out);
  NnError error;
  nn_error_clear (&error);
  NnStatus st = nn_folder_create (out, &error);
  tap_ok (st == NN_OK && test_is_folder (out), "a fresh runs folder is made: %s (%s)", out,
          error.message);
  NnRunResult r;
  char path[4200];
  fill_result (&r);
  snprintf (path, sizeof path, "%s\\%s.json", out, r.run_id);
  tap_ok (nn_result_write (&r, NULL, path, &error) == NN_OK && test_exists (path),
          "a result is written into it (%s)", error.message);
  nn_run_result_clear (&r);
#else
  test_setenv ("XDG_DATA_HOME", "/data/x");
  nn_runs_dir (out, sizeof out);
  tap_ok (strcmp (out, "/data/x/trainbench/runs") == 0, "XDG_DATA_HOME: %s", out);
  test_setenv ("XDG_DATA_HOME", "relative");
  test_setenv ("HOME", "/home/u");
  nn_runs_dir (out, sizeof out);
  tap_ok (strcmp (out, "/home/u/.local/share/trainbench/runs") == 0,
          "relative XDG_DATA_HOME ignored: %s", out);
  test_setenv ("XDG_DATA_HOME", NULL);
  nn_runs_dir (out, sizeof out);
  tap_ok (strcmp (out, "/home/u/.local/share/trainbench/runs") == 0, "HOME: %s", out);
  test_setenv ("HOME", NULL);
  nn_runs_dir (out, sizeof out);
  tap_ok (strstr (out, "/.local/share/trainbench/runs") != NULL, "no HOME: from passwd: %s", out);
#endif

  for (int i = 0; i < 4; i++)
    restore_env (&saved[i]);
}

/* mkdir -p: every missing parent; on Windows '\' and '/' both separate; a
 * failure names the folder that could not be made. */
static void
test_folders (void)
{
  NnError error;
  char path[4096], inner[4200];

#ifdef _WIN32
  snprintf (path, sizeof path, "%s", test_tmpdir ());
  snprintf (path + strlen (path), sizeof path - strlen (path), "\\mk\\a/b\\\\c\\");
  snprintf (inner, sizeof inner, "%s", test_path ("mk/a/b/c"));
  nn_error_clear (&error);
  tap_ok (nn_folder_create (path, &error) == NN_OK && test_is_folder (inner),
          "mkdir -p with backslashes, slashes, a doubled and a trailing one: %s (%s)", inner,
          error.message);
#else
  snprintf (path, sizeof path, "%s", test_path ("mk/a//b/c/"));
  snprintf (inner, sizeof inner, "%s", test_path ("mk/a/b/c"));
  nn_error_clear (&error);
  tap_ok (nn_folder_create (path, &error) == NN_OK && test_is_folder (inner),
          "mkdir -p with a doubled and a trailing slash: %s (%s)", inner, error.message);
#endif
  tap_ok (nn_folder_create (inner, &error) == NN_OK, "mkdir -p of a folder that exists");

  /* a file in the way: the message names it, not the whole path */
  char blocker[4200], below[4300];
  snprintf (blocker, sizeof blocker, "%s", test_path ("mk/file"));
  test_write_file (blocker, "x", 1);
  snprintf (below, sizeof below, "%s" TEST_SEP "x" TEST_SEP "y", blocker);
  nn_error_clear (&error);
  NnStatus st = nn_folder_create (below, &error);
  char named[4300];
  snprintf (named, sizeof named, "%s: ", blocker);
  tap_ok (st == NN_ERROR_IO && strncmp (error.message, named, strlen (named)) == 0,
          "a file in the way is named: %s", error.message);
  tap_ok (nn_folder_create ("", &error) == NN_ERROR_INVALID_ARGUMENT, "an empty name is refused");

  char joined[64];
  tap_ok (nn_path_join (joined, sizeof joined, "runs", "a.json")
            && strcmp (joined, "runs" TEST_SEP "a.json") == 0,
          "nn_path_join uses the system's separator: %s", joined);
  tap_ok (nn_path_join (joined, sizeof joined, "runs" TEST_SEP, "a.json")
            && strcmp (joined, "runs" TEST_SEP "a.json") == 0,
          "and adds none after one: %s", joined);
  tap_ok (!nn_path_join (joined, 8, "runs", "a.json") && joined[0] == '\0',
          "a join that does not fit gives \"\"");
}

/* Is `name` one Windows keeps for a device (with any extension, in any
 * case), written out here from Microsoft's list rather than shared with the
 * engine's check? */
static bool
reserved_on_windows (const char *name)
{
  static const char *const devices[] = {
    "CON", "PRN", "AUX", "NUL", "COM0", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7",
    "COM8", "COM9", "LPT0", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
  };
  size_t stem = strcspn (name, ".");

  for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++)
    if (stem == strlen (devices[i]))
      {
        bool same = true;
        for (size_t k = 0; k < stem && same; k++)
          same = (name[k] & ~0x20) == devices[i][k];
        if (same)
          return true;
      }
  return false;
}

static const char *
base_of (const char *path)
{
  const char *base = path;
  for (const char *p = path; *p != '\0'; p++)
    if (*p == '/' || *p == '\\')
      base = p + 1;
  return base;
}

/* A name every file system takes: no character Windows refuses (nor a
 * separator or control character), no trailing dot or space, not hidden. */
static bool
plain_name (const char *name)
{
  size_t n = strlen (name);

  if (n == 0 || n > 255 || name[0] == '.' || name[n - 1] == '.' || name[n - 1] == ' ')
    return false;
  for (size_t i = 0; i < n; i++)
    if ((unsigned char) name[i] < 0x20 || (unsigned char) name[i] >= 0x7f
        || strchr ("<>:\"/\\|?* ", name[i]) != NULL)
      return false;
  return true;
}

/* Run ids from other people's files name the files they are imported as:
 * a run whose id is NUL, CON, AUX or PRN went to a device on Windows (listed
 * as imported, stored nowhere). Every id becomes a plain name of its own. */
static void
test_file_names (void)
{
  static const char *const hostile[] = {
    "NUL", "CON", "AUX", "PRN", "nul", "Con", "aUx", "prn.txt", "NUL.json", "COM1", "com9", "LPT1",
    "lpt9", "COM0", "LPT0", "nul.", "CON.", "AUX..", "PRN .x", "NUL ", "a.", "a ", "a. . .",
    "..", ".", "", ".hidden", "a/b", "..\\..\\evil", "C:\\x", "a<b>c:d\"e|f?g*h",
    "tab\there", "new\nline", "\x7f", "\xce\xb2 beta",
  };
  char names[sizeof hostile / sizeof hostile[0]][NN_FILE_NAME_MAX];
  char name[NN_FILE_NAME_MAX];
  int bad = 0;

  for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++)
    {
      if (!nn_file_name_from_id (hostile[i], ".json", names[i], sizeof names[i])
          || !plain_name (names[i]) || reserved_on_windows (names[i])
          || strcmp (names[i] + strlen (names[i]) - 5, ".json") != 0)
        {
          tap_diag ("id \"%s\" -> \"%s\"", hostile[i], names[i]);
          bad++;
        }
    }
  tap_ok (bad == 0, "%d hostile ids make plain names that Windows keeps for no device",
          (int) (sizeof hostile / sizeof hostile[0]));
  tap_ok (strcmp (names[0], names[1]) != 0 && strcmp (names[0], names[2]) != 0
            && strcmp (names[0], names[3]) != 0 && strcmp (names[1], names[2]) != 0
            && strcmp (names[1], names[3]) != 0 && strcmp (names[2], names[3]) != 0,
          "NUL, CON, AUX and PRN are four files: %s %s %s %s", names[0], names[1], names[2],
          names[3]);
  /* without an extension too */
  tap_ok (nn_file_name_from_id ("nul", "", name, sizeof name) && plain_name (name)
            && !reserved_on_windows (name),
          "\"nul\" without an extension: %s", name);
  tap_ok (nn_file_name_from_id ("x..", "", name, sizeof name) && plain_name (name),
          "no trailing dot without an extension: %s", name);

  /* the engine's own ids are their names */
  char id[64];
  nn_run_id_new ("mlp-small", NULL, id, sizeof id, NULL, 0);
  char want[80];
  snprintf (want, sizeof want, "%s.json", id);
  tap_ok (nn_file_name_from_id (id, ".json", name, sizeof name) && strcmp (name, want) == 0,
          "an engine run id is kept: %s", name);
  tap_ok (nn_file_name_from_id ("NULL-model", ".json", name, sizeof name)
            && strcmp (name, "NULL-model.json") == 0
            && nn_file_name_from_id ("console", ".json", name, sizeof name)
            && strcmp (name, "console.json") == 0,
          "names that only start like a device are kept");

  /* long ids: the start kept, a hash apart */
  char long_a[400], long_b[400];
  memset (long_a, 'x', sizeof long_a - 1);
  long_a[sizeof long_a - 1] = '\0';
  memcpy (long_b, long_a, sizeof long_b);
  long_b[300] = 'y';
  char name_b[NN_FILE_NAME_MAX];
  tap_ok (nn_file_name_from_id (long_a, ".json", name, sizeof name)
            && nn_file_name_from_id (long_b, ".json", name_b, sizeof name_b)
            && strcmp (name, name_b) != 0 && strlen (name) <= 96 + 1 + 16 + 5
            && strncmp (name, long_a, 96) == 0 && plain_name (name),
          "two long ids with one start are two names: %s", name);
  tap_ok (!nn_file_name_from_id ("a", ".json", name, 16) && name[0] == '\0',
          "a buffer too small gives \"\"");

  /* the result of a run whose id is a device name is a file of its own */
  NnRunResult r;
  NnError error;
  char dir[4096], path[4200];
  snprintf (dir, sizeof dir, "%s", test_path ("runs-devices"));
  fill_result (&r);
  snprintf (r.run_id, sizeof r.run_id, "NUL");
  nn_error_clear (&error);
  NnStatus st = nn_result_write_new (&r, NULL, dir, path, sizeof path, &error);
  size_t size = 0;
  char *text = st == NN_OK ? test_read_file (path, &size) : NULL;
  tap_ok (st == NN_OK && !reserved_on_windows (base_of (path)) && text != NULL
            && size > 0,
          "a result whose id is NUL is written to a file: %s (%s)", path, error.message);
  free (text);
  nn_run_result_clear (&r);
}

/* A result, its folder and the data set around it under a name that is not
 * ASCII (a user called 张伟): written, replaced and read back. */
static void
test_unicode_names (void)
{
  NnRunResult r;
  NnError error;
  char dir[4096], path[4200];
  JcParser jp;
  char *text = NULL;

  snprintf (dir, sizeof dir, "%s", test_path ("\xe5\xbc\xa0\xe4\xbc\x9f/runs"));   /* 张伟 */
  snprintf (path, sizeof path, "%s" TEST_SEP "r\xc3\xa9sultat.json", dir);
  fill_result (&r);
  snprintf (r.dataset_path, sizeof r.dataset_path, "%s", dir);
  nn_error_clear (&error);
  tap_ok (nn_result_write (&r, NULL, path, &error) == NN_OK, "write %s (%s)", path,
          error.message);
  tap_ok (nn_result_write (&r, NULL, path, &error) == NN_OK, "and replace it (%s)",
          error.message);
  if (tap_ok (load (path, &jp, &text), "it reads back as JSON"))
    tap_ok (strstr (text, "\xe5\xbc\xa0\xe4\xbc\x9f") != NULL, "the name is kept as UTF-8");
  free (jp.entries);
  free (text);
  tap_ok (count_temp_files (dir) == 0, "no temporary files left there");
  nn_run_result_clear (&r);
}

typedef struct
{
  const char *path;
  double hold_seconds;
  bool opened;
} Reader;

static void *
reader_cb (void *data)
{
  Reader *reader = data;
  FILE *f = test_fopen (reader->path, "rb");   /* msvcrt's fopen: no delete sharing */
  reader->opened = f != NULL;
  if (f != NULL)
    {
      test_sleep (reader->hold_seconds);
      fclose (f);
    }
  return NULL;
}

/* A reader holds the target open (on Windows that blocks a replace): the
 * write waits for it and succeeds. */
static void
test_replace_while_read (void)
{
  NnRunResult r;
  NnError error;
  char path[4200];
  Reader reader;
  pthread_t thread;

  fill_result (&r);
  snprintf (path, sizeof path, "%s", test_path ("held/result.json"));
  nn_result_write (&r, NULL, path, &error);
  reader = (Reader) { path, 0.3, false };
  pthread_create (&thread, NULL, reader_cb, &reader);
  test_sleep (0.05);
  r.status = NN_RUN_CANCELLED;
  nn_error_clear (&error);
  NnStatus st = nn_result_write (&r, NULL, path, &error);
  pthread_join (thread, NULL);
  JcParser jp;
  char *text = NULL;
  memset (&jp, 0, sizeof jp);
  tap_ok (reader.opened && st == NN_OK && load (path, &jp, &text)
            && value_is (&jp, "status", "\"cancelled\""),
          "a replace while a reader holds the file succeeds (%s)", error.message);
  free (jp.entries);
  free (text);
  nn_run_result_clear (&r);
}

#ifndef _WIN32
/* What a name is now, without following a link. */
static mode_t
lmode (const char *path)
{
  struct stat st;
  return lstat (path, &st) == 0 ? st.st_mode & S_IFMT : 0;
}

typedef struct
{
  int fd;               /* the FIFO's read end, opened without waiting */
  char data[1 << 16];
  size_t size;
} FifoReader;

/* Reads what a writer sends until it closes, for at most 10 s. */
static void *
fifo_reader_cb (void *data)
{
  FifoReader *r = data;
  bool heard = false;
  for (int i = 0; i < 100; i++)
    {
      struct pollfd p = { r->fd, POLLIN, 0 };
      if (poll (&p, 1, 100) <= 0)
        continue;
      ssize_t got = read (r->fd, r->data + r->size, sizeof r->data - 1 - r->size);
      if (got > 0)
        {
          r->size += (size_t) got;
          heard = true;
        }
      else if (got == 0 && heard)
        break;   /* the writer closed */
      else if (got == 0)
        test_sleep (0.05);   /* no writer yet */
    }
  r->data[r->size] = '\0';
  return NULL;
}
#endif

typedef struct
{
  const char *dir;
  const char *run_id;
  int failures;
  char paths[20][4200];
} NewWriter;

static void *
new_writer_cb (void *data)
{
  NewWriter *w = data;
  NnRunResult r;
  fill_result (&r);
  for (int i = 0; i < 20; i++)
    {
      NnError error;
      snprintf (r.run_id, sizeof r.run_id, "%s", w->run_id);
      if (nn_result_write_new (&r, NULL, w->dir, w->paths[i], sizeof w->paths[i], &error) != NN_OK)
        w->failures++;
    }
  nn_run_result_clear (&r);
  return NULL;
}

/* Results in a runs folder are new files: a run whose id is taken (two
 * runs drew the same id in the same second) gets another id and never
 * replaces the other's file. */
static void
test_new_files (void)
{
  NnRunResult r, twin;
  NnError error;
  char dir[4096], first[4200], second[4200];
  char id[64];

  snprintf (dir, sizeof dir, "%s", test_path ("runs-new"));
  fill_result (&r);
  snprintf (id, sizeof id, "%s", r.run_id);
  nn_error_clear (&error);
  NnStatus st = nn_result_write_new (&r, NULL, dir, first, sizeof first, &error);
  char want[4200];
  snprintf (want, sizeof want, "%s" TEST_SEP "%s.json", dir, id);
  tap_ok (st == NN_OK && strcmp (first, want) == 0 && strcmp (r.run_id, id) == 0,
          "a new result is FOLDER/RUN_ID.json, the folder made (%s)", error.message);
  size_t first_size = 0;
  char *before = test_read_file (first, &first_size);

  fill_result (&twin);
  snprintf (twin.run_id, sizeof twin.run_id, "%s", id);
  twin.status = NN_RUN_FAILED;
  snprintf (twin.error, sizeof twin.error, "the other run");
  nn_error_clear (&error);
  st = nn_result_write_new (&twin, NULL, dir, second, sizeof second, &error);
  size_t after_size = 0;
  char *after = test_read_file (first, &after_size);
  tap_ok (st == NN_OK && strcmp (second, first) != 0 && strcmp (twin.run_id, id) != 0
            && strncmp (twin.run_id, id, strlen (id) - 4) == 0,
          "a run with the same id gets another one: %s (%s)", twin.run_id, error.message);
  tap_ok (before != NULL && after != NULL && first_size == after_size
            && memcmp (before, after, first_size) == 0,
          "and the first run's file is untouched");
  JcParser jp;
  char *text = NULL;
  char quoted[80];
  snprintf (quoted, sizeof quoted, "\"%s\"", twin.run_id);
  snprintf (want, sizeof want, "%s" TEST_SEP "%s.json", dir, twin.run_id);
  tap_ok (strcmp (second, want) == 0 && load (second, &jp, &text)
            && value_is (&jp, "run_id", quoted),
          "the second file is named after its new id, which it records");
  free (jp.entries);
  free (text);
  free (before);
  free (after);

#ifndef _WIN32
  /* a link that has the name is taken as a taken name, never followed */
  char link[4200], aim[4200];
  nn_run_result_clear (&twin);
  fill_result (&twin);
  snprintf (link, sizeof link, "%s" TEST_SEP "%s.json", dir, twin.run_id);
  snprintf (aim, sizeof aim, "%s" TEST_SEP "aim", dir);
  test_write_file (aim, "aim", 3);
  symlink ("aim", link);
  nn_error_clear (&error);
  st = nn_result_write_new (&twin, NULL, dir, second, sizeof second, &error);
  text = test_read_file (aim, &after_size);
  tap_ok (st == NN_OK && strcmp (second, link) != 0 && text != NULL && after_size == 3,
          "a link with the run's name is not followed: %s (%s)", second, error.message);
  free (text);
  nn_run_result_clear (&twin);
#endif

  /* 4 threads x 20 results, all with one id: 80 files, none replaced */
  char race[4096];
  snprintf (race, sizeof race, "%s", test_path ("runs-race"));
  pthread_t threads[4];
  NewWriter *writers = calloc (4, sizeof *writers);
  for (int t = 0; t < 4; t++)
    {
      writers[t].dir = race;
      writers[t].run_id = id;
      pthread_create (&threads[t], NULL, new_writer_cb, &writers[t]);
    }
  int failures = 0;
  for (int t = 0; t < 4; t++)
    {
      pthread_join (threads[t], NULL);
      failures += writers[t].failures;
    }
  int files = test_count_names (race, ".json");
  tap_ok (failures == 0 && files == 80 && count_temp_files (race) == 0,
          "4 threads x 20 results with one id: %d failures, %d files", failures, files);
  free (writers);
  nn_run_result_clear (&r);
  nn_run_result_clear (&twin);
}

/* Targets that are no regular file: a link is followed (the file it names
 * is replaced, the link stays), a device or a FIFO is written through, never
 * replaced, and a disk, a socket, a FIFO that nothing reads or a loop of
 * links is refused. */
static void
test_special_targets (void)
{
  NnRunResult r;
  NnError error;
  NnStatus st;

  fill_result (&r);
#ifndef _WIN32
  char dir[4096], real[4200], link[4200], other[4200];
  snprintf (dir, sizeof dir, "%s", test_path ("special"));
  test_make_folder (dir);

  /* a link to an existing file, and one to a file not there yet */
  snprintf (real, sizeof real, "%s/real.json", dir);
  snprintf (link, sizeof link, "%s/link.json", dir);
  test_write_file (real, "old", 3);
  symlink ("real.json", link);
  nn_error_clear (&error);
  st = nn_result_write (&r, NULL, link, &error);
  size_t size = 0;
  char *text = test_read_file (real, &size);
  tap_ok (st == NN_OK && lmode (link) == S_IFLNK && lmode (real) == S_IFREG && text != NULL
            && size > 3 && text[0] == '{',
          "a link: the file it names gets the result, the link stays a link (%s)",
          error.message);
  free (text);
  snprintf (other, sizeof other, "%s/dangling.json", dir);
  symlink ("not-yet.json", other);
  nn_error_clear (&error);
  st = nn_result_write (&r, NULL, other, &error);
  snprintf (real, sizeof real, "%s/not-yet.json", dir);
  tap_ok (st == NN_OK && lmode (other) == S_IFLNK && lmode (real) == S_IFREG,
          "a dangling link: the file it names is created, the link stays (%s)", error.message);
  tap_ok (count_temp_files (dir) == 0, "no temporary files left beside the links");

  /* a loop of links */
  snprintf (other, sizeof other, "%s/loop.json", dir);
  symlink ("loop.json", other);
  nn_error_clear (&error);
  st = nn_result_write (&r, NULL, other, &error);
  tap_ok (st == NN_ERROR_IO && strstr (error.message, "symbolic links") != NULL
            && lmode (other) == S_IFLNK,
          "a loop of links is refused as that and left alone: %s", error.message);

  /* a FIFO that something reads: the result goes through it */
  snprintf (other, sizeof other, "%s/fifo", dir);
  mkfifo (other, 0600);
  FifoReader *reader = calloc (1, sizeof *reader);
  pthread_t thread;
  reader->fd = open (other, O_RDONLY | O_NONBLOCK);
  pthread_create (&thread, NULL, fifo_reader_cb, reader);
  nn_error_clear (&error);
  st = nn_result_write (&r, NULL, other, &error);
  pthread_join (thread, NULL);
  tap_ok (st == NN_OK && lmode (other) == S_IFIFO && strstr (reader->data, "\"schema\"") != NULL,
          "a FIFO with a reader: written through, still a FIFO (%s; %zu bytes read)",
          error.message, reader->size);
  close (reader->fd);
  free (reader);

  /* a FIFO that nothing reads: refused at once, not waited on, not replaced */
  nn_error_clear (&error);
  alarm (20);
  st = nn_result_write (&r, NULL, other, &error);
  alarm (0);
  tap_ok (st == NN_ERROR_IO && strstr (error.message, "nothing reads") != NULL
            && lmode (other) == S_IFIFO,
          "a FIFO that nothing reads is refused and stays: %s", error.message);

  /* a socket */
  snprintf (other, sizeof other, "%s/sock", dir);
  int sock = socket (AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr;
  memset (&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  if (strlen (other) < sizeof addr.sun_path)
    memcpy (addr.sun_path, other, strlen (other) + 1);
  if (sock >= 0 && strlen (other) < sizeof addr.sun_path
      && bind (sock, (struct sockaddr *) &addr, sizeof addr) == 0)
    {
      nn_error_clear (&error);
      st = nn_result_write (&r, NULL, other, &error);
      tap_ok (st == NN_ERROR_IO && strstr (error.message, "socket") != NULL
                && lmode (other) == S_IFSOCK,
              "a socket is refused and stays: %s", error.message);
    }
  else
    tap_skip ("no Unix socket could be made here", "a socket is refused");
  if (sock >= 0)
    close (sock);

  /* device nodes of its own (root may make them; /dev/null is never
   * touched): a character device is written through, a disk refused */
  if (geteuid () == 0)
    {
      snprintf (other, sizeof other, "%s/null", dir);
      snprintf (real, sizeof real, "%s/disk", dir);
      if (mknod (other, S_IFCHR | 0666, makedev (1, 3)) == 0
          && mknod (real, S_IFBLK | 0600, makedev (7, 250)) == 0)
        {
          nn_error_clear (&error);
          st = nn_result_write (&r, NULL, other, &error);
          tap_ok (st == NN_OK && lmode (other) == S_IFCHR,
                  "a character device (a null device): written through, still a device (%s)",
                  error.message);
          nn_error_clear (&error);
          st = nn_result_write (&r, NULL, real, &error);
          tap_ok (st == NN_ERROR_IO && strstr (error.message, "block device") != NULL
                    && lmode (real) == S_IFBLK,
                  "a block device is refused and stays: %s", error.message);
        }
      else
        tap_skip ("mknod failed here", "device nodes");
    }
  else
    tap_skip ("device nodes need root", "device nodes");
#else
  /* NUL is the device that drops what it is given, in every folder */
  nn_error_clear (&error);
  st = nn_result_write (&r, NULL, "NUL", &error);
  tap_ok (st == NN_OK, "NUL: written through (%s)", error.message);
  char nul[4200];
  snprintf (nul, sizeof nul, "%s\\nul.json", test_tmpdir ());
  nn_error_clear (&error);
  st = nn_result_write (&r, NULL, nul, &error);
  tap_ok (st == NN_OK && count_temp_files (test_tmpdir ()) == 0,
          "nul.json in a folder: written (%s), no temporary file left", error.message);
#endif
  nn_run_result_clear (&r);
}

/* The one definition of seconds per epoch: the median, so a slow first
 * epoch (its warm-up) does not move it as it moves a mean. */
static void
test_seconds_per_epoch (void)
{
  double warm[] = { 12.0, 9.0, 10.0 };          /* mean 10.33 */
  double even[] = { 9.0, 20.0, 10.0, 9.5 };     /* mean 12.13 */
  double gaps[] = { NAN, 4.0, INFINITY, 2.0, 3.0 };
  double none[] = { NAN };
  double one[] = { 7.25 };
  NnEpochRecord epochs[5];
  NnRunResult r;

  tap_close (nn_seconds_per_epoch (warm, 3), 10.0, 0, 1e-12,
             "seconds per epoch of 12, 9, 10 s is their median, 10 s, not the mean");
  tap_close (nn_seconds_per_epoch (even, 4), 9.75, 0, 1e-12,
             "of an even count, the mean of the middle two (9.5 and 10 s)");
  tap_close (nn_seconds_per_epoch (gaps, 5), 3.0, 0, 1e-12,
             "epochs without a finite time are left out");
  tap_close (nn_seconds_per_epoch (one, 1), 7.25, 0, 1e-12, "one epoch: its time");
  tap_ok (isnan (nn_seconds_per_epoch (none, 1)) && isnan (nn_seconds_per_epoch (NULL, 0))
          && isnan (nn_seconds_per_epoch (one, 0)),
          "no epoch with a time: NAN");

  memset (&r, 0, sizeof r);
  memset (epochs, 0, sizeof epochs);
  tap_ok (isnan (nn_run_result_seconds_per_epoch (&r)) && isnan (nn_run_result_seconds_per_epoch (NULL)),
          "a run that finished no epoch has no seconds per epoch");
  epochs[0].seconds = 14.5;   /* warm-up */
  epochs[1].seconds = 10.75;
  epochs[2].seconds = 10.25;
  epochs[3].seconds = 11.0;
  epochs[4].seconds = 10.5;
  r.epochs = epochs;
  r.epoch_count = 5;
  tap_close (nn_run_result_seconds_per_epoch (&r), 10.75, 0, 1e-12,
             "a run's seconds per epoch is the median of its epochs' times (10.75 s, the mean is 11.4 s)");
  tap_ok (epochs[0].seconds == 14.5 && epochs[4].seconds == 10.5,
          "the run's epochs are left as they were");
}

/* NnFileWriter, what the app's exports are written with: contents in
 * pieces, put in place whole; a writer given up leaves the old file; a
 * link is followed and stays; a FIFO that nothing reads is refused when
 * the writer opens, before anything is made. */
static void
test_file_writer (void)
{
  char dir[4096], path[4200], link[4200];
  NnFileWriter *writer = NULL;
  NnError error;
  size_t size = 0;
  char *text;

  snprintf (dir, sizeof dir, "%s", test_path ("writer"));
  test_make_folder (dir);
  snprintf (path, sizeof path, "%s" TEST_SEP "out.csv", dir);
  test_write_file (path, "old", 3);

  nn_error_clear (&error);
  NnStatus st = nn_file_writer_open (path, &writer, &error);
  bool wrote = st == NN_OK && nn_file_writer_write (writer, "a,b\n", 4)
               && nn_file_writer_write (writer, "", 0) && nn_file_writer_write (writer, "1,2\n", 4);
  text = test_read_file (path, &size);
  tap_ok (wrote && text != NULL && strcmp (text, "old") == 0,
          "a writer's pieces are not in the file before the commit");
  free (text);
  st = writer != NULL ? nn_file_writer_commit (writer, &error) : st;
  text = test_read_file (path, &size);
  tap_ok (st == NN_OK && text != NULL && strcmp (text, "a,b\n1,2\n") == 0
            && count_temp_files (dir) == 0,
          "committed: the file holds every piece, no temporary file left (%s)", error.message);
  free (text);

  nn_error_clear (&error);
  st = nn_file_writer_open (path, &writer, &error);
  if (st == NN_OK)
    {
      nn_file_writer_write (writer, "new", 3);
      nn_file_writer_abort (writer);
    }
  text = test_read_file (path, &size);
  tap_ok (st == NN_OK && text != NULL && strcmp (text, "a,b\n1,2\n") == 0
            && count_temp_files (dir) == 0,
          "given up: the old file as it was, no temporary file left");
  free (text);
  nn_file_writer_abort (NULL);

  nn_error_clear (&error);
  snprintf (link, sizeof link, "%s" TEST_SEP "missing" TEST_SEP "out.csv", dir);
  st = nn_file_writer_open (link, &writer, &error);
  tap_ok (st == NN_ERROR_IO && writer == NULL && strstr (error.message, link) != NULL,
          "a folder that is not there is not made: %s", error.message);

  nn_error_clear (&error);
  st = nn_file_write (path, "x", 1, &error);
  text = test_read_file (path, &size);
  tap_ok (st == NN_OK && text != NULL && strcmp (text, "x") == 0, "nn_file_write: the contents in one");
  free (text);

#ifndef _WIN32
  snprintf (link, sizeof link, "%s" TEST_SEP "link.csv", dir);
  symlink ("out.csv", link);
  nn_error_clear (&error);
  st = nn_file_write (link, "y", 1, &error);
  text = test_read_file (path, &size);
  tap_ok (st == NN_OK && lmode (link) == S_IFLNK && text != NULL && strcmp (text, "y") == 0,
          "a link: the file it names is written, the link stays (%s)", error.message);
  free (text);

  snprintf (link, sizeof link, "%s" TEST_SEP "fifo.csv", dir);
  mkfifo (link, 0600);
  nn_error_clear (&error);
  alarm (20);
  st = nn_file_writer_open (link, &writer, &error);
  alarm (0);
  tap_ok (st == NN_ERROR_IO && writer == NULL && strstr (error.message, "nothing reads") != NULL
            && lmode (link) == S_IFIFO,
          "a FIFO that nothing reads: refused at once, still a FIFO: %s", error.message);
#endif
}

int
main (void)
{
  test_isolate_home ();
  test_seconds_per_epoch ();
  test_write_and_schema ();
  test_failures ();
  test_concurrent ();
  test_special_targets ();
  test_file_writer ();
  test_new_files ();
  test_replace_while_read ();
  test_run_ids ();
  test_runs_dir ();
  test_folders ();
  test_file_names ();
  test_unicode_names ();
  return tap_done ();
}
