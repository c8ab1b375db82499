/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gather-batch.cc: the gather_batch op (kernels/gather-batch.cu). */

#include "nn-cuda-launch.h"

NN_CUDA_FATBIN (gather_batch, "gather-batch.cu")
#include "kernels/gather-batch.h"

int
_nn_cuda_gather_batch (void *vctx, const uint8_t *images, const uint8_t *labels,
                       const int32_t *indices, const int64_t *step, int steps_per_epoch,
                       int batch_size, int n, int sample_size, float scale, float *x,
                       int32_t *labels_out, float *targets, int classes)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  int rc;
  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (n < 0 || sample_size < 0 || (step != NULL && steps_per_epoch <= 0) || n > 65535
      || (targets != NULL && classes <= 0))
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "gather_batch: bad arguments (n %d)", n);
  if (n == 0)
    return NN_BACKEND_OK;
  int threads = sample_size >= 256 ? 256 : 128;
  dim3 grid ((unsigned int) ((sample_size + threads * 4 - 1) / (threads * 4)), (unsigned int) n);
  if (grid.x == 0)
    grid.x = 1;
  _nn_cuda_launch (ctx, gather_batch_kernel, grid, threads, 0, images, labels, indices, step,
                   steps_per_epoch, batch_size, sample_size, scale, x, labels_out, targets,
                   classes);
  const void *at[] = { x, labels_out, targets };
  const size_t bytes[] = { (size_t) n * sample_size * sizeof (float), (size_t) n * sizeof (int32_t),
                           (size_t) n * classes * sizeof (float) };
  _nn_cuda_writes_only (ctx, 3, at, bytes);
  return _nn_cuda_check_launch (ctx, "gather_batch");
}
