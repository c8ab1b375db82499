/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-cuda-private.h: what the CUDA module's host files share.
 *
 * The context (all state of one open device lives here; besides its static
 * op table the module keeps only what is the process's anyway: the NVIDIA
 * libraries it loaded, nn-cuda-api.h, and the kernels' code,
 * nn-cuda-launch.h), error helpers, and the host side of each op (gpu/ops/,
 * launching the kernels of gpu/kernels/).
 */
#pragma once

#include "nn-backend-abi.h"
#include "nn-cuda-api.h"
#include "kernels/common.h"
#include "kernels/conv-direct-plan.h"
#include "kernels/epilogue.h"

#include <stddef.h>
#include <stdint.h>

#ifdef _WIN32
#define NN_CUDA_HIDDEN /* a DLL exports only what its .def file names */
#else
#define NN_CUDA_HIDDEN __attribute__ ((visibility ("hidden")))
#endif

/* Host staging for download_async into pageable memory. */
#define NN_CUDA_STAGING_SLOTS 64
#define NN_CUDA_STAGING_SLOT_BYTES 4096

#define NN_CUDA_CUBLAS_WORKSPACE (32u << 20)

typedef struct
{
  void *dst;          /* borrowed: the caller's host buffer */
  const void *staged; /* pinned copy of the device bytes */
  size_t bytes;
} NnCudaStagedCopy;

/* The device memory an op's kernels wrote, as the op lists it (`any`: it
 * did not, so any memory may have been written). A kernel may read, before
 * the kernel right before it has finished, what the op before its own did
 * not write (weights_early in kernels/launch.cuh). Only memory the ops'
 * arguments name is ever asked about, so a list leaves out the context's
 * own scratch (partials, dx_partials, counters, cuBLAS' workspaces). */
#define NN_CUDA_WRITES 12
typedef struct
{
  int any;
  int count;
  uintptr_t lo[NN_CUDA_WRITES], hi[NN_CUDA_WRITES];
} NnCudaWrites;

/* What an op runs on and with: a stream, the cuBLAS handle bound to it,
 * and the scratch its kernels share (ops on one stream never overlap, so
 * one set serves all of them). A branch (branch_begin) has a lane of its
 * own, so that it and the ops beside it never share one. */
typedef struct
{
  CUstream stream;
  cublasHandle_t cublas;
  void *cublas_workspace;    /* (NN_CUDA_CUBLAS_WORKSPACE bytes) device: capture never allocates */
  float *partials;           /* (NN_CUDA_PARTIALS) device */
  float *dx_partials;        /* (NN_CUDA_DX_PARTIALS) device */
  unsigned int *counters;    /* (NN_CUDA_COUNTERS) device, zero between ops */
} NnCudaLane;

/* Spans of the stream a context times (timer_begin .. timer_end), read
 * back after a synchronize: as many as the steps between two reads of the
 * loss sums (at most 200 plain steps, fewer replayed graphs). */
#define NN_CUDA_TIMER_SPANS 256

typedef struct
{
  CUevent begin, end;           /* owned: marks on the stream */
  int32_t steps;             /* training steps between them */
} NnCudaSpan;

typedef struct
{
  int device;
  CUdevice cu_device;
  CUcontext cu_context;      /* the device's primary context, retained for the
                              * process: the one cuBLAS and cuDNN use too */
  int tf32;
  int multiprocessors;
  int compute_major;    /* 8 and up: TF32 tensor cores (the mma kernels) */
  int dependent_launch; /* our kernels use programmatic dependent launch (kernels/launch.cuh) */
  int dense_clusters;   /* the cluster dense forward can run here (kernels/dense-forward.cu) */
  int loss_clusters;    /* dense_loss_dx's cluster kernel can run here (ops/dense.cc) */
  NnCudaLane lane;           /* owned: what ops run on now: the context's own lane, or
                              * while a branch is open the branch's (branch_begin swaps the
                              * two, branch_end back) */
  NnCudaLane branch;         /* owned: the other lane (opened by the first branch_begin) */
  CUevent branch_fork, branch_done; /* owned: the branch waits for the stream, and back */
  int in_branch;             /* between branch_begin and branch_end */
  NnCudaWrites main_writing; /* while a branch is open: what the op before it wrote */
  cudnnHandle_t cudnn;       /* owned, bound to lane.stream */
  CUstream side_stream;     /* owned: a second stream within an op, joined before it returns */
  cublasHandle_t cublas_side; /* owned, bound to side_stream, with its own workspace */
  void *cublas_side_workspace;
  CUevent fork, join;        /* owned: side_stream waits for the stream, and back */
  unsigned char *staging;    /* (NN_CUDA_STAGING_SLOTS, NN_CUDA_STAGING_SLOT_BYTES) pinned host */
  NnCudaStagedCopy staged[NN_CUDA_STAGING_SLOTS];
  int staging_next;
  int staging_pending;       /* async downloads since the last synchronize */
  CUevent uploaded;          /* owned: recorded after each upload_async; upload_wait waits on it */
  NnCudaWrites wrote;         /* by the op before the current one */
  NnCudaWrites writing;       /* by the current one */
  NnCudaSpan *spans;         /* (NN_CUDA_TIMER_SPANS) owned: a ring */
  int span_first;            /* the oldest span not read back */
  int span_count;            /* spans begun and not read back, the open one included */
  int span_open;             /* the newest span has begun and not ended */
  int capturing;
  int lost;                  /* a sticky error happened: every op fails fast */
  CUresult launch_error;     /* the first failed launch since the last check, */
  char launch_kernel[NN_CUDA_KERNEL_NAME_MAX]; /* and its kernel's name */
  char error[1024];
} NnCudaContext;

#ifdef __cplusplus
extern "C" {
#endif

/* Record a failure of `what` and return its status. A sticky (context
 * corrupting) error marks the context lost; out of memory becomes
 * NN_BACKEND_OUT_OF_MEMORY. */
NN_CUDA_HIDDEN int _nn_cuda_fail (NnCudaContext *ctx, CUresult err, const char *what);
NN_CUDA_HIDDEN int _nn_cuda_fail_cublas (NnCudaContext *ctx, cublasStatus_t st, const char *what);
NN_CUDA_HIDDEN int _nn_cuda_fail_cudnn (NnCudaContext *ctx, cudnnStatus_t st, const char *what);
NN_CUDA_HIDDEN int _nn_cuda_fail_msg (NnCudaContext *ctx, int status, const char *format, ...)
  __attribute__ ((format (printf, 3, 4)));

/* The current op wrote only these `count` ranges (pointer, bytes; NULL
 * pointers are skipped). */
NN_CUDA_HIDDEN void _nn_cuda_writes_only (NnCudaContext *ctx, int count, const void *const *at,
                                          const size_t *bytes);
/* Whether the op before the current one left [p, p + bytes) alone. */
NN_CUDA_HIDDEN int _nn_cuda_untouched (const NnCudaContext *ctx, const void *p, size_t bytes);

/* 0 when every launch since the last check succeeded, else the first
 * failure's status, the kernel named (nn-cuda-launch.cc). */
NN_CUDA_HIDDEN int _nn_cuda_check_launch (NnCudaContext *ctx, const char *what);

/* Fails fast on a lost context and makes the context's CUDA context
 * current on the calling thread (the engine may open a context on one
 * thread and train on another). */
NN_CUDA_HIDDEN int _nn_cuda_enter (NnCudaContext *ctx);

/* Inverted dropout's scale for the kept elements: 1 / (1 - rate), 1 when
 * nothing is dropped. */
static inline float
_nn_cuda_dropout_scale (float rate)
{
  return rate > 0.0f ? 1.0f / (1.0f - rate) : 1.0f;
}

/* Blocks for a grid-stride loop over `count` items of `threads` each. */
NN_CUDA_HIDDEN unsigned int _nn_cuda_blocks (const NnCudaContext *ctx, size_t count, unsigned int threads);

/* ---- the fused steps (nn-cuda-steps.cc) and the branches they run on ---- */

NN_CUDA_HIDDEN int _nn_cuda_step_supported (void *ctx, const NnBackendStep *step);
NN_CUDA_HIDDEN int _nn_cuda_step_run (void *ctx, const NnBackendStep *step);
/* The ops issued between _nn_cuda_branch_begin and _nn_cuda_branch_end run
 * on the branch's lane, after every op issued before, beside those issued
 * after, until _nn_cuda_branch_join (NN_BK_STEP_BRANCH; nn-cuda-backend.cc). */
NN_CUDA_HIDDEN int _nn_cuda_branch_begin (NnCudaContext *ctx);
NN_CUDA_HIDDEN int _nn_cuda_branch_end (NnCudaContext *ctx);
NN_CUDA_HIDDEN int _nn_cuda_branch_join (NnCudaContext *ctx);

/* ---- ops implemented outside nn-cuda-backend.cc, with the ABI's signatures ---- */

NN_CUDA_HIDDEN int _nn_cuda_gemm (void *ctx, int trans_a, int trans_b, int m, int n, int k,
                                  float alpha, const float *a, int lda, const float *b, int ldb,
                                  float beta, float *c, int ldc);

NN_CUDA_HIDDEN int _nn_cuda_conv2d_plan_new (void *ctx, const NnConvShape *shape, void **plan,
                                             size_t *workspace_bytes);
NN_CUDA_HIDDEN void _nn_cuda_conv2d_plan_free (void *ctx, void *plan);
NN_CUDA_HIDDEN int _nn_cuda_conv2d_forward (void *ctx, void *plan, const float *x, const float *w,
                                            float *y, void *workspace);
NN_CUDA_HIDDEN int _nn_cuda_conv2d_forward_bias_act (void *ctx, void *plan, const float *x,
                                                     const float *w, const float *bias, int act,
                                                     float *y, void *workspace);
NN_CUDA_HIDDEN int _nn_cuda_conv2d_backward (void *ctx, void *plan, const float *x, const float *w,
                                             const float *dy, float *dx, float *dw, void *workspace);
NN_CUDA_HIDDEN int _nn_cuda_conv2d_backward_bias_act (void *ctx, void *plan, const float *x,
                                                      const float *w, const float *y, float *dy,
                                                      int act, float *dx, float *dw, float *dbias,
                                                      void *workspace);
/* The shape a convolution's plan was made for. */
NN_CUDA_HIDDEN const NnConvShape *_nn_cuda_conv2d_shape (const void *plan);
/* A convolution with the max pooling above it (nn-cuda-conv.cc). */
NN_CUDA_HIDDEN int _nn_cuda_conv2d_pool_fits (void *ctx, void *plan, const NnPoolShape *pool);
NN_CUDA_HIDDEN int _nn_cuda_conv2d_forward_pool (void *ctx, void *plan, const float *x,
                                                 const float *w, const float *bias, int act,
                                                 const NnPoolShape *pool, float *y, float *drop_y,
                                                 float rate, uint64_t seed, const int64_t *step,
                                                 uint8_t *argmax, void *workspace);
/* A convolution's backward with the weight gradient of the one below
 * (nn-cuda-conv.cc). */
NN_CUDA_HIDDEN int _nn_cuda_conv2d_below_fits (void *ctx, void *plan, void *below_plan);
NN_CUDA_HIDDEN int _nn_cuda_conv2d_backward_below (void *ctx, void *plan, const float *x,
                                                   const float *w, const float *dy, float *dw,
                                                   void *below_plan, const float *below_x,
                                                   int below_act, float *below_dw,
                                                   float *below_dbias, void *workspace);

NN_CUDA_HIDDEN int _nn_cuda_fill (void *ctx, float *dst, float value, size_t count);

/* Direct convolution for few taps (kernels/conv-direct.cu): whether a shape
 * qualifies, the plan of its weight gradient, and its forward and weight
 * gradient on the stream. */
#define NN_CUDA_DIRECT_TAPS 32
typedef DirectPlan NnCudaDirectPlan; /* kernels/conv-direct-plan.h */
NN_CUDA_HIDDEN int _nn_cuda_conv_direct_ok (const NnConvShape *s);
NN_CUDA_HIDDEN void _nn_cuda_conv_direct_plan (const NnCudaContext *ctx, const NnConvShape *s,
                                               NnCudaDirectPlan *plan);
NN_CUDA_HIDDEN int _nn_cuda_conv_direct_forward (NnCudaContext *ctx, const NnConvShape *s,
                                                 const float *x, const float *w,
                                                 const float *bias, int act, float *y);
/* dw from dy, or with y not NULL from dz = act' (y) * dy, also writing
 * dbias (the sums of dz) when that is not NULL; the partial sums in
 * workspace (plan->partial_bytes). */
NN_CUDA_HIDDEN int _nn_cuda_conv_direct_wgrad (NnCudaContext *ctx, const NnConvShape *s,
                                               const NnCudaDirectPlan *plan, const float *x,
                                               const float *dy, const float *y, int act, float *dw,
                                               float *dbias, void *workspace);
/* dw (k, taps) and, when dbias is not NULL, dbias (k): the sums over slices
 * of partials (k, slices, width) as a weight-gradient kernel leaves them,
 * width = taps, or taps + 1 with the bias sums last (kernels/conv-direct.cu). */
NN_CUDA_HIDDEN int _nn_cuda_conv_wgrad_sums (NnCudaContext *ctx, const float *partials, int k,
                                             int taps, int width, int slices, float *dw,
                                             float *dbias, const char *what);

/* Stride-1 convolution as implicit GEMMs on TF32 tensor cores
 * (kernels/conv-igemm.cu): whether a context and shape can use it (TF32
 * allowed, sm_80+), the plan, and the three passes on the stream. The weight
 * gradient needs `workspace_bytes` from the plan for its split partial sums. */
typedef struct
{
  int splits;          /* blocks sharing the weight gradient's pixel reduction */
  int items_per_split; /* (image, pixel tile) items each of them sums */
  int cluster;         /* splits adding their partials in a thread-block cluster first, or 1 */
  size_t partials_offset; /* workspace: packed weights, then the partials */
  int below;              /* the data gradient can form the weight gradient of a layer below */
} NnCudaIgemmPlan;
NN_CUDA_HIDDEN int _nn_cuda_conv_igemm_ok (NnCudaContext *ctx, const NnConvShape *s);
NN_CUDA_HIDDEN int _nn_cuda_conv_igemm_plan (NnCudaContext *ctx, const NnConvShape *s,
                                             NnCudaIgemmPlan *plan, size_t *workspace_bytes);
NN_CUDA_HIDDEN int _nn_cuda_conv_igemm_forward (NnCudaContext *ctx, const NnConvShape *s,
                                                const NnCudaIgemmPlan *plan, const float *x,
                                                const float *w, const float *bias, int act,
                                                float *y, void *workspace);
/* The forward with the max pooling above it (conv2d_forward_pool): whether
 * the kernel can pool this shape's tiles, and the pass. */
NN_CUDA_HIDDEN int _nn_cuda_conv_igemm_pool_ok (const NnConvShape *s, const NnPoolShape *pool);
NN_CUDA_HIDDEN int _nn_cuda_conv_igemm_forward_pool (NnCudaContext *ctx, const NnConvShape *s,
                                                     const float *x, const float *w,
                                                     const float *bias, int act,
                                                     const NnPoolShape *pool, float *y,
                                                     float *drop_y, float rate, uint64_t seed,
                                                     const int64_t *step, uint8_t *argmax,
                                                     void *workspace);
NN_CUDA_HIDDEN int _nn_cuda_conv_igemm_data (NnCudaContext *ctx, const NnConvShape *s,
                                             const NnCudaIgemmPlan *plan, const float *w,
                                             const float *dy, float *dx, void *workspace);
NN_CUDA_HIDDEN int _nn_cuda_conv_igemm_weights (NnCudaContext *ctx, const NnConvShape *s,
                                                const NnCudaIgemmPlan *plan, const float *x,
                                                const float *dy, float *dw, void *workspace);
/* The data gradient of s, as the output gradient of the convolution below
 * (conv2d_backward_below): that layer's weight and bias gradients from it,
 * with below_y its output (s's input) and below_act its activation; the
 * gradient itself is never written. */
NN_CUDA_HIDDEN int _nn_cuda_conv_igemm_below_ok (const NnConvShape *s, const NnCudaIgemmPlan *plan,
                                                 const NnConvShape *below);
NN_CUDA_HIDDEN int _nn_cuda_conv_igemm_data_below (NnCudaContext *ctx, const NnConvShape *s,
                                                   const NnCudaIgemmPlan *plan, const float *w,
                                                   const float *dy, const NnConvShape *below,
                                                   const float *below_x, const float *below_y,
                                                   int below_act, float *below_dw,
                                                   float *below_dbias, void *workspace);

NN_CUDA_HIDDEN int _nn_cuda_bias_act_forward (void *ctx, int act, float *y, const float *bias,
                                              int n, int channels, int spatial);
NN_CUDA_HIDDEN int _nn_cuda_bias_act_backward (void *ctx, int act, const float *y, float *dy,
                                               float *dbias, int n, int channels, int spatial);

/* Bias gradients over images (kernels/bias-act.cu): blocks (split, channel)
 * leave one partial sum each in ctx->partials[channel * splits + split];
 * how many splits fill the GPU (0: too many channels), and the sums of the
 * partials into dbias. */
NN_CUDA_HIDDEN int _nn_cuda_channel_splits (const NnCudaContext *ctx, int n, int channels);
NN_CUDA_HIDDEN int _nn_cuda_sum_partials (NnCudaContext *ctx, float *dbias, int channels,
                                          int splits, const char *what);

NN_CUDA_HIDDEN int _nn_cuda_dropout_forward (void *ctx, float *y, const float *x, size_t count,
                                             float rate, uint64_t seed, const int64_t *step);
NN_CUDA_HIDDEN int _nn_cuda_dropout_backward (void *ctx, float *dx, const float *dy, size_t count,
                                              float rate, uint64_t seed, const int64_t *step);

NN_CUDA_HIDDEN int _nn_cuda_pool2d_forward (void *ctx, int mode, const NnPoolShape *shape,
                                            const float *x, float *y);
NN_CUDA_HIDDEN int _nn_cuda_pool2d_backward (void *ctx, int mode, const NnPoolShape *shape,
                                             const float *x, const float *y, const float *dy,
                                             float *dx);

NN_CUDA_HIDDEN int _nn_cuda_pool2d_forward_dropout (void *ctx, int mode, const NnPoolShape *shape,
                                                    const float *x, float *y, float *drop_y,
                                                    float rate, uint64_t seed, const int64_t *step);
NN_CUDA_HIDDEN int _nn_cuda_pool2d_backward_act (void *ctx, int mode, const NnPoolShape *shape,
                                                 const float *x, const float *y, float *dy,
                                                 int act, float *dx, float *dbias, float rate,
                                                 uint64_t seed, const int64_t *step);
/* Max pooling that records its maxima, and whether it takes a shape: max
 * windows that tile the input exactly, of at most 256 cells. */
NN_CUDA_HIDDEN int _nn_cuda_pool2d_maxima_ok (const NnPoolShape *shape);
NN_CUDA_HIDDEN int _nn_cuda_pool2d_forward_argmax (void *ctx, const NnPoolShape *shape,
                                                   const float *x, float *y, float *drop_y,
                                                   float rate, uint64_t seed, const int64_t *step,
                                                   uint8_t *argmax);
NN_CUDA_HIDDEN int _nn_cuda_pool2d_backward_argmax (void *ctx, const NnPoolShape *shape,
                                                    const uint8_t *argmax, const float *y,
                                                    float *dy, int act, float *dx, float *dbias,
                                                    float rate, uint64_t seed,
                                                    const int64_t *step);

NN_CUDA_HIDDEN int _nn_cuda_loss (void *ctx, int kind, const float *pred, const int32_t *labels,
                                  const float *targets, float *grad, float *stats, int n,
                                  int classes);

NN_CUDA_HIDDEN int _nn_cuda_gather_batch (void *ctx, const uint8_t *images, const uint8_t *labels,
                                          const int32_t *indices, const int64_t *step,
                                          int steps_per_epoch, int batch_size, int n,
                                          int sample_size, float scale, float *x,
                                          int32_t *labels_out, float *targets, int classes);

NN_CUDA_HIDDEN int _nn_cuda_optimizer_update (void *ctx, const NnBackendOptimizer *opt,
                                              float *params, const float *grads, float *state,
                                              size_t count, size_t state_stride, int64_t *step);

/* The fused dense ops (ops/dense.cc), and their dz step (kernels/bias-act.cu):
 * dy (n, channels) = act' (y) * (dropout mask of dy when rate > 0) in place,
 * dbias = its column sums when not NULL. */
NN_CUDA_HIDDEN int _nn_cuda_dense_forward (void *ctx, int act, int n, int in, int out,
                                           const float *x, const float *w, const float *bias,
                                           float *y, float *drop_y, float rate, uint64_t seed,
                                           const int64_t *step);
NN_CUDA_HIDDEN int _nn_cuda_dense_backward (void *ctx, int act, int n, int in, int out,
                                            const float *x, const float *w, const float *y,
                                            float *dy, float *dw, float *dbias, float *dx,
                                            float rate, uint64_t seed, const int64_t *step);
NN_CUDA_HIDDEN int _nn_cuda_dense_dz (NnCudaContext *ctx, int act, const float *y, float *dy,
                                      float *dbias, int n, int channels, float rate,
                                      uint64_t seed, const int64_t *step);
/* A dense layer's backward with the optimizer's update, and whether it
 * pays for a layer of this shape at batches of n rows
 * (ops/dense-update.cc). */
NN_CUDA_HIDDEN int _nn_cuda_dense_backward_update_pays (void *ctx, int n, int in, int out);
NN_CUDA_HIDDEN int _nn_cuda_dense_backward_update (void *ctx, int act, int n, int in, int out,
                                                   const float *x, float *w, float *bias,
                                                   const float *y, float *dy, float *dx,
                                                   const NnBackendBelow *below, float rate,
                                                   uint64_t seed, int64_t *step,
                                                   const NnBackendOptimizer *opt, float *w_state,
                                                   float *bias_state, size_t state_stride,
                                                   int store_step);
/* Whether `below` (NULL: none) is a layer below whose dz those ops and
 * dense_loss_dx can form: an activation they know, a dropout rate in
 * [0, 1) with the step counter when over 0, and y where the activation's
 * derivative needs it. */
NN_CUDA_HIDDEN int _nn_cuda_below_ok (const NnBackendBelow *below, const int64_t *step);
/* dx (n, in) = dz (n, out) @ w^T on cuBLAS, then the dz of the layer
 * below (when not NULL) in place of it. */
NN_CUDA_HIDDEN int _nn_cuda_dx_below (NnCudaContext *ctx, int n, int in, int out, const float *dz,
                                      const float *w, float *dx, const NnBackendBelow *below,
                                      const int64_t *step);
/* The fused dense forward in one kernel on TF32 tensor cores
 * (dense-forward.cu): whether it takes this product, and its launch. */
NN_CUDA_HIDDEN int _nn_cuda_dense_cluster_fits (const NnCudaContext *ctx, int n, int in, int out,
                                                const float *x, const float *w);
NN_CUDA_HIDDEN int _nn_cuda_dense_forward_cluster (NnCudaContext *ctx, int n, int in, int out,
                                                   const float *x, const float *w, float *y,
                                                   const Epilogue &e);

/* Whether the cluster dense forward can run on this device (kernels/
 * dense-forward.cu; its shared memory allowed and clusters fit): once,
 * when the context opens. */
NN_CUDA_HIDDEN int _nn_cuda_dense_cluster_setup (NnCudaContext *ctx);
/* Whether dense_loss_dx's cluster kernel can run here (ops/dense.cc): once,
 * when the context opens. */
NN_CUDA_HIDDEN int _nn_cuda_loss_cluster_setup (NnCudaContext *ctx);
/* The output layer with the loss (ops/dense.cc), and with its input
 * gradient. */
NN_CUDA_HIDDEN int _nn_cuda_dense_loss (void *ctx, int act, int n, int in, int out,
                                        const float *x, const float *w, const float *bias,
                                        float *y, int kind, const int32_t *labels,
                                        const float *targets, float *grad, float *stats);
NN_CUDA_HIDDEN int _nn_cuda_dense_loss_dx (void *ctx, int act, int n, int in, int out,
                                           const float *x, const float *w, const float *bias,
                                           float *y, int kind, const int32_t *labels,
                                           const float *targets, float *grad, float *stats,
                                           float *dx, const NnBackendBelow *below,
                                           const int64_t *step);
/* The fused dense forward on a given route (NN_CUDA_DENSE_AUTO: chosen
 * from the shape), for gpu/dev benchmarks. */
enum
{
  NN_CUDA_DENSE_AUTO = 0,
  NN_CUDA_DENSE_SMALL_N = 1, /* out <= 16, in >= 32 */
  NN_CUDA_DENSE_CUBLAS = 3,
  NN_CUDA_DENSE_CLUSTER = 4, /* TF32 on sm_90, in and out multiples of 4 */
};
NN_CUDA_HIDDEN int _nn_cuda_dense_forward_route (NnCudaContext *ctx, int route, int act, int n,
                                                 int in, int out, const float *x, const float *w,
                                                 const float *bias, float *y, float *drop_y,
                                                 float rate, uint64_t seed, const int64_t *step);

#ifdef __cplusplus
}
#endif
