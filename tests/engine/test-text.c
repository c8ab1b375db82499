/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-text.c: text from files made safe for a terminal
 * (nn_text_for_terminal, nn_text_format_for_terminal): what a terminal
 * acts on (ESC sequences: a screen clear, a window title, OSC 52's
 * clipboard write; \r, the C1 controls, DEL, the bidirectional overrides)
 * comes out visibly escaped, valid UTF-8 stays as it is, bytes that are
 * not UTF-8 are escaped, and the output is cut between whole characters.
 */

#include "test-util.h"

#include <stdio.h>
#include <string.h>

/* Whether `s` holds a byte a terminal acts on, or a bidirectional override
 * or isolate, or a byte that is not part of valid UTF-8. */
static bool
has_control (const char *s)
{
  const unsigned char *p = (const unsigned char *) s;
  for (size_t i = 0; p[i] != '\0'; i++)
    {
      if (p[i] < 0x20 || p[i] == 0x7f)
        return true;
      if (p[i] == 0xc2 && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f)
        return true;   /* U+0080-U+009F */
      if (p[i] == 0xe2 && p[i + 1] == 0x80 && p[i + 2] >= 0xaa && p[i + 2] <= 0xae)
        return true;   /* U+202A-U+202E */
      if (p[i] == 0xe2 && p[i + 1] == 0x81 && p[i + 2] >= 0xa6 && p[i + 2] <= 0xa9)
        return true;   /* U+2066-U+2069 */
      if (p[i] >= 0x80 && p[i] < 0xc2)
        {
          /* a continuation byte must follow a lead byte */
          if (i == 0 || p[i - 1] < 0x80)
            return true;
        }
      if (p[i] >= 0xf5)
        return true;
    }
  return false;
}

static void
check (const char *label, const char *in, size_t length, const char *want)
{
  char out[512];
  size_t need = nn_text_for_terminal (in, length, out, sizeof out);
  tap_ok (strcmp (out, want) == 0 && need == strlen (want) && !has_control (out),
          "%s: \"%s\" (needs %zu)", label, out, need);
}

int
main (void)
{
  check ("a screen clear and a cursor move", "run\x1b[2J\x1b[H", (size_t) -1,
         "run\\x1b[2J\\x1b[H");
  check ("a window title (OSC 0, ended by BEL)", "\x1b]0;pwned\x07name", (size_t) -1,
         "\\x1b]0;pwned\\x07name");
  check ("a clipboard write (OSC 52, ended by ST)", "\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x1b\\",
         (size_t) -1, "\\x1b]52;c;Y3VybCBldmlsIHwgc2g=\\x1b\\");
  check ("a line overwritten with \\r", "cpu 10.0 s\rgpu  0.1 s", (size_t) -1,
         "cpu 10.0 s\\rgpu  0.1 s");
  check ("line breaks and tabs", "a\nb\tc", (size_t) -1, "a\\nb\\tc");
  check ("DEL and NUL's neighbours", "x\x7f\x01y", (size_t) -1, "x\\x7f\\x01y");
  check ("C1 controls as UTF-8 (CSI U+009B)", "a\xc2\x9b" "2Jb", (size_t) -1, "a\\u009b2Jb");
  check ("a lone 0x9b byte (8-bit CSI)", "a\x9b" "2J", (size_t) -1, "a\\x9b2J");
  check ("a right-to-left override", "file\xe2\x80\xae" "gpj.exe", (size_t) -1,
         "file\\u202egpj.exe");
  check ("a first-strong isolate", "a\xe2\x81\xa8" "b", (size_t) -1, "a\\u2068b");
  check ("invalid UTF-8: a stray continuation, an overlong form, a surrogate",
         "\x80" "a\xc0\xaf" "b\xed\xa0\x80", (size_t) -1,
         "\\x80a\\xc0\\xafb\\xed\\xa0\\x80");
  check ("valid UTF-8 stays: names and paths in any script", "张伟/données/Ærø 🚀",
         (size_t) -1, "张伟/données/Ærø 🚀");
  check ("a backslash stays (Windows paths)", "C:\\Users\\me", (size_t) -1, "C:\\Users\\me");
  check ("a length: only its bytes", "abc\x1b[2J", 3, "abc");
  check ("a length that cuts a character: its bytes escaped", "\xe5\xbc\xa0", 2,
         "\\xe5\\xbc");

  /* cut between whole characters and escapes, never in one */
  {
    char out[8];
    size_t need = nn_text_for_terminal ("ab\x1b[2J", (size_t) -1, out, sizeof out);
    tap_ok (strcmp (out, "ab\\x1b[") == 0 && need == 9,
            "cut after a whole escape: \"%s\" (needs %zu)", out, need);
    need = nn_text_for_terminal ("abcd\x1b", (size_t) -1, out, 7);
    tap_ok (strcmp (out, "abcd") == 0 && need == 8, "an escape that does not fit is left out: "
            "\"%s\"", out);
    need = nn_text_for_terminal ("ab张", (size_t) -1, out, 5);
    tap_ok (strcmp (out, "ab") == 0 && need == 5, "a character that does not fit is left out: "
            "\"%s\"", out);
    need = nn_text_for_terminal ("abc", (size_t) -1, NULL, 0);
    tap_ok (need == 3, "no room at all: the length needed (%zu)", need);
  }

  /* the format is the caller's own text; only the arguments are made safe */
  {
    char out[256];
    int n = nn_text_format_for_terminal (out, sizeof out, "%s: %d runs\n", "runs\x1b]0;x\x07",
                                         3);
    tap_ok (strcmp (out, "runs\\x1b]0;x\\x07: 3 runs\n") == 0 && n == (int) strlen (out),
            "a %%s made safe, the format's own line break kept: \"%.*s\" and a line break",
            (int) strcspn (out, "\n"), out);
    nn_text_format_for_terminal (out, sizeof out, "[%-6s] [%6s] [%.3s] [%-*s] [%.*s] [%c]", "a\r",
                                 "b", "abcdef", 4, "c", 2, "\x1b[2J", '\x1b');
    tap_ok (strcmp (out, "[a\\r   ] [     b] [abc] [c   ] [\\x1b[] [\\x1b]") == 0,
            "widths, precisions and %%c: \"%s\"", out);
    nn_text_format_for_terminal (out, sizeof out, "%5.2f %lld %zu %x %3d%%", 3.14159,
                                 -12345678901LL, (size_t) 42, 255u, 7);
    tap_ok (strcmp (out, " 3.14 -12345678901 42 ff   7%") == 0, "numbers as printf: \"%s\"",
            out);
    char small[6];
    n = nn_text_format_for_terminal (small, sizeof small, "%s", "abc\x1b");
    tap_ok (strcmp (small, "abc") == 0 && n == 7, "cut as nn_text_for_terminal cuts: \"%s\", "
            "needs %d", small, n);
  }
  return tap_done ();
}
