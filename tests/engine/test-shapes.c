/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-shapes.c: shape inference and parameter counts (Keras' rules) for the
 * presets, conv and pool windows, same padding, the summary text, and the
 * shape errors a user can cause.
 */

#include "test-util.h"
#include "nn-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const NnInputShape mnist = { 1, 28, 28 };

static NnSpec *
parse (const char *text)
{
  NnSpec *spec = NULL;
  NnError error;
  nn_error_clear (&error);
  if (nn_spec_parse (text, &spec, &error) != NN_OK)
    tap_diag ("'%s' does not parse: %s", text, error.message);
  return spec;
}

/* Infer `text` on `input`; the last layer must have `rank` and dims, the model
 * `params` parameters. */
static void
check_infer (const char *text, NnInputShape input, int32_t rank, int32_t d0, int32_t d1,
             int32_t d2, int64_t params)
{
  NnSpec *spec = parse (text);
  NnLayerInfo infos[32];
  NnError error;
  int64_t total = -1;
  const NnLayerInfo *last;

  if (!tap_ok (spec != NULL && spec->count <= 32, "'%s' parses", text))
    {
      nn_spec_free (spec);
      return;
    }
  nn_error_clear (&error);
  if (tap_ok (nn_spec_infer (spec, input, infos, &total, &error) == NN_OK,
              "'%s' on (%d, %d, %d) infers: %s", text, input.channels, input.height, input.width,
              error.message))
    {
      last = &infos[spec->count - 1];
      if (rank == 3)
        tap_ok (last->rank == 3 && last->dims[0] == d0 && last->dims[1] == d1
                  && last->dims[2] == d2,
                "'%s': output (%d, %d, %d), expected (%d, %d, %d)", text, last->dims[0],
                last->dims[1], last->dims[2], d0, d1, d2);
      else
        tap_ok (last->rank == 1 && last->dims[0] == d0, "'%s': output (%d), expected (%d)", text,
                last->dims[0], d0);
      tap_ok (total == params, "'%s': %lld parameters, expected %lld", text, (long long) total,
              (long long) params);
    }
  nn_spec_free (spec);
}

/* Infer must fail with `code` and a message containing both needles. */
static void
check_infer_error (const char *text, NnInputShape input, NnStatus code, const char *needle1,
                   const char *needle2)
{
  NnSpec *spec = parse (text);
  NnError error;
  NnStatus status;

  if (!tap_ok (spec != NULL, "'%s' parses", text))
    return;
  nn_error_clear (&error);
  status = nn_spec_infer (spec, input, NULL, NULL, &error);
  tap_ok (status == code && error.code == code, "'%s' on (%d, %d, %d) fails with %s (got %s)",
          text, input.channels, input.height, input.width, nn_status_name (code),
          nn_status_name (status));
  tap_ok (strstr (error.message, needle1) != NULL
            && (needle2 == NULL || strstr (error.message, needle2) != NULL),
          "'%s': the message names '%s'%s%s: %s", text, needle1, needle2 ? " and " : "",
          needle2 ? needle2 : "", error.message);
  nn_spec_free (spec);
}

static void
test_presets (void)
{
  static const struct
  {
    const char *name;
    int64_t params;
  } expected[] = {
    { "mlp-small", 101770 },
    { "mlp-wide", 1796010 },
    { "cnn", 1199882 },
  };
  size_t i;

  for (i = 0; i < sizeof expected / sizeof expected[0]; i++)
    {
      const NnPreset *preset = nn_preset_find (expected[i].name);
      if (tap_ok (preset != NULL, "preset %s exists", expected[i].name))
        check_infer (preset->spec, mnist, 1, 10, 0, 0, expected[i].params);
    }
}

static void
test_cnn_layers (void)
{
  static const struct
  {
    const char *name;
    int32_t rank, d0, d1, d2;
    int64_t params;
  } expected[] = {
    { "conv2d", 3, 32, 26, 26, 320 },
    { "conv2d_1", 3, 64, 24, 24, 18496 },
    { "max_pooling2d", 3, 64, 12, 12, 0 },
    { "dropout", 3, 64, 12, 12, 0 },
    { "flatten", 1, 9216, 0, 0, 0 },
    { "dense", 1, 128, 0, 0, 1179776 },
    { "dropout_1", 1, 128, 0, 0, 0 },
    { "dense_1", 1, 10, 0, 0, 1290 },
  };
  NnSpec *spec = parse (nn_preset_find ("cnn")->spec);
  NnLayerInfo infos[8];
  size_t i;

  if (!tap_ok (spec != NULL && spec->count == 8, "cnn has 8 layers")
      || !tap_ok (nn_spec_infer (spec, mnist, infos, NULL, NULL) == NN_OK, "cnn infers"))
    {
      nn_spec_free (spec);
      return;
    }
  for (i = 0; i < 8; i++)
    {
      const NnLayerInfo *info = &infos[i];
      bool dims_ok = info->rank == expected[i].rank && info->dims[0] == expected[i].d0
                     && (info->rank == 1
                         || (info->dims[1] == expected[i].d1 && info->dims[2] == expected[i].d2));
      tap_ok (strcmp (info->name, expected[i].name) == 0 && dims_ok
                && info->params == expected[i].params && info->spec.kind == spec->layers[i].kind,
              "cnn layer %zu: %s, rank %d (%d, %d, %d), %lld params", i + 1, info->name,
              info->rank, info->dims[0], info->dims[1], info->dims[2], (long long) info->params);
    }
  nn_spec_free (spec);
}

static void
test_windows (void)
{
  NnInputShape rgb = { 3, 32, 32 };

  /* conv2d: valid, same, stride, rectangular kernels */
  check_infer ("conv2d 8 3", mnist, 3, 8, 26, 26, 8 * 9 + 8);
  check_infer ("conv2d 8 3 padding=same", mnist, 3, 8, 28, 28, 80);
  check_infer ("conv2d 8 3 stride=2", mnist, 3, 8, 13, 13, 80);
  check_infer ("conv2d 8 3 stride=2 padding=same", mnist, 3, 8, 14, 14, 80);
  check_infer ("conv2d 4 5x3 stride=2x1 padding=same", (NnInputShape){ 3, 7, 9 }, 3, 4, 4, 9,
               4 * 3 * 15 + 4);
  check_infer ("conv2d 16 5 stride=3", rgb, 3, 16, 10, 10, 16 * 3 * 25 + 16);
  check_infer ("conv2d 2 28", mnist, 3, 2, 1, 1, 2 * 784 + 2);
  check_infer ("conv2d 6 1x28", mnist, 3, 6, 28, 1, 6 * 28 + 6);

  /* pools: the overhang is dropped (valid) or padded (same) */
  check_infer ("maxpool 2", (NnInputShape){ 1, 5, 5 }, 3, 1, 2, 2, 0);
  check_infer ("maxpool 2 padding=same", (NnInputShape){ 1, 5, 5 }, 3, 1, 3, 3, 0);
  check_infer ("maxpool 3 stride=2", (NnInputShape){ 2, 7, 8 }, 3, 2, 3, 3, 0);
  check_infer ("avgpool 2x3", (NnInputShape){ 4, 5, 7 }, 3, 4, 2, 2, 0);
  check_infer ("avgpool 3 stride=1 padding=same", rgb, 3, 3, 32, 32, 0);
  check_infer ("max_pooling2d 2; average_pooling2d 2; flatten", mnist, 1, 49, 0, 0, 0);

  /* flatten of a rank-1 input stays; activations and dropout keep shapes */
  check_infer ("flatten; flatten; dropout 0.5; relu; softmax", mnist, 1, 784, 0, 0, 0);
  check_infer ("conv2d 3 3; tanh; dropout 0.1; sigmoid", mnist, 3, 3, 26, 26, 30);
  check_infer ("flatten; dense 1", rgb, 1, 1, 0, 0, 3073);
}

static void
check_padding (const char *text, NnInputShape input, int32_t want_h, int32_t want_w)
{
  NnSpec *spec = parse (text);
  NnShape in = { 3, input.channels, input.height, input.width };
  NnShape out;
  int32_t ph = -1, pw = -1;

  if (spec == NULL || _nn_layer_infer (&spec->layers[0], in, &out, NULL, NULL) != NN_OK)
    {
      tap_ok (false, "'%s' infers for padding", text);
      nn_spec_free (spec);
      return;
    }
  _nn_layer_padding (&spec->layers[0], in, out, &ph, &pw);
  tap_ok (ph == want_h && pw == want_w, "'%s' on (%d, %d, %d): padding top %d left %d, expected %d %d",
          text, input.channels, input.height, input.width, ph, pw, want_h, want_w);
  nn_spec_free (spec);
}

static void
test_padding (void)
{
  check_padding ("conv2d 8 3", mnist, 0, 0);
  check_padding ("conv2d 8 3 padding=same", mnist, 1, 1);
  check_padding ("conv2d 8 5 padding=same", mnist, 2, 2);
  /* total 1: TF puts the odd pixel at the bottom/right, so the top gets 0 */
  check_padding ("conv2d 8 3 stride=2 padding=same", mnist, 0, 0);
  check_padding ("conv2d 8 4 padding=same", mnist, 1, 1); /* total 3 */
  check_padding ("conv2d 4 5x3 stride=2x1 padding=same", (NnInputShape){ 3, 7, 9 }, 2, 1);
  check_padding ("maxpool 2 padding=same", (NnInputShape){ 1, 5, 5 }, 0, 0);
  check_padding ("maxpool 3 stride=1 padding=same", (NnInputShape){ 1, 5, 5 }, 1, 1);
  check_padding ("avgpool 2 padding=same", (NnInputShape){ 1, 8, 8 }, 0, 0);
  check_padding ("maxpool 2", (NnInputShape){ 1, 5, 5 }, 0, 0);
}

static void
test_errors (void)
{
  NnLayerSpec bad;
  NnShape in = { 3, 1, 28, 28 };
  NnShape out;
  NnError error;
  NnSpec *spec;
  char text[2048];
  int i;

  check_infer_error ("dense 10", mnist, NN_ERROR_SHAPE, "layer 1 (dense)", "flatten");
  check_infer_error ("flatten; dense 10; conv2d 3 3", mnist, NN_ERROR_SHAPE, "layer 3 (conv2d)",
                     "(10)");
  check_infer_error ("conv2d 8 5; conv2d 8 30", mnist, NN_ERROR_SHAPE, "layer 2 (conv2d)",
                     "(8, 24, 24)");
  check_infer_error ("maxpool 29", mnist, NN_ERROR_SHAPE, "layer 1 (maxpool)", "(1, 28, 28)");
  check_infer_error ("conv2d 4 3 stride=2; conv2d 4 3 stride=2; conv2d 4 3 stride=2; avgpool 3",
                     mnist, NN_ERROR_SHAPE, "layer 4 (avgpool)", "(4, 2, 2)");
  check_infer_error ("flatten; maxpool 2", mnist, NN_ERROR_SHAPE, "layer 2 (maxpool)", "3-D");
  check_infer_error ("softmax", mnist, NN_ERROR_SHAPE, "layer 1 (activation)", "softmax");
  check_infer_error ("conv2d 3 3 softmax", mnist, NN_ERROR_SHAPE, "layer 1 (conv2d)", "softmax");
  check_infer_error ("conv2d 1000000 1 padding=same", (NnInputShape){ 1, 1000, 1000 },
                     NN_ERROR_SHAPE, "layer 1 (conv2d)", "more than");
  check_infer_error ("conv2d 1000000 1024 padding=same", (NnInputShape){ INT32_MAX, 1, 1 },
                     NN_ERROR_SHAPE, "layer 1 (conv2d)", "too many parameters");
  check_infer_error ("dense 1", (NnInputShape){ 0, 28, 28 }, NN_ERROR_INVALID_ARGUMENT,
                     "input shape", NULL);
  check_infer_error ("dense 1", (NnInputShape){ 65536, 65536, 1 }, NN_ERROR_INVALID_ARGUMENT,
                     "input shape", "more than");

  /* Nine layers of 1.05e18 parameters each: the total leaves int64. */
  text[0] = '\0';
  for (i = 0; i < 9; i++)
    strcat (text, "conv2d 1000000 1024 padding=same;");
  check_infer_error (text, (NnInputShape){ 1000000, 1, 1 }, NN_ERROR_SHAPE, "layer 9",
                     "too many parameters");

  /* Layers built by hand, not by the parser, are checked too. */
  memset (&bad, 0, sizeof bad);
  bad.kind = NN_LAYER_CONV2D;
  bad.filters = 4;
  bad.kernel_h = bad.kernel_w = 3;
  nn_error_clear (&error);
  tap_ok (_nn_layer_infer (&bad, in, &out, NULL, &error) == NN_ERROR_SPEC
            && strstr (error.message, "stride") != NULL,
          "a conv with stride 0 is refused: %s", error.message);
  bad.kind = NN_LAYER_DENSE;
  bad.units = -3;
  in = (NnShape){ 1, 10, 1, 1 };
  tap_ok (_nn_layer_infer (&bad, in, &out, NULL, &error) == NN_ERROR_SPEC,
          "a dense with -3 units is refused");
  bad.kind = (NnLayerKind) 99;
  tap_ok (_nn_layer_infer (&bad, in, &out, NULL, &error) == NN_ERROR_SPEC,
          "an unknown layer kind is refused");
  bad.kind = NN_LAYER_DROPOUT;
  bad.rate = 1.0f;
  tap_ok (_nn_layer_infer (&bad, in, &out, NULL, &error) == NN_ERROR_SPEC,
          "a dropout rate of 1 is refused");

  spec = parse ("flatten");
  tap_ok (spec != NULL && nn_spec_infer (spec, mnist, NULL, NULL, NULL) == NN_OK,
          "infer takes NULL infos, total and error");
  nn_spec_free (spec);
  tap_ok (nn_spec_infer (NULL, mnist, NULL, NULL, NULL) == NN_ERROR_SPEC,
          "infer of a NULL spec is an error");
}

static void
test_summary (void)
{
  static const struct
  {
    const char *preset;
    const char *total;
  } expected[] = {
    { "cnn", "Total params: 1,199,882" },
    { "mlp-small", "Total params: 101,770" },
    { "mlp-wide", "Total params: 1,796,010" },
  };
  char text[8192];
  char small[16];
  size_t need, i;
  NnSpec *spec;

  for (i = 0; i < sizeof expected / sizeof expected[0]; i++)
    {
      spec = parse (nn_preset_find (expected[i].preset)->spec);
      need = nn_spec_summary (spec, mnist, text, sizeof text);
      tap_ok (need == strlen (text) && strstr (text, expected[i].total) != NULL,
              "summary of %s says '%s'", expected[i].preset, expected[i].total);
      if (i == 0)
        {
          tap_ok (strstr (text, "conv2d_1 (Conv2D)") != NULL
                    && strstr (text, "(None, 26, 26, 32)") != NULL
                    && strstr (text, "max_pooling2d (MaxPooling2D)") != NULL
                    && strstr (text, "(None, 12, 12, 64)") != NULL
                    && strstr (text, "dropout_1 (Dropout)") != NULL
                    && strstr (text, "(None, 9216)") != NULL
                    && strstr (text, "dense_1 (Dense)") != NULL && strstr (text, "1179776") != NULL,
                  "the cnn summary has Keras' names, shapes (channels last) and counts");
          tap_ok (nn_spec_summary (spec, mnist, small, sizeof small) == need
                    && strlen (small) == sizeof small - 1,
                  "a short buffer is truncated, the length still reported");
          tap_ok (nn_spec_summary (spec, mnist, NULL, 0) == need, "NULL buffer reports the length");
          /* Shown line by line: TAP wants every diagnostic line to start with '#'. */
          for (char *line = strtok (text, "\n"); line != NULL; line = strtok (NULL, "\n"))
            tap_diag ("%s", line);
        }
      nn_spec_free (spec);
    }

  spec = parse ("flatten; average_pooling2d 2");
  nn_spec_summary (spec, mnist, text, sizeof text);
  tap_ok (strstr (text, "layer 2 (avgpool)") != NULL && strstr (text, "shape error") != NULL,
          "the summary of a model that does not fit says why");
  nn_spec_free (spec);

  spec = parse ("conv2d 2 3; avgpool 2; relu; flatten");
  nn_spec_summary (spec, (NnInputShape){ 3, 32, 32 }, text, sizeof text);
  tap_ok (strstr (text, "average_pooling2d (AveragePooling2D)") != NULL
            && strstr (text, "activation (Activation)") != NULL
            && strstr (text, "(None, 15, 15, 2)") != NULL
            && strstr (text, "Total params: 56") != NULL,
          "summary names average_pooling2d and activation layers");
  nn_spec_free (spec);
}

int
main (void)
{
  test_presets ();
  test_cnn_layers ();
  test_windows ();
  test_padding ();
  test_errors ();
  test_summary ();
  return tap_done ();
}
