/*
 * culture_test.c - culture names and their Windows language ids
 * (culture.c), the rule that every culture has one (MCG5016, MCG5017) and
 * the .rc's LANGUAGE statement built from them (emit_rc.c).
 *
 * The expected ids are [MS-LCID] version 16.0's (section 2.2: the Language
 * ID table and the table of tags per Windows release), typed from the
 * document, not from culture.c; the LANGUAGE pair is MAKELANGID's split
 * (primary language: the low 10 bits, sublanguage: the high 6), as the
 * golden mc.rc files show for en-US (0x0409: "LANGUAGE 0x9,0x1").
 */
#include <string.h>
#include <strings.h>

#include "unit.h"

static const struct {
    const char *name;
    uint16_t langid;
} documented[] = {
    /* neutral cultures */
    {"en", 0x0009},
    {"de", 0x0007},
    {"ar", 0x0001},
    {"af", 0x0036},
    {"no", 0x0014},
    {"nb", 0x7C14},
    {"haw", 0x0075}, /* section 3's example of a neutral locale */
    {"zh", 0x7804},
    {"sr", 0x7C1A},
    {"bs", 0x781A},
    {"quc", 0x0086},
    /* scripts */
    {"zh-Hans", 0x0004},
    {"zh-Hant", 0x7C04},
    {"sr-Latn", 0x701A},
    {"sr-Cyrl", 0x6C1A},
    {"az-Cyrl", 0x742C},
    {"tzm-Tfng", 0x785F},
    /* languages with a region, and a script or a variant */
    {"en-US", 0x0409},
    {"en-GB", 0x0809},
    {"de-DE", 0x0407},
    {"fr-CA", 0x0C0C},
    {"ja-JP", 0x0411},
    {"nn-NO", 0x0814},
    {"es-ES", 0x0C0A},
    {"es-MX", 0x080A},
    {"es-419", 0x580A},
    {"en-029", 0x2409},
    {"ca-ES-valencia", 0x0803},
    {"sr-Latn-RS", 0x241A},
    {"sr-Cyrl-RS", 0x281A},
    {"sr-Latn-CS", 0x081A},
    {"az-Cyrl-AZ", 0x082C},
    {"az-Latn-AZ", 0x042C},
    {"bs-Latn-BA", 0x141A},
    {"mn-Mong-MN", 0x0C50},
    {"ku-Arab-IQ", 0x0492},
    {"ff-Latn-SN", 0x0867},
    {"tzm-Tfng-MA", 0x105F},
    {"quc-Latn-GT", 0x0486},
    {"zu-ZA", 0x0435},
    {"yi-001", 0x043D},
    {"qps-ploc", 0x0501},
    {"qps-plocm", 0x09FF},
};

START_TEST(test_culture_langid_documented)
{
    for (size_t i = 0; i < sizeof documented / sizeof *documented; i++) {
        uint16_t id = 0;
        ck_assert_msg(culture_langid(documented[i].name, &id), "%s: no id", documented[i].name);
        ck_assert_msg(id == documented[i].langid, "%s: 0x%04X, expected 0x%04X", documented[i].name,
                      id, documented[i].langid);
    }
}
END_TEST

/* Language tags are case-insensitive (RFC 5646 2.1.1). */
START_TEST(test_culture_langid_ignores_case)
{
    uint16_t id = 0;
    ck_assert(culture_langid("EN-us", &id));
    ck_assert_uint_eq(id, 0x0409);
    ck_assert(culture_langid("ZH-hANT", &id));
    ck_assert_uint_eq(id, 0x7C04);
    ck_assert(culture_langid("CA-es-VALENCIA", &id));
    ck_assert_uint_eq(id, 0x0803);
}
END_TEST

/* Names with no id of their own: unknown ones, the ones Windows numbers
 * LOCALE_CUSTOM_UNSPECIFIED (0x1000), ids [MS-LCID] only reserves, the
 * alternate sorts, .NET's legacy zh-CHS, and near misses. */
START_TEST(test_culture_langid_unknown)
{
    static const char *const none[] = {
        "qq-QQ",  "aa-DJ", "en-150", "en-001", "mni-IN", "qut-GT", "es-ES_tradnl", "de-DE_phoneb",
        "zh-CHS", "en-UK", "en-USA", "en-",    "-US",    "",       "en-US-",
    };
    for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
        uint16_t id = 0x1234;
        ck_assert_msg(!culture_langid(none[i], &id), "'%s' has an id", none[i]);
        ck_assert_uint_eq(id, 0x1234);
    }
}
END_TEST

/* The binary search needs the order; every row is found by its name. */
START_TEST(test_culture_table_sorted)
{
    ck_assert_uint_gt(culture_nlangs, 0);
    for (size_t i = 0; i < culture_nlangs; i++) {
        const CultureLang *l = &culture_langs[i];
        if (i)
            ck_assert_msg(strcasecmp(culture_langs[i - 1].name, l->name) < 0, "'%s' before '%s'",
                          culture_langs[i - 1].name, l->name);
        uint16_t id = 0;
        ck_assert(culture_langid(l->name, &id));
        ck_assert_uint_eq(id, l->langid);
        ck_assert(l->langid != 0 && l->langid != 0x1000);
    }
}
END_TEST

static const char cultures_doc[] =
    "<instrumentationManifest xmlns='http://schemas.microsoft.com/win/2004/08/events'>\n"
    "<instrumentation><events>\n"
    "<provider name='P' guid='{00000000-0000-0000-0000-000000000001}' symbol='P'\n"
    "          resourceFileName='p.dll' messageFileName='p.dll'\n"
    "          message='$(string.p)'/>\n"
    "</events></instrumentation>\n"
    "<localization>\n"
    "<resources culture='de'><stringTable><string id='p' value='P'/></stringTable></resources>\n"
    "<resources culture='zh-Hant'><stringTable><string id='p' value='P'/></stringTable>"
    "</resources>\n"
    "<resources culture='sr-Latn-RS'><stringTable><string id='p' value='P'/></stringTable>"
    "</resources>\n"
    "<resources culture='%s'><stringTable><string id='p' value='P'/></stringTable>"
    "</resources>\n"
    "</localization></instrumentationManifest>\n";

static Manifest *load_cultures(const char *fourth, Buf *diags)
{
    Buf doc = {0};
    buf_printf(&doc, cultures_doc, fourth);
    diag_set_capture(diags);
    Manifest *m = unit_load("t.man", doc.s, doc.len, 0, NULL);
    diag_set_capture(NULL);
    buf_free(&doc);
    return m;
}

/* LANGUAGE primary,sub per culture, from the documented ids. */
START_TEST(test_culture_rc_language)
{
    Buf diags = {0}, rc = {0};
    Manifest *m = load_cultures("ca-ES-valencia", &diags);
    ck_assert_msg(m != NULL, "%s", diags.s ? diags.s : "");
    const char *names[] = {"MSG00001.bin", "MSG00002.bin", "MSG00003.bin", "MSG00004.bin"};
    TemplateFinder tf;
    finder_init(&tf, NULL, NULL);
    RcTable t[4];
    size_t nt = rc_manifest_tables(m, names, t);
    ck_assert_uint_eq(nt, 4);
    ck_assert(rc_build(t, nt, NULL, true, &tf, &rc));
    ck_assert_str_eq(rc.s, "LANGUAGE 0x7,0x0\n1 11 \"MSG00001.bin\"\n"
                           "LANGUAGE 0x4,0x1f\n1 11 \"MSG00002.bin\"\n"
                           "LANGUAGE 0x1a,0x9\n1 11 \"MSG00003.bin\"\n"
                           "LANGUAGE 0x3,0x2\n1 11 \"MSG00004.bin\"\n");
    finder_free(&tf);
    manifest_free(m);
    buf_free(&rc);
    buf_free(&diags);
    diag_reset();
}
END_TEST

START_TEST(test_culture_rule_unknown)
{
    Buf diags = {0};
    ck_assert_ptr_null(load_cultures("qq-QQ", &diags));
    ck_assert_ptr_nonnull(strstr(diags.s, "t.man:11:12: error: [MCG5016] culture 'qq-QQ' has no "
                                          "Windows language id"));
    buf_free(&diags);
    diag_reset();
}
END_TEST

START_TEST(test_culture_rule_duplicate)
{
    Buf diags = {0};
    ck_assert_ptr_null(load_cultures("DE", &diags));
    ck_assert_ptr_nonnull(
        strstr(diags.s, "t.man:11:12: error: [MCG5017] culture 'DE' has the language id 0x0007 of "
                        "culture 'de': the module would get two message tables of one language "
                        "(first defined at t.man:8:12)"));
    buf_free(&diags);
    diag_reset();
}
END_TEST

/* -A: a text of a message table with a character Windows-1252 lacks (the
 * Euro sign and the sharp s it has, U+0141 it has not), through the check
 * stage with the option, as --validate -A and a compile with -A run it. */
START_TEST(test_culture_rule_ansi)
{
    char doc[] =
        "<instrumentationManifest xmlns='http://schemas.microsoft.com/win/2004/08/events'>\n"
        "<instrumentation><events>\n"
        "<provider name='P' guid='{00000000-0000-0000-0000-000000000001}' symbol='P'\n"
        "          resourceFileName='p.dll' messageFileName='p.dll' message='$(string.p)'/>\n"
        "</events></instrumentation>\n"
        "<localization><resources culture='pl-PL'><stringTable>\n"
        "<string id='p' value='\xE2\x82\xAC \xC3\x9F'/>\n"
        "<string id='q' value='\xC5\x81\xC3\xB3"
        "d\xC5\xBA'/>\n"
        "</stringTable></resources></localization></instrumentationManifest>\n";
    Options o = {.mode = HEADER_UM};
    o.tables.ansi = true;
    Buf diags = {0};
    diag_set_capture(&diags);
    Manifest *m = read_man_mem("t.man", doc, sizeof doc - 1, 0);
    ck_assert_ptr_nonnull(m);
    Facts f = {0};
    /* q is not referenced: no table holds it (MCG5015 only) */
    ck_assert(check_manifest(m, &o, &f));
    facts_free(&f);
    manifest_free(m);
    char *bad = strstr(doc, "'$(string.p)'");
    memcpy(bad, "'$(string.q)'", 13);
    m = read_man_mem("t.man", doc, sizeof doc - 1, 0);
    ck_assert(!check_manifest(m, &o, &f));
    diag_set_capture(NULL);
    ck_assert_ptr_nonnull(strstr(diags.s,
                                 "t.man:8:1: error: [MCG5018] string 'q' (culture 'pl-PL') "
                                 "has the character U+0141, which the ANSI code page of "
                                 "-A (Windows-1252) does not have"));
    facts_free(&f);
    manifest_free(m);
    buf_free(&diags);
    diag_reset();
}
END_TEST

Suite *culture_suite(void)
{
    Suite *s = suite_create("culture");
    TCase *tc = tcase_create("culture");
    tcase_add_test(tc, test_culture_langid_documented);
    tcase_add_test(tc, test_culture_langid_ignores_case);
    tcase_add_test(tc, test_culture_langid_unknown);
    tcase_add_test(tc, test_culture_table_sorted);
    tcase_add_test(tc, test_culture_rc_language);
    tcase_add_test(tc, test_culture_rule_unknown);
    tcase_add_test(tc, test_culture_rule_duplicate);
    tcase_add_test(tc, test_culture_rule_ansi);
    suite_add_tcase(s, tc);
    return s;
}
