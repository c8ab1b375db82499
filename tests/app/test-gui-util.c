/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-gui-util.c: see test-gui-util.h. */
#include <string.h>

#include <glib/gstdio.h>

#include "test-gui-util.h"

#include <adwaita.h>

static char *tmp_root;

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  if (dir != NULL)
    while ((name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *child = g_build_filename (path, name, NULL);

        if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
          remove_tree (child);
        else
          g_unlink (child);
      }
  g_rmdir (path);
}

static void
cleanup (void)
{
  if (tmp_root != NULL && g_getenv ("KEEP_TEST_FILES") == NULL)
    remove_tree (tmp_root);
}

const char *
tb_test_setup_env (void)
{
  if (tmp_root != NULL)
    return tmp_root;
  tmp_root = g_dir_make_tmp ("trainbench-test-XXXXXX", NULL);
  g_assert_nonnull (tmp_root);
  g_setenv ("XDG_DATA_HOME", tmp_root, TRUE);
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_setenv ("GIO_USE_VFS", "local", TRUE);
  atexit (cleanup);
  return tmp_root;
}

static GLogWriterOutput
log_writer_cb (GLogLevelFlags   log_level,
               const GLogField *fields,
               gsize            n_fields,
               gpointer         user_data)
{
  for (gsize i = 0; i < n_fields; i++)
    if (g_strcmp0 (fields[i].key, "MESSAGE") == 0 && fields[i].length < 0)
      {
        const char *message = fields[i].value;

        if (strstr (message, "session bus") != NULL || strstr (message, "dbus-launch") != NULL)
          return G_LOG_WRITER_HANDLED;
      }
  return g_log_writer_default (log_level, fields, n_fields, user_data);
}

void
tb_test_allow_no_session_bus (void)
{
  g_log_set_writer_func (log_writer_cb, NULL, NULL);
}

int
tb_test_gui_init (int          *argc,
                  char       ***argv,
                  const char  **root)
{
  const char *folder = tb_test_setup_env ();

  if (root != NULL)
    *root = folder;
  g_test_init (argc, argv, NULL);
  tb_test_allow_no_session_bus ();
  if (!gtk_init_check ())
    {
      if (g_getenv ("TRAINBENCH_REQUIRE_DISPLAY") != NULL)
        {
          g_print ("Bail out! no display although TRAINBENCH_REQUIRE_DISPLAY is set\n");
          return 1;
        }
      g_print ("1..0 # SKIP no display (run under Xvfb)\n");
      return 0;
    }
  adw_init ();
  return -1;
}

static gboolean
write_be32 (FILE    *f,
            guint32  v)
{
  guint8 b[4] = { v >> 24, v >> 16, v >> 8, v };

  return fwrite (b, 1, 4, f) == 4;
}

static gboolean
write_split (const char *folder,
             const char *images_name,
             const char *labels_name,
             int         count,
             int         classes,
             guint32     seed)
{
  g_autofree char *ip = g_build_filename (folder, images_name, NULL);
  g_autofree char *lp = g_build_filename (folder, labels_name, NULL);
  FILE *fi = fopen (ip, "wb");
  FILE *fl = fopen (lp, "wb");
  GRand *rand = g_rand_new_with_seed (seed);
  gboolean ok = fi != NULL && fl != NULL;

  ok = ok && write_be32 (fi, 0x00000803) && write_be32 (fi, count) && write_be32 (fi, 28) && write_be32 (fi, 28);
  ok = ok && write_be32 (fl, 0x00000801) && write_be32 (fl, count);
  for (int i = 0; ok && i < count; i++)
    {
      guint8 label = (guint8) (i % classes);
      guint8 img[28 * 28]; /* (28, 28) */

      /* class k: a bright horizontal bar at row 3 + 2k, plus noise */
      for (int p = 0; p < 28 * 28; p++)
        {
          int row = p / 28;
          int bar = 3 + 2 * label;

          img[p] = (guint8) ((row >= bar && row < bar + 2 ? 200 : 0) + g_rand_int_range (rand, 0, 40));
        }
      ok = fwrite (img, 1, sizeof img, fi) == sizeof img && fwrite (&label, 1, 1, fl) == 1;
    }
  if (fi != NULL)
    ok = (fclose (fi) == 0) && ok;
  if (fl != NULL)
    ok = (fclose (fl) == 0) && ok;
  g_rand_free (rand);
  return ok;
}

TbApplication *
tb_test_app_new (GApplicationFlags flags)
{
  TbApplication *app = tb_application_new ();

  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_NON_UNIQUE | flags);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));
  return app;
}

gboolean
tb_test_write_idx (const char *folder,
                   int         train,
                   int         test,
                   int         classes)
{
  if (g_mkdir_with_parents (folder, 0755) != 0)
    return FALSE;
  return write_split (folder, "train-images-idx3-ubyte", "train-labels-idx1-ubyte", train, classes, 1)
         && write_split (folder, "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte", test, classes, 2);
}

gboolean
tb_test_wait_for (gboolean *flag,
                  double    timeout_s)
{
  gint64 end = g_get_monotonic_time () + (gint64) (timeout_s * G_USEC_PER_SEC);

  while (!*flag && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE) || (g_usleep (1000), TRUE);
  return *flag;
}

gboolean
tb_test_wait_until (gboolean (*check) (gpointer data),
                    gpointer  data,
                    double    timeout_s)
{
  gint64 end = g_get_monotonic_time () + (gint64) (timeout_s * G_USEC_PER_SEC);

  while (!check (data) && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE) || (g_usleep (1000), TRUE);
  return check (data);
}

void
tb_test_spin (guint ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;

  while (g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE) || (g_usleep (1000), TRUE);
}

gboolean
tb_test_screenshot (GtkWidget  *widget,
                    const char *path,
                    GError    **error)
{
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  g_autoptr(GtkSnapshot) snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  GskRenderer *renderer;
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);

  if (width <= 0 || height <= 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "the widget has no size yet");
      return FALSE;
    }
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  if (node == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "nothing was drawn");
      return FALSE;
    }
  renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, width, height));
  if (!gdk_texture_save_to_png (texture, path))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "could not write %s", path);
      return FALSE;
    }
  return TRUE;
}

GtkWindow *
tb_test_newest_dialog (GtkWindow *main)
{
  GListModel *toplevels = gtk_window_get_toplevels ();
  GtkWindow *found = NULL;

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) w = g_list_model_get_item (toplevels, i);

      if (w != main && gtk_widget_get_visible (GTK_WIDGET (w)))
        found = w;
    }
  return found;
}
