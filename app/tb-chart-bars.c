/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-chart-bars.c: grouped bar charts (seconds per epoch by device): a
 * group per category, a bar per series, each with its note ("×3.2") above
 * it or inside its top; the hovered category and its read-out, which the
 * stacked chart's rows share.
 */
#define G_LOG_DOMAIN "trainbench-chart"

#include <math.h>

#include "tb-chart-private.h"

static void
bar_geometry (const TbChartData   *data,
              const TbChartLayout *l,
              guint                category,
              guint                series,
              double              *x,
              double              *w)
{
  double group = (l->right - l->left) / MAX (data->categories->len, 1);
  double inner = group * 0.8;
  double bw = inner / MAX (data->series->len, 1);

  *x = l->left + category * group + (group - inner) / 2 + series * bw;
  *w = MAX (bw - 2, 1);
}

/* A bar's note ("26× faster"), centred over the bar and wrapped to its
 * width (but no narrower than a short word): above the bar, or inside
 * its top, in a colour that reads on it, when the plot has no room above. */
static void
draw_note (cairo_t             *cr,
           const TbChartData   *data,
           const TbChartLayout *l,
           const char          *note,
           guint32              color,
           double               x,
           double               w,
           double               top,
           double               height)
{
  PangoLayout *pl = _tb_chart_make_layout (cr, note, FONT_SIZE_PX, TRUE);
  double room = MAX (w + 2, 44);
  double r = (color >> 16) & 0xff, g = (color >> 8) & 0xff, b = color & 0xff;
  int nw, nh;
  double y;

  pango_layout_set_width (pl, (int) room * PANGO_SCALE);
  pango_layout_set_wrap (pl, PANGO_WRAP_WORD_CHAR);
  pango_layout_set_alignment (pl, PANGO_ALIGN_CENTER);
  pango_layout_get_pixel_size (pl, &nw, &nh);
  y = top - nh - 2;
  if (y >= l->top - 2 || height < nh + 4)
    _tb_chart_set_rgb (cr, _tb_chart_fg_color (data), 0.9);
  else
    {
      y = top + 2;
      /* dark text on light bars (yellow), white on the others */
      _tb_chart_set_rgb (cr, 0.299 * r + 0.587 * g + 0.114 * b > 160 ? 0x241f31 : 0xffffff, 1);
    }
  cairo_move_to (cr, round (x + w / 2 - room / 2), round (y));
  pango_cairo_show_layout (cr, pl);
  g_object_unref (pl);
}

void
_tb_chart_draw_bars (cairo_t             *cr,
                     const TbChartData   *data,
                     const TbChartLayout *l)
{
  for (guint c = 0; c < data->categories->len; c++)
    {
      if ((int) c == data->hover_category && data->hover_active)
        {
          double group = (l->right - l->left) / MAX (data->categories->len, 1);

          _tb_chart_set_rgb (cr, _tb_chart_fg_color (data), 0.06);
          cairo_rectangle (cr, l->left + c * group, l->top, group, l->bottom - l->top);
          cairo_fill (cr);
        }
      for (guint i = 0; i < data->series->len; i++)
        {
          const TbChartSeries *s = g_ptr_array_index (data->series, i);
          double value, x, w, y0, y1;
          const char *note;

          if (c >= s->y->len)
            continue;
          value = g_array_index (s->y, double, c);
          if (!_tb_chart_plottable (l, value))
            continue;
          bar_geometry (data, l, c, i, &x, &w);
          /* on a log scale there is no 0: bars stand on the axis */
          y0 = l->y_log ? l->bottom : _tb_chart_map_y (l, MAX (l->y_min, 0));
          y1 = _tb_chart_map_y (l, value);
          _tb_chart_set_rgb (cr, s->color, 1);
          cairo_rectangle (cr, round (x), MIN (y0, y1), round (w), fabs (y0 - y1));
          cairo_fill (cr);
          note = c < s->notes->len ? g_ptr_array_index (s->notes, c) : NULL;
          if (note != NULL)
            draw_note (cr, data, l, note, s->color, x, w, MIN (y0, y1), fabs (y0 - y1));
        }
    }
}

/* Hover at pixel column px: the category whose group it is in. */
gboolean
_tb_chart_bars_pick (TbChartData         *data,
                     const TbChartLayout *l,
                     double               px)
{
  double group = (l->right - l->left) / MAX (data->categories->len, 1);

  data->hover_category = (int) ((px - l->left) / group);
  return data->hover_category >= 0 && data->hover_category < (int) data->categories->len;
}

/* The category's label, then each series' value in it with its note;
 * empty when data->hover_category is no category. */
char *
_tb_chart_bars_hover_text (const TbChartData *data)
{
  GString *text = g_string_new (NULL);

  if (data->hover_category >= 0 && data->hover_category < (int) data->categories->len)
    {
      g_string_append (text, g_ptr_array_index (data->categories, data->hover_category));
      for (guint i = 0; i < data->series->len; i++)
        {
          const TbChartSeries *s = g_ptr_array_index (data->series, i);
          double y = NAN;
          const char *note;

          if ((guint) data->hover_category >= s->y->len)
            continue;
          y = g_array_index (s->y, double, data->hover_category);
          if (!isfinite (y))
            continue;
          {
            g_autofree char *ys = _tb_chart_format_value (y);

            note = g_ptr_array_index (s->notes, data->hover_category);
            g_string_append_printf (text, "\n%s: %s%s%s", s->label, ys,
                                    note ? "  " : "", note ? note : "");
          }
        }
    }
  return g_string_free (text, FALSE);
}
