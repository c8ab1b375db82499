/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-sweep.c: many short runs over a grid of settings (NnSweep in
 * trainbench.h), each a recorded run of its own, timed after its warm-up,
 * with one sweep file that says where the sweep stands after every point.
 */

#include "nn-plan.h"
#include "nn-os.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SWEEP_FILE "sweep.json"
#define SWEEP_FOLDER "sweeps"
/* Room kept on the disk, in the sweep's folder, while the sweep runs: freed
 * to write its last sweep.json when the disk is full (reserve_make). */
#define SWEEP_RESERVE "sweep.reserve"
/* Beyond sweep.json's largest size: the blocks of a file system that
 * allocates in clusters, the folder entry of its temporary file. */
#define SWEEP_RESERVE_SLACK (64 * 1024)

struct NnSweep
{
  NnSweepRequest request;          /* strings point into the copies below */
  char template_text[NN_SWEEP_TEMPLATE_MAX];
  char dataset_name[4096];
  char runs_folder[4096];
  int32_t classes;                 /* of the data set, as nn_sweep_new found it */
  int32_t batch_axis;              /* index of the "batch" axis, -1 when none */

  NnSweepPoint *points;            /* (point_count), owned */
  int32_t point_count;

  atomic_int cancel;               /* set by nn_sweep_cancel, from any thread */
  _Atomic (NnRunner *) runner;     /* the point running now; published for nn_sweep_cancel */
  atomic_int cancelling;           /* nn_sweep_cancel calls inside, using `runner` */
  bool ran;
  NnSweepStatus status;

  NnDataset *loaded;               /* owned: what nn_sweep_run loaded, when the request gave none */
  const NnDataset *dataset;        /* borrowed: the request's or `loaded` */
  NnSystemInfo system;
  int32_t threads_used;            /* the CPU points' thread count, 0 before one ran */
  char sweep_id[64];
  char started_at[32];
  char folder[4096];
  char file[4096 + 16];
  char reserve[4096 + 16];         /* the reserve's file while it is kept, else "" */
  char error[NN_ERROR_MESSAGE_MAX]; /* why the sweep failed, else "" */
};

/* ---------------------------------------------------------------- names */

static const char *const family_names[] = {
  [NN_SWEEP_MLP] = "mlp",
  [NN_SWEEP_CNN] = "cnn",
  [NN_SWEEP_SPEC] = "spec",
};

const char *
nn_sweep_family_name (NnSweepFamily family)
{
  if ((int) family < 0 || family > NN_SWEEP_SPEC)
    return "spec";
  return family_names[family];
}

static bool
same_word (const char *a, const char *b)
{
  for (; *a != '\0' && *b != '\0'; a++, b++)
    {
      int ca = (*a >= 'A' && *a <= 'Z') ? *a - 'A' + 'a' : *a;
      int cb = (*b >= 'A' && *b <= 'Z') ? *b - 'A' + 'a' : *b;
      if (ca != cb)
        return false;
    }
  return *a == *b;
}

NnStatus
nn_sweep_family_from_name (const char *name, NnSweepFamily *out, NnError *error)
{
  for (int i = 0; i <= NN_SWEEP_SPEC; i++)
    if (name != NULL && same_word (name, family_names[i]))
      {
        *out = (NnSweepFamily) i;
        return NN_OK;
      }
  return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                        "unknown model family '%s' (mlp, cnn or spec)", name ? name : "");
}

const char *
nn_sweep_status_name (NnSweepStatus status)
{
  switch (status)
    {
    case NN_SWEEP_RUNNING: return "running";
    case NN_SWEEP_COMPLETED: return "completed";
    case NN_SWEEP_CANCELLED: return "cancelled";
    case NN_SWEEP_FAILED: return "failed";
    }
  return "failed";
}

const char *
nn_sweep_point_status_name (NnSweepPointStatus status)
{
  switch (status)
    {
    case NN_SWEEP_POINT_PENDING: return "pending";
    case NN_SWEEP_POINT_RUNNING: return "running";
    case NN_SWEEP_POINT_COMPLETED: return "completed";
    case NN_SWEEP_POINT_FAILED: return "failed";
    case NN_SWEEP_POINT_CANCELLED: return "cancelled";
    }
  return "failed";
}

/* ---------------------------------------------------------------- requests */

void
nn_sweep_request_init (NnSweepRequest *request)
{
  memset (request, 0, sizeof *request);
  request->family = NN_SWEEP_MLP;
  request->steps = 200;
  request->warmup_steps = -1;
  nn_train_config_init (&request->config);
  request->dataset_name = "mnist";
}

static bool
name_char (char c, bool first)
{
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'
         || (!first && c >= '0' && c <= '9');
}

/* Whether `name` is an axis name: letters, digits and '_', not starting
 * with a digit, shorter than NN_SWEEP_NAME_MAX. */
static bool
name_valid (const char *name, size_t len)
{
  if (len == 0 || len >= NN_SWEEP_NAME_MAX)
    return false;
  for (size_t i = 0; i < len; i++)
    if (!name_char (name[i], i == 0))
      return false;
  return true;
}

/* The default grid of every family, the one both front ends start from.
 * The cnn's batches stop at 512 (128 and 512 bracket its preset's 256): at
 * 2048 its CPU step with F = 64 took 11.2 s on 2 cores, 2.2 s at 512, so a
 * row at 2048 would keep the CPU over an hour at 220 steps a point, longer
 * than all the rest of the sweep. */
static const int32_t default_sizes[] = { 32, 128, 512, 2048 };
static const int32_t default_filters[] = { 8, 16, 32, 64 };
static const int32_t default_cnn_batches[] = { 32, 128, 512 };

#define N_OF(a) ((int32_t) (sizeof (a) / sizeof (a)[0]))

static void
axis_set (NnSweepAxis *axis, const char *name, const int32_t *values, int32_t count)
{
  memset (axis, 0, sizeof *axis);
  snprintf (axis->name, sizeof axis->name, "%s", name);
  axis->count = count;
  if (count > 0)
    memcpy (axis->values, values, sizeof *values * (size_t) count);
}

/* Adds an axis to `out` (at most `max`), counting it in *n either way. */
static void
family_axis (NnSweepAxis *out, int32_t max, int32_t *n, const char *name, const int32_t *values,
             int32_t count)
{
  if (*n < max)
    axis_set (&out[*n], name, values, count);
  (*n)++;
}

int32_t
nn_sweep_family_axes (NnSweepFamily family, const char *template_text, NnSweepAxis *out,
                      int32_t max)
{
  int32_t n = 0;

  if (out == NULL || max < 0)
    max = 0;
  switch (family)
    {
    case NN_SWEEP_MLP:
      family_axis (out, max, &n, "W", default_sizes, N_OF (default_sizes));
      family_axis (out, max, &n, "D", NULL, 0);
      family_axis (out, max, &n, "batch", default_sizes, N_OF (default_sizes));
      break;
    case NN_SWEEP_CNN:
      family_axis (out, max, &n, "F", default_filters, N_OF (default_filters));
      family_axis (out, max, &n, "batch", default_cnn_batches, N_OF (default_cnn_batches));
      break;
    case NN_SWEEP_SPEC:
    default:
      /* each well-formed {NAME} once, in order; {batch} is the batch axis */
      for (const char *p = template_text; p != NULL && (p = strchr (p, '{')) != NULL; p++)
        {
          const char *close = strchr (p + 1, '}');
          char name[NN_SWEEP_NAME_MAX];
          size_t len = close != NULL ? (size_t) (close - p - 1) : 0;
          bool seen = false;

          if (close == NULL || !name_valid (p + 1, len))
            continue;
          memcpy (name, p + 1, len);
          name[len] = '\0';
          for (int32_t i = 0; i < n && i < max && !seen; i++)
            seen = strcmp (out[i].name, name) == 0;
          if (!seen && strcmp (name, "batch") != 0)
            family_axis (out, max, &n, name, default_sizes, N_OF (default_sizes));
        }
      family_axis (out, max, &n, "batch", default_sizes, N_OF (default_sizes));
      break;
    }
  return n;
}

void
nn_sweep_request_use_default_axes (NnSweepRequest *request)
{
  /* the mlp's D is the one axis without default values */
  NnSweepAxis axes[NN_SWEEP_AXES_MAX + 1];
  int32_t n = nn_sweep_family_axes (request->family, request->template_text, axes,
                                    N_OF (axes));

  memset (request->axes, 0, sizeof request->axes);
  request->axis_count = 0;
  for (int32_t i = 0; i < n && i < N_OF (axes); i++)
    if (axes[i].count > 0 && request->axis_count < NN_SWEEP_AXES_MAX)
      request->axes[request->axis_count++] = axes[i];
}

void
nn_sweep_request_use_default_devices (NnSweepRequest *request)
{
  NnDeviceInfo devices[32];
  int n;

  memset (request->devices, 0, sizeof request->devices);
  request->device_count = 1;
  snprintf (request->devices[0], sizeof request->devices[0], "cpu");
  n = nn_device_list (devices, N_OF (devices));
  for (int i = 0; i < n; i++)
    if (devices[i].kind == NN_DEVICE_CUDA && devices[i].index == 0 && devices[i].usable)
      snprintf (request->devices[request->device_count++], sizeof request->devices[0], "cuda:0");
}

NnStatus
nn_sweep_axis_parse (const char *text, NnSweepAxis *out, NnError *error)
{
  const char *eq = text != NULL ? strchr (text, '=') : NULL;
  const char *p;

  memset (out, 0, sizeof *out);
  if (eq == NULL)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "axis '%s' is not NAME=VALUES (W=32,128,512)", text ? text : "");
  if (!name_valid (text, (size_t) (eq - text)))
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "axis '%s': the name must be letters, digits or '_' (at most %d, "
                          "not starting with a digit)",
                          text, NN_SWEEP_NAME_MAX - 1);
  memcpy (out->name, text, (size_t) (eq - text));
  p = eq + 1;
  for (;;)
    {
      const char *start = p;
      long long v = 0;

      while (*p >= '0' && *p <= '9')
        {
          if (v <= NN_SWEEP_VALUE_MAX)
            v = v * 10 + (*p - '0');
          p++;
        }
      if (p == start || (*p != ',' && *p != '\0'))
        return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                              "axis '%s': '%.*s' is not a whole number", text,
                              (int) strcspn (start, ","), start);
      if (v < 1 || v > NN_SWEEP_VALUE_MAX)
        return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                              "axis '%s': %.*s is out of range (1 to %d)", text,
                              (int) (p - start), start, NN_SWEEP_VALUE_MAX);
      if (out->count == NN_SWEEP_VALUES_MAX)
        return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                              "axis %s has more than %d values", out->name, NN_SWEEP_VALUES_MAX);
      out->values[out->count++] = (int32_t) v;
      if (*p == '\0')
        break;
      p++;
    }
  return NN_OK;
}

/* ---------------------------------------------------------------- templates */

/* The cnn preset's layers with F and 2F filters. */
#define CNN_HEAD "conv2d %s 3 relu; conv2d %s 3 relu; maxpool 2; dropout 0.25; flatten; " \
                 "dense 128 relu; dropout 0.5; dense %d softmax"

static int32_t
axis_find (const NnSweepRequest *request, const char *name)
{
  for (int32_t i = 0; i < request->axis_count; i++)
    if (strcmp (request->axes[i].name, name) == 0)
      return i;
  return -1;
}

size_t
nn_sweep_template (const NnSweepRequest *request, int32_t classes, char *out, size_t size)
{
  char local[1], w[16], d[16], f[2][16];
  int n;

  if (out == NULL || size == 0)
    {
      out = local;
      size = sizeof local;
    }
  /* a parameter that is no axis is written as its value */
  if (axis_find (request, "W") >= 0)
    snprintf (w, sizeof w, "{W}");
  else
    snprintf (w, sizeof w, "128");
  snprintf (d, sizeof d, "{D}");
  if (axis_find (request, "F") >= 0)
    {
      snprintf (f[0], sizeof f[0], "{F}");
      snprintf (f[1], sizeof f[1], "{2F}");
    }
  else
    {
      snprintf (f[0], sizeof f[0], "32");
      snprintf (f[1], sizeof f[1], "64");
    }
  switch (request->family)
    {
    case NN_SWEEP_MLP:
      if (axis_find (request, "D") >= 0)
        n = snprintf (out, size, "flatten; dense %s relu (x %s); dense %d softmax", w, d,
                      (int) classes);
      else
        n = snprintf (out, size, "flatten; dense %s relu; dense %d softmax", w, (int) classes);
      break;
    case NN_SWEEP_CNN:
      n = snprintf (out, size, CNN_HEAD, f[0], f[1], (int) classes);
      break;
    case NN_SWEEP_SPEC:
    default:
      n = snprintf (out, size, "%s", request->template_text ? request->template_text : "");
      break;
    }
  return n < 0 ? 0 : (size_t) n;
}

/* The value of parameter `name` at a point: its axis's, or `fallback`. */
static int32_t
value_of (const NnSweepRequest *request, const int32_t *values, const char *name, int32_t fallback)
{
  int32_t a = axis_find (request, name);
  return a >= 0 ? values[a] : fallback;
}

/* Appends text to a spec being built; false when it no longer fits. */
static bool
append (char *out, size_t size, size_t *len, const char *text, size_t n)
{
  if (*len + n + 1 > size)
    return false;
  memcpy (out + *len, text, n);
  *len += n;
  out[*len] = '\0';
  return true;
}

/* The spec at one point of the grid (`values` in axis order). */
static NnStatus
point_spec (const NnSweepRequest *request, int32_t classes, int32_t batch,
            const int32_t *values, char *out, size_t size, NnError *error)
{
  char num[2][16];
  size_t len = 0;

  out[0] = '\0';
  if (request->family == NN_SWEEP_MLP)
    {
      int32_t w = value_of (request, values, "W", 128);
      int32_t d = value_of (request, values, "D", 1);
      char layer[48];
      int n = snprintf (layer, sizeof layer, "; dense %d relu", (int) w);

      append (out, size, &len, "flatten", 7);
      for (int32_t i = 0; i < d; i++)
        append (out, size, &len, layer, (size_t) n);
      n = snprintf (layer, sizeof layer, "; dense %d softmax", (int) classes);
      if (!append (out, size, &len, layer, (size_t) n))
        return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                              "the mlp of width %d and depth %d is longer than %d characters",
                              (int) w, (int) d, NN_SWEEP_TEMPLATE_MAX - 1);
      return NN_OK;
    }
  if (request->family == NN_SWEEP_CNN)
    {
      int32_t f = value_of (request, values, "F", 32);
      snprintf (num[0], sizeof num[0], "%d", (int) f);
      snprintf (num[1], sizeof num[1], "%lld", 2LL * f);
      snprintf (out, size, CNN_HEAD, num[0], num[1], (int) classes);
      return NN_OK;
    }

  /* a template: each {NAME} replaced by its axis's value */
  for (const char *p = request->template_text; *p != '\0';)
    {
      const char *open = strchr (p, '{');
      size_t n = open != NULL ? (size_t) (open - p) : strlen (p);
      bool fits = append (out, size, &len, p, n);

      if (fits && open != NULL)
        {
          const char *close = strchr (open + 1, '}');
          size_t name_len = close != NULL ? (size_t) (close - open - 1) : 0;
          char name[NN_SWEEP_NAME_MAX];
          int32_t v;

          /* nn_sweep_new checked every placeholder already */
          if (close == NULL || !name_valid (open + 1, name_len))
            return _nn_error_set (error, NN_ERROR_SPEC, "bad placeholder in the template");
          memcpy (name, open + 1, name_len);
          name[name_len] = '\0';
          v = strcmp (name, "batch") == 0 ? batch : value_of (request, values, name, 0);
          n = (size_t) snprintf (num[0], sizeof num[0], "%d", (int) v);
          fits = append (out, size, &len, num[0], n);
          p = close + 1;
        }
      else
        p += n;
      if (!fits)
        return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                              "the template's spec is longer than %d characters at a point",
                              NN_SWEEP_TEMPLATE_MAX - 1);
    }
  return NN_OK;
}

/* Every placeholder of a template has an axis (or is {batch}), and every
 * axis but batch is a placeholder of it. */
static NnStatus
check_template (const NnSweepRequest *request, NnError *error)
{
  bool used[NN_SWEEP_AXES_MAX] = { false };
  const char *t = request->template_text;

  if (t == NULL || t[0] == '\0')
    return _nn_error_set (error, NN_ERROR_SPEC, "the spec family needs a template");
  for (const char *p = t; (p = strpbrk (p, "{}")) != NULL;)
    {
      const char *close = *p == '{' ? strpbrk (p + 1, "{}") : NULL;
      size_t name_len;
      char name[NN_SWEEP_NAME_MAX];
      int32_t a;

      if (*p == '}')
        return _nn_error_set (error, NN_ERROR_SPEC,
                              "the template has a '}' with no '{' before it at character %d",
                              (int) (p - t) + 1);
      if (close == NULL || *close != '}')
        return _nn_error_set (error, NN_ERROR_SPEC,
                              "the template's '{' at character %d is not closed by '}'",
                              (int) (p - t) + 1);
      name_len = (size_t) (close - p - 1);
      if (!name_valid (p + 1, name_len))
        return _nn_error_set (error, NN_ERROR_SPEC,
                              "the template's placeholder '%.*s' is not {NAME} (letters, digits, "
                              "'_')",
                              (int) (close - p + 1 < 64 ? close - p + 1 : 64), p);
      memcpy (name, p + 1, name_len);
      name[name_len] = '\0';
      a = axis_find (request, name);
      if (a >= 0)
        used[a] = true;
      else if (strcmp (name, "batch") != 0)
        return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                              "the template's placeholder {%s} has no axis: give it values "
                              "(%s=...)",
                              name, name);
      p = close + 1;
    }
  for (int32_t i = 0; i < request->axis_count; i++)
    if (!used[i] && strcmp (request->axes[i].name, "batch") != 0)
      return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                            "axis %s is not a placeholder of the template (write {%s} in it)",
                            request->axes[i].name, request->axes[i].name);
  return NN_OK;
}

/* The axes: names the family takes, each once, values in range. */
static NnStatus
check_axes (const NnSweepRequest *request, NnError *error)
{
  if (request->axis_count < 0 || request->axis_count > NN_SWEEP_AXES_MAX)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "%d axes is more than a sweep takes (at most %d)",
                          (int) request->axis_count, NN_SWEEP_AXES_MAX);
  for (int32_t i = 0; i < request->axis_count; i++)
    {
      const NnSweepAxis *axis = &request->axes[i];
      const char *name = axis->name;
      bool batch;

      if (memchr (name, '\0', sizeof axis->name) == NULL
          || !name_valid (name, strlen (name)))
        return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                              "axis %d's name must be letters, digits or '_' (at most %d, not "
                              "starting with a digit)",
                              (int) i + 1, NN_SWEEP_NAME_MAX - 1);
      if (axis_find (request, name) != i)
        return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "axis %s is given twice", name);
      batch = strcmp (name, "batch") == 0;
      if (request->family == NN_SWEEP_MLP && !batch && strcmp (name, "W") != 0
          && strcmp (name, "D") != 0)
        return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                              "axis %s is not a parameter of the mlp family (W, D, batch)", name);
      if (request->family == NN_SWEEP_CNN && !batch && strcmp (name, "F") != 0)
        return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                              "axis %s is not a parameter of the cnn family (F, batch)", name);
      if (axis->count < 1 || axis->count > NN_SWEEP_VALUES_MAX)
        return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                              "axis %s has %d values (1 to %d)", name, (int) axis->count,
                              NN_SWEEP_VALUES_MAX);
      for (int32_t k = 0; k < axis->count; k++)
        {
          int32_t v = axis->values[k];
          int32_t max = batch ? NN_BATCH_SIZE_MAX
                              : request->family == NN_SWEEP_MLP && strcmp (name, "D") == 0
                                  ? NN_SWEEP_DEPTH_MAX
                                  : NN_SWEEP_VALUE_MAX;
          if (v < 1 || v > max)
            return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                                  "axis %s: %d is out of range (1 to %d)", name, (int) v,
                                  (int) max);
          for (int32_t m = 0; m < k; m++)
            if (axis->values[m] == v)
              return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                                    "axis %s has %d twice", name, (int) v);
        }
    }
  return NN_OK;
}

/* The devices, each parsed and written as "cpu" or "cuda:N", each once. */
static NnStatus
check_devices (NnSweepRequest *request, NnError *error)
{
  if (request->device_count < 1)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "a sweep needs a device");
  if (request->device_count > NN_SWEEP_DEVICES_MAX)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "%d devices is more than a sweep takes (at most %d)",
                          (int) request->device_count, NN_SWEEP_DEVICES_MAX);
  for (int32_t i = 0; i < request->device_count; i++)
    {
      char *text = request->devices[i];
      NnDeviceKind kind;
      int32_t index;
      NnStatus status;

      if (memchr (text, '\0', sizeof request->devices[i]) == NULL)
        return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "device %d's name is too long",
                              (int) i + 1);
      status = nn_device_parse (text, &kind, &index, error);
      if (status != NN_OK)
        return status;
      if (kind == NN_DEVICE_CPU)
        snprintf (text, sizeof request->devices[i], "cpu");
      else
        snprintf (text, sizeof request->devices[i], "cuda:%d", (int) index);
      for (int32_t k = 0; k < i; k++)
        if (strcmp (request->devices[k], text) == 0)
          return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "device %s is given twice",
                                text);
    }
  return NN_OK;
}

/* "W=128, batch=32" for messages about a point. */
static void
point_label (const NnSweepRequest *request, const int32_t *values, char *out, size_t size)
{
  size_t len = 0;

  out[0] = '\0';
  for (int32_t a = 0; a < request->axis_count && len < size; a++)
    {
      int n = snprintf (out + len, size - len, "%s%s=%d", a > 0 ? ", " : "",
                        request->axes[a].name, (int) values[a]);
      if (n < 0)
        break;
      len += (size_t) n;
    }
}

/* ---------------------------------------------------------------- the grid */

/* What nn_dataset_peek says of a data set, of one loaded already. */
static NnStatus
dataset_info (const NnDataset *dataset, NnDatasetInfo *info, NnError *error)
{
  bool *seen;

  memset (info, 0, sizeof *info);
  snprintf (info->name, sizeof info->name, "%s", dataset->name);
  snprintf (info->path, sizeof info->path, "%s", dataset->path);
  info->channels = dataset->train.channels;
  info->height = dataset->train.height;
  info->width = dataset->train.width;
  info->train_count = dataset->train.count;
  info->test_count = dataset->test.count;
  info->classes = dataset->classes;
  seen = calloc (256, sizeof *seen); /* labels are bytes */
  if (seen == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory");
  for (int32_t i = 0; i < dataset->train.count; i++)
    if (!seen[dataset->train.labels[i]])
      {
        seen[dataset->train.labels[i]] = true;
        info->labels_used++;
      }
  for (int32_t i = 0; i < dataset->test.count; i++)
    if (!seen[dataset->test.labels[i]])
      {
        seen[dataset->test.labels[i]] = true;
        info->labels_used++;
      }
  free (seen);
  return NN_OK;
}

NnStatus
nn_sweep_new (const NnSweepRequest *request, NnSweep **out, NnError *error)
{
  NnSweep *sweep;
  NnSweepRequest *r;
  NnDatasetInfo info;
  NnStatus status = NN_OK;
  int64_t count = 1;
  int32_t train_count;

  *out = NULL;
  if (request == NULL)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "no sweep request");
  if (request->dataset == NULL && (request->dataset_name == NULL || request->dataset_name[0] == '\0'))
    return _nn_error_field (error, _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                                                  "a sweep needs a data set"),
                            NN_FIELD_DATASET);
  sweep = calloc (1, sizeof *sweep);
  if (sweep == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for a sweep");
  sweep->request = *request;
  r = &sweep->request;
  atomic_init (&sweep->cancel, 0);
  atomic_init (&sweep->runner, NULL);
  atomic_init (&sweep->cancelling, 0);
  sweep->status = NN_SWEEP_RUNNING;

  /* the strings, copied so that the sweep holds its own */
  if (request->template_text != NULL
      && strlen (request->template_text) >= sizeof sweep->template_text)
    status = _nn_error_field (error,
                              _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                                             "the template is longer than %d characters",
                                             NN_SWEEP_TEMPLATE_MAX - 1),
                              NN_FIELD_TEMPLATE);
  else if (request->dataset_name != NULL
           && strlen (request->dataset_name) >= sizeof sweep->dataset_name)
    status = _nn_error_field (error,
                              _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                                             "%.200s...: path too long", request->dataset_name),
                              NN_FIELD_DATASET);
  else if (request->runs_folder != NULL
           && strlen (request->runs_folder) >= sizeof sweep->runs_folder - 64)
    status = _nn_error_field (error,
                              _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                                             "%.200s...: path too long", request->runs_folder),
                              NN_FIELD_RUNS_FOLDER);
  if (status != NN_OK)
    goto fail;
  snprintf (sweep->template_text, sizeof sweep->template_text, "%s",
            request->template_text ? request->template_text : "");
  snprintf (sweep->dataset_name, sizeof sweep->dataset_name, "%s",
            request->dataset_name ? request->dataset_name : "");
  if (request->runs_folder != NULL)
    snprintf (sweep->runs_folder, sizeof sweep->runs_folder, "%s", request->runs_folder);
  else
    nn_runs_dir (sweep->runs_folder, sizeof sweep->runs_folder);
  r->template_text = r->family == NN_SWEEP_SPEC ? sweep->template_text : NULL;
  r->dataset_name = request->dataset_name != NULL ? sweep->dataset_name : NULL;
  r->runs_folder = sweep->runs_folder;

  /* the settings */
  if ((int) r->family < 0 || r->family > NN_SWEEP_SPEC)
    status = _nn_error_field (error,
                              _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                                             "unknown model family %d", (int) r->family),
                              NN_FIELD_FAMILY);
  else if (r->steps < 1 || r->steps > NN_SWEEP_STEPS_MAX)
    status = _nn_error_field (error,
                              _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                                             "%d steps a point is out of range (1 to %d)",
                                             (int) r->steps, NN_SWEEP_STEPS_MAX),
                              NN_FIELD_STEPS);
  else if (r->warmup_steps > NN_SWEEP_STEPS_MAX)
    status = _nn_error_field (error,
                              _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                                             "%d warm-up steps is out of range (0 to %d)",
                                             (int) r->warmup_steps, NN_SWEEP_STEPS_MAX),
                              NN_FIELD_WARMUP_STEPS);
  else if (r->limit_train < 0)
    status = _nn_error_field (error,
                              _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                                             "the training sample limit %d is negative",
                                             (int) r->limit_train),
                              NN_FIELD_LIMIT_TRAIN);
  if (status == NN_OK)
    status = _nn_error_field (error, check_axes (r, error), NN_FIELD_AXES);
  /* an axis the template lacks is the template's too: it says to write
   * the placeholder in */
  if (status == NN_OK && r->family == NN_SWEEP_SPEC)
    status = _nn_error_field (error, check_template (r, error), NN_FIELD_TEMPLATE);
  if (status == NN_OK)
    status = _nn_error_field (error, check_devices (r, error), NN_FIELD_DEVICES);
  if (status != NN_OK)
    goto fail;
  if (r->warmup_steps < 0)
    r->warmup_steps = r->steps / 10 > 10 ? r->steps / 10 : 10;

  /* the data set's shape and classes, for the families' output layers and
   * to check every point's model against */
  if (r->dataset != NULL)
    status = dataset_info (r->dataset, &info, error);
  else
    status = nn_dataset_peek (r->dataset_name, &info, error);
  status = _nn_error_field (error, status, NN_FIELD_DATASET);
  if (status != NN_OK)
    goto fail;
  sweep->classes = info.classes;
  train_count = info.train_count;
  if (r->limit_train > 0 && r->limit_train < train_count)
    train_count = r->limit_train;

  /* the grid */
  for (int32_t a = 0; a < r->axis_count; a++)
    count *= r->axes[a].count;
  count *= r->device_count;
  if (count > NN_SWEEP_POINTS_MAX)
    {
      status = _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                              "the sweep has %lld points, more than the limit of %d",
                              (long long) count, NN_SWEEP_POINTS_MAX);
      _nn_error_field (error, status, NN_FIELD_AXES);
      goto fail;
    }
  sweep->batch_axis = axis_find (r, "batch");
  if (sweep->batch_axis < 0
      && (r->config.batch_size < 1 || r->config.batch_size > NN_BATCH_SIZE_MAX))
    {
      status = _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                              "batch size %d is out of range (1 to %d)",
                              (int) r->config.batch_size, NN_BATCH_SIZE_MAX);
      _nn_error_field (error, status, NN_FIELD_BATCH_SIZE);
      goto fail;
    }
  sweep->points = calloc ((size_t) count, sizeof *sweep->points);
  if (sweep->points == NULL)
    {
      status = _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for %lld points",
                              (long long) count);
      goto fail;
    }
  sweep->point_count = (int32_t) count;
  for (int32_t i = 0; i < sweep->point_count; i++)
    {
      NnSweepPoint *p = &sweep->points[i];
      int32_t rest = i / r->device_count;
      NnSpec *spec = NULL;

      p->index = i;
      p->device = i % r->device_count;
      /* the last axis changes fastest */
      for (int32_t a = r->axis_count - 1; a >= 0; a--)
        {
          p->values[a] = r->axes[a].values[rest % r->axes[a].count];
          rest /= r->axes[a].count;
        }
      p->batch_size = sweep->batch_axis >= 0 ? p->values[sweep->batch_axis] : r->config.batch_size;
      snprintf (p->device_text, sizeof p->device_text, "%s", r->devices[p->device]);
      snprintf (p->device_name, sizeof p->device_name, "%s", p->device_text);
      p->device_kind = strcmp (p->device_text, "cpu") == 0 ? NN_DEVICE_CPU : NN_DEVICE_CUDA;
      p->status = NN_SWEEP_POINT_PENDING;
      p->step_seconds_median = p->step_seconds_p10 = p->step_seconds_p90 = NAN;
      p->samples_per_second = NAN;
      p->seconds = NAN;
      if (p->device > 0)
        {
          /* the same model as the point before, on another device */
          memcpy (p->spec, sweep->points[i - 1].spec, sizeof p->spec);
          p->params = sweep->points[i - 1].params;
          continue;
        }
      /* a spec too long for the values is the axes' fault; one that does
       * not parse or fit, the template's, or the family's on this data */
      status = _nn_error_field (error,
                                point_spec (r, sweep->classes, p->batch_size, p->values, p->spec,
                                            sizeof p->spec, error),
                                r->family == NN_SWEEP_SPEC ? NN_FIELD_TEMPLATE : NN_FIELD_AXES);
      if (status == NN_OK)
        status = nn_spec_parse (p->spec, &spec, error);
      if (status == NN_OK)
        status = nn_spec_check_data (spec, &info, error);
      if (status == NN_OK)
        {
          NnInputShape input = { info.channels, info.height, info.width };
          status = nn_spec_infer (spec, input, NULL, &p->params, error);
        }
      nn_spec_free (spec);
      if (status != NN_OK && error != NULL && error->field == NN_FIELD_NONE)
        _nn_error_field (error, status,
                         r->family == NN_SWEEP_SPEC ? NN_FIELD_TEMPLATE : NN_FIELD_FAMILY);
      if (status == NN_OK && p->batch_size > train_count)
        status = _nn_error_field (error,
                                  _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                                                 "batch %d is larger than the data set's %d "
                                                 "training samples",
                                                 (int) p->batch_size, (int) train_count),
                                  sweep->batch_axis >= 0 ? NN_FIELD_AXES : NN_FIELD_BATCH_SIZE);
      if (status != NN_OK)
        {
          char label[128];
          point_label (r, p->values, label, sizeof label);
          if (label[0] != '\0')
            _nn_error_prefix (error, "at %s", label);
          goto fail;
        }
    }
  *out = sweep;
  return NN_OK;

fail:
  nn_sweep_free (sweep);
  return status;
}

void
nn_sweep_free (NnSweep *sweep)
{
  if (sweep == NULL)
    return;
  nn_dataset_free (sweep->loaded);
  free (sweep->points);
  free (sweep);
}

void
nn_sweep_cancel (NnSweep *sweep)
{
  NnRunner *runner;

  if (sweep == NULL)
    return;
  /* The flag first, then the runner: the sweep publishes a runner, then
   * reads the flag, so one of the two sides always sees the other. The
   * count keeps the runner alive while it is used here: the sweep takes
   * it back, then waits for the count to fall to 0 before freeing it. No
   * lock, so a signal handler may call this (on the sweep's own thread the
   * handler ends before the sweep goes on). */
  atomic_store (&sweep->cancel, 1);
  atomic_fetch_add (&sweep->cancelling, 1);
  runner = atomic_load (&sweep->runner);
  if (runner != NULL)
    nn_runner_cancel (runner);
  atomic_fetch_sub (&sweep->cancelling, 1);
}

static bool
sweep_cancelled (NnSweep *sweep)
{
  return atomic_load (&sweep->cancel) != 0;
}

const char *
nn_sweep_id (const NnSweep *sweep)
{
  return sweep->sweep_id;
}

const char *
nn_sweep_folder (const NnSweep *sweep)
{
  return sweep->folder;
}

const char *
nn_sweep_file (const NnSweep *sweep)
{
  return sweep->file;
}

NnSweepStatus
nn_sweep_status (const NnSweep *sweep)
{
  return sweep->status;
}

int32_t
nn_sweep_point_count (const NnSweep *sweep)
{
  return sweep->point_count;
}

const NnSweepPoint *
nn_sweep_point (const NnSweep *sweep, int32_t index)
{
  if (index < 0 || index >= sweep->point_count)
    return NULL;
  return &sweep->points[index];
}

const NnSweepRequest *
nn_sweep_request (const NnSweep *sweep)
{
  return &sweep->request;
}

/* ---------------------------------------------------------------- the sweep file */

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
key_string (NnJson *j, const char *key, const char *value, size_t max)
{
  _nn_json_key (j, key);
  _nn_json_string_bounded (j, value, max);
}

#define KEY_STR(json, key, field) key_string ((json), (key), (field), sizeof (field))

static void
write_point (NnJson *j, const NnSweep *sweep, const NnSweepPoint *p)
{
  const NnSweepRequest *r = &sweep->request;

  _nn_json_begin_object (j);
  _nn_json_key (j, "values");
  _nn_json_begin_object (j);
  for (int32_t a = 0; a < r->axis_count; a++)
    key_int (j, r->axes[a].name, p->values[a]);
  _nn_json_end_object (j);
  key_int (j, "batch_size", p->batch_size);
  KEY_STR (j, "device", p->device_text);
  _nn_json_key (j, "device_kind");
  _nn_json_string (j, p->device_kind == NN_DEVICE_CUDA ? "cuda" : "cpu");
  KEY_STR (j, "device_name", p->device_name);
  KEY_STR (j, "spec", p->spec);
  key_int (j, "params", p->params);
  _nn_json_key (j, "status");
  _nn_json_string (j, nn_sweep_point_status_name (p->status));
  if (p->error[0] != '\0' && p->status != NN_SWEEP_POINT_COMPLETED)
    KEY_STR (j, "error", p->error);
  key_int (j, "steps_measured", p->steps_measured);
  key_double (j, "step_seconds_median", p->step_seconds_median);
  key_double (j, "step_seconds_p10", p->step_seconds_p10);
  key_double (j, "step_seconds_p90", p->step_seconds_p90);
  key_double (j, "samples_per_second", p->samples_per_second);
  key_double (j, "seconds", p->seconds);
  if (p->breakdown.measured)
    _nn_result_json_breakdown (j, &p->breakdown, p->device_kind);
  _nn_json_key (j, "result");
  if (p->result_file[0] != '\0')
    _nn_json_string_bounded (j, p->result_file, sizeof p->result_file);
  else
    _nn_json_null (j);
  _nn_json_end_object (j);
}

static void
write_sweep (NnJson *j, const NnSweep *sweep)
{
  const NnSweepRequest *r = &sweep->request;
  char template_text[NN_SWEEP_TEMPLATE_MAX];

  _nn_json_begin_object (j);
  _nn_json_key (j, "kind");
  _nn_json_string (j, "trainbench-sweep");
  key_int (j, "schema", 1);
  _nn_json_key (j, "app_version");
  _nn_json_string (j, NN_VERSION_STRING);
  KEY_STR (j, "sweep_id", sweep->sweep_id);
  KEY_STR (j, "started_at", sweep->started_at);
  _nn_json_key (j, "status");
  _nn_json_string (j, nn_sweep_status_name (sweep->status));
  if (sweep->error[0] != '\0')
    KEY_STR (j, "error", sweep->error);

  _nn_result_json_system (j, &sweep->system, NULL);

  _nn_json_key (j, "dataset");
  _nn_json_begin_object (j);
  if (sweep->dataset != NULL)
    {
      KEY_STR (j, "name", sweep->dataset->name);
      KEY_STR (j, "path", sweep->dataset->path);
      key_int (j, "train_samples", sweep->dataset->train.count);
    }
  else
    {
      KEY_STR (j, "name", sweep->dataset_name);
      KEY_STR (j, "path", "");
    }
  _nn_json_end_object (j);

  _nn_json_key (j, "model");
  _nn_json_begin_object (j);
  _nn_json_key (j, "family");
  _nn_json_string (j, nn_sweep_family_name (r->family));
  nn_sweep_template (r, sweep->classes, template_text, sizeof template_text);
  KEY_STR (j, "template", template_text);
  _nn_json_end_object (j);

  _nn_json_key (j, "axes");
  _nn_json_begin_array (j);
  for (int32_t a = 0; a < r->axis_count; a++)
    {
      _nn_json_begin_object (j);
      KEY_STR (j, "name", r->axes[a].name);
      _nn_json_key (j, "values");
      _nn_json_begin_array_inline (j);
      for (int32_t k = 0; k < r->axes[a].count; k++)
        _nn_json_int (j, r->axes[a].values[k]);
      _nn_json_end_array (j);
      _nn_json_end_object (j);
    }
  _nn_json_end_array (j);

  _nn_json_key (j, "devices");
  _nn_json_begin_array_inline (j);
  for (int32_t d = 0; d < r->device_count; d++)
    _nn_json_string_bounded (j, r->devices[d], sizeof r->devices[d]);
  _nn_json_end_array (j);
  key_int (j, "threads", sweep->threads_used > 0 ? sweep->threads_used : r->config.device.threads);
  key_int (j, "steps", r->steps);
  key_int (j, "warmup_steps", r->warmup_steps);
  _nn_json_key (j, "optimizer");
  _nn_json_string (j, nn_optimizer_name (r->config.optimizer.kind));
  _nn_json_key (j, "loss");
  _nn_json_string (j, nn_loss_name (r->config.loss));
  _nn_json_key (j, "seed");
  _nn_json_uint (j, r->config.seed);
  /* how the points fed and drove their devices, as asked; each point's
   * file says how it ran (graph never on the CPU, which captures nothing) */
  _nn_result_json_conditions (j, nn_conditions_name (&r->config.conditions),
                              &r->config.conditions);

  _nn_json_key (j, "points");
  _nn_json_begin_array (j);
  for (int32_t i = 0; i < sweep->point_count; i++)
    write_point (j, sweep, &sweep->points[i]);
  _nn_json_end_array (j);
  _nn_json_end_object (j);
}

/* sweep.json, in full or not at all (nn-file.c). */
static NnStatus
sweep_file_write (NnSweep *sweep, NnError *error)
{
  NnJson json;
  NnStatus status;

  _nn_json_init (&json);
  write_sweep (&json, sweep);
  if (!_nn_json_ok (&json))
    {
      _nn_json_free (&json);
      return _nn_error_set (error, NN_ERROR_NO_MEMORY, "%s: out of memory writing the sweep",
                            sweep->file);
    }
  status = _nn_file_write_atomically (sweep->file, json.data, json.len, false, error);
  _nn_json_free (&json);
  return status;
}

/* The most bytes sweep.json can take, 0 when out of memory: the sweep
 * written with every point at its longest (cancelled, with an error and a
 * device name of characters JSON writes in six bytes, every figure and the
 * breakdown at their longest) and its own error so. */
static size_t
sweep_file_bound (const NnSweep *sweep)
{
  const double longest = -1.2345678901234567e-300; /* as many digits as a double prints */
  NnSweep *worst = malloc (sizeof *worst);
  NnSweepPoint *points = malloc ((size_t) sweep->point_count * sizeof *points + 1);
  size_t bound = 0;

  if (worst != NULL && points != NULL)
    {
      NnJson json;

      *worst = *sweep;
      worst->points = points;
      worst->status = NN_SWEEP_CANCELLED;
      worst->threads_used = INT32_MAX;
      memset (worst->error, 1, sizeof worst->error - 1);
      worst->error[sizeof worst->error - 1] = '\0';
      for (int32_t i = 0; i < sweep->point_count; i++)
        {
          NnSweepPoint *w = &points[i];
          *w = sweep->points[i];
          w->status = NN_SWEEP_POINT_CANCELLED;
          memset (w->error, 1, sizeof w->error - 1);
          w->error[sizeof w->error - 1] = '\0';
          memset (w->device_name, 1, sizeof w->device_name - 1);
          w->device_name[sizeof w->device_name - 1] = '\0';
          memset (w->result_file, 'x', sizeof w->result_file - 1);
          w->result_file[sizeof w->result_file - 1] = '\0';
          w->steps_measured = INT64_MIN;
          w->step_seconds_median = w->step_seconds_p10 = w->step_seconds_p90 = longest;
          w->samples_per_second = w->seconds = longest;
          w->breakdown.measured = true;
          w->breakdown.steps = INT64_MIN;
          w->breakdown.step_seconds = w->breakdown.device_busy_seconds = longest;
          w->breakdown.copy_bytes = w->breakdown.evaluation_seconds = longest;
          for (int k = 0; k < NN_BREAKDOWN_PARTS; k++)
            w->breakdown.part_seconds[k] = longest;
        }
      _nn_json_init (&json);
      write_sweep (&json, worst);
      bound = _nn_json_ok (&json) ? json.len : 0;
      _nn_json_free (&json);
    }
  free (points);
  free (worst);
  return bound;
}

/* Keep room for the sweep's last sweep.json (SWEEP_RESERVE in its folder,
 * the most it can take), so that a disk that fills while the sweep runs
 * still takes the record of how it ended: the reserve is freed just before
 * that record is written. Its bytes are written, not a hole, and are not
 * zeros, which a compressing file system would keep in no room at all. */
static NnStatus
reserve_make (NnSweep *sweep, NnError *error)
{
  size_t bound = sweep_file_bound (sweep);
  uint32_t x = 0x9e3779b9u;
  unsigned char block[16384];
  int e = 0;

  if (bound == 0)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "%s: out of memory writing the sweep",
                          sweep->file);
  if (!nn_path_join (sweep->reserve, sizeof sweep->reserve, sweep->folder, SWEEP_RESERVE))
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "%.200s...: path too long",
                          sweep->folder);
  FILE *f = _nn_os_create_new (sweep->reserve);
  if (f == NULL)
    {
      e = errno;
      sweep->reserve[0] = '\0';
      return _nn_error_set (error, NN_ERROR_IO, "%s: could not create the sweep's files: %s",
                            sweep->folder, strerror (e));
    }
  for (size_t left = bound + SWEEP_RESERVE_SLACK; left > 0 && e == 0;)
    {
      size_t n = left < sizeof block ? left : sizeof block;
      for (size_t i = 0; i < n; i++)
        {
          x ^= x << 13;
          x ^= x >> 17;
          x ^= x << 5;
          block[i] = (unsigned char) x;
        }
      errno = 0;
      if (fwrite (block, 1, n, f) != n)
        e = errno != 0 ? errno : EIO;
      left -= n;
    }
  if (e == 0)
    e = _nn_os_sync_file (f);
  if (fclose (f) != 0 && e == 0)
    e = errno != 0 ? errno : EIO;
  if (e != 0)
    {
      _nn_os_remove (sweep->reserve);
      sweep->reserve[0] = '\0';
      return _nn_error_set (error, NN_ERROR_IO,
                            "%s: no room for the sweep's files (it keeps %.1f KiB to record how "
                            "it ends): %s",
                            sweep->folder, (double) (bound + SWEEP_RESERVE_SLACK) / 1024.0,
                            strerror (e));
    }
  return NN_OK;
}

/* The sweep's last sweep.json, written in the room its reserve kept. */
static NnStatus
sweep_file_finish (NnSweep *sweep, NnError *error)
{
  if (sweep->reserve[0] != '\0')
    {
      _nn_os_remove (sweep->reserve);
      sweep->reserve[0] = '\0';
    }
  return sweep_file_write (sweep, error);
}

/* The sweep's files could not be written (`status`, `error`: why; a full
 * disk): it ends failed with that reason and its points as they are, in a
 * last sweep.json. Returns `status`. */
static NnStatus
sweep_files_failed (NnSweep *sweep, NnStatus status, NnError *error)
{
  NnError last;

  sweep->status = NN_SWEEP_FAILED;
  snprintf (sweep->error, sizeof sweep->error, "%s", error->message);
  nn_error_clear (&last);
  if (sweep_file_finish (sweep, &last) != NN_OK)
    _nn_error_set (error, status, "%.500s (nor could %s record how the sweep ended: %.300s)",
                   sweep->error, sweep->file, last.message);
  return status;
}

/* RUNS/sweeps/SWEEP_ID/, a folder no other sweep has: the id's last 4 hex
 * digits are drawn again while the name is taken. */
static NnStatus
folder_make (NnSweep *sweep, NnError *error)
{
  char parent[4096 + 16];
  char stamp[32];
  struct tm tm;
  time_t t = time (NULL);
  NnStatus status;

  if (!nn_path_join (parent, sizeof parent, sweep->runs_folder, SWEEP_FOLDER))
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "%.200s...: path too long",
                          sweep->runs_folder);
  status = nn_folder_create (parent, error);
  if (status != NN_OK)
    return status;
  _nn_os_gmtime (t, &tm);
  /* each field in its range, which the buffers are sized for */
  unsigned year = (unsigned) (tm.tm_year + 1900) % 10000u, mon = (unsigned) (tm.tm_mon + 1) % 100u;
  unsigned day = (unsigned) tm.tm_mday % 100u, hour = (unsigned) tm.tm_hour % 100u;
  unsigned min = (unsigned) tm.tm_min % 100u, sec = (unsigned) tm.tm_sec % 100u;
  snprintf (stamp, sizeof stamp, "%04u%02u%02uT%02u%02u%02uZ", year, mon, day, hour, min, sec);
  snprintf (sweep->started_at, sizeof sweep->started_at, "%04u-%02u-%02uT%02u:%02u:%02uZ", year,
            mon, day, hour, min, sec);
  for (int attempt = 0; attempt < 64; attempt++)
    {
      int e;

      snprintf (sweep->sweep_id, sizeof sweep->sweep_id, "%s-sweep-%s-%04x", stamp,
                nn_sweep_family_name (sweep->request.family),
                (unsigned) (_nn_random_u32 () & 0xffff));
      if (!nn_path_join (sweep->folder, sizeof sweep->folder, parent, sweep->sweep_id)
          || !nn_path_join (sweep->file, sizeof sweep->file, sweep->folder, SWEEP_FILE))
        return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "%.200s...: path too long",
                              parent);
      e = _nn_os_make_folder (sweep->folder);
      if (e == 0)
        return NN_OK;
      if (e != EEXIST)
        return _nn_error_set (error, NN_ERROR_IO, "%s: could not create the folder: %s",
                              sweep->folder, strerror (e));
    }
  return _nn_error_set (error, NN_ERROR_IO, "%s: no free name for the sweep after 64 tries",
                        parent);
}

/* ---------------------------------------------------------------- running */

/* A point's work, in the units the ETA counts: its parameters x batch x
 * steps, which a large dense model's time follows (and a conv model's
 * roughly); at least 1. */
static double
work (const NnSweep *sweep, const NnSweepPoint *p)
{
  double w = (double) (p->params > 0 ? p->params : 1) * p->batch_size
             * (sweep->request.warmup_steps + sweep->request.steps);
  return w > 1 ? w : 1;
}

/* A least-squares line y = c + k x through points of (log work, log
 * seconds), kept as the sums it is made of. */
typedef struct
{
  double n, x, y, xx, xy;
} LogFit;

static void
log_fit_add (LogFit *f, double work, double seconds)
{
  double x = log (work), y = log (seconds);
  f->n += 1;
  f->x += x;
  f->y += y;
  f->xx += x * x;
  f->xy += x * y;
}

/* The slope, 0 to 1; false where the points have one work only. */
static bool
log_fit_slope (const LogFit *f, double *k)
{
  double sxx = f->xx - f->x * f->x / f->n;
  if (f->n < 2 || !(sxx > 1e-9 * (f->xx > 1 ? f->xx : 1)))
    return false;
  *k = (f->xy - f->x * f->y / f->n) / sxx;
  *k = *k < 0 ? 0 : *k > 1 ? 1 : *k;
  return true;
}

/* Each point left at seconds = c * work^k, fitted in logs to the points
 * done of its device (k from all points done where the device's have one
 * work, c from all of them where it has none done yet). A point's fixed
 * costs (model, data, warm-up) make a small point's time far from
 * proportional to its work: at seconds per unit of work, the default
 * sweep's second point (the GPU's first) put 29 minutes on a sweep that
 * took 12 s on an H100 (bench/results/h100-gpu-2026-12-06.md). */
double
_nn_sweep_eta (const NnSweepEtaPoint *points, int32_t count)
{
  LogFit all = { 0 }, dev[NN_SWEEP_DEVICES_MAX] = { { 0 } };
  double k_all, left = 0;

  for (int32_t i = 0; i < count; i++)
    if (points[i].done && points[i].work > 0 && points[i].seconds > 0
        && isfinite (points[i].seconds))
      {
        log_fit_add (&all, points[i].work, points[i].seconds);
        log_fit_add (&dev[points[i].device], points[i].work, points[i].seconds);
      }
  if (!log_fit_slope (&all, &k_all))
    return -1.0;
  for (int32_t i = 0; i < count; i++)
    {
      const LogFit *f = &dev[points[i].device];
      double k = k_all;
      if (!points[i].left)
        continue;
      if (f->n == 0)
        f = &all;
      else
        log_fit_slope (f, &k);
      left += exp ((f->y - k * f->x) / f->n + k * log (points[i].work));
    }
  return left;
}

/* The sweep's ETA (_nn_sweep_eta) over its points, at work(). */
static double
eta (const NnSweep *sweep)
{
  NnSweepEtaPoint *points = calloc ((size_t) sweep->point_count, sizeof *points);
  if (points == NULL)
    return -1.0;
  for (int32_t i = 0; i < sweep->point_count; i++)
    {
      const NnSweepPoint *p = &sweep->points[i];
      points[i].work = work (sweep, p);
      points[i].device = p->device;
      points[i].done = p->status == NN_SWEEP_POINT_COMPLETED;
      points[i].left = p->status == NN_SWEEP_POINT_PENDING
                       || p->status == NN_SWEEP_POINT_RUNNING;
      points[i].seconds = p->seconds;
    }
  double seconds = _nn_sweep_eta (points, sweep->point_count);
  free (points);
  return seconds;
}

static bool
report (NnSweep *sweep, NnSweepProgressKind kind, const NnSweepPoint *point, int32_t done,
        double t_start)
{
  NnSweepProgress progress;

  if (sweep->request.progress == NULL)
    return true;
  memset (&progress, 0, sizeof progress);
  progress.kind = kind;
  progress.index = point->index;
  progress.count = sweep->point_count;
  progress.done = done;
  progress.point = point;
  progress.elapsed_seconds = _nn_now () - t_start;
  progress.eta_seconds = eta (sweep);
  return sweep->request.progress (&progress, sweep->request.progress_data);
}

/* Whether each device can run, once for the sweep: the CPU always; a GPU
 * when the device list finds it usable, else the reason. */
static void
devices_check (NnSweep *sweep, bool *usable, char (*reason)[NN_ERROR_MESSAGE_MAX],
               NnDeviceInfo *info)
{
  const NnSweepRequest *r = &sweep->request;
  NnDeviceInfo devices[64];
  int n = -1;

  for (int32_t d = 0; d < r->device_count; d++)
    {
      NnDeviceKind kind;
      int32_t index;
      NnError ignored;

      usable[d] = true;
      reason[d][0] = '\0';
      memset (&info[d], 0, sizeof info[d]);
      if (nn_device_parse (r->devices[d], &kind, &index, &ignored) != NN_OK
          || kind == NN_DEVICE_CPU)
        {
          nn_device_cpu (&info[d]);
          continue;
        }
      if (n < 0)
        n = nn_device_list (devices, (int) (sizeof devices / sizeof devices[0]));
      usable[d] = false;
      info[d].kind = NN_DEVICE_CUDA;
      info[d].index = index;
      snprintf (reason[d], sizeof reason[d], "%s: no such GPU here", r->devices[d]);
      for (int i = 0; i < n; i++)
        {
          if (devices[i].kind != NN_DEVICE_CUDA)
            continue;
          if (devices[i].index == index)
            {
              info[d] = devices[i];
              usable[d] = devices[i].usable;
              snprintf (reason[d], sizeof reason[d], "%s: %s", r->devices[d],
                        usable[d] ? "" : devices[i].reason[0] != '\0' ? devices[i].reason
                                                                      : "not usable");
              break;
            }
          /* the one entry of a machine without GPUs, which says why */
          if (!devices[i].usable && devices[i].reason[0] != '\0')
            snprintf (reason[d], sizeof reason[d], "%s: %s", r->devices[d], devices[i].reason);
        }
      if (usable[d])
        reason[d][0] = '\0';
    }
}

/* Epochs enough for `steps` steps of `batch` rows on `count` samples. */
static int32_t
epochs_for (int64_t steps, int32_t batch, int32_t count)
{
  int64_t per_epoch = ((int64_t) count + batch - 1) / batch;
  int64_t epochs = (steps + per_epoch - 1) / per_epoch;
  return epochs > NN_EPOCHS_MAX ? NN_EPOCHS_MAX : (int32_t) epochs;
}

/* One point: a recorded run of warm-up + steps steps into point-NNNN.json;
 * `file_error` gets why that file could not be written (NN_OK when it
 * was, or none was to be). */
static NnStatus
point_run (NnSweep *sweep, NnSweepPoint *p, const NnDeviceInfo *device, NnError *error,
           NnError *file_error)
{
  const NnSweepRequest *r = &sweep->request;
  NnRunRequest run;
  NnRunner *runner = NULL;
  const NnRunResult *result;
  char path[sizeof sweep->folder + 32];
  NnDataset view;
  NnStatus status;
  int64_t max_steps = (int64_t) r->warmup_steps + r->steps;
  int32_t train = sweep->dataset->train.count;

  snprintf (p->result_file, sizeof p->result_file, "point-%04d.json", (int) p->index + 1);
  if (!nn_path_join (path, sizeof path, sweep->folder, p->result_file))
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "%.200s...: path too long",
                          sweep->folder);
  if (p->batch_size > train)
    {
      p->result_file[0] = '\0';
      return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                            "batch %d is larger than the data set's %d training samples",
                            (int) p->batch_size, (int) train);
    }

  nn_run_request_init (&run);
  run.config = r->config;
  run.config.spec_text = p->spec;
  run.config.model_name = NULL;
  run.config.batch_size = p->batch_size;
  run.config.device.kind = device->kind;
  run.config.device.index = device->index;
  run.config.max_steps = (int32_t) max_steps;
  run.config.warmup_steps = r->warmup_steps;
  /* The training samples the point's steps take, the first ones of the
   * shared data set (a view, nothing copied), when they are fewer than all:
   * the trainer then puts no more on the device than the point uses (the
   * CPU's 47 MB copy of Fashion-MNIST was most of a short point's
   * overhead), and the steps are one epoch of whole batches; else the
   * whole batches of all of them, so that no short last batch of an epoch
   * is timed with the others. The test set is not used. */
  view = *sweep->dataset;
  if (max_steps * p->batch_size < train)
    view.train.count = (int32_t) (max_steps * p->batch_size);
  else
    view.train.count = train / p->batch_size * p->batch_size; /* epochs of whole batches */
  run.config.epochs = epochs_for (max_steps, p->batch_size, view.train.count);
  run.config.skip_evaluation = true;
  run.dataset = &view;
  run.result_path = path;
  run.sweep_id = sweep->sweep_id;
  run.system = &sweep->system;

  status = nn_runner_new (&run, &runner, error);
  if (status != NN_OK)
    {
      p->result_file[0] = '\0';
      return status;
    }
  atomic_store (&sweep->runner, runner);
  if (sweep_cancelled (sweep))
    nn_runner_cancel (runner);
  status = nn_runner_run (runner, error);
  atomic_store (&sweep->runner, NULL);
  while (atomic_load (&sweep->cancelling) != 0)
    _nn_os_yield ();

  result = nn_runner_result (runner);
  if (nn_runner_result_path (runner) == NULL)
    p->result_file[0] = '\0';
  nn_runner_write_status (runner, file_error);
  if (result->device.name[0] != '\0')
    snprintf (p->device_name, sizeof p->device_name, "%s", result->device.name);
  if (device->kind == NN_DEVICE_CPU && result->threads > 0)
    sweep->threads_used = result->threads;
  if (status == NN_OK)
    {
      p->steps_measured = result->steps_timed;
      p->step_seconds_median = result->step_seconds_median;
      p->step_seconds_p10 = result->step_seconds_p10;
      p->step_seconds_p90 = result->step_seconds_p90;
      p->samples_per_second = result->step_seconds_median > 0
                                ? p->batch_size / result->step_seconds_median
                                : NAN;
      p->breakdown = result->breakdown;
    }
  nn_runner_free (runner);
  return status;
}

NnStatus
nn_sweep_run (NnSweep *sweep, NnError *error)
{
  const NnSweepRequest *r = &sweep->request;
  bool usable[NN_SWEEP_DEVICES_MAX];
  char reason[NN_SWEEP_DEVICES_MAX][NN_ERROR_MESSAGE_MAX];
  NnDeviceInfo devices[NN_SWEEP_DEVICES_MAX];
  NnError local;
  NnStatus status = NN_OK;
  double t_start = _nn_now ();
  int32_t done = 0;

  if (error == NULL)
    error = &local;
  nn_error_clear (error);
  if (sweep->ran)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "this sweep has already run");
  sweep->ran = true;

  /* the data set, once for every point */
  sweep->dataset = r->dataset;
  if (sweep->dataset == NULL)
    {
      status = nn_dataset_load (r->dataset_name, &sweep->loaded, error);
      if (status != NN_OK)
        {
          sweep->status = NN_SWEEP_FAILED;
          return status;
        }
      if (r->limit_train > 0)
        nn_dataset_truncate (sweep->loaded, r->limit_train, 0);
      sweep->dataset = sweep->loaded;
    }
  if (sweep_cancelled (sweep))
    {
      sweep->status = NN_SWEEP_CANCELLED;
      return _nn_error_set (error, NN_ERROR_CANCELLED, "the sweep was cancelled before its first point");
    }

  devices_check (sweep, usable, reason, devices);
  nn_system_info (&sweep->system);
  status = folder_make (sweep, error);
  if (status != NN_OK)
    {
      sweep->status = NN_SWEEP_FAILED;
      return status;
    }
  status = reserve_make (sweep, error);
  if (status == NN_OK)
    status = sweep_file_write (sweep, error);
  if (status != NN_OK)
    return sweep_files_failed (sweep, status, error);

  for (int32_t i = 0; i < sweep->point_count; i++)
    {
      NnSweepPoint *p = &sweep->points[i];
      double t0 = _nn_now ();
      NnError point_error, file_error;
      NnStatus point_status;

      if (sweep_cancelled (sweep))
        break;
      nn_error_clear (&point_error);
      nn_error_clear (&file_error);
      if (!usable[p->device])
        {
          p->status = NN_SWEEP_POINT_FAILED;
          snprintf (p->error, sizeof p->error, "%s", reason[p->device]);
          p->seconds = 0.0;
        }
      else
        {
          if (devices[p->device].name[0] != '\0')
            snprintf (p->device_name, sizeof p->device_name, "%s", devices[p->device].name);
          p->status = NN_SWEEP_POINT_RUNNING;
          if (!report (sweep, NN_SWEEP_POINT_STARTED, p, done, t_start))
            nn_sweep_cancel (sweep);
          point_status = point_run (sweep, p, &devices[p->device], &point_error, &file_error);
          p->seconds = _nn_now () - t0;
          if (point_status == NN_OK)
            p->status = NN_SWEEP_POINT_COMPLETED;
          else
            {
              p->status = point_status == NN_ERROR_CANCELLED ? NN_SWEEP_POINT_CANCELLED
                                                             : NN_SWEEP_POINT_FAILED;
              snprintf (p->error, sizeof p->error, "%s", point_error.message);
            }
          /* a device lost stays lost: its other points fail with the reason */
          if (point_status == NN_ERROR_DEVICE_LOST)
            {
              usable[p->device] = false;
              snprintf (reason[p->device], sizeof reason[p->device], "%s", point_error.message);
            }
        }
      done++;
      if (p->status == NN_SWEEP_POINT_CANCELLED)
        atomic_store (&sweep->cancel, 1);
      /* the point's own file, then sweep.json: a sweep whose files cannot
       * be written (a full disk) stops there */
      if (file_error.code != NN_OK)
        {
          *error = file_error;
          status = file_error.code;
        }
      else
        status = sweep_file_write (sweep, error);
      if (!report (sweep, NN_SWEEP_POINT_FINISHED, p, done, t_start))
        nn_sweep_cancel (sweep);
      if (status != NN_OK)
        return sweep_files_failed (sweep, status, error);
    }

  sweep->status = sweep_cancelled (sweep) ? NN_SWEEP_CANCELLED : NN_SWEEP_COMPLETED;
  status = sweep_file_finish (sweep, error);
  if (status != NN_OK)
    {
      sweep->status = NN_SWEEP_FAILED;
      return status;
    }
  if (sweep->status == NN_SWEEP_CANCELLED)
    return _nn_error_set (error, NN_ERROR_CANCELLED, "the sweep was cancelled after %d of %d points",
                          (int) done, (int) sweep->point_count);
  return NN_OK;
}
