/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-chart.c: the chart renderer's entry points. Plain drawing on a cairo_t
 * and a size, no widgets, so the live chart, PNG/SVG export and the tests
 * draw the same way; each kind's layout, drawing and hover are in its own
 * file (tb-chart-lines.c, -bars.c, -stacked.c, -heatmap.c), over the axes,
 * the legend and the text they share (tb-chart-private.h).
 */
#define G_LOG_DOMAIN "trainbench-chart"

#include "tb-config.h"

#include <math.h>

#include <cairo-svg.h>
#include <gio/gio.h>
#include <glib/gi18n.h>

#include "tb-chart-private.h"
#include "tb-error.h"
#include "tb-file.h"

gboolean
tb_chart_compute_layout (const TbChartData *data,
                         int                width,
                         int                height,
                         TbChartLayout     *layout)
{
  g_return_val_if_fail (data != NULL, FALSE);
  g_return_val_if_fail (layout != NULL, FALSE);

  layout->x_log = FALSE;
  if (data->kind == TB_CHART_STACKED)
    return _tb_chart_stacked_layout (data, width, height, layout);
  if (data->kind == TB_CHART_HEATMAP)
    return _tb_chart_heat_layout (data, width, height, layout);
  return _tb_chart_xy_layout (data, width, height, layout);
}

/* The hover read-out of the kind. */
static char *
hover_text (const TbChartData *data)
{
  if (data->kind == TB_CHART_HEATMAP)
    return _tb_chart_heat_hover_text (data);
  if (data->kind == TB_CHART_LINES)
    return _tb_chart_lines_hover_text (data);
  return _tb_chart_bars_hover_text (data);
}

void
_tb_chart_draw_hover (cairo_t             *cr,
                      const TbChartData   *data,
                      const TbChartLayout *l)
{
  g_autofree char *text = NULL;
  PangoLayout *pl;
  int w, h;
  double bx, by;

  if (data->kind == TB_CHART_LINES)
    {
      double px = _tb_chart_map_x (l, data->hover_x);

      _tb_chart_set_rgb (cr, _tb_chart_fg_color (data), 0.5);
      cairo_set_line_width (cr, 1);
      cairo_move_to (cr, round (px) + 0.5, l->top);
      cairo_line_to (cr, round (px) + 0.5, l->bottom);
      cairo_stroke (cr);
    }

  text = hover_text (data);
  pl = _tb_chart_make_layout (cr, text, FONT_SIZE_PX, FALSE);
  pango_layout_get_pixel_size (pl, &w, &h);
  bx = l->right - w - 12;
  by = l->top + 4;
  if (data->kind == TB_CHART_LINES && _tb_chart_map_x (l, data->hover_x) > (l->left + l->right) / 2)
    bx = l->left + 8;
  _tb_chart_set_rgb (cr, data->dark ? 0x303030 : 0xffffff, 0.92);
  cairo_rectangle (cr, bx - 4, by - 3, w + 8, h + 6);
  cairo_fill_preserve (cr);
  _tb_chart_set_rgb (cr, _tb_chart_fg_color (data), 0.3);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);
  _tb_chart_set_rgb (cr, _tb_chart_fg_color (data), 1);
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

  _tb_chart_set_rgb (cr, data->dark ? 0x1e1e1e : 0xffffff, 1);
  cairo_paint (cr);

  {
    PangoLayout *pl = _tb_chart_title_layout (cr, data, width);

    _tb_chart_set_rgb (cr, _tb_chart_fg_color (data), 1);
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
      _tb_chart_draw_heat (cr, data, &l, width, height, has_data);
      cairo_restore (cr);
      return;
    }

  _tb_chart_draw_legend (cr, data, width);
  if (data->kind == TB_CHART_STACKED)
    {
      _tb_chart_draw_stacked (cr, data, &l);
      if (has_data && data->hover_active)
        _tb_chart_draw_hover (cr, data, &l);
      cairo_restore (cr);
      return;
    }
  _tb_chart_draw_axes (cr, data, &l, height);

  if (!has_data)
    {
      _tb_chart_set_rgb (cr, _tb_chart_fg_color (data), 0.5);
      _tb_chart_draw_text (cr, _("No data yet"), (l.left + l.right) / 2, (l.top + l.bottom) / 2,
                           0.5, 0.5, FALSE);
    }
  else if (data->kind == TB_CHART_LINES)
    _tb_chart_draw_lines (cr, data, &l);
  else
    _tb_chart_draw_bars (cr, data, &l);

  if (has_data && data->hover_active)
    _tb_chart_draw_hover (cr, data, &l);

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
  gboolean picked;

  g_return_val_if_fail (data != NULL, NULL);

  data->hover_active = FALSE;
  if (!tb_chart_compute_layout (data, width, height, &l))
    return NULL;
  if (!(px >= l.left && px <= l.right && py >= l.top && py <= l.bottom))
    return NULL;

  if (data->kind == TB_CHART_HEATMAP)
    picked = _tb_chart_heat_pick (data, &l, px, py);
  else if (data->kind == TB_CHART_LINES)
    picked = _tb_chart_lines_pick (data, &l, px);
  else if (data->kind == TB_CHART_STACKED)
    picked = _tb_chart_stacked_pick (data, &l, py);
  else
    picked = _tb_chart_bars_pick (data, &l, px);
  if (!picked)
    return NULL;
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
