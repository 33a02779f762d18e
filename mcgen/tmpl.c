/*
 * tmpl.c - the template engine (see tmpl.h for the language).
 *
 * Parsing runs in two steps.  The scanner cuts the source into text and
 * tags ({{ }}, {% %}, {# #}) and applies the white-space rules: "-" inside
 * a tag trims the neighbouring text; a block tag or comment alone on its
 * line loses the indentation before it and the newline after it.  The
 * parser then reads each tag's inside with a small tokenizer and builds a
 * tree (Node for statements, Expr for expressions) by recursive descent,
 * giving each name one string for all its uses in the template, so a
 * lookup compares pointers before it compares text.  Filter and test names
 * are looked up in their tables (`filters`, `tests`) then, once; a method
 * (s.upper()) by the kind of value it is called on, when it runs.
 * Rendering walks the tree with a chain of variable scopes (each with a
 * 64-bit mask of its names' hashes, so a lookup skips the scopes that
 * cannot hold the name); values made while rendering live in an arena
 * freed when rendering ends.
 *
 * Nothing a template says can exhaust the stack, the memory or the time:
 * the parser counts how deep it recurses and how tall each expression's
 * tree grows (a chain of 100,000 '~' parses in a loop but would evaluate,
 * dump and print recursively), both at most TMPL_MAX_NESTING; the renderer
 * counts its own recursion, which macro calls, includes, imports and
 * super() stack up (64 deep each, and an extends chain 64 long); the lists
 * and dictionaries a template writes nest at most TMPL_MAX_NESTING deep
 * (printing, comparing and tojson recurse on them); integer arithmetic is
 * checked; each loop iteration and macro call gives back the arena memory
 * it used (nothing made inside one outlives it: a {% set %} stays in the
 * iteration's scope, a macro returns its text); the output, every string
 * and list made (a list's items at ITEM_BYTES each), and the loop
 * iterations, macro calls and every item a filter, a comparison or a slice
 * walks are counted against TmplLimits.  range() makes its items as they
 * are walked, so its length costs nothing until then; string searches are
 * linear (Finder).
 */
#include "tmpl.h"
#include "jsonw.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- values ---- */

static TValue *tv_new(Arena *a, TValueKind k)
{
    TValue *v = arena_alloc(a, sizeof *v);
    v->kind = k;
    return v;
}

TValue *tv_none(Arena *a) { return tv_new(a, TV_NONE); }

TValue *tv_bool(Arena *a, bool b)
{
    TValue *v = tv_new(a, TV_BOOL);
    v->b = b;
    return v;
}

TValue *tv_int(Arena *a, int64_t i)
{
    TValue *v = tv_new(a, TV_INT);
    v->i = i;
    return v;
}

static TValue *tv_strn(Arena *a, const char *s, size_t n)
{
    TValue *v = tv_new(a, TV_STR);
    v->s = arena_strndup(a, s, n);
    v->n = n;
    return v;
}

TValue *tv_str(Arena *a, const char *s) { return tv_strn(a, s, strlen(s)); }

TValue *tv_strref(Arena *a, const char *s)
{
    TValue *v = tv_new(a, TV_STR);
    v->s = s;
    v->n = strlen(s);
    return v;
}
TValue *tv_list(Arena *a) { return tv_new(a, TV_LIST); }
TValue *tv_dict(Arena *a) { return tv_new(a, TV_DICT); }

static void tv_grow(Arena *a, TValue *c)
{
    if (c->n < c->cap)
        return;
    size_t cap = c->cap ? 2 * c->cap : 8;
    TValue **items = arena_alloc(a, cap * sizeof *items);
    if (c->n)
        memcpy(items, c->items, c->n * sizeof *items);
    c->items = items;
    if (c->kind == TV_DICT) {
        const char **keys = arena_alloc(a, cap * sizeof *keys);
        if (c->n)
            memcpy(keys, c->keys, c->n * sizeof *keys);
        c->keys = keys;
    }
    c->cap = cap;
}

void tv_add(Arena *a, TValue *dict, const char *key, TValue *v)
{
    tv_grow(a, dict);
    dict->keys[dict->n] = key;
    dict->items[dict->n++] = v;
}

void tv_push(Arena *a, TValue *list, TValue *v)
{
    tv_grow(a, list);
    list->items[list->n++] = v;
}

TValue *tv_generated(Arena *a, size_t n, TvGen gen, const void *ctx)
{
    TValue *v = tv_new(a, TV_LIST);
    v->n = n;
    v->gen = gen;
    v->macro = ctx;
    return v;
}

TValue *tv_item(const TValue *list, size_t i, Arena *a)
{
    return list->gen ? list->gen(list->macro, i, a) : list->items[i];
}

/* Whether dictionary key k is key: the same pointer first (the parser
 * gives every spelling of a name one string, so a name a template sets
 * and the expressions that read it share it), then the first character,
 * then strcmp. */
#define KEY_IS(k, key) ((k) == (key) || ((k)[0] == (key)[0] && strcmp((k), (key)) == 0))

/* tv_get that tries position *hint first and remembers where the key was:
 * dictionaries made by the same code have their keys in the same order, so
 * an attribute expression in a loop finds its key at once. */
static TValue *tv_get_hint(const TValue *dict, const char *key, size_t *hint)
{
    size_t h = *hint;
    if (h < dict->n && KEY_IS(dict->keys[h], key))
        return dict->items[h];
    for (size_t i = dict->n; i-- > 0;)
        if (KEY_IS(dict->keys[i], key)) {
            *hint = i;
            return dict->items[i];
        }
    return NULL;
}

TValue *tv_get(const TValue *dict, const char *key)
{
    if (!dict || dict->kind != TV_DICT)
        return NULL;
    for (size_t i = dict->n; i-- > 0;)
        if (KEY_IS(dict->keys[i], key))
            return dict->items[i];
    return NULL;
}

void tv_set(Arena *a, TValue *dict, const char *key, TValue *v)
{
    for (size_t i = 0; i < dict->n; i++)
        if (KEY_IS(dict->keys[i], key)) {
            dict->items[i] = v;
            return;
        }
    tv_grow(a, dict);
    dict->keys[dict->n] = arena_strdup(a, key);
    dict->items[dict->n++] = v;
}

/* ---- the tree ---- */

typedef enum {
    E_LIT, E_NAME, E_ATTR, E_INDEX, E_SLICE, E_CALL, E_FILTER, E_TEST, E_BIN, E_NOT, E_NEG,
    E_COND, E_LIST, E_DICT
} ExprKind;

typedef struct Expr Expr;
typedef struct Rn Rn;

/* A built-in filter, test or method: a row of the tables `filters`,
 * `tests` and `methods` (under "rendering").  Its arguments are slots: the
 * first max_args may be given in order, any by the name in `params` (a
 * comma-separated list, one name a slot); the first min_args must be. */
typedef struct Filter {
    const char *name;
    int min_args, max_args;
    const char *params; /* NULL: positional only */
    /* filters: its operand may be undefined (default); tests: the operand
     * is evaluated so that an undefined name or key is not an error */
    bool undefined_ok;
    TValue *(*apply)(Rn *r, const Expr *e, TValue *v, TValue *const *args);
    /* the slot that names a filter (map) or a test (select...), -1 if none:
     * resolved when parsed, like the filter itself */
    int sub_arg;
    bool sub_is_test;
    TValueKind kind; /* methods: the kind of value that has it */
} Filter;

/* A filter's or call's argument slots (format takes the most). */
enum { MAX_ARGS = 8 };

struct Expr {
    ExprKind kind;
    int op;          /* E_BIN: token kind of the operator */
    bool negate;     /* E_TEST: "is not" */
    const char *name; /* E_NAME, E_ATTR, E_FILTER, E_TEST; E_CALL of a.name: name */
    const Filter *filter; /* E_FILTER, E_TEST: resolved when parsed */
    const Filter *sub;    /* the filter or test an argument names: map('upper') */
    TValue *lit;
    Expr *a, *b, *c;  /* E_COND: a if b else c (c may be NULL) */
    /* E_CALL, E_FILTER, E_TEST: the arguments (E_FILTER, E_TEST: by slot,
     * NULL for one not given); E_SLICE: start, stop, step (each may be
     * NULL); E_LIST: the items; E_DICT: key, value, key, value... */
    VEC(Expr *) args;
    VEC(const char *) kw; /* E_CALL: each argument's keyword, or NULL */
    size_t hint;      /* E_ATTR: where the key was found last time */
    uint64_t bit;     /* E_NAME: name_bit(name) */
    int height;       /* of its tree: 1 for a leaf */
    uint32_t line, col;
};

typedef enum {
    N_TEXT, N_OUTPUT, N_IF, N_FOR, N_SET, N_SET_BLOCK, N_MACRO, N_INCLUDE, N_IMPORT, N_WITH,
    N_FILTER, N_BLOCK, N_EXTENDS
} NodeKind;

typedef struct Node Node;
typedef VEC(Node *) NodeList;
struct Node {
    NodeKind kind;
    /* N_TEXT (len n), N_SET/N_SET_BLOCK/N_MACRO/N_BLOCK name, N_INCLUDE,
     * N_IMPORT, N_EXTENDS template name */
    const char *text;
    size_t n;
    Expr *expr;              /* N_OUTPUT, N_FOR iterable, N_SET value, N_FILTER filters */
    /* N_IF: one per branch with a condition; N_MACRO: each parameter's
     * default (NULL: none); N_WITH: each name's value */
    VEC(Expr *) conds;
    VEC(NodeList) branches;  /* N_IF: conds.n bodies, plus else */
    NodeList body, orelse;   /* N_FOR, N_MACRO, N_SET_BLOCK, N_WITH, N_FILTER, N_BLOCK (body) */
    /* N_FOR: the loop's names; N_MACRO: parameters; N_WITH: names;
     * N_IMPORT: the name of `as`, or pairs (name, as) of `from ... import` */
    VEC(const char *) params;
    bool from; /* N_IMPORT: {% from "x" import a %} */
    const Tmpl *owner; /* the template it is in (errors name it) */
    uint32_t line, col;
};

struct Tmpl {
    Arena arena;
    const char *name;
    const char *src; /* the source, for an error's line and caret */
    size_t len;
    NodeList top;
    const Node *extends; /* its {% extends %}, or NULL */
    NodeList blocks;     /* its {% block %}s, nested ones too */
    /* every node and expression made, pushed or not, so that a parse that
     * fails half way frees their lists too */
    NodeList nodes;
    VEC(Expr *) exprs;
};

/* A name's bit in a scope's mask (Scope.mask): one of 64, by its hash. */
static uint64_t name_bit(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return (uint64_t)1 << (h >> 26);
}

/* ---- errors ---- */

/* Appends source line `line` of src and a caret under column `col`
 * (counted in characters), as the manifest's diagnostics show them
 * (diag.c).  A line too long to read (a hostile template's 100,000 tags
 * on one line) shows only the 120 characters about the caret. */
static void caret(Buf *b, const char *src, size_t len, uint32_t line, uint32_t col)
{
    const char *s = src, *end = src + len;
    for (uint32_t l = 1; l < line && s < end; s++)
        if (*s == '\n')
            l++;
    const char *e = s;
    while (e < end && *e != '\n' && *e != '\r')
        e++;
    if (e == s || memchr(s, '\0', (size_t)(e - s)))
        return;
    uint32_t from = col > 80 ? col - 60 : 1, c = 1;
    const char *p = s;
    while (p < e && c < from) /* to the first character shown */
        if (((unsigned char)*++p & 0xC0) != 0x80)
            c++;
    buf_adds(b, from > 1 ? "\n  ..." : "\n  ");
    const char *q = p;
    for (uint32_t k = 0; q < e && k < 120;)
        if (((unsigned char)*++q & 0xC0) != 0x80)
            k++;
    buf_add(b, p, (size_t)(q - p));
    buf_adds(b, q < e ? "...\n  " : "\n  ");
    if (from > 1)
        buf_adds(b, "   ");
    for (; c < col && p < q; c++) {
        buf_addc(b, *p == '\t' ? '\t' : ' ');
        while (++p < q && ((unsigned char)*p & 0xC0) == 0x80)
            ;
    }
    buf_addc(b, '^');
}

/* The Damerau-Levenshtein distance of a and b (adjacent letters swapped
 * count one), for "did you mean": names are short, and a longer one is
 * never near. */
static size_t distance(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    if (na > 40 || nb > 40)
        return SIZE_MAX;
    size_t d[41][41];
    for (size_t i = 0; i <= na; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= nb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= na; i++)
        for (size_t j = 1; j <= nb; j++) {
            size_t cost = a[i - 1] != b[j - 1], v = d[i - 1][j - 1] + cost;
            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[na][nb];
}

/* The candidate nearest a misspelt name, offered while the walk goes. */
typedef struct Near {
    const char *name, *best;
    size_t d;
} Near;

static void near_try(Near *n, const char *cand)
{
    /* one edit in a short name, two from six letters up */
    size_t d = distance(n->name, cand), most = strlen(n->name) / 3;
    if (d && d <= (most > 2 ? 2 : most ? most : 1) && (!n->best || d < n->d))
        n->best = cand, n->d = d;
}

/* " (did you mean 'x'?)" when one is near */
static void near_say(Buf *b, const Near *n)
{
    if (n->best)
        buf_printf(b, " (did you mean '%s'?)", n->best);
}

/* The one way every error is written: "name:line:col: error: message",
 * then the line and a caret. */
static void error_at(Buf *err, const Tmpl *t, uint32_t line, uint32_t col, const char *fmt,
                     va_list ap)
{
    buf_printf(err, "%s:%u:%u: error: ", t->name, line, col);
    buf_vprintf(err, fmt, ap);
    caret(err, t->src, t->len, line, col);
}
/* ---- scanning ---- */

typedef enum { S_TEXT, S_VAR, S_BLOCK, S_COMMENT } SegKind;

typedef struct Seg {
    SegKind kind;
    const char *p; /* inside of the tag, or the text */
    size_t n;
    uint32_t line, col;
    bool trim_before, trim_after; /* "-" at the tag's start / end */
} Seg;

typedef struct P {
    Tmpl *t;
    const char *src;
    size_t len;
    VEC(Seg) segs;
    size_t si; /* next segment */
    uint32_t end_line, end_col; /* position of the end of the template */
    Buf *err;
    bool failed;
    int depth;  /* parse_expr, parse_unary and parse_not calls open */
    int blocks; /* blocks open */
    /* expression tokenizer state, over one tag */
    const char *tp, *tend;
    uint32_t tline, tcol;
    int tok;
    const char *tokp;
    size_t tokn;
    uint32_t tokcol;
    Map names; /* each name's one string (tok_name) */
    Map block_names; /* the {% block %}s so far: one name, one block */
} P;

static bool perr(P *p, uint32_t line, uint32_t col, const char *fmt, ...) PRINTF_LIKE(4, 5);
static bool perr(P *p, uint32_t line, uint32_t col, const char *fmt, ...)
{
    if (p->failed)
        return false;
    p->failed = true;
    va_list ap;
    va_start(ap, fmt);
    error_at(p->err, p->t, line, col, fmt, ap);
    va_end(ap);
    return false;
}

static void advance_pos(const char *s, size_t n, uint32_t *line, uint32_t *col)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\n')
            (*line)++, *col = 1;
        else if (((unsigned char)s[i] & 0xC0) != 0x80)
            (*col)++;
    }
}

/* Whether the tag from o (at "{%") to q (at its "%}") says `word` and
 * nothing else, "-" and blanks allowed: {% raw %}, {%- endraw -%}. */
static bool tag_is(const char *o, const char *q, const char *word)
{
    const char *s = o + 2;
    if (s < q && *s == '-')
        s++;
    while (s < q && (*s == ' ' || *s == '\t'))
        s++;
    size_t n = strlen(word);
    if ((size_t)(q - s) < n || memcmp(s, word, n) != 0)
        return false;
    s += n;
    while (s < q && (*s == ' ' || *s == '\t'))
        s++;
    return s == q || (s + 1 == q && *s == '-');
}

/* The "%}" that closes the tag opened at o, or NULL. */
static const char *tag_close(const char *o, const char *end, const char *close)
{
    const char *q = o + 2;
    while (q + 1 < end && !(q[0] == close[0] && q[1] == close[1]))
        q++;
    return q + 1 < end ? q : NULL;
}

static bool scan(P *p)
{
    const char *s = p->src, *end = s + p->len;
    uint32_t line = 1, col = 1;
    const char *text = s;
    uint32_t tline = 1, tcol = 1;
    while (s < end) {
        const char *o = s;
        while (o + 1 < end && !(o[0] == '{' && (o[1] == '{' || o[1] == '%' || o[1] == '#')))
            o++;
        if (o + 1 >= end)
            break;
        /* text before the tag */
        advance_pos(s, (size_t)(o - s), &line, &col);
        Seg txt = {S_TEXT, text, (size_t)(o - text), tline, tcol, false, false};
        vec_push(&p->segs, txt);
        char c = o[1];
        const char *close = c == '{' ? "}}" : c == '%' ? "%}" : "#}";
        const char *q = tag_close(o, end, close);
        if (!q)
            return perr(p, line, col, "'%s' expected (to close '{%c' at line %u)", close, c, line);
        Seg g = {c == '{' ? S_VAR : c == '%' ? S_BLOCK : S_COMMENT, o + 2, (size_t)(q - o - 2),
                 line, col, false, false};
        if (g.n && g.p[0] == '-')
            g.trim_before = true, g.p++, g.n--;
        if (g.n && g.p[g.n - 1] == '-')
            g.trim_after = true, g.n--;
        if (c == '%' && tag_is(o, q, "raw")) {
            /* {% raw %}: the text up to {% endraw %} is text, tags and all;
             * the two tags trim as block tags do, so they are a comment's
             * segments around a text one */
            const char *r = q + 2, *rq = NULL, *shut = NULL;
            for (; r + 1 < end && !rq; r += !rq) {
                if (r[0] != '{' || r[1] != '%')
                    continue;
                /* the first "%}" after r, found once for all the "{%"
                 * before it: a text of "{%{%{%..." stays linear */
                if (!shut || shut < r + 2)
                    shut = tag_close(r, end, "%}");
                if (!shut)
                    break;
                if (tag_is(r, shut, "endraw"))
                    rq = shut;
            }
            if (!rq)
                return perr(p, line, col, "'{%% endraw %%}' expected (to close 'raw' at line %u)",
                            line);
            g.kind = S_COMMENT;
            vec_push(&p->segs, g);
            advance_pos(o, (size_t)(q + 2 - o), &line, &col);
            uint32_t rl = line, rc = col;
            Seg body = {S_TEXT, q + 2, (size_t)(r - q - 2), rl, rc, false, false};
            vec_push(&p->segs, body);
            advance_pos(q + 2, (size_t)(r - q - 2), &line, &col);
            Seg endraw = {S_COMMENT, r + 2, (size_t)(rq - r - 2), line, col, false, false};
            if (endraw.n && endraw.p[0] == '-')
                endraw.trim_before = true, endraw.p++, endraw.n--;
            if (endraw.n && endraw.p[endraw.n - 1] == '-')
                endraw.trim_after = true, endraw.n--;
            vec_push(&p->segs, endraw);
            o = r, q = rq;
        } else {
            vec_push(&p->segs, g);
        }
        advance_pos(o, (size_t)(q + 2 - o), &line, &col);
        s = text = q + 2;
        tline = line, tcol = col;
    }
    Seg txt = {S_TEXT, text, (size_t)(end - text), tline, tcol, false, false};
    vec_push(&p->segs, txt);
    p->end_line = tline, p->end_col = tcol;
    advance_pos(text, (size_t)(end - text), &p->end_line, &p->end_col);
    /* white space: "-" trims, block tags and comments take their line */
    for (size_t i = 0; i < p->segs.n; i++) {
        Seg *g = &p->segs.v[i];
        if (g->kind == S_TEXT)
            continue;
        Seg *before = &p->segs.v[i - 1], *after = &p->segs.v[i + 1];
        bool block = g->kind != S_VAR;
        if (g->trim_before) {
            while (before->n && is_xml_space((unsigned char)before->p[before->n - 1]))
                before->n--;
        } else if (block) {
            /* lstrip_blocks: only blanks between the line start and the tag */
            size_t k = before->n;
            while (k && (before->p[k - 1] == ' ' || before->p[k - 1] == '\t'))
                k--;
            bool line_start = k > 0 ? before->p[k - 1] == '\n' : i == 1;
            if (line_start)
                before->n = k;
        }
        if (g->trim_after) {
            while (after->n && is_xml_space((unsigned char)after->p[0]))
                after->p++, after->n--, after->col++;
        } else if (block && after->n && after->p[0] == '\n') {
            after->p++, after->n--;
            after->line++, after->col = 1;
        } else if (block && after->n >= 2 && after->p[0] == '\r' && after->p[1] == '\n') {
            after->p += 2, after->n -= 2;
            after->line++, after->col = 1;
        }
    }
    return true;
}
/* ---- the expression tokenizer ---- */

enum {
    T_END = 256, T_NAME, T_INT, T_STR, T_EQ, T_NE, T_LE, T_GE, T_FLOORDIV, T_POW,
    /* single chars as themselves */
};

static void next(P *p)
{
    while (p->tp < p->tend && is_xml_space((unsigned char)*p->tp))
        p->tp++, p->tcol++;
    p->tokp = p->tp;
    p->tokcol = p->tcol;
    if (p->tp >= p->tend) {
        p->tok = T_END;
        p->tokn = 0;
        return;
    }
    char c = *p->tp;
    const char *s = p->tp;
    if (c == '_' || ((c | 32) >= 'a' && (c | 32) <= 'z')) {
        while (p->tp < p->tend &&
               (*p->tp == '_' || ((*p->tp | 32) >= 'a' && (*p->tp | 32) <= 'z') ||
                (*p->tp >= '0' && *p->tp <= '9')))
            p->tp++;
        p->tok = T_NAME;
    } else if (c >= '0' && c <= '9') {
        while (p->tp < p->tend && ((*p->tp >= '0' && *p->tp <= '9') || (*p->tp | 32) == 'x' ||
                                   ((*p->tp | 32) >= 'a' && (*p->tp | 32) <= 'f')))
            p->tp++;
        p->tok = T_INT;
    } else if (c == '\'' || c == '"') {
        p->tp++;
        while (p->tp < p->tend && *p->tp != c)
            p->tp += (*p->tp == '\\' && p->tp + 1 < p->tend) ? 2 : 1;
        if (p->tp >= p->tend) {
            perr(p, p->tline, p->tokcol, "unterminated string");
            p->tok = T_END;
            return;
        }
        p->tp++;
        p->tok = T_STR;
    } else if (p->tp + 1 < p->tend && p->tp[1] == '=' && strchr("=!<>", c)) {
        p->tp += 2;
        p->tok = c == '=' ? T_EQ : c == '!' ? T_NE : c == '<' ? T_LE : T_GE;
    } else if (p->tp + 1 < p->tend && p->tp[1] == c && (c == '/' || c == '*')) {
        p->tp += 2;
        p->tok = c == '/' ? T_FLOORDIV : T_POW;
    } else if (strchr(".[](){},|+-*/%<>=:~", c)) {
        p->tp++;
        p->tok = c;
    } else {
        perr(p, p->tline, p->tcol, "unexpected character '%c'", c);
        p->tok = T_END;
        p->tp = p->tend;
        return;
    }
    p->tokn = (size_t)(p->tp - s);
    p->tcol += (uint32_t)p->tokn;
}

static bool is_word(const P *p, const char *w)
{
    return p->tok == T_NAME && p->tokn == strlen(w) && memcmp(p->tokp, w, p->tokn) == 0;
}

static const char *tok_text(P *p) { return arena_strndup(&p->t->arena, p->tokp, p->tokn); }

/* The loop variable's name: the renderer's key and the parser's string
 * for the name "loop" are this one. */
static const char loop_name[] = "loop";

/* The token as a name: one string for all its uses in the template, so
 * that a lookup finds it by pointer (KEY_IS) without strcmp. */
static const char *tok_name(P *p)
{
    const char *s = tok_text(p);
    if (!p->names.cap)
        map_put(&p->names, loop_name, (void *)loop_name, false);
    const char *had = map_get(&p->names, s);
    if (had)
        return had;
    map_put(&p->names, s, (void *)s, false);
    return s;
}

static bool expect(P *p, int tok, const char *what)
{
    if (p->tok == tok) {
        next(p);
        return true;
    }
    return perr(p, p->tline, p->tokcol, "%s expected", what);
}

static Expr *new_expr(P *p, ExprKind k)
{
    Expr *e = arena_alloc(&p->t->arena, sizeof *e);
    e->kind = k;
    e->height = 1;
    e->line = p->tline;
    e->col = p->tokcol;
    vec_push(&p->t->exprs, e);
    return e;
}

/* e, its children made: NULL after an error if its tree is now taller
 * than TMPL_MAX_NESTING (the renderer recurses on it). */
static Expr *grown(P *p, Expr *e)
{
    int h = 0;
    const Expr *kids[3] = {e->a, e->b, e->c};
    for (int i = 0; i < 3; i++)
        if (kids[i] && kids[i]->height > h)
            h = kids[i]->height;
    for (size_t i = 0; i < e->args.n; i++)
        if (e->args.v[i] && e->args.v[i]->height > h)
            h = e->args.v[i]->height;
    e->height = h + 1;
    if (e->height > TMPL_MAX_NESTING) {
        perr(p, e->line, e->col, "expression nested more than %d deep", TMPL_MAX_NESTING);
        return NULL;
    }
    return e;
}

/* Enters a parse function that may recurse (parentheses, '-', 'not');
 * false after an error when that would be too deep. */
static bool deeper(P *p)
{
    if (++p->depth <= TMPL_MAX_NESTING)
        return true;
    perr(p, p->tline, p->tokcol, "expression nested more than %d deep", TMPL_MAX_NESTING);
    return false;
}

static Expr *parse_expr(P *p);

/* string literal body with \n \t \\ \' \" escapes */
static TValue *string_lit(P *p)
{
    Buf b = {0};
    for (size_t i = 1; i + 1 < p->tokn; i++) {
        char c = p->tokp[i];
        if (c == '\\' && i + 2 < p->tokn) {
            c = p->tokp[++i];
            c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
        }
        buf_addc(&b, c);
    }
    TValue *v = tv_strn(&p->t->arena, b.s ? b.s : "", b.len);
    buf_free(&b);
    return v;
}

/* args: '(' [ arg ( ',' arg )* [ ',' ] ] ')'    arg: [ name '=' ] expr
 * A keyword goes into e->kw beside its argument (NULL for the others). */
static void call_args(P *p, Expr *e)
{
    next(p); /* ( */
    while (p->tok != ')' && !p->failed) {
        const char *kw = NULL;
        if (p->tok == T_NAME && p->tp < p->tend) {
            /* a name and then '=' (not '=='): a keyword */
            const char *q = p->tp;
            while (q < p->tend && (*q == ' ' || *q == '\t'))
                q++;
            if (q < p->tend && *q == '=' && (q + 1 >= p->tend || q[1] != '=')) {
                kw = tok_name(p);
                next(p);
                next(p);
            }
        }
        if (!kw && e->kw.n && e->kw.v[e->kw.n - 1]) {
            perr(p, p->tline, p->tokcol, "an argument without a name after a named one");
            return;
        }
        Expr *a = parse_expr(p);
        if (!a)
            return;
        vec_push(&e->args, a);
        vec_push(&e->kw, kw);
        if (p->tok != ',')
            break;
        next(p);
    }
    expect(p, ')', "')'");
}

/* A literal list or dictionary's items up to `close`:
 * items: [ item ( ',' item )* [ ',' ] ]   item: expr, or expr ':' expr
 * in a dictionary. */
static Expr *parse_items(P *p, int close, bool dict)
{
    Expr *e = new_expr(p, dict ? E_DICT : E_LIST);
    next(p); /* [ { ( */
    while (p->tok != close && !p->failed) {
        Expr *k = parse_expr(p);
        if (!k)
            return NULL;
        vec_push(&e->args, k);
        if (dict) {
            if (!expect(p, ':', "':'"))
                return NULL;
            Expr *v = parse_expr(p);
            if (!v)
                return NULL;
            vec_push(&e->args, v);
        }
        if (p->tok != ',')
            break;
        next(p);
    }
    if (!expect(p, close, close == ']' ? "']'" : close == '}' ? "'}'" : "')'"))
        return NULL;
    return grown(p, e);
}

/* atom: integer | string | name | '(' expr ')' | tuple | list | dict */
static Expr *parse_atom(P *p)
{
    Expr *e = NULL;
    if (p->tok == T_INT) {
        e = new_expr(p, E_LIT);
        uint64_t v = 0;
        char tmp[32];
        const char *more = p->tokn > 31 ? "..." : "";
        snprintf(tmp, sizeof tmp, "%.*s", (int)(p->tokn < 31 ? p->tokn : 31), p->tokp);
        if (!parse_uint(tok_text(p), INT64_MAX, &v)) {
            /* digits only (or 0x and hex digits): a number too large */
            bool hex = p->tokn > 2 && p->tokp[0] == '0' && (p->tokp[1] | 32) == 'x';
            size_t i = hex ? 2 : 0;
            while (i < p->tokn && ((p->tokp[i] >= '0' && p->tokp[i] <= '9') ||
                                   (hex && (p->tokp[i] | 32) >= 'a' && (p->tokp[i] | 32) <= 'f')))
                i++;
            if (i == p->tokn)
                perr(p, p->tline, p->tokcol, "integer %s%s does not fit in 64 bits (the largest "
                     "is 9223372036854775807)", tmp, more);
            else
                perr(p, p->tline, p->tokcol, "invalid number '%s%s'", tmp, more);
            return NULL;
        }
        e->lit = tv_int(&p->t->arena, (int64_t)v);
        next(p);
    } else if (p->tok == T_STR) {
        e = new_expr(p, E_LIT);
        e->lit = string_lit(p);
        next(p);
    } else if (p->tok == T_NAME) {
        e = new_expr(p, E_LIT);
        /* Jinja's spellings, and Python's */
        if (is_word(p, "true") || is_word(p, "false") || is_word(p, "True") ||
            is_word(p, "False"))
            e->lit = tv_bool(&p->t->arena, p->tokp[0] == 't' || p->tokp[0] == 'T');
        else if (is_word(p, "none") || is_word(p, "None"))
            e->lit = tv_none(&p->t->arena);
        else
            e->kind = E_NAME, e->name = tok_name(p), e->bit = name_bit(e->name);
        next(p);
    } else if (p->tok == '(') {
        /* ( expr ), or a tuple: (x) is x, (x,) and (x, y) lists (the
         * language has no tuples) */
        uint32_t col = p->tokcol;
        Expr *empty = new_expr(p, E_LIST);
        next(p);
        if (p->tok == ')') {
            next(p);
            return empty;
        }
        e = parse_expr(p);
        if (!e)
            return NULL;
        if (p->tok == ',') {
            Expr *t = new_expr(p, E_LIST);
            t->line = e->line, t->col = col;
            vec_push(&t->args, e);
            while (p->tok == ',' && !p->failed) {
                next(p);
                if (p->tok == ')')
                    break;
                Expr *x = parse_expr(p);
                if (!x)
                    return NULL;
                vec_push(&t->args, x);
            }
            if (!(e = grown(p, t)))
                return NULL;
        }
        if (!expect(p, ')', "')'"))
            return NULL;
    } else if (p->tok == '[' || p->tok == '{') {
        return parse_items(p, p->tok == '[' ? ']' : '}', p->tok == '{');
    } else {
        perr(p, p->tline, p->tokcol, "expression expected");
        return NULL;
    }
    return e;
}

/* subscript: '[' expr ']' | '[' [expr] ':' [expr] [ ':' [expr] ] ']' */
static Expr *parse_subscript(P *p, Expr *of)
{
    next(p); /* [ */
    Expr *x = new_expr(p, E_INDEX);
    x->a = of;
    Expr *parts[3] = {0};
    int colons = 0;
    for (;;) {
        if (p->tok != ':' && p->tok != ']' && !(parts[colons] = parse_expr(p)))
            return NULL;
        if (p->tok != ':' || colons == 2)
            break;
        colons++;
        next(p);
    }
    if (!expect(p, ']', "']'"))
        return NULL;
    if (!colons) {
        if (!parts[0]) {
            perr(p, x->line, x->col, "expression expected");
            return NULL;
        }
        x->b = parts[0];
    } else {
        x->kind = E_SLICE;
        for (int i = 0; i < 3; i++)
            vec_push(&x->args, parts[i]);
    }
    return grown(p, x);
}

/* primary: atom ( '.' name | subscript | args )* */
static Expr *parse_primary(P *p)
{
    Expr *e = parse_atom(p);
    while (e) {
        if (p->tok == '.') {
            next(p);
            if (p->tok != T_NAME) {
                perr(p, p->tline, p->tokcol, "attribute name expected after '.'");
                return NULL;
            }
            Expr *x = new_expr(p, E_ATTR);
            x->a = e;
            x->name = tok_name(p);
            next(p);
            e = grown(p, x);
        } else if (p->tok == '[') {
            e = parse_subscript(p, e);
        } else if (p->tok == '(') {
            Expr *x = new_expr(p, E_CALL);
            x->a = e;
            if (e->kind == E_ATTR)
                x->name = e->name;
            call_args(p, x);
            e = p->failed ? NULL : grown(p, x);
        } else {
            break;
        }
    }
    return p->failed ? NULL : e;
}

static const Filter filters[], tests[];
static const size_t nfilters, ntests;

/* The row of `table` named `name`; NULL after an error at e that names
 * what is near ("unknown filter 'lenght' (did you mean 'length'?)"). */
static const Filter *resolve(P *p, const Expr *e, const char *what, const Filter *table,
                             size_t n, const char *name)
{
    Near near = {name, NULL, 0};
    for (size_t i = 0; i < n; i++) {
        if (strcmp(table[i].name, name) == 0)
            return &table[i];
        near_try(&near, table[i].name);
    }
    Buf b = {0};
    buf_printf(&b, "unknown %s '%s'", what, name);
    near_say(&b, &near);
    perr(p, e->line, e->col, "%s", b.s);
    buf_free(&b);
    return NULL;
}

/* Which slot of f's arguments `kw` fills: its place in f->params. */
static int param_slot(const Filter *f, const char *kw)
{
    size_t n = strlen(kw);
    int slot = 0;
    for (const char *s = f->params; s && *s; slot++) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        if (len == n && memcmp(s, kw, n) == 0)
            return slot;
        s = end ? end + 1 : s + len;
    }
    return -1;
}

/* The arguments of a filter or test f (e->args, e->kw as call_args read
 * them) put in f's slots, and checked, and the filter or test that one
 * of them names resolved: all when the template is read. */
static bool slot_args(P *p, Expr *e, const char *what)
{
    const Filter *f = e->filter;
    Expr *slots[MAX_ARGS] = {0};
    int positional = 0, used = f->max_args;
    for (size_t i = 0; i < e->args.n; i++) {
        int k = e->kw.v[i] ? param_slot(f, e->kw.v[i]) : positional++;
        if (e->kw.v[i] && k < 0)
            return perr(p, e->args.v[i]->line, e->args.v[i]->col,
                        "%s '%s' has no argument '%s'", what, e->name, e->kw.v[i]);
        if (!e->kw.v[i] && k >= f->max_args)
            return perr(p, e->line, e->col, "%s '%s' takes %d to %d arguments, not %zu", what,
                        e->name, f->min_args, f->max_args, e->args.n);
        if (slots[k])
            return perr(p, e->args.v[i]->line, e->args.v[i]->col,
                        "%s '%s': argument '%s' given twice", what, e->name, e->kw.v[i]);
        slots[k] = e->args.v[i];
        if (k + 1 > used)
            used = k + 1;
    }
    for (int k = 0; k < f->min_args; k++)
        if (!slots[k])
            return perr(p, e->line, e->col, "%s '%s' takes %d to %d arguments, not %zu", what,
                        e->name, f->min_args, f->max_args, e->args.n);
    e->args.n = 0;
    e->kw.n = 0;
    for (int k = 0; k < used; k++)
        vec_push(&e->args, slots[k]);
    Expr *sub = f->sub_arg >= 0 && f->sub_arg < used ? slots[f->sub_arg] : NULL;
    if (sub) {
        if (sub->kind != E_LIT || sub->lit->kind != TV_STR)
            return perr(p, sub->line, sub->col,
                        "%s '%s' takes the name of a %s as a string literal", what, e->name,
                        f->sub_is_test ? "test" : "filter");
        e->sub = f->sub_is_test ? resolve(p, sub, "test", tests, ntests, sub->lit->s)
                                : resolve(p, sub, "filter", filters, nfilters, sub->lit->s);
        if (!e->sub)
            return false;
    }
    return true;
}

/* filter_call: name [ args ]: resolved here, once, so that a mistake in
 * a branch that does not run is reported too */
static Expr *parse_filter_call(P *p, Expr *of)
{
    Expr *f = new_expr(p, E_FILTER);
    f->name = tok_text(p);
    if (!(f->filter = resolve(p, f, "filter", filters, nfilters, f->name)))
        return NULL;
    f->a = of;
    next(p);
    if (p->tok == '(')
        call_args(p, f);
    return !p->failed && slot_args(p, f, "filter") ? grown(p, f) : NULL;
}

/* filter: '|' filter_call */
static Expr *parse_filter(P *p, Expr *of)
{
    next(p); /* | */
    if (p->tok != T_NAME) {
        perr(p, p->tline, p->tokcol, "filter name expected after '|'");
        return NULL;
    }
    return parse_filter_call(p, of);
}

/* test: 'is' [ 'not' ] name [ args | primary ]
 * A test of one argument takes it without parentheses, as in Jinja:
 * x is divisibleby 3. */
static Expr *parse_test(P *p, Expr *of)
{
    next(p); /* is */
    Expr *t = new_expr(p, E_TEST);
    if (is_word(p, "not")) {
        t->negate = true;
        next(p);
    }
    if (p->tok != T_NAME) {
        perr(p, p->tline, p->tokcol, "test name expected after 'is'");
        return NULL;
    }
    t->line = p->tline, t->col = p->tokcol;
    t->name = tok_text(p);
    if (!(t->filter = resolve(p, t, "test", tests, ntests, t->name)))
        return NULL;
    t->a = of;
    next(p);
    if (p->tok == '(') {
        call_args(p, t);
    } else if (t->filter->max_args > 0 &&
               (p->tok == T_INT || p->tok == T_STR || p->tok == '[' || p->tok == '{' ||
                (p->tok == T_NAME && !is_word(p, "else") && !is_word(p, "and") &&
                 !is_word(p, "or") && !is_word(p, "if") && !is_word(p, "in") &&
                 !is_word(p, "not") && !is_word(p, "is")))) {
        Expr *arg = parse_primary(p);
        if (!arg)
            return NULL;
        vec_push(&t->args, arg);
        vec_push(&t->kw, (const char *)NULL);
    }
    return !p->failed && slot_args(p, t, "test") ? grown(p, t) : NULL;
}

/* unary_operand: '-' unary_operand | primary */
static Expr *parse_unary_operand(P *p)
{
    if (p->tok == '-') {
        Expr *e = new_expr(p, E_NEG);
        next(p);
        if (!deeper(p))
            return NULL;
        e->a = parse_unary_operand(p);
        p->depth--;
        return e->a ? grown(p, e) : NULL;
    }
    return parse_primary(p);
}

/* unary: unary_operand ( filter | test )*
 * As in Jinja, -x | f is f(-x). */
static Expr *parse_unary(P *p)
{
    Expr *e = parse_unary_operand(p);
    while (e && (p->tok == '|' || is_word(p, "is")))
        e = p->tok == '|' ? parse_filter(p, e) : parse_test(p, e);
    return e;
}

/* The operator's position: where its errors are reported. */
typedef struct OpAt {
    int op;
    uint32_t line, col;
} OpAt;

static OpAt op_here(const P *p, int op) { return (OpAt){op, p->tline, p->tokcol}; }

static Expr *bin(P *p, OpAt o, Expr *a, Expr *b)
{
    if (!a || !b)
        return NULL;
    Expr *e = new_expr(p, E_BIN);
    e->op = o.op;
    e->a = a;
    e->b = b;
    e->line = o.line, e->col = o.col;
    return grown(p, e);
}

/* power: unary ( '**' unary )* */
static Expr *parse_power(P *p)
{
    Expr *e = parse_unary(p);
    while (e && p->tok == T_POW) {
        OpAt o = op_here(p, p->tok);
        next(p);
        e = bin(p, o, e, parse_unary(p));
    }
    return e;
}

/* product: power ( ( '*' | '/' | '//' | '%' ) power )* */
static Expr *parse_product(P *p)
{
    Expr *e = parse_power(p);
    while (e && (p->tok == '*' || p->tok == '/' || p->tok == T_FLOORDIV || p->tok == '%')) {
        OpAt o = op_here(p, p->tok);
        next(p);
        e = bin(p, o, e, parse_power(p));
    }
    return e;
}

/* concat: product ( '~' product )*
 * Tighter than '+', as in Jinja: 'a' ~ 1 + 2 is ('a' ~ 1) + 2. */
static Expr *parse_concat(P *p)
{
    Expr *e = parse_product(p);
    while (e && p->tok == '~') {
        OpAt o = op_here(p, p->tok);
        next(p);
        e = bin(p, o, e, parse_product(p));
    }
    return e;
}

/* sum: concat ( ( '+' | '-' ) concat )* */
static Expr *parse_sum(P *p)
{
    Expr *e = parse_concat(p);
    while (e && (p->tok == '+' || p->tok == '-')) {
        OpAt o = op_here(p, p->tok);
        next(p);
        e = bin(p, o, e, parse_concat(p));
    }
    return e;
}

enum { OP_IN = 300, OP_NOTIN, OP_AND, OP_OR };

/* compare: sum ( ( '==' | '!=' | '<' | '<=' | '>' | '>=' | 'in' | 'not' 'in' ) sum )* */
static Expr *parse_compare(P *p)
{
    Expr *e = parse_sum(p);
    while (e) {
        OpAt o = op_here(p, p->tok);
        if (o.op == T_EQ || o.op == T_NE || o.op == T_LE || o.op == T_GE || o.op == '<' ||
            o.op == '>') {
            next(p);
        } else if (is_word(p, "in")) {
            o.op = OP_IN;
            next(p);
        } else if (is_word(p, "not")) {
            /* "not in" */
            next(p);
            if (!is_word(p, "in")) {
                perr(p, p->tline, p->tokcol, "'in' expected after 'not'");
                return NULL;
            }
            o.op = OP_NOTIN;
            next(p);
        } else {
            break;
        }
        e = bin(p, o, e, parse_sum(p));
    }
    return e;
}

/* not: 'not' not | compare */
static Expr *parse_not(P *p)
{
    if (is_word(p, "not")) {
        Expr *e = new_expr(p, E_NOT);
        next(p);
        if (!deeper(p))
            return NULL;
        e->a = parse_not(p);
        p->depth--;
        return e->a ? grown(p, e) : NULL;
    }
    return parse_compare(p);
}

/* and: not ( 'and' not )* */
static Expr *parse_and(P *p)
{
    Expr *e = parse_not(p);
    while (e && is_word(p, "and")) {
        OpAt o = op_here(p, OP_AND);
        next(p);
        e = bin(p, o, e, parse_not(p));
    }
    return e;
}

/* or: and ( 'or' and )* */
static Expr *parse_or(P *p)
{
    Expr *e = parse_and(p);
    while (e && is_word(p, "or")) {
        OpAt o = op_here(p, OP_OR);
        next(p);
        e = bin(p, o, e, parse_and(p));
    }
    return e;
}

/* condition: or ( 'if' or [ 'else' condition ] )*
 * Without 'else' a false condition gives none (Jinja: undefined, which
 * prints as nothing too). */
static Expr *parse_condition(P *p)
{
    Expr *e = parse_or(p);
    while (e && is_word(p, "if")) {
        Expr *c = new_expr(p, E_COND);
        next(p);
        c->a = e;
        if (!(c->b = parse_or(p)))
            return NULL;
        if (is_word(p, "else")) {
            next(p);
            if (!deeper(p))
                return NULL;
            c->c = parse_condition(p);
            p->depth--;
            if (!c->c)
                return NULL;
        }
        e = grown(p, c);
    }
    return e;
}

/* expr: condition; the parser's recursion goes through here
 * (parentheses, subscripts, arguments), so here it is counted. */
static Expr *parse_expr(P *p)
{
    if (!deeper(p))
        return NULL;
    Expr *e = parse_condition(p);
    p->depth--;
    return e;
}

/* Starts tokenizing the inside of segment g. */
static void tag_begin(P *p, const Seg *g)
{
    p->tp = g->p;
    p->tend = g->p + g->n;
    p->tline = g->line;
    p->tcol = g->col + 2 + (g->trim_before ? 1 : 0);
    next(p);
}

static bool tag_end(P *p)
{
    if (p->tok != T_END)
        return perr(p, p->tline, p->tokcol, "end of tag expected, found '%.*s'", (int)p->tokn,
                    p->tokp);
    return true;
}
/* ---- statements ---- */

static Node *new_node(P *p, NodeKind k, const Seg *g)
{
    Node *n = arena_alloc(&p->t->arena, sizeof *n);
    n->kind = k;
    n->owner = p->t;
    n->line = g->line;
    n->col = g->col;
    vec_push(&p->t->nodes, n);
    return n;
}

/* Reads nodes until a block tag whose first word is one of `stops`
 * (NULL-terminated); returns that word's index, -1 at the end of the
 * template, -2 on error.  The stopping tag is left for the caller, its
 * tokenizer positioned after the word. */
static int parse_body(P *p, NodeList *out, const char *const *stops);

static bool parse_block(P *p, const Seg *g, NodeList *out);

static int parse_body(P *p, NodeList *out, const char *const *stops)
{
    while (p->si < p->segs.n && !p->failed) {
        const Seg *g = &p->segs.v[p->si++];
        switch (g->kind) {
        case S_TEXT:
            if (g->n) {
                Node *n = new_node(p, N_TEXT, g);
                n->text = g->p;
                n->n = g->n;
                vec_push(out, n);
            }
            break;
        case S_COMMENT:
            break;
        case S_VAR: {
            tag_begin(p, g);
            Node *n = new_node(p, N_OUTPUT, g);
            n->expr = parse_expr(p);
            if (!n->expr || !tag_end(p))
                return -2;
            vec_push(out, n);
            break;
        }
        case S_BLOCK:
            tag_begin(p, g);
            for (int i = 0; stops && stops[i]; i++)
                if (is_word(p, stops[i])) {
                    next(p);
                    return i;
                }
            if (!parse_block(p, g, out))
                return -2;
            break;
        }
    }
    return p->failed ? -2 : -1;
}

static bool closed(P *p, int r, const Seg *open, const char *word, const char *end)
{
    if (r == -2)
        return false;
    if (r == -1)
        return perr(p, p->end_line, p->end_col, "'{%% %s %%}' expected (to close '%s' at line %u)",
                    end, word, open->line);
    return true;
}

/* The body of a block statement up to its end tag, which ends it:
 * body: node* '{%' end '%}' */
static bool parse_block_body(P *p, const Seg *g, NodeList *body, const char *word,
                             const char *end)
{
    const char *const stops[] = {end, NULL};
    return closed(p, parse_body(p, body, stops), g, word, end) && tag_end(p);
}

/* A name being given a value: not a literal's. */
static bool target_name(P *p, const char **name, const char *what)
{
    if (p->tok != T_NAME)
        return perr(p, p->tline, p->tokcol, "%s expected", what);
    if (is_word(p, "none") || is_word(p, "true") || is_word(p, "false") ||
        is_word(p, "None") || is_word(p, "True") || is_word(p, "False"))
        return perr(p, p->tline, p->tokcol, "'%.*s' is a literal, not a variable name",
                    (int)p->tokn, p->tokp);
    *name = tok_name(p);
    next(p);
    return true;
}

/* A template's name in a statement: a string literal. */
static bool template_name(P *p, Node *n)
{
    if (p->tok != T_STR)
        return perr(p, p->tline, p->tokcol, "template name (a string) expected");
    n->text = string_lit(p)->s;
    next(p);
    return true;
}

static bool parse_statement(P *p, const Seg *g, NodeList *out);

/* The statements that open a block (and nest one deeper). */
static const char *const openers[] = {"if", "for", "macro", "with", "filter", "block", NULL};

/* A statement; one that opens a block nests one deeper. */
static bool parse_block(P *p, const Seg *g, NodeList *out)
{
    int opens = 0;
    for (int i = 0; openers[i]; i++)
        opens |= is_word(p, openers[i]);
    /* {% set x %} opens a block, {% set x = ... %} does not */
    opens |= is_word(p, "set") && !memchr(g->p, '=', g->n);
    if (opens && p->blocks >= TMPL_MAX_NESTING)
        return perr(p, g->line, g->col, "blocks nested more than %d deep", TMPL_MAX_NESTING);
    p->blocks += opens;
    bool ok = parse_statement(p, g, out);
    p->blocks -= opens;
    return ok;
}

/* if: 'if' expr body ( 'elif' expr body )* [ 'else' body ] 'endif' */
static bool parse_if(P *p, const Seg *g, Node *n)
{
    Expr *c = parse_expr(p);
    if (!c || !tag_end(p))
        return false;
    vec_push(&n->conds, c);
    static const char *const stops[] = {"elif", "else", "endif", NULL};
    for (;;) {
        NodeList body = {0};
        int r = parse_body(p, &body, stops);
        vec_push(&n->branches, body);
        if (!closed(p, r, g, "if", "endif"))
            return false;
        if (r == 0) { /* elif */
            Expr *e = parse_expr(p);
            if (!e || !tag_end(p))
                return false;
            vec_push(&n->conds, e);
            continue;
        }
        if (!tag_end(p))
            return false;
        if (r == 1) { /* else */
            NodeList els = {0};
            static const char *const endif[] = {"endif", NULL};
            int r2 = parse_body(p, &els, endif);
            vec_push(&n->branches, els);
            if (!closed(p, r2, g, "if", "endif") || !tag_end(p))
                return false;
        }
        return true;
    }
}

/* for: 'for' name ( ',' name )* 'in' expr body [ 'else' body ] 'endfor' */
static bool parse_for(P *p, const Seg *g, Node *n)
{
    for (;;) {
        const char *name;
        if (!target_name(p, &name, "loop variable"))
            return false;
        vec_push(&n->params, name);
        if (p->tok != ',')
            break;
        next(p);
    }
    n->text = n->params.v[0];
    if (!is_word(p, "in"))
        return perr(p, p->tline, p->tokcol, "'in' expected");
    next(p);
    n->expr = parse_expr(p);
    if (!n->expr || !tag_end(p))
        return false;
    static const char *const stops[] = {"else", "endfor", NULL};
    int r = parse_body(p, &n->body, stops);
    if (!closed(p, r, g, "for", "endfor") || !tag_end(p))
        return false;
    return r != 0 || parse_block_body(p, g, &n->orelse, "for", "endfor");
}

/* set: 'set' name '=' expr | 'set' name body 'endset' */
static bool parse_set(P *p, const Seg *g, Node *n)
{
    if (!target_name(p, &n->text, "variable name"))
        return false;
    if (p->tok == T_END) {
        n->kind = N_SET_BLOCK;
        return parse_block_body(p, g, &n->body, "set", "endset");
    }
    if (!expect(p, '=', "'='"))
        return false;
    n->expr = parse_expr(p);
    return n->expr && tag_end(p);
}

/* macro: 'macro' name '(' [ param ( ',' param )* ] ')' body 'endmacro'
 * param: name [ '=' expr ] */
static bool parse_macro(P *p, const Seg *g, Node *n)
{
    if (p->tok != T_NAME)
        return perr(p, p->tline, p->tokcol, "macro name expected");
    n->text = tok_name(p);
    next(p);
    if (!expect(p, '(', "'('"))
        return false;
    while (p->tok == T_NAME) {
        vec_push(&n->params, tok_name(p));
        next(p);
        Expr *def = NULL;
        if (p->tok == '=') {
            next(p);
            if (!(def = parse_expr(p)))
                return false;
        } else if (n->conds.n && n->conds.v[n->conds.n - 1]) {
            return perr(p, p->tline, p->tokcol, "'=' expected (a parameter without a default "
                        "after one with a default)");
        }
        vec_push(&n->conds, def);
        if (p->tok != ',')
            break;
        next(p);
    }
    if (!expect(p, ')', "')'") || !tag_end(p))
        return false;
    return parse_block_body(p, g, &n->body, "macro", "endmacro");
}

/* import: 'import' string 'as' name
 *       | 'from' string 'import' name [ 'as' name ] ( ',' name [ 'as' name ] )* */
static bool parse_import(P *p, Node *n)
{
    if (!template_name(p, n))
        return false;
    if (!n->from) {
        const char *as;
        if (!is_word(p, "as"))
            return perr(p, p->tline, p->tokcol, "'as' expected");
        next(p);
        if (!target_name(p, &as, "name"))
            return false;
        vec_push(&n->params, as);
        return tag_end(p);
    }
    if (!is_word(p, "import"))
        return perr(p, p->tline, p->tokcol, "'import' expected");
    next(p);
    for (;;) {
        const char *name, *as;
        if (!target_name(p, &name, "name"))
            return false;
        as = name;
        if (is_word(p, "as")) {
            next(p);
            if (!target_name(p, &as, "name"))
                return false;
        }
        vec_push(&n->params, name);
        vec_push(&n->params, as);
        if (p->tok != ',')
            break;
        next(p);
    }
    return tag_end(p);
}

/* with: 'with' [ name '=' expr ( ',' name '=' expr )* ] body 'endwith' */
static bool parse_with(P *p, const Seg *g, Node *n)
{
    while (p->tok != T_END) {
        const char *name;
        if (!target_name(p, &name, "variable name") || !expect(p, '=', "'='"))
            return false;
        Expr *v = parse_expr(p);
        if (!v)
            return false;
        vec_push(&n->params, name);
        vec_push(&n->conds, v);
        if (p->tok != ',')
            break;
        next(p);
    }
    return tag_end(p) && parse_block_body(p, g, &n->body, "with", "endwith");
}

/* The name a {% filter %} block's text has while its filters run: not one
 * a template can spell. */
static const char filter_body[] = "(filter body)";

/* filter: 'filter' filter_call ( '|' filter_call )* body 'endfilter' */
static bool parse_filter_block(P *p, const Seg *g, Node *n)
{
    Expr *e = new_expr(p, E_NAME);
    e->name = filter_body;
    e->bit = name_bit(filter_body);
    if (p->tok != T_NAME)
        return perr(p, p->tline, p->tokcol, "filter name expected");
    e = parse_filter_call(p, e);
    while (e && p->tok == '|')
        e = parse_filter(p, e);
    if (!(n->expr = e) || !tag_end(p))
        return false;
    return parse_block_body(p, g, &n->body, "filter", "endfilter");
}

/* block: 'block' name [ 'scoped' ] body 'endblock' [ name ]
 * A block sees the names where it is (a loop's, with or without
 * 'scoped'). */
static bool parse_named_block(P *p, const Seg *g, Node *n)
{
    if (p->tok != T_NAME)
        return perr(p, p->tline, p->tokcol, "block name expected");
    n->text = tok_name(p);
    const Node *had = map_get(&p->block_names, n->text);
    if (had)
        return perr(p, p->tline, p->tokcol, "block '%s' defined twice (first at line %u)",
                    n->text, had->line);
    map_put(&p->block_names, n->text, n, false);
    vec_push(&p->t->blocks, n);
    next(p);
    if (is_word(p, "scoped"))
        next(p);
    if (!tag_end(p))
        return false;
    static const char *const stops[] = {"endblock", NULL};
    if (!closed(p, parse_body(p, &n->body, stops), g, "block", "endblock"))
        return false;
    if (p->tok == T_NAME && !is_word(p, n->text))
        return perr(p, p->tline, p->tokcol, "'{%% endblock %s %%}' expected, not '%.*s'",
                    n->text, (int)p->tokn, p->tokp);
    if (p->tok == T_NAME)
        next(p);
    return tag_end(p);
}

/* extends: 'extends' string, once, outside every block */
static bool parse_extends(P *p, Node *n)
{
    if (p->blocks)
        return perr(p, n->line, n->col, "'extends' inside a block (it belongs at the top of the "
                    "template)");
    if (p->t->extends)
        return perr(p, n->line, n->col, "a second 'extends' (the first is at line %u)",
                    p->t->extends->line);
    p->t->extends = n;
    return template_name(p, n) && tag_end(p);
}

/* The statements, each with the node it makes and the function that
 * reads the rest of it (the word is read). */
typedef struct Statement {
    const char *word;
    NodeKind kind;
    bool (*parse)(P *p, const Seg *g, Node *n);
} Statement;

static bool parse_include(P *p, const Seg *g, Node *n)
{
    (void)g;
    return template_name(p, n) && tag_end(p);
}

static bool parse_import_stmt(P *p, const Seg *g, Node *n)
{
    (void)g;
    return parse_import(p, n);
}

static bool parse_from(P *p, const Seg *g, Node *n)
{
    (void)g;
    n->from = true;
    return parse_import(p, n);
}

static bool parse_extends_stmt(P *p, const Seg *g, Node *n)
{
    (void)g;
    return parse_extends(p, n);
}

static const Statement statements[] = {
    {"if", N_IF, parse_if},
    {"for", N_FOR, parse_for},
    {"set", N_SET, parse_set},
    {"macro", N_MACRO, parse_macro},
    {"include", N_INCLUDE, parse_include},
    {"import", N_IMPORT, parse_import_stmt},
    {"from", N_IMPORT, parse_from},
    {"with", N_WITH, parse_with},
    {"filter", N_FILTER, parse_filter_block},
    {"block", N_BLOCK, parse_named_block},
    {"extends", N_EXTENDS, parse_extends_stmt},
};

static bool parse_statement(P *p, const Seg *g, NodeList *out)
{
    if (p->tok != T_NAME)
        return perr(p, p->tline, p->tokcol, "statement expected");
    for (size_t i = 0; i < sizeof statements / sizeof *statements; i++)
        if (is_word(p, statements[i].word)) {
            next(p);
            Node *n = new_node(p, statements[i].kind, g);
            if (!statements[i].parse(p, g, n))
                return false;
            vec_push(out, n);
            return true;
        }
    static const char *const ends[] = {"endif", "endfor", "endmacro", "endset", "endwith",
                                       "endfilter", "endblock", "endraw", "elif", "else"};
    for (size_t i = 0; i < sizeof ends / sizeof *ends; i++)
        if (is_word(p, ends[i]))
            return perr(p, p->tline, p->tokcol, "'%s' without an open block", ends[i]);
    Near near = {tok_text(p), NULL, 0};
    for (size_t i = 0; i < sizeof statements / sizeof *statements; i++)
        near_try(&near, statements[i].word);
    Buf b = {0};
    buf_printf(&b, "unknown statement '%s'", near.name);
    near_say(&b, &near);
    perr(p, p->tline, p->tokcol, "%s", b.s);
    buf_free(&b);
    return false;
}

Tmpl *tmpl_parse(const char *name, const char *src, size_t len, Buf *err)
{
    Tmpl *t = xcalloc(1, sizeof *t);
    t->name = arena_strdup(&t->arena, name);
    /* the text nodes point into the source: keep a copy */
    char *copy = arena_strndup(&t->arena, src, len);
    t->src = copy, t->len = len;
    P p = {.t = t, .src = copy, .len = len, .err = err};
    bool ok = scan(&p) && parse_body(&p, &t->top, NULL) == -1;
    vec_free(&p.segs);
    map_free(&p.names);
    map_free(&p.block_names);
    if (!ok) {
        tmpl_free(t);
        return NULL;
    }
    return t;
}
/* ---- rendering ---- */

typedef struct Scope {
    TValue *vars; /* a dict */
    struct Scope *up;
    Map index; /* vars' names to their position + 1, once it has many */
    /* the name_bit of every name in vars: a name whose bit is not here is
     * not searched for here (a lookup passes most scopes of a deep chain,
     * and searching each was 4% of a large header's instructions) */
    uint64_t mask;
} Scope;

/* Past this many names a scope is searched through its index: a template
 * of 50,000 {% set %} took 8 s, quadratic in the names. */
enum { SCOPE_INDEXED = 16 };

/* The -km header of the largest bench manifest (50 MB) writes 192 MB in
 * 580,048 iterations: the defaults leave it 2.8 and 8.6 times that.  The
 * longest string it makes is 181 bytes; 16 MiB keeps what a string that
 * doubles itself ({% set s = s ~ s %}) holds in memory under 32 MiB
 * (docs/templates.md). */
const TmplLimits tmpl_default_limits = {512u << 20, 16u << 20, 5000000};
const TmplLimits tmpl_no_limits = {UINT64_MAX, UINT64_MAX, UINT64_MAX};

/* How deep eval and render_node may recurse in all: a template that
 * parses needs at most 2 * TMPL_MAX_NESTING; macro calls and includes
 * stack their bodies on top. */
enum { MAX_RENDER_NESTING = 4 * TMPL_MAX_NESTING };

struct Rn {
    const Tmpl *t;
    Arena a;
    const TmplLoader *loader;
    const TmplLimits *lim;
    Buf *top;        /* the render's output (other Bufs: a macro call's text) */
    const TmplSink *sink; /* where top's whole lines go, once it holds FLUSH_AT bytes */
    uint64_t flushed;     /* bytes of top handed to the sink */
    uint64_t room;        /* bytes top may still take within max_output */
    size_t flush_at;      /* top's length that makes put flush (SIZE_MAX: no sink) */
    Buf *err;
    bool failed;
    int depth; /* includes and macro calls, to stop runaway recursion */
    int nest;  /* eval and render_node calls open */
    uint64_t iterations; /* loop iterations, macro calls and includes */
    struct Scope *global; /* the caller's values: all an imported template sees */
    /* templates imported or extended, by name: parsed once a render, kept
     * to its end (their macros and blocks may run at any time) */
    Map loaded;
    VEC(Tmpl *) kept;
    struct Inherit *inherit; /* the {% extends %} chain being rendered, or NULL */
    const struct Block *block; /* the {% block %} being rendered: super()'s */
};

static bool rerr(Rn *r, const Expr *e, uint32_t line, uint32_t col, const char *fmt, ...)
    PRINTF_LIKE(5, 6);
static bool rerr(Rn *r, const Expr *e, uint32_t line, uint32_t col, const char *fmt, ...)
{
    if (r->failed)
        return false;
    r->failed = true;
    if (e)
        line = e->line, col = e->col;
    va_list ap;
    va_start(ap, fmt);
    error_at(r->err, r->t, line, col, fmt, ap);
    va_end(ap);
    return false;
}

/* The kind with its article, for messages: "an integer", "a list", "none". */
static const char *a_kind(const TValue *v)
{
    static const char *n[] = {"none", "a boolean", "an integer", "a string", "a list",
                              "a dictionary", "a macro"};
    return n[v->kind];
}

static bool truthy(const TValue *v)
{
    switch (v->kind) {
    case TV_NONE: return false;
    case TV_BOOL: return v->b;
    case TV_INT: return v->i != 0;
    case TV_STR:
    case TV_LIST:
    case TV_DICT: return v->n != 0;
    case TV_MACRO: return true;
    }
    return false;
}

static bool equal(const TValue *a, const TValue *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case TV_NONE: return true;
    case TV_BOOL: return a->b == b->b;
    case TV_INT: return a->i == b->i;
    case TV_STR: return a->n == b->n && memcmp(a->s, b->s, a->n) == 0;
    default: return a == b;
    }
}

/* An integer in decimal, written backwards from end; returns where it
 * starts.  Not snprintf: a large header prints millions of them, and
 * printf's machinery was 5% of its instructions. */
static char *int_text(char *end, int64_t i)
{
    uint64_t u = i < 0 ? 0 - (uint64_t)i : (uint64_t)i;
    char *p = end;
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (i < 0)
        *--p = '-';
    return p;
}

/* The printed form of v, in *s and *n (an integer printed into tmp);
 * false for lists, dicts, macros. */
static bool text_of(const TValue *v, char tmp[24], const char **s, size_t *n)
{
    switch (v->kind) {
    case TV_NONE: *s = "", *n = 0; return true;
    case TV_BOOL: *s = v->b ? "true" : "false", *n = v->b ? 4 : 5; return true;
    case TV_INT:
        *s = int_text(tmp + 24, v->i);
        *n = (size_t)(tmp + 24 - *s);
        return true;
    case TV_STR: *s = v->s, *n = v->n; return true;
    default: return false;
    }
}

/* Appends the printed form of v; false for lists, dicts, macros. */
static bool print(Buf *out, const TValue *v)
{
    char tmp[24];
    const char *s;
    size_t n;
    if (!text_of(v, tmp, &s, &n))
        return false;
    buf_add(out, s, n);
    return true;
}

/* ---- the limits (TmplLimits) ---- */

/* Whether a string of have + add bytes stays within max_string; an error
 * at e (or line, col) if not. */
static bool str_room(Rn *r, const Expr *e, uint32_t line, uint32_t col, size_t have,
                     size_t add)
{
    uint64_t max = r->lim->max_string;
    if (have <= max && add <= max - have)
        return true;
    return rerr(r, e, line, col,
                "a string would pass the limit of %llu bytes (--template-max-string=BYTES "
                "raises it)",
                (unsigned long long)max);
}

/* A streamed render hands its output on in pieces of about this size. */
enum { FLUSH_AT = 64 * 1024 };

/* Hands the sink what the output holds up to the last line end in the
 * piece just added (s, n bytes, at its end).  Looking only at that piece
 * keeps a line longer than FLUSH_AT linear: it waits, whole, for its end. */
static void flush_lines(Rn *r, const char *s, size_t n)
{
    size_t k = n;
    while (k && s[k - 1] != '\n')
        k--;
    if (!k)
        return;
    Buf *out = r->top;
    size_t cut = out->len - n + k;
    r->sink->write(r->sink->ctx, out->s, cut);
    r->flushed += cut;
    memmove(out->s, out->s + cut, out->len - cut + 1); /* with its NUL */
    out->len -= cut;
}

/* Appends n bytes to out, the render's output or a macro call's text,
 * within its limit; false after an error at e (or line, col). */
static bool put(Rn *r, Buf *out, const Expr *e, uint32_t line, uint32_t col, const char *s,
                size_t n)
{
    if (out != r->top) {
        if (!str_room(r, e, line, col, out->len, n))
            return false;
        buf_add(out, s, n);
        return true;
    }
    /* the render's output, a million times in a large header: what is
     * left of max_output kept as a count, the flush as one comparison */
    if (n > r->room)
        return rerr(r, e, line, col,
                    "the output would pass the limit of %llu bytes "
                    "(--template-max-output=BYTES raises it)",
                    (unsigned long long)r->lim->max_output);
    r->room -= n;
    buf_add(out, s, n);
    if (out->len >= r->flush_at)
        flush_lines(r, s, n);
    return true;
}

/* A string the template made (s, n bytes), within max_string. */
static TValue *made_str(Rn *r, const Expr *e, const char *s, size_t n)
{
    return str_room(r, e, 0, 0, 0, n) ? tv_strn(&r->a, s, n) : NULL;
}

/* Appends n bytes to b, a string being made, within max_string; false
 * after an error at e. */
static bool str_add(Rn *r, const Expr *e, Buf *b, const char *s, size_t n)
{
    if (!str_room(r, e, 0, 0, b->len, n))
        return false;
    buf_add(b, s, n);
    return true;
}

/* Counts one loop iteration, macro call or include against
 * max_iterations. */
static bool count_work(Rn *r, const Expr *e, uint32_t line, uint32_t col)
{
    if (++r->iterations <= r->lim->max_iterations)
        return true;
    return rerr(r, e, line, col,
                "more than %llu loop iterations, macro calls and includes "
                "(--template-max-iterations=N raises the limit)",
                (unsigned long long)r->lim->max_iterations);
}

/* Enters eval or render_node; false after an error when too deep. */
static bool enter(Rn *r, uint32_t line, uint32_t col)
{
    if (++r->nest <= MAX_RENDER_NESTING)
        return true;
    return rerr(r, NULL, line, col,
                "macro calls and includes nested too deep (more than %d levels of blocks and "
                "expressions in all)",
                MAX_RENDER_NESTING);
}

static TValue *scope_get(const Scope *s, const char *name)
{
    if (!s->index.cap)
        return tv_get(s->vars, name);
    uintptr_t at = (uintptr_t)map_get(&s->index, name);
    return at ? s->vars->items[at - 1] : NULL;
}

/* Gives a name of s (a {% set %}, a {% macro %}, a macro's parameter) its
 * value.  The name is not copied: it is the template tree's, which
 * outlives the scope. */
static void scope_set(Rn *r, Scope *s, const char *name, TValue *v)
{
    s->mask |= name_bit(name);
    if (!s->index.cap && s->vars->n < SCOPE_INDEXED) {
        tv_set(&r->a, s->vars, name, v);
        return;
    }
    if (!s->index.cap)
        for (size_t i = 0; i < s->vars->n; i++)
            map_put(&s->index, s->vars->keys[i], (void *)(uintptr_t)(i + 1), false);
    uintptr_t at = (uintptr_t)map_get(&s->index, name);
    if (at) {
        s->vars->items[at - 1] = v;
        return;
    }
    tv_add(&r->a, s->vars, name, v);
    map_put(&s->index, name, (void *)(uintptr_t)s->vars->n, false);
}

static void scope_end(Scope *s) { map_free(&s->index); }

/* name's value in the nearest scope that has it; bit is name_bit(name). */
static TValue *lookup(const Scope *s, const char *name, uint64_t bit)
{
    for (; s; s = s->up) {
        if (!(s->mask & bit))
            continue;
        TValue *v = scope_get(s, name);
        if (v)
            return v;
    }
    return NULL;
}

static TValue *eval(Rn *r, const Expr *e, Scope *s);
static bool render_nodes(Rn *r, const NodeList *l, Scope *s, Buf *out);

/* v itself if a string, else its printed form as a string. */
static TValue *as_string(Rn *r, const Expr *e, TValue *v)
{
    char tmp[24];
    const char *s;
    size_t n;
    if (v->kind == TV_STR)
        return v;
    if (!text_of(v, tmp, &s, &n)) {
        rerr(r, e, 0, 0, "%s cannot be printed", a_kind(v));
        return NULL;
    }
    return tv_strn(&r->a, s, n);
}

/* a == the literal b, testing the first character before calling strcmp */
#define IS(a, b) ((a)[0] == (b)[0] && strcmp((a), (b)) == 0)

/* ---- the filters, tests and methods ----
 * Each gets the evaluated operand and its argument slots (NULL for one
 * not given), as its row of `filters`, `tests` or `methods` allows
 * (checked when the template was parsed, or for a method when called). */

#define WANT(cond, what) \
    if (!(cond)) { \
        rerr(r, e, 0, 0, "%s'%s' needs %s, not %s", \
             e->kind == E_FILTER ? "filter " : e->kind == E_TEST ? "test " : "", e->name, what, \
             a_kind(v)); \
        return NULL; \
    }

static bool is_up(char c) { return c >= 'A' && c <= 'Z'; }
static bool is_low(char c) { return c >= 'a' && c <= 'z'; }
static bool is_dig(char c) { return c >= '0' && c <= '9'; }
static char up(char c) { return is_low(c) ? (char)(c - 32) : c; }
static char low(char c) { return is_up(c) ? (char)(c + 32) : c; }

/* a list or dictionary the template made: how deep it nests, bounded
 * (printing, comparing and tojson recurse on it) */
static bool nested(Rn *r, const Expr *e, TValue *v)
{
    int d = 0;
    for (size_t i = 0; i < v->n; i++)
        if (v->items[i]->depth > d)
            d = v->items[i]->depth;
    v->depth = d + 1;
    if (v->depth <= TMPL_MAX_NESTING)
        return true;
    return rerr(r, e, 0, 0, "lists and dictionaries nested more than %d deep", TMPL_MAX_NESTING);
}

/* The string b holds as a value (ok), or NULL; b is freed either way. */
static TValue *buf_value(Rn *r, Buf *b, bool ok)
{
    TValue *v = ok ? tv_strn(&r->a, b->s ? b->s : "", b->len) : NULL;
    buf_free(b);
    return v;
}

/* Item i of a list, counted as one iteration: a filter's or a test's walk
 * over a list (range(10**18) | sum) is bounded as a loop is. */
static TValue *item_counted(Rn *r, const Expr *e, const TValue *list, size_t i)
{
    return count_work(r, e, 0, 0) ? tv_item(list, i, &r->a) : NULL;
}

/* What one item of a list the template makes is taken to cost, against
 * max_string: the value and the pointers to it (a sort's key beside). */
enum { ITEM_BYTES = sizeof(TValue) + 2 * sizeof(void *) };

/* Appends v to l, a list being made, within max_string (ITEM_BYTES an
 * item): range(10**18) | sort holds 174,762 items at most by default,
 * not the 5,000,000 the iterations would allow (half a gigabyte). */
static bool list_room(Rn *r, const Expr *e, size_t n)
{
    uint64_t max = r->lim->max_string;
    if (n < max / ITEM_BYTES)
        return true;
    return rerr(r, e, 0, 0, "a list would pass the limit of %llu bytes, %llu items "
                "(--template-max-string=BYTES raises it)",
                (unsigned long long)max, (unsigned long long)(max / ITEM_BYTES));
}

static bool list_add(Rn *r, const Expr *e, TValue *l, TValue *v)
{
    if (!list_room(r, e, l->n))
        return false;
    tv_push(&r->a, l, v);
    return true;
}

/* v as a list: a list itself, a dictionary its keys, a string its
 * characters (as Jinja iterates them); NULL after an error for others. */
static TValue *as_list(Rn *r, const Expr *e, TValue *v, const char *what)
{
    if (v->kind == TV_LIST)
        return v;
    TValue *l = tv_list(&r->a);
    if (v->kind == TV_DICT) {
        for (size_t i = 0; i < v->n; i++)
            tv_push(&r->a, l, tv_strref(&r->a, v->keys[i]));
        return l;
    }
    if (v->kind == TV_STR) {
        for (size_t i = 0; i < v->n;) {
            size_t k = i + 1;
            while (k < v->n && ((unsigned char)v->s[k] & 0xC0) == 0x80)
                k++;
            if (!list_add(r, e, l, tv_strn(&r->a, v->s + i, k - i)))
                return NULL;
            i = k;
        }
        return l;
    }
    if (what)
        rerr(r, e, 0, 0, "%s needs a list, dictionary or string, not %s", what, a_kind(v));
    else
        rerr(r, e, 0, 0, "'%s' needs a list, dictionary or string, not %s", e->name,
             a_kind(v));
    return NULL;
}

/* The value at a dotted path of attributes and list indexes (Jinja's
 * attribute='a.b.0'); NULL when there is none. */
static TValue *attr_path(Rn *r, TValue *v, const char *path)
{
    for (const char *s = path; v && *s;) {
        const char *end = strchr(s, '.');
        size_t n = end ? (size_t)(end - s) : strlen(s);
        char key[128];
        if (n >= sizeof key)
            return NULL;
        memcpy(key, s, n);
        key[n] = 0;
        uint64_t i;
        if (v->kind == TV_DICT)
            v = tv_get(v, key);
        else if (v->kind == TV_LIST && parse_uint(key, SIZE_MAX, &i) && i < v->n)
            v = tv_item(v, (size_t)i, &r->a);
        else
            v = NULL;
        s += n + (end != NULL);
    }
    return v;
}

/* The attribute= argument's value of an item, an error if it has none. */
static TValue *item_attr(Rn *r, const Expr *e, TValue *item, const TValue *attr)
{
    if (attr->kind != TV_STR) {
        rerr(r, e, 0, 0, "'%s': an attribute is named by a string, not %s", e->name,
             a_kind(attr));
        return NULL;
    }
    TValue *v = attr_path(r, item, attr->s);
    if (!v)
        rerr(r, e, 0, 0, "'%s': an item has no attribute '%s'", e->name, attr->s);
    return v;
}

/* Finds one string in others: Knuth-Morris-Pratt, linear however the
 * two repeat themselves (a naive search of 'a' * 500000 ~ 'b' in
 * 'a' * 10**6 takes 10^11 steps).  Its table takes 4 bytes a byte of the
 * string sought, in the render's arena. */
typedef struct Finder {
    const char *s;
    size_t n;
    uint32_t *fail; /* fail[i]: the longest proper border of s[0..i] */
} Finder;

static Finder finder(Rn *r, const TValue *sought)
{
    Finder f = {sought->s, sought->n, NULL};
    if (f.n)
        f.fail = arena_alloc(&r->a, f.n * sizeof *f.fail);
    for (size_t i = 1, k = 0; i < f.n; i++) {
        while (k && f.s[i] != f.s[k])
            k = f.fail[k - 1];
        k += f.s[i] == f.s[k];
        f.fail[i] = (uint32_t)k;
    }
    return f;
}

/* Where f's string is first in s (n bytes) at or after `from`; SIZE_MAX
 * if nowhere.  The empty string is everywhere. */
static size_t find_from(const Finder *f, const char *s, size_t n, size_t from)
{
    if (!f->n)
        return from <= n ? from : SIZE_MAX;
    for (size_t i = from, k = 0; i < n; i++) {
        while (k && s[i] != f->s[k])
            k = f->fail[k - 1];
        k += s[i] == f->s[k];
        if (k == f->n)
            return i + 1 - f->n;
    }
    return SIZE_MAX;
}

static TValue *f_upper(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)args;
    WANT(v->kind == TV_STR, "a string");
    TValue *out = made_str(r, e, v->s, v->n);
    for (size_t i = 0; out && i < out->n; i++)
        ((char *)out->s)[i] = up(out->s[i]);
    return out;
}

static TValue *f_lower(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)args;
    WANT(v->kind == TV_STR, "a string");
    TValue *out = made_str(r, e, v->s, v->n);
    for (size_t i = 0; out && i < out->n; i++)
        ((char *)out->s)[i] = low(out->s[i]);
    return out;
}

/* capitalize: the first letter up, the others down */
static TValue *f_capitalize(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    TValue *out = f_lower(r, e, v, args);
    if (out && out->n)
        ((char *)out->s)[0] = up(out->s[0]);
    return out;
}

/* title: each word's first letter up, the others down; a word starts
 * after blanks, '-', '(', '{', '[' or '<' (Jinja's do_title) */
static TValue *f_title(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    TValue *out = f_lower(r, e, v, args);
    for (size_t i = 0; out && i < out->n; i++)
        if (i == 0 || strchr(" \t\n\r\f\v-({[<", out->s[i - 1]))
            ((char *)out->s)[i] = up(out->s[i]);
    return out;
}

static bool in_set(char c, const TValue *chars)
{
    if (!chars || chars->kind == TV_NONE)
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
    return memchr(chars->s, c, chars->n) != NULL;
}

/* strip, lstrip, rstrip, trim: blanks (or the characters of args[0]) off
 * one end or both */
static TValue *strip_ends(Rn *r, const Expr *e, TValue *v, TValue *const *args, bool left,
                          bool right)
{
    WANT(v->kind == TV_STR, "a string");
    const TValue *chars = args[0];
    if (chars && chars->kind != TV_STR && chars->kind != TV_NONE) {
        rerr(r, e, 0, 0, "'%s' strips the characters of a string, not of %s", e->name,
             a_kind(chars));
        return NULL;
    }
    size_t a = 0, b = v->n;
    while (left && a < b && in_set(v->s[a], chars))
        a++;
    while (right && b > a && in_set(v->s[b - 1], chars))
        b--;
    return tv_strn(&r->a, v->s + a, b - a);
}

static TValue *f_trim(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    return strip_ends(r, e, v, args, true, true);
}

static TValue *f_lstrip(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    return strip_ends(r, e, v, args, true, false);
}

static TValue *f_rstrip(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    return strip_ends(r, e, v, args, false, true);
}

/* The words of an identifier: cut at every character that is not a
 * letter or a digit ('-', '_', '.', blanks), before an upper-case letter
 * that follows a lower-case one or a digit (appStarted, v2Beta), before
 * the last of a run of upper-case letters that a lower-case one follows
 * (HTTPServer: HTTP, Server), and before a letter that follows a digit
 * (2fast: 2, fast).  Bytes above ASCII are letters of no case. */
typedef struct Word {
    size_t at, n;
} Word;
typedef VEC(Word) Words;

static void words_of(const TValue *v, Words *out)
{
    const char *s = v->s;
    size_t n = v->n, start = SIZE_MAX;
    for (size_t i = 0; i <= n; i++) {
        char c = i < n ? s[i] : 0;
        bool part = i < n && (is_up(c) || is_low(c) || is_dig(c) || (unsigned char)c >= 0x80);
        bool cut = false;
        if (part && start != SIZE_MAX && i > start) {
            char b = s[i - 1];
            if (is_up(c) && (is_low(b) || is_dig(b)))
                cut = true;
            else if (is_up(c) && is_up(b) && i + 1 < n && is_low(s[i + 1]))
                cut = true;
            else if ((is_up(c) || is_low(c)) && is_dig(b))
                cut = true;
        }
        if ((!part || cut) && start != SIZE_MAX) {
            Word w = {start, i - start};
            vec_push(out, w);
            start = SIZE_MAX;
        }
        if (part && start == SIZE_MAX)
            start = i;
    }
}

/* pascal, camel, snake, upper_snake: the words of words_of, each
 * capitalized and joined (pascal; camel: the first one lower case), or
 * lower or upper case and joined with '_' */
static TValue *identifier(Rn *r, const Expr *e, TValue *v, char style)
{
    WANT(v->kind == TV_STR, "a string");
    Words words = {0};
    words_of(v, &words);
    Buf b = {0};
    bool ok = str_room(r, e, 0, 0, v->n, words.n);
    for (size_t w = 0; ok && w < words.n; w++) {
        const char *s = v->s + words.v[w].at;
        if ((style == 's' || style == 'S') && w)
            buf_addc(&b, '_');
        for (size_t i = 0; i < words.v[w].n; i++) {
            bool first = i == 0 && (style == 'P' || (style == 'c' && w));
            buf_addc(&b, style == 'S' || first ? up(s[i]) : low(s[i]));
        }
    }
    vec_free(&words);
    return buf_value(r, &b, ok);
}

static TValue *f_pascal(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)args;
    return identifier(r, e, v, 'P');
}

static TValue *f_camel(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)args;
    return identifier(r, e, v, 'c');
}

static TValue *f_snake(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)args;
    return identifier(r, e, v, 's');
}

static TValue *f_upper_snake(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)args;
    return identifier(r, e, v, 'S');
}

/* ident: every character but an ASCII letter, digit or '_' made '_' (a
 * UTF-8 character is one), as mc names a C# method after a template id. */
static TValue *f_ident(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)args;
    WANT(v->kind == TV_STR, "a string");
    Buf b = {0};
    bool ok = str_room(r, e, 0, 0, v->n, 0);
    for (size_t i = 0; ok && i < v->n; i++) {
        char c = v->s[i];
        if ((c & 0xC0) == 0x80)
            continue; /* a UTF-8 character's continuation: one '_' made already */
        buf_addc(&b, is_up(c) || is_low(c) || is_dig(c) || c == '_' ? c : '_');
    }
    return buf_value(r, &b, ok);
}

static TValue *f_hex(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    WANT(v->kind == TV_INT, "an integer");
    int64_t width = args[0] && args[0]->kind == TV_INT ? args[0]->i : 0;
    if (width < 0 || width > 16) {
        rerr(r, e, 0, 0, "hex width %lld (0 to 16)", (long long)width);
        return NULL;
    }
    /* "0x%0*llX", without printf (see int_text) */
    char tmp[24], *p = tmp + sizeof tmp;
    uint64_t u = (uint64_t)v->i;
    do
        *--p = "0123456789ABCDEF"[u & 15];
    while (u >>= 4);
    while (tmp + sizeof tmp - p < width)
        *--p = '0';
    *--p = 'x';
    *--p = '0';
    return tv_strn(&r->a, p, (size_t)(tmp + sizeof tmp - p));
}

static TValue *f_cstring(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)args;
    TValue *str = as_string(r, e, v);
    if (!str)
        return NULL;
    Buf b = {0};
    bool ok = str_add(r, e, &b, "\"", 1);
    for (size_t i = 0; ok && i < str->n; i++) {
        unsigned char c = (unsigned char)str->s[i];
        char esc[8];
        if (c == '"' || c == '\\')
            ok = str_add(r, e, &b, (char[2]){'\\', (char)c}, 2);
        else if (c == '\n')
            ok = str_add(r, e, &b, "\\n", 2);
        else if (c == '\r')
            ok = str_add(r, e, &b, "\\r", 2);
        else if (c == '\t')
            ok = str_add(r, e, &b, "\\t", 2);
        else if (c < 0x20 || c == 0x7f)
            ok = str_add(r, e, &b, esc, (size_t)snprintf(esc, sizeof esc, "\\%03o", c));
        else
            ok = str_add(r, e, &b, (char *)&c, 1);
    }
    ok = ok && str_add(r, e, &b, "\"", 1);
    return buf_value(r, &b, ok);
}

/* join(d='', attribute=none) */
static TValue *f_join(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    if (!(v = as_list(r, e, v, "'join'")))
        return NULL;
    /* a separator that cannot be printed joins with nothing */
    char stmp[24], tmp[24];
    const char *sep = "", *s;
    size_t nsep = 0, n;
    if (args[0] && !text_of(args[0], stmp, &sep, &nsep))
        sep = "", nsep = 0;
    Buf b = {0};
    bool ok = true;
    for (size_t i = 0; ok && i < v->n; i++) {
        if (i)
            ok = str_add(r, e, &b, sep, nsep);
        TValue *item = ok ? item_counted(r, e, v, i) : NULL;
        if (item && args[1])
            item = item_attr(r, e, item, args[1]);
        if (!item)
            ok = false;
        else if (!text_of(item, tmp, &s, &n))
            ok = rerr(r, e, 0, 0, "join: %s cannot be printed", a_kind(item));
        ok = ok && str_add(r, e, &b, s, n);
    }
    return buf_value(r, &b, ok);
}

/* default(value='', boolean=false): the value for an undefined operand
 * (or none), or with boolean for a false one too */
static TValue *f_default(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)e;
    bool use = !v || v->kind == TV_NONE || (args[1] && truthy(args[1]) && !truthy(v));
    return !use ? v : args[0] ? args[0] : tv_strref(&r->a, "");
}

static TValue *f_length(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)args;
    WANT(v->kind == TV_STR || v->kind == TV_LIST || v->kind == TV_DICT,
         "a string, list or dictionary");
    if (v->kind == TV_STR) { /* characters, as Jinja counts them */
        size_t n = 0;
        for (size_t i = 0; i < v->n; i++)
            n += ((unsigned char)v->s[i] & 0xC0) != 0x80;
        return tv_int(&r->a, (int64_t)n);
    }
    return tv_int(&r->a, (int64_t)v->n);
}

/* replace(old, new, count=all) */
static TValue *f_replace(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    WANT(v->kind == TV_STR, "a string");
    const TValue *old = args[0], *new = args[1];
    if (old->kind != TV_STR || new->kind != TV_STR || !old->n ||
        (args[2] && args[2]->kind != TV_INT)) {
        rerr(r, e, 0, 0, "replace needs two strings, the first not empty (and a count)");
        return NULL;
    }
    int64_t left = args[2] && args[2]->i >= 0 ? args[2]->i : INT64_MAX;
    Buf b = {0};
    bool ok = true;
    Finder f = finder(r, old);
    for (size_t i = 0; ok && i < v->n;) {
        size_t at = left ? find_from(&f, v->s, v->n, i) : SIZE_MAX;
        ok = str_add(r, e, &b, v->s + i, (at == SIZE_MAX ? v->n : at) - i);
        if (at == SIZE_MAX)
            break;
        ok = ok && str_add(r, e, &b, new->s, new->n);
        i = at + old->n;
        left--;
    }
    return buf_value(r, &b, ok);
}

static TValue *f_indent(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    TValue *str = as_string(r, e, v);
    if (!str)
        return NULL;
    int64_t width = args[0] && args[0]->kind == TV_INT ? args[0]->i : 4;
    if (width < 0 || width > 64) {
        rerr(r, e, 0, 0, "indent width %lld (0 to 64)", (long long)width);
        return NULL;
    }
    char blanks[64];
    memset(blanks, ' ', sizeof blanks);
    Buf b = {0};
    bool ok = true;
    for (size_t i = 0; ok && i < str->n; i++) {
        ok = str_add(r, e, &b, str->s + i, 1);
        if (ok && str->s[i] == '\n' && i + 1 < str->n && str->s[i + 1] != '\n')
            ok = str_add(r, e, &b, blanks, (size_t)width);
    }
    return buf_value(r, &b, ok);
}

static TValue *f_first(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)args;
    if (!(v = as_list(r, e, v, "'first'")))
        return NULL;
    return v->n ? tv_item(v, 0, &r->a) : tv_none(&r->a);
}

static TValue *f_last(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)args;
    if (!(v = as_list(r, e, v, "'last'")))
        return NULL;
    return v->n ? tv_item(v, v->n - 1, &r->a) : tv_none(&r->a);
}

/* How to_json ended. */
typedef enum { JSON_DONE, JSON_MACRO, JSON_LONG } JsonEnd;

/* The value as compact JSON (jsonw.h) into out, stopping once out holds
 * more than max bytes (a generated list, range(10**18), may be any
 * length).  A generated list's items are made in a one at a time, each
 * given back once written. */
static JsonEnd to_json(JsonW *j, const TValue *v, Arena *a, const Buf *out, uint64_t max)
{
    JsonEnd end = JSON_DONE;
    switch (v->kind) {
    case TV_NONE: jsonw_null(j); break;
    case TV_BOOL: jsonw_bool(j, v->b); break;
    case TV_INT: jsonw_int(j, v->i); break;
    case TV_STR: jsonw_strn(j, v->s, v->n); break;
    case TV_LIST:
        jsonw_begin_list(j);
        for (size_t i = 0; i < v->n && !end; i++) {
            ArenaMark mark = arena_mark(a);
            end = out->len > max ? JSON_LONG : to_json(j, tv_item(v, i, a), a, out, max);
            arena_release(a, mark);
        }
        jsonw_end_list(j);
        break;
    case TV_DICT:
        jsonw_begin_object(j);
        for (size_t i = 0; i < v->n && !end; i++) {
            jsonw_key(j, v->keys[i]);
            end = to_json(j, v->items[i], a, out, max);
        }
        jsonw_end_object(j);
        break;
    case TV_MACRO: end = JSON_MACRO; break;
    }
    return end;
}

static TValue *f_tojson(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)args;
    Buf b = {0};
    JsonW j;
    jsonw_init(&j, &b, 0);
    TValue *out = NULL;
    JsonEnd end = to_json(&j, v, &r->a, &b, r->lim->max_string);
    if (end == JSON_MACRO)
        rerr(r, e, 0, 0, "filter 'tojson': a macro cannot be written as JSON");
    else if (end == JSON_LONG) /* past max: str_room says so */
        str_room(r, e, 0, 0, 0, b.len);
    else
        out = made_str(r, e, b.s, b.len);
    buf_free(&b);
    return out;
}

/* Python's %-formatting, as Jinja's format filter and the '%' operator
 * do it: %s %d %i %x %X %o %c %%, with flags '-', '0', '+', ' ', '#', a
 * width and (for %s) a precision. */
static TValue *format_values(Rn *r, const Expr *e, const TValue *fmt, TValue *const *args,
                             size_t nargs)
{
    Buf b = {0};
    bool ok = true;
    size_t used = 0;
    for (size_t i = 0; ok && i < fmt->n; i++) {
        if (fmt->s[i] != '%') {
            ok = str_add(r, e, &b, fmt->s + i, 1);
            continue;
        }
        char flags[8] = {0};
        size_t nf = 0;
        while (++i < fmt->n && strchr("-0+ #", fmt->s[i]) && nf < 7)
            flags[nf++] = fmt->s[i];
        uint64_t width = 0, prec = UINT64_MAX;
        /* a width or precision past 10^12 is as good as infinite: the
         * string limit refuses it */
        for (; i < fmt->n && is_dig(fmt->s[i]); i++)
            if (width < 1000000000000)
                width = width * 10 + (uint64_t)(fmt->s[i] - '0');
        if (i < fmt->n && fmt->s[i] == '.')
            for (prec = 0; ++i < fmt->n && is_dig(fmt->s[i]);)
                if (prec < 1000000000000)
                    prec = prec * 10 + (uint64_t)(fmt->s[i] - '0');
        char conv = i < fmt->n ? fmt->s[i] : 0;
        if (conv == '%') {
            ok = str_add(r, e, &b, "%", 1);
            continue;
        }
        if (!conv || !strchr("sdixXocr", conv)) {
            ok = rerr(r, e, 0, 0, "format: '%%%c' is not a conversion (%%s %%d %%i %%x %%X %%o "
                      "%%c %%%%)", conv ? conv : ' ');
            break;
        }
        if (used >= nargs) {
            ok = rerr(r, e, 0, 0, "format: not enough arguments for the format string");
            break;
        }
        const TValue *a = args[used++];
        char tmp[72], num[24];
        const char *s = NULL;
        size_t n = 0;
        if (conv == 's' || conv == 'r') {
            if (!text_of(a, num, &s, &n)) {
                ok = rerr(r, e, 0, 0, "format: %s cannot be printed", a_kind(a));
                break;
            }
            if (prec < n)
                n = (size_t)prec;
        } else if (conv == 'c') {
            if (a->kind != TV_STR || a->n != 1) {
                ok = rerr(r, e, 0, 0, "format: %%c needs one character");
                break;
            }
            s = a->s, n = 1;
        } else {
            if (a->kind != TV_INT && a->kind != TV_BOOL) {
                ok = rerr(r, e, 0, 0, "format: %%%c needs an integer, not %s", conv,
                          a_kind(a));
                break;
            }
            int64_t x = a->kind == TV_BOOL ? a->b : a->i;
            uint64_t u = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
            bool alt = memchr(flags, '#', nf) != NULL;
            const char *sign = x < 0 ? "-" : memchr(flags, '+', nf) ? "+"
                               : memchr(flags, ' ', nf) ? " " : "";
            const char *pre = !alt ? "" : conv == 'x' ? "0x" : conv == 'X' ? "0X"
                              : conv == 'o' ? "0o" : "";
            snprintf(tmp, sizeof tmp, conv == 'x' ? "%s%s%llx" : conv == 'X' ? "%s%s%llX"
                     : conv == 'o' ? "%s%s%llo" : "%s%s%llu", sign, pre, (unsigned long long)u);
            s = tmp, n = strlen(tmp);
            if (memchr(flags, '0', nf) && !memchr(flags, '-', nf) && width > n) {
                /* zeros after the sign and prefix */
                size_t head = strlen(sign) + strlen(pre);
                ok = str_add(r, e, &b, s, head) && str_room(r, e, 0, 0, b.len, width - n);
                for (uint64_t k = n; ok && k < width; k++)
                    buf_addc(&b, '0');
                s += head, n -= head, width = 0;
            }
        }
        bool left = memchr(flags, '-', nf) != NULL;
        uint64_t pad = width > n ? width - n : 0;
        ok = ok && str_room(r, e, 0, 0, b.len, pad) && str_room(r, e, 0, 0, b.len + pad, n);
        for (uint64_t k = 0; ok && !left && k < pad; k++)
            buf_addc(&b, ' ');
        if (ok)
            buf_add(&b, s, n);
        for (uint64_t k = 0; ok && left && k < pad; k++)
            buf_addc(&b, ' ');
    }
    if (ok && used < nargs)
        ok = rerr(r, e, 0, 0, "format: %zu arguments, the format string uses %zu", nargs, used);
    return buf_value(r, &b, ok);
}

static TValue *f_format(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    WANT(v->kind == TV_STR, "a format string");
    size_t n = 0;
    while (n < MAX_ARGS && args[n])
        n++;
    return format_values(r, e, v, args, n);
}

/* int(default=0, base=10): an integer, a boolean, or a string of one
 * (blanks around it, a sign, "0x" in base 16) as an integer; else the
 * default, as Jinja gives it */
static TValue *f_int(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    int64_t base = args[1] && args[1]->kind == TV_INT ? args[1]->i : 10;
    TValue *def = args[0] ? args[0] : tv_int(&r->a, 0);
    if (base < 2 || base > 36) {
        rerr(r, e, 0, 0, "int: base %lld (2 to 36)", (long long)base);
        return NULL;
    }
    if (v->kind == TV_INT)
        return v;
    if (v->kind == TV_BOOL)
        return tv_int(&r->a, v->b);
    if (v->kind != TV_STR)
        return def;
    size_t i = 0, n = v->n;
    while (i < n && in_set(v->s[i], NULL))
        i++;
    while (n > i && in_set(v->s[n - 1], NULL))
        n--;
    bool neg = i < n && v->s[i] == '-';
    i += i < n && (v->s[i] == '-' || v->s[i] == '+');
    if (base == 16 && n - i > 2 && v->s[i] == '0' && (v->s[i + 1] | 32) == 'x')
        i += 2;
    if (i == n)
        return def;
    uint64_t u = 0;
    for (size_t first = i; i < n; i++) {
        char c = low(v->s[i]);
        int d = is_dig(c) ? c - '0' : is_low(c) ? c - 'a' + 10 : 99;
        /* Python's 1_000: one '_' between two digits */
        if (c == '_' && i > first && i + 1 < n && v->s[i - 1] != '_')
            continue;
        if (d >= base)
            return def;
        if (u > (UINT64_MAX - (uint64_t)d) / (uint64_t)base || (u = u * (uint64_t)base + (uint64_t)d) >
            (uint64_t)INT64_MAX + neg) {
            rerr(r, e, 0, 0, "int: '%s' does not fit in 64 bits", v->s);
            return NULL;
        }
    }
    return tv_int(&r->a, neg ? (int64_t)(0 - u) : (int64_t)u);
}

static TValue *f_string(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)args;
    return as_string(r, e, v);
}

static TValue *f_abs(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)args;
    WANT(v->kind == TV_INT, "an integer");
    if (v->i == INT64_MIN) {
        rerr(r, e, 0, 0, "abs(%lld) does not fit in 64 bits", (long long)v->i);
        return NULL;
    }
    return v->i < 0 ? tv_int(&r->a, -v->i) : v;
}

static TValue *f_list(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)args;
    if (!(v = as_list(r, e, v, "'list'")))
        return NULL;
    TValue *out = tv_list(&r->a);
    for (size_t i = 0; i < v->n; i++) {
        TValue *item = item_counted(r, e, v, i);
        if (!item)
            return NULL;
        if (!list_add(r, e, out, item))
            return NULL;
    }
    return out;
}

static TValue *f_reverse(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    if (v->kind == TV_STR) {
        TValue *chars = as_list(r, e, v, "'reverse'");
        if (!chars)
            return NULL;
        Buf b = {0};
        for (size_t i = chars->n; i-- > 0;)
            buf_add(&b, chars->items[i]->s, chars->items[i]->n);
        return buf_value(r, &b, true);
    }
    TValue *l = f_list(r, e, v, args);
    for (size_t i = 0; l && i < l->n / 2; i++) {
        TValue *t = l->items[i];
        l->items[i] = l->items[l->n - 1 - i];
        l->items[l->n - 1 - i] = t;
    }
    return l;
}

/* -1, 0 or 1 as a is before, with or after b: integers (and booleans) by
 * value, strings by their bytes (fold: ASCII letters without their
 * case, Jinja's default), none with none; an error for the others. */
static int order(Rn *r, const Expr *e, const TValue *a, const TValue *b, bool fold)
{
    bool na = a->kind == TV_INT || a->kind == TV_BOOL, nb = b->kind == TV_INT || b->kind == TV_BOOL;
    if (na && nb) {
        int64_t x = a->kind == TV_BOOL ? a->b : a->i, y = b->kind == TV_BOOL ? b->b : b->i;
        return x < y ? -1 : x > y;
    }
    if (a->kind == TV_STR && b->kind == TV_STR) {
        size_t n = a->n < b->n ? a->n : b->n;
        for (size_t i = 0; i < n; i++) {
            unsigned char x = (unsigned char)(fold ? low(a->s[i]) : a->s[i]);
            unsigned char y = (unsigned char)(fold ? low(b->s[i]) : b->s[i]);
            if (x != y)
                return x < y ? -1 : 1;
        }
        return a->n < b->n ? -1 : a->n > b->n;
    }
    if (a->kind == TV_NONE && b->kind == TV_NONE)
        return 0;
    rerr(r, e, 0, 0, "cannot order %s and %s", a_kind(a), a_kind(b));
    return 0;
}

/* A list's items beside the values they are ordered or compared by. */
typedef struct Keyed {
    TValue *item, *key;
} Keyed;

/* Sorts k[0..n) by key, stable (Python's sort is), through tmp. */
static void merge_sort(Rn *r, const Expr *e, Keyed *k, Keyed *tmp, size_t n, bool fold,
                       bool rev)
{
    if (n < 2 || r->failed)
        return;
    size_t h = n / 2;
    merge_sort(r, e, k, tmp, h, fold, rev);
    merge_sort(r, e, k + h, tmp, n - h, fold, rev);
    size_t i = 0, j = h, o = 0;
    while (i < h && j < n) {
        int c = order(r, e, k[j].key, k[i].key, fold);
        tmp[o++] = (rev ? c > 0 : c < 0) ? k[j++] : k[i++];
    }
    while (i < h)
        tmp[o++] = k[i++];
    while (j < n)
        tmp[o++] = k[j++];
    memcpy(k, tmp, n * sizeof *k);
}

/* The items of v (a list, a dictionary's keys, a string's characters),
 * each with its key: the item, or its attribute `attr`. */
static Keyed *keyed(Rn *r, const Expr *e, TValue *v, const TValue *attr, size_t *n)
{
    if (!(v = as_list(r, e, v, NULL)))
        return NULL;
    /* grown as the walk goes: a generated list's length (range) is no
     * measure of what the walk will be allowed to take */
    Keyed *k = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < v->n; i++) {
        TValue *item = item_counted(r, e, v, i);
        if (!item)
            return NULL;
        if (!list_room(r, e, i))
            return NULL;
        if (i == cap) {
            cap = cap ? 2 * cap : 16;
            Keyed *more = arena_alloc(&r->a, cap * sizeof *more);
            if (i)
                memcpy(more, k, i * sizeof *k);
            k = more;
        }
        k[i].item = item;
        k[i].key = attr ? item_attr(r, e, k[i].item, attr) : k[i].item;
        if (!k[i].key)
            return NULL;
    }
    *n = v->n;
    return k ? k : arena_alloc(&r->a, sizeof *k);
}

/* sort(reverse=false, case_sensitive=false, attribute=none) */
static TValue *f_sort(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    size_t n = 0;
    Keyed *k = keyed(r, e, v, args[2], &n);
    if (!k)
        return NULL;
    Keyed *tmp = arena_alloc(&r->a, (n ? n : 1) * sizeof *tmp);
    merge_sort(r, e, k, tmp, n, !(args[1] && truthy(args[1])), args[0] && truthy(args[0]));
    TValue *out = tv_list(&r->a);
    for (size_t i = 0; i < n; i++)
        tv_push(&r->a, out, k[i].item);
    return r->failed ? NULL : out;
}

/* unique(case_sensitive=false, attribute=none): the first item of each
 * key, in order; keys are none, booleans, integers or strings (Jinja's:
 * what Python can hash), found through a hash map */
static TValue *f_unique(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    size_t n = 0;
    Keyed *k = keyed(r, e, v, args[1], &n);
    if (!k)
        return NULL;
    bool fold = !(args[0] && truthy(args[0]));
    Map seen = {0};
    TValue *out = tv_list(&r->a);
    for (size_t i = 0; i < n; i++) {
        const TValue *key = k[i].key;
        char tmp[24];
        const char *s;
        size_t len;
        if (key->kind > TV_STR || !text_of(key, tmp, &s, &len)) {
            rerr(r, e, 0, 0, "'unique' compares none, booleans, integers and strings, not %s",
                 a_kind(key));
            break;
        }
        /* the kind first: 1 and "1" are two keys */
        char *text = arena_alloc(&r->a, len + 2);
        text[0] = (char)('a' + key->kind);
        for (size_t c = 0; c < len; c++)
            text[c + 1] = fold ? low(s[c]) : s[c];
        text[len + 1] = 0;
        if (!map_get(&seen, text)) {
            map_put(&seen, text, text, false);
            tv_push(&r->a, out, k[i].item);
        }
    }
    map_free(&seen);
    return r->failed ? NULL : out;
}

/* min, max (case_sensitive=false, attribute=none) */
static TValue *min_max(Rn *r, const Expr *e, TValue *v, TValue *const *args, int sign)
{
    size_t n = 0;
    Keyed *k = keyed(r, e, v, args[1], &n);
    if (!k)
        return NULL;
    size_t best = 0;
    for (size_t i = 1; i < n && !r->failed; i++)
        if (order(r, e, k[i].key, k[best].key, !(args[0] && truthy(args[0]))) * sign > 0)
            best = i;
    return r->failed ? NULL : n ? k[best].item : tv_none(&r->a);
}

static TValue *f_min(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    return min_max(r, e, v, args, -1);
}

static TValue *f_max(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    return min_max(r, e, v, args, 1);
}

/* sum(attribute=none, start=0), checked */
static TValue *f_sum(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    if (!(v = as_list(r, e, v, "'sum'")))
        return NULL;
    if (args[1] && args[1]->kind != TV_INT) {
        rerr(r, e, 0, 0, "'sum' starts from an integer, not %s", a_kind(args[1]));
        return NULL;
    }
    int64_t total = args[1] ? args[1]->i : 0;
    for (size_t i = 0; i < v->n; i++) {
        TValue *item = item_counted(r, e, v, i);
        if (item && args[0])
            item = item_attr(r, e, item, args[0]);
        if (!item)
            return NULL;
        if (item->kind != TV_INT) {
            rerr(r, e, 0, 0, "'sum' adds integers, not %s", a_kind(item));
            return NULL;
        }
        if (__builtin_add_overflow(total, item->i, &total)) {
            rerr(r, e, 0, 0, "the sum does not fit in 64 bits");
            return NULL;
        }
    }
    return tv_int(&r->a, total);
}

/* items (the filter, and a dictionary's method): [key, value] lists */
static TValue *f_items(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)args;
    WANT(v->kind == TV_DICT, "a dictionary");
    TValue *out = tv_list(&r->a);
    for (size_t i = 0; i < v->n; i++) {
        TValue *pair = tv_list(&r->a);
        tv_push(&r->a, pair, tv_strref(&r->a, v->keys[i]));
        tv_push(&r->a, pair, v->items[i]);
        if (!nested(r, e, pair))
            return NULL;
        tv_push(&r->a, out, pair);
    }
    return nested(r, e, out) ? out : NULL;
}

/* dictsort(case_sensitive=false, by='key', reverse=false) */
static TValue *f_dictsort(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    TValue *pairs = f_items(r, e, v, args);
    if (!pairs)
        return NULL;
    bool by_value = args[1] && args[1]->kind == TV_STR && strcmp(args[1]->s, "value") == 0;
    if (args[1] && !(args[1]->kind == TV_STR &&
                     (by_value || strcmp(args[1]->s, "key") == 0))) {
        rerr(r, e, 0, 0, "'dictsort' sorts by 'key' or 'value'");
        return NULL;
    }
    size_t n = pairs->n;
    Keyed *k = arena_alloc(&r->a, (n ? n : 1) * sizeof *k), *tmp = arena_alloc(&r->a, (n ? n : 1) * sizeof *k);
    for (size_t i = 0; i < n; i++)
        k[i].item = pairs->items[i], k[i].key = pairs->items[i]->items[by_value];
    merge_sort(r, e, k, tmp, n, !(args[0] && truthy(args[0])), args[2] && truthy(args[2]));
    for (size_t i = 0; i < n; i++)
        pairs->items[i] = k[i].item;
    return r->failed ? NULL : pairs;
}

static TValue *apply_sub(Rn *r, const Expr *e, const Filter *f, TValue *v,
                         TValue *const *extra, size_t nextra);

/* map(filter, args...) or map(attribute=name, default=value) */
static TValue *f_map(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    if (!(v = as_list(r, e, v, "'map'")))
        return NULL;
    if (!e->sub && !args[4]) {
        rerr(r, e, 0, 0, "'map' needs a filter's name or attribute=");
        return NULL;
    }
    TValue *out = tv_list(&r->a);
    for (size_t i = 0; i < v->n; i++) {
        TValue *item = item_counted(r, e, v, i);
        if (item && e->sub)
            item = apply_sub(r, e, e->sub, item, args + 1, 3);
        else if (item) {
            TValue *a = args[4]->kind == TV_STR ? attr_path(r, item, args[4]->s) : NULL;
            item = a ? a : args[5] ? args[5] : item_attr(r, e, item, args[4]);
        }
        if (!item || !list_add(r, e, out, item))
            return NULL;
    }
    return out;
}

/* select/reject(test, arg), selectattr/rejectattr(attribute, test, arg):
 * the items whose (attribute's) test is true, or false; without a test,
 * whether it is true */
static TValue *choose(Rn *r, const Expr *e, TValue *v, const TValue *attr, TValue *const *targs,
                      bool keep)
{
    if (!(v = as_list(r, e, v, "'select'")))
        return NULL;
    TValue *out = tv_list(&r->a);
    for (size_t i = 0; i < v->n; i++) {
        TValue *item = item_counted(r, e, v, i), *of = item;
        if (item && attr) {
            if (attr->kind != TV_STR) {
                rerr(r, e, 0, 0, "'%s': an attribute is named by a string, not %s", e->name,
                     a_kind(attr));
                return NULL;
            }
            /* an item without it is undefined, as for "is defined" */
            of = attr_path(r, item, attr->s);
        }
        if (!item)
            return NULL;
        bool yes;
        if (e->sub) {
            if (!of && !e->sub->undefined_ok) {
                item_attr(r, e, item, attr);
                return NULL;
            }
            TValue *t = apply_sub(r, e, e->sub, of, targs, 1);
            if (!t)
                return NULL;
            yes = t->b;
        } else {
            yes = of && truthy(of);
        }
        if (yes == keep && !list_add(r, e, out, item))
            return NULL;
    }
    return out;
}

static TValue *f_select(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    return choose(r, e, v, NULL, args + 1, true);
}

static TValue *f_reject(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    return choose(r, e, v, NULL, args + 1, false);
}

static TValue *f_selectattr(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    return choose(r, e, v, args[0], args + 2, true);
}

static TValue *f_rejectattr(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    return choose(r, e, v, args[0], args + 2, false);
}

/* The built-in filters (docs/templates.md lists them). */
static const Filter filters[] = {
    {"abs", 0, 0, NULL, false, f_abs, -1, false, 0},
    {"camel", 0, 0, NULL, false, f_camel, -1, false, 0},
    {"capitalize", 0, 0, NULL, false, f_capitalize, -1, false, 0},
    {"count", 0, 0, NULL, false, f_length, -1, false, 0},
    {"cstring", 0, 0, NULL, false, f_cstring, -1, false, 0},
    {"d", 0, 2, "default_value,boolean", true, f_default, -1, false, 0},
    {"default", 0, 2, "default_value,boolean", true, f_default, -1, false, 0},
    {"dictsort", 0, 3, "case_sensitive,by,reverse", false, f_dictsort, -1, false, 0},
    {"first", 0, 0, NULL, false, f_first, -1, false, 0},
    {"format", 0, MAX_ARGS, NULL, false, f_format, -1, false, 0},
    {"hex", 0, 1, "width", false, f_hex, -1, false, 0},
    {"ident", 0, 0, NULL, false, f_ident, -1, false, 0},
    {"indent", 0, 1, "width", false, f_indent, -1, false, 0},
    {"int", 0, 2, "default,base", false, f_int, -1, false, 0},
    {"items", 0, 0, NULL, false, f_items, -1, false, 0},
    {"join", 0, 2, "d,attribute", false, f_join, -1, false, 0},
    {"last", 0, 0, NULL, false, f_last, -1, false, 0},
    {"length", 0, 0, NULL, false, f_length, -1, false, 0},
    {"list", 0, 0, NULL, false, f_list, -1, false, 0},
    {"lower", 0, 0, NULL, false, f_lower, -1, false, 0},
    {"map", 0, 4, "filter,arg1,arg2,arg3,attribute,default", false, f_map, 0, false, 0},
    {"max", 0, 2, "case_sensitive,attribute", false, f_max, -1, false, 0},
    {"min", 0, 2, "case_sensitive,attribute", false, f_min, -1, false, 0},
    {"pascal", 0, 0, NULL, false, f_pascal, -1, false, 0},
    {"reject", 0, 2, "test,arg", false, f_reject, 0, true, 0},
    {"rejectattr", 1, 3, "attribute,test,arg", false, f_rejectattr, 1, true, 0},
    {"replace", 2, 3, "old,new,count", false, f_replace, -1, false, 0},
    {"reverse", 0, 0, NULL, false, f_reverse, -1, false, 0},
    {"select", 0, 2, "test,arg", false, f_select, 0, true, 0},
    {"selectattr", 1, 3, "attribute,test,arg", false, f_selectattr, 1, true, 0},
    {"snake", 0, 0, NULL, false, f_snake, -1, false, 0},
    {"sort", 0, 3, "reverse,case_sensitive,attribute", false, f_sort, -1, false, 0},
    {"string", 0, 0, NULL, false, f_string, -1, false, 0},
    {"sum", 0, 2, "attribute,start", false, f_sum, -1, false, 0},
    {"title", 0, 0, NULL, false, f_title, -1, false, 0},
    {"tojson", 0, 0, NULL, false, f_tojson, -1, false, 0},
    {"trim", 0, 1, "chars", false, f_trim, -1, false, 0},
    {"unique", 0, 2, "case_sensitive,attribute", false, f_unique, -1, false, 0},
    {"upper", 0, 0, NULL, false, f_upper, -1, false, 0},
    {"upper_snake", 0, 0, NULL, false, f_upper_snake, -1, false, 0},
};
static const size_t nfilters = sizeof filters / sizeof *filters;

/* ---- tests: x is name(args); v is NULL for an undefined operand (only
 * the rows with undefined_ok see one) ---- */

static TValue *yes(Rn *r, bool b) { return tv_bool(&r->a, b); }

static TValue *t_defined(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)e, (void)args;
    return yes(r, v != NULL);
}

static TValue *t_undefined(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)e, (void)args;
    return yes(r, v == NULL);
}

/* the kind tests: none, boolean, integer, number, string, mapping,
 * sequence, iterable, callable (by the test's name) */
static TValue *t_kind(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)args;
    const char *t = e->filter->name;
    TValueKind k = v->kind;
    bool b = IS(t, "none")       ? k == TV_NONE
             : IS(t, "boolean")  ? k == TV_BOOL
             : IS(t, "true")     ? k == TV_BOOL && v->b
             : IS(t, "false")    ? k == TV_BOOL && !v->b
             : IS(t, "integer") || IS(t, "number") ? k == TV_INT
             : IS(t, "string")   ? k == TV_STR
             : IS(t, "mapping")  ? k == TV_DICT
             : IS(t, "callable") ? k == TV_MACRO
             : /* sequence, iterable */ k == TV_STR || k == TV_LIST || k == TV_DICT;
    return yes(r, b);
}

static TValue *t_parity(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)args;
    WANT(v->kind == TV_INT, "an integer");
    const char *t = e->filter->name;
    return yes(r, (v->i % 2 == 0) == (t[0] == 'e'));
}

static TValue *t_divisibleby(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    WANT(v->kind == TV_INT && args[0]->kind == TV_INT, "integers");
    if (args[0]->i == 0) {
        rerr(r, e, 0, 0, "%lld is divisibleby 0 divides by zero", (long long)v->i);
        return NULL;
    }
    return yes(r, args[0]->i == -1 || v->i % args[0]->i == 0);
}

/* eq ne lt le gt ge, and their symbols for select('==', 1) */
static TValue *t_compare(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    const char *t = e->filter->name;
    if (IS(t, "eq") || IS(t, "equalto") || IS(t, "=="))
        return yes(r, equal(v, args[0]));
    if (IS(t, "ne") || IS(t, "!="))
        return yes(r, !equal(v, args[0]));
    int c = order(r, e, v, args[0], false);
    if (r->failed)
        return NULL;
    bool b = IS(t, "lt") || IS(t, "<") ? c < 0 : IS(t, "le") || IS(t, "<=") ? c <= 0
             : IS(t, "gt") || IS(t, ">") ? c > 0 : c >= 0;
    return yes(r, b);
}

static TValue *t_sameas(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)e;
    const TValue *o = args[0];
    /* none, true and false are one value each in Python */
    bool b = v->kind <= TV_BOOL && o->kind == v->kind ? equal(v, o) : v == o;
    return yes(r, b);
}

static bool contains(Rn *r, const Expr *e, const TValue *a, const TValue *b, bool *in);

static TValue *t_in(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    bool in;
    return contains(r, e, v, args[0], &in) ? yes(r, in) : NULL;
}

/* lower, upper: a string with letters of that case only */
static TValue *t_case(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)args;
    WANT(v->kind == TV_STR, "a string");
    const char *t = e->filter->name;
    bool any = false, other = false;
    for (size_t i = 0; i < v->n; i++) {
        any |= t[0] == 'l' ? is_low(v->s[i]) : is_up(v->s[i]);
        other |= t[0] == 'l' ? is_up(v->s[i]) : is_low(v->s[i]);
    }
    return yes(r, any && !other);
}

static const Filter tests[] = {
    {"!=", 1, 1, "other", false, t_compare, -1, false, 0},
    {"<", 1, 1, "other", false, t_compare, -1, false, 0},
    {"<=", 1, 1, "other", false, t_compare, -1, false, 0},
    {"==", 1, 1, "other", false, t_compare, -1, false, 0},
    {">", 1, 1, "other", false, t_compare, -1, false, 0},
    {">=", 1, 1, "other", false, t_compare, -1, false, 0},
    {"boolean", 0, 0, NULL, false, t_kind, -1, false, 0},
    {"callable", 0, 0, NULL, false, t_kind, -1, false, 0},
    {"defined", 0, 0, NULL, true, t_defined, -1, false, 0},
    {"divisibleby", 1, 1, "num", false, t_divisibleby, -1, false, 0},
    {"eq", 1, 1, "other", false, t_compare, -1, false, 0},
    {"equalto", 1, 1, "other", false, t_compare, -1, false, 0},
    {"even", 0, 0, NULL, false, t_parity, -1, false, 0},
    {"false", 0, 0, NULL, false, t_kind, -1, false, 0},
    {"ge", 1, 1, "other", false, t_compare, -1, false, 0},
    {"gt", 1, 1, "other", false, t_compare, -1, false, 0},
    {"in", 1, 1, "seq", false, t_in, -1, false, 0},
    {"integer", 0, 0, NULL, false, t_kind, -1, false, 0},
    {"iterable", 0, 0, NULL, false, t_kind, -1, false, 0},
    {"le", 1, 1, "other", false, t_compare, -1, false, 0},
    {"lower", 0, 0, NULL, false, t_case, -1, false, 0},
    {"lt", 1, 1, "other", false, t_compare, -1, false, 0},
    {"mapping", 0, 0, NULL, false, t_kind, -1, false, 0},
    {"ne", 1, 1, "other", false, t_compare, -1, false, 0},
    {"none", 0, 0, NULL, false, t_kind, -1, false, 0},
    {"number", 0, 0, NULL, false, t_kind, -1, false, 0},
    {"odd", 0, 0, NULL, false, t_parity, -1, false, 0},
    {"sameas", 1, 1, "other", false, t_sameas, -1, false, 0},
    {"sequence", 0, 0, NULL, false, t_kind, -1, false, 0},
    {"string", 0, 0, NULL, false, t_kind, -1, false, 0},
    {"true", 0, 0, NULL, false, t_kind, -1, false, 0},
    {"undefined", 0, 0, NULL, true, t_undefined, -1, false, 0},
    {"upper", 0, 0, NULL, false, t_case, -1, false, 0},
};
static const size_t ntests = sizeof tests / sizeof *tests;

/* ---- methods: x.name(args) ---- */

static TValue *m_startswith(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    const TValue *a = args[0];
    if (a->kind != TV_STR) {
        rerr(r, e, 0, 0, "'%s' needs a string, not %s", e->name, a_kind(a));
        return NULL;
    }
    bool start = e->name[0] == 's';
    return yes(r, a->n <= v->n && memcmp(v->s + (start ? 0 : v->n - a->n), a->s, a->n) == 0);
}

/* split(sep=none, maxsplit=-1): at runs of blanks without sep, as
 * Python splits */
static TValue *m_split(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    const TValue *sep = args[0] && args[0]->kind != TV_NONE ? args[0] : NULL;
    if ((sep && (sep->kind != TV_STR || !sep->n)) || (args[1] && args[1]->kind != TV_INT)) {
        rerr(r, e, 0, 0, "'split' needs a separator that is a string, not empty, and a count");
        return NULL;
    }
    int64_t left = args[1] && args[1]->i >= 0 ? args[1]->i : INT64_MAX;
    TValue *out = tv_list(&r->a);
    size_t i = 0;
    if (!sep) {
        for (;;) {
            while (i < v->n && in_set(v->s[i], NULL))
                i++;
            if (i == v->n)
                break;
            size_t k = i;
            while (k < v->n && (!left || !in_set(v->s[k], NULL)))
                k++;
            if (!list_add(r, e, out, tv_strn(&r->a, v->s + i, k - i)))
                return NULL;
            left -= left > 0;
            i = k;
        }
        return out;
    }
    Finder f = finder(r, sep);
    for (;;) {
        size_t k = left ? find_from(&f, v->s, v->n, i) : SIZE_MAX;
        if (k == SIZE_MAX)
            return list_add(r, e, out, tv_strn(&r->a, v->s + i, v->n - i)) ? out : NULL;
        if (!list_add(r, e, out, tv_strn(&r->a, v->s + i, k - i)))
            return NULL;
        left--;
        i = k + sep->n;
    }
}

/* sep.join(list) */
static TValue *m_join(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    TValue *two[2] = {v, NULL};
    return f_join(r, e, args[0], two);
}

/* find(sub) and count(sub): bytes, as the strings are */
static TValue *m_find(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    const TValue *a = args[0];
    if (a->kind != TV_STR) {
        rerr(r, e, 0, 0, "'%s' needs a string, not %s", e->name, a_kind(a));
        return NULL;
    }
    Finder f = finder(r, a);
    size_t at = find_from(&f, v->s, v->n, 0);
    if (e->name[0] != 'c')
        return tv_int(&r->a, at == SIZE_MAX ? -1 : (int64_t)at);
    int64_t n = 0; /* Python's count: non-overlapping, '' once a position */
    for (; at != SIZE_MAX; n++)
        at = find_from(&f, v->s, v->n, at + (a->n ? a->n : 1));
    return tv_int(&r->a, n);
}

static TValue *m_keys_values(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)args;
    TValue *out = tv_list(&r->a);
    for (size_t i = 0; i < v->n; i++)
        tv_push(&r->a, out, e->name[0] == 'k' ? tv_strref(&r->a, v->keys[i]) : v->items[i]);
    return out;
}

static TValue *m_get(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)e;
    TValue *got = args[0]->kind == TV_STR ? tv_get(v, args[0]->s) : NULL;
    return got ? got : args[1] ? args[1] : tv_none(&r->a);
}

/* loop.cycle(a, b, ...): the argument of this iteration, in turn */
static TValue *m_cycle(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    const TValue *i = tv_get(v, "index0");
    size_t n = 0;
    while (n < MAX_ARGS && args[n])
        n++;
    if (!i || i->kind != TV_INT) {
        rerr(r, e, 0, 0, "'cycle' is a method of 'loop'");
        return NULL;
    }
    return args[(size_t)i->i % n];
}

static TValue *m_replace(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    return f_replace(r, e, v, args);
}

/* The methods, by the kind of value that has them (Python's names). */
static const Filter methods[] = {
    {"capitalize", 0, 0, NULL, false, f_capitalize, -1, false, TV_STR},
    {"count", 1, 1, NULL, false, m_find, -1, false, TV_STR},
    {"endswith", 1, 1, NULL, false, m_startswith, -1, false, TV_STR},
    {"find", 1, 1, NULL, false, m_find, -1, false, TV_STR},
    {"join", 1, 1, NULL, false, m_join, -1, false, TV_STR},
    {"lower", 0, 0, NULL, false, f_lower, -1, false, TV_STR},
    {"lstrip", 0, 1, NULL, false, f_lstrip, -1, false, TV_STR},
    {"replace", 2, 3, NULL, false, m_replace, -1, false, TV_STR},
    {"rstrip", 0, 1, NULL, false, f_rstrip, -1, false, TV_STR},
    {"split", 0, 2, NULL, false, m_split, -1, false, TV_STR},
    {"startswith", 1, 1, NULL, false, m_startswith, -1, false, TV_STR},
    {"strip", 0, 1, NULL, false, f_trim, -1, false, TV_STR},
    {"title", 0, 0, NULL, false, f_title, -1, false, TV_STR},
    {"upper", 0, 0, NULL, false, f_upper, -1, false, TV_STR},
    {"cycle", 1, MAX_ARGS, NULL, false, m_cycle, -1, false, TV_DICT},
    {"get", 1, 2, NULL, false, m_get, -1, false, TV_DICT},
    {"items", 0, 0, NULL, false, f_items, -1, false, TV_DICT},
    {"keys", 0, 0, NULL, false, m_keys_values, -1, false, TV_DICT},
    {"values", 0, 0, NULL, false, m_keys_values, -1, false, TV_DICT},
};

#undef WANT

/* A filter or test that an argument named (map('upper'), select('odd')),
 * on v with the arguments after that one: its own row's checks, at the
 * naming filter's place. */
static TValue *apply_sub(Rn *r, const Expr *e, const Filter *f, TValue *v,
                         TValue *const *extra, size_t nextra)
{
    TValue *args[MAX_ARGS] = {0};
    size_t n = 0;
    while (n < nextra && extra[n])
        args[n] = extra[n], n++;
    if (n < (size_t)f->min_args || n > (size_t)f->max_args) {
        rerr(r, e, 0, 0, "'%s' takes %d to %d arguments, not %zu", f->name, f->min_args,
             f->max_args, n);
        return NULL;
    }
    if (!v && !f->undefined_ok) {
        rerr(r, e, 0, 0, "'%s' of an undefined value", f->name);
        return NULL;
    }
    /* the row's functions look at their own name: e as the sub's */
    Expr as = *e;
    as.filter = f, as.sub = NULL, as.name = f->name;
    return f->apply(r, &as, v, args);
}
/* ---- evaluating ---- */

/* Whether a and b are equal: by value, lists item by item and
 * dictionaries key by key (as in Jinja), each item compared counted as
 * an iteration (a generated list may be long); false after an error. */
static bool equal_in(Rn *r, const Expr *e, const TValue *a, const TValue *b, bool *eq)
{
    *eq = false;
    if (a->kind != b->kind || (a->kind >= TV_LIST && a->n != b->n))
        return true;
    switch (a->kind) {
    case TV_NONE: *eq = true; return true;
    case TV_BOOL: *eq = a->b == b->b; return true;
    case TV_INT: *eq = a->i == b->i; return true;
    case TV_STR: *eq = a->n == b->n && memcmp(a->s, b->s, a->n) == 0; return true;
    case TV_MACRO: *eq = a->macro == b->macro; return true;
    case TV_LIST:
    case TV_DICT:
        if (a == b) {
            *eq = true;
            return true;
        }
        for (size_t i = 0; i < a->n; i++) {
            if (!count_work(r, e, 0, 0))
                return false;
            const TValue *x = tv_item(a, i, &r->a), *y;
            if (a->kind == TV_DICT) {
                if (!(y = tv_get(b, a->keys[i])))
                    return true;
            } else {
                y = tv_item(b, i, &r->a);
            }
            if (!enter(r, e->line, e->col))
                return false;
            bool ok = equal_in(r, e, x, y, eq);
            r->nest--;
            if (!ok || !*eq)
                return ok;
        }
        *eq = true;
        return true;
    }
    return true;
}

/* a in b: an item of a list, a key of a dictionary, a part of a string */
static bool contains(Rn *r, const Expr *e, const TValue *a, const TValue *b, bool *in)
{
    *in = false;
    if (b->kind == TV_LIST) {
        for (size_t i = 0; i < b->n && !*in; i++) {
            TValue *item = item_counted(r, e, b, i);
            if (!item || !equal_in(r, e, a, item, in))
                return false;
        }
        return true;
    }
    if (b->kind == TV_DICT) {
        *in = a->kind == TV_STR && tv_get(b, a->s) != NULL;
        return true;
    }
    if (b->kind == TV_STR && a->kind == TV_STR) {
        Finder f = finder(r, a);
        *in = find_from(&f, b->s, b->n, 0) != SIZE_MAX;
        return true;
    }
    return rerr(r, e, 0, 0, "'in' needs a list, dictionary or string on its right, not %s",
                a_kind(b));
}

/* "no attribute 'nmae' (did you mean 'name'? the keys are: name, n)":
 * the keys a dictionary has, the nearest first */
static void no_key(Rn *r, const Expr *e, const char *what, const char *key, const TValue *d)
{
    Near near = {key, NULL, 0};
    for (size_t i = 0; i < d->n; i++)
        near_try(&near, d->keys[i]);
    Buf b = {0};
    if (near.best)
        buf_printf(&b, "did you mean '%s'? ", near.best);
    if (!d->n)
        buf_adds(&b, "the dictionary is empty");
    else
        buf_adds(&b, "the keys are: ");
    for (size_t i = 0; i < d->n && i < 12; i++)
        buf_printf(&b, "%s%s", i ? ", " : "", d->keys[i]);
    if (d->n > 12)
        buf_printf(&b, " and %zu more", d->n - 12);
    rerr(r, e, 0, 0, "no %s '%s' (%s)", what, key, b.s);
    buf_free(&b);
}

/* x * n for a string or list x: n copies, within the string limit or
 * counted as iterations */
static TValue *repeat(Rn *r, const Expr *e, TValue *x, int64_t n)
{
    if (n < 0)
        n = 0;
    if (x->kind == TV_STR) {
        if (x->n && !str_room(r, e, 0, 0, 0, (uint64_t)n > SIZE_MAX / x->n ? SIZE_MAX
                                                                            : x->n * (size_t)n))
            return NULL;
        Buf b = {0};
        for (int64_t i = 0; i < n && x->n; i++)
            buf_add(&b, x->s, x->n);
        return buf_value(r, &b, true);
    }
    TValue *out = tv_list(&r->a);
    for (int64_t k = 0; k < n; k++)
        for (size_t i = 0; i < x->n; i++) {
            TValue *item = item_counted(r, e, x, i);
            if (!item || !list_add(r, e, out, item))
                return NULL;
        }
    out->depth = x->depth;
    return out;
}

/* a ** b, checked; a negative exponent would make a float */
static bool power(int64_t a, int64_t b, int64_t *out)
{
    int64_t v = 1;
    while (b > 0) {
        if ((b & 1) && __builtin_mul_overflow(v, a, &v))
            return false;
        b >>= 1;
        if (b && __builtin_mul_overflow(a, a, &a))
            return false;
    }
    *out = v;
    return true;
}

static const char *op_text(int op)
{
    switch (op) {
    case T_FLOORDIV: return "//";
    case T_POW: return "**";
    case '+': return "+";
    case '-': return "-";
    case '*': return "*";
    case '/': return "/";
    case '~': return "~";
    default: return "%";
    }
}

/* The integer operators: + - * / // % **, each checked: a result that
 * does not fit in 64 bits, or a division by zero, is an error at the
 * operator.  '/' gives the quotient when it is whole; the language has
 * no floats, so 7 / 2 is an error that points to '//'. */
static TValue *arith(Rn *r, const Expr *e, int64_t a, int64_t b)
{
    int64_t v = 0;
    bool fits = true;
    const char *o = op_text(e->op);
    switch (e->op) {
    case '+': fits = !__builtin_add_overflow(a, b, &v); break;
    case '-': fits = !__builtin_sub_overflow(a, b, &v); break;
    case '*': fits = !__builtin_mul_overflow(a, b, &v); break;
    case T_POW:
        if (b < 0) {
            rerr(r, e, 0, 0, "%lld ** %lld is not a whole number (there are no floats)",
                 (long long)a, (long long)b);
            return NULL;
        }
        fits = power(a, b, &v);
        break;
    default: /* / // % */
        if (b == 0) {
            rerr(r, e, 0, 0, "%lld %s 0 divides by zero", (long long)a, o);
            return NULL;
        }
        if (a == INT64_MIN && b == -1) {
            fits = e->op == '%';
            break;
        }
        v = a / b;
        int64_t m = a % b;
        if (e->op == '/' && m) {
            rerr(r, e, 0, 0, "%lld / %lld is not a whole number (there are no floats: '//' "
                 "divides and rounds down)", (long long)a, (long long)b);
            return NULL;
        }
        /* Python's: the quotient rounded down, the remainder of the
         * divisor's sign */
        if (m && (m < 0) != (b < 0))
            v--, m += b;
        v = e->op == '%' ? m : v;
    }
    if (!fits) {
        rerr(r, e, 0, 0, "%lld %s %lld does not fit in 64 bits", (long long)a, o, (long long)b);
        return NULL;
    }
    return tv_int(&r->a, v);
}

/* a ~ b: the printed forms joined, made in place (its length is known
 * before anything is copied) */
static TValue *concat(Rn *r, const Expr *e, const TValue *a, const TValue *b)
{
    char ta[24], tb[24];
    const char *sa, *sb;
    size_t na, nb;
    if (!text_of(a, ta, &sa, &na) || !text_of(b, tb, &sb, &nb)) {
        rerr(r, e, 0, 0, "'~' joins printable values");
        return NULL;
    }
    if (!str_room(r, e, 0, 0, na, nb))
        return NULL;
    char *p = arena_alloc(&r->a, na + nb + 1);
    memcpy(p, sa, na);
    memcpy(p + na, sb, nb);
    TValue *v = tv_new(&r->a, TV_STR);
    v->s = p;
    v->n = na + nb;
    return v;
}

static TValue *binary(Rn *r, const Expr *e, Scope *s)
{
    TValue *a = eval(r, e->a, s);
    if (!a)
        return NULL;
    if (e->op == OP_AND || e->op == OP_OR) /* Jinja's (and Python's): an operand, not a bool */
        return truthy(a) == (e->op == OP_OR) ? a : eval(r, e->b, s);
    TValue *b = eval(r, e->b, s);
    if (!b)
        return NULL;
    bool yes;
    switch (e->op) {
    case T_EQ:
    case T_NE: return equal_in(r, e, a, b, &yes) ? tv_bool(&r->a, yes == (e->op == T_EQ)) : NULL;
    case OP_IN:
    case OP_NOTIN:
        return contains(r, e, a, b, &yes) ? tv_bool(&r->a, yes == (e->op == OP_IN)) : NULL;
    case '~': return concat(r, e, a, b);
    case '+':
        if (a->kind == TV_STR && b->kind == TV_STR)
            return concat(r, e, a, b);
        if (a->kind == TV_LIST && b->kind == TV_LIST) {
            TValue *out = repeat(r, e, a, 1), *more = out ? repeat(r, e, b, 1) : NULL;
            for (size_t i = 0; more && i < more->n; i++)
                if (!list_add(r, e, out, more->items[i]))
                    return NULL;
            return more && nested(r, e, out) ? (out->depth--, out) : NULL;
        }
        break;
    case '*':
        if ((a->kind == TV_STR || a->kind == TV_LIST) && b->kind == TV_INT)
            return repeat(r, e, a, b->i);
        if (a->kind == TV_INT && (b->kind == TV_STR || b->kind == TV_LIST))
            return repeat(r, e, b, a->i);
        break;
    case '%':
        if (a->kind == TV_STR) { /* "%s-%d" % (a, b): a list gives the arguments */
            TValue *one[1] = {b};
            if (b->kind == TV_LIST && b->n > MAX_ARGS) {
                rerr(r, e, 0, 0, "'%%' formats at most %d values", MAX_ARGS);
                return NULL;
            }
            TValue *args[MAX_ARGS] = {0};
            for (size_t i = 0; b->kind == TV_LIST && i < b->n; i++)
                args[i] = tv_item(b, i, &r->a);
            return b->kind == TV_LIST ? format_values(r, e, a, args, b->n)
                                      : format_values(r, e, a, one, 1);
        }
        break;
    case '<':
    case '>':
    case T_LE:
    case T_GE: {
        if (!((a->kind == TV_INT && b->kind == TV_INT) ||
              (a->kind == TV_STR && b->kind == TV_STR))) {
            rerr(r, e, 0, 0, "cannot order %s and %s", a_kind(a), a_kind(b));
            return NULL;
        }
        int c = order(r, e, a, b, false);
        bool v = e->op == '<' ? c < 0 : e->op == '>' ? c > 0 : e->op == T_LE ? c <= 0 : c >= 0;
        return tv_bool(&r->a, v);
    }
    }
    if (a->kind == TV_INT && b->kind == TV_INT)
        return arith(r, e, a->i, b->i);
    const char *o = op_text(e->op);
    rerr(r, e, 0, 0, "'%s' needs two integers%s, not %s and %s", o,
         e->op == '+' ? ", two strings or two lists"
         : e->op == '*' ? " or a string or list and an integer"
         : e->op == '%' ? " or a format string and values" : "",
         a_kind(a), a_kind(b));
    return NULL;
}

/* ---- calls: macros, methods, the global functions ---- */

typedef struct Block {
    const Node *node; /* its {% block %} */
    struct Block *super; /* the one it overrides: super() renders it */
} Block;

/* An {% extends %} chain: each block's overrides, the most derived first,
 * and the templates of the chain (only their blocks are replaced). */
typedef struct Inherit {
    Map blocks; /* name to Block */
    VEC(const Tmpl *) chain;
} Inherit;

/* Renders the nodes of `body`, of template t, into out: a macro's, a
 * block's; errors name t. */
static bool render_in(Rn *r, const Tmpl *t, const NodeList *body, Scope *s, Buf *out)
{
    const Tmpl *saved = r->t;
    r->t = t;
    bool ok = render_nodes(r, body, s, out);
    r->t = saved;
    return ok;
}

/* Counts a call (a macro's, super()'s) and its depth; false after an
 * error when there are too many or too deep. */
static bool call_begins(Rn *r, const Expr *e, const char *what)
{
    if (!count_work(r, e, 0, 0))
        return false;
    if (++r->depth > 64) {
        r->depth--;
        return rerr(r, e, 0, 0, "%s nested more than 64 deep", what);
    }
    return true;
}

static TValue *call_macro(Rn *r, const Expr *e, const Node *mac, Scope *s)
{
    size_t np = mac->params.n, positional = 0;
    const Expr **given = arena_alloc(&r->a, (np ? np : 1) * sizeof *given);
    for (size_t i = 0; i < e->args.n; i++) {
        const char *kw = e->kw.v[i];
        size_t k = positional;
        if (kw) {
            for (k = 0; k < np && !IS(mac->params.v[k], kw); k++)
                ;
            if (k == np) {
                rerr(r, e, 0, 0, "macro '%s' has no parameter '%s'", mac->text, kw);
                return NULL;
            }
        } else if (positional++ >= np) {
            k = np;
        }
        if (k >= np) {
            rerr(r, e, 0, 0, "macro '%s' has %zu parameters, called with %zu arguments",
                 mac->text, np, e->args.n);
            return NULL;
        }
        if (given[k]) {
            rerr(r, e, 0, 0, "macro '%s': parameter '%s' given twice", mac->text,
                 mac->params.v[k]);
            return NULL;
        }
        given[k] = e->args.v[i];
    }
    for (size_t k = 0; k < np; k++)
        if (!given[k] && !mac->conds.v[k]) {
            rerr(r, e, 0, 0, "macro '%s' has %zu parameters, called with %zu arguments",
                 mac->text, np, e->args.n);
            return NULL;
        }
    if (!call_begins(r, e, "macro calls"))
        return NULL;
    /* the call's scope and temporaries go when it returns: only its text
     * is kept, copied after the release */
    ArenaMark mark = arena_mark(&r->a);
    Scope inner = {tv_dict(&r->a), s, {0}, 0};
    bool ok = true;
    /* the arguments in the caller's scope, then the defaults in the
     * macro's (a default may use the parameters before it) */
    for (size_t k = 0; ok && k < np; k++) {
        TValue *a = given[k] ? eval(r, given[k], s) : NULL;
        if (a)
            scope_set(r, &inner, mac->params.v[k], a);
        ok = !given[k] || a;
    }
    for (size_t k = 0; ok && k < np; k++) {
        if (given[k])
            continue;
        const Tmpl *saved = r->t;
        r->t = mac->owner;
        TValue *a = eval(r, mac->conds.v[k], &inner);
        r->t = saved;
        if (a)
            scope_set(r, &inner, mac->params.v[k], a);
        ok = a != NULL;
    }
    Buf b = {0};
    ok = ok && render_in(r, mac->owner, &mac->body, &inner, &b);
    scope_end(&inner);
    r->depth--;
    arena_release(&r->a, mark);
    TValue *out = ok ? tv_strn(&r->a, b.s ? b.s : "", b.len) : NULL;
    buf_free(&b);
    return out;
}

/* The arguments of a call that takes them by position only: a method's,
 * range()'s; NULL after an error. */
static bool positional_args(Rn *r, const Expr *e, Scope *s, const char *what, int min, int max,
                            TValue **args)
{
    for (size_t i = 0; i < e->args.n; i++)
        if (e->kw.v[i])
            return rerr(r, e, 0, 0, "%s takes no named arguments", what);
    if (e->args.n < (size_t)min || e->args.n > (size_t)max)
        return rerr(r, e, 0, 0, "%s takes %d to %d arguments, not %zu", what, min, max,
                    e->args.n);
    for (size_t i = 0; i < e->args.n; i++)
        if (!(args[i] = eval(r, e->args.v[i], s)))
            return false;
    return true;
}

/* o.name(args): a method of o's kind */
static TValue *call_method(Rn *r, const Expr *e, TValue *o, Scope *s)
{
    const Filter *m = NULL;
    Near near = {e->name, NULL, 0};
    for (size_t i = 0; i < sizeof methods / sizeof *methods && !m; i++)
        if (methods[i].kind == o->kind) {
            if (strcmp(methods[i].name, e->name) == 0)
                m = &methods[i];
            near_try(&near, methods[i].name);
        }
    if (!m) {
        if (o->kind == TV_DICT) {
            no_key(r, e->a, "attribute", e->name, o);
            return NULL;
        }
        Buf b = {0};
        buf_printf(&b, "%s has no method '%s'", a_kind(o), e->name);
        near_say(&b, &near);
        rerr(r, e->a, 0, 0, "%s", b.s);
        buf_free(&b);
        return NULL;
    }
    char what[48];
    snprintf(what, sizeof what, "'%s'", m->name);
    TValue *args[MAX_ARGS] = {0};
    if (!positional_args(r, e, s, what, m->min_args, m->max_args, args))
        return NULL;
    return m->apply(r, e, o, args);
}

static TValue *range_item(const void *ctx, size_t i, Arena *a)
{
    const int64_t *from = ctx; /* start, step */
    return tv_int(a, (int64_t)((uint64_t)from[0] + (uint64_t)i * (uint64_t)from[1]));
}

/* range(stop), range(start, stop[, step]): a list made as it is walked,
 * so range(10**18) costs nothing until a loop or a filter walks it (and
 * counts each item) */
static TValue *g_range(Rn *r, const Expr *e, Scope *s)
{
    TValue *args[MAX_ARGS] = {0};
    if (!positional_args(r, e, s, "range()", 1, 3, args))
        return NULL;
    for (size_t i = 0; i < e->args.n; i++)
        if (args[i]->kind != TV_INT) {
            rerr(r, e, 0, 0, "range() needs integers, not %s", a_kind(args[i]));
            return NULL;
        }
    int64_t start = e->args.n > 1 ? args[0]->i : 0, stop = e->args.n > 1 ? args[1]->i : args[0]->i;
    int64_t step = e->args.n > 2 ? args[2]->i : 1;
    if (!step) {
        rerr(r, e, 0, 0, "range() step must not be zero");
        return NULL;
    }
    uint64_t n = 0;
    if (step > 0 && start < stop)
        n = ((uint64_t)stop - (uint64_t)start - 1) / (uint64_t)step + 1;
    else if (step < 0 && start > stop)
        n = ((uint64_t)start - (uint64_t)stop - 1) / (0 - (uint64_t)step) + 1;
    int64_t *ctx = arena_alloc(&r->a, 2 * sizeof *ctx);
    ctx[0] = start, ctx[1] = step;
    return tv_generated(&r->a, (size_t)n, range_item, ctx);
}

/* dict(key=value, ...) */
static TValue *g_dict(Rn *r, const Expr *e, Scope *s)
{
    TValue *d = tv_dict(&r->a);
    for (size_t i = 0; i < e->args.n; i++) {
        if (!e->kw.v[i]) {
            rerr(r, e, 0, 0, "dict() takes named arguments only");
            return NULL;
        }
        TValue *v = eval(r, e->args.v[i], s);
        if (!v)
            return NULL;
        tv_set(&r->a, d, e->kw.v[i], v);
    }
    return nested(r, e, d) ? d : NULL;
}

/* super(): the text of the block the one being rendered overrides */
static TValue *g_super(Rn *r, const Expr *e, Scope *s)
{
    const Block *b = r->block;
    if (e->args.n) {
        rerr(r, e, 0, 0, "super() takes no arguments");
        return NULL;
    }
    if (!b || !b->super) {
        rerr(r, e, 0, 0, "super() outside a block that overrides another");
        return NULL;
    }
    if (!call_begins(r, e, "super() calls"))
        return NULL;
    Buf out = {0};
    r->block = b->super;
    bool ok = render_in(r, b->super->node->owner, &b->super->node->body, s, &out);
    r->block = b;
    r->depth--;
    return buf_value(r, &out, ok);
}

/* The functions a template can call without defining them (a name the
 * template or the caller defines hides one). */
static const struct {
    const char *name;
    TValue *(*call)(Rn *r, const Expr *e, Scope *s);
} globals[] = {
    {"dict", g_dict},
    {"range", g_range},
    {"super", g_super},
};

static TValue *call(Rn *r, const Expr *e, Scope *s)
{
    const Expr *f = e->a;
    TValue *m = NULL;
    if (f->kind == E_ATTR) {
        TValue *o = eval(r, f->a, s);
        if (!o)
            return NULL;
        /* an imported template's macro (m.name()), else a method */
        if (o->kind != TV_DICT || !(m = tv_get(o, f->name)))
            return call_method(r, e, o, s);
    } else if (f->kind == E_NAME && !lookup(s, f->name, f->bit)) {
        for (size_t i = 0; i < sizeof globals / sizeof *globals; i++)
            if (IS(globals[i].name, f->name))
                return globals[i].call(r, e, s);
    }
    if (!m && !(m = eval(r, f, s)))
        return NULL;
    if (m->kind != TV_MACRO) {
        rerr(r, e, 0, 0, "%s cannot be called", a_kind(m));
        return NULL;
    }
    return call_macro(r, e, m->macro, s);
}

/* ---- expressions ---- */

/* e's value, or NULL and *undefined (no error) when e is a name, an
 * attribute or an item that does not exist: what "is defined" and
 * "default" look at. */
static TValue *eval_soft(Rn *r, const Expr *e, Scope *s, bool *undefined)
{
    *undefined = false;
    TValue *o, *k;
    switch (e->kind) {
    case E_NAME:
        o = lookup(s, e->name, e->bit);
        *undefined = !o;
        return o;
    case E_ATTR:
    case E_INDEX:
        if (!(o = eval_soft(r, e->a, s, undefined)))
            return NULL;
        k = e->kind == E_ATTR ? NULL : eval(r, e->b, s);
        if (e->kind == E_INDEX && !k)
            return NULL;
        if (o->kind == TV_DICT && (!k || k->kind == TV_STR))
            o = tv_get(o, k ? k->s : e->name);
        else if (o->kind == TV_LIST && k && k->kind == TV_INT &&
                 (k->i < 0 ? (uint64_t)-(k->i + 1) < o->n : (uint64_t)k->i < o->n))
            o = tv_item(o, (size_t)(k->i < 0 ? (int64_t)o->n + k->i : k->i), &r->a);
        else
            o = NULL;
        *undefined = !o;
        return o;
    default: return eval(r, e, s);
    }
}

static TValue *filter(Rn *r, const Expr *e, Scope *s)
{
    const Filter *f = e->filter;
    bool undefined = false;
    TValue *v = f->undefined_ok ? eval_soft(r, e->a, s, &undefined) : eval(r, e->a, s);
    if (!v && !undefined)
        return NULL;
    TValue *args[MAX_ARGS] = {0};
    for (size_t i = 0; i < e->args.n; i++)
        if (e->args.v[i] && !(args[i] = eval(r, e->args.v[i], s)))
            return NULL;
    if (e->kind == E_TEST && !v && !f->undefined_ok) {
        rerr(r, e->a, 0, 0, "undefined");
        return NULL;
    }
    TValue *out = f->apply(r, e, v, args);
    if (out && e->kind == E_TEST && e->negate)
        out = tv_bool(&r->a, !out->b);
    return out;
}

/* "undefined name 'nmae' (did you mean 'name'?)" */
static void undefined_name(Rn *r, const Expr *e, const Scope *s)
{
    Near near = {e->name, NULL, 0};
    for (; s; s = s->up)
        for (size_t i = 0; s->vars && s->vars->kind == TV_DICT && i < s->vars->n; i++)
            if (s->vars->keys[i] != filter_body)
                near_try(&near, s->vars->keys[i]);
    Buf b = {0};
    buf_printf(&b, "undefined name '%s'", e->name);
    near_say(&b, &near);
    rerr(r, e, 0, 0, "%s", b.s);
    buf_free(&b);
}

/* Python's slice of n items: where it starts, its step and its length. */
static bool slice_of(Rn *r, const Expr *e, Scope *s, size_t n, int64_t *start, int64_t *step,
                     size_t *len)
{
    TValue *v[3] = {0};
    for (int i = 0; i < 3; i++)
        if (e->args.v[i] && !(v[i] = eval(r, e->args.v[i], s)))
            return false;
    for (int i = 0; i < 3; i++)
        if (v[i] && v[i]->kind != TV_INT && v[i]->kind != TV_NONE)
            return rerr(r, e, 0, 0, "a slice needs integers, not %s", a_kind(v[i]));
    *step = v[2] && v[2]->kind == TV_INT ? v[2]->i : 1;
    if (!*step)
        return rerr(r, e, 0, 0, "a slice's step must not be zero");
    if (*step == INT64_MIN)
        *step = -INT64_MAX;
    int64_t size = (int64_t)(n > INT64_MAX ? INT64_MAX : n);
    int64_t lo = *step > 0 ? 0 : -1, hi = *step > 0 ? size : size - 1, b[2];
    for (int i = 0; i < 2; i++) {
        if (!v[i] || v[i]->kind == TV_NONE) {
            b[i] = (*step < 0) == (i == 0) ? hi : lo;
            continue;
        }
        int64_t x = v[i]->i;
        if (x < 0)
            x = x < -size ? lo : x + size < lo ? lo : x + size;
        else if (x > hi)
            x = hi;
        b[i] = x;
    }
    uint64_t k = 0;
    if (*step > 0 && b[0] < b[1])
        k = ((uint64_t)(b[1] - b[0]) - 1) / (uint64_t)*step + 1;
    else if (*step < 0 && b[0] > b[1])
        k = ((uint64_t)(b[0] - b[1]) - 1) / (uint64_t)-*step + 1;
    *start = b[0], *len = (size_t)k;
    return true;
}

static TValue *slice(Rn *r, const Expr *e, Scope *s)
{
    TValue *o = eval(r, e->a, s);
    if (!o)
        return NULL;
    if (o->kind != TV_LIST && o->kind != TV_STR) {
        rerr(r, e, 0, 0, "cannot slice %s", a_kind(o));
        return NULL;
    }
    int64_t start = 0, step = 1;
    size_t len = 0;
    bool ascii = o->kind == TV_STR;
    for (size_t i = 0; ascii && i < o->n; i++)
        ascii = !(o->s[i] & 0x80);
    if (ascii) { /* its bytes are its characters: no list of them */
        if (!slice_of(r, e, s, o->n, &start, &step, &len))
            return NULL;
        char *t = arena_alloc(&r->a, len + 1);
        for (size_t i = 0; i < len; i++)
            t[i] = o->s[start + (int64_t)i * step];
        TValue *v = tv_new(&r->a, TV_STR);
        v->s = t, v->n = len;
        return v;
    }
    /* a string's characters: a list within the list limit, or NULL */
    TValue *items = o->kind == TV_STR ? as_list(r, e, o, NULL) : o;
    if (!items || !slice_of(r, e, s, items->n, &start, &step, &len))
        return NULL;
    TValue *out = tv_list(&r->a);
    Buf b = {0};
    for (size_t i = 0; i < len; i++) {
        TValue *item = item_counted(r, e, items, (size_t)(start + (int64_t)i * step));
        if (!item) {
            buf_free(&b);
            return NULL;
        }
        if (o->kind == TV_STR)
            buf_add(&b, item->s, item->n);
        else if (!list_add(r, e, out, item))
            return NULL;
    }
    if (o->kind == TV_STR)
        return buf_value(r, &b, true);
    out->depth = o->depth;
    return out;
}

static TValue *eval_expr(Rn *r, const Expr *e, Scope *s);

static TValue *eval(Rn *r, const Expr *e, Scope *s)
{
    if (r->failed || !enter(r, e->line, e->col))
        return NULL;
    TValue *v = eval_expr(r, e, s);
    r->nest--;
    return v;
}

static TValue *eval_expr(Rn *r, const Expr *e, Scope *s)
{
    switch (e->kind) {
    case E_LIT: return e->lit;
    case E_NAME: {
        TValue *v = lookup(s, e->name, e->bit);
        if (!v)
            undefined_name(r, e, s);
        return v;
    }
    case E_ATTR: {
        TValue *o = eval(r, e->a, s);
        if (!o)
            return NULL;
        if (o->kind != TV_DICT) {
            rerr(r, e, 0, 0, "'.%s' of %s (only dictionaries have attributes)", e->name,
                 a_kind(o));
            return NULL;
        }
        TValue *v = tv_get_hint(o, e->name, &((Expr *)e)->hint);
        if (!v)
            no_key(r, e, "attribute", e->name, o);
        return v;
    }
    case E_INDEX: {
        TValue *o = eval(r, e->a, s), *i = o ? eval(r, e->b, s) : NULL;
        if (!i)
            return NULL;
        if ((o->kind == TV_LIST || o->kind == TV_STR) && i->kind == TV_INT) {
            /* a string's characters are counted, not made a list */
            size_t n = o->n, at = 0;
            if (o->kind == TV_STR)
                for (size_t b = n = 0; b < o->n; b++)
                    n += ((unsigned char)o->s[b] & 0xC0) != 0x80;
            int64_t k = i->i < 0 ? (int64_t)n + i->i : i->i;
            if (k < 0 || (uint64_t)k >= n) {
                rerr(r, e, 0, 0, "index %lld outside %s of %zu", (long long)i->i,
                     a_kind(o), n);
                return NULL;
            }
            if (o->kind == TV_LIST)
                return tv_item(o, (size_t)k, &r->a);
            for (int64_t c = -1; at < o->n; at++)
                if (((unsigned char)o->s[at] & 0xC0) != 0x80 && ++c == k)
                    break;
            size_t end = at + 1;
            while (end < o->n && ((unsigned char)o->s[end] & 0xC0) == 0x80)
                end++;
            return tv_strn(&r->a, o->s + at, end - at);
        }
        if (o->kind == TV_DICT && i->kind == TV_STR) {
            TValue *v = tv_get(o, i->s);
            if (!v)
                no_key(r, e, "key", i->s, o);
            return v;
        }
        rerr(r, e, 0, 0, "cannot index %s with %s", a_kind(o), a_kind(i));
        return NULL;
    }
    case E_SLICE: return slice(r, e, s);
    case E_CALL: return call(r, e, s);
    case E_FILTER:
    case E_TEST: return filter(r, e, s);
    case E_BIN: return binary(r, e, s);
    case E_NOT: {
        TValue *v = eval(r, e->a, s);
        return v ? tv_bool(&r->a, !truthy(v)) : NULL;
    }
    case E_NEG: {
        TValue *v = eval(r, e->a, s);
        if (v && v->kind != TV_INT) {
            rerr(r, e, 0, 0, "'-' needs an integer, not %s", a_kind(v));
            return NULL;
        }
        if (v && v->i == INT64_MIN) {
            rerr(r, e, 0, 0, "-(%lld) does not fit in 64 bits", (long long)v->i);
            return NULL;
        }
        return v ? tv_int(&r->a, -v->i) : NULL;
    }
    case E_COND: {
        TValue *c = eval(r, e->b, s);
        if (!c)
            return NULL;
        return truthy(c) ? eval(r, e->a, s) : e->c ? eval(r, e->c, s) : tv_none(&r->a);
    }
    case E_LIST: {
        TValue *l = tv_list(&r->a);
        for (size_t i = 0; i < e->args.n; i++) {
            TValue *v = eval(r, e->args.v[i], s);
            if (!v)
                return NULL;
            tv_push(&r->a, l, v);
        }
        return nested(r, e, l) ? l : NULL;
    }
    case E_DICT: {
        TValue *d = tv_dict(&r->a);
        for (size_t i = 0; i + 1 < e->args.n; i += 2) {
            TValue *k = eval(r, e->args.v[i], s), *v = k ? eval(r, e->args.v[i + 1], s) : NULL;
            if (!v)
                return NULL;
            if (k->kind != TV_STR) {
                rerr(r, e->args.v[i], 0, 0, "a dictionary's keys are strings, not %s",
                     a_kind(k));
                return NULL;
            }
            tv_set(&r->a, d, k->s, v);
        }
        return nested(r, e, d) ? d : NULL;
    }
    }
    return NULL;
}
/* ---- statements ---- */

static bool render_one(Rn *r, const Node *n, Scope *s, Buf *out);
static bool render_template(Rn *r, const Tmpl *t, Scope *s, Buf *out);

static bool render_node(Rn *r, const Node *n, Scope *s, Buf *out)
{
    if (!enter(r, n->line, n->col))
        return false;
    bool ok = render_one(r, n, s, out);
    r->nest--;
    return ok;
}

/* Prints v to out, an error at e if it cannot be printed. */
static bool put_value(Rn *r, Buf *out, const Expr *e, const TValue *v)
{
    char tmp[24];
    const char *text;
    size_t len;
    if (!text_of(v, tmp, &text, &len))
        return rerr(r, e, 0, 0, "%s cannot be printed", a_kind(v));
    return put(r, out, e, 0, 0, text, len);
}

static bool render_for(Rn *r, const Node *n, Scope *s, Buf *out)
{
    TValue *it = eval(r, n->expr, s);
    if (!it)
        return false;
    if (it->kind != TV_LIST && it->kind != TV_DICT && it->kind != TV_STR)
        return rerr(r, n->expr, 0, 0, "'for' needs a list, not %s", a_kind(it));
    if (!(it = as_list(r, n->expr, it, "'for'")))
        return false;
    if (!it->n)
        return render_nodes(r, &n->orelse, s, out);
    /* the loop dictionary and the iteration's scope are made once and
     * reset for each iteration (this runs once per element of every
     * loop): what an iteration makes goes when it ends, what it sets
     * stays in its own scope, and no template can change a dictionary,
     * so nothing of one iteration is seen by the next */
    TValue *loop = tv_dict(&r->a), *vars = tv_dict(&r->a);
    TValue *index = tv_int(&r->a, 0), *index0 = tv_int(&r->a, 0);
    TValue *revindex = tv_int(&r->a, 0), *revindex0 = tv_int(&r->a, 0);
    TValue *first = tv_bool(&r->a, false), *last = tv_bool(&r->a, false);
    tv_add(&r->a, loop, "index", index);
    tv_add(&r->a, loop, "index0", index0);
    tv_add(&r->a, loop, "first", first);
    tv_add(&r->a, loop, "last", last);
    tv_add(&r->a, loop, "length", tv_int(&r->a, (int64_t)it->n));
    tv_add(&r->a, loop, "revindex", revindex);
    tv_add(&r->a, loop, "revindex0", revindex0);
    tv_add(&r->a, vars, loop_name, loop);
    uint64_t mask = name_bit(loop_name);
    for (size_t k = 0; k < n->params.n; k++) {
        tv_set(&r->a, vars, n->params.v[k], loop);
        mask |= name_bit(n->params.v[k]);
    }
    size_t nvars = vars->n;
    TValue **items = vars->items;
    const char **keys = vars->keys;
    size_t cap = vars->cap;
    ArenaMark mark = arena_mark(&r->a);
    for (size_t i = 0; i < it->n; i++) {
        if (!count_work(r, NULL, n->line, n->col))
            return false;
        index->i = (int64_t)i + 1;
        index0->i = (int64_t)i;
        revindex->i = (int64_t)(it->n - i);
        revindex0->i = (int64_t)(it->n - i - 1);
        first->b = i == 0;
        last->b = i + 1 == it->n;
        /* a {% set %} of the last iteration may have replaced a name,
         * added some, or moved the arrays into its released memory */
        vars->items = items, vars->keys = keys, vars->cap = cap, vars->n = nvars;
        items[0] = loop;
        TValue *item = tv_item(it, i, &r->a);
        if (n->params.n == 1) {
            items[1] = item;
        } else {
            /* for k, v in d.items(): the item's parts, one a name */
            if (item->kind != TV_LIST || item->n != n->params.n)
                return rerr(r, n->expr, 0, 0, "cannot unpack %s of %zu into %zu names",
                            a_kind(item), item->kind == TV_LIST ? item->n : (size_t)1,
                            n->params.n);
            for (size_t k = 0; k < n->params.n; k++)
                tv_set(&r->a, vars, n->params.v[k], tv_item(item, k, &r->a));
        }
        Scope inner = {vars, s, {0}, mask};
        bool ok = render_nodes(r, &n->body, &inner, out);
        scope_end(&inner);
        arena_release(&r->a, mark);
        if (!ok)
            return false;
    }
    return true;
}

/* A template loaded by name for {% import %} or {% extends %}: parsed
 * once a render and kept until it ends. */
static const Tmpl *load_kept(Rn *r, const Node *n, const char *verb)
{
    Tmpl *t = map_get(&r->loaded, n->text);
    if (t)
        return t;
    size_t len = 0;
    const char *src = r->loader ? r->loader->load(r->loader->ctx, n->text, &len) : NULL;
    if (!src) {
        rerr(r, NULL, n->line, n->col, "cannot %s '%s': no such template", verb, n->text);
        return NULL;
    }
    if (!(t = tmpl_parse(n->text, src, len, r->err))) {
        r->failed = true;
        return NULL;
    }
    vec_push(&r->kept, t);
    map_put(&r->loaded, t->name, t, false);
    return t;
}

/* {% import "m.j2" as m %}, {% from "m.j2" import a, b as c %}: the
 * template's top level rendered in a scope of its own, that sees the
 * caller's values only (Jinja imports without context), its text
 * dropped; what it defines is the module. */
static bool render_import(Rn *r, const Node *n, Scope *s)
{
    const Tmpl *t = load_kept(r, n, "import");
    if (!t || !count_work(r, NULL, n->line, n->col))
        return false;
    if (++r->depth > 64)
        return rerr(r, NULL, n->line, n->col, "imports nested more than 64 deep");
    Scope mod = {tv_dict(&r->a), r->global, {0}, 0};
    Buf dropped = {0};
    const Tmpl *saved = r->t;
    r->t = t;
    bool ok = render_template(r, t, &mod, &dropped);
    r->t = saved;
    r->depth--;
    buf_free(&dropped);
    scope_end(&mod);
    if (!ok)
        return false;
    if (!n->from) {
        scope_set(r, s, n->params.v[0], mod.vars);
        return true;
    }
    for (size_t i = 0; i + 1 < n->params.n; i += 2) {
        TValue *v = tv_get(mod.vars, n->params.v[i]);
        if (!v)
            return rerr(r, NULL, n->line, n->col, "'%s' defines no '%s'", n->text,
                        n->params.v[i]);
        scope_set(r, s, n->params.v[i + 1], v);
    }
    return true;
}

/* {% block name %}: in a template of an {% extends %} chain, the most
 * derived template's block of that name (super() renders the next);
 * elsewhere its own body. */
static bool render_block(Rn *r, const Node *n, Scope *s, Buf *out)
{
    const Block *b = NULL;
    const Inherit *in = r->inherit;
    for (size_t i = 0; in && !b && i < in->chain.n; i++)
        if (in->chain.v[i] == n->owner)
            b = map_get(&in->blocks, n->text);
    Block own = {n, NULL};
    if (!b)
        b = &own;
    const Block *saved = r->block;
    r->block = b;
    bool ok = render_in(r, b->node->owner, &b->node->body, s, out);
    r->block = saved;
    return ok;
}

static bool render_one(Rn *r, const Node *n, Scope *s, Buf *out)
{
    switch (n->kind) {
    case N_TEXT: return put(r, out, NULL, n->line, n->col, n->text, n->n);
    case N_OUTPUT: {
        TValue *v = eval(r, n->expr, s);
        return v && put_value(r, out, n->expr, v);
    }
    case N_IF:
        for (size_t i = 0; i < n->conds.n; i++) {
            TValue *c = eval(r, n->conds.v[i], s);
            if (!c)
                return false;
            if (truthy(c))
                return render_nodes(r, &n->branches.v[i], s, out);
        }
        if (n->branches.n > n->conds.n)
            return render_nodes(r, &n->branches.v[n->conds.n], s, out);
        return true;
    case N_FOR: return render_for(r, n, s, out);
    case N_SET: {
        TValue *v = eval(r, n->expr, s);
        if (!v)
            return false;
        scope_set(r, s, n->text, v);
        return true;
    }
    case N_SET_BLOCK:
    case N_FILTER: {
        /* the body's text, a string within the string limit */
        Buf b = {0};
        bool ok = render_nodes(r, &n->body, s, &b);
        TValue *text = buf_value(r, &b, ok);
        if (!text)
            return false;
        if (n->kind == N_SET_BLOCK) {
            scope_set(r, s, n->text, text);
            return true;
        }
        ArenaMark mark = arena_mark(&r->a);
        Scope inner = {tv_dict(&r->a), s, {0}, 0};
        scope_set(r, &inner, filter_body, text);
        TValue *v = eval(r, n->expr, &inner);
        ok = v && put_value(r, out, n->expr, v);
        scope_end(&inner);
        arena_release(&r->a, mark);
        return ok;
    }
    case N_WITH: {
        ArenaMark mark = arena_mark(&r->a);
        Scope inner = {tv_dict(&r->a), s, {0}, 0};
        bool ok = true;
        for (size_t i = 0; ok && i < n->params.n; i++) {
            TValue *v = eval(r, n->conds.v[i], s);
            if (v)
                scope_set(r, &inner, n->params.v[i], v);
            ok = v != NULL;
        }
        ok = ok && render_nodes(r, &n->body, &inner, out);
        scope_end(&inner);
        arena_release(&r->a, mark);
        return ok;
    }
    case N_MACRO: {
        TValue *m = tv_new(&r->a, TV_MACRO);
        m->macro = n;
        scope_set(r, s, n->text, m);
        return true;
    }
    case N_INCLUDE: {
        size_t len = 0;
        const char *src = r->loader ? r->loader->load(r->loader->ctx, n->text, &len) : NULL;
        if (!src)
            return rerr(r, NULL, n->line, n->col, "cannot include '%s': no such template",
                        n->text);
        if (!count_work(r, NULL, n->line, n->col))
            return false;
        if (++r->depth > 64)
            return rerr(r, NULL, n->line, n->col, "includes nested more than 64 deep");
        Tmpl *t = tmpl_parse(n->text, src, len, r->err);
        if (!t) {
            r->failed = true;
            return false;
        }
        const Tmpl *saved = r->t;
        r->t = t;
        /* its own scope: what it sets or defines stays inside it (and
         * nothing outlives its tree, freed below) */
        ArenaMark mark = arena_mark(&r->a);
        Scope inner = {tv_dict(&r->a), s, {0}, 0};
        bool ok = render_template(r, t, &inner, out);
        scope_end(&inner);
        arena_release(&r->a, mark);
        r->t = saved;
        r->depth--;
        /* values of the included template may still point into its tree */
        tmpl_free(t);
        return ok;
    }
    case N_IMPORT: return render_import(r, n, s);
    case N_BLOCK: return render_block(r, n, s, out);
    case N_EXTENDS: return true; /* render_template follows it */
    }
    return false;
}

static bool render_nodes(Rn *r, const NodeList *l, Scope *s, Buf *out)
{
    for (size_t i = 0; i < l->n; i++) {
        const Node *n = l->v[i];
        /* text, half the nodes, recurses into nothing: no depth count */
        if (n->kind == N_TEXT ? !put(r, out, NULL, n->line, n->col, n->text, n->n)
                              : !render_node(r, n, s, out))
            return false;
    }
    return true;
}

/* Adds t's blocks to the chain: each after the overrides already there
 * (t is the parent of the templates before it). */
static void inherit_blocks(Rn *r, Inherit *in, const Tmpl *t)
{
    vec_push(&in->chain, t);
    for (size_t i = 0; i < t->blocks.n; i++) {
        Block *b = arena_alloc(&r->a, sizeof *b);
        b->node = t->blocks.v[i];
        Block **slot = (Block **)map_ref(&in->blocks, b->node->text);
        while (*slot)
            slot = &(*slot)->super;
        *slot = b;
    }
}

/* Renders t.  One that extends another runs its own top level (its
 * {% set %}s, imports and macros; its text is dropped, as Jinja drops a
 * child's text outside blocks), then the one it extends, and so on up the
 * chain, a loop of at most 64; the last one is written, its blocks
 * replaced by the most derived ones. */
static bool render_template(Rn *r, const Tmpl *t, Scope *s, Buf *out)
{
    if (!t->extends)
        return render_nodes(r, &t->top, s, out);
    Inherit in = {0}, *saved_in = r->inherit;
    const Tmpl *saved_t = r->t;
    r->inherit = &in;
    bool ok = true;
    int levels = 0;
    for (; ok && t->extends; levels++) {
        inherit_blocks(r, &in, t);
        r->t = t;
        Buf dropped = {0};
        for (size_t i = 0; ok && i < t->top.n; i++) {
            const Node *n = t->top.v[i];
            if (n->kind != N_TEXT && n->kind != N_OUTPUT && n->kind != N_BLOCK)
                ok = render_node(r, n, s, &dropped);
        }
        buf_free(&dropped);
        if (ok && levels == 64)
            ok = rerr(r, NULL, t->extends->line, t->extends->col,
                      "extends nested more than 64 deep");
        if (ok)
            ok = count_work(r, NULL, t->extends->line, t->extends->col) &&
                 (t = load_kept(r, t->extends, "extend")) != NULL;
    }
    if (ok) {
        inherit_blocks(r, &in, t);
        r->t = t;
        ok = render_nodes(r, &t->top, s, out);
    }
    r->t = saved_t;
    map_free(&in.blocks);
    vec_free(&in.chain);
    r->inherit = saved_in;
    return ok;
}

/* tmpl_render, and with a sink tmpl_render_to (out: its staging buffer). */
static bool render(const Tmpl *t, const TValue *vars, const TmplLoader *loader,
                   const TmplLimits *limits, Buf *out, const TmplSink *sink, Buf *err)
{
    Rn r = {.t = t,
            .loader = loader,
            .lim = limits ? limits : &tmpl_default_limits,
            .top = out,
            .sink = sink,
            .room = limits ? limits->max_output : tmpl_default_limits.max_output,
            .flush_at = sink ? FLUSH_AT : SIZE_MAX,
            .err = err};
    Scope global = {(TValue *)vars, NULL, {0}, 0};
    for (size_t i = 0; vars && vars->kind == TV_DICT && i < vars->n; i++)
        global.mask |= name_bit(vars->keys[i]);
    r.global = &global;
    Scope top = {tv_dict(&r.a), &global, {0}, 0};
    bool ok = render_template(&r, t, &top, out);
    scope_end(&top);
    arena_free(&r.a);
    for (size_t i = 0; i < r.kept.n; i++)
        tmpl_free(r.kept.v[i]);
    vec_free(&r.kept);
    map_free(&r.loaded);
    return ok && !r.failed;
}
bool tmpl_render(const Tmpl *t, const TValue *vars, const TmplLoader *loader,
                 const TmplLimits *limits, Buf *out, Buf *err)
{
    return render(t, vars, loader, limits, out, NULL, err);
}

bool tmpl_render_to(const Tmpl *t, const TValue *vars, const TmplLoader *loader,
                    const TmplLimits *limits, const TmplSink *out, Buf *err)
{
    Buf stage = {0};
    bool ok = render(t, vars, loader, limits, &stage, out, err);
    if (ok && stage.len)
        out->write(out->ctx, stage.s, stage.len);
    buf_free(&stage);
    return ok;
}

static void buf_sink_write(void *b, const char *s, size_t n) { buf_add(b, s, n); }

TmplSink tmpl_buf_sink(Buf *b) { return (TmplSink){b, buf_sink_write}; }

/* ---- dump, free ---- */

static void dump_expr(Buf *b, const Expr *e)
{
    static const char *bops[] = {[T_EQ - T_END] = "==", [T_NE - T_END] = "!=",
                                 [T_LE - T_END] = "<=", [T_GE - T_END] = ">="};
    switch (e->kind) {
    case E_LIT:
        if (e->lit->kind == TV_STR)
            buf_printf(b, "'%s'", e->lit->s);
        else if (e->lit->kind == TV_NONE)
            buf_adds(b, "none");
        else
            print(b, e->lit);
        break;
    case E_NAME: buf_adds(b, e->name); break;
    case E_ATTR: dump_expr(b, e->a), buf_printf(b, ".%s", e->name); break;
    case E_INDEX: dump_expr(b, e->a), buf_addc(b, '['), dump_expr(b, e->b), buf_addc(b, ']'); break;
    case E_SLICE:
        dump_expr(b, e->a);
        for (size_t i = 0; i < 3; i++) {
            buf_adds(b, i ? ":" : "[");
            if (e->args.v[i])
                dump_expr(b, e->args.v[i]);
        }
        buf_addc(b, ']');
        break;
    case E_CALL:
    case E_FILTER:
    case E_TEST:
        if (e->kind != E_CALL)
            buf_addc(b, '('), dump_expr(b, e->a),
                buf_printf(b, e->kind == E_FILTER ? " | %s" : e->negate ? " is not %s" : " is %s",
                           e->name);
        else
            dump_expr(b, e->a);
        buf_addc(b, '(');
        for (size_t i = 0; i < e->args.n; i++) {
            if (i)
                buf_adds(b, ", ");
            if (e->kind == E_CALL && e->kw.v[i])
                buf_printf(b, "%s=", e->kw.v[i]);
            if (e->args.v[i])
                dump_expr(b, e->args.v[i]);
            else
                buf_adds(b, "-");
        }
        buf_addc(b, ')');
        if (e->kind != E_CALL)
            buf_addc(b, ')');
        break;
    case E_COND:
        buf_addc(b, '('), dump_expr(b, e->a), buf_adds(b, " if "), dump_expr(b, e->b);
        if (e->c)
            buf_adds(b, " else "), dump_expr(b, e->c);
        buf_addc(b, ')');
        break;
    case E_LIST:
    case E_DICT:
        buf_addc(b, e->kind == E_LIST ? '[' : '{');
        for (size_t i = 0; i < e->args.n; i++) {
            if (i)
                buf_adds(b, e->kind == E_DICT && i % 2 ? ": " : ", ");
            dump_expr(b, e->args.v[i]);
        }
        buf_addc(b, e->kind == E_LIST ? ']' : '}');
        break;
    case E_BIN: {
        buf_addc(b, '(');
        dump_expr(b, e->a);
        if (e->op >= T_EQ && e->op <= T_GE)
            buf_printf(b, " %s ", bops[e->op - T_END]);
        else if (e->op == OP_IN || e->op == OP_NOTIN)
            buf_adds(b, e->op == OP_IN ? " in " : " not in ");
        else if (e->op == OP_AND || e->op == OP_OR)
            buf_adds(b, e->op == OP_AND ? " and " : " or ");
        else
            buf_printf(b, " %s ", op_text(e->op));
        dump_expr(b, e->b);
        buf_addc(b, ')');
        break;
    }
    case E_NOT: buf_adds(b, "(not "), dump_expr(b, e->a), buf_addc(b, ')'); break;
    case E_NEG: buf_adds(b, "(-"), dump_expr(b, e->a), buf_addc(b, ')'); break;
    }
}

static void dump_nodes(Buf *b, const NodeList *l, int depth);

static void dump_node(Buf *b, const Node *n, int depth)
{
    for (int i = 0; i < depth; i++)
        buf_adds(b, "  ");
    switch (n->kind) {
    case N_TEXT:
        buf_adds(b, "text ");
        for (size_t i = 0; i < n->n; i++)
            buf_adds(b, n->text[i] == '\n' ? "\\n" : (char[2]){n->text[i], 0});
        buf_addc(b, '\n');
        break;
    case N_OUTPUT: buf_adds(b, "output "), dump_expr(b, n->expr), buf_addc(b, '\n'); break;
    case N_IF:
        for (size_t i = 0; i < n->branches.n; i++) {
            if (i) {
                for (int k = 0; k < depth; k++)
                    buf_adds(b, "  ");
            }
            if (i < n->conds.n) {
                buf_adds(b, i ? "elif " : "if ");
                dump_expr(b, n->conds.v[i]);
            } else {
                buf_adds(b, "else");
            }
            buf_addc(b, '\n');
            dump_nodes(b, &n->branches.v[i], depth + 1);
        }
        break;
    case N_FOR:
        buf_adds(b, "for ");
        for (size_t i = 0; i < n->params.n; i++)
            buf_printf(b, "%s%s", i ? ", " : "", n->params.v[i]);
        buf_adds(b, " in ");
        dump_expr(b, n->expr);
        buf_addc(b, '\n');
        dump_nodes(b, &n->body, depth + 1);
        if (n->orelse.n) {
            for (int k = 0; k < depth; k++)
                buf_adds(b, "  ");
            buf_adds(b, "else\n");
            dump_nodes(b, &n->orelse, depth + 1);
        }
        break;
    case N_SET: buf_printf(b, "set %s = ", n->text), dump_expr(b, n->expr), buf_addc(b, '\n'); break;
    case N_MACRO:
    case N_WITH:
        buf_printf(b, n->kind == N_MACRO ? "macro %s(" : "with (", n->text);
        for (size_t i = 0; i < n->params.n; i++) {
            buf_printf(b, "%s%s", i ? ", " : "", n->params.v[i]);
            if (n->conds.v[i])
                buf_addc(b, '='), dump_expr(b, n->conds.v[i]);
        }
        buf_adds(b, ")\n");
        dump_nodes(b, &n->body, depth + 1);
        break;
    case N_SET_BLOCK:
    case N_BLOCK:
        buf_printf(b, "%s %s\n", n->kind == N_BLOCK ? "block" : "set", n->text);
        dump_nodes(b, &n->body, depth + 1);
        break;
    case N_FILTER:
        buf_adds(b, "filter "), dump_expr(b, n->expr), buf_addc(b, '\n');
        dump_nodes(b, &n->body, depth + 1);
        break;
    case N_INCLUDE: buf_printf(b, "include '%s'\n", n->text); break;
    case N_EXTENDS: buf_printf(b, "extends '%s'\n", n->text); break;
    case N_IMPORT:
        buf_printf(b, "import '%s'", n->text);
        for (size_t i = 0; i < n->params.n; i++)
            buf_printf(b, "%s%s", i % 2 || !n->from ? " as " : i ? ", " : " ", n->params.v[i]);
        buf_addc(b, '\n');
        break;
    }
}

static void dump_nodes(Buf *b, const NodeList *l, int depth)
{
    for (size_t i = 0; i < l->n; i++)
        dump_node(b, l->v[i], depth);
}

void tmpl_dump(const Tmpl *t, Buf *out) { dump_nodes(out, &t->top, 0); }

void tmpl_free(Tmpl *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->exprs.n; i++) {
        vec_free(&t->exprs.v[i]->args);
        vec_free(&t->exprs.v[i]->kw);
    }
    for (size_t i = 0; i < t->nodes.n; i++) {
        Node *n = t->nodes.v[i];
        vec_free(&n->conds);
        for (size_t k = 0; k < n->branches.n; k++)
            vec_free(&n->branches.v[k]);
        vec_free(&n->branches);
        vec_free(&n->body);
        vec_free(&n->orelse);
        vec_free(&n->params);
    }
    vec_free(&t->exprs);
    vec_free(&t->nodes);
    vec_free(&t->top);
    vec_free(&t->blocks);
    arena_free(&t->arena);
    free(t);
}
