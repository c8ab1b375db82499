/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-backend-abi.h: the table of primitive ops a compute backend provides.
 *
 * Shared by engine/ (the CPU backend and the loader) and gpu/ (the CUDA
 * module, which exports nn_backend_cuda_get). Plain C, usable from .cu files.
 * Every pointer marked "device" is memory from that backend's alloc; on the
 * CPU backend that is host memory. Layouts are row-major; images are NCHW.
 * Every op returns 0 on success or an NnBackendStatus; the message of the last
 * failure is in last_error(ctx). Ops are asynchronous on a GPU: they are
 * ordered on one stream and only download() and synchronize() wait.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bump on any change to a struct or a slot below. The CUDA module is built
 * and installed with the engine, so the loader takes exactly this version
 * and a table of exactly this size, and refuses a table that breaks a rule
 * below (a required slot NULL, a group of slots neither all set nor all
 * NULL), naming the slot: the engine never calls a NULL slot. */
#define NN_BACKEND_ABI_VERSION 15

typedef enum
{
  NN_BACKEND_OK = 0,
  NN_BACKEND_ERROR = 1,          /* an op failed; see last_error */
  NN_BACKEND_OUT_OF_MEMORY = 2,  /* alloc (or a workspace) did not fit */
  NN_BACKEND_DEVICE_LOST = 3,    /* the context is corrupt: stop using the device */
  NN_BACKEND_UNSUPPORTED = 4,    /* this op or setting is not available here */
} NnBackendStatus;

/* Activation codes, equal to NnActivation in trainbench.h. */
enum
{
  NN_BK_ACT_LINEAR = 0,
  NN_BK_ACT_RELU = 1,
  NN_BK_ACT_SIGMOID = 2,
  NN_BK_ACT_TANH = 3,
  NN_BK_ACT_SOFTMAX = 4,
};

/* Loss codes, equal to NnLossKind. */
enum
{
  NN_BK_LOSS_SPARSE_XENT = 0, /* softmax + cross-entropy from logits, int labels */
  NN_BK_LOSS_XENT = 1,        /* softmax + cross-entropy from logits, one-hot targets */
  NN_BK_LOSS_MSE = 2,         /* mean squared error on outputs, one-hot targets */
};

/* Optimizer codes, equal to NnOptimizerKind. */
enum
{
  NN_BK_OPT_SGD = 0,
  NN_BK_OPT_ADAM = 1,
  NN_BK_OPT_ADADELTA = 2,
  NN_BK_OPT_RMSPROP = 3,
  NN_BK_OPT_ADAGRAD = 4,
};

typedef struct
{
  int32_t threads; /* CPU: 0 = all cores */
  int32_t tf32;    /* GPU: allow TF32 in convolutions and GEMMs */
} NnBackendOptions;

typedef struct
{
  char name[256];
  uint64_t memory_bytes;
  int32_t compute_major;
  int32_t compute_minor;
  int32_t multiprocessors;
  char driver[64];   /* "580.159.04" or "13.0" from the driver API */
  char runtime[64];  /* the CUDA version the module's kernels were built with, "13.0" */
  char cublas[64];   /* "13.0.2" */
  char cudnn[64];    /* "9.14.0" */
  char libraries[1024]; /* where cuBLAS and cuDNN were loaded from */
} NnBackendDeviceInfo;

/* Convolution geometry, NCHW input (n, c, h, w), filters (k, c, r, s),
 * output (n, k, out_h, out_w). Padding is explicit (top/left; the bottom and
 * right padding follow from the output size). */
typedef struct
{
  int32_t n, c, h, w;
  int32_t k, r, s;
  int32_t stride_h, stride_w;
  int32_t pad_h, pad_w;
  int32_t out_h, out_w;
} NnConvShape;

/* Pooling geometry, NCHW; windows may overhang the bottom and right edge
 * (padding "same"): overhanging cells are ignored by max and not counted by
 * average. */
typedef struct
{
  int32_t n, c, h, w;
  int32_t win_h, win_w;
  int32_t stride_h, stride_w;
  int32_t pad_h, pad_w;
  int32_t out_h, out_w;
} NnPoolShape;

/* Optimizer settings as the update kernel sees them. State slots per
 * parameter: sgd 1 (velocity, used only with momentum), adam 2 (m, v),
 * adadelta 2 (accumulated grad, accumulated update), rmsprop 1, adagrad 1. */
typedef struct
{
  int32_t kind;
  int32_t nesterov;
  float lr;
  float momentum;
  float beta1;
  float beta2;
  float rho;
  float epsilon;
} NnBackendOptimizer;

/* ---------------------------------------------------------------- fused steps */

/* What a fused step is: the layer it runs, as one op of the backend where
 * the engine would otherwise run that layer's ops one by one, with what
 * the step does around it (NnBackendStep). */
enum
{
  NN_BK_STEP_DENSE = 1,       /* a dense layer: y (n, out) = act (x (n, in) @ w (in, out) + b) */
  NN_BK_STEP_CONV = 2,        /* a convolution: y = act (conv (x, w) + b[channel]) */
  NN_BK_STEP_POOL = 3,        /* a pooling whose input is a convolution's output, after its
                               * activation (below) */
  NN_BK_STEP_OUTPUT_LOSS = 4, /* forward: the output dense layer, then the loss on it */
  NN_BK_STEP_JOIN = 5,        /* no work of its own: every op after it waits for the branch */
};

/* Flags of a step. */
enum
{
  /* backward: dy is dz already (the activation's backward, and the dropout
   * above, were done above): act counts as linear and drop as none */
  NN_BK_STEP_DZ_IN = 1u << 0,
  /* CONV forward: the max pooling `pool` above the convolution runs in the
   * same op, and writes its maxima (pool.argmax); y and drop are the
   * pooling's, the convolution's own output is never written */
  NN_BK_STEP_POOLED = 1u << 1,
  /* POOL (max): the forward records where each window's maximum is, a byte
   * a window in pool.argmax (the row-major position, within its window, of
   * its first maximum), and the backward works from those bytes and y in
   * place of the pooling's input, which it does not read (and which need
   * not have been written). Only for windows that tile the input exactly
   * (stride = window, no padding, out * window = in) of at most 256 cells. */
  NN_BK_STEP_MAXIMA = 1u << 2,
  /* runs on a branch beside the steps issued after it: it starts after
   * every op issued before it and may run beside the ops issued after it,
   * until a JOIN step, after which every op waits for it. The engine puts
   * on a branch only a step whose memory the ops beside it neither read nor
   * write, and joins before the op that stores the step counter, which the
   * branch may read. One branch at a time. */
  NN_BK_STEP_BRANCH = 1u << 3,
};

/* What a step also does for the layer below it (below.kind). */
enum
{
  NN_BK_BELOW_NONE = 0,
  /* DENSE backward, OUTPUT_LOSS: the dense layer below, whose dz the step
   * writes in place of its input gradient dx: act' (y) * that gradient,
   * after dropout_backward with (rate, seed, *step) when rate > 0 */
  NN_BK_BELOW_DENSE = 1,
  /* POOL: the convolution below, whose activation backward (act, from the
   * pooling's input) and bias gradient db the pooling's backward does: dx
   * is that convolution's dz. CONV backward: the convolution below, itself
   * the first layer that learns: its weight and bias gradients (dw, db; its
   * input x, its plan) from the step's input gradient, which is never
   * written (the step's dx is NULL) */
  NN_BK_BELOW_CONV = 2,
};

/* The layer below whose work a step does too. */
typedef struct
{
  int32_t kind;     /* NN_BK_BELOW_* */
  int32_t act;      /* its activation (not softmax) */
  float rate;       /* DENSE: the dropout between the two (0: none) */
  uint64_t seed;
  const float *y;   /* DENSE: its output y = act (z), before that dropout */
  void *plan;       /* CONV backward: its plan (its output is the step's input) */
  const float *x;   /* CONV backward: its input */
  float *dw, *db;   /* CONV: its gradients (overwritten; db may be NULL) */
} NnBackendBelow;

/* One fused step: what it is and its buffers (device memory), so that
 * step_supported can say whether the backend runs it and step_run run it.
 * Fields a kind does not use are 0 or NULL. Results equal those of the
 * separate ops up to float summation order. */
typedef struct
{
  int32_t kind;          /* NN_BK_STEP_* */
  int32_t backward;      /* the step's backward (else its forward) */
  uint32_t flags;        /* NN_BK_STEP_* flags */
  int32_t n;             /* rows (images) */
  int32_t act;           /* the layer's activation, not softmax (POOL: none) */

  const float *x;        /* the layer's input */
  float *w, *b;          /* its parameters (b may be NULL) */
  float *y;              /* its output, after the activation */
  /* backward: the output's gradient, of drop.y when there is a dropout
   * (the op may overwrite it); dx the input gradient (may be NULL: none
   * wanted); dw, db the parameters' gradients (overwritten; db may be
   * NULL) unless the update is fused. OUTPUT_LOSS: dx, when not NULL, the
   * input gradient from the loss's gradient (act must be linear: logits,
   * whose loss gradient is dz), from w as the forward read it. */
  float *dy, *dx;
  float *dw, *db;
  int64_t *step;         /* the device step counter (dropout masks, the update) */

  struct
  {
    float rate;          /* 0: none */
    uint64_t seed;
    float *y;            /* its output (n, outputs of the layer) */
  } drop;                /* the dropout right above, applied in the same op: forward
                          * drop.y = dropout_forward (y), backward dropout_backward of dy
                          * first, with (rate, seed, *step) */

  struct
  {
    int32_t in, out;
  } dense;               /* DENSE, OUTPUT_LOSS: the layer's inputs and outputs per row */

  struct
  {
    void *plan;          /* from conv2d_plan_new, made for n rows */
    void *workspace;     /* what the plan asked for */
  } conv;                /* CONV */

  struct
  {
    int32_t mode;        /* max 0, average 1 */
    NnPoolShape shape;   /* n rows */
    uint8_t *argmax;     /* MAXIMA: (n, c, out_h, out_w) */
  } pool;                /* POOL, and CONV with POOLED */

  struct
  {
    int32_t kind;        /* NN_BK_LOSS_*: loss (kind, y, labels, targets, grad, stats, n, out) */
    const int32_t *labels;
    const float *targets;
    float *grad;
    float *stats;
  } loss;                /* OUTPUT_LOSS */

  struct
  {
    const NnBackendOptimizer *opt; /* not NULL: the update fused */
    float *w_state, *b_state;      /* slot 0 of w's and b's state; slot j is j * stride
                                    * floats further */
    size_t stride;
    int32_t store_step;            /* store t into *step, as optimizer_update does: only
                                    * on the step's last op */
  } update;              /* DENSE backward: instead of writing dw and db, optimizer_update's
                          * rule (opt, t = *step + 1) applied with them to w and b, after dx
                          * is formed from w as it was */

  NnBackendBelow below;  /* the layer below whose work the step does too */
} NnBackendStep;

typedef struct NnBackendOps NnBackendOps;

struct NnBackendOps
{
  uint32_t abi_version;   /* NN_BACKEND_ABI_VERSION */
  uint32_t struct_size;   /* sizeof (NnBackendOps) as built */
  const char *name;       /* "cpu", "cuda" */

  /* --- devices (no context) --- */

  /* Number of devices; on failure 0 and `reason` says why ("no NVIDIA driver"). */
  int (*device_count) (char *reason, size_t reason_size);
  int (*device_info) (int index, NnBackendDeviceInfo *info);

  /* --- context --- */

  int (*context_new) (int device_index, const NnBackendOptions *options, void **ctx,
                      char *error, size_t error_size);
  void (*context_free) (void *ctx);
  const char *(*last_error) (void *ctx);

  /* --- memory --- */

  int (*alloc) (void *ctx, size_t bytes, void **ptr);          /* zero-filled */
  void (*free) (void *ctx, void *ptr);
  int (*upload) (void *ctx, void *dst, const void *src, size_t bytes);   /* host -> device */
  int (*download) (void *ctx, void *dst, const void *src, size_t bytes); /* device -> host, waits */
  int (*fill) (void *ctx, float *dst, float value, size_t count);
  int (*copy) (void *ctx, void *dst, const void *src, size_t bytes);     /* device -> device */
  int (*synchronize) (void *ctx);

  /* --- dense algebra --- */

  /* C (m, n) = alpha * op(A) (m, k) @ op(B) (k, n) + beta * C, row-major;
   * op transposes when trans_* is nonzero; lda/ldb/ldc are row strides. */
  int (*gemm) (void *ctx, int trans_a, int trans_b, int m, int n, int k, float alpha,
               const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc);

  /* y (n, channels, spatial) = act (y + bias[channel]); bias may be NULL.
   * Softmax applies over `channels` with spatial == 1. */
  int (*bias_act_forward) (void *ctx, int act, float *y, const float *bias,
                           int n, int channels, int spatial);

  /* Given y = act (z) and dy, write dz into dy (in place) and, when dbias is
   * not NULL, dbias[c] = sum over n and spatial of dz (overwritten). */
  int (*bias_act_backward) (void *ctx, int act, const float *y, float *dy, float *dbias,
                            int n, int channels, int spatial);

  /* --- dropout: element i is kept when nn_dropout_keep (seed, *step, i, rate),
   *     so the same seed gives the same masks on every backend. `step` is the
   *     device step counter (see optimizer_update), read, not changed. --- */

  /* y = x * keep / (1 - rate); in place allowed. */
  int (*dropout_forward) (void *ctx, float *y, const float *x, size_t count, float rate,
                          uint64_t seed, const int64_t *step);
  /* dx = dy * keep / (1 - rate), the same mask as forward with the same seed and step. */
  int (*dropout_backward) (void *ctx, float *dx, const float *dy, size_t count, float rate,
                           uint64_t seed, const int64_t *step);

  /* --- convolution and pooling --- */

  /* Prepare a convolution (descriptors, algorithm choice); `workspace_bytes`
   * is what forward/backward need in `workspace`. */
  int (*conv2d_plan_new) (void *ctx, const NnConvShape *shape, void **plan, size_t *workspace_bytes);
  void (*conv2d_plan_free) (void *ctx, void *plan);
  /* y = conv (x, w), no bias. */
  int (*conv2d_forward) (void *ctx, void *plan, const float *x, const float *w, float *y,
                         void *workspace);
  /* dw = dL/dw (overwritten); dx = dL/dx when dx is not NULL. */
  int (*conv2d_backward) (void *ctx, void *plan, const float *x, const float *w, const float *dy,
                          float *dx, float *dw, void *workspace);

  /* max: mode 0, average: mode 1. */
  int (*pool2d_forward) (void *ctx, int mode, const NnPoolShape *shape, const float *x, float *y);
  /* dx (overwritten) from dy; max routes to the first maximum of each window. */
  int (*pool2d_backward) (void *ctx, int mode, const NnPoolShape *shape, const float *x,
                          const float *y, const float *dy, float *dx);

  /* --- loss --- */

  /* Loss of a batch of `n` rows of `classes` outputs. labels (n) int32 are used
   * by sparse cross-entropy, targets (n, classes) one-hot by the others.
   * Adds the summed loss to stats[0] and the number of correct argmax
   * predictions to stats[1] (device floats, accumulated, not overwritten).
   * When grad is not NULL writes d(mean loss)/d(pred), i.e. divided by n. */
  int (*loss) (void *ctx, int kind, const float *pred, const int32_t *labels,
               const float *targets, float *grad, float *stats, int n, int classes);

  /* --- data --- */

  /* For i < n: x[i] = images[rows[i]] * scale (sample_size bytes each, as
   * floats), labels_out[i] = labels[rows[i]], and when targets is not NULL
   * the one-hot row of that label. rows = indices when step is NULL, else
   * indices + (*step % steps_per_epoch) * batch_size: the permutation of the
   * epoch stays in one device buffer and the step counter picks the batch,
   * so a captured step replays correctly. indices are device int32. */
  int (*gather_batch) (void *ctx, const uint8_t *images, const uint8_t *labels,
                       const int32_t *indices, const int64_t *step, int steps_per_epoch,
                       int batch_size, int n, int sample_size, float scale,
                       float *x, int32_t *labels_out, float *targets, int classes);

  /* --- optimizer --- */

  /* One update of the first `count` parameters of a flat arena: params -=
   * f(grads, state). state holds the slots of the whole arena, slot j of
   * parameter i at j * state_stride + i (state_stride >= count), so the
   * parameters this op updates and those a fused dense backward updates
   * (a DENSE backward step with the update) share one state; the engine fills it before the
   * first step (adagrad: initial accumulator). step is the device step
   * counter (updates done so far): the op uses t = *step + 1 (Adam's bias
   * correction) and stores t back. */
  int (*optimizer_update) (void *ctx, const NnBackendOptimizer *opt, float *params,
                           const float *grads, float *state, size_t count, size_t state_stride,
                           int64_t *step);

  /* --- optional: whole-step capture (all four NULL or none) --- */

  /* Start recording the ops that follow instead of running them. */
  int (*capture_begin) (void *ctx);
  /* Stop recording; *graph is the recorded step. */
  int (*capture_end) (void *ctx, void **graph);
  int (*graph_launch) (void *ctx, void *graph);
  void (*graph_free) (void *ctx, void *graph);

  /* --- optional: host-visible copy without waiting (may be NULL; the engine
   *     then uses download). Completion is known after synchronize. --- */
  int (*download_async) (void *ctx, void *dst, const void *src, size_t bytes);

  /* --- optional: fused steps (both NULL or neither; the engine then runs
   *     every layer's own ops, as on the CPU without them) --- */

  /* Nonzero when the backend runs `step` (NnBackendStep) as step_run
   * would, and as fast as the separate ops or faster. Asked when a pass is
   * planned: the kinds, flags, shapes, plans and activations are set, and
   * the buffers as the model has them, whose addresses may differ in the
   * steps run. A DENSE backward with the update is asked about at the
   * run's batch size and also run on its shorter last batch. */
  int (*step_supported) (void *ctx, const NnBackendStep *step);
  /* Runs a step of a kind step_supported said it runs. */
  int (*step_run) (void *ctx, const NnBackendStep *step);

  /* --- optional: page-locked host memory and copies from it that do not
   *     wait (all four NULL or none; without them a run cannot take its
   *     batches from pinned memory, NN_DATA_PINNED). The trainer gathers a
   *     batch on the host into this memory and copies it to the device
   *     every step. On the CPU it is ordinary memory and the copy a memcpy. --- */

  /* Page-locked host memory of `bytes` (cudaHostAlloc), which the host reads and writes. */
  int (*host_alloc) (void *ctx, size_t bytes, void **ptr);
  void (*host_free) (void *ctx, void *ptr);
  /* host (host_alloc memory) -> device, queued on the stream after the ops
   * before it; returns without waiting. The copy reads src when the stream
   * reaches it: src must not change before upload_wait. Not while capturing. */
  int (*upload_async) (void *ctx, void *dst, const void *src, size_t bytes);
  /* Waits until every upload_async queued so far has read its source (not
   * for the ops queued after it), so the host may refill it. */
  int (*upload_wait) (void *ctx);
  /* --- optional: device time of spans of the stream (all three NULL or
   *     none; the CPU has none). Marks on the stream, read back only after
   *     a synchronize the engine makes anyway, so timing never waits. --- */

  /* Marks the start of a span (not while capturing). UNSUPPORTED when every
   * span the backend keeps is open or unread: the engine then leaves those
   * steps untimed. */
  int (*timer_begin) (void *ctx);
  /* Marks the end of the span timer_begin opened, which covers `steps`
   * training steps. */
  int (*timer_end) (void *ctx, int32_t steps);
  /* Adds up the device seconds between the marks of every span that has
   * ended on the device and the steps they cover, and frees those spans;
   * spans still running stay for the next read. Never waits. */
  int (*timer_read) (void *ctx, double *seconds, int64_t *steps);
};

#ifdef __CUDACC__
#define NN_BK_HOST_DEVICE __host__ __device__
#else
#define NN_BK_HOST_DEVICE
#endif

/* The dropout mask, defined once for every backend: a splitmix64 hash of
 * (seed, step, index); element kept when its top 24 bits, as a fraction,
 * are >= rate. */
static inline NN_BK_HOST_DEVICE int
nn_dropout_keep (uint64_t seed, int64_t step, uint64_t index, float rate)
{
  uint64_t z = seed + 0x9E3779B97F4A7C15ull * ((uint64_t) step + 1)
               + 0xD1B54A32D192ED03ull * index;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (float) (z >> 40) * (1.0f / 16777216.0f) >= rate;
}

/* The CPU backend, built into the engine. */
const NnBackendOps *nn_backend_cpu_get (void);

/* The single symbol a backend module exports. */
typedef const NnBackendOps *(*NnBackendGetFunc) (void);
#define NN_BACKEND_CUDA_SYMBOL "nn_backend_cuda_get"

#ifdef __cplusplus
}
#endif
