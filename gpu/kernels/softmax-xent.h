/* SPDX-License-Identifier: GPL-3.0-or-later */
/* softmax-xent.h: the loss kernel's declaration and block size
 * (kernels/common.h says how).
 */
#pragma once

#include "kernels/common.h"

#define LOSS_THREADS 256

NN_KERNEL (softmax_xent_loss_kernel,
           (int kind, const float *__restrict__ pred, const int32_t *__restrict__ labels,
            const float *__restrict__ targets, float *__restrict__ grad, float *stats, int n,
            int classes))
