/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-idx.c: IDX reading, raw and gzipped: good files, and every kind of bad
 * header or size giving a clear error that names the file and the problem.
 * The files are made here, with zlib for the .gz ones.
 */

#include "test-util.h"
#include "nn-dataset-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

/* An IDX file in memory: magic, big-endian dims, then `data_size` bytes. */
static uint8_t *
make_idx (uint32_t magic, int ndims, const uint32_t *dims, const uint8_t *data, size_t data_size,
          size_t *size)
{
  size_t header = 4 + 4 * (size_t) ndims;
  uint8_t *out = malloc (header + data_size + 1);
  uint32_t words[4];

  words[0] = magic;
  for (int i = 0; i < ndims; i++)
    words[1 + i] = dims[i];
  for (int i = 0; i <= ndims; i++)
    {
      out[4 * i + 0] = (uint8_t) (words[i] >> 24);
      out[4 * i + 1] = (uint8_t) (words[i] >> 16);
      out[4 * i + 2] = (uint8_t) (words[i] >> 8);
      out[4 * i + 3] = (uint8_t) words[i];
    }
  if (data_size > 0)
    memcpy (out + header, data, data_size);
  *size = header + data_size;
  return out;
}

static bool
write_gz (const char *path, const void *data, size_t size)
{
  gzFile f = gzopen (path, "wb9");
  bool ok;
  if (f == NULL)
    return false;
  ok = size == 0 || gzwrite (f, data, (unsigned) size) == (int) size;
  return gzclose (f) == Z_OK && ok;
}

/* Pixels and labels of `count` 4x3 images with known values. */
static void
fill (uint8_t *pixels, uint8_t *labels, int count)
{
  for (int i = 0; i < count * 12; i++)
    pixels[i] = (uint8_t) (i * 7 + 3);
  for (int i = 0; i < count; i++)
    labels[i] = (uint8_t) ((i * 3) % 10);
}

/* Write an images file and a labels file for `count` samples. */
static void
write_pair (const char *images, const char *labels, int count, bool gz_images, bool gz_labels)
{
  uint8_t pixels[12 * 16], lab[16];
  uint32_t idims[3] = { (uint32_t) count, 4, 3 };
  uint32_t ldims[1] = { (uint32_t) count };
  size_t isize, lsize;
  uint8_t *ifile, *lfile;

  fill (pixels, lab, count);
  ifile = make_idx (0x00000803, 3, idims, pixels, (size_t) count * 12, &isize);
  lfile = make_idx (0x00000801, 1, ldims, lab, (size_t) count, &lsize);
  if (gz_images)
    write_gz (images, ifile, isize);
  else
    test_write_file (images, ifile, isize);
  if (gz_labels)
    write_gz (labels, lfile, lsize);
  else
    test_write_file (labels, lfile, lsize);
  free (ifile);
  free (lfile);
}

static bool
split_matches (const NnSplit *s, int count)
{
  uint8_t pixels[12 * 16], lab[16];
  fill (pixels, lab, count);
  return s->count == count && s->height == 4 && s->width == 3 && s->channels == 1
         && s->images != NULL && s->labels != NULL
         && memcmp (s->images, pixels, (size_t) count * 12) == 0
         && memcmp (s->labels, lab, (size_t) count) == 0;
}

/* Check a failed load: the status, an empty split, and a message naming the
 * file and containing `words`. */
static void
check_error (NnStatus status, NnStatus want, const NnSplit *s, const NnError *e,
             const char *file, const char *words, const char *what)
{
  bool named = strstr (e->message, file) != NULL;
  bool said = strstr (e->message, words) != NULL;
  if (!tap_ok (status == want && s->images == NULL && s->labels == NULL && s->count == 0
                 && named && said,
               "%s: %s", what, nn_status_name (status)))
    tap_diag ("message: %s (wanted '%s' and the file name)", e->message, words);
  else
    tap_diag ("%s", e->message);
}

/* Load a one-file images set against good labels and check the error. */
static void
bad_images (const char *name, const void *data, size_t size, bool gz, NnStatus want,
            const char *words)
{
  const char *path = test_path (name);
  const char *labels = test_path ("good-labels");
  NnSplit s;
  NnError e;
  NnStatus status;

  write_pair (test_path ("unused-images"), labels, 5, false, false);
  if (gz)
    write_gz (path, data, size);
  else
    test_write_file (path, data, size);
  nn_error_clear (&e);
  memset (&s, 0x55, sizeof s);
  status = nn_dataset_load_idx_pair (path, labels, &s, &e);
  check_error (status, want, &s, &e, path, words, name);
  if (status == NN_OK)
    _nn_split_clear (&s);
}

int
main (void)
{
  NnSplit s;
  NnError e;
  NnStatus status;
  uint8_t pixels[12 * 16], lab[16];
  size_t size;
  uint8_t *file;

  fill (pixels, lab, 16);

  /* ---- good files: raw, gzipped, mixed */
  write_pair (test_path ("a-images"), test_path ("a-labels"), 5, false, false);
  status = nn_dataset_load_idx_pair (test_path ("a-images"), test_path ("a-labels"), &s, &e);
  tap_ok (status == NN_OK && split_matches (&s, 5), "raw IDX pair loads with its values");
  _nn_split_clear (&s);

  write_pair (test_path ("b-images.gz"), test_path ("b-labels.gz"), 7, true, true);
  status = nn_dataset_load_idx_pair (test_path ("b-images.gz"), test_path ("b-labels.gz"), &s, &e);
  tap_ok (status == NN_OK && split_matches (&s, 7), "gzipped IDX pair loads with its values");
  _nn_split_clear (&s);

  write_pair (test_path ("c-images"), test_path ("c-labels.gz"), 1, false, true);
  status = nn_dataset_load_idx_pair (test_path ("c-images"), test_path ("c-labels.gz"), &s, &e);
  tap_ok (status == NN_OK && split_matches (&s, 1), "raw images with gzipped labels load");
  _nn_split_clear (&s);

  /* gzip content under a name without .gz still works: detected by magic */
  write_pair (test_path ("d-images"), test_path ("d-labels"), 3, true, false);
  status = nn_dataset_load_idx_pair (test_path ("d-images"), test_path ("d-labels"), &s, &e);
  tap_ok (status == NN_OK && split_matches (&s, 3), "gzip is recognised by content, not name");
  _nn_split_clear (&s);

  /* two gzip members one after the other are one stream (as gzip(1) says) */
  {
    uint32_t dims[3] = { 4, 4, 3 };
    uint8_t *whole = make_idx (0x00000803, 3, dims, pixels, 48, &size);
    char *part1, *part2, *joined;
    size_t n1, n2;
    write_gz (test_path ("p1.gz"), whole, 20);
    write_gz (test_path ("p2.gz"), whole + 20, size - 20);
    part1 = test_read_file (test_path ("p1.gz"), &n1);
    part2 = test_read_file (test_path ("p2.gz"), &n2);
    joined = malloc (n1 + n2);
    memcpy (joined, part1, n1);
    memcpy (joined + n1, part2, n2);
    write_pair (test_path ("unused"), test_path ("m-labels"), 4, false, false);
    test_write_file (test_path ("m-images.gz"), joined, n1 + n2);
    status = nn_dataset_load_idx_pair (test_path ("m-images.gz"), test_path ("m-labels"), &s, &e);
    tap_ok (status == NN_OK && split_matches (&s, 4), "a multi-member gzip file loads");
    _nn_split_clear (&s);
    free (whole);
    free (part1);
    free (part2);
    free (joined);
  }

  /* the from-memory parser the fuzzer uses agrees */
  {
    uint32_t dims[3] = { 2, 4, 3 };
    NnIdxArray a;
    file = make_idx (0x00000803, 3, dims, pixels, 24, &size);
    status = _nn_idx_parse_memory (file, size, "mem", NN_IDX_IMAGES, &a, &e);
    tap_ok (status == NN_OK && a.count == 2 && a.height == 4 && a.width == 3
              && memcmp (a.data, pixels, 24) == 0,
            "the from-memory parser reads the same file");
    free (a.data);
    free (file);
  }

  /* ---- truncated */
  {
    uint32_t dims[3] = { 5, 4, 3 };
    file = make_idx (0x00000803, 3, dims, pixels, 40, &size);
    bad_images ("trunc-images", file, size, false, NN_ERROR_FORMAT,
                "truncated: header says 5 images of 4x3 (60 bytes) but the file holds 40 bytes");
    bad_images ("trunc-images.gz", file, size, true, NN_ERROR_FORMAT,
                "truncated: header says 5 images of 4x3 (60 bytes) but the file holds 40 bytes");
    free (file);
  }
  {
    /* The MNIST case: the header promises 60000 images, the file holds a few. */
    uint32_t dims[3] = { 60000, 28, 28 };
    file = make_idx (0x00000803, 3, dims, pixels, 100, &size);
    bad_images ("train-images-idx3-ubyte.gz", file, size, true, NN_ERROR_FORMAT,
                "header says 60000 images of 28x28 (47040000 bytes) but the file holds 100");
    bad_images ("train-images-idx3-ubyte", file, size, false, NN_ERROR_FORMAT,
                "header says 60000 images of 28x28 (47040000 bytes) but the file holds 100");
    free (file);
  }
  {
    /* A gzip file cut in the middle of its compressed stream. */
    uint32_t dims[3] = { 16, 4, 3 };
    char *gz;
    size_t gz_size;
    file = make_idx (0x00000803, 3, dims, pixels, 16 * 12, &size);
    write_gz (test_path ("full.gz"), file, size);
    gz = test_read_file (test_path ("full.gz"), &gz_size);
    test_write_file (test_path ("cut.gz"), gz, gz_size - 12);
    write_pair (test_path ("unused"), test_path ("l16"), 16, false, false);
    status = nn_dataset_load_idx_pair (test_path ("cut.gz"), test_path ("l16"), &s, &e);
    check_error (status, NN_ERROR_FORMAT, &s, &e, test_path ("cut.gz"), "truncated",
                 "a gzip stream cut short");

    /* and one whose compressed bytes are damaged: zlib's CRC or data check fails */
    gz[gz_size - 9] ^= 0x5a;
    test_write_file (test_path ("damaged.gz"), gz, gz_size);
    status = nn_dataset_load_idx_pair (test_path ("damaged.gz"), test_path ("l16"), &s, &e);
    check_error (status, NN_ERROR_FORMAT, &s, &e, test_path ("damaged.gz"), "corrupt gzip data",
                 "damaged gzip data");
    free (gz);
    free (file);
  }
  bad_images ("empty", "", 0, false, NN_ERROR_FORMAT, "truncated");
  bad_images ("empty.gz", "", 0, true, NN_ERROR_FORMAT, "truncated");
  {
    uint32_t dims[3] = { 5, 4, 3 };
    file = make_idx (0x00000803, 3, dims, NULL, 0, &size);
    bad_images ("short-header", file, 10, false, NN_ERROR_FORMAT, "ends inside its 16-byte header");
    free (file);
  }

  /* ---- wrong magic */
  {
    uint32_t dims[3] = { 5, 4, 3 };
    file = make_idx (0x00000802, 3, dims, pixels, 60, &size);
    bad_images ("magic-802", file, size, false, NN_ERROR_FORMAT, "wrong magic 0x00000802");
    free (file);
    file = make_idx (0x00000D03, 3, dims, pixels, 60, &size);
    bad_images ("float-images", file, size, false, NN_ERROR_FORMAT, "(float) are not supported");
    free (file);
    file = make_idx (0x12345678, 3, dims, pixels, 60, &size);
    bad_images ("magic-junk", file, size, false, NN_ERROR_FORMAT, "wrong magic 0x12345678");
    free (file);
    bad_images ("page.gz", "<!DOCTYPE html><html>", 21, true, NN_ERROR_FORMAT, "web page");
  }
  {
    /* a label file given as the images */
    uint32_t dims[1] = { 5 };
    file = make_idx (0x00000801, 1, dims, lab, 5, &size);
    bad_images ("labels-as-images", file, size, false, NN_ERROR_FORMAT, "this is a label file");
    free (file);
  }

  /* ---- dims: zero, and products that overflow or pass the limit */
  {
    uint32_t zero[3] = { 5, 0, 3 };
    uint32_t huge[3] = { 0x7fffffff, 0x7fffffff, 0x7fffffff };
    uint32_t neg[3] = { 0xffffffff, 28, 28 };
    uint32_t big[3] = { 3000000, 28, 28 }; /* 2.35 GB: over the 2 GiB limit */
    file = make_idx (0x00000803, 3, zero, pixels, 0, &size);
    bad_images ("zero-height", file, size, false, NN_ERROR_FORMAT, "height is 0");
    free (file);
    file = make_idx (0x00000803, 3, huge, pixels, 60, &size);
    bad_images ("overflow", file, size, false, NN_ERROR_FORMAT, "more than the 2147483648-byte limit");
    bad_images ("overflow.gz", file, size, true, NN_ERROR_FORMAT, "more than the 2147483648-byte limit");
    free (file);
    file = make_idx (0x00000803, 3, neg, pixels, 60, &size);
    bad_images ("count-4294967295", file, size, false, NN_ERROR_FORMAT, "image count is 4294967295");
    free (file);
    file = make_idx (0x00000803, 3, big, pixels, 60, &size);
    bad_images ("over-limit", file, size, false, NN_ERROR_FORMAT, "limit");
    free (file);
  }

  /* ---- trailing data */
  {
    uint32_t dims[3] = { 5, 4, 3 };
    file = make_idx (0x00000803, 3, dims, pixels, 61, &size);
    bad_images ("trailing", file, size, false, NN_ERROR_FORMAT,
                "1 byte of trailing data after the 5 images of 4x3");
    bad_images ("trailing.gz", file, size, true, NN_ERROR_FORMAT,
                "trailing data after the 5 images of 4x3");
    free (file);

    /* junk after the end of the gzip stream itself */
    {
      char *gz, *longer;
      size_t gz_size;
      file = make_idx (0x00000803, 3, dims, pixels, 60, &size);
      write_gz (test_path ("ok.gz"), file, size);
      gz = test_read_file (test_path ("ok.gz"), &gz_size);
      longer = malloc (gz_size + 8);
      memcpy (longer, gz, gz_size);
      memcpy (longer + gz_size, "garbage!", 8);
      test_write_file (test_path ("junk-after.gz"), longer, gz_size + 8);
      status = nn_dataset_load_idx_pair (test_path ("junk-after.gz"), test_path ("good-labels"),
                                         &s, &e);
      check_error (status, NN_ERROR_FORMAT, &s, &e, test_path ("junk-after.gz"), "trailing data",
                   "bytes after the gzip stream");
      free (gz);
      free (longer);
      free (file);
    }
  }

  /* ---- images and labels disagree */
  {
    uint32_t ldims[1] = { 4 };
    write_pair (test_path ("n-images"), test_path ("unused-labels"), 5, false, false);
    file = make_idx (0x00000801, 1, ldims, lab, 4, &size);
    test_write_file (test_path ("n-labels"), file, size);
    status = nn_dataset_load_idx_pair (test_path ("n-images"), test_path ("n-labels"), &s, &e);
    check_error (status, NN_ERROR_FORMAT, &s, &e, test_path ("n-images"),
                 "has 5 images but", "count mismatch between images and labels");
    tap_ok (strstr (e.message, test_path ("n-labels")) != NULL
              && strstr (e.message, "has 4 labels") != NULL,
            "the mismatch names the label file and its count");
    free (file);

    /* a label file with an image magic */
    status = nn_dataset_load_idx_pair (test_path ("n-images"), test_path ("n-images"), &s, &e);
    check_error (status, NN_ERROR_FORMAT, &s, &e, test_path ("n-images"),
                 "this is an image file, not a label file", "images given as labels");
  }

  /* ---- missing file */
  status = nn_dataset_load_idx_pair (test_path ("nope"), test_path ("good-labels"), &s, &e);
  check_error (status, NN_ERROR_IO, &s, &e, test_path ("nope"), "cannot open", "a missing file");
  status = nn_dataset_load_idx_pair (test_path ("a-images"), test_path ("nope2"), &s, &e);
  check_error (status, NN_ERROR_IO, &s, &e, test_path ("nope2"), "cannot open",
               "a missing label file after good images");

  return tap_done ();
}
