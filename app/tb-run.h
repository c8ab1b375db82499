/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-run.h: a run as read back from its schema-1 result file (json-glib),
 * whole or as a summary, CSV/JSON export and the comparison charts.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "tb-chart.h"
#include "trainbench.h"

G_BEGIN_DECLS

/* Result files come from other machines and other people, so what is read
 * is bounded. The engine writes at most 100,000 epochs of about 250 bytes
 * each (25 MB); json-glib's tree of a file takes about 17 times its size
 * while it is read (a 200 MB file took 3.4 GB). */
#define TB_RUN_MAX_BYTES (32 * 1024 * 1024)
/* Arrays and objects inside each other: a result has 4 levels; json-glib
 * recurses once per level and overflows the stack at about 100,000. */
#define TB_RUN_MAX_DEPTH 64
/* Values (array elements and object members): 100,000 epochs are 800,000.
 * json-glib keeps about 100 bytes per value: 32 MiB of "0," took 1.6 GB
 * and 13 s to parse. */
#define TB_RUN_MAX_VALUES 1000000
/* Names and labels shown in rows, legends and tables (bytes). */
#define TB_RUN_MAX_NAME 256
/* Longer texts: the model spec (the engine's is at most 2048 bytes) and the
 * error message of a failed run. */
#define TB_RUN_MAX_TEXT 8192

/* "breakdown" of a result file (or of a sweep's point): where a training
 * step's time went; measured FALSE for one without it (older runs,
 * --breakdown off). */
typedef struct
{
  gboolean measured;
  gint64 steps;
  double step_seconds;
  double part_seconds[NN_BREAKDOWN_PARTS]; /* mean per step; NAN: not in the file */
  double device_busy_seconds; /* NAN when not measured (the CPU) */
  double copy_bytes;          /* per step */
  double evaluation_seconds;
} TbBreakdown;

typedef struct
{
  int epoch;
  double seconds;
  double train_loss;
  double train_accuracy;
  double test_loss;
  double test_accuracy;
  double samples_per_second;
} TbEpoch;

typedef struct
{
  char *path;           /* the result file */
  char *run_id;
  char *started_at;
  char *status;         /* "completed", "cancelled", "failed" */
  char *error;
  char *os_name;
  char *os_version;
  char *os_emulated_by; /* "wine 8.0" when a Windows build ran under wine */
  char *cpu_model;
  char *device_kind;    /* "cpu", "cuda" */
  int device_index;
  char *device_name;
  int threads;
  gboolean tf32;
  char *dataset_name;
  int train_samples;
  int test_samples;
  char *model_name;
  char *spec;
  gint64 params;
  char *optimizer;
  double lr;
  int batch_size;
  int epochs_planned;
  /* the epochs in figures: what rows, tables and bars show */
  guint n_epochs;              /* the epochs the file records */
  double seconds_per_epoch;    /* their median time (nn_seconds_per_epoch); NAN: none finished */
  double final_accuracy;       /* test accuracy after the last one; NAN: none */
  /* a whole run's curves; NULL in a summary (tb_run_load_summary) */
  GArray *epochs;       /* TbEpoch */
  GArray *loss_curve;   /* double: loss */
  GArray *loss_steps;   /* double: the step each loss point ends at */
  gint64 step_count;
  double total_seconds;
  /* how the run fed and drove the device ("conditions"); a file without
   * them ran under the default ones */
  char *conditions;     /* "default", "article", "custom" */
  char *data_on;        /* "device", "pinned", "pageable" */
  gboolean graph;       /* steps replayed from a captured graph */
  gboolean loss_every_step;
  gboolean fused;
  TbBreakdown breakdown; /* "breakdown"; measured FALSE for a file without it */
  GBytes *contents;     /* a whole run's file as read, for JSON export; NULL in a summary */
} TbRun;

typedef enum
{
  TB_GROUP_DEVICE,
  TB_GROUP_OS,
} TbGroupBy;

TbRun *tb_run_ref (TbRun *run);
void tb_run_unref (TbRun *run);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TbRun, tb_run_unref)

/* Read a result file whole, without blocking and within bounds: only a
 * regular file (a FIFO, a device such as /dev/zero or a folder is refused
 * at once) of at most TB_RUN_MAX_BYTES. Errors name the file and say why. */
gboolean tb_run_read_file (const char  *path,
                           GBytes     **contents,
                           GError     **error);

/* Read and check a result file. Errors name the file and the field. The
 * tb_run_load* and tb_run_import functions touch no shared state, so the app
 * calls them in worker threads. */
TbRun *tb_run_load (const char  *path,
                    GError     **error);
/* The same for a file already read into memory; `path` is where it came
 * from: the run's path and the name in errors. Text of more than
 * TB_RUN_MAX_BYTES, nested deeper than TB_RUN_MAX_DEPTH or with more than
 * TB_RUN_MAX_VALUES values is refused before it is parsed; long names are
 * cut (ending in "…"). */
TbRun *tb_run_load_data (const char  *path,
                         const char  *data,
                         gsize        length,
                         GError     **error);
/* The same, keeping a reference to `contents` instead of a copy. */
TbRun *tb_run_load_bytes (const char  *path,
                          GBytes      *contents,
                          GError     **error);
/* A summary of the run in `contents`, checked as tb_run_load_bytes checks
 * it: every field a row, a filter, a table and the bars of a comparison
 * show, and none of the parts that grow with the run (its epochs, loss
 * curve and the file itself), so a history of many runs takes memory by
 * their number, not their files' sizes. tb_run_load reads those parts
 * again for the runs whose curves are drawn. */
TbRun *tb_run_load_summary (const char  *path,
                            GBytes      *contents,
                            GError     **error);

/* The history's order: newest first, then by path (a stable total order). */
int tb_run_compare (const TbRun *a,
                    const TbRun *b);

/* Every readable result in a folder, whole, in tb_run_compare order (the
 * headless export's; the window's history reads summaries, in batches, in
 * tb-run-history.c); each file
 * that is not (a bad file never stops the others) is skipped, and its
 * GError, which names it and says why, added to `skipped` when not NULL.
 * A missing folder has no runs. NULL with G_IO_ERROR_CANCELLED when
 * `cancellable` is cancelled midway. */
GPtrArray *tb_run_load_folder (const char    *folder,
                               GPtrArray     *skipped,
                               GCancellable  *cancellable,
                               GError       **error);

/* Check the result file `source` (read once) and copy it whole into
 * `folder` under a file name made from its run id (nn_file_name_from_id);
 * a run already there is not written again (`copied` FALSE), and a file
 * of another run that has that name is left alone: the run gets the next
 * free name ("ID-2.json"). The run returned is a summary, with the copy's
 * path. */
TbRun *tb_run_import (const char  *source,
                      const char  *folder,
                      gboolean    *copied,
                      GError     **error);

/* Seconds per epoch as every table gives it: the median of the epochs'
 * times (nn_seconds_per_epoch); NAN when no epoch finished. */
double tb_run_seconds_per_epoch (const TbRun *run);
/* Test accuracy after the last epoch (NAN when none). */
double tb_run_final_accuracy (const TbRun *run);
/* Is it a whole run (tb_run_load), with its epochs and loss curve? */
gboolean tb_run_is_whole (const TbRun *run);
/* When the run started (UTC), or NULL when its file has no readable time. */
GDateTime *tb_run_get_started (const TbRun *run);
/* The same in local time, for people: "30 Nov 2026, 04:00" (NULL as above). */
char *tb_run_started_label (const TbRun *run);
/* "CPU · Intel Xeon" / "GPU · NVIDIA H200" */
char *tb_run_device_label (const TbRun *run);
/* "Debian GNU/Linux 12" */
char *tb_run_os_label (const TbRun *run);
/* A short model label: the preset name, or "custom" */
const char *tb_run_model_label (const TbRun *run);
/* The data set's name, or "?" */
const char *tb_run_dataset_label (const TbRun *run);
/* A row's title: "mlp-small · fashion-mnist", with "· article conditions"
 * for a run under other conditions than the default ones. */
char *tb_run_title (const TbRun *run);
/* A row's details: "CPU · AMD Ryzen 9 · Debian 12 · 10.88 median s/epoch ·
 * 98.00 % accuracy" (neither figure when no epoch finished), and the
 * conditions' switches on a second line. */
char *tb_run_details (const TbRun *run);
/* The error of a run that did not complete, on one line of at most 300
 * characters; NULL for one that completed or says nothing. */
char *tb_run_error_line (const TbRun *run);

/* Whether the run ran under other conditions than the default ones. */
gboolean tb_run_has_conditions (const TbRun *run);
/* "" for the default conditions, else "article conditions" or "custom
 * conditions": added to a run's labels in lists and charts, and to its
 * comparison group, so that such a run is never compared as a default one. */
const char *tb_run_conditions_label (const TbRun *run);
/* Every switch: "Article: data from pageable host memory, one launch per
 * op, loss read every step, unfused ops" (owned). */
char *tb_run_conditions_text (const TbRun *run);

/* Runs as a CSV table: a header and one line per run; no text from a file
 * can add rows or columns or start a spreadsheet formula. */
char *tb_runs_format_csv (GPtrArray *runs);
/* Export runs: a CSV table (one line per run) or a JSON array of the files
 * (a summary's file read again), written by the rules of tb-file.h. */
gboolean tb_runs_export_csv (GPtrArray   *runs,
                             const char  *path,
                             GError     **error);
gboolean tb_runs_export_json (GPtrArray   *runs,
                              const char  *path,
                              GError     **error);

/* Comparison: seconds per epoch, one bar per device (or OS) in groups of
 * the same model and data set (by OS also the same kind of device, CPU or
 * GPU), each noted with its speed-up against the group's first. */
TbChartData *tb_runs_compare_bars (GPtrArray *runs,
                                   TbGroupBy  group_by);
/* Overlaid test accuracy per epoch, one series per whole run (a summary
 * has no curve). */
TbChartData *tb_runs_compare_accuracy (GPtrArray *runs);
/* Overlaid training loss curves, one series per whole run. */
TbChartData *tb_runs_compare_loss (GPtrArray *runs);

/* The label of a part of a step's time ("Matrix products"), translated. */
const char *tb_run_part_label (NnBreakdownPart part);
/* Where a step's time went: a stacked bar per run, its parts in the
 * palette's colours, the GPU's busy time a line across it; a run whose
 * file has no breakdown is a row that says so. */
TbChartData *tb_runs_breakdown_chart (GPtrArray *runs);
/* The same chart over any rows: a row per label and its breakdown (n of
 * each), in seconds per step or, with `shares`, in percent of each row's
 * step (rows of very different step times side by side: a sweep's points),
 * each part's seconds then on hover. */
TbChartData *tb_breakdown_chart (const char *const  *labels,
                                 const TbBreakdown **breakdowns,
                                 guint               n,
                                 gboolean            shares);

G_END_DECLS
