#!/usr/bin/env python3
"""Issue 15, items 5 and 6: what mc (MSXML) reads that mcgen refused.

Windows component manifests: a manifest rooted at <assembly
xmlns="urn:schemas-microsoft-com:asm.v3"> (PowerShell's instrumentation
manifest is one) carries <instrumentation> and <localization> as children,
in the asm.v3 namespace, with the <events> inside in the events namespace;
mc compiles it as the instrumentation manifest it carries.  The reference
is that manifest written plainly: the same providers and strings under an
<instrumentationManifest> must give byte-identical outputs (-um: header,
.rc, message tables, TEMP.BIN) and the same JSON model but for positions.
The component's own elements (<assemblyIdentity> with $(build.x)
placeholders, <registryKeys>) are read past; the parts are checked against
the schema as an <instrumentationManifest>'s.

A provider with a second <channels> element (eventman.xsd allows one; mc
accepts more) compiles as if it had one holding both lists, with a warning.

Encodings: a manifest written in windows-1252 with non-ASCII characters,
and in UTF-16LE/BE without a byte-order mark but with an XML declaration
(as xmllint reads them: XML 1.0 appendix F), must give the outputs of the
same text in UTF-8, byte for byte (the UTF-16 ones with the MCG1005
warning).  Every byte 0x80..0xFF of every single-byte Windows code page
mcgen reads (windows-874, windows-1250..1258) is checked against Python's
codecs (the reference tools/codepages generated the tables from): a
defined byte reads as the codec's character (through --json), an undefined
one is refused at its position, naming it.  An unknown encoding is refused
naming it.

With the normal build (build/mcgen) the encoding cases run again against
the Windows build (build/win64/mcgen.exe, expat compiled from source)
under wine when both are there: the same expectations.

Prints one line per check and "N passed, N failed, N skipped".
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import winexe

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
results = {"passed": 0, "failed": 0, "skipped": 0}

EVENTS_NS = "http://schemas.microsoft.com/win/2004/08/events"
WIN_NS = "http://manifests.microsoft.com/win/2004/08/windows/events"
XS_NS = "http://www.w3.org/2001/XMLSchema"
PAGES = [874, 1250, 1251, 1252, 1253, 1254, 1255, 1256, 1257, 1258]


def report(ok, name, why=""):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why))


def skip(name, why):
    results["skipped"] += 1
    print("SKIP %s: %s" % (name, why))


# ---- the manifests ----

# The <events> of the instrumentation both forms share: a channel, a task
# with an opcode, a keyword, a map, a template and three events, strings in
# two cultures, so every output has something in it.
EVENTS = '''    <events xmlns="%s">
      <provider name="Contoso-Component" guid="{6E1B7C42-9A3D-4F05-B8E1-2C4D6F8A0B13}"
          symbol="CONTOSO_COMPONENT" resourceFileName="%%SystemRoot%%\\System32\\contoso.dll"
          messageFileName="%%SystemRoot%%\\System32\\contoso.dll" message="$(string.Provider)">
        <channels>
          <importChannel chid="sys" name="System"/>
          <channel chid="op" name="Contoso-Component/Operational" type="Operational"
              symbol="CONTOSO_OP" message="$(string.Channel)"/>
        </channels>
        <tasks>
          <task name="Load" value="1" symbol="TASK_LOAD" message="$(string.Task)">
            <opcodes>
              <opcode name="Parse" value="10" symbol="OPCODE_PARSE" message="$(string.Opcode)"/>
            </opcodes>
          </task>
        </tasks>
        <keywords>
          <keyword name="Files" mask="0x1" symbol="KW_FILES" message="$(string.Keyword)"/>
        </keywords>
        <maps>
          <valueMap name="Result">
            <map value="0" message="$(string.Ok)"/>
            <map value="1" message="$(string.Bad)"/>
          </valueMap>
        </maps>
        <templates>
          <template tid="T_Load">
            <data name="Path" inType="win:UnicodeString"/>
            <data name="Size" inType="win:UInt64"/>
            <data name="Result" inType="win:UInt32" map="Result"/>
          </template>
        </templates>
        <events>
          <event value="100" symbol="LoadStart" version="1" level="win:Informational"
              channel="op" task="Load" opcode="win:Start" keywords="Files" template="T_Load"
              message="$(string.LoadStart)"/>
          <event value="101" symbol="LoadParse" level="win:Verbose" channel="op" task="Load"
              opcode="Parse" message="$(string.LoadParse)"/>
          <event value="102" symbol="LoadFailed" level="win:Error" channel="sys"
              template="T_Load" message="$(string.LoadFailed)"/>
        </events>
      </provider>
    </events>
''' % EVENTS_NS

STRINGS = {
    "en-US": [("Provider", "Contoso Component"), ("Channel", "Operational"),
              ("Task", "Load"), ("Opcode", "Parse"), ("Keyword", "Files"), ("Ok", "OK"),
              ("Bad", "Bad"), ("LoadStart", "Loading %1 (%2 bytes): %3"),
              ("LoadParse", "Parsing"), ("LoadFailed", "Loading %1 failed: %3")],
    "de-DE": [("Provider", "Contoso-Komponente"), ("Channel", "Betrieb"),
              ("Task", "Laden"), ("Opcode", "Parsen"), ("Keyword", "Dateien"), ("Ok", "OK"),
              ("Bad", "Fehler"), ("LoadStart", "%1 wird geladen (%2 Bytes): %3"),
              ("LoadParse", "Parsen"), ("LoadFailed", "Laden von %1 fehlgeschlagen: %3")],
}


def localization(indent):
    out = [indent + "<localization>\n"]
    for culture, strings in STRINGS.items():
        out.append(indent + '  <resources culture="%s">\n' % culture)
        out.append(indent + "    <stringTable>\n")
        for sid, value in strings:
            out.append(indent + '      <string id="%s" value="%s"/>\n' % (sid, value))
        out.append(indent + "    </stringTable>\n")
        out.append(indent + "  </resources>\n")
    out.append(indent + "</localization>\n")
    return "".join(out)


PLAIN = ('<?xml version="1.0" encoding="UTF-8"?>\n'
         '<instrumentationManifest xmlns="%s" xmlns:win="%s" xmlns:xs="%s">\n'
         '  <instrumentation>\n%s  </instrumentation>\n%s</instrumentationManifest>\n'
         % (EVENTS_NS, WIN_NS, XS_NS, EVENTS, localization("  ")))

# As Windows' component manifests are written (PowerShell's, Tx's): the
# identity's attributes are build-time placeholders, which are not the
# schema's business; <instrumentation> and <localization> are in asm.v3.
COMPONENT = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
             '<assembly xmlns="urn:schemas-microsoft-com:asm.v3"\n'
             '    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" manifestVersion="1.0">\n'
             '  <assemblyIdentity buildType="$(build.buildType)" language="neutral"\n'
             '      name="Contoso-Component-Events" processorArchitecture="$(build.arch)"\n'
             '      publicKeyToken="$(Build.WindowsPublicKeyToken)" version="$(build.version)"\n'
             '      versionScope="nonSxS"/>\n'
             '  <registryKeys>\n'
             '    <registryKey keyName="HKEY_LOCAL_MACHINE\\SOFTWARE\\Contoso">\n'
             '      <registryValue name="Level" value="$(build.level)" valueType="REG_DWORD"/>\n'
             '    </registryKey>\n'
             '  </registryKeys>\n'
             '  <instrumentation xmlns:win="%s" xmlns:xs="%s">\n%s  </instrumentation>\n%s'
             '</assembly>\n' % (WIN_NS, XS_NS, EVENTS, localization("  ")))


def run(mcgen, args, cwd):
    return subprocess.run([mcgen] + args, cwd=cwd, capture_output=True)


def outputs(d):
    return {f: open(os.path.join(d, f), "rb").read() for f in sorted(os.listdir(d))
            if f != "x.man"}


def compile_in(mcgen, tmp, name, data, extra=()):
    """Writes data as NAME/x.man and compiles it there with -um -z reader:
    (result, {file: bytes} of what it wrote)."""
    d = os.path.join(tmp, name)
    os.makedirs(d)
    with open(os.path.join(d, "x.man"), "wb") as f:
        f.write(data)
    r = run(mcgen, ["-um", "-z", "reader"] + list(extra) + ["x.man"], d)
    return r, outputs(d)


def same_outputs(name, ref, got, r, want_err=b"", least=4):
    """least: header, .rc, TEMP.BIN and a message table at least"""
    bad = [f for f in sorted(set(ref) | set(got)) if ref.get(f) != got.get(f)]
    report(r.returncode == 0 and not bad and r.stderr == want_err and len(ref) >= least,
           "%s: %d outputs byte-identical (%s)" % (name, len(got), ", ".join(sorted(got))),
           "exit %d, stderr %r, differing %s" % (r.returncode, r.stderr[:400], bad))


def strip_locs(x):
    if isinstance(x, dict):
        return {k: strip_locs(v) for k, v in x.items() if k not in ("loc",)}
    if isinstance(x, list):
        return [strip_locs(v) for v in x]
    return x


def model(mcgen, d):
    r = run(mcgen, ["--json=m.json", "x.man"], d)
    if r.returncode != 0:
        return None, r
    with open(os.path.join(d, "m.json"), encoding="utf-8") as f:
        m = json.load(f)
    os.unlink(os.path.join(d, "m.json"))
    return m, r


# ---- item 5: component manifests ----

def test_component(mcgen, tmp):
    r0, ref = compile_in(mcgen, tmp, "plain", PLAIN.encode())
    report(r0.returncode == 0 and not r0.stderr, "plain manifest compiles cleanly",
           "exit %d %r" % (r0.returncode, r0.stderr[:300]))
    r, got = compile_in(mcgen, tmp, "component", COMPONENT.encode())
    # two cultures: two message tables beside header, .rc and TEMP.BIN
    same_outputs("<assembly> component manifest vs the plain one", ref, got, r)
    m0, _ = model(mcgen, os.path.join(tmp, "plain"))
    m1, r1 = model(mcgen, os.path.join(tmp, "component"))
    report(m0 is not None and m1 is not None and strip_locs(m0) == strip_locs(m1)
           and len(m1["providers"]) == 1 and len(m1["providers"][0]["events"]) == 3
           and [c["name"] for c in m1["cultures"]] == ["en-US", "de-DE"],
           "component manifest: the JSON model equals the plain one's but for positions",
           "exit %d %r" % (r1.returncode, r1.stderr[:300]))
    # the parts are checked against the schema: an attribute the schema
    # does not define on <provider>, at its position (line and column
    # counted here), MCG1201's wording (tests/invalid/MCG1201-*.err)
    bad = COMPONENT.replace('symbol="CONTOSO_COMPONENT"', 'symbol="CONTOSO_COMPONENT" bogus="1"')
    lines = bad.split("\n")
    line = next(i for i, t in enumerate(lines) if "bogus=" in t)
    want = ('x.man:%d:%d: error: [MCG1201] unknown attribute \'bogus\' on <provider>\n'
            % (line + 1, lines[line].index("bogus=") + 1))
    d = os.path.join(tmp, "component-bad")
    os.makedirs(d)
    with open(os.path.join(d, "x.man"), "w", encoding="utf-8") as f:
        f.write(bad)
    r = run(mcgen, ["-um", "x.man"], d)
    err = r.stderr.decode("utf-8", "replace")
    report(r.returncode == 1 and err.startswith(want) and err.endswith("1 error\n")
           and os.listdir(d) == ["x.man"],
           "component manifest: its <instrumentation> is checked against the schema (%s)"
           % want.strip(), "exit %d %r" % (r.returncode, err[:400]))
    # asm.v3 elements inside a part stand for the events namespace's: a
    # <string> of the asm.v3 <localization> missing its value is the
    # schema's missing attribute, as in a plain manifest
    bad = COMPONENT.replace('<string id="Ok" value="OK"/>', '<string id="Ok"/>', 1)
    lines = bad.split("\n")
    line = next(i for i, t in enumerate(lines) if '<string id="Ok"/>' in t)
    want = ("x.man:%d:%d: error: [MCG1202] <string> is missing the required attribute 'value'\n"
            % (line + 1, lines[line].index("<string") + 1))
    with open(os.path.join(d, "x.man"), "w", encoding="utf-8") as f:
        f.write(bad)
    r = run(mcgen, ["--validate", "x.man"], d)
    err = r.stderr.decode("utf-8", "replace")
    report(r.returncode == 1 and err.startswith(want),
           "component manifest: its asm.v3 <localization> is checked as the events "
           "namespace's (%s)" % want.strip(), "exit %d %r" % (r.returncode, err[:400]))


# ---- a provider with two <channels> (mc accepts it; the schema does not) ----

CHANNELS_DOC = """<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation>
    <events>
      <provider name="Contoso-Channels" guid="{0B3E5C71-2D4F-4A86-9C1B-7E2F3A4D5B69}"
          symbol="CONTOSO_CHANNELS" resourceFileName="c.dll" messageFileName="c.dll">
        <channels>
          <channel chid="op" name="Contoso-Channels/Operational" type="Operational" symbol="CH_OP"/>
%(first)s        </channels>
        <events>
          <event value="1" symbol="Hello" level="win:Informational" channel="op"/>
          <event value="2" symbol="Detail" level="win:Verbose" channel="an"/>
        </events>
%(second)s      </provider>
    </events>
  </instrumentation>
</instrumentationManifest>
"""
ANALYTIC = ('          <channel chid="an" name="Contoso-Channels/Analytic" type="Analytic" '
            'symbol="CH_AN"/>\n')


def test_channels(mcgen, tmp):
    """The reference: one <channels> holding both channels.  The same
    channels split over two <channels> elements, and the one list followed
    by an empty <channels/> (tpn/perfecthash's form), give its outputs byte
    for byte, with MCG1105 naming the first <channels> (line 8, column 9)."""
    r0, ref = compile_in(mcgen, tmp, "channels-one", (CHANNELS_DOC % {
        "first": ANALYTIC, "second": ""}).encode())
    report(r0.returncode == 0 and not r0.stderr, "one <channels> with two channels compiles",
           "exit %d %r" % (r0.returncode, r0.stderr[:300]))
    for name, first, second in (
            ("split over two <channels>", "",
             "        <channels>\n" + ANALYTIC + "        </channels>\n"),
            ("followed by an empty <channels/>", ANALYTIC, "        <channels/>\n")):
        doc = CHANNELS_DOC % {"first": first, "second": second}
        lines = doc.split("\n")
        line = max(i for i, t in enumerate(lines) if t.strip().startswith("<channels")) + 1
        want = ("x.man:%d:9: warning: [MCG1105, -Wchannels-again] a second <channels> in "
                "<provider>: eventman.xsd allows one, mc accepts more; their channels are read "
                "as one list (the first at x.man:8:9)\n%s\n          ^\n1 warning\n"
                % (line, "  " + lines[line - 1])).encode()
        r, got = compile_in(mcgen, tmp, "channels-" + name.split()[0], doc.encode())
        # no strings: no message table
        same_outputs("two <channels>, %s, vs one" % name, ref, got, r, want, least=3)


# ---- item 6: encodings ----

ENC_DOC = '''<?xml version="1.0" encoding="{enc}"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events"
    xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <instrumentation>
    <events>
      <provider name="Contoso-Reader" guid="{{3F1E6A2B-0C4D-4E5F-8A9B-1C2D3E4F5A6B}}"
          symbol="CONTOSO_READER" resourceFileName="reader.dll" messageFileName="reader.dll"
          message="$(string.Provider)">
        <channels>
          <channel chid="op" name="Contoso-Reader/Operational" type="Operational"
              symbol="READER_OP" message="$(string.Channel)"/>
        </channels>
        <tasks>
          <task name="Lecture" value="1" symbol="TASK_LECTURE" message="$(string.Task)"/>
        </tasks>
        <templates>
          <template tid="T">
            <data name="Fichier" inType="win:UnicodeString"/>
            <data name="Taille" inType="win:UInt32"/>
          </template>
        </templates>
        <events>
          <event value="1" symbol="Opened" level="win:Informational" channel="op" task="Lecture"
              template="T" message="$(string.Opened)"/>
          <event value="2" symbol="Failed" level="win:Error" channel="op"
              message="$(string.Failed)"/>
        </events>
      </provider>
    </events>
  </instrumentation>
  <localization>
    <resources culture="fr-FR">
      <stringTable>
        <string id="Provider" value="Lecteur Contoso"/>
        <string id="Channel" value="Opérationnel"/>
        <string id="Task" value="Lecture d’un fichier"/>
        <string id="Opened" value="Fichier « %1 » ouvert : %2 octets, coût 5 € ‘cité’ — Œuvre"/>
        <string id="Failed" value="Échec — réessayez…"/>
      </stringTable>
    </resources>
  </localization>
</instrumentationManifest>
'''


def no_bom_warning(order):
    return ("x.man:1:1: warning: [MCG1005, -Wutf16-no-bom] UTF-16 input without a byte-order "
            "mark, read as UTF-16%s from its XML declaration (XML requires a BOM for UTF-16; "
            "save the file with one)\n1 warning\n" % order).encode()


def test_encodings(mcgen, tmp, tag):
    # every character of the strings is in windows-1252 (é, €, ‘ ’, «, —, Œ, …)
    ENC_DOC.encode("cp1252")
    r0, ref = compile_in(mcgen, tmp, tag + "utf8", ENC_DOC.format(enc="UTF-8").encode("utf-8"))
    report(r0.returncode == 0 and not r0.stderr and len(ref) == 4,
           "%sUTF-8 manifest compiles cleanly" % tag, "exit %d %r" % (r0.returncode, r0.stderr))
    cases = [
        ("windows-1252", ENC_DOC.format(enc="windows-1252").encode("cp1252"), b""),
        ("WINDOWS-1252 (the name in any case)", ENC_DOC.format(enc="WINDOWS-1252").encode("cp1252"), b""),
        ("UTF-16LE with a byte-order mark", b"\xff\xfe" + ENC_DOC.format(enc="UTF-16").encode("utf-16-le"), b""),
        ("UTF-16LE without a byte-order mark", ENC_DOC.format(enc="UTF-16").encode("utf-16-le"),
         no_bom_warning("LE")),
        ("UTF-16BE without a byte-order mark", ENC_DOC.format(enc="UTF-16").encode("utf-16-be"),
         no_bom_warning("BE")),
    ]
    for i, (name, data, err) in enumerate(cases):
        r, got = compile_in(mcgen, tmp, "%senc%d" % (tag, i), data)
        same_outputs("%s%s vs UTF-8" % (tag, name), ref, got, r, err)
    # without the declaration, UTF-16 without a mark is refused, as xmllint refuses it
    text = ENC_DOC.split("\n", 1)[1]
    r, got = compile_in(mcgen, tmp, tag + "nodecl", text.encode("utf-16-le"))
    want = (b"x.man:1:1: error: [MCG1004] UTF-16 input without a byte-order mark or XML "
            b"declaration (XML requires a BOM for UTF-16; save the file with one)\n1 error\n")
    report(r.returncode == 1 and r.stderr == want and not got,
           "%sUTF-16 without a byte-order mark or declaration refused (MCG1004)" % tag,
           "exit %d %r" % (r.returncode, r.stderr))
    # an attribute's column after non-ASCII characters: one column per byte
    # in windows-1252 (é, € are one character each): 8 spaces and
    # '<string id="é" value="€€€" ' are 35 characters, so 'bogus' is at 36
    doc = ENC_DOC.format(enc="windows-1252").replace(
        '<string id="Task" value="Lecture d’un fichier"/>',
        '<string id="é" value="€€€" bogus="x"/>')
    line = doc.split("\n").index('        <string id="é" value="€€€" bogus="x"/>') + 1
    r, got = compile_in(mcgen, tmp, tag + "column", doc.encode("cp1252"))
    want = ("x.man:%d:36: error: [MCG1201] unknown attribute 'bogus' on <string>\n"
            '          <string id="\ufffd" value="\ufffd\ufffd\ufffd" bogus="x"/>\n'
            "                                     ^\n" % line)
    err = r.stderr.decode("utf-8", "strict") if r.stderr else ""
    report(r.returncode == 1 and err.startswith(want) and not got,
           "%swindows-1252: an attribute's column counts characters, the source line shown "
           "as UTF-8 (%d:36)" % (tag, line), "exit %d %r" % (r.returncode, err[:400]))
    # an unknown encoding: refused naming it, at the name's position
    # ('<?xml version="1.0" encoding="' is 30 characters)
    r, got = compile_in(mcgen, tmp, tag + "koi8",
                        ENC_DOC.format(enc="KOI8-R").encode("ascii", "replace"))
    want = (b"x.man:1:31: error: [MCG1004] unsupported encoding 'KOI8-R' in the XML declaration: "
            b"mcgen reads UTF-8, UTF-16, ISO-8859-1, US-ASCII, windows-874 and windows-1250 to "
            b"windows-1258\n")
    report(r.returncode == 1 and r.stderr.startswith(want) and not got,
           "%san unknown encoding is refused, naming it (MCG1004)" % tag,
           "exit %d %r" % (r.returncode, r.stderr[:400]))


# The code-page tables: one string per page holding every byte the page
# defines, read back through --json; each undefined byte alone in a string
# must be refused at its position.
PAGE_DOC = ('<?xml version="1.0" encoding="windows-{page}"?>\n'
            '<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">\n'
            '  <localization>\n'
            '    <resources culture="en-US">\n'
            '      <stringTable>\n'
            '        <string id="s" value="x{text}"/>\n'
            '      </stringTable>\n'
            '    </resources>\n'
            '  </localization>\n'
            '</instrumentationManifest>\n')
PREFIX = b'        <string id="s" value="x'


def page_doc(page, body):
    head, tail = PAGE_DOC.split("{text}")
    return head.format(page=page).encode("ascii") + body + tail.encode("ascii")


def test_pages(mcgen, tmp, tag, every_undefined):
    for page in PAGES:
        codec = "cp%d" % page
        defined, undefined = [], []
        for b in range(0x80, 0x100):
            try:
                bytes([b]).decode(codec)
                defined.append(b)
            except UnicodeDecodeError:
                undefined.append(b)
        d = os.path.join(tmp, "%spage%d" % (tag, page))
        os.makedirs(d)
        with open(os.path.join(d, "x.man"), "wb") as f:
            f.write(page_doc(page, bytes(defined)))
        r = run(mcgen, ["-Wno-unused-string", "--json=m.json", "x.man"], d)
        value = None
        if r.returncode == 0:
            with open(os.path.join(d, "m.json"), encoding="utf-8") as f:
                value = json.load(f)["cultures"][0]["strings"][0]["value"]
        want = "x" + bytes(defined).decode(codec)
        wrong = [("0x%02X" % b, value[1 + i] if value and len(value) > 1 + i else None, c)
                 for i, (b, c) in enumerate(zip(defined, want[1:]))
                 if not value or len(value) != len(want) or value[1 + i] != c]
        report(value == want and not r.stderr,
               "%swindows-%d: its %d defined bytes 0x80..0xFF read as Python's %s reads them"
               % (tag, page, len(defined), codec),
               "exit %d %r; differing %s" % (r.returncode, r.stderr[:300], wrong[:8]))
        bad = []
        for b in (undefined if every_undefined else undefined[:1]):
            with open(os.path.join(d, "x.man"), "wb") as f:
                f.write(page_doc(page, bytes([b])))
            r = run(mcgen, ["--validate", "x.man"], d)
            want = ("x.man:6:%d: error: [MCG1001] malformed XML: the byte 0x%02X is not a "
                    "character in windows-%d (the encoding the XML declaration names)\n"
                    % (len(PREFIX) + 1, b, page)).encode()
            if r.returncode != 1 or not r.stderr.startswith(want):
                bad.append("0x%02X: exit %d %r" % (b, r.returncode, r.stderr[:200]))
        if undefined:
            report(not bad, "%swindows-%d: %s undefined byte%s refused at %s position, naming "
                   "it (MCG1001)" % (tag, page, len(undefined) if every_undefined else "its first",
                                     "s" if every_undefined and len(undefined) > 1 else "",
                                     "their" if every_undefined else "its"),
                   "; ".join(bad[:4]))


def windows_build(mcgen):
    """build/win64/mcgen.exe when the layer runs the normal build and the
    Windows one can run here (wine), else None with the reason."""
    if os.path.abspath(mcgen) != os.path.join(ROOT, "build", "mcgen"):
        return None, "the Windows build is compared with the normal build only"
    exe = os.path.join(ROOT, "build", "win64", "mcgen.exe")
    why = winexe.absent(exe)
    return (None, why) if why else (exe, None)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    args = ap.parse_args()
    mcgen = winexe.command_or_skip(os.path.abspath(args.mcgen))
    if mcgen is None:
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        test_component(mcgen, tmp)
        test_channels(mcgen, tmp)
        test_encodings(mcgen, tmp, "")
        test_pages(mcgen, tmp, "", True)
        if not winexe.is_windows(args.mcgen):
            exe, why = windows_build(args.mcgen)
            if exe:
                wine = winexe.wrap(exe)
                test_encodings(wine, tmp, "win64: ")
                test_pages(wine, tmp, "win64: ", False)
            else:
                skip("win64: the encoding cases under wine", why)
    print("%d passed, %d failed, %d skipped" % (results["passed"], results["failed"],
                                               results["skipped"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
