/*
 * diag.c - one formatter for every diagnostic:
 *
 *   file:line:col: error: message
 *     <the source line>
 *     <spaces>^
 *
 * Source lines come from text registered by the caller (in-memory inputs)
 * or are re-read from disk when needed, so a large manifest is not kept in
 * memory just for the rare error.  UTF-16 sources are decoded for display.
 * diag_* never exits: stages collect all their errors and the caller looks
 * at diag_error_count().
 */
#include "mcgen.h"

#include <stdlib.h>
#include <string.h>

typedef struct Source {
    char *file;
    char *bytes;
    size_t len;
} Source;

static VEC(Source) sources;
static Buf *capture;
static int errors;

static void cache_clear(void);

void diag_register_source(const char *file, const void *bytes, size_t len)
{
    cache_clear();
    for (size_t i = 0; i < sources.n; i++) {
        if (strcmp(sources.v[i].file, file) == 0) {
            free(sources.v[i].bytes);
            sources.v[i].bytes = xmalloc(len + 1);
            memcpy(sources.v[i].bytes, bytes, len);
            sources.v[i].len = len;
            return;
        }
    }
    Source s = {xstrdup(file), xmalloc(len + 1), len};
    memcpy(s.bytes, bytes, len);
    vec_push(&sources, s);
}

void diag_set_capture(Buf *b) { capture = b; }

int diag_error_count(void) { return errors; }

void diag_reset(void)
{
    errors = 0;
    cache_clear();
    for (size_t i = 0; i < sources.n; i++) {
        free(sources.v[i].file);
        free(sources.v[i].bytes);
    }
    vec_free(&sources);
}

/* The text of the file most recently shown, decoded to UTF-8, with the
 * offset of every line start, so that many diagnostics in one large file
 * cost one read. */
static struct {
    char *file;
    Buf text;
    VEC(size_t) lines;
} cache;

static void cache_clear(void)
{
    free(cache.file);
    cache.file = NULL;
    buf_free(&cache.text);
    vec_free(&cache.lines);
}

static bool cache_load(const char *file)
{
    if (cache.file && strcmp(cache.file, file) == 0)
        return true;
    cache_clear();
    const char *bytes = NULL;
    size_t len = 0;
    char *owned = NULL;
    for (size_t i = 0; i < sources.n; i++)
        if (strcmp(sources.v[i].file, file) == 0)
            bytes = sources.v[i].bytes, len = sources.v[i].len;
    if (!bytes) {
        owned = read_file(file, &len);
        if (!owned)
            return false;
        bytes = owned;
    }
    const unsigned char *u = (const unsigned char *)bytes;
    if (len >= 2 && ((u[0] == 0xFF && u[1] == 0xFE) || (u[0] == 0xFE && u[1] == 0xFF))) {
        utf16_to_utf8(&cache.text, u + 2, len - 2, u[0] == 0xFE);
    } else {
        size_t skip = (len >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF) ? 3 : 0;
        buf_add(&cache.text, bytes + skip, len - skip);
    }
    free(owned);
    if (!cache.text.s)
        buf_grow(&cache.text, 0), cache.text.s[0] = '\0';
    cache.file = xstrdup(file);
    /* Lines end at \n, \r\n or a lone \r, as XML counts them. */
    vec_push(&cache.lines, (size_t)0);
    for (size_t i = 0; i < cache.text.len; i++) {
        char c = cache.text.s[i];
        if (c == '\r' && i + 1 < cache.text.len && cache.text.s[i + 1] == '\n')
            continue;
        if (c == '\n' || c == '\r')
            vec_push(&cache.lines, i + 1);
    }
    return true;
}

/* The source line `line` (1-based) of `file` as UTF-8, or false. */
static bool source_line(const char *file, uint32_t line, Buf *out)
{
    if (!cache_load(file) || line == 0 || line > cache.lines.n)
        return false;
    size_t start = cache.lines.v[line - 1];
    size_t end = start;
    while (end < cache.text.len && cache.text.s[end] != '\n' && cache.text.s[end] != '\r')
        end++;
    buf_add(out, cache.text.s + start, end - start);
    return true;
}

static void emit(Buf *msg)
{
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

void diag_vat(DiagLevel lvl, Loc loc, const char *fmt, va_list ap)
{
    Buf b = {0};
    if (lvl == DIAG_ERROR)
        errors++;
    if (loc.file && loc.line)
        buf_printf(&b, "%s:%u:%u: %s: ", loc.file, loc.line, loc.col, level_name(lvl));
    else if (loc.file)
        buf_printf(&b, "%s: %s: ", loc.file, level_name(lvl));
    else
        buf_printf(&b, "mcgen: %s: ", level_name(lvl));
    buf_vprintf(&b, fmt, ap);
    buf_addc(&b, '\n');
    Buf line = {0};
    /* No caret under an empty line, or under bytes that are not text
     * (UTF-16 without a byte-order mark shows up as NULs). */
    if (loc.file && loc.line && source_line(loc.file, loc.line, &line) && line.len &&
        !memchr(line.s, '\0', line.len)) {
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
