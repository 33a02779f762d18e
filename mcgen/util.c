/*
 * util.c - domain-free helpers (see util.h).  Small and boring on purpose:
 * one allocation choke point that tests can make fail, a bump arena for
 * everything that lives as long as a run, a byte buffer, an open-addressing
 * hash map, and the UTF-8/UTF-16 conversions the XML and binary layers need.
 */
#include "util.h"
#include "os.h"

#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

void util_internal_error(const char *file, int line, const char *what)
{
    fprintf(stderr, "mcgen: internal error at %s:%d: %s\n", file, line, what);
    abort();
}

/* ---- allocation ---- */

/* Allocations left before the injected failure: -1 none, -2 not yet read
 * from MCGEN_FAIL_ALLOC.  Atomic: a writer may run on a thread of its own
 * (emit_wevt.c allows it), and exactly one allocation must fail. */
static atomic_long fail_after = -2;
static atomic_flag exiting = ATOMIC_FLAG_INIT;

/* MCGEN_FAIL_ALLOC=N: the N-th allocation fails (N >= 1). */
static long fail_after_from_env(void)
{
    const char *e = getenv("MCGEN_FAIL_ALLOC");
    uint64_t n = 0;
    long v = e && parse_uint(e, LONG_MAX, &n) && n >= 1 ? (long)n - 1 : -1;
    long unread = -2;
    atomic_compare_exchange_strong(&fail_after, &unread, v);
    return atomic_load(&fail_after);
}

/* glibc moves its mmap threshold up to the size of each mmapped block
 * freed, and gives the top of the heap back past 128 KiB free: so a map
 * that doubles, a vector that grows, lands in fresh pages each time (each
 * page a fault and a page the kernel zeroes), and where a block lands
 * depends on what was freed before it.  Fixed: blocks up to 32 MiB come
 * from the heap, and freed ones are reused rather than given back (a run
 * is short; its peak is what counts, not what it holds after it). */
void util_tune_heap(void)
{
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024);
#endif
}

long util_fail_after(long n)
{
    long left = atomic_exchange(&fail_after, n < 0 ? -1 : n);
    return left == -2 ? -1 : left;
}

static bool injected_failure(void)
{
    long n = atomic_load_explicit(&fail_after, memory_order_relaxed);
    if (n == -1)
        return false;
    if (n == -2)
        n = fail_after_from_env();
    /* n > 0: count this one down; n == 0: this one fails, later ones do
     * not (one thread wins the exchange) */
    while (n >= 0)
        if (atomic_compare_exchange_weak_explicit(&fail_after, &n, n - 1, memory_order_relaxed,
                                                  memory_order_relaxed))
            return n == 0;
    return false;
}

typedef void (*Cleanup)(void);
static _Atomic(Cleanup) oom_cleanup;

void util_on_out_of_memory(void (*cleanup)(void)) { atomic_store(&oom_cleanup, cleanup); }

void util_out_of_memory(void)
{
    if (atomic_flag_test_and_set(&exiting)) {
        /* another thread is ending the process: wait for it */
        for (;;)
            os_nap();
    }
    fputs("mcgen: error: out of memory\n", stderr);
    Cleanup cleanup = atomic_load(&oom_cleanup);
    if (cleanup)
        cleanup();
    exit(2);
}

void *util_try_malloc(size_t n) { return injected_failure() ? NULL : malloc(n ? n : 1); }

void *util_try_realloc(void *p, size_t n)
{
    return injected_failure() ? NULL : realloc(p, n ? n : 1);
}

void *util_try_pages(size_t n) { return injected_failure() ? NULL : os_pages_alloc(n); }

/* A block of 4 MiB or more (a large manifest's vectors and hash tables:
 * malloc maps it fresh) is advised for transparent huge pages: its first
 * touch costs a fault per 2 MiB, not one per 4 KiB (23,900 faults a
 * --validate of 50 MB before, of which the arena's blocks, advised
 * already, were few). */
#define LARGE_BLOCK (4u * 1024 * 1024)

void *xmalloc(size_t n)
{
    void *p = util_try_malloc(n);
    if (!p)
        util_out_of_memory();
    if (n >= LARGE_BLOCK)
        os_advise_large(p, n);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = injected_failure() ? NULL : calloc(n ? n : 1, size ? size : 1);
    if (!p)
        util_out_of_memory();
    if (size && n >= LARGE_BLOCK / size)
        os_advise_large(p, n * size);
    return p;
}

/* The block of a realloc that failed: still allocated, and the caller may
 * hold it only in a variable the compiler has already given up (p =
 * xrealloc(p, n)); kept here it stays reachable for LeakSanitizer's check
 * at exit.  Per thread: several may run out at once. */
static _Thread_local void *volatile failed_realloc;

void *xrealloc(void *p, size_t n)
{
    void *q = util_try_realloc(p, n);
    if (!q) {
        failed_realloc = p;
        util_out_of_memory();
    }
    if (n >= LARGE_BLOCK)
        os_advise_large(q, n);
    return q;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

/* ---- arena ---- */

/* AddressSanitizer learns which bytes of a block are handed out, so a
 * value used after arena_release is reported, not silently read. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define ARENA_ASAN 1
#endif
#ifdef ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define ARENA_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define ARENA_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define ARENA_POISON(p, n) ((void)(p), (void)(n))
#define ARENA_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

struct ArenaBlock {
    ArenaBlock *next;
    size_t cap;
    max_align_t data[];
};

/* Blocks start at 64 KiB and double up to 4 MiB.  Blocks of 2 MiB and more
 * are 2 MiB-aligned and, on Linux, marked for transparent huge pages
 * (os_alloc_large; on Windows plain malloc): a
 * large manifest's model then costs a few hundred page faults instead of
 * tens of thousands.  The sizes that double are the blocks' with their
 * header, so the sixth block is 2 MiB whole and takes huge pages (doubling
 * the room, it came 16 bytes short of them: 512 page faults of the
 * generated 5 MB manifest's 2,050). */
#define HUGE_PAGE (2u * 1024 * 1024)

/* Blocks that arena_free gave back, kept for the next arena while
 * arena_pool_keep allows it: a batch's next manifest reuses the pages the
 * last one touched, not fresh ones the kernel must fault in and zero. */
static ArenaBlock *block_pool;
static size_t pool_bytes, pool_budget;

/* The smallest kept block with room for `want` bytes, else the largest
 * with room for n; NULL: none has room for n. */
static ArenaBlock *pool_take(size_t n, size_t want)
{
    ArenaBlock **best = NULL;
    for (ArenaBlock **p = &block_pool; *p; p = &(*p)->next) {
        size_t c = (*p)->cap;
        if (c < n)
            continue;
        if (!best || (c >= want ? (*best)->cap < want || c < (*best)->cap
                                : (*best)->cap < want && c > (*best)->cap))
            best = p;
    }
    if (!best)
        return NULL;
    ArenaBlock *b = *best;
    *best = b->next;
    pool_bytes -= b->cap;
    return b; /* poisoned until handed out, as a spare is */
}

static ArenaBlock *arena_block(size_t cap)
{
    size_t size = sizeof(ArenaBlock) + cap;
    if (size >= HUGE_PAGE) {
        size = (size + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
        void *p = injected_failure() ? NULL : os_alloc_large(size);
        if (!p)
            util_out_of_memory();
        memset(p, 0, sizeof(ArenaBlock));
        ((ArenaBlock *)p)->cap = size - sizeof(ArenaBlock);
        return p;
    }
    ArenaBlock *b = xmalloc(size);
    b->cap = cap;
    return b;
}

/* A new head block with room for n bytes; the free middle of the old one
 * is left. */
static void arena_grow(Arena *a, size_t n)
{
    size_t cap = 64 * 1024 - sizeof(ArenaBlock);
    if (a->head) {
        size_t size = sizeof(ArenaBlock) + a->head->cap;
        cap = (size < 4 * 1024 * 1024 ? size * 2 : size) - sizeof(ArenaBlock);
    }
    if (cap < n)
        cap = n;
    ArenaBlock *b;
    if (a->spare && a->spare->cap >= n) {
        b = a->spare;
        a->spare = NULL;
    } else if (!(b = pool_take(n, cap))) {
        b = arena_block(cap);
    }
    b->next = a->head;
    a->head = b;
    a->used = 0;
    a->cap = b->cap;
    a->total += b->cap;
}

void *arena_alloc(Arena *a, size_t n)
{
    n = (n + 7) & ~(size_t)7;
    if (!a->head || a->used + n > a->cap)
        arena_grow(a, n);
    void *p = (char *)a->head->data + a->used;
    a->used += n;
    ARENA_UNPOISON(p, n);
    memset(p, 0, n);
    return p;
}

/* Strings are taken from the top of the block down (Arena.cap), packed
 * with no alignment and not zeroed first: half the model's allocations
 * are short strings, which 8-byte steps would pad by 4 bytes each. */
char *arena_strndup(Arena *a, const char *s, size_t n)
{
    if (!a->head || a->used + n + 1 > a->cap)
        arena_grow(a, n + 1);
    a->cap -= n + 1;
    char *p = (char *)a->head->data + a->cap;
    ARENA_UNPOISON(p, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(Arena *a, const char *fmt, ...)
{
    Buf b = {0};
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&b, fmt, ap);
    va_end(ap);
    char *p = arena_strndup(a, b.s ? b.s : "", b.len);
    buf_free(&b);
    return p;
}

static void arena_block_free(ArenaBlock *b)
{
    if (pool_bytes + b->cap <= pool_budget) {
        ARENA_POISON(b->data, b->cap);
        b->next = block_pool;
        block_pool = b;
        pool_bytes += b->cap;
        return;
    }
    ARENA_UNPOISON(b->data, b->cap);
    free(b);
}

void arena_expect(Arena *a, size_t n)
{
    const size_t most = 4 * 1024 * 1024 - sizeof(ArenaBlock);
    if (n > most)
        n = most;
    if (!a->head || a->cap - a->used < n)
        arena_grow(a, n);
}

void arena_pool_keep(size_t budget)
{
    pool_budget = budget;
    while (block_pool && pool_bytes > budget) {
        ArenaBlock *b = block_pool;
        block_pool = b->next;
        pool_bytes -= b->cap;
        ARENA_UNPOISON(b->data, b->cap);
        free(b);
    }
}

void arena_free(Arena *a)
{
    ArenaBlock *b = a->head;
    while (b) {
        ArenaBlock *next = b->next;
        arena_block_free(b);
        b = next;
    }
    if (a->spare)
        arena_block_free(a->spare);
    memset(a, 0, sizeof *a);
}

ArenaMark arena_mark(const Arena *a) { return (ArenaMark){a->head, a->used, a->cap}; }

void arena_release(Arena *a, ArenaMark m)
{
    /* the blocks added since the mark: the largest becomes the spare */
    while (a->head != m.head) {
        ArenaBlock *b = a->head;
        a->head = b->next;
        a->total -= b->cap;
        if (!a->spare || a->spare->cap < b->cap) {
            if (a->spare)
                arena_block_free(a->spare);
            a->spare = b;
            ARENA_POISON(b->data, b->cap);
        } else {
            arena_block_free(b);
        }
    }
    a->cap = m.top;
    a->used = m.used;
    if (m.head)
        ARENA_POISON((char *)m.head->data + m.used, m.top - m.used);
}

/* ---- buffer ---- */

void buf_grow(Buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1)
        cap *= 2;
    b->s = xrealloc(b->s, cap);
    b->cap = cap;
}

void buf_add_slow(Buf *b, const void *p, size_t n)
{
    buf_grow(b, n);
    if (n)
        memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void buf_adds(Buf *b, const char *s) { buf_add(b, s, strlen(s)); }

void buf_add_xml(Buf *b, const char *s, bool attr)
{
    for (; *s; s++) {
        const char *ref = NULL;
        switch (*s) {
        case '&': ref = "&amp;"; break;
        case '<': ref = "&lt;"; break;
        case '>': ref = "&gt;"; break;
        case '"': ref = attr ? "&quot;" : NULL; break;
        case '\t': ref = attr ? "&#9;" : NULL; break;
        case '\n': ref = attr ? "&#10;" : NULL; break;
        case '\r': ref = "&#13;"; break; /* a parser makes CR LF a LF */
        default: break;
        }
        if (ref)
            buf_adds(b, ref);
        else
            buf_addc(b, *s);
    }
}

void buf_add_shown(Buf *b, const char *s)
{
    for (; *s; s++)
        buf_addc(b, (unsigned char)*s < 0x20 || *s == 0x7F ? '?' : *s);
}

void buf_vprintf(Buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    char tmp[256];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    if (n < 0) {
        va_end(ap2);
        return;
    }
    if ((size_t)n < sizeof tmp) {
        buf_add(b, tmp, (size_t)n);
    } else {
        buf_grow(b, (size_t)n);
        vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap2);
        b->len += (size_t)n;
    }
    va_end(ap2);
}

void buf_printf(Buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void buf_reset(Buf *b)
{
    b->len = 0;
    if (b->s)
        b->s[0] = '\0';
}

void buf_free(Buf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

void buf_decimal(Buf *b, uint64_t v)
{
    char tmp[20], *p = tmp + sizeof tmp;
    do
        *--p = (char)('0' + v % 10);
    while (v /= 10);
    buf_add(b, p, (size_t)(tmp + sizeof tmp - p));
}

/* ---- vectors ---- */

void vec_grow_(void **v, size_t *cap, size_t elem)
{
    size_t n = *cap ? *cap * 2 : 8;
    *v = xrealloc(*v, n * elem);
    *cap = n;
}

/* ---- hash map ---- */

/* Eight bytes at a time (keys are symbols and names of 10-40 bytes: a
 * byte-wise FNV-1a was most of map_get's cost), the last word read
 * overlapping the one before so no byte past the key is touched; the final
 * mix spreads every input bit into the low bits the table index uses. */
static uint64_t load64(const char *s)
{
    uint64_t w;
    memcpy(&w, s, 8);
    return w;
}

static uint64_t load32(const char *s)
{
    uint32_t w;
    memcpy(&w, s, 4);
    return w;
}

static inline uint32_t hash_bytes(const char *s, size_t n)
{
    const uint64_t k = 0x9e3779b97f4a7c15ull;
    uint64_t h = n * k;
    if (n >= 8) {
        size_t i = 0;
        for (; i + 8 < n; i += 8)
            h = (h ^ load64(s + i)) * k, h ^= h >> 32;
        h = (h ^ load64(s + n - 8)) * k;
    } else if (n >= 4) {
        h = (h ^ (load32(s) << 32 | load32(s + n - 4))) * k;
    } else if (n) {
        uint64_t w = (uint64_t)(unsigned char)s[0] << 16 |
                     (uint64_t)(unsigned char)s[n / 2] << 8 | (unsigned char)s[n - 1];
        h = (h ^ w) * k;
    }
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return (uint32_t)h;
}

uint32_t util_hash(const char *s, size_t n) { return hash_bytes(s, n); }

/* The tag: seven bits of the hash the index does not use, and a set top bit (0 is empty). */
static unsigned char map_tag(uint32_t h) { return (unsigned char)(h >> 25 | 0x80); }

static inline size_t map_slot(const Map *m, const char *key, uint32_t h)
{
    const unsigned char t = map_tag(h), *tag = m->tag;
    const MapEntry *e = m->e;
    size_t mask = m->cap - 1, i = h & mask;
    for (;; i = (i + 1) & mask)
        if (!tag[i] || (tag[i] == t && strcmp(e[i].key, key) == 0))
            return i;
}

void *map_get(const Map *m, const char *key)
{
    if (!m->cap)
        return NULL;
    size_t i = map_slot(m, key, hash_bytes(key, strlen(key)));
    return m->tag[i] ? m->e[i].val : NULL;
}

/* The first empty slot on hash h's probe: where a key known to be
 * absent goes. */
static size_t map_empty_slot(const Map *m, uint32_t h)
{
    size_t mask = m->cap - 1, i = h & mask;
    while (m->tag[i])
        i = (i + 1) & mask;
    return i;
}

/* Slot i, empty, made key's (with a NULL value). */
static MapEntry *map_fill(Map *m, size_t i, const char *key, uint32_t h)
{
    m->e[i] = (MapEntry){key, NULL};
    m->tag[i] = map_tag(h);
    m->n++;
    return &m->e[i];
}

/* The tag keeps a byte of the hash, not all of it: each key is hashed again (the keys are
 * distinct, so no strcmp). */
static void map_rehash(Map *m, size_t cap)
{
    Map g = {NULL, NULL, 0, cap};
    g.e = xcalloc(g.cap, sizeof *g.e + 1);
    g.tag = (unsigned char *)(g.e + g.cap);
    for (size_t i = 0; i < m->cap; i++)
        if (m->tag[i]) {
            uint32_t h = hash_bytes(m->e[i].key, strlen(m->e[i].key));
            map_fill(&g, map_empty_slot(&g, h), m->e[i].key, h)->val = m->e[i].val;
        }
    free(m->e);
    *m = g;
}

/* The slot of key, added (with a NULL value) when new; *added says which. */
static inline MapEntry *map_add(Map *m, const char *key, bool *added)
{
    if ((m->n + 1) * 8 > m->cap * 7)
        map_rehash(m, m->cap ? m->cap * 2 : 16);
    uint32_t h = hash_bytes(key, strlen(key));
    size_t i = map_slot(m, key, h);
    *added = !m->tag[i];
    return *added ? map_fill(m, i, key, h) : &m->e[i];
}

void *map_put(Map *m, const char *key, void *val, bool keep_old)
{
    bool added;
    MapEntry *x = map_add(m, key, &added);
    void *old = x->val;
    if (added || !keep_old)
        x->val = val;
    return added ? NULL : old;
}

void map_reserve(Map *m, size_t n)
{
    if (!n)
        return;
    size_t cap = m->cap ? m->cap : 16;
    while (n * 8 > cap * 7)
        cap *= 2;
    if (cap != m->cap)
        map_rehash(m, cap);
}

void **map_ref(Map *m, const char *key)
{
    bool added;
    return &map_add(m, key, &added)->val;
}

MapEntry *map_ref_n(Map *m, const char *key, size_t n, bool *added)
{
    uint32_t h = hash_bytes(key, n);
    const unsigned char t = map_tag(h);
    size_t mask = m->cap - 1, i = h & mask;
    /* found: the table as it is (it grows only for a key added).  A
     * stored key is NUL-ended, so strncmp stops inside it. */
    for (; m->cap && m->tag[i]; i = (i + 1) & mask)
        if (m->tag[i] == t && strncmp(m->e[i].key, key, n) == 0 && !m->e[i].key[n]) {
            *added = false;
            return &m->e[i];
        }
    if ((m->n + 1) * 8 > m->cap * 7) {
        map_rehash(m, m->cap ? m->cap * 2 : 16);
        i = map_empty_slot(m, h);
    }
    *added = true;
    return map_fill(m, i, key, h);
}

void map_copy(Map *dst, const Map *src)
{
    *dst = *src;
    if (!src->cap)
        return;
    size_t size = src->cap * (sizeof *src->e + 1);
    dst->e = memcpy(xmalloc(size), src->e, size);
    dst->tag = (unsigned char *)(dst->e + dst->cap);
}

void map_free(Map *m)
{
    free(m->e);
    memset(m, 0, sizeof *m);
}

/* ---- pointer map ---- */

static size_t ptr_hash(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x;
}

static PtrMapEntry *ptrmap_slot(PtrMapEntry *e, size_t cap, const void *key)
{
    size_t i = ptr_hash(key) & (cap - 1);
    while (e[i].key && e[i].key != key)
        i = (i + 1) & (cap - 1);
    return &e[i];
}

void *ptrmap_get(const PtrMap *m, const void *key)
{
    if (!m->cap)
        return NULL;
    PtrMapEntry *x = ptrmap_slot(m->e, m->cap, key);
    return x->key ? x->val : NULL;
}

static void ptrmap_rehash(PtrMap *m, size_t cap)
{
    PtrMapEntry *e = xcalloc(cap, sizeof *e);
    for (size_t i = 0; i < m->cap; i++)
        if (m->e[i].key)
            *ptrmap_slot(e, cap, m->e[i].key) = m->e[i];
    free(m->e);
    m->e = e;
    m->cap = cap;
}

/* Sized once from a count known before the puts: each doubling step
 * would touch a new table and leave the old one's pages behind. */
void ptrmap_reserve(PtrMap *m, size_t n)
{
    if (!n)
        return;
    size_t cap = m->cap ? m->cap : 16;
    while (n * 4 > cap * 3)
        cap *= 2;
    if (cap != m->cap)
        ptrmap_rehash(m, cap);
}

void ptrmap_put(PtrMap *m, const void *key, void *val)
{
    if ((m->n + 1) * 4 > m->cap * 3)
        ptrmap_rehash(m, m->cap ? m->cap * 2 : 16);
    PtrMapEntry *x = ptrmap_slot(m->e, m->cap, key);
    if (!x->key) {
        x->key = key;
        m->n++;
    }
    x->val = val;
}

void ptrmap_free(PtrMap *m)
{
    free(m->e);
    memset(m, 0, sizeof *m);
}

/* ---- text ---- */

void utf8_put(Buf *b, uint32_t c)
{
    char x[4];
    if ((c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF)
        c = 0xFFFD;
    if (c < 0x80) {
        buf_addc(b, (char)c);
    } else if (c < 0x800) {
        x[0] = (char)(0xC0 | (c >> 6));
        x[1] = (char)(0x80 | (c & 0x3F));
        buf_add(b, x, 2);
    } else if (c < 0x10000) {
        x[0] = (char)(0xE0 | (c >> 12));
        x[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        x[2] = (char)(0x80 | (c & 0x3F));
        buf_add(b, x, 3);
    } else {
        x[0] = (char)(0xF0 | (c >> 18));
        x[1] = (char)(0x80 | ((c >> 12) & 0x3F));
        x[2] = (char)(0x80 | ((c >> 6) & 0x3F));
        x[3] = (char)(0x80 | (c & 0x3F));
        buf_add(b, x, 4);
    }
}

size_t utf8_chars(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += ((unsigned char)s[i] & 0xC0) != 0x80;
    return k;
}

size_t utf8_utf16_units(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if ((*p & 0xC0) != 0x80)
            n += *p >= 0xF0 ? 2 : 1;
    return n;
}

size_t utf8_get(const char *s, size_t n, uint32_t *c)
{
    const unsigned char *p = (const unsigned char *)s;
    if (n == 0) {
        *c = 0xFFFD;
        return 1;
    }
    if (p[0] < 0x80) {
        *c = p[0];
        return 1;
    }
    size_t len;
    uint32_t v, min;
    if ((p[0] & 0xE0) == 0xC0) {
        len = 2, v = p[0] & 0x1F, min = 0x80;
    } else if ((p[0] & 0xF0) == 0xE0) {
        len = 3, v = p[0] & 0x0F, min = 0x800;
    } else if ((p[0] & 0xF8) == 0xF0) {
        len = 4, v = p[0] & 0x07, min = 0x10000;
    } else {
        *c = 0xFFFD;
        return 1;
    }
    if (len > n) {
        *c = 0xFFFD;
        return 1;
    }
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80) {
            *c = 0xFFFD;
            return 1;
        }
        v = (v << 6) | (p[i] & 0x3F);
    }
    *c = (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) ? 0xFFFD : v;
    return len;
}

void utf16_to_utf8(Buf *out, const unsigned char *p, size_t nbytes, bool big_endian)
{
    for (size_t i = 0; i + 1 < nbytes; i += 2) {
        uint32_t u = big_endian ? (uint32_t)(p[i] << 8 | p[i + 1]) : (uint32_t)(p[i] | p[i + 1] << 8);
        if (u >= 0xD800 && u <= 0xDBFF && i + 3 < nbytes) {
            uint32_t lo = big_endian ? (uint32_t)(p[i + 2] << 8 | p[i + 3])
                                     : (uint32_t)(p[i + 2] | p[i + 3] << 8);
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
                u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                i += 2;
            }
        }
        utf8_put(out, u);
    }
}

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

void utf8_to_utf16le(Buf *out, const char *s, size_t n)
{
    /* at most 2 bytes out per byte in (4 for a 4-byte sequence); written
     * through a local pointer, since a store through char * could change
     * out->len as far as the compiler knows, and ASCII (most of every
     * manifest) 8 bytes at a time */
    buf_grow(out, 2 * n);
    unsigned char *q = (unsigned char *)out->s + out->len;
    size_t i = 0;
    while (i < n) {
#if defined(__SSE2__)
        /* 16 ASCII bytes: each widened with a zero byte, two stores */
        if (n - i >= 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
            if (!_mm_movemask_epi8(v)) {
                __m128i z = _mm_setzero_si128();
                _mm_storeu_si128((__m128i *)(void *)q, _mm_unpacklo_epi8(v, z));
                _mm_storeu_si128((__m128i *)(void *)(q + 16), _mm_unpackhi_epi8(v, z));
                q += 32, i += 16;
                continue;
            }
        }
#endif
        uint64_t w;
        if (n - i >= 8 && (memcpy(&w, s + i, 8), !(w & 0x8080808080808080u))) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            /* each byte spread to 16 bits in two words: two stores */
            uint64_t lo = w & 0xFFFFFFFFu, hi = w >> 32;
            lo = (lo | lo << 16) & 0x0000FFFF0000FFFFu;
            lo = (lo | lo << 8) & 0x00FF00FF00FF00FFu;
            hi = (hi | hi << 16) & 0x0000FFFF0000FFFFu;
            hi = (hi | hi << 8) & 0x00FF00FF00FF00FFu;
            memcpy(q, &lo, 8);
            memcpy(q + 8, &hi, 8);
#else
            for (int k = 0; k < 8; k++)
                q[2 * k] = (unsigned char)s[i + (size_t)k], q[2 * k + 1] = 0;
#endif
            q += 16, i += 8;
            continue;
        }
        unsigned char a = (unsigned char)s[i];
        if (a < 0x80) {
            q[0] = a, q[1] = 0;
            q += 2, i++;
            continue;
        }
        uint32_t c;
        i += utf8_get(s + i, n - i, &c);
        if (c >= 0x10000) {
            c -= 0x10000;
            uint32_t hi = 0xD800 + (c >> 10), lo = 0xDC00 + (c & 0x3FF);
            q[0] = (unsigned char)hi, q[1] = (unsigned char)(hi >> 8);
            q[2] = (unsigned char)lo, q[3] = (unsigned char)(lo >> 8);
            q += 4;
        } else {
            q[0] = (unsigned char)c, q[1] = (unsigned char)(c >> 8);
            q += 2;
        }
    }
    out->len = (size_t)((char *)q - out->s);
    out->s[out->len] = '\0';
}

/* Windows-1252's bytes 0x80..0x9F; 0 where the byte is unassigned (those
 * five bytes round-trip as U+0081, U+008D, U+008F, U+0090, U+009D). */
static const uint16_t cp1252_high[32] = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};

uint32_t cp1252_decode(unsigned char byte)
{
    return byte >= 0x80 && byte < 0xA0 ? cp1252_high[byte - 0x80] : byte;
}

size_t utf8_to_cp1252(Buf *out, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t run = i;
        while (run < n && (unsigned char)s[run] < 0x80)
            run++;
        if (run > i) { /* ASCII is the same in Windows-1252 */
            buf_add(out, s + i, run - i);
            i = run;
            continue;
        }
        uint32_t c;
        size_t k = utf8_get(s + i, n - i, &c);
        int byte = -1;
        if (c < 0x80 || (c >= 0xA0 && c <= 0xFF))
            byte = (int)c;
        else
            for (int b = 0; b < 32; b++)
                if (cp1252_high[b] == c)
                    byte = 0x80 + b;
        if (byte < 0)
            return i;
        buf_u8(out, (uint8_t)byte);
        i += k;
    }
    return SIZE_MAX;
}

bool is_xml_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

const char *trim_span(const char *s, size_t *len)
{
    size_t n = strlen(s);
    while (n && is_xml_space((unsigned char)*s))
        s++, n--;
    while (n && is_xml_space((unsigned char)s[n - 1]))
        n--;
    *len = n;
    return s;
}

bool parse_uint(const char *s, uint64_t max, uint64_t *out)
{
    size_t n;
    s = trim_span(s, &n);
    if (n == 0)
        return false;
    uint64_t v = 0;
    size_t i = 0;
    int base = 10;
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        i = 2;
    }
    for (; i < n; i++) {
        int c = (unsigned char)s[i], d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (base == 16 && c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (base == 16 && c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return false;
        if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            return false;
        v = v * (uint64_t)base + (uint64_t)d;
    }
    if (v > max)
        return false;
    *out = v;
    return true;
}

bool parse_bool(const char *s, bool *out)
{
    size_t n;
    s = trim_span(s, &n);
    if ((n == 4 && memcmp(s, "true", 4) == 0) || (n == 1 && s[0] == '1'))
        return *out = true, true;
    if ((n == 5 && memcmp(s, "false", 5) == 0) || (n == 1 && s[0] == '0'))
        return *out = false, true;
    return false;
}

char *read_file(const char *path, size_t *len)
{
    FILE *f = os_fopen(path, "rb");
    if (!f)
        return NULL;
    Buf b = {0};
    char tmp[65536];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
        buf_add(&b, tmp, n);
    int err = ferror(f) ? errno : 0;
    fclose(f);
    if (err) {
        buf_free(&b);
        errno = err;
        return NULL;
    }
    if (!b.s)
        buf_grow(&b, 0), b.s[0] = '\0';
    *len = b.len;
    return b.s;
}

/* The last one or two 64-byte blocks of SHA-256 and MD5: the `left` (< 64)
 * remaining bytes, 0x80, zeros, and the message length in bits (big-endian
 * for SHA-256, little-endian for MD5).  Returns 64 or 128. */
static size_t md_pad(unsigned char tail[128], const unsigned char *p, size_t left, uint64_t bits,
                     bool big_endian)
{
    memset(tail, 0, 128);
    memcpy(tail, p, left);
    tail[left] = 0x80;
    size_t tn = left + 9 <= 64 ? 64 : 128;
    for (int i = 0; i < 8; i++)
        tail[big_endian ? tn - 1 - (size_t)i : tn - 8 + (size_t)i] = (unsigned char)(bits >> (8 * i));
    return tn;
}

/* ---- SHA-256 (FIPS 180-4) ---- */

static const uint32_t sha_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

static uint32_t ror(uint32_t x, int n) { return x >> n | x << (32 - n); }

static void sha256_block(uint32_t h[8], const unsigned char *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = k + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) +
                      sha_k[i] + w[i];
        uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        k = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

void sha256_blocks_portable(uint32_t st[8], const unsigned char *p, size_t n)
{
    for (; n; n--, p += 64)
        sha256_block(st, p);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>

/* The x86 SHA extensions (SHA-NI), two rounds an instruction: ABEF and
 * CDGH are the state's two halves as sha256rnds2 wants them, and m[] the
 * schedule's last sixteen words, four to a register. */
__attribute__((target("sha,sse4.1,ssse3"))) static void
sha256_blocks_shani(uint32_t st[8], const unsigned char *p, size_t n)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i t = _mm_loadu_si128((const __m128i *)&st[0]);
    __m128i s1 = _mm_loadu_si128((const __m128i *)&st[4]);
    t = _mm_shuffle_epi32(t, 0xB1);            /* CDAB */
    s1 = _mm_shuffle_epi32(s1, 0x1B);          /* EFGH */
    __m128i s0 = _mm_alignr_epi8(t, s1, 8);    /* ABEF */
    s1 = _mm_blend_epi16(s1, t, 0xF0);         /* CDGH */
    for (; n; n--, p += 64) {
        __m128i abef = s0, cdgh = s1, m[4];
        for (int g = 0; g < 16; g++) {
            if (g < 4) {
                m[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * g)), bswap);
            } else {
                __m128i x = _mm_sha256msg1_epu32(m[g & 3], m[(g - 3) & 3]);
                x = _mm_add_epi32(x, _mm_alignr_epi8(m[(g - 1) & 3], m[(g - 2) & 3], 4));
                m[g & 3] = _mm_sha256msg2_epu32(x, m[(g - 1) & 3]);
            }
            __m128i k = _mm_add_epi32(m[g & 3], _mm_loadu_si128((const __m128i *)&sha_k[4 * g]));
            s1 = _mm_sha256rnds2_epu32(s1, s0, k);
            s0 = _mm_sha256rnds2_epu32(s0, s1, _mm_shuffle_epi32(k, 0x0E));
        }
        s0 = _mm_add_epi32(s0, abef);
        s1 = _mm_add_epi32(s1, cdgh);
    }
    t = _mm_shuffle_epi32(s0, 0x1B);           /* FEBA */
    s1 = _mm_shuffle_epi32(s1, 0xB1);          /* DCHG */
    _mm_storeu_si128((__m128i *)&st[0], _mm_blend_epi16(t, s1, 0xF0)); /* DCBA */
    _mm_storeu_si128((__m128i *)&st[4], _mm_alignr_epi8(s1, t, 8));    /* HGFE */
}

/* SHA, SSSE3 and SSE4.1 (CPUID leaf 7 EBX bit 29; leaf 1 ECX bits 9, 19).
 * valgrind's emulated CPU reports no SHA, so it runs the portable code. */
static bool cpu_has_sha(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & 1u << 9) || !(c & 1u << 19))
        return false;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & 1u << 29);
}
#endif

bool sha256_hw(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    static atomic_int has = -1; /* -1: not asked yet */
    int v = atomic_load_explicit(&has, memory_order_relaxed);
    if (v < 0)
        atomic_store_explicit(&has, v = cpu_has_sha(), memory_order_relaxed);
    return v;
#else
    return false;
#endif
}

static void sha256_blocks(uint32_t st[8], const unsigned char *p, size_t n)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (sha256_hw()) {
        sha256_blocks_shani(st, p, n);
        return;
    }
#endif
    sha256_blocks_portable(st, p, n);
}

void sha256(const void *data, size_t n, unsigned char out[32])
{
    uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    const unsigned char *p = data;
    sha256_blocks(h, p, n / 64);
    unsigned char tail[128];
    size_t tn = md_pad(tail, p + n / 64 * 64, n % 64, (uint64_t)n * 8, true);
    sha256_blocks(h, tail, tn / 64);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++)
            out[4 * i + j] = (unsigned char)(h[i] >> (24 - 8 * j));
}

/* ---- MD5 (RFC 1321), with the chaining state exposed ---- */

static const uint32_t md5_k[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613,
    0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193,
    0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d,
    0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
    0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122,
    0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
    0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244,
    0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
    0xeb86d391};
static const int md5_r[64] = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                              5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
                              4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                              6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};

static void md5_block(uint32_t st[4], const unsigned char *p)
{
    uint32_t m[16];
    for (int i = 0; i < 16; i++)
        m[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
               (uint32_t)p[4 * i + 3] << 24;
    uint32_t a = st[0], b = st[1], c = st[2], d = st[3];
    for (int i = 0; i < 64; i++) {
        uint32_t f;
        int g;
        if (i < 16)
            f = (b & c) | (~b & d), g = i;
        else if (i < 32)
            f = (d & b) | (~d & c), g = (5 * i + 1) % 16;
        else if (i < 48)
            f = b ^ c ^ d, g = (3 * i + 5) % 16;
        else
            f = c ^ (b | ~d), g = (7 * i) % 16;
        uint32_t t = d;
        d = c;
        c = b;
        uint32_t x = a + f + md5_k[i] + m[g];
        b = b + (x << md5_r[i] | x >> (32 - md5_r[i]));
        a = t;
    }
    st[0] += a, st[1] += b, st[2] += c, st[3] += d;
}

void md5_from(const uint32_t init[4], const void *data, size_t n, unsigned char out[16])
{
    uint32_t st[4] = {init[0], init[1], init[2], init[3]};
    const unsigned char *p = data;
    size_t left = n;
    while (left >= 64) {
        md5_block(st, p);
        p += 64, left -= 64;
    }
    unsigned char tail[128];
    size_t tn = md_pad(tail, p, left, (uint64_t)n * 8, false);
    md5_block(st, tail);
    if (tn == 128)
        md5_block(st, tail + 64);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            out[4 * i + j] = (unsigned char)(st[i] >> (8 * j));
}

void md5(const void *data, size_t n, unsigned char out[16])
{
    static const uint32_t init[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
    md5_from(init, data, n, out);
}

/* ---- stable sort (merge sort): equal elements keep their order, so the
 * result is the same with every C library ---- */

/* One element moved: the sizes sorted (pointers, 8; small records, 16
 * and 24) copied inline rather than through a memcpy call each. */
static inline void sort_move(char *d, const char *s, size_t size)
{
    if (size == 8)
        memcpy(d, s, 8);
    else if (size == 16)
        memcpy(d, s, 16);
    else if (size == 24)
        memcpy(d, s, 24);
    else
        memcpy(d, s, size);
}

/* Runs this short are sorted by insertion: fewer comparisons and moves
 * than merging down to single elements. */
#define SORT_RUN 12

static void merge_pass(char *a, char *tmp, size_t n, size_t size,
                       int (*cmp)(const void *, const void *))
{
    if (n <= SORT_RUN) {
        for (size_t i = 1; i < n; i++) {
            if (cmp(a + i * size, a + (i - 1) * size) >= 0)
                continue;
            sort_move(tmp, a + i * size, size);
            size_t j = i;
            do {
                sort_move(a + j * size, a + (j - 1) * size, size);
                j--;
            } while (j > 0 && cmp(tmp, a + (j - 1) * size) < 0);
            sort_move(a + j * size, tmp, size);
        }
        return;
    }
    size_t half = n / 2;
    merge_pass(a, tmp, half, size, cmp);
    merge_pass(a + half * size, tmp, n - half, size, cmp);
    /* halves already in order (most of the lists sorted are: events and
     * messages by id, as written): one comparison instead of a merge */
    if (cmp(a + half * size, a + (half - 1) * size) >= 0)
        return;
    /* only the left half moves aside: the merged output never overtakes
     * the right half's next element, and when the left half runs out the
     * rest of the right half is already in place */
    memcpy(tmp, a, half * size);
    size_t i = 0, j = half, k = 0;
    while (i < half && j < n) {
        if (cmp(a + j * size, tmp + i * size) < 0)
            sort_move(a + k++ * size, a + j++ * size, size);
        else
            sort_move(a + k++ * size, tmp + i++ * size, size);
    }
    if (i < half)
        memcpy(a + k * size, tmp + i * size, (half - i) * size);
}

void sort_stable(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n < 2)
        return;
    /* the left half at most, and one element for insertion */
    char *tmp = xmalloc((n / 2 + 1) * size);
    merge_pass(base, tmp, n, size, cmp);
    free(tmp);
}

static uint32_t sort_key_u32(const char *elem, size_t key_at)
{
    uint32_t k;
    memcpy(&k, elem + key_at, sizeof k);
    return k;
}

size_t search_u32(const void *base, size_t n, size_t size, size_t key_at, uint32_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint32_t k;
        memcpy(&k, (const char *)base + mid * size + key_at, sizeof k);
        if (k < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void sort_stable_u32(void *base, size_t n, size_t size, size_t key_at)
{
    if (n < 2)
        return;
    char *tmp = xmalloc(n * size), *from = base, *to = tmp;
    for (int shift = 0; shift < 32; shift += 8) {
        size_t count[257] = {0};
        for (size_t i = 0; i < n; i++)
            count[((sort_key_u32(from + i * size, key_at) >> shift) & 0xFF) + 1]++;
        if (count[((sort_key_u32(from, key_at) >> shift) & 0xFF) + 1] == n)
            continue; /* that byte is the same in every key */
        for (size_t b = 1; b < 257; b++)
            count[b] += count[b - 1];
        for (size_t i = 0; i < n; i++)
            sort_move(to + count[(sort_key_u32(from + i * size, key_at) >> shift) & 0xFF]++ * size,
                      from + i * size, size);
        char *t = from;
        from = to, to = t;
    }
    if (from != base)
        memcpy(base, from, n * size);
    free(tmp);
}

void put_c_string(FILE *out, const char *s)
{
    if (!s) {
        fputs("NULL", out);
        return;
    }
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20 || *p >= 0x7f || *p == '?')
            fprintf(out, "\\%03o", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}
