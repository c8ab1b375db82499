/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-format.h: numbers written for people: large counts grouped in
 * thousands, in the locale's way or, where the locale has none (C.UTF-8),
 * with narrow no-break spaces.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* "60 000" (C.UTF-8, U+202F), "60.000" (de_DE), "12,34,567" (en_IN); free
 * with g_free. */
char *tb_format_count (gint64 value);

G_END_DECLS
