/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fake-cuda-module.c: a stand-in for libtrainbench-cuda.so (or
 * trainbench-cuda.dll), for test-module-loader: its op table says the ABI
 * version and table size given in FAKE_CUDA_ABI and FAKE_CUDA_SIZE
 * ("current" for the engine's own), and every slot points somewhere but
 * those at the byte offsets listed in FAKE_CUDA_CLEAR ("8,16"), which are
 * NULL: a table that keeps the rules of nn-backend-abi.h or breaks one,
 * as the test chooses. FAKE_CUDA_NULL=1
 * makes it return no table at all, and FAKE_CUDA_ABORT=1 a broken module:
 * the process ends the moment the engine asks for the table. For the CLI's
 * device checks it lists FAKE_CUDA_DEVICES GPUs ("Fake GPU N"; none by
 * default), or none with FAKE_CUDA_REASON as the reason; it can start no
 * context, so nothing may run on them.
 */

#include "nn-backend-abi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every other slot points here: it only has to be set, nothing calls it. */
static int
fake_slot (char *reason, size_t reason_size)
{
  (void) reason;
  (void) reason_size;
  return 0;
}

static int
fake_device_count (char *reason, size_t reason_size)
{
  const char *devices = getenv ("FAKE_CUDA_DEVICES"), *why = getenv ("FAKE_CUDA_REASON");
  int count = devices != NULL ? atoi (devices) : 0;

  if (count <= 0 && why != NULL && reason != NULL && reason_size > 0)
    snprintf (reason, reason_size, "%s", why);
  return count > 0 ? count : 0;
}

static int
fake_device_info (int index, NnBackendDeviceInfo *info)
{
  memset (info, 0, sizeof *info);
  snprintf (info->name, sizeof info->name, "Fake GPU %d", index);
  info->memory_bytes = (uint64_t) 1 << 30;
  return 0;
}

static NnBackendOps table;

/* the one symbol a module exports (NN_BACKEND_CUDA_SYMBOL) */
#ifdef _WIN32
#define FAKE_EXPORT __declspec (dllexport)
#else
#define FAKE_EXPORT __attribute__ ((visibility ("default")))
#endif
FAKE_EXPORT const NnBackendOps *nn_backend_cuda_get (void);

const NnBackendOps *
nn_backend_cuda_get (void)
{
  const char *abi = getenv ("FAKE_CUDA_ABI"), *size = getenv ("FAKE_CUDA_SIZE");
  const char *none = getenv ("FAKE_CUDA_NULL"), *broken = getenv ("FAKE_CUDA_ABORT");
  if (broken != NULL && strcmp (broken, "1") == 0)
    abort ();
  if (none != NULL && strcmp (none, "1") == 0)
    return NULL;
  const char *clear = getenv ("FAKE_CUDA_CLEAR");
  void (**slot) (void)
      = (void (**) (void)) ((char *) &table + offsetof (NnBackendOps, device_count));
  size_t slots = (sizeof table - offsetof (NnBackendOps, device_count)) / sizeof (void (*) (void));
  for (size_t i = 0; i < slots; i++)
    slot[i] = (void (*) (void)) fake_slot;
  table.device_count = fake_device_count;
  table.device_info = fake_device_info;
  while (clear != NULL && *clear != '\0')
    {
      char *end;
      size_t offset = (size_t) strtoul (clear, &end, 10);
      if (offset >= offsetof (NnBackendOps, device_count) && offset < sizeof table)
        memset ((char *) &table + offset, 0, sizeof (void (*) (void)));
      clear = *end == ',' ? end + 1 : NULL;
    }
  table.name = "fake";
  table.abi_version = abi != NULL && strcmp (abi, "current") != 0 ? (uint32_t) atoi (abi)
                                                                  : NN_BACKEND_ABI_VERSION;
  table.struct_size = size != NULL && strcmp (size, "current") != 0 ? (uint32_t) atoi (size)
                                                                    : (uint32_t) sizeof table;
  return &table;
}
