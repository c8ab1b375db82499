#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# test-potfiles.py: every source file with translatable strings (_(...),
# N_(...), ngettext, translatable="yes", the engine's error messages) is
# listed in po/POTFILES.in, and
# every listed file exists. Usage: test-potfiles.py SOURCE_ROOT   (TAP)
import os
import re
import sys

root = sys.argv[1]
listed = set()
with open(os.path.join(root, "po", "POTFILES.in")) as f:
    for line in f:
        line = line.strip()
        if line and not line.startswith("#"):
            listed.add(line)

pattern = re.compile(r'(\b_\(\s*"|\bN_\(\s*"|\bngettext\s*\(|\bC_\(\s*"|translatable="yes")')
# the engine's messages: the formats of its error calls (po/meson.build)
engine_pattern = re.compile(
    r'\b(_nn_error_set|_nn_error_prefix|layer_error)\s*\([^;{]*?"|\bNN_MESSAGE\s*\(\s*"')
found = set()
for dirpath, _, files in os.walk(os.path.join(root, "engine")):
    for name in files:
        if name.endswith(".c"):
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                if engine_pattern.search(f.read()):
                    found.add(os.path.relpath(path, root))
for folder in ("app", "resources", "data"):
    for dirpath, _, files in os.walk(os.path.join(root, folder)):
        for name in files:
            if not name.endswith((".c", ".h", ".ui", ".in", ".xml")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            # the desktop file and the metainfo are translated by msgfmt
            # as a whole; other templates (the Windows resource script)
            # hold no text for people
            if pattern.search(text) or name.endswith((".desktop.in", ".metainfo.xml.in")) \
                    or name.endswith(".gschema.xml"):
                found.add(rel)

n = 0
for rel in sorted(found):
    n += 1
    print(("ok" if rel in listed else "not ok") + " %d - %s is in POTFILES.in" % (n, rel))
for rel in sorted(listed):
    n += 1
    print(("ok" if os.path.exists(os.path.join(root, rel)) else "not ok")
          + " %d - listed %s exists" % (n, rel))
print("1..%d" % n)
sys.exit(0 if found <= listed and all(os.path.exists(os.path.join(root, r)) for r in listed) else 1)
