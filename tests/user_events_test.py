#!/usr/bin/env python3
"""--backends=etw,user_events: what the header would hand the kernel,
captured through its seam and decoded by this test's own EventHeader
reader.

The kernel here lacks CONFIG_USER_EVENTS, so the test replaces what the
header calls (MCGEN_UE_OPEN, MCGEN_UE_IOCTL, MCGEN_UE_WRITEV,
MCGEN_UE_CLOSE, docs/linux.md) with functions that do what the kernel
does and keep a record: DIAG_IOCSREG reads struct user_reg (the kernel's
packed layout: size, enable_bit, enable_size, flags, enable_addr,
name_args, write_index), keeps the command string, sets the enable bit
at enable_addr (as when a session starts recording) and hands back a
write index; writev's iovecs are joined into one event; DIAG_IOCSUNREG
is kept with the address it gives back.

For examples/hello, tests/data/bulk.man, tests/data/linux_types.man and
the golden manifests etk-TypeMangling, etk-Large and etk-wpf-etw (the
set tests/lttng_runtime_test.py runs), the test generates a C program
that registers every provider (and a context of each, for the _ForContext
forms), writes every logged event through each form of its macro
(EventWrite<Event>, _AssumeEnabled, _ForContext, _ForContextAssumeEnabled)
with values made by lttng_runtime_test's generator, then clears every
enable word and calls them all again (only the _AssumeEnabled forms may
write), then unregisters; built with AddressSanitizer and UBSan when gcc
has them, so no write reads past what its caller passed.  The record is read back as the kernel and
a consumer would, from LinuxTracepoints' documentation of EventHeader
(no code of ours or of theirs): the write index names the tracepoint;
the eventheader's flags, version, id, tag, opcode and level; the
extension blocks; the metadata's event name and each field's name,
encoding, format and array count; then the payload, field by field,
into typed values (an integer by its format, a float, a UUID from
RFC 4122's byte order, a time in seconds since 1970, UTF-8 and UTF-16
text, bytes, arrays and structs).  Each must mean what the program
wrote, as docs/linux.md maps the manifest's types.  The registration
strings must be exactly "Provider_L<level hex>K<keyword hex> u8
eventheader_flags; u8 version; u16 id; u16 tag; u8 opcode; u8 level",
one per level and keyword, the keyword the event's EVENT_DESCRIPTOR's
(mc's, as the golden tests check it).

A generated manifest whose metadata would pass the extension's 65,535
bytes (100 integer fields with names of 700 characters) must come without
it (flags 0x03) and be readable by its manifest alone.

Prints one line per manifest, the totals, the encodings decoded, and
"N passed, N failed, N skipped".
"""
import argparse
import ipaddress
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lttng_runtime_test as gen  # noqa: E402  (the value generator)

ROOT = gen.ROOT
CASES = gen.CASES
COMMAND_TYPES = "u8 eventheader_flags; u8 version; u16 id; u16 tag; u8 opcode; u8 level"
# _IOWR('*', 0, struct user_reg *) and _IOW('*', 2, struct user_unreg *)
# on a 64-bit host: direction << 30 | size << 16 | type << 8 | number
IOCSREG = (3 << 30) | (8 << 16) | (ord("*") << 8) | 0
IOCSUNREG = (1 << 30) | (8 << 16) | (ord("*") << 8) | 2
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]


def sanitizers(tmp):
    """SANITIZE when gcc can build with it (the program then also shows
    that no write reads past what the caller passed), else []."""
    src = os.path.join(tmp, "probe.c")
    with open(src, "w") as f:
        f.write("int main(void)\n{\n    return 0;\n}\n")
    r = subprocess.run(["gcc", *SANITIZE, src, "-o", os.path.join(tmp, "probe")], capture_output=True)
    return SANITIZE if r.returncode == 0 else []

SEAM = r"""#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>

/* The kernel's side, recorded: this file's own reading of the ABI. */
static FILE *rec;
static uint32_t *words[4096];
static int nwords;

static int fake_open(const char *path, int flags)
{
    fprintf(rec, "OPEN %s %d\n", path, flags);
    return 42;
}

static int fake_ioctl(int fd, unsigned long request, void *arg)
{
    unsigned char *r = (unsigned char *)arg;
    uint32_t size;
    uint64_t addr, name;
    memcpy(&size, r, 4);
    memcpy(&addr, r + 8, 8);
    if (request == @REG@) {
        uint32_t index = (uint32_t)nwords;
        uint16_t flags;
        memcpy(&name, r + 16, 8);
        memcpy(&flags, r + 6, 2);
        fprintf(rec, "REG %d %u %u %u %u %u %s\n", fd, size, r[4], r[5], flags, index,
                (const char *)(uintptr_t)name);
        words[nwords++] = (uint32_t *)(uintptr_t)addr;
        *(uint32_t *)(uintptr_t)addr |= 1u << r[4];
        memcpy(r + 24, &index, 4);
        return 0;
    }
    if (request != @UNREG@) {
        fprintf(rec, "BAD %lx\n", request);
        return -1;
    }
    for (int i = 0; i < nwords; i++)
        if (words[i] == (uint32_t *)(uintptr_t)addr)
            fprintf(rec, "UNREG %d %u %u %d\n", fd, size, r[4], i);
    return 0;
}

static ssize_t fake_writev(int fd, const struct iovec *v, int n)
{
    ssize_t total = 0;
    fprintf(rec, "W %d ", fd);
    for (int i = 0; i < n; i++)
        for (size_t k = 0; k < v[i].iov_len; k++)
            fprintf(rec, "%02x", ((const unsigned char *)v[i].iov_base)[k]);
    for (int i = 0; i < n; i++)
        total += (ssize_t)v[i].iov_len;
    fprintf(rec, "\n");
    return total;
}

static int fake_close(int fd)
{
    fprintf(rec, "CLOSE %d\n", fd);
    return 0;
}

#define MCGEN_UE_OPEN(path, flags) fake_open(path, flags)
#define MCGEN_UE_IOCTL(fd, request, arg) fake_ioctl(fd, request, arg)
#define MCGEN_UE_WRITEV(fd, iov, count) fake_writev(fd, iov, count)
#define MCGEN_UE_CLOSE(fd) fake_close(fd)
#define MCGEN_ENABLE_FORCONTEXT_CODE_GENERATION 1
#include "x.h"

@CONTEXTS@static void write_all(void)
{
@CALLS@}

int main(int argc, char **argv)
{
    (void)argc;
    rec = fopen(argv[1], "w");
@REGISTER@    write_all();
    fprintf(rec, "PHASE disabled\n");
    for (int i = 0; i < nwords; i++)
        *words[i] = 0;
    write_all();
@UNREGISTER@    fclose(rec);
    return 0;
}
"""


# ---- EventHeader, read from its documentation ----

class Reader:
    def __init__(self, data):
        self.d, self.p = data, 0

    def take(self, n):
        if self.p + n > len(self.d):
            raise ValueError("%d bytes wanted at %d of %d" % (n, self.p, len(self.d)))
        b = self.d[self.p:self.p + n]
        self.p += n
        return b

    def u8(self):
        return self.take(1)[0]

    def u16(self):
        return struct.unpack("<H", self.take(2))[0]

    def cstr(self):
        end = self.d.index(b"\0", self.p)
        s = self.d[self.p:end].decode("utf-8")
        self.p = end + 1
        return s


def read_defs(r, n=None):
    """Field definitions of the metadata: [{name, enc, fmt, array, count,
    members}] (n of them, or to the end)."""
    out = []
    while (n is None and r.p < len(r.d)) or (n is not None and len(out) < n):
        f = {"name": r.cstr()}
        enc = r.u8()
        fmt = r.u8() if enc & 0x80 else 0
        if fmt & 0x80:
            f["tag"] = r.u16()
        f["enc"], f["fmt"] = enc & 0x1F, fmt & 0x7F
        f["array"] = "c" if enc & 0x20 else "v" if enc & 0x40 else ""
        if enc & 0x60 == 0x60:
            raise ValueError("field %s: both array flags" % f["name"])
        f["count"] = r.u16() if enc & 0x20 else None
        if f["enc"] == 1:  # struct: the next fmt fields
            if not f["fmt"]:
                raise ValueError("empty struct %s" % f["name"])
            f["members"] = read_defs(r, f["fmt"])
        out.append(f)
    return out


ENCODINGS = {1: "struct", 2: "value8", 3: "value16", 4: "value32", 5: "value64", 6: "value128",
             7: "zstring_char8", 8: "zstring_char16", 10: "string_length16_char8",
             11: "string_length16_char16", 13: "binary_length16_char8"}
SEEN = {}  # "encoding[array]" -> fields decoded with it, for the summary


def seen(f):
    key = ENCODINGS.get(f["enc"], str(f["enc"])) + {"c": "[N]", "v": "[n]", "": ""}[f["array"]]
    SEEN[key] = SEEN.get(key, 0) + 1
    for m in f.get("members", []):
        seen(m)


INT_FORMATS = {0: "unsigned", 1: "unsigned", 2: "signed", 3: "hex", 5: "pid", 7: "bool"}


def read_value(r, f):
    """One element of field definition f, typed: (kind, value)."""
    enc, fmt = f["enc"], f["fmt"]
    if enc == 1:
        return ("struct", [(m["name"], read_field(r, m)) for m in f["members"]])
    if 2 <= enc <= 5:
        size = 1 << (enc - 2)
        raw = r.take(size)
        if fmt == 8 and size in (4, 8):
            return ("float", struct.unpack("<f" if size == 4 else "<d", raw)[0])
        if fmt == 6:
            return ("time", int.from_bytes(raw, "little", signed=True))
        if fmt == 16 and size == 2:
            return ("port", int.from_bytes(raw, "big"))
        if fmt == 17 and size == 4:
            return ("ip", ipaddress.IPv4Address(raw))
        kind = INT_FORMATS.get(fmt, "unsigned")
        return ("bool" if kind == "bool" else "hex" if kind == "hex" else "int",
                int.from_bytes(raw, "little", signed=kind == "signed"))
    if enc == 6:
        raw = r.take(16)
        if fmt == 15:
            return ("uuid", uuid.UUID(bytes=raw))
        if fmt == 17:
            return ("ip", ipaddress.IPv6Address(raw))
        return ("bytes", raw)
    if enc in (7, 8):  # zero-terminated char8, char16
        unit = 1 if enc == 7 else 2
        units = []
        while True:
            u = r.take(unit)
            if u == b"\0" * unit:
                break
            units.append(u)
        raw = b"".join(units)
        return ("str", raw.decode("utf-8" if unit == 1 else "utf-16-le", "surrogatepass"))
    if enc in (10, 11, 13):  # u16 length, then length units
        unit = 2 if enc == 11 else 1
        raw = r.take(unit * r.u16())
        if enc == 13 or fmt == 9:
            if fmt == 17 and len(raw) in (4, 16):
                return ("ip", ipaddress.ip_address(raw))
            return ("bytes", raw)
        return ("str", raw.decode("utf-8" if unit == 1 else "utf-16-le", "surrogatepass"))
    raise ValueError("field %s: encoding %d" % (f["name"], enc))


def read_field(r, f):
    if not f["array"]:
        return read_value(r, f)
    n = f["count"] if f["array"] == "c" else r.u16()
    return ("list", [read_value(r, f) for _ in range(n)])


def decode(data, tracepoints, manifest_defs=None):
    """An event's bytes as written: {tracepoint, header fields, name,
    fields: [(def, value)]}.  Without a metadata extension the payload is
    read with manifest_defs (a manifest-decoded event: the consumer finds
    the layout by provider, id and version), and the name is None."""
    r = Reader(data)
    index = struct.unpack("<I", r.take(4))[0]
    ev = {"tracepoint": tracepoints.get(index)}
    ev["flags"], ev["version"], ev["id"], ev["tag"], ev["opcode"], ev["level"] = \
        struct.unpack("<BBHHBB", r.take(8))
    meta = None
    if ev["flags"] & 0x04:
        while True:
            size, kind = struct.unpack("<HH", r.take(4))
            body = r.take(size)
            if kind & 0x7FFF == 1:
                meta = body
            if not kind & 0x8000:
                break
    if meta is None and manifest_defs is None:
        raise ValueError("no metadata extension")
    if meta is None:
        ev["name"], defs = None, manifest_defs
    else:
        m = Reader(meta)
        ev["name"] = m.cstr()
        defs = read_defs(m)
    ev["fields"] = [(f, read_field(r, f)) for f in defs]
    if r.p != len(data):
        raise ValueError("%d payload bytes left after the last field" % (len(data) - r.p))
    return ev


def manifest_layout(fields):
    """The definitions a template of integers only has (value8..64,
    signed or unsigned by inType), or None."""
    defs = []
    for i, f in enumerate(fields):
        t = (f.get("inType") or "").split(":")[-1] if f["kind"] == "data" else ""
        if t not in gen.INTS or t.startswith("Hex") or t == "Boolean" or f.get("count") or f.get("map"):
            return None
        defs.append({"name": (f["name"] or "Field%d" % i).replace(";", "_"),
                     "enc": {1: 2, 2: 3, 4: 4, 8: 5}[gen.SIZES[t]],
                     "fmt": 2 if t in gen.SIGNED else 1, "array": "", "count": None})
    return defs


# ---- what each field must mean (docs/linux.md's table) ----

def flat(v):
    """A typed value with its kinds kept but lists and structs opened."""
    kind, x = v
    if kind == "list":
        return [flat(e) for e in x]
    if kind == "struct":
        return [flat(e) for _, e in x]
    return v


def to_float(bits, t):
    return struct.unpack("<f" if t == "Float" else "<d",
                         struct.pack("<I" if t == "Float" else "<Q", bits))[0]


def scalar_expect(t, v, got_kind):
    """The typed value an element of inType t the program wrote as v
    (the generator's form) must read back as."""
    if t in ("Float", "Double"):
        return ("float", v)
    if t == "Boolean" or got_kind == "bool":
        return ("bool", v)
    if got_kind == "hex":  # shown as its bits: unsigned
        return ("hex", v % (1 << (8 * gen.SIZES.get(t, 8))))
    if got_kind == "port":  # network byte order: the in-memory bytes, big-endian
        return ("port", int.from_bytes((v % 65536).to_bytes(2, "little"), "big"))
    if got_kind == "ip":
        return ("ip", ipaddress.IPv4Address((v % (1 << 32)).to_bytes(4, "little")))
    return ("int", v)


def same(want, got):
    if isinstance(want, list):
        return isinstance(got, list) and len(want) == len(got) and all(
            same(a, b) for a, b in zip(want, got))
    if want[0] == "float" and got[0] == "float":
        return abs(want[1] - got[1]) <= 1e-4 * max(1, abs(want[1]))
    return want == got


def expect(f, i, want, got):
    """What manifest field f (index i) must read back as, from the
    generator's expectation (want: its LTTng-form dictionary) and the
    decoded value (for its shape only where the form allows two)."""
    name = gen.ident(f["name"], i)
    t = (f.get("inType") or "").split(":")[-1] if f["kind"] == "data" else "struct"
    if t == "struct" and name not in want:  # member by member
        out = []
        for k, m in enumerate(f["members"]):
            mt = m["inType"].split(":")[-1]
            w = want[name + "_" + gen.ident(m["name"], k)]
            out.append(member_expect(mt, w))
        return out
    w = want[name]
    if isinstance(w, tuple) and w[0] == "enum":
        w = w[2]
    if t == "GUID":
        items = [("uuid", uuid.UUID(bytes_le=bytes(w[k:k + 16]))) for k in range(0, len(w), 16)]
        return items if got[0] == "list" else items[0]
    if t == "FILETIME":
        secs = [("time", x // 10 ** 7 - 11644473600) for x in (w if isinstance(w, list) else [w])]
        return secs if got[0] == "list" else secs[0]
    if t == "SYSTEMTIME":
        items = [[("int", x) for x in w[k:k + 8]] for k in range(0, len(w), 8)]
        return items if got[0] == "list" else items[0]
    if t == "SID" or t in ("Binary", "CountedBinary") or (t == "struct"):
        if got[0] == "ip":
            return ("ip", ipaddress.ip_address(bytes(w)))
        return ("bytes", bytes(w))
    if t in ("UnicodeString", "AnsiString", "CountedUnicodeString", "CountedAnsiString"):
        if isinstance(w, list):  # packed: NUL-terminated strings' UTF-8 bytes
            if got[0] == "list":
                return [("str", s) for s in bytes(w).decode().split("\0")[:-1]]
            return ("bytes", bytes(w))
        return ("str", w)
    if t == "Pointer":
        return [("hex", x) for x in w] if isinstance(w, list) else ("hex", w)
    if isinstance(w, list):
        kind = got[1][0][0] if got[0] == "list" and got[1] else "int"
        if t in ("Float", "Double"):
            w = [to_float(x, t) for x in w]
        return [scalar_expect(t, x, kind) for x in w]
    return scalar_expect(t, w, got[0])


def member_expect(mt, w):
    if mt == "GUID":
        return ("uuid", uuid.UUID(bytes_le=bytes(w)))
    if mt == "FILETIME":
        return ("time", w // 10 ** 7 - 11644473600)
    if mt == "SYSTEMTIME":
        return [("int", x) for x in w]
    return scalar_expect(mt, w, "int")


# ---- a manifest ----

def descriptors(text):
    """{symbol: (id, version, channel, level, opcode, task, keyword)} of
    the header's EVENT_DESCRIPTORs (mc's values)."""
    out = {}
    for sym, body in re.findall(r"EVENT_DESCRIPTOR (\w+) = \{([^}]*)\};", text):
        out.setdefault(sym, tuple(int(x.strip(), 0) for x in body.split(",")))
    return out


def run_case(mcgen, name, path, tmp, sanitize):
    """(events, fields compared, equal, tracepoints, failures[])."""
    d = os.path.join(tmp, re.sub(r"\W", "_", name))
    os.makedirs(d)
    subprocess.run([mcgen, "-um", "--backends=etw,user_events", "-z", "x", "-h", d, "-r", d, path],
                   check=True, capture_output=True)
    model = json.loads(subprocess.run([mcgen, "--json=-", path], capture_output=True, check=True,
                                      text=True).stdout)
    text = open(os.path.join(d, "x.h"), encoding="utf-8").read().replace("\r", "")
    desc = descriptors(text)
    part = text[text.index("#else /* !_WIN32"):]
    regs = sorted({m for m in re.findall(r"^#define (EventRegister\w+)\(\) ", part, re.M)
                   if "ByGuid" not in m})
    calls, planned, err = gen.plan_calls(part, model)
    if err:
        return 0, 0, 0, 0, [err]
    expected = [(pv, ev, fields, want,
                 fn[len("McGenLinux_" + re.sub(r"[^A-Za-z0-9_]", "_", pv["name"]) + "_"):])
                for pv, ev, fields, want, fn in planned
                for _ in gen.FORMS]  # each event once through each form of its macro
    decls, setup, teardown = gen.contexts(part)
    src = os.path.join(d, "main.c")
    with open(src, "w") as f:
        f.write(SEAM.replace("@REG@", "0x%XUL" % IOCSREG).replace("@UNREG@", "0x%XUL" % IOCSUNREG).replace("@CALLS@", "".join(calls))
                .replace("@CONTEXTS@", decls)
                .replace("@REGISTER@", "".join("    %s();\n" % r for r in regs) + setup)
                .replace("@UNREGISTER@", teardown + "".join("    EventUnregister%s();\n" % r[len("EventRegister"):]
                                                            for r in regs)))
    exe = os.path.join(d, "p")
    r = subprocess.run(["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-Wno-overflow", *sanitize,
                        "-DMCGEN_BACKEND_USER_EVENTS", "-I", d, src, "-o", exe],
                       capture_output=True, text=True)
    if r.returncode:
        return len(expected), 0, 0, 0, ["the program does not build:\n" + r.stderr[:3000]]
    record = os.path.join(d, "record")
    run = subprocess.run([exe, record], capture_output=True, text=True)
    if run.returncode:
        return len(expected), 0, 0, 0, ["the program exits %d: %s" % (run.returncode, run.stderr[:500])]
    providers = len({pv["name"] for pv, _, _, _, _ in planned})
    # the _AssumeEnabled forms write whatever the enable bits say, as on Windows
    assumed = len(planned) * sum("AssumeEnabled" in form for form in gen.FORMS)
    return check_record(open(record).read().splitlines(), expected, desc, providers, assumed)


def check_record(lines, expected, desc, providers, assumed):
    """(events, fields compared, equal, tracepoints, failures[]) of the
    record: providers (those with a logged event) each open the file
    once, register, and give back every tracepoint and close; with the
    enable bits clear, only the assumed writes (the _AssumeEnabled forms')
    come."""
    fails = []
    tracepoints, writes, disabled, unregs, opens, closes = {}, [], [], [], [], []
    phase = writes
    for line in lines:
        kind, _, rest = line.partition(" ")
        if kind == "OPEN":
            opens.append(rest)
        elif kind == "REG":
            fd, size, bit, esize, flags, index, command = rest.split(" ", 6)
            if (size, esize, flags) != ("28", "4", "0") or int(bit) > 31:
                fails.append("user_reg: size %s, enable_bit %s, enable_size %s, flags %s" % (
                    size, bit, esize, flags))
            tracepoints[int(index)] = command
        elif kind == "W":
            phase.append(bytes.fromhex(line.split(" ", 2)[2]))
        elif kind == "PHASE":
            phase = disabled
        elif kind == "UNREG":
            fd, size, bit, index = rest.split()
            if (size, bit) != ("16", "0"):
                fails.append("user_unreg: size %s, disable_bit %s" % (size, bit))
            unregs.append(int(index))
        elif kind == "CLOSE":
            closes.append(rest)
        elif kind == "BAD":
            fails.append("ioctl request 0x%s: neither DIAG_IOCSREG nor DIAG_IOCSUNREG" % rest)
    if len(opens) != providers or any(not o.startswith("/sys/kernel/tracing/user_events_data ")
                                      for o in opens):
        fails.append("opened %s for %d providers" % (opens, providers))
    if sorted(unregs) != sorted(tracepoints) or len(closes) != providers:
        fails.append("unregistered %s of %s, closed %d" % (sorted(unregs), sorted(tracepoints), len(closes)))
    if len(disabled) != assumed:
        fails.append("%d events written with every enable bit clear, not %d (the _AssumeEnabled forms')"
                     % (len(disabled), assumed))
    # the registration strings, from the model and mc's descriptors
    names = {}
    for pv, ev, _, _, sym in expected:
        dsc = desc[sym]
        names[sym] = "%s_L%xK%x" % (re.sub(r"[^A-Za-z0-9_]", "_", pv["name"]), dsc[3], dsc[6])
    want_commands = sorted({n + " " + COMMAND_TYPES for n in names.values()})
    if sorted(tracepoints.values()) != want_commands:
        fails.append("registered %s, the spec's strings are %s" % (
            sorted(tracepoints.values())[:4], want_commands[:4]))
    compared = equal = 0
    if len(writes) != len(expected):
        fails.append("%d events written, %d expected" % (len(writes), len(expected)))
    for data, (pv, ev, fields, want, sym) in zip(writes, expected):
        plain = manifest_layout(fields)
        # the metadata extension holds 65,535 bytes: a larger one is left
        # out (a template of integers here measures it)
        bare = plain is not None and len(sym) + 1 + sum(
            len(d["name"].encode()) + 3 for d in plain) > 65535
        try:
            got = decode(data, tracepoints, plain if bare else None)
        except (ValueError, IndexError, UnicodeDecodeError) as e:
            fails.append("%s: cannot decode: %s" % (sym, e))
            compared += len(fields)
            continue
        head = (got["tracepoint"], got["flags"], got["version"], got["id"], got["tag"],
                got["opcode"], got["level"], got["name"])
        wanted = (names[sym] + " " + COMMAND_TYPES, 0x03 if bare else 0x07, ev["version"],
                  ev["value"], (ev.get("task") or {}).get("value", 0),
                  (ev.get("opcode") or {}).get("value", 0), (ev.get("level") or {}).get("value", 0),
                  None if bare else sym)
        if head != wanted:
            fails.append("%s: header %s, want %s" % (sym, head, wanted))
        if len(got["fields"]) != len(fields):
            fails.append("%s: %d fields in the metadata, %d in the template" % (
                sym, len(got["fields"]), len(fields)))
        for i, (f, (fd, value)) in enumerate(zip(fields, got["fields"])):
            seen(fd)
            fname = (f["name"] or "Field%d" % i).replace(";", "_")
            try:
                w = expect(f, i, want, value)
            except (KeyError, ValueError) as e:
                fails.append("%s field %s: no expectation (%s)" % (sym, fname, e))
                compared += 1
                continue
            # a struct member by member: each member a field (as LTTng's)
            parts = [(fname, fd, w, value)]
            if f["kind"] == "struct" and fd["enc"] == 1 and not fd["array"]:
                if fd["name"] != fname:
                    fails.append("%s: struct %r named %r" % (sym, fname, fd["name"]))
                parts = [(fname + "." + md["name"], md, mw, mv)
                         for md, mw, (_, mv) in zip(fd["members"], w, value[1])]
                mnames = [(m["name"] or "Field%d" % k).replace(";", "_") for k, m in enumerate(f["members"])]
                if [md["name"] for md in fd["members"]] != mnames:
                    fails.append("%s: struct %r members %s, want %s" % (
                        sym, fname, [md["name"] for md in fd["members"]], mnames))
            for pname, pd, pw, pv in parts:
                compared += 1
                if (pd is not fd or pd["name"] == fname) and same(pw, flat(pv)):
                    equal += 1
                else:
                    fails.append("%s field %r (encoding %d, format %d): wrote %r, decoded %r as %r" % (
                        sym, pname, pd["enc"], pd["fmt"], pw, pd["name"], flat(pv)))
    return len(writes), compared, equal, len(tracepoints), fails


BIG = """<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
 <instrumentation><events>
  <provider name="Mcgen-Test-BigMetadata" guid="{5D0C6B53-7F43-4E36-9B0C-3A4E7E3A1F10}"
      symbol="BIGMETA" resourceFileName="a.dll" messageFileName="a.dll">
   <templates><template tid="Wide">
%s   </template></templates>
   <events>
    <event value="1" version="2" symbol="WideEvent" template="Wide" level="win:Warning"/>
    <event value="2" symbol="NarrowEvent" level="win:Informational"/>
   </events>
  </provider>
 </events></instrumentation>
</instrumentationManifest>
"""


def big_manifest(tmp):
    """A template whose metadata would pass 65,535 bytes: 100 integer
    fields with names of 700 characters."""
    path = os.path.join(tmp, "bigmeta.man")
    types = ("UInt32", "Int16", "UInt64", "Int8")
    with open(path, "w") as f:
        f.write(BIG % "".join('    <data name="F%03d_%s" inType="win:%s"/>\n' % (i, "x" * 700, types[i % 4])
                              for i in range(100)))
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    args = ap.parse_args()
    mcgen = os.path.abspath(args.mcgen)
    if not shutil.which("gcc"):
        print("skipped: gcc not installed")
        print("0 passed, 0 failed, 1 skipped")
        return 0
    if struct.calcsize("P") != 8 or sys.byteorder != "little":
        print("skipped: the record's reader expects a 64-bit little-endian host")
        print("0 passed, 0 failed, 1 skipped")
        return 0
    passed = failed = skipped = 0
    totals = [0, 0, 0, 0]
    with tempfile.TemporaryDirectory() as tmp:
        sanitize = sanitizers(tmp)
        print("the programs built %s" % ("with AddressSanitizer and UBSan" if sanitize else
                                         "without sanitizers (gcc cannot link them here)"))
        for name, path in CASES + [("generated: 100 fields of 700-character names (no metadata)",
                                    big_manifest(tmp))]:
            if not os.path.exists(path):
                print("skipped %s: not found" % name)
                skipped += 1
                continue
            n, compared, equal, ntp, fails = run_case(mcgen, name, path, tmp, sanitize)
            for k, x in enumerate((n, compared, equal, ntp)):
                totals[k] += x
            ok = not fails and n > 0
            print("%s %s: %d events on %d tracepoints, %d fields decoded, %d equal" % (
                "PASS" if ok else "FAIL", name, n, ntp, compared, equal))
            for f in fails[:20]:
                print("    " + f)
            passed += ok
            failed += not ok
    print("in all: %d events on %d tracepoints, %d of %d fields equal" % (
        totals[0], totals[3], totals[2], totals[1]))
    print("encodings decoded: %s" % ", ".join("%s %d" % kv for kv in sorted(SEEN.items())))
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
