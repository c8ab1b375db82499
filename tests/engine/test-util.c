/* test-util.c: TAP output, temporary files and synthetic data for the tests. */

#define _GNU_SOURCE

#include "test-util.h"

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int tap_count;
static int tap_failed;
static char tmpdir[4096];

bool
tap_ok (bool ok, const char *format, ...)
{
  va_list args;
  tap_count++;
  printf ("%s %d - ", ok ? "ok" : "not ok", tap_count);
  va_start (args, format);
  vprintf (format, args);
  va_end (args);
  printf ("\n");
  fflush (stdout);
  if (!ok)
    tap_failed++;
  return ok;
}

void
tap_diag (const char *format, ...)
{
  va_list args;
  printf ("# ");
  va_start (args, format);
  vprintf (format, args);
  va_end (args);
  printf ("\n");
  fflush (stdout);
}

void
tap_skip (const char *reason, const char *format, ...)
{
  va_list args;
  tap_count++;
  printf ("ok %d - ", tap_count);
  va_start (args, format);
  vprintf (format, args);
  va_end (args);
  printf (" # SKIP %s\n", reason);
  fflush (stdout);
}

bool
tap_close (double a, double b, double rtol, double atol, const char *format, ...)
{
  char what[512];
  va_list args;
  bool ok = isfinite (a) && isfinite (b) && fabs (a - b) <= atol + rtol * fabs (b);
  va_start (args, format);
  vsnprintf (what, sizeof what, format, args);
  va_end (args);
  if (!ok)
    tap_diag ("%s: got %.9g, expected %.9g", what, a, b);
  return tap_ok (ok, "%s", what);
}

static void
remove_tree (const char *path)
{
  DIR *dir = opendir (path);
  struct dirent *entry;
  if (dir == NULL)
    {
      unlink (path);
      return;
    }
  while ((entry = readdir (dir)) != NULL)
    {
      char child[8192];
      if (strcmp (entry->d_name, ".") == 0 || strcmp (entry->d_name, "..") == 0)
        continue;
      snprintf (child, sizeof child, "%s/%s", path, entry->d_name);
      remove_tree (child);
    }
  closedir (dir);
  rmdir (path);
}

int
tap_done (void)
{
  printf ("1..%d\n", tap_count);
  if (tmpdir[0] != '\0' && getenv ("KEEP_TEST_FILES") == NULL)
    remove_tree (tmpdir);
  return tap_failed == 0 && tap_count > 0 ? 0 : 1;
}

const char *
test_tmpdir (void)
{
  if (tmpdir[0] == '\0')
    {
      const char *base = getenv ("TMPDIR");
      snprintf (tmpdir, sizeof tmpdir, "%s/trainbench-test-XXXXXX", base ? base : "/tmp");
      if (mkdtemp (tmpdir) == NULL)
        {
          printf ("Bail out! cannot make a temporary folder\n");
          exit (1);
        }
    }
  return tmpdir;
}

const char *
test_path (const char *name)
{
  static char buffers[8][8192];
  static int next;
  char *out = buffers[next++ % 8];
  snprintf (out, sizeof buffers[0], "%s/%s", test_tmpdir (), name);
  return out;
}

bool
test_write_file (const char *path, const void *data, size_t size)
{
  FILE *f = fopen (path, "wb");
  bool ok;
  if (f == NULL)
    return false;
  ok = fwrite (data, 1, size, f) == size;
  return fclose (f) == 0 && ok;
}

char *
test_read_file (const char *path, size_t *size)
{
  FILE *f = fopen (path, "rb");
  char *data = NULL;
  size_t used = 0, cap = 0, got;
  if (f == NULL)
    return NULL;
  do
    {
      if (used + 4096 + 1 > cap)
        {
          cap = cap ? cap * 2 : 65536;
          data = realloc (data, cap);
        }
      got = fread (data + used, 1, cap - used - 1, f);
      used += got;
    }
  while (got > 0);
  fclose (f);
  data[used] = '\0';
  if (size)
    *size = used;
  return data;
}

static uint64_t
splitmix (uint64_t *state)
{
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

float
test_randf (uint64_t *state, float lo, float hi)
{
  return lo + (hi - lo) * (float) (splitmix (state) >> 40) * (1.0f / 16777216.0f);
}

static void
fill_split (NnSplit *split, int32_t count, int32_t classes, int32_t c, int32_t h, int32_t w,
            uint64_t *state)
{
  size_t sample = (size_t) c * h * w;
  split->count = count;
  split->channels = c;
  split->height = h;
  split->width = w;
  split->images = malloc (sample * (size_t) count);
  split->labels = malloc ((size_t) count);
  for (int32_t i = 0; i < count; i++)
    {
      int label = (int) (splitmix (state) % (uint64_t) classes);
      uint8_t *img = split->images + sample * (size_t) i;
      /* each class lights a different horizontal band of rows */
      int band = h / classes > 0 ? h / classes : 1;
      split->labels[i] = (uint8_t) label;
      for (int32_t ch = 0; ch < c; ch++)
        for (int32_t y = 0; y < h; y++)
          for (int32_t x = 0; x < w; x++)
            {
              float v = test_randf (state, 0.0f, 60.0f);
              if (y / band == label)
                v += 160.0f;
              img[((size_t) ch * h + y) * w + x] = (uint8_t) v;
            }
    }
}

NnDataset *
test_make_dataset (int32_t train, int32_t test, int32_t classes, int32_t c, int32_t h, int32_t w,
                   uint64_t seed)
{
  NnDataset *ds = calloc (1, sizeof *ds);
  uint64_t state = seed;
  snprintf (ds->name, sizeof ds->name, "synthetic");
  snprintf (ds->path, sizeof ds->path, "(made by the test)");
  ds->classes = classes;
  fill_split (&ds->train, train, classes, c, h, w, &state);
  fill_split (&ds->test, test, classes, c, h, w, &state);
  return ds;
}
