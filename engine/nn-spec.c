/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-spec.c: the one-line model spec: parsing, canonical text, shape
 * inference and the Keras-like summary. The parser faces user text (and a
 * fuzzer), so every word is checked and every size is bounded.
 */

#include "nn-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bounds that keep every later product inside int64 and every size in int32. */
#define SPEC_MAX_LAYERS 4096
#define SPEC_MAX_UNITS 1000000   /* dense units, conv filters */
#define SPEC_MAX_KERNEL 1024     /* kernel / window side */
#define SPEC_MAX_STRIDE 1024
#define SHAPE_MAX_SIZE INT32_MAX /* values in one sample's activation */

/* How much of the user's text an error quotes. */
#define QUOTE_LAYER_MAX 60
#define QUOTE_WORD_MAX 40

/* ---------------------------------------------------------------- names */

const char *
nn_layer_kind_name (NnLayerKind kind)
{
  switch (kind)
    {
    case NN_LAYER_DENSE: return "dense";
    case NN_LAYER_CONV2D: return "conv2d";
    case NN_LAYER_MAXPOOL2D: return "maxpool";
    case NN_LAYER_AVGPOOL2D: return "avgpool";
    case NN_LAYER_FLATTEN: return "flatten";
    case NN_LAYER_DROPOUT: return "dropout";
    case NN_LAYER_ACTIVATION: return "activation";
    }
  return "unknown";
}

const char *
nn_activation_name (NnActivation act)
{
  switch (act)
    {
    case NN_ACT_LINEAR: return "linear";
    case NN_ACT_RELU: return "relu";
    case NN_ACT_SIGMOID: return "sigmoid";
    case NN_ACT_TANH: return "tanh";
    case NN_ACT_SOFTMAX: return "softmax";
    }
  return "unknown";
}

/* Keras' layer names, for summaries and NnLayerInfo.name. */
static const char *
keras_name (NnLayerKind kind)
{
  switch (kind)
    {
    case NN_LAYER_DENSE: return "dense";
    case NN_LAYER_CONV2D: return "conv2d";
    case NN_LAYER_MAXPOOL2D: return "max_pooling2d";
    case NN_LAYER_AVGPOOL2D: return "average_pooling2d";
    case NN_LAYER_FLATTEN: return "flatten";
    case NN_LAYER_DROPOUT: return "dropout";
    case NN_LAYER_ACTIVATION: return "activation";
    }
  return "layer";
}

static const char *
keras_type (NnLayerKind kind)
{
  switch (kind)
    {
    case NN_LAYER_DENSE: return "Dense";
    case NN_LAYER_CONV2D: return "Conv2D";
    case NN_LAYER_MAXPOOL2D: return "MaxPooling2D";
    case NN_LAYER_AVGPOOL2D: return "AveragePooling2D";
    case NN_LAYER_FLATTEN: return "Flatten";
    case NN_LAYER_DROPOUT: return "Dropout";
    case NN_LAYER_ACTIVATION: return "Activation";
    }
  return "Layer";
}

/* ---------------------------------------------------------------- words */

/* ASCII only: the spec must not mean something else under a Turkish locale. */
static int
ascii_lower (int c)
{
  return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

static bool
word_is (const char *word, size_t len, const char *name)
{
  size_t i;
  for (i = 0; i < len; i++)
    if (name[i] == '\0' || ascii_lower ((unsigned char) word[i]) != name[i])
      return false;
  return name[len] == '\0';
}

static bool
is_space (int c)
{
  return c == ' ' || c == '\t' || c == ',' || c == '\v' || c == '\f';
}

static bool
is_separator (int c)
{
  return c == ';' || c == '\n' || c == '\r';
}

/* Copy user text for a message: printable ASCII only, shortened with "...". */
static void
quote (char *out, size_t size, const char *text, size_t len, size_t max)
{
  size_t i, n = 0;
  bool cut = len > max;
  if (cut)
    len = max;
  for (i = 0; i < len && n + 1 < size; i++)
    {
      unsigned char c = (unsigned char) text[i];
      out[n++] = (c >= 0x20 && c < 0x7f) ? (char) c : '?';
    }
  if (cut)
    for (i = 0; i < 3 && n + 1 < size; i++)
      out[n++] = '.';
  out[n] = '\0';
}

/* One word of a layer: "128", "relu" or "stride = 2x2". */
typedef struct
{
  const char *key;
  size_t key_len;
  bool has_value;    /* written as key=value */
  const char *value;
  size_t value_len;
  const char *text;  /* the whole word as written, for messages */
  size_t text_len;
} Word;

/* Next word in [*pos, end); false at the end. */
static bool
next_word (const char **pos, const char *end, Word *w)
{
  const char *p = *pos;
  const char *q;

  while (p < end && is_space ((unsigned char) *p))
    p++;
  if (p >= end)
    return false;

  memset (w, 0, sizeof *w);
  w->text = p;
  w->key = p;
  while (p < end && !is_space ((unsigned char) *p) && *p != '=')
    p++;
  w->key_len = (size_t) (p - w->key);
  w->text_len = w->key_len;

  q = p;
  while (q < end && is_space ((unsigned char) *q))
    q++;
  if (q < end && *q == '=')
    {
      q++;
      while (q < end && is_space ((unsigned char) *q))
        q++;
      w->has_value = true;
      w->value = q;
      while (q < end && !is_space ((unsigned char) *q) && *q != '=')
        q++;
      w->value_len = (size_t) (q - w->value);
      w->text_len = (size_t) (q - w->text);
      p = q;
    }
  *pos = p;
  return true;
}

/* ---------------------------------------------------------------- numbers */

typedef enum
{
  NUM_OK,
  NUM_BAD,       /* not a positive whole number */
  NUM_TOO_LARGE,
} NumResult;

/* A positive whole number no larger than `max`. */
static NumResult
parse_count (const char *s, size_t len, int32_t max, int32_t *out)
{
  int64_t v = 0;
  size_t i;
  if (len == 0)
    return NUM_BAD;
  for (i = 0; i < len; i++)
    {
      if (s[i] < '0' || s[i] > '9')
        return NUM_BAD;
      v = v * 10 + (s[i] - '0');
      if (v > max)
        {
          /* Still tell a malformed word from a large one. */
          for (; i < len; i++)
            if (s[i] < '0' || s[i] > '9')
              return NUM_BAD;
          return NUM_TOO_LARGE;
        }
    }
  if (v < 1)
    return NUM_BAD;
  *out = (int32_t) v;
  return NUM_OK;
}

/* "3" or "3x5" (also "3X5"). */
static NumResult
parse_pair (const char *s, size_t len, int32_t max, int32_t *a, int32_t *b)
{
  size_t i;
  NumResult r;
  for (i = 0; i < len; i++)
    if (s[i] == 'x' || s[i] == 'X')
      break;
  if (i == len)
    {
      r = parse_count (s, len, max, a);
      if (r == NUM_OK)
        *b = *a;
      return r;
    }
  r = parse_count (s, i, max, a);
  if (r == NUM_BAD)
    return r;
  {
    NumResult r2 = parse_count (s + i + 1, len - i - 1, max, b);
    if (r2 == NUM_BAD)
      return r2;
    return r == NUM_TOO_LARGE ? r : r2;
  }
}

/* A decimal number ("0.25", ".5", "5e-1", "-0.1"), independent of the C
 * locale (a GUI under de_DE would otherwise read "0.25" as 0). Returns false
 * when the word is not a number. */
static bool
parse_real (const char *s, size_t len, double *out)
{
  static const double pow10[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
  };
  size_t i = 0;
  bool negative = false;
  bool digits = false;
  uint64_t mantissa = 0;
  int64_t exp10 = 0;
  double v;

  if (i < len && (s[i] == '+' || s[i] == '-'))
    negative = s[i++] == '-';
  for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
    {
      digits = true;
      if (mantissa < UINT64_C (100000000000000000))
        mantissa = mantissa * 10 + (uint64_t) (s[i] - '0');
      else
        exp10++;
    }
  if (i < len && s[i] == '.')
    {
      for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++)
        {
          digits = true;
          if (mantissa < UINT64_C (100000000000000000))
            {
              mantissa = mantissa * 10 + (uint64_t) (s[i] - '0');
              exp10--;
            }
        }
    }
  if (!digits)
    return false;
  if (i < len && (s[i] == 'e' || s[i] == 'E'))
    {
      bool eneg = false;
      int64_t e = 0;
      bool edigits = false;
      i++;
      if (i < len && (s[i] == '+' || s[i] == '-'))
        eneg = s[i++] == '-';
      for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
        {
          edigits = true;
          if (e < 100000)
            e = e * 10 + (s[i] - '0');
        }
      if (!edigits)
        return false;
      exp10 += eneg ? -e : e;
    }
  if (i != len)
    return false;

  v = (double) mantissa;
  if (mantissa != 0)
    {
      /* One exact power and one rounding where possible (exponents of
       * everyday rates), repeated steps for the rest. */
      while (exp10 > 22 && isfinite (v))
        {
          v *= 1e22;
          exp10 -= 22;
        }
      while (exp10 < -22 && v != 0.0)
        {
          v /= 1e22;
          exp10 += 22;
        }
      /* The loops stop early once v is 0 or infinite. */
      if (exp10 > 22)
        v = INFINITY;
      else if (exp10 < -22)
        v = 0.0;
      else if (exp10 > 0)
        v *= pow10[exp10];
      else if (exp10 < 0)
        v /= pow10[-exp10];
    }
  *out = negative ? -v : v;
  return true;
}

/* ---------------------------------------------------------------- output */

/* snprintf-style writer: counts what it needed even when `out` is full. */
typedef struct
{
  char *out;
  size_t size;
  size_t len;
} Writer;

static void writer_add (Writer *w, const char *format, ...) NN_PRINTF (2, 3);

static void
writer_add (Writer *w, const char *format, ...)
{
  va_list args;
  int n;
  char *dest = NULL;
  size_t room = 0;

  if (w->out != NULL && w->len < w->size)
    {
      dest = w->out + w->len;
      room = w->size - w->len;
    }
  va_start (args, format);
  n = vsnprintf (dest, room, format, args);
  va_end (args);
  if (n > 0)
    w->len += (size_t) n;
}

static void
writer_init (Writer *w, char *out, size_t size)
{
  w->out = out;
  w->size = out != NULL ? size : 0;
  w->len = 0;
  if (w->out != NULL && w->size > 0)
    w->out[0] = '\0';
}

/* The shortest decimal that parses back to the same float, without printf
 * (whose decimal point follows the locale). `v` is a dropout rate in [0, 1). */
static void
format_rate (Writer *w, float v)
{
  int precision;

  if (!(v > 0.0f) || !isfinite (v))
    {
      writer_add (w, "%s", v == 0.0f ? "0" : "nan");
      return;
    }

  for (precision = 1; precision <= 17; precision++)
    {
      int e10 = (int) floor (log10 ((double) v));
      int shift = precision - 1 - e10; /* v * 10^shift has `precision` digits */
      double scaled = (double) v * pow (10.0, shift);
      uint64_t n;
      char candidate[64];
      double back;

      if (!isfinite (scaled) || scaled >= 1e18)
        break;
      n = (uint64_t) llround (scaled);
      while (n > 0 && n % 10 == 0)
        {
          n /= 10;
          shift--;
        }
      snprintf (candidate, sizeof candidate, "%llue-%d", (unsigned long long) n, shift);
      if (!parse_real (candidate, strlen (candidate), &back) || (float) back != v)
        continue;

      if (shift > 0 && shift <= 12)
        {
          /* Plain decimal: 0.000ddd */
          char digits[32];
          int nd = snprintf (digits, sizeof digits, "%llu", (unsigned long long) n);
          int zeros = shift - nd;
          writer_add (w, "0.");
          for (; zeros > 0; zeros--)
            writer_add (w, "0");
          writer_add (w, "%s", digits);
        }
      else
        writer_add (w, "%s", candidate);
      return;
    }
  /* Unreachable for a float in (0, 1), but write something that parses. */
  writer_add (w, "%llue-9", (unsigned long long) llround ((double) v * 1e9));
}

/* ---------------------------------------------------------------- parsing */

static const char known_kinds[] =
  "dense, conv2d, maxpool, avgpool, flatten, dropout, activation, "
  "relu, sigmoid, tanh, softmax, linear";

/* The name in `names` (NULL-terminated) closest to a misspelt word, within
 * one edit for short words and two for longer ones; NULL when none is. */
static const char *
closest_name (const char *word, size_t len, const char *const *names)
{
  const char *best = NULL;
  size_t best_distance = len < 5 ? 2 : 3;
  size_t i;

  if (len == 0 || len > 32)
    return NULL;
  for (i = 0; names[i] != NULL; i++)
    {
      /* Levenshtein distance, one row at a time, ASCII case-insensitive. */
      size_t row[34];
      size_t n = strlen (names[i]);
      size_t a, b;

      if (n > 32)
        continue;
      for (b = 0; b <= n; b++)
        row[b] = b;
      for (a = 1; a <= len; a++)
        {
          size_t diagonal = row[0];
          row[0] = a;
          for (b = 1; b <= n; b++)
            {
              size_t above = row[b];
              size_t cost = ascii_lower ((unsigned char) word[a - 1]) == names[i][b - 1] ? 0 : 1;
              size_t v = diagonal + cost;
              if (row[b] + 1 < v)
                v = row[b] + 1;
              if (row[b - 1] + 1 < v)
                v = row[b - 1] + 1;
              row[b] = v;
              diagonal = above;
            }
        }
      if (row[n] < best_distance)
        {
          best_distance = row[n];
          best = names[i];
        }
    }
  return best;
}


static const char *const kind_names[] = {
  "dense", "conv2d", "maxpool", "maxpool2d", "max_pooling2d", "avgpool", "avgpool2d",
  "average_pooling2d", "flatten", "dropout", "activation", "relu", "sigmoid", "tanh", "softmax",
  "linear", NULL,
};

static const char *const activation_names[] = {
  "relu", "sigmoid", "tanh", "softmax", "linear", NULL,
};

static bool
activation_from_word (const char *s, size_t len, NnActivation *out)
{
  static const NnActivation all[] = {
    NN_ACT_LINEAR, NN_ACT_RELU, NN_ACT_SIGMOID, NN_ACT_TANH, NN_ACT_SOFTMAX,
  };
  size_t i;
  for (i = 0; i < sizeof all / sizeof all[0]; i++)
    if (word_is (s, len, nn_activation_name (all[i])))
      {
        *out = all[i];
        return true;
      }
  return false;
}

typedef enum
{
  KIND_UNKNOWN,
  KIND_LAYER,
  KIND_BARE_ACTIVATION,
} KindMatch;

static KindMatch
kind_from_word (const char *s, size_t len, NnLayerKind *kind, NnActivation *act)
{
  if (word_is (s, len, "dense"))
    *kind = NN_LAYER_DENSE;
  else if (word_is (s, len, "conv2d") || word_is (s, len, "convolution2d"))
    *kind = NN_LAYER_CONV2D;
  else if (word_is (s, len, "maxpool") || word_is (s, len, "maxpool2d")
           || word_is (s, len, "max_pooling2d") || word_is (s, len, "maxpooling2d"))
    *kind = NN_LAYER_MAXPOOL2D;
  else if (word_is (s, len, "avgpool") || word_is (s, len, "avgpool2d")
           || word_is (s, len, "average_pooling2d") || word_is (s, len, "averagepooling2d"))
    *kind = NN_LAYER_AVGPOOL2D;
  else if (word_is (s, len, "flatten"))
    *kind = NN_LAYER_FLATTEN;
  else if (word_is (s, len, "dropout"))
    *kind = NN_LAYER_DROPOUT;
  else if (word_is (s, len, "activation"))
    *kind = NN_LAYER_ACTIVATION;
  else if (activation_from_word (s, len, act))
    {
      *kind = NN_LAYER_ACTIVATION;
      return KIND_BARE_ACTIVATION;
    }
  else
    return KIND_UNKNOWN;
  return KIND_LAYER;
}

/* What one layer's parser needs for its messages. */
typedef struct
{
  int number;                     /* 1-based */
  char text[QUOTE_LAYER_MAX + 8]; /* the layer as written, quoted */
  NnError *error;
} LayerCtx;

static NnStatus layer_error (LayerCtx *ctx, const char *format, ...) NN_PRINTF (2, 3);

/* "layer 2 ('dense x'): " and what is wrong with it; po/meson.build has
 * xgettext take the formats given here, as those of _nn_error_set. */
static NnStatus
layer_error (LayerCtx *ctx, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  _nn_error_setv (ctx->error, NN_ERROR_SPEC, format, args);
  va_end (args);
  _nn_error_prefix (ctx->error, "layer %d (%s)", ctx->number, ctx->text);
  return NN_ERROR_SPEC;
}

/* A word quoted for a message. */
typedef struct
{
  char s[QUOTE_WORD_MAX + 8];
} Quoted;

static Quoted
q_word (const Word *w)
{
  Quoted q;
  quote (q.s, sizeof q.s, w->text, w->text_len, QUOTE_WORD_MAX);
  return q;
}

static Quoted
q_value (const Word *w)
{
  Quoted q;
  quote (q.s, sizeof q.s, w->value, w->value_len, QUOTE_WORD_MAX);
  return q;
}

/* Which settings a layer has seen, to refuse one given twice. */
enum
{
  SEEN_FIRST = 1 << 0, /* units / filters / window / rate */
  SEEN_KERNEL = 1 << 1,
  SEEN_ACT = 1 << 2,
  SEEN_STRIDE = 1 << 3,
  SEEN_PADDING = 1 << 4,
};

static NnStatus
set_activation (LayerCtx *ctx, const Word *w, const char *s, size_t len, unsigned *seen,
                NnLayerSpec *layer)
{
  NnActivation act;
  const char *near;
  if (!activation_from_word (s, len, &act))
    {
      near = closest_name (s, len, activation_names);
      if (near != NULL)
        return layer_error (ctx, "'%s' is not an activation (did you mean '%s'?); known: relu, "
                                 "sigmoid, tanh, softmax, linear",
                            q_word (w).s, near);
      return layer_error (ctx, "'%s' is not an activation; known: relu, sigmoid, tanh, softmax, "
                               "linear",
                          q_word (w).s);
    }
  if (*seen & SEEN_ACT)
    return layer_error (ctx, "'%s': the activation is given twice", q_word (w).s);
  *seen |= SEEN_ACT;
  layer->activation = act;
  return NN_OK;
}

/* What a count or a size sets: its messages are whole sentences, each
 * translated as one. */
typedef enum
{
  COUNT_UNITS,
  COUNT_FILTERS,
} Count;

typedef enum
{
  PAIR_KERNEL,
  PAIR_POOL,
  PAIR_STRIDE,
} Pair;

static NnStatus
set_count (LayerCtx *ctx, const Word *w, const char *s, size_t len, Count what, int32_t *out)
{
  switch (parse_count (s, len, SPEC_MAX_UNITS, out))
    {
    case NUM_OK:
      return NN_OK;
    case NUM_TOO_LARGE:
      if (what == COUNT_FILTERS)
        return layer_error (ctx, "'%s' is too many filters (at most %d)", q_word (w).s,
                            SPEC_MAX_UNITS);
      return layer_error (ctx, "'%s' is too many units (at most %d)", q_word (w).s,
                          SPEC_MAX_UNITS);
    case NUM_BAD:
      break;
    }
  if (what == COUNT_FILTERS)
    return layer_error (ctx, "'%s' is not a positive whole number of filters", q_word (w).s);
  return layer_error (ctx, "'%s' is not a positive whole number of units", q_word (w).s);
}

static NnStatus
set_pair (LayerCtx *ctx, const Word *w, const char *s, size_t len, Pair what, int32_t max,
          int32_t *a, int32_t *b)
{
  switch (parse_pair (s, len, max, a, b))
    {
    case NUM_OK:
      return NN_OK;
    case NUM_TOO_LARGE:
      switch (what)
        {
        case PAIR_KERNEL:
          return layer_error (ctx, "'%s': the kernel size is larger than %d", q_word (w).s, max);
        case PAIR_POOL:
          return layer_error (ctx, "'%s': the pool size is larger than %d", q_word (w).s, max);
        case PAIR_STRIDE:
          return layer_error (ctx, "'%s': the stride is larger than %d", q_word (w).s, max);
        }
      break;
    case NUM_BAD:
      break;
    }
  switch (what)
    {
    case PAIR_KERNEL:
      return layer_error (ctx, "'%s' is not a kernel size (a positive whole number N or NxM, "
                               "e.g. 3 or 3x3)",
                          q_word (w).s);
    case PAIR_POOL:
      return layer_error (ctx, "'%s' is not a pool size (a positive whole number N or NxM, "
                               "e.g. 3 or 3x3)",
                          q_word (w).s);
    case PAIR_STRIDE:
      break;
    }
  return layer_error (ctx, "'%s' is not a stride (a positive whole number N or NxM, e.g. 3 or "
                           "3x3)",
                      q_word (w).s);
}

static NnStatus
set_padding (LayerCtx *ctx, const Word *w, unsigned *seen, NnLayerSpec *layer)
{
  if (*seen & SEEN_PADDING)
    return layer_error (ctx, "'%s': the padding is given twice", q_word (w).s);
  *seen |= SEEN_PADDING;
  if (word_is (w->value, w->value_len, "valid"))
    layer->padding = NN_PADDING_VALID;
  else if (word_is (w->value, w->value_len, "same"))
    layer->padding = NN_PADDING_SAME;
  else
    return layer_error (ctx, "'%s' is not a padding (valid or same)", q_value (w).s);
  return NN_OK;
}

static NnStatus
set_stride (LayerCtx *ctx, const Word *w, unsigned *seen, NnLayerSpec *layer)
{
  if (*seen & SEEN_STRIDE)
    return layer_error (ctx, "'%s': the stride is given twice", q_word (w).s);
  *seen |= SEEN_STRIDE;
  return set_pair (ctx, w, w->value, w->value_len, PAIR_STRIDE, SPEC_MAX_STRIDE, &layer->stride_h,
                   &layer->stride_w);
}

static NnStatus
set_rate (LayerCtx *ctx, const Word *w, const char *s, size_t len, NnLayerSpec *layer)
{
  double rate;
  if (!parse_real (s, len, &rate))
    return layer_error (ctx, "'%s' is not a dropout rate (a number from 0 up to, not including, 1)",
                        q_word (w).s);
  if (!(rate >= 0.0 && rate < 1.0) || !((float) rate < 1.0f))
    return layer_error (ctx, "'%s': the dropout rate must be at least 0 and below 1",
                        q_word (w).s);
  layer->rate = (float) rate + 0.0f; /* "-0" is 0 */
  return NN_OK;
}

/* An example of a named setting of `kind` ("padding=same"), or NULL when
 * `kind` has no such setting. */
static const char *
setting_example (NnLayerKind kind, const char *k, size_t kl)
{
  bool conv = kind == NN_LAYER_CONV2D;
  bool pool = kind == NN_LAYER_MAXPOOL2D || kind == NN_LAYER_AVGPOOL2D;

  if (word_is (k, kl, "activation")
      && (kind == NN_LAYER_DENSE || conv || kind == NN_LAYER_ACTIVATION))
    return "activation=relu";
  if ((conv || pool) && (word_is (k, kl, "stride") || word_is (k, kl, "strides")))
    return "stride=2";
  if ((conv || pool) && word_is (k, kl, "padding"))
    return "padding=same";
  if (kind == NN_LAYER_DENSE && word_is (k, kl, "units"))
    return "units=128";
  if (conv && word_is (k, kl, "filters"))
    return "filters=32";
  if (conv && (word_is (k, kl, "kernel_size") || word_is (k, kl, "kernel")))
    return "kernel_size=3x3";
  if (pool && (word_is (k, kl, "pool_size") || word_is (k, kl, "pool")))
    return "pool_size=2";
  if (kind == NN_LAYER_DROPOUT && word_is (k, kl, "rate"))
    return "rate=0.5";
  return NULL;
}

/* Parse the words after the kind. `kind_word` is the kind as written. */
static NnStatus
parse_layer_words (LayerCtx *ctx, const Word *kind_word, bool bare, const char *pos,
                   const char *end, NnLayerSpec *layer)
{
  const char *kind = nn_layer_kind_name (layer->kind);
  unsigned seen = 0;
  Word w;
  NnStatus status;

  while (next_word (&pos, end, &w))
    {
      bool conv = layer->kind == NN_LAYER_CONV2D;
      bool pool = layer->kind == NN_LAYER_MAXPOOL2D || layer->kind == NN_LAYER_AVGPOOL2D;
      const char *example;

      if (w.has_value && w.key_len == 0)
        return layer_error (ctx, "'%s' has no setting name before '='", q_word (&w).s);
      if (bare || layer->kind == NN_LAYER_FLATTEN)
        return layer_error (ctx, "'%s' is unexpected: %s takes nothing more", q_word (&w).s,
                            bare ? nn_activation_name (layer->activation) : kind);

      example = setting_example (layer->kind, w.key, w.key_len);
      if (!w.has_value && example != NULL)
        return layer_error (ctx, "'%s' needs a value, e.g. '%s'", q_word (&w).s, example);
      if (!w.has_value && (conv || pool) && (seen & (conv ? SEEN_KERNEL : SEEN_FIRST))
          && (word_is (w.key, w.key_len, "same") || word_is (w.key, w.key_len, "valid")))
        {
          /* "conv2d 32 3 relu same": the padding without its name. */
          Word named = w;
          named.value = w.key;
          named.value_len = w.key_len;
          status = set_padding (ctx, &named, &seen, layer);
          if (status != NN_OK)
            return status;
          continue;
        }

      if (w.has_value)
        {
          const char *k = w.key;
          size_t kl = w.key_len;

          if (example == NULL)
            {
              Quoted key;
              quote (key.s, sizeof key.s, w.key, w.key_len, QUOTE_WORD_MAX);
              return layer_error (ctx, "'%s' is not a setting of %s", key.s, kind);
            }
          if (w.value_len == 0)
            return layer_error (ctx, "'%s' needs a value after '=', e.g. '%s'", q_word (&w).s,
                                example);

          if (word_is (k, kl, "activation"))
            status = set_activation (ctx, &w, w.value, w.value_len, &seen, layer);
          else if (word_is (k, kl, "stride") || word_is (k, kl, "strides"))
            status = set_stride (ctx, &w, &seen, layer);
          else if (word_is (k, kl, "padding"))
            status = set_padding (ctx, &w, &seen, layer);
          else
            {
              unsigned bit = (conv && (word_is (k, kl, "kernel_size") || word_is (k, kl, "kernel")))
                               ? SEEN_KERNEL
                               : SEEN_FIRST;
              if (seen & bit)
                return layer_error (ctx, "'%s': this setting is given twice", q_word (&w).s);
              seen |= bit;
              if (layer->kind == NN_LAYER_DENSE)
                status = set_count (ctx, &w, w.value, w.value_len, COUNT_UNITS, &layer->units);
              else if (bit == SEEN_KERNEL)
                status = set_pair (ctx, &w, w.value, w.value_len, PAIR_KERNEL, SPEC_MAX_KERNEL,
                                   &layer->kernel_h, &layer->kernel_w);
              else if (conv)
                status = set_count (ctx, &w, w.value, w.value_len, COUNT_FILTERS, &layer->filters);
              else if (pool)
                status = set_pair (ctx, &w, w.value, w.value_len, PAIR_POOL, SPEC_MAX_KERNEL,
                                   &layer->kernel_h, &layer->kernel_w);
              else
                status = set_rate (ctx, &w, w.value, w.value_len, layer);
            }
          if (status != NN_OK)
            return status;
          continue;
        }

      /* A word without '=': positional, in the order the kind takes them. */
      switch (layer->kind)
        {
        case NN_LAYER_DENSE:
          if (!(seen & SEEN_FIRST))
            {
              seen |= SEEN_FIRST;
              status = set_count (ctx, &w, w.key, w.key_len, COUNT_UNITS, &layer->units);
            }
          else
            status = set_activation (ctx, &w, w.key, w.key_len, &seen, layer);
          break;
        case NN_LAYER_CONV2D:
          if (!(seen & SEEN_FIRST))
            {
              seen |= SEEN_FIRST;
              status = set_count (ctx, &w, w.key, w.key_len, COUNT_FILTERS, &layer->filters);
            }
          else if (!(seen & SEEN_KERNEL))
            {
              seen |= SEEN_KERNEL;
              status = set_pair (ctx, &w, w.key, w.key_len, PAIR_KERNEL, SPEC_MAX_KERNEL,
                                 &layer->kernel_h, &layer->kernel_w);
            }
          else
            status = set_activation (ctx, &w, w.key, w.key_len, &seen, layer);
          break;
        case NN_LAYER_MAXPOOL2D:
        case NN_LAYER_AVGPOOL2D:
          if (!(seen & SEEN_FIRST))
            {
              seen |= SEEN_FIRST;
              status = set_pair (ctx, &w, w.key, w.key_len, PAIR_POOL, SPEC_MAX_KERNEL,
                                 &layer->kernel_h, &layer->kernel_w);
            }
          else
            status = layer_error (ctx, "'%s' is unexpected: %s takes a window size, "
                                       "stride= and padding=",
                                  q_word (&w).s, kind);
          break;
        case NN_LAYER_DROPOUT:
          if (!(seen & SEEN_FIRST))
            {
              seen |= SEEN_FIRST;
              status = set_rate (ctx, &w, w.key, w.key_len, layer);
            }
          else
            status = layer_error (ctx, "'%s' is unexpected: dropout takes one rate",
                                  q_word (&w).s);
          break;
        case NN_LAYER_ACTIVATION:
          status = set_activation (ctx, &w, w.key, w.key_len, &seen, layer);
          break;
        case NN_LAYER_FLATTEN:
        default:
          status = layer_error (ctx, "'%s' is unexpected", q_word (&w).s);
          break;
        }
      if (status != NN_OK)
        return status;
    }

  /* What each kind cannot do without. */
  switch (layer->kind)
    {
    case NN_LAYER_DENSE:
      if (!(seen & SEEN_FIRST))
        return layer_error (ctx, "dense needs a number of units, e.g. 'dense 128 relu'");
      break;
    case NN_LAYER_CONV2D:
      if (!(seen & SEEN_FIRST))
        return layer_error (ctx, "conv2d needs a number of filters and a kernel size, "
                                 "e.g. 'conv2d 32 3x3 relu'");
      if (!(seen & SEEN_KERNEL))
        return layer_error (ctx, "conv2d needs a kernel size after the filters, "
                                 "e.g. 'conv2d 32 3x3 relu'");
      if (!(seen & SEEN_STRIDE))
        layer->stride_h = layer->stride_w = 1;
      break;
    case NN_LAYER_MAXPOOL2D:
    case NN_LAYER_AVGPOOL2D:
      if (!(seen & SEEN_FIRST))
        return layer_error (ctx, "'%s' needs a window size, e.g. '%s 2'",
                            q_word (kind_word).s, kind);
      if (!(seen & SEEN_STRIDE))
        {
          layer->stride_h = layer->kernel_h;
          layer->stride_w = layer->kernel_w;
        }
      break;
    case NN_LAYER_DROPOUT:
      if (!(seen & SEEN_FIRST))
        return layer_error (ctx, "dropout needs a rate, e.g. 'dropout 0.25'");
      break;
    case NN_LAYER_ACTIVATION:
      if (!bare && !(seen & SEEN_ACT))
        return layer_error (ctx, "activation needs a function: relu, sigmoid, tanh, softmax "
                                 "or linear");
      break;
    case NN_LAYER_FLATTEN:
      break;
    }
  return NN_OK;
}

static NnStatus
parse_layer (int number, const char *start, const char *end, NnLayerSpec *layer, NnError *error)
{
  LayerCtx ctx;
  const char *pos = start;
  const char *trim_end = end;
  Word kind_word;
  NnActivation act = NN_ACT_LINEAR;
  KindMatch match;

  while (trim_end > start && is_space ((unsigned char) trim_end[-1]))
    trim_end--;
  while (start < trim_end && is_space ((unsigned char) *start))
    start++;
  ctx.number = number;
  ctx.error = error;
  quote (ctx.text, sizeof ctx.text, start, (size_t) (trim_end - start), QUOTE_LAYER_MAX);

  memset (layer, 0, sizeof *layer);
  if (!next_word (&pos, end, &kind_word))
    return layer_error (&ctx, "empty layer"); /* callers skip blank layers */
  if (kind_word.has_value || kind_word.key_len == 0)
    return layer_error (&ctx, "'%s' is not a layer kind; a layer starts with one of: %s",
                        q_word (&kind_word).s, known_kinds);

  match = kind_from_word (kind_word.key, kind_word.key_len, &layer->kind, &act);
  if (match == KIND_UNKNOWN)
    {
      const char *near = closest_name (kind_word.key, kind_word.key_len, kind_names);
      if (near != NULL)
        return layer_error (&ctx, "'%s' is not a layer kind (did you mean '%s'?); known kinds: %s",
                            q_word (&kind_word).s, near, known_kinds);
      return layer_error (&ctx, "'%s' is not a layer kind; known kinds: %s",
                          q_word (&kind_word).s, known_kinds);
    }
  if (match == KIND_BARE_ACTIVATION)
    layer->activation = act;
  return parse_layer_words (&ctx, &kind_word, match == KIND_BARE_ACTIVATION, pos, end, layer);
}

NnStatus
nn_spec_parse (const char *text, NnSpec **out, NnError *error)
{
  NnSpec *spec;
  int32_t capacity = 0;
  const char *p;

  if (out == NULL)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "nn_spec_parse: no place for the result");
  *out = NULL;
  if (text == NULL)
    return _nn_error_set (error, NN_ERROR_SPEC, "the model spec is empty");

  spec = calloc (1, sizeof *spec);
  if (spec == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for the model spec");

  p = text;
  while (*p != '\0')
    {
      const char *start = p;
      const char *end;
      const char *q;
      NnStatus status;

      while (*p != '\0' && !is_separator ((unsigned char) *p))
        p++;
      end = p;
      if (*p != '\0')
        p++;

      /* Blank layers (";;", a trailing ';', empty lines) are allowed. */
      for (q = start; q < end && is_space ((unsigned char) *q); q++)
        ;
      if (q == end)
        continue;

      if (spec->count >= SPEC_MAX_LAYERS)
        {
          nn_spec_free (spec);
          return _nn_error_set (error, NN_ERROR_SPEC, "the model has more than %d layers",
                                SPEC_MAX_LAYERS);
        }
      if (spec->count == capacity)
        {
          int32_t grown = capacity == 0 ? 8 : capacity * 2;
          NnLayerSpec *layers = realloc (spec->layers, (size_t) grown * sizeof *layers);
          if (layers == NULL)
            {
              nn_spec_free (spec);
              return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for the model spec");
            }
          spec->layers = layers;
          capacity = grown;
        }
      status = parse_layer (spec->count + 1, start, end, &spec->layers[spec->count], error);
      if (status != NN_OK)
        {
          nn_spec_free (spec);
          return status;
        }
      spec->count++;
    }

  if (spec->count == 0)
    {
      nn_spec_free (spec);
      return _nn_error_set (error, NN_ERROR_SPEC,
                            "the model spec is empty; write layers separated by ';', "
                            "e.g. 'flatten; dense 128 relu; dense 10 softmax'");
    }
  *out = spec;
  return NN_OK;
}

void
nn_spec_free (NnSpec *spec)
{
  if (spec == NULL)
    return;
  free (spec->layers);
  free (spec);
}

/* ---------------------------------------------------------------- format */

static void
format_pair (Writer *w, int32_t a, int32_t b)
{
  if (a == b)
    writer_add (w, "%d", (int) a);
  else
    writer_add (w, "%dx%d", (int) a, (int) b);
}

static void
format_layer (Writer *w, const NnLayerSpec *l)
{
  switch (l->kind)
    {
    case NN_LAYER_DENSE:
      writer_add (w, "dense %d", (int) l->units);
      if (l->activation != NN_ACT_LINEAR)
        writer_add (w, " %s", nn_activation_name (l->activation));
      return;
    case NN_LAYER_CONV2D:
      writer_add (w, "conv2d %d ", (int) l->filters);
      format_pair (w, l->kernel_h, l->kernel_w);
      if (l->activation != NN_ACT_LINEAR)
        writer_add (w, " %s", nn_activation_name (l->activation));
      if (l->stride_h != 1 || l->stride_w != 1)
        {
          writer_add (w, " stride=");
          format_pair (w, l->stride_h, l->stride_w);
        }
      if (l->padding == NN_PADDING_SAME)
        writer_add (w, " padding=same");
      return;
    case NN_LAYER_MAXPOOL2D:
    case NN_LAYER_AVGPOOL2D:
      writer_add (w, "%s ", nn_layer_kind_name (l->kind));
      format_pair (w, l->kernel_h, l->kernel_w);
      if (l->stride_h != l->kernel_h || l->stride_w != l->kernel_w)
        {
          writer_add (w, " stride=");
          format_pair (w, l->stride_h, l->stride_w);
        }
      if (l->padding == NN_PADDING_SAME)
        writer_add (w, " padding=same");
      return;
    case NN_LAYER_FLATTEN:
      writer_add (w, "flatten");
      return;
    case NN_LAYER_DROPOUT:
      writer_add (w, "dropout ");
      format_rate (w, l->rate);
      return;
    case NN_LAYER_ACTIVATION:
      writer_add (w, "%s", nn_activation_name (l->activation));
      return;
    }
  writer_add (w, "unknown");
}

size_t
_nn_layer_spec_format (const NnLayerSpec *layer, char *out, size_t size)
{
  Writer w;

  writer_init (&w, out, size);
  format_layer (&w, layer);
  return w.len;
}

size_t
nn_spec_format (const NnSpec *spec, char *out, size_t size)
{
  Writer w;
  int32_t i;

  writer_init (&w, out, size);
  if (spec == NULL)
    return 0;
  for (i = 0; i < spec->count; i++)
    {
      if (i > 0)
        writer_add (&w, "; ");
      format_layer (&w, &spec->layers[i]);
    }
  return w.len;
}

/* ---------------------------------------------------------------- shapes */

/* "(32, 26, 26)" (channels, height, width) or "(128)". */
static const char *
shape_text (NnShape s, char *buf, size_t size)
{
  if (s.rank == 3)
    snprintf (buf, size, "(%d, %d, %d)", (int) s.c, (int) s.h, (int) s.w);
  else
    snprintf (buf, size, "(%d)", (int) s.c);
  return buf;
}

/* a * b, or -1 when either is negative or the product leaves int64. */
static int64_t
mul_checked (int64_t a, int64_t b)
{
  if (a < 0 || b < 0)
    return -1;
  if (a != 0 && b > INT64_MAX / a)
    return -1;
  return a * b;
}

static bool
activation_valid (NnActivation act)
{
  return act >= NN_ACT_LINEAR && act <= NN_ACT_SOFTMAX;
}

/* Output side of a window over `in` (Keras' rules); 0 when it does not fit. */
static int64_t
window_out (int64_t in, int64_t k, int64_t s, NnPadding padding)
{
  if (padding == NN_PADDING_SAME)
    return (in + s - 1) / s;
  if (in < k)
    return 0;
  return (in - k) / s + 1;
}

static NnStatus
infer_window (const NnLayerSpec *spec, NnShape in, NnShape *out, NnError *error)
{
  char buf[64];
  int64_t oh, ow;
  bool conv = spec->kind == NN_LAYER_CONV2D;

  if ((spec->kernel_h < 1 || spec->kernel_w < 1 || spec->kernel_h > SPEC_MAX_KERNEL
       || spec->kernel_w > SPEC_MAX_KERNEL) && conv)
    return _nn_error_set (error, NN_ERROR_SPEC, "kernel size %dx%d is not between 1 and %d",
                          (int) spec->kernel_h, (int) spec->kernel_w, SPEC_MAX_KERNEL);
  if (spec->kernel_h < 1 || spec->kernel_w < 1 || spec->kernel_h > SPEC_MAX_KERNEL
      || spec->kernel_w > SPEC_MAX_KERNEL)
    return _nn_error_set (error, NN_ERROR_SPEC, "window size %dx%d is not between 1 and %d",
                          (int) spec->kernel_h, (int) spec->kernel_w, SPEC_MAX_KERNEL);
  if (spec->stride_h < 1 || spec->stride_w < 1 || spec->stride_h > SPEC_MAX_STRIDE
      || spec->stride_w > SPEC_MAX_STRIDE)
    return _nn_error_set (error, NN_ERROR_SPEC, "stride %dx%d is not between 1 and %d",
                          (int) spec->stride_h, (int) spec->stride_w, SPEC_MAX_STRIDE);
  if (spec->padding != NN_PADDING_VALID && spec->padding != NN_PADDING_SAME)
    return _nn_error_set (error, NN_ERROR_SPEC, "padding must be valid or same");
  if (in.rank != 3)
    return _nn_error_set (error, NN_ERROR_SHAPE,
                          "needs a 3-D input (channels, height, width), got %s; "
                          "%s cannot follow flatten or dense",
                          shape_text (in, buf, sizeof buf), nn_layer_kind_name (spec->kind));

  oh = window_out (in.h, spec->kernel_h, spec->stride_h, spec->padding);
  ow = window_out (in.w, spec->kernel_w, spec->stride_w, spec->padding);
  if ((oh < 1 || ow < 1) && conv)
    return _nn_error_set (error, NN_ERROR_SHAPE,
                          "the %dx%d kernel does not fit the input %s (channels, height, width): "
                          "the output would be empty; use a smaller kernel or padding=same",
                          (int) spec->kernel_h, (int) spec->kernel_w,
                          shape_text (in, buf, sizeof buf));
  if (oh < 1 || ow < 1)
    return _nn_error_set (error, NN_ERROR_SHAPE,
                          "the %dx%d window does not fit the input %s (channels, height, width): "
                          "the output would be empty; use a smaller window or padding=same",
                          (int) spec->kernel_h, (int) spec->kernel_w,
                          shape_text (in, buf, sizeof buf));
  out->rank = 3;
  out->c = in.c;
  out->h = (int32_t) oh;
  out->w = (int32_t) ow;
  return NN_OK;
}

NnStatus
_nn_layer_infer (const NnLayerSpec *spec, NnShape in, NnShape *out, int64_t *params,
                 NnError *error)
{
  char buf[64];
  NnShape o = in;
  int64_t p = 0;
  NnStatus status;

  if (spec == NULL || out == NULL)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "no layer or output given");
  if ((in.rank != 1 && in.rank != 3) || in.c < 1 || in.h < 1 || in.w < 1
      || (in.rank == 1 && (in.h != 1 || in.w != 1)))
    return _nn_error_set (error, NN_ERROR_SHAPE, "the input shape is not valid (rank %d, %d, %d, %d)",
                          (int) in.rank, (int) in.c, (int) in.h, (int) in.w);

  switch (spec->kind)
    {
    case NN_LAYER_DENSE:
      if (spec->units < 1 || spec->units > SPEC_MAX_UNITS)
        return _nn_error_set (error, NN_ERROR_SPEC, "units must be between 1 and %d, got %d",
                              SPEC_MAX_UNITS, (int) spec->units);
      if (!activation_valid (spec->activation))
        return _nn_error_set (error, NN_ERROR_SPEC, "the activation is not valid");
      if (in.rank != 1)
        return _nn_error_set (error, NN_ERROR_SHAPE,
                              "needs a 1-D input (features), got %s (channels, height, width); "
                              "add 'flatten' before it",
                              shape_text (in, buf, sizeof buf));
      o.rank = 1;
      o.c = spec->units;
      o.h = o.w = 1;
      /* kernel (in, units) + bias (units) */
      p = mul_checked (in.c, spec->units);
      if (p >= 0)
        p += spec->units;
      break;

    case NN_LAYER_CONV2D:
      if (spec->filters < 1 || spec->filters > SPEC_MAX_UNITS)
        return _nn_error_set (error, NN_ERROR_SPEC, "filters must be between 1 and %d, got %d",
                              SPEC_MAX_UNITS, (int) spec->filters);
      if (!activation_valid (spec->activation))
        return _nn_error_set (error, NN_ERROR_SPEC, "the activation is not valid");
      status = infer_window (spec, in, &o, error);
      if (status != NN_OK)
        return status;
      o.c = spec->filters;
      /* kernel (filters, c, kh, kw) + bias (filters) */
      p = mul_checked (mul_checked (mul_checked (spec->filters, in.c), spec->kernel_h),
                       spec->kernel_w);
      if (p >= 0)
        p += spec->filters;
      break;

    case NN_LAYER_MAXPOOL2D:
    case NN_LAYER_AVGPOOL2D:
      status = infer_window (spec, in, &o, error);
      if (status != NN_OK)
        return status;
      break;

    case NN_LAYER_FLATTEN:
      if (in.rank == 3)
        {
          o.rank = 1;
          o.c = _nn_shape_size (in) > SHAPE_MAX_SIZE ? 0 : (int32_t) _nn_shape_size (in);
          o.h = o.w = 1;
          if (o.c == 0)
            return _nn_error_set (error, NN_ERROR_SHAPE, "the input %s has more than %d values",
                                  shape_text (in, buf, sizeof buf), SHAPE_MAX_SIZE);
        }
      break;

    case NN_LAYER_DROPOUT:
      if (!(spec->rate >= 0.0f && spec->rate < 1.0f))
        return _nn_error_set (error, NN_ERROR_SPEC, "the dropout rate must be at least 0 and below 1");
      break;

    case NN_LAYER_ACTIVATION:
      if (!activation_valid (spec->activation))
        return _nn_error_set (error, NN_ERROR_SPEC, "the activation is not valid");
      break;

    default:
      return _nn_error_set (error, NN_ERROR_SPEC, "unknown layer kind %d", (int) spec->kind);
    }

  if (spec->activation == NN_ACT_SOFTMAX && o.rank != 1
      && (spec->kind == NN_LAYER_ACTIVATION || spec->kind == NN_LAYER_CONV2D))
    return _nn_error_set (error, NN_ERROR_SHAPE,
                          "softmax needs a 1-D input (features), got %s (channels, height, "
                          "width); add 'flatten' before it",
                          shape_text (o, buf, sizeof buf));
  if (p < 0)
    return _nn_error_set (error, NN_ERROR_SHAPE, "too many parameters for input %s",
                          shape_text (in, buf, sizeof buf));
  if (_nn_shape_size (o) > SHAPE_MAX_SIZE)
    return _nn_error_set (error, NN_ERROR_SHAPE, "the output %s has more than %d values",
                          shape_text (o, buf, sizeof buf), SHAPE_MAX_SIZE);
  *out = o;
  if (params != NULL)
    *params = p;
  return NN_OK;
}

void
_nn_layer_padding (const NnLayerSpec *spec, NnShape in, NnShape out, int32_t *pad_h,
                   int32_t *pad_w)
{
  int64_t th = 0, tw = 0;

  if (spec != NULL && spec->padding == NN_PADDING_SAME
      && (spec->kind == NN_LAYER_CONV2D || spec->kind == NN_LAYER_MAXPOOL2D
          || spec->kind == NN_LAYER_AVGPOOL2D))
    {
      /* TF's rule: the odd pixel of padding goes to the bottom/right. */
      th = ((int64_t) out.h - 1) * spec->stride_h + spec->kernel_h - in.h;
      tw = ((int64_t) out.w - 1) * spec->stride_w + spec->kernel_w - in.w;
      th = th > 0 ? th / 2 : 0;
      tw = tw > 0 ? tw / 2 : 0;
    }
  if (pad_h != NULL)
    *pad_h = (int32_t) th;
  if (pad_w != NULL)
    *pad_w = (int32_t) tw;
}

NnStatus
nn_spec_infer (const NnSpec *spec, NnInputShape input, NnLayerInfo *infos,
               int64_t *total_params, NnError *error)
{
  /* How many of each Keras name came before, for "dense_1". */
  int counts[NN_LAYER_ACTIVATION + 1] = { 0 };
  NnShape shape;
  int64_t total = 0;
  int32_t i;

  if (total_params != NULL)
    *total_params = 0;
  if (spec == NULL || spec->count < 1 || spec->layers == NULL)
    return _nn_error_set (error, NN_ERROR_SPEC, "the model has no layers");
  if (input.channels < 1 || input.height < 1 || input.width < 1)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "input shape (%d, %d, %d) (channels, height, width): every side must "
                          "be at least 1",
                          (int) input.channels, (int) input.height, (int) input.width);
  shape.rank = 3;
  shape.c = input.channels;
  shape.h = input.height;
  shape.w = input.width;
  if (_nn_shape_size (shape) > SHAPE_MAX_SIZE)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "input shape (%d, %d, %d) has more than %d values", (int) shape.c,
                          (int) shape.h, (int) shape.w, SHAPE_MAX_SIZE);

  for (i = 0; i < spec->count; i++)
    {
      const NnLayerSpec *l = &spec->layers[i];
      NnShape next;
      int64_t params = 0;
      NnStatus status = _nn_layer_infer (l, shape, &next, &params, error);

      if (status != NN_OK)
        {
          _nn_error_prefix (error, "layer %d (%s)", (int) i + 1, nn_layer_kind_name (l->kind));
          return status;
        }
      if (params > INT64_MAX - total)
        return _nn_error_set (error, NN_ERROR_SHAPE, "layer %d (%s): too many parameters in all",
                              (int) i + 1, nn_layer_kind_name (l->kind));
      total += params;

      if (infos != NULL)
        {
          NnLayerInfo *info = &infos[i];
          int n = counts[l->kind]++;
          memset (info, 0, sizeof *info);
          info->spec = *l;
          info->rank = next.rank;
          info->dims[0] = next.c;
          if (next.rank == 3)
            {
              info->dims[1] = next.h;
              info->dims[2] = next.w;
            }
          info->params = params;
          if (n == 0)
            snprintf (info->name, sizeof info->name, "%s", keras_name (l->kind));
          else
            snprintf (info->name, sizeof info->name, "%s_%d", keras_name (l->kind), n);
        }
      shape = next;
    }
  if (total_params != NULL)
    *total_params = total;
  return NN_OK;
}

int32_t
_nn_spec_outputs (const NnLayerInfo *last)
{
  int64_t size = last->dims[0];

  for (int32_t d = 1; d < last->rank && d < 3; d++)
    size *= last->dims[d];
  return (int32_t) size;
}

NnStatus
_nn_spec_check_outputs (const NnLayerInfo *last, int32_t classes, NnError *error)
{
  char shape[64];

  if (last->rank == 1 && _nn_spec_outputs (last) == classes)
    return NN_OK;
  if (last->rank == 3)
    snprintf (shape, sizeof shape, "(%d, %d, %d)", last->dims[0], last->dims[1], last->dims[2]);
  else
    snprintf (shape, sizeof shape, "%d outputs", last->dims[0]);
  return _nn_error_set (error, NN_ERROR_SHAPE,
                        "the model ends in %s but the data set has %d classes; end it with "
                        "dense %d softmax",
                        shape, classes, classes);
}

/* Checked from the data set's shape only, so a front end can refuse a run
 * before loading anything; the trainer checks the loaded data set through
 * the same _nn_spec_check_outputs. */
NnStatus
nn_spec_check_data (const NnSpec *spec, const NnDatasetInfo *data, NnError *error)
{
  NnInputShape input;
  NnLayerInfo *infos;
  NnStatus status;

  if (data == NULL)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "no data set to check against");
  if (spec == NULL || spec->count < 1 || spec->layers == NULL)
    return _nn_error_set (error, NN_ERROR_SPEC, "the model has no layers");
  input.channels = data->channels;
  input.height = data->height;
  input.width = data->width;
  infos = calloc ((size_t) spec->count, sizeof *infos);
  if (infos == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory");
  status = nn_spec_infer (spec, input, infos, NULL, error);
  if (status == NN_OK)
    {
      const NnLayerInfo *last = &infos[spec->count - 1];
      /* labels that look damaged: the trainer names the sample */
      bool doubt = last->rank == 1 && _nn_spec_outputs (last) < data->classes
                   && data->labels_used < data->classes;
      if (!doubt)
        status = _nn_spec_check_outputs (last, data->classes, error);
    }
  free (infos);
  return status;
}

/* ---------------------------------------------------------------- summary */

/* 1199882 -> "1,199,882" */
static void
group_thousands (int64_t v, char *buf, size_t size)
{
  char digits[32];
  size_t n, i, j = 0;
  snprintf (digits, sizeof digits, "%lld", (long long) v);
  n = strlen (digits);
  for (i = 0; i < n && j + 1 < size; i++)
    {
      if (i > 0 && digits[i - 1] != '-' && (n - i) % 3 == 0)
        {
          buf[j++] = ',';
          if (j + 1 >= size)
            break;
        }
      buf[j++] = digits[i];
    }
  buf[j] = '\0';
}

#define SUMMARY_RULE "______________________________________________________________________\n"
#define SUMMARY_DOUBLE_RULE "======================================================================\n"

size_t
nn_spec_summary (const NnSpec *spec, NnInputShape input, char *out, size_t size)
{
  Writer w;
  NnLayerInfo *infos;
  NnError error;
  int64_t total = 0;
  char total_text[40];
  int32_t i;

  writer_init (&w, out, size);
  if (spec == NULL || spec->count < 1 || spec->layers == NULL)
    {
      writer_add (&w, "the model has no layers\n");
      return w.len;
    }
  infos = calloc ((size_t) spec->count, sizeof *infos);
  if (infos == NULL)
    {
      writer_add (&w, "out of memory for the summary\n");
      return w.len;
    }
  nn_error_clear (&error);
  if (nn_spec_infer (spec, input, infos, &total, &error) != NN_OK)
    {
      writer_add (&w, "%s: %s\n", nn_status_name (error.code), error.message);
      free (infos);
      return w.len;
    }

  writer_add (&w, "Model: \"sequential\"\n");
  writer_add (&w, SUMMARY_RULE);
  writer_add (&w, " %-31s %-25s %s\n", "Layer (type)", "Output Shape", "Param #");
  writer_add (&w, SUMMARY_DOUBLE_RULE);
  for (i = 0; i < spec->count; i++)
    {
      const NnLayerInfo *info = &infos[i];
      char layer[80];
      char shape[80];
      if (info->rank == 3)
        /* Keras shows channels last. */
        snprintf (shape, sizeof shape, "(None, %d, %d, %d)", (int) info->dims[1],
                  (int) info->dims[2], (int) info->dims[0]);
      else
        snprintf (shape, sizeof shape, "(None, %d)", (int) info->dims[0]);
      snprintf (layer, sizeof layer, "%s (%s)", info->name, keras_type (info->spec.kind));
      writer_add (&w, " %-31s %-25s %lld\n", layer, shape, (long long) info->params);
    }
  writer_add (&w, SUMMARY_DOUBLE_RULE);
  group_thousands (total, total_text, sizeof total_text);
  writer_add (&w, "Total params: %s\n", total_text);
  writer_add (&w, "Trainable params: %s\n", total_text);
  writer_add (&w, "Non-trainable params: 0\n");
  writer_add (&w, SUMMARY_RULE);
  free (infos);
  return w.len;
}
