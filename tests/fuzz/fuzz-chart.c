/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-chart.c: libFuzzer target for the chart layout and renderer
 * (tb_chart_compute_layout, tb_chart_render, tb_chart_hover), drawn on an
 * image surface and a recording surface. The bytes choose the kind, the
 * flags, the size, labels, and every point as a raw double (NaN,
 * infinities, denormals, 1e308 and values closer than any tick step). The
 * renderer must end, stay within its size, and leave cairo without error.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-glib.h"
#include "tb-chart.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
const char *__lsan_default_suppressions (void);

/* Fontconfig keeps its configuration and font sets for the life of the
 * process (freed only by FcFini, which Pango's font map outlives). */
const char *
__lsan_default_suppressions (void)
{
  return "leak:libfontconfig\n";
}

typedef struct
{
  const uint8_t *data;
  size_t size;
} Input;

static guint8
take_byte (Input *in)
{
  guint8 b = 0;

  if (in->size > 0)
    {
      b = in->data[0];
      in->data++;
      in->size--;
    }
  return b;
}

static double
take_double (Input *in)
{
  double v = 0;

  if (in->size >= sizeof v)
    {
      memcpy (&v, in->data, sizeof v);
      in->data += sizeof v;
      in->size -= sizeof v;
    }
  else
    v = (double) take_byte (in) - 128;
  return v;
}

/* A label of up to 40 bytes, made valid UTF-8 (as every label a result
 * file can give is: json-glib refuses other text). */
static char *
take_label (Input *in)
{
  guint len = take_byte (in) % 41;
  g_autofree char *raw = g_malloc0 (len + 1);

  for (guint i = 0; i < len; i++)
    raw[i] = (char) take_byte (in);
  return g_utf8_make_valid (raw, -1);
}

static void
fail (const char *what)
{
  fprintf (stderr, "fuzz-chart: %s\n", what);
  abort ();
}

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  fuzz_glib_init ();
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  Input in = { data, size };
  guint8 flags = take_byte (&in);
  TbChartData *chart;
  g_autofree char *title = take_label (&in);
  int width = 16 + (take_byte (&in) | take_byte (&in) << 8) % 785;
  int height = 16 + (take_byte (&in) | take_byte (&in) << 8) % 585;
  guint n_series = take_byte (&in) % 6;
  cairo_surface_t *surface;
  cairo_t *cr;
  TbChartLayout layout;

  chart = tb_chart_data_new (flags & 1 ? TB_CHART_BARS : TB_CHART_LINES, title, "x", "y");
  chart->y_from_zero = (flags & 2) != 0;
  chart->x_integer = (flags & 4) != 0;
  chart->dark = (flags & 8) != 0;
  if (flags & 16)
    chart->y_ceiling = take_double (&in);

  if (chart->kind == TB_CHART_BARS)
    {
      guint n_categories = take_byte (&in) % 8;

      for (guint c = 0; c < n_categories; c++)
        {
          g_autofree char *label = take_label (&in);

          tb_chart_data_add_category (chart, label);
        }
    }
  for (guint i = 0; i < n_series; i++)
    {
      g_autofree char *label = take_label (&in);
      TbChartSeries *s = tb_chart_data_add_series (chart, label, 0);
      guint n = take_byte (&in);

      /* now and then a long series, as a loss per step is */
      if (n == 255)
        n = 5000;
      for (guint j = 0; j < n && in.size > 0; j++)
        {
          if (chart->kind == TB_CHART_BARS)
            {
              g_autofree char *note = (take_byte (&in) & 1) ? take_label (&in) : NULL;

              tb_chart_series_set_bar (s, j % 16, take_double (&in), note);
            }
          else
            {
              double x = take_double (&in);

              tb_chart_series_append (s, x, take_double (&in));
            }
        }
    }

  if (tb_chart_compute_layout (chart, width, height, &layout))
    {
      if (isnan (layout.x_min) || isnan (layout.x_max) || isnan (layout.y_min) || isnan (layout.y_max))
        fail ("a layout with a NaN range");
    }

  /* the hover read-out at a point from the input, maybe NaN */
  {
    double px = take_double (&in), py = take_double (&in);
    char *text = tb_chart_hover (chart, width, height, px, py);

    if (text != NULL && !g_utf8_validate (text, -1, NULL))
      fail ("hover text is not UTF-8");
    g_free (text);
  }

  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cr = cairo_create (surface);
  tb_chart_render (cr, width, height, chart);
  if (cairo_status (cr) != CAIRO_STATUS_SUCCESS)
    fail (cairo_status_to_string (cairo_status (cr)));
  cairo_destroy (cr);
  cairo_surface_destroy (surface);

  /* a recording surface keeps every operation: what the SVG export writes */
  surface = cairo_recording_surface_create (CAIRO_CONTENT_COLOR_ALPHA, NULL);
  cr = cairo_create (surface);
  tb_chart_render (cr, width, height, chart);
  if (cairo_status (cr) != CAIRO_STATUS_SUCCESS)
    fail (cairo_status_to_string (cairo_status (cr)));
  cairo_destroy (cr);
  {
    double x0, y0, w, h;

    cairo_recording_surface_ink_extents (surface, &x0, &y0, &w, &h);
    if (w > width + 1 || h > height + 1)
      fail ("drawn outside its size");
  }
  cairo_surface_destroy (surface);

  tb_chart_data_free (chart);
  return 0;
}
