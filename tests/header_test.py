#!/usr/bin/env python3
"""The generated C headers compile cleanly and link from several units.

For every manifest of the reference corpus (../shared/corpus/golden/*/
input.man and ../shared/corpus/manifests/*) that mcgen loads, the -um header
and the descriptors-only header are generated (and for the golden cases the
-km header, compiled here as user-mode code: its macros take an activity
id); each is included from two
translation units (one registers the provider, the other only includes)
linked into one program with x86_64-w64-mingw32-gcc (-std=c99, -std=c17)
and x86_64-w64-mingw32-g++ (-std=c++11, -std=c++17), all with -Wall
-Wextra -Werror.  Any warning, duplicate or undefined symbol fails.

--quick compiles the -um header of the golden cases in C99 and C++11 only
(the sanitizer builds use it: their point is mcgen itself).

Prints one line per header and "N passed, N failed"; says "skipped" when
the corpus or the mingw-w64 compilers are absent.
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "..", "shared", "corpus")
CC, CXX = "x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-g++"
FLAGS = ["-Wall", "-Wextra", "-Werror", "-O1"]

# windows.h and the ETW headers, precompiled once per language standard
PCH = """#include <windows.h>
#include <wmistr.h>
#include <evntrace.h>
#include <evntprov.h>
"""
TU_MAIN = """#include "pch.h"
#include "%(header)s"
void other_unit(void);
int main(void)
{
    other_unit();
%(register)s    return 0;
}
"""
TU_OTHER = """#include "pch.h"
#include "%(header)s"
void other_unit(void)
{
}
"""
TU_OTHER_CXX = TU_OTHER.replace("void other_unit(void)\n", "extern \"C\" void other_unit(void)\n")
TU_MAIN_CXX = TU_MAIN.replace("void other_unit(void);", "extern \"C\" void other_unit(void);")


# Manifests whose own symbols cannot compile next to windows.h: the test
# checks that the failure is exactly this one.
KNOWN = {
    "manifests/repnz-etw-providers-docs/Win10-17134__Microsoft-Windows-Kernel-File.xml":
        ("'OperationEnd' redeclared", "the manifest (a decompiled TDH dump) names an event "
         "OperationEnd, which winbase.h declares as a function; mc's header fails the same way"),
}


def manifests(quick):
    out = []
    gold = os.path.join(CORPUS, "golden")
    for case in sorted(os.listdir(gold)):
        out.append((case, os.path.join(gold, case, "input.man")))
    if not quick:
        for base, _, files in sorted(os.walk(os.path.join(CORPUS, "manifests"))):
            for f in sorted(files):
                if f.lower().endswith((".man", ".xml")):
                    out.append((os.path.relpath(os.path.join(base, f), CORPUS),
                                os.path.join(base, f)))
    return out


def precompile(std, tmp):
    """A directory holding pch.h and its .gch for `std`; '' and the error
    text when it does not build."""
    d = os.path.join(tmp, "pch-" + std.replace("+", "x"))
    os.makedirs(d)
    with open(os.path.join(d, "pch.h"), "w") as f:
        f.write(PCH)
    cxx = "++" in std
    r = subprocess.run([CXX if cxx else CC, "-std=" + std, *FLAGS, "-x",
                        "c++-header" if cxx else "c-header", "pch.h", "-o", "pch.h.gch"],
                       cwd=d, capture_output=True, text=True)
    return d, (r.stdout + r.stderr).strip() if r.returncode else ""


def compile_one(header, registers, std, tmp, pch):
    """Builds the two-unit program; '' on success, else the compiler's text."""
    cxx = "++" in std
    main_src, other_src = (TU_MAIN_CXX, TU_OTHER_CXX) if cxx else (TU_MAIN, TU_OTHER)
    ext = ".cpp" if cxx else ".c"
    subs = {"header": os.path.basename(header),
            "register": "".join("    %s();\n    %s();\n" % r for r in registers)}
    d = tempfile.mkdtemp(dir=tmp)
    shutil.copy(header, d)
    with open(os.path.join(d, "a" + ext), "w") as f:
        f.write(main_src % subs)
    with open(os.path.join(d, "b" + ext), "w") as f:
        f.write(other_src % subs)
    r = subprocess.run([CXX if cxx else CC, "-std=" + std, *FLAGS, "-Winvalid-pch", "-I", pch,
                        "a" + ext, "b" + ext, "-o", "p.exe", "-ladvapi32"], cwd=d,
                       capture_output=True, text=True)
    return "" if r.returncode == 0 else (r.stdout + r.stderr).strip()


def registrations(header_text):
    """(register, unregister) macro pairs the header defines."""
    regs = re.findall(r"^#define (EventRegister\w+)\(\)", header_text, re.M)
    out = []
    for reg in regs:
        unreg = "EventUnregister" + reg[len("EventRegister"):]
        if re.search(r"^#define %s\(\)" % re.escape(unreg), header_text, re.M):
            out.append((reg, unreg))
    return out


def mc_shape(text):
    """From a -um header: the template functions in order, and per event
    macro its parameters and enable bit."""
    text = text.replace("\r", "")
    fns = re.findall(r"^(McTemplateU0\w*)\(", text, re.M)
    writes = re.findall(r"^#define EventWrite(\w+?)\(([^)]*)\) \\\n\s*\(?MCGEN_EVENT_ENABLED\(",
                        text, re.M)
    bits = re.findall(r"^#define EventEnabled(\w+?)\(\) MCGEN_EVENT_BIT_SET\(\w+, (\d+)\)",
                      text, re.M)
    return fns, [(n, [a.strip() for a in args.split(",") if a.strip()]) for n, args in writes], bits


def compare_with_mc(name, header, warnings):
    """For a golden -um case: the same template functions (mc's mangled
    names, sorted as mc sorts them), EventWrite parameters and enable bits
    as mc.exe's own header.  None when there is no such header."""
    mc = os.path.join(CORPUS, "golden", name, "mc.h")
    if not os.path.exists(mc):
        return None
    theirs = open(mc, encoding="latin-1").read()
    if "McTemplateU0" not in theirs or "_mcgen_TEMPLATE_FOR_" in theirs:
        return None  # descriptors only, or a newer mc's layout
    # the names mcgen changed, with a warning, because mc's would not compile
    ours = open(header, encoding="latin-1").read()
    renamed = r"'(\w+)' .*? the header calls this (?:one|event's descriptor and macros) (\w+)"
    for old, new in re.findall(renamed, warnings):
        ours = ours.replace(new, old)
    a, b = mc_shape(ours), mc_shape(theirs)
    for what, x, y in zip(("template functions", "EventWrite parameters", "enable bits"), a, b):
        if x != y:
            diff = next(((p, q) for p, q in zip(x, y) if p != q), (x[len(y):][:1], y[len(x):][:1]))
            return "%s differ from mc.h: ours %s, mc's %s" % (what, diff[0], diff[1])
    return "%d template functions, %d EventWrite macros, %d enable bits as in mc.h" % (
        len(a[0]), len(a[1]), len(a[2]))


MC_DEFECT_A = """#include <windows.h>
#include "x.h"
void other_unit(void);
int main(void)
{
    other_unit();
    EventRegisterProviderName1();
    EventWriteEvt1();
    EventUnregisterProviderName1();
    return 0;
}
"""
MC_DEFECT_B = """#include <windows.h>
#include "x.h"
void other_unit(void)
{
    EventWriteEvt2();
}
"""


def mc_defect(mcgen, tmp):
    """mc's own -um header (etk-EventAttributes) does not link from two C99
    units under mingw-w64, even with every warning off: its __inline
    functions have no external definition under C99's inline rules and its
    uninitialized selectany enable bits are dropped.  The same program
    links against mcgen's header with -Wall -Wextra -Werror."""
    case = os.path.join(CORPUS, "golden", "etk-EventAttributes")
    d = os.path.join(tmp, "mc-defect")
    os.makedirs(os.path.join(d, "mc"))
    os.makedirs(os.path.join(d, "ours"))
    shutil.copy(os.path.join(case, "mc.h"), os.path.join(d, "mc", "x.h"))
    subprocess.run([mcgen, "-um", "-z", "x", "-h", os.path.join(d, "ours"), "-r",
                    os.path.join(d, "ours"), os.path.join(case, "input.man")], check=True,
                   capture_output=True)
    res = {}
    for which, flags in (("mc", ["-w"]), ("ours", FLAGS)):
        w = os.path.join(d, which)
        for name, text in (("a.c", MC_DEFECT_A), ("b.c", MC_DEFECT_B)):
            with open(os.path.join(w, name), "w") as f:
                f.write(text)
        res[which] = subprocess.run([CC, "-std=c99", *flags, "a.c", "b.c", "-o", "p.exe",
                                     "-ladvapi32"], cwd=w, capture_output=True, text=True)
    mc_err = res["mc"].stdout + res["mc"].stderr
    ok = (res["mc"].returncode != 0 and "undefined reference to `McGenEventRegister'" in mc_err
          and "undefined reference to `ProviderName1EnableBits'" in mc_err
          and res["ours"].returncode == 0)
    print("%s mc.exe's header fails to link from two C99 units (undefined McGenEventRegister, "
          "ProviderName1EnableBits); mcgen's links with -Wall -Wextra -Werror"
          % ("PASS" if ok else "FAIL"))
    if not ok:
        print(mc_err[:1500] + res["ours"].stderr[:1500])
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    mcgen = os.path.abspath(args.mcgen)
    if not os.path.isdir(os.path.join(CORPUS, "golden")):
        print("skipped: ../shared/corpus absent")
        print("0 passed, 0 failed, 1 skipped")
        return 0
    if not shutil.which(CC) or not shutil.which(CXX):
        print("skipped: %s/%s not installed (./setup installs them)" % (CC, CXX))
        print("0 passed, 0 failed, 1 skipped")
        return 0
    stds = ["c99", "c++11"] if args.quick else ["c99", "c17", "c++11", "c++17"]
    modes = [("-um", ["-um"])] if args.quick else [("-um", ["-um"]), ("plain", []),
                                                    ("-km", ["-km"])]
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        pchs = {}
        for std in stds:
            pchs[std], err = precompile(std, tmp)
            if err:
                print("FAIL precompiling windows.h with -std=%s:\n%s" % (std, err[:2000]))
                failed += 1
        if mc_defect(mcgen, tmp):
            passed += 1
        else:
            failed += 1
        jobs = []
        for name, path in manifests(args.quick):
            for mode, switches in modes:
                if mode == "-km" and name.startswith("manifests/"):
                    continue  # the golden cases suffice: -km differs from -um in macros only
                out = tempfile.mkdtemp(dir=tmp)
                r = subprocess.run([mcgen, *switches, "-z", "x", "-h", out, "-r", out, path],
                                   capture_output=True, text=True)
                if r.returncode == 1 and "error:" in r.stderr and not switches:
                    continue  # reported with -um already
                if r.returncode == 1 and "error:" in r.stderr:
                    # a manifest mcgen refuses (corpus_test.py checks which)
                    print("skip %s: mcgen refuses it: %s" % (name, r.stderr.splitlines()[0]))
                    continue
                if r.returncode != 0:
                    print("FAIL %s %s: mcgen exit %d: %s" % (name, mode, r.returncode, r.stderr))
                    failed += 1
                    continue
                header = os.path.join(out, "x.h")
                regs = registrations(open(header, encoding="latin-1").read())
                if switches == ["-um"] and not name.startswith("manifests/"):
                    same = compare_with_mc(name, header, r.stderr)
                    if same is not None:
                        ok = "differ" not in same
                        passed += ok
                        failed += not ok
                        print("%s %s: %s" % ("PASS" if ok else "FAIL", name, same))
                for std in stds:
                    jobs.append((name, mode, std, header, regs))
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
            futs = [(j, pool.submit(compile_one, j[3], j[4], j[2], tmp, pchs[j[2]])) for j in jobs]
            for (name, mode, std, _, regs), fut in futs:
                err = fut.result()
                known = KNOWN.get(name)
                if known and err and known[0].replace("'", "") in err.replace("\u2018", "")\
                        .replace("\u2019", "").replace("'", ""):
                    passed += 1
                    print("PASS %s %s -std=%s: fails as known: %s" % (name, mode, std, known[1]))
                elif known:
                    failed += 1
                    print("FAIL %s %s -std=%s: expected the known failure (%s), got:\n%s"
                          % (name, mode, std, known[1], err[:2000] or "success"))
                elif err:
                    failed += 1
                    print("FAIL %s %s -std=%s:\n%s" % (name, mode, std, err[:3000]))
                else:
                    passed += 1
                    print("PASS %s %s -std=%s (%d registrations)" % (name, mode, std, len(regs)))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
