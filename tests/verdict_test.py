#!/usr/bin/env python3
"""One verdict: `mcgen --validate` and a compile agree on every input.

The check stage is the only source of manifest diagnostics, so a
pull-request check (`--validate -um`) and the build (`mcgen -um`) must
report the same problems (-um on both: the limits of the logging code
depend on it, MCG8020-MCG8022).  For every input below, both run with the
same extra arguments (a tests/invalid case's NAME.args), and their diagnostics are
compared as lists of (file, line, column, level, code), in order, along
with their exit statuses:

  * every manifest of ../shared/corpus (golden inputs and corpus/manifests),
    when it is there;
  * every tests/invalid case;
  * schema mutants of the golden inputs and the examples, made by
    tests/schema_mutate_test.py's generator (--count, default 2000).

The compile writes into a scratch directory (-h and -r), never beside the
input.  Prints a line per difference, the counts, and "N passed, N failed".
"""
import argparse
import importlib.util
import os
import random
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.normpath(os.path.join(ROOT, "..", "shared", "corpus"))
CASES = os.path.join(ROOT, "tests", "invalid")
DIAG = re.compile(r"^(\S[^\n]*?):(\d+):(\d+): (error|warning|note): (?:\[MCG(\d{4})[],])?", re.M)


def load_mutator():
    path = os.path.join(ROOT, "tests", "schema_mutate_test.py")
    spec = importlib.util.spec_from_file_location("schema_mutate_test", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def diagnostics(stderr):
    return [(m.group(1), int(m.group(2)), int(m.group(3)), m.group(4), m.group(5))
            for m in DIAG.finditer(stderr)]


def corpus_inputs():
    out = []
    if not os.path.isdir(CORPUS):
        return out
    for sub in ("golden", "manifests"):
        for dirpath, _, files in sorted(os.walk(os.path.join(CORPUS, sub))):
            for f in sorted(files):
                if f.endswith((".man", ".xml")):
                    out.append(os.path.join(dirpath, f))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    ap.add_argument("--count", type=int, default=2000)
    args = ap.parse_args()
    mcgen = os.path.abspath(args.mcgen)
    passed = failed = 0
    counts = {"corpus": 0, "invalid": 0, "mutants": 0}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        os.mkdir(out)

        def compare(kind, path, extra, cwd):
            nonlocal passed, failed
            v = subprocess.run([mcgen, "--validate", "-um"] + extra + [path], cwd=cwd,
                               capture_output=True, text=True, errors="replace")
            c = subprocess.run([mcgen, "-um", "-h", out, "-r", out] + extra + [path], cwd=cwd,
                               capture_output=True, text=True, errors="replace")
            counts[kind] += 1
            dv, dc = diagnostics(v.stderr), diagnostics(c.stderr)
            crashed = [r for r in (v, c) if r.returncode not in (0, 1) or "Sanitizer" in r.stderr
                       or "runtime error" in r.stderr]
            if dv == dc and v.returncode == c.returncode and not crashed:
                passed += 1
                return
            failed += 1
            print("FAIL %s %s%s: --validate exit %d, -um exit %d" %
                  (kind, os.path.relpath(path, ROOT) if os.path.isabs(path) else path,
                   " " + " ".join(extra) if extra else "", v.returncode, c.returncode))
            only_v = [d for d in dv if d not in dc]
            only_c = [d for d in dc if d not in dv]
            for d in only_v[:10]:
                print("    only --validate: %s:%d:%d %s MCG%s" % d)
            for d in only_c[:10]:
                print("    only -um:        %s:%d:%d %s MCG%s" % d)
            if crashed:
                print(crashed[0].stderr[:1500])

        corpus = corpus_inputs()
        if not corpus:
            print("note: ../shared/corpus absent: its manifests are skipped")
        for p in corpus:
            compare("corpus", p, [], None)
        for case in sorted(f for f in os.listdir(CASES) if f.endswith((".man", ".mc"))):
            extra = []
            argf = os.path.join(CASES, os.path.splitext(case)[0] + ".args")
            if os.path.exists(argf):
                extra = shlex.split(open(argf, encoding="utf-8").read())
            compare("invalid", case, extra, CASES)
        smt = load_mutator()
        usable = [(s, open(s, "rb").read()) for s in smt.sources()]
        rng = random.Random(20261125)
        made = attempts = 0
        while made < args.count and attempts < args.count * 3 and usable:
            attempts += 1
            src, data = rng.choice(usable)
            try:
                m = smt.mutate(rng, data)
            except Exception:  # minidom refuses some renames
                continue
            if m is None:
                continue
            path = os.path.join(tmp, "m%05d.man" % made)
            with open(path, "wb") as f:
                f.write(m[2])
            made += 1
            compare("mutants", path, [], None)
            os.remove(path)
    print("compared: %d corpus manifests, %d invalid cases, %d mutants: %d differences" %
          (counts["corpus"], counts["invalid"], counts["mutants"], failed))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
