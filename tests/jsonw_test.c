/* jsonw_test.c - the JSON writer: the document's commas and white space
 * in both styles, and strings that stay valid JSON (RFC 8259 section 7)
 * whatever bytes they are given. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

START_TEST(test_jsonw_compact_document)
{
    Buf b = {0};
    JsonW w;
    jsonw_init(&w, &b, 0);
    jsonw_begin_object(&w);
    jsonw_kstr(&w, "a", "x");
    jsonw_kstr(&w, "none", NULL);
    jsonw_key(&w, "list");
    jsonw_begin_list(&w);
    jsonw_uint(&w, 0);
    jsonw_uint(&w, UINT64_MAX);
    jsonw_int(&w, INT64_MIN);
    jsonw_int(&w, -1);
    jsonw_bool(&w, true);
    jsonw_bool(&w, false);
    jsonw_null(&w);
    jsonw_begin_object(&w);
    jsonw_end_object(&w);
    jsonw_begin_list(&w);
    jsonw_end_list(&w);
    jsonw_end_list(&w);
    jsonw_key(&w, "o");
    jsonw_begin_object(&w);
    jsonw_key(&w, "k");
    jsonw_uint(&w, 12);
    jsonw_end_object(&w);
    jsonw_end_object(&w);
    ck_assert_str_eq(b.s, "{\"a\":\"x\",\"none\":null,\"list\":[0,18446744073709551615,"
                          "-9223372036854775808,-1,true,false,null,{},[]],\"o\":{\"k\":12}}");
    ck_assert_uint_eq(b.len, strlen(b.s));
    buf_free(&b);
}
END_TEST

START_TEST(test_jsonw_indented_document)
{
    Buf b = {0};
    JsonW w;
    jsonw_init(&w, &b, 2);
    jsonw_begin_object(&w);
    jsonw_key(&w, "v");
    jsonw_uint(&w, 1);
    jsonw_key(&w, "empty");
    jsonw_begin_list(&w);
    jsonw_end_list(&w);
    jsonw_key(&w, "l");
    jsonw_begin_list(&w);
    jsonw_begin_object(&w);
    jsonw_kstr(&w, "s", "t");
    jsonw_end_object(&w);
    jsonw_str(&w, "u");
    jsonw_end_list(&w);
    jsonw_end_object(&w);
    ck_assert_str_eq(b.s, "{\n"
                          "  \"v\": 1,\n"
                          "  \"empty\": [],\n"
                          "  \"l\": [\n"
                          "    {\n"
                          "      \"s\": \"t\"\n"
                          "    },\n"
                          "    \"u\"\n"
                          "  ]\n"
                          "}");
    buf_free(&b);
}
END_TEST

/* One string value, written alone. */
static char *one_string(const char *s, size_t n)
{
    Buf b = {0};
    JsonW w;
    jsonw_init(&w, &b, 0);
    jsonw_strn(&w, s, n);
    return b.s;
}

START_TEST(test_jsonw_string_escapes)
{
    static const char in[] = "q\" b\\ \n\r\t \x01\x1f \x7f / <>";
    char *s = one_string(in, sizeof in - 1);
    ck_assert_str_eq(s, "\"q\\\" b\\\\ \\n\\r\\t \\u0001\\u001f \\u007f / <>\"");
    free(s);
    /* a NUL inside a counted string is a character too */
    s = one_string("a\0b", 3);
    ck_assert_str_eq(s, "\"a\\u0000b\"");
    free(s);
}
END_TEST

START_TEST(test_jsonw_string_utf8_kept_or_replaced)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", "\"\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\""},
        {"\xEF\xBF\xBD", "\"\xEF\xBF\xBD\""},             /* U+FFFD as written */
        {"a\xFF" "b", "\"a\xEF\xBF\xBD" "b\""},            /* a stray byte */
        {"\x80", "\"\xEF\xBF\xBD\""},                      /* a lone continuation */
        {"\xE2\x82", "\"\xEF\xBF\xBD\xEF\xBF\xBD\""},      /* cut short: byte by byte */
        {"\xC0\x80", "\"\xEF\xBF\xBD\""},                  /* overlong NUL */
        {"\xED\xA0\x80", "\"\xEF\xBF\xBD\""},              /* an encoded surrogate */
        {"\xF4\x90\x80\x80", "\"\xEF\xBF\xBD\""},          /* past U+10FFFF */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *s = one_string(cases[i].in, strlen(cases[i].in));
        ck_assert_msg(strcmp(s, cases[i].out) == 0, "case %zu: %s", i, s);
        free(s);
    }
}
END_TEST

START_TEST(test_jsonw_keys_escaped)
{
    Buf b = {0};
    JsonW w;
    jsonw_init(&w, &b, 0);
    jsonw_begin_object(&w);
    jsonw_kstr(&w, "a\"b\\\xFF", "v");
    jsonw_end_object(&w);
    ck_assert_str_eq(b.s, "{\"a\\\"b\\\\\xEF\xBF\xBD\":\"v\"}");
    buf_free(&b);
}
END_TEST

/* Integers at every change in their number of digits, against printf. */
START_TEST(test_jsonw_numbers_as_printf)
{
    uint64_t p = 1;
    for (int d = 0; d < 20; d++, p *= 10) {
        uint64_t vs[] = {p - 1, p, p + 1, p * 5, UINT64_MAX - p};
        for (size_t i = 0; i < sizeof vs / sizeof *vs; i++) {
            char want[64];
            Buf b = {0};
            JsonW w;
            jsonw_init(&w, &b, 0);
            jsonw_begin_list(&w);
            jsonw_uint(&w, vs[i]);
            jsonw_int(&w, -(int64_t)(vs[i] >> 1));
            jsonw_int(&w, (int64_t)(vs[i] >> 1));
            jsonw_end_list(&w);
            snprintf(want, sizeof want, "[%" PRIu64 ",%" PRId64 ",%" PRId64 "]", vs[i],
                     -(int64_t)(vs[i] >> 1), (int64_t)(vs[i] >> 1));
            ck_assert_str_eq(b.s, want);
            ck_assert_uint_eq(b.len, strlen(want));
            buf_free(&b);
        }
    }
}
END_TEST

/* A literal key's text as jsonw_lk* take it: quoted with its colon, padded */
#define LK(lit) "\"" lit "\":" JSONW_LIT_PAD, sizeof(lit) + 2

/* Literal keys with their values give the bytes jsonw_key and the value
 * calls give, first in an object or not, a key longer than the fixed-size
 * copy too; a value string that needs escapes is escaped. */
START_TEST(test_jsonw_literal_keys)
{
    Buf b = {0};
    JsonW w;
    jsonw_init(&w, &b, 0);
    jsonw_begin_object(&w);
    jsonw_lkstr(&w, LK("name"), "x");
    jsonw_lkstr(&w, LK("esc"), "a\"\xFF");
    jsonw_lkstr(&w, LK("none"), NULL);
    jsonw_lkbegin(&w, LK("k"), false);
    jsonw_lkuint(&w, LK("abcdefghijklmnopqrstuvwxyz01"), 1); /* 31 bytes of text */
    jsonw_lkuint(&w, LK("abcdefghijklmnopqrstuvwxyz0123456789"), UINT64_MAX);
    jsonw_end_object(&w);
    jsonw_lkbegin(&w, LK("l"), true);
    jsonw_uint(&w, 100);
    jsonw_end_list(&w);
    jsonw_lkbool(&w, LK("t"), true);
    jsonw_lkbool(&w, LK("f"), false);
    jsonw_lknull(&w, LK("n"));
    jsonw_lkpair(&w, LK("loc"), 12345678901234567890u, 0);
    jsonw_lkhex64(&w, LK("mask"), 0x8000000000000abcu);
    jsonw_lkraw(&w, LK("raw"), "{\"a\":1}", 7);
    jsonw_lkbegin(&w, LK("raws"), true);
    jsonw_raw(&w, "[]", 2);
    jsonw_raw(&w, "{}", 2);
    jsonw_end_list(&w);
    jsonw_lkey(&w, LK("s"));
    jsonw_str(&w, "v");
    jsonw_end_object(&w);
    ck_assert_str_eq(b.s, "{\"name\":\"x\",\"esc\":\"a\\\"\xEF\xBF\xBD\",\"none\":null,"
                          "\"k\":{\"abcdefghijklmnopqrstuvwxyz01\":1,"
                          "\"abcdefghijklmnopqrstuvwxyz0123456789\":18446744073709551615},"
                          "\"l\":[100],\"t\":true,\"f\":false,\"n\":null,"
                          "\"loc\":[12345678901234567890,0],\"mask\":\"0x8000000000000abc\","
                          "\"raw\":{\"a\":1},\"raws\":[[],{}],"
                          "\"s\":\"v\"}");
    ck_assert_uint_eq(b.len, strlen(b.s));
    buf_free(&b);
}
END_TEST

/* A key's text made at run time is the text the compiler makes, padded;
 * a key that needs an escape, is not ASCII or is too long is refused. */
START_TEST(test_jsonw_literal_keys_made)
{
    char text[64];
    memset(text, 'x', sizeof text);
    ck_assert(jsonw_lit_make(text, "en-US"));
    ck_assert_mem_eq(text, "\"en-US\":" JSONW_LIT_PAD, 8 + JSONW_LIT_READ);
    ck_assert(jsonw_lit_make(text, "abcdefghijklmnopqrstuvwxyz01")); /* 31 bytes of text */
    ck_assert(!jsonw_lit_make(text, "abcdefghijklmnopqrstuvwxyz0123"));
    ck_assert(!jsonw_lit_make(text, "a\"b"));
    ck_assert(!jsonw_lit_make(text, "caf\xC3\xA9"));
}
END_TEST

Suite *jsonw_suite(void)
{
    Suite *s = suite_create("jsonw");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_jsonw_compact_document);
    tcase_add_test(tc, test_jsonw_indented_document);
    tcase_add_test(tc, test_jsonw_string_escapes);
    tcase_add_test(tc, test_jsonw_string_utf8_kept_or_replaced);
    tcase_add_test(tc, test_jsonw_keys_escaped);
    tcase_add_test(tc, test_jsonw_numbers_as_printf);
    tcase_add_test(tc, test_jsonw_literal_keys);
    tcase_add_test(tc, test_jsonw_literal_keys_made);
    suite_add_tcase(s, tc);
    return s;
}
