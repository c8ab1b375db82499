/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-cuda-backend.cc: the CUDA backend module's op table, devices, contexts,
 * memory, errors, whole-step capture (CUDA graphs) and branches, on the
 * CUDA driver API (nn-cuda-api.h). The math lives in ops/ (launching the
 * kernels of kernels/) and nn-cuda-conv.cc, the fused steps in
 * nn-cuda-steps.cc.
 */

#include "nn-cuda-private.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- errors */

/* Errors after which the CUDA context cannot be used again (the CUDA
 * documentation calls them sticky): the process must restart to use the GPU. */
static int
is_sticky (CUresult err)
{
  switch (err)
    {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
    case CUDA_ERROR_DEINITIALIZED:
    case CUDA_ERROR_UNKNOWN:
    case CUDA_ERROR_EXTERNAL_DEVICE:
      return 1;
    default:
      return 0;
    }
}

int
_nn_cuda_fail_msg (NnCudaContext *ctx, int status, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  vsnprintf (ctx->error, sizeof ctx->error, format, args);
  va_end (args);
  if (status == NN_BACKEND_DEVICE_LOST)
    ctx->lost = 1;
  return status;
}

int
_nn_cuda_fail (NnCudaContext *ctx, CUresult err, const char *what)
{
  if (err == CUDA_SUCCESS)
    return NN_BACKEND_OK;
  if (ctx->lost)
    return NN_BACKEND_DEVICE_LOST;
  if (err == CUDA_ERROR_OUT_OF_MEMORY)
    {
      size_t free_bytes = 0, total_bytes = 0;
      nn_cu::cuMemGetInfo (&free_bytes, &total_bytes);
      return _nn_cuda_fail_msg (ctx, NN_BACKEND_OUT_OF_MEMORY,
                                "%s: out of device memory (%.1f MiB free of %.1f MiB)", what,
                                free_bytes / 1048576.0, total_bytes / 1048576.0);
    }
  if (is_sticky (err))
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_DEVICE_LOST,
                              "%s: %s (%s); the GPU is unusable until the program restarts", what,
                              _nn_cu_error_text (err), _nn_cu_error_name (err));
  return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "%s: %s (%s)", what, _nn_cu_error_text (err),
                            _nn_cu_error_name (err));
}

/* A library status does not say whether the context survived: a query of
 * the stream does (a sticky error is every call's answer from then on). */
static int
fail_after_library (NnCudaContext *ctx, const char *what, const char *detail)
{
  CUresult err = nn_cu::cuStreamQuery (ctx->lane.stream);
  if (is_sticky (err))
    return _nn_cuda_fail (ctx, err, what);
  return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "%s: %s", what, detail);
}

int
_nn_cuda_fail_cublas (NnCudaContext *ctx, cublasStatus_t st, const char *what)
{
  char detail[256];
  if (st == CUBLAS_STATUS_SUCCESS)
    return NN_BACKEND_OK;
  if (ctx->lost)
    return NN_BACKEND_DEVICE_LOST;
  if (st == CUBLAS_STATUS_ALLOC_FAILED)
    return _nn_cuda_fail (ctx, CUDA_ERROR_OUT_OF_MEMORY, what);
  snprintf (detail, sizeof detail, "cuBLAS: %s (%s)", nn_cu::cublasGetStatusString (st),
            nn_cu::cublasGetStatusName (st));
  return fail_after_library (ctx, what, detail);
}

int
_nn_cuda_fail_cudnn (NnCudaContext *ctx, cudnnStatus_t st, const char *what)
{
  char detail[512];
  if (st == CUDNN_STATUS_SUCCESS)
    return NN_BACKEND_OK;
  if (ctx->lost)
    return NN_BACKEND_DEVICE_LOST;
  if (st == CUDNN_STATUS_ALLOC_FAILED)
    return _nn_cuda_fail (ctx, CUDA_ERROR_OUT_OF_MEMORY, what);
  if (st == CUDNN_STATUS_NOT_SUPPORTED)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_UNSUPPORTED, "%s: cuDNN: %s", what,
                              nn_cu::cudnnGetErrorString (st));
  snprintf (detail, sizeof detail, "cuDNN: %s", nn_cu::cudnnGetErrorString (st));
  return fail_after_library (ctx, what, detail);
}

/* The context's CUDA context made current on this thread, where it is
 * not already (a thread-local read when it is). */
static int
make_current (NnCudaContext *ctx)
{
  CUcontext current = NULL;
  if (nn_cu::cuCtxGetCurrent (&current) == CUDA_SUCCESS && current == ctx->cu_context)
    return NN_BACKEND_OK;
  return _nn_cuda_fail (ctx, nn_cu::cuCtxSetCurrent (ctx->cu_context), "cuCtxSetCurrent");
}

int
_nn_cuda_enter (NnCudaContext *ctx)
{
  /* a new op: what the last one wrote, and nothing listed yet for this one
   * (an op called from another op counts as one, which only makes the
   * record say "anything" sooner) */
  ctx->wrote = ctx->writing;
  ctx->writing.any = 1;
  ctx->writing.count = 0;
  if (ctx->lost)
    return NN_BACKEND_DEVICE_LOST;
  return make_current (ctx);
}

void
_nn_cuda_writes_only (NnCudaContext *ctx, int count, const void *const *at, const size_t *bytes)
{
  NnCudaWrites *w = &ctx->writing;
  w->any = 0;
  w->count = 0;
  for (int i = 0; i < count; i++)
    {
      if (at[i] == NULL || bytes[i] == 0)
        continue;
      if (w->count == NN_CUDA_WRITES)
        {
          w->any = 1;
          return;
        }
      w->lo[w->count] = (uintptr_t) at[i];
      w->hi[w->count] = (uintptr_t) at[i] + bytes[i];
      w->count++;
    }
}

int
_nn_cuda_untouched (const NnCudaContext *ctx, const void *p, size_t bytes)
{
  const NnCudaWrites *w = &ctx->wrote;
  uintptr_t lo = (uintptr_t) p, hi = lo + bytes;
  if (w->any)
    return 0;
  for (int i = 0; i < w->count; i++)
    if (lo < w->hi[i] && w->lo[i] < hi)
      return 0;
  return 1;
}

unsigned int
_nn_cuda_blocks (const NnCudaContext *ctx, size_t count, unsigned int threads)
{
  size_t blocks = (count + threads - 1) / threads;
  size_t cap = (size_t) (ctx->multiprocessors > 0 ? ctx->multiprocessors : 16) * 16;
  if (blocks > cap)
    blocks = cap;
  return blocks == 0 ? 1u : (unsigned int) blocks;
}

/* ---------------------------------------------------------------- devices */

/* The devices the driver lists, or 0 and why none is usable: the driver,
 * cuBLAS or cuDNN missing (nn-cuda-api.cc says which, and where it looked),
 * or no GPU. */
static int
cuda_device_count (char *reason, size_t reason_size)
{
  int count = 0;
  if (_nn_cu_load (reason, reason_size) != NN_CU_READY)
    return 0;
  CUresult err = nn_cu::cuDeviceGetCount (&count);
  if (err != CUDA_SUCCESS)
    {
      if (reason != NULL && reason_size > 0)
        snprintf (reason, reason_size, "CUDA cannot list its devices: %s (%s)",
                  _nn_cu_error_text (err), _nn_cu_error_name (err));
      return 0;
    }
  if (count == 0 && reason != NULL && reason_size > 0)
    snprintf (reason, reason_size, "no NVIDIA GPU found");
  return count;
}

static int
cuda_device_info (int index, NnBackendDeviceInfo *info)
{
  CUdevice device;
  size_t memory = 0;
  int driver = 0, major = 0, minor = 0, patch = 0;

  memset (info, 0, sizeof *info);
  if (_nn_cu_load (NULL, 0) != NN_CU_READY || nn_cu::cuDeviceGet (&device, index) != CUDA_SUCCESS
      || nn_cu::cuDeviceGetName (info->name, (int) sizeof info->name, device) != CUDA_SUCCESS
      || nn_cu::cuDeviceTotalMem (&memory, device) != CUDA_SUCCESS
      || nn_cu::cuDeviceGetAttribute (&info->compute_major,
                                      CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device)
           != CUDA_SUCCESS
      || nn_cu::cuDeviceGetAttribute (&info->compute_minor,
                                      CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device)
           != CUDA_SUCCESS
      || nn_cu::cuDeviceGetAttribute (&info->multiprocessors,
                                      CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device)
           != CUDA_SUCCESS)
    return NN_BACKEND_ERROR;
  info->memory_bytes = memory;

  nn_cu::cuDriverGetVersion (&driver);
  if (!_nn_cu_driver_version (info->driver, sizeof info->driver))
    snprintf (info->driver, sizeof info->driver, "CUDA %d.%d", driver / 1000, driver % 1000 / 10);
  /* no CUDA runtime: the CUDA version the module's kernels were built with */
  snprintf (info->runtime, sizeof info->runtime, "%d.%d", CUDA_VERSION / 1000,
            CUDA_VERSION % 1000 / 10);
  nn_cu::cublasGetProperty (MAJOR_VERSION, &major);
  nn_cu::cublasGetProperty (MINOR_VERSION, &minor);
  nn_cu::cublasGetProperty (PATCH_LEVEL, &patch);
  snprintf (info->cublas, sizeof info->cublas, "%d.%d.%d", major, minor, patch);
  size_t v = nn_cu::cudnnGetVersion (); /* cuDNN 9: major * 10000 + minor * 100 + patch */
  snprintf (info->cudnn, sizeof info->cudnn, "%zu.%zu.%zu", v / 10000, v % 10000 / 100, v % 100);
  snprintf (info->libraries, sizeof info->libraries, "%s", _nn_cu_libraries ());
  return NN_BACKEND_OK;
}

/* ---------------------------------------------------------------- context */

/* Device memory as the ops take it: a pointer, not a CUdeviceptr. */
static CUresult
dev_alloc (void **ptr, size_t bytes)
{
  CUdeviceptr p = 0;
  CUresult err = nn_cu::cuMemAlloc (&p, bytes);
  *ptr = err == CUDA_SUCCESS ? (void *) (uintptr_t) p : NULL;
  return err;
}

static void
dev_free (void *ptr)
{
  (void) nn_cu::cuMemFree ((CUdeviceptr) (uintptr_t) ptr);
}

/* A cuBLAS handle on `stream` with its own workspace (so capture never
 * allocates) and TF32 as the context allows it. */
static cublasStatus_t
cublas_open (cublasHandle_t *handle, CUstream stream, void *workspace, int tf32)
{
  cublasStatus_t st;
  if ((st = nn_cu::cublasCreate (handle)) != CUBLAS_STATUS_SUCCESS
      || (st = nn_cu::cublasSetStream (*handle, stream)) != CUBLAS_STATUS_SUCCESS
      || (st = nn_cu::cublasSetWorkspace (*handle, workspace, NN_CUDA_CUBLAS_WORKSPACE))
           != CUBLAS_STATUS_SUCCESS)
    return st;
  return nn_cu::cublasSetMathMode (*handle, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH);
}

/* A 1 x 1 product in each transpose case, on three floats of scratch:
 * cuBLAS sets up each case on its first use. */
static cublasStatus_t
cublas_warm_up (cublasHandle_t handle, float *scratch)
{
  const float one = 1.0f, zero = 0.0f;
  cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
  for (int t = 0; t < 4 && st == CUBLAS_STATUS_SUCCESS; t++)
    st = nn_cu::cublasSgemm (handle, t & 1 ? CUBLAS_OP_T : CUBLAS_OP_N, t & 2 ? CUBLAS_OP_T : CUBLAS_OP_N,
                      1, 1, 1, &one, scratch, 1, scratch + 1, 1, &zero, scratch + 2, 1);
  return st;
}

/* A lane's stream, cuBLAS handle and scratch (`whose`: "" or " of the
 * branch", for messages). */
static int
lane_open (NnCudaContext *ctx, NnCudaLane *lane, const char *whose)
{
  char what[96];
  CUresult err;
  cublasStatus_t st;

#define LANE_CUDA(call, name)                                                                      \
  do                                                                                               \
    {                                                                                              \
      if ((err = (call)) != CUDA_SUCCESS)                                                           \
        {                                                                                          \
          snprintf (what, sizeof what, "%s%s", name, whose);                                       \
          return _nn_cuda_fail (ctx, err, what);                                                   \
        }                                                                                          \
    }                                                                                              \
  while (0)
  LANE_CUDA (nn_cu::cuStreamCreate (&lane->stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  LANE_CUDA (dev_alloc (&lane->cublas_workspace, NN_CUDA_CUBLAS_WORKSPACE),
             "cuBLAS workspace (32 MiB)");
  LANE_CUDA (dev_alloc ((void **) &lane->partials, NN_CUDA_PARTIALS * sizeof (float)),
             "reduction scratch");
  LANE_CUDA (dev_alloc ((void **) &lane->dx_partials, NN_CUDA_DX_PARTIALS * sizeof (float)),
             "input-gradient scratch (4 MiB)");
  LANE_CUDA (dev_alloc ((void **) &lane->counters, NN_CUDA_COUNTERS * sizeof (unsigned int)),
             "counters");
  LANE_CUDA (nn_cu::cuMemsetD8Async ((CUdeviceptr) lane->counters, 0,
                                     NN_CUDA_COUNTERS * sizeof (unsigned int), lane->stream),
             "cuMemsetD8Async");
#undef LANE_CUDA
  if ((st = cublas_open (&lane->cublas, lane->stream, lane->cublas_workspace, ctx->tf32))
      != CUBLAS_STATUS_SUCCESS)
    {
      snprintf (what, sizeof what, "cuBLAS setup%s", whose);
      return _nn_cuda_fail_cublas (ctx, st, what);
    }
  return NN_BACKEND_OK;
}

static void
lane_close (NnCudaLane *lane)
{
  if (lane->cublas != NULL)
    nn_cu::cublasDestroy (lane->cublas);
  if (lane->cublas_workspace != NULL)
    dev_free (lane->cublas_workspace);
  if (lane->partials != NULL)
    dev_free (lane->partials);
  if (lane->dx_partials != NULL)
    dev_free (lane->dx_partials);
  if (lane->counters != NULL)
    dev_free (lane->counters);
  if (lane->stream != NULL)
    nn_cu::cuStreamDestroy (lane->stream);
}

/* The lane ops run on becomes the other one, and cuDNN follows it. */
static cudnnStatus_t
swap_lanes (NnCudaContext *ctx)
{
  NnCudaLane was = ctx->lane;
  ctx->lane = ctx->branch;
  ctx->branch = was;
  return nn_cu::cudnnSetStream (ctx->cudnn, ctx->lane.stream);
}

static void
context_release (NnCudaContext *ctx)
{
  if (ctx->lost)
    {
      /* The CUDA context is corrupt: the libraries' teardown could wait on
       * it. Leak the handles; the process must restart to use the GPU. */
      free (ctx);
      return;
    }
  if (ctx->cu_context == NULL)
    {
      free (ctx); /* nothing was made yet */
      return;
    }
  (void) nn_cu::cuCtxSetCurrent (ctx->cu_context);
  if (ctx->cudnn != NULL)
    nn_cu::cudnnDestroy (ctx->cudnn);
  if (ctx->cublas_side != NULL)
    nn_cu::cublasDestroy (ctx->cublas_side);
  if (ctx->cublas_side_workspace != NULL)
    dev_free (ctx->cublas_side_workspace);
  if (ctx->fork != NULL)
    nn_cu::cuEventDestroy (ctx->fork);
  if (ctx->join != NULL)
    nn_cu::cuEventDestroy (ctx->join);
  if (ctx->branch_fork != NULL)
    nn_cu::cuEventDestroy (ctx->branch_fork);
  if (ctx->branch_done != NULL)
    nn_cu::cuEventDestroy (ctx->branch_done);
  if (ctx->uploaded != NULL)
    nn_cu::cuEventDestroy (ctx->uploaded);
  if (ctx->side_stream != NULL)
    nn_cu::cuStreamDestroy (ctx->side_stream);
  lane_close (&ctx->branch);
  if (ctx->staging != NULL)
    nn_cu::cuMemFreeHost (ctx->staging);
  if (ctx->spans != NULL)
    for (int i = 0; i < NN_CUDA_TIMER_SPANS; i++)
      {
        if (ctx->spans[i].begin != NULL)
          nn_cu::cuEventDestroy (ctx->spans[i].begin);
        if (ctx->spans[i].end != NULL)
          nn_cu::cuEventDestroy (ctx->spans[i].end);
      }
  free (ctx->spans);
  lane_close (&ctx->lane);
  /* The primary context stays retained for the life of the process, as
   * the CUDA runtime keeps it: cuBLAS and cuDNN, which run on the runtime
   * inside them, use it too, and must not see it destroyed under them. */
  free (ctx);
}

static int
cuda_context_new (int device_index, const NnBackendOptions *options, void **out, char *error,
                  size_t error_size)
{
  NnCudaContext *ctx;
  CUresult err;
  cublasStatus_t bst;
  cudnnStatus_t dst;
  int major = 0, rc = NN_BACKEND_OK;
  const char *pdl_env, *clusters_env;
  bool clusters;
  const char *what = "";

  *out = NULL;
  if (_nn_cu_load (error, error_size) != NN_CU_READY)
    return NN_BACKEND_ERROR;
  ctx = (NnCudaContext *) calloc (1, sizeof *ctx);
  if (ctx == NULL)
    {
      snprintf (error, error_size, "out of host memory");
      return NN_BACKEND_OUT_OF_MEMORY;
    }
  ctx->device = device_index;
  ctx->writing.any = 1;
  ctx->tf32 = options != NULL && options->tf32;

#define STEP_CUDA(call, name)                                                                      \
  do                                                                                               \
    {                                                                                              \
      what = name;                                                                                 \
      if ((err = (call)) != CUDA_SUCCESS)                                                           \
        {                                                                                          \
          rc = _nn_cuda_fail (ctx, err, what);                                                     \
          goto failed;                                                                             \
        }                                                                                          \
    }                                                                                              \
  while (0)

  STEP_CUDA (nn_cu::cuDeviceGet (&ctx->cu_device, device_index), "cuDeviceGet");
  /* the device's primary context: cuBLAS and cuDNN, which run on the CUDA
   * runtime inside them, use it too */
  STEP_CUDA (nn_cu::cuDevicePrimaryCtxRetain (&ctx->cu_context, ctx->cu_device),
             "cuDevicePrimaryCtxRetain");
  STEP_CUDA (nn_cu::cuCtxSetCurrent (ctx->cu_context), "cuCtxSetCurrent");
  STEP_CUDA (nn_cu::cuDeviceGetAttribute (&ctx->multiprocessors,
                                          CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, ctx->cu_device),
             "cuDeviceGetAttribute");
  STEP_CUDA (nn_cu::cuDeviceGetAttribute (&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                          ctx->cu_device),
             "cuDeviceGetAttribute");
  pdl_env = getenv ("TRAINBENCH_CUDA_PDL");
  ctx->compute_major = major;
  ctx->dependent_launch = major >= 9 && !(pdl_env != NULL && strcmp (pdl_env, "0") == 0);
  /* TRAINBENCH_CUDA_CLUSTERS=0: the kernels without clusters, as on GPUs
   * before sm_90, so that the tests and comparisons reach them here too */
  clusters_env = getenv ("TRAINBENCH_CUDA_CLUSTERS");
  clusters = !(clusters_env != NULL && strcmp (clusters_env, "0") == 0);
  ctx->dense_clusters = clusters && _nn_cuda_dense_cluster_setup (ctx);
  ctx->loss_clusters = clusters && _nn_cuda_loss_cluster_setup (ctx);
  if ((rc = lane_open (ctx, &ctx->lane, "")) != 0)
    goto failed;
  STEP_CUDA (nn_cu::cuMemHostAlloc ((void **) &ctx->staging,
                                    (size_t) NN_CUDA_STAGING_SLOTS * NN_CUDA_STAGING_SLOT_BYTES, 0),
             "pinned staging buffer");
  STEP_CUDA (nn_cu::cuEventCreate (&ctx->branch_fork, CU_EVENT_DISABLE_TIMING),
             "cuEventCreate");
  STEP_CUDA (nn_cu::cuEventCreate (&ctx->branch_done, CU_EVENT_DISABLE_TIMING),
             "cuEventCreate");
  STEP_CUDA (nn_cu::cuEventCreate (&ctx->uploaded, CU_EVENT_DISABLE_TIMING),
             "cuEventCreate");
  STEP_CUDA (nn_cu::cuStreamCreate (&ctx->side_stream, CU_STREAM_NON_BLOCKING),
             "cuStreamCreate (side)");
  /* the timer's marks, made now so that timing a step allocates nothing */
  ctx->spans = (NnCudaSpan *) calloc (NN_CUDA_TIMER_SPANS, sizeof *ctx->spans);
  if (ctx->spans == NULL)
    {
      rc = _nn_cuda_fail_msg (ctx, NN_BACKEND_OUT_OF_MEMORY, "out of host memory for the timer");
      goto failed;
    }
  for (int i = 0; i < NN_CUDA_TIMER_SPANS; i++)
    {
      STEP_CUDA (nn_cu::cuEventCreate (&ctx->spans[i].begin, CU_EVENT_DEFAULT), "nn_cu::cuEventCreate (timer, CU_EVENT_DEFAULT)");
      STEP_CUDA (nn_cu::cuEventCreate (&ctx->spans[i].end, CU_EVENT_DEFAULT), "nn_cu::cuEventCreate (timer, CU_EVENT_DEFAULT)");
    }
  STEP_CUDA (nn_cu::cuEventCreate (&ctx->fork, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  STEP_CUDA (nn_cu::cuEventCreate (&ctx->join, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  STEP_CUDA (dev_alloc (&ctx->cublas_side_workspace, NN_CUDA_CUBLAS_WORKSPACE),
             "cuBLAS workspace of the side stream (32 MiB)");
  if ((bst = cublas_open (&ctx->cublas_side, ctx->side_stream, ctx->cublas_side_workspace,
                          ctx->tf32))
      != CUBLAS_STATUS_SUCCESS)
    {
      rc = _nn_cuda_fail_cublas (ctx, bst, "cuBLAS setup (side stream)");
      goto failed;
    }
  if ((dst = nn_cu::cudnnCreate (&ctx->cudnn)) != CUDNN_STATUS_SUCCESS
      || (dst = nn_cu::cudnnSetStream (ctx->cudnn, ctx->lane.stream)) != CUDNN_STATUS_SUCCESS)
    {
      rc = _nn_cuda_fail_cudnn (ctx, dst, "cuDNN setup");
      goto failed;
    }
  /* cuBLAS sets itself up on its first product (tens of ms): do that here,
   * for both handles, so it does not land in the first timed training
   * step, each on its own three floats of the scratch, zeroed first. */
  STEP_CUDA (nn_cu::cuMemsetD8Async ((CUdeviceptr) ctx->lane.partials, 0, 6 * sizeof (float), ctx->lane.stream),
             "cuMemsetD8Async");
  STEP_CUDA (nn_cu::cuStreamSynchronize (ctx->lane.stream), "nn_cu::cuStreamSynchronize");
  if ((bst = cublas_warm_up (ctx->lane.cublas, ctx->lane.partials)) != CUBLAS_STATUS_SUCCESS
      || (bst = cublas_warm_up (ctx->cublas_side, ctx->lane.partials + 3)) != CUBLAS_STATUS_SUCCESS)
    {
      rc = _nn_cuda_fail_cublas (ctx, bst, "cuBLAS warm-up");
      goto failed;
    }
  STEP_CUDA (nn_cu::cuStreamSynchronize (ctx->lane.stream), "nn_cu::cuStreamSynchronize");
  STEP_CUDA (nn_cu::cuStreamSynchronize (ctx->side_stream), "nn_cu::cuStreamSynchronize");
#undef STEP_CUDA

  *out = ctx;
  return NN_BACKEND_OK;

failed:
  snprintf (error, error_size, "%s", ctx->error);
  context_release (ctx);
  return rc == NN_BACKEND_OK ? NN_BACKEND_ERROR : rc;
}

static void
cuda_context_free (void *vctx)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  if (ctx == NULL)
    return;
  if (ctx->in_branch)
    {
      /* freed with a branch open: the context's own lane back in place */
      (void) swap_lanes (ctx);
      ctx->in_branch = 0;
    }
  if (!ctx->lost)
    {
      (void) make_current (ctx);
      if (ctx->capturing)
        {
          CUgraph graph = NULL;
          if (nn_cu::cuStreamEndCapture (ctx->lane.stream, &graph) == CUDA_SUCCESS && graph != NULL)
            nn_cu::cuGraphDestroy (graph);
        }
      nn_cu::cuStreamSynchronize (ctx->lane.stream);
      if (ctx->branch.stream != NULL)
        nn_cu::cuStreamSynchronize (ctx->branch.stream);
    }
  context_release (ctx);
}

static const char *
cuda_last_error (void *vctx)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  return ctx != NULL ? ctx->error : "no context";
}

/* ---------------------------------------------------------------- memory */

/* Before memory is freed: the context current, and no op still running or
 * queued on its streams that may use the memory (the runtime's cudaFree
 * waited for the whole device). */
static void
streams_finish (NnCudaContext *ctx)
{
  (void) make_current (ctx);
  (void) nn_cu::cuStreamSynchronize (ctx->lane.stream);
  if (ctx->branch.stream != NULL)
    (void) nn_cu::cuStreamSynchronize (ctx->branch.stream);
  (void) nn_cu::cuStreamSynchronize (ctx->side_stream);
}

static int
cuda_alloc (void *vctx, size_t bytes, void **ptr)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  CUresult err;
  char what[96];
  int rc;

  *ptr = NULL;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (ctx->capturing)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "alloc: not allowed while capturing a step");
  if (bytes == 0)
    bytes = 1;
  err = dev_alloc (ptr, bytes);
  if (err != CUDA_SUCCESS)
    {
      *ptr = NULL;
      snprintf (what, sizeof what, "allocating %.1f MiB", bytes / 1048576.0);
      return _nn_cuda_fail (ctx, err, what);
    }
  err = nn_cu::cuMemsetD8Async ((CUdeviceptr) *ptr, 0, bytes, ctx->lane.stream);
  if (err != CUDA_SUCCESS)
    {
      dev_free (*ptr);
      *ptr = NULL;
      return _nn_cuda_fail (ctx, err, "clearing new memory");
    }
  return NN_BACKEND_OK;
}

static void
cuda_free (void *vctx, void *ptr)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  if (ptr == NULL || ctx->lost)
    return;
  streams_finish (ctx);
  dev_free (ptr);
}

static int
cuda_upload (void *vctx, void *dst, const void *src, size_t bytes)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  int rc;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (bytes == 0)
    return NN_BACKEND_OK;
  if ((rc = _nn_cuda_fail (ctx, nn_cu::cuMemcpyAsync ((CUdeviceptr) dst, (CUdeviceptr) src, bytes,
                                                 ctx->lane.stream),
                           "upload")) != 0)
    return rc;
  /* The caller may reuse its buffer as soon as we return. */
  return _nn_cuda_fail (ctx, nn_cu::cuStreamSynchronize (ctx->lane.stream), "upload");
}

static int
cuda_download (void *vctx, void *dst, const void *src, size_t bytes)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  int rc;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (bytes > 0
      && (rc = _nn_cuda_fail (ctx, nn_cu::cuMemcpyAsync ((CUdeviceptr) dst, (CUdeviceptr) src, bytes,
                                                    ctx->lane.stream),
                              "download")) != 0)
    return rc;
  rc = _nn_cuda_fail (ctx, nn_cu::cuStreamSynchronize (ctx->lane.stream), "download");
  if (rc == 0)
    ctx->staging_pending = 0;
  return rc;
}

/* Runs on a CUDA thread once the stream reaches it: the staged bytes are in. */
static void CUDA_CB
staged_copy_cb (void *data)
{
  NnCudaStagedCopy *copy = (NnCudaStagedCopy *) data;
  memcpy (copy->dst, copy->staged, copy->bytes);
}

static int
cuda_download_async (void *vctx, void *dst, const void *src, size_t bytes)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  unsigned int memory_type = 0;
  int rc;

  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (bytes == 0)
    return NN_BACKEND_OK;
  /* Into pinned memory the copy is truly asynchronous; into pageable memory
   * CUDA would wait for the stream, so small copies go through our pinned
   * staging and a host function moves them once the stream gets there. */
  CUpointer_attribute query = CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
  void *answer = &memory_type;
  /* the plural form answers 0 for memory CUDA does not know (pageable),
   * where the singular fails */
  if (nn_cu::cuPointerGetAttributes (1, &query, &answer, (CUdeviceptr) dst) == CUDA_SUCCESS
      && memory_type == CU_MEMORYTYPE_HOST)
    return _nn_cuda_fail (ctx, nn_cu::cuMemcpyAsync ((CUdeviceptr) dst, (CUdeviceptr) src, bytes,
                                                ctx->lane.stream),
                          "download_async");
  if (bytes > NN_CUDA_STAGING_SLOT_BYTES)
    return _nn_cuda_fail (ctx, nn_cu::cuMemcpyAsync ((CUdeviceptr) dst, (CUdeviceptr) src, bytes,
                                                ctx->lane.stream),
                          "download_async");
  if (ctx->staging_pending >= NN_CUDA_STAGING_SLOTS && !ctx->capturing)
    {
      /* Every slot may still be in flight: let them land before reuse. */
      rc = _nn_cuda_fail (ctx, nn_cu::cuStreamSynchronize (ctx->lane.stream), "download_async");
      if (rc != 0)
        return rc;
      ctx->staging_pending = 0;
    }
  int slot = ctx->staging_next;
  ctx->staging_next = (slot + 1) % NN_CUDA_STAGING_SLOTS;
  ctx->staging_pending++;
  NnCudaStagedCopy *copy = &ctx->staged[slot];
  unsigned char *staged = ctx->staging + (size_t) slot * NN_CUDA_STAGING_SLOT_BYTES;
  copy->dst = dst;
  copy->staged = staged;
  copy->bytes = bytes;
  if ((rc = _nn_cuda_fail (ctx, nn_cu::cuMemcpyAsync ((CUdeviceptr) staged, (CUdeviceptr) src, bytes,
                                                 ctx->lane.stream),
                           "download_async")) != 0)
    return rc;
  return _nn_cuda_fail (ctx, nn_cu::cuLaunchHostFunc (ctx->lane.stream, staged_copy_cb, copy),
                        "download_async");
}

/* ---------------------------------------------------------------- page-locked host memory */

/* Batches gathered on the host (NN_DATA_PINNED) go through this memory:
 * copies from it are DMA transfers the stream runs in its order, so the
 * host goes on while the device copies and computes. */
static int
cuda_host_alloc (void *vctx, size_t bytes, void **ptr)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  char what[96];
  int rc;

  *ptr = NULL;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (ctx->capturing)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR,
                              "host_alloc: not allowed while capturing a step");
  snprintf (what, sizeof what, "allocating %.1f MiB of page-locked host memory",
            bytes / 1048576.0);
  CUresult err = nn_cu::cuMemHostAlloc (ptr, bytes > 0 ? bytes : 1, 0);
  if (err != CUDA_SUCCESS)
    {
      *ptr = NULL;
      return _nn_cuda_fail (ctx, err, what);
    }
  return NN_BACKEND_OK;
}

static void
cuda_host_free (void *vctx, void *ptr)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  if (ptr == NULL || ctx->lost)
    return;
  streams_finish (ctx);
  (void) nn_cu::cuMemFreeHost (ptr);
}

static int
cuda_upload_async (void *vctx, void *dst, const void *src, size_t bytes)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  int rc;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (ctx->capturing)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR,
                              "upload_async: not allowed while capturing a step");
  if (bytes == 0)
    return NN_BACKEND_OK;
  if ((rc = _nn_cuda_fail (ctx, nn_cu::cuMemcpyAsync ((CUdeviceptr) dst, (CUdeviceptr) src, bytes,
                                                 ctx->lane.stream),
                           "upload_async")) != 0)
    return rc;
  return _nn_cuda_fail (ctx, nn_cu::cuEventRecord (ctx->uploaded, ctx->lane.stream), "upload_async");
}

static int
cuda_upload_wait (void *vctx)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  int rc;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  /* An event never recorded counts as done. */
  return _nn_cuda_fail (ctx, nn_cu::cuEventSynchronize (ctx->uploaded), "upload_wait");
}

static int
cuda_copy (void *vctx, void *dst, const void *src, size_t bytes)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  int rc;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (bytes == 0)
    return NN_BACKEND_OK;
  return _nn_cuda_fail (ctx, nn_cu::cuMemcpyAsync ((CUdeviceptr) dst, (CUdeviceptr) src, bytes,
                                              ctx->lane.stream),
                        "copy");
}

static int
cuda_synchronize (void *vctx)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  int rc;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (ctx->capturing)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR,
                              "synchronize: not allowed while capturing a step");
  if (ctx->in_branch)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "synchronize: a branch is open");
  rc = _nn_cuda_fail (ctx, nn_cu::cuStreamSynchronize (ctx->lane.stream), "synchronize");
  if (rc == 0)
    ctx->staging_pending = 0;
  return rc;
}

/* ---------------------------------------------------------------- timer */

/* Device time of spans of the stream: two events each, recorded on the
 * stream between launches and read back only after the engine has
 * synchronized, so timing adds no wait. */
static int
cuda_timer_begin (void *vctx)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  int rc;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (ctx->capturing || ctx->in_branch || ctx->span_open)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR,
                              "timer_begin: not while capturing, in a branch or in a span");
  if (ctx->span_count == NN_CUDA_TIMER_SPANS)
    return NN_BACKEND_UNSUPPORTED; /* every span unread: these steps go untimed */
  NnCudaSpan *span = &ctx->spans[(ctx->span_first + ctx->span_count) % NN_CUDA_TIMER_SPANS];
  rc = _nn_cuda_fail (ctx, nn_cu::cuEventRecord (span->begin, ctx->lane.stream), "timer_begin");
  if (rc != 0)
    return rc;
  span->steps = 0;
  ctx->span_count++;
  ctx->span_open = 1;
  return 0;
}

static int
cuda_timer_end (void *vctx, int32_t steps)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  int rc;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (!ctx->span_open || ctx->capturing || ctx->in_branch)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "timer_end: no span open");
  NnCudaSpan *span = &ctx->spans[(ctx->span_first + ctx->span_count - 1) % NN_CUDA_TIMER_SPANS];
  rc = _nn_cuda_fail (ctx, nn_cu::cuEventRecord (span->end, ctx->lane.stream), "timer_end");
  if (rc != 0)
    return rc;
  span->steps = steps;
  ctx->span_open = 0;
  return 0;
}

static int
cuda_timer_read (void *vctx, double *seconds, int64_t *steps)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  int rc;
  *seconds = 0;
  *steps = 0;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  while (ctx->span_count > (ctx->span_open ? 1 : 0))
    {
      NnCudaSpan *span = &ctx->spans[ctx->span_first];
      float ms = 0;
      CUresult err = nn_cu::cuEventQuery (span->end);
      if (err == CUDA_ERROR_NOT_READY)
        break; /* still running: the next read takes it */
      if (err == CUDA_SUCCESS)
        err = nn_cu::cuEventElapsedTime (&ms, span->begin, span->end);
      if (err != CUDA_SUCCESS)
        return _nn_cuda_fail (ctx, err, "timer_read");
      *seconds += ms * 1e-3;
      *steps += span->steps;
      ctx->span_first = (ctx->span_first + 1) % NN_CUDA_TIMER_SPANS;
      ctx->span_count--;
    }
  return 0;
}

/* ---------------------------------------------------------------- capture */

typedef struct
{
  CUgraph graph;     /* owned */
  CUgraphExec exec;  /* owned */
} NnCudaGraph;

static int
cuda_capture_begin (void *vctx)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  int rc;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (ctx->capturing)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "capture_begin: already capturing");
  if (ctx->in_branch)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "capture_begin: a branch is open");
  /* Thread-local: other threads' CUDA calls neither break nor join this capture. */
  rc = _nn_cuda_fail (ctx,
                      nn_cu::cuStreamBeginCapture (ctx->lane.stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                      "capture_begin");
  if (rc == 0)
    ctx->capturing = 1;
  return rc;
}

static int
cuda_capture_end (void *vctx, void **out)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  CUgraph graph = NULL;
  CUgraphExec exec = NULL;
  CUresult err;
  int rc;

  *out = NULL;
  if (ctx->lost)
    return NN_BACKEND_DEVICE_LOST;
  if (!ctx->capturing)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "capture_end: not capturing");
  if (ctx->in_branch)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "capture_end: a branch is open");
  (void) make_current (ctx);
  ctx->capturing = 0;
  err = nn_cu::cuStreamEndCapture (ctx->lane.stream, &graph);
  if (err != CUDA_SUCCESS)
    {
      if (graph != NULL)
        nn_cu::cuGraphDestroy (graph);
      return _nn_cuda_fail (ctx, err, "capture_end (an op in the step cannot be captured)");
    }
  err = nn_cu::cuGraphInstantiateWithFlags (&exec, graph, 0);
  if (err != CUDA_SUCCESS)
    {
      nn_cu::cuGraphDestroy (graph);
      return _nn_cuda_fail (ctx, err, "capture_end: instantiating the step");
    }
  NnCudaGraph *g = (NnCudaGraph *) malloc (sizeof *g);
  if (g == NULL)
    {
      nn_cu::cuGraphExecDestroy (exec);
      nn_cu::cuGraphDestroy (graph);
      return _nn_cuda_fail_msg (ctx, NN_BACKEND_OUT_OF_MEMORY, "capture_end: out of host memory");
    }
  g->graph = graph;
  g->exec = exec;
  /* Upload now so the first launch does not pay for it. */
  rc = _nn_cuda_fail (ctx, nn_cu::cuGraphUpload (exec, ctx->lane.stream), "capture_end: upload");
  if (rc != 0)
    {
      nn_cu::cuGraphExecDestroy (exec);
      nn_cu::cuGraphDestroy (graph);
      free (g);
      return rc;
    }
  *out = g;
  return NN_BACKEND_OK;
}

static int
cuda_graph_launch (void *vctx, void *vgraph)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  NnCudaGraph *g = (NnCudaGraph *) vgraph;
  int rc;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (g == NULL || ctx->in_branch)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "graph_launch: %s",
                              g == NULL ? "no graph" : "a branch is open");
  return _nn_cuda_fail (ctx, nn_cu::cuGraphLaunch (g->exec, ctx->lane.stream), "graph_launch");
}

static void
cuda_graph_free (void *vctx, void *vgraph)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  NnCudaGraph *g = (NnCudaGraph *) vgraph;
  if (g == NULL)
    return;
  if (!ctx->lost)
    {
      (void) make_current (ctx);
      /* A launch still running keeps its own reference; destroying is safe. */
      nn_cu::cuGraphExecDestroy (g->exec);
      nn_cu::cuGraphDestroy (g->graph);
    }
  free (g);
}

/* ---------------------------------------------------------------- branches */

/* As _nn_cuda_enter, but not an op: what the op before wrote stays the
 * record the op after reads. */
static int
branch_enter (NnCudaContext *ctx)
{
  if (ctx->lost)
    return NN_BACKEND_DEVICE_LOST;
  return make_current (ctx);
}

/* The branch's lane, opened by the first branch_begin: a context that
 * never branches (the presets but mlp-wide) keeps its 36 MiB and the
 * allocations it had before branches came. Not inside a capture, which may
 * not allocate; the engine runs its first step plainly. Its cuBLAS handle
 * sets itself up here, not in a later, timed step. */
static int
branch_lane_open (NnCudaContext *ctx)
{
  cublasStatus_t st;
  int rc;

  if (ctx->branch.stream != NULL)
    return NN_BACKEND_OK;
  if (ctx->capturing)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR,
                              "branch_begin: the first branch may not be captured (its lane "
                              "allocates)");
  rc = lane_open (ctx, &ctx->branch, " of the branch");
  if (rc == 0)
    rc = _nn_cuda_fail (ctx, nn_cu::cuMemsetD8Async ((CUdeviceptr) ctx->branch.partials, 0, 3 * sizeof (float),
                                              ctx->branch.stream),
                        "branch_begin");
  if (rc == 0 && (st = cublas_warm_up (ctx->branch.cublas, ctx->branch.partials))
                     != CUBLAS_STATUS_SUCCESS)
    rc = _nn_cuda_fail_cublas (ctx, st, "cuBLAS warm-up of the branch");
  if (rc == 0)
    rc = _nn_cuda_fail (ctx, nn_cu::cuStreamSynchronize (ctx->branch.stream), "branch_begin");
  if (rc != 0)
    {
      /* closed again, so that a later branch_begin tries afresh */
      lane_close (&ctx->branch);
      memset (&ctx->branch, 0, sizeof ctx->branch);
    }
  return rc;
}

int
_nn_cuda_branch_begin (NnCudaContext *ctx)
{
  cudnnStatus_t st;
  int rc;

  if ((rc = branch_enter (ctx)) != 0)
    return rc;
  if (ctx->in_branch)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "branch_begin: a branch is open already");
  if ((rc = branch_lane_open (ctx)) != 0)
    return rc;
  if ((rc = _nn_cuda_fail (ctx, nn_cu::cuEventRecord (ctx->branch_fork, ctx->lane.stream),
                           "branch_begin"))
          != 0
      || (rc = _nn_cuda_fail (ctx, nn_cu::cuStreamWaitEvent (ctx->branch.stream, ctx->branch_fork, 0),
                              "branch_begin"))
           != 0)
    return rc;
  if ((st = swap_lanes (ctx)) != CUDNN_STATUS_SUCCESS)
    {
      swap_lanes (ctx);
      return _nn_cuda_fail_cudnn (ctx, st, "branch_begin");
    }
  ctx->in_branch = 1;
  /* The branch's first kernel starts after every op before it has
   * finished, so it may read anything early. */
  ctx->main_writing = ctx->writing;
  ctx->writing.any = 0;
  ctx->writing.count = 0;
  return NN_BACKEND_OK;
}

int
_nn_cuda_branch_end (NnCudaContext *ctx)
{
  int rc;

  if ((rc = branch_enter (ctx)) != 0)
    return rc;
  if (!ctx->in_branch)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "branch_end: no branch is open");
  CUresult recorded = nn_cu::cuEventRecord (ctx->branch_done, ctx->lane.stream);
  /* back on the context's own lane whatever failed; the next op follows
   * the op before the branch, on the same stream */
  cudnnStatus_t st = swap_lanes (ctx);
  ctx->in_branch = 0;
  ctx->writing = ctx->main_writing;
  if ((rc = _nn_cuda_fail (ctx, recorded, "branch_end")) != 0)
    return rc;
  return _nn_cuda_fail_cudnn (ctx, st, "branch_end");
}

int
_nn_cuda_branch_join (NnCudaContext *ctx)
{
  int rc;

  if ((rc = branch_enter (ctx)) != 0)
    return rc;
  if (ctx->in_branch)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "branch_join: the branch is still open");
  return _nn_cuda_fail (ctx, nn_cu::cuStreamWaitEvent (ctx->lane.stream, ctx->branch_done, 0),
                        "branch_join");
}

/* ---------------------------------------------------------------- the table */

/* The op table, one member per slot of nn-backend-abi.h, named, so that a
 * slot added there cannot shift the others; the loader checks its rules. */
static const NnBackendOps cuda_ops = {
  .abi_version = NN_BACKEND_ABI_VERSION,
  .struct_size = sizeof (NnBackendOps),
  .name = "cuda",
  /* devices */
  .device_count = cuda_device_count,                  /* cuDeviceGetCount, the reason when 0 */
  .device_info = cuda_device_info,                    /* name, memory, versions of one device */
  /* context */
  .context_new = cuda_context_new,                    /* stream, cuBLAS and cuDNN handles */
  .context_free = cuda_context_free,
  .last_error = cuda_last_error,                      /* the message of the last failure */
  /* memory */
  .alloc = cuda_alloc,                                /* zero-filled device memory */
  .free = cuda_free,
  .upload = cuda_upload,                              /* host to device, on the stream */
  .download = cuda_download,                          /* device to host, waits */
  .fill = _nn_cuda_fill,
  .copy = cuda_copy,                                  /* device to device */
  .synchronize = cuda_synchronize,
  /* dense algebra */
  .gemm = _nn_cuda_gemm,                              /* cuBLAS, row-major */
  .bias_act_forward = _nn_cuda_bias_act_forward,
  .bias_act_backward = _nn_cuda_bias_act_backward,    /* dz in place, dbias */
  /* dropout */
  .dropout_forward = _nn_cuda_dropout_forward,
  .dropout_backward = _nn_cuda_dropout_backward,
  /* convolution and pooling */
  .conv2d_plan_new = _nn_cuda_conv2d_plan_new,        /* descriptors and algorithms */
  .conv2d_plan_free = _nn_cuda_conv2d_plan_free,
  .conv2d_forward = _nn_cuda_conv2d_forward,
  .conv2d_backward = _nn_cuda_conv2d_backward,        /* dw, and dx when asked */
  .pool2d_forward = _nn_cuda_pool2d_forward,
  .pool2d_backward = _nn_cuda_pool2d_backward,
  /* loss, data, optimizer */
  .loss = _nn_cuda_loss,                              /* loss sum, correct count, gradient */
  .gather_batch = _nn_cuda_gather_batch,              /* a batch from the resident data set */
  .optimizer_update = _nn_cuda_optimizer_update,      /* one kernel over the parameter arena */
  /* whole-step capture */
  .capture_begin = cuda_capture_begin,                /* stream capture into a CUDA graph */
  .capture_end = cuda_capture_end,
  .graph_launch = cuda_graph_launch,
  .graph_free = cuda_graph_free,
  .download_async = cuda_download_async,              /* into pinned memory, no wait */
  /* fused steps (nn-cuda-steps.cc) */
  .step_supported = _nn_cuda_step_supported,          /* by kind, shape and the device */
  .step_run = _nn_cuda_step_run,                      /* the fused ops' launchers, branches */
  /* page-locked host memory */
  .host_alloc = cuda_host_alloc,                      /* cuMemHostAlloc */
  .host_free = cuda_host_free,
  .upload_async = cuda_upload_async,                  /* from it, on the stream, no wait */
  .upload_wait = cuda_upload_wait,                    /* until those copies have read it */
  /* device time of the steps (events, read after a synchronize) */
  .timer_begin = cuda_timer_begin,
  .timer_end = cuda_timer_end,
  .timer_read = cuda_timer_read,
};

#ifdef _WIN32
#define NN_CUDA_EXPORT __declspec (dllexport)
#else
#define NN_CUDA_EXPORT __attribute__ ((visibility ("default")))
#endif

extern "C" NN_CUDA_EXPORT const NnBackendOps *
nn_backend_cuda_get (void)
{
  return &cuda_ops;
}
