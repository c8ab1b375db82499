/* nn-cuda-blas.cu: row-major matrix products on cuBLAS.
 *
 * cuBLAS is column-major; a row-major (m, n) matrix with row stride ld is
 * the column-major (n, m) matrix with leading dimension ld. So
 * C = op(A) op(B) (row-major) is C^T = op(B)^T op(A)^T (column-major): the
 * same call with the operands swapped and m and n exchanged.
 */

#include "nn-cuda-private.h"

#include <stdio.h>

/* Products with few output columns (a layer's 10 classes: the forward
 * product and its weight gradient) and a long enough sum: cuBLAS splits
 * them over k and adds a reduction kernel, which costs more than the
 * product. Here one warp (or `split` warps sharing the sum) computes every
 * column of one output row, in plain float. */
#define SMALL_N_MAX 16

__global__ void __launch_bounds__ (256)
gemm_small_n_kernel (int trans_a, int trans_b, int m, int n, int k, float alpha,
                     const float *__restrict__ a, int lda, const float *__restrict__ b, int ldb,
                     float beta, float *__restrict__ c, int ldc, int split)
{
  __shared__ float part[8][SMALL_N_MAX];
  int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  int row = blockIdx.x * (8 / split) + warp / split;
  int share = warp % split;
  float acc[SMALL_N_MAX];
#pragma unroll
  for (int j = 0; j < SMALL_N_MAX; j++)
    acc[j] = 0.0f;
  if (row < m)
    for (int kk = share * 32 + lane; kk < k; kk += 32 * split)
      {
        float av = trans_a ? a[(size_t) kk * lda + row] : a[(size_t) row * lda + kk];
#pragma unroll
        for (int j = 0; j < SMALL_N_MAX; j++)
          if (j < n)
            acc[j] += av * (trans_b ? b[(size_t) j * ldb + kk] : b[(size_t) kk * ldb + j]);
      }
#pragma unroll
  for (int j = 0; j < SMALL_N_MAX; j++)
    for (int o = 16; o > 0; o >>= 1)
      acc[j] += __shfl_xor_sync (0xffffffffu, acc[j], o);
  if (lane == 0)
#pragma unroll
    for (int j = 0; j < SMALL_N_MAX; j++)
      part[warp][j] = acc[j];
  __syncthreads ();
  if (share == 0 && lane < n && row < m)
    {
      float sum = 0.0f;
      for (int p = 0; p < split; p++)
        sum += part[warp + p][lane];
      float *cp = c + (size_t) row * ldc + lane;
      /* BLAS: C is not read when beta is 0 */
      *cp = beta == 0.0f ? alpha * sum : alpha * sum + beta * *cp;
    }
}

/* Products with a short sum (k <= 64: a dense layer's weight gradient over
 * a batch of 32, or the input gradient of a 10-class layer) and a small
 * output: cuBLAS again splits or picks a tile too big for them. One thread
 * per output element; consecutive threads take consecutive columns, so the
 * reads of B (not transposed) and the writes of C are coalesced and A's
 * element is shared by the warp. */
#define SMALL_K_MAX 64
#define SMALL_K_OUTPUTS (1 << 18)

__global__ void __launch_bounds__ (256)
gemm_small_k_kernel (int trans_a, int trans_b, int m, int n, int k, float alpha,
                     const float *__restrict__ a, int lda, const float *__restrict__ b, int ldb,
                     float beta, float *__restrict__ c, int ldc)
{
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= m * n)
    return;
  int i = idx / n, j = idx % n;
  float sum = 0.0f;
  for (int kk = 0; kk < k; kk++)
    {
      float av = trans_a ? a[(size_t) kk * lda + i] : a[(size_t) i * lda + kk];
      float bv = trans_b ? b[(size_t) j * ldb + kk] : b[(size_t) kk * ldb + j];
      sum += av * bv;
    }
  float *cp = c + (size_t) i * ldc + j;
  /* BLAS: C is not read when beta is 0 */
  *cp = beta == 0.0f ? alpha * sum : alpha * sum + beta * *cp;
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
  if (k >= 1 && k <= SMALL_K_MAX && (size_t) m * n <= SMALL_K_OUTPUTS && n > SMALL_N_MAX)
    {
      int outputs = m * n;
      gemm_small_k_kernel<<<(outputs + 255) / 256, 256, 0, ctx->stream>>> (
        trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
      return _nn_cuda_check_launch (ctx, "gemm");
    }
  if (n <= SMALL_N_MAX && k >= 32)
    {
      int split = k >= 1024 ? 8 : k >= 256 ? 4 : k >= 128 ? 2 : 1;
      int rows_per_block = 8 / split;
      gemm_small_n_kernel<<<(m + rows_per_block - 1) / rows_per_block, 256, 0, ctx->stream>>> (
        trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, split);
      return _nn_cuda_check_launch (ctx, "gemm");
    }
  cublasStatus_t st = cublasSgemm (ctx->cublas, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N,
                                   trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &alpha, b, ldb,
                                   a, lda, &beta, c, ldc);
  if (st != CUBLAS_STATUS_SUCCESS)
    {
      char what[128];
      snprintf (what, sizeof what, "gemm (%d x %d x %d%s%s)", m, n, k, trans_a ? ", A^T" : "",
                trans_b ? ", B^T" : "");
      return _nn_cuda_fail_cublas (ctx, st, what);
    }
  return _nn_cuda_check_launch (ctx, "gemm");
}
