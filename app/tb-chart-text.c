/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-chart-text.c: the chart's text: labels in its font made drawable
 * whatever a file held, measured and placed by an anchor; the title,
 * wrapped and cut short; boxed labels; values in a hover read-out.
 */
#define G_LOG_DOMAIN "trainbench-chart"

#include <math.h>
#include <string.h>

#include "tb-chart-private.h"

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

PangoLayout *
_tb_chart_make_layout (cairo_t    *cr,
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
void
_tb_chart_draw_text (cairo_t    *cr,
                     const char *text,
                     double      x,
                     double      y,
                     double      ax,
                     double      ay,
                     gboolean    bold)
{
  PangoLayout *layout = _tb_chart_make_layout (cr, text, FONT_SIZE_PX, bold);
  int w, h;

  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_move_to (cr, round (x - ax * w), round (y - ay * h));
  pango_cairo_show_layout (cr, layout);
  g_object_unref (layout);
}

int
_tb_chart_text_width (cairo_t    *cr,
                      const char *text)
{
  PangoLayout *layout = _tb_chart_make_layout (cr, text, FONT_SIZE_PX, FALSE);
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
PangoLayout *
_tb_chart_title_layout (cairo_t           *cr,
                        const TbChartData *data,
                        int                width)
{
  PangoLayout *pl = _tb_chart_make_layout (cr, data->title, FONT_SIZE_PX, TRUE);

  pango_layout_set_width (pl, MAX (width - PAD * 4 - 32, 20) * PANGO_SCALE);
  pango_layout_set_wrap (pl, PANGO_WRAP_WORD_CHAR);
  pango_layout_set_height (pl, -TITLE_LINES);
  pango_layout_set_ellipsize (pl, PANGO_ELLIPSIZE_END);
  return pl;
}

/* A cairo_t to measure text on when none is at hand. */
cairo_t *
_tb_chart_scratch_cr (void)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *cr = cairo_create (surface);

  cairo_surface_destroy (surface);
  return cr;
}

int
_tb_chart_title_lines (cairo_t           *cr,
                       const TbChartData *data,
                       int                width)
{
  PangoLayout *pl = _tb_chart_title_layout (cr, data, width);
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

  cr = _tb_chart_scratch_cr ();
  pl = _tb_chart_title_layout (cr, data, width);
  whole = !pango_layout_is_ellipsized (pl);
  g_object_unref (pl);
  cairo_destroy (cr);
  return whole;
}

char *
_tb_chart_format_value (double value)
{
  if (fabs (value) >= 1000)
    return g_strdup_printf ("%.0f", value);
  if (fabs (value) >= 10)
    return g_strdup_printf ("%.1f", value);
  return g_strdup_printf ("%.4g", value);
}

/* Text on a pale box, readable over any cell. */
void
_tb_chart_draw_boxed_text (cairo_t           *cr,
                           const TbChartData *data,
                           const char        *text,
                           double             x,
                           double             y)
{
  PangoLayout *pl = _tb_chart_make_layout (cr, text, FONT_SIZE_PX, TRUE);
  int w, h;

  pango_layout_get_pixel_size (pl, &w, &h);
  _tb_chart_set_rgb (cr, data->dark ? 0x241f31 : 0xffffff, 0.85);
  cairo_rectangle (cr, round (x - w / 2.0) - 3, round (y - h / 2.0) - 1, w + 6, h + 2);
  cairo_fill (cr);
  _tb_chart_set_rgb (cr, _tb_chart_fg_color (data), 1);
  cairo_move_to (cr, round (x - w / 2.0), round (y - h / 2.0));
  pango_cairo_show_layout (cr, pl);
  g_object_unref (pl);
}
