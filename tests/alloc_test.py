#!/usr/bin/env python3
"""Allocation failure, libexpat's test habit: fail the N-th allocation of a
run for every N, and watch each run end in order.

mcgen counts every allocation at one choke point (mcgen/util.c), expat's
included (xml.c hands expat that allocator), and the hidden environment
variable MCGEN_FAIL_ALLOC=N makes the N-th of them fail (docs/internals.md).
Two scenarios, each in a temporary directory that holds an older version of
every output the run writes:

  compile  mcgen -um hello.man           (header, .rc, message tables, TEMP.BIN)
  render   mcgen --render=t.j2:out.txt hello.man   (a small user template)

N runs from 1 up to past the run's last allocation: the sweep stops after
five runs in a row that did not fail (the count may vary with the
threads' timing).  Every run must end in one of two ways:

  * exit 2, "mcgen: error: out of memory" on stderr (and, at most, the
    closing "N errors, M warnings" line), every older output byte for byte
    as it was and no file created (no temporary left behind);
  * exit 0 (the failed allocation was past the run's last), with outputs
    identical to a run without failure;

and never with a signal or a sanitizer report (ASan, LSan, UBSan, TSan:
tests/run sets them to fail the process).  The normal build sweeps every N;
a sanitizer build (its directory is not "build") each of the first 20 and
then every 4th N (a run costs several times as much there).

Prints per scenario the allocation points exercised (the highest N that
failed), crashes and leaks (both must be 0), then "N passed, N failed".
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HELLO = os.path.join(ROOT, "examples", "hello", "hello.man")
results = {"passed": 0, "failed": 0}

# a user template that walks the model with loops, filters and a macro
TEMPLATE = """\
{% macro line(e) %}{{ e.symbol | upper }} = {{ e.value | hex(4) }}{% endmacro %}
{% for p in providers %}
provider {{ p.name }} {{ p.guid }}
{% for e in p.events %}
  {{ line(e) }} {{ e.keywords | length }} keyword(s){% if loop.last %} (last){% endif %}
{% endfor %}
{% endfor %}
"""

SCENARIOS = {
    "compile": ["-um", "hello.man"],
    "render": ["--render=t.j2:out.txt", "hello.man"],
}

OOM = "mcgen: error: out of memory"
SUMMARY = re.compile(r"^\d+ errors?(, \d+ warnings?)?$")
SANITIZER = re.compile(r"Sanitizer|runtime error:")


def check(ok, name, why=""):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why), flush=True)


def snapshot(d):
    """Every file of d (no subdirectories are made) with its bytes."""
    out = {}
    for f in sorted(os.listdir(d)):
        with open(os.path.join(d, f), "rb") as fh:
            out[f] = fh.read()
    return out


def setup(d):
    shutil.copy(HELLO, os.path.join(d, "hello.man"))
    with open(os.path.join(d, "t.j2"), "w", encoding="utf-8") as f:
        f.write(TEMPLATE)


def env_for(n):
    env = dict(os.environ)
    if n:
        env["MCGEN_FAIL_ALLOC"] = str(n)
    # a run that ends from inside leaves worker threads unjoined: exit()
    # ends them, which ThreadSanitizer would call a thread leak
    tsan = env.get("TSAN_OPTIONS", "")
    env["TSAN_OPTIONS"] = (tsan + ":" if tsan else "") + "report_thread_leaks=0"
    return env


def run(mcgen, args, cwd, n):
    return subprocess.run([mcgen] + args, cwd=cwd, capture_output=True, env=env_for(n),
                          timeout=300)


def one(mcgen, args, old, ref, n):
    """Runs with the n-th allocation failing; (kind, why): kind is 'failed'
    (ended as out of memory), 'ok' (no failure reached), 'crash', 'leak' or
    'bad'."""
    with tempfile.TemporaryDirectory(prefix="mcgen-alloc-") as d:
        setup(d)
        for f, b in old.items():
            with open(os.path.join(d, f), "wb") as fh:
                fh.write(b)
        before = snapshot(d)
        r = run(mcgen, args, d, n)
        after = snapshot(d)
    err = r.stderr.decode("utf-8", "replace")
    if r.returncode < 0:
        return "crash", "signal %d: %s" % (-r.returncode, err[-2000:])
    if SANITIZER.search(err):
        return ("leak" if "LeakSanitizer" in err else "crash"), err[-2000:]
    if r.returncode == 0:
        want = dict(before)
        want.update(ref)
        if after != want or err:
            return "bad", "exit 0 but outputs differ from a run without failure (%s)" % err
        return "ok", ""
    lines = err.splitlines()
    if r.returncode != 2 or OOM not in lines or any(l != OOM and not SUMMARY.match(l) for l in lines):
        return "bad", "exit %d: %s" % (r.returncode, err[-2000:])
    temps = sorted(f for f in after if ".mcgen-" in f)
    if temps:
        return "bad", "out of memory, and a temporary left behind: %s" % ", ".join(temps)
    if after != before:
        changed = sorted(f for f in set(before) | set(after) if before.get(f) != after.get(f))
        return "written", "out of memory, but files were written: %s" % ", ".join(changed)
    return "failed", ""


def scenario(mcgen, name, args, sweep_all, jobs):
    # what a run without failure writes, and the older versions to start from
    with tempfile.TemporaryDirectory(prefix="mcgen-alloc-") as d:
        setup(d)
        inputs = snapshot(d)
        r = run(mcgen, args, d, 0)
        ref = {f: b for f, b in snapshot(d).items() if f not in inputs}
    if r.returncode != 0 or not ref:
        check(False, name, "a run without failure: exit %d: %s" % (r.returncode, r.stderr))
        return
    old = {f: b"older version of " + f.encode() + b"\n" for f in ref}

    counts = {"failed": 0, "ok": 0, "crash": 0, "leak": 0, "bad": 0, "written": 0}
    problems = []
    last_failed = 0
    n, streak, stride = 1, 0, 1 if sweep_all else 4
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        while streak < 5:
            batch = []
            for _ in range(jobs * 4):
                batch.append(n)
                # a sanitizer build strides, but takes each of the first 20
                n += 1 if n < 20 else stride
            for k, (kind, why) in zip(batch, pool.map(lambda k: one(mcgen, args, old, ref, k),
                                                          batch)):
                counts[kind] += 1
                if kind in ("failed", "written"):
                    last_failed = max(last_failed, k)
                    streak = 0
                    if kind == "written":
                        problems.append("N=%d: %s" % (k, why))
                elif kind == "ok":
                    streak += 1
                else:
                    streak = 0
                    problems.append("N=%d: %s: %s" % (k, kind, why))
    runs = sum(counts.values())
    print("%s: %d allocation points exercised (the highest N that failed), %d runs, "
          "%d ended as out of memory (%d of them after writing an output), %d past the last "
          "allocation; crashes %d, leaks %d"
          % (name, last_failed, runs, counts["failed"] + counts["written"], counts["written"],
             counts["ok"], counts["crash"], counts["leak"]))
    for p in problems[:10]:
        print("  " + p)
    check(last_failed > 100, name + ": the sweep reached the run's allocations",
          "only %d" % last_failed)
    check(counts["crash"] == 0, name + ": no crash under any failing allocation",
          "%d crashes" % counts["crash"])
    check(counts["leak"] == 0, name + ": no leak under any failing allocation",
          "%d leaks" % counts["leak"])
    check(counts["bad"] == 0, name + ": each run ends as out of memory (exit 2, the message, no "
          "temporary left) or as a run without failure", "%d runs did not" % counts["bad"])
    check(counts["written"] == 0, name + ": out of memory leaves every older output as it was",
          "%d runs wrote" % counts["written"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    ap.add_argument("--all", action="store_true", help="every N, in a sanitizer build too")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    mcgen = os.path.abspath(args.mcgen)
    sweep_all = args.all or os.path.basename(os.path.dirname(mcgen)) == "build"
    for name, argv in SCENARIOS.items():
        scenario(mcgen, name, argv, sweep_all, args.jobs)
    print("%d passed, %d failed" % (results["passed"], results["failed"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
