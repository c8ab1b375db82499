/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-file.c: the app's exports through the engine's file writer; see
 * tb-file.h. */
#define G_LOG_DOMAIN "trainbench-file"

#include "tb-config.h"

#include <gio/gio.h>
#include <glib/gi18n.h>
#include <string.h>

#include "tb-error.h"
#include "tb-file.h"

gboolean
tb_file_set_contents (const char  *path,
                      const char  *data,
                      gssize       length,
                      GError     **error)
{
  NnError nn_error;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (data != NULL || length == 0, FALSE);

  nn_error_clear (&nn_error);
  if (nn_file_write (path, data, length < 0 ? strlen (data) : (size_t) length, &nn_error) != NN_OK)
    {
      g_propagate_error (error, tb_error_new (&nn_error));
      return FALSE;
    }
  return TRUE;
}

cairo_status_t
tb_file_cairo_write (void                *closure,
                     const unsigned char *data,
                     unsigned int         length)
{
  return nn_file_writer_write (closure, data, length) ? CAIRO_STATUS_SUCCESS
                                                      : CAIRO_STATUS_WRITE_ERROR;
}

gboolean
tb_file_finish (NnFileWriter    *writer,
                cairo_status_t   status,
                const char      *path,
                GError         **error)
{
  NnError nn_error;

  g_return_val_if_fail (writer != NULL, FALSE);

  /* A failed write is said by the commit, with its cause, and puts nothing
   * in place; anything else that went wrong is cairo's to say. */
  if (status == CAIRO_STATUS_SUCCESS || !nn_file_writer_write (writer, NULL, 0))
    {
      nn_error_clear (&nn_error);
      if (nn_file_writer_commit (writer, &nn_error) != NN_OK)
        {
          g_propagate_error (error, tb_error_new (&nn_error));
          return FALSE;
        }
      return TRUE;
    }
  nn_file_writer_abort (writer);
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Could not write “%s”: %s"), path,
               cairo_status_to_string (status));
  return FALSE;
}

gboolean
tb_file_write_png (cairo_surface_t  *surface,
                   const char       *path,
                   GError          **error)
{
  NnFileWriter *writer = NULL;
  NnError nn_error;

  g_return_val_if_fail (surface != NULL && path != NULL, FALSE);

  nn_error_clear (&nn_error);
  if (nn_file_writer_open (path, &writer, &nn_error) != NN_OK)
    {
      g_propagate_error (error, tb_error_new (&nn_error));
      return FALSE;
    }
  return tb_file_finish (writer, cairo_surface_write_to_png_stream (surface, tb_file_cairo_write, writer),
                         path, error);
}
