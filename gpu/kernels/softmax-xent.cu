/* SPDX-License-Identifier: GPL-3.0-or-later */
/* softmax-xent.cu: the loss op's kernel (launched by ops/softmax-xent.cc).
 * Softmax cross-entropy from logits (labels or one-hot targets) fused with
 * its gradient, and mean squared error; each adds its summed loss and its
 * count of correct argmax predictions to stats. One warp per row; one atomic
 * pair per block.
 */

#include "kernels/softmax-xent.h"
#include "kernels/launch.cuh"
#include "kernels/loss.cuh"

extern "C" __global__ void
softmax_xent_loss_kernel (int kind, const float *__restrict__ pred,
                          const int32_t *__restrict__ labels, const float *__restrict__ targets,
                          float *__restrict__ grad, float *stats, int n, int classes)
{
  nn_kernel_enter ();
  int row = blockIdx.x * (LOSS_THREADS / 32) + (threadIdx.x >> 5);
  float loss = 0.0f, correct = 0.0f;
  if (row < n)
    loss = loss_row (kind, pred + (size_t) row * classes, labels != NULL ? labels[row] : -1,
                     targets != NULL ? targets + (size_t) row * classes : NULL, n, classes,
                     grad != NULL ? grad + (size_t) row * classes : NULL, &correct);
  if (stats != NULL)
    add_block_stats<LOSS_THREADS / 32> (loss, correct, stats);
}
