/* SPDX-License-Identifier: GPL-3.0-or-later */
/* launch.cuh: how our kernels are launched, and the first thing each one does.
 *
 * A training step is a chain of small dependent kernels (mlp-small: 8 in
 * about 25 us on the H200), and part of each one's time is launch latency:
 * the next kernel is only set up once the one before has drained. On sm_90
 * and newer we launch with programmatic stream serialization (programmatic
 * dependent launch), which lets the GPU set up the next kernel while the
 * current one still runs, in eager streams and in captured graphs alike,
 * which takes a few per cent off the MLPs' steps on the H200.
 *
 * The price is that a kernel so launched may start before the one before it
 * has finished, so every kernel begins with nn_kernel_enter (): it waits
 * until the previous kernel has completed and its writes are visible
 * (griddepcontrol.wait), before it touches any memory, and then lets the
 * kernel after it launch (griddepcontrol.launch_dependents). Kernels of other
 * libraries (cuBLAS, cuDNN) are launched as usual and are ordered as usual.
 * Before sm_90 both instructions compile to nothing and the attribute is not
 * set. TRAINBENCH_CUDA_PDL=0 turns the attribute off, for comparisons.
 */
#pragma once

#include "nn-cuda-private.h"

#include <utility>

/* weights_early: a kernel launched early is set up once the kernel right
 * before it has passed its nn_kernel_enter, and so once every kernel before
 * that one has completed. What only those earlier kernels wrote may thus be
 * read before nn_kernel_enter, the loads in flight while the kernel before
 * finishes. The fused dense kernels (dense-forward.cu, dense-update.cu)
 * read a layer's weights and optimizer state so when the op before theirs
 * did not write them: each op lists what it wrote where it can
 * (NnCudaWrites in the context; an op that does not list is taken to have
 * written anything). In the engine's steps that op is the gather, the layer
 * below's forward or the layer above's backward, and the weights were last
 * written by the previous step's update. */
static __device__ __forceinline__ void
nn_kernel_enter (void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* kernel<<<grid, block, smem, ctx->lane.stream>>> (args), with the attribute
 * above when `early` and the context allows it, in thread-block clusters of
 * `cluster` blocks along x when that is over 1 (sm_90). Errors are left for
 * _nn_cuda_check_launch, as with <<<>>>. */
template <typename... Params, typename... Args>
static inline void
nn_cuda_launch_config (const NnCudaContext *ctx, bool early, unsigned int cluster,
                       void (*kernel) (Params...), dim3 grid, dim3 block, size_t smem,
                       Args &&...args)
{
  cudaLaunchAttribute attrs[2];
  unsigned int count = 0;
  if (early && ctx->dependent_launch)
    {
      attrs[count].id = cudaLaunchAttributeProgrammaticStreamSerialization;
      attrs[count].val.programmaticStreamSerializationAllowed = 1;
      count++;
    }
  if (cluster > 1)
    {
      attrs[count].id = cudaLaunchAttributeClusterDimension;
      attrs[count].val.clusterDim.x = cluster;
      attrs[count].val.clusterDim.y = 1;
      attrs[count].val.clusterDim.z = 1;
      count++;
    }
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  config.stream = ctx->lane.stream;
  config.attrs = attrs;
  config.numAttrs = count;
  (void) cudaLaunchKernelEx (&config, kernel, std::forward<Args> (args)...);
}

/* Launches that may start while the kernel before them finishes. */
template <typename... Params, typename... Args>
static inline void
_nn_cuda_launch (const NnCudaContext *ctx, void (*kernel) (Params...), dim3 grid, dim3 block,
                 size_t smem, Args &&...args)
{
  nn_cuda_launch_config (ctx, true, 1, kernel, grid, block, smem, std::forward<Args> (args)...);
}

/* Launches that start only once the kernel before them has completed: the
 * convolutions, whose grids are sized in waves of blocks over the whole GPU.
 * Started early, they made the cnn step about 3 % slower on the H200; our reading is
 * that their blocks then land on whichever multiprocessors the kernel
 * before frees first, unevenly. They still begin with nn_kernel_enter, so
 * the kernels after them may start early. */
template <typename... Params, typename... Args>
static inline void
_nn_cuda_launch_serial (const NnCudaContext *ctx, void (*kernel) (Params...), dim3 grid,
                        dim3 block, size_t smem, Args &&...args)
{
  nn_cuda_launch_config (ctx, false, 1, kernel, grid, block, smem, std::forward<Args> (args)...);
}

/* Launches in clusters of `cluster` blocks along x (sm_90; 1: no
 * clusters); `early` as for _nn_cuda_launch (true) or
 * _nn_cuda_launch_serial (false). */
template <typename... Params, typename... Args>
static inline void
_nn_cuda_launch_cluster (const NnCudaContext *ctx, bool early, void (*kernel) (Params...),
                         dim3 grid, dim3 block, size_t smem, unsigned int cluster, Args &&...args)
{
  nn_cuda_launch_config (ctx, early, cluster, kernel, grid, block, smem,
                         std::forward<Args> (args)...);
}

/* Lets a kernel use `bytes` of dynamic shared memory (over 48 KiB must be
 * allowed). The allowance only ever grows: plans of other shapes set up
 * the same kernel, and a smaller allowance would fail their launches. */
static inline cudaError_t
nn_cuda_allow_smem (const void *kernel, size_t bytes)
{
  cudaFuncAttributes attr;
  if (bytes <= 48 * 1024)
    return cudaSuccess;
  cudaError_t err = cudaFuncGetAttributes (&attr, kernel);
  if (err != cudaSuccess)
    return err;
  if ((size_t) attr.maxDynamicSharedSizeBytes >= bytes)
    return cudaSuccess;
  return cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int) bytes);
}

/* Whether clusters of `cluster` blocks of `kernel` (`threads` threads,
 * `smem` bytes of dynamic shared memory) can run on the device, its shared
 * memory allowed first; an error here is not sticky and is cleared: the
 * kernel is simply not used. */
static inline bool
nn_cuda_clusters_fit (const void *kernel, unsigned int cluster, unsigned int threads, size_t smem)
{
  if (nn_cuda_allow_smem (kernel, smem) != cudaSuccess)
    {
      (void) cudaGetLastError ();
      return false;
    }
  cudaLaunchAttribute attr;
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = cluster;
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3 (cluster, 1, 1);
  config.blockDim = dim3 (threads);
  config.dynamicSmemBytes = smem;
  config.attrs = &attr;
  config.numAttrs = 1;
  int clusters = 0;
  cudaError_t err = cudaOccupancyMaxActiveClusters (&clusters, kernel, &config);
  if (err != cudaSuccess)
    (void) cudaGetLastError ();
  return err == cudaSuccess && clusters >= 1;
}
