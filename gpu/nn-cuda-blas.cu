/* nn-cuda-blas.cu: row-major matrix products on cuBLAS.
 *
 * cuBLAS is column-major; a row-major (m, n) matrix with row stride ld is
 * the column-major (n, m) matrix with leading dimension ld. So
 * C = op(A) op(B) (row-major) is C^T = op(B)^T op(A)^T (column-major): the
 * same call with the operands swapped and m and n exchanged.
 */

#include "nn-cuda-private.h"

#include <stdio.h>

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
