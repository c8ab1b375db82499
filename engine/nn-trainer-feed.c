/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-trainer-feed.c: where a training run's batches come from, in the three
 * ways NnConditions.data names: gathered on the device from the training
 * set uploaded once (device), or gathered on the host and copied every step
 * from page-locked (pinned) or pageable memory; each epoch's shuffled order,
 * and the test set's batches.
 */

#include "nn-trainer-private.h"

#include <stdlib.h>
#include <string.h>

/* Pixels are bytes; a batch holds them as floats in [0, 1]. */
#define PIXEL_SCALE (1.0f / 255.0f)

/* ---------------------------------------------------------------- set-up */

static NnStatus
upload_new (NnTrainRun *run, const void *src, size_t bytes, const char *what, void **out,
            NnError *error)
{
  NnStatus status = _nn_model_alloc (run->model, bytes, what,
                                     "the data set does not fit on this device", out, error);
  if (status != NN_OK || bytes == 0)
    return status;
  return _nn_model_check (run->model, run->ops->upload (run->backend->ctx, *out, src, bytes), what,
                          error);
}

/* The host buffer a batch is gathered into when the data stays on the
 * host (NN_DATA_PINNED: page-locked, host_alloc; NN_DATA_PAGEABLE: malloc),
 * made once: (batch, sample) floats, the labels, the one-hot targets. */
static NnStatus
staging_new (NnTrainRun *run, NnError *error)
{
  NnTrainFeed *feed = &run->feed;
  NnModel *model = run->model;
  size_t rows = (size_t) model->batch_size;
  size_t x_bytes = rows * (size_t) run->sample_size * sizeof (float);
  size_t label_bytes = (rows * sizeof (int32_t) + 63) / 64 * 64;
  bool sparse = run->config->loss == NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY;
  size_t target_bytes = sparse ? 0 : rows * (size_t) model->classes * sizeof (float);
  size_t bytes = (x_bytes + 63) / 64 * 64 + label_bytes + target_bytes;

  if (feed->data == NN_DATA_PINNED)
    {
      if (run->ops->host_alloc == NULL)
        return _nn_error_set (error, NN_ERROR_UNAVAILABLE,
                              "%s: this device has no page-locked host memory for batches "
                              "from pinned memory; use pageable",
                              model->device_name);
      NnStatus status = _nn_model_check (model, run->ops->host_alloc (run->backend->ctx, bytes,
                                                                      &feed->staging),
                                         "page-locked memory for the batches", error);
      if (status != NN_OK)
        {
          feed->staging = NULL;
          return status;
        }
    }
  else if ((feed->staging = malloc (bytes)) == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for the batches' host buffer");
  feed->stage_x = feed->staging;
  feed->stage_labels = (int32_t *) ((char *) feed->staging + (x_bytes + 63) / 64 * 64);
  feed->stage_targets = sparse ? NULL
                               : (float *) ((char *) feed->stage_labels + label_bytes);
  return NN_OK;
}

NnStatus
_nn_feed_setup (NnTrainRun *run, NnError *error)
{
  NnTrainFeed *feed = &run->feed;
  const NnDataset *ds = run->dataset;
  NnModel *model = run->model;
  size_t sample = (size_t) run->sample_size;
  int32_t *ident_host;
  void *ptr;
  NnStatus status;

  /* the training set, resident on the device for the whole run, or a
   * host buffer its batches are gathered into */
  if (feed->data == NN_DATA_DEVICE)
    {
      status = upload_new (run, ds->train.images, sample * (size_t) ds->train.count,
                           "the training images", &ptr, error);
      if (status != NN_OK)
        return status;
      feed->train_images = ptr;
      status = upload_new (run, ds->train.labels, (size_t) ds->train.count,
                           "the training labels", &ptr, error);
      if (status != NN_OK)
        return status;
      feed->train_labels = ptr;
    }
  else
    {
      status = staging_new (run, error);
      if (status != NN_OK)
        return status;
    }
  feed->host_perm = malloc (sizeof (int32_t) * (size_t) ds->train.count);
  if (feed->host_perm == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for the sample order");
  /* the test set, unless the run is not evaluated: a sweep's point then
   * copies nothing it does not use */
  if (!run->config->skip_evaluation)
    {
      status = upload_new (run, ds->test.images, sample * (size_t) ds->test.count,
                           "the test images", &ptr, error);
      if (status != NN_OK)
        return status;
      feed->test_images = ptr;
      status = upload_new (run, ds->test.labels, (size_t) ds->test.count, "the test labels",
                           &ptr, error);
      if (status != NN_OK)
        return status;
      feed->test_labels = ptr;

      ident_host = malloc (sizeof (int32_t) * (size_t) ds->test.count);
      if (ident_host == NULL)
        return _nn_error_set (error, NN_ERROR_NO_MEMORY, "out of memory for the sample order");
      for (int32_t i = 0; i < ds->test.count; i++)
        ident_host[i] = i;
      status = upload_new (run, ident_host, sizeof (int32_t) * (size_t) ds->test.count,
                           "the test order", &ptr, error);
      free (ident_host);
      if (status != NN_OK)
        return status;
      feed->ident = ptr;
    }
  if (feed->data == NN_DATA_DEVICE)
    {
      status = _nn_model_alloc (model, sizeof (int32_t) * (size_t) ds->train.count,
                                "the training order", "the data set does not fit on this device",
                                &ptr, error);
      if (status != NN_OK)
        return status;
      feed->perm = ptr;
    }
  return NN_OK;
}

void
_nn_feed_free (NnTrainRun *run)
{
  NnTrainFeed *feed = &run->feed;
  const NnBackendOps *ops = run->ops;
  void *ctx = run->backend != NULL ? run->backend->ctx : NULL;

  if (ops != NULL)
    {
      void *buffers[] = { feed->train_images, feed->train_labels, feed->test_images,
                          feed->test_labels, feed->perm, feed->ident };
      for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        if (buffers[i] != NULL)
          ops->free (ctx, buffers[i]);
    }
  if (feed->staging != NULL)
    {
      if (feed->data == NN_DATA_PINNED && ops != NULL)
        ops->host_free (ctx, feed->staging);
      else
        free (feed->staging);
    }
  free (feed->host_perm);
}

/* ---------------------------------------------------------------- each epoch's order */

static void
shuffle (int32_t *perm, int32_t count, uint64_t seed, int32_t epoch)
{
  uint64_t state = seed * 0xD1B54A32D192ED03ull + (uint64_t) epoch * 0x9E3779B97F4A7C15ull;

  for (int32_t i = 0; i < count; i++)
    perm[i] = i;
  for (int32_t i = count - 1; i > 0; i--)
    {
      int32_t j = (int32_t) (_nn_splitmix64 (&state) % (uint64_t) (i + 1));
      int32_t t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
}

NnStatus
_nn_feed_epoch (NnTrainRun *run, int32_t epoch, NnError *error)
{
  NnTrainFeed *feed = &run->feed;
  size_t bytes = sizeof (int32_t) * (size_t) run->dataset->train.count;

  if (!feed->next_perm_ready)
    shuffle (feed->host_perm, run->dataset->train.count, run->config->seed, epoch);
  feed->next_perm_ready = false;
  if (feed->data != NN_DATA_DEVICE)
    return NN_OK;
  /* the order's upload is the step's "copy" part (the only one with the
   * data set resident) */
  int back = _nn_clock_enter (NN_BREAKDOWN_COPY);
  int rc = run->ops->upload (run->backend->ctx, feed->perm, feed->host_perm, bytes);
  _nn_clock_leave (back);
  _nn_timing_copied (run, back, bytes);
  return _nn_model_check (run->model, rc, "uploading the sample order", error);
}

void
_nn_feed_order_ahead (NnTrainRun *run, int32_t epoch)
{
  NnTrainFeed *feed = &run->feed;

  if (feed->data != NN_DATA_DEVICE || feed->next_perm_ready)
    return;
  shuffle (feed->host_perm, run->dataset->train.count, run->config->seed, epoch);
  feed->next_perm_ready = true;
}

/* ---------------------------------------------------------------- batches */

NnStatus
_nn_feed_device_batch (NnTrainRun *run, int32_t n, NnError *error)
{
  NnTrainFeed *feed = &run->feed;
  NnModel *model = run->model;
  bool sparse = run->config->loss == NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY;

  if (feed->data != NN_DATA_DEVICE)
    return NN_OK;
  /* the batch's rows are picked by the device's step counter, so a
   * captured step gathers the next batch each time it is replayed */
  return _nn_model_check (model,
                          run->ops->gather_batch (run->backend->ctx, feed->train_images,
                                                  feed->train_labels, feed->perm, model->step,
                                                  run->steps_per_epoch, model->batch_size, n,
                                                  run->sample_size, PIXEL_SCALE, model->x,
                                                  model->labels,
                                                  sparse ? NULL : model->targets,
                                                  model->classes),
                          "gathering a batch", error);
}

/* From the host (data pinned or pageable): the rows of this epoch's order
 * gathered into the staging buffer as gather_batch forms them on the
 * device (the same floats, so on the CPU the very same training), then
 * copied into the model's batch buffers: without waiting from page-locked
 * memory, once the copy before has read it; with a copy that waits from
 * pageable memory, as Keras' feed_dict did. */
NnStatus
_nn_feed_host_batch (NnTrainRun *run, int32_t n, int32_t step_in_epoch, NnError *error)
{
  NnTrainFeed *feed = &run->feed;
  NnModel *model = run->model;
  const NnBackendOps *ops = run->ops;
  void *ctx = run->backend->ctx;
  const NnSplit *train = &run->dataset->train;
  const int32_t *rows = feed->host_perm + (size_t) step_in_epoch * (size_t) model->batch_size;
  size_t sample = (size_t) run->sample_size;
  bool pinned = feed->data == NN_DATA_PINNED;
  int (*copy) (void *, void *, const void *, size_t) = pinned ? ops->upload_async : ops->upload;
  NnStatus status;
  /* the wait for the copy before and the copies themselves: "copy" */
  int back;

  if (feed->data == NN_DATA_DEVICE)
    return NN_OK;
  if (pinned)
    {
      back = _nn_clock_enter (NN_BREAKDOWN_COPY);
      status = _nn_model_check (model, ops->upload_wait (ctx), "waiting for a batch's copy",
                                error);
      _nn_clock_leave (back);
      if (status != NN_OK)
        return status;
    }
  for (int32_t i = 0; i < n; i++)
    {
      const uint8_t *src = train->images + (size_t) rows[i] * sample;
      float *dst = feed->stage_x + (size_t) i * sample;
      for (size_t j = 0; j < sample; j++)
        dst[j] = (float) src[j] * PIXEL_SCALE;
      feed->stage_labels[i] = train->labels[rows[i]];
    }
  if (feed->stage_targets != NULL)
    {
      memset (feed->stage_targets, 0, sizeof (float) * (size_t) n * (size_t) model->classes);
      for (int32_t i = 0; i < n; i++)
        feed->stage_targets[(size_t) i * (size_t) model->classes + feed->stage_labels[i]] = 1.0f;
    }
  size_t x_bytes = sizeof (float) * (size_t) n * sample;
  size_t label_bytes = sizeof (int32_t) * (size_t) n;
  size_t target_bytes = feed->stage_targets != NULL
                          ? sizeof (float) * (size_t) n * (size_t) model->classes
                          : 0;
  back = _nn_clock_enter (NN_BREAKDOWN_COPY);
  status = _nn_model_check (model, copy (ctx, model->x, feed->stage_x, x_bytes),
                            "copying a batch to the device", error);
  if (status == NN_OK)
    status = _nn_model_check (model, copy (ctx, model->labels, feed->stage_labels, label_bytes),
                              "copying a batch's labels to the device", error);
  if (status == NN_OK && feed->stage_targets != NULL)
    status = _nn_model_check (model, copy (ctx, model->targets, feed->stage_targets,
                                           target_bytes),
                              "copying a batch's targets to the device", error);
  _nn_clock_leave (back);
  _nn_timing_copied (run, back, x_bytes + label_bytes + target_bytes);
  return status;
}

NnStatus
_nn_feed_test_batch (NnTrainRun *run, int32_t first, int32_t n, NnError *error)
{
  NnTrainFeed *feed = &run->feed;
  NnModel *model = run->model;
  bool sparse = run->config->loss == NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY;

  return _nn_model_check (model,
                          run->ops->gather_batch (run->backend->ctx, feed->test_images,
                                                  feed->test_labels, feed->ident + first, NULL, 0,
                                                  model->batch_size, n, run->sample_size,
                                                  PIXEL_SCALE, model->x, model->labels,
                                                  sparse ? NULL : model->targets,
                                                  model->classes),
                          "gathering a test batch", error);
}
