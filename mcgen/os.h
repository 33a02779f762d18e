/*
 * os.h - the host: files, paths, threads, interrupts and the process, as
 * the stages need them, and nothing about manifests.  One implementation
 * per host family, chosen by the build (not by #ifdef in the stages):
 * os_posix.c (POSIX.1-2008; what is Linux-only sits behind __linux__ with
 * a POSIX fallback) and os_win.c (Win32, wide-character calls only).
 *
 * Invariants every implementation keeps:
 *   - A path is UTF-8 inside mcgen, always; os_win.c converts it to
 *     UTF-16 at the call and back (argv, the current directory, a link's
 *     target), so a name with any character round-trips.
 *   - A failure returns false or NULL with errno set to the closest
 *     POSIX value (ENOENT, EACCES, EEXIST, ...), so callers diagnose with
 *     strerror(errno) on every host.
 *   - Files are binary: nothing here translates line ends (mcgen writes
 *     CRLF itself), and the standard streams are binary too (os_init).
 *   - os_remove, os_nap and the interrupt blocking are callable from an
 *     interrupt (a POSIX signal handler, or the Windows console control
 *     handler's thread): they neither allocate nor take locks.
 */
#ifndef MCGEN_OS_H
#define MCGEN_OS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- the process ---- */

/* First thing in main: argv as UTF-8 (Windows: from the wide command
 * line), standard streams in binary mode. */
void os_init(int *argc, char ***argv);

/* The descriptor of standard output, for out.c's in-place writes. */
#define OS_STDOUT 1

/* ---- paths ---- */

/* A directory separator: '/' (Windows: '/' or '\\'). */
bool os_is_sep(int c);
/* The last separator in path, or NULL. */
const char *os_last_sep(const char *path);
/* The length of path's root: 1 for "/x" (and on Windows "\x"); on
 * Windows also 3 for "C:\x", 2 for "C:x", up to the share's separator for
 * "\\server\share\x"; 0 for a relative path. */
size_t os_root_len(const char *path);
/* The current directory (heap), or NULL. */
char *os_getcwd(void);
/* The absolute name of an existing file or directory with every link
 * resolved (heap), or NULL. */
char *os_realpath(const char *path);

/* ---- files ---- */

typedef enum { OS_NONE, OS_FILE, OS_DIR, OS_LINK, OS_OTHER } OsKind;

/* What is at a path.  dev and ino together name a file (Windows: the
 * volume serial number and the file index), so two spellings of one file
 * compare equal; both are 0 for what has no such identity (Windows: a
 * device, a console, a pipe); mode is the permission bits (Windows: 0444 read-only,
 * else 0666). */
typedef struct OsStat {
    OsKind kind; /* OS_OTHER: a device, FIFO, socket, console or pipe */
    uint64_t dev, ino, size;
    unsigned mode;
} OsStat;

bool os_stat(const char *path, OsStat *st);  /* follows links */
bool os_lstat(const char *path, OsStat *st); /* a link is OS_LINK */
bool os_fstat(int fd, OsStat *st);
/* A link's text (heap; Windows: the absolute name it finally leads to),
 * or NULL. */
char *os_readlink(const char *path);
/* A link that names an open file of a process rather than a place (Linux:
 * /proc/<pid>/fd/N, where /dev/stdout leads): true, with *fd the
 * descriptor of this process it names or -1.  false elsewhere. */
bool os_names_descriptor(const char *link, int *fd);

/* fopen with a UTF-8 path.  A directory is refused with EISDIR on every
 * host (POSIX opens one and fails the first read; Windows refuses the open
 * with EACCES), so the two builds say the same thing of it. */
FILE *os_fopen(const char *path, const char *mode);
/* The size of an open file, or -1. */
int64_t os_file_size(FILE *f);
/* fseek with a 64-bit offset (whence: SEEK_SET, SEEK_END); false on error. */
bool os_seek(FILE *f, int64_t at, int whence);
bool os_mkdir(const char *path); /* EEXIST when something is there */
bool os_rmdir(const char *path);
/* Creates a new file of its own from `tmpl`, whose last six characters
 * are XXXXXX and are replaced in place (POSIX: mkstemp, mode 0600), open
 * for writing; NULL when none could be made. */
FILE *os_create_temp(char *tmpl);
/* An anonymous file for reading and writing, gone when closed or when the
 * process ends. */
FILE *os_tmpfile(void);
/* Gives a temporary made by os_create_temp its final mode: `mode` when it
 * replaces a file of that mode, else a new file's (0666 & ~umask).  Windows:
 * nothing to do (a file made in a directory inherits its ACL). */
void os_set_mode(FILE *f, bool replaces, unsigned mode);
/* Renames `from` over `to` in one step: a reader of `to` sees the old
 * file or the new one, never neither. */
bool os_replace(const char *from, const char *to);
bool os_remove(const char *path);
/* Writes the rest of `from` to descriptor fd, or when fd < 0 to the
 * existing non-regular file `path` opened for writing (never created,
 * never truncated).  A reader that went away is an error (EPIPE), not a
 * signal. */
bool os_copy_to(int fd, const char *path, FILE *from);

/* ---- interrupts ---- */

/* Once: on an interrupt from outside (SIGINT, SIGTERM, SIGHUP; Windows:
 * Ctrl-C, Ctrl-Break, the console closing) `cleanup` runs, then the
 * process ends as the interrupt would have ended it (POSIX: by the same
 * signal; Windows: STATUS_CONTROL_C_EXIT).  An interrupt ignored when
 * mcgen started (nohup) stays ignored.  `cleanup` may run on any thread. */
void os_on_interrupt(void (*cleanup)(void));
/* Keeps interrupts off the calling thread until os_unblock_interrupts
 * (POSIX: blocks the signals; Windows: nothing, the handler has a thread
 * of its own).  Not nested. */
void os_block_interrupts(void);
void os_unblock_interrupts(void);
/* Sleeps about a millisecond. */
void os_nap(void);

/* ---- memory ---- */

/* A large block that free() releases (Linux: 2 MiB-aligned and advised
 * for transparent huge pages), or NULL. */
void *os_alloc_large(size_t size);
/* Advises the whole 2 MiB pages inside p[0..size) for transparent huge
 * pages (Linux; elsewhere nothing): a large vector or hash table that
 * malloc placed then costs a fault per 2 MiB instead of per 4 KiB. */
void os_advise_large(void *p, size_t size);
/* Whole pages of their own: page-aligned, zero, untouched until used;
 * NULL when there is no memory.  os_pages_free gives back the same
 * size.  What os_map_file maps into. */
void *os_pages_alloc(size_t size);
void os_pages_free(void *p, size_t size);
/* Maps the first `size` bytes of the regular file f at `at`, a page
 * boundary inside a block from os_pages_alloc (anywhere else: false,
 * nothing mapped), privately: a page is read from the file
 * when first touched, with no copy and no zeroing (the page cache's
 * pages are the memory), and a write stays in this process.  False, and
 * the block as it was, where the host or the file cannot (a pipe, a
 * file now shorter than `size`; Windows): the caller reads the bytes
 * instead.  One file at a time: the mapping lasts until the block is
 * freed.  Should the file be cut short under the mapping (another
 * process truncating it), touching a page past its new end cannot read
 * anything; the process then ends as on an interrupt (the cleanup of
 * os_on_interrupt runs), with "mcgen: error: 'path' changed while it
 * was read" and exit status 2, rather than crashing. */
bool os_map_file(void *at, FILE *f, size_t size, const char *path);
/* Whether os_map_file may map f (a regular file, on a host that maps):
 * asked before a block that only a mapping would make cheap is taken. */
bool os_map_possible(FILE *f);
/* Lets go of the whole pages inside p[0..size) of a mapped file: a
 * later touch reads them from the file again.  Nothing where there is
 * nothing to let go (not mapped, Windows). */
void os_map_release(void *p, size_t size);

/* ---- threads ---- */

/* Storage for a thread, a mutex and a condition variable: opaque, sized
 * for every host (the implementations assert that theirs fits). */
typedef struct OsThread {
    _Alignas(16) unsigned char opaque[32];
} OsThread;
typedef struct OsMutex {
    _Alignas(16) unsigned char opaque[64];
} OsMutex;
typedef struct OsCond {
    _Alignas(16) unsigned char opaque[64];
} OsCond;

/* Starts fn(arg) on a new thread; `t` must stay in place until joined. */
bool os_thread_start(OsThread *t, void *(*fn)(void *), void *arg);
void os_thread_join(OsThread *t);
bool os_mutex_init(OsMutex *m);
void os_mutex_destroy(OsMutex *m);
void os_mutex_lock(OsMutex *m);
void os_mutex_unlock(OsMutex *m);
bool os_cond_init(OsCond *c);
void os_cond_destroy(OsCond *c);
void os_cond_wait(OsCond *c, OsMutex *m);
void os_cond_broadcast(OsCond *c);

#endif
