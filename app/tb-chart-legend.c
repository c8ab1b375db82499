/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-chart-legend.c: the legend of a chart's series under its title: a
 * swatch (or a marker's line) and a label each, in rows that fit the width.
 */
#define G_LOG_DOMAIN "trainbench-chart"

#include <math.h>

#include "tb-chart-private.h"

/* Where the legend's first row is: under the title. */
double
_tb_chart_legend_top (int lines)
{
  return PAD + FONT_SIZE_PX * 1.6 * lines;
}

/* Lay the legend out in rows that fit the width; draws when `draw`.
 * Returns the number of rows. */
int
_tb_chart_legend_pass (cairo_t           *cr,
                       const TbChartData *data,
                       int                width,
                       int                title,
                       gboolean           draw)
{
  double x0 = PAD * 2 + 40;
  double x = x0;
  int rows = data->series->len > 0 ? 1 : 0;

  for (guint i = 0; i < data->series->len; i++)
    {
      const TbChartSeries *s = g_ptr_array_index (data->series, i);
      int room = (int) (width - PAD - x0 - 16);
      int w = MIN (_tb_chart_text_width (cr, s->label), MAX (room, 20));
      double y;

      if (x + 16 + w > width - PAD && x > x0)
        {
          x = x0;
          rows++;
        }
      y = _tb_chart_legend_top (title) + FONT_SIZE_PX * 1.6 * (rows - 1) + FONT_SIZE_PX * 0.8;
      if (draw)
        {
          _tb_chart_set_rgb (cr, s->color, 1);
          if (s->marker)
            {
              /* as the stacked chart draws it: a line across the row */
              cairo_set_line_width (cr, 2);
              cairo_move_to (cr, x + 6, y - 6);
              cairo_line_to (cr, x + 6, y + 6);
              cairo_stroke (cr);
            }
          else
            {
              cairo_rectangle (cr, x, y - 5, 12, 10);
              cairo_fill (cr);
            }
          PangoLayout *pl = _tb_chart_make_layout (cr, s->label, FONT_SIZE_PX, FALSE);
          int lw, lh;

          /* a label longer than the chart is wide ends in "…" */
          pango_layout_set_width (pl, w * PANGO_SCALE);
          pango_layout_set_ellipsize (pl, PANGO_ELLIPSIZE_END);
          pango_layout_get_pixel_size (pl, &lw, &lh);
          _tb_chart_set_rgb (cr, _tb_chart_fg_color (data), 0.9);
          cairo_move_to (cr, round (x + 16), round (y - lh / 2.0));
          pango_cairo_show_layout (cr, pl);
          g_object_unref (pl);
        }
      x += 16 + w + 14;
    }
  return rows;
}

void
_tb_chart_draw_legend (cairo_t           *cr,
                       const TbChartData *data,
                       int                width)
{
  _tb_chart_legend_pass (cr, data, width, _tb_chart_title_lines (cr, data, width), TRUE);
}
