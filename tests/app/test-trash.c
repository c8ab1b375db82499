/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-trash.c: result files moved to the trash and put back: 2,000 of
 * them come back, byte for byte and out of the trash, in a time that grows
 * with their number (each put back by reading the whole trash took 12 s
 * for 2,000); a file that went twice comes back as it was the second time;
 * one whose trash copy went meanwhile is written again from its bytes.
 */
#include <string.h>
#include <time.h>

#include <glib/gstdio.h>

#include "tb-trash.h"
#include "test-gui-util.h"

#define N_FILES 2000
/* Processor time to put them back: a few tenths of a second. Reading the
 * whole trash once per file put back took 12 s to 23 s. The processor's
 * time, not the clock's: the disk's own time (a rename, an unlink per
 * file) varies tenfold on a busy machine, and it is no part of the cost
 * that grew with the square of the count. */
#define RESTORE_BOUND_S 4.0

static const char *root;

static char *
contents_of (guint i,
             guint version)
{
  /* about the size of a result file, each one different */
  g_autofree char *pad = g_strnfill (3000, 'x');

  return g_strdup_printf ("{\"schema\": 1, \"run_id\": \"run-%04u\", \"version\": %u, \"pad\": \"%s\"}\n",
                          i, version, pad);
}

static guint
count_entries (const char *folder)
{
  g_autoptr(GDir) dir = g_dir_open (folder, 0, NULL);
  guint n = 0;

  while (dir != NULL && g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

static void
test_many (void)
{
  g_autofree char *folder = g_build_filename (root, "runs", NULL);
  g_autofree char *trash_info = g_build_filename (g_get_user_data_dir (), "Trash", "info", NULL);
  g_autoptr(GPtrArray) trashed = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_trashed_free);
  g_autoptr(GPtrArray) errors = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  g_autofree gboolean *restored = g_new0 (gboolean, N_FILES);
  gint64 t0;
  clock_t c0;
  double trash_s, seconds, cpu_s;

  g_assert_cmpint (g_mkdir_with_parents (folder, 0755), ==, 0);
  for (guint i = 0; i < N_FILES; i++)
    {
      g_autofree char *name = g_strdup_printf ("run-%04u.json", i);
      g_autofree char *path = g_build_filename (folder, name, NULL);
      g_autofree char *text = contents_of (i, 1);

      g_assert_true (g_file_set_contents (path, text, -1, NULL));
    }
  t0 = g_get_monotonic_time ();
  for (guint i = 0; i < N_FILES; i++)
    {
      g_autofree char *name = g_strdup_printf ("run-%04u.json", i);
      g_autofree char *path = g_build_filename (folder, name, NULL);
      g_autoptr(GError) error = NULL;
      TbTrashed *t;

      t = tb_trash_file (path, &error);
      g_assert_no_error (error);
      g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
      g_ptr_array_add (trashed, t);
    }
  trash_s = (g_get_monotonic_time () - t0) / 1e6;
  g_assert_cmpuint (count_entries (trash_info), ==, N_FILES);

  t0 = g_get_monotonic_time ();
  c0 = clock ();
  tb_trash_restore ((TbTrashed * const *) trashed->pdata, trashed->len, restored, errors);
  cpu_s = (double) (clock () - c0) / CLOCKS_PER_SEC;
  seconds = (g_get_monotonic_time () - t0) / 1e6;
  g_test_message ("%u files moved to the trash in %.2f s, put back in %.2f s (%.2f s of the processor's)",
                  N_FILES, trash_s, seconds, cpu_s);
  g_assert_cmpuint (errors->len, ==, 0);
  g_assert_cmpfloat (cpu_s, <, RESTORE_BOUND_S);

  for (guint i = 0; i < N_FILES; i++)
    {
      g_autofree char *text = contents_of (i, 1);
      g_autofree char *back = NULL;

      g_assert_true (restored[i]);
      g_assert_true (g_file_get_contents (tb_trashed_get_path (g_ptr_array_index (trashed, i)), &back, NULL, NULL));
      g_assert_cmpstr (back, ==, text);
    }
  /* out of the trash, not copies beside it */
  g_assert_cmpuint (count_entries (trash_info), ==, 0);
}

/* A path deleted, written again and deleted again: each Undo puts back its
 * own version; one whose copy left the trash is written from its bytes. */
static void
test_versions (void)
{
  g_autofree char *path = g_build_filename (root, "runs", "twice.json", NULL);
  g_autofree char *first = contents_of (7, 1);
  g_autofree char *second = contents_of (7, 2);
  g_autoptr(TbTrashed) a = NULL;
  g_autoptr(TbTrashed) b = NULL;
  g_autoptr(GPtrArray) errors = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  g_autofree char *back = NULL;
  gboolean restored[2];
  TbTrashed *both[2];

  g_assert_true (g_file_set_contents (path, first, -1, NULL));
  a = tb_trash_file (path, NULL);
  g_assert_true (g_file_set_contents (path, second, -1, NULL));
  b = tb_trash_file (path, NULL);
  g_assert_nonnull (a);
  g_assert_nonnull (b);

  both[0] = b;
  tb_trash_restore (both, 1, restored, errors);
  g_assert_true (restored[0]);
  g_assert_true (g_file_get_contents (path, &back, NULL, NULL));
  g_assert_cmpstr (back, ==, second);

  /* the first version comes back only where its name is free */
  both[0] = a;
  tb_trash_restore (both, 1, restored, errors);
  g_assert_false (restored[0]);
  g_assert_cmpuint (errors->len, ==, 1);
  g_assert_true (g_error_matches (g_ptr_array_index (errors, 0), G_IO_ERROR, G_IO_ERROR_EXISTS));
  g_test_message ("%s", ((GError *) g_ptr_array_index (errors, 0))->message);

  /* its copy taken out of the trash meanwhile: written from the bytes */
  g_assert_cmpint (g_unlink (path), ==, 0);
  {
    g_autofree char *files = g_build_filename (g_get_user_data_dir (), "Trash", "files", NULL);
    g_autofree char *info = g_build_filename (g_get_user_data_dir (), "Trash", "info", NULL);
    g_autoptr(GDir) dir = g_dir_open (files, 0, NULL);
    const char *name;

    while ((name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *file = g_build_filename (files, name, NULL);
        g_autofree char *info_name = g_strconcat (name, ".trashinfo", NULL);
        g_autofree char *info_path = g_build_filename (info, info_name, NULL);

        g_assert_cmpint (g_unlink (file), ==, 0);
        g_assert_cmpint (g_unlink (info_path), ==, 0);
      }
  }
  g_clear_pointer (&back, g_free);
  tb_trash_restore (both, 1, restored, errors);
  g_assert_true (restored[0]);
  g_assert_true (g_file_get_contents (path, &back, NULL, NULL));
  g_assert_cmpstr (back, ==, first);
}

int
main (int    argc,
      char **argv)
{
  root = tb_test_setup_env ();
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/trash/many", test_many);
  g_test_add_func ("/trash/versions", test_versions);
  return g_test_run ();
}
