/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-cuda-launch.cc: the embedded fatbins loaded, kernels found by name,
 * and the one launch every kernel goes through (nn-cuda-launch.h).
 */

#include "nn-cuda-launch.h"

#include <mutex>
#include <stdio.h>
#include <string.h>

/* Loading a library and looking a kernel up happen once per process for
 * each; the lock only guards that first time. */
static std::mutex find_lock;

/* "name" or "name_64_1_0_0". */
static void
kernel_name (char *out, size_t size, const char *name, const int *values, int count)
{
  size_t used = (size_t) snprintf (out, size, "%s", name);
  for (int i = 0; i < count && used < size; i++)
    used += (size_t) snprintf (out + used, size - used, "_%d", values[i]);
}

CUkernel
_nn_cuda_kernel_find (NnCudaContext *ctx, NnCudaFatbin *fatbin, const char *name,
                      const int *values, int count, std::atomic<CUkernel> *cache)
{
  char full[NN_CUDA_KERNEL_NAME_MAX];
  std::lock_guard<std::mutex> hold (find_lock);
  CUkernel kernel = cache->load (std::memory_order_relaxed);
  if (kernel != NULL)
    return kernel;

  CUlibrary library = fatbin->library.load (std::memory_order_relaxed);
  CUresult err;
  if (library == NULL)
    {
      /* a fatbin with no code this GPU runs (no cubin of its architecture,
       * no PTX it can compile) fails here, naming its file */
      err = nn_cu::cuLibraryLoadData (&library, fatbin->data, NULL, NULL, 0, NULL, NULL, 0);
      if (err != CUDA_SUCCESS)
        {
          _nn_cuda_fail (ctx, err, fatbin->file);
          return NULL;
        }
      fatbin->library.store (library, std::memory_order_relaxed);
    }
  kernel_name (full, sizeof full, name, values, count);
  err = nn_cu::cuLibraryGetKernel (&kernel, library, full);
  if (err != CUDA_SUCCESS)
    {
      char what[200];
      snprintf (what, sizeof what, "kernel %s of %s", full, fatbin->file);
      _nn_cuda_fail (ctx, err, what);
      return NULL;
    }
  cache->store (kernel, std::memory_order_release);
  return kernel;
}

void
_nn_cuda_launch_failed (NnCudaContext *ctx, CUresult err, const char *name, const int *values,
                        int count)
{
  if (ctx->launch_error != CUDA_SUCCESS)
    return; /* the first failure is the one to report */
  ctx->launch_error = err;
  kernel_name (ctx->launch_kernel, sizeof ctx->launch_kernel, name, values, count);
}

CUresult
_nn_cuda_launch_raw (NnCudaContext *ctx, CUkernel kernel, bool early, unsigned int cluster,
                     dim3 grid, dim3 block, size_t smem, void **params)
{
  CUlaunchAttribute attrs[2];
  unsigned int count = 0;
  memset (attrs, 0, sizeof attrs);
  if (early && ctx->dependent_launch)
    {
      attrs[count].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      attrs[count].value.programmaticStreamSerializationAllowed = 1;
      count++;
    }
  if (cluster > 1)
    {
      attrs[count].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attrs[count].value.clusterDim.x = cluster;
      attrs[count].value.clusterDim.y = 1;
      attrs[count].value.clusterDim.z = 1;
      count++;
    }
  CUlaunchConfig config;
  memset (&config, 0, sizeof config);
  config.gridDimX = grid.x;
  config.gridDimY = grid.y;
  config.gridDimZ = grid.z;
  config.blockDimX = block.x;
  config.blockDimY = block.y;
  config.blockDimZ = block.z;
  config.sharedMemBytes = (unsigned int) smem;
  config.hStream = ctx->lane.stream;
  config.attrs = attrs;
  config.numAttrs = count;
  /* a CUkernel launches in the current context, which _nn_cuda_enter made
   * the context's own */
  return nn_cu::cuLaunchKernelEx (&config, (CUfunction) kernel, params, NULL);
}

int
_nn_cuda_check_launch (NnCudaContext *ctx, const char *what)
{
  if (ctx->launch_error == CUDA_SUCCESS)
    return NN_BACKEND_OK;
  char full[256];
  snprintf (full, sizeof full, "%s (kernel %s)", what, ctx->launch_kernel);
  CUresult err = ctx->launch_error;
  ctx->launch_error = CUDA_SUCCESS;
  return _nn_cuda_fail (ctx, err, full);
}

CUresult
_nn_cuda_allow_smem_raw (NnCudaContext *ctx, CUkernel kernel, size_t bytes)
{
  int allowed = 0;
  if (bytes <= 48 * 1024)
    return CUDA_SUCCESS;
  CUresult err = nn_cu::cuKernelGetAttribute (&allowed,
                                              CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                              kernel, ctx->cu_device);
  if (err != CUDA_SUCCESS)
    return err;
  if ((size_t) allowed >= bytes)
    return CUDA_SUCCESS;
  return nn_cu::cuKernelSetAttribute (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int) bytes,
                                      kernel, ctx->cu_device);
}

bool
_nn_cuda_clusters_fit_raw (NnCudaContext *ctx, CUkernel kernel, unsigned int cluster,
                           unsigned int threads, size_t smem)
{
  CUfunction function = NULL;
  if (_nn_cuda_allow_smem_raw (ctx, kernel, smem) != CUDA_SUCCESS
      || nn_cu::cuKernelGetFunction (&function, kernel) != CUDA_SUCCESS)
    return false;
  CUlaunchAttribute attr;
  memset (&attr, 0, sizeof attr);
  attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attr.value.clusterDim.x = cluster;
  attr.value.clusterDim.y = 1;
  attr.value.clusterDim.z = 1;
  CUlaunchConfig config;
  memset (&config, 0, sizeof config);
  config.gridDimX = cluster;
  config.gridDimY = 1;
  config.gridDimZ = 1;
  config.blockDimX = threads;
  config.blockDimY = 1;
  config.blockDimZ = 1;
  config.sharedMemBytes = (unsigned int) smem;
  config.attrs = &attr;
  config.numAttrs = 1;
  int clusters = 0;
  return nn_cu::cuOccupancyMaxActiveClusters (&clusters, function, &config) == CUDA_SUCCESS
         && clusters >= 1;
}
