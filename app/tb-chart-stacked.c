/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-chart-stacked.c: stacked bar charts (where a step's time went): a
 * row per category, its series' values end to end along x, a marker
 * series as a line across its row, a row without values saying so.
 */
#define G_LOG_DOMAIN "trainbench-chart"

#include "tb-config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "tb-chart-private.h"

void
tb_chart_data_set_missing_text (TbChartData *data,
                                const char  *text)
{
  g_return_if_fail (data != NULL);

  g_free (data->missing_text);
  data->missing_text = g_strdup (text);
}

/* A stacked value of series s in row c, or NAN: finite, above 0, bounded. */
static double
stacked_value (const TbChartSeries *s,
               guint                c)
{
  double v = c < s->y->len ? g_array_index (s->y, double, c) : NAN;

  return isfinite (v) && v > 0 ? MIN (v, MAX_MAGNITUDE) : NAN;
}

/* Row c's stacked length (the markers aside); *any: it has some value. */
static double
stacked_total (const TbChartData *data,
               guint              c,
               gboolean          *any)
{
  double total = 0;

  for (guint i = 0; i < data->series->len; i++)
    {
      const TbChartSeries *s = g_ptr_array_index (data->series, i);
      double v = stacked_value (s, c);

      if (!isfinite (v))
        continue;
      *any = TRUE;
      total = s->marker ? MAX (total, 0) : MIN (total + v, MAX_MAGNITUDE);
    }
  return total;
}

/* The widest the row labels may be: a third of the chart. */
static double
stacked_label_width (cairo_t           *cr,
                     const TbChartData *data,
                     int                width)
{
  int widest = 0;

  for (guint c = 0; c < data->categories->len; c++)
    widest = MAX (widest, _tb_chart_text_width (cr, g_ptr_array_index (data->categories, c)));
  return CLAMP (widest, 40, MAX (width / 3, 40));
}

/* Rows from top to bottom, x from 0 to the longest row or marker rounded up
 * to a tick. */
gboolean
_tb_chart_stacked_layout (const TbChartData *data,
                          int                width,
                          int                height,
                          TbChartLayout     *layout)
{
  gboolean any = FALSE;
  double x_max = 0, step;
  cairo_t *cr = _tb_chart_scratch_cr ();
  int lines = _tb_chart_title_lines (cr, data, width);

  for (guint c = 0; c < data->categories->len; c++)
    {
      x_max = MAX (x_max, stacked_total (data, c, &any));
      for (guint i = 0; i < data->series->len; i++)
        {
          const TbChartSeries *s = g_ptr_array_index (data->series, i);
          double v = stacked_value (s, c);

          if (s->marker && isfinite (v))
            x_max = MAX (x_max, v);
        }
    }
  layout->top = _tb_chart_legend_top (lines)
                + FONT_SIZE_PX * 1.6 * _tb_chart_legend_pass (cr, data, width, lines, FALSE)
                + PAD;
  layout->left = PAD * 2 + stacked_label_width (cr, data, width) + 6;
  cairo_destroy (cr);
  layout->right = width - PAD * 2;
  layout->bottom = height - PAD - FONT_SIZE_PX * 3.4; /* tick labels and the x label */
  if (!(x_max > MIN_MAGNITUDE))
    x_max = 1;
  step = _tb_chart_nice_step (x_max, 6);
  if (isfinite (step) && step > 0 && isfinite (ceil (x_max / step) * step))
    x_max = ceil (x_max / step) * step;
  layout->x_min = 0;
  layout->x_max = x_max;
  layout->y_min = 0;
  layout->y_max = MAX (data->categories->len, 1);
  layout->y_log = FALSE;
  return any && data->categories->len > 0;
}

/* A row's label, right-aligned left of the plot, ending in "…" when long. */
static void
draw_row_label (cairo_t           *cr,
                const TbChartData *data,
                const char        *text,
                double             right,
                double             room,
                double             y)
{
  PangoLayout *pl = _tb_chart_make_layout (cr, text, FONT_SIZE_PX, FALSE);
  int w, h;

  pango_layout_set_width (pl, (int) room * PANGO_SCALE);
  pango_layout_set_ellipsize (pl, PANGO_ELLIPSIZE_END);
  pango_layout_get_pixel_size (pl, &w, &h);
  _tb_chart_set_rgb (cr, _tb_chart_fg_color (data), 0.9);
  cairo_move_to (cr, round (right - w), round (y - h / 2.0));
  pango_cairo_show_layout (cr, pl);
  g_object_unref (pl);
}

/* The x axis (grid, ticks, label), then a row per category: the series
 * end to end, each marker a line across the bar, and a row without values
 * saying so. */
void
_tb_chart_draw_stacked (cairo_t             *cr,
                        const TbChartData   *data,
                        const TbChartLayout *l)
{
  guint32 fg = _tb_chart_fg_color (data);
  guint rows = data->categories->len;
  double ticks[MAX_TICKS], step;
  int n = _tb_chart_axis_ticks (0, l->x_max, MAX ((int) ((l->right - l->left) / 90), 2), FALSE,
                                ticks, &step);
  double row = (l->bottom - l->top) / MAX (rows, 1);
  double bar = MIN (row * 0.62, 30);

  cairo_set_line_width (cr, 1);
  for (int i = 0; i < n; i++)
    {
      double px = round (_tb_chart_map_x (l, ticks[i])) + 0.5;
      g_autofree char *label = _tb_chart_format_tick (ticks[i], step);

      _tb_chart_set_rgb (cr, fg, 0.12);
      cairo_move_to (cr, px, l->top);
      cairo_line_to (cr, px, l->bottom);
      cairo_stroke (cr);
      _tb_chart_set_rgb (cr, fg, 0.8);
      _tb_chart_draw_text (cr, label, px, l->bottom + 4, 0.5, 0, FALSE);
    }
  _tb_chart_set_rgb (cr, fg, 0.5);
  cairo_move_to (cr, l->left, round (l->bottom) + 0.5);
  cairo_line_to (cr, l->right, round (l->bottom) + 0.5);
  cairo_stroke (cr);
  if (data->x_label != NULL)
    {
      _tb_chart_set_rgb (cr, fg, 0.8);
      _tb_chart_draw_text (cr, data->x_label, (l->left + l->right) / 2,
                           l->bottom + FONT_SIZE_PX * 1.8, 0.5, 0, FALSE);
    }

  for (guint c = 0; c < rows; c++)
    {
      double mid = l->top + row * (c + 0.5);
      double y = round (mid - bar / 2), x = 0;
      gboolean any = FALSE;

      if ((int) c == data->hover_category && data->hover_active)
        {
          _tb_chart_set_rgb (cr, fg, 0.06);
          cairo_rectangle (cr, l->left, l->top + row * c, l->right - l->left, row);
          cairo_fill (cr);
        }
      draw_row_label (cr, data, g_ptr_array_index (data->categories, c), l->left - 6,
                      l->left - PAD * 2 - 6, mid);
      for (guint i = 0; i < data->series->len; i++)
        {
          const TbChartSeries *s = g_ptr_array_index (data->series, i);
          double v = stacked_value (s, c);

          if (s->marker || !isfinite (v))
            continue;
          double x0 = _tb_chart_map_x (l, x), x1 = _tb_chart_map_x (l, MIN (x + v, MAX_MAGNITUDE));

          _tb_chart_set_rgb (cr, s->color, 1);
          cairo_rectangle (cr, round (x0), y, MAX (round (x1) - round (x0), 1), round (bar));
          cairo_fill (cr);
          x = MIN (x + v, MAX_MAGNITUDE);
          any = TRUE;
        }
      for (guint i = 0; i < data->series->len; i++)
        {
          const TbChartSeries *s = g_ptr_array_index (data->series, i);
          double v = stacked_value (s, c);

          if (!s->marker || !isfinite (v))
            continue;
          double px = round (_tb_chart_map_x (l, v)) + 0.5;

          /* outlined, so it shows on a bar of its own colour */
          cairo_set_line_width (cr, 4);
          _tb_chart_set_rgb (cr, data->dark ? 0x1e1e1e : 0xffffff, 1);
          cairo_move_to (cr, px, y - 5);
          cairo_line_to (cr, px, y + bar + 5);
          cairo_stroke (cr);
          cairo_set_line_width (cr, 2);
          _tb_chart_set_rgb (cr, s->color, 1);
          cairo_move_to (cr, px, y - 5);
          cairo_line_to (cr, px, y + bar + 5);
          cairo_stroke (cr);
          cairo_set_line_width (cr, 1);
          any = TRUE;
        }
      if (!any)
        {
          _tb_chart_set_rgb (cr, fg, 0.5);
          _tb_chart_draw_text (cr, data->missing_text != NULL ? data->missing_text : _("No data"),
                               l->left + 6, mid, 0, 0.5, FALSE);
        }
    }
}

/* Hover at pixel row py: the row it is in. */
gboolean
_tb_chart_stacked_pick (TbChartData         *data,
                        const TbChartLayout *l,
                        double               py)
{
  double row = (l->bottom - l->top) / MAX (data->categories->len, 1);

  data->hover_category = (int) ((py - l->top) / row);
  return data->hover_category >= 0 && data->hover_category < (int) data->categories->len;
}
