/*
 * os_win.c - os.h on Windows, through the wide-character (W) calls only:
 * every UTF-8 path is converted to UTF-16 here, so names outside the ANSI
 * code page work, and argv is rebuilt from the wide command line.  No
 * winpthreads: threads are _beginthreadex, locks SRWLOCK and
 * CONDITION_VARIABLE, all in kernel32 and msvcrt.
 *
 * The choices that differ from POSIX, and why:
 *   - Replacing a file is MoveFileExW(MOVEFILE_REPLACE_EXISTING |
 *     MOVEFILE_WRITE_THROUGH), not ReplaceFileW: it works whether or not
 *     the target exists, and on one volume (the temporary is made beside
 *     its target) it is a single rename.  ReplaceFileW would keep the old
 *     file's ACL and attributes, but fails when there is no target and is
 *     several steps that can stop half way (ERROR_UNABLE_TO_MOVE_REPLACEMENT).
 *     A new file inherits its directory's ACL, as a file mcgen creates
 *     there would.  A scanner or indexer that holds the target open for a
 *     moment makes the rename fail with a sharing violation, so it is
 *     retried for about a second.
 *   - Temporaries are opened with FILE_SHARE_DELETE, so the console
 *     control handler can remove one that the main thread still has open
 *     (Windows removes it when the last handle closes: at exit).
 *   - tmpfile() in msvcrt makes its file in the root of the current drive,
 *     which a user may not write to; os_tmpfile uses GetTempPathW with
 *     FILE_FLAG_DELETE_ON_CLOSE instead.
 *   - Links: os_lstat reports a symbolic link (a reparse point with the
 *     symlink tag) as OS_LINK and os_readlink returns the absolute name it
 *     finally leads to (GetFinalPathNameByHandleW), so out.c replaces the
 *     file and keeps the link, as on POSIX.
 *   - Paths are used as given (no \\?\ prefix): names longer than MAX_PATH
 *     work where the system allows them (Windows 10 with long paths on).
 */
#define WIN32_LEAN_AND_MEAN
#include "os.h"

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <process.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>
#include <shellapi.h>

_Static_assert(sizeof(SRWLOCK) <= sizeof(OsMutex), "OsMutex holds an SRWLOCK");
_Static_assert(sizeof(CONDITION_VARIABLE) <= sizeof(OsCond), "OsCond holds a CONDITION_VARIABLE");

/* errno for the calling thread's last Win32 error. */
static void set_errno(void)
{
    switch (GetLastError()) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_NAME:
    case ERROR_BAD_NETPATH:
    case ERROR_BAD_NET_NAME:
    case ERROR_INVALID_DRIVE:
        errno = ENOENT;
        break;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
    case ERROR_WRITE_PROTECT:
        errno = EACCES;
        break;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS:
        errno = EEXIST;
        break;
    case ERROR_DIR_NOT_EMPTY:
        errno = ENOTEMPTY;
        break;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
        errno = ENOMEM;
        break;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL:
        errno = ENOSPC;
        break;
    case ERROR_BROKEN_PIPE:
    case ERROR_NO_DATA:
        errno = EPIPE;
        break;
    case ERROR_FILENAME_EXCED_RANGE:
        errno = ENAMETOOLONG;
        break;
    case ERROR_DIRECTORY:
        errno = ENOTDIR;
        break;
    default:
        errno = EIO;
    }
}

/* UTF-8 to UTF-16 (malloc), or NULL with errno. */
static wchar_t *wide(const char *s)
{
    int n = MultiByteToWideChar(CP_UTF8, 0, s, -1, NULL, 0);
    wchar_t *w = n > 0 ? malloc((size_t)n * sizeof *w) : NULL;
    if (!w || !MultiByteToWideChar(CP_UTF8, 0, s, -1, w, n)) {
        free(w);
        errno = n > 0 ? ENOMEM : EINVAL;
        return NULL;
    }
    return w;
}

/* UTF-16 to UTF-8 (malloc), or NULL with errno. */
static char *narrow(const wchar_t *w)
{
    int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
    char *s = n > 0 ? malloc((size_t)n) : NULL;
    if (!s || !WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL)) {
        free(s);
        errno = n > 0 ? ENOMEM : EINVAL;
        return NULL;
    }
    return s;
}

/* The console's output code page when mcgen started, put back at exit:
 * while mcgen runs it is UTF-8, the encoding of everything mcgen prints
 * (a file name in a diagnostic), so a console shows it as written. */
static UINT console_cp;
static BOOL WINAPI on_console_event(DWORD event);

static void restore_console(void)
{
    if (console_cp)
        SetConsoleOutputCP(console_cp);
}

void os_init(int *argc, char ***argv)
{
    _setmode(0, _O_BINARY);
    _setmode(1, _O_BINARY);
    _setmode(2, _O_BINARY);
    UINT cp = GetConsoleOutputCP(); /* 0: no console */
    if (cp && cp != CP_UTF8 && SetConsoleOutputCP(CP_UTF8)) {
        console_cp = cp;
        atexit(restore_console);
        SetConsoleCtrlHandler(on_console_event, TRUE); /* restores it on Ctrl-C too */
    }
    int n;
    wchar_t **wargv = CommandLineToArgvW(GetCommandLineW(), &n);
    if (!wargv)
        return; /* keep the CRT's ANSI argv */
    char **v = calloc((size_t)n + 1, sizeof *v);
    for (int i = 0; v && i < n; i++)
        if (!(v[i] = narrow(wargv[i])))
            return;
    LocalFree(wargv);
    if (v) {
        *argc = n;
        *argv = v; /* lives as long as the process */
    }
}

/* ---- paths ---- */

bool os_is_sep(int c) { return c == '/' || c == '\\'; }

const char *os_last_sep(const char *path)
{
    const char *last = NULL;
    for (const char *p = path; *p; p++)
        if (os_is_sep(*p))
            last = p;
    return last;
}

size_t os_root_len(const char *path)
{
    if (os_is_sep(path[0]) && os_is_sep(path[1])) {
        /* \\server\share\ (or \\?\, \\.\ then the next part) */
        size_t i = 2;
        for (int parts = 0; parts < 2 && path[i]; parts++) {
            while (path[i] && !os_is_sep(path[i]))
                i++;
            if (path[i])
                i++;
        }
        return i;
    }
    if (os_is_sep(path[0]))
        return 1;
    if (((path[0] | 0x20) >= 'a' && (path[0] | 0x20) <= 'z') && path[1] == ':')
        return os_is_sep(path[2]) ? 3 : 2;
    return 0;
}

char *os_getcwd(void)
{
    DWORD n = GetCurrentDirectoryW(0, NULL);
    wchar_t *w = n ? malloc(n * sizeof *w) : NULL;
    if (!w || !GetCurrentDirectoryW(n, w)) {
        free(w);
        errno = ENOMEM;
        return NULL;
    }
    char *s = narrow(w);
    free(w);
    return s;
}

/* Opens what a path names for queries only (a directory too); follows
 * links unless `link`.  INVALID_HANDLE_VALUE with errno set. */
static HANDLE open_query(const char *path, bool link)
{
    wchar_t *w = wide(path);
    if (!w)
        return INVALID_HANDLE_VALUE;
    DWORD flags = FILE_FLAG_BACKUP_SEMANTICS | (link ? FILE_FLAG_OPEN_REPARSE_POINT : 0);
    DWORD share = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;
    HANDLE h = CreateFileW(w, 0, share, NULL, OPEN_EXISTING, flags, NULL);
    if (h == INVALID_HANDLE_VALUE) /* CON and its kind want a direction */
        h = CreateFileW(w, GENERIC_WRITE, share, NULL, OPEN_EXISTING, flags, NULL);
    if (h == INVALID_HANDLE_VALUE)
        set_errno();
    free(w);
    return h;
}

/* The absolute name an open handle finally leads to (heap), or NULL. */
static char *final_name(HANDLE h)
{
    DWORD n = GetFinalPathNameByHandleW(h, NULL, 0, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
    wchar_t *w = n ? malloc((n + 1) * sizeof *w) : NULL;
    if (!w || !GetFinalPathNameByHandleW(h, w, n + 1, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS)) {
        free(w);
        set_errno();
        return NULL;
    }
    const wchar_t *p = w;
    if (wcsncmp(p, L"\\\\?\\UNC\\", 8) == 0) {
        p += 6;
        w[6] = L'\\'; /* \\?\UNC\server -> \\server */
    } else if (wcsncmp(p, L"\\\\?\\", 4) == 0) {
        p += 4;
    }
    char *s = narrow(p);
    free(w);
    return s;
}

char *os_realpath(const char *path)
{
    HANDLE h = open_query(path, false);
    if (h == INVALID_HANDLE_VALUE)
        return NULL;
    char *s = final_name(h);
    CloseHandle(h);
    return s;
}

/* ---- files ---- */

static bool stat_handle(HANDLE h, bool link, OsStat *st)
{
    memset(st, 0, sizeof *st);
    if (GetFileType(h) != FILE_TYPE_DISK) {
        st->kind = OS_OTHER;
        return true;
    }
    BY_HANDLE_FILE_INFORMATION i;
    if (!GetFileInformationByHandle(h, &i)) {
        set_errno();
        return false;
    }
    st->kind = i.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY ? OS_DIR : OS_FILE;
    if (link && (i.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)) {
        FILE_ATTRIBUTE_TAG_INFO tag;
        if (GetFileInformationByHandleEx(h, FileAttributeTagInfo, &tag, sizeof tag) &&
            tag.ReparseTag == IO_REPARSE_TAG_SYMLINK)
            st->kind = OS_LINK;
    }
    st->dev = i.dwVolumeSerialNumber;
    st->ino = (uint64_t)i.nFileIndexHigh << 32 | i.nFileIndexLow;
    st->size = (uint64_t)i.nFileSizeHigh << 32 | i.nFileSizeLow;
    st->mode = i.dwFileAttributes & FILE_ATTRIBUTE_READONLY ? 0444 : 0666;
    return true;
}

static bool stat_path(const char *path, bool link, OsStat *st)
{
    HANDLE h = open_query(path, link);
    if (h == INVALID_HANDLE_VALUE)
        return false;
    bool ok = stat_handle(h, link, st);
    CloseHandle(h);
    return ok;
}

bool os_stat(const char *path, OsStat *st) { return stat_path(path, false, st); }
bool os_lstat(const char *path, OsStat *st) { return stat_path(path, true, st); }

bool os_fstat(int fd, OsStat *st)
{
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    if (h == INVALID_HANDLE_VALUE) {
        errno = EBADF;
        return false;
    }
    return stat_handle(h, false, st);
}

char *os_readlink(const char *path) { return os_realpath(path); }

bool os_names_descriptor(const char *link, int *fd)
{
    (void)link;
    *fd = -1;
    return false;
}

FILE *os_fopen(const char *path, const char *mode)
{
    wchar_t *w = wide(path), *m = wide(mode);
    FILE *f = w && m ? _wfopen(w, m) : NULL;
    if (!f && w) {
        DWORD a = GetFileAttributesW(w);
        if (a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY))
            errno = EISDIR;
    }
    free(w);
    free(m);
    return f;
}

int64_t os_file_size(FILE *f)
{
    OsStat st;
    return os_fstat(_fileno(f), &st) && st.kind == OS_FILE ? (int64_t)st.size : -1;
}

bool os_seek(FILE *f, int64_t at, int whence) { return _fseeki64(f, at, whence) == 0; }

bool os_mkdir(const char *path)
{
    wchar_t *w = wide(path);
    bool ok = w && CreateDirectoryW(w, NULL);
    if (w && !ok)
        set_errno();
    free(w);
    return ok;
}

bool os_rmdir(const char *path)
{
    wchar_t *w = wide(path);
    bool ok = w && RemoveDirectoryW(w);
    free(w);
    return ok;
}

/* A CRT stream on a Win32 handle (closing it closes the handle), or NULL
 * with the handle closed. */
static FILE *stream_of(HANDLE h, const char *mode)
{
    int fd = _open_osfhandle((intptr_t)h, _O_BINARY);
    if (fd < 0) {
        CloseHandle(h);
        return NULL;
    }
    FILE *f = _fdopen(fd, mode);
    if (!f)
        _close(fd);
    return f;
}

FILE *os_create_temp(char *tmpl)
{
    static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    size_t n = strlen(tmpl);
    if (n < 6) {
        errno = EINVAL;
        return NULL;
    }
    static volatile LONG counter;
    for (int tries = 0; tries < 100; tries++) {
        LARGE_INTEGER t;
        QueryPerformanceCounter(&t);
        uint64_t x = (uint64_t)t.QuadPart ^ (uint64_t)GetCurrentProcessId() << 32 ^
                     (uint64_t)InterlockedIncrement(&counter) * 0x9E3779B97F4A7C15u;
        for (size_t i = n - 6; i < n; i++, x /= 36)
            tmpl[i] = digits[x % 36];
        wchar_t *w = wide(tmpl);
        if (!w)
            return NULL;
        HANDLE h = CreateFileW(w, GENERIC_READ | GENERIC_WRITE,
                               FILE_SHARE_READ | FILE_SHARE_DELETE, NULL, CREATE_NEW,
                               FILE_ATTRIBUTE_NORMAL, NULL);
        free(w);
        if (h != INVALID_HANDLE_VALUE) {
            FILE *f = stream_of(h, "wb");
            if (!f)
                os_remove(tmpl);
            return f;
        }
        DWORD e = GetLastError();
        if (e != ERROR_FILE_EXISTS && e != ERROR_ALREADY_EXISTS) {
            set_errno();
            return NULL;
        }
    }
    errno = EEXIST;
    return NULL;
}

FILE *os_tmpfile(void)
{
    wchar_t dir[MAX_PATH + 1], name[MAX_PATH + 1];
    if (!GetTempPathW(MAX_PATH + 1, dir) || !GetTempFileNameW(dir, L"mcg", 0, name)) {
        set_errno();
        return NULL;
    }
    HANDLE h = CreateFileW(name, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_DELETE,
                           NULL, CREATE_ALWAYS,
                           FILE_ATTRIBUTE_TEMPORARY | FILE_FLAG_DELETE_ON_CLOSE, NULL);
    if (h == INVALID_HANDLE_VALUE) {
        set_errno();
        DeleteFileW(name);
        return NULL;
    }
    return stream_of(h, "w+b");
}

void os_set_mode(FILE *f, bool replaces, unsigned mode) { (void)f, (void)replaces, (void)mode; }

bool os_replace(const char *from, const char *to)
{
    wchar_t *wf = wide(from), *wt = wide(to);
    bool ok = false;
    for (int tries = 0; wf && wt && tries < 100; tries++) {
        ok = MoveFileExW(wf, wt, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH);
        DWORD e = GetLastError();
        if (ok || (e != ERROR_SHARING_VIOLATION && e != ERROR_LOCK_VIOLATION &&
                   e != ERROR_ACCESS_DENIED))
            break;
        Sleep(10);
    }
    if (wf && wt && !ok)
        set_errno();
    free(wf);
    free(wt);
    return ok;
}

/* No allocation: the console control handler calls this while another
 * thread may hold the heap's lock, and out of memory too. */
bool os_remove(const char *path)
{
    wchar_t w[32768];
    if (!MultiByteToWideChar(CP_UTF8, 0, path, -1, w, (int)(sizeof w / sizeof w[0]))) {
        errno = ENAMETOOLONG;
        return false;
    }
    if (DeleteFileW(w))
        return true;
    set_errno();
    return false;
}

bool os_copy_to(int fd, const char *path, FILE *from)
{
    int own = fd;
    if (fd < 0) {
        wchar_t *w = wide(path);
        own = w ? _wopen(w, _O_WRONLY | _O_BINARY) : -1;
        free(w);
        if (own < 0)
            return false;
    }
    char buf[65536];
    size_t n;
    bool ok = true;
    while (ok && (n = fread(buf, 1, sizeof buf, from)) > 0) {
        for (size_t done = 0; ok && done < n;) {
            int k = _write(own, buf + done, (unsigned)(n - done));
            ok = k > 0;
            if (ok)
                done += (size_t)k;
            else if (errno == EINVAL) /* msvcrt's word for a closed pipe */
                errno = EPIPE;
        }
    }
    int err = errno;
    if (ok && ferror(from))
        ok = false, err = EIO;
    if (own != fd && _close(own) != 0 && ok)
        ok = false, err = errno;
    errno = err;
    return ok;
}

/* ---- interrupts ---- */

static void (*on_interrupt)(void);

/* Runs on a thread of its own that Windows starts for the event, and
 * ends the process as the default handler would, with
 * STATUS_CONTROL_C_EXIT (itself: under wine, passing the event on ends a
 * process without a console with status 0, which a build would take for
 * success). */
static BOOL WINAPI on_console_event(DWORD event)
{
    (void)event;
    if (on_interrupt)
        on_interrupt();
    restore_console();
    ExitProcess(STATUS_CONTROL_C_EXIT);
}

void os_on_interrupt(void (*cleanup)(void))
{
    on_interrupt = cleanup;
    if (!console_cp) /* os_init installed it already */
        SetConsoleCtrlHandler(on_console_event, TRUE);
}

void os_block_interrupts(void) {}
void os_unblock_interrupts(void) {}
void os_nap(void) { Sleep(1); }

/* ---- memory ---- */

void *os_alloc_large(size_t size) { return malloc(size); }
void os_advise_large(void *p, size_t size) { (void)p, (void)size; }

void *os_pages_alloc(size_t size)
{
    return VirtualAlloc(NULL, size ? size : 1, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
}

void os_pages_free(void *p, size_t size)
{
    (void)size;
    if (p)
        VirtualFree(p, 0, MEM_RELEASE);
}

/* A view of a file cannot be placed over memory already allocated
 * (MapViewOfFileEx wants the addresses free, and another thread may take
 * them in between), so the caller reads the file. */
bool os_map_file(void *at, FILE *f, size_t size, const char *path)
{
    (void)at, (void)f, (void)size, (void)path;
    return false;
}

bool os_map_possible(FILE *f)
{
    (void)f;
    return false;
}

void os_map_release(void *p, size_t size) { (void)p, (void)size; }

/* ---- threads ---- */

typedef struct {
    HANDLE handle;
    void *(*fn)(void *);
    void *arg;
} Thread;

_Static_assert(sizeof(Thread) <= sizeof(OsThread), "OsThread holds a Thread");

#define THREAD(t) ((Thread *)(void *)(t)->opaque)
#define MUTEX(m) ((SRWLOCK *)(void *)(m)->opaque)
#define COND(c) ((CONDITION_VARIABLE *)(void *)(c)->opaque)

static unsigned __stdcall thread_main(void *p)
{
    Thread *t = p;
    t->fn(t->arg);
    return 0;
}

bool os_thread_start(OsThread *t, void *(*fn)(void *), void *arg)
{
    Thread *th = THREAD(t);
    th->fn = fn;
    th->arg = arg;
    uintptr_t h = _beginthreadex(NULL, 0, thread_main, th, 0, NULL);
    th->handle = (HANDLE)h;
    return h != 0;
}

void os_thread_join(OsThread *t)
{
    WaitForSingleObject(THREAD(t)->handle, INFINITE);
    CloseHandle(THREAD(t)->handle);
}

bool os_mutex_init(OsMutex *m)
{
    InitializeSRWLock(MUTEX(m));
    return true;
}

void os_mutex_destroy(OsMutex *m) { (void)m; }
void os_mutex_lock(OsMutex *m) { AcquireSRWLockExclusive(MUTEX(m)); }
void os_mutex_unlock(OsMutex *m) { ReleaseSRWLockExclusive(MUTEX(m)); }

bool os_cond_init(OsCond *c)
{
    InitializeConditionVariable(COND(c));
    return true;
}

void os_cond_destroy(OsCond *c) { (void)c; }
void os_cond_wait(OsCond *c, OsMutex *m) { SleepConditionVariableSRW(COND(c), MUTEX(m), INFINITE, 0); }
void os_cond_broadcast(OsCond *c) { WakeAllConditionVariable(COND(c)); }
