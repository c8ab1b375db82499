/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-sweep.c: sweeps (nn-sweep.c): templates and their placeholders, the
 * errors and bounds of a request and the field each names, the families'
 * default grids, the grid's order, the files a sweep writes (sweep.json
 * with every field of its format, a result file per point), a device that
 * cannot run, a cancel that keeps the points done, a disk that fills while
 * a sweep runs (Linux: a small tmpfs in a private mount namespace), and the
 * crossover (nn-sweep-crossover.c).
 */

#ifdef __linux__
#define _GNU_SOURCE /* unshare, CLONE_NEWNS */
#include <errno.h>
#include <sched.h>
#include <sys/mount.h>
#include <unistd.h>
#endif

#include "test-util.h"
#include "json-check.h"
#include "nn-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static NnDataset *data; /* 256 training images (1, 8, 8) of 4 classes */

static bool
has (const char *text, const char *part)
{
  return text != NULL && strstr (text, part) != NULL;
}

static void
axis (NnSweepRequest *request, const char *text)
{
  NnError error = { 0 };
  if (nn_sweep_axis_parse (text, &request->axes[request->axis_count], &error) == NN_OK)
    request->axis_count++;
  else
    tap_ok (false, "axis %s parses: %s", text, error.message);
}

static void
device (NnSweepRequest *request, const char *text)
{
  snprintf (request->devices[request->device_count++], sizeof request->devices[0], "%s", text);
}

/* A small CPU sweep over the test data set. */
static void
request_for (NnSweepRequest *request, const char *folder)
{
  nn_sweep_request_init (request);
  request->dataset = data;
  request->dataset_name = NULL;
  request->runs_folder = folder;
  request->steps = 4;
  request->warmup_steps = 2;
  request->config.device.threads = 2;
}

/* The field nn_sweep_new's last error named (new_error's). */
static NnField last_field;

/* The sweep's new error for a request; "" when it made a sweep. */
static const char *
new_error (const NnSweepRequest *request, NnStatus *status_out)
{
  static NnError error;
  NnSweep *sweep = NULL;
  NnStatus status;

  nn_error_clear (&error);
  status = nn_sweep_new (request, &sweep, &error);
  if (status_out != NULL)
    *status_out = status;
  nn_sweep_free (sweep);
  sweep = NULL;
  last_field = error.field;
  return status == NN_OK ? "" : error.message;
}

/* An error of nn_sweep_new that names `part` and the request's `field`. */
static void
field_check (const NnSweepRequest *request, const char *part, NnField field, const char *what)
{
  const char *message = new_error (request, NULL);

  tap_ok (has (message, part) && last_field == field, "%s: field %d (want %d): %s", what,
          (int) last_field, (int) field, message);
}

static void
test_axis_parse (void)
{
  NnSweepAxis a;
  NnError error = { 0 };
  char text[512];
  size_t len;

  tap_ok (nn_sweep_axis_parse ("W=32,128,512", &a, &error) == NN_OK && strcmp (a.name, "W") == 0
            && a.count == 3 && a.values[0] == 32 && a.values[2] == 512,
          "W=32,128,512 is axis W of three values");
  tap_ok (nn_sweep_axis_parse ("W", &a, &error) != NN_OK && has (error.message, "NAME=VALUES"),
          "an axis without '=' says the form: %s", error.message);
  tap_ok (nn_sweep_axis_parse ("W=32,x1", &a, &error) != NN_OK && has (error.message, "'x1'"),
          "a value that is not a number is named: %s", error.message);
  tap_ok (nn_sweep_axis_parse ("W=0", &a, &error) != NN_OK && has (error.message, "out of range"),
          "0 is out of range: %s", error.message);
  tap_ok (nn_sweep_axis_parse ("9W=1", &a, &error) != NN_OK && has (error.message, "name"),
          "a name starting with a digit is refused: %s", error.message);
  len = (size_t) snprintf (text, sizeof text, "W=");
  for (int i = 1; i <= NN_SWEEP_VALUES_MAX + 1; i++)
    len += (size_t) snprintf (text + len, sizeof text - len, "%s%d", i > 1 ? "," : "", i);
  tap_ok (nn_sweep_axis_parse (text, &a, &error) != NN_OK && has (error.message, "32"),
          "more than %d values names the limit: %s", NN_SWEEP_VALUES_MAX, error.message);
}

static void
test_placeholders (void)
{
  bool ok_new;
  NnSweepRequest r;
  NnSweep *sweep = NULL;
  NnError error = { 0 };

  request_for (&r, test_path ("unused"));
  r.family = NN_SWEEP_SPEC;
  r.template_text = "flatten; dense {W} relu; dense {H} relu; dense 4 softmax";
  axis (&r, "W=8,16");
  device (&r, "cpu");
  tap_ok (has (new_error (&r, NULL), "{H}"), "a placeholder without an axis is named: %s",
          new_error (&r, NULL));
  axis (&r, "H=4");
  axis (&r, "Z=5");
  tap_ok (has (new_error (&r, NULL), "axis Z"), "an axis the template lacks is named: %s",
          new_error (&r, NULL));
  r.axis_count = 2;
  ok_new = nn_sweep_new (&r, &sweep, &error) == NN_OK;
  tap_ok (ok_new, "a template with both axes makes a sweep (%s)",
          error.message);
  tap_ok (nn_sweep_point_count (sweep) == 2
            && strcmp (nn_sweep_point (sweep, 1)->spec,
                       "flatten; dense 16 relu; dense 4 relu; dense 4 softmax") == 0,
          "each placeholder is replaced by its value: %s",
          sweep ? nn_sweep_point (sweep, 1)->spec : "");
  nn_sweep_free (sweep);
  sweep = NULL;

  r.template_text = "flatten; dense {W relu; dense 4 softmax";
  r.axis_count = 1;
  tap_ok (has (new_error (&r, NULL), "not closed"), "an open brace is an error: %s",
          new_error (&r, NULL));
  r.template_text = "flatten; dense {W-1} relu; dense 4 softmax";
  tap_ok (has (new_error (&r, NULL), "{W-1}"), "a bad placeholder is named: %s",
          new_error (&r, NULL));
  r.template_text = "flatten; dense {W} rleu; dense 4 softmax";
  tap_ok (has (new_error (&r, NULL), "rleu") && has (new_error (&r, NULL), "W=8"),
          "a spec that does not parse names the point and the word: %s", new_error (&r, NULL));

  /* {batch} is the batch size, and batch needs no placeholder */
  r.template_text = "flatten; dense {batch} relu; dense 4 softmax";
  r.axis_count = 0;
  axis (&r, "batch=8,16");
  ok_new = nn_sweep_new (&r, &sweep, &error) == NN_OK;
  tap_ok (ok_new
            && strcmp (nn_sweep_point (sweep, 0)->spec, "flatten; dense 8 relu; dense 4 softmax")
                 == 0
            && nn_sweep_point (sweep, 1)->batch_size == 16,
          "{batch} takes the batch size (%s)", error.message);
  nn_sweep_free (sweep);
  sweep = NULL;

  /* the families */
  request_for (&r, test_path ("unused"));
  axis (&r, "W=32");
  axis (&r, "D=2");
  device (&r, "cpu");
  ok_new = nn_sweep_new (&r, &sweep, &error) == NN_OK;
  tap_ok (ok_new
            && strcmp (nn_sweep_point (sweep, 0)->spec,
                       "flatten; dense 32 relu; dense 32 relu; dense 4 softmax") == 0,
          "mlp: D dense layers of width W and one output per class (%s)",
          sweep ? nn_sweep_point (sweep, 0)->spec : error.message);
  nn_sweep_free (sweep);
  sweep = NULL;
  r.family = NN_SWEEP_CNN;
  tap_ok (has (new_error (&r, NULL), "cnn family"), "cnn takes no W: %s", new_error (&r, NULL));
  r.axis_count = 0;
  axis (&r, "F=8");
  ok_new = nn_sweep_new (&r, &sweep, &error) == NN_OK;
  tap_ok (ok_new
            && has (nn_sweep_point (sweep, 0)->spec, "conv2d 8 3 relu; conv2d 16 3 relu")
            && has (nn_sweep_point (sweep, 0)->spec, "dense 4 softmax"),
          "cnn: F and 2F filters (%s)", sweep ? nn_sweep_point (sweep, 0)->spec : error.message);
  nn_sweep_free (sweep);
  sweep = NULL;
}

static void
test_errors (void)
{
  NnSweepRequest r;
  NnStatus status;

  request_for (&r, test_path ("unused"));
  axis (&r, "W=8");
  tap_ok (has (new_error (&r, NULL), "device"), "a sweep needs a device: %s", new_error (&r, NULL));
  device (&r, "cpu");
  device (&r, "cpu");
  tap_ok (has (new_error (&r, NULL), "cpu is given twice"), "a device given twice: %s",
          new_error (&r, NULL));
  r.device_count = 1;
  device (&r, "tpu");
  tap_ok (has (new_error (&r, &status), "tpu") && status == NN_ERROR_INVALID_ARGUMENT,
          "an unknown device is named: %s", new_error (&r, NULL));
  r.device_count = 1;
  axis (&r, "Q=1");
  tap_ok (has (new_error (&r, NULL), "axis Q is not a parameter of the mlp family"),
          "an axis the family does not take: %s", new_error (&r, NULL));
  r.axis_count = 1;
  axis (&r, "W=4");
  tap_ok (has (new_error (&r, NULL), "axis W is given twice"), "an axis given twice: %s",
          new_error (&r, NULL));
  r.axis_count = 0;
  axis (&r, "W=8,16,8");
  tap_ok (has (new_error (&r, NULL), "8 twice"), "a value given twice: %s", new_error (&r, NULL));
  r.axis_count = 4;
  tap_ok (has (new_error (&r, NULL), "at most 3"), "more than 3 axes names the limit: %s",
          new_error (&r, NULL));
  r.axis_count = 0;
  axis (&r, "W=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32");
  axis (&r, "batch=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32");
  axis (&r, "D=1,2");
  tap_ok (has (new_error (&r, NULL), "2048 points") && has (new_error (&r, NULL), "1024"),
          "more than 1024 points names the limit: %s", new_error (&r, NULL));
  r.axis_count = 1;
  r.steps = 0;
  tap_ok (has (new_error (&r, NULL), "0 steps"), "0 steps a point is refused: %s",
          new_error (&r, NULL));
  r.steps = 4;
  r.axis_count = 0;
  axis (&r, "batch=70000");
  tap_ok (has (new_error (&r, NULL), "70000 is out of range"), "a batch too large: %s",
          new_error (&r, NULL));
  r.axis_count = 0;
  axis (&r, "D=65");
  tap_ok (has (new_error (&r, NULL), "65 is out of range"), "a depth too large: %s",
          new_error (&r, NULL));
  r.axis_count = 0;
  r.dataset = NULL;
  r.dataset_name = test_path ("no-such-data");
  tap_ok (has (new_error (&r, NULL), "no-such-data"), "a data set that is not there is named: %s",
          new_error (&r, NULL));
}

/* Each error of a request names the field at fault, so that the CLI can
 * name its option and the app mark its row without reading the message;
 * the CLI once searched the message for words, and an axis named "device"
 * sent it to --devices. */
static void
test_error_fields (void)
{
  NnSweepRequest r;

  request_for (&r, test_path ("unused"));
  device (&r, "cpu");
  axis (&r, "device=1");
  field_check (&r, "axis device is not a parameter", NN_FIELD_AXES,
               "an axis named device is the axes' fault");
  r.axis_count = 0;
  axis (&r, "W=4");
  axis (&r, "W=8");
  field_check (&r, "given twice", NN_FIELD_AXES, "an axis given twice");
  r.axis_count = 0;
  axis (&r, "batch=300");
  field_check (&r, "batch 300 is larger", NN_FIELD_AXES, "a batch axis beyond the data set");
  r.axis_count = 0;
  r.config.batch_size = 300;
  field_check (&r, "batch 300 is larger", NN_FIELD_BATCH_SIZE,
               "a batch size beyond the data set, without a batch axis");
  r.config.batch_size = 0;
  field_check (&r, "batch size 0", NN_FIELD_BATCH_SIZE, "a batch size out of range");
  r.config.batch_size = 32;
  r.steps = 0;
  field_check (&r, "0 steps", NN_FIELD_STEPS, "no steps");
  r.steps = 4;
  r.warmup_steps = NN_SWEEP_STEPS_MAX + 1;
  field_check (&r, "warm-up", NN_FIELD_WARMUP_STEPS, "too many warm-up steps");
  r.warmup_steps = 2;
  r.limit_train = -1;
  field_check (&r, "negative", NN_FIELD_LIMIT_TRAIN, "a negative sample limit");
  r.limit_train = 0;
  r.family = (NnSweepFamily) 7;
  field_check (&r, "family", NN_FIELD_FAMILY, "an unknown family");
  r.family = NN_SWEEP_MLP;
  device (&r, "cpu");
  field_check (&r, "cpu is given twice", NN_FIELD_DEVICES, "a device given twice");
  r.device_count = 0;
  field_check (&r, "needs a device", NN_FIELD_DEVICES, "no device");
  device (&r, "tpu");
  field_check (&r, "tpu", NN_FIELD_DEVICES, "an unknown device");
  r.device_count = 0;
  device (&r, "cpu");

  r.family = NN_SWEEP_SPEC;
  r.template_text = "flatten; dense {device} relu; dense 4 softmax";
  field_check (&r, "{device} has no axis", NN_FIELD_TEMPLATE, "a placeholder without an axis");
  axis (&r, "device=4");
  axis (&r, "steps=4");
  field_check (&r, "axis steps is not a placeholder", NN_FIELD_TEMPLATE,
               "an axis the template lacks (the template says to write it in)");
  r.axis_count = 1;
  r.template_text = "flatten; dense {device} rleu; dense 4 softmax";
  field_check (&r, "rleu", NN_FIELD_TEMPLATE, "a template whose spec does not parse");
  r.template_text = "conv2d 4 {device} relu; flatten; dense 4 softmax";
  r.axes[0].values[0] = 9;
  field_check (&r, "9", NN_FIELD_TEMPLATE, "a template whose model does not fit the images");
  r.family = NN_SWEEP_CNN;
  r.template_text = NULL;
  r.axis_count = 0;
  axis (&r, "F=4");
  {
    NnDataset *tiny = test_make_dataset (16, 4, 4, 1, 2, 2, 3);
    r.dataset = tiny;
    field_check (&r, "conv2d", NN_FIELD_FAMILY, "the cnn on images it does not fit");
    nn_dataset_free (tiny);
  }
  r.dataset = NULL;
  r.dataset_name = test_path ("no-such-data");
  field_check (&r, "no-such-data", NN_FIELD_DATASET, "a data set that is not there");
  r.dataset_name = NULL;
  field_check (&r, "needs a data set", NN_FIELD_DATASET, "no data set");
}

/* Each family's axes with their default values: the grid the CLI sweeps
 * without --axis and the Explore page starts from. The CLI once swept the
 * cnn's batch over 32, 128 and 512, the app over 32 to 2048. */
static void
test_family_axes (void)
{
  NnSweepAxis axes[8];
  NnSweepRequest r;
  int32_t n;

  n = nn_sweep_family_axes (NN_SWEEP_MLP, NULL, axes, 8);
  tap_ok (n == 3 && strcmp (axes[0].name, "W") == 0 && axes[0].count == 4
            && axes[0].values[0] == 32 && axes[0].values[3] == 2048
            && strcmp (axes[1].name, "D") == 0 && axes[1].count == 0
            && strcmp (axes[2].name, "batch") == 0 && axes[2].count == 4
            && axes[2].values[3] == 2048,
          "mlp: W and batch over 32..2048, D without values");
  n = nn_sweep_family_axes (NN_SWEEP_CNN, NULL, axes, 8);
  tap_ok (n == 2 && strcmp (axes[0].name, "F") == 0 && axes[0].count == 4
            && axes[0].values[0] == 8 && axes[0].values[3] == 64
            && strcmp (axes[1].name, "batch") == 0 && axes[1].count == 3
            && axes[1].values[0] == 32 && axes[1].values[1] == 128 && axes[1].values[2] == 512,
          "cnn: F over 8..64, batch over 32, 128, 512");
  n = nn_sweep_family_axes (NN_SWEEP_SPEC, "flatten; dense {U} relu; {bad-1} dense {V} relu; "
                                           "dense {U} relu; dense {batch} softmax; {",
                            axes, 8);
  tap_ok (n == 3 && strcmp (axes[0].name, "U") == 0 && strcmp (axes[1].name, "V") == 0
            && strcmp (axes[2].name, "batch") == 0 && axes[0].count == 4 && axes[2].count == 4,
          "spec: each placeholder once, in order, then batch (got %d)", (int) n);
  tap_ok (nn_sweep_family_axes (NN_SWEEP_SPEC, "flatten; dense 4 softmax", NULL, 0) == 1,
          "spec without placeholders: batch alone, counted without room to write");
  tap_ok (nn_sweep_family_axes (NN_SWEEP_MLP, NULL, axes, 1) == 3 && strcmp (axes[0].name, "W") == 0,
          "the count says how many there are when fewer fit");

  nn_sweep_request_init (&r);
  r.family = NN_SWEEP_CNN;
  nn_sweep_request_use_default_axes (&r);
  tap_ok (r.axis_count == 2 && strcmp (r.axes[0].name, "F") == 0
            && strcmp (r.axes[1].name, "batch") == 0 && r.axes[1].count == 3,
          "a cnn request's default axes: F and batch");
  r.family = NN_SWEEP_SPEC;
  r.template_text = "flatten; dense {A} relu; dense {B} relu; dense {C} relu; dense 4 softmax";
  nn_sweep_request_use_default_axes (&r);
  tap_ok (r.axis_count == 3 && strcmp (r.axes[2].name, "C") == 0,
          "a template of three placeholders: those three");
}

static void
test_grid_order (void)
{
  bool ok_new;
  NnSweepRequest r;
  NnSweep *sweep = NULL;
  NnError error = { 0 };
  bool ok = true;

  request_for (&r, test_path ("unused"));
  axis (&r, "W=8,16,32");
  axis (&r, "batch=4,8");
  device (&r, "cpu");
  device (&r, "gpu");
  ok_new = nn_sweep_new (&r, &sweep, &error) == NN_OK;
  tap_ok (ok_new && nn_sweep_point_count (sweep) == 12,
          "3 widths x 2 batches x 2 devices are 12 points (%s)", error.message);
  tap_ok (strcmp (nn_sweep_request (sweep)->devices[1], "cuda:0") == 0,
          "gpu is written cuda:0");
  for (int32_t i = 0; i < 12 && sweep != NULL; i++)
    {
      const NnSweepPoint *p = nn_sweep_point (sweep, i);
      int32_t w = (int32_t[]){ 8, 16, 32 }[i / 4];
      int32_t b = (int32_t[]){ 4, 8 }[(i / 2) % 2];
      ok = ok && p->index == i && p->values[0] == w && p->values[1] == b && p->batch_size == b
           && p->device == i % 2 && p->status == NN_SWEEP_POINT_PENDING
           && strcmp (p->device_text, i % 2 ? "cuda:0" : "cpu") == 0;
    }
  tap_ok (ok, "the first axis changes slowest, the devices fastest");
  tap_ok (nn_sweep_request (sweep)->warmup_steps == 2, "a warm-up given is kept");
  nn_sweep_free (sweep);
  sweep = NULL;
  r.warmup_steps = -1;
  r.steps = 300;
  nn_sweep_new (&r, &sweep, &error);
  tap_ok (sweep != NULL && nn_sweep_request (sweep)->warmup_steps == 30,
          "the default warm-up is a tenth of the steps");
  nn_sweep_free (sweep);
  sweep = NULL;
  r.steps = 50;
  nn_sweep_new (&r, &sweep, &error);
  tap_ok (sweep != NULL && nn_sweep_request (sweep)->warmup_steps == 10, "and at least 10");
  nn_sweep_free (sweep);
  sweep = NULL;
}

/* Every field of the sweep file's format, at the top and in a point. */
static const char *const sweep_fields[] = {
  "kind", "schema", "app_version", "sweep_id", "started_at", "status", "system.machine_id",
  "system.os.name", "system.cpu.model", "dataset.name", "dataset.path", "model.family",
  "model.template",
  "axes[].name", "axes[].values[]", "devices[]", "threads", "steps", "warmup_steps", "optimizer",
  "conditions.name", "conditions.data", "conditions.graph", "conditions.loss_every_step",
  "conditions.fused", "points[].values.W", "points[].values.batch", "points[].device",
  "points[].device_kind", "points[].device_name", "points[].spec", "points[].status",
  "points[].step_seconds_median", "points[].step_seconds_p10", "points[].step_seconds_p90",
  "points[].samples_per_second", "points[].result",
};

static char *
read_text (const char *folder, const char *name)
{
  char path[8192];
  size_t size = 0;
  snprintf (path, sizeof path, "%s/%s", folder, name);
  return test_read_file (path, &size);
}

static void
test_run (void)
{
  bool ok_new;
  NnSweepRequest r;
  NnSweep *sweep = NULL;
  NnError error = { 0 };
  JcParser jp;
  char *text;
  bool fields = true;
  const char *folder = test_path ("runs");

  request_for (&r, folder);
  axis (&r, "W=8,16");
  axis (&r, "batch=16,32");
  device (&r, "cpu");
  device (&r, "cuda:0");
  ok_new = nn_sweep_new (&r, &sweep, &error) == NN_OK;
  tap_ok (ok_new, "a sweep is made (%s)", error.message);
  tap_ok (nn_sweep_id (sweep)[0] == '\0' && nn_sweep_file (sweep)[0] == '\0',
          "nothing is made before it runs");
  NnStatus status = nn_sweep_run (sweep, &error);
  tap_ok (status == NN_OK && nn_sweep_status (sweep) == NN_SWEEP_COMPLETED,
          "it completes (%s)", error.message);
  tap_ok (has (nn_sweep_id (sweep), "-sweep-mlp-") && has (nn_sweep_folder (sweep), "sweeps")
            && has (nn_sweep_folder (sweep), nn_sweep_id (sweep)),
          "in RUNS/sweeps/SWEEP_ID: %s", nn_sweep_folder (sweep));

  bool cpu_ok = true, gpu_said = true;
  for (int32_t i = 0; i < nn_sweep_point_count (sweep); i++)
    {
      const NnSweepPoint *p = nn_sweep_point (sweep, i);
      if (p->device_kind == NN_DEVICE_CPU)
        cpu_ok = cpu_ok && p->status == NN_SWEEP_POINT_COMPLETED && p->steps_measured == 4
                 && p->step_seconds_median > 0 && p->step_seconds_p10 <= p->step_seconds_median
                 && p->step_seconds_median <= p->step_seconds_p90
                 && fabs (p->samples_per_second - p->batch_size / p->step_seconds_median) < 1e-6
                 && strcmp (p->result_file, (char[16]){ 0 }) != 0;
      else if (p->status == NN_SWEEP_POINT_FAILED)
        gpu_said = gpu_said && has (p->error, "cuda:0") && p->result_file[0] == '\0';
    }
  tap_ok (cpu_ok, "every CPU point ran its 4 steps after the warm-up, timed");
  tap_ok (gpu_said, "a GPU that is not usable fails its points with the reason: %s",
          nn_sweep_point (sweep, 1)->error);

  /* the point files */
  text = read_text (nn_sweep_folder (sweep), "point-0001.json");
  tap_ok (text != NULL, "point 1 has its result file");
  tap_ok (has (text, "\"sweep\": \"") && has (text, nn_sweep_id (sweep)),
          "which names the sweep");
  tap_ok (has (text, "\"warmup_steps\": 2") && has (text, "\"count\": 6")
            && has (text, "\"timed\": 4"),
          "and records the warm-up, the steps run with it and the steps timed");
  tap_ok (has (text, "\"test_loss\": null"), "no test evaluation ran");
  tap_ok (has (text, "\"batch_size\": 16") && has (text, "dense 8 relu"),
          "the point's batch and model");
  free (text);
  text = read_text (nn_sweep_folder (sweep), "point-0008.json");
  tap_ok ((text != NULL) == (nn_sweep_point (sweep, 7)->result_file[0] != '\0'),
          "a file for each point that ran, none for one that could not");
  free (text);

  /* sweep.json */
  text = read_text (nn_sweep_folder (sweep), "sweep.json");
  memset (&jp, 0, sizeof jp);
  tap_ok (text != NULL && jc_parse (&jp, text, strlen (text)), "sweep.json is valid JSON (%s)",
          jp.error);
  for (size_t i = 0; i < sizeof sweep_fields / sizeof sweep_fields[0]; i++)
    if (jc_find (&jp, sweep_fields[i]) == NULL)
      {
        tap_diag ("sweep.json lacks %s", sweep_fields[i]);
        fields = false;
      }
  tap_ok (fields, "sweep.json has every field of the format");
  const JcEntry *e = jc_find (&jp, "kind");
  tap_ok (e != NULL && strcmp (e->value, "\"trainbench-sweep\"") == 0, "its kind");
  e = jc_find (&jp, "status");
  tap_ok (e != NULL && strcmp (e->value, "\"completed\"") == 0, "it says completed");
  e = jc_find (&jp, "points[].result");
  tap_ok (e != NULL && strcmp (e->value, "\"point-0001.json\"") == 0, "the first point's file");
  e = jc_find (&jp, "model.template");
  tap_ok (e != NULL && strcmp (e->value, "\"flatten; dense {W} relu; dense 4 softmax\"") == 0,
          "the family's template: %s", e ? e->value : "");
  tap_ok (has (text, "\"values\": [16, 32]") && has (text, "\"warmup_steps\": 2"),
          "the axes and the warm-up");
  int points = 0;
  for (int i = 0; i < jp.count; i++)
    points += strcmp (jp.entries[i].path, "points[].status") == 0;
  tap_ok (points == 8, "a point entry for every point (%d)", points);
  free (jp.entries);
  free (text);
  nn_sweep_free (sweep);
  sweep = NULL;
}

/* A progress callback that stops the sweep once `stop_after` points are done. */
typedef struct
{
  int32_t stop_after;
  int started, finished;
  NnSweep *sweep;          /* cancel through nn_sweep_cancel when set, else return false */
  bool eta_known;
} Stopper;

static bool
stop_cb (const NnSweepProgress *progress, void *user_data)
{
  Stopper *s = user_data;

  if (progress->kind == NN_SWEEP_POINT_STARTED)
    {
      s->started++;
      if (s->sweep != NULL && progress->done == s->stop_after)
        nn_sweep_cancel (s->sweep);
      return true;
    }
  s->finished++;
  s->eta_known = s->eta_known || progress->eta_seconds >= 0;
  return s->sweep != NULL || progress->done < s->stop_after;
}

static void
test_cancel (void)
{
  NnSweepRequest r;
  NnSweep *sweep = NULL;
  NnError error = { 0 };
  Stopper stopper = { .stop_after = 2 };
  char *text;

  request_for (&r, test_path ("cancel-runs"));
  axis (&r, "W=8,16,32");
  axis (&r, "batch=16,32");
  device (&r, "cpu");
  r.progress = stop_cb;
  r.progress_data = &stopper;
  nn_sweep_new (&r, &sweep, &error);
  NnStatus status = nn_sweep_run (sweep, &error);
  tap_ok (status == NN_ERROR_CANCELLED && nn_sweep_status (sweep) == NN_SWEEP_CANCELLED,
          "a callback that says stop cancels the sweep: %s", error.message);
  tap_ok (stopper.finished == 2 && stopper.eta_known, "after the points done, with an ETA");
  tap_ok (nn_sweep_point (sweep, 1)->status == NN_SWEEP_POINT_COMPLETED
            && nn_sweep_point (sweep, 2)->status == NN_SWEEP_POINT_PENDING,
          "the points done are kept, the others pending");
  text = read_text (nn_sweep_folder (sweep), "sweep.json");
  tap_ok (has (text, "\"status\": \"cancelled\"") && has (text, "\"status\": \"pending\"")
            && has (text, "point-0002.json"),
          "sweep.json says cancelled and keeps the points done");
  free (text);
  tap_ok (test_count_names (nn_sweep_folder (sweep), "point-") == 2, "two point files");
  nn_sweep_free (sweep);
  sweep = NULL;

  /* nn_sweep_cancel while a point runs: that point is recorded cancelled */
  memset (&stopper, 0, sizeof stopper);
  stopper.stop_after = 1;
  r.steps = 2000;
  nn_sweep_new (&r, &sweep, &error);
  stopper.sweep = sweep;
  status = nn_sweep_run (sweep, &error);
  tap_ok (status == NN_ERROR_CANCELLED, "nn_sweep_cancel stops the sweep: %s", error.message);
  tap_ok (nn_sweep_point (sweep, 0)->status == NN_SWEEP_POINT_COMPLETED
            && nn_sweep_point (sweep, 1)->status == NN_SWEEP_POINT_CANCELLED
            && nn_sweep_point (sweep, 2)->status == NN_SWEEP_POINT_PENDING,
          "the point running is cancelled, the one before kept");
  text = read_text (nn_sweep_folder (sweep), "point-0002.json");
  tap_ok (has (text, "\"cancelled\"") && has (text, nn_sweep_id (sweep)),
          "the cancelled point's file says so");
  free (text);
  tap_ok (nn_sweep_run (sweep, &error) == NN_ERROR_INVALID_ARGUMENT, "a sweep runs once: %s",
          error.message);
  nn_sweep_free (sweep);
  sweep = NULL;

  /* a cancel before the start */
  r.progress = NULL;
  nn_sweep_new (&r, &sweep, &error);
  nn_sweep_cancel (sweep);
  tap_ok (nn_sweep_run (sweep, &error) == NN_ERROR_CANCELLED
            && nn_sweep_status (sweep) == NN_SWEEP_CANCELLED,
          "a sweep cancelled before it runs runs nothing: %s", error.message);
  nn_sweep_free (sweep);
  sweep = NULL;
}

/* ---------------------------------------------------------------- a full disk */

#ifdef __linux__
/* Fills the file system of `filler` once `fill_after` points are done,
 * having seen the sweep's reserve there. */
typedef struct
{
  const char *filler;
  const NnSweep *sweep;
  int32_t fill_after;
  bool reserve_kept;
} Filler;

static bool
fill_cb (const NnSweepProgress *progress, void *user_data)
{
  static char block[65536];
  Filler *f = user_data;
  char reserve[8192];

  if (progress->kind != NN_SWEEP_POINT_FINISHED || progress->done != f->fill_after)
    return true;
  snprintf (reserve, sizeof reserve, "%s/sweep.reserve", nn_sweep_folder (f->sweep));
  f->reserve_kept = test_exists (reserve);
  memset (block, 0x5a, sizeof block);
  /* whole blocks, then pages, then bytes, until nothing more goes */
  for (size_t size = sizeof block; size >= 1; size /= 16)
    {
      FILE *out = fopen (f->filler, "ab");
      if (out == NULL)
        break;
      setvbuf (out, NULL, _IONBF, 0);
      while (fwrite (block, 1, size, out) == size)
        ;
      fclose (out);
    }
  return true;
}

static bool
write_text (const char *path, const char *text)
{
  FILE *f = fopen (path, "w");
  bool ok = f != NULL && fputs (text, f) >= 0;
  return f != NULL && fclose (f) == 0 && ok;
}

/* In the child: a tmpfs of 8 MiB mounted on `folder` in a mount namespace
 * of its own (as root, or as this user's root in a user namespace), a
 * sweep of 3 points there, and the file system filled once the first point
 * is done. "1 reason" when the sweep ends failed, saying why, with the
 * first point kept in the sweep.json it still wrote, the last pending, and
 * its reserve gone; "skip why" where no such mount can be made. */
static int
child_full_disk (const char *folder)
{
  char path[8192];
  uid_t uid = getuid ();
  gid_t gid = getgid ();

  if (unshare (CLONE_NEWNS) != 0)
    {
      char map[64];
      if (unshare (CLONE_NEWUSER | CLONE_NEWNS) != 0)
        {
          printf ("skip no mount namespace here (unshare: %s)", strerror (errno));
          return 0;
        }
      write_text ("/proc/self/setgroups", "deny");
      snprintf (map, sizeof map, "0 %u 1", (unsigned) uid);
      write_text ("/proc/self/uid_map", map);
      snprintf (map, sizeof map, "0 %u 1", (unsigned) gid);
      write_text ("/proc/self/gid_map", map);
    }
  if (mount ("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0
      || mount ("trainbench-test", folder, "tmpfs", 0, "size=8m") != 0)
    {
      printf ("skip no tmpfs can be mounted here (mount: %s)", strerror (errno));
      return 0;
    }

  NnSweepRequest r;
  NnSweep *sweep = NULL;
  NnError error = { 0 };
  Filler filler = { .filler = path, .fill_after = 1 };
  const char *why = NULL;
  char *text = NULL;
  char reserve[8192];

  snprintf (path, sizeof path, "%s/filler", folder);
  data = test_make_dataset (256, 32, 4, 1, 8, 8, 11);
  request_for (&r, folder);
  axis (&r, "W=8,16,32");
  device (&r, "cpu");
  r.progress = fill_cb;
  r.progress_data = &filler;
  NnStatus status = nn_sweep_new (&r, &sweep, &error);
  if (status == NN_OK)
    {
      filler.sweep = sweep;
      status = nn_sweep_run (sweep, &error);
      text = read_text (nn_sweep_folder (sweep), "sweep.json");
      snprintf (reserve, sizeof reserve, "%s/sweep.reserve", nn_sweep_folder (sweep));
    }
  if (sweep == NULL)
    why = "no sweep was made";
  else if (status != NN_ERROR_IO || nn_sweep_status (sweep) != NN_SWEEP_FAILED
           || !has (error.message, "No space left"))
    why = "the sweep did not fail for want of space";
  else if (!filler.reserve_kept)
    why = "no reserve was kept while the sweep ran";
  else if (test_exists (reserve))
    why = "the reserve is still there";
  else if (text == NULL || !has (text, "\"status\": \"failed\"") || !has (text, "\"error\": \"")
           || !has (text, "No space left"))
    why = "sweep.json does not say failed, and why";
  else if (!has (text, "point-0001.json") || !has (text, "\"status\": \"pending\"")
           || nn_sweep_point (sweep, 0)->status != NN_SWEEP_POINT_COMPLETED
           || nn_sweep_point (sweep, 2)->status != NN_SWEEP_POINT_PENDING)
    why = "sweep.json lost the point done, or ran the last";
  printf ("%d %s", why == NULL, why != NULL ? why : error.message);
  if (why != NULL && text != NULL)
    printf (" -- %.600s", text);
  free (text);
  nn_sweep_free (sweep);
  nn_dataset_free (data);
  return 0;
}
#endif

/* A disk that fills while a sweep runs: the sweep ends "failed" with the
 * reason and the points done, in a sweep.json written in the room its
 * reserve kept; it used to stay "running", the last point "pending". */
static void
test_full_disk (void)
{
  const char *what = "a sweep whose disk fills after its first point ends failed with the "
                     "reason and keeps that point, in the room its reserve kept";
#ifdef __linux__
  char line[2048] = "";
  const char *folder = test_path ("full");
  test_make_folder (folder);
  int status = test_child_run ("full-disk", folder, line, sizeof line);
  if (strncmp (line, "skip ", 5) == 0)
    tap_skip (line + 5, "%s", what);
  else
    tap_ok (status == 0 && line[0] == '1', "%s: %s", what,
            line[0] != '\0' ? line + 2 : "the child said nothing");
#else
  tap_skip ("mount namespaces are Linux's", "%s", what);
#endif
}

/* The default sweep's grid and the trainer's warm-up checks. */
static void
test_defaults (void)
{
  NnSweepRequest r;
  NnTrainConfig c;
  NnTrainer *trainer = NULL;
  NnRunResult result;
  NnError error = { 0 };

  nn_sweep_request_init (&r);
  nn_sweep_request_use_default_axes (&r);
  nn_sweep_request_use_default_devices (&r);
  tap_ok (r.family == NN_SWEEP_MLP && r.axis_count == 2 && strcmp (r.axes[0].name, "W") == 0
            && r.axes[0].count == 4 && r.axes[0].values[3] == 2048
            && strcmp (r.axes[1].name, "batch") == 0 && r.axes[1].values[0] == 32
            && r.steps == 200 && strcmp (r.devices[0], "cpu") == 0,
          "the default sweep: W and batch in 32..2048, the CPU first, 200 steps");

  nn_train_config_init (&c);
  c.spec_text = "flatten; dense 8 relu; dense 4 softmax";
  c.max_steps = 5;
  c.warmup_steps = 5;
  tap_ok (nn_trainer_new (&c, data, &trainer, &error) != NN_OK && has (error.message, "warm-up"),
          "a warm-up that leaves no step to measure is refused: %s", error.message);
  c.warmup_steps = 3;
  c.skip_evaluation = true;
  c.device.threads = 2;
  nn_trainer_new (&c, data, &trainer, &error);
  tap_ok (nn_trainer_run (trainer, &result, &error) == NN_OK && result.step_count == 5
            && isnan (result.epochs[0].test_loss) && result.step_seconds_median > 0,
          "a run with a warm-up counts every step and skips the evaluation (%s)", error.message);
  tap_ok (result.steps_timed == 2, "its times come from the 2 steps after the warm-up (%lld)",
          (long long) result.steps_timed);
  nn_run_result_clear (&result);
  nn_trainer_free (trainer);
}

/* The ETA: points of `work` units, done or left, on two devices. */
static void
eta_points (NnSweepEtaPoint *pts, int count, const double *work, const double *seconds,
            int done)
{
  for (int i = 0; i < count; i++)
    pts[i] = (NnSweepEtaPoint) { .work = work[i], .device = i % 2, .done = i < done,
                                 .left = i >= done, .seconds = i < done ? seconds[i] : NAN };
}

static void
test_eta (void)
{
  NnSweepEtaPoint pts[8];
  double work[8], seconds[8], left = 0;

  /* a fixed 0.1 s a point plus 1e-9 s a unit: the default sweep's shape,
   * whose GPU points are nearly all fixed cost */
  for (int i = 0; i < 8; i++)
    {
      work[i] = 1e4 * pow (8, i / 2);
      seconds[i] = 0.1 + 1e-9 * work[i];
      if (i >= 4)
        left += seconds[i];
    }
  eta_points (pts, 8, work, seconds, 2);
  tap_ok (_nn_sweep_eta (pts, 8) == -1.0, "no ETA while the points done have one work");
  eta_points (pts, 8, work, seconds, 4);
  double eta = _nn_sweep_eta (pts, 8);
  double per_unit = (seconds[0] + seconds[1] + seconds[2] + seconds[3])
                    / (work[0] + work[1] + work[2] + work[3])
                    * (work[4] + work[5] + work[6] + work[7]);
  tap_ok (eta > 0.5 * left && eta < 2 * left,
          "fixed costs: an ETA of %g s for %g s left (seconds per unit of work said %g s)", eta,
          left, per_unit);

  /* seconds as work^0.5: two points of a device fix the curve */
  for (int i = 0; i < 8; i++)
    seconds[i] = 1e-3 * sqrt (work[i]) * (i % 2 ? 1 : 3);
  eta_points (pts, 8, work, seconds, 4);
  left = 0;
  for (int i = 4; i < 8; i++)
    left += seconds[i];
  eta = _nn_sweep_eta (pts, 8);
  tap_ok (fabs (eta - left) < 1e-9 * left, "a power law of work: ETA %g s, %g s left", eta, left);

  /* a device with no point done takes all the points' curve */
  for (int i = 0; i < 8; i++)
    pts[i].device = i < 4 ? 0 : 1;
  eta = _nn_sweep_eta (pts, 8);
  tap_ok (eta > 0 && isfinite (eta), "a device with none done: ETA %g s", eta);

  /* time growing faster than work counts as proportional to it */
  for (int i = 0; i < 8; i++)
    {
      seconds[i] = 1e-12 * work[i] * work[i];
      pts[i].device = 0;
    }
  eta_points (pts, 8, work, seconds, 4);
  for (int i = 0; i < 8; i++)
    pts[i].device = 0;
  eta = _nn_sweep_eta (pts, 8);
  double linear = 0;
  for (int i = 4; i < 8; i++)
    linear += work[i] * seconds[3] / work[3];
  tap_ok (eta > 0 && eta <= linear * 1.000001, "the slope is at most 1: %g s, proportional %g s",
          eta, linear);
}

/* Point (batch index b, W index w, device d) of the crossover's grid. */
static NnSweepPoint *
grid_point (NnSweepPoint *points, int32_t b, int32_t w, int32_t d)
{
  return &points[(b * 4 + w) * 2 + d];
}

/* The crossover: the devices and axes compared, the ratios of a line and
 * what they say, points in any order or missing. The CLI counted a ratio
 * of exactly 1 as no win for the GPU, the app's heat map as the GPU's side:
 * the engine's rule is the CLI's. */
static void
test_crossover (void)
{
  static const double ratios[2][4] = { { 0.5, 1.0, 2.0, 4.0 }, { 2.0, 0.5, 3.0, 0.8 } };
  NnSweepRequest r;
  NnSweepPoint *points = calloc (16, sizeof *points), *shuffled = calloc (16, sizeof *points);
  NnCrossoverLine line;
  int32_t x, y, cpu, gpu;

  nn_sweep_request_init (&r);
  axis (&r, "batch=32,128");
  axis (&r, "W=32,128,512,2048");
  device (&r, "cuda:0");
  device (&r, "cpu");
  nn_sweep_crossover_axes (&r, &x, &y);
  tap_ok (x == 1 && y == 0, "the axes shown: x the first that is not batch, y batch (%d, %d)",
          (int) x, (int) y);
  tap_ok (nn_sweep_crossover_devices (&r, &cpu, &gpu) && cpu == 1 && gpu == 0,
          "the CPU against the first GPU, whatever their order");
  tap_ok (nn_sweep_crossover_line_count (&r, x) == 2, "a line per batch");
  for (int32_t b = 0; b < 2; b++)
    for (int32_t w = 0; w < 4; w++)
      for (int32_t d = 0; d < 2; d++)
        {
          NnSweepPoint *p = grid_point (points, b, w, d);
          p->index = (b * 4 + w) * 2 + d;
          p->values[0] = r.axes[0].values[b];
          p->values[1] = r.axes[1].values[w];
          p->device = d;
          p->status = NN_SWEEP_POINT_COMPLETED;
          p->samples_per_second = d == cpu ? 1000.0 : 1000.0 * ratios[b][w];
        }

  nn_sweep_crossover_line (&r, points, 16, x, 0, &line);
  tap_ok (line.at[0] == 0 && line.count == 4 && line.ratio[1] == 1.0
            && line.kind == NN_CROSSOVER_GPU_FROM && line.where == 2,
          "batch 32: the GPU faster from W=512, the even W=128 no win (kind %d at %d)",
          (int) line.kind, (int) line.where);
  nn_sweep_crossover_line (&r, points, 16, x, 1, &line);
  tap_ok (line.at[0] == 1 && line.kind == NN_CROSSOVER_CPU_AGAIN && line.where == 3,
          "batch 128: the CPU faster again at the last W (kind %d at %d)", (int) line.kind,
          (int) line.where);

  /* a failed point is no value to compare; the points of a file in any
   * order, one missing */
  grid_point (points, 1, 3, cpu)->status = NN_SWEEP_POINT_FAILED;
  for (int32_t i = 0; i < 16; i++)
    shuffled[i] = points[15 - i];
  nn_sweep_crossover_line (&r, shuffled, 15, x, 1, &line);
  tap_ok (isnan (line.ratio[3]) && line.ratio[2] == 3.0 && line.kind == NN_CROSSOVER_GPU_FROM
            && line.where == 2,
          "a failed point is not compared, points found by their values (kind %d at %d)",
          (int) line.kind, (int) line.where);
  nn_sweep_crossover_line (&r, shuffled, 15, x, 0, &line);
  tap_ok (isnan (line.ratio[0]) && line.ratio[2] == 2.0,
          "the point left out of the list is missing from its line");
  for (int32_t w = 0; w < 4; w++)
    grid_point (points, 0, w, gpu)->samples_per_second = 1000.0 * (w + 2);
  nn_sweep_crossover_line (&r, points, 16, x, 0, &line);
  tap_ok (line.kind == NN_CROSSOVER_GPU_FASTER && line.where == -1, "the GPU faster everywhere");
  for (int32_t w = 0; w < 4; w++)
    grid_point (points, 0, w, gpu)->samples_per_second = 1000.0;
  nn_sweep_crossover_line (&r, points, 16, x, 0, &line);
  tap_ok (line.kind == NN_CROSSOVER_CPU_FASTER, "even everywhere: no win for the GPU");
  for (int32_t w = 0; w < 4; w++)
    grid_point (points, 0, w, cpu)->status = NN_SWEEP_POINT_PENDING;
  nn_sweep_crossover_line (&r, points, 16, x, 0, &line);
  tap_ok (line.kind == NN_CROSSOVER_NOT_COMPARED, "nothing to compare while the CPU is pending");
  tap_ok (!nn_sweep_crossover_line (&r, points, 16, x, 2, &line)
            && !nn_sweep_crossover_line (&r, points, 16, 5, 0, &line)
            && line.kind == NN_CROSSOVER_NOT_COMPARED,
          "a line or axis out of range is none");

  r.device_count = 1;
  tap_ok (!nn_sweep_crossover_devices (&r, &cpu, &gpu) && cpu == -1 && gpu == 0,
          "a sweep without a CPU compares nothing");
  nn_sweep_crossover_line (&r, points, 16, x, 0, &line);
  tap_ok (line.kind == NN_CROSSOVER_NOT_COMPARED && isnan (line.ratio[0]),
          "and its lines have no ratio");
  r.axis_count = 1;
  nn_sweep_crossover_axes (&r, &x, &y);
  tap_ok (x == 0 && y == -1 && nn_sweep_crossover_line_count (&r, x) == 1,
          "a batch axis alone is x, one line");
  free (points);
  free (shuffled);
}

int
main (int argc, char **argv)
{
#ifdef __linux__
  static const TestChildCase children[] = {
    { "full-disk", child_full_disk },
    { NULL, NULL },
  };
  test_child_main (argc, argv, children);
#else
  (void) argc;
  (void) argv;
#endif
  test_isolate_home ();
  data = test_make_dataset (256, 32, 4, 1, 8, 8, 11);
  test_axis_parse ();
  test_placeholders ();
  test_errors ();
  test_error_fields ();
  test_family_axes ();
  test_grid_order ();
  test_run ();
  test_cancel ();
  test_full_disk ();
  test_defaults ();
  test_eta ();
  test_crossover ();
  nn_dataset_free (data);
  return tap_done ();
}
