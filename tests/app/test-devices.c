/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-devices.c: the device list is asked for in a worker (tb-devices.c):
 * the preselection rule, a cancelled request, and the Train page, which opens
 * with a "Looking for devices…" row and Train off, gets its radio rows (the
 * stored device chosen) once the main loop has turned, and, closed before the
 * answer, is left alone by it.
 */
#include <string.h>

#include <adwaita.h>

#include "tb-application.h"
#include "tb-devices.h"
#include "tb-train-page.h"
#include "tb-window.h"
#include "test-gui-util.h"

static TbApplication *app;
static char *data_dir;

/* ------------------------------------------------------------ the rule */

static void
add_device (TbDeviceList *list,
            NnDeviceKind  kind,
            int           index,
            bool          usable)
{
  NnDeviceInfo *dev = &list->devices[list->n++];

  memset (dev, 0, sizeof *dev);
  dev->kind = kind;
  dev->index = index;
  dev->usable = usable;
  g_snprintf (dev->name, sizeof dev->name, "%s %d", kind == NN_DEVICE_CPU ? "cpu" : "gpu", index);
}

static void
test_choose (void)
{
  TbDeviceList list = { 0 };
  TbDeviceList none = { 0 };
  g_autofree char *id0 = NULL;
  g_autofree char *id2 = NULL;

  add_device (&list, NN_DEVICE_CPU, 0, TRUE);
  add_device (&list, NN_DEVICE_CUDA, 0, FALSE);
  add_device (&list, NN_DEVICE_CUDA, 1, TRUE);

  g_assert_cmpint (tb_device_list_find (&list, "cpu"), ==, 0);
  g_assert_cmpint (tb_device_list_find (&list, "cuda:1"), ==, 2);
  g_assert_cmpint (tb_device_list_find (&list, "cuda"), ==, 1);   /* "cuda" is cuda:0 */
  g_assert_cmpint (tb_device_list_find (&list, "cuda:7"), ==, -1);
  g_assert_cmpint (tb_device_list_find (&list, "toaster"), ==, -1);
  g_assert_cmpint (tb_device_list_find (&list, NULL), ==, -1);

  /* the stored device when usable, else the first usable one */
  g_assert_cmpint (tb_device_list_choose (&list, "cuda:1"), ==, 2);
  g_assert_cmpint (tb_device_list_choose (&list, "cuda:0"), ==, 0);
  g_assert_cmpint (tb_device_list_choose (&list, "cuda:7"), ==, 0);
  g_assert_cmpint (tb_device_list_choose (&list, ""), ==, 0);
  list.devices[0].usable = FALSE;
  g_assert_cmpint (tb_device_list_choose (&list, "cpu"), ==, 2);
  add_device (&none, NN_DEVICE_CUDA, 0, FALSE);
  g_assert_cmpint (tb_device_list_choose (&none, "cpu"), ==, -1);

  id0 = tb_device_id (&list.devices[0]);
  id2 = tb_device_id (&list.devices[2]);
  g_assert_cmpstr (id0, ==, "cpu");
  g_assert_cmpstr (id2, ==, "cuda:1");
}

/* ------------------------------------------------------------ the worker */

typedef struct
{
  gboolean done;
  TbDeviceList *list;
  GError *error;
} Answer;

static void
answered_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Answer *answer = user_data;

  answer->list = tb_device_list_finish (result, &answer->error);
  answer->done = TRUE;
}

static void
test_list_async (void)
{
  Answer answer = { 0 };
  Answer cancelled = { 0 };
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();

  tb_device_list_async (NULL, answered_cb, &answer);
  g_assert_false (answer.done);   /* the answer comes through the main loop */
  g_assert_true (tb_test_wait_for (&answer.done, 60));
  g_assert_no_error (answer.error);
  g_assert_nonnull (answer.list);
  g_assert_cmpint (answer.list->n, >=, 1);
  g_assert_cmpint (answer.list->devices[0].kind, ==, NN_DEVICE_CPU);
  g_free (answer.list);

  /* cancelled, whenever the worker answers: no list */
  tb_device_list_async (cancellable, answered_cb, &cancelled);
  g_cancellable_cancel (cancellable);
  g_assert_true (tb_test_wait_for (&cancelled.done, 60));
  g_assert_null (cancelled.list);
  g_assert_error (cancelled.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&cancelled.error);
}

/* ------------------------------------------------------------ Train page */

static TbTrainPage *
train_page (TbWindow *window)
{
  return tb_window_get_train_page (window);
}

static gboolean
devices_listed (gpointer data)
{
  return !tb_train_page_get_devices_pending (train_page (TB_WINDOW (data)));
}

/* A widget of the Train page, by its id in the page's template. */
static GtkWidget *
page_child (TbWindow   *window,
            const char *name)
{
  return GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (train_page (window)),
                                                    TB_TYPE_TRAIN_PAGE, name));
}

/* The first widget under `widget` named `name`, or of `type` when `name` is
 * NULL. */
static GtkWidget *
find_widget (GtkWidget  *widget,
             const char *name,
             GType       type)
{
  if (name != NULL ? g_strcmp0 (gtk_widget_get_name (widget), name) == 0
                   : G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_widget (child, name, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static guint
count_rows (GtkWidget *widget)
{
  guint n = ADW_IS_ACTION_ROW (widget) && gtk_widget_get_visible (widget) ? 1 : 0;

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    n += count_rows (child);
  return n;
}

static void
test_train_page (void)
{
  g_autoptr(GSettings) settings = tb_settings_new ();
  TbWindow *window;
  TbTrainPage *page;
  GtkWidget *group, *looking, *start, *check;

  g_settings_set_string (settings, "default-device", "cpu");
  window = tb_window_new (ADW_APPLICATION (app));
  page = train_page (window);
  group = page_child (window, "device_group");
  start = page_child (window, "start_button");
  looking = find_widget (group, "device-looking-row", G_TYPE_NONE);
  tb_window_set_dataset (window, data_dir, 0, 0);

  /* built without asking the devices on the main thread: only the spinner
   * row, and Train off although the model and the data set are fine */
  g_assert_true (tb_train_page_get_devices_pending (page));
  g_assert_cmpuint (tb_train_page_get_n_devices (page), ==, 0);
  g_assert_nonnull (looking);
  g_assert_true (gtk_widget_get_visible (looking));
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (looking)), ==, "Looking for devices…");
  g_assert_cmpuint (count_rows (group), ==, 1);
  g_assert_true (tb_model_builder_is_valid (tb_window_get_builder (window)));
  g_assert_false (tb_window_start_enabled (window));
  g_assert_false (gtk_widget_get_sensitive (start));
  g_assert_false (tb_window_select_device (window, NN_DEVICE_CPU, 0));

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (tb_test_wait_until (devices_listed, window, 60));

  /* a radio row per device in the spinner's place, the stored one chosen */
  g_assert_false (gtk_widget_get_visible (looking));
  g_assert_cmpuint (tb_train_page_get_n_devices (page), >=, 1);
  g_assert_cmpuint (count_rows (group), ==, tb_train_page_get_n_devices (page));
  g_assert_cmpint (tb_train_page_get_device_index (page), ==, 0);
  g_assert_cmpint (tb_train_page_get_device_info (page, 0)->kind, ==, NN_DEVICE_CPU);
  {
    g_autofree char *device = NULL;

    g_object_get (page, "device", &device, NULL);
    g_assert_cmpstr (device, ==, "cpu");
  }
  /* the first radio button is the CPU's row's */
  check = find_widget (group, NULL, GTK_TYPE_CHECK_BUTTON);
  g_assert_nonnull (check);
  g_assert_true (gtk_check_button_get_active (GTK_CHECK_BUTTON (check)));
  g_assert_true (gtk_widget_get_sensitive (page_child (window, "threads_spin")));
  g_assert_true (tb_window_start_enabled (window));
  g_assert_true (gtk_widget_get_sensitive (start));
  g_assert_true (tb_window_select_device (window, NN_DEVICE_CPU, 0));

  gtk_window_destroy (GTK_WINDOW (window));
  tb_test_spin (100);
}

static gboolean
pointer_cleared (gpointer data)
{
  return *(gpointer *) data == NULL;
}

static void
test_close_before_answer (void)
{
  TbWindow *window = tb_window_new (ADW_APPLICATION (app));
  TbWindow *weak = window;

  g_assert_true (tb_train_page_get_devices_pending (train_page (window)));
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &weak);
  /* held here, so its fields can be read after it is closed; shown (no
   * main-loop turn, so no answer yet), as gtk_window_close wants */
  g_object_ref (window);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (tb_train_page_get_devices_pending (train_page (window)));
  gtk_window_close (GTK_WINDOW (window));
  /* the answer (milliseconds away here) comes to a closed window: it lists
   * nothing into it (a critical would end the test) */
  tb_test_spin (500);
  g_assert_cmpuint (tb_train_page_get_n_devices (train_page (window)), ==, 0);
  g_assert_true (tb_train_page_get_devices_pending (train_page (window)));
  g_object_unref (window);
  /* and nothing holds the window for the device list */
  g_assert_true (tb_test_wait_until (pointer_cleared, &weak, 30));
}

int
main (int    argc,
      char **argv)
{
  const char *root;
  int status;

  if ((status = tb_test_gui_init (&argc, &argv, &root)) >= 0)
    return status;

  data_dir = g_build_filename (root, "tiny-idx", NULL);
  g_assert_true (tb_test_write_idx (data_dir, 60, 20, 10));

  app = tb_test_app_new (0);

  g_test_add_func ("/devices/choose", test_choose);
  g_test_add_func ("/devices/list-async", test_list_async);
  g_test_add_func ("/devices/train-page", test_train_page);
  g_test_add_func ("/devices/close-before-answer", test_close_before_answer);
  status = g_test_run ();

  g_clear_object (&app);
  g_free (data_dir);
  return status;
}
