/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-trainer.c: the training loop on a small synthetic problem:
 * convergence, determinism, cancellation (callback and another thread), the
 * NaN stop, validation errors, the run's conditions (NnConditions), the run
 * result and its file.
 */

#define _POSIX_C_SOURCE 200809L

#include "test-util.h"

#include "json-check.h"
#include "nn-plan.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MLP "flatten; dense 32 relu; dense 4 softmax"
#define CNN "conv2d 4 3 relu; maxpool 2; dropout 0.1; flatten; dense 4 softmax"

static NnDataset *data; /* 500 training samples: 15 full batches of 32 and one of 20 */

static void
config_for (NnTrainConfig *c, const char *spec, int32_t epochs)
{
  nn_train_config_init (c);
  c->spec_text = spec;
  c->epochs = epochs;
  c->batch_size = 32;
  c->device.threads = 2;
}

/* ---------------------------------------------------------------- recording progress */

typedef struct
{
  int steps;          /* NN_PROGRESS_STEP reports */
  int epoch_ends;
  int64_t last_step;
  float losses[4096]; /* per report */
  int64_t steps_per_epoch;
  bool monotonic;
  int cancel_at;      /* return false at this step (0: never) */
} Record;

static bool
record_cb (const NnProgress *p, void *user_data)
{
  Record *r = user_data;
  if (p->kind == NN_PROGRESS_STEP)
    {
      if (p->step <= r->last_step)
        r->monotonic = false;
      r->last_step = p->step;
      if (r->steps < 4096)
        r->losses[r->steps] = p->loss;
      r->steps++;
      r->steps_per_epoch = p->steps_per_epoch;
    }
  else
    r->epoch_ends++;
  return !(r->cancel_at > 0 && p->kind == NN_PROGRESS_STEP && p->step >= r->cancel_at);
}

/* The same progress reports with the very same losses. */
static bool
same_losses (const Record *a, const Record *b)
{
  bool same = a->steps == b->steps;
  for (int i = 0; same && i < a->steps && i < 4096; i++)
    same = a->losses[i] == b->losses[i];
  return same;
}

static NnStatus
train (const NnTrainConfig *c, Record *rec, NnRunResult *result, float *weights, int64_t count,
       NnError *error)
{
  NnTrainer *t = NULL;
  NnStatus status = nn_trainer_new (c, data, &t, error);
  if (status != NN_OK)
    return status;
  if (rec != NULL)
    {
      memset (rec, 0, sizeof *rec);
      rec->monotonic = true;
      nn_trainer_set_progress (t, record_cb, rec);
    }
  status = nn_trainer_run (t, result, error);
  if (weights != NULL && nn_trainer_model (t) != NULL)
    nn_model_get_weights (nn_trainer_model (t), weights, count, error);
  nn_trainer_free (t);
  return status;
}

/* ---------------------------------------------------------------- checks */

static void
test_convergence (void)
{
  NnTrainConfig c;
  NnRunResult r;
  NnError e;
  Record rec;
  NnStatus s;

  config_for (&c, MLP, 3);
  c.progress_every = 4;
  s = train (&c, &rec, &r, NULL, 0, &e);
  tap_ok (s == NN_OK && r.status == NN_RUN_COMPLETED, "mlp trains: %s", s ? e.message : "ok");
  tap_ok (r.epoch_count == 3 && r.epochs[2].test_accuracy > 0.9f,
          "mlp: test accuracy after 3 epochs %.3f > 0.9",
          r.epoch_count == 3 ? r.epochs[2].test_accuracy : -1.0f);
  tap_ok (r.epoch_count == 3 && r.epochs[2].train_loss < r.epochs[0].train_loss,
          "mlp: training loss falls (%.3f -> %.3f)", r.epoch_count ? r.epochs[0].train_loss : 0,
          r.epoch_count == 3 ? r.epochs[2].train_loss : 0);
  tap_ok (rec.steps_per_epoch == 16 && r.step_count == 48,
          "500 samples in batches of 32: 16 steps an epoch, the last of 20 (%lld steps)",
          (long long) r.step_count);
  /* 16 steps an epoch, a report every 4: 4 an epoch */
  tap_ok (rec.steps == 12 && rec.epoch_ends == 3 && rec.monotonic,
          "progress: %d step reports, %d epoch ends, steps increasing", rec.steps, rec.epoch_ends);
  nn_run_result_clear (&r);

  config_for (&c, CNN, 3);
  c.optimizer = nn_optimizer_defaults (NN_OPT_ADADELTA);
  c.optimizer.lr = 1.0f;
  s = train (&c, NULL, &r, NULL, 0, &e);
  tap_ok (s == NN_OK && r.epoch_count == 3 && r.epochs[2].test_accuracy > 0.9f,
          "cnn with adadelta: test accuracy %.3f > 0.9 (%s)",
          r.epoch_count == 3 ? r.epochs[2].test_accuracy : -1.0f, s ? e.message : "ok");
  nn_run_result_clear (&r);

  /* the other losses train too */
  config_for (&c, MLP, 3);
  c.loss = NN_LOSS_CATEGORICAL_CROSSENTROPY;
  s = train (&c, NULL, &r, NULL, 0, &e);
  tap_ok (s == NN_OK && r.epoch_count == 3 && r.epochs[2].test_accuracy > 0.9f,
          "categorical cross-entropy: test accuracy %.3f > 0.9",
          r.epoch_count == 3 ? r.epochs[2].test_accuracy : -1.0f);
  nn_run_result_clear (&r);
  config_for (&c, MLP, 3);
  c.loss = NN_LOSS_MEAN_SQUARED_ERROR;
  c.optimizer.lr = 0.003f;
  s = train (&c, NULL, &r, NULL, 0, &e);
  tap_ok (s == NN_OK && r.epoch_count == 3 && r.epochs[2].test_accuracy > 0.85f,
          "mean squared error: test accuracy %.3f > 0.85",
          r.epoch_count == 3 ? r.epochs[2].test_accuracy : -1.0f);
  nn_run_result_clear (&r);
}

static void
test_optimizers (void)
{
  static const struct
  {
    NnOptimizerKind kind;
    float lr;
    float momentum;
    bool nesterov;
  } opts[] = {
    { NN_OPT_SGD, 0.1f, 0.0f, false },
    { NN_OPT_SGD, 0.05f, 0.9f, true },
    { NN_OPT_RMSPROP, 0.001f, 0.0f, false },
    { NN_OPT_ADAGRAD, 0.05f, 0.0f, false },
    { NN_OPT_ADADELTA, 1.0f, 0.0f, false },
  };
  for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
    {
      NnTrainConfig c;
      NnRunResult r;
      NnError e;
      NnStatus s;

      config_for (&c, MLP, 2);
      c.optimizer = nn_optimizer_defaults (opts[i].kind);
      c.optimizer.lr = opts[i].lr;
      c.optimizer.momentum = opts[i].momentum;
      c.optimizer.nesterov = opts[i].nesterov;
      s = train (&c, NULL, &r, NULL, 0, &e);
      tap_ok (s == NN_OK && r.epoch_count == 2 && r.epochs[1].test_accuracy > 0.8f,
              "%s%s: test accuracy %.3f > 0.8 after 2 epochs (%s)",
              nn_optimizer_name (opts[i].kind), opts[i].nesterov ? " nesterov" : "",
              r.epoch_count == 2 ? r.epochs[1].test_accuracy : -1.0f, s ? e.message : "ok");
      nn_run_result_clear (&r);
    }
}

static void
test_determinism (void)
{
  NnTrainConfig c;
  NnRunResult r1, r2, r3;
  NnError e;
  Record *a = calloc (1, sizeof *a), *b = calloc (1, sizeof *b), *d = calloc (1, sizeof *d);
  /* CNN has 4*1*3*3+4 + 4*3*3*4+4 parameters */
  int64_t count = 4 * 9 + 4 + 36 * 4 + 4;
  float *w1 = calloc ((size_t) count, sizeof (float));
  float *w2 = calloc ((size_t) count, sizeof (float));
  bool same;

  config_for (&c, CNN, 2);
  c.progress_every = 1;
  c.seed = 7;
  train (&c, a, &r1, w1, count, &e);
  train (&c, b, &r2, w2, count, &e);
  c.seed = 8;
  train (&c, d, &r3, NULL, 0, &e);
  same = same_losses (a, b) && a->steps == 32;
  tap_ok (same, "same seed: identical loss at every one of %d steps", a->steps);
  tap_ok (memcmp (w1, w2, sizeof (float) * (size_t) count) == 0 && w1[0] != 0.0f,
          "same seed: identical final weights");
  tap_ok (r1.epoch_count == 2 && r2.epoch_count == 2
            && r1.epochs[1].test_loss == r2.epochs[1].test_loss,
          "same seed: identical test loss");
  tap_ok (!same_losses (a, d), "another seed: different losses");
  nn_run_result_clear (&r1);
  nn_run_result_clear (&r2);
  nn_run_result_clear (&r3);
  free (a);
  free (b);
  free (d);
  free (w1);
  free (w2);
}

/* ---------------------------------------------------------------- the passes' plans
 *
 * A plan asks the backend which fused steps it runs (step_supported) when
 * it is made. The trainer plans every pass before its first step, the
 * evaluation's too, so a run asks as many questions whatever the number of
 * its epochs and test batches: none is planned again per batch.
 */

static const NnBackendOps *counted_cpu;
static int plan_questions;

static int
counting_step_supported (void *ctx, const NnBackendStep *step)
{
  plan_questions++;
  return counted_cpu->step_supported (ctx, step);
}

/* The step_supported questions of a run of the CNN for `epochs` epochs
 * (7 test batches after each). */
static int
plan_questions_in_run (int32_t epochs, NnStatus *status, NnError *error)
{
  NnBackendOps ops;
  NnTrainConfig c;
  NnRunResult r;

  counted_cpu = nn_backend_cpu_get ();
  ops = *counted_cpu;
  ops.step_supported = counting_step_supported;
  config_for (&c, CNN, epochs);
  memset (&r, 0, sizeof r);
  plan_questions = 0;
  _nn_model_set_test_ops (&ops);
  *status = train (&c, NULL, &r, NULL, 0, error);
  _nn_model_set_test_ops (NULL);
  nn_run_result_clear (&r);
  return plan_questions;
}

static void
test_plans_once (void)
{
  NnStatus s1, s3;
  NnError e1, e3;
  int one = plan_questions_in_run (1, &s1, &e1);
  int three = plan_questions_in_run (3, &s3, &e3);

  tap_ok (s1 == NN_OK && s3 == NN_OK && one > 0 && three == one,
          "plans: every pass, the evaluation's too, is planned before the first step "
          "(%d questions to the backend in 1 epoch, %d in 3) (%s)",
          one, three, s1 != NN_OK ? e1.message : s3 != NN_OK ? e3.message : "ok");
}

/* ---------------------------------------------------------------- whole-step capture
 *
 * The CPU backend has no capture, so a fake one stands in: while capturing,
 * the compute ops are recorded (arguments copied, as a CUDA graph copies
 * kernel arguments) instead of run, and graph_launch replays them. Any
 * upload, download, allocation or wait inside a capture is counted as a
 * violation: a step must do none of them.
 */

typedef enum
{
  OP_GATHER, OP_GEMM, OP_BIAS_FWD, OP_BIAS_BWD, OP_DROP_FWD, OP_DROP_BWD, OP_CONV_FWD,
  OP_CONV_BWD, OP_POOL_FWD, OP_POOL_BWD, OP_LOSS, OP_OPT, OP_COPY, OP_FILL,
} OpKind;

typedef struct
{
  OpKind kind;
  int i[8];
  float f[2];
  size_t z;
  uint64_t u;
  const void *p[8];
  NnConvShape conv;
  NnPoolShape pool;
  NnBackendOptimizer opt;
} Op;

#define FAKE_OPS_MAX 512

/* A captured graph: the ops recorded between capture_begin and capture_end. */
typedef struct
{
  Op *ops;
  int count;
} FakeGraph;

static struct
{
  const NnBackendOps *cpu;
  NnBackendOps ops;
  bool capturing;
  bool fail_end;       /* capture_end reports a failure */
  bool fail_long;      /* ... for graphs of more than one step's ops */
  Op recorded[FAKE_OPS_MAX];
  int count; /* ops recorded by the last capture */
  int violations;
  int captures;
  int launches;     /* graph launches */
  int launched_ops; /* ops those launches replayed */
  int graphs;       /* graphs alive */
} fake;

static Op *
record (OpKind kind)
{
  Op *op;
  if (fake.count >= FAKE_OPS_MAX)
    {
      fake.violations++;
      return NULL;
    }
  op = &fake.recorded[fake.count++];
  memset (op, 0, sizeof *op);
  op->kind = kind;
  return op;
}

#define CPU fake.cpu

static int
f_gather (void *ctx, const uint8_t *images, const uint8_t *labels, const int32_t *indices,
          const int64_t *step, int spe, int bs, int n, int sample, float scale, float *x,
          int32_t *lo, float *targets, int classes)
{
  Op *op;
  if (!fake.capturing)
    return CPU->gather_batch (ctx, images, labels, indices, step, spe, bs, n, sample, scale, x, lo,
                              targets, classes);
  if ((op = record (OP_GATHER)) == NULL)
    return NN_BACKEND_ERROR;
  op->p[0] = images; op->p[1] = labels; op->p[2] = indices; op->p[3] = step; op->p[4] = x;
  op->p[5] = lo; op->p[6] = targets;
  op->i[0] = spe; op->i[1] = bs; op->i[2] = n; op->i[3] = sample; op->i[4] = classes;
  op->f[0] = scale;
  return 0;
}

static int
f_gemm (void *ctx, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
        const float *b, int ldb, float beta, float *c, int ldc)
{
  Op *op;
  if (!fake.capturing)
    return CPU->gemm (ctx, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  if ((op = record (OP_GEMM)) == NULL)
    return NN_BACKEND_ERROR;
  op->i[0] = ta; op->i[1] = tb; op->i[2] = m; op->i[3] = n; op->i[4] = k; op->i[5] = lda;
  op->i[6] = ldb; op->i[7] = ldc;
  op->f[0] = alpha; op->f[1] = beta;
  op->p[0] = a; op->p[1] = b; op->p[2] = c;
  return 0;
}

static int
f_bias_fwd (void *ctx, int act, float *y, const float *bias, int n, int ch, int sp)
{
  Op *op;
  if (!fake.capturing)
    return CPU->bias_act_forward (ctx, act, y, bias, n, ch, sp);
  if ((op = record (OP_BIAS_FWD)) == NULL)
    return NN_BACKEND_ERROR;
  op->i[0] = act; op->i[1] = n; op->i[2] = ch; op->i[3] = sp;
  op->p[0] = y; op->p[1] = bias;
  return 0;
}

static int
f_bias_bwd (void *ctx, int act, const float *y, float *dy, float *dbias, int n, int ch, int sp)
{
  Op *op;
  if (!fake.capturing)
    return CPU->bias_act_backward (ctx, act, y, dy, dbias, n, ch, sp);
  if ((op = record (OP_BIAS_BWD)) == NULL)
    return NN_BACKEND_ERROR;
  op->i[0] = act; op->i[1] = n; op->i[2] = ch; op->i[3] = sp;
  op->p[0] = y; op->p[1] = dy; op->p[2] = dbias;
  return 0;
}

static int
f_drop (OpKind kind, void *ctx, float *y, const float *x, size_t count, float rate, uint64_t seed,
        const int64_t *step)
{
  Op *op;
  if (!fake.capturing)
    return kind == OP_DROP_FWD ? CPU->dropout_forward (ctx, y, x, count, rate, seed, step)
                               : CPU->dropout_backward (ctx, y, x, count, rate, seed, step);
  if ((op = record (kind)) == NULL)
    return NN_BACKEND_ERROR;
  op->p[0] = y; op->p[1] = x; op->p[2] = step;
  op->z = count; op->f[0] = rate; op->u = seed;
  return 0;
}

static int
f_drop_fwd (void *ctx, float *y, const float *x, size_t count, float rate, uint64_t seed,
            const int64_t *step)
{
  return f_drop (OP_DROP_FWD, ctx, y, x, count, rate, seed, step);
}

static int
f_drop_bwd (void *ctx, float *dx, const float *dy, size_t count, float rate, uint64_t seed,
            const int64_t *step)
{
  return f_drop (OP_DROP_BWD, ctx, dx, dy, count, rate, seed, step);
}

static int
f_conv_fwd (void *ctx, void *plan, const float *x, const float *w, float *y, void *ws)
{
  Op *op;
  if (!fake.capturing)
    return CPU->conv2d_forward (ctx, plan, x, w, y, ws);
  if ((op = record (OP_CONV_FWD)) == NULL)
    return NN_BACKEND_ERROR;
  op->p[0] = plan; op->p[1] = x; op->p[2] = w; op->p[3] = y; op->p[4] = ws;
  return 0;
}

static int
f_conv_bwd (void *ctx, void *plan, const float *x, const float *w, const float *dy, float *dx,
            float *dw, void *ws)
{
  Op *op;
  if (!fake.capturing)
    return CPU->conv2d_backward (ctx, plan, x, w, dy, dx, dw, ws);
  if ((op = record (OP_CONV_BWD)) == NULL)
    return NN_BACKEND_ERROR;
  op->p[0] = plan; op->p[1] = x; op->p[2] = w; op->p[3] = dy; op->p[4] = dx; op->p[5] = dw;
  op->p[6] = ws;
  return 0;
}

static int
f_pool_fwd (void *ctx, int mode, const NnPoolShape *shape, const float *x, float *y)
{
  Op *op;
  if (!fake.capturing)
    return CPU->pool2d_forward (ctx, mode, shape, x, y);
  if ((op = record (OP_POOL_FWD)) == NULL)
    return NN_BACKEND_ERROR;
  op->i[0] = mode; op->pool = *shape; op->p[0] = x; op->p[1] = y;
  return 0;
}

static int
f_pool_bwd (void *ctx, int mode, const NnPoolShape *shape, const float *x, const float *y,
            const float *dy, float *dx)
{
  Op *op;
  if (!fake.capturing)
    return CPU->pool2d_backward (ctx, mode, shape, x, y, dy, dx);
  if ((op = record (OP_POOL_BWD)) == NULL)
    return NN_BACKEND_ERROR;
  op->i[0] = mode; op->pool = *shape; op->p[0] = x; op->p[1] = y; op->p[2] = dy; op->p[3] = dx;
  return 0;
}

static int
f_loss (void *ctx, int kind, const float *pred, const int32_t *labels, const float *targets,
        float *grad, float *stats, int n, int classes)
{
  Op *op;
  if (!fake.capturing)
    return CPU->loss (ctx, kind, pred, labels, targets, grad, stats, n, classes);
  if ((op = record (OP_LOSS)) == NULL)
    return NN_BACKEND_ERROR;
  op->i[0] = kind; op->i[1] = n; op->i[2] = classes;
  op->p[0] = pred; op->p[1] = labels; op->p[2] = targets; op->p[3] = grad; op->p[4] = stats;
  return 0;
}

static int
f_opt (void *ctx, const NnBackendOptimizer *opt, float *params, const float *grads, float *state,
       size_t count, size_t stride, int64_t *step)
{
  Op *op;
  if (!fake.capturing)
    return CPU->optimizer_update (ctx, opt, params, grads, state, count, stride, step);
  if ((op = record (OP_OPT)) == NULL)
    return NN_BACKEND_ERROR;
  op->opt = *opt; op->p[0] = params; op->p[1] = grads; op->p[2] = state; op->p[3] = step;
  op->z = count;
  op->u = stride;
  return 0;
}

static int
f_copy (void *ctx, void *dst, const void *src, size_t bytes)
{
  Op *op;
  if (!fake.capturing)
    return CPU->copy (ctx, dst, src, bytes);
  if ((op = record (OP_COPY)) == NULL)
    return NN_BACKEND_ERROR;
  op->p[0] = dst; op->p[1] = src; op->z = bytes;
  return 0;
}

static int
f_fill (void *ctx, float *dst, float value, size_t count)
{
  Op *op;
  if (!fake.capturing)
    return CPU->fill (ctx, dst, value, count);
  if ((op = record (OP_FILL)) == NULL)
    return NN_BACKEND_ERROR;
  op->p[0] = dst; op->f[0] = value; op->z = count;
  return 0;
}

/* what a step must never do */
static int
f_alloc (void *ctx, size_t bytes, void **ptr)
{
  fake.violations += fake.capturing;
  return CPU->alloc (ctx, bytes, ptr);
}

static int
f_upload (void *ctx, void *dst, const void *src, size_t bytes)
{
  fake.violations += fake.capturing;
  return CPU->upload (ctx, dst, src, bytes);
}

static int
f_download (void *ctx, void *dst, const void *src, size_t bytes)
{
  fake.violations += fake.capturing;
  return CPU->download (ctx, dst, src, bytes);
}

static int
f_synchronize (void *ctx)
{
  fake.violations += fake.capturing;
  return CPU->synchronize (ctx);
}

static int
f_plan_new (void *ctx, const NnConvShape *shape, void **plan, size_t *ws)
{
  fake.violations += fake.capturing;
  return CPU->conv2d_plan_new (ctx, shape, plan, ws);
}

static int
f_capture_begin (void *ctx)
{
  fake.capturing = true;
  fake.count = 0;
  return 0;
}

/* The ops of one step, from the first capture: a longer capture holds
 * several steps. */
static int one_step_ops;

static int
f_capture_end (void *ctx, void **graph)
{
  FakeGraph *g;

  fake.capturing = false;
  fake.captures++;
  *graph = NULL;
  if (one_step_ops == 0)
    one_step_ops = fake.count;
  if (fake.fail_end || (fake.fail_long && fake.count > one_step_ops))
    return NN_BACKEND_ERROR;
  g = malloc (sizeof *g);
  g->ops = malloc (sizeof (Op) * (size_t) (fake.count > 0 ? fake.count : 1));
  memcpy (g->ops, fake.recorded, sizeof (Op) * (size_t) fake.count);
  g->count = fake.count;
  fake.graphs++;
  *graph = g;
  return 0;
}

static int
f_graph_launch (void *ctx, void *graph)
{
  const FakeGraph *g = graph;

  fake.launches++;
  fake.launched_ops += g->count;
  for (int k = 0; k < g->count; k++)
    {
      const Op *o = &g->ops[k];
      int rc = 0;
      switch (o->kind)
        {
        case OP_GATHER:
          rc = CPU->gather_batch (ctx, o->p[0], o->p[1], o->p[2], o->p[3], o->i[0], o->i[1],
                                  o->i[2], o->i[3], o->f[0], (float *) o->p[4],
                                  (int32_t *) o->p[5], (float *) o->p[6], o->i[4]);
          break;
        case OP_GEMM:
          rc = CPU->gemm (ctx, o->i[0], o->i[1], o->i[2], o->i[3], o->i[4], o->f[0], o->p[0],
                          o->i[5], o->p[1], o->i[6], o->f[1], (float *) o->p[2], o->i[7]);
          break;
        case OP_BIAS_FWD:
          rc = CPU->bias_act_forward (ctx, o->i[0], (float *) o->p[0], o->p[1], o->i[1], o->i[2],
                                      o->i[3]);
          break;
        case OP_BIAS_BWD:
          rc = CPU->bias_act_backward (ctx, o->i[0], o->p[0], (float *) o->p[1], (float *) o->p[2],
                                       o->i[1], o->i[2], o->i[3]);
          break;
        case OP_DROP_FWD:
          rc = CPU->dropout_forward (ctx, (float *) o->p[0], o->p[1], o->z, o->f[0], o->u, o->p[2]);
          break;
        case OP_DROP_BWD:
          rc = CPU->dropout_backward (ctx, (float *) o->p[0], o->p[1], o->z, o->f[0], o->u,
                                      o->p[2]);
          break;
        case OP_CONV_FWD:
          rc = CPU->conv2d_forward (ctx, (void *) o->p[0], o->p[1], o->p[2], (float *) o->p[3],
                                    (void *) o->p[4]);
          break;
        case OP_CONV_BWD:
          rc = CPU->conv2d_backward (ctx, (void *) o->p[0], o->p[1], o->p[2], o->p[3],
                                     (float *) o->p[4], (float *) o->p[5], (void *) o->p[6]);
          break;
        case OP_POOL_FWD:
          rc = CPU->pool2d_forward (ctx, o->i[0], &o->pool, o->p[0], (float *) o->p[1]);
          break;
        case OP_POOL_BWD:
          rc = CPU->pool2d_backward (ctx, o->i[0], &o->pool, o->p[0], o->p[1], o->p[2],
                                     (float *) o->p[3]);
          break;
        case OP_LOSS:
          rc = CPU->loss (ctx, o->i[0], o->p[0], o->p[1], o->p[2], (float *) o->p[3],
                          (float *) o->p[4], o->i[1], o->i[2]);
          break;
        case OP_OPT:
          rc = CPU->optimizer_update (ctx, &o->opt, (float *) o->p[0], o->p[1], (float *) o->p[2],
                                      o->z, (size_t) o->u, (int64_t *) o->p[3]);
          break;
        case OP_COPY:
          rc = CPU->copy (ctx, (void *) o->p[0], o->p[1], o->z);
          break;
        case OP_FILL:
          rc = CPU->fill (ctx, (float *) o->p[0], o->f[0], o->z);
          break;
        }
      if (rc != 0)
        return rc;
    }
  return 0;
}

static void
f_graph_free (void *ctx, void *graph)
{
  FakeGraph *g = graph;

  free (g->ops);
  free (g);
  fake.graphs--;
}

static void
fake_init (void)
{
  memset (&fake, 0, sizeof fake);
  fake.cpu = nn_backend_cpu_get ();
  fake.ops = *fake.cpu;
  fake.ops.name = "fake-capture";
  fake.ops.gather_batch = f_gather;
  fake.ops.gemm = f_gemm;
  fake.ops.bias_act_forward = f_bias_fwd;
  fake.ops.bias_act_backward = f_bias_bwd;
  fake.ops.dropout_forward = f_drop_fwd;
  fake.ops.dropout_backward = f_drop_bwd;
  fake.ops.conv2d_forward = f_conv_fwd;
  fake.ops.conv2d_backward = f_conv_bwd;
  fake.ops.pool2d_forward = f_pool_fwd;
  fake.ops.pool2d_backward = f_pool_bwd;
  fake.ops.loss = f_loss;
  fake.ops.optimizer_update = f_opt;
  fake.ops.copy = f_copy;
  fake.ops.fill = f_fill;
  fake.ops.alloc = f_alloc;
  fake.ops.upload = f_upload;
  fake.ops.upload_async = f_upload;
  fake.ops.download = f_download;
  fake.ops.synchronize = f_synchronize;
  fake.ops.conv2d_plan_new = f_plan_new;
  fake.ops.capture_begin = f_capture_begin;
  fake.ops.capture_end = f_capture_end;
  fake.ops.graph_launch = f_graph_launch;
  fake.ops.graph_free = f_graph_free;
  /* The fused steps are not recorded: the engine runs the ops above. */
  fake.ops.step_supported = NULL;
  fake.ops.step_run = NULL;
  one_step_ops = 0;
}

/* The runs the capture tests compare: the CNN for 2 epochs (15 full steps
 * an epoch, then a partial one) with progress every `progress_every` steps,
 * first on the plain CPU table (the reference, run here), then on the
 * capturing fake and once more with a capture made to fail. */
typedef struct
{
  NnTrainConfig c;
  Record *plain, *captured, *fallback;
  NnRunResult plain_result, captured_result, fallback_result;
  float *plain_weights, *captured_weights;
  int64_t count; /* the CNN's parameters */
} CaptureRuns;

static void
capture_runs_begin (CaptureRuns *r, int32_t progress_every)
{
  NnError e;

  memset (r, 0, sizeof *r);
  r->plain = calloc (1, sizeof *r->plain);
  r->captured = calloc (1, sizeof *r->captured);
  r->fallback = calloc (1, sizeof *r->fallback);
  r->count = 4 * 9 + 4 + 36 * 4 + 4;
  r->plain_weights = calloc ((size_t) r->count, sizeof (float));
  r->captured_weights = calloc ((size_t) r->count, sizeof (float));
  fake_init ();
  config_for (&r->c, CNN, 2); /* conv, pool, dropout */
  r->c.progress_every = progress_every;
  train (&r->c, r->plain, &r->plain_result, r->plain_weights, r->count, &e);
  _nn_model_set_test_ops (&fake.ops);
}

/* The captured run's losses and weights are the plain run's. */
static bool
capture_runs_same (const CaptureRuns *r)
{
  return same_losses (r->plain, r->captured)
         && memcmp (r->plain_weights, r->captured_weights, sizeof (float) * (size_t) r->count) == 0;
}

static void
capture_runs_end (CaptureRuns *r)
{
  _nn_model_set_test_ops (NULL);
  nn_run_result_clear (&r->plain_result);
  nn_run_result_clear (&r->captured_result);
  nn_run_result_clear (&r->fallback_result);
  free (r->plain);
  free (r->captured);
  free (r->fallback);
  free (r->plain_weights);
  free (r->captured_weights);
}

static void
test_capture (void)
{
  CaptureRuns r;
  NnError e;
  NnStatus s;

  capture_runs_begin (&r, 1);
  s = train (&r.c, r.captured, &r.captured_result, r.captured_weights, r.count, &e);
  tap_ok (s == NN_OK && fake.captures == 1 && fake.count > 10,
          "capture: one step captured (%d ops) (%s)", fake.count, s ? e.message : "ok");
  /* 30 full steps: one warm-up, then the captured one and 28 more replays */
  tap_ok (fake.launches == 29, "capture: full steps after the warm-up replay the graph (%d)",
          fake.launches);
  tap_ok (fake.violations == 0,
          "capture: no allocation, copy to or from the host, or wait in a step");
  tap_ok (capture_runs_same (&r) && r.plain->steps == 32,
          "capture: replayed steps give the very losses and weights of plain steps");
  tap_ok (r.captured_result.step_count == 32 && r.captured_result.step_seconds_median > 0
              && r.captured_result.time_to_first_step_seconds > 0,
          "capture: step times measured over intervals (median %.6f s)",
          r.captured_result.step_seconds_median);

  /* a capture that fails: plain steps, the run goes on */
  fake.fail_end = true;
  fake.launches = 0;
  fake.captures = 0;
  s = train (&r.c, r.fallback, &r.fallback_result, NULL, 0, &e);
  tap_ok (s == NN_OK && fake.captures == 1 && fake.launches == 0
              && same_losses (r.plain, r.fallback) && r.fallback_result.status == NN_RUN_COMPLETED,
          "capture: a failed capture falls back to plain steps with the same losses");
  capture_runs_end (&r);
}

/* Several steps to a graph (TRAINBENCH_GRAPH_STEPS): between progress
 * reports and before an epoch's partial batch only, with the very losses of
 * plain steps; a capture of several steps that fails leaves the one-step
 * graph in use. */
static void
test_capture_many (void)
{
  CaptureRuns r;
  NnError e;
  NnStatus s;

  capture_runs_begin (&r, 6);
  test_setenv ("TRAINBENCH_GRAPH_STEPS", "4");
  s = train (&r.c, r.captured, &r.captured_result, r.captured_weights, r.count, &e);
  /* 30 full steps, the first plain: each of the other 29 replayed once */
  tap_ok (s == NN_OK && fake.captures == 2 && one_step_ops > 10
              && fake.launched_ops == 29 * one_step_ops && fake.launches < 29 && fake.launches > 4
              && fake.graphs == 0,
          "capture: graphs of four steps where they fit (%d launches for 29 steps, %d ops) (%s)",
          fake.launches, fake.launched_ops, s ? e.message : "ok");
  tap_ok (capture_runs_same (&r) && r.plain->steps == 6 && r.captured_result.step_count == 32
              && fake.violations == 0,
          "capture: four steps to a graph give the very losses and weights of plain steps");

  fake.fail_long = true;
  fake.launches = fake.launched_ops = fake.captures = 0;
  s = train (&r.c, r.fallback, &r.fallback_result, NULL, 0, &e);
  tap_ok (s == NN_OK && fake.captures == 2 && fake.launches == 29
              && same_losses (r.plain, r.fallback) && r.fallback_result.status == NN_RUN_COMPLETED,
          "capture: a failed capture of four steps leaves the one-step graph (%d launches)",
          fake.launches);
  fake.fail_long = false;
  test_setenv ("TRAINBENCH_GRAPH_STEPS", NULL);
  capture_runs_end (&r);
}

static void
test_cancel_callback (void)
{
  NnTrainConfig c;
  NnRunResult r;
  NnError e;
  Record *rec = calloc (1, sizeof *rec);
  NnTrainer *t = NULL;
  NnStatus s;

  config_for (&c, MLP, 5);
  c.progress_every = 1;
  nn_trainer_new (&c, data, &t, &e);
  rec->monotonic = true;
  rec->cancel_at = 21; /* in the second epoch */
  nn_trainer_set_progress (t, record_cb, rec);
  s = nn_trainer_run (t, &r, &e);
  tap_ok (s == NN_ERROR_CANCELLED && r.status == NN_RUN_CANCELLED,
          "callback returning false cancels: %s", e.message);
  tap_ok (r.step_count == 21, "cancelled within one step (%lld steps run)",
          (long long) r.step_count);
  tap_ok (r.epoch_count == 1 && r.epochs[0].test_accuracy > 0.0f,
          "the finished epoch is kept (%d)", r.epoch_count);
  tap_ok (r.run_id[0] != '\0' && strstr (r.error, "cancel") != NULL,
          "a cancelled run is recorded with its reason: %s", r.error);
  tap_ok (nn_result_write (&r, NULL, test_path ("cancelled.json"), &e) == NN_OK,
          "a cancelled run's result is written");
  nn_run_result_clear (&r);
  nn_trainer_free (t);
  free (rec);
}

typedef struct
{
  NnTrainer *trainer;
  atomic_int reached;    /* the training thread is parked in the callback */
  atomic_int cancelled;  /* the other thread has called nn_trainer_cancel */
  atomic_llong step;     /* the step the callback saw */
  NnRunResult result;
  NnStatus status;
} ThreadRun;

static bool
park_cb (const NnProgress *p, void *user_data)
{
  ThreadRun *tr = user_data;
  if (p->kind != NN_PROGRESS_STEP || p->step != 10)
    return true;
  atomic_store (&tr->step, p->step);
  atomic_store (&tr->reached, 1);
  /* wait (at most 10 s) until the main thread has cancelled */
  for (int i = 0; i < 10000 && atomic_load (&tr->cancelled) == 0; i++)
    {
      struct timespec ts = { 0, 1000000 };
      nanosleep (&ts, NULL);
    }
  return true;
}

static void *
thread_main (void *user_data)
{
  ThreadRun *tr = user_data;
  NnError e;
  tr->status = nn_trainer_run (tr->trainer, &tr->result, &e);
  return NULL;
}

static void
test_cancel_thread (void)
{
  NnTrainConfig c;
  NnError e;
  ThreadRun *tr = calloc (1, sizeof *tr);
  pthread_t thread;

  config_for (&c, MLP, 100);
  c.progress_every = 1;
  if (!tap_ok (nn_trainer_new (&c, data, &tr->trainer, &e) == NN_OK, "trainer for the thread test"))
    return;
  nn_trainer_set_progress (tr->trainer, park_cb, tr);
  pthread_create (&thread, NULL, thread_main, tr);
  for (int i = 0; i < 60000 && atomic_load (&tr->reached) == 0; i++)
    {
      struct timespec ts = { 0, 1000000 };
      nanosleep (&ts, NULL);
    }
  nn_trainer_cancel (tr->trainer);
  atomic_store (&tr->cancelled, 1);
  pthread_join (thread, NULL);
  tap_ok (tr->status == NN_ERROR_CANCELLED && tr->result.status == NN_RUN_CANCELLED,
          "nn_trainer_cancel from another thread cancels the run");
  tap_ok (tr->result.step_count == atomic_load (&tr->step),
          "it stops before the next step (cancelled at step %lld, %lld run)",
          (long long) atomic_load (&tr->step), (long long) tr->result.step_count);
  nn_run_result_clear (&tr->result);
  nn_trainer_free (tr->trainer);
  free (tr);
}

static void
test_nan_stop (void)
{
  NnTrainConfig c;
  NnRunResult r;
  NnError e;
  NnStatus s;

  config_for (&c, MLP, 3);
  c.optimizer = nn_optimizer_defaults (NN_OPT_SGD);
  c.optimizer.lr = 1e30f;
  c.progress_every = 1;
  s = train (&c, NULL, &r, NULL, 0, &e);
  tap_ok (s == NN_ERROR_DIVERGED && r.status == NN_RUN_FAILED,
          "sgd with lr 1e30 stops with 'diverged' (%s)", nn_status_name (s));
  tap_ok (strstr (e.message, "learning rate") != NULL && strstr (r.error, "step") != NULL,
          "the message says where and what to do: %s", e.message);
  tap_ok (r.step_count < 10, "it stops early (%lld steps)", (long long) r.step_count);
  nn_run_result_clear (&r);
}

static void
test_validation (void)
{
  NnTrainConfig c;
  NnTrainer *t = NULL;
  NnError e;
  NnStatus s;
  NnDataset *odd;

  config_for (&c, "flatten; dense 10 softmax", 1);
  s = nn_trainer_new (&c, data, &t, &e);
  tap_ok (s == NN_ERROR_SHAPE && strstr (e.message, "4 classes") != NULL,
          "last layer against classes: %s", e.message);

  config_for (&c, MLP, 1);
  c.batch_size = 0;
  s = nn_trainer_new (&c, data, &t, &e);
  tap_ok (s == NN_ERROR_INVALID_ARGUMENT && strstr (e.message, "batch") != NULL,
          "batch 0: %s", e.message);
  c.batch_size = 70000;
  s = nn_trainer_new (&c, data, &t, &e);
  tap_ok (s == NN_ERROR_INVALID_ARGUMENT && strstr (e.message, "batch") != NULL,
          "batch 70000: %s", e.message);

  config_for (&c, MLP, 0);
  s = nn_trainer_new (&c, data, &t, &e);
  tap_ok (s == NN_ERROR_INVALID_ARGUMENT && strstr (e.message, "epochs") != NULL,
          "epochs 0: %s", e.message);

  config_for (&c, "flatten; dense 4 softmax; bogus 3", 1);
  s = nn_trainer_new (&c, data, &t, &e);
  tap_ok (s == NN_ERROR_SPEC, "bad spec: %s", e.message);

  config_for (&c, "conv2d 4 9 relu; flatten; dense 4 softmax", 1);
  s = nn_trainer_new (&c, data, &t, &e);
  tap_ok (s == NN_ERROR_SHAPE, "kernel larger than the 8x8 images: %s", e.message);

  config_for (&c, MLP, 1);
  c.optimizer.lr = -1.0f;
  s = nn_trainer_new (&c, data, &t, &e);
  tap_ok (s == NN_ERROR_INVALID_ARGUMENT && strstr (e.message, "lr") != NULL,
          "negative learning rate: %s", e.message);

  config_for (&c, NULL, 1);
  s = nn_trainer_new (&c, data, &t, &e);
  tap_ok (s == NN_ERROR_SPEC, "no spec: %s", e.message);

  odd = test_make_dataset (20, 10, 4, 1, 8, 8, 5);
  odd->test.width = 4; /* pretend the test images are another size */
  odd->test.height = 16;
  config_for (&c, MLP, 1);
  s = nn_trainer_new (&c, odd, &t, &e);
  tap_ok (s == NN_ERROR_SHAPE && strstr (e.message, "test") != NULL,
          "training and test images of different shapes: %s", e.message);
  odd->test.count = 0;
  s = nn_trainer_new (&c, odd, &t, &e);
  tap_ok (s == NN_ERROR_INVALID_ARGUMENT && strstr (e.message, "empty") != NULL,
          "empty test split: %s", e.message);
  nn_dataset_free (odd);
  tap_ok (t == NULL, "no trainer is made on errors");
}

/* nn_spec_check_data: the trainer's check of the model against the data,
 * from the data set's shape and classes alone, with the same messages. */
static void
test_check_data (void)
{
  NnDatasetInfo info;
  const char *const refused[] = {
    "flatten; dense 10 softmax",                    /* outputs against classes */
    "flatten; dense 3 softmax",                     /* fewer outputs, every label used */
    "conv2d 4 9 relu; flatten; dense 4 softmax",    /* a kernel larger than the images */
    "dense 4 softmax",                              /* no flatten before dense */
    "conv2d 4 3 relu",                              /* ends in images, not classes */
  };

  memset (&info, 0, sizeof info);
  info.channels = 1;
  info.height = 8;
  info.width = 8;
  info.train_count = data->train.count;
  info.test_count = data->test.count;
  info.classes = 4;
  info.labels_used = 4;
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
    {
      NnTrainConfig c;
      NnTrainer *t = NULL;
      NnSpec *spec = NULL;
      NnError e, te;
      NnStatus s, ts;

      nn_error_clear (&e);
      nn_error_clear (&te);
      s = nn_spec_parse (refused[i], &spec, &e);
      if (s == NN_OK)
        s = nn_spec_check_data (spec, &info, &e);
      config_for (&c, refused[i], 1);
      ts = nn_trainer_new (&c, data, &t, &te);
      tap_ok (s != NN_OK && s == ts && strcmp (e.message, te.message) == 0,
              "'%s' is refused without the data set as the trainer refuses it: %s",
              refused[i], e.message);
      nn_trainer_free (t);
      nn_spec_free (spec);
    }

  NnSpec *spec = NULL;
  NnError e;
  nn_error_clear (&e);
  tap_ok (nn_spec_parse (MLP, &spec, &e) == NN_OK && nn_spec_check_data (spec, &info, &e) == NN_OK,
          "a model that fits passes: %s", e.message);
  nn_spec_free (spec);
  /* 4 classes by the largest label, 3 label values used: a label that
   * looks damaged, which the trainer names with its sample */
  info.labels_used = 3;
  spec = NULL;
  tap_ok (nn_spec_parse ("flatten; dense 3 softmax", &spec, &e) == NN_OK
            && nn_spec_check_data (spec, &info, &e) == NN_OK,
          "fewer outputs than classes with labels unused is left to the trainer");
  nn_spec_free (spec);
  info.labels_used = 4;
  info.height = 0;
  spec = NULL;
  tap_ok (nn_spec_parse (MLP, &spec, &e) == NN_OK
            && nn_spec_check_data (spec, &info, &e) == NN_ERROR_INVALID_ARGUMENT,
          "an empty image shape is refused: %s", e.message);
  nn_spec_free (spec);
}

/* What a run needs is checked against the memory there is before anything
 * is allocated: a batch too large fails at once with a message that names
 * what does not fit and the batch that would (here the memory is capped
 * with TRAINBENCH_MEMORY_LIMIT). */
static void
test_memory (void)
{
  NnTrainConfig c;
  NnTrainer *t = NULL;
  NnRunResult r;
  NnError e;
  NnStatus s;

  test_setenv ("TRAINBENCH_MEMORY_LIMIT", "64M");
  config_for (&c, "conv2d 64 3 relu; conv2d 64 3 relu; flatten; dense 4 softmax", 1);
  c.batch_size = 4096;   /* activations alone: 4096 x (2 x 64 x 6 x 6 + 64 x 4 x 4) floats */
  c.max_steps = 1;
  s = nn_trainer_new (&c, data, &t, &e);
  double start = _nn_now ();
  if (s == NN_OK)
    s = nn_trainer_run (t, &r, &e);
  double seconds = _nn_now () - start;
  tap_ok (s == NN_ERROR_NO_MEMORY && strstr (e.message, "does not fit in memory") != NULL
            && strstr (e.message, "activations") != NULL
            && strstr (e.message, "TRAINBENCH_MEMORY_LIMIT") != NULL
            && strstr (e.message, "smaller batch") != NULL,
          "a batch too large for the memory fails before training: %s", e.message);
  tap_ok (s == NN_ERROR_NO_MEMORY && r.status == NN_RUN_FAILED && r.step_count == 0
            && seconds < 5,
          "at once (%.2f s), recorded as a failed run", seconds);
  if (t != NULL)
    nn_run_result_clear (&r);
  nn_trainer_free (t);
  t = NULL;

  /* the same model at a batch that fits trains */
  c.batch_size = 16;
  s = nn_trainer_new (&c, data, &t, &e);
  if (s == NN_OK)
    s = nn_trainer_run (t, &r, &e);
  tap_ok (s == NN_OK, "at batch 16 it fits and trains (%s)", s == NN_OK ? "" : e.message);
  if (t != NULL)
    nn_run_result_clear (&r);
  nn_trainer_free (t);

  /* a model built alone (evaluate's) is checked the same way */
  NnSpec *spec = NULL;
  NnModel *model = NULL;
  NnDeviceOptions device = { .kind = NN_DEVICE_CPU, .threads = 1 };
  nn_spec_parse ("flatten; dense 4096 relu; dense 4 softmax", &spec, &e);
  s = nn_model_new (spec, (NnInputShape){ 1, 8, 8 }, 65536, &device, 1, &model, &e);
  tap_ok (s == NN_ERROR_NO_MEMORY && model == NULL && strstr (e.message, "activations") != NULL,
          "nn_model_new at a batch too large: %s", e.message);
  nn_model_free (model);
  nn_spec_free (spec);

  /* a limit written lowercase with a space is a limit; one that is not a
   * size fails the run, naming the variable, rather than let it run
   * without one */
  static const struct
  {
    const char *text;
    NnStatus status;
    const char *says;
  } spellings[] = {
    { "64 m", NN_ERROR_NO_MEMORY, "TRAINBENCH_MEMORY_LIMIT is 64.0 MiB" },
    { "0.0625gb", NN_ERROR_NO_MEMORY, "TRAINBENCH_MEMORY_LIMIT is 64.0 MiB" },
    { "1,5G", NN_ERROR_INVALID_ARGUMENT, "TRAINBENCH_MEMORY_LIMIT: '1,5G' has a comma" },
    { "1P", NN_ERROR_INVALID_ARGUMENT, "TRAINBENCH_MEMORY_LIMIT: '1P': unknown unit 'P'" },
  };
  c.batch_size = 4096;
  for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++)
    {
      test_setenv ("TRAINBENCH_MEMORY_LIMIT", spellings[i].text);
      t = NULL;
      nn_error_clear (&e);
      s = nn_trainer_new (&c, data, &t, &e);
      if (s == NN_OK)
        s = nn_trainer_run (t, &r, &e);
      tap_ok (s == spellings[i].status && strstr (e.message, spellings[i].says) != NULL
                && (t == NULL || (r.status == NN_RUN_FAILED && r.step_count == 0)),
              "TRAINBENCH_MEMORY_LIMIT=\"%s\": the run fails before training: %s",
              spellings[i].text, e.message);
      if (t != NULL)
        nn_run_result_clear (&r);
      nn_trainer_free (t);
    }
  test_setenv ("TRAINBENCH_MEMORY_LIMIT", NULL);
}

static void
test_result (void)
{
  NnTrainConfig c;
  NnRunResult r;
  NnError e;
  NnTrainer *t = NULL;
  NnStatus s;
  float test_loss, test_accuracy;
  char *json;
  bool steps_rise = true;

  config_for (&c, CNN, 2);
  c.model_name = "tiny-cnn";
  c.progress_every = 1;
  nn_trainer_new (&c, data, &t, &e);
  s = nn_trainer_run (t, &r, &e);
  tap_ok (s == NN_OK && r.status == NN_RUN_COMPLETED && r.error[0] == '\0', "run completes");
  tap_ok (r.run_id[0] != '\0' && r.started_at[0] != '\0' && strstr (r.run_id, "tiny-cnn") != NULL,
          "run id %s, started at %s", r.run_id, r.started_at);
  tap_ok (strcmp (r.spec_text, CNN) == 0 && r.config.spec_text == r.spec_text
            && strcmp (r.model_name, "tiny-cnn") == 0 && r.config.batch_size == 32,
          "spec, model name and hyperparameters recorded");
  tap_ok (r.device.kind == NN_DEVICE_CPU && r.device.name[0] != '\0' && r.threads == 2,
          "device %s, %d threads", r.device.name, r.threads);
  tap_ok (strcmp (r.dataset_name, "synthetic") == 0 && r.train_samples == 500
            && r.test_samples == 200,
          "data set recorded");
  tap_ok (r.params == nn_model_param_count (nn_trainer_model (t)) && r.params == 188,
          "params %lld", (long long) r.params);
  tap_ok (r.epoch_count == 2 && r.epochs[0].epoch == 1 && r.epochs[1].epoch == 2
            && r.epochs[1].seconds > 0 && r.epochs[1].samples_per_second > 0
            && r.epochs[1].train_accuracy > 0 && r.epochs[1].test_loss > 0,
          "epoch records");
  tap_ok (r.step_count == 32 && r.step_seconds_p10 > 0
            && r.step_seconds_p10 <= r.step_seconds_median
            && r.step_seconds_median <= r.step_seconds_p90,
          "step times: p10 %.6f <= median %.6f <= p90 %.6f", r.step_seconds_p10,
          r.step_seconds_median, r.step_seconds_p90);
  for (int i = 1; i < r.loss_curve_count; i++)
    if (r.loss_curve_steps[i] <= r.loss_curve_steps[i - 1])
      steps_rise = false;
  tap_ok (r.loss_curve_count == 32 && steps_rise && r.loss_curve_steps[31] == 32
            && isfinite (r.loss_curve[0]) && r.loss_curve[31] < r.loss_curve[0],
          "loss curve: %d points, %.3f -> %.3f", r.loss_curve_count, r.loss_curve[0],
          r.loss_curve_count ? r.loss_curve[r.loss_curve_count - 1] : 0.0f);
  tap_ok (r.time_to_first_step_seconds > 0 && r.total_seconds >= r.time_to_first_step_seconds
            && r.total_seconds >= r.epochs[0].seconds + r.epochs[1].seconds,
          "total %.3f s, first step after %.3f s", r.total_seconds, r.time_to_first_step_seconds);

  s = nn_model_evaluate (nn_trainer_model (t), &data->test, c.loss, &test_loss, &test_accuracy, &e);
  tap_ok (s == NN_OK && fabsf (test_accuracy - r.epochs[1].test_accuracy) < 1e-6f
            && fabsf (test_loss - r.epochs[1].test_loss) < 1e-4f * (1.0f + test_loss),
          "nn_model_evaluate agrees with the last epoch's test figures (%.4f, %.4f)", test_loss,
          test_accuracy);

  /* the plan of its steps, as nn_train_plan says it before a run */
  {
    NnPlanStep *steps = NULL;
    int32_t count = 0;
    s = nn_train_plan (&c, (NnInputShape){ 1, 8, 8 }, &steps, &count, &e);
    tap_ok (s == NN_OK && r.plan_count == count && count >= 6 && r.plan != NULL
                && memcmp (r.plan, steps, sizeof *steps * (size_t) count) == 0
                /* the CPU's one fused step */
                && strcmp (r.plan[0].kind, "conv") == 0
                && r.plan[0].fused && r.plan[0].first == 1
                && strcmp (r.plan[0].layers, "conv2d 4 3 relu") == 0 && r.plan[count - 1].backward,
            "the result holds the plan of its steps, as nn_train_plan says it (%d steps)",
            (int) r.plan_count);
    free (steps);
  }

  s = nn_result_write (&r, NULL, test_path ("run.json"), &e);
  json = test_read_file (test_path ("run.json"), NULL);
  tap_ok (s == NN_OK && json != NULL && strstr (json, "\"schema\"") != NULL
            && strstr (json, r.run_id) != NULL && strstr (json, "\"completed\"") != NULL
            && strstr (json, "\"plan\": [") != NULL
            && strstr (json, "\"layers\": \"conv2d 4 3 relu\"") != NULL,
          "nn_result_write writes the run, its plan too (%s)", s ? e.message : "ok");
  free (json);
  nn_run_result_clear (&r);
  nn_trainer_free (t);

  /* a step limit ends the run early, completed, with the partial epoch evaluated */
  config_for (&c, MLP, 3);
  c.max_steps = 7;
  s = train (&c, NULL, &r, NULL, 0, &e);
  tap_ok (s == NN_OK && r.status == NN_RUN_COMPLETED && r.step_count == 7 && r.epoch_count == 1
            && r.epochs[0].test_accuracy > 0,
          "max_steps 7: %lld steps, %d epoch record", (long long) r.step_count, r.epoch_count);
  nn_run_result_clear (&r);

  /* a run that fails to start is still recorded */
  config_for (&c, MLP, 1);
  c.device.kind = NN_DEVICE_CUDA;
  c.device.index = 57;
  s = train (&c, NULL, &r, NULL, 0, &e);
  tap_ok (s != NN_OK && r.status == NN_RUN_FAILED && r.error[0] != '\0' && r.run_id[0] != '\0'
              && r.plan_count == 0 && r.plan == NULL,
          "a missing device fails the run with a message (and no plan): %s", r.error);
  nn_run_result_clear (&r);
}


/* ---------------------------------------------------------------- conditions */

/* Two runs of `c`, the second with `other` conditions: their results,
 * progress and weights. */
typedef struct
{
  Record *rec[2];
  NnRunResult result[2];
  float *weights[2];
  int64_t count;
  NnStatus status[2];
  NnError error;
} Pair;

static void
pair_run (Pair *p, const NnTrainConfig *c, NnConditions other, int64_t count)
{
  NnTrainConfig with = *c;

  memset (p, 0, sizeof *p);
  p->count = count;
  for (int i = 0; i < 2; i++)
    {
      p->rec[i] = calloc (1, sizeof *p->rec[i]);
      p->weights[i] = calloc ((size_t) count, sizeof (float));
    }
  p->status[0] = train (c, p->rec[0], &p->result[0], p->weights[0], count, &p->error);
  with.conditions = other;
  p->status[1] = train (&with, p->rec[1], &p->result[1], p->weights[1], count, &p->error);
}

static bool
pair_ok (const Pair *p)
{
  return p->status[0] == NN_OK && p->status[1] == NN_OK
         && p->result[0].epoch_count == p->result[1].epoch_count && p->result[0].epoch_count > 0;
}

/* The very same training: weights, progress losses, epoch figures. */
static bool
pair_identical (const Pair *p)
{
  bool same = pair_ok (p) && same_losses (p->rec[0], p->rec[1])
              && memcmp (p->weights[0], p->weights[1], sizeof (float) * (size_t) p->count) == 0;
  for (int32_t e = 0; same && e < p->result[0].epoch_count; e++)
    same = p->result[0].epochs[e].train_loss == p->result[1].epochs[e].train_loss
           && p->result[0].epochs[e].test_loss == p->result[1].epochs[e].test_loss
           && p->result[0].epochs[e].test_accuracy == p->result[1].epochs[e].test_accuracy;
  return same;
}

static void
pair_free (Pair *p)
{
  for (int i = 0; i < 2; i++)
    {
      nn_run_result_clear (&p->result[i]);
      free (p->rec[i]);
      free (p->weights[i]);
    }
}

static void
test_conditions_names (void)
{
  NnConditions d = nn_conditions_default (), a = nn_conditions_article (), c;
  NnTrainConfig config;
  NnDataOn on = NN_DATA_DEVICE;
  NnError e;

  nn_train_config_init (&config);
  tap_ok (nn_conditions_equal (&config.conditions, &d) && d.data == NN_DATA_DEVICE && d.graph
              && !d.loss_every_step && d.fused,
          "conditions: a config starts with the default conditions");
  tap_ok (a.data == NN_DATA_PAGEABLE && !a.graph && a.loss_every_step && !a.fused,
          "conditions: the article's are pageable copies, no graph, the loss every step, unfused");
  c = d;
  c.fused = false;
  tap_ok (strcmp (nn_conditions_name (&d), "default") == 0
              && strcmp (nn_conditions_name (&a), "article") == 0
              && strcmp (nn_conditions_name (&c), "custom") == 0,
          "conditions: named default, article and custom");
  tap_ok (nn_data_on_from_name ("pinned", &on, &e) == NN_OK && on == NN_DATA_PINNED
              && nn_data_on_from_name ("pageable", &on, &e) == NN_OK && on == NN_DATA_PAGEABLE
              && strcmp (nn_data_on_name (NN_DATA_DEVICE), "device") == 0,
          "conditions: the data's places by name");
  tap_ok (nn_data_on_from_name ("gpu", &on, &e) == NN_ERROR_INVALID_ARGUMENT
              && strstr (e.message, "\"gpu\"") != NULL,
          "conditions: an unknown place is refused, named: %s", e.message);
}

/* On the CPU the batches gathered on the host and copied give the very
 * training of batches gathered from the resident data set: the same floats
 * in the same order. Sparse and one-hot labels, an MLP and a CNN. */
static void
test_conditions_data (void)
{
  static const struct
  {
    const char *spec;
    int64_t count;
    NnLossKind loss;
  } cases[] = {
    { MLP, 64 * 32 + 32 + 32 * 4 + 4, NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY },
    { CNN, 4 * 9 + 4 + 36 * 4 + 4, NN_LOSS_CATEGORICAL_CROSSENTROPY },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (NnDataOn on = NN_DATA_PINNED; on <= NN_DATA_PAGEABLE; on++)
      {
        NnTrainConfig c;
        NnConditions host = nn_conditions_default ();
        Pair p;

        config_for (&c, cases[i].spec, 2);
        c.loss = cases[i].loss;
        host.data = on;
        pair_run (&p, &c, host, cases[i].count);
        tap_ok (pair_identical (&p) && p.result[1].conditions.data == on
                    && p.result[0].conditions.data == NN_DATA_DEVICE,
                "conditions: data %s gives the very training of data on the device (%s, %s) "
                "(%s)",
                nn_data_on_name (on), cases[i].spec, nn_loss_name (cases[i].loss),
                p.status[1] ? p.error.message : "ok");
        pair_free (&p);
      }
}

/* The loss read back after every step: the same training (weights, test
 * figures), the training loss summed in another order only. */
static void
test_conditions_loss_every_step (void)
{
  NnTrainConfig c;
  NnConditions every = nn_conditions_default ();
  Pair p;
  bool close = true;

  config_for (&c, CNN, 2);
  c.progress_every = 5;
  every.loss_every_step = true;
  pair_run (&p, &c, every, 4 * 9 + 4 + 36 * 4 + 4);
  for (int i = 0; pair_ok (&p) && i < p.rec[0]->steps && i < 4096; i++)
    close = close && fabsf (p.rec[0]->losses[i] - p.rec[1]->losses[i])
                       <= 1e-5f * (1.0f + fabsf (p.rec[0]->losses[i]));
  for (int32_t e = 0; pair_ok (&p) && e < p.result[0].epoch_count; e++)
    close = close && p.result[0].epochs[e].test_loss == p.result[1].epochs[e].test_loss
            && fabsf (p.result[0].epochs[e].train_loss - p.result[1].epochs[e].train_loss)
                 <= 1e-5f * (1.0f + p.result[0].epochs[e].train_loss);
  tap_ok (pair_ok (&p) && close && p.rec[0]->steps == p.rec[1]->steps
              && memcmp (p.weights[0], p.weights[1], sizeof (float) * (size_t) p.count) == 0
              && p.result[1].conditions.loss_every_step && !p.result[0].conditions.loss_every_step
              && p.result[1].step_count == p.result[0].step_count,
          "conditions: the loss read every step gives the same losses, reports and weights "
          "(%s)", p.status[1] ? p.error.message : "ok");
  pair_free (&p);

  /* a loss that is no longer finite stops the run at that very step */
  config_for (&c, MLP, 1);
  c.optimizer = nn_optimizer_defaults (NN_OPT_SGD);
  c.optimizer.lr = 1e30f;
  c.conditions.loss_every_step = true;
  c.progress_every = 100;
  NnRunResult r;
  NnError e;
  NnStatus s = train (&c, NULL, &r, NULL, 0, &e);
  tap_ok (s == NN_ERROR_DIVERGED && strstr (e.message, "step ") != NULL,
          "conditions: with the loss read every step a diverging run stops at its step: %s",
          e.message);
  nn_run_result_clear (&r);
}

/* Fusion off: every step of the plan a layer's own ops, in the result too,
 * and training as with fusion (the CPU's fused convolution sums alike). */
static void
test_conditions_fused (void)
{
  NnTrainConfig c;
  NnConditions unfused = nn_conditions_default ();
  Pair p;
  bool none_fused = true;

  config_for (&c, CNN, 1);
  unfused.fused = false;
  pair_run (&p, &c, unfused, 4 * 9 + 4 + 36 * 4 + 4);
  for (int32_t i = 0; i < p.result[1].plan_count; i++)
    none_fused = none_fused && !p.result[1].plan[i].fused
                 && (strcmp (p.result[1].plan[i].kind, "layer") == 0
                     || strcmp (p.result[1].plan[i].kind, "loss") == 0);
  tap_ok (pair_ok (&p) && p.result[1].plan_count > 0 && none_fused
              && p.result[0].plan_count > 0 && p.result[0].plan[0].fused
              && !p.result[1].conditions.fused && p.result[0].conditions.fused,
          "conditions: fused off gives the unfused plan (%d steps), recorded",
          (int) p.result[1].plan_count);
  tap_ok (pair_ok (&p)
              && fabsf (p.result[0].epochs[0].test_loss - p.result[1].epochs[0].test_loss)
                   <= 1e-4f * (1.0f + p.result[0].epochs[0].test_loss),
          "conditions: fused off trains as fused (test loss %.6f, %.6f)",
          pair_ok (&p) ? p.result[0].epochs[0].test_loss : 0.0f,
          pair_ok (&p) ? p.result[1].epochs[0].test_loss : 0.0f);
  pair_free (&p);

  /* nn_train_plan says the same before a run */
  NnPlanStep *steps = NULL;
  int32_t count = 0;
  NnError e;
  c.conditions = unfused;
  NnStatus s = nn_train_plan (&c, (NnInputShape){ 1, 8, 8 }, &steps, &count, &e);
  tap_ok (s == NN_OK && count > 0 && !steps[0].fused && strcmp (steps[0].kind, "layer") == 0,
          "conditions: nn_train_plan with fused off plans the layers' own ops");
  free (steps);
}

/* Graphs on and off where the backend captures (the fake capture), and a
 * graph with batches copied from the host: the copy stays out of the graph. */
static void
test_conditions_graph (void)
{
  CaptureRuns r;
  NnConditions cond = nn_conditions_default ();
  NnError e;
  NnStatus s;

  capture_runs_begin (&r, 4);
  cond.graph = false;
  r.c.conditions = cond;
  s = train (&r.c, r.captured, &r.captured_result, r.captured_weights, r.count, &e);
  tap_ok (s == NN_OK && fake.captures == 0 && fake.launches == 0 && capture_runs_same (&r)
              && !r.captured_result.conditions.graph,
          "conditions: graph off captures nothing and launches every op (%s)",
          s ? e.message : "ok");
  nn_run_result_clear (&r.captured_result);

  cond = nn_conditions_default ();
  r.c.conditions = cond;
  s = train (&r.c, r.captured, &r.captured_result, r.captured_weights, r.count, &e);
  tap_ok (s == NN_OK && fake.captures >= 1 && fake.launches > 0 && capture_runs_same (&r)
              && r.captured_result.conditions.graph,
          "conditions: graph on replays captured steps, recorded as graph true");
  nn_run_result_clear (&r.captured_result);

  cond.data = NN_DATA_PINNED;
  r.c.conditions = cond;
  fake.launches = fake.captures = fake.violations = 0;
  s = train (&r.c, r.captured, &r.captured_result, r.captured_weights, r.count, &e);
  tap_ok (s == NN_OK && fake.captures == 1 && fake.launches == 29 && fake.violations == 0
              && capture_runs_same (&r) && r.captured_result.conditions.graph,
          "conditions: batches from pinned memory are copied outside the one-step graph, "
          "the same training (%d launches) (%s)",
          fake.launches, s ? e.message : "ok");
  nn_run_result_clear (&r.captured_result);

  cond = nn_conditions_article ();
  r.c.conditions = cond;
  fake.launches = fake.captures = fake.violations = 0;
  s = train (&r.c, r.fallback, &r.fallback_result, NULL, 0, &e);
  tap_ok (s == NN_OK && fake.captures == 0 && fake.launches == 0
              && r.fallback_result.status == NN_RUN_COMPLETED
              && nn_conditions_equal (&r.fallback_result.conditions, &cond),
          "conditions: the article's conditions train and are recorded as such (%s)",
          s ? e.message : "ok");
  capture_runs_end (&r);
}

/* A scalar of a parsed file as written ("\"cpu\"", "true"), or NULL. */
static const char *
jc_value_of (const JcParser *jp, const char *path)
{
  const JcEntry *entry = jp != NULL ? jc_find (jp, path) : NULL;
  return entry != NULL ? entry->value : NULL;
}

/* The result file says the conditions: the name from the switches, each switch. */
static void
test_conditions_file (void)
{
  NnTrainConfig c;
  NnRunResult r;
  NnError e;
  JcParser jp;
  char *json;
  NnStatus s;

  config_for (&c, MLP, 1);
  c.max_steps = 3;
  c.conditions = nn_conditions_article ();
  s = train (&c, NULL, &r, NULL, 0, &e);
  if (s == NN_OK)
    s = nn_result_write (&r, NULL, test_path ("conditions.json"), &e);
  json = s == NN_OK ? test_read_file (test_path ("conditions.json"), NULL) : NULL;
  bool parsed = json != NULL && jc_parse (&jp, json, strlen (json));
  const char *name = jc_value_of (parsed ? &jp : NULL, "conditions.name");
  const char *data_on = jc_value_of (parsed ? &jp : NULL, "conditions.data");
  const char *graph = jc_value_of (parsed ? &jp : NULL, "conditions.graph");
  const char *every = jc_value_of (parsed ? &jp : NULL, "conditions.loss_every_step");
  const char *fused = jc_value_of (parsed ? &jp : NULL, "conditions.fused");
  tap_ok (name != NULL && strcmp (name, "\"article\"") == 0 && data_on != NULL
              && strcmp (data_on, "\"pageable\"") == 0 && graph != NULL
              && strcmp (graph, "false") == 0 && every != NULL && strcmp (every, "true") == 0
              && fused != NULL && strcmp (fused, "false") == 0,
          "conditions: the result file records the article's conditions (%s)",
          s ? e.message : "ok");
  if (parsed)
    free (jp.entries);
  free (json);
  nn_run_result_clear (&r);

  config_for (&c, MLP, 1);
  c.max_steps = 3;
  c.conditions.data = NN_DATA_PINNED;
  s = train (&c, NULL, &r, NULL, 0, &e);
  if (s == NN_OK)
    s = nn_result_write (&r, NULL, test_path ("conditions.json"), &e);
  json = s == NN_OK ? test_read_file (test_path ("conditions.json"), NULL) : NULL;
  parsed = json != NULL && jc_parse (&jp, json, strlen (json));
  name = jc_value_of (parsed ? &jp : NULL, "conditions.name");
  data_on = jc_value_of (parsed ? &jp : NULL, "conditions.data");
  fused = jc_value_of (parsed ? &jp : NULL, "conditions.fused");
  tap_ok (name != NULL && strcmp (name, "\"custom\"") == 0 && data_on != NULL
              && strcmp (data_on, "\"pinned\"") == 0 && fused != NULL
              && strcmp (fused, "true") == 0,
          "conditions: one switch changed is recorded as custom, with that switch (%s)",
          s ? e.message : "ok");
  if (parsed)
    free (jp.entries);
  free (json);
  nn_run_result_clear (&r);
}

int
main (void)
{
  test_isolate_home ();
  data = test_make_dataset (500, 200, 4, 1, 8, 8, 3);
  test_validation ();
  test_check_data ();
  test_memory ();
  test_convergence ();
  test_optimizers ();
  test_determinism ();
  test_plans_once ();
  test_capture ();
  test_capture_many ();
  test_conditions_names ();
  test_conditions_data ();
  test_conditions_loss_every_step ();
  test_conditions_fused ();
  test_conditions_graph ();
  test_conditions_file ();
  test_cancel_callback ();
  test_cancel_thread ();
  test_nan_stop ();
  test_result ();
  nn_dataset_free (data);
  return tap_done ();
}
