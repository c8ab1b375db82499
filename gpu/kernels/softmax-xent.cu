/* softmax-xent.cu: the loss op. Softmax cross-entropy from logits (labels or
 * one-hot targets) fused with its gradient, and mean squared error; each adds
 * its summed loss and its count of correct argmax predictions to stats.
 * One warp per row; one atomic pair per block.
 */

#include "nn-cuda-private.h"
#include "launch.cuh"

#define LOSS_THREADS 256

/* First index of the largest value among the lanes' (value, index) pairs. */
__device__ __forceinline__ void
warp_argmax (float *v, int *idx)
{
  for (int o = 16; o > 0; o >>= 1)
    {
      float ov = __shfl_xor_sync (0xffffffffu, *v, o);
      int oi = __shfl_xor_sync (0xffffffffu, *idx, o);
      if (ov > *v || (ov == *v && oi < *idx) || (*v != *v && ov == ov))
        {
          *v = ov;
          *idx = oi;
        }
    }
}

__device__ __forceinline__ float
target_of (const int32_t *labels, const float *targets, int row, int c, int classes)
{
  if (targets != NULL)
    return targets[(size_t) row * classes + c];
  return labels[row] == c ? 1.0f : 0.0f;
}

__global__ void
loss_kernel (int kind, const float *__restrict__ pred, const int32_t *__restrict__ labels,
             const float *__restrict__ targets, float *__restrict__ grad, float *stats, int n,
             int classes)
{
  nn_kernel_enter ();
  __shared__ float block_loss[LOSS_THREADS / 32];
  __shared__ float block_correct[LOSS_THREADS / 32];
  int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  int row = blockIdx.x * (LOSS_THREADS / 32) + warp;
  float loss = 0.0f, correct = 0.0f;

  if (row < n)
    {
      const float *p = pred + (size_t) row * classes;
      float *g = grad != NULL ? grad + (size_t) row * classes : NULL;
      float inv_n = 1.0f / n;

      /* The prediction's argmax (first maximum) and the true class. */
      float best = -INFINITY;
      int best_i = classes;
      float tbest = -INFINITY;
      int tbest_i = classes;
      for (int c = lane; c < classes; c += 32)
        {
          float v = p[c];
          if (v > best || best_i == classes)
            {
              best = v;
              best_i = c;
            }
          if (kind != NN_BK_LOSS_SPARSE_XENT)
            {
              float t = target_of (labels, targets, row, c, classes);
              if (t > tbest || tbest_i == classes)
                {
                  tbest = t;
                  tbest_i = c;
                }
            }
        }
      warp_argmax (&best, &best_i);
      int truth;
      if (kind == NN_BK_LOSS_SPARSE_XENT)
        truth = labels[row];
      else
        {
          warp_argmax (&tbest, &tbest_i);
          truth = tbest_i;
        }
      correct = best_i == truth ? 1.0f : 0.0f;

      if (kind == NN_BK_LOSS_MSE)
        {
          float s = 0.0f, scale = 2.0f / ((float) classes * n);
          for (int c = lane; c < classes; c += 32)
            {
              float d = p[c] - target_of (labels, targets, row, c, classes);
              s += d * d;
              if (g != NULL)
                g[c] = d * scale;
            }
          for (int o = 16; o > 0; o >>= 1)
            s += __shfl_xor_sync (0xffffffffu, s, o);
          loss = s / classes;
        }
      else
        {
          /* log-sum-exp with the maximum taken out; best is the row maximum. */
          float m = best;
          float sum = 0.0f;
          for (int c = lane; c < classes; c += 32)
            sum += expf (p[c] - m);
          for (int o = 16; o > 0; o >>= 1)
            sum += __shfl_xor_sync (0xffffffffu, sum, o);
          float lse = logf (sum) + m;
          float inv_sum = 1.0f / sum;
          float l = 0.0f;
          for (int c = lane; c < classes; c += 32)
            {
              float t = kind == NN_BK_LOSS_SPARSE_XENT ? (c == truth ? 1.0f : 0.0f)
                                                       : target_of (labels, targets, row, c,
                                                                    classes);
              if (t != 0.0f)
                l += t * (lse - p[c]);
              if (g != NULL)
                g[c] = (expf (p[c] - m) * inv_sum - t) * inv_n;
            }
          for (int o = 16; o > 0; o >>= 1)
            l += __shfl_xor_sync (0xffffffffu, l, o);
          loss = l;
        }
    }
  if (stats == NULL)
    return;
  if (lane == 0)
    {
      block_loss[warp] = loss;
      block_correct[warp] = correct;
    }
  __syncthreads ();
  if (threadIdx.x == 0)
    {
      float l = 0.0f, k = 0.0f;
      for (int w = 0; w < LOSS_THREADS / 32; w++)
        {
          l += block_loss[w];
          k += block_correct[w];
        }
      atomicAdd (&stats[0], l);
      atomicAdd (&stats[1], k);
    }
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
