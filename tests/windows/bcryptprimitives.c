/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bcryptprimitives.c: a test fixture, never shipped. wine 8 has no
 * bcryptprimitives.dll, whose ProcessPrng librsvg and AccessKit (in the GTK
 * bundle) import; Windows 10 and wine 9 have it. tests/windows/test-installer
 * puts this stand-in into its own wine prefix's system32 only when the wine
 * it runs is older than 9: on Windows the system's must be used. */
#include <windows.h>

/* advapi32's RtlGenRandom */
BOOLEAN WINAPI SystemFunction036 (PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng (PBYTE data, SIZE_T length);

BOOL WINAPI
ProcessPrng (PBYTE  data,
             SIZE_T length)
{
  while (length > 0)
    {
      ULONG n = length > 0x10000000 ? 0x10000000 : (ULONG) length;

      if (!SystemFunction036 (data, n))
        return FALSE;
      data += n;
      length -= n;
    }
  return TRUE;
}
