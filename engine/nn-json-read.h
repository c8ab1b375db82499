/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-json-read.h: a small JSON reader, private to the engine, for files
 * that come from other people (result files, sweep files).
 *
 * The whole text is parsed into one tree of nodes (a DOM) held in two
 * arrays, with bounds on everything a hostile file could blow up: nesting
 * (a 100,000-level file once crashed a JSON library; here it stops at
 * NN_JSON_READ_MAX_DEPTH), the file's size, a string's length and the node
 * count. The parser does not recurse. Every error names the file and the
 * byte offset where the text goes wrong.
 */
#pragma once

#include "nn-private.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NN_JSON_READ_MAX_DEPTH 64                  /* containers inside each other */
#define NN_JSON_READ_MAX_BYTES (16u * 1024 * 1024)  /* a whole file */
#define NN_JSON_READ_MAX_STRING (64u * 1024)        /* one string (or key), decoded */
/* values in one file: a result file holds a few thousand, a sweep file of
 * a thousand points some tens of thousands; a million nodes is 56 MiB */
#define NN_JSON_READ_MAX_NODES (1u << 20)

typedef enum
{
  NN_JSON_NULL,
  NN_JSON_BOOL,
  NN_JSON_NUMBER,
  NN_JSON_STRING,
  NN_JSON_ARRAY,
  NN_JSON_OBJECT,
} NnJsonKind;

/* One value. Children of an array or object are linked from `first` by
 * `next`; indices into the document's nodes, 0 for none (node 0 is the
 * root, never anyone's child). */
typedef struct
{
  NnJsonKind kind;
  uint32_t count;     /* an array's elements, an object's members */
  uint32_t first;     /* first child */
  uint32_t last;      /* last child, while parsing */
  uint32_t next;      /* next sibling */
  uint32_t key;       /* an object member's name: offset into strings; UINT32_MAX none */
  uint32_t text;      /* a string's text: offset into strings */
  uint32_t text_len;
  double number;
  bool boolean;
  size_t offset;      /* byte offset of the value in the file, for messages */
} NnJsonNode;

typedef struct NnJsonDoc
{
  NnJsonNode *nodes;  /* (n_nodes), owned; nodes[0] is the root */
  size_t n_nodes;
  size_t cap_nodes;
  char *strings;      /* (strings_len) NUL-terminated UTF-8 texts, owned */
  size_t strings_len;
  size_t cap_strings;
  char name[4096];    /* the file, for messages */
} NnJsonDoc;

/* Parse `size` bytes of `data`, named `name` in messages. NN_ERROR_FORMAT
 * names the file and the byte offset ("a.json: byte 12: expected ':' after
 * an object's key"); NN_ERROR_NO_MEMORY when the tree does not fit. A
 * UTF-8 byte order mark is skipped; text after the value is an error;
 * strings must be UTF-8 without NUL characters. Of keys given twice, the
 * last counts (as JavaScript's JSON.parse). */
NnStatus _nn_json_parse (const char *data, size_t size, const char *name, NnJsonDoc **out,
                         NnError *error);

/* Read a regular file (never waiting on a FIFO or reading a device) of at
 * most NN_JSON_READ_MAX_BYTES and parse it. */
NnStatus _nn_json_read_file (const char *path, NnJsonDoc **out, NnError *error);

void _nn_json_doc_free (NnJsonDoc *doc);

/* The root value. */
const NnJsonNode *_nn_json_root (const NnJsonDoc *doc);

/* An object's member by name, or NULL (also when `node` is NULL or not an
 * object). */
const NnJsonNode *_nn_json_get (const NnJsonDoc *doc, const NnJsonNode *node, const char *key);

/* The children of an array or object, in order: the first (NULL when none,
 * or `node` is NULL or not a container) and the one after `child`. */
const NnJsonNode *_nn_json_child (const NnJsonDoc *doc, const NnJsonNode *node);
const NnJsonNode *_nn_json_next (const NnJsonDoc *doc, const NnJsonNode *child);

/* A member's name, "" for an array's element. */
const char *_nn_json_key_of (const NnJsonDoc *doc, const NnJsonNode *node);

/* A string's text, or NULL when `node` is NULL or not a string. */
const char *_nn_json_string_of (const NnJsonDoc *doc, const NnJsonNode *node);

/* Members by name, with a fallback when missing or of another kind. */
const char *_nn_json_get_string (const NnJsonDoc *doc, const NnJsonNode *obj, const char *key,
                                 const char *fallback);
double _nn_json_get_number (const NnJsonDoc *doc, const NnJsonNode *obj, const char *key,
                            double fallback);
bool _nn_json_get_bool (const NnJsonDoc *doc, const NnJsonNode *obj, const char *key,
                        bool fallback);
