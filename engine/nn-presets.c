/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-presets.c: the three models of the articles Trainbench exists to test,
 * with the Keras originals' optimizers, batch sizes and epochs.
 */

#include "nn-private.h"

#include <stddef.h>

static const NnPreset presets[] = {
  {
    .name = "mlp-small",
    .title = "Small MLP (784-128-10)",
    .spec = "flatten; dense 128 relu; dropout 0.2; dense 10 softmax",
    .optimizer = NN_OPT_ADAM,
    .lr = 0.001f,
    .batch_size = 32,
    .epochs = 10,
  },
  {
    .name = "mlp-wide",
    .title = "Wide MLP (2 x 1000)",
    .spec = "flatten; dense 1000 relu; dropout 0.2; dense 1000 relu; dropout 0.2; "
            "dense 10 softmax",
    .optimizer = NN_OPT_ADAM,
    .lr = 0.001f,
    .batch_size = 32,
    .epochs = 10,
  },
  {
    /* Keras' mnist_cnn.py: Adadelta with lr 1.0 (Keras 2's default; TF 2
     * lowered it to 0.001, which barely trains in 2 epochs). */
    .name = "cnn",
    .title = "Small CNN (Keras mnist_cnn)",
    .spec = "conv2d 32 3 relu; conv2d 64 3 relu; maxpool 2; dropout 0.25; flatten; "
            "dense 128 relu; dropout 0.5; dense 10 softmax",
    .optimizer = NN_OPT_ADADELTA,
    .lr = 1.0f,
    .batch_size = 256,
    .epochs = 2,
  },
};

#define N_PRESETS ((int) (sizeof presets / sizeof presets[0]))

const NnPreset *
nn_presets (int *count)
{
  if (count != NULL)
    *count = N_PRESETS;
  return presets;
}

static int
ascii_lower (int c)
{
  return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

static bool
same_name (const char *a, const char *b)
{
  for (; *a != '\0' && *b != '\0'; a++, b++)
    {
      int ca = ascii_lower ((unsigned char) *a);
      int cb = ascii_lower ((unsigned char) *b);
      /* "mlp_small" and "MLP-Small" name the same preset. */
      if (ca == '_')
        ca = '-';
      if (cb == '_')
        cb = '-';
      if (ca != cb)
        return false;
    }
  return *a == *b;
}

const NnPreset *
nn_preset_find (const char *name)
{
  int i;
  if (name == NULL)
    return NULL;
  for (i = 0; i < N_PRESETS; i++)
    if (same_name (name, presets[i].name))
      return &presets[i];
  return NULL;
}

void
nn_train_config_use_preset (NnTrainConfig *config, const NnPreset *preset)
{
  config->spec_text = preset->spec;
  config->model_name = preset->name;
  config->optimizer = nn_optimizer_defaults (preset->optimizer);
  config->optimizer.lr = preset->lr;
  config->batch_size = preset->batch_size;
  config->epochs = preset->epochs;
}
