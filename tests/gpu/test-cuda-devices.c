/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-cuda-devices.c: the device list always has a CUDA entry. Without a
 * usable GPU (as in CI) it says why in words (without a driver, naming the
 * driver's library) and opening cuda:0 fails with that reason; with one,
 * every field is filled, the libraries it loaded are named and cuda:0
 * opens. Runs everywhere: it needs no GPU.
 */

#include "gpu-test-util.h"

#ifdef _WIN32
#define DRIVER_LIBRARY "nvcuda.dll"
#else
#define DRIVER_LIBRARY "libcuda.so.1"
#endif

int
main (void)
{
  NnDeviceInfo devices[16];
  int n = nn_device_list (devices, 16);
  int cuda = 0, usable = 0;

  tap_ok (n >= 2, "the device list has the CPU and a CUDA entry (%d entries)", n);
  tap_ok (n >= 1 && devices[0].kind == NN_DEVICE_CPU && devices[0].usable, "the CPU comes first, usable");
  for (int i = 0; i < n; i++)
    {
      NnDeviceInfo *d = &devices[i];
      if (d->kind != NN_DEVICE_CUDA)
        continue;
      cuda++;
      if (!d->usable)
        {
          tap_diag ("cuda entry: %s: %s", d->name, d->reason);
          tap_ok (d->reason[0] != '\0', "an unusable CUDA entry says why (\"%s\")", d->reason);
          if (strncmp (d->reason, "no NVIDIA driver", 16) == 0)
            tap_ok (strstr (d->reason, "(" DRIVER_LIBRARY " not found)") != NULL,
                    "no driver: the driver's library is named (%s)", d->reason);
          continue;
        }
      usable++;
      tap_diag ("cuda:%d: %s, %.1f GiB, compute %d.%d, %d SMs, driver %s, runtime %s, cuBLAS %s, "
                "cuDNN %s",
                d->index, d->name, d->memory_bytes / 1073741824.0, d->compute_major,
                d->compute_minor, d->cores, d->driver, d->runtime, d->cublas, d->cudnn);
      tap_ok (d->name[0] != '\0' && d->memory_bytes > 0 && d->compute_major >= 3 && d->cores > 0,
              "cuda:%d: name, memory, compute capability and multiprocessors", d->index);
      tap_ok (d->driver[0] && d->runtime[0] && d->cublas[0] && d->cudnn[0],
              "cuda:%d: driver, runtime, cuBLAS and cuDNN versions", d->index);
      tap_diag ("cuda:%d: %s", d->index, d->libraries);
      tap_ok (strstr (d->libraries, "cuBLAS ") != NULL && strstr (d->libraries, "cuDNN ") != NULL,
              "cuda:%d: the files of cuBLAS and cuDNN it loaded", d->index);
    }
  tap_ok (cuda >= 1, "at least one CUDA entry (%d)", cuda);

  NnDeviceOptions options = { .kind = NN_DEVICE_CUDA, .index = 0 };
  NnBackend backend;
  NnError error;
  nn_error_clear (&error);
  NnStatus status = _nn_backend_open (&options, &backend, &error);
  if (usable == 0)
    {
      const char *reason = NULL;
      for (int i = 0; i < n; i++)
        if (devices[i].kind == NN_DEVICE_CUDA)
          reason = devices[i].reason;
      tap_ok (status == NN_ERROR_UNAVAILABLE && reason != NULL && strstr (error.message, reason),
              "opening cuda:0 fails as unavailable, with the reason (%s)", error.message);
    }
  else
    {
      tap_ok (status == NN_OK, "cuda:0 opens (%s)", error.message);
      if (status == NN_OK)
        _nn_backend_close (&backend);
      options.index = 99;
      nn_error_clear (&error);
      status = _nn_backend_open (&options, &backend, &error);
      tap_ok (status == NN_ERROR_UNAVAILABLE && strstr (error.message, "no such device"),
              "cuda:99 does not exist (%s)", error.message);
    }

  /* the CPU works whatever the GPU does */
  options.kind = NN_DEVICE_CPU;
  options.index = 0;
  status = _nn_backend_open (&options, &backend, &error);
  tap_ok (status == NN_OK, "the CPU backend opens");
  if (status == NN_OK)
    _nn_backend_close (&backend);
  return tap_done ();
}
