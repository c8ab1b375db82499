/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-application.c: the application object: app-wide actions and keyboard
 * shortcuts, preferences and about windows, the colour scheme, and opening
 * result files given on the command line.
 */
#define G_LOG_DOMAIN "trainbench"

#include "tb-config.h"

#include <glib/gi18n.h>

#include "trainbench.h"
#include "tb-application.h"
#include "tb-platform.h"
#include "tb-preferences.h"
#include "tb-window.h"

struct _TbApplication
{
  AdwApplication parent_instance;

  /* owned */
  GSettings *settings;
};

G_DEFINE_FINAL_TYPE (TbApplication, tb_application, ADW_TYPE_APPLICATION)

GSettings *
tb_settings_new (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchemaSource) build_source = NULL;
  g_autoptr(GSettingsSchema) schema = NULL;
  const char *build_dir = tb_platform_build_dir ();

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);
  if (schema == NULL && build_dir != NULL)
    {
      /* running from the build tree: the schema compiled in BUILD/data */
      g_autofree char *dir = g_build_filename (build_dir, "data", NULL);

      build_source = g_settings_schema_source_new_from_directory (dir, source, FALSE, NULL);
      if (build_source != NULL)
        schema = g_settings_schema_source_lookup (build_source, APP_ID, TRUE);
    }
  if (schema == NULL)
    return NULL;
  return g_settings_new_full (schema, NULL, NULL);
}

static void
apply_color_scheme (TbApplication *self)
{
  g_autofree char *scheme = g_settings_get_string (self->settings, "color-scheme");
  AdwColorScheme value = ADW_COLOR_SCHEME_DEFAULT;

  if (g_strcmp0 (scheme, "light") == 0)
    value = ADW_COLOR_SCHEME_FORCE_LIGHT;
  else if (g_strcmp0 (scheme, "dark") == 0)
    value = ADW_COLOR_SCHEME_FORCE_DARK;
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), value);
}

static void
color_scheme_changed_cb (GSettings     *settings,
                         const char    *key,
                         TbApplication *self)
{
  apply_color_scheme (self);
}

/* Close every window: one that is training stops, saves its run (or its
 * sweep, and ends its batch) as cancelled and then goes; the app ends with
 * its last window. */
static void
close_windows (GApplication *app)
{
  g_autoptr(GList) windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (app)));

  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (GTK_WINDOW (l->data));
}

static void
quit_action (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  close_windows (G_APPLICATION (user_data));
}

/* SIGTERM, SIGHUP or SIGINT: as Quit, so no run in training is lost. */
static void
stop_signal_cb (gpointer user_data)
{
  close_windows (G_APPLICATION (user_data));
}

static void
preferences_action (GSimpleAction *action,
                    GVariant      *parameter,
                    gpointer       user_data)
{
  GtkApplication *app = GTK_APPLICATION (user_data);
  GtkWidget *window = tb_preferences_window_new (gtk_application_get_active_window (app));

  gtk_window_present (GTK_WINDOW (window));
}

static void
about_action (GSimpleAction *action,
              GVariant      *parameter,
              gpointer       user_data)
{
  GtkApplication *app = GTK_APPLICATION (user_data);
  const char *developers[] = { "The Trainbench contributors", NULL };
  NnSystemInfo info;
  g_autofree char *debug = NULL;

  nn_system_info (&info);
  /* "OS: Windows 7 (6.1.7601), under wine 8.0" for a Windows build run by
   * wine, so a bug report never takes it for a real Windows */
  debug = g_strdup_printf ("Trainbench %s (engine %s)\nOS: %s %s (%s)%s%s\nCPU: %s, %d cores, %d threads\n"
                           "BLAS: %s %s (%s)\nCompiler: %s\nGTK %u.%u.%u, libadwaita %u.%u.%u\n",
                           PACKAGE_VERSION, NN_VERSION_STRING, info.os_name, info.os_version,
                           info.kernel, info.os_emulated_by[0] != '\0' ? ", under " : "",
                           info.os_emulated_by, info.cpu_model, info.cpu_cores, info.cpu_threads,
                           info.blas_name, info.blas_version, info.blas_core, info.compiler,
                           gtk_get_major_version (), gtk_get_minor_version (), gtk_get_micro_version (),
                           adw_get_major_version (), adw_get_minor_version (), adw_get_micro_version ());

  adw_show_about_window (gtk_application_get_active_window (app),
                         "application-name", _("Trainbench"),
                         "application-icon", APP_ID,
                         "version", PACKAGE_VERSION,
                         "comments", _("Train small neural networks point-and-click and time them side by side: CPU against GPU, one operating system against another."),
                         "developers", developers,
                         "license-type", GTK_LICENSE_GPL_3_0,
                         "debug-info", debug,
                         /* Translators: your name(s), one per line */
                         "translator-credits", _("translator-credits"),
                         NULL);
}

static const GActionEntry app_actions[] = {
  { "quit", quit_action, NULL, NULL, NULL, { 0 } },
  { "preferences", preferences_action, NULL, NULL, NULL, { 0 } },
  { "about", about_action, NULL, NULL, NULL, { 0 } },
};

static void
tb_application_startup (GApplication *app)
{
  TbApplication *self = TB_APPLICATION (app);
  const char *quit_accels[] = { "<Control>q", NULL };
  const char *prefs_accels[] = { "<Control>comma", NULL };
  const char *import_accels[] = { "<Control>o", NULL };
  const char *csv_accels[] = { "<Control><Shift>s", NULL };

  G_APPLICATION_CLASS (tb_application_parent_class)->startup (app);

  g_action_map_add_action_entries (G_ACTION_MAP (app), app_actions, G_N_ELEMENTS (app_actions), app);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.quit", quit_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.preferences", prefs_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.import", import_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.export-csv", csv_accels);

  self->settings = tb_settings_new ();
  g_signal_connect (self->settings, "changed::color-scheme", G_CALLBACK (color_scheme_changed_cb), self);
  apply_color_scheme (self);
  gtk_window_set_default_icon_name (APP_ID);
  tb_platform_watch_stop_signals (stop_signal_cb, self);
}

static TbWindow *
get_window (GApplication *app)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window == NULL || !TB_IS_WINDOW (window))
    window = GTK_WINDOW (tb_window_new (ADW_APPLICATION (app)));
  return TB_WINDOW (window);
}

static void
tb_application_activate (GApplication *app)
{
  gtk_window_present (GTK_WINDOW (get_window (app)));
}

static void
tb_application_open (GApplication  *app,
                     GFile        **files,
                     int            n_files,
                     const char    *hint)
{
  TbWindow *window = get_window (app);

  gtk_window_present (GTK_WINDOW (window));
  tb_window_import (window, files, (guint) n_files);
}

static void
tb_application_finalize (GObject *object)
{
  TbApplication *self = TB_APPLICATION (object);

  tb_platform_unwatch_stop_signals ();
  g_clear_object (&self->settings);
  G_OBJECT_CLASS (tb_application_parent_class)->finalize (object);
}

static void
tb_application_class_init (TbApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->finalize = tb_application_finalize;
  app_class->startup = tb_application_startup;
  app_class->activate = tb_application_activate;
  app_class->open = tb_application_open;
}

static void
tb_application_init (TbApplication *self)
{
}

TbApplication *
tb_application_new (void)
{
  return g_object_new (TB_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN,
                       "resource-base-path", RESOURCE_PREFIX,
                       NULL);
}
