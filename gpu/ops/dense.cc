/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dense.cc: row-major matrix products on cuBLAS and our own kernels
 * (kernels/dense.cu), and the fused dense ops built on them.
 *
 * cuBLAS is column-major; a row-major (m, n) matrix with row stride ld is
 * the column-major (n, m) matrix with leading dimension ld. So
 * C = op(A) op(B) (row-major) is C^T = op(B)^T op(A)^T (column-major): the
 * same call with the operands swapped and m and n exchanged.
 */

#include "nn-cuda-launch.h"

#include <stdio.h>

NN_CUDA_FATBIN (dense, "dense.cu")
#include "kernels/dense.h"

/* The cluster kernel for `out` outputs (at most SMALL_N_MAX). */
static const NnCudaKernel<void (SmallN, LossArgs, int)> *
loss_dx_cluster_kernel (int out)
{
  return out <= 4    ? &dense_loss_dx_cluster_kernel<4>
         : out <= 8  ? &dense_loss_dx_cluster_kernel<8>
         : out <= 12 ? &dense_loss_dx_cluster_kernel<12>
                     : &dense_loss_dx_cluster_kernel<16>;
}

int
_nn_cuda_loss_cluster_setup (NnCudaContext *ctx)
{
  if (ctx->compute_major < 9)
    return 0;
  for (int out = 4; out <= SMALL_N_MAX; out += 4)
    if (!nn_cuda_clusters_fit (ctx, *loss_dx_cluster_kernel (out), LDX_CLUSTER, LDX_THREADS, 0))
      return 0;
  return 1;
}

static SmallN
small_n_args (int trans_a, int trans_b, int m, int n, int k, float alpha, const float *a, int lda,
              const float *b, int ldb, float beta, float *c, int ldc, float *colsum,
              const Epilogue &e, unsigned int *blocks)
{
  /* warps sharing a row's sum: each lane's chain of loads and multiply-adds
   * is the kernel's length (mlp-wide's 32 x 1000 -> 10 with the loss: 8
   * warps a row rather than 4 took about 1.5 us off the step; the 128 ->
   * 10 output layers with the loss, 8 rather than 2: mlp-small's step and
   * the cnn's epoch a few per cent shorter) */
  int split = k >= 128 ? 8 : k >= 64 ? 4 : k >= 32 ? 2 : 1;
  int rows_per_block = 8 / split;
  int rows = m + (colsum != NULL);
  *blocks = (unsigned int) ((rows + rows_per_block - 1) / rows_per_block);
  return SmallN{ { trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc }, split, colsum,
                 e };
}

static int
launch_small_n (NnCudaContext *ctx, int trans_a, int trans_b, int m, int n, int k, float alpha,
                const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc,
                float *colsum, const Epilogue &e, const char *what)
{
  unsigned int blocks;
  SmallN g = small_n_args (trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, colsum,
                           e, &blocks);
  _nn_cuda_launch (ctx, gemm_small_n_kernel, blocks, 256, 0, g);
  return _nn_cuda_check_launch (ctx, what);
}

/* Products with a short sum (k <= 64: a dense layer's weight gradient over
 * a batch of 32, or the input gradient of a 10-class layer) and a small
 * output go to the small-k kernel (kernels/dense.cu): cuBLAS again splits
 * or picks a tile too big for them. */
#define SMALL_K_MAX 64
#define SMALL_K_OUTPUTS (1 << 18)

static int
small_k_fits (int m, int n, int k)
{
  return k >= 1 && k <= SMALL_K_MAX && (size_t) m * n <= SMALL_K_OUTPUTS && n > SMALL_N_MAX;
}

/* The row-major product C = alpha op(A) op(B) + beta C on a cuBLAS handle:
 * cuBLAS is column-major, so it computes C^T = op(B)^T op(A)^T, operands
 * swapped. */
static cublasStatus_t
cublas_row_major (cublasHandle_t handle, int trans_a, int trans_b, int m, int n, int k,
                  float alpha, const float *a, int lda, const float *b, int ldb, float beta,
                  float *c, int ldc)
{
  return nn_cu::cublasSgemm (handle, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N,
                             trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &alpha, b, ldb, a, lda,
                             &beta, c, ldc);
}

int
_nn_cuda_gemm (void *vctx, int trans_a, int trans_b, int m, int n, int k, float alpha,
               const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  int rc;

  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (m < 0 || n < 0 || k < 0)
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "gemm: negative size (%d, %d, %d)", m, n, k);
  if (m == 0 || n == 0)
    return NN_BACKEND_OK;
  if (small_k_fits (m, n, k))
    {
      int outputs = m * n;
      _nn_cuda_launch (ctx, gemm_small_k_kernel, (outputs + 255) / 256, 256, 0,
                       Gemm{ trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc });
      return _nn_cuda_check_launch (ctx, "gemm");
    }
  if (n <= SMALL_N_MAX && k >= 32)
    return launch_small_n (ctx, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                           NULL, no_epilogue, "gemm");
  cublasStatus_t st = cublas_row_major (ctx->lane.cublas, trans_a, trans_b, m, n, k, alpha, a, lda,
                                        b, ldb, beta, c, ldc);
  if (st != CUBLAS_STATUS_SUCCESS)
    {
      char what[128];
      snprintf (what, sizeof what, "gemm (%d x %d x %d%s%s)", m, n, k, trans_a ? ", A^T" : "",
                trans_b ? ", B^T" : "");
      return _nn_cuda_fail_cublas (ctx, st, what);
    }
  return _nn_cuda_check_launch (ctx, "gemm");
}

int
_nn_cuda_dense_forward_route (NnCudaContext *ctx, int route, int act, int n, int in, int out,
                              const float *x, const float *w, const float *bias, float *y,
                              float *drop_y, float rate, uint64_t seed, const int64_t *step)
{
  int rc;

  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (n < 0 || in < 0 || out < 0 || act < NN_BK_ACT_LINEAR || act >= NN_BK_ACT_SOFTMAX
      || !(rate >= 0.0f && rate < 1.0f) || (rate > 0.0f && drop_y == NULL))
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "dense_forward: bad arguments");
  if (n == 0 || out == 0)
    return NN_BACKEND_OK;

  Epilogue e = { 1, act, bias, rate > 0.0f ? drop_y : NULL, rate,
                 _nn_cuda_dropout_scale (rate), seed, step };
  const void *at[] = { y, e.drop_y };
  const size_t bytes[] = { (size_t) n * out * sizeof (float), (size_t) n * out * sizeof (float) };
  /* Wider products of short batches go to the cluster kernel
   * (kernels/dense-forward.cu: 32 x 1000 x 1000 with relu and dropout in
   * four fifths of the time in a replayed graph on the H200); others to
   * cuBLAS and one epilogue kernel, faster for 32 x 128 x 784 than a tiled
   * split-K kernel without clusters (removed: it won nowhere) and than
   * gemm, bias_act_forward and dropout_forward apart. */
  if (route == NN_CUDA_DENSE_AUTO)
    route = out <= SMALL_N_MAX && in >= 32 ? NN_CUDA_DENSE_SMALL_N
            : _nn_cuda_dense_cluster_fits (ctx, n, in, out, x, w) ? NN_CUDA_DENSE_CLUSTER
                                                                  : NN_CUDA_DENSE_CUBLAS;
  if (route == NN_CUDA_DENSE_SMALL_N)
    {
      rc = launch_small_n (ctx, 0, 0, n, out, in, 1.0f, x, in, w, out, 0.0f, y, out, NULL, e,
                           "dense_forward");
      _nn_cuda_writes_only (ctx, 2, at, bytes);
      return rc;
    }
  if (route == NN_CUDA_DENSE_CLUSTER)
    {
      if (!_nn_cuda_dense_cluster_fits (ctx, n, in, out, x, w))
        return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR,
                                  "dense_forward: the cluster route does not take %d x %d -> %d "
                                  "here (TF32 off, widths not multiples of 4, or before sm_90)",
                                  n, in, out);
      rc = _nn_cuda_dense_forward_cluster (ctx, n, in, out, x, w, y, e);
      _nn_cuda_writes_only (ctx, 2, at, bytes);
      return rc;
    }
  /* cuBLAS, then one kernel for bias, activation and dropout */
  if ((rc = _nn_cuda_gemm (ctx, 0, 0, n, out, in, 1.0f, x, in, w, out, 0.0f, y, out)) != 0)
    return rc;
  if (act == NN_BK_ACT_LINEAR && bias == NULL && e.drop_y == NULL)
    return NN_BACKEND_OK;
  _nn_cuda_launch (ctx, dense_epilogue_kernel, _nn_cuda_blocks (ctx, (size_t) n * out, 256), 256, 0,
                   e, y, n, out);
  return _nn_cuda_check_launch (ctx, "dense_forward");
}

int
_nn_cuda_dense_forward (void *ctx, int act, int n, int in, int out, const float *x,
                        const float *w, const float *bias, float *y, float *drop_y, float rate,
                        uint64_t seed, const int64_t *step)
{
  return _nn_cuda_dense_forward_route ((NnCudaContext *) ctx, NN_CUDA_DENSE_AUTO, act, n, in, out,
                                       x, w, bias, y, drop_y, rate, seed, step);
}

/* dense_loss, or with with_dx dense_loss_dx. */
static int
dense_loss_launch (NnCudaContext *ctx, bool with_dx, int act, int n, int in, int out,
                   const float *x, const float *w, const float *bias, float *y, int kind,
                   const int32_t *labels, const float *targets, float *grad, float *stats,
                   float *dx, const NnBackendBelow *below, const int64_t *step)
{
  const char *what = with_dx ? "dense_loss_dx" : "dense_loss";
  int rc;

  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  if (n < 0 || in < 0 || out <= 0 || act < NN_BK_ACT_LINEAR || act >= NN_BK_ACT_SOFTMAX
      || kind < NN_BK_LOSS_SPARSE_XENT || kind > NN_BK_LOSS_MSE
      || (kind == NN_BK_LOSS_SPARSE_XENT && labels == NULL)
      || (kind != NN_BK_LOSS_SPARSE_XENT && targets == NULL && labels == NULL)
      || (with_dx
          && (dx == NULL || act != NN_BK_ACT_LINEAR || grad == NULL
              || !_nn_cuda_below_ok (below, step))))
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "%s: bad arguments", what);
  if (n == 0)
    return NN_BACKEND_OK;
  /* One kernel for a classifier's few outputs: on the H200 in a replayed
   * graph (gpu/dev/dense-bench.cc) 32 x 128 -> 10 takes 4.3 us this way
   * against 4.8 us as dense_forward and loss, 32 x 512 -> 10 5.2 against
   * 5.8, 32 x 1000 -> 10 6.8 against 7.3. Other shapes: the dense forward,
   * then the loss op. */
  if (out > SMALL_N_MAX || in < 32)
    {
      if ((rc = _nn_cuda_dense_forward_route (ctx, NN_CUDA_DENSE_AUTO, act, n, in, out, x, w, bias,
                                              y, NULL, 0.0f, 0, NULL))
          != 0
          || (rc = _nn_cuda_loss (ctx, kind, y, labels, targets, grad, stats, n, out)) != 0
          || dx == NULL)
        return rc;
      return _nn_cuda_dx_below (ctx, n, in, out, grad, w, dx, below, step);
    }
  Epilogue e = { 1, act, bias, NULL, 0.0f, 1.0f, 0, NULL };
  unsigned int blocks;
  SmallN g = small_n_args (0, 0, n, out, in, 1.0f, x, in, w, out, 0.0f, y, out, NULL, e, &blocks);
  LossArgs l = { kind, labels, targets, grad, stats, dx, below_of (below), step };
  if (with_dx && ctx->loss_clusters)
    {
      const size_t w_bytes = (size_t) in * out * sizeof (float), b_bytes = out * sizeof (float);
      int early = _nn_cuda_untouched (ctx, w, w_bytes)
                  && (bias == NULL || _nn_cuda_untouched (ctx, bias, b_bytes));
      _nn_cuda_launch_cluster (ctx, true, *loss_dx_cluster_kernel (out),
                               dim3 ((unsigned int) n * LDX_CLUSTER), LDX_THREADS, 0, LDX_CLUSTER,
                               g, l, early);
    }
  else if (with_dx)
    _nn_cuda_launch (ctx, dense_loss_kernel<1>, blocks, 256, 0, g, l);
  else
    _nn_cuda_launch (ctx, dense_loss_kernel<0>, blocks, 256, 0, g, l);
  const void *at[] = { y, grad, stats, dx };
  const size_t bytes[] = { (size_t) n * out * sizeof (float), (size_t) n * out * sizeof (float),
                           2 * sizeof (float), (size_t) n * in * sizeof (float) };
  _nn_cuda_writes_only (ctx, 4, at, bytes);
  return _nn_cuda_check_launch (ctx, what);
}

int
_nn_cuda_dense_loss (void *ctx, int act, int n, int in, int out, const float *x, const float *w,
                     const float *bias, float *y, int kind, const int32_t *labels,
                     const float *targets, float *grad, float *stats)
{
  return dense_loss_launch ((NnCudaContext *) ctx, false, act, n, in, out, x, w, bias, y, kind,
                            labels, targets, grad, stats, NULL, NULL, NULL);
}

int
_nn_cuda_dense_loss_dx (void *ctx, int act, int n, int in, int out, const float *x,
                        const float *w, const float *bias, float *y, int kind,
                        const int32_t *labels, const float *targets, float *grad, float *stats,
                        float *dx, const NnBackendBelow *below, const int64_t *step)
{
  return dense_loss_launch ((NnCudaContext *) ctx, true, act, n, in, out, x, w, bias, y, kind,
                            labels, targets, grad, stats, dx, below, step);
}

static int dense_backward_launch (NnCudaContext *ctx, int act, int n, int in, int out,
                                  const float *x, const float *w, const float *y, float *dy,
                                  float *dw, float *dbias, float *dx, float rate, uint64_t seed,
                                  const int64_t *step);

int
_nn_cuda_dense_backward (void *vctx, int act, int n, int in, int out, const float *x,
                         const float *w, const float *y, float *dy, float *dw, float *dbias,
                         float *dx, float rate, uint64_t seed, const int64_t *step)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  int rc;

  if ((rc = _nn_cuda_enter (ctx)) != 0)
    return rc;
  rc = dense_backward_launch (ctx, act, n, in, out, x, w, y, dy, dw, dbias, dx, rate, seed, step);
  const void *at[] = { dy, dw, dbias, dx };
  const size_t bytes[] = { (size_t) n * out * sizeof (float), (size_t) in * out * sizeof (float),
                           (size_t) out * sizeof (float), (size_t) n * in * sizeof (float) };
  _nn_cuda_writes_only (ctx, 4, at, bytes);
  return rc;
}

/* A large layer's dW and dx on cuBLAS side by side: dx = dz W^T on the
 * side stream while dW = x^T dz (and the bias sums, when not done) run on
 * the op's stream, which waits for the side before the op returns. The two
 * products read only dz, W and x; each alone leaves part of the GPU idle in
 * its last wave (the cnn's 256 x 9216 -> 128: ~72 tiles for dW, ~288 for
 * dx). In a captured step the two become parallel branches of the graph.
 * The join is made whatever failed, so a capture never ends forked. */
#define DENSE_BESIDE_MACS ((size_t) 64 << 20)

static int
dw_dx_beside (NnCudaContext *ctx, int n, int in, int out, const float *x, const float *w,
              float *dz, float *dw, float *dx, float *dbias, const float *y)
{
  CUresult err;
  int rc;
  /* the bias sums first: their kernel writes dz back in place */
  if (dbias != NULL
      && (rc = _nn_cuda_dense_dz (ctx, NN_BK_ACT_LINEAR, y, dz, dbias, n, out, 0.0f, 0, NULL)) != 0)
    return rc;
  if ((err = nn_cu::cuEventRecord (ctx->fork, ctx->lane.stream)) != CUDA_SUCCESS)
    return _nn_cuda_fail (ctx, err, "dense_backward (fork)");
  if ((err = nn_cu::cuStreamWaitEvent (ctx->side_stream, ctx->fork, 0)) != CUDA_SUCCESS)
    return _nn_cuda_fail (ctx, err, "dense_backward (fork)");
  /* dx (n, in) = dz (n, out) @ W^T */
  cublasStatus_t st = cublas_row_major (ctx->cublas_side, 0, 1, n, in, out, 1.0f, dz, out, w, out,
                                        0.0f, dx, in);
  CUresult joined = nn_cu::cuEventRecord (ctx->join, ctx->side_stream);
  rc = _nn_cuda_gemm (ctx, 1, 0, in, out, n, 1.0f, x, in, dz, out, 0.0f, dw, out);
  if (joined == CUDA_SUCCESS)
    joined = nn_cu::cuStreamWaitEvent (ctx->lane.stream, ctx->join, 0);
  if (st != CUBLAS_STATUS_SUCCESS)
    return _nn_cuda_fail_cublas (ctx, st, "dense_backward (dx beside dW)");
  if (joined != CUDA_SUCCESS)
    return _nn_cuda_fail (ctx, joined, "dense_backward (join)");
  return rc != 0 ? rc : _nn_cuda_check_launch (ctx, "dense_backward");
}

/* The kernels of dense_backward (dz in dy, dbias, dW and dx), on the
 * routes below. */
static int
dense_backward_launch (NnCudaContext *ctx, int act, int n, int in, int out, const float *x,
                       const float *w, const float *y, float *dy, float *dw, float *dbias,
                       float *dx, float rate, uint64_t seed, const int64_t *step)
{
  int rc;

  if (n < 0 || in < 0 || out < 0 || act < NN_BK_ACT_LINEAR || act >= NN_BK_ACT_SOFTMAX
      || !(rate >= 0.0f && rate < 1.0f))
    return _nn_cuda_fail_msg (ctx, NN_BACKEND_ERROR, "dense_backward: bad arguments");
  if (out == 0)
    return NN_BACKEND_OK;

  /* A small layer and a batch of at most DW_MAX_ROWS rows: dz, the bias
   * gradient and dW in one kernel, where they were two (mlp-small's first
   * layer: 3.6 against 5.4 us on the H200; for mlp-wide's 784 x 1000 it
   * took 9.2 against 5.4, so larger layers keep cuBLAS); dz for dx goes to the reduction
   * scratch, which the products below do not use. */
  if (n >= 1 && n <= DW_MAX_ROWS && in > 0 && out > SMALL_N_MAX
      && (size_t) in * out <= SMALL_K_OUTPUTS
      && (dx == NULL || (size_t) n * out <= NN_CUDA_PARTIALS))
    {
      float *dz = dx != NULL ? ctx->lane.partials : NULL;
      dim3 grid ((out + DW_TILE_OUT - 1) / DW_TILE_OUT, (in + DW_TILE_IN - 1) / DW_TILE_IN);
      _nn_cuda_launch (ctx, dense_dw_kernel, grid, 256, 0, act, x, y, dy, dw, dbias, dz, n, in, out,
                       rate, _nn_cuda_dropout_scale (rate), seed, step);
      if ((rc = _nn_cuda_check_launch (ctx, "dense_backward")) != 0 || dx == NULL)
        return rc;
      return _nn_cuda_gemm (ctx, 0, 1, n, in, out, 1.0f, dz, out, w, out, 0.0f, dx, in);
    }

  /* dz in place of dy, with the bias gradient on the way */
  int dbias_done = 0;
  if (act != NN_BK_ACT_LINEAR || rate > 0.0f || n == 0)
    {
      if ((rc = _nn_cuda_dense_dz (ctx, act, y, dy, dbias, n, out, rate, seed, step)) != 0)
        return rc;
      dbias_done = 1;
    }
  if (in == 0)
    return dbias_done || dbias == NULL
             ? NN_BACKEND_OK
             : _nn_cuda_dense_dz (ctx, NN_BK_ACT_LINEAR, y, dy, dbias, n, out, 0.0f, 0, NULL);

  /* dW (in, out) = x^T (in, n) @ dz (n, out): with few outputs on the
   * small-n kernel, which adds dz's column sums (the bias gradient) as one
   * more row; dx (n, in) = dz (n, out) @ W^T (out, in) on the small-k kernel
   * in the same launch when it fits */
  if (out <= SMALL_N_MAX && n >= 32)
    {
      unsigned int n_blocks;
      SmallN dw_args = small_n_args (1, 0, in, out, n, 1.0f, x, in, dy, out, 0.0f, dw, out,
                                     dbias_done ? NULL : dbias, no_epilogue, &n_blocks);
      if (dx != NULL && small_k_fits (n, in, out))
        {
          unsigned int k_blocks = (unsigned int) (((size_t) n * in + 255) / 256);
          _nn_cuda_launch (ctx, gemm_pair_kernel, n_blocks + k_blocks, 256, 0, dw_args, n_blocks,
                           Gemm{ 0, 1, n, in, out, 1.0f, dy, out, w, out, 0.0f, dx, in });
          return _nn_cuda_check_launch (ctx, "dense_backward");
        }
      _nn_cuda_launch (ctx, gemm_small_n_kernel, n_blocks, 256, 0, dw_args);
      if ((rc = _nn_cuda_check_launch (ctx, "dense_backward")) != 0)
        return rc;
      dbias_done = 1;
    }
  else if (dx != NULL && (size_t) n * in * out >= DENSE_BESIDE_MACS)
    return dw_dx_beside (ctx, n, in, out, x, w, dy, dw, dx, dbias_done ? NULL : dbias, y);
  else if ((rc = _nn_cuda_gemm (ctx, 1, 0, in, out, n, 1.0f, x, in, dy, out, 0.0f, dw, out)) != 0)
    return rc;
  if (!dbias_done && dbias != NULL
      && (rc = _nn_cuda_dense_dz (ctx, NN_BK_ACT_LINEAR, y, dy, dbias, n, out, 0.0f, 0, NULL)) != 0)
    return rc;

  if (dx != NULL)
    return _nn_cuda_gemm (ctx, 0, 1, n, in, out, 1.0f, dy, out, w, out, 0.0f, dx, in);
  return NN_BACKEND_OK;
}
