/* SPDX-License-Identifier: GPL-3.0-or-later */
/* softmax-xent.cc: the loss op (kernels/softmax-xent.cu). */

#include "nn-cuda-launch.h"

NN_CUDA_FATBIN (softmax_xent, "softmax-xent.cu")
#include "kernels/softmax-xent.h"

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
  _nn_cuda_launch (ctx, softmax_xent_loss_kernel, blocks, LOSS_THREADS, 0, kind, pred, labels,
                   targets, grad, stats, n, classes);
  return _nn_cuda_check_launch (ctx, "loss");
}
