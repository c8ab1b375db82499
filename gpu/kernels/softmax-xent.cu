/* SPDX-License-Identifier: GPL-3.0-or-later */
/* softmax-xent.cu: the loss op. Softmax cross-entropy from logits (labels or
 * one-hot targets) fused with its gradient, and mean squared error; each adds
 * its summed loss and its count of correct argmax predictions to stats.
 * One warp per row; one atomic pair per block.
 */

#include "nn-cuda-private.h"
#include "launch.cuh"
#include "loss.cuh"

#define LOSS_THREADS 256

__global__ void
loss_kernel (int kind, const float *__restrict__ pred, const int32_t *__restrict__ labels,
             const float *__restrict__ targets, float *__restrict__ grad, float *stats, int n,
             int classes)
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

int
_nn_cuda_loss (void *vctx, int kind, const float *pred, const int32_t *labels,
               const float *targets, float *grad, float *stats, int n, int classes)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  int rc;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (kind < NN_BK_LOSS_SPARSE_XENT || kind > NN_BK_LOSS_MSE || n < 0 || classes <= 0)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "loss: bad arguments");
  if (kind == NN_BK_LOSS_SPARSE_XENT && labels == NULL)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "loss: sparse cross-entropy needs labels");
  if (kind != NN_BK_LOSS_SPARSE_XENT && targets == NULL && labels == NULL)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "loss: needs targets");
  if (n == 0)
    return NN_BACKEND_OK;
  unsigned int blocks = (unsigned int) ((n + LOSS_THREADS / 32 - 1) / (LOSS_THREADS / 32));
  _nn_cuda_launch (ctx, loss_kernel, blocks, LOSS_THREADS, 0, kind, pred, labels, targets, grad,
                   stats, n, classes);
  return _nn_cuda_check_launch (ctx, "loss");
}
