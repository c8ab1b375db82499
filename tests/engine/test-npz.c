/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-npz.c: Keras-style .npz reading. The zips are built here (stored and
 * deflated members, with and without ZIP64 extras) and then broken on purpose:
 * a directory that lies, a bad CRC, a pickled array, a missing member, wrong
 * shapes; each must give a clear error.
 */

#include "test-util.h"
#include "nn-dataset-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

/* ---------------------------------------------------------------- .npy and zip builders */

typedef struct
{
  uint8_t *data;
  size_t size;
  size_t cap;
} Buf;

static void
put (Buf *b, const void *data, size_t n)
{
  if (b->size + n > b->cap)
    {
      b->cap = (b->size + n) * 2 + 64;
      b->data = realloc (b->data, b->cap);
    }
  memcpy (b->data + b->size, data, n);
  b->size += n;
}

static void
put16 (Buf *b, uint32_t v)
{
  uint8_t p[2] = { (uint8_t) v, (uint8_t) (v >> 8) };
  put (b, p, 2);
}

static void
put32 (Buf *b, uint32_t v)
{
  uint8_t p[4] = { (uint8_t) v, (uint8_t) (v >> 8), (uint8_t) (v >> 16), (uint8_t) (v >> 24) };
  put (b, p, 4);
}

static void
put64 (Buf *b, uint64_t v)
{
  put32 (b, (uint32_t) v);
  put32 (b, (uint32_t) (v >> 32));
}

/* A .npy file: `dict` is the header text, padded here like numpy does. */
static Buf
make_npy (int version, const char *dict, const void *data, size_t size)
{
  Buf b = { 0 };
  size_t prefix = version == 1 ? 10 : 12;
  size_t len = strlen (dict);
  size_t total = (prefix + len + 1 + 63) / 64 * 64;
  size_t header_len = total - prefix;
  uint8_t magic[8] = { 0x93, 'N', 'U', 'M', 'P', 'Y', (uint8_t) version, 0 };

  put (&b, magic, 8);
  if (version == 1)
    put16 (&b, (uint32_t) header_len);
  else
    put32 (&b, (uint32_t) header_len);
  put (&b, dict, len);
  for (size_t i = len; i + 1 < header_len; i++)
    put (&b, " ", 1);
  put (&b, "\n", 1);
  put (&b, data, size);
  return b;
}

typedef struct
{
  const char *name;
  Buf npy;
  int method;   /* 0 stored, 8 deflate */
} Member;

typedef struct
{
  bool zip64_extra;   /* sizes and offsets in ZIP64 extra fields (numpy does this) */
  bool zip64_end;     /* ZIP64 end record + locator */
} ZipOptions;

static Buf
deflate_raw (const Buf *in)
{
  Buf out = { 0 };
  z_stream z;
  memset (&z, 0, sizeof z);
  deflateInit2 (&z, 9, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  out.cap = deflateBound (&z, (uLong) in->size) + 16;
  out.data = malloc (out.cap);
  z.next_in = in->data;
  z.avail_in = (uInt) in->size;
  z.next_out = out.data;
  z.avail_out = (uInt) out.cap;
  deflate (&z, Z_FINISH);
  out.size = z.total_out;
  deflateEnd (&z);
  return out;
}

/* A zip of the members, like Python's zipfile writes one. */
static Buf
make_zip (Member *m, int n, ZipOptions opt)
{
  Buf zip = { 0 }, cd = { 0 };
  uint64_t cd_offset, z64_offset;

  for (int i = 0; i < n; i++)
    {
      Buf packed = m[i].method == 8 ? deflate_raw (&m[i].npy) : m[i].npy;
      uint32_t crc = (uint32_t) crc32 (0, m[i].npy.data, (uInt) m[i].npy.size);
      uint64_t offset = zip.size;
      uint16_t name_len = (uint16_t) strlen (m[i].name);

      /* local header */
      put32 (&zip, 0x04034b50);
      put16 (&zip, opt.zip64_extra ? 45 : 20);
      put16 (&zip, 0);
      put16 (&zip, (uint32_t) m[i].method);
      put16 (&zip, 0);
      put16 (&zip, 0x21);
      put32 (&zip, crc);
      put32 (&zip, opt.zip64_extra ? 0xFFFFFFFFu : (uint32_t) packed.size);
      put32 (&zip, opt.zip64_extra ? 0xFFFFFFFFu : (uint32_t) m[i].npy.size);
      put16 (&zip, name_len);
      put16 (&zip, opt.zip64_extra ? 20 : 0);
      put (&zip, m[i].name, name_len);
      if (opt.zip64_extra)
        {
          put16 (&zip, 1);
          put16 (&zip, 16);
          put64 (&zip, m[i].npy.size);
          put64 (&zip, packed.size);
        }
      put (&zip, packed.data, packed.size);

      /* central directory entry */
      put32 (&cd, 0x02014b50);
      put16 (&cd, 45);
      put16 (&cd, opt.zip64_extra ? 45 : 20);
      put16 (&cd, 0);
      put16 (&cd, (uint32_t) m[i].method);
      put16 (&cd, 0);
      put16 (&cd, 0x21);
      put32 (&cd, crc);
      put32 (&cd, opt.zip64_extra ? 0xFFFFFFFFu : (uint32_t) packed.size);
      put32 (&cd, opt.zip64_extra ? 0xFFFFFFFFu : (uint32_t) m[i].npy.size);
      put16 (&cd, name_len);
      put16 (&cd, opt.zip64_extra ? 28 : 0);
      put16 (&cd, 0);
      put16 (&cd, 0);
      put16 (&cd, 0);
      put32 (&cd, 0);
      put32 (&cd, opt.zip64_extra ? 0xFFFFFFFFu : (uint32_t) offset);
      put (&cd, m[i].name, name_len);
      if (opt.zip64_extra)
        {
          put16 (&cd, 1);
          put16 (&cd, 24);
          put64 (&cd, m[i].npy.size);
          put64 (&cd, packed.size);
          put64 (&cd, offset);
        }
      if (m[i].method == 8)
        free (packed.data);
    }

  cd_offset = zip.size;
  put (&zip, cd.data, cd.size);
  z64_offset = zip.size;
  if (opt.zip64_end)
    {
      put32 (&zip, 0x06064b50);
      put64 (&zip, 44);
      put16 (&zip, 45);
      put16 (&zip, 45);
      put32 (&zip, 0);
      put32 (&zip, 0);
      put64 (&zip, (uint64_t) n);
      put64 (&zip, (uint64_t) n);
      put64 (&zip, cd.size);
      put64 (&zip, cd_offset);
      put32 (&zip, 0x07064b50);
      put32 (&zip, 0);
      put64 (&zip, z64_offset);
      put32 (&zip, 1);
    }
  put32 (&zip, 0x06054b50);
  put16 (&zip, 0);
  put16 (&zip, 0);
  put16 (&zip, opt.zip64_end ? 0xFFFF : (uint32_t) n);
  put16 (&zip, opt.zip64_end ? 0xFFFF : (uint32_t) n);
  put32 (&zip, opt.zip64_end ? 0xFFFFFFFFu : (uint32_t) cd.size);
  put32 (&zip, opt.zip64_end ? 0xFFFFFFFFu : (uint32_t) cd_offset);
  put16 (&zip, 0);
  free (cd.data);
  return zip;
}

/* ---------------------------------------------------------------- the data set */

static uint8_t train_px[3 * 4 * 5], test_px[2 * 4 * 5];
static uint8_t train_lab[3] = { 1, 0, 6 };
static int64_t test_lab[2] = { 2, 3 }; /* saved as '<i8' like Keras' older files */

typedef struct
{
  const char *x_train_dict;
  const char *y_train_dict;
  const void *y_train_data;
  size_t y_train_size;
  const char *x_test_dict;
  int method;
  int npy_version;
  const char *skip;       /* member left out */
} Recipe;

static Recipe
good_recipe (int method)
{
  Recipe r = {
    "{'descr': '|u1', 'fortran_order': False, 'shape': (3, 4, 5), }",
    "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }",
    train_lab, sizeof train_lab,
    "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 4, 5), }",
    method, 1, NULL,
  };
  return r;
}

static Buf
build (Recipe r, ZipOptions opt)
{
  Member m[4];
  int n = 0;
  Buf zip;
  const char *names[4] = { "x_train.npy", "y_train.npy", "x_test.npy", "y_test.npy" };
  Buf npys[4];

  npys[0] = make_npy (r.npy_version, r.x_train_dict, train_px, sizeof train_px);
  npys[1] = make_npy (r.npy_version, r.y_train_dict, r.y_train_data, r.y_train_size);
  npys[2] = make_npy (r.npy_version, r.x_test_dict, test_px, sizeof test_px);
  npys[3] = make_npy (r.npy_version, "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }",
                      test_lab, sizeof test_lab);
  for (int i = 0; i < 4; i++)
    {
      if (r.skip != NULL && strcmp (r.skip, names[i]) == 0)
        continue;
      m[n].name = names[i];
      m[n].npy = npys[i];
      m[n].method = r.method;
      n++;
    }
  zip = make_zip (m, n, opt);
  for (int i = 0; i < 4; i++)
    free (npys[i].data);
  return zip;
}

static bool
dataset_matches (const NnDataset *ds)
{
  return ds->train.count == 3 && ds->train.height == 4 && ds->train.width == 5
         && ds->train.channels == 1 && ds->test.count == 2 && ds->test.height == 4
         && memcmp (ds->train.images, train_px, sizeof train_px) == 0
         && memcmp (ds->test.images, test_px, sizeof test_px) == 0
         && memcmp (ds->train.labels, train_lab, 3) == 0 && ds->test.labels[0] == 2
         && ds->test.labels[1] == 3 && ds->classes == 7;
}

/* Write `zip` to a file, load it and check for success. */
static void
check_good (const char *name, Buf zip, const char *what)
{
  const char *path = test_path (name);
  NnDataset *ds = NULL;
  NnError e;
  NnStatus status;

  test_write_file (path, zip.data, zip.size);
  nn_error_clear (&e);
  status = nn_dataset_load_npz (path, &ds, &e);
  if (!tap_ok (status == NN_OK && ds != NULL && dataset_matches (ds)
                 && strcmp (ds->name, name) == 0 && strcmp (ds->path, path) == 0,
               "%s loads with its values", what))
    tap_diag ("%s", e.message);
  nn_dataset_free (ds);
  free (zip.data);
}

/* Load `zip` and check for a format error containing `words` and the file's name. */
static void
check_bad (const char *name, const uint8_t *data, size_t size, const char *words, const char *what)
{
  const char *path = test_path (name);
  NnDataset *ds = (NnDataset *) &ds;
  NnError e;
  NnStatus status;

  test_write_file (path, data, size);
  nn_error_clear (&e);
  status = nn_dataset_load_npz (path, &ds, &e);
  if (tap_ok (status == NN_ERROR_FORMAT && ds == NULL && strstr (e.message, path) != NULL
                && strstr (e.message, words) != NULL,
              "%s: %s", what, nn_status_name (status)))
    tap_diag ("%s", e.message);
  else
    tap_diag ("message: %s (wanted '%s')", e.message, words);
  if (status == NN_OK)
    nn_dataset_free (ds);
}

static void
check_bad_recipe (const char *name, Recipe r, ZipOptions opt, const char *words, const char *what)
{
  Buf zip = build (r, opt);
  check_bad (name, zip.data, zip.size, words, what);
  free (zip.data);
}

/* Offsets inside a zip built with make_zip and no ZIP64 end record. */
static size_t
eocd_of (const Buf *zip)
{
  return zip->size - 22;
}

static uint32_t
get32 (const uint8_t *p)
{
  return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

static void
set32 (uint8_t *p, uint32_t v)
{
  p[0] = (uint8_t) v;
  p[1] = (uint8_t) (v >> 8);
  p[2] = (uint8_t) (v >> 16);
  p[3] = (uint8_t) (v >> 24);
}

int
main (void)
{
  ZipOptions plain = { false, false };
  ZipOptions zip64 = { true, true };
  ZipOptions extras_only = { true, false };
  Recipe r;
  Buf zip;

  for (size_t i = 0; i < sizeof train_px; i++)
    train_px[i] = (uint8_t) (i * 13 + 1);
  for (size_t i = 0; i < sizeof test_px; i++)
    test_px[i] = (uint8_t) (255 - i);

  /* ---- good files */
  check_good ("stored.npz", build (good_recipe (0), plain), "stored members");
  check_good ("deflated.npz", build (good_recipe (8), plain), "deflated members");
  check_good ("zip64.npz", build (good_recipe (8), zip64), "deflated, ZIP64 extras and end record");
  check_good ("zip64-stored.npz", build (good_recipe (0), extras_only),
              "stored, ZIP64 extras (as numpy writes)");
  r = good_recipe (8);
  r.npy_version = 2;
  check_good ("npy-v2.npz", build (r, plain), ".npy version 2.0 headers");
  r = good_recipe (0);
  r.npy_version = 3;
  r.y_train_dict = "{\"descr\": \"<u1\", \"fortran_order\": True, \"shape\": (3L,)}";
  check_good ("npy-v3.npz", build (r, plain),
              ".npy 3.0, double quotes, a 1-D Fortran array, Python 2 longs");

  /* int labels of every width are turned into bytes */
  {
    int32_t i4[3] = { 1, 0, 6 };
    uint16_t u2be[3] = { 0x0100, 0x0000, 0x0600 }; /* 1, 0, 6 big-endian */
    r = good_recipe (8);
    r.y_train_dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }";
    r.y_train_data = i4;
    r.y_train_size = sizeof i4;
    check_good ("i4.npz", build (r, plain), "'<i4' labels");
    r.y_train_dict = "{'descr': '>u2', 'fortran_order': False, 'shape': (3,), }";
    r.y_train_data = u2be;
    r.y_train_size = sizeof u2be;
    check_good ("u2be.npz", build (r, plain), "'>u2' labels");
  }

  /* a file written by numpy itself (np.savez_compressed; ZIP64 extras in the
   * local headers), committed because this test cannot run numpy */
  {
    NnDataset *ds = NULL;
    NnError e;
    bool values = true;
    if (nn_dataset_load_npz (FIXTURES_DIR "/numpy-savez-compressed.npz", &ds, &e) == NN_OK)
      {
        for (int i = 0; i < 24; i++)
          values = values && ds->train.images[i] == (uint8_t) (i * 11 % 256);
        for (int i = 0; i < 12; i++)
          values = values && ds->test.images[i] == (uint8_t) (255 - i);
        tap_ok (values && ds->train.count == 2 && ds->train.height == 3 && ds->train.width == 4
                  && ds->test.count == 1 && ds->train.labels[0] == 7 && ds->train.labels[1] == 2
                  && ds->test.labels[0] == 4 && ds->classes == 8,
                "numpy's own np.savez_compressed output loads with its values");
      }
    else
      tap_ok (false, "numpy's own np.savez_compressed output loads: %s", e.message);
    nn_dataset_free (ds);
  }

  /* the public loader finds the .npz by its extension and names it */
  {
    NnDataset *ds = NULL;
    NnError e;
    zip = build (good_recipe (8), plain);
    test_write_file (test_path ("by-path.npz"), zip.data, zip.size);
    free (zip.data);
    tap_ok (nn_dataset_load (test_path ("by-path.npz"), &ds, &e) == NN_OK
              && dataset_matches (ds) && strcmp (ds->name, "by-path.npz") == 0,
            "nn_dataset_load takes an .npz path");
    nn_dataset_free (ds);
  }

  /* ---- the directory lies */
  zip = build (good_recipe (0), plain);
  {
    Buf bad = { malloc (zip.size), zip.size, zip.size };
    size_t eocd = eocd_of (&zip);
    uint32_t cd_offset = get32 (zip.data + eocd + 16);

    memcpy (bad.data, zip.data, zip.size);
    set32 (bad.data + eocd + 16, (uint32_t) zip.size + 100);
    check_bad ("cd-past-eof.npz", bad.data, bad.size, "the zip directory lies",
               "central directory offset past the end");

    memcpy (bad.data, zip.data, zip.size);
    set32 (bad.data + eocd + 12, 0x7fffffff);
    check_bad ("cd-size-huge.npz", bad.data, bad.size, "the zip directory lies",
               "central directory size past the end");

    /* first entry (x_train) local offset past EOF */
    memcpy (bad.data, zip.data, zip.size);
    set32 (bad.data + cd_offset + 42, (uint32_t) zip.size + 5);
    check_bad ("member-offset.npz", bad.data, bad.size, "past the end of the",
               "member offset past the end");

    /* first entry's compressed size past EOF (local header agrees by data descriptor flag) */
    memcpy (bad.data, zip.data, zip.size);
    set32 (bad.data + cd_offset + 20, 0x00ffffff);
    set32 (bad.data + cd_offset + 24, 0x00ffffff);
    bad.data[6] |= 0x08;
    check_bad ("member-size.npz", bad.data, bad.size, "runs past the end",
               "member size past the end");

    /* central and local sizes disagree */
    memcpy (bad.data, zip.data, zip.size);
    set32 (bad.data + cd_offset + 20, get32 (zip.data + cd_offset + 20) - 1);
    set32 (bad.data + cd_offset + 24, get32 (zip.data + cd_offset + 24) - 1);
    check_bad ("size-mismatch.npz", bad.data, bad.size, "local header does not match",
               "local header sizes differ from the directory");

    /* local header names another member */
    memcpy (bad.data, zip.data, zip.size);
    bad.data[30] = 'X';
    check_bad ("name-mismatch.npz", bad.data, bad.size, "local header does not match",
               "local header name differs from the directory");

    /* a stored member whose data was damaged: the CRC catches it */
    memcpy (bad.data, zip.data, zip.size);
    bad.data[30 + 11 + 128 + 7] ^= 0x40;
    check_bad ("bad-crc.npz", bad.data, bad.size, "bad CRC-32", "damaged stored data");

    /* truncated file: no end record */
    check_bad ("cut.npz", zip.data, zip.size / 2, "not a zip file", "a zip cut in half");

    /* ZIP64 markers without the ZIP64 records */
    memcpy (bad.data, zip.data, zip.size);
    set32 (bad.data + eocd + 16, 0xFFFFFFFFu);
    check_bad ("no-locator.npz", bad.data, bad.size, "no ZIP64 locator",
               "ZIP64 marker without a locator");
    free (bad.data);
  }
  free (zip.data);

  zip = build (good_recipe (8), plain);
  {
    /* a deflated member claiming far more than deflate can produce */
    Buf bad = { malloc (zip.size), zip.size, zip.size };
    uint32_t cd_offset = get32 (zip.data + eocd_of (&zip) + 16);
    memcpy (bad.data, zip.data, zip.size);
    set32 (bad.data + cd_offset + 24, 0x7ffffff0);
    bad.data[6] |= 0x08;
    check_bad ("bomb.npz", bad.data, bad.size, "more than deflate can produce",
               "a deflated size beyond deflate's ratio");

    /* a deflated member that inflates to more than it says */
    memcpy (bad.data, zip.data, zip.size);
    set32 (bad.data + cd_offset + 24, get32 (zip.data + cd_offset + 24) - 3);
    bad.data[6] |= 0x08;
    check_bad ("longer.npz", bad.data, bad.size, "inflates to more than",
               "deflated data longer than the directory says");

    /* damaged deflate stream */
    memcpy (bad.data, zip.data, zip.size);
    for (int i = 0; i < 12; i++)
      bad.data[30 + 11 + 2 + i] ^= 0xA5;
    check_bad ("damaged-deflate.npz", bad.data, bad.size, "x_train.npy",
               "damaged deflate data");
    free (bad.data);
  }
  free (zip.data);

  {
    /* ZIP64 extra field missing where the entry needs it */
    Buf bad;
    zip = build (good_recipe (0), zip64);
    bad.data = malloc (zip.size);
    bad.size = zip.size;
    memcpy (bad.data, zip.data, zip.size);
    {
      /* find x_train's central entry: its extra id 0x0001 -> 0x9999 */
      uint32_t cd_offset = 0;
      for (size_t i = 0; i + 4 <= bad.size; i++)
        if (get32 (bad.data + i) == 0x02014b50)
          {
            cd_offset = (uint32_t) i;
            break;
          }
      bad.data[cd_offset + 46 + 11] = 0x99;
    }
    check_bad ("no-zip64-extra.npz", bad.data, bad.size, "needs a ZIP64 extra field",
               "a 0xFFFFFFFF size without its ZIP64 extra");

    /* ZIP64 end record offset that lies */
    memcpy (bad.data, zip.data, zip.size);
    set32 (bad.data + zip.size - 22 - 20 + 8, 0x7fffffff);
    check_bad ("z64-lies.npz", bad.data, bad.size, "ZIP64 end record",
               "a ZIP64 locator pointing past the file");
    free (bad.data);
    free (zip.data);
  }

  /* ---- the arrays inside */
  r = good_recipe (8);
  r.y_train_dict = "{'descr': '|O', 'fortran_order': False, 'shape': (3,), }";
  check_bad_recipe ("pickled.npz", r, plain, "refusing a pickled object array", "a pickled '|O' array");

  r = good_recipe (0);
  r.skip = "y_test.npy";
  check_bad_recipe ("missing.npz", r, plain, "no member y_test.npy", "a missing member");

  r = good_recipe (8);
  r.x_train_dict = "{'descr': '|u1', 'fortran_order': False, 'shape': (3, 20), }";
  check_bad_recipe ("rank.npz", r, plain, "shape (3, 20), expected (count, height, width)",
                    "2-D images");

  r = good_recipe (8);
  r.x_train_dict = "{'descr': '|u1', 'fortran_order': False, 'shape': (3, 4, 4), }";
  check_bad_recipe ("bytes.npz", r, plain, "needs 48 bytes of data but the member holds 60",
                    "a shape that does not match the data");

  r = good_recipe (8);
  r.x_train_dict = "{'descr': '|u1', 'fortran_order': False, 'shape': (3, 4, 5, 2), }";
  check_bad_recipe ("rank4.npz", r, plain, "expected (count, height, width)",
                    "4-D images with 2 channels");

  r = good_recipe (8);
  r.x_train_dict =
    "{'descr': '|u1', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }";
  check_bad_recipe ("overflow.npz", r, plain, "must be 1 to", "a shape whose product overflows");
  r.x_train_dict =
    "{'descr': '|u1', 'fortran_order': False, 'shape': (2000000, 40000, 40000), }";
  check_bad_recipe ("overlimit.npz", r, plain, "larger than the", "a shape over the size limit");
  r.x_train_dict =
    "{'descr': '|u1', 'fortran_order': False, 'shape': (99999999999999999999999, 4, 5), }";
  check_bad_recipe ("bignum.npz", r, plain, "cannot read the .npy header", "a number too long");

  r = good_recipe (8);
  r.x_train_dict = "{'descr': '|u1', 'fortran_order': True, 'shape': (3, 4, 5), }";
  check_bad_recipe ("fortran.npz", r, plain, "Fortran-order", "Fortran-order images");

  r = good_recipe (8);
  r.x_train_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4, 5), }";
  check_bad_recipe ("float.npz", r, plain, "'<f4' is not supported", "float images");

  r = good_recipe (8);
  r.x_train_dict = "{'descr': [('a', '<u1')], 'fortran_order': False, 'shape': (3, 4, 5), }";
  check_bad_recipe ("structured.npz", r, plain, "structured arrays", "a structured dtype");

  r = good_recipe (8);
  r.x_train_dict = "{'descr': '|u1', 'shape': (3, 4, 5), }";
  check_bad_recipe ("no-fortran.npz", r, plain, "lacks 'fortran_order'", "a header without a key");

  r = good_recipe (8);
  r.x_train_dict = "{'descr': '|u1', 'fortran_order': False, 'shape': (3, 4, 5), 'x': 1}";
  check_bad_recipe ("extra-key.npz", r, plain, "unexpected key 'x'", "a header with an extra key");

  r = good_recipe (8);
  r.x_train_dict = "{'descr': '|u1', 'fortran_order': False, 'shape': (3, 4, 5)";
  check_bad_recipe ("open-dict.npz", r, plain, "cannot read the .npy header", "an unclosed dict");

  r = good_recipe (8);
  r.y_train_dict = "{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }";
  r.y_train_size = 2;
  check_bad_recipe ("counts.npz", r, plain, "x_train.npy has 3 images but y_train.npy has 2 labels",
                    "images and labels disagree in count");

  r = good_recipe (8);
  r.x_test_dict = "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 5, 4), }";
  check_bad_recipe ("hw.npz", r, plain, "training images are 4x5 but test images 5x4",
                    "train and test image sizes differ");

  {
    int64_t big[3] = { 1, 300, 2 };
    r = good_recipe (8);
    r.y_train_dict = "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }";
    r.y_train_data = big;
    r.y_train_size = sizeof big;
    check_bad_recipe ("label300.npz", r, plain, "label 300 at index 1 is outside 0..255",
                      "a label over 255");
    big[1] = -1;
    check_bad_recipe ("label-1.npz", r, plain, "label -1 at index 1", "a negative label");
  }

  /* ---- not a zip at all */
  check_bad ("text.npz", (const uint8_t *) "hello, world, this is not a zip file", 36,
             "not a zip file", "a text file");
  check_bad ("page.npz", (const uint8_t *) "<!DOCTYPE html><html><body>Not found</body></html>",
             50, "web page", "an HTML page");
  {
    Buf npy = make_npy (1, "{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }", "ab", 2);
    check_bad ("single.npz", npy.data, npy.size, "single .npy array", "a lone .npy file");
    free (npy.data);
  }
  check_bad ("empty.npz", (const uint8_t *) "", 0, "not a zip file", "an empty file");

  {
    NnDataset *ds = NULL;
    NnError e;
    tap_ok (nn_dataset_load_npz (test_path ("absent.npz"), &ds, &e) == NN_ERROR_IO
              && strstr (e.message, "absent.npz") != NULL && ds == NULL,
            "a missing .npz is an I/O error naming it");
  }

  return tap_done ();
}
