#!/usr/bin/env python3
"""Smoke test of the Windows build, build/win64/mcgen.exe, under wine.

What the binary is: `file` must call it a PE32+ x86-64 executable, and
the DLLs it imports (x86_64-w64-mingw32-objdump -p) must be exactly the
Windows system DLLs listed in SYSTEM_DLLS: a static build needs nothing
else on a user's machine.

What it does, each time against a reference: a golden case run with its
SOURCE.txt command gives mc's bytes (../shared/corpus/golden) and the
Linux build's (--mcgen) for every output; an invalid manifest gives exit
status 1 and the transcript of tests/invalid/NAME.err, as the Linux build
does; --render with a drive in the template's path (C:\\...) and in the
output's (Z:\\..., wine's drive for /) splits at the right colon; outputs
in a directory named with backslashes, spaces and non-ASCII letters
(made by mcgen, mkdir -p) and a manifest read from there; `-` writes
binary bytes (a CRLF stays CRLF) and NUL takes them without a file; a
run whose outputs do not change leaves their dates alone; a failed run
leaves every old output as it was and no temporary.  tests/wintest_*
(helper wintest) run the big layers against mcgen.exe; this one stays
small: about ten wine runs.

Prints one line per check and "N passed, N failed, N skipped"; says
"skipped" when build/win64/mcgen.exe, wine or the corpus is absent.
"""
import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import winexe

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "..", "shared", "corpus")
EXE = os.path.join(ROOT, "build", "win64", "mcgen.exe")
OBJDUMP = "x86_64-w64-mingw32-objdump"
# Every one ships with Windows: the kernel, the C runtime every Windows has
# (msvcrt.dll), and the shell (CommandLineToArgvW, for a UTF-8 argv).
SYSTEM_DLLS = {"KERNEL32.DLL", "MSVCRT.DLL", "SHELL32.DLL"}
CASE = "etk-EventAttributes"
INVALID = "MCG2014-duplicate-opcode-2"
results = {"passed": 0, "failed": 0, "skipped": 0}


def report(ok, what, why=""):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + what + ("" if ok else ": " + why))


def run_exe(args, cwd):
    return subprocess.run(["wine", EXE] + args, cwd=cwd, env=winexe.env(), capture_output=True,
                          timeout=120)


def run_linux(mcgen, args, cwd):
    return subprocess.run([mcgen] + args, cwd=cwd, capture_output=True, timeout=60)


def files_under(d):
    """{relative path: bytes} of every file under d."""
    out = {}
    for base, _, names in os.walk(d):
        for n in names:
            p = os.path.join(base, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, d)] = f.read()
    return out


def binary(tmp):
    info = subprocess.run(["file", EXE], capture_output=True, text=True).stdout
    report("PE32+ executable" in info and "x86-64" in info, "file: PE32+ x86-64", info.strip())
    if not shutil.which(OBJDUMP):
        results["skipped"] += 1
        print("skipped: %s not installed" % OBJDUMP)
        return
    dump = subprocess.run([OBJDUMP, "-p", EXE], capture_output=True, text=True).stdout
    dlls = {m.upper() for m in re.findall(r"DLL Name: (\S+)", dump)}
    report(dlls == SYSTEM_DLLS, "imports only %s (%d KiB)" % (
        ", ".join(sorted(SYSTEM_DLLS)), os.path.getsize(EXE) // 1024), "imports %s" % sorted(dlls))


def case_command():
    """The golden case's mc arguments (SOURCE.txt) and its manifest's name."""
    case = os.path.join(CORPUS, "golden", CASE)
    text = open(os.path.join(case, "SOURCE.txt"), encoding="utf-8").read()
    words = shlex.split(re.search(r"^command: mc (.*?)(\s{2,}\(|$)", text, re.M).group(1))
    return words, next(w for w in words if w.endswith(".man"))


def golden(mcgen, tmp):
    """The case's command in two empty directories, mcgen.exe's and
    build/mcgen's; returns the directory mcgen.exe wrote, or None."""
    case = os.path.join(CORPUS, "golden", CASE)
    words, name = case_command()
    dirs = {}
    for who in ("exe", "linux"):
        d = dirs[who] = os.path.join(tmp, "golden-" + who)
        os.makedirs(d)
        shutil.copy(os.path.join(case, "input.man"), os.path.join(d, name))
        r = run_exe(words, d) if who == "exe" else run_linux(mcgen, words, d)
        if r.returncode != 0:
            report(False, "%s: mc %s under %s" % (CASE, " ".join(words), who), r.stderr.decode())
            return None
    got, linux = files_under(dirs["exe"]), files_under(dirs["linux"])
    for ref, out in (("TEMP.BIN", "xTEMP.BIN"), ("MSG00001.bin", "x_MSG00001.bin")):
        want = open(os.path.join(case, ref), "rb").read()
        report(got.get(out) == want, "%s: mcgen.exe's %s = mc's %s (%d bytes)" % (
            CASE, out, ref, len(want)), "differs")
    report(got == linux and len(got) == 5, "%s: all %d files equal build/mcgen's (%s)" % (
        CASE, len(got), ", ".join(sorted(got))),
        "differ: %s" % sorted(k for k in set(got) | set(linux) if got.get(k) != linux.get(k)))
    return dirs["exe"]


def invalid(mcgen, tmp):
    d = os.path.join(ROOT, "tests", "invalid")
    want = open(os.path.join(d, INVALID + ".err"), "rb").read()
    args = ["--validate", INVALID + ".man"]
    w, lx = run_exe(args, d), run_linux(mcgen, args, d)
    report(w.returncode == 1 and w.stderr == want and lx.stderr == want and lx.returncode == 1,
           "%s: exit 1 and NAME.err's transcript, as build/mcgen" % INVALID,
           "exit %d, stderr %r" % (w.returncode, w.stderr[:300]))


def render(mcgen, tmp):
    d = os.path.join(tmp, "render")
    os.makedirs(d)
    man = os.path.join(CORPUS, "golden", CASE, "input.man")
    shutil.copy(man, os.path.join(d, "a.man"))
    template = b"file {{ file }}\r\nproviders {{ providers | length }}\n"
    with open(os.path.join(d, "t.j2"), "wb") as f:
        f.write(template)
    want = run_linux(mcgen, ["--render=t.j2:-", "a.man"], d)
    # a template on C:, the prefix's drive_c
    cdir = "mcgen-win64-test-%d" % os.getpid()
    drive_c = os.path.join(winexe.env()["WINEPREFIX"], "drive_c", cdir)
    os.makedirs(drive_c, exist_ok=True)
    shutil.copy(os.path.join(d, "t.j2"), drive_c)
    try:
        r = run_exe(["--render=C:\\%s\\t.j2:out.txt" % cdir, "a.man"], d)
        got = open(os.path.join(d, "out.txt"), "rb").read() if r.returncode == 0 else None
        report(got == want.stdout and b"\r\n" in got, "--render=C:\\...\\t.j2:out.txt",
               "exit %d %r" % (r.returncode, r.stderr))
    finally:
        shutil.rmtree(drive_c, ignore_errors=True)
    out = "Z:" + os.path.join(d, "abs.txt").replace("/", "\\")
    r = run_exe(["--render=t.j2:" + out, "a.man"], d)
    p = os.path.join(d, "abs.txt")
    report(r.returncode == 0 and os.path.exists(p) and open(p, "rb").read() == want.stdout,
           "--render=t.j2:Z:\\...\\abs.txt", "exit %d %r" % (r.returncode, r.stderr))
    # two devices, neither with a file identity: not "the same file"
    before = set(os.listdir(d))
    r = run_exe(["--render=t.j2:-", "--render=t.j2:NUL", "a.man"], d)
    report(r.returncode == 0 and r.stdout == want.stdout,
           "--render=t.j2:- writes binary bytes (CRLF stays CRLF)", "got %r %r" % (
               r.stdout, r.stderr))
    report(r.returncode == 0 and set(os.listdir(d)) == before,
           "--render=t.j2:NUL: written in place, no file made", "exit %d, files %s" % (
               r.returncode, sorted(set(os.listdir(d)) - before)))


def unicode_dirs(mcgen, tmp):
    d = os.path.join(tmp, "unicode")
    os.makedirs(d)
    man = os.path.join(CORPUS, "golden", CASE, "input.man")
    sub = "dir with spaces\\ünï"
    args = ["-um", "-h", sub + "\\inc", "-r", sub + "\\rc", "-z", "x", "a.man"]
    shutil.copy(man, os.path.join(d, "a.man"))
    r = run_exe(args, d)
    got = files_under(os.path.join(d, "dir with spaces"))
    lin = os.path.join(tmp, "unicode-linux")
    os.makedirs(lin)
    shutil.copy(man, os.path.join(lin, "a.man"))
    lx = run_linux(mcgen, [a.replace("\\", "/") for a in args], lin)
    want = files_under(os.path.join(lin, "dir with spaces"))
    report(r.returncode == 0 and lx.returncode == 0 and got == want and len(got) == 4,
           "-h/-r '%s\\...': made, %d outputs equal build/mcgen's" % (sub, len(got)),
           "exit %d %r; got %s want %s" % (r.returncode, r.stderr, sorted(got), sorted(want)))
    # the header names the manifest by its base name: m.man on both hosts
    for base in (d, lin):
        shutil.copy(man, os.path.join(base, "dir with spaces", "ünï", "m.man"))
    r = run_exe(["-um", "-z", "y", sub + "\\m.man"], d)
    lx = run_linux(mcgen, ["-um", "-z", "y", sub.replace("\\", "/") + "/m.man"], lin)
    p = os.path.join(d, "y.h")
    want = open(os.path.join(lin, "y.h"), "rb").read() if lx.returncode == 0 else None
    report(r.returncode == 0 and os.path.exists(p) and open(p, "rb").read() == want
           and b"m.man" in want and "ünï".encode() not in want,
           "a manifest read from '%s': y.h equals build/mcgen's" % sub,
           "exit %d %r" % (r.returncode, r.stderr))
    if not shutil.which("ninja"):
        results["skipped"] += 1
        print("skipped the depfile: ninja not installed")
        return
    # the depfile of that run, read by ninja's own parser (-t deps)
    r = run_exe(["-um", "-z", "y", "--depfile=y.d", sub + "\\m.man"], d)
    with open(os.path.join(d, "build.ninja"), "w") as f:
        f.write("rule dep\n  command = cp y.d out.d && touch out\n  depfile = out.d\n"
                "  deps = gcc\nbuild out: dep\n")
    subprocess.run(["ninja"], cwd=d, capture_output=True)
    deps = subprocess.run(["ninja", "-t", "deps"], cwd=d, capture_output=True).stdout.decode()
    report(r.returncode == 0 and deps.splitlines()[1:2] == ["    " + sub + "\\m.man"],
           "--depfile: ninja reads '%s\\m.man' from it" % sub, "exit %d, ninja: %r" % (
               r.returncode, deps))


def unchanged_and_failed(golden_dir):
    words, name = case_command()
    outs = [n for n in os.listdir(golden_dir) if n != name]
    for n in outs:
        os.utime(os.path.join(golden_dir, n), (1000000000, 1000000000))
    before = files_under(golden_dir)
    r = run_exe(words, golden_dir)
    dates = {n: os.stat(os.path.join(golden_dir, n)).st_mtime for n in outs}
    report(r.returncode == 0 and set(dates.values()) == {1000000000},
           "a second run: %d unchanged outputs keep their dates" % len(outs),
           "exit %d, dates %s" % (r.returncode, dates))
    shutil.copy(os.path.join(ROOT, "tests", "invalid", INVALID + ".man"),
                os.path.join(golden_dir, name))
    before[name] = open(os.path.join(golden_dir, name), "rb").read()
    r = run_exe(words, golden_dir)
    after = files_under(golden_dir)
    report(r.returncode == 1 and after == before,
           "a failed run: exit 1, %d old outputs byte-identical, no temporary" % len(outs),
           "exit %d, changed or new: %s" % (r.returncode, sorted(
               k for k in set(after) | set(before) if after.get(k) != before.get(k))))


def interrupted(mcgen, tmp):
    """Ctrl-C (wine turns SIGINT into the console's CTRL_C_EVENT) while a
    temporary exists: the console handler removes it and ends the run with
    STATUS_CONTROL_C_EXIT (0xC000013A, which wine reports as 0x3A); the
    older outputs stay as they were."""
    d = os.path.join(tmp, "interrupted")
    os.makedirs(d)
    subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_manifest.py"), "--size-mb",
                    "8", "--out", os.path.join(d, "big.man")], check=True, capture_output=True)
    with open(os.path.join(d, "x.h"), "wb") as f:
        f.write(b"an older header\r\n")
    before = files_under(d)
    p = subprocess.Popen(["wine", EXE, "-um", "-z", "x", "-Wno-unused-string", "big.man"], cwd=d,
                         env=winexe.env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen = False
    while p.poll() is None and not seen:
        seen = any(".mcgen-" in n for n in os.listdir(d))
        if not seen:
            time.sleep(0.005)
    if seen:
        p.send_signal(signal.SIGINT)
    try:
        rc = p.wait(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
    after = files_under(d)
    report(seen and rc == 0x3A and after == before,
           "Ctrl-C while writing: its temporaries removed, exit 0xC000013A, old outputs kept",
           "saw a temporary: %s, exit %d, changed or new: %s" % (seen, rc, sorted(
               k for k in set(after) | set(before) if after.get(k) != before.get(k))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", default=os.path.join(ROOT, "build", "mcgen"))
    a = ap.parse_args()
    mcgen = os.path.abspath(a.mcgen)
    if not os.path.exists(EXE) or not shutil.which("wine"):
        print("skipped: build/win64/mcgen.exe or wine absent (ninja; ./setup installs wine)")
        print("0 passed, 0 failed, 1 skipped")
        return 0
    if not os.path.isdir(os.path.join(CORPUS, "golden", CASE)):
        print("skipped: ../shared/corpus is absent")
        print("0 passed, 0 failed, 1 skipped")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        binary(tmp)
        g = golden(mcgen, tmp)
        invalid(mcgen, tmp)
        render(mcgen, tmp)
        unicode_dirs(mcgen, tmp)
        if g:
            unchanged_and_failed(g)
        interrupted(mcgen, tmp)
    print("%d passed, %d failed, %d skipped" % (results["passed"], results["failed"],
                                                results["skipped"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
