/*
 * diag.c - one formatter for every diagnostic:
 *
 *   file:line:col: error: message
 *     <the source line>
 *     <spaces>^
 *
 * Coded diagnostics print their code after the level, and a warning the
 * option that controls it (gcc's habit):
 *
 *   file:line:col: error: [MCG2001] message (first defined at file:line:col)
 *   file:line:col: warning: [MCG5015, -Wunused-string] message
 *
 * and obey the warning controls (-Werror, -Werror=<name>, -Wno-<name>).
 * diag_summary ends a run with "2 errors, 1 warning" ("1 error" when
 * there is no warning).
 * Source lines come from text registered by the caller (in-memory inputs)
 * or are re-read from disk when needed, so a large manifest is not kept in
 * memory just for the rare error; a sparse index of its lines finds them
 * (below).  UTF-16 lines are decoded for display.
 * diag_* never exits: stages collect all their errors and the caller looks
 * at diag_error_count().
 *
 * A flood of one code (a million unused strings) is cut in the text
 * format: after `limit` diagnostics of one code (100 by default,
 * --diagnostics-limit) the rest are counted, not printed, and
 * diag_summary says how many before its count:
 *
 *   … and 899 more [MCG5015] (--diagnostics-limit=0 shows all)
 *
 * The count ("2 errors, 999 warnings") and the exit status count them
 * all; the documents below keep them all.
 *
 * With --diagnostics-format=json or sarif nothing is printed: each
 * diagnostic is recorded (level, code, place, message, related place,
 * source line) and main writes one document at the end of the run with
 * diag_write_json or diag_write_sarif.  The text path does not record.
 */
#include "mcgen.h"
#include "os.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The names behind Loc.file, never freed (a model may outlive a
 * diag_reset).  Any thread may ask, so a spin lock guards them; a run
 * names a handful of files, each once per reader. */
static VEC(char *) file_names;
static atomic_flag file_names_lock = ATOMIC_FLAG_INIT;

static void file_names_take(void)
{
    while (atomic_flag_test_and_set_explicit(&file_names_lock, memory_order_acquire))
        ;
}

static void file_names_give(void) { atomic_flag_clear_explicit(&file_names_lock, memory_order_release); }

uint32_t diag_file(const char *name)
{
    if (!name)
        return 0;
    file_names_take();
    size_t i = file_names.n;
    while (i > 0 && strcmp(file_names.v[i - 1], name) != 0)
        i--;
    if (i == 0) {
        vec_push(&file_names, xstrdup(name));
        i = file_names.n;
    }
    file_names_give();
    return (uint32_t)i;
}

const char *diag_file_name(uint32_t file)
{
    if (!file)
        return NULL;
    file_names_take();
    const char *name = file <= file_names.n ? file_names.v[file - 1] : NULL;
    file_names_give();
    return name;
}

typedef struct Source {
    char *file;
    char *bytes;
    size_t len;
} Source;

static VEC(Source) sources;
static Buf *capture;
static int errors, warnings, io_errors;
static bool werror;
static DiagFormat format;

/* One diagnostic as the documents show it (heap strings; NULL: absent). */
typedef struct Record {
    DiagLevel level;
    DiagCode code;
    char *file;
    uint32_t line, col;
    char *message; /* without the " (<what> at file:line:col)" suffix */
    char *related_file;
    uint32_t related_line, related_col;
    char *related_what; /* "first defined" */
    char *source;       /* the source line at `line` */
} Record;

static VEC(Record) records;

const DiagCodeInfo diag_codes[] = {
#define DIAG_CODE(num, id, name, lvl, summary) {id, name, lvl, summary},
#include "diagcodes.def"
#undef DIAG_CODE
    {0, NULL, DIAG_NOTE, NULL},
};

#define NCODES (sizeof diag_codes / sizeof diag_codes[0] - 1)

/* Per code: 0 default, 1 silenced, 2 made an error. */
static unsigned char wstate[NCODES];

/* Per code: how many were reported in the text format; at most `limit`
 * of them printed (0: all). */
static uint64_t reported[NCODES];
static uint64_t limit = DIAG_LIMIT_DEFAULT;

void diag_set_limit(uint64_t n) { limit = n; }

/* Every coded diagnostic asks, twice (a flood of a million unused strings
 * a million times): diagcodes.def lists the codes in ascending order, so a
 * binary search finds one; a code listed out of order is still found by
 * the scan after it. */
const DiagCodeInfo *diag_code_info(DiagCode code)
{
    size_t lo = 0, hi = NCODES;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (diag_codes[mid].code < code)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < NCODES && diag_codes[lo].code == code)
        return &diag_codes[lo];
    for (size_t i = 0; i < NCODES; i++)
        if (diag_codes[i].code == code)
            return &diag_codes[i];
    return NULL;
}

/* By name ("unused-string") or by code ("MCG5015"), as -Wno- takes it. */
const DiagCodeInfo *diag_code_by_name(const char *name)
{
    if (strncmp(name, "MCG", 3) == 0 && strlen(name) == 7 &&
        strspn(name + 3, "0123456789") == 4)
        return diag_code_info((DiagCode)atoi(name + 3));
    for (size_t i = 0; i < NCODES; i++)
        if (strcmp(diag_codes[i].name, name) == 0)
            return &diag_codes[i];
    return NULL;
}

void diag_warnings_as_errors(bool on) { werror = on; }

bool diag_set_warning(const char *name, bool enabled, bool as_error)
{
    const DiagCodeInfo *c = diag_code_by_name(name);
    if (!c || c->level != DIAG_WARNING)
        return false;
    wstate[c - diag_codes] = !enabled ? 1 : as_error ? 2 : 0;
    return true;
}

int diag_warning_count(void) { return warnings; }
int diag_io_count(void) { return io_errors; }

static void cache_clear(void);

void diag_adopt_source(const char *file, char *bytes, size_t len)
{
    cache_clear();
    for (size_t i = 0; i < sources.n; i++) {
        if (strcmp(sources.v[i].file, file) == 0) {
            free(sources.v[i].bytes);
            sources.v[i].bytes = bytes;
            sources.v[i].len = len;
            return;
        }
    }
    Source s = {xstrdup(file), bytes, len};
    vec_push(&sources, s);
}

void diag_register_source(const char *file, const void *bytes, size_t len)
{
    char *copy = xmalloc(len + 1);
    memcpy(copy, bytes, len);
    diag_adopt_source(file, copy, len);
}

void diag_set_capture(Buf *b) { capture = b; }

int diag_error_count(void) { return errors; }

static void records_free(void)
{
    for (size_t i = 0; i < records.n; i++) {
        Record *r = &records.v[i];
        free(r->file);
        free(r->message);
        free(r->related_file);
        free(r->related_what);
        free(r->source);
    }
    vec_free(&records);
}

void diag_set_format(DiagFormat f) { format = f; }
DiagFormat diag_format(void) { return format; }

void diag_reset(void)
{
    errors = warnings = io_errors = 0;
    werror = false;
    format = DIAG_FORMAT_GCC;
    records_free();
    memset(wstate, 0, sizeof wstate);
    memset(reported, 0, sizeof reported);
    limit = DIAG_LIMIT_DEFAULT;
    cache_clear();
    for (size_t i = 0; i < sources.n; i++) {
        free(sources.v[i].file);
        free(sources.v[i].bytes);
    }
    vec_free(&sources);
}

/* The file most recently shown, with a sparse index of its lines: the
 * byte offset of every LINE_STEP-th line start, found only as far as a
 * diagnostic has needed (they come mostly in document order, so a file is
 * read at most once to its last diagnostic, and not at all past it), and
 * each line shown a read of at most LINE_STEP lines from the mark before
 * it.  Lines are found by memchr for the bytes of \n and \r (a candidate
 * in UTF-16 is checked for being a whole code unit), not unit by unit, and
 * in the usual case (single bytes, no \r) counted 64 bytes at a time
 * (chunk_skip_lines).
 * Neither a file on disk nor a registered source is copied: the bytes are
 * read where they are (through the open file, or in the registered
 * buffer), and a UTF-16 line (after a byte-order mark) is decoded only
 * when it is shown.  A 50 MB manifest of 425,000 lines costs at most
 * 53 KB of index, not its bytes nor 8 bytes a line. */
#define LINE_STEP 64

static struct {
    char *file;
    FILE *f;                  /* NULL: the bytes are a registered source, `mem` */
    const unsigned char *mem;
    size_t len;               /* of `mem` */
    size_t unit;              /* bytes a code unit: 1, or 2 for UTF-16 */
    bool big_endian;          /* UTF-16BE */
    bool whole;               /* the end was reached: marks holds every mark */
    VEC(size_t) marks;        /* marks.v[k]: where line k * LINE_STEP + 1 starts */
} cache;

static void cache_clear(void)
{
    free(cache.file);
    if (cache.f)
        fclose(cache.f);
    vec_free(&cache.marks);
    memset(&cache, 0, sizeof cache);
}

/* Reads the cached source from an offset on, a chunk at a time.  After a
 * UTF-16 byte-order mark offsets and chunk sizes are even, so a chunk
 * holds whole code units (an odd last byte is dropped, as utf16_to_utf8
 * drops it). */
typedef struct Cursor {
    size_t at; /* offset of p[0] */
    const unsigned char *p;
    size_t n, i;
    size_t lf, cr; /* offsets in p of a '\n' and a '\r' byte at or after the
                    * last search (n: none), kept so a chunk is searched once */
    unsigned char *buf;
    size_t cap;
} Cursor;

static bool cursor_seek(Cursor *c, size_t at, size_t cap)
{
    *c = (Cursor){at, NULL, 0, 0, 0, 0, cache.f ? xmalloc(cap) : NULL, cap};
    return !cache.f || fseek(cache.f, (long)at, SEEK_SET) == 0;
}

/* The offset in the chunk of the first byte b at or after `from`, or n. */
static size_t chunk_find(const Cursor *c, int b, size_t from)
{
    const unsigned char *q = from < c->n ? memchr(c->p + from, b, c->n - from) : NULL;
    return q ? (size_t)(q - c->p) : c->n;
}

/* The next chunk, or false at the end (or on a read error). */
static bool cursor_fill(Cursor *c)
{
    c->at += c->n;
    c->i = 0;
    if (cache.f) {
        c->n = fread(c->buf, 1, c->cap, cache.f);
        c->p = c->buf;
    } else {
        size_t left = c->at < cache.len ? cache.len - c->at : 0;
        c->n = left < c->cap ? left : c->cap;
        c->p = cache.mem + c->at;
    }
    c->lf = chunk_find(c, '\n', 0);
    c->cr = chunk_find(c, '\r', 0);
    return c->n >= cache.unit;
}

/* Moves to the chunk's next code unit that is \n or \r, or to its end:
 * memchr finds the bytes, and in UTF-16 a byte counts only as the ASCII
 * byte of a whole unit whose other byte is 0 (U+0D0A is the bytes 0A 0D). */
static void cursor_skip_text(Cursor *c)
{
    size_t u = cache.unit, low = u == 2 && cache.big_endian; /* a unit's ASCII byte */
    for (;;) {
        if (c->lf < c->i + low) /* passed: search on */
            c->lf = chunk_find(c, '\n', c->i + low);
        if (c->cr < c->i + low)
            c->cr = chunk_find(c, '\r', c->i + low);
        size_t at = c->lf < c->cr ? c->lf : c->cr;
        if (at + u - low > c->n) { /* none: the chunk's last whole unit */
            c->i = c->n - (c->n - c->i) % u;
            return;
        }
        size_t start = at - low;
        if ((start - c->i) % u == 0 && (u == 1 || c->p[start + 1 - low] == 0)) {
            c->i = start;
            return;
        }
        if (at == c->lf)
            c->lf = chunk_find(c, '\n', at + 1);
        else
            c->cr = chunk_find(c, '\r', at + 1);
    }
}

/* The next code unit without taking it; -1 at the end. */
static long cursor_peek(Cursor *c)
{
    if (c->i + cache.unit > c->n && !cursor_fill(c))
        return -1;
    const unsigned char *q = c->p + c->i;
    if (cache.unit == 1)
        return q[0];
    return cache.big_endian ? q[0] << 8 | q[1] : q[1] << 8 | q[0];
}

/* The next code unit, taken; -1 at the end. */
static long cursor_unit(Cursor *c)
{
    long u = cursor_peek(c);
    if (u >= 0)
        c->i += cache.unit;
    return u;
}

/* After unit u: true when it ends a line as XML counts them (\n, \r\n,
 * a lone \r), the \n of a \r\n taken too.  A \r at the very end ends
 * nothing (no line starts after it). */
static bool cursor_line_end(Cursor *c, long u)
{
    if (u == '\n')
        return true;
    if (u != '\r')
        return false;
    long next = cursor_peek(c);
    if (next == '\n')
        c->i += cache.unit;
    return next >= 0;
}

/* Past the next line end: false at the end of the text. */
static bool cursor_next_line(Cursor *c)
{
    for (;;) {
        cursor_skip_text(c);
        long u = cursor_unit(c);
        if (u < 0)
            return false;
        if (cursor_line_end(c, u))
            return true;
    }
}

/* Past the next line end, as cursor_next_line, by one memchr in the usual
 * case: single bytes and no \r left in the chunk, where each \n ends a
 * line (the index is built and a shown line reached through here). */
static inline bool cursor_next_line_fast(Cursor *c)
{
    const unsigned char *q;
    if (cache.unit == 1 && c->cr == c->n && c->i < c->n &&
        (q = memchr(c->p + c->i, '\n', c->n - c->i))) {
        c->i = (size_t)(q - c->p) + 1;
        return true;
    }
    return cursor_next_line(c);
}

/* Makes `file` the cached one: opened (or found registered), its
 * byte-order mark read; the first mark only. */
static bool cache_load(const char *file)
{
    if (cache.file && strcmp(cache.file, file) == 0)
        return true;
    cache_clear();
    for (size_t i = 0; i < sources.n; i++)
        if (strcmp(sources.v[i].file, file) == 0)
            cache.mem = (const unsigned char *)sources.v[i].bytes, cache.len = sources.v[i].len;
    unsigned char head[3] = {0};
    size_t h;
    if (cache.mem) {
        h = cache.len < 3 ? cache.len : 3;
        memcpy(head, cache.mem, h);
    } else {
        cache.f = os_fopen(file, "rb");
        if (!cache.f)
            return false;
        h = fread(head, 1, 3, cache.f);
    }
    /* lines start after a byte-order mark */
    size_t bom = 0;
    cache.unit = 1;
    if (h >= 2 && ((head[0] == 0xFF && head[1] == 0xFE) || (head[0] == 0xFE && head[1] == 0xFF))) {
        cache.unit = bom = 2;
        cache.big_endian = head[0] == 0xFE;
    } else if (h == 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF) {
        bom = 3;
    }
    vec_push(&cache.marks, bom);
    cache.file = xstrdup(file);
    return true;
}

/* Moves c->i past up to `want` '\n' bytes of the chunk; returns how many
 * it passed (fewer: the chunk ended, c->i is at its end).  For the usual
 * case only (single bytes, no \r left in the chunk), where each \n ends a
 * line: the index counts 64 lines a mark, 64 bytes a test, not a memchr
 * a line. */
static size_t chunk_skip_lines(Cursor *c, size_t want)
{
    const unsigned char *p = c->p;
    size_t i = c->i, n = c->n, left = want;
#if defined(__SSE2__)
    const __m128i nl = _mm_set1_epi8('\n');
    for (; n - i >= 64; i += 64) {
        const __m128i *in = (const __m128i *)(const void *)(p + i);
        __m128i e0 = _mm_cmpeq_epi8(_mm_loadu_si128(in), nl);
        __m128i e1 = _mm_cmpeq_epi8(_mm_loadu_si128(in + 1), nl);
        __m128i e2 = _mm_cmpeq_epi8(_mm_loadu_si128(in + 2), nl);
        __m128i e3 = _mm_cmpeq_epi8(_mm_loadu_si128(in + 3), nl);
        if (!_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(e0, e1), _mm_or_si128(e2, e3))))
            continue; /* a line is about 2 blocks: most have no line end */
        uint64_t m = (uint64_t)(unsigned)_mm_movemask_epi8(e0) |
                     (uint64_t)(unsigned)_mm_movemask_epi8(e1) << 16 |
                     (uint64_t)(unsigned)_mm_movemask_epi8(e2) << 32 |
                     (uint64_t)(unsigned)_mm_movemask_epi8(e3) << 48;
        for (; m; m &= m - 1)
            if (--left == 0) {
                c->i = i + (size_t)__builtin_ctzll(m) + 1;
                return want;
            }
    }
#endif
    for (; i < n; i++)
        if (p[i] == '\n' && --left == 0) {
            c->i = i + 1;
            return want;
        }
    c->i = n;
    return want - left;
}

/* Finds the marks up to marks.v[k], reading on from the last one found;
 * false when the text has fewer lines. */
static bool cache_mark(size_t k)
{
    if (k < cache.marks.n)
        return true;
    if (cache.whole)
        return false;
    size_t last = cache.marks.n - 1;
    Cursor c;
    bool ok = cursor_seek(&c, cache.marks.v[last], 65536);
    for (uint64_t line = (uint64_t)last * LINE_STEP + 1; ok && cache.marks.n <= k;) {
        if (cache.unit == 1 && c.cr == c.n && c.i < c.n) {
            /* the lines to the next mark, counted a block at a time */
            size_t want = LINE_STEP - (size_t)((line - 1) % LINE_STEP);
            size_t got = chunk_skip_lines(&c, want);
            line += got;
            if (got == want)
                vec_push(&cache.marks, c.at + c.i);
            continue;
        }
        if (!cursor_next_line_fast(&c)) {
            cache.whole = true;
            ok = false;
        } else if (line++ % LINE_STEP == 0) {
            vec_push(&cache.marks, c.at + c.i);
        }
    }
    free(c.buf);
    return ok;
}

/* The source line `line` (1-based) of `file` as UTF-8, or false. */
static bool source_line(const char *file, uint32_t line, Buf *out)
{
    if (line == 0 || !cache_load(file) || !cache_mark((line - 1) / LINE_STEP))
        return false;
    Cursor c;
    bool ok = cursor_seek(&c, cache.marks.v[(line - 1) / LINE_STEP], 4096);
    /* past the lines between the mark and this one */
    for (uint32_t skip = (line - 1) % LINE_STEP; ok && skip > 0;)
        if (cache.unit == 1 && c.cr == c.n && c.i < c.n)
            skip -= (uint32_t)chunk_skip_lines(&c, skip);
        else if ((ok = cursor_next_line_fast(&c)))
            skip--;
    Buf units = {0};
    for (long u = 0; ok && u >= 0 && u != '\n' && u != '\r';) {
        size_t from = c.i;
        cursor_skip_text(&c);
        if (c.i > from)
            buf_add(&units, (const char *)c.p + from, c.i - from);
        u = cursor_peek(&c); /* a line end, or the next chunk's first unit */
    }
    if (ok && cache.unit == 1)
        buf_add(out, units.s ? units.s : "", units.len);
    else if (ok)
        utf16_to_utf8(out, (const unsigned char *)units.s, units.len, cache.big_endian);
    buf_free(&units);
    free(c.buf);
    return ok;
}

static void emit(Buf *msg)
{
    if (!msg->len) /* nothing (and msg->s may be NULL, which fwrite may not get) */
        return;
    if (capture) {
        buf_add(capture, msg->s, msg->len);
    } else {
        fwrite(msg->s, 1, msg->len, stderr);
        fflush(stderr);
    }
}

static const char *level_name(DiagLevel lvl)
{
    switch (lvl) {
    case DIAG_NOTE: return "note";
    case DIAG_WARNING: return "warning";
    case DIAG_ERROR: return "error";
    }
    unreachable_here();
}

static char *dup_or_null(const char *s) { return s ? xstrdup(s) : NULL; }

/* Keeps one diagnostic for the document; `msg` is taken over. */
static void record_msg(DiagLevel lvl, DiagCode code, Loc loc, Loc related, const char *what,
                       char *msg)
{
    const char *file = diag_file_name(loc.file);
    Record r = {lvl, code, dup_or_null(file), file ? loc.line : 0,
                file && loc.line ? loc.col : 0, msg, NULL, 0, 0, NULL, NULL};
    if (what && related.file) {
        r.related_file = xstrdup(diag_file_name(related.file));
        r.related_line = related.line;
        r.related_col = related.line ? related.col : 0;
        r.related_what = xstrdup(what);
    }
    Buf line = {0};
    if (file && loc.line && source_line(file, loc.line, &line) && line.len &&
        !memchr(line.s, '\0', line.len))
        r.source = line.s;
    else
        buf_free(&line);
    vec_push(&records, r);
}

static void record(DiagLevel lvl, DiagCode code, Loc loc, Loc related, const char *what,
                   const char *fmt, va_list ap)
{
    Buf msg = {0};
    buf_vprintf(&msg, fmt, ap);
    if (!msg.s)
        buf_adds(&msg, "");
    record_msg(lvl, code, loc, related, what, msg.s);
}

/* "[MCG2010] ", or for a warning "[MCG5015, -Wunused-string] ": the
 * option that silences it, as gcc names it; a warning made an error by
 * -Werror or -Werror=NAME says "-Werror=unused-string", as gcc does. */
static void code_tag(Buf *b, DiagCode code, const DiagCodeInfo *c, DiagLevel lvl)
{
    if (!c || c->level != DIAG_WARNING)
        buf_printf(b, "[MCG%04d] ", (int)code);
    else
        buf_printf(b, "[MCG%04d, -W%s%s] ", (int)code, lvl == DIAG_ERROR ? "error=" : "",
                   c->name);
}

/* info: the code's row, looked up once by the caller (NULL without a
 * code) */
static void report(DiagLevel lvl, DiagCode code, const DiagCodeInfo *info, Loc loc, Loc related,
                   const char *what, const char *fmt, va_list ap)
{
    Buf b = {0};
    if (lvl == DIAG_ERROR)
        errors++;
    else if (lvl == DIAG_WARNING)
        warnings++;
    if (format != DIAG_FORMAT_GCC) {
        record(lvl, code, loc, related, what, fmt, ap);
        return;
    }
    if (info && ++reported[info - diag_codes] > limit && limit)
        return;
    const char *file = diag_file_name(loc.file);
    if (file && loc.line)
        buf_printf(&b, "%s:%u:%u: %s: ", file, loc.line, loc.col, level_name(lvl));
    else if (file)
        buf_printf(&b, "%s: %s: ", file, level_name(lvl));
    else
        buf_printf(&b, "mcgen: %s: ", level_name(lvl));
    if (code)
        code_tag(&b, code, info, lvl);
    buf_vprintf(&b, fmt, ap);
    if (what && related.file)
        buf_printf(&b, " (%s at %s)", what, diag_loc_text(related));
    buf_addc(&b, '\n');
    Buf line = {0};
    /* No caret under an empty line, or under bytes that are not text
     * (UTF-16 without a byte-order mark shows up as NULs). */
    if (file && loc.line && source_line(file, loc.line, &line) && line.len &&
        !memchr(line.s, '\0', line.len)) {
        /* shown as UTF-8: a line in a single-byte encoding (windows-1252,
         * ISO-8859-1) is not, and each byte of it that is not UTF-8
         * becomes U+FFFD, one column as in the file */
        size_t ascii = 0; /* the usual line is all ASCII: nothing to redo */
        while (ascii < line.len && !(line.s[ascii] & 0x80))
            ascii++;
        if (ascii < line.len) {
            Buf text = {0};
            buf_add(&text, line.s, ascii);
            for (size_t i = ascii; i < line.len;) {
                uint32_t c;
                i += utf8_get(line.s + i, line.len - i, &c);
                utf8_put(&text, c);
            }
            buf_free(&line);
            line = text;
        }
        /* The caret goes under column `col`, counted in characters; tabs in
         * the prefix are kept so the caret lines up in a terminal. */
        buf_printf(&b, "  %s\n  ", line.s ? line.s : "");
        size_t i = 0;
        uint32_t col = 1;
        while (col < loc.col && i < line.len) {
            uint32_t c;
            size_t n = utf8_get(line.s + i, line.len - i, &c);
            buf_addc(&b, line.s[i] == '\t' ? '\t' : ' ');
            i += n;
            col++;
        }
        buf_adds(&b, "^\n");
    }
    buf_free(&line);
    emit(&b);
    buf_free(&b);
}

void diag_vat(DiagLevel lvl, Loc loc, const char *fmt, va_list ap)
{
    report(lvl, D_NONE, NULL, loc, (Loc){0}, NULL, fmt, ap);
}

/* The level a code reports at after the warning controls; -1: silenced. */
static int effective_level(const DiagCodeInfo *c)
{
    if (!c)
        return DIAG_ERROR;
    if (c->level != DIAG_WARNING)
        return (int)c->level;
    unsigned char st = wstate[c - diag_codes];
    if (st == 1)
        return -1;
    return st == 2 || werror ? DIAG_ERROR : DIAG_WARNING;
}

void diag_c(DiagCode code, Loc loc, const char *fmt, ...)
{
    const DiagCodeInfo *info = diag_code_info(code);
    int lvl = effective_level(info);
    if (lvl < 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    report((DiagLevel)lvl, code, info, loc, (Loc){0}, NULL, fmt, ap);
    va_end(ap);
}

void diag_vc(DiagCode code, Loc loc, const char *fmt, va_list ap)
{
    const DiagCodeInfo *info = diag_code_info(code);
    int lvl = effective_level(info);
    if (lvl >= 0)
        report((DiagLevel)lvl, code, info, loc, (Loc){0}, NULL, fmt, ap);
}

void diag_ex(DiagCode code, Loc loc, Loc related, const char *what, const char *fmt, ...)
{
    const DiagCodeInfo *info = diag_code_info(code);
    int lvl = effective_level(info);
    if (lvl < 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    report((DiagLevel)lvl, code, info, loc, related, what, fmt, ap);
    va_end(ap);
}

const char *diag_loc_text(Loc loc)
{
    static char text[4096];
    const char *file = diag_file_name(loc.file);
    if (!file)
        snprintf(text, sizeof text, "<unknown>");
    else if (!loc.line)
        snprintf(text, sizeof text, "%s", file);
    else
        snprintf(text, sizeof text, "%s:%u:%u", file, loc.line, loc.col);
    return text;
}

void diag_io(const char *fmt, ...)
{
    io_errors++;
    va_list ap;
    va_start(ap, fmt);
    report(DIAG_ERROR, D_NONE, NULL, (Loc){0}, (Loc){0}, NULL, fmt, ap);
    va_end(ap);
}

/* The template engine's messages come formatted ("file:line:col: error:
 * message"); the documents get the place and the message apart.  A
 * template is an input of the tool, not of the manifest, so its errors
 * count with the I/O problems (exit 2, as for a missing template). */
void diag_formatted(const char *text)
{
    errors++;
    io_errors++;
    if (format == DIAG_FORMAT_GCC) {
        Buf b = {0};
        buf_printf(&b, "%s\n", text);
        emit(&b);
        buf_free(&b);
        return;
    }
    Loc loc = {0};
    Buf file = {0};
    const char *msg = text, *sep = strstr(text, ": error: ");
    if (sep) {
        /* back over ":col" and ":line" */
        const char *col = sep, *line;
        while (col > text && col[-1] >= '0' && col[-1] <= '9')
            col--;
        line = col > text + 1 && col[-1] == ':' && col < sep ? col - 1 : NULL;
        while (line && line > text && line[-1] >= '0' && line[-1] <= '9')
            line--;
        if (line && line > text + 1 && line[-1] == ':' && line < col - 1) {
            buf_printf(&file, "%.*s", (int)(line - 1 - text), text);
            loc = (Loc){diag_file(file.s), (uint32_t)strtoul(line, NULL, 10),
                        (uint32_t)strtoul(col, NULL, 10)};
        }
        msg = sep + strlen(": error: ");
    }
    /* the message is its first line: a template error's source line and
     * caret follow it, and the documents quote the source themselves */
    size_t n = strcspn(msg, "\n");
    char *first = memcpy(xmalloc(n + 1), msg, n);
    first[n] = '\0';
    record_msg(DIAG_ERROR, D_NONE, loc, (Loc){0}, NULL, first);
    buf_free(&file);
}

void diag_summary(void)
{
    if (format != DIAG_FORMAT_GCC)
        return;
    Buf b = {0};
    for (size_t i = 0; limit && i < NCODES; i++)
        if (reported[i] > limit)
            buf_printf(&b, "\u2026 and %llu more [MCG%04d] (--diagnostics-limit=0 shows all)\n",
                       (unsigned long long)(reported[i] - limit), (int)diag_codes[i].code);
    if (!errors && !warnings) {
        emit(&b);
        buf_free(&b);
        return;
    }
    /* a count of zero is left out, as clang leaves it out */
    if (errors)
        buf_printf(&b, "%d error%s", errors, errors == 1 ? "" : "s");
    if (warnings)
        buf_printf(&b, "%s%d warning%s", errors ? ", " : "", warnings, warnings == 1 ? "" : "s");
    buf_addc(&b, '\n');
    emit(&b);
    buf_free(&b);
}

void diag_at(DiagLevel lvl, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vat(lvl, loc, fmt, ap);
    va_end(ap);
}

void diag_plain(DiagLevel lvl, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vat(lvl, (Loc){0}, fmt, ap);
    va_end(ap);
}

/* ---- the documents ----------------------------------------------------
 * Written with the program's JSON writer (jsonw.h), indented two spaces a
 * level, keys in the order written, so the same run gives the same bytes. */

/* A line or column: null when absent (0). */
static void j_knum(JsonW *j, const char *k, uint32_t v)
{
    jsonw_key(j, k);
    if (v)
        jsonw_uint(j, v);
    else
        jsonw_null(j);
}

static void j_kopen(JsonW *j, const char *k, char c)
{
    jsonw_key(j, k);
    if (c == '{')
        jsonw_begin_object(j);
    else
        jsonw_begin_list(j);
}

static const char *code_name(DiagCode code)
{
    const DiagCodeInfo *c = code ? diag_code_info(code) : NULL;
    return c ? c->name : NULL;
}

void diag_write_json(Buf *b)
{
    JsonW j;
    jsonw_init(&j, b, 2);
    jsonw_begin_object(&j);
    jsonw_key(&j, "version");
    jsonw_uint(&j, 1);
    j_kopen(&j, "diagnostics", '[');
    for (size_t i = 0; i < records.n; i++) {
        const Record *r = &records.v[i];
        jsonw_begin_object(&j);
        jsonw_kstr(&j, "level", level_name(r->level));
        char code[16];
        snprintf(code, sizeof code, "MCG%04d", (int)r->code);
        jsonw_kstr(&j, "code", r->code ? code : NULL);
        jsonw_kstr(&j, "name", code_name(r->code));
        jsonw_kstr(&j, "file", r->file);
        j_knum(&j, "line", r->line);
        j_knum(&j, "column", r->col);
        jsonw_kstr(&j, "message", r->message);
        j_kopen(&j, "related", '[');
        if (r->related_file) {
            jsonw_begin_object(&j);
            jsonw_kstr(&j, "file", r->related_file);
            j_knum(&j, "line", r->related_line);
            j_knum(&j, "column", r->related_col);
            jsonw_kstr(&j, "message", r->related_what);
            jsonw_end_object(&j);
        }
        jsonw_end_list(&j);
        jsonw_kstr(&j, "source", r->source);
        jsonw_end_object(&j);
    }
    jsonw_end_list(&j);
    jsonw_end_object(&j);
    buf_addc(b, '\n');
}

/* ---- SARIF ------------------------------------------------------------ */

/* Percent-encodes a path for a URI: everything but unreserved characters
 * and '/' ('\\' becomes '/'). */
static void uri_encode(Buf *b, const char *p)
{
    static const char hex[] = "0123456789ABCDEF";
    for (; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '\\')
            c = '/';
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
            buf_addc(b, (char)c);
        } else {
            char e[3] = {'%', hex[c >> 4], hex[c & 15]};
            buf_add(b, e, 3);
        }
    }
}

/* The artifactLocation of `file`: a URI relative to the current directory
 * (uriBaseId %SRCROOT%) when the file is under it, else a file: URI. */
static void sarif_artifact(JsonW *j, const char *file)
{
    Buf uri = {0};
    const char *rel = file;
    bool absolute = file[0] == '/' || file[0] == '\\' || os_root_len(file);
    if (absolute) {
        char *cwd = os_getcwd();
        size_t n = cwd ? strlen(cwd) : 0;
        if (n > 1 && strncmp(file, cwd, n) == 0 && os_is_sep(file[n])) {
            rel = file + n + 1;
            absolute = false;
        }
        free(cwd);
    }
    while (!absolute && rel[0] == '.' && (rel[1] == '/' || rel[1] == '\\'))
        rel += 2;
    if (absolute) {
        buf_adds(&uri, "file://");
        if (!os_is_sep(file[0]))
            buf_addc(&uri, '/'); /* file:///C:/x */
        uri_encode(&uri, file);
    } else {
        uri_encode(&uri, rel);
    }
    j_kopen(j, "artifactLocation", '{');
    jsonw_kstr(j, "uri", uri.s ? uri.s : "");
    if (!absolute)
        jsonw_kstr(j, "uriBaseId", "%SRCROOT%");
    jsonw_end_object(j);
    buf_free(&uri);
}

static void sarif_physical(JsonW *j, const char *file, uint32_t line, uint32_t col,
                           const char *snippet)
{
    j_kopen(j, "physicalLocation", '{');
    sarif_artifact(j, file);
    if (line) {
        j_kopen(j, "region", '{');
        j_knum(j, "startLine", line);
        if (col)
            j_knum(j, "startColumn", col);
        if (snippet) {
            j_kopen(j, "snippet", '{');
            jsonw_kstr(j, "text", snippet);
            jsonw_end_object(j);
        }
        jsonw_end_object(j);
    }
    jsonw_end_object(j);
}

static const char *sarif_level(DiagLevel lvl)
{
    return lvl == DIAG_ERROR ? "error" : lvl == DIAG_WARNING ? "warning" : "note";
}

/* The rule of an uncoded diagnostic in a file (a template's error). */
static const DiagCodeInfo uncoded = {D_NONE, "uncoded", DIAG_ERROR,
                                     "a problem with no code of its own"};

/* One reportingDescriptor.  name: the option name in PascalCase. */
static void sarif_rule(JsonW *j, const DiagCodeInfo *c)
{
    char id[16];
    snprintf(id, sizeof id, "MCG%04d", (int)c->code);
    Buf t = {0};
    jsonw_begin_object(j);
    jsonw_kstr(j, "id", id);
    bool up = true;
    for (const char *p = c->name; *p; p++) {
        if (*p == '-') {
            up = true;
            continue;
        }
        buf_addc(&t, up && *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p);
        up = false;
    }
    jsonw_kstr(j, "name", t.s);
    buf_reset(&t);
    j_kopen(j, "shortDescription", '{');
    jsonw_kstr(j, "text", c->summary);
    jsonw_end_object(j);
    if (c->code)
        buf_printf(&t, "%s: %s (%s by default).", id, c->summary, level_name(c->level));
    else
        buf_printf(&t, "%s: %s.", id, c->summary);
    if (c->code && c->level == DIAG_WARNING)
        buf_printf(&t, " -Wno-%s silences it; -Werror=%s makes it an error.", c->name,
                   c->name);
    j_kopen(j, "fullDescription", '{');
    jsonw_kstr(j, "text", t.s);
    jsonw_end_object(j);
    buf_reset(&t);
    if (c->code)
        buf_printf(&t,
                   "The rule, a failing example and the fix: docs/diagnostics.md#mcg%04d-%s-%s "
                   "in mcgen's sources.",
                   (int)c->code, c->name, level_name(c->level));
    else
        buf_adds(&t, "The message says what went wrong; see docs/diagnostics.md in mcgen's "
                     "sources.");
    j_kopen(j, "help", '{');
    jsonw_kstr(j, "text", t.s);
    jsonw_end_object(j);
    j_kopen(j, "defaultConfiguration", '{');
    jsonw_kstr(j, "level", sarif_level(c->level));
    jsonw_end_object(j);
    jsonw_end_object(j);
    buf_free(&t);
}

/* A diagnostic with a file is a result; one without (a bad command line,
 * an unreadable input, a note) is a tool execution notification: GitHub
 * code scanning refuses a whole log in which a result has no location.
 * The rules are those the results use, in code order (uncoded first, as
 * MCG0000); ruleIndex points into that list. */
void diag_write_sarif(Buf *b, const char *tool_version)
{
    const DiagCodeInfo **rules = xcalloc(NCODES + 2, sizeof *rules);
    size_t nrules = 0;
    bool any_uncoded = false, any_notification = false, failed = false;
    for (size_t i = 0; i < records.n; i++) {
        const Record *r = &records.v[i];
        any_uncoded |= r->file && r->code == D_NONE;
        any_notification |= !r->file;
        failed |= !r->file && r->level == DIAG_ERROR;
    }
    if (any_uncoded)
        rules[nrules++] = &uncoded;
    for (size_t k = 0; k < NCODES; k++)
        for (size_t i = 0; i < records.n; i++)
            if (records.v[i].file && records.v[i].code == diag_codes[k].code) {
                rules[nrules++] = &diag_codes[k];
                break;
            }

    JsonW j;
    jsonw_init(&j, b, 2);
    jsonw_begin_object(&j);
    jsonw_kstr(&j, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
    jsonw_kstr(&j, "version", "2.1.0");
    j_kopen(&j, "runs", '[');
    jsonw_begin_object(&j);
    j_kopen(&j, "tool", '{');
    j_kopen(&j, "driver", '{');
    jsonw_kstr(&j, "name", "mcgen");
    jsonw_kstr(&j, "version", tool_version);
    j_kopen(&j, "rules", '[');
    for (size_t k = 0; k < nrules; k++)
        sarif_rule(&j, rules[k]);
    jsonw_end_list(&j);
    jsonw_end_object(&j);
    jsonw_end_object(&j);
    /* executionSuccessful: false after an error that concerns no file */
    j_kopen(&j, "invocations", '[');
    jsonw_begin_object(&j);
    jsonw_key(&j, "executionSuccessful");
    jsonw_bool(&j, !failed);
    if (any_notification) {
        j_kopen(&j, "toolExecutionNotifications", '[');
        for (size_t i = 0; i < records.n; i++) {
            const Record *r = &records.v[i];
            if (r->file)
                continue;
            jsonw_begin_object(&j);
            jsonw_kstr(&j, "level", sarif_level(r->level));
            j_kopen(&j, "message", '{');
            jsonw_kstr(&j, "text", r->message);
            jsonw_end_object(&j);
            if (r->code) {
                char id[16];
                snprintf(id, sizeof id, "MCG%04d", (int)r->code);
                j_kopen(&j, "associatedRule", '{');
                jsonw_kstr(&j, "id", id);
                jsonw_end_object(&j);
            }
            jsonw_end_object(&j);
        }
        jsonw_end_list(&j);
    }
    jsonw_end_object(&j);
    jsonw_end_list(&j);
    jsonw_kstr(&j, "columnKind", "unicodeCodePoints");
    j_kopen(&j, "results", '[');
    for (size_t i = 0; i < records.n; i++) {
        const Record *r = &records.v[i];
        if (!r->file)
            continue;
        size_t ri = 0;
        while (rules[ri]->code != r->code)
            ri++;
        char id[16];
        snprintf(id, sizeof id, "MCG%04d", (int)r->code);
        jsonw_begin_object(&j);
        jsonw_kstr(&j, "ruleId", id);
        jsonw_key(&j, "ruleIndex");
        jsonw_uint(&j, ri);
        jsonw_kstr(&j, "level", sarif_level(r->level));
        /* the text as printed, with the second place named, for readers
         * that show only the message */
        Buf t = {0};
        buf_adds(&t, r->message);
        if (r->related_file) {
            Loc rel = {diag_file(r->related_file), r->related_line, r->related_col};
            buf_printf(&t, " (%s at %s)", r->related_what, diag_loc_text(rel));
        }
        j_kopen(&j, "message", '{');
        jsonw_kstr(&j, "text", t.s);
        jsonw_end_object(&j);
        buf_free(&t);
        j_kopen(&j, "locations", '[');
        jsonw_begin_object(&j);
        sarif_physical(&j, r->file, r->line, r->col, r->source);
        jsonw_end_object(&j);
        jsonw_end_list(&j);
        if (r->related_file) {
            j_kopen(&j, "relatedLocations", '[');
            jsonw_begin_object(&j);
            jsonw_key(&j, "id");
            jsonw_uint(&j, 1);
            sarif_physical(&j, r->related_file, r->related_line, r->related_col, NULL);
            j_kopen(&j, "message", '{');
            jsonw_kstr(&j, "text", r->related_what);
            jsonw_end_object(&j);
            jsonw_end_object(&j);
            jsonw_end_list(&j);
        }
        jsonw_end_object(&j);
    }
    jsonw_end_list(&j);
    jsonw_end_object(&j);
    jsonw_end_list(&j);
    jsonw_end_object(&j);
    buf_addc(b, '\n');
    free(rules);
}
