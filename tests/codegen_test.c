/*
 * codegen_test.c - emit_header.c: mc's type-mangled template-function names
 * for every rule of ../shared/docs/header-api.md section 6 (count and
 * length, fixed and variable, strings and the rest), the EventWrite
 * macro parameters (<name>_Len_ before the values that need a size), the
 * enable-bit pairs, the synthesized event names, the mangling of names
 * that are no C identifier, the renaming of a symbol two providers use,
 * the provider traits bytes, and each field's shape (header_field_shape,
 * the Linux backends' reading of it).  Expected values are worked out by hand
 * from the document's tables.
 */
#include <string.h>

#include "tmpl.h"
#include "unit.h"

#define NS "xmlns='" NS_EVENTS "' xmlns:win='" NS_WIN "'"

static const char doc[] =
    "<instrumentationManifest " NS "><instrumentation><events>\n"
    "<provider name='Prov-One' guid='{01020304-0506-0708-090A-0B0C0D0E0F10}' symbol='P1'>\n"
    " <channels><channel name='Prov-One/Op' chid='Op' type='Operational'/></channels>\n"
    " <keywords><keyword name='K' mask='0x4'/></keywords>\n"
    " <templates>\n"
    "  <template tid='scalars'>\n"
    "   <data name='a' inType='win:UnicodeString'/><data name='b' inType='win:AnsiString'/>\n"
    "   <data name='c' inType='win:Int8'/><data name='d' inType='win:HexInt32'/>\n"
    "   <data name='e' inType='win:HexInt64'/><data name='f' inType='win:Boolean'/>\n"
    "   <data name='g' inType='win:GUID'/><data name='h' inType='win:SID' length='4'/>\n"
    "   <data name='i' inType='win:CountedUnicodeString'/><data name='9j' inType='win:Pointer'/>\n"
    "  </template>\n"
    "  <template tid='sized'>\n"
    "   <data name='n' inType='win:UInt16'/>\n"
    "   <data name='s1' inType='win:UnicodeString' length='3'/>\n"
    "   <data name='s2' inType='win:AnsiString' length='n'/>\n"
    "   <data name='s3' inType='win:UnicodeString' count='4'/>\n"
    "   <data name='s4' inType='win:Binary' count='2' length='3'/>\n"
    "   <data name='s5' inType='win:Binary' count='2' length='n'/>\n"
    "   <data name='s6' inType='win:UnicodeString' count='n' length='5'/>\n"
    "   <data name='s7' inType='win:AnsiString' count='n' length='n'/>\n"
    "   <data name='s8' inType='win:AnsiString' count='n'/>\n"
    "   <data name='s9' inType='win:Binary' length='0' count='1'/>\n"
    "  </template>\n"
    "  <template tid='arrays'>\n"
    "   <data name='n' inType='win:UInt8'/>\n"
    "   <data name='x' inType='win:UInt32' count='5'/><data name='y' inType='win:SID' count='n'/>\n"
    "   <data name='z' inType='win:CountedAnsiString' count='2'/>\n"
    "   <struct name='st' count='n'><data name='m' inType='win:UInt8'/></struct>\n"
    "   <struct name='sv' count='3'><data name='m' inType='win:UnicodeString'/></struct>\n"
    "   <struct name='s1'><data name='m' inType='win:UInt8'/></struct>\n"
    "  </template>\n"
    "  <template tid='same'><data name='other' inType='win:UnicodeString'/></template>\n"
    " </templates>\n"
    " <events>\n"
    "  <event value='1' symbol='E1' template='scalars' level='win:Error' channel='Op'/>\n"
    "  <event value='2' symbol='E2' template='sized' level='win:Error' channel='Op'/>\n"
    "  <event value='3' symbol='E3' template='arrays' level='win:Warning' keywords='K'/>\n"
    "  <event value='4' template='same' level='win:Error' channel='Op'/>\n"
    "  <event value='5' symbol='Dup' notLogged='true'/>\n"
    "  <event value='6' symbol='Dup'/>\n"
    " </events>\n"
    "</provider>\n"
    "<provider name='Two' guid='{00000000-0000-0000-0000-0000000000AB}' symbol='P2'\n"
    "          controlGuid='{00000000-0000-0000-0000-0000000000CD}'>\n"
    " <traits includeName='true' groupGuid='{11111111-2222-3333-4444-555555555555}'/>\n"
    " <tasks><task name='Bad-Name' value='1' eventGUID='{00000000-0000-0000-0000-0000000000EF}'/></tasks>\n"
    " <events><event value='1' symbol='Dup'/><event value='2' task='Bad-Name'/>\n"
    "  <event value='3'/></events>\n"
    "</provider>\n"
    "</events></instrumentation></instrumentationManifest>\n";

static Facts facts; /* of the manifest load() gives */

static Manifest *load(Buf *diags)
{
    diag_set_capture(diags);
    facts_free(&facts);
    Manifest *m = unit_load("codegen.man", doc, sizeof doc - 1, 0, &facts);
    ck_assert_msg(m != NULL, "%s", diags->s ? diags->s : "");
    diag_set_capture(NULL);
    return m;
}

static const char *str(const TValue *d, const char *key)
{
    const TValue *v = tv_get(d, key);
    ck_assert_msg(v && v->kind == TV_STR, "%s", key);
    return v->s;
}

static Arena items; /* the items of generated lists (a header's events) */

static const TValue *item(const TValue *d, const char *key, size_t i)
{
    const TValue *v = tv_get(d, key);
    ck_assert_msg(v && v->kind == TV_LIST && i < v->n, "%s[%zu]", key, i);
    return tv_item(v, i, &items);
}

static void joined(const TValue *list, Buf *out)
{
    buf_reset(out);
    for (size_t i = 0; i < list->n; i++)
        buf_printf(out, "%s%s", i ? "," : "", list->items[i]->s);
}

START_TEST(test_codegen_mangled_names_and_macro_args)
{
    Buf diags = {0}, b = {0};
    Manifest *m = load(&diags);
    Arena a = {0};
    TValue *h = header_values(m, &facts, NULL, &a);
    const TValue *p1 = item(h, "providers", 0);
    static const char *const want[][2] = {
        /* z s c, HexInt32 -> d, HexInt64 -> i, t j, SID length ignored -> k,
         * counted -> w with _Len_, p */
        {"McTemplateU0zscditjkwp", "a,b,c,d,e,f,g,h,i_Len_,i,_j"},
        /* h; z3; s r0 (length = field 0); ZR (count, no length); B6 (2*3);
         * B2r0; Z5r0 (length 5, count field 0); Sr0R0; SR; b (count 1,
         * length 0: nothing) */
        {"McTemplateU0hz3sr0ZRB6B2r0Z5r0Sr0R0SRb",
         "n,s1,s2,s3_Len_,s3,s4,s5,s6,s7,s8_Len_,s8,s9_Len_,s9"},
        /* u; Q5; KR0; A2; NR0; N3; n */
        {"McTemplateU0uQ5KR0A2NR0N3n", "n,x,y_Len_,y,z_Len_,z,st_Len_,st,sv_Len_,sv,s1_Len_,s1"},
        /* same types as 'scalars' field a only: its own parameter name */
        {"McTemplateU0z", "other"},
    };
    for (size_t i = 0; i < 4; i++) {
        const TValue *e = item(p1, "events", i);
        ck_assert_str_eq(str(e, "function"), want[i][0]);
        joined(tv_get(e, "args"), &b);
        ck_assert_str_eq(b.s, want[i][1]);
    }
    /* functions: one per name, sorted by byte order (upper case first) */
    const TValue *fns = tv_get(h, "functions");
    ck_assert_int_eq(fns->n, 5); /* the four and McTemplateU0 of P1's Dup and P2 */
    for (size_t i = 1; i < fns->n; i++)
        ck_assert_int_lt(strcmp(str(tv_item(fns, i - 1, &items), "name"), str(tv_item(fns, i, &items), "name")), 0);
    ck_assert_str_eq(str(tv_item(fns, 0, &items), "name"), "McTemplateU0");
    /* a struct array whose elements vary in size: the blob's whole size,
     * not count * size (mc's defect, dotnet/coreclr#25454); fixed-size
     * elements: count * element size as in mc */
    const TValue *arrays = NULL;
    for (size_t i = 0; i < fns->n; i++)
        if (strcmp(str(tv_item(fns, i, &items), "name"), want[2][0]) == 0)
            arrays = tv_item(fns, i, &items);
    ck_assert_ptr_nonnull(arrays);
    ck_assert_str_eq(str(item(arrays, "data", 4), "size"), "(ULONG)(_Arg0 * _Arg4_Len_)");
    ck_assert_str_eq(str(item(arrays, "data", 5), "size"), "_Arg5_Len_");
    ck_assert_int_eq(tv_get(arrays, "argcount")->i, 7);
    /* a counted string takes two descriptors: its byte count, then the bytes */
    const TValue *scalars = tv_item(fns, fns->n - 1, &items);
    ck_assert_str_eq(str(scalars, "name"), want[0][0]);
    ck_assert_int_eq(tv_get(scalars, "argcount")->i, 11);
    ck_assert_str_eq(str(item(scalars, "data", 8), "ptr"), "&_Arg8_Size_");
    ck_assert_str_eq(item(scalars, "locals", 0)->s,
                     "USHORT _Arg8_Size_ = (USHORT)(sizeof(WCHAR) * _Arg8_Len_);");
    arena_free(&a);
    arena_free(&items);
    manifest_free(m);
    facts_free(&facts);
    buf_free(&diags);
    buf_free(&b);
}
END_TEST

START_TEST(test_codegen_enable_bits_symbols_traits)
{
    Buf diags = {0}, b = {0};
    Manifest *m = load(&diags);
    Arena a = {0};
    TValue *h = header_values(m, &facts, NULL, &a);
    const TValue *p1 = item(h, "providers", 0), *p2 = item(h, "providers", 1);
    ck_assert_str_eq(str(p1, "ident"), "Prov_One");
    /* pairs (level, descriptor keyword with the channel's bit 63) in event
     * order: (2, 1<<63) for E1, E2 and event 4; (3, 4); (0, 0) for both Dup */
    ck_assert_int_eq(tv_get(p1, "enable_count")->i, 3);
    ck_assert_int_eq(item(p1, "enable_keywords", 0)->i, INT64_MIN);
    ck_assert_int_eq(item(p1, "enable_keywords", 1)->i, 4);
    ck_assert_int_eq(item(p1, "enable_levels", 1)->i, 3);
    ck_assert_int_eq(tv_get(item(p1, "events", 3), "bit")->i, 0);
    ck_assert_int_eq(tv_get(item(p1, "events", 5), "bit")->i, 2);
    /* event 4 has no symbol: mc's synthesized name */
    ck_assert_str_eq(str(item(p1, "events", 3), "symbol"), "P1_EVENT_0x4_0_10_2_0_0_8000000000000000");
    /* 'Dup' of P2 clashes with P1's logged Dup (the notLogged one has no
     * descriptor) */
    ck_assert_str_eq(str(item(p2, "events", 0), "symbol"), "Dup_P2");
    /* names made from a name that is no C identifier: mc's mangling (a
     * symbol= must be a C identifier, the schema's CSymbolType) */
    ck_assert_str_eq(str(item(p2, "events", 1), "symbol"), "P2_EVENT_0x2_0_c_0_0_1_0");
    const TValue *task = item(p2, "tasks", 0);
    ck_assert_str_eq(str(task, "symbol"), "P2_TASK_Bad_Name");
    ck_assert_str_eq(str(task, "guid_symbol"), "Bad_NameId");
    /* controlGuid: channel 0xc in the header's descriptor and name */
    ck_assert_str_eq(str(item(p2, "events", 2), "symbol"), "P2_EVENT_0x3_0_c_0_0_0_0");
    ck_assert_msg(strstr(diags.s, "codegen.man:48:10: warning: [MCG8001, -Wsymbol-renamed] "
                                  "symbol 'Dup' of event 1 is also the symbol of event 6 of "
                                  "provider 'Prov-One'; the header calls this event's "
                                  "descriptor and macros Dup_P2 (EventWriteDup_P2, "
                                  "EventEnabledDup_P2) (first defined at codegen.man:41:3)") != NULL,
                  "%s", diags.s);
    /* traits: size 2 + "Two\0" + group GUID + decode GUID = 44 */
    ck_assert_int_eq(tv_get(p2, "traits_size")->i, 44);
    const TValue *t = tv_get(p2, "traits");
    ck_assert_int_eq(t->n, 4);
    ck_assert_str_eq(str(t->items[0], "literal"), "\"\\x2C\\x00\"");
    ck_assert_str_eq(str(t->items[1], "literal"), "\"Two\\x00\"");
    ck_assert_str_eq(str(t->items[2], "literal"),
                     "\"\\x13\\x00\\x01\\x11\\x11\\x11\\x11\\x22\\x22\\x33\\x33\\x44\\x44\\x55"
                     "\\x55\\x55\\x55\\x55\\x55\"");
    ck_assert_str_eq(str(t->items[3], "literal"),
                     "\"\\x13\\x00\\x02\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00"
                     "\\x00\\x00\\x00\\x00\\x00\\xAB\"");
    ck_assert_int_eq(tv_get(p1, "traits")->kind, TV_NONE);
    arena_free(&a);
    arena_free(&items);
    manifest_free(m);
    facts_free(&facts);
    buf_free(&diags);
    buf_free(&b);
}
END_TEST

/* Finds the built-in templates, except `mutant`, which replaces the one
 * named `mutant_name`. */
typedef struct Mutants {
    const char *mutant_name, *mutant;
    size_t mutant_len;
} Mutants;

static const char *load_mutant(void *ctx, const char *name, size_t *len)
{
    const Mutants *mu = ctx;
    if (strcmp(name, mu->mutant_name) == 0) {
        *len = mu->mutant_len;
        return mu->mutant;
    }
    for (const EmbeddedFile *f = embedded_templates; f->name; f++)
        if (strcmp(f->name, name) == 0) {
            *len = f->len;
            return (const char *)f->bytes;
        }
    return NULL;
}

/* 10,000 mutants of the real templates (1 to 5 bytes changed, deleted or
 * inserted, seeded), rendered against the values of a manifest: each ends
 * in output or in an error message, never a crash (ASan, UBSan watch). */
START_TEST(test_codegen_template_mutations)
{
    Buf diags = {0};
    Manifest *m = load(&diags);
    Arena a = {0};
    static const Options um = {.mode = HEADER_UM, .callout = true};
    TValue *vars = header_values(m, &facts, &um, &a);
    tv_set(&a, vars, "logging", tv_bool(&a, true));
    tv_set(&a, vars, "callout", tv_bool(&a, true));
    size_t ntemplates = 0;
    while (embedded_templates[ntemplates].name)
        ntemplates++;
    ck_assert_int_ge(ntemplates, 4);
    static const char alphabet[] = "{}%#-|.[]()'\",=<>!~+ \nabeifnorstx0123";
    uint32_t seed = 4242;
    int rendered = 0, refused = 0;
    Buf text = {0};
    for (int i = 0; i < 10000; i++) {
        const EmbeddedFile *f = &embedded_templates[(size_t)i % ntemplates];
        buf_reset(&text);
        buf_add(&text, f->bytes, f->len);
        for (int k = 0; k < 1 + i % 5; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % (text.len ? text.len : 1);
            int op = (seed >> 4) % 3;
            char c = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
            if (op == 0 && text.len) {
                text.s[at] = c;
            } else if (op == 1 && text.len) {
                memmove(text.s + at, text.s + at + 1, text.len - at - 1);
                text.len--;
            } else {
                buf_add(&text, " ", 1);
                memmove(text.s + at + 1, text.s + at, text.len - at - 1);
                text.s[at] = c;
            }
        }
        Mutants mu = {f->name, text.s, text.len};
        TmplLoader loader = {&mu, load_mutant};
        Buf out = {0}, err = {0};
        /* the mutant is the top template, or included by header.h.j2 */
        const char *top = strcmp(f->name, "header.h.j2") == 0 ? text.s : NULL;
        size_t top_len = text.len;
        if (!top)
            top = load_mutant(&mu, "header.h.j2", &top_len);
        Tmpl *t = tmpl_parse("header.h.j2", top, top_len, &err);
        bool ok = t && tmpl_render(t, vars, &loader, NULL, &out, &err);
        ck_assert_msg(ok || err.len > 0, "mutant %d of %s: no output and no error", i, f->name);
        rendered += ok;
        refused += !ok;
        tmpl_free(t);
        buf_free(&out);
        buf_free(&err);
    }
    ck_assert_int_gt(rendered, 0);
    ck_assert_int_gt(refused, 0);
    buf_free(&text);
    arena_free(&a);
    manifest_free(m);
    facts_free(&facts);
    buf_free(&diags);
}
END_TEST

/* mc's identifiers: a letter or '_' first, then letters, digits and
 * '_'; every other byte (a UTF-8 character is several) becomes '_'.  A
 * name that is one already is not copied. */
START_TEST(test_codegen_header_ident)
{
    static const char *const cases[][2] = {
        {"Provider_1", "Provider_1"},
        {"_x", "_x"},
        {"1st", "_st"},
        {"a.b-c d", "a_b_c_d"},
        {"9", "_"},
        {"", ""},
        {"z9_", "z9_"},
        {"caf\xC3\xA9", "caf__"},
        {"A$B", "A_B"},
        {"\x7F_", "__"},
    };
    Arena a = {0};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ck_assert_str_eq(header_ident(&a, cases[i][0]), cases[i][1]);
        const char *of = header_ident_of(&a, cases[i][0]);
        ck_assert_str_eq(of, cases[i][1]);
        if (strcmp(cases[i][0], cases[i][1]) == 0)
            ck_assert_ptr_eq(of, cases[i][0]);
        else
            ck_assert_ptr_ne(of, cases[i][0]);
    }
    arena_free(&a);
}
END_TEST

/* header_field_shape, which the Linux backends' parameters follow: the
 * shape add_field gives each field (mc's letter, count= and length= as
 * the header normalises them, a _Len_ parameter, fixed-size members). */
START_TEST(test_codegen_field_shape)
{
    Buf diags = {0};
    Manifest *m = load(&diags);
    const Provider *pv = m->providers.v[0];
    static const struct {
        size_t layout, field;
        char letter;
        QtyKind count, length;
        uint32_t count_n, length_n;
        bool takes_len, members_fixed;
    } cases[] = {
        {1, 0, 'h', QTY_NONE, QTY_NONE, 0, 0, false, true},   /* n */
        {1, 1, 'z', QTY_NONE, QTY_FIXED, 0, 3, false, true},  /* s1: length 3 */
        {1, 2, 's', QTY_NONE, QTY_FIELD, 0, 0, false, true},  /* s2: length n */
        {1, 3, 'z', QTY_FIXED, QTY_NONE, 4, 0, true, true},   /* s3: a list of strings */
        {1, 4, 'b', QTY_FIXED, QTY_FIXED, 2, 3, false, true}, /* s4 */
        {1, 8, 's', QTY_FIELD, QTY_NONE, 0, 0, true, true},   /* s8 */
        {1, 9, 'b', QTY_NONE, QTY_NONE, 0, 0, true, true},    /* s9: count 1, length 0 */
        {2, 4, 'n', QTY_FIELD, QTY_NONE, 0, 0, true, true},   /* st: count n */
        {2, 5, 'n', QTY_FIXED, QTY_NONE, 3, 0, true, false},  /* sv: a string member */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        FieldShape sh;
        header_field_shape(pv->layouts.v[cases[i].layout]->fields.v[cases[i].field], &sh);
        ck_assert_msg(sh.letter == cases[i].letter && sh.count == cases[i].count &&
                          sh.length == cases[i].length && sh.takes_len == cases[i].takes_len &&
                          sh.members_fixed == cases[i].members_fixed &&
                          (sh.count == QTY_NONE || sh.count_n == cases[i].count_n) &&
                          (sh.length == QTY_NONE || sh.length_n == cases[i].length_n),
                      "case %zu: %c %d/%u %d/%u %d %d", i, sh.letter, sh.count, sh.count_n,
                      sh.length, sh.length_n, sh.takes_len, sh.members_fixed);
    }
    /* --backends=lttng's files beside the header, its extension replaced */
    Arena a = {0};
    ck_assert_str_eq(linux_lttng_path(&a, "gen/app.h", false), "gen/app_lttng.h");
    ck_assert_str_eq(linux_lttng_path(&a, "gen/app.hpp", true), "gen/app_lttng.c");
    ck_assert_str_eq(linux_lttng_path(&a, "a.b/app", false), "a.b/app_lttng.h");
    arena_free(&a);
    manifest_free(m);
    facts_free(&facts);
    buf_free(&diags);
}
END_TEST

Suite *codegen_suite(void)
{
    Suite *s = suite_create("codegen");
    TCase *tc = tcase_create("codegen");
    /* the sanitizer builds run several times slower on a busy machine */
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_codegen_mangled_names_and_macro_args);
    tcase_add_test(tc, test_codegen_enable_bits_symbols_traits);
    tcase_add_test(tc, test_codegen_template_mutations);
    tcase_add_test(tc, test_codegen_header_ident);
    tcase_add_test(tc, test_codegen_field_shape);
    suite_add_tcase(s, tc);
    return s;
}
