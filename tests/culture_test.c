/*
 * culture_test.c - culture names and their Windows language ids
 * (culture.c).
 *
 * The expected ids are [MS-LCID] version 16.0's (section 2.2: the Language
 * ID table and the table of tags per Windows release), typed from the
 * document, not from culture.c.
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
        ck_assert_msg(culture_langid(documented[i].name, &id), "%s: no id",
                      documented[i].name);
        ck_assert_msg(id == documented[i].langid, "%s: 0x%04X, expected 0x%04X",
                      documented[i].name, id, documented[i].langid);
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
        "qq-QQ", "aa-DJ", "en-150", "en-001", "mni-IN", "qut-GT", "es-ES_tradnl",
        "de-DE_phoneb", "zh-CHS", "en-UK", "en-USA", "en-", "-US", "", "en-US-",
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
            ck_assert_msg(strcasecmp(culture_langs[i - 1].name, l->name) < 0,
                          "'%s' before '%s'", culture_langs[i - 1].name, l->name);
        uint16_t id = 0;
        ck_assert(culture_langid(l->name, &id));
        ck_assert_uint_eq(id, l->langid);
        ck_assert(l->langid != 0 && l->langid != 0x1000);
    }
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
    suite_add_tcase(s, tc);
    return s;
}
