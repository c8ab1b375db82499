/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-fused-ops.c: the engine on a backend that runs fused steps
 * (step_supported and step_run of nn-backend-abi.h), without a GPU. Its
 * tables differ in the steps they say they run, and run each by the CPU's
 * own gemm, bias_act, dropout, loss, pooling, convolution and optimizer
 * ops in the order the separate ops run: every table must train to the
 * very losses, weights and optimizer state of the plain CPU table. With
 * the dense layers, the output with its loss, poolings above convolutions
 * and convolutions with their bias and activation as steps: every dense
 * layer must run as one; a dropout that follows a dense layer must be left
 * to it in both directions (and only then: one after a convolution still
 * runs its own ops); a dense output layer must run with the loss as one
 * step in training and evaluation; a pooling right above a convolution
 * must do that convolution's activation backward and bias gradient, which
 * then runs neither, and a dropout right after such a pooling in both
 * directions; any other convolution's activation backward must run with
 * its own backward as one step. With the dense backward and the
 * optimizer's update as a step too, the dense layers at the top of the
 * model must update their own parameters in the training backward, as far
 * down as every layer with parameters is such a dense layer and the
 * backend says the step pays for it; each must hand the one below it, if
 * that updates itself too, its dz; and the lowest of them must store the
 * step counter when no optimizer_update follows. With the output layer's
 * input gradient formed with its loss and steps on a branch, that layer's
 * own backward must run on a branch, joined before the step counter moves;
 * the table holds the branch back and runs it at the join, the latest it
 * may run, so an engine that let the ops beside it touch the branch's
 * memory would train differently. With max poolings that record their
 * maxima, a max pooling above a convolution whose windows tile its input
 * must record them in every forward and do the convolution's activation
 * backward from them alone; an average pooling keeps the activation step.
 * Where the convolution can run with the pooling as one step, it must, in
 * every forward, and its own forward must then run nothing. With a
 * convolution's backward that does the one below it too, a convolution
 * right above the first layer that learns, itself a convolution, must run
 * it in every training backward, the one below then nothing of its own;
 * never where the backend says it does not run it or the model's input
 * gradient is wanted (gradient checks).
 */

#include "test-util.h"

#include "nn-model-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static NnDataset *data; /* 500 training samples: 15 full batches of 32 and one of 20 */

static struct
{
  const NnBackendOps *cpu;
  NnBackendOps ops;                /* the basic fused steps (CAN_BASIC) */
  NnBackendOps update_ops;         /* ... and the dense backward with the update */
  int forward, backward;           /* dense steps run */
  int forward_drop, backward_drop; /* ... that applied a dropout */
  int dropout_ops;                 /* dropout_forward/backward called by dropout layers */
  int dense_losses, losses;        /* output and loss steps; loss calls from the engine */
  int pool_acts;                   /* pooling steps with the activation backward */
  int pool_drop_forward;           /* pooling forwards that applied a dropout */
  int pool_drop_backward;          /* pooling backwards that applied one */
  int image_bias_acts;             /* bias_act_backward calls on images (spatial > 1) */
  int conv_acts;                   /* convolution backward steps with the activation's */
  int updates;                     /* dense backward steps with the update */
  int belows;                      /* ... that formed the layer below's dz */
  int declined_in;         /* the update does not pay for layers of this input size */
  int stored_steps;        /* ... that stored the step counter */
  NnBackendOps branch_ops; /* ... and the output's dx with the loss, with branches */
  int loss_dxs;            /* output and loss steps with the input gradient */
  int branches, joins;     /* branches begun and joined */
  bool in_branch;          /* a branch is open */
  int held;                /* ops issued on the branch, not run yet */
  int held_total;          /* ... in all */
  int misplaced;           /* branch calls out of order */
  struct Held              /* a dense update issued on the branch */
  {
    int act, n, in, out;
    const float *x;
    float *w, *bias;
    const float *y;
    float *dy, *dx;
    float rate;
    uint64_t seed;
    int64_t *step;
    const NnBackendOptimizer *opt;
    float *w_state, *bias_state;
    size_t state_stride;
    int store_step;
  } held_ops[4];
  NnBackendOps argmax_ops;   /* the basic steps and the poolings with maxima */
  NnBackendOps conv_pool_ops; /* ... and the convolution with its pooling */
  int argmax_forward;        /* pooling forwards recording maxima (not with the convolution) */
  int argmax_backward;       /* pooling backwards from the maxima */
  int conv_pools;            /* convolution forwards with the pooling */
  int conv_forwards;         /* convolution forward steps with the bias and activation */
  float *conv_out;           /* the convolution's output inside its step with the pooling */
  float *cells;              /* y at each window's maximum, 0 elsewhere */
  NnBackendOps below_ops;    /* ... and the convolution with the one below */
  int conv_belows;           /* convolution backwards with the one below */
  int below_asks;            /* questions whether such a step runs */
  bool below_declined;       /* the answer is no */
  float *below_dz;           /* the lower convolution's dz inside that step */
} fake;

static void
reset_counts (void)
{
  fake.forward = fake.backward = fake.forward_drop = fake.backward_drop = fake.dropout_ops = 0;
  fake.dense_losses = fake.losses = fake.pool_acts = fake.image_bias_acts = 0;
  fake.pool_drop_forward = fake.pool_drop_backward = fake.conv_acts = 0;
  fake.updates = fake.stored_steps = fake.belows = 0;
  fake.loss_dxs = fake.branches = fake.joins = fake.held = fake.held_total = fake.misplaced = 0;
  fake.argmax_forward = fake.argmax_backward = fake.conv_pools = fake.conv_forwards = 0;
  fake.conv_belows = fake.below_asks = 0;
  fake.in_branch = false;
}

/* Holds an op issued on a branch; false when none is open. */
static bool
hold (const struct Held *op)
{
  if (!fake.in_branch)
    return false;
  if (fake.held < 4)
    fake.held_ops[fake.held++] = *op;
  else
    fake.misplaced++;
  fake.held_total++;
  return true;
}

static int
f_dense_forward (void *ctx, int act, int n, int in, int out, const float *x, const float *w,
                 const float *bias, float *y, float *drop_y, float rate, uint64_t seed,
                 const int64_t *step)
{
  const NnBackendOps *c = fake.cpu;
  int rc;

  fake.forward++;
  fake.forward_drop += rate > 0.0f;
  rc = c->gemm (ctx, 0, 0, n, out, in, 1.0f, x, in, w, out, 0.0f, y, out);
  if (rc == 0)
    rc = c->bias_act_forward (ctx, act, y, bias, n, out, 1);
  if (rc == 0 && rate > 0.0f)
    rc = c->dropout_forward (ctx, drop_y, y, (size_t) n * out, rate, seed, step);
  return rc;
}

/* dense_backward as the CPU's separate ops. */
static int
dense_backward_ops (void *ctx, int act, int n, int in, int out, const float *x, const float *w,
                    const float *y, float *dy, float *dw, float *dbias, float *dx, float rate,
                    uint64_t seed, const int64_t *step)
{
  const NnBackendOps *c = fake.cpu;
  int rc = 0;

  if (rate > 0.0f)
    rc = c->dropout_backward (ctx, dy, dy, (size_t) n * out, rate, seed, step);
  if (rc == 0)
    rc = c->bias_act_backward (ctx, act, y, dy, dbias, n, out, 1);
  if (rc == 0)
    rc = c->gemm (ctx, 1, 0, in, out, n, 1.0f, x, in, dy, out, 0.0f, dw, out);
  if (rc == 0 && dx != NULL)
    rc = c->gemm (ctx, 0, 1, n, in, out, 1.0f, dy, out, w, out, 0.0f, dx, in);
  return rc;
}

static int
f_dense_backward (void *ctx, int act, int n, int in, int out, const float *x, const float *w,
                  const float *y, float *dy, float *dw, float *dbias, float *dx, float rate,
                  uint64_t seed, const int64_t *step)
{
  /* only an output layer that updates itself goes on a branch */
  fake.misplaced += fake.in_branch;
  fake.backward++;
  fake.backward_drop += rate > 0.0f;
  return dense_backward_ops (ctx, act, n, in, out, x, w, y, dy, dw, dbias, dx, rate, seed, step);
}

/* The CPU's optimizer_update on `count` parameters whose state slots lie
 * `stride` floats apart, with a copy of the step counter (which only the
 * layer that stores it moves). */
static int
update_strided (void *ctx, const NnBackendOptimizer *opt, float *params, const float *grads,
                size_t count, float *state, size_t stride, const int64_t *step)
{
  int64_t t = *step;
  return fake.cpu->optimizer_update (ctx, opt, params, grads, state, count, stride, &t);
}

/* dense_backward into gradients of its own (the CPU backend's memory is
 * host memory), then the update of w and bias with them. */
static int
f_dense_backward_update (void *ctx, int act, int n, int in, int out, const float *x, float *w,
                         float *bias, const float *y, float *dy, float *dx,
                         const NnBackendBelow *below, float rate, uint64_t seed, int64_t *step,
                         const NnBackendOptimizer *opt, float *w_state, float *bias_state,
                         size_t state_stride, int store_step)
{
  size_t w_count = (size_t) in * (size_t) out;
  float *dw = malloc (sizeof (float) * w_count); /* (in, out) */
  float *dbias = malloc (sizeof (float) * (size_t) out);
  int rc = NN_BACKEND_OUT_OF_MEMORY;
  struct Held op = { act,  n,    in,   out, x,       w,          bias,         y,         dy, dx,
                     rate, seed, step, opt, w_state, bias_state, state_stride, store_step };

  if (fake.in_branch)
    /* the output layer's input gradient is formed already */
    fake.misplaced += dx != NULL || below != NULL;
  if (hold (&op))
    {
      free (dw);
      free (dbias);
      return 0;
    }
  fake.updates++;
  fake.stored_steps += store_step != 0;
  if (dw != NULL && dbias != NULL)
    rc = dense_backward_ops (ctx, act, n, in, out, x, w, y, dy, dw, dbias, dx, rate, seed, step);
  /* the layer below's dz in place of dx, as its own ops would form it */
  fake.belows += below != NULL;
  if (rc == 0 && below != NULL && below->rate > 0.0f)
    rc = fake.cpu->dropout_backward (ctx, dx, dx, (size_t) n * in, below->rate, below->seed, step);
  if (rc == 0 && below != NULL)
    rc = fake.cpu->bias_act_backward (ctx, below->act, below->y, dx, NULL, n, in, 1);
  if (rc == 0)
    rc = update_strided (ctx, opt, w, dw, w_count, w_state, state_stride, step);
  if (rc == 0 && bias != NULL)
    rc = update_strided (ctx, opt, bias, dbias, (size_t) out, bias_state, state_stride, step);
  if (rc == 0 && store_step)
    *step = *step + 1;
  free (dw);
  free (dbias);
  return rc;
}

static int
f_update_pays (void *ctx, int n, int in, int out)
{
  return in != fake.declined_in;
}

static int
f_dense_loss (void *ctx, int act, int n, int in, int out, const float *x, const float *w,
              const float *bias, float *y, int kind, const int32_t *labels, const float *targets,
              float *grad, float *stats)
{
  const NnBackendOps *c = fake.cpu;
  int rc;

  fake.dense_losses++;
  rc = c->gemm (ctx, 0, 0, n, out, in, 1.0f, x, in, w, out, 0.0f, y, out);
  if (rc == 0)
    rc = c->bias_act_forward (ctx, act, y, bias, n, out, 1);
  if (rc == 0)
    rc = c->loss (ctx, kind, y, labels, targets, grad, stats, n, out);
  return rc;
}

/* dense_loss, then the input gradient (the output is linear: grad is dz),
 * and the layer below's dz from it as f_dense_backward_update forms it. */
static int
f_dense_loss_dx (void *ctx, int act, int n, int in, int out, const float *x, const float *w,
                 const float *bias, float *y, int kind, const int32_t *labels, const float *targets,
                 float *grad, float *stats, float *dx, const NnBackendBelow *below,
                 const int64_t *step)
{
  const NnBackendOps *c = fake.cpu;
  int rc = f_dense_loss (ctx, act, n, in, out, x, w, bias, y, kind, labels, targets, grad, stats);

  fake.dense_losses--; /* counted as dense_loss_dx */
  fake.loss_dxs++;
  fake.misplaced += fake.in_branch || act != NN_BK_ACT_LINEAR;
  if (rc == 0)
    rc = c->gemm (ctx, 0, 1, n, in, out, 1.0f, grad, out, w, out, 0.0f, dx, in);
  fake.belows += below != NULL;
  if (rc == 0 && below != NULL && below->rate > 0.0f)
    rc = c->dropout_backward (ctx, dx, dx, (size_t) n * in, below->rate, below->seed, step);
  if (rc == 0 && below != NULL)
    rc = c->bias_act_backward (ctx, below->act, below->y, dx, NULL, n, in, 1);
  return rc;
}

static int
f_branch_begin (void *ctx)
{
  fake.misplaced += fake.in_branch || fake.held > 0;
  fake.in_branch = true;
  fake.branches++;
  return 0;
}

static int
f_branch_end (void *ctx)
{
  fake.misplaced += !fake.in_branch;
  fake.in_branch = false;
  return 0;
}

/* Runs what the branch holds, as late as the branch may run. */
static int
f_branch_join (void *ctx)
{
  int rc = 0;
  fake.misplaced += fake.in_branch;
  fake.joins++;
  for (int i = 0; i < fake.held && rc == 0; i++)
    {
      const struct Held *h = &fake.held_ops[i];
      rc = f_dense_backward_update (ctx, h->act, h->n, h->in, h->out, h->x, h->w, h->bias, h->y,
                                    h->dy, h->dx, NULL, h->rate, h->seed, h->step, h->opt,
                                    h->w_state, h->bias_state, h->state_stride, h->store_step);
    }
  fake.held = 0;
  return rc;
}

static int
f_loss (void *ctx, int kind, const float *pred, const int32_t *labels, const float *targets,
        float *grad, float *stats, int n, int classes)
{
  fake.losses++;
  return fake.cpu->loss (ctx, kind, pred, labels, targets, grad, stats, n, classes);
}

static int
f_pool_forward_dropout (void *ctx, int mode, const NnPoolShape *shape, const float *x, float *y,
                        float *drop_y, float rate, uint64_t seed, const int64_t *step)
{
  const NnBackendOps *c = fake.cpu;
  int rc;

  fake.pool_drop_forward += rate > 0.0f;
  rc = c->pool2d_forward (ctx, mode, shape, x, y);
  if (rc == 0 && rate > 0.0f)
    rc = c->dropout_forward (ctx, drop_y, y,
                             (size_t) shape->n * shape->c * shape->out_h * shape->out_w, rate, seed,
                             step);
  return rc;
}

static int
f_pool_backward_act (void *ctx, int mode, const NnPoolShape *shape, const float *x, const float *y,
                     float *dy, int act, float *dx, float *dbias, float rate, uint64_t seed,
                     const int64_t *step)
{
  const NnBackendOps *c = fake.cpu;
  int rc = 0;

  fake.pool_acts++;
  fake.pool_drop_backward += rate > 0.0f;
  if (rate > 0.0f)
    rc = c->dropout_backward (
        ctx, dy, dy, (size_t) shape->n * shape->c * shape->out_h * shape->out_w, rate, seed, step);
  if (rc == 0)
    rc = c->pool2d_backward (ctx, mode, shape, x, y, dy, dx);
  if (rc == 0)
    rc = c->bias_act_backward (ctx, act, x, dx, dbias, shape->n, shape->c, shape->h * shape->w);
  return rc;
}

/* Max pooling of windows that tile the input, as the CPU's pooling, and
 * each window's first maximum in row-major order. */
static int
pool_with_maxima (void *ctx, const NnPoolShape *s, const float *x, float *y, float *drop_y,
                  float rate, uint64_t seed, const int64_t *step, uint8_t *argmax)
{
  const NnBackendOps *c = fake.cpu;
  size_t outputs = (size_t) s->n * s->c * s->out_h * s->out_w;
  int rc = c->pool2d_forward (ctx, 0, s, x, y);

  for (size_t i = 0; rc == 0 && i < outputs; i++)
    {
      size_t plane = i / ((size_t) s->out_h * s->out_w);
      int oy = (int) (i / s->out_w % s->out_h), ox = (int) (i % s->out_w);
      const float *corner = x + (plane * s->h + (size_t) oy * s->win_h) * s->w + ox * s->win_w;
      int best = 0;
      for (int q = 1; q < s->win_h * s->win_w; q++)
        if (corner[q / s->win_w * s->w + q % s->win_w]
            > corner[best / s->win_w * s->w + best % s->win_w])
          best = q;
      argmax[i] = (uint8_t) best;
    }
  if (rc == 0 && rate > 0.0f)
    rc = c->dropout_forward (ctx, drop_y, y, outputs, rate, seed, step);
  return rc;
}

static int
f_pool_forward_argmax (void *ctx, const NnPoolShape *shape, const float *x, float *y,
                       float *drop_y, float rate, uint64_t seed, const int64_t *step,
                       uint8_t *argmax)
{
  fake.argmax_forward++;
  fake.pool_drop_forward += rate > 0.0f;
  return pool_with_maxima (ctx, shape, x, y, drop_y, rate, seed, step, argmax);
}

/* dx from the maxima: dy (after the dropout) at each window's maximum,
 * then the activation backward and bias gradient with y there; anywhere
 * else dz is 0 whatever the input was. */
static int
f_pool_backward_argmax (void *ctx, const NnPoolShape *s, const uint8_t *argmax, const float *y,
                        float *dy, int act, float *dx, float *dbias, float rate, uint64_t seed,
                        const int64_t *step)
{
  const NnBackendOps *c = fake.cpu;
  size_t outputs = (size_t) s->n * s->c * s->out_h * s->out_w;
  size_t cells = (size_t) s->n * s->c * s->h * s->w;
  int rc = 0;

  fake.argmax_backward++;
  fake.pool_drop_backward += rate > 0.0f;
  if (rate > 0.0f)
    rc = c->dropout_backward (ctx, dy, dy, outputs, rate, seed, step);
  fake.cells = realloc (fake.cells, sizeof (float) * cells);
  memset (fake.cells, 0, sizeof (float) * cells);
  memset (dx, 0, sizeof (float) * cells);
  for (size_t i = 0; i < outputs; i++)
    {
      size_t plane = i / ((size_t) s->out_h * s->out_w);
      int oy = (int) (i / s->out_w % s->out_h), ox = (int) (i % s->out_w);
      size_t at = (plane * s->h + (size_t) oy * s->win_h + argmax[i] / s->win_w) * s->w
                  + (size_t) ox * s->win_w + argmax[i] % s->win_w;
      fake.cells[at] = y[i];
      dx[at] = dy[i];
    }
  if (rc == 0)
    rc = c->bias_act_backward (ctx, act, fake.cells, dx, dbias, s->n, s->c, s->h * s->w);
  return rc;
}

/* The CPU's own fused step: a convolution with its bias and activation. */
static int
cpu_conv_bias_act (void *ctx, void *plan, const float *x, const float *w, const float *bias,
                   int act, float *y, void *workspace)
{
  NnBackendStep step = { .kind = NN_BK_STEP_CONV, .act = act, .x = x, .w = (float *) w,
                         .b = (float *) bias, .y = y,
                         .conv = { .plan = plan, .workspace = workspace } };
  return fake.cpu->step_run (ctx, &step);
}

static int
f_conv_forward (void *ctx, void *plan, const float *x, const float *w, const float *bias, int act,
                float *y, void *workspace)
{
  fake.conv_forwards++;
  return cpu_conv_bias_act (ctx, plan, x, w, bias, act, y, workspace);
}

/* The convolution into a buffer of its own, then the pooling with maxima. */
static int
f_conv_forward_pool (void *ctx, void *plan, const float *x, const float *w, const float *bias,
                     int act, const NnPoolShape *pool, float *y, float *drop_y, float rate,
                     uint64_t seed, const int64_t *step, uint8_t *argmax, void *workspace)
{
  int rc;

  fake.conv_pools++;
  fake.pool_drop_forward += rate > 0.0f;
  fake.conv_out = realloc (fake.conv_out, sizeof (float) * pool->n * pool->c * pool->h * pool->w);
  rc = cpu_conv_bias_act (ctx, plan, x, w, bias, act, fake.conv_out, workspace);
  if (rc == 0)
    rc = pool_with_maxima (ctx, pool, fake.conv_out, y, drop_y, rate, seed, step, argmax);
  return rc;
}

/* The shapes of the plans made, to find a plan's (the CPU's plans are opaque). */
#define PLANS_MAX 1024
static struct
{
  void *plan;
  NnConvShape shape;
} plans[PLANS_MAX];
static int plan_count;

static int
f_plan_new (void *ctx, const NnConvShape *shape, void **plan, size_t *workspace_bytes)
{
  int rc = fake.cpu->conv2d_plan_new (ctx, shape, plan, workspace_bytes);
  if (rc == 0 && plan_count < PLANS_MAX)
    {
      plans[plan_count].plan = *plan;
      plans[plan_count++].shape = *shape;
    }
  return rc;
}

static const NnConvShape *
plan_shape (const void *plan)
{
  for (int i = plan_count - 1; i >= 0; i--)
    if (plans[i].plan == plan)
      return &plans[i].shape;
  return NULL;
}

static int
f_conv_backward_act (void *ctx, void *plan, const float *x, const float *w, const float *y,
                     float *dy, int act, float *dx, float *dw, float *dbias, void *workspace)
{
  const NnBackendOps *c = fake.cpu;
  const NnConvShape *s = plan_shape (plan);
  int rc;

  if (s == NULL)
    return NN_BACKEND_ERROR;

  fake.conv_acts++;
  rc = c->bias_act_backward (ctx, act, y, dy, dbias, s->n, s->k, s->out_h * s->out_w);
  if (rc == 0)
    rc = c->conv2d_backward (ctx, plan, x, w, dy, dx, dw, workspace);
  return rc;
}


/* The convolution's backward with its dx into a buffer of its own, then
 * the backward of the convolution below from that, as its separate ops
 * run there (the CPU has no fused convolution backward), with no dx. */
static int
f_conv_backward_below (void *ctx, void *plan, const float *x, const float *w, const float *dy,
                       float *dw, void *below_plan, const float *below_x, int below_act,
                       float *below_dw, float *below_dbias, void *workspace)
{
  const NnBackendOps *c = fake.cpu;
  const NnConvShape *s = plan_shape (plan), *b = plan_shape (below_plan);
  int rc;

  /* below_plan's output must be plan's input */
  if (s == NULL || b == NULL || b->n != s->n || b->k != s->c || b->out_h != s->h
      || b->out_w != s->w)
    return NN_BACKEND_ERROR;
  fake.conv_belows++;
  fake.below_dz = realloc (fake.below_dz, sizeof (float) * s->n * s->c * s->h * s->w);
  if (fake.below_dz == NULL)
    return NN_BACKEND_OUT_OF_MEMORY;
  rc = c->conv2d_backward (ctx, plan, x, w, dy, fake.below_dz, dw, workspace);
  if (rc == 0)
    rc = c->bias_act_backward (ctx, below_act, x, fake.below_dz, below_dbias, b->n, b->k,
                               b->out_h * b->out_w);
  if (rc == 0)
    rc = c->conv2d_backward (ctx, below_plan, below_x, NULL, fake.below_dz, NULL, below_dw,
                             workspace);
  return rc;
}

static int
f_bias_act_backward (void *ctx, int act, const float *y, float *dy, float *dbias, int n,
                     int channels, int spatial)
{
  fake.image_bias_acts += spatial > 1;
  return fake.cpu->bias_act_backward (ctx, act, y, dy, dbias, n, channels, spatial);
}

static int
f_dropout_forward (void *ctx, float *y, const float *x, size_t count, float rate, uint64_t seed,
                   const int64_t *step)
{
  fake.dropout_ops++;
  return fake.cpu->dropout_forward (ctx, y, x, count, rate, seed, step);
}

static int
f_dropout_backward (void *ctx, float *dx, const float *dy, size_t count, float rate, uint64_t seed,
                    const int64_t *step)
{
  fake.dropout_ops++;
  return fake.cpu->dropout_backward (ctx, dx, dy, count, rate, seed, step);
}

/* ---------------------------------------------------------------- the tables' steps */

/* What each table runs as fused steps, as a backend would say it. */
enum
{
  CAN_BASIC = 1u << 0,     /* dense layers, the output with the loss, poolings with the
                            * convolution's activation and a dropout, convolutions with
                            * their bias and activation */
  CAN_UPDATE = 1u << 1,    /* a dense backward with the update, where f_update_pays says so */
  CAN_BRANCH = 1u << 2,    /* the output's input gradient with the loss, branches, joins */
  CAN_MAXIMA = 1u << 3,    /* max poolings recording their maxima */
  CAN_CONV_POOL = 1u << 4, /* a convolution with the pooling above */
  CAN_BELOW = 1u << 5,     /* a convolution's backward with the one below's */
};

static int
supported (const NnBackendStep *s, unsigned can)
{
  if ((s->flags & NN_BK_STEP_BRANCH) && !(can & CAN_BRANCH))
    return 0;
  switch (s->kind)
    {
    case NN_BK_STEP_DENSE:
      if (s->act == NN_BK_ACT_SOFTMAX || !(can & CAN_BASIC))
        return 0;
      if (s->update.opt != NULL)
        return s->backward && (can & CAN_UPDATE)
               && f_update_pays (NULL, s->n, s->dense.in, s->dense.out);
      return s->below.kind == NN_BK_BELOW_NONE;
    case NN_BK_STEP_OUTPUT_LOSS:
      if (s->dx != NULL)
        return (can & CAN_BRANCH) && s->act == NN_BK_ACT_LINEAR;
      return (can & CAN_BASIC) != 0 && s->below.kind == NN_BK_BELOW_NONE;
    case NN_BK_STEP_CONV:
      if (s->flags & NN_BK_STEP_POOLED)
        return !s->backward && (can & CAN_CONV_POOL);
      if (s->below.kind == NN_BK_BELOW_CONV)
        {
          fake.below_asks++;
          return s->backward && (can & CAN_BELOW) && !fake.below_declined;
        }
      return (can & CAN_BASIC) != 0;
    case NN_BK_STEP_POOL:
      return (s->flags & NN_BK_STEP_MAXIMA) ? (can & CAN_MAXIMA) != 0 : (can & CAN_BASIC) != 0;
    case NN_BK_STEP_JOIN:
      return (can & CAN_BRANCH) != 0;
    default:
      return 0;
    }
}

static int
supported_basic (void *ctx, const NnBackendStep *s)
{
  return supported (s, CAN_BASIC);
}

static int
supported_update (void *ctx, const NnBackendStep *s)
{
  return supported (s, CAN_BASIC | CAN_UPDATE);
}

static int
supported_branch (void *ctx, const NnBackendStep *s)
{
  return supported (s, CAN_BASIC | CAN_UPDATE | CAN_BRANCH);
}

static int
supported_maxima (void *ctx, const NnBackendStep *s)
{
  return supported (s, CAN_BASIC | CAN_MAXIMA);
}

static int
supported_conv_pool (void *ctx, const NnBackendStep *s)
{
  return supported (s, CAN_BASIC | CAN_MAXIMA | CAN_CONV_POOL);
}

static int
supported_below (void *ctx, const NnBackendStep *s)
{
  return supported (s, CAN_BASIC | CAN_MAXIMA | CAN_CONV_POOL | CAN_BELOW);
}

/* A step as the composed ops above run it, the way a backend dispatches
 * one to its kernels. */
static int
f_step_run (void *ctx, const NnBackendStep *s)
{
  bool dz_in = (s->flags & NN_BK_STEP_DZ_IN) != 0;
  int act = dz_in ? NN_BK_ACT_LINEAR : s->act;
  float rate = dz_in ? 0.0f : s->drop.rate;
  const NnBackendBelow *below = s->below.kind == NN_BK_BELOW_DENSE ? &s->below : NULL;
  bool maxima = (s->flags & NN_BK_STEP_MAXIMA) != 0;
  int rc, end;

  switch (s->kind)
    {
    case NN_BK_STEP_JOIN:
      return f_branch_join (ctx);
    case NN_BK_STEP_DENSE:
      if (!s->backward)
        return f_dense_forward (ctx, s->act, s->n, s->dense.in, s->dense.out, s->x, s->w, s->b,
                                s->y, s->drop.y, s->drop.rate, s->drop.seed, s->step);
      if (s->update.opt == NULL)
        return f_dense_backward (ctx, act, s->n, s->dense.in, s->dense.out, s->x, s->w, s->y,
                                 s->dy, s->dw, s->db, s->dx, rate, s->drop.seed, s->step);
      if (s->flags & NN_BK_STEP_BRANCH)
        f_branch_begin (ctx);
      rc = f_dense_backward_update (ctx, act, s->n, s->dense.in, s->dense.out, s->x, s->w, s->b,
                                    s->y, s->dy, s->dx, below, rate, s->drop.seed, s->step,
                                    s->update.opt, s->update.w_state, s->update.b_state,
                                    s->update.stride, s->update.store_step);
      end = (s->flags & NN_BK_STEP_BRANCH) ? f_branch_end (ctx) : 0;
      return rc != 0 ? rc : end;
    case NN_BK_STEP_OUTPUT_LOSS:
      if (s->dx != NULL)
        return f_dense_loss_dx (ctx, s->act, s->n, s->dense.in, s->dense.out, s->x, s->w, s->b,
                                s->y, s->loss.kind, s->loss.labels, s->loss.targets, s->loss.grad,
                                s->loss.stats, s->dx, below, s->step);
      return f_dense_loss (ctx, s->act, s->n, s->dense.in, s->dense.out, s->x, s->w, s->b, s->y,
                           s->loss.kind, s->loss.labels, s->loss.targets, s->loss.grad,
                           s->loss.stats);
    case NN_BK_STEP_POOL:
      if (!s->backward && maxima)
        return f_pool_forward_argmax (ctx, &s->pool.shape, s->x, s->y, s->drop.y, rate,
                                      s->drop.seed, s->step, s->pool.argmax);
      if (!s->backward)
        return f_pool_forward_dropout (ctx, s->pool.mode, &s->pool.shape, s->x, s->y, s->drop.y,
                                       rate, s->drop.seed, s->step);
      if (maxima)
        return f_pool_backward_argmax (ctx, &s->pool.shape, s->pool.argmax, s->y, s->dy,
                                       s->below.act, s->dx, s->below.db, rate, s->drop.seed,
                                       s->step);
      return f_pool_backward_act (ctx, s->pool.mode, &s->pool.shape, s->x, s->y, s->dy,
                                  s->below.act, s->dx, s->below.db, rate, s->drop.seed, s->step);
    case NN_BK_STEP_CONV:
      if (!s->backward && (s->flags & NN_BK_STEP_POOLED))
        return f_conv_forward_pool (ctx, s->conv.plan, s->x, s->w, s->b, s->act, &s->pool.shape,
                                    s->y, s->drop.y, rate, s->drop.seed, s->step, s->pool.argmax,
                                    s->conv.workspace);
      if (!s->backward)
        return f_conv_forward (ctx, s->conv.plan, s->x, s->w, s->b, s->act, s->y,
                               s->conv.workspace);
      if (s->below.kind == NN_BK_BELOW_CONV)
        {
          const NnConvShape *cs = plan_shape (s->conv.plan);
          if (cs == NULL)
            return NN_BACKEND_ERROR;
          /* the activation backward first where none above did it */
          rc = dz_in ? 0
                     : f_bias_act_backward (ctx, s->act, s->y, s->dy, s->db, cs->n, cs->k,
                                            cs->out_h * cs->out_w);
          if (rc != 0)
            return rc;
          return f_conv_backward_below (ctx, s->conv.plan, s->x, s->w, s->dy, s->dw,
                                        s->below.plan, s->below.x, s->below.act, s->below.dw,
                                        s->below.db, s->conv.workspace);
        }
      return f_conv_backward_act (ctx, s->conv.plan, s->x, s->w, s->y, s->dy, act, s->dx, s->dw,
                                  s->db, s->conv.workspace);
    default:
      return NN_BACKEND_UNSUPPORTED;
    }
}

typedef struct
{
  int steps;
  float losses[64];
} Record;

static bool
record_cb (const NnProgress *p, void *user_data)
{
  Record *r = user_data;
  if (p->kind == NN_PROGRESS_STEP && r->steps < 64)
    r->losses[r->steps++] = p->loss;
  return true;
}

/* The model's optimizer state, its one arena (malloc'd, *floats of it). */
static float *
optimizer_state (NnModel *m, size_t *floats)
{
  *floats = (size_t) m->opt_slots * (size_t) m->state_stride;
  float *state = malloc (sizeof (float) * (*floats > 0 ? *floats : 1));
  if (state != NULL && *floats > 0)
    m->backend.ops->download (m->backend.ctx, state, m->opt_state, sizeof (float) * *floats);
  return state;
}

/* Two epochs of `spec` with `optimizer` (NULL: Adam's defaults) and `loss`;
 * the losses, the run result, (malloc'd) weights and the optimizer state
 * (*state_floats of it). */
static NnStatus
train (const char *spec, const NnOptimizer *optimizer, NnLossKind loss, Record *rec,
       NnRunResult *result, float **weights, int64_t *count, float **state, size_t *state_floats)
{
  NnTrainConfig c;
  NnTrainer *t = NULL;
  NnError e;
  NnStatus s;

  nn_train_config_init (&c);
  c.spec_text = spec;
  c.epochs = 2;
  c.batch_size = 32;
  c.device.threads = 2;
  c.progress_every = 1;
  if (optimizer != NULL)
    c.optimizer = *optimizer;
  c.loss = loss;
  memset (rec, 0, sizeof *rec);
  *weights = NULL;
  *count = 0;
  *state = NULL;
  *state_floats = 0;
  s = nn_trainer_new (&c, data, &t, &e);
  if (s == NN_OK)
    {
      nn_trainer_set_progress (t, record_cb, rec);
      s = nn_trainer_run (t, result, &e);
    }
  if (s == NN_OK)
    {
      *count = nn_model_param_count (nn_trainer_model (t));
      *weights = malloc (sizeof (float) * (size_t) *count);
      s = nn_model_get_weights (nn_trainer_model (t), *weights, *count, &e);
      *state = optimizer_state (nn_trainer_model (t), state_floats);
    }
  if (s != NN_OK)
    tap_diag ("%s: %s", spec, e.message);
  nn_trainer_free (t);
  return s;
}

/* Whether `spec` trains to the very losses, test results and weights on
 * `ops` (counted from zero) as on the plain CPU table, and leaves the very
 * optimizer state in the model's one arena: the layers that update their
 * parameters in their backward keep theirs where optimizer_update keeps
 * every parameter's on the plain table. */
static bool
same_training (const char *spec, const NnOptimizer *optimizer, NnLossKind loss,
               const NnBackendOps *ops)
{
  Record plain, fused;
  NnRunResult rp, rf;
  float *wp = NULL, *wf = NULL, *sp_state = NULL, *sf_state = NULL;
  int64_t cp = 0, cf = 0;
  size_t np = 0, nf = 0;
  NnStatus sp, sf;
  bool same;

  _nn_model_set_test_ops (NULL);
  sp = train (spec, optimizer, loss, &plain, &rp, &wp, &cp, &sp_state, &np);
  reset_counts ();
  _nn_model_set_test_ops (ops);
  sf = train (spec, optimizer, loss, &fused, &rf, &wf, &cf, &sf_state, &nf);
  _nn_model_set_test_ops (NULL);

  same = sp == NN_OK && sf == NN_OK && plain.steps == 32 && fused.steps == plain.steps
         && rp.epoch_count == 2 && rf.epoch_count == 2 && cp == cf
         && memcmp (wp, wf, sizeof (float) * (size_t) cp) == 0;
  if (same && !(np == nf && np >= (size_t) cp && sp_state != NULL && sf_state != NULL
                && memcmp (sp_state, sf_state, sizeof (float) * np) == 0))
    {
      tap_diag ("%s: the optimizer state differs from the plain table's", spec);
      same = false;
    }
  for (int i = 0; same && i < plain.steps; i++)
    same = plain.losses[i] == fused.losses[i];
  for (int i = 0; same && i < 2; i++)
    same = rp.epochs[i].test_loss == rf.epochs[i].test_loss
           && rp.epochs[i].test_accuracy == rf.epochs[i].test_accuracy;
  if (sp == NN_OK)
    nn_run_result_clear (&rp);
  if (sf == NN_OK)
    nn_run_result_clear (&rf);
  free (wp);
  free (wf);
  free (sp_state);
  free (sf_state);
  return same;
}

static void
check (const char *spec, int dense_layers, int fused_dropouts, bool other_dropouts, int conv_layers,
       int pool_fusions, int pool_dropouts)
{
  bool same = same_training (spec, NULL, NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, &fake.ops);

  tap_ok (same, "%s: the fused ops give the very losses, test results and weights", spec);
  /* 32 training steps; evaluation passes run the forward only. The output
   * layer's forward is part of dense_loss. */
  tap_ok (fake.backward == 32 * dense_layers && fake.forward + fake.dense_losses > fake.backward
              && fake.forward % (dense_layers - 1) == 0
              && fake.forward / (dense_layers - 1) == fake.dense_losses,
          "%s: every dense layer runs on the fused ops (%d forward, %d with the loss, %d "
          "backward)",
          spec, fake.forward, fake.dense_losses, fake.backward);
  /* 32 steps and 2 x 7 test batches of the 200 test samples */
  tap_ok (fake.dense_losses == 32 + 2 * 7 && fake.losses == 0,
          "%s: the output layer and the loss run as one op (%d dense_loss, %d loss)", spec,
          fake.dense_losses, fake.losses);
  tap_ok (fake.forward_drop == 32 * fused_dropouts && fake.backward_drop == fake.forward_drop,
          "%s: a dropout after a dense layer is applied by it, in both directions (%d, %d)", spec,
          fake.forward_drop, fake.backward_drop);
  tap_ok (other_dropouts ? fake.dropout_ops == 2 * 32 : fake.dropout_ops == 0,
          "%s: dropout layers ran %d dropout ops of their own", spec, fake.dropout_ops);
  tap_ok (fake.pool_acts == 32 * pool_fusions && fake.conv_acts == 32 * (conv_layers - pool_fusions)
              && fake.image_bias_acts == 0,
          "%s: poolings do the activation backward of the convolutions below them, the other "
          "convolutions with their own backward (%d, %d; %d separate)",
          spec, fake.pool_acts, fake.conv_acts, fake.image_bias_acts);
  tap_ok (fake.pool_drop_forward == 32 * pool_dropouts
              && fake.pool_drop_backward == fake.pool_drop_forward,
          "%s: a dropout after such a pooling is applied by it, in both directions (%d, %d)", spec,
          fake.pool_drop_forward, fake.pool_drop_backward);
}

/* `spec` on the table with the poolings that record their maxima, and
 * with `conv_pool` the convolution with its pooling too: the same training;
 * `recording` max poolings record their maxima in every forward pass (and
 * with conv_pool run the convolution below them) and do their backward from
 * them; `acts` other poolings do the activation backward as before,
 * `pool_dropouts` of all of them apply the dropout above; `conv_layers`
 * convolutions in all. */
static void
check_maxima (const char *spec, bool conv_pool, int recording, int acts, int pool_dropouts,
              int conv_layers)
{
  const NnBackendOps *ops = conv_pool ? &fake.conv_pool_ops : &fake.argmax_ops;
  bool same = same_training (spec, NULL, NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, ops);
  const char *how = conv_pool ? "with the convolution" : "alone";
  int passes = 32 + 2 * 7; /* forward passes: 32 steps, 2 x 7 test batches */

  tap_ok (same, "%s (poolings with maxima, %s): the very losses, test results and weights", spec,
          how);
  tap_ok ((conv_pool ? fake.conv_pools == passes * recording && fake.argmax_forward == 0
                     : fake.argmax_forward == passes * recording && fake.conv_pools == 0)
              && fake.argmax_backward == 32 * recording && fake.pool_acts == 32 * acts,
          "%s (%s): max poolings record their maxima in every forward and use them in the "
          "backward (%d forward, %d with the convolution, %d backward; %d others)",
          spec, how, fake.argmax_forward, fake.conv_pools, fake.argmax_backward, fake.pool_acts);
  tap_ok (fake.conv_forwards == passes * (conv_layers - (conv_pool ? recording : 0))
              && fake.conv_acts == 32 * (conv_layers - recording - acts)
              && fake.image_bias_acts == 0,
          "%s (%s): %d convolution forwards of their own, %d backwards with the activation", spec,
          how, fake.conv_forwards, fake.conv_acts);
  tap_ok (fake.pool_drop_forward == 32 * pool_dropouts
              && fake.pool_drop_backward == fake.pool_drop_forward,
          "%s (%s): a dropout after a pooling is applied by it, in both directions (%d, %d)", spec,
          how, fake.pool_drop_forward, fake.pool_drop_backward);
}

/* `spec` on the table with the convolution that does the backward of the
 * one below it too: the same training; `fused` convolutions (0 or 1) run
 * that op in every training step, and the one below then runs no op of
 * its own; `acts` others run their backward with the activation's, and
 * `separate` convolutions run bias_act_backward on their images first (one
 * that runs the op below and has no pooling above to form its dz). */
static void
check_below (const char *spec, int fused, int acts, int separate)
{
  bool same = same_training (spec, NULL, NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, &fake.below_ops);
  const char *how
      = fake.below_declined ? "the convolution below does not fit" : "the convolution below";

  tap_ok (same, "%s (%s): the very losses, test results and weights", spec, how);
  tap_ok (fake.conv_belows == 32 * fused && fake.conv_acts == 32 * acts
              && fake.image_bias_acts == 32 * separate,
          "%s (%s): %d backwards with the convolution below, %d with the activation, %d "
          "activation backwards alone",
          spec, how, fake.conv_belows, fake.conv_acts, fake.image_bias_acts);
}

/* One forward and backward of `spec` on `ops` (NULL: the plain CPU
 * table) for 4 images of (1, 8, 8), as a gradient check runs it: with the
 * model's input gradient into gx when gx is not NULL (4 x 64), the
 * parameters' gradients into grads (malloc'd, *count of them). */
static NnStatus
backward_once (const char *spec, const NnBackendOps *ops, float *gx, float **grads, int64_t *count)
{
  NnInputShape input = { 1, 8, 8 };
  NnDeviceOptions device = { .kind = NN_DEVICE_CPU, .threads = 2 };
  NnPass pass = { .n = 4, .training = true, .logits = true };
  NnSpec *parsed = NULL;
  NnModel *m = NULL;
  NnError error;
  float x[4 * 64], *input_grad = NULL;
  int32_t labels[4] = { 0, 1, 2, 3 };
  uint64_t rng = 99;
  NnStatus status;

  nn_error_clear (&error);
  *grads = NULL;
  for (int i = 0; i < 4 * 64; i++)
    x[i] = test_randf (&rng, 0.0f, 1.0f);
  _nn_model_set_test_ops (ops);
  status = nn_spec_parse (spec, &parsed, &error);
  if (status == NN_OK)
    status = nn_model_new (parsed, input, 4, &device, 7, &m, &error);
  nn_spec_free (parsed);
  _nn_model_set_test_ops (NULL);
  reset_counts ();
  if (status == NN_OK)
    status = _nn_model_upload_batch (m, x, labels, 4, &error);
  if (status == NN_OK)
    status = _nn_model_forward (m, &pass, &error);
  if (status == NN_OK)
    status = _nn_model_check (m,
                              m->backend.ops->loss (m->backend.ctx,
                                                    NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY,
                                                    _nn_model_output (m), m->labels, m->targets,
                                                    m->scratch[0], m->stats, 4, m->classes),
                              "loss", &error);
  if (status == NN_OK)
    status = _nn_model_backward (m, &pass, gx != NULL ? &input_grad : NULL, &error);
  if (status == NN_OK)
    {
      *count = m->param_count;
      *grads = malloc (sizeof (float) * (size_t) *count);
      m->backend.ops->download (m->backend.ctx, *grads, m->grads, sizeof (float) * (size_t) *count);
      if (gx != NULL)
        m->backend.ops->download (m->backend.ctx, gx, input_grad, sizeof (float) * 4 * 64);
    }
  if (status != NN_OK)
    tap_diag ("%s: %s", spec, error.message);
  nn_model_free (m);
  return status;
}

/* A gradient check's backward of `spec` wants the model's input gradient,
 * which the lowest convolution forms: on the table with the convolution
 * with the one below, nothing may be fused there, and it must give the
 * plain table's gradients, as must a training backward, which fuses. */
static void
check_below_input_grad (const char *spec)
{
  float gx_plain[4 * 64], gx[4 * 64];
  float *grads_plain = NULL, *grads = NULL, *grads_fused = NULL;
  int64_t count_plain = 0, count = 0, count_fused = 0;
  int belows, fused_belows;
  bool moved = false;

  NnStatus sp = backward_once (spec, NULL, gx_plain, &grads_plain, &count_plain);
  NnStatus s = backward_once (spec, &fake.below_ops, gx, &grads, &count);
  belows = fake.conv_belows;
  NnStatus sf = backward_once (spec, &fake.below_ops, NULL, &grads_fused, &count_fused);
  fused_belows = fake.conv_belows;

  for (int i = 0; i < 4 * 64; i++)
    moved |= gx_plain[i] != 0.0f;
  tap_ok (sp == NN_OK && s == NN_OK && belows == 0 && moved && count == count_plain
              && memcmp (gx, gx_plain, sizeof gx) == 0
              && memcmp (grads, grads_plain, sizeof (float) * (size_t) count) == 0,
          "%s: with the input gradient nothing runs with the convolution below (%d), and the "
          "gradients are the plain table's",
          spec, belows);
  tap_ok (sp == NN_OK && sf == NN_OK && fused_belows == 1 && count_fused == count_plain
              && memcmp (grads_fused, grads_plain, sizeof (float) * (size_t) count_plain) == 0,
          "%s: without it the convolution runs with the one below (%d), to the same gradients",
          spec, fused_belows);
  free (grads_plain);
  free (grads);
  free (grads_fused);
}

/* `spec` with `optimizer` and `loss` on the table with dense_backward_update:
 * its top `updating` dense layers (of `dense_layers` that take the fused
 * dense ops in training) update their parameters in the backward;
 * `all_updating` when they hold every parameter, so that the lowest of them
 * stores the step counter. */
static void
check_update (const char *spec, const NnOptimizer *optimizer, NnLossKind loss, int dense_layers,
              int updating, bool all_updating)
{
  char name[64];
  bool same = same_training (spec, optimizer, loss, &fake.update_ops);

  snprintf (name, sizeof name, "%s%s", nn_optimizer_name (optimizer->kind),
            loss == NN_LOSS_MEAN_SQUARED_ERROR ? ", squared error" : "");
  tap_ok (same,
          "%s (%s): the update in the backward gives the very losses, test results and weights",
          spec, name);
  /* 32 training steps */
  tap_ok (fake.updates == 32 * updating && fake.backward == 32 * (dense_layers - updating),
          "%s (%s): the top %d dense layers update their parameters in the backward, every step "
          "(%d dense_backward_update, %d dense_backward)",
          spec, name, updating, fake.updates, fake.backward);
  /* in these models the updating layers are consecutive dense layers */
  tap_ok (fake.belows == 32 * (updating > 0 ? updating - 1 : 0),
          "%s (%s): each updating layer above another forms that one's dz (%d times)", spec, name,
          fake.belows);
  tap_ok (fake.stored_steps == (all_updating ? 32 : 0), "%s (%s): %s (%d stores)", spec, name,
          all_updating ? "the lowest layer's update stores the step counter, once a step"
                       : "no update stores the step counter: optimizer_update does",
          fake.stored_steps);
}

/* `spec` with `optimizer` on the table with dense_loss_dx and branches too:
 * the same training, and `branched` whether every training step formed the
 * output layer's input gradient with its loss and ran that layer's own
 * backward, alone, on a branch (otherwise none did). */
static void
check_branch (const char *spec, const NnOptimizer *optimizer, bool branched)
{
  bool same
      = same_training (spec, optimizer, NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, &fake.branch_ops);
  int steps = branched ? 32 : 0;

  tap_ok (same,
          "%s (%s): the output layer's backward on a branch gives the very losses, test "
          "results and weights",
          spec, nn_optimizer_name (optimizer->kind));
  tap_ok (fake.loss_dxs == steps && fake.branches == steps && fake.joins == steps
              && fake.held_total == steps && fake.misplaced == 0 && !fake.in_branch
              && fake.held == 0,
          "%s (%s): %s (%d dense_loss_dx, %d branches, %d joined, %d ops held, %d misplaced)", spec,
          nn_optimizer_name (optimizer->kind),
          branched ? "every step forms the output layer's dx with the loss and branches once"
                   : "no step branches",
          fake.loss_dxs, fake.branches, fake.joins, fake.held_total, fake.misplaced);
}

int
main (void)
{
  fake.cpu = nn_backend_cpu_get ();
  fake.ops = *fake.cpu;
  fake.ops.name = "fake-fused";
  fake.ops.loss = f_loss;
  fake.ops.bias_act_backward = f_bias_act_backward;
  fake.ops.conv2d_plan_new = f_plan_new;
  fake.ops.dropout_forward = f_dropout_forward;
  fake.ops.dropout_backward = f_dropout_backward;
  fake.ops.step_supported = supported_basic;
  fake.ops.step_run = f_step_run;
  fake.update_ops = fake.ops;
  fake.update_ops.step_supported = supported_update;
  fake.branch_ops = fake.ops;
  fake.branch_ops.step_supported = supported_branch;
  fake.argmax_ops = fake.ops;
  fake.argmax_ops.step_supported = supported_maxima;
  fake.conv_pool_ops = fake.ops;
  fake.conv_pool_ops.step_supported = supported_conv_pool;
  fake.below_ops = fake.ops;
  fake.below_ops.step_supported = supported_below;
  data = test_make_dataset (500, 200, 4, 1, 8, 8, 3);

  check ("flatten; dense 32 relu; dropout 0.3; dense 16 tanh; dropout 0.2; dense 4 softmax", 3, 2,
         false, 0, 0, 0);
  check ("conv2d 4 3 relu; dropout 0.25; flatten; dense 8 relu; dropout 0.5; dense 4 softmax", 2, 1,
         true, 1, 0, 0);
  check ("flatten; dense 16 sigmoid; dense 4 softmax", 2, 0, false, 0, 0, 0);
  check ("conv2d 4 3 relu; maxpool 2; conv2d 6 2 tanh; avgpool 2; flatten; dense 8 relu; "
         "dense 4 softmax",
         2, 0, false, 2, 2, 0);
  /* the cnn preset's order */
  check ("conv2d 4 3 relu; conv2d 6 3 relu; maxpool 2; dropout 0.25; flatten; dense 8 relu; "
         "dropout 0.5; dense 4 softmax",
         2, 1, false, 2, 1, 1);

  for (int conv_pool = 0; conv_pool < 2; conv_pool++)
    {
      /* a max pooling records its maxima; an average pooling cannot */
      check_maxima ("conv2d 4 3 relu; maxpool 2; conv2d 6 2 tanh; avgpool 2; flatten; "
                    "dense 8 relu; dense 4 softmax",
                    conv_pool, 1, 1, 0, 2);
      /* the cnn preset's order, and sigmoid for an activation that is not
       * 0 at 0 */
      check_maxima ("conv2d 4 3 relu; conv2d 6 3 relu; maxpool 2; dropout 0.25; flatten; "
                    "dense 8 relu; dropout 0.5; dense 4 softmax",
                    conv_pool, 1, 0, 1, 2);
      check_maxima ("conv2d 4 3 relu; conv2d 6 3 sigmoid; maxpool 2; dropout 0.25; flatten; "
                    "dense 8 relu; dropout 0.5; dense 4 softmax",
                    conv_pool, 1, 0, 1, 2);
      /* windows that do not tile the 6 x 6 input (stride 1; 4 x 4 windows
       * leave two cells over): the pooling as before */
      check_maxima ("conv2d 4 3 relu; maxpool 2 stride=1; flatten; dense 4 softmax", conv_pool, 0,
                    1, 0, 1);
      check_maxima ("conv2d 4 3 relu; maxpool 4; flatten; dense 4 softmax", conv_pool, 0, 1, 0,
                    1);
    }

  {
    const char *cnn = "conv2d 4 3 relu; conv2d 6 3 relu; maxpool 2; dropout 0.25; flatten; "
                      "dense 8 relu; dropout 0.5; dense 4 softmax";
    const char *stacked = "conv2d 4 3 relu; conv2d 6 3 tanh; flatten; dense 4 softmax";

    /* the cnn preset's order: the pooling forms the upper convolution's dz */
    check_below (cnn, 1, 0, 0);
    /* no pooling above: the upper convolution's activation backward alone,
     * then the op */
    check_below (stacked, 1, 0, 1);
    /* the first layer that learns need not be the first layer */
    check_below ("maxpool 2 stride=1; conv2d 4 3 relu; conv2d 6 2 sigmoid; flatten; "
                 "dense 4 softmax",
                 1, 0, 1);
    /* only the convolution above the first that learns: the third runs its
     * own backward, whose dx the second needs */
    check_below ("conv2d 3 3 relu; conv2d 4 3 relu; conv2d 6 2 relu; flatten; dense 4 softmax", 1,
                 1, 1);
    /* not right above a convolution: a pooling (which does the lower
     * one's activation backward from its maxima) or a dropout between */
    check_below ("conv2d 4 3 relu; maxpool 2; conv2d 6 2 tanh; flatten; dense 4 softmax", 0, 1, 0);
    check_below ("conv2d 4 3 relu; dropout 0.25; conv2d 6 3 tanh; flatten; dense 4 softmax", 0, 2,
                 0);
    /* where the backend says it does not fit, nothing is fused */
    fake.below_declined = true;
    check_below (cnn, 0, 1, 0);
    /* asked when a pass's plan is made, not at every layer of every pass */
    tap_ok (fake.below_asks > 0, "%s: the backend was asked whether it fits (%d times)", cnn,
            fake.below_asks);
    check_below (stacked, 0, 2, 0);
    fake.below_declined = false;

    check_below_input_grad (stacked);
    check_below_input_grad ("conv2d 4 3 relu; conv2d 6 3 relu; maxpool 2; flatten; "
                            "dense 4 softmax");
  }

  {
    const char *mlp = "flatten; dense 32 relu; dropout 0.3; dense 16 tanh; dropout 0.2; "
                      "dense 4 softmax";
    const char *cnn = "conv2d 4 3 relu; conv2d 6 3 relu; maxpool 2; dropout 0.25; flatten; "
                      "dense 8 relu; dropout 0.5; dense 4 softmax";
    /* the hidden softmax cannot be fused, nor can anything below it */
    const char *blocked = "flatten; dense 16 relu; dense 8 softmax; dense 4 softmax";
    NnOptimizerKind kinds[]
        = { NN_OPT_SGD, NN_OPT_ADAM, NN_OPT_ADADELTA, NN_OPT_RMSPROP, NN_OPT_ADAGRAD };
    NnOptimizer adam = nn_optimizer_defaults (NN_OPT_ADAM);

    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
      {
        NnOptimizer opt = nn_optimizer_defaults (kinds[i]);
        if (kinds[i] == NN_OPT_SGD)
          opt.momentum = 0.9f; /* so it has a state */
        /* every parameter updated in the backward */
        check_update (mlp, &opt, NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, 3, 3, true);
        /* the convolutions' parameters left to optimizer_update */
        check_update (cnn, &opt, NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, 2, 2, false);
      }
    /* only the output layer updates itself; dense 16 relu runs dense_backward */
    check_update (blocked, &adam, NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, 2, 1, false);
    /* with the squared error the output layer's softmax is its own, so it
     * cannot be fused, and no layer updates itself */
    check_update (blocked, &adam, NN_LOSS_MEAN_SQUARED_ERROR, 1, 0, false);
    /* where the backend says the update does not pay for a layer (the mlp's
     * dense 16, 32 inputs; its output layer, 16 inputs), neither that layer
     * nor any below it updates itself */
    fake.declined_in = 32;
    check_update (mlp, &adam, NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, 3, 1, false);
    fake.declined_in = 16;
    check_update (mlp, &adam, NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, 3, 0, false);
    fake.declined_in = 0;

    /* the output layer's update on a branch: beside the layers below,
     * whether they update themselves (the mlp, with every optimizer), leave
     * the convolutions to optimizer_update (the cnn) or update nothing
     * themselves (the mlp where the update does not pay for its dense 16,
     * and the blocked model, whose dense 8 softmax has its own dz to form);
     * but not where the output layer does not update itself (its gradient
     * alone stays on the chain) */
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
      {
        NnOptimizer opt = nn_optimizer_defaults (kinds[i]);
        if (kinds[i] == NN_OPT_SGD)
          opt.momentum = 0.9f;
        check_branch (mlp, &opt, true);
      }
    check_branch (cnn, &adam, true);
    check_branch (blocked, &adam, true);
    fake.declined_in = 32;
    check_branch (mlp, &adam, true);
    fake.declined_in = 16;
    check_branch (mlp, &adam, false);
    fake.declined_in = 0;
    /* a sigmoid output: its loss gradient is not its dz */
    check_branch ("flatten; dense 16 relu; dense 8 relu; dense 4 sigmoid", &adam, false);
    /* one dense layer below, which updates itself and so stores the step:
     * a branch would be joined at once */
    check_branch ("flatten; dense 16 relu; dense 4 softmax", &adam, false);
    /* ... but where that one leaves its update to optimizer_update, it
     * branches (the images are 1 x 8 x 8) */
    fake.declined_in = 64;
    check_branch ("flatten; dense 16 relu; dense 4 softmax", &adam, true);
    fake.declined_in = 0;
  }

  nn_dataset_free (data);
  free (fake.conv_out);
  free (fake.cells);
  free (fake.below_dz);
  return tap_done ();
}
