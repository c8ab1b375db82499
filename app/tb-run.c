/* tb-run.c: read schema-1 result files with json-glib, list a runs folder,
 * export runs as CSV or JSON, and build the comparison charts.
 */
#include "tb-config.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include "trainbench.h"
#include "tb-run.h"

static void
tb_run_clear (TbRun *run)
{
  g_free (run->path);
  g_free (run->run_id);
  g_free (run->started_at);
  g_free (run->status);
  g_free (run->error);
  g_free (run->os_name);
  g_free (run->os_version);
  g_free (run->os_emulated_by);
  g_free (run->cpu_model);
  g_free (run->device_kind);
  g_free (run->device_name);
  g_free (run->dataset_name);
  g_free (run->model_name);
  g_free (run->spec);
  g_free (run->optimizer);
  g_clear_pointer (&run->epochs, g_array_unref);
  g_clear_pointer (&run->loss_curve, g_array_unref);
  g_clear_pointer (&run->loss_steps, g_array_unref);
  g_clear_pointer (&run->root, json_node_unref);
}

TbRun *
tb_run_ref (TbRun *run)
{
  return g_atomic_rc_box_acquire (run);
}

void
tb_run_unref (TbRun *run)
{
  g_atomic_rc_box_release_full (run, (GDestroyNotify) tb_run_clear);
}

/* ------------------------------------------------------------ JSON helpers */

static JsonObject *
get_object (JsonObject *o,
            const char *name)
{
  JsonNode *n;

  if (o == NULL || !json_object_has_member (o, name))
    return NULL;
  n = json_object_get_member (o, name);
  return JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

static char *
get_string (JsonObject *o,
            const char *name)
{
  JsonNode *n;

  if (o == NULL || !json_object_has_member (o, name))
    return NULL;
  n = json_object_get_member (o, name);
  if (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (n));
  return NULL;
}

static gboolean
get_number (JsonObject *o,
            const char *name,
            double     *out)
{
  JsonNode *n;
  GType t;

  if (o == NULL || !json_object_has_member (o, name))
    return FALSE;
  n = json_object_get_member (o, name);
  if (!JSON_NODE_HOLDS_VALUE (n))
    return FALSE;
  t = json_node_get_value_type (n);
  if (t == G_TYPE_INT64)
    *out = (double) json_node_get_int (n);
  else if (t == G_TYPE_DOUBLE)
    *out = json_node_get_double (n);
  else if (t == G_TYPE_BOOLEAN)
    *out = json_node_get_boolean (n);
  else
    return FALSE;
  return TRUE;
}

static double
get_double (JsonObject *o,
            const char *name,
            double      fallback)
{
  double v;

  return get_number (o, name, &v) ? v : fallback;
}

/* The preset whose spec matches, so runs from any front end get a name. */
static char *
model_name_from_spec (const char *spec)
{
  const NnPreset *presets;
  int count = 0;

  if (spec == NULL)
    return NULL;
  presets = nn_presets (&count);
  for (int i = 0; i < count; i++)
    {
      NnSpec *a = NULL, *b = NULL;
      NnError err = { 0 };
      gboolean same = FALSE;

      if (nn_spec_parse (spec, &a, &err) == NN_OK && nn_spec_parse (presets[i].spec, &b, &err) == NN_OK)
        same = a->count == b->count
               && memcmp (a->layers, b->layers, sizeof (NnLayerSpec) * a->count) == 0;
      nn_spec_free (a);
      nn_spec_free (b);
      if (same)
        return g_strdup (presets[i].name);
    }
  return NULL;
}

TbRun *
tb_run_load (const char  *path,
             GError     **error)
{
  g_autofree char *contents = NULL;
  g_autoptr(GError) local_error = NULL;
  gsize length = 0;

  g_return_val_if_fail (path != NULL, NULL);

  if (!g_file_get_contents (path, &contents, &length, &local_error))
    {
      g_autofree char *display = g_filename_display_basename (path);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("“%s” is not a readable result file: %s"), display, local_error->message);
      return NULL;
    }
  return tb_run_load_data (path, contents, length, error);
}

TbRun *
tb_run_load_data (const char  *path,
                  const char  *data,
                  gsize        length,
                  GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local_error = NULL;
  g_autoptr(TbRun) run = NULL;
  g_autofree char *display = NULL;
  g_autoptr(JsonNode) node = NULL;
  JsonObject *root, *system, *os, *cpu, *device, *dataset, *model, *hyper, *steps;
  double schema;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (data != NULL || length == 0, NULL);

  display = g_filename_display_basename (path);
  if (!json_parser_load_from_data (parser, data != NULL ? data : "", (gssize) length, &local_error))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("“%s” is not a readable result file: %s"), display, local_error->message);
      return NULL;
    }
  /* the run keeps the tree for JSON export: taken, not copied */
  node = json_parser_steal_root (parser);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("“%s” is not a result file: the top level is not an object"), display);
      return NULL;
    }
  root = json_node_get_object (node);
  if (!get_number (root, "schema", &schema) || schema != NN_RESULT_SCHEMA)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("“%s” is not a Trainbench result (schema %d) file"), display, NN_RESULT_SCHEMA);
      return NULL;
    }

  run = g_atomic_rc_box_new0 (TbRun);
  run->root = json_node_ref (node);
  run->path = g_strdup (path);
  run->run_id = get_string (root, "run_id");
  run->started_at = get_string (root, "started_at");
  run->status = get_string (root, "status");
  run->error = get_string (root, "error");
  if (run->run_id == NULL || run->status == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("“%s” has no run_id or status"), display);
      return NULL;
    }

  system = get_object (root, "system");
  os = get_object (system, "os");
  cpu = get_object (system, "cpu");
  run->os_name = get_string (os, "name");
  run->os_version = get_string (os, "version");
  run->os_emulated_by = get_string (os, "emulated_by");
  run->cpu_model = get_string (cpu, "model");

  device = get_object (root, "device");
  run->device_kind = get_string (device, "kind");
  run->device_index = (int) get_double (device, "index", 0);
  run->device_name = get_string (device, "name");
  run->threads = (int) get_double (device, "threads", 0);
  run->tf32 = get_double (device, "tf32", 0) != 0;

  dataset = get_object (root, "dataset");
  run->dataset_name = get_string (dataset, "name");
  run->train_samples = (int) get_double (dataset, "train_samples", 0);
  run->test_samples = (int) get_double (dataset, "test_samples", 0);

  model = get_object (root, "model");
  run->spec = get_string (model, "spec");
  run->params = (gint64) get_double (model, "params", 0);
  run->model_name = get_string (model, "name");
  if (run->model_name == NULL)
    run->model_name = get_string (root, "model_name");
  if (run->model_name == NULL)
    run->model_name = model_name_from_spec (run->spec);

  hyper = get_object (root, "hyper");
  run->optimizer = get_string (hyper, "optimizer");
  if (run->optimizer == NULL)
    {
      JsonObject *opt = get_object (hyper, "optimizer");

      run->optimizer = get_string (opt, "name");
      if (run->optimizer == NULL)
        run->optimizer = get_string (opt, "kind");
      run->lr = get_double (opt, "lr", NAN);
    }
  if (get_number (hyper, "lr", &run->lr) == FALSE && !isfinite (run->lr))
    run->lr = NAN;
  run->batch_size = (int) get_double (hyper, "batch_size", 0);
  run->epochs_planned = (int) get_double (hyper, "epochs", 0);

  run->epochs = g_array_new (FALSE, TRUE, sizeof (TbEpoch));
  if (json_object_has_member (root, "epochs")
      && JSON_NODE_HOLDS_ARRAY (json_object_get_member (root, "epochs")))
    {
      JsonArray *arr = json_object_get_array_member (root, "epochs");

      for (guint i = 0; i < json_array_get_length (arr); i++)
        {
          JsonNode *en = json_array_get_element (arr, i);
          JsonObject *eo;
          TbEpoch e;

          if (!JSON_NODE_HOLDS_OBJECT (en))
            continue;
          eo = json_node_get_object (en);
          e.epoch = (int) get_double (eo, "epoch", i + 1);
          e.seconds = get_double (eo, "seconds", NAN);
          e.train_loss = get_double (eo, "train_loss", NAN);
          e.train_accuracy = get_double (eo, "train_accuracy", NAN);
          e.test_loss = get_double (eo, "test_loss", NAN);
          e.test_accuracy = get_double (eo, "test_accuracy", NAN);
          e.samples_per_second = get_double (eo, "samples_per_second", NAN);
          g_array_append_val (run->epochs, e);
        }
    }

  run->loss_curve = g_array_new (FALSE, FALSE, sizeof (double));
  run->loss_steps = g_array_new (FALSE, FALSE, sizeof (double));
  steps = get_object (root, "steps");
  run->step_count = (gint64) get_double (steps, "count", 0);
  if (steps != NULL && json_object_has_member (steps, "loss_curve")
      && JSON_NODE_HOLDS_ARRAY (json_object_get_member (steps, "loss_curve")))
    {
      JsonArray *arr = json_object_get_array_member (steps, "loss_curve");

      for (guint i = 0; i < json_array_get_length (arr); i++)
        {
          JsonNode *vn = json_array_get_element (arr, i);
          double v = NAN;

          double step = i;

          /* [step, loss] pairs; plain numbers are accepted too */
          if (JSON_NODE_HOLDS_VALUE (vn))
            v = json_node_get_double (vn);
          else if (JSON_NODE_HOLDS_ARRAY (vn) && json_array_get_length (json_node_get_array (vn)) == 2)
            {
              JsonArray *pair = json_node_get_array (vn);

              step = json_array_get_double_element (pair, 0);
              v = json_array_get_double_element (pair, 1);
            }
          g_array_append_val (run->loss_curve, v);
          g_array_append_val (run->loss_steps, step);
        }
    }
  run->total_seconds = get_double (root, "total_seconds", NAN);

  return g_steal_pointer (&run);
}

int
tb_run_compare (const TbRun *a,
                const TbRun *b)
{
  int by_time;

  g_return_val_if_fail (a != NULL && b != NULL, 0);

  /* ISO 8601 UTC strings sort as text; the path breaks ties, so runs that
   * started in the same second keep one order however they were read */
  by_time = g_strcmp0 (b->started_at, a->started_at);
  return by_time != 0 ? by_time : g_strcmp0 (a->path, b->path);
}

static int
compare_cb (gconstpointer a,
            gconstpointer b)
{
  return tb_run_compare (*(TbRun * const *) a, *(TbRun * const *) b);
}

GPtrArray *
tb_run_load_folder (const char    *folder,
                    guint         *skipped,
                    GCancellable  *cancellable,
                    GError       **error)
{
  g_autoptr(GPtrArray) runs = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_run_unref);
  g_autoptr(GDir) dir = NULL;
  const char *name;

  g_return_val_if_fail (folder != NULL, NULL);

  if (skipped != NULL)
    *skipped = 0;
  dir = g_dir_open (folder, 0, NULL);
  if (dir == NULL)
    return g_steal_pointer (&runs);   /* no runs yet */

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = NULL;
      TbRun *run;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      if (!g_str_has_suffix (name, ".json"))
        continue;
      path = g_build_filename (folder, name, NULL);
      run = tb_run_load (path, NULL);
      if (run != NULL)
        g_ptr_array_add (runs, run);
      else if (skipped != NULL)
        (*skipped)++;
    }
  g_ptr_array_sort (runs, compare_cb);
  return g_steal_pointer (&runs);
}

/* The run id comes from a file of unknown origin: keep it a plain file name
 * ("../x" or "a/b" must not leave the runs folder). */
static char *
import_name (const char *run_id)
{
  char *name = g_strconcat (run_id, ".json", NULL);

  g_strcanon (name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.", '_');
  if (name[0] == '.')
    name[0] = '_';
  return name;
}

TbRun *
tb_run_import (const char  *source,
               const char  *folder,
               gboolean    *copied,
               GError     **error)
{
  g_autofree char *contents = NULL;
  g_autofree char *name = NULL;
  g_autofree char *dest = NULL;
  g_autoptr(TbRun) run = NULL;
  g_autoptr(GError) local_error = NULL;
  gsize length = 0;

  g_return_val_if_fail (source != NULL, NULL);
  g_return_val_if_fail (folder != NULL, NULL);

  if (copied != NULL)
    *copied = FALSE;
  /* read once: the bytes checked are the bytes copied */
  if (!g_file_get_contents (source, &contents, &length, &local_error))
    {
      g_autofree char *display = g_filename_display_basename (source);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("“%s” is not a readable result file: %s"), display, local_error->message);
      return NULL;
    }
  run = tb_run_load_data (source, contents, length, error);
  if (run == NULL)
    return NULL;

  name = import_name (run->run_id);
  dest = g_build_filename (folder, name, NULL);
  g_free (run->path);
  run->path = g_strdup (dest);
  if (g_file_test (dest, G_FILE_TEST_EXISTS))
    return g_steal_pointer (&run);   /* already in the history */
  if (g_mkdir_with_parents (folder, 0755) != 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                   _("Could not create the runs folder “%s”"), folder);
      return NULL;
    }
  /* copied whole, so no field is lost */
  if (!g_file_set_contents (dest, contents, (gssize) length, error))
    return NULL;
  if (copied != NULL)
    *copied = TRUE;
  return g_steal_pointer (&run);
}

static int
compare_double (gconstpointer a,
                gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

double
tb_run_seconds_per_epoch (const TbRun *run)
{
  g_autoptr(GArray) s = g_array_new (FALSE, FALSE, sizeof (double));

  g_return_val_if_fail (run != NULL, NAN);

  for (guint i = 0; i < run->epochs->len; i++)
    {
      double v = g_array_index (run->epochs, TbEpoch, i).seconds;

      if (isfinite (v))
        g_array_append_val (s, v);
    }
  if (s->len == 0)
    return NAN;
  g_array_sort (s, compare_double);
  if (s->len % 2 == 1)
    return g_array_index (s, double, s->len / 2);
  return (g_array_index (s, double, s->len / 2 - 1) + g_array_index (s, double, s->len / 2)) / 2;
}

double
tb_run_final_accuracy (const TbRun *run)
{
  g_return_val_if_fail (run != NULL, NAN);

  if (run->epochs->len == 0)
    return NAN;
  return g_array_index (run->epochs, TbEpoch, run->epochs->len - 1).test_accuracy;
}

char *
tb_run_device_label (const TbRun *run)
{
  gboolean cpu = g_strcmp0 (run->device_kind, "cuda") != 0;

  return g_strdup_printf ("%s · %s", cpu ? _("CPU") : _("GPU"),
                          run->device_name ? run->device_name : _("unknown"));
}

/* "Debian GNU/Linux 12 (bookworm)", "Windows 10", "Windows 7 (wine 8.0)":
 * a Windows build run under wine is labelled so, and so never grouped with
 * runs on a real Windows. */
char *
tb_run_os_label (const TbRun *run)
{
  g_autofree char *os = NULL;

  if (run->os_name == NULL)
    os = g_strdup (_("unknown OS"));
  else if (run->os_version == NULL || *run->os_version == '\0')
    os = g_strdup (run->os_name);
  else
    os = g_strdup_printf ("%s %s", run->os_name, run->os_version);
  if (run->os_emulated_by == NULL || *run->os_emulated_by == '\0')
    return g_steal_pointer (&os);
  /* TRANSLATORS: an OS and what emulated it, "Windows 7 (wine 8.0)" */
  return g_strdup_printf (_("%s (%s)"), os, run->os_emulated_by);
}

const char *
tb_run_model_label (const TbRun *run)
{
  return run->model_name != NULL && *run->model_name ? run->model_name : "custom";
}

/* ------------------------------------------------------------ export */

static char *
csv_field (const char *s)
{
  g_autoptr(GString) out = NULL;

  if (s == NULL)
    return g_strdup ("");
  if (strpbrk (s, ",\"\n\r") == NULL)
    return g_strdup (s);
  out = g_string_new ("\"");
  for (const char *p = s; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static void
csv_append_number (GString *line,
                   double   v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append_c (line, ',');
  if (isfinite (v))
    g_string_append (line, g_ascii_formatd (buf, sizeof buf, "%.6g", v));
}

gboolean
tb_runs_export_csv (GPtrArray   *runs,
                    const char  *path,
                    GError     **error)
{
  g_autoptr(GString) csv = g_string_new ("run_id,started_at,status,model,dataset,device_kind,device_name,"
                                         "threads,os,optimizer,lr,batch_size,epochs,params,"
                                         "seconds_per_epoch,final_test_accuracy,total_seconds,spec\n");

  g_return_val_if_fail (runs != NULL, FALSE);

  for (guint i = 0; i < runs->len; i++)
    {
      TbRun *run = g_ptr_array_index (runs, i);
      g_autofree char *id = csv_field (run->run_id);
      g_autofree char *date = csv_field (run->started_at);
      g_autofree char *model = csv_field (tb_run_model_label (run));
      g_autofree char *data = csv_field (run->dataset_name);
      g_autofree char *dev = csv_field (run->device_name);
      g_autofree char *os_label = tb_run_os_label (run);
      g_autofree char *os = csv_field (os_label);
      g_autofree char *opt = csv_field (run->optimizer);
      g_autofree char *spec = csv_field (run->spec);

      g_string_append_printf (csv, "%s,%s,%s,%s,%s,%s,%s,%d,%s,%s", id, date,
                              run->status, model, data,
                              run->device_kind ? run->device_kind : "",
                              dev, run->threads, os, opt);
      csv_append_number (csv, run->lr);
      g_string_append_printf (csv, ",%d,%u,%" G_GINT64_FORMAT,
                              run->batch_size, run->epochs->len, run->params);
      csv_append_number (csv, tb_run_seconds_per_epoch (run));
      csv_append_number (csv, tb_run_final_accuracy (run));
      csv_append_number (csv, run->total_seconds);
      g_string_append_printf (csv, ",%s\n", spec);
    }
  return g_file_set_contents (path, csv->str, csv->len, error);
}

gboolean
tb_runs_export_json (GPtrArray   *runs,
                     const char  *path,
                     GError     **error)
{
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);
  JsonArray *arr = json_array_new ();

  g_return_val_if_fail (runs != NULL, FALSE);

  for (guint i = 0; i < runs->len; i++)
    {
      TbRun *run = g_ptr_array_index (runs, i);

      json_array_add_element (arr, json_node_copy (run->root));
    }
  json_node_take_array (node, arr);
  json_generator_set_root (gen, node);
  json_generator_set_pretty (gen, TRUE);
  return json_generator_to_file (gen, path, error);
}

/* ------------------------------------------------------------ comparison */

static char *
group_label (const TbRun *run,
             TbGroupBy    group_by)
{
  return group_by == TB_GROUP_OS ? tb_run_os_label (run) : tb_run_device_label (run);
}

static char *
category_label (const TbRun *run)
{
  return g_strdup_printf ("%s · %s", tb_run_model_label (run),
                          run->dataset_name ? run->dataset_name : "?");
}

static int
index_of (GPtrArray  *labels,
          const char *label)
{
  for (guint i = 0; i < labels->len; i++)
    if (g_strcmp0 (g_ptr_array_index (labels, i), label) == 0)
      return (int) i;
  return -1;
}

static int
compare_labels (gconstpointer a,
                gconstpointer b)
{
  return g_utf8_collate (*(const char * const *) a, *(const char * const *) b);
}

TbChartData *
tb_runs_compare_bars (GPtrArray *runs,
                      TbGroupBy  group_by)
{
  TbChartData *data;
  g_autoptr(GPtrArray) groups = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) cats = g_ptr_array_new_with_free_func (g_free);
  g_autofree double *sum = NULL;
  g_autofree int *n = NULL;

  g_return_val_if_fail (runs != NULL, NULL);

  data = tb_chart_data_new (TB_CHART_BARS,
                            group_by == TB_GROUP_OS ? _("Seconds per epoch by operating system")
                                                    : _("Seconds per epoch by device"),
                            _("Model · data set"), _("Seconds per epoch"));

  for (guint i = 0; i < runs->len; i++)
    {
      TbRun *run = g_ptr_array_index (runs, i);
      char *g = group_label (run, group_by);
      char *c = category_label (run);

      if (!isfinite (tb_run_seconds_per_epoch (run)))
        {
          g_free (g);
          g_free (c);
          continue;
        }
      if (index_of (groups, g) < 0)
        g_ptr_array_add (groups, g);
      else
        g_free (g);
      if (index_of (cats, c) < 0)
        g_ptr_array_add (cats, c);
      else
        g_free (c);
    }

  /* the baseline is the first group: the CPU before GPUs, then by name, so
   * speed-ups read "GPU ×20" and do not depend on the order of the files */
  {
    g_autoptr(GPtrArray) gpu_first = g_ptr_array_new ();
    g_autoptr(GPtrArray) sorted = g_ptr_array_new_with_free_func (g_free);

    for (guint i = 0; i < groups->len; i++)
      {
        gboolean gpu = FALSE;

        for (guint r = 0; r < runs->len; r++)
          {
            TbRun *run = g_ptr_array_index (runs, r);
            g_autofree char *g = group_label (run, group_by);

            if (g_strcmp0 (g, g_ptr_array_index (groups, i)) == 0)
              gpu = g_strcmp0 (run->device_kind, "cuda") == 0;
          }
        g_ptr_array_add (gpu_first, GINT_TO_POINTER (gpu));
      }
    for (int pass = 0; pass < 2; pass++)
      {
        g_autoptr(GPtrArray) some = g_ptr_array_new ();

        for (guint i = 0; i < groups->len; i++)
          if (GPOINTER_TO_INT (g_ptr_array_index (gpu_first, i)) == pass || group_by == TB_GROUP_OS)
            g_ptr_array_add (some, g_ptr_array_index (groups, i));
        g_ptr_array_sort (some, (GCompareFunc) compare_labels);
        for (guint i = 0; i < some->len; i++)
          g_ptr_array_add (sorted, g_strdup (g_ptr_array_index (some, i)));
        if (group_by == TB_GROUP_OS)
          break;
      }
    g_ptr_array_set_size (groups, 0);
    for (guint i = 0; i < sorted->len; i++)
      g_ptr_array_add (groups, g_strdup (g_ptr_array_index (sorted, i)));
  }

  /* mean of the runs in each (category, group) cell */
  sum = g_new0 (double, MAX (groups->len * cats->len, 1));
  n = g_new0 (int, MAX (groups->len * cats->len, 1));
  for (guint i = 0; i < runs->len; i++)
    {
      TbRun *run = g_ptr_array_index (runs, i);
      double spe = tb_run_seconds_per_epoch (run);
      g_autofree char *g = group_label (run, group_by);
      g_autofree char *c = category_label (run);
      int gi, ci;

      if (!isfinite (spe))
        continue;
      gi = index_of (groups, g);
      ci = index_of (cats, c);
      sum[ci * groups->len + gi] += spe;
      n[ci * groups->len + gi]++;
    }

  for (guint c = 0; c < cats->len; c++)
    tb_chart_data_add_category (data, g_ptr_array_index (cats, c));

  for (guint g = 0; g < groups->len; g++)
    {
      TbChartSeries *s = tb_chart_data_add_series (data, g_ptr_array_index (groups, g), 0);

      for (guint c = 0; c < cats->len; c++)
        {
          guint cell = c * groups->len + g;
          guint base = c * groups->len;
          double v, b;
          guint others;
          g_autofree char *note = NULL;

          if (n[cell] == 0)
            {
              tb_chart_series_set_bar (s, c, NAN, NULL);
              continue;
            }
          v = sum[cell] / n[cell];
          /* speed-up against the first group that has this category */
          b = NAN;
          others = 0;
          for (guint k = 0; k < groups->len; k++)
            if (n[base + k] > 0)
              {
                if (!isfinite (b))
                  b = sum[base + k] / n[base + k];
                others++;
              }
          if (others > 1 && v > 0)
            note = g_strdup_printf ("×%.2f", b / v);
          tb_chart_series_set_bar (s, c, v, note);
        }
    }
  return data;
}

static char *
run_series_label (const TbRun *run)
{
  g_autofree char *dev = tb_run_device_label (run);

  return g_strdup_printf ("%s · %s", tb_run_model_label (run), dev);
}

TbChartData *
tb_runs_compare_accuracy (GPtrArray *runs)
{
  TbChartData *data = tb_chart_data_new (TB_CHART_LINES, _("Test accuracy per epoch"),
                                         _("Epoch"), _("Accuracy"));

  data->x_integer = TRUE;
  data->y_ceiling = 1.0;
  for (guint i = 0; i < runs->len; i++)
    {
      TbRun *run = g_ptr_array_index (runs, i);
      g_autofree char *label = run_series_label (run);
      TbChartSeries *s = tb_chart_data_add_series (data, label, 0);

      for (guint e = 0; e < run->epochs->len; e++)
        {
          const TbEpoch *ep = &g_array_index (run->epochs, TbEpoch, e);

          tb_chart_series_append (s, ep->epoch, ep->test_accuracy);
        }
    }
  return data;
}

TbChartData *
tb_runs_compare_loss (GPtrArray *runs)
{
  TbChartData *data = tb_chart_data_new (TB_CHART_LINES, _("Training loss"),
                                         _("Progress (%)"), _("Loss"));

  for (guint i = 0; i < runs->len; i++)
    {
      TbRun *run = g_ptr_array_index (runs, i);
      g_autofree char *label = run_series_label (run);
      TbChartSeries *s = tb_chart_data_add_series (data, label, 0);
      guint n = run->loss_curve->len;
      double last = n > 0 ? g_array_index (run->loss_steps, double, n - 1) : 0;

      /* runs differ in length and down-sampling: put them on a common
       * 0..100 % axis of their own steps so they overlay */
      for (guint j = 0; j < n; j++)
        tb_chart_series_append (s, last > 0 ? 100.0 * g_array_index (run->loss_steps, double, j) / last : 0,
                                g_array_index (run->loss_curve, double, j));
    }
  return data;
}
