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
 * lookup compares pointers before it compares text.
 * Rendering walks the tree with a chain of variable scopes (each with a
 * 64-bit mask of its names' hashes, so a lookup skips the scopes that
 * cannot hold the name); values made while rendering live in an arena
 * freed when rendering ends.
 *
 * Nothing a template says can exhaust the stack, the memory or the time:
 * the parser counts how deep it recurses and how tall each expression's
 * tree grows (a chain of 100,000 '~' parses in a loop but would evaluate,
 * dump and print recursively), both at most TMPL_MAX_NESTING; the renderer
 * counts its own recursion, which macro calls and includes stack up;
 * integer arithmetic is checked; each loop iteration and macro call gives
 * back the arena memory it used (nothing made inside one outlives it: a
 * {% set %} stays in the iteration's scope, a macro returns its text), and
 * the output, every string made and the loop iterations and macro calls
 * are counted against TmplLimits.
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

typedef enum { E_LIT, E_NAME, E_ATTR, E_INDEX, E_CALL, E_FILTER, E_BIN, E_NOT, E_NEG } ExprKind;

typedef struct Expr Expr;
typedef struct Rn Rn;

/* A built-in filter: a row of the table `filters` (under "rendering"). */
typedef struct Filter {
    const char *name;
    int min_args, max_args;
    bool undefined_ok; /* its operand may be an undefined name (default) */
    TValue *(*apply)(Rn *r, const Expr *e, TValue *v, TValue *const *args);
} Filter;

struct Expr {
    ExprKind kind;
    int op;          /* E_BIN: token kind of the operator */
    const char *name; /* E_NAME, E_ATTR, E_FILTER */
    const Filter *filter; /* E_FILTER: resolved when parsed */
    TValue *lit;
    Expr *a, *b;
    VEC(Expr *) args; /* E_CALL, E_FILTER */
    size_t hint;      /* E_ATTR: where the key was found last time */
    uint64_t bit;     /* E_NAME: name_bit(name) */
    int height;       /* of its tree: 1 for a leaf */
    uint32_t line, col;
};

typedef enum { N_TEXT, N_OUTPUT, N_IF, N_FOR, N_SET, N_MACRO, N_INCLUDE } NodeKind;

typedef struct Node Node;
typedef VEC(Node *) NodeList;
struct Node {
    NodeKind kind;
    const char *text; /* N_TEXT (len n), N_FOR variable, N_SET/N_MACRO name, N_INCLUDE name */
    size_t n;
    Expr *expr;              /* N_OUTPUT, N_FOR iterable, N_SET value */
    VEC(Expr *) conds;       /* N_IF: one per branch with a condition */
    VEC(NodeList) branches;  /* N_IF: conds.n bodies, plus else */
    NodeList body, orelse;   /* N_FOR, N_MACRO (body) */
    VEC(const char *) params; /* N_MACRO */
    uint32_t line, col;
};

struct Tmpl {
    Arena arena;
    const char *name;
    NodeList top;
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
} P;

static bool perr(P *p, uint32_t line, uint32_t col, const char *fmt, ...) PRINTF_LIKE(4, 5);
static bool perr(P *p, uint32_t line, uint32_t col, const char *fmt, ...)
{
    if (p->failed)
        return false;
    p->failed = true;
    buf_printf(p->err, "%s:%u:%u: error: ", p->t->name, line, col);
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(p->err, fmt, ap);
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
        const char *q = o + 2;
        while (q + 1 < end && !(q[0] == close[0] && q[1] == close[1]))
            q++;
        if (q + 1 >= end)
            return perr(p, line, col, "'%s' expected (to close '{%c' at line %u)", close, c, line);
        Seg g = {c == '{' ? S_VAR : c == '%' ? S_BLOCK : S_COMMENT, o + 2, (size_t)(q - o - 2),
                 line, col, false, false};
        if (g.n && g.p[0] == '-')
            g.trim_before = true, g.p++, g.n--;
        if (g.n && g.p[g.n - 1] == '-')
            g.trim_after = true, g.n--;
        vec_push(&p->segs, g);
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
    T_END = 256, T_NAME, T_INT, T_STR, T_EQ, T_NE, T_LE, T_GE, /* single chars as themselves */
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
    } else if (strchr(".[](),|+-<>=:~", c)) {
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
    if (e->a && e->a->height > h)
        h = e->a->height;
    if (e->b && e->b->height > h)
        h = e->b->height;
    for (size_t i = 0; i < e->args.n; i++)
        if (e->args.v[i]->height > h)
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

static void call_args(P *p, Expr *e)
{
    next(p); /* ( */
    if (p->tok != ')') {
        for (;;) {
            Expr *a = parse_expr(p);
            if (!a)
                return;
            vec_push(&e->args, a);
            if (p->tok != ',')
                break;
            next(p);
        }
    }
    expect(p, ')', "')'");
}

/* primary: literal | name | ( expr ), then .name [expr] (args) */
static Expr *parse_primary(P *p)
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
        if (is_word(p, "true") || is_word(p, "false"))
            e->lit = tv_bool(&p->t->arena, is_word(p, "true"));
        else if (is_word(p, "none"))
            e->lit = tv_none(&p->t->arena);
        else
            e->kind = E_NAME, e->name = tok_name(p), e->bit = name_bit(e->name);
        next(p);
    } else if (p->tok == '(') {
        next(p);
        e = parse_expr(p);
        if (!e || !expect(p, ')', "')'"))
            return NULL;
    } else {
        perr(p, p->tline, p->tokcol, "expression expected");
        return NULL;
    }
    for (;;) {
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
            if (!(e = grown(p, x)))
                return NULL;
        } else if (p->tok == '[') {
            next(p);
            Expr *x = new_expr(p, E_INDEX);
            x->a = e;
            x->b = parse_expr(p);
            if (!x->b || !expect(p, ']', "']'") || !(e = grown(p, x)))
                return NULL;
        } else if (p->tok == '(') {
            Expr *x = new_expr(p, E_CALL);
            x->a = e;
            call_args(p, x);
            if (p->failed || !(e = grown(p, x)))
                return NULL;
        } else {
            return p->failed ? NULL : e;
        }
    }
}

static const Filter *filter_find(const char *name);

/* filtered: primary ( '|' name [ (args) ] )*
 * The filter's name and its number of arguments are checked here, once,
 * so a mistake in a branch that does not run is reported too. */
static Expr *parse_filtered(P *p)
{
    Expr *e = parse_primary(p);
    while (e && p->tok == '|') {
        next(p);
        if (p->tok != T_NAME) {
            perr(p, p->tline, p->tokcol, "filter name expected after '|'");
            return NULL;
        }
        Expr *f = new_expr(p, E_FILTER);
        f->name = tok_text(p);
        f->filter = filter_find(f->name);
        if (!f->filter) {
            perr(p, f->line, f->col, "unknown filter '%s'", f->name);
            return NULL;
        }
        f->a = e;
        next(p);
        if (p->tok == '(')
            call_args(p, f);
        const Filter *def = f->filter;
        if (!p->failed &&
            (f->args.n < (size_t)def->min_args || f->args.n > (size_t)def->max_args)) {
            perr(p, f->line, f->col, "filter '%s' takes %d to %d arguments, not %zu", f->name,
                 def->min_args, def->max_args, f->args.n);
            return NULL;
        }
        e = p->failed ? NULL : grown(p, f);
    }
    return e;
}

static Expr *parse_unary(P *p)
{
    if (p->tok == '-') {
        Expr *e = new_expr(p, E_NEG);
        next(p);
        if (!deeper(p))
            return NULL;
        e->a = parse_unary(p);
        p->depth--;
        return e->a ? grown(p, e) : NULL;
    }
    return parse_filtered(p);
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

static Expr *parse_sum(P *p)
{
    Expr *e = parse_unary(p);
    while (e && (p->tok == '+' || p->tok == '-' || p->tok == '~')) {
        OpAt o = op_here(p, p->tok);
        next(p);
        e = bin(p, o, e, parse_unary(p));
    }
    return e;
}

enum { OP_IN = 300, OP_NOTIN, OP_AND, OP_OR };

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

/* expr: the whole grammar above; the parser's recursion goes through here
 * (parentheses, subscripts, arguments), so here it is counted. */
static Expr *parse_expr(P *p)
{
    if (!deeper(p))
        return NULL;
    Expr *e = parse_or(p);
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

static bool parse_statement(P *p, const Seg *g, NodeList *out);

/* A statement; one that opens a block (if, for, macro) nests one deeper. */
static bool parse_block(P *p, const Seg *g, NodeList *out)
{
    int opens = is_word(p, "if") || is_word(p, "for") || is_word(p, "macro");
    if (opens && p->blocks >= TMPL_MAX_NESTING)
        return perr(p, g->line, g->col, "blocks nested more than %d deep", TMPL_MAX_NESTING);
    p->blocks += opens;
    bool ok = parse_statement(p, g, out);
    p->blocks -= opens;
    return ok;
}

static bool parse_statement(P *p, const Seg *g, NodeList *out)
{
    if (p->tok != T_NAME)
        return perr(p, p->tline, p->tokcol, "statement expected");
    if (is_word(p, "if")) {
        next(p);
        Node *n = new_node(p, N_IF, g);
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
                static const char *const endif[] = {"endif", NULL};
                NodeList els = {0};
                int r2 = parse_body(p, &els, endif);
                vec_push(&n->branches, els);
                if (!closed(p, r2, g, "if", "endif") || !tag_end(p))
                    return false;
            }
            break;
        }
        vec_push(out, n);
        return true;
    }
    if (is_word(p, "for")) {
        next(p);
        Node *n = new_node(p, N_FOR, g);
        if (p->tok != T_NAME)
            return perr(p, p->tline, p->tokcol, "loop variable expected");
        n->text = tok_name(p);
        next(p);
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
        if (r == 0) {
            static const char *const endfor[] = {"endfor", NULL};
            int r2 = parse_body(p, &n->orelse, endfor);
            if (!closed(p, r2, g, "for", "endfor") || !tag_end(p))
                return false;
        }
        vec_push(out, n);
        return true;
    }
    if (is_word(p, "set")) {
        next(p);
        Node *n = new_node(p, N_SET, g);
        if (p->tok != T_NAME)
            return perr(p, p->tline, p->tokcol, "variable name expected");
        if (is_word(p, "none") || is_word(p, "true") || is_word(p, "false"))
            return perr(p, p->tline, p->tokcol, "'%.*s' is a literal, not a variable name",
                        (int)p->tokn, p->tokp);
        n->text = tok_name(p);
        next(p);
        if (!expect(p, '=', "'='"))
            return false;
        n->expr = parse_expr(p);
        if (!n->expr || !tag_end(p))
            return false;
        vec_push(out, n);
        return true;
    }
    if (is_word(p, "macro")) {
        next(p);
        Node *n = new_node(p, N_MACRO, g);
        if (p->tok != T_NAME)
            return perr(p, p->tline, p->tokcol, "macro name expected");
        n->text = tok_name(p);
        next(p);
        if (!expect(p, '(', "'('"))
            return false;
        while (p->tok == T_NAME) {
            vec_push(&n->params, tok_name(p));
            next(p);
            if (p->tok != ',')
                break;
            next(p);
        }
        if (!expect(p, ')', "')'") || !tag_end(p))
            return false;
        static const char *const stops[] = {"endmacro", NULL};
        int r = parse_body(p, &n->body, stops);
        if (!closed(p, r, g, "macro", "endmacro") || !tag_end(p))
            return false;
        vec_push(out, n);
        return true;
    }
    if (is_word(p, "include")) {
        next(p);
        if (p->tok != T_STR)
            return perr(p, p->tline, p->tokcol, "template name (a string) expected");
        Node *n = new_node(p, N_INCLUDE, g);
        n->text = string_lit(p)->s;
        next(p);
        if (!tag_end(p))
            return false;
        vec_push(out, n);
        return true;
    }
    static const char *const ends[] = {"endif", "endfor", "endmacro", "elif", "else"};
    for (size_t i = 0; i < sizeof ends / sizeof *ends; i++)
        if (is_word(p, ends[i]))
            return perr(p, p->tline, p->tokcol, "'%s' without an open block", ends[i]);
    return perr(p, p->tline, p->tokcol, "unknown statement '%.*s'", (int)p->tokn, p->tokp);
}

Tmpl *tmpl_parse(const char *name, const char *src, size_t len, Buf *err)
{
    Tmpl *t = xcalloc(1, sizeof *t);
    t->name = arena_strdup(&t->arena, name);
    /* the text nodes point into the source: keep a copy */
    char *copy = arena_strndup(&t->arena, src, len);
    P p = {.t = t, .src = copy, .len = len, .err = err};
    bool ok = scan(&p) && parse_body(&p, &t->top, NULL) == -1;
    vec_free(&p.segs);
    map_free(&p.names);
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
    buf_printf(r->err, "%s:%u:%u: error: ", r->t->name, line, col);
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(r->err, fmt, ap);
    va_end(ap);
    return false;
}

static const char *kind_name(const TValue *v)
{
    static const char *n[] = {"none", "boolean", "integer", "string", "list", "dictionary",
                              "macro"};
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
        rerr(r, e, 0, 0, "a %s cannot be printed", kind_name(v));
        return NULL;
    }
    return tv_strn(&r->a, s, n);
}

/* a == the literal b, testing the first character before calling strcmp */
#define IS(a, b) ((a)[0] == (b)[0] && strcmp((a), (b)) == 0)

/* ---- the filters ----
 * Each gets the evaluated operand and arguments, as many as its row of
 * `filters` allows (checked when the template was parsed). */

#define WANT(cond, what) \
    if (!(cond)) { \
        rerr(r, e, 0, 0, "filter '%s' needs %s, not a %s", e->name, what, kind_name(v)); \
        return NULL; \
    }

static TValue *f_case(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)args;
    WANT(v->kind == TV_STR, "a string");
    TValue *out = made_str(r, e, v->s, v->n);
    if (!out)
        return NULL;
    bool up = e->filter->name[0] == 'u';
    for (size_t i = 0; i < out->n; i++) {
        char c = out->s[i];
        ((char *)out->s)[i] = up ? (c >= 'a' && c <= 'z' ? c - 32 : c)
                                 : (c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    return out;
}

static TValue *f_hex(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    WANT(v->kind == TV_INT, "an integer");
    int64_t width = e->args.n && args[0]->kind == TV_INT ? args[0]->i : 0;
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
    TValue *out = ok ? tv_strn(&r->a, b.s, b.len) : NULL;
    buf_free(&b);
    return out;
}

static TValue *f_join(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    WANT(v->kind == TV_LIST, "a list");
    /* a separator that cannot be printed joins with nothing */
    char stmp[24], tmp[24];
    const char *sep = "", *s;
    size_t nsep = 0, n;
    if (e->args.n && !text_of(args[0], stmp, &sep, &nsep))
        sep = "", nsep = 0;
    Buf b = {0};
    bool ok = true;
    for (size_t i = 0; ok && i < v->n; i++) {
        if (i)
            ok = str_add(r, e, &b, sep, nsep);
        TValue *item = tv_item(v, i, &r->a);
        if (ok && !text_of(item, tmp, &s, &n))
            ok = rerr(r, e, 0, 0, "join: a %s cannot be printed", kind_name(item));
        ok = ok && str_add(r, e, &b, s, n);
    }
    TValue *out = ok ? tv_strn(&r->a, b.s ? b.s : "", b.len) : NULL;
    buf_free(&b);
    return out;
}

static TValue *f_default(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)r, (void)e;
    return v->kind == TV_NONE ? args[0] : v;
}

static TValue *f_length(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)args;
    WANT(v->kind == TV_STR || v->kind == TV_LIST || v->kind == TV_DICT,
         "a string, list or dictionary");
    return tv_int(&r->a, (int64_t)v->n);
}

static TValue *f_replace(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    WANT(v->kind == TV_STR, "a string");
    const TValue *old = args[0], *new = args[1];
    if (old->kind != TV_STR || new->kind != TV_STR || !old->n) {
        rerr(r, e, 0, 0, "replace needs two strings, the first not empty");
        return NULL;
    }
    Buf b = {0};
    bool ok = true;
    for (size_t i = 0; ok && i < v->n;) {
        if (v->n - i >= old->n && memcmp(v->s + i, old->s, old->n) == 0) {
            ok = str_add(r, e, &b, new->s, new->n);
            i += old->n;
        } else {
            ok = str_add(r, e, &b, v->s + i++, 1);
        }
    }
    TValue *out = ok ? tv_strn(&r->a, b.s ? b.s : "", b.len) : NULL;
    buf_free(&b);
    return out;
}

static TValue *f_indent(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    TValue *str = as_string(r, e, v);
    if (!str)
        return NULL;
    int64_t width = e->args.n && args[0]->kind == TV_INT ? args[0]->i : 4;
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
    TValue *out = ok ? tv_strn(&r->a, b.s ? b.s : "", b.len) : NULL;
    buf_free(&b);
    return out;
}

static TValue *f_first_last(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)args;
    WANT(v->kind == TV_LIST, "a list");
    return v->n ? tv_item(v, e->filter->name[0] == 'f' ? 0 : v->n - 1, &r->a) : tv_none(&r->a);
}

/* The value as compact JSON (jsonw.h); false for a macro.  A generated
 * list's items are made in a one at a time, each given back once written. */
static bool to_json(JsonW *j, const TValue *v, Arena *a)
{
    switch (v->kind) {
    case TV_NONE: jsonw_null(j); return true;
    case TV_BOOL: jsonw_bool(j, v->b); return true;
    case TV_INT: jsonw_int(j, v->i); return true;
    case TV_STR: jsonw_strn(j, v->s, v->n); return true;
    case TV_LIST:
        jsonw_begin_list(j);
        for (size_t i = 0; i < v->n; i++) {
            ArenaMark mark = arena_mark(a);
            bool ok = to_json(j, tv_item(v, i, a), a);
            arena_release(a, mark);
            if (!ok)
                return false;
        }
        jsonw_end_list(j);
        return true;
    case TV_DICT:
        jsonw_begin_object(j);
        for (size_t i = 0; i < v->n; i++) {
            jsonw_key(j, v->keys[i]);
            if (!to_json(j, v->items[i], a))
                return false;
        }
        jsonw_end_object(j);
        return true;
    case TV_MACRO: return false;
    }
    return false;
}

static TValue *f_tojson(Rn *r, const Expr *e, TValue *v, TValue *const *args)
{
    (void)args;
    Buf b = {0};
    JsonW j;
    jsonw_init(&j, &b, 0);
    TValue *out = NULL;
    /* its length is bounded by the value's (a tree the caller built): it
     * is measured once made */
    if (to_json(&j, v, &r->a))
        out = made_str(r, e, b.s, b.len);
    else
        rerr(r, e, 0, 0, "filter 'tojson': a macro cannot be written as JSON");
    buf_free(&b);
    return out;
}

#undef WANT

/* The built-in filters (docs/templates.md lists them). */
static const Filter filters[] = {
    {"upper", 0, 0, false, f_case},
    {"lower", 0, 0, false, f_case},
    {"hex", 0, 1, false, f_hex},
    {"cstring", 0, 0, false, f_cstring},
    {"join", 0, 1, false, f_join},
    {"default", 1, 1, true, f_default},
    {"length", 0, 0, false, f_length},
    {"replace", 2, 2, false, f_replace},
    {"indent", 0, 1, false, f_indent},
    {"first", 0, 0, false, f_first_last},
    {"last", 0, 0, false, f_first_last},
    {"tojson", 0, 0, false, f_tojson},
};

enum { MAX_FILTER_ARGS = 2 };

static const Filter *filter_find(const char *name)
{
    for (size_t i = 0; i < sizeof filters / sizeof *filters; i++)
        if (strcmp(filters[i].name, name) == 0)
            return &filters[i];
    return NULL;
}

static TValue *filter(Rn *r, const Expr *e, Scope *s)
{
    const Filter *f = e->filter;
    TValue *v;
    if (f->undefined_ok && e->a->kind == E_NAME && !lookup(s, e->a->name, e->a->bit))
        v = tv_none(&r->a);
    else
        v = eval(r, e->a, s);
    if (!v)
        return NULL;
    TValue *args[MAX_FILTER_ARGS] = {0};
    for (size_t i = 0; i < e->args.n; i++)
        if (!(args[i] = eval(r, e->args.v[i], s)))
            return NULL;
    return f->apply(r, e, v, args);
}

static TValue *call(Rn *r, const Expr *e, Scope *s)
{
    TValue *m = eval(r, e->a, s);
    if (!m)
        return NULL;
    if (m->kind != TV_MACRO) {
        rerr(r, e, 0, 0, "a %s cannot be called", kind_name(m));
        return NULL;
    }
    const Node *mac = m->macro;
    if (e->args.n != mac->params.n) {
        rerr(r, e, 0, 0, "macro '%s' has %zu parameters, called with %zu arguments", mac->text,
             mac->params.n, e->args.n);
        return NULL;
    }
    if (!count_work(r, e, 0, 0))
        return NULL;
    if (++r->depth > 64) {
        rerr(r, e, 0, 0, "macro calls nested more than 64 deep");
        return NULL;
    }
    /* the call's scope and temporaries go when it returns: only its text
     * is kept, copied after the release */
    ArenaMark mark = arena_mark(&r->a);
    Scope inner = {tv_dict(&r->a), s, {0}, 0};
    bool ok = true;
    for (size_t i = 0; ok && i < e->args.n; i++) {
        TValue *a = eval(r, e->args.v[i], s);
        if (a)
            scope_set(r, &inner, mac->params.v[i], a);
        ok = a != NULL;
    }
    Buf b = {0};
    ok = ok && render_nodes(r, &mac->body, &inner, &b);
    scope_end(&inner);
    r->depth--;
    arena_release(&r->a, mark);
    TValue *out = ok ? tv_strn(&r->a, b.s ? b.s : "", b.len) : NULL;
    buf_free(&b);
    return out;
}

static TValue *binary(Rn *r, const Expr *e, Scope *s)
{
    TValue *a = eval(r, e->a, s);
    if (!a)
        return NULL;
    if (e->op == OP_AND || e->op == OP_OR) {
        if (truthy(a) == (e->op == OP_OR))
            return tv_bool(&r->a, e->op == OP_OR);
        TValue *b = eval(r, e->b, s);
        return b ? tv_bool(&r->a, truthy(b)) : NULL;
    }
    TValue *b = eval(r, e->b, s);
    if (!b)
        return NULL;
    switch (e->op) {
    case T_EQ: return tv_bool(&r->a, equal(a, b));
    case T_NE: return tv_bool(&r->a, !equal(a, b));
    case OP_IN:
    case OP_NOTIN: {
        bool in = false;
        if (b->kind == TV_LIST) {
            for (size_t i = 0; i < b->n && !in; i++)
                in = equal(a, tv_item(b, i, &r->a));
        } else if (b->kind == TV_DICT && a->kind == TV_STR) {
            in = tv_get(b, a->s) != NULL;
        } else if (b->kind == TV_STR && a->kind == TV_STR) {
            in = a->n == 0 || (b->n >= a->n && strstr(b->s, a->s));
        } else {
            rerr(r, e, 0, 0, "'in' needs a list, dictionary or string on its right, not a %s",
                 kind_name(b));
            return NULL;
        }
        return tv_bool(&r->a, e->op == OP_IN ? in : !in);
    }
    case '+':
    case '-':
        if (a->kind == TV_INT && b->kind == TV_INT) {
            int64_t v;
            if (e->op == '+' ? __builtin_add_overflow(a->i, b->i, &v)
                             : __builtin_sub_overflow(a->i, b->i, &v)) {
                rerr(r, e, 0, 0, "%lld %c %lld does not fit in 64 bits", (long long)a->i, e->op,
                     (long long)b->i);
                return NULL;
            }
            return tv_int(&r->a, v);
        }
        if (e->op == '+' && a->kind == TV_STR && b->kind == TV_STR)
            goto concat;
        rerr(r, e, 0, 0, "'%c' needs two integers%s, not a %s and a %s", e->op,
             e->op == '+' ? " or two strings" : "", kind_name(a), kind_name(b));
        return NULL;
    case '~':
    concat: {
        /* made in place: its length is known before anything is copied */
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
    default: { /* < <= > >= */
        int c;
        if (a->kind == TV_INT && b->kind == TV_INT)
            c = a->i < b->i ? -1 : a->i > b->i;
        else if (a->kind == TV_STR && b->kind == TV_STR)
            c = strcmp(a->s, b->s);
        else {
            rerr(r, e, 0, 0, "cannot order a %s and a %s", kind_name(a), kind_name(b));
            return NULL;
        }
        bool v = e->op == '<' ? c < 0 : e->op == '>' ? c > 0 : e->op == T_LE ? c <= 0 : c >= 0;
        return tv_bool(&r->a, v);
    }
    }
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
            rerr(r, e, 0, 0, "undefined name '%s'", e->name);
        return v;
    }
    case E_ATTR: {
        TValue *o = eval(r, e->a, s);
        if (!o)
            return NULL;
        if (o->kind != TV_DICT) {
            rerr(r, e, 0, 0, "'.%s' of a %s (only dictionaries have attributes)", e->name,
                 kind_name(o));
            return NULL;
        }
        TValue *v = tv_get_hint(o, e->name, &((Expr *)e)->hint);
        if (!v)
            rerr(r, e, 0, 0, "no attribute '%s'", e->name);
        return v;
    }
    case E_INDEX: {
        TValue *o = eval(r, e->a, s), *i = o ? eval(r, e->b, s) : NULL;
        if (!i)
            return NULL;
        if (o->kind == TV_LIST && i->kind == TV_INT) {
            int64_t k = i->i < 0 ? (int64_t)o->n + i->i : i->i;
            if (k < 0 || (uint64_t)k >= o->n) {
                rerr(r, e, 0, 0, "index %lld outside a list of %zu", (long long)i->i, o->n);
                return NULL;
            }
            return tv_item(o, (size_t)k, &r->a);
        }
        if (o->kind == TV_DICT && i->kind == TV_STR) {
            TValue *v = tv_get(o, i->s);
            if (!v)
                rerr(r, e, 0, 0, "no key '%s'", i->s);
            return v;
        }
        rerr(r, e, 0, 0, "cannot index a %s with a %s", kind_name(o), kind_name(i));
        return NULL;
    }
    case E_CALL: return call(r, e, s);
    case E_FILTER: return filter(r, e, s);
    case E_BIN: return binary(r, e, s);
    case E_NOT: {
        TValue *v = eval(r, e->a, s);
        return v ? tv_bool(&r->a, !truthy(v)) : NULL;
    }
    case E_NEG: {
        TValue *v = eval(r, e->a, s);
        if (v && v->kind != TV_INT) {
            rerr(r, e, 0, 0, "'-' needs an integer, not a %s", kind_name(v));
            return NULL;
        }
        if (v && v->i == INT64_MIN) {
            rerr(r, e, 0, 0, "-(%lld) does not fit in 64 bits", (long long)v->i);
            return NULL;
        }
        return v ? tv_int(&r->a, -v->i) : NULL;
    }
    }
    return NULL;
}

static bool render_one(Rn *r, const Node *n, Scope *s, Buf *out);

static bool render_node(Rn *r, const Node *n, Scope *s, Buf *out)
{
    if (!enter(r, n->line, n->col))
        return false;
    bool ok = render_one(r, n, s, out);
    r->nest--;
    return ok;
}

static bool render_one(Rn *r, const Node *n, Scope *s, Buf *out)
{
    switch (n->kind) {
    case N_TEXT: return put(r, out, NULL, n->line, n->col, n->text, n->n);
    case N_OUTPUT: {
        TValue *v = eval(r, n->expr, s);
        if (!v)
            return false;
        char tmp[24];
        const char *text;
        size_t len;
        if (!text_of(v, tmp, &text, &len))
            return rerr(r, n->expr, 0, 0, "a %s cannot be printed", kind_name(v));
        return put(r, out, n->expr, 0, 0, text, len);
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
    case N_FOR: {
        TValue *it = eval(r, n->expr, s);
        if (!it)
            return false;
        if (it->kind != TV_LIST)
            return rerr(r, n->expr, 0, 0, "'for' needs a list, not a %s", kind_name(it));
        if (!it->n)
            return render_nodes(r, &n->orelse, s, out);
        /* the loop dictionary and the iteration's scope are made once and
         * reset for each iteration (this runs once per element of every
         * loop): what an iteration makes goes when it ends, what it sets
         * stays in its own scope, and no template can change a dictionary,
         * so nothing of one iteration is seen by the next */
        TValue *loop = tv_dict(&r->a), *vars = tv_dict(&r->a);
        TValue *index = tv_int(&r->a, 0), *index0 = tv_int(&r->a, 0);
        TValue *first = tv_bool(&r->a, false), *last = tv_bool(&r->a, false);
        tv_add(&r->a, loop, "index", index);
        tv_add(&r->a, loop, "index0", index0);
        tv_add(&r->a, loop, "first", first);
        tv_add(&r->a, loop, "last", last);
        tv_add(&r->a, loop, "length", tv_int(&r->a, (int64_t)it->n));
        tv_add(&r->a, vars, loop_name, loop);
        tv_add(&r->a, vars, n->text, loop);
        TValue **items = vars->items;
        const char **keys = vars->keys;
        size_t cap = vars->cap;
        ArenaMark mark = arena_mark(&r->a);
        uint64_t mask = name_bit(loop_name) | name_bit(n->text);
        for (size_t i = 0; i < it->n; i++) {
            if (!count_work(r, NULL, n->line, n->col))
                return false;
            index->i = (int64_t)i + 1;
            index0->i = (int64_t)i;
            first->b = i == 0;
            last->b = i + 1 == it->n;
            /* a {% set %} of the last iteration may have replaced a name,
             * added some, or moved the arrays into its released memory */
            vars->items = items, vars->keys = keys, vars->cap = cap, vars->n = 2;
            items[0] = loop;
            items[1] = tv_item(it, i, &r->a);
            Scope inner = {vars, s, {0}, mask};
            bool ok = render_nodes(r, &n->body, &inner, out);
            scope_end(&inner);
            arena_release(&r->a, mark);
            if (!ok)
                return false;
        }
        return true;
    }
    case N_SET: {
        TValue *v = eval(r, n->expr, s);
        if (!v)
            return false;
        scope_set(r, s, n->text, v);
        return true;
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
        bool ok = render_nodes(r, &t->top, &inner, out);
        scope_end(&inner);
        arena_release(&r->a, mark);
        r->t = saved;
        r->depth--;
        /* values of the included template may still point into its tree */
        tmpl_free(t);
        return ok;
    }
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
    Scope top = {tv_dict(&r.a), &global, {0}, 0};
    bool ok = render_nodes(&r, &t->top, &top, out);
    scope_end(&top);
    arena_free(&r.a);
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
    case E_CALL:
    case E_FILTER:
        if (e->kind == E_FILTER)
            buf_addc(b, '('), dump_expr(b, e->a), buf_printf(b, " | %s", e->name);
        else
            dump_expr(b, e->a);
        buf_addc(b, '(');
        for (size_t i = 0; i < e->args.n; i++) {
            if (i)
                buf_adds(b, ", ");
            dump_expr(b, e->args.v[i]);
        }
        buf_addc(b, ')');
        if (e->kind == E_FILTER)
            buf_addc(b, ')');
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
            buf_printf(b, " %c ", e->op);
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
        buf_printf(b, "for %s in ", n->text);
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
        buf_printf(b, "macro %s(", n->text);
        for (size_t i = 0; i < n->params.n; i++)
            buf_printf(b, "%s%s", i ? ", " : "", n->params.v[i]);
        buf_adds(b, ")\n");
        dump_nodes(b, &n->body, depth + 1);
        break;
    case N_INCLUDE: buf_printf(b, "include '%s'\n", n->text); break;
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
    for (size_t i = 0; i < t->exprs.n; i++)
        vec_free(&t->exprs.v[i]->args);
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
    arena_free(&t->arena);
    free(t);
}
