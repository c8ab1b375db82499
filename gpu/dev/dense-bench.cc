/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dense-bench.cc: per-op times of the MLP presets' dense layers and
 * optimizer on the GPU, to choose the fused dense ops' routes: each op is
 * captured 50 times into one CUDA graph (as a training step runs it) and the
 * graph replayed; the figure is microseconds per op, launch included.
 * Compares the unfused sequences (gemm, bias_act, dropout) with the fused
 * dense steps (NnBackendStep, as the engine's plans hand them over) and
 * the dense forward on each route, the output layer with and without the
 * loss fused, a layer's backward and update apart and as one step, the
 * products on cuBLAS, and, given another module built against the same
 * ABI (a variant), its op table too.
 * Build (from the repository root, after building the module in BUILD),
 * with the module's objects (its host code and its embedded kernels):
 *   g++ -O2 -std=c++20 -isystem /usr/local/cuda/include -Igpu -Iengine \
 *     gpu/dev/dense-bench.cc BUILD/gpu/libtrainbench-cuda.so.p/[*].o -ldl -o dense-bench
 * Run: dense-bench [--once] [other-module.so]
 */

#include "nn-cuda-private.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern "C" const NnBackendOps *nn_backend_cuda_get (void);

#define REPEATS 50
#define LAUNCHES 40

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct
{
  const NnBackendOps *ops;
  void *ctx;
  float *x, *w, *b, *y, *yd, *dy, *dw, *db, *dx, *params, *grads, *state;
  int64_t *step;
} Bench;

/* A dense layer's step: forward or backward, with the dropout above it. */
static NnBackendStep
dense_step (const Bench *k, int backward, int act, int n, int in, int out, float rate,
            int with_dx)
{
  NnBackendStep s = {};
  s.kind = NN_BK_STEP_DENSE;
  s.backward = backward;
  s.n = n;
  s.act = act;
  s.x = k->x;
  s.w = k->w;
  s.b = k->b;
  s.y = k->y;
  s.dy = k->dy;
  s.dx = with_dx ? k->dx : NULL;
  s.dw = k->dw;
  s.db = k->db;
  s.step = k->step;
  s.drop.rate = rate;
  s.drop.seed = 7;
  s.drop.y = k->yd;
  s.dense.in = in;
  s.dense.out = out;
  return s;
}

static int
step_run (const Bench *k, const NnBackendStep &s)
{
  return k->ops->step_run != NULL ? k->ops->step_run (k->ctx, &s) : NN_BACKEND_UNSUPPORTED;
}

/* --once: every op runs once, plainly, and is not timed (for a profiler). */
static int once;

/* Microseconds per call of body (b, arg) as a node of a replayed graph. */
template <typename F>
static double
time_op (Bench *k, F body)
{
  void *graph = NULL;
  if (once)
    {
      int rc = body ();
      k->ops->synchronize (k->ctx);
      return rc == 0 ? 0.0 : -1.0;
    }
  if (k->ops->capture_begin (k->ctx) != 0)
    return -1.0;
  for (int r = 0; r < REPEATS; r++)
    if (body () != 0)
      {
        k->ops->capture_end (k->ctx, &graph);
        fprintf (stderr, "op failed: %s\n", k->ops->last_error (k->ctx));
        return -1.0;
      }
  if (k->ops->capture_end (k->ctx, &graph) != 0)
    return -1.0;
  k->ops->graph_launch (k->ctx, graph);
  k->ops->synchronize (k->ctx);
  double best = 1e30;
  for (int trial = 0; trial < 3; trial++)
    {
      double t0 = now ();
      for (int i = 0; i < LAUNCHES; i++)
        k->ops->graph_launch (k->ctx, graph);
      k->ops->synchronize (k->ctx);
      double us = (now () - t0) * 1e6 / (LAUNCHES * REPEATS);
      if (us < best)
        best = us;
    }
  k->ops->graph_free (k->ctx, graph);
  return best;
}

static void *
dalloc (Bench *k, size_t floats)
{
  void *p = NULL;
  if (k->ops->alloc (k->ctx, floats * sizeof (float), &p) != 0)
    {
      fprintf (stderr, "alloc: %s\n", k->ops->last_error (k->ctx));
      exit (1);
    }
  return p;
}

static int
open_bench (const NnBackendOps *ops, Bench *k)
{
  NnBackendOptions opt = { 0, 1 };
  char err[512];
  memset (k, 0, sizeof *k);
  k->ops = ops;
  if (ops->context_new (0, &opt, &k->ctx, err, sizeof err) != 0)
    {
      fprintf (stderr, "context: %s\n", err);
      return 0;
    }
  size_t big = 4u << 20;
  k->x = (float *) dalloc (k, big);
  k->w = (float *) dalloc (k, big);
  k->b = (float *) dalloc (k, 4096);
  k->y = (float *) dalloc (k, big);
  k->yd = (float *) dalloc (k, big);
  k->dy = (float *) dalloc (k, big);
  k->dw = (float *) dalloc (k, big);
  k->db = (float *) dalloc (k, 4096);
  k->dx = (float *) dalloc (k, big);
  k->params = (float *) dalloc (k, big);
  k->grads = (float *) dalloc (k, big);
  k->state = (float *) dalloc (k, 2 * big);
  k->step = (int64_t *) dalloc (k, 2);
  ops->fill (k->ctx, k->x, 0.5f, big);
  ops->fill (k->ctx, k->w, 0.01f, big);
  ops->fill (k->ctx, k->dy, 0.1f, big);
  ops->fill (k->ctx, k->grads, 0.001f, big);
  return 1;
}

/* The unfused layer ops as the engine runs them without the fusion. */
static void
layer_unfused (Bench *k, const char *label, int n, int in, int out, int act, float rate,
               int with_dx)
{
  const NnBackendOps *o = k->ops;
  void *c = k->ctx;
  double f = time_op (k, [&] {
    int rc = o->gemm (c, 0, 0, n, out, in, 1.0f, k->x, in, k->w, out, 0.0f, k->y, out);
    if (rc == 0)
      rc = o->bias_act_forward (c, act, k->y, k->b, n, out, 1);
    if (rc == 0 && rate > 0.0f)
      rc = o->dropout_forward (c, k->yd, k->y, (size_t) n * out, rate, 7, k->step);
    return rc;
  });
  double bw = time_op (k, [&] {
    int rc = 0;
    if (rate > 0.0f)
      rc = o->dropout_backward (c, k->dy, k->dy, (size_t) n * out, rate, 7, k->step);
    if (rc == 0)
      rc = o->bias_act_backward (c, act, k->y, k->dy, k->db, n, out, 1);
    if (rc == 0)
      rc = o->gemm (c, 1, 0, in, out, n, 1.0f, k->x, in, k->dy, out, 0.0f, k->dw, out);
    if (rc == 0 && with_dx)
      rc = o->gemm (c, 0, 1, n, in, out, 1.0f, k->dy, out, k->w, out, 0.0f, k->dx, in);
    return rc;
  });
  printf ("%-8s %-34s forward %6.2f us  backward %6.2f us\n", label, "unfused", f, bw);
  if (o->step_run == NULL)
    return;
  NnBackendStep forward = dense_step (k, 0, act, n, in, out, rate, with_dx);
  NnBackendStep backward = dense_step (k, 1, act, n, in, out, rate, with_dx);
  f = time_op (k, [&] { return step_run (k, forward); });
  bw = time_op (k, [&] { return step_run (k, backward); });
  printf ("%-8s %-34s forward %6.2f us  backward %6.2f us\n", label, "fused dense steps", f, bw);
}

static void
product (Bench *k, const char *label, int ta, int tb, int m, int n, int kk)
{
  int lda = ta ? m : kk, ldb = tb ? kk : n;
  double t = time_op (k, [&] {
    return k->ops->gemm (k->ctx, ta, tb, m, n, kk, 1.0f, k->x, lda, k->w, ldb, 0.0f, k->y, n);
  });
  printf ("%-8s gemm%s%s %4d x %4d x %4d  ops->gemm %6.2f us\n", label, ta ? " A^T" : "    ",
          tb ? " B^T" : "    ", m, n, kk, t);
}

/* The fused forward on each route. */
static void
routes (Bench *k, const char *label, int n, int in, int out)
{
  static const char *names[] = { "auto", "small-n", "cublas+epilogue", "cluster" };
  static const int route[] = { NN_CUDA_DENSE_AUTO, NN_CUDA_DENSE_SMALL_N, NN_CUDA_DENSE_CUBLAS,
                               NN_CUDA_DENSE_CLUSTER };
  printf ("%-8s dense_forward %4d x %4d x %4d:", label, n, out, in);
  for (int r = 0; r < 4; r++)
    {
      if (route[r] == NN_CUDA_DENSE_SMALL_N && out > 16)
        continue;
      if (route[r] == NN_CUDA_DENSE_CLUSTER
          && !((NnCudaContext *) k->ctx)->dense_clusters)
        continue;
      double t = time_op (k, [&] {
        return _nn_cuda_dense_forward_route ((NnCudaContext *) k->ctx, route[r], NN_BK_ACT_RELU, n, in,
                                             out, k->x, k->w, k->b, k->y, k->yd, 0.2f, 7, k->step);
      });
      printf ("  %s %.2f", names[r], t);
    }
  printf ("\n");
}

/* The output layer and the loss: as two steps, and as one. */
static void
output_layer (Bench *k, const char *label, int n, int in, int out)
{
  const NnBackendOps *o = k->ops;
  const int32_t *labels = NULL; /* cross-entropy reads the one-hot targets (dy here) */
  NnBackendStep forward = dense_step (k, 0, NN_BK_ACT_LINEAR, n, in, out, 0.0f, 0);
  NnBackendStep loss = forward;
  loss.kind = NN_BK_STEP_OUTPUT_LOSS;
  loss.loss.kind = NN_BK_LOSS_XENT;
  loss.loss.labels = labels;
  loss.loss.targets = k->dy;
  loss.loss.grad = k->dx;
  loss.loss.stats = k->db;
  if (o->step_run == NULL)
    return;
  double two = time_op (k, [&] {
    int rc = step_run (k, forward);
    return rc != 0 ? rc
                   : o->loss (k->ctx, NN_BK_LOSS_XENT, k->y, labels, k->dy, k->dx, k->db, n, out);
  });
  printf ("%-8s output layer %4d x %4d x %4d  dense step + loss %6.2f us", label, n, out, in,
          two);
  printf ("  output and loss step %6.2f us\n", time_op (k, [&] { return step_run (k, loss); }));
}

static void
optimizer (Bench *k, const char *label, size_t count)
{
  NnBackendOptimizer adam = { NN_BK_OPT_ADAM, 0, 1e-3f, 0.0f, 0.9f, 0.999f, 0.0f, 1e-7f };
  double t = time_op (k, [&] {
    return k->ops->optimizer_update (k->ctx, &adam, k->params, k->grads, k->state, count, count,
                                     k->step);
  });
  printf ("%-8s adam over %zu parameters %6.2f us\n", label, count, t);
}

/* A layer's backward and its parameters' update: the dense backward step,
 * then optimizer_update over the layer's weights and bias (their share of
 * the step's one update), against the backward step with the update. */
static void
backward_update (Bench *k, const char *label, int n, int in, int out, int act, float rate,
                 int with_dx, NnBackendOptimizer opt)
{
  const NnBackendOps *o = k->ops;
  void *c = k->ctx;
  size_t count = (size_t) in * out + out;
  if (o->step_run == NULL)
    return;
  NnBackendStep backward = dense_step (k, 1, act, n, in, out, rate, with_dx);
  backward.db = k->dw + count - out;
  NnBackendStep update = backward;
  update.w = k->params;
  update.b = k->params + count - out;
  update.dw = update.db = NULL;
  update.update.opt = &opt;
  update.update.w_state = k->state;
  update.update.b_state = k->state + count - out;
  update.update.stride = count;
  double two = time_op (k, [&] {
    int rc = step_run (k, backward);
    return rc != 0 ? rc
                   : o->optimizer_update (c, &opt, k->params, k->dw, k->state, count, count,
                                          k->step);
  });
  printf ("%-8s backward + update %4d x %4d x %4d%s  backward step + optimizer_update %6.2f us",
          label, n, in, out, with_dx ? " + dx" : "     ", two);
  printf ("  with the update %6.2f us%s\n", time_op (k, [&] { return step_run (k, update); }),
          o->step_supported (c, &update) ? "" : " (the module says it does not pay)");
}

static void
run (Bench *k, const char *label, int internals)
{
  NnBackendOptimizer adam = { NN_BK_OPT_ADAM, 0, 1e-3f, 0.0f, 0.9f, 0.999f, 0.0f, 1e-7f };
  NnBackendOptimizer adadelta = { NN_BK_OPT_ADADELTA, 0, 1.0f, 0.0f, 0, 0, 0.95f, 1e-7f };
  backward_update (k, label, 32, 784, 128, NN_BK_ACT_RELU, 0.2f, 0, adam);
  backward_update (k, label, 32, 128, 10, NN_BK_ACT_LINEAR, 0.0f, 1, adam);
  backward_update (k, label, 32, 784, 1000, NN_BK_ACT_RELU, 0.2f, 0, adam);
  backward_update (k, label, 32, 1000, 1000, NN_BK_ACT_RELU, 0.2f, 1, adam);
  backward_update (k, label, 32, 1000, 10, NN_BK_ACT_LINEAR, 0.0f, 1, adam);
  backward_update (k, label, 256, 9216, 128, NN_BK_ACT_RELU, 0.5f, 1, adadelta);
  backward_update (k, label, 256, 128, 10, NN_BK_ACT_LINEAR, 0.0f, 1, adadelta);
  layer_unfused (k, label, 32, 784, 128, NN_BK_ACT_RELU, 0.2f, 0);
  layer_unfused (k, label, 32, 128, 10, NN_BK_ACT_LINEAR, 0.0f, 1);
  layer_unfused (k, label, 32, 784, 1000, NN_BK_ACT_RELU, 0.2f, 0);
  layer_unfused (k, label, 32, 1000, 1000, NN_BK_ACT_RELU, 0.2f, 1);
  layer_unfused (k, label, 32, 1000, 10, NN_BK_ACT_LINEAR, 0.0f, 1);
  if (internals)
    {
      routes (k, label, 32, 784, 128);
      routes (k, label, 32, 784, 1000);
      routes (k, label, 32, 1000, 1000);
      routes (k, label, 32, 128, 10);
      routes (k, label, 256, 9216, 128);
    }
  output_layer (k, label, 32, 128, 10);
  output_layer (k, label, 32, 1000, 10);
  output_layer (k, label, 32, 512, 10);
  product (k, label, 0, 0, 32, 128, 784);
  product (k, label, 0, 0, 32, 1000, 784);
  product (k, label, 0, 0, 32, 1000, 1000);
  product (k, label, 1, 0, 784, 128, 32);
  product (k, label, 1, 0, 784, 1000, 32);
  product (k, label, 1, 0, 1000, 1000, 32);
  product (k, label, 0, 1, 32, 1000, 1000);
  product (k, label, 0, 1, 32, 784, 128);
  optimizer (k, label, 101770);
  optimizer (k, label, 1796010);
}

int
main (int argc, char **argv)
{
  Bench now_k, old_k;
  if (argc > 1 && strcmp (argv[1], "--once") == 0)
    {
      once = 1;
      argc--;
      argv++;
    }
  if (!open_bench (nn_backend_cuda_get (), &now_k))
    return 1;
  run (&now_k, "new", 1);
  if (argc > 1)
    {
      void *h = dlopen (argv[1], RTLD_NOW | RTLD_LOCAL);
      NnBackendGetFunc get = h ? (NnBackendGetFunc) dlsym (h, NN_BACKEND_CUDA_SYMBOL) : NULL;
      if (get == NULL)
        {
          fprintf (stderr, "%s: %s\n", argv[1], dlerror ());
          return 1;
        }
      /* only a module built against this ABI, as the engine takes one */
      static NnBackendOps table;
      const NnBackendOps *t = get ();
      if (t->abi_version != NN_BACKEND_ABI_VERSION || t->struct_size != sizeof table)
        {
          fprintf (stderr, "%s: ABI %u (%u bytes), not %d (%zu bytes)\n", argv[1],
                   t->abi_version, t->struct_size, NN_BACKEND_ABI_VERSION, sizeof table);
          return 1;
        }
      table = *t;
      if (!open_bench (&table, &old_k))
        return 1;
      run (&old_k, "old", 0);
    }
  return 0;
}
