#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# test-crt-boundary.py: the app never takes a C file descriptor or a FILE *
# from GLib. On Windows GLib's g_open, g_fopen, g_freopen and g_creat give
# handles of the C runtime GLib was built with (the UCRT), while the app's
# own read, write, fstat, fwrite and fclose are mingw's msvcrt.dll: the two
# never agree on one, and the failure is silent (a download that writes
# nothing, a result file that reads as empty). GIO streams (g_file_read,
# g_file_replace, g_file_get_contents) work on both systems.
# Usage: test-crt-boundary.py SOURCE_ROOT   (TAP)
import os
import re
import sys

root = sys.argv[1]
call = re.compile(r"\b(g_open|g_fopen|g_freopen|g_creat)\s*\(")
app = os.path.join(root, "app")
n = 0
for name in sorted(os.listdir(app)):
    if not name.endswith((".c", ".h")):
        continue
    with open(os.path.join(app, name), encoding="utf-8", errors="replace") as f:
        hits = [(i + 1, line.strip()) for i, line in enumerate(f) if call.search(line)]
    n += 1
    print(("ok" if not hits else "not ok") + " %d - app/%s takes no fd or FILE * from GLib" % (n, name))
    for line, text in hits:
        print("#   app/%s:%d: %s  (use a GIO stream: on Windows the handle is the UCRT's)"
              % (name, line, text))
print("1..%d" % n)
