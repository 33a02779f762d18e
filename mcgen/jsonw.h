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

/* Literal keys, for --json (a few hundred keys written a million times):
 * the caller gives the key's text already quoted with its colon,
 * `"name":`, n bytes, readable for at least JSONW_LIT_READ bytes (a literal
 * followed by JSONW_LIT_PAD), and with nothing to escape.  Each call writes
 * the comma when needed, the key and its value with one check for room
 * and fixed-size copies; a compact writer inside an object only.  The
 * value string of jsonw_lkstr is any string, escaped as jsonw_str does. */
enum { JSONW_LIT_READ = 32 };
#define JSONW_LIT_PAD "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
void jsonw_lkey(JsonW *w, const char *q, size_t n);
void jsonw_lkstr(JsonW *w, const char *q, size_t n, const char *v); /* v NULL: null */
void jsonw_lkuint(JsonW *w, const char *q, size_t n, uint64_t v);
void jsonw_lkbool(JsonW *w, const char *q, size_t n, bool v);
void jsonw_lknull(JsonW *w, const char *q, size_t n);
/* [a,b] as the key's value */
void jsonw_lkpair(JsonW *w, const char *q, size_t n, uint64_t a, uint64_t b);
/* v as a string "0x" and 16 hex digits (JSON numbers lose precision
 * past 2^53); jsonw_hex64 makes that text, NUL-terminated */
void jsonw_lkhex64(JsonW *w, const char *q, size_t n, uint64_t v);
void jsonw_hex64(char out[19], uint64_t v);
/* A literal key's text made at run time, for a key known only then (a
 * culture's name): `"k":` and JSONW_LIT_READ NULs into out (room for
 * strlen(k) + 3 + JSONW_LIT_READ bytes).  False, and nothing made, when k
 * needs an escape or the text would be longer than JSONW_LIT_READ. */
bool jsonw_lit_make(char *out, const char *k);
/* a value that is already JSON text, len bytes (made by a compact writer) */
void jsonw_lkraw(JsonW *w, const char *q, size_t n, const char *json, size_t len);
/* an object or list opened as the key's value */
void jsonw_lkbegin(JsonW *w, const char *q, size_t n, bool list);

/* a value that is already JSON text, n bytes (made by a compact writer);
 * or, inside an object, members: "k":v,"k2":v2 */
void jsonw_raw(JsonW *w, const char *json, size_t n);

/* key and value in one call */
void jsonw_kstr(JsonW *w, const char *k, const char *v); /* v NULL: null */

#endif
