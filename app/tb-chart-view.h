/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-chart-view.h: a widget that shows a TbChartData through tb_chart_render,
 * with a hover read-out and "Export…" to PNG or SVG.
 */
#pragma once

#include <gtk/gtk.h>

#include "tb-chart.h"

G_BEGIN_DECLS

#define TB_TYPE_CHART_VIEW (tb_chart_view_get_type ())
G_DECLARE_FINAL_TYPE (TbChartView, tb_chart_view, TB, CHART_VIEW, GtkWidget)

GtkWidget *tb_chart_view_new (void);
/* Takes ownership of `data`. */
void tb_chart_view_set_data (TbChartView *self,
                             TbChartData *data);
/* Borrowed; after changing it call tb_chart_view_changed. */
TbChartData *tb_chart_view_get_data (TbChartView *self);
void tb_chart_view_changed (TbChartView *self);
/* Open a save dialog and export the chart (PNG or SVG, chosen size). */
void tb_chart_view_export (TbChartView *self);
/* What the export dialog does with its answer: write the chart to `path`
 * (adding .png or .svg by `format` when it has neither) at `size` ("widget"
 * or "WIDTHxHEIGHT"); the file written goes to *saved_path. */
gboolean tb_chart_view_save (TbChartView  *self,
                             const char   *path,
                             const char   *format,
                             const char   *size,
                             char        **saved_path,
                             GError      **error);
/* A file-name stem for exports ("loss"). */
void tb_chart_view_set_name (TbChartView *self,
                             const char  *name);

G_END_DECLS
