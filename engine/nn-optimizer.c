/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-optimizer.c: optimizer and loss names, Keras' default hyperparameters,
 * and the range checks every run goes through before it starts. The update
 * rules themselves live in the backends (one op over the parameter arena).
 */

#include "nn-private.h"

#include <math.h>
#include <string.h>

NnOptimizer
nn_optimizer_defaults (NnOptimizerKind kind)
{
  NnOptimizer opt;

  memset (&opt, 0, sizeof opt);
  opt.kind = kind;
  opt.epsilon = 1e-7f; /* Keras' backend epsilon */
  switch (kind)
    {
    case NN_OPT_SGD:
      opt.lr = 0.01f;
      opt.momentum = 0.0f;
      opt.nesterov = false;
      break;
    case NN_OPT_ADAM:
      opt.lr = 0.001f;
      opt.beta1 = 0.9f;
      opt.beta2 = 0.999f;
      break;
    case NN_OPT_ADADELTA:
      opt.lr = 0.001f; /* TF 2's default; the cnn preset sets Keras 2's 1.0 */
      opt.rho = 0.95f;
      break;
    case NN_OPT_RMSPROP:
      opt.lr = 0.001f;
      opt.rho = 0.9f;
      break;
    case NN_OPT_ADAGRAD:
      opt.lr = 0.001f;
      opt.initial_accumulator = 0.1f;
      break;
    default:
      opt.lr = 0.001f;
      break;
    }
  return opt;
}

const char *
nn_optimizer_name (NnOptimizerKind kind)
{
  switch (kind)
    {
    case NN_OPT_SGD: return "sgd";
    case NN_OPT_ADAM: return "adam";
    case NN_OPT_ADADELTA: return "adadelta";
    case NN_OPT_RMSPROP: return "rmsprop";
    case NN_OPT_ADAGRAD: return "adagrad";
    }
  return "unknown";
}

/* ASCII, case-insensitive, '-' same as '_': "RMSProp", "mean-squared-error". */
static bool
same_name (const char *a, const char *b)
{
  for (; *a != '\0' && *b != '\0'; a++, b++)
    {
      int ca = (unsigned char) *a;
      int cb = (unsigned char) *b;
      if (ca >= 'A' && ca <= 'Z')
        ca += 'a' - 'A';
      if (cb >= 'A' && cb <= 'Z')
        cb += 'a' - 'A';
      if (ca == '-')
        ca = '_';
      if (cb == '-')
        cb = '_';
      if (ca != cb)
        return false;
    }
  return *a == *b;
}

/* The user's word, shortened and printable, for a message. */
static void
quote_name (char *out, size_t size, const char *name)
{
  size_t i;
  for (i = 0; name[i] != '\0' && i + 1 < size; i++)
    {
      unsigned char c = (unsigned char) name[i];
      out[i] = (c >= 0x20 && c < 0x7f) ? (char) c : '?';
    }
  out[i] = '\0';
  if (name[i] != '\0' && size > 4)
    memcpy (out + size - 4, "...", 4);
}

NnStatus
nn_optimizer_from_name (const char *name, NnOptimizerKind *out, NnError *error)
{
  static const NnOptimizerKind all[] = {
    NN_OPT_SGD, NN_OPT_ADAM, NN_OPT_ADADELTA, NN_OPT_RMSPROP, NN_OPT_ADAGRAD,
  };
  char quoted[64];
  size_t i;

  if (name == NULL || out == NULL)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "no optimizer name given");
  for (i = 0; i < sizeof all / sizeof all[0]; i++)
    if (same_name (name, nn_optimizer_name (all[i])))
      {
        *out = all[i];
        return NN_OK;
      }
  quote_name (quoted, sizeof quoted, name);
  return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                        "'%s' is not an optimizer; valid names: sgd, adam, adadelta, rmsprop, "
                        "adagrad",
                        quoted);
}

/* v in [lo, hi) and finite. */
static bool
in_unit_range (float v)
{
  return isfinite (v) && v >= 0.0f && v < 1.0f;
}

NnStatus
nn_optimizer_validate (const NnOptimizer *opt, NnError *error)
{
  const char *name;

  if (opt == NULL)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "no optimizer given");
  if (opt->kind < NN_OPT_SGD || opt->kind > NN_OPT_ADAGRAD)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "unknown optimizer kind %d",
                          (int) opt->kind);
  name = nn_optimizer_name (opt->kind);

  if (!isfinite (opt->lr) || !(opt->lr > 0.0f))
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "%s: learning rate (lr) must be a finite number above 0, got %g", name,
                          (double) opt->lr);
  switch (opt->kind)
    {
    case NN_OPT_SGD:
      if (!in_unit_range (opt->momentum))
        return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                              "sgd: momentum must be at least 0 and below 1, got %g",
                              (double) opt->momentum);
      return NN_OK;
    case NN_OPT_ADAM:
      if (!in_unit_range (opt->beta1))
        return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                              "adam: beta1 must be at least 0 and below 1, got %g",
                              (double) opt->beta1);
      if (!in_unit_range (opt->beta2))
        return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                              "adam: beta2 must be at least 0 and below 1, got %g",
                              (double) opt->beta2);
      break;
    case NN_OPT_ADADELTA:
    case NN_OPT_RMSPROP:
      if (!in_unit_range (opt->rho))
        return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                              "%s: rho must be at least 0 and below 1, got %g", name,
                              (double) opt->rho);
      if (opt->kind == NN_OPT_RMSPROP && !in_unit_range (opt->momentum))
        return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                              "rmsprop: momentum must be at least 0 and below 1, got %g",
                              (double) opt->momentum);
      break;
    case NN_OPT_ADAGRAD:
      if (!isfinite (opt->initial_accumulator) || !(opt->initial_accumulator >= 0.0f))
        return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                              "adagrad: initial_accumulator must be a finite number of at "
                              "least 0, got %g",
                              (double) opt->initial_accumulator);
      break;
    }
  if (!isfinite (opt->epsilon) || !(opt->epsilon > 0.0f))
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "%s: epsilon must be a finite number above 0, got %g", name,
                          (double) opt->epsilon);
  return NN_OK;
}

const char *
nn_loss_name (NnLossKind loss)
{
  switch (loss)
    {
    case NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY: return "sparse_categorical_crossentropy";
    case NN_LOSS_CATEGORICAL_CROSSENTROPY: return "categorical_crossentropy";
    case NN_LOSS_MEAN_SQUARED_ERROR: return "mean_squared_error";
    }
  return "unknown";
}

NnStatus
nn_loss_from_name (const char *name, NnLossKind *out, NnError *error)
{
  static const struct
  {
    const char *name;
    NnLossKind loss;
  } names[] = {
    { "sparse_categorical_crossentropy", NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY },
    { "sparse", NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY },
    { "categorical_crossentropy", NN_LOSS_CATEGORICAL_CROSSENTROPY },
    { "categorical", NN_LOSS_CATEGORICAL_CROSSENTROPY },
    { "mean_squared_error", NN_LOSS_MEAN_SQUARED_ERROR },
    { "mse", NN_LOSS_MEAN_SQUARED_ERROR },
  };
  char quoted[64];
  size_t i;

  if (name == NULL || out == NULL)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "no loss name given");
  for (i = 0; i < sizeof names / sizeof names[0]; i++)
    if (same_name (name, names[i].name))
      {
        *out = names[i].loss;
        return NN_OK;
      }
  quote_name (quoted, sizeof quoted, name);
  return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                        "'%s' is not a loss; valid names: sparse_categorical_crossentropy "
                        "(sparse), categorical_crossentropy (categorical), mean_squared_error "
                        "(mse)",
                        quoted);
}
