/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-format.c: numbers written for people. */
#define G_LOG_DOMAIN "trainbench-format"

#include "tb-config.h"

#include <limits.h>
#include <locale.h>
#include <string.h>

#include "tb-format.h"

/* Between groups where the locale has no separator of its own: U+202F,
 * the narrow no-break space, which the SI and CLDR use and which never
 * reads as a decimal point, nor lets a line break split the number. */
#define FALLBACK_SEPARATOR "\xe2\x80\xaf"

char *
tb_format_count (gint64 value)
{
  const struct lconv *lc = localeconv ();
  const char *sep = lc->thousands_sep;
  const char *grouping = lc->grouping;
  char digits[24];
  gboolean split[24] = { FALSE };
  GString *out;
  size_t n, pos;
  guint64 magnitude = value < 0 ? (guint64) 0 - (guint64) value : (guint64) value;

  /* C, C.UTF-8 and POSIX group nothing: large counts are unreadable there */
  if (sep == NULL || sep[0] == '\0' || grouping == NULL || grouping[0] <= 0
      || grouping[0] == CHAR_MAX || !g_utf8_validate (sep, -1, NULL))
    {
      sep = FALLBACK_SEPARATOR;
      grouping = "\3";
    }

  g_snprintf (digits, sizeof digits, "%" G_GUINT64_FORMAT, magnitude);
  n = strlen (digits);

  /* groups from the right: each size of `grouping` once, its last one
   * repeated, CHAR_MAX (or 0 before the end) for no more */
  pos = n;
  for (const char *g = grouping; *g > 0 && *g != CHAR_MAX;)
    {
      size_t size = (size_t) *g;

      if (pos <= size)
        break;
      pos -= size;
      split[pos] = TRUE;
      if (g[1] != '\0')
        g++;
    }

  out = g_string_sized_new (n * 2 + 2);
  if (value < 0)
    g_string_append_c (out, '-');
  for (size_t i = 0; i < n; i++)
    {
      if (split[i])
        g_string_append (out, sep);
      g_string_append_c (out, digits[i]);
    }
  return g_string_free (out, FALSE);
}
