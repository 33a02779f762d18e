#!/usr/bin/env python3
"""Model tests: user templates see exactly the JSON model, and every JSON
document mcgen writes is valid.

One walk of the model feeds both `--json` and the values of `--render`
templates (mcgen/emit_json.c, mcgen/emit_render.c).  This test holds them to it:

  * for every corpus manifest (../shared/corpus: golden/*/input.man and
    manifests/**) that compiles, one run writes `--json` and renders a
    template that writes each top-level value back with the `tojson` filter
    (DUMP below); the two files must be the same bytes once each event's
    `fields` (which only the values have) is cut out, python's json
    module must read both to equal values, the model's top-level keys must
    be exactly the six the template names (a new key would fail here, not
    go unnoticed), `fileName` the base name of `file`, and the template
    must also see `header` with one entry per provider;
  * in the same models, each event's `fields` in the values is its
    template's list ([] without one); every field's payload plan (kind,
    size, encoding, termination, count, length) is what an independent
    table here (PLAN, from TDH's input types and docs/json-model.md) gives
    for its inType, outType, count= and length=, and each count or length
    the plan names is an earlier integer field of the same template;
  * a manifest whose event attributes put a quote, a backslash and a tab in
    a key, and a manifest path that is not UTF-8, still give valid JSON
    (--json and the JSON diagnostics), with the bytes escaped or replaced
    by U+FFFD as RFC 8259 and the Unicode standard's "U+FFFD substitution"
    say, and the template sees the same key;
  * a template with an unknown filter inside a branch that never runs is
    refused before anything is rendered, at the filter's line and column,
    and writes nothing;
  * every model written above, and those of tests/data/bulk.man and
    examples/hello/hello.man, is valid under schema/json-model.schema.json
    (JSON Schema 2020-12, checked with python3-jsonschema: skipped, saying
    so, without it); the schema is itself valid, names no key that
    docs/json-model.md does not, and refuses a model with an undescribed
    key, a missing key, a mask not in "0x%016x" form, a struct with an
    input type or a payload plan that breaks its rules (so it is not
    vacuous).

Prints one line per check and "N passed, N failed, N skipped".  The corpus
part is skipped, saying so, when ../shared/corpus is absent.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
from corpus_test import CORPUS, ROOT, manifests  # noqa: E402 (the same list of manifests)

TOP_KEYS = ["mcgenJsonVersion", "file", "fileName", "providers", "messageTable", "cultures"]
DUMP = ("{" + ",".join('"%s":{{ %s | tojson }}' % (k, k) for k in TOP_KEYS) + "}\n"
        "{# header: #}{{ header.providers | length }}\n")

SCHEMA = os.path.join(ROOT, "schema", "json-model.schema.json")
DOC = os.path.join(ROOT, "docs", "json-model.md")

results = {"passed": 0, "failed": 0, "skipped": 0}
validator = None  # schema/json-model.schema.json's, once load_schema() has run


def report(ok, name, why=""):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why))


def report_skip(name, why):
    results["skipped"] += 1
    print("SKIP %s: %s" % (name, why))


def load_schema():
    """Sets `validator` from the schema file, after checking the schema
    itself; reports a skip when python3-jsonschema is missing."""
    global validator
    try:
        import jsonschema
    except ImportError:
        report_skip("json-model schema", "python3-jsonschema is not installed")
        return
    with open(SCHEMA) as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    report(cls is jsonschema.Draft202012Validator,
           "schema/json-model.schema.json declares JSON Schema 2020-12", cls.__name__)
    try:
        cls.check_schema(schema)
        report(True, "schema/json-model.schema.json is a valid schema")
    except jsonschema.SchemaError as e:
        report(False, "schema/json-model.schema.json is a valid schema", e.message)
        return
    validator = cls(schema)
    with open(DOC) as f:
        doc = f.read()
    names = set()

    def props(node):
        if isinstance(node, dict):
            names.update(node.get("properties", {}))
            for v in node.values():
                props(v)
        elif isinstance(node, list):
            for v in node:
                props(v)

    props(schema)
    missing = sorted(n for n in names if "`%s`" % n not in doc)
    report(not missing, "every key the schema names is documented in docs/json-model.md",
           ", ".join(missing))


def schema_valid(name, model):
    if validator is None:
        return
    errors = sorted(validator.iter_errors(model), key=lambda e: list(e.absolute_path))
    report(not errors, name + ": the model is valid under schema/json-model.schema.json",
           "; ".join("%s: %s" % ("/".join(map(str, e.absolute_path)), e.message[:200])
                     for e in errors[:3]))


def schema_refuses(model):
    """The schema is not vacuous: each mutant of a valid model fails."""
    if validator is None or model is None:
        return
    import copy

    def mutant(what, change):
        m = copy.deepcopy(model)
        change(m)
        n = len(list(validator.iter_errors(m)))
        report(n > 0, "the schema refuses a model with " + what, "no error")

    ev = lambda m: m["providers"][0]["events"][0]  # noqa: E731
    mutant("an undescribed key", lambda m: ev(m).update(colour="blue"))
    mutant("a missing key", lambda m: ev(m).pop("loc"))
    mutant("a mask in capitals", lambda m: ev(m).update(keywordMask="0X8000000000000000"))
    mutant("a GUID in lower case", lambda m: m["providers"][0].update(
        guid=m["providers"][0]["guid"].lower()))
    mutant("a version past 255", lambda m: ev(m).update(version=256))

    def struct_with_type(m):
        f = {"name": "s", "kind": "struct", "index": 0, "count": None, "length": None,
             "members": [], "inType": "win:UInt32", "loc": [1, 1]}
        m["providers"][0]["templates"].append({"tid": "t", "name": None, "fields": [f],
                                               "userData": None, "loc": [1, 1]})
    mutant("a struct with an input type", struct_with_type)
    def plan(m, kind):
        """The payload plan of the first field (members too) of a kind."""
        todo = [f for p in m["providers"] for t in p["templates"] for f in t["fields"]]
        while todo:
            f = todo.pop(0)
            if f["payload"]["kind"] == kind:
                return f["payload"]
            todo += f.get("members", [])
        raise LookupError("no %s field" % kind)

    mutant("a string without encoding", lambda m: plan(m, "string").update(encoding=None))
    mutant("a string of termination length without a length",
           lambda m: plan(m, "string").update(termination="length"))
    mutant("a uint32 of 8 bytes", lambda m: plan(m, "uint32").update(size=8))
    mutant("a count of one", lambda m: plan(m, "string").update(count={"fixed": 1}))
    mutant("no fileName", lambda m: m.pop("fileName"))


def dump_and_json(mcgen, manifest, tmp):
    """Runs --json and the dump template together; (rc, json bytes, dump
    bytes, stderr)."""
    tpl = os.path.join(tmp, "dump.j2")
    with open(tpl, "w") as f:
        f.write(DUMP)
    jpath, dpath = os.path.join(tmp, "model.json"), os.path.join(tmp, "dump.txt")
    for p in (jpath, dpath):
        if os.path.exists(p):
            os.remove(p)
    r = subprocess.run([mcgen, "--line-endings=lf", "--json=" + jpath,
                        "--render=%s:%s" % (tpl, dpath), manifest],
                       capture_output=True)
    if r.returncode != 0:
        return r.returncode, None, None, r.stderr.decode("utf-8", "replace")
    with open(jpath, "rb") as f:
        jbytes = f.read()
    with open(dpath, "rb") as f:
        dbytes = f.read()
    return 0, jbytes, dbytes, ""


EVENT_FIELDS = re.compile(r'"template":(?:null|"(?:[^"\\]|\\.)*")(,"fields":)')


def without_event_fields(text):
    """The values' JSON text (bytes, UTF-8 as mcgen writes it) without
    each event's `fields`, the key after its `template`, which only the
    values have (docs/json-model.md, Event)."""
    s, out, at, dec = text.decode("utf-8"), [], 0, json.JSONDecoder()
    for m in EVENT_FIELDS.finditer(s):
        if m.start(1) < at:
            continue  # inside a list cut already
        out.append(s[at:m.start(1)])
        _, at = dec.raw_decode(s, m.end(1))
    out.append(s[at:])
    return "".join(out).encode("utf-8")


def check_same(name, jbytes, dbytes):
    """The dump's first line is --json's text, once each event's `fields`
    is taken out; its second the number of header providers.  Returns the
    parsed model, or None."""
    first, _, rest = dbytes.partition(b"\n")
    cut = without_event_fields(first)
    report(cut + b"\n" == jbytes, name + ": the template's tojson of the values is --json's "
           "bytes, but for events' fields", "first difference at byte %d" % next(
               (i for i, (a, b) in enumerate(zip(cut + b"\n", jbytes)) if a != b),
               min(len(cut) + 1, len(jbytes))))
    try:
        model = json.loads(jbytes.decode("utf-8"))
        values = json.loads(first.decode("utf-8"))
    except ValueError as e:
        report(False, name + ": both documents are JSON", str(e))
        return None
    event_fields(name, model, values)
    report(model == values, name + ": the template's values equal the JSON model, events' "
           "fields aside")
    report(list(model) == TOP_KEYS, name + ": the model's top-level keys are the six the "
           "template dumps", repr(list(model)))
    report(model["fileName"] == os.path.basename(model["file"]),
           name + ": fileName is the base name of file", repr(model["fileName"]))
    payload_plans(name, model)
    report(rest.strip() == str(len(model["providers"])).encode(),
           name + ": the template sees `header`, one entry per provider",
           "%r against %d providers" % (rest, len(model["providers"])))
    schema_valid(name, model)
    return model


def event_fields(name, model, values):
    """Each event of the values carries its template's fields (the same
    list as the template's in --json, [] without a template); --json's
    events do not.  Takes them out of `values`."""
    bad = []
    for p, vp in zip(model["providers"], values["providers"]):
        by_tid = {t["tid"]: t["fields"] for t in p["templates"]}
        for e, ve in zip(p["events"], vp["events"]):
            want = by_tid.get(e["template"], []) if e["template"] is not None else []
            if "fields" in e or ve.pop("fields", None) != want:
                bad.append("%s event %s" % (p["name"], e["value"]))
    report(not bad, name + ": each event's fields are its template's ([] without one); "
           "--json's events have none", ", ".join(bad[:5]))


# The payload plan per inType, written here from the TDH input types
# (../shared/docs/wevt-template.md, winmeta's inTypes), not from mcgen:
# (kind, bytes of one value, encoding, termination without/with length=).
PLAN = {
    "win:Int8": ("int8", 1), "win:UInt8": ("uint8", 1), "win:Int16": ("int16", 2),
    "win:UInt16": ("uint16", 2), "win:Int32": ("int32", 4), "win:UInt32": ("uint32", 4),
    "win:HexInt32": ("uint32", 4), "win:Int64": ("int64", 8), "win:UInt64": ("uint64", 8),
    "win:HexInt64": ("uint64", 8), "win:Float": ("float32", 4), "win:Double": ("float64", 8),
    "win:Boolean": ("bool32", 4), "win:Pointer": ("pointer", None), "win:GUID": ("guid", 16),
    "win:FILETIME": ("filetime", 8), "win:SYSTEMTIME": ("systemtime", 16),
    "win:SID": ("sid", None),
    "win:UnicodeString": ("string", None, "utf16", "nul"),
    "win:AnsiString": ("string", None, "ansi", "nul"),
    "win:CountedUnicodeString": ("string", None, "utf16", "counted"),
    "win:CountedAnsiString": ("string", None, "ansi", "counted"),
    "win:Binary": ("binary", None, None, "none"),
    "win:CountedBinary": ("binary", None, None, "counted"),
}
INTEGER_KINDS = {"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"}


def expected_plan(f):
    """The plan of field f from its inType, outType, count= and length=, as
    docs/json-model.md's table says (mc's header reads a count of 0 or 1 and
    a length of 0 as none; length= counts only for strings and binary
    without a count prefix)."""
    def qty(q, least):
        if q is None or ("fixed" in q and q["fixed"] < least) or \
                ("fixed" not in q and "index" not in q):
            return None
        return q
    count = qty(f["count"], 2)
    if f["kind"] == "struct":
        return {"kind": "struct", "size": None, "encoding": None, "termination": None,
                "count": count, "length": None}
    row = PLAN.get(f["inType"])
    if row is None:
        return {"kind": "unknown", "size": None, "encoding": None, "termination": None,
                "count": count, "length": None}
    kind, size, enc, term = (row + (None, None))[:4]
    length = None
    if term in ("nul", "none"):
        length = qty(f["length"], 1)
        term = "length" if length else term
    if enc == "ansi" and f["outType"] == "win:Utf8":
        enc = "utf8"
    return {"kind": kind, "size": size, "encoding": enc, "termination": term,
            "count": count, "length": length}


def payload_plans(name, model):
    """Every field's payload plan is the table's (expected_plan), and each
    count or length it names is an earlier integer field of the same
    template: a sibling, or a top-level field before the field's top."""
    wrong, refs = [], []

    def walk(tid, fields, top_fields, top_index):
        for f in fields:
            where = "%s/%s" % (tid, f["name"])
            want = expected_plan(f)
            if f["payload"] != want:
                wrong.append("%s: %r, the table says %r" % (where, f["payload"], want))
            for what in ("count", "length"):
                q = f["payload"][what]
                if not q or "fixed" in q:
                    continue
                sibling = q["index"] < f["index"] and fields[q["index"]]["name"] == q["field"] \
                    and fields[q["index"]]
                top = top_index is not None and q["index"] < top_index and \
                    top_fields[q["index"]]["name"] == q["field"] and top_fields[q["index"]]
                ref = sibling or top
                if not ref or ref["payload"]["kind"] not in INTEGER_KINDS:
                    refs.append("%s %s names %r" % (where, what, q))
            if f["kind"] == "struct":
                walk(tid, f["members"], top_fields,
                     f["index"] if top_index is None else top_index)

    n = 0
    for p in model["providers"]:
        for t in p["templates"]:
            walk(t["tid"], t["fields"], t["fields"], None)
            n += len(t["fields"])
    report(not wrong, name + ": every field's payload plan is the table's for its inType, "
           "outType, count and length (%d top-level fields)" % n, "; ".join(wrong[:3]))
    report(not refs, name + ": every count and length of a plan names an earlier integer "
           "field of its template", "; ".join(refs[:3]))


def corpus(mcgen):
    if not os.path.isdir(CORPUS):
        report_skip("corpus", "../shared/corpus is absent")
        return
    compiled = 0
    with tempfile.TemporaryDirectory() as tmp:
        for m in manifests():
            name = os.path.relpath(m, CORPUS)
            alone = subprocess.run([mcgen, "--json=" + os.path.join(tmp, "alone.json"), m],
                                   capture_output=True)
            if alone.returncode != 0:
                # refused manifests are the corpus test's business; it
                # checks that they are refused for the right reason
                report_skip(name, "not compiled (exit %d)" % alone.returncode)
                continue
            compiled += 1
            rc, jbytes, dbytes, err = dump_and_json(mcgen, m, tmp)
            report(rc == 0, name + ": --json and the dump template in one run", err)
            if rc == 0:
                check_same(name, jbytes, dbytes)
    report(compiled >= 40, "the corpus gives at least 40 compiled manifests", str(compiled))


def own_manifests(mcgen):
    """The models of the repository's own manifests, corpus or not: valid
    under the schema, and the schema refuses mutants of the first."""
    first = None
    with tempfile.TemporaryDirectory() as tmp:
        for rel in ("tests/data/bulk.man", "examples/hello/hello.man"):
            rc, jbytes, dbytes, err = dump_and_json(mcgen, os.path.join(ROOT, rel), tmp)
            report(rc == 0, rel + ": --json and the dump template in one run", err)
            if rc == 0:
                model = check_same(rel, jbytes, dbytes)
                first = first or model
    schema_refuses(first)


ODD = """<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation>
    <events>
      <provider name="Odd" guid="{5C0E1B3A-7D2F-4A61-9B8E-2F4D6A1C3E58}" symbol="ODD"
                resourceFileName="odd.dll" messageFileName="odd.dll">
        <events>
          <event value="1" symbol="E1" level="win:Informational"
                 attributes="a&quot;b=1;c\\d=x y;t&#9;k=&quot;q;r&quot;"/>
        </events>
      </provider>
    </events>
  </instrumentation>
</instrumentationManifest>
"""


def odd_strings(mcgen):
    with tempfile.TemporaryDirectory() as tmp:
        # the path's last part is not UTF-8: Latin-1 "caf\xe9"
        man = os.path.join(tmp.encode(), b"caf\xe9.man")
        with open(man, "wb") as f:
            f.write(ODD.encode())
        rc, jbytes, dbytes, err = dump_and_json(mcgen, man, tmp)
        report(rc == 0, "odd strings: compiles", err)
        if rc != 0:
            return
        model = check_same("odd strings", jbytes, dbytes)
        if model is None:
            return
        attrs = model["providers"][0]["events"][0]["attributes"]
        report(attrs == {'a"b': "1", "c\\d": "x y", "t\tk": "q;r"},
               "odd strings: event attribute keys with '\"', '\\' and a tab escaped",
               repr(attrs))
        report(b'"a\\"b":"1","c\\\\d":"x y","t\\tk":"q;r"' in jbytes,
               "odd strings: the escapes are JSON's short forms")
        report(model["file"].endswith("caf\ufffd.man"),
               "odd strings: a path that is not UTF-8 gets U+FFFD for the bad byte",
               repr(model["file"]))
        # the same path in the diagnostics documents
        bad = os.path.join(tmp.encode(), b"caf\xe9-missing.man")
        for fmt in ("json", "sarif"):
            r = subprocess.run([mcgen, "--validate", "--diagnostics-format=" + fmt, bad],
                               capture_output=True)
            try:
                doc = json.loads(r.stdout.decode("utf-8"))
                text = json.dumps(doc, ensure_ascii=False)
                ok = "caf\ufffd-missing.man" in text and r.returncode == 2
                why = "exit %d, %s" % (r.returncode, text[:300])
            except ValueError as e:
                ok, why = False, "not JSON: %s: %r" % (e, r.stdout[:200])
            report(ok, "odd strings: --diagnostics-format=%s names a non-UTF-8 path with "
                   "U+FFFD, as valid JSON" % fmt, why)


def filter_checked_when_parsed(mcgen):
    with tempfile.TemporaryDirectory() as tmp:
        man = os.path.join(tmp, "odd.man")
        with open(man, "w") as f:
            f.write(ODD)
        tpl = os.path.join(tmp, "t.j2")
        with open(tpl, "w") as f:
            f.write("events:\n{% if false %}\n  {{ providers | lenght }}\n{% endif %}\n")
        out = os.path.join(tmp, "out.txt")
        r = subprocess.run([mcgen, "--render=%s:%s" % (tpl, out), man],
                           capture_output=True, text=True)
        want = ("%s:3:18: error: unknown filter 'lenght' (did you mean 'length'?)\n"
                "    {{ providers | lenght }}\n                   ^\n1 error\n" % tpl)
        report(r.returncode != 0 and r.stderr == want,
               "an unknown filter in a branch that never runs is an error at its place",
               "exit %d, stderr %r" % (r.returncode, r.stderr))
        report(not os.path.exists(out), "and nothing is written")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mcgen", default=os.path.join(ROOT, "build", "mcgen"))
    args = ap.parse_args()
    mcgen = os.path.abspath(args.mcgen)
    load_schema()
    own_manifests(mcgen)
    odd_strings(mcgen)
    filter_checked_when_parsed(mcgen)
    corpus(mcgen)
    print("%d passed, %d failed, %d skipped" % (results["passed"], results["failed"],
                                                results["skipped"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
