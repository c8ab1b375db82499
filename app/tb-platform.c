/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-platform.c: the `trainbench` program's start-up that depends on the
 * system, and where it finds its files when it runs from a build tree.
 * Everything OS-specific about the GUI program lives here.
 */
#define G_LOG_DOMAIN "trainbench-platform"

#include "tb-config.h"

#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include <glib/gi18n.h>

#ifdef G_OS_WIN32
#include <windows.h>
#endif

#include "trainbench.h"
#include "tb-platform.h"

/* The running program's own file name, or NULL. */
static char *
program_path (void)
{
#ifdef G_OS_WIN32
  wchar_t wide[32768];
  DWORD n = GetModuleFileNameW (NULL, wide, G_N_ELEMENTS (wide));

  if (n == 0 || n >= G_N_ELEMENTS (wide))
    return NULL;
  return g_utf16_to_utf8 ((const gunichar2 *) wide, n, NULL, NULL, NULL);
#else
  return g_file_read_link ("/proc/self/exe", NULL);
#endif
}

const char *
tb_platform_build_dir (void)
{
  static char *build_dir;
  static gsize once;

  if (g_once_init_enter (&once))
    {
      g_autofree char *program = program_path ();
      g_autofree char *app_dir = program != NULL ? g_path_get_dirname (program) : NULL;
      g_autofree char *app_name = app_dir != NULL ? g_path_get_basename (app_dir) : NULL;
      g_autofree char *top = app_dir != NULL ? g_path_get_dirname (app_dir) : NULL;
      g_autofree char *ninja = top != NULL ? g_build_filename (top, "build.ninja", NULL) : NULL;

      /* BUILD/app/trainbench beside BUILD/build.ninja: an installed
       * program (/usr/bin/trainbench) is never taken for one */
      if (ninja != NULL && g_strcmp0 (app_name, "app") == 0
          && g_file_test (ninja, G_FILE_TEST_IS_REGULAR))
        build_dir = g_steal_pointer (&top);
      g_once_init_leave (&once, 1);
    }
  return build_dir;
}

GFile *
tb_platform_pictures_folder (void)
{
  const char *pictures = g_get_user_special_dir (G_USER_DIRECTORY_PICTURES);

  /* xdg-user-dirs names a folder that may not be there (yet) */
  if (pictures != NULL && g_file_test (pictures, G_FILE_TEST_IS_DIR))
    return g_file_new_for_path (pictures);
  return g_file_new_for_path (g_get_home_dir ());
}

/* The translations built in BUILD/po, laid out as an installed locale
 * folder (BUILD/po/LANG/LC_MESSAGES/trainbench.mo), or NULL for an
 * installed program. */
static char *
build_locale_dir (void)
{
  const char *build = tb_platform_build_dir ();

  return build != NULL ? g_build_filename (build, "po", NULL) : NULL;
}

#ifdef G_OS_WIN32

/* The translations are in share\locale beside the program's folder,
 * wherever it was installed or unpacked (the installer and the portable zip
 * lay out the same folder). The path goes to libintl as UTF-16: a folder
 * under C:\Users\张伟\ is not representable in the ANSI code page that
 * bindtextdomain takes. */
static void
bind_translations (void)
{
  g_autofree char *top = g_win32_get_package_installation_directory_of_module (NULL);
  g_autofree char *dir = build_locale_dir ();
  g_autofree gunichar2 *wide = NULL;

  if (dir == NULL)
    dir = g_build_filename (top, "share", "locale", NULL);
  wide = g_utf8_to_utf16 (dir, -1, NULL, NULL, NULL);

  if (wide != NULL)
    wbindtextdomain (GETTEXT_PACKAGE, (const wchar_t *) wide);
}

/* The GUI is a windows-subsystem program (no console window when it starts
 * from the Start menu), so a headless export started from cmd or
 * PowerShell has no stdout or stderr: take the parent's console, unless the
 * output was redirected to a file or a pipe. */
static void
attach_console (void)
{
  HANDLE out = GetStdHandle (STD_OUTPUT_HANDLE);

  if (out != NULL && out != INVALID_HANDLE_VALUE)
    return;
  if (!AttachConsole (ATTACH_PARENT_PROCESS))
    return;
  if (freopen ("CONOUT$", "w", stdout) == NULL || freopen ("CONOUT$", "w", stderr) == NULL)
    return;
  SetConsoleOutputCP (CP_UTF8);
}

/* Under wine 8, Pango's DirectWrite backend draws garbled text; its
 * fontconfig backend (with the fonts.conf in the folder) draws it right.
 * Real Windows, and a user's own choice, are left alone. */
static void
wine_fonts (void)
{
  NnSystemInfo info;
  int major = 0;

  nn_system_info (&info);
  if (sscanf (info.os_emulated_by, "wine %d", &major) != 1 || major >= 9)
    return;
  g_setenv ("PANGOCAIRO_BACKEND", "fc", FALSE);
}

void
tb_platform_init (gboolean headless)
{
  if (headless)
    attach_console ();
  setlocale (LC_ALL, "");
  bind_translations ();
  wine_fonts ();
}

#else

void
tb_platform_init (gboolean headless)
{
  g_autofree char *dir = build_locale_dir ();

  /* An export written through a pipe whose reader went away fails with
   * its message (EPIPE), as any file that cannot be written does; the
   * signal would end the app, and a run it trains with it. */
  signal (SIGPIPE, SIG_IGN);
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, dir != NULL ? dir : LOCALEDIR);
}

#endif
