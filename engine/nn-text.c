/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-text.c: text from files, file names, error messages and the
 * environment made safe to print on a terminal (nn_text_for_terminal), and
 * the UTF-8 decoder the engine's writers share.
 *
 * A result field, a sweep's axis name or a file name can hold any bytes: a
 * terminal takes ESC [ 2 J for "clear the screen", OSC 0 for a window
 * title, OSC 52 for "write the clipboard", a \r for "overwrite this line",
 * and U+202E for "show what follows right to left". Printed as they are,
 * they let a file someone sent decide what the user sees.
 */

#include "nn-private.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

size_t
_nn_utf8_decode (const unsigned char *s, size_t n, uint32_t *code_point)
{
  unsigned c = s[0];
  size_t len;
  uint32_t min, cp;

  if (n == 0)
    return 0;
  if (c < 0x80)
    len = 1, min = 0, cp = c;
  else if (c >= 0xc2 && c <= 0xdf)
    len = 2, min = 0x80, cp = c & 0x1f;
  else if (c >= 0xe0 && c <= 0xef)
    len = 3, min = 0x800, cp = c & 0x0f;
  else if (c >= 0xf0 && c <= 0xf4)
    len = 4, min = 0x10000, cp = c & 0x07;
  else
    return 0;
  if (len > n)
    return 0;
  for (size_t i = 1; i < len; i++)
    {
      if ((s[i] & 0xc0) != 0x80)
        return 0;
      cp = (cp << 6) | (s[i] & 0x3f);
    }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  if (code_point != NULL)
    *code_point = cp;
  return len;
}

/* Whether a terminal acts on code point `cp` rather than show it: the C0
 * controls, DEL, the C1 controls (U+0080-U+009F: CSI, OSC, NEL, ... in
 * their 8-bit forms) and the bidirectional embeddings, overrides and
 * isolates (U+202A-U+202E, U+2066-U+2069), which reorder what a line
 * shows. */
static bool
acts (uint32_t cp)
{
  return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e)
         || (cp >= 0x2066 && cp <= 0x2069);
}

size_t
nn_text_for_terminal (const char *text, size_t length, char *out, size_t size)
{
  const unsigned char *s = (const unsigned char *) (text != NULL ? text : "");
  const unsigned char *nul = length == (size_t) -1 ? NULL : memchr (s, '\0', length);
  size_t n = length == (size_t) -1 ? strlen ((const char *) s)
             : nul != NULL         ? (size_t) (nul - s)
                                   : length;
  size_t need = 0;     /* the length of the whole safe text */
  size_t written = 0;  /* the bytes of it in out */

  for (size_t i = 0; i < n;)
    {
      char escape[16];
      const char *piece;
      size_t piece_len;
      uint32_t cp = 0;
      size_t seq = _nn_utf8_decode (s + i, n - i, &cp);

      if (seq == 0)
        {
          /* a byte that is not UTF-8 (a lone 0x9b is CSI to some terminals) */
          snprintf (escape, sizeof escape, "\\x%02x", s[i]);
          piece = escape;
          piece_len = 4;
          seq = 1;
        }
      else if (acts (cp))
        {
          if (cp == '\n')
            piece = "\\n";
          else if (cp == '\r')
            piece = "\\r";
          else if (cp == '\t')
            piece = "\\t";
          else if (cp < 0x80)
            {
              snprintf (escape, sizeof escape, "\\x%02x", (unsigned) cp);
              piece = escape;
            }
          else
            {
              snprintf (escape, sizeof escape, "\\u%04x", (unsigned) cp);
              piece = escape;
            }
          piece_len = strlen (piece);
        }
      else
        {
          piece = (const char *) s + i;
          piece_len = seq;
        }
      /* a piece goes in whole or not at all, and nothing after one that
       * did not fit: never half a character or half an escape */
      if (written == need && need + piece_len < size)
        {
          memcpy (out + written, piece, piece_len);
          written += piece_len;
        }
      need += piece_len;
      i += seq;
    }
  if (size > 0)
    out[written] = '\0';
  return need;
}

/* An snprintf-like output: counts what it needed even when `out` is full,
 * and never ends in half a character. */
typedef struct
{
  char *out;
  size_t size;
  size_t len;      /* needed */
  size_t written;  /* in out */
} Text;

static void
text_put (Text *t, const char *s, size_t n)
{
  if (t->written == t->len && t->len + n < t->size)
    {
      memcpy (t->out + t->written, s, n);
      t->written += n;
    }
  t->len += n;
}

static void
text_pad (Text *t, size_t n)
{
  for (size_t i = 0; i < n; i++)
    text_put (t, " ", 1);
}

/* A %s (or %c) argument made safe, padded to the conversion's width; cut
 * where nn_text_for_terminal cuts it when it does not fit. */
static void
text_put_safe (Text *t, const NnFormatConversion *c, const char *s, size_t length)
{
  size_t n = nn_text_for_terminal (s, length, NULL, 0);
  size_t pad = c->width > 0 && (size_t) c->width > n ? (size_t) c->width - n : 0;

  if (!c->left)
    text_pad (t, pad);
  if (t->written == t->len && t->written < t->size)
    {
      nn_text_for_terminal (s, length, t->out + t->written, t->size - t->written);
      t->written += strlen (t->out + t->written);
    }
  t->len += n;
  if (c->left)
    text_pad (t, pad);
}

int
nn_text_vformat_for_terminal (char *out, size_t size, const char *format, va_list args)
{
  Text t = { out, size, 0, 0 };
  va_list copy;
  const char *p = format;

  va_copy (copy, args);
  while (*p != '\0')
    {
      const char *q = strchr (p, '%');
      NnFormatConversion c;

      if (q == NULL)
        {
          text_put (&t, p, strlen (p));
          break;
        }
      text_put (&t, p, (size_t) (q - p));
      if (q[1] == '%')
        {
          text_put (&t, "%", 1);
          p = q + 2;
          continue;
        }
      if (!_nn_format_conversion_parse (q + 1, &c, &copy) || c.position != 0)
        {
          /* not a conversion the callers use (the compiler checked their
           * formats): the rest as it is, no argument read */
          text_put (&t, q, strlen (q));
          break;
        }
      if (c.conversion == 's')
        {
          const char *s = va_arg (copy, const char *);
          text_put_safe (&t, &c, s != NULL ? s : "(null)",
                         c.precision >= 0 ? (size_t) c.precision : (size_t) -1);
        }
      else if (c.conversion == 'c')
        {
          char one = (char) va_arg (copy, int);
          text_put_safe (&t, &c, &one, 1);
        }
      else
        {
          char piece[512];
          int n = _nn_format_conversion_write (piece, sizeof piece, &c, &copy);
          if (n > 0)
            text_put (&t, piece, (size_t) n < sizeof piece ? (size_t) n : sizeof piece - 1);
        }
      p = c.end;
    }
  va_end (copy);
  if (size > 0)
    out[t.written] = '\0';
  return t.len > INT_MAX ? INT_MAX : (int) t.len;
}

int
nn_text_format_for_terminal (char *out, size_t size, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  int n = nn_text_vformat_for_terminal (out, size, format, args);
  va_end (args);
  return n;
}
