#!/usr/bin/env python3
"""The generated logging code at run time, under wine.

For examples/hello, the Windows-classic-samples AdvancedProvider, the
golden etk-TypeMangling and etk-Large manifests and tests/data/bulk.man (an
array of structs whose elements vary in size, where mc's header logs the
wrong size: dotnet/coreclr#25454), a program is generated that includes
mcgen's -um header with ETW replaced by recording functions
(MCGEN_EVENTREGISTER keeps the enable callback; MCGEN_EVENTWRITETRANSFER
prints what it is given).  It registers every provider, then, for several
sessions (level, MatchAnyKeyword, MatchAllKeyword), calls the enable
callback the header registered and every EventWrite<Sym> with sample
values, and finally disables the providers and writes again.

The test computes from the manifest (mcgen --json), independently of the
header, which events ETW's rule lets through for each session and the
exact payload bytes each must carry (sizes, terminators, counts, lengths,
array sizes), and compares with what the program printed.  It computes
the bytes twice, from the fields' inTypes and from each field's payload
plan alone (plan_bytes, the table of docs/json-model.md): the two must
agree, and the program's bytes must be the plan's, so a wrapper written
from the plan writes what mcgen's header writes.

Prints one line per manifest and session and "N passed, N failed"; says
"skipped" when mingw-w64 or wine is missing (the corpus manifests are
skipped when the corpus is absent).
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

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "..", "shared", "corpus")
CASES = [
    ("hello", os.path.join(ROOT, "examples", "hello", "hello.man")),
    ("AdvancedProvider", os.path.join(CORPUS, "manifests", "microsoft-Windows-classic-samples",
                                      "Eventing_Provider_Advanced_CPP_AdvancedProvider.man")),
    ("etk-TypeMangling", os.path.join(CORPUS, "golden", "etk-TypeMangling", "input.man")),
    ("etk-Large", os.path.join(CORPUS, "golden", "etk-Large", "input.man")),
    # an array of structs of varying size: the size mc's header gets wrong
    ("bulk", os.path.join(ROOT, "tests", "data", "bulk.man")),
]
ALL = (1 << 64) - 1
SESSIONS = [(5, ALL, 0), (4, ALL, 0), (2, ALL, 0), (0, ALL, 0), (5, 0x1, 0), (5, ALL, 0x3),
            (5, 0x8000000000000000, 0), (1, 0, 0)]

# inType -> (C type of one element, struct format, sample value)
FIXED = {
    "Int8": ("signed char", "<b", -5), "UInt8": ("unsigned char", "<B", 0xF1),
    "Int16": ("signed short", "<h", -1234), "UInt16": ("unsigned short", "<H", 0xBEEF),
    "Int32": ("signed int", "<i", -123456), "UInt32": ("unsigned int", "<I", 0xDEADBEEF),
    "HexInt32": ("signed int", "<i", 0x1234567), "Int64": ("signed __int64", "<q", -(1 << 40)),
    "UInt64": ("unsigned __int64", "<Q", (1 << 63) + 5),
    "HexInt64": ("signed __int64", "<q", 0x123456789A), "Float": ("float", "<f", 1.5),
    "Double": ("double", "<d", -2.25), "Boolean": ("signed int", "<i", 1),
    "Pointer": ("const void*", "<Q", 0x12345678),
}
BYREF = {"GUID": 16, "FILETIME": 8, "SYSTEMTIME": 16}
SID = bytes([1, 1, 0, 0, 0, 0, 0, 5, 0x12, 0, 0, 0])  # S-1-5-18


class Sample:
    """C declarations and argument expressions for one event, and the
    payload bytes ETW must get."""

    def __init__(self, uid):
        self.uid = uid
        self.decls = []
        self.args = []
        self.payload = b""
        self.n = 0
        self.samples = []  # per field, its values as plan_bytes takes them
        self.values = {}   # field index -> integer value (count/length references)

    def array(self, ctype, data_bytes):
        name = "s%d_%d" % (self.uid, self.n)
        self.n += 1
        body = ", ".join("0x%02x" % b for b in data_bytes) or "0"
        self.decls.append("static const unsigned char %s[%d] = {%s};"
                          % (name, max(1, len(data_bytes)), body))
        return "(%s)%s" % (ctype, name)


def qty(q, values):
    """A count or length as a number: none -> None."""
    if q is None:
        return None
    if "fixed" in q:
        return q["fixed"]
    return values[q["index"]]


def fixed_size(f):
    """Whether a field's size is known from the manifest (emit_header.c)."""
    if f.get("count") and "index" in f["count"]:
        return False
    if f["kind"] == "struct":
        return all(fixed_size(m) for m in f["members"])
    t = f["inType"].split(":", 1)[1]
    if t in ("UnicodeString", "AnsiString", "Binary"):
        return bool(f.get("length") and f["length"].get("fixed"))
    return t in FIXED or t in BYREF


def referenced_fields(fields):
    """The indexes of the fields that give another its count or length."""
    return {q["index"] for f in fields for q in (f.get("count"), f.get("length"))
            if q and "index" in q}


def shape(f, values):
    """A field's inType (without win:, or "struct"), count and length as the
    header has them: a count of 0 or 1 and a length of 0 are none."""
    t = "struct" if f["kind"] == "struct" else f["inType"].split(":", 1)[1]
    count = qty(f.get("count"), values)
    length = qty(f.get("length"), values)
    return t, None if count in (0, 1) else count, None if length == 0 else length


def sample_event(uid, fields):
    """Arguments and expected payload for a template's top-level fields."""
    s = Sample(uid)
    values = s.values
    referenced = referenced_fields(fields)
    for i, f in enumerate(fields):
        t, count, length = shape(f, values)
        n = count or 1
        if t in FIXED:
            ctype, fmt, v = FIXED[t]
            if i in referenced:
                v = 2 if t not in ("Float", "Double") else v
            values[i] = v
            s.samples.append([v] * n)
            if count is None:
                lit = repr(v) if isinstance(v, float) else "%d" % v
                if t == "Pointer":
                    lit = "(const void*)0x%x" % v
                elif t.startswith("UInt64") or v >= (1 << 31):
                    lit += "ULL" if t != "Pointer" else ""
                s.args.append("(%s)%s" % (ctype, lit))
                s.payload += struct.pack(fmt, v)
            else:
                data = b"".join(struct.pack(fmt, v) for _ in range(n))
                s.args.append(s.array("const %s*" % ctype if t != "Pointer" else "const void**",
                                      data))
                s.payload += data
        elif t in BYREF:
            data = bytes(range(1, BYREF[t] + 1)) * n
            s.samples.append(data)
            s.args.append(s.array("const %s*" % t, data))
            s.payload += data
        elif t == "SID":
            s.samples.append([SID] * n)
            if count is None:
                s.args.append(s.array("const SID*", SID))
                s.payload += SID
            else:
                data = SID * n
                s.args += ["%d" % len(data), s.array("const unsigned char*", data)]
                s.payload += data
        elif t in ("UnicodeString", "AnsiString", "Binary"):
            unit, ctype = (2, "const WCHAR*") if t == "UnicodeString" else \
                (1, "const char*" if t == "AnsiString" else "const unsigned char*")
            enc = (lambda x: x.encode("utf-16-le")) if unit == 2 else (lambda x: x.encode())
            if count is None and length is None and t != "Binary":
                s.samples.append(["abc"])
                data = enc("abc\0")
                s.args.append(s.array(ctype, data))
                s.payload += data
            elif count is not None and length is None or (t == "Binary" and length is None):
                # a blob of strings one after another; the size in units
                data = enc("a\0bb\0") if t != "Binary" else bytes([9, 8, 7])
                s.samples.append(["a", "bb"] if t != "Binary" else data)
                s.args += ["%d" % (len(data) // unit), s.array(ctype, data)]
                s.payload += data
            else:
                data = b"".join(enc(chr(0x41 + k % 26)) for k in range(n * length))
                text = "".join(chr(0x41 + k % 26) for k in range(n * length))
                s.samples.append([text[j * length:(j + 1) * length] for j in range(n)]
                                 if t != "Binary" else data)
                s.args.append(s.array(ctype, data))
                s.payload += data
        elif t in ("CountedUnicodeString", "CountedAnsiString", "CountedBinary"):
            unit = 2 if t == "CountedUnicodeString" else 1
            ctype = {2: "const WCHAR*"}.get(unit, "const char*" if "Ansi" in t
                                           else "const unsigned char*")
            binary = t == "CountedBinary"
            if count is None:
                s.samples.append([b"xyz" if binary else "xyz"])
                data = "xyz".encode("utf-16-le" if unit == 2 else "ascii")
                s.args += ["%d" % (len(data) // unit), s.array(ctype, data)]
                s.payload += struct.pack("<H", len(data)) + data
            else:
                s.samples.append([b"q" if binary else "q"] * n)
                item = "q".encode("utf-16-le" if unit == 2 else "ascii")
                data = (struct.pack("<H", len(item)) + item) * n
                s.args += ["%d" % (len(data) // unit), s.array(ctype, data)]
                s.payload += data
        else:  # struct, or an unknown inType: an opaque blob
            # elements of one size: _Len_ is an element's size (as in mc);
            # of varying size: the whole blob's (where mc is wrong)
            if count is not None and f["kind"] == "struct" and \
                    all(fixed_size(m) for m in f["members"]):
                elem = bytes([0x5A, 0xA5, 0x11, 0x22])
                s.samples.append(elem * n)
                s.args += ["%d" % len(elem), s.array("const void*", elem * n)]
                s.payload += elem * n
            else:
                data = bytes(range(0x30, 0x3A))
                s.samples.append(data)
                s.args += ["%d" % len(data), s.array("const void*", data)]
                s.payload += data
    return s


# A payload plan's kinds of fixed size (docs/json-model.md, Payload) as
# struct formats; the probe is x86-64, so a pointer takes 8 bytes.
PLAN_FORMATS = {"int8": "<b", "uint8": "<B", "int16": "<h", "uint16": "<H", "int32": "<i",
                "uint32": "<I", "int64": "<q", "uint64": "<Q", "float32": "<f",
                "float64": "<d", "bool32": "<i", "pointer": "<Q"}
CODECS = {"utf16": ("utf-16-le", 2), "ansi": ("cp1252", 1), "utf8": ("utf-8", 1)}


def plan_bytes(plan, sample, values):
    """The payload bytes of one field from its plan alone (the table of
    docs/json-model.md), given its sample values: numbers, strings, byte
    strings, or the raw bytes of a GUID, time, struct or unknown field."""
    kind, term = plan["kind"], plan["termination"]
    if kind in PLAN_FORMATS:
        return b"".join(struct.pack(PLAN_FORMATS[kind], v) for v in sample)
    if kind in ("guid", "filetime", "systemtime"):
        assert len(sample) % plan["size"] == 0, "%s of %d bytes" % (kind, len(sample))
        return sample
    if kind == "sid":
        for sid in sample:  # its length from its own second byte
            assert len(sid) == 8 + 4 * sid[1], "a SID of %d bytes" % len(sid)
        return b"".join(sample)
    if kind in ("struct", "unknown"):
        return sample
    if kind == "binary" and term != "counted":
        return sample  # as many bytes as length (checked by the header) or the writer gives
    codec, unit = CODECS.get(plan["encoding"], (None, 1))
    length = qty(plan["length"], values)
    out = b""
    for item in sample:
        data = item if kind == "binary" else item.encode(codec)
        if term == "nul":
            out += data + b"\0" * unit
        elif term == "length":
            assert len(data) == length * unit, "%r is not %d long" % (item, length)
            out += data
        else:  # counted: a 16-bit byte count first
            out += struct.pack("<H", len(data)) + data
    return out


def descriptor(p, e):
    """(level, keyword) of the EVENT_DESCRIPTOR."""
    kw = int(e["keywordMask"], 16)
    if e["channel"] and not p["channels"][e["channel"]["index"]]["autoImported"]:
        kw |= 1 << (63 - e["channel"]["index"])
    return (e["level"]["value"] if e["level"] else 0), kw


def enabled(level, kw, session):
    slevel, anyk, allk = session
    if not (level <= slevel or slevel == 0):
        return False
    return kw == 0 or (kw & anyk != 0 and kw & allk == allk)


PROLOGUE = r"""#include <windows.h>
#include <stdio.h>
#include <evntprov.h>
static PENABLECALLBACK cb[64];
static PVOID cbctx[64];
static int ncb;
static ULONG __stdcall fake_register(LPCGUID g, PENABLECALLBACK c, PVOID ctx, PREGHANDLE h)
{
    (void)g;
    cb[ncb] = c;
    cbctx[ncb] = ctx;
    *h = (REGHANDLE)(100 + ncb++);
    return 0;
}
static ULONG __stdcall fake_unregister(REGHANDLE h) { (void)h; return 0; }
static ULONG __stdcall capture(REGHANDLE h, PCEVENT_DESCRIPTOR d, LPCGUID a, LPCGUID r, ULONG n,
                               PEVENT_DATA_DESCRIPTOR data)
{
    ULONG i, k;
    (void)a;
    (void)r;
    printf("W %u %u %u", (unsigned)(h - 100), d->Id, d->Version);
    printf(" ");
    for (i = 1; i < n; i++)
        for (k = 0; k < data[i].Size; k++)
            printf("%02x", ((const unsigned char*)(ULONG_PTR)data[i].Ptr)[k]);
    printf("\n");
    return 0;
}
#define MCGEN_EVENTREGISTER fake_register
#define MCGEN_EVENTUNREGISTER fake_unregister
#define MCGEN_EVENTWRITETRANSFER capture
#include "x.h"
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    args = ap.parse_args()
    mcgen = os.path.abspath(args.mcgen)
    cc = "x86_64-w64-mingw32-gcc"
    if not shutil.which(cc) or not shutil.which("wine"):
        print("skipped: %s or wine not installed (./setup installs them)" % cc)
        print("0 passed, 0 failed, 1 skipped")
        return 0
    passed = failed = skipped = 0
    env = dict(os.environ, WINEDEBUG="-all")
    env.setdefault("WINEPREFIX", os.path.join(tempfile.gettempdir(), "mcgen-wine"))
    for name, path in CASES:
        if not os.path.exists(path):
            print("skipped %s: %s absent" % (name, os.path.relpath(path, ROOT)))
            skipped += 1
            continue
        with tempfile.TemporaryDirectory() as tmp:
            r = subprocess.run([mcgen, "-um", "-z", "x", "-h", tmp, "-r", tmp,
                                "--json=" + os.path.join(tmp, "m.json"), path],
                               capture_output=True, text=True)
            # --json names one output: run again for the mc outputs
            r2 = subprocess.run([mcgen, "-um", "-z", "x", "-h", tmp, "-r", tmp, path],
                                capture_output=True, text=True)
            if r.returncode or r2.returncode:
                print("FAIL %s: mcgen: %s%s" % (name, r.stderr, r2.stderr))
                failed += 1
                continue
            model = json.load(open(os.path.join(tmp, "m.json"), encoding="utf-8"))
            header = open(os.path.join(tmp, "x.h"), encoding="latin-1").read()
            writes = re.findall(r"^#define EventWrite(\w+?)\(([^)]*)\) \\\n\s+\(MCGEN_EVENT_ENABLED\(",
                                header, re.M)
            regs = re.findall(r"^#define (EventRegister\w+)\(\)", header, re.M)
            events = [(pi, p, e) for pi, p in enumerate(model["providers"])
                      for e in p["events"] if not e["notLogged"]]
            if len(writes) != len(events):
                print("FAIL %s: %d EventWrite macros for %d events" % (name, len(writes),
                                                                         len(events)))
                failed += 1
                continue
            body, decls, expect_payload, plan_bad = [], [], [], 0
            for uid, ((sym, params), (pi, p, e)) in enumerate(zip(writes, events)):
                tmpl = next((t for t in p["templates"] if t["tid"] == e["template"]), None)
                fields = tmpl["fields"] if tmpl else []
                s = sample_event(uid, fields)
                # the bytes again, from each field's payload plan alone: the
                # run below compares what the header writes with these
                try:
                    planned = b"".join(plan_bytes(f["payload"], s.samples[i], s.values)
                                       for i, f in enumerate(fields))
                except (AssertionError, struct.error) as err:
                    planned = str(err).encode()
                if planned != s.payload:
                    print("FAIL %s: EventWrite%s: the payload plan gives %s, the inTypes %s"
                          % (name, sym, planned.hex(), s.payload.hex()))
                    failed += 1
                    plan_bad += 1
                nparams = len([x for x in params.split(",") if x.strip()])
                if nparams != len(s.args):
                    print("FAIL %s: EventWrite%s takes %d arguments, the template needs %d"
                          % (name, sym, nparams, len(s.args)))
                    failed += 1
                decls += s.decls
                body.append("    EventWrite%s(%s);" % (sym, ", ".join(s.args)))
                expect_payload.append((pi, e, planned.hex()))
            if not plan_bad:
                passed += 1
                print("PASS %s: every event's payload from its fields' plans alone is the "
                      "inTypes' (%d events)" % (name, len(events)))
            prog = PROLOGUE + "\n".join(decls) + "\nstatic void write_all(void)\n{\n" + \
                "\n".join(body) + "\n}\nint main(void)\n{\n    int i;\n"
            prog += "".join("    %s();\n" % r for r in regs)
            for k, (lvl, anyk, allk) in enumerate(SESSIONS):
                prog += ('    printf("S %d\\n");\n    for (i = 0; i < ncb; i++) cb[i](NULL, 1, '
                         '%d, 0x%xULL, 0x%xULL, NULL, cbctx[i]);\n    write_all();\n'
                         % (k, lvl, anyk, allk))
            prog += ('    printf("S off\\n");\n    for (i = 0; i < ncb; i++) cb[i](NULL, 0, 0, 0, 0, '
                     'NULL, cbctx[i]);\n    write_all();\n')
            prog += "".join("    %s();\n" % r.replace("EventRegister", "EventUnregister", 1)
                            for r in regs)
            prog += "    return 0;\n}\n"
            with open(os.path.join(tmp, "probe.c"), "w") as f:
                f.write(prog)
            c = subprocess.run([cc, "-std=c99", "-Wall", "-Wextra", "-Werror",
                                "-Wno-unused-variable", "probe.c", "-o", "probe.exe",
                                "-ladvapi32"], cwd=tmp, capture_output=True, text=True)
            if c.returncode:
                print("FAIL %s: probe does not compile:\n%s" % (name, c.stderr[:3000]))
                failed += 1
                continue
            w = subprocess.run(["wine", "probe.exe"], cwd=tmp, capture_output=True, text=True,
                               env=env, timeout=600)
            got = {}
            cur = None
            for line in w.stdout.replace("\r", "").splitlines():
                if line.startswith("S "):
                    cur = line[2:]
                    got[cur] = []
                elif line.startswith("W ") and cur is not None:
                    parts = line.split(" ")
                    got[cur].append((int(parts[1]), int(parts[2]), int(parts[3]),
                                     parts[4] if len(parts) > 4 else ""))
            # handles are numbered in registration order, which is provider order
            for k, sess in enumerate(SESSIONS + ["off"]):
                key = "off" if sess == "off" else str(k)
                label = "%s session %s" % (name, "disabled" if sess == "off" else
                                           "level %d any 0x%x all 0x%x" % sess)
                want = []
                for pi, e, payload in expect_payload:
                    if sess == "off":
                        continue
                    level, kw = descriptor(model["providers"][pi], e)
                    if enabled(level, kw, sess):
                        want.append((pi, e["value"], e["version"], payload))
                have = got.get(key, [])
                if have == want:
                    passed += 1
                    print("PASS %s: %d of %d events written, payloads equal" %
                          (label, len(have), len(expect_payload)))
                else:
                    failed += 1
                    diff = next(((a, b) for a, b in zip(have, want) if a != b),
                                (have[len(want):len(want) + 1], want[len(have):len(have) + 1]))
                    print("FAIL %s: %d written, %d expected; first difference: got %s, want %s"
                          % (label, len(have), len(want), diff[0], diff[1]))
    print("%d passed, %d failed%s" % (passed, failed,
                                      ", %d skipped" % skipped if skipped else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
