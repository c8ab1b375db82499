/* test-runs.c: result files read back with json-glib (from a file or from
 * memory), a runs folder listed in a stable order or cancelled, malformed
 * files refused with a message, import (checked and copied once), CSV/JSON
 * export, and the comparison grouped by device and by OS with speed-ups.
 */
#include <math.h>
#include <string.h>

#include <json-glib/json-glib.h>

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
  guint skipped = 0;

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

  runs = tb_run_load_folder (folder, &skipped, NULL, NULL);
  g_assert_cmpuint (runs->len, ==, 1);
  g_assert_cmpuint (skipped, ==, G_N_ELEMENTS (cases));
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
  /* the whole tree is kept for JSON export */
  g_assert_true (JSON_NODE_HOLDS_OBJECT (run->root));

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
  guint skipped = 7;

  /* three runs that started in the same second: listed by path, always */
  g_assert_true (g_file_get_contents (cpu, &contents, NULL, NULL));
  g_mkdir_with_parents (folder, 0755);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (folder, names[i], NULL);

      g_assert_true (g_file_set_contents (path, contents, -1, NULL));
    }
  runs = tb_run_load_folder (folder, &skipped, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (skipped, ==, 0);
  g_assert_cmpuint (runs->len, ==, 3);
  g_assert_true (g_str_has_suffix (((TbRun *) g_ptr_array_index (runs, 0))->path, "a.json"));
  g_assert_true (g_str_has_suffix (((TbRun *) g_ptr_array_index (runs, 2))->path, "c.json"));
  g_assert_cmpint (tb_run_compare (g_ptr_array_index (runs, 0), g_ptr_array_index (runs, 1)), <, 0);
  g_assert_cmpint (tb_run_compare (g_ptr_array_index (runs, 1), g_ptr_array_index (runs, 1)), ==, 0);
  g_clear_pointer (&runs, g_ptr_array_unref);

  /* a missing folder has no runs, and is no error */
  runs = tb_run_load_folder ("/nonexistent/runs", &skipped, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (runs->len, ==, 0);
  g_clear_pointer (&runs, g_ptr_array_unref);

  /* cancelled: no half list */
  g_cancellable_cancel (cancellable);
  runs = tb_run_load_folder (folder, &skipped, cancellable, &error);
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
  g_assert_cmpstr (note, ==, "×26.00");

  /* by OS: Linux against Windows */
  g_assert_cmpuint (by_os->series->len, ==, 2);
  g_assert_true (g_str_has_prefix (((TbChartSeries *) g_ptr_array_index (by_os->series, 0))->label, "Debian"));
  g_assert_true (g_str_has_prefix (((TbChartSeries *) g_ptr_array_index (by_os->series, 1))->label, "Windows"));

  /* the baseline does not depend on the order of the files */
  {
    g_autoptr(GPtrArray) reversed = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_run_unref);
    g_autoptr(TbChartData) again = NULL;

    g_ptr_array_add (reversed, tb_run_ref (g_ptr_array_index (runs, 1)));
    g_ptr_array_add (reversed, tb_run_ref (g_ptr_array_index (runs, 0)));
    again = tb_runs_compare_bars (reversed, TB_GROUP_DEVICE);
    g_assert_true (g_str_has_prefix (((TbChartSeries *) g_ptr_array_index (again->series, 0))->label, "CPU"));
    g_assert_cmpstr (g_ptr_array_index (((TbChartSeries *) g_ptr_array_index (again->series, 1))->notes, 0), ==, "×26.00");
  }

  g_assert_cmpuint (tb_chart_data_count_points (acc), ==, 6);
  g_assert_cmpuint (tb_chart_data_count_points (loss), ==, 20);
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

int
main (int    argc,
      char **argv)
{
  tb_test_setup_env ();
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/runs/load", test_load);
  g_test_add_func ("/runs/bad-files", test_bad_files);
  g_test_add_func ("/runs/load-data", test_load_data);
  g_test_add_func ("/runs/folder-order-and-cancel", test_folder_order_and_cancel);
  g_test_add_func ("/runs/import", test_import);
  g_test_add_func ("/runs/export", test_export);
  g_test_add_func ("/runs/compare-groups", test_compare_groups);
  g_test_add_func ("/runs/os-label-wine", test_os_label_wine);
  return g_test_run ();
}
