"""The fuzz targets and where their inputs come from, for tests/fuzz/run
(the campaigns of `ninja fuzz`) and tests/fuzz_test.py (every such input,
run once by each target's plain-program build in `ninja test`).

Seeds are files already in the repository (tests/invalid, tests/data, the
examples, the built-in templates), the reference corpus and reproducers in
../shared when that exists, and this target's own regression inputs,
tests/fuzz/regress/<target>/: inputs a campaign once found, minimised.
Binary targets also get the binaries mcgen makes from the repository's
manifests (made_by below: the options that make them)."""
import glob
import os
import subprocess

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))


def _files(*patterns):
    out = []
    for p in patterns:
        out += [f for f in glob.glob(os.path.join(ROOT, p), recursive=True) if os.path.isfile(f)]
    return sorted(set(out))


def _shared(*patterns):
    if not os.path.isdir(SHARED):
        return []
    out = []
    for p in patterns:
        out += [f for f in glob.glob(os.path.join(SHARED, p), recursive=True) if os.path.isfile(f)]
    return sorted(set(out))


def _manifests():
    return (_files("tests/invalid/*.man", "tests/data/*.man", "examples/**/*.man")
            + _shared("corpus/**/*.man", "corpus/**/*.xml", "repro/*.man"))


# name -> (what it runs, seeds(), dictionary or None, mcgen options that
# make a seed from each repository manifest, or a function (mcgen, dir)
# making seeds in dir, or None)
TARGETS = {
    "man": ("the .man reader and the check stage (--validate)", _manifests,
            os.path.join(SHARED, "repro", "manifest.dict"), None),
    "emit": ("read, check and every output built into memory, binaries read back", _manifests,
             os.path.join(SHARED, "repro", "manifest.dict"), None),
    "wevt": ("the TEMP.BIN reader (--check-wevt)",
             lambda: _shared("corpus/golden/**/*TEMP*.BIN"),
             os.path.join(ROOT, "tests", "fuzz", "wevt.dict"), "--wevt={out}"),
    "msgtable": ("the message-table reader",
                 lambda: _shared("corpus/golden/**/*MSG*.bin", "corpus/golden-mc/**/*.bin"),
                 None, "--message-tables={dir}"),
    "mc": ("the .mc reader (chunks from the first byte), check_mc, every output, tables read back",
           lambda: _files("tests/invalid/*.mc") + _shared("corpus/**/*.mc", "corpus/**/*.Mc",
                                                          "corpus/**/*.MC"),
           os.path.join(ROOT, "tests", "fuzz", "mc.dict"), None),
    "res": ("a .res file's resources, then --dump and --decompile of what it holds",
            lambda: [], os.path.join(ROOT, "tests", "fuzz", "wevt.dict"),
            lambda mcgen, d: _module(mcgen, d, False)),
    "pe": ("a PE image's resource directory, then --dump and --decompile of what it holds",
           lambda: [], os.path.join(ROOT, "tests", "fuzz", "wevt.dict"),
           lambda mcgen, d: _module(mcgen, d, True)),
    "tmpl": ("the template engine: parse, render against a manifest's values",
             lambda: (_files("templates/*.j2", "examples/**/*.j2", "tests/**/*.j2")
                      + _shared("repro/*.j2")),
             os.path.join(ROOT, "tests", "fuzz", "tmpl.dict"), None),
}


WINDRES, GCC = "x86_64-w64-mingw32-windres", "x86_64-w64-mingw32-gcc"


def _module(mcgen, d, pe):
    """examples/hello's binaries in a .res (windres) or a DLL (mingw-w64),
    made in d: [its path], or [] without the tools."""
    import shutil
    if not shutil.which(WINDRES) or (pe and not shutil.which(GCC)):
        return []
    hello = os.path.join(ROOT, "examples", "hello", "hello.man")
    subprocess.run([mcgen, "--rc=hello.rc", "--wevt=helloTEMP.BIN", "--message-tables=.",
                    hello], cwd=d, check=True, capture_output=True)
    if not pe:
        subprocess.run([WINDRES, "hello.rc", "-O", "res", "-o", "hello.res"], cwd=d, check=True)
        return [os.path.join(d, "hello.res")]
    with open(os.path.join(d, "dll.c"), "w") as f:
        f.write("int __stdcall DllMain(void *h, unsigned long r, void *p)\n"
                "{ (void)h; (void)r; (void)p; return 1; }\n")
    subprocess.run([WINDRES, "hello.rc", "-O", "coff", "-o", "res.o"], cwd=d, check=True)
    subprocess.run([GCC, "-shared", "-o", "hello.dll", "dll.c", "res.o"], cwd=d, check=True)
    return [os.path.join(d, "hello.dll")]


def regress_dir(target):
    return os.path.join(ROOT, "tests", "fuzz", "regress", target)


def seeds(target):
    """Every input of a target that exists here, regression inputs first."""
    d = regress_dir(target)
    own = sorted(os.path.join(d, f) for f in os.listdir(d)) if os.path.isdir(d) else []
    return own + TARGETS[target][1]()


def dictionary(target):
    d = TARGETS[target][2]
    return d if d and os.path.isfile(d) else None


def made_seeds(target, mcgen, workdir):
    """The binaries mcgen makes from the repository's own manifests, for
    the binary targets (none for the others): seeds that exist without
    ../shared.  Made in workdir; their paths."""
    how = TARGETS[target][3]
    if not how:
        return []
    if callable(how):  # a container the build tools make
        d = os.path.join(workdir, target)
        os.makedirs(d, exist_ok=True)
        return how(mcgen, d)
    out = []
    for man in _files("examples/hello/*.man", "tests/data/*.man"):
        base = os.path.splitext(os.path.basename(man))[0]
        d = os.path.join(workdir, target, base)
        os.makedirs(d, exist_ok=True)
        arg = how.format(out=os.path.join(d, "TEMP.BIN"), dir=d)
        r = subprocess.run([mcgen, arg, man], capture_output=True)
        if r.returncode != 0:
            raise RuntimeError("%s %s %s: %s" % (mcgen, arg, man, r.stderr.decode(errors="replace")))
        out += sorted(os.path.join(d, f) for f in os.listdir(d))
    return out
