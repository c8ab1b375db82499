/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-npz.c: libFuzzer target for the Keras .npz reader (zip directory,
 * ZIP64, stored and deflated members, .npy headers). Any bytes go in; the
 * reader must refuse them with a message naming the file, or give two
 * consistent splits, and never crash or leak. The peek (headers and labels
 * only) must do the same, and agree with the reader on what it accepts.
 */

#include "nn-dataset-private.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* An invariant broke: stop so libFuzzer saves the input. */
static void
fail (const char *what, const char *detail)
{
  fprintf (stderr, "fuzz-npz: %s: %s\n", what, detail);
  abort ();
}

static void
touch_split (const NnSplit *s)
{
  size_t bytes;
  volatile uint8_t sum = 0;

  if (s->count <= 0 || s->height <= 0 || s->width <= 0 || s->channels != 1
      || s->images == NULL || s->labels == NULL)
    fail ("a good read gave an empty or odd split", "");
  /* ASan catches arrays shorter than their shape */
  bytes = (size_t) s->count * (size_t) s->height * (size_t) s->width;
  for (size_t i = 0; i < bytes; i += 4096)
    sum ^= s->images[i];
  sum ^= s->images[bytes - 1];
  sum ^= s->labels[s->count - 1];
  (void) sum;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  NnDataset ds;
  NnDatasetInfo info;
  NnError error;
  NnStatus status, peeked;

  memset (&info, 0, sizeof info);
  nn_error_clear (&error);
  peeked = _nn_npz_peek_memory (data, size, "fuzz.npz", &info, &error);
  if (peeked != NN_OK && strncmp (error.message, "fuzz.npz", 8) != 0)
    fail ("the peek's message does not name the file", error.message);
  if (peeked != NN_OK && peeked != NN_ERROR_FORMAT && peeked != NN_ERROR_NO_MEMORY)
    fail ("unexpected status of the peek", nn_status_name (peeked));

  memset (&ds, 0, sizeof ds);
  nn_error_clear (&error);
  status = _nn_npz_parse_memory (data, size, "fuzz.npz", &ds, &error);
  if (status != NN_OK)
    {
      if (ds.train.images != NULL || ds.train.labels != NULL || ds.test.images != NULL
          || ds.test.labels != NULL)
        fail ("a failed read left data behind", error.message);
      if (strncmp (error.message, "fuzz.npz", 8) != 0)
        fail ("the message does not name the file", error.message);
      if (status != NN_ERROR_FORMAT && status != NN_ERROR_NO_MEMORY)
        fail ("unexpected status", nn_status_name (status));
      return 0;
    }
  touch_split (&ds.train);
  touch_split (&ds.test);
  if (ds.train.height != ds.test.height || ds.train.width != ds.test.width)
    fail ("train and test shapes differ", "");
  if (_nn_dataset_count_classes (&ds) < 2)
    fail ("fewer than 2 classes", "");
  /* what the reader accepts, the peek accepts and describes alike (it
   * reads less, so it may accept more) */
  if (peeked != NN_OK)
    fail ("the peek refused what the reader accepts", "");
  if (info.train_count != ds.train.count || info.test_count != ds.test.count
      || info.height != ds.train.height || info.width != ds.train.width || info.channels != 1
      || info.classes != _nn_dataset_count_classes (&ds) || info.labels_used < 1)
    fail ("the peek and the reader disagree", "");
  _nn_split_clear (&ds.train);
  _nn_split_clear (&ds.test);
  return 0;
}
