#!/usr/bin/env python3
"""The example templates of examples/templates/ (docs/templates.md,
"Examples"), rendered for examples/hello/hello.man, tests/data/bulk.man,
tests/data/examples/names.man (keywords, names equal once converted, names
that start with a digit) and every corpus manifest that compiles
(../shared/corpus: golden/*/input.man and manifests/**, as
tests/corpus_test.py finds them; skipped, saying so, when the corpus is
absent), each checked by its own toolchain and against
the `--json` model of the same manifest (never against our own text):

- events.py.j2: every module imports (one python3 for all of them) and
  its PROVIDERS, names, GUIDs, events (id, version, channel, level,
  opcode, task, keyword mask, field names) and the values of its
  Level/Channel/Task/Keyword enums and map classes equal the model's;
- events.rs.j2: every module compiles with `rustc --edition=2021 -D
  warnings`, all of them in one crate, and a program of that crate prints
  each module's PROVIDERS, which must equal the model (the descriptor's
  keyword: the keyword mask and, for a declared channel, the bit
  1 << (63 - index); its channel 12 for an event without one in a
  provider with a controlGuid, as the C header has it); for hello a small
  program asserts a few named constants against the model's values.
  Skipped, saying so, without rustc (PATH or ~/.cargo/bin);
- events.md.j2: one section per provider, one row per event, with the
  model's ids and versions.

Prints one line per check and "N passed, N failed, N skipped".
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
from corpus_test import CORPUS, ROOT, manifests  # noqa: E402 (the same list of manifests)

HELLO = os.path.join(ROOT, "examples", "hello", "hello.man")
BULK = os.path.join(ROOT, "tests", "data", "bulk.man")
NAMES = os.path.join(ROOT, "tests", "data", "examples", "names.man")
EX = os.path.join(ROOT, "examples", "templates")

results = {"passed": 0, "failed": 0, "skipped": 0}


def check(ok, what, detail=""):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + what +
          ("" if ok or not detail else ": " + str(detail)[:2000]))


def skip(what):
    results["skipped"] += 1
    print("SKIP " + what)


def val(item):
    """an event's level/opcode/task/channel value, 0 when it has none"""
    return item["value"] if item else 0


def descriptor_keyword(p, e):
    """the EVENT_DESCRIPTOR's keyword (json-model.md, Channel `index`)"""
    k = int(e["keywordMask"], 16)
    ch = e["channel"]
    if ch is not None and not p["channels"][ch["index"]]["autoImported"]:
        k |= 1 << (63 - ch["index"])
    return k


def descriptor_channel(p, e):
    """the EVENT_DESCRIPTOR's channel as the C header has it: 12 for an event
    without channel in a provider with a controlGuid (docs/internals.md,
    "Facts from the corpus")"""
    if e["channel"] is None:
        return 12 if p["controlGuid"] is not None else 0
    return e["channel"]["value"]


def fields(p, e):
    t = [t for t in p["templates"] if t["tid"] == e["template"]]
    return [f["name"] for f in t[0]["fields"]] if t else []


# run in one python3: imports every module and writes what it holds as JSON
DUMP = r'''
import enum, importlib, json, sys
sys.path.insert(0, sys.argv[1])
out = {}
for name in sys.argv[2:]:
    try:
        m = importlib.import_module(name)
    except Exception as e:
        out[name] = {"error": "%s: %s" % (type(e).__name__, e)}
        continue
    def values(c):
        return sorted({x.value for x in c.__members__.values()})
    provs = []
    for P in m.PROVIDERS:
        maps = [c for c in vars(P.Maps).values()
                if isinstance(c, type) and issubclass(c, enum.Enum)]
        provs.append({"name": P.NAME, "guid": str(P.GUID),
                      "events": [[e.id, e.version, e.channel, e.level, e.opcode, e.task,
                                  e.keyword, list(e.fields)] for e in P.EVENTS],
                      "level": values(P.Level), "channel": values(P.Channel),
                      "task": values(P.Task), "keyword": values(P.Keyword),
                      "opcode": values(P.Opcode),
                      "maps": [[issubclass(c, enum.IntFlag), values(c)] for c in maps]})
    out[name] = {"providers": provs}
print(json.dumps(out))
'''


def check_python(cases, tmp):
    names = [c["mod"] for c in cases]
    r = subprocess.run([sys.executable, "-c", DUMP, tmp] + names, capture_output=True, text=True)
    if r.returncode:
        check(False, "python3 imports the modules", r.stderr)
        return
    got = json.loads(r.stdout)
    for c in cases:
        g, model = got[c["mod"]], c["model"]
        if "error" in g:
            check(False, "events.py.j2 for %s imports" % c["label"], g["error"])
            continue
        why = []
        if len(g["providers"]) != len(model["providers"]):
            why.append("%d providers, the model %d" % (len(g["providers"]),
                                                         len(model["providers"])))
        for gp, p in zip(g["providers"], model["providers"]):
            if gp["name"] != p["name"] or uuid.UUID(gp["guid"]) != uuid.UUID(p["guid"]):
                why.append("provider %r %s, the model %r %s" % (gp["name"], gp["guid"], p["name"],
                                                                 p["guid"]))
            want = [[e["value"], e["version"], val(e["channel"]), val(e["level"]),
                     val(e["opcode"]), val(e["task"]), int(e["keywordMask"], 16), fields(p, e)]
                    for e in p["events"]]
            if gp["events"] != want:
                bad = [(a, b) for a, b in zip(gp["events"], want) if a != b][:2]
                why.append("%s: events differ (%d, the model %d) %r" % (
                    p["name"], len(gp["events"]), len(want), bad))
            lv = {x["value"] for x in p["levels"]} | {e["level"]["value"] for e in p["events"]
                                                        if e["level"]}
            kw = {int(x["mask"], 16) for x in p["keywords"]} | {
                int(k["mask"], 16) for e in p["events"] for k in e["keywords"] if k["builtin"]}
            op = {x["value"] for x in p["opcodes"]} | {
                x["value"] for t in p["tasks"] for x in t["opcodes"]} | {
                e["opcode"]["value"] for e in p["events"] if e["opcode"] and e["opcode"]["builtin"]}
            for key, wantv in (("level", lv), ("channel", {x["value"] for x in p["channels"]}),
                               ("task", {x["value"] for x in p["tasks"]}), ("keyword", kw),
                               ("opcode", op)):
                if gp[key] != sorted(wantv):
                    why.append("%s: %s values %r, the model %r" % (p["name"], key, gp[key],
                                                                     sorted(wantv)))
            maps = [[m["kind"] == "bitMap", sorted({i["value"] for i in m["items"]})]
                    for m in p["maps"] if m["kind"] != "patternMap"]
            if gp["maps"] != maps:
                why.append("%s: maps %r, the model %r" % (p["name"], gp["maps"][:3], maps[:3]))
        check(not why, "events.py.j2 for %s: imports; %d providers, %d events, their enums "
              "equal to the model" % (c["label"], len(model["providers"]),
                                      sum(len(p["events"]) for p in model["providers"])),
              "; ".join(why))


def find_rustc():
    r = shutil.which("rustc")
    if r:
        return r
    r = os.path.expanduser("~/.cargo/bin/rustc")
    return r if os.access(r, os.X_OK) else None


def check_rust(cases, tmp, rustc):
    # every module in one crate, and a main that prints their PROVIDERS
    lines = []
    main = ["fn main() {"]
    for c in cases:
        lines.append('#[allow(dead_code)]\n#[path = "%s.rs"]\nmod %s;' % (c["mod"], c["mod"]))
        main.append('    for p in %s::PROVIDERS {' % c["mod"])
        main.append('        println!("P %s {} {:032x}", p.name, p.guid);' % c["mod"])
        main.append('        for e in p.events {')
        main.append('            println!("E %s {} {} {} {} {} {} {}", e.id, e.version, '
                    'e.channel, e.level, e.opcode, e.task, e.keyword);' % c["mod"])
        main.append("        }\n    }")
    main.append("}")
    src = os.path.join(tmp, "all.rs")
    with open(src, "w") as f:
        f.write("\n".join(lines + main) + "\n")
    exe = os.path.join(tmp, "all")
    r = subprocess.run([rustc, "--edition=2021", "-D", "warnings", "-o", exe, src],
                       capture_output=True, text=True, cwd=tmp)
    check(r.returncode == 0, "events.rs.j2: the modules of %d manifests compile in one crate "
          "(rustc --edition=2021 -D warnings)" % len(cases), r.stderr)
    if r.returncode:
        return
    r = subprocess.run([exe], capture_output=True, text=True)
    got = {}
    for line in r.stdout.splitlines():
        kind, mod, rest = line.split(" ", 2)
        got.setdefault(mod, []).append((kind, rest))
    for c in cases:
        want = []
        for p in c["model"]["providers"]:
            want.append(("P", "%s %s" % (p["name"], p["guid"][1:-1].replace("-", "").lower())))
            for e in p["events"]:
                want.append(("E", "%d %d %d %d %d %d %d" % (
                    e["value"], e["version"], descriptor_channel(p, e), val(e["level"]),
                    val(e["opcode"]), val(e["task"]), descriptor_keyword(p, e))))
        g = got.get(c["mod"], [])
        check(g == want, "events.rs.j2 for %s: PROVIDERS (names, GUIDs, %d event descriptors) "
              "equal to the model" % (c["label"], len(want) - len(c["model"]["providers"])),
              [(a, b) for a, b in zip(g, want) if a != b][:3] or "%d lines, %d wanted" % (
                  len(g), len(want)))


def check_rust_hello(case, tmp, rustc):
    """a small program of hello's named constants, their values from the model"""
    p = case["model"]["providers"][0]
    by = lambda items, name: [x for x in items if x["name"] == name][0]
    ev = {e["symbol"]: e for e in p["events"]}
    g, f = ev["HelloGreeting"], ev["HelloFarewell"]
    asserts = [
        ("m::GUID", "0x" + p["guid"][1:-1].replace("-", "")),
        ("m::NAME", json.dumps(p["name"])),
        ("m::task::GREETING", by(p["tasks"], "Greeting")["value"]),
        ("m::task::FAREWELL", by(p["tasks"], "Farewell")["value"]),
        ("m::keyword::PEOPLE", by(p["keywords"], "People")["mask"]),
        ("m::keyword::MACHINES", by(p["keywords"], "Machines")["mask"]),
        ("m::channel::ADMIN", by(p["channels"], "Mcgen-Example-Hello/Admin")["value"]),
        ("m::level::INFORMATIONAL", g["level"]["value"]),
        ("m::opcode::STOP", f["opcode"]["value"]),
        ("m::events::HELLO_GREETING.id", g["value"]),
        ("m::events::HELLO_GREETING.task", g["task"]["value"]),
        ("m::events::HELLO_GREETING.keyword", "0x%016x" % descriptor_keyword(p, g)),
        ("m::events::HELLO_FAREWELL.level", f["level"]["value"]),
        ("m::events::HELLO_FAREWELL.channel", f["channel"]["value"]),
        ("m::events::HELLO_FAREWELL.keyword", "0x%016x" % descriptor_keyword(p, f)),
        ("m::EVENTS.len()", len(p["events"])),
        ("m::EVENTS[1]", "m::events::HELLO_FAREWELL"),
    ]
    src = os.path.join(tmp, "hello_check.rs")
    with open(src, "w") as fh:
        fh.write('#[allow(dead_code)]\n#[path = "%s.rs"]\nmod hello;\n'
                 'use hello::mcgen_example_hello as m;\n'
                 'fn main() {\n%s\n    println!("ok");\n}\n' % (case["mod"], "\n".join(
                     "    assert_eq!(%s, %s);" % a for a in asserts)))
    exe = os.path.join(tmp, "hello_check")
    r = subprocess.run([rustc, "--edition=2021", "-D", "warnings", "-o", exe, src],
                       capture_output=True, text=True, cwd=tmp)
    if r.returncode == 0:
        r = subprocess.run([exe], capture_output=True, text=True)
    check(r.returncode == 0 and r.stdout == "ok\n", "events.rs.j2 for hello: a program asserts "
          "%d named constants (GUID, tasks, keywords, descriptors) equal to the model's" %
          len(asserts), r.stderr)


def check_markdown(c, text):
    model = c["model"]
    sections = text.split("\n## ")[1:]
    why = []
    if len(sections) != len(model["providers"]):
        why.append("%d sections, %d providers" % (len(sections), len(model["providers"])))
    for s, p in zip(sections, model["providers"]):
        if not s.startswith("%s (%s)" % (p["name"], p["guid"])):
            why.append("section %r for %s" % (s.splitlines()[0], p["name"]))
        rows = [r.split(" | ") for r in s.splitlines() if r.startswith("| ") and
                not r.startswith("| event |")]
        got = [(r[1], r[2]) for r in rows]
        want = [(str(e["value"]), str(e["version"])) for e in p["events"]]
        if got != want:
            why.append("%s: rows %r, events %r" % (p["name"], got[:3], want[:3]))
    check(not why, "events.md.j2 for %s: every provider and event of the model, in order"
          % c["label"], "; ".join(why))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    args = ap.parse_args()
    mcgen = os.path.abspath(args.mcgen)
    inputs = [("hello", HELLO), ("bulk", BULK), ("example_names", NAMES)]
    if os.path.isdir(CORPUS):
        inputs += [(os.path.relpath(p, CORPUS), p) for p in manifests()]
    else:
        skip("the corpus manifests: ../shared/corpus is absent")
    cases = []
    left_out = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, (label, path) in enumerate(inputs):
            mod = "m%d" % i if label != "hello" else "hello_events"
            base = os.path.join(tmp, mod)
            r = subprocess.run([mcgen, "--json=" + base + ".json",
                                "--render=%s:%s.py" % (os.path.join(EX, "events.py.j2"), base),
                                "--render=%s:%s.rs" % (os.path.join(EX, "events.rs.j2"), base),
                                "--render=%s:%s.md" % (os.path.join(EX, "events.md.j2"), base),
                                path], capture_output=True, text=True, cwd=tmp)
            if r.returncode and label not in ("hello", "bulk", "example_names"):
                # a corpus manifest that does not compile is no case for the examples
                j = subprocess.run([mcgen, "--json=" + base + ".json", path],
                                   capture_output=True, cwd=tmp)
                if j.returncode:
                    left_out += 1
                    continue
            if r.returncode:
                check(False, "%s: the three examples render" % label, r.stderr)
                continue
            with open(base + ".json", encoding="utf-8") as f:
                model = json.load(f)
            cases.append({"label": label, "mod": mod, "model": model})
            with open(base + ".md", encoding="utf-8") as f:
                check_markdown(cases[-1], f.read())
        if os.path.isdir(CORPUS):
            print("note: %d corpus inputs do not compile and are left out; %d inputs rendered"
                  % (left_out, len(cases)))
        check_python(cases, tmp)
        rustc = find_rustc()
        if rustc is None:
            skip("events.rs.j2: rustc is not installed (PATH, ~/.cargo/bin; Debian: rustc)")
        else:
            check_rust(cases, tmp, rustc)
            hello = [c for c in cases if c["label"] == "hello"]
            if hello:
                check_rust_hello(hello[0], tmp, rustc)
    print("%d passed, %d failed, %d skipped" % (results["passed"], results["failed"],
                                                  results["skipped"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
