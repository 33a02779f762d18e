#!/usr/bin/env python3
"""--dotnet's C# classes at run time, under Mono.

For examples/hello, tests/data/bulk.man and linux_types.man, the
Windows-classic-samples AdvancedProvider and the golden etk-TypeMangling,
etk-Large and etk-wpf-etw manifests, the test renders the --dotnet class of
every provider and compiles it with Mono's mcs (-unsafe, warnings as
errors) together with a generated program that registers every provider,
then, for several sessions (level, MatchAnyKeyword, MatchAllKeyword) and
finally none, calls every event's Write<Event> method with sample values.

advapi32.dll is a native shim built here with gcc (libadvapi32shim.so;
Mono's dllmap in the program's .exe.config maps "advapi32.dll" to it): it
exports EventRegister, EventUnregister, EventEnabled, EventProviderEnabled
and EventWriteTransfer with the Windows signatures (64-bit), calls the
registered enable callbacks when the program opens a session, and records
every EventWriteTransfer: the provider GUID, the EVENT_DESCRIPTOR and the
bytes of each EVENT_DATA_DESCRIPTOR.

The test computes from the manifest (mcgen --json), independently of the C#
code, which events ETW's rule lets through for each session, their
descriptors and the bytes each payload descriptor must carry (the C
header's layout: tests/runtime_test.py's values and rules), and compares
them with what the shim recorded; it also compares Is<Event>EnabledByEtw()
(advapi32's EventEnabled) with the rule.

mc's -cs and -css classes (which need .NET Framework's EventProvider, that
Mono lacks) are compiled with a stub of that API (EVENTING_STUB) for
hello and Windows-classic-samples' two C# provider manifests, whose every
type mc's C# is known to write, and run: each event's descriptor and
payload bytes are compared with the manifest's in the same way.

Prints one line per manifest and "N passed, N failed"; says "skipped" when
mcs, mono or gcc is missing (the corpus manifests are skipped when the
corpus is absent).
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
import runtime_test  # noqa: E402  the sessions, sample values and ETW's rule

ROOT = runtime_test.ROOT
CORPUS = runtime_test.CORPUS
CASES = runtime_test.CASES + [
    ("linux_types", os.path.join(ROOT, "tests", "data", "linux_types.man")),
    ("etk-wpf-etw", os.path.join(CORPUS, "golden", "etk-wpf-etw", "input.man")),
]
SESSIONS = runtime_test.SESSIONS
# -cs/-css: the manifests whose every type mc's C# is known to write
SAMPLES = os.path.join(CORPUS, "manifests", "microsoft-Windows-classic-samples")
MC_CASES = [
    ("hello", os.path.join(ROOT, "examples", "hello", "hello.man")),
    ("SimpleProvider-CSharp", os.path.join(SAMPLES,
                                           "Eventing_Provider_Simple_CSharp_SimpleProvider.man")),
    ("AdvancedProvider-CSharp",
     os.path.join(SAMPLES, "Eventing_Provider_Advanced_CSharp_AdvancedProvider.man")),
]
CS_TYPES = {"Int8": "sbyte", "UInt8": "byte", "Int16": "short", "UInt16": "ushort",
            "Int32": "int", "UInt32": "uint", "HexInt32": "int", "Int64": "long",
            "UInt64": "ulong", "HexInt64": "long", "Float": "float", "Double": "double",
            "Boolean": "bool", "Pointer": "IntPtr"}

SHIM = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
typedef struct { uint32_t d1; uint16_t d2, d3; uint8_t d4[8]; } GUID;
typedef struct { uint16_t Id; uint8_t Version, Channel, Level, Opcode; uint16_t Task;
                 uint64_t Keyword; } EVENT_DESCRIPTOR;
typedef struct { uint64_t Ptr; uint32_t Size, Reserved; } EVENT_DATA_DESCRIPTOR;
typedef void (*ENABLECALLBACK)(const GUID *, uint32_t, uint8_t, uint64_t, uint64_t, void *,
                               void *);
static ENABLECALLBACK cbs[64];
static void *ctxs[64];
static GUID guids[64];
static int n, on;
static uint8_t level;
static uint64_t any, all;
static FILE *f;

static FILE *out(void)
{
    if (!f && !(f = fopen(getenv("SHIM_LOG"), "w")))
        abort();
    return f;
}

static void guid(const GUID *g)
{
    fprintf(out(), "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x", g->d1, g->d2, g->d3,
            g->d4[0], g->d4[1], g->d4[2], g->d4[3], g->d4[4], g->d4[5], g->d4[6], g->d4[7]);
}

static int rule(uint8_t l, uint64_t k)
{
    return on && (l <= level || level == 0) && (k == 0 || ((k & any) && (k & all) == all));
}

uint32_t EventRegister(const GUID *g, ENABLECALLBACK cb, void *ctx, uint64_t *h)
{
    if (n == 64)
        return 8;
    guids[n] = *g, cbs[n] = cb, ctxs[n] = ctx;
    *h = 100 + (uint64_t)n++;
    return 0;
}

uint32_t EventUnregister(uint64_t h)
{
    cbs[h - 100] = NULL;
    fprintf(out(), "U %d\n", (int)(h - 100));
    return 0;
}

uint8_t EventEnabled(uint64_t h, const EVENT_DESCRIPTOR *d)
{
    return h >= 100 && cbs[h - 100] && rule(d->Level, d->Keyword);
}

uint8_t EventProviderEnabled(uint64_t h, uint8_t l, uint64_t k)
{
    return h >= 100 && cbs[h - 100] && rule(l, k);
}

uint32_t EventWriteTransfer(uint64_t h, const EVENT_DESCRIPTOR *d, const GUID *a, const GUID *r,
                            uint32_t count, const EVENT_DATA_DESCRIPTOR *data)
{
    fprintf(out(), "W %d ", (int)(h - 100));
    guid(&guids[h - 100]);
    fprintf(out(), " %u %u %u %u %u %u %llx %d%d", d->Id, d->Version, d->Channel, d->Level,
            d->Opcode, d->Task, (unsigned long long)d->Keyword, a != NULL, r != NULL);
    for (uint32_t i = 0; i < count; i++) {
        fputc(' ', out());
        fputc('=', out());
        for (uint32_t k = 0; k < data[i].Size; k++)
            fprintf(out(), "%02x", ((const unsigned char *)(uintptr_t)data[i].Ptr)[k]);
    }
    fputc('\n', out());
    return 0;
}

/* the program opens a session: every registered provider's callback */
void ShimSession(const char *label, uint32_t enabled, uint8_t l, uint64_t a, uint64_t b)
{
    fprintf(out(), "S %s\n", label);
    fflush(out());
    on = enabled != 0, level = l, any = a, all = b;
    for (int i = 0; i < n; i++)
        if (cbs[i])
            cbs[i](&guids[i], enabled, l, a, b, NULL, ctxs[i]);
}

void ShimLog(const char *line)
{
    fprintf(out(), "%s\n", line);
    fflush(out());
}
"""


# Mono has no System.Diagnostics.Eventing (.NET Framework's System.Core):
# the part of it mc's C# calls, as its documentation describes it, records
# each write instead of calling ETW.  WriteEvent(string) writes the string
# and a NUL when the provider is enabled, as .NET Framework's does.
EVENTING_STUB = r"""
using System;
using System.Text;
namespace System.Diagnostics.Eventing
{
    public struct EventDescriptor
    {
        public EventDescriptor(int id, byte version, byte channel, byte level, byte opcode,
                               int task, long keywords)
        {
            EventId = id; Version = version; Channel = channel; Level = level; Opcode = opcode;
            Task = task; Keywords = keywords;
        }
        public int EventId { get; private set; }
        public byte Version { get; private set; }
        public byte Channel { get; private set; }
        public byte Level { get; private set; }
        public byte Opcode { get; private set; }
        public int Task { get; private set; }
        public long Keywords { get; private set; }
    }

    public class EventProvider : IDisposable
    {
        public static bool Enabled;
        readonly Guid id;

        public EventProvider(Guid providerGuid) { id = providerGuid; }
        public bool IsEnabled() { return Enabled; }
        public bool IsEnabled(byte level, long keywords) { return Enabled; }
        public virtual void Dispose() { Dispose(true); }
        protected virtual void Dispose(bool disposing) { }

        StringBuilder Head(ref EventDescriptor d)
        {
            var b = new StringBuilder();
            b.AppendFormat("W {0} {1} {2} {3} {4} {5} {6} {7:x}", id, d.EventId, d.Version,
                           d.Channel, d.Level, d.Opcode, d.Task, d.Keywords);
            return b;
        }

        public bool WriteEvent(ref EventDescriptor d, string data)
        {
            if (!IsEnabled(d.Level, d.Keywords))
                return true;
            var b = Head(ref d).Append(" =");
            foreach (byte x in Encoding.Unicode.GetBytes(data + "\0"))
                b.Append(x.ToString("x2"));
            Console.WriteLine(b);
            return true;
        }

        protected unsafe bool WriteEvent(ref EventDescriptor d, int dataCount, IntPtr data)
        {
            var b = Head(ref d);
            byte* p = (byte*)data;
            for (int i = 0; i < dataCount; i++, p += 16) {
                byte* at = (byte*)*(ulong*)p;
                uint size = *(uint*)(p + 8);
                b.Append(" =");
                for (uint k = 0; k < size; k++)
                    b.Append(at[k].ToString("x2"));
            }
            Console.WriteLine(b);
            return true;
        }
    }
}
"""


def cs_bytes(data):
    return "new byte[] {%s}" % ", ".join("%d" % b for b in data)


def cs_string(text):
    return '"%s"' % "".join(c if 0x20 <= ord(c) < 0x7F and c not in '"\\' else "\\u%04x" % ord(c)
                            for c in text)


def cs_scalar(t, v):
    """A C# literal of the inType t."""
    ty = CS_TYPES[t]
    if t == "Boolean":
        return "true" if v else "false"
    if t == "Pointer":
        return "new IntPtr(0x%x)" % v
    if t == "Float":
        return "%rf" % v
    if t == "Double":
        return "%r" % v
    return "unchecked((%s)%d%s)" % (ty, v, "UL" if v >= (1 << 63) else "L")


class Sample:
    """The C# arguments of one event and the bytes of each payload descriptor."""

    def __init__(self, cls):
        self.cls = cls
        self.args = []
        self.pieces = []


def sample_event(cls, fields, mc=False):
    """Arguments and expected payload pieces for a template's top-level fields
    (the values of runtime_test.sample_event, the C header's layout); mc:
    as mc's -cs class takes them (a FILETIME as DateTime, a SID as
    SecurityIdentifier)."""
    s = Sample(cls)
    values = {}
    referenced = runtime_test.referenced_fields(fields)
    for i, f in enumerate(fields):
        t, count, length = runtime_test.shape(f, values)
        n = count or 1
        if t in runtime_test.FIXED:
            _, fmt, v = runtime_test.FIXED[t]
            if i in referenced:
                v = 2 if t not in ("Float", "Double") else v
            values[i] = v
            if count is None:
                s.args.append(cs_scalar(t, v))
                s.pieces.append(struct.pack(fmt, v))
            else:
                s.args.append("new %s[] {%s}" % (CS_TYPES[t], ", ".join([cs_scalar(t, v)] * n)))
                s.pieces.append(struct.pack(fmt, v) * n)
        elif t in runtime_test.BYREF:
            one = bytes(range(1, runtime_test.BYREF[t] + 1))
            if t == "GUID":
                arg = "new Guid(%s)" % cs_bytes(one)
            elif t == "FILETIME":
                arg = "0x%xL" % struct.unpack("<q", one)[0]
                if mc:
                    arg = "DateTime.FromFileTimeUtc(%s)" % arg
            else:
                words = struct.unpack("<8H", one)
                arg = ("new %s.SystemTime { Year = %d, Month = %d, DayOfWeek = %d, Day = %d, "
                       "Hour = %d, Minute = %d, Second = %d, Milliseconds = %d }"
                       % ((cls,) + words))
            if count is None:
                s.args.append(arg)
            else:
                ty = {"GUID": "Guid", "FILETIME": "long"}.get(t, cls + ".SystemTime")
                s.args.append("new %s[] {%s}" % (ty, ", ".join([arg] * n)))
            s.pieces.append(one * n)
        elif t == "SID":
            s.args.append("new System.Security.Principal.SecurityIdentifier(%s, 0)"
                          % cs_bytes(runtime_test.SID) if mc else cs_bytes(runtime_test.SID * n))
            s.pieces.append(runtime_test.SID * n)
        elif t in ("UnicodeString", "AnsiString", "Binary"):
            unicode = t == "UnicodeString"

            def arg(text):
                return cs_string(text) if unicode else cs_bytes(text.encode("latin-1"))
            enc = (lambda x: x.encode("utf-16-le")) if unicode else (lambda x: x.encode())
            if count is None and length is None and t != "Binary":
                # a nul-terminated string: "abc", sent as a string
                s.args.append(cs_string("abc"))
                s.pieces.append(enc("abc\0"))
            elif count is not None and length is None or (t == "Binary" and length is None):
                # a blob of strings one after another, or of binary
                text = "a\0bb\0" if t != "Binary" else "\x09\x08\x07"
                s.args.append(arg(text))
                s.pieces.append(enc(text) if t != "Binary" else text.encode("latin-1"))
            else:
                text = "".join(chr(0x41 + k % 26) for k in range(n * length))
                s.args.append(arg(text))
                s.pieces.append(enc(text))
        elif t in ("CountedUnicodeString", "CountedAnsiString", "CountedBinary"):
            unicode = t == "CountedUnicodeString"
            if count is None:
                data = "xyz".encode("utf-16-le" if unicode else "ascii")
                s.args.append(cs_string("xyz") if unicode else cs_bytes(data))
                s.pieces += [struct.pack("<H", len(data)), data]
            else:
                item = "q".encode("utf-16-le" if unicode else "ascii")
                data = (struct.pack("<H", len(item)) + item) * n
                s.args.append(cs_bytes(data))
                s.pieces.append(data)
        else:  # a struct, or an unknown inType: the caller's packed bytes
            data = bytes([0x5A, 0xA5, 0x11, 0x22]) * n
            s.args.append(cs_bytes(data))
            s.pieces.append(data)
    return s


PROGRAM = r"""
using System;
using System.Runtime.InteropServices;

static class Prober
{
    [DllImport("advapi32.dll")]
    static extern void ShimSession(string label, uint enabled, byte level, ulong any, ulong all);
    [DllImport("advapi32.dll")]
    static extern void ShimLog(string line);

    static int bad;

    static void Check(uint status, string what)
    {
        if (status != 0) {
            ShimLog("X " + what + " returned " + status);
            bad++;
        }
    }

    static void Ask(bool etw, bool local)
    {
        ShimLog("Q " + (etw ? 1 : 0) + (local ? 1 : 0));
    }

    static void WriteAll()
    {
%(writes)s
    }

    static int Main()
    {
%(main)s
        return bad;
    }
}
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    args = ap.parse_args()
    mcgen = os.path.abspath(args.mcgen)
    missing = [t for t in ("mcs", "mono", "gcc") if not shutil.which(t)]
    if missing:
        print("skipped: %s not installed (./setup installs mono-mcs, mono-devel)"
              % ", ".join(missing))
        print("0 passed, 0 failed, 1 skipped")
        return 0
    passed = failed = skipped = 0
    with tempfile.TemporaryDirectory() as top:
        shim = os.path.join(top, "libadvapi32shim.so")
        with open(os.path.join(top, "shim.c"), "w") as f:
            f.write(SHIM)
        c = subprocess.run(["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC",
                            "-o", shim, os.path.join(top, "shim.c")],
                           capture_output=True, text=True)
        if c.returncode:
            print("FAIL: the shim does not build:\n%s" % c.stderr)
            print("0 passed, 1 failed")
            return 1
        runs = [(name, path, lambda n=name, p=path: run_case(mcgen, shim, n, p))
                for name, path in CASES]
        runs += [("%s %s" % (sw, name), path,
                  lambda n=name, p=path, sw=sw: run_mc_case(mcgen, sw, n, p))
                 for name, path in MC_CASES for sw in ("-css", "-cs")]
        for name, path, run in runs:
            if not os.path.exists(path):
                print("skipped %s: %s absent" % (name, os.path.relpath(path, ROOT)))
                skipped += 1
                continue
            ok, line = run()
            print(("PASS " if ok else "FAIL ") + line)
            passed += ok
            failed += not ok
    print("%d passed, %d failed%s" % (passed, failed,
                                      ", %d skipped" % skipped if skipped else ""))
    return 1 if failed else 0


def run_case(mcgen, shim, name, path):
    with tempfile.TemporaryDirectory() as tmp:
        cs = os.path.join(tmp, "Events.g.cs")
        r = subprocess.run([mcgen, "--dotnet=" + cs, "--dotnet-namespace=Probe.Events",
                            "--json=" + os.path.join(tmp, "m.json"), path],
                           capture_output=True, text=True)
        if r.returncode:
            return False, "%s: mcgen: %s" % (name, r.stderr[-2000:])
        model = json.load(open(os.path.join(tmp, "m.json"), encoding="utf-8"))
        text = open(cs, encoding="utf-8").read()
        # the descriptors of mcgen's C header, which the golden tests hold to
        # mc's (an event without channel= can have one there: etk-Large)
        r = subprocess.run([mcgen, "-z", "x", "-h", tmp, "-r", tmp, path], capture_output=True,
                           text=True)
        header = open(os.path.join(tmp, "x.h"), encoding="latin-1").read()
        descs = [tuple(int(x, 16) for x in m.split(", ")) for m in re.findall(
            r"\bEVENT_DESCRIPTOR \w+ = \{(0x\w+(?:, 0x\w+){6})\};", header)]
        # the classes and their methods, in order: names only (the payloads
        # expected come from the manifest)
        classes = re.findall(r"^public static unsafe class (\w+)", text, re.M)
        if len(classes) != len(model["providers"]):
            return False, "%s: %d classes for %d providers" % (name, len(classes),
                                                              len(model["providers"]))
        writes, expect = [], []
        for pi, (p, cls) in enumerate(zip(model["providers"], classes)):
            body = text.split("public static unsafe class %s\n" % cls, 1)[1]
            body = body.split("\npublic static unsafe class ", 1)[0]
            methods = re.findall(r"public static uint (Write\w+)\(([^)]*)\)", body)
            events = [e for e in p["events"] if not e["notLogged"]]
            if len(methods) != len(events):
                return False, "%s: %s has %d Write methods for %d events" % (
                    name, cls, len(methods), len(events))
            for (meth, params), e in zip(methods, events):
                tmpl = next((t for t in p["templates"] if t["tid"] == e["template"]), None)
                s = sample_event("Probe.Events." + cls, tmpl["fields"] if tmpl else [])
                nparams = len([x for x in params.split(",") if x.strip()])
                if nparams != len(s.args):
                    return False, "%s: %s.%s takes %d parameters, the template has %d fields" % (
                        name, cls, meth, nparams, len(s.args))
                full = "Probe.Events.%s" % cls
                enabled_m = meth.replace("Write", "Is", 1) + "Enabled"
                writes.append("        Ask(%s.%sByEtw(), %s.%s());" % (full, enabled_m, full,
                                                                       enabled_m))
                writes.append("        Check(%s.%s(%s), \"%s\");" % (full, meth, ", ".join(s.args),
                                                                      meth))
                expect.append((pi, p, e, s, descs[len(expect)] if len(expect) < len(descs)
                               else None))
        main_lines = ["        Check(Probe.Events.%s.Register(), \"Register\");" % c
                      for c in classes]
        for k, (lvl, anyk, allk) in enumerate(SESSIONS):
            main_lines.append("        ShimSession(\"%d\", 1, %d, 0x%xUL, 0x%xUL);" % (k, lvl, anyk,
                                                                                   allk))
            main_lines.append("        WriteAll();")
        main_lines.append("        ShimSession(\"off\", 0, 0, 0, 0);")
        main_lines.append("        WriteAll();")
        main_lines += ["        Check(Probe.Events.%s.Unregister(), \"Unregister\");" % c
                       for c in classes]
        with open(os.path.join(tmp, "probe.cs"), "w") as f:
            f.write(PROGRAM % {"writes": "\n".join(writes), "main": "\n".join(main_lines)})
        with open(os.path.join(tmp, "probe.exe.config"), "w") as f:
            # Mono's dllmap: "advapi32.dll" is the shim on this host
            f.write('<configuration>\n  <dllmap dll="advapi32.dll" target="%s" />\n'
                    '</configuration>\n' % shim)
        c = subprocess.run(["mcs", "-unsafe", "-warnaserror", "-out:probe.exe", "Events.g.cs",
                            "probe.cs"], cwd=tmp, capture_output=True, text=True)
        if c.returncode:
            return False, "%s: the C# does not compile:\n%s" % (name, (c.stdout + c.stderr)[:3000])
        log = os.path.join(tmp, "calls.log")
        w = subprocess.run(["mono", "probe.exe"], cwd=tmp, capture_output=True, text=True,
                           env=dict(os.environ, SHIM_LOG=log), timeout=600)
        if w.returncode:
            return False, "%s: the program failed (%d): %s" % (name, w.returncode,
                                                               (w.stdout + w.stderr)[-2000:])
        got, asked, cur = {}, {}, None
        for line in open(log, encoding="ascii").read().splitlines():
            if line.startswith("S "):
                cur = line[2:]
                got[cur], asked[cur] = [], []
            elif line.startswith("W ") and cur is not None:
                parts = line.split(" ")
                got[cur].append((int(parts[1]), parts[2], tuple(int(x) for x in parts[3:9]),
                                 int(parts[9], 16), parts[10],
                                 [x[1:] for x in parts[11:]]))
            elif line.startswith("Q ") and cur is not None:
                asked[cur].append(line[2:])
            elif line.startswith("X "):
                return False, "%s: %s" % (name, line[2:])
        written = total = 0
        for k, sess in enumerate(SESSIONS + ["off"]):
            key = "off" if sess == "off" else str(k)
            want, want_q = [], []
            for pi, p, e, s, hd in expect:
                level, kw = runtime_test.descriptor(p, e)
                on = sess != "off" and runtime_test.enabled(level, kw, sess)
                want_q.append("%d%d" % (on, on))
                if not on:
                    continue
                # id, version, level and keyword from the manifest, the
                # channel, opcode and task as the C header has them
                want.append((pi, p["guid"].strip("{}").lower(),
                             (e["value"], e["version"], hd[2], level, hd[4], hd[5]),
                             kw, "00", [x.hex() for x in s.pieces]))
                if hd[:2] != (e["value"], e["version"]) or hd[3] != level or hd[6] != kw:
                    return False, "%s: the header's descriptor %s is not event %d's" % (
                        name, hd, e["value"])
            have = got.get(key, [])
            if have != want:
                diff = next(((a, b) for a, b in zip(have, want) if a != b),
                            (have[len(want):len(want) + 1], want[len(have):len(have) + 1]))
                return False, ("%s session %s: %d written, %d expected; first difference: got "
                               "%s, want %s" % (name, key, len(have), len(want), diff[0], diff[1]))
            if asked.get(key, []) != want_q:
                return False, "%s session %s: Is<Event>Enabled answers differ" % (name, key)
            written += len(have)
            total += len(expect)
        pieces = sum(len(x[3].pieces) for x in expect)
        return True, ("%s: %d events (%d payload descriptors) x %d sessions: %d writes, all "
                      "descriptors and payload bytes equal; none after disabling"
                      % (name, len(expect), pieces, len(SESSIONS), written))


def run_mc_case(mcgen, switch, name, path):
    """mc's -cs/-css class compiled with the EventProvider stub and run:
    every event written while enabled, none while disabled, each payload
    as the manifest lays it out."""
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([mcgen, switch, "Probe.Mc", "-z", "x", "-h", tmp, "-r", tmp,
                            "--json=" + os.path.join(tmp, "m.json"), "--mc-outputs", path],
                           capture_output=True, text=True)
        if r.returncode:
            return False, "%s %s: mcgen: %s" % (switch, name, r.stderr[-2000:])
        model = json.load(open(os.path.join(tmp, "m.json"), encoding="utf-8"))
        text = open(os.path.join(tmp, "x.cs"), encoding="latin-1").read()
        if "#error" in text:
            return False, "%s %s: #error in the class" % (switch, name)
        header = open(os.path.join(tmp, "x.h"), encoding="latin-1").read()
        descs = [tuple(int(x, 16) for x in m.split(", ")) for m in re.findall(
            r"\bEVENT_DESCRIPTOR \w+ = \{(0x\w+(?:, 0x\w+){6})\};", header)]
        classes = re.findall(r"^    public (?:static )?class (\w+)", text, re.M)
        calls, expect = [], []
        for p, cls in zip(model["providers"], classes):
            body = text.split("class %s" % cls, 1)[1].split("\n    }\n", 1)[0]
            methods = re.findall(r"public (?:static )?bool (EventWrite\w+)\(", body)
            events = [e for e in p["events"] if not e["notLogged"]]
            if len(methods) != len(events):
                return False, "%s %s: %d methods for %d events" % (switch, name, len(methods),
                                                                  len(events))
            target = "Probe.Mc." + cls if switch == "-css" else "o%d" % len(calls)
            if switch == "-cs":
                calls.append("        var %s = new Probe.Mc.%s();" % (target, cls))
            for meth, e in zip(methods, events):
                tmpl = next((t for t in p["templates"] if t["tid"] == e["template"]), None)
                fields = tmpl["fields"] if tmpl else []
                s = sample_event(cls, fields, mc=True)
                calls.append("        %s.%s(%s);" % (target, meth, ", ".join(s.args)))
                pieces = [x.hex() for x in s.pieces]
                if len(fields) == 1 and fields[0]["inType"] == "win:UnicodeString" and \
                        not fields[0].get("count"):
                    # WriteEvent(string): the whole string and a NUL
                    arg = json.loads(s.args[0])
                    pieces = [(arg + "\0").encode("utf-16-le").hex()]
                hd = descs[len(expect)]
                expect.append("W %s %d %d %d %d %d %d %x %s" % (
                    p["guid"].strip("{}").lower(), e["value"], e["version"], hd[2], hd[3], hd[4],
                    hd[5], hd[6], " ".join("=" + x for x in pieces)))
        prog = ("using System;\nstatic class ProbeMc\n{\n"
                "    static void WriteAll()\n    {\n%s\n    }\n"
                "    static void Main()\n    {\n"
                "        System.Diagnostics.Eventing.EventProvider.Enabled = true;\n"
                "        WriteAll();\n"
                "        System.Console.WriteLine(\"S off\");\n"
                "        System.Diagnostics.Eventing.EventProvider.Enabled = false;\n"
                "        WriteAll();\n    }\n}\n" % "\n".join(calls))
        for n, t in (("stub.cs", EVENTING_STUB), ("probe.cs", prog)):
            with open(os.path.join(tmp, n), "w") as f:
                f.write(t)
        c = subprocess.run(["mcs", "-unsafe", "-warnaserror", "-nowarn:414,169", "-out:probe.exe",
                            "stub.cs", "x.cs", "probe.cs"], cwd=tmp, capture_output=True, text=True)
        if c.returncode:
            return False, "%s %s: the C# does not compile:\n%s" % (switch, name,
                                                                   (c.stdout + c.stderr)[:3000])
        w = subprocess.run(["mono", "probe.exe"], cwd=tmp, capture_output=True, text=True,
                           timeout=600)
        lines = w.stdout.splitlines()
        want = expect + ["S off"]
        if w.returncode or lines != want:
            diff = next(((a, b) for a, b in zip(lines, want) if a != b),
                        (lines[len(want):len(want) + 1], want[len(lines):len(lines) + 1]))
            return False, "%s %s: %d lines, %d expected; first difference: got %s, want %s%s" % (
                switch, name, len(lines), len(want), diff[0], diff[1], w.stderr[-1000:])
        return True, ("%s %s: %d events written through mc's EventProviderVersionTwo, "
                      "descriptors and payload bytes equal; none while disabled"
                      % (switch, name, len(expect)))


if __name__ == "__main__":
    sys.exit(main())
