/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-data-page.c: the Data page's preview: Fashion-MNIST's samples are
 * labelled with their class names, MNIST's with their digits (the labels
 * drawn under the images, and the picture's alternative text that says
 * them), and the sample counts are grouped in thousands even in C.UTF-8.
 */
#include <string.h>

#include <adwaita.h>

#include "tb-data-page.h"
#include "test-gui-util.h"

#define NNBSP "\xe2\x80\xaf"

static const char *root;

typedef struct
{
  GtkWidget *window;
  GtkWidget *page;
  GtkLabel *summary;
  GtkPicture *picture;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->window = gtk_window_new ();
  f->page = g_object_new (TB_TYPE_DATA_PAGE, NULL);
  gtk_window_set_child (GTK_WINDOW (f->window), f->page);
  gtk_window_set_default_size (GTK_WINDOW (f->window), 900, 800);
  gtk_window_present (GTK_WINDOW (f->window));
  f->summary = GTK_LABEL (gtk_widget_get_template_child (f->page, TB_TYPE_DATA_PAGE, "samples_label"));
  f->picture = GTK_PICTURE (gtk_widget_get_template_child (f->page, TB_TYPE_DATA_PAGE, "samples_picture"));
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
  tb_test_spin (50);
}

static gboolean
preview_shown (gpointer data)
{
  Fixture *f = data;

  return gtk_picture_get_paintable (f->picture) != NULL;
}

/* Write an IDX set into ROOT/folder and choose it on the page. */
static void
choose (Fixture    *f,
        const char *folder,
        int         train)
{
  g_autofree char *path = g_build_filename (root, folder, NULL);

  g_assert_true (tb_test_write_idx (path, train, 4, 10));
  tb_data_page_set_dataset (TB_DATA_PAGE (f->page), path);
  g_assert_true (tb_test_wait_until (preview_shown, f, 30));
  g_test_message ("%s", gtk_label_get_text (f->summary));
  g_test_message ("%s", gtk_picture_get_alternative_text (f->picture));
}

static void
test_fashion_class_names (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  choose (f, "fashion-mnist", 12);
  /* the samples' labels are 0, 1, 2, ... 9, 0, 1 */
  g_assert_cmpstr (gtk_picture_get_alternative_text (f->picture), ==,
                   "Sample images labelled T-shirt/top, Trouser, Pullover, Dress, Coat, Sandal, "
                   "Shirt, Sneaker, Bag, Ankle boot, T-shirt/top, Trouser");
  tb_test_spin (200);
  if (!tb_test_screenshot (f->window, SCREENSHOT_DIR "/screenshot-data-fashion.png", &error))
    g_test_message ("screenshot: %s", error->message);
}

static void
test_mnist_digits (Fixture       *f,
                   gconstpointer  data)
{
  choose (f, "mnist", 12);
  g_assert_cmpstr (gtk_picture_get_alternative_text (f->picture), ==,
                   "Sample images labelled 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1");
}

static void
test_counts_grouped (Fixture       *f,
                     gconstpointer  data)
{
  /* the tests run in C.UTF-8, which groups nothing itself */
  choose (f, "many", 12345);
  g_assert_cmpstr (gtk_label_get_text (f->summary), ==,
                   "many: 12" NNBSP "345 training and 4 test images of 28×28×1, 10 classes");
}

int
main (int    argc,
      char **argv)
{
  int status;

  if ((status = tb_test_gui_init (&argc, &argv, &root)) >= 0)
    return status;
  g_test_add ("/data-page/fashion-class-names", Fixture, NULL,
              fixture_set_up, test_fashion_class_names, fixture_tear_down);
  g_test_add ("/data-page/mnist-digits", Fixture, NULL,
              fixture_set_up, test_mnist_digits, fixture_tear_down);
  g_test_add ("/data-page/counts-grouped", Fixture, NULL,
              fixture_set_up, test_counts_grouped, fixture_tear_down);
  return g_test_run ();
}
