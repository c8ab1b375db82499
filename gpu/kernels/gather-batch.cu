/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gather-batch.cu: build a batch from the data set resident on the device
 * (launched by ops/gather-batch.cc).
 *
 * The epoch's permutation stays in one device buffer; the step counter,
 * read on the device, picks the batch (indices + (step % steps_per_epoch) *
 * batch_size), so the same captured step replays through the whole epoch.
 */

#include "kernels/gather-batch.h"
#include "kernels/launch.cuh"

#include <stdint.h>

/* grid (x: chunks of a sample, y: batch rows). */
extern "C" __global__ void
gather_batch_kernel (const uint8_t *__restrict__ images, const uint8_t *__restrict__ labels,
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
