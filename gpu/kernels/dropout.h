/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dropout.h: the dropout kernel's declaration (kernels/common.h says how). */
#pragma once

#include "kernels/common.h"

NN_KERNEL (dropout_kernel, (float *__restrict__ y, const float *__restrict__ x, uint64_t count,
                            float rate, float scale, uint64_t seed,
                            const int64_t *__restrict__ step))
