/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-download.c: a small HTTP/1.1 GET client on GSocketClient (TLS through
 * GIO's backend), run in a GTask worker. The body goes to "<dest>.part",
 * hashed on the way; it is renamed to <dest> only when complete and correct.
 * Everything a server controls is bounded: the head's lines, their number,
 * the body's size, the redirects and the time.
 */
#define G_LOG_DOMAIN "trainbench-download"

#include "tb-config.h"

#include <errno.h>
#include <stdarg.h>
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
  gint64 size;               /* the most bytes taken */
  guint deadline_s;
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

/* ------------------------------------------------------------ response head */

void
tb_http_head_clear (TbHttpHead *head)
{
  g_return_if_fail (head != NULL);

  g_clear_pointer (&head->location, g_free);
  head->status = 0;
  head->content_length = -1;
  head->chunked = FALSE;
}

static gboolean
head_error (GError     **error,
            TbHttpHead  *head,
            const char  *format,
            ...) G_GNUC_PRINTF (3, 4);

static gboolean
head_error (GError     **error,
            TbHttpHead  *head,
            const char  *format,
            ...)
{
  va_list args;

  va_start (args, format);
  if (error != NULL)
    *error = g_error_new_valist (TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_HTTP, format, args);
  va_end (args);
  tb_http_head_clear (head);
  return FALSE;
}

/* "HTTP/1.1 200 OK" */
static gboolean
parse_status_line (const char *line,
                   gsize       length,
                   int        *status)
{
  if (length < 12 || memcmp (line, "HTTP/1.", 7) != 0 || !g_ascii_isdigit (line[7])
      || line[8] != ' ' || !g_ascii_isdigit (line[9]) || !g_ascii_isdigit (line[10])
      || !g_ascii_isdigit (line[11]) || (length > 12 && line[12] != ' '))
    return FALSE;
  *status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
  return *status >= 100;
}

/* Content-Length: digits only, and a number that fits */
static gboolean
parse_length (const char *value,
              gsize       length,
              gint64     *out)
{
  gint64 v = 0;

  if (length == 0 || length > 18)
    return FALSE;
  for (gsize i = 0; i < length; i++)
    {
      if (!g_ascii_isdigit (value[i]))
        return FALSE;
      v = v * 10 + (value[i] - '0');
    }
  *out = v;
  return TRUE;
}

static gboolean
is_token_char (char c)
{
  return g_ascii_isalnum (c) || (c != '\0' && strchr ("!#$%&'*+-.^_`|~", c) != NULL);
}

gboolean
tb_http_parse_head (const char  *data,
                    gsize        length,
                    TbHttpHead  *head,
                    GError     **error)
{
  gsize pos = 0;
  guint lines = 0;
  gboolean have_length = FALSE;

  g_return_val_if_fail (data != NULL || length == 0, FALSE);
  g_return_val_if_fail (head != NULL, FALSE);

  head->status = 0;
  head->content_length = -1;
  head->chunked = FALSE;
  head->location = NULL;

  if (length > TB_HTTP_MAX_HEAD)
    return head_error (error, head, _("its answer's headers are longer than %d KiB"), TB_HTTP_MAX_HEAD / 1024);

  while (pos < length)
    {
      const char *line = data + pos;
      const char *nl = memchr (line, '\n', length - pos);
      gsize n = nl != NULL ? (gsize) (nl - line) : length - pos;
      gsize name_len, value_start, value_end;
      const char *colon;

      pos += n + (nl != NULL ? 1 : 0);
      if (n > 0 && line[n - 1] == '\r')
        n--;
      if (n > TB_HTTP_MAX_LINE)
        return head_error (error, head, _("a line of its answer is longer than %d KiB"), TB_HTTP_MAX_LINE / 1024);
      if (memchr (line, '\0', n) != NULL)
        return head_error (error, head, _("its answer has a NUL byte in its headers"));
      if (lines == 0)
        {
          if (!parse_status_line (line, n, &head->status))
            return head_error (error, head, _("its answer does not begin with an HTTP/1 status line"));
          lines++;
          continue;
        }
      if (n == 0)
        break;   /* the end of the head */
      if (++lines > TB_HTTP_MAX_HEADERS + 1)
        return head_error (error, head, _("its answer has more than %d header lines"), TB_HTTP_MAX_HEADERS);

      colon = memchr (line, ':', n);
      if (colon == NULL)
        continue;   /* not a header (a folded line): nothing this client needs */
      name_len = (gsize) (colon - line);
      for (gsize i = 0; i < name_len; i++)
        if (!is_token_char (line[i]))
          return head_error (error, head, _("its answer has a malformed header line"));
      value_start = name_len + 1;
      value_end = n;
      while (value_start < value_end && (line[value_start] == ' ' || line[value_start] == '\t'))
        value_start++;
      while (value_end > value_start && (line[value_end - 1] == ' ' || line[value_end - 1] == '\t'))
        value_end--;

      if (name_len == 14 && g_ascii_strncasecmp (line, "Content-Length", 14) == 0)
        {
          gint64 v;

          if (!parse_length (line + value_start, value_end - value_start, &v))
            return head_error (error, head, _("its answer's Content-Length is not a number of bytes"));
          if (have_length && v != head->content_length)
            return head_error (error, head, _("its answer has two different Content-Lengths"));
          head->content_length = v;
          have_length = TRUE;
        }
      else if (name_len == 17 && g_ascii_strncasecmp (line, "Transfer-Encoding", 17) == 0)
        {
          g_autofree char *value = g_ascii_strdown (line + value_start, (gssize) (value_end - value_start));

          if (strstr (value, "chunked") != NULL)
            head->chunked = TRUE;
        }
      else if (name_len == 8 && g_ascii_strncasecmp (line, "Location", 8) == 0)
        {
          g_free (head->location);
          head->location = g_strndup (line + value_start, value_end - value_start);
        }
    }
  if (lines == 0)
    return head_error (error, head, _("its answer is empty"));
  /* a chunked body's length is in its chunks (RFC 9112, 6.3) */
  if (head->chunked)
    head->content_length = -1;
  return TRUE;
}

/* ------------------------------------------------------------ connection */

/* What one download may still spend: bytes and time. */
typedef struct
{
  gint64 deadline;           /* monotonic µs */
  guint deadline_s;
  gint64 max_bytes;
} Budget;

static gboolean
check_deadline (const Budget  *budget,
                GError       **error)
{
  if (g_get_monotonic_time () <= budget->deadline)
    return TRUE;
  if (budget->deadline_s % 60 == 0)
    g_set_error (error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_TIMED_OUT,
                 ngettext ("The download took longer than %u minute, the most it may take",
                           "The download took longer than %u minutes, the most it may take",
                           budget->deadline_s / 60),
                 budget->deadline_s / 60);
  else
    g_set_error (error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_TIMED_OUT,
                 ngettext ("The download took longer than %u second, the most it may take",
                           "The download took longer than %u seconds, the most it may take",
                           budget->deadline_s),
                 budget->deadline_s);
  return FALSE;
}

/* One line (up to LF, which is kept) of at most `max` bytes from `in`, whose
 * buffer is larger than `max`. NULL at the end of the stream with no error
 * set, or NULL with an error (a line too long, the deadline, the network). */
static GBytes *
read_line (GBufferedInputStream  *in,
           gsize                  max,
           const Budget          *budget,
           GCancellable          *cancellable,
           GError               **error)
{
  g_assert (g_buffered_input_stream_get_buffer_size (in) > max);

  for (;;)
    {
      gsize avail = 0;
      const char *buf = g_buffered_input_stream_peek_buffer (in, &avail);
      const char *nl = avail > 0 ? memchr (buf, '\n', MIN (avail, max + 1)) : NULL;
      gssize n;

      if (nl != NULL)
        {
          gsize len = (gsize) (nl - buf) + 1;
          GBytes *line = g_bytes_new (buf, len);

          if (g_input_stream_skip (G_INPUT_STREAM (in), len, cancellable, error) != (gssize) len)
            {
              g_bytes_unref (line);
              return NULL;
            }
          return line;
        }
      if (avail > max)
        {
          g_set_error (error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_HTTP,
                       _("a line of its answer is longer than %u KiB"), (guint) (max / 1024));
          return NULL;
        }
      if (!check_deadline (budget, error))
        return NULL;
      n = g_buffered_input_stream_fill (in, -1, cancellable, error);
      if (n < 0)
        return NULL;
      if (n == 0)
        return NULL;   /* the end: no error */
    }
}

static void
propagate_read_error (GError      **error,
                      GError       *local_error,
                      const char   *host,
                      const char   *truncated)
{
  if (local_error == NULL)
    g_set_error_literal (error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_TRUNCATED, truncated);
  else if (local_error->domain == TB_DOWNLOAD_ERROR && local_error->code == TB_DOWNLOAD_ERROR_HTTP)
    g_set_error (error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_HTTP,
                 _("%s did not answer like a web server: %s"), host, local_error->message);
  else
    {
      g_propagate_error (error, local_error);
      return;
    }
  g_clear_error (&local_error);
}

gboolean
tb_download_address_is_local (GInetAddress *address)
{
  g_autoptr(GInetAddress) v4 = NULL;
  const guint8 *b;

  g_return_val_if_fail (G_IS_INET_ADDRESS (address), TRUE);

  b = g_inet_address_to_bytes (address);
  if (g_inet_address_get_family (address) == G_SOCKET_FAMILY_IPV6)
    {
      static const guint8 mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

      /* ::ffff:127.0.0.1 is 127.0.0.1 */
      if (memcmp (b, mapped, sizeof mapped) == 0)
        {
          v4 = g_inet_address_new_from_bytes (b + 12, G_SOCKET_FAMILY_IPV4);
          address = v4;
          b = g_inet_address_to_bytes (address);
        }
      else if ((b[0] & 0xfe) == 0xfc)
        return TRUE;   /* fc00::/7, unique local */
    }
  if (g_inet_address_get_is_any (address) || g_inet_address_get_is_loopback (address)
      || g_inet_address_get_is_link_local (address) || g_inet_address_get_is_site_local (address))
    return TRUE;
  /* 0.0.0.0/8 ("this network") and 100.64.0.0/10 (a provider's shared
   * space) are no address of the internet either */
  return g_inet_address_get_family (address) == G_SOCKET_FAMILY_IPV4
         && (b[0] == 0 || (b[0] == 100 && (b[1] & 0xc0) == 64));
}

/* The address a URL's host names without a lookup: an IP address, or the
 * loopback for "localhost" and the names under it (RFC 6761, with or
 * without the root's dot); NULL for any other name, which is looked at
 * where the connection goes. */
static GInetAddress *
literal_address (const char *host)
{
  gsize n = strlen (host);

  if (g_hostname_is_ip_address (host))
    return g_inet_address_new_from_string (host);
  if (n > 0 && host[n - 1] == '.')
    n--;
  if ((n == 9 && g_ascii_strncasecmp (host, "localhost", 9) == 0)
      || (n > 10 && g_ascii_strncasecmp (host + n - 10, ".localhost", 10) == 0))
    return g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  return NULL;
}

/* Where a redirect may lead: anywhere but a local address (this computer,
 * its local network), which only the redirecting server's own address and
 * port may be (a mirror's own other path). `from` is that server's
 * address, NULL when not known. */
static gboolean
redirect_may_reach (GInetAddress   *to,
                    guint16         port,
                    GSocketAddress *from)
{
  if (to == NULL || !tb_download_address_is_local (to))
    return TRUE;
  return from != NULL && G_IS_INET_SOCKET_ADDRESS (from)
         && g_inet_address_equal (to, g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (from)))
         && port == g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (from));
}

static void
set_local_refused (GError **error,
                   GUri    *uri)
{
  g_autofree char *url = g_uri_to_string (uri);

  g_set_error (error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_ADDRESS,
               _("The server redirected the download to “%s”, an address on this computer or its local network; it was not followed"),
               url);
}

/* Whether a connection to `uri` goes straight to its host (not through a
 * proxy, whose address would be the one connected to). */
static gboolean
goes_direct (GSocketClient *client,
             GUri          *uri,
             GCancellable  *cancellable)
{
  g_autofree char *url = g_uri_to_string (uri);
  GProxyResolver *resolver = g_socket_client_get_proxy_resolver (client);
  g_auto(GStrv) proxies = NULL;

  if (!g_socket_client_get_enable_proxy (client) || resolver == NULL)
    return TRUE;
  proxies = g_proxy_resolver_lookup (resolver, url, cancellable, NULL);
  return proxies == NULL || proxies[0] == NULL || g_str_has_prefix (proxies[0], "direct://");
}

/* Send the request and read the response's head. Returns the connection,
 * with *body_in positioned at the body, and the address connected to in
 * *remote, or NULL. `redirected_by` is the address of the server whose
 * redirect led here (NULL for the address the download was given): a
 * local address is then refused by the rule of redirect_may_reach, by its
 * name before connecting, and by the address connected to before the
 * request is sent. */
static GIOStream *
open_request (GUri                   *uri,
              gboolean                redirected,
              GSocketAddress         *redirected_by,
              const Budget           *budget,
              GCancellable           *cancellable,
              TbHttpHead             *head,
              GBufferedInputStream  **body_in,
              GSocketAddress        **remote,
              GError                **error)
{
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketConnection) conn = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GInputStream) in = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *request = NULL;
  g_autofree char *host_field = NULL;
  g_autoptr(GSocketAddress) connected = NULL;
  const char *scheme = g_uri_get_scheme (uri);
  const char *host = g_uri_get_host (uri);
  const char *path = g_uri_get_path (uri);
  const char *query = g_uri_get_query (uri);
  gboolean tls = g_ascii_strcasecmp (scheme, "https") == 0;
  int default_port = tls ? 443 : 80;
  int port = g_uri_get_port (uri);
  guint lines = 0;

  if (port < 0)
    port = default_port;
  if (redirected)
    {
      g_autoptr(GInetAddress) literal = literal_address (host);

      if (!redirect_may_reach (literal, (guint16) port, redirected_by))
        {
          set_local_refused (error, uri);
          return NULL;
        }
    }
  if (tls && !g_tls_backend_supports_tls (g_tls_backend_get_default ()))
    {
      g_set_error (error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_NO_TLS,
                   _("Secure downloads (HTTPS) are not available: install glib-networking"));
      return NULL;
    }

  g_socket_client_set_tls (client, tls);
  /* each connect, read and write; the budget's deadline bounds the whole */
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
  connected = g_socket_connection_get_remote_address (conn, NULL);
  /* a name that turned out to be a local address: nothing is sent to it */
  if (redirected && connected != NULL && G_IS_INET_SOCKET_ADDRESS (connected)
      && goes_direct (client, uri, cancellable)
      && !redirect_may_reach (g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (connected)),
                              g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (connected)),
                              redirected_by))
    {
      set_local_refused (error, uri);
      return NULL;
    }
  if (!check_deadline (budget, error))
    return NULL;

  /* Host with its port when that is not the scheme's (RFC 9110, 7.2), an
   * IPv6 address in brackets */
  host_field = g_strdup_printf (strchr (host, ':') != NULL ? "[%s]" : "%s", host);
  if (port != default_port)
    {
      char *with_port = g_strdup_printf ("%s:%d", host_field, port);

      g_free (host_field);
      host_field = with_port;
    }

  /* the target as the address has it (percent-encoded), and any byte a
   * request line cannot carry (a CR or LF, a space, a control) encoded:
   * GUri takes them raw */
  {
    g_autoptr(GString) target = g_string_new (NULL);
    const char *parts[2] = { *path ? path : "/", query };

    for (int i = 0; i < 2 && parts[i] != NULL; i++)
      {
        if (i == 1)
          g_string_append_c (target, '?');
        for (const guchar *p = (const guchar *) parts[i]; *p; p++)
          {
            if (*p <= 0x20 || *p >= 0x7f)
              g_string_append_printf (target, "%%%02X", *p);
            else
              g_string_append_c (target, (char) *p);
          }
      }
    request = g_strdup_printf ("GET %s HTTP/1.1\r\n"
                               "Host: %s\r\n"
                               "User-Agent: Trainbench/" PACKAGE_VERSION "\r\n"
                               "Accept-Encoding: identity\r\n"
                               "Connection: close\r\n\r\n",
                               target->str, host_field);
  }
  if (!g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (conn)),
                                  request, strlen (request), NULL, cancellable, error))
    return NULL;

  /* the buffer holds a whole line and then some */
  in = g_buffered_input_stream_new_sized (g_io_stream_get_input_stream (G_IO_STREAM (conn)),
                                          TB_HTTP_MAX_LINE * 2);
  g_filter_input_stream_set_close_base_stream (G_FILTER_INPUT_STREAM (in), FALSE);

  /* the head, line by line, within its bounds; then parsed */
  for (;;)
    {
      g_autoptr(GBytes) line = read_line (G_BUFFERED_INPUT_STREAM (in), TB_HTTP_MAX_LINE, budget,
                                          cancellable, &local_error);
      gsize n = 0;
      const char *bytes;

      if (line == NULL)
        {
          propagate_read_error (error, g_steal_pointer (&local_error), host,
                                lines == 0 ? _("The server closed the connection without answering")
                                           : _("The connection ended before the answer began"));
          return NULL;
        }
      bytes = g_bytes_get_data (line, &n);
      if (++lines > TB_HTTP_MAX_HEADERS + 2)
        {
          g_set_error (error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_HTTP,
                       _("%s did not answer like a web server: its answer has more than %d header lines"),
                       host, TB_HTTP_MAX_HEADERS);
          return NULL;
        }
      if (text->len + n > TB_HTTP_MAX_HEAD)
        {
          g_set_error (error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_HTTP,
                       _("%s did not answer like a web server: its answer's headers are longer than %d KiB"),
                       host, TB_HTTP_MAX_HEAD / 1024);
          return NULL;
        }
      g_string_append_len (text, bytes, (gssize) n);
      if (lines > 1 && (n == 1 || (n == 2 && bytes[0] == '\r')))
        break;   /* the empty line */
    }
  if (!tb_http_parse_head (text->str, text->len, head, &local_error))
    {
      g_set_error (error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_HTTP,
                   _("%s did not answer like a web server: %s"), host, local_error->message);
      return NULL;
    }

  *body_in = G_BUFFERED_INPUT_STREAM (g_steal_pointer (&in));
  *remote = g_steal_pointer (&connected);
  return G_IO_STREAM (g_steal_pointer (&conn));
}

/* A chunk's size line: hexadecimal digits, then an optional extension */
static gboolean
parse_chunk_size (GBytes *line,
                  gint64 *size)
{
  gsize n = 0;
  const char *s = g_bytes_get_data (line, &n);
  gint64 v = 0;
  gsize i = 0;

  for (; i < n && g_ascii_isxdigit (s[i]); i++)
    {
      if (i >= 15)
        return FALSE;   /* more than a download could be */
      v = v * 16 + g_ascii_xdigit_value (s[i]);
    }
  if (i == 0 || (i < n && s[i] != ';' && s[i] != '\r' && s[i] != '\n' && s[i] != ' ' && s[i] != '\t'))
    return FALSE;
  *size = v;
  return TRUE;
}

/* Read up to `size` bytes of the body, plain or in chunked transfer coding
 * (then *chunk_left counts down the current chunk and *finished is set by
 * the last, empty chunk). Returns 0 at the end, -1 on error. */
static gssize
read_body (GBufferedInputStream  *in,
           gboolean               chunked,
           gint64                *chunk_left,
           gboolean              *finished,
           guint8                *buf,
           gsize                  size,
           const Budget          *budget,
           GCancellable          *cancellable,
           GError               **error)
{
  gssize n;

  if (!check_deadline (budget, error))
    return -1;
  if (!chunked)
    return g_input_stream_read (G_INPUT_STREAM (in), buf, size, cancellable, error);
  if (*finished)
    return 0;
  if (*chunk_left == 0)
    {
      GError *local_error = NULL;
      g_autoptr(GBytes) line = read_line (in, 1024, budget, cancellable, &local_error);

      if (line == NULL)
        {
          if (local_error == NULL)
            return 0;   /* ended without the last chunk: the caller says so */
          g_propagate_error (error, local_error);
          return -1;
        }
      if (!parse_chunk_size (line, chunk_left))
        {
          g_set_error (error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_HTTP,
                       _("a chunk of the file does not begin with its size"));
          return -1;
        }
      if (*chunk_left == 0)
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
        {
          /* the chunk's CRLF */
          GBytes *end = read_line (in, 1024, budget, cancellable, NULL);

          g_clear_pointer (&end, g_bytes_unref);
        }
    }
  return n;
}

/* A URI this client can name and follow: http(s) with a host. Checked on
 * the parts, before g_uri_to_string, which does not take every GUri that
 * g_uri_parse_relative makes (no host and a path of "//x"). */
static gboolean
is_web_uri (GUri *uri)
{
  const char *scheme = uri != NULL ? g_uri_get_scheme (uri) : NULL;
  const char *host = uri != NULL ? g_uri_get_host (uri) : NULL;

  return scheme != NULL && (g_ascii_strcasecmp (scheme, "http") == 0 || g_ascii_strcasecmp (scheme, "https") == 0)
         && host != NULL && *host != '\0';
}

/* A URL this client follows: http or https with a host. */
static gboolean
check_address (GUri        *uri,
               const char  *url,
               gboolean     redirect,
               const char  *from_scheme,
               GError     **error)
{
  const char *scheme = uri != NULL ? g_uri_get_scheme (uri) : NULL;

  if (is_web_uri (uri))
    {
      if (redirect && g_ascii_strcasecmp (from_scheme, "https") == 0 && g_ascii_strcasecmp (scheme, "http") == 0)
        {
          g_set_error (error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_ADDRESS,
                       _("The server redirected the secure (https) download to an insecure address, “%s”; it was not followed"),
                       url);
          return FALSE;
        }
      return TRUE;
    }
  if (redirect)
    g_set_error (error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_ADDRESS,
                 _("The server redirected the download to “%s”, which is not a web address (only http and https are followed)"),
                 url);
  else
    g_set_error (error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_ADDRESS,
                 _("“%s” is not a web address: downloads use http or https"), url);
  return FALSE;
}

char *
tb_download_redirect_target (const char  *from,
                             const char  *location,
                             GError     **error)
{
  g_autoptr(GUri) base = NULL;
  g_autoptr(GUri) next = NULL;
  g_autofree char *next_url = NULL;

  g_return_val_if_fail (from != NULL, NULL);
  g_return_val_if_fail (location != NULL, NULL);

  base = g_uri_parse (from, G_URI_FLAGS_ENCODED, NULL);
  if (!check_address (base, from, FALSE, NULL, error))
    return NULL;
  next = g_uri_parse_relative (base, location, G_URI_FLAGS_ENCODED, NULL);
  next_url = is_web_uri (next) ? g_uri_to_string (next) : g_strdup (location);
  if (!check_address (is_web_uri (next) ? next : NULL, next_url, TRUE, g_uri_get_scheme (base), error))
    return NULL;
  return g_steal_pointer (&next_url);
}

static void
download_thread (GTask        *task,
                 gpointer      source_object,
                 gpointer      task_data,
                 GCancellable *cancellable)
{
  Download *d = task_data;
  g_autoptr(GIOStream) conn = NULL;
  g_autoptr(GBufferedInputStream) in = NULL;
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr(GError) error = NULL;
  g_autoptr(GUri) uri = NULL;
  g_autoptr(GSocketAddress) remote = NULL;   /* the server connected to last */
  g_autofree char *url = g_strdup (d->url);
  g_autofree char *part = g_strconcat (d->dest, ".part", NULL);
  g_autofree char *folder = g_path_get_dirname (d->dest);
  g_autofree guint8 *buf = g_malloc (CHUNK);
  TbHttpHead head = { 0 };
  Budget budget;
  g_autoptr(GFile) part_file = g_file_new_for_path (part);
  g_autoptr(GFileOutputStream) out = NULL;
  g_autoptr(GError) write_error = NULL;
  gint64 length = -1, received = 0, chunk_left = 0;
  gboolean finished = FALSE;

  budget.deadline_s = d->deadline_s;
  budget.deadline = g_get_monotonic_time () + (gint64) d->deadline_s * G_USEC_PER_SEC;
  budget.max_bytes = d->size;

  /* kept as written: a %0D%0A stays encoded on its way to the request */
  uri = g_uri_parse (url, G_URI_FLAGS_ENCODED, NULL);
  if (!check_address (uri, url, FALSE, NULL, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  for (int hop = 0; ; hop++)
    {
      g_autoptr(GUri) next = NULL;
      g_autofree char *next_url = NULL;
      GSocketAddress *redirected_by = g_steal_pointer (&remote);

      g_clear_object (&in);
      g_clear_object (&conn);
      tb_http_head_clear (&head);
      conn = open_request (uri, hop > 0, redirected_by, &budget, cancellable, &head, &in, &remote, &error);
      g_clear_object (&redirected_by);
      if (conn == NULL)
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
      if (head.status < 300 || head.status >= 400 || head.location == NULL)
        break;
      if (hop == MAX_REDIRECTS)
        {
          tb_http_head_clear (&head);
          g_task_return_new_error (task, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_ADDRESS,
                                   _("The server redirected the download more than %d times (a redirect loop?), last to “%s”"),
                                   MAX_REDIRECTS, url);
          return;
        }
      next_url = tb_download_redirect_target (url, head.location, &error);
      if (next_url == NULL)
        {
          tb_http_head_clear (&head);
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
      next = g_uri_parse (next_url, G_URI_FLAGS_ENCODED, NULL);
      g_assert (next != NULL);   /* checked by tb_download_redirect_target */
      g_free (url);
      url = g_steal_pointer (&next_url);
      g_clear_pointer (&uri, g_uri_unref);
      uri = g_steal_pointer (&next);
    }

  length = head.content_length;
  if (head.status != 200)
    {
      int status = head.status;

      tb_http_head_clear (&head);
      g_task_return_new_error (task, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_HTTP,
                               _("The server answered %d for %s"), status, url);
      return;
    }
  if (length > budget.max_bytes)
    {
      g_autofree char *size = g_format_size_full ((guint64) length, G_FORMAT_SIZE_IEC_UNITS);
      g_autofree char *want = g_format_size_full ((guint64) budget.max_bytes, G_FORMAT_SIZE_IEC_UNITS);

      tb_http_head_clear (&head);
      g_task_return_new_error (task, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_TOO_LARGE,
                               _("The server offers %s for %s, more than the expected %s: not the expected file"),
                               size, url, want);
      return;
    }

  if (g_mkdir_with_parents (folder, 0755) != 0)
    {
      int saved = errno;

      tb_http_head_clear (&head);
      g_task_return_new_error (task, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_WRITE,
                               _("Could not write “%s”: %s"), part, g_strerror (saved));
      return;
    }
  /* a GIO stream, not a FILE *: on Windows GLib's C runtime is not the
   * app's; written in place (a .part left by an earlier try goes first) */
  g_unlink (part);
  out = g_file_create (part_file, G_FILE_CREATE_NONE, NULL, &write_error);
  if (out == NULL)
    {
      tb_http_head_clear (&head);
      g_task_return_new_error (task, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_WRITE,
                               _("Could not write “%s”: %s"), part, write_error->message);
      return;
    }

  report (task, d, 0, length);
  for (;;)
    {
      gsize want = CHUNK;
      gssize n;

      /* one byte more than the file is tells a server that sends more */
      if ((gint64) want > budget.max_bytes + 1 - received)
        want = (gsize) (budget.max_bytes + 1 - received);
      n = read_body (in, head.chunked, &chunk_left, &finished, buf, want, &budget, cancellable, &error);
      if (n < 0)
        break;
      if (n == 0)
        {
          /* a chunked body must end with its empty last chunk */
          if (head.chunked && !finished)
            g_set_error (&error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_TRUNCATED,
                         _("the connection closed in the middle of the file"));
          break;
        }
      if (received + n > budget.max_bytes)
        {
          g_autofree char *want_text = g_format_size_full ((guint64) budget.max_bytes, G_FORMAT_SIZE_IEC_UNITS);

          g_set_error (&error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_TOO_LARGE,
                       _("The server sent more than %s for %s: not the expected file"), want_text, url);
          break;
        }
      if (!g_output_stream_write_all (G_OUTPUT_STREAM (out), buf, (gsize) n, NULL, NULL, &write_error))
        {
          g_output_stream_close (G_OUTPUT_STREAM (out), NULL, NULL);
          g_unlink (part);
          tb_http_head_clear (&head);
          g_task_return_new_error (task, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_WRITE,
                                   _("Could not write “%s”: %s"), part, write_error->message);
          return;
        }
      g_checksum_update (checksum, buf, n);
      received += n;
      report (task, d, received, length);
      if (length >= 0 && received >= length)
        break;
    }
  tb_http_head_clear (&head);

  if (!g_output_stream_close (G_OUTPUT_STREAM (out), NULL, &write_error) && error == NULL)
    g_set_error (&error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_WRITE,
                 _("Could not write “%s”: %s"), part, write_error->message);

  if (error != NULL)
    {
      g_unlink (part);
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED)
          || g_error_matches (error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_TOO_LARGE)
          || g_error_matches (error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_TIMED_OUT)
          || g_error_matches (error, TB_DOWNLOAD_ERROR, TB_DOWNLOAD_ERROR_WRITE))
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
                   gint64               size,
                   guint                deadline_s,
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
  d->size = size > 0 ? size : TB_DOWNLOAD_MAX_BYTES;
  d->deadline_s = deadline_s > 0 ? deadline_s : TB_DOWNLOAD_DEADLINE_S;
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
