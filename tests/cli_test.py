#!/usr/bin/env python3
"""Command-line tests of build/mcgen (no reference corpus needed).

Each bad input gives one precise diagnostic, exit status 1, and leaves no
output file; usage errors exit 2; --json is deterministic and an unchanged
output keeps its mtime; the binary works from any directory (the schema
files are embedded).  Prints "N passed, N failed".
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
import time

import winexe

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HELLO = os.path.join(ROOT, "examples", "hello", "hello.man")
results = {"passed": 0, "failed": 0, "skipped": 0}


def check(ok, name, why=""):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why))


def skip(name, why):
    results["skipped"] += 1
    print("SKIP %s: %s" % (name, why))


def run(mcgen, *args, cwd=None):
    return subprocess.run([mcgen, *args], capture_output=True, text=True, cwd=cwd)


MANIFEST_HEAD = ("<instrumentationManifest xmlns='http://schemas.microsoft.com/win/2004/08/events'"
                 " xmlns:win='http://manifests.microsoft.com/win/2004/08/windows/events'>\n"
                 "<instrumentation><events>\n"
                 "<provider name='P' guid='{00000000-0000-0000-0000-000000000001}' symbol='P'"
                 " resourceFileName='p.dll' messageFileName='p.dll'>\n")
MANIFEST_TAIL = "</provider></events></instrumentation></instrumentationManifest>\n"

def diag(where, msg, src=None):
    """One expected diagnostic: 'file:line:col: msg', the source line, a caret."""
    out = "%s: %s\n" % (where, msg)
    if src is not None:
        col = int(where.rsplit(":", 1)[1])
        out += "  %s\n  %s^\n" % (src, " " * (col - 1))
    return out


EVENTS_LINE = "<events><event value='1' level='win:Loud'/></events>"
STRING_LINE = "<events><event value='1' message='$(string.gone)'/></events>"
LAUGHS_LINE = "<!DOCTYPE x [<!ENTITY a 'aaaa'><!ENTITY b '&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;'>]>"

BAD = {
    "truncated.man": (MANIFEST_HEAD + "<events><event value='1'",
                      diag("truncated.man:4:9", "error: [MCG1001] malformed XML: unclosed token",
                           "<events><event value='1'")),
    "utf16-nobom.man": ((MANIFEST_HEAD + MANIFEST_TAIL).encode("utf-16-le"),
                        diag("utf16-nobom.man:1:1",
                             "error: [MCG1004] UTF-16 input without a byte-order mark or XML "
                             "declaration (XML requires a BOM for UTF-16; save the file with one)")),
    "laughs.man": ("<?xml version='1.0'?>\n" + LAUGHS_LINE + "\n<x>&b;</x>\n",
                   diag("laughs.man:2:1",
                        "error: [MCG1002] document type declarations are not allowed in a manifest "
                        "(DTDs and entities are refused)", LAUGHS_LINE)),
    "level.man": (MANIFEST_HEAD + EVENTS_LINE + "\n" + MANIFEST_TAIL,
                  diag("level.man:4:26", "error: [MCG2001] unknown level 'win:Loud'", EVENTS_LINE)),
    "string.man": (MANIFEST_HEAD + STRING_LINE + "\n" + MANIFEST_TAIL.replace(
                       "</instrumentation>", "</instrumentation><localization><resources "
                       "culture='en-US'><stringTable/>"
                       "</resources></localization>"),
                   diag("string.man:4:26", "error: [MCG5001] undefined string 'gone' in "
                        "'$(string.gone)'", STRING_LINE)),
    "root.man": ("<?xml version='1.0'?>\n<html/>\n",
                 diag("root.man:2:1", "error: [MCG1003] not an instrumentation manifest: the root "
                      "element is <html>, expected <instrumentationManifest> in namespace "
                      "'http://schemas.microsoft.com/win/2004/08/events'", "<html/>")),
}


def listing(d):
    """Every file under d, relative, sorted."""
    out = []
    for base, _, files in os.walk(d):
        out += [os.path.relpath(os.path.join(base, f), d) for f in files]
    return sorted(out)


def table_entries(data):
    """(id, flags, raw text bytes) of a MESSAGE_RESOURCE_DATA blob."""
    import struct
    n = struct.unpack_from("<I", data, 0)[0]
    out = []
    for b in range(n):
        low, high, off = struct.unpack_from("<III", data, 4 + 12 * b)
        for i in range(low, high + 1):
            length, flags = struct.unpack_from("<HH", data, off)
            out.append((i, flags, data[off + 4:off + length]))
            off += length
    return out


def mc_switches(mcgen, tmp):
    """mc.exe's command line: output names, directories, switch errors."""
    work = os.path.join(tmp, "mc")
    os.makedirs(work)
    with open(HELLO, "rb") as f, open(os.path.join(work, "hello.man"), "wb") as g:
        g.write(f.read())

    def clean():
        for f in listing(work):
            if not f.endswith(".man"):
                os.remove(os.path.join(work, f))

    def fresh(*args, name="hello.man"):
        clean()
        return run(mcgen, *args, name, cwd=work)

    r = fresh()
    check(r.returncode == 0 and listing(work) == [
        "MSG00001.bin", "MSG00002.bin", "hello.h", "hello.man", "hello.rc", "helloTEMP.BIN"],
        "mc defaults: <base>.h, <base>.rc, MSG0000N.bin per culture, <base>TEMP.BIN",
        "exit %d %s %r" % (r.returncode, r.stderr, listing(work)))
    rc = open(os.path.join(work, "hello.rc"), "rb").read()
    check(rc == b'LANGUAGE 0x9,0x1\r\n1 11 "MSG00001.bin"\r\nLANGUAGE 0x7,0x1\r\n'
          b'1 11 "MSG00002.bin"\r\n1 WEVT_TEMPLATE "helloTEMP.BIN"\r\n',
          "mc defaults: the .rc names the files, CRLF", repr(rc))
    r = fresh("-z", "x", "-h", "inc/sub", "-r", "res", "-e", "hpp")
    check(r.returncode == 0 and listing(work) == [
        "hello.man", "inc/sub/x.hpp", "res/x.rc", "res/xTEMP.BIN", "res/x_MSG00001.bin",
        "res/x_MSG00002.bin"], "-z -h -r -e: names and directories (created)",
        "exit %d %s %r" % (r.returncode, r.stderr, listing(work)))
    r = fresh("/b", "/r", "res")
    check(r.returncode == 0 and "res/hello_MSG00001.bin" in listing(work),
          "'/' switches; -b: <input base>_MSG00001.bin", "%s %r" % (r.stderr, listing(work)))
    r = run(mcgen, "--print-outputs", "--base-name=y", "--rc-dir", "out", "hello.man", cwd=work)
    check(r.returncode == 0 and r.stdout == "y.h\nout/y.rc\nout/y_MSG00001.bin\n"
          "out/y_MSG00002.bin\nout/yTEMP.BIN\n" and not os.path.exists(os.path.join(work, "out")),
          "--print-outputs lists, writes nothing; long forms of -z and -r", r.stdout + r.stderr)
    r = fresh("--line-endings=lf", "-cp", "utf-16")
    rc = open(os.path.join(work, "hello.rc"), "rb").read()
    check(r.returncode == 0 and rc.startswith(b"\xff\xfeL\x00") and b"\r\x00" not in rc,
          "-cp utf-16 and --line-endings=lf", repr(rc[:40]))

    r = fresh()
    std = table_entries(open(os.path.join(work, "MSG00001.bin"), "rb").read())
    r = fresh("-A")
    ansi = table_entries(open(os.path.join(work, "MSG00001.bin"), "rb").read())
    ok = len(ansi) == len(std) and all(
        a[0] == u[0] and a[1] == 0 and u[1] == 1 and
        a[2].rstrip(b"\0") == u[2].decode("utf-16-le").rstrip("\0").encode("cp1252")
        and (4 + len(a[2])) % 4 == 0 for a, u in zip(ansi, std))
    check(r.returncode == 0 and ok, "-A: the same texts in Windows-1252, flags 0, padded to 4",
          repr(ansi[:2]))
    r = fresh("-n")
    nocrlf = table_entries(open(os.path.join(work, "MSG00001.bin"), "rb").read())
    check(r.returncode == 0 and all(not e[2].rstrip(b"\0").endswith(b"\r\x00\n") for e in nocrlf)
          and [e[0] for e in nocrlf] == [e[0] for e in std],
          "-n: no CR LF after the texts", repr(nocrlf[:2]))

    # a character Windows-1252 does not have, with -A: an error at the string
    text = open(HELLO, encoding="utf-8").read().replace("Hallo, %1!", "\u4f60\u597d, %1!")
    with open(os.path.join(work, "cjk.man"), "w", encoding="utf-8") as f:
        f.write(text)
    r = fresh("-A", name="cjk.man")
    line = next(i for i, l in enumerate(text.splitlines(), 1) if "\u4f60" in l)
    check(r.returncode == 1 and r.stderr.startswith("cjk.man:%d:" % line)
          and "U+4F60" in r.stderr and "-A" in r.stderr
          and listing(work) == ["cjk.man", "hello.man"],
          "-A with a character outside Windows-1252: error at the string, no output",
          "exit %d %r %r" % (r.returncode, r.stderr, listing(work)))
    os.remove(os.path.join(work, "cjk.man"))

    r = fresh("-um", "-p", "FireEtw", "-P", "hello")
    h = open(os.path.join(work, "hello.h"), encoding="latin-1").read()
    check(r.returncode == 0 and "#define FireEtwGreeting(Name, Count, SessionId)" in h
          and "#define EventEnabledGreeting()" in h and "MCGEN_EVENT_ENABLED(Greeting)" in h
          and "EVENT_DESCRIPTOR HelloGreeting =" in h and "EventWriteHello" not in h,
          "-p and -P: macros FireEtw<Event> without the stripped prefix; descriptors keep it",
          r.stderr)
    clean()

    for args, want in ((["-q"], "mcgen: error: Invalid switch: -q. (see mcgen --help)\n"),
                       (["-h"], "mcgen: error: Missing argument for -h switch. (see mcgen --help)\n"),
                       (["-um", "-km"], "mcgen: error: -km cannot be combined with another of "
                        "-um, -km, -cs, -css and -generateProjections (see mcgen --help)\n"),
                       (["-e", "toolong"], "mcgen: error: the header extension of -e is 1 to 3 "
                        "characters without a dot, not 'toolong' (see mcgen --help)\n"),
                       (["-mof"], "mcgen: error: mc's -mof is not supported by mcgen (MOF, "
                        "projections and baselines are not generated) (see mcgen --help)\n"),
                       (["-cs", "1Ns"], "mcgen: error: -cs takes a C# namespace (identifiers "
                        "joined by dots), not '1Ns' (see mcgen --help)\n"),
                       (["-css", "A..B"], "mcgen: error: -css takes a C# namespace (identifiers "
                        "joined by dots), not 'A..B' (see mcgen --help)\n"),
                       (["-um", "-cs", "Ns"], "mcgen: error: -cs cannot be combined with another "
                        "of -um, -km, -cs, -css and -generateProjections (see mcgen --help)\n"),
                       (["-css", "Ns", "-km"], "mcgen: error: -km cannot be combined with another "
                        "of -um, -km, -cs, -css and -generateProjections (see mcgen --help)\n")):
        r = run(mcgen, *args, "hello.man", cwd=work) if args != ["-h"] else run(mcgen, "hello.man", "-h", cwd=work)
        check(r.returncode == 2 and r.stderr == want + "1 error\n" and listing(work) == ["hello.man"],
              "bad switches %s: exit 2, mc's wording, no output" % " ".join(args), repr(r.stderr))
    # -css: <base>.cs beside the header, which has no logging code
    r = fresh("-css", "Contoso.Events")
    cs = open(os.path.join(work, "hello.cs"), "rb").read().decode() if r.returncode == 0 else ""
    h = open(os.path.join(work, "hello.h"), "rb").read().decode() if r.returncode == 0 else ""
    check(r.returncode == 0 and "namespace Contoso.Events\r\n" in cs and
          "public static class MCGEN_HELLO_PROVIDER\r\n" in cs and
          "EventWriteHelloGreeting(string Name, uint Count, Guid SessionId)" in cs and
          "EventWriteHelloGreeting" not in h,
          "-css NS: hello.cs beside the header (a static class), no logging code in the header",
          r.stderr)
    clean()
    # --dotnet names an output: only it is written; --print-outputs and
    # --depfile list it
    r = fresh("--dotnet=Events.g.cs", "--dotnet-namespace=Contoso.Events", "--depfile=d.d")
    dep = open(os.path.join(work, "d.d")).read() if r.returncode == 0 else ""
    p = run(mcgen, "--print-outputs", "--dotnet=Events.g.cs", "hello.man", cwd=work)
    check(r.returncode == 0 and sorted(listing(work)) == ["Events.g.cs", "d.d", "hello.man"] and
          dep.startswith("Events.g.cs:") and p.stdout == "Events.g.cs\n",
          "--dotnet=FILE: only FILE written, listed by --print-outputs and --depfile",
          r.stderr + p.stderr)
    r = fresh("--dotnet=x.cs", "--dotnet-namespace=A.1b")
    check(r.returncode == 2 and r.stderr == "mcgen: error: --dotnet-namespace takes a C# namespace "
          "(identifiers joined by dots), not 'A.1b' (see mcgen --help)\n1 error\n" and
          listing(work) == ["hello.man"], "--dotnet-namespace: a bad namespace is a usage error",
          r.stderr)
    clean()
    r = run(mcgen, "x.mc", cwd=work)
    check(r.returncode == 2 and r.stderr.startswith("mcgen: error: cannot open 'x.mc': No such file"),
          "a .mc input is read as one (a missing one: exit 2)", r.stderr)
    r = run(mcgen, "-cv", "hello.man", cwd=work)
    check(r.returncode == 2 and "customer bit" in r.stderr,
          "run-together flags (-cv = -c -v); -c not yet", r.stderr)


def templates(mcgen, tmp):
    """--render renders a user template against the model; --templates
    overrides built-in templates by name; both land in the depfile; a
    missing, unreadable or broken template is an error (at its line and
    column when it has one) that exits 2, with no output."""
    work = os.path.join(tmp, "tpl")
    os.makedirs(work)
    ex = os.path.join(ROOT, "examples", "templates", "events.md.j2")
    out = os.path.join(work, "events.md")
    r = run(mcgen, "--render=%s:%s" % (ex, out), "--depfile=" + out + ".d", HELLO)
    text = open(out, encoding="utf-8").read() if r.returncode == 0 else ""
    check(r.returncode == 0 and "| HelloGreeting | 1 | 0 | win:Informational | Greeting | "
          "win:Start | 0x0000000000000001 | `EventWriteHelloGreeting(Name, Count, SessionId)` |"
          in text and open(out + ".d").read() == "%s: %s %s\n" % (out, HELLO, ex),
          "--render: a user template against the model; the template is in the depfile",
          r.stderr + text)
    over = os.path.join(work, "over")
    os.makedirs(over)
    with open(os.path.join(over, "logging_functions.h.j2"), "w") as f:
        f.write("/* functions replaced: {{ functions | length }} */\n")
    r = run(mcgen, "-um", "--templates=" + over, "--depfile=hello.d", "-z", "h", HELLO, cwd=work)
    h = open(os.path.join(work, "h.h"), encoding="latin-1").read() if r.returncode == 0 else ""
    check(r.returncode == 0 and "/* functions replaced: 1 */" in h and "McGenControlCallbackV2"
          in h and "logging_functions.h.j2" in open(os.path.join(work, "hello.d")).read(),
          "--templates: a built-in template overridden by name, the others kept, depfile lists it",
          r.stderr)
    # an override that extends the template it replaces names it
    # "builtin/header.h.j2" (its own name would find itself): the built-in
    # header with one block changed, nothing else
    r = run(mcgen, "-um", "-z", "plain", HELLO, cwd=work)
    plain = open(os.path.join(work, "plain.h"), "rb").read() if r.returncode == 0 else b""
    ext = os.path.join(work, "extends")
    os.makedirs(ext)
    with open(os.path.join(ext, "header.h.j2"), "w") as f:
        f.write('{% extends "builtin/header.h.j2" %}\n'
                "{% block prologue %}{{ super() }}/* after the prologue */\n{% endblock %}\n")
    r = run(mcgen, "-um", "--templates=" + ext, "-z", "ext", HELLO, cwd=work)
    h = open(os.path.join(work, "ext.h"), "rb").read() if r.returncode == 0 else b""
    added = b"/* after the prologue */\r\n"
    check(r.returncode == 0 and plain and h.count(added) == 1 and h.replace(added, b"") == plain
          and h.index(added) < h.index(b"EventRegister"),
          "--templates: a header.h.j2 that extends builtin/header.h.j2 gives the built-in header "
          "with one block changed", r.stderr)
    with open(os.path.join(ext, "header.h.j2"), "w") as f:
        f.write('{% extends "builtin/nope.h.j2" %}\n')
    r = run(mcgen, "-um", "--templates=" + ext, "-z", "nope", HELLO, cwd=work)
    check(r.returncode == 2 and r.stderr == "header.h.j2:1:1: error: cannot extend "
          "'builtin/nope.h.j2': no such template\n  {% extends \"builtin/nope.h.j2\" %}\n  ^\n"
          "1 error\n" and not os.path.exists(os.path.join(work, "nope.h")),
          "--templates: an unknown builtin/ name is an error at the extends, exit 2, nothing "
          "written", "exit %d %r" % (r.returncode, r.stderr))
    # a render's bytes are the template's as they come, unless
    # --line-endings or -cp is given (docs/templates.md)
    mixed = os.path.join(work, "mixed.j2")
    with open(mixed, "wb") as f:
        f.write("a\nb\r\n{{ providers[0].name }} \u00e9\u20ac\u2603\n".encode())
    as_written = "a\nb\r\nMcgen-Example-Hello \u00e9\u20ac\u2603\n".encode()
    for args, want in (([], as_written),
                       (["--line-endings=lf"], as_written.replace(b"\r\n", b"\n")),
                       (["--line-endings=crlf"], as_written.replace(b"\r\n", b"\n")
                        .replace(b"\n", b"\r\n")),
                       (["-cp", "utf-16", "--line-endings=lf"], b"\xff\xfe" +
                        as_written.replace(b"\r\n", b"\n").decode().encode("utf-16-le")),
                       (["-cp", "utf-8"], b"\xef\xbb\xbf" +
                        as_written.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))):
        out = os.path.join(work, "mixed.out")
        r = run(mcgen, *args, "--render=%s:%s" % (mixed, out), HELLO)
        got = open(out, "rb").read() if r.returncode == 0 else r.stderr
        check(r.returncode == 0 and got == want, "--render %s: %s" % (
            " ".join(args) or "alone", "the template's bytes as they come" if not args else
            "line ends and encoding as asked"), repr(got))
    r = run(mcgen, "-cp", "ansi", "--render=%s:%s" % (mixed, os.path.join(work, "ansi.out")),
            HELLO)
    check(r.returncode == 1 and "a character cannot be written in the ANSI code page" in r.stderr
          and not os.path.exists(os.path.join(work, "ansi.out")),
          "--render -cp ansi: a character Windows-1252 lacks (U+2603) is an error, nothing "
          "written", "exit %d %r" % (r.returncode, r.stderr))
    bad = os.path.join(work, "bad.j2")
    with open(bad, "w") as f:
        f.write("line 1\n{% for p in providers %}{{ p.nope }}{% endfor %}\n")
    r = run(mcgen, "--render=%s:%s" % (bad, os.path.join(work, "bad.out")), HELLO)
    check(r.returncode == 2 and r.stderr == "%s:2:30: error: no attribute 'nope' (the keys are: "
          "index, name, guid, symbol, resourceFileName, messageFileName, parameterFileName, "
          "namespace, controlGuid, message, traits, channels and 9 more)\n"
          "  {%% for p in providers %%}{{ p.nope }}{%% endfor %%}\n"
          "                               ^\n1 error\n" % bad and not os.path.exists(os.path.join(work, "bad.out")),
          "--render: a template error names the template's line and column; exit 2 (the "
          "template's problem, not the manifest's); no output", repr(r.stderr))

    # every problem of a template is one of the tool's input: exit 2, and
    # nothing is written, not even the outputs that need no template (the
    # JSON beside --render; the binaries beside the header of --templates)
    import shutil

    def nothing_written(*args):
        out = os.path.join(work, "none")
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        r = run(mcgen, "-um", *args, HELLO, cwd=out)
        return r, os.listdir(out)

    syntax = os.path.join(work, "syntax.j2")
    with open(syntax, "w") as f:
        f.write("a\n{% if %}x{% endif %}\n")
    r, left = nothing_written("--json=j.json", "--render=%s:s.out" % syntax)
    check(r.returncode == 2 and r.stderr == "%s:2:7: error: expression expected\n"
          "  {%% if %%}x{%% endif %%}\n        ^\n1 error\n" % syntax and left == [], "--render: a template syntax error exits 2, nothing written",
          "exit %d %r %r" % (r.returncode, r.stderr, left))
    r, left = nothing_written("--json=j.json", "--render=missing.j2:m.out")
    check(r.returncode == 2 and r.stderr == "mcgen: error: cannot open the template "
          "'missing.j2': No such file or directory\n1 error\n" and left == [],
          "--render: a missing template exits 2, nothing written",
          "exit %d %r %r" % (r.returncode, r.stderr, left))
    unreadable = os.path.join(work, "unreadable")
    os.makedirs(os.path.join(unreadable, "logging_functions.h.j2"))
    r, left = nothing_written("--templates=" + unreadable)
    said = r.stderr == ("mcgen: error: cannot read the template '%s/logging_functions.h.j2': Is a "
                        "directory\n1 error\n" % unreadable)
    check(r.returncode == 2 and said and left == [],
          "--templates: a template that is there but cannot be read exits 2 (not the built-in "
          "one instead), nothing written", "exit %d %r %r" % (r.returncode, r.stderr, left))
    broken = os.path.join(work, "broken")
    os.makedirs(broken)
    with open(os.path.join(broken, "header.h.j2"), "w") as f:
        f.write("{% for %}\n")
    r, left = nothing_written("--templates=" + broken)
    check(r.returncode == 2 and r.stderr == "header.h.j2:1:8: error: loop variable expected\n"
          "  {% for %}\n         ^\n1 error\n" and left == [], "--templates: a broken override exits 2, nothing written",
          "exit %d %r %r" % (r.returncode, r.stderr, left))


def options(mcgen, tmp):
    """The option table: --help lists mc's switches and mcgen's options
    from it; "--" ends the options; --explain takes only an offset."""
    import re
    help_text = run(mcgen, "--help").stdout
    rows = set(re.findall(r"^  (-[^ ,\n]+)", help_text, re.M))
    ref = os.path.join(ROOT, "..", "shared", "docs", "mc-cli.md")
    if os.path.exists(ref):
        with open(ref, encoding="utf-8") as f:
            mc = re.findall(r"^\| `(-[^`]+)` \|", f.read(), re.M)
        words = set(re.findall(r"(?<![\w-])-[?\w]+", help_text))
        missing = [w for w in mc if w not in words]
        check(len(mc) >= 30 and not missing,
              "--help names every one of mc.exe's %d switches (../shared/docs/mc-cli.md)"
              % len(mc), "missing %s" % missing)
    else:
        print("skipped: mc.exe's switches in --help (no ../shared/docs/mc-cli.md)")
    want = {"--validate", "-Werror", "-Werror=NAME", "-Wno-NAME", "--diagnostics-format=gcc|json|sarif",
            "--diagnostics-output=FILE", "--check-wevt=FILE", "--explain=OFFSET", "--json=FILE",
            "--", "-um", "-h", "-?"}
    check(want <= rows, "--help has a row for each of %s" % sorted(want),
          "missing %s" % sorted(want - rows))
    lines = help_text.splitlines()
    check("%-29s%s" % ("  -Wno-NAME", "silence that warning") in lines and
          "%-29s%s" % ("  -h DIR, --header-dir=DIR", "directory of the header (created if "
                       "missing)") in lines
          and max(len(l) for l in lines) <= 79,
          "--help: spellings, then the help in one column, lines within 79 characters",
          help_text)
    r = run(mcgen, "-?")
    check(r.returncode == 0 and r.stdout == help_text and r.stderr == "", "-? is --help")

    work = os.path.join(tmp, "dashes")
    os.makedirs(work)
    with open(HELLO, "rb") as f, open(os.path.join(work, "-x.man"), "wb") as g:
        g.write(f.read())
    r = run(mcgen, "--print-outputs", "-z", "y", "--", "-x.man", cwd=work)
    check(r.returncode == 0 and r.stdout == "y.h\ny.rc\ny_MSG00001.bin\ny_MSG00002.bin\n"
          "yTEMP.BIN\n", "--: a manifest named -x.man after it", r.stdout + r.stderr)
    r = run(mcgen, "--validate", "--", "-x.man", "--json=x", cwd=work)
    check(r.returncode == 2 and r.stderr == "mcgen: error: cannot open '--json=x': No such file "
          "or directory\n1 error\n", "--: the words after it are manifests, options or not",
          repr(r.stderr))
    r = run(mcgen, "-x.man", cwd=work)
    check(r.returncode == 2 and r.stderr == "mcgen: error: Invalid switch: -x.man. (see mcgen "
          "--help)\n1 error\n", "without --, -x.man is a switch (mc's wording)", repr(r.stderr))

    for bad in ("abc", "-1", "99999999999999999999", "0x", "4x"):
        r = run(mcgen, "--check-wevt=none.BIN", "--explain=" + bad, cwd=work)
        check(r.returncode == 2 and r.stdout == "" and r.stderr ==
              "mcgen: error: --explain takes an offset into the file (16 or 0x10), not '%s' "
              "(see mcgen --help)\n1 error\n" % bad,
              "--explain=%s: usage error before anything is read" % bad, repr(r.stderr))
    for args, want in ((["--line-endings=cr"], "--line-endings takes crlf or lf, not 'cr'"),
                       (["-cp", "utf-7"], "-cp takes ansi, utf-8 or utf-16, not 'utf-7'"),
                       (["--json="], "--json= needs a value"),
                       (["--validate=yes"], "--validate=yes takes no value"),
                       (["--dump-format=xml"], "--dump-format takes text or json, not 'xml'"),
                       (["--templates=" + HELLO], "--templates takes a directory, and '%s' is "
                        "none" % HELLO)):
        r = run(mcgen, *args, "-x.man", cwd=work)
        check(r.returncode == 2 and r.stderr == "mcgen: error: %s (see mcgen --help)\n1 error\n"
              % want, "%s: usage error" % " ".join(args), repr(r.stderr))
    # --dump and --decompile: their own options alone are usage errors
    for args, want in ((["--output=x.man", "a.man"],
                        "--output names the manifest of --decompile, which is not given"),
                       (["--dump-format=json", "a.man"],
                        "--dump-format is the format of --dump, which is not given"),
                       (["--dump"], "--dump needs the binaries to read"),
                       (["--decompile", "-o", "x.man"], "--decompile needs the binaries to read"),
                       (["--decompile", "a.BIN", "-o"], "-o needs a value"),
                       (["--dump", "--decompile", "a.BIN"], "--dump and --decompile are two runs")):
        r = run(mcgen, *args, cwd=work)
        check(r.returncode == 2 and r.stderr == "mcgen: error: %s (see mcgen --help)\n1 error\n"
              % want, "%s: usage error" % " ".join(args), repr(r.stderr))
    r = run(mcgen, "--templates=nodir", "--", "-x.man", cwd=work)
    check(r.returncode == 2 and r.stderr == "mcgen: error: cannot open the template directory "
          "'nodir': No such file or directory\n1 error\n",
          "--templates naming no directory: exit 2 (all built-in templates would be used)",
          repr(r.stderr))


def spellings(text):
    """The option spellings a text names: "-um", "--json", "-Werror=" (the
    warning controls that take NAME keep their "=" or "-"), "--"."""
    import re
    out = set()
    for m in re.finditer(r"(?<![\w/.-])(-{1,2}[A-Za-z?][A-Za-z0-9?]*(?:-[A-Za-z0-9]+)*-?)(=?)",
                         text):
        w, eq = m.group(1), m.group(2)
        if w.startswith("-Wno-"):
            w = "-Wno-"
        elif w == "-Werror" and eq:
            w = "-Werror="
        out.add(w)
    if re.search(r"(?<![\w-])--(?![\w-])", text):
        out.add("--")
    return out


def roff_text(src):
    """A roff source with its escapes undone: \- is -, fonts and \c go."""
    import re
    src = src.replace("\\-", "-").replace("\\(dq", '"').replace("\\c", "")
    return re.sub(r"\\f[BIRP]|\\%", "", src)


def docs_match_table(mcgen):
    """docs/mcgen.1 and README.md's option tables name exactly the options
    of the table in mcgen/cli.c, which --help prints; and the page renders
    without a warning."""
    import re
    import shutil
    help_text = run(mcgen, "--help").stdout
    table = set()
    for line in help_text.splitlines():
        m = re.match(r"  (-\S.*?)(?:  |$)", line)
        if m:
            table |= spellings(m.group(1))
    check(len(table) >= 60 and {"-um", "--user-mode", "-Werror=", "-Wno-", "--", "--explain",
                                "-generateTemplateStubs", "-?"} <= table,
          "--help lists the table: %d spellings" % len(table), sorted(table))
    with open(os.path.join(ROOT, "docs", "mcgen.1"), encoding="utf-8") as f:
        page = roff_text(f.read())
    m = re.search(r'^\.SH "MC.EXE SWITCHES"$(.*?)^\.SH "EXIT STATUS"$', page, re.M | re.S)
    named = spellings(m.group(1)) if m else set()
    check(named == table, "docs/mcgen.1 (MC.EXE SWITCHES, OPTIONS) names the table's options "
          "and no other", "not in the page: %s; not in the table: %s"
          % (sorted(table - named), sorted(named - table)))
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    m = re.search(r"^## Usage$(.*?)^## ", readme, re.M | re.S)
    cells = []
    for line in (m.group(1) if m else "").splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            cols = line.strip("|").split(" | ")
            cells += [c for c in cols[:-1] if c.strip() not in ("switch", "long form", "option")]
    named = spellings(" ".join(re.findall(r"`([^`]*)`", " ".join(cells))))
    check(named == table, "README.md's option tables name the table's options and no other",
          "not in README: %s; not in the table: %s" % (sorted(table - named),
                                                      sorted(named - table)))
    if not shutil.which("man"):
        print("skipped man page rendering: man is not installed (./setup installs man-db)")
        return
    page = os.path.join(ROOT, "docs", "mcgen.1")
    r = subprocess.run(["man", "--warnings", "-l", page], capture_output=True, text=True,
                       env=dict(os.environ, MANWIDTH="80", MAN_DISABLE_SECCOMP="1"))
    check(r.returncode == 0 and r.stderr == "" and "SYNOPSIS" in r.stdout,
          "docs/mcgen.1 renders with man -l, no warnings", r.stderr[:300])


def selection(mcgen, tmp):
    """Which outputs a run writes: naming one writes only those named;
    --mc-outputs adds mc's; mc's switches for a run without mc's outputs
    get a warning."""
    work = os.path.join(tmp, "sel")
    os.mkdir(work)
    man = os.path.join(work, "hello.man")
    shutil.copy(HELLO, man)
    mc = ["MSG00001.bin", "MSG00002.bin", "hello.h", "hello.man", "hello.rc", "helloTEMP.BIN"]
    r = run(mcgen, "--json=m.json", "hello.man", cwd=work)
    check(r.returncode == 0 and listing(work) == ["hello.man", "m.json"] and not r.stderr,
          "--json alone writes the JSON only", "%r %r" % (listing(work), r.stderr))
    os.remove(os.path.join(work, "m.json"))
    r = run(mcgen, "--json=m.json", "--mc-outputs", "-um", "hello.man", cwd=work)
    h = open(os.path.join(work, "hello.h"), encoding="latin-1").read() if r.returncode == 0 else ""
    check(r.returncode == 0 and listing(work) == sorted(mc + ["m.json"]) and not r.stderr
          and "EventWriteHelloGreeting" in h,
          "--mc-outputs: mc's outputs (with -um's logging code) and the JSON in one run",
          "%r %r" % (listing(work), r.stderr))
    r = run(mcgen, "--json=broken.h", "--mc-outputs", "broken.man", cwd=work)
    check(r.returncode == 2 and r.stderr == "mcgen: error: output 'broken.h' is named twice in "
          "this run\n1 error\n",
          "--mc-outputs: an output named like one of mc's is refused before the input is read",
          repr(r.stderr))
    shutil.rmtree(work)
    os.mkdir(work)
    shutil.copy(HELLO, man)
    r = run(mcgen, "--json=m.json", "-um", "-h", "inc", "-z", "x", "hello.man", cwd=work)
    want = "".join("mcgen: warning: %s has no effect: only the outputs named are written "
                   "(--mc-outputs writes mc's too)\n" % s for s in ("-h", "-z", "-um"))
    check(r.returncode == 0 and r.stderr == want + "3 warnings\n"
          and listing(work) == ["hello.man", "m.json"],
          "-h, -z and -um for a run that writes no mc output: a warning each", repr(r.stderr))
    r = run(mcgen, "--json=m.json", "-css", "Ns", "hello.man", cwd=work)
    check(r.returncode == 0 and r.stderr == "mcgen: warning: -css has no effect: only the outputs "
          "named are written (--mc-outputs writes mc's too)\n1 warning\n"
          and listing(work) == ["hello.man", "m.json"],
          "-css for a run that writes no mc output: a warning", repr(r.stderr))
    with open(os.path.join(work, "t.j2"), "w") as f:
        f.write("{{ header.logging }}\n")
    r = run(mcgen, "--render=t.j2:r.txt", "-um", "hello.man", cwd=work)
    check(r.returncode == 0 and not r.stderr
          and open(os.path.join(work, "r.txt")).read() == "true\n",
          "-um with --render is used (the template's header values)", repr(r.stderr))
    # a drive at the start of the template's path is part of it, on every
    # host (docs/templates.md); here such names are file names with a colon
    if winexe.running():
        skip("--render=C:\\t.j2:d.txt and --render=t.j2:D:\\e.txt split after the drive",
             "C:\\t.j2 is a drive path on Windows, not a file of the working directory "
             "(tests/win64_test.py renders with drives under wine)")
        return
    shutil.copy(os.path.join(work, "t.j2"), os.path.join(work, "C:\\t.j2"))
    r = run(mcgen, "--render=C:\\t.j2:d.txt", "--render=t.j2:D:\\e.txt", "-um", "hello.man",
            cwd=work)
    texts = [open(os.path.join(work, n)).read() if os.path.exists(os.path.join(work, n)) else None
             for n in ("d.txt", "D:\\e.txt")]
    check(r.returncode == 0 and texts == ["true\n", "true\n"],
          "--render=C:\\t.j2:d.txt and --render=t.j2:D:\\e.txt split after the drive",
          "%r %r" % (r.stderr, listing(work)))


SUMMARY = re.compile(r"(\d+ errors?(, \d+ warnings?)?|\d+ warnings?)\n\Z")


def batch_vs_alone(mcgen, tmp):
    """--validate of many manifests in one process (which reuses what one
    manifest's read leaves for the next: arena blocks, the built-in
    definitions' tables) says of each what a run of it alone says, in
    order; only the closing count is the batch's own."""
    # every fourth: a run each is slow under wine
    files = sorted(glob.glob(os.path.join(ROOT, "tests", "invalid", "*.man")))[::4] + [HELLO]
    def said(names):
        r = run(mcgen, "--validate", "--diagnostics-limit=0", *names, cwd=tmp)
        return SUMMARY.sub("", r.stderr), r.returncode
    alone = [said([f]) for f in files]
    batch, code = said(files)
    want = "".join(text for text, _ in alone)
    check(batch == want and code == max(c for _, c in alone) and want,
          "--validate of %d manifests in one run: each one's diagnostics as alone, in order"
          % len(files), "first difference at byte %d" % next(
              (i for i, (a, b) in enumerate(zip(batch, want)) if a != b), min(len(batch), len(want))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    mcgen = winexe.command_or_skip(os.path.abspath(ap.parse_args().mcgen))
    if mcgen is None:
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, (content, want) in sorted(BAD.items()):
            path = os.path.join(tmp, name)
            with open(path, "wb") as f:
                f.write(content if isinstance(content, bytes) else content.encode())
            out = os.path.join(tmp, name + ".json")
            r = run(mcgen, "--json=" + out, name, cwd=tmp)
            leftovers = [f for f in os.listdir(tmp) if f.startswith(name + ".json")]
            check(r.returncode == 1 and r.stderr == want + "1 error\n" and not leftovers,
                  "bad input %s: exit 1, exact diagnostic, no output" % name,
                  "exit %d, stderr %r, files %r" % (r.returncode, r.stderr, leftovers))

        r = run(mcgen, "--json=" + os.path.join(tmp, "x.json"), "missing.man", cwd=tmp)
        check(r.returncode == 2 and r.stderr ==
              "mcgen: error: cannot open 'missing.man': No such file or directory\n1 error\n"
              and not os.path.exists(os.path.join(tmp, "x.json")),
              "missing file: exit 2 (an I/O problem), strerror text, no output",
              "exit %d %r" % (r.returncode, r.stderr))

        # --validate: several manifests, every problem, nothing written
        truncated = os.path.join(tmp, "truncated.man")
        r = run(mcgen, "--validate", HELLO, truncated, "missing.man", cwd=tmp)
        check(r.returncode == 2 and "truncated.man:4:9: error: [MCG1001]" in r.stderr
              and "cannot open 'missing.man'" in r.stderr and "hello.man" not in r.stderr,
              "--validate: each manifest checked, I/O problem exits 2", r.stderr)
        before = sorted(os.listdir(tmp))
        r = run(mcgen, "--validate", HELLO, truncated, cwd=tmp)
        check(r.returncode == 1 and r.stderr.count("error:") == 1 and r.stderr.endswith("\n1 error\n")
              and sorted(os.listdir(tmp)) == before,
              "--validate: an invalid manifest exits 1, nothing is written", r.stderr)
        r = run(mcgen, "--validate", HELLO, HELLO, cwd=tmp)
        check(r.returncode == 0 and r.stderr == "", "--validate: valid manifests exit 0",
              r.stderr)
        batch_vs_alone(mcgen, tmp)
        r = run(mcgen, HELLO, HELLO, cwd=tmp)
        check(r.returncode == 2 and "mc takes one of each, and only --validate takes more" in r.stderr,
              "several manifests without --validate: usage error", r.stderr)

        # warning controls, on a warning of the header (two providers'
        # events called Started)
        dup = os.path.join(ROOT, "tests", "invalid", "MCG8001-symbol-renamed.man")
        wdir = os.path.join(tmp, "werror")
        os.makedirs(wdir)
        r = run(mcgen, "-um", dup, cwd=wdir)
        check(r.returncode == 0 and "warning: [MCG8001, -Wsymbol-renamed] symbol 'Started' of event 1" in r.stderr
              and r.stderr.endswith("  ^\n1 warning\n") and "MCG8001-symbol-renamed.h" in os.listdir(wdir),
              "a warning: exit 0, outputs written, its option named, '1 warning' at the end",
              r.stderr)
        wdir = os.path.join(tmp, "werror2")
        os.makedirs(wdir)
        for flags in (["-Werror"], ["-Werror=symbol-renamed"], ["-Werror=MCG8001"]):
            r = run(mcgen, "-um", *flags, dup, cwd=wdir)
            check(r.returncode == 1 and "error: [MCG8001, -Werror=symbol-renamed] symbol 'Started' of event 1"
                  in r.stderr and r.stderr.endswith("  ^\n1 error\n") and not os.listdir(wdir),
                  "%s: the warning is an error named as gcc names it, exit 1, nothing written"
                  % flags[0], "exit %d %r %r" % (r.returncode, r.stderr, os.listdir(wdir)))
        for flag in ("-Wno-symbol-renamed", "-Wno-MCG8001"):
            r = run(mcgen, "-um", flag, dup, cwd=wdir)
            check(r.returncode == 0 and r.stderr == "", "%s silences it" % flag, r.stderr)
        for bad, want in (
                ("-Wno-nonsense", "'-Wno-nonsense' names no warning (docs/diagnostics.md lists "
                 "them)"),
                ("-Wno-MCG9999", "'-Wno-MCG9999' names no warning (docs/diagnostics.md lists "
                 "them)"),
                ("-Werror=xml-syntax", "'-Werror=xml-syntax': MCG1001 xml-syntax is an error, "
                 "not a warning"),
                ("-Wno-MCG2010", "'-Wno-MCG2010': MCG2010 duplicate-event is an error, not a "
                 "warning"),
                ("-Wno-", "-Wno- needs a value"),
                ("-Wfoo", "unknown option '-Wfoo' (-Werror, -Werror=NAME or -Wno-NAME)")):
            r = run(mcgen, bad, HELLO, cwd=tmp)
            check(r.returncode == 2 and r.stderr == "mcgen: error: %s (see mcgen --help)\n"
                  "1 error\n" % want, "%s: usage error, exit 2" % bad, repr(r.stderr))

        r = run(mcgen, "--frobnicate", HELLO)
        check(r.returncode == 2 and "unknown option '--frobnicate'" in r.stderr,
              "unknown option exits 2", "exit %d %r" % (r.returncode, r.stderr))
        r = run(mcgen)
        check(r.returncode == 2 and r.stderr.startswith("usage: mcgen"),
              "no manifest: usage, exit 2", "exit %d" % r.returncode)
        r = run(mcgen, "--help")
        check(r.returncode == 0 and "--json=FILE" in r.stdout, "--help", r.stdout)
        r = run(mcgen, "--version")
        check(r.returncode == 0 and r.stdout.startswith("mcgen "), "--version", r.stdout)

        # from another directory: the embedded schema files are used
        out = os.path.join(tmp, "hello.json")
        r = run(mcgen, "--json=" + out, HELLO, cwd="/")
        ok = r.returncode == 0 and r.stderr == ""
        model = json.load(open(out, encoding="utf-8")) if ok else None
        check(ok and model["providers"][0]["name"] == "Mcgen-Example-Hello",
              "runs from any directory (embedded winmeta)", r.stderr)
        if model:
            ev = model["providers"][0]["events"][0]
            check(ev["message"]["text"] == {
                "en-US": "Hello, %1!s!! You are visitor %2 of session %3.",
                "de-DE": "Hallo, %1!s!! Sie sind Besucher %2 der Sitzung %3."}
                and ev["level"] == {"name": "win:Informational", "value": 4, "builtin": True}
                and ev["opcode"]["value"] == 1 and ev["keywordMask"] == "0x0000000000000001",
                "hello: resolved event values", json.dumps(ev)[:500])

        # deterministic, and an unchanged output is not rewritten
        first = open(out, "rb").read()
        past = time.time() - 1000
        os.utime(out, (past, past))
        r = run(mcgen, "--json=" + out, HELLO)
        st = os.stat(out)
        check(r.returncode == 0 and open(out, "rb").read() == first
              and abs(st.st_mtime - past) < 1,
              "second run: same bytes, mtime kept", "mtime %f vs %f" % (st.st_mtime, past))
        check(not [f for f in os.listdir(tmp) if "mcgen-" in f], "no temporary files left")

        # an existing output that differs is replaced: different bytes, a
        # prefix of the new content, the new content plus more
        for name, old in (("differs", b"{}"), ("prefix", first[: len(first) // 2]),
                          ("longer", first + b"trailing")):
            with open(out, "wb") as f:
                f.write(old)
            r = run(mcgen, "--json=" + out, HELLO)
            check(r.returncode == 0 and open(out, "rb").read() == first,
                  "existing output (%s) is replaced by the new content" % name, r.stderr)
        check(not [f for f in os.listdir(tmp) if "mcgen-" in f],
              "no temporary files left after replacing")

        # message tables: one per culture, MSG00001.bin (en-US), MSG00002.bin (de-DE)
        tables = os.path.join(tmp, "tables")
        os.mkdir(tables)
        r = run(mcgen, "--message-tables=" + tables, HELLO)
        names = sorted(os.listdir(tables))
        de = open(os.path.join(tables, "MSG00002.bin"), "rb").read() if "MSG00002.bin" in names else b""
        check(r.returncode == 0 and names == ["MSG00001.bin", "MSG00002.bin"]
              and "Hallo, %1!".encode("utf-16-le") in de
              and "Begrüßung\r\n\0".encode("utf-16-le") in de,
              "--message-tables writes one table per culture", "%r %r" % (names, r.stderr))

        # the WEVT_TEMPLATE resource: CRIM 5.1 by default, 3.1 on request
        r = run(mcgen, "--wevt=" + os.path.join(tmp, "helloTEMP.BIN"), HELLO)
        b = open(os.path.join(tmp, "helloTEMP.BIN"), "rb").read() if r.returncode == 0 else b""
        size = int.from_bytes(b[4:8], "little") if b else -1
        check(b[:4] == b"CRIM" and b[8:12] == b"\x05\x00\x01\x00" and size + 2 == len(b)
              and b[-2:] == b"\0\0", "--wevt writes CRIM 5.1 with the 2-byte trailer", r.stderr)
        r = run(mcgen, "--mc-compat=10.0.15063", "--wevt=" + os.path.join(tmp, "v3.BIN"), HELLO)
        b = open(os.path.join(tmp, "v3.BIN"), "rb").read() if r.returncode == 0 else b""
        check(b[8:12] == b"\x03\x00\x01\x00", "--mc-compat=10.0.15063 writes CRIM 3.1", r.stderr)
        r = run(mcgen, "--mc-compat=7", "--wevt=" + os.path.join(tmp, "x.BIN"), HELLO)
        check(r.returncode == 2 and "unknown --mc-compat version '7'" in r.stderr,
              "unknown --mc-compat version exits 2", r.stderr)

        # reading a TEMP.BIN back: ours reads cleanly, a damaged one does not
        r = run(mcgen, "--check-wevt=" + os.path.join(tmp, "helloTEMP.BIN"))
        check(r.returncode == 0 and "CRIM 5.1, 1 providers, 2 events" in r.stdout,
              "--check-wevt reads mcgen's TEMP.BIN", r.stdout + r.stderr)
        damaged = os.path.join(tmp, "damaged.BIN")
        with open(damaged, "wb") as f:
            f.write(open(os.path.join(tmp, "helloTEMP.BIN"), "rb").read()[:100])
        r = run(mcgen, "--check-wevt=" + damaged, "--explain=0x4")
        check(r.returncode == 1 and "mcgen: error: " + damaged + ": offset 0x4: CRIM size" in r.stderr
              and "0x4: CRIM header (size " in r.stdout,
              "--check-wevt refuses a truncated file and names fields", r.stdout + r.stderr)

        # an output directory that does not exist: exit 2, nothing written
        r = run(mcgen, "--json=" + os.path.join(tmp, "nodir", "x.json"), HELLO)
        check(r.returncode == 2 and "cannot create a temporary file for" in r.stderr,
              "unwritable output: exit 2 with the reason", r.stderr)

        mc_switches(mcgen, tmp)
        options(mcgen, tmp)
        templates(mcgen, tmp)
        selection(mcgen, tmp)
        docs_match_table(mcgen)

    print("%d passed, %d failed, %d skipped" % (results["passed"], results["failed"],
                                              results["skipped"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
