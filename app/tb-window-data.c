/* tb-window-data.c: the Data page: the known data sets, any IDX folder or
 * .npz file, "Download MNIST", how many samples to use, and a preview of
 * sample images loaded in a worker thread.
 */
#define G_LOG_DOMAIN "trainbench-window"

#include "tb-config.h"

#include <glib/gi18n.h>

#include "tb-download.h"
#include "tb-window-private.h"

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
} Preview;

static void
preview_free (Preview *p)
{
  g_free (p->name);
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

  if (nn_dataset_load (what, &ds, &err) != NN_OK)
    {
      g_task_return_new_error (task, TB_SESSION_ERROR, err.code, "%s", err.message);
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

  for (int i = 0; i < n; i++)
    {
      int h = ds->train.height, w = ds->train.width, c = ds->train.channels;
      const guint8 *img = ds->train.images + (gsize) i * c * h * w; /* (C, H, W) */
      cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, w, h);
      guint8 *data = cairo_image_surface_get_data (s);
      int stride = cairo_image_surface_get_stride (s);
      int x0 = (i % PREVIEW_COLS) * cell_w + 2, y0 = (i / PREVIEW_COLS) * cell_h + 2;
      char label[16];

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

      g_snprintf (label, sizeof label, "%d", ds->train.labels[i]);
      cairo_set_source_rgb (cr, 0.5, 0.5, 0.5);
      cairo_select_font_face (cr, "Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
      cairo_set_font_size (cr, 11);
      cairo_move_to (cr, x0 + w * PREVIEW_SCALE / 2 - 3, y0 + h * PREVIEW_SCALE + PREVIEW_LABEL - 2);
      cairo_show_text (cr, label);
    }
  cairo_destroy (cr);
  cairo_surface_flush (p->grid);
  nn_dataset_free (ds);

  g_task_return_pointer (task, p, (GDestroyNotify) preview_free);
}

static void
preview_done_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(TbWindow) self = user_data;
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
          tb_window_error (self, _("The data set could not be loaded"), error);
          _tb_window_update_actions (self);
        }
      return;
    }

  if (g_strcmp0 (what, self->dataset) == 0)
    {
      g_autofree char *text = NULL;
      g_autoptr(GBytes) bytes = NULL;
      g_autoptr(GdkTexture) texture = NULL;
      int w = cairo_image_surface_get_width (p->grid);
      int h = cairo_image_surface_get_height (p->grid);
      int stride = cairo_image_surface_get_stride (p->grid);

      text = g_strdup_printf (_("%s: %d training and %d test images of %d×%d×%d, %d classes"),
                              p->name, p->train_count, p->test_count,
                              p->input.height, p->input.width, p->input.channels, p->classes);
      gtk_label_set_text (GTK_LABEL (self->samples_label), text);
      bytes = g_bytes_new (cairo_image_surface_get_data (p->grid), (gsize) stride * h);
      texture = gdk_memory_texture_new (w, h, GDK_MEMORY_DEFAULT, bytes, (gsize) stride);
      gtk_picture_set_paintable (GTK_PICTURE (self->samples_picture), GDK_PAINTABLE (texture));
      tb_model_builder_set_input (self->builder, p->input, p->classes);
    }
  preview_free (p);
}

void
_tb_window_data_set (TbWindow   *self,
                     const char *name_or_path)
{
  g_autoptr(GTask) task = NULL;

  g_free (self->dataset);
  self->dataset = g_strdup (name_or_path);
  if (self->settings != NULL)
    g_settings_set_string (self->settings, "last-dataset", name_or_path);

  /* reflect the choice in the radio rows */
  {
    GtkCheckButton *check = NULL;
    GPtrArray *checks = g_object_get_data (G_OBJECT (self->dataset_group), "checks");

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
    g_object_set_data (G_OBJECT (self->dataset_group), "updating", GINT_TO_POINTER (1));
    gtk_check_button_set_active (check, TRUE);
    g_object_set_data (G_OBJECT (self->dataset_group), "updating", NULL);
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

  _tb_window_update_actions (self);
}

int
_tb_window_data_train_limit (TbWindow *self)
{
  return gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->train_limit_spin));
}

int
_tb_window_data_test_limit (TbWindow *self)
{
  return gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->test_limit_spin));
}

static void
dataset_toggled_cb (GtkCheckButton *check,
                    TbWindow       *self)
{
  const char *what = g_object_get_data (G_OBJECT (check), "dataset");

  if (!gtk_check_button_get_active (check) || what == NULL)
    return;
  if (g_object_get_data (G_OBJECT (self->dataset_group), "updating") != NULL)
    return;
  if (g_strcmp0 (what, self->dataset) != 0)
    _tb_window_data_set (self, what);
}

static void
open_response_cb (GtkNativeDialog *dialog,
                  int              response,
                  TbWindow        *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = g_file_get_path (file);

      if (path != NULL)
        _tb_window_data_set (self, path);
      else
        tb_window_toast (self, _("Only local files can be used"));
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
  g_object_unref (self);
}

static void
open_data (TbWindow *self,
           gboolean  folder)
{
  GtkFileChooserNative *dialog =
    gtk_file_chooser_native_new (folder ? _("Open an IDX Folder") : _("Open a .npz File"),
                                 GTK_WINDOW (self),
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
                TbWindow  *self)
{
  open_data (self, TRUE);
}

static void
open_npz_cb (GtkButton *button,
             TbWindow  *self)
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
  TbWindow *self = user_data;
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
  g_autoptr(TbWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  g_clear_object (&self->download_cancellable);
  gtk_widget_set_visible (self->download_progress, FALSE);
  gtk_widget_set_visible (self->download_cancel, FALSE);
  gtk_widget_set_visible (self->download_button, TRUE);

  if (!tb_download_finish (result, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        tb_window_toast (self, _("Download cancelled"));
      else
        tb_window_error (self, _("MNIST could not be downloaded"), error);
      return;
    }
  {
    g_autofree char *path = mnist_download_path ();
    GPtrArray *checks = g_object_get_data (G_OBJECT (self->dataset_group), "checks");
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
    tb_window_toast (self, _("MNIST downloaded and checked"));
    _tb_window_data_set (self, choice);
  }
}

static void
download_cb (GtkButton *button,
             TbWindow  *self)
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
                    TbWindow  *self)
{
  if (self->download_cancellable != NULL)
    g_cancellable_cancel (self->download_cancellable);
}

/* ------------------------------------------------------------ page */

static GtkWidget *
group_new (TbWindow   *self,
           const char *title,
           const char *description)
{
  GtkWidget *group = adw_preferences_group_new ();

  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), title);
  if (description != NULL)
    adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group), description);
  gtk_box_append (self->data_page, group);
  return group;
}

static GtkWidget *
suffix_button (GtkWidget  *row,
               const char *label,
               GCallback   callback,
               gpointer    data)
{
  GtkWidget *button = gtk_button_new_with_mnemonic (label);

  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  g_signal_connect (button, "clicked", callback, data);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
  return button;
}

void
_tb_window_data_init (TbWindow *self)
{
  NnDatasetLocation known[8];
  int n = nn_dataset_list_known (known, G_N_ELEMENTS (known));
  GPtrArray *checks = g_ptr_array_new ();
  GtkWidget *group, *row, *frame;
  g_autofree char *last = g_settings_get_string (self->settings, "last-dataset");
  const char *initial = NULL;

  group = self->dataset_group = group_new (self, _("Data Set"), NULL);
  g_object_set_data_full (G_OBJECT (group), "checks", checks, (GDestroyNotify) g_ptr_array_unref);

  for (int i = 0; i < n; i++)
    {
      GtkWidget *check = gtk_check_button_new ();

      row = adw_action_row_new ();
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), known[i].name);
      if (known[i].available)
        adw_action_row_set_subtitle (ADW_ACTION_ROW (row), known[i].path);
      else
        {
          adw_action_row_set_subtitle (ADW_ACTION_ROW (row), known[i].reason);
        }
      adw_action_row_add_prefix (ADW_ACTION_ROW (row), check);
      adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), check);
      gtk_accessible_update_relation (GTK_ACCESSIBLE (check), GTK_ACCESSIBLE_RELATION_LABELLED_BY, row, NULL, -1);
      gtk_widget_set_sensitive (row, known[i].available);
      g_object_set_data_full (G_OBJECT (check), "dataset", g_strdup (known[i].name), g_free);
      if (checks->len > 0)
        gtk_check_button_set_group (GTK_CHECK_BUTTON (check), g_ptr_array_index (checks, 0));
      g_signal_connect (check, "toggled", G_CALLBACK (dataset_toggled_cb), self);
      g_ptr_array_add (checks, check);
      adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
      if (known[i].available && (initial == NULL || g_strcmp0 (last, known[i].name) == 0))
        initial = known[i].name;
    }

  self->other_row = row = adw_action_row_new ();
  self->other_check = gtk_check_button_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Other data set"));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), _("A folder of IDX files or a Keras .npz file"));
  adw_action_row_add_prefix (ADW_ACTION_ROW (row), self->other_check);
  gtk_accessible_update_relation (GTK_ACCESSIBLE (self->other_check), GTK_ACCESSIBLE_RELATION_LABELLED_BY, row, NULL, -1);
  gtk_widget_set_sensitive (self->other_check, FALSE);
  if (checks->len > 0)
    gtk_check_button_set_group (GTK_CHECK_BUTTON (self->other_check), g_ptr_array_index (checks, 0));
  g_signal_connect (self->other_check, "toggled", G_CALLBACK (dataset_toggled_cb), self);
  suffix_button (row, _("IDX _Folder…"), G_CALLBACK (open_folder_cb), self);
  suffix_button (row, _(".npz _File…"), G_CALLBACK (open_npz_cb), self);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);

  /* download */
  group = group_new (self, _("Download"), NULL);
  row = adw_action_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("MNIST from the Keras mirror"));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), _("11 MB, checked with SHA-256"));
  self->download_progress = gtk_progress_bar_new ();
  gtk_progress_bar_set_show_text (GTK_PROGRESS_BAR (self->download_progress), TRUE);
  gtk_widget_set_valign (self->download_progress, GTK_ALIGN_CENTER);
  gtk_widget_set_size_request (self->download_progress, 160, -1);
  gtk_widget_set_visible (self->download_progress, FALSE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->download_progress), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Download progress"), -1);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), self->download_progress);
  self->download_button = suffix_button (row, _("_Download MNIST"), G_CALLBACK (download_cb), self);
  self->download_cancel = suffix_button (row, _("_Cancel"), G_CALLBACK (download_cancel_cb), self);
  gtk_widget_set_visible (self->download_cancel, FALSE);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);

  /* size */
  group = group_new (self, _("Samples to Use"), _("Fewer samples make quick runs; 0 uses them all"));
  row = adw_action_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("_Training samples"));
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), TRUE);
  self->train_limit_spin = gtk_spin_button_new_with_range (0, 10000000, 1000);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->train_limit_spin), g_settings_get_int (self->settings, "train-limit"));
  gtk_widget_set_valign (self->train_limit_spin, GTK_ALIGN_CENTER);
  g_settings_bind (self->settings, "train-limit", self->train_limit_spin, "value", G_SETTINGS_BIND_DEFAULT);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), self->train_limit_spin);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), self->train_limit_spin);
  gtk_accessible_update_relation (GTK_ACCESSIBLE (self->train_limit_spin), GTK_ACCESSIBLE_RELATION_LABELLED_BY, row, NULL, -1);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
  row = adw_action_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("T_est samples"));
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), TRUE);
  self->test_limit_spin = gtk_spin_button_new_with_range (0, 10000000, 1000);
  gtk_widget_set_valign (self->test_limit_spin, GTK_ALIGN_CENTER);
  g_settings_bind (self->settings, "test-limit", self->test_limit_spin, "value", G_SETTINGS_BIND_DEFAULT);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), self->test_limit_spin);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), self->test_limit_spin);
  gtk_accessible_update_relation (GTK_ACCESSIBLE (self->test_limit_spin), GTK_ACCESSIBLE_RELATION_LABELLED_BY, row, NULL, -1);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);

  /* preview */
  group = group_new (self, _("Sample Images"), NULL);
  self->samples_label = gtk_label_new (_("No data set chosen"));
  gtk_label_set_xalign (GTK_LABEL (self->samples_label), 0);
  gtk_label_set_wrap (GTK_LABEL (self->samples_label), TRUE);
  gtk_widget_add_css_class (self->samples_label, "dim-label");
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), self->samples_label);
  frame = gtk_frame_new (NULL);
  self->samples_picture = gtk_picture_new ();
  gtk_picture_set_can_shrink (GTK_PICTURE (self->samples_picture), TRUE);
  gtk_widget_set_size_request (self->samples_picture, -1,
                               PREVIEW_ROWS * (28 * PREVIEW_SCALE + PREVIEW_LABEL + 4));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->samples_picture), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Sample images of the chosen data set with their labels"), -1);
  gtk_frame_set_child (GTK_FRAME (frame), self->samples_picture);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), frame);

  if (last != NULL && *last && g_path_is_absolute (last) && g_file_test (last, G_FILE_TEST_EXISTS))
    initial = last;
  if (initial != NULL)
    _tb_window_data_set (self, initial);
}
