/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-export-folder.c: the chart's export dialog opens in the user's
 * Pictures folder (xdg-user-dirs), or in the home folder where there is no
 * Pictures folder, and never in the folder the program was started in.
 */
#include <string.h>

#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "tb-chart-view.h"
#include "test-gui-util.h"

static char *top;      /* the test's HOME, with its XDG_CONFIG_HOME in it */

/* Write user-dirs.dirs with `pictures` (NULL: none) and have GLib read it. */
static void
set_pictures (const char *pictures)
{
  g_autofree char *dirs = g_build_filename (top, "config", "user-dirs.dirs", NULL);
  g_autofree char *text = pictures != NULL
                            ? g_strdup_printf ("XDG_DOCUMENTS_DIR=\"$HOME/Dokumente\"\n"
                                               "XDG_PICTURES_DIR=\"%s\"\n", pictures)
                            : g_strdup ("XDG_DOCUMENTS_DIR=\"$HOME/Dokumente\"\n");

  g_assert_true (g_file_set_contents (dirs, text, -1, NULL));
  g_reload_user_special_dirs_cache ();
}

/* Open the export dialog of a chart and return the folder it shows. */
static char *
export_dialog_folder (void)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *view = tb_chart_view_new ();
  TbChartData *data = tb_chart_data_new (TB_CHART_LINES, "Loss", "Step", "Loss");
  TbChartSeries *series = tb_chart_data_add_series (data, "loss", 0);
  GListModel *toplevels = gtk_window_get_toplevels ();
  GtkWidget *dialog = NULL;
  g_autoptr(GFile) folder = NULL;

  for (int i = 0; i <= 10; i++)
    tb_chart_series_append (series, i, 10 - i);
  tb_chart_view_set_data (TB_CHART_VIEW (view), data);
  gtk_window_set_child (GTK_WINDOW (window), view);
  gtk_window_present (GTK_WINDOW (window));
  tb_test_spin (100);

  tb_chart_view_export (TB_CHART_VIEW (view));
  tb_test_spin (200);
  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) w = g_list_model_get_item (toplevels, i);

      if (GTK_IS_FILE_CHOOSER (w))
        dialog = w;
    }
  g_assert_nonnull (dialog);
  folder = gtk_file_chooser_get_current_folder (GTK_FILE_CHOOSER (dialog));
  g_assert_nonnull (folder);
  /* the file name is still offered */
  g_assert_cmpstr (gtk_file_chooser_get_current_name (GTK_FILE_CHOOSER (dialog)), ==, "chart.png");
  gtk_window_destroy (GTK_WINDOW (dialog));
  gtk_window_destroy (GTK_WINDOW (window));
  tb_test_spin (100);
  return g_file_get_path (folder);
}

static void
test_pictures (void)
{
  g_autofree char *pictures = g_build_filename (top, "Bilder", NULL);
  g_autofree char *shown = NULL;

  g_assert_cmpint (g_mkdir_with_parents (pictures, 0700), ==, 0);
  set_pictures (pictures);
  shown = export_dialog_folder ();
  g_assert_cmpstr (shown, ==, pictures);
}

static void
test_no_pictures (void)
{
  g_autofree char *missing = g_build_filename (top, "Fotos", NULL);
  g_autofree char *shown = NULL;
  g_autofree char *current = g_get_current_dir ();

  /* no Pictures folder named: the home folder, not where the program runs */
  set_pictures (NULL);
  shown = export_dialog_folder ();
  g_assert_cmpstr (shown, ==, g_get_home_dir ());
  g_assert_cmpstr (shown, !=, current);
  g_clear_pointer (&shown, g_free);

  /* one named that is not there */
  set_pictures (missing);
  shown = export_dialog_folder ();
  g_assert_cmpstr (shown, ==, g_get_home_dir ());
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *config = NULL;
  int status;

  /* before GLib reads them: a home and a config folder of the test's own
   * (in the folder the util removes at exit) */
  top = g_strdup (tb_test_setup_env ());
  config = g_build_filename (top, "config", NULL);
  g_assert_cmpint (g_mkdir_with_parents (config, 0700), ==, 0);
  g_setenv ("HOME", top, TRUE);
  g_setenv ("XDG_CONFIG_HOME", config, TRUE);
  /* the dialog GTK draws itself, not a portal's */
  g_setenv ("GTK_USE_PORTAL", "0", TRUE);

  if ((status = tb_test_gui_init (&argc, &argv, NULL)) >= 0)
    return status;
  /* in this order: GLib's reload keeps a folder that a new file leaves out */
  g_test_add_func ("/export-folder/no-pictures", test_no_pictures);
  g_test_add_func ("/export-folder/pictures", test_pictures);
  return g_test_run ();
}
