/*
 * jsonw.c - the JSON writer (see jsonw.h for what it guarantees).
 *
 * --json writes documents of a hundred megabytes through here, so the
 * common cases are cheap: room is reserved once per token and bytes are
 * stored without further checks (b->s[b->len] is '\0' again only after
 * the token), and a string is copied in runs between the bytes that need
 * a look (a table marks them).
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

static void put(JsonW *w, const char *s, size_t n)
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

/* The quoted string, without the separator before it. */
static void quoted(JsonW *w, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    *reserve(w, 1) = '"';
    w->b->len++;
    size_t run = 0; /* start of the bytes not copied yet */
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (kind[c] == 0) {
            i++;
            continue;
        }
        if (kind[c] == 2) {
            uint32_t cp;
            size_t len = utf8_get(s + i, n - i, &cp);
            if (cp != 0xFFFD || (len == 3 && memcmp(s + i, "\xEF\xBF\xBD", 3) == 0)) {
                i += len; /* UTF-8: part of the run */
                continue;
            }
            put(w, s + run, i - run);
            PUTS(w, "\xEF\xBF\xBD");
            i += len;
            run = i;
            continue;
        }
        put(w, s + run, i - run);
        switch (c) {
        case '"': PUTS(w, "\\\""); break;
        case '\\': PUTS(w, "\\\\"); break;
        case '\n': PUTS(w, "\\n"); break;
        case '\r': PUTS(w, "\\r"); break;
        case '\t': PUTS(w, "\\t"); break;
        default: {
            char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            put(w, u, 6);
        }
        }
        i++;
        run = i;
    }
    put(w, s + run, n - run);
    *reserve(w, 1) = '"';
    w->b->len++;
    terminate(w);
}

void jsonw_key(JsonW *w, const char *k)
{
    w->after_key = false;
    item(w);
    quoted(w, k, strlen(k));
    if (w->indent)
        PUTS(w, ": ");
    else
        PUTS(w, ":");
    terminate(w);
    w->after_key = true;
}

void jsonw_strn(JsonW *w, const char *s, size_t n)
{
    item(w);
    quoted(w, s, n);
}

void jsonw_str(JsonW *w, const char *s)
{
    if (s)
        jsonw_strn(w, s, strlen(s));
    else
        jsonw_null(w);
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
