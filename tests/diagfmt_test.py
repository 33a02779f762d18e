#!/usr/bin/env python3
"""--diagnostics-format=json|sarif and --diagnostics-output.

Runs `mcgen --validate` on every tests/invalid/*.man and *.mc (by glob, so
new cases are covered) in the three formats and checks that:
  * json and sarif write one JSON document to stdout and nothing to stderr,
    with the exit status of the text run;
  * each JSON diagnostic rebuilds the text run's line word for word
    ("file:line:col: level: [CODE] message" and the source line);
  * one known case (MCG1001-xml-syntax.man) has exactly the expected fields;
  * the SARIF log is valid against the SARIF 2.1.0 JSON schema (from the
    npm package @microsoft/jest-sarif, unpacked by ./setup outside the
    repository; "skipped" when it or python3-jsonschema is missing), and
    its rules, ruleIndex and relative URIs are consistent;
  * a flood of one code (999 unused strings) is cut after 100 in the text
    format, with one line for the rest, and kept whole in json;
  * examples/ci: the problem matcher's regexp extracts file, line, column,
    severity, code and message from a real line; the workflow is YAML
    (skipped without PyYAML).
Prints PASS/FAIL/SKIP lines and "N passed, N failed, N skipped".
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INVALID = os.path.join(ROOT, "tests", "invalid")
HELLO = os.path.join(ROOT, "examples", "hello", "hello.man")
CI = os.path.join(ROOT, "examples", "ci")
results = {"passed": 0, "failed": 0, "skipped": 0}


def check(ok, name, why=""):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + str(why)))


def skip(name, why):
    results["skipped"] += 1
    print("SKIP %s: skipped (%s)" % (name, why))


def run(mcgen, *args, cwd=INVALID):
    return subprocess.run([mcgen, *args], capture_output=True, cwd=cwd)


def schema_path():
    """Where ./setup unpacks the SARIF schema (the same rule as setup's)."""
    cache = os.environ.get("MCGEN_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "mcgen")
    return os.path.join(cache, "sarif-schema", "sarif-2.1.0-rtm.5.json")


def headlines(stderr):
    """The text run's diagnostics: (headline, source line or None)."""
    out = []
    lines = stderr.decode("utf-8", "replace").splitlines()
    i = 0
    while i < len(lines):
        src = None
        if (i + 2 < len(lines) and lines[i + 1].startswith("  ") and
                lines[i + 2].startswith("  ") and lines[i + 2].strip(" \t") == "^"):
            src = lines[i + 1][2:]
        out.append((lines[i], src))
        i += 3 if src is not None else 1
    return out


def warning_codes():
    """The codes whose default level is warning (mcgen/diagcodes.def)."""
    with open(os.path.join(ROOT, "mcgen", "diagcodes.def"), encoding="utf-8") as f:
        return {"MCG%04d" % int(n) for n in
                re.findall(r'^DIAG_CODE\((\d+),[^,]+,[^,]+,\s*DIAG_WARNING', f.read(), re.M)}


WARNINGS = warning_codes()


def summary(diags):
    """The text format's closing line for these diagnostics ("" if none)."""
    n = {lvl: sum(d["level"] == lvl for d in diags) for lvl in ("error", "warning")}
    parts = ["%d %s%s" % (n[lvl], lvl, "" if n[lvl] == 1 else "s")
             for lvl in ("error", "warning") if n[lvl]]
    return ", ".join(parts)


def rebuild(d):
    """A JSON diagnostic as the text format prints its first line."""
    where = d["file"] or "mcgen"
    if d["file"] and d["line"]:
        where = "%s:%d:%d" % (d["file"], d["line"], d["column"])
    text = "%s: %s: " % (where, d["level"])
    if d["code"] in WARNINGS:
        text += "[%s, -W%s%s] " % (d["code"], "error=" if d["level"] == "error" else "",
                                  d["name"])
    elif d["code"]:
        text += "[%s] " % d["code"]
    text += d["message"]
    for r in d["related"]:
        rw = r["file"] if not r["line"] else "%s:%d:%d" % (r["file"], r["line"], r["column"])
        text += " (%s at %s)" % (r["message"], rw)
    return text


def invalid_cases():
    """The manifests and message-text files of tests/invalid."""
    return sorted(os.path.basename(p) for ext in ("*.man", "*.mc")
                  for p in glob.glob(os.path.join(INVALID, ext)))


def test_cases(mcgen):
    cases = invalid_cases()
    check(len(cases) >= 3, "tests/invalid has cases", cases)
    for name in cases:
        gcc = run(mcgen, "--validate", name)
        gcc2 = run(mcgen, "--validate", "--diagnostics-format=gcc", name)
        check(gcc2.stderr == gcc.stderr and gcc2.returncode == gcc.returncode and
              not gcc2.stdout, name + ": --diagnostics-format=gcc is the default text")
        js = run(mcgen, "--validate", "--diagnostics-format=json", name)
        try:
            doc = json.loads(js.stdout)
        except ValueError as e:
            check(False, name + ": json output parses", e)
            continue
        check(js.returncode == gcc.returncode and js.stderr == b"",
              name + ": json: same exit status, stderr empty",
              (js.returncode, gcc.returncode, js.stderr))
        want = headlines(gcc.stderr)
        closing = want.pop()[0] if want else ""
        got = [(rebuild(d), d["source"]) for d in doc["diagnostics"]]
        check(closing == summary(doc["diagnostics"]),
              name + ": the text's closing line counts the document's errors and warnings",
              (closing, summary(doc["diagnostics"])))
        check(doc["version"] == 1 and got == want,
              name + ": json diagnostics rebuild the text output", (got, want))
        sa = run(mcgen, "--validate", "--diagnostics-format=sarif", name)
        try:
            log = json.loads(sa.stdout)
        except ValueError as e:
            check(False, name + ": sarif output parses", e)
            continue
        check(sa.returncode == gcc.returncode and sa.stderr == b"",
              name + ": sarif: same exit status, stderr empty")
        res = log["runs"][0]["results"]
        check([(r["level"], r["ruleId"]) for r in res] ==
              [(d["level"], d["code"] or "MCG0000") for d in doc["diagnostics"] if d["file"]],
              name + ": sarif results follow the json diagnostics")


XML_SYNTAX_JSON = {
    "level": "error", "code": "MCG1001", "name": "xml-syntax", "file": "MCG1001-xml-syntax.man",
    "line": 13, "column": 3, "message": "malformed XML: mismatched tag", "related": [],
    "source": "</instrumentationManifes>"}


def test_known(mcgen, schema):
    r = run(mcgen, "--validate", "--diagnostics-format=json", "MCG1001-xml-syntax.man")
    doc = json.loads(r.stdout)
    check(doc == {"version": 1, "diagnostics": [XML_SYNTAX_JSON]} and r.returncode == 1,
          "json: MCG1001-xml-syntax.man, exact fields", doc)
    check(list(doc["diagnostics"][0]) == list(XML_SYNTAX_JSON),
          "json: keys in the documented order", list(doc["diagnostics"][0]))
    # the same from the repository root with an absolute path: the URI is
    # relative to the current directory
    r = run(mcgen, "--validate", "--diagnostics-format=sarif",
            os.path.join(INVALID, "MCG1001-xml-syntax.man"), cwd=ROOT)
    log = json.loads(r.stdout)
    want_result = {
        "ruleId": "MCG1001", "ruleIndex": 0, "level": "error",
        "message": {"text": "malformed XML: mismatched tag"},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": "tests/invalid/MCG1001-xml-syntax.man", "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": 13, "startColumn": 3,
                       "snippet": {"text": "</instrumentationManifes>"}}}}]}
    run0 = log["runs"][0]
    check(run0["results"] == [want_result], "sarif: MCG1001-xml-syntax.man, exact result",
          run0["results"])
    rule = run0["tool"]["driver"]["rules"]
    check(rule == [{
        "id": "MCG1001", "name": "XmlSyntax",
        "shortDescription": {"text": "the file is not well-formed XML"},
        "fullDescription": {"text": "MCG1001: the file is not well-formed XML (error by default)."},
        "help": {"text": "The rule, a failing example and the fix: "
                         "docs/diagnostics.md#mcg1001-xml-syntax-error in mcgen's sources."},
        "defaultConfiguration": {"level": "error"}}], "sarif: the rule of MCG1001", rule)
    # --version's first line is "mcgen VERSION"
    first = run(mcgen, "--version").stdout.decode().splitlines()[0].split()
    ver = first[1] if len(first) == 2 and first[0] == "mcgen" else "(--version: %r)" % first
    check(log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json" and
          log["version"] == "2.1.0" and len(log["runs"]) == 1 and
          run0["tool"]["driver"]["name"] == "mcgen" and
          run0["tool"]["driver"]["version"] == ver,
          "sarif: $schema, version, one run, tool mcgen " + ver)
    # the docs anchor the help text names exists
    with open(os.path.join(ROOT, "docs", "diagnostics.md"), encoding="utf-8") as f:
        check("\n## MCG1001 xml-syntax (error)\n" in f.read(),
              "sarif: help.text names a heading of docs/diagnostics.md")


def validate_schema(log, schema, name):
    if schema is None:
        return
    import jsonschema
    errors = []
    for cls in (jsonschema.validators.validator_for(schema), jsonschema.Draft7Validator):
        v = cls(schema)
        errors += ["%s: %s at %s" % (cls.__name__, e.message, list(e.absolute_path))
                   for e in v.iter_errors(log)]
    check(not errors, name + ": valid against the SARIF 2.1.0 schema", errors[:3])


def consistent(log, name):
    """ruleIndex and ruleId agree; rules are unique; URIs relative."""
    run0 = log["runs"][0]
    rules = run0["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    bad = [r for r in run0["results"]
           if rules[r["ruleIndex"]]["id"] != r["ruleId"] or
           not re.fullmatch(r"MCG\d{4}", r["ruleId"])]
    uris = [loc["physicalLocation"]["artifactLocation"]
            for r in run0["results"] for loc in r.get("locations", []) + r.get("relatedLocations", [])]
    bad_uri = [u for u in uris if u.get("uriBaseId") != "%SRCROOT%" or
               u["uri"].startswith("/") or "\\" in u["uri"] or " " in u["uri"]]
    # GitHub code scanning refuses the whole log when a result has no
    # location with an artifact URI
    bad += [r for r in run0["results"] if not r.get("locations") or
            not r["locations"][0]["physicalLocation"]["artifactLocation"].get("uri")]
    check(not bad and len(set(ids)) == len(ids) and ids == sorted(ids) and
          set(ids) == {r["ruleId"] for r in run0["results"]} and not bad_uri,
          name + ": rules used once each, ruleIndex matches ruleId, relative URIs",
          (bad, ids, bad_uri))


def test_sarif_all(mcgen, schema):
    names = invalid_cases()
    # several manifests, a missing one and a clean one in one run
    r = run(mcgen, "--validate", "--diagnostics-format=sarif", *names, "missing.man", HELLO)
    log = json.loads(r.stdout)
    check(r.returncode == 2 and r.stderr == b"",
          "sarif: a --validate run of every case + a missing file: one document, exit 2",
          (r.returncode, r.stderr))
    inv = log["runs"][0]["invocations"]
    check(inv == [{"executionSuccessful": False, "toolExecutionNotifications": [{
        "level": "error",
        "message": {"text": "cannot open 'missing.man': No such file or directory"}}]}],
        "sarif: an unreadable input is a tool execution notification, not a result", inv)
    consistent(log, "sarif: every case")
    validate_schema(log, schema, "sarif: every case")
    if schema is not None:
        # the check can fail: a level SARIF does not have, a result without
        # a message
        import copy
        import jsonschema
        bad = copy.deepcopy(log)
        bad["runs"][0]["results"][0]["level"] = "fatal"
        del bad["runs"][0]["results"][-1]["message"]
        n = len(list(jsonschema.validators.validator_for(schema)(schema).iter_errors(bad)))
        check(n >= 2, "sarif: the schema check refuses a broken log", n)
    r2 = run(mcgen, "--validate", "--diagnostics-format=sarif", *names, "missing.man", HELLO)
    check(r2.stdout == r.stdout, "sarif: the same run gives the same bytes")
    jr = run(mcgen, "--validate", "--diagnostics-format=json", *names, "missing.man", HELLO)
    doc = json.loads(jr.stdout)
    check(jr.returncode == 2 and len(doc["diagnostics"]) == len(log["runs"][0]["results"]) + 1,
          "json: the same run, as many diagnostics (+ the notification)")
    # a clean manifest: an empty document, exit 0
    for fmt in ("json", "sarif"):
        r = run(mcgen, "--validate", "--diagnostics-format=" + fmt, HELLO)
        d = json.loads(r.stdout)
        empty = d["diagnostics"] if fmt == "json" else d["runs"][0]["results"]
        check(r.returncode == 0 and empty == [] and r.stderr == b"",
              fmt + ": a clean manifest: no diagnostics, exit 0")
        if fmt == "sarif":
            validate_schema(d, schema, "sarif: a clean run")


def test_paths_and_output(mcgen, schema):
    tmp = tempfile.mkdtemp(prefix="mcgen-diagfmt-")
    try:
        sub = os.path.join(tmp, "my dir")
        os.mkdir(sub)
        shutil.copy(os.path.join(INVALID, "MCG1003-xml-root.man"), os.path.join(sub, "a b#1.man"))
        weird = 'we"ird\\.man'
        shutil.copy(os.path.join(INVALID, "MCG1001-xml-syntax.man"), os.path.join(tmp, weird))
        r = run(mcgen, "--validate", "--diagnostics-format=sarif", "./my dir/a b#1.man",
                weird, cwd=tmp)
        log = json.loads(r.stdout)
        uris = [x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                for x in log["runs"][0]["results"]]
        # '\\' is a directory separator, as in the rest of mcgen
        check(uris == ["my%20dir/a%20b%231.man", "we%22ird/.man"],
              "sarif: URIs relative, './' dropped, '\\' as '/', other characters "
              "percent-encoded",
              uris)
        validate_schema(log, schema, "sarif: odd file names")
        r = run(mcgen, "--validate", "--diagnostics-format=json", weird, cwd=tmp)
        doc = json.loads(r.stdout)
        check(doc["diagnostics"][0]["file"] == weird, "json: a file name with '\"' and '\\'",
              doc["diagnostics"][0]["file"])
        # outside the current directory: an absolute file: URI
        r = run(mcgen, "--validate", "--diagnostics-format=sarif",
                os.path.join(sub, "a b#1.man"), cwd=ROOT)
        loc = json.loads(r.stdout)["runs"][0]["results"][0]["locations"][0]
        art = loc["physicalLocation"]["artifactLocation"]
        check(art == {"uri": "file://" + sub.replace(" ", "%20") + "/a%20b%231.man"},
              "sarif: a file outside the current directory gets a file: URI", art)
        # --diagnostics-output: the document in a file, stdout and stderr empty
        out = os.path.join(tmp, "out.sarif")
        r = run(mcgen, "--validate", "--diagnostics-format=sarif",
                "--diagnostics-output", out, os.path.join(INVALID, "MCG1001-xml-syntax.man"))
        with open(out, "rb") as f:
            body = f.read()
        check(r.returncode == 1 and r.stdout == b"" and r.stderr == b"" and
              json.loads(body)["runs"][0]["results"][0]["ruleId"] == "MCG1001",
              "--diagnostics-output=FILE: the document in FILE, nothing on stdout or stderr")
        r = run(mcgen, "--validate", "--diagnostics-format=json",
                "--diagnostics-output=" + os.path.join(tmp, "no", "such", "x.json"),
                os.path.join(INVALID, "MCG1001-xml-syntax.man"))
        check(r.returncode == 2 and r.stdout == b"" and
              r.stderr.startswith(b"mcgen: error: cannot "),
              "--diagnostics-output into a missing directory: text error, exit 2", r.stderr)
        # a compilation (not --validate) records its diagnostics too
        r = run(mcgen, "--diagnostics-format=json", "-h", os.path.join(tmp, "h"),
                os.path.join(INVALID, "MCG1001-xml-syntax.man"), cwd=tmp)
        doc = json.loads(r.stdout)
        check(r.returncode == 1 and doc["diagnostics"][0]["code"] == "MCG1001" and
              not os.path.exists(os.path.join(tmp, "h")),
              "json: a compilation's errors, no outputs, exit 1")
    finally:
        shutil.rmtree(tmp)


def test_template_error(mcgen):
    """A template error's text ends with its source line and a caret; in
    the documents its message is the first line alone, at its place."""
    hello = os.path.join(ROOT, "examples", "hello", "hello.man")
    with tempfile.TemporaryDirectory() as tmp:
        tpl = os.path.join(tmp, "t.j2")
        with open(tpl, "w") as f:
            f.write("a\n{{ providers[0].nmae }}\n")
        out = os.path.join(tmp, "t.txt")
        r = run(mcgen, "--render=%s:%s" % (tpl, out), hello, cwd=tmp)
        text = r.stderr.decode()
        check(r.returncode == 2 and text.startswith(
            tpl + ":2:17: error: no attribute 'nmae' (did you mean 'name'?") and
            "\n  {{ providers[0].nmae }}\n                  ^\n" in text,
            "gcc: a template error with its source line and caret", text)
        for fmt in ("json", "sarif"):
            r = run(mcgen, "--diagnostics-format=" + fmt, "--render=%s:%s" % (tpl, out), hello,
                    cwd=tmp)
            doc = json.loads(r.stdout)
            if fmt == "json":
                d = doc["diagnostics"][0]
                msg, where = d["message"], (d["file"], d["line"], d["column"])
            else:
                d = doc["runs"][0]["results"][0]
                msg = d["message"]["text"]
                reg = d["locations"][0]["physicalLocation"]["region"]
                where = (tpl, reg["startLine"], reg["startColumn"])
            check(r.returncode == 2 and "\n" not in msg and
                  msg.startswith("no attribute 'nmae' (did you mean 'name'?") and
                  where == (tpl, 2, 17),
                  fmt + ": a template error's message is its first line, at its place",
                  (r.returncode, msg, where))
        check(not os.path.exists(out), "a template error writes nothing")


def test_usage(mcgen):
    r = run(mcgen, "--diagnostics-format=sarif", "-q", "x.man")
    log = json.loads(r.stdout)
    res = log["runs"][0]["results"]
    note = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    check(r.returncode == 2 and r.stderr == b"" and res == [] and
          note == [{"level": "error",
                    "message": {"text": "Invalid switch: -q. (see mcgen --help)"}}],
          "sarif: a bad command line is a notification in the document, exit 2",
          (r.returncode, res, note))
    r = run(mcgen, "-q", "--diagnostics-format=json", "x.man")
    doc = json.loads(r.stdout)
    check(r.returncode == 2 and doc["diagnostics"][0]["message"].startswith("Invalid switch"),
          "json: an error before --diagnostics-format on the line is in the document too")
    r = run(mcgen, "--diagnostics-format=xml", "x.man")
    check(r.returncode == 2 and r.stdout == b"" and r.stderr ==
          b"mcgen: error: --diagnostics-format takes gcc, json or sarif, not 'xml' "
          b"(see mcgen --help)\n1 error\n", "--diagnostics-format=xml: usage error, exit 2",
          r.stderr)
    r = run(mcgen, "--diagnostics-format=json", "--print-outputs", "x.man")
    doc = json.loads(r.stdout)
    check(r.returncode == 2 and doc["diagnostics"][0]["message"].startswith(
        "--print-outputs writes to standard output"),
        "--print-outputs with the document on stdout: usage error", doc)
    r = run(mcgen, "--diagnostics-output=x.json", "x.man")
    check(r.returncode == 2 and r.stdout == b"" and r.stderr ==
          b"mcgen: error: --diagnostics-output needs --diagnostics-format=json or sarif "
          b"(see mcgen --help)\n1 error\n", "--diagnostics-output without json or sarif: usage error",
          r.stderr)
    r = run(mcgen, "--diagnostics-format=sarif", "--version")
    check(r.returncode == 0 and r.stdout.startswith(b"mcgen "),
          "--version with sarif: the version, no document")


def test_ci(mcgen):
    with open(os.path.join(CI, "mcgen-problem-matcher.json"), encoding="utf-8") as f:
        matcher = json.load(f)["problemMatcher"][0]
    pat = matcher["pattern"][0]
    # the regexp is written for JavaScript; \d, (?:), +? mean the same in Python
    rx = re.compile(pat["regexp"])
    r = run(mcgen, "--validate", "MCG1003-xml-root.man")
    line = r.stderr.decode().splitlines()[0]
    m = rx.match(line)
    got = m and {k: m.group(pat[k]) for k in
                 ("file", "line", "column", "severity", "code", "message")}
    check(got == {"file": "MCG1003-xml-root.man", "line": "2", "column": "1", "severity": "error",
                  "code": "MCG1003",
                  "message": "not an instrumentation manifest: the root element is "
                             "<instrumentation> (namespace "
                             "'http://schemas.microsoft.com/win/2004/08/events'), expected "
                             "<instrumentationManifest> in namespace "
                             "'http://schemas.microsoft.com/win/2004/08/events'"},
          "problem matcher: file, line, column, severity, code, message of a real line", got)
    m = rx.match("C:\\src\\app.man:30:5: warning: [MCG8001, -Wsymbol-renamed] symbol renamed")
    check(m and m.group(pat["file"]) == "C:\\src\\app.man" and
          m.group(pat["severity"]) == "warning" and m.group(pat["code"]) == "MCG8001" and
          m.group(pat["message"]) == "symbol renamed",
          "problem matcher: a Windows path with a drive letter, a warning and its option")
    m = rx.match("app.man:3:5: error: [MCG5015, -Werror=unused-string] string 'x' unused")
    check(m and m.group(pat["severity"]) == "error" and m.group(pat["code"]) == "MCG5015" and
          m.group(pat["message"]) == "string 'x' unused",
          "problem matcher: a warning made an error by -Werror=NAME")
    check(not rx.match("  <event value='1'/>") and not rx.match("  ^"),
          "problem matcher: source and caret lines do not match")
    try:
        import yaml
    except ImportError:
        skip("examples/ci/manifest-check.yml parses", "no PyYAML")
        return
    with open(os.path.join(CI, "manifest-check.yml"), encoding="utf-8") as f:
        wf = yaml.safe_load(f)
    steps = wf["jobs"]["mcgen"]["steps"]
    text = json.dumps(steps)
    upload = [s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif")]
    on = wf.get("on", wf.get(True))  # YAML 1.1 reads the key `on` as true
    check("pull_request" in on and upload and "always()" in upload[0]["if"] and
          "--diagnostics-format=sarif" in text and "--diagnostics-output=mcgen.sarif" in text,
          "examples/ci/manifest-check.yml parses: pull_request, mcgen sarif, upload always()")


def flood_manifest(n):
    """n strings, one line each, only the first referenced: n - 1 unused
    strings (MCG5015, a warning)."""
    strings = "".join("<string id='s%d' value='S%d'/>\n" % (i, i) for i in range(n))
    return ("<instrumentationManifest xmlns='http://schemas.microsoft.com/win/2004/08/events'>\n"
            "<instrumentation><events>\n"
            "<provider name='A' guid='{00000000-0000-0000-0000-000000000001}' symbol='A'"
            " resourceFileName='a.dll' messageFileName='a.dll' message='$(string.s0)'>\n"
            "<events><event value='1' symbol='E'/></events>\n"
            "</provider></events></instrumentation>\n"
            "<localization><resources culture='en-US'><stringTable>\n" + strings +
            "</stringTable></resources></localization>\n</instrumentationManifest>\n")


def test_flood(mcgen):
    """A flood of one code: 1,000 strings with one reference are 999
    MCG5015 warnings.  The text format prints 100 (the documented default
    of --diagnostics-limit), then one line for the rest before the closing
    count, which counts all 999; json keeps all."""
    d = tempfile.mkdtemp(prefix="mcgen-flood-")
    try:
        with open(os.path.join(d, "flood.man"), "w") as f:
            f.write(flood_manifest(1000))
        more = "\u2026 and %d more [MCG5015] (--diagnostics-limit=0 shows all)"
        for args, shown in (([], 100), (["--diagnostics-limit=10"], 10),
                            (["--diagnostics-limit=0"], 999), (["--diagnostics-limit=999"], 999)):
            r = run(mcgen, "--validate", *args, "flood.man", cwd=d)
            lines = headlines(r.stderr)
            diags = [h for h, _ in lines if h.startswith("flood.man:")]
            unused = [h for h in diags if "[MCG5015, -Wunused-string]" in h]
            tail = [h for h, _ in lines[len(diags):]]
            want = ([more % (999 - shown)] if shown < 999 else []) + ["999 warnings"]
            check(r.returncode == 0 and len(diags) == shown and len(unused) == shown and
                  "string 's1' " in diags[0] and tail == want,
                  "--validate %s: %d of 999 unused-string warnings printed, then %s" %
                  (" ".join(args) or "(default limit)", shown, want),
                  (r.returncode, len(diags), len(unused), tail))
        r = run(mcgen, "--validate", "--diagnostics-format=json", "--diagnostics-limit=5",
                "flood.man", cwd=d)
        doc = json.loads(r.stdout)
        codes = [x["code"] for x in doc["diagnostics"]]
        check(r.returncode == 0 and r.stderr == b"" and codes == ["MCG5015"] * 999,
              "json: every one of the 999 warnings, whatever the limit",
              (r.returncode, len(codes), r.stderr[:200]))
        r = run(mcgen, "--validate", "-Werror=unused-string", "flood.man", cwd=d)
        tail = [h for h, _ in headlines(r.stderr)[-2:]]
        check(r.returncode == 1 and tail == [more % 899, "999 errors"],
              "-Werror=unused-string: 999 errors, 100 printed, exit 1", (r.returncode, tail))
    finally:
        shutil.rmtree(d, ignore_errors=True)
    for bad in ("abc", "-1", "99999999999999999999999"):
        r = run(mcgen, "--diagnostics-limit=" + bad, "x.man")
        check(r.returncode == 2 and r.stderr ==
              b"mcgen: error: --diagnostics-limit takes a number of diagnostics (0: no limit), "
              b"not '" + bad.encode() + b"' (see mcgen --help)\n1 error\n",
              "--diagnostics-limit=%s: usage error, exit 2" % bad, r.stderr)


def test_invalid_utf8_source(mcgen):
    """../shared/repro/diag-json-raw-invalid-utf8.man: a source line with
    bytes that are not UTF-8 (an overlong sequence, an encoded surrogate,
    a lone continuation byte) is malformed XML, and its diagnostic quotes
    that line: the documents stay UTF-8 (RFC 8259 8.1), each such byte
    sequence shown as U+FFFD."""
    d = tempfile.mkdtemp(prefix="mcgen-utf8-")
    try:
        for name, bad in (("overlong", b"\xC0\xAF"), ("surrogate", b"\xED\xA0\x80"),
                          ("continuation", b"\x80")):
            man = (b"<instrumentationManifest xmlns='http://schemas.microsoft.com/win/2004/08/"
                   b"events'>\n<instrumentation><events><provider name='P' symbol='A" + bad +
                   b"B'/></events></instrumentation></instrumentationManifest>\n")
            with open(os.path.join(d, "u.man"), "wb") as f:
                f.write(man)
            for fmt in ("json", "sarif"):
                r = run(mcgen, "--validate", "--diagnostics-format=" + fmt, "u.man", cwd=d)
                try:
                    doc = json.loads(r.stdout.decode("utf-8"))  # strict: no raw bytes
                    text = json.dumps(doc, ensure_ascii=False)
                    ok = "A\ufffd" in text and "\ufffdB" in text
                except ValueError as e:
                    ok, text = False, str(e)
                check(r.returncode == 1 and ok,
                      "%s: a source line with %s bytes is valid UTF-8 JSON (U+FFFD)" % (fmt, name),
                      (r.returncode, text[:300]))
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", default=os.path.join(ROOT, "build", "mcgen"))
    args = ap.parse_args()
    mcgen = os.path.abspath(args.mcgen)
    schema = None
    try:
        import jsonschema  # noqa: F401
        try:
            with open(schema_path(), encoding="utf-8") as f:
                schema = json.load(f)
        except OSError:
            skip("SARIF schema validation", "no %s: run ./setup" % schema_path())
    except ImportError:
        skip("SARIF schema validation", "no jsonschema module: python3-jsonschema")
    test_cases(mcgen)
    test_known(mcgen, schema)
    test_sarif_all(mcgen, schema)
    test_paths_and_output(mcgen, schema)
    test_usage(mcgen)
    test_template_error(mcgen)
    test_flood(mcgen)
    test_invalid_utf8_source(mcgen)
    test_ci(mcgen)
    print("%d passed, %d failed, %d skipped" %
          (results["passed"], results["failed"], results["skipped"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
