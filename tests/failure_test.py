#!/usr/bin/env python3
"""No output on failure: a failing compile leaves every old output as it was.

For every tests/invalid case, NAME.man or NAME.mc (NAME.mc.py: its
output; with its NAME.args), run with -Werror so that
a case whose codes are warnings fails too, into a directory that holds an
older version of every file the run could write:

  * mc's outputs (-um, -h and -r naming the directory): NAME.h, NAME.rc,
    MSG00001.bin .. MSG00004.bin, NAME TEMP.BIN; for a .mc, -h, -r and -x
    (NAME.dbg too), and no second run (the outputs below describe a
    manifest and are refused for a .mc);
  * mcgen's own (--json, --render, --depfile), in a second run, as naming
    them selects them instead of mc's.

Each run must exit 1, leave every old file byte-identical (content and
mtime), and create nothing (no new file, no temporary).  The codes the
runs printed are counted: every code of mcgen/diagcodes.def that a case
shows must have been through this.  Prints "N passed, N failed".
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = os.path.join(ROOT, "tests", "invalid")


def snapshot(d):
    out = {}
    for f in sorted(os.listdir(d)):
        p = os.path.join(d, f)
        st = os.stat(p)
        out[f] = (open(p, "rb").read(), st.st_mtime_ns)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    args = ap.parse_args()
    mcgen = os.path.abspath(args.mcgen)
    passed = failed = 0
    seen = set()
    files = os.listdir(CASES)
    names = sorted([(f[:-4], ".man") for f in files if f.endswith(".man")] +
                   [(f[:-3], ".mc") for f in files if f.endswith(".mc")] +
                   [(f[:-6], ".mc") for f in files if f.endswith(".mc.py")])
    with tempfile.TemporaryDirectory() as tmp:
        tpl = os.path.join(tmp, "dump.j2")
        with open(tpl, "w") as f:
            f.write("{% for p in providers %}{{ p.name }}\n{% endfor %}")
        gen_dir = os.path.join(tmp, "generated")
        os.mkdir(gen_dir)
        for name, ext in names:
            cwd = CASES
            gen = os.path.join(CASES, name + ext + ".py")
            if ext == ".mc" and os.path.exists(gen):
                cwd = gen_dir
                with open(os.path.join(cwd, name + ext), "wb") as fh:
                    fh.write(subprocess.run([sys.executable, gen], check=True,
                                            capture_output=True).stdout)
            extra = []
            argf = os.path.join(CASES, name + ".args")
            if os.path.exists(argf):
                extra = shlex.split(open(argf, encoding="utf-8").read())
            out = os.path.join(tmp, "out")
            os.mkdir(out)
            old = [name + ".h", name + ".rc", name + "TEMP.BIN", "model.json", "render.txt",
                   "deps.d", name + ".dbg"] + ["MSG%05d.bin" % i for i in range(1, 5)]
            for i, f in enumerate(old):
                with open(os.path.join(out, f), "wb") as fh:
                    fh.write(b"old output %d of an earlier run\r\n" % i)
                os.utime(os.path.join(out, f), ns=(1_000_000_000, 1_000_000_000))
            before = snapshot(out)
            runs = [["-um", "-h", out, "-r", out],
                    ["--json=" + os.path.join(out, "model.json"),
                     "--render=%s:%s" % (tpl, os.path.join(out, "render.txt")),
                     "--depfile=" + os.path.join(out, "deps.d")]]
            if ext == ".mc":
                # a .mc has mc's outputs only (and -x's .dbg); the others
                # describe a manifest and are refused
                runs = [["-h", out, "-r", out, "-x", out]]
            for opts in runs:
                r = subprocess.run([mcgen, "-Werror"] + opts + extra + [name + ext], cwd=cwd,
                                   capture_output=True, text=True, errors="replace")
                after = snapshot(out)
                codes = set(re.findall(r"\[MCG(\d{4})\b", r.stderr))
                seen.update(codes)
                ok = r.returncode == 1 and after == before
                what = "%s%s %s" % (name, ext, "mcgen outputs" if opts[0].startswith("--")
                                    else "mc outputs")
                if ok:
                    passed += 1
                    print("PASS %s: exit 1, %d old files unchanged, nothing new (%s)" %
                          (what, len(before), " ".join("MCG" + c for c in sorted(codes))))
                    continue
                failed += 1
                changed = [f for f in before if f in after and after[f] != before[f]]
                new = [f for f in after if f not in before]
                gone = [f for f in before if f not in after]
                print("FAIL %s: exit %d, changed %s, new %s, removed %s\n%s" %
                      (what, r.returncode, changed, new, gone, r.stderr[:800]))
            for f in os.listdir(out):
                os.remove(os.path.join(out, f))
            os.rmdir(out)
    defined = set(re.findall(r"^DIAG_CODE\((\d+),", open(os.path.join(ROOT, "mcgen",
                                                                   "diagcodes.def")).read(), re.M))
    shown = set()
    for name, _ in names:
        errf = os.path.join(CASES, name + ".err")
        if os.path.exists(errf):
            shown.update(re.findall(r"\[MCG(\d{4})\b", open(errf, encoding="utf-8").read()))
    missing = sorted(shown - seen)
    if missing:
        failed += 1
        print("FAIL codes shown by tests/invalid but not met by a failing compile: %s" %
              ", ".join("MCG" + c for c in missing))
    else:
        passed += 1
        print("PASS every code tests/invalid shows (%d of %d defined) failed a compile with "
              "no output" % (len(shown & defined), len(defined)))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
