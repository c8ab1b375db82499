/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-chart.c: the chart renderer. Plain drawing on a cairo_t and a size, no
 * widgets, so the live chart, PNG/SVG export and the tests draw the same way.
 */
#define G_LOG_DOMAIN "trainbench-chart"

#include "tb-config.h"

#include <math.h>
#include <string.h>

#include <cairo-svg.h>
#include <gio/gio.h>
#include <glib/gi18n.h>
#include <pango/pangocairo.h>

#include "tb-chart.h"

#define FONT_SIZE_PX 11.0
#define PAD 8.0
/* The most ticks an axis draws: a step is picked for 2 to 16 or so; values
 * too close together for their step to be told apart in a double (100000
 * + 2e-11 i, 1e17 +- 32) would otherwise make a tick loop that never
 * advances. */
#define MAX_TICKS 64
/* Data beyond this is drawn off the chart (clipped): the ranges and their
 * differences stay finite. */
#define MAX_MAGNITUDE 1e300
/* A range smaller than this share of its values is drawn as flat: a double
 * has 16 digits, and ticks need a few of them. */
#define MIN_RELATIVE_RANGE 1e-9
/* ... and so is one smaller than this: steps of 1e-300 underflow when
 * computed (pow (10, -324) is 0). */
#define MIN_RANGE 1e-250
/* A log axis shows values from this up to MAX_MAGNITUDE: powers of ten
 * below it are denormal or 0. */
#define MIN_MAGNITUDE 1e-300

/* Can an axis from lo to hi have ticks of its own? */
static gboolean
range_is_flat (double lo,
               double hi)
{
  double range = hi - lo;

  return !(range > MAX (fabs (lo), fabs (hi)) * MIN_RELATIVE_RANGE) || !(range > MIN_RANGE);
}

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
static gboolean
positive_range (const TbChartData *data,
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

  if (data->y_scale == TB_CHART_SCALE_LINEAR || !positive_range (data, &lo, &hi))
    return FALSE;
  if (data->y_scale == TB_CHART_SCALE_LOG)
    return TRUE;
  return data->kind == TB_CHART_BARS && hi >= lo * TB_CHART_LOG_RATIO;
}

/* ------------------------------------------------------------ helpers */

static void
set_rgb (cairo_t *cr,
         guint32  color,
         double   alpha)
{
  cairo_set_source_rgba (cr,
                         ((color >> 16) & 0xff) / 255.0,
                         ((color >> 8) & 0xff) / 255.0,
                         (color & 0xff) / 255.0,
                         alpha);
}

static guint32
fg_color (const TbChartData *data)
{
  return data->dark ? 0xeeeeee : 0x241f31;
}

static PangoLayout *
make_layout (cairo_t    *cr,
             const char *text,
             double      size_px,
             gboolean    bold)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string ("Sans");

  pango_font_description_set_absolute_size (font, size_px * PANGO_SCALE);
  if (bold)
    pango_font_description_set_weight (font, PANGO_WEIGHT_BOLD);
  pango_layout_set_font_description (layout, font);
  pango_font_description_free (font);
  pango_layout_set_text (layout, text != NULL ? text : "", -1);
  return layout;
}

/* Draw text with its anchor at (x, y); ax, ay in [0, 1] pick the anchor point. */
static void
draw_text (cairo_t    *cr,
           const char *text,
           double      x,
           double      y,
           double      ax,
           double      ay,
           gboolean    bold)
{
  PangoLayout *layout = make_layout (cr, text, FONT_SIZE_PX, bold);
  int w, h;

  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_move_to (cr, round (x - ax * w), round (y - ay * h));
  pango_cairo_show_layout (cr, layout);
  g_object_unref (layout);
}

static int
text_width (cairo_t    *cr,
            const char *text)
{
  PangoLayout *layout = make_layout (cr, text, FONT_SIZE_PX, FALSE);
  int w, h;

  pango_layout_get_pixel_size (layout, &w, &h);
  g_object_unref (layout);
  return w;
}

/* The most lines a title takes: a chart a quarter of an 800-pixel window
 * wide still shows "Test accuracy per epoch" whole; longer ones end in
 * "…" on the second line. */
#define TITLE_LINES 2

/* The title as drawn at `width`: left of the widget's export button in the
 * top right corner, wrapped at words, at most TITLE_LINES lines. */
static PangoLayout *
title_layout (cairo_t           *cr,
              const TbChartData *data,
              int                width)
{
  PangoLayout *pl = make_layout (cr, data->title, FONT_SIZE_PX, TRUE);

  pango_layout_set_width (pl, MAX (width - PAD * 4 - 32, 20) * PANGO_SCALE);
  pango_layout_set_wrap (pl, PANGO_WRAP_WORD_CHAR);
  pango_layout_set_height (pl, -TITLE_LINES);
  pango_layout_set_ellipsize (pl, PANGO_ELLIPSIZE_END);
  return pl;
}

/* A cairo_t to measure text on when none is at hand. */
static cairo_t *
scratch_cr (void)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *cr = cairo_create (surface);

  cairo_surface_destroy (surface);
  return cr;
}

static int
title_lines (cairo_t           *cr,
             const TbChartData *data,
             int                width)
{
  PangoLayout *pl = title_layout (cr, data, width);
  int lines = pango_layout_get_line_count (pl);

  g_object_unref (pl);
  return CLAMP (lines, 1, TITLE_LINES);
}

gboolean
tb_chart_title_is_whole (const TbChartData *data,
                         int                width)
{
  cairo_t *cr;
  PangoLayout *pl;
  gboolean whole;

  g_return_val_if_fail (data != NULL, FALSE);

  cr = scratch_cr ();
  pl = title_layout (cr, data, width);
  whole = !pango_layout_is_ellipsized (pl);
  g_object_unref (pl);
  cairo_destroy (cr);
  return whole;
}

/* Where the legend's first row is: under the title. */
static double
legend_top (int lines)
{
  return PAD + FONT_SIZE_PX * 1.6 * lines;
}

/* A "nice" step (1, 2 or 5 times a power of ten) near range / target. */
static double
nice_step (double range,
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
static int
axis_ticks (double   lo,
            double   hi,
            int      target,
            gboolean integer,
            double   ticks[MAX_TICKS],
            double  *step_out)
{
  double step = nice_step (hi - lo, target);
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

static char *
format_tick (double value,
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

static char *
format_value (double value)
{
  if (fabs (value) >= 1000)
    return g_strdup_printf ("%.0f", value);
  if (fabs (value) >= 10)
    return g_strdup_printf ("%.1f", value);
  return g_strdup_printf ("%.4g", value);
}

/* ------------------------------------------------------------ layout */

static int legend_pass (cairo_t           *cr,
                        const TbChartData *data,
                        int                width,
                        int                title,
                        gboolean           draw);
static gboolean stacked_layout (const TbChartData *data,
                                int                width,
                                int                height,
                                TbChartLayout     *layout);
static void draw_stacked (cairo_t             *cr,
                          const TbChartData   *data,
                          const TbChartLayout *l);

gboolean
tb_chart_compute_layout (const TbChartData *data,
                         int                width,
                         int                height,
                         TbChartLayout     *layout)
{
  double x_min = INFINITY, x_max = -INFINITY, y_min = INFINITY, y_max = -INFINITY;
  double top;

  g_return_val_if_fail (data != NULL, FALSE);
  g_return_val_if_fail (layout != NULL, FALSE);

  if (data->kind == TB_CHART_STACKED)
    return stacked_layout (data, width, height, layout);

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

              if (!isfinite (x))
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
    cairo_t *cr = scratch_cr ();
    int lines = title_lines (cr, data, width);

    top = legend_top (lines) + FONT_SIZE_PX * 1.6 * legend_pass (cr, data, width, lines, FALSE);
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

      positive_range (data, &lo, &hi);
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
      double step = nice_step (y_max - y_min, 5);

      /* headroom so the top point and bar notes are not on the edge */
      y_max = ceil ((y_max + (y_max - y_min) * (data->kind == TB_CHART_BARS ? 0.12 : 0.02)) / step) * step;
      if (!(data->y_from_zero && y_min == 0))
        y_min = floor (y_min / step) * step;
    }
  if (!layout->y_log && isfinite (data->y_ceiling) && y_max > data->y_ceiling && y_min < data->y_ceiling)
    y_max = data->y_ceiling;
  if (range_is_flat (x_min, x_max))
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

static double
map_x (const TbChartLayout *l,
       double               x)
{
  return bound_px (l->left + (x - l->x_min) / (l->x_max - l->x_min) * (l->right - l->left));
}

static double
map_y (const TbChartLayout *l,
       double               y)
{
  if (l->y_log)
    {
      double lo = log10 (l->y_min);

      /* 0 and below are far under the axis (NAN would be far above it) */
      if (!(y > 0))
        return bound_px (INFINITY);
      return bound_px (l->bottom - (log10 (y) - lo) / (log10 (l->y_max) - lo) * (l->bottom - l->top));
    }
  return bound_px (l->bottom - (y - l->y_min) / (l->y_max - l->y_min) * (l->bottom - l->top));
}

/* Can `y` be drawn on this axis? */
static gboolean
plottable (const TbChartLayout *l,
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
  int e_lo = (int) floor (log10 (l->y_min) + 0.5);
  int e_hi = (int) floor (log10 (l->y_max) + 0.5);
  int decades = e_hi - e_lo;
  double decade_px = (l->bottom - l->top) / MAX (decades, 1);
  int every, first, n = 0;
  guint per_decade;

  if (decades < 1 || !(decade_px > 0))
    return 0;
  every = (int) nice_step_up (MAX (LOG_TICK_SPACING / decade_px, (double) decades / (MAX_TICKS - 1)));
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

/* The y axis' ticks for a layout (*step: the linear step, for labels). */
static int
y_axis_ticks (const TbChartLayout *l,
              double               ticks[MAX_TICKS],
              double              *step)
{
  *step = 0;
  if (l->y_log)
    return log_ticks (l, ticks);
  return axis_ticks (l->y_min, l->y_max, MAX (2, (int) ((l->bottom - l->top) / 40)), FALSE, ticks, step);
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

/* ------------------------------------------------------------ drawing */

static void
draw_axes (cairo_t             *cr,
           const TbChartData   *data,
           const TbChartLayout *l,
           int                  height)
{
  guint32 fg = fg_color (data);
  double ticks[MAX_TICKS];
  double step;
  int n = y_axis_ticks (l, ticks, &step);

  cairo_set_line_width (cr, 1);

  /* horizontal grid lines and y tick labels */
  for (int i = 0; i < n; i++)
    {
      double py = round (map_y (l, ticks[i])) + 0.5;
      g_autofree char *label = l->y_log ? format_log_tick (ticks[i]) : format_tick (ticks[i], step);

      set_rgb (cr, fg, 0.12);
      cairo_move_to (cr, l->left, py);
      cairo_line_to (cr, l->right, py);
      cairo_stroke (cr);
      set_rgb (cr, fg, 0.8);
      draw_text (cr, label, l->left - 5, py, 1.0, 0.5, FALSE);
    }

  /* x ticks */
  if (data->kind == TB_CHART_LINES)
    {
      double xstep;

      n = axis_ticks (l->x_min, l->x_max, MAX (2, (int) ((l->right - l->left) / 80)), data->x_integer, ticks, &xstep);
      for (int i = 0; i < n; i++)
        {
          double px = round (map_x (l, ticks[i])) + 0.5;
          g_autofree char *label = format_tick (ticks[i], xstep);

          set_rgb (cr, fg, 0.6);
          cairo_move_to (cr, px, l->bottom);
          cairo_line_to (cr, px, l->bottom + 4);
          cairo_stroke (cr);
          set_rgb (cr, fg, 0.8);
          draw_text (cr, label, px, l->bottom + 5, 0.5, 0.0, FALSE);
        }
    }
  else
    {
      double group = (l->right - l->left) / MAX (data->categories->len, 1);

      for (guint c = 0; c < data->categories->len; c++)
        {
          const char *label = g_ptr_array_index (data->categories, c);
          PangoLayout *pl = make_layout (cr, label, FONT_SIZE_PX, FALSE);
          int w, h;

          pango_layout_set_width (pl, (int) MAX (group - 4, 1) * PANGO_SCALE);
          pango_layout_set_ellipsize (pl, PANGO_ELLIPSIZE_END);
          pango_layout_set_alignment (pl, PANGO_ALIGN_CENTER);
          pango_layout_get_pixel_size (pl, &w, &h);
          set_rgb (cr, fg, 0.8);
          cairo_move_to (cr, round (l->left + c * group + 2), round (l->bottom + 5));
          pango_cairo_show_layout (cr, pl);
          g_object_unref (pl);
        }
    }

  /* the axes themselves */
  set_rgb (cr, fg, 0.7);
  cairo_move_to (cr, round (l->left) + 0.5, l->top);
  cairo_line_to (cr, round (l->left) + 0.5, round (l->bottom) + 0.5);
  cairo_line_to (cr, l->right, round (l->bottom) + 0.5);
  cairo_stroke (cr);

  /* axis labels */
  set_rgb (cr, fg, 0.9);
  if (data->x_label != NULL && *data->x_label)
    draw_text (cr, data->x_label, (l->left + l->right) / 2, height - PAD, 0.5, 1.0, FALSE);
  if (data->y_label != NULL && *data->y_label)
    {
      /* TRANSLATORS: a y axis' title on a log scale, "Seconds per epoch (log scale)" */
      g_autofree char *label = l->y_log ? g_strdup_printf (_("%s (log scale)"), data->y_label)
                                        : g_strdup (data->y_label);

      PangoLayout *pl = make_layout (cr, label, FONT_SIZE_PX, FALSE);
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

/* Lay the legend out in rows that fit the width; draws when `draw`.
 * Returns the number of rows. */
static int
legend_pass (cairo_t           *cr,
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
      int w = MIN (text_width (cr, s->label), MAX (room, 20));
      double y;

      if (x + 16 + w > width - PAD && x > x0)
        {
          x = x0;
          rows++;
        }
      y = legend_top (title) + FONT_SIZE_PX * 1.6 * (rows - 1) + FONT_SIZE_PX * 0.8;
      if (draw)
        {
          set_rgb (cr, s->color, 1);
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
          PangoLayout *pl = make_layout (cr, s->label, FONT_SIZE_PX, FALSE);
          int lw, lh;

          /* a label longer than the chart is wide ends in "…" */
          pango_layout_set_width (pl, w * PANGO_SCALE);
          pango_layout_set_ellipsize (pl, PANGO_ELLIPSIZE_END);
          pango_layout_get_pixel_size (pl, &lw, &lh);
          set_rgb (cr, fg_color (data), 0.9);
          cairo_move_to (cr, round (x + 16), round (y - lh / 2.0));
          pango_cairo_show_layout (cr, pl);
          g_object_unref (pl);
        }
      x += 16 + w + 14;
    }
  return rows;
}

static void
draw_legend (cairo_t           *cr,
             const TbChartData *data,
             int                width)
{
  legend_pass (cr, data, width, title_lines (cr, data, width), TRUE);
}

static void
draw_lines (cairo_t             *cr,
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

      set_rgb (cr, s->color, 1);
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
              int px = j < n ? (int) floor (map_x (l, x)) : G_MAXINT;

              if (j < n && (!plottable (l, y) || !isfinite (x)))
                continue;
              if (px != column || j == n)
                {
                  if (column != G_MININT)
                    {
                      if (pen_down)
                        cairo_line_to (cr, column + 0.5, map_y (l, lo));
                      else
                        cairo_move_to (cr, column + 0.5, map_y (l, lo));
                      cairo_line_to (cr, column + 0.5, map_y (l, hi));
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

          if (!plottable (l, y) || !isfinite (x))
            {
              pen_down = FALSE;
              continue;
            }
          if (pen_down)
            cairo_line_to (cr, map_x (l, x), map_y (l, y));
          else
            cairo_move_to (cr, map_x (l, x), map_y (l, y));
          pen_down = TRUE;
        }
      cairo_stroke (cr);

      /* dots where points are sparse (epochs), so one point is visible */
      if (n > 0 && n <= 40)
        for (guint j = 0; j < n; j++)
          {
            double y = g_array_index (s->y, double, j);

            if (!plottable (l, y) || !isfinite (g_array_index (s->x, double, j)))
              continue;
            cairo_arc (cr, map_x (l, g_array_index (s->x, double, j)), map_y (l, y), 3, 0, 2 * G_PI);
            cairo_fill (cr);
          }
    }
  cairo_restore (cr);
}

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
  PangoLayout *pl = make_layout (cr, note, FONT_SIZE_PX, TRUE);
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
    set_rgb (cr, fg_color (data), 0.9);
  else
    {
      y = top + 2;
      /* dark text on light bars (yellow), white on the others */
      set_rgb (cr, 0.299 * r + 0.587 * g + 0.114 * b > 160 ? 0x241f31 : 0xffffff, 1);
    }
  cairo_move_to (cr, round (x + w / 2 - room / 2), round (y));
  pango_cairo_show_layout (cr, pl);
  g_object_unref (pl);
}

static void
draw_bars (cairo_t             *cr,
           const TbChartData   *data,
           const TbChartLayout *l)
{
  for (guint c = 0; c < data->categories->len; c++)
    {
      if ((int) c == data->hover_category && data->hover_active)
        {
          double group = (l->right - l->left) / MAX (data->categories->len, 1);

          set_rgb (cr, fg_color (data), 0.06);
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
          if (!plottable (l, value))
            continue;
          bar_geometry (data, l, c, i, &x, &w);
          /* on a log scale there is no 0: bars stand on the axis */
          y0 = l->y_log ? l->bottom : map_y (l, MAX (l->y_min, 0));
          y1 = map_y (l, value);
          set_rgb (cr, s->color, 1);
          cairo_rectangle (cr, round (x), MIN (y0, y1), round (w), fabs (y0 - y1));
          cairo_fill (cr);
          note = c < s->notes->len ? g_ptr_array_index (s->notes, c) : NULL;
          if (note != NULL)
            draw_note (cr, data, l, note, s->color, x, w, MIN (y0, y1), fabs (y0 - y1));
        }
    }
}

/* ------------------------------------------------------------ stacked bars */

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
    widest = MAX (widest, text_width (cr, g_ptr_array_index (data->categories, c)));
  return CLAMP (widest, 40, MAX (width / 3, 40));
}

/* Rows from top to bottom, x from 0 to the longest row or marker rounded up
 * to a tick. */
static gboolean
stacked_layout (const TbChartData *data,
                int                width,
                int                height,
                TbChartLayout     *layout)
{
  gboolean any = FALSE;
  double x_max = 0, step;
  cairo_t *cr = scratch_cr ();
  int lines = title_lines (cr, data, width);

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
  layout->top = legend_top (lines) + FONT_SIZE_PX * 1.6 * legend_pass (cr, data, width, lines, FALSE)
                + PAD;
  layout->left = PAD * 2 + stacked_label_width (cr, data, width) + 6;
  cairo_destroy (cr);
  layout->right = width - PAD * 2;
  layout->bottom = height - PAD - FONT_SIZE_PX * 3.4; /* tick labels and the x label */
  if (!(x_max > MIN_MAGNITUDE))
    x_max = 1;
  step = nice_step (x_max, 6);
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
  PangoLayout *pl = make_layout (cr, text, FONT_SIZE_PX, FALSE);
  int w, h;

  pango_layout_set_width (pl, (int) room * PANGO_SCALE);
  pango_layout_set_ellipsize (pl, PANGO_ELLIPSIZE_END);
  pango_layout_get_pixel_size (pl, &w, &h);
  set_rgb (cr, fg_color (data), 0.9);
  cairo_move_to (cr, round (right - w), round (y - h / 2.0));
  pango_cairo_show_layout (cr, pl);
  g_object_unref (pl);
}

/* The x axis (grid, ticks, label), then a row per category: the series
 * end to end, each marker a line across the bar, and a row without values
 * saying so. */
static void
draw_stacked (cairo_t             *cr,
              const TbChartData   *data,
              const TbChartLayout *l)
{
  guint32 fg = fg_color (data);
  guint rows = data->categories->len;
  double ticks[MAX_TICKS], step;
  int n = axis_ticks (0, l->x_max, MAX ((int) ((l->right - l->left) / 90), 2), FALSE, ticks, &step);
  double row = (l->bottom - l->top) / MAX (rows, 1);
  double bar = MIN (row * 0.62, 30);

  cairo_set_line_width (cr, 1);
  for (int i = 0; i < n; i++)
    {
      double px = round (map_x (l, ticks[i])) + 0.5;
      g_autofree char *label = format_tick (ticks[i], step);

      set_rgb (cr, fg, 0.12);
      cairo_move_to (cr, px, l->top);
      cairo_line_to (cr, px, l->bottom);
      cairo_stroke (cr);
      set_rgb (cr, fg, 0.8);
      draw_text (cr, label, px, l->bottom + 4, 0.5, 0, FALSE);
    }
  set_rgb (cr, fg, 0.5);
  cairo_move_to (cr, l->left, round (l->bottom) + 0.5);
  cairo_line_to (cr, l->right, round (l->bottom) + 0.5);
  cairo_stroke (cr);
  if (data->x_label != NULL)
    {
      set_rgb (cr, fg, 0.8);
      draw_text (cr, data->x_label, (l->left + l->right) / 2, l->bottom + FONT_SIZE_PX * 1.8,
                 0.5, 0, FALSE);
    }

  for (guint c = 0; c < rows; c++)
    {
      double mid = l->top + row * (c + 0.5);
      double y = round (mid - bar / 2), x = 0;
      gboolean any = FALSE;

      if ((int) c == data->hover_category && data->hover_active)
        {
          set_rgb (cr, fg, 0.06);
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
          double x0 = map_x (l, x), x1 = map_x (l, MIN (x + v, MAX_MAGNITUDE));

          set_rgb (cr, s->color, 1);
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
          double px = round (map_x (l, v)) + 0.5;

          /* outlined, so it shows on a bar of its own colour */
          cairo_set_line_width (cr, 4);
          set_rgb (cr, data->dark ? 0x1e1e1e : 0xffffff, 1);
          cairo_move_to (cr, px, y - 5);
          cairo_line_to (cr, px, y + bar + 5);
          cairo_stroke (cr);
          cairo_set_line_width (cr, 2);
          set_rgb (cr, s->color, 1);
          cairo_move_to (cr, px, y - 5);
          cairo_line_to (cr, px, y + bar + 5);
          cairo_stroke (cr);
          cairo_set_line_width (cr, 1);
          any = TRUE;
        }
      if (!any)
        {
          set_rgb (cr, fg, 0.5);
          draw_text (cr, data->missing_text != NULL ? data->missing_text : _("No data"),
                     l->left + 6, mid, 0, 0.5, FALSE);
        }
    }
}

/* Nearest x among all series' points to `x`. */
static gboolean
nearest_x (const TbChartData *data,
           double             x,
           double            *found)
{
  double best = INFINITY;

  for (guint i = 0; i < data->series->len; i++)
    {
      const TbChartSeries *s = g_ptr_array_index (data->series, i);

      for (guint j = 0; j < s->x->len; j++)
        {
          double v = g_array_index (s->x, double, j);

          if (fabs (v - x) < fabs (best - x))
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

static char *
hover_text (const TbChartData *data)
{
  GString *text = g_string_new (NULL);

  if (data->kind == TB_CHART_LINES)
    {
      g_autofree char *xs = format_value (data->hover_x);

      g_string_append_printf (text, "%s %s", data->x_label ? data->x_label : "x", xs);
      for (guint i = 0; i < data->series->len; i++)
        {
          const TbChartSeries *s = g_ptr_array_index (data->series, i);
          double y = NAN;

          if (series_value_near (s, data->hover_x, &y) && isfinite (y))
            {
              g_autofree char *ys = format_value (y);

              g_string_append_printf (text, "\n%s: %s", s->label, ys);
            }
        }
    }
  else if (data->hover_category >= 0 && data->hover_category < (int) data->categories->len)
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
            g_autofree char *ys = format_value (y);

            note = g_ptr_array_index (s->notes, data->hover_category);
            g_string_append_printf (text, "\n%s: %s%s%s", s->label, ys,
                                    note ? "  " : "", note ? note : "");
          }
        }
    }
  return g_string_free (text, FALSE);
}

static void
draw_hover (cairo_t             *cr,
            const TbChartData   *data,
            const TbChartLayout *l)
{
  g_autofree char *text = NULL;
  PangoLayout *pl;
  int w, h;
  double bx, by;

  if (data->kind == TB_CHART_LINES)
    {
      double px = map_x (l, data->hover_x);

      set_rgb (cr, fg_color (data), 0.5);
      cairo_set_line_width (cr, 1);
      cairo_move_to (cr, round (px) + 0.5, l->top);
      cairo_line_to (cr, round (px) + 0.5, l->bottom);
      cairo_stroke (cr);
    }

  text = hover_text (data);
  pl = make_layout (cr, text, FONT_SIZE_PX, FALSE);
  pango_layout_get_pixel_size (pl, &w, &h);
  bx = l->right - w - 12;
  by = l->top + 4;
  if (data->kind == TB_CHART_LINES && map_x (l, data->hover_x) > (l->left + l->right) / 2)
    bx = l->left + 8;
  set_rgb (cr, data->dark ? 0x303030 : 0xffffff, 0.92);
  cairo_rectangle (cr, bx - 4, by - 3, w + 8, h + 6);
  cairo_fill_preserve (cr);
  set_rgb (cr, fg_color (data), 0.3);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);
  set_rgb (cr, fg_color (data), 1);
  cairo_move_to (cr, bx, by);
  pango_cairo_show_layout (cr, pl);
  g_object_unref (pl);
}

void
tb_chart_render (cairo_t           *cr,
                 int                width,
                 int                height,
                 const TbChartData *data)
{
  TbChartLayout l;
  gboolean has_data;

  g_return_if_fail (cr != NULL);
  g_return_if_fail (data != NULL);

  if (width <= 0 || height <= 0)
    return;

  cairo_save (cr);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_clip (cr);

  set_rgb (cr, data->dark ? 0x1e1e1e : 0xffffff, 1);
  cairo_paint (cr);

  {
    PangoLayout *pl = title_layout (cr, data, width);

    set_rgb (cr, fg_color (data), 1);
    cairo_move_to (cr, PAD * 2, PAD);
    pango_cairo_show_layout (cr, pl);
    g_object_unref (pl);
  }

  has_data = tb_chart_compute_layout (data, width, height, &l);
  if (l.right - l.left < 20 || l.bottom - l.top < 20)
    {
      cairo_restore (cr);
      return;
    }

  draw_legend (cr, data, width);
  if (data->kind == TB_CHART_STACKED)
    {
      draw_stacked (cr, data, &l);
      if (has_data && data->hover_active)
        draw_hover (cr, data, &l);
      cairo_restore (cr);
      return;
    }
  draw_axes (cr, data, &l, height);

  if (!has_data)
    {
      set_rgb (cr, fg_color (data), 0.5);
      draw_text (cr, _("No data yet"), (l.left + l.right) / 2, (l.top + l.bottom) / 2, 0.5, 0.5, FALSE);
    }
  else if (data->kind == TB_CHART_LINES)
    draw_lines (cr, data, &l);
  else
    draw_bars (cr, data, &l);

  if (has_data && data->hover_active)
    draw_hover (cr, data, &l);

  cairo_restore (cr);
}

char *
tb_chart_hover (TbChartData *data,
                int          width,
                int          height,
                double       px,
                double       py)
{
  TbChartLayout l;

  g_return_val_if_fail (data != NULL, NULL);

  data->hover_active = FALSE;
  if (!tb_chart_compute_layout (data, width, height, &l))
    return NULL;
  if (!(px >= l.left && px <= l.right && py >= l.top && py <= l.bottom))
    return NULL;

  if (data->kind == TB_CHART_LINES)
    {
      double x = l.x_min + (px - l.left) / (l.right - l.left) * (l.x_max - l.x_min);

      if (!nearest_x (data, x, &data->hover_x))
        return NULL;
    }
  else if (data->kind == TB_CHART_STACKED)
    {
      double row = (l.bottom - l.top) / MAX (data->categories->len, 1);

      data->hover_category = (int) ((py - l.top) / row);
      if (data->hover_category < 0 || data->hover_category >= (int) data->categories->len)
        return NULL;
    }
  else
    {
      double group = (l.right - l.left) / MAX (data->categories->len, 1);

      data->hover_category = (int) ((px - l.left) / group);
      if (data->hover_category < 0 || data->hover_category >= (int) data->categories->len)
        return NULL;
    }
  data->hover_active = TRUE;
  return hover_text (data);
}

gboolean
tb_chart_export (const TbChartData *data,
                 const char        *path,
                 int                width,
                 int                height,
                 GError           **error)
{
  cairo_surface_t *surface;
  cairo_status_t status;
  cairo_t *cr;
  gboolean svg;

  g_return_val_if_fail (data != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  if (width < 16 || height < 16 || width > 16384 || height > 16384)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("Image size %d×%d is out of range (16 to 16384 pixels)"), width, height);
      return FALSE;
    }

  svg = g_str_has_suffix (path, ".svg") || g_str_has_suffix (path, ".SVG");
  if (svg)
    surface = cairo_svg_surface_create (path, width, height);
  else
    surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);

  cr = cairo_create (surface);
  tb_chart_render (cr, width, height, data);
  status = cairo_status (cr);
  cairo_destroy (cr);

  if (status == CAIRO_STATUS_SUCCESS && !svg)
    status = cairo_surface_write_to_png (surface, path);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);

  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _("Could not write “%s”: %s"), path, cairo_status_to_string (status));
      return FALSE;
    }
  return TRUE;
}
