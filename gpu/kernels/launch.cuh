/* SPDX-License-Identifier: GPL-3.0-or-later */
/* launch.cuh: the first thing each of our kernels does (device code; the
 * host side of a launch is in nn-cuda-launch.h).
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

#include "kernels/common.h"

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
