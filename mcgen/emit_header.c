/*
 * emit_header.c - what the C header's logging code needs beyond the model: the
 * typed template functions (mc's type-mangled McTemplateU0<code> names,
 * their parameters and the payload descriptors they fill), the arguments
 * of each EventWrite macro, and each provider's enable bits
 * (../shared/docs/header-api.md).
 *
 * The names and the parameter lists are mc's, so that code written
 * against mc's header compiles against ours.  The sizes are right where
 * mc's are not: an array of structs whose elements vary in size takes the
 * blob's total size (mc multiplies it by the count, dotnet/coreclr#25454),
 * and counted strings longer than 65535 bytes are refused by ETW rather
 * than cut to 16 bits.
 *
 * The values are made for the templates (header_values: what --render's
 * `header` shows too), but the built-in header is not rendered from them:
 * header_write writes the same text in C, straight from the model for the
 * parts repeated per event and per function, since rendering made a
 * dictionary per event and parameter and looked every name up (three
 * quarters of a large header's cost).  The templates stay the
 * specification: with --templates they are rendered, and a test compares
 * the two paths byte for byte.
 */
#include "mcgen.h"
#include "os.h"
#include "tmpl.h"

#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- the mangled code of one field ---- */

typedef enum { Q_NONE, Q_FIXED, Q_VAR } QKind;

typedef struct Qty {
    QKind k;
    uint32_t n; /* Q_FIXED: the number; Q_VAR: the referenced field's index */
} Qty;

/* count= and length= normalised as mc does: a count of 0 or 1 and a length
 * of 0 are none. */
static Qty qty(const Quantity *q, bool is_count)
{
    Qty r = {Q_NONE, 0};
    if (q->kind == QTY_FIXED && q->n > (is_count ? 1u : 0u))
        r = (Qty){Q_FIXED, q->n};
    else if (q->kind == QTY_FIELD && q->ref)
        r = (Qty){Q_VAR, q->ref->index};
    return r;
}

/* The letter of mc's type code; a field whose inType is unknown (left
 * unresolved in a decompiled manifest) is passed as an opaque blob, like
 * a struct. */
static char field_letter(const Field *f)
{
    return f->is_struct || !field_in_type(f) ? 'n' : field_in_type(f)->mangle;
}

static bool is_sized_string(char c) { return c == 'z' || c == 's' || c == 'b'; }

static char upper(char c) { return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c; }

/* v in decimal: every field of every event is mangled, so no printf. */
static void add_num(Buf *out, unsigned long long v)
{
    char tmp[24], *p = tmp + sizeof tmp;
    do
        *--p = (char)('0' + v % 10);
    while (v /= 10);
    buf_add(out, p, (size_t)(tmp + sizeof tmp - p));
}

/* letter, letter+N or letter+marker+index for none, fixed and variable. */
static void code(Buf *out, char letter, Qty q, char marker)
{
    buf_addc(out, letter);
    if (q.k == Q_VAR)
        buf_addc(out, marker);
    if (q.k != Q_NONE)
        add_num(out, q.n);
}

void header_mangle_field(const Field *f, Buf *out)
{
    char l = field_letter(f), u = upper(l);
    Qty c = qty(&f->qty->count, true), n = qty(&f->qty->length, false);
    if (!is_sized_string(l))
        code(out, c.k == Q_NONE ? l : u, c, 'R'); /* c, C5, CR0 */
    else if (c.k == Q_NONE)
        code(out, l, n, 'r'); /* z, z3, zr0 */
    else if (n.k == Q_NONE)
        buf_add(out, (char[]){u, 'R'}, 2); /* an array of strings: no index written */
    else if (c.k == Q_FIXED && n.k == Q_FIXED) {
        buf_addc(out, u); /* Z6 */
        add_num(out, (unsigned long long)c.n * n.n);
    } else if (c.k == Q_FIXED || n.k == Q_FIXED) {
        /* Z2r0: count, then length; Z5r0: length, then count */
        buf_addc(out, u);
        add_num(out, c.k == Q_FIXED ? c.n : n.n);
        buf_addc(out, 'r');
        add_num(out, c.k == Q_FIXED ? n.n : c.n);
    } else {
        buf_addc(out, u); /* Zr0R1 */
        buf_addc(out, 'r');
        add_num(out, n.n);
        buf_addc(out, 'R');
        add_num(out, c.n);
    }
}

/* ---- parameters and payload descriptors ---- */

/* The C type of one element of a fixed-size inType. */
static const char *scalar_ctype(char l)
{
    switch (l) {
    case 'c': return "signed char";
    case 'u': return "unsigned char";
    case 'l': return "signed short";
    case 'h': return "unsigned short";
    case 'd': return "signed int";
    case 'q': return "unsigned int";
    case 'i': return "signed __int64";
    case 'x': return "unsigned __int64";
    case 'f': return "float";
    case 'g': return "double";
    case 't': return "signed int";
    case 'p': return "void*";
    case 'j': return "GUID";
    case 'm': return "FILETIME";
    case 'y': return "SYSTEMTIME";
    default: return NULL;
    }
}

static bool members_fixed(const Field *f);

/* Whether a field's bytes have a size known from the manifest alone. */
static bool fixed_size(const Field *f)
{
    if (f->qty->count.kind == QTY_FIELD)
        return false;
    if (f->is_struct)
        return members_fixed(f);
    if (!field_in_type(f))
        return false;
    char l = field_in_type(f)->mangle;
    if (is_sized_string(l))
        return f->qty->length.kind == QTY_FIXED && f->qty->length.n > 0;
    return scalar_ctype(l) != NULL;
}

/* Whether every member of a struct has a size known from the manifest
 * (a data field has none: true; its `members` is another member's
 * storage, Field's union). */
static bool members_fixed(const Field *f)
{
    if (!f->is_struct)
        return true;
    for (size_t i = 0; i < f->members.n; i++)
        if (!fixed_size(f->members.v[i]))
            return false;
    return true;
}

void header_field_shape(const Field *f, FieldShape *s)
{
    Qty c = qty(&f->qty->count, true), n = qty(&f->qty->length, false);
    unsigned pieces, params;
    check_field_pieces(f, &pieces, &params);
    *s = (FieldShape){field_letter(f),
                      c.k == Q_NONE ? QTY_NONE : c.k == Q_FIXED ? QTY_FIXED : QTY_FIELD,
                      n.k == Q_NONE ? QTY_NONE : n.k == Q_FIXED ? QTY_FIXED : QTY_FIELD,
                      c.n, n.n, params == 2, members_fixed(f)};
}

/* A string and its length: the pieces of an event's macros are known
 * once per event (or when compiled, LIT), not measured per use. */
typedef struct Str {
    const char *s;
    size_t n;
} Str;
#define LIT(lit) ((Str){"" lit, sizeof lit - 1})
/* a, a line end (CR LF when crlf), b: a literal either way. */
#define NL(crlf, a, b) ((crlf) ? LIT(a "\r\n" b) : LIT(a "\n" b))
static Str str_of(const char *s) { return (Str){s, strlen(s)}; }

/* The k strings one after another at the end of b, room made once. */
static void put_parts(Buf *b, const Str *parts, size_t k)
{
    size_t n = 0;
    for (size_t i = 0; i < k; i++)
        n += parts[i].n;
    buf_grow(b, n);
    char *q = b->s + b->len;
    for (size_t i = 0; i < k; i++) {
        memcpy(q, parts[i].s, parts[i].n);
        q += parts[i].n;
    }
    b->len += n;
    b->s[b->len] = '\0';
}
#define PUT(b, ...) \
    put_parts((b), (const Str[]){__VA_ARGS__}, sizeof((const Str[]){__VA_ARGS__}) / sizeof(Str))

typedef VEC(const char *) Names;

/* Text made many times over with a few parts changing (an event's
 * macros): its literal parts, joined where they meet, made once, and
 * holes, filled before each use (fill[h]).  A hole is written HOLE(h)
 * among the literals given to pattern_add (Str with s NULL: n is its
 * number). */
#define HOLE(h) ((Str){NULL, (h)})
enum { PATTERN_HOLES = 8 };
typedef struct Pattern {
    Str fill[PATTERN_HOLES]; /* what each hole is, for the next pattern_put */
    VEC(Str) pieces;         /* literals (s into text once done) and holes */
    VEC(const Str *) order;  /* once done: per piece, its literal or its fill */
    Buf text;                /* the literals' bytes */
    size_t lit_len;          /* their total length */
    size_t uses[PATTERN_HOLES]; /* how many times each hole is filled */
} Pattern;

static void pattern_add_(Pattern *p, const Str *parts, size_t k)
{
    for (size_t i = 0; i < k; i++) {
        Str s = parts[i];
        if (!s.s) {
            guard_here(s.n < PATTERN_HOLES, "pattern hole out of range");
            p->uses[s.n]++;
            vec_push(&p->pieces, s);
            continue;
        }
        if (!s.n)
            continue;
        /* a literal: pointed at text when done (text may move) */
        Str *last = p->pieces.n ? &p->pieces.v[p->pieces.n - 1] : NULL;
        if (last && last->s)
            last->n += s.n;
        else
            vec_push(&p->pieces, ((Str){"", s.n}));
        buf_add(&p->text, s.s, s.n);
        p->lit_len += s.n;
    }
}
#define pattern_add(p, ...) \
    pattern_add_((p), (const Str[]){__VA_ARGS__}, sizeof((const Str[]){__VA_ARGS__}) / sizeof(Str))

/* Once all is added: the literals pointed at their bytes, and each piece
 * at what it copies (no test per piece when put). */
static void pattern_done(Pattern *p)
{
    size_t at = 0;
    for (size_t i = 0; i < p->pieces.n; i++) {
        Str *s = &p->pieces.v[i];
        if (s->s) {
            s->s = p->text.s + at;
            at += s->n;
        }
        vec_push(&p->order, s->s ? s : &p->fill[s->n]);
    }
}

/* The pattern with its holes filled at the end of b; room made once. */
static void pattern_put(Buf *b, const Pattern *p)
{
    size_t n = p->lit_len;
    for (size_t h = 0; h < PATTERN_HOLES; h++)
        n += p->uses[h] * p->fill[h].n;
    buf_grow(b, n);
    char *q = b->s + b->len;
    for (size_t i = 0; i < p->order.n; i++) {
        const Str *s = p->order.v[i];
        memcpy(q, s->s, s->n);
        q += s->n;
    }
    b->len += n;
    b->s[b->len] = '\0';
}

static void pattern_free(Pattern *p)
{
    vec_free(&p->pieces);
    vec_free(&p->order);
    buf_free(&p->text);
}


/* What add_field makes: the function's pieces as template values
 * (function_values) or as their C text (header_write), or only the
 * macro's names (neither). */
typedef struct Fn {
    Arena *a;
    TValue *params; /* list of {type, sal, name}; NULL: not as values */
    TValue *data;   /* list of {index, ptr, size} */
    TValue *locals; /* list of C declarations */
    Buf *ptext;     /* ",\n    sal type name" per parameter; NULL: not as text */
    Buf *dtext;     /* an EventDataDescCreate line per descriptor */
    Buf *ltext;     /* a line per local declaration */
    Names *args;    /* the EventWrite macro's parameter names */
    int next;       /* next EventData index */
    bool crlf;      /* the text's line ends are CR LF */
} Fn;

static void param(Fn *fn, const char *sal, const char *type, const char *name)
{
    if (fn->ptext) {
        Str sep = NL(fn->crlf, ",", "    ");
        buf_add(fn->ptext, sep.s, sep.n);
        buf_adds(fn->ptext, sal);
        buf_addc(fn->ptext, ' ');
        buf_adds(fn->ptext, type);
        buf_addc(fn->ptext, ' ');
        buf_adds(fn->ptext, name);
        return;
    }
    TValue *p = tv_dict(fn->a);
    tv_add(fn->a, p, "sal", tv_strref(fn->a, sal));
    tv_add(fn->a, p, "type", tv_strref(fn->a, type));
    tv_add(fn->a, p, "name", tv_strref(fn->a, name));
    tv_push(fn->a, fn->params, p);
}

static char *digits(char *end, unsigned v);

static void data(Fn *fn, const char *ptr, const char *size)
{
    if (fn->dtext) {
        char tmp[16];
        buf_adds(fn->dtext, "    EventDataDescCreate(&EventData[");
        buf_adds(fn->dtext, digits(tmp + sizeof tmp, (unsigned)fn->next++));
        buf_add(fn->dtext, "], ", 3);
        buf_adds(fn->dtext, ptr);
        buf_add(fn->dtext, ", ", 2);
        buf_adds(fn->dtext, size);
        Str end = NL(fn->crlf, ");", "");
        buf_add(fn->dtext, end.s, end.n);
        return;
    }
    TValue *d = tv_dict(fn->a);
    tv_add(fn->a, d, "index", tv_int(fn->a, fn->next++));
    tv_add(fn->a, d, "ptr", tv_strref(fn->a, ptr));
    tv_add(fn->a, d, "size", tv_strref(fn->a, size));
    tv_push(fn->a, fn->data, d);
}

/* The concatenation of the strings before NULL, in a: the C text of the
 * parameters and descriptors without printf's machinery (5% of a large
 * header's instructions when it was arena_printf).  Parts are names and
 * short expressions, so they are copied once into a stack buffer as they
 * are measured (a strlen and a memcpy call per part cost more); a longer
 * result (a long field name) is measured first instead. */
static const char *cat_(Arena *a, const char *const *parts)
{
    char tmp[256];
    size_t n = 0, k = 0;
    for (; parts[k]; k++) {
        guard_here(k < 16, "cat of more than 16 parts");
        for (const char *p = parts[k]; *p; p++) {
            if (n == sizeof tmp)
                goto long_result;
            tmp[n++] = *p;
        }
    }
    return arena_strndup(a, tmp, n);
long_result:
    n = 0;
    for (k = 0; parts[k]; k++)
        n += strlen(parts[k]);
    char *s = arena_alloc(a, n + 1), *q = s;
    for (k = 0; parts[k]; k++) {
        size_t m = strlen(parts[k]);
        memcpy(q, parts[k], m);
        q += m;
    }
    *q = '\0';
    return s;
}
#define cat(a, ...) cat_((a), (const char *const[]){__VA_ARGS__, NULL})

/* v in decimal, NUL-terminated, written backwards from end. */
static char *digits(char *end, unsigned v)
{
    *--end = '\0';
    do
        *--end = (char)('0' + v % 10);
    while (v /= 10);
    return end;
}

/* v in decimal, in a. */
static const char *num(Arena *a, unsigned v)
{
    char tmp[16];
    return cat(a, digits(tmp + sizeof tmp, v));
}

/* _Arg<i><suffix>: a parameter's name. */
static const char *argn(Arena *a, unsigned i, const char *suffix)
{
    char tmp[16];
    return cat(a, "_Arg", digits(tmp + sizeof tmp, i), suffix);
}

/* The number of elements as a C expression ("" for one). */
static const char *count_expr(Arena *a, Qty c)
{
    if (c.k == Q_FIXED)
        return num(a, c.n);
    if (c.k == Q_VAR)
        return argn(a, c.n, "");
    return "1";
}

/* The C text of the common fields, a scalar or a NUL-terminated string,
 * one of each per element: written straight into the function's text
 * from pieces of known length (add_field's general path joins each
 * expression in the arena first).  false: not such a field. */
static bool add_plain_text(Fn *fn, char l, Qty c, Qty n, bool takes_len, uint32_t i)
{
    if (c.k != Q_NONE || n.k != Q_NONE || takes_len)
        return false;
    char tmp[16], itmp[16];
    Str arg = str_of(digits(tmp + sizeof tmp, i)), idx;
    Str open = LIT("    EventDataDescCreate(&EventData[");
    if (l == 'z' || l == 's') {
        /* NULL is logged as "NULL" */
        bool z = l == 'z';
        PUT(fn->ptext, NL(fn->crlf, ",", "    _In_opt_ "), z ? LIT("PCWSTR") : LIT("PCSTR"), LIT(" _Arg"), arg);
        idx = str_of(digits(itmp + sizeof itmp, (unsigned)fn->next++));
        Str lit = z ? LIT("L\"NULL\"") : LIT("\"NULL\"");
        PUT(fn->dtext, open, idx, LIT("], (_Arg"), arg, LIT(" != NULL) ? (const void*)_Arg"), arg,
            LIT(" : (const void*)"), lit, LIT(", (_Arg"), arg, LIT(" != NULL) ? (ULONG)(("),
            z ? LIT("wcslen") : LIT("strlen"), LIT("(_Arg"), arg, LIT(") + 1) * sizeof("),
            z ? LIT("WCHAR") : LIT("char"), LIT(")) : (ULONG)sizeof("), lit, NL(fn->crlf, "));", ""));
        return true;
    }
    if (is_sized_string(l) || l == 'w' || l == 'a' || l == 'e' || l == 'k' || l == 'n')
        return false;
    const char *t = scalar_ctype(l);
    if (!t)
        return false;
    Str st = str_of(t);
    bool by_ptr = l == 'j' || l == 'm' || l == 'y'; /* passed by address */
    PUT(fn->ptext, NL(fn->crlf, ",", "    "), l == 'p' ? LIT("_In_opt_") : LIT("_In_"), LIT(" const "), st,
        by_ptr ? LIT("*") : LIT(""), LIT(" _Arg"), arg);
    idx = str_of(digits(itmp + sizeof itmp, (unsigned)fn->next++));
    PUT(fn->dtext, open, idx, by_ptr ? LIT("], _Arg") : LIT("], &_Arg"), arg, LIT(", sizeof("), st,
        NL(fn->crlf, "));", ""));
    return true;
}

/* Adds field number i (top level) of a template: its parameters, its
 * payload descriptors and its macro arguments (named after macro_name,
 * which only a Fn with args needs). */
static void add_field(Fn *fn, const Field *f, uint32_t i, const char *macro_name)
{
    Arena *a = fn->a;
    int first = fn->next;
    char l = field_letter(f);
    Qty c = qty(&f->qty->count, true), n = qty(&f->qty->length, false);
    unsigned pieces, params; /* check_limits.c counts them for MCG8020/8021 */
    check_field_pieces(f, &pieces, &params);
    bool takes_len = params == 2;
    if (fn->args) {
        if (takes_len)
            vec_push(fn->args, cat(a, macro_name, "_Len_"));
        vec_push(fn->args, macro_name);
    }
    if (!fn->params && !fn->ptext)
        return; /* the function exists: only the macro's names were wanted */
    if (fn->ptext && add_plain_text(fn, l, c, n, takes_len, i)) {
        guard_here(fn->next - first == (int)pieces, "descriptors miscounted for MCG8020");
        return;
    }
    const char *arg = argn(a, i, "");
    /* _Arg<i>_Len_: a length parameter's, or an array's byte count */
    const char *len = takes_len || l == 'w' || l == 'a' || l == 'e' || l == 'k' || l == 'n'
                          ? argn(a, i, "_Len_")
                          : NULL;
    const char *cnt = count_expr(a, c);
    if (takes_len)
        param(fn, "_In_", "ULONG", len);
    const char *unit = l == 'z' || l == 'w' ? "WCHAR" : "char";
    switch (l) {
    case 'z':
    case 's':
    case 'b': {
        const char *ptype = l == 'z' ? "const WCHAR*" : l == 's' ? "const char*" : "const unsigned char*";
        if (c.k == Q_NONE && n.k == Q_NONE && l != 'b') {
            /* a NUL-terminated string; NULL is logged as "NULL" */
            const char *lit = l == 'z' ? "L\"NULL\"" : "\"NULL\"";
            const char *fn_len = l == 'z' ? "wcslen" : "strlen";
            param(fn, "_In_opt_", l == 'z' ? "PCWSTR" : "PCSTR", arg);
            data(fn, cat(a, "(", arg, " != NULL) ? (const void*)", arg, " : (const void*)", lit),
                 cat(a, "(", arg, " != NULL) ? (ULONG)((", fn_len, "(", arg, ") + 1) * sizeof(", unit,
                     ")) : (ULONG)sizeof(", lit, ")"));
        } else if (takes_len) {
            /* a blob the caller packed: strings one after another, or
             * binary of a size only the caller knows */
            param(fn, cat(a, "_In_reads_(", len, ")"), ptype, arg);
            data(fn, arg, cat(a, "(ULONG)(sizeof(", unit, ") * ", len, ")"));
        } else {
            /* every element has the length the manifest gives */
            const char *each = n.k == Q_FIXED ? num(a, n.n) : argn(a, n.n, "");
            const char *total = c.k == Q_NONE ? each : cat(a, cnt, " * ", each);
            param(fn, cat(a, "_In_reads_(", total, ")"), ptype, arg);
            data(fn, arg, cat(a, "(ULONG)(sizeof(", unit, ") * ", total, ")"));
        }
        break;
    }
    case 'w':
    case 'a':
    case 'e': {
        const char *ptype = l == 'w' ? "const WCHAR*" : l == 'a' ? "const char*" : "const unsigned char*";
        param(fn, cat(a, "_In_reads_(", len, ")"), ptype, arg);
        if (c.k == Q_NONE) {
            /* a 16-bit byte count, then the bytes */
            const char *size = argn(a, i, "_Size_");
            const char *decl = cat(a, "USHORT ", size, " = (USHORT)(sizeof(", unit, ") * ", len, ");");
            if (fn->ltext) {
                buf_add(fn->ltext, "    ", 4);
                buf_adds(fn->ltext, decl);
                Str end = NL(fn->crlf, "", "");
                buf_add(fn->ltext, end.s, end.n);
            } else {
                tv_push(a, fn->locals, tv_strref(a, decl));
            }
            data(fn, cat(a, "&", size), "sizeof(USHORT)");
            data(fn, arg, size);
        } else {
            /* the caller packed every item with its count */
            data(fn, arg, cat(a, "(ULONG)(sizeof(", unit, ") * ", len, ")"));
        }
        break;
    }
    case 'k':
        if (c.k == Q_NONE) {
            param(fn, "_In_opt_", "const SID*", arg);
            data(fn, cat(a, "(", arg, " != NULL) ? (const void*)", arg,
                     " : (const void*)\"\\0\\0\\0\\0\\0\\0\\0\""),
                 cat(a, "(", arg, " != NULL) ? (ULONG)MCGEN_GETLENGTHSID(", arg, ") : 8u"));
        } else {
            param(fn, cat(a, "_In_reads_bytes_(", len, ")"), "const unsigned char*", arg);
            data(fn, arg, len);
        }
        break;
    case 'n':
        param(fn, cat(a, "_In_reads_bytes_(", len, ")"), "const void*", arg);
        /* _Len_ is one element's size when all elements have the same
         * size, as in mc; the whole blob's when they differ, where mc's
         * count * _Len_ is wrong */
        if (c.k == Q_NONE || !members_fixed(f))
            data(fn, arg, len);
        else
            data(fn, arg, cat(a, "(ULONG)(", cnt, " * ", len, ")"));
        break;
    default: {
        const char *t = scalar_ctype(l);
        if (!t)
            t = "unsigned char"; /* cannot happen: winmeta gives every inType a letter */
        if (c.k == Q_NONE && (l == 'j' || l == 'm' || l == 'y')) {
            param(fn, "_In_", cat(a, "const ", t, "*"), arg);
            data(fn, arg, cat(a, "sizeof(", t, ")"));
        } else if (c.k == Q_NONE) {
            param(fn, l == 'p' ? "_In_opt_" : "_In_", cat(a, "const ", t), arg);
            data(fn, cat(a, "&", arg), cat(a, "sizeof(", t, ")"));
        } else {
            param(fn, cat(a, "_In_reads_(", cnt, ")"), cat(a, "const ", t, "*"), arg);
            data(fn, arg, cat(a, "(ULONG)(sizeof(", t, ") * ", cnt, ")"));
        }
        break;
    }
    }
    guard_here(fn->next - first == (int)pieces, "descriptors miscounted for MCG8020");
}

/* ---- template functions, enable bits, event macros ---- */

typedef struct FnEntry {
    const char *name;
    const Layout *layout; /* its fields make the function (NULL: none) */
} FnEntry;

typedef VEC(FnEntry) FnList;

static int by_name(const void *x, const void *y)
{
    return strcmp(((const FnEntry *)x)->name, ((const FnEntry *)y)->name);
}

/* The name of the function of a template (an event without template: l
 * NULL); `prefix` is McTemplateU0 or McTemplateK0.  Its first user adds
 * it to seen and all (in a); its dictionary is made when a template asks
 * for it (function_values).  Events whose templates differ only in field
 * names share the function but not the macro's names (event_values). */
static const char *function_for(Arena *a, Map *seen, FnList *all, const Layout *l,
                                const char *prefix, bool logging, Buf *name)
{
    name->len = 0;
    buf_adds(name, prefix);
    for (size_t i = 0; l && i < l->fields.n; i++)
        header_mangle_field(l->fields.v[i], name);
    FnEntry *e = map_get(seen, name->s);
    if (e)
        return e->name;
    /* the traits' descriptor and the payload's: EventWrite takes 128 */
    unsigned next = 1;
    for (size_t i = 0; l && i < l->fields.n; i++) {
        unsigned pieces, params;
        check_field_pieces(l->fields.v[i], &pieces, &params);
        next += pieces;
    }
    guard_here(!logging || next <= 128, "over 128 EVENT_DATA_DESCRIPTORs (MCG8020)");
    e = arena_alloc(a, sizeof *e);
    e->name = arena_strndup(a, name->s, name->len);
    e->layout = l;
    map_put(seen, e->name, e, false);
    vec_push(all, *e);
    return e->name;
}

/* The dictionary of function i of the sorted list: name, template,
 * argcount, params, data, locals. */
static TValue *function_values(const void *ctx, size_t i, Arena *a)
{
    const FnEntry *e = (const FnEntry *)ctx + i;
    const Layout *l = e->layout;
    Fn fn = {a, tv_list(a), tv_list(a), tv_list(a), NULL, NULL, NULL, NULL, 1, false};
    for (size_t k = 0; l && k < l->fields.n; k++) {
        const Field *f = l->fields.v[k];
        add_field(&fn, f, (uint32_t)k, NULL); /* no macro names: fn.args NULL */
    }
    TValue *d = tv_dict(a);
    tv_add(a, d, "name", tv_strref(a, e->name));
    tv_add(a, d, "template", l ? tv_strref(a, l->tid) : tv_none(a));
    tv_add(a, d, "argcount", tv_int(a, fn.next - 1));
    tv_add(a, d, "params", fn.params);
    tv_add(a, d, "data", fn.data);
    tv_add(a, d, "locals", fn.locals);
    return d;
}

/* The macro parameter names differ from the function's: a template with
 * two fields of one name (or names that become one identifier) would make
 * a macro that does not compile; later ones get a numeric suffix. */
static void unique_args(Arena *a, Names *args)
{
    bool repeats = false;
    if (args->n <= 16) { /* the usual case: compare directly */
        for (size_t i = 0; i < args->n && !repeats; i++)
            for (size_t j = 0; j < i && !repeats; j++)
                repeats = args->v[i][0] == args->v[j][0] && strcmp(args->v[i], args->v[j]) == 0;
        if (!repeats)
            return;
    }
    Map used = {0};
    for (size_t i = 0; i < args->n; i++) {
        const char *s = args->v[i];
        for (int k = 2; map_get(&used, s); k++)
            s = arena_printf(a, "%s_%d", args->v[i], k);
        map_put(&used, s, (void *)s, false);
        args->v[i] = s;
    }
    map_free(&used);
}

/* The macro's parameter names of a logged event, made unique, in *args
 * (emptied first). */
static void event_args(Arena *a, const Event *e, Names *args)
{
    const Layout *l = e->layout;
    Fn fn = {a, NULL, NULL, NULL, NULL, NULL, NULL, args, 1, false};
    args->n = 0;
    for (size_t k = 0; l && k < l->fields.n; k++) {
        const Field *fd = l->fields.v[k];
        add_field(&fn, fd, (uint32_t)k, header_ident_of(a, fd->name ? fd->name : ""));
    }
    unique_args(a, args);
}

/* A string-literal piece of the traits: every byte as \xNN except plain
 * printable ASCII of the name. */
static void trait_piece(Arena *a, TValue *list, const unsigned char *p, size_t n, bool text,
                        const char *comment)
{
    Buf b = {0};
    buf_add(&b, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        if (text && p[i] >= 0x20 && p[i] < 0x7F && p[i] != '"' && p[i] != '\\' && p[i] != '?')
            buf_printf(&b, "%c", p[i]);
        else
            buf_printf(&b, "\\x%02X", p[i]);
        /* a hex escape swallows the hex digits after it: end the literal */
        if (text && i + 1 < n && p[i] >= 0x80 && isxdigit(p[i + 1]))
            buf_add(&b, "\" \"", 3);
    }
    buf_add(&b, "\"", 1);
    TValue *d = tv_dict(a);
    tv_add(a, d, "literal", tv_str(a, b.s));
    tv_add(a, d, "comment", tv_str(a, comment));
    tv_push(a, list, d);
    buf_free(&b);
}

static void guid_bytes(const Guid *g, unsigned char out[16])
{
    out[0] = (unsigned char)g->d1;
    out[1] = (unsigned char)(g->d1 >> 8);
    out[2] = (unsigned char)(g->d1 >> 16);
    out[3] = (unsigned char)(g->d1 >> 24);
    out[4] = (unsigned char)g->d2;
    out[5] = (unsigned char)(g->d2 >> 8);
    out[6] = (unsigned char)g->d3;
    out[7] = (unsigned char)(g->d3 >> 8);
    memcpy(out + 8, g->d4, 8);
}

/* The provider traits blob ETW gets with each event (header-api.md 2):
 * u16 total size, the provider name and a NUL (or only the NUL), then
 * {u16 19, u8 type, GUID} for the group GUID (type 1) and, with a
 * controlGuid, the provider GUID as decode GUID (type 2).  none when the
 * provider has neither traits nor a controlGuid. */
static TValue *traits(Arena *a, const Provider *pv, int64_t *size)
{
    if (!pv->traits && !pv->has_control_guid)
        return tv_none(a);
    TValue *list = tv_list(a);
    bool name = pv->traits && pv->traits->has_include_name && pv->traits->include_name;
    size_t total = 2 + (name ? strlen(pv->name) : 0) + 1;
    bool group = pv->traits && pv->traits->has_group_guid;
    total += (group ? 19 : 0) + (pv->has_control_guid ? 19 : 0);
    unsigned char head[2] = {(unsigned char)total, (unsigned char)(total >> 8)};
    trait_piece(a, list, head, 2, false, arena_printf(a, "total size %zu", total));
    if (name) {
        size_t n = strlen(pv->name);
        unsigned char *t = arena_alloc(a, n + 1);
        memcpy(t, pv->name, n + 1);
        trait_piece(a, list, t, n + 1, true, "provider name");
    } else {
        unsigned char nul = 0;
        trait_piece(a, list, &nul, 1, false, "no provider name");
    }
    unsigned char g[19] = {0x13, 0x00};
    if (group) {
        g[2] = 1;
        guid_bytes(&pv->traits->group_guid, g + 3);
        trait_piece(a, list, g, 19, false, "group GUID");
    }
    if (pv->has_control_guid) {
        g[2] = 2;
        guid_bytes(&pv->guid, g + 3);
        trait_piece(a, list, g, 19, false, "decode GUID");
    }
    *size = (int64_t)total;
    return list;
}

/* ---- the descriptors part ---- */

/* v as `digits` lowercase hex digits at q; returns the end. */
static char *lower_hex(char *q, uint32_t v, int digits)
{
    for (int i = digits; i-- > 0; v >>= 4)
        q[i] = "0123456789abcdef"[v & 15];
    return q + digits;
}

/* {0x%08x, 0x%04x, 0x%04x, {0x%02x, ... 8 bytes}}, without printf: a
 * large manifest has a GUID per task. */
static const char *guid_init(Arena *a, const Guid *g)
{
    char *s = arena_alloc(a, 96), *q = s;
    memcpy(q, "{0x", 3);
    q = lower_hex(q + 3, g->d1, 8);
    memcpy(q, ", 0x", 4);
    q = lower_hex(q + 4, g->d2, 4);
    memcpy(q, ", 0x", 4);
    q = lower_hex(q + 4, g->d3, 4);
    memcpy(q, ", {0x", 5);
    q += 5;
    for (int i = 0; i < 8; i++) {
        if (i) {
            memcpy(q, ", 0x", 4);
            q += 4;
        }
        q = lower_hex(q, g->d4[i], 2);
    }
    memcpy(q, "}}", 3);
    return s;
}

static const char *guid_text(Arena *a, const Guid *g)
{
    return arena_printf(a, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x", g->d1, g->d2,
                        g->d3, g->d4[0], g->d4[1], g->d4[2], g->d4[3], g->d4[4], g->d4[5],
                        g->d4[6], g->d4[7]);
}

/* {symbol, value}: the name the check stage gave the item (check_names.c). */
static TValue *define(Arena *a, const Facts *f, const void *item, int64_t value)
{
    TValue *d = tv_dict(a);
    tv_add(a, d, "symbol", tv_strref(a, facts_name(f, item)));
    tv_add(a, d, "value", tv_int(a, value));
    return d;
}

/* The define of a level, opcode or keyword the manifest declares
 * (winmeta's have theirs in the SDK). */
static void define_item(Arena *a, const Facts *f, TValue *list, const void *item, const Named *n,
                        int64_t value)
{
    if (!n->builtin)
        tv_push(a, list, define(a, f, item, value));
}

/* What a generated list of opcode or task defines makes its items from:
 * a large manifest has tens of thousands of tasks, and their dictionaries
 * need not all exist at once (tv_generated). */
typedef struct DefinesGen {
    const Facts *f;
    const void **items; /* Opcode * or Task * */
} DefinesGen;

static TValue *opcode_define(const void *ctx, size_t i, Arena *a)
{
    const DefinesGen *g = ctx;
    const Opcode *o = g->items[i];
    return define(a, g->f, o, o->value);
}

static TValue *task_define(const void *ctx, size_t i, Arena *a)
{
    const DefinesGen *g = ctx;
    const Task *t = g->items[i];
    TValue *d = define(a, g->f, t, t->value);
    bool guid = task_has_guid(t);
    tv_add(a, d, "guid_symbol", guid ? tv_strref(a, facts_name(g->f, &t->event_guid)) : tv_none(a));
    tv_add(a, d, "guid_init", guid ? tv_strref(a, guid_init(a, &t->event_guid)) : tv_none(a));
    return d;
}

static int by_symbol(const void *x, const void *y)
{
    const ValueMap *a = *(ValueMap *const *)x, *b = *(ValueMap *const *)y;
    return strcmp(a->symbol, b->symbol);
}

/* GUIDs, traits, the defines of channels, levels, opcodes, tasks and
 * keywords, the enums of maps, and the numbers of each EVENT_DESCRIPTOR
 * (header-api.md 2). */
static void descriptor_values(Arena *a, const Provider *pv, const Facts *f, TValue *pd)
{
    tv_add(a, pd, "name", tv_str(a, pv->name));
    tv_add(a, pd, "guid", tv_str(a, guid_text(a, &pv->guid)));
    tv_add(a, pd, "guid_init", tv_str(a, guid_init(a, &pv->guid)));
    tv_add(a, pd, "control_guid_text",
           pv->has_control_guid ? tv_str(a, guid_text(a, &pv->control_guid)) : tv_none(a));
    tv_add(a, pd, "control_guid_init",
           pv->has_control_guid ? tv_str(a, guid_init(a, &pv->control_guid)) : tv_none(a));
    tv_add(a, pd, "event_count", tv_int(a, (int64_t)pv->events.n));
    TValue *l = tv_list(a);
    for (size_t i = 0; i < pv->channels.n; i++) {
        const Channel *c = pv->channels.v[i];
        TValue *d = define(a, f, c, c->value);
        /* the bit the channel adds to its events' keyword; newer mc
         * versions define it as <symbol>_KEYWORD */
        uint64_t bit = channel_keyword(c);
        tv_add(a, d, "keyword", bit ? tv_int(a, (int64_t)bit) : tv_none(a));
        tv_push(a, l, d);
    }
    tv_add(a, pd, "channels", l);
    l = tv_list(a);
    for (size_t i = 0; i < pv->levels.n; i++)
        define_item(a, f, l, pv->levels.v[i], &pv->levels.v[i]->n, pv->levels.v[i]->value);
    tv_add(a, pd, "levels", l);
    /* provider opcodes, then each task's (the manifest's: winmeta's have
     * their defines in the SDK) */
    size_t n = pv->opcodes.n;
    for (size_t i = 0; i < pv->tasks.n; i++)
        n += pv->tasks.v[i]->opcodes.n;
    DefinesGen *g = arena_alloc(a, sizeof *g);
    *g = (DefinesGen){f, arena_alloc(a, (n + 1) * sizeof *g->items)};
    n = 0;
    for (size_t i = 0; i < pv->opcodes.n; i++)
        if (!pv->opcodes.v[i]->n.builtin)
            g->items[n++] = pv->opcodes.v[i];
    for (size_t i = 0; i < pv->tasks.n; i++)
        for (size_t j = 0; j < pv->tasks.v[i]->opcodes.n; j++)
            if (!pv->tasks.v[i]->opcodes.v[j]->n.builtin)
                g->items[n++] = pv->tasks.v[i]->opcodes.v[j];
    tv_add(a, pd, "opcodes", tv_generated(a, n, opcode_define, g));
    g = arena_alloc(a, sizeof *g);
    *g = (DefinesGen){f, arena_alloc(a, (pv->tasks.n + 1) * sizeof *g->items)};
    n = 0;
    for (size_t i = 0; i < pv->tasks.n; i++)
        if (!pv->tasks.v[i]->n.builtin)
            g->items[n++] = pv->tasks.v[i];
    tv_add(a, pd, "tasks", tv_generated(a, n, task_define, g));
    l = tv_list(a);
    for (size_t i = 0; i < pv->keywords.n; i++)
        define_item(a, f, l, pv->keywords.v[i], &pv->keywords.v[i]->n,
                    (int64_t)pv->keywords.v[i]->mask);
    tv_add(a, pd, "keywords", l);
    /* maps with a symbol, sorted by it; their items with a symbol */
    VEC(const ValueMap *) maps = {0};
    for (size_t i = 0; i < pv->maps.n; i++)
        if (pv->maps.v[i]->symbol && *pv->maps.v[i]->symbol && pv->maps.v[i]->kind != MAP_PATTERN)
            vec_push(&maps, pv->maps.v[i]);
    sort_stable(maps.v, maps.n, sizeof *maps.v, by_symbol);
    l = tv_list(a);
    for (size_t i = 0; i < maps.n; i++) {
        bool any = false;
        for (size_t j = 0; j < maps.v[i]->items.n; j++)
            any |= maps.v[i]->items.v[j]->symbol && *maps.v[i]->items.v[j]->symbol;
        if (!any)
            continue; /* an enum without members is no C */
        const ValueMap *vm = maps.v[i];
        TValue *d = tv_dict(a), *items = tv_list(a);
        const char *ms = header_ident(a, vm->symbol);
        tv_add(a, d, "symbol", tv_strref(a, ms));
        for (size_t j = 0; j < vm->items.n; j++) {
            const MapItem *it = vm->items.v[j];
            if (!it->symbol || !*it->symbol)
                continue;
            TValue *e = tv_dict(a);
            tv_add(a, e, "symbol", tv_strref(a, arena_printf(a, "%s%s", ms, header_ident(a, it->symbol))));
            tv_add(a, e, "value", tv_int(a, (int32_t)it->value));
            tv_push(a, items, e);
        }
        tv_add(a, d, "items", items);
        tv_push(a, l, d);
    }
    tv_add(a, pd, "maps", l);
    vec_free(&maps);
}

typedef struct Msg {
    const char *name;
    uint32_t id;
} Msg;

static int by_msg_name(const void *x, const void *y)
{
    return strcmp(((const Msg *)x)->name, ((const Msg *)y)->name);
}

/* The dictionary of message i of a sorted array: name (MSG_<string id>), id. */
static TValue *message_values(const void *ctx, size_t i, Arena *a)
{
    const Msg *msg = (const Msg *)ctx + i;
    TValue *d = tv_dict(a);
    tv_add(a, d, "name", tv_strref(a, cat(a, "MSG_", header_ident_of(a, msg->name))));
    tv_add(a, d, "id", tv_int(a, msg->id));
    return d;
}

/* The message ids of the manifest's strings, by id: MSG_<string id>.
 * Built-in items' winmeta strings are among them when the manifest's own
 * string table defines them (check_msgid.c).  A generated list: a large
 * manifest has tens of thousands. */
static TValue *messages(Arena *a, const Manifest *m)
{
    size_t n = 0;
    for (size_t i = 0; i < m->msgid_by_string.cap; i++) {
        const MapEntry *e = &m->msgid_by_string.e[i];
        n += e->key && ((const StringMsgId *)e->val)->in_header;
    }
    Msg *v = arena_alloc(a, (n + 1) * sizeof *v);
    n = 0;
    for (size_t i = 0; i < m->msgid_by_string.cap; i++) {
        const MapEntry *e = &m->msgid_by_string.e[i];
        const StringMsgId *s = e->val;
        if (e->key && s->in_header)
            v[n++] = (Msg){e->key, s->id};
    }
    /* by id, then by name (entries come in hash order; the names are
     * the map's keys, all different): the ids by radix, then each run of
     * one id (rare) by name */
    sort_stable_u32(v, n, sizeof *v, offsetof(Msg, id));
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && v[j].id == v[i].id;)
            j++;
        sort_stable(v + i, j - i, sizeof *v, by_msg_name);
    }
    return tv_generated(a, n, message_values, v);
}

/* A provider's enable bits: the (level, keyword) pair of each, as plain
 * arrays; the templates see them as two generated lists of integers
 * (a large provider has a pair per event or so, and a value per item
 * would cost 80 bytes where these take 9). */
typedef struct EnablePairs {
    const uint64_t *keyword;
    const uint8_t *level;
} EnablePairs;

static TValue *enable_keyword(const void *ctx, size_t i, Arena *a)
{
    return tv_int(a, (int64_t)((const EnablePairs *)ctx)->keyword[i]);
}

static TValue *enable_level(const void *ctx, size_t i, Arena *a)
{
    return tv_int(a, ((const EnablePairs *)ctx)->level[i]);
}

/* The event's name in its macros: its symbol without the -P prefix
 * (matched ignoring case), unless that would leave nothing. */
static const char *macro_name(const char *symbol, const char *strip)
{
    size_t n = strip ? strlen(strip) : 0;
    if (n && strlen(symbol) > n && strncasecmp(symbol, strip, n) == 0)
        return symbol + n;
    return symbol;
}

/* What one provider's events list needs to make an event's dictionary
 * when a template asks for it (tv_generated): the pieces that need the
 * whole provider (the enable bit) or the whole manifest (the shared
 * function) are worked out once, before rendering. */
typedef struct EventsGen {
    const Provider *pv;
    const Facts *f;
    const char *strip;   /* -P's prefix (a copy: the options may not outlive the values) */
    size_t *bit;         /* per event: its enable bit */
    const char **fname;  /* per event: its function (NULL: notLogged) */
} EventsGen;

/* The dictionary of event i of a provider: symbol, macro_name, not_logged,
 * the descriptor's numbers, bit, and for a logged event function and args. */
static TValue *event_values(const void *ctx, size_t i, Arena *a)
{
    const EventsGen *g = ctx;
    const Event *e = g->pv->events.v[i];
    uint8_t level = e->level ? e->level->value : 0;
    TValue *ed = tv_dict(a);
    const char *sym = facts_event_name(g->f, g->pv, i);
    tv_add(a, ed, "symbol", tv_strref(a, sym));
    tv_add(a, ed, "macro_name", tv_strref(a, macro_name(sym, g->strip)));
    tv_add(a, ed, "not_logged", tv_bool(a, e->not_logged));
    tv_add(a, ed, "id", tv_int(a, e->value));
    tv_add(a, ed, "version", tv_int(a, e->version));
    tv_add(a, ed, "channel", tv_int(a, event_descriptor_channel(e, g->pv)));
    tv_add(a, ed, "level", tv_int(a, level));
    tv_add(a, ed, "opcode", tv_int(a, e->opcode ? e->opcode->value : 0));
    tv_add(a, ed, "task", tv_int(a, e->task ? e->task->value : 0));
    tv_add(a, ed, "keyword", tv_int(a, (int64_t)event_descriptor_keyword(e)));
    tv_add(a, ed, "bit", tv_int(a, (int64_t)g->bit[i]));
    if (g->fname[i]) {
        /* the macro's parameters, named after this event's fields (the
         * function, shared, was made before rendering) */
        Names args = {0};
        event_args(a, e, &args);
        TValue *list = tv_list(a);
        for (size_t k = 0; k < args.n; k++)
            tv_push(a, list, tv_strref(a, args.v[k]));
        vec_free(&args);
        tv_add(a, ed, "function", tv_strref(a, g->fname[i]));
        tv_add(a, ed, "args", list);
    }
    return ed;
}

TValue *header_values(const Manifest *m, const Facts *f, const Options *o, Arena *a)
{
    static const Options defaults = {.mode = HEADER_UM};
    if (!o)
        o = &defaults;
    const char *prefix = o->mode == HEADER_KM ? "McTemplateK0" : "McTemplateU0";
    TValue *root = tv_dict(a);
    TValue *providers = tv_list(a);
    Map seen = {0};
    FnList all = {0};
    Buf name = {0}; /* function_for's */
    for (size_t i = 0; i < m->providers.n; i++) {
        const Provider *pv = m->providers.v[i];
        TValue *pd = tv_dict(a);
        tv_add(a, pd, "ident", tv_strref(a, header_ident(a, pv->name)));
        tv_add(a, pd, "symbol", tv_strref(a, facts_name(f, pv)));
        tv_add(a, pd, "control_guid", tv_bool(a, pv->has_control_guid));
        descriptor_values(a, pv, f, pd);
        int64_t tsize = 0;
        tv_add(a, pd, "traits", traits(a, pv, &tsize));
        tv_add(a, pd, "traits_size", tv_int(a, tsize));
        /* enable bits: one per distinct (level, keyword) pair of the
         * provider's events, in event order; notLogged events count */
        EventsGen *g = arena_alloc(a, sizeof *g);
        *g = (EventsGen){pv, f, o->strip_prefix ? arena_strdup(a, o->strip_prefix) : NULL,
                         arena_alloc(a, (pv->events.n + 1) * sizeof *g->bit),
                         arena_alloc(a, (pv->events.n + 1) * sizeof *g->fname)};
        VEC(uint64_t) kws = {0};
        VEC(uint8_t) lvs = {0};
        size_t mask = 15;
        while (mask < 2 * pv->events.n)
            mask = 2 * mask + 1;
        uint32_t *slots = xcalloc(mask + 1, sizeof *slots);
        PtrMap fn_of = {0}; /* a template's function name, by its Layout (a
                             * provider's own: templates are a provider's) */
        for (size_t j = 0; j < pv->events.n; j++) {
            const Event *e = pv->events.v[j];
            uint8_t level = e->level ? e->level->value : 0;
            uint64_t kw = event_descriptor_keyword(e);
            /* the pair's bit: an open-addressed table of bit + 1 (a
             * large provider has hundreds of pairs) */
            size_t h = (size_t)((kw ^ level) * 0x9E3779B97F4A7C15u >> 20) & mask, bit;
            while (slots[h] && !(kws.v[slots[h] - 1] == kw && lvs.v[slots[h] - 1] == level))
                h = (h + 1) & mask;
            bit = slots[h] ? slots[h] - 1 : kws.n;
            if (bit == kws.n) {
                slots[h] = (uint32_t)bit + 1;
                vec_push(&kws, kw);
                vec_push(&lvs, level);
            }
            g->bit[j] = bit;
            /* notLogged events get no macros, so no function either; a
             * template's function, and its checks, are made for its first
             * event (events share templates) */
            const char *known = !e->not_logged && e->layout ? ptrmap_get(&fn_of, e->layout) : NULL;
            g->fname[j] = known;
            if (!e->not_logged && !known) {
                g->fname[j] = function_for(a, &seen, &all, e->layout, prefix,
                                           o->mode != HEADER_DESCRIPTORS, &name);
                if (e->layout)
                    ptrmap_put(&fn_of, e->layout, (void *)g->fname[j]);
                /* _ForContext(pContext, [Activity,] args): MSVC takes 127 */
                size_t nargs = 0;
                for (size_t k = 0; e->layout && k < e->layout->fields.n; k++) {
                    unsigned pieces, params;
                    check_field_pieces(e->layout->fields.v[k], &pieces, &params);
                    nargs += params;
                }
                guard_here(o->mode == HEADER_DESCRIPTORS ||
                               nargs + 1 + (o->mode == HEADER_KM) <= 127,
                           "over 127 macro parameters (MCG8021)");
            }
        }
        tv_add(a, pd, "enable_count", tv_int(a, (int64_t)kws.n));
        tv_add(a, pd, "enable_words", tv_int(a, (int64_t)(kws.n ? (kws.n + 31) / 32 : 1)));
        EnablePairs *pairs = arena_alloc(a, sizeof *pairs);
        uint64_t *kw = arena_alloc(a, (kws.n + 1) * sizeof *kw);
        uint8_t *lv = arena_alloc(a, kws.n + 1);
        if (kws.n) {
            memcpy(kw, kws.v, kws.n * sizeof *kw);
            memcpy(lv, lvs.v, kws.n);
        }
        *pairs = (EnablePairs){kw, lv};
        tv_add(a, pd, "enable_levels", tv_generated(a, kws.n, enable_level, pairs));
        tv_add(a, pd, "enable_keywords", tv_generated(a, kws.n, enable_keyword, pairs));
        tv_add(a, pd, "events", tv_generated(a, pv->events.n, event_values, g));
        tv_push(a, providers, pd);
        vec_free(&kws);
        vec_free(&lvs);
        free(slots);
        ptrmap_free(&fn_of);
    }
    /* one function per name, sorted by name in byte order, as mc */
    sort_stable(all.v, all.n, sizeof *all.v, by_name);
    FnEntry *sorted = arena_alloc(a, (all.n + 1) * sizeof *sorted);
    if (all.n)
        memcpy(sorted, all.v, all.n * sizeof *sorted);
    TValue *fns = tv_generated(a, all.n, function_values, sorted);
    bool any_traits = false;
    for (size_t i = 0; i < m->providers.n; i++)
        any_traits |= m->providers.v[i]->traits || m->providers.v[i]->has_control_guid;
    tv_add(a, root, "providers", providers);
    tv_add(a, root, "functions", fns);
    tv_add(a, root, "messages", messages(a, m));
    tv_add(a, root, "any_traits", tv_bool(a, any_traits));
    tv_add(a, root, "write_prefix", tv_str(a, o->prefix ? o->prefix : "EventWrite"));
    tv_add(a, root, "activity", tv_bool(a, o->mode == HEADER_KM));
    const char *base = m->file ? os_last_sep(m->file) : NULL;
    tv_add(a, root, "manifest", tv_str(a, base ? base + 1 : m->file ? m->file : ""));
    vec_free(&all);
    map_free(&seen);
    buf_free(&name);
    return root;
}

/* ---- the built-in header, written in C ---- */

/* header.h.j2 and the logging_*.h.j2 it includes, with nothing overriding
 * them, written by C code instead of rendered: the same bytes (the
 * template path is the reference, and tests compare the two over the
 * corpus), at a fraction of the cost, since rendering a large header
 * looks every name up and makes a dictionary per event and per
 * parameter.  The values come from header_values, as the templates'
 * do; the per-event and per-function text is written straight from the
 * generated lists' contexts.  The text collects in a buffer handed to
 * the sink at an item's end once it passes 64 KiB, so each piece ends
 * with a line end.
 *
 * The writer makes the output's line ends itself (CR LF unless
 * --line-endings=lf), so the text needs no pass for them on its way out
 * (one was 89 instructions a line of a 19 MB header).  The text is
 * written as if its line ends were LF, and each append with a line end
 * in it (hw_lf: literals, printf'd text, the runtime's template) turns
 * them into the asked one as the sink's pass did (a CR LF in the text is
 * one line end).  The per-event and per-function lines, most of the
 * text, have the line end in their literals (NL: one literal for each
 * line end) and are put together from identifiers (an event's name is
 * one, or the header's name for it; a -p prefix too), which hold no CR
 * or LF; a provider's names are looked at once, and if one did they go
 * through hw_lf instead.  With a sink that makes line ends (lines == NULL) the
 * text is written with LF and left alone.  hw_lf also notes a byte that
 * is not ASCII: a piece without one goes to the sink that needs no test
 * for the ANSI code page (everything else written is identifiers,
 * numbers and literals). */

typedef struct HeaderW {
    Buf b;
    const TmplSink *out;
    Arena *a;
    bool final; /* b's line ends are the output's (out takes them as they are) */
    bool crlf;  /* and they are CR LF */
    bool high;  /* b may hold a byte that is not ASCII (from hw_lf) */
    const TmplSink *ascii; /* when final, the sink for b when it is ASCII */
    Buf tmp;    /* text on its way into b through hw_lf */
} HeaderW;

static void hw_flush(HeaderW *w, size_t at_least)
{
    if (w->b.len && w->b.len >= at_least) {
        const TmplSink *to = w->final && !w->high ? w->ascii : w->out;
        to->write(to->ctx, w->b.s, w->b.len);
        w->b.len = 0;
        w->high = false;
    }
}

/* s..n, whose line ends are LF (or CR LF), with the asked line ends. */
static void hw_lf(HeaderW *w, const char *s, size_t n)
{
    if (!w->final) {
        buf_add(&w->b, s, n);
        return;
    }
    uint64_t h = 0, x;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&x, s + i, 8);
        h |= x;
    }
    for (; i < n; i++)
        h |= (unsigned char)s[i];
    w->high |= (h & 0x8080808080808080u) != 0;
    const char *end = s + n, *nl;
    while ((nl = s < end ? memchr(s, '\n', (size_t)(end - s)) : NULL)) {
        buf_add(&w->b, s, (size_t)(nl - s));
        if (w->b.len && w->b.s[w->b.len - 1] == '\r')
            w->b.len--; /* a CR LF in the text: one line end */
        Str e = NL(w->crlf, "", "");
        buf_add(&w->b, e.s, e.n);
        s = nl + 1;
    }
    buf_add(&w->b, s, (size_t)(end - s));
}

/* A string from the manifest (any bytes). */
static void hw_str(HeaderW *w, const char *s) { hw_lf(w, s, strlen(s)); }

/* A string made here of ASCII with no line end (an identifier). */
static void hw_ascii(HeaderW *w, const char *s) { buf_add(&w->b, s, strlen(s)); }

/* A literal: inline, so that its length, and whether it has a line end,
 * are known when compiled.  Not for a string from the manifest (hw_str):
 * what is not ASCII must go through hw_lf. */
static inline void hw_s(HeaderW *w, const char *s)
{
    if (strchr(s, '\n'))
        hw_lf(w, s, strlen(s));
    else
        buf_add(&w->b, s, strlen(s));
}

/* A line end. */
static void hw_nl(HeaderW *w) { hw_lf(w, "\n", 1); }

static void hw_printf(HeaderW *w, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void hw_printf(HeaderW *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    w->tmp.len = 0;
    buf_vprintf(&w->tmp, fmt, ap);
    va_end(ap);
    hw_lf(w, w->tmp.s, w->tmp.len);
}

/* Pieces with no line end in them but w->nl's. */
#define hw_put(b, ...) PUT((b), __VA_ARGS__)

/* Whether a name can go into hw_put: it holds no CR or LF. */
static bool plain(Str s)
{
    for (size_t i = 0; i < s.n; i++)
        if (s.s[i] == '\n' || s.s[i] == '\r')
            return false;
    return true;
}

/* v in hex as the hex filter writes it: 0x, at least width digits, at
 * the end of tmp. */
static Str hex_in(char tmp[24], uint64_t v, int width)
{
    char *end = tmp + 24, *p = end;
    do
        *--p = "0123456789ABCDEF"[v & 15];
    while (v >>= 4);
    while (end - p < width)
        *--p = '0';
    *--p = 'x';
    *--p = '0';
    return (Str){p, (size_t)(end - p)};
}
static Str hex_of(char tmp[24], uint64_t v) { return hex_in(tmp, v, 0); }

static void hw_hex(HeaderW *w, uint64_t v, int width)
{
    char tmp[24];
    Str h = hex_in(tmp, v, width);
    buf_add(&w->b, h.s, h.n);
}

/* v in decimal, as a template prints an integer. */
static void hw_dec(HeaderW *w, int64_t v)
{
    char tmp[24], *p = tmp + sizeof tmp;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--p = '-';
    buf_add(&w->b, p, (size_t)(tmp + sizeof tmp - p));
}

static const char *hv_s(const TValue *d, const char *key) { return tv_get(d, key)->s; }
static int64_t hv_i(const TValue *d, const char *key) { return tv_get(d, key)->i; }
static bool hv_none(const TValue *d, const char *key) { return tv_get(d, key)->kind == TV_NONE; }

/* A section of defines, when there are any: its title in a comment, then
 * "#define symbol hex(value)" per define (and a channel's keyword, a
 * task's GUID). */
static void hw_defines(HeaderW *w, const TValue *list, const char *title)
{
    if (!list->n)
        return;
    hw_printf(w, "\n/* %s */\n", title);
    for (size_t i = 0; i < list->n; i++) {
        ArenaMark mk = arena_mark(w->a);
        const TValue *d = tv_item(list, i, w->a);
        /* symbol and value are its first keys (define) */
        const char *sym = d->items[0]->s;
        hw_s(w, "#define ");
        hw_str(w, sym);
        buf_addc(&w->b, ' ');
        hw_hex(w, (uint64_t)d->items[1]->i, 0);
        hw_nl(w);
        const TValue *k = d->n > 2 ? tv_get(d, "keyword") : NULL;
        if (k && k->kind != TV_NONE) { /* a channel's */
            hw_s(w, "#define ");
            hw_str(w, sym);
            hw_s(w, "_KEYWORD ");
            hw_hex(w, (uint64_t)k->i, 0);
            hw_nl(w);
        }
        const TValue *g = d->n > 2 ? tv_get(d, "guid_symbol") : NULL;
        if (g && g->kind != TV_NONE) { /* a task's */
            hw_s(w, "MCGEN_CONST_DATA GUID ");
            hw_str(w, g->s);
            hw_s(w, " = ");
            hw_ascii(w, hv_s(d, "guid_init"));
            hw_s(w, ";\n");
        }
        arena_release(w->a, mk);
        hw_flush(w, 65536);
    }
}

/* header.h.j2's part of one provider, up to its logging code. */
static void hw_provider(HeaderW *w, const TValue *hp)
{
    const char *sym = hv_s(hp, "symbol");
    hw_printf(w, "\n/* ---- provider \"%s\": ", hv_s(hp, "name"));
    hw_dec(w, hv_i(hp, "event_count"));
    hw_printf(w, " events ---- */\n\n/* provider GUID %s */\nMCGEN_CONST_DATA GUID %s = %s;\n",
               hv_s(hp, "guid"), sym, hv_s(hp, "guid_init"));
    if (tv_get(hp, "control_guid")->b)
        hw_printf(w, "/* control GUID %s */\nMCGEN_CONST_DATA GUID %s_ControlGuid = %s;\n",
                   hv_s(hp, "control_guid_text"), sym, hv_s(hp, "control_guid_init"));
    hw_printf(w, "\n/* The provider traits ETW receives with every event. */\n#ifndef %s_Traits\n", sym);
    const TValue *tr = tv_get(hp, "traits");
    if (tr->kind == TV_NONE) {
        hw_printf(w, "#define %s_Traits NULL\n", sym);
    } else {
        hw_printf(w, "#define %s_Traits ( \\\n", sym);
        for (size_t i = 0; i < tr->n; i++)
            hw_printf(w, "    %s /* %s */ \\\n", hv_s(tr->items[i], "literal"),
                       hv_s(tr->items[i], "comment"));
        hw_s(w, "    )\n");
    }
    hw_s(w, "#endif\n");
    hw_defines(w, tv_get(hp, "channels"),
               "channels, and the keyword bit each declared channel gives its events");
    hw_defines(w, tv_get(hp, "levels"), "levels");
    hw_defines(w, tv_get(hp, "opcodes"), "opcodes");
    hw_defines(w, tv_get(hp, "tasks"), "tasks");
    hw_defines(w, tv_get(hp, "keywords"), "keywords");
    hw_s(w, "\n/* event descriptors: {Id, Version, Channel, Level, Opcode, Task, Keyword} */\n");
    const EventsGen *g = tv_get(hp, "events")->macro;
    for (size_t i = 0; i < g->pv->events.n; i++) {
        const Event *e = g->pv->events.v[i];
        if (e->not_logged)
            continue;
        Str es = str_of(facts_event_name(g->f, g->pv, i)); /* an identifier: no line end */
        char t0[24], t1[24], t2[24], t3[24], t4[24], t5[24], t6[24];
        Str value = hex_of(t0, (uint64_t)e->value);
        hw_put(&w->b, LIT("MCGEN_CONST_DATA EVENT_DESCRIPTOR "), es, LIT(" = {"), value, LIT(", "),
               hex_of(t1, (uint64_t)e->version), LIT(", "),
               hex_of(t2, (uint64_t)event_descriptor_channel(e, g->pv)), LIT(", "),
               hex_of(t3, e->level ? e->level->value : 0), LIT(", "),
               hex_of(t4, e->opcode ? e->opcode->value : 0), LIT(", "),
               hex_of(t5, e->task ? e->task->value : 0), LIT(", "),
               hex_of(t6, event_descriptor_keyword(e)), NL(w->crlf, "};", "#define "), es,
               LIT("_value "), value, NL(w->crlf, "", ""));
        hw_flush(w, 65536);
    }
    const TValue *maps = tv_get(hp, "maps");
    if (maps->n)
        hw_s(w, "\n/* value and bit maps */\n");
    for (size_t i = 0; i < maps->n; i++) {
        const char *ms = hv_s(maps->items[i], "symbol");
        const TValue *items = tv_get(maps->items[i], "items");
        hw_printf(w, "#ifndef _%s_def\n#define _%s_def\ntypedef enum _%s {\n", ms, ms, ms);
        for (size_t j = 0; j < items->n; j++) {
            hw_printf(w, "    %s = ", hv_s(items->items[j], "symbol"));
            hw_dec(w, hv_i(items->items[j], "value"));
            hw_s(w, j + 1 < items->n ? ",\n" : "\n");
        }
        hw_printf(w, "} %s;\n#endif\n", ms);
        hw_flush(w, 65536);
    }
}


/* The holes of an event's macros: its symbol, its name in the macros,
 * its enable bit, its function, and its macro's parameter names (with
 * ", " between them; a1: with ", " before each). */
enum { H_ES, H_MN, H_BIT, H_FN, H_ARGS, H_A1, H_COUNT };

/* logging_provider.h.j2: one provider's enable bits, registration and
 * event macros. */
static void hw_logging(HeaderW *w, const TValue *hp, const char *write_prefix, bool activity)
{
    const char *ps = hv_s(hp, "symbol"), *ident = hv_s(hp, "ident");
    bool cg = tv_get(hp, "control_guid")->b;
    const char *handle = cg ? cat(w->a, ps, "_Handle") : cat(w->a, ident, "Handle");
    const char *reg = cg ? cat(w->a, "_", ps) : ident;
    const char *reg_guid = cg ? cat(w->a, ps, "_ControlGuid") : ps;
    int64_t count = hv_i(hp, "enable_count"), words = hv_i(hp, "enable_words");
    hw_s(w, "#if !defined(MCGEN_DISABLE_PROVIDER_CODE_GENERATION)\n\n"
            "/* Enable bits: one per distinct (level, keyword) pair of the events. */\n");
    if (count > 0) {
        hw_printf(w, "__declspec(selectany) DECLSPEC_CACHEALIGN ULONG %sEnableBits[%lld] = {0};\n",
                   ident, (long long)words);
        hw_printf(w, "MCGEN_CONST_DATA ULONGLONG %sKeywords[%lld] = {", ident, (long long)count);
        const EnablePairs *pairs = tv_get(hp, "enable_keywords")->macro;
        for (int64_t i = 0; i < count; i++) {
            hw_hex(w, pairs->keyword[i], 0);
            if (i + 1 < count)
                hw_s(w, ", ");
        }
        hw_printf(w, "};\nMCGEN_CONST_DATA unsigned char %sLevels[%lld] = {", ident, (long long)count);
        for (int64_t i = 0; i < count; i++) {
            hw_dec(w, pairs->level[i]);
            if (i + 1 < count)
                hw_s(w, ", ");
        }
        hw_printf(w,
                   "};\n\n/* The provider's trace context; its RegistrationHandle is the REGHANDLE. */\n"
                   "__declspec(selectany) MCGEN_TRACE_CONTEXT %s_Context = {0, (ULONG_PTR)%s_Traits, "
                   "0, 0, 0, 0, 0, 0, %lld, %sEnableBits, %sKeywords, %sLevels};\n",
                   ps, ps, (long long)count, ident, ident, ident);
    } else {
        hw_printf(w,
                   "\n/* The provider's trace context; its RegistrationHandle is the REGHANDLE. */\n"
                   "__declspec(selectany) MCGEN_TRACE_CONTEXT %s_Context = {0, (ULONG_PTR)%s_Traits, "
                   "0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL};\n",
                   ps, ps);
    }
    hw_printf(w, "#define %s (%s_Context.RegistrationHandle)\n\n", handle, ps);
    if (activity)
        hw_printf(w, "/* 1: the EventWrite macros take an activity id (-km), first. */\n"
                          "#define %s_EventWriteActivity 1\n", ps);
    else
        hw_printf(w, "/* 0: the EventWrite macros take no activity id. */\n"
                          "#define %s_EventWriteActivity 0\n", ps);
    hw_printf(w,
               "\n/* Registration: call EventRegister%s() when the module starts and\n"
               " * EventUnregister%s() before it unloads.  A failed registration\n"
               " * leaves the write macros harmless no-ops. */\n", reg, reg);
    if (cg || !hv_none(hp, "traits"))
        hw_printf(w,
                   "#ifndef EventRegister%s\n"
                   "#define EventRegister%s() McGenEventRegisterContext(&%s, McGenControlCallbackV2, &%s_Context, &%s_Context)\n"
                   "#endif\n"
                   "#ifndef EventRegisterByGuid%s\n"
                   "#define EventRegisterByGuid%s(Guid) McGenEventRegisterContext(&(Guid), McGenControlCallbackV2, &%s_Context, &%s_Context)\n"
                   "#endif\n",
                   reg, reg, reg_guid, ps, ps, reg, reg, ps, ps);
    else
        hw_printf(w,
                   "#ifndef EventRegister%s\n"
                   "#define EventRegister%s() McGenEventRegister(&%s, McGenControlCallbackV2, &%s_Context, &%s)\n"
                   "#endif\n"
                   "#ifndef EventRegisterByGuid%s\n"
                   "#define EventRegisterByGuid%s(Guid) McGenEventRegister(&(Guid), McGenControlCallbackV2, &%s_Context, &%s)\n"
                   "#endif\n",
                   reg, reg, ps, ps, handle, reg, reg, ps, handle);
    hw_printf(w,
               "#ifndef EventUnregister%s\n"
               "#define EventUnregister%s() McGenEventUnregister(&%s)\n"
               "#endif\n"
               "\n"
               "/* Caller-allocated contexts (define MCGEN_ENABLE_FORCONTEXT_CODE_GENERATION):\n"
               " * several registrations of one provider, e.g. one per container. */\n"
               "#ifdef MCGEN_ENABLE_FORCONTEXT_CODE_GENERATION\n"
               "typedef struct tagMcGenContext_%s {\n"
               "    MCGEN_TRACE_CONTEXT Context;\n"
               "    ULONG EnableBits[%lld];\n"
               "} McGenContext_%s;\n"
               "\n",
               reg, reg, handle, ident, (long long)words, ident);
    hw_printf(w,
               "#define EventRegister%s_ForContext(pContext) _mcgen_RegisterForContext_%s(&%s, pContext)\n"
               "#define EventRegisterByGuid%s_ForContext(Guid, pContext) _mcgen_RegisterForContext_%s(&(Guid), pContext)\n"
               "#define EventUnregister%s_ForContext(pContext) McGenEventUnregister(&(pContext)->Context.RegistrationHandle)\n"
               "#define %s_ForContext(pContext) ((pContext)->Context.RegistrationHandle)\n"
               "\n"
               "static __inline ULONG __stdcall\n"
               "_mcgen_RegisterForContext_%s(_In_ LPCGUID pProviderId, _Out_ McGenContext_%s* pContext)\n"
               "{\n"
               "    RtlZeroMemory(pContext, sizeof(*pContext));\n"
               "    pContext->Context.Logger = (ULONG_PTR)%s_Traits;\n",
               reg, ident, reg_guid, reg, ident, reg, handle, ident, ident, ps);
    if (count > 0)
        hw_printf(w,
                   "    pContext->Context.EnableBitsCount = %lld;\n"
                   "    pContext->Context.EnableBitMask = pContext->EnableBits;\n"
                   "    pContext->Context.EnableKeyWords = %sKeywords;\n"
                   "    pContext->Context.EnableLevel = %sLevels;\n",
                   (long long)count, ident, ident);
    hw_printf(w,
               "    return McGenEventRegister(pProviderId, McGenControlCallbackV2, &pContext->Context,\n"
               "                              &pContext->Context.RegistrationHandle);\n"
               "}\n"
               "\n"
               "/* The argument must be a McGenContext_%s*: a compile error otherwise. */\n"
               "static __inline McGenContext_%s*\n"
               "_mcgen_CheckContextType_%s(_In_ McGenContext_%s* pContext)\n"
               "{\n"
               "    return pContext;\n"
               "}\n"
               "#endif /* MCGEN_ENABLE_FORCONTEXT_CODE_GENERATION */\n",
               ident, ident, ident, ident);
    hw_flush(w, 65536);
    const EventsGen *g = tv_get(hp, "events")->macro;
    Str act = activity ? LIT(", Activity") : LIT(""), nullact = activity ? LIT(", NULL") : LIT("");
    Str sps = str_of(ps), sident = str_of(ident), wp = str_of(write_prefix);
    bool names_plain = plain(sps) && plain(sident) && plain(wp);
    /* the names are identifiers (and -p's prefix was looked at): no line
     * end in them, unless the prefix has one; then the macros go through
     * hw_lf, with LF line ends */
    bool crlf = names_plain && w->crlf;
    Str es = HOLE(H_ES), mn = HOLE(H_MN), bit = HOLE(H_BIT), fn = HOLE(H_FN), args = HOLE(H_ARGS),
        a1 = HOLE(H_A1);
    Pattern pat = {0};
    pattern_add(&pat, NL(crlf, "", "/* "), es, NL(crlf, " */", "#define EventEnabled"), mn,
                LIT("() MCGEN_EVENT_BIT_SET("), sident, LIT("EnableBits, "), bit, NL(crlf, ")", ""));
    pattern_add(&pat, LIT("#define EventEnabled"), mn,
                LIT("_ForContext(pContext) MCGEN_EVENT_BIT_SET(_mcgen_CheckContextType_"), sident,
                LIT("(pContext)->EnableBits, "), bit, NL(crlf, ")", ""));
    pattern_add(&pat, LIT("#define "), wp, mn, LIT("("), activity ? LIT("Activity") : args,
                activity ? a1 : LIT(""), NL(crlf, ") \\", "        (MCGEN_EVENT_ENABLED("), mn,
                NL(crlf, ") \\", "        ? "), fn, LIT("(&"), sps, LIT("_Context, &"), es, act, a1,
                NL(crlf, ") : 0)", ""));
    pattern_add(&pat, LIT("#define "), wp, mn, LIT("_AssumeEnabled("), args, NL(crlf, ") \\", "        "), fn,
                LIT("(&"), sps, LIT("_Context, &"), es, nullact, a1, NL(crlf, ")", ""));
    pattern_add(&pat, LIT("#define "), wp, mn, LIT("_ForContext(pContext"), act, a1,
                NL(crlf, ") \\", "        (MCGEN_EVENT_ENABLED_FORCONTEXT(pContext, "), mn,
                NL(crlf, ") \\", "        ? "), fn, LIT("(&(pContext)->Context, &"), es, act, a1,
                NL(crlf, ") : 0)", ""));
    pattern_add(&pat, LIT("#define "), wp, mn, LIT("_ForContextAssumeEnabled(pContext"), a1,
                NL(crlf, ") \\", "        "), fn, LIT("(&_mcgen_CheckContextType_"), sident,
                LIT("(pContext)->Context, &"), es, nullact, a1, NL(crlf, ")", ""));
    pattern_done(&pat);
    Names names = {0};
    Buf a1b = {0};
    /* the macro's parameter names come from the template's fields alone:
     * worked out once per template (events share templates), kept in
     * `once` beside the per-event arena marks */
    PtrMap by_layout = {0};
    Arena once = {0};
    for (size_t i = 0; i < g->pv->events.n; i++) {
        const Event *e = g->pv->events.v[i];
        if (e->not_logged)
            continue;
        ArenaMark mk = arena_mark(w->a);
        Str *v = pat.fill;
        v[H_A1] = LIT(""); /* ", " before each name */
        const Str *known = e->layout ? ptrmap_get(&by_layout, e->layout) : NULL;
        if (known) {
            v[H_A1] = *known;
        } else if (e->layout) {
            event_args(w->a, e, &names);
            a1b.len = 0;
            for (size_t k = 0; k < names.n; k++) {
                buf_add(&a1b, ", ", 2);
                buf_adds(&a1b, names.v[k]);
            }
            Str *keep = arena_alloc(&once, sizeof *keep);
            *keep = (Str){arena_strndup(&once, a1b.len ? a1b.s : "", a1b.len), a1b.len};
            ptrmap_put(&by_layout, e->layout, keep);
            v[H_A1] = *keep;
        }
        char tmp[16];
        v[H_BIT] = str_of(digits(tmp + sizeof tmp, (unsigned)g->bit[i]));
        v[H_ES] = str_of(facts_event_name(g->f, g->pv, i));
        v[H_MN] = str_of(macro_name(v[H_ES].s, g->strip));
        v[H_FN] = str_of(g->fname[i]);
        v[H_ARGS] = v[H_A1].n ? (Str){v[H_A1].s + 2, v[H_A1].n - 2} : LIT("");
        if (names_plain) {
            pattern_put(&w->b, &pat);
        } else {
            w->tmp.len = 0;
            pattern_put(&w->tmp, &pat);
            hw_lf(w, w->tmp.s, w->tmp.len);
        }
        arena_release(w->a, mk);
        hw_flush(w, 65536);
    }
    pattern_free(&pat);
    vec_free(&names);
    buf_free(&a1b);
    ptrmap_free(&by_layout);
    arena_free(&once);
    hw_s(w, "\n#endif /* MCGEN_DISABLE_PROVIDER_CODE_GENERATION */\n");
}

/* logging_functions.h.j2: the typed template functions, by name. */
static void hw_functions(HeaderW *w, const TValue *fns, bool activity)
{
    const FnEntry *all = fns->macro;
    Buf ptext = {0}, dtext = {0}, ltext = {0};
    hw_s(w, "#if !defined(MCGEN_DISABLE_PROVIDER_CODE_GENERATION)\n");
    for (size_t i = 0; i < fns->n; i++) {
        const FnEntry *e = all + i;
        const Layout *l = e->layout;
        ArenaMark mk = arena_mark(w->a);
        ptext.len = dtext.len = ltext.len = 0;
        Fn fn = {w->a, NULL, NULL, NULL, &ptext, &dtext, &ltext, NULL, 1, w->crlf};
        for (size_t k = 0; l && k < l->fields.n; k++) {
            const Field *f = l->fields.v[k];
            add_field(&fn, f, (uint32_t)k, NULL); /* no macro names: fn.args NULL */
        }
        bool crlf = w->crlf;
        if (l) { /* a tid is any string: hw_lf */
            hw_s(w, "\n/* The payload of template ");
            hw_str(w, l->tid);
            hw_s(w, " (and of any other with the same field types). */\n");
        } else {
            hw_put(&w->b, NL(crlf, "", "/* Events without payload. */"), NL(crlf, "", ""));
        }
        /* the function's name and text are made of identifiers */
        char tmp[16];
        Str name = str_of(e->name), count = str_of(digits(tmp + sizeof tmp, (unsigned)(fn.next - 1)));
        hw_put(&w->b, LIT("#ifndef "), name, NL(crlf, "_def", "#define "), name,
               NL(crlf, "_def", "static ETW_INLINE ULONG"), NL(crlf, "", ""), name,
               LIT("(_In_ PMCGEN_TRACE_CONTEXT Context, _In_ PCEVENT_DESCRIPTOR Descriptor"),
               activity ? LIT(", _In_opt_ const GUID* Activity") : LIT(""), (Str){ptext.len ? ptext.s : "", ptext.len},
               NL(crlf, ")", "{"), NL(crlf, "", "    EVENT_DATA_DESCRIPTOR EventData["), count,
               NL(crlf, " + 1];", ""), (Str){ltext.len ? ltext.s : "", ltext.len}, (Str){dtext.len ? dtext.s : "", dtext.len},
               activity ? LIT("    return McGenEventWrite(Context, Descriptor, Activity, ")
                        : LIT("    return McGenEventWrite(Context, Descriptor, NULL, "),
               count, NL(crlf, " + 1, EventData);", "}"), NL(crlf, "", "#endif"), NL(crlf, "", ""));
        arena_release(w->a, mk);
        hw_flush(w, 65536);
    }
    buf_free(&ptext);
    buf_free(&dtext);
    buf_free(&ltext);
    hw_s(w, "\n#endif /* MCGEN_DISABLE_PROVIDER_CODE_GENERATION */\n");
}

/* header.h.j2 written from its values `vars`; false after a diagnostic
 * (the logging runtime part is rendered from its template). */
static bool header_write(const TValue *vars, TemplateFinder *tf, const TmplSink *out,
                         const TmplSink *lines, bool lf, Arena *a)
{
    HeaderW w = {{0}, lines ? lines : out, a, lines != NULL, lines && !lf, false,
                 lines ? lines + 1 : NULL, {0}};
    bool logging = tv_get(vars, "logging")->b, activity = tv_get(vars, "activity")->b;
    hw_printf(&w,
               "/*\n"
               " * %s: header generated by mcgen from the instrumentation manifest.\n"
               " * Do not edit: edit the manifest and run mcgen again.\n"
               " */\n"
               "#pragma once\n"
               "\n"
               "#if !defined(_ETW_KM_)\n"
               "#include <windows.h>\n"
               "#endif\n"
               "#include <wmistr.h>\n"
               "#include <evntrace.h>\n"
               "#include <evntprov.h>\n"
               "\n"
               "/* Constant data is defined in every unit that includes the header and\n"
               " * merged into one by the linker (selectany); in C++ it needs extern \"C\"\n"
               " * for external linkage. */\n"
               "#ifndef MCGEN_CONST_DATA\n"
               "#  ifdef __cplusplus\n"
               "#    define MCGEN_CONST_DATA extern \"C\" __declspec(selectany) const\n"
               "#  else\n"
               "#    define MCGEN_CONST_DATA __declspec(selectany) const\n"
               "#  endif\n"
               "#endif\n"
               "\n"
               "#ifdef __cplusplus\n"
               "extern \"C\" {\n"
               "#endif\n",
               hv_s(vars, "manifest"));
    if (logging) {
        size_t len = 0;
        const char *src = finder_load(tf, "logging_runtime.h.j2", &len);
        Buf err = {0};
        Tmpl *t = src ? tmpl_parse("logging_runtime.h.j2", src, len, &err) : NULL;
        w.tmp.len = 0;
        TmplSink sink = tmpl_buf_sink(&w.tmp);
        hw_nl(&w);
        bool ok = t && tmpl_render_to(t, vars, &tf->loader, finder_limits(tf), &sink, &err);
        hw_lf(&w, w.tmp.s, w.tmp.len);
        tmpl_free(t);
        if (!ok) {
            if (err.len)
                diag_formatted(err.s);
            else
                diag_plain(DIAG_ERROR, "no template logging_runtime.h.j2");
            buf_free(&err);
            buf_free(&w.b);
            buf_free(&w.tmp);
            return false;
        }
        buf_free(&err);
    }
    const TValue *providers = tv_get(vars, "providers");
    const char *write_prefix = hv_s(vars, "write_prefix");
    for (size_t i = 0; i < providers->n; i++) {
        hw_provider(&w, providers->items[i]);
        if (logging) {
            hw_nl(&w);
            hw_logging(&w, providers->items[i], write_prefix, activity);
        }
        hw_flush(&w, 65536);
    }
    if (logging) {
        hw_nl(&w);
        hw_functions(&w, tv_get(vars, "functions"), activity);
    }
    hw_s(&w, "\n#ifdef __cplusplus\n}\n#endif\n");
    const TValue *msgs = tv_get(vars, "messages");
    if (msgs->n)
        hw_s(&w, "\n/* message ids */\n");
    const Msg *mv = msgs->macro;
    for (size_t i = 0; i < msgs->n; i++) {
        ArenaMark mk = arena_mark(a);
        hw_s(&w, "#define MSG_");
        hw_ascii(&w, header_ident_of(a, mv[i].name));
        buf_addc(&w.b, ' ');
        hw_hex(&w, mv[i].id, 8);
        hw_s(&w, "L\n");
        arena_release(a, mk);
        hw_flush(&w, 65536);
    }
    hw_flush(&w, 1);
    buf_free(&w.b);
    buf_free(&w.tmp);
    return true;
}

/* Whether the header's templates are the built-in ones: no --templates
 * directory could hold another. */
static bool header_builtin(const TemplateFinder *tf) { return !tf->override_dir && !tf->first_dir; }

/* ---- rendering ---- */

bool header_build(const Manifest *m, const Facts *f, const Options *o, TemplateFinder *tf,
                  const TmplSink *out, const TmplSink *lines)
{
    Arena a = {0};
    Buf err = {0};
    TValue *vars = header_values(m, f, o, &a);
    tv_add(&a, vars, "logging", tv_bool(&a, o->mode != HEADER_DESCRIPTORS));
    tv_add(&a, vars, "callout", tv_bool(&a, o->callout));
    if (header_builtin(tf)) {
        bool ok = header_write(vars, tf, out, lines, o->lf, &a);
        arena_free(&a);
        return ok;
    }
    size_t len = 0;
    const char *src = finder_load(tf, "header.h.j2", &len);
    Tmpl *t = src ? tmpl_parse("header.h.j2", src, len, &err) : NULL;
    bool ok = t && tmpl_render_to(t, vars, &tf->loader, finder_limits(tf), out, &err);
    if (!ok && err.len) /* "template:line:col: error: ..." already */
        diag_formatted(err.s);
    else if (!ok)
        diag_plain(DIAG_ERROR, "no template header.h.j2");
    tmpl_free(t);
    buf_free(&err);
    arena_free(&a);
    return ok;
}
