/*
 * diag.c - one formatter for every diagnostic:
 *
 *   file:line:col: error: message
 *     <the source line>
 *     <spaces>^
 *
 * Coded diagnostics print their code after the level:
 *
 *   file:line:col: error: [MCG2001] message (first defined at file:line:col)
 *
 * and obey the warning controls (-Werror, -Werror=<name>, -Wno-<name>).
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
static int errors, warnings, io_errors;
static bool werror;

const DiagCodeInfo diag_codes[] = {
#define DIAG_CODE(num, id, name, lvl, summary) {id, name, lvl, summary},
#include "diagcodes.def"
#undef DIAG_CODE
    {0, NULL, DIAG_NOTE, NULL},
};

#define NCODES (sizeof diag_codes / sizeof diag_codes[0] - 1)

/* Per code: 0 default, 1 silenced, 2 made an error. */
static unsigned char wstate[NCODES];

const DiagCodeInfo *diag_code_info(DiagCode code)
{
    for (size_t i = 0; i < NCODES; i++)
        if (diag_codes[i].code == code)
            return &diag_codes[i];
    return NULL;
}

const DiagCodeInfo *diag_code_by_name(const char *name)
{
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
    errors = warnings = io_errors = 0;
    werror = false;
    memset(wstate, 0, sizeof wstate);
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

static void report(DiagLevel lvl, DiagCode code, Loc loc, Loc related, const char *what,
                   const char *fmt, va_list ap)
{
    Buf b = {0};
    if (lvl == DIAG_ERROR)
        errors++;
    else if (lvl == DIAG_WARNING)
        warnings++;
    if (loc.file && loc.line)
        buf_printf(&b, "%s:%u:%u: %s: ", loc.file, loc.line, loc.col, level_name(lvl));
    else if (loc.file)
        buf_printf(&b, "%s: %s: ", loc.file, level_name(lvl));
    else
        buf_printf(&b, "mcgen: %s: ", level_name(lvl));
    if (code)
        buf_printf(&b, "[MCG%04d] ", (int)code);
    buf_vprintf(&b, fmt, ap);
    if (what && related.file)
        buf_printf(&b, " (%s at %s)", what, diag_loc_text(related));
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

void diag_vat(DiagLevel lvl, Loc loc, const char *fmt, va_list ap)
{
    report(lvl, D_NONE, loc, (Loc){0}, NULL, fmt, ap);
}

/* The level a code reports at after the warning controls; -1: silenced. */
static int effective_level(DiagCode code)
{
    const DiagCodeInfo *c = diag_code_info(code);
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
    int lvl = effective_level(code);
    if (lvl < 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    report((DiagLevel)lvl, code, loc, (Loc){0}, NULL, fmt, ap);
    va_end(ap);
}

void diag_vc(DiagCode code, Loc loc, const char *fmt, va_list ap)
{
    int lvl = effective_level(code);
    if (lvl >= 0)
        report((DiagLevel)lvl, code, loc, (Loc){0}, NULL, fmt, ap);
}

void diag_ex(DiagCode code, Loc loc, Loc related, const char *what, const char *fmt, ...)
{
    int lvl = effective_level(code);
    if (lvl < 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    report((DiagLevel)lvl, code, loc, related, what, fmt, ap);
    va_end(ap);
}

const char *diag_loc_text(Loc loc)
{
    static char text[4096];
    if (!loc.file)
        snprintf(text, sizeof text, "<unknown>");
    else if (!loc.line)
        snprintf(text, sizeof text, "%s", loc.file);
    else
        snprintf(text, sizeof text, "%s:%u:%u", loc.file, loc.line, loc.col);
    return text;
}

void diag_io(const char *fmt, ...)
{
    io_errors++;
    va_list ap;
    va_start(ap, fmt);
    report(DIAG_ERROR, D_NONE, (Loc){0}, (Loc){0}, NULL, fmt, ap);
    va_end(ap);
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
