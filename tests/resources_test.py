#!/usr/bin/env python3
"""Resources end to end: the .rc mcgen writes for examples/hello compiles
with mingw-w64's windres and links into a DLL, and the DLL's resource
section holds exactly the bytes mcgen wrote: the WEVT_TEMPLATE resource
and one RT_MESSAGETABLE per culture under its language id (en-US 0x409,
de-DE 0x407; WEVT_TEMPLATE takes the last LANGUAGE line's, as rc does).  The DLL is read with our own PE resource reader below.
Prints "N passed, N failed" (and "skipped" without mingw-w64).
"""
import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HELLO = os.path.join(ROOT, "examples", "hello", "hello.man")
WINDRES, GCC = "x86_64-w64-mingw32-windres", "x86_64-w64-mingw32-gcc"
results = {"passed": 0, "failed": 0}


def check(ok, name, why=""):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why))


def pe_resources(data):
    """{(type, id, lang): bytes}; type is an int or a name."""
    pe = struct.unpack_from("<I", data, 0x3C)[0]
    assert data[pe:pe + 4] == b"PE\0\0"
    nsect, optsize = struct.unpack_from("<H", data, pe + 6)[0], struct.unpack_from("<H", data, pe + 20)[0]
    opt = pe + 24
    magic = struct.unpack_from("<H", data, opt)[0]
    dirs = opt + (112 if magic == 0x20B else 96)
    rsrc_rva = struct.unpack_from("<I", data, dirs + 2 * 8)[0]
    sections = []
    for i in range(nsect):
        s = opt + optsize + 40 * i
        vsize, va, rawsize, raw = struct.unpack_from("<IIII", data, s + 8)
        sections.append((va, max(vsize, rawsize), raw))

    def off(rva):
        for va, size, raw in sections:
            if va <= rva < va + size:
                return raw + rva - va
        raise ValueError("rva 0x%x in no section" % rva)

    base = off(rsrc_rva)
    out = {}

    def walk(d, path):
        named, ids = struct.unpack_from("<HH", data, base + d + 12)
        for i in range(named + ids):
            name, target = struct.unpack_from("<II", data, base + d + 16 + 8 * i)
            if name & 0x80000000:
                n = name & 0x7FFFFFFF
                length = struct.unpack_from("<H", data, base + n)[0]
                key = data[base + n + 2:base + n + 2 + 2 * length].decode("utf-16-le")
            else:
                key = name
            if target & 0x80000000:
                walk(target & 0x7FFFFFFF, path + [key])
            else:
                rva, size = struct.unpack_from("<II", data, base + target)
                out[tuple(path + [key])] = data[off(rva):off(rva) + size]
    walk(0, [])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    mcgen = os.path.abspath(ap.parse_args().mcgen)
    if not (shutil.which(WINDRES) and shutil.which(GCC)):
        print("skipped: %s or %s absent (./setup installs them)" % (WINDRES, GCC))
        print("0 passed, 0 failed, 1 skipped")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([mcgen, "--rc=hello.rc", "--wevt=helloTEMP.BIN", "--message-tables=.",
                            HELLO], cwd=tmp, capture_output=True, text=True)
        check(r.returncode == 0 and sorted(os.listdir(tmp)) ==
              ["MSG00001.bin", "MSG00002.bin", "hello.rc", "helloTEMP.BIN"],
              "mcgen writes hello.rc, helloTEMP.BIN, MSG00001.bin, MSG00002.bin",
              r.stderr + repr(os.listdir(tmp)))
        rc = open(os.path.join(tmp, "hello.rc"), "rb").read()
        check(rc == b'LANGUAGE 0x9,0x1\r\n1 11 "MSG00001.bin"\r\nLANGUAGE 0x7,0x1\r\n'
                    b'1 11 "MSG00002.bin"\r\n1 WEVT_TEMPLATE "helloTEMP.BIN"\r\n',
              "hello.rc as mc writes it (CRLF, one LANGUAGE pair per culture)", repr(rc))
        with open(os.path.join(tmp, "dll.c"), "w") as f:
            f.write("int __stdcall DllMain(void *h, unsigned long r, void *p)\n"
                    "{ (void)h; (void)r; (void)p; return 1; }\n")
        r = subprocess.run([WINDRES, "hello.rc", "-O", "coff", "-o", "res.o"], cwd=tmp,
                           capture_output=True, text=True)
        check(r.returncode == 0, "windres compiles hello.rc", r.stderr)
        r = subprocess.run([GCC, "-shared", "-o", "hello.dll", "dll.c", "res.o"], cwd=tmp,
                           capture_output=True, text=True)
        check(r.returncode == 0, "the resources link into hello.dll", r.stderr)
        if r.returncode == 0:
            res = pe_resources(open(os.path.join(tmp, "hello.dll"), "rb").read())
            # rc files WEVT_TEMPLATE under the language of the LANGUAGE line
            # before it: the last culture's
            want = {("WEVT_TEMPLATE", 1, 0x407): "helloTEMP.BIN",
                    (11, 1, 0x409): "MSG00001.bin", (11, 1, 0x407): "MSG00002.bin"}
            for key, name in sorted(want.items(), key=str):
                got = res.get(key)
                check(got == open(os.path.join(tmp, name), "rb").read(),
                      "hello.dll resource %r is %s byte for byte" % (key, name),
                      "resources: %r" % sorted(res, key=str))
    print("%d passed, %d failed" % (results["passed"], results["failed"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
