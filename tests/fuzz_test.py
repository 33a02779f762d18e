#!/usr/bin/env python3
"""Every fuzz target's inputs, run once by the target's plain-program build.

Each fuzz target of tests/fuzz/ is also linked, in every build (normal,
ASan+UBSan, TSan), with tests/fuzz/driver.c instead of libFuzzer: a
program that runs the files it is given once each.  This layer gives each
target all its inputs (tests/fuzz/targets.py): its regression inputs
(tests/fuzz/regress/<target>/, what campaigns found), the seeds in the
repository and in ../shared (the corpus, the reproducers of ../shared/repro),
and, for the binary readers, the binaries this build's mcgen makes from
the repository's manifests.  A target passes when the program ran every
input and exited 0: a crash, a sanitizer report, a leak or a broken
oracle (tests/fuzz/fuzz.h) fails it.  Prints "N passed, N failed, N skipped".
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz"))
import targets  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    args = ap.parse_args()
    mcgen = os.path.abspath(args.mcgen)
    build = os.path.dirname(mcgen)
    passed = failed = skipped = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in targets.TARGETS:
            prog = os.path.join(build, "fuzz", name)
            if not os.path.exists(prog):
                print("FAIL %s: %s is not built (ninja %s)" % (name, prog, os.path.relpath(prog)))
                failed += 1
                continue
            inputs = targets.seeds(name) + targets.made_seeds(name, mcgen, tmp)
            if not inputs:
                print("skipped %s: no inputs here" % name)
                skipped += 1
                continue
            # in batches, so that a command line stays short
            ran, ok = 0, True
            for i in range(0, len(inputs), 200):
                r = subprocess.run([prog] + inputs[i:i + 200], capture_output=True)
                m = re.search(rb": (\d+) inputs\n", r.stdout)
                if r.returncode != 0 or not m:
                    # which inputs: each of the batch again, alone
                    bad = 0
                    for f in inputs[i:i + 200]:
                        r = subprocess.run([prog, f], capture_output=True)
                        if r.returncode != 0 and bad < 5:
                            print("FAIL %s: exit %d on %s\n%s" % (
                                name, r.returncode, f, r.stderr.decode(errors="replace")[-2000:]))
                        bad += r.returncode != 0
                    print("FAIL %s: %d inputs fail" % (name, bad))
                    ok = False
                    break
                ran += int(m.group(1))
            if ok and ran != len(inputs):
                print("FAIL %s: %d inputs given, %d run" % (name, len(inputs), ran))
                ok = False
            if ok:
                print("ok %s: %d inputs (%s)" % (name, ran, targets.TARGETS[name][0]))
                passed += 1
            else:
                failed += 1
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
