/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-dataset.c: finding data sets by name (TRAINBENCH_DATA_DIR, the user's
 * data folder, Keras' cache, the system folder), loading by path, the error
 * that lists where it looked, truncate, list_known, and the real
 * Fashion-MNIST from Debian's dataset-fashion-mnist package when installed.
 */

#define _DEFAULT_SOURCE

#include "test-util.h"
#include "nn-dataset-private.h"
#include "nn-os.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#ifndef _WIN32
#include <sys/stat.h>
#include <unistd.h>
#endif

/* Debian's dataset-fashion-mnist. Windows has no system folder of data
 * sets: there the test reaches this one through TRAINBENCH_DATA_DIR (under
 * wine the Linux folder is on drive Z:, the current one). */
#define SYSTEM_DATASETS "/usr/share/datasets"
#define FASHION_DIR SYSTEM_DATASETS "/fashion-mnist"

#define set_env test_setenv
#define exists test_exists

/* The home folder: HOME, and on Windows USERPROFILE. */
static void
set_home (const char *path)
{
  test_setenv ("HOME", path);
  test_setenv ("USERPROFILE", path);
}

/* mkdir -p for a path under the test folder ('/' or the system's separator) */
static void
make_dirs (const char *path)
{
  char buf[4096];
  snprintf (buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p != '\0'; p++)
    if (*p == '/' || *p == TEST_SEP[0])
      {
        char c = *p;
        *p = '\0';
        test_make_folder (buf);
        *p = c;
      }
  test_make_folder (buf);
}

/* `data` as a gzip file at `path` (by UTF-8 name, which gzopen cannot take
 * on Windows). */
static bool
write_gzip (const char *path, const uint8_t *data, size_t size)
{
  z_stream z;
  memset (&z, 0, sizeof z);
  if (deflateInit2 (&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return false;
  size_t cap = deflateBound (&z, (uLong) size) + 64;
  uint8_t *out = malloc (cap);
  z.next_in = (Bytef *) data;
  z.avail_in = (uInt) size;
  z.next_out = out;
  z.avail_out = (uInt) cap;
  bool ok = out != NULL && deflate (&z, Z_FINISH) == Z_STREAM_END;
  ok = ok && test_write_file (path, out, cap - z.avail_out);
  deflateEnd (&z);
  free (out);
  return ok;
}

static void
write_idx (const char *path, uint32_t magic, int ndims, const uint32_t *dims, uint8_t fill,
           bool gz)
{
  uint64_t n = 1;
  size_t header = 4 + 4 * (size_t) ndims;
  uint8_t *buf;

  for (int i = 0; i < ndims; i++)
    n *= dims[i];
  buf = malloc (header + n);
  for (int i = 0; i <= ndims; i++)
    {
      uint32_t v = i == 0 ? magic : dims[i - 1];
      buf[4 * i] = (uint8_t) (v >> 24);
      buf[4 * i + 1] = (uint8_t) (v >> 16);
      buf[4 * i + 2] = (uint8_t) (v >> 8);
      buf[4 * i + 3] = (uint8_t) v;
    }
  for (uint64_t i = 0; i < n; i++)
    buf[header + i] = (uint8_t) (fill + i % 3); /* labels fill, fill+1, fill+2, ... */
  if (gz)
    write_gzip (path, buf, header + n);
  else
    test_write_file (path, buf, header + n);
  free (buf);
}

/* The four IDX files of a data set in `dir`: train and test counts, h x w
 * images, labels 0..2 plus `label_base`. `style` 0: raw, 1: .gz, 2: dotted
 * names raw ("train-images.idx3-ubyte"). `only_train` leaves out the test files. */
static void
write_idx_set (const char *dir, uint32_t train, uint32_t test, uint32_t h, uint32_t w,
               uint8_t label_base, int style, bool only_train)
{
  char path[4096];
  const char *suffix = style == 1 ? ".gz" : "";
  const char *sep = style == 2 ? "." : "-";
  uint32_t idims[2][3] = { { train, h, w }, { test, h, w } };
  const char *split[2] = { "train", "t10k" };

  make_dirs (dir);
  for (int s = 0; s < (only_train ? 1 : 2); s++)
    {
      snprintf (path, sizeof path, "%s" TEST_SEP "%s-images%sidx3-ubyte%s", dir, split[s], sep,
                suffix);
      write_idx (path, 0x00000803, 3, idims[s], 100, style == 1);
      snprintf (path, sizeof path, "%s" TEST_SEP "%s-labels%sidx1-ubyte%s", dir, split[s], sep,
                suffix);
      write_idx (path, 0x00000801, 1, idims[s], label_base, style == 1);
    }
}

static bool
contains (const char *text, const char *part)
{
  bool ok = strstr (text, part) != NULL;
  if (!ok)
    tap_diag ("'%s' is not in: %s", part, text);
  return ok;
}

int
main (void)
{
  char home[4096], data[4096], system_dir[4096], user[4096], found[4096], looked[4096];
  char path[8192];
  NnDataset *ds;
  NnError e;
  NnStatus status;
  /* /usr/share/datasets is the system folder on Linux only */
  bool system_mnist = _nn_os_system_datasets () != NULL && exists (SYSTEM_DATASETS "/mnist");

  test_isolate_home ();
  snprintf (home, sizeof home, "%s", test_path ("home"));
  snprintf (data, sizeof data, "%s", test_path ("data"));
  snprintf (system_dir, sizeof system_dir, "%s", test_path ("system"));
  make_dirs (home);
  make_dirs (data);
  make_dirs (system_dir);
  set_env ("XDG_DATA_HOME", NULL);
  set_env ("TRAINBENCH_DATA_DIR", data);

  /* ---- the user's data folder */
  nn_dataset_user_dir (user, sizeof user);
#ifdef _WIN32
  snprintf (path, sizeof path, "%s", test_path ("home/local/Trainbench/datasets"));
  tap_ok (strcmp (user, path) == 0,
          "user dir defaults to %%LOCALAPPDATA%%\\Trainbench\\datasets (%s)", user);
  set_env ("XDG_DATA_HOME", "D:\\srv\\xdg");
  nn_dataset_user_dir (found, sizeof found);
  tap_ok (strcmp (found, "D:\\srv\\xdg\\trainbench\\datasets") == 0,
          "user dir follows an absolute XDG_DATA_HOME, as GLib does (%s)", found);
#else
  snprintf (path, sizeof path, "%s/.local/share/trainbench/datasets", home);
  tap_ok (strcmp (user, path) == 0, "user dir defaults to ~/.local/share/trainbench/datasets");
  set_env ("XDG_DATA_HOME", "/srv/xdg");
  nn_dataset_user_dir (found, sizeof found);
  tap_ok (strcmp (found, "/srv/xdg/trainbench/datasets") == 0,
          "user dir follows XDG_DATA_HOME (%s)", found);
#endif
  set_env ("XDG_DATA_HOME", "relative/dir");
  nn_dataset_user_dir (found, sizeof found);
  tap_ok (strcmp (found, user) == 0, "a relative XDG_DATA_HOME is ignored, as the spec says");
  set_env ("XDG_DATA_HOME", NULL);

  /* ---- nothing anywhere: the error lists every place */
  tap_ok (!_nn_dataset_find ("mnist", system_dir, found, sizeof found, looked, sizeof looked),
          "mnist is not found in empty folders");
  snprintf (path, sizeof path, "%s" TEST_SEP "mnist", data);
  {
    char keras[8192], sys[8192], usr[8192];
    snprintf (keras, sizeof keras, "%s" TEST_SEP ".keras" TEST_SEP "datasets" TEST_SEP "mnist.npz",
              home);
    snprintf (sys, sizeof sys, "%s" TEST_SEP "mnist", system_dir);
    snprintf (usr, sizeof usr, "%s" TEST_SEP "mnist", user);
    tap_ok (contains (looked, path) && contains (looked, keras) && contains (looked, sys)
              && contains (looked, usr),
            "the places looked at are listed: TRAINBENCH_DATA_DIR, user dir, Keras, system");
  }
  if (!system_mnist)
    {
      status = nn_dataset_load ("mnist", &ds, &e);
      tap_ok (status == NN_ERROR_UNAVAILABLE && ds == NULL && contains (e.message, path)
                && contains (e.message, home) && contains (e.message, "TRAINBENCH_DATA_DIR"),
              "nn_dataset_load(\"mnist\") is unavailable and says where it looked");
      tap_diag ("%s", e.message);
    }
  else
    tap_skip ("/usr/share/datasets/mnist exists on this machine",
              "nn_dataset_load(\"mnist\") unavailable error");

  /* ---- Keras' cache */
  snprintf (path, sizeof path, "%s" TEST_SEP ".keras" TEST_SEP "datasets", home);
  make_dirs (path);
  snprintf (path, sizeof path, "%s" TEST_SEP ".keras" TEST_SEP "datasets" TEST_SEP "mnist.npz",
            home);
  test_write_file (path, "PK", 2);
  tap_ok (_nn_dataset_find ("mnist", system_dir, found, sizeof found, looked, sizeof looked)
            && strcmp (found, path) == 0,
          "~/.keras/datasets/mnist.npz is found");
  status = nn_dataset_load ("mnist", &ds, &e);
  tap_ok (status == NN_ERROR_FORMAT && contains (e.message, path),
          "a broken file in a usual place is reported, not skipped");

  /* ---- the system folder comes last */
  write_idx_set (test_path ("system/fashion-mnist"), 4, 2, 3, 3, 0, 1, false);
  tap_ok (_nn_dataset_find ("fashion-mnist", system_dir, found, sizeof found, looked,
                            sizeof looked)
            && strcmp (found, test_path ("system/fashion-mnist")) == 0,
          "the system folder is searched");

  /* ---- TRAINBENCH_DATA_DIR comes first: IDX .gz files */
  snprintf (path, sizeof path, "%s" TEST_SEP "mnist", data);
  write_idx_set (path, 6, 4, 5, 7, 0, 1, false);
  tap_ok (_nn_dataset_find ("mnist", system_dir, found, sizeof found, looked, sizeof looked)
            && strcmp (found, path) == 0,
          "$TRAINBENCH_DATA_DIR/mnist wins over Keras' cache");
  ds = NULL;
  status = nn_dataset_load ("mnist", &ds, &e);
  if (tap_ok (status == NN_OK && ds != NULL, "nn_dataset_load(\"mnist\") loads it"))
    {
      tap_ok (strcmp (ds->name, "mnist") == 0 && strcmp (ds->path, path) == 0,
              "name mnist, path %s", ds->path);
      tap_ok (ds->train.count == 6 && ds->test.count == 4 && ds->train.height == 5
                && ds->train.width == 7 && ds->train.channels == 1 && ds->classes == 3
                && ds->train.labels[4] == 1 && ds->train.images[0] == 100,
              "counts, shape, labels and classes are right");
      nn_dataset_free (ds);
    }
  else
    tap_diag ("%s", e.message);

  /* NAME.npz in TRAINBENCH_DATA_DIR (beside or inside the folder) */
  snprintf (path, sizeof path, "%s" TEST_SEP "fashion-mnist.npz", data);
  test_write_file (path, "PK", 2);
  tap_ok (_nn_dataset_find ("fashion-mnist", system_dir, found, sizeof found, looked,
                            sizeof looked)
            && strcmp (found, path) == 0,
          "$TRAINBENCH_DATA_DIR/fashion-mnist.npz is found");
  remove (path);

  /* ---- the user's folder: dotted names, raw */
  snprintf (path, sizeof path, "%s" TEST_SEP "fashion-mnist", user);
  write_idx_set (path, 3, 2, 2, 2, 5, 2, false);
  ds = NULL;
  status = nn_dataset_load ("fashion-mnist", &ds, &e);
  if (tap_ok (status == NN_OK && ds != NULL && strcmp (ds->path, path) == 0
                && strcmp (ds->name, "fashion-mnist") == 0 && ds->classes == 8
                && ds->train.count == 3,
              "the user's folder wins over the system's; dotted names are found"))
    nn_dataset_free (ds);
  else
    tap_diag ("%s", e.message);

  /* ---- an incomplete folder is skipped but named with what it lacks */
  set_env ("TRAINBENCH_DATA_DIR", test_path ("data2"));
  write_idx_set (test_path ("data2/mnist"), 3, 2, 2, 2, 0, 0, true);
  tap_ok (_nn_dataset_find ("mnist", system_dir, found, sizeof found, looked, sizeof looked)
            && contains (looked, "t10k-images-idx3-ubyte[.gz], t10k-labels-idx1-ubyte[.gz]"),
          "an incomplete folder is listed with the files it lacks");
  status = nn_dataset_load (test_path ("data2/mnist"), &ds, &e);
  tap_ok (status == NN_ERROR_IO && ds == NULL && contains (e.message, test_path ("data2/mnist"))
            && contains (e.message, "missing t10k-images-idx3-ubyte[.gz]"),
          "loading an incomplete folder by path says which files are missing");

  /* ---- NAME/NAME.npz: by name, and by the folder's path */
  {
    size_t n;
    char *npz = test_read_file (FIXTURES_DIR "/numpy-savez-compressed.npz", &n);
    char dir[4096];
    snprintf (dir, sizeof dir, "%s", test_path ("data3/mnist"));
    make_dirs (dir);
    snprintf (path, sizeof path, "%s" TEST_SEP "mnist.npz", dir);
    tap_ok (npz != NULL && test_write_file (path, npz, n), "the numpy-written fixture is there");
    free (npz);
    set_env ("TRAINBENCH_DATA_DIR", test_path ("data3"));
    ds = NULL;
    status = nn_dataset_load ("mnist", &ds, &e);
    tap_ok (status == NN_OK && ds != NULL && strcmp (ds->path, path) == 0
              && strcmp (ds->name, "mnist") == 0 && ds->train.count == 2 && ds->classes == 8,
            "$TRAINBENCH_DATA_DIR/mnist/mnist.npz loads by name");
    nn_dataset_free (ds);
    ds = NULL;
    status = nn_dataset_load (dir, &ds, &e);
    tap_ok (status == NN_OK && ds != NULL && strcmp (ds->path, path) == 0
              && ds->test.count == 1,
            "a folder holding only FOLDER.npz loads by path");
    nn_dataset_free (ds);
    set_env ("TRAINBENCH_DATA_DIR", test_path ("data2"));
  }

  /* ---- by path */
  snprintf (path, sizeof path, "%s" TEST_SEP, test_path ("my-set"));
  write_idx_set (test_path ("my-set"), 2, 1, 2, 3, 1, 0, false);
  ds = NULL;
  status = nn_dataset_load (path, &ds, &e);
  tap_ok (status == NN_OK && ds != NULL && strcmp (ds->name, "my-set") == 0
            && strcmp (ds->path, path) == 0 && ds->classes == 3 && ds->test.count == 1,
          "a folder path loads, named by its base name (%s)", ds != NULL ? ds->name : "-");
  nn_dataset_free (ds);

  /* ---- peek: what a data set holds, read without its images */
  {
    NnDatasetInfo info;
    char dir[4096];

    status = nn_dataset_peek (path, &info, &e);
    tap_ok (status == NN_OK && strcmp (info.name, "my-set") == 0 && strcmp (info.path, path) == 0
              && info.channels == 1 && info.height == 2 && info.width == 3
              && info.train_count == 2 && info.test_count == 1 && info.classes == 3
              && info.labels_used == 2,
            "peek of an IDX folder: name, path, 1x2x3, 2 + 1 samples, 3 classes, 2 labels used "
            "(%s)", status == NN_OK ? info.name : e.message);
    status = nn_dataset_peek (test_path ("no-such-thing"), &info, &e);
    tap_ok (status == NN_ERROR_IO && contains (e.message, test_path ("no-such-thing")),
            "peek of a missing path is load's I/O error naming it");
    status = nn_dataset_peek (test_path ("data2/mnist"), &info, &e);
    tap_ok (status == NN_ERROR_IO && contains (e.message, "missing t10k-images-idx3-ubyte[.gz]"),
            "peek of an incomplete folder says which files are missing");

    /* the images are not read: a gzip stream cut short after the header
     * is found by load, not by peek */
    snprintf (dir, sizeof dir, "%s", test_path ("short-images"));
    write_idx_set (dir, 4, 2, 2, 3, 0, 1, false);
    {
      uint8_t head[16 + 5] = { 0, 0, 8, 3, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 3 };
      char file[8192];
      snprintf (file, sizeof file, "%s" TEST_SEP "train-images-idx3-ubyte.gz", dir);
      write_gzip (file, head, sizeof head);
    }
    status = nn_dataset_peek (dir, &info, &e);
    tap_ok (status == NN_OK && info.train_count == 4 && info.height == 2 && info.width == 3,
            "peek reads the images' header only (%s)", status == NN_OK ? "ok" : e.message);
    ds = NULL;
    status = nn_dataset_load (dir, &ds, &e);
    tap_ok (status == NN_ERROR_FORMAT && ds == NULL && contains (e.message, "truncated"),
            "load finds the images cut short");

    snprintf (dir, sizeof dir, "%s", test_path ("peek-mixed"));
    write_idx_set (dir, 2, 1, 2, 3, 0, 0, false);
    {
      uint32_t dims[3] = { 1, 3, 2 };
      char file[8192];
      snprintf (file, sizeof file, "%s" TEST_SEP "t10k-images-idx3-ubyte", dir);
      write_idx (file, 0x00000803, 3, dims, 0, false);
    }
    status = nn_dataset_peek (dir, &info, &e);
    tap_ok (status == NN_ERROR_FORMAT
              && contains (e.message, "training images are 2x3 but test images 3x2"),
            "peek: train and test image sizes must agree");

    snprintf (dir, sizeof dir, "%s", test_path ("peek-counts"));
    write_idx_set (dir, 3, 2, 2, 2, 0, 0, false);
    {
      uint32_t dims[1] = { 5 };
      char file[8192];
      snprintf (file, sizeof file, "%s" TEST_SEP "train-labels-idx1-ubyte", dir);
      write_idx (file, 0x00000801, 1, dims, 0, false);
    }
    status = nn_dataset_peek (dir, &info, &e);
    tap_ok (status == NN_ERROR_FORMAT && contains (e.message, "has 3 images")
              && contains (e.message, "has 5 labels"),
            "peek: image and label counts must agree: %s", e.message);

    /* an .npz, by name: the .npy headers and the labels */
    set_env ("TRAINBENCH_DATA_DIR", test_path ("data3"));
    status = nn_dataset_peek ("mnist", &info, &e);
    snprintf (dir, sizeof dir, "%s" TEST_SEP "mnist.npz", test_path ("data3/mnist"));
    ds = NULL;
    if (nn_dataset_load ("mnist", &ds, &e) != NN_OK)
      ds = NULL;
    tap_ok (status == NN_OK && ds != NULL && strcmp (info.name, "mnist") == 0
              && strcmp (info.path, dir) == 0 && info.train_count == ds->train.count
              && info.test_count == ds->test.count && info.height == ds->train.height
              && info.width == ds->train.width && info.channels == 1
              && info.classes == ds->classes,
            "peek of mnist.npz by name holds what load reads (%d + %d, %dx%d, %d classes)",
            info.train_count, info.test_count, info.height, info.width, info.classes);
    nn_dataset_free (ds);
    set_env ("TRAINBENCH_DATA_DIR", test_path ("data2"));
  }

  status = nn_dataset_load (test_path ("no-such-thing"), &ds, &e);
  tap_ok (status == NN_ERROR_IO && ds == NULL && contains (e.message, test_path ("no-such-thing")),
          "a missing path is an I/O error naming it");
  snprintf (path, sizeof path, "%s" TEST_SEP "train-images-idx3-ubyte", test_path ("my-set"));
  status = nn_dataset_load (path, &ds, &e);
  tap_ok (status == NN_ERROR_INVALID_ARGUMENT && contains (e.message, "give the folder"),
          "a single IDX file asks for its folder");
  test_write_file (test_path ("notes.txt"), "hello", 5);
  status = nn_dataset_load (test_path ("notes.txt"), &ds, &e);
  tap_ok (status == NN_ERROR_INVALID_ARGUMENT && contains (e.message, "notes.txt"),
          "another file is refused with its name");
  status = nn_dataset_load ("", &ds, &e);
  tap_ok (status == NN_ERROR_INVALID_ARGUMENT, "an empty name is refused");

  /* ---- files that are not regular files: refused, never waited on or
   * read without end (SIGALRM ends the test if one blocks) */
#ifndef _WIN32
  alarm (30);
  mkfifo (test_path ("fifo.npz"), 0600);
  status = nn_dataset_load (test_path ("fifo.npz"), &ds, &e);
  tap_ok (status != NN_OK && ds == NULL && contains (e.message, "FIFO"),
          "a FIFO named .npz is refused, not waited on: %s", e.message);
  mkfifo (test_path ("fifo-data"), 0600);
  status = nn_dataset_load (test_path ("fifo-data"), &ds, &e);
  tap_ok (status != NN_OK && ds == NULL && contains (e.message, "not a regular file"),
          "a FIFO as the data set is refused: %s", e.message);
  symlink ("/dev/zero", test_path ("zero.npz"));
  status = nn_dataset_load (test_path ("zero.npz"), &ds, &e);
  tap_ok (status != NN_OK && ds == NULL && contains (e.message, "character device"),
          "/dev/zero behind an .npz name is refused, not read: %s", e.message);
  write_idx_set (test_path ("fifo-set"), 2, 1, 2, 3, 1, 0, false);
  snprintf (path, sizeof path, "%s" TEST_SEP "t10k-labels-idx1-ubyte", test_path ("fifo-set"));
  remove (path);
  mkfifo (path, 0600);
  status = nn_dataset_load (test_path ("fifo-set"), &ds, &e);
  tap_ok (status != NN_OK && ds == NULL && contains (e.message, "t10k-labels-idx1-ubyte")
            && contains (e.message, "FIFO"),
          "a FIFO among the IDX files is refused, named: %s", e.message);
  remove (path);
  symlink ("/dev/zero", path);
  status = nn_dataset_load (test_path ("fifo-set"), &ds, &e);
  tap_ok (status != NN_OK && ds == NULL && contains (e.message, "character device"),
          "/dev/zero among the IDX files is refused: %s", e.message);
  alarm (0);
#else
  status = nn_dataset_load_npz ("NUL", &ds, &e);
  tap_ok (status != NN_OK && ds == NULL && contains (e.message, "not a regular file"),
          "the NUL device as an .npz file is refused: %s", e.message);
#endif

  /* train and test images of different sizes */
  write_idx_set (test_path ("mixed"), 2, 1, 2, 3, 0, 0, false);
  {
    uint32_t dims[3] = { 1, 3, 2 };
    snprintf (path, sizeof path, "%s" TEST_SEP "t10k-images-idx3-ubyte", test_path ("mixed"));
    write_idx (path, 0x00000803, 3, dims, 0, false);
  }
  status = nn_dataset_load (test_path ("mixed"), &ds, &e);
  tap_ok (status == NN_ERROR_FORMAT && contains (e.message, "training images are 2x3 but test images 3x2"),
          "train and test image sizes must agree");

  /* ---- list_known */
  set_env ("TRAINBENCH_DATA_DIR", data);
  {
    NnDatasetLocation loc[4];
    int n = nn_dataset_list_known (loc, 4);
    snprintf (path, sizeof path, "%s" TEST_SEP "mnist", data);
    tap_ok (n == 2 && strcmp (loc[0].name, "mnist") == 0 && loc[0].available
              && strcmp (loc[0].path, path) == 0 && strcmp (loc[1].name, "fashion-mnist") == 0
              && loc[1].available,
            "list_known lists mnist and fashion-mnist where they are");
    tap_ok (nn_dataset_list_known (loc, 1) == 1 && nn_dataset_list_known (loc, 0) == 0,
            "list_known writes at most max entries");
    set_env ("TRAINBENCH_DATA_DIR", test_path ("empty"));
    set_home (test_path ("empty-home"));
    n = nn_dataset_list_known (loc, 4);
    if (!system_mnist)
      tap_ok (n == 2 && !loc[0].available && loc[0].path[0] == '\0'
                && contains (loc[0].reason, "not found; looked in")
                && contains (loc[0].reason, test_path ("empty")),
              "an absent data set says where it looked (%s)", loc[0].reason);
    else
      tap_skip ("/usr/share/datasets/mnist exists on this machine", "list_known unavailable");
  }

  /* ---- truncate, classes, free */
  ds = test_make_dataset (100, 50, 4, 1, 6, 6, 7);
  {
    uint8_t first[10 * 36 + 10];
    memcpy (first, ds->train.images, 10 * 36);
    memcpy (first + 10 * 36, ds->train.labels, 10);
    nn_dataset_truncate (ds, 10, 0);
    tap_ok (memcmp (ds->train.images, first, 10 * 36) == 0
              && memcmp (ds->train.labels, first + 10 * 36, 10) == 0 && ds->classes == 4,
            "truncate keeps the first samples as they were, and the class count");
  }
  tap_ok (ds->train.count == 10 && ds->test.count == 50, "truncate(10, 0) keeps 10 and all 50");
  nn_dataset_truncate (ds, 0, 5);
  tap_ok (ds->train.count == 10 && ds->test.count == 5, "truncate(0, 5) keeps 10 and 5");
  nn_dataset_truncate (ds, 1000, -3);
  tap_ok (ds->train.count == 10 && ds->test.count == 5, "more than there is, or negative, keeps all");
  memset (ds->train.labels, 0, 10);
  memset (ds->test.labels, 0, 5);
  tap_ok (_nn_dataset_count_classes (ds) == 2, "classes are at least 2");
  ds->test.labels[4] = 9;
  tap_ok (_nn_dataset_count_classes (ds) == 10, "classes = 1 + the largest label of both splits");
  nn_dataset_free (ds);
  nn_dataset_free (NULL);

  /* ---- a data set under a name that is not ASCII (a user called 张伟) */
  {
    char dir[4096];
    snprintf (dir, sizeof dir, "%s", test_path ("\xe5\xbc\xa0\xe4\xbc\x9f/\xe6\x95\xb0\xe6\x8d\xae"));
    write_idx_set (dir, 3, 2, 2, 2, 0, 1, false);
    ds = NULL;
    status = nn_dataset_load (dir, &ds, &e);
    tap_ok (status == NN_OK && ds != NULL && strcmp (ds->path, dir) == 0
              && strcmp (ds->name, "\xe6\x95\xb0\xe6\x8d\xae") == 0 && ds->train.count == 3,
            "a folder named 张伟/数据 loads by path (%s)", status == NN_OK ? ds->name : e.message);
    nn_dataset_free (ds);
    set_env ("TRAINBENCH_DATA_DIR", test_path ("\xe5\xbc\xa0\xe4\xbc\x9f"));
    snprintf (dir, sizeof dir, "%s", test_path ("\xe5\xbc\xa0\xe4\xbc\x9f/mnist"));
    write_idx_set (dir, 4, 2, 2, 2, 0, 1, false);
    ds = NULL;
    status = nn_dataset_load ("mnist", &ds, &e);
    tap_ok (status == NN_OK && ds != NULL && strcmp (ds->path, dir) == 0 && ds->train.count == 4,
            "TRAINBENCH_DATA_DIR=...张伟 finds mnist there (%s)",
            status == NN_OK ? ds->path : e.message);
    nn_dataset_free (ds);
  }

  /* ---- the real Fashion-MNIST (Debian's dataset-fashion-mnist) */
  if (exists (FASHION_DIR))
    {
      char fashion[4096];
      set_home (test_path ("empty-home"));
      if (_nn_os_system_datasets () != NULL)
        {
          set_env ("TRAINBENCH_DATA_DIR", NULL);
          snprintf (fashion, sizeof fashion, "%s", FASHION_DIR);
        }
      else
        {
          set_env ("TRAINBENCH_DATA_DIR", SYSTEM_DATASETS);
          snprintf (fashion, sizeof fashion, "%s", SYSTEM_DATASETS TEST_SEP "fashion-mnist");
        }
      ds = NULL;
      status = nn_dataset_load ("fashion-mnist", &ds, &e);
      if (tap_ok (status == NN_OK && ds != NULL, "Fashion-MNIST loads from %s", fashion))
        {
          uint8_t head[16 + 784];
          uint8_t lab[9];
          gzFile f;
          tap_ok (strcmp (ds->path, fashion) == 0 && strcmp (ds->name, "fashion-mnist") == 0,
                  "its name and path");
          tap_ok (ds->train.count == 60000 && ds->test.count == 10000, "60000 + 10000 samples");
          tap_ok (ds->train.height == 28 && ds->train.width == 28 && ds->train.channels == 1
                    && ds->test.height == 28,
                  "28x28, one channel");
          tap_ok (ds->classes == 10, "10 classes");
          bool read_ok;
          memset (lab, 0xff, sizeof lab);
          f = gzopen (FASHION_DIR "/train-labels-idx1-ubyte.gz", "rb");
          read_ok = f != NULL && gzread (f, lab, 9) == 9;
          tap_ok (read_ok && ds->train.labels[0] == lab[8],
                  "the first training label is the file's byte (%d)", lab[8]);
          if (f != NULL)
            gzclose (f);
          f = gzopen (FASHION_DIR "/t10k-images-idx3-ubyte.gz", "rb");
          tap_ok (f != NULL && gzread (f, head, sizeof head) == (int) sizeof head
                    && memcmp (ds->test.images, head + 16, 784) == 0,
                  "the first test image is the file's bytes");
          if (f != NULL)
            gzclose (f);
          nn_dataset_free (ds);
        }
      else
        tap_diag ("%s", e.message);
    }
  else
    tap_skip ("the dataset-fashion-mnist package is not installed (" FASHION_DIR ")",
              "loading the real Fashion-MNIST");

  return tap_done ();
}
