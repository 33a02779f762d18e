"""bench/cost.py - bench/run's Linux cost section: what an event costs the
program that writes it, with the header of `mcgen -um --backends=etw,lttng`.

The issue's targets (19, Linux backends), measured in the same run:
  a disabled event <= 2 ns per call above an empty loop, with the no-op
    backend (MCGEN_BACKEND_NOOP) and with the LTTng backend while no
    session records it;
  an enabled LTTng event <= 1.1 x a tracepoint written by hand with the
    same fields (LTTng-UST 2.13's lttng_ust_tracepoint).

bench/cost/cost.man has two events of a few integers, a string and a GUID:
CostAnsi (win:AnsiString) and CostWide (win:UnicodeString, which the
header converts to UTF-8 for LTTng, whose strings are UTF-8).  mcgen
writes their header into OUTDIR/cost; gcc -O2 builds bench/cost/main.c
(the timer, the empty loop and the hand-written tracepoints of
bench/cost/hand_tp.h, whose Name is UTF-8 already, as in a program
written for Linux) with bench/cost/loops.c twice (once per backend) and
the generated probes.  Each loop makes CALLS calls (10 million); ROUNDS
rounds (7) run every loop once, in an order that rotates; a loop's cost
is the median over the rounds of its CPU time less the empty loop's in
the same round, per call; the enabled ratio is the median of the
per-round ratios of those costs.  CPU time of the calling thread
(CLOCK_THREAD_CPUTIME_ID): LTTng-UST's own threads and other processes
are not counted.

The enabled measurement needs root and lttng-tools (lttng-sessiond is
started as tests/lttng_runtime_test.py starts it, and stopped after): a
snapshot session, whose channel overwrites its oldest sub-buffers
instead of waiting for the consumer, so every call records its event in
full and no consumer runs during the loops.  After the loops the program
writes three more events of each kind; a snapshot of the session, read
by babeltrace2, must show the generated events' fields equal to the
hand-written ones' (the comparison is of the same record).  Without
root, lttng-tools or liblttng-ust-dev, the parts that need them print
"skipped (reason)"; the no-op backend is measured whenever gcc is there.
"""

import os
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "bench", "cost")
CALLS = 10 * 1000 * 1000
ROUNDS = 7
DISABLED_TARGET = 2.0   # ns per call above the empty loop
ENABLED_TARGET = 1.1    # generated / hand-written
EVENTS = [("CostAnsi", "ansi"), ("CostWide", "wide")]
PROVIDER, HAND = "Mcgen_Bench_Cost", "cost_hand"
CFLAGS = ["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror"]


class Skip(Exception):
    pass


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def have_lttng_headers():
    r = subprocess.run(["sh", "-c", "echo '#include <lttng/tracepoint.h>' | gcc -E - >/dev/null"],
                       capture_output=True)
    return r.returncode == 0


def build(mcgen, d, lttng):
    """The benchmark program in d; its path.  Raises RuntimeError."""
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    r = run([mcgen, "-um", "--backends=etw,lttng", "-h", d, "-r", d,
             os.path.join(SRC, "cost.man")])
    if r.returncode:
        raise RuntimeError("mcgen: " + r.stderr)
    missing = [f for f in ("cost.h", "cost_lttng.h", "cost_lttng.c")
               if not os.path.exists(os.path.join(d, f))]
    if missing:
        raise RuntimeError("mcgen -um --backends=etw,lttng wrote no %s" % ", ".join(missing))
    inc = ["-I", d, "-I", SRC]
    units = [("main.c", [] if lttng else ["-DCOST_NO_LTTNG"]),
             ("loops.c", ["-DMCGEN_BACKEND_NOOP"])]
    if lttng:
        units += [("loops.c", ["-DMCGEN_BACKEND_LTTNG"]), ("hand_tp.c", []),
                  (os.path.join(d, "cost_lttng.c"), [])]
    objs = []
    for i, (src, defs) in enumerate(units):
        obj = os.path.join(d, "u%d.o" % i)
        r = run(["gcc", *CFLAGS, *inc, *defs, "-c", os.path.join(SRC, src), "-o", obj])
        if r.returncode:
            raise RuntimeError("gcc %s: %s" % (src, r.stderr[-3000:]))
        objs.append(obj)
    exe = os.path.join(d, "cost")
    r = run(["gcc", *objs, "-o", exe] + (["-llttng-ust", "-ldl"] if lttng else []))
    if r.returncode:
        raise RuntimeError("gcc (link): " + r.stderr[-3000:])
    return exe


def timed(exe, calls, rounds, loops, env=None):
    """({loop: [ns per call above the empty loop, per round]},
    {loop: [ns per call, per round]}, (generated enabled, hand enabled))."""
    r = run([exe, str(calls), str(rounds), "empty", *loops], env=env)
    if r.returncode:
        raise RuntimeError("%s exits %d: %s" % (exe, r.returncode, r.stderr))
    lines = r.stdout.split("\n")
    state = tuple(int(x) for x in lines[0].split()[1:])
    raw = {}
    for line in lines[1:]:
        if line.strip():
            rnd, name, ns = line.split()
            raw.setdefault(name, {})[int(rnd)] = int(ns) / calls
    above = {name: [raw[name][k] - raw["empty"][k] for k in sorted(raw[name])] for name in loops}
    per = {name: [raw[name][k] for k in sorted(raw[name])] for name in ["empty"] + loops}
    return above, per, state


def sessiond():
    """tests/lttng_runtime_test.py's: (started pid or None, reason or '')."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    try:
        import lttng_runtime_test
    finally:
        sys.path.pop(0)
    return lttng_runtime_test.sessiond()


def payloads(text):
    """{event name: [payload text of each event, in order]} of babeltrace2's
    text output (the last {...} of a line is the payload)."""
    out = {}
    for line in text.splitlines():
        m = re.search(r" (\w+:\w+): .*(\{[^{}]*(?:\[[^\]]*\][^{}]*)*\})$", line)
        if m:
            out.setdefault(m.group(1), []).append(m.group(2))
    return out


def enabled_run(exe, calls, rounds, d):
    """(costs as timed() gives them, a list of mismatches of the recorded
    fields), in a snapshot session; raises Skip when it cannot run."""
    started, why = sessiond()
    if why:
        raise Skip(why)
    sess = "mcgen_cost_%d" % os.getpid()
    snap = os.path.join(d, "snapshot")
    lttng = lambda *a: run(["lttng", *a])
    env = dict(os.environ, LTTNG_UST_REGISTER_TIMEOUT="-1")
    try:
        r = lttng("create", sess, "--snapshot", "--output=" + snap)
        if r.returncode:
            raise Skip("lttng create: " + r.stderr.strip())
        try:
            for cmd in (["enable-channel", "-u", "-s", sess, "--subbuf-size=1M",
                         "--num-subbuf=4", "--overwrite", "cost"],
                        ["enable-event", "-u", "-s", sess, "-c", "cost", PROVIDER + ":*"],
                        ["enable-event", "-u", "-s", sess, "-c", "cost", HAND + ":*"],
                        ["start", sess]):
                r = lttng(*cmd)
                if r.returncode:
                    raise RuntimeError("lttng %s: %s" % (" ".join(cmd), r.stderr))
            loops = [p + "_" + k for _, k in EVENTS for p in ("lttng", "hand")]
            result = timed(exe, calls, rounds, loops, env)
            if result[2] != (1, 1):
                raise RuntimeError("the session does not record the events: %s" % (result[2],))
            # three events of each kind, the same arguments: the newest
            # in the buffers, so the snapshot has them
            timed(exe, 3, 1, loops, env)
            lttng("stop", sess)
            r = lttng("snapshot", "record", "-s", sess)
            if r.returncode:
                raise RuntimeError("lttng snapshot record: " + r.stderr)
        finally:
            lttng("destroy", sess)
    finally:
        if started:
            started.terminate()
            started.wait(timeout=30)
    bt = run(["babeltrace2", snap])
    got = payloads(bt.stdout)
    shutil.rmtree(snap, ignore_errors=True)
    bad = []
    for ev, k in EVENTS:
        gen, hand = got.get(PROVIDER + ":" + ev, [])[-3:], got.get(HAND + ":" + k, [])[-3:]
        if len(gen) != 3 or gen != hand:
            bad.append("%s records %s, the hand-written %s" % (ev, gen or "nothing",
                                                               hand or "nothing"))
    return result, bad


def measure(mcgen, outdir, calls=CALLS, rounds=ROUNDS):
    """The section's results: {calls, rounds, skipped{part: reason},
    loops{name: {above_ns, ns}}, ratios{event: [per round]}, fields_equal,
    targets[{what, value, target, pass}]}."""
    out = {"calls": calls, "rounds": rounds, "skipped": {}, "loops": {}, "ratios": {},
           "targets": []}
    if not shutil.which("gcc"):
        out["skipped"]["all"] = "gcc not installed"
        return out
    lttng = have_lttng_headers()
    if not lttng:
        out["skipped"]["lttng"] = "liblttng-ust-dev not installed (./setup installs it)"
    d = os.path.join(outdir, "cost")
    exe = build(mcgen, d, lttng)
    loops = ["noop_" + k for _, k in EVENTS]
    if lttng:
        loops += ["lttng_" + k for _, k in EVENTS] + ["hand_" + k for _, k in EVENTS]
    # disabled: no session records these providers (a session of someone
    # else's that does is reported, not measured as disabled)
    above, per, state = timed(exe, calls, rounds, loops)
    if state != (0, 0):
        out["skipped"]["disabled"] = "a running session records the events"
    for name in loops:
        out["loops"][name] = {"above_ns": above[name], "ns": per[name]}
    out["loops"]["empty"] = {"ns": per["empty"]}
    for ev, k in EVENTS:
        for backend, what in (("noop", "no-op"), ("lttng", "LTTng, no session")):
            name = "%s_%s" % (backend, k)
            if name in above and not (backend == "lttng" and "disabled" in out["skipped"]):
                v = statistics.median(above[name])
                out["targets"].append({"what": "cost %s %s: ns/call above an empty loop"
                                       % (ev, what), "value": v, "target": DISABLED_TARGET,
                                       "pass": v <= DISABLED_TARGET})
    if lttng:
        try:
            (above, per, _), bad = enabled_run(exe, calls, rounds, d)
            out["fields_equal"] = not bad
            out["field_mismatches"] = bad
            for ev, k in EVENTS:
                for p in ("lttng", "hand"):
                    out["loops"]["enabled_%s_%s" % (p, k)] = {
                        "above_ns": above["%s_%s" % (p, k)], "ns": per["%s_%s" % (p, k)]}
                ratios = [g / h if h > 0 else float("inf")
                          for g, h in zip(above["lttng_" + k], above["hand_" + k])]
                out["ratios"][ev] = ratios
                v = statistics.median(ratios)
                out["targets"].append({"what": "cost %s LTTng enabled / hand-written" % ev,
                                       "value": v, "target": ENABLED_TARGET,
                                       "pass": v <= ENABLED_TARGET and not bad})
        except Skip as e:
            out["skipped"]["enabled"] = str(e)
    shutil.rmtree(d, ignore_errors=True)
    return out


def report(cost, table, verdict):
    """The section's lines (table and verdict are bench/run's)."""
    lines = ["cost of an event (bench/cost.man; %d calls a loop, %d rounds; CPU time of the "
             "thread, the median of the rounds)" % (cost["calls"], cost["rounds"])]
    if "all" in cost["skipped"]:
        return lines + ["cost: skipped (%s)" % cost["skipped"]["all"]]
    by = {t["what"]: t for t in cost["targets"]}
    rows = []
    med = lambda xs: statistics.median(xs)
    rows.append(["empty loop", "%.2f" % med(cost["loops"]["empty"]["ns"]), "", "", ""])
    for ev, k in EVENTS:
        for name, what, label in (("noop_" + k, "no-op", "%s no-op"),
                                  ("lttng_" + k, "LTTng, no session", "%s LTTng, no session"),
                                  ("hand_" + k, None, "%s hand-written, no session")):
            if name not in cost["loops"]:
                continue
            t = by.get("cost %s %s: ns/call above an empty loop" % (ev, what)) if what else None
            rows.append([label % ev, "%.2f" % med(cost["loops"][name]["ns"]),
                         "%.2f" % med(cost["loops"][name]["above_ns"]),
                         "<= %.1f" % DISABLED_TARGET if t else "",
                         verdict(t["pass"]) if t else ""])
    lines.append(table(["disabled event", "ns/call", "above empty", "target", ""], rows))
    for part, why in sorted(cost["skipped"].items()):
        lines.append("cost: %s: skipped (%s)" % (
            {"lttng": "the LTTng backend", "disabled": "LTTng with no session",
             "enabled": "LTTng enabled"}[part], why))
    if cost["ratios"]:
        rows = []
        for ev, k in EVENTS:
            t = by["cost %s LTTng enabled / hand-written" % ev]
            rows.append([ev, "%.1f" % med(cost["loops"]["enabled_lttng_" + k]["above_ns"]),
                         "%.1f" % med(cost["loops"]["enabled_hand_" + k]["above_ns"]),
                         "%.3f" % t["value"], "<= %.2f" % ENABLED_TARGET, verdict(t["pass"])])
        lines.append("")
        lines.append(table(["enabled (snapshot session)", "generated ns", "hand-written ns",
                            "ratio", "target", ""], rows))
        lines.append("cost: the recorded fields of the generated and the hand-written events %s"
                     % ("are equal" if cost["fields_equal"] else
                        "differ: " + "; ".join(cost["field_mismatches"])))
    return lines
