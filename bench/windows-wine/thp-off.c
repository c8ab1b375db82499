/* SPDX-License-Identifier: GPL-3.0-or-later */
/* thp-off.c: run a program with transparent huge pages disabled for it and
 * its children (prctl PR_SET_THP_DISABLE, inherited across fork and exec),
 * so the Linux build's large blocks get 4 KiB pages, as the Windows build's
 * do under wine (and on Windows): tells the page size from everything else
 * in a Linux / wine comparison.
 *
 *   gcc -O2 thp-off.c -o thp-off
 *   thp-off PROGRAM [ARGS...]
 *   (grep AnonHugePages /proc/PID/smaps_rollup while it runs: 0 kB)
 */
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>
int main (int argc, char **argv)
{
  if (argc < 2) { fprintf (stderr, "usage: thp-off PROGRAM [ARGS...]\n"); return 2; }
  if (prctl (PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0) { perror ("prctl"); return 1; }
  execvp (argv[1], argv + 1);
  perror (argv[1]);
  return 127;
}
