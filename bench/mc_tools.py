#!/usr/bin/env python3
"""bench/mc_tools.py - mcgen, binutils' windmc and Wine's wmc against real mc.exe outputs.

    python3 bench/mc_tools.py --mcgen build/mcgen [--json FILE] [--time [--outdir DIR]]

Part 1, the golden cases: every case of ../shared/corpus/golden-mc/ (input.mc, SOURCE.txt
with the mc command line, and what that mc wrote: the header, the .rc, one MSGxxxxx.bin per
language) is compiled by each tool in a fresh temporary directory, under the .mc's original
name and with the switches closest to mc's command (CASES below), and every output is
compared with mc's: each MSG*.bin byte for byte (the first difference is named after what
lives there: block array, an entry's Length or Flags, its text), the .rc and the header
byte for byte or else modulo line ends (mc writes CR LF; the nssm repository stored LF).
The tools, as a user would run them:

  mcgen      mc's own switches, plus --mc-compat for the mc version that made the case
  windmc     x86_64-w64-mingw32-windmc with mc's switches translated (it has no -z; its
             default tables are ANSI where a current mc's are Unicode)
  windmc -A  the same with ANSI tables forced, windmc -U with Unicode tables forced
  wmc        Wine's wmc (Debian: wine64-tools), told to write <base>.h and <base>.rc as mc
             names them (-H, -o); it then writes one .bin per language as mc does; wmc -U
             forces Unicode tables (wmc has no -A: ANSI is its default)

Part 2, ../shared/corpus/mc-sources/ (real .mc files without mc's outputs): whether each
tool accepts each file, and whether windmc's and wmc's tables equal mcgen's (Unicode, and
ANSI with -A where the tool has it).

Part 3 (--time): CPU time (user + sys of the child, from wait4) of mcgen against windmc
(and wmc) on the largest corpus .mc (nssm's, which windmc refuses for its BOM), on the same
text without the BOM, on the largest corpus .mc windmc accepts as it is, and on ANSI files
bench/gen_mc.py generates (1 and 5 MB, --rounds times; 20 MB once, without wmc: both tools
take time more than linear in the input), the tools alternating in the same run; the ratio
mcgen/windmc (target <= 1x) of the minimums and of the medians. Reported, never asserted.

Output: Markdown tables on stdout; --json FILE writes the same results for machines.
Exit status: 0 when mcgen's output equals mc's for every output mc wrote (or the corpus is
absent: "skipped"), 1 otherwise (also when a timed command fails). A missing windmc or wmc
is reported as skipped in its column; what those tools get wrong is information, not a
failure.
"""

import argparse
import glob
import json
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "..", "shared", "corpus")
GOLDEN = os.path.join(CORPUS, "golden-mc")
SOURCES = os.path.join(CORPUS, "mc-sources")
WINDMC = "x86_64-w64-mingw32-windmc"
WMC = "wmc-stable"  # Debian's name for Wine 8's wmc (package wine64-tools)
MB = 1000 * 1000
GENERATED_MB = [1, 5]   # timed --rounds times; --big-mb (20) --big-rounds times

# The golden cases: the .mc's name in its repository (mc names the header and the .rc after
# it), mc's switches from SOURCE.txt, the --mc-compat that reproduces the mc version that made
# the outputs, and which of our files each of mc's outputs is. The versions differ on .mc
# files (the default table encoding, the .rc's language order, the header's banner and
# casts), so each case is compared with the behaviour of the mc that made it:
#   easydynamicdns  "mc EasyDynamicDNSMsg.mc", VS2005-era mc                -> 2005
#   nssm            "mc -u -U messages.mc -r . -h .", a 2020 Windows 10 SDK -> 2020
#   spamhater       old mc, ANSI tables (Flags 0) with no switch: pre-2000   -> 1998
#   svcbatch v1/v2  "mc.exe -z messages svcbatch.mc", a 2024 Windows SDK    -> current (none)
# svcbatch's .mc says that mc wrote messages_MSG00001.bin (then renamed svcbatch.bin).
CASES = {
    "easydynamicdns": {
        "mc": "EasyDynamicDNSMsg.mc", "switches": [], "compat": "2005",
        "outputs": {"mc.h": "EasyDynamicDNSMsg.h", "mc.rc": "EasyDynamicDNSMsg.rc",
                    "MSG00001.bin": "MSG00001.bin"}},
    "nssm-multilang-nssm": {
        "mc": "messages.mc", "switches": ["-u", "-U", "-r", ".", "-h", "."], "compat": "2020",
        "outputs": {"mc.h": "messages.h", "mc.rc": "messages.rc",
                    "MSG00409.bin": "MSG00409.bin", "MSG0040C.bin": "MSG0040C.bin",
                    "MSG00410.bin": "MSG00410.bin"}},
    "spamhater-ntservmsg": {
        "mc": "NTServMsg.mc", "switches": [], "compat": "1998",
        "outputs": {"mc.h": "NTServMsg.h", "mc.rc": "NTServMsg.rc",
                    "MSG00001.bin": "MSG00001.bin"}},
    "svcbatch-v1": {
        "mc": "svcbatch.mc", "switches": ["-z", "messages"], "compat": None,
        "outputs": {"MSG00001.bin": "messages_MSG00001.bin"}},
    "svcbatch-v2": {
        "mc": "svcbatch.mc", "switches": ["-z", "messages"], "compat": None,
        "outputs": {"MSG00001.bin": "messages_MSG00001.bin"}},
}
TOOLS = ["mcgen", "windmc", "windmc -A", "windmc -U", "wmc", "wmc -U"]
# mc's switches windmc has under the same letter (with an argument or not); -z is not one
WINDMC_SAME = {"-a": 0, "-A": 0, "-b": 0, "-c": 0, "-d": 0, "-e": 1, "-h": 1, "-m": 1,
               "-n": 0, "-o": 0, "-r": 1, "-u": 0, "-U": 0, "-x": 1}
WMC_SAME = {"-c": 0, "-d": 0, "-u": 0, "-U": 0}
ARG_SWITCHES = {"-e", "-h", "-m", "-r", "-x", "-z", "-C", "-O", "-H", "-P"}


def have(cmd):
    return shutil.which(cmd) is not None


def translate(switches, same):
    """mc's switches kept by a tool that spells them the same; returns (kept, dropped)."""
    kept, dropped, i = [], [], 0
    while i < len(switches):
        s = switches[i]
        n = 1 if s in ARG_SWITCHES else 0
        part = switches[i:i + 1 + n]
        if s in same:
            kept.extend(part)
        elif part[1:] != ["."]:     # -h . and -r . name where every tool writes anyway
            dropped.extend(part)
        i += 1 + n
    return kept, dropped


def with_table(switches, enc):
    """switches with the table encoding forced to enc ("-A" or "-U")."""
    return [s for s in switches if s not in ("-A", "-U")] + [enc]


def tool_command(tool, mcgen, switches, compat, mc_name):
    """The command line of `tool` for mc's `switches` on mc_name, and what it leaves out."""
    if tool == "mcgen":
        extra = ["--mc-compat=%s" % compat] if compat else []
        return [mcgen] + switches + extra + [mc_name], []
    if tool.startswith("windmc"):
        kept, dropped = translate(switches, WINDMC_SAME)
        if tool != "windmc":
            kept = with_table(kept, tool.split()[1])
        return [WINDMC] + kept + [mc_name], dropped
    kept, dropped = translate(switches, WMC_SAME)
    if tool == "wmc -U" and "-U" not in kept:
        kept.append("-U")
    base = os.path.splitext(mc_name)[0]
    return [WMC] + kept + ["-H", base + ".h", "-o", base + ".rc", mc_name], dropped


def tool_present(tool):
    return have(WMC if tool.startswith("wmc") else WINDMC if tool.startswith("windmc") else "sh")


# ---- the message-table format (docs: ../shared/docs/msgtable.md, winnt.h) ----

def msgtable_where(data, off):
    """What lives at byte `off` of a MESSAGE_RESOURCE_DATA: a field of the block array or of
    an entry (with the entry's message id), or "past the end"."""
    if off < 4:
        return "NumberOfBlocks"
    if len(data) < 4:
        return "past the end"
    n = struct.unpack_from("<I", data, 0)[0]
    if off < 4 + 12 * n:
        i, f = divmod(off - 4, 12)
        return "block %d %s" % (i, ("LowId", "HighId", "OffsetToEntries")[f // 4])
    for b in range(n):
        if 4 + 12 * b + 12 > len(data):
            break
        low, high, pos = struct.unpack_from("<III", data, 4 + 12 * b)
        for msg_id in range(low, high + 1):
            if pos + 4 > len(data):
                return "past the end"
            length, flags = struct.unpack_from("<HH", data, pos)
            if off < pos + 2:
                return "entry 0x%X Length" % msg_id
            if off < pos + 4:
                return "entry 0x%X Flags" % msg_id
            if off < pos + max(length, 4):
                unit = 2 if flags & 1 else 1
                return "entry 0x%X text, char %d" % (msg_id, (off - pos - 4) // unit)
            pos += max(length, 4)
    return "past the end"


def msgtable_snippet(data, off):
    """A few bytes of text around off, for showing a difference (repr, both sides)."""
    lo = max(0, off - 8)
    return repr(data[lo:off + 8])


def compare_bin(ref, got):
    if got == ref:
        return "equal", None
    off = next((i for i, (a, b) in enumerate(zip(ref, got)) if a != b), min(len(ref), len(got)))
    detail = ("mc %s, tool %s (sizes %d, %d)"
              % (msgtable_snippet(ref, off), msgtable_snippet(got, off), len(ref), len(got)))
    return "differs @0x%X (%s)" % (off, msgtable_where(ref, off)), detail


def compare_text(ref, got):
    if got == ref:
        return "equal", None
    a = ref.replace(b"\r\n", b"\n").split(b"\n")
    b = got.replace(b"\r\n", b"\n").split(b"\n")
    if a == b:
        return "equal (line ends)", None
    n = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    def line(ls):
        return repr(ls[n][:100]) if n < len(ls) else "(end of file)"
    return "differs line %d" % (n + 1), "mc %s, tool %s" % (line(a), line(b))


def msg_language(name):
    """The language of a message table from its file name: MSG00001 is mc's default
    English (0x409); MSGxxxxx names the language in hex (LanguageNames=...:MSG0040C)."""
    code = name.upper().rsplit("MSG", 1)[1][:5]
    return 0x409 if code == "00001" else int(code, 16)


def find_output(d, want, ref_name):
    """The tool's file for mc's output: the name mc would write, else the one file of the
    same kind (a windmc names its header after the .mc, and has no -z)."""
    names = os.listdir(d)
    for n in names:
        if n.lower() == want.lower():
            return os.path.join(d, n)
    if ref_name.endswith(".bin"):
        tail = ref_name[-12:].lower()
        same = [n for n in names if n.lower().endswith(tail)]
    else:
        ext = os.path.splitext(ref_name)[1]
        same = [n for n in names if n.lower().endswith(ext)]
    return os.path.join(d, same[0]) if len(same) == 1 else None


def run_tool(cmd, cwd):
    try:
        r = subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=300)
    except subprocess.TimeoutExpired:
        return -1, "timed out after 300 s"
    err = (r.stderr or r.stdout).decode("utf-8", "replace").strip().splitlines()
    return r.returncode, err[0] if err else ""


def tool_tables(d):
    """{language id: bytes} of the message tables a tool wrote into d."""
    out = {}
    for n in os.listdir(d):
        if n.lower().endswith(".bin") and "msg" in n.lower():
            with open(os.path.join(d, n), "rb") as f:
                out[msg_language(n)] = f.read()
    return out


def compare_case(case, spec, mcgen, tools):
    src = os.path.join(GOLDEN, case)
    rows = {}   # ref output name -> {tool: (cell, detail)}
    notes = []
    for ref in spec["outputs"]:
        rows[ref] = {}
    for tool in tools:
        if not tool_present(tool):
            for ref in rows:
                rows[ref][tool] = ("skipped (no %s)" % tool.split()[0], None)
            continue
        with tempfile.TemporaryDirectory(prefix="mc_tools-") as d:
            shutil.copyfile(os.path.join(src, "input.mc"), os.path.join(d, spec["mc"]))
            cmd, dropped = tool_command(tool, mcgen, spec["switches"], spec["compat"],
                                        spec["mc"])
            if dropped:
                notes.append("%s %s: has no %s" % (case, tool, " ".join(dropped)))
            code, first = run_tool(cmd, d)
            if code != 0:
                notes.append("%s %s: `%s` exit %d: %s"
                             % (case, tool, " ".join(os.path.basename(c) if i == 0 else c
                                                     for i, c in enumerate(cmd)), code, first))
                for ref in rows:
                    rows[ref][tool] = ("failed (exit %d)" % code, first)
                continue
            for ref, want in spec["outputs"].items():
                with open(os.path.join(src, ref), "rb") as f:
                    ref_data = f.read()
                path = find_output(d, want, ref)
                got = None
                if path:
                    with open(path, "rb") as f:
                        got = f.read()
                if got is None:
                    rows[ref][tool] = ("missing", None)
                elif ref.endswith(".bin"):
                    rows[ref][tool] = compare_bin(ref_data, got)
                else:
                    rows[ref][tool] = compare_text(ref_data, got)
    return rows, notes


def compare_golden(mcgen, tools):
    results = {}
    notes = []
    for case in sorted(CASES):
        if not os.path.isdir(os.path.join(GOLDEN, case)):
            notes.append("%s: skipped (not in the corpus)" % case)
            continue
        rows, n = compare_case(case, CASES[case], mcgen, tools)
        results[case] = rows
        notes += n
    return results, notes


def is_equal(cell):
    return cell.startswith("equal")


def golden_table(results, tools):
    lines = ["| case | output | " + " | ".join(tools) + " |",
             "|---|---|" + "---|" * len(tools)]
    for case, rows in results.items():
        for ref, cells in rows.items():
            lines.append("| %s | %s | %s |" % (case, ref, " | ".join(cells[t][0] for t in tools)))
    counts = []
    for t in tools:
        cells = [rows[ref][t][0] for rows in results.values() for ref in rows]
        tables = [rows[ref][t][0] for rows in results.values() for ref in rows
                  if ref.endswith(".bin")]
        counts.append("%d/%d (tables %d/%d)" % (sum(map(is_equal, cells)), len(cells),
                                                sum(map(is_equal, tables)), len(tables)))
    lines.append("| **equal** | | " + " | ".join(counts) + " |")
    return "\n".join(lines)


# ---- part 2: the .mc files without mc outputs ----

# (label, switches, the input's line ends made CR LF first). These files have LF line
# ends, as most .mc files in git repositories do; windmc and wmc copy the input's line ends
# into the texts where mc writes CR LF, so the CR LF runs show what else differs.
SOURCE_RUNS = [("mcgen", [], False), ("mcgen -A", ["-A"], False), ("windmc -U", ["-U"], False),
               ("windmc -A", ["-A"], False), ("wmc -U", ["-U"], False),
               ("windmc -U, CR LF", ["-U"], True), ("wmc -U, CR LF", ["-U"], True)]
# (tool run, mcgen run): the tables compared
SOURCE_PAIRS = [("windmc -U", "mcgen"), ("wmc -U", "mcgen"), ("windmc -A", "mcgen -A"),
                ("windmc -U, CR LF", "mcgen"), ("wmc -U, CR LF", "mcgen")]


def compare_sources(mcgen):
    rows = []
    files = sorted(p for p in glob.glob(os.path.join(SOURCES, "**", "*"), recursive=True)
                   if p.lower().endswith(".mc"))
    for path in files:
        name = os.path.basename(path)
        row = {"file": os.path.relpath(path, SOURCES), "accepted": {}, "tables": {}, "notes": []}
        with open(path, "rb") as f:
            data = f.read()
        for label, sw, crlf in SOURCE_RUNS:
            tool = label.split()[0]
            if not tool_present(tool):
                row["accepted"][label] = "skipped"
                continue
            with tempfile.TemporaryDirectory(prefix="mc_tools-") as d:
                with open(os.path.join(d, name), "wb") as f:
                    f.write(data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
                            if crlf else data)
                cmd = tool_command(tool, mcgen, sw, None, name)[0]
                code, first = run_tool(cmd, d)
                row["accepted"][label] = "yes" if code == 0 else "no (exit %d)" % code
                if code != 0:
                    row["notes"].append("%s: %s" % (label, first))
                    continue
                row["tables"][label] = tool_tables(d)
        agree = {}
        for label, base in SOURCE_PAIRS:
            a, b = row["tables"].get(label), row["tables"].get(base)
            if a is None or b is None:
                agree[label] = "-"
            elif a == b:
                agree[label] = "equal"
            else:
                langs = sorted(set(a) | set(b))
                diff = [l for l in langs if a.get(l) != b.get(l)]
                first = diff[0]
                if first in a and first in b:
                    agree[label] = compare_bin(b[first], a[first])[0]
                else:
                    agree[label] = "differs (language 0x%X only in one)" % first
        row["agree"] = agree
        del row["tables"]
        rows.append(row)
    return rows


def sources_table(rows):
    labels = [l for l, _, crlf in SOURCE_RUNS if not crlf]
    lines = ["| file | " + " | ".join(labels) + " | " +
             " | ".join("%s = %s" % pair for pair in SOURCE_PAIRS) + " |",
             "|---|" + "---|" * (len(labels) + len(SOURCE_PAIRS))]
    for r in rows:
        lines.append("| %s | %s | %s |" % (
            r["file"], " | ".join(r["accepted"][l] for l in labels),
            " | ".join(r["agree"][a] for a, _ in SOURCE_PAIRS)))
    return "\n".join(lines)


# ---- part 3: timing ----

def cpu_run(cmd, cwd):
    """(CPU seconds user+sys, wall seconds, exit code) of one run of cmd."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)   # reaped here, not by Popen
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - t0, p.returncode


def time_input(mcgen, path, switches, rounds, tools):
    """Runs each tool on path alternately `rounds` times (after one warm-up round when there
    is more than one); returns {tool: {"cpu": [...], "wall": [...], "failed": exit or None}}.
    A tool that fails is not run again."""
    name = os.path.basename(path)
    res = {t: {"cpu": [], "wall": [], "failed": None} for t in tools}
    with tempfile.TemporaryDirectory(prefix="mc_time-") as d:
        dirs = {}
        for t in tools:
            dirs[t] = os.path.join(d, t.replace(" ", ""))
            os.makedirs(dirs[t])
            os.symlink(os.path.abspath(path), os.path.join(dirs[t], name))
        warmup = 1 if rounds > 1 else 0
        for i in range(rounds + warmup):
            for t in tools:
                if res[t]["failed"] is not None:
                    continue
                cmd = tool_command(t, mcgen, switches, None, name)[0]
                cpu, wall, code = cpu_run(cmd, dirs[t])
                if code != 0:
                    res[t]["failed"] = code
                elif i >= warmup:
                    res[t]["cpu"].append(cpu)
                    res[t]["wall"].append(wall)
    return res


def generated(outdir, size_mb):
    sys.dont_write_bytecode = True
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import gen_mc
    path = os.path.join(outdir, "gen-%smb.mc" % gen_mc.format_size(size_mb))
    want = gen_mc.stamp(size_mb).encode("cp1252")
    try:
        with open(path, "rb") as f:
            if f.readline().rstrip(b"\r\n") == want:
                return path
    except OSError:
        pass
    subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_mc.py"),
                    "--size-mb", gen_mc.format_size(size_mb), "--out", path], check=True,
                   stdout=sys.stderr)   # stdout is the report
    return path


def timing(mcgen, outdir, rounds, big_mb, big_rounds):
    tools = ["mcgen"] + [t for t in ("windmc", "wmc") if tool_present(t)]
    inputs = []
    if os.path.isdir(GOLDEN):
        nssm = os.path.join(GOLDEN, "nssm-multilang-nssm", "input.mc")
        inputs.append(("nssm messages.mc (UTF-16LE, BOM, 168 KB)", nssm, ["-u", "-U"], rounds))
        # the same text without its BOM, which windmc cannot read (see the report)
        nobom = os.path.join(outdir, "nssm-nobom.mc")
        with open(nssm, "rb") as f:
            data = f.read()
        with open(nobom, "wb") as f:
            f.write(data[2:] if data[:2] == b"\xff\xfe" else data)
        inputs.append(("nssm messages.mc without its BOM", nobom, ["-u", "-U"], rounds))
        accepted = []
        for p in glob.glob(os.path.join(CORPUS, "**", "*"), recursive=True):
            if p.lower().endswith(".mc") and p != nssm and have(WINDMC):
                with tempfile.TemporaryDirectory() as d:
                    shutil.copyfile(p, os.path.join(d, "x.mc"))
                    if run_tool([WINDMC, "-U", "x.mc"], d)[0] == 0:
                        accepted.append((os.path.getsize(p), p))
        if accepted:
            size, p = max(accepted)
            inputs.append(("largest corpus .mc windmc accepts: %s (%d bytes)"
                           % (os.path.basename(p), size), p, ["-U"], rounds))
    for mb in GENERATED_MB:
        inputs.append(("generated %g MB ANSI" % mb, generated(outdir, mb), ["-U"], rounds))
    if big_mb:
        inputs.append(("generated %g MB ANSI" % big_mb, generated(outdir, big_mb), ["-U"],
                       big_rounds))
    out = []
    for label, path, sw, n in inputs:
        print("timing: %s, %d rounds" % (label, n), file=sys.stderr, flush=True)
        # windmc and wmc take time more than linear in the messages (windmc: 0.23 s at
        # 2 MB, 1.4 s at 5 MB, 98 s at 20 MB): past 5 MB only windmc, the target, runs
        big = os.path.getsize(path) > 6 * MB
        res = time_input(mcgen, path, sw, n, [t for t in tools if not (big and t == "wmc")])
        out.append({"input": label, "bytes": os.path.getsize(path), "rounds": n,
                    "switches": sw, "tools": res})
    return out


def timing_table(rows):
    lines = ["| input | MB | rounds | mcgen CPU s (min/median) | windmc CPU s (min/median) | "
             "wmc CPU s (min/median) | mcgen/windmc (min/median) | target <= 1x |",
             "|---|---:|---:|---|---|---|---|---|"]
    def cell(r):
        if r is None:
            return "-"
        if r["failed"] is not None:
            return "failed (exit %d)" % r["failed"]
        return "%.4f / %.4f" % (min(r["cpu"]), statistics.median(r["cpu"]))
    for row in rows:
        t = row["tools"]
        m, w = t["mcgen"], t.get("windmc")
        ratio, ok = "-", "-"
        if w and m["cpu"] and w["cpu"] and min(w["cpu"]) > 0:
            rmin = min(m["cpu"]) / min(w["cpu"])
            rmed = statistics.median(m["cpu"]) / statistics.median(w["cpu"])
            ratio = "%.3f / %.3f" % (rmin, rmed)
            ok = "ok" if rmed <= 1 else "MISSED"
            row["ratio_min"], row["ratio_median"] = rmin, rmed
        lines.append("| %s | %.2f | %d | %s | %s | %s | %s | %s |"
                     % (row["input"], row["bytes"] / MB, row["rounds"], cell(m), cell(w), cell(t.get("wmc")),
                        ratio, ok))
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mcgen", required=True, help="the mcgen binary")
    ap.add_argument("--json", help="also write the results as JSON to this file")
    ap.add_argument("--time", action="store_true", help="also time the tools (part 3)")
    ap.add_argument("--outdir", default="build/bench", help="generated inputs (with --time)")
    ap.add_argument("--rounds", type=int, default=10, help="timed rounds (default 10)")
    ap.add_argument("--big-mb", type=float, default=20,
                    help="size of the large generated input, 0 for none (default 20)")
    ap.add_argument("--big-rounds", type=int, default=1,
                    help="timed rounds on it (default 1: windmc takes 100 s at 20 MB)")
    args = ap.parse_args(argv)
    mcgen = os.path.abspath(args.mcgen)
    if not os.access(mcgen, os.X_OK):
        print("mc_tools: error: %s is not an executable" % args.mcgen, file=sys.stderr)
        return 2
    if not os.path.isdir(GOLDEN):
        print("mc_tools: skipped: ../shared/corpus/golden-mc absent")
        return 0
    tools = TOOLS
    for t in (WINDMC, WMC):
        if not have(t):
            print("mc_tools: %s not found: its columns are skipped (./setup installs it)" % t)
    status = 0
    results, notes = compare_golden(mcgen, tools)
    print("## The golden cases: each tool's outputs against mc's\n")
    print(golden_table(results, tools))
    print()
    for n in notes:
        print("- %s" % n)
    details = ["%s %s %s: %s" % (case, ref, t, rows[ref][t][1])
               for case, rows in results.items() for ref in rows for t in tools
               if rows[ref][t][1] and not rows[ref][t][0].startswith("failed")
               and (t == "mcgen" or ref.endswith(".bin"))]
    if details:
        print("\nFirst differences (all of mcgen's; the tables' of the others):\n")
        for d in details:
            print("- %s" % d)
    bad = [(case, ref) for case, rows in results.items() for ref in rows
           if not is_equal(rows[ref]["mcgen"][0])]
    if bad:
        status = 1
    sources = []
    if os.path.isdir(SOURCES):
        sources = compare_sources(mcgen)
        print("\n## ../shared/corpus/mc-sources: accepted, and tables against mcgen's\n")
        print(sources_table(sources))
        for r in sources:
            for n in r["notes"]:
                print("- %s %s" % (r["file"], n))
    times = None
    if args.time:
        os.makedirs(args.outdir, exist_ok=True)
        times = timing(mcgen, args.outdir, args.rounds, args.big_mb, args.big_rounds)
        print("\n## CPU time (user+sys of each run), the tools alternating; one unmeasured "
              "warm-up round where there are several\n")
        print(timing_table(times))
        if any(r["tools"]["mcgen"]["failed"] is not None for r in times):
            status = 1
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"golden": {c: {ref: {t: list(v) for t, v in cells.items()}
                                      for ref, cells in rows.items()}
                                  for c, rows in results.items()},
                       "notes": notes, "sources": sources, "timing": times,
                       "mcgen_equal": not bad}, f, indent=1)
            f.write("\n")
    print("\nmc_tools: mcgen equals mc on %d of %d outputs"
          % (sum(1 for rows in results.values() for ref in rows
                 if is_equal(rows[ref]["mcgen"][0])),
             sum(len(rows) for rows in results.values())))
    return status


if __name__ == "__main__":
    sys.exit(main())
