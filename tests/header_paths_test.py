#!/usr/bin/env python3
"""The header written in C is the header the templates render.

With the built-in templates, emit_header.c writes the C header itself
(header_write) instead of rendering templates/header.h.j2; with a
--templates directory it renders them.  An empty --templates directory
makes mcgen render the built-in templates, so the two runs below differ
only in the path: for every manifest of the reference corpus
(../shared/corpus: golden inputs, manifests) and of tests/ (the invalid
cases that compile with warnings bring duplicate field names, maps and
odd symbols), with -um, -km, descriptors only, -co, -P and -p, both runs
must end the same way and write the same bytes in every output.  The
rendered header is the reference: the golden and header tests check it
against mc.exe's and against compilers.

Prints one line per difference and "N passed, N failed, N skipped".
"""
import argparse
import concurrent.futures
import filecmp
import glob
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "..", "shared", "corpus")
OPTIONS = [["-um"], ["-km"], [], ["-um", "-co"], ["-km", "-P", "Evt", "-p", "Log"],
           ["-um", "-P", "Microsoft_"], ["-um", "-cp", "utf-16"]]


def inputs():
    found = sorted(glob.glob(os.path.join(ROOT, "tests", "**", "*.man"), recursive=True))
    corpus = os.path.isdir(CORPUS)
    if corpus:
        for ext in ("man", "xml"):
            found += sorted(glob.glob(os.path.join(CORPUS, "**", "*." + ext), recursive=True))
    return found, corpus


def run(mcgen, args, manifest, out, templates):
    os.makedirs(out)
    extra = ["--templates", templates] if templates else []
    p = subprocess.run([mcgen] + args + extra + ["-h", out, "-r", out, manifest],
                       capture_output=True, timeout=120)
    return p.returncode, p.stderr


def same(mcgen, manifest, args, tmp, empty, i):
    a, b = os.path.join(tmp, "%d-c" % i), os.path.join(tmp, "%d-t" % i)
    ra, ea = run(mcgen, args, manifest, a, None)
    rb, eb = run(mcgen, args, manifest, b, empty)
    names = sorted(os.listdir(a))
    if ra != rb or ea != eb or names != sorted(os.listdir(b)):
        return "exit %d vs %d, or other diagnostics or files" % (ra, rb), False
    for n in names:
        if not filecmp.cmp(os.path.join(a, n), os.path.join(b, n), shallow=False):
            return n + " differs", False
    header = any(n.endswith(".h") for n in names)
    return "", header


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", default=os.path.join(ROOT, "build", "mcgen"))
    opts = ap.parse_args()
    mcgen = os.path.abspath(opts.mcgen)
    manifests, corpus = inputs()
    passed = failed = 0
    skipped = 0 if corpus else 1
    if not corpus:
        print("skipped: the corpus (../shared/corpus) is absent; tests/ only")
    with tempfile.TemporaryDirectory() as tmp:
        empty = os.path.join(tmp, "empty")
        os.makedirs(empty)
        jobs = [(m, args) for m in manifests for args in OPTIONS]
        headers = 0
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
            futs = [ex.submit(same, mcgen, m, args, tmp, empty, i)
                    for i, (m, args) in enumerate(jobs)]
            for (m, args), f in zip(jobs, futs):
                why, header = f.result()
                if why:
                    failed += 1
                    print("FAIL %s %s: %s" % (os.path.relpath(m, ROOT), " ".join(args), why))
                else:
                    passed += 1
                    headers += header
    print("%d runs wrote a header, the same both ways" % headers)
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
