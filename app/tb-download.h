/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-download.h: download a file over HTTP(S) with GIO alone (GSocketClient),
 * with progress, cancellation and a SHA-256 check; the file appears under its
 * final name only when it is complete and its checksum matches.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Where Keras downloads MNIST from, and the checksum Keras checks. A mirror
 * (or a test server) may be named in the environment variable
 * TRAINBENCH_MNIST_URL; the checksum stays the same. */
#define TB_MNIST_URL "https://storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz"
#define TB_MNIST_SHA256 "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1"
/* Its size in bytes: no more is taken from any server. */
#define TB_MNIST_SIZE G_GINT64_CONSTANT (11490434)
/* The longest a whole download may take, connection to last byte: 11 MB at
 * 13 KB/s. A server that sends a byte now and then is stopped by it. */
#define TB_DOWNLOAD_DEADLINE_S 900
/* Without a known size, the most any download takes. */
#define TB_DOWNLOAD_MAX_BYTES G_GINT64_CONSTANT (1024 * 1024 * 1024)

/* The bounds of an HTTP response's head: an endless header line or endless
 * headers are refused, not kept in memory. */
#define TB_HTTP_MAX_LINE (8 * 1024)
#define TB_HTTP_MAX_HEADERS 100
#define TB_HTTP_MAX_HEAD (64 * 1024)

#define TB_DOWNLOAD_ERROR (tb_download_error_quark ())
GQuark tb_download_error_quark (void);

typedef enum
{
  TB_DOWNLOAD_ERROR_OFFLINE,     /* the server could not be reached */
  TB_DOWNLOAD_ERROR_HTTP,        /* the server answered with an error */
  TB_DOWNLOAD_ERROR_TRUNCATED,   /* the connection ended before the file did */
  TB_DOWNLOAD_ERROR_CHECKSUM,    /* the file is not the expected one */
  TB_DOWNLOAD_ERROR_NO_TLS,      /* HTTPS is not available (glib-networking missing) */
  TB_DOWNLOAD_ERROR_WRITE,       /* the file could not be saved */
  TB_DOWNLOAD_ERROR_ADDRESS,     /* not an http(s) address, or a redirect that is not followed */
  TB_DOWNLOAD_ERROR_TOO_LARGE,   /* the server sends more than the file is */
  TB_DOWNLOAD_ERROR_TIMED_OUT,   /* the download took longer than its deadline */
} TbDownloadError;

/* Called on the main thread, coalesced (at most one pending at a time).
 * total is -1 when the server did not say. */
typedef void (*TbDownloadProgress) (gint64   received,
                                    gint64   total,
                                    gpointer user_data);

/* Download `url` (http or https; redirects followed to http(s) only, never
 * from https to http, at most 5; never to a local address, see
 * tb_download_address_is_local, but the redirecting server's own address
 * and port) to `dest_path`. `size` is the file's size
 * when known (0 when not, then TB_DOWNLOAD_MAX_BYTES): a server that
 * announces or sends more is stopped there. The whole download ends within
 * `deadline_s` seconds (0: TB_DOWNLOAD_DEADLINE_S). */
void tb_download_async (const char          *url,
                        const char          *dest_path,
                        const char          *sha256_hex,
                        gint64               size,
                        guint                deadline_s,
                        TbDownloadProgress   progress,
                        gpointer             progress_data,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data);
gboolean tb_download_finish (GAsyncResult  *result,
                             GError       **error);

/* Whether `address` is on this computer or its local network: loopback,
 * private (10/8, 172.16/12, 192.168/16), link-local, unique local
 * (fc00::/7), unspecified, 0/8 and 100.64/10, and IPv4 ones written as
 * IPv6 (::ffff:a.b.c.d). A download is given such an address on purpose
 * (a mirror on this machine); a redirect from a server is followed to one
 * only when it is that server's own address and port, so no server can
 * send the download into a local service (a database's port, a router's
 * page, a cloud's metadata address). A redirect's host is looked at as
 * written (an IP address, "localhost") before connecting, and as
 * connected to (a name) before the request is sent, unless the system's
 * proxy connects for it. */
gboolean tb_download_address_is_local (GInetAddress *address);

/* The address a redirect from `from` to `location` (absolute or relative)
 * leads to, when it is followed: http or https with a host, and never from
 * https to http. Otherwise NULL and TB_DOWNLOAD_ERROR_ADDRESS, whose
 * message says why. */
char *tb_download_redirect_target (const char  *from,
                                   const char  *location,
                                   GError     **error);

/* An HTTP/1.x response's head as read before its body. */
typedef struct
{
  int status;               /* 200, 302, ... */
  gint64 content_length;    /* -1 when not given (or when chunked) */
  gboolean chunked;         /* Transfer-Encoding: chunked */
  char *location;           /* owned; the Location header, or NULL */
} TbHttpHead;

/* Parse a response head: the status line and the header lines, each ending
 * in LF or CR LF, up to an optional empty line; `data` need not end in NUL.
 * Checks the bounds above, a status line of HTTP/1.x, and Content-Length
 * (a number that fits, not two different ones). Only the fields above are
 * kept. On error the message says what is wrong (without the server's
 * name); `head` is then cleared. */
gboolean tb_http_parse_head (const char  *data,
                             gsize        length,
                             TbHttpHead  *head,
                             GError     **error);
void tb_http_head_clear (TbHttpHead *head);

G_END_DECLS
