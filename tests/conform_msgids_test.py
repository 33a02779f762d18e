#!/usr/bin/env python3
"""Message ids of built-in (win:) items as mc gives them (issue 15, items 1
and 2), from manifests this test writes.

The rule (mcgen/check_msgid.c, ../shared/docs/message-ids.md): a built-in
item's message is winmeta's string, whose id is winmeta's (level.Error,
channel.System); its message id is mc's formula,

    id = tag << 28 | provider position << 24 | value (24 bits)

with position 0 for levels, tasks, opcodes and keywords (tag 5 and the
level's value for a level), and, for an imported winmeta channel, tag 9 and
the next value of its provider's counter (the provider's own message first,
then each channel with a message in CHAN order).  Being one string:

1. (item 1) when the manifest's own string table defines that string id
   (ecmangen writes <string id="level.Error" value="Error"/>), the header
   names it like any other string: "#define MSG_level_Error 0x50000002L",
   among the other MSG_ defines, by id then name.  A built-in the manifest
   uses whose string it does not define gets no define (the golden headers:
   etk-TaskOpcodes uses win:Error, defines no level.Error, has no
   MSG_level_Error; tests/corpus_test.py holds every golden MSG_ line).  A
   string the manifest defines for a built-in it does not use (level.Critical
   here) gets neither an id nor a define.  The message table and TEMP.BIN do
   not depend on the define: they are the same bytes with and without the
   strings.
2. (item 2) a winmeta channel imported by several providers has one id, the
   first import's, in every provider's CHAN entry, and one entry in the
   message table.  Each later import still takes a value of its provider's
   counter: mcgen's rule for any string that already has an id (a channel
   whose message string an earlier element fixed); no mc output in the
   corpus has two imports of one winmeta channel, so a provider's own
   channel after such an import (P2/Op, P3/Op below) shows the rule as
   mcgen keeps it, not as bytes of mc prove it.

Not fixed by the issue and not asserted here: the text of the table entry
when the manifest defines level.Error with a text other than winmeta's
("Error"); mcgen keeps winmeta's.  The manifests below use winmeta's texts,
as ecmangen writes them.

Each expectation is written out by hand from the rule, its arithmetic in a
comment.  TEMP.BIN's channel entries are read with ../shared/tools/
wevtdump.py (skipped without it); the message tables with a reader of the
documented format (../shared/docs/msgtable.md) below; --json's messageId of
each channel must equal its CHAN entry's.  The header is compiled with a
probe that uses the new names and checks their values (_Static_assert,
static_assert) under x86_64-w64-mingw32-gcc and g++ (skipped without
mingw-w64).

Prints PASS/FAIL/SKIP lines and "N passed, N failed, N skipped".
"""
import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from diagfmt_test import check, results, skip  # noqa: E402 (the layers' PASS/FAIL lines)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WEVTDUMP = os.path.join(ROOT, "..", "shared", "tools", "wevtdump.py")
CC, CXX = "x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-g++"

HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
        '<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"\n'
        '    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">\n'
        '<instrumentation><events>\n')


def strings(table):
    return ("</events></instrumentation>\n<localization><resources culture=\"en-US\"><stringTable>\n" +
            "".join('<string id="%s" value="%s"/>\n' % kv for kv in table) +
            "</stringTable></resources></localization>\n</instrumentationManifest>\n")


# ---- item 1: one provider using win: levels and importing winmeta channels

ONE = HEAD + """<provider name="A" guid="{6A4C3B2E-0000-4000-8000-000000000001}" symbol="A_PROVIDER"
    resourceFileName="a.dll" messageFileName="a.dll">
 <channels>
  <channel name="A/Op" chid="Op" type="Operational" message="$(string.channel.Op)"/>
  <importChannel name="Application"/>
  <importChannel name="System" chid="Sys"/>
 </channels>
 <events>
  <event value="1" symbol="E1" channel="Op" level="win:Error" message="$(string.event.1)"/>
  <event value="2" symbol="E2" channel="Application" level="win:Informational" message="$(string.event.2)"/>
  <event value="3" symbol="E3" channel="Op" level="win:Verbose"/>
  <event value="4" symbol="E4" level="win:Warning" message="$(string.event.4)"/>
 </events>
</provider>
"""
ONE_OWN = [("event.1", "One"), ("event.2", "Two"), ("event.4", "Four"), ("channel.Op", "Op")]
# ecmangen's strings for the built-ins, with winmeta's texts; level.Warning
# is left out (win:Warning is used, no define), level.Critical is defined
# but win:Critical is not used (no id, no define)
ONE_BUILTIN = [("level.Error", "Error"), ("level.Informational", "Information"),
               ("level.Verbose", "Verbose"), ("level.Critical", "Critical"),
               ("channel.Application", "Application"), ("channel.System", "System")]

# Provider A is at position 0 and has no message of its own, so its
# counter gives 1 to A/Op, 2 to Application, 3 to System (CHAN order).
# Levels: Error 2, Warning 3, Informational 4, Verbose 5 (winmeta values),
# tag 5, position 0.  Events: tag 0xB, version 0 << 16 | value; event 2's
# channel is Application (winmeta value 9, a global channel): tag 0.
ONE_IDS = {
    "event.2": 0x0 << 28 | 0 << 24 | 2,                  # 0x00000002
    "level.Error": 0x5 << 28 | 0 << 24 | 2,              # 0x50000002
    "level.Warning": 0x5 << 28 | 0 << 24 | 3,            # 0x50000003
    "level.Informational": 0x5 << 28 | 0 << 24 | 4,      # 0x50000004
    "level.Verbose": 0x5 << 28 | 0 << 24 | 5,            # 0x50000005
    "channel.Op": 0x9 << 28 | 0 << 24 | 1,               # 0x90000001
    "channel.Application": 0x9 << 28 | 0 << 24 | 2,      # 0x90000002
    "channel.System": 0x9 << 28 | 0 << 24 | 3,           # 0x90000003
    "event.1": 0xB << 28 | 0 << 24 | 1,                  # 0xB0000001
    "event.4": 0xB << 28 | 0 << 24 | 4,                  # 0xB0000004
}
assert ONE_IDS["level.Error"] == 0x50000002 and ONE_IDS["channel.Application"] == 0x90000002

# The header's MSG_ lines, by id then name: every string with an id that
# the manifest defines; the '.' of a string id becomes '_'.
ONE_DEFINES_WITH = [
    "#define MSG_event_2 0x00000002L",
    "#define MSG_level_Error 0x50000002L",
    "#define MSG_level_Informational 0x50000004L",
    "#define MSG_level_Verbose 0x50000005L",
    "#define MSG_channel_Op 0x90000001L",
    "#define MSG_channel_Application 0x90000002L",
    "#define MSG_channel_System 0x90000003L",
    "#define MSG_event_1 0xB0000001L",
    "#define MSG_event_4 0xB0000004L",
]
# without the built-ins' strings: only the manifest's own
ONE_DEFINES_WITHOUT = [
    "#define MSG_event_2 0x00000002L",
    "#define MSG_channel_Op 0x90000001L",
    "#define MSG_event_1 0xB0000001L",
    "#define MSG_event_4 0xB0000004L",
]
# The message table, with or without the strings: every id once, with its
# text (winmeta's for the built-ins: "Information" for level.Informational).
ONE_TABLE = [
    (0x00000002, "Two"), (0x50000002, "Error"), (0x50000003, "Warning"),
    (0x50000004, "Information"), (0x50000005, "Verbose"), (0x90000001, "Op"),
    (0x90000002, "Application"), (0x90000003, "System"), (0xB0000001, "One"),
    (0xB0000004, "Four"),
]
# CHAN entries of provider A: (value, message id, name)
ONE_CHAN = [[(16, 0x90000001, "A/Op"), (9, 0x90000002, "Application"),
             (8, 0x90000003, "System")]]

# ---- item 2: three providers importing System (and two, Application)

THREE = HEAD + """<provider name="P1" guid="{6A4C3B2E-0000-4000-8000-000000000011}" symbol="P1_PROVIDER" resourceFileName="p.dll" messageFileName="p.dll" message="$(string.provider.1)">
 <channels>
  <importChannel name="System" chid="S1"/>
 </channels>
 <events>
  <event value="1" symbol="P1E1" channel="S1" level="win:Error" message="$(string.e.1.1)"/>
 </events>
</provider>
<provider name="P2" guid="{6A4C3B2E-0000-4000-8000-000000000012}" symbol="P2_PROVIDER" resourceFileName="p.dll" messageFileName="p.dll">
 <channels>
  <importChannel name="Application"/>
  <importChannel name="System"/>
  <channel name="P2/Op" chid="Op2" type="Operational" message="$(string.channel.2.Op)"/>
 </channels>
 <events>
  <event value="1" symbol="P2E1" channel="System" level="win:Error" message="$(string.e.2.1)"/>
 </events>
</provider>
<provider name="P3" guid="{6A4C3B2E-0000-4000-8000-000000000013}" symbol="P3_PROVIDER" resourceFileName="p.dll" messageFileName="p.dll" message="$(string.provider.3)">
 <channels>
  <importChannel name="Application" chid="App3"/>
  <importChannel name="System" chid="Sys3"/>
  <channel name="P3/Op" chid="Op3" type="Operational" message="$(string.channel.3.Op)"/>
 </channels>
 <events>
  <event value="1" symbol="P3E1" channel="Op3" message="$(string.e.3.1)"/>
 </events>
</provider>
"""
# channel.System is defined (a define), channel.Application is not.
THREE_STRINGS = [("provider.1", "Provider one"), ("provider.3", "Provider three"),
                 ("channel.2.Op", "Two Op"), ("channel.3.Op", "Three Op"),
                 ("channel.System", "System"),
                 ("e.1.1", "P1 one"), ("e.2.1", "P2 one"), ("e.3.1", "P3 one")]
# P1 (position 0): provider.1 takes counter 1 (0x90000001), System 2
#   (0x90000002, the first import of channel.System: its id for all).
# P2 (position 1, no message): Application takes 1 (0x91000001, the first
#   import of channel.Application), System takes 2 but keeps 0x90000002,
#   P2/Op takes 3 (0x91000003).
# P3 (position 2): provider.3 takes 1 (0x92000001), Application 2 (keeps
#   0x91000001), System 3 (keeps 0x90000002), P3/Op 4 (0x92000004).
# Events: P1's and P2's event 1 are on System (winmeta 8, global): tag 0,
#   so 0 << 28 | 0 << 24 | 1 = 0x00000001 and 0 << 28 | 1 << 24 | 1 =
#   0x01000001; P3's is on its own channel: 0xB << 28 | 2 << 24 | 1.
THREE_DEFINES = [
    "#define MSG_e_1_1 0x00000001L",
    "#define MSG_e_2_1 0x01000001L",
    "#define MSG_provider_1 0x90000001L",
    "#define MSG_channel_System 0x90000002L",
    "#define MSG_channel_2_Op 0x91000003L",
    "#define MSG_provider_3 0x92000001L",
    "#define MSG_channel_3_Op 0x92000004L",
    "#define MSG_e_3_1 0xB2000001L",
]
# one entry per id: "System" and "Application" once each (win:Error's
# 0x50000002 too, used by two providers)
THREE_TABLE = [
    (0x00000001, "P1 one"), (0x01000001, "P2 one"), (0x50000002, "Error"),
    (0x90000001, "Provider one"), (0x90000002, "System"), (0x91000001, "Application"),
    (0x91000003, "Two Op"), (0x92000001, "Provider three"), (0x92000004, "Three Op"),
    (0xB2000001, "P3 one"),
]
THREE_CHAN = [
    [(8, 0x90000002, "System")],
    [(9, 0x91000001, "Application"), (8, 0x90000002, "System"), (16, 0x91000003, "P2/Op")],
    [(9, 0x91000001, "Application"), (8, 0x90000002, "System"), (16, 0x92000004, "P3/Op")],
]


def compile_manifest(mcgen, text, tmp, name):
    """mcgen -um on `text` in tmp/<name as a file name>/; (returncode,
    stderr, files)."""
    slug = re.sub(r"[^A-Za-z0-9]+", "-", name)
    d = os.path.join(tmp, slug)
    os.makedirs(d, exist_ok=True)
    man = os.path.join(d, slug + ".man")
    with open(man, "w") as f:
        f.write(text)
    r = subprocess.run([mcgen, "-um", "-h", d, "-r", d, "--mc-outputs", "--json=" + os.path.join(d, "model.json"),
                        man], capture_output=True)
    files = {}
    for fn in os.listdir(d):
        with open(os.path.join(d, fn), "rb") as f:
            files[fn] = f.read()
    return r.returncode, r.stderr.decode("utf-8", "replace"), files


def header_defines(header):
    return [ln for ln in header.decode().splitlines() if ln.startswith("#define MSG_")]


def read_table(data):
    """[(id, text)] of a Unicode message table (../shared/docs/msgtable.md:
    u32 block count, blocks {u32 low, u32 high, u32 offset}, entries {u16
    length, u16 flags, text, padding}); the trailing CR LF and NULs cut."""
    out = []
    (n,) = struct.unpack_from("<I", data, 0)
    for b in range(n):
        low, high, off = struct.unpack_from("<III", data, 4 + 12 * b)
        for i in range(low, high + 1):
            length, flags = struct.unpack_from("<HH", data, off)
            text = data[off + 4:off + length].decode("utf-16-le" if flags == 1 else "cp1252")
            out.append((i, text.rstrip("\0").removesuffix("\r\n")))
            off += length
    return out


def chan_entries(tempbin, tmp):
    """[[(value, message id, name)] per provider] from wevtdump.py."""
    path = os.path.join(tmp, "dump.bin")
    with open(path, "wb") as f:
        f.write(tempbin)
    r = subprocess.run([sys.executable, WEVTDUMP, "--no-offsets", path],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr)
    out = []
    for ln in r.stdout.splitlines():
        if ln.startswith("WEVT "):
            out.append([])
        m = re.match(r'\s*CHANNEL value=(\d+) .*message=(0x[0-9a-fA-F]+|none) name="(.*)"', ln)
        if m:
            out[-1].append((int(m.group(1)), int(m.group(2), 16), m.group(3)))
    return out


def json_chan_ids(model):
    """[[(value, messageId, name)] per provider] from --json."""
    return [[(c["value"], (c["message"] or {}).get("messageId"), c["name"])
             for c in p["channels"]] for p in model["providers"]]


def base_of(files):
    return next(fn[:-2] for fn in files if fn.endswith(".h"))


def check_case(mcgen, tmp, name, text, defines, table, chans):
    rc, err, files = compile_manifest(mcgen, text, tmp, name)
    check(rc == 0, name + ": compiles", err)
    if rc != 0:
        return None
    base = base_of(files)
    got = header_defines(files[base + ".h"])
    check(got == defines, name + ": the header's MSG_ lines", "\n".join(got))
    got = read_table(files["MSG00001.bin"])
    check(got == table, name + ": the message table (%d entries)" % len(table), got)
    model = json.loads(files["model.json"])
    check(json_chan_ids(model) == chans, name + ": --json's channel messageIds", json_chan_ids(model))
    if os.path.exists(WEVTDUMP):
        got = chan_entries(files[base + "TEMP.BIN"], tmp)
        check(got == chans, name + ": TEMP.BIN's CHAN entries (wevtdump.py)", got)
    else:
        skip(name + ": TEMP.BIN's CHAN entries", "no ../shared/tools/wevtdump.py")
    return files


PROBE = """#include <windows.h>
#include <wmistr.h>
#include <evntrace.h>
#include <evntprov.h>
#include "%(header)s"

/* the names a program written against mc's header uses */
static const unsigned long ids[] = {
    MSG_level_Error, MSG_level_Informational, MSG_level_Verbose,
    MSG_channel_Application, MSG_channel_System, MSG_channel_Op, MSG_event_1,
};
/* tag << 28 | position << 24 | value: levels 2, 4, 5 at position 0 with
 * tag 5; channels with tag 9 and the counter (A/Op 1, Application 2,
 * System 3) */
%(assert)s(MSG_level_Error == (0x5UL << 28 | 0UL << 24 | 2), "level.Error");
%(assert)s(MSG_level_Informational == (0x5UL << 28 | 0UL << 24 | 4), "level.Informational");
%(assert)s(MSG_level_Verbose == (0x5UL << 28 | 0UL << 24 | 5), "level.Verbose");
%(assert)s(MSG_channel_Op == (0x9UL << 28 | 0UL << 24 | 1), "channel.Op");
%(assert)s(MSG_channel_Application == (0x9UL << 28 | 0UL << 24 | 2), "channel.Application");
%(assert)s(MSG_channel_System == (0x9UL << 28 | 0UL << 24 | 3), "channel.System");
#ifdef MSG_level_Warning
#error "win:Warning's string is not the manifest's: no define"
#endif
#ifdef MSG_level_Critical
#error "win:Critical is not used: no define"
#endif

int main(void)
{
    return ids[0] == MSG_level_Error ? 0 : 1;
}
"""


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def test_probe(tmp, with_files, without_files):
    """The header of ONE with its strings, compiled with a probe using the
    new names, in C11 and C++11, warnings as errors; and the probe is not
    one that passes anyway: against the header without the strings it
    fails, at the first new name."""
    base = base_of(with_files)
    for cc, std, ext, assert_kw in ((CC, "-std=c11", "c", "_Static_assert"),
                                    (CXX, "-std=c++11", "cpp", "static_assert")):
        name = "probe: %s %s compiles MSG_level_*/MSG_channel_* with their values" % (cc, std)
        if not shutil.which(cc):
            skip(name, "no %s (mingw-w64)" % cc)
            continue
        d = os.path.join(tmp, "probe-" + ext)
        os.makedirs(d, exist_ok=True)
        write(os.path.join(d, base + ".h"), with_files[base + ".h"])
        src = os.path.join(d, "probe." + ext)
        write(src, (PROBE % {"header": base + ".h", "assert": assert_kw}).encode())
        r = subprocess.run([cc, std, "-Wall", "-Wextra", "-Werror", "-o",
                            os.path.join(d, "probe.exe"), src],
                           capture_output=True, text=True)
        check(r.returncode == 0, name, r.stderr[-2000:])
    name = "probe: fails against the header without the strings (MSG_level_Error undeclared)"
    if not shutil.which(CC):
        skip(name, "no %s (mingw-w64)" % CC)
        return
    d = os.path.join(tmp, "probe-without")
    os.makedirs(d, exist_ok=True)
    write(os.path.join(d, "without.h"), without_files[base_of(without_files) + ".h"])
    write(os.path.join(d, "probe.c"),
          (PROBE % {"header": "without.h", "assert": "_Static_assert"}).encode())
    r = subprocess.run([CC, "-std=c11", "-fsyntax-only", os.path.join(d, "probe.c")],
                       capture_output=True, text=True)
    check(r.returncode != 0 and "MSG_level_Error" in r.stderr, name, r.stderr[-1000:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    mcgen = os.path.abspath(ap.parse_args().mcgen)
    with tempfile.TemporaryDirectory() as tmp:
        with_files = check_case(mcgen, tmp, "one provider, built-ins' strings defined",
                                ONE + strings(ONE_OWN + ONE_BUILTIN), ONE_DEFINES_WITH, ONE_TABLE,
                                ONE_CHAN)
        without_files = check_case(mcgen, tmp, "one provider, built-ins' strings not defined",
                                   ONE + strings(ONE_OWN), ONE_DEFINES_WITHOUT, ONE_TABLE,
                                   ONE_CHAN)
        if with_files and without_files:
            # TEMP.BIN holds ids, not texts: the strings change nothing there
            a, b = base_of(with_files), base_of(without_files)
            check(with_files[a + "TEMP.BIN"] == without_files[b + "TEMP.BIN"],
                  "one provider: TEMP.BIN the same with and without the built-ins' strings")
        check_case(mcgen, tmp, "three providers importing System, two Application",
                   THREE + strings(THREE_STRINGS), THREE_DEFINES, THREE_TABLE, THREE_CHAN)
        if with_files and without_files:
            test_probe(tmp, with_files, without_files)
    print("%d passed, %d failed, %d skipped" %
          (results["passed"], results["failed"], results["skipped"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
