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
  TB_CHART_HEATMAP,  /* a grid of cells on a diverging colour scale (TbChartGrid) */
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

/* A heat map's cells: columns along x, rows along y (row 0 at the bottom),
 * each a value coloured on a log scale that diverges from `center`: below
 * it towards `low_color`, above towards `high_color`. */
typedef struct
{
  guint n_x, n_y;
  GPtrArray *x_labels;  /* (n_x) char *, owned: the columns' tick labels */
  GPtrArray *y_labels;  /* (n_y) char *, owned */
  GArray *cells;        /* (n_y * n_x) double, cells[row * n_x + col]; NAN = missing */
  GPtrArray *notes;     /* (n_y * n_x) char * or NULL, owned: the hover's detail */
  double center;        /* the neutral value (a ratio of 1) */
  char *low_label;      /* owned: what a value below center means ("CPU faster") */
  char *high_label;     /* owned: and above ("GPU faster") */
  guint32 low_color, high_color; /* 0xRRGGBB */
} TbChartGrid;

/* Where a heat map's values cross its center, between two cells, in grid
 * units: cell (col, row) covers [col, col + 1] x [row, row + 1]. (hx, hy)
 * points to the side above center. */
typedef struct
{
  double x0, y0, x1, y1;
  double hx, hy;
} TbChartSegment;

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
  gboolean x_log;       /* lines: x maps the values' logarithms (sizes 4 times apart) */
  TbChartGrid *grid;    /* heat maps: the cells, owned */
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
  gboolean x_log;                  /* x maps the values' logarithms */
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

/* Heat maps: give `data` (a TB_CHART_HEATMAP) a grid of n_x by n_y missing
 * cells around `center` and return it (borrowed). */
TbChartGrid *tb_chart_data_set_grid (TbChartData *data,
                                     guint        n_x,
                                     guint        n_y,
                                     double       center);
/* Set a cell's value (NAN: missing) and its hover detail (may be NULL). */
void tb_chart_grid_set_cell (TbChartGrid *grid,
                             guint        col,
                             guint        row,
                             double       value,
                             const char  *note);
/* The colour a value is drawn in (0xRRGGBB): the neutral colour at
 * center, the low or high colour at `span` times away from it or more
 * (tb_chart_grid_span), mixed between on the log scale. */
guint32 tb_chart_grid_color (const TbChartGrid *grid,
                             double             value,
                             double             span,
                             gboolean           dark);
/* How far (a factor above 1) the grid's values reach from center: the
 * colour scale's end (at least 2, at most 100). */
double tb_chart_grid_span (const TbChartGrid *grid);
/* A cell's rectangle in pixels for a size; FALSE when it is not drawn. */
gboolean tb_chart_grid_cell_rect (const TbChartData *data,
                                  int                width,
                                  int                height,
                                  guint              col,
                                  guint              row,
                                  double            *x,
                                  double            *y,
                                  double            *w,
                                  double            *h);
/* The line where the values cross center, as segments between the cells
 * (interpolated on the log scale): returns the number of segments (free
 * them with g_free). */
TbChartSegment *tb_chart_grid_crossing (const TbChartGrid *grid,
                                        guint             *n_segments);

/* Write the chart to a PNG or SVG file (by the file's extension), by the
 * rules of tb-file.h for a file a user names. */
gboolean tb_chart_export (const TbChartData *data,
                          const char        *path,
                          int                width,
                          int                height,
                          GError           **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TbChartData, tb_chart_data_free)

G_END_DECLS
