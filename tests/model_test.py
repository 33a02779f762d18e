#!/usr/bin/env python3
"""Model tests: user templates see exactly the JSON model, and every JSON
document mcgen writes is valid.

One walk of the model feeds both `--json` and the values of `--render`
templates (mcgen/emit_json.c, mcgen/emit_render.c).  This test holds them to it:

  * for every corpus manifest (../shared/corpus: golden/*/input.man and
    manifests/**) that compiles, one run writes `--json` and renders a
    template that writes each top-level value back with the `tojson` filter
    (DUMP below); the two files must be the same bytes, python's json
    module must read both to equal values, the model's top-level keys must
    be exactly the five the template names (a new key would fail here, not
    go unnoticed), and the template must also see `header` with one entry
    per provider;
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
    key, a missing key, a mask not in "0x%016x" form or a struct with an
    input type (so it is not vacuous).

Prints one line per check and "N passed, N failed, N skipped".  The corpus
part is skipped, saying so, when ../shared/corpus is absent.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
from corpus_test import CORPUS, ROOT, manifests  # noqa: E402 (the same list of manifests)

TOP_KEYS = ["mcgenJsonVersion", "file", "providers", "messageTable", "cultures"]
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


def check_same(name, jbytes, dbytes):
    """The dump's first line is --json's text; its second the number of
    header providers.  Returns the parsed model or None."""
    first, _, rest = dbytes.partition(b"\n")
    report(first + b"\n" == jbytes, name + ": the template's tojson of the values is --json's "
           "bytes", "first difference at byte %d" % next(
               (i for i, (a, b) in enumerate(zip(first + b"\n", jbytes)) if a != b),
               min(len(first) + 1, len(jbytes))))
    try:
        model = json.loads(jbytes.decode("utf-8"))
        values = json.loads(first.decode("utf-8"))
    except ValueError as e:
        report(False, name + ": both documents are JSON", str(e))
        return None
    report(model == values, name + ": the template's values equal the JSON model")
    report(list(model) == TOP_KEYS, name + ": the model's top-level keys are the five the "
           "template dumps", repr(list(model)))
    report(rest.strip() == str(len(model["providers"])).encode(),
           name + ": the template sees `header`, one entry per provider",
           "%r against %d providers" % (rest, len(model["providers"])))
    schema_valid(name, model)
    return model


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
