"""The Windows build (build/win64/mcgen.exe) run by a test layer under wine.

A layer given `--mcgen build/win64/mcgen.exe` runs its tests a second time
against the Windows binary: wrap() writes a small shell script that execs
wine on the .exe and the layer calls that script wherever it called
build/mcgen, so not one call site changes and the expected texts stay
those of the Linux run.  wine passes the exit status through and maps / to
drive Z:, so the absolute Linux paths the layers pass name the same files;
mcgen.exe writes stdout and stderr with LF line ends, as the Linux build
(tests/crosshost_test.py compares their bytes).  WINEDEBUG=-all keeps wine's own messages
out of the stderr the layers compare, and the prefix is the one the other
wine tests share ($TMPDIR/mcgen-wine unless WINEPREFIX is set), created
once.  The locale is C.UTF-8 so that wine decodes the arguments (file
names with non-ASCII characters) and the file names it meets as UTF-8,
as a Windows program sees them in UTF-16.

What cannot be the same on Windows a layer skips by name, with the reason;
everything else must pass as it does on Linux.
"""
import atexit
import os
import shlex
import shutil
import subprocess
import tempfile


wrapped = []


def running():
    """Whether this layer runs the Windows build (wrap() wrapped it)."""
    return bool(wrapped)


def is_windows(mcgen):
    """Whether the binary a layer was given is the Windows one."""
    return mcgen.lower().endswith(".exe")


def env():
    """The environment of a wine run."""
    e = dict(os.environ)
    e["WINEDEBUG"] = "-all"
    e.setdefault("WINEPREFIX", os.path.join(tempfile.gettempdir(), "mcgen-wine"))
    e["LC_ALL"] = "C.UTF-8"
    return e


def absent(mcgen):
    """Why the binary cannot run here (wine or the .exe missing), or None."""
    if not is_windows(mcgen):
        return None
    if not shutil.which("wine"):
        return "wine not installed (./setup installs it)"
    if not os.path.exists(mcgen):
        return "%s not built (ninja %s needs mingw-w64)" % (mcgen, os.path.relpath(mcgen))
    return None


def wrap(mcgen):
    """A command that runs mcgen: itself for the Linux build; for the .exe,
    a script that execs wine on it (removed when the layer exits).  The
    first wine start in a fresh prefix creates it (several seconds), so it
    happens here rather than inside the first timed test; a wine client
    kept running until the layer exits keeps one wineserver up for all
    its runs (below)."""
    if not is_windows(mcgen):
        return mcgen
    d = tempfile.mkdtemp(prefix="mcgen-wine-run-")
    atexit.register(shutil.rmtree, d, True)
    e = env()
    script = os.path.join(d, "mcgen")
    with open(script, "w", encoding="utf-8") as f:
        f.write("#!/bin/sh\nWINEDEBUG=-all WINEPREFIX=%s LC_ALL=C.UTF-8 exec wine %s \"$@\"\n"
                % (shlex.quote(e["WINEPREFIX"]), shlex.quote(os.path.abspath(mcgen))))
    os.chmod(script, 0o755)
    wrapped.append(mcgen)
    # One wine client for the whole layer: cmd.exe reading commands from a
    # pipe that stays open until the layer exits.  While it runs, every run
    # finds the same wineserver; without it, a server that wine starts on
    # its own (Debian's starts them -p0) ends with its last client, and each
    # run then pays a new server and its `wineboot --init` (about 2 s
    # instead of 0.05 s: minutes over the invalid corpus).
    # It is connected (and so the server up, started with its descriptors
    # rather than a run's pipes) once it has echoed a word.
    keeper = subprocess.Popen(["wine", "cmd"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, env=e)
    atexit.register(_release, keeper)
    keeper.stdin.write(b"echo mcgen-wine-ready\r\n")
    keeper.stdin.flush()
    for line in keeper.stdout:
        if b"mcgen-wine-ready" in line and not line.rstrip().endswith(b"echo mcgen-wine-ready"):
            break
    subprocess.run([script, "--version"], capture_output=True, env=e)
    return script


def _release(keeper):
    """Ends the layer's wine client: EOF on its commands."""
    keeper.stdin.close()
    keeper.stdout.close()
    try:
        keeper.wait(timeout=30)
    except subprocess.TimeoutExpired:
        keeper.kill()
        keeper.wait()


def command_or_skip(mcgen):
    """wrap(mcgen), or None after printing the layer's "skipped" lines when
    the binary cannot run here."""
    why = absent(mcgen)
    if why:
        print("skipped: " + why)
        print("0 passed, 0 failed, 1 skipped")
        return None
    return wrap(mcgen)
