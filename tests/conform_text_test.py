#!/usr/bin/env python3
"""Message texts as mc writes them and as FormatMessage reads them (issue 15,
items 3 and 8), from manifests and .mc files this test writes.

1. Line feeds (item 3): mc writes a line feed of a manifest string
   (value="a&#xA;b") as CR LF in its message tables ("a\\r\\nb\\r\\n").
   Each expected entry below is written out from the message-table format
   (../shared/docs/msgtable.md: u16 length, u16 flags (1 UTF-16, 0 ANSI),
   the text, "\\r\\n" unless -n, a NUL, zero-padded to a multiple of 4) and
   that rule, with its arithmetic beside it: Unicode tables, -A tables and
   -n.  A CR already before the LF (&#xD;&#xA;) stays one CR LF: mcgen's
   choice, as no mc output shows that case (emit_msgtable.c says why).
   TEMP.BIN holds no message text: it is the same with and without the
   line feeds.  MCG5019 (an entry's 16-bit length) counts the added CRs:
   a text one unit under the limit before them is one over it after.
2. FormatMessage's escapes (item 8): texts that must pass without a
   diagnostic (%1!d!, %1!-10s!, %1!*.*u!, %%, %n, %0 at the end, %., %!,
   ...) and the issue's four mistakes (%1!d unterminated, %2!zz!, %0 then
   text, a lone trailing %) with the code each gets, in a manifest string
   and in a .mc text alike (one reader serves both).
3. A cross-check under wine (skipped without mingw-w64 or wine): the
   manifest's tables in a DLL, read with FormatMessageW, give the text with
   its line breaks; and FormatMessageW itself on the item-8 texts: the
   accepted ones format, a lone trailing % and an unclosed !format! fail,
   %0 stops the output.  Wine's FormatMessage is an implementation, not
   Windows': a cross-check of the verdicts, not their reference (that is
   FormatMessage's documentation and Wine's FormatMessage tests, which
   pass on Windows).

Prints PASS/FAIL/SKIP lines and "N passed, N failed, N skipped".
"""
import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import winexe  # noqa: E402
from diagfmt_test import check, results, skip  # noqa: E402 (the layers' PASS/FAIL lines)
from mc_resources_test import DLL_C  # noqa: E402
from resources_test import GCC, WINDRES  # noqa: E402


def manifest(strings, fields=0):
    """A manifest with one event per string (event i+1 has strings[i] as its
    message, as written in the attribute) and a template of `fields`
    fields when fields > 0."""
    tmpl = ""
    if fields:
        tmpl = ("<templates><template tid=\"T\">" +
                "".join('<data name="F%d" inType="win:UInt32"/>' % (i + 1) for i in range(fields)) +
                "</template></templates>")
    events = "".join('<event value="%d" symbol="E%d" %smessage="$(string.s%d)"/>'
                     % (i + 1, i + 1, 'template="T" ' if fields else "", i + 1)
                     for i in range(len(strings)))
    table = "".join('<string id="s%d" value="%s"/>\n' % (i + 1, v) for i, v in enumerate(strings))
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"\n'
            ' xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">\n'
            '<instrumentation><events>\n'
            '<provider name="Demo" guid="{8c7a2a4b-0c39-4b4c-9d1b-1d2e3f405162}" symbol="DEMO"\n'
            ' resourceFileName="demo.dll" messageFileName="demo.dll">\n'
            '%s<events>%s</events></provider></events></instrumentation>\n'
            '<localization><resources culture="en-US"><stringTable>\n%s'
            '</stringTable></resources></localization>\n'
            '</instrumentationManifest>\n' % (tmpl, events, table))


def mc_file(texts):
    """A .mc file with one message per text (a text may hold "\\n": lines)."""
    out = []
    for i, t in enumerate(texts):
        out.append("MessageId=%d\nSymbolicName=MSG_%d\nLanguage=English\n%s\n.\n" % (i + 1, i + 1, t))
    return "".join(out)


def read_table(data):
    """{id: (length, flags, text bytes up to the length)} of a message table
    (msgtable.md: u32 block count; blocks {low, high, offset}; entries)."""
    (nblocks,) = struct.unpack_from("<I", data, 0)
    out = {}
    for b in range(nblocks):
        low, high, off = struct.unpack_from("<III", data, 4 + 12 * b)
        for msgid in range(low, high + 1):
            length, flags = struct.unpack_from("<HH", data, off)
            out[msgid] = (length, flags, data[off + 4:off + length])
            off += length
    return out


def run(args, cwd):
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, errors="replace")


# --- 1. line feeds --------------------------------------------------------

# (attribute value, the text it stands for once XML has read it)
LF_STRINGS = [
    ("a&#xA;b", "a\nb"),                # one LF
    ("a&#xA;b&#xA;c", "a\nb\nc"),       # two
    ("a&#xA;", "a\n"),                  # a trailing LF
    ("c&#xD;&#xA;d", "c\r\nd"),         # CR LF already
    ("\u00e9&#xA;\u20ac", "\u00e9\n\u20ac"),  # outside ASCII (both in Windows-1252)
    ("plain", "plain"),                 # none: unchanged
]

# The entry each text gets: (length, flags, text bytes with NUL and padding).
# Unicode (flags 1): 2 bytes a unit.
#   "a\r\nb" + "\r\n" + NUL = 7 units = 14 bytes; 4 + 14 = 18 -> padded to 20
#   "a\r\nb\r\nc" + "\r\n" + NUL = 10 units = 20; 4 + 20 = 24 (no padding)
#   "a\r\n" + "\r\n" + NUL = 6 units = 12; 4 + 12 = 16
#   "c\r\nd" (the CR kept as the pair's) + "\r\n" + NUL = 7 units: 20, as "a\nb"
#   "\u00e9\r\n\u20ac" + "\r\n" + NUL = 7 units: 20
#   "plain" + "\r\n" + NUL = 8 units = 16; 4 + 16 = 20 (no padding)
UNICODE = {
    "a\nb": (20, 1, "a\r\nb\r\n\0".encode("utf-16-le") + b"\0\0"),
    "a\nb\nc": (24, 1, "a\r\nb\r\nc\r\n\0".encode("utf-16-le")),
    "a\n": (16, 1, "a\r\n\r\n\0".encode("utf-16-le")),
    "c\r\nd": (20, 1, "c\r\nd\r\n\0".encode("utf-16-le") + b"\0\0"),
    "\u00e9\n\u20ac": (20, 1, "\u00e9\r\n\u20ac\r\n\0".encode("utf-16-le") + b"\0\0"),
    "plain": (20, 1, "plain\r\n\0".encode("utf-16-le")),
}
# -A (flags 0, Windows-1252): a byte a character.
#   "a\r\nb\r\n" + NUL = 7 bytes; 4 + 7 = 11 -> 12
#   "a\r\nb\r\nc\r\n" + NUL = 10; 14 -> 16
#   "a\r\n\r\n" + NUL = 6; 10 -> 12
#   "c\r\nd\r\n" + NUL = 7 -> 12;  E9 0D 0A 80 0D 0A 00 = 7 -> 12
#   "plain\r\n" + NUL = 8; 12
ANSI = {
    "a\nb": (12, 0, b"a\r\nb\r\n\0" + b"\0"),
    "a\nb\nc": (16, 0, b"a\r\nb\r\nc\r\n\0" + b"\0\0"),
    "a\n": (12, 0, b"a\r\n\r\n\0" + b"\0\0"),
    "c\r\nd": (12, 0, b"c\r\nd\r\n\0" + b"\0"),
    "\u00e9\n\u20ac": (12, 0, b"\xe9\r\n\x80\r\n\0" + b"\0"),
    "plain": (12, 0, b"plain\r\n\0"),
}
# -n (Unicode, no "\r\n" after the text; the CR LF inside stays):
#   "a\r\nb" + NUL = 5 units = 10; 14 -> 16
#   "a\r\nb\r\nc" + NUL = 8 units = 16; 20
#   "a\r\n" + NUL = 4 units = 8; 12
#   "c\r\nd" + NUL = 5 -> 16;  "\u00e9\r\n\u20ac" + NUL = 5 -> 16
#   "plain" + NUL = 6 units = 12; 4 + 12 = 16 (no padding)
NO_CRLF = {
    "a\nb": (16, 1, "a\r\nb\0".encode("utf-16-le") + b"\0\0"),
    "a\nb\nc": (20, 1, "a\r\nb\r\nc\0".encode("utf-16-le")),
    "a\n": (12, 1, "a\r\n\0".encode("utf-16-le")),
    "c\r\nd": (16, 1, "c\r\nd\0".encode("utf-16-le") + b"\0\0"),
    "\u00e9\n\u20ac": (16, 1, "\u00e9\r\n\u20ac\0".encode("utf-16-le") + b"\0\0"),
    "plain": (16, 1, "plain\0".encode("utf-16-le")),
}


def table_by_text(data, ansi, crlf):
    """{text as written in the manifest: entry} of our table: an entry's
    text, without the table's own CR LF after it (crlf) and with its CR LFs
    made LFs again, names its string."""
    out = {}
    for length, flags, raw in read_table(data).values():
        text = raw.decode("cp1252" if ansi else "utf-16-le").rstrip("\0")
        if crlf and text.endswith("\r\n"):
            text = text[:-2]
        out[text.replace("\r\n", "\n")] = (length, flags, raw)
    return out


def test_line_feeds(mcgen, tmp):
    d = os.path.join(tmp, "lf")
    os.makedirs(d)
    with open(os.path.join(d, "lf.man"), "w", encoding="utf-8") as f:
        f.write(manifest([v for v, _ in LF_STRINGS]))
    for name, switches, want, ansi in (("Unicode tables", [], UNICODE, False),
                                       ("-A tables", ["-A"], ANSI, True),
                                       ("-n tables", ["-n"], NO_CRLF, False)):
        out = os.path.join(d, name.split()[0].strip("-"))
        os.makedirs(out)
        r = run([mcgen, "-h", out, "-r", out] + switches + ["lf.man"], d)
        path = os.path.join(out, "MSG00001.bin")
        if r.returncode or not os.path.exists(path):
            check(False, "%s: the manifest compiles" % name, r.stderr)
            continue
        data = open(path, "rb").read()
        entries = read_table(data)
        check(len(entries) == len(LF_STRINGS), "%s: one entry per string" % name,
              "%d entries" % len(entries))
        got = table_by_text(data, ansi, "-n" not in switches)
        # "c\r\nd" and "c\nd" read back the same: the table's bytes decide
        got.setdefault("c\r\nd", got.get("c\nd"))
        for _, text in LF_STRINGS:
            e = got.get(text)
            check(e == want[text], "%s: %r is the entry %r" % (name, text, want[text]),
                  "got %r" % (e,))
    # TEMP.BIN holds no message text: the same bytes with the line feeds as
    # with spaces in their place
    temps = []
    for name, values in (("with", [v for v, _ in LF_STRINGS]),
                         ("without", [v.replace("&#xA;", " ").replace("&#xD;", " ")
                                      for v, _ in LF_STRINGS])):
        dd = os.path.join(d, "temp-" + name)
        os.makedirs(dd)
        with open(os.path.join(dd, "lf.man"), "w", encoding="utf-8") as f:
            f.write(manifest(values))
        r = run([mcgen, "lf.man"], dd)
        p = os.path.join(dd, "lfTEMP.BIN")
        temps.append(open(p, "rb").read() if r.returncode == 0 and os.path.exists(p) else None)
    check(temps[0] is not None and temps[0] == temps[1],
          "TEMP.BIN is the same with and without line feeds in the strings")

    # MCG5019: an entry holds at most 65,532 bytes (its u16 length, a
    # multiple of 4); in UTF-16 4 + 2 * (units + 3) <= 65532, so 32,761
    # units of text, CRs included.  32,760 x's and an LF are 32,761 units as
    # written, 32,762 with the CR: one over.  32,759 x's and an LF: 32,761.
    # With -A, 4 + bytes + 3 rounded up to 4 <= 65532: 65,525 bytes; 65,524
    # x's and an LF are 65,526 with the CR.
    for name, switches, n, limit_ok in (("Unicode", [], 32760, False), ("Unicode", [], 32759, True),
                                        ("-A", ["-A"], 65524, False), ("-A", ["-A"], 65523, True)):
        dd = os.path.join(d, "limit-%s-%d" % (name.strip("-"), n))
        os.makedirs(dd)
        with open(os.path.join(dd, "big.man"), "w", encoding="utf-8") as f:
            f.write(manifest(["x" * n + "&#xA;"]))
        r = run([mcgen, "--validate"] + switches + ["big.man"], dd)
        units = n + 2  # the x's, CR and LF
        what = "UTF-16 units" if not switches else "bytes in Windows-1252"
        if limit_ok:
            check(r.returncode == 0 and "MCG5019" not in r.stderr,
                  "%s: %d x's and an LF (%d %s with the CR) fit an entry" % (name, n, units, what),
                  r.stderr[:500])
        else:
            check(r.returncode == 1 and "[MCG5019] string 's1' (culture 'en-US') is %d %s long"
                  % (units, what) in r.stderr,
                  "%s: %d x's and an LF (%d %s with the CR) are MCG5019" % (name, n, units, what),
                  r.stderr[:500])


# --- 2. FormatMessage's escapes --------------------------------------------

# Texts FormatMessage reads as meant: no diagnostic, in a manifest string
# (template of 3 UInt32 fields) and in a .mc text.
ACCEPTED = [
    "Count %1!d!",
    "Name %1!-10s!|",
    "Value %1!*.*u!",        # width and precision from the next inserts
    "Hex %1!08lX! and %2!I64u! and %3!wZ!",
    "100%% done",
    "Line%nbreak, %ttab, %rreturn",
    "Prompt:%0",             # %0 at the end: no line break after the text
    "%. a period, %! a bang, % a space",
    "%b is a b",             # any other character: written without its '%'
    "%1%2%3",
]

# (text, manifest code, .mc code): the four mistakes and the rest
REJECTED = [
    ("Opened %1!d", "MCG5012", "MCG5112"),         # unterminated: FormatMessage fails
    ("Size %2!zz! bytes", "MCG5020", "MCG5108"),   # no printf conversion
    ("Done%0 and more", "MCG5022", "MCG5115"),     # never written
    ("Copied 100%", "MCG5021", "MCG5114"),          # FormatMessage fails
    ("Load %1!.2f!", "MCG5023", "MCG5116"),         # no floating point
    ("Count %1!n!", "MCG5023", "MCG5116"),          # writes through its argument
]


def xml_attr(text):
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def test_escapes(mcgen, tmp):
    d = os.path.join(tmp, "esc")
    os.makedirs(d)
    with open(os.path.join(d, "ok.man"), "w", encoding="utf-8") as f:
        f.write(manifest([xml_attr(t) for t in ACCEPTED], fields=3))
    r = run([mcgen, "--validate", "ok.man"], d)
    check(r.returncode == 0 and r.stderr == "",
          "manifest: %d accepted texts get no diagnostic" % len(ACCEPTED), r.stderr[:2000])
    with open(os.path.join(d, "ok.mc"), "w", encoding="utf-8") as f:
        f.write(mc_file(ACCEPTED))
    r = run([mcgen, "--validate", "ok.mc"], d)
    check(r.returncode == 0 and r.stderr == "",
          ".mc: %d accepted texts get no diagnostic" % len(ACCEPTED), r.stderr[:2000])
    for i, (text, man_code, mc_code) in enumerate(REJECTED):
        base = "bad%d" % i
        with open(os.path.join(d, base + ".man"), "w", encoding="utf-8") as f:
            f.write(manifest([xml_attr(text)], fields=3))
        with open(os.path.join(d, base + ".mc"), "w", encoding="utf-8") as f:
            f.write(mc_file([text]))
        for ext, code in ((".man", man_code), (".mc", mc_code)):
            r = run([mcgen, "--validate", base + ext], d)
            codes = sorted(set(c for c in r.stderr.split("[")[1:] for c in [c[:7]]))
            check(codes == [code], "%s %r: %s and nothing else" % (ext, text, code),
                  "got %s: %s" % (codes, r.stderr[:500]))


# --- 3. under wine ----------------------------------------------------------

PROBE = r"""/* conform_text_test.py's probe: "T id" formats message id of the DLL
   (argv[1]) with FORMAT_MESSAGE_FROM_HMODULE; "S hex" formats the UTF-16
   string given in hex with FORMAT_MESSAGE_FROM_STRING; both with the
   argument array {"A", "B", 3}.  Prints "R hex-of-UTF-16" or "E error". */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char line[8192];
static WCHAR src[2048], out[4096];

int main(int argc, char **argv)
{
    HMODULE mod;
    FILE *f;
    DWORD_PTR args[3];
    if (argc != 3 || !(f = fopen(argv[2], "r")))
        return 2;
    mod = LoadLibraryExA(argv[1], NULL, LOAD_LIBRARY_AS_DATAFILE);
    if (!mod) {
        printf("L E %lu\n", GetLastError());
        return 1;
    }
    args[0] = (DWORD_PTR)L"A";
    args[1] = (DWORD_PTR)L"B";
    args[2] = 3;
    while (fgets(line, sizeof line, f)) {
        DWORD n, i;
        line[strcspn(line, "\r\n")] = 0;
        if (line[0] == 'T') {
            n = FormatMessageW(FORMAT_MESSAGE_FROM_HMODULE | FORMAT_MESSAGE_ARGUMENT_ARRAY, mod,
                               strtoul(line + 2, NULL, 0), 0, out, 4096, (va_list *)args);
        } else {
            size_t k, len = strlen(line + 2) / 4;
            for (k = 0; k < len && k < 2047; k++) {
                char hex[5];
                memcpy(hex, line + 2 + 4 * k, 4);
                hex[4] = 0;
                src[k] = (WCHAR)strtoul(hex, NULL, 16);
            }
            src[k] = 0;
            n = FormatMessageW(FORMAT_MESSAGE_FROM_STRING | FORMAT_MESSAGE_ARGUMENT_ARRAY, src,
                               0, 0, out, 4096, (va_list *)args);
        }
        if (n == 0) {
            printf("E %lu\n", GetLastError());
            continue;
        }
        printf("R ");
        for (i = 0; i < n; i++)
            printf("%04x", out[i]);
        printf("\n");
    }
    fclose(f);
    return 0;
}
"""

# FormatMessageW from a string, with {"A", "B", 3}: what FormatMessage's
# documentation (and Wine's tests) make of each; None: it fails.
WINE_STRINGS = [
    ("Count %3!d!", "Count 3"),
    ("Name %1!-4s!|", "Name A   |"),
    ("100%% done", "100% done"),
    ("Prompt:%0", "Prompt:"),
    ("Done%0 and more", "Done"),   # MCG5022: never written
    ("Copied 100%", None),          # MCG5021: fails (ERROR_INVALID_PARAMETER)
    ("Opened %1!s", None),          # MCG5012: fails
]


def test_wine(mcgen, tmp):
    if not (shutil.which(GCC) and shutil.which(WINDRES) and shutil.which("wine")):
        skip("wine", "%s, %s or wine absent (./setup installs them)" % (GCC, WINDRES))
        return
    d = os.path.join(tmp, "wine")
    os.makedirs(d)
    with open(os.path.join(d, "lf.man"), "w", encoding="utf-8") as f:
        f.write(manifest([v for v, _ in LF_STRINGS]))
    r = run([mcgen, "lf.man"], d)
    if r.returncode:
        check(False, "wine: the manifest compiles", r.stderr)
        return
    ids = {}
    data = open(os.path.join(d, "MSG00001.bin"), "rb").read()
    for msgid, (_, _, raw) in read_table(data).items():
        ids[raw.decode("utf-16-le").rstrip("\0")] = msgid
    with open(os.path.join(d, "dll.c"), "w") as f:
        f.write(DLL_C)
    with open(os.path.join(d, "probe.c"), "w") as f:
        f.write(PROBE)
    steps = [[WINDRES, "lf.rc", "-O", "coff", "-o", "res.o"],
             [GCC, "-shared", "-o", "msg.dll", "dll.c", "res.o"],
             [GCC, "-Wall", "-Wextra", "-Werror", "-O1", "probe.c", "-o", "probe.exe"]]
    for step in steps:
        c = run(step, d)
        if c.returncode:
            check(False, "wine: %s" % " ".join(step), c.stderr[:1000])
            return
    # the tables' texts: "a\r\nb\r\n" as written, so FormatMessage gives it back
    wants = [("T", "a\r\nb\r\n", "a\r\nb\r\n"), ("T", "a\r\nb\r\nc\r\n", "a\r\nb\r\nc\r\n"),
             ("T", "a\r\n\r\n", "a\r\n\r\n"), ("T", "c\r\nd\r\n", "c\r\nd\r\n")]
    reqs, expect = [], []
    for _, key, want in wants:
        if key not in ids:
            check(False, "wine: the table has %r" % key, "ids: %r" % ids)
            return
        reqs.append("T 0x%08X" % ids[key])
        expect.append(("FormatMessageW of the entry %r" % key, want))
    for text, want in WINE_STRINGS:
        reqs.append("S " + "".join("%04x" % ord(c) for c in text))
        expect.append(("FormatMessageW(%r)" % text, want))
    with open(os.path.join(d, "req.txt"), "w") as f:
        f.write("\n".join(reqs) + "\n")
    w = subprocess.run(["wine", "probe.exe", "msg.dll", "req.txt"], cwd=d, capture_output=True,
                       text=True, env=winexe.env(), timeout=600)
    lines = w.stdout.replace("\r", "").splitlines()
    check(w.returncode == 0 and len(lines) == len(reqs), "wine runs the probe",
          "exit %d, %d lines: %s" % (w.returncode, len(lines), w.stderr[-1000:]))
    for (what, want), line in zip(expect, lines):
        kind, _, val = line.partition(" ")
        got = bytes.fromhex(val).decode("utf-16-be") if kind == "R" else None
        check(got == want, "wine: %s gives %r" % (what, want), "got %r (%s)" % (got, line))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    mcgen = winexe.command_or_skip(os.path.abspath(ap.parse_args().mcgen))
    if mcgen is None:
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        test_line_feeds(mcgen, tmp)
        test_escapes(mcgen, tmp)
        if winexe.running():
            skip("wine", "the FormatMessageW probe runs with the Linux build")
        else:
            test_wine(mcgen, tmp)
    print("%d passed, %d failed, %d skipped" % (results["passed"], results["failed"],
                                                results["skipped"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
