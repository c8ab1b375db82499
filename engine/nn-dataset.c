/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-dataset.c: finding and loading data sets by name or path, and the
 * small operations on a loaded one (free, truncate, class count).
 * The file formats themselves live in nn-idx.c and nn-npz.c.
 */

#include "nn-dataset-private.h"
#include "nn-os.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEP NN_OS_SEP
#define PATH_SIZE 4096

/* The four files of an IDX data set, in the order train images, train labels,
 * test images, test labels. Each may also be written "train-images.idx3-ubyte"
 * and may end in ".gz". */
static const char *const idx_names[4] = {
  "train-images-idx3-ubyte",
  "train-labels-idx1-ubyte",
  "t10k-images-idx3-ubyte",
  "t10k-labels-idx1-ubyte",
};

static const char *const known_names[] = { "mnist", "fashion-mnist" };
#define N_KNOWN ((int) (sizeof known_names / sizeof known_names[0]))

static bool
is_dir (const char *path)
{
  return _nn_os_path_kind (path, NULL) == NN_OS_FOLDER;
}

static bool
is_file (const char *path)
{
  NnOsKind kind = _nn_os_path_kind (path, NULL);
  return kind == NN_OS_FILE || kind == NN_OS_OTHER;
}

/* out = dir + separator + leaf; false (and out = "") when it does not fit, so
 * a cut path never points somewhere else. `out` may be `dir`, never `leaf`. */
static bool
join_path (char *out, size_t size, const char *dir, const char *leaf)
{
  return nn_path_join (out, size, dir, leaf);
}

void
_nn_user_data_dir (const char *leaf, char *out, size_t size)
{
  char base[PATH_SIZE];

  if (out == NULL || size == 0)
    return;
  _nn_os_data_home (base, sizeof base);
  if (!join_path (out, size, base, leaf))
    snprintf (out, size, "%s", base);
}

void
nn_dataset_user_dir (char *out, size_t size)
{
  _nn_user_data_dir ("datasets", out, size);
}

/* ---------------------------------------------------------------- IDX folders */

/* Find the four IDX files in `dir`. Returns how many are missing and, when
 * `missing` is not NULL, says so there: "missing NAME[.gz], NAME[.gz]",
 * then "NAME: why" for each name that is there but cannot be looked at (a
 * loop of links, no permission), "; "-separated. */
static int
idx_folder_find (const char *dir, char paths[4][PATH_SIZE], char *missing, size_t missing_size)
{
  int absent = 0;
  char gone[512] = "";          /* the names not there */
  char unreadable[1024] = "";   /* "NAME: why" of those there but unreadable */

  for (int i = 0; i < 4; i++)
    {
      char dotted[64];
      const char *names[2];
      bool found = false;
      char *dash;
      char why[PATH_SIZE + 64] = "";

      /* "train-images-idx3-ubyte" -> "train-images.idx3-ubyte" */
      snprintf (dotted, sizeof dotted, "%s", idx_names[i]);
      dash = strstr (dotted, "-idx");
      if (dash != NULL)
        *dash = '.';
      names[0] = idx_names[i];
      names[1] = dotted;
      for (int n = 0; n < 2 && !found; n++)
        for (int gz = 0; gz < 2 && !found; gz++)
          {
            int len = snprintf (paths[i], PATH_SIZE, "%s" SEP "%s%s", dir, names[n],
                                gz ? ".gz" : "");
            found = len > 0 && len < PATH_SIZE && is_file (paths[i]);
            if (!found && len > 0 && len < PATH_SIZE && why[0] == '\0'
                && _nn_os_path_kind (paths[i], NULL) == NN_OS_MISSING && errno != ENOENT
                && errno != ENOTDIR)
              snprintf (why, sizeof why, "%s%s: %s", names[n], gz ? ".gz" : "",
                        strerror (errno));
          }
      if (found)
        continue;
      paths[i][0] = '\0';
      absent++;
      size_t used = why[0] != '\0' ? strlen (unreadable) : strlen (gone);
      if (why[0] != '\0')
        snprintf (unreadable + used, sizeof unreadable - used, "%s%s", used > 0 ? "; " : "", why);
      else
        snprintf (gone + used, sizeof gone - used, "%s%s[.gz]", used > 0 ? ", " : "",
                  idx_names[i]);
    }
  if (missing != NULL && missing_size > 0)
    snprintf (missing, missing_size, "%s%s%s%s", gone[0] != '\0' ? "missing " : "", gone,
              gone[0] != '\0' && unreadable[0] != '\0' ? "; " : "", unreadable);
  return absent;
}

static NnStatus
load_idx_folder (const char *dir, NnDataset *ds, NnError *error)
{
  char (*paths)[PATH_SIZE];
  char missing[1024];
  NnStatus status;

  paths = malloc (4 * sizeof *paths);
  if (paths == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "%s: out of memory", dir);
  if (idx_folder_find (dir, paths, missing, sizeof missing) > 0)
    {
      free (paths);
      return _nn_error_set (error, NN_ERROR_IO, "%s: no IDX data set here: %s", dir, missing);
    }
  status = nn_dataset_load_idx_pair (paths[0], paths[1], &ds->train, error);
  if (status == NN_OK)
    status = nn_dataset_load_idx_pair (paths[2], paths[3], &ds->test, error);
  if (status == NN_OK
      && (ds->train.height != ds->test.height || ds->train.width != ds->test.width))
    status = _nn_error_set (error, NN_ERROR_FORMAT,
                            "%s: training images are %dx%d but test images %dx%d", dir,
                            ds->train.height, ds->train.width, ds->test.height, ds->test.width);
  free (paths);
  if (status != NN_OK)
    {
      _nn_split_clear (&ds->train);
      _nn_split_clear (&ds->test);
    }
  return status;
}

/* What load_idx_folder would load: the image files' headers, the labels. */
static NnStatus
peek_idx_folder (const char *dir, NnDatasetInfo *info, NnError *error)
{
  char (*paths)[PATH_SIZE];
  char missing[1024];
  NnIdxArray images[2], labels;
  bool seen[256] = { false };
  NnStatus status = NN_OK;

  paths = malloc (4 * sizeof *paths);
  if (paths == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "%s: out of memory", dir);
  if (idx_folder_find (dir, paths, missing, sizeof missing) > 0)
    {
      free (paths);
      return _nn_error_set (error, NN_ERROR_IO, "%s: no IDX data set here: %s", dir, missing);
    }
  for (int s = 0; s < 2 && status == NN_OK; s++)
    {
      status = _nn_idx_read_header (paths[2 * s], NN_IDX_IMAGES, &images[s], error);
      if (status == NN_OK)
        status = _nn_idx_read_file (paths[2 * s + 1], NN_IDX_LABELS, &labels, error);
      if (status != NN_OK)
        break;
      if (images[s].count != labels.count)
        status = _nn_error_set (error, NN_ERROR_FORMAT,
                                "%s has %d images but %s has %d labels; the counts must agree",
                                paths[2 * s], images[s].count, paths[2 * s + 1], labels.count);
      else
        _nn_labels_mark (seen, labels.data, labels.count);
      free (labels.data);
    }
  if (status == NN_OK
      && (images[0].height != images[1].height || images[0].width != images[1].width))
    status = _nn_error_set (error, NN_ERROR_FORMAT,
                            "%s: training images are %dx%d but test images %dx%d", dir,
                            images[0].height, images[0].width, images[1].height, images[1].width);
  free (paths);
  if (status != NN_OK)
    return status;
  info->channels = 1;
  info->height = images[0].height;
  info->width = images[0].width;
  info->train_count = images[0].count;
  info->test_count = images[1].count;
  _nn_dataset_info_set_classes (info, seen);
  return NN_OK;
}

/* ---------------------------------------------------------------- the usual places */

/* Add `text` to the end of `out`, cutting it where `out` is full. */
static void
append (char *out, size_t size, const char *text)
{
  size_t used = strlen (out);
  size_t n = strlen (text);

  if (used + 1 >= size)
    return;
  if (n > size - used - 1)
    n = size - used - 1;
  memcpy (out + used, text, n);
  out[used + n] = '\0';
}

/* Add one place to the "looked in" list. */
static void
append_place (char *looked, size_t size, const char *place)
{
  if (looked[0] != '\0')
    append (looked, size, "; ");
  append (looked, size, place);
}

/* A folder that may hold the IDX files or NAME.npz. */
static bool
check_folder (const char *dir, const char *name, char *found, size_t found_size, char *looked,
              size_t looked_size)
{
  char (*paths)[PATH_SIZE];
  char missing[1024] = "missing the IDX files";
  char leaf[80];
  char npz[PATH_SIZE];
  bool ok = false;

  if (!is_dir (dir))
    {
      append_place (looked, looked_size, dir);
      return false;
    }
  paths = malloc (4 * sizeof *paths);
  if (paths != NULL && idx_folder_find (dir, paths, missing, sizeof missing) == 0)
    {
      snprintf (found, found_size, "%s", dir);
      ok = true;
    }
  free (paths);
  if (ok)
    return true;
  snprintf (leaf, sizeof leaf, "%s.npz", name);
  if (join_path (npz, sizeof npz, dir, leaf) && is_file (npz))
    {
      snprintf (found, found_size, "%s", npz);
      return true;
    }
  append_place (looked, looked_size, dir);
  append (looked, looked_size, " (a folder without ");
  append (looked, looked_size, name);
  append (looked, looked_size, ".npz, and ");
  append (looked, looked_size, missing);
  append (looked, looked_size, ")");
  return false;
}

static bool
check_npz (const char *file, char *found, size_t found_size, char *looked, size_t looked_size)
{
  if (is_file (file))
    {
      snprintf (found, found_size, "%s", file);
      return true;
    }
  append_place (looked, looked_size, file);
  return false;
}

static int
known_index (const char *name)
{
  for (int i = 0; i < N_KNOWN; i++)
    if (strcmp (name, known_names[i]) == 0)
      return i;
  return -1;
}

bool
_nn_dataset_find (const char *name,
                  const char *system_dir,
                  char *found,
                  size_t found_size,
                  char *looked,
                  size_t looked_size)
{
  struct
  {
    char base[PATH_SIZE];
    char path[PATH_SIZE];
    char home[PATH_SIZE];
  } *buf;
  char *base, *path, *home;
  const char *env;
  char npz_name[80];
  bool ok = false;
  bool mnist;

  if (looked_size > 0)
    looked[0] = '\0';
  if (found_size > 0)
    found[0] = '\0';
  if (name == NULL || known_index (name) < 0)
    return false;
  mnist = strcmp (name, "mnist") == 0;

  buf = malloc (sizeof *buf);
  if (buf == NULL)
    return false;
  base = buf->base;
  path = buf->path;
  home = buf->home;
  _nn_os_home (home, PATH_SIZE);

  snprintf (npz_name, sizeof npz_name, "%s.npz", name);

  /* 1. $TRAINBENCH_DATA_DIR/NAME (folder) or NAME.npz */
  env = _nn_os_getenv ("TRAINBENCH_DATA_DIR", base, PATH_SIZE) && base[0] != '\0' ? base : NULL;
  if (env != NULL)
    {
      if (join_path (path, PATH_SIZE, env, name))
        ok = check_folder (path, name, found, found_size, looked, looked_size);
      if (!ok && join_path (path, PATH_SIZE, env, npz_name))
        ok = check_npz (path, found, found_size, looked, looked_size);
    }

  /* 2. the user's data folder, where Trainbench downloads to */
  if (!ok)
    {
      nn_dataset_user_dir (base, PATH_SIZE);
      if (join_path (path, PATH_SIZE, base, name))
        ok = check_folder (path, name, found, found_size, looked, looked_size);
      if (!ok && join_path (path, PATH_SIZE, base, npz_name))
        ok = check_npz (path, found, found_size, looked, looked_size);
    }

  /* 3. Keras' cache: mnist.npz for MNIST, a folder of IDX .gz files for
   *    Fashion-MNIST */
  if (!ok && home[0] != '\0' && join_path (base, PATH_SIZE, home, ".keras")
      && join_path (base, PATH_SIZE, base, "datasets"))
    {
      if (mnist && join_path (path, PATH_SIZE, base, "mnist.npz"))
        ok = check_npz (path, found, found_size, looked, looked_size);
      if (!ok && join_path (path, PATH_SIZE, base, name))
        ok = check_folder (path, name, found, found_size, looked, looked_size);
    }

  /* 4. the system's data sets (Debian's dataset-fashion-mnist) */
  if (!ok && system_dir != NULL && system_dir[0] != '\0'
      && join_path (path, PATH_SIZE, system_dir, name))
    ok = check_folder (path, name, found, found_size, looked, looked_size);

  free (buf);
  return ok;
}

static const char *
system_data_dir (void)
{
  return _nn_os_system_datasets ();
}

int
nn_dataset_list_known (NnDatasetLocation *out, int max)
{
  int n = 0;
  char looked[1024];

  if (out == NULL)
    return 0;
  for (int i = 0; i < N_KNOWN && n < max; i++, n++)
    {
      NnDatasetLocation *loc = &out[n];
      memset (loc, 0, sizeof *loc);
      snprintf (loc->name, sizeof loc->name, "%s", known_names[i]);
      loc->available = _nn_dataset_find (known_names[i], system_data_dir (), loc->path,
                                         sizeof loc->path, looked, sizeof looked);
      if (!loc->available)
        {
          loc->path[0] = '\0';
          append (loc->reason, sizeof loc->reason, "not found; looked in ");
          append (loc->reason, sizeof loc->reason, looked);
        }
    }
  return n;
}

/* ---------------------------------------------------------------- loading */

static bool
ends_with (const char *s, const char *suffix)
{
  size_t n = strlen (s), m = strlen (suffix);
  if (n < m)
    return false;
  for (size_t i = 0; i < m; i++)
    {
      char a = s[n - m + i], b = suffix[i];
      if (a >= 'A' && a <= 'Z')
        a = (char) (a - 'A' + 'a');
      if (a != b)
        return false;
    }
  return true;
}

/* Whether the file starts like a zip archive. */
static bool
looks_like_zip (const char *path)
{
  unsigned char head[4] = { 0 };
  FILE *f = _nn_os_open_regular (path, NULL, NULL);   /* never waits on a FIFO */
  bool zip;
  if (f == NULL)
    return false;
  zip = fread (head, 1, 4, f) == 4 && head[0] == 'P' && head[1] == 'K'
        && (head[2] == 3 || head[2] == 5) && (head[3] == 4 || head[3] == 6);
  fclose (f);
  return zip;
}

/* The last component of a path, without trailing separators. */
static void
path_base_name (const char *path, char *out, size_t size)
{
  size_t end = strlen (path);
  size_t start;

  while (end > 1 && _nn_os_is_separator (path[end - 1]))
    end--;
  start = end;
  while (start > 0 && !_nn_os_is_separator (path[start - 1]))
    start--;
  if (end - start >= size)
    end = start + size - 1;
  memcpy (out, path + start, end - start);
  out[end - start] = '\0';
}

/* Load what `path` holds: a folder of IDX files or an .npz file; or, when
 * `info` is not NULL (and `out` is), only read what it holds. */
static NnStatus
load_path (const char *path, NnDataset **out, NnDatasetInfo *info, NnError *error)
{
  NnDataset *ds;
  NnStatus status;
  NnOsKind kind = _nn_os_path_kind (path, NULL);

  if (kind == NN_OS_MISSING)
    /* why: not there, a loop of links, no permission */
    return _nn_error_set (error, NN_ERROR_IO, "%s: %s", path, strerror (errno));

  if (kind == NN_OS_OTHER)
    {
      /* a device, a FIFO, a socket: named, never opened (it is looked at
       * and refused before that) */
      const char *what = NULL;
      FILE *f = _nn_os_open_regular (path, NULL, &what);
      if (f != NULL)
        fclose (f);
      return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                            "%s: not a folder of IDX files or a .npz file: not a regular file "
                            "(%-s)", path, what != NULL ? what : NN_MESSAGE ("a device"));
    }
  if (kind != NN_OS_FOLDER)
    {
      if (ends_with (path, ".npz") || looks_like_zip (path))
        return info != NULL ? _nn_npz_peek (path, info, error)
                            : nn_dataset_load_npz (path, out, error);
      if (strstr (path, "idx") != NULL)
        return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                              "%s is a single IDX file; give the folder that holds the four "
                              "(train and t10k images and labels)",
                              path);
      return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                            "%s: not a folder of IDX files or a .npz file", path);
    }

  /* A folder without IDX files but with FOLDER.npz in it ("mnist/mnist.npz"),
   * as the name search accepts too. */
  {
    char base[64 + 4];
    char (*paths)[PATH_SIZE] = malloc (5 * sizeof *paths);
    bool use_npz = false;

    if (paths == NULL)
      return _nn_error_set (error, NN_ERROR_NO_MEMORY, "%s: out of memory", path);
    path_base_name (path, base, sizeof base - 4);
    strcat (base, ".npz");
    use_npz = join_path (paths[4], PATH_SIZE, path, base) && is_file (paths[4])
              && idx_folder_find (path, paths, NULL, 0) == 4;
    if (use_npz)
      status = info != NULL ? _nn_npz_peek (paths[4], info, error)
                            : nn_dataset_load_npz (paths[4], out, error);
    free (paths);
    if (use_npz)
      return status;
  }

  if (info != NULL)
    {
      status = peek_idx_folder (path, info, error);
      if (status == NN_OK)
        {
          path_base_name (path, info->name, sizeof info->name);
          snprintf (info->path, sizeof info->path, "%s", path);
        }
      return status;
    }

  ds = calloc (1, sizeof *ds);
  if (ds == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "%s: out of memory", path);
  status = load_idx_folder (path, ds, error);
  if (status != NN_OK)
    {
      free (ds);
      return status;
    }
  path_base_name (path, ds->name, sizeof ds->name);
  snprintf (ds->path, sizeof ds->path, "%s", path);
  ds->classes = _nn_dataset_count_classes (ds);
  *out = ds;
  return NN_OK;
}

/* nn_dataset_load, or with `info` nn_dataset_peek: the one place that
 * turns a name or a path into what is read. */
static NnStatus
open_dataset (const char *name_or_path, NnDataset **out, NnDatasetInfo *info, NnError *error)
{
  char *found, *looked, *user;
  NnStatus status;
  int known;

  if (name_or_path == NULL || name_or_path[0] == '\0')
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "no data set given");

  known = known_index (name_or_path);
  if (known < 0)
    return load_path (name_or_path, out, info, error);

  found = malloc (3 * PATH_SIZE);
  if (found == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory");
  looked = found + PATH_SIZE;
  user = found + 2 * PATH_SIZE;

  if (!_nn_dataset_find (name_or_path, system_data_dir (), found, PATH_SIZE, looked, PATH_SIZE))
    {
      nn_dataset_user_dir (user, PATH_SIZE);
      if (known == 0)
        status = _nn_error_set (error, NN_ERROR_UNAVAILABLE,
                                "%s is not installed: looked in %s. Put its four IDX files "
                                "(train-images-idx3-ubyte.gz, ...) or mnist.npz into %s%s%s, or "
                                "set TRAINBENCH_DATA_DIR",
                                name_or_path, looked, user, SEP, name_or_path);
      else
        status = _nn_error_set (error, NN_ERROR_UNAVAILABLE,
                                "%s is not installed: looked in %s. Put its four IDX files "
                                "(train-images-idx3-ubyte.gz, ...) into %s%s%s, or set "
                                "TRAINBENCH_DATA_DIR",
                                name_or_path, looked, user, SEP, name_or_path);
      free (found);
      return status;
    }

  status = load_path (found, out, info, error);
  if (status == NN_OK && info != NULL)
    snprintf (info->name, sizeof info->name, "%s", name_or_path);
  else if (status == NN_OK)
    snprintf ((*out)->name, sizeof (*out)->name, "%s", name_or_path);
  free (found);
  return status;
}

NnStatus
nn_dataset_load (const char *name_or_path, NnDataset **out, NnError *error)
{
  if (out == NULL)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "nn_dataset_load: no output");
  *out = NULL;
  return open_dataset (name_or_path, out, NULL, error);
}

NnStatus
nn_dataset_peek (const char *name_or_path, NnDatasetInfo *out, NnError *error)
{
  if (out == NULL)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "nn_dataset_peek: no output");
  memset (out, 0, sizeof *out);
  return open_dataset (name_or_path, NULL, out, error);
}

void
nn_dataset_free (NnDataset *dataset)
{
  if (dataset == NULL)
    return;
  free (dataset->train.images);
  free (dataset->train.labels);
  free (dataset->test.images);
  free (dataset->test.labels);
  free (dataset);
}

static void
truncate_split (NnSplit *split, int32_t keep)
{
  size_t sample;
  uint8_t *p;

  if (keep <= 0 || keep >= split->count)
    return;
  sample = (size_t) split->channels * (size_t) split->height * (size_t) split->width;
  split->count = keep;
  /* Give the memory back; when realloc cannot, the old block still works. */
  if (split->images != NULL && sample > 0)
    {
      p = realloc (split->images, sample * (size_t) keep);
      if (p != NULL)
        split->images = p;
    }
  if (split->labels != NULL)
    {
      p = realloc (split->labels, (size_t) keep);
      if (p != NULL)
        split->labels = p;
    }
}

void
nn_dataset_truncate (NnDataset *dataset, int32_t train, int32_t test)
{
  if (dataset == NULL)
    return;
  truncate_split (&dataset->train, train);
  truncate_split (&dataset->test, test);
}

int32_t
_nn_dataset_count_classes (const NnDataset *dataset)
{
  const NnSplit *splits[2] = { &dataset->train, &dataset->test };
  int32_t max = 0;

  for (int s = 0; s < 2; s++)
    for (int32_t i = 0; i < splits[s]->count; i++)
      if (splits[s]->labels[i] > max)
        max = splits[s]->labels[i];
  return max + 1 < 2 ? 2 : max + 1;
}

void
_nn_labels_mark (bool seen[256], const uint8_t *labels, int32_t count)
{
  for (int32_t i = 0; i < count; i++)
    seen[labels[i]] = true;
}

void
_nn_dataset_info_set_classes (NnDatasetInfo *out, const bool seen[256])
{
  int32_t largest = 0;

  out->labels_used = 0;
  for (int32_t label = 0; label < 256; label++)
    if (seen[label])
      {
        largest = label;
        out->labels_used++;
      }
  /* as _nn_dataset_count_classes counts a loaded data set's */
  out->classes = largest + 1 < 2 ? 2 : largest + 1;
}
