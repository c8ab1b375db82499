/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-report-private.h: what nn-report.c (reading and judging) and
 * nn-report-write.c (HTML and JSON) share, and what the engine's tests
 * reach: one result file's fields as the report reads them.
 */
#pragma once

#include "nn-private.h"

/* A claim holds only where the measured ratio is on the article's side of
 * 1 by more than this factor: closer than 10 % the two sides are even
 * (runs of one preset on one device spread by a few per cent). */
#define NN_REPORT_EVEN_BAND 1.1

/* The articles trained on MNIST's 60,000 training images; a run on fewer
 * (--limit-train) times another, smaller problem. Fashion-MNIST has as
 * many, of the same shape. */
#define NN_REPORT_FULL_TRAIN_SAMPLES 60000

/* How far ahead of this machine's clock a run may have started and still
 * be ordered by its start time: a day. A clock kept in local time where
 * UTC was meant (Windows on a machine that also boots Linux) is off by up
 * to 14 hours, the widest time zone; a day covers that and a clock set by
 * hand a few hours wrong. A start further ahead is no clock's error but a
 * date made to win "newest" (NnReportUndated). */
#define NN_REPORT_CLOCK_SKEW_SECONDS (24 * 3600)

#define NN_REPORT_GPUS_MAX 8
#define NN_REPORT_PARTS_MAX 8

/* One result file's fields that judging a claim needs; kept for each run
 * of this machine of a claim's preset, so it holds no more than that. */
typedef struct
{
  char *path;                 /* owned */
  char run_id[64];
  char started_at[32];
  bool start_known;           /* started_at read as a time: */
  int64_t start;              /* ... seconds since 1970-01-01 UTC */
  bool dated;                 /* ordered by `start` (known, and not in the future) */
  char machine_id[NN_MACHINE_ID_SIZE]; /* system.machine_id; "" when the file has none */
  char status[16];
  bool sweep;                 /* a sweep's point ("sweep" set) */
  /* system */
  char os_name[128];
  char os_version[128];
  char os_emulated_by[64];
  /* device, model, training */
  bool cuda;
  int32_t device_index;
  int32_t threads;
  char device_name[256];
  char preset[64];            /* model.name, "" for a custom model */
  int32_t batch;
  int32_t train_samples;
  int64_t steps;
  int32_t epochs_done;        /* epochs recorded */
  double epoch_seconds;       /* their median; NAN when none */
  /* "conditions", when recorded */
  bool has_conditions;
  char cond_name[16];
  char cond_data[16];
  bool cond_graph;
  bool cond_loss_every_step;
  bool cond_fused;
  /* "breakdown", when recorded */
  bool has_breakdown;
  double step_seconds;
  double device_busy;         /* NAN when not recorded (a CPU run) */
  double copy_bytes;
  int32_t part_count;
  char part_keys[NN_REPORT_PARTS_MAX][16];
  double part_seconds[NN_REPORT_PARTS_MAX];
} NnReportRun;

/* A result file's hardware as it names it, for labels: never to tell
 * whose run it is, which two machines of one model would share. */
typedef struct
{
  char cpu_model[256];
  int32_t gpu_count;
  char gpus[NN_REPORT_GPUS_MAX][128];
} NnReportHardware;

typedef struct NnJsonDoc NnJsonDoc;

/* A parsed result file's fields (`path` names it in messages; run->path is
 * left NULL), and its hardware into `hardware` (may be NULL).
 * NN_ERROR_FORMAT with why when it is not a result, or claims a time
 * beyond NN_RESULT_SECONDS_MAX (the message names the field); for a
 * sweep.json, which is no run, NN_OK with *sweep_file set. */
NnStatus _nn_report_run_from_doc (const NnJsonDoc *doc, const char *path, NnReportRun *run,
                                  NnReportHardware *hardware, bool *sweep_file,
                                  NnError *error);

/* started_at ("2026-12-03T08:05:00Z") as seconds since 1970-01-01 UTC;
 * false when it is not such a time. */
bool _nn_report_parse_time (const char *text, int64_t *out);

/* Why a run cannot measure a claim on `preset` (into why, returned), or
 * NULL when it can. */
const char *_nn_report_not_full (const NnReportRun *run, const NnPreset *preset, char *why,
                                 size_t size);

/* A breakdown part's label for display ("matrix products"), by its key. */
const char *_nn_report_part_label (const char *key, bool cuda);

/* Judge every claim from `runs` against report->machine (the claims of an
 * earlier judgement are let go); false when memory ran out. */
bool _nn_report_judge (NnReport *report, const NnReportRun *runs, size_t count);
