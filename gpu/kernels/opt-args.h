/* SPDX-License-Identifier: GPL-3.0-or-later */
/* opt-args.h: an optimizer's settings as the update kernels take them
 * (optimizer.cu's and dense-update.cu's; optimizer.cuh: the update rules),
 * and the host's way to fill them in.
 */
#pragma once

#include "nn-backend-abi.h"

#include <math.h>
#include <stdint.h>

struct OptArgs
{
  int kind, nesterov;
  float lr, momentum, beta1, beta2, rho, epsilon;
  float log_beta1, log_beta2; /* log (beta), computed in double on the host */
};

#ifndef __CUDACC__
/* The kernel arguments of an optimizer's settings. */
static inline OptArgs
opt_args (const NnBackendOptimizer *opt)
{
  OptArgs o;
  o.kind = opt->kind;
  o.nesterov = opt->nesterov;
  o.lr = opt->lr;
  o.momentum = opt->momentum;
  o.beta1 = opt->beta1;
  o.beta2 = opt->beta2;
  o.rho = opt->rho;
  o.epsilon = opt->epsilon;
  o.log_beta1 = (float) log ((double) opt->beta1);
  o.log_beta2 = (float) log ((double) opt->beta2);
  return o;
}
#endif
