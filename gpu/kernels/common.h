/* SPDX-License-Identifier: GPL-3.0-or-later */
/* common.h: what the kernels (built by nvcc into the module's fatbins) and
 * the host code that launches them (built by gcc or mingw-w64) agree on:
 * the context's scratch sizes, and how a kernel is declared.
 *
 * Each file of kernels/ has a header of its own (kernels/NAME.h) that
 * declares its kernels once, with NN_KERNEL or NN_KERNEL_FAMILY, and the
 * structs and constants its kernels and their launchers share. Included by
 * the kernels, a declaration is the kernel's C name (extern "C", so the host
 * can look it up in the fatbin); included by the launchers (gpu/ops/), it is
 * an NnCudaKernel with the same parameter list (nn-cuda-launch.h), so the
 * two cannot disagree on a parameter. Everything shared uses fixed-width
 * types: the device code is built on Linux (LP64), the host code for
 * Windows too (LLP64, where long has 32 bits).
 */
#pragma once

#include <stdint.h>

/* Device scratch kept by each lane of a context, used between the kernels of one op. */
#define NN_CUDA_PARTIALS (1 << 16)   /* floats for two-pass reductions */
#define NN_CUDA_DX_PARTIALS (1 << 20) /* floats: dense_backward_update's input-gradient partials */
#define NN_CUDA_COUNTERS 16          /* last-block-done counters, zero between ops */
#define NN_CUDA_COUNTER_OPTIMIZER 0

/* The longest C name a kernel is given, its end included. */
#define NN_CUDA_KERNEL_NAME_MAX 96

#ifdef __CUDACC__
/* inline helpers both sides call */
#define NN_HD __host__ __device__
/* NN_KERNEL (name, (params)): a kernel with that C name */
#define NN_KERNEL(name, params) extern "C" __global__ void name params;
/* NN_KERNEL_FAMILY (name, (params)): a templated kernel whose instances,
 * defined in its .cu with NN_KERNEL_NAME, all take these parameters */
#define NN_KERNEL_FAMILY(name, params)
#else
#define NN_HD
#define NN_KERNEL(name, params)                                                                    \
  [[maybe_unused]] static const NnCudaKernel<void params> name = { &nn_fatbin, #name, {}, 0, {} };
/* name<V...>: the instance with template values V... */
#define NN_KERNEL_FAMILY(name, params)                                                             \
  template <int... V>                                                                              \
  [[maybe_unused]] static const NnCudaKernel<void params> name                                     \
    = { &nn_fatbin, #name, { V... }, (int) sizeof... (V), {} };
#endif

/* The C name of a templated kernel's instance: the family's name and its
 * template values (bools as 0 or 1), joined by '_', as the host's
 * NnCudaKernel forms it: NN_KERNEL_NAME4 (conv_tc_forward_kernel, 64, 1, 0, 0)
 * is conv_tc_forward_kernel_64_1_0_0. */
#define NN_KERNEL_NAME1(name, a) name##_##a
#define NN_KERNEL_NAME2(name, a, b) name##_##a##_##b
#define NN_KERNEL_NAME3(name, a, b, c) name##_##a##_##b##_##c
#define NN_KERNEL_NAME4(name, a, b, c, d) name##_##a##_##b##_##c##_##d
