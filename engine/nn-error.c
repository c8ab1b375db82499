/* nn-error.c: error messages and sizes in words, shared by the engine. */

#include "nn-private.h"

#include <stdio.h>
#include <string.h>

const char *
nn_status_name (NnStatus status)
{
  switch (status)
    {
    case NN_OK: return "ok";
    case NN_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case NN_ERROR_IO: return "input/output error";
    case NN_ERROR_FORMAT: return "format error";
    case NN_ERROR_SPEC: return "model spec error";
    case NN_ERROR_SHAPE: return "shape error";
    case NN_ERROR_NO_MEMORY: return "out of memory";
    case NN_ERROR_DEVICE: return "device error";
    case NN_ERROR_DEVICE_MEMORY: return "out of device memory";
    case NN_ERROR_DEVICE_LOST: return "device lost";
    case NN_ERROR_UNAVAILABLE: return "unavailable";
    case NN_ERROR_CANCELLED: return "cancelled";
    case NN_ERROR_DIVERGED: return "diverged";
    }
  return "unknown error";
}

void
nn_error_clear (NnError *error)
{
  if (error == NULL)
    return;
  error->code = NN_OK;
  error->message[0] = '\0';
}

NnStatus
_nn_error_set (NnError *error, NnStatus code, const char *format, ...)
{
  if (error != NULL)
    {
      va_list args;
      va_start (args, format);
      error->code = code;
      vsnprintf (error->message, sizeof error->message, format, args);
      va_end (args);
    }
  return code;
}

void
_nn_error_prefix (NnError *error, const char *format, ...)
{
  char prefix[512];
  char old[NN_ERROR_MESSAGE_MAX];
  va_list args;

  if (error == NULL)
    return;
  va_start (args, format);
  vsnprintf (prefix, sizeof prefix, format, args);
  va_end (args);
  memcpy (old, error->message, sizeof old);
  /* bounded so the pair fits: a long prefix must not push out the cause */
  snprintf (error->message, sizeof error->message, "%.300s: %.700s", prefix, old);
}

void
_nn_format_bytes (double bytes, char *out, size_t size)
{
  static const char *units[] = { "bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
  int u = 0;

  while (bytes >= 1024.0 && u < 6)
    {
      bytes /= 1024.0;
      u++;
    }
  if (u == 0)
    snprintf (out, size, "%.0f %s", bytes, units[u]);
  else
    snprintf (out, size, "%.1f %s", bytes, units[u]);
}
