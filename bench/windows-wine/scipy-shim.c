/* SPDX-License-Identifier: GPL-3.0-or-later */
/* scipy-shim.c: a library with OpenBLAS's plain names over the Linux build
 * of scipy-openblas32 (which exports only scipy_-prefixed ones), so the
 * engine can load it: TRAINBENCH_BLAS_LIBRARY=./libsob-shim.so.
 *
 *   gcc -O2 -shared -fPIC scipy-shim.c -o libsob-shim.so -LDIR -lscipy_openblas -Wl,-rpath,DIR
 */
/* forwards the plain OpenBLAS names to scipy-openblas32's prefixed ones */
void scipy_cblas_sgemm (int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int);
char *scipy_openblas_get_corename (void); char *scipy_openblas_get_config (void);
int scipy_openblas_get_num_threads (void); int scipy_openblas_get_parallel (void); void scipy_openblas_set_num_threads (int);
void cblas_sgemm (int o, int ta, int tb, int m, int n, int k, float al, const float *a, int lda, const float *b, int ldb, float be, float *c, int ldc) { scipy_cblas_sgemm (o, ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc); }
char *openblas_get_corename (void) { return scipy_openblas_get_corename (); }
char *openblas_get_config (void) { return scipy_openblas_get_config (); }
int openblas_get_num_threads (void) { return scipy_openblas_get_num_threads (); }
int openblas_get_parallel (void) { return scipy_openblas_get_parallel (); }
void openblas_set_num_threads (int t) { scipy_openblas_set_num_threads (t); }
