/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-data-page.c: the Data page: the known data sets, any IDX folder or
 * .npz file, "Download MNIST", how many samples to use, and a preview of
 * sample images loaded in a worker thread.
 */
#define G_LOG_DOMAIN "trainbench-data-page"

#include "tb-config.h"

#include <glib/gi18n.h>
#include <pango/pangocairo.h>

#include "tb-application.h"
#include "tb-data-page.h"
#include "tb-download.h"
#include "tb-error.h"
#include "tb-format.h"
#include "tb-session.h"
#include "tb-window.h"

struct _TbDataPage
{
  GtkWidget parent_instance;

  /* owned */
  GSettings *settings;
  char *dataset;                 /* chosen data set: name or path */
  GPtrArray *checks;             /* GtkCheckButton *: the radio of each known set */
  GCancellable *download_cancellable;
  GCancellable *preview_cancellable;
  gboolean updating;             /* the radios follow a choice made in code */

  /* template widgets */
  GtkWidget *scroller;
  GtkWidget *dataset_group;      /* AdwPreferencesGroup of known sets */
  GtkWidget *other_row;          /* AdwActionRow for a chosen file */
  GtkWidget *other_check;
  GtkWidget *download_button;
  GtkWidget *download_cancel;
  GtkWidget *download_progress;
  GtkWidget *train_limit_spin;
  GtkWidget *test_limit_spin;
  GtkWidget *samples_picture;
  GtkWidget *samples_label;
};

G_DEFINE_FINAL_TYPE (TbDataPage, tb_data_page, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_DATASET,
  N_PROPS
};

enum
{
  SIGNAL_INPUT_CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* The window the page is in, for its toasts and dialogs (NULL before it is
 * in one). */
static TbWindow *
get_window (TbDataPage *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  return TB_IS_WINDOW (root) ? TB_WINDOW (root) : NULL;
}

static void
show_error (TbDataPage   *self,
            const char   *headline,
            const GError *error)
{
  TbWindow *window = get_window (self);

  if (window != NULL)
    tb_window_error (window, headline, error);
}

static void
show_toast (TbDataPage *self,
            const char *text)
{
  TbWindow *window = get_window (self);

  if (window != NULL)
    tb_window_toast (window, text);
}

#define PREVIEW_COLS 12
#define PREVIEW_ROWS 3
#define PREVIEW_SCALE 2
#define PREVIEW_LABEL 14

typedef struct
{
  char *name;            /* the data set's own name */
  int train_count;
  int test_count;
  NnInputShape input;
  int classes;
  cairo_surface_t *grid; /* sample images with their labels */
  char *labels;          /* the labels drawn, in words, for the picture's alternative text */
} Preview;

/* Fashion-MNIST's classes, in the order of its labels 0 to 9. */
static const char *const fashion_classes[] = {
  NC_("Fashion-MNIST class", "T-shirt/top"),
  NC_("Fashion-MNIST class", "Trouser"),
  NC_("Fashion-MNIST class", "Pullover"),
  NC_("Fashion-MNIST class", "Dress"),
  NC_("Fashion-MNIST class", "Coat"),
  NC_("Fashion-MNIST class", "Sandal"),
  NC_("Fashion-MNIST class", "Shirt"),
  NC_("Fashion-MNIST class", "Sneaker"),
  NC_("Fashion-MNIST class", "Bag"),
  NC_("Fashion-MNIST class", "Ankle boot"),
};

/* What a sample's label means: a Fashion-MNIST class name, or the number
 * itself (MNIST's digits, and any other data set's classes). Fashion-MNIST
 * is known by its name, which a folder of its IDX files or its .npz has
 * too ("fashion-mnist", Debian's /usr/share/datasets/fashion-mnist). */
static char *
label_text (const char *dataset,
            int         classes,
            int         label)
{
  if (g_ascii_strncasecmp (dataset, "fashion", 7) == 0 && classes <= (int) G_N_ELEMENTS (fashion_classes)
      && label >= 0 && label < classes)
    return g_strdup (g_dpgettext2 (GETTEXT_PACKAGE, "Fashion-MNIST class", fashion_classes[label]));
  return g_strdup_printf ("%d", label);
}

static void
preview_free (Preview *p)
{
  g_free (p->name);
  g_free (p->labels);
  if (p->grid != NULL)
    cairo_surface_destroy (p->grid);
  g_free (p);
}

/* Worker: load the set and draw the first samples into an image. */
static void
preview_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  const char *what = task_data;
  NnDataset *ds = NULL;
  NnError err = { 0 };
  Preview *p;
  int cell_w, cell_h, n;
  cairo_t *cr;
  PangoLayout *layout;
  PangoFontDescription *font;
  GString *labels;

  if (nn_dataset_load (what, &ds, &err) != NN_OK)
    {
      g_task_return_error (task, tb_error_new (&err));
      return;
    }

  p = g_new0 (Preview, 1);
  p->name = g_strdup (ds->name);
  p->train_count = ds->train.count;
  p->test_count = ds->test.count;
  p->input = (NnInputShape) { ds->train.channels, ds->train.height, ds->train.width };
  p->classes = ds->classes;

  cell_w = ds->train.width * PREVIEW_SCALE + 4;
  cell_h = ds->train.height * PREVIEW_SCALE + PREVIEW_LABEL + 4;
  n = MIN (ds->train.count, PREVIEW_COLS * PREVIEW_ROWS);
  p->grid = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, cell_w * PREVIEW_COLS, cell_h * PREVIEW_ROWS);
  cr = cairo_create (p->grid);
  cairo_set_source_rgba (cr, 0, 0, 0, 0);
  cairo_paint (cr);
  /* a class name as wide as its cell at most, centred under the image */
  layout = pango_cairo_create_layout (cr);
  font = pango_font_description_from_string ("Sans");
  pango_font_description_set_absolute_size (font, 10 * PANGO_SCALE);
  pango_layout_set_font_description (layout, font);
  pango_font_description_free (font);
  pango_layout_set_width (layout, (cell_w - 2) * PANGO_SCALE);
  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
  pango_layout_set_alignment (layout, PANGO_ALIGN_CENTER);
  pango_layout_set_single_paragraph_mode (layout, TRUE);
  labels = g_string_new (NULL);

  for (int i = 0; i < n; i++)
    {
      int h = ds->train.height, w = ds->train.width, c = ds->train.channels;
      const guint8 *img = ds->train.images + (gsize) i * c * h * w; /* (C, H, W) */
      cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, w, h);
      guint8 *data = cairo_image_surface_get_data (s);
      int stride = cairo_image_surface_get_stride (s);
      int x0 = (i % PREVIEW_COLS) * cell_w + 2, y0 = (i / PREVIEW_COLS) * cell_h + 2;
      g_autofree char *label = label_text (ds->name, ds->classes, ds->train.labels[i]);
      int label_h;

      cairo_surface_flush (s);
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          {
            guint32 *px = (guint32 *) (data + y * stride) + x;
            guint8 r = img[(0 * h + y) * w + x];
            guint8 g = c >= 3 ? img[(1 * h + y) * w + x] : r;
            guint8 b = c >= 3 ? img[(2 * h + y) * w + x] : r;

            *px = ((guint32) r << 16) | ((guint32) g << 8) | b;
          }
      cairo_surface_mark_dirty (s);

      cairo_save (cr);
      cairo_translate (cr, x0, y0);
      cairo_scale (cr, PREVIEW_SCALE, PREVIEW_SCALE);
      cairo_set_source_surface (cr, s, 0, 0);
      cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
      cairo_paint (cr);
      cairo_restore (cr);
      cairo_surface_destroy (s);

      cairo_set_source_rgb (cr, 0.5, 0.5, 0.5);
      pango_layout_set_text (layout, label, -1);
      pango_layout_get_pixel_size (layout, NULL, &label_h);
      cairo_move_to (cr, x0 - 1, y0 + h * PREVIEW_SCALE + (PREVIEW_LABEL - label_h) / 2 + 1);
      pango_cairo_show_layout (cr, layout);

      if (labels->len > 0)
        /* Translators: between the labels of the sample images, for a screen reader */
        g_string_append (labels, C_("list of sample labels", ", "));
      g_string_append (labels, label);
    }
  g_object_unref (layout);
  cairo_destroy (cr);
  p->labels = g_string_free (labels, FALSE);
  cairo_surface_flush (p->grid);
  nn_dataset_free (ds);

  g_task_return_pointer (task, p, (GDestroyNotify) preview_free);
}

static void
preview_done_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(TbDataPage) self = user_data;
  g_autoptr(GError) error = NULL;
  Preview *p = g_task_propagate_pointer (G_TASK (result), &error);
  const char *what = g_task_get_task_data (G_TASK (result));

  if (p == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      /* only the latest request matters */
      if (g_strcmp0 (what, self->dataset) == 0)
        {
          g_clear_pointer (&self->dataset, g_free);
          gtk_label_set_text (GTK_LABEL (self->samples_label), error->message);
          gtk_picture_set_paintable (GTK_PICTURE (self->samples_picture), NULL);
          gtk_picture_set_alternative_text (GTK_PICTURE (self->samples_picture), NULL);
          show_error (self, _("The data set could not be loaded"), error);
          g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DATASET]);
        }
      return;
    }

  if (g_strcmp0 (what, self->dataset) == 0)
    {
      g_autofree char *text = NULL;
      g_autofree char *train = tb_format_count (p->train_count);
      g_autofree char *test = tb_format_count (p->test_count);
      g_autoptr(GBytes) bytes = NULL;
      g_autoptr(GdkTexture) texture = NULL;
      int w = cairo_image_surface_get_width (p->grid);
      int h = cairo_image_surface_get_height (p->grid);
      int stride = cairo_image_surface_get_stride (p->grid);

      text = g_strdup_printf (_("%s: %s training and %s test images of %d×%d×%d, %d classes"),
                              p->name, train, test,
                              p->input.height, p->input.width, p->input.channels, p->classes);
      gtk_label_set_text (GTK_LABEL (self->samples_label), text);
      {
        g_autofree char *alternative = g_strdup_printf (_("Sample images labelled %s"), p->labels);

        gtk_picture_set_alternative_text (GTK_PICTURE (self->samples_picture), alternative);
      }
      bytes = g_bytes_new (cairo_image_surface_get_data (p->grid), (gsize) stride * h);
      texture = gdk_memory_texture_new (w, h, GDK_MEMORY_DEFAULT, bytes, (gsize) stride);
      gtk_picture_set_paintable (GTK_PICTURE (self->samples_picture), GDK_PAINTABLE (texture));
      g_signal_emit (self, signals[SIGNAL_INPUT_CHANGED], 0,
                     p->input.channels, p->input.height, p->input.width, p->classes);
    }
  preview_free (p);
}

void
tb_data_page_set_dataset (TbDataPage *self,
                          const char *name_or_path)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (TB_IS_DATA_PAGE (self));
  g_return_if_fail (name_or_path != NULL);

  g_free (self->dataset);
  self->dataset = g_strdup (name_or_path);
  g_settings_set_string (self->settings, "last-dataset", name_or_path);

  /* reflect the choice in the radio rows */
  {
    GtkCheckButton *check = NULL;
    GPtrArray *checks = self->checks;

    for (guint i = 0; checks != NULL && i < checks->len; i++)
      {
        GtkCheckButton *c = g_ptr_array_index (checks, i);

        if (g_strcmp0 (g_object_get_data (G_OBJECT (c), "dataset"), name_or_path) == 0)
          check = c;
      }
    if (check == NULL)
      {
        check = GTK_CHECK_BUTTON (self->other_check);
        g_object_set_data_full (G_OBJECT (check), "dataset", g_strdup (name_or_path), g_free);
        adw_action_row_set_subtitle (ADW_ACTION_ROW (self->other_row), name_or_path);
        gtk_widget_set_sensitive (self->other_check, TRUE);
      }
    self->updating = TRUE;
    gtk_check_button_set_active (check, TRUE);
    self->updating = FALSE;
  }

  gtk_label_set_text (GTK_LABEL (self->samples_label), _("Loading…"));
  if (self->preview_cancellable != NULL)
    g_cancellable_cancel (self->preview_cancellable);
  g_clear_object (&self->preview_cancellable);
  self->preview_cancellable = g_cancellable_new ();
  task = g_task_new (NULL, self->preview_cancellable, preview_done_cb, g_object_ref (self));
  g_task_set_task_data (task, g_strdup (name_or_path), g_free);
  g_task_set_return_on_cancel (task, TRUE);
  g_task_run_in_thread (task, preview_thread);

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DATASET]);
}

const char *
tb_data_page_get_dataset (TbDataPage *self)
{
  g_return_val_if_fail (TB_IS_DATA_PAGE (self), NULL);
  return self->dataset;
}

void
tb_data_page_set_limits (TbDataPage *self,
                         int         train_limit,
                         int         test_limit)
{
  g_return_if_fail (TB_IS_DATA_PAGE (self));
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->train_limit_spin), train_limit);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->test_limit_spin), test_limit);
}

int
tb_data_page_get_train_limit (TbDataPage *self)
{
  g_return_val_if_fail (TB_IS_DATA_PAGE (self), 0);
  return gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->train_limit_spin));
}

int
tb_data_page_get_test_limit (TbDataPage *self)
{
  g_return_val_if_fail (TB_IS_DATA_PAGE (self), 0);
  return gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->test_limit_spin));
}

static void
dataset_toggled_cb (GtkCheckButton *check,
                    TbDataPage     *self)
{
  const char *what = g_object_get_data (G_OBJECT (check), "dataset");

  if (!gtk_check_button_get_active (check) || what == NULL)
    return;
  if (self->updating)
    return;
  if (g_strcmp0 (what, self->dataset) != 0)
    tb_data_page_set_dataset (self, what);
}

static void
open_response_cb (GtkNativeDialog *dialog,
                  int              response,
                  TbDataPage      *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = g_file_get_path (file);

      if (path != NULL)
        tb_data_page_set_dataset (self, path);
      else
        show_toast (self, _("Only local files can be used"));
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
  g_object_unref (self);
}

static void
open_data (TbDataPage *self,
           gboolean    folder)
{
  GtkFileChooserNative *dialog =
    gtk_file_chooser_native_new (folder ? _("Open an IDX Folder") : _("Open a .npz File"),
                                 GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (self))),
                                 folder ? GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER : GTK_FILE_CHOOSER_ACTION_OPEN,
                                 _("_Open"), _("_Cancel"));

  if (!folder)
    {
      GtkFileFilter *filter = gtk_file_filter_new ();

      gtk_file_filter_set_name (filter, _("NumPy archives (.npz)"));
      gtk_file_filter_add_suffix (filter, "npz");
      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
      g_object_unref (filter);
    }
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  g_signal_connect (dialog, "response", G_CALLBACK (open_response_cb), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
open_folder_cb (GtkButton *button,
                TbDataPage *self)
{
  open_data (self, TRUE);
}

static void
open_npz_cb (GtkButton *button,
             TbDataPage *self)
{
  open_data (self, FALSE);
}

/* ------------------------------------------------------------ download */

static char *
mnist_download_path (void)
{
  char dir[4096];

  nn_dataset_user_dir (dir, sizeof dir);
  return g_build_filename (dir, "mnist.npz", NULL);
}

static void
download_progress_cb (gint64   received,
                      gint64   total,
                      gpointer user_data)
{
  TbDataPage *self = user_data;
  g_autofree char *got = g_format_size_full ((guint64) received, G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *text = NULL;

  if (self->download_cancellable == NULL)
    return;
  if (total > 0)
    {
      g_autofree char *all = g_format_size_full ((guint64) total, G_FORMAT_SIZE_IEC_UNITS);

      text = g_strdup_printf (_("%s of %s"), got, all);
      gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->download_progress), (double) received / (double) total);
    }
  else
    {
      text = g_strdup (got);
      gtk_progress_bar_pulse (GTK_PROGRESS_BAR (self->download_progress));
    }
  gtk_progress_bar_set_text (GTK_PROGRESS_BAR (self->download_progress), text);
}

static void
download_done_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(TbDataPage) self = user_data;
  g_autoptr(GError) error = NULL;

  g_clear_object (&self->download_cancellable);
  gtk_widget_set_visible (self->download_progress, FALSE);
  gtk_widget_set_visible (self->download_cancel, FALSE);
  gtk_widget_set_visible (self->download_button, TRUE);

  if (!tb_download_finish (result, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        show_toast (self, _("Download cancelled"));
      else
        show_error (self, _("MNIST could not be downloaded"), error);
      return;
    }
  {
    g_autofree char *path = mnist_download_path ();
    GPtrArray *checks = self->checks;
    const char *choice = path;

    /* the known "mnist" row is now available: it finds the downloaded file */
    for (guint i = 0; checks != NULL && i < checks->len; i++)
      {
        GtkWidget *check = g_ptr_array_index (checks, i);
        GtkWidget *row = gtk_widget_get_ancestor (check, ADW_TYPE_ACTION_ROW);

        if (g_strcmp0 (g_object_get_data (G_OBJECT (check), "dataset"), "mnist") == 0 && row != NULL)
          {
            gtk_widget_set_sensitive (row, TRUE);
            adw_action_row_set_subtitle (ADW_ACTION_ROW (row), path);
            choice = "mnist";
          }
      }
    show_toast (self, _("MNIST downloaded and checked"));
    tb_data_page_set_dataset (self, choice);
  }
}

static void
download_cb (GtkButton *button,
             TbDataPage *self)
{
  g_autofree char *path = mnist_download_path ();
  const char *url;

  if (self->download_cancellable != NULL)
    return;
  self->download_cancellable = g_cancellable_new ();
  gtk_widget_set_visible (self->download_button, FALSE);
  gtk_widget_set_visible (self->download_cancel, TRUE);
  gtk_widget_set_visible (self->download_progress, TRUE);
  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->download_progress), 0);
  gtk_progress_bar_set_text (GTK_PROGRESS_BAR (self->download_progress), _("Connecting…"));
  url = g_getenv ("TRAINBENCH_MNIST_URL");
  if (url == NULL || *url == '\0')
    url = TB_MNIST_URL;
  tb_download_async (url, path, TB_MNIST_SHA256, TB_MNIST_SIZE, TB_DOWNLOAD_DEADLINE_S,
                     download_progress_cb, self, self->download_cancellable,
                     download_done_cb, g_object_ref (self));
}

static void
download_cancel_cb (GtkButton *button,
                    TbDataPage *self)
{
  if (self->download_cancellable != NULL)
    g_cancellable_cancel (self->download_cancellable);
}

/* ------------------------------------------------------------ page */

/* A radio row per known data set, before "Other data set"; the one used
 * last (or the first available) is chosen. */
static void
add_known_rows (TbDataPage *self)
{
  NnDatasetLocation known[8];
  int n = nn_dataset_list_known (known, G_N_ELEMENTS (known));
  g_autofree char *last = g_settings_get_string (self->settings, "last-dataset");
  const char *initial = NULL;
  GtkWidget *other = g_object_ref (self->other_row);

  /* a preferences group only appends: the row of a chosen file goes after
   * the known ones again */
  adw_preferences_group_remove (ADW_PREFERENCES_GROUP (self->dataset_group), other);
  for (int i = 0; i < n; i++)
    {
      GtkWidget *check = gtk_check_button_new ();
      GtkWidget *row = adw_action_row_new ();

      /* a path is text: "&" or "<" in it is no markup */
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), known[i].name);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), known[i].available ? known[i].path : known[i].reason);
      adw_action_row_add_prefix (ADW_ACTION_ROW (row), check);
      adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), check);
      gtk_accessible_update_relation (GTK_ACCESSIBLE (check), GTK_ACCESSIBLE_RELATION_LABELLED_BY, row, NULL, -1);
      gtk_widget_set_sensitive (row, known[i].available);
      g_object_set_data_full (G_OBJECT (check), "dataset", g_strdup (known[i].name), g_free);
      if (self->checks->len > 0)
        gtk_check_button_set_group (GTK_CHECK_BUTTON (check), g_ptr_array_index (self->checks, 0));
      g_signal_connect (check, "toggled", G_CALLBACK (dataset_toggled_cb), self);
      g_ptr_array_add (self->checks, check);
      adw_preferences_group_add (ADW_PREFERENCES_GROUP (self->dataset_group), row);
      if (known[i].available && (initial == NULL || g_strcmp0 (last, known[i].name) == 0))
        initial = known[i].name;
    }
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (self->dataset_group), other);
  g_object_unref (other);
  if (self->checks->len > 0)
    gtk_check_button_set_group (GTK_CHECK_BUTTON (self->other_check), g_ptr_array_index (self->checks, 0));

  if (last != NULL && *last && g_path_is_absolute (last) && g_file_test (last, G_FILE_TEST_EXISTS))
    initial = last;
  if (initial != NULL)
    tb_data_page_set_dataset (self, initial);
}

static void
tb_data_page_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  TbDataPage *self = TB_DATA_PAGE (object);

  switch (prop_id)
    {
    case PROP_DATASET:
      g_value_set_string (value, self->dataset);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tb_data_page_dispose (GObject *object)
{
  TbDataPage *self = TB_DATA_PAGE (object);

  if (self->download_cancellable != NULL)
    g_cancellable_cancel (self->download_cancellable);
  if (self->preview_cancellable != NULL)
    g_cancellable_cancel (self->preview_cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), TB_TYPE_DATA_PAGE);
  G_OBJECT_CLASS (tb_data_page_parent_class)->dispose (object);
}

static void
tb_data_page_finalize (GObject *object)
{
  TbDataPage *self = TB_DATA_PAGE (object);

  g_clear_object (&self->settings);
  g_clear_object (&self->download_cancellable);
  g_clear_object (&self->preview_cancellable);
  g_clear_pointer (&self->checks, g_ptr_array_unref);
  g_free (self->dataset);
  G_OBJECT_CLASS (tb_data_page_parent_class)->finalize (object);
}

static void
tb_data_page_class_init (TbDataPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = tb_data_page_get_property;
  object_class->dispose = tb_data_page_dispose;
  object_class->finalize = tb_data_page_finalize;

  /* the chosen data set (name or path), NULL until one is, or again once
   * it failed to load */
  properties[PROP_DATASET] =
    g_param_spec_string ("dataset", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* TbDataPage::input-changed: (channels, height, width, classes) the
   * chosen data set is loaded: the shape of one sample and its classes. */
  signals[SIGNAL_INPUT_CHANGED] =
    g_signal_new ("input-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 4, G_TYPE_INT, G_TYPE_INT, G_TYPE_INT, G_TYPE_INT);

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/tb-data-page.ui");
  gtk_widget_class_bind_template_child (widget_class, TbDataPage, scroller);
  gtk_widget_class_bind_template_child (widget_class, TbDataPage, dataset_group);
  gtk_widget_class_bind_template_child (widget_class, TbDataPage, other_row);
  gtk_widget_class_bind_template_child (widget_class, TbDataPage, other_check);
  gtk_widget_class_bind_template_child (widget_class, TbDataPage, download_button);
  gtk_widget_class_bind_template_child (widget_class, TbDataPage, download_cancel);
  gtk_widget_class_bind_template_child (widget_class, TbDataPage, download_progress);
  gtk_widget_class_bind_template_child (widget_class, TbDataPage, train_limit_spin);
  gtk_widget_class_bind_template_child (widget_class, TbDataPage, test_limit_spin);
  gtk_widget_class_bind_template_child (widget_class, TbDataPage, samples_picture);
  gtk_widget_class_bind_template_child (widget_class, TbDataPage, samples_label);
  gtk_widget_class_bind_template_callback (widget_class, dataset_toggled_cb);
  gtk_widget_class_bind_template_callback (widget_class, open_folder_cb);
  gtk_widget_class_bind_template_callback (widget_class, open_npz_cb);
  gtk_widget_class_bind_template_callback (widget_class, download_cb);
  gtk_widget_class_bind_template_callback (widget_class, download_cancel_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
tb_data_page_init (TbDataPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->settings = tb_settings_new ();
  self->checks = g_ptr_array_new ();
  gtk_widget_set_size_request (self->samples_picture, -1,
                               PREVIEW_ROWS * (28 * PREVIEW_SCALE + PREVIEW_LABEL + 4));
  g_settings_bind (self->settings, "train-limit", self->train_limit_spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "test-limit", self->test_limit_spin, "value", G_SETTINGS_BIND_DEFAULT);
  add_known_rows (self);
}
