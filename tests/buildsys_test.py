#!/usr/bin/env python3
"""mcgen in other people's builds: the CMake package, make, Meson, editors,
and `ninja example`.

1. The CMake package: an installed tree (`DESTDIR=... PREFIX=/usr ninja
   install`, with the mcgen under test as its bin/mcgen), and a CMake
   project in a temporary directory outside the repository that finds it
   with find_package(mcgen REQUIRED) and compiles two manifests and a .mc
   into one program (a manifest with the .mc in one run, whose resources
   are linked in, and a second manifest for its header), cross-compiled with
   examples/cmake/mingw-w64.cmake and the Ninja generator.  The program runs
   under wine: both providers register, FormatMessage finds the .mc's
   message in the program's own table, and its WEVT_TEMPLATE is the run's
   TEMP.BIN.  A second build has no work; a touched manifest re-runs that
   manifest's mcgen and nothing else; an edited .mc message reaches the
   program; a typo fails the build (not the configure) with mcgen's
   file:line:col line; configuring runs no mcgen (a MCGEN_EXECUTABLE that
   does not exist configures); the Unix Makefiles generator has no work on
   a second build either.
2. The make snippet of docs/build-systems.md, as written there, with GNU
   make: `make -q` is content after a build and after a touched manifest's
   rebuild (mcgen keeps unchanged outputs' mtimes; the stamp is why make
   does not run it forever).
3. The Meson snippet of docs/build-systems.md with Debian's meson and a
   mingw-w64 cross file: builds, then no work, a touch re-runs mcgen alone.
4. docs/editors.md: its settings.json snippet is JSON and associates
   *.man with the installed eventman.xsd; a manifest with the root element
   it shows (xsi:schemaLocation) passes mcgen --validate and xmllint.
5. `ninja example`'s script (examples/hello/run) with a fresh WINEPREFIX:
   its output is what README says, with no wine start-up noise (slow, ~30
   s: not with --quick).

Each part says "skipped" when a tool it needs is missing.  Prints PASS/FAIL
lines and "N passed, N failed, N skipped".
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "build-systems.md")
EDITORS = os.path.join(ROOT, "docs", "editors.md")
results = {"passed": 0, "failed": 0, "skipped": 0}
MINGW = ["x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-windres"]

# Two providers and a .mc: alpha.man and msgs.mc are compiled together (mc's
# `mc alpha.man msgs.mc`), beta.man alone.
ALPHA = """<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation>
    <events>
      <provider name="Test-Alpha" guid="{8d0e5b6a-3f1c-4c2e-9a51-0a1b2c3d4e01}"
                symbol="ALPHA_PROVIDER" resourceFileName="app.exe"
                messageFileName="app.exe" message="$(string.provider)">
        <templates>
          <template tid="t">
            <data name="Count" inType="win:UInt32"/>
          </template>
        </templates>
        <events>
          <event value="1" version="0" symbol="AlphaStarted" level="win:Informational"
                 template="t" message="$(string.started)"/>
        </events>
      </provider>
    </events>
  </instrumentation>
  <localization>
    <resources culture="en-US">
      <stringTable>
        <string id="provider" value="Alpha"/>
        <string id="started" value="Alpha started %1 times"/>
      </stringTable>
    </resources>
  </localization>
</instrumentationManifest>
"""
BETA = (ALPHA.replace("Alpha", "Beta").replace("ALPHA", "BETA")
        .replace("4e01}", "4e02}"))
MSGS = ("MessageId=0x100\nSymbolicName=MSG_HELLO\nLanguage=English\n"
        "Hello from the message table.\n.\n")
APP_C = r"""#include <windows.h>
#include <evntprov.h>
#include <stdio.h>
#include "alpha.h"
#include "beta.h"
#include "msgs.h"

int main(void)
{
    char text[256];
    ULONG a = EventRegisterTest_Alpha(), b = EventRegisterTest_Beta();
    EventWriteAlphaStarted(1);
    EventWriteBetaStarted(2);
    EventUnregisterTest_Beta();
    EventUnregisterTest_Alpha();
    DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_HMODULE | FORMAT_MESSAGE_IGNORE_INSERTS, NULL,
                             MSG_HELLO, MAKELANGID(LANG_ENGLISH, SUBLANG_ENGLISH_US), text,
                             sizeof text, NULL);
    HRSRC wevt = FindResourceA(NULL, MAKEINTRESOURCEA(1), "WEVT_TEMPLATE");
    printf("registered: %lu %lu\n", (unsigned long)a, (unsigned long)b);
    printf("MSG_HELLO: %s", n ? text : "(none)\n");
    printf("WEVT_TEMPLATE: %lu bytes\n", wevt ? (unsigned long)SizeofResource(NULL, wevt) : 0UL);
    return 0;
}
"""
CMAKELISTS = """cmake_minimum_required(VERSION 3.20)
project(app C RC)
find_package(mcgen REQUIRED)
message(STATUS "mcgen ${mcgen_VERSION}")
add_executable(app app.c)
target_link_libraries(app PRIVATE advapi32)
mcgen_add_manifest(app MANIFEST alpha.man MC msgs.mc UM)
mcgen_add_manifest(app MANIFEST beta.man UM)
"""
MESON_CROSS = """[binaries]
c = 'x86_64-w64-mingw32-gcc'
ar = 'x86_64-w64-mingw32-ar'
strip = 'x86_64-w64-mingw32-strip'
windres = 'x86_64-w64-mingw32-windres'

[host_machine]
system = 'windows'
cpu_family = 'x86_64'
cpu = 'x86_64'
endian = 'little'
"""


def check(ok, name, why=""):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + str(why)[-3000:]))


def skip(name, why):
    results["skipped"] += 1
    print("SKIP %s: %s" % (name, why))


def missing(tools):
    return [t for t in tools if not shutil.which(t)]


def run(args, cwd=None, env=None, timeout=600):
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def wine_env(prefix=None):
    env = dict(os.environ, WINEDEBUG="-all")
    env["WINEPREFIX"] = prefix or os.environ.get(
        "WINEPREFIX", os.path.join(tempfile.gettempdir(), "mcgen-wine"))
    return env


def wine(exe):
    """(exit status, standard output without the CRs of the program's text
    mode): bytes, as universal newlines would make "\r\r\n" two lines."""
    r = subprocess.run(["wine", exe], env=wine_env(), capture_output=True, timeout=600)
    return r.returncode, r.stdout.replace(b"\r", b"").decode("utf-8", "replace") + \
        r.stderr.decode("utf-8", "replace")


def snippet(section, lang, doc=DOC):
    """The first ```lang block after the heading `## section` of doc
    (docs/build-systems.md): the text a user copies."""
    text = open(doc, encoding="utf-8").read()
    part = text[text.index("\n## %s\n" % section):]
    m = re.search(r"```%s\n(.*?)```" % lang, part, re.S)
    return m.group(1)


def steps(stdout):
    """The descriptions of the edges ninja ran ("[1/3] mcgen ...")."""
    return [line.split("] ", 1)[1] for line in stdout.splitlines() if line.startswith("[")]


def install_tree(mcgen, tmp):
    """<prefix> of an installed mcgen (`DESTDIR=... PREFIX=/usr ninja
    install`'s command, tools/install: not ninja itself, which ninja test
    is running in this tree), its bin/mcgen then replaced by the mcgen
    under test."""
    dest = os.path.join(tmp, "dest")
    prefix = dest + "/usr"
    r = run([os.path.join(ROOT, "tools", "install")],
            env=dict(os.environ, DESTDIR=dest, PREFIX="/usr"))
    check(r.returncode == 0, "tools/install into DESTDIR", r.stdout + r.stderr)
    if r.returncode != 0:
        return None
    shutil.copy(mcgen, prefix + "/bin/mcgen")
    listed = sorted(os.listdir(prefix + "/lib/cmake/mcgen"))
    check({"mcgen-config.cmake", "mcgen.cmake"} <= set(listed),
          "installed tree: lib/cmake/mcgen/ has %s" % ", ".join(listed), listed)
    return prefix


def cmake_package(mcgen, tmp):
    need = ["cmake", "ninja", "wine", "x86_64-w64-mingw32-objdump"] + MINGW
    if missing(need):
        skip("the CMake package", "needs " + ", ".join(missing(need)))
        return
    prefix = install_tree(mcgen, tmp)
    if not prefix:
        return
    src = os.path.join(tmp, "project")
    os.makedirs(src)
    for name, text in (("alpha.man", ALPHA), ("beta.man", BETA), ("msgs.mc", MSGS),
                       ("app.c", APP_C), ("CMakeLists.txt", CMAKELISTS)):
        with open(os.path.join(src, name), "w", encoding="utf-8") as f:
            f.write(text)
    toolchain = os.path.join(ROOT, "examples", "cmake", "mingw-w64.cmake")

    def configure(b, *extra, generator="Ninja"):
        return run(["cmake", "-S", src, "-B", b, "-G", generator,
                    "-DCMAKE_TOOLCHAIN_FILE=" + toolchain,
                    "-DCMAKE_PREFIX_PATH=" + prefix, *extra])

    b = os.path.join(tmp, "build")
    t0 = time.monotonic()
    r = configured = configure(b)
    t1 = time.monotonic()
    if r.returncode == 0:
        r = run(["cmake", "--build", b])
    t2 = time.monotonic()
    exe = os.path.join(b, "app.exe")
    check(r.returncode == 0 and os.path.exists(exe),
          "CMake: find_package(mcgen) and two manifests and a .mc in one target build app.exe "
          "(configure %.1f s, build %.1f s)" % (t1 - t0, t2 - t1), r.stdout + r.stderr)
    if r.returncode != 0:
        return
    version = run([os.path.join(ROOT, "tools", "version")]).stdout.split("-")[0].strip() \
        if os.path.exists(os.path.join(ROOT, "tools", "version")) else None
    if version:
        check("-- mcgen %s\n" % version in configured.stdout,
              "CMake: mcgen_VERSION is tools/version's %s" % version, configured.stdout)
    # beta.man's call has no NO_RESOURCES: its resources cannot be linked
    # beside alpha's (one resource 1 of each type), which CMake says
    warned = re.sub(r"\s+", " ", configured.stderr)
    check("mcgen_add_manifest(app): mcgen/app/beta's message tables and WEVT_TEMPLATE are "
          "not linked into app: it links " in warned and "NO_RESOURCES" in warned,
          "CMake: a second run's resources in one target are a configure warning",
          configured.stderr)
    cache = open(os.path.join(b, "CMakeCache.txt")).read()
    check("MCGEN_EXECUTABLE:FILEPATH=%s/bin/mcgen\n" % prefix in cache,
          "CMake: MCGEN_EXECUTABLE is the installed bin/mcgen",
          [l for l in cache.splitlines() if "MCGEN" in l])
    temp_bin = os.path.join(b, "mcgen", "app", "msgs", "msgsTEMP.BIN")
    status, out = wine(exe)
    check(status == 0 and out ==
          "registered: 0 0\nMSG_HELLO: Hello from the message table.\n"
          "WEVT_TEMPLATE: %d bytes\n" % os.path.getsize(temp_bin),
          "CMake: app.exe under wine: both providers register, the .mc's message and the "
          "manifest's WEVT_TEMPLATE are its resources", out)
    r = run(["ninja", "-C", b, "-n"])
    check("no work to do" in r.stdout, "CMake: a second build has no work to do", r.stdout)

    time.sleep(0.01)
    os.utime(os.path.join(src, "beta.man"))
    r = run(["cmake", "--build", b])
    check(r.returncode == 0 and steps(r.stdout) == ["mcgen mcgen/app/beta"],
          "CMake: a touched beta.man re-runs its mcgen and nothing else", r.stdout)
    r = run(["ninja", "-C", b, "-n"])
    check("no work to do" in r.stdout, "CMake: and then nothing again", r.stdout)

    with open(os.path.join(src, "msgs.mc"), "w") as f:
        f.write(MSGS.replace("Hello from", "Hi from"))
    r = run(["cmake", "--build", b])
    status, out = wine(exe)
    check(r.returncode == 0 and "MSG_HELLO: Hi from the message table.\n" in out,
          "CMake: an edited .mc message reaches the program's message table", r.stdout + out)

    beta = os.path.join(src, "beta.man")
    typo = BETA.replace('level="win:Informational"', 'level="win:Informatonal"')
    with open(beta, "w") as f:
        f.write(typo)
    r = run(["cmake", "--build", b])
    # mcgen places an attribute's error at the attribute's name
    row = [l for l in typo.splitlines() if "Informatonal" in l][0]
    line = "%s:%d:%d: error: [MCG2001] unknown level 'win:Informatonal'" % (
        beta, typo.splitlines().index(row) + 1, row.index("level=") + 1)
    check(r.returncode != 0 and line in r.stdout.splitlines()
          and "Re-running CMake" not in r.stdout,
          "CMake: a typo in a manifest fails the build with mcgen's line, no re-configure",
          r.stdout + r.stderr)
    b2 = os.path.join(tmp, "build2")
    r = configure(b2, "-DMCGEN_EXECUTABLE=" + os.path.join(tmp, "not-yet", "mcgen"))
    check(r.returncode == 0,
          "CMake: configuring runs no mcgen (the typo, and a MCGEN_EXECUTABLE that does not "
          "exist yet, configure)", r.stdout + r.stderr)
    with open(beta, "w") as f:
        f.write(BETA)

    if not shutil.which("make"):
        skip("CMake with Unix Makefiles", "no make")
        return
    b3 = os.path.join(tmp, "build3")
    r = configure(b3, generator="Unix Makefiles")
    if r.returncode == 0:
        r = run(["cmake", "--build", b3])
    r2 = run(["cmake", "--build", b3])
    # CMake's recursive Makefiles always look out of date to `make -q`
    check(r.returncode == 0 and r2.returncode == 0 and
          not re.search(r"mcgen mcgen/|Building|Linking", r2.stdout),
          "CMake, Unix Makefiles: builds, then a second build runs nothing",
          r.stdout + r.stderr + r2.stdout)


def make_snippet(mcgen, tmp):
    if missing(["make"]):
        skip("docs/build-systems.md's make snippet", "no make")
        return
    d = os.path.join(tmp, "make")
    os.makedirs(d)
    with open(os.path.join(d, "app.man"), "w") as f:
        f.write(ALPHA)
    text = snippet("make", "make")
    with open(os.path.join(d, "Makefile"), "w") as f:
        f.write(text.replace("MCGEN = mcgen", "MCGEN = " + mcgen).replace(
            "app.o: app.c gen/app.stamp", ""))  # the snippet's mcgen part

    def make(*args):
        return run(["make", *args], cwd=d)

    r = make("gen/app.stamp")
    q = make("-q", "gen/app.stamp")
    check(r.returncode == 0 and os.path.exists(os.path.join(d, "gen", "app.h")) and
          q.returncode == 0, "make snippet: builds, then `make -q` says up to date",
          r.stdout + r.stderr + q.stdout)
    header = os.stat(os.path.join(d, "gen", "app.h")).st_mtime_ns
    time.sleep(0.01)
    os.utime(os.path.join(d, "app.man"))
    r = make("gen/app.stamp")
    q = make("-q", "gen/app.stamp")
    check(r.returncode == 0 and r.stdout.count(mcgen) == 1 and q.returncode == 0 and
          os.stat(os.path.join(d, "gen", "app.h")).st_mtime_ns == header,
          "make snippet: a touched manifest runs mcgen once (the header keeps its mtime), "
          "then `make -q` is content", r.stdout + q.stdout)


def meson_snippet(mcgen, tmp):
    need = ["meson", "ninja"] + MINGW
    if missing(need):
        skip("docs/build-systems.md's Meson snippet", "needs " + ", ".join(missing(need)))
        return
    d = os.path.join(tmp, "meson")
    os.makedirs(d)
    with open(os.path.join(d, "app.man"), "w") as f:
        f.write(ALPHA.replace("Test-Alpha", "Test-App"))
    with open(os.path.join(d, "app.c"), "w") as f:
        f.write('#include <windows.h>\n#include <evntprov.h>\n#include "app.h"\n'
                "int main(void) { EventRegisterTest_App(); EventWriteAlphaStarted(1);\n"
                "    EventUnregisterTest_App(); return 0; }\n")
    with open(os.path.join(d, "meson.build"), "w") as f:
        f.write("project('app', 'c')\n" + snippet("Meson", "meson"))
    with open(os.path.join(d, "mingw.ini"), "w") as f:
        f.write(MESON_CROSS)
    env = dict(os.environ, PATH=os.path.dirname(mcgen) + os.pathsep + os.environ["PATH"])
    r = run(["meson", "setup", "--cross-file", "mingw.ini", "b"], cwd=d, env=env)
    if r.returncode == 0:
        r = run(["ninja", "-C", "b"], cwd=d, env=env)
    check(r.returncode == 0 and os.path.exists(os.path.join(d, "b", "app.exe")),
          "Meson snippet: meson setup and ninja build app.exe", r.stdout + r.stderr)
    r = run(["ninja", "-C", "b", "-n"], cwd=d, env=env)
    check("no work to do" in r.stdout, "Meson snippet: a second build has no work to do",
          r.stdout)
    time.sleep(0.01)
    os.utime(os.path.join(d, "app.man"))
    r = run(["ninja", "-C", "b"], cwd=d, env=env)
    r2 = run(["ninja", "-C", "b", "-n"], cwd=d, env=env)
    check(steps(r.stdout) == ["Generating app-events with a custom command"] and
          "no work to do" in r2.stdout,
          "Meson snippet: a touched manifest re-runs mcgen alone, then no work",
          r.stdout + r2.stdout)


def editors(mcgen, tmp):
    """docs/editors.md: the VS Code settings and the manifest's own
    xsi:schemaLocation."""
    try:
        settings = json.loads(snippet("VS Code (XML by Red Hat)", "json", EDITORS))
        assoc = settings["xml.fileAssociations"]
    except (ValueError, KeyError) as e:
        check(False, "docs/editors.md: the settings.json snippet is JSON", e)
        return
    check(settings["files.associations"] == {"*.man": "xml"} and
          assoc == [{"pattern": "**/*.man",
                     "systemId": "/usr/local/share/mcgen/eventman.xsd"}],
          "docs/editors.md: the settings.json snippet is JSON associating *.man with the "
          "installed eventman.xsd (ninja install's default prefix)", settings)
    root = snippet("In the manifest itself", "xml", EDITORS)
    xsd = os.path.join(ROOT, "schema", "eventman.xsd")
    man = os.path.join(tmp, "located.man")
    with open(man, "w") as f:
        f.write(re.sub(r"<instrumentationManifest[^>]*>",
                       root.strip().replace("/usr/local/share/mcgen/eventman.xsd", xsd),
                       ALPHA, count=1))
    r = run([mcgen, "--validate", man])
    x = run(["xmllint", "--noout", "--schema", xsd, man]) if shutil.which("xmllint") \
        else None
    check(r.returncode == 0 and r.stderr == "" and (x is None or x.returncode == 0),
          "docs/editors.md: a manifest with its xsi:schemaLocation root passes mcgen --validate"
          + (" and xmllint --schema" if x else " (no xmllint)"),
          r.stderr + (x.stderr if x else ""))


def example(mcgen, tmp):
    """examples/hello/run with a WINEPREFIX wine has never seen: exactly the
    lines README's Quick start explains, nothing from wine."""
    need = ["wine", "wineboot", "wineserver"] + MINGW
    if missing(need):
        skip("ninja example's output", "needs " + ", ".join(missing(need)))
        return
    out = os.path.join(tmp, "example")
    env = dict(os.environ, WINEPREFIX=os.path.join(tmp, "fresh-wine"))
    env.pop("WINEDEBUG", None)
    t0 = time.monotonic()
    r = subprocess.run([os.path.join(ROOT, "examples", "hello", "run"), mcgen, out], env=env,
                       capture_output=True, timeout=900)
    took = time.monotonic() - t0
    subprocess.run(["wineserver", "-k"], env=env, capture_output=True)
    size = lambda f: os.path.getsize(os.path.join(out, f))
    expected = ["mcgen -um compiled hello.man and wrote:"] + [
        "  %-32s %8d bytes" % (os.path.join(out, f), size(f))
        for f in ("hello.h", "hello.rc", "MSG00001.bin", "MSG00002.bin", "helloTEMP.BIN")] + [
        "", "creating wine's prefix %s (once; wine's messages: %s/wineboot.log)"
        % (env["WINEPREFIX"], out),
        "", "wine hello.exe:",
        "registered: error 0",
        "a session listens to HelloGreeting: no",
        "writing with _AssumeEnabled:",
        "  event 1 (version 0, level 4, keywords 0x8000000000000001): 32 payload bytes in 3 "
        "pieces",
        "  event 2 (version 0, level 5, keywords 0x4000000000000003): 30 payload bytes in 3 "
        "pieces"] if r.returncode == 0 else []
    got = r.stdout.decode("utf-8", "replace").splitlines()
    log = open(os.path.join(out, "wineboot.log"), errors="replace").read() \
        if os.path.exists(os.path.join(out, "wineboot.log")) else ""
    check(r.returncode == 0 and got == expected and r.stderr == b"",
          "ninja example with a fresh wine prefix (%.0f s): README's lines and nothing from "
          "wine (%d bytes of wine's in wineboot.log)" % (took, len(log)),
          "\n".join(got) + r.stderr.decode("utf-8", "replace"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    ap.add_argument("--quick", action="store_true", help="leave out the slow example run")
    args = ap.parse_args()
    mcgen = os.path.abspath(args.mcgen)
    with tempfile.TemporaryDirectory() as tmp:
        cmake_package(mcgen, tmp)
        make_snippet(mcgen, tmp)
        meson_snippet(mcgen, tmp)
        editors(mcgen, tmp)
        if args.quick:
            skip("ninja example's output", "--quick")
        else:
            example(mcgen, tmp)
    print("%d passed, %d failed, %d skipped" % (results["passed"], results["failed"],
                                               results["skipped"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
