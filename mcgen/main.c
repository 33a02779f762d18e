/*
 * main.c - the command line.  Loads the manifest, then writes the outputs
 * that were asked for.  Exit status: 0 success, 1 errors in the input,
 * 2 usage or I/O problems.
 */
#include "mcgen.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#ifndef MCGEN_VERSION
#define MCGEN_VERSION "0.1.0"
#endif

static void usage(FILE *f)
{
    fputs("usage: mcgen [options] MANIFEST\n"
          "\n"
          "Compiles a Windows event instrumentation manifest.\n"
          "\n"
          "options:\n"
          "  --json=FILE   write the resolved model as JSON (docs/json-model.md)\n"
          "  --wevt=FILE   write the WEVT_TEMPLATE resource (TEMP.BIN) as mc.exe does\n"
          "  --mc-compat=VERSION\n"
          "                binary format of that mc.exe: 10.0.18362 (default, CRIM 5.1),\n"
          "                10.0.15063 (CRIM 3.1) or 8.1 (CRIM 3.1, MD5 template ids)\n"
          "  --rc=FILE     write the resource script that includes the message tables\n"
          "                (MSG00001.bin, ... as --message-tables names them) and the\n"
          "                --wevt file (its file name), as mc.exe writes it\n"
          "  --check-wevt=FILE\n"
          "                read a TEMP.BIN (mc's or mcgen's) strictly and summarise it;\n"
          "                with --explain=OFFSET, name the field at that offset\n"
          "  --message-tables=DIR\n"
          "                write the message table of each culture as mc.exe does:\n"
          "                DIR/MSG00001.bin for the first culture, MSG00002.bin, ...\n"
          "  --help        show this help\n"
          "  --version     show the version\n",
          f);
}

typedef struct WevtJob {
    Manifest *m;
    WevtFormat format;
    Buf bin;
} WevtJob;

static void *wevt_thread(void *arg)
{
    WevtJob *j = arg;
    wevt_build(j->m, j->format, &j->bin);
    return NULL;
}

/* --check-wevt: 0 when the file reads cleanly, 1 when it does not. */
static int check_wevt(const char *path, const char *explain)
{
    size_t n;
    char *bytes = read_file(path, &n);
    if (!bytes) {
        diag_plain(DIAG_ERROR, "cannot open '%s': %s", path, strerror(errno));
        return 2;
    }
    WevtFile f;
    Buf err = {0};
    bool ok = wevt_read(bytes, n, &f, &err);
    if (ok) {
        size_t events = 0;
        for (size_t i = 0; i < f.providers.n; i++)
            events += f.providers.v[i].events.n;
        printf("%s: CRIM %u.%u, %zu providers, %zu events\n", path, f.major, f.minor,
               f.providers.n, events);
    } else {
        diag_plain(DIAG_ERROR, "%s: %s", path, err.s);
    }
    if (explain) {
        uint64_t at = 0;
        if (parse_uint(explain, UINT32_MAX, &at))
            printf("0x%llx: %s\n", (unsigned long long)at, wevt_explain(&f, (uint32_t)at));
    }
    wevt_free(&f);
    buf_free(&err);
    free(bytes);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *json = NULL, *tables = NULL, *wevt = NULL, *input = NULL, *check = NULL;
    const char *explain = NULL, *rc = NULL;
    WevtFormat format = WEVT_V5;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-?") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            puts("mcgen " MCGEN_VERSION);
            return 0;
        } else if (strncmp(a, "--json=", 7) == 0 && a[7]) {
            json = a + 7;
        } else if (strcmp(a, "--json") == 0 && i + 1 < argc) {
            json = argv[++i];
        } else if (strncmp(a, "--rc=", 5) == 0 && a[5]) {
            rc = a + 5;
        } else if (strncmp(a, "--check-wevt=", 13) == 0 && a[13]) {
            check = a + 13;
        } else if (strncmp(a, "--explain=", 10) == 0 && a[10]) {
            explain = a + 10;
        } else if (strncmp(a, "--wevt=", 7) == 0 && a[7]) {
            wevt = a + 7;
        } else if (strncmp(a, "--mc-compat=", 12) == 0) {
            if (strcmp(a + 12, "10.0.18362") == 0)
                format = WEVT_V5;
            else if (strcmp(a + 12, "10.0.15063") == 0)
                format = WEVT_V3;
            else if (strcmp(a + 12, "8.1") == 0)
                format = WEVT_V3_MC81;
            else {
                diag_plain(DIAG_ERROR,
                           "unknown --mc-compat version '%s' (10.0.18362, 10.0.15063 or 8.1)",
                           a + 12);
                return 2;
            }
        } else if (strncmp(a, "--message-tables=", 17) == 0 && a[17]) {
            tables = a + 17;
        } else if (a[0] == '-' && a[1]) {
            diag_plain(DIAG_ERROR, "unknown option '%s' (see mcgen --help)", a);
            return 2;
        } else if (!input) {
            input = a;
        } else {
            diag_plain(DIAG_ERROR, "more than one manifest given ('%s' and '%s')", input, a);
            return 2;
        }
    }
    if (check)
        return check_wevt(check, explain);
    if (!input) {
        usage(stderr);
        return 2;
    }
    Manifest *m = manifest_load_file(input);
    if (!m) {
        diag_reset();
        return 1;
    }
    int status = 0;
    /* TEMP.BIN is built in a thread of its own while the JSON and the
     * message tables are written (wevt.c reads the model and writes only
     * its own offset annotations) */
    WevtJob job = {m, format, {0}};
    pthread_t wt;
    bool threaded = wevt && pthread_create(&wt, NULL, wevt_thread, &job) == 0;
    if (wevt && !threaded)
        wevt_thread(&job);
    if (json) {
        Out *o = out_open(json);
        json_write_model(m, o);
        if (!out_commit(o, true))
            status = 2;
    }
    if (rc) {
        /* the names the binaries get: MSG0000N.bin per culture with
         * messages, and the --wevt file's own name */
        char **names = xcalloc(m->cultures.n + 1, sizeof *names);
        for (size_t i = 0; i < m->cultures.n; i++) {
            if (!msgtable_count(m, i))
                continue;
            Buf b = {0};
            buf_printf(&b, "MSG%05zX.bin", i + 1);
            names[i] = b.s;
        }
        const char *wname = NULL;
        if (wevt) {
            const char *slash = strrchr(wevt, '/');
            wname = slash ? slash + 1 : wevt;
        }
        Buf text = {0};
        bool ok = rc_build(m, (const char *const *)names, wname, &text);
        if (ok) {
            Out *o = out_open(rc);
            out_put(o, text.s, text.len);
            if (!out_commit(o, true))
                status = 2;
        } else {
            status = 1;
        }
        for (size_t i = 0; i < m->cultures.n; i++)
            free(names[i]);
        free(names);
        buf_free(&text);
    }
    /* one table per culture; a culture without any message gets none,
     * as mc writes no file for a manifest without messages */
    for (size_t i = 0; tables && i < m->cultures.n; i++) {
        if (!msgtable_count(m, i))
            continue;
        Buf path = {0}, bin = {0};
        buf_printf(&path, "%s/MSG%05zX.bin", tables, i + 1);
        msgtable_build(m, i, &bin);
        Out *o = out_open(path.s);
        out_put(o, bin.s, bin.len);
        if (!out_commit(o, true))
            status = 2;
        buf_free(&path);
        buf_free(&bin);
    }
    if (threaded)
        pthread_join(wt, NULL);
    if (wevt) {
        Out *o = out_open(wevt);
        out_put(o, job.bin.s, job.bin.len);
        if (!out_commit(o, true))
            status = 2;
        buf_free(&job.bin);
    }
    /* The process is about to end and take the model with it; freeing a
     * large model costs time for nothing.  Sanitizer builds free it so that
     * LeakSanitizer can check that everything is reachable and freed. */
#if defined(__SANITIZE_ADDRESS__) || defined(MCGEN_FREE_AT_EXIT)
    manifest_free(m);
    diag_reset();
#endif
    return status;
}
