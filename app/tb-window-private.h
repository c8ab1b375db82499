/* tb-window-private.h: the main window's instance struct, shared by
 * tb-window.c (frame, Train page, runs), tb-window-data.c (Data page) and
 * tb-window-runs.c (history, comparison, import, export).
 */
#pragma once

#include <adwaita.h>

#include "tb-chart-view.h"
#include "tb-devices.h"
#include "tb-model-builder.h"
#include "tb-run.h"
#include "tb-run-queue.h"
#include "tb-session.h"
#include "tb-window.h"

typedef struct _TbRunsJob TbRunsJob;

struct _TbWindow
{
  AdwApplicationWindow parent_instance;

  /* owned */
  GSettings *settings;
  TbSession *session;            /* the current or last run */
  TbRunQueue *run_queue;         /* runs still to do (reproduce) */
  GPtrArray *runs;               /* TbRun *: the history, in tb_run_compare order, one per row */
  GQueue *runs_jobs;             /* TbRunsJob *: history loads still to start, in order */
  TbRunsJob *runs_job;           /* borrowed from its GTask: the load in its worker, or NULL */
  GHashTable *runs_want_selected; /* char * paths to tick once their rows arrive */
  GPtrArray *runs_skipped;       /* GError *: files of the runs folder that are not readable results */
  GCancellable *download_cancellable;
  GCancellable *preview_cancellable;
  GCancellable *devices_cancellable; /* the device list's worker; NULL once it answered */
  char *dataset;                 /* chosen data set: name or path */
  NnDeviceInfo devices[TB_MAX_DEVICES];
  int n_devices;                 /* 0 until the worker has listed them */
  int device_index;              /* index into devices[] */
  GtkWidget *device_checks[TB_MAX_DEVICES]; /* the radio button of each device */
  guint loss_shown;              /* points already in the loss chart */
  guint speed_shown;
  guint epochs_shown;
  AdwToast *last_toast;          /* weak */
  gint64 last_redraw;            /* monotonic µs of the last live-chart redraw */
  guint redraw_source;           /* pending throttled redraw */
  gboolean close_when_done;      /* closed during a run: go once it is saved */

  /* template widgets */
  AdwToastOverlay *toast_overlay;
  AdwViewStack *stack;
  AdwViewSwitcherTitle *switcher_title;
  GtkWidget *start_button;
  GtkWidget *stop_button;
  GtkBox *model_page;
  GtkBox *data_page;
  GtkPaned *train_page;
  GtkPaned *runs_page;

  /* Model page */
  TbModelBuilder *builder;

  /* Data page */
  GtkWidget *dataset_group;       /* AdwPreferencesGroup of known sets */
  GtkWidget *other_row;           /* AdwActionRow for a chosen file */
  GtkWidget *other_check;
  GtkWidget *download_button;
  GtkWidget *download_cancel;
  GtkWidget *download_progress;
  GtkWidget *train_limit_spin;
  GtkWidget *test_limit_spin;
  GtkWidget *samples_picture;
  GtkWidget *samples_label;

  /* Train page */
  GtkWidget *device_group;        /* AdwPreferencesGroup: a radio row per device */
  GtkWidget *device_looking_row;  /* in the group until the devices are listed */
  GtkWidget *threads_spin;
  GtkWidget *optimizer_row;       /* AdwComboRow */
  GtkWidget *lr_spin;
  GtkWidget *momentum_row;
  GtkWidget *momentum_spin;
  GtkWidget *rho_row;
  GtkWidget *rho_spin;
  GtkWidget *beta1_row;
  GtkWidget *beta1_spin;
  GtkWidget *beta2_row;
  GtkWidget *beta2_spin;
  GtkWidget *batch_spin;
  GtkWidget *epochs_spin;
  GtkWidget *seed_spin;
  GtkWidget *tf32_switch;
  GtkWidget *tf32_row;
  GtkWidget *train_start_button;
  GtkWidget *inspect_button;
  GtkWidget *progress_bar;
  GtkWidget *eta_label;
  GtkWidget *status_label;
  TbChartView *loss_chart;
  TbChartView *accuracy_chart;
  TbChartView *epoch_time_chart;
  TbChartView *speed_chart;

  /* Runs page */
  GtkWidget *runs_list;           /* GtkListBox */
  GtkWidget *runs_empty;
  GtkWidget *runs_skipped_button; /* "2 files skipped", while there are any */
  GtkWidget *group_device_toggle;
  GtkWidget *group_os_toggle;
  TbChartView *compare_bars;
  TbChartView *compare_accuracy;
  TbChartView *compare_loss;
};

/* tb-window.c */
void _tb_window_toast (TbWindow   *self,
                       const char *text);
/* Dismiss the toast shown last (before a screenshot, say). */
void _tb_window_dismiss_toast (TbWindow *self);
/* The error's message is bounded (a message can quote a file's text). */
void _tb_window_error (TbWindow     *self,
                       const char   *headline,
                       const GError *error);
/* `text` cut to at most `max_chars` characters, ending in "…", so a label
 * or a dialog with text from a file keeps a size that fits a screen. */
char *_tb_window_bound_text (const char *text,
                             gsize       max_chars);
void _tb_window_update_actions (TbWindow *self);
char *_tb_window_runs_dir (TbWindow *self);
/* Is the device list still being asked for (Train disabled until then)? */
gboolean _tb_window_devices_pending (TbWindow *self);

/* tb-window-data.c */
void _tb_window_data_init (TbWindow *self);
void _tb_window_data_set (TbWindow   *self,
                          const char *name_or_path);
int _tb_window_data_train_limit (TbWindow *self);
int _tb_window_data_test_limit (TbWindow *self);

/* tb-window-runs.c */
void _tb_window_runs_class_init (GtkWidgetClass *widget_class);
void _tb_window_runs_init (TbWindow *self);
/* Read the whole runs folder again, in a worker; the rows follow. */
void _tb_window_runs_reload (TbWindow *self);
/* Read one new result file (a run just saved), in a worker, and add its
 * row; `select` ticks it for the comparison. */
void _tb_window_runs_add (TbWindow   *self,
                          const char *path,
                          gboolean    select);
/* History loads queued or in their worker (0: the rows are up to date). */
guint _tb_window_runs_pending (TbWindow *self);
/* The dialog text naming the files of the runs folder last skipped, and why. */
char *_tb_window_runs_skipped_text (TbWindow *self);
/* Cancel the loads: the window is going. */
void _tb_window_runs_dispose (TbWindow *self);
/* Check and copy result files into the runs folder, in a worker; they are
 * then listed once each, ticked, and the Runs page shown. */
void _tb_window_runs_import (TbWindow  *self,
                             GFile    **files,
                             guint      n_files);
