/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dense-update.h: the kernels of a dense layer's backward with the
 * optimizer's update (kernels/dense-update.cu), their geometry and their
 * arguments, as the launcher (ops/dense-update.cc) fills them in;
 * kernels/common.h says how they are declared.
 */
#pragma once

#include "kernels/below.h"
#include "kernels/common.h"
#include "kernels/opt-args.h"

#include <stdint.h>

#define DU_KC 32 /* batch rows per pass through shared memory */

struct DenseUpdate
{
  int act, n, in, out;
  const float *x;  /* (n, in) */
  const float *y;  /* (n, out): the activation's output, for its derivative */
  const float *dy; /* (n, out) */
  float *w, *bias; /* bias may be NULL */
  float *w_s0, *w_s1, *b_s0, *b_s1; /* state slots 0 and 1 */
  float *dx; /* NULL; (n, in); or (column tiles, n, in) partial sums (the wide kernel) */
  Below below; /* applied where dx is whole */
  float rate, scale;
  uint64_t seed;
  int64_t *step;
  unsigned int *done; /* not NULL: store t into *step (the step's last update) */
  int early;   /* w and its state may be read before the kernel before has finished */
  int x_early; /* x and the layer below's y too (only with early) */
};

/* The wide kernel's tile of w (dense_update_wide_kernel): DW_ROWS inputs
 * by DW_COLS outputs, 256 threads. */
#define DW_ROWS 16
#define DW_COLS 64

/* The tensor-core kernel's (dense_update_tc_kernel): a DT_TILE square of w,
 * DT_THREADS threads. */
#define DT_TILE 64
#define DT_THREADS 512
static_assert (DT_TILE == DW_COLS, "both wide kernels leave partial sums of 64 outputs");

/* The narrow kernel (dense_update_narrow_kernel): at most DN_OUT outputs;
 * a block owns DN_INPUTS rows of w, its threads in DN_GROUPS groups. */
#define DN_OUT 16
#define DN_INPUTS 32
#define DN_GROUPS 8
#define DN_ROWS (DU_KC / DN_GROUPS)
#define DN_UPDATES (DN_OUT / DN_GROUPS)
#define DN_THREADS (DN_INPUTS * DN_GROUPS)
static_assert (DN_ROWS * DN_GROUPS == DU_KC && DN_UPDATES * DN_GROUPS == DN_OUT,
               "the groups split a pass's rows and the outputs' updates evenly");

/* The update kernels' instances: KIND the optimizer (NN_BK_OPT_*); VEC 1
 * where w and its first state slot are read as float4, V1 the second
 * slot's vector width then (4, 2 or 1; with VEC 0 always 1). */
NN_KERNEL_FAMILY (dense_update_wide_kernel, (DenseUpdate d, OptArgs o))  /* <KIND, VEC, V1> */
NN_KERNEL_FAMILY (dense_update_tc_kernel, (DenseUpdate d, OptArgs o))    /* <KIND, VEC, V1> */
NN_KERNEL_FAMILY (dense_update_narrow_kernel, (DenseUpdate d, OptArgs o)) /* <KIND> */
NN_KERNEL (dense_update_dx_kernel,
           (const float *__restrict__ partials, float *__restrict__ dx, uint64_t count, int tiles,
            Below below, const int64_t *__restrict__ step_at))
