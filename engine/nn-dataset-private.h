/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-dataset-private.h: what the data set readers (nn-dataset.c, nn-idx.c,
 * nn-npz.c), their tests and the fuzzers share: from-memory parsers and the
 * place search with its system folder as a parameter.
 */
#pragma once

#include "nn-private.h"

/* Largest array a reader accepts, in bytes (MNIST's training images are 47 MB). */
#define NN_DATA_MAX_BYTES ((uint64_t) 1 << 31)

typedef enum
{
  NN_IDX_IMAGES, /* magic 0x00000803: unsigned bytes, (count, height, width) */
  NN_IDX_LABELS, /* magic 0x00000801: unsigned bytes, (count) */
} NnIdxKind;

/* One IDX file's contents. Labels have height = width = 1. */
typedef struct
{
  int32_t count;
  int32_t height;
  int32_t width;
  uint8_t *data; /* (count, height, width), owned */
} NnIdxArray;

/* Read an IDX file, gzip-compressed or raw (told apart by its first bytes).
 * Messages start with `path`. On failure *out is zeroed. */
NnStatus _nn_idx_read_file (const char *path, NnIdxKind kind, NnIdxArray *out, NnError *error);

/* Only the header of an IDX file: count, height and width, out->data NULL.
 * For a raw file it also checks that the file is as long as the header
 * says; a gzip stream is inflated only as far as the header. */
NnStatus _nn_idx_read_header (const char *path, NnIdxKind kind, NnIdxArray *out, NnError *error);

/* The same from `size` bytes in memory; `name` stands for the file in messages. */
NnStatus _nn_idx_parse_memory (const uint8_t *data,
                               size_t size,
                               const char *name,
                               NnIdxKind kind,
                               NnIdxArray *out,
                               NnError *error);

/* Parse a Keras-style .npz held in memory into `out`'s train and test splits
 * (name, path and classes are left to the caller). On failure both splits are
 * freed and zeroed. */
NnStatus _nn_npz_parse_memory (const uint8_t *data,
                               size_t size,
                               const char *name,
                               NnDataset *out,
                               NnError *error);

/* What a Keras-style .npz held in memory holds (into `out`'s shape,
 * counts and classes; name and path are left to the caller): its zip
 * directory, the .npy headers of the image arrays (inflated only that far)
 * and the labels. */
NnStatus _nn_npz_peek_memory (const uint8_t *data,
                              size_t size,
                              const char *name,
                              NnDatasetInfo *out,
                              NnError *error);

/* The same read from the .npz file at `path` (read whole: its directory is
 * at its end), with out's name and path set as nn_dataset_load_npz sets a
 * data set's. */
NnStatus _nn_npz_peek (const char *path, NnDatasetInfo *out, NnError *error);

/* Mark each of `count` labels in `seen` (256 flags, false at first). */
void _nn_labels_mark (bool seen[256], const uint8_t *labels, int32_t count);

/* `out`'s classes and labels_used from the labels marked in `seen`:
 * classes as a loaded data set counts them (1 + the largest, at least 2). */
void _nn_dataset_info_set_classes (NnDatasetInfo *out, const bool seen[256]);

/* Free a split's arrays and zero it. */
void _nn_split_clear (NnSplit *split);

/* 1 + the largest label of both splits, at least 2. */
int32_t _nn_dataset_count_classes (const NnDataset *dataset);

/* Find a well-known data set ("mnist", "fashion-mnist") in the usual places,
 * with `system_dir` standing for /usr/share/datasets (NULL: none). On success
 * `found` holds a folder of IDX files or an .npz file. On failure `looked`
 * lists the places searched, "; "-separated, with why each did not do. */
bool _nn_dataset_find (const char *name,
                       const char *system_dir,
                       char *found,
                       size_t found_size,
                       char *looked,
                       size_t looked_size);
