/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-preferences.c: the preferences window asks for the devices in a
 * worker: it opens with a "Looking for devices…" row and a spinner, the
 * device list takes its place once the main loop has turned, and a window
 * closed before the answer is left alone by it.
 */
#include <string.h>

#include <adwaita.h>

#include "tb-application.h"
#include "tb-preferences.h"
#include "test-gui-util.h"

static GtkWidget *
find_named (GtkWidget  *widget,
            const char *name)
{
  if (g_strcmp0 (gtk_widget_get_name (widget), name) == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_named (child, name);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
visible (gpointer data)
{
  return gtk_widget_get_visible (GTK_WIDGET (data));
}

static void
test_devices (void)
{
  GtkWidget *window = tb_preferences_window_new (NULL);
  GtkWidget *looking = find_named (window, "device-looking-row");
  GtkWidget *row = find_named (window, "device-row");
  GListModel *model;
  g_autofree char *first = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *shot = g_build_filename (SCREENSHOT_DIR, "screenshot-preferences-devices.png", NULL);

  g_assert_nonnull (looking);
  g_assert_nonnull (row);
  /* built without asking the devices on the main thread: the spinner row
   * shows until the worker answers through the main loop */
  g_assert_true (gtk_widget_get_visible (looking));
  g_assert_false (gtk_widget_get_visible (row));
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (looking)), ==, "Looking for devices…");

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (tb_test_wait_until (visible, row, 60));
  g_assert_false (gtk_widget_get_visible (looking));

  /* the CPU first, then the GPU entry (usable or saying why not) */
  model = adw_combo_row_get_model (ADW_COMBO_ROW (row));
  g_assert_cmpuint (g_list_model_get_n_items (model), >=, 1);
  first = g_strdup (gtk_string_list_get_string (GTK_STRING_LIST (model), 0));
  g_test_message ("first device: %s", first);
  g_assert_true (g_str_has_prefix (first, "CPU · "));
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (row)), ==, 0);   /* default "cpu" */

  tb_test_spin (300);
  if (!tb_test_screenshot (window, shot, &error))
    g_test_message ("screenshot: %s", error->message);
  else
    g_test_message ("screenshot written: %s", shot);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_close_before_answer (void)
{
  GtkWidget *window = tb_preferences_window_new (NULL);

  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  gtk_window_destroy (GTK_WINDOW (window));
  /* the worker does not hold the window: closing frees it at once and
   * cancels the request, whose answer, which comes within the spin, must
   * then touch none of its rows (a critical, or a crash under
   * MALLOC_PERTURB_, would end the test) */
  g_assert_null (window);
  tb_test_spin (500);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(TbApplication) app = NULL;
  int status;

  if ((status = tb_test_gui_init (&argc, &argv, NULL)) >= 0)
    return status;

  /* the app's style and settings, as when the window is opened from it */
  app = tb_test_app_new (0);

  g_test_add_func ("/preferences/devices", test_devices);
  g_test_add_func ("/preferences/close-before-answer", test_close_before_answer);
  return g_test_run ();
}
