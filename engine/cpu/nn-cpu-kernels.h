/* nn-cpu-kernels.h: the CPU backend's inner loops, built once per vector
 * width (AVX-512, AVX2, baseline) and picked at load time. Each works on a
 * range the caller's thread owns; none starts threads. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nn-backend-abi.h"

/* Optimizer updates over count parameters (rules in nn-cpu-backend.c). */
void _nn_cpu_sgd (float *p, const float *g, size_t count, float lr);
void _nn_cpu_momentum (float *p, const float *g, float *v, size_t count, float lr, float m,
                       int nesterov);
void _nn_cpu_adam (float *p, const float *g, float *m, float *v, size_t count, float b1,
                   float b2, float alpha, float eps);
void _nn_cpu_adadelta (float *p, const float *g, float *eg, float *ed, size_t count, float lr,
                       float rho, float eps);
void _nn_cpu_rmsprop (float *p, const float *g, float *v, size_t count, float lr, float rho,
                      float eps);
void _nn_cpu_adagrad (float *p, const float *g, float *a, size_t count, float lr, float eps);

/* y[i] = x[i] * scale where nn_dropout_keep (seed, step, first + i, rate),
 * else 0; threshold = ceil (rate * 2^24), the same test on integers. */
void _nn_cpu_dropout (float *y, const float *x, size_t count, uint64_t first, uint64_t seed,
                      int64_t step, uint64_t threshold, float scale);

/* rows (rows, channels) = act (rows + bias), bias may be NULL; linear,
 * relu, sigmoid, tanh. */
void _nn_cpu_bias_act_rows (int act, float *y, const float *bias, size_t rows, size_t channels);
/* one plane of count values: y = act (y + bias) */
void _nn_cpu_bias_act_plane (int act, float *y, float bias, size_t count);

/* dz = dy * act'(y) in place over count values; returns their sum. */
float _nn_cpu_act_backward_sum (int act, const float *y, float *dy, size_t count);
/* The same over columns [0, cols) of rows rows `ld` apart; dbias (cols)
 * gets the column sums (overwritten) when not NULL. */
void _nn_cpu_act_backward_rows (int act, const float *y, float *dy, float *dbias, size_t rows,
                                size_t cols, size_t ld);

/* dst[i] = src[i] * scale */
void _nn_cpu_bytes_to_float (float *dst, const uint8_t *src, size_t count, float scale);

/* 2x2 max pooling of one output row: a, b the two input rows (2 ow). */
void _nn_cpu_maxpool2_row (const float *a, const float *b, float *out, size_t ow);
/* Its gradient: da, db (2 ow) get g where the first maximum was, else 0. */
void _nn_cpu_maxpool2_row_backward (const float *a, const float *b, const float *g, float *da,
                                    float *db, size_t ow);

/* col (crs, nb * ohw) from samples [b0, b0 + nb) of x (n, c, h, w): column
 * b * ohw + oy * out_w + ox of row (c, r, s) is
 * x[b0 + b][c][oy * stride - pad + r][ox * stride - pad + s], 0 outside. */
void _nn_cpu_im2col (const NnConvShape *s, const float *x, int b0, int nb, float *col);
/* Its adjoint: dx[b0 + b] (overwritten) = sum of the col entries that read it. */
void _nn_cpu_col2im (const NnConvShape *s, const float *col, int b0, int nb, float *dx);
