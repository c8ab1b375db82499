/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-chart-private.h: what the chart renderer's files share: sizes and
 * bounds, colours, text, the axes' mapping, the legend, and each kind's
 * layout, drawing and hover (tb-chart.c dispatches on the kind).
 */
#pragma once

#include <pango/pangocairo.h>

#include "tb-chart.h"

G_BEGIN_DECLS

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
/* A log axis shows values from this up to MAX_MAGNITUDE: powers of ten
 * below it are denormal or 0. */
#define MIN_MAGNITUDE 1e-300

/* ------------------------------------------------------------ colours */

static inline void
_tb_chart_set_rgb (cairo_t *cr,
                   guint32  color,
                   double   alpha)
{
  cairo_set_source_rgba (cr,
                         ((color >> 16) & 0xff) / 255.0,
                         ((color >> 8) & 0xff) / 255.0,
                         (color & 0xff) / 255.0,
                         alpha);
}

static inline guint32
_tb_chart_fg_color (const TbChartData *data)
{
  return data->dark ? 0xeeeeee : 0x241f31;
}

/* ------------------------------------------------------------ data (tb-chart-data.c) */

/* The smallest and largest value above 0 (within MAX_MAGNITUDE); FALSE
 * when there is none. */
gboolean _tb_chart_positive_range (const TbChartData *data,
                                   double            *lo,
                                   double            *hi);

/* ------------------------------------------------------------ text (tb-chart-text.c) */

/* Text in the chart's font at `size_px`, drawable by cairo whatever the
 * file it came from held. */
PangoLayout *_tb_chart_make_layout (cairo_t    *cr,
                                    const char *text,
                                    double      size_px,
                                    gboolean    bold);
/* Draw text with its anchor at (x, y); ax, ay in [0, 1] pick the anchor point. */
void _tb_chart_draw_text (cairo_t    *cr,
                          const char *text,
                          double      x,
                          double      y,
                          double      ax,
                          double      ay,
                          gboolean    bold);
int _tb_chart_text_width (cairo_t    *cr,
                          const char *text);
/* Text on a pale box, readable over any colour, centred on (x, y). */
void _tb_chart_draw_boxed_text (cairo_t           *cr,
                                const TbChartData *data,
                                const char        *text,
                                double             x,
                                double             y);
/* The title as drawn at `width`, and how many lines it takes. */
PangoLayout *_tb_chart_title_layout (cairo_t           *cr,
                                     const TbChartData *data,
                                     int                width);
int _tb_chart_title_lines (cairo_t           *cr,
                           const TbChartData *data,
                           int                width);
/* A cairo_t to measure text on when none is at hand. */
cairo_t *_tb_chart_scratch_cr (void);
/* A value in a hover read-out: "1234", "12.3", "0.1234". */
char *_tb_chart_format_value (double value);

/* ------------------------------------------------------------ legend (tb-chart-legend.c) */

/* Where the legend's first row is: under a title of `lines` lines. */
double _tb_chart_legend_top (int lines);
/* Lay the legend out in rows that fit the width under a title of `title`
 * lines; draws when `draw`. Returns the number of rows. */
int _tb_chart_legend_pass (cairo_t           *cr,
                           const TbChartData *data,
                           int                width,
                           int                title,
                           gboolean           draw);
void _tb_chart_draw_legend (cairo_t           *cr,
                            const TbChartData *data,
                            int                width);

/* ------------------------------------------------------------ axes (tb-chart-axes.c) */

/* A "nice" step (1, 2 or 5 times a power of ten) near range / target. */
double _tb_chart_nice_step (double range,
                            int    target);
/* The ticks of an axis from lo to hi, about `target` of them at a nice
 * step (whole numbers when `integer`), at most MAX_TICKS, each greater
 * than the one before. Returns how many; *step is the step used. */
int _tb_chart_axis_ticks (double   lo,
                          double   hi,
                          int      target,
                          gboolean integer,
                          double   ticks[MAX_TICKS],
                          double  *step_out);
char *_tb_chart_format_tick (double value,
                             double step);
/* Data to pixels, bounded so that a point far off the chart is drawn (and
 * clipped) a little way off it. */
double _tb_chart_map_x (const TbChartLayout *l,
                        double               x);
double _tb_chart_map_y (const TbChartLayout *l,
                        double               y);
/* Can `y` be drawn on this axis? */
gboolean _tb_chart_plottable (const TbChartLayout *l,
                              double               y);
/* The layout of the kinds with an x and a y axis (lines and bars). */
gboolean _tb_chart_xy_layout (const TbChartData *data,
                              int                width,
                              int                height,
                              TbChartLayout     *layout);
/* Grid lines, ticks and their labels, the axes and their titles (lines
 * and bars). */
void _tb_chart_draw_axes (cairo_t             *cr,
                          const TbChartData   *data,
                          const TbChartLayout *l,
                          int                  height);

/* ------------------------------------------------------------ lines (tb-chart-lines.c) */

void _tb_chart_draw_lines (cairo_t             *cr,
                           const TbChartData   *data,
                           const TbChartLayout *l);
/* Hover at pixel column px: sets data->hover_x to the nearest point's x;
 * FALSE when there is none. */
gboolean _tb_chart_lines_pick (TbChartData         *data,
                               const TbChartLayout *l,
                               double               px);
char *_tb_chart_lines_hover_text (const TbChartData *data);

/* ------------------------------------------------------------ bars (tb-chart-bars.c) */

void _tb_chart_draw_bars (cairo_t             *cr,
                          const TbChartData   *data,
                          const TbChartLayout *l);
/* Hover at pixel column px: sets data->hover_category; FALSE when it is
 * no category. */
gboolean _tb_chart_bars_pick (TbChartData         *data,
                              const TbChartLayout *l,
                              double               px);
/* The read-out of data->hover_category: its label and each series' value
 * and note (bars, and the stacked chart's rows). */
char *_tb_chart_bars_hover_text (const TbChartData *data);

/* ------------------------------------------------------------ stacked (tb-chart-stacked.c) */

gboolean _tb_chart_stacked_layout (const TbChartData *data,
                                   int                width,
                                   int                height,
                                   TbChartLayout     *layout);
void _tb_chart_draw_stacked (cairo_t             *cr,
                             const TbChartData   *data,
                             const TbChartLayout *l);
/* Hover at pixel row py: sets data->hover_category; FALSE when it is no
 * row. */
gboolean _tb_chart_stacked_pick (TbChartData         *data,
                                 const TbChartLayout *l,
                                 double               py);

/* ------------------------------------------------------------ heat maps (tb-chart-heatmap.c) */

void _tb_chart_grid_free (TbChartGrid *grid);
TbChartGrid *_tb_chart_grid_copy (const TbChartGrid *grid);
gboolean _tb_chart_heat_layout (const TbChartData *data,
                                int                width,
                                int                height,
                                TbChartLayout     *layout);
/* The colour scale, the cells, the crossing line and the axes' labels;
 * "No data yet" when !has_data. */
void _tb_chart_draw_heat (cairo_t             *cr,
                          const TbChartData   *data,
                          const TbChartLayout *l,
                          int                  width,
                          int                  height,
                          gboolean             has_data);
/* Hover at (px, py): sets data->hover_category to the cell's index; FALSE
 * when it is no cell. */
gboolean _tb_chart_heat_pick (TbChartData         *data,
                              const TbChartLayout *l,
                              double               px,
                              double               py);
char *_tb_chart_heat_hover_text (const TbChartData *data);

/* ------------------------------------------------------------ hover (tb-chart.c) */

/* The hover read-out: a line at the x of lines, and the text in a box. */
void _tb_chart_draw_hover (cairo_t             *cr,
                           const TbChartData   *data,
                           const TbChartLayout *l);

G_END_DECLS
