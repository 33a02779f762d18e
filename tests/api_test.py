#!/usr/bin/env python3
"""API parity with mc.exe's -um headers, checked by compiling and running.

For every golden case with an mc.h (made with -um, -km, or neither: the
test asks mcgen for the same kind of header), the public names mc's header
defines are read from it: EventWrite* (with _AssumeEnabled),
EventEnabled*, EventRegister*, EventUnregister* and their arities, the
EVENT_DESCRIPTORs, the GUIDs, the <Sym>_value defines, the channel, level,
opcode, task and keyword symbols, the MSG_ ids, the provider handles and
contexts.  A probe program is generated that uses every one of them with
its arity against mcgen's header (it must compile with -Wall -Wextra
-Werror), and prints every descriptor's fields, every GUID and every
numeric define; it runs under wine, and each printed value must equal the
one in mc.h.

Names mc.h defines twice with different values (etk-Large: mc writes them
for two providers, and its header does not compile) are left out; mcgen
renames the second, with a warning.

Prints one line per case and "N passed, N failed"; says "skipped" when the
corpus, mingw-w64 or wine is missing.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "..", "shared", "corpus")
CC = "x86_64-w64-mingw32-gcc"


def number(text):
    text = text.strip().rstrip("uUlL")
    return int(text, 16) if text.lower().startswith("0x") else int(text)


def api_of(header):
    """The public names of an mc -um header."""
    text = open(header, encoding="latin-1").read().replace("\r", "")
    text = re.sub(r"\\\n", " ", text)
    api = {"macros": {}, "descriptors": {}, "guids": {}, "numbers": {}, "objects": set()}
    dup = set()
    for name, params in re.findall(
            r"^#define (Event(?:Write|Enabled|Register|Unregister)\w*)\(([^)]*)\)", text, re.M):
        n = len([p for p in params.split(",") if p.strip()])
        if api["macros"].get(name, n) != n:
            dup.add(name)
        api["macros"][name] = n
    for name, body in re.findall(r"const EVENT_DESCRIPTOR (\w+) = \{([^}]*)\};", text):
        v = [number(x) for x in body.split(",")]
        if api["descriptors"].get(name, v) != v:
            dup.add(name)
        api["descriptors"][name] = v
    for name, body in re.findall(r"const GUID (\w+) = \{([^;]*)\};", text):
        v = [number(x) for x in re.findall(r"0x[0-9a-fA-F]+", body)]
        if api["guids"].get(name, v) != v:
            dup.add(name)
        api["guids"][name] = v
    for name, value in re.findall(r"^#define (\w+) +(0x[0-9a-fA-F]+)L?\s*$", text, re.M):
        v = number(value)
        if api["numbers"].get(name, v) != v:
            dup.add(name)
        api["numbers"][name] = v
    for name in re.findall(r"^#define (\w+Handle) \(", text, re.M):
        api["objects"].add(name)
    for name in re.findall(r"MCGEN_TRACE_CONTEXT (\w+_Context) =", text):
        api["objects"].add(name)
    for d in dup:
        for k in ("descriptors", "guids", "numbers", "macros"):
            api[k].pop(d, None)
    api["dup"] = dup
    return api


def probe(api):
    """C source: prints every value, uses every macro with its arity."""
    lines = ["#include <windows.h>", "#include <stdio.h>",
             "#define MCGEN_ENABLE_FORCONTEXT_CODE_GENERATION 1", '#include "x.h"', "",
             "int main(int argc, char **argv)", "{", "    GUID g = {0};", "    (void)argv;",
             "    (void)g;"]
    for name in sorted(api["descriptors"]):
        lines.append('    printf("D %s %%u %%u %%u %%u %%u %%u %%llu\\n", %s.Id, %s.Version, '
                     '%s.Channel, %s.Level, %s.Opcode, %s.Task, (unsigned long long)%s.Keyword);'
                     % ((name,) + (name,) * 7))
    for name in sorted(api["guids"]):
        lines.append('    printf("G %s %%lu %%u %%u %%u %%u %%u %%u %%u %%u %%u %%u\\n", '
                     '(unsigned long)%s.Data1, %s.Data2, %s.Data3, %s);'
                     % (name, name, name, name,
                        ", ".join("%s.Data4[%d]" % (name, i) for i in range(8))))
    for name in sorted(api["numbers"]):
        lines.append('    printf("N %s %%llu\\n", (unsigned long long)(%s));' % (name, name))
    lines.append("    if (argc > 99) {")
    for name in sorted(api["objects"]):
        lines.append("        (void)&%s;" % name)
    forcontext = []
    for name, n in sorted(api["macros"].items()):
        if "_ForContext" in name and not name.startswith("EventRegister"):
            # their first argument must be a McGenContext_<provider>*:
            # checked for presence here, and in mcgen's own tests for use
            forcontext.append(name)
            continue
        args = ", ".join(["0"] * n)
        if name.startswith("EventRegisterByGuid"):
            args = ", ".join(["g"] + ["0"] * (n - 1))
        lines.append("        (void)%s(%s);" % (name, args))
    lines += ["    }", "    return 0;", "}", ""]
    for name in forcontext:
        lines += ["#ifndef %s" % name, '#error "%s is missing"' % name, "#endif"]
    return "\n".join(lines)


def expected(api):
    out = []
    for name, v in sorted(api["descriptors"].items()):
        out.append("D %s %s" % (name, " ".join(str(x) for x in v)))
    for name, v in sorted(api["guids"].items()):
        out.append("G %s %s" % (name, " ".join(str(x) for x in v)))
    for name, v in sorted(api["numbers"].items()):
        out.append("N %s %d" % (name, v))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    args = ap.parse_args()
    mcgen = os.path.abspath(args.mcgen)
    gold = os.path.join(CORPUS, "golden")
    if not os.path.isdir(gold):
        print("skipped: ../shared/corpus absent")
        print("0 passed, 0 failed, 1 skipped")
        return 0
    if not shutil.which(CC) or not shutil.which("wine"):
        print("skipped: %s or wine not installed (./setup installs them)" % CC)
        print("0 passed, 0 failed, 1 skipped")
        return 0
    env = dict(os.environ, WINEDEBUG="-all")
    env.setdefault("WINEPREFIX", os.path.join(tempfile.gettempdir(), "mcgen-wine"))
    passed = failed = 0
    for case in sorted(os.listdir(gold)):
        mc = os.path.join(gold, case, "mc.h")
        if not os.path.exists(mc):
            continue
        text = open(mc, encoding="latin-1").read()
        # the header's kind: kernel-mode, user-mode or descriptors only
        mode = ["-km"] if "McTemplateK0" in text else ["-um"] if "McTemplateU0" in text else []
        api = api_of(mc)
        with tempfile.TemporaryDirectory() as tmp:
            r = subprocess.run([mcgen, *mode, "-z", "x", "-h", tmp, "-r", tmp,
                                os.path.join(gold, case, "input.man")], capture_output=True,
                               text=True)
            if r.returncode:
                print("FAIL %s: mcgen: %s" % (case, r.stderr))
                failed += 1
                continue
            with open(os.path.join(tmp, "probe.c"), "w") as f:
                f.write(probe(api))
            c = subprocess.run([CC, "-std=c99", "-Wall", "-Wextra", "-Werror", "probe.c", "-o",
                                "probe.exe", "-ladvapi32"], cwd=tmp, capture_output=True,
                               text=True)
            if c.returncode:
                print("FAIL %s: the probe does not compile against mcgen's header:\n%s"
                      % (case, c.stderr[:3000]))
                failed += 1
                continue
            w = subprocess.run(["wine", os.path.join(tmp, "probe.exe")], capture_output=True,
                               text=True, env=env, timeout=600)
            got = w.stdout.replace("\r", "").splitlines()
            want = expected(api)
            if got == want:
                passed += 1
                print("PASS %s (%s): %d macros with mc's arity, %d descriptors, %d GUIDs, %d "
                      "numeric symbols equal under wine%s"
                      % (case, " ".join(mode) or "descriptors only", len(api["macros"]),
                         len(api["descriptors"]), len(api["guids"]),
                         len(api["numbers"]),
                         " (left out, defined twice by mc: %s)" % ", ".join(sorted(api["dup"]))
                         if api["dup"] else ""))
            else:
                failed += 1
                diff = next(((a, b) for a, b in zip(got, want) if a != b),
                            (got[len(want):len(want) + 1], want[len(got):len(got) + 1]))
                print("FAIL %s: printed %d values, mc.h has %d; first difference: ours %s, "
                      "mc's %s" % (case, len(got), len(want), diff[0], diff[1]))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
