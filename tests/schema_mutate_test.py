#!/usr/bin/env python3
"""Schema mutation test: mcgen's structural check against xmllint's.

Starting from valid manifests (the golden corpus inputs, which mc.exe
accepted, when ../shared/corpus is there; the repository's own example
manifests always), each mutant changes ONE thing of the document tree:

  drop-attr     removes one attribute
  bad-attr      gives one attribute another value (empty, a word, a
                negative or too large number, a bad GUID, an undeclared
                QName prefix, padded, ...)
  extra-attr    adds an attribute the element does not have
  drop-elem     removes one element with its content
  dup-elem      repeats one element right after itself
  rename-elem   renames one element (to a name that exists elsewhere in
                the schema, or to an unknown one)
  move-elem     moves one element before its first sibling
  text-elem     puts text into one element

Every mutant goes through `xmllint --noout --schema schema/eventman.xsd`
and `mcgen --validate`.  The test fails when mcgen crashes (any exit
status other than 0 and 1, or a sanitizer report) or when xmllint rejects
a mutant that mcgen accepts.  Where mcgen rejects a mutant that xmllint
accepts, the codes it printed say why: semantic codes (MCG2000 and up:
duplicates, ranges, references, messages...) are rules a schema cannot
state, an explained disagreement; a structural code (MCG1100-1299) there
is an unexplained disagreement and fails the test.

Prints the table of verdicts per mutation kind, every unexplained
disagreement, and "N passed, N failed".  --count sets the number of
mutants (default 2000; the sanitizer builds run fewer).
"""
import argparse
import collections
import os
import random
import re
import subprocess
import sys
import tempfile
import xml.dom.minidom as minidom

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.normpath(os.path.join(ROOT, "..", "shared", "corpus"))
XSD = os.path.join(ROOT, "schema", "eventman.xsd")

BAD_VALUES = ["", "x", "-1", "70000", "4294967296", "18446744073709551616", "0x",
              "{not-a-guid}", "zz:Undeclared", " 5 ", "true", "1.5", "$(string.)",
              "Admin", "win:Informational", "\u00e9", "0", "65536", "256"]
UNKNOWN_NAMES = ["bogus", "eventx", "Events"]


def sources():
    out = []
    for dirpath, _, files in sorted(os.walk(os.path.join(ROOT, "examples"))):
        out += [os.path.join(dirpath, f) for f in sorted(files) if f.endswith(".man")]
    if os.path.isdir(CORPUS):
        gold = os.path.join(CORPUS, "golden")
        for case in sorted(os.listdir(gold)):
            p = os.path.join(gold, case, "input.man")
            if os.path.exists(p):
                out.append(p)
    return out


def elements(node):
    """Every element of the tree, in document order."""
    out = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.nodeType == n.ELEMENT_NODE:
            out.append(n)
        stack.extend(reversed(n.childNodes))
    return out


def element_names(doc):
    return sorted({e.localName for e in elements(doc.documentElement)})


def mutate(rng, data):
    """(kind, description, bytes) of one mutant of `data`, or None."""
    doc = minidom.parseString(data)
    elems = elements(doc.documentElement)
    kind = rng.choice(["drop-attr", "bad-attr", "extra-attr", "drop-elem", "dup-elem",
                       "rename-elem", "move-elem", "text-elem"])
    index = rng.randrange(len(elems))
    e = elems[index]
    attrs = [a for a in e.attributes.keys() if not a.startswith("xmlns")]
    where = "<%s> (element %d)" % (e.tagName, index + 1)
    if kind in ("drop-attr", "bad-attr") and not attrs:
        kind = "extra-attr"
    if kind in ("drop-elem", "dup-elem", "move-elem", "rename-elem") and e is doc.documentElement:
        kind = "extra-attr"
    if kind == "drop-attr":
        a = rng.choice(sorted(attrs))
        e.removeAttribute(a)
        what = "%s: drop %s" % (where, a)
    elif kind == "bad-attr":
        a = rng.choice(sorted(attrs))
        v = rng.choice(BAD_VALUES + [e.getAttribute(a) + "x"])
        e.setAttribute(a, v)
        what = "%s: %s=%r" % (where, a, v)
    elif kind == "extra-attr":
        a = rng.choice(["bogus", "value", "name", "symbol", "level", "message"])
        if e.hasAttribute(a):
            a = "bogus"
        e.setAttribute(a, "1")
        what = "%s: add %s" % (where, a)
    elif kind == "drop-elem":
        e.parentNode.removeChild(e)
        what = "%s: drop" % where
    elif kind == "dup-elem":
        e.parentNode.insertBefore(e.cloneNode(True), e.nextSibling)
        what = "%s: duplicate" % where
    elif kind == "rename-elem":
        names = element_names(doc) + UNKNOWN_NAMES
        new = rng.choice([n for n in names if n != e.localName])
        prefix = e.prefix + ":" if e.prefix else ""
        doc.renameNode(e, e.namespaceURI, prefix + new)
        what = "%s: rename to %s" % (where, new)
    elif kind == "move-elem":
        first = e.parentNode.firstChild
        while first is not None and first.nodeType != first.ELEMENT_NODE:
            first = first.nextSibling
        if first is e or first is None:
            return None
        e.parentNode.insertBefore(e, first)
        what = "%s: move first" % where
    else:
        e.appendChild(doc.createTextNode("stray text"))
        what = "%s: add text" % where
    return kind, what, doc.toxml(encoding="utf-8")


def xmllint_verdicts(paths):
    """{path: True if valid} from one xmllint run over many files."""
    r = subprocess.run(["xmllint", "--noout", "--schema", XSD] + paths,
                       capture_output=True, text=True, errors="replace")
    out = {}
    for p in paths:
        if re.search(r"^%s validates$" % re.escape(p), r.stderr, re.M):
            out[p] = True
        elif re.search(r"^%s fails to validate$" % re.escape(p), r.stderr, re.M) or \
                re.search(r"^%s:\d+: parser error" % re.escape(p), r.stderr, re.M):
            out[p] = False
        else:
            out[p] = None
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    ap.add_argument("--count", type=int, default=2000)
    args = ap.parse_args()
    mcgen = os.path.abspath(args.mcgen)
    try:
        subprocess.run(["xmllint", "--version"], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        print("skipped: xmllint is not installed (./setup installs libxml2-utils)")
        print("0 passed, 0 failed, 1 skipped")
        return 0
    srcs = sources()
    if not os.path.isdir(CORPUS):
        print("note: ../shared/corpus absent: mutating the repository's examples only")
    datas = [(s, open(s, "rb").read()) for s in srcs]
    # the sources themselves must be valid for both
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        base = xmllint_verdicts([s for s, _ in datas])
        usable = []
        for s, d in datas:
            r = subprocess.run([mcgen, "--validate", s], capture_output=True, text=True,
                               errors="replace")
            rel = os.path.relpath(s, os.path.dirname(ROOT))
            ok = base[s] is True and r.returncode == 0
            print("%s source %s: xmllint %s, mcgen exit %d" %
                  ("PASS" if ok else "FAIL", rel, "valid" if base[s] else "invalid",
                   r.returncode))
            if ok:
                passed += 1
                usable.append((s, d))
            else:
                failed += 1
                print(r.stderr[:2000])
        rng = random.Random(20261122)
        mutants = []
        attempts = 0
        while len(mutants) < args.count and attempts < args.count * 3 and usable:
            attempts += 1
            src, data = rng.choice(usable)
            try:
                m = mutate(rng, data)
            except Exception as ex:  # minidom refuses some renames
                print("note: mutation skipped: %s" % ex)
                continue
            if m is None:
                continue
            path = os.path.join(tmp, "m%05d.man" % len(mutants))
            with open(path, "wb") as f:
                f.write(m[2])
            mutants.append((path, src, m[0], m[1]))
        lint = {}
        for i in range(0, len(mutants), 250):
            lint.update(xmllint_verdicts([p for p, _, _, _ in mutants[i:i + 250]]))
        table = collections.defaultdict(collections.Counter)
        bad = []
        for path, src, kind, what in mutants:
            r = subprocess.run([mcgen, "--validate", path], capture_output=True, text=True,
                               errors="replace")
            codes = sorted(set(int(c) for c in re.findall(r"\[MCG(\d{4})[],]", r.stderr)))
            rel = os.path.relpath(src, os.path.dirname(ROOT))
            if r.returncode not in (0, 1) or "Sanitizer" in r.stderr or "runtime error" in r.stderr:
                bad.append("%s (%s): mcgen exit %d\n%s" % (rel, what, r.returncode, r.stderr[:1500]))
                table[kind]["crash"] += 1
                continue
            x = lint[path]
            if x is None:
                bad.append("%s (%s): no xmllint verdict" % (rel, what))
                continue
            if x and r.returncode == 0:
                table[kind]["both accept"] += 1
            elif not x and r.returncode == 1:
                table[kind]["both reject"] += 1
            elif not x and r.returncode == 0:
                table[kind]["xmllint only rejects"] += 1
                lines = subprocess.run(["xmllint", "--noout", "--schema", XSD, path],
                                       capture_output=True, text=True).stderr
                bad.append("%s (%s): xmllint rejects, mcgen accepts:\n%s" % (rel, what, lines[:800]))
            elif codes and all(c >= 2000 for c in codes):
                table[kind]["mcgen only rejects: semantic"] += 1
            else:
                table[kind]["mcgen only rejects: structural"] += 1
                bad.append("%s (%s): mcgen rejects (structurally), xmllint accepts:\n%s" %
                           (rel, what, r.stderr[:800]))
        cols = ["both accept", "both reject", "mcgen only rejects: semantic",
                "mcgen only rejects: structural", "xmllint only rejects", "crash"]
        print("%-12s %s" % ("mutation", " | ".join(cols)))
        total = collections.Counter()
        for kind in sorted(table):
            print("%-12s %s" % (kind, " | ".join("%d" % table[kind][c] for c in cols)))
            total.update(table[kind])
        print("%-12s %s" % ("all", " | ".join("%d" % total[c] for c in cols)))
        agree = total["both accept"] + total["both reject"]
        print("%d mutants: %d agreements, %d disagreements explained by semantic rules, "
              "%d unexplained" % (len(mutants), agree, total["mcgen only rejects: semantic"],
                                  len(bad)))
        for b in bad:
            print("FAIL " + b)
        failed += len(bad)
        ok = len(mutants) >= min(args.count, 1) and not bad
        print("%s %d mutants, every xmllint rejection rejected by mcgen, no crash" %
              ("PASS" if ok else "FAIL", len(mutants)))
        passed += 1 if ok else 0
        failed += 0 if ok else (0 if bad else 1)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
