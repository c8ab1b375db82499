/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fill.h: the fill kernel's declaration (kernels/common.h says how). */
#pragma once

#include "kernels/common.h"

NN_KERNEL (fill_kernel, (float *__restrict__ dst, float value, uint64_t count))
