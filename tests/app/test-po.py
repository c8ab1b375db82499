#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# test-po.py: every translation in po/LINGUAS is valid (msgfmt --check:
# each format takes the arguments of its English one) and complete: it has
# every message that xgettext finds in po/POTFILES.in today, none of them
# fuzzy or untranslated, the engine's error formats included.
# Usage: test-po.py SOURCE_ROOT XGETTEXT_ARGS...   (TAP)
import os
import subprocess
import sys
import tempfile

root, xgettext_args = sys.argv[1], sys.argv[2:]
po_dir = os.path.join(root, "po")
checks = 0
failed = False


def ok(cond, what, detail=""):
    global checks, failed
    checks += 1
    failed |= not cond
    print(("ok" if cond else "not ok") + " %d - %s" % (checks, what), flush=True)
    if not cond and detail:
        for line in detail.strip().splitlines()[:40]:
            print("# " + line)


def msgids(po):
    # the msgids of a catalog's entries (one per line, headers left out)
    p = subprocess.run(["msgattrib", "--no-wrap", "--no-location", po],
                       capture_output=True, text=True)
    return [line[6:] for line in p.stdout.splitlines()
            if line.startswith('msgid "') and line != 'msgid ""']


with open(os.path.join(po_dir, "LINGUAS")) as f:
    languages = [w for line in f for w in line.split("#")[0].split()]

with tempfile.TemporaryDirectory() as tmp:
    pot = os.path.join(tmp, "trainbench.pot")
    p = subprocess.run(["xgettext", *xgettext_args, "--directory=" + root,
                        "--files-from=" + os.path.join(po_dir, "POTFILES.in"),
                        "--output=" + pot],
                       capture_output=True, text=True)
    ok(p.returncode == 0 and os.path.exists(pot), "xgettext reads every file in POTFILES.in",
       p.stderr)
    ok(len(msgids(pot)) > 0, "it finds %d messages" % len(msgids(pot)))

    for lang in languages:
        po = os.path.join(po_dir, lang + ".po")
        p = subprocess.run(["msgfmt", "--check", "-o", os.devnull, po],
                           capture_output=True, text=True)
        ok(p.returncode == 0, "%s.po passes msgfmt --check" % lang, p.stderr)

        merged = os.path.join(tmp, lang + ".po")
        p = subprocess.run(["msgmerge", "--quiet", "--no-fuzzy-matching", "-o", merged, po, pot],
                           capture_output=True, text=True)
        ok(p.returncode == 0, "%s.po merges with the sources' messages" % lang, p.stderr)
        if p.returncode != 0:
            continue
        for kind in ("untranslated", "fuzzy"):
            out = os.path.join(tmp, "%s-%s.po" % (lang, kind))
            subprocess.run(["msgattrib", "--only-" + kind if kind == "fuzzy" else "--" + kind,
                            "--no-obsolete", "-o", out, merged], check=True)
            missing = msgids(out) if os.path.exists(out) else []
            ok(not missing, "%s.po has no %s message (%d)" % (lang, kind, len(missing)),
               "\n".join(missing))

print("1..%d" % checks)
sys.exit(1 if failed else 0)
