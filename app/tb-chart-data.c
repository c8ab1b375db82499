/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-chart-data.c: a chart's data: its series (x/y points, or a value and a
 * note per category), categories and settings, the palette they are drawn
 * in, and whether its y axis is on a log scale.
 */
#define G_LOG_DOMAIN "trainbench-chart"

#include <math.h>

#include "tb-chart-private.h"

static const guint32 palette[] = {
  0x3584e4, /* blue */
  0xe66100, /* orange */
  0x26a269, /* green */
  0x9141ac, /* purple */
  0xc01c28, /* red */
  0x986a44, /* brown */
  0x1c71d8, /* dark blue */
  0xe5a50a, /* yellow */
};

guint32
tb_chart_palette (guint index)
{
  return palette[index % G_N_ELEMENTS (palette)];
}

static void
series_free (gpointer p)
{
  TbChartSeries *s = p;

  g_free (s->label);
  g_array_unref (s->x);
  g_array_unref (s->y);
  g_ptr_array_unref (s->notes);
  g_free (s);
}

TbChartData *
tb_chart_data_new (TbChartKind  kind,
                   const char  *title,
                   const char  *x_label,
                   const char  *y_label)
{
  TbChartData *data = g_new0 (TbChartData, 1);

  data->kind = kind;
  data->title = g_strdup (title);
  data->x_label = g_strdup (x_label);
  data->y_label = g_strdup (y_label);
  data->series = g_ptr_array_new_with_free_func (series_free);
  data->categories = g_ptr_array_new_with_free_func (g_free);
  data->y_from_zero = kind == TB_CHART_BARS;
  data->y_ceiling = NAN;
  data->hover_category = -1;
  return data;
}

void
tb_chart_data_free (TbChartData *data)
{
  if (data == NULL)
    return;
  g_free (data->title);
  g_free (data->x_label);
  g_free (data->y_label);
  g_free (data->missing_text);
  g_ptr_array_unref (data->series);
  g_ptr_array_unref (data->categories);
  _tb_chart_grid_free (data->grid);
  g_free (data);
}

TbChartData *
tb_chart_data_copy (const TbChartData *data)
{
  TbChartData *copy;

  g_return_val_if_fail (data != NULL, NULL);

  copy = tb_chart_data_new (data->kind, data->title, data->x_label, data->y_label);
  copy->y_from_zero = data->y_from_zero;
  copy->y_ceiling = data->y_ceiling;
  copy->y_scale = data->y_scale;
  copy->x_integer = data->x_integer;
  copy->x_log = data->x_log;
  copy->grid = _tb_chart_grid_copy (data->grid);
  copy->dark = data->dark;
  copy->missing_text = g_strdup (data->missing_text);
  for (guint i = 0; i < data->categories->len; i++)
    g_ptr_array_add (copy->categories, g_strdup (g_ptr_array_index (data->categories, i)));
  for (guint i = 0; i < data->series->len; i++)
    {
      const TbChartSeries *s = g_ptr_array_index (data->series, i);
      TbChartSeries *c = tb_chart_data_add_series (copy, s->label, s->color);

      c->marker = s->marker;
      g_array_append_vals (c->x, s->x->data, s->x->len);
      g_array_append_vals (c->y, s->y->data, s->y->len);
      for (guint j = 0; j < s->notes->len; j++)
        g_ptr_array_add (c->notes, g_strdup (g_ptr_array_index (s->notes, j)));
    }
  return copy;
}

TbChartSeries *
tb_chart_data_add_series (TbChartData *data,
                          const char  *label,
                          guint32      color)
{
  TbChartSeries *s;

  g_return_val_if_fail (data != NULL, NULL);

  s = g_new0 (TbChartSeries, 1);
  s->label = g_strdup (label);
  s->color = color != 0 ? color : tb_chart_palette (data->series->len);
  s->x = g_array_new (FALSE, FALSE, sizeof (double));
  s->y = g_array_new (FALSE, FALSE, sizeof (double));
  s->notes = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (data->series, s);
  return s;
}

void
tb_chart_series_append (TbChartSeries *series,
                        double         x,
                        double         y)
{
  g_return_if_fail (series != NULL);

  g_array_append_val (series->x, x);
  g_array_append_val (series->y, y);
}

guint
tb_chart_data_add_category (TbChartData *data,
                            const char  *label)
{
  g_return_val_if_fail (data != NULL, 0);

  g_ptr_array_add (data->categories, g_strdup (label));
  return data->categories->len - 1;
}

void
tb_chart_series_set_bar (TbChartSeries *series,
                         guint          category,
                         double         value,
                         const char    *note)
{
  double none = NAN;

  g_return_if_fail (series != NULL);

  while (series->y->len <= category)
    {
      g_array_append_val (series->y, none);
      g_ptr_array_add (series->notes, NULL);
    }
  g_array_index (series->y, double, category) = value;
  g_free (g_ptr_array_index (series->notes, category));
  g_ptr_array_index (series->notes, category) = g_strdup (note);
}

guint
tb_chart_data_count_points (const TbChartData *data)
{
  guint n = 0;

  g_return_val_if_fail (data != NULL, 0);

  for (guint i = 0; i < data->series->len; i++)
    {
      const TbChartSeries *s = g_ptr_array_index (data->series, i);

      for (guint j = 0; j < s->y->len; j++)
        if (isfinite (g_array_index (s->y, double, j)))
          n++;
    }
  return n;
}

/* The smallest and largest value above 0 (within MAX_MAGNITUDE); FALSE
 * when there is none. */
gboolean
_tb_chart_positive_range (const TbChartData *data,
                          double            *lo,
                          double            *hi)
{
  *lo = INFINITY;
  *hi = 0;
  for (guint i = 0; i < data->series->len; i++)
    {
      const TbChartSeries *s = g_ptr_array_index (data->series, i);

      for (guint j = 0; j < s->y->len; j++)
        {
          double y = g_array_index (s->y, double, j);

          if (data->kind == TB_CHART_LINES && !(j < s->x->len && isfinite (g_array_index (s->x, double, j))))
            continue;
          if (!(y > 0) || !isfinite (y))
            continue;
          y = CLAMP (y, MIN_MAGNITUDE, MAX_MAGNITUDE);
          *lo = MIN (*lo, y);
          *hi = MAX (*hi, y);
        }
    }
  return *hi > 0;
}

gboolean
tb_chart_data_is_log (const TbChartData *data)
{
  double lo, hi;

  g_return_val_if_fail (data != NULL, FALSE);

  if (data->y_scale == TB_CHART_SCALE_LINEAR || !_tb_chart_positive_range (data, &lo, &hi))
    return FALSE;
  if (data->y_scale == TB_CHART_SCALE_LOG)
    return TRUE;
  /* bars, and lines over a log x axis (a sweep's speeds over sizes 64
   * times apart), which span as much */
  return (data->kind == TB_CHART_BARS || (data->kind == TB_CHART_LINES && data->x_log))
         && hi >= lo * TB_CHART_LOG_RATIO;
}
