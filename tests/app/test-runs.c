/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-runs.c: result files read back with json-glib (from a file or from
 * memory), a runs folder listed in a stable order or cancelled, malformed
 * files refused with a message, hostile ones (nested 100,000 levels, FIFOs,
 * /dev/zero, too large, 5,000-character names) refused or bounded, import
 * (checked and copied once), CSV/JSON export that no file's text can break,
 * the comparison grouped by device and by OS (each kind of device apart)
 * with speed-ups in words, seconds per epoch as the median everywhere, and
 * start times in local time.
 */
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#ifdef G_OS_UNIX
#include <sys/stat.h>
#include <sys/types.h>
#endif

#include "tb-run.h"
#include "test-gui-util.h"

static char *
fixture (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", name, NULL);
}

static GPtrArray *
load_both (void)
{
  GPtrArray *runs = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_run_unref);
  g_autofree char *cpu = fixture ("run-cpu.json");
  g_autofree char *gpu = fixture ("run-gpu.json");
  g_autoptr(GError) error = NULL;

  g_ptr_array_add (runs, tb_run_load (cpu, &error));
  g_assert_no_error (error);
  g_ptr_array_add (runs, tb_run_load (gpu, &error));
  g_assert_no_error (error);
  return runs;
}

static void
test_load (void)
{
  g_autofree char *path = fixture ("run-gpu.json");
  g_autoptr(GError) error = NULL;
  g_autoptr(TbRun) run = tb_run_load (path, &error);
  g_autofree char *dev = NULL;

  g_assert_no_error (error);
  g_assert_nonnull (run);
  g_assert_cmpstr (run->status, ==, "completed");
  g_assert_cmpstr (run->device_kind, ==, "cuda");
  g_assert_cmpstr (run->os_name, ==, "Windows");
  g_assert_cmpstr (run->optimizer, ==, "adam");
  g_assert_cmpint (run->batch_size, ==, 32);
  g_assert_cmpuint (run->epochs->len, ==, 3);
  g_assert_cmpuint (run->loss_curve->len, ==, 10);
  /* a spec equal to a preset's gets the preset's name */
  g_assert_cmpstr (tb_run_model_label (run), ==, "mlp-small");
  g_assert_cmpfloat_with_epsilon (tb_run_seconds_per_epoch (run), 0.010, 1e-9);
  g_assert_cmpfloat_with_epsilon (tb_run_final_accuracy (run), 0.98, 1e-9);
  dev = tb_run_device_label (run);
  g_assert_nonnull (strstr (dev, "RTX 4090"));
}

static void
test_bad_files (void)
{
  const char *root = tb_test_setup_env ();
  g_autofree char *folder = g_build_filename (root, "bad-runs", NULL);
  const char *cases[][2] = {
    { "garbage.json", "{ not json" },
    { "array.json", "[1, 2, 3]" },
    { "schema.json", "{\"schema\": 99, \"run_id\": \"x\", \"status\": \"completed\"}" },
    { "no-id.json", "{\"schema\": 1}" },
  };
  g_autofree char *good = fixture ("run-cpu.json");
  g_autofree char *copy = g_build_filename (folder, "good.json", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GPtrArray) runs = NULL;
  g_autoptr(GPtrArray) skipped = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);

  g_mkdir_with_parents (folder, 0755);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_build_filename (folder, cases[i][0], NULL);
      g_autoptr(GError) error = NULL;

      g_assert_true (g_file_set_contents (path, cases[i][1], -1, NULL));
      g_assert_null (tb_run_load (path, &error));
      g_assert_nonnull (error);
      /* the message names the file */
      g_assert_nonnull (strstr (error->message, cases[i][0]));
    }
  g_assert_true (g_file_get_contents (good, &contents, NULL, NULL));
  g_assert_true (g_file_set_contents (copy, contents, -1, NULL));

  runs = tb_run_load_folder (folder, skipped, NULL, NULL);
  g_assert_cmpuint (runs->len, ==, 1);
  g_assert_cmpuint (skipped->len, ==, G_N_ELEMENTS (cases));
}

static void
test_import (void)
{
  const char *root = tb_test_setup_env ();
  g_autofree char *folder = g_build_filename (root, "import-runs", NULL);
  g_autofree char *source = fixture ("run-gpu.json");
  g_autofree char *dest = g_build_filename (folder, "20261130T040000Z-mlp-small-cuda-0001.json", NULL);
  g_autofree char *bad = g_build_filename (root, "bad-import.json", NULL);
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(TbRun) first = NULL;
  g_autoptr(TbRun) again = NULL;
  gboolean copied = FALSE;

  /* checked, then copied byte for byte under its run id; the folder is made */
  first = tb_run_import (source, folder, &copied, &error);
  g_assert_no_error (error);
  g_assert_true (copied);
  g_assert_cmpstr (first->path, ==, dest);
  g_assert_cmpstr (first->device_kind, ==, "cuda");
  g_assert_true (g_file_get_contents (source, &a, NULL, NULL));
  g_assert_true (g_file_get_contents (dest, &b, NULL, NULL));
  g_assert_cmpstr (a, ==, b);

  /* the same run again: not written twice */
  again = tb_run_import (source, folder, &copied, &error);
  g_assert_no_error (error);
  g_assert_false (copied);
  g_assert_cmpstr (again->path, ==, dest);

  /* a malformed file: refused, named, nothing written */
  g_assert_true (g_file_set_contents (bad, "{\"schema\": 1, \"run_id\": ", -1, NULL));
  g_assert_null (tb_run_import (bad, folder, &copied, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "bad-import.json"));
  g_assert_false (copied);
  g_clear_error (&error);

  /* a file that is not there */
  g_assert_null (tb_run_import ("/nonexistent/run.json", folder, &copied, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "run.json"));
}

static void
test_load_data (void)
{
  g_autofree char *path = fixture ("run-cpu.json");
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(TbRun) run = NULL;
  gsize length = 0;

  /* the same run from memory, under the name given */
  g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
  run = tb_run_load_data ("/elsewhere/given.json", contents, length, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (run->path, ==, "/elsewhere/given.json");
  g_assert_cmpstr (run->run_id, ==, "20261130T030000Z-mlp-small-cpu-0002");
  g_assert_cmpuint (run->epochs->len, ==, 3);
  /* the file is kept whole for JSON export */
  g_assert_cmpmem (g_bytes_get_data (run->contents, NULL), g_bytes_get_size (run->contents), contents, length);

  /* cut short: an error naming the file, no crash */
  g_assert_null (tb_run_load_data ("/elsewhere/cut.json", contents, length / 2, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "cut.json"));
}

static void
test_folder_order_and_cancel (void)
{
  const char *root = tb_test_setup_env ();
  g_autofree char *folder = g_build_filename (root, "order-runs", NULL);
  g_autofree char *cpu = fixture ("run-cpu.json");
  g_autofree char *contents = NULL;
  g_autoptr(GPtrArray) runs = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  const char *names[] = { "c.json", "a.json", "b.json" };
  g_autoptr(GPtrArray) skipped = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);

  /* three runs that started in the same second: listed by path, always */
  g_assert_true (g_file_get_contents (cpu, &contents, NULL, NULL));
  g_mkdir_with_parents (folder, 0755);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (folder, names[i], NULL);

      g_assert_true (g_file_set_contents (path, contents, -1, NULL));
    }
  runs = tb_run_load_folder (folder, skipped, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (skipped->len, ==, 0);
  g_assert_cmpuint (runs->len, ==, 3);
  g_assert_true (g_str_has_suffix (((TbRun *) g_ptr_array_index (runs, 0))->path, "a.json"));
  g_assert_true (g_str_has_suffix (((TbRun *) g_ptr_array_index (runs, 2))->path, "c.json"));
  g_assert_cmpint (tb_run_compare (g_ptr_array_index (runs, 0), g_ptr_array_index (runs, 1)), <, 0);
  g_assert_cmpint (tb_run_compare (g_ptr_array_index (runs, 1), g_ptr_array_index (runs, 1)), ==, 0);
  g_clear_pointer (&runs, g_ptr_array_unref);

  /* a missing folder has no runs, and is no error */
  runs = tb_run_load_folder ("/nonexistent/runs", skipped, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (runs->len, ==, 0);
  g_clear_pointer (&runs, g_ptr_array_unref);

  /* cancelled: no half list */
  g_cancellable_cancel (cancellable);
  runs = tb_run_load_folder (folder, skipped, cancellable, &error);
  g_assert_null (runs);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

static void
test_export (void)
{
  g_autoptr(GPtrArray) runs = load_both ();
  const char *root = tb_test_setup_env ();
  g_autofree char *csv = g_build_filename (root, "runs.csv", NULL);
  g_autofree char *json = g_build_filename (root, "runs.json", NULL);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonNode *root_node;

  g_assert_true (tb_runs_export_csv (runs, csv, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 4); /* header, 2 runs, final "" */
  g_assert_true (g_str_has_prefix (lines[0], "run_id,started_at,status,model"));
  g_assert_true (g_str_has_prefix (lines[2], "20261130T040000Z-mlp-small-cuda-0001,"));
  /* the spec has ';' but no ','; the OS has spaces: no quoting needed, same columns */
  {
    g_auto(GStrv) header = g_strsplit (lines[0], ",", -1);
    g_auto(GStrv) row = g_strsplit (lines[1], ",", -1);

    g_assert_cmpuint (g_strv_length (row), ==, g_strv_length (header));
  }

  g_assert_true (tb_runs_export_json (runs, json, &error));
  g_assert_no_error (error);
  g_assert_true (json_parser_load_from_file (parser, json, &error));
  root_node = json_parser_get_root (parser);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (root_node));
  g_assert_cmpuint (json_array_get_length (json_node_get_array (root_node)), ==, 2);
}

/* The fixture run-cpu.json with one text replaced. */
static char *
fixture_with (const char *name,
              const char *from,
              const char *to)
{
  g_autofree char *path = fixture (name);
  g_autofree char *contents = NULL;
  GString *text;

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  text = g_string_new (contents);
  g_assert_cmpuint (g_string_replace (text, from, to, 1), ==, 1);
  return g_string_free (text, FALSE);
}

/* JSON nested `depth` levels deep: [[[...]]] */
static char *
nested (guint depth)
{
  GString *text = g_string_sized_new (depth * 2);

  for (guint i = 0; i < depth; i++)
    g_string_append_c (text, '[');
  for (guint i = 0; i < depth; i++)
    g_string_append_c (text, ']');
  return g_string_free (text, FALSE);
}

/* 100,000 levels (200 KB) overflowed json-glib's stack: refused before it
 * is parsed, naming the file and why; a result's own nesting, brackets in
 * its strings and anything up to the bound still read. */
static void
test_nesting (void)
{
  g_autofree char *deep = nested (100000);
  g_autofree char *at_bound = NULL;
  g_autofree char *in_string = NULL;
  g_autofree char *brackets = g_strnfill (100000, '[');
  g_autofree char *string_field = g_strdup_printf ("\"%s\\\"[{\"", brackets);
  g_autoptr(GError) error = NULL;
  g_autoptr(TbRun) run = NULL;

  g_assert_null (tb_run_load_data ("/elsewhere/deep.json", deep, strlen (deep), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "deep.json"));
  g_assert_nonnull (strstr (error->message, "nested"));
  g_clear_error (&error);

  /* inside an object, and after a string with a quote in it */
  {
    g_autofree char *inner = nested (5000);
    g_autofree char *wrapped = g_strdup_printf ("{\"schema\": 1, \"a\": \"x\\\"]\", \"b\": %s}", inner);

    g_assert_null (tb_run_load_data ("wrapped.json", wrapped, strlen (wrapped), &error));
    g_assert_nonnull (strstr (error->message, "nested"));
    g_clear_error (&error);
  }

  /* single-quoted strings and comments, where brackets cannot be told from
   * text, are not what results are made of */
  {
    g_autofree char *inner = nested (5000);
    g_autofree char *quoted = g_strdup_printf ("{\"schema\": 1, \"a\": '\"', \"b\": %s}", inner);
    g_autofree char *comment = g_strdup_printf ("{\"schema\": 1, /* \" */ \"b\": %s}", inner);

    g_assert_null (tb_run_load_data ("quoted.json", quoted, strlen (quoted), &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
    g_clear_error (&error);
    g_assert_null (tb_run_load_data ("comment.json", comment, strlen (comment), &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
    g_clear_error (&error);
  }

  /* nesting up to the bound is read (and found not to be a result) */
  at_bound = nested (TB_RUN_MAX_DEPTH);
  g_assert_null (tb_run_load_data ("bound.json", at_bound, strlen (at_bound), &error));
  g_assert_null (strstr (error->message, "nested"));
  g_clear_error (&error);

  /* brackets and escaped quotes inside a string are text */
  in_string = fixture_with ("run-cpu.json", "\"tiny-idx\"", string_field);
  run = tb_run_load_data ("in-string.json", in_string, strlen (in_string), &error);
  g_assert_no_error (error);
  g_assert_nonnull (run);
}

#ifdef G_OS_UNIX
/* What blocked forever (a FIFO nobody writes) or read until memory ran out
 * (/dev/zero behind a .json name) is refused at once; so is a folder. */
static void
test_special_files (void)
{
  const char *root = tb_test_setup_env ();
  g_autofree char *folder = g_build_filename (root, "special-runs", NULL);
  g_autofree char *fifo = g_build_filename (folder, "fifo.json", NULL);
  g_autofree char *zero = g_build_filename (folder, "zero.json", NULL);
  g_autofree char *dir = g_build_filename (folder, "dir.json", NULL);
  g_autofree char *good = g_build_filename (folder, "good.json", NULL);
  g_autofree char *deep_path = g_build_filename (folder, "deep.json", NULL);
  g_autofree char *deep = nested (100000);
  g_autofree char *cpu = fixture ("run-cpu.json");
  g_autofree char *contents = NULL;
  g_autoptr(GPtrArray) runs = NULL;
  g_autoptr(GPtrArray) skipped = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  gboolean copied = TRUE;
  gint64 t0 = g_get_monotonic_time ();

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0644), ==, 0);
  g_assert_cmpint (symlink ("/dev/zero", zero), ==, 0);
  g_assert_true (g_file_get_contents (cpu, &contents, NULL, NULL));
  g_assert_true (g_file_set_contents (good, contents, -1, NULL));
  g_assert_true (g_file_set_contents (deep_path, deep, -1, NULL));

  g_assert_false (tb_run_read_file (fifo, &bytes, &error));
  g_test_message ("%s", error->message);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "fifo.json"));
  g_assert_nonnull (strstr (error->message, "not a regular file"));
  g_clear_error (&error);

  g_assert_null (tb_run_load (zero, &error));
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "not a regular file"));
  g_clear_error (&error);

  g_assert_null (tb_run_import (fifo, root, &copied, &error));
  g_assert_nonnull (strstr (error->message, "fifo.json"));
  g_assert_false (copied);
  g_clear_error (&error);

  /* one good run in the folder; each bad file named with why */
  runs = tb_run_load_folder (folder, skipped, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (runs->len, ==, 1);
  g_assert_cmpuint (skipped->len, ==, 4);
  for (guint i = 0; i < skipped->len; i++)
    g_test_message ("skipped: %s", ((GError *) g_ptr_array_index (skipped, i))->message);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 10 * G_USEC_PER_SEC);
  g_unlink (fifo);
  g_unlink (zero);
}
#endif

/* A file larger than results ever are is refused with a message that says
 * so, without reading it (a 200 MB one took 3.4 GB); so is one with more
 * values than any result. */
static void
test_too_large (void)
{
  const char *root = tb_test_setup_env ();
  g_autofree char *path = g_build_filename (root, "huge.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileOutputStream) out = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *big = NULL;

  /* 200 MB, sparse: the reader must not need to read it to refuse it */
  out = g_file_replace (file, NULL, FALSE, G_FILE_CREATE_NONE, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_output_stream_write_all (G_OUTPUT_STREAM (out), "{\"schema\": 1,", 13, NULL, NULL, &error));
  g_assert_true (g_seekable_truncate (G_SEEKABLE (out), 200 * 1000 * 1000, NULL, &error));
  g_assert_true (g_output_stream_close (G_OUTPUT_STREAM (out), NULL, &error));
  g_assert_no_error (error);

  g_assert_false (tb_run_read_file (path, &bytes, &error));
  g_test_message ("%s", error->message);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "huge.json"));
  g_assert_nonnull (strstr (error->message, "MiB"));
  g_clear_error (&error);
  g_unlink (path);

  /* within the size, but 16 million numbers: json-glib took 1.6 GB and
   * 13 s for them; refused before it sees them */
  {
    gsize n = 16 * 1000 * 1000;
    GString *wide = g_string_sized_new (2 * n + 100);
    gint64 t0 = g_get_monotonic_time ();

    g_string_append (wide, "{\"schema\": 1, \"run_id\": \"x\", \"status\": \"completed\", \"steps\": {\"loss_curve\": [");
    for (gsize i = 0; i < n; i++)
      g_string_append (wide, i > 0 ? ",0" : "0");
    g_string_append (wide, "]}}");
    g_assert_cmpuint (wide->len, <=, TB_RUN_MAX_BYTES);
    g_assert_null (tb_run_load_data ("wide.json", wide->str, wide->len, &error));
    g_test_message ("%s", error->message);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
    g_assert_nonnull (strstr (error->message, "values"));
    g_assert_cmpint (g_get_monotonic_time () - t0, <, 2 * G_USEC_PER_SEC);
    g_clear_error (&error);
    g_string_free (wide, TRUE);
  }

  /* the same bound for text already in memory */
  big = g_malloc0 (TB_RUN_MAX_BYTES + 1);
  memset (big, ' ', TB_RUN_MAX_BYTES + 1);
  g_assert_null (tb_run_load_data ("big.json", big, TB_RUN_MAX_BYTES + 1, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
}

/* A 5,000-character run id and names: the id is kept whole (it is the
 * run's identity), names are cut for display, the import's file name fits
 * a file system and stays unique, and messages stay one line. */
static void
test_long_strings (void)
{
  const char *root = tb_test_setup_env ();
  g_autofree char *folder = g_build_filename (root, "long-runs", NULL);
  g_autofree char *long_id = g_strnfill (5000, 'x');
  g_autofree char *other_id = g_strconcat (long_id, "y", NULL);
  g_autofree char *long_name = g_strnfill (5000, 'N');
  g_autofree char *id_field = g_strdup_printf ("\"%s\"", long_id);
  g_autofree char *other_field = g_strdup_printf ("\"%s\"", other_id);
  g_autofree char *name_field = g_strdup_printf ("\"%s\"", long_name);
  g_autofree char *a = fixture_with ("run-cpu.json", "\"20261130T030000Z-mlp-small-cpu-0002\"", id_field);
  g_autofree char *b = fixture_with ("run-cpu.json", "\"20261130T030000Z-mlp-small-cpu-0002\"", other_field);
  g_autofree char *c = fixture_with ("run-cpu.json", "\"AMD Ryzen 9 7950X\",\n    \"threads\": 16", name_field);
  g_autofree char *a_path = g_build_filename (root, "long-a.json", NULL);
  g_autofree char *b_path = g_build_filename (root, "long-b.json", NULL);
  g_autofree char *long_file = g_strdup_printf ("%s/%s.json", root, long_name + 4800);
  g_autoptr(GError) error = NULL;
  g_autoptr(TbRun) run = NULL;
  g_autoptr(TbRun) ra = NULL;
  g_autoptr(TbRun) rb = NULL;
  g_autofree char *base_a = NULL;
  gboolean copied = FALSE;

  run = tb_run_load_data ("c.json", c, strlen (c), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (strlen (run->device_name), <=, TB_RUN_MAX_NAME);
  g_assert_true (g_str_has_suffix (run->device_name, "…"));
  g_assert_true (g_str_has_prefix (run->device_name, "NNNN"));

  g_assert_true (g_file_set_contents (a_path, a, -1, NULL));
  g_assert_true (g_file_set_contents (b_path, b, -1, NULL));
  ra = tb_run_import (a_path, folder, &copied, &error);
  g_assert_no_error (error);
  g_assert_true (copied);
  g_assert_cmpstr (ra->run_id, ==, long_id);
  base_a = g_path_get_basename (ra->path);
  g_assert_cmpuint (strlen (base_a), <=, 255);
  g_assert_true (g_file_test (ra->path, G_FILE_TEST_IS_REGULAR));
  /* an id that differs only after the cut is another file */
  rb = tb_run_import (b_path, folder, &copied, &error);
  g_assert_no_error (error);
  g_assert_true (copied);
  g_assert_cmpstr (ra->path, !=, rb->path);

  /* a message names a long file by its start and end, on one line */
  g_assert_true (g_file_set_contents (long_file, "{", -1, NULL));
  g_assert_null (tb_run_load (long_file, &error));
  g_test_message ("%s", error->message);
  g_assert_cmpuint (strlen (error->message), <, 600);
  g_assert_nonnull (strstr (error->message, "NNN.json"));
  g_unlink (long_file);
}

/* Parse RFC 4180 CSV: rows of cells. */
static GPtrArray *
parse_csv (const char *text)
{
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  GPtrArray *row = NULL;
  GString *cell = g_string_new (NULL);
  gboolean quoted = FALSE, in_cell = FALSE;

  for (const char *p = text; *p; p++)
    {
      if (row == NULL)
        row = g_ptr_array_new_with_free_func (g_free);
      if (quoted)
        {
          if (*p == '"' && p[1] == '"')
            g_string_append_c (cell, *p++);
          else if (*p == '"')
            quoted = FALSE;
          else
            g_string_append_c (cell, *p);
          continue;
        }
      if (*p == '"' && !in_cell)
        quoted = in_cell = TRUE;
      else if (*p == ',')
        {
          g_ptr_array_add (row, g_strdup (cell->str));
          g_string_truncate (cell, 0);
          in_cell = FALSE;
        }
      else if (*p == '\n')
        {
          g_ptr_array_add (row, g_strdup (cell->str));
          g_string_truncate (cell, 0);
          in_cell = FALSE;
          g_ptr_array_add (rows, row);
          row = NULL;
        }
      else
        {
          g_string_append_c (cell, *p);
          in_cell = TRUE;
        }
    }
  g_assert_null (row);   /* every row ends its line */
  g_string_free (cell, TRUE);
  return rows;
}

/* Text from a hostile file cannot add rows or columns to the CSV, and no
 * cell starts a spreadsheet formula. */
static void
test_csv_hostile (void)
{
  g_autofree char *status = fixture_with ("run-cpu.json", "\"completed\"", "\"completed\\n=1+1,evil\\r\\n@SUM(A1)\"");
  g_autofree char *json = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) runs = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_run_unref);
  g_autoptr(GPtrArray) rows = NULL;
  g_autofree char *csv = NULL;
  GString *edit = g_string_new (status);
  GPtrArray *header;

  g_assert_cmpuint (g_string_replace (edit, "\"kind\": \"cpu\"", "\"kind\": \"cpu,\\\"x\\\"\\ny\"", 1), ==, 1);
  g_assert_cmpuint (g_string_replace (edit, "\"tiny-idx\"", "\"=HYPERLINK(\\\"http://x\\\")\"", 1), ==, 1);
  g_assert_cmpuint (g_string_replace (edit, "\"Debian GNU/Linux\"", "\"+cmd|' /C calc'!A0\"", 1), ==, 1);
  g_assert_cmpuint (g_string_replace (edit, "\"adam\"", "\"-2+3\"", 1), ==, 1);
  g_assert_cmpuint (g_string_replace (edit, "\"AMD Ryzen 9 7950X\",\n    \"threads\": 16", "\"\\tx\", \"threads\": 16", 1), ==, 1);
  json = g_string_free (edit, FALSE);

  g_ptr_array_add (runs, tb_run_load_data ("hostile.json", json, strlen (json), &error));
  g_assert_no_error (error);
  g_ptr_array_add (runs, tb_run_load_data ("hostile2.json", json, strlen (json), &error));
  g_assert_no_error (error);
  csv = tb_runs_format_csv (runs);
  g_test_message ("%s", csv);
  rows = parse_csv (csv);
  g_assert_cmpuint (rows->len, ==, 3);
  header = g_ptr_array_index (rows, 0);
  for (guint r = 1; r < rows->len; r++)
    {
      GPtrArray *row = g_ptr_array_index (rows, r);

      g_assert_cmpuint (row->len, ==, header->len);
      g_assert_cmpstr (g_ptr_array_index (row, 5), ==, "cpu,\"x\"\ny");   /* device_kind, whole */
      for (guint c = 0; c < row->len; c++)
        {
          const char *cell = g_ptr_array_index (row, c);

          if (c == 10 || c >= 14)
            continue;   /* numbers */
          g_assert_null (strchr ("=+-@\t\r", cell[0]) != NULL && cell[0] != '\0' ? cell : NULL);
        }
      g_assert_cmpstr (g_ptr_array_index (row, 2), ==, "completed\n=1+1,evil\r\n@SUM(A1)");
      g_assert_cmpstr (g_ptr_array_index (row, 4), ==, "'=HYPERLINK(\"http://x\")");
    }
}

static void
test_compare_groups (void)
{
  g_autoptr(GPtrArray) runs = load_both ();
  g_autoptr(TbChartData) by_device = tb_runs_compare_bars (runs, TB_GROUP_DEVICE);
  g_autoptr(TbChartData) by_os = tb_runs_compare_bars (runs, TB_GROUP_OS);
  g_autoptr(TbChartData) acc = tb_runs_compare_accuracy (runs);
  g_autoptr(TbChartData) loss = tb_runs_compare_loss (runs);
  TbChartSeries *cpu, *gpu;
  const char *note;

  /* one category (same model and data), two groups: CPU and GPU */
  g_assert_cmpuint (by_device->categories->len, ==, 1);
  g_assert_cmpuint (by_device->series->len, ==, 2);
  cpu = g_ptr_array_index (by_device->series, 0);
  gpu = g_ptr_array_index (by_device->series, 1);
  g_assert_true (g_str_has_prefix (cpu->label, "CPU"));
  g_assert_true (g_str_has_prefix (gpu->label, "GPU"));
  g_assert_cmpfloat_with_epsilon (g_array_index (cpu->y, double, 0), 0.26, 1e-9);
  g_assert_cmpfloat_with_epsilon (g_array_index (gpu->y, double, 0), 0.010, 1e-9);
  note = g_ptr_array_index (gpu->notes, 0);
  g_assert_cmpstr (note, ==, "26× faster");
  /* the baseline has no note of its own */
  g_assert_null (g_ptr_array_index (cpu->notes, 0));

  /* by OS: Linux against Windows, but the one is a CPU run and the other a
   * GPU run: each in a group of its own kind, with nothing to compare */
  g_assert_cmpuint (by_os->series->len, ==, 2);
  g_assert_true (g_str_has_prefix (((TbChartSeries *) g_ptr_array_index (by_os->series, 0))->label, "Debian"));
  g_assert_true (g_str_has_prefix (((TbChartSeries *) g_ptr_array_index (by_os->series, 1))->label, "Windows"));
  g_assert_cmpuint (by_os->categories->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (by_os->categories, 0), ==, "mlp-small · tiny-idx · CPU");
  g_assert_cmpstr (g_ptr_array_index (by_os->categories, 1), ==, "mlp-small · tiny-idx · GPU");
  g_assert_cmpuint (tb_chart_data_count_points (by_os), ==, 2);
  for (guint i = 0; i < by_os->series->len; i++)
    {
      TbChartSeries *s = g_ptr_array_index (by_os->series, i);

      for (guint c = 0; c < s->notes->len; c++)
        g_assert_null (g_ptr_array_index (s->notes, c));
    }

  /* the baseline does not depend on the order of the files */
  {
    g_autoptr(GPtrArray) reversed = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_run_unref);
    g_autoptr(TbChartData) again = NULL;

    g_ptr_array_add (reversed, tb_run_ref (g_ptr_array_index (runs, 1)));
    g_ptr_array_add (reversed, tb_run_ref (g_ptr_array_index (runs, 0)));
    again = tb_runs_compare_bars (reversed, TB_GROUP_DEVICE);
    g_assert_true (g_str_has_prefix (((TbChartSeries *) g_ptr_array_index (again->series, 0))->label, "CPU"));
    g_assert_cmpstr (g_ptr_array_index (((TbChartSeries *) g_ptr_array_index (again->series, 1))->notes, 0), ==, "26× faster");
  }

  g_assert_cmpuint (tb_chart_data_count_points (acc), ==, 6);
  g_assert_cmpuint (tb_chart_data_count_points (loss), ==, 20);

  /* a run that failed before its first step draws no line, and takes no
   * place in the legends */
  {
    static const char failed[] = "{\"schema\": 1, \"run_id\": \"f\", \"status\": \"failed\", \"error\": \"boom\"}";
    g_autoptr(GError) error = NULL;
    g_autoptr(TbChartData) acc3 = NULL;
    g_autoptr(TbChartData) loss3 = NULL;

    g_ptr_array_add (runs, tb_run_load_data ("failed.json", failed, strlen (failed), &error));
    g_assert_no_error (error);
    acc3 = tb_runs_compare_accuracy (runs);
    loss3 = tb_runs_compare_loss (runs);
    g_assert_cmpuint (acc3->series->len, ==, 2);
    g_assert_cmpuint (loss3->series->len, ==, 2);
  }
}

/* run-cpu.json as if run on `device` with every epoch taking `seconds` */
static TbRun *
cpu_run_on (const char *device,
            double      seconds)
{
  g_autofree char *path = fixture ("run-cpu.json");
  g_autoptr(GError) error = NULL;
  TbRun *run = tb_run_load (path, &error);

  g_assert_no_error (error);
  g_free (run->device_name);
  run->device_name = g_strdup (device);
  for (guint e = 0; e < run->epochs->len; e++)
    g_array_index (run->epochs, TbEpoch, e).seconds = seconds;
  run->seconds_per_epoch = seconds;
  return run;
}

/* The note on each bar says how it compares with the group's first, in
 * words: faster, slower or as fast, with as many digits as tell them
 * apart. */
static void
test_compare_ratios (void)
{
  g_autoptr(GPtrArray) runs = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_run_unref);
  g_autoptr(TbChartData) bars = NULL;
  const char *expect[][2] = {
    { "CPU · A first", NULL },
    { "CPU · B slower", "2.5× slower" },
    { "CPU · C a bit faster", "1.04× faster" },
    { "CPU · D as fast", "as fast" },
    { "CPU · E much faster", "52× faster" },
    { "CPU · F faster", "1.3× faster" },
  };

  g_ptr_array_add (runs, cpu_run_on ("A first", 0.26));
  g_ptr_array_add (runs, cpu_run_on ("B slower", 0.65));
  g_ptr_array_add (runs, cpu_run_on ("C a bit faster", 0.25));
  g_ptr_array_add (runs, cpu_run_on ("D as fast", 0.2601));
  g_ptr_array_add (runs, cpu_run_on ("E much faster", 0.005));
  g_ptr_array_add (runs, cpu_run_on ("F faster", 0.2));
  bars = tb_runs_compare_bars (runs, TB_GROUP_DEVICE);
  g_assert_cmpuint (bars->series->len, ==, G_N_ELEMENTS (expect));
  for (guint i = 0; i < G_N_ELEMENTS (expect); i++)
    {
      TbChartSeries *s = g_ptr_array_index (bars->series, i);

      g_assert_cmpstr (s->label, ==, expect[i][0]);
      g_assert_cmpstr (g_ptr_array_index (s->notes, 0), ==, expect[i][1]);
    }
}

/* A run's conditions: a file without them ran under the defaults; one
 * under the article's is labelled so and compared in a group of its own,
 * never with a speed-up against a default run. */
static void
test_conditions (void)
{
  static const char article[] =
    "{\"schema\": 1, \"run_id\": \"a\", \"status\": \"completed\","
    " \"device\": {\"kind\": \"cuda\", \"name\": \"H200\"},"
    " \"dataset\": {\"name\": \"tiny-idx\"}, \"model\": {\"name\": \"mlp-small\"},"
    " \"conditions\": {\"name\": \"article\", \"data\": \"pageable\", \"graph\": false,"
    " \"loss_every_step\": true, \"fused\": false},"
    " \"epochs\": [{\"epoch\": 1, \"seconds\": 2.0, \"test_accuracy\": 0.5}]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(TbRun) plain = cpu_run_on ("A", 1.0);
  g_autoptr(TbRun) run = tb_run_load_data ("article.json", article, sizeof article - 1, &error);
  g_autoptr(GPtrArray) runs = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_run_unref);
  g_autoptr(TbChartData) bars = NULL;
  g_autofree char *text = NULL;

  g_assert_no_error (error);
  g_assert_false (tb_run_has_conditions (plain));
  g_assert_cmpstr (plain->conditions, ==, "default");
  g_assert_cmpstr (plain->data_on, ==, "device");
  g_assert_true (plain->fused);
  g_assert_cmpstr (tb_run_conditions_label (plain), ==, "");

  g_assert_true (tb_run_has_conditions (run));
  g_assert_cmpstr (run->data_on, ==, "pageable");
  g_assert_false (run->graph);
  g_assert_true (run->loss_every_step);
  g_assert_false (run->fused);
  g_assert_cmpstr (tb_run_conditions_label (run), ==, "article conditions");
  text = tb_run_conditions_text (run);
  g_assert_cmpstr (text, ==, "Article: data from pageable host memory, one launch per op, "
                             "loss read every step, unfused ops");

  g_ptr_array_add (runs, tb_run_ref (plain));
  g_ptr_array_add (runs, tb_run_ref (run));
  bars = tb_runs_compare_bars (runs, TB_GROUP_DEVICE);
  g_assert_cmpuint (bars->categories->len, ==, 2);
  g_assert_null (strstr (g_ptr_array_index (bars->categories, 0), "conditions"));
  g_assert_cmpstr (g_ptr_array_index (bars->categories, 1), ==,
                   "mlp-small · tiny-idx · article conditions");
  for (guint i = 0; i < bars->series->len; i++)
    {
      TbChartSeries *s = g_ptr_array_index (bars->series, i);

      for (guint c = 0; c < s->notes->len; c++)
        g_assert_null (g_ptr_array_index (s->notes, c));
    }
}

/* `run` as if it ran under another OS */
static TbRun *
on_os (TbRun      *run,
       const char *name,
       const char *version,
       const char *emulated_by)
{
  g_free (run->os_name);
  g_free (run->os_version);
  g_free (run->os_emulated_by);
  run->os_name = g_strdup (name);
  run->os_version = g_strdup (version);
  run->os_emulated_by = g_strdup (emulated_by);
  return run;
}

static TbRun *
with_seconds (TbRun  *run,
              double  seconds)
{
  for (guint e = 0; e < run->epochs->len; e++)
    g_array_index (run->epochs, TbEpoch, e).seconds = seconds;
  run->seconds_per_epoch = seconds;
  return run;
}

/* Grouped by OS, a preset's CPU runs are compared with its CPU runs under
 * the other OS, and its GPU runs with GPU runs, side by side with their
 * ratio: not a machine's CPU and GPU averaged into one bar per OS. */
static void
test_compare_os_like_with_like (void)
{
  g_autofree char *cpu = fixture ("run-cpu.json");
  g_autofree char *gpu = fixture ("run-gpu.json");
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) runs = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_run_unref);
  g_autoptr(TbChartData) by_os = NULL;
  TbChartSeries *linux_s, *windows_s, *wine_s;
  guint cpu_c, gpu_c;

  /* one machine under Linux: CPU 0.26 s, GPU 0.010 s per epoch */
  g_ptr_array_add (runs, with_seconds (tb_run_load (cpu, &error), 0.26));
  g_assert_no_error (error);
  g_ptr_array_add (runs, on_os (with_seconds (tb_run_load (gpu, &error), 0.010), "Debian GNU/Linux", "12 (bookworm)", NULL));
  g_assert_no_error (error);
  /* under Windows: the GPU natively, the CPU build under wine */
  g_ptr_array_add (runs, with_seconds (tb_run_load (gpu, &error), 0.012));
  g_assert_no_error (error);
  g_ptr_array_add (runs, on_os (with_seconds (tb_run_load (cpu, &error), 0.39), "Windows", "11 (26100)", "wine 9.0"));
  g_assert_no_error (error);

  by_os = tb_runs_compare_bars (runs, TB_GROUP_OS);
  g_assert_cmpstr (by_os->x_label, ==, "Model · data set · device");
  g_assert_cmpuint (by_os->categories->len, ==, 2);
  cpu_c = g_str_has_suffix (g_ptr_array_index (by_os->categories, 0), "CPU") ? 0 : 1;
  gpu_c = 1 - cpu_c;
  g_assert_cmpstr (g_ptr_array_index (by_os->categories, cpu_c), ==, "mlp-small · tiny-idx · CPU");
  g_assert_cmpstr (g_ptr_array_index (by_os->categories, gpu_c), ==, "mlp-small · tiny-idx · GPU");

  /* Linux first (the baseline), then Windows, then Windows under wine */
  g_assert_cmpuint (by_os->series->len, ==, 3);
  linux_s = g_ptr_array_index (by_os->series, 0);
  windows_s = g_ptr_array_index (by_os->series, 1);
  wine_s = g_ptr_array_index (by_os->series, 2);
  g_assert_cmpstr (linux_s->label, ==, "Debian GNU/Linux 12 (bookworm)");
  g_assert_cmpstr (windows_s->label, ==, "Windows 11 (26100)");
  g_assert_cmpstr (wine_s->label, ==, "Windows 11 (26100) (wine 9.0)");

  /* each bar is its own runs' time, never a CPU and a GPU averaged */
  g_assert_cmpfloat_with_epsilon (g_array_index (linux_s->y, double, cpu_c), 0.26, 1e-9);
  g_assert_cmpfloat_with_epsilon (g_array_index (linux_s->y, double, gpu_c), 0.010, 1e-9);
  g_assert_cmpfloat_with_epsilon (g_array_index (windows_s->y, double, gpu_c), 0.012, 1e-9);
  g_assert_true (isnan (g_array_index (windows_s->y, double, cpu_c)));
  g_assert_cmpfloat_with_epsilon (g_array_index (wine_s->y, double, cpu_c), 0.39, 1e-9);
  g_assert_true (wine_s->y->len <= gpu_c || isnan (g_array_index (wine_s->y, double, gpu_c)));

  /* with the ratio against Linux on the same kind of device */
  g_assert_null (g_ptr_array_index (linux_s->notes, cpu_c));
  g_assert_null (g_ptr_array_index (linux_s->notes, gpu_c));
  g_assert_cmpstr (g_ptr_array_index (windows_s->notes, gpu_c), ==, "1.2× slower");
  g_assert_cmpstr (g_ptr_array_index (wine_s->notes, cpu_c), ==, "1.5× slower");
}

/* A Windows build run under wine carries system.os.emulated_by: its label
 * says so, and grouping by OS keeps it apart from a real Windows run. */
static void
test_os_label_wine (void)
{
  g_autofree char *path = fixture ("run-gpu.json");
  g_autofree char *contents = NULL;
  g_autofree char *wine_json = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(TbRun) native = NULL;
  g_autoptr(TbRun) wine = NULL;
  g_autoptr(GPtrArray) runs = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_run_unref);
  g_autoptr(TbChartData) by_os = NULL;
  g_autofree char *native_label = NULL;
  g_autofree char *wine_label = NULL;
  GString *edit;

  g_assert_true (g_file_get_contents (path, &contents, NULL, &error));
  g_assert_no_error (error);
  edit = g_string_new (contents);
  g_assert_cmpuint (g_string_replace (edit, "\"name\": \"Windows\"",
                                      "\"name\": \"Windows\", \"emulated_by\": \"wine 8.0\"", 1), ==, 1);
  wine_json = g_string_free (edit, FALSE);

  native = tb_run_load_data (path, contents, strlen (contents), &error);
  g_assert_no_error (error);
  wine = tb_run_load_data ("wine.json", wine_json, strlen (wine_json), &error);
  g_assert_no_error (error);
  native_label = tb_run_os_label (native);
  wine_label = tb_run_os_label (wine);
  g_assert_cmpstr (wine->os_emulated_by, ==, "wine 8.0");
  g_assert_null (strstr (native_label, "wine"));
  g_assert_true (g_str_has_prefix (wine_label, native_label));
  g_assert_true (g_str_has_suffix (wine_label, " (wine 8.0)"));

  g_ptr_array_add (runs, tb_run_ref (native));
  g_ptr_array_add (runs, tb_run_ref (wine));
  by_os = tb_runs_compare_bars (runs, TB_GROUP_OS);
  g_assert_cmpuint (by_os->series->len, ==, 2);
}

/* One definition of seconds per epoch, the median of the epochs' times, in
 * the run, its CSV line and the comparison's bars: run-cpu.json's epochs
 * took 0.30, 0.25 and 0.26 s (median 0.26, mean 0.27). */
static void
test_median (void)
{
  g_autoptr(GPtrArray) runs = load_both ();
  TbRun *cpu = g_ptr_array_index (runs, 0);
  g_autoptr(GPtrArray) one = g_ptr_array_new ();
  g_autoptr(TbChartData) bars = NULL;
  g_autofree char *csv = NULL;
  g_auto(GStrv) lines = NULL;
  g_auto(GStrv) header = NULL;
  g_auto(GStrv) row = NULL;
  int column = -1;

  g_assert_cmpfloat_with_epsilon (tb_run_seconds_per_epoch (cpu), 0.26, 1e-12);

  csv = tb_runs_format_csv (runs);
  lines = g_strsplit (csv, "\n", -1);
  header = g_strsplit (lines[0], ",", -1);
  row = g_strsplit (lines[1], ",", -1);
  for (int i = 0; header[i] != NULL; i++)
    if (g_strcmp0 (header[i], "median_seconds_per_epoch") == 0)
      column = i;
  g_assert_cmpint (column, >=, 0);
  g_assert_cmpstr (row[column], ==, "0.26");

  g_ptr_array_add (one, cpu);
  bars = tb_runs_compare_bars (one, TB_GROUP_DEVICE);
  g_assert_nonnull (strstr (bars->title, "Median"));
  g_assert_cmpfloat_with_epsilon (g_array_index (((TbChartSeries *) g_ptr_array_index (bars->series, 0))->y, double, 0),
                                  0.26, 1e-12);
}

/* A time beyond what a result may claim (NN_RESULT_SECONDS_MAX) is read
 * as not recorded: an epoch of 1e300 s takes no part in the median. */
static void
test_seconds_beyond (void)
{
  g_autofree char *text = fixture_with ("run-cpu.json", "\"seconds\": 0.3,",
                                        "\"seconds\": 1e300,");
  g_autoptr(GError) error = NULL;
  g_autoptr(TbRun) run = tb_run_load_data ("beyond.json", text, strlen (text), &error);

  g_assert_no_error (error);
  g_assert_true (isnan (g_array_index (run->epochs, TbEpoch, 0).seconds));
  g_assert_cmpfloat_with_epsilon (tb_run_seconds_per_epoch (run), 0.255, 1e-12);
}

/* started_at is UTC; people read local time (TZ is Asia/Shanghai here,
 * UTC+8, no daylight saving). */
static void
test_started_label (void)
{
  g_autoptr(GPtrArray) runs = load_both ();
  TbRun *cpu = g_ptr_array_index (runs, 0);
  g_autofree char *label = tb_run_started_label (cpu);
  g_autofree char *text = fixture_with ("run-cpu.json", "\"2026-11-30T03:00:00Z\"", "\"yesterday\"");
  g_autoptr(GError) error = NULL;
  g_autoptr(TbRun) odd = tb_run_load_data ("odd.json", text, strlen (text), &error);

  g_assert_cmpstr (cpu->started_at, ==, "2026-11-30T03:00:00Z");
  g_assert_cmpstr (label, ==, "30 Nov 2026, 11:00");
  g_assert_no_error (error);
  g_assert_null (tb_run_started_label (odd));
}

/* A summary (what the history keeps of each run) has every figure a row,
 * a filter, a table and the bars show, and none of the parts that grow
 * with the run: a history of 50,000 runs held them all (3.8 GB). */
static void
test_summary (void)
{
  g_autofree char *path = fixture ("run-gpu.json");
  g_autoptr(GBytes) contents = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(TbRun) whole = tb_run_load (path, &error);
  g_autoptr(TbRun) summary = NULL;
  g_autoptr(GPtrArray) one = g_ptr_array_new ();
  g_autoptr(GPtrArray) other = g_ptr_array_new ();
  g_autofree char *csv_whole = NULL;
  g_autofree char *csv_summary = NULL;
  const char *root = tb_test_setup_env ();
  g_autofree char *json = g_build_filename (root, "summary.json", NULL);
  g_autofree char *exported = NULL;
  g_autofree char *original = NULL;

  g_assert_no_error (error);
  g_assert_true (tb_run_read_file (path, &contents, &error));
  summary = tb_run_load_summary (path, contents, &error);
  g_assert_no_error (error);

  /* none of what grows with the run */
  g_assert_false (tb_run_is_whole (summary));
  g_assert_null (summary->epochs);
  g_assert_null (summary->loss_curve);
  g_assert_null (summary->loss_steps);
  g_assert_null (summary->contents);
  g_assert_true (tb_run_is_whole (whole));

  /* and the figures of it */
  g_assert_cmpuint (summary->n_epochs, ==, 3);
  g_assert_cmpuint (summary->n_epochs, ==, whole->epochs->len);
  g_assert_cmpfloat (tb_run_seconds_per_epoch (summary), ==, tb_run_seconds_per_epoch (whole));
  g_assert_cmpfloat (tb_run_final_accuracy (summary), ==, tb_run_final_accuracy (whole));
  g_assert_cmpstr (summary->run_id, ==, whole->run_id);
  g_assert_cmpstr (tb_run_model_label (summary), ==, "mlp-small");
  g_assert_true (summary->breakdown.measured == whole->breakdown.measured);

  /* a table of summaries is the table of the whole runs */
  g_ptr_array_add (one, whole);
  g_ptr_array_add (other, summary);
  csv_whole = tb_runs_format_csv (one);
  csv_summary = tb_runs_format_csv (other);
  g_assert_cmpstr (csv_summary, ==, csv_whole);
  /* the curves are the whole runs' */
  {
    g_autoptr(TbChartData) accuracy = tb_runs_compare_accuracy (other);

    g_assert_cmpuint (tb_chart_data_count_points (accuracy), ==, 0);
  }
  /* JSON export reads the file again */
  g_assert_true (tb_runs_export_json (other, json, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (json, &exported, NULL, NULL));
  g_assert_true (g_file_get_contents (path, &original, NULL, NULL));
  g_assert_nonnull (strstr (exported, "\"run_id\" : \"20261130T040000Z-mlp-small-cuda-0001\""));
}

/* Is `name` one Windows keeps for a device (the part before its first dot,
 * in any case: CON, PRN, AUX, NUL, COM0-9, LPT0-9)? */
static gboolean
reserved_on_windows (const char *name)
{
  g_autofree char *stem = g_ascii_strup (name, strcspn (name, "."));

  return g_strv_contains ((const char *const[]) { "CON", "PRN", "AUX", "NUL", NULL }, stem)
         || (strlen (stem) == 4 && (g_str_has_prefix (stem, "COM") || g_str_has_prefix (stem, "LPT"))
             && g_ascii_isdigit (stem[3]));
}

/* Runs whose ids are names Windows keeps for devices were listed as
 * imported and stored in one file, or none ("NUL.json" is the null device
 * there): each is a file of its own, under a name no file system keeps;
 * and a file of another run that has an id's name is never taken for it. */
static void
test_import_reserved (void)
{
  const char *root = tb_test_setup_env ();
  g_autofree char *folder = g_build_filename (root, "reserved-runs", NULL);
  const char *const ids[] = { "NUL", "CON", "AUX", "PRN", "com1", "Lpt9.txt", "a:b", "a_b" };
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      g_autofree char *field = g_strdup_printf ("\"%s\"", ids[i]);
      g_autofree char *text = fixture_with ("run-cpu.json", "\"20261130T030000Z-mlp-small-cpu-0002\"", field);
      g_autofree char *source = g_strdup_printf ("%s/source-%u.json", root, i);
      g_autofree char *base = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(TbRun) run = NULL;
      g_autoptr(TbRun) back = NULL;
      gboolean copied = FALSE;

      g_assert_true (g_file_set_contents (source, text, -1, NULL));
      run = tb_run_import (source, folder, &copied, &error);
      g_assert_no_error (error);
      g_assert_true (copied);
      base = g_path_get_basename (run->path);
      g_test_message ("run id %s: %s", ids[i], base);
      g_assert_false (reserved_on_windows (base));
      for (guint k = 0; k < paths->len; k++)
        g_assert_cmpstr (run->path, !=, g_ptr_array_index (paths, k));
      g_ptr_array_add (paths, g_strdup (run->path));
      /* stored: the file there is this run */
      back = tb_run_load (run->path, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (back->run_id, ==, ids[i]);

      /* again: already there, not a second copy */
      g_clear_pointer (&run, tb_run_unref);
      run = tb_run_import (source, folder, &copied, &error);
      g_assert_no_error (error);
      g_assert_false (copied);
      g_assert_cmpstr (run->path, ==, g_ptr_array_index (paths, paths->len - 1));
    }
}

int
main (int    argc,
      char **argv)
{
  /* a zone without daylight saving, far from UTC, for test_started_label */
  g_setenv ("TZ", "Asia/Shanghai", TRUE);
  tb_test_setup_env ();
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/runs/load", test_load);
  g_test_add_func ("/runs/conditions", test_conditions);
  g_test_add_func ("/runs/bad-files", test_bad_files);
  g_test_add_func ("/runs/load-data", test_load_data);
  g_test_add_func ("/runs/folder-order-and-cancel", test_folder_order_and_cancel);
  g_test_add_func ("/runs/import", test_import);
  g_test_add_func ("/runs/import-reserved", test_import_reserved);
  g_test_add_func ("/runs/summary", test_summary);
  g_test_add_func ("/runs/export", test_export);
  g_test_add_func ("/runs/nesting", test_nesting);
#ifdef G_OS_UNIX
  g_test_add_func ("/runs/special-files", test_special_files);
#endif
  g_test_add_func ("/runs/too-large", test_too_large);
  g_test_add_func ("/runs/long-strings", test_long_strings);
  g_test_add_func ("/runs/csv-hostile", test_csv_hostile);
  g_test_add_func ("/runs/compare-ratios", test_compare_ratios);
  g_test_add_func ("/runs/compare-groups", test_compare_groups);
  g_test_add_func ("/runs/compare-os-like-with-like", test_compare_os_like_with_like);
  g_test_add_func ("/runs/os-label-wine", test_os_label_wine);
  g_test_add_func ("/runs/median", test_median);
  g_test_add_func ("/runs/seconds-beyond", test_seconds_beyond);
  g_test_add_func ("/runs/started-label", test_started_label);
  return g_test_run ();
}
