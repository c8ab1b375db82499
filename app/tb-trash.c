/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-trash.c: result files moved to the trash so that Undo can put them
 * back. GIO moves a file to the trash (g_file_trash) but takes one out
 * only through gvfs's trash:// backend, which a container, a Flatpak
 * without it or Windows lacks. So the file's bytes are kept when it goes,
 * and Undo takes it back out of the home trash (the freedesktop.org trash
 * specification's $XDG_DATA_HOME/Trash, where g_file_trash puts files of
 * the home's file system) when it is found there unchanged, or else writes
 * the bytes kept again. Either way nothing is lost: a file is deleted only
 * once the trash holds it.
 */
#define G_LOG_DOMAIN "trainbench-trash"

#include "tb-config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "tb-run.h"
#include "tb-trash.h"

struct _TbTrashed
{
  char *path;        /* where the file was */
  GBytes *contents;  /* what it held */
};

static char *
display_name (const char *path)
{
  g_autofree char *base = g_path_get_basename (path);

  return g_filename_display_name (base);
}

TbTrashed *
tb_trash_file (const char  *path,
               GError     **error)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GBytes) contents = NULL;
  g_autoptr(GError) local_error = NULL;
  TbTrashed *trashed;

  g_return_val_if_fail (path != NULL, NULL);

  /* read first: a file whose bytes could not be kept is not moved */
  if (!tb_run_read_file (path, &contents, error))
    return NULL;
  file = g_file_new_for_path (path);
  if (!g_file_trash (file, NULL, &local_error))
    {
      g_autofree char *name = display_name (path);

      g_set_error (error, local_error->domain, local_error->code,
                   _("“%s” was not deleted: it cannot be moved to the trash (%s)"),
                   name, local_error->message);
      return NULL;
    }
  trashed = g_new0 (TbTrashed, 1);
  trashed->path = g_file_get_path (file);
  trashed->contents = g_steal_pointer (&contents);
  return trashed;
}

const char *
tb_trashed_get_path (const TbTrashed *trashed)
{
  g_return_val_if_fail (trashed != NULL, NULL);
  return trashed->path;
}

void
tb_trashed_free (TbTrashed *trashed)
{
  if (trashed == NULL)
    return;
  g_free (trashed->path);
  g_bytes_unref (trashed->contents);
  g_free (trashed);
}

#ifdef G_OS_UNIX
/* Where each of the files went in the home trash: the newest file there
 * that went from its path with the very bytes it had (the trash may hold
 * other versions), and its .trashinfo file; NULL where none is there. The
 * trash is read once for all of them: an Undo of thousands of files read
 * every .trashinfo file once per file put back. */
static void
find_in_home_trash (TbTrashed * const *trashed,
                    guint              n,
                    GFile            **found,
                    GFile            **info)
{
  g_autofree char *trash = g_build_filename (g_get_user_data_dir (), "Trash", NULL);
  g_autofree char *info_dir = g_build_filename (trash, "info", NULL);
  g_autofree char *files_dir = g_build_filename (trash, "files", NULL);
  g_autoptr(GHashTable) wanted = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                        (GDestroyNotify) g_array_unref);
  g_autofree char **best_date = g_new0 (char *, MAX (n, 1));
  g_autoptr(GDir) dir = g_dir_open (info_dir, 0, NULL);
  const char *name;

  /* the files by their paths: one path may have gone more than once */
  for (guint i = 0; i < n; i++)
    {
      GArray *same = g_hash_table_lookup (wanted, trashed[i]->path);

      found[i] = info[i] = NULL;
      if (same == NULL)
        {
          same = g_array_new (FALSE, FALSE, sizeof (guint));
          g_hash_table_insert (wanted, trashed[i]->path, same);
        }
      g_array_append_val (same, i);
    }
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autoptr(GKeyFile) key_file = g_key_file_new ();
      g_autofree char *info_path = NULL;
      g_autofree char *escaped = NULL;
      g_autofree char *original = NULL;
      g_autofree char *date = NULL;
      g_autofree char *stem = NULL;
      g_autofree char *candidate = NULL;
      g_autoptr(GBytes) there = NULL;
      GArray *same;

      if (!g_str_has_suffix (name, ".trashinfo"))
        continue;
      info_path = g_build_filename (info_dir, name, NULL);
      if (!g_key_file_load_from_file (key_file, info_path, G_KEY_FILE_NONE, NULL))
        continue;
      escaped = g_key_file_get_string (key_file, "Trash Info", "Path", NULL);
      original = escaped != NULL ? g_uri_unescape_string (escaped, NULL) : NULL;
      same = original != NULL ? g_hash_table_lookup (wanted, original) : NULL;
      if (same == NULL)
        continue;
      stem = g_strndup (name, strlen (name) - strlen (".trashinfo"));
      candidate = g_build_filename (files_dir, stem, NULL);
      if (!tb_run_read_file (candidate, &there, NULL))
        continue;
      date = g_key_file_get_string (key_file, "Trash Info", "DeletionDate", NULL);
      for (guint k = 0; k < same->len; k++)
        {
          guint i = g_array_index (same, guint, k);

          /* DeletionDate is local time, YYYY-MM-DDThh:mm:ss: it sorts as
           * text */
          if (!g_bytes_equal (there, trashed[i]->contents)
              || (found[i] != NULL && g_strcmp0 (date, best_date[i]) < 0))
            continue;
          g_clear_object (&found[i]);
          g_clear_object (&info[i]);
          found[i] = g_file_new_for_path (candidate);
          info[i] = g_file_new_for_path (info_path);
          g_free (best_date[i]);
          best_date[i] = g_strdup (date);
        }
    }
  for (guint i = 0; i < n; i++)
    g_free (best_date[i]);
}
#endif

/* Write the kept bytes as a new file at `file`: never over another file. */
static gboolean
write_back (TbTrashed  *trashed,
            GFile      *file,
            GError    **error)
{
  g_autoptr(GFileOutputStream) out = NULL;
  gsize length = 0;
  gconstpointer data = g_bytes_get_data (trashed->contents, &length);

  out = g_file_create (file, G_FILE_CREATE_NONE, NULL, error);
  if (out == NULL)
    return FALSE;
  if (!g_output_stream_write_all (G_OUTPUT_STREAM (out), data, length, NULL, NULL, error))
    {
      g_output_stream_close (G_OUTPUT_STREAM (out), NULL, NULL);
      g_file_delete (file, NULL, NULL);
      return FALSE;
    }
  if (!g_output_stream_close (G_OUTPUT_STREAM (out), NULL, error))
    {
      g_file_delete (file, NULL, NULL);
      return FALSE;
    }
  return TRUE;
}

/* Put one file back: out of the home trash where it was found there
 * (`in_trash`, its `info`), else written again from the bytes kept. */
static gboolean
restore_one (TbTrashed  *trashed,
             GFile      *in_trash,
             GFile      *info,
             GError    **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (trashed->path);
  g_autoptr(GError) local_error = NULL;
  g_autofree char *name = display_name (trashed->path);

  if (g_file_query_exists (file, NULL))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   _("“%s” was not put back: another file of that name has taken its place; it is still in the trash"),
                   name);
      return FALSE;
    }
  /* a move within one file system: the file leaves the trash whole */
  if (in_trash != NULL
      && g_file_move (in_trash, file, G_FILE_COPY_NOFOLLOW_SYMLINKS | G_FILE_COPY_NO_FALLBACK_FOR_MOVE,
                      NULL, NULL, NULL, NULL))
    {
      g_file_delete (info, NULL, NULL);
      return TRUE;
    }
  /* not found in the home trash (another file system's trash, Windows'
   * Recycle Bin): the bytes kept, and the trash keeps its copy */
  if (!write_back (trashed, file, &local_error))
    {
      g_set_error (error, local_error->domain, local_error->code,
                   _("“%s” was not put back (%s); it is still in the trash"),
                   name, local_error->message);
      return FALSE;
    }
  return TRUE;
}

void
tb_trash_restore (TbTrashed * const *trashed,
                  guint              n,
                  gboolean          *restored,
                  GPtrArray         *errors)
{
  g_autofree GFile **in_trash = g_new0 (GFile *, MAX (n, 1));
  g_autofree GFile **info = g_new0 (GFile *, MAX (n, 1));

  g_return_if_fail (trashed != NULL || n == 0);
  g_return_if_fail (restored != NULL || n == 0);

#ifdef G_OS_UNIX
  find_in_home_trash (trashed, n, in_trash, info);
#endif
  for (guint i = 0; i < n; i++)
    {
      GError *error = NULL;

      restored[i] = restore_one (trashed[i], in_trash[i], info[i], &error);
      if (!restored[i] && errors != NULL)
        g_ptr_array_add (errors, error);
      else
        g_clear_error (&error);
      g_clear_object (&in_trash[i]);
      g_clear_object (&info[i]);
    }
}
