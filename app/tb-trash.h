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

/* Put each of the n files back where it was: taken out of the home trash
 * where it is found there with the contents it had, or else written again
 * from those contents. restored[i] says whether trashed[i] came back; for
 * each that did not (another file has taken its place, the folder takes no
 * file: the trash then still holds it) a GError that names it is added to
 * `errors` (may be NULL). The home trash is read once for all of them;
 * this reads and writes the disk, so the app calls it in a worker. */
void tb_trash_restore (TbTrashed * const *trashed,
                       guint              n,
                       gboolean          *restored,
                       GPtrArray         *errors);

void tb_trashed_free (TbTrashed *trashed);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TbTrashed, tb_trashed_free)

G_END_DECLS
