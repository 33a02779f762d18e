#!/usr/bin/env python3
"""--backends=etw,lttng under a real LTTng session: every event of a
manifest, written with generated values, comes out of babeltrace2 with
every field equal to what was written.

For examples/hello, tests/data/bulk.man and the golden manifests with the
richest templates (etk-TypeMangling, etk-Large, etk-wpf-etw), the test
generates a C program that writes every logged event through each form
of mc's API: EventWrite<Sym>(...), its _AssumeEnabled form, and its
_ForContext and _ForContextAssumeEnabled forms on a McGenContext of the
provider registered with EventRegister<Provider>_ForContext (each must
record the same event), each argument made from the manifest's field
(its inType, count= and length=; the macro's parameters are the ETW
header's; one NUL-terminated string in four longer than the 256 bytes
the write function converts UTF-16 into), and
writes down what each LTTng field must hold, as docs/linux.md maps the
types (integers by value, floats by value, GUIDs as their 16 bytes,
UTF-16 as UTF-8, binaries and counted arrays as sequences, FILETIME as
its 64-bit number, SYSTEMTIME as its 8 members, SIDs as their bytes,
structs of fixed members flattened as Struct_Member, others as their
bytes).  The program runs in an LTTng session recording the provider;
babeltrace2's text is parsed by this test (its own reader below) and
compared event by event, field by field.  Each event's model.emf.uri in
the trace's metadata must carry the manifest's id, version, opcode, task,
level, channel and keyword mask.

Runs as root with lttng-sessiond (started here when not running, and
stopped after); says "skipped" with the reason otherwise.  Prints
"N passed, N failed, N skipped".
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "..", "shared", "corpus")
CASES = [("examples/hello", os.path.join(ROOT, "examples", "hello", "hello.man")),
         ("tests/data/bulk.man", os.path.join(ROOT, "tests", "data", "bulk.man")),
         ("tests/data/linux_types.man", os.path.join(ROOT, "tests", "data", "linux_types.man"))] + [
    ("golden/" + g, os.path.join(CORPUS, "golden", g, "input.man"))
    for g in ("etk-TypeMangling", "etk-Large", "etk-wpf-etw")]

SIZES = {"Int8": 1, "UInt8": 1, "Int16": 2, "UInt16": 2, "Int32": 4, "UInt32": 4, "Int64": 8,
         "UInt64": 8, "HexInt32": 4, "HexInt64": 8, "Boolean": 4, "Float": 4, "Double": 8,
         "GUID": 16, "FILETIME": 8, "SYSTEMTIME": 16}
SIGNED = {"Int8", "Int16", "Int32", "Int64", "Boolean", "HexInt32", "HexInt64"}
INTS = {"Int8", "UInt8", "Int16", "UInt16", "Int32", "UInt32", "Int64", "UInt64", "HexInt32",
        "HexInt64", "Boolean"}


def ident(name, i):
    """A field's LTTng name: mc's identifier of its name."""
    if not name:
        return "Field%d" % i
    s = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return "_" + s[1:] if s[0].isdigit() else s


def member_fixed(m):
    """Whether a struct member's size is known from the manifest alone (the
    header's rule): no count= naming a field; a fixed-size type, or a
    string or binary with a fixed length=."""
    if "field" in (m.get("count") or {}):
        return False
    if m["kind"] == "struct":
        return all(member_fixed(x) for x in m["members"])
    t = (m.get("inType") or "").split(":")[-1]
    if t in ("UnicodeString", "AnsiString", "Binary"):
        return (m.get("length") or {}).get("fixed", 0) > 0
    return t in SIZES or t == "Pointer"


class Gen:
    """The C text of one event's call, and the fields it must produce."""

    def __init__(self, seed):
        self.seed = seed
        self.decls = []
        self.n = 0

    def num(self, k):
        self.seed = (self.seed * 1103515245 + 12345 + k) & 0x7FFFFFFF
        return self.seed

    def array(self, ctype, items):
        self.n += 1
        name = "v%d" % self.n
        self.decls.append("static const %s %s[] = {%s};" % (ctype, name, ", ".join(items) or "0"))
        return name

    def blob(self, b):
        return self.array("unsigned char", [str(x) for x in b])

    def int_value(self, t):
        bits = 8 * SIZES[t]
        v = self.num(bits) % (1 << min(bits - 1, 30))
        if t == "Boolean":
            v %= 2
        elif t in SIGNED and self.seed % 3 == 0:
            v = -v
        return v

    def elem_bytes(self, t, v):
        import struct
        fmt = {1: "b", 2: "h", 4: "i", 8: "q"}[SIZES[t]]
        return struct.pack("<" + (fmt if t in SIGNED else fmt.upper()), v)

    def text(self, n, wide, astral=False):
        chars = "abcdefghij" + ("\u00e9\u4e2d" if wide else "") + ("\U0001F600" if astral else "")
        return "".join(chars[self.num(i) % len(chars)] for i in range(n))


def plan_event(g, fields, params, maps):
    """(C arguments, {lttng field: expected}) of one event: fields from the
    JSON model, params the write function's [(type, name)], maps the
    provider's by name (a valueMap's field holds one of its values and
    comes out as an enum: ("enum", label, value))."""
    args, want = [], {}
    by_name = {p[1]: p[0] for p in params}
    values = {}  # field index -> the integer it holds (for count=, length=)
    refs = set()
    for f in fields:
        for q in (f.get("count"), f.get("length")):
            if q and "field" in q:
                refs.add(q["index"])
    for i, f in enumerate(fields):
        name = ident(f["name"], i)
        arg, lenp = "_Arg%d" % i, "_Arg%d_Len_" % i
        takes_len = lenp in by_name
        t = (f.get("inType") or "").split(":")[-1] if f["kind"] == "data" else "struct"

        def qty(q, is_count):
            if not q:
                return None
            if "fixed" in q:
                return q["fixed"] if q["fixed"] > (1 if is_count else 0) else None
            return values.get(q["index"], 0)
        cnt, ln = qty(f.get("count"), True), qty(f.get("length"), False)
        if i in refs:
            v = 2 + g.num(1) % 2
            values[i] = v
            args.append("(%s)%d" % (by_name[arg].replace("const ", ""), v))
            want[name] = v
            continue
        vmap = maps.get(f.get("map") or "")
        if t in INTS and cnt is None and vmap and vmap["kind"] == "valueMap":
            item = vmap["items"][g.num(1) % len(vmap["items"])]
            v = item["value"]
            args.append("(%s)%d" % (by_name[arg].replace("const ", ""), v))
            text = (item.get("message") or {}).get("text") or {}
            label = next(iter(text.values()), None) or item.get("symbol") or str(v)
            want[name] = ("enum", label, v)
            continue
        if t in INTS and cnt is None:
            v = g.int_value(t)
            values[i] = v
            args.append("(%s)%d" % (by_name[arg].replace("const ", ""), v) if v >= 0 else
                        "(%s)(%d)" % (by_name[arg].replace("const ", ""), v))
            want[name] = v % (1 << (8 * SIZES[t])) if t.startswith("Hex") else v
            continue
        if t in ("Float", "Double") and cnt is None:
            v = (g.num(3) % 1000) + 0.5
            args.append(repr(v))
            want[name] = v
            continue
        if t in INTS or t in ("Float", "Double"):
            items = [g.int_value(t) if t in INTS else (g.num(3) % 1000) + 0.25 for _ in range(cnt)]
            ctype = by_name[arg].replace("const ", "").rstrip("*")
            args.append(g.array(ctype, [repr(x) if t not in INTS else str(x) for x in items]))
            # hex as unsigned; floats as their bits (LTTng's sequences
            # hold integers)
            import struct
            if t.startswith("Hex"):
                items = [x % (1 << (8 * SIZES[t])) for x in items]
            elif t == "Float":
                items = [struct.unpack("<I", struct.pack("<f", x))[0] for x in items]
            elif t == "Double":
                items = [struct.unpack("<Q", struct.pack("<d", x))[0] for x in items]
            want[name] = items
            continue
        if t == "Pointer":
            if cnt is None:
                v = 0x1000 + g.num(5) % 0x10000
                args.append("(const void*)(uintptr_t)%d" % v)
                want[name] = v
            else:
                items = [0x1000 + g.num(5) % 0x10000 for _ in range(cnt)]
                args.append("(const void**)" + g.array("uintptr_t", [str(x) for x in items]))
                want[name] = items
            continue
        if t in ("GUID", "FILETIME", "SYSTEMTIME"):
            k = cnt or 1
            raw = bytes(g.num(j) % 256 for j in range(SIZES[t] * k))
            if t == "SYSTEMTIME":
                raw = bytes(b if j % 2 == 0 else 0 for j, b in enumerate(raw))  # small members
            ctype = by_name[arg].replace("const ", "").rstrip("*")
            args.append("(const %s*)(const void*)%s" % (ctype, g.blob(raw)))
            if t == "GUID":
                want[name] = list(raw)
            elif t == "FILETIME":
                vals = [int.from_bytes(raw[8 * j:8 * j + 8], "little") for j in range(k)]
                want[name] = vals[0] if cnt is None else vals
            else:
                want[name] = [int.from_bytes(raw[2 * j:2 * j + 2], "little") for j in range(8 * k)]
            continue
        if t == "SID":
            if cnt is None:
                sid = bytes([1, 2, 0, 0, 0, 0, 0, 5, 21, 0, 0, 0, g.num(1) % 256, 1, 0, 0])
                args.append("(const SID*)(const void*)" + g.blob(sid))
                want[name] = list(sid)
            else:
                raw = bytes(g.num(j) % 256 for j in range(12))
                args.extend([str(len(raw)), g.blob(raw)])
                want[name] = list(raw)
            continue
        if t in ("UnicodeString", "AnsiString", "CountedUnicodeString", "CountedAnsiString"):
            wide = "Unicode" in t
            if not takes_len and cnt is None and ln is None:
                # one in four long: past the 256 bytes the write function
                # converts UTF-16 into, so allocated; the others share them
                n = 3 + g.num(1) % 5 + (100 + g.num(3) % 150 if g.num(2) % 4 == 0 else 0)
                s = g.text(n, wide, astral=wide)
                units = s.encode("utf-16-le") if wide else s.encode()
            elif not takes_len:
                s = g.text((cnt or 1) * ln, wide)
            elif t.startswith("Counted") and cnt is not None:
                raw = bytes(g.num(j) % 256 for j in range(6))
                args.extend([str(3 if wide else 6), "(const %s)(const void*)%s" % (
                    by_name[arg].replace("const ", "const "), g.blob(raw))])
                want[name] = list(raw)
                continue
            else:
                # a packed list of NUL-terminated strings (count= without
                # length=) or a counted string: _Len_ units
                s = g.text(4, wide) if t.startswith("Counted") else "\0".join(
                    g.text(3, wide) for _ in range(cnt)) + "\0"
            cu = [ord(c) for c in s] if not wide else list(
                int.from_bytes(s.encode("utf-16-le")[j:j + 2], "little")
                for j in range(0, len(s.encode("utf-16-le")), 2))
            if takes_len:
                args.append(str(len(cu)))
            if wide:
                args.append(g.array("MCGEN_WCHAR", [str(x) for x in cu + [0]]))
            else:
                args.append(g.array("char", [str(x) for x in cu + [0]]))
            # a list of strings (count= without length=): its UTF-8 bytes
            want[name] = list(s.encode()) if takes_len and not t.startswith("Counted") else s
            continue
        if t in ("Binary", "CountedBinary"):
            n = 5 if takes_len else (cnt or 1) * ln
            raw = bytes(g.num(j) % 256 for j in range(n))
            if takes_len:
                args.append(str(n))
            args.append(g.blob(raw))
            want[name] = list(raw)
            continue
        if t == "struct":
            members = f["members"]
            flat = cnt is None and members and all(
                m["kind"] == "data" and not m.get("count") and
                (m.get("inType") or "").split(":")[-1] in SIZES for m in members)
            if flat:
                raw = b""
                for k, m in enumerate(members):
                    mt = m["inType"].split(":")[-1]
                    mn = name + "_" + ident(m["name"], k)
                    if mt in INTS:
                        v = g.int_value(mt)
                        raw += g.elem_bytes(mt, v)
                        want[mn] = v
                    else:
                        b = bytes(g.num(j) % 256 for j in range(SIZES[mt]))
                        if mt in ("Float", "Double"):
                            import struct
                            v = float((g.num(2) % 100) + 0.5)
                            b = struct.pack("<f" if mt == "Float" else "<d", v)
                            want[mn] = v
                        elif mt == "GUID":
                            want[mn] = list(b)
                        elif mt == "FILETIME":
                            want[mn] = int.from_bytes(b, "little")
                        else:
                            b = bytes(x if j % 2 == 0 else 0 for j, x in enumerate(b))
                            want[mn] = [int.from_bytes(b[2 * j:2 * j + 2], "little") for j in range(8)]
                        raw += b
                args.extend([str(len(raw)), g.blob(raw)])
                continue
            each = 6
            n = each * (cnt or 1)
            raw = bytes(g.num(j) % 256 for j in range(n))
            # _Len_: one element's size when every member has a fixed size
            fixed = all(member_fixed(m) for m in members)
            args.extend([str(each if (cnt and fixed) else n), g.blob(raw)])
            want[name] = list(raw)
            continue
        raise ValueError("no generator for %s" % t)
    return args, want


# ---- babeltrace2's text, read back ----

def parse_value(s, i):
    """(value, next index) of one value of babeltrace2's pretty text."""
    while s[i] == " ":
        i += 1
    c = s[i]
    if c == '"':
        out, i = [], i + 1
        while s[i] != '"':
            if s[i] == "\\":
                nxt = s[i + 1]
                if nxt == "x":
                    out.append(chr(int(s[i + 2:i + 4], 16)))
                    i += 4
                    continue
                out.append({"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"'}.get(nxt, nxt))
                i += 2
                continue
            out.append(s[i])
            i += 1
        return "".join(out), i + 1
    if c == "(":  # an enum: ( "label" : container = 5 ), or ( <unknown> : ... )
        m = re.match(r'\( ("(?:[^"\\]|\\.)*"|<unknown>) : container = ', s[i:])
        label = parse_value(s, i + 2)[0] if m.group(1) != "<unknown>" else None
        v, j = parse_value(s, i + m.end())
        return ("enum", label, v), s.index(")", j) + 1
    if c in "[{":
        close = "]" if c == "[" else "}"
        items, keys, i = [], [], i + 1
        while True:
            while s[i] == " ":
                i += 1
            if s[i] == close:
                break
            if c == "[":
                m = re.match(r"\[(\d+)\] = ", s[i:])
                i += m.end()
                v, i = parse_value(s, i)
                items.append(v)
            else:
                m = re.match(r"([A-Za-z_][A-Za-z0-9_]*) = ", s[i:])
                i += m.end()
                v, i = parse_value(s, i)
                keys.append(m.group(1))
                items.append(v)
            while s[i] == " ":
                i += 1
            if s[i] == ",":
                i += 1
        return (items if c == "[" else dict(zip(keys, items))), i + 1
    m = re.match(r"[-+0-9A-Fa-fxX.e]+", s[i:])
    t = m.group(0)
    if t.lower().startswith(("0x", "-0x")):
        return int(t, 16), i + m.end()
    if re.fullmatch(r"-?\d+", t):
        return int(t), i + m.end()
    return float(t), i + m.end()


def read_events(text):
    """[(provider:event, payload dict)] of babeltrace2's output."""
    out = []
    for line in text.splitlines():
        m = re.match(r"^\[[^\]]*\] \([^)]*\) \S+ (\w+:\w+): ", line)
        if not m:
            continue
        i, groups = m.end(), []
        while i < len(line):
            v, i = parse_value(line, i)
            groups.append(v)
            while i < len(line) and line[i] in ", ":
                i += 1
        out.append((m.group(1), groups[-1] if len(groups) > 1 else {}))
    return out


def same(want, got):
    if isinstance(want, float):
        return isinstance(got, (int, float)) and abs(want - got) <= 1e-4 * max(1, abs(want))
    if isinstance(want, list):
        return isinstance(got, list) and len(want) == len(got) and all(
            same(a, b) for a, b in zip(want, got))
    if isinstance(want, str) and isinstance(got, str):
        return want.rstrip("\0") == got.rstrip("\0") or want == got
    return want == got


# ---- the session ----

def sessiond():
    """(started: a pid or None, reason it cannot run or '')."""
    if os.geteuid() != 0:
        return None, "not root: an LTTng session of this test needs root's lttng-sessiond"
    for tool in ("lttng", "lttng-sessiond", "babeltrace2"):
        if not shutil.which(tool):
            return None, "%s not installed (./setup installs lttng-tools, babeltrace2)" % tool
    if subprocess.run(["pgrep", "-x", "lttng-sessiond"], capture_output=True).returncode == 0:
        return None, ""
    p = subprocess.Popen(["lttng-sessiond"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        if subprocess.run(["lttng", "list"], capture_output=True).returncode == 0:
            return p, ""
        if p.poll() is not None:
            return None, "lttng-sessiond did not start (exit %d)" % p.returncode
        time.sleep(0.1)
    p.terminate()
    return None, "lttng-sessiond did not answer"


# The forms of an event's write macro, each called in turn: every one must
# record the same event (the _ForContext ones take ctx_<provider>, which
# contexts() declares and registers).
FORMS = ("%s(%s)", "%s_AssumeEnabled(%s)", "%s_ForContext(%s)", "%s_ForContextAssumeEnabled(%s)")


def plan_calls(part, model):
    """(C calls, [(provider, event, fields, want, write function)], error)
    of every logged event of the model, from the Linux branch of its header
    (part): one block an event, writing it once through each of FORMS, in
    that order. The write functions are in the header's order, the
    providers' logged events in manifest order."""
    funcs = [(m.group(1), [tuple(p.strip().rsplit(" ", 1)) for p in m.group(2).split(",")
                           if p.strip() not in ("", "void")])
             for m in re.finditer(r"^static inline uint32_t (McGenLinux_\w+)\(([^)]*)\)", part, re.M)]
    macro_of = {fn: mac for mac, fn in re.findall(
        r"^#define (\w+)\([^)]*\) \\\n\s+\((?:MCGEN_EVENT_ENABLED\(\w+\)|EventEnabled\w+\(\)) \? (McGenLinux_\w+)\(",
        part, re.M)}
    # each write macro's provider context type
    ctx_of = dict(re.findall(r"^#define (\w+)_ForContextAssumeEnabled\(pContext[^)]*\) \\\n"
                             r"\s+\(\(void\)_mcgen_CheckContextType_(\w+)\(", part, re.M))
    logged = []
    for pv in model["providers"]:
        templates = {t["tid"]: t for t in pv["templates"]}
        for ev in pv["events"]:
            if not ev.get("notLogged"):
                logged.append((pv, ev, templates[ev["template"]]["fields"] if ev.get("template") else []))
    if len(funcs) != len(logged):
        return [], [], "%d write functions, %d logged events" % (len(funcs), len(logged))
    calls, planned = [], []
    g = Gen(7)
    for (fn, params), (pv, ev, fields) in zip(funcs, logged):
        g.decls = []
        args, want = plan_event(g, fields, params, {mp["name"]: mp for mp in pv["maps"]})
        mac = macro_of[fn]
        ctx = ["&ctx_" + ctx_of[mac]]
        forms = [form % (mac, ", ".join(ctx + args if "ForContext" in form else args))
                 for form in FORMS]
        calls.append("    {\n%s%s    }\n" % ("".join("        %s\n" % x for x in g.decls),
                                              "".join("        %s;\n" % f for f in forms)))
        planned.append((pv, ev, fields, want, fn))
    return calls, planned, ""


def contexts(part):
    """(declarations, registrations, unregistrations): C for the providers'
    contexts ctx_<provider> that plan_calls' _ForContext calls take, the
    first at file scope, the others statements (the program defines
    MCGEN_ENABLE_FORCONTEXT_CODE_GENERATION)."""
    regs = re.findall(r"^#define EventRegister(\w+)_ForContext\(pContext\) "
                      r"McGenLinuxRegisterForContext_(\w+)\(", part, re.M)
    return ("".join("static McGenContext_%s ctx_%s;\n" % (i, i) for _, i in regs),
            "".join("    EventRegister%s_ForContext(&ctx_%s);\n" % (r, i) for r, i in regs),
            "".join("    EventUnregister%s_ForContext(&ctx_%s);\n" % (r, i) for r, i in regs))


def run_case(mcgen, name, path, tmp):
    """(events written, fields compared, fields equal, failures[])."""
    d = os.path.join(tmp, re.sub(r"\W", "_", name))
    os.makedirs(d)
    subprocess.run([mcgen, "-um", "--backends=etw,lttng", "-z", "x", "-h", d, "-r", d, path],
                   check=True, capture_output=True)
    model = json.loads(subprocess.run([mcgen, "--json=-", path], capture_output=True,
                                      check=True, text=True).stdout)
    text = open(os.path.join(d, "x.h"), encoding="utf-8").read().replace("\r", "")
    part = text[text.index("#else /* !_WIN32"):]
    tps = re.findall(r"lttng_ust_do_tracepoint\((\w+), (\w+), &a\);", part)
    calls, planned, err = plan_calls(part, model)
    if err or len(tps) != len(planned):
        return 0, 0, 0, [err or "%d tracepoints, %d logged events" % (len(tps), len(planned))]
    expect = [("%s:%s" % (prov, sym), want, ev)
              for (prov, sym), (pv, ev, fields, want, fn) in zip(tps, planned)
              for _ in FORMS]
    decls, setup, teardown = contexts(part)
    src = os.path.join(d, "main.c")
    with open(src, "w") as f:
        f.write('#define MCGEN_ENABLE_FORCONTEXT_CODE_GENERATION 1\n#include <stdint.h>\n'
                '#include "x.h"\n%sint main(void)\n{\n%s%s%s    return 0;\n}\n'
                % (decls, setup, "".join(calls), teardown))
    r = subprocess.run(["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-O1",
                        "-Wno-overflow", "-DMCGEN_BACKEND_LTTNG", "-I", d, src,
                        os.path.join(d, "x_lttng.c"), "-o", os.path.join(d, "p"), "-llttng-ust",
                        "-ldl"], capture_output=True, text=True)
    if r.returncode:
        return len(expect), 0, 0, ["the program does not build:\n" + r.stderr[:3000]]
    trace = os.path.join(d, "trace")
    sess = "mcgen_" + re.sub(r"\W", "_", name)[-30:]
    providers = sorted({e[0].split(":")[0] for e in expect})
    env = dict(os.environ, LTTNG_UST_REGISTER_TIMEOUT="-1")
    lttng = lambda *a: subprocess.run(["lttng", *a], capture_output=True, text=True)
    r = lttng("create", sess, "--output=" + trace)
    if r.returncode:
        return len(expect), 0, 0, ["lttng create: " + r.stderr]
    try:
        for p in providers:
            lttng("enable-event", "-u", p + ":*", "-s", sess)
        lttng("start", sess)
        run = subprocess.run([os.path.join(d, "p")], env=env, capture_output=True, text=True)
        lttng("stop", sess)
    finally:
        lttng("destroy", sess)
    if run.returncode:
        return len(expect), 0, 0, ["the program exits %d" % run.returncode]
    bt = subprocess.run(["babeltrace2", trace], capture_output=True, text=True)
    got = read_events(bt.stdout)
    meta = subprocess.run(["babeltrace2", "--output-format=ctf-metadata", find_meta(trace)],
                          capture_output=True, text=True).stdout
    fails, compared, equal = [], 0, 0
    if len(got) != len(expect):
        fails.append("%d events written, %d in the trace" % (len(expect), len(got)))
    for (ename, want, ev), (gname, payload) in zip(expect, got):
        if ename != gname:
            fails.append("event %s came out as %s" % (ename, gname))
            continue
        for k, v in want.items():
            compared += 1
            if k in payload and same(v, payload[k]):
                equal += 1
            else:
                fails.append("%s field %s: wrote %r, trace has %r" % (ename, k, v, payload.get(k, "(missing)")))
        extra = [k for k in payload if k not in want and not k.startswith("_")]
        if extra:
            fails.append("%s: fields nobody wrote: %s" % (ename, extra))
    uris = re.findall(r'name = "(\w+:\w+)";.*?model\.emf\.uri = "([^"]*)";', meta, re.S)
    fails += check_uris(model, dict(uris), expect)
    return len(expect), compared, equal, fails


def find_meta(trace):
    for base, _, files in os.walk(trace):
        if "metadata" in files:
            return base
    return trace


def check_uris(model, uris, expect):
    """Each event's model.emf.uri names its manifest numbers."""
    fails = []
    for ename, _, ev in expect:
        prov = ename.split(":")[0]
        pv = next(p for p in model["providers"] if re.sub(r"[^A-Za-z0-9_]", "_", p["name"]) == prov)
        kw = int(ev.get("keywordMask") or "0", 16)
        want = ("id=%d;version=%d;" % (ev["value"], ev["version"]),
                "level=%d;" % ((ev.get("level") or {}).get("value", 0)),
                "opcode=%d;" % ((ev.get("opcode") or {}).get("value", 0)),
                "task=%d;" % ((ev.get("task") or {}).get("value", 0)),
                "provider={%s}" % pv["guid"].strip("{}").lower())
        uri = uris.get(ename, "")
        keyword = int(uri.rsplit("keyword=", 1)[1], 16) if "keyword=" in uri else -1
        if not all(w in uri for w in want) or keyword & kw != kw:
            fails.append("%s: model.emf.uri %r lacks %s or keyword 0x%x" % (ename, uri, want, kw))
    return fails


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    args = ap.parse_args()
    mcgen = os.path.abspath(args.mcgen)
    started, why = sessiond()
    if why:
        print("skipped: " + why)
        print("0 passed, 0 failed, 1 skipped")
        return 0
    passed = failed = skipped = 0
    totals = [0, 0, 0]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for name, path in CASES:
                if not os.path.exists(path):
                    print("skipped %s: not found" % name)
                    skipped += 1
                    continue
                n, compared, equal, fails = run_case(mcgen, name, path, tmp)
                totals[0] += n
                totals[1] += compared
                totals[2] += equal
                ok = not fails and n > 0
                print("%s %s: %d events written, %d fields compared, %d equal" % (
                    "PASS" if ok else "FAIL", name, n, compared, equal))
                for f in fails[:20]:
                    print("    " + f)
                passed += ok
                failed += not ok
    finally:
        if started:
            started.terminate()
            started.wait(timeout=30)
    print("in all: %d events written, %d fields compared, %d equal" % tuple(totals))
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
