/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-markup.c: text from files and paths is shown as text, never as Pango
 * markup: a foreign sweep.json's markup in Recent Sweeps, paths with "&"
 * and "<" as the runs folder in Preferences, as a data set on the Data and
 * Explore pages, and a file's name in a toast. Before, markup rendered (a
 * large red "ALL CLAIMS VERIFIED") and a path with "&" left a blank line.
 */
#include <string.h>

#include <adwaita.h>
#include <glib/gstdio.h>

#include "tb-preferences.h"
#include "tb-window-private.h"
#include "test-gui-util.h"

#define SHOUT "<span foreground=\"red\" size=\"xx-large\">ALL CLAIMS VERIFIED</span>"

static TbApplication *app;
static TbWindow *window;
static const char *root;

/* Is `text` the text of a label under `widget`, exactly as given (so not
 * parsed as markup, which would drop its tags or fail on its "&")? */
static gboolean
shows_text (GtkWidget  *widget,
            const char *text)
{
  if (GTK_IS_LABEL (widget) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) == 0)
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (shows_text (child, text))
      return TRUE;
  return FALSE;
}

/* A label under `widget` whose text holds `part`. */
static gboolean
shows_part (GtkWidget  *widget,
            const char *part)
{
  if (GTK_IS_LABEL (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), part) != NULL)
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (shows_part (child, part))
      return TRUE;
  return FALSE;
}

static gboolean
window_ready (gpointer data)
{
  return gtk_widget_get_mapped (GTK_WIDGET (window))
         && !tb_train_page_get_devices_pending (tb_window_get_train_page (window));
}

static gboolean
recent_listed (gpointer data)
{
  return tb_explore_page_get_n_recent (tb_window_get_explore_page (window)) >= 1;
}

static gboolean
label_shown (gpointer data)
{
  return shows_text (GTK_WIDGET (window), data);
}

/* The runs folder is a path with "&" and "<": the Preferences row shows it. */
static void
test_preferences_folder (void)
{
  g_autoptr(GSettings) settings = tb_settings_new ();
  g_autofree char *folder = g_build_filename (root, "R&D <b>runs</b>", NULL);
  GtkWidget *prefs;

  g_settings_set_string (settings, "runs-folder", folder);
  prefs = tb_preferences_window_new (NULL);
  gtk_window_present (GTK_WINDOW (prefs));
  tb_test_spin (200);
  g_assert_true (shows_text (prefs, folder));
  gtk_window_destroy (GTK_WINDOW (prefs));
  g_settings_reset (settings, "runs-folder");
  tb_test_spin (50);
}

/* A sweep.json from elsewhere, its start time, status, data set and device
 * names markup: Recent Sweeps lists it with the tags as text. */
static void
test_recent_sweeps (void)
{
  GtkWidget *recent;

  window = tb_window_new (ADW_APPLICATION (app));
  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (tb_test_wait_until (window_ready, NULL, 60));
  g_assert_true (tb_test_wait_until (recent_listed, NULL, 30));
  recent = GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (tb_window_get_explore_page (window)),
                                                      TB_TYPE_EXPLORE_PAGE, "recent_list"));
  g_assert_true (shows_part (recent, SHOUT));
  g_assert_true (shows_part (recent, "<i>today</i>"));
  g_assert_true (shows_part (recent, "R&D <data>"));
  g_assert_true (shows_part (recent, "(AT&T <gpu>)"));
}

/* A data set in a folder whose names have "&" and "<": the Data page's
 * row says its path, the Explore page's its name. */
static void
test_dataset_path (void)
{
  g_autofree char *path = g_build_filename (root, "R&D <i>x</i>", "a&b <u>", NULL);
  GtkWidget *explore_row;

  g_assert_true (tb_test_write_idx (path, 40, 10, 10));
  tb_window_set_dataset (window, path, 0, 0);
  tb_test_spin (300);
  g_assert_true (shows_text (GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (window), TB_TYPE_WINDOW,
                                                                           "data_page")),
                             path));
  explore_row = GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (tb_window_get_explore_page (window)),
                                                           TB_TYPE_EXPLORE_PAGE, "dataset_row"));
  g_assert_true (shows_text (explore_row, "a&b <u>"));
}

/* A toast that names a file shows the name as it is. */
static void
test_toast (void)
{
  static const char text[] = "Chart saved as “R&D <b>x</b>.png”";

  tb_window_toast (window, text);
  g_assert_true (tb_test_wait_until (label_shown, (gpointer) text, 5));
}

static void
write_hostile_sweep (void)
{
  g_autofree char *folder = g_build_filename (root, "trainbench", "runs", "sweeps", "hostile", NULL);
  g_autofree char *file = g_build_filename (folder, "sweep.json", NULL);
  g_autofree char *shout = g_strescape (SHOUT, NULL);
  g_autofree char *text = g_strdup_printf (
    "{\"kind\": \"trainbench-sweep\", \"schema\": 1, \"sweep_id\": \"hostile\", "
    "\"started_at\": \"%s\", \"status\": \"<i>today</i>\", "
    "\"dataset\": {\"name\": \"R&D <data>\"}, "
    "\"devices\": [\"cpu\"], \"axes\": [{\"name\": \"W\", \"values\": [32]}], "
    "\"points\": [{\"device\": \"cpu\", \"values\": {\"W\": 32}, \"status\": \"pending\", "
    "\"device_name\": \"AT&T <gpu>\"}]}",
    shout);

  g_assert_cmpint (g_mkdir_with_parents (folder, 0755), ==, 0);
  g_assert_true (g_file_set_contents (file, text, -1, NULL));
}

int
main (int    argc,
      char **argv)
{
  int status;

  if ((status = tb_test_gui_init (&argc, &argv, &root)) >= 0)
    return status;

  write_hostile_sweep ();
  app = tb_test_app_new (0);

  g_test_add_func ("/markup/preferences-folder", test_preferences_folder);
  g_test_add_func ("/markup/recent-sweeps", test_recent_sweeps);
  g_test_add_func ("/markup/dataset-path", test_dataset_path);
  g_test_add_func ("/markup/toast", test_toast);
  status = g_test_run ();

  if (window != NULL)
    gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  return status;
}
