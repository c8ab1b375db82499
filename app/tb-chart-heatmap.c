/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-chart-heatmap.c: heat maps (a sweep's GPU-over-CPU speed ratio over
 * two axes): a grid of cells on a log colour scale that diverges from its
 * center, the scale under the title, the line where the values cross the
 * center (marching squares between the cells' centres) named on both
 * sides, and the hovered cell's read-out.
 */
#define G_LOG_DOMAIN "trainbench-chart"

#include "tb-config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "tb-chart-private.h"

void
_tb_chart_grid_free (TbChartGrid *grid)
{
  if (grid == NULL)
    return;
  g_ptr_array_unref (grid->x_labels);
  g_ptr_array_unref (grid->y_labels);
  g_array_unref (grid->cells);
  g_ptr_array_unref (grid->notes);
  g_free (grid->low_label);
  g_free (grid->high_label);
  g_free (grid);
}

static TbChartGrid *
grid_new (guint  n_x,
          guint  n_y,
          double center)
{
  TbChartGrid *grid = g_new0 (TbChartGrid, 1);
  double none = NAN;

  grid->n_x = n_x;
  grid->n_y = n_y;
  grid->center = center;
  grid->x_labels = g_ptr_array_new_with_free_func (g_free);
  grid->y_labels = g_ptr_array_new_with_free_func (g_free);
  grid->cells = g_array_new (FALSE, FALSE, sizeof (double));
  grid->notes = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < n_x; i++)
    g_ptr_array_add (grid->x_labels, g_strdup (""));
  for (guint i = 0; i < n_y; i++)
    g_ptr_array_add (grid->y_labels, g_strdup (""));
  for (guint i = 0; i < n_x * n_y; i++)
    {
      g_array_append_val (grid->cells, none);
      g_ptr_array_add (grid->notes, NULL);
    }
  grid->low_color = 0xe66100;  /* orange */
  grid->high_color = 0x1c71d8; /* blue: apart for colour-blind eyes too */
  return grid;
}

TbChartGrid *
_tb_chart_grid_copy (const TbChartGrid *grid)
{
  TbChartGrid *copy;

  if (grid == NULL)
    return NULL;
  copy = grid_new (grid->n_x, grid->n_y, grid->center);
  for (guint i = 0; i < grid->n_x; i++)
    {
      g_free (g_ptr_array_index (copy->x_labels, i));
      g_ptr_array_index (copy->x_labels, i) = g_strdup (g_ptr_array_index (grid->x_labels, i));
    }
  for (guint i = 0; i < grid->n_y; i++)
    {
      g_free (g_ptr_array_index (copy->y_labels, i));
      g_ptr_array_index (copy->y_labels, i) = g_strdup (g_ptr_array_index (grid->y_labels, i));
    }
  for (guint i = 0; i < grid->n_x * grid->n_y; i++)
    tb_chart_grid_set_cell (copy, i % grid->n_x, i / grid->n_x,
                            g_array_index (grid->cells, double, i), g_ptr_array_index (grid->notes, i));
  copy->low_label = g_strdup (grid->low_label);
  copy->high_label = g_strdup (grid->high_label);
  copy->low_color = grid->low_color;
  copy->high_color = grid->high_color;
  return copy;
}

/* The most cells a heat map draws a side: a sweep has at most 32 values
 * an axis; more would be cells of a pixel. */
#define HEAT_MAX_SIDE 256

TbChartGrid *
tb_chart_data_set_grid (TbChartData *data,
                        guint        n_x,
                        guint        n_y,
                        double       center)
{
  g_return_val_if_fail (data != NULL, NULL);
  g_return_val_if_fail (data->kind == TB_CHART_HEATMAP, NULL);
  g_return_val_if_fail (center > 0, NULL);

  _tb_chart_grid_free (data->grid);
  data->grid = grid_new (MIN (n_x, HEAT_MAX_SIDE), MIN (n_y, HEAT_MAX_SIDE), center);
  return data->grid;
}

void
tb_chart_grid_set_cell (TbChartGrid *grid,
                        guint        col,
                        guint        row,
                        double       value,
                        const char  *note)
{
  guint i;

  g_return_if_fail (grid != NULL);

  if (col >= grid->n_x || row >= grid->n_y)
    return;
  i = row * grid->n_x + col;
  g_array_index (grid->cells, double, i) = value;
  g_free (g_ptr_array_index (grid->notes, i));
  g_ptr_array_index (grid->notes, i) = g_strdup (note);
}

static double
cell_value (const TbChartGrid *grid,
            guint              col,
            guint              row)
{
  return g_array_index (grid->cells, double, row * grid->n_x + col);
}

/* The value's distance from center on the log scale; NAN when it has none. */
static double
heat_field (const TbChartGrid *grid,
            double             value)
{
  if (!(value > 0) || !isfinite (value))
    return NAN;
  return log (value / grid->center);
}

double
tb_chart_grid_span (const TbChartGrid *grid)
{
  double most = log (2);

  g_return_val_if_fail (grid != NULL, 2);

  for (guint i = 0; i < grid->cells->len; i++)
    {
      double f = heat_field (grid, g_array_index (grid->cells, double, i));

      if (isfinite (f))
        most = MAX (most, fabs (f));
    }
  return exp (MIN (most, log (100)));
}

static guint32
mix_color (guint32 a,
           guint32 b,
           double  t)
{
  guint32 out = 0;

  for (int shift = 16; shift >= 0; shift -= 8)
    {
      double ca = (a >> shift) & 0xff, cb = (b >> shift) & 0xff;

      out |= (guint32) lround (ca + (cb - ca) * t) << shift;
    }
  return out;
}

guint32
tb_chart_grid_color (const TbChartGrid *grid,
                     double             value,
                     double             span,
                     gboolean           dark)
{
  guint32 neutral = dark ? 0x3d3846 : 0xf6f5f4;
  double f, t;

  g_return_val_if_fail (grid != NULL, neutral);

  f = heat_field (grid, value);
  if (!isfinite (f))
    return dark ? 0x5e5c64 : 0xc0bfbc;
  t = CLAMP (f / log (MAX (span, 1.0001)), -1, 1);
  /* a square root, so a ratio of 1.3 already shows which side it is on */
  return mix_color (neutral, t < 0 ? grid->low_color : grid->high_color, sqrt (fabs (t)));
}

/* The colour scale's height above the plot: a bar and its labels. */
#define HEAT_LEGEND_HEIGHT (FONT_SIZE_PX * 3.4)

gboolean
_tb_chart_heat_layout (const TbChartData *data,
                       int                width,
                       int                height,
                       TbChartLayout     *layout)
{
  const TbChartGrid *grid = data->grid;
  cairo_t *cr = _tb_chart_scratch_cr ();
  int lines = _tb_chart_title_lines (cr, data, width);

  cairo_destroy (cr);
  layout->left = PAD + FONT_SIZE_PX * 1.5 + 44;
  layout->right = width - PAD * 2;
  layout->top = _tb_chart_legend_top (lines) + HEAT_LEGEND_HEIGHT + 4;
  layout->bottom = height - (PAD + FONT_SIZE_PX * 3.2);
  layout->x_min = 0;
  layout->x_max = grid != NULL ? MAX (grid->n_x, 1) : 1;
  layout->y_min = 0;
  layout->y_max = grid != NULL ? MAX (grid->n_y, 1) : 1;
  layout->y_log = FALSE;
  layout->x_log = FALSE;
  return grid != NULL && grid->n_x > 0 && grid->n_y > 0;
}

gboolean
tb_chart_grid_cell_rect (const TbChartData *data,
                         int                width,
                         int                height,
                         guint              col,
                         guint              row,
                         double            *x,
                         double            *y,
                         double            *w,
                         double            *h)
{
  TbChartLayout l;

  g_return_val_if_fail (data != NULL, FALSE);

  if (data->kind != TB_CHART_HEATMAP || !tb_chart_compute_layout (data, width, height, &l)
      || col >= data->grid->n_x || row >= data->grid->n_y)
    return FALSE;
  *x = _tb_chart_map_x (&l, col);
  *w = _tb_chart_map_x (&l, col + 1) - *x;
  *y = _tb_chart_map_y (&l, row + 1);
  *h = _tb_chart_map_y (&l, row) - *y;
  return TRUE;
}

/* The crossing between two cell centres a and b (grid units) whose fields
 * fa and fb have opposite signs: where the log of the value is 0, on a
 * straight line between them. */
static void
crossing_point (double  ax,
                double  ay,
                double  fa,
                double  bx,
                double  by,
                double  fb,
                double *x,
                double *y)
{
  double t = fa / (fa - fb);

  *x = ax + (bx - ax) * t;
  *y = ay + (by - ay) * t;
}

static gboolean
opposite (double a,
          double b)
{
  return isfinite (a) && isfinite (b) && ((a >= 0) != (b >= 0));
}

static void
add_segment (GArray *out,
             double  x0,
             double  y0,
             double  x1,
             double  y1,
             double  hx,
             double  hy)
{
  double len = hypot (hx, hy);
  TbChartSegment seg = { x0, y0, x1, y1, len > 0 ? hx / len : 0, len > 0 ? hy / len : 0 };

  g_array_append_val (out, seg);
}

TbChartSegment *
tb_chart_grid_crossing (const TbChartGrid *grid,
                        guint             *n_segments)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (TbChartSegment));
  guint nx, ny;

  g_return_val_if_fail (grid != NULL, NULL);
  g_return_val_if_fail (n_segments != NULL, NULL);

  nx = grid->n_x;
  ny = grid->n_y;
#define F(c, r) heat_field (grid, cell_value (grid, (c), (r)))
  /* between the centres of four cells: marching squares on the log of the
   * values, a saddle split by the mean of its corners */
  for (guint r = 0; r + 1 < ny; r++)
    for (guint c = 0; c + 1 < nx; c++)
      {
        double f[4] = { F (c, r), F (c + 1, r), F (c + 1, r + 1), F (c, r + 1) };
        double cx[4] = { c + 0.5, c + 1.5, c + 1.5, c + 0.5 };
        double cy[4] = { r + 0.5, r + 0.5, r + 1.5, r + 1.5 };
        double px[4], py[4];
        int edges[4], n = 0;

        if (!isfinite (f[0]) || !isfinite (f[1]) || !isfinite (f[2]) || !isfinite (f[3]))
          continue;
        for (int e = 0; e < 4; e++)
          if (opposite (f[e], f[(e + 1) % 4]))
            {
              crossing_point (cx[e], cy[e], f[e], cx[(e + 1) % 4], cy[(e + 1) % 4], f[(e + 1) % 4], &px[n], &py[n]);
              edges[n++] = e;
            }
        /* the gradient of the bilinear field: towards the higher values */
        {
          double gx = (f[1] - f[0] + f[2] - f[3]) / 2, gy = (f[3] - f[0] + f[2] - f[1]) / 2;

          if (n == 2)
            add_segment (out, px[0], py[0], px[1], py[1], gx, gy);
          else if (n == 4)
            {
              double mean = (f[0] + f[1] + f[2] + f[3]) / 4;
              /* the corner 0's side joins its own edges when the middle
               * is on the other side */
              gboolean keep_zero = (mean >= 0) != (f[0] >= 0);

              (void) edges;
              if (keep_zero)
                {
                  add_segment (out, px[3], py[3], px[0], py[0], gx, gy);
                  add_segment (out, px[1], py[1], px[2], py[2], gx, gy);
                }
              else
                {
                  add_segment (out, px[0], py[0], px[1], py[1], gx, gy);
                  add_segment (out, px[2], py[2], px[3], py[3], gx, gy);
                }
            }
        }
      }
  /* from the outer cells' centres to the grid's edge, so the line runs
   * across the whole map (and a single row or column has one at all) */
  for (guint c = 0; c + 1 < nx; c++)
    {
      guint rows[2] = { 0, ny - 1 };

      for (guint k = 0; k < (ny > 1 ? 2u : 1u); k++)
        {
          guint r = rows[k];
          double a = F (c, r), b = F (c + 1, r), x, y;
          double edge = k == 0 ? 0 : ny, mid = r + 0.5;

          if (!opposite (a, b))
            continue;
          crossing_point (c + 0.5, mid, a, c + 1.5, mid, b, &x, &y);
          if (ny == 1)
            add_segment (out, x, 0, x, 1, b - a, 0);
          else
            add_segment (out, x, mid, x, edge, b - a, 0);
        }
    }
  for (guint r = 0; r + 1 < ny; r++)
    {
      guint cols[2] = { 0, nx - 1 };

      for (guint k = 0; k < (nx > 1 ? 2u : 1u); k++)
        {
          guint c = cols[k];
          double a = F (c, r), b = F (c, r + 1), x, y;
          double edge = k == 0 ? 0 : nx, mid = c + 0.5;

          if (!opposite (a, b))
            continue;
          crossing_point (mid, r + 0.5, a, mid, r + 1.5, b, &x, &y);
          if (nx == 1)
            add_segment (out, 0, y, 1, y, 0, b - a);
          else
            add_segment (out, mid, y, edge, y, 0, b - a);
        }
    }
#undef F
  *n_segments = out->len;
  return (TbChartSegment *) g_array_free (out, FALSE);
}

/* "3.2×", "0.45×" */
static char *
format_ratio (double value)
{
  if (value >= 10)
    return g_strdup_printf ("%.0f×", value);
  if (value >= 0.1)
    return g_strdup_printf ("%.2g×", value);
  return g_strdup_printf ("%.1g×", value);
}

/* Diagonal lines over a missing cell, so it reads as "no value" in print
 * too. */
static void
hatch (cairo_t  *cr,
       double    x,
       double    y,
       double    w,
       double    h,
       guint32   color)
{
  cairo_save (cr);
  cairo_rectangle (cr, x, y, w, h);
  cairo_clip (cr);
  _tb_chart_set_rgb (cr, color, 0.35);
  cairo_set_line_width (cr, 1);
  for (double d = -h; d < w; d += 8)
    {
      cairo_move_to (cr, x + d, y + h);
      cairo_line_to (cr, x + d + h, y);
    }
  cairo_stroke (cr);
  cairo_restore (cr);
}

/* The colour scale under the title: the low label, a bar from the low
 * colour through the neutral one to the high colour, the high label, and
 * the values at its ends and middle. */
static void
draw_heat_legend (cairo_t           *cr,
                  const TbChartData *data,
                  int                width,
                  double             span)
{
  const TbChartGrid *grid = data->grid;
  double top = _tb_chart_legend_top (_tb_chart_title_lines (cr, data, width)) + 2;
  int low_w = _tb_chart_text_width (cr, grid->low_label);
  int high_w = _tb_chart_text_width (cr, grid->high_label);
  double bar_w = CLAMP (width - PAD * 4 - 40 - low_w - high_w - 24, 40, 240);
  double x = PAD * 2 + 40;
  double bar_x = x + low_w + 8;
  double bar_h = FONT_SIZE_PX;
  cairo_pattern_t *gradient = cairo_pattern_create_linear (bar_x, 0, bar_x + bar_w, 0);

  _tb_chart_set_rgb (cr, _tb_chart_fg_color (data), 0.9);
  _tb_chart_draw_text (cr, grid->low_label, x, top + bar_h / 2, 0, 0.5, FALSE);
  _tb_chart_draw_text (cr, grid->high_label, bar_x + bar_w + 8, top + bar_h / 2, 0, 0.5, FALSE);
  for (int i = 0; i <= 16; i++)
    {
      double t = i / 16.0 * 2 - 1;
      guint32 c = tb_chart_grid_color (grid, grid->center * pow (span, t), span, data->dark);

      cairo_pattern_add_color_stop_rgb (gradient, i / 16.0,
                                        ((c >> 16) & 0xff) / 255.0, ((c >> 8) & 0xff) / 255.0, (c & 0xff) / 255.0);
    }
  cairo_rectangle (cr, bar_x, top, bar_w, bar_h);
  cairo_set_source (cr, gradient);
  cairo_fill (cr);
  cairo_pattern_destroy (gradient);
  _tb_chart_set_rgb (cr, _tb_chart_fg_color (data), 0.3);
  cairo_set_line_width (cr, 1);
  cairo_rectangle (cr, round (bar_x) + 0.5, round (top) + 0.5, round (bar_w), round (bar_h));
  cairo_stroke (cr);

  _tb_chart_set_rgb (cr, _tb_chart_fg_color (data), 0.8);
  for (int k = -1; k <= 1; k++)
    {
      g_autofree char *label = format_ratio (grid->center * pow (span, k));

      /* TRANSLATORS: the low end of a colour scale of speed ratios, "≤0.1×" */
      if (k == -1)
        {
          g_autofree char *end = g_strdup_printf (_("≤%s"), label);
          _tb_chart_draw_text (cr, end, bar_x, top + bar_h + 2, 0, 0, FALSE);
        }
      else if (k == 1)
        {
          /* TRANSLATORS: the high end of a colour scale of speed ratios, "≥10×" */
          g_autofree char *end = g_strdup_printf (_("≥%s"), label);
          _tb_chart_draw_text (cr, end, bar_x + bar_w, top + bar_h + 2, 1, 0, FALSE);
        }
      else
        _tb_chart_draw_text (cr, label, bar_x + bar_w / 2, top + bar_h + 2, 0.5, 0, FALSE);
    }
}

void
_tb_chart_draw_heat (cairo_t             *cr,
                     const TbChartData   *data,
                     const TbChartLayout *l,
                     int                  width,
                     int                  height,
                     gboolean             has_data)
{
  const TbChartGrid *grid = data->grid;
  guint32 fg = _tb_chart_fg_color (data);
  g_autofree TbChartSegment *segments = NULL;
  guint n_segments = 0;
  double span;

  if (!has_data)
    {
      _tb_chart_set_rgb (cr, fg, 0.5);
      _tb_chart_draw_text (cr, _("No data yet"), (l->left + l->right) / 2, (l->top + l->bottom) / 2,
                           0.5, 0.5, FALSE);
      return;
    }
  span = tb_chart_grid_span (grid);
  draw_heat_legend (cr, data, width, span);

  for (guint r = 0; r < grid->n_y; r++)
    for (guint c = 0; c < grid->n_x; c++)
      {
        double v = cell_value (grid, c, r);
        double x = _tb_chart_map_x (l, c), y = _tb_chart_map_y (l, r + 1);
        double w = _tb_chart_map_x (l, c + 1) - x, h = _tb_chart_map_y (l, r) - y;
        guint32 color = tb_chart_grid_color (grid, v, span, data->dark);

        _tb_chart_set_rgb (cr, color, 1);
        cairo_rectangle (cr, round (x), round (y), round (x + w) - round (x) - 1, round (y + h) - round (y) - 1);
        cairo_fill (cr);
        if (!isfinite (heat_field (grid, v)))
          {
            hatch (cr, round (x), round (y), round (w) - 1, round (h) - 1, fg);
            continue;
          }
        if (w >= 28 && h >= FONT_SIZE_PX + 4)
          {
            g_autofree char *label = format_ratio (v);
            double r8 = (color >> 16) & 0xff, g8 = (color >> 8) & 0xff, b8 = color & 0xff;

            /* dark text on pale cells, white on strong ones */
            _tb_chart_set_rgb (cr, 0.299 * r8 + 0.587 * g8 + 0.114 * b8 > 150 ? 0x241f31 : 0xffffff,
                               1);
            _tb_chart_draw_text (cr, label, x + w / 2, y + h / 2, 0.5, 0.5, TRUE);
          }
      }
  if (data->hover_active && data->hover_category >= 0)
    {
      guint c = (guint) data->hover_category % grid->n_x, r = (guint) data->hover_category / grid->n_x;
      double x = _tb_chart_map_x (l, c), y = _tb_chart_map_y (l, r + 1);

      _tb_chart_set_rgb (cr, fg, 0.8);
      cairo_set_line_width (cr, 2);
      cairo_rectangle (cr, round (x) + 1, round (y) + 1, round (_tb_chart_map_x (l, c + 1) - x) - 3,
                       round (_tb_chart_map_y (l, r) - y) - 3);
      cairo_stroke (cr);
    }

  /* no cell with a value: the first cell's detail says why ("No GPU in
   * this sweep") over the map */
  {
    gboolean any = FALSE;
    const char *why = grid->notes->len > 0 ? g_ptr_array_index (grid->notes, 0) : NULL;

    for (guint i = 0; i < grid->cells->len && !any; i++)
      any = isfinite (heat_field (grid, g_array_index (grid->cells, double, i)));
    if (!any && why != NULL)
      {
        g_autofree char *line = g_strndup (why, strcspn (why, "\n"));

        _tb_chart_draw_boxed_text (cr, data, line, (l->left + l->right) / 2,
                                   (l->top + l->bottom) / 2);
      }
  }

  /* the crossing: a dark line with a light edge, over every colour */
  segments = tb_chart_grid_crossing (grid, &n_segments);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  for (int pass = 0; pass < 2; pass++)
    {
      _tb_chart_set_rgb (cr, pass == 0 ? 0xffffff : 0x241f31, pass == 0 ? 0.8 : 1);
      cairo_set_line_width (cr, pass == 0 ? 5 : 2.5);
      for (guint i = 0; i < n_segments; i++)
        {
          const TbChartSegment *s = &segments[i];

          cairo_move_to (cr, _tb_chart_map_x (l, s->x0), _tb_chart_map_y (l, s->y0));
          cairo_line_to (cr, _tb_chart_map_x (l, s->x1), _tb_chart_map_y (l, s->y1));
        }
      cairo_stroke (cr);
    }
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_BUTT);
  if (n_segments > 0)
    {
      /* named on both sides where the line is farthest from the cells'
       * own labels (at their centres) */
      const TbChartSegment *s = &segments[0];
      double best = -1;

      for (guint i = 0; i < n_segments; i++)
        {
          double gx = (segments[i].x0 + segments[i].x1) / 2, gy = (segments[i].y0 + segments[i].y1) / 2;
          double cx = floor (gx) + 0.5, cy = floor (gy) + 0.5;
          double d = hypot ((gx - cx) * (_tb_chart_map_x (l, 1) - _tb_chart_map_x (l, 0)),
                            (gy - cy) * (_tb_chart_map_y (l, 0) - _tb_chart_map_y (l, 1)));

          if (d > best)
            {
              best = d;
              s = &segments[i];
            }
        }
      double mx = (_tb_chart_map_x (l, s->x0) + _tb_chart_map_x (l, s->x1)) / 2;
      double my = (_tb_chart_map_y (l, s->y0) + _tb_chart_map_y (l, s->y1)) / 2;
      /* grid y points up, pixels down */
      double dx = s->hx, dy = -s->hy;
      double off = 14 + FONT_SIZE_PX * 3 * fabs (dx);

      _tb_chart_draw_boxed_text (cr, data, grid->high_label,
                                 mx + dx * off, my + dy * (FONT_SIZE_PX + 6));
      _tb_chart_draw_boxed_text (cr, data, grid->low_label,
                                 mx - dx * off, my - dy * (FONT_SIZE_PX + 6));
    }

  /* the axes: a label under each column and beside each row */
  _tb_chart_set_rgb (cr, fg, 0.8);
  for (guint c = 0; c < grid->n_x; c++)
    _tb_chart_draw_text (cr, g_ptr_array_index (grid->x_labels, c),
                         (_tb_chart_map_x (l, c) + _tb_chart_map_x (l, c + 1)) / 2, l->bottom + 5,
                         0.5, 0, FALSE);
  for (guint r = 0; r < grid->n_y; r++)
    _tb_chart_draw_text (cr, g_ptr_array_index (grid->y_labels, r), l->left - 5,
                         (_tb_chart_map_y (l, r) + _tb_chart_map_y (l, r + 1)) / 2, 1, 0.5, FALSE);
  _tb_chart_set_rgb (cr, fg, 0.9);
  if (data->x_label != NULL && *data->x_label)
    _tb_chart_draw_text (cr, data->x_label, (l->left + l->right) / 2, height - PAD,
                         0.5, 1.0, FALSE);
  if (data->y_label != NULL && *data->y_label)
    {
      cairo_save (cr);
      cairo_translate (cr, PAD, (l->top + l->bottom) / 2);
      cairo_rotate (cr, -G_PI / 2);
      _tb_chart_draw_text (cr, data->y_label, 0, 0, 0.5, 0, FALSE);
      cairo_restore (cr);
    }

  if (data->hover_active && data->hover_category >= 0)
    _tb_chart_draw_hover (cr, data, l);
}

char *
_tb_chart_heat_hover_text (const TbChartData *data)
{
  const TbChartGrid *grid = data->grid;
  guint c = (guint) data->hover_category % grid->n_x, r = (guint) data->hover_category / grid->n_x;
  const char *note = g_ptr_array_index (grid->notes, data->hover_category);
  GString *text = g_string_new (NULL);

  g_string_append_printf (text, "%s %s", data->x_label ? data->x_label : "x",
                          (const char *) g_ptr_array_index (grid->x_labels, c));
  if (grid->n_y > 1 || (data->y_label != NULL && *data->y_label))
    g_string_append_printf (text, " · %s %s", data->y_label ? data->y_label : "y",
                            (const char *) g_ptr_array_index (grid->y_labels, r));
  if (note != NULL)
    g_string_append_printf (text, "\n%s", note);
  else if (isfinite (heat_field (grid, cell_value (grid, c, r))))
    {
      g_autofree char *ratio = format_ratio (cell_value (grid, c, r));

      g_string_append_printf (text, "\n%s", ratio);
    }
  else
    g_string_append_printf (text, "\n%s", _("No value"));
  return g_string_free (text, FALSE);
}

/* Hover at (px, py): the cell it is in. */
gboolean
_tb_chart_heat_pick (TbChartData         *data,
                     const TbChartLayout *l,
                     double               px,
                     double               py)
{
  const TbChartGrid *grid = data->grid;
  int c = (int) floor ((px - l->left) / (l->right - l->left) * grid->n_x);
  int r = (int) floor ((l->bottom - py) / (l->bottom - l->top) * grid->n_y);

  if (c < 0 || r < 0 || c >= (int) grid->n_x || r >= (int) grid->n_y)
    return FALSE;
  data->hover_category = r * (int) grid->n_x + c;
  return TRUE;
}
