/*
 * jsonw.c - the JSON writer (see jsonw.h for what it guarantees).
 *
 * --json writes documents of a hundred megabytes through here, so the
 * common cases are cheap: room is reserved once per token and bytes are
 * stored without further checks (b->s[b->len] is '\0' again after each
 * token, as Buf promises), a string that needs no escape (a table
 * marks the bytes that do) is copied at once, a literal key comes
 * quoted by the compiler and is copied with one fixed-size copy in the
 * same call as its value (jsonw_lk*), and integers are written two digits
 * at a time from a table.
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
    Buf *b = w->b;
    if (!w->indent && b->len + 3 <= b->cap) { /* compact: item() inline */
        char *o = b->s + b->len;
        o[0] = ',';
        o += !w->after_key && w->depth && !w->first;
        o[0] = c;
        o[1] = '\0';
        b->len = (size_t)(o + 1 - b->s);
        w->depth++;
        w->first = true;
        w->after_key = false;
        return;
    }
    item(w);
    *reserve(w, 1) = c;
    w->b->len++;
    terminate(w);
    w->depth++;
    w->first = true;
}

static void end(JsonW *w, char c)
{
    Buf *b = w->b;
    w->depth--;
    if (!w->indent && b->len + 2 <= b->cap) {
        b->s[b->len++] = c;
        b->s[b->len] = '\0';
        w->first = false;
        w->after_key = false;
        return;
    }
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

/* The bytes of s (NUL-terminated) before the first that needs a look:
 * four a round, each test stopping at the NUL (kind 1) before the next
 * byte is read. */
static inline size_t plain_prefix(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    for (;;) {
        if (kind[p[0]])
            return (size_t)(p - (const unsigned char *)s);
        if (kind[p[1]])
            return (size_t)(p + 1 - (const unsigned char *)s);
        if (kind[p[2]])
            return (size_t)(p + 2 - (const unsigned char *)s);
        if (kind[p[3]])
            return (size_t)(p + 3 - (const unsigned char *)s);
        p += 4;
    }
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
    size_t n = plain_prefix(s);
    if (s[n]) {
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

/* Decimal digits at o, two at a time from a table, from the end of a
 * count made by comparisons; returns the end. */
static inline char *put_digits(char *o, uint64_t v)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324"
                                "25262728293031323334353637383940414243444546474849"
                                "50515253545556575859606162636465666768697071727374"
                                "75767778798081828384858687888990919293949596979899";
    if (v < 10) {
        *o = (char)('0' + v);
        return o + 1;
    }
    if (v < 100) {
        memcpy(o, pairs + 2 * v, 2);
        return o + 2;
    }
    static const uint64_t pow10[20] = {
        1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u,
        1000000000u, 10000000000u, 100000000000u, 1000000000000u, 10000000000000u,
        100000000000000u, 1000000000000000u, 10000000000000000u, 100000000000000000u,
        1000000000000000000u, 10000000000000000000u};
    size_t n = 3;
    while (n < 20 && v >= pow10[n])
        n++;
    char *e = o + n, *p = e;
    for (; v >= 100; v /= 100)
        p -= 2, memcpy(p, pairs + 2 * (v % 100), 2);
    if (v >= 10)
        memcpy(p - 2, pairs + 2 * v, 2);
    else
        p[-1] = (char)('0' + v);
    return e;
}

enum { DIGITS_MAX = 21 }; /* 20 digits and the sign */

/* The bytes up to o are the buffer's, NUL-terminated. */
static void done(JsonW *w, char *o)
{
    w->b->len = (size_t)(o - w->b->s);
    *o = '\0';
}

static void digits(JsonW *w, uint64_t v, bool negative)
{
    char *o = reserve(w, DIGITS_MAX);
    if (negative)
        *o++ = '-';
    done(w, put_digits(o, v));
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

void jsonw_raw(JsonW *w, const char *json, size_t n)
{
    item(w);
    put(w, json, n);
    terminate(w);
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

/* ---- literal keys ----
 * Each function has a fast path that calls nothing (so it saves no
 * registers): when the key is at most JSONW_LIT_READ bytes and the room
 * for it and the value is there, the key is one fixed-size copy.  Else
 * the slow path: the key put as any bytes, then the value's own call. */

/* Room for the comma, the key and more bytes after them (and the NUL). */
static inline bool lk_fits(const JsonW *w, size_t n, size_t more)
{
    return n <= JSONW_LIT_READ && w->b->len + 1 + JSONW_LIT_READ + more + 1 <= w->b->cap;
}

/* The comma and the key, where lk_fits said there is room; where the
 * value goes. */
static inline char *lk_at(JsonW *w, const char *q, size_t n)
{
    char *o = w->b->s + w->b->len;
    o[0] = ',';
    o += !w->first;
    memcpy(o, q, JSONW_LIT_READ); /* the bytes past n are overwritten or cut off */
    w->first = false;
    return o + n;
}

static void lk_slow(JsonW *w, const char *q, size_t n)
{
    if (!w->first)
        put(w, ",", 1);
    put(w, q, n);
    terminate(w);
    w->first = false;
    w->after_key = true;
}

void jsonw_lkey(JsonW *w, const char *q, size_t n) { lk_slow(w, q, n); }

void jsonw_lkraw(JsonW *w, const char *q, size_t n, const char *json, size_t len)
{
    if (!lk_fits(w, n, len)) {
        lk_slow(w, q, n);
        jsonw_raw(w, json, len);
        return;
    }
    char *o = lk_at(w, q, n);
    done(w, o + len);
    memcpy(o, json, len); /* last: a tail call */
}

void jsonw_lkstr(JsonW *w, const char *q, size_t n, const char *v)
{
    if (!v) {
        jsonw_lknull(w, q, n);
        return;
    }
    size_t len = plain_prefix(v);
    if (v[len] || !lk_fits(w, n, len + 2)) {
        lk_slow(w, q, n);
        jsonw_str(w, v);
        return;
    }
    char *o = lk_at(w, q, n);
    o[0] = '"';
    o[len + 1] = '"';
    done(w, o + len + 2);
    memcpy(o + 1, v, len); /* last: a tail call */
}

void jsonw_lkuint(JsonW *w, const char *q, size_t n, uint64_t v)
{
    if (!lk_fits(w, n, DIGITS_MAX)) {
        lk_slow(w, q, n);
        jsonw_uint(w, v);
        return;
    }
    done(w, put_digits(lk_at(w, q, n), v));
}

void jsonw_lkbool(JsonW *w, const char *q, size_t n, bool v)
{
    if (!lk_fits(w, n, 8)) {
        lk_slow(w, q, n);
        jsonw_bool(w, v);
        return;
    }
    char *o = lk_at(w, q, n);
    memcpy(o, v ? "true\0\0\0" : "false\0\0", 8);
    done(w, o + (v ? 4 : 5));
}

void jsonw_lknull(JsonW *w, const char *q, size_t n)
{
    if (!lk_fits(w, n, 8)) {
        lk_slow(w, q, n);
        jsonw_null(w);
        return;
    }
    char *o = lk_at(w, q, n);
    memcpy(o, "null\0\0\0", 8);
    done(w, o + 4);
}

void jsonw_lkpair(JsonW *w, const char *q, size_t n, uint64_t a, uint64_t b)
{
    if (!lk_fits(w, n, 2 * DIGITS_MAX + 3)) {
        lk_slow(w, q, n);
        jsonw_begin_list(w);
        jsonw_uint(w, a);
        jsonw_uint(w, b);
        jsonw_end_list(w);
        return;
    }
    char *o = lk_at(w, q, n);
    *o++ = '[';
    o = put_digits(o, a);
    *o++ = ',';
    o = put_digits(o, b);
    *o++ = ']';
    done(w, o);
}

void jsonw_hex64(char out[19], uint64_t v)
{
    static const char hex[] = "0123456789abcdef";
    out[0] = '0';
    out[1] = 'x';
    for (int i = 0; i < 8; i++) {
        unsigned byte = (unsigned)(v >> (56 - 8 * i)) & 0xFF;
        out[2 + 2 * i] = hex[byte >> 4];
        out[3 + 2 * i] = hex[byte & 15];
    }
    out[18] = '\0';
}

void jsonw_lkhex64(JsonW *w, const char *q, size_t n, uint64_t v)
{
    char text[19];
    jsonw_hex64(text, v);
    if (!lk_fits(w, n, 20)) {
        lk_slow(w, q, n);
        jsonw_str(w, text);
        return;
    }
    char *o = lk_at(w, q, n);
    o[0] = '"';
    memcpy(o + 1, text, 18);
    o[19] = '"';
    done(w, o + 20);
}

bool jsonw_lit_make(char *out, const char *k)
{
    size_t n = plain_prefix(k);
    if (k[n] || n + 3 > JSONW_LIT_READ)
        return false;
    out[0] = '"';
    memcpy(out + 1, k, n);
    memcpy(out + 1 + n, "\":", 2);
    memset(out + n + 3, 0, JSONW_LIT_READ);
    return true;
}

void jsonw_lkbegin(JsonW *w, const char *q, size_t n, bool list)
{
    if (!lk_fits(w, n, 1)) {
        lk_slow(w, q, n);
        if (list)
            jsonw_begin_list(w);
        else
            jsonw_begin_object(w);
        return;
    }
    char *o = lk_at(w, q, n);
    *o++ = list ? '[' : '{';
    done(w, o);
    w->depth++;
    w->first = true;
}
