/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-json.h: a small streaming JSON writer, private to the engine.
 *
 * Values go into a growing buffer, pretty-printed with two-space indents.
 * Errors (out of memory, unbalanced calls) are sticky: check _nn_json_ok
 * once at the end instead of after every call.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NN_JSON_MAX_DEPTH 32

typedef struct
{
  char *data;        /* (len + 1), NUL-terminated, owned */
  size_t len;
  size_t cap;
  int depth;         /* open containers */
  bool failed;       /* out of memory or misuse; sticky */
  bool after_key;    /* a key was written, its value comes next */
  bool has_member[NN_JSON_MAX_DEPTH]; /* a container has a member already */
  bool one_line[NN_JSON_MAX_DEPTH]; /* a container written on one line */
  bool object[NN_JSON_MAX_DEPTH];   /* an object (members need keys), not an array */
} NnJson;

void _nn_json_init (NnJson *json);
void _nn_json_free (NnJson *json);

/* True when nothing failed and every container was closed. */
bool _nn_json_ok (const NnJson *json);

void _nn_json_begin_object (NnJson *json);
void _nn_json_end_object (NnJson *json);
void _nn_json_begin_array (NnJson *json);
/* An array written on one line ("[12, 0.5]"), for short rows of numbers. */
void _nn_json_begin_array_inline (NnJson *json);
void _nn_json_end_array (NnJson *json);

/* A member name inside an object; the next call writes its value. */
void _nn_json_key (NnJson *json, const char *key);

/* Escaped; invalid UTF-8 becomes U+FFFD; NULL writes null. */
void _nn_json_string (NnJson *json, const char *value);
/* The same for a fixed-size field that may lack its NUL: at most max bytes. */
void _nn_json_string_bounded (NnJson *json, const char *value, size_t max);
void _nn_json_int (NnJson *json, int64_t value);
void _nn_json_uint (NnJson *json, uint64_t value);
/* Shortest text that reads back to the same double; NaN and infinities
 * (which JSON cannot hold) are written as null. */
void _nn_json_double (NnJson *json, double value);
/* The same for a float: shortest text that reads back to the same float. */
void _nn_json_float (NnJson *json, float value);
void _nn_json_bool (NnJson *json, bool value);
void _nn_json_null (NnJson *json);
