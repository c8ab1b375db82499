/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-error.h: the engine's errors in the user's language. The engine
 * writes its messages in English; the app translates them through the
 * formats they were made from (nn_error_translate), with the app's own
 * message catalog, where po/ collects the engine's formats too.
 */
#pragma once

#include <glib.h>

#include "trainbench.h"

G_BEGIN_DECLS

/* The error's message, translated (free with g_free). */
char *tb_error_message (const NnError *error);

/* A TB_SESSION_ERROR with the error's status as its code and its
 * translated message. */
GError *tb_error_new (const NnError *error);

G_END_DECLS
