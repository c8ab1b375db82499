/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-chart.c: the chart renderer drawn headless to PNG and SVG: the right
 * size, series pixels where the data says, axes labelled, bars with their
 * speed-up notes (wrapped on narrow bars, inside tall ones), a log scale
 * for bars far apart with decade ticks over any span, titles wrapped in
 * narrow charts, the hover read-out, bad sizes refused, and values no tick
 * step can tell apart drawn with a bounded number of ticks.
 */
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "tb-chart.h"
#include "test-gui-util.h"

#define RED 0xff0000
#define GREEN 0x00c000

static guint32
pixel (cairo_surface_t *s,
       int              x,
       int              y)
{
  const guint8 *data = cairo_image_surface_get_data (s);
  int stride = cairo_image_surface_get_stride (s);

  return *(const guint32 *) (data + y * stride + x * 4) & 0xffffff;
}

static gboolean
near_color (guint32 a,
            guint32 b,
            int     tolerance)
{
  for (int shift = 0; shift <= 16; shift += 8)
    if (ABS ((int) ((a >> shift) & 0xff) - (int) ((b >> shift) & 0xff)) > tolerance)
      return FALSE;
  return TRUE;
}

/* Is there a pixel of `color` within `r` pixels of (x, y)? */
static gboolean
color_near (cairo_surface_t *s,
            double           x,
            double           y,
            int              r,
            guint32          color)
{
  for (int dy = -r; dy <= r; dy++)
    for (int dx = -r; dx <= r; dx++)
      {
        int px = (int) round (x) + dx, py = (int) round (y) + dy;

        if (px >= 0 && py >= 0 && px < cairo_image_surface_get_width (s) && py < cairo_image_surface_get_height (s)
            && near_color (pixel (s, px, py), color, 40))
          return TRUE;
      }
  return FALSE;
}

/* Count "ink" (dark) pixels in a rectangle: text and axes on white. */
static int
dark_pixels (cairo_surface_t *s,
             int              x0,
             int              y0,
             int              x1,
             int              y1)
{
  int n = 0;

  for (int y = MAX (y0, 0); y < MIN (y1, cairo_image_surface_get_height (s)); y++)
    for (int x = MAX (x0, 0); x < MIN (x1, cairo_image_surface_get_width (s)); x++)
      {
        guint32 p = pixel (s, x, y);

        if (((p >> 16) & 0xff) < 128 && ((p >> 8) & 0xff) < 128 && (p & 0xff) < 128)
          n++;
      }
  return n;
}

static TbChartData *
line_chart (const char *x_label)
{
  TbChartData *data = tb_chart_data_new (TB_CHART_LINES, "Loss", x_label, "Loss");
  TbChartSeries *s = tb_chart_data_add_series (data, "loss", RED);

  for (int i = 0; i <= 10; i++)
    tb_chart_series_append (s, i, i);
  return data;
}

static double
map_x (const TbChartLayout *l,
       double               x)
{
  return l->left + (x - l->x_min) / (l->x_max - l->x_min) * (l->right - l->left);
}

static double
map_y (const TbChartLayout *l,
       double               y)
{
  return l->bottom - (y - l->y_min) / (l->y_max - l->y_min) * (l->bottom - l->top);
}

static void
test_png_lines (void)
{
  g_autoptr(TbChartData) data = line_chart ("Step");
  g_autofree char *path = g_build_filename (tb_test_setup_env (), "lines.png", NULL);
  g_autoptr(GError) error = NULL;
  cairo_surface_t *png;
  TbChartLayout l;

  g_assert_true (tb_chart_export (data, path, 400, 300, &error));
  g_assert_no_error (error);
  png = cairo_image_surface_create_from_png (path);
  g_assert_cmpint (cairo_surface_status (png), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (png), ==, 400);
  g_assert_cmpint (cairo_image_surface_get_height (png), ==, 300);

  g_assert_true (tb_chart_compute_layout (data, 400, 300, &l));
  g_assert_cmpfloat (l.x_min, <=, 0);
  g_assert_cmpfloat (l.x_max, >=, 10);
  g_assert_cmpfloat (l.y_max, >=, 10);
  /* the series is drawn where the data says: on the diagonal ... */
  for (int i = 1; i < 10; i++)
    g_assert_true (color_near (png, map_x (&l, i), map_y (&l, i), 2, RED));
  g_assert_true (color_near (png, map_x (&l, 2.5), map_y (&l, 2.5), 2, RED));
  /* ... and not elsewhere */
  g_assert_false (color_near (png, map_x (&l, 2), map_y (&l, 8), 3, RED));
  g_assert_false (color_near (png, map_x (&l, 8), map_y (&l, 2), 3, RED));

  /* axes labelled: tick labels left of the plot and under it */
  g_assert_cmpint (dark_pixels (png, 0, (int) l.top, (int) l.left - 4, (int) l.bottom), >, 40);
  g_assert_cmpint (dark_pixels (png, (int) l.left, (int) l.bottom + 3, (int) l.right, 300), >, 40);
  cairo_surface_destroy (png);
}

static void
test_axis_label_drawn (void)
{
  g_autoptr(TbChartData) with = line_chart ("Step");
  g_autoptr(TbChartData) without = line_chart (NULL);
  cairo_surface_t *a = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 400, 300);
  cairo_surface_t *b = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 400, 300);
  cairo_t *cr;
  TbChartLayout l;
  int ink_with, ink_without;

  cr = cairo_create (a);
  tb_chart_render (cr, 400, 300, with);
  cairo_destroy (cr);
  cr = cairo_create (b);
  tb_chart_render (cr, 400, 300, without);
  cairo_destroy (cr);
  cairo_surface_flush (a);
  cairo_surface_flush (b);

  tb_chart_compute_layout (with, 400, 300, &l);
  /* the x-axis title sits in the bottom band, under the tick labels */
  ink_with = dark_pixels (a, (int) l.left, 300 - 20, (int) l.right, 300);
  ink_without = dark_pixels (b, (int) l.left, 300 - 20, (int) l.right, 300);
  g_assert_cmpint (ink_with, >, ink_without + 10);
  cairo_surface_destroy (a);
  cairo_surface_destroy (b);
}

static void
test_bars (void)
{
  g_autoptr(TbChartData) data = tb_chart_data_new (TB_CHART_BARS, "Seconds per epoch", "Model", "Seconds");
  TbChartSeries *cpu = tb_chart_data_add_series (data, "CPU", RED);
  TbChartSeries *gpu = tb_chart_data_add_series (data, "GPU", GREEN);
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 600, 400);
  cairo_t *cr = cairo_create (s);
  TbChartLayout l;
  double group;

  tb_chart_data_add_category (data, "mlp");
  tb_chart_data_add_category (data, "cnn");
  tb_chart_series_set_bar (cpu, 0, 4.0, NULL);
  tb_chart_series_set_bar (gpu, 0, 1.0, "×4.00");
  tb_chart_series_set_bar (cpu, 1, 10.0, NULL);
  tb_chart_series_set_bar (gpu, 1, NAN, NULL);   /* no GPU run of the cnn */
  g_assert_cmpuint (tb_chart_data_count_points (data), ==, 3);

  tb_chart_render (cr, 600, 400, data);
  cairo_destroy (cr);
  cairo_surface_flush (s);

  g_assert_true (tb_chart_compute_layout (data, 600, 400, &l));
  g_assert_cmpfloat (l.y_min, ==, 0);
  group = (l.right - l.left) / 2;
  /* category 0: CPU bar (left half of the group) up to 4, GPU bar up to 1 */
  g_assert_true (color_near (s, l.left + group * 0.3, map_y (&l, 2.0), 1, RED));
  g_assert_false (color_near (s, l.left + group * 0.3, map_y (&l, 6.0), 1, RED));
  g_assert_true (color_near (s, l.left + group * 0.7, map_y (&l, 0.5), 1, GREEN));
  g_assert_false (color_near (s, l.left + group * 0.7, map_y (&l, 2.0), 1, GREEN));
  /* category 1: only the CPU bar */
  g_assert_true (color_near (s, l.left + group * 1.3, map_y (&l, 8.0), 1, RED));
  g_assert_false (color_near (s, l.left + group * 1.7, map_y (&l, 0.5), 2, GREEN));
  /* the speed-up note is written above the GPU bar */
  g_assert_cmpint (dark_pixels (s, (int) (l.left + group * 0.5), (int) map_y (&l, 1.0) - 16,
                                (int) (l.left + group * 0.9), (int) map_y (&l, 1.0) - 1), >, 5);
  cairo_surface_destroy (s);
}

/* Pixels near white in a rectangle: text on a coloured bar. */
static int
light_pixels (cairo_surface_t *s,
              int              x0,
              int              y0,
              int              x1,
              int              y1)
{
  int n = 0;

  for (int y = MAX (y0, 0); y < MIN (y1, cairo_image_surface_get_height (s)); y++)
    for (int x = MAX (x0, 0); x < MIN (x1, cairo_image_surface_get_width (s)); x++)
      n += near_color (pixel (s, x, y), 0xffffff, 60);
  return n;
}

/* A bar's left edge and width, as the renderer lays bars out. */
static void
bar_place (const TbChartLayout *l,
           guint                n_categories,
           guint                n_series,
           guint                category,
           guint                series,
           double              *x,
           double              *w)
{
  double group = (l->right - l->left) / n_categories;
  double inner = group * 0.8;

  *w = inner / n_series;
  *x = l->left + category * group + (group - inner) / 2 + series * *w;
}

/* A ratio note reads on every bar: wrapped to a narrow bar's width rather
 * than over its neighbours, and inside the top of a bar that reaches the
 * top of the plot rather than cut off above it. */
static void
test_bar_notes (void)
{
  g_autoptr(TbChartData) data = tb_chart_data_new (TB_CHART_BARS, "Seconds per epoch", "Model", "Seconds");
  const char *notes[] = { NULL, "1.3× faster", "2× faster", "4× faster" };
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 400, 300);
  cairo_t *cr = cairo_create (s);
  TbChartLayout l;
  double x, w, top;
  int rows[2];

  tb_chart_data_add_category (data, "mlp");
  for (guint i = 0; i < 4; i++)
    tb_chart_series_set_bar (tb_chart_data_add_series (data, notes[i] ? notes[i] : "first", 0),
                             0, 4.0 / (i + 1), notes[i]);
  data->y_scale = TB_CHART_SCALE_LINEAR;
  tb_chart_render (cr, 400, 300, data);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  g_assert_true (tb_chart_compute_layout (data, 400, 300, &l));

  /* "1.3× faster" is wider than its bar: two lines over the bar, and
   * nothing over the bars next to it */
  bar_place (&l, 1, 4, 0, 1, &x, &w);
  top = l.bottom - (2.0 - l.y_min) / (l.y_max - l.y_min) * (l.bottom - l.top);
  g_test_message ("bar %.0f px wide, top at %.0f", w, top);
  rows[0] = dark_pixels (s, (int) x, (int) top - 28, (int) (x + w), (int) top - 15);
  rows[1] = dark_pixels (s, (int) x, (int) top - 14, (int) (x + w), (int) top - 1);
  g_test_message ("note ink: %d on the first line, %d on the second", rows[0], rows[1]);
  g_assert_cmpint (rows[0], >, 10);
  g_assert_cmpint (rows[1], >, 10);
  g_assert_cmpint (dark_pixels (s, (int) (x + w + 1), (int) top - 28, (int) (x + w + 6), (int) top - 1), <, 4);
  cairo_surface_destroy (s);

  /* a short chart: the tallest bar leaves no room above it for a note */
  g_free (g_ptr_array_index (((TbChartSeries *) g_ptr_array_index (data->series, 0))->notes, 0));
  g_ptr_array_index (((TbChartSeries *) g_ptr_array_index (data->series, 0))->notes, 0) = g_strdup ("1× slower");
  s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 400, 130);
  cr = cairo_create (s);
  tb_chart_render (cr, 400, 130, data);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  g_assert_true (tb_chart_compute_layout (data, 400, 130, &l));
  bar_place (&l, 1, 4, 0, 0, &x, &w);
  top = l.bottom - (4.0 - l.y_min) / (l.y_max - l.y_min) * (l.bottom - l.top);
  g_test_message ("plot from %.0f, the tallest bar's top at %.0f", l.top, top);
  g_assert_cmpfloat (top - l.top, <, 14);
  g_assert_cmpint (light_pixels (s, (int) x + 2, (int) top + 2, (int) (x + w - 2), (int) top + 16), >, 10);
  cairo_surface_destroy (s);
}

/* map_y of a layout on a log scale */
static double
map_y_log (const TbChartLayout *l,
           double               y)
{
  double lo = log10 (l->y_min);

  return l->bottom - (log10 (y) - lo) / (log10 (l->y_max) - lo) * (l->bottom - l->top);
}

static gboolean
is_power_of_ten (double v)
{
  double e = round (log10 (v));

  return fabs (v / pow (10, e) - 1) < 1e-9;
}

/* CPU 0.26 s per epoch, GPU 0.005 s: a bar 52 times shorter */
static TbChartData *
cpu_gpu_bars (double cpu_value,
              double gpu_value)
{
  TbChartData *data = tb_chart_data_new (TB_CHART_BARS, "Seconds per epoch", "Model", "Seconds");
  TbChartSeries *cpu = tb_chart_data_add_series (data, "CPU", RED);
  TbChartSeries *gpu = tb_chart_data_add_series (data, "GPU", GREEN);

  tb_chart_data_add_category (data, "mlp");
  tb_chart_series_set_bar (cpu, 0, cpu_value, NULL);
  tb_chart_series_set_bar (gpu, 0, gpu_value, NULL);
  return data;
}

/* Bars 52 times apart: on a linear axis the short one is a sliver; the
 * automatic scale turns to log, where it is a bar, on decade ticks. */
static void
test_log_scale (void)
{
  g_autoptr(TbChartData) data = cpu_gpu_bars (0.26, 0.005);
  g_autoptr(TbChartData) close = cpu_gpu_bars (0.26, 0.026);
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 600, 400);
  cairo_t *cr;
  TbChartLayout l;
  double ticks[64];
  guint n;

  /* linear, as asked: the GPU bar is a sliver, a fortieth of the plot */
  data->y_scale = TB_CHART_SCALE_LINEAR;
  g_assert_false (tb_chart_data_is_log (data));
  g_assert_true (tb_chart_compute_layout (data, 600, 400, &l));
  g_assert_false (l.y_log);
  g_assert_cmpfloat (map_y (&l, 0) - map_y (&l, 0.005), <, (l.bottom - l.top) / 40);

  /* automatic: 52 times is log, 10 times is not */
  data->y_scale = TB_CHART_SCALE_AUTO;
  g_assert_true (tb_chart_data_is_log (data));
  g_assert_false (tb_chart_data_is_log (close));
  close->y_scale = TB_CHART_SCALE_LOG;
  g_assert_true (tb_chart_data_is_log (close));

  g_assert_true (tb_chart_compute_layout (data, 600, 400, &l));
  g_assert_true (l.y_log);
  g_assert_true (is_power_of_ten (l.y_min));
  g_assert_true (is_power_of_ten (l.y_max));
  g_assert_cmpfloat (l.y_min, <, 0.005);
  g_assert_cmpfloat (l.y_max, >, 0.26);
  /* the GPU bar is a fifth of the plot or more */
  g_assert_cmpfloat (l.bottom - map_y_log (&l, 0.005), >, (l.bottom - l.top) / 5);

  cr = cairo_create (s);
  tb_chart_render (cr, 600, 400, data);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  {
    double group = l.right - l.left;

    g_assert_true (color_near (s, l.left + group * 0.3, map_y_log (&l, 0.1), 1, RED));
    g_assert_false (color_near (s, l.left + group * 0.3, map_y_log (&l, 0.5), 1, RED));
    g_assert_true (color_near (s, l.left + group * 0.7, map_y_log (&l, 0.003), 1, GREEN));
    g_assert_false (color_near (s, l.left + group * 0.7, map_y_log (&l, 0.01), 1, GREEN));
  }
  cairo_surface_destroy (s);

  /* ticks: each decade from the bottom to the top; at 100 pixels a decade
   * also 2 and 5 times it */
  n = tb_chart_y_ticks (data, 600, 400, ticks, G_N_ELEMENTS (ticks));
  g_assert_cmpfloat ((l.bottom - l.top) / 3, >=, 100);
  g_assert_cmpuint (n, ==, 10);
  for (guint i = 0; i < n; i++)
    {
      g_test_message ("tick %g", ticks[i]);
      g_assert_cmpfloat_with_epsilon (ticks[i], (i % 3 == 0 ? 1 : i % 3 == 1 ? 2 : 5) * l.y_min * pow (10, i / 3), 1e-12);
    }
  /* a short chart: the decades only, 0.001 to 1 */
  n = tb_chart_y_ticks (data, 600, 200, ticks, G_N_ELEMENTS (ticks));
  g_assert_cmpuint (n, ==, 4);
  for (guint i = 0; i < n; i++)
    g_assert_cmpfloat_with_epsilon (ticks[i], l.y_min * pow (10, i), 1e-12);
}

/* Log ticks stay few and sensible over any span: 1-2-5 within a decade,
 * every decade over a few, every few decades over hundreds; values of 0
 * and below are left out, not drawn at the bottom. */
static void
test_log_ticks (void)
{
  g_autoptr(TbChartData) one = cpu_gpu_bars (5, 2);
  g_autoptr(TbChartData) wide = tb_chart_data_new (TB_CHART_LINES, "Wide", "x", "y");
  TbChartSeries *s = tb_chart_data_add_series (wide, "run", RED);
  double ticks[64];
  guint n;

  one->y_scale = TB_CHART_SCALE_LOG;
  n = tb_chart_y_ticks (one, 600, 400, ticks, G_N_ELEMENTS (ticks));
  g_assert_cmpuint (n, ==, 4);
  g_assert_cmpfloat_with_epsilon (ticks[0], 1, 1e-12);
  g_assert_cmpfloat_with_epsilon (ticks[1], 2, 1e-12);
  g_assert_cmpfloat_with_epsilon (ticks[2], 5, 1e-12);
  g_assert_cmpfloat_with_epsilon (ticks[3], 10, 1e-12);

  wide->y_scale = TB_CHART_SCALE_LOG;
  tb_chart_series_append (s, 0, 1e-300);
  tb_chart_series_append (s, 1, 1e300);
  tb_chart_series_append (s, 2, 0);
  tb_chart_series_append (s, 3, -5);
  tb_chart_series_append (s, 4, 5e-324);
  tb_chart_series_append (s, 5, 1.7e308);
  g_assert_true (tb_chart_data_is_log (wide));
  for (int height = 100; height <= 16384; height *= 4)
    {
      TbChartLayout l;

      g_assert_true (tb_chart_compute_layout (wide, 600, height, &l));
      n = tb_chart_y_ticks (wide, 600, height, ticks, G_N_ELEMENTS (ticks));
      g_test_message ("%d pixels: %u ticks, %g to %g", height, n, ticks[0], ticks[n - 1]);
      g_assert_cmpuint (n, >=, 2);
      g_assert_cmpuint (n, <=, MAX (2, MIN (64, (l.bottom - l.top) / 28 + 1)));
      /* from near the bottom to near the top */
      g_assert_cmpfloat (log10 (ticks[n - 1] / ticks[0]), >=, 0.6 * log10 (l.y_max / l.y_min));
      for (guint i = 0; i < n; i++)
        {
          g_assert_true (is_power_of_ten (ticks[i]));
          g_assert_true (i == 0 || ticks[i] > ticks[i - 1]);
        }
    }

  /* nothing above 0: drawn linear, as there is no log of it */
  {
    g_autoptr(TbChartData) none = cpu_gpu_bars (0, -1);

    none->y_scale = TB_CHART_SCALE_LOG;
    g_assert_false (tb_chart_data_is_log (none));
  }
}

static void
test_svg (void)
{
  g_autoptr(TbChartData) data = line_chart ("Step");
  g_autofree char *path = g_build_filename (tb_test_setup_env (), "lines.svg", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (tb_chart_export (data, path, 640, 480, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_nonnull (strstr (contents, "<svg"));
  g_assert_nonnull (strstr (contents, "640"));
}

static void
test_bad_size (void)
{
  g_autoptr(TbChartData) data = line_chart ("Step");
  g_autofree char *path = g_build_filename (tb_test_setup_env (), "tiny.png", NULL);
  g_autoptr(GError) error = NULL;

  g_assert_false (tb_chart_export (data, path, 0, 10, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

static void
test_empty_and_hover (void)
{
  g_autoptr(TbChartData) empty = tb_chart_data_new (TB_CHART_LINES, "Empty", "x", "y");
  g_autoptr(TbChartData) data = line_chart ("Step");
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 300, 200);
  cairo_t *cr = cairo_create (s);
  g_autofree char *text = NULL;
  TbChartLayout l;

  /* nothing to plot is drawn (with a hint), not a crash */
  tb_chart_data_add_series (empty, "nothing", 0);
  g_assert_false (tb_chart_compute_layout (empty, 300, 200, &l));
  tb_chart_render (cr, 300, 200, empty);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_destroy (s);

  /* the read-out names the nearest point */
  g_assert_true (tb_chart_compute_layout (data, 300, 200, &l));
  text = tb_chart_hover (data, 300, 200, map_x (&l, 7.2), (l.top + l.bottom) / 2);
  g_assert_nonnull (text);
  g_assert_true (data->hover_active);
  g_assert_cmpfloat (data->hover_x, ==, 7);
  g_assert_nonnull (strstr (text, "loss: 7"));
  g_clear_pointer (&text, g_free);
  text = tb_chart_hover (data, 300, 200, 1, 1);
  g_assert_null (text);
  g_assert_false (data->hover_active);
}

static void
test_many_points (void)
{
  g_autoptr(TbChartData) data = tb_chart_data_new (TB_CHART_LINES, "Loss", "Step", "Loss");
  TbChartSeries *s = tb_chart_data_add_series (data, "loss", RED);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 400, 300);
  cairo_t *cr = cairo_create (surface);
  TbChartLayout l;
  gint64 t0;

  /* a long run: 100000 steps, loss falling from 1 to 0, all above 0.5 in
   * the first half */
  for (int i = 0; i < 100000; i++)
    tb_chart_series_append (s, i, 1.0 - i / 100000.0);
  t0 = g_get_monotonic_time ();
  tb_chart_render (cr, 400, 300, data);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  g_test_message ("100000 points drawn in %.1f ms", (g_get_monotonic_time () - t0) / 1000.0);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, G_USEC_PER_SEC);
  g_assert_true (tb_chart_compute_layout (data, 400, 300, &l));
  g_assert_true (color_near (surface, map_x (&l, 25000), map_y (&l, 0.75), 2, RED));
  g_assert_true (color_near (surface, map_x (&l, 75000), map_y (&l, 0.25), 2, RED));
  g_assert_false (color_near (surface, map_x (&l, 75000), map_y (&l, 0.75), 3, RED));
  cairo_surface_destroy (surface);
}

/* Labels with noncharacters (valid UTF-8 that cairo refuses: a result
 * file's run name may hold one) are drawn, on an image and on a recording
 * surface (the SVG export's), with the series still in its colour. */
static void
test_noncharacter_labels (void)
{
  g_autoptr(TbChartData) data = tb_chart_data_new (TB_CHART_LINES, "Loss \xef\xb7\x90", "Step", "Loss");
  TbChartSeries *s = tb_chart_data_add_series (data, "run \xf2\xbf\xbf\xbf \xef\xbf\xbe", RED);

  for (int i = 0; i < 10; i++)
    tb_chart_series_append (s, i, 1.0 - i / 10.0);
  for (int kind = 0; kind < 2; kind++)
    {
      cairo_surface_t *surface = kind == 0 ? cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 400, 300)
                                           : cairo_recording_surface_create (CAIRO_CONTENT_COLOR_ALPHA, NULL);
      cairo_t *cr = cairo_create (surface);
      TbChartLayout l;

      tb_chart_render (cr, 400, 300, data);
      g_assert_cmpstr (cairo_status_to_string (cairo_status (cr)), ==,
                       cairo_status_to_string (CAIRO_STATUS_SUCCESS));
      cairo_destroy (cr);
      if (kind == 0)
        {
          cairo_surface_flush (surface);
          g_assert_true (tb_chart_compute_layout (data, 400, 300, &l));
          g_assert_true (color_near (surface, map_x (&l, 5), map_y (&l, 0.5), 2, RED));
        }
      cairo_surface_destroy (surface);
    }
}

static void
test_ceiling (void)
{
  g_autoptr(TbChartData) data = tb_chart_data_new (TB_CHART_LINES, "Accuracy", "Epoch", "Accuracy");
  TbChartSeries *s = tb_chart_data_add_series (data, "test", 0);
  TbChartLayout l;

  data->y_ceiling = 1.0;
  tb_chart_series_append (s, 1, 1.0);
  tb_chart_series_append (s, 2, 1.0);
  g_assert_true (tb_chart_compute_layout (data, 400, 300, &l));
  g_assert_cmpfloat (l.y_max, ==, 1.0);
  g_assert_cmpfloat (l.y_min, <, 1.0);
}

/* A title too long for a narrow chart wraps onto a second line instead of
 * ending in "…", and the plot starts under it; one too long for two lines
 * is cut short. */
static void
test_title_wraps (void)
{
  g_autoptr(TbChartData) data = tb_chart_data_new (TB_CHART_LINES, "Test accuracy per epoch", "Epoch", "Accuracy");
  TbChartSeries *s = tb_chart_data_add_series (data, "test", RED);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 190, 240);
  cairo_t *cr = cairo_create (surface);
  TbChartLayout narrow, wide;
  int second_line;

  tb_chart_series_append (s, 1, 0.5);
  tb_chart_series_append (s, 2, 0.8);
  /* 190 pixels: the accuracy chart's width on the Runs page at 800x600 */
  g_assert_true (tb_chart_title_is_whole (data, 190));
  g_assert_true (tb_chart_title_is_whole (data, 600));
  g_assert_true (tb_chart_compute_layout (data, 190, 240, &narrow));
  g_assert_true (tb_chart_compute_layout (data, 600, 240, &wide));
  g_assert_cmpfloat (narrow.top, >=, wide.top + 11);

  tb_chart_render (cr, 190, 240, data);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  /* ink on the title's second line ("epoch"), left of where the legend
   * starts */
  second_line = dark_pixels (surface, 16, 8 + 18, 52, 8 + 34);
  g_test_message ("ink on the second title line: %d", second_line);
  g_assert_cmpint (second_line, >, 20);
  cairo_surface_destroy (surface);

  g_free (data->title);
  data->title = g_strdup ("Seconds per epoch by operating system, model, data set and device, "
                          "with the speed-up against the first");
  g_assert_false (tb_chart_title_is_whole (data, 190));
  g_assert_true (tb_chart_title_is_whole (data, 1200));
}

typedef struct
{
  TbChartData *data;
  char *path;
  int width, height;
  gboolean ok;
  gint done;
} ExportJob;

static gpointer
export_thread (gpointer user_data)
{
  ExportJob *job = user_data;

  job->ok = tb_chart_export (job->data, job->path, job->width, job->height, NULL);
  g_atomic_int_set (&job->done, 1);
  return NULL;
}

/* Export `data` as SVG in a thread at a size: it must end within seconds
 * and write a file of bounded size. */
static void
check_export_size_ends (TbChartData *data,
                        const char  *name,
                        int          width,
                        int          height)
{
  g_autofree char *path = g_build_filename (tb_test_setup_env (), name, NULL);
  ExportJob job = { data, path, width, height, FALSE, 0 };
  GThread *thread = g_thread_new ("export", export_thread, &job);
  gint64 t0 = g_get_monotonic_time ();
  GStatBuf st;

  while (!g_atomic_int_get (&job.done))
    {
      /* an endless axis loop never returns: fail rather than wait */
      if (g_get_monotonic_time () - t0 > 20 * G_USEC_PER_SEC)
        g_error ("%s: the export did not finish in 20 s", name);
      g_usleep (10000);
    }
  g_thread_join (thread);
  g_assert_true (job.ok);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_test_message ("%s at %dx%d: %ld bytes in %.0f ms", name, width, height, (long) st.st_size,
                  (g_get_monotonic_time () - t0) / 1000.0);
  g_assert_cmpint (st.st_size, <, 1000 * 1000);
  g_unlink (path);
}

/* ... at the export's default size and a few others */
static void
check_export_ends (TbChartData *data,
                   const char  *name)
{
  static const int sizes[][2] = { { 1200, 700 }, { 400, 300 }, { 600, 400 }, { 2400, 1600 }, { 16384, 16384 } };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    check_export_size_ends (data, name, sizes[i][0], sizes[i][1]);
}

/* Values that differ by less than a tick step can represent: accuracies of
 * 100000 + 2e-11 i, losses of 1e17 +- 32, steps of 1e17. The axis loop ran
 * forever (export wrote an endless SVG). */
static void
test_unrepresentable_ticks (void)
{
  g_autoptr(TbChartData) acc = tb_chart_data_new (TB_CHART_LINES, "Accuracy", "Epoch", "Accuracy");
  g_autoptr(TbChartData) loss = tb_chart_data_new (TB_CHART_LINES, "Loss", "Progress", "Loss");
  g_autoptr(TbChartData) wide = tb_chart_data_new (TB_CHART_LINES, "Wide", "x", "y");
  g_autoptr(TbChartData) bars = tb_chart_data_new (TB_CHART_BARS, "Bars", "Model", "Seconds");
  TbChartSeries *s;

  acc->x_integer = TRUE;
  acc->y_ceiling = 1.0;
  s = tb_chart_data_add_series (acc, "run", 0);
  for (int i = 0; i < 2; i++)
    tb_chart_series_append (s, i + 1, 100000 + 2e-11 * i);
  check_export_ends (acc, "accuracy.svg");
  for (int i = 2; i < 10; i++)
    tb_chart_series_append (s, i + 1, 100000 + 2e-11 * i);
  check_export_ends (acc, "accuracy-10.svg");

  s = tb_chart_data_add_series (loss, "run", 0);
  for (int i = 0; i < 10; i++)
    tb_chart_series_append (s, 1e17 + 16.0 * i, 1e17 + (i % 2 ? 32 : -32));
  check_export_ends (loss, "loss.svg");

  /* the whole range of doubles, and points past it */
  s = tb_chart_data_add_series (wide, "run", 0);
  tb_chart_series_append (s, -1.7e308, -1.7e308);
  tb_chart_series_append (s, 1.7e308, 1.7e308);
  tb_chart_series_append (s, 0, 5e-324);
  check_export_ends (wide, "wide.svg");
  wide->y_scale = TB_CHART_SCALE_LOG;
  check_export_ends (wide, "wide-log.svg");

  tb_chart_data_add_category (bars, "a");
  s = tb_chart_data_add_series (bars, "cpu", 0);
  tb_chart_series_set_bar (s, 0, 1e17 + 32, "×1");
  s = tb_chart_data_add_series (bars, "gpu", 0);
  tb_chart_series_set_bar (s, 0, 1e17, "×1");
  check_export_ends (bars, "bars.svg");
  bars->y_scale = TB_CHART_SCALE_LOG;
  check_export_ends (bars, "bars-log.svg");
}

int
main (int    argc,
      char **argv)
{
  tb_test_setup_env ();
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/chart/png-lines", test_png_lines);
  g_test_add_func ("/chart/axis-label", test_axis_label_drawn);
  g_test_add_func ("/chart/bars", test_bars);
  g_test_add_func ("/chart/bar-notes", test_bar_notes);
  g_test_add_func ("/chart/log-scale", test_log_scale);
  g_test_add_func ("/chart/log-ticks", test_log_ticks);
  g_test_add_func ("/chart/svg", test_svg);
  g_test_add_func ("/chart/bad-size", test_bad_size);
  g_test_add_func ("/chart/empty-and-hover", test_empty_and_hover);
  g_test_add_func ("/chart/many-points", test_many_points);
  g_test_add_func ("/chart/noncharacter-labels", test_noncharacter_labels);
  g_test_add_func ("/chart/ceiling", test_ceiling);
  g_test_add_func ("/chart/title-wraps", test_title_wraps);
  g_test_add_func ("/chart/unrepresentable-ticks", test_unrepresentable_ticks);
  return g_test_run ();
}
