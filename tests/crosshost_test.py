#!/usr/bin/env python3
"""The same bytes on both hosts: build/mcgen against build/win64/mcgen.exe.

Every manifest of the corpus (../shared/corpus/golden/*/input.man and
corpus/manifests/) is compiled three ways, each with both binaries in a
directory of its own, the input named by its absolute path:
  * mc's outputs (.h, .rc, message tables, TEMP.BIN) and the JSON model in
    one run (--json=model.json --mc-outputs);
  * -um with --mc-compat=10.0.15063 (the user-mode header, CRIM 3.1);
  * -km (the kernel-mode header).
Every .mc of the corpus likewise: the golden-mc cases with their
SOURCE.txt command line (and the --mc-compat of their mc's generation, as
tests/golden_mc_test.py runs them), corpus/mc-sources with mc's defaults
and with -c -d -o -n -x . -cp utf-8 (customer bit, decimal, OLE layout
comment, no CRLF, the .dbg, a UTF-8 header).  Then a manifest and a .mc
in a directory whose name has spaces and non-ASCII characters
(`dir with spaces/ünïcødé ✓`), with -h and -r pointing there by absolute
and by relative path, once with Windows paths for the .exe (Z:\\...\\inc ✓,
..\\ünïcødé ✓\\rës, --render=Z:\\...\\events.md.j2:Z:\\...\\evënts.md) and the
same paths with / for the Linux build.

For each run: the exit statuses are equal, the lists of files written are
equal, every file is byte-identical, and stdout and stderr are equal with
the paths aside (the run directory's, which differs between the two runs),
byte for byte otherwise: mcgen.exe writes LF line ends as the Linux build.  A difference names the input, the options, the file and the
offset of the first differing byte.

Wine starts in about 0.05 s once its prefix exists; two runs go at a time
(the machine's cores), so the layer takes about as long as the slowest
manifest's runs add up to.  Says "skipped" when wine, the .exe or the
corpus is absent.  Prints "N passed, N failed, N skipped".
"""
import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile

import golden_mc_test
import winexe

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus")
UNICODE_DIR = os.path.join("dir with spaces", "ünïcødé ✓")
results = {"passed": 0, "failed": 0, "skipped": 0}

MANIFEST_RUNS = (["--json=model.json", "--mc-outputs"], ["-um", "--mc-compat=10.0.15063"], ["-km"])
MC_RUNS = ([], ["-c", "-d", "-o", "-n", "-x", ".", "-cp", "utf-8"])


def check(ok, name, why=""):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + str(why)[:800]))


def listing(d):
    """Every file under d, relative with '/', sorted."""
    out = []
    for base, _, files in os.walk(d):
        out += [os.path.relpath(os.path.join(base, f), d).replace(os.sep, "/") for f in files]
    return sorted(out)


class Run:
    """One compilation: the input copied into `copy` of each run directory
    when the command names it relatively, else given by absolute path."""

    def __init__(self, label, args, source=None, copy=None, subdir="", winpaths=False):
        self.label, self.args, self.source, self.copy, self.subdir, self.winpaths = \
            label, args, source, copy, subdir, winpaths

    def prepare(self, work):
        os.makedirs(os.path.join(work, self.subdir), exist_ok=True)
        if self.copy:
            dest = os.path.join(work, self.subdir, self.copy)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copy(self.source, dest)

    def execute(self, mcgen, work):
        self.prepare(work)
        r = subprocess.run([mcgen, *self.args], cwd=os.path.join(work, self.subdir),
                           capture_output=True)
        if r.returncode != 0 and not r.stdout and not r.stderr:
            # mcgen never fails without a message; wine's start can, on a
            # loaded machine (winexe.wrap): run once more, and say so
            print("NOTE %s %s: exit %d with no message, run again"
                  % (self.label, " ".join(self.args), r.returncode))
            r = subprocess.run([mcgen, *self.args], cwd=os.path.join(work, self.subdir),
                               capture_output=True)
        return r


def aside(text, work):
    """stdout or stderr with the run directory's path replaced: what is left
    must be the same bytes on both hosts (mcgen.exe writes LF, not the
    console's CRLF)."""
    for form in (work, work.replace("/", "\\"), "Z:" + work.replace("/", "\\")):
        text = text.replace(form.encode("utf-8"), b"<dir>")
    return text


def first_difference(a, b):
    n = min(len(a), len(b))
    at = next((i for i in range(n) if a[i] != b[i]), n)
    return "%d vs %d bytes, first difference at offset 0x%x" % (len(a), len(b), at)


def compare(run, linux_dir, windows_dir, rl, rw):
    """The checks of one run: status, files, bytes, console text."""
    name = " ".join([run.label] + [a for a in run.args if a != run.source])
    if rl.returncode != rw.returncode:
        check(False, name + ": same exit status", "Linux %d, Windows %d\n%s\n%s" % (
            rl.returncode, rw.returncode, rl.stderr.decode("utf-8", "replace"),
            rw.stderr.decode("utf-8", "replace")))
        return
    a, b = listing(linux_dir), listing(windows_dir)
    if a != b:
        check(False, name + ": the same files", "Linux %r, Windows %r" % (a, b))
        return
    differ = []
    for f in a:
        x = open(os.path.join(linux_dir, f), "rb").read()
        y = open(os.path.join(windows_dir, f), "rb").read()
        if x != y:
            differ.append("%s: %s" % (f, first_difference(x, y)))
    ol, ow = aside(rl.stdout, linux_dir), aside(rw.stdout, windows_dir)
    el, ew = aside(rl.stderr, linux_dir), aside(rw.stderr, windows_dir)
    if ol != ow:
        differ.append("stdout: %r vs %r" % (ol[:300], ow[:300]))
    if el != ew:
        differ.append("stderr:\n--- Linux\n%s--- Windows\n%s" % (
            el.decode("utf-8", "replace")[:600], ew.decode("utf-8", "replace")[:600]))
    outs = [f for f in a if not (run.copy and f == (run.subdir + "/" + run.copy).lstrip("/"))]
    if differ:
        check(False, name, "; ".join(differ))
    else:
        check(True, "%s: exit %d, %d files identical%s" % (
            name, rl.returncode, len(outs), ", diagnostics equal" if rl.stderr else ""))


def manifests():
    """(label, absolute path) of every corpus manifest."""
    out = []
    gold = os.path.join(CORPUS, "golden")
    for case in sorted(os.listdir(gold)):
        out.append(("golden/" + case, os.path.join(gold, case, "input.man")))
    top = os.path.join(CORPUS, "manifests")
    for base, _, files in sorted(os.walk(top)):
        for f in sorted(files):
            if f.lower().endswith((".man", ".xml", ".manifest")):
                p = os.path.join(base, f)
                out.append((os.path.relpath(p, CORPUS), p))
    return out


def runs():
    out = []
    for label, path in manifests():
        for args in MANIFEST_RUNS:
            out.append(Run(label, args + [path], path))
    gold = os.path.join(CORPUS, "golden-mc")
    for case in sorted(os.listdir(gold)):
        cmd, _ = golden_mc_test.source_command(case)
        src = [a for a in cmd if a.lower().endswith(".mc")][0]
        out.append(Run("golden-mc/" + case, ["--mc-compat=" + golden_mc_test.ERA[case]] + cmd,
                       os.path.join(gold, case, "input.mc"), src))
    top = os.path.join(CORPUS, "mc-sources")
    for base, _, files in sorted(os.walk(top)):
        for f in sorted(files):
            if f.lower().endswith(".mc"):
                p = os.path.join(base, f)
                for args in MC_RUNS:
                    out.append(Run(os.path.relpath(p, CORPUS), args + [p], p))
    return out


def unicode_runs():
    """A manifest and a .mc in `dir with spaces/ünïcødé ✓`, outputs there
    by absolute -h/-r (filled in per run directory) and by relative ones."""
    hello = os.path.join(ROOT, "examples", "hello", "hello.man")
    mc = os.path.join(CORPUS, "mc-sources", "microsoft-Windows-driver-samples", "serlog.mc")
    out = [Run("hello.man in '%s'" % UNICODE_DIR, ["-um", "-h", UNICODE_DIR + "/inc ✓",
                                                    "-r", UNICODE_DIR, UNICODE_DIR + "/hëllo.man"],
               hello, UNICODE_DIR + "/hëllo.man"),
           Run("hello.man in '%s' (absolute -h, -r)" % UNICODE_DIR,
               ["-um", "-h", "{abs}/inc ✓", "-r", "{abs}", "--json={abs}/mödel.json",
                "--mc-outputs", "hëllo.man"], hello, "hëllo.man", UNICODE_DIR)]
    template = os.path.join(ROOT, "examples", "templates", "events.md.j2")
    out.append(Run("hello.man in '%s', Windows paths for the .exe" % UNICODE_DIR,
                   ["-km", "-h", "{abs}{/}inc ✓", "-r", "..{/}ünïcødé ✓{/}rës",
                    "--render={root}{/}%s:{abs}{/}evënts.md" % os.path.relpath(template, ROOT)
                    .replace(os.sep, "{/}"), "--mc-outputs", "hëllo.man"],
                   hello, "hëllo.man", UNICODE_DIR, winpaths=True))
    if os.path.exists(mc):
        out.append(Run("serlog.mc in '%s'" % UNICODE_DIR,
                       ["-h", UNICODE_DIR, "-r", UNICODE_DIR + "/rës", "-x", UNICODE_DIR,
                        UNICODE_DIR + "/sërlog.mc"], mc, UNICODE_DIR + "/sërlog.mc"))
    return out


def execute(mcgen, run, work, windows):
    """Runs with {abs} in the options standing for the run's directory,
    {root} for the repository's and {/} for the separator: for the .exe
    of a `winpaths` run, Z:\\ and backslashes (wine's drive Z: is /)."""
    def host(a):
        a = a.replace("{abs}", os.path.join(work, run.subdir)).replace("{root}", ROOT)
        a = a.replace("{/}", "/")
        if windows and run.winpaths:
            a = a.replace(work, "Z:" + work).replace(ROOT, "Z:" + ROOT).replace("/", "\\")
        return a
    real = Run(run.label, [host(a) for a in run.args], run.source, run.copy, run.subdir)
    return real.execute(mcgen, work)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True, help="the Linux build")
    ap.add_argument("--exe", default=os.path.join(ROOT, "build", "win64", "mcgen.exe"),
                    help="the Windows build, run under wine")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    linux = os.path.abspath(a.mcgen)
    exe = winexe.command_or_skip(os.path.abspath(a.exe))
    if exe is None:
        return 0
    todo = unicode_runs()
    if os.path.isdir(CORPUS):
        todo = runs() + todo
    else:
        results["skipped"] += 1
        print("SKIP the corpus: ../shared/corpus absent")
    tmp = tempfile.mkdtemp(prefix="mcgen-crosshost-")
    try:
        def both(i):
            run = todo[i]
            dl, dw = os.path.join(tmp, "%d-linux" % i), os.path.join(tmp, "%d-windows" % i)
            return dl, dw, execute(linux, run, dl, False), execute(exe, run, dw, winexe.running())
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
            for i, (dl, dw, rl, rw) in enumerate(pool.map(both, range(len(todo)))):
                compare(todo[i], dl, dw, rl, rw)
                shutil.rmtree(dl)
                shutil.rmtree(dw)
    finally:
        shutil.rmtree(tmp)
    print("%d passed, %d failed, %d skipped" % (results["passed"], results["failed"],
                                              results["skipped"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
