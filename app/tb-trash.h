/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-trash.h: result files moved to the trash so that Undo can put them
 * back, byte for byte.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _TbTrashed TbTrashed;

/* Read the file at `path` (a result file: at most TB_RUN_MAX_BYTES), then
 * move it to the trash. NULL, with an error that names the file, when it
 * cannot be read or there is no trash to take it: the file is then left
 * where it was, never deleted. */
TbTrashed *tb_trash_file (const char  *path,
                          GError     **error);

/* Where the file was. */
const char *tb_trashed_get_path (const TbTrashed *trashed);

/* Put the file back where it was: taken out of the trash where it is found
 * there with the contents it had, or else written again from those
 * contents. FALSE, with an error, when another file has taken its place or
 * the folder takes no file; the trash then still holds it. */
gboolean tb_trashed_restore (TbTrashed  *trashed,
                             GError    **error);

void tb_trashed_free (TbTrashed *trashed);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TbTrashed, tb_trashed_free)

G_END_DECLS
