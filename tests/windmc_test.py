#!/usr/bin/env python3
"""mcgen against mc.exe, with binutils' windmc and Wine's wmc beside it, on the golden .mc
cases (bench/mc_tools.py does the work; this layer asserts, without timing).

Asserted: every output real mc wrote for a case of ../shared/corpus/golden-mc/ (the header,
the .rc, each MSGxxxxx.bin) equals what mcgen writes for the same .mc with the same switches
and the --mc-compat of that mc (tables byte for byte, the header and .rc modulo line ends
only where the reference repository changed them); and, without the corpus, that the
comparison itself finds a difference where a hand-made table (laid out per winnt.h's
MESSAGE_RESOURCE_DATA) has one and names the field that lives there.
Reported, not asserted: how windmc and wmc do on the same cases and on mc-sources/ (they are
not mc-compatible; "INFO" lines, and a "NOTE" where one equals mc).
Prints "N passed, N failed" (", 1 skipped" without ../shared).
"""
import argparse
import importlib.util
import os
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
results = {"passed": 0, "failed": 0, "skipped": 0}


def check(ok, name, why=""):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why))


def load_mc_tools():
    sys.dont_write_bytecode = True
    spec = importlib.util.spec_from_file_location(
        "mc_tools", os.path.join(ROOT, "bench", "mc_tools.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def entry(text):
    """A Unicode MESSAGE_RESOURCE_ENTRY: Length, Flags 1, text NUL, padded to 4 bytes."""
    body = (text + "\0").encode("utf-16-le")
    body += b"\0" * (-len(body) % 4)
    return struct.pack("<HH", 4 + len(body), 1) + body


def test_comparer(t):
    # one block, ids 1..2: NumberOfBlocks at 0, the block at 4..15, entry 1 at 16
    # ("Error\r\n": Length 20), entry 2 at 36 ("Warning\r\n": Length 24)
    e1, e2 = entry("Error\r\n"), entry("Warning\r\n")
    ref = struct.pack("<IIII", 1, 1, 2, 16) + e1 + e2
    check(len(e1) == 20 and len(e2) == 24, "comparer: entry lengths per msgtable.md",
          "%d, %d" % (len(e1), len(e2)))
    check(t.compare_bin(ref, ref) == ("equal", None), "comparer: equal tables")
    got = bytearray(ref)
    got[36 + 4 + 2 * 7] = ord("\n")        # "Warning\n\n": the CR of entry 2 replaced
    cell = t.compare_bin(ref, bytes(got))[0]
    check(cell == "differs @0x36 (entry 0x2 text, char 7)", "comparer: text difference named",
          cell)
    got = bytearray(ref)
    got[16] = 16                            # entry 1's Length
    cell = t.compare_bin(ref, bytes(got))[0]
    check(cell == "differs @0x10 (entry 0x1 Length)", "comparer: entry Length named", cell)
    cell = t.compare_bin(ref, ref[:8] + b"\x03" + ref[9:])[0]
    check(cell == "differs @0x8 (block 0 HighId)", "comparer: block field named", cell)
    cell = t.compare_bin(ref, ref[:-4])[0]
    check(cell == "differs @0x38 (entry 0x2 text, char 8)", "comparer: a shorter table", cell)
    check(t.compare_text(b"a\r\nb\r\n", b"a\nb\n")[0] == "equal (line ends)",
          "comparer: line ends only")
    cell = t.compare_text(b"a\r\nb\r\n", b"a\r\nc\r\n")[0]
    check(cell == "differs line 2", "comparer: text line named", cell)
    cmd, dropped = t.tool_command("windmc -U", "mcgen", ["-u", "-A", "-z", "messages", "-h", "."],
                                  None, "x.mc")
    check(cmd == [t.WINDMC, "-u", "-h", ".", "-U", "x.mc"] and dropped == ["-z", "messages"],
          "comparer: mc's switches translated for windmc", "%r %r" % (cmd, dropped))
    check(t.msg_language("messages_MSG00001.bin") == 0x409 and
          t.msg_language("MSG0040C.bin") == 0x40C, "comparer: a table's language from its name")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    args = ap.parse_args()
    mcgen = os.path.abspath(args.mcgen)
    t = load_mc_tools()
    test_comparer(t)
    if not os.path.isdir(t.GOLDEN):
        print("skipped: ../shared/corpus/golden-mc absent")
        results["skipped"] += 1
    else:
        for tool in (t.WINDMC, t.WMC):
            if not t.have(tool):
                print("INFO %s not found: its columns are skipped (./setup installs it)" % tool)
        golden, notes = t.compare_golden(mcgen, t.TOOLS)
        for case, rows in golden.items():
            for ref, cells in rows.items():
                cell, detail = cells["mcgen"]
                check(t.is_equal(cell), "%s %s: mcgen equals mc" % (case, ref),
                      cell + (": " + detail if detail else ""))
                others = ", ".join("%s %s" % (tool, cells[tool][0]) for tool in t.TOOLS[1:])
                print("INFO %s %s: %s" % (case, ref, others))
                for tool in t.TOOLS[1:]:
                    if ref.endswith(".bin") and t.is_equal(cells[tool][0]):
                        print("NOTE %s equals mc on %s %s" % (tool, case, ref))
        for n in notes:
            print("INFO %s" % n)
        if os.path.isdir(t.SOURCES):
            for r in t.compare_sources(mcgen):
                print("INFO mc-sources %s: accepted %s; against mcgen's tables %s" % (
                    r["file"], ", ".join("%s %s" % kv for kv in r["accepted"].items()),
                    ", ".join("%s %s" % kv for kv in r["agree"].items())))
    line = "%d passed, %d failed" % (results["passed"], results["failed"])
    if results["skipped"]:
        line += ", %d skipped" % results["skipped"]
    print(line)
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
