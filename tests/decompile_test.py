#!/usr/bin/env python3
"""--decompile's proof, the round trip: man -> binaries -> man' -> binaries'.

For every case of ../shared/corpus/golden (and every manifest of
../shared/corpus/manifests that mcgen compiles, in CRIM 5.1), in each CRIM version the case
has a golden TEMP.BIN for (TEMP.BIN: 10.0.18362, CRIM 5.1;
TEMP.mc-10.0.15063.BIN: CRIM 3.1; TEMP.mc-8.1.BIN: CRIM 3.1 with mc 8.1's
template ids; a case without any: 5.1): mcgen compiles input.man with
the case's mc command line (SOURCE.txt) and that --mc-compat; the
binaries (TEMP.BIN and every MSG*.bin) are decompiled into man'; man'
compiled the same way gives binaries' byte-identical to the binaries,
and `mcgen --validate man'` reports no error.  The same from the DLL and
the .res that examples/hello's binaries make with mingw-w64 (both
cultures).  Then: a TEMP.BIN alone decompiles to a manifest whose
messages are placeholders naming their ids and that compiles back to the
same TEMP.BIN; two bare tables without languages are refused with the
reason; -o writes the file, nothing is written when a binary is damaged.

Prints the round-trip table, then "N passed, N failed, N skipped".
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(os.path.dirname(ROOT), "shared", "corpus", "golden")
HELLO = os.path.join(ROOT, "examples", "hello", "hello.man")
WINDRES, GCC = "x86_64-w64-mingw32-windres", "x86_64-w64-mingw32-gcc"
VERSIONS = (("TEMP.BIN", "10.0.18362", "5.1"), ("TEMP.mc-10.0.15063.BIN", "10.0.15063", "3.1"),
            ("TEMP.mc-8.1.BIN", "8.1", "3.1 (mc 8.1 ids)"))
results = {"passed": 0, "failed": 0, "skipped": 0}
table = []


def check(ok, name, why=""):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + str(why)[:1500]))
    return ok


def skip(name, why):
    results["skipped"] += 1
    print("SKIP %s: %s" % (name, why))


def mc_switches(case):
    """The switches of the case's mc command (SOURCE.txt), the manifest
    left out."""
    text = open(os.path.join(GOLDEN, case, "SOURCE.txt"), encoding="utf-8").read()
    line = re.search(r"^command:(.*)$", text, re.M).group(1).split("(")[0]
    words = re.findall(r'[^\s"]+', line)
    start = next(i for i, w in enumerate(words) if re.match(r"(?i)^mc(\.exe)?$", w)) + 1
    words = words[start:]
    end = next(i for i, w in enumerate(words) if w.lower().endswith(".man"))
    words = words[:end]
    return words


def compile_binaries(mcgen, man, switches, compat, out):
    os.makedirs(out)
    r = subprocess.run([mcgen, "--mc-compat=" + compat] + switches + [os.path.abspath(man)],
                       cwd=out, capture_output=True, text=True)
    bins = {}
    for path in sorted(glob.glob(os.path.join(out, "**", "*"), recursive=True)):
        name = os.path.relpath(path, out)
        if name.endswith("TEMP.BIN") or re.search(r"MSG\d+\.bin$", name):
            bins[name] = open(path, "rb").read()
    return r, bins


def validate(mcgen, man):
    r = subprocess.run([mcgen, "--validate", man], capture_output=True, text=True)
    errors = len(re.findall(r": error: ", r.stderr))
    warnings = len(re.findall(r": warning: ", r.stderr))
    return r.returncode, errors, warnings, r.stderr


def round_trip(mcgen, case, man, switches, compat, crim, tmp):
    name = "%s (CRIM %s)" % (case, crim)
    r, bins = compile_binaries(mcgen, man, switches, compat, os.path.join(tmp, "a"))
    if not check(r.returncode == 0 and any(k.endswith("TEMP.BIN") for k in bins),
                 name + ": mcgen compiles the case", r.stderr):
        table.append((case, crim, "no (the case does not compile)", "-"))
        return
    inputs = [os.path.join(tmp, "a", k) for k in bins]
    # named as the case's manifest: without -z the outputs take its name
    os.makedirs(os.path.join(tmp, "back"))
    back = os.path.join(tmp, "back", os.path.basename(man))
    r = subprocess.run([mcgen, "--decompile"] + inputs + ["-o", back], capture_output=True,
                       text=True)
    if not check(r.returncode == 0 and os.path.exists(back), name + ": decompiles", r.stderr):
        table.append((case, crim, "no (decompile failed)", "-"))
        return
    r2, bins2 = compile_binaries(mcgen, back, switches, compat, os.path.join(tmp, "b"))
    same = r2.returncode == 0 and bins2 == bins
    why = r2.stderr
    if r2.returncode == 0 and not same:
        why = "differ: %s" % sorted(k for k in set(bins) | set(bins2)
                                    if bins.get(k) != bins2.get(k))
        for k in sorted(bins):
            a, b = bins[k], bins2.get(k, b"")
            if a != b:
                at = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]),
                          min(len(a), len(b)))
                why += "; %s first differs at 0x%x (%d vs %d bytes)" % (k, at, len(a), len(b))
                if k.endswith("TEMP.BIN"):
                    e = subprocess.run([mcgen, "--check-wevt=" + os.path.join(tmp, "a", k),
                                        "--explain=%d" % at], capture_output=True, text=True)
                    why += " " + (e.stdout.strip().splitlines() or [e.stderr])[-1]
    check(same, name + ": binaries' byte-identical to the binaries (%s)" % ", ".join(sorted(bins)),
          why)
    rc, errors, warnings, err = validate(mcgen, back)
    check(rc == 0 and errors == 0, name + ": man' validates without errors (%d warnings)"
          % warnings, err)
    table.append((case, crim, "yes" if same else "no", "%d/%d" % (errors, warnings)))


def build_dll(mcgen, man, d):
    """man compiled (.rc, TEMP.BIN, tables), the .rc through windres into a
    .res and a DLL: (error or None)."""
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "dll.c"), "w") as f:
        f.write("int __stdcall DllMain(void *h, unsigned long r, void *p)\n"
                "{ (void)h; (void)r; (void)p; return 1; }\n")
    steps = [[mcgen, "--rc=hello.rc", "--wevt=helloTEMP.BIN", "--message-tables=.", man],
             [WINDRES, "hello.rc", "-O", "res", "-o", "hello.res"],
             [WINDRES, "hello.rc", "-O", "coff", "-o", "res.o"],
             [GCC, "-shared", "-o", "hello.dll", "dll.c", "res.o"]]
    for s in steps:
        r = subprocess.run(s, cwd=d, capture_output=True, text=True)
        if r.returncode:
            return " ".join(s[:2]) + ": " + r.stderr
    return None


def containers(mcgen, tmp):
    if not (shutil.which(WINDRES) and shutil.which(GCC)):
        skip("the DLL and .res of examples/hello", "%s or %s absent" % (WINDRES, GCC))
        return
    from resources_test import pe_resources  # the tests' own PE reader
    orig = os.path.join(tmp, "orig")
    err = build_dll(mcgen, HELLO, orig)
    if not check(err is None, "examples/hello builds into hello.res and hello.dll", err):
        return
    want = pe_resources(open(os.path.join(orig, "hello.dll"), "rb").read())
    for f in ("hello.dll", "hello.res"):
        back = os.path.join(tmp, f + ".man")
        r = subprocess.run([mcgen, "--decompile", os.path.join(orig, f), "-o", back],
                           capture_output=True, text=True)
        if not check(r.returncode == 0, "%s decompiles" % f, r.stderr):
            continue
        d = os.path.join(tmp, f + ".again")
        err = build_dll(mcgen, back, d)
        got = pe_resources(open(os.path.join(d, "hello.dll"), "rb").read()) if not err else {}
        # the resources by type, name and language: the same bytes (the
        # files' numbering, MSG00001/2, follows the cultures' order, which
        # the module does not keep)
        ok = check(err is None and got == want,
                   "%s: man' builds a DLL with the same resources (WEVT_TEMPLATE, both "
                   "languages' tables), byte for byte" % f,
                   err or "%r vs %r" % (sorted(got, key=str), sorted(want, key=str)))
        rc, errors, warnings, verr = validate(mcgen, back)
        check(rc == 0 and errors == 0, "%s: man' validates (%d warnings)" % (f, warnings), verr)
        table.append(("examples/hello via " + f, "5.1", "yes" if ok else "no",
                      "%d/%d" % (errors, warnings)))
        text = open(back, encoding="utf-8").read()
        check('resourceFileName="hello.dll"' in text or f.endswith(".res"),
              "%s: the module's name in resourceFileName" % f)
        check('<resources culture="de-DE">' in text and '<resources culture="en-US">' in text,
              "%s: a string table per culture, named from the language ids" % f)


def temp_alone(mcgen, tmp):
    case = os.path.join(GOLDEN, "etk-TaskOpcodes")
    temp = os.path.join(case, "TEMP.BIN")
    back = os.path.join(tmp, "alone.man")
    r = subprocess.run([mcgen, "--decompile", temp, "-o", back], capture_output=True, text=True)
    text = open(back, encoding="utf-8").read() if r.returncode == 0 else ""
    check('<string id="msg_90000001" value="(message 0x90000001)"/>' in text,
          "a TEMP.BIN alone: each message a placeholder naming its id", r.stderr + text[-300:])
    out = os.path.join(tmp, "alone")
    os.makedirs(out)
    r = subprocess.run([mcgen, "--wevt=TEMP.BIN", back], cwd=out, capture_output=True, text=True)
    check(r.returncode == 0 and open(os.path.join(out, "TEMP.BIN"), "rb").read() ==
          open(temp, "rb").read(), "a TEMP.BIN alone compiles back to mc's own bytes", r.stderr)
    # two tables whose languages nobody says
    msg = os.path.join(case, "MSG00001.bin")
    shutil.copy(msg, os.path.join(tmp, "MSG00002.bin"))
    r = subprocess.run([mcgen, "--decompile", temp, msg, os.path.join(tmp, "MSG00002.bin")],
                       capture_output=True, text=True)
    check(r.returncode == 1 and "the language of this message table is not known (several bare "
          "MSG*.bin: give the .res or the module that holds them" in r.stderr,
          "two bare tables: refused, the reason given", r.stderr)
    # a damaged binary: no manifest written
    bad = os.path.join(tmp, "bad.BIN")
    open(bad, "wb").write(open(temp, "rb").read()[:-1])
    out = os.path.join(tmp, "none.man")
    r = subprocess.run([mcgen, "--decompile", bad, "-o", out], capture_output=True, text=True)
    check(r.returncode == 1 and not os.path.exists(out) and "offset 0x4: CRIM size" in r.stderr,
          "a damaged TEMP.BIN: exit 1, the offset named, no manifest written", r.stderr)


# Messages several elements share (a string of two levels, of three events
# whose first in the manifest is not the lowest id), map items out of
# value order, text with markup characters and a line break: the ids come
# back through <messageTable>, the items' order through their ids.
SHARED = """<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="Shared" guid="{00000000-0000-0000-0000-0000000000AA}" symbol="SHARED"
        resourceFileName="s.dll" messageFileName="s.dll">
      <levels><level name="L2" value="17" message="$(string.lvl)"/>
        <level name="L1" value="16" message="$(string.lvl)"/></levels>
      <maps><valueMap name="V"><map value="5" message="$(string.five)"/>
        <map value="1" message="$(string.one)"/><map value="3" message="$(string.three)"/>
      </valueMap></maps>
      <events>
        <event value="9" level="L1" message="$(string.e)"/>
        <event value="2" message="$(string.e)"/>
        <event value="5" message="$(string.e)"/>
      </events>
    </provider>
  </events></instrumentation>
  <localization><resources culture="en-US"><stringTable>
    <string id="lvl" value="Level &amp; &lt;more&gt; &quot;quoted&quot;"/>
    <string id="e" value="line one&#13;&#10;line two"/>
    <string id="five" value="Five"/><string id="one" value="One"/>
    <string id="three" value="Three"/>
  </stringTable></resources></localization>
</instrumentationManifest>
"""


def golden_runs():
    """(case, its manifest, --mc-compat, CRIM) of every golden binary."""
    for case in sorted(os.listdir(GOLDEN)):
        d = os.path.join(GOLDEN, case)
        versions = [v for v in VERSIONS if os.path.exists(os.path.join(d, v[0]))]
        for _, compat, crim in versions or VERSIONS[:1]:
            yield case, os.path.join(d, "input.man"), compat, crim


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    mcgen = os.path.abspath(ap.parse_args().mcgen)
    if os.path.isdir(GOLDEN):
        for case, man, compat, crim in golden_runs():
            with tempfile.TemporaryDirectory() as tmp:
                round_trip(mcgen, case, man, mc_switches(case), compat, crim, tmp)
        with tempfile.TemporaryDirectory() as tmp:
            temp_alone(mcgen, tmp)
    else:
        skip("golden cases", "../shared/corpus/golden absent")
    # every corpus manifest mcgen compiles, in CRIM 5.1
    corpus = os.path.join(os.path.dirname(GOLDEN), "manifests")
    for man in sorted(glob.glob(os.path.join(corpus, "**", "*.man"), recursive=True) +
                      glob.glob(os.path.join(corpus, "**", "*.xml"), recursive=True)):
        with tempfile.TemporaryDirectory() as tmp:
            r = subprocess.run([mcgen, "--wevt=x.BIN", os.path.abspath(man)], cwd=tmp,
                               capture_output=True, text=True)
            if r.returncode != 0:
                continue  # not a manifest mcgen compiles (a fragment, an error on purpose)
            round_trip(mcgen, os.path.relpath(man, corpus), man, [], "10.0.18362", "5.1", tmp)
    with tempfile.TemporaryDirectory() as tmp:
        man = os.path.join(tmp, "shared.man")
        open(man, "w").write(SHARED)
        round_trip(mcgen, "shared messages (written here)", man, [], "10.0.18362", "5.1",
                   os.path.join(tmp, "rt"))
    with tempfile.TemporaryDirectory() as tmp:
        containers(mcgen, tmp)
    print("\nround trip: case | CRIM | binaries' == binaries | man' validate errors/warnings")
    for row in table:
        print("  %s | %s | %s | %s" % row)
    print("%d passed, %d failed, %d skipped" % (results["passed"], results["failed"],
                                                results["skipped"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
