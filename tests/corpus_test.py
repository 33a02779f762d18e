#!/usr/bin/env python3
"""Corpus tests: every real manifest in ../shared/corpus loads.

For each manifest (golden/*/input.man and manifests/**):
  * xmlwf (expat's own checker) decides whether the file is well-formed,
    and `xmllint --schema schema/eventman.xsd` whether it is valid; a
    Windows component manifest (root <assembly> in namespace asm.v3, which
    mc compiles) is valid when its parts are: its <instrumentation> and
    <localization> cut out into an <instrumentationManifest> of their own
    (assembly_parts), the document mcgen checks them as;
  * a valid file must load: exit 0, --json written, valid JSON, with
    as many providers and events as an independent parse (ElementTree) finds;
  * a malformed file must be refused with exit 1, a diagnostic at the
    position xmlwf names, and no --json file;
  * a well-formed file the schema rejects must be refused with exit 1, a
    structural diagnostic (MCG1003, MCG11xx or MCG12xx: mcgen checks the
    same schema) and no --json file.  Without xmllint this check is
    skipped, saying so, and such files are expected to load.
For every golden case with a real mc.h the JSON is compared with mc.exe's
EVENT_DESCRIPTORs: event ids, versions, channel values, levels, opcodes,
tasks, keyword masks (plus the bit mc adds for a declared channel); where the header has
user-mode template helpers (-um) also the template field types, through
mc's type-mangling rules (../shared/docs/header-api.md section 6).

The message tables mcgen writes (--message-tables) are compared byte for
byte with every golden MSG00001.bin (and mc 8.1's where the case has it),
and its WEVT_TEMPLATE (--wevt) with every golden TEMP.BIN, in the format of
each mc version the case has (10.0.18362, 10.0.15063, 8.1).

Prints one line per check and "N passed, N failed, N skipped".
Skips, saying so, when ../shared/corpus is absent.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.dom.minidom
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.normpath(os.path.join(ROOT, "..", "shared", "corpus"))
NS = "{http://schemas.microsoft.com/win/2004/08/events}"
ASM_V3 = "urn:schemas-microsoft-com:asm.v3"

results = {"passed": 0, "failed": 0, "skipped": 0}


def report(ok, name, why=""):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why))


def report_skip(name):
    results["skipped"] += 1
    print("SKIP " + name)


def manifests():
    out = []
    gold = os.path.join(CORPUS, "golden")
    for case in sorted(os.listdir(gold)):
        p = os.path.join(gold, case, "input.man")
        if os.path.exists(p):
            out.append(p)
    for dirpath, _, files in sorted(os.walk(os.path.join(CORPUS, "manifests"))):
        for f in sorted(files):
            if f.endswith((".man", ".xml", ".manifest")):
                out.append(os.path.join(dirpath, f))
    return out


def xmlwf_error(path):
    """(line, col0, message) of the first well-formedness error, or None."""
    r = subprocess.run(["xmlwf", path], capture_output=True, text=True)
    m = re.search(r":(\d+):(\d+): (.*)", r.stdout + r.stderr)
    return (int(m.group(1)), int(m.group(2)), m.group(3)) if m else None


def independent_counts(path):
    root = ET.parse(path).getroot()
    provs = events = 0
    # <instrumentation> may sit in another namespace (assembly manifests)
    for inst in (e for e in root.iter() if e.tag.split("}")[-1] == "instrumentation"):
        for evs in inst.findall(NS + "events"):
            for p in evs.findall(NS + "provider"):
                provs += 1
                for pe in p.findall(NS + "events"):
                    events += len(pe.findall(NS + "event"))
    return provs, events


XSD = os.path.join(ROOT, "schema", "eventman.xsd")


def assembly_parts(path):
    """For a Windows component manifest, the text of an
    <instrumentationManifest> holding its <instrumentation>, <localization>
    and <metadata> children (the root's prefix declarations kept); None for
    any other file.  The parts' unprefixed asm.v3 elements land in the new
    root's default namespace, the events namespace, which is how mcgen reads
    them (read_man.c)."""
    try:
        root = xml.dom.minidom.parse(path).documentElement
    except Exception:  # not well-formed: xmlwf's verdict decides
        return None
    if root.namespaceURI != ASM_V3 or root.localName != "assembly":
        return None
    decls = "".join(' %s="%s"' % (k, v) for k, v in root.attributes.items()
                    if k.startswith("xmlns:"))
    parts = "".join(c.toxml() for c in root.childNodes
                    if c.nodeType == c.ELEMENT_NODE
                    and c.namespaceURI in (ASM_V3, NS[1:-1])
                    and c.localName in ("instrumentation", "localization", "metadata"))
    return ('<?xml version="1.0" encoding="utf-8"?>\n<instrumentationManifest xmlns="%s"%s>'
            '%s</instrumentationManifest>\n' % (NS[1:-1], decls, parts))


def schema_verdicts(paths, tmp):
    """{path: True (valid) / False (invalid)} from one xmllint run, or None
    when xmllint is not installed."""
    checked = {}
    for i, p in enumerate(paths):
        text = assembly_parts(p)
        if text is None:
            checked[p] = p
            continue
        checked[p] = os.path.join(tmp, "assembly-%d.man" % i)
        with open(checked[p], "w", encoding="utf-8") as f:
            f.write(text)
    try:
        r = subprocess.run(["xmllint", "--noout", "--schema", XSD] + list(checked.values()),
                           capture_output=True, text=True, errors="replace")
    except OSError:
        return None
    out = {}
    for p in paths:
        out[p] = bool(re.search(r"^%s validates$" % re.escape(checked[p]), r.stderr, re.M))
    return out


def run_mcgen(mcgen, path, out):
    return subprocess.run([mcgen, "--json=" + out, path], capture_output=True, text=True)


def check_manifest(mcgen, path, tmp, valid=None):
    rel = os.path.relpath(path, CORPUS)
    out = os.path.join(tmp, "model.json")
    if os.path.exists(out):
        os.unlink(out)
    err = xmlwf_error(path)
    r = run_mcgen(mcgen, path, out)
    if err:
        line, col0, msg = err
        want = "%s:%d:%d: error: [MCG1001] malformed XML: %s" % (path, line, col0 + 1, msg)
        ok = r.returncode == 1 and r.stderr.startswith(want) and not os.path.exists(out)
        report(ok, "%s refused as xmlwf does (%d:%d %s)" % (rel, line, col0 + 1, msg),
               "exit %d, stderr %r" % (r.returncode, r.stderr[:300]))
        return None
    if valid is False:
        codes = [int(c) for c in re.findall(r"error: \[MCG(\d{4})[],]", r.stderr)]
        structural = [c for c in codes if c == 1003 or 1100 <= c < 1300]
        first = r.stderr.splitlines()[0] if r.stderr else ""
        ok = r.returncode == 1 and structural and not os.path.exists(out)
        report(ok, "%s refused as the schema does (%d structural errors; first: %s)" %
               (rel, len(structural), first[len(path) + 1:][:160]),
               "exit %d, stderr %r" % (r.returncode, r.stderr[:600]))
        return None
    if r.returncode != 0:
        report(False, rel, "exit %d: %s" % (r.returncode, r.stderr[:2000]))
        return None
    try:
        with open(out, encoding="utf-8") as f:
            model = json.load(f)
    except (OSError, ValueError) as e:
        report(False, rel, "invalid JSON: %s" % e)
        return None
    provs, events = independent_counts(path)
    got_p = len(model["providers"])
    got_e = sum(len(p["events"]) for p in model["providers"])
    report(got_p == provs and got_e == events,
           "%s loads (%d providers, %d events, valid JSON)" % (rel, got_p, got_e),
           "ElementTree finds %d providers, %d events" % (provs, events))
    return model


# ---- comparison with mc.h ----

LETTER = {
    "UnicodeString": "z", "AnsiString": "s", "Int8": "c", "UInt8": "u", "Int16": "l",
    "UInt16": "h", "Int32": "d", "UInt32": "q", "Int64": "i", "UInt64": "x", "Float": "f",
    "Double": "g", "Boolean": "t", "Binary": "b", "GUID": "j", "Pointer": "p",
    "FILETIME": "m", "SYSTEMTIME": "y", "SID": "k", "HexInt32": "d", "HexInt64": "i",
    "CountedUnicodeString": "w", "CountedAnsiString": "a", "CountedBinary": "e",
}


def qty(q):
    """('none'|'fixed'|'var', n)"""
    if q is None:
        return ("none", 0)
    if "fixed" in q:
        return ("fixed", q["fixed"]) if q["fixed"] else ("none", 0)
    return ("var", q["index"])


def mangle_field(f):
    if f["kind"] == "struct":
        letter = "n"
    else:
        letter = LETTER[f["inType"].split(":", 1)[1]]
    ck, cn = qty(f["count"])
    if ck == "fixed" and cn == 1:
        ck = "none"
    lk, ln = qty(f["length"])
    up = letter.upper()
    if letter not in "zsb":
        if ck == "none":
            return letter
        if ck == "fixed":
            return up + str(cn)
        return up + "R" + str(cn)
    if ck == "none":
        return letter + ("" if lk == "none" else str(ln) if lk == "fixed" else "r" + str(ln))
    if ck == "fixed":
        if lk == "none":
            return up + "R"
        if lk == "fixed":
            return up + str(cn * ln)
        return up + str(cn) + "r" + str(ln)
    if lk == "none":
        return up + "R"
    if lk == "fixed":
        return up + str(ln) + "r" + str(cn)
    return up + "r" + str(ln) + "R" + str(cn)


def parse_header(path):
    text = open(path, encoding="latin-1").read()
    descs = [(m.group(1), [int(x, 16) for x in m.group(2).split(",")])
             for m in re.finditer(r"const EVENT_DESCRIPTOR (\w+) = \{([^}]*)\};", text)]
    calls = {}
    for m in re.finditer(r"McTemplateU0(\w*)\(&(\w+)_Context, &(\w+)", text):
        calls.setdefault((m.group(2), m.group(3)), m.group(1))
    return descs, calls


def compare_with_header(case, model):
    header = os.path.join(CORPUS, "golden", case, "mc.h")
    descs, calls = parse_header(header)
    ours = []
    for p in model["providers"]:
        for e in p["events"]:
            if not e["notLogged"]:
                ours.append((p, e))
    if len(ours) != len(descs):
        report(False, "%s: descriptor count" % case, "%d events vs %d descriptors in mc.h"
               % (len(ours), len(descs)))
        return
    bad = []
    for (p, e), (sym, d) in zip(ours, descs):
        kw = int(e["keywordMask"], 16)
        chan = 0
        if e["channel"]:
            # wevt-template.md 7.1: declared channels (not auto-imported ones)
            # add the bit 63 - index to the descriptor's keyword
            if not p["channels"][e["channel"]["index"]]["autoImported"]:
                kw |= 1 << (63 - e["channel"]["index"])
            chan = e["channel"]["value"]
        elif p["controlGuid"]:
            chan = 0xC  # header-api.md section 2: mc's header quirk
        want = [e["value"], e["version"], chan,
                e["level"]["value"] if e["level"] else 0,
                e["opcode"]["value"] if e["opcode"] else 0,
                e["task"]["value"] if e["task"] else 0, kw]
        if e["symbol"] and e["symbol"] != sym:
            bad.append("event %d: symbol %s vs %s" % (e["value"], e["symbol"], sym))
        if want != d:
            bad.append("%s: ours %s, mc.h %s" % (sym, [hex(x) for x in want],
                                                  [hex(x) for x in d]))
        tmpl = None
        if e["template"]:
            tmpl = next(t for t in p["templates"] if t["tid"] == e["template"])
        mangle = "".join(mangle_field(f) for f in tmpl["fields"]) if tmpl else ""
        call = calls.get((p["symbol"], sym))
        if not calls:
            pass  # descriptors-only (plain mc) or kernel-mode header: no U0 helpers
        elif call is None:
            bad.append("%s: no McTemplateU0 call in mc.h" % sym)
        elif call != mangle:
            bad.append("%s: template types %s, mc.h McTemplateU0%s" % (sym, mangle, call))
    what = "descriptors and template types" if calls else "descriptors"
    report(not bad, "%s: %d %s match mc.h" % (case, len(descs), what), "; ".join(bad[:10]))


def message_ids(model):
    """{string id: message id} over every message object of the model."""
    out = {}

    def walk(x):
        if isinstance(x, dict):
            if "messageId" in x and "id" in x and not x.get("builtin"):
                out.setdefault(x["id"], set()).add(x["messageId"])
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(model["providers"])
    walk(model["messageTable"])
    return out


def compare_message_ids(case, model):
    """message-ids.md 6: one '#define MSG_<id> 0x...L' per string that got an
    id, <id> with every character outside [A-Za-z0-9_] replaced by '_'."""
    text = open(os.path.join(CORPUS, "golden", case, "mc.h"), encoding="latin-1").read()
    theirs = {m.group(1): int(m.group(2), 16)
              for m in re.finditer(r"^#define MSG_(\w+)\s+0x([0-9A-Fa-f]+)L", text, re.M)}
    ours, bad = {}, []
    for sid, ids in message_ids(model).items():
        if len(ids) != 1:
            bad.append("string %s has ids %s" % (sid, sorted(hex(i) for i in ids)))
        ours[re.sub(r"[^A-Za-z0-9_]", "_", sid)] = min(ids)
    for name in sorted(set(ours) | set(theirs)):
        if ours.get(name) != theirs.get(name):
            bad.append("MSG_%s: ours %s, mc.h %s" % (
                name, hex(ours[name]) if name in ours else "none",
                hex(theirs[name]) if name in theirs else "none"))
    report(not bad, "%s: %d MSG_ ids equal mc.h's" % (case, len(theirs)), "; ".join(bad[:8]))


def compare_message_table(mcgen, case, tmp):
    """Byte-exact MSG00001.bin (msgtable.md), and mc 8.1's where present."""
    gold = os.path.join(CORPUS, "golden", case)
    out = os.path.join(tmp, "tables-" + case)
    os.makedirs(out, exist_ok=True)
    r = subprocess.run([mcgen, "--message-tables=" + out, os.path.join(gold, "input.man")],
                       capture_output=True, text=True)
    ours = os.path.join(out, "MSG00001.bin")
    if r.returncode != 0 or not os.path.exists(ours):
        report(False, "%s: MSG00001.bin" % case, "exit %d %s" % (r.returncode, r.stderr[:300]))
        return
    mine = open(ours, "rb").read()
    for name in ("MSG00001.bin", "MSG00001.mc-8.1.bin"):
        path = os.path.join(gold, name)
        if not os.path.exists(path):
            continue
        want = open(path, "rb").read()
        diff = first_difference(mine, want)
        report(diff is None, "%s: %s byte-identical (%d bytes)" % (case, name, len(want)),
               "first difference at 0x%x (ours %d bytes, mc %d bytes)"
               % (diff or 0, len(mine), len(want)))


def first_difference(a, b):
    i = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), None)
    if i is None and len(a) != len(b):
        i = min(len(a), len(b))
    return i


def compare_wevt(mcgen, case, tmp):
    """Byte-exact TEMP.BIN (wevt-template.md) for each mc version the case has."""
    gold = os.path.join(CORPUS, "golden", case)
    for name, compat in (("TEMP.BIN", "10.0.18362"), ("TEMP.mc-10.0.15063.BIN", "10.0.15063"),
                         ("TEMP.mc-8.1.BIN", "8.1")):
        path = os.path.join(gold, name)
        if not os.path.exists(path):
            continue
        ours = os.path.join(tmp, "%s-%s" % (case, name))
        r = subprocess.run([mcgen, "--mc-compat=" + compat, "--wevt=" + ours,
                            os.path.join(gold, "input.man")], capture_output=True, text=True)
        if r.returncode != 0 or not os.path.exists(ours):
            report(False, "%s: %s" % (case, name), "exit %d %s" % (r.returncode, r.stderr[:300]))
            continue
        mine, want = open(ours, "rb").read(), open(path, "rb").read()
        diff = first_difference(mine, want)
        where = ""
        if diff is not None:  # name the field through the strict reader
            x = subprocess.run([mcgen, "--check-wevt=" + path, "--explain=%d" % diff],
                               capture_output=True, text=True)
            where = x.stdout.strip().splitlines()[-1] if x.stdout.strip() else ""
        report(diff is None, "%s: %s byte-identical (%d bytes, --mc-compat=%s)"
               % (case, name, len(want), compat),
               "first difference at 0x%x (ours %d bytes, mc %d bytes): %s"
               % (diff or 0, len(mine), len(want), where))
        # the strict reader accepts mc's file
        x = subprocess.run([mcgen, "--check-wevt=" + path], capture_output=True, text=True)
        report(x.returncode == 0, "%s: %s reads cleanly (%s)" % (case, name, x.stdout.strip()),
               x.stderr.strip())


def compare_rc(mcgen, case, tmp):
    """The .rc, modulo line endings (the golden copies were stored with LF).
    mc names the files after -z; without mcgen's mc command line (a later
    issue) only cases whose .rc uses the plain MSG00001.bin are compared."""
    gold = os.path.join(CORPUS, "golden", case)
    want = open(os.path.join(gold, "mc.rc"), "rb").read().replace(b"\r\n", b"\n")
    m = re.search(rb'WEVT_TEMPLATE "([^"]+)"', want)
    if b'"MSG00001.bin"' not in want or not m:
        results["skipped"] += 1
        print("SKIP %s: mc.rc names its files after -z (needs the mc command line)" % case)
        return
    out = os.path.join(tmp, "rc-" + case)
    os.makedirs(out, exist_ok=True)
    r = subprocess.run([mcgen, "--rc=" + os.path.join(out, "x.rc"),
                        "--wevt=" + os.path.join(out, m.group(1).decode()),
                        "--message-tables=" + out, os.path.join(gold, "input.man")],
                       capture_output=True, text=True)
    got = open(os.path.join(out, "x.rc"), "rb").read() if r.returncode == 0 else b""
    report(r.returncode == 0 and got.replace(b"\r\n", b"\n") == want and b"\r\n" in got,
           "%s: mc.rc equal (CRLF written, compared modulo line endings)" % case,
           "%r vs %r %s" % (got, want, r.stderr))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    args = ap.parse_args()
    mcgen = os.path.abspath(args.mcgen)
    if not os.path.isdir(CORPUS):
        print("skipped: ../shared/corpus absent (corpus tests need the reference corpus)")
        print("0 passed, 0 failed, 1 skipped")
        return 0
    models = {}
    paths = manifests()
    with tempfile.TemporaryDirectory() as tmp:
        verdicts = schema_verdicts(paths, tmp)
        if verdicts is None:
            report_skip("schema verdicts: xmllint is not installed (./setup installs libxml2-utils)")
            verdicts = {}
        for path in paths:
            model = check_manifest(mcgen, path, tmp, verdicts.get(path))
            if model and path.endswith("input.man"):
                models[os.path.basename(os.path.dirname(path))] = model
        for case in sorted(os.listdir(os.path.join(CORPUS, "golden"))):
            if os.path.exists(os.path.join(CORPUS, "golden", case, "MSG00001.bin")):
                compare_message_table(mcgen, case, tmp)
            compare_wevt(mcgen, case, tmp)
            if os.path.exists(os.path.join(CORPUS, "golden", case, "mc.rc")):
                compare_rc(mcgen, case, tmp)
    gold = os.path.join(CORPUS, "golden")
    for case in sorted(os.listdir(gold)):
        if not os.path.exists(os.path.join(gold, case, "mc.h")):
            continue
        if case in models:
            compare_with_header(case, models[case])
            compare_message_ids(case, models[case])
        else:
            report(False, "%s: compare with mc.h" % case, "manifest did not load")
    print("%d passed, %d failed, %d skipped" % (results["passed"], results["failed"],
                                               results["skipped"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
