/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dense-forward.cc: the fused dense forward in one kernel on TF32 tensor
 * cores (kernels/dense-forward.cu says how): whether a device and a product
 * take it, and its launch.
 */

#include "nn-cuda-launch.h"

NN_CUDA_FATBIN (dense_forward, "dense-forward.cu")
#include "kernels/dense-forward.h"

/* Two tile widths: 64 outputs a block, or 32 where 64-wide tiles would
 * leave most multiprocessors idle (mlp-small's 128 outputs: 16 blocks).
 * In a replayed graph on the H200, 64-wide tiles suit mlp-wide's layers
 * and 32-wide ones took about 8 % off mlp-small's step. DF_STAGES = 5
 * holds a whole k slice of those layers (784 or 1000 over eight ranks), so
 * all of its copies are in flight at once (four stages were the same
 * within the noise). */
struct DfVariant
{
  const NnCudaKernel<void (DenseCluster)> *kernel;
  int bn;
  size_t smem;
};
static const DfVariant df_wide = { &dense_cluster_kernel<64>, 64, DfShape<64>::SMEM };
static const DfVariant df_narrow = { &dense_cluster_kernel<32>, 32, DfShape<32>::SMEM };

static bool
df_ready (NnCudaContext *ctx, const DfVariant &v)
{
  return nn_cuda_clusters_fit (ctx, *v.kernel, DF_SPLIT, DF_THREADS, v.smem);
}

int
_nn_cuda_dense_cluster_setup (NnCudaContext *ctx)
{
  return ctx->compute_major >= 9 && df_ready (ctx, df_wide) && df_ready (ctx, df_narrow);
}

/* Batches of up to two row tiles: for the cnn's 256 x 9216 -> 128 the
 * kernel took over twice cuBLAS' time, each block walking a k slice of
 * 1152 in 36 stages. */
int
_nn_cuda_dense_cluster_fits (const NnCudaContext *ctx, int n, int in, int out, const float *x,
                             const float *w)
{
  return ctx->dense_clusters && ctx->tf32 && n <= 2 * DF_BM && in % 4 == 0 && out % 4 == 0
         && (uintptr_t) x % 16 == 0 && (uintptr_t) w % 16 == 0 && out / 32 < 65535;
}

int
_nn_cuda_dense_forward_cluster (NnCudaContext *ctx, int n, int in, int out, const float *x,
                                const float *w, float *y, const Epilogue &e)
{
  int wide_blocks = (out + 63) / 64 * DF_SPLIT;
  const DfVariant &v = 2 * wide_blocks >= ctx->multiprocessors ? df_wide : df_narrow;
  int per_rank = (in + DF_SPLIT - 1) / DF_SPLIT;
  DenseCluster d = { n, in, out, (per_rank + DF_KS - 1) / DF_KS * DF_KS, x, w, y, e,
                     _nn_cuda_untouched (ctx, w, (size_t) in * out * sizeof (float)) };
  dim3 grid (DF_SPLIT, (out + v.bn - 1) / v.bn, (n + DF_BM - 1) / DF_BM);
  _nn_cuda_launch_cluster (ctx, true, *v.kernel, grid, DF_THREADS, v.smem, DF_SPLIT, d);
  return _nn_cuda_check_launch (ctx, "dense_forward (cluster)");
}
