/*
 * out.c - output files, committed together or not at all.  A run opens
 * every output it writes in one OutSet and puts bytes into each; nothing
 * reaches a target before outset_commit, and then only when the run had no
 * error.
 *
 * What a target is decides how it is written:
 *   - A regular file (or a name that does not exist yet) is compared with
 *     the bytes put while they match (the old file is only read, once); at
 *     the first difference a temporary `<target>.mcgen-XXXXXX` is created in
 *     the target's own directory, the matching prefix copied into it and
 *     the rest written after.  The commit renames it over the target, so a
 *     failed or killed run never leaves a partial or missing output (a kill
 *     may leave a temporary), and an unchanged output keeps its bytes and
 *     its mtime: build tools see nothing new.  An output patched after
 *     its bytes were put (out_patch: TEMP.BIN's sizes and offsets) cannot
 *     be compared as it goes: it goes to its temporary from the first
 *     patch, and the complete temporary is compared with the old file,
 *     and removed when they are equal.
 *   - A symbolic link is followed, through chains, to the file it finally
 *     names; that file is the one replaced (its temporary beside it), and
 *     the link stays a link.
 *   - Anything else (a character device such as /dev/null or a terminal, a
 *     FIFO, a socket), `-` (standard output) and the links of /proc that
 *     name an open descriptor (/dev/stdout, /dev/fd/N) is written in place:
 *     opened for writing at commit time, never read to compare, never
 *     renamed over, so it is never replaced by a regular file.  Its bytes
 *     wait in an anonymous tmpfile() until then: a failed run writes nothing
 *     to a pipe either, the streamed JSON of a large model does not sit in
 *     memory, and a killed run leaves no file behind.  A descriptor of
 *     this process (`-`, /dev/stdout, /dev/fd/N) is written through that
 *     descriptor, at its own offset and with its own flags (`>>`), not
 *     reopened.
 * The commit makes every temporary complete first, then writes the
 * in-place targets (which cannot be taken back), then renames: any failure
 * before the renames leaves every old output byte-identical.
 *
 * A run that ends early takes its temporaries with it: SIGINT, SIGTERM and
 * SIGHUP (on Windows Ctrl-C, Ctrl-Break and the console closing; os.h)
 * remove them and then end the process by the same signal (the shell sees
 * 128+N; Windows: STATUS_CONTROL_C_EXIT), and so does running out of
 * memory.  Both walk one
 * list, `temps`, which a signal handler may walk at any moment and on any
 * thread: nodes are only pushed (a compare-and-swap: two threads may
 * create temporaries), each with its path complete before it is
 * published, never freed, and each with a `live` flag that whoever
 * removes or renames the file takes first, so the handler never removes a
 * file that is no longer a temporary of ours.  SIGKILL cannot be caught:
 * it may leave a temporary beside its target, which the next run leaves
 * alone (it cannot tell it from another run's).
 *
 * out_check_paths refuses a run whose outputs name one of its inputs or
 * one another, before anything is read or written.
 *
 * Everything the host does (files, links, temporaries, the atomic
 * replace, interrupts) goes through os.h; on Windows a target is replaced
 * with MoveFileExW (os_win.c says why), `-`, NUL, CON and \\.\ devices are
 * written in place, and a symbolic link is followed as on POSIX.
 */
#include "mcgen.h"
#include "os.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct Out {
    OutSet *set;
    Out *next;
    char *path;    /* as the user named it: for diagnostics */
    char *target;  /* the file written: `path` with its symlinks followed */
    bool in_place; /* not a regular file: written in place at commit */
    int fd;        /* in place: a descriptor of this process to write, or -1 */
    bool existed;  /* a regular target existed: its mode is kept */
    unsigned mode;
    FILE *old;        /* the existing file, while the content still matches it */
    uint64_t matched; /* bytes of `old` matched so far */
    FILE *tmp;        /* the temporary (in place: a tmpfile()) */
    struct Temp *temp; /* its name, while it is ours; NULL for a tmpfile() */
    bool failed;      /* a diagnostic was given */
    bool patched;     /* out_patch was used: compared with the old file when
                       * finished, as the bytes put were not final */
};

struct OutSet {
    Out *first, **last;
    bool failed;
};

/* ---- temporaries, for a run that ends early ------------------------------ */

/* One temporary file: `path` is written before the node is published and
 * never changes; `live` is set while the file is ours to remove. */
typedef struct Temp {
    struct Temp *next;
    atomic_bool live;
    char path[];
} Temp;

static _Atomic(Temp *) temps;

_Static_assert(ATOMIC_POINTER_LOCK_FREE == 2 && ATOMIC_BOOL_LOCK_FREE == 2 &&
                   ATOMIC_INT_LOCK_FREE == 2,
               "the signal handler needs lock-free atomics");

/* A file that is created, renamed or removed changes state in two steps
 * (create, then publish; claim, then rename), and an interrupt between the
 * two would leave a temporary behind.  Those steps run in a critical
 * section: the thread that runs them blocks interrupts (so a POSIX signal
 * handler does not run on it in between), and a handler on any other
 * thread (Windows runs its console handler on a thread of its own) waits
 * until `busy` is back to 0.  `dying`, set by the handler first, stops a
 * section from starting after the handler looked at `busy` (both are
 * sequentially consistent: one of the two sees the other). */
static atomic_int busy;
static atomic_bool dying;

/* false when an interrupt is ending the process: do nothing more then. */
static bool section_enter(void)
{
    os_block_interrupts();
    atomic_fetch_add(&busy, 1);
    if (!atomic_load(&dying))
        return true;
    atomic_fetch_sub(&busy, 1);
    os_unblock_interrupts();
    return false;
}

static void section_leave(void)
{
    atomic_fetch_sub(&busy, 1);
    os_unblock_interrupts();
}

static void temp_publish(Temp *t)
{
    atomic_init(&t->live, true);
    t->next = atomic_load(&temps);
    while (!atomic_compare_exchange_weak(&temps, &t->next, t))
        ;
}

/* Takes a temporary from the list's care: true when it was still ours (a
 * signal handler has not removed it). */
static bool temp_claim(Temp *t) { return atomic_exchange(&t->live, false); }

/* Async-signal-safe: atomics and os_remove only. */
static void remove_temporaries(void)
{
    for (Temp *t = atomic_load(&temps); t; t = t->next)
        if (temp_claim(t))
            os_remove(t->path);
}

/* An interrupt: once the sections under way are over, the temporaries go
 * (os.h then ends the process as the interrupt would). */
static void on_interrupt(void)
{
    atomic_store(&dying, true);
    while (atomic_load(&busy))
        os_nap();
    remove_temporaries();
}

/* Once per process. */
static void catch_interrupts(void)
{
    static bool done;
    if (done)
        return;
    done = true;
    os_on_interrupt(on_interrupt);
    util_on_out_of_memory(remove_temporaries);
}

/* Removes a temporary that is still ours. */
static void temp_remove(Temp *t)
{
    if (!section_enter())
        return;
    if (temp_claim(t))
        os_remove(t->path);
    section_leave();
}

static void fail(Out *o, const char *what, const char *path)
{
    if (!o->failed)
        diag_io("%s '%s': %s", what, path, strerror(errno));
    o->failed = true;
    o->set->failed = true;
}

/* ---- where a path leads ---------------------------------------------- */

/* The directory part of a path ("." for a bare name; its root, separator
 * kept, for a name in a root: "/", "C:\\"), heap. */
static char *dir_of(const char *path)
{
    const char *slash = os_last_sep(path);
    size_t root = os_root_len(path);
    size_t n = slash ? (size_t)(slash - path) : 0;
    if (n < root || (slash && n == 0))
        n = root ? root : 1;
    if (!n)
        return xstrdup(".");
    char *d = xmalloc(n + 1);
    memcpy(d, path, n);
    d[n] = '\0';
    return d;
}

/* A link's text taken relative to the directory of the link, heap. */
static char *link_target(const char *link, const char *text)
{
    if (os_root_len(text))
        return xstrdup(text);
    char *d = dir_of(link);
    Buf b = {0};
    buf_printf(&b, "%s/%s", d, text);
    free(d);
    return b.s;
}

typedef enum { LEADS_FILE, LEADS_IN_PLACE, LEADS_ERROR } Leads;

/* Follows `path` through its symlinks: *final (heap) is the name written,
 * *st what is there (OS_NONE when nothing is), *fd a descriptor of ours
 * it names or -1.  LEADS_ERROR with errno set. */
static Leads follow(const char *path, char **final, OsStat *st, int *fd)
{
    *fd = -1;
    memset(st, 0, sizeof *st);
    if (strcmp(path, "-") == 0) {
        *final = xstrdup(path);
        *fd = OS_STDOUT;
        if (!os_fstat(*fd, st))
            return LEADS_ERROR;
        return LEADS_IN_PLACE;
    }
    char *cur = xstrdup(path);
    *final = cur;
    for (int hops = 0; hops < 40; hops++) {
        if (!os_lstat(cur, st)) {
            memset(st, 0, sizeof *st);
            /* nothing there yet: a new regular file */
            return errno == ENOENT ? LEADS_FILE : LEADS_ERROR;
        }
        if (st->kind != OS_LINK)
            break;
        if (os_names_descriptor(cur, fd)) {
            if (!os_stat(cur, st) || (*fd >= 0 && !os_fstat(*fd, st)))
                return LEADS_ERROR;
            return LEADS_IN_PLACE;
        }
        char *text = os_readlink(cur);
        if (!text)
            return LEADS_ERROR;
        char *next = link_target(cur, text);
        free(text);
        free(cur);
        *final = cur = next;
    }
    if (st->kind == OS_LINK) {
        errno = ELOOP;
        return LEADS_ERROR;
    }
    if (st->kind == OS_DIR) {
        errno = EISDIR;
        return LEADS_ERROR;
    }
    return st->kind == OS_FILE ? LEADS_FILE : LEADS_IN_PLACE;
}

bool out_is_file(const char *path)
{
    char *final;
    OsStat st;
    int fd;
    Leads l = follow(path, &final, &st, &fd);
    free(final);
    return l == LEADS_FILE;
}

/* ---- writing ----------------------------------------------------------- */

/* Starts writing to a temporary file: the `matched` bytes of the old file
 * first. */
static void diverge(Out *o)
{
    size_t size = strlen(o->target) + sizeof ".mcgen-XXXXXX";
    Temp *t = xmalloc(sizeof *t + size);
    snprintf(t->path, size, "%s.mcgen-XXXXXX", o->target);
    if (!section_enter()) {
        free(t);
        fail(o, "cannot create a temporary file for", o->path);
        return;
    }
    o->tmp = os_create_temp(t->path);
    if (o->tmp)
        temp_publish(t);
    section_leave();
    if (!o->tmp) {
        free(t);
        fail(o, "cannot create a temporary file for", o->path);
        return;
    }
    o->temp = t;
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

OutSet *outset_new(void)
{
    catch_interrupts();
    OutSet *s = xcalloc(1, sizeof *s);
    s->last = &s->first;
    return s;
}

Out *outset_open(OutSet *s, const char *path)
{
    Out *o = xcalloc(1, sizeof *o);
    o->set = s;
    o->path = xstrdup(path);
    *s->last = o;
    s->last = &o->next;
    OsStat st;
    Leads leads = follow(path, &o->target, &st, &o->fd);
    if (leads == LEADS_ERROR) {
        fail(o, "cannot write", path);
    } else if (leads == LEADS_IN_PLACE) {
        o->in_place = true;
        o->tmp = os_tmpfile();
        if (!o->tmp)
            fail(o, "cannot create a temporary file for", path);
    } else {
        o->existed = st.kind != OS_NONE;
        o->mode = st.mode;
        o->old = o->existed ? os_fopen(o->target, "rb") : NULL;
        if (!o->old)
            diverge(o);
    }
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

void out_patch(Out *o, uint64_t at, const void *p, size_t n)
{
    o->patched = true;
    if (o->failed || n == 0)
        return;
    if (o->old) {
        diverge(o);
        if (o->failed)
            return;
    }
    if (!os_seek(o->tmp, (int64_t)at, SEEK_SET) || fwrite(p, 1, n, o->tmp) != n ||
        !os_seek(o->tmp, 0, SEEK_END))
        fail(o, "cannot write", o->path);
}

/* Whether the complete temporary of a patched output holds the bytes of
 * the file it would replace (false when either cannot be read). */
static bool same_as_target(const Out *o)
{
    FILE *a = os_fopen(o->temp->path, "rb"), *b = os_fopen(o->target, "rb");
    bool same = a && b;
    while (same) {
        char x[16384], y[16384];
        size_t n = fread(x, 1, sizeof x, a), m = fread(y, 1, sizeof y, b);
        same = n == m && memcmp(x, y, n) == 0 && !ferror(a) && !ferror(b);
        if (n < sizeof x)
            break;
    }
    if (a)
        fclose(a);
    if (b)
        fclose(b);
    return same;
}

/* Makes the temporary complete: flushed, closed (a file) or rewound (a
 * tmpfile), with the target's mode.  An unchanged file is left as it is. */
static void finish(Out *o)
{
    if (o->old) {
        /* everything matched: unchanged if the old file ends here too */
        if (fgetc(o->old) == EOF && !ferror(o->old)) {
            fclose(o->old);
            o->old = NULL;
            return;
        }
        diverge(o);
        if (o->failed)
            return;
    }
    if (fflush(o->tmp) != 0 || ferror(o->tmp)) {
        fail(o, "cannot write", o->path);
        return;
    }
    if (o->in_place) {
        rewind(o->tmp);
        return;
    }
    if (o->patched && o->existed && same_as_target(o)) {
        fclose(o->tmp);
        o->tmp = NULL;
        temp_remove(o->temp);
        o->temp = NULL;
        return;
    }
    /* a temporary is made 0600: a replaced file keeps its mode, a new one
     * gets 0666 & ~umask */
    os_set_mode(o->tmp, o->existed, o->mode);
    int rc = fclose(o->tmp);
    o->tmp = NULL;
    if (rc != 0)
        fail(o, "cannot write", o->path);
}

/* Copies an in-place target's bytes from its tmpfile to it.  A reader
 * that goes away (`mcgen --json=- | head`) is an error like any other, not
 * SIGPIPE: the run then ends through outset_commit, which removes the
 * temporaries of the regular outputs instead of leaving them behind. */
static void deliver(Out *o)
{
    if (o->fd == OS_STDOUT)
        fflush(stdout); /* what mcgen printed before goes first */
    if (!os_copy_to(o->fd, o->target, o->tmp))
        fail(o, "cannot write", o->path);
}

static void discard(OutSet *s)
{
    for (Out *o = s->first, *next; o; o = next) {
        next = o->next;
        if (o->old)
            fclose(o->old);
        if (o->tmp)
            fclose(o->tmp);
        if (o->temp)
            temp_remove(o->temp);
        free(o->path);
        free(o->target);
        free(o);
    }
    free(s);
}

bool outset_commit(OutSet *s, bool ok)
{
    ok = ok && !s->failed;
    for (Out *o = s->first; ok && o; o = o->next) {
        finish(o);
        ok = !o->failed;
    }
    /* in place: these cannot be taken back, so before any rename; a
     * failure here still leaves every regular output as it was */
    for (Out *o = s->first; ok && o; o = o->next) {
        if (o->in_place) {
            deliver(o);
            ok = !o->failed;
        }
    }
    for (Out *o = s->first; ok && o; o = o->next) {
        if (!o->temp)
            continue;
        /* false: an interrupt is ending the run, and removes it */
        if (!section_enter()) {
            ok = false;
            break;
        }
        bool done = true;
        int err = 0;
        if (temp_claim(o->temp)) {
            done = os_replace(o->temp->path, o->target);
            err = errno;
            if (!done)
                os_remove(o->temp->path);
        }
        section_leave();
        o->temp = NULL;
        if (!done) {
            errno = err;
            fail(o, "cannot rename a temporary file to", o->path);
            ok = false;
        }
    }
    discard(s);
    return ok;
}

/* ---- which files a run names ------------------------------------------- */

/* A path made absolute and without "." and ".." parts, textually (heap):
 * a key to compare, with '/' between its parts on every host. */
static char *normalise(const char *path)
{
    Buf in = {0};
    if (!os_root_len(path)) {
        char *cwd = os_getcwd();
        if (cwd)
            buf_printf(&in, "%s/", cwd);
        free(cwd);
    }
    buf_adds(&in, path);
    Buf out = {0};
    char *p = in.s;
    while (*p) {
        while (os_is_sep(*p))
            p++;
        char *e = p;
        while (*e && !os_is_sep(*e))
            e++;
        size_t n = (size_t)(e - p);
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            while (out.len && out.s[out.len - 1] != '/')
                out.len--;
            if (out.len)
                out.len--;
            if (out.s)
                out.s[out.len] = '\0';
        } else if (n && !(n == 1 && p[0] == '.')) {
            buf_addc(&out, '/');
            buf_add(&out, p, n);
        }
        p = e;
    }
    if (!out.len)
        buf_addc(&out, '/');
    buf_free(&in);
    return out.s;
}

/* What a run's path names: the file itself when it exists (device and
 * inode, so links and other spellings meet), else its normalised name
 * (the real directory, when there is one, plus the name). */
typedef struct FileId {
    const char *path;
    bool inode;
    uint64_t dev, ino;
    char *name; /* heap */
} FileId;

static void file_id(const char *path, bool output, FileId *id)
{
    memset(id, 0, sizeof *id);
    id->path = path;
    OsStat st;
    bool there = strcmp(path, "-") == 0 ? os_fstat(OS_STDOUT, &st) : os_stat(path, &st);
    if (there && (st.dev || st.ino)) { /* else a device without an identity: by name */
        id->inode = true;
        id->dev = st.dev;
        id->ino = st.ino;
        return;
    }
    if (strcmp(path, "-") == 0) {
        id->name = xstrdup("-");
        return;
    }
    /* an output not there yet, maybe behind a dangling link */
    char *final = NULL;
    int fd;
    if (!output || follow(path, &final, &st, &fd) == LEADS_ERROR) {
        free(final);
        final = xstrdup(path);
    }
    char *d = dir_of(final);
    char *real = os_realpath(d);
    if (real) {
        const char *slash = os_last_sep(final);
        Buf b = {0};
        buf_printf(&b, "%s/%s", real, slash ? slash + 1 : final);
        id->name = normalise(b.s);
        buf_free(&b);
        free(real);
    } else {
        id->name = normalise(final);
    }
    free(d);
    free(final);
}

/* The first of ids[0..n) that is the same file as id, or NULL. */
static const FileId *find_same(const FileId *id, const FileId *ids, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const FileId *b = &ids[i];
        if (id->inode && b->inode ? id->dev == b->dev && id->ino == b->ino
                                  : !id->inode && !b->inode && strcmp(id->name, b->name) == 0)
            return b;
    }
    return NULL;
}

bool out_check_paths(const char *const *inputs, size_t ninputs, const char *const *outputs,
                     size_t noutputs)
{
    FileId *in = xcalloc(ninputs + 1, sizeof *in);
    FileId *out = xcalloc(noutputs + 1, sizeof *out);
    for (size_t i = 0; i < ninputs; i++)
        file_id(inputs[i], false, &in[i]);
    bool ok = true;
    for (size_t i = 0; i < noutputs; i++) {
        const char *o = outputs[i];
        file_id(o, true, &out[i]);
        const FileId *input = find_same(&out[i], in, ninputs);
        const FileId *twin = find_same(&out[i], out, i);
        if (input && strcmp(o, input->path) == 0)
            diag_io("output '%s' is an input of this run", o);
        else if (input)
            diag_io("output '%s' is the input '%s' of this run", o, input->path);
        else if (twin && strcmp(o, twin->path) == 0)
            diag_io("output '%s' is named twice in this run", o);
        else if (twin)
            diag_io("outputs '%s' and '%s' are the same file", twin->path, o);
        ok = ok && !input && !twin;
    }
    for (size_t i = 0; i < ninputs; i++)
        free(in[i].name);
    for (size_t i = 0; i < noutputs; i++)
        free(out[i].name);
    free(in);
    free(out);
    return ok;
}
