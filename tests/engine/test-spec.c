/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-spec.c: the model spec parser: every layer kind and option, the
 * presets, the canonical text round trip, optimizer and loss names, and the
 * errors a user can cause (each must name the layer and the wrong word).
 */

#include "test-util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static NnSpec *
parse_ok (const char *text)
{
  NnSpec *spec = NULL;
  NnError error;
  nn_error_clear (&error);
  if (nn_spec_parse (text, &spec, &error) != NN_OK)
    {
      tap_diag ("'%s' failed: %s", text, error.message);
      return NULL;
    }
  return spec;
}

static bool
layer_equal (const NnLayerSpec *a, const NnLayerSpec *b)
{
  return a->kind == b->kind && a->units == b->units && a->filters == b->filters
         && a->kernel_h == b->kernel_h && a->kernel_w == b->kernel_w
         && a->stride_h == b->stride_h && a->stride_w == b->stride_w
         && a->padding == b->padding && a->rate == b->rate && a->activation == b->activation;
}

static bool
spec_equal (const NnSpec *a, const NnSpec *b)
{
  int32_t i;
  if (a->count != b->count)
    return false;
  for (i = 0; i < a->count; i++)
    if (!layer_equal (&a->layers[i], &b->layers[i]))
      return false;
  return true;
}

/* Format, parse back, compare; also check the length contract. */
static void
check_round_trip (const char *text)
{
  NnSpec *spec = parse_ok (text);
  NnSpec *back = NULL;
  NnError error;
  char buf[4096];
  size_t need;

  if (!tap_ok (spec != NULL, "round trip: '%s' parses", text))
    return;
  need = nn_spec_format (spec, buf, sizeof buf);
  tap_ok (need == strlen (buf), "round trip: length %zu matches the text '%s'", need, buf);
  nn_error_clear (&error);
  if (tap_ok (nn_spec_parse (buf, &back, &error) == NN_OK, "round trip: '%s' parses back", buf))
    tap_ok (spec_equal (spec, back), "round trip: '%s' -> '%s' is the same spec", text, buf);
  nn_spec_free (back);
  nn_spec_free (spec);
}

/* A parse that must fail with NN_ERROR_SPEC and a message containing every
 * needle (the layer number, the layer's text, the wrong word...). */
static void
check_error (const char *text, const char *needle1, const char *needle2)
{
  NnSpec *spec = NULL;
  NnError error;
  NnStatus status;
  char shown[96];
  size_t i;

  /* The test name shows printable text only, shortened. */
  for (i = 0; text[i] != '\0' && i + 4 < sizeof shown; i++)
    shown[i] = (text[i] >= 0x20 && text[i] < 0x7f) ? text[i] : '?';
  shown[i] = '\0';
  if (text[i] != '\0')
    memcpy (shown + sizeof shown - 4, "...", 4);

  nn_error_clear (&error);
  status = nn_spec_parse (text, &spec, &error);
  tap_ok (status == NN_ERROR_SPEC && error.code == NN_ERROR_SPEC && spec == NULL,
          "'%s' is a spec error (got %s)", shown, nn_status_name (status));
  tap_ok (strstr (error.message, needle1) != NULL
            && (needle2 == NULL || strstr (error.message, needle2) != NULL),
          "'%s': message names '%s'%s%s: %s", shown, needle1, needle2 ? " and " : "",
          needle2 ? needle2 : "", error.message);
  nn_spec_free (spec);
}

static void
test_layer_kinds (void)
{
  NnSpec *spec;
  const NnLayerSpec *l;

  spec = parse_ok ("conv2d 32 3 relu; conv2d 64 3x5 relu stride=2 padding=same; maxpool 2; "
                   "avgpool 2x3 stride=1x2 padding=same; dropout 0.25; flatten; dense 128 relu; "
                   "relu; activation tanh; dense 10 softmax");
  if (!tap_ok (spec != NULL && spec->count == 10, "the header's example parses into 10 layers"))
    {
      nn_spec_free (spec);
      return;
    }
  l = spec->layers;
  tap_ok (l[0].kind == NN_LAYER_CONV2D && l[0].filters == 32 && l[0].kernel_h == 3
            && l[0].kernel_w == 3 && l[0].stride_h == 1 && l[0].stride_w == 1
            && l[0].padding == NN_PADDING_VALID && l[0].activation == NN_ACT_RELU,
          "conv2d 32 3 relu: square kernel, stride 1, valid");
  tap_ok (l[1].kind == NN_LAYER_CONV2D && l[1].filters == 64 && l[1].kernel_h == 3
            && l[1].kernel_w == 5 && l[1].stride_h == 2 && l[1].stride_w == 2
            && l[1].padding == NN_PADDING_SAME,
          "conv2d 64 3x5 stride=2 padding=same");
  tap_ok (l[2].kind == NN_LAYER_MAXPOOL2D && l[2].kernel_h == 2 && l[2].kernel_w == 2
            && l[2].stride_h == 2 && l[2].stride_w == 2 && l[2].padding == NN_PADDING_VALID
            && l[2].activation == NN_ACT_LINEAR,
          "maxpool 2: stride defaults to the window");
  tap_ok (l[3].kind == NN_LAYER_AVGPOOL2D && l[3].kernel_h == 2 && l[3].kernel_w == 3
            && l[3].stride_h == 1 && l[3].stride_w == 2 && l[3].padding == NN_PADDING_SAME,
          "avgpool 2x3 stride=1x2 padding=same");
  tap_ok (l[4].kind == NN_LAYER_DROPOUT && l[4].rate == 0.25f, "dropout 0.25");
  tap_ok (l[5].kind == NN_LAYER_FLATTEN, "flatten");
  tap_ok (l[6].kind == NN_LAYER_DENSE && l[6].units == 128 && l[6].activation == NN_ACT_RELU,
          "dense 128 relu");
  tap_ok (l[7].kind == NN_LAYER_ACTIVATION && l[7].activation == NN_ACT_RELU, "bare relu");
  tap_ok (l[8].kind == NN_LAYER_ACTIVATION && l[8].activation == NN_ACT_TANH, "activation tanh");
  tap_ok (l[9].kind == NN_LAYER_DENSE && l[9].units == 10 && l[9].activation == NN_ACT_SOFTMAX,
          "dense 10 softmax");
  nn_spec_free (spec);

  /* Spelling variants: case, aliases, key=value, spaces, newlines. */
  spec = parse_ok ("  FLATTEN ;\n Dense   64  Activation = Sigmoid\r\n\n"
                   "MaxPool2D 3 ; max_pooling2d 2 ; AvgPool2D 2 ; average_pooling2d 2x2 ;"
                   "linear;SIGMOID;softmax;dense 5;;");
  if (tap_ok (spec != NULL && spec->count == 10, "case, aliases, blank layers and spaces"))
    {
      l = spec->layers;
      tap_ok (l[0].kind == NN_LAYER_FLATTEN, "FLATTEN");
      tap_ok (l[1].kind == NN_LAYER_DENSE && l[1].units == 64
                && l[1].activation == NN_ACT_SIGMOID,
              "dense with 'Activation = Sigmoid'");
      tap_ok (l[2].kind == NN_LAYER_MAXPOOL2D && l[2].kernel_h == 3 && l[2].stride_w == 3,
              "MaxPool2D 3");
      tap_ok (l[3].kind == NN_LAYER_MAXPOOL2D, "max_pooling2d");
      tap_ok (l[4].kind == NN_LAYER_AVGPOOL2D && l[5].kind == NN_LAYER_AVGPOOL2D,
              "AvgPool2D and average_pooling2d");
      tap_ok (l[6].kind == NN_LAYER_ACTIVATION && l[6].activation == NN_ACT_LINEAR,
              "bare linear");
      tap_ok (l[7].activation == NN_ACT_SIGMOID && l[8].activation == NN_ACT_SOFTMAX,
              "bare SIGMOID and softmax");
      tap_ok (l[9].kind == NN_LAYER_DENSE && l[9].activation == NN_ACT_LINEAR,
              "dense without an activation is linear");
    }
  nn_spec_free (spec);

  spec = parse_ok ("conv2d filters=8 kernel_size=5x1 strides=1x3 activation=tanh padding=SAME; "
                   "maxpool pool_size=3 stride=1; dropout rate=0; dropout .5; dropout 5e-1; "
                   "dense units=7 activation=relu");
  if (tap_ok (spec != NULL && spec->count == 6, "Keras-style settings"))
    {
      l = spec->layers;
      tap_ok (l[0].filters == 8 && l[0].kernel_h == 5 && l[0].kernel_w == 1 && l[0].stride_h == 1
                && l[0].stride_w == 3 && l[0].activation == NN_ACT_TANH
                && l[0].padding == NN_PADDING_SAME,
              "conv2d with filters=, kernel_size=, strides=, activation=, padding=");
      tap_ok (l[1].kernel_h == 3 && l[1].stride_h == 1 && l[1].stride_w == 1,
              "maxpool pool_size=3 stride=1");
      tap_ok (l[2].rate == 0.0f && l[3].rate == 0.5f && l[4].rate == 0.5f,
              "dropout rate=0, .5 and 5e-1");
      tap_ok (l[5].units == 7 && l[5].activation == NN_ACT_RELU, "dense units=7 activation=relu");
    }
  nn_spec_free (spec);

  spec = parse_ok ("conv2d 8 3 relu same; maxpool 2 SAME; avgpool 2 valid");
  tap_ok (spec != NULL && spec->layers[0].padding == NN_PADDING_SAME
            && spec->layers[0].activation == NN_ACT_RELU
            && spec->layers[1].padding == NN_PADDING_SAME
            && spec->layers[2].padding == NN_PADDING_VALID,
          "'same' and 'valid' without 'padding=' after the sizes");
  nn_spec_free (spec);

  spec = parse_ok ("dense 1000000; conv2d 1 1024x1 stride=1024");
  tap_ok (spec != NULL && spec->layers[0].units == 1000000 && spec->layers[1].kernel_h == 1024
            && spec->layers[1].stride_w == 1024,
          "the limits themselves are accepted");
  nn_spec_free (spec);
}

static void
test_presets (void)
{
  int count = 0;
  const NnPreset *presets = nn_presets (&count);
  const NnPreset *p;
  int i;

  tap_ok (presets != NULL && count == 3, "three presets");
  for (i = 0; i < count; i++)
    {
      NnSpec *spec = parse_ok (presets[i].spec);
      tap_ok (spec != NULL, "preset %s parses", presets[i].name);
      tap_ok (nn_preset_find (presets[i].name) == &presets[i], "preset %s is found by name",
              presets[i].name);
      tap_ok (presets[i].title != NULL && presets[i].title[0] != '\0', "preset %s has a title",
              presets[i].name);
      nn_spec_free (spec);
      check_round_trip (presets[i].spec);
    }

  p = nn_preset_find ("mlp-small");
  tap_ok (p != NULL && p->optimizer == NN_OPT_ADAM && p->lr == 0.001f && p->batch_size == 32
            && p->epochs == 10 && strcmp (p->title, "Small MLP (784-128-10)") == 0,
          "mlp-small: Adam 0.001, batch 32, 10 epochs");
  p = nn_preset_find ("mlp-wide");
  tap_ok (p != NULL && p->optimizer == NN_OPT_ADAM && p->lr == 0.001f && p->batch_size == 32
            && p->epochs == 10
            && strcmp (p->spec, "flatten; dense 1000 relu; dropout 0.2; dense 1000 relu; "
                                "dropout 0.2; dense 10 softmax")
                 == 0,
          "mlp-wide: its layers, Adam 0.001, batch 32, 10 epochs");
  p = nn_preset_find ("CNN");
  tap_ok (p != NULL && p->optimizer == NN_OPT_ADADELTA && p->lr == 1.0f && p->batch_size == 256
            && p->epochs == 2,
          "cnn (found case-insensitively): Adadelta 1.0, batch 256, 2 epochs");
  tap_ok (nn_preset_find ("resnet") == NULL && nn_preset_find (NULL) == NULL,
          "unknown and NULL preset names find nothing");

  /* a config takes the preset's training defaults and keeps the rest */
  {
    NnTrainConfig c;
    nn_train_config_init (&c);
    c.seed = 7;
    c.device.threads = 3;
    nn_train_config_use_preset (&c, p);
    tap_ok (p != NULL && c.spec_text == p->spec && strcmp (c.model_name, "cnn") == 0
                && c.optimizer.kind == NN_OPT_ADADELTA && c.optimizer.lr == 1.0f
                && c.optimizer.rho == nn_optimizer_defaults (NN_OPT_ADADELTA).rho
                && c.batch_size == 256 && c.epochs == 2 && c.seed == 7 && c.device.threads == 3,
            "a config takes the cnn preset's spec, Adadelta 1.0, batch 256 and 2 epochs, and "
            "keeps its seed and threads");
  }
}

static void
test_round_trips (void)
{
  NnSpec *spec;
  char small[8];
  char full[256];
  size_t need;

  check_round_trip ("conv2d 32 3x5 tanh stride=2x1 padding=same; avgpool 3 stride=1; "
                    "maxpool 2x3 padding=same; flatten; dropout 0.1; dense 10 linear; "
                    "activation sigmoid; softmax");
  check_round_trip ("flatten; dropout 0; dropout 0.3333; dropout 0.999999; dropout 1e-7; "
                    "dropout 0.000123; dense 1");
  check_round_trip ("conv2d 1 1; maxpool 1; avgpool 7x1 stride=7x1");

  spec = parse_ok ("flatten; dense 128 relu; dropout 0.2; dense 10 softmax");
  if (spec != NULL)
    {
      need = nn_spec_format (spec, full, sizeof full);
      tap_ok (strcmp (full, "flatten; dense 128 relu; dropout 0.2; dense 10 softmax") == 0,
              "canonical text of mlp-small is its preset text: '%s'", full);
      tap_ok (nn_spec_format (spec, small, sizeof small) == need && strlen (small) == 7,
              "a short buffer is truncated and NUL-terminated, the length is still reported");
      tap_ok (nn_spec_format (spec, NULL, 0) == need, "NULL buffer reports the length");
    }
  nn_spec_free (spec);

  spec = parse_ok ("CONV2D 32 3X3 Relu STRIDE=1 PADDING=valid; MaxPool 2 stride=2");
  if (spec != NULL)
    {
      nn_spec_format (spec, full, sizeof full);
      tap_ok (strcmp (full, "conv2d 32 3 relu; maxpool 2") == 0,
              "defaults are left out of the canonical text: '%s'", full);
    }
  nn_spec_free (spec);

  tap_ok (strcmp (nn_layer_kind_name (NN_LAYER_DENSE), "dense") == 0
            && strcmp (nn_layer_kind_name (NN_LAYER_MAXPOOL2D), "maxpool") == 0
            && strcmp (nn_activation_name (NN_ACT_LINEAR), "linear") == 0
            && strcmp (nn_activation_name (NN_ACT_SOFTMAX), "softmax") == 0,
          "kind and activation names");
}

/* Every dropout rate a float can hold must survive format + parse: sweep
 * random bit patterns in [0, 1), the smallest denormals and the largest
 * float below 1. */
static void
test_rate_round_trip (void)
{
  NnLayerSpec layer;
  NnSpec spec = { 1, &layer };
  uint64_t state = 12345;
  int failures = 0;
  int i;

  memset (&layer, 0, sizeof layer);
  layer.kind = NN_LAYER_DROPOUT;
  for (i = 0; i < 20000 && failures < 5; i++)
    {
      NnSpec *back = NULL;
      char text[128];
      uint32_t bits;

      if (i == 0)
        bits = 1; /* smallest denormal */
      else if (i == 1)
        bits = 0x3f7fffff; /* largest float below 1 */
      else if (i == 2)
        bits = 0x007fffff; /* largest denormal */
      else
        {
          state = state * 6364136223846793005u + 1442695040888963407u;
          bits = (uint32_t) (state >> 33) % 0x3f800000u; /* [0, 1) */
        }
      memcpy (&layer.rate, &bits, sizeof bits);
      nn_spec_format (&spec, text, sizeof text);
      if (nn_spec_parse (text, &back, NULL) != NN_OK || back->layers[0].rate != layer.rate)
        {
          tap_diag ("rate %.9g (bits 0x%08x) formats as '%s', which does not parse back",
                    (double) layer.rate, bits, text);
          failures++;
        }
      nn_spec_free (back);
    }
  tap_ok (failures == 0, "20000 dropout rates, denormals included, survive format and parse");
}

static void
test_errors (void)
{
  NnSpec *spec = (NnSpec *) 1;
  NnError error;
  char long_spec[8192];
  size_t i;

  check_error ("flatten; dense 128 relu; dense 12x relu", "layer 3 (dense 12x relu)",
               "'12x' is not a positive whole number of units");
  check_error ("flatten; dens 128", "layer 2 (dens 128)", "'dens' is not a layer kind");
  check_error ("flatten; dens 128", "conv2d", "maxpool");  /* lists the known kinds */
  check_error ("flatten; dens 128", "layer 2", "did you mean 'dense'?");
  check_error ("Max_Pooling_2D 2", "layer 1", "did you mean 'max_pooling2d'?");
  check_error ("flatten; dense 10 activation=soft_max", "layer 2", "did you mean 'softmax'?");
  check_error ("dense 0", "layer 1", "'0'");
  check_error ("dense -5 relu", "layer 1", "'-5'");
  check_error ("dense 1000001", "layer 1", "'1000001' is too many units");
  check_error ("dense 99999999999999999999999", "layer 1", "too many units");
  check_error ("dense 128 rleu", "layer 1 (dense 128 rleu)", "'rleu' is not an activation");
  check_error ("dense 128 relu tanh", "layer 1", "'tanh': the activation is given twice");
  check_error ("dense", "layer 1 (dense)", "needs a number of units");
  check_error ("conv2d 32", "layer 1 (conv2d 32)", "kernel size");
  check_error ("conv2d", "layer 1 (conv2d)", "filters");
  check_error ("conv2d 32 3x", "layer 1", "'3x' is not a kernel size");
  check_error ("conv2d 32 0x3", "layer 1", "'0x3'");
  check_error ("conv2d 32 1025 relu", "layer 1", "'1025'");
  check_error ("conv2d 32 3 stride=0", "layer 1", "'stride=0'");
  check_error ("conv2d 32 3 stride=2x2x2", "layer 1", "'stride=2x2x2'");
  check_error ("conv2d 32 3 padding=full", "layer 1", "'full' is not a padding");
  check_error ("conv2d 32 3 padding=same padding=valid", "layer 1", "padding is given twice");
  check_error ("conv2d 32 3 dilation=2", "layer 1", "'dilation' is not a setting of conv2d");
  check_error ("conv2d 32 3 stride=", "layer 1", "'stride=' needs a value");
  check_error ("conv2d 32 3 stride=2=3", "layer 1", "'=3' has no setting name");
  check_error ("maxpool 2 padding", "layer 1", "'padding' needs a value, e.g. 'padding=same'");
  check_error ("dense 10 activation", "layer 1", "'activation' needs a value");
  check_error ("dense 10 padding=same", "layer 1", "'padding' is not a setting of dense");
  check_error ("maxpool 2 same valid", "layer 1", "'valid': the padding is given twice");
  check_error ("conv2d 32 same 3", "layer 1", "'same' is not a kernel size");
  check_error ("maxpool", "layer 1 (maxpool)", "window size");
  check_error ("maxpool 2 relu", "layer 1", "'relu' is unexpected");
  check_error ("avgpool 2 activation=relu", "layer 1", "'activation' is not a setting of avgpool");
  check_error ("flatten; dropout 1", "layer 2 (dropout 1)", "'1'");
  check_error ("dropout -0.1", "layer 1", "'-0.1'");
  check_error ("dropout 0,5", "layer 1", "'5' is unexpected"); /* ',' separates words */
  check_error ("dropout 0.5.5", "layer 1", "'0.5.5' is not a dropout rate");
  check_error ("dropout nan", "layer 1", "'nan'");
  check_error ("dropout inf", "layer 1", "'inf'");
  check_error ("dropout 0.99999999999", "layer 1", "below 1"); /* rounds to 1.0f */
  check_error ("dropout", "layer 1 (dropout)", "needs a rate");
  check_error ("dropout 0.5 0.2", "layer 1", "'0.2' is unexpected");
  check_error ("flatten 2", "layer 1 (flatten 2)", "'2' is unexpected");
  check_error ("relu 3", "layer 1 (relu 3)", "'3' is unexpected");
  check_error ("activation", "layer 1 (activation)", "needs a function");
  check_error ("activation gelu", "layer 1", "'gelu' is not an activation");
  check_error ("units=3", "layer 1", "'units=3' is not a layer kind");
  check_error ("dense 10 units=12", "layer 1", "given twice");
  check_error ("", "empty", NULL);
  check_error (" ; ;\n\t", "empty", NULL);
  check_error ("flatten; dense 10 \x01\xff", "layer 2", "'?\?' is not an activation");

  /* A very long word is quoted short. */
  memcpy (long_spec, "dense ", 6);
  for (i = 6; i < 5000; i++)
    long_spec[i] = '7';
  long_spec[i] = '\0';
  check_error (long_spec, "layer 1", "...");

  /* More layers than the limit. */
  {
    char *many = malloc (4100 * 8 + 1);
    if (many != NULL)
      {
        many[0] = '\0';
        for (i = 0; i < 4100; i++)
          strcat (many, "relu;");
        check_error (many, "more than 4096 layers", NULL);
        free (many);
      }
  }

  nn_error_clear (&error);
  tap_ok (nn_spec_parse (NULL, &spec, &error) == NN_ERROR_SPEC && spec == NULL,
          "a NULL spec is a spec error and clears *out");
  tap_ok (nn_spec_parse ("dense 1", NULL, &error) == NN_ERROR_INVALID_ARGUMENT,
          "a NULL out is an invalid argument");
  tap_ok (nn_spec_parse ("dense x", &spec, NULL) == NN_ERROR_SPEC,
          "a NULL error is allowed");
  nn_spec_free (NULL);
}

static void
test_optimizers (void)
{
  NnOptimizer o;
  NnOptimizerKind kind = NN_OPT_SGD;
  NnLossKind loss = NN_LOSS_MEAN_SQUARED_ERROR;
  NnError error;

  o = nn_optimizer_defaults (NN_OPT_SGD);
  tap_ok (o.kind == NN_OPT_SGD && o.lr == 0.01f && o.momentum == 0.0f && !o.nesterov,
          "sgd defaults: lr 0.01, momentum 0, no nesterov");
  o = nn_optimizer_defaults (NN_OPT_ADAM);
  tap_ok (o.lr == 0.001f && o.beta1 == 0.9f && o.beta2 == 0.999f && o.epsilon == 1e-7f,
          "adam defaults: lr 0.001, beta1 0.9, beta2 0.999, eps 1e-7");
  o = nn_optimizer_defaults (NN_OPT_ADADELTA);
  tap_ok (o.lr == 0.001f && o.rho == 0.95f && o.epsilon == 1e-7f,
          "adadelta defaults: lr 0.001, rho 0.95, eps 1e-7");
  o = nn_optimizer_defaults (NN_OPT_RMSPROP);
  tap_ok (o.lr == 0.001f && o.rho == 0.9f && o.momentum == 0.0f && o.epsilon == 1e-7f,
          "rmsprop defaults: lr 0.001, rho 0.9, eps 1e-7");
  o = nn_optimizer_defaults (NN_OPT_ADAGRAD);
  tap_ok (o.lr == 0.001f && o.initial_accumulator == 0.1f && o.epsilon == 1e-7f,
          "adagrad defaults: lr 0.001, initial accumulator 0.1, eps 1e-7");

  for (int k = NN_OPT_SGD; k <= NN_OPT_ADAGRAD; k++)
    {
      NnOptimizerKind back = NN_OPT_SGD;
      o = nn_optimizer_defaults ((NnOptimizerKind) k);
      nn_error_clear (&error);
      tap_ok (nn_optimizer_validate (&o, &error) == NN_OK, "%s defaults are valid: %s",
              nn_optimizer_name ((NnOptimizerKind) k), error.message);
      tap_ok (nn_optimizer_from_name (nn_optimizer_name ((NnOptimizerKind) k), &back, NULL)
                  == NN_OK
                && back == (NnOptimizerKind) k,
              "%s: name round trip", nn_optimizer_name ((NnOptimizerKind) k));
    }
  tap_ok (nn_optimizer_from_name ("RMSProp", &kind, NULL) == NN_OK && kind == NN_OPT_RMSPROP,
          "optimizer names are case-insensitive");
  nn_error_clear (&error);
  tap_ok (nn_optimizer_from_name ("adamw", &kind, &error) == NN_ERROR_INVALID_ARGUMENT
            && strstr (error.message, "'adamw'") != NULL
            && strstr (error.message, "adadelta") != NULL,
          "an unknown optimizer names the word and the valid ones: %s", error.message);

#define CHECK_BAD(field, value, needle)                                                          \
  do                                                                                             \
    {                                                                                            \
      NnOptimizer bad = o;                                                                       \
      bad.field = value;                                                                         \
      nn_error_clear (&error);                                                                   \
      tap_ok (nn_optimizer_validate (&bad, &error) == NN_ERROR_INVALID_ARGUMENT                  \
                && strstr (error.message, needle) != NULL,                                       \
              "%s %s = %s is refused: %s", nn_optimizer_name (bad.kind), #field, #value,         \
              error.message);                                                                    \
    }                                                                                            \
  while (0)

  o = nn_optimizer_defaults (NN_OPT_SGD);
  CHECK_BAD (lr, 0.0f, "lr");
  CHECK_BAD (lr, -1.0f, "lr");
  CHECK_BAD (lr, NAN, "lr");
  CHECK_BAD (lr, INFINITY, "lr");
  CHECK_BAD (momentum, 1.0f, "momentum");
  CHECK_BAD (momentum, -0.1f, "momentum");
  o = nn_optimizer_defaults (NN_OPT_ADAM);
  CHECK_BAD (beta1, 1.0f, "beta1");
  CHECK_BAD (beta2, -0.5f, "beta2");
  CHECK_BAD (epsilon, NAN, "epsilon");
  o = nn_optimizer_defaults (NN_OPT_ADADELTA);
  CHECK_BAD (rho, 1.5f, "rho");
  o = nn_optimizer_defaults (NN_OPT_RMSPROP);
  CHECK_BAD (rho, NAN, "rho");
  CHECK_BAD (epsilon, 0.0f, "epsilon");
  o = nn_optimizer_defaults (NN_OPT_ADAGRAD);
  CHECK_BAD (initial_accumulator, -0.1f, "initial_accumulator");
  o.initial_accumulator = 0.0f;
  tap_ok (nn_optimizer_validate (&o, NULL) == NN_OK, "adagrad initial accumulator 0 is valid");
  o = nn_optimizer_defaults (NN_OPT_SGD);
  o.momentum = 0.9f;
  o.nesterov = true;
  tap_ok (nn_optimizer_validate (&o, NULL) == NN_OK, "sgd momentum 0.9 nesterov is valid");

  tap_ok (strcmp (nn_loss_name (NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY),
                  "sparse_categorical_crossentropy")
              == 0
            && strcmp (nn_loss_name (NN_LOSS_CATEGORICAL_CROSSENTROPY), "categorical_crossentropy")
                 == 0
            && strcmp (nn_loss_name (NN_LOSS_MEAN_SQUARED_ERROR), "mean_squared_error") == 0,
          "loss names");
  tap_ok (nn_loss_from_name ("sparse", &loss, NULL) == NN_OK
            && loss == NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY,
          "loss 'sparse'");
  tap_ok (nn_loss_from_name ("Categorical_Crossentropy", &loss, NULL) == NN_OK
            && loss == NN_LOSS_CATEGORICAL_CROSSENTROPY,
          "loss 'Categorical_Crossentropy'");
  tap_ok (nn_loss_from_name ("mse", &loss, NULL) == NN_OK && loss == NN_LOSS_MEAN_SQUARED_ERROR,
          "loss 'mse'");
  tap_ok (nn_loss_from_name ("categorical", &loss, NULL) == NN_OK
            && loss == NN_LOSS_CATEGORICAL_CROSSENTROPY,
          "loss 'categorical'");
  nn_error_clear (&error);
  tap_ok (nn_loss_from_name ("hinge", &loss, &error) == NN_ERROR_INVALID_ARGUMENT
            && strstr (error.message, "'hinge'") != NULL && strstr (error.message, "mse") != NULL,
          "an unknown loss names the word and the valid ones: %s", error.message);
}

int
main (void)
{
  test_layer_kinds ();
  test_presets ();
  test_round_trips ();
  test_rate_round_trip ();
  test_errors ();
  test_optimizers ();
  return tap_done ();
}
