/* SPDX-License-Identifier: GPL-3.0-or-later */
/* trainbench.h: the public API of libtrainbench, the training engine.
 *
 * Plain C11, no GLib. Every function that can fail returns an NnStatus and
 * fills an NnError the caller owns; the engine never prints and never exits.
 * The GUI and the CLI use this header only.
 */
#pragma once

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
  char reason[256];        /* why not usable: "no NVIDIA driver", ... */
  uint64_t memory_bytes;   /* RAM for the CPU, device memory for a GPU */
  int32_t compute_major;   /* CUDA compute capability */
  int32_t compute_minor;
  int32_t cores;           /* CPU cores; multiprocessors for a GPU */
  char driver[64];         /* "580.159.04" */
  char runtime[64];        /* CUDA runtime version */
  char cublas[64];         /* cuBLAS version */
  char cudnn[64];          /* cuDNN version */
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
} NnTrainConfig;

/* Defaults: Adam, sparse categorical cross-entropy, batch 32, 10 epochs, seed 42, CPU. */
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

/* Load the data set (unless the request gave one) and build the trainer,
 * before nn_runner_run if the caller wants to show the data set first.
 * Idempotent; nn_runner_run records a failure here. */
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

typedef struct
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
 * when unknown). */
uint64_t nn_system_memory_available (void);

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

/* The machine a report calls "this machine": runs with its CPU model, its
 * GPUs and its OS are its own; a run of the Windows build under wine is of
 * another OS ("Windows 7 under wine 8.0"). */
typedef struct
{
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

/* This machine: nn_system_info and nn_device_list (which loads the CUDA
 * module to find the GPUs). */
void nn_report_machine_here (NnReportMachine *out);

/* The machine that wrote a result file, as if it were this one (to make a
 * report of another machine's runs). Its GPUs are known when the file
 * lists any (a CPU run does not look for them). */
NnStatus nn_report_machine_from_file (const char *path, NnReportMachine *out, NnError *error);

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
} NnReportClaim;

/* A run that is not this machine's, listed as such. */
typedef struct
{
  char path[4096];
  char run_id[64];
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

#define NN_REPORT_FILES_MAX 20000   /* files read at most, in all folders */

typedef struct
{
  NnReportMachine machine;
  char machine_label[512];
  int32_t claim_count;
  NnReportClaim claims[8];
  int32_t files_read;        /* result files read */
  int32_t runs_here;         /* of them, this machine's (any OS of its hardware) */
  int32_t other_count;
  NnReportOther *others;     /* (other_count), owned */
  int32_t skipped_count;
  NnReportSkipped *skipped;  /* (skipped_count), owned */
} NnReport;

/* Read result files and judge each claim. `paths` are files or folders: a
 * folder is read as a runs folder, its *.json files and those of its
 * sweeps/NAME/ folders (sweep.json itself is no result file and is
 * passed over). A file that is not a readable result (bad JSON, too deep,
 * too large, not a result) is skipped, with why, and the rest still
 * count. Fails only when memory runs out. */
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

/* The report as one self-contained HTML page (inline CSS and SVG bar
 * charts, no scripts, nothing fetched; every text from a file escaped),
 * written atomically. nn_report_html gives the text (free it). */
NnStatus nn_report_write_html (const NnReport *report, const char *path, NnError *error);
char *nn_report_html (const NnReport *report);

/* The report as JSON ("kind": "trainbench-report"), written atomically. */
NnStatus nn_report_write_json (const NnReport *report, const char *path, NnError *error);

/* ---------------------------------------------------------------- files */

/* Create a folder and its parents (mkdir -p; on Windows '/' and '\\' both
 * separate). The message names the folder that could not be made. */
NnStatus nn_folder_create (const char *path, NnError *error);

/* out = folder + the system's separator + name (none added after a folder
 * that ends in one). False, and out = "", when it does not fit. */
bool nn_path_join (char *out, size_t size, const char *folder, const char *name);

#ifdef __cplusplus
}
#endif
