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
#else
#include <glib-unix.h>
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

/* A windows-subsystem program gets no console events; Windows asks its
 * windows to close at logoff, as the user would. */
void
tb_platform_watch_stop_signals (TbPlatformStopFunc stop,
                                gpointer           data)
{
}

void
tb_platform_unwatch_stop_signals (void)
{
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

/* The signals that stop the app as the CLI's stop a run: Ctrl-C in the
 * terminal it was started from; SIGTERM, which logout, kill and systemctl
 * stop send; SIGHUP when its terminal goes away. */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
static guint stop_sources[G_N_ELEMENTS (stop_signals)];
static TbPlatformStopFunc stop_func;
static gpointer stop_data;
static guint stops_seen;

/* On the main loop, after the signal's handler (GLib's) has returned. */
static gboolean
stop_signal_cb (gpointer user_data)
{
  int signum = GPOINTER_TO_INT (user_data);

  if (stops_seen++ > 0)
    {
      /* a second one: the program ends now, as the signal ends it */
      signal (signum, SIG_DFL);
      raise (signum);
      return G_SOURCE_REMOVE;
    }
  g_message ("%s: stopping; a run or sweep going on is saved as cancelled", g_strsignal (signum));
  stop_func (stop_data);
  return G_SOURCE_CONTINUE;
}

void
tb_platform_watch_stop_signals (TbPlatformStopFunc stop,
                                gpointer           data)
{
  g_return_if_fail (stop != NULL);

  tb_platform_unwatch_stop_signals ();
  stop_func = stop;
  stop_data = data;
  stops_seen = 0;
  for (gsize i = 0; i < G_N_ELEMENTS (stop_signals); i++)
    {
      struct sigaction old;

      /* a signal ignored by whoever started the app (nohup's SIGHUP) stays
       * ignored */
      if (sigaction (stop_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN
          && stop_signals[i] != SIGINT)
        continue;
      stop_sources[i] = g_unix_signal_add (stop_signals[i], stop_signal_cb,
                                           GINT_TO_POINTER (stop_signals[i]));
    }
}

void
tb_platform_unwatch_stop_signals (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (stop_signals); i++)
    g_clear_handle_id (&stop_sources[i], g_source_remove);
  stop_func = NULL;
  stop_data = NULL;
}

#endif
