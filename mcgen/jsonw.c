/*
 * jsonw.c - the JSON writer (see jsonw.h for what it guarantees).
 *
 * --json writes documents of a hundred megabytes through here, so the
 * common cases are cheap: room is reserved once per token and bytes are
 * stored without further checks (b->s[b->len] is '\0' again after each
 * token, as Buf promises), and a string that needs no escape (a table
 * marks the bytes that do) is copied at once.
 */
#include "jsonw.h"

void jsonw_init(JsonW *w, Buf *b, int indent)
{
    *w = (JsonW){.b = b, .indent = indent, .first = true};
}

/* Room for n more bytes and the terminating NUL; where they go. */
static char *reserve(JsonW *w, size_t n)
{
    if (w->b->len + n + 1 > w->b->cap)
        buf_grow(w->b, n);
    return w->b->s + w->b->len;
}

static inline void put(JsonW *w, const char *s, size_t n)
{
    memcpy(reserve(w, n), s, n);
    w->b->len += n;
}

#define PUTS(w, lit) put(w, lit, sizeof(lit) - 1)

static void terminate(JsonW *w) { w->b->s[w->b->len] = '\0'; }

static void newline(JsonW *w)
{
    size_t n = 1 + (size_t)w->indent * (size_t)w->depth;
    char *p = reserve(w, n);
    p[0] = '\n';
    memset(p + 1, ' ', n - 1);
    w->b->len += n;
}

/* Before a value: nothing after a key or at the top; else the comma and,
 * indented, the line break. */
static void item(JsonW *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth == 0)
        return;
    if (!w->first)
        *reserve(w, 1) = ',', w->b->len++;
    w->first = false;
    if (w->indent)
        newline(w);
}

static void begin(JsonW *w, char c)
{
    item(w);
    *reserve(w, 1) = c;
    w->b->len++;
    terminate(w);
    w->depth++;
    w->first = true;
}

static void end(JsonW *w, char c)
{
    w->depth--;
    if (w->indent && !w->first)
        newline(w);
    *reserve(w, 1) = c;
    w->b->len++;
    terminate(w);
    w->first = false;
    w->after_key = false;
}

void jsonw_begin_object(JsonW *w) { begin(w, '{'); }
void jsonw_end_object(JsonW *w) { end(w, '}'); }
void jsonw_begin_list(JsonW *w) { begin(w, '['); }
void jsonw_end_list(JsonW *w) { end(w, ']'); }

/* Per byte: 0 copied as it is, 1 escaped, 2 the start of a multi-byte
 * sequence (or a stray byte) to check. */
static const unsigned char kind[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x00 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x20: '"' */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x40 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, /* 0x50: '\\' */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x60 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, /* 0x70: DEL */
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, /* 0x80 */
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, /* 0xC0 */
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
};

/* Writes the escape of byte c (kind 1) at o; returns the end. */
static char *escape(char *o, unsigned char c)
{
    static const char hex[] = "0123456789abcdef";
    *o++ = '\\';
    switch (c) {
    case '"': *o++ = '"'; break;
    case '\\': *o++ = '\\'; break;
    case '\n': *o++ = 'n'; break;
    case '\r': *o++ = 'r'; break;
    case '\t': *o++ = 't'; break;
    default:
        memcpy(o, "u00", 3);
        o[3] = hex[c >> 4];
        o[4] = hex[c & 15];
        o += 5;
    }
    return o;
}

/* The quoted string of n bytes, without the separator before it.  Most
 * strings need no escape (most of --json's bytes come through here): the
 * plain bytes at the start are found with a tight loop and copied at once;
 * from the first byte that needs a look on, byte by byte, into room
 * reserved for the longest result (every byte as \u00XX). */
static void quoted(JsonW *w, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && kind[(unsigned char)s[i]] == 0)
        i++;
    char *start = reserve(w, i + 6 * (n - i) + 2), *o = start;
    *o++ = '"';
    memcpy(o, s, i);
    o += i;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (kind[c] == 0) {
            *o++ = (char)c;
            i++;
        } else if (kind[c] == 1) {
            o = escape(o, c);
            i++;
        } else {
            uint32_t cp;
            size_t len = utf8_get(s + i, n - i, &cp);
            bool utf8 = cp != 0xFFFD || (len == 3 && memcmp(s + i, "\xEF\xBF\xBD", 3) == 0);
            /* UTF-8 as it is; anything else as U+FFFD */
            memcpy(o, utf8 ? s + i : "\xEF\xBF\xBD", utf8 ? len : 3);
            o += utf8 ? len : 3;
            i += len;
        }
    }
    *o++ = '"';
    w->b->len += (size_t)(o - start);
    terminate(w);
}

static void key_end(JsonW *w)
{
    if (w->indent)
        PUTS(w, ": ");
    else
        PUTS(w, ":");
    terminate(w);
    w->after_key = true;
}

void jsonw_key(JsonW *w, const char *k)
{
    w->after_key = false;
    item(w);
    quoted(w, k, strlen(k));
    key_end(w);
}

bool jsonw_plain(const char *s, size_t *len)
{
    const char *p = s;
    while (kind[(unsigned char)*p] == 0)
        p++;
    *len = (size_t)(p - s);
    return *p == '\0';
}

void jsonw_key_plain(JsonW *w, const char *k, size_t n)
{
    if (w->indent || w->after_key || w->depth == 0) {
        item(w);
        put(w, "\"", 1);
        put(w, k, n);
        put(w, "\"", 1);
        key_end(w);
        return;
    }
    /* compact, inside an object: the comma, the key and the colon at once */
    Buf *b = w->b;
    if (b->len + n + 5 > b->cap)
        buf_grow(b, n + 4);
    char *o = b->s + b->len;
    size_t i = 0;
    if (!w->first)
        o[i++] = ',';
    w->first = false;
    o[i++] = '"';
    memcpy(o + i, k, n);
    i += n;
    o[i++] = '"';
    o[i++] = ':';
    o[i] = '\0';
    b->len += i;
    w->after_key = true;
}

void jsonw_strn(JsonW *w, const char *s, size_t n)
{
    item(w);
    quoted(w, s, n);
}

void jsonw_str(JsonW *w, const char *s)
{
    if (!s) {
        jsonw_null(w);
        return;
    }
    item(w);
    /* one pass for the usual string that needs no escape */
    size_t n;
    if (!jsonw_plain(s, &n)) {
        quoted(w, s, n + strlen(s + n));
        return;
    }
    Buf *b = w->b;
    if (b->len + n + 3 > b->cap)
        buf_grow(b, n + 2);
    char *o = b->s + b->len;
    o[0] = '"';
    memcpy(o + 1, s, n);
    o[n + 1] = '"';
    o[n + 2] = '\0';
    b->len += n + 2;
}

void jsonw_kstr(JsonW *w, const char *k, const char *v)
{
    jsonw_key(w, k);
    jsonw_str(w, v);
}

static void digits(JsonW *w, uint64_t v, bool negative)
{
    char tmp[24];
    int i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    if (negative)
        tmp[--i] = '-';
    put(w, tmp + i, sizeof tmp - (size_t)i);
    terminate(w);
}

void jsonw_uint(JsonW *w, uint64_t v)
{
    item(w);
    digits(w, v, false);
}

void jsonw_int(JsonW *w, int64_t v)
{
    item(w);
    /* the magnitude computed in unsigned arithmetic: -INT64_MIN overflows */
    digits(w, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
}

void jsonw_bool(JsonW *w, bool v)
{
    item(w);
    if (v)
        PUTS(w, "true");
    else
        PUTS(w, "false");
    terminate(w);
}

void jsonw_null(JsonW *w)
{
    item(w);
    PUTS(w, "null");
    terminate(w);
}
