/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-chart-axes.c: the x and y axes of lines and bars: the plot's layout
 * and the data ranges mapped onto it, linear or log; nice ticks and their
 * labels; the grid, the axes and their titles drawn.
 */
#define G_LOG_DOMAIN "trainbench-chart"

#include "tb-config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "tb-chart-private.h"

/* A range smaller than this share of its values is drawn as flat: a double
 * has 16 digits, and ticks need a few of them. */
#define MIN_RELATIVE_RANGE 1e-9
/* ... and so is one smaller than this: steps of 1e-300 underflow when
 * computed (pow (10, -324) is 0). */
#define MIN_RANGE 1e-250

/* Can an axis from lo to hi have ticks of its own? */
static gboolean
range_is_flat (double lo,
               double hi)
{
  double range = hi - lo;

  return !(range > MAX (fabs (lo), fabs (hi)) * MIN_RELATIVE_RANGE) || !(range > MIN_RANGE);
}

/* A "nice" step (1, 2 or 5 times a power of ten) near range / target. */
double
_tb_chart_nice_step (double range,
                     int    target)
{
  double raw = range / MAX (target, 1);
  double mag, norm;

  if (!(raw > 0))
    return 1;
  mag = pow (10, floor (log10 (raw)));
  norm = raw / mag;
  if (norm < 1.5)
    return mag;
  if (norm < 3)
    return 2 * mag;
  if (norm < 7)
    return 5 * mag;
  return 10 * mag;
}

/* The least of 1, 2, 5, 10, 20, 50 ... that is `raw` or more. */
static double
nice_step_up (double raw)
{
  double mag;

  if (!(raw > 1))
    return 1;
  mag = pow (10, floor (log10 (raw)));
  if (raw <= mag)
    return mag;
  if (raw <= 2 * mag)
    return 2 * mag;
  if (raw <= 5 * mag)
    return 5 * mag;
  return 10 * mag;
}

/* The ticks of an axis from lo to hi, about `target` of them at a nice
 * step (whole numbers when `integer`), at most MAX_TICKS, each greater
 * than the one before. Returns how many; *step is the step used. */
int
_tb_chart_axis_ticks (double   lo,
                      double   hi,
                      int      target,
                      gboolean integer,
                      double   ticks[MAX_TICKS],
                      double  *step_out)
{
  double step = _tb_chart_nice_step (hi - lo, target);
  double first, last;
  int n = 0;

  if (integer)
    step = MAX (1, round (step));
  *step_out = step;
  if (!isfinite (lo) || !isfinite (hi) || !isfinite (step) || !(step > 0) || hi < lo)
    return 0;
  first = ceil (lo / step);
  last = floor (hi / step + 1e-6);
  if (!isfinite (first) || !isfinite (last) || last < first)
    return 0;
  /* counted with an integer, not by adding the step to a double that
   * may not change */
  for (int i = 0; i < MAX_TICKS && first + i <= last; i++)
    {
      double v = (first + i) * step;

      if (n > 0 && !(v > ticks[n - 1]))
        continue;
      ticks[n++] = v;
    }
  return n;
}

char *
_tb_chart_format_tick (double value,
                       double step)
{
  if (fabs (value) < step * 1e-6)
    value = 0;
  /* large ticks as 20k, 1.5M: short enough for the narrow y axis */
  if (fabs (value) >= 1e6)
    return g_strdup_printf ("%gM", value / 1e6);
  if (fabs (value) >= 10000)
    return g_strdup_printf ("%gk", value / 1e3);
  if (step >= 1)
    return g_strdup_printf ("%.0f", value);
  return g_strdup_printf ("%.*f", (int) MIN (ceil (-log10 (step)), 17), value);
}

static int
compare_doubles (const double *a,
                 const double *b)
{
  return (*a > *b) - (*a < *b);
}

/* The plot under the title and the legend, right of the y axis' labels;
 * x over the points' range (lines) or the categories (bars), y over the
 * values' with headroom, from 0 for bars, in decades on a log scale. */
gboolean
_tb_chart_xy_layout (const TbChartData *data,
                     int                width,
                     int                height,
                     TbChartLayout     *layout)
{
  double x_min = INFINITY, x_max = -INFINITY, y_min = INFINITY, y_max = -INFINITY;
  double top;

  for (guint i = 0; i < data->series->len; i++)
    {
      const TbChartSeries *s = g_ptr_array_index (data->series, i);

      for (guint j = 0; j < s->y->len; j++)
        {
          double y = g_array_index (s->y, double, j);

          if (!isfinite (y))
            continue;
          if (data->kind == TB_CHART_LINES)
            {
              double x = j < s->x->len ? g_array_index (s->x, double, j) : NAN;

              if (!isfinite (x) || (data->x_log && !(x > 0)))
                continue;
              x = CLAMP (x, -MAX_MAGNITUDE, MAX_MAGNITUDE);
              x_min = MIN (x_min, x);
              x_max = MAX (x_max, x);
            }
          y = CLAMP (y, -MAX_MAGNITUDE, MAX_MAGNITUDE);
          y_min = MIN (y_min, y);
          y_max = MAX (y_max, y);
        }
    }

  if (data->kind == TB_CHART_BARS)
    {
      x_min = 0;
      x_max = MAX (data->categories->len, 1);
    }

  {
    cairo_t *cr = _tb_chart_scratch_cr ();
    int lines = _tb_chart_title_lines (cr, data, width);

    top = _tb_chart_legend_top (lines)
          + FONT_SIZE_PX * 1.6 * _tb_chart_legend_pass (cr, data, width, lines, FALSE);
    cairo_destroy (cr);
  }
  layout->left = PAD + FONT_SIZE_PX * 1.5 + 44; /* y label + tick labels */
  layout->right = width - PAD * 2;
  layout->top = top + 4;
  layout->bottom = height - (PAD + FONT_SIZE_PX * 3.2); /* ticks + x label */

  if (!isfinite (y_min) || !isfinite (x_min))
    {
      layout->x_min = 0;
      layout->x_max = 1;
      layout->y_min = 0;
      layout->y_max = 1;
      return FALSE;
    }

  layout->y_log = tb_chart_data_is_log (data);
  if (layout->y_log)
    {
      double lo, hi, e_lo, e_hi;

      _tb_chart_positive_range (data, &lo, &hi);
      /* whole decades around the values; the shortest bar keeps a third
       * of a decade, the tallest room for its note above */
      e_lo = floor (log10 (lo) - (data->kind == TB_CHART_BARS ? 0.3 : 0));
      e_hi = ceil (log10 (hi) + 0.1);
      e_lo = CLAMP (e_lo, -300, 299);
      e_hi = CLAMP (e_hi, e_lo + 1, 300);
      y_min = pow (10, e_lo);
      y_max = pow (10, e_hi);
    }
  else if (data->y_from_zero)
    {
      y_min = MIN (y_min, 0);
      y_max = MAX (y_max, 0);
    }
  if (layout->y_log)
    ;
  else if (range_is_flat (y_min, y_max))
    {
      /* one value, or values no tick could tell apart: a flat line in the
       * middle of a range around it */
      double pad = fabs (y_max) > MIN_RANGE ? fabs (y_max) * 0.1 : 1;

      y_max = (y_min + y_max) / 2 + pad;
      if (!data->y_from_zero || y_min != 0)
        y_min = y_max - 2 * pad;
      else
        y_min = 0;
    }
  else
    {
      double step = _tb_chart_nice_step (y_max - y_min, 5);

      /* headroom so the top point and bar notes are not on the edge */
      y_max = ceil ((y_max + (y_max - y_min) * (data->kind == TB_CHART_BARS ? 0.12 : 0.02)) / step)
              * step;
      if (!(data->y_from_zero && y_min == 0))
        y_min = floor (y_min / step) * step;
    }
  if (!layout->y_log && isfinite (data->y_ceiling) && y_max > data->y_ceiling
      && y_min < data->y_ceiling)
    y_max = data->y_ceiling;
  layout->x_log = data->kind == TB_CHART_LINES && data->x_log;
  if (layout->x_log)
    {
      /* a twentieth of the range each side, so the end points' dots are
       * not on the axis */
      double pad = pow (MAX (x_max / x_min, 2), 0.05);

      x_min = MAX (x_min / pad, MIN_MAGNITUDE);
      x_max = MIN (x_max * pad, MAX_MAGNITUDE);
    }
  else if (range_is_flat (x_min, x_max))
    {
      double pad = MAX (0.5, fabs (x_max) * 0.1);
      double mid = (x_min + x_max) / 2;

      x_min = mid - pad;
      x_max = mid + pad;
    }

  layout->x_min = x_min;
  layout->x_max = x_max;
  layout->y_min = y_min;
  layout->y_max = y_max;
  return TRUE;
}

/* A pixel coordinate for cairo and for (int) casts: points far off the
 * chart are drawn (and clipped) a little way off it. */
static double
bound_px (double v)
{
  if (isnan (v))
    return -1e5;
  return CLAMP (v, -1e5, 1e5);
}

double
_tb_chart_map_x (const TbChartLayout *l,
                 double               x)
{
  if (l->x_log)
    {
      double lo = log10 (l->x_min);

      if (!(x > 0))
        return bound_px (-INFINITY);
      return bound_px (l->left + (log10 (x) - lo) / (log10 (l->x_max) - lo) * (l->right - l->left));
    }
  return bound_px (l->left + (x - l->x_min) / (l->x_max - l->x_min) * (l->right - l->left));
}

double
_tb_chart_map_y (const TbChartLayout *l,
                 double               y)
{
  if (l->y_log)
    {
      double lo = log10 (l->y_min);

      /* 0 and below are far under the axis (NAN would be far above it) */
      if (!(y > 0))
        return bound_px (INFINITY);
      return bound_px (l->bottom
                       - (log10 (y) - lo) / (log10 (l->y_max) - lo) * (l->bottom - l->top));
    }
  return bound_px (l->bottom - (y - l->y_min) / (l->y_max - l->y_min) * (l->bottom - l->top));
}

/* Can `y` be drawn on this axis? */
gboolean
_tb_chart_plottable (const TbChartLayout *l,
                     double               y)
{
  return isfinite (y) && (!l->y_log || y > 0);
}

/* Pixels between the labelled ticks of a log axis at least: its labels are
 * short, and decades are few. */
#define LOG_TICK_SPACING 28.0

/* Ticks of a log axis from l->y_min to l->y_max (powers of ten): every
 * decade, or every 2, 5, 10, 20 ... so that they are LOG_TICK_SPACING
 * apart, and 2 and 5 times each decade too where a decade is tall enough
 * for three. Counted by decade, an integer, and at most MAX_TICKS. */
static int
log_ticks (const TbChartLayout *l,
           double               ticks[MAX_TICKS])
{
  static const double mantissas[] = { 1, 2, 5 };
  double lg_lo = log10 (l->y_min), lg_hi = log10 (l->y_max);
  int every, first, n = 0;
  guint per_decade;

  /* a range from 0 or to infinity has no decades to count */
  if (!isfinite (lg_lo) || !isfinite (lg_hi))
    return 0;
  int e_lo = (int) floor (lg_lo + 0.5);
  int e_hi = (int) floor (lg_hi + 0.5);
  int decades = e_hi - e_lo;
  double decade_px = (l->bottom - l->top) / MAX (decades, 1);

  if (decades < 1 || !(decade_px > 0))
    return 0;
  every = (int) nice_step_up (MAX (LOG_TICK_SPACING / decade_px,
                                  (double) decades / (MAX_TICKS - 1)));
  first = (int) ceil ((double) e_lo / every) * every;
  /* the multiples of a step that is too long leave one tick or none: then
   * the two ends */
  if (first + every > e_hi)
    {
      every = decades;
      first = e_lo;
    }
  /* 2 is 0.3 of a decade above 1 */
  per_decade = every == 1 && decade_px * 0.3 >= LOG_TICK_SPACING ? G_N_ELEMENTS (mantissas) : 1;
  for (int e = first; e <= e_hi && n < MAX_TICKS; e += every)
    for (guint k = 0; k < per_decade && n < MAX_TICKS; k++)
      {
        double v = mantissas[k] * pow (10, e);

        if (v > l->y_max * (1 + 1e-9))
          break;
        ticks[n++] = v;
      }
  return n;
}

/* 0.001, 0.5, 20, 10k, 1M, 1e-12, 5e42 */
static char *
format_log_tick (double value)
{
  int e;

  if (value >= 1e4 && value < 1e6)
    return g_strdup_printf ("%gk", value / 1e3);
  if (value >= 1e6 && value < 1e9)
    return g_strdup_printf ("%gM", value / 1e6);
  if (value >= 1e-4 && value < 1e4)
    return g_strdup_printf ("%g", value);
  e = (int) floor (log10 (value) + 1e-9);
  return g_strdup_printf ("%.0fe%d", value / pow (10, e), e);
}

/* Pixels between the labels of a log x axis at least. */
#define LOG_X_TICK_SPACING 40.0

/* Ticks of a log x axis: the points' own x values where they are few and
 * far enough apart (a sweep's sizes: 32, 128, 512), else the powers of
 * ten (1, 2 and 5 times each where there is room) from l->x_min to
 * l->x_max. At most MAX_TICKS. */
static int
log_x_ticks (const TbChartData   *data,
             const TbChartLayout *l,
             double               ticks[MAX_TICKS],
             double              *step)
{
  g_autoptr(GArray) xs = g_array_new (FALSE, FALSE, sizeof (double));
  gboolean own = TRUE;
  int n = 0;

  *step = 0;
  for (guint i = 0; i < data->series->len && own; i++)
    {
      const TbChartSeries *s = g_ptr_array_index (data->series, i);

      for (guint j = 0; j < MIN (s->x->len, s->y->len) && own; j++)
        {
          double x = g_array_index (s->x, double, j);
          gboolean seen = FALSE;

          if (!(x > 0) || !isfinite (x) || !isfinite (g_array_index (s->y, double, j)))
            continue;
          for (guint k = 0; k < xs->len && !seen; k++)
            seen = g_array_index (xs, double, k) == x;
          if (!seen)
            g_array_append_val (xs, x);
          own = xs->len <= 16;
        }
    }
  if (own && xs->len > 0)
    {
      g_array_sort (xs, (GCompareFunc) compare_doubles);
      for (guint k = 1; k < xs->len && own; k++)
        own = _tb_chart_map_x (l, g_array_index (xs, double, k))
              - _tb_chart_map_x (l, g_array_index (xs, double, k - 1)) >= LOG_X_TICK_SPACING;
    }
  if (own && xs->len > 0)
    {
      for (guint k = 0; k < xs->len; k++)
        ticks[n++] = g_array_index (xs, double, k);
      return n;
    }
  {
    static const double mantissas[] = { 1, 2, 5 };
    int e_lo = (int) floor (log10 (l->x_min));
    int e_hi = (int) ceil (log10 (l->x_max));
    double decade_px = (_tb_chart_map_x (l, pow (10, e_lo + 1))
                        - _tb_chart_map_x (l, pow (10, e_lo)));
    guint per_decade = decade_px * 0.3 >= LOG_X_TICK_SPACING ? G_N_ELEMENTS (mantissas) : 1;
    int every = decade_px >= LOG_X_TICK_SPACING
                ? 1 : (int) nice_step_up (LOG_X_TICK_SPACING / MAX (decade_px, 1e-3));

    e_lo = CLAMP (e_lo, -300, 300);
    e_hi = CLAMP (e_hi, e_lo, 300);
    every = CLAMP (every, 1, 600);
    for (int e = (int) ceil ((double) e_lo / every) * every; e <= e_hi && n < MAX_TICKS; e += every)
      for (guint k = 0; k < per_decade && n < MAX_TICKS; k++)
        {
          double v = mantissas[k] * pow (10, e);

          if (v >= l->x_min && v <= l->x_max)
            ticks[n++] = v;
        }
  }
  return n;
}

/* The y axis' ticks for a layout (*step: the linear step, for labels). */
static int
y_axis_ticks (const TbChartLayout *l,
              double               ticks[MAX_TICKS],
              double              *step)
{
  *step = 0;
  if (l->y_log)
    return log_ticks (l, ticks);
  return _tb_chart_axis_ticks (l->y_min, l->y_max, MAX (2, (int) ((l->bottom - l->top) / 40)),
                               FALSE, ticks, step);
}

guint
tb_chart_y_ticks (const TbChartData *data,
                  int                width,
                  int                height,
                  double            *ticks,
                  guint              max)
{
  double all[MAX_TICKS], step;
  TbChartLayout l;
  int n;

  g_return_val_if_fail (data != NULL, 0);
  g_return_val_if_fail (ticks != NULL || max == 0, 0);

  tb_chart_compute_layout (data, width, height, &l);
  n = y_axis_ticks (&l, all, &step);
  n = MIN (n, (int) max);
  memcpy (ticks, all, n * sizeof (double));
  return n;
}

void
_tb_chart_draw_axes (cairo_t             *cr,
                     const TbChartData   *data,
                     const TbChartLayout *l,
                     int                  height)
{
  guint32 fg = _tb_chart_fg_color (data);
  double ticks[MAX_TICKS];
  double step;
  int n = y_axis_ticks (l, ticks, &step);

  cairo_set_line_width (cr, 1);

  /* horizontal grid lines and y tick labels */
  for (int i = 0; i < n; i++)
    {
      double py = round (_tb_chart_map_y (l, ticks[i])) + 0.5;
      g_autofree char *label = l->y_log ? format_log_tick (ticks[i])
                                        : _tb_chart_format_tick (ticks[i], step);

      _tb_chart_set_rgb (cr, fg, 0.12);
      cairo_move_to (cr, l->left, py);
      cairo_line_to (cr, l->right, py);
      cairo_stroke (cr);
      _tb_chart_set_rgb (cr, fg, 0.8);
      _tb_chart_draw_text (cr, label, l->left - 5, py, 1.0, 0.5, FALSE);
    }

  /* x ticks */
  if (data->kind == TB_CHART_LINES)
    {
      double xstep;

      if (l->x_log)
        n = log_x_ticks (data, l, ticks, &xstep);
      else
        n = _tb_chart_axis_ticks (l->x_min, l->x_max, MAX (2, (int) ((l->right - l->left) / 80)),
                                  data->x_integer, ticks, &xstep);
      for (int i = 0; i < n; i++)
        {
          double px = round (_tb_chart_map_x (l, ticks[i])) + 0.5;
          g_autofree char *label = l->x_log ? format_log_tick (ticks[i])
                                            : _tb_chart_format_tick (ticks[i], xstep);

          _tb_chart_set_rgb (cr, fg, 0.6);
          cairo_move_to (cr, px, l->bottom);
          cairo_line_to (cr, px, l->bottom + 4);
          cairo_stroke (cr);
          _tb_chart_set_rgb (cr, fg, 0.8);
          _tb_chart_draw_text (cr, label, px, l->bottom + 5, 0.5, 0.0, FALSE);
        }
    }
  else
    {
      double group = (l->right - l->left) / MAX (data->categories->len, 1);

      for (guint c = 0; c < data->categories->len; c++)
        {
          const char *label = g_ptr_array_index (data->categories, c);
          PangoLayout *pl = _tb_chart_make_layout (cr, label, FONT_SIZE_PX, FALSE);
          int w, h;

          pango_layout_set_width (pl, (int) MAX (group - 4, 1) * PANGO_SCALE);
          pango_layout_set_ellipsize (pl, PANGO_ELLIPSIZE_END);
          pango_layout_set_alignment (pl, PANGO_ALIGN_CENTER);
          pango_layout_get_pixel_size (pl, &w, &h);
          _tb_chart_set_rgb (cr, fg, 0.8);
          cairo_move_to (cr, round (l->left + c * group + 2), round (l->bottom + 5));
          pango_cairo_show_layout (cr, pl);
          g_object_unref (pl);
        }
    }

  /* the axes themselves */
  _tb_chart_set_rgb (cr, fg, 0.7);
  cairo_move_to (cr, round (l->left) + 0.5, l->top);
  cairo_line_to (cr, round (l->left) + 0.5, round (l->bottom) + 0.5);
  cairo_line_to (cr, l->right, round (l->bottom) + 0.5);
  cairo_stroke (cr);

  /* axis labels */
  _tb_chart_set_rgb (cr, fg, 0.9);
  if (data->x_label != NULL && *data->x_label)
    _tb_chart_draw_text (cr, data->x_label, (l->left + l->right) / 2, height - PAD,
                         0.5, 1.0, FALSE);
  if (data->y_label != NULL && *data->y_label)
    {
      /* TRANSLATORS: a y axis' title on a log scale, "Seconds per epoch (log scale)" */
      g_autofree char *label = l->y_log ? g_strdup_printf (_("%s (log scale)"), data->y_label)
                                        : g_strdup (data->y_label);

      PangoLayout *pl = _tb_chart_make_layout (cr, label, FONT_SIZE_PX, FALSE);
      int w, h;

      /* no longer than the plot is tall; cut in the middle, so "(log
       * scale)" stays */
      pango_layout_set_width (pl, (int) MAX (l->bottom - l->top + FONT_SIZE_PX * 2, 20) * PANGO_SCALE);
      pango_layout_set_ellipsize (pl, PANGO_ELLIPSIZE_MIDDLE);
      pango_layout_get_pixel_size (pl, &w, &h);
      cairo_save (cr);
      cairo_translate (cr, PAD, (l->top + l->bottom) / 2);
      cairo_rotate (cr, -G_PI / 2);
      cairo_move_to (cr, round (-w / 2.0), 0);
      pango_cairo_show_layout (cr, pl);
      cairo_restore (cr);
      g_object_unref (pl);
    }
}
