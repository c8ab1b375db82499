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
} TbDownloadError;

/* Called on the main thread, coalesced (at most one pending at a time).
 * total is -1 when the server did not say. */
typedef void (*TbDownloadProgress) (gint64   received,
                                    gint64   total,
                                    gpointer user_data);

void tb_download_async (const char          *url,
                        const char          *dest_path,
                        const char          *sha256_hex,
                        TbDownloadProgress   progress,
                        gpointer             progress_data,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data);
gboolean tb_download_finish (GAsyncResult  *result,
                             GError       **error);

G_END_DECLS
