#!/usr/bin/env python3
"""Issue 15, items 4 and 7: event symbols, and mc 8.1's provider blocks.

Item 4 (mcgen/check_rules.c, mcgen/check_names.c):
  * two events of one provider with one symbol are an error (MCG2020) that
    names both events, and nothing is written;
  * an event named like a task of its own provider is an error (MCG2021):
    the task's #define makes the descriptor's name a number;
  * across providers the same event symbol is renamed with a warning
    (MCG8001) that says what the header calls the second event, and that
    header compiles and links with x86_64-w64-mingw32-gcc and -g++ (-Wall
    -Wextra -Werror) from a unit that writes both events by their names;
    an event named like another provider's task stays a warning (MCG8011).

Item 7 (mcgen/emit_wevt.c, mc81_pads_end): the TEMP.BIN of two providers
that declare a channel and nothing else, with --mc-compat=8.1 (4 zero
bytes end the first block, as mc 8.1 writes it), 10.0.15063 and current
(no padding: their goldens never pad a block), and two manifests where
the explanations of mc 8.1's padding disagree (left unpadded).  Each
expected offset is worked out below from ../shared/docs/wevt-template.md;
../shared/tools/wevtdump.py, when present, decodes the files.

Prints one line per check and "N passed, N failed, N skipped"; the
compiles are skipped, saying so, without the mingw-w64 compilers, and
the decoder's checks without ../shared/tools/wevtdump.py.
"""
import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WEVTDUMP = os.path.join(ROOT, "..", "shared", "tools", "wevtdump.py")
CC, CXX = "x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-g++"

results = {"passed": 0, "failed": 0, "skipped": 0}


def report(ok, name, why=""):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why))


def report_skip(name, why):
    results["skipped"] += 1
    print("SKIP %s: %s" % (name, why))


def check_eq(name, got, want):
    report(got == want, name, "got %r, expected %r" % (got, want))


HEAD = """<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
                         xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation>
    <events>
"""
TAIL = """    </events>
  </instrumentation>
</instrumentationManifest>
"""


def provider(name, sym, guid_tail, body):
    return ('      <provider name="%s" guid="{8c7a2a4b-0c39-4b4c-9d1b-1d2e3f4051%s}" symbol="%s"\n'
            '                resourceFileName="demo.exe" messageFileName="demo.exe">\n'
            '%s      </provider>\n' % (name, guid_tail, sym, body))


def manifest(*providers):
    return HEAD + "".join(providers) + TAIL


def run(mcgen, args, cwd):
    return subprocess.run([mcgen] + args, cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)


def write(tmp, name, text):
    with open(os.path.join(tmp, name), "w") as f:
        f.write(text)


# ---- item 4 -------------------------------------------------------------

SAME = manifest(provider("Demo", "DEMO", "62",
                         "        <events>\n"
                         '          <event value="10" symbol="Opened"/>\n'
                         '          <event value="12" version="1" symbol="Opened"/>\n'
                         "        </events>\n"))

TASK = manifest(provider("Demo", "DEMO", "62",
                         '        <tasks><task name="Work" value="1" symbol="Started"/></tasks>\n'
                         '        <events><event value="1" symbol="Started" task="Work"/></events>\n'))

# Demo-Two's event 1 has Demo-One's symbol; Demo-Two's event 2 has the
# symbol of Demo-One's task.
CROSS = manifest(
    provider("Demo-One", "DEMO_ONE", "62",
             '        <tasks><task name="Work" value="1" symbol="TASK_WORK"/></tasks>\n'
             '        <events><event value="1" symbol="Started" task="Work"/></events>\n'),
    provider("Demo-Two", "DEMO_TWO", "63",
             '        <events><event value="1" symbol="Started"/></events>\n'))

CROSS_TASK = manifest(
    provider("Demo-One", "DEMO_ONE", "62",
             '        <tasks><task name="Work" value="1" symbol="TASK_WORK"/></tasks>\n'),
    provider("Demo-Two", "DEMO_TWO", "63",
             '        <events><event value="1" symbol="TASK_WORK"/></events>\n'))

PROBE = """#include <windows.h>
#include <evntprov.h>
#include "cross.h"
int main(void)
{
    EventRegisterDemo_One();
    EventRegisterDemo_Two();
    /* both events, by the names the warning gives */
    EventWriteStarted();
    EventWriteStarted_DEMO_TWO();
    EventUnregisterDemo_Two();
    EventUnregisterDemo_One();
    return Started.Id == 1 && Started_DEMO_TWO.Id == 1 ? 0 : 1;
}
"""


def refused(mcgen, tmp, name, text, want_err):
    """The manifest gives exactly want_err on stderr, exit 1, no output."""
    d = os.path.join(tmp, name)
    os.mkdir(d)
    write(d, name + ".man", text)
    r = run(mcgen, ["-um", "-h", "out", "-r", "out", name + ".man"], d)
    check_eq(name + ": exit status", r.returncode, 1)
    check_eq(name + ": diagnostics", r.stderr, want_err)
    check_eq(name + ": nothing written", os.listdir(d), [name + ".man"])


def test_symbols(mcgen, tmp):
    # MCG2020: the second event (line 10, column 11: the '<' of its
    # element; HEAD is lines 1-5, the provider's tag 6-7, <events> 8) and
    # the first's place (9:11); both by value, the second with its version.
    # The source line is quoted indented by two, the caret under the '<'
    refused(mcgen, tmp, "same", SAME,
            "same.man:10:11: error: [MCG2020] symbol 'Opened' of event 12 version 1 is also "
            "the symbol of event 10 of the same provider 'Demo': the header can define it "
            "once (first defined at same.man:9:11)\n"
            '            <event value="12" version="1" symbol="Opened"/>\n'
            "            ^\n"
            "1 error\n")
    # MCG2021: the event on line 9 after "<events>" (column 17), the
    # task on line 8 after "<tasks>" (column 16)
    refused(mcgen, tmp, "task", TASK,
            "task.man:9:17: error: [MCG2021] symbol 'Started' of event 1 is also the symbol "
            "of task 'Work' of the same provider 'Demo': the header cannot define both "
            "(first defined at task.man:8:16)\n"
            '          <events><event value="1" symbol="Started" task="Work"/></events>\n'
            "                  ^\n"
            "1 error\n")

    # across providers: a warning, and the second event is
    # Started_<its provider's symbol> (mc's rule for a taken name); Demo-One
    # is lines 6-10 (its events on 9), Demo-Two's events on line 13.  The
    # source line is quoted indented by two, the caret under the '<'
    d = os.path.join(tmp, "cross")
    os.mkdir(d)
    write(d, "cross.man", CROSS)
    r = run(mcgen, ["-um", "cross.man"], d)
    check_eq("cross: exit status", r.returncode, 0)
    check_eq("cross: diagnostics", r.stderr,
             "cross.man:13:17: warning: [MCG8001, -Wsymbol-renamed] symbol 'Started' of event 1 "
             "is also the symbol of event 1 of provider 'Demo-One'; the header calls this "
             "event's descriptor and macros Started_DEMO_TWO (EventWriteStarted_DEMO_TWO, "
             "EventEnabledStarted_DEMO_TWO) (first defined at cross.man:9:17)\n"
             '          <events><event value="1" symbol="Started"/></events>\n'
             "                  ^\n"
             "1 warning\n")
    header = open(os.path.join(d, "cross.h")).read() if r.returncode == 0 else ""
    for name in ("EVENT_DESCRIPTOR Started =", "EVENT_DESCRIPTOR Started_DEMO_TWO =",
                 "#define EventWriteStarted(", "#define EventWriteStarted_DEMO_TWO(",
                 "#define EventEnabledStarted_DEMO_TWO("):
        report(name in header, "cross: the header has " + name, "missing")
    if not shutil.which(CC) or not shutil.which(CXX):
        report_skip("cross: the header compiles", "no %s / %s" % (CC, CXX))
    else:
        write(d, "probe.c", PROBE)
        shutil.copy(os.path.join(d, "probe.c"), os.path.join(d, "probe.cpp"))
        for cc, src in ((CC, "probe.c"), (CXX, "probe.cpp")):
            c = subprocess.run([cc, "-Wall", "-Wextra", "-Werror", "-o", src + ".exe", src],
                               cwd=d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
            report(c.returncode == 0, "cross: the header compiles and links (%s)" % cc,
                   c.stdout[-2000:])

    # an event named like another provider's task: still MCG8011, a warning
    d = os.path.join(tmp, "cross_task")
    os.mkdir(d)
    write(d, "cross_task.man", CROSS_TASK)
    r = run(mcgen, ["--validate", "cross_task.man"], d)
    check_eq("cross_task: exit status", r.returncode, 0)
    report("[MCG8011, -Wsymbol-clash] symbol 'TASK_WORK' of this event names an earlier task"
           in r.stderr and "MCG2021" not in r.stderr, "cross_task: MCG8011, not MCG2021",
           r.stderr)


# ---- item 7 -------------------------------------------------------------

def channels_only(*names):
    """One provider per channel name, each declaring that channel only."""
    return manifest(*(provider(n.split("/")[0], n.split("/")[0].upper(), "%02x" % (0x62 + i),
                               '        <channels><channel name="%s" chid="c" '
                               'type="Operational"/></channels>\n' % n)
                      for i, n in enumerate(names)))


# The layout (wevt-template.md): CRIM 16 bytes + 20 per provider; then each
# WEVT: 16 bytes + the list descriptors (v3: 11 slots of 8 = 88, so 104;
# v5: one slot a list, 6 lists here, so 64); CHAN: 12 + one 16-byte entry +
# the name as a counted string (4 + UTF-16 + NUL, padded to 4); PRVA (v5):
# 12 + one 8-byte entry + the provider name as UTF-16 with NUL, padded to
# 4; the empty OPCO, LEVL, TASK and KEYW lists 12 bytes each (48).
#
# "Demo/Operational", 16 characters: counted string 4 + 34 -> 40; CHAN 68.
# "Demo2/Operational", 17 characters: 4 + 36 = 40; CHAN 68.
#   v3 block: 104 + 68 + 48 = 220 each.  The first starts at 16 + 2 * 20 =
#   0x38 (8-aligned) and ends at 0x38 + 220 = 0x114, 4 mod 8, after its
#   empty KEYW, and another provider follows: mc 8.1's case (issue 15:
#   800 for 796 there).  So with --mc-compat=8.1 the first block is 224,
#   the second starts at 0x118 and ends at 0x118 + 220 = 0x1f4 (the last
#   block: not padded, nothing says mc 8.1 pads it); CRIM size 500, the
#   file 502 (two bytes after it).  10.0.15063: 220, 220, second at 0x114,
#   CRIM 496.
#   v5 (current): PRVA "Demo" 12 + 8 + 10 -> 32, "Demo2" 12 + 8 + 12 = 32;
#   block 64 + 68 + 32 + 48 = 212 each: second at 0x38 + 212 = 0x10c, CRIM
#   0x10c + 212 = 480.
TWO = channels_only("Demo/Operational", "Demo2/Operational")
# Demo's keyword "K" (mask 1): KEYW 12 + 16 + (4 + 4) = 36, so the block is
# 104 + 68 + 36 + 36 = 244 and ends at 0x38 + 244 = 0x12c, 4 mod 8, but its
# KEYW is not empty: the explanations of mc 8.1's padding disagree there
# (emit_wevt.c), so no padding in any mode: second WEVT at 0x12c.
KEYWORD = TWO.replace('type="Operational"/></channels>\n',
                      'type="Operational"/></channels>\n'
                      '        <keywords><keyword name="K" mask="0x1"/></keywords>\n', 1)
# Three providers: the first WEVT at 16 + 3 * 20 = 0x4c, 4 mod 8.
# "Demo/Admin", 10 characters: 4 + 22 -> 28, CHAN 56, block 104 + 56 + 48
# = 208, ending at 0x4c + 208 = 0x11c: 4 mod 8 in the file, 0 from the
# block's start: absolute and relative alignment disagree, so no padding:
# the second WEVT at 0x11c.
THREE = channels_only("Demo/Admin", "Demo2/Operational", "Demo3/Operational")


def blocks(data):
    """(CRIM size, [(WEVT offset, WEVT size)]) of a TEMP.BIN."""
    size, _, _, n = struct.unpack_from("<IHHI", data, 4)
    out = []
    for i in range(n):
        at = struct.unpack_from("<I", data, 16 + 20 * i + 16)[0]
        out.append((at, struct.unpack_from("<I", data, at + 4)[0]))
    return size, out


def compile_wevt(mcgen, tmp, name, text, compat):
    d = os.path.join(tmp, "%s-%s" % (name, compat))
    os.mkdir(d)
    write(d, name + ".man", text)
    r = run(mcgen, ["--mc-compat=" + compat, name + ".man"], d)
    if r.returncode != 0:
        report(False, "%s --mc-compat=%s compiles" % (name, compat), r.stderr)
        return None, None
    path = os.path.join(d, name + "TEMP.BIN")
    with open(path, "rb") as f:
        return path, f.read()


def test_layout(mcgen, tmp):
    expect = {
        # name, compat: CRIM size, [(WEVT offset, size)]
        ("two", "8.1"): (500, [(0x38, 224), (0x118, 220)]),
        ("two", "10.0.15063"): (496, [(0x38, 220), (0x114, 220)]),
        ("two", "current"): (480, [(0x38, 212), (0x10c, 212)]),
        ("keyword", "8.1"): (520, [(0x38, 244), (0x12c, 220)]),
        ("keyword", "10.0.15063"): (520, [(0x38, 244), (0x12c, 220)]),
        ("three", "8.1"): (0x11c + 220 + 220, [(0x4c, 208), (0x11c, 220), (0x1f8, 220)]),
    }
    texts = {"two": TWO, "keyword": KEYWORD, "three": THREE}
    files = {}
    for (name, compat), (crim, want) in expect.items():
        path, data = compile_wevt(mcgen, tmp, name, texts[name], compat)
        if data is None:
            continue
        files[name, compat] = path
        label = "%s --mc-compat=%s" % (name, compat)
        check_eq(label + ": CRIM size and provider blocks", blocks(data), (crim, want))
        check_eq(label + ": file size (CRIM size + 2)", len(data), crim + 2)
        if name == "two" and compat == "8.1":
            # the 4 bytes after the first block's empty KEYW (0x108 + 12)
            check_eq(label + ": KEYW at 0x108, empty, then 4 zero bytes",
                     data[0x108:0x118], b"KEYW" + bytes(12))
    # the padding is mc 8.1's only: 8.1 and 10.0.15063 differ in nothing
    # else (template ids aside, and this manifest has no template)
    if ("two", "8.1") in files and ("two", "10.0.15063") in files:
        a = open(files["two", "8.1"], "rb").read()
        b = open(files["two", "10.0.15063"], "rb").read()
        # the same bytes but for the size (offset 4 of the WEVT header)
        check_eq("two: 8.1's first block is 10.0.15063's plus 4 zero bytes",
                 (a[0x38:0x3c] + a[0x40:0x118], struct.unpack_from("<I", a, 0x3c)[0]),
                 (b[0x38:0x3c] + b[0x40:0x114] + bytes(4), 224))
    if not os.path.exists(WEVTDUMP):
        report_skip("two: wevtdump.py decodes", "no ../shared/tools/wevtdump.py")
        return
    if ("two", "8.1") not in files or ("two", "10.0.15063") not in files:
        return

    def dump(*args):
        return subprocess.run([sys.executable, WEVTDUMP] + list(args), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    # without offsets the two dumps differ only in the CRIM size (500,
    # 496) and the first WEVT's (224, 220): the same lists, entries, names
    d81 = dump("--no-offsets", files["two", "8.1"]).stdout.splitlines()
    d3 = dump("--no-offsets", files["two", "10.0.15063"]).stdout.splitlines()
    diff = [(x, y) for x, y in zip(d81, d3) if x != y]
    check_eq("two: wevtdump reads the same lists from 8.1's and 10.0.15063's files",
             (len(d81), len(d3), [(x.split()[:2], y.split()[:2]) for x, y in diff]),
             (len(d3), len(d3), [(["CRIM", "size=500"], ["CRIM", "size=496"]),
                                 (["WEVT", "provider=#0"], ["WEVT", "provider=#0"])]))
    report(any("WEVT provider=#0 size=224" in x for x in d81) and
           any("KEYW size=0 count=0" in x for x in d81),
           "two --mc-compat=8.1: wevtdump's WEVT #0 is 224 bytes, its KEYW empty", "\n".join(d81))
    full = dump(files["two", "8.1"]).stdout
    report("@0x38 WEVT provider=#0 size=224" in full and "wevt=0x118" in full,
           "two --mc-compat=8.1: wevtdump sees WEVT #0 of 224 bytes, #1 at 0x118", full[:400])
    # wevtdump's spec says the last list ends at the block's end (section
    # 3); mc 8.1's block does not, so its --check names exactly that
    chk = dump("--check", files["two", "8.1"])
    check_eq("two --mc-compat=8.1: wevtdump --check names the 4 bytes",
             (chk.returncode, chk.stderr.strip().split(": ", 1)[-1]),
             (1, "INCONSISTENT: offset 0x114: WEVT #0 size says end 0x118 but lists end at 0x114"))
    for compat in ("10.0.15063", "current"):
        if ("two", compat) in files:
            chk = dump("--check", files["two", compat])
            report(chk.returncode == 0, "two --mc-compat=%s: wevtdump --check OK" % compat,
                   chk.stdout + chk.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mcgen", default=os.path.join(ROOT, "build", "mcgen"))
    args = ap.parse_args()
    mcgen = os.path.abspath(args.mcgen)
    with tempfile.TemporaryDirectory() as tmp:
        test_symbols(mcgen, tmp)
        test_layout(mcgen, tmp)
    print("%d passed, %d failed, %d skipped" % (results["passed"], results["failed"],
                                                results["skipped"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
