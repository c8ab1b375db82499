/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-error.c: the engine's errors in the user's language. */
#define G_LOG_DOMAIN "trainbench-error"

#include "tb-config.h"

#include <glib/gi18n.h>

#include "tb-error.h"
#include "tb-session.h"

static const char *
translate_cb (const char *format,
              void       *user_data)
{
  /* "" would give the catalog's header */
  return format[0] != '\0' ? g_dgettext (GETTEXT_PACKAGE, format) : format;
}

char *
tb_error_message (const NnError *error)
{
  size_t len;
  char *text;

  g_return_val_if_fail (error != NULL, NULL);

  len = nn_error_translate (error, translate_cb, NULL, NULL, 0);
  text = g_malloc (len + 1);
  nn_error_translate (error, translate_cb, NULL, text, len + 1);
  /* the arguments are file names, data and the C library's words, which
   * need not be UTF-8; the message is shown as text */
  if (!g_utf8_validate (text, -1, NULL))
    {
      char *valid = g_utf8_make_valid (text, -1);

      g_free (text);
      text = valid;
    }
  return text;
}

GError *
tb_error_new (const NnError *error)
{
  g_autofree char *message = NULL;

  g_return_val_if_fail (error != NULL, NULL);

  message = tb_error_message (error);
  return g_error_new_literal (TB_SESSION_ERROR, error->code,
                              message[0] != '\0' ? message : tb_session_status_headline (error->code));
}
