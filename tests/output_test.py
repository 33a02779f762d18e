#!/usr/bin/env python3
"""Output tests of build/mcgen: outputs never destroy data (out.c).

Standard output (`-`, /dev/stdout) piped into a reader or redirected into a
file, a FIFO and a character device are written in place and stay what they
are; a symlinked output keeps its link and its target gets the bytes; an
output that names an input or another output is refused (exit 2) before
anything is read or written; a failing run (a manifest error, a disk that
fills up, a file-size limit on the third output, a character the ANSI code
page cannot hold far into a header written as it is rendered) leaves every older output
byte-identical and creates nothing; SIGINT, SIGTERM and SIGHUP remove the
temporaries and kill mcgen by the same signal.
The expected bytes of an output are those mcgen writes to a regular file in
the same run's conditions (the golden test checks those against mc.exe's).
Prints "N passed, N failed, N skipped".
"""
import argparse
import errno
import os
import re
import resource
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

results = {"passed": 0, "failed": 0, "skipped": 0}


def check(ok, name, why=""):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why))


def skip(name, why):
    results["skipped"] += 1
    print("SKIP %s: %s" % (name, why))


APP = ("<instrumentationManifest xmlns='http://schemas.microsoft.com/win/2004/08/events'"
       " xmlns:win='http://manifests.microsoft.com/win/2004/08/windows/events'>\n"
       "<instrumentation><events>\n"
       "<provider name='App' guid='{00000000-0000-0000-0000-000000000001}' symbol='App'"
       " resourceFileName='app.dll' messageFileName='app.dll'>\n"
       "<events><event value='1' symbol='Hello' message='$(string.hello)'/></events>\n"
       "</provider></events></instrumentation>\n"
       "<localization><resources culture='en-US'><stringTable>"
       "<string id='hello' value='Hello'/></stringTable></resources></localization>\n"
       "</instrumentationManifest>\n")
# mc's outputs for app.man (mc-cli.md: <base>.h, <base>.rc, MSG00001.bin, <base>TEMP.BIN)
APP_OUTPUTS = ["app.h", "app.rc", "MSG00001.bin", "appTEMP.BIN"]
# a template of the engine's language (docs/templates.md)
TEMPLATE = "{% for p in providers %}{{ p.name }}\n{% endfor %}"
SUMMARY = re.compile(r"^\d+ errors?(, \d+ warnings?)?$|^\d+ warnings?$")


def run(mcgen, *args, cwd=None, **kw):
    """mcgen with args; a run that hangs is killed and gets status -1."""
    kw.setdefault("capture_output", True)
    kw.setdefault("timeout", 60)
    try:
        return subprocess.run([mcgen, *args], cwd=cwd, **kw)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(args, -1, b"", b"hangs (killed)")


def shell(cmd, timeout=60):
    """A bash pipeline in a process group of its own, killed whole if it
    hangs (status -1)."""
    p = subprocess.Popen(["bash", "-o", "pipefail", "-c", cmd], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return subprocess.CompletedProcess(cmd, p.returncode, out, err)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return subprocess.CompletedProcess(cmd, -1, b"", b"hangs (killed)")


def error_lines(stderr):
    """The diagnostics of a run, without a closing "N errors" summary line."""
    text = stderr.decode() if isinstance(stderr, bytes) else stderr
    return [l for l in text.splitlines() if not SUMMARY.match(l)]


def write(path, data):
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def snapshot(d):
    """Every file under d: its kind, bytes (a link's text) and mtime, by
    relative path."""
    out = {}
    for base, dirs, files in os.walk(d):
        for name in dirs + files:
            p = os.path.join(base, name)
            st = os.lstat(p)
            data = read(p) if stat.S_ISREG(st.st_mode) else os.readlink(p) if stat.S_ISLNK(
                st.st_mode) else None
            # a directory's mtime moves when a temporary comes and goes
            mtime = None if stat.S_ISDIR(st.st_mode) else st.st_mtime_ns
            out[os.path.relpath(p, d)] = (stat.S_IFMT(st.st_mode), data, mtime)
    return out


def untouched(before, after):
    """'' when `after` is `before`, else what changed (for a FAIL line)."""
    new = sorted(set(after) - set(before))
    gone = sorted(set(before) - set(after))
    changed = sorted(p for p in before if p in after and before[p] != after[p])
    why = []
    if new:
        why.append("created " + ", ".join(new))
    if gone:
        why.append("removed " + ", ".join(gone))
    if changed:
        why.append("changed " + ", ".join(changed))
    return "; ".join(why)


def failing_run_keeps_outputs(mcgen, d, manifest, text, args, outputs, status=(1,)):
    """Writes `manifest` (text) into d beside older versions of each of
    `outputs`, runs mcgen with args there and returns '' when the run exited
    with one of `status`, left each older output byte-identical (and its mtime),
    and created nothing; else what went wrong.  For the whole invalid
    corpus as well: any manifest, any outputs."""
    os.makedirs(d, exist_ok=True)
    write(os.path.join(d, manifest), text)
    for i, name in enumerate(outputs):
        p = os.path.join(d, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        write(p, b"older %s, %d\n" % (name.encode(), i))
        os.utime(p, ns=(1_000_000_000, 1_000_000_000))
    before = snapshot(d)
    r = run(mcgen, *args, manifest, cwd=d)
    why = untouched(before, snapshot(d))
    if r.returncode not in status:
        why = "exit %d, expected %s: %s %s" % (r.returncode, status, r.stderr.decode(), why)
    return why


def test_stdout(mcgen, tmp):
    app = os.path.join(tmp, "app.man")
    write(app, APP)
    ref = os.path.join(tmp, "app.json")
    r = run(mcgen, "--json=" + ref, app)
    if r.returncode != 0:
        check(False, "--json to a regular file", r.stderr.decode())
        return
    want = read(ref)
    link = os.readlink("/dev/stdout") if os.path.islink("/dev/stdout") else None
    for name in ("-", "/dev/stdout"):
        cmd = "%s --json=%s %s | %s -c 'import json,sys; json.load(sys.stdin)'" % tuple(
            map(shlex.quote, (mcgen, name, app, sys.executable)))
        r = shell(cmd)
        check(r.returncode == 0 and not r.stderr,
              "--json=%s piped into a JSON reader" % name,
              "exit %d: %s" % (r.returncode, r.stderr.decode()))
        stdout_link_kept(link, "--json=%s | reader" % name)
    for name in ("-", "/dev/stdout"):
        out = os.path.join(tmp, "redirected.json")
        with open(out, "wb") as f:
            r = run(mcgen, "--json=" + name, app, stdout=f, capture_output=False,
                    stderr=subprocess.PIPE)
        check(r.returncode == 0 and read(out) == want,
              "--json=%s > file fills the file with the JSON" % name,
              "exit %d, %d bytes, expected %d" % (r.returncode, len(read(out)), len(want)))
        stdout_link_kept(link, "--json=%s > file" % name)
        # `>>`: the descriptor's own offset and flags, not a reopened file
        with open(out, "wb") as f:
            f.write(b"kept\n")
        with open(out, "ab") as f:
            r = run(mcgen, "--json=" + name, app, stdout=f, capture_output=False,
                    stderr=subprocess.PIPE)
        check(r.returncode == 0 and read(out) == b"kept\n" + want,
              "--json=%s >> file appends the JSON" % name, "exit %d, got %r..." % (
                  r.returncode, read(out)[:20]))
        stdout_link_kept(link, "--json=%s >> file" % name)


def test_reader_gone(mcgen, tmp):
    """A pipe whose reader is gone: an error (exit 2), not SIGPIPE halfway
    through the commit, so the run's regular outputs are not written and no
    temporary is left."""
    d = os.path.join(tmp, "epipe")
    os.makedirs(d)
    write(os.path.join(d, "app.man"), APP)
    write(os.path.join(d, "app.rc"), "older\n")
    before = snapshot(d)
    rd, wr = os.pipe()
    os.close(rd)
    try:
        r = run(mcgen, "--json=-", "--rc=app.rc", "--wevt=app.bin", "app.man", cwd=d, stdout=wr,
                capture_output=False, stderr=subprocess.PIPE)
    finally:
        os.close(wr)
    why = untouched(before, snapshot(d))
    lines = error_lines(r.stderr)
    check(r.returncode == 2 and not why and lines == ["mcgen: error: cannot write '-': " +
                                                      os.strerror(errno.EPIPE)],
          "--json=- into a pipe without a reader: exit 2, the other outputs not written",
          "exit %d, %s, stderr %r" % (r.returncode, why, lines))


def stdout_link_kept(link, what):
    """Checks that /dev/stdout is still the link `link` after `what`."""
    now = os.readlink("/dev/stdout") if os.path.islink("/dev/stdout") else None
    check(link is not None and now == link, "/dev/stdout is still a symlink after " + what,
          "was %r, now %r" % (link, now))
    if link and now != link:
        # a broken mcgen run as root replaced it: put the machine's link back
        os.remove("/dev/stdout")
        os.symlink(link, "/dev/stdout")


def test_fifo(mcgen, tmp):
    d = os.path.join(tmp, "fifo")
    os.makedirs(d)
    app = os.path.join(d, "app.man")
    write(app, APP)
    r = run(mcgen, "--json=" + os.path.join(d, "ref.json"), app)
    want = read(os.path.join(d, "ref.json"))
    fifo = os.path.join(d, "out.fifo")
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", fifo], stdout=subprocess.PIPE)
    r = run(mcgen, "--json=" + fifo, app, timeout=20)
    try:
        got = reader.communicate(timeout=5)[0]
    except subprocess.TimeoutExpired:
        reader.kill()
        got = reader.communicate()[0]
    check(r.returncode == 0 and got == want and stat.S_ISFIFO(os.lstat(fifo).st_mode),
          "a FIFO output with a reader gets the JSON and stays a FIFO",
          "exit %d, %d bytes, expected %d" % (r.returncode, len(got), len(want)))
    # a failing run writes nothing to it (and does not wait for a reader)
    bad = os.path.join(d, "bad.man")
    write(bad, APP.replace("string.hello", "string.gone"))
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        r = run(mcgen, "--json=" + fifo, bad, timeout=20)
        try:
            got = os.read(fd, 65536)
        except BlockingIOError:
            got = b""
    finally:
        os.close(fd)
    check(r.returncode == 1 and got == b"", "a failing run writes nothing into a FIFO",
          "exit %d, %d bytes" % (r.returncode, len(got)))


def test_device(mcgen, tmp):
    d = os.path.join(tmp, "dev")
    os.makedirs(d)
    app = os.path.join(d, "app.man")
    write(app, APP)
    if os.geteuid() != 0:
        r = run(mcgen, "--json=/dev/null", app)
        st = os.stat("/dev/null")
        check(r.returncode == 0 and stat.S_ISCHR(st.st_mode), "--json=/dev/null",
              "exit %d: %s" % (r.returncode, r.stderr.decode()))
        skip("a character device made with mknod stays a device",
             "not root: mknod needs it (checked /dev/null instead)")
        return
    node = os.path.join(d, "null")
    null = os.stat("/dev/null")
    os.mknod(node, 0o666 | stat.S_IFCHR, null.st_rdev)
    r = run(mcgen, "--json=" + node, "--wevt=" + os.path.join(d, "app.bin"), app)
    st = os.lstat(node)
    check(r.returncode == 0 and stat.S_ISCHR(st.st_mode) and st.st_rdev == null.st_rdev
          and sorted(os.listdir(d)) == ["app.bin", "app.man", "null"],
          "a character device made with mknod stays a device (no temporary beside it)",
          "exit %d, mode %o, files %s: %s" % (r.returncode, st.st_mode, os.listdir(d),
                                             r.stderr.decode()))


def test_symlinks(mcgen, tmp):
    d = os.path.join(tmp, "links")
    os.makedirs(os.path.join(d, "real"))
    os.makedirs(os.path.join(d, "build"))
    app = os.path.join(d, "app.man")
    write(app, APP)
    r = run(mcgen, "--json=" + os.path.join(d, "ref.json"), app)
    want = read(os.path.join(d, "ref.json"))
    target = os.path.join(d, "real", "model.json")
    write(target, "older\n")
    os.chmod(target, 0o640)
    # a chain: build/model.json -> ../hop.json -> real/model.json (relative links)
    os.symlink("real/model.json", os.path.join(d, "hop.json"))
    os.symlink("../hop.json", os.path.join(d, "build", "model.json"))
    r = run(mcgen, "--json=build/model.json", app, cwd=d)
    link = os.path.join(d, "build", "model.json")
    check(r.returncode == 0 and os.path.islink(link) and os.readlink(link) == "../hop.json"
          and os.path.islink(os.path.join(d, "hop.json")) and read(target) == want,
          "a symlinked output (a chain of two) keeps its links; the target gets the bytes",
          "exit %d: %s" % (r.returncode, r.stderr.decode()))
    check(stat.S_IMODE(os.stat(target).st_mode) == 0o640
          and not [f for f in os.listdir(os.path.join(d, "real")) if ".mcgen-" in f]
          and not [f for f in os.listdir(os.path.join(d, "build")) if ".mcgen-" in f],
          "the replaced target keeps its mode; no temporary left anywhere",
          "mode %o, %s" % (os.stat(target).st_mode, os.listdir(os.path.join(d, "real"))))
    # a dangling link: its target is created, the link kept
    os.symlink("real/new.json", os.path.join(d, "dangling.json"))
    r = run(mcgen, "--json=dangling.json", app, cwd=d)
    check(r.returncode == 0 and os.path.islink(os.path.join(d, "dangling.json"))
          and read(os.path.join(d, "real", "new.json")) == want,
          "a dangling symlinked output: its target created, the link kept",
          "exit %d: %s" % (r.returncode, r.stderr.decode()))


def test_clashes(mcgen, tmp):
    d = os.path.join(tmp, "clash")
    os.makedirs(d)
    write(os.path.join(d, "app.man"), APP)
    write(os.path.join(d, "t.j2"), TEMPLATE)
    write(os.path.join(d, "a.j2"), TEMPLATE)
    write(os.path.join(d, "b.j2"), TEMPLATE + "again\n")
    os.symlink("app.man", os.path.join(d, "alias.man"))
    cases = [
        (["--json=app.man", "app.man"], "mcgen: error: output 'app.man' is an input of this run"),
        (["--render=t.j2:t.j2", "app.man"], "mcgen: error: output 't.j2' is an input of this run"),
        (["--json=x", "--rc=x", "app.man"], "mcgen: error: output 'x' is named twice in this run"),
        (["--render=a.j2:o", "--render=b.j2:o", "app.man"],
         "mcgen: error: output 'o' is named twice in this run"),
        (["--json=-", "--rc=-", "app.man"], "mcgen: error: output '-' is named twice in this run"),
        (["--json=./x", "--wevt=x", "app.man"],
         "mcgen: error: outputs './x' and 'x' are the same file"),
        (["--json=alias.man", "app.man"],
         "mcgen: error: output 'alias.man' is the input 'app.man' of this run"),
        (["-h", "sub/..", "-e", "man", "app.man"],
         "mcgen: error: output 'sub/../app.man' is the input 'app.man' of this run"),
        (["--json=sub/../new.json", "--rc=new.json", "app.man"],
         "mcgen: error: outputs 'sub/../new.json' and 'new.json' are the same file"),
        (["-e", "man", "app.man"], "mcgen: error: output 'app.man' is an input of this run"),
        (["--depfile=app.man", "--json=j", "app.man"],
         "mcgen: error: output 'app.man' is an input of this run"),
    ]
    os.makedirs(os.path.join(d, "sub"))
    for args, msg in cases:
        write(os.path.join(d, "app.man"), APP)  # whatever an earlier case did to it
        before = snapshot(d)
        r = run(mcgen, *args, cwd=d)
        why = untouched(before, snapshot(d))
        lines = error_lines(r.stderr)
        check(r.returncode == 2 and lines == [msg] and not why and not r.stdout,
              "refused with exit 2, inputs unchanged: mcgen " + " ".join(args),
              "exit %d, stderr %r, %s" % (r.returncode, lines, why))
    # the diagnostics document does not go into the file refused: it goes to
    # standard output (docs/diagnostics.md: the document's "message")
    args = ["--validate", "--diagnostics-format=json", "--diagnostics-output=app.man", "app.man"]
    before = snapshot(d)
    r = run(mcgen, *args, cwd=d)
    why = untouched(before, snapshot(d))
    msg = "output 'app.man' is an input of this run"
    check(r.returncode == 2 and not why and msg.encode() in r.stdout,
          "refused with exit 2, the document on standard output: mcgen " + " ".join(args),
          "exit %d, stdout %r, %s" % (r.returncode, r.stdout[:200], why))


def test_failing_run(mcgen, tmp):
    bad = APP.replace("string.hello", "string.gone")
    why = failing_run_keeps_outputs(mcgen, os.path.join(tmp, "fail"), "app.man", bad, ["-um"],
                                    APP_OUTPUTS)
    check(not why, "a failing compile (undefined string) leaves every older output "
          "byte-identical and creates nothing", why)
    why = failing_run_keeps_outputs(mcgen, os.path.join(tmp, "fail-qq"), "app.man",
                                    APP.replace("en-US", "qq-QQ"), ["-um"], APP_OUTPUTS)
    check(not why, "a failing compile (culture without a language id) leaves every older "
          "output byte-identical and creates nothing", why)
    # a broken template: exit 1 today, 2 once a template's error is a usage error
    write(os.path.join(tmp, "fail-render.j2"), "{{ providers | no_such_filter }}\n")
    why = failing_run_keeps_outputs(
        mcgen, os.path.join(tmp, "fail-all"), "app.man", APP,
        ["--json=app.json", "--rc=app.rc", "--wevt=appTEMP.BIN", "--message-tables=tables",
         "--depfile=app.d", "--render=%s:app.txt" % os.path.join(tmp, "fail-render.j2")],
        ["app.json", "app.rc", "appTEMP.BIN", "tables/MSG00001.bin", "app.d", "app.txt"],
        status=(1, 2))
    check(not why, "a failing --render leaves every older output of the run byte-identical",
          why)
    # the header is written as it is rendered: a character the ANSI code page
    # cannot hold (U+4E2D) in the second provider's name, after 3,000 events
    # of the first (far past the first piece handed to the file), fails the
    # run with every older output as it was
    events = "".join("<event value='%d' symbol='E%d'/>" % (i, i) for i in range(2, 3001))
    late = APP.replace("message='$(string.hello)'/>",
                       "message='$(string.hello)'/>" + events).replace(
        "</provider>", "</provider>\n<provider name='App\u4e2d' symbol='App2'"
        " guid='{00000000-0000-0000-0000-000000000002}' resourceFileName='app.dll'"
        " messageFileName='app.dll'/>", 1)
    d = os.path.join(tmp, "fail-ansi")
    why = failing_run_keeps_outputs(mcgen, d, "app.man", late, ["-um"], APP_OUTPUTS)
    r = run(mcgen, "-um", "app.man", cwd=d)
    want = ("mcgen: error: app.h: a character cannot be written in the ANSI code page "
            "(Windows-1252); use -cp utf-8 or -cp utf-16")
    if not why and error_lines(r.stderr) != [want]:
        why = "stderr %r" % r.stderr.decode()
    check(not why, "a header character the ANSI code page cannot hold, 3,000 events into the "
          "header, fails the run (one error) and leaves every older output byte-identical", why)
    r = run(mcgen, "-um", "-cp", "utf-8", "app.man", cwd=d)
    h = read(os.path.join(d, "app.h")) if r.returncode == 0 else b""
    check(r.returncode == 0 and h.startswith(b"\xef\xbb\xbf") and len(h) > 65536 and
          "provider \"App\u4e2d\"".encode() in h and b"\r\n" in h and b"\n" not in
          h.replace(b"\r\n", b""),
          "the same header with -cp utf-8: a byte-order mark, the name in UTF-8, CR LF line ends",
          "exit %d, %d bytes" % (r.returncode, len(h)))


def small_tmpfs(tmp, dirname, name):
    """A 64 KiB tmpfs mounted at tmp/dirname, or None after a SKIP line for
    the test `name` (mounting needs root)."""
    if os.geteuid() != 0:
        skip(name, "not root: mounting a small tmpfs needs it")
        return None
    mnt = os.path.join(tmp, dirname)
    os.makedirs(mnt)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt],
                       capture_output=True)
    if r.returncode != 0:
        skip(name, "cannot mount a tmpfs: " + r.stderr.decode().strip())
        return None
    return mnt


def test_disk_full(mcgen, tmp):
    name = "a full disk leaves every older output byte-identical, no temporary left"
    mnt = small_tmpfs(tmp, "full", name)
    if not mnt:
        return
    try:
        write(os.path.join(mnt, "app.man"), APP)
        for i, n in enumerate(APP_OUTPUTS):
            write(os.path.join(mnt, n), b"older %d\n" % i)
        # fill the disk but for a few blocks: the header (-um, ~17 KB) cannot fit
        free = os.statvfs(mnt)
        left = 2 * free.f_frsize
        write(os.path.join(mnt, "filler"), b"\0" * max(0, free.f_bavail * free.f_frsize - left))
        before = snapshot(mnt)
        r = run(mcgen, "-um", "app.man", cwd=mnt)
        why = untouched(before, snapshot(mnt))
        lines = error_lines(r.stderr)
        check(r.returncode == 2 and not why and len(lines) == 1
              and "No space left on device" in lines[0], name,
              "exit %d, %s, stderr %r" % (r.returncode, why, lines))
    finally:
        subprocess.run(["umount", mnt])


def test_disk_full_half_way(mcgen, tmp):
    """../shared/repro/partial-commit-disk-full.sh: the outputs of an older
    manifest on a 64 KiB disk, then a manifest whose message table (the
    third output) does not fit in what is left."""
    name = ("a disk that fills up on the third output (-z x) leaves every older output "
            "byte-identical, no temporary left")
    mnt = small_tmpfs(tmp, "full-half-way", name)
    if not mnt:
        return
    try:
        # the manifests outside: the new one is as large as the disk
        old, new = os.path.join(tmp, "old.man"), os.path.join(tmp, "new.man")
        write(old, APP)
        write(new, big_messages(8, 8000))
        r = run(mcgen, "-um", "-z", "x", old, cwd=mnt)
        before = snapshot(mnt)
        r2 = run(mcgen, "-um", "-z", "x", new, cwd=mnt)
        why = untouched(before, snapshot(mnt))
        lines = error_lines(r2.stderr)
        want = "mcgen: error: cannot write 'x_MSG00001.bin': %s" % os.strerror(errno.ENOSPC)
        check(r.returncode == 0 and r2.returncode == 2 and not why and lines == [want], name,
              "older run exit %d, exit %d, %s, stderr %r" % (r.returncode, r2.returncode, why,
                                                             lines))
    finally:
        subprocess.run(["umount", mnt])


def big_messages(n, size):
    """APP with n events, each with a message of `size` characters: the
    message table (UTF-16, msgtable.md) outgrows the header and the .rc."""
    events = "".join("<event value='%d' symbol='E%d' message='$(string.m%d)'/>" % (i + 1, i, i)
                     for i in range(n))
    strings = "".join("<string id='m%d' value='%s'/>" % (i, chr(ord("a") + i % 26) * size)
                      for i in range(n))
    return (APP.replace("<event value='1' symbol='Hello' message='$(string.hello)'/>", events)
            .replace("<string id='hello' value='Hello'/>", strings))


def test_file_size_limit(mcgen, tmp):
    """A disk that refuses the third output half-way, without root: the
    file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored) makes a write past it
    fail with EFBIG.  mc's outputs come in the order header, .rc,
    MSG00001.bin, TEMP.BIN (--print-outputs): the first two are small, the
    message table is not."""
    name = ("the third output failing half-way (file size limit) leaves every older output "
            "byte-identical, no temporary left")
    d = os.path.join(tmp, "fsize")
    os.makedirs(d)
    write(os.path.join(d, "app.man"), APP)
    r = run(mcgen, "-um", "app.man", cwd=d)
    if r.returncode != 0:
        check(False, name, "the older outputs: exit %d %r" % (r.returncode, r.stderr))
        return
    # 8 messages of 8,000 characters: a table of 128 KB and more; the
    # header and the .rc stay under 32 KB
    write(os.path.join(d, "app.man"), big_messages(8, 8000))
    limit = 64 * 1024
    order = run(mcgen, "--print-outputs", "-um", "app.man", cwd=d).stdout.decode().split()
    before = snapshot(d)

    def limited():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    r = run(mcgen, "-um", "app.man", cwd=d, preexec_fn=limited)
    why = untouched(before, snapshot(d))
    lines = error_lines(r.stderr)
    want = "mcgen: error: cannot write 'MSG00001.bin': %s" % os.strerror(errno.EFBIG)
    check(order == APP_OUTPUTS and r.returncode == 2 and not why and lines == [want], name,
          "outputs %s, exit %d, %s, stderr %r (expected %r)" % (order, r.returncode, why, lines,
                                                                want))
    # without the limit the same run succeeds: the limit was what failed it
    r = run(mcgen, "-um", "app.man", cwd=d)
    sizes = [os.path.getsize(os.path.join(d, n)) for n in APP_OUTPUTS]
    check(r.returncode == 0 and sizes[0] < limit and sizes[1] < limit and sizes[2] > limit,
          "without the limit: header and .rc under it, the message table over it",
          "exit %d, sizes %s" % (r.returncode, sizes))


def big_manifest(path):
    """A manifest that takes mcgen a while to write (bench/gen_manifest.py,
    about 8 MB: a 30 MB header), so that a signal finds its temporaries."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    subprocess.run([sys.executable, os.path.join(root, "bench", "gen_manifest.py"),
                    "--size-mb", "8", "--out", path], check=True, capture_output=True)


def killed_while_writing(mcgen, d, sig):
    """Runs mcgen -um -z x on d/../big.man in d and sends it `sig` as soon
    as one of its temporaries exists.  (exit status, seen a temporary)."""
    def defaults():
        # a test run under nohup must not hand mcgen an ignored SIGHUP
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, signal.SIG_DFL)

    before = set(os.listdir(d))
    p = subprocess.Popen([mcgen, "-um", "-z", "x", "-Wno-unused-string",
                          os.path.join(d, "..", "big.man")], cwd=d, preexec_fn=defaults,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen = False
    while p.poll() is None and not seen:
        seen = any(".mcgen-" in n for n in set(os.listdir(d)) - before)
        if not seen:
            time.sleep(0.002)
    if seen:
        p.send_signal(sig)
    try:
        return p.wait(timeout=120), seen
    except subprocess.TimeoutExpired:
        p.kill()
        return p.wait(), seen


def test_signals(mcgen, tmp):
    """SIGINT, SIGTERM, SIGHUP while the temporaries exist: mcgen removes
    them and dies of the same signal; the older outputs (of another
    manifest) and a temporary that is not this run's stay as they were.
    SIGKILL cannot be caught: it may leave a temporary, never a partial or
    missing output (README.md)."""
    top = os.path.join(tmp, "signals")
    os.makedirs(top)
    big_manifest(os.path.join(top, "big.man"))
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL):
        d = os.path.join(top, sig.name)
        os.makedirs(d)
        write(os.path.join(d, "app.man"), APP)
        r = run(mcgen, "-um", "-z", "x", "app.man", cwd=d)
        # left by an earlier run that was killed: not this run's to remove
        write(os.path.join(d, "x.h.mcgen-Stale1"), b"an older run's temporary\n")
        before = snapshot(d)
        status, seen = killed_while_writing(mcgen, d, sig)
        after = snapshot(d)
        if sig == signal.SIGKILL:
            temps = [n for n in set(after) - set(before) if ".mcgen-" in n]
            for n in temps:
                del after[n]
            why = untouched(before, after)
            check(r.returncode == 0 and seen and status == -sig and not why,
                  "SIGKILL while writing: every older output byte-identical (a temporary may "
                  "remain: %d did)" % len(temps),
                  "older run exit %d, temporary seen %s, status %d, %s" %
                  (r.returncode, seen, status, why))
            continue
        why = untouched(before, after)
        check(r.returncode == 0 and seen and status == -sig and not why,
              "%s while writing: its temporaries removed, killed by %s, every older output "
              "byte-identical" % (sig.name, sig.name),
              "older run exit %d, temporary seen %s, status %d (expected %d), %s" %
              (r.returncode, seen, status, -sig, why))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", default="build/mcgen")
    args = ap.parse_args()
    mcgen = os.path.abspath(args.mcgen)
    tmp = tempfile.mkdtemp(prefix="mcgen-output-")
    try:
        test_stdout(mcgen, tmp)
        test_reader_gone(mcgen, tmp)
        test_fifo(mcgen, tmp)
        test_device(mcgen, tmp)
        test_symlinks(mcgen, tmp)
        test_clashes(mcgen, tmp)
        test_failing_run(mcgen, tmp)
        test_disk_full(mcgen, tmp)
        test_disk_full_half_way(mcgen, tmp)
        test_file_size_limit(mcgen, tmp)
        test_signals(mcgen, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed, %d skipped" % (results["passed"], results["failed"],
                                                 results["skipped"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
