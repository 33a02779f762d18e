#!/usr/bin/env python3
"""Hostile inputs at the limits of the formats and of the generated code.

Each limit is tried at its value, which must compile (byte-checked against
the format document's arithmetic, and by ../shared/tools/wevtdump.py when it
exists), and one past it, which must be the coded error: exit 1, and in a
directory that holds the outputs of an earlier run, every file left
byte-identical and nothing added.  The limits (docs/diagnostics.md):

  message-table entry: 4 + 2 * (units + 3) <= 65532   MCG5019 (msgtable.md 2)
  with -A: 4 + bytes + 3, padded to 4, <= 65532          MCG5019
  BinXml name or value: 65535 UTF-16 units               MCG6022 (wevt 10.3)
  template properties: 65536 (16-bit indices)            MCG6023 (wevt 10.1)
  -um/-km: 127 macro parameters, 128 descriptors         MCG8021, MCG8020
  without -um/-km: 128 descriptors, a warning            MCG8022

Then file names the .rc and the depfile must escape or refuse, and the
reproducers of ../shared/repro when they exist.  Prints one line per check
and "N passed, N failed, N skipped".
"""
import argparse
import gzip
import os
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(ROOT, "..", "shared")
WEVTDUMP = os.path.join(SHARED, "tools", "wevtdump.py")
REPRO = os.path.join(SHARED, "repro")

results = {"passed": 0, "failed": 0, "skipped": 0}


def report(ok, name, why=""):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why))


def skip(name, why):
    results["skipped"] += 1
    print("SKIP %s: %s" % (name, why))


HEAD = """<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
<instrumentation><events>
<provider name="P1" guid="{00000001-0000-0000-0000-000000000001}" symbol="P1"
    resourceFileName="r.dll" messageFileName="r.dll"%s>
"""
TAIL = "</provider></events></instrumentation>%s</instrumentationManifest>\n"


def message_manifest(text):
    loc = ('<localization><resources culture="en-US"><stringTable><string id="s" value="%s"/>'
           '</stringTable></resources></localization>' % text)
    return HEAD % ' message="$(string.s)"' + TAIL % loc


def template_manifest(fields, name_of=lambda i: "f%d" % i, in_type="UInt8", event=False):
    body = "".join('<data name="%s" inType="win:%s"/>\n' % (name_of(i), in_type)
                   for i in range(1, fields + 1))
    ev = '<events><event value="1" symbol="E1" template="T"/></events>' if event else ""
    return (HEAD % "" + '<templates><template tid="T">\n' + body + "</template></templates>"
            + ev + TAIL % "")


def snapshot(d):
    return {f: open(os.path.join(d, f), "rb").read() for f in sorted(os.listdir(d))}


class Run:
    def __init__(self, mcgen, tmp):
        self.mcgen, self.tmp, self.n = mcgen, tmp, 0

    def dir(self):
        self.n += 1
        d = os.path.join(self.tmp, "case%d" % self.n)
        os.mkdir(d)
        return d

    def mcgen_in(self, d, args):
        return subprocess.run([self.mcgen] + args, cwd=d, capture_output=True,
                              errors="replace", timeout=60)

    def ok(self, name, text, args=(), base="m"):
        """Compiles `text` as BASE.man; the directory, or None after a failure."""
        d = self.dir()
        with open(os.path.join(d, base + ".man"), "w", encoding="utf-8") as f:
            f.write(text)
        r = self.mcgen_in(d, list(args) + [base + ".man"])
        report(r.returncode == 0, name + ": compiles",
               "exit %d: %s" % (r.returncode, r.stderr[:400]))
        return d if r.returncode == 0 else None

    def refused(self, name, text, code, args=(), status=1):
        """`text` gives [code] and `status`, and leaves an earlier run's outputs alone."""
        d = self.dir()
        good = template_manifest(1)
        with open(os.path.join(d, "m.man"), "w", encoding="utf-8") as f:
            f.write(good)
        first = self.mcgen_in(d, ["-um", "m.man"])
        if first.returncode != 0:
            report(False, name, "the earlier run failed: " + first.stderr[:300])
            return ""
        before = snapshot(d)
        with open(os.path.join(d, "m.man"), "w", encoding="utf-8") as f:
            f.write(text)
        before["m.man"] = text.encode()
        r = self.mcgen_in(d, list(args) + ["m.man"])
        report(r.returncode == status and "[%s]" % code in r.stderr,
               "%s: exit %d with [%s]" % (name, status, code),
               "exit %d: %s" % (r.returncode, r.stderr[:400]))
        report(snapshot(d) == before, name + ": older outputs untouched, nothing added",
               "files now %s" % sorted(os.listdir(d)))
        return r.stderr


def wevtdump(name, path, *extra):
    if not os.path.exists(WEVTDUMP):
        skip(name + ": wevtdump.py --check", "no ../shared/tools/wevtdump.py")
        return
    r = subprocess.run([sys.executable, WEVTDUMP, "--check"] + list(extra) + [path],
                       capture_output=True, text=True, errors="replace")
    report(r.returncode == 0, name + ": wevtdump.py --check", r.stdout[-300:] + r.stderr[-300:])


def first_entry_length(path):
    """The u16 Length of the first MESSAGE_RESOURCE_ENTRY (msgtable.md 1)."""
    data = open(path, "rb").read()
    nblocks = struct.unpack_from("<I", data, 0)[0]
    off = struct.unpack_from("<I", data, 4 + 8)[0]
    return nblocks, struct.unpack_from("<H", data, off)[0]


def test_message_tables(run):
    # UTF-16: 4 + 2 * (32761 + 3) = 65532, the largest multiple of 4 in 16 bits
    for units, args, want in ((32761, [], 65532), (32763, ["-n"], 65532)):
        name = "message of %d units%s" % (units, " with -n" if args else "")
        d = run.ok(name, message_manifest("A" * units), args)
        if d:
            path = os.path.join(d, "MSG00001.bin")
            report(first_entry_length(path) == (1, want), name + ": entry length %d" % want,
                   "%s" % (first_entry_length(path),))
            wevtdump(name, path, "--msg")
    run.refused("message of 32762 units", message_manifest("A" * 32762), "MCG5019")
    run.refused("message of 32764 units with -n", message_manifest("A" * 32764), "MCG5019",
                ["-n"])
    # -A: 4 + 65525 + 3 = 65532
    d = run.ok("-A message of 65525 bytes", message_manifest("A" * 65525), ["-A"])
    if d:
        path = os.path.join(d, "MSG00001.bin")
        report(first_entry_length(path) == (1, 65532), "-A message: entry length 65532",
               "%s" % (first_entry_length(path),))
    run.refused("-A message of 65526 bytes", message_manifest("A" * 65526), "MCG5019", ["-A"])
    # a character above U+FFFF is two units: 16380 of them + 1 = 32761
    d = run.ok("message of 16380 astral characters", message_manifest("\U0001F600" * 16380 + "A"))
    run.refused("message of 16381 astral characters",
                message_manifest("\U0001F600" * 16381), "MCG5019")
    # --validate says the same, with the options that decide it
    d = run.dir()
    with open(os.path.join(d, "v.man"), "w") as f:
        f.write(message_manifest("A" * 65526))
    r = run.mcgen_in(d, ["--validate", "-A", "v.man"])
    report(r.returncode == 1 and "[MCG5019]" in r.stderr, "--validate -A: MCG5019", r.stderr[:300])
    r = run.mcgen_in(d, ["--validate", "v.man"])
    report(r.returncode == 1 and "[MCG5019]" in r.stderr, "--validate (UTF-16): MCG5019",
           r.stderr[:300])


def test_binxml(run):
    name65535 = lambda i: "n" * 65535 if i == 1 else "f%d" % i
    d = run.ok("field name of 65535 units", template_manifest(2, name65535))
    if d:
        wevtdump("field name of 65535 units", os.path.join(d, "mTEMP.BIN"))
    run.refused("field name of 65536 units",
                template_manifest(2, lambda i: "n" * 65536 if i == 1 else "f%d" % i), "MCG6022")
    ud = (HEAD % "" + '<templates><template tid="T"><data name="a" inType="win:UInt8"/>'
          '<UserData><R xmlns="urn:x" k="%s"><A>%%1</A></R></UserData></template></templates>'
          + TAIL % "")
    run.ok("<UserData> attribute of 65535 units", ud % ("v" * 65535))
    run.refused("<UserData> attribute of 65536 units", ud % ("v" * 65536), "MCG6022")


def test_properties(run, sanitizer):
    n = 65536
    d = run.ok("template of %d fields" % n, template_manifest(n))
    if d and not sanitizer:
        wevtdump("template of %d fields" % n, os.path.join(d, "mTEMP.BIN"))
    err = run.refused("template of %d fields" % (n + 1), template_manifest(n + 1), "MCG6023")
    report("'f65537' is number 65537" in err, "MCG6023 names the field past the limit", err[:300])
    # a struct's members count: 2 top-level + 65535 members = 65537
    members = "".join('<data name="m%d" inType="win:UInt8"/>' % i for i in range(65535))
    st = (HEAD % "" + '<templates><template tid="T"><data name="a" inType="win:UInt8"/>'
          '<struct name="s">%s</struct></template></templates>' + TAIL % "")
    run.refused("template of 2 fields and 65535 members", st % members, "MCG6023")
    run.ok("template of 2 fields and 65534 members", st % members[: members.rindex("<data")])


def test_logging_code(run):
    # -um: _ForContext(pContext, 126 fields) = 127 parameters; 127 descriptors
    run.ok("-um, 126 fields", template_manifest(126, in_type="UInt32", event=True), ["-um"])
    run.refused("-um, 127 fields", template_manifest(127, in_type="UInt32", event=True),
                "MCG8021", ["-um"])
    run.ok("-km, 125 fields", template_manifest(125, in_type="UInt32", event=True), ["-km"])
    run.refused("-km, 126 fields", template_manifest(126, in_type="UInt32", event=True),
                "MCG8021", ["-km"])
    big = template_manifest(10000, in_type="UInt32", event=True)
    err = run.refused("-um, 10000 fields", big, "MCG8020", ["-um"])
    report("10001 EVENT_DATA_DESCRIPTORs" in err and "[MCG8021]" in err,
           "-um, 10000 fields: 10001 descriptors, and MCG8021", err[:400])
    # without -um/-km: a warning, the outputs written
    d = run.dir()
    with open(os.path.join(d, "m.man"), "w") as f:
        f.write(template_manifest(128, in_type="UInt32", event=True))
    r = run.mcgen_in(d, ["m.man"])
    report(r.returncode == 0 and "warning: [MCG8022" in r.stderr and
           os.path.exists(os.path.join(d, "mTEMP.BIN")),
           "no -um, 128 fields: warning MCG8022, outputs written", r.stderr[:300])
    run.ok("no -um, 127 fields", template_manifest(127, in_type="UInt32", event=True))
    # 100 inserts: FormatMessage reads two digits (MCG5011, a warning)
    fields = 100
    msg = " ".join("%%%d" % i for i in range(1, fields + 1))
    text = (HEAD % "" + '<templates><template tid="T">'
            + "".join('<data name="f%d" inType="win:UInt32"/>' % i for i in range(1, fields + 1))
            + '</template></templates><events><event value="1" symbol="E1" template="T" '
            'message="$(string.m)"/></events>'
            + TAIL % ('<localization><resources culture="en-US"><stringTable>'
                      '<string id="m" value="%s"/></stringTable></resources></localization>' % msg))
    d = run.dir()
    with open(os.path.join(d, "m.man"), "w") as f:
        f.write(text)
    r = run.mcgen_in(d, ["--validate", "m.man"])
    report(r.returncode == 0 and "[MCG5011, -Winsert-number] string 'm' has '%100'" in r.stderr,
           "message with %100: warning MCG5011", r.stderr[:300])


def test_names(run):
    good = template_manifest(1)
    # the .rc: a quote doubled (rc.exe, windres); the depfile: make's escapes
    cases = [('a"b', '1 WEVT_TEMPLATE "a""bTEMP.BIN"', 'a"b.h a"b.rc a"bTEMP.BIN: a"b.man'),
             ("s p", '1 WEVT_TEMPLATE "s pTEMP.BIN"', "s\\ p.h s\\ p.rc s\\ pTEMP.BIN: s\\ p.man"),
             ("d$x", '1 WEVT_TEMPLATE "d$xTEMP.BIN"', "d$$x.h d$$x.rc d$$xTEMP.BIN: d$$x.man"),
             ("h#x", '1 WEVT_TEMPLATE "h#xTEMP.BIN"', "h\\#x.h h\\#x.rc h\\#xTEMP.BIN: h\\#x.man"),
             ("c:x", '1 WEVT_TEMPLATE "c:xTEMP.BIN"', "c\\:x.h c\\:x.rc c\\:xTEMP.BIN: c\\:x.man")]
    windres = shutil.which("x86_64-w64-mingw32-windres")
    for base, rc_line, dep in cases:
        d = run.ok("base name %r" % base, good, ["--depfile=dep.d"], base)
        if not d:
            continue
        rc = open(os.path.join(d, base + ".rc"), "rb").read().decode()
        report(rc_line + "\r\n" in rc, "base name %r: .rc line" % base, repr(rc))
        got = open(os.path.join(d, "dep.d")).read()
        report(got == dep + "\n", "base name %r: depfile" % base, repr(got))
        if windres:
            # windres passes its input's name to the preprocessor through a
            # shell: the script is given under a plain name
            shutil.copy(os.path.join(d, base + ".rc"), os.path.join(d, "plain.rc"))
            r = subprocess.run([windres, "plain.rc", "-O", "coff", "-o", "rc.o"], cwd=d,
                               capture_output=True, text=True)
            report(r.returncode == 0, "base name %r: windres compiles the .rc" % base, r.stderr)
    if not windres:
        skip("windres", "no x86_64-w64-mingw32-windres")
    # a newline: no spelling in an .rc string nor in a Makefile rule
    for args, what in (([], ".rc"), (["--depfile=dep.d", "--json=m.json"], "depfile")):
        d = run.dir()
        with open(os.path.join(d, "a\nb.man"), "w") as f:
            f.write(good)
        r = run.mcgen_in(d, args + ["a\nb.man"])
        report(r.returncode == 2 and "cannot" in r.stderr and sorted(os.listdir(d)) == ["a\nb.man"],
               "base name with a newline: the %s refused, exit 2, nothing written" % what,
               "exit %d %s %s" % (r.returncode, r.stderr[:300], os.listdir(d)))
    d = run.dir()
    with open(os.path.join(d, "m.man"), "w") as f:
        f.write(good)
    r = run.mcgen_in(d, ["-z", "x\ty", "m.man"])
    report(r.returncode == 2 and "U+0009" in r.stderr and sorted(os.listdir(d)) == ["m.man"],
           "-z with a tab: refused, exit 2, nothing written", r.stderr[:300])


def test_readers(run):
    """--check-wevt refuses property numbers the writers cannot produce."""
    d = run.ok("struct template", HEAD % "" + '<templates><template tid="T">'
               '<data name="a" inType="win:UInt8"/><struct name="s">'
               '<data name="m" inType="win:UInt8"/></struct></template></templates>' + TAIL % "")
    if not d:
        return
    data = bytearray(open(os.path.join(d, "mTEMP.BIN"), "rb").read())
    t = data.index(b"TEMP")
    props = struct.unpack_from("<I", data, t + 16)[0]
    for what, at, value, want in (
            ("more top-level properties than properties", t + 8, 4, "top-level properties"),
            ("struct members aliasing a top-level field", props + 20 + 4, 0, "struct members"),
            ("a struct member count past the end", props + 20 + 6, 9, "struct members")):
        bad = bytearray(data)
        struct.pack_into("<H" if at != t + 8 else "<I", bad, at, value)
        path = os.path.join(d, "bad.bin")
        open(path, "wb").write(bad)
        r = run.mcgen_in(d, ["--check-wevt=bad.bin"])
        report(r.returncode == 1 and want in r.stderr + r.stdout, "--check-wevt: " + what,
               "exit %d %s" % (r.returncode, (r.stderr + r.stdout)[:300]))
    r = run.mcgen_in(d, ["--check-wevt=mTEMP.BIN"])
    report(r.returncode == 0, "--check-wevt: the file as written", r.stderr[:300])


def test_repro(run):
    cases = [("msgtable-entry-length-u16-wrap.man", "MCG5019"),
             ("wevt-binxml-name-length-u16-wrap.man", "MCG6022"),
             ("wevt-substitution-index-u16-wrap.man.gz", "MCG6023")]
    for f, code in cases:
        path = os.path.join(REPRO, f)
        if not os.path.exists(path):
            skip("repro " + f, "no ../shared/repro")
            continue
        data = open(path, "rb").read()
        if f.endswith(".gz"):
            data = gzip.decompress(data)
        run.refused("repro " + f, data.decode("utf-8"), code)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    args = ap.parse_args()
    mcgen = os.path.abspath(args.mcgen)
    # the sanitizer builds are ~3x slower: the 65,536-field TEMP.BIN is
    # still compiled there, only not decoded again by wevtdump.py (3 s)
    sanitizer = "build-" in mcgen
    with tempfile.TemporaryDirectory() as tmp:
        run = Run(mcgen, tmp)
        test_message_tables(run)
        test_binxml(run)
        test_properties(run, sanitizer)
        test_logging_code(run)
        test_names(run)
        test_readers(run)
        test_repro(run)
    print("%d passed, %d failed, %d skipped" %
          (results["passed"], results["failed"], results["skipped"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
