/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-json.c: the engine's JSON writer: layout, escaping, numbers, misuse.
 *
 * Every document it writes must pass the strict checker in json-check.h.
 */

#include "test-util.h"
#include "json-check.h"
#include "nn-json.h"

#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool
parses (const NnJson *json, JcParser *jp)
{
  bool ok = jc_parse (jp, json->data, json->len);
  if (!ok)
    tap_diag ("not valid JSON: %s\n%s", jp->error, json->data);
  return ok;
}

static void
test_layout (void)
{
  NnJson j;
  JcParser jp;

  _nn_json_init (&j);
  _nn_json_begin_object (&j);
  _nn_json_end_object (&j);
  tap_ok (_nn_json_ok (&j) && strcmp (j.data, "{}\n") == 0, "empty object is {}");
  _nn_json_free (&j);

  _nn_json_init (&j);
  _nn_json_begin_object (&j);
  _nn_json_key (&j, "a");
  _nn_json_int (&j, 1);
  _nn_json_key (&j, "b");
  _nn_json_begin_array (&j);
  _nn_json_bool (&j, true);
  _nn_json_null (&j);
  _nn_json_begin_object (&j);
  _nn_json_end_object (&j);
  _nn_json_begin_array (&j);
  _nn_json_end_array (&j);
  _nn_json_end_array (&j);
  _nn_json_key (&j, "c");
  _nn_json_begin_object (&j);
  _nn_json_key (&j, "d");
  _nn_json_begin_array_inline (&j);
  _nn_json_int (&j, 3);
  _nn_json_float (&j, 0.5f);
  _nn_json_begin_array_inline (&j);
  _nn_json_bool (&j, false);
  _nn_json_end_array (&j);
  _nn_json_end_array (&j);
  _nn_json_end_object (&j);
  _nn_json_end_object (&j);
  const char *want =
    "{\n"
    "  \"a\": 1,\n"
    "  \"b\": [\n"
    "    true,\n"
    "    null,\n"
    "    {},\n"
    "    []\n"
    "  ],\n"
    "  \"c\": {\n"
    "    \"d\": [3, 0.5, [false]]\n"
    "  }\n"
    "}\n";
  tap_ok (_nn_json_ok (&j), "nested document is complete");
  if (!tap_ok (j.data != NULL && strcmp (j.data, want) == 0, "nested document has 2-space layout"))
    tap_diag ("got:\n%s", j.data ? j.data : "(null)");
  if (tap_ok (parses (&j, &jp), "nested document parses"))
    {
      const JcEntry *e = jc_find (&jp, "c.d[][]");
      tap_ok (e != NULL && strcmp (e->value, "false") == 0, "checker finds c.d[][] = false");
      tap_ok (jc_find (&jp, "b[]") != NULL && jc_find (&jp, "zz") == NULL, "checker paths");
    }
  free (jp.entries);
  _nn_json_free (&j);
}

static void
test_strings (void)
{
  NnJson j;
  JcParser jp;
  /* quote, backslash, the short escapes, other control characters, DEL,
   * valid 2- and 4-byte UTF-8, then invalid bytes: 0xff, a lone
   * continuation, an overlong '/', a surrogate, a truncated sequence. */
  const char *input = "q\"b\\s/\b\f\n\r\t\x01\x1f\x7f"
                      "\xc3\xa9\xf0\x9d\x84\x9e"
                      "|\xff|\x80|\xc0\xaf|\xed\xa0\x80|\xe2\x82";
  const char *want = "\"q\\\"b\\\\s/\\b\\f\\n\\r\\t\\u0001\\u001f\x7f"
                     "\xc3\xa9\xf0\x9d\x84\x9e"
                     "|\xef\xbf\xbd|\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd"
                     "|\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd\"";

  _nn_json_init (&j);
  _nn_json_begin_array (&j);
  _nn_json_string (&j, input);
  _nn_json_string (&j, "");
  _nn_json_string (&j, NULL);
  _nn_json_end_array (&j);
  tap_ok (_nn_json_ok (&j), "strings written");
  tap_ok (j.data != NULL && strstr (j.data, want) != NULL, "escaping and UTF-8 repair");
  if (j.data != NULL && strstr (j.data, want) == NULL)
    tap_diag ("got: %s", j.data);
  tap_ok (j.data != NULL && strstr (j.data, "\"\",\n  null") != NULL, "empty string and NULL");
  tap_ok (parses (&j, &jp), "escaped strings parse");
  free (jp.entries);
  _nn_json_free (&j);

  /* A key is escaped like a value; a bounded string stops at its size. */
  char field[4] = { 'a', 'b', 'c', 'd' };   /* no NUL */
  _nn_json_init (&j);
  _nn_json_begin_object (&j);
  _nn_json_key (&j, "k\"\n");
  _nn_json_string_bounded (&j, field, sizeof field);
  _nn_json_end_object (&j);
  tap_ok (_nn_json_ok (&j) && strstr (j.data, "\"k\\\"\\n\": \"abcd\"") != NULL,
          "keys escaped; bounded string without NUL");
  tap_ok (parses (&j, &jp), "it parses");
  free (jp.entries);
  _nn_json_free (&j);
}

static void
test_numbers (void)
{
  NnJson j;
  JcParser jp;
  const double doubles[] = { 0.1, 1.0 / 3.0, 1e300, -2.5e-300, 5e-324, 123456789012345678.0,
                             -0.0, 0.0, 1.0, 3.0e-7 };
  const float floats[] = { 0.1f, 1.0f / 3.0f, 3.4e38f, 1e-45f, -7.25f, 0.0f };
  const int n_doubles = (int) (sizeof doubles / sizeof doubles[0]);
  const int n_floats = (int) (sizeof floats / sizeof floats[0]);

  _nn_json_init (&j);
  _nn_json_begin_object (&j);
  _nn_json_key (&j, "ints");
  _nn_json_begin_array_inline (&j);
  _nn_json_int (&j, INT64_MIN);
  _nn_json_int (&j, INT64_MAX);
  _nn_json_int (&j, 0);
  _nn_json_uint (&j, UINT64_MAX);
  _nn_json_end_array (&j);
  _nn_json_key (&j, "doubles");
  _nn_json_begin_array (&j);
  for (int i = 0; i < n_doubles; i++)
    _nn_json_double (&j, doubles[i]);
  _nn_json_end_array (&j);
  _nn_json_key (&j, "floats");
  _nn_json_begin_array (&j);
  for (int i = 0; i < n_floats; i++)
    _nn_json_float (&j, floats[i]);
  _nn_json_end_array (&j);
  _nn_json_key (&j, "bad");
  _nn_json_begin_array_inline (&j);
  _nn_json_double (&j, NAN);
  _nn_json_double (&j, INFINITY);
  _nn_json_double (&j, -INFINITY);
  _nn_json_float (&j, NAN);
  _nn_json_float (&j, -INFINITY);
  _nn_json_end_array (&j);
  _nn_json_end_object (&j);

  tap_ok (_nn_json_ok (&j), "numbers written");
  if (!tap_ok (parses (&j, &jp), "numbers parse"))
    {
      _nn_json_free (&j);
      return;
    }
  tap_ok (strstr (j.data, "[-9223372036854775808, 9223372036854775807, 0, 18446744073709551615]") != NULL,
          "64-bit integers exact");
  tap_ok (strstr (j.data, "\"bad\": [null, null, null, null, null]") != NULL,
          "NaN and infinities written as null");

  int di = 0, fi = 0;
  bool doubles_exact = true, floats_exact = true;
  for (int i = 0; i < jp.count; i++)
    {
      const JcEntry *e = &jp.entries[i];
      if (strcmp (e->path, "doubles[]") == 0 && di < n_doubles)
        {
          double back = strtod (e->value, NULL);
          if (back != doubles[di] || signbit (back) != signbit (doubles[di]))
            {
              doubles_exact = false;
              tap_diag ("double %d: %s reads back as %.17g", di, e->value, back);
            }
          di++;
        }
      else if (strcmp (e->path, "floats[]") == 0 && fi < n_floats)
        {
          float back = strtof (e->value, NULL);
          if (back != floats[fi])
            {
              floats_exact = false;
              tap_diag ("float %d: %s reads back as %.9g", fi, e->value, (double) back);
            }
          fi++;
        }
    }
  tap_ok (di == n_doubles && doubles_exact, "every double reads back exactly");
  tap_ok (fi == n_floats && floats_exact, "every float reads back exactly");
  tap_ok (strstr (j.data, "    0.1,\n") != NULL, "0.1 is written shortest, not 0.10000000000000001");
  tap_ok (jc_find (&jp, "floats[]") != NULL && strcmp (jc_find (&jp, "floats[]")->value, "0.1") == 0,
          "0.1f is written 0.1, not 0.100000001");
  free (jp.entries);
  _nn_json_free (&j);
}

/* Numbers keep '.' when the program runs in a locale with a decimal comma. */
static void
test_locale (void)
{
  const char *names[] = { "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "ru_RU.UTF-8", NULL };
  const char *set = NULL;
  for (int i = 0; names[i] != NULL && set == NULL; i++)
    set = setlocale (LC_NUMERIC, names[i]);
  if (set == NULL || strcmp (localeconv ()->decimal_point, ".") == 0)
    {
      tap_skip ("no locale with a decimal comma is installed", "numbers under a decimal-comma locale");
      setlocale (LC_NUMERIC, "C");
      return;
    }
  NnJson j;
  JcParser jp;
  _nn_json_init (&j);
  _nn_json_begin_array_inline (&j);
  _nn_json_double (&j, 1.5);
  _nn_json_float (&j, -0.25f);
  _nn_json_end_array (&j);
  tap_ok (_nn_json_ok (&j) && strcmp (j.data, "[1.5, -0.25]\n") == 0,
          "numbers use '.' under %s", set);
  tap_ok (parses (&j, &jp), "and parse");
  free (jp.entries);
  _nn_json_free (&j);
  setlocale (LC_NUMERIC, "C");
}

static void
test_misuse (void)
{
  NnJson j;

  _nn_json_init (&j);
  tap_ok (!_nn_json_ok (&j), "an empty writer is not a document");
  _nn_json_free (&j);

  _nn_json_init (&j);
  _nn_json_begin_object (&j);
  tap_ok (!_nn_json_ok (&j), "an unclosed object is not ok");
  _nn_json_free (&j);

  _nn_json_init (&j);
  _nn_json_begin_object (&j);
  _nn_json_int (&j, 1);
  _nn_json_end_object (&j);
  tap_ok (!_nn_json_ok (&j), "a value without a key in an object fails");
  _nn_json_free (&j);

  _nn_json_init (&j);
  _nn_json_begin_array (&j);
  _nn_json_key (&j, "x");
  _nn_json_int (&j, 1);
  _nn_json_end_array (&j);
  tap_ok (!_nn_json_ok (&j), "a key in an array fails");
  _nn_json_free (&j);

  _nn_json_init (&j);
  _nn_json_begin_object (&j);
  _nn_json_key (&j, "x");
  _nn_json_key (&j, "y");
  _nn_json_int (&j, 1);
  _nn_json_end_object (&j);
  tap_ok (!_nn_json_ok (&j), "two keys in a row fail");
  _nn_json_free (&j);

  _nn_json_init (&j);
  _nn_json_begin_object (&j);
  _nn_json_key (&j, "x");
  _nn_json_end_object (&j);
  tap_ok (!_nn_json_ok (&j), "a key without a value fails");
  _nn_json_free (&j);

  _nn_json_init (&j);
  _nn_json_begin_array (&j);
  _nn_json_end_array (&j);
  _nn_json_end_array (&j);
  tap_ok (!_nn_json_ok (&j), "closing more than was opened fails");
  _nn_json_free (&j);

  _nn_json_init (&j);
  _nn_json_int (&j, 1);
  _nn_json_int (&j, 2);
  tap_ok (!_nn_json_ok (&j), "two top-level values fail");
  _nn_json_free (&j);

  _nn_json_init (&j);
  for (int i = 0; i < NN_JSON_MAX_DEPTH + 5; i++)
    _nn_json_begin_array (&j);
  for (int i = 0; i < NN_JSON_MAX_DEPTH + 5; i++)
    _nn_json_end_array (&j);
  tap_ok (!_nn_json_ok (&j), "nesting deeper than %d fails without a crash", NN_JSON_MAX_DEPTH);
  _nn_json_free (&j);
}

static void
test_growth (void)
{
  NnJson j;
  JcParser jp;
  _nn_json_init (&j);
  _nn_json_begin_array (&j);
  for (int i = 0; i < 100000; i++)
    _nn_json_int (&j, i);
  _nn_json_end_array (&j);
  tap_ok (_nn_json_ok (&j) && j.len == strlen (j.data), "100000 values: buffer grows");
  bool ok = parses (&j, &jp);
  tap_ok (ok && jp.count == 100001 && strcmp (jp.entries[100000].value, "99999") == 0,
          "100000 values parse back in order");
  free (jp.entries);
  _nn_json_free (&j);
}

/* The checker must reject what is not JSON, or the other checks prove nothing. */
static void
test_checker (void)
{
  const char *bad[] = { "", "{\"a\":1,}", "[01]", "[1 2]", "\"\x01\"", "\"\xff\"", "nul",
                        "{} x", "{\"a\" 1}", "[1.]", "[-]", "\"\\x\"", "[NaN]", "{1:2}",
                        "\"\xed\xa0\x80\"", NULL };
  const char *good[] = { "{\"a\": [1, -0.5e+3, true, false, null, \"\\u00e9\\n\"]}", " 0 ",
                         "\"\xc3\xa9\"", NULL };
  for (int i = 0; bad[i] != NULL; i++)
    {
      JcParser jp;
      tap_ok (!jc_parse (&jp, bad[i], strlen (bad[i])), "checker rejects bad document %d", i);
      free (jp.entries);
    }
  for (int i = 0; good[i] != NULL; i++)
    {
      JcParser jp;
      tap_ok (jc_parse (&jp, good[i], strlen (good[i])), "checker accepts good document %d", i);
      free (jp.entries);
    }
}

int
main (void)
{
  test_checker ();
  test_layout ();
  test_strings ();
  test_numbers ();
  test_locale ();
  test_misuse ();
  test_growth ();
  return tap_done ();
}
