#!/usr/bin/env python3
"""mcgen as a build step: reproducible, incremental, never a partial file.

1. Two runs in a row with mc's switches: the same bytes, and the second
   run leaves every output's mtime alone (build tools see nothing new).
2. mcgen is killed (SIGKILL) at random points while it writes the outputs
   of a large generated manifest, --kills times (200 by default), the
   manifest alternating between two versions: every output file present
   afterwards is, byte for byte, one of the two complete versions.  Left
   over temporary files (*.mcgen-XXXXXX, the price of a kill) are counted.
3. examples/ninja: ninja builds the hello provider with the depfile rule;
   a second ninja has nothing to do; after the manifest changes only mcgen
   runs (restat: its unchanged outputs keep their mtimes), and then again
   nothing.  Skipped without mingw-w64.
4. examples/cmake: cmake/mcgen.cmake's mcgen_add_manifest() with the
   mingw-w64 toolchain file builds hello.exe with its resources, which runs
   under wine; a second build has nothing to do.

Prints one line per check and "N passed, N failed".
"""
import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HELLO = os.path.join(ROOT, "examples", "hello", "hello.man")
results = {"passed": 0, "failed": 0, "skipped": 0}


def check(ok, name, why=""):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why))


def snapshot(d):
    """{relative path: (bytes, mtime_ns)} of every file under d."""
    out = {}
    for base, _, files in os.walk(d):
        for f in files:
            p = os.path.join(base, f)
            out[os.path.relpath(p, d)] = (open(p, "rb").read(), os.stat(p).st_mtime_ns)
    return out


def twice(mcgen, tmp):
    work = os.path.join(tmp, "twice")
    os.makedirs(work)
    shutil.copy(HELLO, work)
    args = [mcgen, "-um", "-h", "inc", "-r", "res", "--depfile=hello.d", "hello.man"]
    r1 = subprocess.run(args, cwd=work, capture_output=True, text=True)
    first = snapshot(work)
    # make "unchanged" visible: age every file, then run again
    for p in first:
        os.utime(os.path.join(work, p), ns=(first[p][1] - 10**10, first[p][1] - 10**10))
    aged = snapshot(work)
    r2 = subprocess.run(args, cwd=work, capture_output=True, text=True)
    second = snapshot(work)
    outputs = sorted(p for p in first if p != "hello.man")
    check(r1.returncode == 0 and r2.returncode == 0 and len(outputs) == 6,
          "two runs: both succeed, 6 outputs (%s)" % ", ".join(outputs), r1.stderr + r2.stderr)
    check(all(first[p][0] == second[p][0] for p in first),
          "two runs: byte-identical outputs")
    check(all(aged[p][1] == second[p][1] for p in outputs),
          "two runs: the second leaves every mtime unchanged",
          ", ".join(p for p in outputs if aged[p][1] != second[p][1]))


def kills(mcgen, tmp, n):
    work = os.path.join(tmp, "kill")
    os.makedirs(work)
    gen = os.path.join(ROOT, "bench", "gen_manifest.py")
    refs = []
    for seed in (1, 2):
        src = os.path.join(work, "v%d.man" % seed)
        subprocess.run([sys.executable, gen, "--size-mb", "2", "--seed", str(seed), "--out", src],
                       check=True, capture_output=True)
        ref = os.path.join(work, "ref%d" % seed)
        shutil.copy(src, os.path.join(work, "m.man"))
        start = time.monotonic()
        subprocess.run([mcgen, "-um", "-h", ref, "-r", ref, "m.man"], cwd=work, check=True,
                       capture_output=True)
        refs.append((src, snapshot(ref), time.monotonic() - start))
    names = set(refs[0][1]) | set(refs[1][1])
    longest = max(r[2] for r in refs)
    out = os.path.join(work, "out")
    rng = random.Random(2026)
    bad, litter, finished = [], 0, 0
    for i in range(n):
        src, _, _ = refs[i % 2]
        shutil.copy(src, os.path.join(work, "m.man"))
        p = subprocess.Popen([mcgen, "-um", "-h", out, "-r", out, "m.man"], cwd=work,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # mostly while the outputs are written, at the end of the run
        time.sleep(longest * rng.uniform(0.3, 1.1))
        p.send_signal(signal.SIGKILL)
        p.wait()
        finished += p.returncode == 0
        for f, (data, _) in snapshot(out).items():
            if ".mcgen-" in f:
                litter += 1
                os.remove(os.path.join(out, f))
            elif f not in names:
                bad.append("%d: unexpected file %s" % (i, f))
            elif all(data != r[1].get(f, (None,))[0] for r in refs):
                bad.append("%d: %s (%d bytes) is neither complete version" % (i, f, len(data)))
    check(not bad, "%d SIGKILLs while writing (%d runs finished first): no output is ever "
          "partial (%d temporary files left over by kills, removed)" % (n, finished, litter),
          "; ".join(bad[:5]))


def ninja_example(mcgen, tmp):
    if not shutil.which("x86_64-w64-mingw32-gcc") or not shutil.which("ninja"):
        print("skipped examples/ninja: mingw-w64 or ninja not installed")
        results["skipped"] += 1
        return
    work = os.path.join(tmp, "ex")
    shutil.copytree(os.path.join(ROOT, "examples", "ninja"), os.path.join(work, "ninja"),
                    ignore=shutil.ignore_patterns("out", ".ninja_*"))
    shutil.copytree(os.path.join(ROOT, "examples", "hello"), os.path.join(work, "hello"))
    build = os.path.join(work, "ninja", "build.ninja")
    text = open(build).read()
    text = text.replace("mcgen = ../../build/mcgen", "mcgen = " + mcgen)
    open(build, "w").write(text)
    d = os.path.join(work, "ninja")

    def ninja(*args):
        return subprocess.run(["ninja", *args], cwd=d, capture_output=True, text=True)

    r = ninja()
    check(r.returncode == 0 and os.path.exists(os.path.join(d, "out", "hello.exe")),
          "examples/ninja: builds hello.exe", r.stdout + r.stderr)
    r = ninja("-n")
    check("no work to do" in r.stdout, "examples/ninja: a second ninja has no work to do",
          r.stdout)
    time.sleep(0.01)
    os.utime(os.path.join(work, "hello", "hello.man"))
    r = ninja()
    ran = [line.split("] ", 1)[1].split(" ", 1)[0] for line in r.stdout.splitlines()
           if line.startswith("[")]
    check(r.returncode == 0 and ran == ["MCGEN"],
          "examples/ninja: a touched manifest re-runs mcgen and nothing after it", r.stdout)
    r = ninja("-n")
    check("no work to do" in r.stdout, "examples/ninja: and then nothing again", r.stdout)
    # a real change reaches the program
    man = os.path.join(work, "hello", "hello.man")
    text = open(man).read().replace('value="2" version="0"', 'value="3" version="0"')
    open(man, "w").write(text)
    r = ninja()
    ran = [line.split("] ", 1)[1].split(" ", 1)[0] for line in r.stdout.splitlines()
           if line.startswith("[")]
    check(r.returncode == 0 and ran[0] == "MCGEN" and "LINK" in ran,
          "examples/ninja: a changed event rebuilds the program", r.stdout + r.stderr)
    # a template of one's own (--templates): its changes re-run mcgen too
    tpl = os.path.join(work, "tpl")
    os.makedirs(tpl)
    shutil.copy(os.path.join(ROOT, "templates", "logging_functions.h.j2"), tpl)
    rules = open(build).read()
    open(build, "w").write(rules.replace("--depfile=$gen/hello.d", "--templates=../tpl "
                                         "--depfile=$gen/hello.d"))
    r = ninja()
    # the first run learns of the template from the depfile; as the header
    # kept its bytes (restat), ninja checks once more, then is content
    ninja()
    r2 = ninja("-n")
    time.sleep(0.01)
    with open(os.path.join(tpl, "logging_functions.h.j2"), "a") as f:
        f.write("/* edited */\n")
    r3 = ninja()
    ran = [line.split("] ", 1)[1].split(" ", 1)[0] for line in r3.stdout.splitlines()
           if line.startswith("[")]
    header = open(os.path.join(d, "out", "hello.h"), encoding="latin-1").read()
    check(r.returncode == 0 and "no work to do" in r2.stdout and r3.returncode == 0
          and ran[:1] == ["MCGEN"] and "/* edited */" in header,
          "examples/ninja: an edited --templates template re-runs mcgen (depfile)",
          r.stdout + r2.stdout + r3.stdout + r3.stderr)


def cmake_example(mcgen, tmp):
    """examples/cmake: mcgen_add_manifest with the mingw-w64 toolchain file;
    the program runs under wine; a second build has nothing to do."""
    need = ["cmake", "ninja", "x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-windres", "wine"]
    if not all(shutil.which(t) for t in need):
        print("skipped examples/cmake: needs %s" % ", ".join(need))
        results["skipped"] += 1
        return
    src = os.path.join(ROOT, "examples", "cmake")
    b = os.path.join(tmp, "cmake-build")
    r = subprocess.run(["cmake", "-S", src, "-B", b, "-G", "Ninja",
                        "-DCMAKE_TOOLCHAIN_FILE=" + os.path.join(src, "mingw-w64.cmake"),
                        "-DMCGEN_EXECUTABLE=" + mcgen], capture_output=True, text=True)
    if r.returncode == 0:
        r = subprocess.run(["cmake", "--build", b], capture_output=True, text=True)
    check(r.returncode == 0 and os.path.exists(os.path.join(b, "hello.exe")),
          "examples/cmake: configures and builds hello.exe with mcgen_add_manifest",
          (r.stdout + r.stderr)[-2000:])
    if r.returncode != 0:
        return
    env = dict(os.environ, WINEDEBUG="-all")
    env.setdefault("WINEPREFIX", os.path.join(tempfile.gettempdir(), "mcgen-wine"))
    w = subprocess.run(["wine", os.path.join(b, "hello.exe")], capture_output=True, text=True,
                       env=env, timeout=600)
    out = w.stdout.replace("\r", "")
    check(w.returncode == 0 and "registered: error 0" in out and "event 2 (version 0" in out,
          "examples/cmake: hello.exe runs under wine and writes its events", out + w.stderr)
    objdump = subprocess.run(["x86_64-w64-mingw32-objdump", "-h", os.path.join(b, "hello.exe")],
                             capture_output=True, text=True).stdout
    check(".rsrc" in objdump, "examples/cmake: the .rc's resources are linked in", objdump)
    r = subprocess.run(["ninja", "-C", b, "-n"], capture_output=True, text=True)
    check("no work to do" in r.stdout, "examples/cmake: a second build has no work to do",
          r.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    ap.add_argument("--kills", type=int, default=200)
    args = ap.parse_args()
    mcgen = os.path.abspath(args.mcgen)
    with tempfile.TemporaryDirectory() as tmp:
        twice(mcgen, tmp)
        kills(mcgen, tmp, args.kills)
        ninja_example(mcgen, tmp)
        cmake_example(mcgen, tmp)
    print("%d passed, %d failed%s" % (results["passed"], results["failed"],
                                      ", %d skipped" % results["skipped"]
                                      if results["skipped"] else ""))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
