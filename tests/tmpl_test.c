/*
 * tmpl_test.c - the template engine on its own, with no manifest: every
 * construct, the white-space rules, every error message word for word,
 * and 10,000 random mutations of a template that uses everything (each
 * must end in output or a clean error; ASan and UBSan watch).
 * Expected outputs are written out by hand from the language's rules.
 */
#include <stdlib.h>
#include <string.h>

#include "tmpl.h"
#include "unit.h"

static Arena va;

static TValue *vars(void)
{
    TValue *d = tv_dict(&va), *items = tv_list(&va), *sub = tv_dict(&va);
    tv_set(&va, d, "name", tv_str(&va, "Event"));
    tv_set(&va, d, "n", tv_int(&va, 26));
    tv_push(&va, items, tv_str(&va, "a"));
    tv_push(&va, items, tv_str(&va, "b"));
    tv_push(&va, items, tv_str(&va, "c"));
    tv_set(&va, d, "items", items);
    tv_set(&va, sub, "k", tv_str(&va, "v"));
    tv_set(&va, d, "d", sub);
    tv_set(&va, d, "empty", tv_list(&va));
    tv_set(&va, d, "flag", tv_bool(&va, true));
    tv_set(&va, d, "nothing", tv_none(&va));
    return d;
}

static const char *part_loader(void *ctx, const char *name, size_t *len)
{
    (void)ctx;
    static const char part[] = "inc: {{ name }}{% set hidden = 1 %}";
    static const char loop[] = "{% include 'loop.j2' %}";
    if (strcmp(name, "part.j2") == 0)
        return *len = strlen(part), part;
    if (strcmp(name, "loop.j2") == 0)
        return *len = strlen(loop), loop;
    return NULL;
}

static const TmplLoader loader = {NULL, part_loader};

/* Renders src within lim (NULL: the defaults); returns the output or the
 * error text (caller frees). */
static char *run_within(const char *src, const TmplLimits *lim, bool *ok)
{
    Buf out = {0}, err = {0};
    Tmpl *t = tmpl_parse("t.j2", src, strlen(src), &err);
    *ok = t && tmpl_render(t, vars(), &loader, lim, &out, &err);
    tmpl_free(t);
    char *r = xstrdup(*ok ? (out.s ? out.s : "") : (err.s ? err.s : ""));
    buf_free(&out);
    buf_free(&err);
    return r;
}

static char *run(const char *src, bool *ok) { return run_within(src, NULL, ok); }

/* An error's first line, its message (caller frees): the line and caret
 * under it are asserted on their own (test_tmpl_error_line_and_caret). */
static char *message(const char *err)
{
    const char *nl = strchr(err, '\n');
    char *s = xstrdup(err);
    if (nl)
        s[nl - err] = 0;
    return s;
}

/* got is want: the whole error when want has a caret line, its message
 * when not */
static void same_error(const char *got, const char *want)
{
    char *first = strchr(want, '\n') ? xstrdup(got) : message(got);
    ck_assert_str_eq(first, want);
    free(first);
}

static void expect_out(const char *src, const char *want)
{
    bool ok;
    char *got = run(src, &ok);
    ck_assert_msg(ok, "failed: %s", got);
    ck_assert_str_eq(got, want);
    free(got);
}

static void expect_err(const char *src, const char *want)
{
    bool ok;
    char *got = run(src, &ok);
    ck_assert_msg(!ok, "rendered: %s", got);
    same_error(got, want);
    free(got);
}

START_TEST(test_tmpl_expressions_and_filters)
{
    expect_out("{{ name | upper }} {{ name | lower }} {{ n | hex(4) }} {{ n | hex }}",
               "EVENT event 0x001A 0x1A");
    expect_out("{{ items | join(', ') }}|{{ items | join }}|{{ d.k }}|{{ d['k'] }}|{{ items[1] }}"
               "|{{ items[-1] }}",
               "a, b, c|abc|v|v|b|c");
    expect_out("{{ items | length }} {{ name | length }} {{ missing | default('x') }} "
               "{{ nothing | default(7) }} {{ items | first }}{{ items | last }}",
               "3 5 x 7 ac");
    expect_out("{{ 'say \"hi\"\\n' | cstring }}", "\"say \\\"hi\\\"\\n\"");
    /* integers and hex as printf's %lld and 0x%0*llX print them */
    expect_out("{{ 0 }} {{ 7 }} {{ -7 }} {{ 9223372036854775807 }} {{ -9223372036854775807 - 1 }}",
               "0 7 -7 9223372036854775807 -9223372036854775808");
    expect_out("{{ 0 | hex }} {{ 0 | hex(4) }} {{ 4096 | hex(2) }} {{ 255 | hex(16) }} "
               "{{ (-1) | hex }} {{ (0 - 1) | hex(0) }} {{ 10 | hex(1) }}",
               "0x0 0x0000 0x1000 0x00000000000000FF 0xFFFFFFFFFFFFFFFF 0xFFFFFFFFFFFFFFFF 0xA");
    expect_out("{{ n + 1 }} {{ n - 30 }} {{ -n }} {{ name ~ '!' ~ n }} {{ 'a' + 'b' }}",
               "27 -4 -26 Event!26 ab");
    expect_out("{{ 'x.y.z' | replace('.', '::') }}|{{ 'l1\\nl2\\n\\nl3' | indent(2) }}",
               "x::y::z|l1\n  l2\n\n  l3");
    expect_out("{{ true }} {{ false }} {{ none }}|{{ flag and n == 26 }} {{ not flag or false }}",
               "true false |true false");
    expect_out("{{ 'b' in items }} {{ 'z' not in items }} {{ 'k' in d }} {{ 'ven' in name }} "
               "{{ n >= 26 }} {{ n < 26 }} {{ 'a' < 'b' }} {{ (n + 4) > 29 }}",
               "true true true true true false true true");
}
END_TEST

START_TEST(test_tmpl_for_if_set_macro_include_comment)
{
    expect_out("{% for x in items %}{{ loop.index }}{{ loop.index0 }}:{{ x }}"
               "{% if not loop.last %},{% endif %}{% if loop.first %}({{ loop.length }}){% endif %}"
               "{% else %}none{% endfor %}",
               "10:a,(3)21:b,32:c");
    expect_out("{% for x in empty %}{{ x }}{% else %}none{% endfor %}", "none");
    expect_out("{% if n > 30 %}big{% elif n == 26 and 'b' in items %}yes{% else %}no{% endif %}",
               "yes");
    expect_out("{% if nothing %}a{% elif empty %}b{% else %}c{% endif %}", "c");
    expect_out("{% set greeting = 'Hi' %}{% macro greet(who, mark) %}{{ greeting }}, {{ who }}"
               "{{ mark }}{% endmacro %}{{ greet(name, '!') }} {{ greet('you', '?') | upper }}",
               "Hi, Event! HI, YOU?");
    expect_out("{% for x in items %}{% set last = x %}{% endfor %}{{ last | default('-') }}", "-");
    expect_out("[{% include 'part.j2' %}]{{ hidden | default('not leaked') }}",
               "[inc: Event]not leaked");
    expect_out("a{# a comment {{ with }} tags #}b", "ab");
}
END_TEST

/* A name is found in the nearest scope that holds it, whichever scope held
 * it a moment before (each scope keeps a mask of its names' hash bits). */
START_TEST(test_tmpl_names_from_the_nearest_scope)
{
    expect_out("{% set name = 'top' %}{% for x in items %}{% if x == 'b' %}{% set name = x %}"
               "{% endif %}{{ name }}{% endfor %}{{ name }}",
               "topbtoptop");
    expect_out("{% for x in items %}{{ n }}{% set n = x %}{{ n }}{% endfor %}{{ n }}",
               "26a26b26c26");
    expect_out("{% for name in items %}{{ name }}{% endfor %}{{ name }}", "abcEvent");
    expect_out("{% macro m(n) %}{{ n }}{{ name }}{% endmacro %}{{ m(1) }}{{ n }}", "1Event26");
    expect_out("{{ undefined_name | default('-') }}{{ name }}", "-Event");
}
END_TEST

/* Each iteration starts from the loop's own names: what the last one set
 * (a new name, a loop variable replaced, more names than the scope first
 * had room for) is gone. */
START_TEST(test_tmpl_iteration_sees_nothing_of_the_last)
{
    expect_out("{% for x in items %}{{ q | default('-') }}{% set q = x %}{{ q }}{% endfor %}",
               "-a-b-c");
    expect_out("{% for x in items %}{{ loop.index }}{% set loop = 'L' %}{{ loop }}"
               "{{ x }}{% set x = 'y' %}{{ x }}{% endfor %}",
               "1Lay2Lby3Lcy");
    expect_out("{% for x in items %}{{ a9 | default('-') }}{% set a1 = x %}{% set a2 = x %}"
               "{% set a3 = x %}{% set a4 = x %}{% set a5 = x %}{% set a6 = x %}{% set a7 = x %}"
               "{% set a8 = x %}{% set a9 = a1 ~ a8 %}{{ a9 }}{{ loop.index }}{{ loop.last }}"
               "{% endfor %}",
               "-aa1false-bb2false-cc3true");
}
END_TEST

/* tv_strref: the string itself, not a copy, rendered as any string. */
START_TEST(test_tmpl_string_by_reference)
{
    static const char text[] = "by reference";
    TValue *d = tv_dict(&va), *v = tv_strref(&va, text);
    ck_assert_ptr_eq(v->s, text);
    ck_assert_uint_eq(v->n, strlen(text));
    tv_add(&va, d, "s", v);
    static const char src[] = "{{ s }}: {{ s | length }}";
    Buf out = {0}, err = {0};
    Tmpl *t = tmpl_parse("t.j2", src, strlen(src), &err);
    ck_assert_ptr_nonnull(t);
    ck_assert(tmpl_render(t, d, NULL, NULL, &out, &err));
    ck_assert_str_eq(out.s, "by reference: 12");
    buf_free(&out);
    buf_free(&err);
    tmpl_free(t);
}
END_TEST

START_TEST(test_tmpl_white_space)
{
    /* block tags alone on their line take the line with them */
    expect_out("start\n  {% if true %}\n    inside\n  {% endif %}\nend\n",
               "start\n    inside\nend\n");
    expect_out("{% for x in items %}\n{{ x }}\n{% endfor %}\n", "a\nb\nc\n");
    expect_out("  {# note #}\nnext", "next");
    /* an output tag keeps its line; a block tag after text keeps the text */
    expect_out("  {{ n }}\n", "  26\n");
    expect_out("x {% if true %}y{% endif %} z\n", "x y z\n");
    /* "-" trims white space, newlines included */
    expect_out("a  \n {{- 'b' -}} \n  c", "abc");
    expect_out("a\n  {%- if true -%}\n  b\n{%- endif %}\n", "ab");
    expect_out("line\r\n{% if true %}\r\nx\r\n{% endif %}\r\n", "line\r\nx\r\n");
}
END_TEST

START_TEST(test_tmpl_dump)
{
    Buf err = {0}, d = {0};
    const char *src = "{% for x in items %}{{ x | upper }}{% else %}-{% endfor %}"
                      "{% if a == 1 %}{% elif not b %}{% else %}e{% endif %}"
                      "{% set y = d.k[0] %}{% macro m(p, q) %}{{ p ~ q }}{% endmacro %}"
                      "{% include 'x.j2' %}";
    Tmpl *t = tmpl_parse("t.j2", src, strlen(src), &err);
    ck_assert_ptr_nonnull(t);
    tmpl_dump(t, &d);
    ck_assert_str_eq(d.s, "for x in items\n"
                          "  output (x | upper())\n"
                          "else\n"
                          "  text -\n"
                          "if (a == 1)\n"
                          "elif (not b)\n"
                          "else\n"
                          "  text e\n"
                          "set y = d.k[0]\n"
                          "macro m(p, q)\n"
                          "  output (p ~ q)\n"
                          "include 'x.j2'\n");
    tmpl_free(t);
    buf_free(&err);
    buf_free(&d);
}
END_TEST

START_TEST(test_tmpl_errors_word_for_word)
{
    expect_err("line1\n{% for x in items %}\n{{ x }}\n",
               "t.j2:4:1: error: '{% endfor %}' expected (to close 'for' at line 2)");
    expect_err("{% if flag %}a{% else %}b", "t.j2:1:26: error: '{% endif %}' expected (to close "
                                            "'if' at line 1)");
    expect_err("{{ name | shout }}", "t.j2:1:11: error: unknown filter 'shout'");
    expect_err("{{ name | lenght }}", "t.j2:1:11: error: unknown filter 'lenght' (did you mean "
                                      "'length'?)");
    expect_err("{{ nmae }}", "t.j2:1:4: error: undefined name 'nmae' (did you mean 'name'?)");
    expect_err("{{ nope }}", "t.j2:1:4: error: undefined name 'nope'");
    expect_err("{{ d.nope }}", "t.j2:1:6: error: no attribute 'nope' (the keys are: k)");
    expect_err("{{ d['j'] }}", "t.j2:1:6: error: no key 'j' (did you mean 'k'? the keys are: k)");
    expect_err("{{ {}.x }}", "t.j2:1:7: error: no attribute 'x' (the dictionary is empty)");
    expect_err("{% endif %}", "t.j2:1:4: error: 'endif' without an open block");
    expect_err("{% set none = 1 %}", "t.j2:1:8: error: 'none' is a literal, not a variable name");
    expect_err("abc {{ name", "t.j2:1:5: error: '}}' expected (to close '{{' at line 1)");
    expect_err("{{ }}", "t.j2:1:4: error: expression expected");
    expect_err("{% frobnicate %}", "t.j2:1:4: error: unknown statement 'frobnicate'");
    expect_err("{% fro x in items %}", "t.j2:1:4: error: unknown statement 'fro' (did you mean "
                                       "'for'?)");
    expect_err("{% macro m(a) %}{% endmacro %}{{ m(1, 2) }}",
               "t.j2:1:35: error: macro 'm' has 1 parameters, called with 2 arguments");
    expect_err("{{ items }}", "t.j2:1:4: error: a list cannot be printed");
    expect_err("{% for x in n %}{% endfor %}", "t.j2:1:13: error: 'for' needs a list, not an "
                                               "integer");
    expect_err("{{ name | hex }}", "t.j2:1:11: error: filter 'hex' needs an integer, not a "
                                   "string");
    expect_err("{{ items[5] }}", "t.j2:1:10: error: index 5 outside a list of 3");
    expect_err("{% include 'none.j2' %}", "t.j2:1:1: error: cannot include 'none.j2': no such "
                                          "template");
    expect_err("{% include 'loop.j2' %}", "loop.j2:1:1: error: includes nested more than 64 "
                                          "deep");
    expect_err("{{ 'abc }}", "t.j2:1:4: error: unterminated string");
    expect_err("{{ a $ b }}", "t.j2:1:6: error: unexpected character '$'");
    expect_err("{{ name name }}", "t.j2:1:9: error: end of tag expected, found 'name'");
}
END_TEST

/* The error tmpl_parse gives for src (it must fail: not a render error). */
static void expect_parse_err(const char *src, const char *want)
{
    Buf err = {0};
    Tmpl *t = tmpl_parse("t.j2", src, strlen(src), &err);
    ck_assert_msg(!t, "parsed: %s", src);
    same_error(err.s, want);
    buf_free(&err);
}

/* A filter's name and arity are resolved when the template is parsed: a
 * mistake in a branch, loop or macro that never runs is still found. */
START_TEST(test_tmpl_filters_resolved_when_parsed)
{
    expect_parse_err("{% if false %}{{ x | shout }}{% endif %}",
                     "t.j2:1:22: error: unknown filter 'shout'");
    expect_parse_err("{% for x in ] %}{% endfor %}", "t.j2:1:13: error: expression expected");
    expect_parse_err("{% if false %}{{ x is evn }}{% endif %}",
                     "t.j2:1:23: error: unknown test 'evn' (did you mean 'even'?)");
    expect_parse_err("{{ items | map('uper') }}",
                     "t.j2:1:16: error: unknown filter 'uper' (did you mean 'upper'?)");
    expect_parse_err("{{ items | selectattr('k', 'eq1', 1) }}",
                     "t.j2:1:28: error: unknown test 'eq1' (did you mean 'eq'?)");
    expect_parse_err("{{ items | select(name) }}",
                     "t.j2:1:19: error: filter 'select' takes the name of a test as a string "
                     "literal");
    expect_parse_err("{{ items | sort(atribute='k') }}",
                     "t.j2:1:26: error: filter 'sort' has no argument 'atribute'");
    expect_parse_err("{% for x in empty %}{{ x | upper | nope(1) }}{% endfor %}",
                     "t.j2:1:36: error: unknown filter 'nope'");
    expect_parse_err("{% macro m() %}\n  {{ 1 | replace('a') }}\n{% endmacro %}",
                     "t.j2:2:10: error: filter 'replace' takes 2 to 3 arguments, not 1");
    expect_parse_err("{% if flag %}{% else %}{{ n | hex(1, 2) }}{% endif %}",
                     "t.j2:1:31: error: filter 'hex' takes 0 to 1 arguments, not 2");
    expect_parse_err("{{ x | default(1, 2, 3) }}", "t.j2:1:8: error: filter 'default' takes 0 "
                                                   "to 2 arguments, not 3");
    /* the names are exact: no case folding, no prefixes */
    expect_parse_err("{{ x | Upper }}", "t.j2:1:8: error: unknown filter 'Upper' (did you mean "
                                        "'upper'?)");
    expect_parse_err("{{ x | to }}", "t.j2:1:8: error: unknown filter 'to'");
    /* and a known filter in an untaken branch costs nothing at run time */
    expect_out("{% if false %}{{ nope | upper }}{% endif %}ok", "ok");
}
END_TEST

/* tojson: the value as compact JSON (RFC 8259), dictionaries in their
 * order, strings escaped. */
START_TEST(test_tmpl_tojson)
{
    expect_out("{{ d | tojson }} {{ items | tojson }} {{ n | tojson }} {{ (-n) | tojson }}",
               "{\"k\":\"v\"} [\"a\",\"b\",\"c\"] 26 -26");
    expect_out("{{ flag | tojson }} {{ nothing | tojson }} {{ empty | tojson }}",
               "true null []");
    expect_out("{{ 'q\"\\\\ \\n\\t' | tojson }}", "\"q\\\"\\\\ \\n\\t\"");
    expect_err("{% macro m() %}{% endmacro %}{{ m | tojson }}",
               "t.j2:1:37: error: filter 'tojson': a macro cannot be written as JSON");
}
END_TEST

/* ---- bounded by construction ---- */

/* A string of n copies of s, followed by tail (caller frees). */
static char *repeat(const char *head, const char *s, int n, const char *tail)
{
    Buf b = {0};
    buf_adds(&b, head);
    for (int i = 0; i < n; i++)
        buf_adds(&b, s);
    buf_adds(&b, tail);
    return b.s;
}

/* Renders src within lim: want is the output (want_ok) or the error. */
static void expect_within(const char *src, const TmplLimits *lim, bool want_ok, const char *want)
{
    bool ok;
    char *got = run_within(src, lim, &ok);
    ck_assert_msg(ok == want_ok, "%s: %s", src, got);
    if (ok)
        ck_assert_str_eq(got, want);
    else
        same_error(got, want);
    free(got);
}

static void expect_out_owned(char *src, const char *want)
{
    expect_out(src, want);
    free(src);
}

static void expect_err_owned(char *src, const char *want)
{
    expect_err(src, want);
    free(src);
}

/* Blocks nest at most TMPL_MAX_NESTING deep: 256 is fine, the 257th
 * opening tag is the error (each '{% if true %}' is 13 columns wide). */
START_TEST(test_tmpl_nesting_blocks)
{
    ck_assert_int_eq(TMPL_MAX_NESTING, 256);
    char *ends = repeat("", "{% endif %}", 256, "");
    char *src = repeat("", "{% if true %}", 256, "x");
    char *ok = repeat(src, "", 0, ends);
    expect_out_owned(ok, "x");
    free(src);
    src = repeat("", "{% if true %}", 100000, "");
    expect_err_owned(src, "t.j2:1:3329: error: blocks nested more than 256 deep");
    expect_err_owned(repeat("", "{% for x in items %}", 300, ""),
                     "t.j2:1:5121: error: blocks nested more than 256 deep");
    expect_err_owned(repeat("", "{% macro m() %}", 300, ""),
                     "t.j2:1:3841: error: blocks nested more than 256 deep");
    /* set and include open no block: 256 ifs around them are fine */
    src = repeat("", "{% if true %}", 256, "{% set y = 1 %}{{ y }}");
    expect_out_owned(repeat(src, "", 0, ends), "1");
    free(src);
    free(ends);
}
END_TEST

/* An expression's tree is at most 256 tall, and the parser recurses at
 * most 256 deep: chains of 100,000 operators or filters, parentheses,
 * 'not' and '-' are errors at the operator, filter or token that would
 * go deeper, not stack overflows. */
START_TEST(test_tmpl_nesting_expressions)
{
#define DEEP "expression nested more than 256 deep"
    /* head, unit repeated n times, tail: the output, or the error */
    static const struct {
        const char *head, *unit;
        int n;
        const char *tail, *want;
    } cases[] = {
        /* '"a" ~' chains: the k-th '~' makes a tree k + 1 tall, at column
         * 8 + 6 (k - 1); the 256th is too tall */
        {"{{ \"a\"", " ~ \"a\"", 100000, " }}", "t.j2:1:1538: error: " DEEP},
        /* 254 '~' and a filter: 256 tall */
        {"{{ (\"a\"", " ~ \"a\"", 254, ") | length }}", "255"},
        {"{{ \"a\"", "|upper", 100000, " }}", "t.j2:1:1538: error: " DEEP},
        {"{{ \"a\"", "|upper", 255, " }}", "A"},
        {"{{ 1", " + 1", 100000, " }}", "t.j2:1:1026: error: " DEEP},
        {"{{ flag", " and flag", 300, " }}", "t.j2:1:2304: error: " DEEP},
        {"{{ d", ".k", 300, " }}", "t.j2:1:516: error: " DEEP},
        /* parentheses make no node, but the parser recurses: the
         * expression that would be the 257th deep starts at column
         * 4 + 256 */
        {"{{ ", "(", 100000, "1 }}", "t.j2:1:260: error: " DEEP},
        {"{{ ", "not ", 100000, "true }}", "t.j2:1:1028: error: " DEEP},
        {"{{ ", "not ", 254, "true }}", "true"},
        {"{{ ", "-", 100000, "1 }}", "t.j2:1:260: error: " DEEP},
        {"{{ ", "-", 254, "1 }}", "1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *src = repeat(cases[i].head, cases[i].unit, cases[i].n, cases[i].tail);
        bool ok, want_ok = strstr(cases[i].want, "error:") == NULL;
        char *got = run(src, &ok);
        ck_assert_msg(ok == want_ok, "case %zu: %s", i, got);
        if (ok)
            ck_assert_str_eq(got, cases[i].want);
        else
            same_error(got, cases[i].want);
        free(got);
        free(src);
    }
    char *open = repeat("{{ ", "(", 255, "7");
    expect_out_owned(repeat(open, ")", 255, " }}"), "7");
    free(open);
#undef DEEP
}
END_TEST

/* 64-bit signed arithmetic: a result that does not fit is an error at
 * the operator, never a wrapped (or, in C, undefined) value. */
START_TEST(test_tmpl_arithmetic_checked)
{
    expect_out("{{ 9223372036854775806 + 1 }} {{ 0 - 9223372036854775807 - 1 }} "
               "{{ -9223372036854775807 }} {{ 0x7FFFFFFFFFFFFFFF }}",
               "9223372036854775807 -9223372036854775808 -9223372036854775807 "
               "9223372036854775807");
    expect_err("{{ 9223372036854775807 + 1 }}",
               "t.j2:1:24: error: 9223372036854775807 + 1 does not fit in 64 bits");
    expect_err("{{ 0 - 9223372036854775807 - 2 }}",
               "t.j2:1:28: error: -9223372036854775807 - 2 does not fit in 64 bits");
    expect_err("{{ 1 - (0 - 9223372036854775807 - 1) }}",
               "t.j2:1:6: error: 1 - -9223372036854775808 does not fit in 64 bits");
    expect_err("{{ -(0 - 9223372036854775807 - 1) }}",
               "t.j2:1:4: error: -(-9223372036854775808) does not fit in 64 bits");
    expect_err("{{ 9223372036854775808 }}",
               "t.j2:1:4: error: integer 9223372036854775808 does not fit in 64 bits (the "
               "largest is 9223372036854775807)");
    expect_err("{{ 0x8000000000000000 }}",
               "t.j2:1:4: error: integer 0x8000000000000000 does not fit in 64 bits (the "
               "largest is 9223372036854775807)");
    expect_err_owned(repeat("{{ ", "9", 40, " }}"),
                     "t.j2:1:4: error: integer 9999999999999999999999999999999... does not fit "
                     "in 64 bits (the largest is 9223372036854775807)");
    expect_err("{{ 12ab }}", "t.j2:1:4: error: invalid number '12ab'");
    /* widths are compared as 64-bit numbers, not cut to int first */
    expect_err("{{ n | hex(4294967300) }}", "t.j2:1:8: error: hex width 4294967300 (0 to 16)");
    expect_err("{{ 'a' | indent(4294967300) }}",
               "t.j2:1:10: error: indent width 4294967300 (0 to 64)");
}
END_TEST

/* The limits of one render, at their boundaries: exactly the limit is
 * allowed, one more is the error. */
START_TEST(test_tmpl_limits)
{
    TmplLimits lim = {10, 4, 3};
    expect_within("{{ name }}12345", &lim, true, "Event12345"); /* 5 + 5 bytes */
    expect_within("{{ name }}12345!", &lim, false,
                  "t.j2:1:11: error: the output would pass the limit of 10 bytes "
                  "(--template-max-output=BYTES raises it)");
    expect_within("{{ 'ab' ~ 'cd' }}", &lim, true, "abcd");
    expect_within("{{ 'ab' ~ 'cd' ~ 'e' }}", &lim, false,
                  "t.j2:1:16: error: a string would pass the limit of 4 bytes "
                  "(--template-max-string=BYTES raises it)");
    /* a macro's text, a filter's result, '+' of strings: strings too */
    const char *strings[] = {"{% macro m() %}abcde{% endmacro %}{{ m() }}",
                             "{{ 'abc' | cstring }}", "{{ items | join(', ') }}",
                             "{{ 'aaa' | replace('a', 'bb') }}", "{{ 'ab' + 'cde' }}",
                             "{{ name | upper }}", "{{ items | tojson }}",
                             "{{ 'a\nb\nc' | indent(1) }}"};
    for (size_t i = 0; i < sizeof strings / sizeof *strings; i++) {
        bool ok;
        char *got = run_within(strings[i], &lim, &ok);
        ck_assert_msg(!ok && strstr(got, "a string would pass the limit of 4 bytes"), "%s: %s",
                      strings[i], got);
        free(got);
    }
    /* iterations: the three of one loop are fine, a fourth (the macro
     * call) is not */
    expect_within("{% for x in items %}{{ x }}{% endfor %}", &lim, true, "abc");
    lim.max_output = 1000;
    expect_within("{% macro m() %}{% endmacro %}{% for x in items %}{% endfor %}{{ m() }}",
                  &lim, false,
                  "t.j2:1:66: error: more than 3 loop iterations, macro calls and "
                  "includes (--template-max-iterations=N raises the limit)");
    /* the inner loop's second round is the fourth */
    expect_within("{% for x in items %}{% for y in items %}{% endfor %}{% endfor %}", &lim,
                  false,
                  "t.j2:1:21: error: more than 3 loop iterations, macro calls and "
                  "includes (--template-max-iterations=N raises the limit)");
    /* a macro that calls itself twice: 2^61 calls without the count; the
     * 5,000,001st (calls counted as they are made, depth first) is a
     * second one, f(0) at column 49 */
    expect_err("{% macro f(k) %}{% if k > 0 %}{{ f(k - 1) }}{{ f(k - 1) }}{% endif %}"
               "{% endmacro %}{{ f(60) }}",
               "t.j2:1:49: error: more than 5000000 loop iterations, macro calls and includes "
               "(--template-max-iterations=N raises the limit)");
    /* a string that doubles itself stops at 16 MiB: the 21st doubling of
     * 16 bytes would make 32 MiB */
    char *dbl = repeat("{% set s = '0123456789abcdef' %}", "{% set s = s ~ s %}", 28, "{{ s }}");
    expect_err_owned(dbl, "t.j2:1:426: error: a string would pass the limit of 16777216 "
                          "bytes (--template-max-string=BYTES raises it)");
    /* none of it applies with tmpl_no_limits */
    expect_within("{% for x in items %}{% for y in items %}{{ x ~ y }}{% endfor %}{% endfor %}",
                  &tmpl_no_limits, true, "aaabacbabbbccacbcc");
}
END_TEST

/* Macro calls stack their bodies on the renderer's recursion: at most
 * 1024 levels of blocks and expressions in all, whatever each template
 * may nest.  Each call of m below takes 253 levels: the if, its
 * condition's evaluation done, 250 ifs, the output and the call; the
 * fifth call's 'if k > 0' is level 1015, its 9th 'if true' 1024, and
 * the evaluation of that if's 'true' (column 31 + 8 * 13 + 6) the
 * 1025th. */
START_TEST(test_tmpl_nesting_at_run_time)
{
    char *body = repeat("{% macro m(k) %}{% if k > 0 %}", "{% if true %}", 250, "{{ m(k - 1) }}");
    char *src = repeat(body, "{% endif %}", 251, "{% endmacro %}{{ m(3) }}");
    expect_out_owned(src, "");
    src = repeat(body, "{% endif %}", 251, "{% endmacro %}{{ m(10) }}");
    expect_err_owned(src, "t.j2:1:141: error: macro calls and includes nested too deep (more "
                          "than 1024 levels of blocks and expressions in all)");
    free(body);
}
END_TEST

/* A scope of many names (past 16, found through a hash map): each set,
 * replaced and read back; a loop's own sets stay in the loop. */
START_TEST(test_tmpl_many_names)
{
    Buf b = {0};
    for (int i = 0; i < 40; i++)
        buf_printf(&b, "{%% set v%d = %d %%}", i, i);
    buf_adds(&b, "{% set v3 = 'x' %}{{ v0 }}{{ v3 }}{{ v39 }}{{ name }}"
                 "{% for i in items %}{% set v5 = i %}{{ v5 }}{% endfor %}{{ v5 }}"
                 "{% macro m(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, b0, b1, b2, b3, b4, b5, b6, "
                 "b7, b8, b9) %}{{ a0 }}{{ b9 }}{{ v39 }}{% endmacro %}"
                 "{{ m(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20) }}");
    expect_out(b.s, "0x39Eventabc512039");
    buf_free(&b);
    /* 50,000 names: linear, not quadratic (8 s before the index) */
    for (int i = 0; i < 50000; i++)
        buf_printf(&b, "{%% set v%d = %d %%}", i, i);
    buf_adds(&b, "{{ v0 + v49999 }}");
    expect_out(b.s, "49999");
    buf_free(&b);
}
END_TEST

/* A template that uses every construct, mutated 10,000 times. */
static const char everything[] =
    "{# all of it #}\n"
    "{% macro row(a, b) %}{{ a | upper }}={{ b | default('') }}{% endmacro %}\n"
    "{% set total = n + 1 %}\n"
    "{% for x in items %}\n"
    "  {{- loop.index }} {{ row(x, d.k) }}{% if loop.last %}.{% elif 'b' in x %}!{% else %},{% endif %}\n"
    "{% else %}none{% endfor %}\n"
    "{{ items | join(', ') | replace('a', 'A') | cstring }} {{ total | hex(4) }}\n"
    "{% include 'part.j2' %} {{ (n > 3 and not flag) or name ~ '!' }} {{ items[0] }}\n";

/* What a streamed render hands its sink, piece by piece. */
typedef struct Pieces {
    Buf all;
    size_t n;      /* pieces */
    size_t longest;
    bool split;    /* a piece but the last did not end with a line end */
    bool last_nl;  /* the previous piece ended with one */
} Pieces;

static void pieces_write(void *ctx, const char *s, size_t n)
{
    Pieces *p = ctx;
    if (p->n && !p->last_nl)
        p->split = true;
    p->n++;
    p->longest = n > p->longest ? n : p->longest;
    p->last_nl = n && s[n - 1] == '\n';
    buf_add(&p->all, s, n);
}

/* Renders src both ways: into one Buf, and into a sink. */
static void render_both(const char *src, const TmplLimits *lim, Buf *whole, Pieces *p,
                        bool *ok_whole, bool *ok_stream, Buf *err)
{
    Tmpl *t = tmpl_parse("t.j2", src, strlen(src), err);
    ck_assert_msg(t, "%s", err->s);
    *ok_whole = tmpl_render(t, vars(), &loader, lim, whole, err);
    buf_reset(err);
    TmplSink sink = {p, pieces_write};
    *ok_stream = tmpl_render_to(t, vars(), &loader, lim, &sink, err);
    tmpl_free(t);
}

START_TEST(test_tmpl_render_to_hands_on_whole_lines)
{
    /* 1,667 x 3 lines of 28 bytes ("line 1 of 1000: a Event....\n"),
     * 140,028 bytes: three pieces (two of about 64 KiB), each ending with
     * a line end, together the text tmpl_render makes; then one line of
     * 70,014 bytes (and "end"), longer than a piece, handed on whole (the
     * block tag before it takes its line end) */
    const char *src = "{% for i in range %}{% for x in items %}line {{ loop.index }} of {{ i }}: "
                      "{{ x }} {{ name }}....\n{% endfor %}{% endfor %}"
                      "{% for i in range %}{% for x in items %}{{ i }}{{ x }}{{ name }}....{% endfor %}"
                      "{% endfor %}\nend\n";
    TValue *range = tv_list(&va);
    for (int i = 0; i < 1667; i++)
        tv_push(&va, range, tv_int(&va, 1000 + i));
    TValue *d = vars();
    tv_set(&va, d, "range", range);
    Buf whole = {0}, err = {0};
    Pieces p = {0};
    Tmpl *t = tmpl_parse("t.j2", src, strlen(src), &err);
    ck_assert_msg(t, "%s", err.s);
    bool okw = tmpl_render(t, d, &loader, NULL, &whole, &err);
    TmplSink sink = {&p, pieces_write};
    bool oks = tmpl_render_to(t, d, &loader, NULL, &sink, &err);
    tmpl_free(t);
    ck_assert(okw && oks);
    ck_assert_uint_eq(whole.len, 1667 * 3 * 28 + 1667 * 3 * 14 + 4);
    ck_assert_uint_eq(p.all.len, whole.len);
    ck_assert(memcmp(p.all.s, whole.s, whole.len) == 0);
    ck_assert_uint_ge(p.n, 3);
    ck_assert(!p.split && p.last_nl);
    /* the long line came in one piece, no larger than it and the 64 KiB
     * before it */
    ck_assert_uint_ge(p.longest, 1667 * 3 * 14 + 4);
    ck_assert_uint_le(p.longest, 64 * 1024 + 1667 * 3 * 14 + 4);
    buf_free(&whole), buf_free(&err), buf_free(&p.all);
}
END_TEST

START_TEST(test_tmpl_render_to_counts_what_it_handed_on)
{
    /* the output limit counts the bytes already handed to the sink: 9
     * iterations of 30,000 bytes, limit 100,000; the third passes 64 KiB
     * and is handed on (90,000 bytes), the fourth passes the limit */
    char *src = xmalloc(40000);
    strcpy(src, "{% for x in items %}{% for y in items %}");
    size_t n = strlen(src);
    for (int i = 0; i < 3000; i++, n += 10)
        memcpy(src + n, "123456789\n", 10);
    strcpy(src + n, "{% endfor %}{% endfor %}");
    TmplLimits lim = tmpl_default_limits;
    lim.max_output = 100000;
    Buf whole = {0}, err = {0};
    Pieces p = {0};
    bool okw, oks;
    render_both(src, &lim, &whole, &p, &okw, &oks, &err);
    ck_assert(!okw && !oks);
    same_error(err.s, "t.j2:1:41: error: the output would pass the limit of 100000 bytes "
                      "(--template-max-output=BYTES raises it)");
    ck_assert_uint_eq(p.all.len, 90000);
    ck_assert(!p.split && p.last_nl);
    buf_free(&whole), buf_free(&err), buf_free(&p.all);
    free(src);
}
END_TEST

/* A generated list of dictionaries {i, name}: counts its calls and the
 * most memory the render's arena held when one was made. */
typedef struct Gen {
    size_t calls, most;
} Gen;

static TValue *gen_item(const void *ctx, size_t i, Arena *a)
{
    Gen *g = (Gen *)ctx;
    g->calls++;
    g->most = a->total > g->most ? a->total : g->most;
    TValue *d = tv_dict(a);
    tv_add(a, d, "i", tv_int(a, (int64_t)i));
    tv_add(a, d, "name", tv_str(a, i % 2 ? "odd" : "even"));
    return d;
}

START_TEST(test_tmpl_generated_lists)
{
    /* every use of a list gives a generated one's items as a plain list's */
    Gen g = {0};
    TValue *plain = tv_list(&va);
    for (size_t i = 0; i < 3; i++)
        tv_push(&va, plain, gen_item(&g, i, &va));
    const char *src = "{% for x in l %}{{ x.i }}{{ x.name }}{% if loop.last %}.{% endif %}"
                      "{% endfor %} {{ l | length }} {{ l[1].name }} {{ l[-1].i }} "
                      "{{ (l | first).name }} {{ (l | last).name }} {{ l | tojson }} "
                      "{{ l[0] in l }}";
    const char *want = "0even1odd2even. 3 odd 2 even even "
                       "[{\"i\":0,\"name\":\"even\"},{\"i\":1,\"name\":\"odd\"},"
                       "{\"i\":2,\"name\":\"even\"}] ";
    Buf err = {0};
    Tmpl *t = tmpl_parse("t.j2", src, strlen(src), &err);
    ck_assert_msg(t, "%s", err.s);
    for (int k = 0; k < 2; k++) {
        TValue *d = vars();
        tv_set(&va, d, "l", k ? tv_generated(&va, 3, gen_item, &g) : plain);
        Buf out = {0};
        ck_assert_msg(tmpl_render(t, d, &loader, NULL, &out, &err), "%s", err.s);
        /* `in` compares dictionaries by value, as Jinja does: a
         * generated item, a new one each time it is asked for, is in */
        ck_assert(strncmp(out.s, want, strlen(want)) == 0);
        ck_assert_str_eq(out.s + strlen(want), "true");
        buf_free(&out);
    }
    tmpl_free(t);
    /* a loop makes each item in its iteration and gives it back: 200,000
     * items (about 40 MB held at once) in an arena that never holds more
     * than its first blocks */
    const char *loop = "{% for x in l %}{{ x.i }}{{ x.name | upper }}\n{% endfor %}";
    t = tmpl_parse("t.j2", loop, strlen(loop), &err);
    ck_assert_msg(t, "%s", err.s);
    Gen big = {0};
    TValue *d = vars();
    tv_set(&va, d, "l", tv_generated(&va, 200000, gen_item, &big));
    Buf out = {0};
    ck_assert_msg(tmpl_render(t, d, &loader, NULL, &out, &err), "%s", err.s);
    ck_assert_uint_eq(big.calls, 200000);
    ck_assert(strncmp(out.s, "0EVEN\n1ODD\n2EVEN\n", 17) == 0);
    ck_assert(strcmp(out.s + out.len - 10, "199999ODD\n") == 0);
    ck_assert_uint_le(big.most, 256 * 1024);
    tmpl_free(t);
    buf_free(&out);
    buf_free(&err);
}
END_TEST

/* Jinja's arithmetic, each operator checked: Python's rounding for //
 * and %, '/' only when the quotient is whole (there are no floats). */
START_TEST(test_tmpl_arithmetic_operators)
{
    expect_out("{{ 7 * 6 }} {{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % 3 }} {{ -7 % 3 }} {{ 7 % -3 }} "
               "{{ 2 ** 10 }} {{ 6 / 3 }} {{ 1 + 2 * 3 ** 2 }} {{ 2 ** 3 ** 2 }} {{ -2 ** 2 }}",
               "42 3 -4 1 2 -2 1024 2 19 64 4");
    expect_out("{{ 'ab' * 3 }}|{{ 3 * 'ab' }}|{{ 'ab' * -1 }}|{{ ([1] * 3) | join }}|"
               "{{ ([1, 2] + [3]) | join }}|{{ 'a' ~ (1 + 2) }}|{{ '%s=%d' % ('x', 3) }}|"
               "{{ '%s!' % 'y' }}",
               "ababab|ababab||111|123|a3|x=3|y!");
    expect_err("{{ 7 / 2 }}", "t.j2:1:6: error: 7 / 2 is not a whole number (there are no "
                              "floats: '//' divides and rounds down)");
    expect_err("{{ 1 // 0 }}", "t.j2:1:6: error: 1 // 0 divides by zero");
    expect_err("{{ 1 % 0 }}", "t.j2:1:6: error: 1 % 0 divides by zero");
    expect_err("{{ 1 / 0 }}", "t.j2:1:6: error: 1 / 0 divides by zero");
    expect_err("{{ (-9223372036854775807 - 1) // -1 }}",
               "t.j2:1:31: error: -9223372036854775808 // -1 does not fit in 64 bits");
    expect_out("{{ (-9223372036854775807 - 1) % -1 }}", "0");
    expect_err("{{ 4294967296 * 4294967296 }}",
               "t.j2:1:15: error: 4294967296 * 4294967296 does not fit in 64 bits");
    expect_err("{{ 2 ** 63 }}", "t.j2:1:6: error: 2 ** 63 does not fit in 64 bits");
    expect_err("{{ 2 ** -1 }}", "t.j2:1:6: error: 2 ** -1 is not a whole number (there are no "
                                "floats)");
    expect_err("{{ 'a' * 'b' }}", "t.j2:1:8: error: '*' needs two integers or a string or list "
                                  "and an integer, not a string and a string");
    expect_err("{{ [1] + 'b' }}", "t.j2:1:8: error: '+' needs two integers, two strings or two "
                                  "lists, not a list and a string");
}
END_TEST

/* a if c else b, and the tests: is, is not, with or without arguments */
START_TEST(test_tmpl_conditions_and_tests)
{
    expect_out("{{ 'a' if flag else 'b' }}{{ 'a' if not flag else 'b' }}{{ 'x' if false }}|"
               "{{ 1 if false else 2 if false else 3 }}",
               "ab|3");
    expect_out("{{ x is defined }} {{ d.k is defined }} {{ d.x is defined }} {{ items[7] is "
               "undefined }} {{ nothing is none }} {{ 1 is not none }} {{ 3 is odd }} {{ 4 is "
               "even }} {{ 9 is divisibleby 3 }} {{ 9 is divisibleby(4) }} {{ 'ab' is string }} "
               "{{ d is mapping }} {{ items is sequence }} {{ 1 is number }} {{ flag is boolean }} "
               "{{ flag is true }} {{ 'AB' is upper }} {{ 'ab' is lower }} {{ 2 is in [1, 2] }} "
               "{{ 3 is ge 2 }} {{ 1 is eq 1 }} {{ none is sameas none }}",
               "false true false true true true true true true false true true true true true "
               "true true true true true true true");
    /* the arguments' slots: a test of one takes it without parentheses */
    expect_out("{{ n is gt 3 and n is lt 30 }}", "true");
    expect_err("{{ name is odd }}", "t.j2:1:12: error: test 'odd' needs an integer, not a string");
    expect_err("{{ nope is odd }}", "t.j2:1:4: error: undefined name 'nope'");
    expect_parse_err("{{ n is divisibleby }}",
                     "t.j2:1:9: error: test 'divisibleby' takes 1 to 1 arguments, not 0");
    expect_parse_err("{{ n is }}", "t.j2:1:9: error: test name expected after 'is'");
}
END_TEST

/* list, tuple and dictionary literals; dictionaries walked; slices;
 * range; the methods of strings and dictionaries; loop.cycle */
START_TEST(test_tmpl_literals_slices_methods)
{
    expect_out("{% set d2 = {'a': 1, 'b': [2, 3]} %}{% for k, v in d2.items() %}{{ k }}="
               "{{ v | tojson }};{% endfor %} {{ d2.keys() | join(',') }} "
               "{{ d2.values() | length }} {{ d2.get('a') }} {{ d2.get('z', 9) }} "
               "{% for k in d2 %}{{ k }}{% endfor %} {{ (1, 2) | join }} {{ () | length }} "
               "{{ {'a': 1} == {'a': 1} }} {{ [1, [2]] == [1, [2]] }} {{ [1] in [[1], [2]] }}",
               "a=1;b=[2,3]; a,b 2 1 9 ab 12 0 true true true");
    expect_out("{% set l = [1, 2, 3, 4, 5] %}{{ l[1:3] | join }} {{ l[::-1] | join }} "
               "{{ l[-2:] | join }} {{ 'hello'[1:4] }} {{ 'hello'[::-1] }} {{ l[::2] | join }} "
               "{{ l[5:1:-2] | join }} {{ l[10:] | length }} {{ 'h\xC3\xA9llo'[1] }}",
               "23 54321 45 ell olleh 135 53 0 \xC3\xA9");
    expect_out("{{ range(5) | join(',') }} {{ range(2, 10, 3) | join(',') }} "
               "{{ range(10, 0, -3) | join(',') }} {{ range(0) | length }} "
               "{{ range(9223372036854775807) | length }} {{ range(-5, 5)[3] }}",
               "0,1,2,3,4 2,5,8 10,7,4,1 0 9223372036854775807 -2");
    expect_out("{{ 'Hi There'.upper() }} {{ 'ABC'.lower() }} {{ 'abc'.startswith('ab') }} "
               "{{ 'abc'.endswith('bc') }} {{ 'a-b-c'.replace('-', '+', 1) }} "
               "{{ 'a,b,,c'.split(',') | join('|') }} {{ ' a  b c '.split(none, 1) | join('|') }}"
               "{{ '  xy  '.strip() }}|{{ 'xxyxx'.lstrip('x') }}|{{ ','.join(['a', 'b']) }} "
               "{{ 'abcabc'.find('c') }} {{ 'abcabc'.count('bc') }} {{ 'hello world'.title() }} "
               "{{ 'hELLO'.capitalize() }}",
               "HI THERE abc true true a+b-c a|b||c a|b c xy|yxx|a,b 2 2 Hello World Hello");
    expect_out("{% for x in items %}{{ loop.cycle('o', 'e') }}{{ loop.revindex }}"
               "{{ loop.revindex0 }}{% endfor %}",
               "o32e21o10");
    expect_err("{{ name.uper() }}", "t.j2:1:9: error: a string has no method 'uper' (did you "
                                    "mean 'upper'?)");
    expect_err("{{ d.cycle(1) }}", "t.j2:1:11: error: 'cycle' is a method of 'loop'");
    expect_err("{{ range(1, 2, 0) }}", "t.j2:1:9: error: range() step must not be zero");
    expect_err("{{ items[::0] }}", "t.j2:1:10: error: a slice's step must not be zero");
    expect_err("{{ {1: 2} }}", "t.j2:1:5: error: a dictionary's keys are strings, not an integer");
    expect_err("{% for a, b in items %}{% endfor %}",
               "t.j2:1:16: error: cannot unpack a string of 1 into 2 names");
}
END_TEST

/* Jinja's filters, with its keyword arguments and its defaults (sort
 * and unique ignore the case of letters unless told not to) */
START_TEST(test_tmpl_filters_of_jinja)
{
    expect_out("{{ 'hello world-wide (yes)' | title }} {{ 'hELLO wORLD' | capitalize }} "
               "{{ '  x  ' | trim }}|{{ 'xxhixx' | trim('x') }} "
               "{{ '%s-%05d|%-4s|%x|%X|%#x|%+d|%3d|%%' | format('a', 42, 'b', 255, 255, "
               "255, 5, 7) | replace('|', ' ') }}",
               "Hello World-Wide (Yes) Hello world x|hi a-00042 b    ff FF 0xff +5   7 %");
    expect_out("{{ '%.2s' | format('xyz') }} {{ '42' | int }} {{ 'x' | int }} {{ 'x' | int(7) }} "
               "{{ '0x1F' | int(base=16) }} {{ ' -12 ' | int }} {{ flag | int }} "
               "{{ n | string }}{{ -3 | abs }} {{ '1_000' | int }} {{ '_1' | int }} "
               "{{ '1__0' | int }}",
               "xy 42 0 7 31 -12 1 263 1000 0 0");
    expect_out("{{ [3, 1, 2] | sort | join }} {{ ['b', 'A', 'c'] | sort | join }} "
               "{{ ['b', 'A', 'c'] | sort(case_sensitive=true) | join }} "
               "{{ [3, 1, 2] | sort(reverse=true) | join }} {{ [1, 2, 1, 3] | unique | join }} "
               "{{ ['a', 'A', 'b'] | unique | join }} {{ [1, 2, 3] | reverse | join }} "
               "{{ 'abc' | reverse }} {{ 'abc' | list | join('.') }} {{ [3, 1] | min }}"
               "{{ [3, 1] | max }} {{ [1, 2] | sum(start=10) }}",
               "123 Abc Abc 321 123 ab 321 cba a.b.c 13 13");
    expect_out("{% set p = [{'n': 'b', 'v': 2}, {'n': 'a', 'v': 1}, {'n': 'c', 'v': 3}] %}"
               "{{ p | sort(attribute='n') | map(attribute='v') | join }} "
               "{{ p | selectattr('v', 'gt', 1) | map(attribute='n') | join }} "
               "{{ p | rejectattr('v', 'equalto', 2) | map(attribute='n') | join }} "
               "{{ p | selectattr('x', 'defined') | list | length }} "
               "{{ p | map(attribute='x', default='-') | join }} "
               "{{ [1, 2, 3, 4] | select('odd') | join }} {{ [1, 2, 3, 4] | reject('odd') | join }}"
               " {{ items | map('upper') | join }} {{ p | map(attribute='v') | sum }} "
               "{{ p | sum(attribute='v') }} {{ p | max(attribute='v') | tojson }} "
               "{{ [0, 1, '', 'x'] | select | list | length }} {{ p | join(',', attribute='n') }}",
               "123 bc ac 0 --- 13 24 ABC 6 6 {\"n\":\"c\",\"v\":3} 2 b,a,c");
    expect_out("{{ {'b': 1, 'a': 2} | dictsort | map('first') | join }} "
               "{{ {'b': 1, 'a': 2} | dictsort(by='value') | map('last') | join }} "
               "{{ d | items | tojson }} {{ x | default('dflt') }} {{ '' | default('e', true) }} "
               "{{ d.x | d('y') }} {{ 'h\xC3\xA9llo' | length }} {{ items | count }}",
               "ab 12 [[\"k\",\"v\"]] dflt e y 5 3");
    expect_err("{{ [1, 'a'] | sort }}", "t.j2:1:15: error: cannot order a string and an integer");
    expect_err("{{ [[1]] | unique }}", "t.j2:1:12: error: 'unique' compares none, booleans, "
                                       "integers and strings, not a list");
    expect_err("{{ items | map(attribute='x') | join }}",
               "t.j2:1:12: error: 'map': an item has no attribute 'x'");
    expect_err("{{ '%d' | format('a') }}", "t.j2:1:11: error: format: %d needs an integer, not a "
                                           "string");
    expect_err("{{ '%s %s' | format('a') }}",
               "t.j2:1:14: error: format: not enough arguments for the format string");
}
END_TEST

/* pascal, camel, snake, upper_snake: words cut at '-', '_', '.' and
 * other non-alphanumerics, at case changes and after digits */
START_TEST(test_tmpl_identifier_filters)
{
    expect_out("{{ 'app-started' | pascal }} {{ 'app-started' | camel }} "
               "{{ 'AppStarted' | snake }} {{ 'appStarted' | upper_snake }} "
               "{{ 'HTTPServer' | snake }} {{ 'Contoso.MyApp' | pascal }} "
               "{{ 'win:UInt32' | pascal }} {{ 'Win32Api' | snake }} {{ 'v2beta' | camel }} "
               "{{ '2fast' | snake }} {{ '__x__y' | pascal }} {{ '' | pascal }}|"
               "{{ 'Mcgen-Example-Hello' | upper_snake }}",
               "AppStarted appStarted app_started APP_STARTED http_server ContosoMyApp "
               "WinUInt32 win32_api v2Beta 2_fast XY |MCGEN_EXAMPLE_HELLO");
    /* ident: each character that is not a letter, digit or '_' made '_' */
    expect_out("{{ 'Error report' | ident }} {{ 'a-b.c_D9' | ident }} {{ 'caf\xc3\xa9!' | ident }}|"
               "{{ '' | ident }}|",
               "Error_report a_b_c_D9 caf__||");
    expect_err("{{ 3 | ident }}", "t.j2:1:8: error: filter 'ident' needs a string, not an integer");
}
END_TEST

/* {% raw %}, {% set %}...{% endset %}, {% filter %}, {% with %}, macro
 * defaults and named arguments */
START_TEST(test_tmpl_block_statements)
{
    expect_out("{% raw %}{{ not me }}{% if %}{% endraw %}\nx {%- raw -%}  {{ y }}  "
               "{%- endraw -%} z",
               "{{ not me }}{% if %}x{{ y }}z");
    expect_out("{% set x %}inner {{ 1 + 1 }}{% endset %}[{{ x }}] {% filter upper %}shout "
               "{{ 'it' }}{% endfilter %} {% filter replace('a', 'o') | title %}a cat"
               "{% endfilter %} {% with a = 1, b = 2 %}{{ a + b }}{% endwith %}"
               "{% if a is defined %}leaked{% endif %}",
               "[inner 2] SHOUT IT O Cot 3");
    expect_out("{% macro m(a, b=a + 1) %}{{ a }}-{{ b }}{% endmacro %}{{ m(1) }} {{ m(1, 3) }} "
               "{{ m(b=5, a=4) }}",
               "1-2 1-3 4-5");
    expect_err("{% raw %}x", "t.j2:1:1: error: '{% endraw %}' expected (to close 'raw' at line "
                             "1)");
    expect_err("{% macro m(a) %}{% endmacro %}{{ m(b=1) }}",
               "t.j2:1:35: error: macro 'm' has no parameter 'b'");
    expect_err("{% macro m(a) %}{% endmacro %}{{ m(1, a=1) }}",
               "t.j2:1:35: error: macro 'm': parameter 'a' given twice");
    expect_err("{% set x %}a", "t.j2:1:13: error: '{% endset %}' expected (to close 'set' at "
                               "line 1)");
    expect_parse_err("{% macro m(a=1, b) %}{% endmacro %}",
                     "t.j2:1:18: error: '=' expected (a parameter without a default after one "
                     "with a default)");
    expect_parse_err("{% filter nope %}{% endfilter %}",
                     "t.j2:1:11: error: unknown filter 'nope'");
}
END_TEST

/* Templates of their own for imports and extends. */
static const char *family_loader(void *ctx, const char *name, size_t *len)
{
    (void)ctx;
    static const char *const files[][2] = {
        {"base.j2", "head\n{% block a %}A{% endblock %}\n{% block b %}B{% block c %}C"
                    "{% endblock %}{% endblock %}\ntail\n"},
        {"mid.j2", "{% extends 'base.j2' %}{% block a %}mid-A[{{ super() }}]{% endblock %}"},
        {"m.j2", "{% macro hi(n) %}hi {{ n }}{% endmacro %}{% set k = 5 %}text is dropped"},
        {"bad.j2", "{% macro boom() %}{{ 1 // 0 }}{% endmacro %}"},
        {"self.j2", "{% extends 'self.j2' %}"},
        {"selfimport.j2", "{% import 'selfimport.j2' as me %}"},
        {"deep.j2", "{% block a %}{{ super() }}{% endblock %}"},
    };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        if (strcmp(name, files[i][0]) == 0)
            return *len = strlen(files[i][1]), files[i][1];
    return NULL;
}

static void expect_family(const char *src, bool want_ok, const char *want)
{
    TmplLoader family = {NULL, family_loader};
    Buf out = {0}, err = {0};
    Tmpl *t = tmpl_parse("t.j2", src, strlen(src), &err);
    bool ok = t && tmpl_render(t, vars(), &family, NULL, &out, &err);
    tmpl_free(t);
    ck_assert_msg(ok == want_ok, "%s: %s", src, ok ? out.s : err.s);
    if (ok)
        ck_assert_str_eq(out.s ? out.s : "", want);
    else
        same_error(err.s, want);
    buf_free(&out);
    buf_free(&err);
}

/* {% import %} of macro files and {% extends %} with {% block %} and
 * super(), as Jinja has them */
START_TEST(test_tmpl_import_and_extends)
{
    expect_family("{% extends 'base.j2' %}ignored{% block b %}new-B({{ super() }}){% endblock %}",
                  true, "head\nAnew-B(BC)tail\n");
    expect_family("{% extends 'mid.j2' %}{% block a %}top-A<{{ super() }}>{% endblock %}"
                  "{% block c %}cc{% endblock %}",
                  true, "head\ntop-A<mid-A[A]>Bcctail\n");
    expect_family("{% extends 'base.j2' %}{% set z = name %}{% block a %}{{ z }}{% endblock %}",
                  true, "head\nEventBCtail\n");
    expect_family("{% for x in items %}{% block b scoped %}{{ x }}{% endblock %}{% endfor %}",
                  true, "abc");
    expect_family("{% import 'm.j2' as m %}{{ m.hi(1) }} {{ m.k }}", true, "hi 1 5");
    expect_family("{% from 'm.j2' import hi, k as kk %}{{ hi(2) }} {{ kk }}", true, "hi 2 5");
    /* errors name the template they are in */
    expect_family("{% import 'bad.j2' as b %}{{ b.boom() }}", false,
                  "bad.j2:1:24: error: 1 // 0 divides by zero");
    expect_family("{% from 'm.j2' import nope %}", false,
                  "t.j2:1:1: error: 'm.j2' defines no 'nope'");
    expect_family("{% extends 'none.j2' %}", false,
                  "t.j2:1:1: error: cannot extend 'none.j2': no such template");
    expect_family("{% block a %}{{ super() }}{% endblock %}", false,
                  "t.j2:1:22: error: super() outside a block that overrides another");
    /* recursion through extends and imports ends at its limit */
    expect_family("{% extends 'self.j2' %}", false,
                  "self.j2:1:1: error: extends nested more than 64 deep");
    expect_family("{% import 'selfimport.j2' as x %}", false,
                  "selfimport.j2:1:1: error: imports nested more than 64 deep");
    expect_parse_err("{% if true %}{% extends 'base.j2' %}{% endif %}",
                     "t.j2:1:14: error: 'extends' inside a block (it belongs at the top of the "
                     "template)");
    expect_parse_err("{% block a %}{% endblock %}{% block a %}{% endblock %}",
                     "t.j2:1:37: error: block 'a' defined twice (first at line 1)");
    expect_parse_err("{% block a %}{% endblock b %}",
                     "t.j2:1:26: error: '{% endblock a %}' expected, not 'b'");
}
END_TEST

/* The line and a caret under the column, as the manifest's errors have
 * them: tabs kept, characters counted, a long line cut about the caret. */
START_TEST(test_tmpl_error_line_and_caret)
{
    expect_err("a\n\t{{ nope }}\n", "t.j2:2:5: error: undefined name 'nope'\n"
                                    "  \t{{ nope }}\n"
                                    "  \t   ^");
    expect_err("\xC3\xA9\xC3\xA9 {{ 1 // 0 }}", "t.j2:1:9: error: 1 // 0 divides by zero\n"
                                                "  \xC3\xA9\xC3\xA9 {{ 1 // 0 }}\n"
                                                "          ^");
    char *src = repeat("", "x", 200, "{{ nope }}");
    expect_err(src, "t.j2:1:204: error: undefined name 'nope'\n"
                    "  ...xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx{{ nope }}\n"
                    "                                                                 ^");
    free(src);
}
END_TEST

/* Every new construct stays within the limits: range, repetition,
 * sorting, comparing and slicing count their items as iterations; a
 * repeated string is held to the string limit; literals nest at most
 * TMPL_MAX_NESTING deep however they are built. */
START_TEST(test_tmpl_new_constructs_bounded)
{
    TmplLimits lim = {1 << 20, 1 << 20, 100};
    const char *it = "more than 100 loop iterations, macro calls and includes";
    const char *counted[] = {
        "{% for i in range(9223372036854775807) %}{% endfor %}",
        "{{ range(9223372036854775807) | sum }}",
        "{{ range(9223372036854775807) | sort | length }}",
        "{{ range(9223372036854775807) | unique | length }}",
        "{{ range(9223372036854775807) | reverse | length }}",
        "{{ range(9223372036854775807) | map('abs') | length }}",
        "{{ range(9223372036854775807) | select('odd') | length }}",
        "{{ range(9223372036854775807)[::-1] | length }}",
        "{{ -1 in range(9223372036854775807) }}",
        "{{ range(9223372036854775807) == range(9223372036854775807) }}",
        "{{ ([0] * 9223372036854775807) | length }}",
        "{{ range(9223372036854775807) | join }}",
    };
    for (size_t i = 0; i < sizeof counted / sizeof *counted; i++) {
        bool ok;
        char *got = run_within(counted[i], &lim, &ok);
        ck_assert_msg(!ok && strstr(got, it), "%s: %s", counted[i], got);
        free(got);
    }
    /* a list made holds ITEM_BYTES an item against the string limit:
     * 10 items in 1,000 bytes */
    lim = (TmplLimits){1 << 20, 1000, 1 << 20};
    const char *made[] = {
        "{{ range(11) | sort | length }}", "{{ range(11) | list | length }}",
        "{{ range(11) | map('abs') | length }}", "{{ range(11)[:] | length }}",
        "{{ ([0] * 11) | length }}", "{{ ([0] * 6 + [1] * 5) | length }}",
        "{{ 'abcdefghijk' | list | length }}", "{{ 'a,b,c,d,e,f,g,h,i,j,k'.split(',') | length }}",
        "{% for c in 'abcdefghijk' %}{% endfor %}",
        /* fuzz finding: a slice of a string too long to be a list */
        "{{ ('\xC3\xA9' * 11)[1:] }}", "{{ ('\xC3\xA9' * 11) | reverse }}",
    };
    for (size_t i = 0; i < sizeof made / sizeof *made; i++) {
        bool ok;
        char *got = run_within(made[i], &lim, &ok);
        ck_assert_msg(!ok && strstr(got, "error: a list would pass the limit of 1000 bytes, "
                                         "10 items (--template-max-string=BYTES raises it)"),
                      "%s: %s", made[i], got);
        free(got);
    }
    expect_within("{{ range(10) | sort | length }}", &lim, true, "10");
    /* an ASCII string is sliced as bytes: no list, no limit but its own */
    expect_within("{{ ('abcdefghij' * 50)[::50] }}", &lim, true, "aaaaaaaaaa");
    expect_within("{{ 'ab' * 9223372036854775807 }}", &lim, false,
                  "t.j2:1:9: error: a string would pass the limit of 1000 bytes "
                  "(--template-max-string=BYTES raises it)");
    expect_within("{{ range(9223372036854775807) | tojson }}", &lim, false,
                  "t.j2:1:33: error: a string would pass the limit of 1000 bytes "
                  "(--template-max-string=BYTES raises it)");
    expect_within("{{ {'a': [range(9223372036854775807)]} | tojson }}", &lim, false,
                  "t.j2:1:42: error: a string would pass the limit of 1000 bytes "
                  "(--template-max-string=BYTES raises it)");
    expect_within("{{ '%999999999999d' | format(1) }}", &lim, false,
                  "t.j2:1:23: error: a string would pass the limit of 1000 bytes "
                  "(--template-max-string=BYTES raises it)");
    /* searches are linear however the strings repeat themselves (a naive
     * one takes 10^11 steps here) */
    expect_out("{% set a = 'a' * 500000 %}{% set b = a ~ 'b' %}{{ b in a ~ a }} "
               "{{ (a ~ a).count(b) }} {{ (a ~ a).find(b) }} {{ (a ~ a).split(b) | length }} "
               "{{ (a ~ a).replace(b, '') | length }} {{ 'abc'.count('') }} {{ a[-1] }}"
               "{{ ('\xC3\xA9' * 300000)[299999] }} {{ 'ab'[-2] }}",
               "false 0 -1 1 1000000 4 a\xC3\xA9 a");
    /* a list made of itself, one {% set %} at a time */
    char *deep = repeat("{% set x = [] %}", "{% set x = [x] %}", 300, "");
    expect_err(deep, "t.j2:1:4363: error: lists and dictionaries nested more than 256 deep");
    free(deep);
}
END_TEST

START_TEST(test_tmpl_mutations_never_crash)
{
    static const char alphabet[] = "{}%#-|.[]()'\",=<>!~+ \nabxyzifendforsetmacroincludeloop";
    uint32_t seed = 2026;
    size_t n = strlen(everything);
    char *buf = xmalloc(2 * n + 64);
    int rendered = 0;
    for (int i = 0; i < 10000; i++) {
        memcpy(buf, everything, n + 1);
        size_t len = n;
        for (int k = 0; k < 1 + i % 5; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % (len ? len : 1);
            int op = (seed >> 4) % 3;
            char c = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
            if (op == 0 && len) {
                buf[at] = c;
            } else if (op == 1 && len) {
                memmove(buf + at, buf + at + 1, len - at);
                len--;
            } else if (len < 2 * n + 32) {
                memmove(buf + at + 1, buf + at, len - at + 1);
                buf[at] = c;
                len++;
            }
        }
        Buf out = {0}, err = {0};
        Tmpl *t = tmpl_parse("m.j2", buf, len, &err);
        bool ok = t && tmpl_render(t, vars(), &loader, NULL, &out, &err);
        ck_assert(ok || err.len > 0);
        rendered += ok;
        tmpl_free(t);
        buf_free(&out);
        buf_free(&err);
        if (i % 500 == 0)
            arena_free(&va);
    }
    free(buf);
    ck_assert_int_gt(rendered, 0);
}
END_TEST

static void teardown(void) { arena_free(&va); }

Suite *tmpl_suite(void)
{
    Suite *s = suite_create("tmpl");
    TCase *tc = tcase_create("tmpl");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_tmpl_expressions_and_filters);
    tcase_add_test(tc, test_tmpl_for_if_set_macro_include_comment);
    tcase_add_test(tc, test_tmpl_names_from_the_nearest_scope);
    tcase_add_test(tc, test_tmpl_iteration_sees_nothing_of_the_last);
    tcase_add_test(tc, test_tmpl_string_by_reference);
    tcase_add_test(tc, test_tmpl_white_space);
    tcase_add_test(tc, test_tmpl_dump);
    tcase_add_test(tc, test_tmpl_errors_word_for_word);
    tcase_add_test(tc, test_tmpl_filters_resolved_when_parsed);
    tcase_add_test(tc, test_tmpl_tojson);
    tcase_add_test(tc, test_tmpl_nesting_blocks);
    tcase_add_test(tc, test_tmpl_nesting_expressions);
    tcase_add_test(tc, test_tmpl_arithmetic_checked);
    tcase_add_test(tc, test_tmpl_limits);
    tcase_add_test(tc, test_tmpl_nesting_at_run_time);
    tcase_add_test(tc, test_tmpl_many_names);
    tcase_add_test(tc, test_tmpl_render_to_hands_on_whole_lines);
    tcase_add_test(tc, test_tmpl_render_to_counts_what_it_handed_on);
    tcase_add_test(tc, test_tmpl_generated_lists);
    tcase_add_test(tc, test_tmpl_arithmetic_operators);
    tcase_add_test(tc, test_tmpl_conditions_and_tests);
    tcase_add_test(tc, test_tmpl_literals_slices_methods);
    tcase_add_test(tc, test_tmpl_filters_of_jinja);
    tcase_add_test(tc, test_tmpl_identifier_filters);
    tcase_add_test(tc, test_tmpl_block_statements);
    tcase_add_test(tc, test_tmpl_import_and_extends);
    tcase_add_test(tc, test_tmpl_error_line_and_caret);
    tcase_add_test(tc, test_tmpl_new_constructs_bounded);
    tcase_add_test(tc, test_tmpl_mutations_never_crash);
    suite_add_tcase(s, tc);
    return s;
}
