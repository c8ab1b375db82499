/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-run.c: read schema-1 result files with json-glib, whole or as a
 * summary, list a runs folder, import a file into one, export runs as CSV
 * or JSON, and build the comparison charts.
 */
#define G_LOG_DOMAIN "trainbench-run"

#include "tb-config.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include <glib.h>
#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#ifdef G_OS_UNIX
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#endif

#include "trainbench.h"
#include "tb-file.h"
#include "tb-run.h"
#include "tb-run-private.h"

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
  g_free (run->conditions);
  g_free (run->data_on);
  g_clear_pointer (&run->epochs, g_array_unref);
  g_clear_pointer (&run->loss_curve, g_array_unref);
  g_clear_pointer (&run->loss_steps, g_array_unref);
  g_clear_pointer (&run->contents, g_bytes_unref);
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

/* A string of at most `max` bytes: a longer one is cut at a character
 * boundary and ends in "…". */
static char *
bounded_strdup (const char *s,
                gsize       max)
{
  static const char ellipsis[] = "…";
  GString *out;
  gsize cut;

  if (s == NULL)
    return NULL;
  /* json-glib passes on what its scanner makes of an escape JSON does not
   * have ("\333" gives the byte 0xdb): never hand on text that is not
   * UTF-8 */
  if (!g_utf8_validate (s, -1, NULL))
    {
      char *valid = g_utf8_make_valid (s, -1);
      char *bounded = bounded_strdup (valid, max);
      g_free (valid);
      return bounded;
    }
  if (strlen (s) <= max)
    return g_strdup (s);
  g_assert (max >= sizeof ellipsis);
  /* back to the first byte of a character */
  cut = max - (sizeof ellipsis - 1);
  while (cut > 0 && ((guchar) s[cut] & 0xc0) == 0x80)
    cut--;
  out = g_string_new_len (s, (gssize) cut);
  g_string_append (out, ellipsis);
  return g_string_free (out, FALSE);
}

static char *
get_string_max (JsonObject *o,
                const char *name,
                gsize       max)
{
  JsonNode *n;

  if (o == NULL || !json_object_has_member (o, name))
    return NULL;
  n = json_object_get_member (o, name);
  if (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING)
    return bounded_strdup (json_node_get_string (n), max);
  return NULL;
}

/* Names and labels (OS, CPU, device, data set, ...) are shown in rows,
 * legends and tables: real ones are short. */
static char *
get_string (JsonObject *o,
            const char *name)
{
  return get_string_max (o, name, TB_RUN_MAX_NAME);
}

/* A number node's value (ints, doubles and booleans); FALSE for others. */
static gboolean
node_number (JsonNode *n,
             double   *out)
{
  GType t;

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
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

static gboolean
get_number (JsonObject *o,
            const char *name,
            double     *out)
{
  if (o == NULL || !json_object_has_member (o, name))
    return FALSE;
  return node_number (json_object_get_member (o, name), out);
}

/* Whole numbers: a file's 1e20 or NaN must not reach a C conversion, which
 * is undefined outside the type's range. */
static gint64
get_int64 (JsonObject *o,
           const char *name,
           gint64      fallback)
{
  double v;

  if (!get_number (o, name, &v) || isnan (v))
    return fallback;
  if (v >= 9.2e18)
    return G_MAXINT64;
  if (v <= -9.2e18)
    return G_MININT64;
  return (gint64) v;
}

static int
get_int (JsonObject *o,
         const char *name,
         int         fallback)
{
  return (int) CLAMP (get_int64 (o, name, fallback), G_MININT, G_MAXINT);
}

static double
get_double (JsonObject *o,
            const char *name,
            double      fallback)
{
  double v;

  return get_number (o, name, &v) ? v : fallback;
}

/* A time the file gives, not recorded (NAN) when missing or beyond what a
 * result may claim (nn_result_seconds_valid). */
static double
get_seconds (JsonObject *o,
             const char *name)
{
  double v = get_double (o, name, NAN);

  return nn_result_seconds_valid (v) ? v : NAN;
}

/* "breakdown", added in schema 1's lifetime: a file without it, or with
 * no part a reader knows, has none. Parts of keys this build does not know
 * are left out; a part that is not a number is not there. */
void
_tb_run_read_breakdown (JsonObject  *o,
                        TbBreakdown *b)
{
  JsonNode *parts;

  memset (b, 0, sizeof *b);
  parts = o != NULL ? json_object_get_member (o, "parts") : NULL;

  for (int p = 0; p < NN_BREAKDOWN_PARTS; p++)
    b->part_seconds[p] = NAN;
  b->device_busy_seconds = NAN;
  if (parts == NULL || !JSON_NODE_HOLDS_ARRAY (parts))
    return;
  JsonArray *arr = json_node_get_array (parts);
  for (guint i = 0; i < json_array_get_length (arr); i++)
    {
      JsonNode *pn = json_array_get_element (arr, i);
      JsonObject *po;
      const char *key;
      double seconds;

      if (!JSON_NODE_HOLDS_OBJECT (pn))
        continue;
      po = json_node_get_object (pn);
      key = json_object_has_member (po, "key")
                && JSON_NODE_HOLDS_VALUE (json_object_get_member (po, "key"))
                && json_node_get_value_type (json_object_get_member (po, "key")) == G_TYPE_STRING
              ? json_object_get_string_member (po, "key") : NULL;
      if (key == NULL || !get_number (po, "seconds", &seconds)
          || !nn_result_seconds_valid (seconds))
        continue;
      for (int p = 0; p < NN_BREAKDOWN_PARTS; p++)
        if (strcmp (key, nn_breakdown_part_key ((NnBreakdownPart) p)) == 0)
          {
            b->part_seconds[p] = seconds;
            b->measured = TRUE;
          }
    }
  b->steps = get_int64 (o, "steps", 0);
  b->step_seconds = get_seconds (o, "step_seconds");
  b->device_busy_seconds = get_seconds (o, "device_busy_seconds");
  b->copy_bytes = get_double (o, "copy_bytes", NAN);
  b->evaluation_seconds = get_seconds (o, "evaluation_seconds");
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

/* The file's name for messages: a name of any length stays one line. */
static char *
display_name (const char *path)
{
  g_autofree char *display = g_filename_display_basename (path);
  const char *tail;

  if (strlen (display) <= 80)
    return g_steal_pointer (&display);
  /* its start and its end ("…-cuda-0001.json") */
  tail = display + strlen (display) - 24;
  while (tail > display && ((guchar) *tail & 0xc0) == 0x80)
    tail--;
  {
    g_autofree char *head = bounded_strdup (display, 48);

    return g_strconcat (head, tail, NULL);
  }
}

static void
set_unreadable (GError     **error,
                const char  *path,
                const char  *why)
{
  g_autofree char *display = display_name (path);

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               _("“%s” is not a readable result file: %s"), display, why);
}

static void
set_too_large (GError     **error,
               const char  *path,
               guint64      size)
{
  g_autofree char *size_text = g_format_size_full (size, G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *limit = g_format_size_full (TB_RUN_MAX_BYTES, G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *why = g_strdup_printf (_("it is %s, and result files are at most %s"), size_text, limit);

  set_unreadable (error, path, why);
}

static void
set_grew_too_large (GError     **error,
                    const char  *path)
{
  g_autofree char *limit = g_format_size_full (TB_RUN_MAX_BYTES, G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *why = g_strdup_printf (_("it is larger than %s, the most a result file may be"), limit);

  set_unreadable (error, path, why);
}

#ifdef G_OS_UNIX
/* FIFOs, devices (/dev/zero) and sockets behind a name never end or never
 * answer. The file is opened without blocking (a FIFO opens at once instead
 * of waiting for a writer; reads of regular files never block anyway) and
 * checked once open, so nothing can be swapped in between. Plain POSIX
 * calls: GLib's g_open has no O_NONBLOCK on every system, and there is no
 * C runtime boundary to cross on Unix. */
static gboolean
read_bounded (const char  *path,
              GByteArray  *buf,
              GError     **error)
{
  struct stat st;
  int fd, saved;

  fd = open (path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    {
      saved = errno;
      set_unreadable (error, path, g_strerror (saved));
      return FALSE;
    }
  if (fstat (fd, &st) != 0)
    {
      saved = errno;
      close (fd);
      set_unreadable (error, path, g_strerror (saved));
      return FALSE;
    }
  if (!S_ISREG (st.st_mode))
    {
      close (fd);
      set_unreadable (error, path, S_ISDIR (st.st_mode) ? _("it is a folder") : _("it is not a regular file"));
      return FALSE;
    }
  if (st.st_size > TB_RUN_MAX_BYTES)
    {
      close (fd);
      set_too_large (error, path, (guint64) st.st_size);
      return FALSE;
    }
  /* at most one byte more than allowed: a file that grows while it is
   * read is still bounded */
  for (;;)
    {
      guint8 chunk[64 * 1024];
      gsize want = MIN (sizeof chunk, (gsize) TB_RUN_MAX_BYTES + 1 - buf->len);
      ssize_t n = read (fd, chunk, want);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          saved = errno;
          close (fd);
          set_unreadable (error, path, g_strerror (saved));
          return FALSE;
        }
      if (n == 0)
        break;
      g_byte_array_append (buf, chunk, (guint) n);
      if (buf->len > TB_RUN_MAX_BYTES)
        {
          close (fd);
          set_grew_too_large (error, path);
          return FALSE;
        }
    }
  close (fd);
  return TRUE;
}
#else
/* Windows: through GIO, whose handles belong to the C runtime GLib was
 * built with (the app's own read and fstat are another's). A name that is
 * not a regular file (a folder, a device such as NUL or CON) is refused
 * before it is opened and checked again once it is. */
static gboolean
check_info (GFileInfo   *info,
            const char  *path,
            GError     **error)
{
  GFileType type = g_file_info_get_file_type (info);

  if (type != G_FILE_TYPE_REGULAR)
    {
      set_unreadable (error, path, type == G_FILE_TYPE_DIRECTORY ? _("it is a folder") : _("it is not a regular file"));
      return FALSE;
    }
  if (g_file_info_get_size (info) > TB_RUN_MAX_BYTES)
    {
      set_too_large (error, path, (guint64) g_file_info_get_size (info));
      return FALSE;
    }
  return TRUE;
}

static gboolean
read_bounded (const char  *path,
              GByteArray  *buf,
              GError     **error)
{
  static const char attributes[] = G_FILE_ATTRIBUTE_STANDARD_TYPE "," G_FILE_ATTRIBUTE_STANDARD_SIZE;
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GFileInfo) opened = NULL;
  g_autoptr(GFileInputStream) in = NULL;
  g_autoptr(GError) local_error = NULL;

  info = g_file_query_info (file, attributes, G_FILE_QUERY_INFO_NONE, NULL, &local_error);
  if (info == NULL || !check_info (info, path, error))
    {
      if (local_error != NULL)
        set_unreadable (error, path, local_error->message);
      return FALSE;
    }
  in = g_file_read (file, NULL, &local_error);
  if (in != NULL)
    opened = g_file_input_stream_query_info (in, attributes, NULL, &local_error);
  if (opened == NULL)
    {
      set_unreadable (error, path, local_error->message);
      return FALSE;
    }
  if (!check_info (opened, path, error))
    return FALSE;
  for (;;)
    {
      guint8 chunk[64 * 1024];
      gsize want = MIN (sizeof chunk, (gsize) TB_RUN_MAX_BYTES + 1 - buf->len);
      gssize n = g_input_stream_read (G_INPUT_STREAM (in), chunk, want, NULL, &local_error);

      if (n < 0)
        {
          set_unreadable (error, path, local_error->message);
          return FALSE;
        }
      if (n == 0)
        break;
      g_byte_array_append (buf, chunk, (guint) n);
      if (buf->len > TB_RUN_MAX_BYTES)
        {
          set_grew_too_large (error, path);
          return FALSE;
        }
    }
  return TRUE;
}
#endif

gboolean
tb_run_read_file (const char  *path,
                  GBytes     **contents,
                  GError     **error)
{
  g_autoptr(GByteArray) buf = g_byte_array_new ();

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (contents != NULL, FALSE);

  if (!read_bounded (path, buf, error))
    return FALSE;
  *contents = g_byte_array_free_to_bytes (g_steal_pointer (&buf));
  return TRUE;
}

TbRun *
tb_run_load (const char  *path,
             GError     **error)
{
  g_autoptr(GBytes) contents = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  if (!tb_run_read_file (path, &contents, error))
    return NULL;
  return tb_run_load_bytes (path, contents, error);
}

/* Is the text JSON that json-glib can read within bounds? Its parser
 * recurses once per nested array or object: 100,000 levels (200 KB of "[")
 * overflow the stack; and it keeps about 100 bytes per value. Brackets and
 * commas are counted outside double-quoted strings; json-glib also takes
 * 'single quoted' strings and comments, in which they would be counted
 * wrongly, so those are refused: results never have them. */
static char *
structure_problem (const char *data,
                   gsize       length,
                   guint       max_depth,
                   guint       max_values)
{
  gboolean in_string = FALSE;
  guint depth = 0;
  guint values = 0;

  for (gsize i = 0; i < length; i++)
    {
      char c = data[i];

      if (in_string)
        {
          if (c == '\\')
            i++;
          else if (c == '"')
            in_string = FALSE;
          continue;
        }
      switch (c)
        {
        case '"':
          in_string = TRUE;
          break;
        case '[':
        case '{':
          if (++depth > max_depth)
            return g_strdup_printf (_("it is nested more than %d levels deep"), (int) max_depth);
          break;
        case ']':
        case '}':
          if (depth > 0)
            depth--;
          break;
        case ',':
          if (++values > max_values)
            return g_strdup_printf (_("it has more than %d values, more than any result"), (int) max_values);
          break;
        case '\'':
        case '/':
          return g_strdup (_("it is not plain JSON (it has comments or single-quoted strings)"));
        default:
          break;
        }
    }
  return NULL;
}

static gboolean
check_structure (const char  *data,
                 gsize        length,
                 const char  *path,
                 GError     **error)
{
  g_autofree char *why = structure_problem (data, length, TB_RUN_MAX_DEPTH, TB_RUN_MAX_VALUES);

  if (why != NULL)
    {
      set_unreadable (error, path, why);
      return FALSE;
    }
  return TRUE;
}

TbRun *
tb_run_load_data (const char  *path,
                  const char  *data,
                  gsize        length,
                  GError     **error)
{
  g_autoptr(GBytes) bytes = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (data != NULL || length == 0, NULL);

  bytes = g_bytes_new (data, length);
  return tb_run_load_bytes (path, bytes, error);
}

/* The figures of the epochs that rows and tables show, kept in a summary
 * too. */
static void
summarize_epochs (TbRun        *run,
                  const GArray *epochs)
{
  g_autoptr(GArray) s = g_array_sized_new (FALSE, FALSE, sizeof (double), epochs->len);

  for (guint i = 0; i < epochs->len; i++)
    g_array_append_val (s, g_array_index (epochs, TbEpoch, i).seconds);
  run->n_epochs = epochs->len;
  /* the engine's definition, so the CLI's table and this agree */
  run->seconds_per_epoch = nn_seconds_per_epoch ((double *) (void *) s->data, s->len);
  run->final_accuracy = epochs->len > 0 ? g_array_index (epochs, TbEpoch, epochs->len - 1).test_accuracy : NAN;
}

/* A whole run, or a summary: the same checks and fields, without the
 * parts that grow with the run. The parsed tree takes about 17 times the
 * file's size while it is read, and only then. */
static TbRun *
load (const char  *path,
      GBytes      *contents,
      gboolean     whole,
      GError     **error)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(TbRun) run = NULL;
  g_autoptr(GArray) epochs = NULL;
  g_autofree char *display = NULL;
  JsonNode *node;
  JsonObject *root, *system, *os, *cpu, *device, *dataset, *model, *hyper, *steps;
  const char *data;
  gsize length = 0;
  double schema;

  data = g_bytes_get_data (contents, &length);
  if (length > TB_RUN_MAX_BYTES)
    {
      set_too_large (error, path, length);
      return NULL;
    }
  if (!check_structure (data, length, path, error))
    return NULL;

  display = display_name (path);
  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, length > 0 ? data : "", (gssize) length, &local_error))
    {
      /* the message quotes the token it stopped at, which may be long */
      g_autofree char *why = bounded_strdup (local_error->message, 300);

      set_unreadable (error, path, why);
      return NULL;
    }
  node = json_parser_get_root (parser);
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
  /* the file as read, for JSON export */
  if (whole)
    run->contents = g_bytes_ref (contents);
  run->path = g_strdup (path);
  /* the run id is an identity, not a label: kept whole */
  run->run_id = get_string_max (root, "run_id", G_MAXSIZE);
  run->started_at = get_string (root, "started_at");
  run->status = get_string (root, "status");
  run->error = get_string_max (root, "error", TB_RUN_MAX_TEXT);
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
  run->device_index = get_int (device, "index", 0);
  run->device_name = get_string (device, "name");
  run->threads = get_int (device, "threads", 0);
  run->tf32 = get_double (device, "tf32", 0) != 0;

  /* added in schema 1's lifetime: older files ran under the defaults */
  {
    JsonObject *conditions = get_object (root, "conditions");
    run->conditions = get_string (conditions, "name");
    run->data_on = get_string (conditions, "data");
    run->graph = get_double (conditions, "graph", 1) != 0;
    run->loss_every_step = get_double (conditions, "loss_every_step", 0) != 0;
    run->fused = get_double (conditions, "fused", 1) != 0;
    if (run->conditions == NULL)
      run->conditions = g_strdup ("default");
    if (run->data_on == NULL)
      run->data_on = g_strdup ("device");
  }

  dataset = get_object (root, "dataset");
  run->dataset_name = get_string (dataset, "name");
  run->train_samples = get_int (dataset, "train_samples", 0);
  run->test_samples = get_int (dataset, "test_samples", 0);

  model = get_object (root, "model");
  run->spec = get_string_max (model, "spec", TB_RUN_MAX_TEXT);
  run->params = get_int64 (model, "params", 0);
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
  run->batch_size = get_int (hyper, "batch_size", 0);
  run->epochs_planned = get_int (hyper, "epochs", 0);

  epochs = g_array_new (FALSE, TRUE, sizeof (TbEpoch));
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
          e.epoch = get_int (eo, "epoch", (int) MIN (i + 1, G_MAXINT));
          e.seconds = get_seconds (eo, "seconds");
          e.train_loss = get_double (eo, "train_loss", NAN);
          e.train_accuracy = get_double (eo, "train_accuracy", NAN);
          e.test_loss = get_double (eo, "test_loss", NAN);
          e.test_accuracy = get_double (eo, "test_accuracy", NAN);
          e.samples_per_second = get_double (eo, "samples_per_second", NAN);
          g_array_append_val (epochs, e);
        }
    }
  summarize_epochs (run, epochs);
  if (whole)
    run->epochs = g_steal_pointer (&epochs);

  steps = get_object (root, "steps");
  run->step_count = get_int64 (steps, "count", 0);
  if (whole)
    {
      run->loss_curve = g_array_new (FALSE, FALSE, sizeof (double));
      run->loss_steps = g_array_new (FALSE, FALSE, sizeof (double));
    }
  if (whole && steps != NULL && json_object_has_member (steps, "loss_curve")
      && JSON_NODE_HOLDS_ARRAY (json_object_get_member (steps, "loss_curve")))
    {
      JsonArray *arr = json_object_get_array_member (steps, "loss_curve");

      for (guint i = 0; i < json_array_get_length (arr); i++)
        {
          JsonNode *vn = json_array_get_element (arr, i);
          double v = NAN;

          double step = i;

          /* [step, loss] pairs; plain numbers are accepted too; anything
           * else is a gap */
          if (JSON_NODE_HOLDS_VALUE (vn))
            {
              if (!node_number (vn, &v))
                v = NAN;
            }
          else if (JSON_NODE_HOLDS_ARRAY (vn) && json_array_get_length (json_node_get_array (vn)) == 2)
            {
              JsonArray *pair = json_node_get_array (vn);

              if (!node_number (json_array_get_element (pair, 0), &step))
                step = i;
              if (!node_number (json_array_get_element (pair, 1), &v))
                v = NAN;
            }
          g_array_append_val (run->loss_curve, v);
          g_array_append_val (run->loss_steps, step);
        }
    }
  run->total_seconds = get_seconds (root, "total_seconds");
  _tb_run_read_breakdown (get_object (root, "breakdown"), &run->breakdown);

  return g_steal_pointer (&run);
}

TbRun *
tb_run_load_bytes (const char  *path,
                   GBytes      *contents,
                   GError     **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (contents != NULL, NULL);

  return load (path, contents, TRUE, error);
}

TbRun *
tb_run_load_summary (const char  *path,
                     GBytes      *contents,
                     GError     **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (contents != NULL, NULL);

  return load (path, contents, FALSE, error);
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
                    GPtrArray     *skipped,
                    GCancellable  *cancellable,
                    GError       **error)
{
  g_autoptr(GPtrArray) runs = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_run_unref);
  g_autoptr(GDir) dir = NULL;
  const char *name;

  g_return_val_if_fail (folder != NULL, NULL);

  dir = g_dir_open (folder, 0, NULL);
  if (dir == NULL)
    return g_steal_pointer (&runs);   /* no runs yet */

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = NULL;
      GError *local_error = NULL;
      TbRun *run;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      if (!g_str_has_suffix (name, ".json"))
        continue;
      path = g_build_filename (folder, name, NULL);
      run = tb_run_load (path, &local_error);
      if (run != NULL)
        g_ptr_array_add (runs, run);
      else if (skipped != NULL)
        g_ptr_array_add (skipped, local_error);
      else
        g_error_free (local_error);
    }
  g_ptr_array_sort (runs, compare_cb);
  return g_steal_pointer (&runs);
}

/* The file in `folder` that holds the run `run_id`, or would: its name is
 * made from the id by the engine's rule (a plain name every file system
 * takes, never one Windows keeps for a device), and when a file of another
 * run has that name (two ids that make one name: "a:b" and "a_b"), the
 * next of "ID-2.json", "ID-3.json", ... that is free or holds this run.
 * `there`: a file of this run is there already. */
static char *
import_path (const char  *folder,
             const char  *run_id,
             gboolean    *there,
             GError     **error)
{
  char name[NN_FILE_NAME_MAX];

  *there = FALSE;
  nn_file_name_from_id (run_id, ".json", name, sizeof name);
  for (guint n = 1; n <= 100; n++)
    {
      g_autofree char *path = NULL;
      g_autoptr(GBytes) contents = NULL;
      g_autoptr(TbRun) other = NULL;

      if (n == 1)
        path = g_build_filename (folder, name, NULL);
      else
        {
          g_autofree char *stem = g_strndup (name, strlen (name) - strlen (".json"));
          g_autofree char *numbered = g_strdup_printf ("%s-%u.json", stem, n);

          path = g_build_filename (folder, numbered, NULL);
        }
      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        return g_steal_pointer (&path);
      if (tb_run_read_file (path, &contents, NULL)
          && (other = tb_run_load_summary (path, contents, NULL)) != NULL
          && g_strcmp0 (other->run_id, run_id) == 0)
        {
          *there = TRUE;
          return g_steal_pointer (&path);
        }
    }
  {
    g_autofree char *display = display_name (name);

    g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                 _("“%s” was not imported: 100 files of other runs have its name in the runs folder"), display);
  }
  return NULL;
}

TbRun *
tb_run_import (const char  *source,
               const char  *folder,
               gboolean    *copied,
               GError     **error)
{
  g_autoptr(GBytes) contents = NULL;
  g_autofree char *dest = NULL;
  g_autoptr(TbRun) run = NULL;
  gconstpointer data;
  gsize length = 0;
  gboolean there = FALSE;

  g_return_val_if_fail (source != NULL, NULL);
  g_return_val_if_fail (folder != NULL, NULL);

  if (copied != NULL)
    *copied = FALSE;
  /* read once: the bytes checked are the bytes copied */
  if (!tb_run_read_file (source, &contents, error))
    return NULL;
  run = tb_run_load_summary (source, contents, error);
  if (run == NULL)
    return NULL;

  dest = import_path (folder, run->run_id, &there, error);
  if (dest == NULL)
    return NULL;
  g_free (run->path);
  run->path = g_strdup (dest);
  if (there)
    return g_steal_pointer (&run);   /* already in the history */
  if (g_mkdir_with_parents (folder, 0755) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Could not create the runs folder “%s”: %s"), folder, g_strerror (saved));
      return NULL;
    }
  /* copied whole, so no field is lost */
  data = g_bytes_get_data (contents, &length);
  if (!g_file_set_contents (dest, length > 0 ? data : "", (gssize) length, error))
    return NULL;
  if (copied != NULL)
    *copied = TRUE;
  return g_steal_pointer (&run);
}

double
tb_run_seconds_per_epoch (const TbRun *run)
{
  g_return_val_if_fail (run != NULL, NAN);
  return run->seconds_per_epoch;
}

double
tb_run_final_accuracy (const TbRun *run)
{
  g_return_val_if_fail (run != NULL, NAN);
  return run->final_accuracy;
}

gboolean
tb_run_is_whole (const TbRun *run)
{
  g_return_val_if_fail (run != NULL, FALSE);
  return run->epochs != NULL;
}

GDateTime *
tb_run_get_started (const TbRun *run)
{
  g_return_val_if_fail (run != NULL, NULL);

  if (run->started_at == NULL)
    return NULL;
  /* started_at is UTC with its "Z"; a time without a zone is taken as UTC
   * too, as the engine writes no other */
  {
    g_autoptr(GTimeZone) utc = g_time_zone_new_utc ();

    return g_date_time_new_from_iso8601 (run->started_at, utc);
  }
}

/* The local time zone, read once: GLib 2.74 reads the zone's file again
 * at every g_time_zone_new_local when TZ is unset (most desktops), which
 * was a third of the time a list took to show a row. */
static GTimeZone *
local_zone (void)
{
  static GTimeZone *zone;

  if (g_once_init_enter (&zone))
    g_once_init_leave (&zone, g_time_zone_new_local ());
  return zone;
}

char *
tb_run_started_label (const TbRun *run)
{
  g_autoptr(GDateTime) utc = NULL;
  g_autoptr(GDateTime) local = NULL;

  g_return_val_if_fail (run != NULL, NULL);

  utc = tb_run_get_started (run);
  if (utc == NULL)
    return NULL;
  local = g_date_time_to_timezone (utc, local_zone ());
  if (local == NULL)
    return NULL;
  /* TRANSLATORS: when a run started, in local time, as g_date_time_format
   * takes it: "30 Nov 2026, 04:00" */
  return g_date_time_format (local, _("%-d %b %Y, %H:%M"));
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

const char *
tb_run_dataset_label (const TbRun *run)
{
  return run->dataset_name != NULL && *run->dataset_name ? run->dataset_name : "?";
}

char *
tb_run_title (const TbRun *run)
{
  /* a run under other conditions than the default says so first thing */
  if (tb_run_has_conditions (run))
    return g_strdup_printf ("%s · %s · %s", tb_run_model_label (run), tb_run_dataset_label (run),
                            tb_run_conditions_label (run));
  return g_strdup_printf ("%s · %s", tb_run_model_label (run), tb_run_dataset_label (run));
}

char *
tb_run_details (const TbRun *run)
{
  double spe = tb_run_seconds_per_epoch (run);
  double acc = tb_run_final_accuracy (run);
  g_autofree char *device = tb_run_device_label (run);
  g_autofree char *os = tb_run_os_label (run);
  g_autofree char *spe_text = NULL;
  g_autofree char *acc_text = NULL;

  if (!isfinite (spe) && !isfinite (acc))
    return g_strdup_printf ("%s · %s", device, os);
  /* as the CLI's table: short epochs keep three digits rather than 0.00 */
  if (isfinite (spe))
    spe_text = g_strdup_printf (spe >= 1.0 ? _("%.2f median s/epoch") : _("%.3g median s/epoch"), spe);
  else
    spe_text = g_strdup ("—");
  acc_text = isfinite (acc) ? g_strdup_printf (_("%.2f %% accuracy"), acc * 100) : g_strdup ("—");
  if (tb_run_has_conditions (run))
    {
      g_autofree char *conditions = tb_run_conditions_text (run);

      return g_strdup_printf ("%s · %s · %s · %s\n%s", device, os, spe_text, acc_text, conditions);
    }
  return g_strdup_printf ("%s · %s · %s · %s", device, os, spe_text, acc_text);
}

char *
tb_run_error_line (const TbRun *run)
{
  g_autofree char *valid = NULL;
  char *line;

  if (run->error == NULL || *run->error == '\0' || g_strcmp0 (run->status, "completed") == 0)
    return NULL;
  valid = g_utf8_make_valid (run->error, -1);
  if (g_utf8_strlen (valid, -1) > 300)
    {
      g_autofree char *cut = g_utf8_substring (valid, 0, 299);

      line = g_strconcat (cut, "…", NULL);
    }
  else
    line = g_steal_pointer (&valid);
  g_strdelimit (line, "\r\n\t", ' ');
  return line;
}

gboolean
tb_run_has_conditions (const TbRun *run)
{
  return run->conditions != NULL && g_strcmp0 (run->conditions, "default") != 0;
}

const char *
tb_run_conditions_label (const TbRun *run)
{
  if (!tb_run_has_conditions (run))
    return "";
  if (g_strcmp0 (run->conditions, "article") == 0)
    return _("article conditions");
  return _("custom conditions");
}

char *
tb_run_conditions_text (const TbRun *run)
{
  const char *name, *data;

  if (g_strcmp0 (run->conditions, "article") == 0)
    name = _("Article");
  else if (g_strcmp0 (run->conditions, "custom") == 0)
    name = _("Custom");
  else
    name = _("Default");
  if (g_strcmp0 (run->data_on, "pinned") == 0)
    data = _("data from pinned host memory");
  else if (g_strcmp0 (run->data_on, "pageable") == 0)
    data = _("data from pageable host memory");
  else
    data = _("data on the device");
  /* TRANSLATORS: a run's conditions: their name, then where its data came
   * from, whether steps were replayed as a graph, how often the loss was
   * read and whether ops were fused, e.g. "Article: data from pageable host
   * memory, one launch per op, loss read every step, unfused ops" */
  return g_strdup_printf (_("%s: %s, %s, %s, %s"), name, data,
                          run->graph ? _("replayed graphs") : _("one launch per op"),
                          run->loss_every_step ? _("loss read every step")
                                               : _("loss read every few steps"),
                          run->fused ? _("fused ops") : _("unfused ops"));
}

/* ------------------------------------------------------------ export */

/* One CSV cell: quoted when it holds a separator, a quote or a line break,
 * so a file's text can add no rows or columns; and a text a spreadsheet
 * would take for a formula (= + - @, or a tab or CR first) starts with an
 * apostrophe, so opening the table runs nothing. */
static void
csv_append_text (GString    *line,
                 const char *s)
{
  gboolean formula;

  g_string_append_c (line, ',');
  if (s == NULL || *s == '\0')
    return;
  formula = strchr ("=+-@\t\r", s[0]) != NULL;
  if (!formula && strpbrk (s, ",\"\n\r") == NULL)
    {
      g_string_append (line, s);
      return;
    }
  g_string_append_c (line, '"');
  if (formula)
    g_string_append_c (line, '\'');
  for (const char *p = s; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (line, '"');
      g_string_append_c (line, *p);
    }
  g_string_append_c (line, '"');
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

static void
csv_append_int (GString *line,
                gint64   v)
{
  g_string_append_printf (line, ",%" G_GINT64_FORMAT, v);
}

char *
tb_runs_format_csv (GPtrArray *runs)
{
  GString *csv = g_string_new ("run_id,started_at,status,model,dataset,device_kind,device_name,"
                               "threads,os,optimizer,lr,batch_size,epochs,params,"
                               "median_seconds_per_epoch,final_test_accuracy,total_seconds,spec\n");

  g_return_val_if_fail (runs != NULL, NULL);

  for (guint i = 0; i < runs->len; i++)
    {
      TbRun *run = g_ptr_array_index (runs, i);
      g_autofree char *os = tb_run_os_label (run);
      gsize start = csv->len;

      /* every cell after a comma; the row's first comma is dropped */
      csv_append_text (csv, run->run_id);
      g_string_erase (csv, (gssize) start, 1);
      csv_append_text (csv, run->started_at);
      csv_append_text (csv, run->status);
      csv_append_text (csv, tb_run_model_label (run));
      csv_append_text (csv, run->dataset_name);
      csv_append_text (csv, run->device_kind);
      csv_append_text (csv, run->device_name);
      csv_append_int (csv, run->threads);
      csv_append_text (csv, os);
      csv_append_text (csv, run->optimizer);
      csv_append_number (csv, run->lr);
      csv_append_int (csv, run->batch_size);
      csv_append_int (csv, run->n_epochs);
      csv_append_int (csv, run->params);
      csv_append_number (csv, tb_run_seconds_per_epoch (run));
      csv_append_number (csv, tb_run_final_accuracy (run));
      csv_append_number (csv, run->total_seconds);
      csv_append_text (csv, run->spec);
      g_string_append_c (csv, '\n');
    }
  return g_string_free (csv, FALSE);
}

gboolean
tb_runs_export_csv (GPtrArray   *runs,
                    const char  *path,
                    GError     **error)
{
  g_autofree char *csv = NULL;

  g_return_val_if_fail (runs != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  csv = tb_runs_format_csv (runs);
  return tb_file_set_contents (path, csv, -1, error);
}

gboolean
tb_runs_export_json (GPtrArray   *runs,
                     const char  *path,
                     GError     **error)
{
  g_autoptr(GString) out = g_string_new ("[");

  g_return_val_if_fail (runs != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  /* each file parsed again, one at a time: only one tree in memory */
  for (guint i = 0; i < runs->len; i++)
    {
      TbRun *run = g_ptr_array_index (runs, i);
      g_autoptr(JsonParser) parser = json_parser_new_immutable ();
      g_autoptr(JsonGenerator) gen = json_generator_new ();
      g_autoptr(GBytes) contents = run->contents != NULL ? g_bytes_ref (run->contents) : NULL;
      g_autofree char *text = NULL;
      gsize length = 0;
      const char *data;

      /* a summary keeps no file: it is read again, and checked again, as
       * it may have changed since */
      if (contents == NULL)
        {
          g_autoptr(TbRun) again = tb_run_load (run->path, error);

          if (again == NULL)
            return FALSE;
          contents = g_bytes_ref (again->contents);
        }
      data = g_bytes_get_data (contents, &length);
      if (!json_parser_load_from_data (parser, length > 0 ? data : "", (gssize) length, error))
        return FALSE;
      json_generator_set_root (gen, json_parser_get_root (parser));
      json_generator_set_pretty (gen, TRUE);
      text = json_generator_to_data (gen, NULL);
      g_string_append (out, i > 0 ? ",\n" : "\n");
      g_string_append (out, text);
    }
  g_string_append (out, runs->len > 0 ? "\n]\n" : "]\n");
  return tb_file_set_contents (path, out->str, (gssize) out->len, error);
}

/* ------------------------------------------------------------ comparison */

static char *
group_label (const TbRun *run,
             TbGroupBy    group_by)
{
  return group_by == TB_GROUP_OS ? tb_run_os_label (run) : tb_run_device_label (run);
}

/* What the bars of a group have in common. By OS that includes the kind
 * of device: a machine's CPU and GPU runs are compared with the same kind
 * under another OS, never averaged into one bar. */
static char *
category_label (const TbRun *run,
                TbGroupBy    group_by)
{
  const char *dataset = run->dataset_name ? run->dataset_name : "?";

  g_autofree char *category = NULL;

  if (group_by == TB_GROUP_OS)
    category = g_strdup_printf ("%s · %s · %s", tb_run_model_label (run), dataset,
                                g_strcmp0 (run->device_kind, "cuda") == 0 ? _("GPU") : _("CPU"));
  else
    category = g_strdup_printf ("%s · %s", tb_run_model_label (run), dataset);
  /* runs under other conditions are a group of their own, never bars
   * beside default runs with a speed-up between them */
  if (!tb_run_has_conditions (run))
    return g_steal_pointer (&category);
  return g_strdup_printf ("%s · %s", category, tb_run_conditions_label (run));
}

/* How a bar compares with the first of its group, `ratio` being the
 * first's seconds over its own: "26× faster", "1.3× slower", "as fast". */
static char *
ratio_note (double ratio)
{
  double r = ratio >= 1 ? ratio : 1 / ratio;
  char number[G_ASCII_DTOSTR_BUF_SIZE];

  if (fabs (ratio - 1) < 0.005)
    /* TRANSLATORS: a bar's note: as fast as the first bar of its group */
    return g_strdup (_("as fast"));
  /* 2 digits where they tell bars apart (1.05×), fewer above */
  g_snprintf (number, sizeof number, r >= 10 ? "%.0f" : r >= 1.1 ? "%.1f" : "%.2f", r);
  if (ratio >= 1)
    /* TRANSLATORS: a bar's note: its seconds per epoch against the first bar of its group, "26× faster" */
    return g_strdup_printf (_("%s× faster"), number);
  /* TRANSLATORS: a bar's note: its seconds per epoch against the first bar of its group, "1.3× slower" */
  return g_strdup_printf (_("%s× slower"), number);
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
                            group_by == TB_GROUP_OS ? _("Median seconds per epoch by operating system")
                                                    : _("Median seconds per epoch by device"),
                            group_by == TB_GROUP_OS ? _("Model · data set · device") : _("Model · data set"),
                            _("Median seconds per epoch"));

  for (guint i = 0; i < runs->len; i++)
    {
      TbRun *run = g_ptr_array_index (runs, i);
      char *g = group_label (run, group_by);
      char *c = category_label (run, group_by);

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
      g_autofree char *c = category_label (run, group_by);
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
          gboolean first;
          g_autofree char *note = NULL;

          if (n[cell] == 0)
            {
              tb_chart_series_set_bar (s, c, NAN, NULL);
              continue;
            }
          v = sum[cell] / n[cell];
          /* speed-up against the first group that has this category; the
           * first itself has none */
          b = NAN;
          others = 0;
          first = TRUE;
          for (guint k = 0; k < groups->len; k++)
            if (n[base + k] > 0)
              {
                if (!isfinite (b))
                  {
                    b = sum[base + k] / n[base + k];
                    first = k == g;
                  }
                others++;
              }
          if (others > 1 && !first && v > 0 && b > 0)
            note = ratio_note (b / v);
          tb_chart_series_set_bar (s, c, v, note);
        }
    }
  return data;
}

static char *
run_series_label (const TbRun *run)
{
  g_autofree char *dev = tb_run_device_label (run);

  if (tb_run_has_conditions (run))
    return g_strdup_printf ("%s · %s · %s", tb_run_model_label (run), dev,
                            tb_run_conditions_label (run));
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
      g_autofree char *label = NULL;
      TbChartSeries *s;

      /* a run that finished no epoch (failed at once) has no line, so no
       * place in the legend either; nor has a summary */
      if (run->epochs == NULL || run->epochs->len == 0)
        continue;
      label = run_series_label (run);
      s = tb_chart_data_add_series (data, label, 0);
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
      g_autofree char *label = NULL;
      TbChartSeries *s;
      guint n = run->loss_curve != NULL ? run->loss_curve->len : 0;
      double last = n > 0 ? g_array_index (run->loss_steps, double, n - 1) : 0;

      if (n == 0)
        continue;   /* no step taken, or a summary: no line */
      label = run_series_label (run);
      s = tb_chart_data_add_series (data, label, 0);

      /* runs differ in length and down-sampling: put them on a common
       * 0..100 % axis of their own steps so they overlay */
      for (guint j = 0; j < n; j++)
        tb_chart_series_append (s, last > 0 ? 100.0 * g_array_index (run->loss_steps, double, j) / last : 0,
                                g_array_index (run->loss_curve, double, j));
    }
  return data;
}

/* ------------------------------------------------------------ breakdown */

const char *
tb_run_part_label (NnBreakdownPart part)
{
  switch (part)
    {
    case NN_BREAKDOWN_GEMM:
      return _("Matrix products");
    case NN_BREAKDOWN_LOOPS:
      return _("Engine loops");
    case NN_BREAKDOWN_JOIN_WAIT:
      return _("Waiting at joins");
    case NN_BREAKDOWN_HOST:
      return _("Host code");
    case NN_BREAKDOWN_LAUNCH:
      return _("Launching work");
    case NN_BREAKDOWN_COPY:
      return _("Copies to the GPU");
    case NN_BREAKDOWN_SYNC_WAIT:
      return _("Waiting for the GPU");
    case NN_BREAKDOWN_PARTS:
    default:
      break;
    }
  return "";
}

/* The legend's order: the CPU's parts, then the GPU's, host code last; and
 * their colours, the palette's in that order but for host code, whose dark
 * blue would sit too close to the matrix products' blue: yellow. */
static const NnBreakdownPart part_order[] = {
  NN_BREAKDOWN_GEMM, NN_BREAKDOWN_LOOPS, NN_BREAKDOWN_JOIN_WAIT, NN_BREAKDOWN_LAUNCH,
  NN_BREAKDOWN_COPY, NN_BREAKDOWN_SYNC_WAIT, NN_BREAKDOWN_HOST,
};
static const guint part_palette[] = { 0, 1, 2, 3, 4, 5, 7 };

/* A part's value in a row: its seconds, or its share of the step (the
 * parts' sum) in percent. */
static double
part_value (const TbBreakdown *b,
            double             seconds,
            gboolean           shares)
{
  double total = 0;

  if (!shares)
    return seconds;
  for (int p = 0; p < NN_BREAKDOWN_PARTS; p++)
    if (isfinite (b->part_seconds[p]))
      total += b->part_seconds[p];
  return total > 0 ? 100.0 * seconds / total : NAN;
}

TbChartData *
tb_breakdown_chart (const char *const  *labels,
                    const TbBreakdown **breakdowns,
                    guint               n,
                    gboolean            shares)
{
  TbChartData *data = tb_chart_data_new (TB_CHART_STACKED, _("Where a training step's time goes"),
                                         shares ? _("Share of the step (%)")
                                                : _("Seconds per step"),
                                         NULL);
  TbChartSeries *series[NN_BREAKDOWN_PARTS] = { NULL };
  TbChartSeries *busy = NULL;

  tb_chart_data_set_missing_text (data, _("No breakdown recorded"));
  /* a part's series (and colour) only where some row has it, so the legend
   * names what the bars show */
  for (guint k = 0; k < G_N_ELEMENTS (part_order); k++)
    {
      NnBreakdownPart p = part_order[k];

      for (guint i = 0; i < n && series[p] == NULL; i++)
        if (breakdowns[i]->measured && isfinite (breakdowns[i]->part_seconds[p]))
          series[p] = tb_chart_data_add_series (data, tb_run_part_label (p),
                                                tb_chart_palette (part_palette[k]));
    }
  for (guint i = 0; i < n && busy == NULL; i++)
    if (breakdowns[i]->measured && isfinite (breakdowns[i]->device_busy_seconds))
      {
        busy = tb_chart_data_add_series (data, _("GPU busy"), 0x241f31);
        busy->marker = TRUE;
      }
  for (guint i = 0; i < n; i++)
    {
      const TbBreakdown *b = breakdowns[i];
      guint c = tb_chart_data_add_category (data, labels[i]);

      if (!b->measured)
        continue;
      for (int p = 0; p < NN_BREAKDOWN_PARTS; p++)
        if (series[p] != NULL && isfinite (b->part_seconds[p]))
          {
            /* a share shows its seconds on hover */
            g_autofree char *note = shares ? g_strdup_printf (_("(%.3g ms)"), b->part_seconds[p] * 1e3)
                                           : NULL;
            tb_chart_series_set_bar (series[p], c, part_value (b, b->part_seconds[p], shares), note);
          }
      if (busy != NULL && isfinite (b->device_busy_seconds))
        {
          g_autofree char *note = shares ? g_strdup_printf (_("(%.3g ms)"), b->device_busy_seconds * 1e3)
                                         : NULL;
          tb_chart_series_set_bar (busy, c, part_value (b, b->device_busy_seconds, shares), note);
        }
    }
  return data;
}

TbChartData *
tb_runs_breakdown_chart (GPtrArray *runs)
{
  g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) breakdowns = g_ptr_array_new ();

  g_return_val_if_fail (runs != NULL, tb_breakdown_chart (NULL, NULL, 0, FALSE));

  for (guint i = 0; i < runs->len; i++)
    {
      TbRun *run = g_ptr_array_index (runs, i);

      g_ptr_array_add (labels, run_series_label (run));
      g_ptr_array_add (breakdowns, &run->breakdown);
    }
  return tb_breakdown_chart ((const char *const *) labels->pdata,
                             (const TbBreakdown **) breakdowns->pdata, runs->len, FALSE);
}

/* ------------------------------------------------------------ shared
 * with the sweep file's reader (tb-sweep.c), which reads other people's
 * files within the same bounds */

char *
_tb_run_structure_problem (const char *data,
                           gsize       length,
                           guint       max_depth,
                           guint       max_values)
{
  return structure_problem (data, length, max_depth, max_values);
}

char *
_tb_run_bounded_strdup (const char *s,
                        gsize       max)
{
  return bounded_strdup (s, max);
}

char *
_tb_run_display_name (const char *path)
{
  return display_name (path);
}

JsonObject *
_tb_run_json_object (JsonObject *o,
                     const char *name)
{
  return get_object (o, name);
}

char *
_tb_run_json_string (JsonObject *o,
                     const char *name,
                     gsize       max)
{
  return get_string_max (o, name, max);
}

gboolean
_tb_run_json_number (JsonNode *n,
                     double   *out)
{
  return node_number (n, out);
}

void
_tb_run_csv_append_text (GString    *line,
                         const char *s)
{
  csv_append_text (line, s);
}

void
_tb_run_csv_append_number (GString *line,
                           double   v)
{
  csv_append_number (line, v);
}
