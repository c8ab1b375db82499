/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-npz.c: reading Keras' mnist.npz: a zip (stored or deflated members,
 * ZIP64 aware) of four .npy arrays x_train, y_train, x_test, y_test.
 * Every offset and size from the zip directory and the .npy headers is
 * checked against what the file really holds before anything is allocated.
 */

#define _POSIX_C_SOURCE 200809L

#include "nn-dataset-private.h"
#include "nn-os.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_EOCD 0x06054b50u
#define SIG_ZIP64_EOCD 0x06064b50u
#define SIG_ZIP64_LOCATOR 0x07064b50u

/* deflate cannot expand data by more than about 1032:1 */
#define DEFLATE_MAX_RATIO 1032u
/* room for a .npy header on top of the array itself */
#define NPY_HEADER_MAX (1u << 20)
#define NPY_MAX_DIMS 8
/* the largest file we read whole into memory */
#define NPZ_MAX_FILE ((uint64_t) 4 << 30)

enum { X_TRAIN, Y_TRAIN, X_TEST, Y_TEST, N_MEMBERS };

static const char *const member_names[N_MEMBERS] = {
  "x_train.npy", "y_train.npy", "x_test.npy", "y_test.npy",
};

/* One member as the central directory describes it. */
typedef struct
{
  bool found;
  uint16_t flags;
  uint16_t method;
  uint32_t crc;
  uint64_t csize;
  uint64_t usize;
  uint64_t offset;     /* of the local header */
} ZipEntry;

typedef struct
{
  const uint8_t *data; /* borrowed */
  size_t size;
  const char *name;    /* borrowed, for messages */
} Zip;

static uint16_t
le16 (const uint8_t *p)
{
  return (uint16_t) (p[0] | p[1] << 8);
}

static uint32_t
le32 (const uint8_t *p)
{
  return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

static uint64_t
le64 (const uint8_t *p)
{
  return (uint64_t) le32 (p) | (uint64_t) le32 (p + 4) << 32;
}

/* ---------------------------------------------------------------- zip directory */

/* Find the end-of-central-directory record and, through ZIP64 records where
 * present, the central directory's place, size and entry count. */
static NnStatus
zip_find_directory (const Zip *zip,
                    uint64_t *cd_offset,
                    uint64_t *cd_size,
                    uint64_t *entries,
                    NnError *error)
{
  const uint8_t *d = zip->data;
  size_t size = zip->size;
  size_t eocd = SIZE_MAX;
  size_t lowest;
  uint64_t cd_limit;

  if (size >= 6 && memcmp (d, "\x93NUMPY", 6) == 0)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: this is a single .npy array, not an .npz archive", zip->name);
  if (size < 22)
    return _nn_error_set (error, NN_ERROR_FORMAT, "%s: not a zip file (only %llu bytes)",
                          zip->name, (unsigned long long) size);

  /* The record is 22 bytes plus a comment of at most 65535 bytes at the very end. */
  lowest = size - 22 > 65535 ? size - 22 - 65535 : 0;
  for (size_t i = size - 22 + 1; i-- > lowest;)
    {
      if (le32 (d + i) == SIG_EOCD && i + 22 + le16 (d + i + 20) == size)
        {
          eocd = i;
          break;
        }
    }
  if (eocd == SIZE_MAX)
    {
      if (d[0] == '<')
        return _nn_error_set (error, NN_ERROR_FORMAT,
                              "%s: not a zip file: it looks like a web page (a failed download?)",
                              zip->name);
      return _nn_error_set (error, NN_ERROR_FORMAT,
                            "%s: not a zip file, or a truncated one (no end of central directory)",
                            zip->name);
    }

  {
    uint16_t disk = le16 (d + eocd + 4);
    uint16_t cd_disk = le16 (d + eocd + 6);
    uint16_t disk_entries = le16 (d + eocd + 8);
    *entries = le16 (d + eocd + 10);
    *cd_size = le32 (d + eocd + 12);
    *cd_offset = le32 (d + eocd + 16);
    cd_limit = eocd;
    if ((disk != 0 && disk != 0xFFFF) || (cd_disk != 0 && cd_disk != 0xFFFF)
        || (disk_entries != *entries))
      return _nn_error_set (error, NN_ERROR_FORMAT,
                            "%s: split (multi-part) zip archives are not supported", zip->name);
  }

  /* ZIP64: a locator right before the record points at the 64-bit record. */
  if (eocd >= 20 && le32 (d + eocd - 20) == SIG_ZIP64_LOCATOR)
    {
      size_t loc = eocd - 20;
      uint64_t rec = le64 (d + loc + 8);
      if (le32 (d + loc + 4) != 0 || le32 (d + loc + 16) > 1)
        return _nn_error_set (error, NN_ERROR_FORMAT,
                              "%s: split (multi-part) zip archives are not supported", zip->name);
      if (rec > loc || loc - rec < 56)
        return _nn_error_set (error, NN_ERROR_FORMAT,
                              "%s: the zip directory lies: the ZIP64 end record is said to be at "
                              "offset %llu, outside the %llu-byte file",
                              zip->name, (unsigned long long) rec, (unsigned long long) size);
      if (le32 (d + rec) != SIG_ZIP64_EOCD)
        return _nn_error_set (error, NN_ERROR_FORMAT,
                              "%s: the zip directory lies: no ZIP64 end record at offset %llu",
                              zip->name, (unsigned long long) rec);
      if (le32 (d + rec + 16) != 0 || le32 (d + rec + 20) != 0
          || le64 (d + rec + 24) != le64 (d + rec + 32))
        return _nn_error_set (error, NN_ERROR_FORMAT,
                              "%s: split (multi-part) zip archives are not supported", zip->name);
      *entries = le64 (d + rec + 32);
      *cd_size = le64 (d + rec + 40);
      *cd_offset = le64 (d + rec + 48);
      cd_limit = rec;
    }
  else if (*entries == 0xFFFF || *cd_size == 0xFFFFFFFF || *cd_offset == 0xFFFFFFFF)
    {
      return _nn_error_set (error, NN_ERROR_FORMAT,
                            "%s: the zip end record asks for ZIP64 but there is no ZIP64 locator",
                            zip->name);
    }

  if (*cd_offset > cd_limit || *cd_size > cd_limit - *cd_offset)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: the zip directory lies: it says the central directory is %llu "
                          "bytes at offset %llu, but the file has only %llu bytes before its end "
                          "record",
                          zip->name, (unsigned long long) *cd_size,
                          (unsigned long long) *cd_offset, (unsigned long long) cd_limit);
  return NN_OK;
}

/* Fill usize, csize and offset from a ZIP64 extra field where the 32-bit
 * fields say 0xFFFFFFFF. */
static NnStatus
zip_read_zip64_extra (const Zip *zip,
                      const uint8_t *extra,
                      size_t extra_len,
                      ZipEntry *e,
                      const char *member,
                      NnError *error)
{
  bool need_u = e->usize == 0xFFFFFFFFu;
  bool need_c = e->csize == 0xFFFFFFFFu;
  bool need_o = e->offset == 0xFFFFFFFFu;
  size_t pos = 0;

  while (pos + 4 <= extra_len)
    {
      uint16_t id = le16 (extra + pos);
      uint16_t len = le16 (extra + pos + 2);
      const uint8_t *body = extra + pos + 4;
      size_t at = 0;

      if (len > extra_len - pos - 4)
        return _nn_error_set (error, NN_ERROR_FORMAT,
                              "%s: %s: an extra field runs past its directory entry", zip->name,
                              member);
      if (id == 0x0001)
        {
          if (need_u)
            {
              if (at + 8 > len)
                goto short_field;
              e->usize = le64 (body + at);
              at += 8;
              need_u = false;
            }
          if (need_c)
            {
              if (at + 8 > len)
                goto short_field;
              e->csize = le64 (body + at);
              at += 8;
              need_c = false;
            }
          if (need_o)
            {
              if (at + 8 > len)
                goto short_field;
              e->offset = le64 (body + at);
              need_o = false;
            }
        }
      pos += 4 + (size_t) len;
    }
  if (need_u || need_c || need_o)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: %s: the directory entry needs a ZIP64 extra field but has none",
                          zip->name, member);
  return NN_OK;

short_field:
  return _nn_error_set (error, NN_ERROR_FORMAT,
                        "%s: %s: the ZIP64 extra field is too short", zip->name, member);
}

/* Walk the central directory and pick out the four members. */
static NnStatus
zip_read_directory (const Zip *zip, ZipEntry entries[N_MEMBERS], NnError *error)
{
  uint64_t cd_offset = 0, cd_size = 0, count = 0;
  const uint8_t *d = zip->data;
  size_t pos, end;
  NnStatus status;

  status = zip_find_directory (zip, &cd_offset, &cd_size, &count, error);
  if (status != NN_OK)
    return status;

  pos = (size_t) cd_offset;
  end = (size_t) (cd_offset + cd_size);
  for (uint64_t n = 0; n < count; n++)
    {
      size_t name_len, extra_len, comment_len;
      const uint8_t *name;
      int which = -1;

      if (end - pos < 46 || le32 (d + pos) != SIG_CENTRAL)
        return _nn_error_set (error, NN_ERROR_FORMAT,
                              "%s: the zip directory lies: entry %llu of %llu is not where the "
                              "central directory says (offset %llu)",
                              zip->name, (unsigned long long) n + 1, (unsigned long long) count,
                              (unsigned long long) pos);
      name_len = le16 (d + pos + 28);
      extra_len = le16 (d + pos + 30);
      comment_len = le16 (d + pos + 32);
      if (46 + name_len + extra_len + comment_len > end - pos)
        return _nn_error_set (error, NN_ERROR_FORMAT,
                              "%s: the zip directory lies: entry %llu runs past the central "
                              "directory",
                              zip->name, (unsigned long long) n + 1);
      name = d + pos + 46;
      for (int i = 0; i < N_MEMBERS; i++)
        if (strlen (member_names[i]) == name_len
            && memcmp (name, member_names[i], name_len) == 0)
          which = i;

      if (which >= 0 && !entries[which].found)
        {
          ZipEntry *e = &entries[which];
          uint16_t disk = le16 (d + pos + 34);

          e->found = true;
          e->flags = le16 (d + pos + 8);
          e->method = le16 (d + pos + 10);
          e->crc = le32 (d + pos + 16);
          e->csize = le32 (d + pos + 20);
          e->usize = le32 (d + pos + 24);
          e->offset = le32 (d + pos + 42);
          if (disk != 0 && disk != 0xFFFF)
            return _nn_error_set (error, NN_ERROR_FORMAT,
                                  "%s: split (multi-part) zip archives are not supported",
                                  zip->name);
          if (e->usize == 0xFFFFFFFFu || e->csize == 0xFFFFFFFFu || e->offset == 0xFFFFFFFFu)
            {
              status = zip_read_zip64_extra (zip, name + name_len, extra_len, e,
                                             member_names[which], error);
              if (status != NN_OK)
                return status;
            }
        }
      pos += 46 + name_len + extra_len + comment_len;
    }

  for (int i = 0; i < N_MEMBERS; i++)
    if (!entries[i].found)
      return _nn_error_set (error, NN_ERROR_FORMAT,
                            "%s: no member %s (a Keras data set .npz holds x_train, y_train, "
                            "x_test and y_test)",
                            zip->name, member_names[i]);
  return NN_OK;
}

/* Check a member's local header and that its bytes lie inside the file;
 * *data_start is where they begin. */
static NnStatus
zip_member_data (const Zip *zip, const ZipEntry *e, const char *member, uint64_t *data_start_out,
                 NnError *error)
{
  const uint8_t *d = zip->data;
  const uint8_t *local;
  uint64_t data_start;

  if (e->flags & 0x0001)
    return _nn_error_set (error, NN_ERROR_FORMAT, "%s: %s is encrypted", zip->name, member);
  if (e->method != 0 && e->method != 8)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: %s uses compression method %u; only stored (0) and deflate (8) "
                          "are supported",
                          zip->name, member, e->method);
  if (e->offset > zip->size || zip->size - e->offset < 30)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: the zip directory lies: %s's local header is said to be at offset "
                          "%llu, past the end of the %llu-byte file",
                          zip->name, member, (unsigned long long) e->offset,
                          (unsigned long long) zip->size);
  local = d + e->offset;
  if (le32 (local) != SIG_LOCAL)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: the zip directory lies: no local header for %s at offset %llu",
                          zip->name, member, (unsigned long long) e->offset);
  {
    size_t name_len = le16 (local + 26);
    size_t extra_len = le16 (local + 28);
    uint16_t flags = le16 (local + 6);
    uint32_t l_crc = le32 (local + 14);
    uint32_t l_csize = le32 (local + 18);
    uint32_t l_usize = le32 (local + 22);

    if (zip->size - e->offset - 30 < name_len + extra_len)
      return _nn_error_set (error, NN_ERROR_FORMAT,
                            "%s: %s's local header runs past the end of the file", zip->name,
                            member);
    if (name_len != strlen (member) || memcmp (local + 30, member, name_len) != 0
        || le16 (local + 8) != e->method)
      return _nn_error_set (error, NN_ERROR_FORMAT,
                            "%s: %s's local header does not match the zip directory (name or "
                            "compression method)",
                            zip->name, member);
    /* Without a data descriptor, the local sizes and CRC must agree too
     * (0xFFFFFFFF means they are in a ZIP64 extra field). */
    if (!(flags & 0x0008)
        && (l_crc != e->crc
            || (l_csize != 0xFFFFFFFFu && l_csize != e->csize)
            || (l_usize != 0xFFFFFFFFu && l_usize != e->usize)))
      return _nn_error_set (error, NN_ERROR_FORMAT,
                            "%s: %s's local header does not match the zip directory (sizes or "
                            "CRC)",
                            zip->name, member);
    data_start = e->offset + 30 + name_len + extra_len;
  }

  if (e->csize > zip->size - data_start)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: the zip directory lies: %s's data (%llu bytes at offset %llu) runs "
                          "past the end of the %llu-byte file",
                          zip->name, member, (unsigned long long) e->csize,
                          (unsigned long long) data_start, (unsigned long long) zip->size);
  if (e->usize > NN_DATA_MAX_BYTES + NPY_HEADER_MAX)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: %s is %llu bytes, more than the %llu-byte limit", zip->name, member,
                          (unsigned long long) e->usize,
                          (unsigned long long) (NN_DATA_MAX_BYTES + NPY_HEADER_MAX));
  if (e->method == 0 && e->csize != e->usize)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: the zip directory lies: stored member %s has %llu bytes stored "
                          "but %llu uncompressed",
                          zip->name, member, (unsigned long long) e->csize,
                          (unsigned long long) e->usize);
  if (e->method == 8 && e->usize / DEFLATE_MAX_RATIO > e->csize + 1)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: the zip directory lies: %s claims %llu bytes from %llu compressed, "
                          "more than deflate can produce",
                          zip->name, member, (unsigned long long) e->usize,
                          (unsigned long long) e->csize);
  *data_start_out = data_start;
  return NN_OK;
}

/* Why zlib stopped short of a member's end, in words. */
static const char *
inflate_why (int rc, const z_stream *z)
{
  return rc == Z_DATA_ERROR && z->msg != NULL ? z->msg
         : rc == Z_MEM_ERROR                  ? "out of memory"
                                              : "the data ends early";
}

/* The error of a member whose deflate data ended (rc Z_STREAM_END) at
 * another size than the directory's, or did not end well. */
static NnStatus
inflate_failed (const Zip *zip, const ZipEntry *e, const char *member, int rc, uint64_t total_out,
                const char *why, NnError *error)
{
  if (rc == Z_STREAM_END)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: the zip directory lies: %s inflates to %llu bytes, not the "
                          "%llu it says",
                          zip->name, member, (unsigned long long) total_out,
                          (unsigned long long) e->usize);
  return _nn_error_set (error, NN_ERROR_FORMAT, "%s: %s: corrupt deflate data (%s)", zip->name,
                        member, why);
}

/* Check a member's local header and bytes, inflate it if needed and check its
 * CRC. *out (usize bytes, owned) holds the member's contents. */
static NnStatus
zip_extract (const Zip *zip, const ZipEntry *e, const char *member, uint8_t **out, NnError *error)
{
  const uint8_t *d = zip->data;
  uint64_t data_start;
  uint8_t *buf;
  uint32_t crc;
  NnStatus status;

  *out = NULL;
  status = zip_member_data (zip, e, member, &data_start, error);
  if (status != NN_OK)
    return status;

  /* One spare byte tells "longer than the directory says" from "exact". */
  buf = malloc ((size_t) e->usize + 1);
  if (buf == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "%s: out of memory for %s (%llu bytes)",
                          zip->name, member, (unsigned long long) e->usize);

  if (e->method == 0)
    {
      memcpy (buf, d + data_start, (size_t) e->usize);
    }
  else
    {
      z_stream z;
      const uint8_t *in = d + data_start;
      uint64_t in_left = e->csize;
      int rc = Z_OK;
      bool too_long;
      const char *why;

      memset (&z, 0, sizeof z);
      if (inflateInit2 (&z, -MAX_WBITS) != Z_OK)
        {
          free (buf);
          return _nn_error_set (error, NN_ERROR_NO_MEMORY, "%s: cannot start zlib", zip->name);
        }
      /* usize + 1 <= 2 GiB + 1 MiB + 1 fits zlib's 32-bit counter */
      z.next_out = buf;
      z.avail_out = (uInt) e->usize + 1;
      while (rc == Z_OK)
        {
          if (z.avail_in == 0 && in_left > 0)
            {
              uInt n = in_left > (1u << 30) ? (1u << 30) : (uInt) in_left;
              z.next_in = (Bytef *) in;
              z.avail_in = n;
              in += n;
              in_left -= n;
            }
          rc = inflate (&z, Z_NO_FLUSH);
          if (rc == Z_BUF_ERROR && z.avail_out > 0 && z.avail_in == 0 && in_left > 0)
            rc = Z_OK; /* just needs the next input chunk */
        }
      why = inflate_why (rc, &z);
      inflateEnd (&z);
      too_long = z.total_out > e->usize || (rc != Z_STREAM_END && z.avail_out == 0);
      if (rc != Z_STREAM_END || z.total_out != e->usize)
        {
          free (buf);
          if (too_long)
            return _nn_error_set (error, NN_ERROR_FORMAT,
                                  "%s: the zip directory lies: %s inflates to more than the %llu "
                                  "bytes it says",
                                  zip->name, member, (unsigned long long) e->usize);
          return inflate_failed (zip, e, member, rc, z.total_out, why, error);
        }
    }

  crc = (uint32_t) crc32 (0L, Z_NULL, 0);
  crc = (uint32_t) crc32 (crc, buf, (uInt) e->usize);
  if (crc != e->crc)
    {
      free (buf);
      return _nn_error_set (error, NN_ERROR_FORMAT,
                            "%s: %s: bad CRC-32 0x%08x (the zip directory says 0x%08x): the file "
                            "is damaged",
                            zip->name, member, crc, e->crc);
    }
  *out = buf;
  return NN_OK;
}

/* The first `want` bytes of a member (at most its size), inflated no
 * further: for the .npy header of an array that is not loaded. *out
 * (*got bytes, owned). No CRC check: that needs the whole member. */
static NnStatus
zip_extract_head (const Zip *zip, const ZipEntry *e, const char *member, size_t want,
                  uint8_t **out, size_t *got, NnError *error)
{
  uint64_t data_start;
  uint8_t *buf;
  NnStatus status;

  *out = NULL;
  *got = 0;
  status = zip_member_data (zip, e, member, &data_start, error);
  if (status != NN_OK)
    return status;
  if (want > e->usize)
    want = (size_t) e->usize;
  buf = malloc (want + 1);
  if (buf == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "%s: out of memory for %s", zip->name,
                          member);
  if (e->method == 0)
    memcpy (buf, zip->data + data_start, want);
  else
    {
      z_stream z;
      int rc = Z_OK;
      uint64_t csize = e->csize;

      memset (&z, 0, sizeof z);
      if (inflateInit2 (&z, -MAX_WBITS) != Z_OK)
        {
          free (buf);
          return _nn_error_set (error, NN_ERROR_NO_MEMORY, "%s: cannot start zlib", zip->name);
        }
      z.next_in = (Bytef *) (zip->data + data_start);
      z.avail_in = csize > (1u << 30) ? (1u << 30) : (uInt) csize;
      z.next_out = buf;
      z.avail_out = (uInt) want;
      while (rc == Z_OK && z.avail_out > 0)
        rc = inflate (&z, Z_NO_FLUSH);
      bool short_data = z.avail_out > 0;
      const char *why = inflate_why (rc, &z);
      inflateEnd (&z);
      if (short_data)
        {
          free (buf);
          return inflate_failed (zip, e, member, rc, z.total_out, why, error);
        }
    }
  *out = buf;
  *got = want;
  return NN_OK;
}

/* ---------------------------------------------------------------- .npy */

typedef struct
{
  char descr[32];
  bool fortran;
  int ndim;
  uint64_t shape[NPY_MAX_DIMS];
  int seen;             /* bit 0 descr, 1 fortran_order, 2 shape */
  size_t data_offset;   /* where the array starts in the member */
} NpyHeader;

typedef struct
{
  const char *p;
  const char *end;
} Cursor;

static void
skip_space (Cursor *c)
{
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
    c->p++;
}

static bool
take (Cursor *c, char ch)
{
  skip_space (c);
  if (c->p < c->end && *c->p == ch)
    {
      c->p++;
      return true;
    }
  return false;
}

/* A Python string literal without escapes, into out (truncated to size). */
static bool
parse_string (Cursor *c, char *out, size_t size)
{
  char quote;
  size_t n = 0;

  skip_space (c);
  if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
    return false;
  quote = *c->p++;
  while (c->p < c->end && *c->p != quote)
    {
      if (*c->p == '\\')
        return false;
      if (n + 1 < size)
        out[n++] = *c->p;
      c->p++;
    }
  if (c->p >= c->end)
    return false;
  c->p++;
  out[n] = '\0';
  return true;
}

static bool
parse_word (Cursor *c, const char *word)
{
  size_t n = strlen (word);
  skip_space (c);
  if ((size_t) (c->end - c->p) >= n && memcmp (c->p, word, n) == 0)
    {
      c->p += n;
      return true;
    }
  return false;
}

/* "(60000, 28, 28)", "(60000,)", "()"; Python 2 files may write "60000L". */
static bool
parse_shape (Cursor *c, NpyHeader *h)
{
  h->ndim = 0;
  if (!take (c, '('))
    return false;
  for (;;)
    {
      uint64_t v = 0;
      bool digits = false;

      skip_space (c);
      if (c->p < c->end && *c->p == ')')
        {
          c->p++;
          return true;
        }
      while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
        {
          if (v > (UINT64_MAX - 9) / 10)
            return false;
          v = v * 10 + (uint64_t) (*c->p - '0');
          c->p++;
          digits = true;
        }
      if (!digits || h->ndim >= NPY_MAX_DIMS)
        return false;
      if (c->p < c->end && *c->p == 'L')
        c->p++;
      h->shape[h->ndim++] = v;
      if (take (c, ','))
        continue;
      if (take (c, ')'))
        return true;
      return false;
    }
}

static NnStatus
npy_parse_header (const uint8_t *data,
                  size_t size,
                  const char *where,
                  NpyHeader *h,
                  NnError *error)
{
  size_t header_len, start;
  Cursor c;

  memset (h, 0, sizeof *h);
  if (size < 10 || memcmp (data, "\x93NUMPY", 6) != 0)
    return _nn_error_set (error, NN_ERROR_FORMAT, "%s: not a .npy array (bad magic)", where);
  if (data[6] == 1 && data[7] == 0)
    {
      header_len = le16 (data + 8);
      start = 10;
    }
  else if ((data[6] == 2 || data[6] == 3) && data[7] == 0)
    {
      if (size < 12)
        return _nn_error_set (error, NN_ERROR_FORMAT, "%s: truncated .npy header", where);
      header_len = le32 (data + 8);
      start = 12;
    }
  else
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: .npy format version %u.%u is not supported (1.0 to 3.0 are)", where,
                          data[6], data[7]);
  if (header_len > size - start || header_len > NPY_HEADER_MAX)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: the .npy header (%llu bytes) runs past the end of the array", where,
                          (unsigned long long) header_len);

  c.p = (const char *) data + start;
  c.end = c.p + header_len;
  if (!take (&c, '{'))
    goto bad;
  while (!take (&c, '}'))
    {
      char key[32];
      if (!parse_string (&c, key, sizeof key) || !take (&c, ':'))
        goto bad;
      if (strcmp (key, "descr") == 0)
        {
          skip_space (&c);
          if (c.p < c.end && *c.p == '[')
            return _nn_error_set (error, NN_ERROR_FORMAT,
                                  "%s: structured arrays are not supported; expected bytes or "
                                  "integers",
                                  where);
          if (!parse_string (&c, h->descr, sizeof h->descr))
            goto bad;
          h->seen |= 1;
        }
      else if (strcmp (key, "fortran_order") == 0)
        {
          if (parse_word (&c, "True"))
            h->fortran = true;
          else if (parse_word (&c, "False"))
            h->fortran = false;
          else
            goto bad;
          h->seen |= 2;
        }
      else if (strcmp (key, "shape") == 0)
        {
          if (!parse_shape (&c, h))
            goto bad;
          h->seen |= 4;
        }
      else
        return _nn_error_set (error, NN_ERROR_FORMAT, "%s: unexpected key '%s' in the .npy header",
                              where, key);
      if (!take (&c, ','))
        {
          if (take (&c, '}'))
            break;
          goto bad;
        }
    }
  skip_space (&c);
  if (c.p != c.end)
    goto bad;
  if (h->seen != 7)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: the .npy header lacks %s", where,
                          !(h->seen & 1) ? "'descr'" : !(h->seen & 2) ? "'fortran_order'"
                                                                       : "'shape'");
  h->data_offset = start + header_len;
  return NN_OK;

bad:
  return _nn_error_set (error, NN_ERROR_FORMAT,
                        "%s: cannot read the .npy header (expected a dict with 'descr', "
                        "'fortran_order' and 'shape')",
                        where);
}

/* The element type: only bytes or integers. */
static NnStatus
npy_parse_descr (const char *descr,
                 const char *where,
                 bool *is_signed,
                 bool *big_endian,
                 int *item,
                 NnError *error)
{
  const char *p = descr;

  if (strchr (descr, 'O') != NULL)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: refusing a pickled object array (descr '%s'): it could run code",
                          where, descr);
  *big_endian = false;
  if (*p == '<' || *p == '|' || *p == '=')
    p++;
  else if (*p == '>')
    {
      *big_endian = true;
      p++;
    }
  if ((p[0] == 'u' || p[0] == 'i') && (p[1] == '1' || p[1] == '2' || p[1] == '4' || p[1] == '8')
      && p[2] == '\0')
    {
      *is_signed = p[0] == 'i';
      *item = p[1] - '0';
      return NN_OK;
    }
  return _nn_error_set (error, NN_ERROR_FORMAT,
                        "%s: element type '%s' is not supported; expected unsigned bytes ('|u1') "
                        "or integer labels",
                        where, descr);
}

/* Check the array's shape and that exactly its bytes follow the header.
 * want_rank 3: images (N, H, W) or (N, H, W, 1); want_rank 1: labels (N,) or (N, 1). */
static NnStatus
npy_check_shape (const NpyHeader *h,
                 size_t member_size,
                 int item,
                 int want_rank,
                 const char *where,
                 int32_t dims[3],
                 NnError *error)
{
  uint64_t bytes = (uint64_t) item;
  bool rank_ok = h->ndim == want_rank || (h->ndim == want_rank + 1 && h->shape[want_rank] == 1);

  if (!rank_ok)
    {
      char shape[160];
      size_t n = 0;
      n += (size_t) snprintf (shape + n, sizeof shape - n, "(");
      for (int i = 0; i < h->ndim && n < sizeof shape; i++)
        n += (size_t) snprintf (shape + n, sizeof shape - n, "%s%llu", i ? ", " : "",
                                (unsigned long long) h->shape[i]);
      if (n < sizeof shape)
        snprintf (shape + n, sizeof shape - n, h->ndim == 1 ? ",)" : ")");
      return _nn_error_set (error, NN_ERROR_FORMAT, "%s: shape %s, expected %-s", where, shape,
                            want_rank == 3 ? NN_MESSAGE ("(count, height, width) images")
                                           : NN_MESSAGE ("(count,) labels"));
    }
  dims[0] = dims[1] = dims[2] = 1;
  for (int i = 0; i < h->ndim; i++)
    {
      if (h->shape[i] == 0 || h->shape[i] > INT32_MAX)
        return _nn_error_set (error, NN_ERROR_FORMAT,
                              "%s: dimension %d of the shape is %llu (must be 1 to %d)", where,
                              i + 1, (unsigned long long) h->shape[i], INT32_MAX);
      if (h->shape[i] > NN_DATA_MAX_BYTES / bytes)
        return _nn_error_set (error, NN_ERROR_FORMAT,
                              "%s: the array is larger than the %llu-byte limit", where,
                              (unsigned long long) NN_DATA_MAX_BYTES);
      bytes *= h->shape[i];
      if (i < 3)
        dims[i] = (int32_t) h->shape[i];
    }
  if (h->fortran && want_rank > 1)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: Fortran-order arrays are not supported (save it in C order)", where);
  if (member_size - h->data_offset != bytes)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: the header's shape needs %llu bytes of data but the member holds "
                          "%llu",
                          where, (unsigned long long) bytes,
                          (unsigned long long) (member_size - h->data_offset));
  return NN_OK;
}

/* Turn a member into images (count, h, w): takes ownership of `buf`. */
static NnStatus
npy_images (uint8_t *buf, size_t size, const char *where, NnSplit *split, NnError *error)
{
  NpyHeader h;
  bool is_signed, big;
  int item;
  int32_t dims[3];
  NnStatus status;
  uint8_t *shrunk;

  status = npy_parse_header (buf, size, where, &h, error);
  if (status == NN_OK)
    status = npy_parse_descr (h.descr, where, &is_signed, &big, &item, error);
  if (status == NN_OK && (is_signed || item != 1))
    status = _nn_error_set (error, NN_ERROR_FORMAT,
                            "%s: images must be unsigned bytes ('|u1'), not '%s'", where, h.descr);
  if (status == NN_OK)
    status = npy_check_shape (&h, size, 1, 3, where, dims, error);
  if (status != NN_OK)
    {
      free (buf);
      return status;
    }
  memmove (buf, buf + h.data_offset, size - h.data_offset);
  shrunk = realloc (buf, size - h.data_offset);
  split->images = shrunk != NULL ? shrunk : buf;
  split->count = dims[0];
  split->height = dims[1];
  split->width = dims[2];
  split->channels = 1;
  return NN_OK;
}

/* Turn a member into labels (count) as bytes; frees `buf`. */
static NnStatus
npy_labels (uint8_t *buf, size_t size, const char *where, uint8_t **labels, int32_t *count,
            NnError *error)
{
  NpyHeader h;
  bool is_signed, big;
  int item;
  int32_t dims[3];
  NnStatus status;
  uint8_t *out = NULL;

  status = npy_parse_header (buf, size, where, &h, error);
  if (status == NN_OK)
    status = npy_parse_descr (h.descr, where, &is_signed, &big, &item, error);
  if (status == NN_OK)
    status = npy_check_shape (&h, size, item, 1, where, dims, error);
  if (status == NN_OK)
    {
      out = malloc ((size_t) dims[0]);
      if (out == NULL)
        status = _nn_error_set (error, NN_ERROR_NO_MEMORY, "%s: out of memory", where);
    }
  for (int32_t i = 0; status == NN_OK && i < dims[0]; i++)
    {
      const uint8_t *p = buf + h.data_offset + (size_t) i * (size_t) item;
      uint64_t raw = 0;
      int64_t value;

      for (int b = 0; b < item; b++)
        raw |= (uint64_t) p[big ? item - 1 - b : b] << (8 * b);
      if (is_signed && item < 8 && (raw >> (8 * item - 1)) & 1)
        raw |= ~(uint64_t) 0 << (8 * item); /* sign-extend */
      value = (int64_t) raw;
      if (is_signed ? (value < 0 || value > 255) : raw > 255)
        status = _nn_error_set (error, NN_ERROR_FORMAT,
                                "%s: label %lld at index %d is outside 0..255", where,
                                is_signed ? (long long) value : (long long) raw, i);
      else
        out[i] = (uint8_t) raw;
    }
  free (buf);
  if (status != NN_OK)
    {
      free (out);
      return status;
    }
  *labels = out;
  *count = dims[0];
  return NN_OK;
}

/* ---------------------------------------------------------------- data set */

NnStatus
_nn_npz_parse_memory (const uint8_t *data,
                      size_t size,
                      const char *name,
                      NnDataset *out,
                      NnError *error)
{
  Zip zip = { data, data != NULL ? size : 0, name != NULL ? name : "(memory)" };
  ZipEntry entries[N_MEMBERS];
  NnSplit *splits[2] = { &out->train, &out->test };
  NnStatus status;

  memset (entries, 0, sizeof entries);
  memset (&out->train, 0, sizeof out->train);
  memset (&out->test, 0, sizeof out->test);

  status = zip_read_directory (&zip, entries, error);
  for (int s = 0; status == NN_OK && s < 2; s++)
    {
      int xi = s == 0 ? X_TRAIN : X_TEST;
      int yi = s == 0 ? Y_TRAIN : Y_TEST;
      char where[1024];
      uint8_t *buf;
      int32_t label_count = 0;

      snprintf (where, sizeof where, "%s: %s", zip.name, member_names[xi]);
      status = zip_extract (&zip, &entries[xi], member_names[xi], &buf, error);
      if (status == NN_OK)
        status = npy_images (buf, (size_t) entries[xi].usize, where, splits[s], error);
      if (status != NN_OK)
        break;

      snprintf (where, sizeof where, "%s: %s", zip.name, member_names[yi]);
      status = zip_extract (&zip, &entries[yi], member_names[yi], &buf, error);
      if (status == NN_OK)
        status = npy_labels (buf, (size_t) entries[yi].usize, where, &splits[s]->labels,
                             &label_count, error);
      snprintf (splits[s]->labels_source, sizeof splits[s]->labels_source, "%s", where);
      if (status == NN_OK && label_count != splits[s]->count)
        status = _nn_error_set (error, NN_ERROR_FORMAT,
                                "%s: %s has %d images but %s has %d labels; the counts must agree",
                                zip.name, member_names[xi], splits[s]->count, member_names[yi],
                                label_count);
    }
  if (status == NN_OK
      && (out->train.height != out->test.height || out->train.width != out->test.width))
    status = _nn_error_set (error, NN_ERROR_FORMAT,
                            "%s: training images are %dx%d but test images %dx%d", zip.name,
                            out->train.height, out->train.width, out->test.height,
                            out->test.width);
  if (status != NN_OK)
    {
      _nn_split_clear (&out->train);
      _nn_split_clear (&out->test);
    }
  return status;
}

NnStatus
_nn_npz_peek_memory (const uint8_t *data,
                     size_t size,
                     const char *name,
                     NnDatasetInfo *out,
                     NnError *error)
{
  Zip zip = { data, data != NULL ? size : 0, name != NULL ? name : "(memory)" };
  ZipEntry entries[N_MEMBERS];
  int32_t counts[2] = { 0, 0 };
  int32_t sides[2][2] = { { 0, 0 }, { 0, 0 } }; /* (height, width) of train, test */
  bool seen[256] = { false };
  NnStatus status;

  memset (entries, 0, sizeof entries);
  status = zip_read_directory (&zip, entries, error);
  for (int s = 0; status == NN_OK && s < 2; s++)
    {
      int xi = s == 0 ? X_TRAIN : X_TEST;
      int yi = s == 0 ? Y_TRAIN : Y_TEST;
      char where[1024];
      uint8_t *buf = NULL, *labels = NULL;
      size_t got = 0;
      int32_t label_count = 0, dims[3];
      NpyHeader h;
      bool is_signed, big;
      int item;

      /* the images: their .npy header only (it ends within NPY_HEADER_MAX
       * and the 12 bytes before it) */
      snprintf (where, sizeof where, "%s: %s", zip.name, member_names[xi]);
      status = zip_extract_head (&zip, &entries[xi], member_names[xi], NPY_HEADER_MAX + 12, &buf,
                                 &got, error);
      if (status == NN_OK)
        status = npy_parse_header (buf, got, where, &h, error);
      if (status == NN_OK)
        status = npy_parse_descr (h.descr, where, &is_signed, &big, &item, error);
      if (status == NN_OK && (is_signed || item != 1))
        status = _nn_error_set (error, NN_ERROR_FORMAT,
                                "%s: images must be unsigned bytes ('|u1'), not '%s'", where,
                                h.descr);
      if (status == NN_OK)
        status = npy_check_shape (&h, (size_t) entries[xi].usize, 1, 3, where, dims, error);
      free (buf);
      if (status != NN_OK)
        break;
      counts[s] = dims[0];
      sides[s][0] = dims[1];
      sides[s][1] = dims[2];

      snprintf (where, sizeof where, "%s: %s", zip.name, member_names[yi]);
      status = zip_extract (&zip, &entries[yi], member_names[yi], &buf, error);
      if (status == NN_OK)
        status = npy_labels (buf, (size_t) entries[yi].usize, where, &labels, &label_count,
                             error);
      if (status == NN_OK && label_count != counts[s])
        status = _nn_error_set (error, NN_ERROR_FORMAT,
                                "%s: %s has %d images but %s has %d labels; the counts must agree",
                                zip.name, member_names[xi], counts[s], member_names[yi],
                                label_count);
      if (status == NN_OK)
        _nn_labels_mark (seen, labels, label_count);
      free (labels);
    }
  if (status == NN_OK && (sides[0][0] != sides[1][0] || sides[0][1] != sides[1][1]))
    status = _nn_error_set (error, NN_ERROR_FORMAT,
                            "%s: training images are %dx%d but test images %dx%d", zip.name,
                            sides[0][0], sides[0][1], sides[1][0], sides[1][1]);
  if (status != NN_OK)
    return status;
  out->channels = 1;
  out->height = sides[0][0];
  out->width = sides[0][1];
  out->train_count = counts[0];
  out->test_count = counts[1];
  _nn_dataset_info_set_classes (out, seen);
  return NN_OK;
}

/* The whole file in memory (*data, *size bytes, owned): a regular file
 * only, never waited on (a FIFO); its size from the OS, since ftell's long
 * has 32 bits on Windows. */
static NnStatus
read_npz_file (const char *path, uint8_t **data_out, size_t *size_out, NnError *error)
{
  FILE *f;
  uint64_t end = 0;
  uint8_t *data;
  NnStatus status;
  const char *not_regular = NULL;

  f = _nn_os_open_regular (path, &end, &not_regular);
  if (f == NULL && not_regular != NULL)
    return _nn_error_set (error, NN_ERROR_IO, "%s: not a regular file (%-s)", path, not_regular);
  if (f == NULL)
    return _nn_error_set (error, NN_ERROR_IO, "%s: cannot open: %s", path, strerror (errno));
  if (end > NPZ_MAX_FILE || end > SIZE_MAX - 1)
    {
      fclose (f);
      return _nn_error_set (error, NN_ERROR_FORMAT,
                            "%s: %llu bytes is too large for a data set", path,
                            (unsigned long long) end);
    }
  data = malloc ((size_t) end + 1);
  if (data == NULL)
    {
      fclose (f);
      return _nn_error_set (error, NN_ERROR_NO_MEMORY, "%s: out of memory reading %llu bytes",
                            path, (unsigned long long) end);
    }
  if (fread (data, 1, (size_t) end, f) != (size_t) end)
    {
      status = _nn_error_set (error, NN_ERROR_IO, "%s: read error: %s", path,
                              ferror (f) ? strerror (errno) : "the file shrank");
      free (data);
      fclose (f);
      return status;
    }
  fclose (f);
  *data_out = data;
  *size_out = (size_t) end;
  return NN_OK;
}

NnStatus
_nn_npz_peek (const char *path, NnDatasetInfo *out, NnError *error)
{
  uint8_t *data = NULL;
  size_t size = 0;
  NnStatus status;

  /* The file is read whole, as a zip's directory is at its end; the images
   * in it stay compressed. */
  status = read_npz_file (path, &data, &size, error);
  if (status != NN_OK)
    return status;
  status = _nn_npz_peek_memory (data, size, path, out, error);
  free (data);
  if (status == NN_OK)
    {
      snprintf (out->name, sizeof out->name, "%s", _nn_path_base_name (path));
      snprintf (out->path, sizeof out->path, "%s", path);
    }
  return status;
}

NnStatus
nn_dataset_load_npz (const char *path, NnDataset **out, NnError *error)
{
  size_t end = 0;
  uint8_t *data = NULL;
  NnDataset *ds;
  NnStatus status;

  if (out == NULL || path == NULL)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "nn_dataset_load_npz: missing argument");
  *out = NULL;

  status = read_npz_file (path, &data, &end, error);
  if (status != NN_OK)
    return status;

  ds = calloc (1, sizeof *ds);
  if (ds == NULL)
    {
      free (data);
      return _nn_error_set (error, NN_ERROR_NO_MEMORY, "%s: out of memory", path);
    }
  status = _nn_npz_parse_memory (data, end, path, ds, error);
  free (data);
  if (status != NN_OK)
    {
      free (ds);
      return status;
    }
  snprintf (ds->name, sizeof ds->name, "%s", _nn_path_base_name (path));
  snprintf (ds->path, sizeof ds->path, "%s", path);
  ds->classes = _nn_dataset_count_classes (ds);
  *out = ds;
  return NN_OK;
}
