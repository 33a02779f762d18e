/*
 * out.c - every output file is written to a temporary file in the same
 * directory and renamed over the target only when the whole content was
 * written without error, so a failed or killed run never leaves a partial
 * file.  A target whose bytes would not change is left alone, keeping its
 * mtime, so build tools see nothing new.
 */
#include "mcgen.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* true when the two open files hold the same bytes */
static bool same_content(FILE *a, FILE *b)
{
    static char x[65536], y[65536];
    rewind(a);
    rewind(b);
    for (;;) {
        size_t n = fread(x, 1, sizeof x, a);
        size_t m = fread(y, 1, sizeof y, b);
        if (n != m || memcmp(x, y, n) != 0)
            return false;
        if (n < sizeof x)
            return !ferror(a) && !ferror(b);
    }
}

bool out_write(const char *path, bool (*write)(FILE *f, void *ctx), void *ctx)
{
    Buf tmp = {0};
    buf_printf(&tmp, "%s.mcgen-XXXXXX", path);
    int fd = mkstemp(tmp.s);
    if (fd < 0) {
        diag_plain(DIAG_ERROR, "cannot create a temporary file for '%s': %s", path,
                   strerror(errno));
        buf_free(&tmp);
        return false;
    }
    FILE *f = fdopen(fd, "w+b");
    if (!f) {
        diag_plain(DIAG_ERROR, "cannot write '%s': %s", tmp.s, strerror(errno));
        close(fd);
        unlink(tmp.s);
        buf_free(&tmp);
        return false;
    }
    bool ok = write(f, ctx);
    if (ok && (fflush(f) != 0 || ferror(f))) {
        diag_plain(DIAG_ERROR, "cannot write '%s': %s", path, strerror(errno));
        ok = false;
    }
    if (ok) {
        FILE *old = fopen(path, "rb");
        bool same = old && same_content(f, old);
        if (old)
            fclose(old);
        if (same) {
            fclose(f);
            unlink(tmp.s);
            buf_free(&tmp);
            return true;
        }
    }
    if (ok) {
        /* mkstemp makes the file 0600; outputs get the usual 0666 & ~umask */
        mode_t mask = umask(0);
        umask(mask);
        fchmod(fileno(f), 0666 & ~mask);
    }
    if (fclose(f) != 0 && ok) {
        diag_plain(DIAG_ERROR, "cannot write '%s': %s", path, strerror(errno));
        ok = false;
    }
    if (ok && rename(tmp.s, path) != 0) {
        diag_plain(DIAG_ERROR, "cannot rename '%s' to '%s': %s", tmp.s, path, strerror(errno));
        ok = false;
    }
    if (!ok)
        unlink(tmp.s);
    buf_free(&tmp);
    return ok;
}
