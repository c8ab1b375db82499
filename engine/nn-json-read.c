/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-json-read.c: the engine's JSON reader (see nn-json-read.h).
 *
 * One loop over the text with an explicit stack of the open containers,
 * so no input, however deep, can exhaust the C stack; every limit is
 * checked before the memory for it is taken.
 */

#include "nn-json-read.h"
#include "nn-os.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_KEY UINT32_MAX

typedef struct
{
  const unsigned char *p;   /* the text */
  size_t size;
  size_t pos;
  NnJsonDoc *doc;
  NnError *error;
} Parser;

static NnStatus
syntax (Parser *ps, size_t offset, const char *what)
{
  return _nn_error_set (ps->error, NN_ERROR_FORMAT, "%s: byte %zu: %-s", ps->doc->name, offset,
                        what);
}

static NnStatus
no_memory (Parser *ps)
{
  return _nn_error_set (ps->error, NN_ERROR_NO_MEMORY, "%s: out of memory reading the JSON text",
                        ps->doc->name);
}

static void
skip_space (Parser *ps)
{
  while (ps->pos < ps->size)
    {
      unsigned char c = ps->p[ps->pos];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
        break;
      ps->pos++;
    }
}

/* ---------------------------------------------------------------- the tree */

static NnStatus
node_add (Parser *ps, NnJsonKind kind, size_t offset, uint32_t parent, uint32_t key,
          uint32_t *index)
{
  NnJsonDoc *doc = ps->doc;

  if (doc->n_nodes >= NN_JSON_READ_MAX_NODES)
    return _nn_error_set (ps->error, NN_ERROR_FORMAT, "%s: byte %zu: more than %u values",
                          doc->name, offset, (unsigned) NN_JSON_READ_MAX_NODES);
  if (doc->n_nodes == doc->cap_nodes)
    {
      size_t cap = doc->cap_nodes > 0 ? doc->cap_nodes * 2 : 64;
      NnJsonNode *grown = realloc (doc->nodes, cap * sizeof *grown);
      if (grown == NULL)
        return no_memory (ps);
      doc->nodes = grown;
      doc->cap_nodes = cap;
    }
  uint32_t i = (uint32_t) doc->n_nodes++;
  NnJsonNode *node = &doc->nodes[i];
  memset (node, 0, sizeof *node);
  node->kind = kind;
  node->key = key;
  node->offset = offset;
  if (i > 0)
    {
      NnJsonNode *up = &doc->nodes[parent];
      if (up->first == 0)
        up->first = i;
      else
        doc->nodes[up->last].next = i;
      up->last = i;
      up->count++;
    }
  *index = i;
  return NN_OK;
}

static bool
strings_reserve (NnJsonDoc *doc, size_t extra)
{
  if (doc->strings_len + extra <= doc->cap_strings)
    return true;
  size_t cap = doc->cap_strings > 0 ? doc->cap_strings : 1024;
  while (cap < doc->strings_len + extra)
    cap *= 2;
  if (cap > UINT32_MAX)
    return false;
  char *grown = realloc (doc->strings, cap);
  if (grown == NULL)
    return false;
  doc->strings = grown;
  doc->cap_strings = cap;
  return true;
}

/* ---------------------------------------------------------------- strings */

/* The length of the UTF-8 sequence at p (at most `left` bytes), or 0 when
 * it is not one: overlong forms, surrogates and values past U+10FFFF are
 * refused, as RFC 3629 says. */
static size_t
utf8_sequence (const unsigned char *p, size_t left)
{
  unsigned char c = p[0];
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;

  if (c < 0x80)
    return 1;
  if (c >= 0xC2 && c <= 0xDF)
    n = 2;
  else if (c >= 0xE0 && c <= 0xEF)
    {
      n = 3;
      if (c == 0xE0)
        lo = 0xA0;
      else if (c == 0xED)
        hi = 0x9F;
    }
  else if (c >= 0xF0 && c <= 0xF4)
    {
      n = 4;
      if (c == 0xF0)
        lo = 0x90;
      else if (c == 0xF4)
        hi = 0x8F;
    }
  else
    return 0;
  if (left < n)
    return 0;
  if (p[1] < lo || p[1] > hi)
    return 0;
  for (size_t i = 2; i < n; i++)
    if (p[i] < 0x80 || p[i] > 0xBF)
      return 0;
  return n;
}

static int
hex_value (unsigned char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Four hex digits at pos; -1 when they are not. */
static long
hex4 (Parser *ps, size_t pos)
{
  long v = 0;

  if (pos + 4 > ps->size)
    return -1;
  for (int i = 0; i < 4; i++)
    {
      int h = hex_value (ps->p[pos + i]);
      if (h < 0)
        return -1;
      v = v * 16 + h;
    }
  return v;
}

static size_t
utf8_encode (unsigned long cp, char *out)
{
  if (cp < 0x80)
    {
      out[0] = (char) cp;
      return 1;
    }
  if (cp < 0x800)
    {
      out[0] = (char) (0xC0 | (cp >> 6));
      out[1] = (char) (0x80 | (cp & 0x3F));
      return 2;
    }
  if (cp < 0x10000)
    {
      out[0] = (char) (0xE0 | (cp >> 12));
      out[1] = (char) (0x80 | ((cp >> 6) & 0x3F));
      out[2] = (char) (0x80 | (cp & 0x3F));
      return 3;
    }
  out[0] = (char) (0xF0 | (cp >> 18));
  out[1] = (char) (0x80 | ((cp >> 12) & 0x3F));
  out[2] = (char) (0x80 | ((cp >> 6) & 0x3F));
  out[3] = (char) (0x80 | (cp & 0x3F));
  return 4;
}

/* The string whose opening quote is at ps->pos, decoded into the
 * document's strings: *text its offset, *len its length. */
static NnStatus
parse_string (Parser *ps, uint32_t *text, uint32_t *len)
{
  NnJsonDoc *doc = ps->doc;
  size_t start = ps->pos;
  size_t begin = doc->strings_len;

  ps->pos++; /* the quote */
  for (;;)
    {
      if (ps->pos >= ps->size)
        return syntax (ps, start, NN_MESSAGE ("a string without its closing quote"));
      unsigned char c = ps->p[ps->pos];
      char buf[4];
      size_t n = 0;

      if (c == '"')
        {
          ps->pos++;
          break;
        }
      if (c < 0x20)
        return syntax (ps, ps->pos, NN_MESSAGE ("a control character in a string"));
      if (c == '\\')
        {
          if (ps->pos + 1 >= ps->size)
            return syntax (ps, start, NN_MESSAGE ("a string without its closing quote"));
          unsigned char e = ps->p[ps->pos + 1];
          switch (e)
            {
            case '"': buf[0] = '"'; n = 1; break;
            case '\\': buf[0] = '\\'; n = 1; break;
            case '/': buf[0] = '/'; n = 1; break;
            case 'b': buf[0] = '\b'; n = 1; break;
            case 'f': buf[0] = '\f'; n = 1; break;
            case 'n': buf[0] = '\n'; n = 1; break;
            case 'r': buf[0] = '\r'; n = 1; break;
            case 't': buf[0] = '\t'; n = 1; break;
            case 'u':
              {
                size_t at = ps->pos;
                long cp = hex4 (ps, ps->pos + 2);
                if (cp < 0)
                  return syntax (ps, at, NN_MESSAGE ("a \\u escape without four hex digits"));
                ps->pos += 4;
                if (cp >= 0xDC00 && cp <= 0xDFFF)
                  return syntax (ps, at, NN_MESSAGE ("a lone UTF-16 surrogate in a \\u escape"));
                if (cp >= 0xD800 && cp <= 0xDBFF)
                  {
                    long lo = -1;
                    if (ps->pos + 3 < ps->size && ps->p[ps->pos + 2] == '\\'
                        && ps->p[ps->pos + 3] == 'u')
                      lo = hex4 (ps, ps->pos + 4);
                    if (lo < 0xDC00 || lo > 0xDFFF)
                      return syntax (ps, at,
                                     NN_MESSAGE ("a lone UTF-16 surrogate in a \\u escape"));
                    ps->pos += 6;
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                  }
                if (cp == 0)
                  return syntax (ps, at, NN_MESSAGE ("a NUL character (\\u0000) in a string"));
                n = utf8_encode ((unsigned long) cp, buf);
                break;
              }
            default:
              return syntax (ps, ps->pos, NN_MESSAGE ("an unknown escape in a string"));
            }
          ps->pos += 2;
        }
      else
        {
          n = utf8_sequence (ps->p + ps->pos, ps->size - ps->pos);
          if (n == 0)
            return syntax (ps, ps->pos, NN_MESSAGE ("a string that is not UTF-8"));
          memcpy (buf, ps->p + ps->pos, n);
          ps->pos += n;
        }
      if (doc->strings_len - begin + n > NN_JSON_READ_MAX_STRING)
        return _nn_error_set (ps->error, NN_ERROR_FORMAT,
                              "%s: byte %zu: a string longer than %u bytes", doc->name, start,
                              (unsigned) NN_JSON_READ_MAX_STRING);
      if (!strings_reserve (doc, n + 1))
        return no_memory (ps);
      memcpy (doc->strings + doc->strings_len, buf, n);
      doc->strings_len += n;
    }
  if (!strings_reserve (doc, 1))
    return no_memory (ps);
  doc->strings[doc->strings_len++] = '\0';
  *text = (uint32_t) begin;
  *len = (uint32_t) (doc->strings_len - 1 - begin);
  return NN_OK;
}

/* ---------------------------------------------------------------- numbers and words */

static bool
is_digit (unsigned char c)
{
  return c >= '0' && c <= '9';
}

/* A number as JSON writes it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
 * It is converted by strtod, in whatever locale the program runs in: the
 * '.' becomes that locale's decimal point first. */
static NnStatus
parse_number (Parser *ps, double *out)
{
  size_t start = ps->pos;
  size_t i = ps->pos;
  const unsigned char *p = ps->p;
  char text[72];

  if (i < ps->size && p[i] == '-')
    i++;
  if (i >= ps->size || !is_digit (p[i]))
    return syntax (ps, start, NN_MESSAGE ("a number without digits"));
  if (p[i] == '0')
    i++;
  else
    while (i < ps->size && is_digit (p[i]))
      i++;
  size_t point = 0;
  if (i < ps->size && p[i] == '.')
    {
      point = i;
      i++;
      if (i >= ps->size || !is_digit (p[i]))
        return syntax (ps, start, NN_MESSAGE ("a number without digits after its point"));
      while (i < ps->size && is_digit (p[i]))
        i++;
    }
  if (i < ps->size && (p[i] == 'e' || p[i] == 'E'))
    {
      i++;
      if (i < ps->size && (p[i] == '+' || p[i] == '-'))
        i++;
      if (i >= ps->size || !is_digit (p[i]))
        return syntax (ps, start, NN_MESSAGE ("a number without digits in its exponent"));
      while (i < ps->size && is_digit (p[i]))
        i++;
    }
  if (i - start >= 64)
    return syntax (ps, start, NN_MESSAGE ("a number of more than 63 characters"));

  const char *dp = localeconv ()->decimal_point;
  size_t dp_len = dp != NULL && dp[0] != '\0' ? strlen (dp) : 1;
  size_t n = 0;
  for (size_t k = start; k < i; k++)
    {
      if (point != 0 && k == point && dp_len <= 4)
        {
          memcpy (text + n, dp != NULL && dp[0] != '\0' ? dp : ".", dp_len);
          n += dp_len;
        }
      else
        text[n++] = (char) p[k];
    }
  text[n] = '\0';
  errno = 0;
  double v = strtod (text, NULL);
  if (!isfinite (v))
    return syntax (ps, start, NN_MESSAGE ("a number too large for a double"));
  ps->pos = i;
  *out = v;
  return NN_OK;
}

static bool
word_at (Parser *ps, const char *word)
{
  size_t n = strlen (word);
  if (ps->size - ps->pos < n || memcmp (ps->p + ps->pos, word, n) != 0)
    return false;
  ps->pos += n;
  return true;
}

/* ---------------------------------------------------------------- the loop */

typedef enum
{
  WANT_VALUE,         /* a value: the root, after ':' or after ',' in an array */
  WANT_FIRST_ITEM,    /* after '[': a value or ']' */
  WANT_FIRST_KEY,     /* after '{': a key or '}' */
  WANT_KEY,           /* after ',' in an object */
  AFTER_VALUE,        /* ',' or the container's end */
} State;

NnStatus
_nn_json_parse (const char *data, size_t size, const char *name, NnJsonDoc **out,
                NnError *error)
{
  uint32_t stack[NN_JSON_READ_MAX_DEPTH + 1];
  int depth = 0;
  uint32_t key = NO_KEY;
  State state = WANT_VALUE;
  NnStatus status = NN_OK;
  Parser ps;

  *out = NULL;
  NnJsonDoc *doc = calloc (1, sizeof *doc);
  if (doc == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "%s: out of memory reading the JSON text",
                          name != NULL ? name : "");
  snprintf (doc->name, sizeof doc->name, "%s", name != NULL ? name : "JSON text");
  ps.p = (const unsigned char *) data;
  ps.size = data != NULL ? size : 0;
  ps.pos = 0;
  ps.doc = doc;
  ps.error = error;

  if (ps.size > NN_JSON_READ_MAX_BYTES)
    {
      status = _nn_error_set (error, NN_ERROR_FORMAT, "%s: larger than %u MiB, too large for a "
                              "result file", doc->name,
                              (unsigned) (NN_JSON_READ_MAX_BYTES / (1024 * 1024)));
      goto done;
    }
  if (ps.size >= 3 && memcmp (ps.p, "\xEF\xBB\xBF", 3) == 0)
    ps.pos = 3;

  for (;;)
    {
      skip_space (&ps);
      size_t at = ps.pos;
      unsigned char c = at < ps.size ? ps.p[at] : 0;
      bool end = at >= ps.size;

      if (state == AFTER_VALUE)
        {
          if (depth == 0)
            {
              if (!end)
                status = syntax (&ps, at, NN_MESSAGE ("text after the JSON value"));
              break;
            }
          const NnJsonNode *top = &doc->nodes[stack[depth - 1]];
          char close = top->kind == NN_JSON_OBJECT ? '}' : ']';
          if (!end && c == ',')
            {
              ps.pos++;
              state = top->kind == NN_JSON_OBJECT ? WANT_KEY : WANT_VALUE;
              continue;
            }
          if (!end && c == (unsigned char) close)
            {
              ps.pos++;
              depth--;
              continue;
            }
          if (end)
            status = syntax (&ps, at, top->kind == NN_JSON_OBJECT
                                        ? NN_MESSAGE ("the text ends inside an object")
                                        : NN_MESSAGE ("the text ends inside an array"));
          else
            status = syntax (&ps, at, top->kind == NN_JSON_OBJECT
                                      ? NN_MESSAGE ("expected ',' or '}' in an object")
                                      : NN_MESSAGE ("expected ',' or ']' in an array"));
          break;
        }

      if (state == WANT_FIRST_KEY || state == WANT_KEY)
        {
          if (state == WANT_FIRST_KEY && !end && c == '}')
            {
              ps.pos++;
              depth--;
              state = AFTER_VALUE;
              continue;
            }
          if (end || c != '"')
            {
              status = syntax (&ps, at, NN_MESSAGE ("expected a quoted key in an object"));
              break;
            }
          uint32_t text, len;
          status = parse_string (&ps, &text, &len);
          if (status != NN_OK)
            break;
          skip_space (&ps);
          if (ps.pos >= ps.size || ps.p[ps.pos] != ':')
            {
              status = syntax (&ps, ps.pos, NN_MESSAGE ("expected ':' after an object's key"));
              break;
            }
          ps.pos++;
          key = text;
          state = WANT_VALUE;
          continue;
        }

      if (state == WANT_FIRST_ITEM && !end && c == ']')
        {
          ps.pos++;
          depth--;
          state = AFTER_VALUE;
          continue;
        }

      /* a value */
      uint32_t parent = depth > 0 ? stack[depth - 1] : 0;
      uint32_t index;
      if (end)
        {
          status = syntax (&ps, at, doc->n_nodes == 0 ? NN_MESSAGE ("no JSON value (empty text)")
                                                      : NN_MESSAGE ("the text ends inside a value"));
          break;
        }
      if (c == '{' || c == '[')
        {
          if (depth >= NN_JSON_READ_MAX_DEPTH)
            {
              status = _nn_error_set (error, NN_ERROR_FORMAT,
                                      "%s: byte %zu: nested more than %d levels deep", doc->name,
                                      at, NN_JSON_READ_MAX_DEPTH);
              break;
            }
          status = node_add (&ps, c == '{' ? NN_JSON_OBJECT : NN_JSON_ARRAY, at, parent, key,
                             &index);
          if (status != NN_OK)
            break;
          ps.pos++;
          stack[depth++] = index;
          key = NO_KEY;
          state = c == '{' ? WANT_FIRST_KEY : WANT_FIRST_ITEM;
          continue;
        }
      if (c == '"')
        {
          uint32_t text, len;
          status = parse_string (&ps, &text, &len);
          if (status == NN_OK)
            status = node_add (&ps, NN_JSON_STRING, at, parent, key, &index);
          if (status != NN_OK)
            break;
          doc->nodes[index].text = text;
          doc->nodes[index].text_len = len;
        }
      else if (c == '-' || is_digit (c))
        {
          double v = 0;
          status = parse_number (&ps, &v);
          if (status == NN_OK)
            status = node_add (&ps, NN_JSON_NUMBER, at, parent, key, &index);
          if (status != NN_OK)
            break;
          doc->nodes[index].number = v;
        }
      else if (word_at (&ps, "true") || word_at (&ps, "false"))
        {
          status = node_add (&ps, NN_JSON_BOOL, at, parent, key, &index);
          if (status != NN_OK)
            break;
          doc->nodes[index].boolean = c == 't';
        }
      else if (word_at (&ps, "null"))
        {
          status = node_add (&ps, NN_JSON_NULL, at, parent, key, &index);
          if (status != NN_OK)
            break;
        }
      else
        {
          status = syntax (&ps, at, NN_MESSAGE ("expected a value"));
          break;
        }
      key = NO_KEY;
      state = AFTER_VALUE;
    }

done:
  if (status != NN_OK)
    {
      _nn_json_doc_free (doc);
      return status;
    }
  *out = doc;
  return NN_OK;
}

NnStatus
_nn_json_read_file (const char *path, NnJsonDoc **out, NnError *error)
{
  const char *not_regular = NULL;
  uint64_t size = 0;
  FILE *f;

  *out = NULL;
  f = _nn_os_open_regular (path, &size, &not_regular);
  if (f == NULL && not_regular != NULL)
    return _nn_error_set (error, NN_ERROR_IO, "%s: not a regular file (%-s)", path, not_regular);
  if (f == NULL)
    return _nn_error_set (error, NN_ERROR_IO, "%s: cannot open: %s", path, strerror (errno));
  if (size > NN_JSON_READ_MAX_BYTES)
    {
      fclose (f);
      return _nn_error_set (error, NN_ERROR_FORMAT,
                            "%s: larger than %u MiB, too large for a result file", path,
                            (unsigned) (NN_JSON_READ_MAX_BYTES / (1024 * 1024)));
    }
  /* One byte more than the size said, to see a file that grew meanwhile. */
  char *data = malloc ((size_t) size + 1);
  if (data == NULL)
    {
      fclose (f);
      return _nn_error_set (error, NN_ERROR_NO_MEMORY, "%s: out of memory reading the JSON text",
                            path);
    }
  size_t got = fread (data, 1, (size_t) size + 1, f);
  bool failed = ferror (f) != 0;
  fclose (f);
  NnStatus status;
  if (failed)
    status = _nn_error_set (error, NN_ERROR_IO, "%s: cannot read: %s", path, strerror (EIO));
  else if (got > size)
    status = _nn_error_set (error, NN_ERROR_IO, "%s: changed while it was read", path);
  else
    status = _nn_json_parse (data, got, path, out, error);
  free (data);
  return status;
}

void
_nn_json_doc_free (NnJsonDoc *doc)
{
  if (doc == NULL)
    return;
  free (doc->nodes);
  free (doc->strings);
  free (doc);
}

/* ---------------------------------------------------------------- looking things up */

const NnJsonNode *
_nn_json_root (const NnJsonDoc *doc)
{
  return doc != NULL && doc->n_nodes > 0 ? &doc->nodes[0] : NULL;
}

const NnJsonNode *
_nn_json_child (const NnJsonDoc *doc, const NnJsonNode *node)
{
  if (node == NULL || (node->kind != NN_JSON_ARRAY && node->kind != NN_JSON_OBJECT)
      || node->first == 0)
    return NULL;
  return &doc->nodes[node->first];
}

const NnJsonNode *
_nn_json_next (const NnJsonDoc *doc, const NnJsonNode *child)
{
  if (child == NULL || child->next == 0)
    return NULL;
  return &doc->nodes[child->next];
}

const char *
_nn_json_key_of (const NnJsonDoc *doc, const NnJsonNode *node)
{
  if (node == NULL || node->key == NO_KEY)
    return "";
  return doc->strings + node->key;
}

const NnJsonNode *
_nn_json_get (const NnJsonDoc *doc, const NnJsonNode *node, const char *key)
{
  const NnJsonNode *found = NULL;

  if (node == NULL || node->kind != NN_JSON_OBJECT)
    return NULL;
  for (const NnJsonNode *c = _nn_json_child (doc, node); c != NULL; c = _nn_json_next (doc, c))
    if (strcmp (doc->strings + c->key, key) == 0)
      found = c;
  return found;
}

const char *
_nn_json_string_of (const NnJsonDoc *doc, const NnJsonNode *node)
{
  if (node == NULL || node->kind != NN_JSON_STRING)
    return NULL;
  return doc->strings + node->text;
}

const char *
_nn_json_get_string (const NnJsonDoc *doc, const NnJsonNode *obj, const char *key,
                     const char *fallback)
{
  const char *s = _nn_json_string_of (doc, _nn_json_get (doc, obj, key));
  return s != NULL ? s : fallback;
}

double
_nn_json_get_number (const NnJsonDoc *doc, const NnJsonNode *obj, const char *key,
                     double fallback)
{
  const NnJsonNode *n = _nn_json_get (doc, obj, key);
  return n != NULL && n->kind == NN_JSON_NUMBER ? n->number : fallback;
}

bool
_nn_json_get_bool (const NnJsonDoc *doc, const NnJsonNode *obj, const char *key, bool fallback)
{
  const NnJsonNode *n = _nn_json_get (doc, obj, key);
  return n != NULL && n->kind == NN_JSON_BOOL ? n->boolean : fallback;
}
