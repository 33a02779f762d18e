/*
 * util.h - domain-free helpers: allocation choke point, arena, growable
 * string buffer, vectors, string hash map, little-endian writers, UTF-8 and
 * UTF-16 conversion, number parsing.  Nothing here knows about manifests.
 */
#ifndef MCGEN_UTIL_H
#define MCGEN_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* mingw-w64 builds use its C99 printf (__USE_MINGW_ANSI_STDIO), not
 * msvcrt's: gnu_printf is the one that knows %zu and %llu. */
#if defined(__MINGW32__)
#define PRINTF_LIKE(f, a) __attribute__((format(gnu_printf, f, a)))
#define NORETURN __attribute__((noreturn))
#elif defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#define NORETURN __attribute__((noreturn))
#else
#define PRINTF_LIKE(f, a)
#define NORETURN
#endif

/* Internal bugs: names the tool's own source position, then aborts. */
#define unreachable_here() util_internal_error(__FILE__, __LINE__, "unreachable")
/* A writer's last line of defence: a value its field cannot hold is an
 * internal error (a check that should have refused the input), never a
 * value silently cut to the field's width. */
#define guard_here(cond, what) ((cond) ? (void)0 : util_internal_error(__FILE__, __LINE__, what))
NORETURN void util_internal_error(const char *file, int line, const char *what);

/* ---- allocation ------------------------------------------------------
 * Every heap allocation of the program goes through this choke point:
 * mcgen's own through xmalloc/xcalloc/xrealloc (which never return NULL),
 * expat's through util_try_malloc/util_try_realloc (xml.c hands them to
 * expat as its XML_Memory_Handling_Suite; they return NULL, as expat
 * expects, and expat reports XML_ERROR_NO_MEMORY, which xml.c diagnoses
 * as "out of memory", an I/O-class error).  One counter sees both, so a
 * test can fail the N-th allocation of a run for every N.
 *
 * How a failure unwinds: it does not.  util_out_of_memory prints
 * "mcgen: error: out of memory" and exits with status 2 (a problem of the
 * environment, like I/O).  Checking every call site instead would touch
 * every function that allocates, for a path no caller can do anything
 * useful on; a longjmp cannot cross the threads (xml.c's reader, the
 * TEMP.BIN and JSON workers) and would orphan every vector and buffer of
 * the frames it skips.  Why this is sound:
 *   - no output is damaged: the driver commits every output (out.c:
 *     temporary file, then rename) only at the end of a run without
 *     errors, so an exit before that leaves every existing file as it was
 *     (a commit must do its allocating before its first rename), and the
 *     cleanup registered with util_on_out_of_memory removes the
 *     temporaries;
 *   - nothing leaks under LeakSanitizer: exit() does not unwind, and the
 *     leak check that runs at exit takes every thread's stack, registers
 *     and the globals as roots, so the run's arena (Manifest.arena), its
 *     vectors and maps, all reachable from frames still on the stack, are
 *     live memory, not leaks (the block of a failed xrealloc, which its
 *     caller may no longer hold, is kept in a thread-local); a block really
 *     lost before the failure is still reported;
 *   - threads: the first thread to run out of memory takes an atomic flag
 *     and exits; another one that runs out meanwhile waits for that exit
 *     instead of calling exit() a second time (two concurrent exit() calls
 *     are undefined, C11 7.22.4.4); the injection counter is atomic.  The
 *     worker threads are not joined, which ThreadSanitizer calls a thread
 *     leak: the allocation-failure tests run it with report_thread_leaks=0.
 *
 * Fault injection (tests): util_fail_after(n), or the environment variable
 * MCGEN_FAIL_ALLOC=N read at the first allocation: the N-th allocation
 * (counting from 1) fails, and only that one.  One failure, not all from
 * there on: then every path that recovers from a NULL (expat's, and xml.c
 * diagnosing XML_ERROR_NO_MEMORY) runs to its end, instead of being cut
 * short by the next allocation.  Without either, the check costs one
 * relaxed atomic load. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* The same allocations, counted and failed the same way, but NULL on
 * failure (for expat, which handles NULL itself). */
void *util_try_malloc(size_t n);
void *util_try_realloc(void *p, size_t n);
/* Whole pages of their own (os_pages_alloc; os_pages_free gives them
 * back), counted like the others: xml.c's large expat blocks. */
void *util_try_pages(size_t n);
/* Ends the run: the message on stderr, the cleanup below, exit status 2.
 * Thread-safe. */
NORETURN void util_out_of_memory(void);
/* One function util_out_of_memory calls before it exits, on the thread
 * that ran out (out.c: remove the run's temporary files).  It must not
 * allocate.  NULL: none. */
void util_on_out_of_memory(void (*cleanup)(void));
/* Sets the C library's heap up for a run (glibc: blocks up to 32 MiB from
 * the heap, and freed memory kept for reuse); called first thing. */
void util_tune_heap(void);
/* After `n` more successful allocations, the next one fails (-1: none);
 * returns how many were left before the call (-1: none armed). */
long util_fail_after(long n);

/* ---- arena -----------------------------------------------------------
 * Bump allocator; everything in it is freed at once by arena_free.
 * arena_alloc's allocations are 8-byte aligned and zeroed, taken from the
 * bottom of the head block up; strings (arena_strdup and the others) are
 * taken from its top down, unaligned.  arena_release gives back
 * everything allocated since an arena_mark (a loop's temporaries). */
typedef struct ArenaBlock ArenaBlock;
typedef struct Arena {
    ArenaBlock *head;
    size_t used; /* bytes used in head from the bottom */
    size_t cap;  /* where the strings at head's top begin: free is [used, cap) */
    size_t total;
    ArenaBlock *spare; /* a released block kept for the next one needed */
} Arena;

void *arena_alloc(Arena *a, size_t n);
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...) PRINTF_LIKE(2, 3);
void arena_free(Arena *a);
/* The arena's fill, to come back to with arena_release: what was allocated
 * after the mark is freed (and must no longer be used); what was allocated
 * before it stays.  One released block is kept for reuse, so a loop that
 * marks and releases each time round does not allocate a block each time.
 * Marks nest: release the innermost first. */
typedef struct ArenaMark {
    ArenaBlock *head;
    size_t used, top;
} ArenaMark;
ArenaMark arena_mark(const Arena *a);
void arena_release(Arena *a, ArenaMark m);
/* About n bytes (up to 4 MiB) are about to be allocated: the head block
 * is made one with that room now, so that a large model starts in a
 * block of huge pages rather than in the small blocks of 4 KiB pages
 * the doubling would go through first (one page fault each). */
void arena_expect(Arena *a, size_t n);
/* Up to `budget` bytes of the blocks arenas free are kept for the arenas
 * made after (0, the default: none; setting it frees what is over it): a
 * batch of manifests read one after another reuses one set of pages. */
void arena_pool_keep(size_t budget);

/* ---- string buffer ---------------------------------------------------
 * Invariants: `s` is NULL (len == cap == 0) or points to `cap` bytes of
 * which the first `len` are content and s[len] == '\0'.  Content may hold
 * NUL bytes; `len` is authoritative. */
typedef struct Buf {
    char *s;
    size_t len, cap;
} Buf;

void buf_grow(Buf *b, size_t extra);
void buf_add_slow(Buf *b, const void *p, size_t n);
/* Appends n bytes; the common case (room enough) inline. */
static inline void buf_add(Buf *b, const void *p, size_t n)
{
    if (b->len + n + 1 > b->cap || !n) {
        buf_add_slow(b, p, n);
        return;
    }
    memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = '\0';
}
void buf_adds(Buf *b, const char *s);
static inline void buf_addc(Buf *b, char c) { buf_add(b, &c, 1); }
void buf_printf(Buf *b, const char *fmt, ...) PRINTF_LIKE(2, 3);
void buf_vprintf(Buf *b, const char *fmt, va_list ap);
void buf_reset(Buf *b);
void buf_free(Buf *b);
/* Appends s with each control character (below U+0020, U+007F) shown as
 * '?': a name quoted in a diagnostic that refuses it for holding one. */
void buf_add_shown(Buf *b, const char *s);
/* s as XML character data (& < > escaped), or as an attribute value
 * (also '"', and TAB, LF, CR as character references, which an XML
 * parser would otherwise turn into spaces). */
void buf_add_xml(Buf *b, const char *s, bool attr);
/* Little-endian writers (for the binary emitters), inline: TEMP.BIN is
 * hundreds of thousands of them, and the call cost more than the store. */
static inline void buf_u8(Buf *b, uint8_t v) { buf_add(b, &v, 1); }
/* Little-endian reads of bytes the caller has checked are there. */
static inline uint32_t get_u16le(const unsigned char *p) { return (uint32_t)(p[0] | p[1] << 8); }
static inline uint32_t get_u32le(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void buf_u16le(Buf *b, uint16_t v)
{
    unsigned char x[2] = {(unsigned char)v, (unsigned char)(v >> 8)};
    buf_add(b, x, 2);
}
static inline void buf_u32le(Buf *b, uint32_t v)
{
    unsigned char x[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    buf_add(b, x, 4);
}
static inline void buf_u64le(Buf *b, uint64_t v)
{
    buf_u32le(b, (uint32_t)v);
    buf_u32le(b, (uint32_t)(v >> 32));
}
/* v in decimal, without printf's machinery. */
void buf_decimal(Buf *b, uint64_t v);

/* ---- vectors ---------------------------------------------------------
 * VEC(T) declares an anonymous growable array of T.  Elements live in the
 * heap (not the arena) so that growth does not waste arena space; free with
 * vec_free. */
#define VEC(T) struct { T *v; size_t n, cap; }
#define vec_push(vec, x) \
    do { \
        if ((vec)->n == (vec)->cap) \
            vec_grow_((void **)&(vec)->v, &(vec)->cap, sizeof(*(vec)->v)); \
        (vec)->v[(vec)->n++] = (x); \
    } while (0)
#define vec_free(vec) (free((vec)->v), (vec)->v = NULL, (vec)->n = (vec)->cap = 0)
void vec_grow_(void **v, size_t *cap, size_t elem);

/* ---- hash map: NUL-terminated string keys to pointers ----------------
 * Open addressing, a word-at-a-time hash.  Keys are not copied: they must outlive the map
 * (arena strings).  A slot is its entry (16 bytes; an empty one has a NULL key) and a byte
 * of the key's hash in `tag` (0: empty), which spares a strcmp on nearly every collision:
 * 17 bytes a slot, where a stored 32-bit hash made 24 (the maps were a sixth of the peak of
 * a large --validate).  A table grows when it is 7/8 full, not 3/4: probing reads the tags,
 * contiguous bytes, so the longer runs cost little, and a string table of 108,413 ids then
 * takes 2^17 slots, not 2^18 (2.2 MB less, twice in a compile). */
typedef struct MapEntry {
    const char *key;
    void *val;
} MapEntry;
typedef struct Map {
    MapEntry *e;
    unsigned char *tag; /* cap bytes, in e's block */
    size_t n, cap;
} Map;

void *map_get(const Map *m, const char *key);
/* Inserts key; returns the previous value (NULL if the key was new), and
 * keeps the previous value in place when `keep_old` is true. */
void *map_put(Map *m, const char *key, void *val, bool keep_old);
/* The address of key's value, the key added with a NULL value when new:
 * a lookup and an insert in one probe (the pointer lasts until the next
 * insert). */
void **map_ref(Map *m, const char *key);
/* The entry of the n bytes at key, which key[n] need not end: map_ref's
 * one probe for a key not yet NUL-ended.  When it is new (*added) its key
 * is `key` itself and its value NULL: the caller sets the key to a
 * lasting NUL-ended copy before the next insert. */
MapEntry *map_ref_n(Map *m, const char *key, size_t n, bool *added);
/* Room for n keys without growing: a caller that knows the count spares
 * the rehashes (each hashes every key again). */
void map_reserve(Map *m, size_t n);
/* dst made a map of src's keys and values (its own table, no rehash). */
void map_copy(Map *dst, const Map *src);
void map_free(Map *m);
uint32_t util_hash(const char *s, size_t n);

/* ---- pointer map: object addresses to pointers ----------------------
 * Side tables beside a model that a stage must not change: the key is the
 * object's address, compared as such; a missing key reads as NULL. */
typedef struct PtrMapEntry {
    const void *key;
    void *val;
} PtrMapEntry;
typedef struct PtrMap {
    PtrMapEntry *e;
    size_t n, cap;
} PtrMap;

void *ptrmap_get(const PtrMap *m, const void *key);
/* Sets key's value (replacing any). */
void ptrmap_put(PtrMap *m, const void *key, void *val);
/* room for n keys without a rehash */
void ptrmap_reserve(PtrMap *m, size_t n);
void ptrmap_free(PtrMap *m);

/* ---- text ------------------------------------------------------------ */
/* Appends the UTF-8 encoding of code point `c` (invalid -> U+FFFD). */
void utf8_put(Buf *b, uint32_t c);
/* Decodes one UTF-8 sequence at s (n bytes available); returns its length
 * (>= 1) and stores the code point (U+FFFD on bad input). */
size_t utf8_get(const char *s, size_t n, uint32_t *c);
/* Characters of n bytes of UTF-8 (its lead bytes). */
size_t utf8_chars(const char *s, size_t n);
/* UTF-16 units of a NUL-terminated UTF-8 text: one a character, two above
 * U+FFFF. */
size_t utf8_utf16_units(const char *s);
/* UTF-16 (little or big endian) to UTF-8. */
void utf16_to_utf8(Buf *out, const unsigned char *p, size_t nbytes, bool big_endian);
/* Appends UTF-16LE of a UTF-8 string. */
void utf8_to_utf16le(Buf *out, const char *s, size_t n);
/* Appends the Windows-1252 ("ANSI" on English Windows) bytes of a UTF-8
 * string; returns SIZE_MAX, or the offset of the first character that
 * code page cannot hold (the bytes before it are appended). */
size_t utf8_to_cp1252(Buf *out, const char *s, size_t n);
/* The character a Windows-1252 byte stands for (the five bytes the code
 * page leaves undefined stand for the C1 controls U+0081 ..., as Windows
 * reads them). */
uint32_t cp1252_decode(unsigned char byte);

/* Parses an unsigned integer, decimal or 0x-prefixed hex, the whole string
 * (surrounding XML whitespace allowed).  false on syntax error or overflow
 * of `max`. */
bool parse_uint(const char *s, uint64_t max, uint64_t *out);
bool parse_bool(const char *s, bool *out); /* true/false/1/0 */
bool is_xml_space(int c);
/* Strips leading and trailing XML whitespace in place-ish: returns a
 * pointer into s and stores the new length. */
const char *trim_span(const char *s, size_t *len);

/* SHA-256 of n bytes: with the CPU's SHA instructions when it has them
 * (sha256_hw), else portable C; the same digest either way. */
void sha256(const void *data, size_t n, unsigned char out[32]);
bool sha256_hw(void);
/* The portable compression of n 64-byte blocks into the state st, which
 * sha256 uses without SHA instructions (for tests that compare the two). */
void sha256_blocks_portable(uint32_t st[8], const unsigned char *p, size_t n);
/* MD5 of n bytes; md5_from starts from a given chaining state (the
 * padding then counts only these n bytes). */
void md5(const void *data, size_t n, unsigned char out[16]);
void md5_from(const uint32_t init[4], const void *data, size_t n, unsigned char out[16]);

/* Sorts like qsort, but stably (equal elements keep their order), so the
 * result does not depend on the C library; n == 0 with base NULL is fine. */
void sort_stable(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
/* The same order by the uint32_t at byte key_at of each element, by radix
 * (a byte of the key at a time): lists of ids run to tens of thousands,
 * where comparing cost ten times as much. */
void sort_stable_u32(void *base, size_t n, size_t size, size_t key_at);
/* In an array sorted that way, the index of the first element whose key
 * is not below `key` (n when none). */
size_t search_u32(const void *base, size_t n, size_t size, size_t key_at, uint32_t key);

/* Reads a whole file; NULL with errno set on failure. */
char *read_file(const char *path, size_t *len);

/* Writes s as a C string literal (NULL as NULL), for the tables the build
 * generates.  Every byte outside printable ASCII, and '?' (no trigraph),
 * is a three-digit octal escape, so a digit after one is not read into it. */
void put_c_string(FILE *out, const char *s);

#endif
