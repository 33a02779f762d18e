/*
 * out.c - output files.  Content goes through an Out: while it matches
 * the file already at the target path byte for byte, nothing is written
 * (the old file is only read, once); at the first difference a temporary
 * file is created in the same directory, the matching prefix copied into
 * it, and everything after written to it.  out_commit renames it over the
 * target only when every write succeeded, so a failed or killed run never
 * leaves a partial file, and an unchanged output keeps its bytes and its
 * mtime, so build tools see nothing new.
 */
#include "mcgen.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct Out {
    const char *path;
    FILE *old;        /* the existing file, while the content still matches it */
    uint64_t matched; /* bytes of `old` matched so far */
    FILE *tmp;
    Buf tmp_path;
    bool failed; /* a diagnostic was given */
};

static void fail(Out *o, const char *what, const char *path)
{
    if (!o->failed)
        diag_io("%s '%s': %s", what, path, strerror(errno));
    o->failed = true;
}

/* Starts writing to a temporary file: the `matched` bytes of the old file
 * first. */
static void diverge(Out *o)
{
    buf_printf(&o->tmp_path, "%s.mcgen-XXXXXX", o->path);
    int fd = mkstemp(o->tmp_path.s);
    if (fd < 0) {
        buf_reset(&o->tmp_path);
        fail(o, "cannot create a temporary file for", o->path);
        return;
    }
    o->tmp = fdopen(fd, "wb");
    if (!o->tmp) {
        close(fd);
        unlink(o->tmp_path.s);
        buf_reset(&o->tmp_path);
        fail(o, "cannot write", o->path);
        return;
    }
    if (o->old) {
        char buf[65536];
        rewind(o->old);
        uint64_t left = o->matched;
        while (left) {
            size_t n = fread(buf, 1, left < sizeof buf ? (size_t)left : sizeof buf, o->old);
            if (n == 0) {
                fail(o, "cannot read", o->path);
                break;
            }
            fwrite(buf, 1, n, o->tmp);
            left -= n;
        }
        fclose(o->old);
        o->old = NULL;
    }
}

Out *out_open(const char *path)
{
    Out *o = xcalloc(1, sizeof *o);
    o->path = path;
    o->old = fopen(path, "rb");
    if (!o->old)
        diverge(o);
    return o;
}

void out_put(Out *o, const void *p, size_t n)
{
    if (o->failed || n == 0)
        return;
    if (o->old) {
        char buf[65536];
        const char *q = p;
        size_t done = 0;
        while (done < n) {
            size_t want = n - done < sizeof buf ? n - done : sizeof buf;
            size_t got = fread(buf, 1, want, o->old);
            if (got != want || memcmp(buf, q + done, want) != 0)
                break;
            done += want;
        }
        if (done == n) {
            o->matched += n;
            return;
        }
        diverge(o);
        if (o->failed)
            return;
    }
    if (fwrite(p, 1, n, o->tmp) != n)
        fail(o, "cannot write", o->path);
}

bool out_commit(Out *o, bool ok)
{
    ok = ok && !o->failed;
    if (ok && o->old) {
        /* everything matched: unchanged if the old file ends here too */
        int c = fgetc(o->old);
        if (c == EOF) {
            fclose(o->old);
            free(o);
            return true;
        }
        diverge(o);
        ok = !o->failed;
    }
    if (o->old)
        fclose(o->old);
    if (o->tmp) {
        if (ok && (fflush(o->tmp) != 0 || ferror(o->tmp)))
            fail(o, "cannot write", o->path), ok = false;
        if (ok) {
            /* mkstemp makes the file 0600; outputs get 0666 & ~umask */
            mode_t mask = umask(0);
            umask(mask);
            fchmod(fileno(o->tmp), 0666 & ~mask);
        }
        if (fclose(o->tmp) != 0 && ok)
            fail(o, "cannot write", o->path), ok = false;
        if (ok && rename(o->tmp_path.s, o->path) != 0)
            fail(o, "cannot rename a temporary file to", o->path), ok = false;
        if (!ok)
            unlink(o->tmp_path.s);
    }
    buf_free(&o->tmp_path);
    free(o);
    return ok;
}
