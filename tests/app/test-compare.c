/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-compare.c: the Runs page's comparison as a user sees it in an
 * 800x600 window, from result files of one machine under Linux and under
 * Windows (its CPU build run under wine): by device, the GPU 26 times
 * faster than the CPU comes on a log scale by itself and the Log Scale
 * toggle turns it off and on; by OS, each preset on each kind of device
 * stands beside the same under the other OS with its ratio; every chart
 * title is whole. Screenshots of the views go into the build folder.
 */
#include <math.h>
#include <string.h>

#include <adwaita.h>

#include "tb-application.h"
#include "tb-chart.h"
#include "tb-window-private.h"
#include "test-gui-util.h"

static TbApplication *app;
static TbWindow *window;
static char *runs_dir;
static char *linux_cpu, *linux_gpu, *windows_gpu, *wine_cpu;

#define RUNS_PAGE (tb_window_get_runs_page (window))

static GtkWidget *
page_child (const char *name)
{
  return GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (RUNS_PAGE), TB_TYPE_RUNS_PAGE, name));
}

static void
screenshot (const char *name)
{
  g_autofree char *path = g_build_filename (SCREENSHOT_DIR, name, NULL);
  g_autoptr(GError) error = NULL;

  tb_test_spin (300);
  if (!tb_test_screenshot (GTK_WIDGET (window), path, &error))
    g_test_message ("screenshot %s: %s", name, error->message);
  else
    g_test_message ("screenshot written: %s", path);
}

/* A fixture written into the runs folder as `name`, each of `edits` (from,
 * to, ..., NULL) replaced everywhere. */
static char *
write_run (const char *fixture,
           const char *name,
           ...)
{
  g_autofree char *source = g_test_build_filename (G_TEST_DIST, "data", fixture, NULL);
  g_autofree char *contents = NULL;
  char *path = g_build_filename (runs_dir, name, NULL);
  GString *text;
  const char *from;
  va_list ap;

  g_assert_true (g_file_get_contents (source, &contents, NULL, NULL));
  text = g_string_new (contents);
  va_start (ap, name);
  while ((from = va_arg (ap, const char *)) != NULL)
    g_assert_cmpuint (g_string_replace (text, from, va_arg (ap, const char *), 0), >, 0);
  va_end (ap);
  g_assert_true (g_file_set_contents (path, text->str, -1, NULL));
  g_string_free (text, TRUE);
  return path;
}

#define LINUX_OS "\"os\": { \"name\": \"Debian GNU/Linux\", \"version\": \"12 (bookworm)\", \"kernel\": \"6.1.0-26-amd64\" }"
#define WINDOWS_OS "\"os\": { \"name\": \"Windows\", \"version\": \"11 (26100)\", \"kernel\": \"10.0.26100\" }"
#define WINE_OS "\"os\": { \"name\": \"Windows\", \"version\": \"11 (26100)\", \"kernel\": \"10.0.26100\", \"emulated_by\": \"wine 9.0\" }"

/* One machine: its CPU and its GPU under Debian, and under Windows the GPU
 * natively and the CPU build under wine. */
static void
write_runs (void)
{
  g_assert_cmpint (g_mkdir_with_parents (runs_dir, 0755), ==, 0);
  /* CPU under Linux: 0.26 s per epoch */
  linux_cpu = write_run ("run-cpu.json", "linux-cpu.json",
                         "\"seconds\": 0.3,", "\"seconds\": 0.26,",
                         "\"seconds\": 0.25,", "\"seconds\": 0.26,", NULL);
  /* GPU under Linux: 0.010 s */
  linux_gpu = write_run ("run-gpu.json", "linux-gpu.json",
                         WINDOWS_OS, LINUX_OS,
                         "-cuda-0001", "-cuda-0002",
                         "\"seconds\": 0.012,", "\"seconds\": 0.010,", NULL);
  /* GPU under Windows: 0.012 s */
  windows_gpu = write_run ("run-gpu.json", "windows-gpu.json",
                           "-cuda-0001", "-cuda-0003",
                           "\"seconds\": 0.010,", "\"seconds\": 0.012,", NULL);
  /* CPU under wine: 0.39 s */
  wine_cpu = write_run ("run-cpu.json", "wine-cpu.json",
                        "\"os\": {\n      \"name\": \"Debian GNU/Linux\",\n      \"version\": \"12 (bookworm)\",\n      \"kernel\": \"6.1.0-26-amd64\"\n    }",
                        WINE_OS,
                        "-cpu-0002", "-cpu-0004",
                        "\"seconds\": 0.3,", "\"seconds\": 0.39,",
                        "\"seconds\": 0.25,", "\"seconds\": 0.39,",
                        "\"seconds\": 0.26,", "\"seconds\": 0.39,", NULL);
}

static gboolean
runs_loaded (gpointer data)
{
  return tb_runs_page_get_n_pending (RUNS_PAGE) == 0
         && g_list_model_get_n_items (G_LIST_MODEL (tb_window_get_history (window))) == 4;
}

static gboolean
window_mapped (gpointer data)
{
  return gtk_widget_get_mapped (GTK_WIDGET (window)) && gtk_widget_get_width (GTK_WIDGET (window)) > 0;
}

static TbChartData *
bars (void)
{
  return tb_chart_view_get_data (tb_window_get_chart (window, "compare"));
}

static TbChartSeries *
series_named (TbChartData *data,
              const char  *label)
{
  for (guint i = 0; i < data->series->len; i++)
    {
      TbChartSeries *s = g_ptr_array_index (data->series, i);

      if (g_strcmp0 (s->label, label) == 0)
        return s;
    }
  g_error ("no series “%s”", label);
  return NULL;
}

static int
category_named (TbChartData *data,
                const char  *label)
{
  for (guint i = 0; i < data->categories->len; i++)
    if (g_strcmp0 (g_ptr_array_index (data->categories, i), label) == 0)
      return (int) i;
  g_error ("no category “%s”", label);
  return -1;
}

static gboolean
log_toggle_active (void)
{
  return gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (page_child ("log_scale_toggle")));
}

/* as a key press does: the button is let go a moment later */
static void
press (GtkWidget *button)
{
  gtk_widget_activate (button);
  tb_test_spin (400);
}

static void
compare (const char *a,
         const char *b,
         const char *c,
         const char *d)
{
  const char *paths[] = { a, b, c, d, NULL };

  tb_runs_page_compare (RUNS_PAGE, paths);
  tb_test_spin (100);
}

static void
test_open (void)
{
  window = tb_window_new (ADW_APPLICATION (app));
  gtk_window_set_default_size (GTK_WINDOW (window), 800, 600);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (tb_test_wait_until (window_mapped, NULL, 10));
  g_assert_true (tb_test_wait_until (runs_loaded, NULL, 30));
  tb_window_show_page (window, "runs");
  tb_test_spin (300);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (window)), <=, 820);
}

/* By OS: the CPU under Linux beside the CPU under wine, the GPU under
 * Linux beside the GPU under Windows, each with its ratio to Linux; never
 * an OS's CPU and GPU in one bar. The bars are 39 times apart: log. */
static void
test_by_os (void)
{
  TbChartData *data;
  TbChartSeries *linux_s, *windows_s, *wine_s;
  int cpu, gpu;

  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (page_child ("group_os_toggle")), TRUE);

  /* one preset on one kind of device under two operating systems */
  compare (linux_cpu, wine_cpu, NULL, NULL);
  data = bars ();
  g_assert_cmpuint (data->categories->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (data->categories, 0), ==, "mlp-small · tiny-idx · CPU");
  g_assert_cmpuint (data->series->len, ==, 2);
  g_assert_cmpstr (((TbChartSeries *) g_ptr_array_index (data->series, 0))->label, ==, "Debian GNU/Linux 12 (bookworm)");
  wine_s = series_named (data, "Windows 11 (26100) (wine 9.0)");
  g_assert_cmpfloat_with_epsilon (g_array_index (wine_s->y, double, 0), 0.39, 1e-9);
  g_assert_cmpstr (g_ptr_array_index (wine_s->notes, 0), ==, "1.5× slower");
  /* 1.5 times apart: linear */
  g_assert_false (tb_chart_data_is_log (data));
  g_assert_false (log_toggle_active ());
  screenshot ("screenshot-compare-os.png");

  /* both kinds of device under both */
  compare (linux_cpu, linux_gpu, windows_gpu, wine_cpu);
  data = bars ();
  g_assert_cmpuint (data->categories->len, ==, 2);
  cpu = category_named (data, "mlp-small · tiny-idx · CPU");
  gpu = category_named (data, "mlp-small · tiny-idx · GPU");
  g_assert_cmpstr (data->x_label, ==, "Model · data set · device");
  linux_s = series_named (data, "Debian GNU/Linux 12 (bookworm)");
  windows_s = series_named (data, "Windows 11 (26100)");
  wine_s = series_named (data, "Windows 11 (26100) (wine 9.0)");
  g_assert_true (linux_s == g_ptr_array_index (data->series, 0));
  g_assert_cmpfloat_with_epsilon (g_array_index (linux_s->y, double, cpu), 0.26, 1e-9);
  g_assert_cmpfloat_with_epsilon (g_array_index (linux_s->y, double, gpu), 0.010, 1e-9);
  g_assert_cmpfloat_with_epsilon (g_array_index (windows_s->y, double, gpu), 0.012, 1e-9);
  g_assert_true (isnan (g_array_index (windows_s->y, double, cpu)));
  g_assert_cmpfloat_with_epsilon (g_array_index (wine_s->y, double, cpu), 0.39, 1e-9);
  g_assert_cmpstr (g_ptr_array_index (windows_s->notes, gpu), ==, "1.2× slower");
  g_assert_cmpstr (g_ptr_array_index (wine_s->notes, cpu), ==, "1.5× slower");
  g_assert_true (tb_chart_data_is_log (data));
  g_assert_true (log_toggle_active ());
  screenshot ("screenshot-compare-os-all.png");
}

/* By device: the GPU 26 times faster than the CPU, on a log scale until
 * the toggle is pressed; the choice holds for the comparisons after. */
static void
test_by_device_log (void)
{
  GtkWidget *toggle = page_child ("log_scale_toggle");
  TbChartData *data;

  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (page_child ("group_device_toggle")), TRUE);
  compare (linux_cpu, linux_gpu, NULL, NULL);
  data = bars ();
  g_assert_cmpuint (data->series->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (((TbChartSeries *) g_ptr_array_index (data->series, 1))->notes, 0), ==, "26× faster");
  g_assert_true (tb_chart_data_is_log (data));
  g_assert_true (log_toggle_active ());
  screenshot ("screenshot-compare-device-log.png");

  /* pressed: linear, now and for the next comparison */
  press (toggle);
  g_assert_false (log_toggle_active ());
  g_assert_false (tb_chart_data_is_log (bars ()));
  screenshot ("screenshot-compare-device-linear.png");
  compare (linux_cpu, linux_gpu, windows_gpu, wine_cpu);
  g_assert_false (tb_chart_data_is_log (bars ()));
  g_assert_false (log_toggle_active ());

  /* pressed again: log, also for bars only 1.5 times apart */
  press (toggle);
  g_assert_true (log_toggle_active ());
  g_assert_true (tb_chart_data_is_log (bars ()));
  compare (linux_cpu, wine_cpu, NULL, NULL);
  g_assert_true (tb_chart_data_is_log (bars ()));
  g_assert_true (log_toggle_active ());
}

static void
check_titles (const char * const *names)
{
  for (guint i = 0; names[i] != NULL; i++)
    {
      TbChartView *view = tb_window_get_chart (window, names[i]);
      int width = gtk_widget_get_width (GTK_WIDGET (view));

      g_test_message ("%s: %d pixels wide: “%s”", names[i], width, tb_chart_view_get_data (view)->title);
      g_assert_cmpint (width, >, 0);
      g_assert_true (tb_chart_title_is_whole (tb_chart_view_get_data (view), width));
    }
}

/* At 800x600 no chart title is cut short, on the Runs page (also the
 * longest, by operating system) and on the Train page. */
static void
test_titles_800x600 (void)
{
  const char *runs_charts[] = { "compare", "compare-accuracy", "compare-loss", "compare-breakdown",
                                NULL };
  const char *train_charts[] = { "loss", "accuracy", "epoch-time", "speed", NULL };

  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (window)), <=, 820);
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (page_child ("group_os_toggle")), TRUE);
  compare (linux_cpu, linux_gpu, windows_gpu, wine_cpu);
  check_titles (runs_charts);
  /* where a step's time went: a row per selected run; these files have no
   * breakdown, so no part and no bar */
  TbChartData *breakdown = tb_chart_view_get_data (tb_window_get_chart (window, "compare-breakdown"));
  g_assert_cmpint (breakdown->kind, ==, TB_CHART_STACKED);
  g_assert_cmpuint (breakdown->categories->len, ==, 4);
  g_assert_cmpuint (breakdown->series->len, ==, 0);

  tb_window_show_page (window, "train");
  tb_test_spin (300);
  check_titles (train_charts);
  tb_window_show_page (window, "runs");
}

int
main (int    argc,
      char **argv)
{
  const char *root;
  int status;

  if ((status = tb_test_gui_init (&argc, &argv, &root)) >= 0)
    return status;
  runs_dir = g_build_filename (root, "trainbench", "runs", NULL);
  write_runs ();

  app = tb_test_app_new (0);

  g_test_add_func ("/compare/open", test_open);
  g_test_add_func ("/compare/by-os", test_by_os);
  g_test_add_func ("/compare/by-device-log", test_by_device_log);
  g_test_add_func ("/compare/titles-800x600", test_titles_800x600);
  status = g_test_run ();

  if (window != NULL)
    gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  g_free (linux_cpu);
  g_free (linux_gpu);
  g_free (windows_gpu);
  g_free (wine_cpu);
  g_free (runs_dir);
  return status;
}
