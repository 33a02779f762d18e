#!/usr/bin/env python3
"""--backends=etw,lttng,user_events: the -um header compiles and links on
Linux.

For every manifest of the reference corpus (../shared/corpus/golden/*/
input.man and ../shared/corpus/manifests/*) and of tests/data that mcgen
compiles, the -um header is generated with --backends=etw,lttng,user_events
and built with each backend macro (MCGEN_BACKEND_NOOP, MCGEN_BACKEND_LTTNG,
MCGEN_BACKEND_USER_EVENTS) by gcc
and clang in C (-std=c99, -std=c17) and C++ (-std=c++11, -std=c++20)
(the golden cases in all eight; the others in gcc C99, clang C17,
g++ C++20 and clang++ C++11), all with -Wall -Wextra -Werror -O2, into a program of two translation
units: the first (with MCGEN_ENABLE_FORCONTEXT_CODE_GENERATION, as
code using mc's _ForContext forms defines it) registers every provider,
plainly and on a McGenContext of its own, and calls every event through
every form of mc's API: EventEnabled<Event>() and its _ForContext form,
EventWrite<Event> and its _AssumeEnabled, _ForContext and
_ForContextAssumeEnabled forms (every argument 0: each parameter is an
integer or a pointer), and reads <ProvSym>_Context, the handle's
_ForContext form and <ProvSym>_EventWriteActivity; the second registers
every provider and calls EventWrite<Event> and its _AssumeEnabled form
too; with LTTng BASE_lttng.c is the third unit.  Any warning, duplicate or undefined
symbol fails.

The no-op backend must compile to nothing: in each optimised no-op
object of the golden cases, nm shows no data symbol, and the object's
bytes hold none of the manifest's provider names or event symbols.

Also: the option's errors (exact text), --backends=etw writes mc's header
byte for byte, --print-outputs and --depfile list BASE_lttng.h and
BASE_lttng.c, and the golden cases' descriptors-only and -km headers
compile on Linux too.

--quick: the golden cases, gcc C99 and g++ C++11 (the sanitizer builds).
Prints one line per check and "N passed, N failed, N skipped".
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
FLAGS = ["-Wall", "-Wextra", "-Werror", "-O2"]
HELLO = os.path.join(ROOT, "examples", "hello", "hello.man")

UNIT = """#define MCGEN_ENABLE_FORCONTEXT_CODE_GENERATION 1
#include "x.h"
%(extern)svoid %(name)s(void);
%(extern)svoid %(name)s(void)
{
%(body)s}
"""
MAIN = """%(extern)svoid unit_a(void);
%(extern)svoid unit_b(void);
int main(void)
{
    unit_a();
    unit_b();
    return 0;
}
"""


def manifests(quick):
    out = []
    gold = os.path.join(CORPUS, "golden")
    if os.path.isdir(gold):
        for case in sorted(os.listdir(gold)):
            out.append(("golden/" + case, os.path.join(gold, case, "input.man")))
    if quick:
        return out
    for base, _, files in sorted(os.walk(os.path.join(CORPUS, "manifests"))):
        for f in sorted(files):
            if f.lower().endswith((".man", ".xml")):
                p = os.path.join(base, f)
                out.append((os.path.relpath(p, CORPUS), p))
    for f in sorted(os.listdir(os.path.join(ROOT, "tests", "data"))):
        if f.endswith(".man"):
            out.append(("tests/data/" + f, os.path.join(ROOT, "tests", "data", f)))
    out.append(("examples/hello", HELLO))
    return out


def linux_part(text):
    """The Linux branch of a --backends header."""
    text = text.replace("\r", "")
    return text[text.index("#else /* !_WIN32: the Linux backends */"):]


def calls(text):
    """Every registration and write of the Linux branch through every form
    of mc's API, each argument 0: EventRegister/Unregister and their
    _ForContext forms on a McGenContext per provider (its handle,
    <ProvSym>_Context and <ProvSym>_EventWriteActivity read), then per
    event EventEnabled<Event>() and its _ForContext form, EventWrite<Event>
    and its _AssumeEnabled, _ForContext and _ForContextAssumeEnabled
    forms.  The units define MCGEN_ENABLE_FORCONTEXT_CODE_GENERATION, as
    code using the _ForContext forms does for the ETW header."""
    part = linux_part(text)
    body = ""
    # (reg, ident) of each provider's context registration
    regs = re.findall(r"^#define EventRegister(\w+)_ForContext\(pContext\) "
                      r"McGenLinuxRegisterForContext_(\w+)\(", part, re.M)
    for reg, ident in regs:
        body += "    McGenContext_%s ctx_%s;\n" % (ident, ident)
    for reg in re.findall(r"^#define (EventRegister\w+)\(\) ", part, re.M):
        body += "    %s();\n    EventUnregister%s();\n" % (reg, reg[len("EventRegister"):])
    for reg, ident in regs:
        body += "    EventRegister%s_ForContext(&ctx_%s);\n" % (reg, ident)
    handles = re.findall(r"^#define (\w+)_ForContext\(pContext\) \(\(pContext\)"
                         r"->Context\.RegistrationHandle\)", part, re.M)
    for handle, (reg, ident) in zip(handles, regs):  # one each per provider, in order
        body += "    (void)%s_ForContext(&ctx_%s);\n" % (handle, ident)
    for ps in re.findall(r"^MCGEN_CONST_DATA MCGEN_TRACE_CONTEXT (\w+)_Context = ", part, re.M):
        body += "    (void)%s_Context.IsEnabled;\n    (void)%s_EventWriteActivity;\n" % (ps, ps)
    for name, args, ident in re.findall(
            r"^#define (\w+)_ForContextAssumeEnabled\(pContext,? ?([^)]*)\) \\\n"
            r"\s+\(\(void\)_mcgen_CheckContextType_(\w+)\(pContext\)", part, re.M):
        n = len([a for a in args.split(",") if a.strip()])
        zeros = ", ".join(["0"] * n)
        ctx = "&ctx_" + ident
        z1 = (", " + zeros) if n else ""
        ev = name[len("EventWrite"):]
        body += ("    (void)EventEnabled%s();\n    (void)EventEnabled%s_ForContext(%s);\n"
                 "    %s(%s);\n    %s_AssumeEnabled(%s);\n"
                 "    %s_ForContext(%s%s);\n    %s_ForContextAssumeEnabled(%s%s);\n"
                 % (ev, ev, ctx, name, zeros, name, zeros, name, ctx, z1, name, ctx, z1))
    for reg, ident in regs:
        body += "    EventUnregister%s_ForContext(&ctx_%s);\n" % (reg, ident)
    return body


def plain_calls(body):
    """calls()'s body without the _ForContext forms and the checks: the
    second unit's (it is there for the symbols two units define; the
    first one calls every form; the compile time of a large manifest's
    calls grows faster than their number)."""
    return "".join(x for x in body.splitlines(True)
                   if "ctx_" not in x and not x.startswith("    (void)"))


def run(cmd, cwd):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    return "" if r.returncode == 0 else (" ".join(cmd) + "\n" + r.stdout + r.stderr).strip()


def build(d, backend, cc, cxx_std, c_std, body):
    """The two-unit program in d for one backend and compiler; '' or the
    error text.  cxx_std: a C++ standard (the units are C++), or None."""
    cxx = cxx_std is not None
    comp = {"gcc": "g++", "clang": "clang++"}[cc] if cxx else cc
    ext = ".cpp" if cxx else ".c"
    tag = "%s-%s-%s" % (backend, cc, cxx_std or c_std)
    w = os.path.join(d, tag)
    os.makedirs(w)
    extern = 'extern "C" ' if cxx else ""
    for name in ("unit_a", "unit_b"):
        with open(os.path.join(w, name + ext), "w") as f:
            f.write(UNIT % {"extern": extern, "name": name,
                            "body": body if name == "unit_a" else plain_calls(body)})
    with open(os.path.join(w, "main" + ext), "w") as f:
        f.write(MAIN % {"extern": extern})
    std = ["-std=" + (cxx_std or c_std)]
    inc = ["-I", d, "-DMCGEN_BACKEND_" + backend]
    objs = []
    for name in ("unit_a", "unit_b", "main"):
        err = run([comp, *std, *FLAGS, *inc, "-c", name + ext, "-o", name + ".o"], w)
        if err:
            return err, w
        objs.append(name + ".o")
    libs = []
    if backend == "LTTNG":
        # the probes: C, with the same compiler family
        err = run([cc, "-std=" + c_std, *FLAGS, "-I", d, "-c", os.path.join(d, "x_lttng.c"),
                   "-o", "probes.o"], w)
        if err:
            return err, w
        objs.append("probes.o")
        libs = ["-llttng-ust", "-ldl"]
    return run([comp, *objs, "-o", "p", *libs], w), w


def noop_clean(w, words):
    """'' when an optimised no-op object has no data symbol and none of
    the words, else what is there."""
    obj = os.path.join(w, "unit_a.o")
    nm = subprocess.run(["nm", obj], capture_output=True, text=True).stdout
    data = [line for line in nm.splitlines() if re.match(r"^\S*\s+[bBdDgGrRsSvV]\s", line)]
    if data:
        return "data symbols: %s" % data[:5]
    blob = open(obj, "rb").read()
    found = [w for w in words if w.encode() in blob]
    return "manifest strings in the object: %s" % found[:5] if found else ""


def manifest_words(text):
    """Provider names (as LTTng names them) and event symbols of a header's
    Linux branch."""
    part = linux_part(text)
    words = set(re.findall(r"lttng_ust_tracepoint_enabled\((\w+), (\w+)\)", part))
    return sorted({w for pair in words for w in pair if len(w) >= 4})


def option_checks(mcgen, tmp):
    """(name, ok, detail) of the command line's part."""
    out = []
    r = subprocess.run([mcgen, "-um", "--backends=etw,bogus", HELLO], capture_output=True,
                       text=True, cwd=tmp)
    want = ("mcgen: error: --backends takes etw, lttng or user_events, separated by commas, "
            "not 'etw,bogus' (see mcgen --help)")
    out.append(("--backends=etw,bogus is a usage error", r.returncode == 2 and
                 r.stderr.splitlines()[:1] == [want], r.stderr))
    heads = {}
    for name, extra in (("none", []), ("etw", ["--backends=etw"]), ("lttng", ["--backends=lttng"]),
                        ("ue", ["--backends=user_events"]), ("all", ["--backends=etw,lttng,user_events"])):
        d = os.path.join(tmp, "opt-" + name)
        os.makedirs(d)
        subprocess.run([mcgen, "-um", *extra, "-h", d, "-r", d, HELLO], check=True,
                       capture_output=True)
        heads[name] = (open(os.path.join(d, "hello.h"), "rb").read(), sorted(os.listdir(d)))
    out.append(("--backends=user_events adds no file", heads["ue"][1] == heads["none"][1],
                str(heads["ue"][1])))
    out.append(("--backends=lttng without user_events: no user_events code, the macro refused",
                b"McGenUe" not in heads["lttng"][0] and b"generated without the user_events backend"
                in heads["lttng"][0], ""))
    etw_text = heads["none"][0].replace(b"\r", b"").decode()
    for name in ("ue", "all"):
        t = heads[name][0].replace(b"\r", b"").decode()
        inner = t[t.index("#if defined(_WIN32)\n\n") + len("#if defined(_WIN32)\n\n"):
                  t.index("\n#else /* !_WIN32")]
        out.append(("--backends=%s: the ETW header whole inside #if defined(_WIN32)"
                    % ("user_events" if name == "ue" else "etw,lttng,user_events"), inner == etw_text, ""))
    out.append(("--backends=etw writes mc's header and files, byte for byte",
                heads["etw"] == heads["none"], ""))
    lt = heads["lttng"][0].replace(b"\r", b"").decode()
    etw = heads["none"][0].replace(b"\r", b"").decode()
    inner = lt[lt.index("#if defined(_WIN32)\n\n") + len("#if defined(_WIN32)\n\n"):
               lt.index("\n#else /* !_WIN32")]
    out.append(("--backends=lttng: the ETW header whole inside #if defined(_WIN32)",
                inner == etw, ""))
    out.append(("--backends=lttng adds hello_lttng.h and hello_lttng.c",
                heads["lttng"][1] == sorted(heads["none"][1] + ["hello_lttng.c", "hello_lttng.h"]),
                str(heads["lttng"][1])))
    d = os.path.join(tmp, "opt-dep")
    os.makedirs(d)
    r = subprocess.run([mcgen, "-um", "--backends=etw,lttng", "-h", d, "-r", d, "--print-outputs",
                        HELLO], capture_output=True, text=True)
    listed = [os.path.basename(x) for x in r.stdout.split()]
    out.append(("--print-outputs lists hello_lttng.h and hello_lttng.c after the header",
                listed[:3] == ["hello.h", "hello_lttng.h", "hello_lttng.c"], r.stdout))
    dep = os.path.join(d, "x.d")
    subprocess.run([mcgen, "-um", "--backends=etw,lttng", "-h", d, "-r", d, "--depfile", dep,
                    HELLO], check=True, capture_output=True)
    text = open(dep).read()
    out.append(("--depfile names hello_lttng.h and hello_lttng.c",
                "hello_lttng.h" in text and "hello_lttng.c" in text, text))
    r = subprocess.run([mcgen, "--help"], capture_output=True, text=True)
    out.append(("--help lists --backends=LIST", "--backends=LIST" in r.stdout, ""))
    return out


def other_modes(mcgen, tmp):
    """(name, ok, detail): the golden cases' descriptors-only and -km
    headers with --backends=etw,lttng: their Linux branch (descriptors,
    defines, no logging code) compiles in C and C++ without a backend."""
    out = []
    gold = os.path.join(CORPUS, "golden")
    for case in sorted(os.listdir(gold)) if os.path.isdir(gold) else []:
        for mode in ([], ["-km"]):
            d = tempfile.mkdtemp(dir=tmp)
            r = subprocess.run([mcgen, *mode, "--backends=etw,lttng,user_events", "-z", "x", "-h", d, "-r", d,
                                os.path.join(gold, case, "input.man")], capture_output=True)
            if r.returncode == 1:
                continue
            with open(os.path.join(d, "m.c"), "w") as f:
                f.write('#include "x.h"\nint main(void)\n{\n    return 0;\n}\n')
            errs = [run([cc, "-x", lang, "-std=" + std, *FLAGS, "-I", d, "m.c", "-o", "m"], d)
                    for cc, lang, std in (("gcc", "c", "c99"), ("clang++", "c++", "c++11"))]
            err = "\n".join(e for e in errs if e)
            out.append(("golden/%s %s header's Linux branch compiles (gcc C99, clang++ C++11)"
                        % (case, mode[0] if mode else "descriptors-only"), not err, err))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    mcgen = os.path.abspath(args.mcgen)
    passed = failed = skipped = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, ok, detail in option_checks(mcgen, tmp) + other_modes(mcgen, tmp):
            print("%s %s" % ("PASS" if ok else "FAIL", name))
            if not ok:
                print(detail[:2000])
            passed += ok
            failed += not ok
        missing = [t for t in ("gcc", "g++", "clang", "clang++", "nm") if not shutil.which(t)]
        if missing:
            print("skipped the compile matrix: %s not installed (./setup installs them)"
                  % ", ".join(missing))
            print("%d passed, %d failed, %d skipped" % (passed, failed, skipped + 1))
            return 1 if failed else 0
        lttng = os.path.exists("/usr/include/lttng/tracepoint.h") or \
            subprocess.run(["sh", "-c", "echo '#include <lttng/tracepoint.h>' | cc -E - >/dev/null"],
                           capture_output=True).returncode == 0
        backends = ["NOOP", "LTTNG", "USER_EVENTS"] if lttng else ["NOOP", "USER_EVENTS"]
        if not lttng:
            print("skipped MCGEN_BACKEND_LTTNG: liblttng-ust-dev not installed (./setup installs it)")
            skipped += 1
        if args.quick:
            combos = [("gcc", None, "c99"), ("gcc", "c++11", "c99")]
        else:
            combos = [("gcc", None, "c99"), ("gcc", None, "c17"), ("clang", None, "c99"),
                      ("clang", None, "c17"), ("gcc", "c++11", "c11"), ("gcc", "c++20", "c17"),
                      ("clang", "c++11", "c11"), ("clang", "c++20", "c17")]
        jobs = []
        for name, path in manifests(args.quick):
            d = tempfile.mkdtemp(dir=tmp)
            r = subprocess.run([mcgen, "-um", "--backends=etw,lttng,user_events", "-z", "x", "-h", d,
                                "-r", d, path], capture_output=True, text=True)
            if r.returncode == 1 and "error:" in r.stderr:
                continue  # a manifest mcgen refuses (corpus_test.py checks which)
            if r.returncode != 0:
                print("FAIL %s: mcgen exit %d: %s" % (name, r.returncode, r.stderr[:500]))
                failed += 1
                continue
            text = open(os.path.join(d, "x.h"), encoding="latin-1").read()
            body = calls(text)
            events = len(re.findall(r"^#define EventEnabled\w+_ForContext\(pContext\)",
                                    linux_part(text), re.M))
            if body.count("_ForContextAssumeEnabled(") != events:
                print("FAIL %s: %d events, %d called through every form" % (
                    name, events, body.count("_ForContextAssumeEnabled(")))
                failed += 1
                continue
            words = manifest_words(text) if name.startswith("golden/") else None
            # every standard for the golden cases; the others with the
            # oldest and newest of C and C++, gcc and clang
            mine = combos if name.startswith("golden/") or args.quick else [combos[k] for k in (0, 3, 5, 6)]
            for backend in backends:
                for cc, cxx_std, c_std in mine:
                    jobs.append((name, d, backend, cc, cxx_std, c_std, body, words))
        counts = {}
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
            futs = [(j, pool.submit(build, *j[1:7])) for j in jobs]
            for (name, d, backend, cc, cxx_std, c_std, body, words), fut in futs:
                err, w = fut.result()
                what = "%s %s %s -std=%s" % (name, backend, {"gcc": "g++", "clang": "clang++"}[cc] if cxx_std else cc,
                                            cxx_std or c_std)
                if not err and backend == "NOOP" and words is not None:
                    err = noop_clean(w, words)
                    if not err:
                        what += " (no data symbol, no manifest string)"
                if err:
                    failed += 1
                    print("FAIL %s:\n%s" % (what, err[:3000]))
                else:
                    passed += 1
                    counts[backend] = counts.get(backend, 0) + 1
                    print("PASS %s, %d calls" % (what, body.count(";\n")))
                shutil.rmtree(w, ignore_errors=True)
        print("linked: %s" % ", ".join("%s %d" % kv for kv in sorted(counts.items())))
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
