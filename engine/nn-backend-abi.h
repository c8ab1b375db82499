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
 * NULL, a slot set without one it needs), naming the slot: the engine
 * never calls a NULL slot. */
#define NN_BACKEND_ABI_VERSION 12

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
  char runtime[64];  /* CUDA runtime "13.0" */
  char cublas[64];   /* "13.0.2" */
  char cudnn[64];    /* "9.14.0" */
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

/* The dense layer below another, whose dz dense_backward_update may form
 * in place of the input gradient: its activation (not softmax), the
 * dropout between the two (rate 0: none) and its output y = act (z), before
 * that dropout. */
typedef struct
{
  int32_t act;
  float rate;
  uint64_t seed;
  const float *y;
} NnBackendBelow;

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
   * (dense_backward_update) share one state; the engine fills it before the
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

  /* --- optional: a dense layer's ops fused (both NULL or neither: the
   *     engine then runs gemm, bias_act_* and dropout_* one by one, and these
   *     give the same results up to float summation order). Rows are
   *     contiguous. --- */

  /* y (n, out) = act (x (n, in) @ w (in, out) + bias); bias may be NULL; act
   * is not softmax. When rate > 0 also drop_y (n, out) = dropout_forward of y
   * with (rate, seed, *step); drop_y is not read and may be NULL otherwise. */
  int (*dense_forward) (void *ctx, int act, int n, int in, int out, const float *x,
                        const float *w, const float *bias, float *y, float *drop_y, float rate,
                        uint64_t seed, const int64_t *step);
  /* dy (n, out) is the gradient of drop_y when rate > 0 (of y otherwise); the
   * op may overwrite it. With dz = act' (y) * (dropout_backward of dy when
   * rate > 0): dw (in, out) = x^T @ dz; dbias (out) = column sums of dz when
   * not NULL; dx (n, in) = dz @ w^T when not NULL; all overwritten. */
  int (*dense_backward) (void *ctx, int act, int n, int in, int out, const float *x,
                         const float *w, const float *y, float *dy, float *dw, float *dbias,
                         float *dx, float rate, uint64_t seed, const int64_t *step);

  /* --- optional: a convolution with its bias and activation (may be NULL:
   *     the engine then runs conv2d_forward and bias_act_forward). --- */

  /* y = act (conv (x, w) + bias[channel]); bias may be NULL; act is not softmax. */
  int (*conv2d_forward_bias_act) (void *ctx, void *plan, const float *x, const float *w,
                                  const float *bias, int act, float *y, void *workspace);

  /* --- optional: the output layer with the loss (may be NULL, and
   *     is only with dense_forward: the engine then runs dense_forward and
   *     loss). --- */

  /* y (n, out) = act (x (n, in) @ w (in, out) + bias) as dense_forward
   * without dropout, then the loss op on it: loss (kind, y, labels, targets,
   * grad, stats, n, out). */
  int (*dense_loss) (void *ctx, int act, int n, int in, int out, const float *x, const float *w,
                     const float *bias, float *y, int kind, const int32_t *labels,
                     const float *targets, float *grad, float *stats);

  /* --- optional: pooling between a convolution's activation and a dropout
   *     (both NULL or neither: the engine then runs pool2d_forward,
   *     dropout_forward, dropout_backward, pool2d_backward and the
   *     convolution's bias_act_backward). --- */

  /* y = pool2d_forward of x; when rate > 0 also drop_y = dropout_forward of
   * y with (rate, seed, *step) (drop_y is not written otherwise). */
  int (*pool2d_forward_dropout) (void *ctx, int mode, const NnPoolShape *shape, const float *x,
                                 float *y, float *drop_y, float rate, uint64_t seed,
                                 const int64_t *step);
  /* dx = act' (x) * (pool2d_backward of g), where x, the pooling's input, is
   * the output of an activation act (not softmax) and g is dy, or when
   * rate > 0 dropout_backward of dy (the gradient of drop_y) with (rate,
   * seed, *step); dbias (c) = the sums of dx over (n, h, w) when not NULL.
   * The op may overwrite dy. */
  int (*pool2d_backward_act) (void *ctx, int mode, const NnPoolShape *shape, const float *x,
                              const float *y, float *dy, int act, float *dx, float *dbias,
                              float rate, uint64_t seed, const int64_t *step);

  /* --- optional: a convolution's backward with its activation's (may
   *     be NULL: the engine then runs bias_act_backward and
   *     conv2d_backward). --- */

  /* With dz = act' (y) * dy, where y is the convolution's output after its
   * bias and activation act (not softmax): dbias (k) = the sums of dz over
   * (n, h, w) when not NULL, then conv2d_backward of dz: dw, and dx when
   * not NULL. The op may overwrite dy. */
  int (*conv2d_backward_bias_act) (void *ctx, void *plan, const float *x, const float *w,
                                   const float *y, float *dy, int act, float *dx, float *dw,
                                   float *dbias, void *workspace);

  /* --- optional: a dense layer's backward with the optimizer's update of
   *     its weights and bias (both NULL or neither, and only with dense_forward:
   *     the engine then runs dense_backward and updates every parameter
   *     with optimizer_update). --- */

  /* Nonzero when dense_backward_update, at batches of n rows, is faster for
   * a layer of this shape than dense_backward and the layer's share of
   * optimizer_update: the engine uses it only for such layers. */
  int (*dense_backward_update_pays) (void *ctx, int n, int in, int out);

  /* dense_backward's dx (from w as it was), then instead of writing the
   * weight and bias gradients, optimizer_update's rule (opt, t = *step + 1)
   * applied with them to w and to bias (when not NULL). Slot 0 of their
   * optimizer state is at w_state and bias_state, slot j is j *
   * state_stride floats further. When store_step is nonzero the op then
   * stores t into *step, as optimizer_update does: the engine sets it only
   * on the step's last op. When below is not NULL, dx holds that layer's dz
   * instead: act' (below->y) * the input gradient, after dropout_backward
   * with (below->rate, below->seed, *step) when that rate is > 0. */
  int (*dense_backward_update) (void *ctx, int act, int n, int in, int out, const float *x,
                                float *w, float *bias, const float *y, float *dy, float *dx,
                                const NnBackendBelow *below, float rate, uint64_t seed,
                                int64_t *step, const NnBackendOptimizer *opt, float *w_state,
                                float *bias_state, size_t state_stride, int store_step);

  /* --- optional: the output layer's input gradient with its loss, and a
   *     branch beside the ops that follow (all four NULL or none, and only with dense_loss:
   *     the engine then forms that gradient in the layer's backward and
   *     runs every op in order). --- */

  /* dense_loss with act linear (logits, whose loss gradient is dz) and
   * grad not NULL, then dx (n, in) = grad @ w^T, from w as dense_loss read
   * it: the layer's input gradient, or when below is not NULL the layer
   * below's dz from it, as dense_backward_update forms it (dropout with
   * (below->rate, below->seed, *step)). */
  int (*dense_loss_dx) (void *ctx, int act, int n, int in, int out, const float *x,
                        const float *w, const float *bias, float *y, int kind,
                        const int32_t *labels, const float *targets, float *grad, float *stats,
                        float *dx, const NnBackendBelow *below, const int64_t *step);

  /* The ops issued between branch_begin and branch_end form a branch: it
   * starts after every op issued before it and may run beside the ops
   * issued after branch_end, until branch_join, after which every op waits
   * for it. The engine puts on a branch only ops whose memory the ops
   * beside them neither read nor write, and joins before the op that
   * stores the step counter, which the branch may read. One branch at a
   * time. */
  int (*branch_begin) (void *ctx);
  int (*branch_end) (void *ctx);
  int (*branch_join) (void *ctx);

  /* --- optional: max pooling that records where each window's maximum
   *     is (pool2d_forward_argmax and pool2d_backward_argmax both
   *     NULL or neither, conv2d_pool_fits and conv2d_forward_pool too, and
   *     those two only with the first two). For max pooling below a
   *     convolution's activation whose windows tile the input exactly
   *     (stride = window, no padding, out_h * win_h = h, out_w * win_w = w)
   *     and hold at most 256 cells. argmax (n, c, out_h, out_w) bytes: the
   *     row-major position, within its window, of the window's first
   *     maximum. The backward then needs neither the pooling's input nor
   *     to search the windows again; the convolution's output need not
   *     even be written. --- */

  /* pool2d_forward_dropout with mode max, also writing argmax. */
  int (*pool2d_forward_argmax) (void *ctx, const NnPoolShape *shape, const float *x, float *y,
                                float *drop_y, float rate, uint64_t seed, const int64_t *step,
                                uint8_t *argmax);
  /* pool2d_backward_act with mode max, from argmax as the forward wrote it
   * and y, the pooling's output, in place of x: dx = act' (y) * g at each
   * window's maximum (where x equals y) and 0 at every other cell. */
  int (*pool2d_backward_argmax) (void *ctx, const NnPoolShape *shape, const uint8_t *argmax,
                                 const float *y, float *dy, int act, float *dx, float *dbias,
                                 float rate, uint64_t seed, const int64_t *step);
  /* Nonzero when conv2d_forward_pool can run the convolution of `plan`
   * (made for pool->n rows) with this pooling above it. */
  int (*conv2d_pool_fits) (void *ctx, void *plan, const NnPoolShape *pool);
  /* conv2d_forward_bias_act, then pool2d_forward_argmax of its output
   * (pool, y, drop_y, rate, seed, step, argmax), without writing that
   * output anywhere. */
  int (*conv2d_forward_pool) (void *ctx, void *plan, const float *x, const float *w,
                              const float *bias, int act, const NnPoolShape *pool, float *y,
                              float *drop_y, float rate, uint64_t seed, const int64_t *step,
                              uint8_t *argmax, void *workspace);

  /* --- optional: a convolution's backward with the weight gradient of the
   *     convolution below it (both NULL or neither). For a
   *     convolution whose input is the output of another, after that one's
   *     activation, where no one needs the lower one's input gradient (it
   *     is the first layer that learns): the lower layer's output gradient,
   *     which the upper one's backward would write as its dx, is used where
   *     it is formed and never written. --- */

  /* Nonzero when conv2d_backward_below can run the backward of `plan` with
   * the convolution of below_plan under it (below_plan's output is plan's
   * input), in the workspace `plan` asked for. */
  int (*conv2d_below_fits) (void *ctx, void *plan, void *below_plan);
  /* conv2d_backward (plan, x, w, dy, dw) with its dx not written, then that
   * dx's conv2d_backward_bias_act in the convolution below (below_plan,
   * below_x, y = x, below_act, below_dw, below_dbias), with no dx there
   * either. dy is the upper convolution's dz, as for conv2d_backward. */
  int (*conv2d_backward_below) (void *ctx, void *plan, const float *x, const float *w,
                                const float *dy, float *dw, void *below_plan, const float *below_x,
                                int below_act, float *below_dw, float *below_dbias,
                                void *workspace);
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
