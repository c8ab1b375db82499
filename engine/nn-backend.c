/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-backend.c: finding and opening backends.
 *
 * The CPU backend is built in. The CUDA backend is a module loaded with
 * dlopen/LoadLibrary only when a CUDA device is listed or asked for, so the
 * engine runs on machines with no NVIDIA software at all; when it cannot be
 * loaded, the device list says why in words.
 */

#include "nn-private.h"
#include "nn-os.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The folder the module is installed in (meson: libdir/trainbench), or ""
 * where it is only ever found next to the program (Windows). NN_BUILD_TREE,
 * where meson defines it, is the absolute path of the build tree the
 * program was built in (module_candidates). */
#ifndef NN_CUDA_MODULE_DIR
#define NN_CUDA_MODULE_DIR ""
#endif

#define CUDA_MODULE_NAME NN_OS_CUDA_MODULE

/* ---------------------------------------------------------------- CUDA module */

static const NnBackendOps *cuda_ops;
static char cuda_reason[1024];
static int cuda_tried;
static NnOsMutex cuda_lock = NN_OS_MUTEX_INIT;

/* The rules of nn-backend-abi.h over the slots of a table, checked once
 * when a table is taken: the engine tests a group's first slot and then
 * calls the others. */
typedef struct
{
  const char *name;
  size_t offset;
} Slot;

#define SLOT(member) { #member, offsetof (NnBackendOps, member) }

/* Slots every backend has. */
static const Slot required_slots[] = {
  SLOT (name), SLOT (device_count), SLOT (device_info), SLOT (context_new),
  SLOT (context_free), SLOT (last_error), SLOT (alloc), SLOT (free), SLOT (upload),
  SLOT (download), SLOT (fill), SLOT (copy), SLOT (synchronize), SLOT (gemm),
  SLOT (bias_act_forward), SLOT (bias_act_backward), SLOT (dropout_forward),
  SLOT (dropout_backward), SLOT (conv2d_plan_new), SLOT (conv2d_plan_free),
  SLOT (conv2d_forward), SLOT (conv2d_backward), SLOT (pool2d_forward), SLOT (pool2d_backward),
  SLOT (loss), SLOT (gather_batch), SLOT (optimizer_update),
};

/* Optional slots that come together: all set or all NULL. */
static const Slot slot_groups[][4] = {
  { SLOT (capture_begin), SLOT (capture_end), SLOT (graph_launch), SLOT (graph_free) },
  { SLOT (step_supported), SLOT (step_run) },
  { SLOT (host_alloc), SLOT (host_free), SLOT (upload_async), SLOT (upload_wait) },
  { SLOT (timer_begin), SLOT (timer_end), SLOT (timer_read) },
};

static bool
slot_set (const NnBackendOps *ops, const Slot *slot)
{
  void (*fn) (void);

  if (slot->offset == offsetof (NnBackendOps, name))
    return ops->name != NULL;
  /* every member after the name is a function pointer */
  memcpy (&fn, (const char *) ops + slot->offset, sizeof fn);
  return fn != NULL;
}

bool
_nn_backend_ops_valid (const NnBackendOps *ops, char *why, size_t why_size)
{
  size_t required = sizeof required_slots / sizeof required_slots[0];
  size_t groups = sizeof slot_groups / sizeof slot_groups[0];

  for (size_t i = 0; i < required; i++)
    if (!slot_set (ops, &required_slots[i]))
      {
        snprintf (why, why_size, "%s is NULL (every backend has it)", required_slots[i].name);
        return false;
      }
  for (size_t g = 0; g < groups; g++)
    {
      const Slot *group = slot_groups[g];
      bool first = slot_set (ops, &group[0]);
      for (int i = 1; i < 4 && group[i].name != NULL; i++)
        if (slot_set (ops, &group[i]) != first)
          {
            char names[256] = "";
            size_t used = 0;
            for (int j = 0; j < 4 && group[j].name != NULL && used < sizeof names; j++)
              used += (size_t) snprintf (names + used, sizeof names - used, "%s%s",
                                         j == 0 ? "" : ", ", group[j].name);
            snprintf (why, why_size, "%s is NULL but %s is not (%s: all set or all NULL)",
                      first ? group[i].name : group[0].name,
                      first ? group[0].name : group[i].name, names);
            return false;
          }
    }
  return true;
}

#ifdef NN_BUILD_TREE
/* Whether `folder` is inside the build tree NN_BUILD_TREE (or is it):
 * compared by file identity, folder by folder upwards, so links and other
 * spellings of the same path agree. */
static bool
inside_build_tree (const char *folder)
{
  uint64_t tree[2], id[2];
  char path[4096];

  if (!_nn_os_path_id (NN_BUILD_TREE, tree) || strlen (folder) >= sizeof path)
    return false;
  memcpy (path, folder, strlen (folder) + 1);
  for (;;)
    {
      if (_nn_os_path_id (path, id) && id[0] == tree[0] && id[1] == tree[1])
        return true;
      char *base = (char *) _nn_path_base_name (path);
      if (base <= path + _nn_os_path_root (path))
        return false;
      base[-1] = '\0';
    }
}
#endif

/* The files the module may be, in order, when TRAINBENCH_CUDA_MODULE names
 * none: only folders this program's own build or installation defines,
 * never one found by going up from the program (a build tree in /tmp/build
 * made /tmp/gpu/ such a place, which any local user can create, and a zip
 * unpacked in Downloads made Downloads one):
 * - the build tree's gpu/ folder (NN_BUILD_TREE, fixed when it was built),
 *   for the programs inside that tree only (its cli/, app/ and
 *   tests/SUITE/): a program installed from it never looks into it;
 * - on Windows the program's own folder, where bin\ holds the programs
 *   and the module;
 * - the install's folder, NN_CUDA_MODULE_DIR (libdir/trainbench).
 * Returns how many; `looked` gets the folders, for the message when there
 * is no module in any. */
static int
module_candidates (char (*candidates)[4096], char *looked, size_t looked_size)
{
  char program[4096];
  char folders[3][4096];
  int n = 0;

  _nn_program_folder (program, sizeof program);
#ifdef NN_BUILD_TREE
  if (program[0] != '\0' && inside_build_tree (program))
    nn_path_join (folders[n++], sizeof folders[0], NN_BUILD_TREE, "gpu");
#endif
#ifdef _WIN32
  if (program[0] != '\0')
    snprintf (folders[n++], sizeof folders[0], "%s", program);
#endif
  if (NN_CUDA_MODULE_DIR[0] != '\0')
    snprintf (folders[n++], sizeof folders[0], "%s", NN_CUDA_MODULE_DIR);

  size_t used = 0;
  looked[0] = '\0';
  for (int i = 0; i < n; i++)
    {
      if (!nn_path_join (candidates[i], sizeof candidates[0], folders[i], CUDA_MODULE_NAME))
        candidates[i][0] = '\0';
      if (used < looked_size)
        used += (size_t) snprintf (looked + used, looked_size - used, "%s%.400s",
                                   i > 0 ? ", " : "", folders[i]);
    }
  return n;
}

static const NnBackendOps *
load_cuda_locked (char *reason, size_t reason_size)
{
  char candidates[3][4096];
  char looked[1024] = "";
  char env[4096];
  char why[1024] = "";
  int n = 0;
  void *module = NULL;

  /* A module named in the environment is an explicit choice: that one, or
   * the reason it cannot be used, never another found elsewhere. */
  bool named = _nn_os_getenv ("TRAINBENCH_CUDA_MODULE", env, sizeof env) && env[0] != '\0';
  if (named)
    snprintf (candidates[n++], sizeof candidates[0], "%s", env);
  else
    n = module_candidates (candidates, looked, sizeof looked);

  bool found_file = false;
  for (int i = 0; i < n && module == NULL; i++)
    {
      NnOsKind kind = candidates[i][0] != '\0' ? _nn_os_path_kind (candidates[i], NULL)
                                                : NN_OS_MISSING;
      if (kind == NN_OS_MISSING)
        continue;
      found_file = true;
      /* a FIFO or a device in its place would block the loader or feed it
       * forever: a module is a regular file */
      if (kind != NN_OS_FILE)
        snprintf (why, sizeof why, "%.900s: not a regular file", candidates[i]);
      else
        module = _nn_os_lib_open (candidates[i], why, sizeof why);
    }
  if (!found_file)
    {
      if (named)
        snprintf (reason, reason_size, "CUDA module %.400s (TRAINBENCH_CUDA_MODULE) not found",
                  env);
      else if (NN_CUDA_MODULE_DIR[0] == '\0')
        /* no install folder: this build looks next to the program only */
        snprintf (reason, reason_size, "no CUDA module for " NN_OS_NAME " in this build (%s not "
                  "found in %s)", CUDA_MODULE_NAME, looked[0] ? looked : "the program's folder");
      else
        snprintf (reason, reason_size, "CUDA module not built (%s not found in %s)",
                  CUDA_MODULE_NAME, looked);
      return NULL;
    }
  if (module == NULL)
    {
      /* the module loads NVIDIA's libraries itself, when it starts, and
       * names the one missing (device_count's reason): what stops the
       * module loading is the module */
      snprintf (reason, reason_size, "CUDA module not loadable: %s", why);
      return NULL;
    }

  NnBackendGetFunc get
      = (NnBackendGetFunc) (void (*) (void)) _nn_os_lib_symbol (module, NN_BACKEND_CUDA_SYMBOL);
  if (get == NULL)
    {
      snprintf (reason, reason_size, "CUDA module has no %s", NN_BACKEND_CUDA_SYMBOL);
      return NULL;
    }
  const NnBackendOps *ops = get ();
  if (ops == NULL || ops->abi_version != NN_BACKEND_ABI_VERSION
      || ops->struct_size != sizeof (NnBackendOps))
    {
      if (ops != NULL && ops->abi_version == NN_BACKEND_ABI_VERSION)
        snprintf (reason, reason_size,
                  "CUDA module ABI mismatch (version %u, but its op table has %u bytes where "
                  "the engine's has %u: a module built from other sources)",
                  ops->abi_version, (unsigned) ops->struct_size, (unsigned) sizeof (NnBackendOps));
      else
        snprintf (reason, reason_size,
                  "CUDA module ABI mismatch (module %u, engine %u: the module is built with "
                  "the engine, install the two together)",
                  ops ? ops->abi_version : 0u, (unsigned) NN_BACKEND_ABI_VERSION);
      return NULL;
    }
  if (!_nn_backend_ops_valid (ops, why, sizeof why))
    {
      snprintf (reason, reason_size, "CUDA module's op table is broken: %.400s", why);
      return NULL;
    }
  /* The module stays loaded for the life of the process: its table is static. */
  return ops;
}

const NnBackendOps *
_nn_backend_cuda_load (char *reason, size_t reason_size)
{
  _nn_os_mutex_lock (&cuda_lock);
  if (!cuda_tried)
    {
      cuda_ops = load_cuda_locked (cuda_reason, sizeof cuda_reason);
      cuda_tried = 1;
    }
  const NnBackendOps *ops = cuda_ops;
  if (ops == NULL && reason != NULL)
    snprintf (reason, reason_size, "%s", cuda_reason);
  _nn_os_mutex_unlock (&cuda_lock);
  return ops;
}

/* The module's table when it was loaded already, else NULL; never loads it. */
static const NnBackendOps *
cuda_loaded (void)
{
  _nn_os_mutex_lock (&cuda_lock);
  const NnBackendOps *ops = cuda_tried ? cuda_ops : NULL;
  _nn_os_mutex_unlock (&cuda_lock);
  return ops;
}

/* ---------------------------------------------------------------- devices */

NnStatus
nn_device_parse (const char *text, NnDeviceKind *kind, int32_t *index, NnError *error)
{
  char *end;
  long n;

  if (text == NULL || text[0] == '\0')
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT, "no device given (use cpu or cuda:N)");
  if (strcmp (text, "cpu") == 0)
    {
      *kind = NN_DEVICE_CPU;
      *index = 0;
      return NN_OK;
    }
  if (strcmp (text, "cuda") == 0 || strcmp (text, "gpu") == 0)
    {
      *kind = NN_DEVICE_CUDA;
      *index = 0;
      return NN_OK;
    }
  if (strncmp (text, "cuda:", 5) == 0 || strncmp (text, "gpu:", 4) == 0)
    {
      const char *digits = strchr (text, ':') + 1;
      bool all_digits = digits[0] != '\0';
      for (const char *p = digits; *p != '\0'; p++)
        all_digits = all_digits && isdigit ((unsigned char) *p);
      errno = 0;
      n = strtol (digits, &end, 10);
      if (all_digits && errno == 0 && n < NN_CUDA_DEVICES_MAX)
        {
          *kind = NN_DEVICE_CUDA;
          *index = (int32_t) n;
          return NN_OK;
        }
      if (all_digits)
        return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                              "device index %s is out of range (cuda:0 to cuda:%d)", digits,
                              NN_CUDA_DEVICES_MAX - 1);
      return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                            "'%s': the device index must be a whole number (cuda:0, cuda:1, ...)",
                            text);
    }
  return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                        "unknown device '%s' (use cpu, cuda or cuda:N)", text);
}

static void
cpu_device_info (NnDeviceInfo *info)
{
  NnSystemInfo sys;
  nn_system_info (&sys);
  memset (info, 0, sizeof *info);
  info->kind = NN_DEVICE_CPU;
  info->index = 0;
  info->usable = true;
  snprintf (info->name, sizeof info->name, "%s", sys.cpu_model[0] ? sys.cpu_model : "CPU");
  info->memory_bytes = sys.ram_bytes;
  info->cores = sys.cpu_cores;
}

static void
cuda_device_info (const NnBackendOps *ops, int index, NnDeviceInfo *info)
{
  NnBackendDeviceInfo bi;
  memset (info, 0, sizeof *info);
  memset (&bi, 0, sizeof bi);
  info->kind = NN_DEVICE_CUDA;
  info->index = index;
  if (ops->device_info (index, &bi) != 0)
    {
      snprintf (info->name, sizeof info->name, "CUDA device %d", index);
      snprintf (info->reason, sizeof info->reason, "device %d could not be queried", index);
      return;
    }
  info->usable = true;
  snprintf (info->name, sizeof info->name, "%s", bi.name);
  info->memory_bytes = bi.memory_bytes;
  info->compute_major = bi.compute_major;
  info->compute_minor = bi.compute_minor;
  info->cores = bi.multiprocessors;
  snprintf (info->driver, sizeof info->driver, "%s", bi.driver);
  snprintf (info->runtime, sizeof info->runtime, "%s", bi.runtime);
  snprintf (info->cublas, sizeof info->cublas, "%s", bi.cublas);
  snprintf (info->cudnn, sizeof info->cudnn, "%s", bi.cudnn);
  snprintf (info->libraries, sizeof info->libraries, "%s", bi.libraries);
}

void
nn_device_cpu (NnDeviceInfo *out)
{
  cpu_device_info (out);
}

/* The device list; `load` says whether the CUDA module may be loaded for
 * it (else only a module loaded already is asked). */
static int
device_list (NnDeviceInfo *out, int max, bool load)
{
  char reason[1024] = "";
  int n = 0;

  if (max <= 0)
    return 0;
  cpu_device_info (&out[n++]);

  const NnBackendOps *ops = load ? _nn_backend_cuda_load (reason, sizeof reason) : cuda_loaded ();
  if (!load && ops == NULL)
    return n;
  int count = ops ? ops->device_count (reason, sizeof reason) : 0;
  if (count <= 0)
    {
      if (n < max)
        {
          memset (&out[n], 0, sizeof out[n]);
          out[n].kind = NN_DEVICE_CUDA;
          snprintf (out[n].name, sizeof out[n].name, "CUDA GPU");
          snprintf (out[n].reason, sizeof out[n].reason, "%.255s",
                    reason[0] ? reason : "no CUDA device");
          n++;
        }
      return n;
    }
  for (int i = 0; i < count && n < max; i++)
    cuda_device_info (ops, i, &out[n++]);
  return n;
}

int
nn_device_list (NnDeviceInfo *out, int max)
{
  return device_list (out, max, true);
}

int
_nn_device_list_loaded (NnDeviceInfo *out, int max)
{
  return device_list (out, max, false);
}

/* ---------------------------------------------------------------- open / close */

NnStatus
_nn_backend_open (const NnDeviceOptions *options, NnBackend *backend, NnError *error)
{
  NnBackendOptions bo = { 0 };
  char message[1024] = "";
  char reason[1024] = "";
  const NnBackendOps *ops;
  int rc;

  memset (backend, 0, sizeof *backend);
  bo.threads = options->threads;
  bo.tf32 = options->tf32;

  if (options->kind == NN_DEVICE_CPU)
    {
      nn_blas_init ();
      ops = nn_backend_cpu_get ();
      cpu_device_info (&backend->device);
    }
  else
    {
      ops = _nn_backend_cuda_load (reason, sizeof reason);
      if (ops == NULL)
        return _nn_error_set (error, NN_ERROR_UNAVAILABLE, "cuda:%d: %s", options->index, reason);
      int count = ops->device_count (reason, sizeof reason);
      if (count <= 0)
        return _nn_error_set (error, NN_ERROR_UNAVAILABLE, "cuda:%d: %s", options->index,
                              reason[0] ? reason : "no CUDA device");
      if (options->index < 0 || options->index >= count)
        return _nn_error_set (error, NN_ERROR_UNAVAILABLE,
                              "cuda:%d: no such device (%d CUDA device%s found)", options->index,
                              count, count == 1 ? "" : "s");
      cuda_device_info (ops, options->index, &backend->device);
    }

  rc = ops->context_new (options->kind == NN_DEVICE_CPU ? 0 : options->index, &bo, &backend->ctx,
                         message, sizeof message);
  if (rc != 0)
    {
      NnStatus code = rc == NN_BACKEND_OUT_OF_MEMORY ? NN_ERROR_DEVICE_MEMORY
                      : rc == NN_BACKEND_DEVICE_LOST ? NN_ERROR_DEVICE_LOST
                                                     : NN_ERROR_DEVICE;
      return _nn_error_set (error, code, "%s:%d: %s", ops->name, options->index,
                            message[0] ? message : "cannot start the backend");
    }
  backend->ops = ops;
  return NN_OK;
}

void
_nn_backend_close (NnBackend *backend)
{
  if (backend->ops != NULL && backend->ctx != NULL)
    backend->ops->context_free (backend->ctx);
  backend->ctx = NULL;
  backend->ops = NULL;
}

NnStatus
_nn_backend_check (NnBackend *backend, int rc, const char *what, NnError *error)
{
  const char *message;
  NnStatus code;

  if (rc == NN_BACKEND_OK)
    return NN_OK;
  message = backend->ops->last_error (backend->ctx);
  switch (rc)
    {
    case NN_BACKEND_OUT_OF_MEMORY: code = NN_ERROR_DEVICE_MEMORY; break;
    case NN_BACKEND_DEVICE_LOST: code = NN_ERROR_DEVICE_LOST; break;
    case NN_BACKEND_UNSUPPORTED: code = NN_ERROR_UNAVAILABLE; break;
    default: code = NN_ERROR_DEVICE; break;
    }
  return _nn_error_set (error, code, "%s:%d: %s: %s", backend->ops->name, backend->device.index,
                        what, message && message[0] ? message : nn_status_name (code));
}
