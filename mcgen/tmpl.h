/*
 * tmpl.h - mcgen's template engine: Jinja's language (../shared/docs/DESIGN.md,
 * "The template language"; docs/templates.md lists it and where it is not
 * Jinja).  It knows nothing of manifests: it renders a template against a
 * generic value tree (none, booleans, integers, strings, lists,
 * dictionaries) that a caller builds.
 *
 *   {{ expr }}   expr: literals ('s', 12, true, none, [..], {k: v}, (..)),
 *                names, a.b, a[i], a[i:j:k], calls of macros, methods and
 *                range/dict/super, filters x | f(args), tests x is [not] t,
 *                a if c else b, + - * / // % ** ~, comparisons, in, and, or, not
 *   {% if %} {% elif %} {% else %} {% endif %}
 *   {% for x in seq %} ... {% else %} ... {% endfor %}   (for k, v in d.items())
 *   {% set x = expr %}  {% set x %}...{% endset %}  {% with a = 1 %}...{% endwith %}
 *   {% macro name(a, b=1) %} ... {% endmacro %}  {% filter f %}...{% endfilter %}
 *   {% include "x.j2" %}  {% import "x.j2" as m %}  {% from "x.j2" import a %}
 *   {% extends "x.j2" %}  {% block b %}...{% endblock %}  {% raw %}...{% endraw %}
 *   {# comment #}  {%- -%} {{- -}} trim white space; block tags on their
 *   own line take the line with them (Jinja's trim_blocks + lstrip_blocks).
 *
 * Templates are parsed once into a tree, then rendered any number of
 * times; filter and test names are resolved when parsed.  Errors name the
 * template, line and column, then show the line and a caret.  An
 * undefined name is an error, not an empty string.
 *
 * Bounded by construction: blocks, expressions and the lists a template
 * writes nest at most TMPL_MAX_NESTING deep, integer arithmetic that
 * overflows 64 bits or divides by zero is an error, and a render stops
 * with an error at the limits of TmplLimits (output bytes, string and
 * list length, loop iterations, macro calls and the items filters walk).
 * docs/templates.md gives the defaults and why.
 */
#ifndef MCGEN_TMPL_H
#define MCGEN_TMPL_H

#include "util.h"

typedef enum { TV_NONE, TV_BOOL, TV_INT, TV_STR, TV_LIST, TV_DICT, TV_MACRO } TValueKind;

typedef struct TValue TValue;
/* Makes item i of a generated list in the arena a (tv_generated). */
typedef TValue *(*TvGen)(const void *ctx, size_t i, Arena *a);
struct TValue {
    TValueKind kind;
    bool b;
    int64_t i;
    const char *s; /* TV_STR: NUL-terminated */
    size_t n;      /* TV_STR length; TV_LIST/TV_DICT element count */
    size_t cap;
    TValue **items;     /* TV_LIST elements, TV_DICT values */
    const char **keys;  /* TV_DICT keys (insertion order) */
    const void *macro;  /* TV_MACRO: the macro's node; a generated TV_LIST: gen's ctx */
    TvGen gen;          /* a generated TV_LIST: makes its items (items is NULL) */
    int depth; /* a list or dictionary a template made: how deep it nests (0: the caller's) */
};

/* Building values; all memory comes from the arena. */
TValue *tv_none(Arena *a);
TValue *tv_bool(Arena *a, bool b);
TValue *tv_int(Arena *a, int64_t i);
TValue *tv_str(Arena *a, const char *s); /* copies s */
/* A string that is s itself, not a copy: s must outlive the value (a
 * literal, the model's, or made in the same arena before it). */
TValue *tv_strref(Arena *a, const char *s);
TValue *tv_list(Arena *a);
TValue *tv_dict(Arena *a);
void tv_push(Arena *a, TValue *list, TValue *v);
void tv_set(Arena *a, TValue *dict, const char *key, TValue *v); /* replaces */
TValue *tv_get(const TValue *dict, const char *key);                /* NULL if absent */
/* A list of n items made only when asked for, by gen(ctx, i, arena): a
 * loop over it makes each item in its iteration's memory and gives that
 * back when the iteration ends, so a long list of dictionaries (a header's
 * events) never exists whole.  Each call makes a new item: gen must give
 * equal values for equal i, and ctx must outlive every render. */
TValue *tv_generated(Arena *a, size_t n, TvGen gen, const void *ctx);
/* Item i (< list->n) of a list; a generated list makes it in a. */
TValue *tv_item(const TValue *list, size_t i, Arena *a);
/* Adds a key the dictionary does not have yet, without copying it (it
 * must outlive the dictionary: a literal or an arena string): the fast
 * way to fill a fresh dictionary. */
void tv_add(Arena *a, TValue *dict, const char *key, TValue *v);

typedef struct Tmpl Tmpl;

/* Finds an included template's text by name; NULL when there is none. */
typedef struct TmplLoader {
    void *ctx;
    const char *(*load)(void *ctx, const char *name, size_t *len);
} TmplLoader;

/* How deep blocks may nest in blocks, and expressions in expressions
 * (parentheses, operands, chains of operators or filters): the parser,
 * the renderer and the dump recurse on both. */
enum { TMPL_MAX_NESTING = 256 };

/* What one render may do (all of it, includes and macro calls counted
 * in); crossing a limit ends the render with an error naming it. */
typedef struct TmplLimits {
    uint64_t max_output;     /* bytes written to `out` */
    uint64_t max_string;     /* bytes of one string the template makes: ~, +, *,
                                a filter's result, a macro call's text; and of
                                one list it makes, 96 bytes an item */
    uint64_t max_iterations; /* loop iterations, macro calls, includes, imports
                                and the items filters and comparisons walk */
} TmplLimits;
/* 512 MiB, 16 MiB, 5,000,000 (docs/templates.md says why) */
extern const TmplLimits tmpl_default_limits;
/* For templates whose work the caller knows to be bounded otherwise (the
 * built-in ones: linear in the model). */
extern const TmplLimits tmpl_no_limits;

/* Parses a template; NULL with "name:line:col: error: ..." in err. */
Tmpl *tmpl_parse(const char *name, const char *src, size_t len, Buf *err);
/* Renders against the dictionary `vars` within `limits` (NULL: the
 * defaults); false with the error in err.  What was written to `out` before
 * an error stays there (callers discard it). */
bool tmpl_render(const Tmpl *t, const TValue *vars, const TmplLoader *loader,
                 const TmplLimits *limits, Buf *out, Buf *err);
/* Where a streamed render's text goes, as it is made: `write` gets it in
 * order, in pieces that each end with a line end ('\n'), but the last
 * piece, which ends where the text ends.  So a piece never splits a line,
 * a CR LF pair or a UTF-8 character, and the caller can convert it line by
 * line on its way out. */
typedef struct TmplSink {
    void *ctx;
    void (*write)(void *ctx, const char *s, size_t n);
} TmplSink;
/* A sink that appends to b. */
TmplSink tmpl_buf_sink(Buf *b);
/* tmpl_render into a sink: the text is handed on in pieces of about
 * 64 KiB (whole lines), so a render holds no more of its output than
 * that.  What was handed on before an error stays handed on (callers
 * discard it). */
bool tmpl_render_to(const Tmpl *t, const TValue *vars, const TmplLoader *loader,
                    const TmplLimits *limits, const TmplSink *out, Buf *err);
/* The parsed tree, one node a line, for tests. */
void tmpl_dump(const Tmpl *t, Buf *out);
void tmpl_free(Tmpl *t);

#endif
