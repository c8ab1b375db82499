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
#include "tb-error.h"
#include "tb-file.h"

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

static void grid_free (TbChartGrid *grid);
static TbChartGrid *grid_copy (const TbChartGrid *grid);

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
  grid_free (data->grid);
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
  copy->grid = grid_copy (data->grid);
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
  /* bars, and lines over a log x axis (a sweep's speeds over sizes 64
   * times apart), which span as much */
  return (data->kind == TB_CHART_BARS || (data->kind == TB_CHART_LINES && data->x_log))
         && hi >= lo * TB_CHART_LOG_RATIO;
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

/* U+FDD0 to U+FDEF, U+xFFFE and U+xFFFF: valid UTF-8 that cairo refuses,
 * putting the whole drawing in an error state. */
static gboolean
is_noncharacter (gunichar u)
{
  return (u & 0xFFFE) == 0xFFFE || (u >= 0xFDD0 && u <= 0xFDEF);
}

/* `text` as cairo draws it: valid UTF-8 with each noncharacter (a result
 * file's label may hold one) as U+FFFD. NULL when the text needs no
 * change, the usual case, which costs no copy. */
static char *
drawable_text (const char *text)
{
  gboolean clean = g_utf8_validate (text, -1, NULL);

  for (const char *c = text; clean && *c; c = g_utf8_next_char (c))
    clean = !is_noncharacter (g_utf8_get_char (c));
  if (clean)
    return NULL;
  g_autofree char *valid = g_utf8_make_valid (text, -1);
  GString *out = g_string_sized_new (strlen (valid));
  for (const char *c = valid; *c; c = g_utf8_next_char (c))
    {
      gunichar u = g_utf8_get_char (c);

      g_string_append_unichar (out, is_noncharacter (u) ? 0xFFFD : u);
    }
  return g_string_free (out, FALSE);
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
  const char *shown = text != NULL ? text : "";
  g_autofree char *drawable = drawable_text (shown);
  pango_layout_set_text (layout, drawable != NULL ? drawable : shown, -1);
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

static int
compare_doubles (const double *a,
                 const double *b)
{
  return (*a > *b) - (*a < *b);
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
static gboolean heat_compute_layout (const TbChartData *data,
                                     int                width,
                                     int                height,
                                     TbChartLayout     *layout);

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

  layout->x_log = FALSE;
  if (data->kind == TB_CHART_STACKED)
    return stacked_layout (data, width, height, layout);
  if (data->kind == TB_CHART_HEATMAP)
    return heat_compute_layout (data, width, height, layout);

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

static double
map_x (const TbChartLayout *l,
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
        own = map_x (l, g_array_index (xs, double, k)) - map_x (l, g_array_index (xs, double, k - 1)) >= LOG_X_TICK_SPACING;
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
    double decade_px = (map_x (l, pow (10, e_lo + 1)) - map_x (l, pow (10, e_lo)));
    guint per_decade = decade_px * 0.3 >= LOG_X_TICK_SPACING ? G_N_ELEMENTS (mantissas) : 1;
    int every = decade_px >= LOG_X_TICK_SPACING ? 1 : (int) nice_step_up (LOG_X_TICK_SPACING / MAX (decade_px, 1e-3));

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

      if (l->x_log)
        n = log_x_ticks (data, l, ticks, &xstep);
      else
        n = axis_ticks (l->x_min, l->x_max, MAX (2, (int) ((l->right - l->left) / 80)), data->x_integer, ticks, &xstep);
      for (int i = 0; i < n; i++)
        {
          double px = round (map_x (l, ticks[i])) + 0.5;
          g_autofree char *label = l->x_log ? format_log_tick (ticks[i]) : format_tick (ticks[i], xstep);

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

static char *heat_hover_text (const TbChartData *data);

static char *
hover_text (const TbChartData *data)
{
  GString *text;

  if (data->kind == TB_CHART_HEATMAP)
    return heat_hover_text (data);
  text = g_string_new (NULL);

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

/* ------------------------------------------------------------ heat maps */

static void
grid_free (TbChartGrid *grid)
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

static TbChartGrid *
grid_copy (const TbChartGrid *grid)
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

  grid_free (data->grid);
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

static gboolean
heat_compute_layout (const TbChartData *data,
                     int                width,
                     int                height,
                     TbChartLayout     *layout)
{
  const TbChartGrid *grid = data->grid;
  cairo_t *cr = scratch_cr ();
  int lines = title_lines (cr, data, width);

  cairo_destroy (cr);
  layout->left = PAD + FONT_SIZE_PX * 1.5 + 44;
  layout->right = width - PAD * 2;
  layout->top = legend_top (lines) + HEAT_LEGEND_HEIGHT + 4;
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
  *x = map_x (&l, col);
  *w = map_x (&l, col + 1) - *x;
  *y = map_y (&l, row + 1);
  *h = map_y (&l, row) - *y;
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
  set_rgb (cr, color, 0.35);
  cairo_set_line_width (cr, 1);
  for (double d = -h; d < w; d += 8)
    {
      cairo_move_to (cr, x + d, y + h);
      cairo_line_to (cr, x + d + h, y);
    }
  cairo_stroke (cr);
  cairo_restore (cr);
}

/* Text on a pale box, readable over any cell. */
static void
draw_boxed_text (cairo_t           *cr,
                 const TbChartData *data,
                 const char        *text,
                 double             x,
                 double             y)
{
  PangoLayout *pl = make_layout (cr, text, FONT_SIZE_PX, TRUE);
  int w, h;

  pango_layout_get_pixel_size (pl, &w, &h);
  set_rgb (cr, data->dark ? 0x241f31 : 0xffffff, 0.85);
  cairo_rectangle (cr, round (x - w / 2.0) - 3, round (y - h / 2.0) - 1, w + 6, h + 2);
  cairo_fill (cr);
  set_rgb (cr, fg_color (data), 1);
  cairo_move_to (cr, round (x - w / 2.0), round (y - h / 2.0));
  pango_cairo_show_layout (cr, pl);
  g_object_unref (pl);
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
  double top = legend_top (title_lines (cr, data, width)) + 2;
  int low_w = text_width (cr, grid->low_label), high_w = text_width (cr, grid->high_label);
  double bar_w = CLAMP (width - PAD * 4 - 40 - low_w - high_w - 24, 40, 240);
  double x = PAD * 2 + 40;
  double bar_x = x + low_w + 8;
  double bar_h = FONT_SIZE_PX;
  cairo_pattern_t *gradient = cairo_pattern_create_linear (bar_x, 0, bar_x + bar_w, 0);

  set_rgb (cr, fg_color (data), 0.9);
  draw_text (cr, grid->low_label, x, top + bar_h / 2, 0, 0.5, FALSE);
  draw_text (cr, grid->high_label, bar_x + bar_w + 8, top + bar_h / 2, 0, 0.5, FALSE);
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
  set_rgb (cr, fg_color (data), 0.3);
  cairo_set_line_width (cr, 1);
  cairo_rectangle (cr, round (bar_x) + 0.5, round (top) + 0.5, round (bar_w), round (bar_h));
  cairo_stroke (cr);

  set_rgb (cr, fg_color (data), 0.8);
  for (int k = -1; k <= 1; k++)
    {
      g_autofree char *label = format_ratio (grid->center * pow (span, k));

      /* TRANSLATORS: the low end of a colour scale of speed ratios, "≤0.1×" */
      if (k == -1)
        {
          g_autofree char *end = g_strdup_printf (_("≤%s"), label);
          draw_text (cr, end, bar_x, top + bar_h + 2, 0, 0, FALSE);
        }
      else if (k == 1)
        {
          /* TRANSLATORS: the high end of a colour scale of speed ratios, "≥10×" */
          g_autofree char *end = g_strdup_printf (_("≥%s"), label);
          draw_text (cr, end, bar_x + bar_w, top + bar_h + 2, 1, 0, FALSE);
        }
      else
        draw_text (cr, label, bar_x + bar_w / 2, top + bar_h + 2, 0.5, 0, FALSE);
    }
}

static void
draw_heat (cairo_t             *cr,
           const TbChartData   *data,
           const TbChartLayout *l,
           int                  width,
           int                  height,
           gboolean             has_data)
{
  const TbChartGrid *grid = data->grid;
  guint32 fg = fg_color (data);
  g_autofree TbChartSegment *segments = NULL;
  guint n_segments = 0;
  double span;

  if (!has_data)
    {
      set_rgb (cr, fg, 0.5);
      draw_text (cr, _("No data yet"), (l->left + l->right) / 2, (l->top + l->bottom) / 2, 0.5, 0.5, FALSE);
      return;
    }
  span = tb_chart_grid_span (grid);
  draw_heat_legend (cr, data, width, span);

  for (guint r = 0; r < grid->n_y; r++)
    for (guint c = 0; c < grid->n_x; c++)
      {
        double v = cell_value (grid, c, r);
        double x = map_x (l, c), y = map_y (l, r + 1);
        double w = map_x (l, c + 1) - x, h = map_y (l, r) - y;
        guint32 color = tb_chart_grid_color (grid, v, span, data->dark);

        set_rgb (cr, color, 1);
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
            set_rgb (cr, 0.299 * r8 + 0.587 * g8 + 0.114 * b8 > 150 ? 0x241f31 : 0xffffff, 1);
            draw_text (cr, label, x + w / 2, y + h / 2, 0.5, 0.5, TRUE);
          }
      }
  if (data->hover_active && data->hover_category >= 0)
    {
      guint c = (guint) data->hover_category % grid->n_x, r = (guint) data->hover_category / grid->n_x;
      double x = map_x (l, c), y = map_y (l, r + 1);

      set_rgb (cr, fg, 0.8);
      cairo_set_line_width (cr, 2);
      cairo_rectangle (cr, round (x) + 1, round (y) + 1, round (map_x (l, c + 1) - x) - 3, round (map_y (l, r) - y) - 3);
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

        draw_boxed_text (cr, data, line, (l->left + l->right) / 2, (l->top + l->bottom) / 2);
      }
  }

  /* the crossing: a dark line with a light edge, over every colour */
  segments = tb_chart_grid_crossing (grid, &n_segments);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  for (int pass = 0; pass < 2; pass++)
    {
      set_rgb (cr, pass == 0 ? 0xffffff : 0x241f31, pass == 0 ? 0.8 : 1);
      cairo_set_line_width (cr, pass == 0 ? 5 : 2.5);
      for (guint i = 0; i < n_segments; i++)
        {
          const TbChartSegment *s = &segments[i];

          cairo_move_to (cr, map_x (l, s->x0), map_y (l, s->y0));
          cairo_line_to (cr, map_x (l, s->x1), map_y (l, s->y1));
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
          double d = hypot ((gx - cx) * (map_x (l, 1) - map_x (l, 0)), (gy - cy) * (map_y (l, 0) - map_y (l, 1)));

          if (d > best)
            {
              best = d;
              s = &segments[i];
            }
        }
      double mx = (map_x (l, s->x0) + map_x (l, s->x1)) / 2;
      double my = (map_y (l, s->y0) + map_y (l, s->y1)) / 2;
      /* grid y points up, pixels down */
      double dx = s->hx, dy = -s->hy;
      double off = 14 + FONT_SIZE_PX * 3 * fabs (dx);

      draw_boxed_text (cr, data, grid->high_label, mx + dx * off, my + dy * (FONT_SIZE_PX + 6));
      draw_boxed_text (cr, data, grid->low_label, mx - dx * off, my - dy * (FONT_SIZE_PX + 6));
    }

  /* the axes: a label under each column and beside each row */
  set_rgb (cr, fg, 0.8);
  for (guint c = 0; c < grid->n_x; c++)
    draw_text (cr, g_ptr_array_index (grid->x_labels, c), (map_x (l, c) + map_x (l, c + 1)) / 2, l->bottom + 5, 0.5, 0, FALSE);
  for (guint r = 0; r < grid->n_y; r++)
    draw_text (cr, g_ptr_array_index (grid->y_labels, r), l->left - 5, (map_y (l, r) + map_y (l, r + 1)) / 2, 1, 0.5, FALSE);
  set_rgb (cr, fg, 0.9);
  if (data->x_label != NULL && *data->x_label)
    draw_text (cr, data->x_label, (l->left + l->right) / 2, height - PAD, 0.5, 1.0, FALSE);
  if (data->y_label != NULL && *data->y_label)
    {
      cairo_save (cr);
      cairo_translate (cr, PAD, (l->top + l->bottom) / 2);
      cairo_rotate (cr, -G_PI / 2);
      draw_text (cr, data->y_label, 0, 0, 0.5, 0, FALSE);
      cairo_restore (cr);
    }

  if (data->hover_active && data->hover_category >= 0)
    draw_hover (cr, data, l);
}

static char *
heat_hover_text (const TbChartData *data)
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

static char *
heat_hover (TbChartData         *data,
            const TbChartLayout *l,
            double               px,
            double               py)
{
  const TbChartGrid *grid = data->grid;
  int c = (int) floor ((px - l->left) / (l->right - l->left) * grid->n_x);
  int r = (int) floor ((l->bottom - py) / (l->bottom - l->top) * grid->n_y);

  if (c < 0 || r < 0 || c >= (int) grid->n_x || r >= (int) grid->n_y)
    return NULL;
  data->hover_category = r * (int) grid->n_x + c;
  data->hover_active = TRUE;
  return heat_hover_text (data);
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

  if (data->kind == TB_CHART_HEATMAP)
    {
      draw_heat (cr, data, &l, width, height, has_data);
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

  if (data->kind == TB_CHART_HEATMAP)
    return heat_hover (data, &l, px, py);
  if (data->kind == TB_CHART_LINES)
    {
      double f = (px - l.left) / (l.right - l.left);
      double x = l.x_log ? pow (10, log10 (l.x_min) + f * (log10 (l.x_max) - log10 (l.x_min)))
                         : l.x_min + f * (l.x_max - l.x_min);

      if (!nearest_x (data, x, l.x_log, &data->hover_x))
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
  gboolean svg, ok;

  g_return_val_if_fail (data != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  if (width < 16 || height < 16 || width > 16384 || height > 16384)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("Image size %d×%d is out of range (16 to 16384 pixels)"), width, height);
      return FALSE;
    }

  /* the file is opened first: one that cannot be written (a FIFO that
   * nothing reads) is refused before anything is drawn */
  svg = g_str_has_suffix (path, ".svg") || g_str_has_suffix (path, ".SVG");
  if (svg)
    {
      NnFileWriter *writer = NULL;
      NnError nn_error;

      nn_error_clear (&nn_error);
      if (nn_file_writer_open (path, &writer, &nn_error) != NN_OK)
        {
          g_propagate_error (error, tb_error_new (&nn_error));
          return FALSE;
        }
      surface = cairo_svg_surface_create_for_stream (tb_file_cairo_write, writer, width, height);
      cr = cairo_create (surface);
      tb_chart_render (cr, width, height, data);
      status = cairo_status (cr);
      cairo_destroy (cr);
      /* the SVG's last bytes go out when the surface finishes */
      cairo_surface_finish (surface);
      if (status == CAIRO_STATUS_SUCCESS)
        status = cairo_surface_status (surface);
      cairo_surface_destroy (surface);
      return tb_file_finish (writer, status, path, error);
    }

  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cr = cairo_create (surface);
  tb_chart_render (cr, width, height, data);
  status = cairo_status (cr);
  cairo_destroy (cr);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (surface);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _("Could not write “%s”: %s"), path, cairo_status_to_string (status));
      return FALSE;
    }
  ok = tb_file_write_png (surface, path, error);
  cairo_surface_destroy (surface);
  return ok;
}
