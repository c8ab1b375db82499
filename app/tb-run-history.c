/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-run-history.c: the runs folder as a list model (TbRunHistory, of
 * TbRunItem). Its result files are read in workers, a batch at a time,
 * each kept as a summary (tb_run_load_summary), so a folder of 50,000 runs
 * is listed while the window answers, in memory that grows with the number
 * of runs, not their files' sizes. The folder is watched (a GFileMonitor;
 * the files that changed are read once the changes pause); imports copy
 * files into it; runs go to the trash and come back with Undo
 * (tb-trash.c), the disk work of both in workers.
 */
#define G_LOG_DOMAIN "trainbench-run-history"

#include "tb-config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "tb-application.h"
#include "tb-run-history.h"
#include "tb-trash.h"

/* ------------------------------------------------------------ items */

struct _TbRunItem
{
  GObject parent_instance;

  /* owned: the summary and what a row shows of it */
  TbRun *run;
  char *labels[TB_RUN_N_LABELS];
  char *title;                   /* tb_run_title */
  char *details;                 /* tb_run_details */
  char *error_line;              /* tb_run_error_line, or NULL */
  char *started;                 /* tb_run_started_label, or NULL */
  char *search_text;             /* casefolded */

  /* state */
  guint digest;                  /* of the file's bytes: a rewrite that changes nothing is no change */
  guint generation;              /* the read of the folder that last found it (main thread) */
};

G_DEFINE_FINAL_TYPE (TbRunItem, tb_run_item, G_TYPE_OBJECT)

static void
tb_run_item_finalize (GObject *object)
{
  TbRunItem *self = TB_RUN_ITEM (object);

  g_clear_pointer (&self->run, tb_run_unref);
  for (int i = 0; i < TB_RUN_N_LABELS; i++)
    g_free (self->labels[i]);
  g_free (self->title);
  g_free (self->details);
  g_free (self->error_line);
  g_free (self->started);
  g_free (self->search_text);
  G_OBJECT_CLASS (tb_run_item_parent_class)->finalize (object);
}

static void
tb_run_item_class_init (TbRunItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = tb_run_item_finalize;
}

static void
tb_run_item_init (TbRunItem *self)
{
}

/* Worker thread: what is made here depends on the run alone, and is made
 * here once rather than each time a row shows the run. */
static TbRunItem *
item_new (TbRun *run,
          guint  digest)
{
  TbRunItem *self = g_object_new (TB_TYPE_RUN_ITEM, NULL);
  const char *title = self->title = tb_run_title (run);
  const char *details = self->details = tb_run_details (run);
  const char *error = self->error_line = tb_run_error_line (run);
  const char *started = self->started = tb_run_started_label (run);
  g_autofree char *base = g_path_get_basename (run->path);
  g_autofree char *text = NULL;
  gboolean completed = g_strcmp0 (run->status, "completed") == 0;
  gboolean cancelled = g_strcmp0 (run->status, "cancelled") == 0;

  self->run = tb_run_ref (run);
  self->digest = digest;
  self->labels[TB_RUN_LABEL_MODEL] = g_strdup (tb_run_model_label (run));
  self->labels[TB_RUN_LABEL_DATASET] = g_strdup (tb_run_dataset_label (run));
  self->labels[TB_RUN_LABEL_DEVICE] = tb_run_device_label (run);
  self->labels[TB_RUN_LABEL_OS] = tb_run_os_label (run);
  /* what the row shows, and what it says of itself without showing it */
  text = g_strjoin ("\n", title, details, error ? error : "", started ? started : "",
                    run->started_at ? run->started_at : "", run->status ? run->status : "",
                    completed ? _("completed") : cancelled ? _("cancelled") : _("failed"),
                    run->run_id ? run->run_id : "", run->spec ? run->spec : "", base, NULL);
  self->search_text = g_utf8_casefold (text, -1);
  return self;
}

TbRun *
tb_run_item_get_run (TbRunItem *self)
{
  g_return_val_if_fail (TB_IS_RUN_ITEM (self), NULL);
  return self->run;
}

const char *
tb_run_item_get_label (TbRunItem  *self,
                       TbRunLabel  label)
{
  g_return_val_if_fail (TB_IS_RUN_ITEM (self), NULL);
  g_return_val_if_fail (label < TB_RUN_N_LABELS, NULL);
  return self->labels[label];
}

const char *
tb_run_item_get_title (TbRunItem *self)
{
  g_return_val_if_fail (TB_IS_RUN_ITEM (self), NULL);
  return self->title;
}

const char *
tb_run_item_get_details (TbRunItem *self)
{
  g_return_val_if_fail (TB_IS_RUN_ITEM (self), NULL);
  return self->details;
}

const char *
tb_run_item_get_error_line (TbRunItem *self)
{
  g_return_val_if_fail (TB_IS_RUN_ITEM (self), NULL);
  return self->error_line;
}

const char *
tb_run_item_get_started (TbRunItem *self)
{
  g_return_val_if_fail (TB_IS_RUN_ITEM (self), NULL);
  return self->started;
}

const char *
tb_run_item_get_search_text (TbRunItem *self)
{
  g_return_val_if_fail (TB_IS_RUN_ITEM (self), NULL);
  return self->search_text;
}

static int
compare_items_cb (gconstpointer a,
                  gconstpointer b,
                  gpointer      user_data)
{
  return tb_run_compare (((const TbRunItem *) a)->run, ((const TbRunItem *) b)->run);
}

/* ------------------------------------------------------------ history */

typedef struct _Job Job;

struct _TbRunHistory
{
  GObject parent_instance;

  /* owned */
  GSettings *settings;
  GPtrArray *runs;               /* TbRunItem *, in tb_run_compare order */
  GHashTable *by_path;           /* char * (the item's run's path) -> TbRunItem * (runs' reference) */
  GHashTable *labels[TB_RUN_N_LABELS]; /* char * label -> the runs that have it (GUINT_TO_POINTER) */
  char *folder;                  /* the runs folder listed */
  GQueue *jobs;                  /* Job *: reads still to start, in order; NULL once disposed */
  GPtrArray *skipped;            /* GError *: files of the folder that are not readable results */
  GFileMonitor *monitor;         /* the folder's, or NULL */
  GHashTable *watch_changed;     /* char * paths in the folder changed since they were read */

  /* state */
  Job *job;                      /* the read in its worker (its GTask holds it), or NULL */
  guint generation;              /* of the folder's latest read */
  guint n_tasks;                 /* deletions, Undos and whole reads in their workers */
  guint watch_source;            /* the pause before `watch_changed` is read, or 0 */
  gint64 watch_first;            /* monotonic µs of the oldest change not read */
  gboolean loading;              /* the first read of the folder is under way */
};

static void tb_run_history_list_model_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (TbRunHistory, tb_run_history, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, tb_run_history_list_model_init))

enum
{
  PROP_0,
  PROP_LOADING,
  N_PROPS
};

static GParamSpec *props[N_PROPS];

enum
{
  SIGNAL_CHANGED,
  SIGNAL_FILES_SKIPPED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* A read's batch: at most this many files, or this long in the worker,
 * so that listing what it read keeps each turn of the main loop short. */
#define BATCH_FILES 256
#define BATCH_TIME (40 * G_TIME_SPAN_MILLISECOND)
/* While a read goes on, the runs read are listed as the first batch comes,
 * then once they are half as many as those listed, or this long after the
 * last listing: each listing binds the rows a list view keeps (GTK 4.8
 * keeps some two hundred) again, so they come in a few large steps. */
#define LIST_INTERVAL G_TIME_SPAN_SECOND
/* A burst of changes to the runs folder (a queue of runs ending, a copy of
 * many files) is read once it has been quiet this long, but never later
 * than WATCH_MAX_WAIT after its first change. */
#define WATCH_QUIET_MS 300
#define WATCH_MAX_WAIT (2 * G_USEC_PER_SEC)

static GType
tb_run_history_get_item_type (GListModel *model)
{
  return TB_TYPE_RUN_ITEM;
}

static guint
tb_run_history_get_n_items (GListModel *model)
{
  return TB_RUN_HISTORY (model)->runs->len;
}

static gpointer
tb_run_history_get_item (GListModel *model,
                         guint       position)
{
  GPtrArray *runs = TB_RUN_HISTORY (model)->runs;

  return position < runs->len ? g_object_ref (g_ptr_array_index (runs, position)) : NULL;
}

static void
tb_run_history_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = tb_run_history_get_item_type;
  iface->get_n_items = tb_run_history_get_n_items;
  iface->get_item = tb_run_history_get_item;
}

static void
set_loading (TbRunHistory *self,
             gboolean      loading)
{
  if (self->loading == loading)
    return;
  self->loading = loading;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_LOADING]);
}

/* ------------------------------------------------------------ the list */

/* Count the item's labels in (+1) or out (-1) of the history's. */
static void
count_labels (TbRunHistory *self,
              TbRunItem    *item,
              int           delta)
{
  for (int l = 0; l < TB_RUN_N_LABELS; l++)
    {
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (self->labels[l], item->labels[l])) + delta;

      if (n == 0)
        g_hash_table_remove (self->labels[l], item->labels[l]);
      else
        g_hash_table_insert (self->labels[l], g_strdup (item->labels[l]), GUINT_TO_POINTER (n));
    }
}

/* Where `item` is, or would be, in the order. */
static guint
position_of (TbRunHistory *self,
             TbRunItem    *item)
{
  guint lo = 0, hi = self->runs->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (compare_items_cb (g_ptr_array_index (self->runs, mid), item, NULL) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static void
insert_item (TbRunHistory *self,
             TbRunItem    *item)
{
  guint position = position_of (self, item);

  item->generation = self->generation;
  g_hash_table_insert (self->by_path, item->run->path, item);
  count_labels (self, item, 1);
  g_ptr_array_insert (self->runs, (int) position, g_object_ref (item));
  g_list_model_items_changed (G_LIST_MODEL (self), position, 0, 1);
}

static void
remove_item (TbRunHistory *self,
             TbRunItem    *item)
{
  guint position = position_of (self, item);

  g_assert (position < self->runs->len && g_ptr_array_index (self->runs, position) == item);
  g_hash_table_remove (self->by_path, item->run->path);
  count_labels (self, item, -1);
  g_ptr_array_remove_index (self->runs, position);
  g_list_model_items_changed (G_LIST_MODEL (self), position, 1, 0);
}

static void
remove_path (TbRunHistory *self,
             const char   *path)
{
  TbRunItem *item = g_hash_table_lookup (self->by_path, path);

  if (item != NULL)
    remove_item (self, item);
}

static void
remove_all (TbRunHistory *self)
{
  guint n = self->runs->len;

  g_hash_table_remove_all (self->by_path);
  for (int l = 0; l < TB_RUN_N_LABELS; l++)
    g_hash_table_remove_all (self->labels[l]);
  g_ptr_array_set_size (self->runs, 0);
  g_list_model_items_changed (G_LIST_MODEL (self), 0, n, 0);
}

static int
compare_item_ptrs_cb (gconstpointer a,
                      gconstpointer b)
{
  return compare_items_cb (*(TbRunItem * const *) a, *(TbRunItem * const *) b, NULL);
}

/* List the runs read from their files: a new one at its place, a file
 * read again in place of its old item (unless its bytes are the same).
 * The new ones go in together, as one change of the list: GTK 4.8's list
 * view binds its rows (some two hundred) to their runs again after any
 * change above them, and a change per run made a read of 10,000 runs bind
 * rows 400,000 times. */
static void
merge_items (TbRunHistory *self,
             GPtrArray    *items)
{
  g_autoptr(GPtrArray) added = g_ptr_array_new ();
  g_autoptr(GHashTable) adding = g_hash_table_new (NULL, NULL);
  g_autoptr(GPtrArray) merged = NULL;
  guint first = G_MAXUINT, last = 0;
  guint a = 0, b = 0;

  for (guint i = 0; i < items->len; i++)
    {
      TbRunItem *item = g_ptr_array_index (items, i);
      TbRunItem *old = g_hash_table_lookup (self->by_path, item->run->path);

      item->generation = self->generation;
      /* a file read twice (changed while a read went on): the first stands */
      if (old != NULL && g_hash_table_contains (adding, old))
        continue;
      if (old != NULL)
        {
          old->generation = self->generation;
          if (old->digest == item->digest)
            continue;   /* the same run (written by this window, or put back) */
          remove_item (self, old);
        }
      g_hash_table_add (adding, item);
      g_hash_table_insert (self->by_path, item->run->path, item);
      count_labels (self, item, 1);
      g_ptr_array_add (added, item);
    }
  if (added->len == 0)
    return;
  g_ptr_array_sort (added, compare_item_ptrs_cb);
  merged = g_ptr_array_new_full (self->runs->len + added->len, g_object_unref);
  while (a < self->runs->len || b < added->len)
    {
      if (b < added->len
          && (a == self->runs->len
              || compare_items_cb (g_ptr_array_index (added, b), g_ptr_array_index (self->runs, a), NULL) < 0))
        {
          first = MIN (first, merged->len);
          last = merged->len;
          g_ptr_array_add (merged, g_object_ref (g_ptr_array_index (added, b++)));
        }
      else
        g_ptr_array_add (merged, g_object_ref (g_ptr_array_index (self->runs, a++)));
    }
  g_ptr_array_unref (self->runs);
  self->runs = g_steal_pointer (&merged);
  g_list_model_items_changed (G_LIST_MODEL (self), first, last + 1 - first - added->len, last + 1 - first);
}

/* ------------------------------------------------------------ reads */

/* The history is read in workers, one read at a time and in the order
 * asked, so a reload, a new run, an import and a change seen in the
 * folder never race over the list. A read goes in batches: the worker
 * reads a batch of files (and copies imported ones), then the main thread
 * lists it and starts the next batch. */

typedef enum
{
  JOB_FOLDER,     /* the whole runs folder */
  JOB_FILES,      /* new result files: one saved run each */
  JOB_IMPORT,     /* files from elsewhere, checked and copied in */
  JOB_WATCH,      /* files of the folder that changed */
} JobKind;

struct _Job
{
  JobKind kind;
  char *folder;                  /* the runs folder when the read was asked */
  GPtrArray *paths;              /* char *: results; JOB_IMPORT: sources; JOB_FOLDER: filled by the worker */
  guint next;                    /* the paths read so far */
  gboolean listed;               /* JOB_FOLDER: the folder's names are in `paths` */
  GCancellable *cancellable;
  GWeakRef history;
  guint generation;              /* JOB_FOLDER: the read's */

  /* one batch, filled by the worker, taken on the main thread */
  GPtrArray *items;              /* TbRunItem * */
  GPtrArray *unlisted;           /* TbRunItem *: read, listed at the next LIST_INTERVAL */
  gint64 listed_at;              /* monotonic µs of the last listing */
  GPtrArray *gone;               /* char *: JOB_WATCH: files that are no more */
  GPtrArray *skipped;            /* GError *: unreadable files, each named with why */

  /* JOB_IMPORT, over all its batches */
  GTask *import_task;            /* the caller's, answered when the import is done */
  GPtrArray *imported;           /* TbRun * */
  GPtrArray *errors;             /* GError *: the files refused */
  guint copied;                  /* files new to the folder */
};

static void
job_free (Job *job)
{
  g_free (job->folder);
  g_clear_pointer (&job->paths, g_ptr_array_unref);
  g_clear_object (&job->cancellable);
  g_weak_ref_clear (&job->history);
  g_clear_pointer (&job->items, g_ptr_array_unref);
  g_clear_pointer (&job->unlisted, g_ptr_array_unref);
  g_clear_pointer (&job->gone, g_ptr_array_unref);
  g_clear_pointer (&job->skipped, g_ptr_array_unref);
  if (job->import_task != NULL)
    {
      g_task_return_new_error (job->import_task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                               "The history has gone");
      g_clear_object (&job->import_task);
    }
  g_clear_pointer (&job->imported, g_ptr_array_unref);
  g_clear_pointer (&job->errors, g_ptr_array_unref);
  g_free (job);
}

static Job *
job_new (TbRunHistory *self,
         JobKind       kind)
{
  Job *job = g_new0 (Job, 1);

  job->kind = kind;
  job->folder = g_strdup (self->folder);
  job->paths = g_ptr_array_new_with_free_func (g_free);
  job->cancellable = g_cancellable_new ();
  g_weak_ref_init (&job->history, self);
  job->items = g_ptr_array_new_with_free_func (g_object_unref);
  job->unlisted = g_ptr_array_new_with_free_func (g_object_unref);
  job->gone = g_ptr_array_new_with_free_func (g_free);
  job->skipped = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  job->imported = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_run_unref);
  job->errors = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  return job;
}

/* Worker thread: the folder's result files, by name (a missing folder
 * has none). */
static void
list_folder (Job *job)
{
  g_autoptr(GDir) dir = g_dir_open (job->folder, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (name, ".json"))
      g_ptr_array_add (job->paths, g_build_filename (job->folder, name, NULL));
}

/* Worker thread: the summary of a result file, as an item. */
static TbRunItem *
read_item (const char  *path,
           GError     **error)
{
  g_autoptr(GBytes) contents = NULL;
  g_autoptr(TbRun) run = NULL;

  if (!tb_run_read_file (path, &contents, error))
    return NULL;
  run = tb_run_load_summary (path, contents, error);
  if (run == NULL)
    return NULL;
  return item_new (run, g_bytes_hash (contents));
}

/* Worker thread: one batch of the job; touches the job only, never the
 * history. */
static void
batch_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  Job *job = task_data;
  gint64 start = g_get_monotonic_time ();

  if (job->kind == JOB_FOLDER && !job->listed)
    {
      list_folder (job);
      job->listed = TRUE;
    }
  for (guint n = 0; job->next < job->paths->len; n++)
    {
      const char *path = g_ptr_array_index (job->paths, job->next);
      GError *error = NULL;
      TbRunItem *item = NULL;

      if (g_task_return_error_if_cancelled (task))
        return;
      if (n >= BATCH_FILES || (n > 0 && g_get_monotonic_time () - start > BATCH_TIME))
        break;
      job->next++;
      switch (job->kind)
        {
        case JOB_FOLDER:
        case JOB_FILES:
          item = read_item (path, &error);
          if (item == NULL)
            g_ptr_array_add (job->skipped, error);
          break;
        case JOB_WATCH:
          /* a file that is no result yet may still be being written (a
           * copy): its next change is read again, and a read of the whole
           * folder says what is wrong with it */
          if (!g_file_test (path, G_FILE_TEST_EXISTS))
            g_ptr_array_add (job->gone, g_strdup (path));
          else
            item = read_item (path, NULL);
          break;
        case JOB_IMPORT:
        default:
          {
            gboolean copied = FALSE;
            g_autoptr(TbRun) run = tb_run_import (path, job->folder, &copied, &error);

            if (run == NULL)
              g_ptr_array_add (job->errors, error);
            else
              {
                g_autoptr(GBytes) contents = NULL;

                /* listed as the copy reads, which is what a watch of the
                 * folder reads too */
                if (tb_run_read_file (run->path, &contents, NULL))
                  item = item_new (run, g_bytes_hash (contents));
                g_ptr_array_add (job->imported, g_steal_pointer (&run));
              }
            job->copied += copied;
          }
          break;
        }
      if (item != NULL)
        g_ptr_array_add (job->items, item);
    }
  g_task_return_boolean (task, TRUE);
}

static void batch_done_cb (GObject      *object,
                           GAsyncResult *result,
                           gpointer      user_data);

static void
run_batch (Job *job)
{
  g_autoptr(GTask) task = g_task_new (NULL, job->cancellable, batch_done_cb, job);

  /* the job is the history's while a batch runs: freed when it ends */
  g_task_set_source_tag (task, run_batch);
  g_task_set_task_data (task, job, NULL);
  g_task_run_in_thread (task, batch_thread);
}

static void
start_next_job (TbRunHistory *self)
{
  Job *job;

  if (self->job != NULL || self->jobs == NULL)
    return;
  job = g_queue_pop_head (self->jobs);
  if (job == NULL)
    return;
  if (job->kind == JOB_FOLDER)
    {
      job->generation = ++self->generation;
      set_loading (self, self->runs->len == 0);
    }
  self->job = job;
  run_batch (job);
}

static void
queue_job (TbRunHistory *self,
           Job          *job)
{
  if (self->jobs == NULL)
    {
      job_free (job);   /* disposed */
      return;
    }
  g_queue_push_tail (self->jobs, job);
  start_next_job (self);
}

/* A whole read of the folder is done: the runs it did not find went. */
static void
folder_read (TbRunHistory *self,
             Job          *job)
{
  guint n = self->runs->len;
  guint kept = 0;

  for (guint i = 0; i < n; i++)
    {
      TbRunItem *item = g_ptr_array_index (self->runs, i);

      if (item->generation == job->generation)
        self->runs->pdata[kept++] = item;
      else
        {
          g_hash_table_remove (self->by_path, item->run->path);
          count_labels (self, item, -1);
          g_object_unref (item);
        }
    }
  self->runs->len = kept;
  if (kept < n)
    g_list_model_items_changed (G_LIST_MODEL (self), 0, n, kept);
  g_ptr_array_set_size (self->skipped, 0);
}

/* Take a batch on the main thread; TRUE when the job has more to read. */
static gboolean
take_batch (TbRunHistory *self,
            Job          *job)
{
  /* a read of a folder that is no longer the one listed lists nothing */
  gboolean here = g_strcmp0 (job->folder, self->folder) == 0;

  gboolean more = job->next < job->paths->len;
  gint64 now = g_get_monotonic_time ();

  for (guint i = 0; here && i < job->gone->len; i++)
    remove_path (self, g_ptr_array_index (job->gone, i));
  g_ptr_array_set_size (job->gone, 0);
  g_ptr_array_extend_and_steal (job->unlisted, g_steal_pointer (&job->items));
  job->items = g_ptr_array_new_with_free_func (g_object_unref);
  if (!more || job->listed_at == 0 || job->unlisted->len * 2 >= self->runs->len
      || now - job->listed_at >= LIST_INTERVAL)
    {
      if (here)
        merge_items (self, job->unlisted);
      g_ptr_array_set_size (job->unlisted, 0);
      job->listed_at = now;
    }
  return more;
}

static void
batch_done_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  Job *job = user_data;
  g_autoptr(TbRunHistory) self = g_weak_ref_get (&job->history);
  g_autoptr(GPtrArray) skipped = NULL;
  gboolean ok = g_task_propagate_boolean (G_TASK (result), NULL);

  if (self == NULL || self->jobs == NULL)
    {
      job_free (job);   /* the history is gone: its answer touches nothing */
      return;
    }
  g_assert (self->job == job);

  /* cancelled: a newer read of the folder replaces this one */
  if (ok && take_batch (self, job))
    {
      run_batch (job);
      return;
    }
  self->job = NULL;
  if (ok && job->kind == JOB_FOLDER)
    {
      folder_read (self, job);
      set_loading (self, FALSE);
    }
  if (ok && (job->kind == JOB_FOLDER || job->kind == JOB_FILES))
    {
      skipped = g_steal_pointer (&job->skipped);
      for (guint i = 0; i < skipped->len; i++)
        g_ptr_array_add (self->skipped, g_error_copy (g_ptr_array_index (skipped, i)));
    }
  if (job->import_task != NULL)
    {
      g_autoptr(GTask) task = g_steal_pointer (&job->import_task);

      g_task_set_task_data (task, job, (GDestroyNotify) job_free);
      g_task_return_boolean (task, TRUE);
    }
  else
    job_free (job);
  start_next_job (self);
  if (ok)
    {
      if (skipped != NULL && skipped->len > 0)
        g_signal_emit (self, signals[SIGNAL_FILES_SKIPPED], 0, skipped->len);
      g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
    }
}

/* ------------------------------------------------------------ watching */

/* Runs written by the CLI (or another window) while this one is open are
 * listed without a reload: the folder is watched, and the files that
 * changed read once the changes pause. A result comes whole (the engine
 * writes a temporary file and gives it its name when it is complete); any
 * other file is read again at its next change until it is a result. */

static void
stop_watching (TbRunHistory *self)
{
  if (self->monitor != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->monitor, self);
      g_file_monitor_cancel (self->monitor);
      g_clear_object (&self->monitor);
    }
  g_clear_handle_id (&self->watch_source, g_source_remove);
  if (self->watch_changed != NULL)
    g_hash_table_remove_all (self->watch_changed);
}

static gboolean
watch_read_cb (gpointer user_data)
{
  TbRunHistory *self = TB_RUN_HISTORY (user_data);
  Job *job = job_new (self, JOB_WATCH);
  GHashTableIter iter;
  gpointer key;

  self->watch_source = 0;
  g_hash_table_iter_init (&iter, self->watch_changed);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      g_ptr_array_add (job->paths, key);
      g_hash_table_iter_steal (&iter);
    }
  queue_job (self, job);
  return G_SOURCE_REMOVE;
}

static void
note_change (TbRunHistory *self,
             GFile        *file)
{
  g_autofree char *path = NULL;
  g_autofree char *base = NULL;
  gint64 now = g_get_monotonic_time ();

  if (file == NULL || (path = g_file_get_path (file)) == NULL)
    return;
  /* results only: not the engine's temporary "NAME.json.tmp-XXXXXX" */
  base = g_path_get_basename (path);
  if (!g_str_has_suffix (base, ".json") || base[0] == '.')
    return;
  g_hash_table_add (self->watch_changed, g_steal_pointer (&path));
  if (self->watch_source == 0)
    self->watch_first = now;
  else if (now - self->watch_first < WATCH_MAX_WAIT)
    g_clear_handle_id (&self->watch_source, g_source_remove);
  else
    return;   /* changes go on and on: read what there is now */
  self->watch_source = g_timeout_add (WATCH_QUIET_MS, watch_read_cb, self);
  g_source_set_name_by_id (self->watch_source, "[trainbench] runs folder changed");
}

static void
folder_changed_cb (GFileMonitor      *monitor,
                   GFile             *file,
                   GFile             *other,
                   GFileMonitorEvent  event,
                   TbRunHistory      *self)
{
  g_autoptr(GFile) folder = g_file_new_for_path (self->folder);

  /* the folder itself was made (the first run's, by the CLI, say) or went:
   * what is in it now is read whole */
  if (g_file_equal (file, folder))
    {
      if (event == G_FILE_MONITOR_EVENT_CREATED || event == G_FILE_MONITOR_EVENT_DELETED
          || event == G_FILE_MONITOR_EVENT_MOVED_IN || event == G_FILE_MONITOR_EVENT_MOVED_OUT)
        tb_run_history_reload (self);
      return;
    }
  switch (event)
    {
    case G_FILE_MONITOR_EVENT_RENAMED:
      note_change (self, file);
      note_change (self, other);
      break;
    case G_FILE_MONITOR_EVENT_CREATED:
    case G_FILE_MONITOR_EVENT_CHANGED:
    case G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT:
    case G_FILE_MONITOR_EVENT_DELETED:
    case G_FILE_MONITOR_EVENT_MOVED_IN:
    case G_FILE_MONITOR_EVENT_MOVED_OUT:
      note_change (self, file);
      break;
    case G_FILE_MONITOR_EVENT_ATTRIBUTE_CHANGED:
    case G_FILE_MONITOR_EVENT_PRE_UNMOUNT:
    case G_FILE_MONITOR_EVENT_UNMOUNTED:
    case G_FILE_MONITOR_EVENT_MOVED:
    default:
      break;
    }
}

/* Watch the folder listed (also before it exists: GIO sees it made). */
static void
watch_folder (TbRunHistory *self)
{
  g_autoptr(GFile) dir = g_file_new_for_path (self->folder);
  g_autoptr(GError) error = NULL;

  stop_watching (self);
  self->monitor = g_file_monitor_directory (dir, G_FILE_MONITOR_WATCH_MOVES, NULL, &error);
  if (self->monitor == NULL)
    {
      /* the history is still read at start and on F5 */
      g_message ("The runs folder %s is not watched: %s", self->folder, error->message);
      return;
    }
  g_signal_connect (self->monitor, "changed", G_CALLBACK (folder_changed_cb), self);
}

/* ------------------------------------------------------------ public */

static char *
chosen_folder (TbRunHistory *self)
{
  g_autofree char *folder = g_settings_get_string (self->settings, "runs-folder");
  char buf[4096];

  if (folder != NULL && *folder)
    return g_steal_pointer (&folder);
  nn_runs_dir (buf, sizeof buf);
  return g_strdup (buf);
}

const char *
tb_run_history_get_folder (TbRunHistory *self)
{
  g_return_val_if_fail (TB_IS_RUN_HISTORY (self), NULL);
  return self->folder;
}

void
tb_run_history_reload (TbRunHistory *self)
{
  g_autofree char *folder = NULL;
  GList *l, *next;

  g_return_if_fail (TB_IS_RUN_HISTORY (self));

  if (self->jobs == NULL)
    return;
  /* a whole-folder read supersedes the reads not yet begun (their files
   * are in the folder), the changes seen and not read yet, and the folder
   * read under way, which may be of a folder no longer chosen; imports
   * still copy their files */
  for (l = self->jobs->head; l != NULL; l = next)
    {
      Job *job = l->data;

      next = l->next;
      if (job->kind != JOB_IMPORT)
        {
          job_free (job);
          g_queue_delete_link (self->jobs, l);
        }
    }
  if (self->job != NULL && self->job->kind == JOB_FOLDER)
    g_cancellable_cancel (self->job->cancellable);
  folder = chosen_folder (self);
  if (g_strcmp0 (folder, self->folder) != 0)
    {
      /* another folder: none of the runs listed is in it */
      g_free (self->folder);
      self->folder = g_steal_pointer (&folder);
      remove_all (self);
      g_ptr_array_set_size (self->skipped, 0);
      watch_folder (self);
    }
  g_clear_handle_id (&self->watch_source, g_source_remove);
  g_hash_table_remove_all (self->watch_changed);
  queue_job (self, job_new (self, JOB_FOLDER));
}

void
tb_run_history_add (TbRunHistory *self,
                    const char   *path)
{
  Job *last;

  g_return_if_fail (TB_IS_RUN_HISTORY (self));
  g_return_if_fail (path != NULL);

  if (self->jobs == NULL)
    return;
  /* runs finishing one after the other join one read */
  last = g_queue_peek_tail (self->jobs);
  if (last == NULL || last->kind != JOB_FILES)
    {
      last = job_new (self, JOB_FILES);
      g_ptr_array_add (last->paths, g_strdup (path));
      queue_job (self, last);
      return;
    }
  g_ptr_array_add (last->paths, g_strdup (path));
}

TbRunItem *
tb_run_history_lookup (TbRunHistory *self,
                       const char   *path)
{
  g_return_val_if_fail (TB_IS_RUN_HISTORY (self), NULL);
  return path != NULL ? g_hash_table_lookup (self->by_path, path) : NULL;
}

TbRun *
tb_run_history_get_run (TbRunHistory *self,
                        guint         position)
{
  g_return_val_if_fail (TB_IS_RUN_HISTORY (self), NULL);

  if (position >= self->runs->len)
    return NULL;
  return ((TbRunItem *) g_ptr_array_index (self->runs, position))->run;
}

GPtrArray *
tb_run_history_get_labels (TbRunHistory *self,
                           TbRunLabel    label)
{
  GPtrArray *labels;
  GHashTableIter iter;
  gpointer key;

  g_return_val_if_fail (TB_IS_RUN_HISTORY (self), NULL);
  g_return_val_if_fail (label < TB_RUN_N_LABELS, NULL);

  labels = g_ptr_array_sized_new (g_hash_table_size (self->labels[label]));
  g_hash_table_iter_init (&iter, self->labels[label]);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (labels, key);
  return labels;
}

guint
tb_run_history_get_n_pending (TbRunHistory *self)
{
  g_return_val_if_fail (TB_IS_RUN_HISTORY (self), 0);
  return (self->jobs != NULL ? g_queue_get_length (self->jobs) : 0)
         + (self->job != NULL ? 1 : 0)
         + (self->watch_source != 0 ? 1 : 0)
         + self->n_tasks;
}

gboolean
tb_run_history_get_loading (TbRunHistory *self)
{
  g_return_val_if_fail (TB_IS_RUN_HISTORY (self), FALSE);
  return self->loading;
}

GPtrArray *
tb_run_history_get_skipped (TbRunHistory *self)
{
  g_return_val_if_fail (TB_IS_RUN_HISTORY (self), NULL);
  return self->skipped;
}

/* ------------------------------------------------------------ import */

void
tb_run_history_import_async (TbRunHistory         *self,
                             GFile               **files,
                             guint                 n_files,
                             GAsyncReadyCallback   callback,
                             gpointer              user_data)
{
  Job *job;

  g_return_if_fail (TB_IS_RUN_HISTORY (self));

  job = job_new (self, JOB_IMPORT);
  job->import_task = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (job->import_task, tb_run_history_import_async);
  for (guint i = 0; i < n_files; i++)
    {
      char *path = g_file_get_path (files[i]);

      if (path != NULL)
        g_ptr_array_add (job->paths, path);
    }
  queue_job (self, job);
}

GPtrArray *
tb_run_history_import_finish (TbRunHistory  *self,
                              GAsyncResult  *result,
                              guint         *n_copied,
                              GPtrArray    **errors)
{
  Job *job;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  if (!g_task_propagate_boolean (G_TASK (result), NULL))
    {
      if (n_copied != NULL)
        *n_copied = 0;
      if (errors != NULL)
        *errors = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
      return g_ptr_array_new_with_free_func ((GDestroyNotify) tb_run_unref);
    }
  job = g_task_get_task_data (G_TASK (result));
  if (n_copied != NULL)
    *n_copied = job->copied;
  if (errors != NULL)
    *errors = g_steal_pointer (&job->errors);
  return g_steal_pointer (&job->imported);
}

/* ------------------------------------------------------------ trash */

struct _TbDeletion
{
  GPtrArray *trashed;            /* TbTrashed * */
  GPtrArray *items;              /* TbRunItem *: the same runs, to list again (NULL: one not listed) */
};

static void
item_unref (gpointer item)
{
  if (item != NULL)
    g_object_unref (item);
}

static void
deletion_clear (TbDeletion *deletion)
{
  g_ptr_array_unref (deletion->trashed);
  g_ptr_array_unref (deletion->items);
}

TbDeletion *
tb_deletion_ref (TbDeletion *deletion)
{
  return g_atomic_rc_box_acquire (deletion);
}

void
tb_deletion_unref (TbDeletion *deletion)
{
  g_atomic_rc_box_release_full (deletion, (GDestroyNotify) deletion_clear);
}

guint
tb_deletion_get_n_runs (TbDeletion *deletion)
{
  g_return_val_if_fail (deletion != NULL, 0);
  return deletion->trashed->len;
}

/* The work of a deletion or an Undo, between its worker and the main
 * thread. */
typedef struct
{
  GPtrArray *runs;               /* TbRun *: asked to go */
  TbDeletion *deletion;          /* what went, or what to put back */
  GPtrArray *gone;               /* char *: the files that were no more */
  gboolean *restored;            /* Undo: each of deletion's back? */
  GPtrArray *errors;             /* GError * */
} Trash;

static void
trash_free (Trash *trash)
{
  g_clear_pointer (&trash->runs, g_ptr_array_unref);
  g_clear_pointer (&trash->deletion, tb_deletion_unref);
  g_clear_pointer (&trash->gone, g_ptr_array_unref);
  g_free (trash->restored);
  g_clear_pointer (&trash->errors, g_ptr_array_unref);
  g_free (trash);
}

static Trash *
trash_new (void)
{
  Trash *trash = g_new0 (Trash, 1);

  trash->gone = g_ptr_array_new_with_free_func (g_free);
  trash->errors = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  return trash;
}

/* Worker thread: each file read (kept for Undo), then moved to the
 * trash; one that is no more is only noted. */
static void
trash_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  Trash *trash = task_data;

  for (guint i = 0; i < trash->runs->len; i++)
    {
      TbRun *run = g_ptr_array_index (trash->runs, i);
      GError *error = NULL;
      TbTrashed *trashed;

      /* gone already (deleted elsewhere; the watcher is about to see it) */
      if (!g_file_test (run->path, G_FILE_TEST_EXISTS))
        {
          g_ptr_array_add (trash->gone, g_strdup (run->path));
          continue;
        }
      trashed = tb_trash_file (run->path, &error);
      if (trashed == NULL)
        {
          g_ptr_array_add (trash->errors, error);
          continue;
        }
      g_ptr_array_add (trash->deletion->trashed, trashed);
    }
  g_task_return_boolean (task, TRUE);
}

static void
trash_done_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  TbRunHistory *self = TB_RUN_HISTORY (object);
  GTask *outer = user_data;
  Trash *trash = g_task_get_task_data (G_TASK (result));

  self->n_tasks--;
  for (guint i = 0; i < trash->deletion->trashed->len; i++)
    {
      const char *path = tb_trashed_get_path (g_ptr_array_index (trash->deletion->trashed, i));
      TbRunItem *item = g_hash_table_lookup (self->by_path, path);

      /* kept for Undo as it was listed */
      if (item != NULL)
        {
          g_ptr_array_add (trash->deletion->items, g_object_ref (item));
          remove_item (self, item);
        }
      else
        g_ptr_array_add (trash->deletion->items, NULL);
    }
  for (guint i = 0; i < trash->gone->len; i++)
    remove_path (self, g_ptr_array_index (trash->gone, i));
  g_task_return_boolean (outer, TRUE);
  g_object_unref (outer);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

void
tb_run_history_trash_async (TbRunHistory        *self,
                            GPtrArray           *runs,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  GTask *outer;
  Trash *trash;

  g_return_if_fail (TB_IS_RUN_HISTORY (self));
  g_return_if_fail (runs != NULL);

  trash = trash_new ();
  trash->runs = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_run_unref);
  for (guint i = 0; i < runs->len; i++)
    g_ptr_array_add (trash->runs, tb_run_ref (g_ptr_array_index (runs, i)));
  trash->deletion = g_atomic_rc_box_new0 (TbDeletion);
  trash->deletion->trashed = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_trashed_free);
  trash->deletion->items = g_ptr_array_new_with_free_func (item_unref);

  outer = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (outer, tb_run_history_trash_async);
  g_task_set_task_data (outer, trash, (GDestroyNotify) trash_free);
  task = g_task_new (self, NULL, trash_done_cb, outer);
  g_task_set_task_data (task, trash, NULL);
  self->n_tasks++;
  g_task_run_in_thread (task, trash_thread);
}

TbDeletion *
tb_run_history_trash_finish (TbRunHistory  *self,
                             GAsyncResult  *result,
                             GPtrArray    **errors)
{
  Trash *trash;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  g_task_propagate_boolean (G_TASK (result), NULL);
  trash = g_task_get_task_data (G_TASK (result));
  if (errors != NULL)
    *errors = g_steal_pointer (&trash->errors);
  if (trash->deletion->trashed->len == 0)
    return NULL;
  return tb_deletion_ref (trash->deletion);
}

/* Is `path` in the folder listed? (A run deleted before another folder
 * was chosen is not.) */
static gboolean
in_folder (TbRunHistory *self,
           const char   *path)
{
  g_autoptr(GFile) dir = g_file_new_for_path (self->folder);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) parent = g_file_get_parent (file);

  return parent != NULL && g_file_equal (parent, dir);
}

/* Worker thread: the files back, the trash read once for all of them. */
static void
undo_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  Trash *trash = task_data;
  GPtrArray *trashed = trash->deletion->trashed;

  tb_trash_restore ((TbTrashed * const *) trashed->pdata, trashed->len, trash->restored, trash->errors);
  g_task_return_boolean (task, TRUE);
}

static void
undo_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  TbRunHistory *self = TB_RUN_HISTORY (object);
  GTask *outer = user_data;
  Trash *trash = g_task_get_task_data (G_TASK (result));
  TbDeletion *deletion = trash->deletion;

  self->n_tasks--;
  trash->runs = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_run_unref);
  /* from the last, so the indices of those still to look at stay */
  for (guint i = deletion->trashed->len; i > 0; i--)
    {
      TbRunItem *item = g_ptr_array_index (deletion->items, i - 1);

      if (!trash->restored[i - 1])
        continue;
      /* listed again when it is in the folder listed, unless the watcher
       * has listed it already */
      if (item != NULL)
        {
          g_ptr_array_insert (trash->runs, 0, tb_run_ref (item->run));
          if (!g_hash_table_contains (self->by_path, item->run->path) && in_folder (self, item->run->path))
            insert_item (self, item);
        }
      g_ptr_array_remove_index (deletion->trashed, i - 1);
      g_ptr_array_remove_index (deletion->items, i - 1);
    }
  g_task_return_boolean (outer, TRUE);
  g_object_unref (outer);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

void
tb_run_history_undo_async (TbRunHistory        *self,
                           TbDeletion          *deletion,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  GTask *outer;
  Trash *trash;

  g_return_if_fail (TB_IS_RUN_HISTORY (self));
  g_return_if_fail (deletion != NULL);

  trash = trash_new ();
  trash->deletion = tb_deletion_ref (deletion);
  trash->restored = g_new0 (gboolean, MAX (deletion->trashed->len, 1));
  outer = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (outer, tb_run_history_undo_async);
  g_task_set_task_data (outer, trash, (GDestroyNotify) trash_free);
  task = g_task_new (self, NULL, undo_done_cb, outer);
  g_task_set_task_data (task, trash, NULL);
  self->n_tasks++;
  g_task_run_in_thread (task, undo_thread);
}

GPtrArray *
tb_run_history_undo_finish (TbRunHistory  *self,
                            GAsyncResult  *result,
                            GPtrArray    **errors)
{
  Trash *trash;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  g_task_propagate_boolean (G_TASK (result), NULL);
  trash = g_task_get_task_data (G_TASK (result));
  if (errors != NULL)
    *errors = g_steal_pointer (&trash->errors);
  return g_steal_pointer (&trash->runs);
}

/* ------------------------------------------------------------ whole runs */

static void
read_whole_thread (GTask        *task,
                   gpointer      source_object,
                   gpointer      task_data,
                   GCancellable *cancellable)
{
  GPtrArray *runs = task_data;
  GPtrArray *whole = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_run_unref);

  for (guint i = 0; i < runs->len; i++)
    {
      TbRun *run;

      if (g_cancellable_is_cancelled (cancellable))
        {
          g_ptr_array_unref (whole);
          g_task_return_error_if_cancelled (task);
          return;
        }
      run = tb_run_load (((TbRun *) g_ptr_array_index (runs, i))->path, NULL);
      if (run != NULL)
        g_ptr_array_add (whole, run);
    }
  g_task_return_pointer (task, whole, (GDestroyNotify) g_ptr_array_unref);
}

static void
read_whole_done_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  TbRunHistory *self = TB_RUN_HISTORY (object);
  GTask *outer = user_data;
  g_autoptr(GError) error = NULL;
  GPtrArray *whole = g_task_propagate_pointer (G_TASK (result), &error);

  self->n_tasks--;
  if (whole == NULL)
    g_task_return_error (outer, g_steal_pointer (&error));
  else
    g_task_return_pointer (outer, whole, (GDestroyNotify) g_ptr_array_unref);
  g_object_unref (outer);
}

void
tb_run_history_read_whole_async (TbRunHistory        *self,
                                 GPtrArray           *runs,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  GPtrArray *copy;
  GTask *outer;

  g_return_if_fail (TB_IS_RUN_HISTORY (self));
  g_return_if_fail (runs != NULL);

  copy = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_run_unref);
  for (guint i = 0; i < runs->len; i++)
    g_ptr_array_add (copy, tb_run_ref (g_ptr_array_index (runs, i)));
  outer = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (outer, tb_run_history_read_whole_async);
  task = g_task_new (self, cancellable, read_whole_done_cb, outer);
  g_task_set_task_data (task, copy, (GDestroyNotify) g_ptr_array_unref);
  self->n_tasks++;
  g_task_run_in_thread (task, read_whole_thread);
}

GPtrArray *
tb_run_history_read_whole_finish (TbRunHistory  *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ------------------------------------------------------------ object */

static void
runs_folder_changed_cb (GSettings    *settings,
                        const char   *key,
                        TbRunHistory *self)
{
  tb_run_history_reload (self);
}

static void
tb_run_history_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  TbRunHistory *self = TB_RUN_HISTORY (object);

  switch (prop_id)
    {
    case PROP_LOADING:
      g_value_set_boolean (value, self->loading);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tb_run_history_dispose (GObject *object)
{
  TbRunHistory *self = TB_RUN_HISTORY (object);

  /* the read in its worker stops at its next file; its answer then finds
   * no history */
  if (self->job != NULL)
    g_cancellable_cancel (self->job->cancellable);
  self->job = NULL;
  if (self->jobs != NULL)
    g_queue_free_full (g_steal_pointer (&self->jobs), (GDestroyNotify) job_free);
  stop_watching (self);
  if (self->settings != NULL)
    g_signal_handlers_disconnect_by_data (self->settings, self);
  G_OBJECT_CLASS (tb_run_history_parent_class)->dispose (object);
}

static void
tb_run_history_finalize (GObject *object)
{
  TbRunHistory *self = TB_RUN_HISTORY (object);

  g_clear_object (&self->settings);
  g_clear_pointer (&self->by_path, g_hash_table_unref);
  for (int l = 0; l < TB_RUN_N_LABELS; l++)
    g_clear_pointer (&self->labels[l], g_hash_table_unref);
  g_clear_pointer (&self->runs, g_ptr_array_unref);
  g_free (self->folder);
  g_clear_pointer (&self->skipped, g_ptr_array_unref);
  g_clear_pointer (&self->watch_changed, g_hash_table_unref);
  G_OBJECT_CLASS (tb_run_history_parent_class)->finalize (object);
}

static void
tb_run_history_class_init (TbRunHistoryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = tb_run_history_get_property;
  object_class->dispose = tb_run_history_dispose;
  object_class->finalize = tb_run_history_finalize;

  props[PROP_LOADING] =
    g_param_spec_boolean ("loading", NULL, NULL, FALSE, G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);

  /* TbRunHistory::changed: a read, an import, a deletion or an Undo is
   * done (the Articles page reads the folder again); the list's own
   * items-changed come as it goes. */
  signals[SIGNAL_CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
  /* TbRunHistory::files-skipped: a read found n files of the folder that
   * are not readable results (tb_run_history_get_skipped says which). */
  signals[SIGNAL_FILES_SKIPPED] =
    g_signal_new ("files-skipped", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_UINT);
}

static void
tb_run_history_init (TbRunHistory *self)
{
  self->settings = tb_settings_new ();
  self->runs = g_ptr_array_new_with_free_func (g_object_unref);
  self->by_path = g_hash_table_new (g_str_hash, g_str_equal);
  for (int l = 0; l < TB_RUN_N_LABELS; l++)
    self->labels[l] = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->jobs = g_queue_new ();
  self->skipped = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  self->watch_changed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_signal_connect (self->settings, "changed::runs-folder", G_CALLBACK (runs_folder_changed_cb), self);
}

TbRunHistory *
tb_run_history_new (void)
{
  TbRunHistory *self = g_object_new (TB_TYPE_RUN_HISTORY, NULL);

  tb_run_history_reload (self);
  return self;
}
