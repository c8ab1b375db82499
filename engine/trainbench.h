/* SPDX-License-Identifier: GPL-3.0-or-later */
/* trainbench.h: the public API of libtrainbench, the training engine.
 *
 * Plain C11, no GLib. Every function that can fail returns an NnStatus and
 * fills an NnError the caller owns; the engine never prints and never exits.
 * The GUI and the CLI use this header only.
 */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NN_VERSION_STRING "0.1.0"
#define NN_RESULT_SCHEMA 1

/* The ranges the engine takes, for front ends that check options first. */
#define NN_BATCH_SIZE_MAX 65536   /* rows of a batch */
#define NN_EPOCHS_MAX 100000      /* epochs of a run */
#define NN_THREADS_MAX 1024       /* CPU threads (0 = all cores) */
#define NN_CUDA_DEVICES_MAX 1024  /* CUDA ordinals 0 to NN_CUDA_DEVICES_MAX - 1 */

/* ---------------------------------------------------------------- errors */

typedef enum
{
  NN_OK = 0,
  NN_ERROR_INVALID_ARGUMENT, /* a bad value from the caller: hyperparameter, option, path */
  NN_ERROR_IO,               /* a file could not be opened, read or written */
  NN_ERROR_FORMAT,           /* a file's contents are malformed */
  NN_ERROR_SPEC,             /* a model spec does not parse */
  NN_ERROR_SHAPE,            /* a layer does not fit its input */
  NN_ERROR_NO_MEMORY,        /* host memory */
  NN_ERROR_DEVICE,           /* a backend failed; the message says how */
  NN_ERROR_DEVICE_MEMORY,    /* device memory ran out; the message names what and a hint */
  NN_ERROR_DEVICE_LOST,      /* the device is unusable until the process restarts */
  NN_ERROR_UNAVAILABLE,      /* a device or data set is not present here */
  NN_ERROR_CANCELLED,        /* the caller asked to stop */
  NN_ERROR_DIVERGED,         /* the loss became NaN or infinite */
} NnStatus;

#define NN_ERROR_MESSAGE_MAX 1024
#define NN_ERROR_PARTS_MAX 4

/* The field of a request that an error is about, so that a front end can
 * point at the option or the widget that sets it without reading the
 * message: the CLI names its option, the app marks its row. */
typedef enum
{
  NN_FIELD_NONE = 0,     /* no one field of a request: a file, a device at work, memory */
  NN_FIELD_FAMILY,       /* NnSweepRequest.family (its model does not fit the data set) */
  NN_FIELD_TEMPLATE,     /* NnSweepRequest.template_text */
  NN_FIELD_AXES,         /* NnSweepRequest.axes and axis_count: a name, a value, the grid's size */
  NN_FIELD_DEVICES,      /* NnSweepRequest.devices and device_count */
  NN_FIELD_STEPS,        /* NnSweepRequest.steps */
  NN_FIELD_WARMUP_STEPS, /* NnSweepRequest.warmup_steps */
  NN_FIELD_BATCH_SIZE,   /* NnTrainConfig.batch_size */
  NN_FIELD_DATASET,      /* the data set named (dataset_name) or given (dataset) */
  NN_FIELD_LIMIT_TRAIN,  /* NnSweepRequest.limit_train */
  NN_FIELD_RUNS_FOLDER,  /* NnSweepRequest.runs_folder */
} NnField;

typedef struct
{
  uint16_t format; /* offset of the format in NnError's texts; its arguments follow it */
  uint16_t n_args;
  uint32_t words;  /* bit i: argument i is a phrase of the engine's, translated too */
} NnErrorPart;

typedef struct
{
  NnStatus code;
  char message[NN_ERROR_MESSAGE_MAX]; /* in English: for logs, the CLI and result files */
  NnField field;           /* the request's field at fault; NN_FIELD_NONE when none is */
  /*< private >*/
  /* The message as it was made, for nn_error_translate: its formats, the
   * outermost first (each joined to the next as "%s: %s" joins two), each
   * followed by its arguments formatted one by one, as NUL-terminated
   * strings in `texts`. No parts: a message that cannot be translated. */
  int32_t n_parts;
  NnErrorPart parts[NN_ERROR_PARTS_MAX];
  uint16_t texts_len;
  char texts[4 * NN_ERROR_MESSAGE_MAX];
} NnError;

/* A short English name of a status ("format error"), for logs. */
const char *nn_status_name (NnStatus status);

/* Clear an error before reuse. */
void nn_error_clear (NnError *error);

/* Returns the translation of one of the engine's message formats (the
 * strings in the engine's sources that po/meson.build extracts, such as
 * "%s: bad magic"), or the format itself; e.g. gettext. */
typedef const char *(*NnTranslateFunc) (const char *format, void *user_data);

/* The error's message in another language: each format it was made from
 * goes through `translate` and gets the same arguments again, which a
 * translation may put in another order ("%2$s ... %1$s"); so does the
 * "%s: %s" that joins a prefix to the rest. A message
 * that cannot be translated comes as `message`. Writes at most `size` bytes
 * with the NUL (`out` may be NULL when `size` is 0) and returns the length
 * it needed, like snprintf. */
size_t nn_error_translate (const NnError     *error,
                           NnTranslateFunc    translate,
                           void              *user_data,
                           char              *out,
                           size_t             size);

/* ---------------------------------------------------------------- data sets */

typedef struct
{
  int32_t count;
  int32_t height;
  int32_t width;
  int32_t channels;
  uint8_t *images; /* (count, channels, height, width), raw 0..255, owned */
  uint8_t *labels; /* (count), class indices, owned */
  char labels_source[4096]; /* where the labels came from, for messages: the IDX file's
                             * path, "FILE.npz: y_train.npy"; "" when unknown */
} NnSplit;

typedef struct
{
  char name[64];    /* "mnist", "fashion-mnist", or the file's base name */
  char path[4096];  /* where it was loaded from */
  int32_t classes;  /* 1 + the largest label seen, at least 2 */
  NnSplit train;
  NnSplit test;
} NnDataset;

/* Load a data set by name ("mnist", "fashion-mnist") from the usual places,
 * or by path: a folder of IDX files (.gz or raw, the usual four names), or a
 * Keras .npz file (x_train, y_train, x_test, y_test). */
NnStatus nn_dataset_load (const char *name_or_path, NnDataset **out, NnError *error);

/* Load one split from an image and a label IDX file. */
NnStatus nn_dataset_load_idx_pair (const char *images_path,
                                   const char *labels_path,
                                   NnSplit *out,
                                   NnError *error);

NnStatus nn_dataset_load_npz (const char *path, NnDataset **out, NnError *error);

void nn_dataset_free (NnDataset *dataset);

/* Keep only the first `train` and `test` samples (0 keeps all); for quick runs. */
void nn_dataset_truncate (NnDataset *dataset, int32_t train, int32_t test);

/* What a data set holds, as nn_dataset_peek reads it without loading its
 * images: enough to check a model and a run against it first. */
typedef struct
{
  char name[64];        /* as NnDataset's */
  char path[4096];      /* the folder or .npz file nn_dataset_load would read */
  int32_t channels;     /* one image: (channels, height, width) */
  int32_t height;
  int32_t width;
  int32_t train_count;
  int32_t test_count;
  int32_t classes;      /* 1 + the largest label, at least 2: as NnDataset's */
  int32_t labels_used;  /* how many distinct values the labels take */
} NnDatasetInfo;

/* Find a data set as nn_dataset_load does and read what it holds without
 * its images: the IDX image headers (a gzip file inflated only that far) or
 * the .npz's directory and .npy headers, and the labels (small). The
 * messages are nn_dataset_load's for the same faults; a fault further in the
 * images (a truncated gzip stream, a bad CRC) shows only when it loads. */
NnStatus nn_dataset_peek (const char *name_or_path, NnDatasetInfo *out, NnError *error);

typedef struct
{
  char name[64];      /* "mnist" */
  char path[4096];    /* where it was found, or "" */
  bool available;
  char reason[256];   /* why not, when unavailable */
} NnDatasetLocation;

/* The well-known data sets and where each was found; returns how many were
 * written (at most `max`). */
int nn_dataset_list_known (NnDatasetLocation *out, int max);

/* The folder Trainbench downloads data sets to: $XDG_DATA_HOME/trainbench/datasets
 * (on Windows %LOCALAPPDATA%\Trainbench\datasets). Written into `out`. */
void nn_dataset_user_dir (char *out, size_t size);

/* ---------------------------------------------------------------- model specs */

typedef enum
{
  NN_LAYER_DENSE,
  NN_LAYER_CONV2D,
  NN_LAYER_MAXPOOL2D,
  NN_LAYER_AVGPOOL2D,
  NN_LAYER_FLATTEN,
  NN_LAYER_DROPOUT,
  NN_LAYER_ACTIVATION,
} NnLayerKind;

typedef enum
{
  NN_ACT_LINEAR,
  NN_ACT_RELU,
  NN_ACT_SIGMOID,
  NN_ACT_TANH,
  NN_ACT_SOFTMAX,
} NnActivation;

typedef enum
{
  NN_PADDING_VALID,
  NN_PADDING_SAME,
} NnPadding;

/* One layer as written in a spec. Fields a kind does not use stay 0. */
typedef struct
{
  NnLayerKind kind;
  int32_t units;          /* dense */
  int32_t filters;        /* conv2d */
  int32_t kernel_h;       /* conv2d kernel, pool window */
  int32_t kernel_w;
  int32_t stride_h;       /* conv2d default 1, pool default = window */
  int32_t stride_w;
  NnPadding padding;      /* conv2d, pools */
  float rate;             /* dropout */
  NnActivation activation; /* dense, conv2d, activation */
} NnLayerSpec;

typedef struct
{
  int32_t count;
  NnLayerSpec *layers; /* (count), owned */
} NnSpec;

/* Parse the one-line text form, layers separated by ';' or newlines:
 *   conv2d 32 3 relu; conv2d 64 3x3 relu stride=1 padding=same; maxpool 2;
 *   avgpool 2x2 stride=2; dropout 0.25; flatten; dense 128 relu; relu;
 *   activation tanh; dense 10 softmax
 * Errors name the layer (1-based) and the word that is wrong. */
NnStatus nn_spec_parse (const char *text, NnSpec **out, NnError *error);
void nn_spec_free (NnSpec *spec);

/* Write the canonical text of a spec (parses back to the same spec). Returns
 * the length it needed, like snprintf. */
size_t nn_spec_format (const NnSpec *spec, char *out, size_t size);

const char *nn_layer_kind_name (NnLayerKind kind);     /* "dense" */
const char *nn_activation_name (NnActivation act);     /* "relu", "linear" */

/* ---------------------------------------------------------------- presets */

typedef enum
{
  NN_OPT_SGD,
  NN_OPT_ADAM,
  NN_OPT_ADADELTA,
  NN_OPT_RMSPROP,
  NN_OPT_ADAGRAD,
} NnOptimizerKind;

/* Hyperparameters with Keras' names and defaults (nn_optimizer_defaults). */
typedef struct
{
  NnOptimizerKind kind;
  float lr;
  float momentum;   /* sgd: 0; rmsprop: 0 (unused) */
  bool nesterov;    /* sgd */
  float beta1;      /* adam 0.9 */
  float beta2;      /* adam 0.999 */
  float rho;        /* adadelta 0.95, rmsprop 0.9 */
  float epsilon;    /* 1e-7 */
  float initial_accumulator; /* adagrad 0.1 */
} NnOptimizer;

NnOptimizer nn_optimizer_defaults (NnOptimizerKind kind);
const char *nn_optimizer_name (NnOptimizerKind kind); /* "adam" */
/* "adam", "sgd", ... (case-insensitive) */
NnStatus nn_optimizer_from_name (const char *name, NnOptimizerKind *out, NnError *error);
/* Check every setting is in range; the message names the setting. */
NnStatus nn_optimizer_validate (const NnOptimizer *opt, NnError *error);

typedef enum
{
  NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY,
  NN_LOSS_CATEGORICAL_CROSSENTROPY,
  NN_LOSS_MEAN_SQUARED_ERROR,
} NnLossKind;

const char *nn_loss_name (NnLossKind loss);
NnStatus nn_loss_from_name (const char *name, NnLossKind *out, NnError *error);

typedef struct
{
  const char *name;        /* "mlp-small" */
  const char *title;       /* "Small MLP (784-128-10)" */
  const char *spec;        /* spec text */
  NnOptimizerKind optimizer;
  float lr;
  int32_t batch_size;
  int32_t epochs;
} NnPreset;

/* The three article models; NULL-terminated by count. */
const NnPreset *nn_presets (int *count);
const NnPreset *nn_preset_find (const char *name); /* NULL when unknown */

/* ---------------------------------------------------------------- devices */

typedef enum
{
  NN_DEVICE_CPU,
  NN_DEVICE_CUDA,
} NnDeviceKind;

typedef struct
{
  NnDeviceKind kind;
  int32_t index;           /* 0 for the CPU, the CUDA ordinal otherwise */
  bool usable;
  char name[256];          /* "AMD EPYC 9654", "NVIDIA H200" */
  char reason[1024];       /* why not usable: "no NVIDIA driver", ... */
  uint64_t memory_bytes;   /* RAM for the CPU, device memory for a GPU */
  int32_t compute_major;   /* CUDA compute capability */
  int32_t compute_minor;
  int32_t cores;           /* CPU cores; multiprocessors for a GPU */
  char driver[64];         /* "580.159.04" */
  char runtime[64];        /* CUDA runtime version */
  char cublas[64];         /* cuBLAS version */
  char cudnn[64];          /* cuDNN version */
  char libraries[1024];    /* the files of cuBLAS and cuDNN the GPU uses */
} NnDeviceInfo;

/* Parse "cpu", "cuda", "cuda:1", "gpu". */
NnStatus nn_device_parse (const char *text, NnDeviceKind *kind, int32_t *index, NnError *error);

/* All devices: the CPU first, then each CUDA device or one unusable CUDA
 * entry saying why there is none. Returns how many were written. Loads the
 * CUDA module (once per process) to find the GPUs. */
int nn_device_list (NnDeviceInfo *out, int max);

/* The CPU's entry of nn_device_list, without looking for GPUs: a CPU run
 * never loads the CUDA module, so a missing, broken or hanging one cannot
 * stop it. */
void nn_device_cpu (NnDeviceInfo *out);

/* ---------------------------------------------------------------- models */

typedef struct NnModel NnModel;

/* Input of a model: one sample's shape. */
typedef struct
{
  int32_t channels;
  int32_t height;
  int32_t width;
} NnInputShape;

/* Output shape of one layer for summaries: rank 1 (units) or 3 (C, H, W). */
typedef struct
{
  NnLayerSpec spec;
  int32_t rank;
  int32_t dims[3];
  int64_t params;
  char name[32];          /* "dense_1", "conv2d", Keras-like */
} NnLayerInfo;

typedef struct
{
  NnDeviceKind kind;       /* NN_DEVICE_CPU by default */
  int32_t index;
  int32_t threads;         /* CPU threads; 0 = all cores */
  bool tf32;               /* GPU: allow TF32 for convolutions and GEMMs */
} NnDeviceOptions;

/* Infer every layer's shape without allocating a backend: for builders and
 * summaries. Fills `infos` (count = spec->count) when not NULL. Errors name the
 * layer and the shape that does not fit. The last layer must produce `classes`
 * outputs for training (checked by the trainer, not here). */
NnStatus nn_spec_infer (const NnSpec *spec,
                        NnInputShape input,
                        NnLayerInfo *infos,
                        int64_t *total_params,
                        NnError *error);

/* Whether a model fits a data set, from its shape and class count alone
 * (nn_dataset_peek's), without loading it: every layer fits its input and
 * the model ends in one output per class. The trainer makes the same check
 * with the same messages once the data set is loaded. When the model has
 * fewer outputs than classes but the labels leave values unused (one label
 * far off the others, as damage makes), the class count is in doubt and
 * left to the trainer, which names the sample: NN_OK here. */
NnStatus nn_spec_check_data (const NnSpec *spec, const NnDatasetInfo *data, NnError *error);

/* A Keras-like text summary (layer, output shape, params, total). Returns
 * the length it needed, like snprintf. */
size_t nn_spec_summary (const NnSpec *spec, NnInputShape input, char *out, size_t size);

/* Build a model on a device: shapes, parameter arena (Glorot-uniform weights,
 * zero biases, from `seed`). Allocates everything a training step needs for
 * `batch_size` up front, so running out of memory shows up here. */
NnStatus nn_model_new (const NnSpec *spec,
                       NnInputShape input,
                       int32_t batch_size,
                       const NnDeviceOptions *device,
                       uint64_t seed,
                       NnModel **out,
                       NnError *error);
void nn_model_free (NnModel *model);

int64_t nn_model_param_count (const NnModel *model);
int32_t nn_model_output_size (const NnModel *model);
/* Weights as a flat host array in layer order (kernel then bias per layer). */
NnStatus nn_model_get_weights (NnModel *model, float *out, int64_t count, NnError *error);
NnStatus nn_model_set_weights (NnModel *model, const float *in, int64_t count, NnError *error);

/* Weights file: magic "TBWEIGHT", version, spec text, input shape, params.
 * Saved as an atomic file (nn_result_write's rules for links and devices).
 * One save to a path at a time: a save that finds another in progress
 * (PATH.lock held, by any process) fails at once and saves nothing, and a
 * save whose file another program replaced before it returned fails too,
 * so NN_OK always means the file holds these weights. */
NnStatus nn_model_save (NnModel *model, const char *path, NnError *error);
/* Load weights into a model whose spec and input match the file's. */
NnStatus nn_model_load (NnModel *model, const char *path, NnError *error);
/* Read only the spec text and input shape of a weights file (caller frees *spec_text). */
NnStatus nn_weights_file_peek (const char *path, char **spec_text, NnInputShape *input, NnError *error);

/* Class probabilities for `count` samples: probs (count, outputs). */
NnStatus nn_model_predict (NnModel *model,
                           const NnSplit *split,
                           int32_t first,
                           int32_t count,
                           float *probs,
                           NnError *error);

/* ---------------------------------------------------------------- training */

/* Where a training step's batch comes from. */
typedef enum
{
  NN_DATA_DEVICE,   /* gathered on the device from the training set, uploaded once (default) */
  NN_DATA_PINNED,   /* gathered on the host into page-locked memory, allocated once, and
                     * copied to the device every step without waiting (asynchronously) */
  NN_DATA_PAGEABLE, /* gathered on the host into ordinary (malloc'd) memory and copied to
                     * the device every step, waiting for the copy */
} NnDataOn;

/* How a run feeds and drives its device: one switch each, so that the way a
 * 2017-2019 Keras/TensorFlow GPU run worked (feed_dict batches copied from
 * host memory, one launch per op, the loss read back every batch, no fused
 * kernels) can be reproduced with the same engine one switch at a time. On
 * the CPU the batch "copy" is a memcpy from the host staging buffer into
 * the batch buffer (pinned and pageable then do the same: the gather and
 * the copy on the training thread) and `graph` changes nothing (the CPU
 * captures nothing); the other switches mean what they say. Result files
 * record them as "conditions". */
typedef struct
{
  NnDataOn data;         /* where batches come from */
  bool graph;            /* full-batch steps captured once and replayed where the backend
                          * captures (CUDA graphs); false: one launch per op */
  bool loss_every_step;  /* the loss and accuracy read back after every step (a
                          * synchronization), as Keras' progress bar did, instead of once
                          * per progress interval without waiting */
  bool fused;            /* the plan's fused steps; false: every layer its own ops and
                          * optimizer_update every parameter */
} NnConditions;

/* Today's defaults: data on the device, graphs, the loss read every few
 * steps, fused steps. */
NnConditions nn_conditions_default (void);
/* The articles' conditions: pageable copies every batch, one launch per
 * op, the loss read back every step, no fused steps. */
NnConditions nn_conditions_article (void);
/* "default" or "article" when the switches are exactly those, else "custom". */
const char *nn_conditions_name (const NnConditions *conditions);
bool nn_conditions_equal (const NnConditions *a, const NnConditions *b);

const char *nn_data_on_name (NnDataOn data); /* "device", "pinned", "pageable" */
/* "device", "pinned", "pageable"; the message names the word. */
NnStatus nn_data_on_from_name (const char *name, NnDataOn *out, NnError *error);

typedef struct
{
  const char *spec_text;     /* borrowed; required */
  const char *model_name;    /* preset name or NULL */
  NnOptimizer optimizer;
  NnLossKind loss;
  int32_t batch_size;
  int32_t epochs;
  uint64_t seed;
  NnDeviceOptions device;
  int32_t progress_every;    /* steps between progress reports; 0 = automatic */
  int32_t max_steps;         /* stop after this many steps in all (0 = no limit), for quick checks */
  NnConditions conditions;   /* how batches reach the device and how it is driven */
  bool breakdown;            /* measure where a step's time goes (NnBreakdown); on by default.
                              * Off reads no clock beyond the step's own and writes no
                              * "breakdown" */
  int32_t warmup_steps;      /* the first steps, left out of the step times' median, p10 and p90
                              * (threads starting, memory first touched, graphs captured);
                              * 0 = every step counts. Below max_steps when both are set */
  bool skip_evaluation;      /* no test-set evaluation after an epoch (sweeps, which time the
                              * steps alone): the test set is not put on the device and the
                              * epochs' test loss and accuracy are NAN (null in the file) */
} NnTrainConfig;

/* Defaults: Adam, sparse categorical cross-entropy, batch 32, 10 epochs, seed 42, CPU,
 * nn_conditions_default (). */
void nn_train_config_init (NnTrainConfig *config);

/* A preset's model and training defaults: its spec and name, its optimizer
 * with its learning rate, batch size and epochs; other fields stay. The
 * strings are the preset's own (static). */
void nn_train_config_use_preset (NnTrainConfig *config, const NnPreset *preset);

typedef enum
{
  NN_PROGRESS_STEP,        /* some steps done */
  NN_PROGRESS_EPOCH_END,   /* an epoch and its evaluation are done */
} NnProgressKind;

typedef struct
{
  NnProgressKind kind;
  int32_t epoch;           /* 1-based */
  int32_t epochs;
  int64_t step;            /* steps done in all */
  int64_t steps_per_epoch;
  int64_t total_steps;
  int32_t step_in_epoch;   /* steps done in this epoch */
  float loss;              /* mean training loss over the steps since the last report */
  float accuracy;          /* training accuracy over those steps */
  double samples_per_second;
  double elapsed_seconds;
  double eta_seconds;      /* < 0 when unknown */
  /* NN_PROGRESS_EPOCH_END only */
  double epoch_seconds;
  float train_loss;
  float train_accuracy;
  float test_loss;
  float test_accuracy;
} NnProgress;

/* Called on the training thread. Return false to cancel (also see
 * nn_trainer_cancel). */
typedef bool (*NnProgressCallback) (const NnProgress *progress, void *user_data);

typedef struct
{
  int32_t epoch;
  double seconds;
  float train_loss;
  float train_accuracy;
  float test_loss;
  float test_accuracy;
  double samples_per_second;
} NnEpochRecord;

typedef enum
{
  NN_RUN_COMPLETED,
  NN_RUN_CANCELLED,
  NN_RUN_FAILED,
} NnRunStatus;

#define NN_LOSS_CURVE_MAX 512

/* The parts a training step's time is split into. On the CPU: matrix
 * products (time inside sgemm), the engine's own loops (inside its parallel
 * element-wise and reduction calls), waiting at join points (the training
 * thread waiting for the pool's other threads) and the trainer's serial code.
 * On a GPU: the host preparing and launching work, host-to-device copies,
 * waiting on the device (the loss sums' download, synchronize) and the rest
 * of the host's work. Each is measured on the training thread with a
 * monotonic clock, switched at the boundaries; none is a residual. */
typedef enum
{
  NN_BREAKDOWN_GEMM,       /* "gemm" */
  NN_BREAKDOWN_LOOPS,      /* "loops" */
  NN_BREAKDOWN_JOIN_WAIT,  /* "join_wait" */
  NN_BREAKDOWN_LAUNCH,     /* "launch" */
  NN_BREAKDOWN_COPY,       /* "copy" */
  NN_BREAKDOWN_SYNC_WAIT,  /* "sync_wait" */
  NN_BREAKDOWN_HOST,       /* "host" */
  NN_BREAKDOWN_PARTS
} NnBreakdownPart;

/* The key a result file gives a part ("gemm", ..., "host"); NULL out of range. */
const char *nn_breakdown_part_key (NnBreakdownPart part);

/* Whether `part` is one of a device kind's parts (the four a result file
 * always writes for it; another part is written only when it took time). */
bool nn_breakdown_part_on (NnBreakdownPart part, NnDeviceKind kind);

/* Where a run's training steps spent their time (NnTrainConfig.breakdown). */
typedef struct
{
  bool measured;             /* false: breakdown off, or no step ran */
  int64_t steps;             /* training steps measured */
  double step_seconds;       /* mean wall time of those steps, from their own clock reads */
  double part_seconds[NN_BREAKDOWN_PARTS]; /* mean seconds per step of each part */
  double device_busy_seconds; /* GPU: device time per step between events around the steps
                               * and the runs of multi-step graphs (overlaps the host's
                               * parts); < 0 where not measured */
  double copy_bytes;         /* host-to-device bytes per step */
  double evaluation_seconds; /* the run's evaluation on the test set in all, apart from training */
} NnBreakdown;

/* One step of the plan of a training step: the backend ops that run one
 * layer, or one fused op of the backend that runs several layers, or more
 * than a layer's own work, at once. The forward's steps come first, from
 * the input up, then the backward's from the output down. Which layers the
 * engine fuses depends on the model, the device, the batch size and the
 * optimizer; nn_train_plan says it before a run, and every result file
 * records it. */
typedef struct
{
  bool backward;         /* a step of the backward pass (else of the forward) */
  char kind[16];         /* "layer" (that layer's own ops), "loss", "dense", "dense_update",
                          * "output_loss", "pool_dropout", "pool_act", "pool_argmax",
                          * "conv_pool", "conv_dz", "conv_below" */
  int32_t first, last;   /* the layers it covers, numbered from 1 as in the spec */
  bool fused;            /* one fused op of the backend rather than a layer's own ops */
  char layers[256];      /* those layers as the spec writes them: "dense 128 relu + dropout 0.2";
                          * a loss step: the loss's name */
  char fused_with[128];  /* what else its op does, "" when nothing: "optimizer update",
                          * "loss, input gradient" */
  char note[128];        /* how it runs where that differs, else "": "on a branch beside
                          * the steps after it" */
} NnPlanStep;

/* The plan as text, one line a step, e.g.
 *   backward  dense_update  layers 2-3 (dense 128 relu + dropout 0.2), optimizer update fused
 * Returns the length it needed, like snprintf. */
size_t nn_plan_format (const NnPlanStep *steps, int32_t count, char *out, size_t size);

/* Everything a finished run knows; written to a result file by nn_result_write. */
typedef struct
{
  char run_id[64];
  char started_at[32];       /* UTC ISO 8601 */
  NnRunStatus status;
  char error[NN_ERROR_MESSAGE_MAX];
  NnTrainConfig config;      /* spec_text and model_name point into the strings below */
  char spec_text[2048];
  char model_name[64];
  NnDeviceInfo device;
  int32_t threads;           /* threads actually used (CPU) */
  char dataset_name[64];
  char dataset_path[4096];
  int32_t train_samples;
  int32_t test_samples;
  int64_t params;
  int32_t epoch_count;
  NnEpochRecord *epochs;     /* (epoch_count), owned */
  int64_t step_count;
  int64_t steps_timed;       /* the steps the median, p10 and p90 come from: those after the
                              * warm-up */
  double step_seconds_median;
  double step_seconds_p10;
  double step_seconds_p90;
  int32_t loss_curve_count;
  float loss_curve[NN_LOSS_CURVE_MAX]; /* down-sampled training loss */
  int64_t loss_curve_steps[NN_LOSS_CURVE_MAX]; /* step each point ends at */
  double total_seconds;
  double time_to_first_step_seconds;
  int32_t plan_count;
  NnPlanStep *plan;          /* (plan_count), owned: the steps of a training step on a full
                              * batch; none when the run stopped before they were made */
  NnConditions conditions;   /* as the run ran: config.conditions, except graph, true only
                              * where steps were replayed from a captured graph */
  NnBreakdown breakdown;     /* where the steps' time went; measured is false when off */
  char sweep_id[64];         /* the sweep the run is a point of, "" when none */
} NnRunResult;

typedef struct NnTrainer NnTrainer;

NnStatus nn_trainer_new (const NnTrainConfig *config,
                         const NnDataset *dataset,
                         NnTrainer **out,
                         NnError *error);
void nn_trainer_free (NnTrainer *trainer);

void nn_trainer_set_progress (NnTrainer *trainer, NnProgressCallback callback, void *user_data);

/* Ask a running trainer to stop; safe from any thread. The run stops within
 * one step and is recorded as cancelled. */
void nn_trainer_cancel (NnTrainer *trainer);

/* Train. Always fills `result` (also when it fails or is cancelled, with
 * status and error set) when result is not NULL; the caller frees it with
 * nn_run_result_clear. Returns NN_OK, NN_ERROR_CANCELLED, NN_ERROR_DIVERGED or
 * the error that stopped it. */
NnStatus nn_trainer_run (NnTrainer *trainer, NnRunResult *result, NnError *error);

/* The trained model (borrowed, valid until nn_trainer_free). */
NnModel *nn_trainer_model (NnTrainer *trainer);

/* The plan of a training step on a full batch, as a run of `config` on
 * samples of shape `input` makes it, without training: the model is built
 * on the config's device at its batch size and freed again. *steps (the
 * caller frees it with free ()) gets *count steps. */
NnStatus nn_train_plan (const NnTrainConfig *config,
                        NnInputShape input,
                        NnPlanStep **steps,
                        int32_t *count,
                        NnError *error);

void nn_run_result_clear (NnRunResult *result);

/* ---------------------------------------------------------------- one recorded run */

struct NnSystemInfo; /* below, under "system" */

/* What one run of the CLI or the GUI asks for (nn-run.c). */
typedef struct
{
  NnTrainConfig config;          /* spec_text and model_name borrowed */
  const char *dataset_name;      /* name or path, loaded by the run when `dataset` is NULL */
  const NnDataset *dataset;      /* borrowed: a data set loaded already (a queue's), or NULL */
  int32_t limit_train;           /* samples kept of a data set the run loads; 0 = all */
  int32_t limit_test;
  const char *result_path;       /* the result file (replaced), or NULL for a new file ... */
  const char *result_folder;     /* ... in this folder; NULL: nn_runs_dir () */
  NnProgressCallback progress;   /* may be NULL; called on the training thread */
  void *progress_data;
  const char *sweep_id;          /* the sweep this run is a point of (the result file's
                                  * "sweep"), or NULL; borrowed */
  const struct NnSystemInfo *system; /* the system as the result file records it, read once by a
                                  * caller that makes many runs; NULL: read when writing */
} NnRunRequest;

/* Defaults: nn_train_config_init's, nothing else set. */
void nn_run_request_init (NnRunRequest *request);

/* A run that loads its data set, builds its model, trains and writes its
 * result file; whatever fails on the way (data set, spec, device, training)
 * or a cancel, the result file records it as failed or cancelled, with the
 * message. */
typedef struct NnRunner NnRunner;

/* The request is copied; the strings and data set it points to are
 * borrowed until nn_runner_free. */
NnStatus nn_runner_new (const NnRunRequest *request, NnRunner **out, NnError *error);
void nn_runner_free (NnRunner *runner);

/* Ask the run to stop, at any point: before it starts, while the data set
 * loads, or within one step of training. Safe from any thread and from a
 * signal handler. The run is recorded as cancelled. */
void nn_runner_cancel (NnRunner *runner);

/* Can the request's result file be written where it goes: when it goes
 * into a runs folder (no result_path), is that folder writable, with room
 * for the result of the run's epochs (nn_folder_check_writable)? A file
 * the request names is written by its own rules (a FIFO, a device) and is
 * not looked at. nn_runner_prepare checks this first of all; a caller may
 * check before it makes the runner, to refuse a run at once. */
NnStatus nn_runner_check_folder (const NnRunRequest *request, NnError *error);

/* Check the runs folder (nn_runner_check_folder), load the data set
 * (unless the request gave one) and build the trainer, before
 * nn_runner_run if the caller wants to show the data set first.
 * Idempotent; nn_runner_run records a failure here, but for the runs
 * folder's: a run refused for it does not start, and records nothing
 * (its write status is that failure). */
NnStatus nn_runner_prepare (NnRunner *runner, NnError *error);

/* Prepare (once), train, write the result file. Returns how the run went:
 * NN_OK, NN_ERROR_CANCELLED, or what stopped it (the message in `error`);
 * nn_runner_write_status says whether the file was written. Runs once. */
NnStatus nn_runner_run (NnRunner *runner, NnError *error);

/* After nn_runner_run: the result as recorded (borrowed), the file it went
 * to (NULL when it could not be written), and why not. */
const NnRunResult *nn_runner_result (const NnRunner *runner);
const char *nn_runner_result_path (const NnRunner *runner);
NnStatus nn_runner_write_status (const NnRunner *runner, NnError *error);

/* Whether the run's result is still to be saved: the run started, and its
 * result file could not be written (a disk that filled up while it
 * trained, a folder made read-only meanwhile). The runner keeps the
 * result; nn_runner_write_result saves it elsewhere, so a finished run is
 * never lost. */
bool nn_runner_result_unwritten (const NnRunner *runner);

/* Write the run's result, as recorded, to `path` (by nn_result_write's
 * rules), after nn_runner_run; then nn_runner_result_path names it and
 * nn_runner_write_status is NN_OK. Any number of times. */
NnStatus nn_runner_write_result (NnRunner *runner, const char *path, NnError *error);

/* The data set the run used (borrowed; NULL when none could be loaded);
 * nn_runner_take_dataset hands over one the run loaded itself (NULL when it
 * was the request's), for the next run of a queue. */
const NnDataset *nn_runner_dataset (const NnRunner *runner);
NnDataset *nn_runner_take_dataset (NnRunner *runner);

/* The trained model (borrowed, valid until nn_runner_free), or NULL when
 * the run stopped before its model was built. */
NnModel *nn_runner_model (NnRunner *runner);

/* Mean loss and accuracy of `model` on a split. */
NnStatus nn_model_evaluate (NnModel *model,
                            const NnSplit *split,
                            NnLossKind loss,
                            float *loss_out,
                            float *accuracy_out,
                            NnError *error);

/* ---------------------------------------------------------------- system */

typedef struct NnSystemInfo
{
  char os_name[128];       /* "Debian GNU/Linux", "Windows" */
  char os_version[128];    /* "12 (bookworm)" */
  char kernel[128];        /* "6.1.0-26-amd64", "10.0.19045" */
  char os_emulated_by[64]; /* "wine 8.0" when wine runs this Windows build, "" natively */
  char cpu_model[256];
  int32_t cpu_cores;       /* physical cores */
  int32_t cpu_threads;     /* logical processors */
  uint64_t ram_bytes;
  char blas_name[64];      /* "OpenBLAS" */
  char blas_version[64];   /* "0.3.21" */
  char blas_core[64];      /* kernel core in use: "SkylakeX" */
  char blas_note[256];     /* e.g. why the core could not be chosen; "" when fine */
  int32_t blas_threads;
  char compiler[128];      /* "GCC 12.2.0" */
} NnSystemInfo;

void nn_system_info (NnSystemInfo *info);

/* The OS as people name it, with what emulates it: "Debian GNU/Linux 12
 * (bookworm)", "Windows 10 (wine 8.0)". Returns the length it needed, like
 * snprintf. */
size_t nn_system_os_label (const NnSystemInfo *info, char *out, size_t size);

/* Memory available now for new allocations without swapping, in bytes (0
 * when unknown); TRAINBENCH_MEMORY_LIMIT when it is lower (one that is not
 * a size is left out here: nn_system_memory_limit says why). */
uint64_t nn_system_memory_available (void);

/* TRAINBENCH_MEMORY_LIMIT in bytes into *bytes, 0 when it is unset or
 * empty. A size is a number, with a decimal point for a fraction, and
 * then, a space between them allowed, a unit: K, M, G or T in either case,
 * alone or with B or iB ("8g", "8gb", "8 G", "1.5GiB"), each a power of
 * 1024 however it is written, as free, Docker's --memory and systemd's
 * MemoryMax take them; a number alone is bytes. Anything else ("1,5G",
 * "1P", "8 gigs") is NN_ERROR_INVALID_ARGUMENT with a message that names
 * the variable: a run fails with it rather than run without the limit. */
NnStatus nn_system_memory_limit (uint64_t *bytes, NnError *error);

/* Make OpenBLAS run the best kernels this CPU supports. Must run before the
 * first BLAS call (the engine calls it from every entry point that may use
 * BLAS; callers may call it first thing in main). Idempotent. */
void nn_blas_init (void);

/* Set the thread count for OpenBLAS and the engine's own loops together
 * (0 = all cores). Returns the count in effect. */
int32_t nn_threads_set (int32_t threads);

/* ---------------------------------------------------------------- results */

/* Write a result as schema-1 JSON to `path` atomically (temporary file, flush,
 * rename): a file the caller named, replaced when it exists (links are
 * followed, devices and FIFOs written through; see NnAtomicFile). Results
 * in the runs folder go through nn_result_write_new, which never replaces.
 * `system` may be NULL (then it is read now). */
NnStatus nn_result_write (const NnRunResult *result,
                          const NnSystemInfo *system,
                          const char *path,
                          NnError *error);

/* Write a result as a new file in `folder` (made when missing), named
 * after its run id: FOLDER/RUN_ID.json. It never replaces a file: when the
 * name is taken (two runs in the same second drew the same id), the run
 * gets another id, its last 4 hex digits drawn again, which result->run_id
 * then holds and the file is named after. Written in full and put in place
 * in one step, like nn_result_write. The path written goes into `path`
 * (may be NULL). */
NnStatus nn_result_write_new (NnRunResult *result,
                              const NnSystemInfo *system,
                              const char *folder,
                              char *path,
                              size_t path_size,
                              NnError *error);

/* Make a new run id ("20261130T050312Z-mlp-small-cpu-4f2a") and a started_at. */
void nn_run_id_new (const char *model_name,
                    const NnDeviceInfo *device,
                    char *run_id,
                    size_t run_id_size,
                    char *started_at,
                    size_t started_at_size);

/* Seconds per epoch, as the CLI's table, the app's Runs page, its charts
 * and CSV export all give it: the median of the epochs' times, which the
 * first epoch's warm-up (threads started, memory first touched) does not
 * pull up as it does a mean. Times that are not finite are left out; NAN
 * when none is left. `seconds` (count values) is used as scratch space: its
 * values are reordered. */
double nn_seconds_per_epoch (double *seconds, size_t count);

/* The same of a finished run's epochs; NAN when no epoch finished, or when
 * the memory to sort their times (8 bytes an epoch) could not be had. */
double nn_run_result_seconds_per_epoch (const NnRunResult *result);

/* The default runs folder: $XDG_DATA_HOME/trainbench/runs (on Windows
 * %LOCALAPPDATA%\Trainbench\runs). */
void nn_runs_dir (char *out, size_t size);

/* The longest time a result may claim, in seconds (an epoch, a step, a
 * part of a step, a whole run): a year. Nothing Trainbench runs comes near
 * it (the articles' longest figure is 20 minutes for a whole training; an
 * epoch of the cnn on one slow core takes under an hour), so a time beyond
 * it is no measurement but a file made to mislead: 1e300 s would pass for
 * an epoch and print a ratio 31 digits long. The report does not read a
 * file that claims more; the app reads such a time as not recorded. */
#define NN_RESULT_SECONDS_MAX (365.0 * 24 * 3600)

/* Whether `seconds` is a time a result may claim: 0 to
 * NN_RESULT_SECONDS_MAX (not NaN, not negative). */
bool nn_result_seconds_valid (double seconds);

/* ---------------------------------------------------------------- this machine's identity */

#define NN_MACHINE_ID_SIZE 33   /* 32 lowercase hexadecimal digits and the NUL */

/* This machine's identity: 128 random bits, made the first time one is
 * asked for and kept in Trainbench's data folder beside the runs folder
 * (nn_runs_dir's parent: $XDG_DATA_HOME/trainbench/machine-id, on Windows
 * %LOCALAPPDATA%\Trainbench\machine-id), so it is one installation's, not
 * a model name that two laptops share. Every result and sweep file records
 * it (system.machine_id) and the report knows this machine's runs by it.
 * Under wine the Windows build keeps the Linux host's (where wine reaches
 * the host's folder): they are two OSes of one machine. Two processes that
 * make it at the same moment end with the same one. Read once per
 * process. When there is none to read or make (the folder cannot be
 * written, the file holds no id), the status and `error` say why and `id`
 * is "": none is made up. `path` (may be NULL) gets the file's path. */
NnStatus nn_machine_id (char id[NN_MACHINE_ID_SIZE], char *path, size_t path_size,
                        NnError *error);

/* ---------------------------------------------------------------- sweeps */

/* A sweep (nn-sweep.c) trains many short runs over a grid of settings, to
 * find where one device starts to beat another: each point is a recorded
 * run (NnRunner) of warmup_steps + steps steps without evaluation, timed
 * after its warm-up. A sweep lives in RUNS/sweeps/SWEEP_ID/: sweep.json,
 * rewritten atomically after every point, and one result file per point
 * (point-0001.json, ...) with "sweep": SWEEP_ID. docs/ARCHITECTURE.md
 * "Sweep file" gives the format. The engine only writes sweep files. */

#define NN_SWEEP_AXES_MAX 3        /* axes of a grid */
#define NN_SWEEP_VALUES_MAX 32     /* values of one axis */
#define NN_SWEEP_POINTS_MAX 1024   /* points in all: the axes' values times the devices */
#define NN_SWEEP_DEVICES_MAX 8     /* devices of a sweep */
#define NN_SWEEP_NAME_MAX 32       /* an axis name, with its NUL */
#define NN_SWEEP_VALUE_MAX 1000000 /* the largest value of an axis (batch: NN_BATCH_SIZE_MAX) */
#define NN_SWEEP_DEPTH_MAX 64      /* the mlp family's largest depth D */
#define NN_SWEEP_STEPS_MAX 100000  /* steps (and warm-up steps) of a point */
#define NN_SWEEP_TEMPLATE_MAX 2048 /* a spec template or an expanded spec, with its NUL */

typedef enum
{
  NN_SWEEP_MLP,  /* "flatten", then "dense W relu" D times, then "dense CLASSES softmax";
                  * axes W (default 128), D (default 1) and batch */
  NN_SWEEP_CNN,  /* the cnn preset's layers with F and 2F filters in its two convolutions;
                  * axes F (default 32) and batch */
  NN_SWEEP_SPEC, /* a spec text with {NAME} placeholders, each one an axis (and batch) */
} NnSweepFamily;

/* One axis of the grid: a name and its values, in the order they run.
 * "batch" is the batch size; any other name is a parameter of the family
 * (W, D, F) or a placeholder of the template ({NAME}: letters, digits and
 * '_', not starting with a digit). */
typedef struct
{
  char name[NN_SWEEP_NAME_MAX];
  int32_t count;                        /* 1 to NN_SWEEP_VALUES_MAX */
  int32_t values[NN_SWEEP_VALUES_MAX];  /* (count), each 1 to NN_SWEEP_VALUE_MAX, no repeats */
} NnSweepAxis;

typedef enum
{
  NN_SWEEP_POINT_PENDING,    /* not run (yet) */
  NN_SWEEP_POINT_RUNNING,    /* being run now (only in an NN_SWEEP_POINT_STARTED report) */
  NN_SWEEP_POINT_COMPLETED,
  NN_SWEEP_POINT_FAILED,     /* its error says why: the device unusable, out of memory, ... */
  NN_SWEEP_POINT_CANCELLED,  /* the point that ran when the sweep was cancelled */
} NnSweepPointStatus;

/* One point of the grid and, once run, its figures. */
typedef struct
{
  int32_t index;                        /* 0-based, in grid order (nn_sweep_new) */
  int32_t values[NN_SWEEP_AXES_MAX];    /* the axes' values here, in the request's axis order */
  int32_t batch_size;                   /* the batch axis's value, or the config's */
  int32_t device;                       /* index into the request's devices */
  char device_text[32];                 /* as the request names it, normalized: "cpu", "cuda:0" */
  NnDeviceKind device_kind;
  char device_name[256];                /* "NVIDIA H200"; the device text until it ran */
  char spec[NN_SWEEP_TEMPLATE_MAX];     /* the model spec of this point, expanded */
  int64_t params;                       /* the model's parameters on the data set's images */
  NnSweepPointStatus status;
  char error[NN_ERROR_MESSAGE_MAX];     /* when failed or cancelled, else "" */
  int64_t steps_measured;               /* steps the times below come from */
  double step_seconds_median;           /* per step, after the warm-up; 0 when not run */
  double step_seconds_p10;
  double step_seconds_p90;
  double samples_per_second;            /* batch_size / step_seconds_median; 0 when not run */
  double seconds;                       /* the point's wall time in all: model built, plan,
                                         * warm-up, steps, result file (the overhead is this
                                         * less the steps' time) */
  NnBreakdown breakdown;                /* where the timed steps' time went (the warm-up's
                                         * left out); measured is false when not run or off */
  char result_file[32];                 /* "point-0001.json" in the sweep's folder; "" when
                                         * none was written (an unusable device runs nothing) */
} NnSweepPoint;

typedef enum
{
  NN_SWEEP_POINT_STARTED,   /* `point` is about to run */
  NN_SWEEP_POINT_FINISHED,  /* `point` ran (completed, failed or cancelled) */
} NnSweepProgressKind;

typedef struct
{
  NnSweepProgressKind kind;
  int32_t index;            /* the point's index */
  int32_t count;            /* points in the sweep */
  int32_t done;             /* points finished so far (this one included when FINISHED) */
  const NnSweepPoint *point; /* borrowed for the call: copy what is kept */
  double elapsed_seconds;   /* since nn_sweep_run started */
  double eta_seconds;       /* the points left, each at the seconds per unit of work (its
                             * parameters x batch x steps) of the points of its device done
                             * so far (of all devices while its own has none); < 0 while no
                             * point is done */
} NnSweepProgress;

/* Called on the sweep's thread. Return false to cancel the sweep (as
 * nn_sweep_cancel does). */
typedef bool (*NnSweepProgressCallback) (const NnSweepProgress *progress, void *user_data);

typedef enum
{
  NN_SWEEP_RUNNING,
  NN_SWEEP_COMPLETED,   /* every point ran (some may have failed) */
  NN_SWEEP_CANCELLED,   /* stopped by nn_sweep_cancel: the points done are kept */
  NN_SWEEP_FAILED,      /* stopped by an error of the sweep itself (data set, folder, file) */
} NnSweepStatus;

/* What a sweep asks for. Copied by nn_sweep_new, its strings too; the data
 * set it points to is borrowed until nn_sweep_free. */
typedef struct
{
  NnSweepFamily family;
  const char *template_text;            /* NN_SWEEP_SPEC: the spec with {NAME} placeholders */
  int32_t axis_count;                   /* 0 to NN_SWEEP_AXES_MAX; 0 = one point a device */
  NnSweepAxis axes[NN_SWEEP_AXES_MAX];
  int32_t device_count;                 /* 1 to NN_SWEEP_DEVICES_MAX */
  char devices[NN_SWEEP_DEVICES_MAX][32]; /* "cpu", "cuda", "cuda:1", "gpu" (nn_device_parse) */
  int32_t steps;                        /* measured steps a point, 1 to NN_SWEEP_STEPS_MAX */
  int32_t warmup_steps;                 /* steps before them, not measured; < 0 (the default):
                                         * max (10, steps / 10) */
  /* Everything else of a point's run: optimizer, loss, seed, device.threads
   * and device.tf32, and the batch size when there is no batch axis. The
   * sweep sets spec_text, model_name, device kind and index, batch_size
   * (from the batch axis), max_steps, warmup_steps, epochs (enough for
   * max_steps) and skip_evaluation itself. */
  NnTrainConfig config;
  const char *dataset_name;             /* name or path, loaded once by nn_sweep_run when
                                         * `dataset` is NULL */
  const NnDataset *dataset;             /* borrowed: loaded already, shared by every point */
  int32_t limit_train;                  /* samples kept of a data set the sweep loads; 0 = all */
  const char *runs_folder;              /* the sweep goes in RUNS/sweeps/SWEEP_ID/;
                                         * NULL: nn_runs_dir () */
  NnSweepProgressCallback progress;     /* may be NULL */
  void *progress_data;
} NnSweepRequest;

/* Empty: family mlp, no axes, no devices, 200 steps, the default warm-up,
 * nn_train_config_init's config, the default data set "mnist". */
void nn_sweep_request_init (NnSweepRequest *request);

/* The axes a family takes, in the order a front end lists them, each with
 * the values its default grid takes (count 0: an axis swept only when
 * asked):
 * - mlp: W (32, 128, 512, 2048), D (none: 1 unless swept), batch (32, 128,
 *   512, 2048);
 * - cnn: F (8, 16, 32, 64), batch (32, 128, 512);
 * - spec: each {NAME} placeholder of `template_text` once, in the order
 *   they first appear ({batch} is the batch axis), with 32, 128, 512 and
 *   2048, then batch (32, 128, 512, 2048).
 * Writes at most `max` axes into `out` (may be NULL when `max` is 0);
 * returns how many the family takes. */
int32_t nn_sweep_family_axes (NnSweepFamily family, const char *template_text,
                              NnSweepAxis *out, int32_t max);

/* The request's axes become its family's default grid (family and
 * template_text as set): the axes of nn_sweep_family_axes that have
 * values, the first NN_SWEEP_AXES_MAX of them. */
void nn_sweep_request_use_default_axes (NnSweepRequest *request);

/* The request's devices become the default ones: cpu, and cuda:0 when
 * nn_device_list finds it usable (which loads the CUDA module). */
void nn_sweep_request_use_default_devices (NnSweepRequest *request);

/* "mlp", "cnn", "spec"; nn_sweep_family_from_name takes those
 * (case-insensitive) and names the word in its error. */
const char *nn_sweep_family_name (NnSweepFamily family);
NnStatus nn_sweep_family_from_name (const char *name, NnSweepFamily *out, NnError *error);

/* The template of a family as the sweep file records it ("flatten; dense
 * {W} relu; dense 10 softmax"; NN_SWEEP_SPEC: the request's template),
 * for a data set of `classes` classes and the given axes: a parameter that
 * is no axis is written as its value ("dense 128 relu"), D an axis as
 * "dense {W} relu (x {D})". Returns the length it needed, like snprintf. */
size_t nn_sweep_template (const NnSweepRequest *request, int32_t classes, char *out, size_t size);

/* Parse one axis as the CLI writes it, "W=32,128,512" (values: decimal
 * integers, comma-separated). The message names the text at fault. */
NnStatus nn_sweep_axis_parse (const char *text, NnSweepAxis *out, NnError *error);

/* Check a request and lay out its grid, touching no file and running
 * nothing: the axes (names the family or template takes, values in range,
 * no repeats), every placeholder of a template given an axis and every
 * axis a placeholder (the messages name them), the devices, the bounds
 * (the message names the limit), and each point's spec, which must parse.
 * The data set's classes come from `dataset` or nn_dataset_peek.
 *
 * Grid order: the first axis changes slowest, the last fastest, and the
 * devices fastest of all, so that the points of every device at one
 * setting are neighbours (a cancelled sweep keeps pairs to compare). */
typedef struct NnSweep NnSweep;
NnStatus nn_sweep_new (const NnSweepRequest *request, NnSweep **out, NnError *error);
void nn_sweep_free (NnSweep *sweep);

/* Ask the sweep to stop; safe from any thread and from a signal handler.
 * The point running stops within one step and is recorded as cancelled,
 * the points after it stay pending, the sweep file says "cancelled". */
void nn_sweep_cancel (NnSweep *sweep);

/* Run the sweep (once): load the data set (unless the request gave one),
 * make RUNS/sweeps/SWEEP_ID/ (never one that exists), write sweep.json with
 * every point pending, then run the points in grid order, each writing its
 * result file, and rewrite sweep.json after each. A device found unusable
 * fails its points with the reason without running them; a point that
 * fails (out of memory, ...) does not stop the others. While it runs, the
 * folder keeps room for the last sweep.json (sweep.reserve, the most it can
 * take), freed to write it: a sweep whose files cannot be written (a point
 * file or sweep.json, on a full disk) stops there and ends "failed" with
 * the reason (sweep.json's "error") and the points done. Returns NN_OK when
 * every point ran (nn_sweep_point says which failed), NN_ERROR_CANCELLED,
 * or the error that stopped the sweep itself (the data set, the folder,
 * its files). */
NnStatus nn_sweep_run (NnSweep *sweep, NnError *error);

/* The sweep's state: its id ("20261203T103000Z-sweep-mlp-4f2a", "" before
 * nn_sweep_run made it), its folder and sweep file ("" until made), its
 * status, and its points (borrowed, valid until nn_sweep_free; read them
 * on the sweep's thread, from its progress callback, or once nn_sweep_run
 * returned). */
const char *nn_sweep_id (const NnSweep *sweep);
const char *nn_sweep_folder (const NnSweep *sweep);
const char *nn_sweep_file (const NnSweep *sweep);
NnSweepStatus nn_sweep_status (const NnSweep *sweep);
int32_t nn_sweep_point_count (const NnSweep *sweep);
const NnSweepPoint *nn_sweep_point (const NnSweep *sweep, int32_t index); /* NULL out of range */

/* The request as the sweep holds it, its warm-up resolved and its devices
 * normalized (borrowed). */
const NnSweepRequest *nn_sweep_request (const NnSweep *sweep);

/* "completed", "cancelled", "failed", "running" / "pending", ...: the
 * words the sweep file writes. */
const char *nn_sweep_status_name (NnSweepStatus status);
const char *nn_sweep_point_status_name (NnSweepPointStatus status);

/* ---------------------------------------------------------------- where the GPU starts to win */

/* A sweep's crossover (nn-sweep-crossover.c): the GPU's samples per second
 * over the CPU's along one axis, at one value of every other axis, and
 * what the ratios say. The CLI prints it, the app's heat map draws it. */

/* The devices a crossover compares, indices into request->devices: the
 * CPU ("cpu") and the first GPU ("cuda:N"). False when the sweep lacks
 * either (that one is -1). */
bool nn_sweep_crossover_devices (const NnSweepRequest *request, int32_t *cpu, int32_t *gpu);

/* The axes a sweep is shown along: x the first axis that is not batch (or
 * the only axis), y the batch axis (or the other first one); -1 for none. */
void nn_sweep_crossover_axes (const NnSweepRequest *request, int32_t *x_axis, int32_t *y_axis);

typedef enum
{
  NN_CROSSOVER_NOT_COMPARED, /* no value of x where both devices completed */
  NN_CROSSOVER_CPU_FASTER,   /* the CPU as fast or faster at every value compared */
  NN_CROSSOVER_GPU_FASTER,   /* the GPU faster at every value compared */
  NN_CROSSOVER_GPU_FROM,     /* the GPU faster from value `where` on, not before it */
  NN_CROSSOVER_CPU_AGAIN,    /* the GPU faster somewhere, not at `where`, the last value compared */
} NnCrossoverKind;

/* One line of a crossover: along axis x_axis at the other axes' values. */
typedef struct
{
  int32_t x_axis;
  int32_t at[NN_SWEEP_AXES_MAX];      /* each other axis's value index (x_axis's is 0) */
  int32_t count;                      /* x_axis's values */
  double ratio[NN_SWEEP_VALUES_MAX];  /* (count) the GPU's samples per second over the CPU's at
                                       * each value; NAN where either point did not complete.
                                       * The GPU is faster above 1 */
  NnCrossoverKind kind;
  int32_t where;                      /* the value index GPU_FROM and CPU_AGAIN name, else -1 */
} NnCrossoverLine;

/* How many lines a crossover along x_axis has: one per combination of the
 * other axes' values (1 when there is none); 0 when x_axis is no axis. */
int32_t nn_sweep_crossover_line_count (const NnSweepRequest *request, int32_t x_axis);

/* Line `line` of the crossover along x_axis (0 to the count less 1: the
 * other axes' values in grid order, the last fastest), from the sweep's
 * points: nn_sweep_point's (nn_sweep_point (sweep, 0) is the first of an
 * array of them) or any others of its request, found by their device and
 * values. A point counts when it completed with a speed. False, and a line
 * of kind NOT_COMPARED, for a line or axis out of range. */
bool nn_sweep_crossover_line (const NnSweepRequest *request, const NnSweepPoint *points,
                              int32_t point_count, int32_t x_axis, int32_t line,
                              NnCrossoverLine *out);
/* ---------------------------------------------------------------- the articles' claims */

/* What a claim compares: a GPU against a CPU (ratio: the CPU's time over
 * the GPU's, the GPU's speed-up; below 1 the GPU is slower), or Windows
 * against Linux on one machine's CPU (ratio: Windows' time over Linux's;
 * above 1 Windows is slower). Ratios are compared, never absolute seconds:
 * the articles' hardware is not this machine. */
typedef enum
{
  NN_CLAIM_GPU_VS_CPU,
  NN_CLAIM_WINDOWS_VS_LINUX,
} NnClaimKind;

/* One claim of the articles, with its figures as the articles give them. */
typedef struct
{
  const char *id;          /* "mlp-small-gpu-slower" */
  NnClaimKind kind;
  const char *preset;      /* the model: "mlp-small" */
  const char *model;       /* the model as the article names it: "784-128-10 MLP" */
  const char *text;        /* the claim in a sentence */
  const char *hardware;    /* "a laptop" */
  int32_t epochs;          /* the training the figures are for; 0: not given */
  bool per_epoch;          /* the figures are seconds per epoch */
  const char *unit;        /* "s", "s per epoch", "min" */
  double first;            /* the CPU's figure, or Windows' (in `unit`) */
  double second;           /* the GPU's figure, or Linux's */
  const char *first_label; /* "CPU", "Windows (CPU)" */
  const char *second_label;/* "GPU", "Ubuntu (CPU)" */
  double ratio;            /* the article's ratio, as NnClaimKind says */
} NnClaim;

/* The four claims, in the README's order. */
const NnClaim *nn_claims (int *count);

/* ---------------------------------------------------------------- the report */

/* Ids a report's machine may have: one per OS installation of it (a
 * machine that boots Linux and Windows has two). */
#define NN_REPORT_MACHINE_IDS_MAX 8

/* The machine a report calls "this machine": the runs that record one of
 * its ids (nn_machine_id) are its own, whatever CPU or GPU names they
 * share with other machines; a file that records none is never its own.
 * Of its runs, those of its OS (name, version, emulated_by) measure the
 * GPU claims; a run of the Windows build under wine is of another OS
 * ("Windows 7 under wine 8.0"). */
typedef struct
{
  int32_t id_count;        /* none: no run is this machine's (id_why says why) */
  char ids[NN_REPORT_MACHINE_IDS_MAX][NN_MACHINE_ID_SIZE];
  char id_why[NN_ERROR_MESSAGE_MAX]; /* why it has no id, when none */
  char os_name[128];
  char os_version[128];
  char os_emulated_by[64];
  char cpu_model[256];
  int32_t cpu_threads;
  bool gpus_known;         /* false: take runs whatever GPUs they list */
  int32_t gpu_count;
  char gpus[8][256];       /* the usable GPUs' names */
  char gpu_reason[256];    /* why there is no usable GPU, when none */
} NnReportMachine;

/* This machine: nn_machine_id, nn_system_info and nn_device_list (which
 * loads the CUDA module to find the GPUs). */
void nn_report_machine_here (NnReportMachine *out);

/* The machine that wrote a result file, as if it were this one (to make a
 * report of another machine's runs). Its GPUs are known when the file
 * lists any (a CPU run does not look for them). NN_ERROR_FORMAT for a file
 * that records no machine id (older files, or not Trainbench's): it names
 * no machine. */
NnStatus nn_report_machine_from_file (const char *path, NnReportMachine *out, NnError *error);

/* Take the machine that wrote `path` as this machine too: another OS
 * installation of it (each has its own id). Its id is added to
 * machine->ids; the OS, CPU and GPUs stay the first's. NN_ERROR_FORMAT for
 * a file without an id, NN_ERROR_INVALID_ARGUMENT past
 * NN_REPORT_MACHINE_IDS_MAX ids. */
NnStatus nn_report_machine_add_file (NnReportMachine *machine, const char *path,
                                     NnError *error);

/* "AMD EPYC, NVIDIA H200, Debian GNU/Linux 12 (bookworm)"; the length it
 * needed, like snprintf. */
size_t nn_report_machine_label (const NnReportMachine *machine, char *out, size_t size);

typedef enum
{
  NN_VERDICT_HOLDS,          /* "holds here" */
  NN_VERDICT_DOES_NOT_HOLD,  /* "does not hold here" */
  NN_VERDICT_NOT_MEASURED,   /* "not measured yet" */
} NnVerdict;

const char *nn_verdict_name (NnVerdict verdict); /* "holds here" */

/* One side of a claim as measured here: the median of the runs taken. */
typedef struct
{
  bool measured;
  int32_t runs;              /* runs taken; their median counts */
  double epoch_seconds;      /* median of their seconds per epoch */
  double seconds;            /* as the article's figure: per epoch, or times its epochs */
  char device[256];          /* "NVIDIA H200", "AMD EPYC, 2 threads" */
  char os[192];              /* "Debian GNU/Linux 12 (bookworm)", "Windows 7 under wine 8.0" */
  char newest[64];           /* the newest run taken: its run id */
  char newest_started[32];
  bool newest_undated;       /* its start time is not one to trust (NnReportUndated), nor is
                              * any other's of the runs taken: "newest" of runs of unknown time */
  int32_t file_count;
  char **files;              /* (file_count), owned by the report: the result files of the runs
                              * taken, the newest first */
  char command[512];         /* not measured: the command that would measure it */
  char why[512];             /* not measured: why ("no completed cnn run on cuda:0") */
} NnReportSide;

typedef struct
{
  const NnClaim *claim;      /* borrowed: nn_claims' */
  NnVerdict verdict;
  NnReportSide first;        /* CPU, or Windows */
  NnReportSide second;       /* GPU, or Linux */
  double ratio;              /* measured, as the claim's; NAN when not measured */
  char reason[2048];         /* measured: why, from breakdowns and conditions; else what to run */
  int32_t reason_file_count;
  char **reason_files;       /* (reason_file_count), owned by the report: the result files the
                              * reason's figures come from (breakdowns, other conditions) */
} NnReportClaim;

/* A run that is not this machine's, or not of its OS, listed as such. */
typedef struct
{
  char path[4096];
  char run_id[64];
  char why[128];             /* "another machine", "no machine id recorded", "this machine
                              * under another OS" */
  char machine[512];         /* its CPU, GPUs and OS in words */
  char preset[64];           /* "" for a custom model */
  char device[256];
  char status[16];
  double epoch_seconds;      /* NAN when none */
} NnReportOther;

/* A file that was not taken, and why ("a.json: byte 12: ..."). */
typedef struct
{
  char path[4096];
  char why[NN_ERROR_MESSAGE_MAX];
} NnReportSkipped;

/* A run of this machine whose start time is not one to order by: more
 * than a day ahead of this machine's clock (NN_REPORT_CLOCK_SKEW_SECONDS),
 * or not a time. It is taken as of unknown time, older than every run
 * with a time, so it is never the newest while one with a time is there. */
typedef struct
{
  char path[4096];
  char run_id[64];
  char started_at[32];       /* as the file gives it */
  char why[128];             /* "in the future", "not a time" */
} NnReportUndated;

/* Entries each list of a report holds (others, skipped, undated); the rest
 * are counted, not kept, so a folder of a million files costs no more
 * memory in lists than one of a thousand. */
#define NN_REPORT_LIST_MAX 1000

typedef struct
{
  NnReportMachine machine;
  char machine_label[512];
  int32_t claim_count;
  NnReportClaim claims[8];
  int32_t files_read;        /* result files read: every one found */
  int32_t runs_here;         /* of them, this machine's (any of its OSes) */
  int32_t other_count;
  NnReportOther *others;     /* (other_count), owned */
  int32_t others_more;       /* such runs beyond the list, counted */
  int32_t skipped_count;
  NnReportSkipped *skipped;  /* (skipped_count), owned */
  int32_t skipped_more;      /* files skipped beyond the list, counted */
  int32_t undated_count;
  NnReportUndated *undated;  /* (undated_count), owned */
  int32_t undated_more;
} NnReport;

/* Read result files and judge each claim. `paths` are files or folders: a
 * folder is read as a runs folder, every *.json file in it and in its
 * sweeps/NAME/ folders (sweep.json itself is no result file and is
 * passed over). A link to a folder found there is not followed and a file
 * reached twice (by a link) is read once, each said in `skipped`. A file
 * that is not a readable result (bad JSON, too deep, too large, not a
 * result, a time beyond NN_RESULT_SECONDS_MAX) is skipped, with why, and
 * the rest still count. Fails only when memory runs out. */
NnStatus nn_report_build (const char *const *paths,
                          int count,
                          const NnReportMachine *machine,
                          NnReport **out,
                          NnError *error);
void nn_report_free (NnReport *report);

/* The article's figure of one side (`first`: the CPU's or Windows'):
 * "52 s (10 epochs)", "162 s per epoch", "20 min". */
size_t nn_report_format_article (const NnClaim *claim, bool first, char *out, size_t size);

/* A measured side in the article's terms: "61.2 s (10 epochs of 6.12 s)",
 * "0.080 s per epoch"; "not measured". */
size_t nn_report_format_measured (const NnReportClaim *claim, bool first, char *out,
                                  size_t size);

/* A ratio in words: "GPU 2.4x slower", "GPU 8.1x faster", "Windows 6.7x
 * slower", "even (within 10 %)"; "-" when not finite. */
size_t nn_report_format_ratio (NnClaimKind kind, double ratio, char *out, size_t size);

/* A factor as every part of the report prints one: "0.42x", "2.37x",
 * "12.5x", "480x", and from 10,000x (or below 0.01x) as a power of ten,
 * "3.2e16x"; "-" when not finite and positive. */
size_t nn_report_format_times (double x, char *out, size_t size);

/* The report as one self-contained HTML page (inline CSS and SVG bar
 * charts, no scripts, nothing fetched; every text from a file escaped),
 * written atomically. nn_report_html gives the text (free it). */
NnStatus nn_report_write_html (const NnReport *report, const char *path, NnError *error);
char *nn_report_html (const NnReport *report);

/* The report as JSON ("kind": "trainbench-report"), written atomically. */
NnStatus nn_report_write_json (const NnReport *report, const char *path, NnError *error);

/* ---------------------------------------------------------------- reproducing the articles */

/* One run of reproducing the articles: a preset, with its own settings
 * (nn_train_config_use_preset), on a device. */
typedef struct
{
  const NnPreset *preset;    /* nn_presets' (static) */
  NnDeviceKind kind;
  int32_t index;             /* 0 for the CPU, else the CUDA ordinal */
  int32_t device;            /* its entry in the device list the runs were made from */
} NnReproduceRun;

/* The runs of a reproduce: each of `presets` (NULL: every preset, in
 * nn_presets' order) on every usable device of `devices` (nn_device_list's,
 * or those a user named), one preset's runs after the other, each on the
 * devices in the list's order. Writes at most `max` into `out` (may be
 * NULL when `max` is 0); returns how many runs there are. */
int32_t nn_reproduce_runs (const NnPreset *const *presets, int32_t preset_count,
                           const NnDeviceInfo *devices, int32_t device_count,
                           NnReproduceRun *out, int32_t max);

/* The sides of a claim, as bits: its first side (the CPU's, or Windows'),
 * its second (the GPU's, or Linux's). */
#define NN_REPORT_FIRST_SIDE 1u
#define NN_REPORT_SECOND_SIDE 2u

/* The sides of claim `index` of `report` that are not measured and that
 * this machine (report->machine) can measure: a GPU side needs a usable
 * GPU; of Windows against Linux only the side of the OS it runs, and
 * neither under an emulator. 0 for an index out of range. */
uint32_t nn_report_claim_unmeasured (const NnReport *report, int32_t index);

/* The runs that measure `sides` of claim `index`: the claim's preset on
 * the CPU of `devices`, or for a GPU side on its first usable GPU (a side
 * whose device the list lacks gets none). The report takes such a run
 * when it keeps the preset's own settings on the whole data set, every
 * epoch, under the default conditions (nn_conditions_default). Writes at
 * most `max`; returns how many runs there are. */
int32_t nn_report_claim_runs (const NnReport *report, int32_t index, uint32_t sides,
                              const NnDeviceInfo *devices, int32_t device_count,
                              NnReproduceRun *out, int32_t max);

/* ---------------------------------------------------------------- files */

/* Create a folder and its parents (mkdir -p; on Windows '/' and '\\' both
 * separate). The message names the folder that could not be made. */
NnStatus nn_folder_create (const char *path, NnError *error);

/* Can files be written into `folder` (created when missing), with at least
 * `room` bytes free for them? A small file is made there and removed (what
 * a read-only file system, a folder of another user's or a full disk
 * refuses), then the file system's free space is compared with `room`
 * (where it can be read). The message names the folder and says which. */
NnStatus nn_folder_check_writable (const char *folder, uint64_t room, NnError *error);

/* out = folder + the system's separator + name (none added after a folder
 * that ends in one). False, and out = "", when it does not fit. */
bool nn_path_join (char *out, size_t size, const char *folder, const char *name);

/* The most a name made by nn_file_name_from_id takes, with its NUL, for an
 * extension of up to 15 bytes. */
#define NN_FILE_NAME_MAX 160

/* The file name a run id (of this program, or read from anyone's file)
 * is stored under: `id` followed by `extension` (".json"), made a plain
 * name that every file system takes. Bytes other than A-Z, a-z, 0-9, '-',
 * '_' and '.' become '_' (so no separator, none of the characters Windows
 * refuses, no control character, no space); a leading '.' becomes '_'; a
 * name Windows keeps for a device, with or without an extension and in any
 * case (CON, PRN, AUX, NUL, COM0-COM9, LPT0-LPT9: "nul.json" there is the
 * null device in every folder) gets a '_' in front; nothing ends in a dot
 * or a space. An id of more than 128 bytes keeps its first 96 and gets a
 * '-' and 16 hex digits of a 64-bit hash of the whole id. Ids the engine
 * makes (nn_run_id_new) come back as they are. False, and out = "", when
 * `size` is too small or the extension longer than 15 bytes. */
bool nn_file_name_from_id (const char *id, const char *extension, char *out, size_t size);

/* A file a user names (an export, --out), written by the rules every such
 * file of the CLI and the app follows, in full or not at all:
 * - a regular file or nothing: a new temporary file beside it is written,
 *   flushed and put in its place in one step, so the file is whole or as
 *   it was, never half written;
 * - a symbolic link: the file it points to (through any chain of links)
 *   is replaced or created that way, beside itself; the link stays;
 * - a character device or a FIFO that something reads (/dev/null,
 *   /dev/stdout, a pipe; on Windows NUL, CON): written through, never
 *   replaced;
 * - a block device, a socket, a FIFO that nothing reads, a loop of links:
 *   refused at once, with a message that says which.
 * nn_file_writer_open decides which (the folder must exist); the contents
 * go in with nn_file_writer_write, in pieces of any size (a stream
 * encoder's callback may feed it), which returns false once a write
 * failed (a write of 0 bytes says whether one has); nn_file_writer_commit puts the file in place (or closes the
 * device), or fails with the first write's error, and frees the writer;
 * nn_file_writer_abort gives up, leaving the target as it was, and frees
 * it. Messages name `path`. */
typedef struct NnFileWriter NnFileWriter;

NnStatus nn_file_writer_open (const char *path, NnFileWriter **out, NnError *error);
bool nn_file_writer_write (NnFileWriter *writer, const void *data, size_t size);
NnStatus nn_file_writer_commit (NnFileWriter *writer, NnError *error);
void nn_file_writer_abort (NnFileWriter *writer);

/* The three in one, for contents already in memory. */
NnStatus nn_file_write (const char *path, const void *data, size_t size, NnError *error);

/* ---------------------------------------------------------------- text for a terminal */

/* `text` (its first `length` bytes, or all of it for (size_t) -1) as it
 * may be printed on a terminal, into out: valid UTF-8 is kept, but the C0
 * and C1 control characters, DEL and the bidirectional embeddings,
 * overrides and isolates (U+202A-U+202E, U+2066-U+2069) are written
 * visibly escaped ("\n", "\r", "\t", "\x1b", "\u009b", "\u202e"), and so is
 * every byte that is not UTF-8 ("\xff"). Text from a file, a file name, an
 * error message or the environment printed through it cannot move the
 * cursor, clear the screen, set a window title, write the clipboard (OSC
 * 52), overwrite a line or reorder one. out is NUL-terminated and cut
 * before a character or escape that does not fit; returns the length the
 * whole safe text needs, like snprintf. */
size_t nn_text_for_terminal (const char *text, size_t length, char *out, size_t size);

#if defined(__MINGW32__) && defined(__MINGW_PRINTF_FORMAT)
#define NN_TEXT_PRINTF(f, a) __attribute__ ((format (__MINGW_PRINTF_FORMAT, f, a)))
#elif defined(__GNUC__) || defined(__clang__)
#define NN_TEXT_PRINTF(f, a) __attribute__ ((format (printf, f, a)))
#else
#define NN_TEXT_PRINTF(f, a)
#endif

/* snprintf into out, where the text of every %s and %c argument goes
 * through nn_text_for_terminal (a precision counts the argument's bytes
 * before it is made safe, a width the safe text's); the format itself, the
 * caller's own text with its line breaks, is written as it is. Flags,
 * widths and precisions (also '*'), and the lengths hh, h, l, ll, j, z, t
 * and L; no positional arguments. out is cut as nn_text_for_terminal cuts;
 * returns the length the whole text needs. */
int nn_text_format_for_terminal (char *out, size_t size, const char *format, ...)
  NN_TEXT_PRINTF (3, 4);
int nn_text_vformat_for_terminal (char *out, size_t size, const char *format, va_list args)
  NN_TEXT_PRINTF (3, 0);

#ifdef __cplusplus
}
#endif
