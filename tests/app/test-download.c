/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-download.c: the download code against a local HTTP server started by
 * the test (a GThreadedSocketService): a good file, a bad checksum, a server
 * gone mid-way, cancel, a redirect, an HTTP error and no server at all; and
 * hostile servers: an endless body, an endless header line, endless
 * headers, a drip, a redirect loop, redirects to file:// and ftp://, and
 * redirects into another local service (a second server on this machine,
 * named by its address, "localhost" or a number), which are refused before
 * it hears a request; the Host header with the port; and the response
 * parser and the rule for local addresses on their own.
 */
#include <string.h>

#include <glib/gstdio.h>

#include "tb-download.h"
#include "test-gui-util.h"

#define BODY_SIZE (300 * 1024)

/* What a hostile handler sends at most before it gives up: far more than
 * the file, so only a client that stops itself passes, and little enough
 * that one that does not cannot fill the disk. */
#define HOSTILE_MAX (64 * 1024 * 1024)

static guint8 *body;          /* (BODY_SIZE) the good file */
static char *body_sha256;
static guint16 port;
static gint slow_closed;      /* the slow handler saw the client go */
static gint requests;         /* requests the server has read */
static gint injected;         /* a request carried a header it was not sent with */
static char *last_host;       /* the Host header of the last request (under host_lock) */
static GMutex host_lock;
static guint16 other_port;    /* a second local service, which no redirect may reach */
static gint other_connections;
static gint other_requests;

static gboolean
send_all (GOutputStream *out,
          const void    *data,
          gsize          size)
{
  return g_output_stream_write_all (out, data, size, NULL, NULL, NULL);
}

static void
send_head (GOutputStream *out,
           int            status,
           gsize          length,
           const char    *extra)
{
  g_autofree char *head = g_strdup_printf ("HTTP/1.0 %d X\r\nContent-Length: %" G_GSIZE_FORMAT "\r\n%s\r\n",
                                           status, length, extra ? extra : "");

  send_all (out, head, strlen (head));
}

static gboolean
run_cb (GThreadedSocketService *service,
        GSocketConnection      *connection,
        GObject                *source,
        gpointer                user_data)
{
  GInputStream *in = g_io_stream_get_input_stream (G_IO_STREAM (connection));
  GOutputStream *out = g_io_stream_get_output_stream (G_IO_STREAM (connection));
  g_autoptr(GDataInputStream) data = g_data_input_stream_new (in);
  g_autofree char *request = NULL;
  char path[256] = "";

  g_filter_input_stream_set_close_base_stream (G_FILTER_INPUT_STREAM (data), FALSE);
  request = g_data_input_stream_read_line (data, NULL, NULL, NULL);
  if (request == NULL || sscanf (request, "GET %255s", path) != 1)
    return TRUE;
  g_atomic_int_inc (&requests);
  for (;;)
    {
      g_autofree char *line = g_data_input_stream_read_line (data, NULL, NULL, NULL);

      if (line == NULL || line[0] == '\0' || strcmp (line, "\r") == 0)
        break;
      if (g_str_has_prefix (line, "X-Injected"))
        g_atomic_int_set (&injected, 1);
      if (g_ascii_strncasecmp (line, "Host:", 5) == 0)
        {
          g_mutex_lock (&host_lock);
          g_free (last_host);
          last_host = g_strstrip (g_strdup (line + 5));
          g_mutex_unlock (&host_lock);
        }
    }
  if (strchr (path, '?') != NULL)
    *strchr (path, '?') = '\0';   /* the query is not the file */

  if (strcmp (path, "/good.npz") == 0)
    {
      send_head (out, 200, BODY_SIZE, NULL);
      for (gsize off = 0; off < BODY_SIZE; off += 4096)
        send_all (out, body + off, MIN (4096, BODY_SIZE - off));
    }
  else if (strcmp (path, "/bad.npz") == 0)
    {
      g_autofree guint8 *other = g_memdup2 (body, BODY_SIZE);

      other[BODY_SIZE / 2] ^= 0xff;   /* one byte differs */
      send_head (out, 200, BODY_SIZE, NULL);
      send_all (out, other, BODY_SIZE);
    }
  else if (strcmp (path, "/cut.npz") == 0)
    {
      send_head (out, 200, BODY_SIZE, NULL);
      send_all (out, body, BODY_SIZE / 3);
      /* and the server goes away */
    }
  else if (strcmp (path, "/slow.npz") == 0)
    {
      send_head (out, 200, BODY_SIZE, NULL);
      for (int i = 0; i < 200; i++)
        {
          if (!send_all (out, body + i * 100, 100))
            {
              g_atomic_int_set (&slow_closed, 1);
              break;
            }
          g_usleep (50 * 1000);
        }
    }
  else if (strcmp (path, "/chunked.npz") == 0 || strcmp (path, "/chunked-cut.npz") == 0)
    {
      static const char head[] = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
      gboolean cut = strcmp (path, "/chunked-cut.npz") == 0;

      send_all (out, head, strlen (head));
      for (gsize off = 0; off < BODY_SIZE; off += 7000)
        {
          gsize n = MIN (7000, BODY_SIZE - off);
          g_autofree char *size = g_strdup_printf ("%" G_GSIZE_MODIFIER "x\r\n", n);

          if (cut && off > BODY_SIZE / 2)
            break;   /* the server goes away between chunks */
          send_all (out, size, strlen (size));
          send_all (out, body + off, n);
          send_all (out, "\r\n", 2);
        }
      if (!cut)
        send_all (out, "0\r\n\r\n", 5);
    }
  else if (strcmp (path, "/moved") == 0)
    send_head (out, 302, 0, "Location: /good.npz\r\n");
  else if (strcmp (path, "/endless") == 0 || strcmp (path, "/endless-chunked") == 0)
    {
      /* no length, and bytes until the client goes */
      gboolean chunked = strcmp (path, "/endless-chunked") == 0;
      const char *head = chunked ? "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" : "HTTP/1.0 200 OK\r\n\r\n";

      send_all (out, head, strlen (head));
      for (gsize sent = 0; sent < HOSTILE_MAX; sent += 4096)
        if ((chunked && !send_all (out, "1000\r\n", 6)) || !send_all (out, body, 4096)
            || (chunked && !send_all (out, "\r\n", 2)))
          break;
    }
  else if (strcmp (path, "/huge-length") == 0)
    {
      send_all (out, "HTTP/1.1 200 OK\r\nContent-Length: 10000000000\r\n\r\n", 50);
      for (gsize sent = 0; sent < HOSTILE_MAX; sent += 4096)
        if (!send_all (out, body, 4096))
          break;
    }
  else if (strcmp (path, "/endless-header") == 0 || strcmp (path, "/many-headers") == 0)
    {
      gboolean long_line = strcmp (path, "/endless-header") == 0;
      static const char x[] = "X-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n";

      send_all (out, "HTTP/1.1 200 OK\r\nX-Long: ", 26);
      for (gsize sent = 0; sent < HOSTILE_MAX; sent += sizeof x - 1)
        if (!send_all (out, long_line ? "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" : x, sizeof x - 1))
          break;
    }
  else if (strcmp (path, "/drip") == 0 || strcmp (path, "/drip-head") == 0)
    {
      /* a byte every 50 ms: never silent long enough for a read timeout,
       * never done; for at most 60 s */
      gboolean in_head = strcmp (path, "/drip-head") == 0;

      if (in_head)
        send_all (out, "HTTP/1.1 200 OK\r\nX-Slow: ", 26);
      else
        send_head (out, 200, BODY_SIZE, NULL);
      for (int i = 0; i < 1200; i++)
        {
          if (!send_all (out, in_head ? (const guint8 *) "a" : body + i, 1))
            break;
          g_usleep (50 * 1000);
        }
    }
  else if (strcmp (path, "/inject") == 0)
    send_head (out, 302, 0, "Location: /good.npz?x=%0D%0AX-Injected:%201\r\n");
  else if (strcmp (path, "/loop") == 0)
    send_head (out, 302, 0, "Location: /loop\r\n");
  else if (g_str_has_prefix (path, "/to-other-"))
    {
      /* into the second local service: by its address, as "localhost",
       * or by this machine's name, which only a lookup finds local */
      const char *how = path + strlen ("/to-other-");
      const char *host = strcmp (how, "localhost") == 0 ? "LocalHost."
                         : strcmp (how, "name") == 0 ? g_get_host_name ()
                         : strcmp (how, "mapped") == 0 ? "[::ffff:127.0.0.1]" : "127.0.0.1";
      g_autofree char *location = g_strdup_printf ("Location: http://%s:%u/good.npz\r\n", host, other_port);

      send_head (out, 302, 0, location);
    }
  else if (strcmp (path, "/to-itself") == 0)
    {
      /* the same server, written out: a mirror's own other path */
      g_autofree char *location = g_strdup_printf ("Location: http://127.0.0.1:%u/good.npz\r\n", port);

      send_head (out, 301, 0, location);
    }
  else if (strcmp (path, "/to-file") == 0)
    send_head (out, 302, 0, "Location: file:///etc/passwd\r\n");
  else if (strcmp (path, "/to-ftp") == 0)
    send_head (out, 301, 0, "Location: ftp://127.0.0.1/mnist.npz\r\n");
  else if (strcmp (path, "/bad-chunk") == 0)
    {
      static const char head[] = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffffffff\r\n";

      send_all (out, head, strlen (head));
    }
  else
    send_head (out, 404, 0, NULL);
  g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);
  return TRUE;
}

/* The second local service: it counts who comes and what they ask. */
static gboolean
other_run_cb (GThreadedSocketService *service,
              GSocketConnection      *connection,
              GObject                *source,
              gpointer                user_data)
{
  g_autoptr(GDataInputStream) data = g_data_input_stream_new (g_io_stream_get_input_stream (G_IO_STREAM (connection)));
  g_autofree char *request = NULL;

  g_atomic_int_inc (&other_connections);
  g_filter_input_stream_set_close_base_stream (G_FILTER_INPUT_STREAM (data), FALSE);
  request = g_data_input_stream_read_line (data, NULL, NULL, NULL);
  if (request != NULL && *request != '\0')
    g_atomic_int_inc (&other_requests);
  g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);
  return TRUE;
}

typedef struct
{
  gboolean done;
  gboolean ok;
  GError *error;
  gint64 last_received;
  gint64 last_total;
  guint progress_calls;
  gboolean off_main_thread;
} Result;

static GThread *main_thread;

static void
progress_cb (gint64   received,
             gint64   total,
             gpointer user_data)
{
  Result *r = user_data;

  r->progress_calls++;
  r->last_received = received;
  r->last_total = total;
  if (g_thread_self () != main_thread)
    r->off_main_thread = TRUE;
}

static void
done_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Result *r = user_data;

  r->ok = tb_download_finish (result, &r->error);
  r->done = TRUE;
}

static char *
url (const char *path)
{
  return g_strdup_printf ("http://127.0.0.1:%u%s", port, path);
}

static char *
dest (const char *name)
{
  return g_build_filename (tb_test_setup_env (), "downloads", name, NULL);
}

static void
download_within (const char   *path,
                 const char   *dest_path,
                 guint         deadline_s,
                 GCancellable *cancellable,
                 Result       *r)
{
  g_autofree char *u = url (path);

  tb_download_async (u, dest_path, body_sha256, BODY_SIZE, deadline_s, progress_cb, r, cancellable, done_cb, r);
  g_assert_true (tb_test_wait_for (&r->done, 60));
  tb_test_spin (50);   /* let a last progress idle run */
}

static void
download (const char   *path,
          const char   *dest_path,
          GCancellable *cancellable,
          Result       *r)
{
  download_within (path, dest_path, 0, cancellable, r);
}

static void
test_good (void)
{
  g_autofree char *path = dest ("good.npz");
  g_autofree char *part = g_strconcat (path, ".part", NULL);
  g_autofree guint8 *contents = NULL;
  gsize len = 0;
  Result r = { 0 };

  download ("/good.npz", path, NULL, &r);
  g_assert_no_error (r.error);
  g_assert_true (r.ok);
  g_assert_true (g_file_get_contents (path, (char **) &contents, &len, NULL));
  g_assert_cmpuint (len, ==, BODY_SIZE);
  g_assert_cmpmem (contents, len, body, BODY_SIZE);
  g_assert_false (g_file_test (part, G_FILE_TEST_EXISTS));
  /* progress reached the main thread and says how far */
  g_assert_cmpuint (r.progress_calls, >, 0);
  g_assert_false (r.off_main_thread);
  g_assert_cmpint (r.last_total, ==, BODY_SIZE);
  g_assert_cmpint (r.last_received, ==, BODY_SIZE);
}

static void
test_chunked (void)
{
  g_autofree char *path = dest ("chunked.npz");
  g_autofree char *cut_path = dest ("chunked-cut.npz");
  g_autofree guint8 *contents = NULL;
  gsize len = 0;
  Result r = { 0 };

  download ("/chunked.npz", path, NULL, &r);
  g_assert_no_error (r.error);
  g_assert_true (g_file_get_contents (path, (char **) &contents, &len, NULL));
  g_assert_cmpmem (contents, len, body, BODY_SIZE);
  g_assert_cmpint (r.last_total, ==, -1);   /* no length was announced */

  memset (&r, 0, sizeof r);
  download ("/chunked-cut.npz", cut_path, NULL, &r);
  g_assert_error (r.error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_TRUNCATED);
  g_test_message ("%s", r.error->message);
  g_clear_error (&r.error);
  g_assert_false (g_file_test (cut_path, G_FILE_TEST_EXISTS));
}

static void
test_redirect (void)
{
  g_autofree char *path = dest ("moved.npz");
  Result r = { 0 };

  download ("/moved", path, NULL, &r);
  g_assert_no_error (r.error);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
}

/* a download that fails with `code` leaves nothing under either name */
static void
check_fails_cleanly (const char *server_path,
                     const char *name,
                     int         code)
{
  g_autofree char *path = dest (name);
  g_autofree char *part = g_strconcat (path, ".part", NULL);
  Result r = { 0 };

  download (server_path, path, NULL, &r);
  g_assert_false (r.ok);
  g_assert_error (r.error, TB_DOWNLOAD_ERROR, code);
  g_test_message ("%s", r.error->message);
  g_clear_error (&r.error);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (part, G_FILE_TEST_EXISTS));
}

static void
test_bad_checksum (void)
{
  check_fails_cleanly ("/bad.npz", "bad.npz", TB_DOWNLOAD_ERROR_CHECKSUM);
}

static void
test_cut (void)
{
  check_fails_cleanly ("/cut.npz", "cut.npz", TB_DOWNLOAD_ERROR_TRUNCATED);
}

static gboolean
cancel_soon (gpointer data)
{
  g_cancellable_cancel (G_CANCELLABLE (data));
  return G_SOURCE_REMOVE;
}

static void
test_cancel (void)
{
  g_autofree char *path = dest ("slow.npz");
  g_autofree char *part = g_strconcat (path, ".part", NULL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  Result r = { 0 };
  gint64 t0 = g_get_monotonic_time ();

  g_timeout_add (400, cancel_soon, cancellable);
  download ("/slow.npz", path, cancellable, &r);
  g_assert_false (r.ok);
  g_assert_error (r.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&r.error);
  /* the slow server would take 10 s; cancel ends it at once */
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 5 * G_USEC_PER_SEC);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (part, G_FILE_TEST_EXISTS));
}

/* A redirect whose address has an encoded CR LF: it stays encoded in the
 * request line (GUri decodes it unless told not to), so the server cannot
 * make the client send headers of its choosing. */
static void
test_redirect_no_injection (void)
{
  g_autofree char *path = dest ("inject.npz");
  Result r = { 0 };

  download ("/inject", path, NULL, &r);
  g_assert_no_error (r.error);
  g_assert_false (g_atomic_int_get (&injected));
}

static void
test_http_error (void)
{
  g_autofree char *path = dest ("missing.npz");
  Result r = { 0 };

  download ("/missing.npz", path, NULL, &r);
  g_assert_error (r.error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_HTTP);
  g_assert_nonnull (strstr (r.error->message, "404"));
  g_clear_error (&r.error);
}

static void
test_offline (void)
{
  g_autoptr(GSocketListener) listener = g_socket_listener_new ();
  g_autofree char *u = NULL;
  g_autofree char *path = dest ("offline.npz");
  guint16 closed_port;
  Result r = { 0 };

  /* a port nobody listens on: take one, then give it back */
  closed_port = g_socket_listener_add_any_inet_port (listener, NULL, NULL);
  g_socket_listener_close (listener);
  u = g_strdup_printf ("http://127.0.0.1:%u/mnist.npz", closed_port);
  tb_download_async (u, path, body_sha256, BODY_SIZE, 0, progress_cb, &r, NULL, done_cb, &r);
  g_assert_true (tb_test_wait_for (&r.done, 60));
  g_assert_error (r.error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_OFFLINE);
  g_test_message ("%s", r.error->message);
  g_clear_error (&r.error);

  /* a name that does not resolve */
  memset (&r, 0, sizeof r);
  tb_download_async ("http://no-such-host.invalid/mnist.npz", path, body_sha256, BODY_SIZE, 0,
                     progress_cb, &r, NULL, done_cb, &r);
  g_assert_true (tb_test_wait_for (&r.done, 60));
  g_assert_error (r.error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_OFFLINE);
  g_clear_error (&r.error);
}

static void
test_https_or_no_tls (void)
{
  g_autofree char *path = dest ("tls.npz");
  Result r = { 0 };

  /* without a TLS backend (glib-networking) HTTPS says so clearly; with one,
   * the connection to a plain-HTTP port fails as a connection error */
  g_autofree char *u = g_strdup_printf ("https://127.0.0.1:%u/good.npz", port);

  tb_download_async (u, path, body_sha256, BODY_SIZE, 0, progress_cb, &r, NULL, done_cb, &r);
  g_assert_true (tb_test_wait_for (&r.done, 60));
  g_assert_false (r.ok);
  if (!g_tls_backend_supports_tls (g_tls_backend_get_default ()))
    g_assert_error (r.error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_NO_TLS);
  else
    g_assert_nonnull (r.error);
  g_test_message ("%s", r.error->message);
  g_clear_error (&r.error);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

/* The file's size is known: a server that sends more (an endless body
 * filled the disk at 1.8 GB in 10 s) is stopped at once after it. */
static void
test_endless_body (void)
{
  gint64 t0 = g_get_monotonic_time ();

  check_fails_cleanly ("/endless", "endless.npz", TB_DOWNLOAD_ERROR_TOO_LARGE);
  check_fails_cleanly ("/endless-chunked", "endless-chunked.npz", TB_DOWNLOAD_ERROR_TOO_LARGE);
  /* a length larger than the file: refused before the body */
  check_fails_cleanly ("/huge-length", "huge-length.npz", TB_DOWNLOAD_ERROR_TOO_LARGE);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 10 * G_USEC_PER_SEC);
}

/* An endless header line (3.9 GB of memory in 15 s) and endless header
 * lines: refused at their bounds, as not a web server. */
static void
test_endless_head (void)
{
  gint64 t0 = g_get_monotonic_time ();

  check_fails_cleanly ("/endless-header", "endless-header.npz", TB_DOWNLOAD_ERROR_HTTP);
  check_fails_cleanly ("/many-headers", "many-headers.npz", TB_DOWNLOAD_ERROR_HTTP);
  check_fails_cleanly ("/bad-chunk", "bad-chunk.npz", TB_DOWNLOAD_ERROR_TRUNCATED);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 10 * G_USEC_PER_SEC);
}

/* A byte every 50 ms, in the body or in the head: no read ever times out,
 * and the download never ends; its deadline ends it. */
static void
test_drip (void)
{
  const char *paths[] = { "/drip", "/drip-head" };

  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autofree char *name = g_strdup_printf ("drip-%u.npz", i);
      g_autofree char *path = dest (name);
      g_autofree char *part = g_strconcat (path, ".part", NULL);
      gint64 t0 = g_get_monotonic_time ();
      Result r = { 0 };

      download_within (paths[i], path, 2, NULL, &r);
      g_assert_error (r.error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_TIMED_OUT);
      g_test_message ("%s: %s after %.1f s", paths[i], r.error->message, (g_get_monotonic_time () - t0) / 1e6);
      g_clear_error (&r.error);
      g_assert_cmpint (g_get_monotonic_time () - t0, <, 8 * G_USEC_PER_SEC);
      g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
      g_assert_false (g_file_test (part, G_FILE_TEST_EXISTS));
    }
}

/* A redirect loop says so (it read "The server answered 302"); redirects
 * to file:// or ftp:// are not followed and say why (file:// read "is not
 * a web address" with no word of a redirect). */
static void
test_bad_redirects (void)
{
  struct { const char *path; const char *says; } cases[] = {
    { "/loop", "more than 5 times" },
    { "/to-file", "file:///etc/passwd" },
    { "/to-ftp", "ftp://127.0.0.1/mnist.npz" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("redirect-%u.npz", i);
      g_autofree char *path = dest (name);
      Result r = { 0 };
      int before = g_atomic_int_get (&requests);

      download (cases[i].path, path, NULL, &r);
      g_assert_error (r.error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_ADDRESS);
      g_test_message ("%s", r.error->message);
      g_assert_nonnull (strstr (r.error->message, cases[i].says));
      g_assert_nonnull (strstr (r.error->message, "redirect"));
      g_clear_error (&r.error);
      g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
      /* the loop is followed 5 times, then stopped */
      if (i == 0)
        g_assert_cmpint (g_atomic_int_get (&requests) - before, ==, 6);
    }
}

/* ftp:// (and anything not http or https) was spoken to as HTTP: it is
 * refused before any connection. */
static void
test_not_http (void)
{
  const char *schemes[] = { "ftp://127.0.0.1:", "file:///etc/passwd#", "gopher://127.0.0.1:", "127.0.0.1:" };

  for (guint i = 0; i < G_N_ELEMENTS (schemes); i++)
    {
      g_autofree char *u = g_strdup_printf ("%s%u/mnist.npz", schemes[i], port);
      g_autofree char *path = dest ("not-http.npz");
      int before = g_atomic_int_get (&requests);
      Result r = { 0 };

      tb_download_async (u, path, body_sha256, BODY_SIZE, 0, progress_cb, &r, NULL, done_cb, &r);
      g_assert_true (tb_test_wait_for (&r.done, 60));
      g_assert_error (r.error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_ADDRESS);
      g_test_message ("%s", r.error->message);
      g_clear_error (&r.error);
      tb_test_spin (100);
      g_assert_cmpint (g_atomic_int_get (&requests), ==, before);
    }
}

/* Whether this machine's name is looked up as one of its local addresses,
 * where the second service listens (on all of them). */
static gboolean
name_is_local (void)
{
  g_autolist(GInetAddress) addresses =
    g_resolver_lookup_by_name (g_resolver_get_default (), g_get_host_name (), NULL, NULL);

  for (GList *l = addresses; l != NULL; l = l->next)
    if (!tb_download_address_is_local (l->data))
      return FALSE;
  return addresses != NULL;
}

/* A server that redirects the download into another service of this
 * machine (the attack: a plain-http mirror bouncing it to a local port) is
 * not followed, however the address is written, and that service hears
 * no request; the server's own address, written out, is followed. */
static void
test_redirect_local (void)
{
  const char *hows[] = { "address", "localhost", "mapped", "name" };

  for (guint i = 0; i < G_N_ELEMENTS (hows); i++)
    {
      if (strcmp (hows[i], "name") == 0 && !name_is_local ())
        {
          g_test_message ("this machine's name (%s) is no local address here: not tried", g_get_host_name ());
          continue;
        }
      g_autofree char *server_path = g_strdup_printf ("/to-other-%s", hows[i]);
      g_autofree char *name = g_strdup_printf ("local-%s.npz", hows[i]);
      g_autofree char *path = dest (name);
      int connections = g_atomic_int_get (&other_connections);
      Result r = { 0 };

      download (server_path, path, NULL, &r);
      g_assert_error (r.error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_ADDRESS);
      g_test_message ("%s: %s", hows[i], r.error->message);
      g_assert_nonnull (strstr (r.error->message, "local network"));
      g_clear_error (&r.error);
      g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
      tb_test_spin (100);
      g_assert_cmpint (g_atomic_int_get (&other_requests), ==, 0);
      /* written as an address: not even connected to */
      if (strcmp (hows[i], "name") != 0)
        g_assert_cmpint (g_atomic_int_get (&other_connections), ==, connections);
    }

  {
    g_autofree char *path = dest ("to-itself.npz");
    Result r = { 0 };

    download ("/to-itself", path, NULL, &r);
    g_assert_no_error (r.error);
    g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  }
}

/* Host names the port when it is not the scheme's default (a server on
 * another port was told the wrong place). */
static void
test_host_header (void)
{
  g_autofree char *path = dest ("host.npz");
  g_autofree char *want = g_strdup_printf ("127.0.0.1:%u", port);
  Result r = { 0 };

  download ("/good.npz", path, NULL, &r);
  g_assert_no_error (r.error);
  g_mutex_lock (&host_lock);
  g_assert_cmpstr (last_host, ==, want);
  g_mutex_unlock (&host_lock);
}

/* The rule for local addresses on its own. */
static void
test_local_addresses (void)
{
  const char *local[] = { "127.0.0.1", "127.9.9.9", "10.1.2.3", "172.16.0.1", "172.31.255.255",
                          "192.168.1.1", "169.254.169.254", "0.0.0.0", "0.1.2.3", "100.64.0.1",
                          "100.127.255.255", "::1", "::", "fe80::1", "fd00::1", "fc00::2",
                          "::ffff:127.0.0.1", "::ffff:10.0.0.1" };
  const char *public[] = { "8.8.8.8", "172.32.0.1", "172.15.255.255", "100.128.0.1", "100.63.255.255",
                           "1.1.1.1", "2001:4860:4860::8888", "::ffff:8.8.8.8", "fe00::1" };

  for (guint i = 0; i < G_N_ELEMENTS (local); i++)
    {
      g_autoptr(GInetAddress) a = g_inet_address_new_from_string (local[i]);

      g_assert_nonnull (a);
      if (!tb_download_address_is_local (a))
        g_error ("%s should be local", local[i]);
    }
  for (guint i = 0; i < G_N_ELEMENTS (public); i++)
    {
      g_autoptr(GInetAddress) a = g_inet_address_new_from_string (public[i]);

      g_assert_nonnull (a);
      if (tb_download_address_is_local (a))
        g_error ("%s should not be local", public[i]);
    }
}

/* The redirect policy on its own: http(s) only, never https to http. */
static void
test_redirect_policy (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *a = tb_download_redirect_target ("https://example.org/a/b", "../c?d=1", &error);
  g_autofree char *b = NULL;
  g_autofree char *c = NULL;

  g_assert_no_error (error);
  g_assert_cmpstr (a, ==, "https://example.org/c?d=1");
  b = tb_download_redirect_target ("http://example.org/a", "https://mirror.example.org/m.npz", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (b, ==, "https://mirror.example.org/m.npz");

  g_assert_null (tb_download_redirect_target ("https://example.org/a", "http://example.org/a", &error));
  g_assert_error (error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_ADDRESS);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "insecure"));
  g_clear_error (&error);
  g_assert_null (tb_download_redirect_target ("https://example.org/a", "HTTP://example.org/a", &error));
  g_clear_error (&error);
  g_assert_null (tb_download_redirect_target ("http://example.org/a", "file:///etc/passwd", &error));
  g_assert_error (error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_ADDRESS);
  g_clear_error (&error);
  g_assert_null (tb_download_redirect_target ("http://example.org/a", "http:///nohost", &error));
  g_clear_error (&error);
  /* no host: "//" and "////x" lead nowhere */
  g_assert_null (tb_download_redirect_target ("http://example.org/a", "////x", &error));
  g_assert_error (error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_ADDRESS);
  g_clear_error (&error);
  g_assert_null (tb_download_redirect_target ("http://example.org/a", "http:////x", &error));
  g_clear_error (&error);
  c = tb_download_redirect_target ("http://example.org/a", "//other.example.org/x", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (c, ==, "http://other.example.org/x");
}

/* The response parser on its own (the fuzzer's target). */
static void
test_parse_head (void)
{
  TbHttpHead head = { 0 };
  g_autoptr(GError) error = NULL;
  static const char good[] = "HTTP/1.1 200 OK\r\nContent-Length: 42\r\nServer: x\r\nLocation:  /there \r\n\r\n";
  static const char chunked[] = "HTTP/1.0 301 Moved\nTransfer-Encoding: gzip, Chunked\nContent-Length: 7\n";
  const char *bad[] = {
    "",
    "HTTP/2 200 OK\r\n\r\n",
    "HTTP/1.1 20 OK\r\n\r\n",
    "HTTP/1.1 200OK\r\n\r\n",
    "ICY 200 OK\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: 12a\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
    "HTTP/1.1 200 OK\r\nBad Name: 1\r\n\r\n",
  };
  g_autoptr(GString) many = g_string_new ("HTTP/1.1 200 OK\r\n");
  g_autoptr(GString) longline = g_string_new ("HTTP/1.1 200 OK\r\nX: ");

  g_assert_true (tb_http_parse_head (good, strlen (good), &head, &error));
  g_assert_no_error (error);
  g_assert_cmpint (head.status, ==, 200);
  g_assert_cmpint (head.content_length, ==, 42);
  g_assert_false (head.chunked);
  g_assert_cmpstr (head.location, ==, "/there");
  tb_http_head_clear (&head);

  g_assert_true (tb_http_parse_head (chunked, strlen (chunked), &head, &error));
  g_assert_cmpint (head.status, ==, 301);
  g_assert_true (head.chunked);
  g_assert_cmpint (head.content_length, ==, -1);
  tb_http_head_clear (&head);

  /* a NUL in the middle */
  g_assert_false (tb_http_parse_head ("HTTP/1.1 200 OK\r\nX: a\0b\r\n\r\n", 25, &head, &error));
  g_clear_error (&error);

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_assert_false (tb_http_parse_head (bad[i], strlen (bad[i]), &head, &error));
      g_assert_error (error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_HTTP);
      g_test_message ("%s: %s", bad[i], error->message);
      g_clear_error (&error);
      g_assert_null (head.location);
    }

  for (int i = 0; i <= TB_HTTP_MAX_HEADERS; i++)
    g_string_append_printf (many, "X-%d: y\r\n", i);
  g_assert_false (tb_http_parse_head (many->str, many->len, &head, &error));
  g_assert_nonnull (strstr (error->message, "header lines"));
  g_clear_error (&error);
  for (int i = 0; i < TB_HTTP_MAX_LINE; i++)
    g_string_append_c (longline, 'a');
  g_string_append (longline, "\r\n\r\n");
  g_assert_false (tb_http_parse_head (longline->str, longline->len, &head, &error));
  g_assert_nonnull (strstr (error->message, "longer than"));
  g_clear_error (&error);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GSocketService) service = NULL;
  g_autoptr(GSocketService) other = NULL;
  g_autoptr(GError) error = NULL;
  GRand *rand = g_rand_new_with_seed (7);

  tb_test_setup_env ();
  g_test_init (&argc, &argv, NULL);
  main_thread = g_thread_self ();

  body = g_malloc (BODY_SIZE);
  for (gsize i = 0; i < BODY_SIZE; i++)
    body[i] = (guint8) g_rand_int (rand);
  g_rand_free (rand);
  body_sha256 = g_compute_checksum_for_data (G_CHECKSUM_SHA256, body, BODY_SIZE);

  service = g_threaded_socket_service_new (8);
  {
    g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
    g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
    g_autoptr(GSocketAddress) effective = NULL;

    g_assert_true (g_socket_listener_add_address (G_SOCKET_LISTENER (service), address,
                                                  G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP,
                                                  NULL, &effective, &error));
    g_assert_no_error (error);
    port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (effective));
  }
  g_signal_connect (service, "run", G_CALLBACK (run_cb), NULL);
  g_socket_service_start (service);

  other = g_threaded_socket_service_new (4);
  {
    /* every local address: this machine's name may stand for any of them */
    g_autoptr(GInetAddress) any = g_inet_address_new_any (G_SOCKET_FAMILY_IPV4);
    g_autoptr(GSocketAddress) address = g_inet_socket_address_new (any, 0);
    g_autoptr(GSocketAddress) effective = NULL;

    g_assert_true (g_socket_listener_add_address (G_SOCKET_LISTENER (other), address,
                                                  G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP,
                                                  NULL, &effective, &error));
    other_port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (effective));
  }
  g_signal_connect (other, "run", G_CALLBACK (other_run_cb), NULL);
  g_socket_service_start (other);

  g_test_add_func ("/download/good", test_good);
  g_test_add_func ("/download/chunked", test_chunked);
  g_test_add_func ("/download/redirect", test_redirect);
  g_test_add_func ("/download/redirect-no-injection", test_redirect_no_injection);
  g_test_add_func ("/download/bad-checksum", test_bad_checksum);
  g_test_add_func ("/download/server-gone", test_cut);
  g_test_add_func ("/download/cancel", test_cancel);
  g_test_add_func ("/download/http-error", test_http_error);
  g_test_add_func ("/download/offline", test_offline);
  g_test_add_func ("/download/https", test_https_or_no_tls);
  g_test_add_func ("/download/endless-body", test_endless_body);
  g_test_add_func ("/download/endless-head", test_endless_head);
  g_test_add_func ("/download/drip", test_drip);
  g_test_add_func ("/download/bad-redirects", test_bad_redirects);
  g_test_add_func ("/download/not-http", test_not_http);
  g_test_add_func ("/download/redirect-policy", test_redirect_policy);
  g_test_add_func ("/download/redirect-local", test_redirect_local);
  g_test_add_func ("/download/host-header", test_host_header);
  g_test_add_func ("/download/local-addresses", test_local_addresses);
  g_test_add_func ("/download/parse-head", test_parse_head);
  return g_test_run ();
}
