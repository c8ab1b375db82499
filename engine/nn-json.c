/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-json.c: the engine's streaming JSON writer (see nn-json.h).
 *
 * Output is always valid JSON or the writer reports failure: strings are
 * escaped and repaired to UTF-8, numbers never depend on the C locale, and
 * non-finite numbers become null.
 */

#define _POSIX_C_SOURCE 200809L

#include "nn-json.h"
#include "nn-private.h"

#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
_nn_json_init (NnJson *json)
{
  memset (json, 0, sizeof *json);
}

void
_nn_json_free (NnJson *json)
{
  free (json->data);
  memset (json, 0, sizeof *json);
}

bool
_nn_json_ok (const NnJson *json)
{
  return !json->failed && json->depth == 0 && !json->after_key && json->data != NULL;
}

static bool
reserve (NnJson *json, size_t extra)
{
  if (json->failed)
    return false;
  if (json->len + extra + 1 <= json->cap)
    return true;
  size_t cap = json->cap > 0 ? json->cap : 1024;
  while (cap < json->len + extra + 1)
    {
      if (cap > SIZE_MAX / 2)
        {
          json->failed = true;
          return false;
        }
      cap *= 2;
    }
  char *data = realloc (json->data, cap);
  if (data == NULL)
    {
      json->failed = true;
      return false;
    }
  json->data = data;
  json->cap = cap;
  return true;
}

static void
put (NnJson *json, const char *s, size_t n)
{
  if (!reserve (json, n))
    return;
  memcpy (json->data + json->len, s, n);
  json->len += n;
  json->data[json->len] = '\0';
}

static void
puts_ (NnJson *json, const char *s)
{
  put (json, s, strlen (s));
}

static void
newline_indent (NnJson *json)
{
  if (!reserve (json, 1 + 2 * (size_t) json->depth))
    return;
  json->data[json->len++] = '\n';
  for (int i = 0; i < json->depth; i++)
    {
      json->data[json->len++] = ' ';
      json->data[json->len++] = ' ';
    }
  json->data[json->len] = '\0';
}

/* Whatever goes before a value or a key: a comma and line break between
 * members, nothing after a key. */
static void
before_item (NnJson *json, bool is_key)
{
  if (json->failed)
    return;
  if (json->after_key)
    {
      if (is_key)
        json->failed = true;   /* two keys in a row */
      json->after_key = false;
      return;
    }
  if (json->depth == 0)
    {
      if (json->len > 0 || is_key)
        json->failed = true;   /* a second top-level value, or a key outside objects */
      return;
    }
  int d = json->depth - 1;
  if (json->object[d] != is_key)
    {
      json->failed = true;     /* a value without a key in an object, or a key in an array */
      return;
    }
  if (json->has_member[d])
    puts_ (json, json->one_line[d] ? ", " : ",");
  json->has_member[d] = true;
  if (!json->one_line[d])
    newline_indent (json);
}

static void
begin (NnJson *json, char open, bool one_line)
{
  before_item (json, false);
  if (json->failed)
    return;
  if (json->depth >= NN_JSON_MAX_DEPTH)
    {
      json->failed = true;
      return;
    }
  put (json, &open, 1);
  json->has_member[json->depth] = false;
  json->object[json->depth] = open == '{';
  /* Inside a one-line container everything stays on the line. */
  json->one_line[json->depth] = one_line || (json->depth > 0 && json->one_line[json->depth - 1]);
  json->depth++;
}

static void
end (NnJson *json, char close)
{
  if (json->failed)
    return;
  if (json->depth == 0 || json->after_key)
    {
      json->failed = true;
      return;
    }
  json->depth--;
  if (json->has_member[json->depth] && !json->one_line[json->depth])
    newline_indent (json);
  put (json, &close, 1);
  if (json->depth == 0)
    put (json, "\n", 1);
}

void
_nn_json_begin_object (NnJson *json)
{
  begin (json, '{', false);
}

void
_nn_json_end_object (NnJson *json)
{
  end (json, '}');
}

void
_nn_json_begin_array (NnJson *json)
{
  begin (json, '[', false);
}

void
_nn_json_begin_array_inline (NnJson *json)
{
  begin (json, '[', true);
}

void
_nn_json_end_array (NnJson *json)
{
  end (json, ']');
}

/* Writes the bytes of value up to its NUL or `max`, whichever comes first. */
static void
write_string (NnJson *json, const char *value, size_t max)
{
  const unsigned char *s = (const unsigned char *) value;
  size_t n = max == SIZE_MAX ? strlen (value) : strnlen (value, max);
  size_t run = 0;   /* bytes at s that need no escaping, not yet written */

  put (json, "\"", 1);
  while (run < n && !json->failed)
    {
      unsigned char c = s[run];
      if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80)
        {
          run++;
          continue;
        }
      size_t seq = c >= 0x80 ? _nn_utf8_decode (s + run, n - run, NULL) : 0;
      if (seq > 0)
        {
          run += seq;
          continue;
        }
      put (json, (const char *) s, run);
      char esc[8];
      switch (c)
        {
        case '"': puts_ (json, "\\\""); break;
        case '\\': puts_ (json, "\\\\"); break;
        case '\b': puts_ (json, "\\b"); break;
        case '\f': puts_ (json, "\\f"); break;
        case '\n': puts_ (json, "\\n"); break;
        case '\r': puts_ (json, "\\r"); break;
        case '\t': puts_ (json, "\\t"); break;
        default:
          if (c < 0x20)
            {
              snprintf (esc, sizeof esc, "\\u%04x", c);
              puts_ (json, esc);
            }
          else
            puts_ (json, "\xef\xbf\xbd");   /* U+FFFD for a byte that is not UTF-8 */
          break;
        }
      s += run + 1;
      n -= run + 1;
      run = 0;
    }
  put (json, (const char *) s, run);
  put (json, "\"", 1);
}

void
_nn_json_key (NnJson *json, const char *key)
{
  before_item (json, true);
  if (json->failed)
    return;
  if (json->depth == 0 || key == NULL)
    {
      json->failed = true;
      return;
    }
  write_string (json, key, SIZE_MAX);
  puts_ (json, ": ");
  json->after_key = true;
}

void
_nn_json_string (NnJson *json, const char *value)
{
  before_item (json, false);
  if (value == NULL)
    puts_ (json, "null");
  else
    write_string (json, value, SIZE_MAX);
}

void
_nn_json_string_bounded (NnJson *json, const char *value, size_t max)
{
  before_item (json, false);
  if (value == NULL)
    puts_ (json, "null");
  else
    write_string (json, value, max);
}

void
_nn_json_int (NnJson *json, int64_t value)
{
  char text[32];
  before_item (json, false);
  snprintf (text, sizeof text, "%" PRId64, value);
  puts_ (json, text);
}

void
_nn_json_uint (NnJson *json, uint64_t value)
{
  char text[32];
  before_item (json, false);
  snprintf (text, sizeof text, "%" PRIu64, value);
  puts_ (json, text);
}

/* printf writes the locale's decimal point (a comma in de_DE once the app
 * called setlocale); JSON needs '.'. */
static void
put_number (NnJson *json, char *text)
{
  const char *point = localeconv ()->decimal_point;
  if (point != NULL && strcmp (point, ".") != 0 && point[0] != '\0')
    {
      char *at = strstr (text, point);
      if (at != NULL)
        {
          size_t plen = strlen (point);
          *at = '.';
          memmove (at + 1, at + plen, strlen (at + plen) + 1);
        }
    }
  puts_ (json, text);
}

void
_nn_json_double (NnJson *json, double value)
{
  char text[64];
  before_item (json, false);
  if (!isfinite (value))
    {
      puts_ (json, "null");
      return;
    }
  /* The shortest of %.15g .. %.17g that reads back exactly; %.17g always does. */
  for (int precision = 15; precision <= 17; precision++)
    {
      snprintf (text, sizeof text, "%.*g", precision, value);
      if (precision == 17 || strtod (text, NULL) == value)
        break;
    }
  put_number (json, text);
}

void
_nn_json_float (NnJson *json, float value)
{
  char text[64];
  before_item (json, false);
  if (!isfinite (value))
    {
      puts_ (json, "null");
      return;
    }
  for (int precision = 6; precision <= 9; precision++)
    {
      snprintf (text, sizeof text, "%.*g", precision, (double) value);
      if (precision == 9 || strtof (text, NULL) == value)
        break;
    }
  put_number (json, text);
}

void
_nn_json_bool (NnJson *json, bool value)
{
  before_item (json, false);
  puts_ (json, value ? "true" : "false");
}

void
_nn_json_null (NnJson *json)
{
  before_item (json, false);
  puts_ (json, "null");
}
