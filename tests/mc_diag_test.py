#!/usr/bin/env python3
"""Diagnostics of message-text (.mc) files, beyond tests/invalid's one case
per code: what a run does with several problems, with warnings only, and in
the machine-readable formats.

  * every problem in one run: one .mc with five independent errors (an
    undefined severity, a duplicate SymbolicName, an insert %100, a bad
    !format!, a last text without its '.') gets all five, each at the
    offending token (positions computed here from the file's own text),
    exit 1, and a compile writes nothing;
  * warnings only (a line of '.' and a blank, an insert followed by a lone
    '!', a message missing a language): the compile exits 0 and writes the
    header, the .rc and both tables; with -Werror the three are errors,
    exit 1, and the earlier outputs stay as they were;
  * UTF-16 input: positions count characters and the source line is the
    decoded text (json "source");
  * SARIF: the .mc's errors as results with the file, line, column and
    rule id, valid against the SARIF 2.1.0 schema as tests/diagfmt_test.py
    checks it (skipped without the schema or python3-jsonschema);
  * --validate of several .mc files and a manifest in one run reports each
    file's problems;
  * ../shared/corpus: --validate on the five golden-mc inputs and every
    .mc of mc-sources reports no error (skipped without ../shared); nssm's
    warnings are MCG5112 at a '!' right after an insert, which mc accepts
    and FormatMessage fails on.
Prints PASS/FAIL/SKIP lines and "N passed, N failed, N skipped".
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from diagfmt_test import check, consistent, results, schema_path, skip, validate_schema  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "corpus")
HELLO = os.path.join(ROOT, "examples", "hello", "hello.man")

SEVERAL = """\
SeverityNames=(Success=0x0:STATUS_SEVERITY_SUCCESS
               Error=0x3:STATUS_SEVERITY_ERROR)
MessageId=1
Severity=Fatal
SymbolicName=MSG_ONE
Language=English
First %100 text.
.
MessageId=2
SymbolicName=MSG_ONE
Language=English
Bad format %1!q! here.
.
MessageId=3
SymbolicName=MSG_THREE
Language=English
Never ends
"""

WARNINGS_ONLY = """\
LanguageNames=(English=0x409:MSG00409
               German=0x407:MSG00407)
MessageId=1
SymbolicName=MSG_DOTS
Language=English
Dots follow.
. 
.
Language=German
Punkte folgen.
.
MessageId=2
SymbolicName=MSG_NOT_FOUND
Language=English
Service %1 not found in %2!
.
"""


def at(text, line_start, token, which=1):
    """(line, column) of `token` on the which-th line starting with
    `line_start`, 1-based, columns in characters."""
    lines = [(i, line) for i, line in enumerate(text.splitlines(), 1)
             if line.startswith(line_start)]
    i, line = lines[which - 1]
    return i, line.index(token) + 1


def diagnostics(stderr):
    """(file, line, column, level, code) of each text-format headline."""
    return [(m[0], int(m[1]), int(m[2]), m[3], m[4]) for m in re.findall(
        r"^(\S+?):(\d+):(\d+): (error|warning): \[(MCG\d{4})", stderr, re.M)]


def run(mcgen, args, cwd):
    return subprocess.run([mcgen, *args], cwd=cwd, capture_output=True, text=True,
                          errors="replace")


def snapshot(d):
    return {f: (open(os.path.join(d, f), "rb").read(), os.stat(os.path.join(d, f)).st_mtime_ns)
            for f in sorted(os.listdir(d))}


def several_expected():
    t = SEVERAL
    return sorted([
        ("several.mc",) + at(t, "Severity=Fatal", "Fatal") + ("error", "MCG5101"),
        ("several.mc",) + at(t, "First", "%100") + ("error", "MCG5107"),
        # a duplicate at its second use, the first named in a note
        ("several.mc",) + at(t, "SymbolicName=MSG_ONE", "MSG_ONE", 2) + ("error", "MCG5104"),
        ("several.mc",) + at(t, "Bad format", "!q!") + ("error", "MCG5108"),
        # a text without its '.': at the language name that opened it
        ("several.mc",) + at(t, "Language=English", "English", 3) + ("error", "MCG1303"),
    ])


def test_every_problem(mcgen, tmp):
    with open(os.path.join(tmp, "several.mc"), "w", newline="\r\n") as f:
        f.write(SEVERAL)
    want = several_expected()
    v = run(mcgen, ["--validate", "several.mc"], tmp)
    got = sorted(diagnostics(v.stderr))
    check(got == sorted(want) and v.returncode == 1 and v.stderr.endswith("\n5 errors\n"),
          "several.mc: --validate reports all five problems, each at its token, exit 1",
          (got, want, v.returncode, v.stderr[-200:]))
    # the caret line under each headline is the source line
    lines = SEVERAL.splitlines()
    shown = re.findall(r"^several\.mc:(\d+):\d+: .*\n  (.*)\n", v.stderr, re.M)
    check(len(shown) == 5 and all(src == lines[int(n) - 1] for n, src in shown),
          "several.mc: every diagnostic shows its source line", shown)
    out = os.path.join(tmp, "out-several")
    os.mkdir(out)
    c = run(mcgen, ["-h", out, "-r", out, "-x", out, "several.mc"], tmp)
    check(c.returncode == 1 and sorted(diagnostics(c.stderr)) == got and os.listdir(out) == [],
          "several.mc: a compile reports the same five, exit 1, writes nothing",
          (c.returncode, os.listdir(out)))


def test_warnings_only(mcgen, tmp):
    t = WARNINGS_ONLY
    with open(os.path.join(tmp, "warn.mc"), "w", newline="\r\n") as f:
        f.write(t)
    want = sorted([
        ("warn.mc",) + at(t, ". ", " ") + ("warning", "MCG1305"),  # the blank after '.'
        ("warn.mc",) + at(t, "Service", "!") + ("warning", "MCG5112"),
        ("warn.mc",) + at(t, "MessageId=2", "MessageId") + ("warning", "MCG5110"),
    ])
    out = os.path.join(tmp, "out-warn")
    os.mkdir(out)
    c = run(mcgen, ["-h", out, "-r", out, "warn.mc"], tmp)
    written = sorted(os.listdir(out))
    check(c.returncode == 0 and sorted(diagnostics(c.stderr)) == want and
          c.stderr.endswith("\n3 warnings\n") and
          written == ["MSG00407.bin", "MSG00409.bin", "warn.h", "warn.rc"],
          "warn.mc: three warnings, exit 0, header, .rc and both tables written",
          (c.returncode, diagnostics(c.stderr), want, written))
    # the line of '.' and a blank is text, as the warning says (Unicode
    # table, each line followed by CR LF)
    table = open(os.path.join(out, "MSG00409.bin"), "rb").read()
    check("Dots follow.\r\n. \r\n".encode("utf-16-le") in table,
          "warn.mc: the '. ' line is in the English text")
    before = snapshot(out)
    e = run(mcgen, ["-Werror", "-h", out, "-r", out, "warn.mc"], tmp)
    check(e.returncode == 1 and
          sorted(diagnostics(e.stderr)) == [d[:3] + ("error", d[4]) for d in want] and
          e.stderr.count("-Werror=") == 3 and snapshot(out) == before,
          "warn.mc -Werror: the three are errors, exit 1, the earlier outputs untouched",
          (e.returncode, e.stderr[-300:]))
    v = run(mcgen, ["--validate", "-Werror", "warn.mc"], tmp)
    check(v.returncode == 1 and sorted(diagnostics(v.stderr)) == sorted(diagnostics(e.stderr)),
          "warn.mc --validate -Werror: the same three errors", v.stderr[-300:])


def test_utf16(mcgen, tmp):
    text = "MessageId=1\r\nSymbolicName=MSG_SIZE\r\nLanguage=English\r\nGröße %100 € ok\r\n.\r\n"
    with open(os.path.join(tmp, "wide.mc"), "wb") as f:
        f.write(b"\xff\xfe" + text.encode("utf-16-le"))
    r = run(mcgen, ["--validate", "--diagnostics-format=json", "wide.mc"], tmp)
    doc = json.loads(r.stdout)
    d = doc["diagnostics"]
    check(r.returncode == 1 and len(d) == 1 and d[0]["code"] == "MCG5107" and
          (d[0]["line"], d[0]["column"]) == at(text, "Größe", "%") and
          d[0]["source"] == "Größe %100 € ok",
          "wide.mc (UTF-16LE): the insert's column in characters, the decoded source line", d)
    r = run(mcgen, ["--validate", "wide.mc"], tmp)
    check("\n  Größe %100 € ok\n        ^\n" in r.stderr,
          "wide.mc: the caret line shows the text under its character", r.stderr)


def test_sarif(mcgen, tmp, schema):
    r = run(mcgen, ["--validate", "--diagnostics-format=sarif", "several.mc"], tmp)
    log = json.loads(r.stdout)
    res = log["runs"][0]["results"]
    got = sorted((x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                  x["locations"][0]["physicalLocation"]["region"]["startLine"],
                  x["locations"][0]["physicalLocation"]["region"]["startColumn"],
                  x["level"], x["ruleId"]) for x in res)
    want = several_expected()
    check(r.returncode == 1 and r.stderr == "" and got == want,
          "sarif: several.mc's five errors with file, line, column and rule id", (got, want))
    snippet = {x["ruleId"]: x["locations"][0]["physicalLocation"]["region"]["snippet"]["text"]
               for x in res}
    check(snippet.get("MCG5108") == "Bad format %1!q! here.",
          "sarif: the snippet is the source line", snippet)
    rules = {x["id"]: x for x in log["runs"][0]["tool"]["driver"]["rules"]}
    check(rules.get("MCG5107", {}).get("help", {}).get("text", "").endswith(
        "docs/diagnostics.md#mcg5107-mc-insert-number-error in mcgen's sources."),
        "sarif: MCG5107's help names its docs/diagnostics.md entry", rules.get("MCG5107"))
    with open(os.path.join(ROOT, "docs", "diagnostics.md"), encoding="utf-8") as f:
        check("\n## MCG5107 mc-insert-number (error)\n" in f.read(),
              "sarif: that entry is a heading of docs/diagnostics.md")
    consistent(log, "sarif: several.mc")
    validate_schema(log, schema, "sarif: several.mc")
    # a .mc, a second .mc and a manifest in one --validate
    r = run(mcgen, ["--validate", "--diagnostics-format=sarif", "several.mc", "warn.mc", "wide.mc",
                    HELLO], tmp)
    log = json.loads(r.stdout)
    uris = {x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for x in log["runs"][0]["results"]}
    check(r.returncode == 1 and uris == {"several.mc", "warn.mc", "wide.mc"},
          "sarif: --validate of three .mc and a manifest reports each file's problems", uris)
    validate_schema(log, schema, "sarif: three .mc and a manifest")


def test_corpus(mcgen):
    golden = sorted(glob.glob(os.path.join(SHARED, "golden-mc", "*", "input.mc")))
    sources = sorted(p for p in glob.glob(os.path.join(SHARED, "mc-sources", "**", "*"),
                                          recursive=True) if p.lower().endswith(".mc"))
    if not golden:
        skip("corpus .mc files", "no ../shared/corpus/golden-mc")
        return
    check(len(golden) == 5, "five golden-mc inputs", golden)
    for p in golden + sources:
        name = os.path.relpath(p, SHARED)
        r = run(mcgen, ["--validate", p], None)
        check(r.returncode == 0 and ": error: " not in r.stderr,
              "%s: --validate, 0 errors" % name, r.stderr[-400:])
        for f, line, col, level, code in diagnostics(r.stderr):
            if code != "MCG5112":
                check(False, "%s: only MCG5112 warnings" % name, code)
                continue
        # each MCG5112 points at a '!' right after an insert (%N)
        src = re.findall(r": warning: \[MCG5112.*\n  (.*)\n( *)\^", r.stderr)
        bad = [s for s, pad in src if not re.search(r"%\d{1,2}$", s[:len(pad) - 2]) or
               s[len(pad) - 2] != "!"]
        check(not bad, "%s: every MCG5112 caret is on a '!' after an insert (%d)" %
              (name, len(src)), bad[:3])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    args = ap.parse_args()
    mcgen = os.path.abspath(args.mcgen)
    schema = None
    try:
        import jsonschema  # noqa: F401
        if os.path.exists(schema_path()):
            schema = json.load(open(schema_path(), encoding="utf-8"))
    except ImportError:
        pass
    with tempfile.TemporaryDirectory() as tmp:
        test_every_problem(mcgen, tmp)
        test_warnings_only(mcgen, tmp)
        test_utf16(mcgen, tmp)
        if schema is None:
            skip("sarif schema", "no SARIF schema from ./setup or no python3-jsonschema")
        test_sarif(mcgen, tmp, schema)
    test_corpus(mcgen)
    print("%d passed, %d failed, %d skipped" %
          (results["passed"], results["failed"], results["skipped"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
