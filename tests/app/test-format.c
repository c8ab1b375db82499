/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-format.c: counts grouped in thousands: with a narrow no-break space
 * where the locale groups nothing (C.UTF-8), and as the locale does where
 * it groups (de_DE with dots, en_IN in groups of three then two).
 */
#include <locale.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "tb-format.h"

#define NNBSP "\xe2\x80\xaf"

static void
check (gint64      value,
       const char *expected)
{
  g_autofree char *text = tb_format_count (value);

  g_assert_cmpstr (text, ==, expected);
}

static void
test_no_grouping (void)
{
  g_assert_nonnull (setlocale (LC_NUMERIC, "C.UTF-8"));
  check (0, "0");
  check (999, "999");
  check (1000, "1" NNBSP "000");
  check (60000, "60" NNBSP "000");
  check (101770, "101" NNBSP "770");
  check (1234567, "1" NNBSP "234" NNBSP "567");
  check (-12345, "-12" NNBSP "345");
  check (G_MININT64, "-9" NNBSP "223" NNBSP "372" NNBSP "036" NNBSP "854" NNBSP "775" NNBSP "808");
}

/* A locale definition compiled into the test's folder (LOCPATH), as the
 * system may have none generated; FALSE when it cannot be made here. */
static char *folder;

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

static gboolean
use_locale (const char *name,
            const char *source)
{
  g_autofree char *target = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int status = -1;
  const char *argv[] = { "localedef", "-i", source, "-f", "UTF-8", NULL, NULL };

  if (folder == NULL)
    {
      folder = g_dir_make_tmp ("trainbench-locale-XXXXXX", NULL);
      g_assert_nonnull (folder);
      g_setenv ("LOCPATH", folder, TRUE);
    }
  target = g_build_filename (folder, name, NULL);
  argv[5] = target;
  if (!g_file_test (target, G_FILE_TEST_IS_DIR)
      && (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                         &out, &err, &status, NULL)
          || !g_file_test (target, G_FILE_TEST_IS_DIR)))
    return FALSE;
  return setlocale (LC_NUMERIC, name) != NULL;
}

static void
test_locale_grouping (void)
{
  if (!use_locale ("de_DE.UTF-8", "de_DE"))
    {
      g_test_skip ("no de_DE locale definition here (localedef, package locales)");
      return;
    }
  check (999, "999");
  check (60000, "60.000");
  check (1234567, "1.234.567");

  if (!use_locale ("en_IN.UTF-8", "en_IN"))
    {
      g_test_skip ("no en_IN locale definition here (localedef, package locales)");
      return;
    }
  check (1234567, "12,34,567");
  check (100000, "1,00,000");
  setlocale (LC_NUMERIC, "C.UTF-8");
}

int
main (int    argc,
      char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/format/no-grouping", test_no_grouping);
  g_test_add_func ("/format/locale-grouping", test_locale_grouping);
  status = g_test_run ();
  if (folder != NULL)
    remove_tree (folder);
  return status;
}
