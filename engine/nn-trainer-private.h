/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-trainer-private.h: one training run's state (NnTrainRun), shared by the
 * trainer's three units: the loop (nn-trainer.c), where its batches come
 * from (nn-trainer-feed.c) and how its steps are timed (nn-trainer-timing.c).
 */
#pragma once

#include "nn-model-private.h"
#include "nn-plan.h"

/* Per-step times kept exactly up to this many steps, then sampled. */
#define NN_STEP_TIMES_MAX (1 << 20)

/* Where the training batches come from (nn-trainer-feed.c), as the run's
 * conditions say (NnConditions.data): the training set resident on the
 * device and each batch gathered there (NN_DATA_DEVICE), or each batch
 * gathered on the host and copied to the device every step from
 * page-locked (NN_DATA_PINNED) or pageable (NN_DATA_PAGEABLE) memory. The
 * test set, unless the run skips evaluation, is resident on the device in
 * all three. */
typedef struct
{
  NnDataOn data;

  /* on the device, owned */
  uint8_t *train_images; /* (train, sample): NN_DATA_DEVICE only */
  uint8_t *train_labels; /* (train): NN_DATA_DEVICE only */
  int32_t *perm;         /* (train): this epoch's order, NN_DATA_DEVICE only */
  uint8_t *test_images;  /* (test, sample): NULL when the run skips evaluation */
  uint8_t *test_labels;  /* (test) */
  int32_t *ident;        /* (test): 0, 1, 2, ... */

  /* on the host, owned */
  int32_t *host_perm;    /* (train): this epoch's order */
  bool next_perm_ready;  /* host_perm already holds the next epoch's order */
  /* batches gathered on the host (data pinned or pageable): host_alloc's
   * memory when pinned, else malloc's; NULL when the data is on the device */
  void *staging;         /* stage_x, then stage_labels, then stage_targets */
  float *stage_x;        /* (batch, sample) */
  int32_t *stage_labels; /* (batch) */
  float *stage_targets;  /* (batch, classes), one-hot; NULL for sparse labels */
} NnTrainFeed;

/* One point of the loss curve: a bucket of progress intervals. */
typedef struct
{
  double sum;
  double samples;
  int64_t step; /* the step the bucket ends at */
} NnCurvePoint;

/* The run's figures of time (nn-trainer-timing.c): each step's time, the
 * loss curve, and where the steps' time went (NnTrainConfig.breakdown). */
typedef struct
{
  /* step times */
  double *step_times;       /* (step_times_cap), owned */
  int64_t step_times_count; /* steps timed: those after the warm-up */
  int64_t step_times_cap;   /* min (total steps, NN_STEP_TIMES_MAX) */
  uint64_t reservoir_rng;

  /* loss curve: streaming buckets, merged in pairs when full */
  NnCurvePoint curve[NN_LOSS_CURVE_MAX];
  int32_t curve_count;
  int64_t curve_span;       /* intervals per bucket */
  int64_t curve_fill;       /* intervals in the open bucket */

  /* where the steps' time went: the clock runs on this thread over a
   * window of steps (each call of the steps on the CPU, an interval
   * between two reads of the loss sums on an asynchronous backend) and is
   * added to the totals when the window's steps are counted, so a window
   * a cancel or an error cut short adds nothing */
  bool breakdown;           /* measured at all (NnTrainConfig.breakdown) */
  bool device_timer;        /* the backend times spans of its stream */
  bool span_open;           /* a span of the backend's timer is open */
  int32_t span_steps;       /* the steps launched inside it */
  NnStepClock clock;
  double part_total[NN_BREAKDOWN_PARTS];
  double window_bytes;      /* host-to-device bytes of the open window */
  double copy_bytes;
  int64_t timed_steps;
  double timed_seconds;     /* the timed steps' wall time: their windows' */
  double device_seconds;    /* device time of the spans read back */
  int64_t device_steps;     /* the steps those spans covered */
  double evaluation_seconds;
} NnTrainTiming;

/* One run of nn_trainer_run. */
typedef struct
{
  NnTrainer *trainer;            /* borrowed */
  const NnTrainConfig *config;   /* borrowed: trainer's */
  const NnDataset *dataset;      /* borrowed: trainer's */
  NnModel *model;                /* borrowed: trainer's */
  NnBackend *backend;            /* borrowed: model's */
  const NnBackendOps *ops;
  bool async;                    /* ops are asynchronous: time whole intervals */
  bool cancelled;
  /* the run's conditions (NnConditions; the data's place is the feed's) */
  bool loss_every_step;          /* stats read back after every step */
  bool step_clock;               /* each step timed on its own: the CPU, or a step that waits */

  /* the parameters the dense layers update in the backward (find_dense_update) */
  NnDenseUpdate update;
  NnBackendOptimizer opt;
  /* the passes, planned once in run_setup: a training step on a full batch
   * and on the epoch's last, shorter one; the evaluation on a full test
   * batch (or the whole test set, when smaller) and on the last */
  NnPlan plan_full;
  NnPlan plan_rest;
  NnPlan eval_full;
  NnPlan eval_rest;
  NnPlanStep *plan_steps;        /* (plan_step_count), owned until the result takes them:
                                  * plan_full's */
  int32_t plan_step_count;

  float stats_host[2];
  double stats_sum[2];           /* loss_every_step: the sums read since the last report */
  int32_t sample_size;
  int32_t steps_per_epoch;
  int32_t remainder;             /* rows in the last batch of an epoch, 0 when even */
  int64_t total_steps;
  int32_t progress_every;

  /* capture */
  bool can_capture;
  bool capture_failed;
  void *graph;                   /* owned: one full-batch step */
  void *graph_many;              /* owned: graph_steps full-batch steps */
  int32_t graph_steps;           /* steps in graph_many; 1 when there is none */
  int64_t full_steps;            /* full-batch steps run so far */

  int64_t steps_done;            /* steps run, the warm-up's too */
  double first_step_end;
  NnEpochRecord *epochs;         /* (epochs), owned */
  int32_t epoch_count;

  NnTrainFeed feed;
  NnTrainTiming timing;
} NnTrainRun;

/* ---------------------------------------------------------------- nn-trainer-feed.c */

/* The data the run's batches come from, put in place once: the training
 * set on the device (NN_DATA_DEVICE) or the host buffer its batches are
 * gathered into, the epoch's order, and the test set unless the run skips
 * evaluation. */
NnStatus _nn_feed_setup (NnTrainRun *run, NnError *error);
void _nn_feed_free (NnTrainRun *run);

/* The order of epoch `epoch` (from 1): shuffled, unless _nn_feed_order_ahead
 * did it, and on the device when the batches are gathered there. */
NnStatus _nn_feed_epoch (NnTrainRun *run, int32_t epoch, NnError *error);
/* Shuffles epoch `epoch`'s order now, while the device still has steps to
 * run; only when the batches are gathered on the device (from the host,
 * the batches read this epoch's order until it ends). */
void _nn_feed_order_ahead (NnTrainRun *run, int32_t epoch);

/* Training batch `step_in_epoch` of n rows into the model's batch buffers.
 * _nn_feed_device_batch gathers it on the device, one op of the step (and of
 * a captured graph); _nn_feed_host_batch gathers it on the host and copies
 * it, before the step and outside any graph. Each does nothing when the
 * batches come from the other place. */
NnStatus _nn_feed_device_batch (NnTrainRun *run, int32_t n, NnError *error);
NnStatus _nn_feed_host_batch (NnTrainRun *run, int32_t n, int32_t step_in_epoch,
                              NnError *error);

/* Test samples [first, first + n) into the model's batch buffers. */
NnStatus _nn_feed_test_batch (NnTrainRun *run, int32_t first, int32_t n, NnError *error);

/* ---------------------------------------------------------------- nn-trainer-timing.c */

/* The step times' buffer and the curve, made once, before the first step. */
NnStatus _nn_timing_setup (NnTrainRun *run, NnError *error);
void _nn_timing_free (NnTrainRun *run);

/* A window of measured steps on this thread (nothing when the breakdown is
 * off): opened, its clock stopped, closed with its `steps` steps from
 * `first_step` (1-based) counted, or dropped uncounted. */
void _nn_timing_open (NnTrainRun *run);
void _nn_timing_stop (NnTrainRun *run);
void _nn_timing_close (NnTrainRun *run, int64_t first_step, int64_t steps);
void _nn_timing_drop (NnTrainRun *run);
/* A copy to the device of `bytes` made in the "copy" part that
 * _nn_clock_enter returned `back` for: counted in the open window. */
void _nn_timing_copied (NnTrainRun *run, int back, size_t bytes);

/* Around the launch of `count` steps on an asynchronous backend: their host
 * time the "launch" part, their device time a span of the backend's timer.
 * _nn_timing_launch_begin returns what _nn_timing_launch_end takes. */
int _nn_timing_launch_begin (NnTrainRun *run, int32_t count);
void _nn_timing_launch_end (NnTrainRun *run, int32_t count, int back);
/* Ends the open span of the backend's timer, if any. */
void _nn_timing_span_end (NnTrainRun *run);
/* Adds the device time of the spans that have ended; only where the run
 * has synchronized anyway, so it never waits. */
void _nn_timing_read_device (NnTrainRun *run);

/* The time of step `step` (1-based); the warm-up's are left out. */
void _nn_timing_step (NnTrainRun *run, int64_t step, double seconds);
/* A progress interval's loss sum over `samples` samples, ending at `step`. */
void _nn_timing_curve_add (NnTrainRun *run, double loss_sum, double samples, int64_t step);

/* The step times' median, p10 and p90, the loss curve and the breakdown
 * into the result. */
void _nn_timing_result (const NnTrainRun *run, NnRunResult *result);
