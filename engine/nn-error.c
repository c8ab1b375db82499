/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-error.c: error messages and sizes in words, shared by the engine.
 *
 * A message is kept twice: in English (`message`, for logs, the CLI and
 * result files) and as the formats and arguments it was made from, so that
 * a front end with a message catalog can show it in the user's language
 * (nn_error_translate); the engine itself has no catalog.
 */

#include "nn-private.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

const char *
nn_status_name (NnStatus status)
{
  switch (status)
    {
    case NN_OK: return "ok";
    case NN_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case NN_ERROR_IO: return "input/output error";
    case NN_ERROR_FORMAT: return "format error";
    case NN_ERROR_SPEC: return "model spec error";
    case NN_ERROR_SHAPE: return "shape error";
    case NN_ERROR_NO_MEMORY: return "out of memory";
    case NN_ERROR_DEVICE: return "device error";
    case NN_ERROR_DEVICE_MEMORY: return "out of device memory";
    case NN_ERROR_DEVICE_LOST: return "device lost";
    case NN_ERROR_UNAVAILABLE: return "unavailable";
    case NN_ERROR_CANCELLED: return "cancelled";
    case NN_ERROR_DIVERGED: return "diverged";
    }
  return "unknown error";
}

void
nn_error_clear (NnError *error)
{
  if (error == NULL)
    return;
  error->code = NN_OK;
  error->message[0] = '\0';
  error->field = NN_FIELD_NONE;
  error->n_parts = 0;
  error->texts_len = 0;
}

/* ---------------------------------------------------------------- conversions */

bool
_nn_format_conversion_parse (const char *p, NnFormatConversion *c, va_list *stars)
{
  const char *start;
  size_t len, used;

  c->position = 0;
  {
    const char *q = p;
    int position = 0;

    while (*q >= '0' && *q <= '9' && position < 1000)
      position = position * 10 + (*q++ - '0');
    if (q > p && *q == '$' && position > 0)
      {
        c->position = position;
        p = q + 1;
      }
  }
  /* the spec is built as it is read: a '*' becomes the number it stands for */
  c->spec[0] = '%';
  used = 1;
  c->left = false;
  start = p;
  while (*p != '\0' && strchr ("-+ #0'", *p) != NULL)
    c->left |= *p++ == '-';
  c->width = -1;
  if (*p == '*' && stars != NULL)
    {
      int width = va_arg (*stars, int);
      c->left |= width < 0;
      c->width = width < 0 ? (width < -100000 ? 100000 : -width) : (width > 100000 ? 100000 : width);
      p++;
    }
  else
    while (*p >= '0' && *p <= '9')
      {
        int digit = *p++ - '0';
        c->width = c->width < 0 ? digit : c->width < 100000 ? c->width * 10 + digit : c->width;
      }
  c->precision = -1;
  if (*p == '.')
    {
      p++;
      c->precision = 0;
      if (*p == '*' && stars != NULL)
        {
          int precision = va_arg (*stars, int);
          c->precision = precision < 0 ? -1 : precision > 100000 ? 100000 : precision;
          p++;
        }
      else
        while (*p >= '0' && *p <= '9' && c->precision < 100000)
          c->precision = c->precision * 10 + (*p++ - '0');
    }
  len = 0;
  if ((p[0] == 'h' && p[1] == 'h') || (p[0] == 'l' && p[1] == 'l'))
    len = 2;
  else if (*p != '\0' && strchr ("hljztL", *p) != NULL)
    len = 1;
  memcpy (c->length, p, len);
  c->length[len] = '\0';
  p += len;
  c->conversion = *p;
  if (*p == '\0' || strchr ("diouxXeEfFgGaAcsp", *p) == NULL)
    return false;
  if ((*p == 'c' || *p == 's') && len > 0)
    return false;
  p++;
  /* "%" + the flags + width and precision as numbers + length + conversion */
  size_t flags = strspn (start, "-+ #0'");
  char numbers[32] = "";
  if (c->width >= 0 && c->precision >= 0)
    snprintf (numbers, sizeof numbers, "%d.%d", c->width, c->precision);
  else if (c->width >= 0)
    snprintf (numbers, sizeof numbers, "%d", c->width);
  else if (c->precision >= 0)
    snprintf (numbers, sizeof numbers, ".%d", c->precision);
  if (used + flags + strlen (numbers) + len + 2 > sizeof c->spec)
    return false;
  memcpy (c->spec + used, start, flags);
  used += flags;
  memcpy (c->spec + used, numbers, strlen (numbers));
  used += strlen (numbers);
  memcpy (c->spec + used, c->length, len);
  used += len;
  c->spec[used++] = c->conversion;
  c->spec[used] = '\0';
  c->end = p;
  return true;
}

/* The spec is one conversion of a format the compiler checked at its call
 * site (_nn_error_set is NN_PRINTF, as are the engine's other callers),
 * taken apart by _nn_format_conversion_parse, and each argument is read as
 * the type that conversion says. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

int
_nn_format_conversion_write (char *out, size_t size, const NnFormatConversion *c, va_list *args)
{
  const char *l = c->length;

  switch (c->conversion)
    {
    case 'd':
    case 'i':
      if (strcmp (l, "ll") == 0)
        return snprintf (out, size, c->spec, va_arg (*args, long long));
      if (strcmp (l, "l") == 0)
        return snprintf (out, size, c->spec, va_arg (*args, long));
      if (strcmp (l, "j") == 0)
        return snprintf (out, size, c->spec, va_arg (*args, intmax_t));
      if (strcmp (l, "z") == 0)
        return snprintf (out, size, c->spec, va_arg (*args, size_t));
      if (strcmp (l, "t") == 0)
        return snprintf (out, size, c->spec, va_arg (*args, ptrdiff_t));
      return snprintf (out, size, c->spec, va_arg (*args, int));
    case 'o':
    case 'u':
    case 'x':
    case 'X':
      if (strcmp (l, "ll") == 0)
        return snprintf (out, size, c->spec, va_arg (*args, unsigned long long));
      if (strcmp (l, "l") == 0)
        return snprintf (out, size, c->spec, va_arg (*args, unsigned long));
      if (strcmp (l, "j") == 0)
        return snprintf (out, size, c->spec, va_arg (*args, uintmax_t));
      if (strcmp (l, "z") == 0)
        return snprintf (out, size, c->spec, va_arg (*args, size_t));
      if (strcmp (l, "t") == 0)
        return snprintf (out, size, c->spec, va_arg (*args, ptrdiff_t));
      return snprintf (out, size, c->spec, va_arg (*args, unsigned int));
    case 'c':
      return snprintf (out, size, c->spec, va_arg (*args, int));
    case 's':
      {
        const char *s = va_arg (*args, const char *);
        return snprintf (out, size, c->spec, s != NULL ? s : "(null)");
      }
    case 'p':
      return snprintf (out, size, c->spec, va_arg (*args, void *));
    default: /* e, f, g, a */
      if (strcmp (l, "L") == 0)
        return snprintf (out, size, c->spec, va_arg (*args, long double));
      return snprintf (out, size, c->spec, va_arg (*args, double));
    }
}

#pragma GCC diagnostic pop

/* ---------------------------------------------------------------- parts */

/* Keep `format` and its arguments, each formatted on its own, at the end of
 * error->texts; false when they do not fit or a conversion is not one the
 * messages use (the message then stays English only). */
static bool
keep_part (NnError *error, const char *format, va_list *args, int index)
{
  char *texts = error->texts;
  size_t room = sizeof error->texts;
  size_t start = error->texts_len;
  size_t len = start;
  size_t format_len = strlen (format) + 1;
  unsigned n_args = 0;
  uint32_t words = 0;

  if (format_len > room - len)
    return false;
  memcpy (texts + len, format, format_len);
  len += format_len;
  for (const char *p = format; *p != '\0'; p++)
    {
      NnFormatConversion c;
      int n;

      if (*p != '%')
        continue;
      if (p[1] == '%')
        {
          p++;
          continue;
        }
      if (!_nn_format_conversion_parse (p + 1, &c, NULL) || c.position != 0)
        return false;
      n = _nn_format_conversion_write (texts + len, room - len, &c, args);
      if (n < 0 || (size_t) n >= room - len)
        return false;
      len += (size_t) n + 1;
      if (strcmp (c.spec, "%-s") == 0 && n_args < 32)
        words |= UINT32_C (1) << n_args;
      n_args++;
      p = c.end - 1;
    }
  error->parts[index].format = (uint16_t) start;
  error->parts[index].n_args = (uint16_t) n_args;
  error->parts[index].words = words;
  error->texts_len = (uint16_t) len;
  return true;
}

static NnStatus error_setv (NnError *error, NnStatus code, const char *format, va_list args)
  NN_PRINTF (3, 0);

static NnStatus
error_setv (NnError *error, NnStatus code, const char *format, va_list args)
{
  va_list copy;

  error->code = code;
  error->field = NN_FIELD_NONE;
  va_copy (copy, args);
  vsnprintf (error->message, sizeof error->message, format, copy);
  va_end (copy);

  error->texts_len = 0;
  va_copy (copy, args);
  error->n_parts = keep_part (error, format, &copy, 0) ? 1 : 0;
  va_end (copy);
  return code;
}

NnStatus
_nn_error_set (NnError *error, NnStatus code, const char *format, ...)
{
  if (error != NULL)
    {
      va_list args;
      va_start (args, format);
      error_setv (error, code, format, args);
      va_end (args);
    }
  return code;
}

NnStatus
_nn_error_setv (NnError *error, NnStatus code, const char *format, va_list args)
{
  return error != NULL ? error_setv (error, code, format, args) : code;
}

NnStatus
_nn_error_field (NnError *error, NnStatus status, NnField field)
{
  if (error != NULL && status != NN_OK)
    error->field = field;
  return status;
}

void
_nn_error_prefix (NnError *error, const char *format, ...)
{
  char prefix[512];
  char old[NN_ERROR_MESSAGE_MAX];
  va_list args;

  if (error == NULL)
    return;
  va_start (args, format);
  vsnprintf (prefix, sizeof prefix, format, args);
  va_end (args);
  memcpy (old, error->message, sizeof old);
  /* bounded so the pair fits: a long prefix must not push out the cause */
  snprintf (error->message, sizeof error->message, "%.300s: %.700s", prefix, old);

  /* the prefix becomes the first part, in front of the cause's */
  if (error->n_parts > 0 && error->n_parts < NN_ERROR_PARTS_MAX)
    {
      int n = error->n_parts;
      bool kept;

      va_start (args, format);
      kept = keep_part (error, format, &args, n);
      va_end (args);
      if (kept)
        {
          NnErrorPart part = error->parts[n];
          memmove (&error->parts[1], &error->parts[0], (size_t) n * sizeof error->parts[0]);
          error->parts[0] = part;
          error->n_parts = n + 1;
          return;
        }
    }
  error->n_parts = 0;
}

/* ---------------------------------------------------------------- translation */

/* Translators: how the engine joins the context of an error to its cause,
 * as in "layer 2 ('dense x'): 'x' is not a positive whole number". */
static const char *const join_format = NN_MESSAGE ("%s: %s");

/* An snprintf-like output: counts what it needed even when `out` is full. */
typedef struct
{
  char *out;
  size_t size;
  size_t len;
} Writer;

static void
writer_put (Writer *w, const char *s, size_t n)
{
  if (w->size > 0 && w->len < w->size - 1)
    {
      size_t room = w->size - 1 - w->len;
      memcpy (w->out + w->len, s, n < room ? n : room);
    }
  w->len += n;
}

/* Whether every conversion of `format` names one of `n_args` arguments. */
static bool
format_fits (const char *format, unsigned n_args)
{
  unsigned next = 0;

  for (const char *p = format; *p != '\0'; p++)
    {
      NnFormatConversion c;
      unsigned index;

      if (*p != '%')
        continue;
      if (p[1] == '%')
        {
          p++;
          continue;
        }
      if (!_nn_format_conversion_parse (p + 1, &c, NULL))
        return false;
      index = c.position > 0 ? (unsigned) c.position - 1 : next++;
      if (index >= n_args)
        return false;
      p = c.end - 1;
    }
  return true;
}

/* The `index`th argument of `part`, as it was formatted. */
static const char *
part_argument (const NnError *error, int part, unsigned index)
{
  const char *s = error->texts + error->parts[part].format;

  for (unsigned i = 0; i <= index; i++)
    s += strlen (s) + 1;
  return s;
}

typedef struct
{
  const NnError *error;
  NnTranslateFunc translate;
  void *user_data;
  const char *join; /* "%s: %s", translated */
  Writer w;
} Translation;

typedef void (*FillFunc) (Translation *t, int part, unsigned index, int precision);

/* Write `format` with each of its conversions replaced by what `fill`
 * writes for the argument the conversion names. The arguments were
 * formatted as the English format says; only a string's precision is taken
 * from the translation, so that "%.0s" can leave out an English plural's
 * "s". */
static void
write_format (Translation *t, const char *format, FillFunc fill, int part)
{
  unsigned next = 0;
  const char *p = format;

  while (*p != '\0')
    {
      const char *q = strchr (p, '%');
      NnFormatConversion c;

      if (q == NULL)
        {
          writer_put (&t->w, p, strlen (p));
          return;
        }
      writer_put (&t->w, p, (size_t) (q - p));
      if (q[1] == '%')
        {
          writer_put (&t->w, "%", 1);
          p = q + 2;
          continue;
        }
      _nn_format_conversion_parse (q + 1, &c, NULL); /* format_fits said it parses */
      fill (t, part, c.position > 0 ? (unsigned) c.position - 1 : next++,
            c.conversion == 's' ? c.precision : -1);
      p = c.end;
    }
}

static void
fill_argument (Translation *t, int part, unsigned index, int precision)
{
  const char *arg = part_argument (t->error, part, index);
  size_t len;

  /* a phrase of the engine's (%-s), unless its translation is not text */
  if (index < 32 && (t->error->parts[part].words & (UINT32_C (1) << index)) && arg[0] != '\0')
    {
      const char *translated = t->translate (arg, t->user_data);

      if (translated != NULL && format_fits (translated, 0))
        arg = translated;
    }
  len = strlen (arg);

  writer_put (&t->w, arg, precision >= 0 && (size_t) precision < len ? (size_t) precision : len);
}

/* One part in the user's language, or in English where its translation
 * does not take its arguments. */
static void
write_part (Translation *t, int part)
{
  const char *format = t->error->texts + t->error->parts[part].format;
  const char *translated = t->translate (format, t->user_data);

  if (translated == NULL || !format_fits (translated, t->error->parts[part].n_args))
    translated = format;
  write_format (t, translated, fill_argument, part);
}

static void write_from (Translation *t, int part);

/* The join's first argument is the part, its second what follows. */
static void
fill_join (Translation *t, int part, unsigned index, int precision)
{
  if (index == 0)
    write_part (t, part);
  else
    write_from (t, part + 1);
}

/* Part `part` and the ones after it. */
static void
write_from (Translation *t, int part)
{
  if (part == t->error->n_parts - 1)
    write_part (t, part);
  else
    write_format (t, t->join, fill_join, part);
}

/* Whether the error holds parts (an error the engine filled, or cleared,
 * never holds bad ones; this keeps a stray one from being read past). */
static bool
parts_valid (const NnError *error)
{
  if (error->n_parts <= 0 || error->n_parts > NN_ERROR_PARTS_MAX
      || error->texts_len > sizeof error->texts || error->texts_len == 0
      || error->texts[error->texts_len - 1] != '\0')
    return false;
  for (int i = 0; i < error->n_parts; i++)
    {
      size_t at = error->parts[i].format;
      for (unsigned j = 0; j <= error->parts[i].n_args; j++)
        {
          if (at >= error->texts_len)
            return false;
          at += strlen (error->texts + at) + 1;
        }
    }
  return true;
}

size_t
nn_error_translate (const NnError  *error,
                    NnTranslateFunc translate,
                    void           *user_data,
                    char           *out,
                    size_t          size)
{
  Translation t = { error, translate, user_data, NULL, { out, size, 0 } };

  if (error == NULL || translate == NULL || !parts_valid (error))
    {
      const char *message = error != NULL ? error->message : "";
      writer_put (&t.w, message, strlen (message));
    }
  else
    {
      t.join = error->n_parts > 1 ? translate (join_format, user_data) : join_format;
      if (t.join == NULL || !format_fits (t.join, 2))
        t.join = join_format;
      write_from (&t, 0);
    }
  if (size > 0)
    out[t.w.len < size - 1 ? t.w.len : size - 1] = '\0';
  return t.w.len;
}

/* ---------------------------------------------------------------- sizes */

void
_nn_format_bytes (double bytes, char *out, size_t size)
{
  static const char *units[] = { "bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
  int u = 0;

  while (bytes >= 1024.0 && u < 6)
    {
      bytes /= 1024.0;
      u++;
    }
  if (u == 0)
    snprintf (out, size, "%.0f %s", bytes, units[u]);
  else
    snprintf (out, size, "%.1f %s", bytes, units[u]);
}
