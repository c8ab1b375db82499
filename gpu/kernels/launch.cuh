/* launch.cuh: how our kernels are launched, and the first thing each one does.
 *
 * A training step is a chain of small dependent kernels (mlp-small: 10 in
 * 29 us on the H200), and much of each one's time is launch latency: the
 * next kernel is only set up once the one before has drained. On sm_90 and
 * newer we launch with programmatic stream serialization (programmatic
 * dependent launch), which lets the GPU set up the next kernel while the
 * current one still runs, in eager streams and in captured graphs alike.
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

static __device__ __forceinline__ void
nn_kernel_enter (void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* kernel<<<grid, block, smem, ctx->stream>>> (args), with the attribute
 * above where the context allows it. Errors are left for
 * _nn_cuda_check_launch, as with <<<>>>. */
template <typename... Params, typename... Args>
static inline void
_nn_cuda_launch (const NnCudaContext *ctx, void (*kernel) (Params...), dim3 grid, dim3 block,
                 size_t smem, Args &&...args)
{
  cudaLaunchAttribute attr;
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  config.stream = ctx->stream;
  config.attrs = &attr;
  config.numAttrs = ctx->dependent_launch ? 1 : 0;
  (void) cudaLaunchKernelEx (&config, kernel, std::forward<Args> (args)...);
}
