/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-cuda-steps.cc: the fused steps of the engine's plans (NnBackendStep
 * in nn-backend-abi.h): which ones the module runs, and running each with
 * the launchers of the ops it fuses (ops/, nn-cuda-conv.cc), on a branch where the step says so.
 *
 * A step is dispatched, not an op of its own: it does not enter the
 * context (_nn_cuda_enter) itself, so the record of what the op before
 * wrote, which lets a kernel read its weights early, stays as the ops
 * inside the step leave it.
 */

#include "nn-cuda-private.h"

static bool
element_wise (int act)
{
  return act >= NN_BK_ACT_LINEAR && act < NN_BK_ACT_SOFTMAX;
}

static bool
dropout_ok (float rate)
{
  return rate >= 0.0f && rate < 1.0f;
}

/* The dense layer below whose dz the step forms, or NULL. */
static const NnBackendBelow *
dense_below (const NnBackendStep *s)
{
  return s->below.kind == NN_BK_BELOW_DENSE ? &s->below : NULL;
}

int
_nn_cuda_step_supported (void *vctx, const NnBackendStep *s)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  bool dz_in = (s->flags & NN_BK_STEP_DZ_IN) != 0;

  if (s->kind != NN_BK_STEP_JOIN && s->kind != NN_BK_STEP_POOL
      && (!element_wise (s->act) || !dropout_ok (s->drop.rate)))
    return 0;
  switch (s->kind)
    {
    case NN_BK_STEP_JOIN:
      return 1;
    case NN_BK_STEP_DENSE:
      if (s->update.opt != NULL)
        return s->backward && s->update.opt->kind >= NN_BK_OPT_SGD
               && s->update.opt->kind <= NN_BK_OPT_ADAGRAD && s->below.kind != NN_BK_BELOW_CONV
               && _nn_cuda_below_ok (dense_below (s), s->step)
               && _nn_cuda_dense_backward_update_pays (ctx, s->n, s->dense.in, s->dense.out);
      return s->below.kind == NN_BK_BELOW_NONE && !dz_in;
    case NN_BK_STEP_OUTPUT_LOSS:
      if (s->backward || s->loss.kind < NN_BK_LOSS_SPARSE_XENT || s->loss.kind > NN_BK_LOSS_MSE
          || s->drop.rate > 0.0f || s->below.kind == NN_BK_BELOW_CONV)
        return 0;
      if (s->dx == NULL)
        return s->below.kind == NN_BK_BELOW_NONE;
      return s->act == NN_BK_ACT_LINEAR && _nn_cuda_below_ok (dense_below (s), s->step);
    case NN_BK_STEP_CONV:
      if (s->conv.plan == NULL)
        return 0;
      if (s->flags & NN_BK_STEP_POOLED)
        return !s->backward && s->below.kind == NN_BK_BELOW_NONE
               && (s->flags & NN_BK_STEP_MAXIMA)
               && _nn_cuda_conv2d_pool_fits (ctx, s->conv.plan, &s->pool.shape);
      if (s->below.kind == NN_BK_BELOW_CONV)
        return s->backward && s->dx == NULL && element_wise (s->below.act)
               && s->below.plan != NULL
               && _nn_cuda_conv2d_below_fits (ctx, s->conv.plan, s->below.plan);
      /* its bias and activation, forward or backward */
      return s->below.kind == NN_BK_BELOW_NONE && !dz_in && s->drop.rate == 0.0f;
    case NN_BK_STEP_POOL:
      if (!dropout_ok (s->drop.rate) || (s->pool.mode != 0 && s->pool.mode != 1)
          || (s->backward && (s->below.kind != NN_BK_BELOW_CONV || !element_wise (s->below.act))))
        return 0;
      if (s->flags & NN_BK_STEP_MAXIMA)
        return s->pool.mode == 0 && _nn_cuda_pool2d_maxima_ok (&s->pool.shape);
      return 1;
    default:
      return 0;
    }
}

/* The step's ops, on whichever lane is current. */
static int
run (NnCudaContext *ctx, const NnBackendStep *s)
{
  bool dz_in = (s->flags & NN_BK_STEP_DZ_IN) != 0;
  bool maxima = (s->flags & NN_BK_STEP_MAXIMA) != 0;
  /* a dz handed in: the activation and the dropout above were undone above */
  int act = dz_in ? NN_BK_ACT_LINEAR : s->act;
  float rate = dz_in ? 0.0f : s->drop.rate;
  int rc;

  switch (s->kind)
    {
    case NN_BK_STEP_DENSE:
      if (!s->backward)
        return _nn_cuda_dense_forward (ctx, s->act, s->n, s->dense.in, s->dense.out, s->x, s->w,
                                       s->b, s->y, s->drop.y, s->drop.rate, s->drop.seed,
                                       s->step);
      if (s->update.opt == NULL)
        return _nn_cuda_dense_backward (ctx, act, s->n, s->dense.in, s->dense.out, s->x, s->w,
                                        s->y, s->dy, s->dw, s->db, s->dx, rate, s->drop.seed,
                                        s->step);
      return _nn_cuda_dense_backward_update (ctx, act, s->n, s->dense.in, s->dense.out, s->x,
                                             s->w, s->b, s->y, s->dy, s->dx, dense_below (s),
                                             rate, s->drop.seed, s->step, s->update.opt,
                                             s->update.w_state, s->update.b_state,
                                             s->update.stride, s->update.store_step);
    case NN_BK_STEP_OUTPUT_LOSS:
      if (s->dx != NULL)
        return _nn_cuda_dense_loss_dx (ctx, s->act, s->n, s->dense.in, s->dense.out, s->x, s->w,
                                       s->b, s->y, s->loss.kind, s->loss.labels, s->loss.targets,
                                       s->loss.grad, s->loss.stats, s->dx, dense_below (s),
                                       s->step);
      return _nn_cuda_dense_loss (ctx, s->act, s->n, s->dense.in, s->dense.out, s->x, s->w, s->b,
                                  s->y, s->loss.kind, s->loss.labels, s->loss.targets,
                                  s->loss.grad, s->loss.stats);
    case NN_BK_STEP_CONV:
      if (!s->backward && (s->flags & NN_BK_STEP_POOLED))
        return _nn_cuda_conv2d_forward_pool (ctx, s->conv.plan, s->x, s->w, s->b, s->act,
                                             &s->pool.shape, s->y, s->drop.y, s->drop.rate,
                                             s->drop.seed, s->step, s->pool.argmax,
                                             s->conv.workspace);
      if (!s->backward)
        return _nn_cuda_conv2d_forward_bias_act (ctx, s->conv.plan, s->x, s->w, s->b, s->act,
                                                 s->y, s->conv.workspace);
      if (s->below.kind == NN_BK_BELOW_CONV)
        {
          /* the activation backward first, where no pooling above did it */
          if (!dz_in)
            {
              const NnConvShape *cs = _nn_cuda_conv2d_shape (s->conv.plan);
              if ((rc = _nn_cuda_bias_act_backward (ctx, s->act, s->y, s->dy, s->db, cs->n, cs->k,
                                                    cs->out_h * cs->out_w))
                  != 0)
                return rc;
            }
          return _nn_cuda_conv2d_backward_below (ctx, s->conv.plan, s->x, s->w, s->dy, s->dw,
                                                 s->below.plan, s->below.x, s->below.act,
                                                 s->below.dw, s->below.db, s->conv.workspace);
        }
      return _nn_cuda_conv2d_backward_bias_act (ctx, s->conv.plan, s->x, s->w, s->y, s->dy, act,
                                                s->dx, s->dw, s->db, s->conv.workspace);
    case NN_BK_STEP_POOL:
      if (!s->backward && maxima)
        return _nn_cuda_pool2d_forward_argmax (ctx, &s->pool.shape, s->x, s->y, s->drop.y,
                                               s->drop.rate, s->drop.seed, s->step,
                                               s->pool.argmax);
      if (!s->backward)
        return _nn_cuda_pool2d_forward_dropout (ctx, s->pool.mode, &s->pool.shape, s->x, s->y,
                                                s->drop.y, s->drop.rate, s->drop.seed, s->step);
      if (maxima)
        return _nn_cuda_pool2d_backward_argmax (ctx, &s->pool.shape, s->pool.argmax, s->y, s->dy,
                                                s->below.act, s->dx, s->below.db, s->drop.rate,
                                                s->drop.seed, s->step);
      return _nn_cuda_pool2d_backward_act (ctx, s->pool.mode, &s->pool.shape, s->x, s->y, s->dy,
                                           s->below.act, s->dx, s->below.db, s->drop.rate,
                                           s->drop.seed, s->step);
    default:
      return _nn_cuda_fail_msg (ctx, NN_BACKEND_UNSUPPORTED, "step_run: no step of kind %d",
                                s->kind);
    }
}

int
_nn_cuda_step_run (void *vctx, const NnBackendStep *s)
{
  NnCudaContext *ctx = (NnCudaContext *) vctx;
  int rc;

  if (s->kind == NN_BK_STEP_JOIN)
    return _nn_cuda_branch_join (ctx);
  if (!(s->flags & NN_BK_STEP_BRANCH))
    return run (ctx, s);
  if ((rc = _nn_cuda_branch_begin (ctx)) != 0)
    return rc;
  rc = run (ctx, s);
  /* ended whatever failed, so that a capture never ends inside a branch */
  int end = _nn_cuda_branch_end (ctx);
  return rc != 0 ? rc : end;
}
