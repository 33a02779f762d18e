#!/usr/bin/env python3
"""--dump against the reference decoder, and the binary readers end to end.

1. Every TEMP.BIN of ../shared/corpus/golden (each mc version's: 10.0.18362
   CRIM 5.1, 10.0.15063 CRIM 3.1, mc 8.1), with the case's MSG00001.bin:
   `mcgen --dump --dump-format=json` lists what ../shared/tools/wevtdump.py
   (the reference decoder, an independent implementation) decodes from
   the same bytes: per provider its GUID and PRVA name, every channel,
   level, task, opcode, keyword, map with its items, patternMap, template
   property (name, types, flags, count, length, map), event (descriptor,
   message id, template, the entries it points at, EVTA name), filter;
   every message of the table with its text.  The text listing names the
   same items.  The JSON has the documented shape (docs/mcgen.1, --dump).
2. The binaries of examples/hello compiled into a .res (windres -O res)
   and a DLL (mingw-w64): --dump of each lists the same providers as the
   bare TEMP.BIN and tables do, the tables under their languages (en-US
   0x409, de-DE 0x407, as hello.rc's LANGUAGE lines say).
3. Damaged inputs: a precise "offset 0x..:" error and exit status 1, no
   crash: the TEMP.BIN cut short, a message table whose block count is 4
   billion, a PE whose header offset leads nowhere, a file no reader
   recognises; a compile given a binary says what to do with it.

Prints "N passed, N failed, N skipped".
"""
import argparse
import glob
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
GOLDEN = os.path.join(SHARED, "corpus", "golden")
WEVTDUMP = os.path.join(SHARED, "tools", "wevtdump.py")
HELLO = os.path.join(ROOT, "examples", "hello", "hello.man")
WINDRES, GCC = "x86_64-w64-mingw32-windres", "x86_64-w64-mingw32-gcc"
results = {"passed": 0, "failed": 0, "skipped": 0}


def check(ok, name, why=""):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + str(why)[:800]))


def skip(name, why):
    results["skipped"] += 1
    print("SKIP %s: %s" % (name, why))


FIELD = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\[[^\]]*\]|\S+)')


def unesc(v):
    if v.startswith('"'):
        return json.loads(re.sub(r'\\u([0-9a-f]{4})', r'\\u\1', v))
    return v


def num(v):
    return None if v in ("none", "-") else int(v.split("(")[0], 0)


def reference(temp, msg):
    """What wevtdump.py decodes: providers as lists of tuples, messages."""
    out = subprocess.run([sys.executable, WEVTDUMP, "--no-offsets", temp], capture_output=True,
                         text=True, check=True).stdout
    provs = []
    p = None
    for line in out.splitlines():
        word = line.split(" ", 1)[0].strip() if line.strip() else ""
        word = line.strip().split(" ", 1)[0]
        f = {k: v for k, v in FIELD.findall(line)}
        if word == "PROVIDER":
            p = {k: [] for k in ("chan", "levl", "task", "opco", "keyw", "maps", "quer", "props",
                                 "events", "filters")}
            p["guid"], p["name"], p["names"] = f["guid"], None, {}
            provs.append(p)
        elif word == "PROVIDER_ATTR" and "name" in f["kind"]:
            p["name"] = unesc(f["value"])
        elif word == "CHANNEL":
            p["chan"].append((unesc(f["name"]), num(f["value"]), num(f["flags"]) & 1,
                              num(f["message"])))
        elif word == "LEVEL":
            p["levl"].append((unesc(f["name"]), num(f["value"]), num(f["message"])))
        elif word == "TASK" and "name" in f:
            p["task"].append((unesc(f["name"]), num(f["value"]), num(f["message"])))
        elif word == "OPCODE":
            p["opco"].append((unesc(f["name"]), num(f["value"]), num(f["task"]),
                              num(f["message"])))
        elif word == "KEYWORD":
            p["keyw"].append((unesc(f["name"]), num(f["mask"]), num(f["message"])))
        elif word in ("VMAP", "BMAP"):
            p["maps"].append(["bitMap" if word == "BMAP" else "valueMap", unesc(f["name"]), []])
        elif word == "MAP_ITEM":
            p["maps"][-1][2].append((num(f["value"]), num(f["message"])))
        elif word == "QUER":
            p["quer"].append([unesc(f["name"]), unesc(f["format"]), []])
        elif word == "QUERY_ITEM":
            p["quer"][-1][2].append((unesc(f["name"]), unesc(f["value"])))
        elif word == "TEMP":
            p["props"].append([])
        elif word == "PROPERTY":
            fl = num(f["flags"])
            types = (None, None) if fl & 1 else (num(f["intype"]), num(f["outtype"]))
            p["props"][-1].append((unesc(f["name"]), fl) + types +
                                  (num(f["count"]), num(f["length"])))
        elif word == "EVENT":
            tmpl = None if f["template"] == "-" else int(re.search(r"#(\d+)", f["template"])
                                                         .group(1))
            ref = lambda k: None if f[k] == "-" else unesc(f[k])
            p["events"].append([num(f["id"]), num(f["version"]), num(f["channel"]),
                                num(f["level"]), num(f["opcode"]), num(f["task"]),
                                num(f["keywords"]), num(f["message"]), tmpl, ref("channel_ref"),
                                ref("level_ref"), ref("opcode_ref"), ref("task_ref"),
                                json.loads(f["keyword_refs"]), None])
        elif word == "EVENT_ATTR" and "name" in f["kind"]:
            p["names"][(num(f["event"]), num(f["version"]))] = unesc(f["value"])
        elif word == "FILTER":
            tmpl = None if f["template"] == "-" else int(re.search(r"#(\d+)", f["template"])
                                                         .group(1))
            p["filters"].append((unesc(f["name"]), num(f["value"]), num(f["version"]),
                                 num(f["message"]), tmpl))
    for p in provs:
        for e in p["events"]:
            e[14] = p["names"].get((e[0], e[1]))
    msgs = {}
    if msg:
        out = subprocess.run([sys.executable, WEVTDUMP, "--no-offsets", "--msg", msg],
                             capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            if line.startswith("MESSAGE "):
                f = dict(FIELD.findall(line))
                msgs[num(f["id"])] = unesc(f["text"])
    return provs, msgs


def msgid(m):
    return None if m is None else m["messageId"]


def ours(doc):
    """The same tuples from --dump's JSON."""
    provs = []
    for p in doc["providers"]:
        q = {"guid": p["guid"], "name": p["name"]}
        q["chan"] = [(c["name"], c["value"], int(c["imported"]), msgid(c["message"]))
                     for c in p["channels"]]
        q["levl"] = [(x["name"], x["value"], msgid(x["message"])) for x in p["levels"]]
        q["task"] = [(x["name"], x["value"], msgid(x["message"])) for x in p["tasks"]]
        q["opco"] = [(x["name"], x["value"], x["task"], msgid(x["message"]))
                     for x in p["opcodes"]]
        q["keyw"] = [(x["name"], int(x["mask"], 16), msgid(x["message"])) for x in p["keywords"]]
        q["maps"] = [[m["kind"], m["name"], [(i["value"], msgid(i["message"])) for i in m["items"]]]
                     for m in p["maps"] if m["kind"] != "patternMap"]
        q["quer"] = [[m["name"], m["format"], [(i["name"], i["value"]) for i in m["items"]]]
                     for m in p["maps"] if m["kind"] == "patternMap"]
        q["props"] = []
        for t in p["templates"]:
            flat, members = [], []

            def prop(f):
                fl = {"data": 0, "struct": 1}[f["kind"]]
                qty = []
                for k, fixed, field in (("count", 8, 16), ("length", 2, 4)):
                    v = f[k]
                    if v is None:
                        qty.append(0)
                    elif "fixed" in v:
                        fl |= 0 if v.get("ignored") else fixed
                        qty.append(v["fixed"])
                    else:
                        fl |= field
                        qty.append(v["index"])
                types = ((None, None) if f["kind"] == "struct"
                         else (f["inTypeValue"], f["outTypeValue"]))
                return (f["name"], fl) + types + tuple(qty)
            for f in t["fields"]:
                flat.append(prop(f))
                members += [prop(m) for m in f.get("members", [])]
            q["props"].append(flat + members)
        q["events"] = []
        for e in p["events"]:
            def ref(k):
                return e[k]["name"] if e[k] else None

            def val(k):
                return e[k]["value"] if e[k] else 0
            q["events"].append([e["value"], e["version"], val("channel"), val("level"),
                                val("opcode"), val("task"), int(e["keywordMask"], 16),
                                msgid(e["message"]),
                                None if e["template"] is None else int(e["template"][1:]),
                                ref("channel"), ref("level"), ref("opcode"), ref("task"),
                                [k["name"] for k in e["keywords"]], e["name"]])
        q["filters"] = [(x["name"], x["value"], x["version"], msgid(x["message"]),
                         None if x["template"] is None else int(x["template"][1:]))
                        for x in p["filters"]]
        provs.append(q)
    msgs = {}
    for t in doc["messageTables"]:
        for m in t["messages"]:
            msgs[m["messageId"]] = m["text"]
    return provs, msgs


def compare_reference(mcgen, case, temp, msg):
    name = "%s/%s" % (case, os.path.basename(temp))
    args = [mcgen, "--dump", "--dump-format=json", temp] + ([msg] if msg else [])
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        check(False, name + ": --dump reads it", r.stderr)
        return
    doc = json.loads(r.stdout)
    want_p, want_m = reference(temp, msg)
    got_p, got_m = ours(doc)
    check(len(got_p) == len(want_p), name + ": %d providers" % len(want_p), len(got_p))
    for i, (g, w) in enumerate(zip(got_p, want_p)):
        for k in ("guid", "name", "chan", "levl", "task", "opco", "keyw", "maps", "quer", "props",
                  "events", "filters"):
            check(g[k] == w[k], "%s: provider %d %s as wevtdump.py decodes them (%d)"
                  % (name, i, k, len(w[k]) if isinstance(w[k], list) else 1),
                  "ours %r\nwevtdump %r" % (g[k], w[k]))
    if msg:
        check(got_m == want_m, "%s: the %d messages of %s as wevtdump.py decodes them"
              % (name, len(want_m), os.path.basename(msg)),
              set(got_m.items()) ^ set(want_m.items()))
        # each item's message carries the table's text without mc's "\r\n"
        texts = {}

        def walk(x):
            if isinstance(x, dict):
                if "messageId" in x and "text" in x and isinstance(x["text"], dict):
                    texts[x["messageId"]] = x["text"].get("en-US")
                for v in x.values():
                    walk(v)
            elif isinstance(x, list):
                for v in x:
                    walk(v)
        walk(doc["providers"])
        bad = {i: t for i, t in texts.items() if want_m.get(i) != t + "\r\n"}
        check(texts and not bad, "%s: %d messages referred to carry their text" % (name, len(texts)),
              bad)
    # the text listing names every item wevtdump names
    r = subprocess.run([mcgen, "--dump", temp] + ([msg] if msg else []), capture_output=True,
                       text=True)
    names = set()
    for p in want_p:
        for k in ("chan", "levl", "task", "opco", "keyw", "filters"):
            names |= {x[0] for x in p[k]}
        names |= {m[1] for m in p["maps"]}
        names |= {x[0] for t in p["props"] for x in t}
    missing = [n for n in names if n not in r.stdout]
    check(r.returncode == 0 and not missing, name + ": the text listing names all %d items"
          % len(names), missing[:10])


def check_shape(mcgen, temp, msg):
    """The JSON's documented keys (docs/mcgen.1 --dump)."""
    doc = json.loads(subprocess.run([mcgen, "--dump", "--dump-format=json", temp, msg],
                                    capture_output=True, text=True, check=True).stdout)
    ok = list(doc) == ["mcgenJsonVersion", "wevt", "providers", "messageTables"]
    p = doc["providers"][0]
    ok = ok and list(p) == ["index", "name", "guid", "controlGuid", "traits", "message",
                            "channels", "levels", "tasks", "opcodes", "keywords", "maps",
                            "templates", "events", "filters"]
    e = p["events"][0]
    ok = ok and list(e) == ["value", "version", "name", "channel", "level", "task", "opcode",
                            "keywords", "keywordMask", "template", "message", "attributes"]
    t = doc["messageTables"][0]
    ok = ok and list(t) == ["file", "language", "culture", "messages"]
    ok = ok and list(t["messages"][0]) == ["messageId", "text", "encoding"]
    check(ok, "the JSON has the documented shape", json.dumps(doc)[:400])


def containers(mcgen):
    if not (shutil.which(WINDRES) and shutil.which(GCC)):
        skip("the .res and DLL of examples/hello", "%s or %s absent" % (WINDRES, GCC))
        return
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([mcgen, "--rc=hello.rc", "--wevt=helloTEMP.BIN",
                            "--message-tables=.", HELLO], cwd=tmp, capture_output=True, text=True)
        check(r.returncode == 0, "hello's binaries compile", r.stderr)
        r1 = subprocess.run([WINDRES, "hello.rc", "-O", "res", "-o", "hello.res"], cwd=tmp,
                            capture_output=True, text=True)
        with open(os.path.join(tmp, "dll.c"), "w") as f:
            f.write("int __stdcall DllMain(void *h, unsigned long r, void *p)\n"
                    "{ (void)h; (void)r; (void)p; return 1; }\n")
        r2 = subprocess.run([WINDRES, "hello.rc", "-O", "coff", "-o", "res.o"], cwd=tmp,
                            capture_output=True, text=True)
        r3 = subprocess.run([GCC, "-shared", "-o", "hello.dll", "dll.c", "res.o"], cwd=tmp,
                            capture_output=True, text=True)
        check(r1.returncode == r2.returncode == r3.returncode == 0,
              "windres makes hello.res, mingw-w64 links hello.dll", r1.stderr + r2.stderr + r3.stderr)

        def dump(*files):
            r = subprocess.run([mcgen, "--dump", "--dump-format=json"] + list(files), cwd=tmp,
                               capture_output=True, text=True)
            return r.returncode, r.stderr, json.loads(r.stdout) if r.returncode == 0 else None
        _, _, bare = dump("helloTEMP.BIN", "MSG00001.bin", "MSG00002.bin")
        check([t["culture"] for t in bare["messageTables"]] == ["unknown", "unknown"],
              "two bare tables: their languages unknown", bare["messageTables"][0]["culture"])

        def textless(x):  # the providers without the texts, keyed by culture
            if isinstance(x, dict):
                return {k: textless(v) for k, v in x.items() if k != "text"}
            return [textless(v) for v in x] if isinstance(x, list) else x
        for f in ("hello.res", "hello.dll"):
            rc, err, doc = dump(f)
            check(rc == 0 and textless(doc["providers"]) == textless(bare["providers"]) and
                  doc["wevt"]["crimVersion"] == "5.1",
                  "--dump %s lists the providers of the bare TEMP.BIN" % f, err)
            if rc:
                continue
            langs = [(t["language"], t["culture"]) for t in doc["messageTables"]]
            check(sorted(langs) == [(0x407, "de-DE"), (0x409, "en-US")],
                  "%s: the message tables under hello.rc's languages" % f, langs)
            by = {t["culture"]: t["messages"] for t in doc["messageTables"]}
            check(by.get("en-US") == bare["messageTables"][0]["messages"] and
                  by.get("de-DE") == bare["messageTables"][1]["messages"],
                  "%s: each table's messages are the bare table's" % f)
            # hello.man's provider message in both cultures
            text = doc["providers"][0]["message"]["text"]
            check(text == {"de-DE": "mcgen-Beispielanbieter", "en-US": "mcgen example provider"},
                  "%s: the provider's message in hello.man's two cultures" % f, text)


def damaged(mcgen, tmp):
    temp = os.path.join(GOLDEN, "etk-TaskOpcodes", "TEMP.BIN")
    data = open(temp, "rb").read()
    cases = [
        ("cut.BIN", data[:100], "cut.BIN: offset 0x4: CRIM size %d: mc's files are that plus two "
         "zero bytes; this one has 100 bytes" % (len(data) - 2)),
        # one block of ids 0 to 0xFFFFFFFF, 4 billion entries, in 100 bytes
        ("MSG00001.bin", (struct.pack("<IIII", 1, 0, 0xFFFFFFFF, 16) +
                          (b"\x08\x00\x01\x00A\x00\x00\x00" * 10)
                          + b"\x00" * 4),
         "MSG00001.bin: offset 0x60: message 0x0000000A: length 0 is below the 4-byte header"),
        ("bad.dll", b"MZ" + b"\x00" * 58 + b"\xf0\xff\xff\x7f" + b"\x00" * 40,
         "bad.dll: offset 0x3c: the PE header offset 0x7ffffff0 does not lead to \"PE\\0\\0\""),
        ("notes.txt", b"hello", "notes.txt: not a binary mcgen reads (TEMP.BIN, MSG*.bin, .res, "
         "PE image)"),
    ]
    for fname, content, want in cases:
        path = os.path.join(tmp, fname)
        open(path, "wb").write(content)
        r = subprocess.run([mcgen, "--dump", path], cwd=tmp, capture_output=True, text=True)
        err = r.stderr.strip().splitlines()[0].replace(tmp + os.sep, "")
        check(r.returncode == 1 and err == "mcgen: error: " + want,
              "--dump %s: %s" % (fname, want), "%d %s" % (r.returncode, err))
    r = subprocess.run([mcgen, temp], cwd=tmp, capture_output=True, text=True)
    check(r.returncode != 0 and "is a compiled binary (wevt), not a manifest: --dump and "
          "--decompile read it" in r.stderr, "a compile given TEMP.BIN says what reads it",
          r.stderr)


def text_kinds(mcgen, tmp):
    """A message table with an entry of each kind (winnt.h's Flags: 0 ANSI,
    read as Windows-1252; 1 Unicode; 2 UTF-8), made here byte by byte:
    --dump shows each text and its kind."""
    path = os.path.join(tmp, "MSG00001.bin")
    with open(path, "wb") as f:
        f.write(struct.pack("<IIII", 1, 1, 3, 16) +
                struct.pack("<HH", 12, 0) + b"caf\xe9\x80\0\0\0" +
                struct.pack("<HH", 8, 1) + "x".encode("utf-16-le") + b"\0\0" +
                struct.pack("<HH", 12, 2) + "\u00e9\u20ac".encode() + b"\0\0\0")
    r = subprocess.run([mcgen, "--dump", "--dump-format=json", path], capture_output=True)
    try:
        got = [(m["messageId"], m["text"], m["encoding"])
               for m in json.loads(r.stdout)["messageTables"][0]["messages"]]
    except (ValueError, KeyError, IndexError) as e:
        got = repr(e)
    check(r.returncode == 0 and got == [(1, "caf\u00e9\u20ac", "ansi"), (2, "x", "utf-16"),
                                        (3, "\u00e9\u20ac", "utf-8")],
          "--dump-format=json: ANSI (Windows-1252), UTF-16 and UTF-8 entries, each with its text",
          got)
    r = subprocess.run([mcgen, "--dump", path], capture_output=True)
    want = ['- 0x00000001 "caf\u00e9\u20ac" (ANSI)', '- 0x00000002 "x"',
            '- 0x00000003 "\u00e9\u20ac" (UTF-8)']
    lines = [l.strip() for l in r.stdout.decode("utf-8", "replace").splitlines()[-3:]]
    check(r.returncode == 0 and lines == want, "--dump: each entry's text and its kind", lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    mcgen = os.path.abspath(ap.parse_args().mcgen)
    if not os.path.isdir(GOLDEN):
        skip("golden cases", "../shared/corpus/golden absent")
    else:
        for case in sorted(os.listdir(GOLDEN)):
            d = os.path.join(GOLDEN, case)
            for temp in sorted(glob.glob(os.path.join(d, "TEMP*.BIN"))):
                tag = os.path.basename(temp)[len("TEMP"):-len(".BIN")]
                msg = os.path.join(d, "MSG00001%s.bin" % (".mc-8.1" if tag == ".mc-8.1" else ""))
                compare_reference(mcgen, case, temp, msg if os.path.exists(msg) else None)
        d = os.path.join(GOLDEN, "etk-Large")
        check_shape(mcgen, os.path.join(d, "TEMP.BIN"), os.path.join(d, "MSG00001.bin"))
    containers(mcgen)
    with tempfile.TemporaryDirectory() as tmp:
        text_kinds(mcgen, tmp)
        if os.path.isdir(GOLDEN):
            damaged(mcgen, tmp)
    print("%d passed, %d failed, %d skipped" % (results["passed"], results["failed"],
                                                results["skipped"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
