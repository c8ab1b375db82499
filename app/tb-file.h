/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-file.h: the files a user names for the app to write (exports: charts,
 * tables, the report), written by the engine's rules for such files
 * (NnFileWriter in trainbench.h), as the CLI writes --out: whole or not at
 * all, a link followed and kept, a device or a FIFO that something reads
 * written through, a FIFO that nothing reads refused at once.
 */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "trainbench.h"

G_BEGIN_DECLS

/* `length` bytes of `data` (-1: up to its NUL) into `path`. */
gboolean tb_file_set_contents (const char  *path,
                               const char  *data,
                               gssize       length,
                               GError     **error);

/* A cairo_write_func_t whose closure is an NnFileWriter, for cairo's
 * *_for_stream and *_to_png_stream functions. */
cairo_status_t tb_file_cairo_write (void                *closure,
                                    const unsigned char *data,
                                    unsigned int         length);

/* After cairo wrote into `writer` through tb_file_cairo_write and ended
 * with `status`: commit the file, or give it up and say why (the write's
 * error, or cairo's). Frees the writer. */
gboolean tb_file_finish (NnFileWriter    *writer,
                         cairo_status_t   status,
                         const char      *path,
                         GError         **error);

/* An image surface as a PNG file. */
gboolean tb_file_write_png (cairo_surface_t  *surface,
                            const char       *path,
                            GError          **error);

G_END_DECLS
