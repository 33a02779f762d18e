#!/usr/bin/env python3
"""The invalid corpus: tests/invalid/NAME.man (a manifest) or NAME.mc (a
message-text file) with its expected diagnostics.

For every tests/invalid/NAME.man and NAME.mc:
  * `mcgen --validate [ARGS] NAME.man` runs in tests/invalid (so the file
    name in diagnostics is just NAME.man); ARGS come from NAME.args (one
    line, shell words) when that file exists: the switches that change
    the verdict, such as -A for MCG5018, or a second input (a .man and a
    .mc in one run, MCG5111: the other one lives in tests/invalid/with/,
    which is no case of its own);
  * its stderr must equal NAME.err exactly: the transcript, down to the
    closing "N errors, M warnings" line;
  * its exit status must be 1 when NAME.err has an "error:" diagnostic,
    0 otherwise.
A case too large to keep (a limit of a format: a 32,762-character string,
65,537 fields) is NAME.py instead of NAME.man: a script that prints the
manifest, written to a temporary NAME.man and checked the same way; one
whose bytes are better written by a program (UTF-16, an invalid byte) is
NAME.mc.py, whose output becomes NAME.mc.
Then the codes: every code of mcgen/diagcodes.def must appear in some
.err (a case that shows it) and have its entry ("## MCGnnnn") in
docs/diagnostics.md.

--update rewrites the .err files from what mcgen prints (review the diff:
an expected text is only right once checked against the rule it shows).

Prints one line per check and "N passed, N failed".
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

import winexe

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = os.path.join(ROOT, "tests", "invalid")

results = {"passed": 0, "failed": 0}


def report(ok, name, why=""):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why))


def codes():
    """(number, name) of every code in mcgen/diagcodes.def."""
    out = []
    text = open(os.path.join(ROOT, "mcgen", "diagcodes.def"), encoding="utf-8").read()
    for m in re.finditer(r'^DIAG_CODE\((\d+),\s*\w+,\s*"([^"]+)"', text, re.M):
        out.append((int(m.group(1)), m.group(2)))
    return out


def cases():
    """(NAME, ".man" or ".mc") of every case, the generated ones too."""
    out = set()
    for f in os.listdir(CASES):
        for tail, ext in ((".mc.py", ".mc"), (".py", ".man"), (".man", ".man"), (".mc", ".mc")):
            if f.endswith(tail):
                out.add((f[:-len(tail)], ext))
                break
    return sorted(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    ap.add_argument("--update", action="store_true")
    args = ap.parse_args()
    mcgen = winexe.command_or_skip(os.path.abspath(args.mcgen))
    if mcgen is None:
        return 0
    names = cases()
    shown = set()
    tmp = tempfile.TemporaryDirectory()
    for name, ext in names:
        cwd = CASES
        gen = os.path.join(CASES, name + (".mc.py" if ext == ".mc" else ".py"))
        if os.path.exists(gen):
            cwd = tmp.name
            with open(os.path.join(cwd, name + ext), "wb") as f:
                f.write(subprocess.run([sys.executable, gen],
                                       check=True, capture_output=True).stdout)
        extra = []
        argf = os.path.join(CASES, name + ".args")
        if os.path.exists(argf):
            extra = shlex.split(open(argf, encoding="utf-8").read())
        r = subprocess.run([mcgen, "--validate"] + extra + [name + ext], cwd=cwd,
                           capture_output=True, text=True, errors="replace")
        errf = os.path.join(CASES, name + ".err")
        if args.update:
            with open(errf, "w", encoding="utf-8", newline="\n") as f:
                f.write(r.stderr)
        want = open(errf, encoding="utf-8").read() if os.path.exists(errf) else None
        if want is None:
            report(False, name, "no %s.err" % name)
            continue
        shown.update(int(c) for c in re.findall(r"\[MCG(\d{4})[],]", want))
        status = 1 if re.search(r"^[^ ].*: error: ", want, re.M) else 0
        ok = r.stderr == want and r.returncode == status
        why = ""
        if r.returncode != status:
            why = "exit %d, expected %d" % (r.returncode, status)
        elif r.stderr != want:
            why = "diagnostics differ:\n--- expected\n%s--- got\n%s" % (want, r.stderr)
        report(ok, name + ext, why)
    docs = os.path.join(ROOT, "docs", "diagnostics.md")
    documented = set()
    if os.path.exists(docs):
        documented = {int(c) for c in
                      re.findall(r"^## MCG(\d{4})\b", open(docs, encoding="utf-8").read(), re.M)}
    for num, name in codes():
        report(num in shown, "MCG%04d (%s) has a case in tests/invalid" % (num, name),
               "no .err shows [MCG%04d]" % num)
        report(num in documented, "MCG%04d (%s) is documented" % (num, name),
               "no '## MCG%04d' entry in docs/diagnostics.md" % num)
    print("%d cases" % len(names))
    print("%d passed, %d failed" % (results["passed"], results["failed"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
