/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gather-batch.cu: build a batch from the data set resident on the device.
 *
 * The epoch's permutation stays in one device buffer; the step counter,
 * read on the device, picks the batch (indices + (step % steps_per_epoch) *
 * batch_size), so the same captured step replays through the whole epoch.
 */

#include "nn-cuda-private.h"
#include "launch.cuh"

#include <stdint.h>

/* grid (x: chunks of a sample, y: batch rows). */
__global__ void
gather_kernel (const uint8_t *__restrict__ images, const uint8_t *__restrict__ labels,
               const int32_t *__restrict__ indices, const int64_t *__restrict__ step,
               int steps_per_epoch, int batch_size, int sample_size, float scale,
               float *__restrict__ x, int32_t *__restrict__ labels_out,
               float *__restrict__ targets, int classes)
{
  nn_kernel_enter ();
  int row = blockIdx.y;
  size_t offset = 0;
  if (step != NULL)
    offset = (size_t) (*step % steps_per_epoch) * batch_size;
  int src = indices[offset + row];
  const uint8_t *in = images + (size_t) src * sample_size;
  float *out = x + (size_t) row * sample_size;
  if (sample_size % 4 == 0 && (uintptr_t) in % 4 == 0 && (uintptr_t) out % 16 == 0)
    {
      /* Four pixels a load: for a 28 x 28 image one load per thread, where
       * the byte loop made each thread wait on three loads in turn. */
      const uchar4 *in4 = (const uchar4 *) in;
      float4 *out4 = (float4 *) out;
      for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < sample_size / 4;
           i += gridDim.x * blockDim.x)
        {
          uchar4 v = in4[i];
          out4[i] = make_float4 (v.x * scale, v.y * scale, v.z * scale, v.w * scale);
        }
    }
  else
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < sample_size;
         i += gridDim.x * blockDim.x)
      out[i] = in[i] * scale;
  if (blockIdx.x == 0)
    {
      int label = labels[src];
      if (threadIdx.x == 0 && labels_out != NULL)
        labels_out[row] = label;
      if (targets != NULL)
        for (int c = threadIdx.x; c < classes; c += blockDim.x)
          targets[(size_t) row * classes + c] = c == label ? 1.0f : 0.0f;
    }
}

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
  _nn_cuda_launch (ctx, gather_kernel, grid, threads, 0, images, labels, indices, step,
                   steps_per_epoch, batch_size, sample_size, scale, x, labels_out, targets,
                   classes);
  const void *at[] = { x, labels_out, targets };
  const size_t bytes[] = { (size_t) n * sample_size * sizeof (float), (size_t) n * sizeof (int32_t),
                           (size_t) n * classes * sizeof (float) };
  _nn_cuda_writes_only (ctx, 3, at, bytes);
  return _nn_cuda_check_launch (ctx, "gather_batch");
}
