/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-chart-lines.c: line charts (curves over steps or epochs, a sweep's
 * speeds over sizes): each series a line, a dot at each point where they
 * are few, a pixel column's range where they are more than the pixels; the
 * hover's nearest point and its read-out.
 */
#define G_LOG_DOMAIN "trainbench-chart"

#include <math.h>

#include "tb-chart-private.h"

void
_tb_chart_draw_lines (cairo_t             *cr,
                      const TbChartData   *data,
                      const TbChartLayout *l)
{
  cairo_save (cr);
  cairo_rectangle (cr, l->left, l->top - 2, l->right - l->left + 2, l->bottom - l->top + 4);
  cairo_clip (cr);
  cairo_set_line_width (cr, 2);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);

  for (guint i = 0; i < data->series->len; i++)
    {
      const TbChartSeries *s = g_ptr_array_index (data->series, i);
      guint n = MIN (s->x->len, s->y->len);
      gboolean pen_down = FALSE;

      _tb_chart_set_rgb (cr, s->color, 1);
      if (n > 2 * (l->right - l->left))
        {
          /* more points than pixels (a long run's loss per step): draw each
           * pixel column's range, so the chart stays fast and keeps its
           * spread */
          int column = G_MININT;
          double lo = 0, hi = 0;

          for (guint j = 0; j <= n; j++)
            {
              double y = j < n ? g_array_index (s->y, double, j) : NAN;
              double x = j < n ? g_array_index (s->x, double, j) : NAN;
              int px = j < n ? (int) floor (_tb_chart_map_x (l, x)) : G_MAXINT;

              if (j < n && (!_tb_chart_plottable (l, y) || !isfinite (x)))
                continue;
              if (px != column || j == n)
                {
                  if (column != G_MININT)
                    {
                      if (pen_down)
                        cairo_line_to (cr, column + 0.5, _tb_chart_map_y (l, lo));
                      else
                        cairo_move_to (cr, column + 0.5, _tb_chart_map_y (l, lo));
                      cairo_line_to (cr, column + 0.5, _tb_chart_map_y (l, hi));
                      pen_down = TRUE;
                    }
                  column = px;
                  lo = hi = y;
                }
              else
                {
                  lo = MIN (lo, y);
                  hi = MAX (hi, y);
                }
            }
          cairo_set_line_width (cr, 1.5);
          cairo_stroke (cr);
          cairo_set_line_width (cr, 2);
          continue;
        }
      for (guint j = 0; j < n; j++)
        {
          double x = g_array_index (s->x, double, j);
          double y = g_array_index (s->y, double, j);

          if (!_tb_chart_plottable (l, y) || !isfinite (x))
            {
              pen_down = FALSE;
              continue;
            }
          if (pen_down)
            cairo_line_to (cr, _tb_chart_map_x (l, x), _tb_chart_map_y (l, y));
          else
            cairo_move_to (cr, _tb_chart_map_x (l, x), _tb_chart_map_y (l, y));
          pen_down = TRUE;
        }
      cairo_stroke (cr);

      /* dots where points are sparse (epochs), so one point is visible */
      if (n > 0 && n <= 40)
        for (guint j = 0; j < n; j++)
          {
            double y = g_array_index (s->y, double, j);

            if (!_tb_chart_plottable (l, y) || !isfinite (g_array_index (s->x, double, j)))
              continue;
            cairo_arc (cr, _tb_chart_map_x (l, g_array_index (s->x, double, j)),
                       _tb_chart_map_y (l, y), 3, 0, 2 * G_PI);
            cairo_fill (cr);
          }
    }
  cairo_restore (cr);
}

/* Nearest x among all series' points to `x`. */
static gboolean
nearest_x (const TbChartData *data,
           double             x,
           gboolean           x_log,
           double            *found)
{
  double best = INFINITY;

  for (guint i = 0; i < data->series->len; i++)
    {
      const TbChartSeries *s = g_ptr_array_index (data->series, i);

      for (guint j = 0; j < s->x->len; j++)
        {
          double v = g_array_index (s->x, double, j);

          /* on a log axis the nearest is the nearest in ratio */
          if (x_log ? (v > 0 && (!isfinite (best) || fabs (log (v / x)) < fabs (log (best / x))))
                    : fabs (v - x) < fabs (best - x))
            best = v;
        }
    }
  *found = best;
  return isfinite (best);
}

/* Value of a series at the point nearest to x (lines). */
static gboolean
series_value_near (const TbChartSeries *s,
                   double               x,
                   double              *y)
{
  double best_d = INFINITY;

  for (guint j = 0; j < MIN (s->x->len, s->y->len); j++)
    {
      double d = fabs (g_array_index (s->x, double, j) - x);

      if (d < best_d)
        {
          best_d = d;
          *y = g_array_index (s->y, double, j);
        }
    }
  return isfinite (best_d);
}

/* Hover at pixel column px: the point nearest to it, in ratio on a log
 * axis. */
gboolean
_tb_chart_lines_pick (TbChartData         *data,
                      const TbChartLayout *l,
                      double               px)
{
  double f = (px - l->left) / (l->right - l->left);
  double x = l->x_log ? pow (10, log10 (l->x_min) + f * (log10 (l->x_max) - log10 (l->x_min)))
                      : l->x_min + f * (l->x_max - l->x_min);

  return nearest_x (data, x, l->x_log, &data->hover_x);
}

/* "x 3", then each series' value at its point nearest to data->hover_x. */
char *
_tb_chart_lines_hover_text (const TbChartData *data)
{
  GString *text = g_string_new (NULL);
  g_autofree char *xs = _tb_chart_format_value (data->hover_x);

  g_string_append_printf (text, "%s %s", data->x_label ? data->x_label : "x", xs);
  for (guint i = 0; i < data->series->len; i++)
    {
      const TbChartSeries *s = g_ptr_array_index (data->series, i);
      double y = NAN;

      if (series_value_near (s, data->hover_x, &y) && isfinite (y))
        {
          g_autofree char *ys = _tb_chart_format_value (y);

          g_string_append_printf (text, "\n%s: %s", s->label, ys);
        }
    }
  return g_string_free (text, FALSE);
}
