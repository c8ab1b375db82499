/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-spec.c: libFuzzer target for the model spec parser. Any bytes go in;
 * the parser must refuse them cleanly or give a spec whose shapes, canonical
 * text and summary work, and whose canonical text parses back to itself.
 */

#include "nn-private.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static bool
specs_equal (const NnSpec *a, const NnSpec *b)
{
  int32_t i;
  if (a->count != b->count)
    return false;
  for (i = 0; i < a->count; i++)
    {
      const NnLayerSpec *x = &a->layers[i];
      const NnLayerSpec *y = &b->layers[i];
      if (x->kind != y->kind || x->units != y->units || x->filters != y->filters
          || x->kernel_h != y->kernel_h || x->kernel_w != y->kernel_w
          || x->stride_h != y->stride_h || x->stride_w != y->stride_w
          || x->padding != y->padding || x->rate != y->rate || x->activation != y->activation)
        return false;
    }
  return true;
}

/* An invariant broke: stop so libFuzzer saves the input. */
static void
fail (const char *what, const char *detail)
{
  fprintf (stderr, "fuzz-spec: %s: %s\n", what, detail);
  abort ();
}

static void
check_shapes (const NnSpec *spec, NnInputShape input)
{
  NnLayerInfo *infos = calloc ((size_t) spec->count, sizeof *infos);
  NnError error;
  int64_t total = 0;
  NnStatus status;
  size_t need;
  char *summary;

  if (infos == NULL)
    return;
  nn_error_clear (&error);
  status = nn_spec_infer (spec, input, infos, &total, &error);
  if (status != NN_OK && (error.code != status || error.message[0] == '\0'))
    fail ("infer failed without a message", nn_status_name (status));
  if (status == NN_OK)
    {
      /* Walk the layers again as the model does: shapes agree with the
       * infos, parameters add up, padding stays inside the window. */
      NnShape shape = { 3, input.channels, input.height, input.width };
      int64_t sum = 0;
      int32_t i;

      for (i = 0; i < spec->count; i++)
        {
          const NnLayerSpec *l = &spec->layers[i];
          NnShape next;
          int64_t params = -1;
          int32_t pad_h = -1, pad_w = -1;

          if (_nn_layer_infer (l, shape, &next, &params, NULL) != NN_OK)
            fail ("a layer fails alone after the model inferred", infos[i].name);
          if (next.rank != infos[i].rank || next.c != infos[i].dims[0] || params != infos[i].params
              || params < 0 || next.c < 1 || next.h < 1 || next.w < 1)
            fail ("layer shapes or parameters disagree", infos[i].name);
          _nn_layer_padding (l, shape, next, &pad_h, &pad_w);
          if (pad_h < 0 || pad_w < 0
              || (pad_h > 0 && pad_h >= l->kernel_h) || (pad_w > 0 && pad_w >= l->kernel_w))
            fail ("padding outside the window", infos[i].name);
          sum += params;
          shape = next;
        }
      if (sum != total)
        fail ("the total is not the sum of the layers", "");
    }

  need = nn_spec_summary (spec, input, NULL, 0);
  summary = malloc (need + 1);
  if (summary != NULL)
    {
      if (nn_spec_summary (spec, input, summary, need + 1) != need || strlen (summary) != need)
        fail ("summary length differs between calls", "");
      free (summary);
    }
  free (infos);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *text = malloc (size + 1);
  NnSpec *spec = NULL;
  NnSpec *back = NULL;
  NnError error;
  NnStatus status;
  size_t need;
  char *canonical;

  if (text == NULL)
    return 0;
  memcpy (text, data, size);
  text[size] = '\0';

  nn_error_clear (&error);
  status = nn_spec_parse (text, &spec, &error);
  if (status != NN_OK)
    {
      if (spec != NULL || error.code != status || error.message[0] == '\0')
        fail ("parse failed without a message or left a spec", nn_status_name (status));
      free (text);
      return 0;
    }

  check_shapes (spec, (NnInputShape){ 1, 28, 28 });
  check_shapes (spec, (NnInputShape){ 3, 32, 32 });

  need = nn_spec_format (spec, NULL, 0);
  canonical = malloc (need + 1);
  if (canonical != NULL)
    {
      if (nn_spec_format (spec, canonical, need + 1) != need || strlen (canonical) != need)
        fail ("format length differs between calls", "");
      nn_error_clear (&error);
      if (nn_spec_parse (canonical, &back, &error) != NN_OK)
        fail (canonical, error.message);
      if (!specs_equal (spec, back))
        fail ("canonical text parses to another spec", canonical);
      nn_spec_free (back);
      free (canonical);
    }

  nn_spec_free (spec);
  free (text);
  return 0;
}
