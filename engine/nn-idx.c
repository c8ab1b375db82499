/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-idx.c: reading IDX files (MNIST's format), raw or gzip-compressed.
 *
 * Every header field and size is checked before the pixel buffer is made;
 * a gzip stream's decompressed size is unknown up front, so its buffer grows
 * as data actually arrives and a lying header cannot make us allocate 2 GiB.
 */

#define _POSIX_C_SOURCE 200809L

#include "nn-dataset-private.h"
#include "nn-os.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#define IDX_TYPE_U8 0x08
#define GZIP_CHUNK 65536

/* A byte source: a file or a memory block, optionally through gzip. */
typedef struct
{
  const char *name;       /* borrowed, for messages */
  FILE *file;             /* owned; NULL when reading memory */
  const uint8_t *mem;     /* borrowed */
  size_t mem_size;
  size_t mem_pos;
  bool gzip;
  bool z_ready;           /* inflateInit2 succeeded */
  bool member_ended;      /* the last gzip member ended and no new one began */
  bool input_done;        /* no compressed input left */
  z_stream z;
  uint8_t *in;            /* (GZIP_CHUNK) compressed input from a file, owned */
  uint64_t stored_size;   /* bytes in the file or memory block as stored */
  uint64_t file_pos;      /* bytes read from the file so far */
} IdxReader;

static void
reader_close (IdxReader *r)
{
  if (r->z_ready)
    inflateEnd (&r->z);
  if (r->file != NULL)
    fclose (r->file);
  free (r->in);
  memset (r, 0, sizeof *r);
}

/* Raw bytes from the underlying file or memory; *got < n only at the end. */
static NnStatus
source_read (IdxReader *r, uint8_t *buf, size_t n, size_t *got, NnError *error)
{
  if (r->file == NULL)
    {
      size_t left = r->mem_size - r->mem_pos;
      *got = n < left ? n : left;
      memcpy (buf, r->mem + r->mem_pos, *got);
      r->mem_pos += *got;
      return NN_OK;
    }
  /* never past the size the file had when opened: one that grows while it
   * is read (or never ends) cannot make the reader go on */
  if (n > r->stored_size - r->file_pos)
    n = (size_t) (r->stored_size - r->file_pos);
  *got = n > 0 ? fread (buf, 1, n, r->file) : 0;
  r->file_pos += *got;
  if (*got < n && ferror (r->file))
    return _nn_error_set (error, NN_ERROR_IO, "%s: read error: %s", r->name, strerror (errno));
  return NN_OK;
}

/* Start reading: gzip when the first two bytes are gzip's magic. */
static NnStatus
reader_start (IdxReader *r, NnError *error)
{
  uint8_t magic[2] = { 0, 0 };
  bool is_gzip;

  if (r->file == NULL)
    {
      r->stored_size = r->mem_size;
      is_gzip = r->mem_size >= 2 && r->mem[0] == 0x1f && r->mem[1] == 0x8b;
    }
  else
    {
      size_t got;
      NnStatus status;

      /* r->stored_size is the file's size from the OS (_nn_os_open_regular) */
      status = source_read (r, magic, 2, &got, error);
      if (status != NN_OK)
        return status;
      is_gzip = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
      if (fseek (r->file, 0, SEEK_SET) != 0)
        return _nn_error_set (error, NN_ERROR_IO, "%s: cannot seek: %s", r->name, strerror (errno));
      r->file_pos = 0;
    }

  if (!is_gzip)
    return NN_OK;

  r->gzip = true;
  memset (&r->z, 0, sizeof r->z);
  if (r->file != NULL)
    {
      r->in = malloc (GZIP_CHUNK);
      if (r->in == NULL)
        return _nn_error_set (error, NN_ERROR_NO_MEMORY, "%s: out of memory", r->name);
    }
  else
    {
      /* the whole block is the input; zlib's avail_in is 32-bit */
      r->z.next_in = (Bytef *) r->mem;
      r->z.avail_in = r->mem_size > UINT32_MAX ? UINT32_MAX : (uInt) r->mem_size;
      r->mem_pos = r->z.avail_in;
    }
  if (inflateInit2 (&r->z, 16 + MAX_WBITS) != Z_OK)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "%s: cannot start zlib", r->name);
  r->z_ready = true;
  return NN_OK;
}

/* Give zlib more compressed input; sets input_done when there is none. */
static NnStatus
reader_refill (IdxReader *r, NnError *error)
{
  size_t got;
  NnStatus status;

  if (r->file == NULL)
    {
      size_t left = r->mem_size - r->mem_pos;
      size_t n = left > UINT32_MAX ? UINT32_MAX : left;
      r->z.next_in = (Bytef *) (r->mem + r->mem_pos);
      r->z.avail_in = (uInt) n;
      r->mem_pos += n;
      got = n;
    }
  else
    {
      status = source_read (r, r->in, GZIP_CHUNK, &got, error);
      if (status != NN_OK)
        return status;
      r->z.next_in = r->in;
      r->z.avail_in = (uInt) got;
    }
  if (got == 0)
    r->input_done = true;
  return NN_OK;
}

/* Read up to n decompressed bytes; *got < n means the data ended. */
static NnStatus
reader_read (IdxReader *r, uint8_t *buf, size_t n, size_t *got, NnError *error)
{
  NnStatus status;

  if (!r->gzip)
    return source_read (r, buf, n, got, error);

  *got = 0;
  while (*got < n)
    {
      size_t want = n - *got;
      size_t before;
      uInt in_before;
      int rc;

      if (r->z.avail_in == 0)
        {
          if (!r->input_done)
            {
              status = reader_refill (r, error);
              if (status != NN_OK)
                return status;
            }
          if (r->input_done)
            {
              if (r->member_ended)
                return NN_OK; /* clean end after a whole member */
              return _nn_error_set (error, NN_ERROR_FORMAT,
                                    "%s: truncated: the gzip stream ends early", r->name);
            }
        }

      r->z.next_out = buf + *got;
      r->z.avail_out = want > UINT32_MAX ? UINT32_MAX : (uInt) want;
      before = r->z.avail_out;
      in_before = r->z.avail_in;
      rc = inflate (&r->z, Z_NO_FLUSH);
      *got += before - r->z.avail_out;
      if (rc == Z_STREAM_END)
        {
          /* Another member may follow (gzip allows concatenation). */
          r->member_ended = true;
          inflateReset (&r->z);
          continue;
        }
      if (rc == Z_OK || (rc == Z_BUF_ERROR && r->z.avail_in == 0))
        {
          if (r->z.avail_in != in_before || before != r->z.avail_out)
            r->member_ended = false;
          continue;
        }
      if (rc == Z_DATA_ERROR && r->member_ended)
        return _nn_error_set (error, NN_ERROR_FORMAT,
                              "%s: trailing data after the end of the gzip stream", r->name);
      if (rc == Z_MEM_ERROR)
        return _nn_error_set (error, NN_ERROR_NO_MEMORY, "%s: out of memory in zlib", r->name);
      return _nn_error_set (error, NN_ERROR_FORMAT, "%s: corrupt gzip data (%s)", r->name,
                            r->z.msg != NULL ? r->z.msg : "zlib error");
    }
  return NN_OK;
}

static uint32_t
be32 (const uint8_t *p)
{
  return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | (uint32_t) p[3];
}

static const char *
type_name (int type)
{
  switch (type)
    {
    case 0x08: return "unsigned byte";
    case 0x09: return "signed byte";
    case 0x0B: return "short";
    case 0x0C: return "int";
    case 0x0D: return "float";
    case 0x0E: return "double";
    default: return "unknown";
    }
}

/* Check the 4-byte magic against what `kind` needs. */
static NnStatus
check_magic (const char *name, const uint8_t *head, size_t got, NnIdxKind kind, NnError *error)
{
  int want_dims = kind == NN_IDX_IMAGES ? 3 : 1;
  uint32_t want = kind == NN_IDX_IMAGES ? 0x00000803u : 0x00000801u;
  const char *what = kind == NN_IDX_IMAGES ? NN_MESSAGE ("an IDX image file")
                                           : NN_MESSAGE ("an IDX label file");

  if (got < 4)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: truncated: %llu bytes, too short for %-s header", name, (unsigned long long) got, what);
  if (head[0] == '<')
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: not %-s: it looks like a web page (a failed download?)", name, what);
  if (head[0] != 0 || head[1] != 0)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: not %-s: wrong magic 0x%08x (expected 0x%08x)", name, what,
                          be32 (head), want);
  if (head[2] != IDX_TYPE_U8)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: wrong magic 0x%08x: elements of type 0x%02x (%s) are not "
                          "supported, only unsigned bytes (0x08)",
                          name, be32 (head), head[2], type_name (head[2]));
  if (head[3] != want_dims)
    {
      if (kind == NN_IDX_IMAGES && head[3] == 1)
        return _nn_error_set (error, NN_ERROR_FORMAT,
                              "%s: wrong magic 0x%08x: this is a label file, not an image file",
                              name, be32 (head));
      if (kind == NN_IDX_LABELS && head[3] == 3)
        return _nn_error_set (error, NN_ERROR_FORMAT,
                              "%s: wrong magic 0x%08x: this is an image file, not a label file",
                              name, be32 (head));
      return _nn_error_set (error, NN_ERROR_FORMAT,
                            "%s: wrong magic 0x%08x: %d dimensions, expected %d (magic 0x%08x)",
                            name, be32 (head), head[3], want_dims, want);
    }
  return NN_OK;
}

/* Read an IDX file into `out`; with `header_only`, its header alone (and,
 * for a raw file, the check that the file holds what the header says), with
 * out->data left NULL. */
static NnStatus
idx_read (IdxReader *r, NnIdxKind kind, bool header_only, NnIdxArray *out, NnError *error)
{
  uint8_t head[16];         /* magic, then one big-endian u32 per dimension */
  uint32_t dims[3] = { 1, 1, 1 };
  int ndims = kind == NN_IDX_IMAGES ? 3 : 1;
  size_t header_size = 4 + 4 * (size_t) ndims;
  uint64_t bytes;
  uint64_t have;
  size_t got;
  uint8_t *data = NULL;
  size_t cap;
  uint8_t extra;
  char what[128];
  NnStatus status;

  status = reader_start (r, error);
  if (status != NN_OK)
    return status;

  status = reader_read (r, head, 4, &got, error);
  if (status != NN_OK)
    return status;
  status = check_magic (r->name, head, got, kind, error);
  if (status != NN_OK)
    return status;

  status = reader_read (r, head + 4, header_size - 4, &got, error);
  if (status != NN_OK)
    return status;
  if (got < header_size - 4)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: truncated: the file ends inside its %llu-byte header", r->name,
                          (unsigned long long) header_size);

  for (int i = 0; i < ndims; i++)
    {
      static const char *const image_dim[] = {
        NN_MESSAGE ("image count"), NN_MESSAGE ("height"), NN_MESSAGE ("width"),
      };
      dims[i] = be32 (head + 4 + 4 * i);
      if (dims[i] == 0 || dims[i] > INT32_MAX)
        return _nn_error_set (error, NN_ERROR_FORMAT,
                              "%s: bad header: %-s is %u (must be 1 to %d)", r->name,
                              kind == NN_IDX_IMAGES ? image_dim[i] : NN_MESSAGE ("label count"),
                              dims[i], INT32_MAX);
    }

  /* count * height fits in 64 bits (both < 2^31); check before the width. */
  bytes = (uint64_t) dims[0] * dims[1];
  if (bytes > NN_DATA_MAX_BYTES || dims[2] > NN_DATA_MAX_BYTES / bytes)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: bad header: %u x %u x %u bytes is more than the %llu-byte limit",
                          r->name, dims[0], dims[1], dims[2],
                          (unsigned long long) NN_DATA_MAX_BYTES);
  bytes *= dims[2];

  if (kind == NN_IDX_IMAGES)
    snprintf (what, sizeof what, "%u images of %ux%u", dims[0], dims[1], dims[2]);
  else
    snprintf (what, sizeof what, "%u labels", dims[0]);

  if (!r->gzip)
    {
      /* The size on disk is known: check it before allocating. */
      have = r->stored_size - header_size;
      if (have < bytes)
        return _nn_error_set (error, NN_ERROR_FORMAT,
                              "%s: truncated: header says %s (%llu bytes) but the file holds "
                              "%llu bytes after its %llu-byte header",
                              r->name, what, (unsigned long long) bytes,
                              (unsigned long long) have, (unsigned long long) header_size);
      if (have > bytes)
        return _nn_error_set (error, NN_ERROR_FORMAT,
                              "%s: %llu byte%s of trailing data after the %s the header "
                              "announces",
                              r->name, (unsigned long long) (have - bytes),
                              have - bytes == 1 ? "" : "s", what);
    }
  if (header_only)
    {
      out->count = (int32_t) dims[0];
      out->height = (int32_t) dims[1];
      out->width = (int32_t) dims[2];
      return NN_OK;
    }

  if (!r->gzip)
    {
      data = malloc ((size_t) bytes);
      if (data == NULL)
        return _nn_error_set (error, NN_ERROR_NO_MEMORY, "%s: out of memory for %s (%llu bytes)",
                              r->name, what, (unsigned long long) bytes);
      status = reader_read (r, data, (size_t) bytes, &got, error);
      if (status == NN_OK && got != bytes)
        status = _nn_error_set (error, NN_ERROR_IO,
                                "%s: the file shrank while being read (%llu of %llu bytes)",
                                r->name, (unsigned long long) got, (unsigned long long) bytes);
    }
  else
    {
      /* Grow the buffer as data arrives: the header may lie. */
      have = 0;
      cap = 0;
      status = NN_OK;
      while (have < bytes)
        {
          if (have == cap)
            {
              size_t next = cap == 0 ? (size_t) 1 << 20 : cap * 2;
              uint8_t *grown;
              if (next > bytes)
                next = (size_t) bytes;
              grown = realloc (data, next);
              if (grown == NULL)
                {
                  status = _nn_error_set (error, NN_ERROR_NO_MEMORY,
                                          "%s: out of memory for %s (%llu bytes)", r->name, what,
                                          (unsigned long long) bytes);
                  break;
                }
              data = grown;
              cap = next;
            }
          status = reader_read (r, data + have, cap - have, &got, error);
          if (status != NN_OK)
            break;
          have += got;
          if (got == 0)
            break;
        }
      if (status == NN_OK && have < bytes)
        status = _nn_error_set (error, NN_ERROR_FORMAT,
                                "%s: truncated: header says %s (%llu bytes) but the file holds "
                                "%llu bytes after its %llu-byte header (decompressed)",
                                r->name, what, (unsigned long long) bytes,
                                (unsigned long long) have, (unsigned long long) header_size);
    }

  /* Nothing may follow the data (for gzip this also checks the stream's CRC). */
  if (status == NN_OK)
    {
      status = reader_read (r, &extra, 1, &got, error);
      if (status == NN_OK && got != 0)
        status = _nn_error_set (error, NN_ERROR_FORMAT,
                                "%s: trailing data after the %s the header announces", r->name,
                                what);
    }

  if (status != NN_OK)
    {
      free (data);
      return status;
    }

  out->count = (int32_t) dims[0];
  out->height = (int32_t) dims[1];
  out->width = (int32_t) dims[2];
  out->data = data;
  return NN_OK;
}

static NnStatus
read_file (const char *path, NnIdxKind kind, bool header_only, NnIdxArray *out, NnError *error)
{
  IdxReader r;
  NnStatus status;

  memset (out, 0, sizeof *out);
  memset (&r, 0, sizeof r);
  if (path == NULL)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "no IDX file given");
  r.name = path;
  /* a regular file only: a FIFO would block, /dev/zero never ends */
  const char *not_regular = NULL;
  r.file = _nn_os_open_regular (path, &r.stored_size, &not_regular);
  if (r.file == NULL && not_regular != NULL)
    return _nn_error_set (error, NN_ERROR_IO, "%s: not a regular file (%-s)", path, not_regular);
  if (r.file == NULL)
    return _nn_error_set (error, NN_ERROR_IO, "%s: cannot open: %s", path, strerror (errno));
  status = idx_read (&r, kind, header_only, out, error);
  reader_close (&r);
  return status;
}

NnStatus
_nn_idx_read_file (const char *path, NnIdxKind kind, NnIdxArray *out, NnError *error)
{
  return read_file (path, kind, false, out, error);
}

NnStatus
_nn_idx_read_header (const char *path, NnIdxKind kind, NnIdxArray *out, NnError *error)
{
  return read_file (path, kind, true, out, error);
}

NnStatus
_nn_idx_parse_memory (const uint8_t *data,
                      size_t size,
                      const char *name,
                      NnIdxKind kind,
                      NnIdxArray *out,
                      NnError *error)
{
  IdxReader r;
  NnStatus status;

  memset (out, 0, sizeof *out);
  memset (&r, 0, sizeof r);
  r.name = name != NULL ? name : "(memory)";
  r.mem = data;
  r.mem_size = data != NULL ? size : 0;
  status = idx_read (&r, kind, false, out, error);
  reader_close (&r);
  return status;
}

void
_nn_split_clear (NnSplit *split)
{
  if (split == NULL)
    return;
  free (split->images);
  free (split->labels);
  memset (split, 0, sizeof *split);
}

NnStatus
nn_dataset_load_idx_pair (const char *images_path,
                          const char *labels_path,
                          NnSplit *out,
                          NnError *error)
{
  NnIdxArray images, labels;
  NnStatus status;

  if (out == NULL || images_path == NULL || labels_path == NULL)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "nn_dataset_load_idx_pair: missing argument");
  memset (out, 0, sizeof *out);

  status = _nn_idx_read_file (images_path, NN_IDX_IMAGES, &images, error);
  if (status != NN_OK)
    return status;
  status = _nn_idx_read_file (labels_path, NN_IDX_LABELS, &labels, error);
  if (status != NN_OK)
    {
      free (images.data);
      return status;
    }
  if (images.count != labels.count)
    {
      status = _nn_error_set (error, NN_ERROR_FORMAT,
                              "%s has %d images but %s has %d labels; the counts must agree",
                              images_path, images.count, labels_path, labels.count);
      free (images.data);
      free (labels.data);
      return status;
    }

  out->count = images.count;
  out->channels = 1;
  out->height = images.height;
  out->width = images.width;
  out->images = images.data;
  out->labels = labels.data;
  snprintf (out->labels_source, sizeof out->labels_source, "%s", labels_path);
  return NN_OK;
}
