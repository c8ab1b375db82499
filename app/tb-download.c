/* tb-download.c: a small HTTP/1.1 GET client on GSocketClient (TLS through
 * GIO's backend), run in a GTask worker. The body goes to "<dest>.part",
 * hashed on the way; it is renamed to <dest> only when complete and correct.
 */
#include "tb-config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "tb-download.h"

#define MAX_REDIRECTS 5
#define CHUNK (64 * 1024)

G_DEFINE_QUARK (tb-download-error-quark, tb_download_error)

typedef struct
{
  char *url;
  char *dest;
  char *sha256;
  TbDownloadProgress progress;
  gpointer progress_data;
  GMainContext *context;     /* where progress is delivered */

  GMutex lock;
  gint64 received;
  gint64 total;
  gboolean progress_pending;
} Download;

static void
download_free (Download *d)
{
  g_free (d->url);
  g_free (d->dest);
  g_free (d->sha256);
  g_main_context_unref (d->context);
  g_mutex_clear (&d->lock);
  g_free (d);
}

typedef struct
{
  Download *d;
  GTask *task;               /* keeps `d` alive */
} ProgressIdle;

static gboolean
progress_idle_cb (gpointer user_data)
{
  ProgressIdle *pi = user_data;
  Download *d = pi->d;
  gint64 received, total;

  g_mutex_lock (&d->lock);
  received = d->received;
  total = d->total;
  d->progress_pending = FALSE;
  g_mutex_unlock (&d->lock);

  if (d->progress != NULL)
    d->progress (received, total, d->progress_data);
  return G_SOURCE_REMOVE;
}

static void
progress_idle_free (gpointer user_data)
{
  ProgressIdle *pi = user_data;

  g_object_unref (pi->task);
  g_free (pi);
}

/* Worker: record progress; at most one idle is on its way to the main loop. */
static void
report (GTask    *task,
        Download *d,
        gint64    received,
        gint64    total)
{
  gboolean schedule;

  g_mutex_lock (&d->lock);
  d->received = received;
  d->total = total;
  schedule = !d->progress_pending;
  d->progress_pending = TRUE;
  g_mutex_unlock (&d->lock);

  if (schedule)
    {
      ProgressIdle *pi = g_new0 (ProgressIdle, 1);
      GSource *source = g_idle_source_new ();

      pi->d = d;
      pi->task = g_object_ref (task);
      g_source_set_priority (source, G_PRIORITY_LOW);
      g_source_set_callback (source, progress_idle_cb, pi, progress_idle_free);
      g_source_attach (source, d->context);
      g_source_unref (source);
    }
}

static gboolean
is_offline_error (const GError *error)
{
  return error->domain == G_RESOLVER_ERROR
         || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NETWORK_UNREACHABLE)
         || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_HOST_UNREACHABLE)
         || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED)
         || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT)
         || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_HOST_NOT_FOUND);
}

/* Send the request and read the status line and headers. Returns the
 * connection positioned at the body, or NULL. *location is set on redirects. */
static GIOStream *
open_request (GUri          *uri,
              GCancellable  *cancellable,
              int           *status,
              gint64        *length,
              char         **location,
              gboolean      *chunked,
              GDataInputStream **body_in,
              GError       **error)
{
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketConnection) conn = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GDataInputStream) in = NULL;
  g_autofree char *request = NULL;
  g_autofree char *line = NULL;
  const char *scheme = g_uri_get_scheme (uri);
  const char *host = g_uri_get_host (uri);
  const char *path = g_uri_get_path (uri);
  const char *query = g_uri_get_query (uri);
  gboolean tls = g_ascii_strcasecmp (scheme, "https") == 0;
  int port = g_uri_get_port (uri);

  if (port < 0)
    port = tls ? 443 : 80;
  if (tls && !g_tls_backend_supports_tls (g_tls_backend_get_default ()))
    {
      g_set_error (error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_NO_TLS,
                   _("Secure downloads (HTTPS) are not available: install glib-networking"));
      return NULL;
    }

  g_socket_client_set_tls (client, tls);
  g_socket_client_set_timeout (client, 30);
  conn = g_socket_client_connect_to_host (client, host, (guint16) port, cancellable, &local_error);
  if (conn == NULL)
    {
      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_propagate_error (error, g_steal_pointer (&local_error));
      else if (is_offline_error (local_error))
        g_set_error (error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_OFFLINE,
                     _("Could not reach %s: %s. Check the network connection."), host, local_error->message);
      else
        g_set_error (error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_OFFLINE,
                     _("Could not connect to %s: %s"), host, local_error->message);
      return NULL;
    }

  request = g_strdup_printf ("GET %s%s%s HTTP/1.1\r\n"
                             "Host: %s\r\n"
                             "User-Agent: Trainbench/" PACKAGE_VERSION "\r\n"
                             "Accept-Encoding: identity\r\n"
                             "Connection: close\r\n\r\n",
                             *path ? path : "/", query ? "?" : "", query ? query : "", host);
  if (!g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (conn)),
                                  request, strlen (request), NULL, cancellable, error))
    return NULL;

  in = g_data_input_stream_new (g_io_stream_get_input_stream (G_IO_STREAM (conn)));
  g_data_input_stream_set_newline_type (in, G_DATA_STREAM_NEWLINE_TYPE_ANY);
  g_filter_input_stream_set_close_base_stream (G_FILTER_INPUT_STREAM (in), FALSE);

  line = g_data_input_stream_read_line (in, NULL, cancellable, &local_error);
  if (line == NULL || sscanf (line, "HTTP/%*d.%*d %d", status) != 1)
    {
      if (local_error != NULL && g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_propagate_error (error, g_steal_pointer (&local_error));
      else
        g_set_error (error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_HTTP,
                     _("%s did not answer like a web server"), host);
      return NULL;
    }

  *length = -1;
  *chunked = FALSE;
  for (;;)
    {
      g_autofree char *header = g_data_input_stream_read_line (in, NULL, cancellable, &local_error);
      char *colon;

      if (header == NULL)
        {
          if (local_error != NULL && g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            g_propagate_error (error, g_steal_pointer (&local_error));
          else
            g_set_error (error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_TRUNCATED,
                         _("The connection to %s ended before the answer began"), host);
          return NULL;
        }
      if (*header == '\0')
        break;
      colon = strchr (header, ':');
      if (colon == NULL)
        continue;
      *colon = '\0';
      if (g_ascii_strcasecmp (header, "Content-Length") == 0)
        *length = g_ascii_strtoll (g_strstrip (colon + 1), NULL, 10);
      else if (g_ascii_strcasecmp (header, "Transfer-Encoding") == 0)
        *chunked = strstr (colon + 1, "chunked") != NULL;
      else if (g_ascii_strcasecmp (header, "Location") == 0 && location != NULL)
        {
          g_free (*location);
          *location = g_strdup (g_strstrip (colon + 1));
        }
    }

  *body_in = g_steal_pointer (&in);
  return G_IO_STREAM (g_steal_pointer (&conn));
}

/* Read up to `size` bytes of the body, plain or in chunked transfer coding
 * (then *chunk_left counts down the current chunk and *finished is set by
 * the last, empty chunk). Returns 0 at the end, -1 on error. */
static gssize
read_body (GDataInputStream  *in,
           gboolean           chunked,
           gint64            *chunk_left,
           gboolean          *finished,
           guint8            *buf,
           gsize              size,
           GCancellable      *cancellable,
           GError           **error)
{
  gssize n;

  if (!chunked)
    return g_input_stream_read (G_INPUT_STREAM (in), buf, size, cancellable, error);
  if (*finished)
    return 0;
  if (*chunk_left == 0)
    {
      g_autofree char *line = g_data_input_stream_read_line (in, NULL, cancellable, error);

      if (line == NULL)
        return (error != NULL && *error != NULL) ? -1 : 0;
      *chunk_left = g_ascii_strtoll (line, NULL, 16);  /* "1f40;ext" reads 0x1f40 */
      if (*chunk_left <= 0)
        {
          *finished = TRUE;
          return 0;
        }
    }
  n = g_input_stream_read (G_INPUT_STREAM (in), buf, (gsize) MIN ((gint64) size, *chunk_left), cancellable, error);
  if (n > 0)
    {
      *chunk_left -= n;
      if (*chunk_left == 0)
        g_free (g_data_input_stream_read_line (in, NULL, cancellable, NULL)); /* the chunk's CRLF */
    }
  return n;
}

static void
download_thread (GTask        *task,
                 gpointer      source_object,
                 gpointer      task_data,
                 GCancellable *cancellable)
{
  Download *d = task_data;
  g_autoptr(GIOStream) conn = NULL;
  g_autoptr(GDataInputStream) in = NULL;
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr(GError) error = NULL;
  g_autofree char *url = g_strdup (d->url);
  g_autofree char *part = g_strconcat (d->dest, ".part", NULL);
  g_autofree char *folder = g_path_get_dirname (d->dest);
  g_autofree guint8 *buf = g_malloc (CHUNK);
  g_autoptr(GFile) part_file = NULL;
  g_autoptr(GFileOutputStream) out = NULL;
  gint64 length = -1, received = 0, chunk_left = 0;
  gboolean chunked = FALSE, finished = FALSE;
  int status = 0;

  for (int hop = 0; ; hop++)
    {
      g_autoptr(GUri) uri = g_uri_parse (url, G_URI_FLAGS_NONE, &error);
      g_autofree char *location = NULL;

      if (uri == NULL || g_uri_get_host (uri) == NULL)
        {
          g_task_return_new_error (task, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_HTTP,
                                   _("“%s” is not a web address"), url);
          return;
        }
      g_clear_object (&in);
      g_clear_object (&conn);
      conn = open_request (uri, cancellable, &status, &length, &location, &chunked, &in, &error);
      if (conn == NULL)
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
      if (status >= 300 && status < 400 && location != NULL && hop < MAX_REDIRECTS)
        {
          g_autoptr(GUri) next = g_uri_parse_relative (uri, location, G_URI_FLAGS_NONE, NULL);

          if (next == NULL)
            break;
          g_free (url);
          url = g_uri_to_string (next);
          continue;
        }
      break;
    }

  if (status != 200)
    {
      g_task_return_new_error (task, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_HTTP,
                               _("The server answered %d for %s"), status, url);
      return;
    }

  /* a GIO stream, not a FILE *: on Windows g_fopen's FILE * belongs to
   * GLib's C runtime (the UCRT) and this file's fwrite to mingw's msvcrt,
   * and the two never agree on one */
  if (g_mkdir_with_parents (folder, 0755) != 0)
    {
      int saved = errno;

      g_task_return_new_error (task, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_WRITE,
                               _("Could not write “%s”: %s"), part, g_strerror (saved));
      return;
    }
  part_file = g_file_new_for_path (part);
  out = g_file_replace (part_file, NULL, FALSE, G_FILE_CREATE_NONE, cancellable, &error);
  if (out == NULL)
    {
      g_task_return_new_error (task, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_WRITE,
                               _("Could not write “%s”: %s"), part, error->message);
      return;
    }

  report (task, d, 0, length);
  for (;;)
    {
      gssize n = read_body (in, chunked, &chunk_left, &finished, buf, CHUNK, cancellable, &error);

      if (n < 0)
        break;
      if (n == 0)
        {
          /* a chunked body must end with its empty last chunk */
          if (chunked && !finished)
            g_set_error (&error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_TRUNCATED,
                         _("the connection closed in the middle of the file"));
          break;
        }
      if (!g_output_stream_write_all (G_OUTPUT_STREAM (out), buf, (gsize) n, NULL, cancellable,
                                      &error))
        {
          g_output_stream_close (G_OUTPUT_STREAM (out), NULL, NULL);
          g_unlink (part);
          g_task_return_new_error (task, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_WRITE,
                                   _("Could not write “%s”: %s"), part, error->message);
          return;
        }
      g_checksum_update (checksum, buf, n);
      received += n;
      report (task, d, received, length);
      if (length >= 0 && received >= length)
        break;
    }

  if (error == NULL)
    {
      g_autoptr(GError) close_error = NULL;

      if (!g_output_stream_close (G_OUTPUT_STREAM (out), NULL, &close_error))
        g_set_error (&error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_WRITE,
                     _("Could not write “%s”: %s"), part, close_error->message);
    }
  else
    g_output_stream_close (G_OUTPUT_STREAM (out), NULL, NULL);

  if (error != NULL)
    {
      g_unlink (part);
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_task_return_error (task, g_steal_pointer (&error));
      else
        g_task_return_new_error (task, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_TRUNCATED,
                                 _("The download stopped after %lld bytes: %s"),
                                 (long long) received, error->message);
      return;
    }
  if (length >= 0 && received < length)
    {
      g_unlink (part);
      g_task_return_new_error (task, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_TRUNCATED,
                               _("The connection ended after %lld of %lld bytes"),
                               (long long) received, (long long) length);
      return;
    }

  if (d->sha256 != NULL && g_ascii_strcasecmp (g_checksum_get_string (checksum), d->sha256) != 0)
    {
      g_unlink (part);
      g_task_return_new_error (task, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_CHECKSUM,
                               _("The downloaded file is damaged or not the expected one (SHA-256 %s, expected %s)"),
                               g_checksum_get_string (checksum), d->sha256);
      return;
    }

  if (g_rename (part, d->dest) != 0)
    {
      int saved = errno;

      g_unlink (part);
      g_task_return_new_error (task, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_WRITE,
                               _("Could not save “%s”: %s"), d->dest, g_strerror (saved));
      return;
    }
  g_task_return_boolean (task, TRUE);
}

void
tb_download_async (const char          *url,
                   const char          *dest_path,
                   const char          *sha256_hex,
                   TbDownloadProgress   progress,
                   gpointer             progress_data,
                   GCancellable        *cancellable,
                   GAsyncReadyCallback  callback,
                   gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  Download *d;

  g_return_if_fail (url != NULL);
  g_return_if_fail (dest_path != NULL);

  d = g_new0 (Download, 1);
  d->url = g_strdup (url);
  d->dest = g_strdup (dest_path);
  d->sha256 = g_strdup (sha256_hex);
  d->progress = progress;
  d->progress_data = progress_data;
  d->context = g_main_context_ref_thread_default ();
  g_mutex_init (&d->lock);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, tb_download_async);
  g_task_set_task_data (task, d, (GDestroyNotify) download_free);
  g_task_set_return_on_cancel (task, FALSE);
  g_task_run_in_thread (task, download_thread);
}

gboolean
tb_download_finish (GAsyncResult  *result,
                    GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
