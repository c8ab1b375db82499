/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-idx.c: libFuzzer target for the IDX reader (raw and gzip). Any bytes
 * go in, read both as an image file and as a label file; the reader must
 * refuse them with a message naming the file, or return exactly the array
 * its header describes, and never crash or leak.
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
  fprintf (stderr, "fuzz-idx: %s: %s\n", what, detail);
  abort ();
}

static void
check (const uint8_t *data, size_t size, NnIdxKind kind)
{
  NnIdxArray a;
  NnError error;
  NnStatus status;

  nn_error_clear (&error);
  memset (&a, 0x5a, sizeof a);
  status = _nn_idx_parse_memory (data, size, "fuzz.idx", kind, &a, &error);
  if (status != NN_OK)
    {
      if (a.data != NULL || a.count != 0)
        fail ("a failed read left data behind", error.message);
      if (strncmp (error.message, "fuzz.idx", 8) != 0)
        fail ("the message does not name the file", error.message);
      if (status != NN_ERROR_FORMAT && status != NN_ERROR_NO_MEMORY)
        fail ("unexpected status", nn_status_name (status));
      return;
    }
  if (a.data == NULL || a.count <= 0 || a.height <= 0 || a.width <= 0)
    fail ("a good read gave an empty array", "");
  if (kind == NN_IDX_LABELS && (a.height != 1 || a.width != 1))
    fail ("labels with a shape", "");
  {
    /* touch the whole array: ASan catches a buffer shorter than the header says */
    size_t bytes = (size_t) a.count * (size_t) a.height * (size_t) a.width;
    volatile uint8_t sum = 0;
    for (size_t i = 0; i < bytes; i += 4096)
      sum ^= a.data[i];
    sum ^= a.data[bytes - 1];
    (void) sum;
    /* a raw file holds exactly header + data */
    if (size < 2 || data[0] != 0x1f || data[1] != 0x8b)
      if (size != bytes + (kind == NN_IDX_IMAGES ? 16 : 8))
        fail ("a raw file's size does not match its header", "");
  }
  free (a.data);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  check (data, size, NN_IDX_IMAGES);
  check (data, size, NN_IDX_LABELS);
  return 0;
}
