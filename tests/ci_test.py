#!/usr/bin/env python3
"""examples/ci/manifest-check.yml, the workflow a user copies, run locally.

1. It is YAML (PyYAML) with the shape README promises: triggers on pull
   requests and pushes filtered to **/*.man and **/*.mc, security-events
   write, one variable for mcgen's repository, the steps in order
   (checkout, build with ./setup --build-only, check, upload-sarif even
   after a failure, fail on errors).
2. Its `run:` steps, as GitHub runs them (bash -e -o pipefail, GITHUB_OUTPUT,
   GITHUB_PATH, RUNNER_TEMP), in a temporary git repository of a user with a
   good manifest, a good .mc and a bad manifest (an error and a warning).
   The build step clones this repository at its HEAD commit instead of
   GitHub and builds build/mcgen (with --quick, it is left out and the mcgen
   under test stands in).  `./setup --build-only` runs with SETUP_DRY_RUN=1:
   it installs nothing here, and says what it would.
   Then: the check step records status 1; mcgen.sarif is JSON naming the bad
   manifest and neither good file; the problem matcher (a JavaScript regexp,
   which means the same in Python here) turns every text diagnostic of the
   step's log into exactly the file, line, column, severity, code and
   message of the SARIF result it is; and the last step fails the job.
Prints PASS/FAIL/SKIP lines and "N passed, N failed, N skipped".
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CI = os.path.join(ROOT, "examples", "ci")
results = {"passed": 0, "failed": 0, "skipped": 0}

GOOD = """<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation>
    <events>
      <provider name="User-Good" guid="{8d0e5b6a-3f1c-4c2e-9a51-0a1b2c3d4e03}"
                symbol="GOOD_PROVIDER" resourceFileName="app.exe" messageFileName="app.exe">
        <events>
          <event value="1" version="0" symbol="Started" level="win:Informational"
                 message="$(string.started)"/>
        </events>
      </provider>
    </events>
  </instrumentation>
  <localization>
    <resources culture="en-US">
      <stringTable>
        <string id="started" value="started"/>
      </stringTable>
    </resources>
  </localization>
</instrumentationManifest>
"""
# an unknown level (an error) and a string nothing uses (a warning)
BAD = (GOOD.replace("User-Good", "User-Bad").replace("GOOD_", "BAD_")
       .replace("4e03}", "4e04}").replace("win:Informational", "win:Informatonal")
       .replace('<string id="started" value="started"/>',
                '<string id="started" value="started"/>\n        '
                '<string id="old" value="old"/>'))
MC = "MessageId=1\nSymbolicName=MSG_STARTED\nLanguage=English\nStarted.\n.\n"


def check(ok, name, why=""):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + str(why)[-3000:]))


def skip(name, why):
    results["skipped"] += 1
    print("SKIP %s: %s" % (name, why))


def shape(wf):
    on = wf.get("on", wf.get(True))  # YAML 1.1 reads the key `on` as true
    steps = wf["jobs"]["mcgen"]["steps"]
    pats = ["**/*.man", "**/*.mc"]
    check(all(set(pats) <= set(on[e]["paths"]) for e in ("pull_request", "push")),
          "workflow: pull_request and push, filtered to **/*.man and **/*.mc", on)
    check(wf["permissions"].get("security-events") == "write" and
          set(wf["env"]) == {"MCGEN_REPO", "MCGEN_REF"},
          "workflow: security-events write; MCGEN_REPO and MCGEN_REF the only settings",
          (wf["permissions"], wf["env"]))
    kinds = [s.get("uses", "").split("@")[0] or s["name"] for s in steps]
    check(kinds == ["actions/checkout", "Build mcgen", "Check the manifests",
                    "github/codeql-action/upload-sarif", "Fail on errors"],
          "workflow: checkout, build, check, upload-sarif, fail: in that order", kinds)
    build, chk, upload, fail = steps[1], steps[2], steps[3], steps[4]
    check("./setup --build-only" in build["run"] and "ninja build/mcgen" in build["run"] and
          "git ls-files" in chk["run"] and "--diagnostics-format=sarif" in chk["run"] and
          "::add-matcher::" in chk["run"],
          "workflow: builds only mcgen; checks the tracked .man and .mc files into SARIF, with "
          "the problem matcher on the text")
    check(upload["with"]["sarif_file"] == "mcgen.sarif" and upload["if"].startswith("always()")
          and fail["if"].startswith("always()") and chk["id"] == "check",
          "workflow: the SARIF is uploaded and the job failed even after the check failed",
          (upload, fail))
    return steps


def run_step(step, env, cwd, outputs):
    """A `run:` step as GitHub runs a bash step; `${{ steps.check.outputs.X }}`
    replaced by the recorded outputs."""
    script = re.sub(r"\$\{\{\s*steps\.check\.outputs\.(\w+)\s*\}\}",
                    lambda m: outputs.get(m.group(1), ""), step["run"])
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=1200)


def key_value(path):
    d = {}
    if os.path.exists(path):
        for line in open(path):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                d[k] = v
    return d


def local_run(steps, mcgen, quick, tmp):
    user = os.path.join(tmp, "user")
    os.makedirs(os.path.join(user, "events"))
    for name, text in (("events/good.man", GOOD), ("events/bad.man", BAD),
                       ("messages.mc", MC), ("README", "a user's repository\n")):
        with open(os.path.join(user, name), "w") as f:
            f.write(text)
    git = ["git", "-c", "user.name=u", "-c", "user.email=u@example.invalid"]
    subprocess.run(["git", "init", "-q", user], check=True)
    subprocess.run(git + ["add", "."], cwd=user, check=True)
    subprocess.run(git + ["commit", "-qm", "events"], cwd=user, check=True)
    runner = os.path.join(tmp, "runner")
    os.makedirs(runner)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True).stdout.strip() \
        if os.path.exists(os.path.join(ROOT, ".git")) else ""
    env = dict(os.environ, RUNNER_TEMP=runner, GITHUB_OUTPUT=os.path.join(runner, "output"),
               GITHUB_PATH=os.path.join(runner, "path"), MCGEN_REPO=ROOT, MCGEN_REF=head,
               SETUP_DRY_RUN="1")
    # a source tarball (ninja dist's) has no git history to clone from
    if not head:
        quick = True
    if quick:
        skip("workflow: the build step clones mcgen and builds build/mcgen",
             "--quick" if head else "%s is not a git checkout (a source tarball)" % ROOT)
        tool_dir = os.path.dirname(mcgen)
    else:
        r = run_step(steps[1], env, user, {})
        built = os.path.join(runner, "mcgen", "build", "mcgen")
        path = [l.strip() for l in open(env["GITHUB_PATH"])] if r.returncode == 0 else []
        check(r.returncode == 0 and os.access(built, os.X_OK) and
              path == [os.path.dirname(built)],
              "workflow: the build step clones mcgen at MCGEN_REF and builds build/mcgen "
              "(./setup --build-only as a dry run)", r.stdout + r.stderr)
        if r.returncode != 0:
            return
        tool_dir = path[0]
    env["PATH"] = tool_dir + os.pathsep + env["PATH"]
    r = run_step(steps[2], env, user, {})
    out = key_value(env["GITHUB_OUTPUT"])
    check(r.returncode == 0 and out.get("status") == "1",
          "workflow: the check step succeeds and records mcgen's status 1",
          (out, r.stdout, r.stderr))
    sarif_path = os.path.join(user, "mcgen.sarif")
    try:
        sarif = json.load(open(sarif_path))
        found = [(res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                  res["locations"][0]["physicalLocation"]["region"]["startLine"],
                  res["locations"][0]["physicalLocation"]["region"]["startColumn"],
                  res["level"], res["ruleId"], res["message"]["text"])
                 for res in sarif["runs"][0]["results"]]
    except (OSError, ValueError, KeyError, IndexError) as e:
        sarif, found = None, []
        check(False, "workflow: mcgen.sarif is a SARIF log", e)
    if sarif is not None:
        files = {f[0] for f in found}
        check(sarif.get("version") == "2.1.0" and files == {"events/bad.man"} and
              {f[3] for f in found} == {"error", "warning"},
              "workflow: mcgen.sarif is SARIF 2.1.0 JSON naming events/bad.man (an error and "
              "a warning), not the good files", found)
    # the clone's matcher, which the step names (this repository's with --quick)
    matcher_file = os.path.join(runner, "mcgen", "examples", "ci", "mcgen-problem-matcher.json")
    pat = json.load(open(matcher_file if os.path.exists(matcher_file) else
                         os.path.join(CI, "mcgen-problem-matcher.json")))
    pat = pat["problemMatcher"][0]["pattern"][0]
    rx = re.compile(pat["regexp"])
    log = (r.stdout + r.stderr).splitlines()
    matched = []
    for line in log:
        m = rx.match(line)
        if m:
            matched.append((m.group(pat["file"]), int(m.group(pat["line"])),
                            int(m.group(pat["column"])), m.group(pat["severity"]),
                            m.group(pat["code"]), m.group(pat["message"])))
    check("::add-matcher::%s" % matcher_file in log and found and
          sorted(matched) == sorted(found),
          "workflow: the problem matcher reads each text diagnostic as exactly its SARIF "
          "result (%d: file, line, column, severity, code, message)" % len(found),
          "\n".join(map(str, matched)) + "\n--\n" + "\n".join(map(str, found)))
    r = run_step(steps[4], env, user, out)
    check(r.returncode == 1 and "mcgen --validate exited 1" in r.stdout,
          "workflow: the last step fails the job", r.stdout + r.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    ap.add_argument("--quick", action="store_true", help="no clone and build of mcgen")
    args = ap.parse_args()
    mcgen = os.path.abspath(args.mcgen)
    try:
        import yaml
    except ImportError:
        skip("examples/ci/manifest-check.yml", "no PyYAML (python3-yaml)")
    else:
        with open(os.path.join(CI, "manifest-check.yml"), encoding="utf-8") as f:
            wf = yaml.safe_load(f)
        steps = shape(wf)
        if not shutil.which("git"):
            skip("the workflow's steps", "no git")
        else:
            with tempfile.TemporaryDirectory() as tmp:
                local_run(steps, mcgen, args.quick, tmp)
    print("%d passed, %d failed, %d skipped" % (results["passed"], results["failed"],
                                               results["skipped"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
