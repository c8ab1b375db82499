/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-file.c: paths, folders and atomic files, the same on every OS, on top
 * of the OS layer (nn-os.h).
 *
 * An atomic file is written to a new temporary file next to the target,
 * flushed to disk and put in the target's place in one step, so a crash
 * leaves either the old file or the new one, never half of one. Links are
 * followed to the file they name; devices and FIFOs are written through
 * (NnAtomicFile in nn-private.h). NnFileWriter (trainbench.h) is one for
 * the front ends' exports, so the app's files follow the CLI's rules.
 */

#include "nn-private.h"
#include "nn-os.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------- paths */

bool
nn_path_join (char *out, size_t size, const char *folder, const char *name)
{
  size_t a = strlen (folder), b = strlen (name);

  if (size == 0)
    return false;
  /* no second separator after one the folder ends with ("C:\", "/") */
  bool sep = a > 0 && !_nn_os_is_separator (folder[a - 1]);
  if (a + sep + b + 1 > size)
    {
      out[0] = '\0';
      return false;
    }
  memmove (out, folder, a);
  if (sep)
    out[a] = NN_OS_SEP[0];
  memmove (out + a + sep, name, b);
  out[a + sep + b] = '\0';
  return true;
}

/* ---------------------------------------------------------------- file names */

/* Device names Windows keeps in every folder, whatever follows their first
 * dot: writing "NUL.json" writes nothing, "CON.json" writes to the console.
 * Microsoft's list ("Naming Files, Paths, and Namespaces"); the superscript
 * digits it also names are not ASCII, so they never reach the check. */
static bool
is_device_name (const char *name, size_t length)
{
  static const char *const devices[] = { "CON", "PRN", "AUX", "NUL" };
  char upper[5];

  if (length < 3 || length > 4)
    return false;
  for (size_t i = 0; i < length; i++)
    upper[i] = (char) (name[i] >= 'a' && name[i] <= 'z' ? name[i] - 'a' + 'A' : name[i]);
  upper[length] = '\0';
  if (length == 3)
    {
      for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++)
        if (strcmp (upper, devices[i]) == 0)
          return true;
      return false;
    }
  return (strncmp (upper, "COM", 3) == 0 || strncmp (upper, "LPT", 3) == 0) && upper[3] >= '0'
         && upper[3] <= '9';
}

bool
nn_file_name_from_id (const char *id, const char *extension, char *out, size_t size)
{
  /* 128 bytes of id keep file names short of every file system's 255 */
  enum { ID_MAX = 128, ID_KEPT = 96 };
  char stem[ID_MAX + 2];
  size_t n = id != NULL ? strlen (id) : 0;
  size_t ext = extension != NULL ? strlen (extension) : 0;

  if (size > 0)
    out[0] = '\0';
  if (ext > 15 || size < 1 + ID_MAX + ext + 1)
    return false;
  if (n <= ID_MAX)
    memcpy (stem, id != NULL ? id : "", n + 1);
  else
    {
      /* FNV-1a: a long id's start is kept for people, the hash keeps two
       * long ids with that start apart */
      uint64_t hash = 0xcbf29ce484222325u;
      for (size_t i = 0; i < n; i++)
        hash = (hash ^ (unsigned char) id[i]) * 0x100000001b3u;
      memcpy (stem, id, ID_KEPT);
      snprintf (stem + ID_KEPT, sizeof stem - ID_KEPT, "-%016llx", (unsigned long long) hash);
    }
  n = strlen (stem);
  for (size_t i = 0; i < n; i++)
    {
      char c = stem[i];
      if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'
            || c == '_' || c == '.'))
        stem[i] = '_';
    }
  /* no hidden file, no "." or ".." */
  if (n == 0)
    snprintf (stem, sizeof stem, "_");
  else if (stem[0] == '.')
    stem[0] = '_';
  size_t device = strcspn (stem, ".");
  snprintf (out, size, "%s%s%s", is_device_name (stem, device) ? "_" : "", stem,
            extension != NULL ? extension : "");
  /* Windows drops a name's trailing dots and spaces: "a." would be "a" */
  size_t len = strlen (out);
  while (len > 0 && (out[len - 1] == '.' || out[len - 1] == ' '))
    out[--len] = '_';
  return true;
}

const char *
_nn_path_base_name (const char *path)
{
  const char *base = path;
  for (const char *p = path; *p != '\0'; p++)
    if (_nn_os_is_separator (*p))
      base = p + 1;
  return base;
}

/* The folder part of `path` ("" when it has none) into out. */
static void
parent_folder (const char *path, char *out, size_t size)
{
  size_t root = _nn_os_path_root (path);
  size_t cut = (size_t) (_nn_path_base_name (path) - path);

  while (cut > root && _nn_os_is_separator (path[cut - 1]))
    cut--;
  if (cut < root)
    cut = root;
  if (cut >= size)
    cut = size - 1;
  memcpy (out, path, cut);
  out[cut] = '\0';
}

void
_nn_program_folder (char *out, size_t size)
{
  if (!_nn_os_program_path (out, size))
    return;
  char *base = (char *) _nn_path_base_name (out);
  if (base > out)
    base[-1] = '\0';
}

/* ---------------------------------------------------------------- folders */

NnStatus
nn_folder_create (const char *path, NnError *error)
{
  char buf[4096];
  size_t n = path != NULL ? strlen (path) : 0;

  if (n == 0)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "no folder name given");
  if (n >= sizeof buf)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "%.200s...: path too long", path);
  memcpy (buf, path, n + 1);

  /* each prefix that ends a component, below the root ("/", "C:\") */
  for (size_t i = _nn_os_path_root (buf) + 1; i <= n; i++)
    {
      if (i < n && !_nn_os_is_separator (buf[i]))
        continue;
      if (_nn_os_is_separator (buf[i - 1]))
        continue;   /* "a//b" or a trailing separator */
      char saved = buf[i];
      buf[i] = '\0';
      NnOsKind kind = _nn_os_path_kind (buf, NULL);
      if (kind == NN_OS_MISSING)
        {
          int e = _nn_os_make_folder (buf);
          if (e != 0 && e != EEXIST)
            return _nn_error_set (error, NN_ERROR_IO, "%s: could not create the folder: %s", buf,
                                  strerror (e));
          kind = _nn_os_path_kind (buf, NULL);
          if (kind == NN_OS_MISSING)
            return _nn_error_set (error, NN_ERROR_IO,
                                  "%s: could not create the folder: it vanished", buf);
        }
      if (kind != NN_OS_FOLDER)
        return _nn_error_set (error, NN_ERROR_IO, "%s: is not a folder", buf);
      buf[i] = saved;
    }
  return NN_OK;
}

NnStatus
nn_folder_check_writable (const char *folder, uint64_t room, NnError *error)
{
  char probe[4096 + 32];
  uint64_t free_bytes = 0;
  FILE *f = NULL;
  int e = 0;

  NnStatus status = nn_folder_create (folder, error);
  if (status != NN_OK)
    return status;

  /* A file made, written and removed: permissions, a read-only mount and
   * a disk with no block left all say no here, as they would to the
   * result file. A random new name, so no file of the folder is touched. */
  for (int attempt = 0; attempt < 100 && f == NULL; attempt++)
    {
      char name[32];
      snprintf (name, sizeof name, ".write-check-%06x", (unsigned) (_nn_random_u32 () & 0xffffff));
      if (!nn_path_join (probe, sizeof probe, folder, name))
        return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "%.200s...: path too long", folder);
      f = _nn_os_create_new (probe);
      e = errno;
      if (f == NULL && e != EEXIST)
        break;
    }
  if (f == NULL)
    return _nn_error_set (error, NN_ERROR_IO, "%s: files cannot be written in this folder: %s",
                          folder, strerror (e));
  e = fputc ('\n', f) == EOF || fflush (f) != 0 ? (errno != 0 ? errno : EIO) : 0;
  if (fclose (f) != 0 && e == 0)
    e = errno != 0 ? errno : EIO;
  _nn_os_remove (probe);
  if (e != 0)
    return _nn_error_set (error, NN_ERROR_IO, "%s: files cannot be written in this folder: %s",
                          folder, strerror (e));

  if (_nn_os_free_space (folder, &free_bytes) == 0 && free_bytes < room)
    {
      char have[32], want[32];
      _nn_format_bytes ((double) free_bytes, have, sizeof have);
      _nn_format_bytes ((double) room, want, sizeof want);
      return _nn_error_set (error, NN_ERROR_IO, "%s: the disk is full: %s free, %s wanted", folder,
                            have, want);
    }
  return NN_OK;
}

/* ---------------------------------------------------------------- randomness */

uint32_t
_nn_random_u32 (void)
{
  static uint32_t counter;
  uint32_t r = 0;

  if (!_nn_os_random (&r, sizeof r))
    {
      /* should not happen: the clock's fine bits then */
      double now = _nn_now ();
      r = (uint32_t) (now * 1e9) ^ (uint32_t) time (NULL);
    }
  r += __atomic_add_fetch (&counter, 0x9e3779b9u, __ATOMIC_RELAXED);
  return r;
}

/* ---------------------------------------------------------------- atomic files */

/* `follow`: links are followed and devices written through (a file put in
 * the place of `path`); else `path` is a new name, taken by whatever is
 * there (_nn_atomic_file_commit_new). */
static NnStatus
atomic_file_open (NnAtomicFile *af, const char *path, bool make_folder, bool follow,
                  NnError *error)
{
  size_t n = path != NULL ? strlen (path) : 0;

  memset (af, 0, sizeof *af);
  if (n == 0 || n >= sizeof af->path)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "file name is empty or too long");
  if (_nn_os_is_separator (path[n - 1]))
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "%s: is a folder name, not a file name",
                          path);
  memcpy (af->path, path, n + 1);
  memcpy (af->target, path, n + 1);

  /* A link stands for the file it names: that one is replaced, next to
   * itself, and the link stays (what `--out link` means to a user). */
  int e = follow ? _nn_os_resolve_links (path, af->target, sizeof af->target) : 0;
  if (e != 0)
    return _nn_error_set (error, NN_ERROR_IO, "%s: %s", path, strerror (e));

  /* A device or a FIFO is written through: replacing /dev/null with a file
   * (as root) or a FIFO with one is never what was meant. */
  const char *what = NULL;
  e = follow ? _nn_os_open_write_through (af->target, &af->file, &what) : 0;
  if (e != 0)
    return _nn_error_set (error, NN_ERROR_IO, "%s: not writing to %-s: %s", path,
                          what != NULL ? what : NN_MESSAGE ("this"), strerror (e));
  if (af->file != NULL)
    {
      af->through = true;
      return NN_OK;
    }

  parent_folder (af->target, af->folder, sizeof af->folder);
  if (make_folder && af->folder[0] != '\0')
    {
      NnStatus status = nn_folder_create (af->folder, error);
      if (status != NN_OK)
        return status;
    }

  /* The temporary name is new (created exclusively) and random, so two
   * writers never share one. */
  for (int attempt = 0; attempt < 100 && af->file == NULL; attempt++)
    {
      snprintf (af->tmp, sizeof af->tmp, "%s.tmp-%06x", af->target,
                (unsigned) (_nn_random_u32 () & 0xffffff));
      af->file = _nn_os_create_new (af->tmp);
      e = errno;
      if (af->file == NULL && e != EEXIST)
        break;
    }
  if (af->file == NULL)
    return _nn_error_set (error, NN_ERROR_IO, "%s: could not create a temporary file: %s", path,
                          strerror (e));
  return NN_OK;
}

NnStatus
_nn_atomic_file_open (NnAtomicFile *af, const char *path, bool make_folder, NnError *error)
{
  return atomic_file_open (af, path, make_folder, true, error);
}

NnStatus
_nn_atomic_file_open_new (NnAtomicFile *af, const char *path, bool make_folder, NnError *error)
{
  return atomic_file_open (af, path, make_folder, false, error);
}

bool
_nn_atomic_file_write (NnAtomicFile *af, const void *data, size_t size)
{
  if (af->error != 0 || size == 0)
    return af->error == 0;
  errno = 0;
  if (fwrite (data, 1, size, af->file) != size)
    af->error = errno != 0 ? errno : EIO;
  return af->error == 0;
}

/* Flush and close the temporary file; 0 or an errno value (the temporary
 * file is removed then). */
static int
finish_temporary (NnAtomicFile *af)
{
  int e = af->error;

  if (e == 0)
    e = _nn_os_sync_file (af->file);
  if (fclose (af->file) != 0 && e == 0)
    e = errno != 0 ? errno : EIO;
  af->file = NULL;
  if (e != 0)
    _nn_os_remove (af->tmp);
  return e;
}

NnStatus
_nn_atomic_file_commit_new (NnAtomicFile *af, bool *taken, NnError *error)
{
  *taken = false;
  int e = finish_temporary (af);
  if (e != 0)
    return _nn_error_set (error, NN_ERROR_IO, "%s: could not write: %s", af->path, strerror (e));
  e = _nn_os_place_new (af->tmp, af->target);
  if (e != 0)
    {
      _nn_os_remove (af->tmp);
      *taken = e == EEXIST;
      return _nn_error_set (error, NN_ERROR_IO, "%s: could not create the file: %s", af->path,
                            strerror (e));
    }
  _nn_os_sync_folder (af->folder);
  return NN_OK;
}

NnStatus
_nn_atomic_file_commit (NnAtomicFile *af, NnError *error)
{
  int e = af->error;

  if (af->through)
    {
      /* a device or a pipe: flushed, nothing to sync or put in place */
      if (e == 0 && fflush (af->file) != 0)
        e = errno != 0 ? errno : EIO;
      if (fclose (af->file) != 0 && e == 0)
        e = errno != 0 ? errno : EIO;
      af->file = NULL;
      if (e != 0)
        return _nn_error_set (error, NN_ERROR_IO, "%s: could not write: %s", af->path,
                              strerror (e));
      return NN_OK;
    }
  uint64_t written[2] = { 0, 0 }, now[2] = { 0, 0 };
  bool known = af->confirm && _nn_os_file_id (af->file, written);
  e = finish_temporary (af);
  if (e != 0)
    return _nn_error_set (error, NN_ERROR_IO, "%s: could not write: %s", af->path, strerror (e));
  e = _nn_os_replace (af->tmp, af->target);
  if (e != 0)
    {
      _nn_os_remove (af->tmp);
      return _nn_error_set (error, NN_ERROR_IO, "%s: could not replace the file: %s", af->path,
                            strerror (e));
    }
  _nn_os_sync_folder (af->folder);
  /* what is reported is true of the file there: another writer that put
   * its own file in place after this one is not taken for this one */
  if (known && (!_nn_os_path_id (af->target, now) || now[0] != written[0]
                || now[1] != written[1]))
    return _nn_error_set (error, NN_ERROR_IO,
                          "%s: another program replaced the file at the same moment: it holds "
                          "that one's contents, not these",
                          af->path);
  return NN_OK;
}

void
_nn_atomic_file_abort (NnAtomicFile *af)
{
  if (af->file != NULL)
    {
      fclose (af->file);
      af->file = NULL;
      if (!af->through)
        _nn_os_remove (af->tmp);
    }
}

/* ---------------------------------------------------------------- file writers */

struct NnFileWriter
{
  NnAtomicFile af;
};

NnStatus
nn_file_writer_open (const char *path, NnFileWriter **out, NnError *error)
{
  NnFileWriter *writer = malloc (sizeof *writer);

  *out = NULL;
  if (writer == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "%s: out of memory", path != NULL ? path : "");
  NnStatus status = _nn_atomic_file_open (&writer->af, path, false, error);
  if (status != NN_OK)
    {
      free (writer);
      return status;
    }
  *out = writer;
  return NN_OK;
}

bool
nn_file_writer_write (NnFileWriter *writer, const void *data, size_t size)
{
  return _nn_atomic_file_write (&writer->af, data, size);
}

NnStatus
nn_file_writer_commit (NnFileWriter *writer, NnError *error)
{
  NnStatus status = _nn_atomic_file_commit (&writer->af, error);

  free (writer);
  return status;
}

void
nn_file_writer_abort (NnFileWriter *writer)
{
  if (writer == NULL)
    return;
  _nn_atomic_file_abort (&writer->af);
  free (writer);
}

NnStatus
nn_file_write (const char *path, const void *data, size_t size, NnError *error)
{
  return _nn_file_write_atomically (path, data, size, false, error);
}

NnStatus
_nn_file_write_atomically (const char *path, const void *data, size_t size, bool make_folder,
                           NnError *error)
{
  NnAtomicFile af;
  NnStatus status = _nn_atomic_file_open (&af, path, make_folder, error);
  if (status != NN_OK)
    return status;
  _nn_atomic_file_write (&af, data, size);
  return _nn_atomic_file_commit (&af, error);
}
