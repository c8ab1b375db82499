/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-sweep.h: a sweep as read back from its sweep.json (json-glib, bounded
 * like result files), the sweeps of a runs folder, and its charts: samples
 * per second over the swept axis, and the GPU-over-CPU crossover map.
 */
#pragma once

#include <gio/gio.h>

#include "tb-chart.h"
#include "tb-run.h"
#include "trainbench.h"

G_BEGIN_DECLS

/* What a sweep file may hold (the engine writes at most 3 axes of 32
 * values and 1024 points, a few hundred bytes each); more is refused,
 * naming the limit. */
#define TB_SWEEP_MAX_AXES 3
#define TB_SWEEP_MAX_VALUES 32
#define TB_SWEEP_MAX_POINTS 1024
#define TB_SWEEP_MAX_DEVICES 16
/* The file itself: 1024 points with their breakdowns are under 2 MB. */
#define TB_SWEEP_MAX_BYTES (8 * 1024 * 1024)
#define TB_SWEEP_MAX_DEPTH 16

typedef struct
{
  char *name;            /* "W", "D", "F", "batch" */
  guint n_values;
  gint64 values[TB_SWEEP_MAX_VALUES];
} TbSweepAxis;

typedef struct
{
  gint64 values[TB_SWEEP_MAX_AXES];   /* by the sweep's axes */
  gboolean has_value[TB_SWEEP_MAX_AXES];
  char *device;          /* "cpu", "cuda:0" */
  char *device_kind;     /* "cpu", "cuda" */
  char *device_name;
  char *spec;
  char *status;          /* "completed", "failed", "cancelled", "pending" */
  char *error;           /* when failed */
  double step_seconds_median, step_seconds_p10, step_seconds_p90;
  double samples_per_second; /* NAN when not measured */
  char *result;          /* the point's result file, beside sweep.json */
  TbBreakdown breakdown; /* where its timed steps' time went; measured FALSE: none */
} TbSweepPoint;

typedef struct
{
  char *path;            /* sweep.json */
  char *sweep_id;
  char *app_version;
  char *started_at;
  char *status;          /* "completed", "cancelled", "failed", "running" */
  char *os_name;
  char *cpu_model;
  char *dataset_name;
  char *family;          /* "mlp", "cnn", "spec" */
  char *template_spec;
  guint n_axes;
  TbSweepAxis axes[TB_SWEEP_MAX_AXES];
  GPtrArray *devices;    /* char *, owned */
  int threads;
  int steps;
  int warmup_steps;
  char *optimizer;
  char *conditions;      /* every point's: "default", "article", "custom" */
  GArray *points;        /* TbSweepPoint */
} TbSweep;

TbSweep *tb_sweep_ref (TbSweep *sweep);
void tb_sweep_unref (TbSweep *sweep);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TbSweep, tb_sweep_unref)

/* Does this text say it is a sweep file: is the "kind" member of its top
 * object "trainbench-sweep", wherever it comes? The members are walked,
 * not parsed, for sending an opened file to the Explore page or the Runs
 * page; tb_sweep_load_bytes checks the rest. */
gboolean tb_sweep_is_sweep_data (const char *data,
                                 gsize       length);
/* Read and check a sweep file (a regular file of at most
 * TB_SWEEP_MAX_BYTES). Errors name the file and say why. Touches no
 * shared state: the app calls it in workers. */
TbSweep *tb_sweep_load (const char  *path,
                        GError     **error);
TbSweep *tb_sweep_load_bytes (const char  *path,
                              GBytes      *contents,
                              GError     **error);
/* A sweep as a list shows it, without its points: what is kept of each
 * sweep of a runs folder (a sweep file may be 8 MiB). */
typedef struct
{
  char *path;            /* sweep.json */
  char *started_at;
  char *status;
  char *description;     /* tb_sweep_describe */
} TbSweepSummary;

void tb_sweep_summary_free (TbSweepSummary *summary);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TbSweepSummary, tb_sweep_summary_free)

/* The sweeps of a runs folder (RUNS/sweeps/ID/sweep.json), newest first,
 * each read once and kept as a summary. Links are not followed (neither
 * RUNS/sweeps, a folder in it nor its sweep.json: "up -> .." would list a
 * folder twice, "root -> /" read /sweep.json), and a file reached through
 * several hard links is read once; each of those, and each file that is no
 * readable sweep, is skipped with a GError that names it and says why,
 * added to `skipped` (may be NULL). */
GPtrArray *tb_sweep_list_folder (const char   *runs_folder,
                                 GPtrArray    *skipped,
                                 GCancellable *cancellable);

/* The index of an axis by name, or -1. */
int tb_sweep_axis_index (const TbSweep *sweep,
                         const char    *name);
/* The axes the charts take by default, the engine's
 * (nn_sweep_crossover_axes): x the first axis that is not "batch" (or the
 * only one), y "batch" (or the other one; -1 when the sweep has one axis). */
void tb_sweep_default_axes (const TbSweep *sweep,
                            int           *x_axis,
                            int           *y_axis);
/* How many points are over (completed, failed or cancelled). */
guint tb_sweep_count_done (const TbSweep *sweep);
/* "32 × 4 points · CPU, GPU 0 · Fashion-MNIST" and the like, for lists. */
char *tb_sweep_describe (const TbSweep *sweep);
/* An axis' name for people: "Width (W)", "Batch size". */
char *tb_sweep_axis_label (const char *name);

/* Samples per second against axis `x_axis` (log x when its values span 8
 * times or more), a line per device and value of the other axes. */
TbChartData *tb_sweep_speed_chart (const TbSweep *sweep,
                                   int            x_axis);
/* The GPU-over-CPU speed ratio (samples per second) over two axes (y_axis
 * -1: one row); the other axes at their first value. The first GPU of the
 * sweep against its CPU, each cell's ratio the engine's crossover
 * (nn_sweep_crossover_line). */
TbChartData *tb_sweep_crossover_chart (const TbSweep *sweep,
                                       int            x_axis,
                                       int            y_axis);
/* What the engine's crossover says along x_axis, a line per row of the
 * crossover chart (its y_axis's values, the other axes at their first):
 * "batch 32: GPU faster from W 128", translated; "" when the sweep lacks
 * a CPU or a GPU. */
char *tb_sweep_crossover_text (const TbSweep *sweep,
                               int            x_axis,
                               int            y_axis);
/* Where the steps' time went at each point of the slice the other charts
 * show (axes other than x_axis and y_axis at their first value), a row per
 * point in grid order, each part a share of the point's step. */
TbChartData *tb_sweep_breakdown_chart (const TbSweep *sweep,
                                       int            x_axis,
                                       int            y_axis);
/* The same as CSV: "sweep": a line per point; "crossover": a line per
 * cell with both speeds and their ratio. */
char *tb_sweep_format_csv (const TbSweep *sweep,
                           const char    *kind,
                           int            x_axis,
                           int            y_axis);

G_END_DECLS

G_BEGIN_DECLS

/* A sweep the engine is running, as the Explore page shows it while it
 * goes on: its request's axes and devices, every point pending. */
TbSweep *tb_sweep_new_for_engine (const NnSweep *engine_sweep,
                                  const char    *dataset_name);
/* Take a point's figures from the engine (its index says which). */
void tb_sweep_update_point (TbSweep            *sweep,
                            const NnSweepPoint *point);

/* Sort opened files in a worker: those that say they are sweep files
 * (regular files of at most TB_SWEEP_MAX_BYTES that tb_sweep_is_sweep_data
 * takes) from the others (result files, to import). */
void tb_sweep_sort_files_async (GFile              **files,
                                guint                n_files,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data);
/* The two lists (GFile, owned by the arrays); FALSE when cancelled. */
gboolean tb_sweep_sort_files_finish (GAsyncResult  *result,
                                     GPtrArray    **sweeps,
                                     GPtrArray    **others,
                                     GError       **error);

G_END_DECLS
