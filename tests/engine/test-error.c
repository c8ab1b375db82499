/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-error.c: error messages, in English and translated through their
 * formats (nn_error_translate): every conversion the messages use, a
 * translation that reorders the arguments, prefixes and their join, a
 * translation that does not fit its message, and messages too long to keep.
 */

#include "test-util.h"
#include "nn-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A tiny message catalog: pairs of format and translation. */
static const char *const catalog[] = {
  "%s: bad magic", "%s：魔数不对",
  "%s: %s", "%s：%s",
  "sample %d of %s", "%2$s 的第 %1$d 个样本",
  "layer %d (%s)", "第 %d 层（%s）",
  "step %lld (epoch %d)", "第 %2$d 轮的第 %1$lld 步",
  "'%s' is not a positive whole number of units", "“%s”不是正整数的单元数",
  "%s needs %d", "%3$s 需要 %1$d",  /* names an argument there is none of */
  "%d device%s found", "找到 %d 个设备%.0s",
  "%s: not %-s", "%s：不是%s",
  "an IDX label file", "IDX 标签文件",
  NULL,
};

static const char *
translate_cb (const char *format, void *user_data)
{
  int *calls = user_data;

  if (calls != NULL)
    (*calls)++;
  for (int i = 0; catalog[i] != NULL; i += 2)
    if (strcmp (catalog[i], format) == 0)
      return catalog[i + 1];
  return format;
}

static const char *
identity_cb (const char *format, void *user_data)
{
  return format;
}

/* The error's message through the catalog (a static buffer). */
static const char *
translated (const NnError *error)
{
  static char out[4 * NN_ERROR_MESSAGE_MAX];

  nn_error_translate (error, translate_cb, NULL, out, sizeof out);
  return out;
}

static NnStatus
set_numbers (NnError *error)
{
  return _nn_error_set (error, NN_ERROR_FORMAT,
                        "%d %i %u %x %X %o %ld %lld %llu %zu %hd %hhu %5.2f %g %e %c %% %-6s|%.3s %p",
                        -7, 42, 7u, 255u, 255u, 8u, -123456789L, -1234567890123LL,
                        18446744073709551615ULL, (size_t) 99, (short) -3, (unsigned char) 250,
                        3.14159, 1e-5, 2.5, 'z', "ab", "abcdef", (void *) NULL);
}

static void
test_english (void)
{
  NnError error;
  char expected[NN_ERROR_MESSAGE_MAX];
  char out[NN_ERROR_MESSAGE_MAX];

  nn_error_clear (&error);
  tap_ok (set_numbers (&error) == NN_ERROR_FORMAT && error.code == NN_ERROR_FORMAT,
          "_nn_error_set returns and keeps the status");
  snprintf (expected, sizeof expected,
            "%d %i %u %x %X %o %ld %lld %llu %zu %hd %hhu %5.2f %g %e %c %% %-6s|%.3s %p", -7,
            42, 7u, 255u, 255u, 8u, -123456789L, -1234567890123LL, 18446744073709551615ULL,
            (size_t) 99, (short) -3, (unsigned char) 250, 3.14159, 1e-5, 2.5, 'z', "ab",
            "abcdef", (void *) NULL);
  tap_ok (strcmp (error.message, expected) == 0, "the English message is the format's: %s",
          error.message);
  nn_error_translate (&error, identity_cb, NULL, out, sizeof out);
  tap_ok (strcmp (out, expected) == 0,
          "an untranslated message comes back the same, every conversion kept: %s", out);
  tap_ok (_nn_error_set (NULL, NN_ERROR_IO, "%s", "x") == NN_ERROR_IO,
          "no error to fill: the status is still returned");
}

static void
test_translated (void)
{
  NnError error;
  int calls = 0;
  char out[256];

  nn_error_clear (&error);
  _nn_error_set (&error, NN_ERROR_FORMAT, "%s: bad magic", "/data/张伟/train.idx");
  tap_ok (strcmp (error.message, "/data/张伟/train.idx: bad magic") == 0,
          "the English message stays English: %s", error.message);
  nn_error_translate (&error, translate_cb, &calls, out, sizeof out);
  tap_ok (strcmp (out, "/data/张伟/train.idx：魔数不对") == 0, "translated: %s", out);
  tap_ok (calls == 1, "one part: only its format is looked up (%d)", calls);

  _nn_error_set (&error, NN_ERROR_FORMAT, "sample %d of %s", 17, "mnist");
  tap_ok (strcmp (error.message, "sample 17 of mnist") == 0
            && strcmp (translated (&error), "mnist 的第 17 个样本") == 0,
          "a translation puts the arguments in its own order: %s", translated (&error));

  _nn_error_set (&error, NN_ERROR_FORMAT, "no translation for %d%%", 5);
  tap_ok (strcmp (translated (&error), "no translation for 5%") == 0,
          "a format without a translation stays English: %s", translated (&error));

  _nn_error_set (&error, NN_ERROR_UNAVAILABLE, "%d device%s found", 2, "s");
  tap_ok (strcmp (error.message, "2 devices found") == 0
            && strcmp (translated (&error), "找到 2 个设备") == 0,
          "a translation's %%.0s leaves out an English plural's s: %s", translated (&error));

  _nn_error_set (&error, NN_ERROR_FORMAT, "%s: not %-s", "a.idx", NN_MESSAGE ("an IDX label file"));
  tap_ok (strcmp (error.message, "a.idx: not an IDX label file") == 0
            && strcmp (translated (&error), "a.idx：不是IDX 标签文件") == 0,
          "a phrase given as %%-s is translated too: %s", translated (&error));
  _nn_error_set (&error, NN_ERROR_FORMAT, "%s: not %s", "an IDX label file", "a.idx");
  tap_ok (strcmp (translated (&error), "an IDX label file: not a.idx") == 0,
          "an argument given as %%s is not: %s", translated (&error));

  _nn_error_set (&error, NN_ERROR_INVALID_ARGUMENT, "%s needs %d", "dense", 3);
  tap_ok (strcmp (translated (&error), "dense needs 3") == 0,
          "a translation naming an argument the message lacks is not used: %s",
          translated (&error));
}

static void
test_prefixes (void)
{
  NnError error;
  char small[12];
  size_t need;

  nn_error_clear (&error);
  _nn_error_set (&error, NN_ERROR_SPEC, "'%s' is not a positive whole number of units", "x");
  _nn_error_prefix (&error, "layer %d (%s)", 2, "'dense x'");
  _nn_error_prefix (&error, "step %lld (epoch %d)", 12LL, 3);
  tap_ok (strcmp (error.message,
                  "step 12 (epoch 3): layer 2 ('dense x'): 'x' is not a positive whole number of "
                  "units")
            == 0,
          "prefixes go in front of the English message: %s", error.message);
  tap_ok (strcmp (translated (&error), "第 3 轮的第 12 步：第 2 层（'dense x'）：“x”不是正整数的单元数")
            == 0,
          "each part is translated and joined by the translated join: %s", translated (&error));

  need = nn_error_translate (&error, translate_cb, NULL, NULL, 0);
  tap_ok (need == strlen (translated (&error)), "asked for its length, it says %zu", need);
  tap_ok (nn_error_translate (&error, translate_cb, NULL, small, sizeof small) == need
            && strlen (small) == sizeof small - 1 && memcmp (small, translated (&error), sizeof small - 1) == 0,
          "a short buffer gets the start, ended: %s", small);

  for (int i = 0; i < NN_ERROR_PARTS_MAX; i++)
    _nn_error_prefix (&error, "layer %d (%s)", i, "'flatten'");
  tap_ok (strncmp (error.message, "layer 3 ('flatten'): ", 21) == 0
            && strcmp (translated (&error), error.message) == 0,
          "more prefixes than are kept: the message is given in English");
}

static void
test_too_long (void)
{
  NnError error;
  char *path = malloc (6000);

  memset (path, 'a', 5999);
  path[5999] = '\0';
  nn_error_clear (&error);
  _nn_error_set (&error, NN_ERROR_IO, "%s: bad magic", path);
  tap_ok (strlen (error.message) == NN_ERROR_MESSAGE_MAX - 1 && strcmp (translated (&error), error.message) == 0,
          "an argument too long to keep: the message is given in English, bounded");
  free (path);

  nn_error_clear (&error);
  tap_ok (nn_error_translate (&error, translate_cb, NULL, NULL, 0) == 0,
          "a cleared error translates to nothing");
}

static void
test_engine_message (void)
{
  NnSpec *spec = NULL;
  NnError error;

  nn_error_clear (&error);
  tap_ok (nn_spec_parse ("flatten; dense x; dense 10 softmax", &spec, &error) == NN_ERROR_SPEC,
          "a bad spec fails");
  tap_ok (strcmp (translated (&error), "第 2 层（dense x）：“x”不是正整数的单元数") == 0,
          "the parser's message translates through its formats: %s (%s)", translated (&error),
          error.message);
  nn_spec_free (spec);
}

int
main (void)
{
  test_english ();
  test_translated ();
  test_prefixes ();
  test_too_long ();
  test_engine_message ();
  return tap_done ();
}
