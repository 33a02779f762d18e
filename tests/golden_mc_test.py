#!/usr/bin/env python3
"""Message-text (.mc) files against mc.exe.

1. Every case of ../shared/corpus/golden-mc (real .mc inputs with the
   outputs a real mc.exe wrote, SOURCE.txt naming the command): compiled
   with that command line and the --mc-compat of that mc's generation,
   the header, the .rc and every message table byte-identical to mc's
   (modulo line ends only where the reference repository stored the text
   with LF: a golden file without any CR).  spamhater's older .bak table
   is from an earlier version of the .mc: its entries are the first ones
   of the current table, byte for byte.
2. Without ../shared: the rules the real outputs show (perfecthash's
   mc -o -c -b -x -km PerfectHashEvents.man PerfectHashErrors.mc, the
   WordPerfectIndexer header of 2017, nssm, easydynamicdns), on .mc files
   written here: the header's value forms and padding, -c's bit 29, -o's
   HRESULT layout comment, a message without SymbolicName, comments'
   places, MessageIdTypedef changing between messages, facility and
   severity defines in declaration order (and descending by name with
   --mc-compat=2017), -x's .dbg, and a manifest compiled with a .mc (two
   headers, one .rc and one table per language named after the .mc,
   holding both files' messages).

Prints "N passed, N failed, N skipped".
"""
import argparse
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile

import winexe

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus", "golden-mc")
HELLO = os.path.join(ROOT, "examples", "hello", "hello.man")
results = {"passed": 0, "failed": 0, "skipped": 0}

# The mc generation of each golden case, from its SOURCE.txt "mc:" line
# (docs/message-text.md lists what each changes).
ERA = {
    "easydynamicdns": "2005",  # "2005-era mc (Platform SDK / VS2005)"
    "nssm-multilang-nssm": "2020",  # "2020, VS2017/2019 Windows 10 SDK"
    "spamhater-ntservmsg": "1998",  # "old" mc: ANSI tables without -A
    "svcbatch-v1": "current",  # "2024, Windows SDK"
    "svcbatch-v2": "current",
}


def check(ok, name, why=""):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + str(why)[:600]))


def skip(name, why):
    results["skipped"] += 1
    print("SKIP %s: %s" % (name, why))


def run(mcgen, *args, cwd):
    return subprocess.run([mcgen] + list(args), cwd=cwd, capture_output=True, text=True)


def read_table(data):
    """{id: (flags, text)} of a MESSAGE_RESOURCE_DATA (winnt.h)."""
    n = struct.unpack_from("<I", data, 0)[0]
    out = {}
    for b in range(n):
        lo, hi, off = struct.unpack_from("<III", data, 4 + 12 * b)
        for i in range(lo, hi + 1):
            length, flags = struct.unpack_from("<HH", data, off)
            raw = data[off + 4:off + length]
            text = raw.decode("utf-16-le") if flags == 1 else raw.decode("cp1252")
            out[i] = (flags, text.rstrip("\0"))
            off += length
    return out


# ---- 1. the golden cases ----

def source_command(case):
    """The mc command line of a case and the map reference -> golden file."""
    text = open(os.path.join(CORPUS, case, "SOURCE.txt"), encoding="utf-8").read()
    m = re.search(r'"(mc(?:\.exe)? [^"]*)"', text) or \
        re.search(r"command: (mc(?:\.exe)? [^(\n]*)", text)
    cmd = shlex.split(m.group(1).strip())[1:]
    files = dict(re.findall(r"^\s+(\S+) -> (\S+)", text, re.M))
    return cmd, files


def golden(mcgen, tmp):
    for case in sorted(os.listdir(CORPUS)):
        gold = os.path.join(CORPUS, case)
        cmd, files = source_command(case)
        src = [a for a in cmd if a.lower().endswith(".mc")][0]
        work = os.path.join(tmp, case)
        os.makedirs(work)
        shutil.copy(os.path.join(gold, "input.mc"), os.path.join(work, src))
        r = run(mcgen, "--mc-compat=" + ERA[case], *cmd, cwd=work)
        check(r.returncode == 0 and "error" not in r.stderr,
              "%s: mc %s compiles (--mc-compat=%s)" % (case, " ".join(cmd), ERA[case]), r.stderr)
        base = os.path.splitext(src)[0]
        if "-z" in cmd:
            base = cmd[cmd.index("-z") + 1]
        prefix = base + "_" if "-z" in cmd else ""
        compared = 0
        for name in sorted(os.listdir(gold)):
            if name in ("input.mc", "SOURCE.txt") or ".older." in name:
                continue
            if name == "mc.h":
                mine = base + ".h"
            elif name == "mc.rc":
                mine = base + ".rc"
            else:
                mine = prefix + name
            want = open(os.path.join(gold, name), "rb").read()
            path = os.path.join(work, mine)
            got = open(path, "rb").read() if os.path.exists(path) else None
            note = ""
            if got is not None and name.endswith((".h", ".rc")) and b"\r" not in want:
                got, note = got.replace(b"\r\n", b"\n"), " (modulo line ends: stored with LF)"
            same = got == want
            where = ""
            if got is not None and not same:
                at = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b),
                          min(len(got), len(want)))
                where = "first difference at offset %d (%d vs %d bytes)" % (at, len(got), len(want))
            check(same, "%s: %s = mc's %s%s" % (case, mine, name, note), where or "missing")
            compared += 1
        check(compared >= 1, "%s: %d outputs compared" % (case, compared))
    # spamhater's older table: the same entries, three messages fewer
    bak = os.path.join(CORPUS, "spamhater-ntservmsg", "MSG00001.older.bak.bin")
    cur = os.path.join(tmp, "spamhater-ntservmsg", "MSG00001.bin")
    if os.path.exists(bak) and os.path.exists(cur):
        old, new = read_table(open(bak, "rb").read()), read_table(open(cur, "rb").read())
        check(len(old) == 9 and len(new) == 12 and all(new[i] == old[i] for i in old)
              and sorted(set(new) - set(old)) == [0x6D, 0x6E, 0x6F],
              "spamhater: the older .bak table holds the first 9 of the 12 messages, the same "
              "bytes (an earlier .mc; the same ANSI format)",
              (sorted(old), sorted(new)))


# ---- 2. the rules, on files written here ----

MC = """\
;// app.mc: comments before the first message go before the layout block
MessageIdTypedef=DWORD
SeverityNames=(Success=0x0:STATUS_SEVERITY_SUCCESS
               Informational=0x1:STATUS_SEVERITY_INFORMATIONAL
               Warning=0x2:STATUS_SEVERITY_WARNING
               Error=0x3:STATUS_SEVERITY_ERROR
              )
FacilityNames=(System=0x0:FACILITY_SYSTEM
               Runtime=0x2:FACILITY_RUNTIME
               Io=0x4:FACILITY_IO_ERROR_CODE)
LanguageNames=(English=0x409:MSG00409)
LanguageNames=(German=0x407:MSG00407)
;// a second header-section comment

MessageId=0x1 Severity=Error Facility=Runtime SymbolicName=MSG_BAD_COMMAND
Language=English
You have chosen an incorrect command.
.
Language=German
Falscher Befehl.
.
;// between messages
MessageIdTypedef=WORD
MessageId=
Severity=Warning
SymbolicName=MSG_SECOND
Language=English
Second %1!d!%n
%t tabbed

.
Language=German
Zweite %1!d!
.
MessageId=+2
Language=English
No symbolic name.
.
Language=German
Kein Name.
.
"""


def expected_header_tail():
    """What mc writes after the layout block for MC (the formats of
    perfecthash's, WordPerfectIndexer's and nssm's real headers)."""
    return (
        "// Define the facility codes\r\n"
        "//\r\n"
        "#define FACILITY_SYSTEM                  0x0\r\n"
        "#define FACILITY_RUNTIME                 0x2\r\n"
        "#define FACILITY_IO_ERROR_CODE           0x4\r\n"
        "\r\n\r\n"
        "//\r\n"
        "// Define the severity codes\r\n"
        "//\r\n"
        "#define STATUS_SEVERITY_SUCCESS          0x0\r\n"
        "#define STATUS_SEVERITY_INFORMATIONAL    0x1\r\n"
        "#define STATUS_SEVERITY_WARNING          0x2\r\n"
        "#define STATUS_SEVERITY_ERROR            0x3\r\n"
        "\r\n\r\n"
        "//\r\n"
        "// MessageId: MSG_BAD_COMMAND\r\n"
        "//\r\n"
        "// MessageText:\r\n"
        "//\r\n"
        "// You have chosen an incorrect command.\r\n"
        "//\r\n"
        "#define MSG_BAD_COMMAND                  ((DWORD)0xC0020001L)\r\n"
        "\r\n"
        "// between messages\r\n"
        "//\r\n"
        "// MessageId: MSG_SECOND\r\n"
        "//\r\n"
        "// MessageText:\r\n"
        "//\r\n"
        "// Second %1!d!%n\r\n"
        "// %t tabbed\r\n"
        "// \r\n"
        "//\r\n"
        "#define MSG_SECOND                       ((WORD)0x80020002L)\r\n"
        "\r\n"
        "//\r\n"
        "// MessageId: 0x80020004L (No symbolic name defined)\r\n"
        "//\r\n"
        "// MessageText:\r\n"
        "//\r\n"
        "// No symbolic name.\r\n"
        "//\r\n"
        "\r\n"
        "\r\n")


def rules(mcgen, tmp):
    work = os.path.join(tmp, "rules")
    os.makedirs(work)
    with open(os.path.join(work, "app.mc"), "w", newline="\n") as f:
        f.write(MC)
    r = run(mcgen, "-x", "dbg", "app.mc", cwd=work)
    check(r.returncode == 0 and r.stderr == "", "app.mc compiles without a word", r.stderr)
    check(sorted(os.listdir(work)) == ["MSG00407.bin", "MSG00409.bin", "app.h", "app.mc", "app.rc", "dbg"]
          and os.listdir(os.path.join(work, "dbg")) == ["app.dbg"],
          "mc's outputs: the header, the .rc, a table per LanguageNames file, -x's .dbg",
          sorted(os.listdir(work)))
    h = open(os.path.join(work, "app.h"), "rb").read().decode("ascii")
    check(h.startswith("// app.mc: comments before the first message go before the layout block\r\n"
                       "// a second header-section comment\r\n//\r\n"
                       "//  Values are 32 bit values laid out as follows:\r\n"),
          "header-section comments come first, then the layout block", h[:300])
    check(h.endswith(expected_header_tail()), "facility/severity defines in declaration order, "
          "values 0x%X; messages: ((TYPE)0x%08XL) padded to 32 columns, MessageIdTypedef "
          "changing, per-facility numbering, a message without a symbol, comments in place",
          h[-1500:])
    rc = open(os.path.join(work, "app.rc"), "rb").read()
    check(rc == b'LANGUAGE 0x9,0x1\r\n1 11 "MSG00409.bin"\r\nLANGUAGE 0x7,0x1\r\n1 11 "MSG00407.bin"\r\n',
          ".rc: languages in declaration order (today's mc), quoted names", rc)
    t = read_table(open(os.path.join(work, "MSG00409.bin"), "rb").read())
    check(t == {0xC0020001: (1, "You have chosen an incorrect command.\r\n"),
                0x80020002: (1, "Second %1!d!%n\r\n%t tabbed\r\n\r\n"),
                0x80020004: (1, "No symbolic name.\r\n")},
          "English table: every line followed by CR LF, escapes kept for FormatMessage", t)
    dbg = open(os.path.join(work, "dbg", "app.dbg"), "rb").read().decode("ascii")
    check(dbg.endswith("struct {\r\n    WORD MessageId;\r\n    char *SymbolicName;\r\n"
                       "} appSymbolicNames[] = {\r\n"
                       ' (WORD) MSG_BAD_COMMAND, (char*) "MSG_BAD_COMMAND",\r\n'
                       ' (WORD) MSG_SECOND, (char*) "MSG_SECOND",\r\n'
                       " (WORD) 0xFFFFFFFF, NULL\r\n};\r\n"),
          ".dbg: <base>SymbolicNames[] of the messages with a symbol, as perfecthash's", dbg)

    # -c (bit 29), -d (decimal), -o (HRESULT layout); --mc-compat=2017's order
    r = run(mcgen, "-c", "-d", "-o", "--mc-compat=2017", "-h", "c", "-r", "c", "app.mc", cwd=work)
    h = open(os.path.join(work, "c", "app.h"), "rb").read().decode("ascii")
    check(r.returncode == 0 and "#define MSG_BAD_COMMAND                  ((DWORD)3758227457L)\r\n" in h
          and "#define FACILITY_RUNTIME                 2\r\n" in h,
          "-c sets 0x20000000 (0xC0020001 -> 0xE0020001), -d writes decimal", r.stderr or h[-800:])
    check("//  |S|R|C|N|r|    Facility         |               Code            |\r\n" in h,
          "-o: the HRESULT layout comment (perfecthash's header)", h[:1500])
    sev = re.findall(r"#define (STATUS_SEVERITY_\w+)", h)
    fac = re.findall(r"#define (FACILITY_\w+)", h)
    check(sev == ["STATUS_SEVERITY_WARNING", "STATUS_SEVERITY_SUCCESS",
                  "STATUS_SEVERITY_INFORMATIONAL", "STATUS_SEVERITY_ERROR"]
          and fac == ["FACILITY_SYSTEM", "FACILITY_RUNTIME", "FACILITY_IO_ERROR_CODE"],
          "--mc-compat=2017: names sorted descending (Warning, Success, Informational, Error; "
          "System, Runtime, Io), as WordPerfectIndexer's 2017 header", (sev, fac))
    t = read_table(open(os.path.join(work, "c", "MSG00409.bin"), "rb").read())
    check(sorted(t) == [0xA0020002, 0xA0020004, 0xE0020001], "-c: the table's ids have the bit",
          [hex(i) for i in t])
    # -n: "messages terminate immediately after the message body" (mc's
    # documentation): no CR LF after the last line, the others kept
    r = run(mcgen, "-n", "-h", "n", "-r", "n", "app.mc", cwd=work)
    t = read_table(open(os.path.join(work, "n", "MSG00409.bin"), "rb").read())
    check(r.returncode == 0 and t[0x80020002] == (1, "Second %1!d!%n\r\n%t tabbed\r\n")
          and t[0xC0020001] == (1, "You have chosen an incorrect command."),
          "-n: no CR LF after a text's last line", t)
    # a .mc that cannot be read to its end: exit 2, nothing written
    os.mkdir(os.path.join(work, "dir.mc"))
    r = run(mcgen, "-h", "d", "-r", "d", "dir.mc", cwd=work)
    said = r.stderr.startswith("mcgen: error: cannot open 'dir.mc': Is a directory")
    check(r.returncode == 2 and said and not os.path.exists(os.path.join(work, "d")),
          "an unreadable .mc (a directory): exit 2, nothing written", r.stderr)
    r = run(mcgen, "--mc-compat=2020", "-h", "old", "-r", "old", "app.mc", cwd=work)
    rc = open(os.path.join(work, "old", "app.rc"), "rb").read()
    check(rc.startswith(b"LANGUAGE 0x7,0x1\r\n"), "--mc-compat=2020: .rc languages in reverse "
          "order, as nssm's", rc)


def combined(mcgen, tmp):
    """mc -b a.man b.mc, as tpn/perfecthash runs it."""
    work = os.path.join(tmp, "both")
    os.makedirs(work)
    shutil.copy(HELLO, os.path.join(work, "hello.man"))
    with open(os.path.join(work, "errors.mc"), "w", newline="\n") as f:
        f.write(MC.replace("MSG00409", "English").replace("MSG00407", "German"))
    r = run(mcgen, "-b", "-c", "-um", "hello.man", "errors.mc", cwd=work)
    check(r.returncode == 0 and r.stderr == "", "a manifest and a .mc in one run", r.stderr)
    check(sorted(os.listdir(work)) == ["errors.h", "errors.mc", "errors.rc", "errorsTEMP.BIN",
                                       "errors_English.bin", "errors_German.bin", "hello.h",
                                       "hello.man"],
          "two headers; the .rc, TEMP.BIN and the tables named after the .mc",
          sorted(os.listdir(work)))
    rc = open(os.path.join(work, "errors.rc"), "rb").read()
    check(rc == b'LANGUAGE 0x9,0x1\r\n1 11 "errors_English.bin"\r\nLANGUAGE 0x7,0x1\r\n'
          b'1 11 "errors_German.bin"\r\n1 WEVT_TEMPLATE "errorsTEMP.BIN"\r\n',
          "the .rc: the .mc's languages, then the template", rc)
    alone = os.path.join(tmp, "hello-alone")
    os.makedirs(alone)
    shutil.copy(HELLO, os.path.join(alone, "hello.man"))
    run(mcgen, "-um", "hello.man", cwd=alone)
    man_en = read_table(open(os.path.join(alone, "MSG00001.bin"), "rb").read())
    man_de = read_table(open(os.path.join(alone, "MSG00002.bin"), "rb").read())
    en = read_table(open(os.path.join(work, "errors_English.bin"), "rb").read())
    de = read_table(open(os.path.join(work, "errors_German.bin"), "rb").read())
    check(all(en[i] == man_en[i] for i in man_en) and 0xE0020001 in en and
          len(en) == len(man_en) + 3,
          "English table: the manifest's en-US messages (ids unchanged by -c) and the .mc's",
          sorted(hex(i) for i in en))
    check(all(de[i] == man_de[i] for i in man_de) and de[0xE0020001] == (1, "Falscher Befehl.\r\n"),
          "German table: the manifest's de-DE messages and the .mc's", sorted(hex(i) for i in de))
    # a culture the .mc has no language for: refused in a compile and in
    # --validate alike
    with open(os.path.join(work, "english.mc"), "w", newline="\n") as f:
        f.write("MessageId=1 SymbolicName=ONLY\nLanguage=English\nOnly English.\n.\n")
    for args in (["-h", "x", "-r", "x"], ["--validate"]):
        r = run(mcgen, *args, "hello.man", "english.mc", cwd=work)
        check(r.returncode == 1 and "[MCG5111] culture de-DE (language id 0x407) has no language "
              "in english.mc" in r.stderr and not os.path.exists(os.path.join(work, "x")),
              "%s: a manifest culture without its .mc language is refused (MCG5111)"
              % ("--validate" if args == ["--validate"] else "compile"), r.stderr)
    check(open(os.path.join(work, "errorsTEMP.BIN"), "rb").read() ==
          open(os.path.join(alone, "helloTEMP.BIN"), "rb").read(),
          "TEMP.BIN: the manifest's, under the .mc's name")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    a = ap.parse_args()
    mcgen = winexe.command_or_skip(os.path.abspath(a.mcgen))
    if mcgen is None:
        return 0
    tmp = tempfile.mkdtemp(prefix="mcgen-goldenmc-")
    try:
        if os.path.isdir(CORPUS):
            golden(mcgen, tmp)
        else:
            skip("golden-mc", "no ../shared/corpus/golden-mc")
        rules(mcgen, tmp)
        combined(mcgen, tmp)
    finally:
        shutil.rmtree(tmp)
    print("%d passed, %d failed, %d skipped" % (results["passed"], results["failed"], results["skipped"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
