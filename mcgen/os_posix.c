/*
 * os_posix.c - os.h on POSIX hosts (Linux, macOS, the BSDs).  Thin: each
 * function is the POSIX call the stages used before there was an os.h,
 * with its errno.  The one Linux-only part is /proc (os_names_descriptor),
 * behind __linux__: elsewhere no link names a descriptor, and /dev/fd/N
 * is a device, which out.c writes in place anyway.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#define _DEFAULT_SOURCE   /* MADV_HUGEPAGE, MAP_ANONYMOUS */
#define _DARWIN_C_SOURCE  /* macOS: MAP_ANONYMOUS beside _XOPEN_SOURCE */
#include "os.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

_Static_assert(sizeof(pthread_t) <= sizeof(OsThread), "OsThread holds a pthread_t");
_Static_assert(sizeof(pthread_mutex_t) <= sizeof(OsMutex), "OsMutex holds a pthread_mutex_t");
_Static_assert(sizeof(pthread_cond_t) <= sizeof(OsCond), "OsCond holds a pthread_cond_t");

void os_init(int *argc, char ***argv) { (void)argc, (void)argv; }

/* ---- paths ---- */

bool os_is_sep(int c) { return c == '/'; }
const char *os_last_sep(const char *path) { return strrchr(path, '/'); }
size_t os_root_len(const char *path) { return path[0] == '/'; }

char *os_getcwd(void)
{
    for (size_t n = 256;; n *= 2) {
        char *s = malloc(n);
        if (!s || getcwd(s, n))
            return s;
        free(s);
        if (errno != ERANGE)
            return NULL;
    }
}

char *os_realpath(const char *path) { return realpath(path, NULL); }

/* ---- files ---- */

static void from_stat(const struct stat *s, OsStat *st)
{
    st->kind = S_ISREG(s->st_mode)   ? OS_FILE
               : S_ISDIR(s->st_mode) ? OS_DIR
               : S_ISLNK(s->st_mode) ? OS_LINK
                                     : OS_OTHER;
    st->dev = (uint64_t)s->st_dev;
    st->ino = (uint64_t)s->st_ino;
    st->size = s->st_size > 0 ? (uint64_t)s->st_size : 0;
    st->mode = (unsigned)(s->st_mode & 07777);
}

/* A stat call's result as an OsStat. */
static bool from_call(int rc, const struct stat *s, OsStat *st)
{
    if (rc != 0)
        return false;
    from_stat(s, st);
    return true;
}

bool os_stat(const char *path, OsStat *st)
{
    struct stat s;
    return from_call(stat(path, &s), &s, st);
}

bool os_lstat(const char *path, OsStat *st)
{
    struct stat s;
    return from_call(lstat(path, &s), &s, st);
}

bool os_fstat(int fd, OsStat *st)
{
    struct stat s;
    return from_call(fstat(fd, &s), &s, st);
}

char *os_readlink(const char *path)
{
    for (size_t n = 256;; n *= 2) {
        char *s = malloc(n);
        if (!s)
            return NULL;
        ssize_t k = readlink(path, s, n);
        if (k < 0) {
            free(s);
            return NULL;
        }
        if ((size_t)k < n) {
            s[k] = '\0';
            return s;
        }
        free(s);
    }
}

#if defined(__linux__)
/* The directory of a link, resolved (heap), or NULL. */
static char *real_dir(const char *link)
{
    const char *slash = strrchr(link, '/');
    if (!slash)
        return realpath(".", NULL);
    if (slash == link)
        return realpath("/", NULL);
    char *d = strndup(link, (size_t)(slash - link));
    char *real = d ? realpath(d, NULL) : NULL;
    free(d);
    return real;
}

bool os_names_descriptor(const char *link, int *fd)
{
    *fd = -1;
    char *real = real_dir(link);
    bool in_proc = real && strncmp(real, "/proc/", 6) == 0;
    if (in_proc) {
        char mine[64];
        snprintf(mine, sizeof mine, "/proc/%ld/fd", (long)getpid());
        const char *slash = strrchr(link, '/');
        const char *name = slash ? slash + 1 : link;
        char *end;
        long n = strtol(name, &end, 10);
        if (strcmp(real, mine) == 0 && *name && !*end && n >= 0 && n <= INT_MAX)
            *fd = (int)n;
    }
    free(real);
    return in_proc;
}
#else
bool os_names_descriptor(const char *link, int *fd)
{
    (void)link;
    *fd = -1;
    return false;
}
#endif

FILE *os_fopen(const char *path, const char *mode)
{
    FILE *f = fopen(path, mode);
    struct stat s;
    if (f && fstat(fileno(f), &s) == 0 && S_ISDIR(s.st_mode)) {
        fclose(f);
        errno = EISDIR;
        return NULL;
    }
    return f;
}

int64_t os_file_size(FILE *f)
{
    struct stat s;
    return fstat(fileno(f), &s) == 0 && S_ISREG(s.st_mode) ? (int64_t)s.st_size : -1;
}

bool os_seek(FILE *f, int64_t at, int whence) { return fseeko(f, (off_t)at, whence) == 0; }

bool os_mkdir(const char *path) { return mkdir(path, 0777) == 0; }
bool os_rmdir(const char *path) { return rmdir(path) == 0; }

FILE *os_create_temp(char *tmpl)
{
    int fd = mkstemp(tmpl);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        int err = errno;
        unlink(tmpl);
        close(fd);
        errno = err;
    }
    return f;
}

FILE *os_tmpfile(void) { return tmpfile(); }

void os_set_mode(FILE *f, bool replaces, unsigned mode)
{
    if (!replaces) {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~(unsigned)mask;
    }
    fchmod(fileno(f), (mode_t)mode);
}

bool os_replace(const char *from, const char *to) { return rename(from, to) == 0; }
bool os_remove(const char *path) { return unlink(path) == 0; }

/* Writes all of p to fd; false with errno set. */
static bool write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        p += k;
        n -= (size_t)k;
    }
    return true;
}

bool os_copy_to(int fd, const char *path, FILE *from)
{
    int own = fd < 0 ? open(path, O_WRONLY | O_NOCTTY) : fd;
    if (own < 0)
        return false;
    struct sigaction ignore = {.sa_handler = SIG_IGN}, was;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, &was);
    char buf[65536];
    size_t n;
    bool ok = true;
    while (ok && (n = fread(buf, 1, sizeof buf, from)) > 0)
        ok = write_all(own, buf, n);
    int err = errno;
    sigaction(SIGPIPE, &was, NULL);
    if (ok && ferror(from))
        ok = false, err = EIO;
    if (own != fd && close(own) != 0 && ok)
        ok = false, err = errno;
    errno = err;
    return ok;
}

/* ---- interrupts ---- */

static const int caught[] = {SIGINT, SIGTERM, SIGHUP};
static void (*on_interrupt)(void);
static _Thread_local sigset_t unblocked;

static void on_signal(int sig)
{
    on_interrupt();
    signal(sig, SIG_DFL);
    raise(sig); /* blocked until the handler returns, then ends the process */
}

void os_on_interrupt(void (*cleanup)(void))
{
    on_interrupt = cleanup;
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++) {
        struct sigaction sa = {.sa_handler = on_signal}, was;
        sigfillset(&sa.sa_mask);
        if (sigaction(caught[i], NULL, &was) == 0 && was.sa_handler != SIG_IGN)
            sigaction(caught[i], &sa, NULL);
    }
}

void os_block_interrupts(void)
{
    sigset_t block;
    sigemptyset(&block);
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++)
        sigaddset(&block, caught[i]);
    pthread_sigmask(SIG_BLOCK, &block, &unblocked);
}

void os_unblock_interrupts(void) { pthread_sigmask(SIG_SETMASK, &unblocked, NULL); }

void os_nap(void)
{
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
}

/* ---- memory ---- */

enum { HUGE_PAGE = 2u * 1024 * 1024 };

void *os_alloc_large(size_t size)
{
    void *p = NULL;
    if (posix_memalign(&p, HUGE_PAGE, size) != 0)
        return NULL;
    os_advise_large(p, size);
    return p;
}

void os_advise_large(void *p, size_t size)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    uintptr_t start = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    uintptr_t end = ((uintptr_t)p + size) & ~(uintptr_t)(HUGE_PAGE - 1);
    if (end > start)
        madvise((void *)start, end - start, MADV_HUGEPAGE);
#else
    (void)p, (void)size;
#endif
}

static size_t page_size(void)
{
    static size_t size;
    if (!size) {
        long n = sysconf(_SC_PAGESIZE);
        size = n > 0 ? (size_t)n : 4096;
    }
    return size;
}

/* The live blocks of os_pages_alloc: os_map_file maps only inside one.
 * Any other page-aligned address may be a page that malloc shares
 * between blocks, whose headers a mapping would replace.  A block past
 * the table's room is still given, but never mapped into. */
enum { LIVE_BLOCKS = 16 };
static struct {
    uintptr_t lo, hi;
} live[LIVE_BLOCKS];
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

void *os_pages_alloc(size_t size)
{
    void *p = mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    pthread_mutex_lock(&live_lock);
    for (int i = 0; i < LIVE_BLOCKS; i++)
        if (!live[i].lo) {
            live[i].lo = (uintptr_t)p;
            live[i].hi = (uintptr_t)p + size;
            break;
        }
    pthread_mutex_unlock(&live_lock);
    return p;
}

/* Whether [a, a + size) lies inside one live block. */
static bool in_live_block(uintptr_t a, size_t size)
{
    bool in = false;
    pthread_mutex_lock(&live_lock);
    for (int i = 0; i < LIVE_BLOCKS && !in; i++)
        in = live[i].lo && a >= live[i].lo && size <= live[i].hi - a;
    pthread_mutex_unlock(&live_lock);
    return in;
}

/* The mapped file (os_map_file): its pages, and what the bus-error
 * handler says when the file is cut short under them.  Written before
 * the mapping exists and cleared after it is gone, so the handler never
 * sees a range it does not own. */
static volatile sig_atomic_t mapped;
static uintptr_t mapped_lo, mapped_hi;
static const char *mapped_path;
static size_t mapped_path_len;

void os_pages_free(void *p, size_t size)
{
    if (!p)
        return;
    pthread_mutex_lock(&live_lock);
    for (int i = 0; i < LIVE_BLOCKS; i++)
        if (live[i].lo == (uintptr_t)p)
            live[i].lo = live[i].hi = 0;
    pthread_mutex_unlock(&live_lock);
    munmap(p, size ? size : 1);
    if (mapped && (uintptr_t)p <= mapped_lo && mapped_lo < (uintptr_t)p + size)
        mapped = 0;
}

static void put_err(const char *s, size_t n)
{
    while (n > 0) {
        ssize_t k = write(2, s, n);
        if (k <= 0)
            return;
        s += k, n -= (size_t)k;
    }
}

/* A touch of the mapped file past its end (truncated since): there is
 * nothing to read, and returning would fault again.  Any other bus error
 * is passed on as the default action (the signal taken back to SIG_DFL,
 * the faulting instruction runs again). */
static void on_bus_error(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    uintptr_t a = (uintptr_t)si->si_addr;
    if (mapped && a >= mapped_lo && a < mapped_hi) {
        put_err("mcgen: error: '", 15);
        put_err(mapped_path, mapped_path_len);
        put_err("' changed while it was read\n", 29);
        if (on_interrupt)
            on_interrupt();
        _exit(2);
    }
    signal(sig, SIG_DFL);
}

bool os_map_file(void *at, FILE *f, size_t size, const char *path)
{
    uintptr_t a = (uintptr_t)at;
    struct stat st;
    int fd = fileno(f);
    if (mapped || !size || a % page_size() || !in_live_block(a, size) || fd < 0 ||
        fstat(fd, &st) != 0 ||
        !S_ISREG(st.st_mode) || st.st_size < 0 || (uintmax_t)st.st_size < size)
        return false;
    static bool handler;
    if (!handler) {
        struct sigaction sa = {.sa_sigaction = on_bus_error, .sa_flags = SA_SIGINFO};
        sigfillset(&sa.sa_mask);
        if (sigaction(SIGBUS, &sa, NULL) != 0)
            return false;
        handler = true;
    }
    mapped_lo = a;
    mapped_hi = a + size;
    mapped_path = path;
    mapped_path_len = strlen(path);
    mapped = 1;
    if (mmap(at, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
        mapped = 0;
        return false;
    }
    /* cut short between the size asked and the mapping: the pages past
     * the end could not be read; anonymous memory again, zero */
    if (fstat(fd, &st) != 0 || (uintmax_t)st.st_size < size) {
        if (mmap(at, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1,
                 0) != MAP_FAILED)
            mapped = 0; /* else the guard stays: touching the block ends the run */
        return false;
    }
#if defined(POSIX_MADV_SEQUENTIAL)
    posix_madvise(at, size, POSIX_MADV_SEQUENTIAL);
#endif
    return true;
}

bool os_map_possible(FILE *f) { return !mapped && os_file_size(f) >= 0; }

void os_map_release(void *p, size_t size)
{
    uintptr_t lo = ((uintptr_t)p + page_size() - 1) & ~(uintptr_t)(page_size() - 1);
    uintptr_t hi = ((uintptr_t)p + size) & ~(uintptr_t)(page_size() - 1);
    if (!mapped || hi <= lo || lo < mapped_lo || hi > mapped_hi)
        return;
#if defined(__linux__)
    /* Linux drops the pages now; a private file mapping's come back
     * from the file when touched */
    madvise((void *)lo, hi - lo, MADV_DONTNEED);
#else
    posix_madvise((void *)lo, hi - lo, POSIX_MADV_DONTNEED);
#endif
}

/* ---- threads ---- */

#define THREAD(t) ((pthread_t *)(void *)(t)->opaque)
#define MUTEX(m) ((pthread_mutex_t *)(void *)(m)->opaque)
#define COND(c) ((pthread_cond_t *)(void *)(c)->opaque)

bool os_thread_start(OsThread *t, void *(*fn)(void *), void *arg)
{
    return pthread_create(THREAD(t), NULL, fn, arg) == 0;
}

void os_thread_join(OsThread *t) { pthread_join(*THREAD(t), NULL); }
bool os_mutex_init(OsMutex *m) { return pthread_mutex_init(MUTEX(m), NULL) == 0; }
void os_mutex_destroy(OsMutex *m) { pthread_mutex_destroy(MUTEX(m)); }
void os_mutex_lock(OsMutex *m) { pthread_mutex_lock(MUTEX(m)); }
void os_mutex_unlock(OsMutex *m) { pthread_mutex_unlock(MUTEX(m)); }
bool os_cond_init(OsCond *c) { return pthread_cond_init(COND(c), NULL) == 0; }
void os_cond_destroy(OsCond *c) { pthread_cond_destroy(COND(c)); }
void os_cond_wait(OsCond *c, OsMutex *m) { pthread_cond_wait(COND(c), MUTEX(m)); }
void os_cond_broadcast(OsCond *c) { pthread_cond_broadcast(COND(c)); }
