/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-sweep.c: read sweep files (sweep.json) with json-glib within bounds,
 * list the sweeps of a runs folder, and build the sweep's charts and CSV:
 * samples per second over the swept axis and the GPU-over-CPU crossover.
 */
#define G_LOG_DOMAIN "trainbench-sweep"

#include "tb-config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include "tb-format.h"
#include "tb-run.h"
#include "tb-run-private.h"
#include "tb-sweep.h"

/* Names, devices and states are short; specs and errors longer. */
#define NAME_MAX_BYTES TB_RUN_MAX_NAME
#define TEXT_MAX_BYTES TB_RUN_MAX_TEXT

static void
point_clear (TbSweepPoint *p)
{
  g_free (p->device);
  g_free (p->device_kind);
  g_free (p->device_name);
  g_free (p->spec);
  g_free (p->status);
  g_free (p->error);
  g_free (p->result);
}

static void
tb_sweep_clear (TbSweep *sweep)
{
  g_free (sweep->path);
  g_free (sweep->sweep_id);
  g_free (sweep->app_version);
  g_free (sweep->started_at);
  g_free (sweep->status);
  g_free (sweep->os_name);
  g_free (sweep->cpu_model);
  g_free (sweep->conditions);
  g_free (sweep->dataset_name);
  g_free (sweep->family);
  g_free (sweep->template_spec);
  g_free (sweep->optimizer);
  for (guint i = 0; i < sweep->n_axes; i++)
    g_free (sweep->axes[i].name);
  g_clear_pointer (&sweep->devices, g_ptr_array_unref);
  g_clear_pointer (&sweep->points, g_array_unref);
}

TbSweep *
tb_sweep_ref (TbSweep *sweep)
{
  return g_atomic_rc_box_acquire (sweep);
}

void
tb_sweep_unref (TbSweep *sweep)
{
  g_atomic_rc_box_release_full (sweep, (GDestroyNotify) tb_sweep_clear);
}

/* JSON text from p on: past white space. */
static const char *
skip_space (const char *p,
            const char *end)
{
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
    p++;
  return p;
}

/* The JSON string at p (its opening quote), decoded into out (at most
 * size - 1 bytes: a longer one is cut, and *whole is FALSE); returns the
 * position after its closing quote, or NULL when the text ends first. A
 * \u escape of NUL or of a character beyond ASCII decodes as 0x80, which
 * no name compared with holds. */
static const char *
read_string (const char *p,
             const char *end,
             char       *out,
             gsize       size,
             gboolean   *whole)
{
  gsize n = 0;

  *whole = TRUE;
  for (p++; p < end && *p != '"'; p++)
    {
      char c = *p;

      if (c == '\\')
        {
          if (++p >= end)
            return NULL;
          switch (*p)
            {
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'u':
              {
                guint v = 0;

                if (end - p < 5)
                  return NULL;
                for (int i = 1; i <= 4; i++)
                  v = v * 16 + (guint) (g_ascii_xdigit_value (p[i]) & 0xf);
                c = v > 0 && v < 0x80 ? (char) v : (char) 0x80;
                p += 4;
                break;
              }
            default: c = *p; break; /* " \ / */
            }
        }
      if (n + 1 < size)
        out[n++] = c;
      else
        *whole = FALSE;
    }
  if (p >= end)
    return NULL;
  out[n] = '\0';
  return p + 1;
}

/* Past the JSON value at p (a string, or an object or array with all it
 * holds, or a number or literal), or NULL when the text ends first. Not a
 * check of the value: the loader does that. */
static const char *
skip_value (const char *p,
            const char *end)
{
  gsize depth = 0;

  for (; p < end; p++)
    {
      char c = *p;

      if (c == '"')
        {
          for (p++; p < end && *p != '"'; p++)
            if (*p == '\\' && ++p >= end)
              return NULL;
          if (p >= end)
            return NULL;
          if (depth == 0)
            return p + 1;
        }
      else if (c == '{' || c == '[')
        depth++;
      else if (c == '}' || c == ']')
        {
          if (depth == 0)
            return p; /* a number or literal, ended by its object's end */
          if (--depth == 0)
            return p + 1;
        }
      else if (depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'))
        return p;
    }
  return NULL;
}

gboolean
tb_sweep_is_sweep_data (const char *data,
                        gsize       length)
{
  const char *p, *end;
  gboolean sweep = FALSE;

  g_return_val_if_fail (data != NULL || length == 0, FALSE);

  if (length == 0)
    return FALSE;
  p = data;
  end = data + length;

  /* The top object's members in turn, each value skipped but "kind"'s: the
   * last "kind" decides, as json-glib keeps the last of a name given twice.
   * Where in the file it comes, or what other members' strings hold, does
   * not matter. */
  p = skip_space (p, end);
  if (p >= end || *p != '{')
    return FALSE;
  p = skip_space (p + 1, end);
  while (p < end && *p == '"')
    {
      char name[8], value[24];
      gboolean name_whole, value_whole;

      p = read_string (p, end, name, sizeof name, &name_whole);
      if (p == NULL)
        return FALSE;
      p = skip_space (p, end);
      if (p >= end || *p != ':')
        return FALSE;
      p = skip_space (p + 1, end);
      if (p < end && *p == '"' && name_whole && strcmp (name, "kind") == 0)
        {
          p = read_string (p, end, value, sizeof value, &value_whole);
          if (p == NULL)
            return FALSE;
          sweep = value_whole && strcmp (value, "trainbench-sweep") == 0;
        }
      else if (p >= end || (p = skip_value (p, end)) == NULL)
        return FALSE;
      else if (name_whole && strcmp (name, "kind") == 0)
        sweep = FALSE;
      p = skip_space (p, end);
      if (p < end && *p == ',')
        p = skip_space (p + 1, end);
    }
  return sweep && p < end && *p == '}';
}

static void
set_bad (GError     **error,
         const char  *path,
         const char  *why)
{
  g_autofree char *display = _tb_run_display_name (path);

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               _("“%s” is not a readable sweep file: %s"), display, why);
}

static gboolean
get_number (JsonObject *o,
            const char *name,
            double     *out)
{
  if (o == NULL || !json_object_has_member (o, name))
    return FALSE;
  return _tb_run_json_number (json_object_get_member (o, name), out);
}

/* A whole number within [lo, hi]: a file's 1e30 or NaN stays out of C's
 * conversions. */
static gboolean
get_bounded_int (JsonNode *n,
                 double    lo,
                 double    hi,
                 gint64   *out)
{
  double v;

  if (!_tb_run_json_number (n, &v) || !(v >= lo && v <= hi) || v != floor (v))
    return FALSE;
  *out = (gint64) v;
  return TRUE;
}

static int
get_int (JsonObject *o,
         const char *name,
         int         fallback)
{
  gint64 v;

  if (o == NULL || !json_object_has_member (o, name)
      || !get_bounded_int (json_object_get_member (o, name), 0, G_MAXINT, &v))
    return fallback;
  return (int) v;
}

static double
get_double (JsonObject *o,
            const char *name)
{
  double v;

  return get_number (o, name, &v) && isfinite (v) ? v : NAN;
}

static JsonArray *
get_array (JsonObject *o,
           const char *name)
{
  JsonNode *n;

  if (o == NULL || !json_object_has_member (o, name))
    return NULL;
  n = json_object_get_member (o, name);
  return JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
}

static gboolean
read_axes (TbSweep     *sweep,
           JsonArray   *axes,
           const char  *path,
           GError     **error)
{
  guint n = axes != NULL ? json_array_get_length (axes) : 0;

  if (n == 0)
    {
      set_bad (error, path, _("it has no axes"));
      return FALSE;
    }
  if (n > TB_SWEEP_MAX_AXES)
    {
      g_autofree char *why = g_strdup_printf (_("it has %u axes, and a sweep has at most %d"), n, TB_SWEEP_MAX_AXES);

      set_bad (error, path, why);
      return FALSE;
    }
  for (guint i = 0; i < n; i++)
    {
      JsonNode *an = json_array_get_element (axes, i);
      JsonObject *ao = JSON_NODE_HOLDS_OBJECT (an) ? json_node_get_object (an) : NULL;
      JsonArray *values = get_array (ao, "values");
      TbSweepAxis *axis = &sweep->axes[i];
      guint nv = values != NULL ? json_array_get_length (values) : 0;

      axis->name = _tb_run_json_string (ao, "name", 32);
      sweep->n_axes = i + 1;
      if (axis->name == NULL || *axis->name == '\0' || nv == 0)
        {
          g_autofree char *why = g_strdup_printf (_("axis %u has no name or no values"), i + 1);

          set_bad (error, path, why);
          return FALSE;
        }
      for (guint k = 0; k < i; k++)
        if (strcmp (sweep->axes[k].name, axis->name) == 0)
          {
            g_autofree char *why = g_strdup_printf (_("the axis “%s” is there twice"), axis->name);

            set_bad (error, path, why);
            return FALSE;
          }
      if (nv > TB_SWEEP_MAX_VALUES)
        {
          g_autofree char *why = g_strdup_printf (_("the axis “%s” has %u values, and an axis has at most %d"),
                                                  axis->name, nv, TB_SWEEP_MAX_VALUES);

          set_bad (error, path, why);
          return FALSE;
        }
      for (guint k = 0; k < nv; k++)
        if (!get_bounded_int (json_array_get_element (values, k), 1, 1e9, &axis->values[k]))
          {
            g_autofree char *why = g_strdup_printf (_("the axis “%s” has a value that is not a whole number from 1 to 10⁹"),
                                                    axis->name);

            set_bad (error, path, why);
            return FALSE;
          }
      axis->n_values = nv;
    }
  return TRUE;
}

static void
read_point (TbSweep    *sweep,
            JsonObject *po,
            guint       index)
{
  TbSweepPoint p = { 0 };
  JsonObject *values = _tb_run_json_object (po, "values");

  for (guint a = 0; a < sweep->n_axes; a++)
    if (values != NULL && json_object_has_member (values, sweep->axes[a].name))
      p.has_value[a] = get_bounded_int (json_object_get_member (values, sweep->axes[a].name), 1, 1e9, &p.values[a]);
  p.device = _tb_run_json_string (po, "device", 32);
  p.device_kind = _tb_run_json_string (po, "device_kind", 32);
  p.device_name = _tb_run_json_string (po, "device_name", NAME_MAX_BYTES);
  p.spec = _tb_run_json_string (po, "spec", TEXT_MAX_BYTES);
  p.status = _tb_run_json_string (po, "status", 32);
  p.error = _tb_run_json_string (po, "error", TEXT_MAX_BYTES);
  p.result = _tb_run_json_string (po, "result", NAME_MAX_BYTES);
  p.step_seconds_median = get_double (po, "step_seconds_median");
  p.step_seconds_p10 = get_double (po, "step_seconds_p10");
  p.step_seconds_p90 = get_double (po, "step_seconds_p90");
  p.samples_per_second = get_double (po, "samples_per_second");
  if (!(p.samples_per_second > 0))
    p.samples_per_second = NAN;
  _tb_run_read_breakdown (_tb_run_json_object (po, "breakdown"), &p.breakdown);
  if (p.status == NULL)
    p.status = g_strdup ("pending");
  if (p.device == NULL)
    p.device = g_strdup_printf ("?%u", index);
  g_array_append_val (sweep->points, p);
}

TbSweep *
tb_sweep_load_bytes (const char  *path,
                     GBytes      *contents,
                     GError     **error)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(TbSweep) sweep = NULL;
  g_autofree char *kind = NULL;
  g_autofree char *why = NULL;
  JsonObject *root, *system, *dataset, *model;
  JsonArray *devices, *points;
  JsonNode *node;
  const char *data;
  gsize length = 0;
  double schema;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (contents != NULL, NULL);

  data = g_bytes_get_data (contents, &length);
  if (length > TB_SWEEP_MAX_BYTES)
    {
      g_autofree char *size = g_format_size_full (length, G_FORMAT_SIZE_IEC_UNITS);
      g_autofree char *limit = g_format_size_full (TB_SWEEP_MAX_BYTES, G_FORMAT_SIZE_IEC_UNITS);

      why = g_strdup_printf (_("it is %s, and sweep files are at most %s"), size, limit);
      set_bad (error, path, why);
      return NULL;
    }
  /* 1024 points of a few dozen values each */
  why = _tb_run_structure_problem (data, length, TB_SWEEP_MAX_DEPTH, 200000);
  if (why != NULL)
    {
      set_bad (error, path, why);
      return NULL;
    }

  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, length > 0 ? data : "", (gssize) length, &local_error))
    {
      g_autofree char *message = _tb_run_bounded_strdup (local_error->message, 300);

      set_bad (error, path, message);
      return NULL;
    }
  node = json_parser_get_root (parser);
  root = node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  kind = _tb_run_json_string (root, "kind", 64);
  if (g_strcmp0 (kind, "trainbench-sweep") != 0)
    {
      set_bad (error, path, _("it does not say \"kind\": \"trainbench-sweep\""));
      return NULL;
    }
  if (!get_number (root, "schema", &schema) || schema != 1)
    {
      set_bad (error, path, _("it is not of schema 1"));
      return NULL;
    }

  sweep = g_atomic_rc_box_new0 (TbSweep);
  sweep->path = g_strdup (path);
  sweep->devices = g_ptr_array_new_with_free_func (g_free);
  sweep->points = g_array_new (FALSE, TRUE, sizeof (TbSweepPoint));
  g_array_set_clear_func (sweep->points, (GDestroyNotify) point_clear);
  sweep->sweep_id = _tb_run_json_string (root, "sweep_id", NAME_MAX_BYTES);
  sweep->app_version = _tb_run_json_string (root, "app_version", NAME_MAX_BYTES);
  sweep->started_at = _tb_run_json_string (root, "started_at", NAME_MAX_BYTES);
  sweep->status = _tb_run_json_string (root, "status", 32);
  if (sweep->sweep_id == NULL || sweep->status == NULL)
    {
      set_bad (error, path, _("it has no sweep_id or status"));
      return NULL;
    }
  system = _tb_run_json_object (root, "system");
  sweep->os_name = _tb_run_json_string (_tb_run_json_object (system, "os"), "name", NAME_MAX_BYTES);
  sweep->cpu_model = _tb_run_json_string (_tb_run_json_object (system, "cpu"), "model", NAME_MAX_BYTES);
  dataset = _tb_run_json_object (root, "dataset");
  sweep->dataset_name = _tb_run_json_string (dataset, "name", NAME_MAX_BYTES);
  model = _tb_run_json_object (root, "model");
  sweep->family = _tb_run_json_string (model, "family", 32);
  sweep->template_spec = _tb_run_json_string (model, "template", TEXT_MAX_BYTES);
  sweep->threads = get_int (root, "threads", 0);
  sweep->steps = get_int (root, "steps", 0);
  sweep->warmup_steps = get_int (root, "warmup_steps", 0);
  sweep->optimizer = _tb_run_json_string (root, "optimizer", 64);
  sweep->conditions = _tb_run_json_string (_tb_run_json_object (root, "conditions"), "name", 32);
  if (sweep->conditions == NULL)
    sweep->conditions = g_strdup ("default");

  if (!read_axes (sweep, get_array (root, "axes"), path, error))
    return NULL;

  devices = get_array (root, "devices");
  for (guint i = 0; devices != NULL && i < json_array_get_length (devices); i++)
    {
      JsonNode *dn = json_array_get_element (devices, i);

      if (i >= TB_SWEEP_MAX_DEVICES)
        {
          why = g_strdup_printf (_("it has more than %d devices"), TB_SWEEP_MAX_DEVICES);
          set_bad (error, path, why);
          return NULL;
        }
      if (JSON_NODE_HOLDS_VALUE (dn) && json_node_get_value_type (dn) == G_TYPE_STRING)
        g_ptr_array_add (sweep->devices, _tb_run_bounded_strdup (json_node_get_string (dn), 32));
    }

  points = get_array (root, "points");
  if (points != NULL && json_array_get_length (points) > TB_SWEEP_MAX_POINTS)
    {
      why = g_strdup_printf (_("it has %u points, and a sweep has at most %d"),
                             json_array_get_length (points), TB_SWEEP_MAX_POINTS);
      set_bad (error, path, why);
      return NULL;
    }
  for (guint i = 0; points != NULL && i < json_array_get_length (points); i++)
    {
      JsonNode *pn = json_array_get_element (points, i);

      /* a point that is not an object is no point; the others stand */
      if (JSON_NODE_HOLDS_OBJECT (pn))
        read_point (sweep, json_node_get_object (pn), i);
    }
  /* devices named only by their points (an older or hand-made file) */
  for (guint i = 0; i < sweep->points->len; i++)
    {
      const TbSweepPoint *p = &g_array_index (sweep->points, TbSweepPoint, i);
      gboolean known = FALSE;

      for (guint d = 0; d < sweep->devices->len && !known; d++)
        known = strcmp (g_ptr_array_index (sweep->devices, d), p->device) == 0;
      if (!known && sweep->devices->len < TB_SWEEP_MAX_DEVICES)
        g_ptr_array_add (sweep->devices, g_strdup (p->device));
    }
  return g_steal_pointer (&sweep);
}

TbSweep *
tb_sweep_load (const char  *path,
               GError     **error)
{
  g_autoptr(GBytes) contents = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  if (!tb_run_read_file (path, &contents, error))
    return NULL;
  return tb_sweep_load_bytes (path, contents, error);
}

void
tb_sweep_summary_free (TbSweepSummary *summary)
{
  if (summary == NULL)
    return;
  g_free (summary->path);
  g_free (summary->started_at);
  g_free (summary->status);
  g_free (summary->description);
  g_free (summary);
}

static int
compare_newest_cb (gconstpointer a,
                   gconstpointer b)
{
  const TbSweepSummary *sa = *(TbSweepSummary * const *) a, *sb = *(TbSweepSummary * const *) b;
  int by_time = g_strcmp0 (sb->started_at, sa->started_at);

  return by_time != 0 ? by_time : g_strcmp0 (sa->path, sb->path);
}

/* A runs folder holds few sweeps; more than this are old ones. */
#define MAX_LISTED_SWEEPS 200

/* An entry of the sweeps folder for messages: "up", "a/sweep.json" (the
 * folder's name bounded, on one line). */
static char *
entry_name (const char *folder_path,
            gboolean    sweep_file)
{
  g_autofree char *name = _tb_run_display_name (folder_path);

  return sweep_file ? g_strconcat (name, "/sweep.json", NULL) : g_steal_pointer (&name);
}

/* An entry of the sweeps folder not listed, and why. */
static void
skip (GPtrArray  *skipped,
      const char *folder_path,
      gboolean    sweep_file,
      const char *why)
{
  g_autofree char *name = NULL;

  if (skipped == NULL)
    return;
  name = entry_name (folder_path, sweep_file);
  g_ptr_array_add (skipped, g_error_new (G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "“%s”: %s", name, why));
}

/* What `file` is, the link itself where it is one. */
static GFileInfo *
query_no_follow (GFile *file)
{
  return g_file_query_info (file,
                            G_FILE_ATTRIBUTE_STANDARD_TYPE "," G_FILE_ATTRIBUTE_STANDARD_IS_SYMLINK ","
                            G_FILE_ATTRIBUTE_UNIX_DEVICE "," G_FILE_ATTRIBUTE_UNIX_INODE,
                            G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, NULL);
}

static gboolean
is_link (GFileInfo *info)
{
  return g_file_info_get_is_symlink (info) || g_file_info_get_file_type (info) == G_FILE_TYPE_SYMBOLIC_LINK;
}

/* The summary of the sweep file at `path`: read whole (its tree only while
 * it is read), kept without its points. */
static TbSweepSummary *
summarize (const char  *path,
           GError     **error)
{
  g_autoptr(TbSweep) sweep = tb_sweep_load (path, error);
  TbSweepSummary *summary;

  if (sweep == NULL)
    return NULL;
  summary = g_new0 (TbSweepSummary, 1);
  summary->path = g_strdup (path);
  summary->started_at = g_strdup (sweep->started_at);
  summary->status = g_strdup (sweep->status);
  summary->description = tb_sweep_describe (sweep);
  return summary;
}

GPtrArray *
tb_sweep_list_folder (const char   *runs_folder,
                      GPtrArray    *skipped,
                      GCancellable *cancellable)
{
  GPtrArray *sweeps = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_sweep_summary_free);
  g_autoptr(GHashTable) files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autofree char *folder = NULL;
  g_autoptr(GFile) dir = NULL;
  g_autoptr(GFileInfo) dir_info = NULL;
  g_autoptr(GFileEnumerator) children = NULL;

  g_return_val_if_fail (runs_folder != NULL, sweeps);

  folder = g_build_filename (runs_folder, "sweeps", NULL);
  dir = g_file_new_for_path (folder);
  dir_info = query_no_follow (dir);
  if (dir_info == NULL)
    return sweeps;   /* no sweeps yet */
  if (is_link (dir_info))
    {
      skip (skipped, folder, FALSE, _("it is a link, and links are not followed"));
      return sweeps;
    }
  children = g_file_enumerate_children (dir,
                                        G_FILE_ATTRIBUTE_STANDARD_NAME "," G_FILE_ATTRIBUTE_STANDARD_TYPE ","
                                        G_FILE_ATTRIBUTE_STANDARD_IS_SYMLINK,
                                        G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, cancellable, NULL);
  while (children != NULL && sweeps->len < MAX_LISTED_SWEEPS)
    {
      GFileInfo *child = NULL;
      g_autoptr(GFile) file = NULL;
      g_autoptr(GFileInfo) info = NULL;
      g_autofree char *path = NULL;
      g_autofree char *child_path = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *id = NULL;
      TbSweepSummary *summary;

      if (!g_file_enumerator_iterate (children, &child, NULL, cancellable, NULL) || child == NULL)
        break;
      child_path = g_build_filename (folder, g_file_info_get_name (child), NULL);
      if (is_link (child))
        {
          skip (skipped, child_path, FALSE, _("it is a link, and links are not followed"));
          continue;
        }
      if (g_file_info_get_file_type (child) != G_FILE_TYPE_DIRECTORY)
        continue;
      path = g_build_filename (child_path, "sweep.json", NULL);
      file = g_file_new_for_path (path);
      info = query_no_follow (file);
      if (info == NULL)
        continue;   /* a folder without a sweep */
      if (is_link (info))
        {
          skip (skipped, child_path, TRUE, _("it is a link, and links are not followed"));
          continue;
        }
      /* one file (a device and an inode), however many names it has:
       * read once; Windows gives none */
      if (g_file_info_has_attribute (info, G_FILE_ATTRIBUTE_UNIX_INODE))
        id = g_strdup_printf ("%u:%" G_GUINT64_FORMAT,
                              g_file_info_get_attribute_uint32 (info, G_FILE_ATTRIBUTE_UNIX_DEVICE),
                              g_file_info_get_attribute_uint64 (info, G_FILE_ATTRIBUTE_UNIX_INODE));
      if (id != NULL && g_hash_table_contains (files, id))
        {
          g_autofree char *why = g_strdup_printf (_("it is the file “%s” under another name, listed once"),
                                                  (const char *) g_hash_table_lookup (files, id));

          skip (skipped, child_path, TRUE, why);
          continue;
        }
      if (id != NULL)
        g_hash_table_insert (files, g_steal_pointer (&id), entry_name (child_path, TRUE));
      summary = summarize (path, &error);
      if (summary != NULL)
        g_ptr_array_add (sweeps, summary);
      else if (skipped != NULL)
        {
          /* which folder's sweep.json */
          g_autofree char *folder_name = entry_name (child_path, FALSE);

          g_prefix_error (&error, "“%s”: ", folder_name);
          g_ptr_array_add (skipped, g_steal_pointer (&error));
        }
    }
  g_ptr_array_sort (sweeps, compare_newest_cb);
  return sweeps;
}

/* ------------------------------------------------------------ queries */

int
tb_sweep_axis_index (const TbSweep *sweep,
                     const char    *name)
{
  g_return_val_if_fail (sweep != NULL, -1);

  for (guint i = 0; i < sweep->n_axes; i++)
    if (g_strcmp0 (sweep->axes[i].name, name) == 0)
      return (int) i;
  return -1;
}

/* The sweep as the engine's request and points, for the rules the engine
 * owns (the axes shown, the crossover): its axes, its first
 * NN_SWEEP_DEVICES_MAX devices, and each point's values, device, status
 * and speed (free *points). A point of no axis value or device of these
 * has none (device -1), so it is never found. */
static void
engine_view (const TbSweep   *sweep,
             NnSweepRequest  *request,
             NnSweepPoint   **points)
{
  nn_sweep_request_init (request);
  request->axis_count = (int32_t) MIN (sweep->n_axes, NN_SWEEP_AXES_MAX);
  for (int32_t a = 0; a < request->axis_count; a++)
    {
      NnSweepAxis *axis = &request->axes[a];

      g_strlcpy (axis->name, sweep->axes[a].name, sizeof axis->name);
      axis->count = (int32_t) MIN (sweep->axes[a].n_values, NN_SWEEP_VALUES_MAX);
      for (int32_t k = 0; k < axis->count; k++)
        axis->values[k] = (int32_t) CLAMP (sweep->axes[a].values[k], 0, G_MAXINT32);
    }
  request->device_count = (int32_t) MIN (sweep->devices->len, NN_SWEEP_DEVICES_MAX);
  for (int32_t d = 0; d < request->device_count; d++)
    g_strlcpy (request->devices[d], g_ptr_array_index (sweep->devices, d), sizeof request->devices[d]);
  *points = g_new0 (NnSweepPoint, MAX (sweep->points->len, 1));
  for (guint i = 0; i < sweep->points->len; i++)
    {
      const TbSweepPoint *p = &g_array_index (sweep->points, TbSweepPoint, i);
      NnSweepPoint *e = &(*points)[i];

      e->index = (int32_t) i;
      e->device = -1;
      for (int32_t d = 0; d < request->device_count; d++)
        if (g_strcmp0 (p->device, request->devices[d]) == 0)
          e->device = d;
      for (int32_t a = 0; a < request->axis_count; a++)
        e->values[a] = p->has_value[a] ? (int32_t) CLAMP (p->values[a], 0, G_MAXINT32) : 0;
      e->status = g_strcmp0 (p->status, "completed") == 0   ? NN_SWEEP_POINT_COMPLETED
                  : g_strcmp0 (p->status, "failed") == 0    ? NN_SWEEP_POINT_FAILED
                  : g_strcmp0 (p->status, "cancelled") == 0 ? NN_SWEEP_POINT_CANCELLED
                                                            : NN_SWEEP_POINT_PENDING;
      e->samples_per_second = p->samples_per_second;
    }
}

void
tb_sweep_default_axes (const TbSweep *sweep,
                       int           *x_axis,
                       int           *y_axis)
{
  NnSweepRequest request;
  g_autofree NnSweepPoint *points = NULL;
  int32_t x, y;

  g_return_if_fail (sweep != NULL);

  engine_view (sweep, &request, &points);
  nn_sweep_crossover_axes (&request, &x, &y);
  *x_axis = MAX (x, 0);
  *y_axis = y;
}

static gboolean
point_is_done (const TbSweepPoint *p)
{
  return g_strcmp0 (p->status, "completed") == 0 || g_strcmp0 (p->status, "failed") == 0
         || g_strcmp0 (p->status, "cancelled") == 0;
}

guint
tb_sweep_count_done (const TbSweep *sweep)
{
  guint n = 0;

  g_return_val_if_fail (sweep != NULL, 0);

  for (guint i = 0; i < sweep->points->len; i++)
    n += point_is_done (&g_array_index (sweep->points, TbSweepPoint, i));
  return n;
}

char *
tb_sweep_axis_label (const char *name)
{
  if (g_strcmp0 (name, "W") == 0)
    return g_strdup (_("Width (W)"));
  if (g_strcmp0 (name, "D") == 0)
    return g_strdup (_("Depth (D)"));
  if (g_strcmp0 (name, "F") == 0)
    return g_strdup (_("Filters (F)"));
  if (g_strcmp0 (name, "batch") == 0)
    return g_strdup (_("Batch size"));
  return g_strdup (name);
}

/* "CPU", "GPU 0" */
static char *
device_label (const char *device)
{
  if (g_strcmp0 (device, "cpu") == 0)
    return g_strdup (_("CPU"));
  if (device != NULL && g_str_has_prefix (device, "cuda:"))
    return g_strdup_printf (_("GPU %s"), device + 5);
  return g_strdup (device);
}

char *
tb_sweep_describe (const TbSweep *sweep)
{
  GString *text = g_string_new (NULL);

  g_return_val_if_fail (sweep != NULL, NULL);

  for (guint a = 0; a < sweep->n_axes; a++)
    g_string_append_printf (text, "%s%s ×%u", a > 0 ? ", " : "", sweep->axes[a].name, sweep->axes[a].n_values);
  /* early, where a title cut short still shows it */
  if (g_strcmp0 (sweep->conditions, "article") == 0)
    g_string_append_printf (text, " · %s", _("article conditions"));
  else if (g_strcmp0 (sweep->conditions, "custom") == 0)
    g_string_append_printf (text, " · %s", _("custom conditions"));
  g_string_append (text, " · ");
  /* each device with its name, so a sweep of another machine says whose */
  for (guint d = 0; d < sweep->devices->len; d++)
    {
      const char *device = g_ptr_array_index (sweep->devices, d);
      g_autofree char *label = device_label (device);
      const char *name = NULL;

      for (guint i = 0; i < sweep->points->len && name == NULL; i++)
        {
          const TbSweepPoint *p = &g_array_index (sweep->points, TbSweepPoint, i);

          if (g_strcmp0 (p->device, device) == 0 && p->device_name != NULL && *p->device_name)
            name = p->device_name;
        }
      g_string_append_printf (text, "%s%s", d > 0 ? ", " : "", label);
      if (name != NULL)
        g_string_append_printf (text, " (%s)", name);
    }
  /* TRANSLATORS: points finished of all, "12/32 points" */
  g_string_append_printf (text, _(" · %u/%u points"), tb_sweep_count_done (sweep), sweep->points->len);
  if (sweep->dataset_name != NULL)
    g_string_append_printf (text, " · %s", sweep->dataset_name);
  return g_string_free (text, FALSE);
}

/* ------------------------------------------------------------ charts */

/* Do the point's values of every axis but `skip_a` and `skip_b` match the
 * first value of those axes? (The charts show a slice of a 3-axis sweep.) */
static gboolean
point_in_slice (const TbSweep      *sweep,
                const TbSweepPoint *p,
                int                 skip_a,
                int                 skip_b)
{
  for (guint a = 0; a < sweep->n_axes; a++)
    if ((int) a != skip_a && (int) a != skip_b && (!p->has_value[a] || p->values[a] != sweep->axes[a].values[0]))
      return FALSE;
  return TRUE;
}

/* The CPU's lines in warm colours, the GPUs' in cool ones, so a device's
 * lines read as one family. */
static guint32
device_color (const char *device,
              guint       index)
{
  static const guint32 warm[] = { 0xe66100, 0xa51d2d, 0xe5a50a, 0x986a44, 0xc64600, 0x865e3c };
  static const guint32 cool[] = { 0x1c71d8, 0x26a269, 0x9141ac, 0x2190a4, 0x62a0ea, 0x613583 };

  if (g_strcmp0 (device, "cpu") == 0)
    return warm[index % G_N_ELEMENTS (warm)];
  return cool[index % G_N_ELEMENTS (cool)];
}

TbChartData *
tb_sweep_speed_chart (const TbSweep *sweep,
                      int            x_axis)
{
  g_autofree char *x_label = NULL;
  TbChartData *data;
  gint64 lo = G_MAXINT64, hi = 0;

  g_return_val_if_fail (sweep != NULL, NULL);

  if (x_axis < 0 || x_axis >= (int) sweep->n_axes)
    x_axis = 0;
  x_label = tb_sweep_axis_label (sweep->axes[x_axis].name);
  data = tb_chart_data_new (TB_CHART_LINES, _("Samples per second"), x_label, _("Samples per second"));
  data->y_from_zero = TRUE;
  data->x_integer = TRUE;
  for (guint k = 0; k < sweep->axes[x_axis].n_values; k++)
    {
      lo = MIN (lo, sweep->axes[x_axis].values[k]);
      hi = MAX (hi, sweep->axes[x_axis].values[k]);
    }
  data->x_log = hi >= lo * 8;

  /* a line per device and value of the other axes: the points of each in
   * the order of their x values */
  for (guint d = 0; d < sweep->devices->len; d++)
    {
      const char *device = g_ptr_array_index (sweep->devices, d);
      g_autofree char *dev = device_label (device);
      guint n_other = 1;
      int others[TB_SWEEP_MAX_AXES];
      guint n_others = 0;

      for (guint a = 0; a < sweep->n_axes; a++)
        if ((int) a != x_axis)
          {
            others[n_others++] = (int) a;
            n_other *= sweep->axes[a].n_values;
          }
      for (guint combo = 0; combo < n_other; combo++)
        {
          gint64 want[TB_SWEEP_MAX_AXES] = { 0 };
          GString *label = g_string_new (dev);
          TbChartSeries *s;
          guint rest = combo;

          for (guint o = 0; o < n_others; o++)
            {
              const TbSweepAxis *axis = &sweep->axes[others[o]];

              want[o] = axis->values[rest % axis->n_values];
              rest /= axis->n_values;
              g_string_append_printf (label, " · %s %" G_GINT64_FORMAT,
                                      strcmp (axis->name, "batch") == 0 ? _("batch") : axis->name, want[o]);
            }
          s = tb_chart_data_add_series (data, label->str, device_color (device, combo));
          g_string_free (label, TRUE);
          for (guint k = 0; k < sweep->axes[x_axis].n_values; k++)
            {
              gint64 x = sweep->axes[x_axis].values[k];
              double y = NAN;

              for (guint i = 0; i < sweep->points->len; i++)
                {
                  const TbSweepPoint *p = &g_array_index (sweep->points, TbSweepPoint, i);
                  gboolean match = strcmp (p->device, device) == 0 && p->has_value[x_axis] && p->values[x_axis] == x;

                  for (guint o = 0; o < n_others && match; o++)
                    match = p->has_value[others[o]] && p->values[others[o]] == want[o];
                  if (match)
                    {
                      y = p->samples_per_second;
                      break;
                    }
                }
              /* a point not measured is a gap in its line */
              tb_chart_series_append (s, (double) x, y);
            }
        }
    }
  return data;
}

/* The point of `device` at the cell's values, or NULL. */
static const TbSweepPoint *
find_point (const TbSweep *sweep,
            const char    *device,
            int            x_axis,
            gint64         x,
            int            y_axis,
            gint64         y)
{
  for (guint i = 0; i < sweep->points->len; i++)
    {
      const TbSweepPoint *p = &g_array_index (sweep->points, TbSweepPoint, i);

      if (strcmp (p->device, device) != 0 || !p->has_value[x_axis] || p->values[x_axis] != x)
        continue;
      if (y_axis >= 0 && (!p->has_value[y_axis] || p->values[y_axis] != y))
        continue;
      if (point_in_slice (sweep, p, x_axis, y_axis))
        return p;
    }
  return NULL;
}

/* Why a point gives no speed, for the hover: "GPU 0: failed: out of
 * memory", "CPU: not measured yet". */
static void
append_missing (GString            *text,
                const char         *device,
                const TbSweepPoint *p)
{
  g_autofree char *dev = device_label (device);

  if (p == NULL)
    g_string_append_printf (text, _("\n%s: not in this sweep"), dev);
  else if (g_strcmp0 (p->status, "failed") == 0)
    {
      g_autofree char *error = _tb_run_bounded_strdup (p->error != NULL ? p->error : "", 200);

      g_string_append_printf (text, _("\n%s: failed: %s"), dev, error);
    }
  else if (g_strcmp0 (p->status, "cancelled") == 0)
    g_string_append_printf (text, _("\n%s: stopped before it was measured"), dev);
  else if (g_strcmp0 (p->status, "pending") == 0 || g_strcmp0 (p->status, "running") == 0)
    g_string_append_printf (text, _("\n%s: not measured yet"), dev);
  else
    g_string_append_printf (text, _("\n%s: no speed measured"), dev);
}

static char *
format_speed (double sps)
{
  g_autofree char *count = tb_format_count ((gint64) CLAMP (round (sps), 0, 1e15));

  /* TRANSLATORS: a speed, "12 345 samples/s" */
  return g_strdup_printf (_("%s samples/s"), count);
}

/* The crossover the charts and the CSV show: the engine's lines along
 * x_axis (checked: -1 or out of range is the first axis) in the slice
 * where every axis but x_axis and y_axis (-1: none, or out of range) is
 * at its first value, by the row they make (y_axis's value), and the
 * devices compared (NULL for one the sweep lacks). */
typedef struct
{
  int x_axis, y_axis;
  guint n_rows;
  NnCrossoverLine rows[TB_SWEEP_MAX_VALUES];   /* (n_rows) by y_axis's value */
  const char *cpu, *gpu;                       /* borrowed from the sweep */
} Crossover;

static void
crossover_make (const TbSweep *sweep,
                int            x_axis,
                int            y_axis,
                Crossover     *out)
{
  NnSweepRequest request;
  g_autofree NnSweepPoint *points = NULL;
  int32_t cpu, gpu, lines;

  memset (out, 0, sizeof *out);
  if (x_axis < 0 || x_axis >= (int) sweep->n_axes)
    x_axis = 0;
  if (y_axis >= (int) sweep->n_axes || y_axis == x_axis)
    y_axis = -1;
  out->x_axis = x_axis;
  out->y_axis = y_axis;
  out->n_rows = y_axis >= 0 ? MIN (sweep->axes[y_axis].n_values, TB_SWEEP_MAX_VALUES) : 1;
  for (guint r = 0; r < out->n_rows; r++)
    for (guint c = 0; c < NN_SWEEP_VALUES_MAX; c++)
      out->rows[r].ratio[c] = NAN;
  engine_view (sweep, &request, &points);
  nn_sweep_crossover_devices (&request, &cpu, &gpu);
  out->cpu = cpu >= 0 ? g_ptr_array_index (sweep->devices, cpu) : NULL;
  out->gpu = gpu >= 0 ? g_ptr_array_index (sweep->devices, gpu) : NULL;
  lines = nn_sweep_crossover_line_count (&request, x_axis);
  for (int32_t k = 0; k < lines; k++)
    {
      NnCrossoverLine line;
      gboolean in_slice = TRUE;

      nn_sweep_crossover_line (&request, points, (int32_t) sweep->points->len, x_axis, k, &line);
      for (int a = 0; a < request.axis_count; a++)
        if (a != x_axis && a != y_axis && line.at[a] != 0)
          in_slice = FALSE;
      if (in_slice && (y_axis < 0 || (guint) line.at[y_axis] < out->n_rows))
        out->rows[y_axis >= 0 ? line.at[y_axis] : 0] = line;
    }
}

/* A point that counts for the crossover (completed with a speed), as the
 * engine's rule has it: its speed, else NAN. */
static double
point_speed (const TbSweepPoint *p)
{
  return p != NULL && g_strcmp0 (p->status, "completed") == 0 && p->samples_per_second > 0
           ? p->samples_per_second
           : NAN;
}

TbChartData *
tb_sweep_crossover_chart (const TbSweep *sweep,
                          int            x_axis,
                          int            y_axis)
{
  g_autofree char *x_label = NULL;
  g_autofree char *y_label = NULL;
  const TbSweepAxis *xa, *ya;
  TbChartData *data;
  TbChartGrid *grid;
  Crossover *crossover;

  g_return_val_if_fail (sweep != NULL, NULL);

  crossover = g_new (Crossover, 1);
  crossover_make (sweep, x_axis, y_axis, crossover);
  x_axis = crossover->x_axis;
  y_axis = crossover->y_axis;
  xa = &sweep->axes[x_axis];
  ya = y_axis >= 0 ? &sweep->axes[y_axis] : NULL;
  x_label = tb_sweep_axis_label (xa->name);
  y_label = ya != NULL ? tb_sweep_axis_label (ya->name) : g_strdup ("");
  data = tb_chart_data_new (TB_CHART_HEATMAP, _("GPU over CPU speed (samples per second)"), x_label, y_label);
  /* a third axis is shown at its first value: the title says which */
  for (guint a = 0; a < sweep->n_axes; a++)
    if ((int) a != x_axis && (int) a != y_axis)
      {
        g_autofree char *title = g_strdup_printf ("%s · %s %" G_GINT64_FORMAT, data->title, sweep->axes[a].name,
                                                  sweep->axes[a].values[0]);

        g_free (data->title);
        data->title = g_steal_pointer (&title);
      }
  grid = tb_chart_data_set_grid (data, xa->n_values, crossover->n_rows, 1.0);
  grid->low_label = g_strdup (_("CPU faster"));
  grid->high_label = g_strdup (_("GPU faster"));

  for (guint c = 0; c < xa->n_values; c++)
    {
      g_free (g_ptr_array_index (grid->x_labels, c));
      g_ptr_array_index (grid->x_labels, c) = g_strdup_printf ("%" G_GINT64_FORMAT, xa->values[c]);
    }
  for (guint r = 0; ya != NULL && r < crossover->n_rows; r++)
    {
      g_free (g_ptr_array_index (grid->y_labels, r));
      g_ptr_array_index (grid->y_labels, r) = g_strdup_printf ("%" G_GINT64_FORMAT, ya->values[r]);
    }
  for (guint r = 0; r < grid->n_y; r++)
    for (guint c = 0; c < grid->n_x; c++)
      {
        gint64 yv = ya != NULL ? ya->values[r] : 0;
        const TbSweepPoint *pc = crossover->cpu != NULL ? find_point (sweep, crossover->cpu, x_axis, xa->values[c], y_axis, yv) : NULL;
        const TbSweepPoint *pg = crossover->gpu != NULL ? find_point (sweep, crossover->gpu, x_axis, xa->values[c], y_axis, yv) : NULL;
        double cs = point_speed (pc), gs = point_speed (pg);
        /* the engine's ratio, the hover's words for it */
        double ratio = c < NN_SWEEP_VALUES_MAX ? crossover->rows[r].ratio[c] : NAN;
        g_autoptr(GString) note = g_string_new (NULL);

        if (crossover->gpu == NULL)
          g_string_append (note, _("No GPU in this sweep"));
        else if (crossover->cpu == NULL)
          g_string_append (note, _("No CPU in this sweep"));
        else if (!isnan (ratio))
          {
            g_autofree char *c_text = format_speed (cs), *g_text = format_speed (gs);

            /* the GPU is faster above 1 only: an even point is no win */
            if (ratio > 1)
              g_string_append_printf (note, _("GPU %.2f× as fast as the CPU"), ratio);
            else if (ratio < 1)
              g_string_append_printf (note, _("CPU %.2f× as fast as the GPU"), 1 / ratio);
            else
              g_string_append (note, _("The GPU as fast as the CPU"));
            g_string_append_printf (note, _("\nGPU %s · CPU %s"), g_text, c_text);
          }
        else
          {
            if (isnan (gs))
              append_missing (note, crossover->gpu, pg);
            if (isnan (cs))
              append_missing (note, crossover->cpu, pc);
            /* each reason on a line of its own, the first on the first */
            g_string_erase (note, 0, 1);
          }
        tb_chart_grid_set_cell (grid, c, r, ratio, note->str);
      }
  g_free (crossover);
  return data;
}

char *
tb_sweep_crossover_text (const TbSweep *sweep,
                         int            x_axis,
                         int            y_axis)
{
  GString *text = g_string_new (NULL);
  Crossover *crossover;
  const TbSweepAxis *xa;

  g_return_val_if_fail (sweep != NULL, NULL);

  if (sweep->n_axes == 0)
    return g_string_free (text, FALSE);
  crossover = g_new (Crossover, 1);
  crossover_make (sweep, x_axis, y_axis, crossover);
  xa = &sweep->axes[crossover->x_axis];
  for (guint r = 0; r < crossover->n_rows && crossover->cpu != NULL && crossover->gpu != NULL; r++)
    {
      const NnCrossoverLine *line = &crossover->rows[r];
      const char *x = g_strcmp0 (xa->name, "batch") == 0 ? _("batch") : xa->name;
      g_autofree char *where = g_strdup_printf ("%" G_GINT64_FORMAT,
                                                line->where >= 0 && (guint) line->where < xa->n_values
                                                  ? xa->values[line->where]
                                                  : 0);

      if (text->len > 0)
        g_string_append_c (text, '\n');
      if (crossover->y_axis >= 0)
        {
          const TbSweepAxis *ya = &sweep->axes[crossover->y_axis];
          g_autofree char *value = g_strdup_printf ("%" G_GINT64_FORMAT, ya->values[r]);

          /* TRANSLATORS: an axis and its value, the row of the crossover a line is about, "batch 32: " */
          g_string_append_printf (text, _("%s %s: "), g_strcmp0 (ya->name, "batch") == 0 ? _("batch") : ya->name,
                                  value);
        }
      switch (line->kind)
        {
        case NN_CROSSOVER_NOT_COMPARED:
          g_string_append (text, _("no pair of points to compare"));
          break;
        case NN_CROSSOVER_CPU_FASTER:
          /* TRANSLATORS: %s is an axis, "W" */
          g_string_append_printf (text, _("CPU faster at every %s"), x);
          break;
        case NN_CROSSOVER_GPU_FASTER:
          g_string_append_printf (text, _("GPU faster at every %s"), x);
          break;
        case NN_CROSSOVER_GPU_FROM:
          /* TRANSLATORS: an axis and its value, "GPU faster from W 128" */
          g_string_append_printf (text, _("GPU faster from %s %s"), x, where);
          break;
        case NN_CROSSOVER_CPU_AGAIN:
          /* TRANSLATORS: an axis and its value, "CPU faster again at W 2048" */
          g_string_append_printf (text, _("CPU faster again at %s %s"), x, where);
          break;
        }
    }
  g_free (crossover);
  return g_string_free (text, FALSE);
}

/* ------------------------------------------------------------ CSV */

TbChartData *
tb_sweep_breakdown_chart (const TbSweep *sweep,
                          int            x_axis,
                          int            y_axis)
{
  g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) breakdowns = g_ptr_array_new ();
  TbChartData *data;

  g_return_val_if_fail (sweep != NULL, NULL);

  for (guint i = 0; i < sweep->points->len; i++)
    {
      TbSweepPoint *p = &g_array_index (sweep->points, TbSweepPoint, i);
      g_autofree char *dev = NULL;
      GString *label;

      if (!point_in_slice (sweep, p, x_axis, y_axis) || !p->breakdown.measured)
        continue;
      dev = device_label (p->device);
      label = g_string_new (dev);
      for (guint a = 0; a < sweep->n_axes; a++)
        if (p->has_value[a])
          g_string_append_printf (label, " · %s %" G_GINT64_FORMAT,
                                  strcmp (sweep->axes[a].name, "batch") == 0 ? _("batch")
                                                                             : sweep->axes[a].name,
                                  p->values[a]);
      g_ptr_array_add (labels, g_string_free (label, FALSE));
      g_ptr_array_add (breakdowns, &p->breakdown);
    }
  data = tb_breakdown_chart ((const char *const *) labels->pdata,
                             (const TbBreakdown **) breakdowns->pdata, labels->len, TRUE);
  if (labels->len == 0)
    tb_chart_data_set_missing_text (data, _("No point with a breakdown yet"));
  return data;
}

char *
tb_sweep_format_csv (const TbSweep *sweep,
                     const char    *kind,
                     int            x_axis,
                     int            y_axis)
{
  GString *csv = g_string_new (NULL);

  g_return_val_if_fail (sweep != NULL, NULL);

  if (g_strcmp0 (kind, "crossover") == 0)
    {
      g_autoptr(TbChartData) chart = tb_sweep_crossover_chart (sweep, x_axis, y_axis);
      const TbChartGrid *grid = chart->grid;
      g_autofree Crossover *crossover = g_new (Crossover, 1);
      const char *cpu, *gpu;

      crossover_make (sweep, x_axis, y_axis, crossover);
      cpu = crossover->cpu;
      gpu = crossover->gpu;
      x_axis = crossover->x_axis;
      y_axis = crossover->y_axis;
      /* the axes' names come from the file: quoted as any text cell */
      _tb_run_csv_append_text (csv, sweep->axes[x_axis].name);
      g_string_erase (csv, 0, 1);
      _tb_run_csv_append_text (csv, y_axis >= 0 ? sweep->axes[y_axis].name : "row");
      g_string_append (csv, ",cpu_samples_per_second,gpu_samples_per_second,gpu_over_cpu\n");
      for (guint r = 0; r < grid->n_y; r++)
        for (guint c = 0; c < grid->n_x; c++)
          {
            gint64 xv = sweep->axes[x_axis].values[c];
            gint64 yv = y_axis >= 0 ? sweep->axes[y_axis].values[r] : 0;
            const TbSweepPoint *pc = cpu != NULL ? find_point (sweep, cpu, x_axis, xv, y_axis, yv) : NULL;
            const TbSweepPoint *pg = gpu != NULL ? find_point (sweep, gpu, x_axis, xv, y_axis, yv) : NULL;

            g_string_append_printf (csv, "%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT, xv, yv);
            _tb_run_csv_append_number (csv, pc != NULL ? pc->samples_per_second : NAN);
            _tb_run_csv_append_number (csv, pg != NULL ? pg->samples_per_second : NAN);
            _tb_run_csv_append_number (csv, g_array_index (grid->cells, double, r * grid->n_x + c));
            g_string_append_c (csv, '\n');
          }
      return g_string_free (csv, FALSE);
    }

  g_string_append (csv, "device");
  for (guint a = 0; a < sweep->n_axes; a++)
    _tb_run_csv_append_text (csv, sweep->axes[a].name);
  g_string_append (csv, ",status,samples_per_second,step_seconds_median,step_seconds_p10,step_seconds_p90,"
                        "device_name,error,spec,breakdown_step_seconds");
  /* the breakdown's parts, by their file keys, then the GPU's busy time */
  for (int k = 0; k < NN_BREAKDOWN_PARTS; k++)
    g_string_append_printf (csv, ",%s_seconds", nn_breakdown_part_key ((NnBreakdownPart) k));
  g_string_append (csv, ",device_busy_seconds\n");
  for (guint i = 0; i < sweep->points->len; i++)
    {
      const TbSweepPoint *p = &g_array_index (sweep->points, TbSweepPoint, i);
      gsize start = csv->len;

      /* every cell after a comma; the row's first comma is dropped */
      _tb_run_csv_append_text (csv, p->device);
      g_string_erase (csv, (gssize) start, 1);
      for (guint a = 0; a < sweep->n_axes; a++)
        _tb_run_csv_append_number (csv, p->has_value[a] ? (double) p->values[a] : NAN);
      _tb_run_csv_append_text (csv, p->status);
      _tb_run_csv_append_number (csv, p->samples_per_second);
      _tb_run_csv_append_number (csv, p->step_seconds_median);
      _tb_run_csv_append_number (csv, p->step_seconds_p10);
      _tb_run_csv_append_number (csv, p->step_seconds_p90);
      _tb_run_csv_append_text (csv, p->device_name);
      _tb_run_csv_append_text (csv, p->error);
      _tb_run_csv_append_text (csv, p->spec);
      _tb_run_csv_append_number (csv, p->breakdown.measured ? p->breakdown.step_seconds : NAN);
      for (int k = 0; k < NN_BREAKDOWN_PARTS; k++)
        _tb_run_csv_append_number (csv, p->breakdown.measured ? p->breakdown.part_seconds[k] : NAN);
      _tb_run_csv_append_number (csv, p->breakdown.measured ? p->breakdown.device_busy_seconds : NAN);
      g_string_append_c (csv, '\n');
    }
  return g_string_free (csv, FALSE);
}

/* ------------------------------------------------------------ live sweeps */

TbSweep *
tb_sweep_new_for_engine (const NnSweep *engine_sweep,
                         const char    *dataset_name)
{
  const NnSweepRequest *request;
  TbSweep *sweep;

  g_return_val_if_fail (engine_sweep != NULL, NULL);

  request = nn_sweep_request (engine_sweep);
  sweep = g_atomic_rc_box_new0 (TbSweep);
  sweep->devices = g_ptr_array_new_with_free_func (g_free);
  sweep->points = g_array_new (FALSE, TRUE, sizeof (TbSweepPoint));
  g_array_set_clear_func (sweep->points, (GDestroyNotify) point_clear);
  sweep->status = g_strdup ("running");
  sweep->family = g_strdup (nn_sweep_family_name (request->family));
  sweep->template_spec = g_strdup (request->template_text);
  sweep->dataset_name = g_strdup (dataset_name);
  sweep->steps = request->steps;
  sweep->warmup_steps = request->warmup_steps;
  sweep->conditions = g_strdup (nn_conditions_name (&request->config.conditions));
  sweep->n_axes = (guint) CLAMP (request->axis_count, 0, TB_SWEEP_MAX_AXES);
  for (guint a = 0; a < sweep->n_axes; a++)
    {
      const NnSweepAxis *axis = &request->axes[a];

      sweep->axes[a].name = g_strndup (axis->name, sizeof axis->name);
      sweep->axes[a].n_values = (guint) CLAMP (axis->count, 0, TB_SWEEP_MAX_VALUES);
      for (guint k = 0; k < sweep->axes[a].n_values; k++)
        sweep->axes[a].values[k] = axis->values[k];
    }
  for (int d = 0; d < request->device_count && d < TB_SWEEP_MAX_DEVICES; d++)
    g_ptr_array_add (sweep->devices, g_strndup (request->devices[d], sizeof request->devices[d]));
  for (int32_t i = 0; i < nn_sweep_point_count (engine_sweep) && i < TB_SWEEP_MAX_POINTS; i++)
    {
      const NnSweepPoint *np = nn_sweep_point (engine_sweep, i);
      TbSweepPoint p = { 0 };

      for (guint a = 0; a < sweep->n_axes; a++)
        {
          p.values[a] = np->values[a];
          p.has_value[a] = TRUE;
        }
      p.device = g_strndup (np->device_text, sizeof np->device_text);
      p.spec = g_strndup (np->spec, sizeof np->spec);
      p.status = g_strdup ("pending");
      p.step_seconds_median = p.step_seconds_p10 = p.step_seconds_p90 = NAN;
      p.samples_per_second = NAN;
      _tb_run_read_breakdown (NULL, &p.breakdown);
      g_array_append_val (sweep->points, p);
    }
  return sweep;
}

/* The engine's breakdown as a file holds it: the device kind's parts (and
 * any other that took time), the GPU's busy time only where measured. */
static void
breakdown_from_engine (const NnBreakdown *nb,
                       NnDeviceKind       kind,
                       TbBreakdown       *b)
{
  _tb_run_read_breakdown (NULL, b);
  if (!nb->measured)
    return;
  b->measured = TRUE;
  b->steps = nb->steps;
  b->step_seconds = nb->step_seconds;
  for (int p = 0; p < NN_BREAKDOWN_PARTS; p++)
    if (nn_breakdown_part_on ((NnBreakdownPart) p, kind) || nb->part_seconds[p] > 0)
      b->part_seconds[p] = nb->part_seconds[p];
  b->device_busy_seconds = nb->device_busy_seconds >= 0 ? nb->device_busy_seconds : NAN;
  b->copy_bytes = nb->copy_bytes;
  b->evaluation_seconds = nb->evaluation_seconds;
}

void
tb_sweep_update_point (TbSweep            *sweep,
                       const NnSweepPoint *point)
{
  TbSweepPoint *p;

  g_return_if_fail (sweep != NULL && point != NULL);

  if (point->index < 0 || (guint) point->index >= sweep->points->len)
    return;
  p = &g_array_index (sweep->points, TbSweepPoint, point->index);
  g_free (p->status);
  p->status = g_strdup (nn_sweep_point_status_name (point->status));
  g_clear_pointer (&p->error, g_free);
  if (point->error[0] != '\0')
    p->error = g_strndup (point->error, sizeof point->error);
  g_free (p->device_name);
  p->device_name = g_strndup (point->device_name, sizeof point->device_name);
  g_free (p->device_kind);
  p->device_kind = g_strdup (point->device_kind == NN_DEVICE_CPU ? "cpu" : "cuda");
  p->step_seconds_median = point->step_seconds_median > 0 ? point->step_seconds_median : NAN;
  p->step_seconds_p10 = point->step_seconds_p10 > 0 ? point->step_seconds_p10 : NAN;
  p->step_seconds_p90 = point->step_seconds_p90 > 0 ? point->step_seconds_p90 : NAN;
  p->samples_per_second = point->samples_per_second > 0 ? point->samples_per_second : NAN;
  g_free (p->result);
  p->result = point->result_file[0] != '\0' ? g_strndup (point->result_file, sizeof point->result_file) : NULL;
  breakdown_from_engine (&point->breakdown, point->device_kind, &p->breakdown);
}

/* ------------------------------------------------------------ opened files */

typedef struct
{
  GPtrArray *files;   /* GFile */
  GPtrArray *sweeps;
  GPtrArray *others;
} SortJob;

static void
sort_job_free (SortJob *job)
{
  g_ptr_array_unref (job->files);
  g_clear_pointer (&job->sweeps, g_ptr_array_unref);
  g_clear_pointer (&job->others, g_ptr_array_unref);
  g_free (job);
}

/* Only a regular file is opened (a FIFO would wait for a writer), and
 * only one no larger than a sweep file may be: that is read whole, for its
 * "kind" may come anywhere in it. */
static gboolean
file_says_sweep (GFile        *file,
                 GCancellable *cancellable)
{
  g_autoptr(GFileInfo) info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_TYPE ","
                                                 G_FILE_ATTRIBUTE_STANDARD_SIZE,
                                                 G_FILE_QUERY_INFO_NONE, cancellable, NULL);
  g_autoptr(GFileInputStream) in = NULL;
  g_autofree char *data = NULL;
  gsize size, got = 0;

  if (info == NULL || g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR
      || g_file_info_get_size (info) <= 0 || g_file_info_get_size (info) > TB_SWEEP_MAX_BYTES)
    return FALSE;
  size = (gsize) g_file_info_get_size (info);
  in = g_file_read (file, cancellable, NULL);
  data = g_malloc (size);
  if (in == NULL || !g_input_stream_read_all (G_INPUT_STREAM (in), data, size, &got, cancellable, NULL))
    return FALSE;
  return tb_sweep_is_sweep_data (data, got);
}

static void
sort_thread (GTask        *task,
             gpointer      source,
             gpointer      task_data,
             GCancellable *cancellable)
{
  SortJob *job = task_data;

  for (guint i = 0; i < job->files->len; i++)
    {
      GFile *file = g_ptr_array_index (job->files, i);

      g_ptr_array_add (file_says_sweep (file, cancellable) ? job->sweeps : job->others, g_object_ref (file));
    }
  if (g_task_return_error_if_cancelled (task))
    return;
  g_task_return_boolean (task, TRUE);
}

void
tb_sweep_sort_files_async (GFile              **files,
                           guint                n_files,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  SortJob *job = g_new0 (SortJob, 1);

  job->files = g_ptr_array_new_with_free_func (g_object_unref);
  job->sweeps = g_ptr_array_new_with_free_func (g_object_unref);
  job->others = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < n_files; i++)
    g_ptr_array_add (job->files, g_object_ref (files[i]));
  g_task_set_task_data (task, job, (GDestroyNotify) sort_job_free);
  g_task_run_in_thread (task, sort_thread);
}

gboolean
tb_sweep_sort_files_finish (GAsyncResult  *result,
                            GPtrArray    **sweeps,
                            GPtrArray    **others,
                            GError       **error)
{
  SortJob *job;

  if (!g_task_propagate_boolean (G_TASK (result), error))
    return FALSE;
  job = g_task_get_task_data (G_TASK (result));
  *sweeps = g_steal_pointer (&job->sweeps);
  *others = g_steal_pointer (&job->others);
  return TRUE;
}
