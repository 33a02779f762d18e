#!/usr/bin/env python3
"""Mutation test: damaged manifests never crash mcgen.

Starting from examples/hello/hello.man (and, when ../shared/corpus is
there, a UTF-8 and a UTF-16 corpus manifest), each run flips, deletes,
inserts or duplicates a few bytes (deterministic seed) and runs mcgen with
--json, --wevt and --message-tables.  Every run must end with exit status
0 or 1, with no sanitizer
report, and an output file only on success.  Prints one line per source
and "N passed, N failed".
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.normpath(os.path.join(ROOT, "..", "shared", "corpus"))
RUNS = 150
SNIPPETS = [b"<", b">", b'"', b"'", b"&", b":", b"win:", b"$(string.", b"\x00", b"\xff\xfe",
            b"<!DOCTYPE x>", b"&#0;", b"xmlns:a='u'", b"]]>"]


def mutate(rng, src):
    b = bytearray(src)
    for _ in range(rng.randint(1, 8)):
        if not b:
            break
        pos = rng.randrange(len(b))
        op = rng.random()
        if op < 0.4:
            b[pos] = rng.randrange(256)
        elif op < 0.6:
            del b[pos:pos + rng.randint(1, 20)]
        elif op < 0.8:
            b[pos:pos] = rng.choice(SNIPPETS)
        else:
            q = rng.randrange(len(b))
            b[pos:pos] = b[q:q + rng.randint(1, 50)]
    return bytes(b)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    mcgen = os.path.abspath(ap.parse_args().mcgen)
    sources = [os.path.join(ROOT, "examples", "hello", "hello.man")]
    if os.path.isdir(CORPUS):
        sources += [os.path.join(CORPUS, "golden", "etk-Large", "input.man"),
                    os.path.join(CORPUS, "manifests", "MBulli-DelphiEtw", "Testing.man")]
    else:
        print("note: ../shared/corpus absent: mutating the example only")
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        man, out = os.path.join(tmp, "m.man"), os.path.join(tmp, "m.json")
        for src in sources:
            rng = random.Random(os.path.basename(src))
            data = open(src, "rb").read()
            bad = []
            for i in range(RUNS):
                with open(man, "wb") as f:
                    f.write(mutate(rng, data))
                if os.path.exists(out):
                    os.unlink(out)
                r = subprocess.run([mcgen, "--json=" + out, "--wevt=" + out + ".bin",
                                    "--message-tables=" + tmp, man], capture_output=True)
                err = r.stderr.decode("utf-8", "replace")
                if (r.returncode not in (0, 1) or "Sanitizer" in err or "runtime error" in err
                        or os.path.exists(out) != (r.returncode == 0)):
                    bad.append("run %d: exit %d %s" % (i, r.returncode, err[-300:]))
            ok = not bad
            passed += ok
            failed += not ok
            print(("PASS " if ok else "FAIL ") + "%d mutations of %s: exit 0 or 1, no crash, output only "
                  "on success" % (RUNS, os.path.relpath(src, ROOT)) + ("" if ok else ": " + bad[0]))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
