/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-cuda-launch.h: how the host side of the module names and launches the
 * kernels of gpu/kernels/.
 *
 * The kernels are built by nvcc into one fatbin per file of gpu/kernels/
 * (cubins for each architecture of gpu_arch and the newest one's PTX),
 * which the module embeds and the driver loads once per process
 * (cuLibraryLoadData: context-independent, so every context of every GPU
 * shares it). Each kernel has a C name there: a plain kernel its own, each
 * instance of a templated kernel its family's name with its template values,
 * "conv_tc_forward_kernel_64_1_0_0" (NN_KERNEL_NAME4 in kernels/common.h).
 * The host refers to a kernel by an NnCudaKernel, which holds that name and the kernel's parameter types as the device declares
 * them, and launches it through _nn_cuda_launch and its two siblings below,
 * which convert each argument to its parameter's type (so a size_t handed
 * to an int parameter is converted, never passed as the wrong bytes),
 * launch with cuLaunchKernelEx and check the launch: a failure is recorded
 * in the context with the kernel's name, and _nn_cuda_check_launch returns
 * it.
 *
 * On sm_90 and newer our kernels are launched with programmatic stream
 * serialization (programmatic dependent launch): the GPU sets up the next
 * kernel while the current one still runs, which takes a few per cent off
 * the MLPs' steps on the H200 (each kernel waits in nn_kernel_enter until
 * the one before has completed; kernels/launch.cuh says why that is safe).
 * TRAINBENCH_CUDA_PDL=0 turns it off, for comparisons.
 */
#pragma once

#include "nn-cuda-private.h"

#include <atomic>
#include <stdint.h>
#include <utility>

/* One file's kernels, embedded (gpu/meson.build generates the arrays). */
typedef struct
{
  const unsigned char *data;
  const uint64_t *size;
  const char *file;         /* "bias-act.cu", for messages */
  std::atomic<CUlibrary> library; /* loaded on first use */
} NnCudaFatbin;

/* The fatbin of gpu/kernels/FILE (STEM: its stem with '_' for '-'), as
 * `nn_fatbin`, in the host file that launches its kernels: each host file of
 * gpu/ops/ launches the kernels of the one file of kernels/ named as it is,
 * declared by that file's header. */
#define NN_CUDA_FATBIN(stem, file)                                                                 \
  extern "C" const unsigned char _nn_cuda_fatbin_##stem[];                                         \
  extern "C" const uint64_t _nn_cuda_fatbin_##stem##_size;                                         \
  static NnCudaFatbin nn_fatbin = { _nn_cuda_fatbin_##stem, &_nn_cuda_fatbin_##stem##_size,        \
                                    file, {} };

template <typename Signature> struct NnCudaKernel;

/* A kernel taking Params... (the device's declaration, in the same order),
 * named `name` and, for an instance of a templated kernel, its `count`
 * template values. */
template <typename... Params> struct NnCudaKernel<void (Params...)>
{
  NnCudaFatbin *fatbin;
  const char *name;
  int values[4];
  int count;
  mutable std::atomic<CUkernel> kernel; /* found on first use */
};

/* The kernel of `k` (its library loaded, its name looked up on first use),
 * or NULL with the failure recorded in ctx. */
CUkernel _nn_cuda_kernel_find (NnCudaContext *ctx, NnCudaFatbin *fatbin, const char *name,
                               const int *values, int count, std::atomic<CUkernel> *cache);

template <typename... Params>
static inline CUkernel
nn_cuda_kernel (NnCudaContext *ctx, const NnCudaKernel<void (Params...)> &k)
{
  CUkernel f = k.kernel.load (std::memory_order_acquire);
  return f != NULL ? f : _nn_cuda_kernel_find (ctx, k.fatbin, k.name, k.values, k.count, &k.kernel);
}

/* Records a failed launch of `k` for _nn_cuda_check_launch. */
void _nn_cuda_launch_failed (NnCudaContext *ctx, CUresult err, const char *name,
                             const int *values, int count);

/* The launch itself: `params` points at each argument, converted. */
CUresult _nn_cuda_launch_raw (NnCudaContext *ctx, CUkernel kernel, bool early,
                              unsigned int cluster, dim3 grid, dim3 block, size_t smem,
                              void **params);

/* k<<<grid, block, smem, ctx->lane.stream>>> (args), set up early when
 * `early` and the context allows it, in thread-block clusters of `cluster`
 * blocks along x when that is over 1 (sm_90). */
template <typename... Params, typename... Args>
static inline void
nn_cuda_launch_config (NnCudaContext *ctx, bool early, unsigned int cluster,
                       const NnCudaKernel<void (Params...)> &k, dim3 grid, dim3 block, size_t smem,
                       Args &&...args)
{
  static_assert (sizeof... (Params) == sizeof... (Args),
                 "a kernel is launched with as many arguments as it has parameters");
  CUkernel kernel = nn_cuda_kernel (ctx, k);
  if (kernel == NULL)
    {
      /* not in the fatbin, or the fatbin did not load: a failed launch */
      _nn_cuda_launch_failed (ctx, CUDA_ERROR_NOT_FOUND, k.name, k.values, k.count);
      return;
    }
  /* each argument as its parameter's type, in memory the launch reads */
  auto launch = [&] (Params... p) {
    void *params[] = { NULL, (void *) &p... };
    return _nn_cuda_launch_raw (ctx, kernel, early, cluster, grid, block, smem, params + 1);
  };
  CUresult err = launch (std::forward<Args> (args)...);
  if (err != CUDA_SUCCESS)
    _nn_cuda_launch_failed (ctx, err, k.name, k.values, k.count);
}

/* Launches that may start while the kernel before them finishes. */
template <typename... Params, typename... Args>
static inline void
_nn_cuda_launch (NnCudaContext *ctx, const NnCudaKernel<void (Params...)> &k, dim3 grid,
                 dim3 block, size_t smem, Args &&...args)
{
  nn_cuda_launch_config (ctx, true, 1, k, grid, block, smem, std::forward<Args> (args)...);
}

/* Launches that start only once the kernel before them has completed: the
 * convolutions, whose grids are sized in waves of blocks over the whole GPU.
 * Started early, they made the cnn step about 3 % slower on the H200; our
 * reading is that their blocks then land on whichever multiprocessors the
 * kernel before frees first, unevenly. They still begin with
 * nn_kernel_enter, so the kernels after them may start early. */
template <typename... Params, typename... Args>
static inline void
_nn_cuda_launch_serial (NnCudaContext *ctx, const NnCudaKernel<void (Params...)> &k, dim3 grid,
                        dim3 block, size_t smem, Args &&...args)
{
  nn_cuda_launch_config (ctx, false, 1, k, grid, block, smem, std::forward<Args> (args)...);
}

/* Launches in clusters of `cluster` blocks along x (sm_90; 1: no
 * clusters); `early` as for _nn_cuda_launch (true) or
 * _nn_cuda_launch_serial (false). */
template <typename... Params, typename... Args>
static inline void
_nn_cuda_launch_cluster (NnCudaContext *ctx, bool early, const NnCudaKernel<void (Params...)> &k,
                         dim3 grid, dim3 block, size_t smem, unsigned int cluster, Args &&...args)
{
  nn_cuda_launch_config (ctx, early, cluster, k, grid, block, smem, std::forward<Args> (args)...);
}

/* Lets a kernel use `bytes` of dynamic shared memory on the context's
 * device (over 48 KiB must be allowed). The allowance only ever grows:
 * plans of other shapes set up the same kernel, and a smaller allowance
 * would fail their launches. */
CUresult _nn_cuda_allow_smem_raw (NnCudaContext *ctx, CUkernel kernel, size_t bytes);

template <typename... Params>
static inline CUresult
nn_cuda_allow_smem (NnCudaContext *ctx, const NnCudaKernel<void (Params...)> &k, size_t bytes)
{
  CUkernel kernel = nn_cuda_kernel (ctx, k);
  return kernel != NULL ? _nn_cuda_allow_smem_raw (ctx, kernel, bytes) : CUDA_ERROR_NOT_FOUND;
}

/* Whether clusters of `cluster` blocks of the kernel (`threads` threads,
 * `smem` bytes of dynamic shared memory) can run on the context's device,
 * its shared memory allowed first. A kernel that cannot is simply not
 * used: no failure is left in the context. */
bool _nn_cuda_clusters_fit_raw (NnCudaContext *ctx, CUkernel kernel, unsigned int cluster,
                                unsigned int threads, size_t smem);

template <typename... Params>
static inline bool
nn_cuda_clusters_fit (NnCudaContext *ctx, const NnCudaKernel<void (Params...)> &k,
                      unsigned int cluster, unsigned int threads, size_t smem)
{
  CUkernel kernel = nn_cuda_kernel (ctx, k);
  return kernel != NULL && _nn_cuda_clusters_fit_raw (ctx, kernel, cluster, threads, smem);
}
