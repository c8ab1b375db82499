/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-breakdown.c: a result file's "breakdown" read back (a CPU run, a
 * GPU run with its device time, a file without one, a part of a key this
 * build does not know), and the stacked-bar chart drawn from it: each part
 * in its palette colour where its seconds say, the GPU's busy time a line
 * on its bar, the legend's labels, a row without a breakdown that says so.
 */
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "tb-chart.h"
#include "tb-run.h"

static const char cpu_run[] =
  "{\"schema\": 1, \"run_id\": \"cpu-run\", \"status\": \"completed\","
  " \"device\": {\"kind\": \"cpu\", \"name\": \"CPU\"}, \"model\": {\"name\": \"mlp-small\"},"
  " \"breakdown\": {\"steps\": 100, \"step_seconds\": 0.010,"
  "   \"parts\": [{\"key\": \"gemm\", \"seconds\": 0.004}, {\"key\": \"loops\", \"seconds\": 0.003},"
  "             {\"key\": \"join_wait\", \"seconds\": 0.002}, {\"key\": \"host\", \"seconds\": 0.001},"
  "             {\"key\": \"from_the_future\", \"seconds\": 0.5}, {\"key\": \"gemm2\"}],"
  "   \"copy_bytes\": 0, \"evaluation_seconds\": 1.5}}";

static const char gpu_run[] =
  "{\"schema\": 1, \"run_id\": \"gpu-run\", \"status\": \"completed\","
  " \"device\": {\"kind\": \"cuda\", \"name\": \"NVIDIA H200\"}, \"model\": {\"name\": \"cnn\"},"
  " \"breakdown\": {\"steps\": 24, \"step_seconds\": 0.008,"
  "   \"parts\": [{\"key\": \"launch\", \"seconds\": 0.002}, {\"key\": \"copy\", \"seconds\": 0.001},"
  "             {\"key\": \"sync_wait\", \"seconds\": 0.004}, {\"key\": \"host\", \"seconds\": 0.001}],"
  "   \"device_busy_seconds\": 0.006, \"copy_bytes\": 128, \"evaluation_seconds\": 0.2}}";

static const char old_run[] =
  "{\"schema\": 1, \"run_id\": \"old-run\", \"status\": \"completed\","
  " \"device\": {\"kind\": \"cpu\", \"name\": \"CPU\"}, \"model\": {\"name\": \"mlp-wide\"}}";

static TbRun *
load (const char *name,
      const char *text)
{
  g_autoptr(GError) error = NULL;
  TbRun *run = tb_run_load_data (name, text, strlen (text), &error);

  g_assert_no_error (error);
  g_assert_nonnull (run);
  return run;
}

static void
test_read (void)
{
  g_autoptr(TbRun) cpu = load ("cpu.json", cpu_run);
  g_autoptr(TbRun) gpu = load ("gpu.json", gpu_run);
  g_autoptr(TbRun) old = load ("old.json", old_run);

  g_assert_true (cpu->breakdown.measured);
  g_assert_cmpint (cpu->breakdown.steps, ==, 100);
  g_assert_cmpfloat_with_epsilon (cpu->breakdown.step_seconds, 0.010, 1e-12);
  g_assert_cmpfloat_with_epsilon (cpu->breakdown.part_seconds[NN_BREAKDOWN_GEMM], 0.004, 1e-12);
  g_assert_cmpfloat_with_epsilon (cpu->breakdown.part_seconds[NN_BREAKDOWN_HOST], 0.001, 1e-12);
  g_assert_true (isnan (cpu->breakdown.part_seconds[NN_BREAKDOWN_LAUNCH]));
  g_assert_true (isnan (cpu->breakdown.device_busy_seconds));
  g_assert_cmpfloat_with_epsilon (cpu->breakdown.evaluation_seconds, 1.5, 1e-12);

  g_assert_true (gpu->breakdown.measured);
  g_assert_cmpfloat_with_epsilon (gpu->breakdown.part_seconds[NN_BREAKDOWN_SYNC_WAIT], 0.004, 1e-12);
  g_assert_cmpfloat_with_epsilon (gpu->breakdown.device_busy_seconds, 0.006, 1e-12);
  g_assert_cmpfloat_with_epsilon (gpu->breakdown.copy_bytes, 128, 1e-12);
  g_assert_true (isnan (gpu->breakdown.part_seconds[NN_BREAKDOWN_GEMM]));

  g_assert_false (old->breakdown.measured);
  for (int p = 0; p < NN_BREAKDOWN_PARTS; p++)
    g_assert_true (isnan (old->breakdown.part_seconds[p]));
}

static guint32
pixel (cairo_surface_t *s,
       int              x,
       int              y)
{
  const guint8 *data = cairo_image_surface_get_data (s);

  return *(const guint32 *) (data + y * cairo_image_surface_get_stride (s) + x * 4) & 0xffffff;
}

static double
map_x (const TbChartLayout *l,
       double               x)
{
  return l->left + (x - l->x_min) / (l->x_max - l->x_min) * (l->right - l->left);
}

static const TbChartSeries *
series_named (const TbChartData *data,
              const char        *label)
{
  for (guint i = 0; i < data->series->len; i++)
    {
      const TbChartSeries *s = g_ptr_array_index (data->series, i);

      if (strcmp (s->label, label) == 0)
        return s;
    }
  return NULL;
}

/* Grey or darker pixels (text, drawn half-transparent) in a rectangle. */
static int
ink (cairo_surface_t *s,
     int              x0,
     int              y0,
     int              x1,
     int              y1)
{
  int n = 0;

  for (int y = y0; y < y1; y++)
    for (int x = x0; x < x1; x++)
      {
        guint32 p = pixel (s, x, y);

        n += ((p >> 16) & 0xff) < 200 && ((p >> 8) & 0xff) < 200 && (p & 0xff) < 200
             && ABS ((int) ((p >> 16) & 0xff) - (int) (p & 0xff)) < 24;
      }
  return n;
}

static void
test_chart (void)
{
  g_autoptr(TbRun) cpu = load ("cpu.json", cpu_run);
  g_autoptr(TbRun) gpu = load ("gpu.json", gpu_run);
  g_autoptr(TbRun) old = load ("old.json", old_run);
  g_autoptr(GPtrArray) runs = g_ptr_array_new ();
  static const char *const labels[] = {
    "Matrix products", "Engine loops", "Waiting at joins", "Launching work",
    "Copies to the GPU", "Waiting for the GPU", "Host code",
  };
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 900, 420);
  cairo_t *cr = cairo_create (s);
  TbChartLayout l;

  g_ptr_array_add (runs, cpu);
  g_ptr_array_add (runs, gpu);
  g_ptr_array_add (runs, old);
  g_autoptr(TbChartData) data = tb_runs_breakdown_chart (runs);
  g_assert_cmpint (data->kind, ==, TB_CHART_STACKED);
  g_assert_cmpuint (data->categories->len, ==, 3);
  /* the seven parts in the legend's order, their colours the palette's
   * (host code's yellow, apart from the matrix products' blue), and the line */
  g_assert_cmpuint (data->series->len, ==, 8);
  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    {
      const TbChartSeries *p = g_ptr_array_index (data->series, i);

      g_assert_cmpstr (p->label, ==, labels[i]);
      g_assert_cmphex (p->color, ==, tb_chart_palette (i < 6 ? i : 7));
      g_assert_false (p->marker);
    }
  const TbChartSeries *busy = series_named (data, "GPU busy");
  g_assert_nonnull (busy);
  g_assert_true (busy->marker);

  tb_chart_render (cr, 900, 420, data);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  g_assert_true (tb_chart_compute_layout (data, 900, 420, &l));
  /* the longest row (the CPU's 10 ms) fits, rounded up to a tick */
  g_assert_cmpfloat (l.x_max, >=, 0.010);
  g_assert_cmpfloat (l.x_max, <=, 0.02);

  double row = (l.bottom - l.top) / 3;
  int y0 = (int) (l.top + row * 0.5), y1 = (int) (l.top + row * 1.5), y2 = (int) (l.top + row * 2.5);
  /* CPU: matrix products 0-4 ms, loops 4-7, joins 7-9, host 9-10 */
  g_assert_cmphex (pixel (s, (int) map_x (&l, 0.002), y0), ==, tb_chart_palette (0));
  g_assert_cmphex (pixel (s, (int) map_x (&l, 0.0055), y0), ==, tb_chart_palette (1));
  g_assert_cmphex (pixel (s, (int) map_x (&l, 0.008), y0), ==, tb_chart_palette (2));
  g_assert_cmphex (pixel (s, (int) map_x (&l, 0.0095), y0), ==, tb_chart_palette (7));
  g_assert_cmphex (pixel (s, (int) map_x (&l, 0.0110), y0), !=, tb_chart_palette (7));
  /* GPU: launch 0-2 ms, copies 2-3, waiting 3-7, host 7-8; busy 6 ms a line */
  g_assert_cmphex (pixel (s, (int) map_x (&l, 0.001), y1), ==, tb_chart_palette (3));
  g_assert_cmphex (pixel (s, (int) map_x (&l, 0.0025), y1), ==, tb_chart_palette (4));
  g_assert_cmphex (pixel (s, (int) map_x (&l, 0.004), y1), ==, tb_chart_palette (5));
  g_assert_cmphex (pixel (s, (int) map_x (&l, 0.0075), y1), ==, tb_chart_palette (7));
  g_assert_cmphex (pixel (s, (int) round (map_x (&l, 0.006)), y1), ==, busy->color);
  /* the file without a breakdown: no bar, and text that says so */
  for (int p = 0; p < 8; p++)
    g_assert_cmphex (pixel (s, (int) map_x (&l, 0.0005), y2), !=, tb_chart_palette (p));
  g_assert_cmpint (ink (s, (int) l.left, y2 - 8, (int) l.left + 150, y2 + 8), >, 20);

  /* the hover read-out names the row's parts */
  g_autofree char *hover = tb_chart_hover (data, 900, 420, map_x (&l, 0.001), y1);
  g_assert_nonnull (hover);
  g_assert_nonnull (strstr (hover, "Waiting for the GPU"));
  g_assert_nonnull (strstr (hover, "GPU busy"));
  if (g_getenv ("TB_TEST_SAVE_PNG") != NULL)
    cairo_surface_write_to_png (s, g_getenv ("TB_TEST_SAVE_PNG"));
  cairo_surface_destroy (s);
}

/* No run has a breakdown: every row says so, nothing to plot. */
static void
test_none (void)
{
  g_autoptr(TbRun) old = load ("old.json", old_run);
  g_autoptr(GPtrArray) runs = g_ptr_array_new ();
  TbChartLayout l;

  g_ptr_array_add (runs, old);
  g_autoptr(TbChartData) data = tb_runs_breakdown_chart (runs);
  g_assert_cmpuint (data->series->len, ==, 0);
  g_assert_false (tb_chart_compute_layout (data, 600, 300, &l));
  g_autofree char *path = g_build_filename (g_get_tmp_dir (), "tb-test-breakdown.svg", NULL);
  g_autoptr(GError) error = NULL;
  g_assert_true (tb_chart_export (data, path, 600, 300, &error));
  g_assert_no_error (error);
  g_remove (path);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/breakdown/read", test_read);
  g_test_add_func ("/breakdown/chart", test_chart);
  g_test_add_func ("/breakdown/none", test_none);
  return g_test_run ();
}
