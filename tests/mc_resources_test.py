#!/usr/bin/env python3
"""Message-text (.mc) files end to end: mcgen's outputs in a DLL, read back
through FormatMessageW under wine, the way the Event Viewer reads them.

Inputs: a .mc this test writes (three languages, Windows-1252 text with
accents and a euro sign, inserts with printf formats, %n %t %r %% %! %. %0,
severities and facilities carried from one message to the next), the same
text as UTF-16LE (-u; a fourth language outside Windows-1252) and as UTF-8
with a BOM; every .mc under ../shared/corpus/mc-sources/ and every golden-mc
input.mc (with its SOURCE.txt switches) when ../shared exists.  For each:

1. `mcgen [switches] -h D -r D FILE.mc` exits 0 with no error (warnings
   allowed) and
   writes one MSGxxxxx.bin per language the messages use, named from
   LanguageNames (English=0x409:MSG00001 by default).
2. Each table holds, under each message's id, the message's text lines each
   followed by CR LF (msgtable.md: mc appends "\\r\\n" and stores % sequences
   verbatim), read with this test's own MESSAGE_RESOURCE_DATA decoder.
3. windres compiles the .rc and x86_64-w64-mingw32-gcc links it into a DLL
   whose resources are exactly one RT_MESSAGETABLE (type 11, id 1) per
   language, under that language's id, byte-identical to the .bin
   (resources_test.py's PE reader).
4. One wine process loads every DLL with LOAD_LIBRARY_AS_DATAFILE and calls
   FormatMessageW(FORMAT_MESSAGE_FROM_HMODULE | FORMAT_MESSAGE_ARGUMENT_ARRAY)
   with the language's id for every message the model below understands; the
   result must equal what Microsoft's documentation of FormatMessage makes of
   the .mc text (fmt_message), with arguments chosen per insert format.

The ids, languages and texts expected all come from this test's own small
reader of the .mc source (McFile), never from mcgen's outputs.  The same
DLL and FormatMessage checks also run on mc.exe's own outputs in golden-mc
(mc.rc and MSG*.bin as mc wrote them): they prove the harness on real mc
bytes.  Prints one line per check and "N passed, N failed, N skipped"; skips
without mingw-w64 or wine.  One wine start for the whole run (wine's start
is the slow part), so the sanitizer builds need no smaller variant.
"""
import argparse
import concurrent.futures
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from resources_test import GCC, WINDRES, pe_resources  # noqa: E402 (the one PE reader)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "..", "shared", "corpus")
results = {"passed": 0, "failed": 0, "skipped": 0}


def check(ok, name, why=""):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why))


def skip(name, why):
    results["skipped"] += 1
    print("SKIP %s: %s" % (name, why))


# --- the test's own .mc -----------------------------------------------------

# Messages: (header keywords, {language: [text lines]}).  Severity and
# Facility carry over to the next message; MessageId= is the previous id of
# the facility plus one, MessageId=+2 plus two (Message Text Files, "Message
# definitions").
OWN_MESSAGES = [
    ("MessageId=0x10 Severity=Informational Facility=Core SymbolicName=T_OPENED", {
        "English": ["File %1 opened by %2 (%3!d! bytes)."],
        "German": ["Datei %1 von %2 geöffnet (%3!d! Bytes)."],
        "French": ["Fichier %1 ouvert par %2 (%3!d! octets), coût 5 €."],
        "Greek": ["Το αρχείο %1 άνοιξε από %2 (%3!d! bytes)."],
    }),
    ("MessageId= SymbolicName=T_TABLE", {
        "English": ["%1!-12s!|%2!5d!|%3!#x!|%4!.3s!%n", "second line%tafter a tab, 100%% done",
                    "", "%1 again%! and %2!+d!"],
        "German": ["%1!-12s!|%2!5d!|%3!#x!|%4!.3s!%n", "zweite Zeile%tnach Tab, 100%% fertig",
                   "", "%1 noch einmal%! und %2!+d!"],
        "French": ["%1!-12s!|%2!5d!|%3!#x!|%4!.3s!%n", "deuxième ligne%taprès tabulation, 100%%",
                   "", "%1 encore%! et %2!+d!"],
        "Greek": ["%1!-12s!|%2!5d!|%3!#x!|%4!.3s!%n", "δεύτερη γραμμή%tμετά, 100%%",
                  "", "%1 ξανά%! και %2!+d!"],
    }),
    ("MessageId=0x5 Severity=Error Facility=Net SymbolicName=T_FAILED", {
        "English": ["Error %1!u! on %2: %3%0"],
        "German": ["Fehler %1!u! auf %2: %3%0"],
        "French": ["Erreur %1!u! sur %2 : %3%0"],
        "Greek": ["Σφάλμα %1!u! στο %2: %3%0"],
    }),
    ("MessageId=+2 Severity=Warning SymbolicName=T_WARN", {
        "English": ["%.%1 ends a sentence%.", "%1%r%2%  %3!08X!"],
        "German": ["%.%1 beendet einen Satz%.", "%1%r%2%  %3!08X!"],
        "French": ["%.%1 termine une phrase%.", "%1%r%2%  %3!08X!"],
        "Greek": ["%.%1 τελειώνει%.", "%1%r%2%  %3!08X!"],
    }),
    ("MessageId=0x20 Facility=Core SymbolicName=T_PLAIN", {
        "English": ["No inserts; «quotes» and “curly” ones."],
        "German": ["Keine Einfügungen; Größe ändern."],
        "French": ["Aucune insertion ; « guillemets »."],
        "Greek": ["Καμία εισαγωγή."],
    }),
]
OWN_LANGS = [("English", 0x409, "MSG00409"), ("German", 0x407, "MSG00407"),
             ("French", 0x40C, "MSG0040C"), ("Greek", 0x408, "MSG00408")]


def own_mc(langs):
    """The test's .mc with the languages named (each message in each)."""
    out = ["; // written by tests/mc_resources_test.py", "MessageIdTypedef=DWORD",
           "SeverityNames=(Success=0x0:SEV_SUCCESS",
           "               Informational=0x1:SEV_INFORMATIONAL",
           "               Warning=0x2:SEV_WARNING",
           "               Error=0x3:SEV_ERROR", "              )",
           "FacilityNames=(Core=0x100:FAC_CORE", "               Net=0x2A:FAC_NET)",
           "LanguageNames=("]
    out += ["    %s=0x%X:%s" % lang for lang in OWN_LANGS if lang[0] in langs]
    out += [")", ""]
    for head, texts in OWN_MESSAGES:
        out.append(head)
        for name in langs:
            out += ["Language=" + name] + texts[name] + ["."]
        out.append("")
    return "\r\n".join(out) + "\r\n"


# --- an independent reader of .mc sources -----------------------------------

class Msg:
    def __init__(self, ids, symbol):
        self.ids = ids           # the 32-bit ids mc versions give it, () when unknown
        self.id = ids[0] if len(ids) == 1 else None  # the one, once known
        self.symbol = symbol
        self.texts = {}          # language name -> [lines]


class McFile:
    """What a .mc file defines, by the rules of Microsoft's "Message Text
    Files" page: keyword=value pairs (case ignored in keywords), ';' comment
    lines, tables in parentheses, Language=NAME followed by text lines up to
    a line holding only '.'.  Ids: Severity << 30 | Facility << 16 | number;
    severity and facility carry over from the previous message (mc does so,
    and Success/facility 0 before any: golden svcbatch, spamhater).  The
    facilities System and Application, when not declared, are 0x0FF and
    0xFFF by the documentation, 0 by a 2005 mc (golden easydynamicdns): a
    message of theirs has two candidate ids, and the table tells which
    (resolve_ids).  A number continuing a facility that has no number yet
    gives no id.  With customer (mc's -c)
    every id has bit 29 set."""

    def __init__(self, data, utf16=False, customer=False):
        if data.startswith(b"\xff\xfe"):
            text = data[2:].decode("utf-16-le")
        elif utf16:
            text = data.decode("utf-16-le")
        elif data.startswith(b"\xef\xbb\xbf"):
            text = data[3:].decode("utf-8")
        else:
            text = data.decode("cp1252")
        self.severities = {"Success": 0, "Informational": 1, "Warning": 2, "Error": 3}
        self.facilities = {}
        self.languages = {"English": (0x409, "MSG00001")}
        self.messages = []
        lines = text.replace("\r\n", "\n").split("\n")
        sev, fac, last = 0, (0,), {}
        chunk = []
        i = 0
        while i < len(lines):
            line = lines[i]
            i += 1
            if line.lstrip().startswith(";"):
                continue
            chunk.append(line.split(";", 1)[0])
            joined = " ".join(chunk)
            m = re.search(r"\bLanguage\s*=\s*(\w+)", joined, re.I)
            if not m:
                continue
            pairs = self.pairs(joined[:m.start()])
            chunk = []
            if any(k == "messageid" for k, _ in pairs):
                vals = dict(pairs)
                if "severity" in vals:
                    sev = self.severities.get(vals["severity"])
                if "facility" in vals:
                    name = vals["facility"]
                    fac = (self.facilities[name],) if name in self.facilities else \
                        {"System": (0x0FF, 0), "Application": (0xFFF, 0)}.get(name)
                spec = vals["messageid"]
                if spec.startswith("+") or spec == "":
                    step = int(spec[1:], 0) if spec.startswith("+") else 1
                    num = last[fac] + step if fac in last else None
                else:
                    num = int(spec, 16) if spec.lower().startswith("0x") else int(spec)
                if num is not None and fac is not None:
                    last[fac] = num
                ids = () if None in (sev, fac, num) else \
                    tuple(sev << 30 | customer << 29 | f << 16 | num for f in fac)
                self.messages.append(Msg(ids, vals.get("symbolicname")))
            body = []
            while i < len(lines) and lines[i] != ".":
                body.append(lines[i])
                i += 1
            i += 1
            self.messages[-1].texts[m.group(1)] = body

    def pairs(self, s):
        """[(keyword lower-cased, value)] of a run of keyword=value pairs;
        a table in parentheses is stored in self as a side effect."""
        toks = re.findall(r"\(|\)|=|[^\s()=]+", s)
        out = []
        k = 0
        while k + 1 < len(toks) and toks[k + 1] == "=":
            key = toks[k].lower()
            k += 2
            if k < len(toks) and toks[k] == "(":
                end = toks.index(")", k)
                self.table(key, toks[k + 1:end])
                k = end + 1
            elif k < len(toks) and not (k + 1 < len(toks) and toks[k + 1] == "="):
                out.append((key, toks[k]))
                k += 1
            else:
                out.append((key, ""))
        return out

    def table(self, key, toks):
        entries = [(toks[k], toks[k + 2]) for k in range(0, len(toks) - 2, 3)]
        for name, value in entries:
            num = value.split(":")[0]
            num = int(num, 16) if num.lower().startswith("0x") else int(num)
            if key == "severitynames":
                self.severities[name] = num
            elif key == "facilitynames":
                self.facilities[name] = num
            elif key == "languagenames":
                self.languages[name] = (num, value.split(":")[1])

    def resolve_ids(self, tables):
        """Picks each message's id among its candidates: the one present
        in the tables ({langid: {id: entry}}) of its languages."""
        for m in self.messages:
            if m.id is None and m.ids:
                have = {i for name in m.texts for i in m.ids
                        if i in tables.get(self.languages[name][0], {})}
                if len(have) == 1:
                    m.id = have.pop()

    def used_languages(self):
        """{name: (langid, file base)} of the languages messages use."""
        names = {n for m in self.messages for n in m.texts}
        return {n: self.languages[n] for n in names}


def table_texts(data):
    """{id: (flags, text)} of a MESSAGE_RESOURCE_DATA (winnt.h; msgtable.md):
    blocks of (low, high, offset), entries (length, flags, text); the text
    without its NUL terminator and padding."""
    out = {}
    (nblocks,) = struct.unpack_from("<I", data, 0)
    for b in range(nblocks):
        low, high, off = struct.unpack_from("<III", data, 4 + 12 * b)
        for ident in range(low, high + 1):
            length, flags = struct.unpack_from("<HH", data, off)
            raw = data[off + 4:off + length]
            if flags & 1:
                text = raw.decode("utf-16-le").split("\0", 1)[0]
            else:
                text = raw.split(b"\0", 1)[0].decode("cp1252")
            out[ident] = (flags, text)
            off += length
    return out


# --- FormatMessage, from its documentation ----------------------------------

class Unsupported(Exception):
    """A sequence whose result Microsoft's documentation does not give."""


FMT = re.compile(r"([-+ #0]*)(\d*)(?:\.(\d+))?(l?)([sdiuxXoc])$")


def insert_kind(fmt):
    """'s' or 'i': the argument an insert's !printf format! takes."""
    m = FMT.match(fmt)
    if not m or (m.group(4) and m.group(5) in "sc"):
        raise Unsupported("format !%s!" % fmt)
    return "s" if m.group(5) == "s" else "i"


def pieces(text):
    """A message text as FormatMessage reads it (its documentation, "Escape
    sequences"): ("char", c) for plain text, ("insert", n, fmt) for
    %n!format string! (n from 1 to 99, fmt "s" when none is given),
    ("escape", c) for %0 %n %r %t %% %space %. %!.  Raises Unsupported on
    anything else."""
    i = 0
    while i < len(text):
        c = text[i]
        i += 1
        if c != "%":
            yield ("char", c)
            continue
        if i == len(text):
            raise Unsupported("% at the end")
        c = text[i]
        i += 1
        if c in "123456789":
            n = int(c)
            if i < len(text) and text[i].isdigit():
                n = n * 10 + int(text[i])
                i += 1
            fmt = "s"
            if i < len(text) and text[i] == "!":
                j = text.find("!", i + 1)
                if j < 0:
                    raise Unsupported("an insert's ! without its closing !")
                fmt = text[i + 1:j]
                i = j + 1
            yield ("insert", n, fmt)
        elif c in "0nrt% .!":
            yield ("escape", c)
        else:
            raise Unsupported("%" + c)


def fmt_message(text, args):
    """FormatMessage with FORMAT_MESSAGE_ARGUMENT_ARRAY and no maximum width,
    as documented: %0 ends the output (no newline), %n is CR LF, %r CR, %t a
    tab, %% %space %. %! that character; %n!fmt! the n-th argument through
    printf's fmt; the text's own line breaks are kept."""
    out = []
    for p in pieces(text):
        if p[0] == "char":
            out.append(p[1])
        elif p[0] == "insert":
            flags, width, prec, _, conv = FMT.match(p[2]).groups()
            conv = {"i": "d", "u": "d"}.get(conv, conv)
            spec = "%" + flags + width + ("." + prec if prec is not None else "") + conv
            out.append(spec % args[p[1] - 1])
        elif p[1] == "0":
            break
        else:
            out.append({"n": "\r\n", "r": "\r", "t": "\t"}.get(p[1], p[1]))
    return "".join(out)


def call_args(text):
    """The FormatMessage arguments for a text: strings for %n and %n!s!
    (non-ASCII, so UTF-16 is seen to pass), integers for the others (a
    negative one for d and i, which print it signed)."""
    kinds = {}
    for n, fmt in (p[1:] for p in pieces(text) if p[0] == "insert"):
        kind = insert_kind(fmt)
        if kinds.setdefault(n, (kind, fmt))[0] != kind:
            raise Unsupported("insert %d used as a string and a number" % n)
    args = []
    for n in range(1, max(kinds, default=0) + 1):
        kind, fmt = kinds.get(n, ("s", "s"))
        if kind == "s":
            args.append("Zoë%d" % n)
        elif fmt.endswith(("d", "i")):
            args.append(-1000 - n)
        elif fmt.endswith("c"):
            args.append(0x41 + n)
        else:
            args.append(0xBEE0 + n)
    return args


PROBE = r"""/* mc_resources_test.py's FormatMessageW probe: reads a list of
   requests, "L dll" (load a DLL as a data file) and "M tag langid id args"
   (args: sHEX, a UTF-16 string in hex, or iN, an integer), and prints
   "tag R hex-of-UTF-16" or "tag E error". */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char line[1 << 20];
static WCHAR strs[100][512];
static WCHAR out[1 << 17];

int main(int argc, char **argv)
{
    FILE *f;
    HMODULE mod = NULL;
    if (argc != 2 || !(f = fopen(argv[1], "r")))
        return 2;
    while (fgets(line, sizeof line, f)) {
        char *tag, *tok;
        DWORD_PTR args[100];
        DWORD lang, id, n, i;
        int nargs = 0;
        line[strcspn(line, "\r\n")] = 0;
        if (line[0] == 'L') {
            mod = LoadLibraryExA(line + 2, NULL, LOAD_LIBRARY_AS_DATAFILE);
            if (!mod)
                printf("L E %lu\n", GetLastError());
            continue;
        }
        tag = strtok(line + 2, " ");
        lang = strtoul(strtok(NULL, " "), NULL, 0);
        id = strtoul(strtok(NULL, " "), NULL, 0);
        while ((tok = strtok(NULL, " ")) != NULL && nargs < 100) {
            if (tok[0] == 'i') {
                args[nargs] = (DWORD_PTR)strtoll(tok + 1, NULL, 10);
            } else {
                size_t k, len = strlen(tok + 1) / 4;
                for (k = 0; k < len && k < 511; k++) {
                    char hex[5];
                    memcpy(hex, tok + 1 + 4 * k, 4);
                    hex[4] = 0;
                    strs[nargs][k] = (WCHAR)strtoul(hex, NULL, 16);
                }
                strs[nargs][k] = 0;
                args[nargs] = (DWORD_PTR)strs[nargs];
            }
            nargs++;
        }
        n = FormatMessageW(FORMAT_MESSAGE_FROM_HMODULE | FORMAT_MESSAGE_ARGUMENT_ARRAY, mod, id,
                           lang, out, sizeof out / sizeof out[0], (va_list *)args);
        if (n == 0) {
            printf("%s E %lu\n", tag, GetLastError());
            continue;
        }
        printf("%s R ", tag);
        for (i = 0; i < n; i++)
            printf("%04x", out[i]);
        printf("\n");
    }
    fclose(f);
    return 0;
}
"""

DLL_C = "int __stdcall DllMain(void *h, unsigned long r, void *p)\n" \
        "{ (void)h; (void)r; (void)p; return 1; }\n"


# --- the cases ---------------------------------------------------------------

class Case:
    """One .mc and the directory holding its .rc and tables."""

    def __init__(self, name, mc, rc=None, prefix=""):
        self.name, self.mc, self.rc, self.prefix = name, mc, rc, prefix
        self.dll = None


def golden_switches(case):
    """The mc switches of a golden-mc case's SOURCE.txt command (mc's own
    options: -u -U -A -z BASE), without -h/-r (the test gives its own)."""
    src = open(os.path.join(CORPUS, "golden-mc", case, "SOURCE.txt"), encoding="utf-8").read()
    m = re.search(r"\bmc(?:\.exe)? ((?:-\w+ (?:\S+ )?)*?)\S+\.mc", src)
    words = m.group(1).split() if m else []
    out = []
    k = 0
    while k < len(words):
        if words[k] == "-z":
            out += words[k:k + 2]
            k += 2
            continue
        if words[k] in ("-h", "-r"):
            k += 2
            continue
        if words[k] in ("-u", "-U", "-A", "-a"):
            out.append(words[k])
        k += 1
    return out


def run_mcgen(mcgen, name, path, switches, tmp):
    """mcgen on one .mc into its own directory; the Case, or None."""
    d = os.path.join(tmp, name)
    os.makedirs(d)
    r = subprocess.run([mcgen] + switches + ["-h", d, "-r", d, path], capture_output=True,
                       text=True)
    # warnings are allowed (nssm's "%2!" at the end of a line gets one,
    # rightly: FormatMessage fails on it), errors are not
    warnings = sorted(set(re.findall(r": warning: \[(MCG\d+)", r.stderr)))
    check(r.returncode == 0 and not re.search(r"^\S.*\berror\b", r.stderr, re.M),
          "%s: mcgen %s compiles it with no error%s"
          % (name, " ".join(switches + ["-h D -r D", os.path.basename(path)]),
             " (warnings: %s)" % ", ".join(warnings) if warnings else ""),
          "exit %d: %s" % (r.returncode, r.stderr[:2000]))
    if r.returncode:
        return None
    rcs = glob.glob(os.path.join(d, "*.rc"))
    check(len(rcs) == 1, "%s: one .rc" % name, repr(os.listdir(d)))
    if len(rcs) != 1:
        return None
    prefix = switches[switches.index("-z") + 1] + "_" if "-z" in switches else ""
    return Case(name, path, rcs[0], prefix)


def build_dll(case, dll_o):
    """windres + link; returns an error text or None."""
    d = os.path.dirname(case.rc)
    r = subprocess.run([WINDRES, os.path.basename(case.rc), "-O", "coff", "-o", "res.o"],
                       cwd=d, capture_output=True, text=True)
    if r.returncode:
        return "windres: " + r.stderr
    r = subprocess.run([GCC, "-shared", "-o", "msg.dll", dll_o, "res.o"], cwd=d,
                       capture_output=True, text=True)
    if r.returncode:
        return "link: " + r.stderr
    case.dll = os.path.join(d, "msg.dll")
    return None


def check_tables(case, mc):
    """The .bin files and the DLL's RT_MESSAGETABLE resources; returns the
    tables as {langid: bytes}."""
    d = os.path.dirname(case.rc)
    used = mc.used_languages()
    want_bins = sorted("%s%s.bin" % (case.prefix, f) for _, f in used.values())
    have_bins = sorted(x for x in os.listdir(d) if x.lower().endswith(".bin"))
    check(have_bins == want_bins, "%s: one table per language, named from LanguageNames"
          % case.name, "have %r, want %r" % (have_bins, want_bins))
    bins = {lid: open(os.path.join(d, "%s%s.bin" % (case.prefix, f)), "rb").read()
            for lid, f in used.values() if os.path.exists(os.path.join(d, case.prefix + f + ".bin"))}
    if case.dll:
        res = pe_resources(open(case.dll, "rb").read())
        tables = {k[2]: v for k, v in res.items() if k[0] == 11}
        keys = sorted(k for k in res if k[0] == 11)
        check(keys == sorted((11, 1, lid) for lid, _ in used.values()),
              "%s: the DLL has one RT_MESSAGETABLE (11, 1) per language: %s" %
              (case.name, ", ".join("0x%X" % lid for lid, _ in sorted(used.values()))),
              "resources %r" % sorted(res, key=str))
        same = [lid for lid in bins if tables.get(lid) == bins[lid]]
        check(len(same) == len(bins) == len(used),
              "%s: each RT_MESSAGETABLE is its .bin byte for byte" % case.name,
              "equal for %r of %r" % (same, sorted(bins)))
    bad = []
    count = 0
    texts = {lid: table_texts(data) for lid, data in bins.items()}
    mc.resolve_ids(texts)
    for name, (lid, _) in used.items():
        if lid not in bins:
            continue
        got = texts[lid]
        for m in mc.messages:
            if m.id is None or name not in m.texts:
                continue
            count += 1
            want = "".join(line + "\r\n" for line in m.texts[name])
            if got.get(m.id, (0, None))[1] != want:
                bad.append("0x%08X %s: %r, want %r" % (m.id, name, got.get(m.id), want))
    check(not bad, "%s: %d texts in the tables are the .mc's lines, each with CR LF"
          % (case.name, count), "; ".join(bad[:5]))


def requests(cases_mc):
    """The probe's request list and what each answer must be:
    {tag: (case name, description, expected text)}."""
    lines, want = [], {}
    for case, mc in cases_mc:
        if not case.dll:
            continue
        unchecked = {}
        lines.append("L " + "Z:" + case.dll.replace("/", "\\"))
        for name, (lid, _) in sorted(mc.used_languages().items()):
            for m in mc.messages:
                if m.id is None or name not in m.texts:
                    continue
                text = "".join(line + "\r\n" for line in m.texts[name])
                try:
                    args = call_args(text)
                    expect = fmt_message(text, args)
                except Unsupported as e:
                    unchecked.setdefault(str(e), []).append(m.symbol)
                    continue
                tag = "t%d" % len(want)
                enc = ["i%d" % a if isinstance(a, int) else
                       "s" + a.encode("utf-16-be").hex() for a in args]
                lines.append(" ".join(["M", tag, "0x%X" % lid, "0x%X" % m.id] + enc))
                want[tag] = (case.name, "%s (0x%08X) in %s, %d inserts" %
                             (m.symbol, m.id, name, len(args)), expect, (m.symbol, name))
        for why, syms in sorted(unchecked.items()):
            print("note %s: %d texts not checked through FormatMessageW, their effect is not "
                  "documented: %s (%s)" % (case.name, len(syms), why, ", ".join(sorted(set(syms))[:4])))
    return lines, want


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    mcgen = os.path.abspath(ap.parse_args().mcgen)
    if not (shutil.which(WINDRES) and shutil.which(GCC) and shutil.which("wine")):
        print("skipped: %s, %s or wine absent (./setup installs them)" % (WINDRES, GCC))
        print("0 passed, 0 failed, 1 skipped")
        return 0
    # FormatMessageW turns -A's ANSI entries into UTF-16 through the ANSI
    # code page, which wine takes from the locale: the C locale's is 1252
    env = dict(os.environ, WINEDEBUG="-all", LC_ALL="C.UTF-8")
    env.setdefault("WINEPREFIX", os.path.join(tempfile.gettempdir(), "mcgen-wine"))
    with tempfile.TemporaryDirectory() as tmp:
        inputs = []  # (name, path, switches)
        own = os.path.join(tmp, "own")
        os.makedirs(own)
        latin = [n for n, _, _ in OWN_LANGS if n != "Greek"]
        for name, data, switches in [
                ("own-ansi", own_mc(latin).encode("cp1252"), []),
                ("own-ansi-A", own_mc(latin).encode("cp1252"), ["-A"]),
                ("own-ansi-c", own_mc(latin).encode("cp1252"), ["-c"]),
                ("own-utf16", own_mc([n for n, _, _ in OWN_LANGS]).encode("utf-16-le"), ["-u"]),
                ("own-utf16-bom", b"\xff\xfe" + own_mc(latin).encode("utf-16-le"), []),
                ("own-utf8-bom", b"\xef\xbb\xbf" + own_mc(latin).encode("utf-8"), [])]:
            path = os.path.join(own, name + ".mc")
            with open(path, "wb") as f:
                f.write(data)
            inputs.append((name, path, switches))
        golden = sorted(glob.glob(os.path.join(CORPUS, "golden-mc", "*", "input.mc")))
        sources = sorted(glob.glob(os.path.join(CORPUS, "mc-sources", "*", "*.[mM][cC]")))
        if not os.path.isdir(CORPUS):
            skip("corpus", "../shared/corpus absent: only the test's own .mc files")
        for path in golden:
            case = os.path.basename(os.path.dirname(path))
            inputs.append(("golden-" + case, path, golden_switches(case)))
        for path in sources:
            name = os.path.splitext(os.path.basename(path))[0]
            inputs.append(("src-" + name, path, []))

        cases = []  # (Case, McFile)
        for name, path, switches in inputs:
            mc = McFile(open(path, "rb").read(), utf16="-u" in switches, customer="-c" in switches)
            c = run_mcgen(mcgen, name, path, switches, tmp)
            if c:
                cases.append((c, mc))
        # mc.exe's own outputs: the harness on real mc bytes
        for path in golden:
            case = os.path.basename(os.path.dirname(path))
            src = os.path.dirname(path)
            d = os.path.join(tmp, "mc-" + case)
            os.makedirs(d)
            for f in glob.glob(os.path.join(src, "MSG*.bin")):
                if ".older." not in f:
                    shutil.copy(f, d)
            rc = os.path.join(d, "mc.rc")
            if os.path.exists(os.path.join(src, "mc.rc")):
                shutil.copy(os.path.join(src, "mc.rc"), rc)
            else:  # svcbatch kept only the table: the .rc mc writes for one
                with open(rc, "wb") as f:
                    f.write(b'LANGUAGE 0x9,0x1\r\n1 11 "MSG00001.bin"\r\n')
            switches = golden_switches(case)
            cases.append((Case("mc-" + case, path, rc),
                          McFile(open(path, "rb").read(), utf16="-u" in switches)))

        with open(os.path.join(tmp, "dll.c"), "w") as f:
            f.write(DLL_C)
        dll_o = os.path.join(tmp, "dll.o")
        subprocess.run([GCC, "-c", "-o", dll_o, os.path.join(tmp, "dll.c")], check=True)
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            errs = list(pool.map(lambda cm: build_dll(cm[0], dll_o), cases))
        for (case, mc), err in zip(cases, errs):
            check(err is None, "%s: windres compiles the .rc and it links into a DLL" % case.name,
                  err or "")
            check_tables(case, mc)

        # at least three messages with inserts named by the issue must be
        # among those FormatMessage is checked on
        forced = {("own-ansi", "T_OPENED", "German"), ("own-ansi", "T_TABLE", "French"),
                  ("own-utf16", "T_OPENED", "Greek"), ("own-ansi", "T_FAILED", "English"),
                  ("own-ansi", "T_WARN", "English")}
        if os.path.isdir(CORPUS):
            forced |= {("src-devcon_msg", "MSG_HELP_SHORT", "English"),
                       ("src-serlog", "SERIAL_KERNEL_DEBUGGER_ACTIVE", "English"),
                       ("golden-nssm-multilang-nssm", "NSSM_EVENT_START_SERVICE_FAILED", "French"),
                       ("mc-nssm-multilang-nssm", "NSSM_EVENT_START_SERVICE_FAILED", "French")}
        reqs, want = requests(cases)
        with open(os.path.join(tmp, "probe.c"), "w") as f:
            f.write(PROBE)
        c = subprocess.run([GCC, "-Wall", "-Wextra", "-Werror", "-O1", "probe.c", "-o",
                            "probe.exe"], cwd=tmp, capture_output=True, text=True)
        check(c.returncode == 0, "the FormatMessageW probe compiles with -Wall -Wextra -Werror",
              c.stderr[:2000])
        with open(os.path.join(tmp, "requests.txt"), "w") as f:
            f.write("\n".join(reqs) + "\n")
        got = {}
        if c.returncode == 0:
            w = subprocess.run(["wine", "probe.exe", "requests.txt"], cwd=tmp,
                               capture_output=True, text=True, env=env, timeout=600)
            for line in w.stdout.replace("\r", "").splitlines():
                parts = line.split(" ")
                if len(parts) == 3:
                    got[parts[0]] = (parts[1], parts[2])
            check(w.returncode == 0 and "L" not in got,
                  "wine runs the probe and it loads every DLL",
                  "exit %d, %r %s" % (w.returncode, got.get("L"), w.stderr[-2000:]))
        per_case = {}
        for tag, (case, what, expect, key) in want.items():
            kind, val = got.get(tag, ("E", "no answer"))
            text = bytes.fromhex(val).decode("utf-16-be") if kind == "R" else None
            ok = text == expect
            per_case.setdefault(case, []).append((ok, what, text, expect, val))
        for case, rows in per_case.items():
            bad = [r for r in rows if not r[0]]
            check(not bad, "%s: FormatMessageW gives the .mc's text for %d messages"
                  % (case, len(rows)),
                  "; ".join("%s: got %r, want %r" % (r[1], r[2] if r[2] is not None else
                                                     "error " + r[4], r[3]) for r in bad[:30]))
        for case, sym, lang in sorted(forced):
            check(any(k == (sym, lang) for c_, _, _, k in want.values() if c_ == case),
                  "%s: FormatMessageW is checked on %s in %s" % (case, sym, lang),
                  "not among the checked messages")
    print("%d passed, %d failed, %d skipped" % (results["passed"], results["failed"],
                                                results["skipped"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
