/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-run-private.h: the bounded JSON and CSV helpers of tb-run.c, shared
 * with the sweep file's reader (tb-sweep.c): both read other people's files
 * and write tables a spreadsheet opens.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "tb-run.h"

G_BEGIN_DECLS

/* Why `data` cannot be parsed within bounds (nested deeper than
 * `max_depth`, more than `max_values` values, comments), or NULL. */
char *_tb_run_structure_problem (const char *data,
                                 gsize       length,
                                 guint       max_depth,
                                 guint       max_values);
/* `s` made UTF-8 and cut to at most `max` bytes, ending in "…". */
char *_tb_run_bounded_strdup (const char *s,
                              gsize       max);
/* A file's name for messages, on one line whatever its length. */
char *_tb_run_display_name (const char *path);
/* The member `name` of `o` when it is an object (borrowed), or NULL. */
JsonObject *_tb_run_json_object (JsonObject *o,
                                 const char *name);
/* The member `name` of `o` when it is a string, bounded to `max` bytes. */
char *_tb_run_json_string (JsonObject *o,
                           const char *name,
                           gsize       max);
/* A number (or boolean) node's value; FALSE for any other node. */
gboolean _tb_run_json_number (JsonNode *n,
                              double   *out);
/* A CSV cell after a comma: text quoted where needed and never taken for
 * a formula, or a number ("" when not finite). */
void _tb_run_csv_append_text (GString    *line,
                              const char *s);
void _tb_run_csv_append_number (GString *line,
                                double   v);
/* A "breakdown" object (o may be NULL: none) into `b`; parts of keys this
 * build does not know are left out, a part that is no number is not there. */
void _tb_run_read_breakdown (JsonObject  *o,
                             TbBreakdown *b);

G_END_DECLS
