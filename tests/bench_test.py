#!/usr/bin/env python3
"""bench/run, which no other layer runs (`ninja bench` is not part of
`ninja test`), kept working: its arithmetic against the speed issue's
definitions, and one tiny run end to end.  Nothing here is timed and no
target is asserted: a MISSED target is the benchmark's news, not a failure.

1. The arithmetic, on numbers written by hand: rounds per input (at least
   9 pairs, 5 at 50 MB, 3 at 200 MB); a mode's ratio is the median of the
   per-round ratios against xmlwf, not a ratio of medians; the memory
   budget is 2 x the input + 16 MiB; growth is the largest deviation of
   ms per MB from the smallest generated size's, within +-15%; each
   target's PASS follows its value.
2. The launcher: 400 short commands, none lost to the shell that started
   them; each command's own exit status, output and peak RSS.
3. A run on two small generated manifests (and Shell-Core and the corpus
   batch when ../shared/corpus is there), one round each, against the
   mcgen under test: exit status 0, bench.json holding every mode of every
   input and a verdict for every target, a PASS or MISSED printed for each,
   the outputs cleaned up.
4. A broken mcgen (a script that writes nothing) makes the run fail (exit
   1, FAILED) and names the outputs a full compile did not write.

Prints PASS/FAIL/SKIP lines and "N passed, N failed, N skipped".
"""
import argparse
import importlib.machinery
import importlib.util
import json
import os
import re
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from diagfmt_test import check, results, skip  # noqa: E402 (the layers' PASS/FAIL lines)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench", "run")
CORPUS = os.path.join(ROOT, "..", "shared", "corpus")
MB = 1000 * 1000
MIB = 1024 * 1024


def load_bench():
    loader = importlib.machinery.SourceFileLoader("bench_run", BENCH)
    spec = importlib.util.spec_from_loader("bench_run", loader)
    mod = importlib.util.module_from_spec(spec)
    sys.dont_write_bytecode = True
    loader.exec_module(mod)
    return mod


class FakeRun:
    def __init__(self, cpu, peak=MIB):
        self.cpu, self.peak = cpu, peak


def row(b, name, size, cpu, peak=MIB, xmllint=None):
    """A measured input as measure_input() returns it; cpu maps each mode
    to its median CPU seconds, the ratio is cpu / xmlwf's."""
    modes = {}
    for mode, s in cpu.items():
        modes[mode] = {"cpu_s": s, "peak": peak}
        if mode != "xmlwf":
            modes[mode]["ratio"] = s / cpu["xmlwf"]
    r = {"input": name, "bytes": size, "pairs": 1, "budget": b.memory_budget(size),
         "modes": modes}
    if xmllint is not None:
        r["validate_vs_xmllint"] = xmllint
    return r


def test_arithmetic(b):
    check([b.pairs_for(s * MB, 0) for s in (0.87, 5, 50, 200)] == [9, 9, 5, 3],
          "rounds: 9 per input, 5 at 50 MB, 3 at 200 MB")
    check(b.pairs_for(200 * MB, 1) == 1, "rounds: --pairs sets every input's")
    # per-round ratios 2, 4, 3: median 3; the ratio of the medians would be 4
    got = b.ratio_of([FakeRun(2), FakeRun(4), FakeRun(9)],
                     [FakeRun(1), FakeRun(1), FakeRun(3)])
    check(got == 3, "ratio: the median of the per-round ratios", got)
    check(b.memory_budget(50 * MB) == 100 * MB + 16 * MIB,
          "memory budget: 2 x the input + 16 MiB", b.memory_budget(50 * MB))

    # ms per MB: --validate 20, 22.8 (+14%), 16.8 (-16%); -um 40 at every size
    flat = {"xmlwf": 0.01, "--json": 0.1, "binaries": 0.1}
    rows = [row(b, "gen-5mb", 5 * MB, dict(flat, **{"--validate": 0.100, "-um": 0.2})),
            row(b, "gen-50mb", 50 * MB, dict(flat, **{"--validate": 1.140, "-um": 2.0})),
            row(b, "gen-200mb", 200 * MB, dict(flat, **{"--validate": 3.360, "-um": 8.0}))]
    grow = {g["mode"]: g for g in b.growth(rows)}
    v = grow.get("--validate", {})
    check(abs(v.get("worst", 0) + 0.16) < 1e-9, "growth: the largest deviation from 5 MB's "
          "ms/MB (-16%, not +14%)", v)
    check([round(x, 6) for x in v.get("ms_per_mb", {}).values()] == [20, 22.8, 16.8],
          "growth: ms per MB at each size", v)
    check(grow.get("xmlwf", {}).get("control") is True, "growth: xmlwf is the control", grow)
    targets = {t["what"]: t for t in b.targets_of(rows, b.growth(rows), None)}
    gv, gu = targets.get("growth --validate: ms/MB vs gen-5mb"), \
        targets.get("growth -um: ms/MB vs gen-5mb")
    check(gv is not None and not gv["pass"] and gu is not None and gu["pass"],
          "growth: -16% MISSED, 0% PASS (target +-15%)", (gv, gu))
    check("growth xmlwf: ms/MB vs gen-5mb" not in targets and
          "growth binaries: ms/MB vs gen-5mb" not in targets,
          "growth: the control and binaries have no target", sorted(targets))

    # ratios exactly at a target pass; above it, they miss
    r = row(b, "x", 1 * MB, {"xmlwf": 1.0, "--validate": 2.0, "--json": 2.6, "binaries": 9.0,
                             "-um": 3.0, "xmllint": 4.0}, xmllint=0.5)
    r["modes"]["-um"]["peak"] = 2 * MB + 16 * MIB
    got = {t["what"]: t["pass"] for t in b.targets_of([r], [], None)}
    want = {"x --validate CPU / xmlwf": True, "x --json CPU / xmlwf": False,
            "x -um CPU / xmlwf": True,
            "x --validate peak MiB": True, "x --json peak MiB": True,
            "x -um peak MiB": True,
            "x --validate CPU / xmllint --schema": True}
    check(got == want, "targets: a ratio or a peak at its target passes, a ratio above it "
          "misses; binaries and xmllint have no target", got)
    r["modes"]["-um"]["peak"] = 2 * MB + 16 * MIB + 1
    got = {t["what"]: t["pass"] for t in b.targets_of([r], [], None)}
    check(got.get("x -um peak MiB") is False, "targets: a peak one byte over 2 x the input + "
          "16 MiB misses", got)
    batch = {"ratio": 2.51, "mcgen_peak": MIB, "budget": 20 * MIB}
    got = {t["what"]: t["pass"] for t in b.targets_of([], [], batch)}
    check(got == {"batch --validate CPU / xmlwf": False, "batch --validate peak MiB": True},
          "targets: the batch against 2.5 x xmlwf and its budget", got)


def test_run(mcgen, tmp):
    out = os.path.join(tmp, "bench")
    baseline = os.path.join(tmp, "before.json")
    with open(baseline, "w") as f:
        json.dump({"info": {"mcgen_version": "mcgen before"},
                   "targets": [{"what": "gen-0.4mb -um CPU / xmlwf", "value": 8.3,
                                "target": 3.0, "pass": False},
                               {"what": "growth --json: ms/MB vs gen-0.2mb", "value": 0.271,
                                "target": 0.15, "pass": False}]}, f)
    r = subprocess.run([sys.executable, BENCH, "--mcgen", mcgen, "--outdir", out,
                        "--sizes", "0.2,0.4", "--pairs", "1", "--warmup", "0",
                        "--cost-calls", "100000", "--cost-rounds", "2",
                        "--baseline", baseline],
                       capture_output=True, text=True)
    check(r.returncode == 0, "run: exit status 0", r.stdout[-2000:] + r.stderr[-2000:])
    try:
        with open(os.path.join(out, "bench.json")) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        check(False, "run: bench.json", e)
        return
    corpus = os.path.isdir(CORPUS)
    inputs = ["Shell-Core"] * corpus + ["gen-0.2mb", "gen-0.4mb"]
    check([x["input"] for x in data["rows"]] == inputs, "run: one row per input",
          [x["input"] for x in data["rows"]])
    modes = {"xmlwf", "--validate", "--json", "binaries", "-um", "xmllint"}
    check(all(set(x["modes"]) == modes for x in data["rows"]),
          "run: every mode measured on every input",
          [sorted(x["modes"]) for x in data["rows"]])
    check(all(m["cpu_s"] > 0 and m["peak"] > 0 for x in data["rows"]
              for m in x["modes"].values()), "run: a CPU time and a peak RSS for each")
    # 3 ratios, 3 peaks and xmllint per input; 3 growths; the batch's 2;
    # the cost section's (test_cost checks which)
    want = 7 * len(inputs) + 3 + 2 * corpus + len((data.get("cost") or {}).get("targets", []))
    targets = data["targets"]
    check(len(targets) == want and all(isinstance(t["pass"], bool) for t in targets),
          "run: a verdict for each of %d targets" % want, len(targets))
    lines = r.stdout.splitlines()
    # the verdicts of today's tables, above --baseline's
    tables = lines[:next((i for i, x in enumerate(lines) if x.startswith("before:")),
                         len(lines))]
    shown = sum(len(re.findall(r"\b(?:PASS|MISSED)\b", x)) for x in tables
                if not x.startswith("bench:"))
    listed = sum(1 for x in lines if x.startswith("bench: MISSED "))
    missed = sum(1 for t in targets if not t["pass"])
    check(shown == len(targets) and listed == missed,
          "run: each verdict in the tables, each MISSED listed once more",
          (shown, listed, len(targets), missed))
    then = [re.sub(r"  +", "  ", x) for x in lines
            if x.startswith(("before:", "gen-0.4mb -um CPU", "growth --json: ms/MB"))]
    want = [re.escape("before: mcgen before (%s)" % baseline) + "$",
            r"gen-0\.4mb -um CPU / xmlwf  <= 3\.00  8\.30  MISSED  \d+\.\d\d  (PASS|MISSED)$",
            r"growth --json: ms/MB vs gen-0\.2mb  \+-15%  \+27\.1%  MISSED  [-+]\d+\.\d%  "
            r"(PASS|MISSED)$"]
    check(len(then) == 3 and all(re.match(w, x) for w, x in zip(want, then)),
          "run: --baseline shows each target's earlier value and verdict beside today's", then)
    check("bench: %d targets: %d PASS, %d MISSED" % (len(targets), len(targets) - missed,
                                                   missed) in r.stdout,
          "run: the closing count", r.stdout[-500:])
    if corpus:
        check(data["batch"] and data["batch"]["files"] >= 60 and data["batch"]["mcgen_exit"]
              in (0, 1), "run: the batch validates every corpus manifest in one process",
              data["batch"] and data["batch"]["files"])
    else:
        skip("run: the batch", "../shared/corpus absent")
    left = sorted(n for n in os.listdir(out) if not n.endswith(".man") and n != "bench.json")
    check(left == [], "run: the outputs removed after the run", left)
    test_cost(data.get("cost"), lines)


def test_cost(cost, lines):
    """The Linux cost section ran in the same run: every loop measured, a
    verdict for each target it could measure, "skipped (reason)" for the
    parts it could not.  (Timings are the bench's to judge, not a test's.)"""
    if cost is None:
        check(False, "cost: the section in bench.json")
        return
    if "all" in cost["skipped"]:
        check(any(x.startswith("cost: skipped (") for x in lines), "cost: skipped, with its "
              "reason", cost["skipped"])
        return
    lttng = "lttng" not in cost["skipped"]
    loops = {"empty", "noop_ansi", "noop_wide"} | (
        {"lttng_ansi", "lttng_wide", "hand_ansi", "hand_wide"} if lttng else set())
    enabled = lttng and "enabled" not in cost["skipped"]
    if enabled:
        loops |= {"enabled_%s_%s" % (p, k) for p in ("lttng", "hand") for k in ("ansi", "wide")}
    check(set(cost["loops"]) == loops and all(
        len(x["ns"]) == 2 and min(x["ns"]) > 0 for x in cost["loops"].values()),
        "cost: each loop timed in each of the 2 rounds", sorted(cost["loops"]))
    want = ["cost %s %s: ns/call above an empty loop" % (e, b) for e in ("CostAnsi", "CostWide")
            for b in (("no-op", "LTTng, no session") if lttng and "disabled" not in
                      cost["skipped"] else ("no-op",))]
    want += ["cost %s LTTng enabled / hand-written" % e for e in ("CostAnsi", "CostWide")] * enabled
    got = [t["what"] for t in cost["targets"]]
    check(sorted(got) == sorted(want) and all(t["target"] in (2.0, 1.1) for t in cost["targets"]),
          "cost: the targets (disabled <= 2 ns, enabled <= 1.1 x)", got)
    for part, why in cost["skipped"].items():
        check(any(x.startswith("cost: ") and ("skipped (%s)" % why) in x for x in lines),
              "cost: %s skipped, with its reason" % part, why)
    if enabled:
        check(cost["fields_equal"], "cost: the generated events record the hand-written "
              "ones' fields", cost.get("field_mismatches"))
        check(any(x.startswith("CostWide ") and re.search(r"\b(PASS|MISSED)$", x)
                  for x in lines), "cost: the enabled ratio printed with its verdict")
    else:
        skip("cost: LTTng enabled", cost["skipped"].get("enabled") or cost["skipped"]["lttng"])


def test_launcher(b, tmp):
    """The launcher reports each command's own exit status, output, CPU and
    peak RSS, and loses none: a short command used to be reaped now and
    then by the shell that started it (wait4: no child), more often on a
    loaded machine."""
    launcher = b.Launcher(tmp)
    if launcher.sh is None:
        skip("launcher", "no PR_SET_CHILD_SUBREAPER here")
        return
    try:
        lost, codes, peaks = 0, set(), []
        for _ in range(400):
            try:
                r = launcher.run(["true"])
            except ChildProcessError:
                lost += 1
                continue
            codes.add(r.code)
            peaks.append(r.peak)
        check(lost == 0 and codes == {0}, "launcher: 400 runs of true, each reaped by the bench "
              "with its exit status 0", (lost, codes))
        check(max(peaks) < 4 * MIB, "launcher: the peak of `true` is its own (about 1 MiB), "
              "not the bench's", max(peaks))
        r = launcher.run(["sh", "-c", "echo out; echo err >&2; exit 3"])
        check(r.code == 3 and r.text == "out\nerr\n", "launcher: exit status and output "
              "(stdout and stderr) of the command", (r.code, r.text))
        r = launcher.run(["dd", "if=/dev/zero", "of=/dev/null", "bs=32M", "count=1"])
        check(r.code == 0 and r.peak >= 32 * MIB, "launcher: the peak of dd bs=32M holds its "
              "32 MiB buffer", r.peak)
    finally:
        launcher.close()
    check(not os.path.exists(os.path.join(tmp, "launcher-gate")),
          "launcher: its gate removed on close")


def test_broken(tmp):
    fake = os.path.join(tmp, "fake-mcgen")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\nexit 0\n")
    os.chmod(fake, os.stat(fake).st_mode | stat.S_IXUSR)
    r = subprocess.run([sys.executable, BENCH, "--mcgen", fake, "--outdir",
                        os.path.join(tmp, "broken"), "--sizes", "0.1", "--pairs", "1",
                        "--warmup", "0", "--no-corpus", "--no-xmllint"],
                       capture_output=True, text=True)
    check(r.returncode == 1 and "bench: FAILED (a command did not run as expected): gen-0.1mb"
          in r.stdout, "broken mcgen: exit status 1, FAILED", r.stdout[-1500:])
    check(" wrote no .h, .rc, MSG*.bin, *TEMP.BIN (it wrote: nothing)" in r.stderr,
          "broken mcgen: the outputs a full compile did not write named", r.stderr[-1500:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    mcgen = os.path.abspath(ap.parse_args().mcgen)
    b = load_bench()
    test_arithmetic(b)
    missing = [t for t in ("xmlwf", "xmllint")
               if subprocess.run(["sh", "-c", "command -v " + t],
                                 stdout=subprocess.DEVNULL).returncode]
    with tempfile.TemporaryDirectory() as tmp:
        if missing:
            skip("run", "%s absent (./setup installs them)" % " and ".join(missing))
        else:
            test_launcher(b, tmp)
            test_run(mcgen, tmp)
            test_broken(tmp)
    print("%d passed, %d failed, %d skipped" %
          (results["passed"], results["failed"], results["skipped"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
