#!/usr/bin/env python3
"""mcgen as users build, install and release it (README: Versions, Install,
Building and testing).

1. --version: "mcgen VERSION", "commit DESCRIBE", the MIT licence naming
   LICENSE, the mc versions whose outputs mcgen writes; VERSION and
   DESCRIBE those of tools/version, the one rule.
2. In a clone of HEAD (the rest; --quick, for the sanitizer builds, stops
   after 1 and 6):
   - CC=clang builds build/ with clang (the .comment section names clang);
     CFLAGS='-O2 -g -Werror' then rebuilds every object with cc, warnings
     as errors (the -O2 gcc build's -Werror check); the same command again
     compiles and links nothing.
   - --version: the CHANGELOG's first release number with -dev+g and the
     commit, and `git describe --tags --always --dirty`; tagged v9.8.7,
     only version.o is compiled again and the version is 9.8.7; a modified
     file makes them 9.8.7+dirty and v9.8.7-dirty.
3. DESTDIR=... PREFIX=/opt/mcgen ninja install: exactly the agreed tree
   (bin/mcgen, share/man/man1/mcgen.1, share/mcgen/{eventman.xsd,
   winmeta.xml,json-model.schema.json}, share/doc/mcgen/{LICENSE,README.md,CHANGELOG.md},
   lib/cmake/mcgen/ with cmake/mcgen*.cmake and mcgen-config-version.cmake),
   the files equal to their sources, with their modes; find_package(mcgen
   VERSION) accepts and refuses by the rule the config-version file states
   (when cmake is there).
4. ninja dist-source: mcgen-9.8.7.tar.gz, the same bytes twice, holding
   `git ls-files` plus VERSION under mcgen-9.8.7/; unpacked, it builds
   build/mcgen, whose --version is that of the clone.  A modified tree is
   refused.
5. tools/dist win64 around a build/win64/mcgen.exe (the real one when the
   Windows build is there, else a stand-in: the zip's layout is the point):
   the listed members, the same bytes twice.
6. SETUP_DRY_RUN=1 ./setup --build-only on a machine where nothing is
   installed (a dpkg-query that knows no package): exactly the four
   packages, nothing for tests; an unknown argument is a usage error.

Prints one line per check and "N passed, N failed, N skipped".
"""
import argparse
import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
results = {"passed": 0, "failed": 0, "skipped": 0}


def check(ok, name, why=""):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + str(why)))


def skip(name, why):
    results["skipped"] += 1
    print("SKIP %s: %s" % (name, why))


# the environment of a user who set none of the variables build/ reads
ENV = {k: v for k, v in os.environ.items() if k not in ("CC", "CFLAGS", "CPPFLAGS", "LDFLAGS",
                                                        "DESTDIR", "PREFIX")}


def sh(args, cwd, **env):
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=dict(ENV, **env))


def version_lines(mcgen):
    return subprocess.run([mcgen, "--version"], capture_output=True, text=True).stdout.splitlines()


def changelog_base(tree):
    with open(os.path.join(tree, "CHANGELOG.md"), encoding="utf-8") as f:
        return re.search(r"^## (\d+\.\d+\.\d+)", f.read(), re.M).group(1)


def version_text(mcgen):
    lines = version_lines(mcgen)
    rule = subprocess.run([os.path.join(ROOT, "tools", "version")], capture_output=True,
                          text=True).stdout.splitlines()
    check(len(lines) >= 2 and lines[0] == "mcgen " + rule[0] and lines[1] == "commit " + rule[1],
          "--version: mcgen VERSION, commit DESCRIBE as tools/version gives them", (lines, rule))
    text = "\n".join(lines)
    check("MIT" in text and "LICENSE" in text, "--version names the MIT licence and LICENSE", text)
    # the --mc-compat values (cli.c) and the formats README names
    check(all(w in text for w in ("CRIM 5.1", "CRIM 3.1", "10.0.18362", "10.0.15063", "8.1",
                                  "2020", "2017", "2005", "1998")),
          "--version names the mc versions whose outputs mcgen writes", text)


def ninja_lines(out):
    """The CC and LINK steps ninja ran."""
    return [l.split()[-1] for l in out.splitlines() if re.search(r"\] (CC|LINK) ", l)]


def comment(binary):
    r = subprocess.run(["readelf", "-p", ".comment", binary], capture_output=True, text=True)
    return r.stdout


def objects(tree):
    """The objects of build/, build/obj/tools/ (the build's own programs) included."""
    return sum(len([f for f in files if f.endswith(".o")])
               for _, _, files in os.walk(os.path.join(tree, "build", "obj")))


def compilers(tree):
    mcgen = os.path.join(tree, "build", "mcgen")
    if not shutil.which("clang"):
        skip("CC=clang ninja", "no clang")
    else:
        r = sh(["ninja", "build/mcgen"], tree, CC="clang", CFLAGS="-O2 -g -Werror")
        check(r.returncode == 0 and "clang version" in comment(mcgen),
              "CC=clang ninja build/mcgen: built with clang", r.stdout[-2000:] + r.stderr)
    r = sh(["ninja", "build/mcgen"], tree, CFLAGS="-O2 -g -Werror")
    ran = ninja_lines(r.stdout)
    n = objects(tree)
    # two links: mcgen, and tools/xmlrec (the host program that records the schema)
    check(r.returncode == 0 and "clang" not in comment(mcgen) and len(ran) == n + 2,
          "CFLAGS='-O2 -g -Werror' ninja: every object (%d) again with cc, no warning" % n,
          r.stdout[-3000:] + r.stderr)
    r = sh(["ninja", "build/mcgen"], tree, CFLAGS="-O2 -g -Werror")
    check(r.returncode == 0 and ninja_lines(r.stdout) == [],
          "the same ninja again compiles and links nothing", r.stdout)
    with open(os.path.join(tree, "build", "cc.stamp")) as f:
        stamp = f.read()
    check(stamp.startswith("cc ") and " -O2 -g -Werror " in stamp and "-std=c11" in stamp,
          "build/cc.stamp: the command as the shell expanded it", stamp)


def versions(tree):
    mcgen = os.path.join(tree, "build", "mcgen")
    flags = {"CFLAGS": "-O2 -g -Werror"}  # as compilers() left build/

    def describe():
        return sh(["git", "describe", "--tags", "--always", "--dirty"], tree).stdout.strip()

    head = sh(["git", "rev-parse", "--short", "HEAD"], tree).stdout.strip()
    lines = version_lines(mcgen)
    want = ["mcgen %s-dev+g%s" % (changelog_base(tree), head), "commit " + describe()]
    check(lines[:2] == want, "untagged clone: CHANGELOG's number -dev+g<commit>", (lines, want))
    sh(["git", "tag", "v9.8.7"], tree)
    r = sh(["ninja", "build/mcgen"], tree, **flags)
    check(ninja_lines(r.stdout) == ["build/obj/version.o", "build/mcgen"],
          "tagged: version.o compiled again and mcgen linked, nothing else", r.stdout)
    lines = version_lines(mcgen)
    check(lines[:2] == ["mcgen 9.8.7", "commit v9.8.7"] and describe() == "v9.8.7",
          "tagged v9.8.7: --version 9.8.7 and the tag, as git describe", lines)
    with open(os.path.join(tree, "LICENSE"), "a") as f:
        f.write("\n")
    sh(["ninja", "build/mcgen"], tree, **flags)
    lines = version_lines(mcgen)
    check(lines[:2] == ["mcgen 9.8.7+dirty", "commit v9.8.7-dirty"] and
          describe() == "v9.8.7-dirty", "a modified tree: 9.8.7+dirty, v9.8.7-dirty", lines)
    r = sh(["ninja", "dist-source"], tree)
    check(r.returncode != 0 and "uncommitted changes" in r.stdout + r.stderr,
          "ninja dist refuses a modified tree", r.stdout + r.stderr)
    sh(["git", "checkout", "LICENSE"], tree)
    sh(["ninja", "build/mcgen"], tree, **flags)


def installed(tree, tmp):
    dest = os.path.join(tmp, "dest")
    r = sh(["ninja", "install"], tree, DESTDIR=dest, PREFIX="/opt/mcgen", CFLAGS="-O2 -g -Werror")
    top = os.path.join(dest, "opt", "mcgen")
    got = sorted(os.path.relpath(os.path.join(b, f), top) for b, _, fs in os.walk(dest)
                 for f in fs)
    cmake_files = sorted(f for f in os.listdir(os.path.join(tree, "cmake"))
                         if re.fullmatch(r"mcgen.*\.cmake", f))
    sources = {"bin/mcgen": "build/mcgen", "share/man/man1/mcgen.1": "docs/mcgen.1",
               "share/mcgen/eventman.xsd": "schema/eventman.xsd",
               "share/mcgen/winmeta.xml": "schema/winmeta.xml",
               "share/mcgen/json-model.schema.json": "schema/json-model.schema.json",
               "share/doc/mcgen/LICENSE": "LICENSE", "share/doc/mcgen/README.md": "README.md",
               "share/doc/mcgen/CHANGELOG.md": "CHANGELOG.md"}
    sources.update({"lib/cmake/mcgen/" + f: "cmake/" + f for f in cmake_files})
    want = sorted(list(sources) + ["lib/cmake/mcgen/mcgen-config-version.cmake"])
    check(r.returncode == 0 and got == want, "ninja install: the agreed tree under "
          "$DESTDIR$PREFIX", (r.stdout + r.stderr, got, want))
    same = all(open(os.path.join(top, i), "rb").read() ==
               open(os.path.join(tree, s), "rb").read() for i, s in sources.items()
               if os.path.exists(os.path.join(top, i)))
    modes = {i: stat.S_IMODE(os.stat(os.path.join(top, i)).st_mode) for i in got
             if os.path.exists(os.path.join(top, i))}
    check(same and all(m == (0o755 if i == "bin/mcgen" else 0o644) for i, m in modes.items()),
          "installed files equal their sources; bin/mcgen 755, the rest 644", modes)
    if not shutil.which("cmake"):
        skip("find_package(mcgen VERSION)", "no cmake")
        return
    # what a config file finds does not matter here: the version file's verdict does
    pkg = os.path.join(tmp, "pkg", "lib", "cmake", "mcgen")
    os.makedirs(pkg)
    shutil.copy(os.path.join(top, "lib", "cmake", "mcgen", "mcgen-config-version.cmake"), pkg)
    with open(os.path.join(pkg, "mcgen-config.cmake"), "w") as f:
        f.write("set(MCGEN_STUB 1)\n")
    verdicts = {}
    proj = os.path.join(tmp, "proj")
    os.makedirs(proj)
    for req in ("", "9", "9.8", "9.0", "9.8.7 EXACT", "9.9", "10", "8.1", "9.8...<10",
                "9.9...10"):
        with open(os.path.join(proj, "CMakeLists.txt"), "w") as f:
            f.write("cmake_minimum_required(VERSION 3.19)\nproject(p NONE)\n"
                    "find_package(mcgen %s QUIET)\nmessage(STATUS \"FOUND=${mcgen_FOUND}\")\n" % req)
        r = sh(["cmake", "-S", proj, "-B", os.path.join(proj, "b"),
                "-DCMAKE_PREFIX_PATH=" + os.path.join(tmp, "pkg")], tmp)
        verdicts[req] = "FOUND=1" in r.stdout
        shutil.rmtree(os.path.join(proj, "b"))
    # 9.8.7: an older or equal request of the same major number, or a range holding it
    want = {"": True, "9": True, "9.8": True, "9.0": True, "9.8.7 EXACT": True, "9.9": False,
            "10": False, "8.1": False, "9.8...<10": True, "9.9...10": False}
    check(verdicts == want, "find_package(mcgen VERSION) against 9.8.7: same major, not newer",
          verdicts)


def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def dist_source(tree, tmp):
    r1 = sh(["ninja", "dist-source"], tree)
    tgz = os.path.join(tree, "build", "dist", "mcgen-9.8.7.tar.gz")
    if not os.path.exists(tgz):
        check(False, "ninja dist-source writes build/dist/mcgen-9.8.7.tar.gz", r1.stdout + r1.stderr)
        return
    first = digest(tgz)
    os.utime(tgz, (0, 0))
    sh(["ninja", "dist-source"], tree)
    check(digest(tgz) == first, "the tarball: the same bytes twice")
    with tarfile.open(tgz) as tar:
        names = sorted(m.name for m in tar.getmembers() if not m.isdir())
        owners = {(m.uid, m.gid, m.uname, m.gname) for m in tar.getmembers()}
        tar.extractall(os.path.join(tmp, "unpacked"))
    files = sh(["git", "ls-files"], tree).stdout.split()
    want = sorted("mcgen-9.8.7/" + f for f in files + ["VERSION"])
    check(names == want and owners == {(0, 0, "root", "root")},
          "the tarball: git ls-files and VERSION under mcgen-9.8.7/, owned by root",
          (set(names) ^ set(want), owners))
    src = os.path.join(tmp, "unpacked", "mcgen-9.8.7")
    r = sh(["ninja", "build/mcgen"], src)
    lines = version_lines(os.path.join(src, "build", "mcgen"))
    check(r.returncode == 0 and lines[:2] == ["mcgen 9.8.7", "commit v9.8.7"],
          "unpacked, ninja builds build/mcgen, --version from VERSION", (r.stderr, lines))


def dist_win64(tree):
    exe = os.path.join(ROOT, "build", "win64", "mcgen.exe")
    target = os.path.join(tree, "build", "win64", "mcgen.exe")
    os.makedirs(os.path.dirname(target), exist_ok=True)
    real = os.path.exists(exe)
    if real:
        shutil.copy(exe, target)
    else:
        with open(target, "wb") as f:
            f.write(b"MZ stand-in for build/win64/mcgen.exe")
    r = sh([os.path.join(tree, "tools", "dist"), "win64"], tree)
    zpath = os.path.join(tree, "build", "dist", "mcgen-9.8.7-win64.zip")
    if r.returncode != 0 or not os.path.exists(zpath):
        check(False, "tools/dist win64 writes build/dist/mcgen-9.8.7-win64.zip", r.stderr)
        return
    first = digest(zpath)
    sh([os.path.join(tree, "tools", "dist"), "win64"], tree)
    check(digest(zpath) == first, "the zip: the same bytes twice")
    with zipfile.ZipFile(zpath) as z:
        names = sorted(z.namelist())
        exe_ok = z.read("mcgen-9.8.7-win64/bin/mcgen.exe") == open(target, "rb").read()
        man = z.read("mcgen-9.8.7-win64/mcgen.1.txt").decode()
    cmake_files = sorted("lib/cmake/mcgen/" + f for f in os.listdir(os.path.join(tree, "cmake"))
                         if re.fullmatch(r"mcgen.*\.cmake", f))
    want = sorted("mcgen-9.8.7-win64/" + n for n in
                  ["bin/mcgen.exe", "LICENSE", "README.md", "CHANGELOG.md", "mcgen.1.txt",
                   "share/mcgen/eventman.xsd", "share/mcgen/winmeta.xml",
                   "share/mcgen/json-model.schema.json", "lib/cmake/mcgen/mcgen-config-version.cmake"] + cmake_files)
    check(names == want and exe_ok and "NAME\r\n       mcgen - " in man and "\b" not in man,
          "the zip (%s): mcgen.exe, the CMake package, schema, documents, the manual as text"
          % ("the real mcgen.exe" if real else "a stand-in exe"), (names, want, man[:200]))


def setup_dry_run(tmp):
    fake = os.path.join(tmp, "fakebin")
    os.makedirs(fake)
    with open(os.path.join(fake, "dpkg-query"), "w") as f:
        f.write("#!/bin/sh\nexit 1\n")  # knows no package
    os.chmod(os.path.join(fake, "dpkg-query"), 0o755)
    env = {"SETUP_DRY_RUN": "1", "PATH": fake + os.pathsep + ENV["PATH"]}
    r = sh([os.path.join(ROOT, "setup"), "--build-only"], tmp, **env)
    want = ("setup: dry run: missing: gcc libc6-dev ninja-build libexpat1-dev\n"
            "setup: dry run: would run: apt-get update && apt-get install -y "
            "--no-install-recommends gcc libc6-dev ninja-build libexpat1-dev\n")
    check(r.returncode == 0 and r.stdout == want and r.stderr == "",
          "SETUP_DRY_RUN=1 ./setup --build-only: the four build packages, nothing else",
          r.stdout + r.stderr)
    r = sh([os.path.join(ROOT, "setup"), "--build"], tmp, **env)
    check(r.returncode == 1 and r.stderr == "setup: error: unknown argument '--build' "
          "(./setup [--build-only | --expat-source DIR])\n", "./setup --build: refused",
          r.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    version_text(os.path.abspath(args.mcgen))
    with tempfile.TemporaryDirectory() as tmp:
        setup_dry_run(tmp)
        if args.quick:
            pass
        elif not shutil.which("git") or not os.path.exists(os.path.join(ROOT, ".git")):
            skip("the clone's builds, install and dist", "no git checkout")
        else:
            tree = os.path.join(tmp, "clone")
            r = subprocess.run(["git", "clone", "-q", ROOT, tree], capture_output=True, text=True)
            check(r.returncode == 0, "git clone of HEAD", r.stderr)
            if r.returncode == 0:
                compilers(tree)
                versions(tree)
                installed(tree, tmp)
                dist_source(tree, tmp)
                dist_win64(tree)
    print("%d passed, %d failed, %d skipped" % (results["passed"], results["failed"],
                                              results["skipped"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
