/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-weights.c: libFuzzer target for the weights file reader. Any bytes
 * go in as a whole file; the header check must refuse them with a message
 * or accept a file whose length, spec, input shape and parameter count
 * agree, and then a model built from that spec must load the weights and
 * give them back bit for bit.
 */

#include "nn-model-private.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Models up to this many parameters are built to load the weights into
 * (larger ones only have their header checked: building them is slow, not
 * interesting). */
#define BUILD_MAX_PARAMS 20000

static void
fail (const char *what, const char *detail)
{
  fprintf (stderr, "fuzz-weights: %s: %s\n", what, detail);
  abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  NnWeightsHeader header;
  NnError error;
  NnStatus status;

  nn_error_clear (&error);
  status = _nn_weights_parse_header (data, size, size, "fuzz.tbw", &header, &error);
  if (status != NN_OK)
    {
      if (error.code != status || error.message[0] == '\0' || header.spec_text != NULL)
        fail ("refused without a message or left a spec", nn_status_name (status));
      return 0;
    }
  if (header.body_offset + 4 * (uint64_t) header.count != size)
    fail ("accepted a file whose length is not its header and weights", header.spec_text);

  /* a header read from the first bytes only must agree with the whole */
  NnWeightsHeader part;
  size_t head = (size_t) header.body_offset;
  if (_nn_weights_parse_header (data, head, size, "fuzz.tbw", &part, &error) != NN_OK
      || part.count != header.count || strcmp (part.spec_text, header.spec_text) != 0)
    fail ("the header alone reads otherwise than the whole file", error.message);
  free (part.spec_text);

  if (header.count <= BUILD_MAX_PARAMS && header.input.channels * (int64_t) header.input.height
                                               * header.input.width <= 4096)
    {
      NnSpec *spec = NULL;
      NnModel *model = NULL;
      NnDeviceOptions device = { .kind = NN_DEVICE_CPU, .threads = 1 };
      if (nn_spec_parse (header.spec_text, &spec, &error) != NN_OK)
        fail ("an accepted spec does not parse", error.message);
      status = nn_model_new (spec, header.input, 1, &device, 1, &model, &error);
      if (status == NN_OK)
        {
          if (nn_model_param_count (model) != header.count)
            fail ("the model's parameters are not the file's", header.spec_text);
          if (_nn_model_load_memory (model, data, size, "fuzz.tbw", &error) != NN_OK)
            fail ("an accepted file does not load into its own model", error.message);
          float *back = malloc (sizeof (float) * (size_t) (header.count > 0 ? header.count : 1));
          if (back != NULL && nn_model_get_weights (model, back, header.count, &error) == NN_OK
              && header.count > 0
              && memcmp (back, data + header.body_offset, 4 * (size_t) header.count) != 0)
            fail ("the weights do not come back bit for bit", header.spec_text);
          free (back);
          nn_model_free (model);
        }
      else if (status != NN_ERROR_NO_MEMORY && status != NN_ERROR_SHAPE)
        fail ("a model for an accepted file does not build", error.message);
      nn_spec_free (spec);
    }
  free (header.spec_text);
  return 0;
}
