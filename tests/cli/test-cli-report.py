#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# test-cli-report.py: `trainbench-cli report` end to end on the fixture runs
# of tests/data/report (this machine's, another machine's, another laptop's
# of the same model, one without a machine id, one dated 2999, wine's, a
# sweep, hostile files), the files each figure comes from, --machine given
# twice, this machine's own id (one for processes that make it at once,
# shown by sysinfo), links in sweeps/, and its HTML page parsed with
# html.parser: well-formed, self-contained, escaped. Prints TAP; Python 3
# stdlib only. Usage:
# test-cli-report.py PATH-TO-trainbench-cli FIXTURES-DIR. The Windows build
# runs through $TRAINBENCH_CLI_WRAPPER (wine), paths given as Z:\...

import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

results = []


def ok(cond, name, diag=None):
    results.append(bool(cond))
    print(("ok %d - %s" if cond else "not ok %d - %s") % (len(results), name), flush=True)
    if not cond and diag:
        for line in str(diag).splitlines()[-40:]:
            print("#   " + line, flush=True)
    return bool(cond)


CLI = os.path.abspath(sys.argv[1])
FIXTURES = os.path.abspath(sys.argv[2])
WRAPPER = os.environ.get("TRAINBENCH_CLI_WRAPPER", "").split()
UNDER_WINE = CLI.lower().endswith(".exe") and any(
    os.path.basename(w).startswith("wine") for w in WRAPPER)


def win(path):
    if UNDER_WINE:
        return "Z:" + os.path.abspath(path).replace("/", "\\")
    return path


TMP = tempfile.mkdtemp(prefix="tb-cli-report-")
ENV = dict(os.environ)
ENV["XDG_DATA_HOME"] = win(os.path.join(TMP, "xdg"))
RUNS = os.path.join(FIXTURES, "report", "runs")
HOSTILE = os.path.join(FIXTURES, "report", "hostile")
FOREIGN_WINDOWS = os.path.join(FIXTURES, "report", "foreign-windows")
MACHINE = os.path.join(RUNS, "here-mlp-small-cuda.json")


def cli(*args, command="report"):
    p = subprocess.run(WRAPPER + [CLI, command] + list(args), capture_output=True, text=True,
                       errors="replace", env=ENV, timeout=120)
    return p.returncode, p.stdout, p.stderr


# ------------------------------------------------------------------ the text report

deep = os.path.join(TMP, "deep.json")
with open(deep, "w") as f:
    f.write("[" * 100000)
html_file = os.path.join(TMP, "report.html")
json_file = os.path.join(TMP, "report.json")
rc, out, err = cli("--runs", win(RUNS), win(HOSTILE), "--runs", win(deep),
                   "--machine", win(MACHINE), "--html", win(html_file), "--json", win(json_file))
ok(rc == 0, "report exits 0", out + err)


def claim_block(n):
    m = re.search(r"^%d\. .*?(?=^\d\. |^Missing|\Z)" % n, out, re.S | re.M)
    return m.group(0) if m else ""


ok("verdict       holds here" in claim_block(1), "claim 1 holds here", claim_block(1))
ok("verdict       does not hold here" in claim_block(2), "claim 2 does not hold here",
   claim_block(2))
ok("verdict       not measured yet" in claim_block(3), "claim 3 is not measured yet",
   claim_block(3))
ok("verdict       holds here" in claim_block(4)
   and "Windows 7 under wine 8.0" in " ".join(claim_block(4).split()),
   "claim 4 holds here, the wine run labelled so", claim_block(4))
ok(re.search(r"article\s+52 s \(10 epochs\)\s+123 s \(10 epochs\)\s+GPU 2.37x slower",
             claim_block(1)) is not None, "the article's figures beside this machine's",
   claim_block(1))
ok("GPU 1.60x slower" in claim_block(1) and "busy 12 %" in claim_block(1),
   "the measured ratio and the reason from the breakdown", claim_block(1))
ok("Missing measurements:\n  trainbench-cli train --preset cnn --device cuda:0" in out,
   "the missing measurement's command", out)
ok("Co's CPU" in out and "Runs of other machines" in out,
   "another machine's run listed apart", out)
ok("Read 22 result files, 19 of them this machine's (by the machine id they record)"
   in " ".join(out.split()), "the runs counted as this machine's by their id", out[:600])
ok(re.search(r"another machine \(f0e1d2c3\): Test CPU 9000, Test GPU X1, Debian",
             " ".join(out.split())) is not None
   and "foreign-same-model-cnn-cuda.json" in out,
   "another laptop of the same CPU, GPU and OS: another machine, listed apart", out)
ok("no machine id recorded" in out and "no-id-mlp-wide-cuda.json" in out,
   "a file without a machine id: listed apart, said why", out)
ok("verdict       not measured yet" in claim_block(3)
   and "foreign" not in claim_block(3),
   "claim 3 is not measured by the foreign file's whole GPU run", claim_block(3))
ok(re.search(r"Runs of unknown time.*\n  29991231T000000Z-mlp-small-cpu-2999, started "
             r"2999-12-31T00:00:00Z\n      more than a day ahead", out) is not None,
   "the run dated 2999 is of unknown time, and said so", out)
ok("median of 3 runs, newest\n                 20261203T080003Z-mlp-small-cpu-0003" in claim_block(1),
   "claim 1's newest CPU run is not the one dated 2999", claim_block(1))
files1 = re.search(r"   files +CPU: (\S+)\n +(\S+)\n +(\S+)\n +GPU: (\S+)\n", claim_block(1))
ok(files1 is not None
   and [os.path.basename(f.replace("\\", "/")) for f in files1.groups()]
   == ["here-mlp-small-cpu-3.json", "here-mlp-small-cpu-2.json", "here-mlp-small-cpu-1.json",
       "here-mlp-small-cuda.json"],
   "claim 1 names the files of its figures, the newest first", claim_block(1))
ok("reason: " in claim_block(1) and "here-mlp-small-cuda-pageable.json" in claim_block(1),
   "and the files of its reason's figures", claim_block(1))
for name in ["bad-utf8", "deep", "not-a-result", "nul-escape", "seconds-1e300", "trailing",
             "truncated", "wrong-types"]:
    ok(re.search(r"skipped: .*%s\.json: " % re.escape(name), err) is not None,
       "hostile %s.json skipped with a message naming it" % name, err)
ok(re.search(r"deep\.json: byte 64: nested more than 64 levels", err) is not None,
   "a 100,000-level file is stopped at its 65th level", err)
ok(re.search(r"seconds-1e300\.json: epochs\[0\]\.seconds is 1e\+300 s: not a time a result may "
             r"claim", err) is not None,
   "an epoch of 1e300 s: the file is skipped, the field named", err)

# ------------------------------------------------------------------ HTML


class Checker(html.parser.HTMLParser):
    VOID = {"meta", "br", "line", "rect", "hr", "img", "link", "input"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.errors = []
        self.tags = {}
        self.attrs = []
        self.text = []

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        self.attrs += attrs
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        self.attrs += attrs

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> closes <%s>" % (tag, self.stack[-1] if self.stack else ""))
        else:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


try:
    page = open(html_file, encoding="utf-8").read()
except (OSError, UnicodeDecodeError) as e:
    page = ""
    ok(False, "the HTML file is UTF-8", e)
checker = Checker()
checker.feed(page)
checker.close()
ok(page.startswith("<!DOCTYPE html>") and not checker.errors and not checker.stack,
   "the HTML page is well-formed", "%s %s" % (checker.errors, checker.stack))
ok("script" not in checker.tags and "link" not in checker.tags and "img" not in checker.tags
   and "iframe" not in checker.tags, "no scripts and no external resources", checker.tags)
urls = [v for k, v in checker.attrs if k in ("src", "href") or (v or "").startswith("http")]
ok(all(u == "http://www.w3.org/2000/svg" for u in urls), "nothing is fetched", urls)
ok(checker.tags.get("svg") == 4 and checker.tags.get("style") == 1,
   "inline CSS and an SVG chart per claim", checker.tags)
text = "".join(checker.text)
ok('<script>alert("x")</script> & Co\'s CPU' in text and "Other GPU <b>" in text,
   "what the files say is escaped: it reads back as text", text[-2000:])
for verdict in ["holds here", "does not hold here", "not measured yet"]:
    ok(verdict in text, "the page says '%s'" % verdict)

try:
    doc = json.load(open(json_file))
except (OSError, ValueError) as e:
    doc = {}
ok(doc.get("kind") == "trainbench-report"
   and [c["verdict"] for c in doc.get("claims", [])]
   == ["holds here", "does not hold here", "not measured yet", "holds here"],
   "the JSON report has each claim's verdict", str(doc)[:1000])
claims = doc.get("claims", [{}])
ok([os.path.basename(f.replace("\\", "/")) for f in claims[0].get("cpu", {}).get("files", [])]
   == ["here-mlp-small-cpu-3.json", "here-mlp-small-cpu-2.json", "here-mlp-small-cpu-1.json"]
   and len(claims[0].get("reason_files", [])) == 5,
   "the JSON names the files of claim 1's figures", str(claims[0])[:1000])
ok(sorted(o.get("why", "") for o in doc.get("other_runs", []))
   == ["another machine (9a8b7c6d)", "another machine (f0e1d2c3)",
       "no machine id recorded (an older file, or not Trainbench's)",
       "this machine under another OS", "this machine under another OS"]
   and [u.get("started_at") for u in doc.get("undated_runs", [])] == ["2999-12-31T00:00:00Z"],
   "the JSON says why runs are apart, and which is of unknown time", str(doc)[-2000:])
ok("here-mlp-small-cpu-3.json" in text and "another machine (f0e1d2c3)" in text,
   "the HTML page names the files and why runs are apart", text[-3000:])

# ------------------------------------------------------------------ whose runs: machine ids

# another laptop of this CPU model under Windows: its file alone measured
# the Windows claim before machine ids
linux = os.path.join(FOREIGN_WINDOWS, "here-cnn-cpu-linux.json")
windows = os.path.join(FOREIGN_WINDOWS, "foreign-same-model-windows-cnn-cpu.json")
rc, out, err = cli("--runs", win(FOREIGN_WINDOWS), "--machine", win(linux))
ok(rc == 0 and "verdict       not measured yet" in claim_block(4)
   and "another machine (f0e1d2c3)" in out,
   "a foreign Windows run of the same CPU model does not measure claim 4", out + err)
# the same files as one machine that boots both
rc, out, err = cli("--runs", win(FOREIGN_WINDOWS), "--machine", win(linux), "--machine",
                   win(windows))
ok(rc == 0 and "verdict       holds here" in claim_block(4)
   and "(machines 5e1f0c2a, f0e1d2c3)" in out,
   "--machine given twice: the machines of both files are one", out + err)
rc, out, err = cli("--runs", win(RUNS), "--machine", win(os.path.join(RUNS,
                                                                      "no-id-mlp-wide-cuda.json")))
ok(rc == 2 and "records no machine id" in err, "--machine of a file without an id: refused", err)

# this machine's own id: made once, the same for processes that start
# together, shown by sysinfo, and the runs that record it are this machine's
procs = [subprocess.Popen(WRAPPER + [CLI, "sysinfo"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=ENV) for _ in range(8)]
ids = []
for p in procs:
    o, e = p.communicate(timeout=120)
    m = re.search(r"^machine   ([0-9a-f]{32}) \(kept in (.*)\)$", o, re.M)
    ids.append(m.group(1) if m else o + e)
ok(len(set(ids)) == 1 and re.fullmatch(r"[0-9a-f]{32}", ids[0]),
   "8 sysinfo processes started at once show one machine id", ids)
id_file = os.path.join(TMP, "xdg", "trainbench", "machine-id")
ok(os.path.isfile(id_file) and open(id_file).read() == ids[0] + "\n",
   "kept beside the runs folder", id_file)
runs_here = os.path.join(TMP, "xdg", "trainbench", "runs")
os.makedirs(runs_here, exist_ok=True)
with open(os.path.join(RUNS, "here-mlp-small-cpu-1.json")) as f:
    run = json.load(f)
run["system"]["machine_id"] = str(ids[0])
with open(os.path.join(runs_here, "mine.json"), "w") as f:
    json.dump(run, f)
del run["system"]["machine_id"]
with open(os.path.join(runs_here, "older.json"), "w") as f:
    json.dump(run, f)
rc, out, err = cli()
ok(rc == 0 and "Read 2 result files, 1 of them this machine's" in " ".join(out.split())
   and "(machine %s)" % ids[0][:8] in out and "no machine id recorded" in out,
   "the runs folder's run that records this machine's id is its own, the older file not",
   out + err)

# ------------------------------------------------------------------ links in sweeps/

if os.name == "posix":
    linked = os.path.join(TMP, "linked")
    shutil.copytree(RUNS, linked)
    os.symlink("..", os.path.join(linked, "sweeps", "up"))
    os.symlink("/", os.path.join(linked, "sweeps", "root"))
    rc, out, err = cli("--runs", win(linked), "--machine", win(MACHINE))
    ok(rc == 0 and "Read 22 result files" in out
       and err.count("a link to a folder: not followed") == 2,
       "links to folders in sweeps/ are not followed, and said so", out[:300] + err)
else:
    print("ok %d - links in sweeps/ are not followed # SKIP no symbolic links here" % (
        len(results) + 1))
    results.append(True)

# ------------------------------------------------------------------ terminal escapes

# A result whose fields hold what a terminal acts on (a screen clear, a
# window title, OSC 52's clipboard write, a line overwritten with \r, a
# right-to-left override), and a file whose name does (not on Windows,
# which takes no control character in a name): the report prints them
# escaped, never a raw control byte.
def raw_controls(text):
    if CLI.lower().endswith(".exe"):
        text = text.replace("\r\n", "\n")   # a Windows program writes its line ends so
    return sorted({"U+%04X" % ord(c) for c in text
                   if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f
                   or 0x202a <= ord(c) <= 0x202e or 0x2066 <= ord(c) <= 0x2069})


evil = os.path.join(TMP, "evil")
os.makedirs(evil)
doc = json.load(open(os.path.join(RUNS, "other-mlp-small-cuda.json")))
doc["run_id"] = "id\x1b]52;c;ZWNobyBldmls\x07"
doc["device"]["name"] = "GPU\rCPU 100x faster"
doc["system"]["cpu"]["model"] = "CPU\x1b[2J\x1b]0;title\x07\u202e"
with open(os.path.join(evil, "other.json"), "w") as f:
    json.dump(doc, f)
if not UNDER_WINE:
    with open(os.path.join(evil, "bad\x1b[31m\r\u202e.json"), "w") as f:
        f.write("{ nope")
p = subprocess.run(WRAPPER + [CLI, "report", "--runs", win(evil), "--machine", win(MACHINE)],
                   capture_output=True, env=ENV, timeout=120)
out, err = p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
ok(p.returncode == 0 and not raw_controls(out + err) and "id\\x1b]52;c;ZWNobyBldmls\\x07" in out
   and "GPU\\rCPU 100x faster" in out and "\\x1b]0;title\\x07\\u202e" in out
   and (UNDER_WINE or "bad\\x1b[31m\\r\\u202e.json" in err),
   "result fields and file names are printed escaped %s" % raw_controls(out + err), out + err)

# ------------------------------------------------------------------ the runs folder, errors

empty = os.path.join(TMP, "empty")
os.makedirs(empty)
rc, out, err = cli("--runs", win(empty))
ok(rc == 0 and out.count("not measured yet") == 4 and not err,
   "with no runs at all every claim is not measured yet", out + err)
rc, out, err = cli("--runs")
ok(rc == 2 and "--runs needs a value" in err, "--runs without a value is a usage error", err)
rc, out, err = cli("--bogus")
ok(rc == 2 and "unknown option '--bogus'" in err, "an unknown option is a usage error", err)
rc, out, err = cli("--machine", win(os.path.join(TMP, "none.json")))
ok(rc == 2 and "none.json" in err, "a missing --machine file is a usage error", err)
rc, out, err = cli("--runs", win(RUNS), "--html", win(os.path.join(TMP, "no", "such", "x.html")))
ok(rc == 1 and "x.html" in err, "an HTML file that cannot be written: exit 1", err)

print("1..%d" % len(results))
shutil.rmtree(TMP, ignore_errors=True)
sys.exit(0 if all(results) else 1)
