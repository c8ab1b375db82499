/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gather-batch.h: the gather kernel's declaration (kernels/common.h says how). */
#pragma once

#include "kernels/common.h"

NN_KERNEL (gather_batch_kernel,
           (const uint8_t *__restrict__ images, const uint8_t *__restrict__ labels,
            const int32_t *__restrict__ indices, const int64_t *__restrict__ step,
            int steps_per_epoch, int batch_size, int sample_size, float scale,
            float *__restrict__ x, int32_t *__restrict__ labels_out,
            float *__restrict__ targets, int classes))
