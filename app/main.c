/* main.c: the `trainbench` program: the desktop app, or, with --export-chart
 * or --export-runs, a headless export that needs no display.
 */
#include "tb-config.h"

#include <locale.h>

#include <glib/gi18n.h>

#include "trainbench.h"
#include "tb-application.h"
#include "tb-export.h"

/* Where the translations are: under the install prefix; on Windows in
 * share\locale beside the program's folder, wherever it was installed or
 * unpacked (the installer and the portable zip lay out the same folder). */
static char *
locale_dir (void)
{
#ifdef G_OS_WIN32
  g_autofree char *top = g_win32_get_package_installation_directory_of_module (NULL);

  return g_build_filename (top, "share", "locale", NULL);
#else
  return g_strdup (LOCALEDIR);
#endif
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(TbApplication) app = NULL;
  g_autoptr(GSettings) settings = NULL;
  g_autofree char *locales = locale_dir ();

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, locales);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  nn_blas_init ();

  if (tb_export_wanted (argc, argv))
    return tb_export_main (argc, argv);

  /* without its settings schema the app cannot keep preferences: say so
   * instead of letting GSettings abort */
  settings = tb_settings_new ();
  if (settings == NULL)
    {
      g_printerr ("trainbench: the settings schema %s is not installed; "
                  "run `ninja install` or set GSETTINGS_SCHEMA_DIR\n", APP_ID);
      return 1;
    }

  app = tb_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
