/*
 * schema.c - the structural check: schema/eventman.xsd, interpreted.
 *
 * mcgen has one description of a manifest's structure, the XML Schema in
 * schema/eventman.xsd, which editors and `xmllint --schema` also read.
 * This file checks each element against that schema while the manifest is
 * parsed: which child elements may appear where and how often, which
 * attributes an element has and which it needs, and what their values
 * (and the text of simple-content elements) may be.  So mcgen and xmllint
 * accept and refuse the same documents, and a rule is changed in one
 * place.
 *
 * The schema is compiled when mcgen is built, by this same file built
 * with SCHEMA_COMPILER into the build's host program (tools/xmlrec.c):
 * its loader and compiler (the #ifdef SCHEMA_COMPILER parts) read the
 * XSD and write the compiled types and automata as C tables
 * (build/gen/schema_tables.inc), which mcgen's own build of this file
 * includes.  So a run does no schema work before its first element, and
 * a construct mcgen cannot interpret fails the build, not a run.
 *
 * It understands the subset of XSD 1.0 the schema is written in (stated at
 * the top of eventman.xsd): named types only; content models of
 * sequence, choice and all with element and wildcard particles, nested one
 * level; simple content; attributes with use= and one anyAttribute;
 * simple types by restriction (enumeration, pattern, min/maxInclusive,
 * (min/max)length), union and list over the built-in types below.
 * Anything else in the schema is an error of the build (bad_schema).
 *
 * Content models and patterns are both compiled into Glushkov automata:
 * one position per leaf (an element particle, or a character class),
 * with first/last/follow sets as bitmasks (at most 64 positions; bounded
 * repetitions are expanded).  A content model is run one child element at
 * a time (the step a child element took is remembered by its parent's
 * type and state and its names, so the next sibling like it costs a
 * compare); a pattern runs over the value's characters through a DFA built
 * lazily from the automaton, so a hot pattern costs one table lookup per
 * character.  Patterns see ASCII exactly; every non-ASCII character is one
 * symbol that matches `.`, negated classes and \w (the schema's patterns
 * name no non-ASCII character).  An attribute value found valid is
 * remembered with its type (most values repeat), so a repeat costs a
 * compare, not the check.
 */
#include "mcgen.h"

#include <stdlib.h>
#include <string.h>

#define NS_XSI "http://www.w3.org/2001/XMLSchema-instance"
#define MAXPOS 64
#define UNBOUNDED (-1)

/* ======================================================================
 * Glushkov automata
 * ==================================================================== */

typedef struct GInfo {
    uint64_t first, last;
    bool nullable;
} GInfo;

typedef struct Glushkov {
    int npos;
    int payload[MAXPOS]; /* what position p stands for (class or particle) */
    uint64_t follow[MAXPOS];
    GInfo g;
    bool overflow;
} Glushkov;

#ifdef SCHEMA_COMPILER /* building automata: at build time only */
static const GInfo gl_empty = {0, 0, true};

static GInfo gl_leaf(Glushkov *a, int payload)
{
    if (a->npos >= MAXPOS) {
        a->overflow = true;
        return gl_empty;
    }
    int p = a->npos++;
    a->payload[p] = payload;
    a->follow[p] = 0;
    return (GInfo){1ull << p, 1ull << p, false};
}

static void gl_link(Glushkov *a, uint64_t from, uint64_t to)
{
    for (int p = 0; p < a->npos; p++)
        if (from >> p & 1)
            a->follow[p] |= to;
}

static GInfo gl_seq(Glushkov *a, GInfo x, GInfo y)
{
    gl_link(a, x.last, y.first);
    return (GInfo){x.first | (x.nullable ? y.first : 0), y.last | (y.nullable ? x.last : 0),
                   x.nullable && y.nullable};
}

static GInfo gl_alt(GInfo x, GInfo y)
{
    return (GInfo){x.first | y.first, x.last | y.last, x.nullable || y.nullable};
}
#endif

/* The positions that may come next after `state` (at_start: none yet). */
static uint64_t gl_next(const Glushkov *a, uint64_t state, bool at_start)
{
    if (at_start)
        return a->g.first;
    uint64_t out = 0;
    while (state) {
        int p = __builtin_ctzll(state);
        state &= state - 1;
        out |= a->follow[p];
    }
    return out;
}

static bool gl_accepts(const Glushkov *a, uint64_t state, bool at_start)
{
    return at_start ? a->g.nullable : (state & a->g.last) != 0;
}

#ifdef SCHEMA_COMPILER
/* x{min,max}: min copies in sequence, then max-min optional copies (or a
 * loop when unbounded); `build` makes one fresh copy of x. */
typedef GInfo (*BuildFn)(Glushkov *a, const void *node, void *ctx);

static GInfo gl_repeat(Glushkov *a, const void *node, int min, int max, BuildFn build, void *ctx)
{
    GInfo r = gl_empty;
    for (int i = 0; i < min; i++)
        r = gl_seq(a, r, build(a, node, ctx));
    if (max == UNBOUNDED) {
        GInfo t = build(a, node, ctx);
        gl_link(a, t.last, t.first);
        t.nullable = true;
        r = gl_seq(a, r, t);
    } else {
        for (int i = min; i < max && !a->overflow; i++) {
            GInfo t = build(a, node, ctx);
            t.nullable = true;
            r = gl_seq(a, r, t);
        }
    }
    return r;
}
#endif

/* ======================================================================
 * Patterns (xs:pattern)
 * ==================================================================== */

#define SYM_OTHER 128 /* every non-ASCII character */
#define NSYM 129

typedef struct CharClass {
    uint64_t bits[2]; /* ASCII */
    bool other;       /* matches non-ASCII characters */
} CharClass;

#ifdef SCHEMA_COMPILER
typedef struct ReNode {
    enum { RE_CLASS, RE_SEQ, RE_ALT } kind;
    int min, max;
    int cls;
    VEC(struct ReNode *) kids;
} ReNode;
#endif

typedef struct DState {
    uint64_t set;
    bool start, accept;
    int32_t next[NSYM]; /* -2 unknown, -1 dead */
} DState;

enum { ROW = 256 };

typedef struct Regex {
    const char *src;
    Glushkov g;
    VEC(CharClass) classes;
    VEC(DState) states;
    /* the states' ASCII moves again, one flat row of ROW per byte value,
     * state st's at ROW x (st + 1): the row offset of a known live move,
     * 0 for any other (not yet made, or dead: re_match's slow path tells
     * them apart, and decodes the bytes from 0x80 on, whose entries stay
     * 0, so that the fast loop tests no byte's range).  Row 0 is all 0s:
     * a move to it stays there, so the fast loop follows four moves
     * before it tests whether one stopped. */
    VEC(int32_t) ascii;
} Regex;

#ifdef SCHEMA_COMPILER
typedef struct ReParser {
    const char *s;
    size_t i, n;
    Regex *re;
    Arena *arena;
    const char *err;
    VEC(ReNode *) all; /* to free the kids vectors */
} ReParser;

static void cc_set(CharClass *c, int ch) { c->bits[ch >> 6] |= 1ull << (ch & 63); }
#endif
static bool cc_has(const CharClass *c, int sym)
{
    return sym == SYM_OTHER ? c->other : (c->bits[sym >> 6] >> (sym & 63) & 1) != 0;
}
#ifdef SCHEMA_COMPILER
static void cc_range(CharClass *c, int lo, int hi)
{
    for (int ch = lo; ch <= hi && ch < 128; ch++)
        cc_set(c, ch);
}
static void cc_negate(CharClass *c)
{
    c->bits[0] = ~c->bits[0];
    c->bits[1] = ~c->bits[1];
    c->other = !c->other;
}
static void cc_union(CharClass *c, const CharClass *d)
{
    c->bits[0] |= d->bits[0];
    c->bits[1] |= d->bits[1];
    c->other |= d->other;
}

/* \d \s \w and their negations, as XSD defines them on ASCII: \w is every
 * character but punctuation, separators and controls (so '_' is not in
 * it, '$' and '+' are). */
static bool cc_escape_class(int e, CharClass *c)
{
    memset(c, 0, sizeof *c);
    switch (e) {
    case 'd':
    case 'D':
        cc_range(c, '0', '9');
        break;
    case 's':
    case 'S':
        cc_set(c, ' '), cc_set(c, '\t'), cc_set(c, '\n'), cc_set(c, '\r');
        break;
    case 'w':
    case 'W':
        cc_range(c, 'a', 'z'), cc_range(c, 'A', 'Z'), cc_range(c, '0', '9');
        for (const char *p = "$+<=>^`|~"; *p; p++)
            cc_set(c, *p);
        c->other = true;
        break;
    default:
        return false;
    }
    if (e == 'D' || e == 'S' || e == 'W')
        cc_negate(c);
    return true;
}

/* A single-character escape: its character, or -1. */
static int re_single_escape(int e)
{
    switch (e) {
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    default:
        return strchr("\\|.-^?*+{}()[]", e) && e ? e : -1; /* not $: no such escape */
    }
}

static ReNode *re_node(ReParser *ps, int kind)
{
    ReNode *n = arena_alloc(ps->arena, sizeof *n);
    n->kind = kind;
    n->min = n->max = 1;
    vec_push(&ps->all, n);
    return n;
}

static int re_class_index(ReParser *ps, const CharClass *c)
{
    vec_push(&ps->re->classes, *c);
    return (int)ps->re->classes.n - 1;
}

static int re_peek(ReParser *ps) { return ps->i < ps->n ? (unsigned char)ps->s[ps->i] : -1; }

static ReNode *re_alt(ReParser *ps);

/* charClassExpr ::= '[' '^'? (range | escape)+ ']' */
static bool re_bracket(ReParser *ps, CharClass *c)
{
    memset(c, 0, sizeof *c);
    bool neg = false;
    if (re_peek(ps) == '^')
        neg = true, ps->i++;
    bool any = false;
    while (ps->i < ps->n && (re_peek(ps) != ']' || !any)) {
        int ch = re_peek(ps);
        ps->i++;
        if (ch == '[') {
            ps->err = "character class subtraction or nesting is not supported";
            return false;
        }
        if (ch == '\\') {
            int e = re_peek(ps);
            ps->i++;
            CharClass d;
            if (cc_escape_class(e, &d)) {
                cc_union(c, &d);
                any = true;
                continue;
            }
            ch = re_single_escape(e);
            if (ch < 0) {
                ps->err = "unsupported escape in a character class";
                return false;
            }
        } else if (ch >= 128) {
            ps->err = "non-ASCII character in a pattern";
            return false;
        }
        if (re_peek(ps) == '-' && ps->i + 1 < ps->n && ps->s[ps->i + 1] != ']') {
            ps->i++;
            int hi = re_peek(ps);
            ps->i++;
            if (hi == '\\')
                hi = re_single_escape(re_peek(ps)), ps->i++;
            if (hi < ch || hi >= 128) {
                ps->err = "bad range in a character class";
                return false;
            }
            cc_range(c, ch, hi);
        } else {
            cc_set(c, ch);
        }
        any = true;
    }
    if (re_peek(ps) != ']') {
        ps->err = "unterminated character class";
        return false;
    }
    ps->i++;
    if (neg)
        cc_negate(c);
    return true;
}

static int re_number(ReParser *ps)
{
    int v = -1;
    while (re_peek(ps) >= '0' && re_peek(ps) <= '9') {
        v = (v < 0 ? 0 : v * 10) + (re_peek(ps) - '0');
        if (v > 1000) {
            ps->err = "repetition count too large";
            return -1;
        }
        ps->i++;
    }
    return v;
}

/* piece ::= atom quantifier? */
static ReNode *re_piece(ReParser *ps)
{
    int ch = re_peek(ps);
    ReNode *atom;
    CharClass c;
    if (ch == '(') {
        ps->i++;
        atom = re_alt(ps);
        if (!atom)
            return NULL;
        if (re_peek(ps) != ')') {
            ps->err = "missing ')'";
            return NULL;
        }
        ps->i++;
    } else {
        ps->i++;
        memset(&c, 0, sizeof c);
        if (ch == '[') {
            if (!re_bracket(ps, &c))
                return NULL;
        } else if (ch == '.') {
            cc_range(&c, 0, 127);
            c.bits[0] &= ~(1ull << '\n' | 1ull << '\r');
            c.other = true;
        } else if (ch == '\\') {
            int e = re_peek(ps);
            ps->i++;
            if (!cc_escape_class(e, &c)) {
                int x = re_single_escape(e);
                if (x < 0) {
                    ps->err = "unsupported escape";
                    return NULL;
                }
                cc_set(&c, x);
            }
        } else if (ch >= 128) {
            ps->err = "non-ASCII character in a pattern";
            return NULL;
        } else if (strchr("?*+{}])|", ch)) {
            ps->err = "misplaced metacharacter";
            return NULL;
        } else {
            cc_set(&c, ch);
        }
        atom = re_node(ps, RE_CLASS);
        atom->cls = re_class_index(ps, &c);
    }
    ch = re_peek(ps);
    int min = 1, max = 1;
    if (ch == '?')
        min = 0, ps->i++;
    else if (ch == '*')
        min = 0, max = UNBOUNDED, ps->i++;
    else if (ch == '+')
        max = UNBOUNDED, ps->i++;
    else if (ch == '{') {
        ps->i++;
        min = re_number(ps);
        max = min;
        if (re_peek(ps) == ',') {
            ps->i++;
            max = re_peek(ps) == '}' ? UNBOUNDED : re_number(ps);
        }
        if (min < 0 || (max != UNBOUNDED && max < min) || re_peek(ps) != '}') {
            ps->err = ps->err ? ps->err : "bad {n,m} quantifier";
            return NULL;
        }
        ps->i++;
    }
    if (min == 1 && max == 1)
        return atom;
    if (atom->min != 1 || atom->max != 1) { /* (x?)* : wrap */
        ReNode *w = re_node(ps, RE_SEQ);
        vec_push(&w->kids, atom);
        atom = w;
    }
    atom->min = min, atom->max = max;
    return atom;
}

/* branch ::= piece*  ;  regExp ::= branch ('|' branch)* */
static ReNode *re_alt(ReParser *ps)
{
    ReNode *alt = re_node(ps, RE_ALT);
    for (;;) {
        ReNode *seq = re_node(ps, RE_SEQ);
        while (ps->i < ps->n && re_peek(ps) != '|' && re_peek(ps) != ')') {
            ReNode *p = re_piece(ps);
            if (!p)
                return NULL;
            vec_push(&seq->kids, p);
        }
        vec_push(&alt->kids, seq);
        if (re_peek(ps) != '|')
            break;
        ps->i++;
    }
    return alt;
}

static GInfo re_build(Glushkov *a, const void *node, void *ctx);

/* One copy of a node, its own repetition left to the caller. */
static GInfo re_build_once(Glushkov *a, const void *node, void *ctx)
{
    const ReNode *n = node;
    if (n->kind == RE_CLASS)
        return gl_leaf(a, n->cls);
    GInfo r = n->kind == RE_SEQ ? gl_empty : (GInfo){0, 0, false};
    for (size_t i = 0; i < n->kids.n; i++) {
        GInfo k = re_build(a, n->kids.v[i], ctx);
        r = n->kind == RE_SEQ ? gl_seq(a, r, k) : gl_alt(r, k);
    }
    return r;
}

static GInfo re_build(Glushkov *a, const void *node, void *ctx)
{
    const ReNode *n = node;
    if (n->min == 1 && n->max == 1)
        return re_build_once(a, n, ctx);
    return gl_repeat(a, n, n->min, n->max, re_build_once, ctx);
}

/* Compiles an XSD pattern; NULL with *err set. */
static Regex *re_compile(Arena *arena, const char *src, const char **err)
{
    Regex *re = arena_alloc(arena, sizeof *re);
    re->src = src;
    ReParser ps = {src, 0, strlen(src), re, arena, NULL, {0}};
    ReNode *root = re_alt(&ps);
    if (root && ps.i < ps.n)
        ps.err = "unbalanced ')'";
    if (root && !ps.err) {
        re->g.g = re_build(&re->g, root, NULL);
        if (re->g.overflow)
            ps.err = "pattern has more than 64 positions";
    }
    for (size_t i = 0; i < ps.all.n; i++)
        vec_free(&ps.all.v[i]->kids);
    vec_free(&ps.all);
    if (ps.err) {
        *err = ps.err;
        vec_free(&re->classes);
        return NULL;
    }
    return re;
}

#endif

/* A new DFA state for the position set `set`, every move unknown. */
static int32_t re_add(Regex *re, uint64_t set, bool start, bool accept)
{
    DState d = {set, start, accept, {0}};
    for (int i = 0; i < NSYM; i++)
        d.next[i] = -2;
    vec_push(&re->states, d);
    /* the stopping row first, then this state's */
    for (int i = re->ascii.n ? 0 : -ROW; i < ROW; i++)
        vec_push(&re->ascii, 0);
    return (int32_t)re->states.n - 1;
}

/* The DFA's start state, made on a pattern's first use (the automaton
 * comes from the build's tables without it). */
static void re_start(Regex *re) { re_add(re, 0, true, re->g.g.nullable); }

static int32_t re_step(Regex *re, int32_t st, int sym)
{
    DState *d = &re->states.v[st];
    uint64_t cand = gl_next(&re->g, d->set, d->start), set = 0;
    while (cand) {
        int p = __builtin_ctzll(cand);
        cand &= cand - 1;
        if (cc_has(&re->classes.v[re->g.payload[p]], sym))
            set |= 1ull << p;
    }
    int32_t to = -1;
    if (set) {
        for (size_t i = 1; i < re->states.n; i++)
            if (re->states.v[i].set == set) {
                to = (int32_t)i;
                break;
            }
        if (to < 0)
            to = re_add(re, set, false, (set & re->g.g.last) != 0);
    }
    re->states.v[st].next[sym] = to;
    if (sym < 128 && to >= 0)
        re->ascii.v[(size_t)(st + 1) * ROW + (size_t)sym] = (to + 1) * ROW;
    return to;
}

/* Whether the whole of s[0..n) matches (XSD patterns are anchored).  The
 * ASCII loop is one load from the flat rows per character, eight
 * characters to a test of whether a move stopped (the stopping row keeps
 * it stopped); a stop is found again one character at a time, and that
 * state's move made (re_step) the first time a character takes it,
 * which may move both vectors. */
static bool re_match(Regex *re, const char *s, size_t n)
{
    if (!re->states.n)
        re_start(re);
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    size_t off = ROW; /* ROW x (the current state + 1) */
    for (;;) {
        const int32_t *rows = re->ascii.v;
        int32_t to;
        while (end - p >= 8) {
            size_t q = (size_t)rows[off + p[0]];
            q = (size_t)rows[q + p[1]];
            q = (size_t)rows[q + p[2]];
            q = (size_t)rows[q + p[3]];
            q = (size_t)rows[q + p[4]];
            q = (size_t)rows[q + p[5]];
            q = (size_t)rows[q + p[6]];
            q = (size_t)rows[q + p[7]];
            if (!q)
                break;
            off = q, p += 8;
        }
        while (p < end && (to = rows[off + *p]) != 0) {
            off = (size_t)to;
            p++;
        }
        if (p == end)
            break;
        int32_t st = (int32_t)(off / ROW) - 1;
        int sym = *p;
        if (sym < 128) {
            p++;
        } else {
            uint32_t cp;
            p += utf8_get((const char *)p, (size_t)(end - p), &cp);
            sym = SYM_OTHER;
        }
        to = re->states.v[st].next[sym];
        if (to == -2)
            to = re_step(re, st, sym);
        if (to < 0)
            return false;
        off = (size_t)(to + 1) * ROW;
    }
    return re->states.v[off / ROW - 1].accept;
}

/* ======================================================================
 * Simple types
 * ==================================================================== */

typedef enum {
    B_STRING, B_NORMALIZED, B_TOKEN, B_LANGUAGE, B_NCNAME, B_QNAME, B_ANYURI, B_BOOLEAN,
    B_UBYTE, B_USHORT, B_UINT, B_ULONG, B_INT, B_INTEGER, B_NONNEG, B_HEXBINARY, B_DATETIME,
    B_NONE /* a derived type: see base/members/item */
} Builtin;

#ifdef SCHEMA_COMPILER
static const struct {
    const char *name;
    Builtin b;
} builtins[] = {
    {"string", B_STRING},      {"normalizedString", B_NORMALIZED},
    {"token", B_TOKEN},        {"language", B_LANGUAGE},
    {"NCName", B_NCNAME},      {"QName", B_QNAME},
    {"anyURI", B_ANYURI},      {"boolean", B_BOOLEAN},
    {"unsignedByte", B_UBYTE}, {"unsignedShort", B_USHORT},
    {"unsignedInt", B_UINT},   {"unsignedLong", B_ULONG},
    {"int", B_INT},            {"integer", B_INTEGER},
    {"nonNegativeInteger", B_NONNEG}, {"hexBinary", B_HEXBINARY},
    {"dateTime", B_DATETIME},
};

#endif

/* An integer as XSD reads it: sign and magnitude; `big` past 2^64-1. */
typedef struct Num {
    bool neg, big;
    uint64_t mag;
} Num;

typedef struct SType {
    const char *name; /* as the schema names it: "GUIDType", "xs:string" */
    Builtin builtin;  /* B_NONE for derived types */
    struct SType *base;
    VEC(struct SType *) members; /* union */
    struct SType *item;          /* list */
    VEC(const char *) enums;
    VEC(size_t) enum_lens;
    VEC(Regex *) patterns; /* any one must match */
    bool has_min, has_max;
    Num min, max;
    long length, min_length, max_length; /* -1: none */
    const char *doc;  /* xs:documentation: what a value must be */
    const char *desc; /* the text "expected ..." uses (computed once) */
    bool resolving, resolved;
    const struct SNode *node;
} SType;

/* ======================================================================
 * Complex types
 * ==================================================================== */

typedef enum { P_ELEM, P_ANY, P_SEQ, P_CHOICE, P_ALL } PKind;

typedef struct CType CType;

typedef struct Particle {
    PKind kind;
    int min, max;
    const char *name; /* P_ELEM: local name */
    CType *type;      /* P_ELEM */
    bool any_other;   /* P_ANY: ##other (else ##any) */
    VEC(struct Particle *) kids;
} Particle;

typedef struct AttrDecl {
    const char *name;
    SType *type;
    bool required;
    uint8_t next_same; /* 1 + the next of attrs[] with name[0] the same; 0: none */
} AttrDecl;

typedef enum { CT_EMPTY, CT_ELEMENTS, CT_SIMPLE } Content;

struct CType {
    const char *name;
    Content content;
    bool mixed;
    bool all;       /* the model is xs:all: kids in any order, each once */
    bool all_empty; /* xs:all minOccurs="0" */
    Particle *model;
    Glushkov g;                 /* !all: positions stand for leaves[] */
    VEC(Particle *) leaves;
    SType *text;                /* CT_SIMPLE */
    VEC(AttrDecl) attrs;
    uint8_t attr_by_first[128]; /* 1 + the first of attrs[] whose name starts with c */
    uint64_t required;          /* bit i: attrs[i] is required */
    int any_attr;               /* 0 none, 1 ##other, 2 ##any */
    bool resolving, resolved;
    const struct SNode *node;
};

/* ======================================================================
 * Loading the schema document
 * ==================================================================== */

#ifdef SCHEMA_COMPILER
/* The schema document as a tree; attribute values that are QNames are
 * resolved while it is read. */
typedef struct SAttr {
    const char *name, *value;
    QName q; /* type=, base=, itemType=: resolved */
    VEC(QName) qs; /* memberTypes= */
} SAttr;

typedef struct SNode {
    const char *ns, *local;
    VEC(SAttr) attrs;
    VEC(struct SNode *) kids;
    const char *text;
    Loc loc;
} SNode;
#endif

struct Schema {
    Arena arena;
    const char *target;
    CType *root;
    Map ctypes, stypes; /* by local name (target namespace) */
    Map builtin_types;  /* "string" -> SType */
    Map element_names;  /* every element name the schema declares */
    VEC(struct SNode *) nodes; /* for freeing (SCHEMA_COMPILER) */
    VEC(Regex *) regexes;
    VEC(SType *) all_stypes;
    VEC(CType *) all_ctypes;
    VEC(Particle *) particles;
    bool failed;
};

#ifdef SCHEMA_COMPILER
typedef struct SLoader {
    Schema *s;
    VEC(SNode *) stack;
    SNode *doc;
} SLoader;

static void load_start(void *ctx, XmlReader *r, const XmlElem *e)
{
    SLoader *l = ctx;
    Arena *a = &l->s->arena;
    SNode *n = arena_alloc(a, sizeof *n);
    vec_push(&l->s->nodes, n);
    n->ns = e->ns;
    n->local = e->local;
    n->loc = e->loc;
    for (size_t i = 0; i < e->nattrs; i++) {
        const XmlAttr *x = &e->attrs[i];
        if (x->ns[0])
            continue;
        SAttr at = {arena_strdup(a, x->local), arena_strdup(a, x->value), {"", ""}, {0}};
        if (!strcmp(x->local, "type") || !strcmp(x->local, "base") ||
            !strcmp(x->local, "itemType")) {
            if (!xml_qname(r, x->value, &at.q))
                at.q.ns = "", at.q.local = "";
        } else if (!strcmp(x->local, "memberTypes")) {
            const char *p = x->value;
            while (*p) {
                while (*p && is_xml_space((unsigned char)*p))
                    p++;
                const char *st = p;
                while (*p && !is_xml_space((unsigned char)*p))
                    p++;
                if (p == st)
                    break;
                QName q;
                char *word = arena_strndup(a, st, (size_t)(p - st));
                if (!xml_qname(r, word, &q))
                    q.ns = "", q.local = word;
                vec_push(&at.qs, q);
            }
        }
        vec_push(&n->attrs, at);
    }
    if (l->stack.n)
        vec_push(&l->stack.v[l->stack.n - 1]->kids, n);
    else
        l->doc = n;
    vec_push(&l->stack, n);
}

static void load_end(void *ctx, XmlReader *r, const XmlElem *e, const char *text, size_t len)
{
    (void)r, (void)e;
    SLoader *l = ctx;
    SNode *n = l->stack.v[--l->stack.n];
    size_t tl;
    const char *t = trim_span(text, &tl);
    if (tl)
        n->text = arena_strndup(&l->s->arena, t, tl);
    (void)len;
}

static const SAttr *sattr(const SNode *n, const char *name)
{
    for (size_t i = 0; i < n->attrs.n; i++)
        if (!strcmp(n->attrs.v[i].name, name))
            return &n->attrs.v[i];
    return NULL;
}

static const char *sval(const SNode *n, const char *name)
{
    const SAttr *a = sattr(n, name);
    return a ? a->value : NULL;
}

static bool is_xs(const SNode *n, const char *local)
{
    return !strcmp(n->ns, NS_XS) && !strcmp(n->local, local);
}

static void bad_schema(Schema *s, const SNode *n, const char *fmt, ...) PRINTF_LIKE(3, 4);
static void bad_schema(Schema *s, const SNode *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    Buf b = {0};
    buf_vprintf(&b, fmt, ap);
    va_end(ap);
    diag_at(DIAG_ERROR, n ? n->loc : (Loc){diag_file("schema/eventman.xsd"), 0, 0},
            "internal error: the built-in schema uses what mcgen cannot interpret: %s", b.s);
    buf_free(&b);
    s->failed = true;
}

static int occurs(Schema *s, const SNode *n, const char *name)
{
    const char *v = sval(n, name);
    if (!v)
        return 1;
    if (!strcmp(v, "unbounded"))
        return UNBOUNDED;
    uint64_t x;
    if (!parse_uint(v, 1000, &x)) {
        bad_schema(s, n, "%s='%s'", name, v);
        return 1;
    }
    return (int)x;
}

/* The documentation text of a definition (first xs:annotation/
 * xs:documentation), used in messages. */
static const char *documentation(const SNode *n)
{
    for (size_t i = 0; i < n->kids.n; i++)
        if (is_xs(n->kids.v[i], "annotation"))
            for (size_t j = 0; j < n->kids.v[i]->kids.n; j++)
                if (is_xs(n->kids.v[i]->kids.v[j], "documentation"))
                    return n->kids.v[i]->kids.v[j]->text;
    return NULL;
}

static SType *stype_new(Schema *s, const char *name)
{
    SType *t = arena_alloc(&s->arena, sizeof *t);
    t->name = name;
    t->builtin = B_NONE;
    t->length = t->min_length = t->max_length = -1;
    vec_push(&s->all_stypes, t);
    return t;
}

static bool num_parse(const char *s, size_t n, Num *out);

static SType *stype_resolve(Schema *s, SType *t);

/* A type named by a QName of the schema: a built-in (xs:) or ours. */
static SType *stype_ref(Schema *s, const SNode *at, QName q)
{
    if (!strcmp(q.ns, NS_XS)) {
        SType *t = map_get(&s->builtin_types, q.local);
        if (!t)
            bad_schema(s, at, "built-in type xs:%s", q.local);
        return t;
    }
    SType *t = strcmp(q.ns, s->target) == 0 ? map_get(&s->stypes, q.local) : NULL;
    if (!t) {
        bad_schema(s, at, "unknown simple type '%s'", q.local);
        return NULL;
    }
    return stype_resolve(s, t);
}

static void stype_restriction(Schema *s, SType *t, const SNode *r)
{
    const SAttr *base = sattr(r, "base");
    if (!base) {
        bad_schema(s, r, "xs:restriction without base=");
        return;
    }
    t->base = stype_ref(s, r, base->q);
    for (size_t i = 0; i < r->kids.n; i++) {
        const SNode *f = r->kids.v[i];
        const char *v = sval(f, "value");
        if (is_xs(f, "annotation"))
            continue;
        if (!v) {
            bad_schema(s, f, "facet <%s> without value=", f->local);
            continue;
        }
        Num num;
        uint64_t len;
        if (is_xs(f, "enumeration")) {
            vec_push(&t->enums, v);
            vec_push(&t->enum_lens, strlen(v));
        } else if (is_xs(f, "pattern")) {
            const char *err = NULL;
            Regex *re = re_compile(&s->arena, v, &err);
            if (!re) {
                bad_schema(s, f, "pattern '%s': %s", v, err);
                continue;
            }
            vec_push(&s->regexes, re);
            vec_push(&t->patterns, re);
        } else if (is_xs(f, "minInclusive") || is_xs(f, "maxInclusive")) {
            if (!num_parse(v, strlen(v), &num) || num.big) {
                bad_schema(s, f, "bound '%s'", v);
                continue;
            }
            if (f->local[1] == 'i')
                t->has_min = true, t->min = num;
            else
                t->has_max = true, t->max = num;
        } else if (is_xs(f, "length") || is_xs(f, "minLength") || is_xs(f, "maxLength")) {
            if (!parse_uint(v, 1u << 30, &len)) {
                bad_schema(s, f, "length '%s'", v);
                continue;
            }
            if (is_xs(f, "length"))
                t->length = (long)len;
            else if (f->local[1] == 'i')
                t->min_length = (long)len;
            else
                t->max_length = (long)len;
        } else {
            bad_schema(s, f, "facet <xs:%s>", f->local);
        }
    }
}

static SType *stype_resolve(Schema *s, SType *t)
{
    if (t->resolved || t->builtin != B_NONE)
        return t;
    if (t->resolving) {
        bad_schema(s, t->node, "simple type '%s' derives from itself", t->name);
        return t;
    }
    t->resolving = true;
    const SNode *n = t->node;
    t->doc = documentation(n);
    for (size_t i = 0; i < n->kids.n; i++) {
        const SNode *k = n->kids.v[i];
        if (is_xs(k, "annotation"))
            continue;
        if (is_xs(k, "restriction")) {
            stype_restriction(s, t, k);
        } else if (is_xs(k, "union")) {
            const SAttr *m = sattr(k, "memberTypes");
            for (size_t j = 0; m && j < m->qs.n; j++) {
                SType *mt = stype_ref(s, k, m->qs.v[j]);
                if (mt)
                    vec_push(&t->members, mt);
            }
            if (!t->members.n)
                bad_schema(s, k, "xs:union without memberTypes=");
        } else if (is_xs(k, "list")) {
            const SAttr *it = sattr(k, "itemType");
            t->item = it ? stype_ref(s, k, it->q) : NULL;
            if (!t->item)
                bad_schema(s, k, "xs:list without itemType=");
        } else {
            bad_schema(s, k, "<xs:%s> in a simple type", k->local);
        }
    }
    t->resolving = false;
    t->resolved = true;
    return t;
}

static CType *ctype_resolve(Schema *s, CType *c);

/* The type of an element declaration: a complex type, or a simple type
 * wrapped as simple content without attributes. */
static CType *elem_type(Schema *s, const SNode *el)
{
    const SAttr *ty = sattr(el, "type");
    if (!ty) {
        bad_schema(s, el, "element '%s' without type= (anonymous types are not supported)",
                   sval(el, "name") ? sval(el, "name") : "?");
        return NULL;
    }
    if (!strcmp(ty->q.ns, s->target)) {
        CType *c = map_get(&s->ctypes, ty->q.local);
        if (c)
            return ctype_resolve(s, c);
    }
    SType *st = stype_ref(s, el, ty->q);
    if (!st)
        return NULL;
    CType *c = arena_alloc(&s->arena, sizeof *c);
    vec_push(&s->all_ctypes, c);
    c->name = st->name;
    c->content = CT_SIMPLE;
    c->text = st;
    c->resolved = true;
    return c;
}

static Particle *particle(Schema *s, const SNode *n, int depth)
{
    Particle *p = arena_alloc(&s->arena, sizeof *p);
    vec_push(&s->particles, p);
    p->min = occurs(s, n, "minOccurs");
    p->max = occurs(s, n, "maxOccurs");
    if (p->min == UNBOUNDED)
        bad_schema(s, n, "minOccurs='unbounded'");
    if (is_xs(n, "element")) {
        p->kind = P_ELEM;
        p->name = sval(n, "name");
        if (!p->name || sattr(n, "ref"))
            bad_schema(s, n, "element particle without name= (ref= is not supported)");
        else
            map_put(&s->element_names, p->name, (void *)p->name, true);
        p->type = elem_type(s, n);
        return p;
    }
    if (is_xs(n, "any")) {
        p->kind = P_ANY;
        const char *ns = sval(n, "namespace");
        if (!ns || !strcmp(ns, "##any"))
            p->any_other = false;
        else if (!strcmp(ns, "##other"))
            p->any_other = true;
        else
            bad_schema(s, n, "xs:any namespace='%s'", ns);
        const char *pc = sval(n, "processContents");
        if (pc && strcmp(pc, "lax") && strcmp(pc, "skip"))
            bad_schema(s, n, "xs:any processContents='%s'", pc);
        return p;
    }
    if (is_xs(n, "sequence"))
        p->kind = P_SEQ;
    else if (is_xs(n, "choice"))
        p->kind = P_CHOICE;
    else if (is_xs(n, "all") && depth == 0)
        p->kind = P_ALL;
    else {
        bad_schema(s, n, "<xs:%s> as a particle here", n->local);
        return p;
    }
    if (depth > 1)
        bad_schema(s, n, "compositors nested more than one level");
    for (size_t i = 0; i < n->kids.n; i++) {
        if (is_xs(n->kids.v[i], "annotation"))
            continue;
        Particle *k = particle(s, n->kids.v[i], depth + 1);
        if (p->kind == P_ALL && (k->kind != P_ELEM || k->max > 1 || k->max == UNBOUNDED))
            bad_schema(s, n->kids.v[i], "xs:all takes elements that occur at most once");
        vec_push(&p->kids, k);
    }
    return p;
}

static GInfo model_build(Glushkov *a, const void *node, void *ctx);

/* One copy of a particle, its own repetition left to the caller. */
static GInfo model_build_once(Glushkov *a, const void *node, void *ctx)
{
    const Particle *p = node;
    CType *c = ctx;
    if (p->kind == P_ELEM || p->kind == P_ANY) {
        vec_push(&c->leaves, (Particle *)p);
        return gl_leaf(a, (int)c->leaves.n - 1);
    }
    GInfo r = p->kind == P_SEQ ? gl_empty : (GInfo){0, 0, false};
    for (size_t i = 0; i < p->kids.n; i++) {
        GInfo k = model_build(a, p->kids.v[i], ctx);
        r = p->kind == P_SEQ ? gl_seq(a, r, k) : gl_alt(r, k);
    }
    return r;
}

static GInfo model_build(Glushkov *a, const void *node, void *ctx)
{
    const Particle *p = node;
    if (p->min == 1 && p->max == 1)
        return model_build_once(a, p, ctx);
    return gl_repeat(a, p, p->min, p->max, model_build_once, ctx);
}

static void ctype_attrs(Schema *s, CType *c, const SNode *holder)
{
    for (size_t i = 0; i < holder->kids.n; i++) {
        const SNode *k = holder->kids.v[i];
        if (is_xs(k, "attribute")) {
            AttrDecl d = {sval(k, "name"), NULL, false, 0};
            const SAttr *ty = sattr(k, "type");
            const char *use = sval(k, "use");
            if (!d.name || sattr(k, "ref") || sattr(k, "fixed")) {
                bad_schema(s, k, "attribute without name=, or with ref= or fixed=");
                continue;
            }
            if ((unsigned char)d.name[0] >= 128) {
                bad_schema(s, k, "attribute name '%s' starts with a non-ASCII character", d.name);
                continue;
            }
            d.type = ty ? stype_ref(s, k, ty->q) : map_get(&s->builtin_types, "string");
            d.required = use && !strcmp(use, "required");
            if (use && strcmp(use, "required") && strcmp(use, "optional"))
                bad_schema(s, k, "use='%s'", use);
            if (c->attrs.n >= 64) {
                bad_schema(s, k, "more than 64 attributes on one type");
                continue;
            }
            if (d.required)
                c->required |= 1ull << c->attrs.n;
            vec_push(&c->attrs, d);
            /* chained by first character, in declaration order */
            uint8_t *link = &c->attr_by_first[(unsigned char)d.name[0]];
            while (*link)
                link = &c->attrs.v[*link - 1].next_same;
            *link = (uint8_t)c->attrs.n;
        } else if (is_xs(k, "anyAttribute")) {
            const char *ns = sval(k, "namespace");
            c->any_attr = ns && !strcmp(ns, "##other") ? 1 : 2;
            if (ns && strcmp(ns, "##other") && strcmp(ns, "##any"))
                bad_schema(s, k, "xs:anyAttribute namespace='%s'", ns);
        }
    }
}

static CType *ctype_resolve(Schema *s, CType *c)
{
    if (c->resolved || c->resolving)
        return c; /* recursive types (struct in struct) are fine */
    c->resolving = true;
    const SNode *n = c->node;
    const char *mixed = sval(n, "mixed");
    c->mixed = mixed && (!strcmp(mixed, "true") || !strcmp(mixed, "1"));
    c->content = CT_EMPTY;
    for (size_t i = 0; i < n->kids.n; i++) {
        const SNode *k = n->kids.v[i];
        if (is_xs(k, "sequence") || is_xs(k, "choice") || is_xs(k, "all")) {
            if (c->model)
                bad_schema(s, k, "two content models in '%s'", c->name);
            c->content = CT_ELEMENTS;
            c->model = particle(s, k, 0);
        } else if (is_xs(k, "simpleContent")) {
            const SNode *ext = k->kids.n ? k->kids.v[0] : NULL;
            for (size_t j = 0; j < k->kids.n; j++)
                if (!is_xs(k->kids.v[j], "annotation"))
                    ext = k->kids.v[j];
            const SAttr *base = ext ? sattr(ext, "base") : NULL;
            if (!ext || !is_xs(ext, "extension") || !base) {
                bad_schema(s, k, "simpleContent other than xs:extension base=");
                continue;
            }
            c->content = CT_SIMPLE;
            c->text = stype_ref(s, ext, base->q);
            ctype_attrs(s, c, ext);
        } else if (!is_xs(k, "attribute") && !is_xs(k, "anyAttribute") &&
                   !is_xs(k, "annotation")) {
            bad_schema(s, k, "<xs:%s> in complex type '%s'", k->local, c->name);
        }
    }
    ctype_attrs(s, c, n);
    if (c->model && c->model->kind == P_ALL) {
        c->all = true;
        c->all_empty = c->model->min == 0;
        for (size_t i = 0; i < c->model->kids.n; i++)
            vec_push(&c->leaves, c->model->kids.v[i]);
        if (c->leaves.n > 64)
            bad_schema(s, n, "xs:all with more than 64 elements");
    } else if (c->model) {
        c->g.g = model_build(&c->g, c->model, c);
        if (c->g.overflow)
            bad_schema(s, n, "content model of '%s' has more than 64 positions", c->name);
    }
    c->resolving = false;
    c->resolved = true;
    return c;
}

static bool schema_compile(Schema *s, const SNode *doc)
{
    if (!doc || !is_xs(doc, "schema")) {
        bad_schema(s, doc, "the root is not xs:schema");
        return false;
    }
    const char *tns = sval(doc, "targetNamespace");
    s->target = tns ? tns : "";
    const char *efd = sval(doc, "elementFormDefault");
    if (!efd || strcmp(efd, "qualified"))
        bad_schema(s, doc, "elementFormDefault must be 'qualified'");
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++) {
        SType *t = stype_new(s, arena_printf(&s->arena, "xs:%s", builtins[i].name));
        t->builtin = builtins[i].b;
        t->resolved = true;
        map_put(&s->builtin_types, builtins[i].name, t, false);
    }
    const SNode *root_el = NULL;
    for (size_t i = 0; i < doc->kids.n; i++) {
        const SNode *k = doc->kids.v[i];
        const char *name = sval(k, "name");
        if (is_xs(k, "simpleType") && name) {
            SType *t = stype_new(s, name);
            t->node = k;
            map_put(&s->stypes, name, t, false);
        } else if (is_xs(k, "complexType") && name) {
            CType *c = arena_alloc(&s->arena, sizeof *c);
            vec_push(&s->all_ctypes, c);
            c->name = name;
            c->node = k;
            map_put(&s->ctypes, name, c, false);
        } else if (is_xs(k, "element")) {
            if (root_el)
                bad_schema(s, k, "more than one global element");
            root_el = k;
        } else if (!is_xs(k, "annotation")) {
            bad_schema(s, k, "top-level <xs:%s>", k->local);
        }
    }
    for (size_t i = 0; i < s->all_stypes.n; i++)
        stype_resolve(s, s->all_stypes.v[i]);
    for (size_t i = 0; i < s->all_ctypes.n; i++)
        ctype_resolve(s, s->all_ctypes.v[i]);
    if (!root_el || !sval(root_el, "name") || strcmp(sval(root_el, "name"), "instrumentationManifest"))
        bad_schema(s, root_el, "the global element must be instrumentationManifest");
    else
        s->root = elem_type(s, root_el);
    map_put(&s->element_names, "instrumentationManifest", (void *)"instrumentationManifest", true);
    return !s->failed && s->root;
}

/* The schema text compiled; its `failed` set after a diagnostic. */
static Schema *schema_from_text(const char *name, const void *text, size_t len)
{
    Schema *s = xcalloc(1, sizeof *s);
    SLoader l = {s, {0}, NULL};
    XmlHandler h = {&l, load_start, load_end};
    int before = diag_error_count();
    bool ok = xml_parse_mem(name, text, len, 0, &s->arena, &h);
    vec_free(&l.stack);
    if (!ok || diag_error_count() != before || !schema_compile(s, l.doc))
        s->failed = true;
    return s;
}

static void schema_free(Schema *s)
{
    for (size_t i = 0; i < s->nodes.n; i++) {
        for (size_t j = 0; j < s->nodes.v[i]->attrs.n; j++)
            vec_free(&s->nodes.v[i]->attrs.v[j].qs);
        vec_free(&s->nodes.v[i]->attrs);
        vec_free(&s->nodes.v[i]->kids);
    }
    for (size_t i = 0; i < s->regexes.n; i++) {
        vec_free(&s->regexes.v[i]->classes);
        vec_free(&s->regexes.v[i]->states);
        vec_free(&s->regexes.v[i]->ascii);
    }
    for (size_t i = 0; i < s->all_stypes.n; i++) {
        vec_free(&s->all_stypes.v[i]->members);
        vec_free(&s->all_stypes.v[i]->enums);
        vec_free(&s->all_stypes.v[i]->enum_lens);
        vec_free(&s->all_stypes.v[i]->patterns);
    }
    for (size_t i = 0; i < s->all_ctypes.n; i++) {
        vec_free(&s->all_ctypes.v[i]->leaves);
        vec_free(&s->all_ctypes.v[i]->attrs);
    }
    for (size_t i = 0; i < s->particles.n; i++)
        vec_free(&s->particles.v[i]->kids);
    vec_free(&s->nodes);
    vec_free(&s->regexes);
    vec_free(&s->all_stypes);
    vec_free(&s->all_ctypes);
    vec_free(&s->particles);
    map_free(&s->ctypes);
    map_free(&s->stypes);
    map_free(&s->builtin_types);
    map_free(&s->element_names);
    arena_free(&s->arena);
    free(s);
}

/* The build's schema compiler has no tables to check documents with. */
const Schema *schema_get(void) { return NULL; }
void schema_release(void) {}

static bool declares_element(const Schema *s, const char *name)
{
    return map_get(&s->element_names, name) != NULL;
}

/* ---- the compiled schema written as C (schema_write_tables) ----
 * Every object becomes an element of one static array per kind, pointers
 * become addresses of elements, vectors compound literals; what a run
 * fills in itself (a type's message text, a pattern's DFA) starts empty. */

typedef struct TableWriter {
    FILE *out;
    PtrMap index; /* object -> 1 + its index in its array */
} TableWriter;

static size_t tw_index(TableWriter *w, const void *p)
{
    size_t i = (size_t)(uintptr_t)ptrmap_get(&w->index, p);
    guard_here(i > 0, "schema object without a table entry");
    return i - 1;
}

static void tw_str(TableWriter *w, const char *v) { put_c_string(w->out, v); }

static void tw_ref(TableWriter *w, const char *array, const void *p)
{
    if (p)
        fprintf(w->out, "&%s[%zu]", array, tw_index(w, p));
    else
        fputs("NULL", w->out);
}

/* ",\n     .field = {(type[]){&array[i], ...}, n, n}": a vector of
 * pointers to table objects, nothing when it is empty. */
#define tw_refs(w, field, type, array, vec)                                      \
    do {                                                                         \
        if ((vec).n) {                                                           \
            fprintf((w)->out, ",\n     .%s = {(%s[]){", field, type);            \
            for (size_t k_ = 0; k_ < (vec).n; k_++) {                            \
                fputs(k_ ? ", " : "", (w)->out);                                 \
                tw_ref(w, array, (vec).v[k_]);                                   \
            }                                                                    \
            fprintf((w)->out, "}, %zu, %zu}", (vec).n, (vec).n);                 \
        }                                                                        \
    } while (0)

static void tw_glushkov(TableWriter *w, const Glushkov *g)
{
    fprintf(w->out, "{.npos = %d, .payload = {", g->npos);
    for (int p = 0; p < g->npos; p++)
        fprintf(w->out, "%s%d", p ? ", " : "", g->payload[p]);
    fputs("}, .follow = {", w->out);
    for (int p = 0; p < g->npos; p++)
        fprintf(w->out, "%s0x%llxull", p ? ", " : "", (unsigned long long)g->follow[p]);
    fprintf(w->out, "}, .g = {0x%llxull, 0x%llxull, %d}}", (unsigned long long)g->g.first,
            (unsigned long long)g->g.last, g->g.nullable);
}

static void tw_num(TableWriter *w, Num n)
{
    fprintf(w->out, "{%d, %d, %lluull}", n.neg, n.big, (unsigned long long)n.mag);
}

static int by_strcmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void tw_schema(TableWriter *w, const Schema *s)
{
    FILE *o = w->out;
    for (size_t i = 0; i < s->regexes.n; i++)
        ptrmap_put(&w->index, s->regexes.v[i], (void *)(uintptr_t)(i + 1));
    for (size_t i = 0; i < s->all_stypes.n; i++)
        ptrmap_put(&w->index, s->all_stypes.v[i], (void *)(uintptr_t)(i + 1));
    for (size_t i = 0; i < s->all_ctypes.n; i++)
        ptrmap_put(&w->index, s->all_ctypes.v[i], (void *)(uintptr_t)(i + 1));
    for (size_t i = 0; i < s->particles.n; i++)
        ptrmap_put(&w->index, s->particles.v[i], (void *)(uintptr_t)(i + 1));
    fprintf(o, "static Regex schema_re[%zu];\nstatic SType schema_st[%zu];\n"
               "static CType schema_ct[%zu];\nstatic Particle schema_pt[%zu];\n\n",
            s->regexes.n ? s->regexes.n : 1, s->all_stypes.n, s->all_ctypes.n, s->particles.n);

    fprintf(o, "static Regex schema_re[%zu] = {\n", s->regexes.n ? s->regexes.n : 1);
    for (size_t i = 0; i < s->regexes.n; i++) {
        const Regex *re = s->regexes.v[i];
        fputs("    {.src = ", o);
        tw_str(w, re->src);
        fputs(",\n     .g = ", o);
        tw_glushkov(w, &re->g);
        fprintf(o, ",\n     .classes = {(CharClass[]){");
        for (size_t k = 0; k < re->classes.n; k++)
            fprintf(o, "%s{{0x%llxull, 0x%llxull}, %d}", k ? ", " : "",
                    (unsigned long long)re->classes.v[k].bits[0],
                    (unsigned long long)re->classes.v[k].bits[1], re->classes.v[k].other);
        fprintf(o, "}, %zu, %zu}},\n", re->classes.n, re->classes.n);
    }
    fputs("};\n\n", o);

    fprintf(o, "static SType schema_st[%zu] = {\n", s->all_stypes.n);
    for (size_t i = 0; i < s->all_stypes.n; i++) {
        const SType *t = s->all_stypes.v[i];
        fputs("    {.name = ", o);
        tw_str(w, t->name);
        fprintf(o, ", .builtin = %d, .base = ", (int)t->builtin);
        tw_ref(w, "schema_st", t->base);
        fputs(", .item = ", o);
        tw_ref(w, "schema_st", t->item);
        tw_refs(w, "members", "SType *", "schema_st", t->members);
        if (t->enums.n) {
            fputs(",\n     .enums = {(const char *[]){", o);
            for (size_t k = 0; k < t->enums.n; k++) {
                fputs(k ? ", " : "", o);
                tw_str(w, t->enums.v[k]);
            }
            fprintf(o, "}, %zu, %zu},\n     .enum_lens = {(size_t[]){", t->enums.n, t->enums.n);
            for (size_t k = 0; k < t->enums.n; k++)
                fprintf(o, "%s%zu", k ? ", " : "", t->enum_lens.v[k]);
            fprintf(o, "}, %zu, %zu}", t->enums.n, t->enums.n);
        }
        tw_refs(w, "patterns", "Regex *", "schema_re", t->patterns);
        fprintf(o, ",\n     .has_min = %d, .has_max = %d, .min = ", t->has_min, t->has_max);
        tw_num(w, t->min);
        fputs(", .max = ", o);
        tw_num(w, t->max);
        fprintf(o, ", .length = %ld, .min_length = %ld, .max_length = %ld,\n     .doc = ",
                t->length, t->min_length, t->max_length);
        tw_str(w, t->doc);
        fputs(", .resolved = true},\n", o);
    }
    fputs("};\n\n", o);

    fprintf(o, "static CType schema_ct[%zu] = {\n", s->all_ctypes.n);
    for (size_t i = 0; i < s->all_ctypes.n; i++) {
        const CType *c = s->all_ctypes.v[i];
        fputs("    {.name = ", o);
        tw_str(w, c->name);
        fprintf(o, ", .content = %d, .mixed = %d, .all = %d, .all_empty = %d,\n     .g = ",
                (int)c->content, c->mixed, c->all, c->all_empty);
        tw_glushkov(w, &c->g);
        tw_refs(w, "leaves", "Particle *", "schema_pt", c->leaves);
        fputs(",\n     .text = ", o);
        tw_ref(w, "schema_st", c->text);
        if (c->attrs.n) {
            fputs(",\n     .attrs = {(AttrDecl[]){", o);
            for (size_t k = 0; k < c->attrs.n; k++) {
                const AttrDecl *d = &c->attrs.v[k];
                fputs(k ? ",\n                           {" : "{", o);
                tw_str(w, d->name);
                fputs(", ", o);
                tw_ref(w, "schema_st", d->type);
                fprintf(o, ", %d, %u}", d->required, d->next_same);
            }
            fprintf(o, "}, %zu, %zu},\n     .attr_by_first = {", c->attrs.n, c->attrs.n);
            bool first = true;
            for (int ch = 0; ch < 128; ch++)
                if (c->attr_by_first[ch]) {
                    fprintf(o, "%s[%d] = %u", first ? "" : ", ", ch, c->attr_by_first[ch]);
                    first = false;
                }
            fputs("}", o);
        }
        fprintf(o, ",\n     .required = 0x%llxull, .any_attr = %d, .resolved = true},\n",
                (unsigned long long)c->required, c->any_attr);
    }
    fputs("};\n\n", o);

    fprintf(o, "static Particle schema_pt[%zu] = {\n", s->particles.n);
    for (size_t i = 0; i < s->particles.n; i++) {
        const Particle *p = s->particles.v[i];
        fprintf(o, "    {.kind = %d, .min = %d, .max = %d, .name = ", (int)p->kind, p->min, p->max);
        tw_str(w, p->name);
        fputs(", .type = ", o);
        tw_ref(w, "schema_ct", p->type);
        fprintf(o, ", .any_other = %d},\n", p->any_other);
    }
    fputs("};\n\n", o);

    /* sorted, for bsearch */
    VEC(const char *) names = {0};
    for (size_t i = 0; i < s->element_names.cap; i++)
        if (s->element_names.e[i].key)
            vec_push(&names, s->element_names.e[i].key);
    qsort(names.v, names.n, sizeof *names.v, by_strcmp);
    fputs("static const char *const schema_element_names[] = {\n", o);
    for (size_t i = 0; i < names.n; i++) {
        fputs("    ", o);
        tw_str(w, names.v[i]);
        fputs(",\n", o);
    }
    fputs("};\n\n", o);
    vec_free(&names);

    fputs("static Schema schema_built = {.target = ", o);
    tw_str(w, s->target);
    fputs(", .root = ", o);
    tw_ref(w, "schema_ct", s->root);
    fputs("};\n", o);
}

bool schema_write_tables(const char *name, const void *text, size_t len, FILE *out)
{
    Schema *s = schema_from_text(name, text, len);
    bool ok = !s->failed;
    if (ok) {
        TableWriter w = {out, {0}};
        fprintf(out, "/* generated from %s by tools/xmlrec.c (schema_write_tables): the\n"
                     " * schema compiled, for mcgen/schema.c to include */\n\n", name);
        tw_schema(&w, s);
        ptrmap_free(&w.index);
    }
    schema_free(s);
    return ok;
}
#else

/* The schema as the build compiled it (tools/xmlrec.c, schema_write_tables):
 * schema_st, schema_ct, schema_pt, schema_re, schema_element_names,
 * schema_built. */
#include "../build/gen/schema_tables.inc"

const Schema *schema_get(void) { return &schema_built; }

/* What runs filled in: the patterns' DFAs, the types' message texts. */
void schema_release(void)
{
    for (size_t i = 0; i < sizeof schema_re / sizeof schema_re[0]; i++)
        vec_free(&schema_re[i].states), vec_free(&schema_re[i].ascii);
    for (size_t i = 0; i < sizeof schema_st / sizeof schema_st[0]; i++)
        schema_st[i].desc = NULL;
    arena_free(&schema_built.arena);
}

static int name_cmp(const void *key, const void *elem)
{
    return strcmp(*(const char *const *)key, *(const char *const *)elem);
}

/* Whether the schema declares an element of this name anywhere. */
static bool declares_element(const Schema *s, const char *name)
{
    (void)s;
    return bsearch(&name, schema_element_names,
                   sizeof schema_element_names / sizeof schema_element_names[0],
                   sizeof schema_element_names[0], name_cmp) != NULL;
}
#endif

/* ======================================================================
 * Values
 * ==================================================================== */

static bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* XSD whitespace "collapse": into `tmp` only when the value needs it.
 * Most values have no character at or below a space, so the scan for one
 * that needs collapsing tests each character once. */
static const char *collapse(const char *v, size_t n, size_t *out_n, Buf *tmp)
{
    size_t i = 0;
    if (n && v[0] != ' ' && v[n - 1] != ' ')
        for (; i < n; i++)
            if ((unsigned char)v[i] <= ' ' &&
                (v[i] == '\t' || v[i] == '\n' || v[i] == '\r' || (v[i] == ' ' && v[i + 1] == ' ')))
                break;
    if (i == n) {
        *out_n = n;
        return v;
    }
    buf_reset(tmp);
    bool space = false;
    for (i = 0; i < n; i++) {
        if (is_ws(v[i])) {
            space = tmp->len > 0;
            continue;
        }
        if (space)
            buf_addc(tmp, ' ');
        space = false;
        buf_addc(tmp, v[i]);
    }
    *out_n = tmp->len;
    return tmp->s ? tmp->s : "";
}

static bool num_parse(const char *s, size_t n, Num *out)
{
    memset(out, 0, sizeof *out);
    size_t i = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        out->neg = s[i++] == '-';
    if (i == n)
        return false;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (out->mag > (UINT64_MAX - d) / 10)
            out->big = true;
        else
            out->mag = out->mag * 10 + d;
    }
    if (out->mag == 0 && !out->big)
        out->neg = false;
    return true;
}

/* -1, 0, 1 as a < b, a == b, a > b */
static int num_cmp(Num a, Num b)
{
    if (a.neg != b.neg)
        return a.neg ? -1 : 1;
    int r = a.big != b.big ? (a.big ? 1 : -1) : a.mag < b.mag ? -1 : a.mag > b.mag;
    return a.neg ? -r : r;
}

/* NCName characters by byte: 1 letters and '_' (may start a name), 2 those
 * and digits, '.', '-' (may follow); every non-ASCII byte is both, as the
 * schema checks names' ASCII only. */
static const unsigned char nc_class[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 00 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 10 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 0, /* 20 */
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, /* 30 */
    0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, /* 40 */
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0, 0, 0, 0, 3, /* 50 */
    0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, /* 60 */
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0, 0, 0, 0, 0, /* 70 */
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, /* 80 */
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, /* 90 */
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, /* a0 */
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, /* b0 */
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, /* c0 */
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, /* d0 */
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, /* e0 */
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, /* f0 */
};

static bool is_ncname(const char *v, size_t n)
{
    if (!n || !(nc_class[(unsigned char)v[0]] & 1))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!(nc_class[(unsigned char)v[i]] & 2))
            return false;
    return true;
}

static bool is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

typedef struct Check {
    XmlReader *r;
    Buf tmp;
    const char *why; /* a more precise reason than "expected ..." */
    char why_buf[160];
} Check;

static bool builtin_valid(Check *ck, Builtin b, const char *v, size_t n)
{
    Num x;
    switch (b) {
    case B_STRING:
    case B_NORMALIZED:
    case B_TOKEN:
    case B_NONE:
        return true;
    case B_ANYURI:
        /* as libxml2 reads it: any text, but a '%' starts an escape of two
         * hex digits */
        for (size_t i = 0; i < n; i++)
            if (v[i] == '%' && (i + 2 >= n || !is_hex(v[i + 1]) || !is_hex(v[i + 2])))
                return false;
        return true;
    case B_BOOLEAN:
        return (n == 4 && !memcmp(v, "true", 4)) || (n == 5 && !memcmp(v, "false", 5)) ||
               (n == 1 && (v[0] == '0' || v[0] == '1'));
    case B_UBYTE:
    case B_USHORT:
    case B_UINT:
    case B_ULONG:
    case B_NONNEG: {
        if (!num_parse(v, n, &x) || x.neg)
            return false;
        uint64_t max = b == B_UBYTE ? 255 : b == B_USHORT ? 65535 : b == B_UINT ? 4294967295u
                                                                                  : UINT64_MAX;
        return b == B_NONNEG || (!x.big && x.mag <= max);
    }
    case B_INT:
        return num_parse(v, n, &x) && !x.big && x.mag <= (x.neg ? 2147483648u : 2147483647u);
    case B_INTEGER:
        return num_parse(v, n, &x);
    case B_NCNAME:
        return is_ncname(v, n);
    case B_QNAME: {
        const char *colon = memchr(v, ':', n);
        if (!colon)
            return is_ncname(v, n);
        size_t pl = (size_t)(colon - v);
        if (!is_ncname(v, pl) || !is_ncname(colon + 1, n - pl - 1))
            return false;
        if (ck->r && !xml_prefix_declared(ck->r, v, pl)) {
            snprintf(ck->why_buf, sizeof ck->why_buf, "the prefix '%.*s' is not declared",
                     (int)(pl > 100 ? 100 : pl), v);
            ck->why = ck->why_buf;
            return false;
        }
        return true;
    }
    case B_LANGUAGE: {
        /* [a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})* */
        size_t i = 0, k = 0;
        bool first = true;
        for (;;) {
            k = 0;
            while (i < n && k < 9 &&
                   (((v[i] | 0x20) >= 'a' && (v[i] | 0x20) <= 'z') ||
                    (!first && v[i] >= '0' && v[i] <= '9')))
                i++, k++;
            if (k < 1 || k > 8)
                return false;
            if (i == n)
                return true;
            if (v[i] != '-')
                return false;
            i++;
            first = false;
        }
    }
    case B_HEXBINARY:
        if (n % 2)
            return false;
        for (size_t i = 0; i < n; i++)
            if (!is_hex(v[i]))
                return false;
        return true;
    case B_DATETIME: {
        /* -?YYYY-MM-DDThh:mm:ss(.s+)?(Z|[+-]hh:mm)? */
        size_t i = n && v[0] == '-' ? 1 : 0;
        const char *shape = "dddd-dd-ddTdd:dd:dd";
        for (const char *p = shape; *p; p++, i++) {
            if (i >= n)
                return false;
            if (*p == 'd' ? !(v[i] >= '0' && v[i] <= '9') : v[i] != *p)
                return false;
        }
        if (i < n && v[i] == '.') {
            size_t d = ++i;
            while (i < n && v[i] >= '0' && v[i] <= '9')
                i++;
            if (i == d)
                return false;
        }
        if (i < n && v[i] == 'Z')
            i++;
        else if (i < n && (v[i] == '+' || v[i] == '-')) {
            if (n - i != 6 || v[i + 3] != ':')
                return false;
            i = n;
        }
        return i == n;
    }
    }
    return false;
}

/* Whether t takes any text (xs:string, collapsed or not): nothing to
 * check. */
static bool any_text(const SType *t)
{
    return t->builtin == B_STRING || t->builtin == B_NORMALIZED || t->builtin == B_TOKEN;
}

/* The root built-in of a restriction chain (B_NONE for unions, lists). */
static Builtin primitive(const SType *t)
{
    while (t->builtin == B_NONE && t->base)
        t = t->base;
    return t->builtin;
}

static bool type_valid(Check *ck, const SType *t, const char *v, size_t n);

/* The facets declared on t itself, on the normalized value. */
static bool facets_valid(const SType *t, const char *v, size_t n, size_t items)
{
    if (t->enums.n) {
        bool found = false;
        for (size_t i = 0; i < t->enums.n && !found; i++)
            found = t->enum_lens.v[i] == n && !memcmp(t->enums.v[i], v, n);
        if (!found)
            return false;
    }
    if (t->patterns.n) {
        bool found = false;
        for (size_t i = 0; i < t->patterns.n && !found; i++)
            found = re_match(t->patterns.v[i], v, n);
        if (!found)
            return false;
    }
    if (t->has_min || t->has_max) {
        Num x;
        if (!num_parse(v, n, &x))
            return false;
        if (t->has_min && num_cmp(x, t->min) < 0)
            return false;
        if (t->has_max && num_cmp(x, t->max) > 0)
            return false;
    }
    if (t->length >= 0 || t->min_length >= 0 || t->max_length >= 0) {
        Builtin b = primitive(t);
        size_t len = items != (size_t)-1 ? items : b == B_HEXBINARY ? n / 2 : utf8_chars(v, n);
        if ((t->length >= 0 && len != (size_t)t->length) ||
            (t->min_length >= 0 && len < (size_t)t->min_length) ||
            (t->max_length >= 0 && len > (size_t)t->max_length))
            return false;
    }
    return true;
}

static bool type_valid(Check *ck, const SType *t, const char *v, size_t n)
{
    if (t->builtin != B_NONE) {
        Builtin b = t->builtin;
        if (any_text(t))
            return true;
        /* No value of these contains whitespace, so one valid as written
         * is its own collapsed form: only a refused one is collapsed and
         * tried again (most values are valid and need no scan). */
        bool spaceless = b != B_ANYURI && b != B_DATETIME;
        if (spaceless && builtin_valid(ck, b, v, n))
            return true;
        const char *c = collapse(v, n, &n, &ck->tmp);
        if (spaceless && c == v)
            return false; /* as written: refused above */
        return builtin_valid(ck, b, c, n);
    }
    if (t->members.n) {
        bool ok = false;
        for (size_t i = 0; i < t->members.n && !ok; i++)
            ok = type_valid(ck, t->members.v[i], v, n);
        if (!ok)
            return false;
        ck->why = NULL;
        if (!t->enums.n && !t->patterns.n)
            return true;
        Buf own = {0};
        v = collapse(v, n, &n, &own);
        ok = facets_valid(t, v, n, (size_t)-1);
        buf_free(&own);
        return ok;
    }
    if (t->item) {
        Buf own = {0};
        v = collapse(v, n, &n, &own);
        size_t items = 0;
        bool ok = true;
        for (size_t i = 0; i < n && ok;) {
            size_t j = i;
            while (j < n && v[j] != ' ')
                j++;
            ok = type_valid(ck, t->item, v + i, j - i);
            items++;
            i = j + 1;
        }
        ok = ok && facets_valid(t, v, n, items);
        buf_free(&own);
        return ok;
    }
    if (!t->base)
        return true;
    /* a restriction of xs:string itself (a symbol, a message reference:
     * mostly values written once, so not in check_attrs' cache) is its
     * facets on the text as written: no call for the base, which takes
     * any text, and nothing collapsed */
    Builtin bb = t->base->builtin;
    if (bb == B_STRING || bb == B_NORMALIZED)
        return facets_valid(t, v, n, (size_t)-1);
    if (bb != B_TOKEN && !type_valid(ck, t->base, v, n))
        return false;
    Builtin b = primitive(t);
    if (b == B_STRING || b == B_NORMALIZED)
        return facets_valid(t, v, n, (size_t)-1);
    Buf own = {0};
    v = collapse(v, n, &n, &own);
    bool ok = facets_valid(t, v, n, (size_t)-1);
    buf_free(&own);
    return ok;
}

/* What a value of t must be, for messages. */
static const char *type_desc(Schema *s, SType *t)
{
    if (t->desc)
        return t->desc;
    Arena *a = &s->arena;
    const char *d;
    if (t->doc) {
        d = t->doc;
    } else if (t->enums.n) {
        Buf b = {0};
        buf_adds(&b, t->enums.n > 1 ? "one of " : "");
        for (size_t i = 0; i < t->enums.n; i++)
            buf_printf(&b, "%s%s", i == 0 ? "" : i + 1 == t->enums.n ? " or " : ", ",
                       t->enums.v[i]);
        d = arena_strdup(a, b.s);
        buf_free(&b);
    } else if (t->members.n) {
        Buf b = {0};
        for (size_t i = 0; i < t->members.n; i++)
            buf_printf(&b, "%s%s", i ? " or " : "", type_desc(s, t->members.v[i]));
        d = arena_strdup(a, b.s);
        buf_free(&b);
    } else if (t->item) {
        d = arena_printf(a, "a space-separated list of %s", type_desc(s, t->item));
    } else if (t->patterns.n) {
        d = arena_printf(a, "a value matching the pattern '%s'", t->patterns.v[0]->src);
    } else if (t->has_min || t->has_max) {
        d = arena_printf(a, "an integer from %s%llu to %s%llu",
                         t->has_min && t->min.neg ? "-" : "",
                         t->has_min ? (unsigned long long)t->min.mag : 0ull,
                         t->has_max && t->max.neg ? "-" : "",
                         t->has_max ? (unsigned long long)t->max.mag : 0ull);
    } else if (t->base) {
        d = type_desc(s, t->base);
    } else {
        switch (t->builtin) {
        case B_BOOLEAN: d = "true or false"; break;
        case B_UBYTE: d = "an integer from 0 to 255"; break;
        case B_USHORT: d = "an integer from 0 to 65535"; break;
        case B_UINT: d = "an integer from 0 to 4294967295"; break;
        case B_ULONG: d = "an integer from 0 to 18446744073709551615"; break;
        case B_INT: d = "an integer from -2147483648 to 2147483647"; break;
        case B_INTEGER: d = "an integer"; break;
        case B_NONNEG: d = "a non-negative integer"; break;
        case B_QNAME: d = "a name, with a declared prefix if it has one (like win:Informational)"; break;
        case B_NCNAME: d = "a name without a prefix"; break;
        case B_LANGUAGE: d = "a language tag (like en-US)"; break;
        case B_HEXBINARY: d = "an even number of hexadecimal digits"; break;
        case B_DATETIME: d = "a date and time (like 2024-01-31T12:00:00Z)"; break;
        default: d = "text"; break;
        }
    }
    t->desc = d;
    return d;
}

/* ======================================================================
 * Checking elements
 * ==================================================================== */

typedef struct SFrame {
    const char *name;  /* the element's local name (interned by xml.c) */
    const CType *type; /* NULL: not checked (wildcard content, or after an error) */
    uint64_t state;    /* Glushkov positions reached, or xs:all's seen children */
    bool at_start;
} SFrame;

/* An attribute value found valid, by a cheap hash of its type and text:
 * most values repeat (level="win:Informational", inType="win:UInt32"),
 * and a hit is a compare of a few bytes, not the
 * type's check (its patterns, numbers, QName prefix).  A QName's validity
 * depends on the declarations in scope, so an entry holds while they are
 * unchanged (xml_ns_epoch).  Only valid values are remembered: a refused
 * one is checked again, so its diagnostic is the full check's.  A string
 * restricted by patterns is not remembered: such values are symbols and
 * message references, each written once, whose one pass through the
 * pattern's automaton costs what a miss does, and which would push the
 * repeating values out (on the generated 5 MB manifest, 22,000 of them).
 * Each hash has two entries (the newer first), so that two values that
 * meet there both stay: the task, opcode and template names events refer
 * to are many (check_attrs on that manifest: 27.8 million instructions
 * with 256 entries one a hash, 27.3 with 512 two a hash, 27.1 with 1024
 * one a hash, in twice the memory: 64 KiB against 32). */
enum { VCACHE = 512, VCACHE_TEXT = 40 };
typedef struct VCacheEntry {
    const SType *type; /* NULL: empty */
    uint64_t epoch;
    uint32_t len;
    char text[VCACHE_TEXT];
} VCacheEntry;

/* A child element matched in a content model (not xs:all), by its
 * parent's type and Glushkov state and its own names: most elements
 * follow the sibling before them the way it followed its own (an <event>
 * after an <event>), and a hit is a few compares, not the candidates'
 * walk with a strcmp each.  The names are the reader's interned pointers,
 * the same text the same pointer for the whole parse (a SchemaCheck
 * lives for one file), so they are compared as pointers. */
enum { LCACHE = 64 };
typedef struct LCacheEntry {
    const CType *type; /* NULL: empty */
    const char *ns, *local;
    uint64_t state, hit;
    bool at_start;
    const Particle *leaf;
} LCacheEntry;

struct SchemaCheck {
    const Schema *s;
    VEC(SFrame) stack;
    Check ck;
    int errors;
    VCacheEntry vcache[VCACHE];
    LCacheEntry lcache[LCACHE];
    /* the target namespace as the reader interned it (the same text is
     * the same pointer for the whole parse), once seen: compared as a
     * pointer, not by its 50 characters */
    const char *target_interned;
};

SchemaCheck *schema_check_new(void)
{
    const Schema *s = schema_get();
    if (!s)
        return NULL;
    SchemaCheck *sc = xcalloc(1, sizeof *sc);
    sc->s = s;
    return sc;
}

void schema_check_free(SchemaCheck *sc)
{
    if (!sc)
        return;
    vec_free(&sc->stack);
    buf_free(&sc->ck.tmp);
    free(sc);
}

int schema_check_errors(const SchemaCheck *sc) { return sc ? sc->errors : 0; }

static bool in_target(SchemaCheck *sc, const char *ns)
{
    if (ns == sc->target_interned || ns == sc->s->target)
        return true;
    if (strcmp(ns, sc->s->target) != 0)
        return false;
    sc->target_interned = ns;
    return true;
}

static bool leaf_matches(SchemaCheck *sc, const Particle *p, const XmlElem *e)
{
    if (p->kind == P_ANY)
        return !p->any_other || (e->ns[0] && !in_target(sc, e->ns));
    return p->name[0] == e->local[0] && in_target(sc, e->ns) && strcmp(p->name, e->local) == 0;
}

/* "<a>, <b> or <c>" of the leaves in `cand` (bit i: leaves[i] for xs:all,
 * Glushkov positions otherwise). */
static void expected_list(const CType *c, uint64_t cand, Buf *out)
{
    const char *names[64];
    size_t n = 0;
    while (cand) {
        int p = __builtin_ctzll(cand);
        cand &= cand - 1;
        const Particle *leaf = c->leaves.v[c->all ? p : c->g.payload[p]];
        const char *name = leaf->kind == P_ANY ? NULL : leaf->name;
        bool dup = false;
        for (size_t i = 0; i < n; i++)
            dup |= names[i] == name || (names[i] && name && !strcmp(names[i], name));
        if (!dup)
            names[n++] = name;
    }
    for (size_t i = 0; i < n; i++) {
        buf_adds(out, i == 0 ? "" : i + 1 == n ? " or " : ", ");
        if (names[i])
            buf_printf(out, "<%s>", names[i]);
        else
            buf_adds(out, "an element of another namespace");
    }
}

static void schema_error(SchemaCheck *sc, DiagCode code, Loc loc, const char *fmt, ...)
    PRINTF_LIKE(4, 5);
static void schema_error(SchemaCheck *sc, DiagCode code, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vc(code, loc, fmt, ap);
    va_end(ap);
    sc->errors++;
}

/* The leaf of the parent's content model that e is, advancing the
 * parent's state; NULL after a diagnostic. */
static const Particle *child_leaf(SchemaCheck *sc, SFrame *pf, const XmlElem *e)
{
    const CType *c = pf->type;
    if (c->content != CT_ELEMENTS) {
        schema_error(sc, D_SCHEMA_ELEMENT, e->loc, "<%s> takes no child elements; <%s> is not allowed here",
                     pf->name, e->local);
        return NULL;
    }
    uint64_t cand;
    if (c->all) {
        cand = 0;
        for (size_t i = 0; i < c->leaves.n; i++) {
            if (!leaf_matches(sc, c->leaves.v[i], e))
                continue;
            if (pf->state >> i & 1) {
                schema_error(sc, D_SCHEMA_ELEMENT, e->loc,
                             "<%s> may appear only once in <%s>", e->local, pf->name);
                return NULL;
            }
            pf->state |= 1ull << i;
            return c->leaves.v[i];
        }
        for (size_t i = 0; i < c->leaves.n; i++)
            if (!(pf->state >> i & 1))
                cand |= 1ull << i;
    } else {
        size_t h = ((uintptr_t)c >> 4) * 31 + ((uintptr_t)e->local >> 3) * 7 +
                   (size_t)pf->state * 3 + pf->at_start;
        LCacheEntry *m = &sc->lcache[(h ^ h >> 9) % LCACHE];
        if (m->type == c && m->local == e->local && m->ns == e->ns && m->state == pf->state &&
            m->at_start == pf->at_start) {
            pf->state = m->hit;
            pf->at_start = false;
            return m->leaf;
        }
        cand = gl_next(&c->g, pf->state, pf->at_start);
        uint64_t hit = 0, rest = cand;
        const Particle *leaf = NULL;
        while (rest) {
            int p = __builtin_ctzll(rest);
            rest &= rest - 1;
            const Particle *l = c->leaves.v[c->g.payload[p]];
            if (leaf_matches(sc, l, e)) {
                hit |= 1ull << p;
                if (!leaf)
                    leaf = l;
            }
        }
        if (hit) {
            *m = (LCacheEntry){c, e->ns, e->local, pf->state, hit, pf->at_start, leaf};
            pf->state = hit;
            pf->at_start = false;
            return leaf;
        }
    }
    Buf exp = {0};
    expected_list(c, cand, &exp);
    bool known = in_target(sc, e->ns) && declares_element(sc->s, e->local);
    const char *what = known ? "unexpected" : "unknown element";
    const char *ns_note = !in_target(sc, e->ns) && e->ns[0] ? " (in another namespace)" : "";
    if (exp.len)
        schema_error(sc, known ? D_SCHEMA_ELEMENT : D_SCHEMA_UNKNOWN_ELEMENT, e->loc,
                     "%s <%s>%s in <%s>: expected %s", what, e->local, ns_note, pf->name,
                     exp.s);
    else
        schema_error(sc, known ? D_SCHEMA_ELEMENT : D_SCHEMA_UNKNOWN_ELEMENT, e->loc,
                     "%s <%s>%s in <%s>: no more elements are allowed here", what, e->local,
                     ns_note, pf->name);
    buf_free(&exp);
    return NULL;
}

/* The declaration of attribute `name` on c: among those whose name starts
 * with the same character only, most often one. */
static const AttrDecl *attr_decl(const CType *c, const char *name, size_t *index)
{
    unsigned char first = (unsigned char)name[0];
    for (unsigned i = first < 128 ? c->attr_by_first[first] : 0; i; i = c->attrs.v[i - 1].next_same)
        if (!strcmp(c->attrs.v[i - 1].name, name)) {
            *index = i - 1;
            return &c->attrs.v[i - 1];
        }
    return NULL;
}

/* Whether v[0..n) is a plain decimal number, digits only, that t takes
 * because t is an unsigned built-in, or a union with no facets of its own
 * whose first member is one (UInt32Type: xs:unsignedInt or hex): such
 * values (value="92", version="0") are checked faster than they are
 * looked up, and are mostly each written once.  false: not known so, to
 * be checked in full. */
static bool plain_unsigned(const SType *t, const char *v, size_t n)
{
    if (t->members.n && !t->enums.n && !t->patterns.n)
        t = t->members.v[0];
    Builtin b = t->builtin;
    uint64_t max = b == B_UBYTE ? 255 : b == B_USHORT ? 65535 : b == B_UINT ? 4294967295u
                 : b == B_ULONG || b == B_NONNEG ? UINT64_MAX : 0;
    if (!max || n == 0 || n > 19) /* 19 digits: below 2^64 */
        return false;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)((unsigned char)v[i] - '0');
        if (d > 9)
            return false;
        x = x * 10 + d;
    }
    return x <= max;
}

/* Whether v[0..n) is a value of t, through sc->vcache; epoch: the
 * reader's xml_ns_epoch. */
static bool value_valid(SchemaCheck *sc, const SType *t, const char *v, size_t n,
                        uint64_t epoch)
{
    if (any_text(t))
        return true; /* nothing to remember */
    if (plain_unsigned(t, v, n))
        return true;
    bool unique = t->patterns.n && t->base && t->base->builtin == B_STRING;
    if (unique && !t->enums.n && !t->has_min && !t->has_max && t->length < 0 &&
        t->min_length < 0 && t->max_length < 0) {
        /* patterns only: what type_valid and facets_valid come to */
        for (size_t i = 0; i < t->patterns.n; i++)
            if (re_match(t->patterns.v[i], v, n))
                return true;
        return false;
    }
    if (n >= VCACHE_TEXT || unique)
        return type_valid(&sc->ck, t, v, n);
    const unsigned char *u = (const unsigned char *)v;
    size_t h = (size_t)((uintptr_t)t >> 4) * 31 + n * 7;
    if (n)
        h += u[0] + u[n / 2] * 3 + u[n - 1] * 5 + u[n >= 2 ? n - 2 : 0] * 11;
    VCacheEntry *set = &sc->vcache[h % (VCACHE / 2) * 2];
    for (VCacheEntry *c = set; c < set + 2; c++)
        if (c->type == t && c->len == n && c->epoch == epoch && memcmp(c->text, v, n) == 0)
            return true;
    if (!type_valid(&sc->ck, t, v, n))
        return false;
    set[1] = set[0]; /* the older entry of the two goes */
    VCacheEntry *c = &set[0];
    c->type = t;
    c->epoch = epoch;
    c->len = (uint32_t)n;
    memcpy(c->text, v, n);
    return true;
}

static bool check_attrs(SchemaCheck *sc, const CType *c, const XmlElem *e)
{
    int before = sc->errors;
    uint64_t seen = 0, epoch = sc->ck.r ? xml_ns_epoch(sc->ck.r) : 0;
    for (size_t i = 0; i < e->nattrs; i++) {
        const XmlAttr *a = &e->attrs[i];
        if (a->ns[0]) {
            if (!strcmp(a->ns, NS_XSI))
                continue;
            if (c->any_attr == 2 || (c->any_attr == 1 && !in_target(sc, a->ns)))
                continue;
            schema_error(sc, D_SCHEMA_ATTRIBUTE, a->loc,
                         "attribute '%s' of namespace '%s' is not allowed on <%s>", a->local,
                         a->ns, e->local);
            continue;
        }
        size_t idx;
        const AttrDecl *d = attr_decl(c, a->local, &idx);
        if (!d) {
            if (c->any_attr == 2)
                continue;
            schema_error(sc, D_SCHEMA_ATTRIBUTE, a->loc, "unknown attribute '%s' on <%s>",
                         a->local, e->local);
            continue;
        }
        seen |= 1ull << idx;
        sc->ck.why = NULL;
        if (!value_valid(sc, d->type, a->value, a->value_len, epoch)) {
            if (sc->ck.why)
                schema_error(sc, D_SCHEMA_VALUE, a->loc,
                             "invalid value '%s' of attribute '%s' on <%s>: %s", a->value,
                             a->local, e->local, sc->ck.why);
            else
                schema_error(sc, D_SCHEMA_VALUE, a->loc,
                             "invalid value '%s' of attribute '%s' on <%s>: expected %s",
                             a->value, a->local, e->local,
                             type_desc((Schema *)sc->s, d->type));
        }
    }
    uint64_t missing = c->required & ~seen;
    while (missing) {
        int i = __builtin_ctzll(missing);
        missing &= missing - 1;
        schema_error(sc, D_SCHEMA_MISSING_ATTRIBUTE, e->loc,
                     "<%s> is missing the required attribute '%s'", e->local,
                     c->attrs.v[i].name);
    }
    return sc->errors == before;
}

bool schema_start(SchemaCheck *sc, XmlReader *r, const XmlElem *e)
{
    sc->ck.r = r;
    SFrame nf = {e->local, NULL, 0, true};
    if (!sc->stack.n) {
        /* the root: read_man.c reports a wrong one (D_XML_ROOT) */
        if (in_target(sc, e->ns) && !strcmp(e->local, "instrumentationManifest")) {
            nf.type = sc->s->root;
            vec_push(&sc->stack, nf);
            return check_attrs(sc, nf.type, e);
        }
        vec_push(&sc->stack, nf);
        return true;
    }
    SFrame *pf = &sc->stack.v[sc->stack.n - 1];
    if (!pf->type) {
        vec_push(&sc->stack, nf);
        return true;
    }
    const Particle *leaf = child_leaf(sc, pf, e);
    if (!leaf) {
        vec_push(&sc->stack, nf);
        return false;
    }
    if (leaf->kind == P_ANY || !leaf->type) {
        vec_push(&sc->stack, nf);
        return true;
    }
    nf.type = leaf->type;
    vec_push(&sc->stack, nf);
    if (leaf->type->content != CT_SIMPLE && !leaf->type->mixed)
        xml_drop_blank_text(r); /* schema_end asks only whether it is blank */
    return check_attrs(sc, leaf->type, e);
}

/* An element its parent's content model allows once, met again, which
 * read_man.c accepts (a second <channels> in a <provider>, as mc does):
 * checked against the declaration it matched the first time, the parent's
 * state left as it was. */
bool schema_start_again(SchemaCheck *sc, XmlReader *r, const XmlElem *e)
{
    SFrame *pf = sc->stack.n ? &sc->stack.v[sc->stack.n - 1] : NULL;
    const Particle *leaf = NULL;
    if (pf && pf->type && pf->type->content == CT_ELEMENTS)
        for (size_t i = 0; i < pf->type->leaves.n && !leaf; i++)
            if (pf->type->leaves.v[i]->kind == P_ELEM && leaf_matches(sc, pf->type->leaves.v[i], e))
                leaf = pf->type->leaves.v[i];
    if (!leaf)
        return schema_start(sc, r, e);
    sc->ck.r = r;
    SFrame nf = {e->local, leaf->type, 0, true};
    vec_push(&sc->stack, nf);
    return !leaf->type || check_attrs(sc, leaf->type, e);
}

/* A part of a Windows component manifest (an <instrumentation>,
 * <localization> or <metadata> under an <assembly> root, read_man.c):
 * checked as the one child of an <instrumentationManifest> of its own, the
 * document `xmllint --schema` validates when the part is cut out
 * (tests/corpus_test.py).  The component's other elements are not the
 * schema's business and are never passed here. */
bool schema_start_part(SchemaCheck *sc, XmlReader *r, const XmlElem *e)
{
    SFrame root = {"instrumentationManifest", sc->s->root, 0, true};
    vec_push(&sc->stack, root);
    return schema_start(sc, r, e);
}

bool schema_end_part(SchemaCheck *sc, const XmlElem *e, const char *text, size_t len)
{
    bool ok = schema_end(sc, e, text, len);
    if (sc->stack.n)
        sc->stack.n--; /* the part's own root: one child, complete */
    return ok;
}

/* Whether t[0..n) is all white space: an element's text between its
 * child elements, mostly a line break and a run of spaces, which are
 * skipped 8 at a time. */
static bool blank(const char *t, size_t n)
{
    const uint64_t spaces = 0x2020202020202020ULL;
    for (size_t i = 0; i < n;) {
        uint64_t w;
        if (i + 8 <= n && (memcpy(&w, t + i, 8), w == spaces)) {
            i += 8;
            continue;
        }
        if (!is_ws(t[i++]))
            return false;
    }
    return true;
}

bool schema_end(SchemaCheck *sc, const XmlElem *e, const char *text, size_t len)
{
    if (!sc->stack.n)
        return true;
    SFrame f = sc->stack.v[--sc->stack.n];
    const CType *c = f.type;
    if (!c)
        return true;
    int before = sc->errors;
    if (c->content == CT_SIMPLE) {
        sc->ck.why = NULL;
        if (!any_text(c->text) && !type_valid(&sc->ck, c->text, text, len)) {
            Buf shown = {0};
            buf_add(&shown, text, len > 60 ? 60 : len);
            schema_error(sc, D_SCHEMA_VALUE, e->loc, "invalid content '%s%s' of <%s>: %s%s",
                         shown.s ? shown.s : "", len > 60 ? "..." : "", e->local,
                         sc->ck.why ? "" : "expected ",
                         sc->ck.why ? sc->ck.why : type_desc((Schema *)sc->s, c->text));
            buf_free(&shown);
        }
        return sc->errors == before;
    }
    if (!c->mixed && !blank(text, len))
        schema_error(sc, D_SCHEMA_TEXT, e->loc, "<%s> may not contain text, only %s", e->local,
                     c->content == CT_ELEMENTS ? "elements" : "attributes");
    if (c->content != CT_ELEMENTS)
        return sc->errors == before;
    uint64_t need = 0;
    if (c->all) {
        if (!(c->all_empty && f.state == 0))
            for (size_t i = 0; i < c->leaves.n; i++)
                if (c->leaves.v[i]->min > 0 && !(f.state >> i & 1))
                    need |= 1ull << i;
    } else if (!gl_accepts(&c->g, f.state, f.at_start)) {
        need = gl_next(&c->g, f.state, f.at_start);
    }
    if (need) {
        Buf exp = {0};
        expected_list(c, need, &exp);
        schema_error(sc, D_SCHEMA_MISSING_ELEMENT, e->loc, "<%s> is incomplete: expected %s",
                     e->local, exp.s);
        buf_free(&exp);
    }
    return sc->errors == before;
}
