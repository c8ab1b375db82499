/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-sweep-file.c: sweep files read back (a whole sweep, a stopped one with
 * failed and pending points, truncated and hostile files refused with the
 * file's name, never a crash), a runs folder's sweeps listed (links not
 * followed, one file under many names read once), the sweep's speed chart (a log x axis ticked
 * at the swept sizes, a line per device and batch) and its crossover map
 * (cells coloured by ratio, the crossing line between the right cells,
 * missing cells hatched and said in the hover), the points' breakdowns,
 * and their CSV.
 */
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>
#ifdef G_OS_UNIX
#include <unistd.h>
#endif

#include "tb-chart.h"
#include "tb-sweep.h"

static char *
fixture (void)
{
  return g_test_build_filename (G_TEST_DIST, "data", "sweep-mlp.json", NULL);
}

static TbSweep *
load_fixture (void)
{
  g_autofree char *path = fixture ();
  g_autoptr(GError) error = NULL;
  TbSweep *sweep = tb_sweep_load (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (sweep);
  return sweep;
}

static TbSweep *
load_text (const char  *text,
           GError     **error)
{
  g_autoptr(GBytes) bytes = g_bytes_new (text, strlen (text));

  return tb_sweep_load_bytes ("/some/where/sweep.json", bytes, error);
}

static void
test_read_good (void)
{
  g_autoptr(TbSweep) sweep = load_fixture ();
  const TbSweepPoint *failed = NULL;
  g_autofree char *desc = NULL;
  int x, y;

  g_assert_cmpstr (sweep->sweep_id, ==, "20261203-101500-mlp");
  g_assert_cmpstr (sweep->status, ==, "cancelled");
  g_assert_cmpstr (sweep->family, ==, "mlp");
  g_assert_cmpstr (sweep->template_spec, ==, "flatten; dense {W} relu; dense 10 softmax");
  g_assert_cmpuint (sweep->n_axes, ==, 2);
  g_assert_cmpstr (sweep->axes[0].name, ==, "W");
  g_assert_cmpuint (sweep->axes[0].n_values, ==, 4);
  g_assert_cmpint (sweep->axes[0].values[3], ==, 2048);
  g_assert_cmpuint (sweep->devices->len, ==, 2);
  g_assert_cmpuint (sweep->points->len, ==, 32);
  g_assert_cmpint (sweep->steps, ==, 200);
  g_assert_cmpint (sweep->warmup_steps, ==, 20);
  /* 30 measured, one failed, one still pending */
  g_assert_cmpuint (tb_sweep_count_done (sweep), ==, 31);
  for (guint i = 0; i < sweep->points->len; i++)
    {
      const TbSweepPoint *p = &g_array_index (sweep->points, TbSweepPoint, i);

      if (g_strcmp0 (p->status, "failed") == 0)
        failed = p;
    }
  g_assert_nonnull (failed);
  g_assert_true (strstr (failed->error, "out of memory") != NULL);
  g_assert_true (isnan (failed->samples_per_second));

  tb_sweep_default_axes (sweep, &x, &y);
  g_assert_cmpint (x, ==, 0);
  g_assert_cmpint (y, ==, 1);
  desc = tb_sweep_describe (sweep);
  g_assert_true (strstr (desc, "31/32") != NULL);
  /* whose machine: each device with its name; default conditions unsaid */
  g_assert_nonnull (strstr (desc, "CPU (AMD EPYC 9654), GPU 0 (NVIDIA H200)"));
  g_assert_null (strstr (desc, "conditions"));
  g_assert_cmpstr (sweep->conditions, ==, "default");
}

/* A sweep under the articles' conditions says so wherever it is listed. */
static void
test_read_conditions (void)
{
  g_autofree char *path = fixture ();
  g_autofree char *text = NULL;
  g_autofree char *desc = NULL;
  g_autoptr(GError) error = NULL;
  gsize length;

  g_assert_true (g_file_get_contents (path, &text, &length, NULL));
  char *name = strstr (text, "\"conditions\": {\n  \"name\": \"default\"");
  g_assert_nonnull (name);
  g_autofree char *edited = g_strdup_printf ("%.*s\"conditions\": {\n  \"name\": \"article\"%s",
                                             (int) (name - text), text,
                                             name + strlen ("\"conditions\": {\n  \"name\": \"default\""));
  g_autoptr(GBytes) bytes = g_bytes_new (edited, strlen (edited));
  g_autoptr(TbSweep) sweep = tb_sweep_load_bytes (path, bytes, &error);

  g_assert_no_error (error);
  g_assert_cmpstr (sweep->conditions, ==, "article");
  desc = tb_sweep_describe (sweep);
  g_assert_true (g_str_has_prefix (desc, "W ×4, batch ×4 · article conditions · CPU"));
}

/* Every cut of a good file is refused or read, never a crash; a cut inside
 * the text is an error that names the file. */
static void
test_read_truncated (void)
{
  g_autofree char *path = fixture ();
  g_autofree char *text = NULL;
  gsize length;

  g_assert_true (g_file_get_contents (path, &text, &length, NULL));
  for (gsize cut = 0; cut < length - 2; cut += 97)
    {
      g_autoptr(GBytes) bytes = g_bytes_new (text, cut);
      g_autoptr(GError) error = NULL;
      g_autoptr(TbSweep) sweep = tb_sweep_load_bytes ("/tmp/cut/sweep.json", bytes, &error);

      g_assert_null (sweep);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      g_assert_true (strstr (error->message, "sweep.json") != NULL);
    }
}

static void
expect_refused (const char *text,
                const char *why)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TbSweep) sweep = load_text (text, &error);

  g_assert_null (sweep);
  g_assert_nonnull (error);
  if (strstr (error->message, why) == NULL)
    g_error ("“%s” does not say “%s”", error->message, why);
  g_assert_true (strstr (error->message, "sweep.json") != NULL);
}

#define HEAD "{\"kind\": \"trainbench-sweep\", \"schema\": 1, \"sweep_id\": \"x\", \"status\": \"completed\", "

static void
test_read_hostile (void)
{
  GString *deep = g_string_new (HEAD "\"axes\": ");
  GString *many = g_string_new (HEAD "\"axes\": [{\"name\": \"W\", \"values\": [");
  GString *points = g_string_new (HEAD "\"axes\": [{\"name\": \"W\", \"values\": [1]}], \"points\": [");
  GString *long_name = g_string_new (HEAD "\"axes\": [{\"name\": \"W\", \"values\": [1]}], \"points\": [{\"device\": \"cpu\", \"device_name\": \"");
  g_autoptr(GError) error = NULL;
  g_autoptr(TbSweep) sweep = NULL;

  for (int i = 0; i < 100000; i++)
    g_string_append_c (deep, '[');
  expect_refused (deep->str, "nested");
  for (int i = 0; i < 33; i++)
    g_string_append_printf (many, "%s%d", i ? "," : "", i + 1);
  g_string_append (many, "]}]}");
  expect_refused (many->str, "at most 32");
  for (int i = 0; i < 1025; i++)
    g_string_append_printf (points, "%s{\"device\": \"cpu\", \"values\": {\"W\": 1}}", i ? "," : "");
  g_string_append (points, "]}");
  expect_refused (points->str, "at most 1024");

  expect_refused ("[1, 2]", "trainbench-sweep");
  expect_refused ("{\"kind\": \"trainbench-sweep\", \"schema\": 2}", "schema 1");
  expect_refused (HEAD "\"axes\": []}", "no axes");
  expect_refused (HEAD "\"axes\": [{\"name\": \"W\", \"values\": [1e30]}]}", "whole number");
  expect_refused (HEAD "\"axes\": [{\"name\": \"W\", \"values\": [-4]}]}", "whole number");
  expect_refused (HEAD "\"axes\": [{\"name\": \"W\", \"values\": [1]}, {\"name\": \"W\", \"values\": [2]}]}", "twice");
  expect_refused (HEAD "\"axes\": [{\"name\": \"a\", \"values\": [1]}, {\"name\": \"b\", \"values\": [1]}, "
                  "{\"name\": \"c\", \"values\": [1]}, {\"name\": \"d\", \"values\": [1]}]}", "at most 3");
  expect_refused (HEAD "/* a comment */ \"axes\": []}", "plain JSON");

  /* odd points are read as far as they make sense: wrong types are no
   * values, a long name is cut, a point that is no object is left out */
  for (int i = 0; i < 100000; i++)
    g_string_append_c (long_name, 'n');
  g_string_append (long_name, "\", \"samples_per_second\": \"fast\", \"values\": {\"W\": \"many\"}}, 7, "
                   "{\"device\": \"cuda:0\", \"samples_per_second\": 1e400, \"values\": {\"W\": 1}}]}");
  sweep = load_text (long_name->str, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sweep->points->len, ==, 2);
  g_assert_cmpuint (strlen (g_array_index (sweep->points, TbSweepPoint, 0).device_name), <=, 256);
  g_assert_false (g_array_index (sweep->points, TbSweepPoint, 0).has_value[0]);
  g_assert_true (isnan (g_array_index (sweep->points, TbSweepPoint, 0).samples_per_second));
  g_assert_cmpuint (sweep->devices->len, ==, 2);
  {
    /* and its charts draw */
    g_autoptr(TbChartData) a = tb_sweep_speed_chart (sweep, 0);
    g_autoptr(TbChartData) b = tb_sweep_crossover_chart (sweep, 0, -1);
    cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 600, 400);
    cairo_t *cr = cairo_create (s);

    tb_chart_render (cr, 600, 400, a);
    tb_chart_render (cr, 600, 400, b);
    cairo_destroy (cr);
    cairo_surface_destroy (s);
  }

  /* a folder, and a missing file, name the file */
  {
    g_autoptr(GError) e2 = NULL;
    g_autoptr(TbSweep) none = tb_sweep_load ("/nonexistent/sweeps/a/sweep.json", &e2);

    g_assert_null (none);
    g_assert_true (strstr (e2->message, "sweep.json") != NULL);
  }
  g_string_free (deep, TRUE);
  g_string_free (many, TRUE);
  g_string_free (points, TRUE);
  g_string_free (long_name, TRUE);
}

static void
test_is_sweep (void)
{
  g_autofree char *path = fixture ();
  g_autofree char *run = g_test_build_filename (G_TEST_DIST, "data", "run-cpu.json", NULL);
  g_autofree char *a = NULL, *b = NULL;
  gsize la, lb;

  g_assert_true (g_file_get_contents (path, &a, &la, NULL));
  g_assert_true (g_file_get_contents (run, &b, &lb, NULL));
  g_assert_true (tb_sweep_is_sweep_data (a, la));
  g_assert_false (tb_sweep_is_sweep_data (b, lb));
  g_assert_false (tb_sweep_is_sweep_data ("", 0));
}

static gboolean
says_sweep (const char *text)
{
  return tb_sweep_is_sweep_data (text, strlen (text));
}

static void
sorted_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  GPtrArray **sweeps = user_data, *others = NULL;

  g_assert_true (tb_sweep_sort_files_finish (result, sweeps, &others, NULL));
  g_ptr_array_unref (others);
}

/* The kind is the top object's "kind" member wherever it comes: a sweep
 * file whose "kind" follows 8 KiB of other members is one (opened on the
 * Explore page, not imported as a run), and a result that has the words
 * elsewhere (a nested "kind", a member named so, a string) is none. */
static void
test_is_sweep_anywhere (void)
{
  g_autofree char *path = fixture ();
  g_autofree char *text = NULL;
  g_autofree char *late = NULL;
  g_autofree char *padding = g_strnfill (8192, 'x');
  g_autofree char *root = g_dir_make_tmp ("tb-sweep-kind-XXXXXX", NULL);
  g_autofree char *late_path = g_build_filename (root, "late.json", NULL);
  g_autoptr(GFile) late_file = g_file_new_for_path (late_path);
  GPtrArray *sweeps = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  static const char head[] = "{\n \"kind\": \"trainbench-sweep\",";
  g_assert_true (g_str_has_prefix (text, head));
  /* the same sweep, its "kind" moved after long members, last */
  g_strchomp (text);
  g_assert_true (g_str_has_suffix (text, "}"));
  text[strlen (text) - 1] = '\0';
  late = g_strdup_printf ("{\"note\": \"%s\", \"list\": [{\"a\": \"}\\\"]\"}, 2.5e3, true, null],"
                          "%s, \"kind\": \"trainbench-sweep\"}\n",
                          padding, text + strlen (head));
  g_assert_true (says_sweep (late));
  {
    g_autoptr(GBytes) bytes = g_bytes_new (late, strlen (late));
    g_autoptr(GError) error = NULL;
    g_autoptr(TbSweep) sweep = tb_sweep_load_bytes (late_path, bytes, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (sweep->points->len, ==, 32);
  }

  g_assert_true (says_sweep ("{\"\\u006bind\": \"trainbench\\u002dsweep\"}"));
  g_assert_true (says_sweep (" {\"kind\": \"run\", \"kind\" : \"trainbench-sweep\" }"));
  g_assert_false (says_sweep ("{\"kind\": \"trainbench-sweep\", \"kind\": \"run\"}"));
  g_assert_false (says_sweep ("{\"kind\": \"trainbench-sweep\", \"kind\": 1}"));
  g_assert_false (says_sweep ("{\"model\": {\"kind\": \"trainbench-sweep\"}, \"run_id\": \"r\"}"));
  g_assert_false (says_sweep ("{\"trainbench-sweep\": \"kind\"}"));
  g_assert_false (says_sweep ("{\"error\": \"\\\"kind\\\": \\\"trainbench-sweep\\\"\"}"));
  g_assert_false (says_sweep ("{\"kind\\u0000\": \"trainbench-sweep\"}"));
  g_assert_false (says_sweep ("{\"kind\": \"trainbench-sweep-not\"}"));
  g_assert_false (says_sweep ("[{\"kind\": \"trainbench-sweep\"}]"));
  /* cut anywhere: never read past the end */
  for (gsize n = 0; n < strlen ("{\"kind\": \"trainbench-sweep\"}"); n++)
    g_assert_false (tb_sweep_is_sweep_data ("{\"kind\": \"trainbench-sweep\"}", n));

  /* opened in the window: sorted as a sweep */
  g_assert_true (g_file_set_contents (late_path, late, -1, NULL));
  tb_sweep_sort_files_async (&late_file, 1, NULL, sorted_cb, &sweeps);
  while (sweeps == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (sweeps->len, ==, 1);
  g_ptr_array_unref (sweeps);
  g_remove (late_path);
  g_rmdir (root);
}

/* The sweeps of a runs folder, each a summary; a bad file is skipped and
 * said. Links are not followed (a folder "up -> .." listed the runs
 * folder's sweeps again, "root -> /" read /sweep.json, a link as sweep.json
 * any file), and one file under many names (hard links: 200 links to one
 * 8 MB sweep took 1.7 GB) is read and listed once; each is said. */
static void
test_folder (void)
{
  g_autofree char *root = g_dir_make_tmp ("tb-sweep-XXXXXX", NULL);
  g_autofree char *sweeps_dir = g_build_filename (root, "sweeps", NULL);
  g_autofree char *good = g_build_filename (sweeps_dir, "a", NULL);
  g_autofree char *bad = g_build_filename (sweeps_dir, "b", NULL);
  g_autofree char *good_file = g_build_filename (good, "sweep.json", NULL);
  g_autofree char *bad_file = g_build_filename (bad, "sweep.json", NULL);
  g_autofree char *path = fixture ();
  g_autofree char *text = NULL;
  g_autoptr(GPtrArray) skipped = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  g_autoptr(GPtrArray) sweeps = NULL;
  guint expect_skipped = 1;
  TbSweepSummary *summary;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_cmpint (g_mkdir_with_parents (good, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (bad, 0755), ==, 0);
  g_assert_true (g_file_set_contents (good_file, text, -1, NULL));
  g_assert_true (g_file_set_contents (bad_file, "{\"kind\": \"trainbench-sweep\"", -1, NULL));
#ifdef G_OS_UNIX
  {
    g_autofree char *elsewhere = g_build_filename (root, "elsewhere", NULL);
    g_autofree char *elsewhere_file = g_build_filename (elsewhere, "sweep.json", NULL);
    g_autofree char *link_dir = g_build_filename (sweeps_dir, "root", NULL);
    g_autofree char *up = g_build_filename (sweeps_dir, "up", NULL);
    g_autofree char *linked = g_build_filename (sweeps_dir, "c", NULL);
    g_autofree char *linked_file = g_build_filename (linked, "sweep.json", NULL);

    /* a sweep outside the sweeps folder, reached by a link to its folder
     * and by a link as another folder's sweep.json */
    g_assert_cmpint (g_mkdir_with_parents (elsewhere, 0755), ==, 0);
    g_assert_true (g_file_set_contents (elsewhere_file, text, -1, NULL));
    g_assert_cmpint (symlink (elsewhere, link_dir), ==, 0);
    g_assert_cmpint (symlink ("..", up), ==, 0);
    g_assert_cmpint (g_mkdir_with_parents (linked, 0755), ==, 0);
    g_assert_cmpint (symlink (elsewhere_file, linked_file), ==, 0);
    expect_skipped += 3;
    /* one file under five names */
    for (guint i = 0; i < 5; i++)
      {
        g_autofree char *name = g_strdup_printf ("h%u", i);
        g_autofree char *dir = g_build_filename (sweeps_dir, name, NULL);
        g_autofree char *file = g_build_filename (dir, "sweep.json", NULL);

        g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
        g_assert_cmpint (link (good_file, file), ==, 0);
      }
    expect_skipped += 5;
  }
#endif
  sweeps = tb_sweep_list_folder (root, skipped, NULL);
  for (guint i = 0; i < skipped->len; i++)
    g_test_message ("skipped: %s", ((GError *) g_ptr_array_index (skipped, i))->message);
  g_assert_cmpuint (sweeps->len, ==, 1);
  g_assert_cmpuint (skipped->len, ==, expect_skipped);
  summary = g_ptr_array_index (sweeps, 0);
  /* what a list shows, without the points */
  {
    g_autoptr(TbSweep) sweep = load_fixture ();
    g_autofree char *description = tb_sweep_describe (sweep);

    g_assert_cmpstr (summary->status, ==, sweep->status);
    g_assert_cmpstr (summary->started_at, ==, sweep->started_at);
    g_assert_cmpstr (summary->description, ==, description);
  }
  g_assert_true (g_str_has_suffix (summary->path, "sweep.json"));
  {
    gboolean said_bad = FALSE, said_link = FALSE, said_once = FALSE;

    for (guint i = 0; i < skipped->len; i++)
      {
        const char *message = ((GError *) g_ptr_array_index (skipped, i))->message;

        said_bad |= strstr (message, "“b”") != NULL && strstr (message, "readable sweep") != NULL;
        said_link |= strstr (message, "“up”: it is a link") != NULL;
        said_once |= strstr (message, "under another name") != NULL;
      }
    g_assert_true (said_bad);
#ifdef G_OS_UNIX
    g_assert_true (said_link);
    g_assert_true (said_once);
#endif
  }
  /* the sweeps folder itself a link: nothing is read through it */
#ifdef G_OS_UNIX
  {
    g_autofree char *other = g_dir_make_tmp ("tb-sweep-XXXXXX", NULL);
    g_autofree char *other_sweeps = g_build_filename (other, "sweeps", NULL);

    g_clear_pointer (&sweeps, g_ptr_array_unref);
    g_ptr_array_set_size (skipped, 0);
    g_assert_cmpint (symlink (sweeps_dir, other_sweeps), ==, 0);
    sweeps = tb_sweep_list_folder (other, skipped, NULL);
    g_assert_cmpuint (sweeps->len, ==, 0);
    g_assert_cmpuint (skipped->len, ==, 1);
    g_assert_nonnull (strstr (((GError *) g_ptr_array_index (skipped, 0))->message, "link"));
    g_unlink (other_sweeps);
    g_rmdir (other);
  }
#endif
  if (!g_getenv ("KEEP_TEST_FILES"))
    {
      g_autofree char *argv[] = { g_strdup ("rm"), g_strdup ("-rf"), g_strdup (root), NULL };

      g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
    }
}

/* ------------------------------------------------------------ charts */

static guint32
pixel (cairo_surface_t *s,
       int              x,
       int              y)
{
  const guint8 *data = cairo_image_surface_get_data (s);

  return *(const guint32 *) (data + y * cairo_image_surface_get_stride (s) + x * 4) & 0xffffff;
}

static void
test_speed_chart (void)
{
  g_autoptr(TbSweep) sweep = load_fixture ();
  g_autoptr(TbChartData) data = tb_sweep_speed_chart (sweep, 0);
  double ticks[64];
  guint n;
  g_autofree char *hover = NULL;
  TbChartLayout l;

  g_assert_cmpint (data->kind, ==, TB_CHART_LINES);
  g_assert_true (data->x_log);
  /* a line per device and batch */
  g_assert_cmpuint (data->series->len, ==, 8);
  g_assert_cmpstr (((TbChartSeries *) g_ptr_array_index (data->series, 0))->label, ==, "CPU · batch 32");
  g_assert_cmpstr (((TbChartSeries *) g_ptr_array_index (data->series, 7))->label, ==, "GPU 0 · batch 2048");
  /* the speeds span 500 times: a log y axis too, with bounded ticks */
  g_assert_true (tb_chart_data_is_log (data));
  n = tb_chart_y_ticks (data, 900, 500, ticks, G_N_ELEMENTS (ticks));
  g_assert_cmpuint (n, >=, 2);
  g_assert_cmpuint (n, <=, 32);
  g_assert_true (tb_chart_compute_layout (data, 900, 500, &l));
  g_assert_true (l.x_log);
  g_assert_cmpfloat (l.x_min, <, 32);
  g_assert_cmpfloat (l.x_max, >, 2048);
  /* 32, 128, 512 and 2048 equally far apart on a log axis: the hover at
   * the middle of 128 and 512 (by ratio) is at one of them, not at 32 */
  {
    double px128 = l.left + (log (128) - log (l.x_min)) / (log (l.x_max) - log (l.x_min)) * (l.right - l.left);

    hover = tb_chart_hover (data, 900, 500, px128 + 3, (l.top + l.bottom) / 2);
    g_assert_nonnull (hover);
    g_assert_true (g_str_has_prefix (hover, "Width (W) 128"));
    g_assert_true (strstr (hover, "GPU 0 · batch 32:") != NULL);
  }
  /* the failed point is a gap */
  {
    const TbChartSeries *s = g_ptr_array_index (data->series, 7);

    g_assert_true (isnan (g_array_index (s->y, double, 3)));
  }
  /* narrow values (8 times apart or less) stay on a linear axis */
  sweep->axes[0].values[0] = 600;
  sweep->axes[0].values[1] = 700;
  sweep->axes[0].values[2] = 800;
  sweep->axes[0].values[3] = 900;
  {
    g_autoptr(TbChartData) narrow = tb_sweep_speed_chart (sweep, 0);

    g_assert_false (narrow->x_log);
  }
}

/* A grid of known ratios: row 0 0.125 0.5 2 8 (the line between columns
 * 1 and 2, at the border of the cells, as 0.5 and 2 are as far from 1 on
 * the log scale), row 1 0.5 2 8 32 (between columns 0 and 1), rows 2 and
 * 3 all above 1. */
static void
test_crossover_line (void)
{
  g_autoptr(TbSweep) sweep = load_fixture ();
  g_autoptr(TbChartData) data = tb_sweep_crossover_chart (sweep, 0, 1);
  const TbChartGrid *grid = data->grid;
  g_autofree TbChartSegment *segs = NULL;
  guint n = 0;
  gboolean row0 = FALSE, row1 = FALSE;

  g_assert_cmpint (data->kind, ==, TB_CHART_HEATMAP);
  g_assert_cmpuint (grid->n_x, ==, 4);
  g_assert_cmpuint (grid->n_y, ==, 4);
  g_assert_cmpfloat_with_epsilon (g_array_index (grid->cells, double, 0), 0.125, 1e-9);
  g_assert_cmpfloat_with_epsilon (g_array_index (grid->cells, double, 6), 8, 1e-9);
  /* the failed and the pending GPU points leave their cells empty */
  g_assert_true (isnan (g_array_index (grid->cells, double, 3 * 4 + 2)));
  g_assert_true (isnan (g_array_index (grid->cells, double, 3 * 4 + 3)));

  segs = tb_chart_grid_crossing (grid, &n);
  g_assert_cmpuint (n, >, 0);
  for (guint i = 0; i < n; i++)
    {
      const TbChartSegment *s = &segs[i];

      /* nothing crosses in rows 2 and 3 (above y = 2), or right of x = 2 */
      g_assert_cmpfloat (MAX (s->y0, s->y1), <=, 2.0 + 1e-9);
      g_assert_cmpfloat (MAX (s->x0, s->x1), <=, 2.0 + 1e-9);
      /* the high side (GPU faster) is up and to the right */
      g_assert_cmpfloat (s->hx + s->hy, >, 0);
      /* the line's piece in the lower half of row 0: at x = 2 */
      if (s->y0 <= 0.5 + 1e-9 && s->y1 <= 0.5 + 1e-9)
        {
          g_assert_cmpfloat_with_epsilon (s->x0, 2.0, 1e-9);
          g_assert_cmpfloat_with_epsilon (s->x1, 2.0, 1e-9);
          row0 = TRUE;
        }
      /* where it meets row 1's centre: x = 1 */
      if (fabs (s->y0 - 1.5) < 1e-9 && s->x0 < 1.5)
        {
          g_assert_cmpfloat_with_epsilon (s->x0, 1.0, 1e-9);
          row1 = TRUE;
        }
      if (fabs (s->y1 - 1.5) < 1e-9 && s->x1 < 1.5)
        {
          g_assert_cmpfloat_with_epsilon (s->x1, 1.0, 1e-9);
          row1 = TRUE;
        }
    }
  g_assert_true (row0);
  g_assert_true (row1);
}

/* A single row: the line is where the ratio crosses 1, interpolated on the
 * log scale (1/2 and 4: a third of the way). */
static void
test_crossover_one_row (void)
{
  g_autoptr(TbChartData) data = tb_chart_data_new (TB_CHART_HEATMAP, "t", "W", "");
  TbChartGrid *grid = tb_chart_data_set_grid (data, 3, 1, 1.0);
  g_autofree TbChartSegment *segs = NULL;
  guint n = 0;

  tb_chart_grid_set_cell (grid, 0, 0, 0.25, NULL);
  tb_chart_grid_set_cell (grid, 1, 0, 0.5, NULL);
  tb_chart_grid_set_cell (grid, 2, 0, 4, NULL);
  segs = tb_chart_grid_crossing (grid, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpfloat_with_epsilon (segs[0].x0, 1.5 + 1.0 / 3, 1e-9);
  g_assert_cmpfloat_with_epsilon (segs[0].y0, 0, 1e-9);
  g_assert_cmpfloat_with_epsilon (segs[0].y1, 1, 1e-9);
  g_assert_cmpfloat (segs[0].hx, >, 0);
}

/* The engine's crossover, as the map and its words show it: a ratio of
 * exactly 1 is no win for the GPU, and a point that did not complete is
 * not compared, whatever speed its file claims. The map's hover once put
 * the even point on the GPU's side and took the failed point's speed,
 * where the CLI's text did neither. */
static void
test_crossover_engine (void)
{
  static const char text[] =
    HEAD "\"devices\": [\"cpu\", \"cuda:0\"], "
    "\"axes\": [{\"name\": \"W\", \"values\": [32, 128, 512, 2048]}], \"points\": ["
    "{\"device\": \"cpu\", \"values\": {\"W\": 32}, \"status\": \"completed\", \"samples_per_second\": 1000},"
    "{\"device\": \"cuda:0\", \"values\": {\"W\": 32}, \"status\": \"completed\", \"samples_per_second\": 500},"
    "{\"device\": \"cpu\", \"values\": {\"W\": 128}, \"status\": \"completed\", \"samples_per_second\": 1000},"
    "{\"device\": \"cuda:0\", \"values\": {\"W\": 128}, \"status\": \"completed\", \"samples_per_second\": 1000},"
    "{\"device\": \"cpu\", \"values\": {\"W\": 512}, \"status\": \"completed\", \"samples_per_second\": 1000},"
    "{\"device\": \"cuda:0\", \"values\": {\"W\": 512}, \"status\": \"completed\", \"samples_per_second\": 2000},"
    "{\"device\": \"cpu\", \"values\": {\"W\": 2048}, \"status\": \"completed\", \"samples_per_second\": 1000},"
    "{\"device\": \"cuda:0\", \"values\": {\"W\": 2048}, \"status\": \"failed\", \"error\": \"out of memory\", "
    " \"samples_per_second\": 4000}]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(TbSweep) sweep = load_text (text, &error);
  g_autoptr(TbChartData) data = NULL;
  g_autofree char *words = NULL;
  g_autoptr(TbSweep) grid = load_fixture ();
  g_autofree char *grid_words = NULL;

  g_assert_no_error (error);
  data = tb_sweep_crossover_chart (sweep, 0, -1);
  g_assert_cmpfloat (g_array_index (data->grid->cells, double, 1), ==, 1.0);
  g_assert_true (g_str_has_prefix (g_ptr_array_index (data->grid->notes, 1), "The GPU as fast as the CPU\n"));
  g_assert_true (isnan (g_array_index (data->grid->cells, double, 3)));
  g_assert_nonnull (strstr (g_ptr_array_index (data->grid->notes, 3), "GPU 0: failed: out of memory"));
  words = tb_sweep_crossover_text (sweep, 0, -1);
  g_assert_cmpstr (words, ==, "GPU faster from W 512");

  /* a line per row of the map, batch 32 first */
  grid_words = tb_sweep_crossover_text (grid, 0, 1);
  g_assert_cmpstr (grid_words, ==,
                   "batch 32: GPU faster from W 512\n"
                   "batch 128: GPU faster from W 128\n"
                   "batch 512: GPU faster at every W\n"
                   "batch 2048: GPU faster at every W");
}

static void
test_crossover_colors (void)
{
  g_autoptr(TbSweep) sweep = load_fixture ();
  g_autoptr(TbChartData) data = tb_sweep_crossover_chart (sweep, 0, 1);
  const TbChartGrid *grid = data->grid;
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 900, 600);
  cairo_t *cr = cairo_create (s);
  double span = tb_chart_grid_span (grid);
  double x, y, w, h;
  guint32 cpu, gpu_weak, gpu_strong, missing, neutral;
  g_autofree char *hover = NULL;

  tb_chart_render (cr, 900, 600, data);
  cairo_surface_flush (s);

  /* the neutral colour at 1; orange-ish below, blue-ish above; farther
   * from 1 is stronger */
  neutral = tb_chart_grid_color (grid, 1.0, span, FALSE);
  g_assert_cmphex (neutral, ==, 0xf6f5f4);
  cpu = tb_chart_grid_color (grid, 0.125, span, FALSE);
  gpu_weak = tb_chart_grid_color (grid, 2, span, FALSE);
  gpu_strong = tb_chart_grid_color (grid, 32, span, FALSE);
  g_assert_cmpuint (cpu >> 16, >, cpu & 0xff);
  g_assert_cmpuint (gpu_weak & 0xff, >, gpu_weak >> 16);
  g_assert_cmpuint (gpu_strong >> 16, <, gpu_weak >> 16);

  /* cells drawn in their colours (sampled off their labels, by a corner) */
  g_assert_true (tb_chart_grid_cell_rect (data, 900, 600, 0, 0, &x, &y, &w, &h));
  g_assert_cmphex (pixel (s, (int) (x + 4), (int) (y + 4)), ==, cpu);
  g_assert_true (tb_chart_grid_cell_rect (data, 900, 600, 3, 2, &x, &y, &w, &h));
  g_assert_cmphex (pixel (s, (int) (x + 4), (int) (y + 4)), ==, tb_chart_grid_color (grid, 128, span, FALSE));
  /* a missing cell is grey (hatched) */
  missing = tb_chart_grid_color (grid, NAN, span, FALSE);
  g_assert_true (tb_chart_grid_cell_rect (data, 900, 600, 3, 3, &x, &y, &w, &h));
  {
    gboolean grey = FALSE, hatch = FALSE;

    for (int i = 2; i < 20; i++)
      {
        guint32 p = pixel (s, (int) (x + i), (int) (y + 3));

        grey |= p == missing;
        hatch |= p != missing;
      }
    g_assert_true (grey);
    g_assert_true (hatch);
  }

  /* the hover of a missing cell says why; of a measured one, the ratio */
  hover = tb_chart_hover (data, 900, 600, x + w / 2, y + h / 2);
  g_assert_nonnull (hover);
  g_assert_true (strstr (hover, "W") != NULL);
  g_assert_true (strstr (hover, "2048") != NULL);
  g_assert_true (strstr (hover, "out of memory") != NULL);
  g_clear_pointer (&hover, g_free);
  g_assert_true (tb_chart_grid_cell_rect (data, 900, 600, 2, 3, &x, &y, &w, &h));
  hover = tb_chart_hover (data, 900, 600, x + w / 2, y + h / 2);
  g_assert_true (strstr (hover, "not measured yet") != NULL);
  g_clear_pointer (&hover, g_free);
  g_assert_true (tb_chart_grid_cell_rect (data, 900, 600, 0, 0, &x, &y, &w, &h));
  hover = tb_chart_hover (data, 900, 600, x + w / 2, y + h / 2);
  g_assert_true (strstr (hover, "CPU 8.00× as fast as the GPU") != NULL);
  g_assert_null (tb_chart_hover (data, 900, 600, 2, 2));

  /* a copy keeps the grid */
  {
    g_autoptr(TbChartData) copy = tb_chart_data_copy (data);

    g_assert_nonnull (copy->grid);
    g_assert_cmpuint (copy->grid->n_x, ==, 4);
    g_assert_cmpstr (copy->grid->high_label, ==, "GPU faster");
  }
  cairo_destroy (cr);
  cairo_surface_destroy (s);
}

static void
test_csv (void)
{
  g_autoptr(TbSweep) sweep = load_fixture ();
  g_autofree char *points = tb_sweep_format_csv (sweep, "sweep", 0, 1);
  g_autofree char *cells = tb_sweep_format_csv (sweep, "crossover", 0, 1);
  g_auto(GStrv) lines = g_strsplit (points, "\n", -1);
  g_auto(GStrv) cell_lines = g_strsplit (cells, "\n", -1);

  /* a header, 32 points and the last newline */
  g_assert_cmpuint (g_strv_length (lines), ==, 34);
  g_assert_true (g_str_has_prefix (lines[0], "device,W,batch,status,samples_per_second"));
  g_assert_true (g_str_has_prefix (lines[1], "cpu,32,32,completed,625000,"));
  g_assert_cmpuint (g_strv_length (cell_lines), ==, 18);
  g_assert_cmpstr (cell_lines[0], ==, "W,batch,cpu_samples_per_second,gpu_samples_per_second,gpu_over_cpu");
  g_assert_cmpstr (cell_lines[1], ==, "32,32,625000,78125,0.125");
  /* the failed cell: no GPU speed, no ratio */
  g_assert_cmpstr (cell_lines[16], ==, "2048,2048,9765.62,,");
}

/* The rows of a CSV text: line breaks outside quotes, each row's cells
 * unquoted (a quote doubled inside a quoted cell is one). */
static GPtrArray *
csv_rows (const char *csv)
{
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  GPtrArray *row = g_ptr_array_new_with_free_func (g_free);
  GString *cell = g_string_new (NULL);
  gboolean quoted = FALSE;

  for (const char *p = csv; *p != '\0'; p++)
    {
      if (quoted && *p == '"' && p[1] == '"')
        g_string_append_c (cell, *p++);
      else if (*p == '"')
        quoted = !quoted;
      else if (!quoted && (*p == ',' || *p == '\n'))
        {
          g_ptr_array_add (row, g_strdup (cell->str));
          g_string_truncate (cell, 0);
          if (*p == '\n')
            {
              g_ptr_array_add (rows, row);
              row = g_ptr_array_new_with_free_func (g_free);
            }
        }
      else
        g_string_append_c (cell, *p);
    }
  g_assert_false (quoted);
  g_assert_cmpuint (row->len, ==, 0);
  g_assert_cmpuint (cell->len, ==, 0);
  g_ptr_array_unref (row);
  g_string_free (cell, TRUE);
  return rows;
}

/* Axis names from a foreign file are cells like any text: a formula, a
 * quote and a line break in them neither run in a spreadsheet nor add
 * rows or columns, in the crossover table's header as in the points'. */
static void
test_csv_hostile_axes (void)
{
  static const char text[] =
    HEAD "\"devices\": [\"cpu\", \"cuda:0\"], "
    "\"axes\": [{\"name\": \"=1+1\", \"values\": [32]}, {\"name\": \"q\\\"\\nz,@x\", \"values\": [8]}], "
    "\"points\": ["
    "{\"device\": \"cpu\", \"values\": {\"=1+1\": 32, \"q\\\"\\nz,@x\": 8}, \"status\": \"completed\", "
    " \"samples_per_second\": 100},"
    "{\"device\": \"cuda:0\", \"values\": {\"=1+1\": 32, \"q\\\"\\nz,@x\": 8}, \"status\": \"completed\", "
    " \"samples_per_second\": 200}]}";
  const char *kinds[] = { "crossover", "sweep" };
  g_autoptr(GError) error = NULL;
  g_autoptr(TbSweep) sweep = load_text (text, &error);

  g_assert_no_error (error);
  g_assert_cmpstr (sweep->axes[1].name, ==, "q\"\nz,@x");
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      g_autofree char *csv = tb_sweep_format_csv (sweep, kinds[k], 0, 1);
      g_autoptr(GPtrArray) rows = csv_rows (csv);
      GPtrArray *header = g_ptr_array_index (rows, 0);
      guint first = k == 0 ? 0 : 1; /* the points' table starts with the device */

      g_test_message ("%s: %s", kinds[k], csv);
      g_assert_cmpuint (rows->len, ==, k == 0 ? 2 : 3);
      for (guint r = 1; r < rows->len; r++)
        g_assert_cmpuint (((GPtrArray *) g_ptr_array_index (rows, r))->len, ==, header->len);
      g_assert_cmpstr (g_ptr_array_index (header, first), ==, "'=1+1");
      g_assert_cmpstr (g_ptr_array_index (header, first + 1), ==, "q\"\nz,@x");
      g_assert_true (g_str_has_prefix (csv, k == 0 ? "\"'=1+1\",\"q\"\"\nz,@x\"," : "device,\"'=1+1\","));
    }
}

/* A point's breakdown read back, drawn as a row of shares per point (the
 * GPU's busy time a marker), a point without one left out, and its
 * columns in the CSV. */
static void
test_breakdown (void)
{
  static const char text[] =
    HEAD "\"devices\": [\"cpu\", \"cuda:0\"], \"axes\": [{\"name\": \"W\", \"values\": [32, 64]}], "
    "\"points\": ["
    "{\"device\": \"cpu\", \"values\": {\"W\": 32}, \"status\": \"completed\", \"samples_per_second\": 100, "
    " \"breakdown\": {\"steps\": 200, \"step_seconds\": 0.004, \"parts\": ["
    "  {\"key\": \"gemm\", \"seconds\": 0.003}, {\"key\": \"loops\", \"seconds\": 0.0005},"
    "  {\"key\": \"join_wait\", \"seconds\": 0.0002}, {\"key\": \"host\", \"seconds\": 0.0003}]}},"
    "{\"device\": \"cuda:0\", \"values\": {\"W\": 32}, \"status\": \"completed\", \"samples_per_second\": 80, "
    " \"breakdown\": {\"steps\": 200, \"step_seconds\": 0.001, \"parts\": ["
    "  {\"key\": \"launch\", \"seconds\": 0.0006}, {\"key\": \"copy\", \"seconds\": 0},"
    "  {\"key\": \"sync_wait\", \"seconds\": 0.0003}, {\"key\": \"host\", \"seconds\": 0.0001},"
    "  {\"key\": \"a_part_of_tomorrow\", \"seconds\": 1}],"
    "  \"device_busy_seconds\": 0.00025}},"
    "{\"device\": \"cpu\", \"values\": {\"W\": 64}, \"status\": \"completed\", \"samples_per_second\": 50}]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(TbSweep) sweep = load_text (text, &error);
  g_autoptr(TbChartData) chart = NULL;
  g_autofree char *csv = NULL;
  g_auto(GStrv) lines = NULL;
  const TbSweepPoint *cpu, *gpu;
  double total = 0;
  TbChartSeries *busy = NULL, *gemm = NULL;

  g_assert_no_error (error);
  cpu = &g_array_index (sweep->points, TbSweepPoint, 0);
  gpu = &g_array_index (sweep->points, TbSweepPoint, 1);
  g_assert_true (cpu->breakdown.measured);
  g_assert_cmpfloat_with_epsilon (cpu->breakdown.part_seconds[NN_BREAKDOWN_GEMM], 0.003, 1e-12);
  g_assert_true (isnan (cpu->breakdown.part_seconds[NN_BREAKDOWN_LAUNCH]));
  g_assert_true (isnan (cpu->breakdown.device_busy_seconds));
  g_assert_true (gpu->breakdown.measured);
  g_assert_cmpfloat_with_epsilon (gpu->breakdown.device_busy_seconds, 0.00025, 1e-12);
  g_assert_false (g_array_index (sweep->points, TbSweepPoint, 2).breakdown.measured);

  chart = tb_sweep_breakdown_chart (sweep, 0, -1);
  g_assert_cmpint (chart->kind, ==, TB_CHART_STACKED);
  g_assert_cmpuint (chart->categories->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (chart->categories, 0), ==, "CPU · W 32");
  g_assert_cmpstr (g_ptr_array_index (chart->categories, 1), ==, "GPU 0 · W 32");
  for (guint i = 0; i < chart->series->len; i++)
    {
      TbChartSeries *s = g_ptr_array_index (chart->series, i);
      double v = s->y->len > 0 ? g_array_index (s->y, double, 0) : NAN;

      if (s->marker)
        busy = s;
      else if (isfinite (v))
        total += v;
      if (g_strcmp0 (s->label, "Matrix products") == 0)
        gemm = s;
    }
  /* the CPU's row: shares of its step adding up to 100 % */
  g_assert_cmpfloat_with_epsilon (total, 100, 1e-9);
  g_assert_nonnull (gemm);
  g_assert_cmpfloat_with_epsilon (g_array_index (gemm->y, double, 0), 75, 1e-9);
  g_assert_nonnull (busy);
  g_assert_cmpfloat_with_epsilon (g_array_index (busy->y, double, 1), 25, 1e-9);

  csv = tb_sweep_format_csv (sweep, "sweep", 0, -1);
  lines = g_strsplit (csv, "\n", -1);
  g_assert_true (strstr (lines[0], ",breakdown_step_seconds,gemm_seconds,") != NULL);
  g_assert_true (g_str_has_suffix (lines[0], ",device_busy_seconds"));
  g_assert_true (strstr (lines[1], ",0.004,0.003,") != NULL);
  g_assert_true (g_str_has_suffix (lines[2], ",0.00025"));
  g_assert_true (g_str_has_suffix (lines[3], ",,"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sweep/read-good", test_read_good);
  g_test_add_func ("/sweep/read-conditions", test_read_conditions);
  g_test_add_func ("/sweep/read-truncated", test_read_truncated);
  g_test_add_func ("/sweep/read-hostile", test_read_hostile);
  g_test_add_func ("/sweep/is-sweep", test_is_sweep);
  g_test_add_func ("/sweep/is-sweep-anywhere", test_is_sweep_anywhere);
  g_test_add_func ("/sweep/folder", test_folder);
  g_test_add_func ("/sweep/speed-chart", test_speed_chart);
  g_test_add_func ("/sweep/crossover-line", test_crossover_line);
  g_test_add_func ("/sweep/crossover-one-row", test_crossover_one_row);
  g_test_add_func ("/sweep/crossover-colors", test_crossover_colors);
  g_test_add_func ("/sweep/crossover-engine", test_crossover_engine);
  g_test_add_func ("/sweep/csv", test_csv);
  g_test_add_func ("/sweep/csv-hostile-axes", test_csv_hostile_axes);
  g_test_add_func ("/sweep/breakdown", test_breakdown);
  return g_test_run ();
}
