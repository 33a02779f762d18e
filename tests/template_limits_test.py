#!/usr/bin/env python3
"""Template limits: hostile templates end in a clean error, fast and small.

The template engine is bounded by construction (mcgen/tmpl.c,
docs/templates.md "Limits").  This test renders, with `--render` against a
generated manifest of 1,000 events, the patterns of the reproducers in
../shared/repro (generated here, so the test runs without ../shared):

  * 100,000 nested `{% if %}`, 100,000 parentheses, chains of 100,000 `~`
    or `|upper` (stack overflows before: SIGSEGV);
  * `9223372036854775807 + 1` and `-(0 - 9223372036854775807 - 1)`
    (signed overflow: undefined behaviour);
  * 28 lines of `{% set s = s ~ s %}` (a 4 GiB string) and five nested
    loops over the 1,000 events (10^12 iterations; 10.7 GB in 20 s);
  * range(2**63 - 1) walked by a loop or sorted, a list or a string
    repeated 2**63 - 1 times, a format width of 10**12;

each must exit with status 2 (a template problem, as every template
error), print its error at the template's line and column word for word
(the columns follow from the limits' definitions: the 256th operator of a
chain, the 257th opening tag, the 21st doubling past 16 MiB, ...), write
nothing, and, in the normal build, stay under 100 MB of peak RSS (under
an address-space limit of 1 GiB, so that a regression fails instead of
eating the machine; the sanitizer builds, whose shadow memory makes both
meaningless, skip the two bounds and say so).  The time each run took is
printed, not asserted.  The files of ../shared/repro run too when present.

Then the options: each limit is raised by its option (and exactly the
limit passes, one more does not), a value of 0 or not a number is a usage
error, and the limits apply to the header and .rc only when --templates
may put the user's text in them.

Prints one line per check and "N passed, N failed, N skipped".
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
from model_test import ROOT, report, report_skip, results  # noqa: E402 (the same counts)

REPRO = os.path.join(ROOT, "..", "shared", "repro")
RSS_LIMIT_KB = 100 * 1000  # 100 MB
ADDRESS_SPACE = 1 << 30


def manifest(n_events):
    events = "".join('<event value="%d" symbol="E%d"/>' % (i, i) for i in range(n_events))
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"'
            ' xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">\n'
            '<instrumentation><events>\n'
            '<provider name="P1" guid="{00000001-0000-0000-0000-000000000001}" symbol="P1"'
            ' resourceFileName="r.dll" messageFileName="r.dll"><events>' + events +
            '</events></provider></events></instrumentation></instrumentationManifest>\n')


def run(mcgen, args, cwd, bounded):
    """(status, stderr, peak RSS in KB, seconds) of one mcgen run."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))

    start = time.monotonic()
    p = subprocess.Popen([mcgen] + args, cwd=cwd, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, preexec_fn=limit if bounded else None)
    err = p.stderr.read().decode("utf-8", "replace")
    p.stderr.close()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, err, usage.ru_maxrss, time.monotonic() - start


DEEP = "expression nested more than 256 deep"
DOUBLING = ('{% set s = "0123456789abcdef" %}' + "{% set s = s ~ s %}" * 28 + "{{ s }}")
LOOPS = ("{% for a in providers %}{% for e in a.events %}{% for e2 in a.events %}"
         "{% for e3 in a.events %}{% for e4 in a.events %}{{ e.symbol }}{% endfor %}"
         "{% endfor %}{% endfor %}{% endfor %}{% endfor %}")


def loop_of_iteration(target, counts):
    """Which of nested loops (0: the outermost) makes the target-th
    iteration, when loop k runs counts[k] times each time it runs and
    every iteration of every loop counts, in the order they are made."""
    # work[k]: the iterations one full run of loop k makes, inner ones too
    work = [0] * (len(counts) + 1)
    for k in reversed(range(len(counts))):
        work[k] = counts[k] * (1 + work[k + 1])
    n, level = 0, 0
    while True:
        per = 1 + work[level + 1]
        n += (target - n - 1) // per * per + 1  # the whole iterations before, then the next
        if n == target:
            return level
        level += 1


def loop_col(template, k):
    """The column of the k-th (0: first) '{% for' of a one-line template."""
    at = -1
    for _ in range(k + 1):
        at = template.index("{% for", at + 1)
    return at + 1


def cases():
    """(name, template, expected error after 't.j2:', repro file)."""
    return [
        ("nested if", "{% if true %}" * 100000, "1:3329: error: blocks nested more than 256 deep",
         "tmpl-stack-overflow-nested-if.j2"),
        ("parentheses", "{{ " + "(" * 100000 + "1 }}", "1:260: error: " + DEEP,
         "tmpl-stack-overflow-parens.j2"),
        ("'~' chain", '{{ "a"' + ' ~ "a"' * 100000 + " }}", "1:1538: error: " + DEEP,
         "tmpl-stack-overflow-concat-chain.j2"),
        ("filter chain", '{{ "a"' + "|upper" * 100000 + " }}", "1:1538: error: " + DEEP,
         "tmpl-stack-overflow-filter-chain.j2"),
        ("'+' overflow", "{{ 9223372036854775807 + 1 }}",
         "1:24: error: 9223372036854775807 + 1 does not fit in 64 bits",
         "tmpl-ub-signed-overflow-add.j2"),
        ("'-' overflow", "{{ -(0 - 9223372036854775807 - 1) }}",
         "1:4: error: -(-9223372036854775808) does not fit in 64 bits",
         "tmpl-ub-signed-overflow-negate.j2"),
        # 16 bytes doubled: the 21st makes 32 MiB; its '~' is at column
        # 33 + 19 * 20 + 13
        ("4 GiB doubling", DOUBLING,
         "1:426: error: a string would pass the limit of 16777216 bytes "
         "(--template-max-string=BYTES raises it)", "tmpl-unbounded-output-4GiB.j2"),
        ("five nested loops", LOOPS,
         "1:%d: error: more than 5000000 loop iterations, macro calls and includes "
         "(--template-max-iterations=N raises the limit)"
         % loop_col(LOOPS, loop_of_iteration(5000001, [1, 1000, 1000, 1000, 1000])),
         "tmpl-unbounded-loop-memory.j2"),
        # the constructs of issue 18: range() is walked, not made, and its
        # walks count; repetition is held to the string limit or counted
        ("range(2**63 - 1)", "{% for i in range(9223372036854775807) %}{% endfor %}",
         "1:1: error: " + ITERATIONS, None),
        ("sort of range(2**63 - 1)", "{{ range(9223372036854775807) | sort | length }}",
         "1:33: error: " + LIST, None),
        ("list * 2**63 - 1", "{{ ([0] * 9223372036854775807) | length }}",
         "1:9: error: " + LIST, None),
        ("string * 2**63 - 1", "{{ 'ab' * 9223372036854775807 }}",
         "1:9: error: a string would pass the limit of 16777216 bytes "
         "(--template-max-string=BYTES raises it)", None),
        ("'%*d' of 10**12", "{{ '%1000000000000d' | format(1) }}",
         "1:24: error: a string would pass the limit of 16777216 bytes "
         "(--template-max-string=BYTES raises it)", None),
    ]


LIST = ("a list would pass the limit of 16777216 bytes, 174762 items "
        "(--template-max-string=BYTES raises it)")
ITERATIONS = ("more than 5000000 loop iterations, macro calls and includes "
              "(--template-max-iterations=N raises the limit)")


def check_hostile(mcgen, tmp, man, bounded, name, path, want):
    out = os.path.join(tmp, "out.txt")
    rc, err, rss, secs = run(mcgen, ["--render=%s:%s" % (path, out), man], tmp, bounded)
    first = err.splitlines()[0] if err else ""
    problems = []
    if rc != 2:
        problems.append("exit status %d, not 2" % rc)
    if first != want:
        problems.append("said %r, not %r" % (first[:300], want))
    if os.path.exists(out):
        problems.append("wrote %s" % out)
        os.unlink(out)
    if bounded and rss > RSS_LIMIT_KB:
        problems.append("peak RSS %d KB, over %d" % (rss, RSS_LIMIT_KB))
    report(not problems, "%s: exit %d in %.2f s, %d KB" % (name, rc, secs, rss),
           "; ".join(problems))


def check_options(mcgen, tmp, man, bounded):
    tpl = os.path.join(tmp, "t.j2")
    out = os.path.join(tmp, "out.txt")

    def render(text, *opts):
        with open(tpl, "w") as f:
            f.write(text)
        if os.path.exists(out):
            os.unlink(out)
        rc, err, _, _ = run(mcgen, list(opts) + ["--render=%s:%s" % (tpl, out), man], tmp,
                            bounded)
        return rc, (err.splitlines() or [""])[0], os.path.exists(out)

    # raising the string limit to 32 MiB lets the 21st doubling pass: the
    # 22nd fails, 19 columns on
    rc, first, wrote = render(DOUBLING, "--template-max-string=33554432")
    want = (tpl + ":1:445: error: a string would pass the limit of 33554432 bytes "
            "(--template-max-string=BYTES raises it)")
    report(rc == 2 and first == want and not wrote, "--template-max-string raises the limit",
           "exit %d, %r" % (rc, first))
    # 1,000 iterations and 1,000 bytes: exactly the limit passes
    loop = "{% for e in providers[0].events %}x{% endfor %}"
    text_col = len("{% for e in providers[0].events %}") + 1
    for opt, at, why in [("--template-max-iterations", 1,
                          "more than 999 loop iterations, macro calls and includes "
                          "(--template-max-iterations=N raises the limit)"),
                         ("--template-max-output", text_col,
                          "the output would pass the limit of 999 bytes "
                          "(--template-max-output=BYTES raises it)")]:
        rc, first, wrote = render(loop, opt + "=1000")
        report(rc == 0 and wrote, "%s=1000 renders 1,000 x" % opt, "exit %d, %r" % (rc, first))
        rc, first, wrote = render(loop, opt + "=999")
        want = "%s:1:%d: error: %s" % (tpl, at, why)
        report(rc == 2 and first == want and not wrote, "%s=999 stops it" % opt,
               "exit %d, %r" % (rc, first))
    for value in ["0", "abc", "-1", "99999999999999999999"]:
        rc, err, _, _ = run(mcgen, ["--template-max-output=" + value, man], tmp, bounded)
        want = ("mcgen: error: --template-max-output takes a number from 1 up, not '%s' "
                "(see mcgen --help)" % value)
        report(rc == 2 and err.splitlines()[:1] == [want],
               "--template-max-output=%s is a usage error" % value, "exit %d, %r" % (rc, err))
    # the built-in templates alone are not limited; with --templates they are
    small = ["--template-max-output=1", "--template-max-iterations=1", "-um"]
    hello = os.path.join(ROOT, "examples", "hello", "hello.man")
    rc, err, _, _ = run(mcgen, small + [hello], tmp, bounded)
    report(rc == 0 and os.path.getsize(os.path.join(tmp, "hello.h")) > 1000,
           "the built-in header is not limited", "exit %d, %s" % (rc, err[:300]))
    empty = os.path.join(tmp, "empty")
    os.makedirs(empty, exist_ok=True)
    for f in os.listdir(tmp):
        if f.startswith("hello"):
            os.unlink(os.path.join(tmp, f))
    rc, err, _, _ = run(mcgen, small + ["--templates=" + empty, hello], tmp, bounded)
    # header.h.j2's first text is at line 11 (after its comment), rc.j2's
    # inside its loop, at line 12
    want = ["header.h.j2:18:1: error: the output would pass the limit of 1 bytes "
            "(--template-max-output=BYTES raises it)",
            "rc.j2:12:1: error: the output would pass the limit of 1 bytes "
            "(--template-max-output=BYTES raises it)"]
    lines = [l for l in err.splitlines() if ": error: " in l]
    report(rc == 2 and lines == want and not any(f.startswith("hello") for f in os.listdir(tmp)),
           "with --templates the header and .rc are limited", "exit %d, %r" % (rc, lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mcgen", required=True)
    a = ap.parse_args()
    mcgen = os.path.abspath(a.mcgen)
    bounded = os.path.basename(os.path.dirname(mcgen)) == "build"
    if not bounded:
        print("(a sanitizer build: the 100 MB and address-space bounds are not applied)")
    with tempfile.TemporaryDirectory() as tmp:
        man = os.path.join(tmp, "events.man")
        with open(man, "w") as f:
            f.write(manifest(1000))
        for name, text, want, repro in cases():
            path = os.path.join(tmp, "t.j2")
            with open(path, "w") as f:
                f.write(text)
            check_hostile(mcgen, tmp, man, bounded, name, path, path + ":" + want)
            shared = os.path.join(REPRO, repro) if repro else None
            if not shared:
                pass
            elif os.path.exists(shared):
                shared = os.path.abspath(shared)
                check_hostile(mcgen, tmp, man, bounded, "../shared/repro/" + repro, shared,
                              shared + ":" + want)
            else:
                report_skip("../shared/repro/" + repro, "not present")
        check_options(mcgen, tmp, man, bounded)
    print("%d passed, %d failed, %d skipped" % (results["passed"], results["failed"],
                                                  results["skipped"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
