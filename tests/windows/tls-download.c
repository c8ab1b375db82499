/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tls-download.c: a test program for the Windows bundle, never installed.
 * It reports whether GIO has a TLS backend (glib-networking's OpenSSL module
 * from lib\gio\modules) and downloads $TRAINBENCH_MNIST_URL with the app's
 * own downloader (app/tb-download.c), checking the file's SHA-256.
 *
 *   tls-download.exe CA.der DEST SHA256
 *
 * CA.der is added to the user's "CA" certificate store first, which the
 * OpenSSL module trusts as it trusts the system's roots: the test server's
 * certificate is signed by a CA made for the test.
 */
#include <windows.h>
#include <wincrypt.h>

#include <gio/gio.h>

#include "tb-download.h"

typedef struct
{
  GMainLoop *loop;
  gboolean ok;
} Result;

static void
done_cb (GObject      *source,
         GAsyncResult *res,
         gpointer      user_data)
{
  Result *r = user_data;
  g_autoptr(GError) error = NULL;

  r->ok = tb_download_finish (res, &error);
  if (!r->ok)
    g_printerr ("download failed: %s\n", error->message);
  g_main_loop_quit (r->loop);
}

static gboolean
add_test_ca (const char *path)
{
  g_autofree char *der = NULL;
  gsize len = 0;

  if (!g_file_get_contents (path, &der, &len, NULL))
    return FALSE;
  return CertAddEncodedCertificateToSystemStoreW (L"CA", (const BYTE *) der, (DWORD) len);
}

int
main (int    argc,
      char **argv)
{
  Result r = { NULL, FALSE };
  const char *url = g_getenv ("TRAINBENCH_MNIST_URL");
  gboolean tls = g_tls_backend_supports_tls (g_tls_backend_get_default ());

  g_print ("tls backend: %s (%s)\n", tls ? "yes" : "no",
           G_OBJECT_TYPE_NAME (g_tls_backend_get_default ()));
  if (argc != 4 || url == NULL)
    {
      g_printerr ("usage: TRAINBENCH_MNIST_URL=URL tls-download CA.der DEST SHA256\n");
      return 2;
    }
  if (!tls)
    return 1;
  if (!add_test_ca (argv[1]))
    {
      g_printerr ("could not add %s to the CA store\n", argv[1]);
      return 1;
    }

  r.loop = g_main_loop_new (NULL, FALSE);
  /* the size unknown (0: the downloader's cap), a minute at most */
  tb_download_async (url, argv[2], argv[3], 0, 60, NULL, NULL, NULL, done_cb, &r);
  g_main_loop_run (r.loop);
  g_main_loop_unref (r.loop);
  g_print ("download: %s\n", r.ok ? "ok" : "failed");
  return r.ok ? 0 : 1;
}
