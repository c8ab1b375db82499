/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-chart.h: chart data (series, categories, axes) and the one renderer that
 * draws it on any cairo_t: used by the live widget, PNG/SVG export and tests.
 */
#pragma once

#include <cairo.h>
#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  TB_CHART_LINES,    /* x/y series drawn as lines (curves over steps or epochs) */
  TB_CHART_BARS,     /* grouped bars: one group per category, one bar per series */
  TB_CHART_STACKED,  /* horizontal stacked bars: one row per category, the series' values
                      * laid end to end along x (where a step's time went) */
} TbChartKind;

/* How values map onto the y axis. */
typedef enum
{
  TB_CHART_SCALE_AUTO,   /* linear; bars on a log scale when the tallest is
                          * TB_CHART_LOG_RATIO times the shortest or more */
  TB_CHART_SCALE_LINEAR,
  TB_CHART_SCALE_LOG,    /* decades; values of 0 or less are not drawn */
} TbChartScale;

/* Bars this many times taller than the shortest make it a sliver of a few
 * pixels on a linear axis (a GPU next to a CPU): AUTO turns to log there. */
#define TB_CHART_LOG_RATIO 20.0

typedef struct
{
  char *label;       /* owned; legend text */
  guint32 color;     /* 0xRRGGBB */
  GArray *x;         /* (n) double; for bars: unused */
  GArray *y;         /* (n) double; for bars: one value per category, NAN = none */
  GPtrArray *notes;  /* bars: per-category text drawn above the bar ("×3.2"), or NULL entries */
  gboolean marker;   /* stacked: a line across its row at its value, beside the stack */
} TbChartSeries;

typedef struct
{
  TbChartKind kind;
  char *title;          /* owned */
  char *x_label;        /* owned */
  char *y_label;        /* owned */
  GPtrArray *series;    /* TbChartSeries, owned */
  GPtrArray *categories; /* char *, owned; bars only */
  gboolean y_from_zero; /* include 0 in the y range */
  double y_ceiling;     /* the y axis never goes above this (1 for accuracy); NAN = none */
  TbChartScale y_scale; /* AUTO unless set */
  gboolean x_integer;   /* x ticks are whole numbers (epochs, steps) */
  gboolean dark;        /* draw for a dark background */
  char *missing_text;   /* owned; stacked: what a row without values says, NULL: "No data" */
  /* hover read-out, set by the widget; drawn when hover_active */
  gboolean hover_active;
  double hover_x;       /* in data units (lines) */
  int hover_category;   /* bars */
} TbChartData;

/* Where the plot area lies for a size, and the data ranges mapped onto it. */
typedef struct
{
  double left, top, right, bottom; /* plot rectangle in pixels */
  double x_min, x_max, y_min, y_max;
  gboolean y_log;                  /* y maps the values' logarithms; y_min and y_max are powers of ten */
} TbChartLayout;

/* The colour of series `index` in the shared palette (0xRRGGBB). */
guint32 tb_chart_palette (guint index);

TbChartData *tb_chart_data_new (TbChartKind  kind,
                                const char  *title,
                                const char  *x_label,
                                const char  *y_label);
void tb_chart_data_free (TbChartData *data);
TbChartData *tb_chart_data_copy (const TbChartData *data);

/* The new series is borrowed from `data`. color 0 picks the palette's next. */
TbChartSeries *tb_chart_data_add_series (TbChartData *data,
                                         const char  *label,
                                         guint32      color);
void tb_chart_series_append (TbChartSeries *series,
                             double         x,
                             double         y);
/* Bars: add a category and return its index. */
guint tb_chart_data_add_category (TbChartData *data,
                                  const char  *label);
/* Bars: set the value (and optional note) of a series in a category. */
void tb_chart_series_set_bar (TbChartSeries *series,
                              guint          category,
                              double         value,
                              const char    *note);
/* Stacked: what a row without any value says ("No breakdown recorded"). */
void tb_chart_data_set_missing_text (TbChartData *data,
                                     const char  *text);
/* Number of points over all series (for lines) or bars with a value. */
guint tb_chart_data_count_points (const TbChartData *data);

/* Is the y axis drawn on a log scale: LOG, or AUTO and bars that differ
 * TB_CHART_LOG_RATIO-fold? Never when no value is above 0. */
gboolean tb_chart_data_is_log (const TbChartData *data);

/* Compute the plot rectangle and data ranges for a size. Returns FALSE when
 * there is nothing to plot. */
gboolean tb_chart_compute_layout (const TbChartData *data,
                                  int                width,
                                  int                height,
                                  TbChartLayout     *layout);

/* The values the y axis has ticks at for a size, in ascending order: nice
 * steps, or on a log scale decades (every few when they are many; 2 and 5
 * times each too when they are tall). Returns how many were stored, at
 * most `max`, and never more than 64. */
guint tb_chart_y_ticks (const TbChartData *data,
                        int                width,
                        int                height,
                        double            *ticks,
                        guint              max);

/* Is the title shown whole at `width` (wrapped onto at most two lines), or
 * cut short with "…"? */
gboolean tb_chart_title_is_whole (const TbChartData *data,
                                  int                width);

/* Draw the chart into [0, width) x [0, height) of `cr`: background, title,
 * axes with ticks and labels, series, legend, hover read-out. */
void tb_chart_render (cairo_t           *cr,
                      int                width,
                      int                height,
                      const TbChartData *data);

/* The hover read-out text for a pointer at (px, py), or NULL; also sets the
 * hover fields of `data`. */
char *tb_chart_hover (TbChartData *data,
                      int          width,
                      int          height,
                      double       px,
                      double       py);

/* Write the chart to a PNG or SVG file (by the file's extension). */
gboolean tb_chart_export (const TbChartData *data,
                          const char        *path,
                          int                width,
                          int                height,
                          GError           **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TbChartData, tb_chart_data_free)

G_END_DECLS
