/* SPDX-License-Identifier: GPL-3.0-or-later */
/* json-check.h: a strict recursive-descent JSON checker for the engine tests.
 *
 * jc_parse accepts exactly RFC 8259 JSON (one value, valid UTF-8, no control
 * characters in strings) and lists every value it met in document order with
 * its path: "system.os.name", "epochs[].epoch", "steps.loss_curve[][]".
 * Header-only (static functions) so test-json and test-result share it.
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct
{
  char path[256];
  char value[256];   /* scalars as written ("\"cpu\"", "1.5", "null"); "{" or "[" */
} JcEntry;

typedef struct
{
  const char *p;
  const char *end;
  int depth;
  JcEntry *entries;  /* (count), owned */
  int count;
  int cap;
  char error[160];
} JcParser;

static bool jc_value (JcParser *jp, const char *path);

static bool
jc_fail (JcParser *jp, const char *what)
{
  if (jp->error[0] == '\0')
    snprintf (jp->error, sizeof jp->error, "%s", what);
  return false;
}

static void
jc_ws (JcParser *jp)
{
  while (jp->p < jp->end && (*jp->p == ' ' || *jp->p == '\t' || *jp->p == '\n' || *jp->p == '\r'))
    jp->p++;
}

static void
jc_record (JcParser *jp, const char *path, const char *start, size_t n)
{
  if (jp->count == jp->cap)
    {
      jp->cap = jp->cap ? jp->cap * 2 : 64;
      jp->entries = realloc (jp->entries, (size_t) jp->cap * sizeof *jp->entries);
    }
  JcEntry *e = &jp->entries[jp->count++];
  snprintf (e->path, sizeof e->path, "%s", path);
  if (n >= sizeof e->value)
    n = sizeof e->value - 1;
  memcpy (e->value, start, n);
  e->value[n] = '\0';
}

/* A string at p; its decoded bytes go to out (may be NULL) when it fits. */
static bool
jc_string (JcParser *jp, char *out, size_t out_size)
{
  size_t o = 0;
  if (jp->p >= jp->end || *jp->p != '"')
    return jc_fail (jp, "expected a string");
  jp->p++;
  while (jp->p < jp->end)
    {
      unsigned char c = (unsigned char) *jp->p;
      if (c == '"')
        {
          jp->p++;
          if (out != NULL)
            out[o < out_size ? o : out_size - 1] = '\0';
          return true;
        }
      if (c < 0x20)
        return jc_fail (jp, "control character in a string");
      if (c == '\\')
        {
          jp->p++;
          if (jp->p >= jp->end)
            break;
          char e = *jp->p;
          if (e == 'u')
            {
              for (int i = 1; i <= 4; i++)
                if (jp->p + i >= jp->end || !strchr ("0123456789abcdefABCDEF", jp->p[i])
                    || jp->p[i] == '\0')
                  return jc_fail (jp, "bad \\u escape");
              jp->p += 5;
              if (out != NULL && o + 1 < out_size)
                out[o++] = '?';
              continue;
            }
          if (!strchr ("\"\\/bfnrt", e) || e == '\0')
            return jc_fail (jp, "bad escape");
          static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
          if (out != NULL && o + 1 < out_size)
            out[o++] = to[strchr (from, e) - from];
          jp->p++;
          continue;
        }
      /* UTF-8: lead byte, continuation bytes, no overlongs or surrogates. */
      size_t len;
      unsigned cp, min;
      if (c < 0x80)
        len = 1, cp = c, min = 0;
      else if (c >= 0xc2 && c <= 0xdf)
        len = 2, cp = c & 0x1f, min = 0x80;
      else if (c >= 0xe0 && c <= 0xef)
        len = 3, cp = c & 0x0f, min = 0x800;
      else if (c >= 0xf0 && c <= 0xf4)
        len = 4, cp = c & 0x07, min = 0x10000;
      else
        return jc_fail (jp, "invalid UTF-8 lead byte");
      if (jp->p + len > jp->end)
        return jc_fail (jp, "truncated UTF-8");
      for (size_t i = 1; i < len; i++)
        {
          unsigned char cc = (unsigned char) jp->p[i];
          if ((cc & 0xc0) != 0x80)
            return jc_fail (jp, "invalid UTF-8 continuation");
          cp = (cp << 6) | (cc & 0x3f);
        }
      if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return jc_fail (jp, "invalid UTF-8 code point");
      for (size_t i = 0; i < len; i++)
        if (out != NULL && o + 1 < out_size)
          out[o++] = jp->p[i];
      jp->p += len;
    }
  return jc_fail (jp, "unterminated string");
}

static bool
jc_digits (JcParser *jp)
{
  const char *start = jp->p;
  while (jp->p < jp->end && *jp->p >= '0' && *jp->p <= '9')
    jp->p++;
  return jp->p > start;
}

static bool
jc_number (JcParser *jp)
{
  if (jp->p < jp->end && *jp->p == '-')
    jp->p++;
  if (jp->p < jp->end && *jp->p == '0')
    jp->p++;
  else if (!jc_digits (jp))
    return jc_fail (jp, "bad number");
  if (jp->p < jp->end && *jp->p == '.')
    {
      jp->p++;
      if (!jc_digits (jp))
        return jc_fail (jp, "no digits after the decimal point");
    }
  if (jp->p < jp->end && (*jp->p == 'e' || *jp->p == 'E'))
    {
      jp->p++;
      if (jp->p < jp->end && (*jp->p == '+' || *jp->p == '-'))
        jp->p++;
      if (!jc_digits (jp))
        return jc_fail (jp, "no digits in the exponent");
    }
  return true;
}

static bool
jc_literal (JcParser *jp, const char *word)
{
  size_t n = strlen (word);
  if ((size_t) (jp->end - jp->p) < n || memcmp (jp->p, word, n) != 0)
    return jc_fail (jp, "unexpected character");
  jp->p += n;
  return true;
}

static bool
jc_value (JcParser *jp, const char *path)
{
  char sub[256];
  jc_ws (jp);
  if (jp->p >= jp->end)
    return jc_fail (jp, "unexpected end");
  const char *start = jp->p;
  char c = *jp->p;
  if (c == '{' || c == '[')
    {
      if (++jp->depth > 64)
        return jc_fail (jp, "nested too deep");
      jc_record (jp, path, start, 1);
      jp->p++;
      jc_ws (jp);
      char close = c == '{' ? '}' : ']';
      if (jp->p < jp->end && *jp->p == close)
        {
          jp->p++;
          jp->depth--;
          return true;
        }
      for (;;)
        {
          if (c == '{')
            {
              char key[128];
              jc_ws (jp);
              if (!jc_string (jp, key, sizeof key))
                return false;
              jc_ws (jp);
              if (jp->p >= jp->end || *jp->p != ':')
                return jc_fail (jp, "expected ':'");
              jp->p++;
              snprintf (sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", key);
            }
          else
            snprintf (sub, sizeof sub, "%s[]", path);
          if (!jc_value (jp, sub))
            return false;
          jc_ws (jp);
          if (jp->p < jp->end && *jp->p == ',')
            {
              jp->p++;
              continue;
            }
          if (jp->p < jp->end && *jp->p == close)
            {
              jp->p++;
              jp->depth--;
              return true;
            }
          return jc_fail (jp, "expected ',' or a closing bracket");
        }
    }
  bool ok;
  if (c == '"')
    ok = jc_string (jp, NULL, 0);
  else if (c == '-' || (c >= '0' && c <= '9'))
    ok = jc_number (jp);
  else if (c == 't')
    ok = jc_literal (jp, "true");
  else if (c == 'f')
    ok = jc_literal (jp, "false");
  else if (c == 'n')
    ok = jc_literal (jp, "null");
  else
    return jc_fail (jp, "unexpected character");
  if (ok)
    jc_record (jp, path, start, (size_t) (jp->p - start));
  return ok;
}

/* Parse text[0..len); on success the caller frees jp->entries. */
static bool
jc_parse (JcParser *jp, const char *text, size_t len)
{
  memset (jp, 0, sizeof *jp);
  jp->p = text;
  jp->end = text + len;
  const char *begin = text;
  if (!jc_value (jp, ""))
    {
      char what[160];
      snprintf (what, sizeof what, "%s", jp->error);
      snprintf (jp->error, sizeof jp->error, "%.100s (offset %ld)", what, (long) (jp->p - begin));
      return false;
    }
  jc_ws (jp);
  if (jp->p != jp->end)
    {
      snprintf (jp->error, sizeof jp->error, "trailing characters at offset %ld",
                (long) (jp->p - begin));
      return false;
    }
  return true;
}

/* The first entry with this path, or NULL. */
static const JcEntry *
jc_find (const JcParser *jp, const char *path)
{
  for (int i = 0; i < jp->count; i++)
    if (strcmp (jp->entries[i].path, path) == 0)
      return &jp->entries[i];
  return NULL;
}
