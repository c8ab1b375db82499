/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-cuda-backend.cu: the CUDA backend module's op table, devices, contexts,
 * memory, errors, whole-step capture (CUDA graphs) and branches. The math
 * lives in nn-cuda-blas.cu, nn-cuda-conv.cu and the files in kernels/, the
 * fused steps in nn-cuda-steps.cu.
 */

#include "nn-cuda-private.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- errors */

/* Errors after which the CUDA context cannot be used again (the CUDA
 * documentation calls them sticky): the process must restart to use the GPU. */
static int
is_sticky (cudaError_t err)
{
  switch (err)
    {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
    case cudaErrorDevicesUnavailable:
    case cudaErrorUnknown:
    case cudaErrorCudartUnloading:
    case cudaErrorExternalDevice:
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
_nn_cuda_fail (NnCudaContext *ctx, cudaError_t err, const char *what)
{
  if (err == cudaSuccess)
    return NN_BACKEND_OK;
  if (ctx->lost)
    return NN_BACKEND_DEVICE_LOST;
  if (err == cudaErrorMemoryAllocation)
    {
      size_t free_bytes = 0, total_bytes = 0;
      cudaGetLastError ();
      cudaMemGetInfo (&free_bytes, &total_bytes);
      return _nn_cuda_fail_msg (ctx, NN_BACKEND_OUT_OF_MEMORY,
                                "%s: out of device memory (%.1f MiB free of %.1f MiB)", what,
                                free_bytes / 1048576.0, total_bytes / 1048576.0);
    }
  if (is_sticky (err))
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_DEVICE_LOST,
                              "%s: %s (%s); the GPU is unusable until the program restarts", what,
                              cudaGetErrorString (err), cudaGetErrorName (err));
  /* Clear a non-sticky error so the next op does not see it again. */
  cudaGetLastError ();
  return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "%s: %s (%s)", what, cudaGetErrorString (err),
                            cudaGetErrorName (err));
}

/* A library status does not say whether the context survived: ask the runtime. */
static int
fail_after_library (NnCudaContext *ctx, const char *what, const char *detail)
{
  cudaError_t err = cudaPeekAtLastError ();
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
    return _nn_cuda_fail (ctx, cudaErrorMemoryAllocation, what);
  snprintf (detail, sizeof detail, "cuBLAS: %s (%s)", cublasGetStatusString (st),
            cublasGetStatusName (st));
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
    return _nn_cuda_fail (ctx, cudaErrorMemoryAllocation, what);
  if (st == CUDNN_STATUS_NOT_SUPPORTED)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_UNSUPPORTED, "%s: cuDNN: %s", what,
                              cudnnGetErrorString (st));
  snprintf (detail, sizeof detail, "cuDNN: %s", cudnnGetErrorString (st));
  return fail_after_library (ctx, what, detail);
}

int
_nn_cuda_check_launch (NnCudaContext *ctx, const char *what)
{
  cudaError_t err = cudaGetLastError ();
  return err == cudaSuccess ? NN_BACKEND_OK : _nn_cuda_fail (ctx, err, what);
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
  if (ctx->several_devices)
    {
      cudaError_t err = cudaSetDevice (ctx->device);
      if (err != cudaSuccess)
        return _nn_cuda_fail (ctx, err, "cudaSetDevice");
    }
  return NN_BACKEND_OK;
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

/* Words for a failed cudaGetDeviceCount. */
static void
explain_no_device (cudaError_t err, char *reason, size_t size)
{
  int driver = 0;
  void *libcuda = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);

  if (libcuda == NULL)
    {
      snprintf (reason, size, "no NVIDIA driver (libcuda.so.1 not found)");
      return;
    }
  dlclose (libcuda);
  cudaDriverGetVersion (&driver);
  switch (err)
    {
    case cudaErrorNoDevice:
      snprintf (reason, size, "no NVIDIA GPU found");
      break;
    case cudaErrorInsufficientDriver:
      if (driver > 0)
        snprintf (reason, size, "NVIDIA driver too old for CUDA %d.%d (it supports CUDA %d.%d)",
                  CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10, driver / 1000,
                  driver % 1000 / 10);
      else
        snprintf (reason, size, "no NVIDIA driver");
      break;
    case cudaErrorCompatNotSupportedOnDevice:
    case cudaErrorSystemDriverMismatch:
      snprintf (reason, size, "NVIDIA driver mismatch: %s", cudaGetErrorString (err));
      break;
    default:
      snprintf (reason, size, "CUDA cannot start: %s (%s)", cudaGetErrorString (err),
                cudaGetErrorName (err));
      break;
    }
}

static int
cuda_device_count (char *reason, size_t reason_size)
{
  int count = 0;
  cudaError_t err = cudaGetDeviceCount (&count);
  if (err != cudaSuccess)
    {
      if (reason != NULL && reason_size > 0)
        explain_no_device (err, reason, reason_size);
      return 0;
    }
  if (count == 0 && reason != NULL && reason_size > 0)
    snprintf (reason, reason_size, "no NVIDIA GPU found");
  return count;
}

/* The driver's own version string ("580.159.04") through NVML, loaded only
 * for this; false when NVML is not there. */
static int
nvml_driver_version (char *out, size_t size)
{
  typedef int (*InitFunc) (void);
  typedef int (*VersionFunc) (char *, unsigned int);
  void *nvml = dlopen ("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  int ok = 0;

  if (nvml == NULL)
    return 0;
  InitFunc init = (InitFunc) dlsym (nvml, "nvmlInit_v2");
  InitFunc shutdown = (InitFunc) dlsym (nvml, "nvmlShutdown");
  VersionFunc version = (VersionFunc) dlsym (nvml, "nvmlSystemGetDriverVersion");
  if (init != NULL && version != NULL && init () == 0)
    {
      char buf[96] = "";
      if (version (buf, sizeof buf) == 0 && buf[0] != '\0')
        {
          snprintf (out, size, "%s", buf);
          ok = 1;
        }
      if (shutdown != NULL)
        shutdown ();
    }
  dlclose (nvml);
  return ok;
}

static int
cuda_device_info (int index, NnBackendDeviceInfo *info)
{
  cudaDeviceProp prop;
  int driver = 0, runtime = 0, major = 0, minor = 0, patch = 0;

  memset (info, 0, sizeof *info);
  if (cudaGetDeviceProperties (&prop, index) != cudaSuccess)
    {
      cudaGetLastError ();
      return NN_BACKEND_ERROR;
    }
  snprintf (info->name, sizeof info->name, "%s", prop.name);
  info->memory_bytes = prop.totalGlobalMem;
  info->compute_major = prop.major;
  info->compute_minor = prop.minor;
  info->multiprocessors = prop.multiProcessorCount;

  cudaDriverGetVersion (&driver);
  if (!nvml_driver_version (info->driver, sizeof info->driver))
    snprintf (info->driver, sizeof info->driver, "CUDA %d.%d", driver / 1000, driver % 1000 / 10);
  cudaRuntimeGetVersion (&runtime);
  snprintf (info->runtime, sizeof info->runtime, "%d.%d", runtime / 1000, runtime % 1000 / 10);
  cublasGetProperty (MAJOR_VERSION, &major);
  cublasGetProperty (MINOR_VERSION, &minor);
  cublasGetProperty (PATCH_LEVEL, &patch);
  snprintf (info->cublas, sizeof info->cublas, "%d.%d.%d", major, minor, patch);
  size_t v = cudnnGetVersion (); /* cuDNN 9: major * 10000 + minor * 100 + patch */
  snprintf (info->cudnn, sizeof info->cudnn, "%zu.%zu.%zu", v / 10000, v % 10000 / 100, v % 100);
  return NN_BACKEND_OK;
}

/* ---------------------------------------------------------------- context */

/* A cuBLAS handle on `stream` with its own workspace (so capture never
 * allocates) and TF32 as the context allows it. */
static cublasStatus_t
cublas_open (cublasHandle_t *handle, cudaStream_t stream, void *workspace, int tf32)
{
  cublasStatus_t st;
  if ((st = cublasCreate (handle)) != CUBLAS_STATUS_SUCCESS
      || (st = cublasSetStream (*handle, stream)) != CUBLAS_STATUS_SUCCESS
      || (st = cublasSetWorkspace (*handle, workspace, NN_CUDA_CUBLAS_WORKSPACE))
           != CUBLAS_STATUS_SUCCESS)
    return st;
  return cublasSetMathMode (*handle, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH);
}

/* A 1 x 1 product in each transpose case, on three floats of scratch:
 * cuBLAS sets up each case on its first use. */
static cublasStatus_t
cublas_warm_up (cublasHandle_t handle, float *scratch)
{
  const float one = 1.0f, zero = 0.0f;
  cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
  for (int t = 0; t < 4 && st == CUBLAS_STATUS_SUCCESS; t++)
    st = cublasSgemm (handle, t & 1 ? CUBLAS_OP_T : CUBLAS_OP_N, t & 2 ? CUBLAS_OP_T : CUBLAS_OP_N,
                      1, 1, 1, &one, scratch, 1, scratch + 1, 1, &zero, scratch + 2, 1);
  return st;
}

/* A lane's stream, cuBLAS handle and scratch (`whose`: "" or " of the
 * branch", for messages). */
static int
lane_open (NnCudaContext *ctx, NnCudaLane *lane, const char *whose)
{
  char what[96];
  cudaError_t err;
  cublasStatus_t st;

#define LANE_CUDA(call, name)                                                                      \
  do                                                                                               \
    {                                                                                              \
      if ((err = (call)) != cudaSuccess)                                                           \
        {                                                                                          \
          snprintf (what, sizeof what, "%s%s", name, whose);                                       \
          return _nn_cuda_fail (ctx, err, what);                                                   \
        }                                                                                          \
    }                                                                                              \
  while (0)
  LANE_CUDA (cudaStreamCreateWithFlags (&lane->stream, cudaStreamNonBlocking), "cudaStreamCreate");
  LANE_CUDA (cudaMalloc (&lane->cublas_workspace, NN_CUDA_CUBLAS_WORKSPACE),
             "cuBLAS workspace (32 MiB)");
  LANE_CUDA (cudaMalloc ((void **) &lane->partials, NN_CUDA_PARTIALS * sizeof (float)),
             "reduction scratch");
  LANE_CUDA (cudaMalloc ((void **) &lane->dx_partials, NN_CUDA_DX_PARTIALS * sizeof (float)),
             "input-gradient scratch (4 MiB)");
  LANE_CUDA (cudaMalloc ((void **) &lane->counters, NN_CUDA_COUNTERS * sizeof (unsigned int)),
             "counters");
  LANE_CUDA (cudaMemsetAsync (lane->counters, 0, NN_CUDA_COUNTERS * sizeof (unsigned int),
                              lane->stream),
             "cudaMemsetAsync");
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
    cublasDestroy (lane->cublas);
  if (lane->cublas_workspace != NULL)
    cudaFree (lane->cublas_workspace);
  if (lane->partials != NULL)
    cudaFree (lane->partials);
  if (lane->dx_partials != NULL)
    cudaFree (lane->dx_partials);
  if (lane->counters != NULL)
    cudaFree (lane->counters);
  if (lane->stream != NULL)
    cudaStreamDestroy (lane->stream);
}

/* The lane ops run on becomes the other one, and cuDNN follows it. */
static cudnnStatus_t
swap_lanes (NnCudaContext *ctx)
{
  NnCudaLane was = ctx->lane;
  ctx->lane = ctx->branch;
  ctx->branch = was;
  return cudnnSetStream (ctx->cudnn, ctx->lane.stream);
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
  if (ctx->cudnn != NULL)
    cudnnDestroy (ctx->cudnn);
  if (ctx->cublas_side != NULL)
    cublasDestroy (ctx->cublas_side);
  if (ctx->cublas_side_workspace != NULL)
    cudaFree (ctx->cublas_side_workspace);
  if (ctx->fork != NULL)
    cudaEventDestroy (ctx->fork);
  if (ctx->join != NULL)
    cudaEventDestroy (ctx->join);
  if (ctx->branch_fork != NULL)
    cudaEventDestroy (ctx->branch_fork);
  if (ctx->branch_done != NULL)
    cudaEventDestroy (ctx->branch_done);
  if (ctx->uploaded != NULL)
    cudaEventDestroy (ctx->uploaded);
  if (ctx->side_stream != NULL)
    cudaStreamDestroy (ctx->side_stream);
  lane_close (&ctx->branch);
  if (ctx->staging != NULL)
    cudaFreeHost (ctx->staging);
  if (ctx->spans != NULL)
    for (int i = 0; i < NN_CUDA_TIMER_SPANS; i++)
      {
        if (ctx->spans[i].begin != NULL)
          cudaEventDestroy (ctx->spans[i].begin);
        if (ctx->spans[i].end != NULL)
          cudaEventDestroy (ctx->spans[i].end);
      }
  free (ctx->spans);
  lane_close (&ctx->lane);
  cudaGetLastError ();
  free (ctx);
}

static int
cuda_context_new (int device_index, const NnBackendOptions *options, void **out, char *error,
                  size_t error_size)
{
  NnCudaContext *ctx;
  cudaError_t err;
  cublasStatus_t bst;
  cudnnStatus_t dst;
  int count = 0, major = 0, rc = NN_BACKEND_OK;
  const char *pdl_env, *clusters_env;
  bool clusters;
  const char *what = "";

  *out = NULL;
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
      if ((err = (call)) != cudaSuccess)                                                           \
        {                                                                                          \
          rc = _nn_cuda_fail (ctx, err, what);                                                     \
          goto failed;                                                                             \
        }                                                                                          \
    }                                                                                              \
  while (0)

  STEP_CUDA (cudaGetDeviceCount (&count), "cudaGetDeviceCount");
  ctx->several_devices = count > 1;
  STEP_CUDA (cudaSetDevice (device_index), "cudaSetDevice");
  STEP_CUDA (cudaDeviceGetAttribute (&ctx->multiprocessors, cudaDevAttrMultiProcessorCount,
                                     device_index),
             "cudaDeviceGetAttribute");
  STEP_CUDA (cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor, device_index),
             "cudaDeviceGetAttribute");
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
  STEP_CUDA (cudaHostAlloc ((void **) &ctx->staging,
                            (size_t) NN_CUDA_STAGING_SLOTS * NN_CUDA_STAGING_SLOT_BYTES,
                            cudaHostAllocDefault),
             "pinned staging buffer");
  STEP_CUDA (cudaEventCreateWithFlags (&ctx->branch_fork, cudaEventDisableTiming),
             "cudaEventCreate");
  STEP_CUDA (cudaEventCreateWithFlags (&ctx->branch_done, cudaEventDisableTiming),
             "cudaEventCreate");
  STEP_CUDA (cudaEventCreateWithFlags (&ctx->uploaded, cudaEventDisableTiming),
             "cudaEventCreate");
  STEP_CUDA (cudaStreamCreateWithFlags (&ctx->side_stream, cudaStreamNonBlocking),
             "cudaStreamCreate (side)");
  /* the timer's marks, made now so that timing a step allocates nothing */
  ctx->spans = (NnCudaSpan *) calloc (NN_CUDA_TIMER_SPANS, sizeof *ctx->spans);
  if (ctx->spans == NULL)
    {
      rc = _nn_cuda_fail_msg (ctx, NN_BACKEND_OUT_OF_MEMORY, "out of host memory for the timer");
      goto failed;
    }
  for (int i = 0; i < NN_CUDA_TIMER_SPANS; i++)
    {
      STEP_CUDA (cudaEventCreate (&ctx->spans[i].begin), "cudaEventCreate (timer)");
      STEP_CUDA (cudaEventCreate (&ctx->spans[i].end), "cudaEventCreate (timer)");
    }
  STEP_CUDA (cudaEventCreateWithFlags (&ctx->fork, cudaEventDisableTiming), "cudaEventCreate");
  STEP_CUDA (cudaEventCreateWithFlags (&ctx->join, cudaEventDisableTiming), "cudaEventCreate");
  STEP_CUDA (cudaMalloc (&ctx->cublas_side_workspace, NN_CUDA_CUBLAS_WORKSPACE),
             "cuBLAS workspace of the side stream (32 MiB)");
  if ((bst = cublas_open (&ctx->cublas_side, ctx->side_stream, ctx->cublas_side_workspace,
                          ctx->tf32))
      != CUBLAS_STATUS_SUCCESS)
    {
      rc = _nn_cuda_fail_cublas (ctx, bst, "cuBLAS setup (side stream)");
      goto failed;
    }
  if ((dst = cudnnCreate (&ctx->cudnn)) != CUDNN_STATUS_SUCCESS
      || (dst = cudnnSetStream (ctx->cudnn, ctx->lane.stream)) != CUDNN_STATUS_SUCCESS)
    {
      rc = _nn_cuda_fail_cudnn (ctx, dst, "cuDNN setup");
      goto failed;
    }
  /* cuBLAS sets itself up on its first product (tens of ms): do that here,
   * for both handles, so it does not land in the first timed training
   * step, each on its own three floats of the scratch, zeroed first. */
  STEP_CUDA (cudaMemsetAsync (ctx->lane.partials, 0, 6 * sizeof (float), ctx->lane.stream),
             "cudaMemsetAsync");
  STEP_CUDA (cudaStreamSynchronize (ctx->lane.stream), "cudaStreamSynchronize");
  if ((bst = cublas_warm_up (ctx->lane.cublas, ctx->lane.partials)) != CUBLAS_STATUS_SUCCESS
      || (bst = cublas_warm_up (ctx->cublas_side, ctx->lane.partials + 3)) != CUBLAS_STATUS_SUCCESS)
    {
      rc = _nn_cuda_fail_cublas (ctx, bst, "cuBLAS warm-up");
      goto failed;
    }
  STEP_CUDA (cudaStreamSynchronize (ctx->lane.stream), "cudaStreamSynchronize");
  STEP_CUDA (cudaStreamSynchronize (ctx->side_stream), "cudaStreamSynchronize");
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
      if (ctx->several_devices)
        cudaSetDevice (ctx->device);
      if (ctx->capturing)
        {
          cudaGraph_t graph = NULL;
          if (cudaStreamEndCapture (ctx->lane.stream, &graph) == cudaSuccess && graph != NULL)
            cudaGraphDestroy (graph);
        }
      cudaStreamSynchronize (ctx->lane.stream);
      if (ctx->branch.stream != NULL)
        cudaStreamSynchronize (ctx->branch.stream);
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

static int
cuda_alloc (void *vctx, size_t bytes, void **ptr)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  cudaError_t err;
  char what[96];
  int rc;

  *ptr = NULL;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (ctx->capturing)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "alloc: not allowed while capturing a step");
  if (bytes == 0)
    bytes = 1;
  err = cudaMalloc (ptr, bytes);
  if (err != cudaSuccess)
    {
      *ptr = NULL;
      snprintf (what, sizeof what, "allocating %.1f MiB", bytes / 1048576.0);
      return _nn_cuda_fail (ctx, err, what);
    }
  err = cudaMemsetAsync (*ptr, 0, bytes, ctx->lane.stream);
  if (err != cudaSuccess)
    {
      cudaFree (*ptr);
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
  if (ctx->several_devices)
    cudaSetDevice (ctx->device);
  /* cudaFree waits for the device, so no op still running can use it. */
  if (cudaFree (ptr) != cudaSuccess)
    cudaGetLastError ();
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
  if ((rc = _nn_cuda_fail (ctx, cudaMemcpyAsync (dst, src, bytes, cudaMemcpyHostToDevice,
                                                 ctx->lane.stream),
                           "upload")) != 0)
    return rc;
  /* The caller may reuse its buffer as soon as we return. */
  return _nn_cuda_fail (ctx, cudaStreamSynchronize (ctx->lane.stream), "upload");
}

static int
cuda_download (void *vctx, void *dst, const void *src, size_t bytes)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  int rc;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (bytes > 0
      && (rc = _nn_cuda_fail (ctx, cudaMemcpyAsync (dst, src, bytes, cudaMemcpyDeviceToHost,
                                                    ctx->lane.stream),
                              "download")) != 0)
    return rc;
  rc = _nn_cuda_fail (ctx, cudaStreamSynchronize (ctx->lane.stream), "download");
  if (rc == 0)
    ctx->staging_pending = 0;
  return rc;
}

/* Runs on a CUDA thread once the stream reaches it: the staged bytes are in. */
static void CUDART_CB
staged_copy_cb (void *data)
{
  NnCudaStagedCopy *copy = (NnCudaStagedCopy *) data;
  memcpy (copy->dst, copy->staged, copy->bytes);
}

static int
cuda_download_async (void *vctx, void *dst, const void *src, size_t bytes)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  cudaPointerAttributes attr;
  int rc;

  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (bytes == 0)
    return NN_BACKEND_OK;
  /* Into pinned memory the copy is truly asynchronous; into pageable memory
   * CUDA would wait for the stream, so small copies go through our pinned
   * staging and a host function moves them once the stream gets there. */
  if (cudaPointerGetAttributes (&attr, dst) == cudaSuccess && attr.type == cudaMemoryTypeHost)
    return _nn_cuda_fail (ctx, cudaMemcpyAsync (dst, src, bytes, cudaMemcpyDeviceToHost,
                                                ctx->lane.stream),
                          "download_async");
  cudaGetLastError ();
  if (bytes > NN_CUDA_STAGING_SLOT_BYTES)
    return _nn_cuda_fail (ctx, cudaMemcpyAsync (dst, src, bytes, cudaMemcpyDeviceToHost,
                                                ctx->lane.stream),
                          "download_async");
  if (ctx->staging_pending >= NN_CUDA_STAGING_SLOTS && !ctx->capturing)
    {
      /* Every slot may still be in flight: let them land before reuse. */
      rc = _nn_cuda_fail (ctx, cudaStreamSynchronize (ctx->lane.stream), "download_async");
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
  if ((rc = _nn_cuda_fail (ctx, cudaMemcpyAsync (staged, src, bytes, cudaMemcpyDeviceToHost,
                                                 ctx->lane.stream),
                           "download_async")) != 0)
    return rc;
  return _nn_cuda_fail (ctx, cudaLaunchHostFunc (ctx->lane.stream, staged_copy_cb, copy),
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
  cudaError_t err = cudaHostAlloc (ptr, bytes > 0 ? bytes : 1, cudaHostAllocDefault);
  if (err != cudaSuccess)
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
  if (ctx->several_devices)
    cudaSetDevice (ctx->device);
  /* cudaFreeHost waits for the device, so no copy still queued reads it. */
  if (cudaFreeHost (ptr) != cudaSuccess)
    cudaGetLastError ();
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
  if ((rc = _nn_cuda_fail (ctx, cudaMemcpyAsync (dst, src, bytes, cudaMemcpyHostToDevice,
                                                 ctx->lane.stream),
                           "upload_async")) != 0)
    return rc;
  return _nn_cuda_fail (ctx, cudaEventRecord (ctx->uploaded, ctx->lane.stream), "upload_async");
}

static int
cuda_upload_wait (void *vctx)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  int rc;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  /* An event never recorded counts as done. */
  return _nn_cuda_fail (ctx, cudaEventSynchronize (ctx->uploaded), "upload_wait");
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
  return _nn_cuda_fail (ctx, cudaMemcpyAsync (dst, src, bytes, cudaMemcpyDeviceToDevice,
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
  rc = _nn_cuda_fail (ctx, cudaStreamSynchronize (ctx->lane.stream), "synchronize");
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
  rc = _nn_cuda_fail (ctx, cudaEventRecord (span->begin, ctx->lane.stream), "timer_begin");
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
  rc = _nn_cuda_fail (ctx, cudaEventRecord (span->end, ctx->lane.stream), "timer_end");
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
      cudaError_t err = cudaEventQuery (span->end);
      if (err == cudaErrorNotReady)
        {
          /* still running: the next read takes it; the answer is no
           * failure for the next op to find */
          if (cudaPeekAtLastError () == cudaErrorNotReady)
            cudaGetLastError ();
          break;
        }
      if (err == cudaSuccess)
        err = cudaEventElapsedTime (&ms, span->begin, span->end);
      if (err != cudaSuccess)
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
  cudaGraph_t graph;     /* owned */
  cudaGraphExec_t exec;  /* owned */
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
                      cudaStreamBeginCapture (ctx->lane.stream, cudaStreamCaptureModeThreadLocal),
                      "capture_begin");
  if (rc == 0)
    ctx->capturing = 1;
  return rc;
}

static int
cuda_capture_end (void *vctx, void **out)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  cudaGraph_t graph = NULL;
  cudaGraphExec_t exec = NULL;
  cudaError_t err;
  int rc;

  *out = NULL;
  if (ctx->lost)
    return NN_BACKEND_DEVICE_LOST;
  if (!ctx->capturing)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "capture_end: not capturing");
  if (ctx->in_branch)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "capture_end: a branch is open");
  if (ctx->several_devices)
    cudaSetDevice (ctx->device);
  ctx->capturing = 0;
  err = cudaStreamEndCapture (ctx->lane.stream, &graph);
  if (err != cudaSuccess)
    {
      if (graph != NULL)
        cudaGraphDestroy (graph);
      return _nn_cuda_fail (ctx, err, "capture_end (an op in the step cannot be captured)");
    }
  err = cudaGraphInstantiate (&exec, graph, 0);
  if (err != cudaSuccess)
    {
      cudaGraphDestroy (graph);
      return _nn_cuda_fail (ctx, err, "capture_end: instantiating the step");
    }
  NnCudaGraph *g = (NnCudaGraph *) malloc (sizeof *g);
  if (g == NULL)
    {
      cudaGraphExecDestroy (exec);
      cudaGraphDestroy (graph);
      return _nn_cuda_fail_msg (ctx, NN_BACKEND_OUT_OF_MEMORY, "capture_end: out of host memory");
    }
  g->graph = graph;
  g->exec = exec;
  /* Upload now so the first launch does not pay for it. */
  rc = _nn_cuda_fail (ctx, cudaGraphUpload (exec, ctx->lane.stream), "capture_end: upload");
  if (rc != 0)
    {
      cudaGraphExecDestroy (exec);
      cudaGraphDestroy (graph);
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
  return _nn_cuda_fail (ctx, cudaGraphLaunch (g->exec, ctx->lane.stream), "graph_launch");
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
      if (ctx->several_devices)
        cudaSetDevice (ctx->device);
      /* A launch still running keeps its own reference; destroying is safe. */
      cudaGraphExecDestroy (g->exec);
      cudaGraphDestroy (g->graph);
      cudaGetLastError ();
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
  if (ctx->several_devices)
    return _nn_cuda_fail (ctx, cudaSetDevice (ctx->device), "cudaSetDevice");
  return NN_BACKEND_OK;
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
    rc = _nn_cuda_fail (ctx, cudaMemsetAsync (ctx->branch.partials, 0, 3 * sizeof (float),
                                              ctx->branch.stream),
                        "branch_begin");
  if (rc == 0 && (st = cublas_warm_up (ctx->branch.cublas, ctx->branch.partials))
                     != CUBLAS_STATUS_SUCCESS)
    rc = _nn_cuda_fail_cublas (ctx, st, "cuBLAS warm-up of the branch");
  if (rc == 0)
    rc = _nn_cuda_fail (ctx, cudaStreamSynchronize (ctx->branch.stream), "branch_begin");
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
  if ((rc = _nn_cuda_fail (ctx, cudaEventRecord (ctx->branch_fork, ctx->lane.stream),
                           "branch_begin"))
          != 0
      || (rc = _nn_cuda_fail (ctx, cudaStreamWaitEvent (ctx->branch.stream, ctx->branch_fork, 0),
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
  cudaError_t recorded = cudaEventRecord (ctx->branch_done, ctx->lane.stream);
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
  return _nn_cuda_fail (ctx, cudaStreamWaitEvent (ctx->lane.stream, ctx->branch_done, 0),
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
  .device_count = cuda_device_count,                  /* cudaGetDeviceCount, the reason when 0 */
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
  /* fused steps (nn-cuda-steps.cu) */
  .step_supported = _nn_cuda_step_supported,          /* by kind, shape and the device */
  .step_run = _nn_cuda_step_run,                      /* the fused ops' launchers, branches */
  /* page-locked host memory */
  .host_alloc = cuda_host_alloc,                      /* cudaHostAlloc */
  .host_free = cuda_host_free,
  .upload_async = cuda_upload_async,                  /* from it, on the stream, no wait */
  .upload_wait = cuda_upload_wait,                    /* until those copies have read it */
  /* device time of the steps (events, read after a synchronize) */
  .timer_begin = cuda_timer_begin,
  .timer_end = cuda_timer_end,
  .timer_read = cuda_timer_read,
};

extern "C" __attribute__ ((visibility ("default"))) const NnBackendOps *
nn_backend_cuda_get (void)
{
  return &cuda_ops;
}
