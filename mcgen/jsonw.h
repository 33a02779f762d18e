/*
 * jsonw.h - the one JSON writer of the program: --json's model (compact,
 * emit_json.c), the diagnostics documents (indented, diag.c) and the template
 * engine's `tojson` filter (tmpl.c) all write through it, so string
 * escaping, number formatting and the commas between values have one home.
 *
 * A JsonW appends to a Buf.  Values go where the document is: after a key,
 * as that key's value; otherwise as the next element of the open list (a
 * comma first when it is not the first), or as the whole document at depth
 * 0.  The writer does not check that keys only appear inside objects: the
 * callers' code has the document's shape.
 *
 * Strings are always valid JSON whatever the bytes: '"', '\\' and control
 * characters (and DEL) are escaped, UTF-8 is copied, and a byte sequence
 * that is not UTF-8 (a stray byte, an overlong form, an encoded surrogate)
 * becomes U+FFFD.  Keys are escaped the same way.  Integers are decimal,
 * without printf.
 */
#ifndef MCGEN_JSONW_H
#define MCGEN_JSONW_H

#include "util.h"

typedef struct JsonW {
    Buf *b;
    int indent;    /* spaces per level; 0: compact, no white space at all */
    int depth;     /* open objects and lists */
    bool first;    /* nothing written yet inside the innermost open one */
    bool after_key; /* a key was written; its value comes next */
} JsonW;

/* A writer appending to b. */
void jsonw_init(JsonW *w, Buf *b, int indent);

void jsonw_begin_object(JsonW *w);
void jsonw_end_object(JsonW *w);
void jsonw_begin_list(JsonW *w);
void jsonw_end_list(JsonW *w);
void jsonw_key(JsonW *w, const char *k);
void jsonw_str(JsonW *w, const char *s); /* NULL: null */
void jsonw_strn(JsonW *w, const char *s, size_t n);
void jsonw_uint(JsonW *w, uint64_t v);
void jsonw_int(JsonW *w, int64_t v);
void jsonw_bool(JsonW *w, bool v);
void jsonw_null(JsonW *w);

/* A key written many times (--json writes a few hundred keys a million
 * times): its text, quoted and with the colon, made once when it needs
 * no escape and is short; jsonw_key_prepare says whether it could.  Then
 * jsonw_key_prepared writes it with fixed-size copies, for a compact
 * writer inside an object only. */
typedef struct JsonKey {
    char text[32]; /* "key": and NULs to the end */
    size_t n;      /* bytes of it before the NULs, at most 31 */
} JsonKey;
bool jsonw_key_prepare(JsonKey *key, const char *k);

/* Inline: it is the writer's most frequent call in --json.  The comma is
 * always stored and kept only when needed; the text's NULs past key->n
 * terminate the buffer. */
static inline void jsonw_key_prepared(JsonW *w, const JsonKey *key)
{
    Buf *b = w->b;
    if (b->len + 2 + sizeof key->text > b->cap)
        buf_grow(b, 1 + sizeof key->text);
    char *o = b->s + b->len;
    size_t comma = !w->first;
    o[0] = ',';
    memcpy(o + comma, key->text, sizeof key->text);
    b->len += comma + key->n;
    w->first = false;
    w->after_key = true;
}

/* key and value in one call */
void jsonw_kstr(JsonW *w, const char *k, const char *v); /* v NULL: null */

#endif
