/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-translation.c: the window in Chinese, from the zh_CN catalog built
 * in the build tree (BUILD/po, where the program run from the build tree
 * finds it too): its labels, and the engine's errors it shows (a model spec
 * that does not parse, a file that is not a data set) and Fashion-MNIST's
 * class names in Chinese as well.
 */
#include "tb-config.h"

#include <locale.h>
#include <string.h>

#include <adwaita.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "tb-application.h"
#include "tb-data-page.h"
#include "tb-model-builder.h"
#include "tb-window.h"
#include "test-gui-util.h"

static const char *root;

static gboolean
label_loaded (gpointer data)
{
  const char *text = gtk_label_get_text (GTK_LABEL (data));

  return strcmp (text, _("Loading…")) != 0 && strcmp (text, _("No data set chosen")) != 0;
}

static gboolean
preview_shown (gpointer data)
{
  return gtk_picture_get_paintable (GTK_PICTURE (data)) != NULL;
}

static void
test_window (void)
{
  g_autoptr(TbApplication) app = tb_test_app_new (0);
  g_autofree char *not_data = g_build_filename (root, "notes.txt", NULL);
  TbWindow *window;
  GtkWidget *stack, *data_page, *samples;
  AdwViewStackPage *page;
  const char *error;

  window = tb_window_new (ADW_APPLICATION (app));
  gtk_window_present (GTK_WINDOW (window));
  tb_test_spin (200);

  /* the window's own words */
  stack = (GtkWidget *) gtk_widget_get_template_child (GTK_WIDGET (window), TB_TYPE_WINDOW, "stack");
  page = adw_view_stack_get_page (ADW_VIEW_STACK (stack),
                                  adw_view_stack_get_child_by_name (ADW_VIEW_STACK (stack), "model"));
  g_assert_cmpstr (adw_view_stack_page_get_title (page), ==, "模型");
  page = adw_view_stack_get_page (ADW_VIEW_STACK (stack),
                                  adw_view_stack_get_child_by_name (ADW_VIEW_STACK (stack), "data"));
  g_assert_cmpstr (adw_view_stack_page_get_title (page), ==, "数据");

  /* the engine's message about a spec typed in: its context and its cause */
  g_assert_false (tb_model_builder_set_spec_text (tb_window_get_builder (window),
                                                  "flatten; dense x; dense 10 softmax"));
  error = tb_model_builder_get_error (tb_window_get_builder (window), NULL);
  g_test_message ("spec error: %s", error);
  g_assert_cmpstr (error, ==, "第 2 层（dense x）：“x”不是正整数的单元数");

  /* and about a file chosen as the data set */
  g_assert_true (g_file_set_contents (not_data, "not images\n", -1, NULL));
  data_page = (GtkWidget *) gtk_widget_get_template_child (GTK_WIDGET (window), TB_TYPE_WINDOW, "data_page");
  samples = (GtkWidget *) gtk_widget_get_template_child (data_page, TB_TYPE_DATA_PAGE, "samples_label");
  tb_window_set_dataset (window, not_data, 0, 0);
  g_assert_true (tb_test_wait_until (label_loaded, samples, 30));
  g_test_message ("data set error: %s", gtk_label_get_text (GTK_LABEL (samples)));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (samples)),
                            "：既不是 IDX 文件的文件夹，也不是 .npz 文件"));

  /* Fashion-MNIST's class names under its samples */
  {
    g_autofree char *fashion = g_build_filename (root, "fashion-mnist", NULL);
    GtkPicture *picture = GTK_PICTURE (gtk_widget_get_template_child (data_page, TB_TYPE_DATA_PAGE,
                                                                      "samples_picture"));

    g_assert_true (tb_test_write_idx (fashion, 3, 2, 10));
    tb_window_set_dataset (window, fashion, 0, 0);
    g_assert_true (tb_test_wait_until (preview_shown, picture, 30));
    g_assert_cmpstr (gtk_picture_get_alternative_text (picture), ==,
                     "示例图像的标签依次为：T恤/上衣、裤子、套头衫");
  }

  gtk_window_destroy (GTK_WINDOW (window));
  g_remove (not_data);
}

int
main (int    argc,
      char **argv)
{
  int status;

  /* Chinese whatever the locale (C.UTF-8 in the tests): LANGUAGE picks the
   * catalog, as it does for the program itself */
  g_setenv ("LANGUAGE", "zh_CN", TRUE);
  if ((status = tb_test_gui_init (&argc, &argv, &root)) >= 0)
    return status;
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, BUILD_LOCALE_DIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  g_test_add_func ("/translation/window", test_window);
  return g_test_run ();
}
