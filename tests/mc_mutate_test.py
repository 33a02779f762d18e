#!/usr/bin/env python3
"""Mutation test of the .mc compile: damaged message-text files never crash
mcgen, and every one it refuses says why with a coded diagnostic.

Sources: a .mc this test writes itself (every statement of the language, a
non-ASCII text), as ANSI (Windows-1252), as UTF-8 with a byte-order mark
and as UTF-16LE with one, so that the test runs without ../shared; and,
when ../shared/corpus is there, every .mc under corpus/golden-mc and
corpus/mc-sources, with -u for the UTF-16 ones as their SOURCE.txt says.
Mutants (deterministic seed per source): byte flips, deleted and
duplicated lines, truncation, a removed '.' line, two keywords swapped,
a snippet of .mc syntax inserted, and in the UTF-16 sources encoding
damage (an odd byte removed, a lone surrogate, the byte-order mark
swapped or cut).  Each runs `mcgen [-u] -h DIR -r DIR -x DIR FILE.mc` in an
empty directory and must end with exit status 0 (the header, the .rc and
the .dbg written) or 1 (at least one `error: [MCGnnnn]` line, nothing
written), without a signal or a sanitizer report.

A failing mutant is kept in mc-mutants/ beside mcgen, to replay.
--count N: the number of mutants, shared out over the sources (default
1,200; tests/run gives the sanitizer builds 300).  Runs two at a time.
Prints one line per source and "N passed, N failed".
"""
import argparse
import concurrent.futures
import os
import random
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.normpath(os.path.join(ROOT, "..", "shared", "corpus"))

# A message-text file with every statement (Microsoft's "Message Text
# Files"): comments, the header section, carried and per-facility ids,
# two languages, inserts and escapes, a non-ASCII text.
OWN = """\
;// mc_mutate_test.py's own message-text file
MessageIdTypedef=DWORD
SeverityNames=(Success=0x0:STATUS_SEVERITY_SUCCESS
               Informational=0x1:STATUS_SEVERITY_INFORMATIONAL
               Warning=0x2:STATUS_SEVERITY_WARNING
               Error=0x3:STATUS_SEVERITY_ERROR)
FacilityNames=(System=0x0:FACILITY_SYSTEM Runtime=0x2:FACILITY_RUNTIME)
LanguageNames=(English=0x409:MSG00409)
LanguageNames=(German=0x407:MSG00407)
OutputBase=16
;// messages
MessageId=0x1 Severity=Error Facility=Runtime SymbolicName=MSG_FIRST
Language=English
The first message: %1!s! at %2!08lX!.%n
Second line%t%r%b%%%!%.
.
Language=German
Die erste Nachricht: %1 bei %2.
.
MessageId=
SymbolicName=MSG_NEXT
Language=English
Carried severity and facility.%0
.
Language=German
Übernommen: Größe ä ö ü ß €.
.
MessageId=+5 Facility=System
SymbolicName=MSG_PLUS
Language=English
Five further.
.
Language=German
Fünf weiter.
.
"""

KEYWORDS = [b"MessageId", b"Severity", b"Facility", b"SymbolicName", b"Language",
            b"MessageIdTypedef", b"SeverityNames", b"FacilityNames", b"LanguageNames",
            b"OutputBase"]
SNIPPETS = [b"=", b"(", b")", b":", b"+", b";", b".", b"%", b"!", b"%1!", b"%100", b"%1!q!",
            b"MessageId=", b"MessageId=+70000", b"Language=Klingon", b"Severity=Nope",
            b"LanguageNames=(X=0x409:MSG00409)", b"FacilityNames=(F=0x1000)", b"\x00",
            b"\x1a", b"\xff", b"\xef\xbb\xbf", b"\r\n.\r\n", b"\n.\n", b". \n"]


def line_ops(rng, b, nl):
    """Deletes, duplicates or swaps whole lines (nl: the line end's bytes)."""
    lines = b.split(nl)
    if len(lines) < 2:
        return b
    i = rng.randrange(len(lines))
    op = rng.random()
    if op < 0.35:
        del lines[i]
    elif op < 0.7:
        lines.insert(i, lines[rng.randrange(len(lines))])
    else:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    return nl.join(lines)


def mutate8(rng, src):
    """One to four damages of an 8-bit (ANSI or UTF-8) file."""
    b = bytes(src)
    for _ in range(rng.randint(1, 4)):
        if not b:
            break
        op = rng.randrange(7)
        pos = rng.randrange(len(b))
        if op == 0:  # byte flips
            a = bytearray(b)
            for _ in range(rng.randint(1, 3)):
                a[rng.randrange(len(a))] = rng.randrange(256)
            b = bytes(a)
        elif op == 1:
            b = line_ops(rng, b, b"\n")
        elif op == 2:  # truncation
            b = b[:pos]
        elif op == 3:  # a '.' line removed
            dots = [m.start() for m in re.finditer(rb"(?m)^\.\r?$", b)]
            if dots:
                d = rng.choice(dots)
                b = b[:d] + b[d + 1:]
        elif op == 4:  # two keywords swapped
            k1, k2 = rng.sample(KEYWORDS, 2)
            hits = [m.start() for m in re.finditer(re.escape(k1) + rb"\b", b)]
            if hits:
                h = rng.choice(hits)
                b = b[:h] + k2 + b[h + len(k1):]
        elif op == 5:
            b = b[:pos] + rng.choice(SNIPPETS) + b[pos:]
        else:  # a run deleted
            b = b[:pos] + b[pos + rng.randint(1, 30):]
    return b


def mutate16(rng, src):
    """The same damages on UTF-16LE text (decoded, damaged, encoded), or
    damage to the encoding itself."""
    if rng.random() < 0.35:
        b = bytearray(src)
        op = rng.randrange(4)
        if op == 0 and len(b) > 3:  # an odd byte removed
            del b[rng.randrange(2, len(b))]
        elif op == 1:  # a lone high or low surrogate
            p = rng.randrange(1, len(b) // 2) * 2
            b[p:p] = rng.choice([b"\x00\xd8", b"\x00\xdc", b"\x3d\xd8\x41\x00"])
        elif op == 2:  # the byte-order mark swapped or cut
            b[0:2] = rng.choice([b"\xfe\xff", b"\xff", b""])
        else:
            b = bytearray(mutate8(rng, bytes(b)))
        return bytes(b)
    bom = src[:2] == b"\xff\xfe"
    text = src[2 if bom else 0:].decode("utf-16-le", "surrogatepass").encode("utf-8", "surrogatepass")
    text = mutate8(rng, text)
    return (b"\xff\xfe" if bom else b"") + text.decode("utf-8", "replace").encode("utf-16-le",
                                                                                 "surrogatepass")


def sources(tmp):
    """(label, bytes, options, is UTF-16) of every source."""
    own = OWN.replace("\n", "\r\n")
    out = [("own .mc (ANSI, CRLF)", own.encode("cp1252"), [], False),
           ("own .mc (UTF-8 with BOM, LF)", b"\xef\xbb\xbf" + OWN.encode("utf-8"), [], False),
           ("own .mc (UTF-16LE with BOM)", b"\xff\xfe" + own.encode("utf-16-le"), [], True)]
    if not os.path.isdir(CORPUS):
        return out, False
    for d in ("golden-mc", "mc-sources"):
        for dirpath, _, files in sorted(os.walk(os.path.join(CORPUS, d))):
            for f in sorted(files):
                if not f.lower().endswith(".mc"):
                    continue
                path = os.path.join(dirpath, f)
                data = open(path, "rb").read()
                src = os.path.join(dirpath, "SOURCE.txt")
                u16 = data[:2] == b"\xff\xfe"
                opts = []
                if os.path.exists(src) and re.search(r"(?m)^command: mc(\.exe)? [^\n]*-u\b", open(src).read()):
                    opts = ["-u"]
                out.append((os.path.relpath(path, CORPUS), data, opts, u16))
    return out, True


CODED = re.compile(r": error: \[MCG\d{4}\]")


def run_one(mcgen, tmp, n, data, opts):
    d = os.path.join(tmp, "m%d" % n)
    os.makedirs(d)
    path = os.path.join(d, "in.mc")
    with open(path, "wb") as f:
        f.write(data)
    out = os.path.join(d, "out")
    os.makedirs(out)
    r = subprocess.run([mcgen] + opts + ["-h", out, "-r", out, "-x", out, path],
                       capture_output=True, timeout=60)
    err = r.stderr.decode("utf-8", "replace")
    written = sorted(os.listdir(out))
    why = None
    if r.returncode not in (0, 1):
        why = "exit %d" % r.returncode
    elif "Sanitizer" in err or "runtime error" in err:
        why = "a sanitizer report"
    elif r.returncode == 1 and not CODED.search(err):
        why = "exit 1 without a coded error"
    elif r.returncode == 1 and written:
        why = "exit 1 but wrote %s" % written
    elif r.returncode == 0 and not {"in.h", "in.rc", "in.dbg"} <= set(written):
        why = "exit 0 but wrote only %s" % written
    if why:
        return False, "%s: %s" % (why, err[-400:])
    for f in written:
        os.unlink(os.path.join(out, f))
    os.rmdir(out)
    os.unlink(path)
    os.rmdir(d)
    return r.returncode == 0, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    ap.add_argument("--count", type=int, default=1200)
    args = ap.parse_args()
    mcgen = os.path.abspath(args.mcgen)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as top:
        tmp = os.path.join(top, "runs")
        os.makedirs(tmp)
        srcs, shared = sources(tmp)
        if not shared:
            print("note: ../shared/corpus absent: mutating the test's own .mc only")
        per = max(1, (args.count + len(srcs) - 1) // len(srcs))
        n = 0
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            for label, data, opts, u16 in srcs:
                rng = random.Random(label)
                jobs = []
                for _ in range(per):
                    m = mutate16(rng, data) if u16 else mutate8(rng, data)
                    jobs.append((m, pool.submit(run_one, mcgen, tmp, n, m, opts)))
                    n += 1
                bad, compiled = [], 0
                for m, j in jobs:
                    ok, why = j.result()
                    compiled += ok
                    if why:
                        # kept beside mcgen, to replay
                        keep = os.path.join(os.path.dirname(mcgen), "mc-mutants")
                        os.makedirs(keep, exist_ok=True)
                        keep = os.path.join(keep, "mutant-%d.mc" % len(os.listdir(keep)))
                        with open(keep, "wb") as f:
                            f.write(m)
                        bad.append("%s %s: %s" % (keep, " ".join(opts), why))
                ok = not bad
                passed += ok
                failed += not ok
                print(("PASS " if ok else "FAIL ") + "%d mutants of %s%s (%d compiled): exit 0 with outputs "
                      "or 1 with a coded error, no crash" % (per, label, " " + " ".join(opts) if opts else "",
                                                             compiled)
                      + ("" if ok else ": %d bad, first: %s" % (len(bad), bad[0])))
        print("%d mutants in all" % n)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
