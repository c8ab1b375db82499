/* SPDX-License-Identifier: GPL-3.0-or-later */
/* optimizer.h: the update kernels over the parameter arena (optimizer.cu),
 * declared for both sides (kernels/common.h says how).
 */
#pragma once

#include "kernels/common.h"
#include "kernels/opt-args.h"

#include <stdint.h>

/* Elements per thread per pass of optimizer_kernel: their loads are issued
 * together. */
#define OPT_ILP 4

/* optimizer_kernel<KIND> and optimizer_vec_kernel<KIND, V_VEC>, KIND an
 * NN_BK_OPT_* number. */
NN_KERNEL_FAMILY (optimizer_kernel,
                  (OptArgs o, float *__restrict__ params, const float *__restrict__ grads,
                   float *__restrict__ state, uint64_t count, uint64_t state_stride,
                   int64_t *step, unsigned int *__restrict__ done))
NN_KERNEL_FAMILY (optimizer_vec_kernel,
                  (OptArgs o, float *__restrict__ params, const float *__restrict__ grads,
                   float *__restrict__ state, uint64_t count, uint64_t state_stride,
                   int64_t *step, unsigned int *__restrict__ done, int early))
