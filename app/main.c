/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c: the `trainbench` program: the desktop app, or, with --export-chart
 * or --export-runs, a headless export that needs no display.
 */
#define G_LOG_DOMAIN "trainbench"

#include "tb-config.h"

#include <glib/gi18n.h>

#include "trainbench.h"
#include "tb-application.h"
#include "tb-export.h"
#include "tb-platform.h"

int
main (int    argc,
      char **argv)
{
  g_autoptr(TbApplication) app = NULL;
  g_autoptr(GSettings) settings = NULL;
  gboolean headless = tb_export_wanted (argc, argv);

  tb_platform_init (headless);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  nn_blas_init ();

  if (headless)
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
