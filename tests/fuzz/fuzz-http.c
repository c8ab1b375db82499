/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-http.c: libFuzzer target for the download's HTTP response parser
 * (tb_http_parse_head, what a server's status line and headers go through)
 * and its redirect policy (tb_download_redirect_target). Any bytes go in:
 * the parser must refuse them with a message, or give a head within the
 * bounds; a redirect is followed only to http(s).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-glib.h"
#include "tb-download.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  fuzz_glib_init ();
  return 0;
}

static void
fail (const char *what, const char *detail)
{
  fprintf (stderr, "fuzz-http: %s: %s\n", what, detail != NULL ? detail : "");
  abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  TbHttpHead head = { 0 };
  GError *error = NULL;

  if (tb_http_parse_head ((const char *) data, size, &head, &error))
    {
      if (error != NULL)
        fail ("a head and an error", error->message);
      if (head.status < 100 || head.status > 999 || head.content_length < -1
          || (head.chunked && head.content_length != -1)
          || (head.location != NULL && strlen (head.location) > TB_HTTP_MAX_LINE))
        fail ("a head out of its bounds", head.location);
      /* where its Location leads, from an https address */
      if (head.location != NULL && g_utf8_validate (head.location, -1, NULL))
        {
          char *next = tb_download_redirect_target ("https://example.org/data/mnist.npz", head.location, &error);

          if (next != NULL && !g_str_has_prefix (next, "https://"))
            fail ("a redirect from https to something else", next);
          if (next == NULL && (error == NULL || error->code != TB_DOWNLOAD_ERROR_ADDRESS))
            fail ("a redirect refused without its error", head.location);
          g_clear_error (&error);
          g_free (next);
          next = tb_download_redirect_target ("http://example.org/", head.location, &error);
          if (next != NULL && !g_str_has_prefix (next, "http://") && !g_str_has_prefix (next, "https://"))
            fail ("a redirect to something not http(s)", next);
          g_clear_error (&error);
          g_free (next);
        }
      tb_http_head_clear (&head);
      return 0;
    }
  if (error == NULL || error->domain != TB_DOWNLOAD_ERROR || error->message[0] == '\0')
    fail ("refused without a message", NULL);
  if (head.location != NULL)
    fail ("a refused head keeps its Location", head.location);
  g_error_free (error);
  return 0;
}
