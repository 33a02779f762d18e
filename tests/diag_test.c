/* diag_test.c - what diag.c prints and records, word for word: the text
 * format (a warning's option, the quoted source line, the closing summary)
 * and the documents of --diagnostics-format (JSON, SARIF). */
#include <stdlib.h>
#include <string.h>

#include "unit.h"

static const char SRC[] = "<a/>\n  <b x=\"1\"/>\n";

/* One coded error naming a second place, one warning made an error by
 * -Werror, one uncoded note without a place. */
static void report_three(void)
{
    diag_register_source("dir/a b.man", SRC, sizeof SRC - 1);
    diag_ex(D_XML_SYNTAX, (Loc){diag_file("dir/a b.man"), 2, 3}, (Loc){diag_file("dir/a b.man"), 1, 1},
            "first defined", "dup \"%s\" \\ %d\x01 \xff", "x", 5);
    diag_warnings_as_errors(true);
    diag_c(D_NO_LOCALIZATION, (Loc){diag_file("dir/a b.man"), 0, 0}, "no strings");
    diag_plain(DIAG_NOTE, "just so you know");
}

START_TEST(test_diag_json_records_everything)
{
    diag_reset();
    Buf cap = {0};
    diag_set_capture(&cap);
    diag_set_format(DIAG_FORMAT_JSON);
    report_three();
    ck_assert_uint_eq(cap.len, 0); /* nothing printed */
    ck_assert_int_eq(diag_error_count(), 2);
    Buf b = {0};
    diag_write_json(&b);
    ck_assert_str_eq(b.s,
                     "{\n"
                     "  \"version\": 1,\n"
                     "  \"diagnostics\": [\n"
                     "    {\n"
                     "      \"level\": \"error\",\n"
                     "      \"code\": \"MCG1001\",\n"
                     "      \"name\": \"xml-syntax\",\n"
                     "      \"file\": \"dir/a b.man\",\n"
                     "      \"line\": 2,\n"
                     "      \"column\": 3,\n"
                     "      \"message\": \"dup \\\"x\\\" \\\\ 5\\u0001 \xEF\xBF\xBD\",\n"
                     "      \"related\": [\n"
                     "        {\n"
                     "          \"file\": \"dir/a b.man\",\n"
                     "          \"line\": 1,\n"
                     "          \"column\": 1,\n"
                     "          \"message\": \"first defined\"\n"
                     "        }\n"
                     "      ],\n"
                     "      \"source\": \"  <b x=\\\"1\\\"/>\"\n"
                     "    },\n"
                     "    {\n"
                     "      \"level\": \"error\",\n"
                     "      \"code\": \"MCG5002\",\n"
                     "      \"name\": \"no-localization\",\n"
                     "      \"file\": \"dir/a b.man\",\n"
                     "      \"line\": null,\n"
                     "      \"column\": null,\n"
                     "      \"message\": \"no strings\",\n"
                     "      \"related\": [],\n"
                     "      \"source\": null\n"
                     "    },\n"
                     "    {\n"
                     "      \"level\": \"note\",\n"
                     "      \"code\": null,\n"
                     "      \"name\": null,\n"
                     "      \"file\": null,\n"
                     "      \"line\": null,\n"
                     "      \"column\": null,\n"
                     "      \"message\": \"just so you know\",\n"
                     "      \"related\": [],\n"
                     "      \"source\": null\n"
                     "    }\n"
                     "  ]\n"
                     "}\n");
    buf_free(&b);
    diag_set_capture(NULL);
    buf_free(&cap);
    diag_reset();
}
END_TEST

START_TEST(test_diag_sarif_related_location)
{
    diag_reset();
    diag_set_format(DIAG_FORMAT_SARIF);
    report_three();
    Buf b = {0};
    diag_write_sarif(&b, "9.9");
    /* rules: the codes the results use, in number order */
    const char *r1 = strstr(b.s, "\"id\": \"MCG1001\"");
    const char *r2 = strstr(b.s, "\"id\": \"MCG5002\"");
    ck_assert(r1 && r2 && r1 < r2);
    ck_assert_ptr_null(strstr(b.s, "MCG0000"));
    ck_assert_ptr_null(strstr(b.s, "MCG1002"));
    ck_assert_ptr_nonnull(strstr(b.s, "\"name\": \"NoLocalization\""));
    ck_assert_ptr_nonnull(strstr(
        b.s, "\"text\": \"MCG5002: the manifest"));
    ck_assert_ptr_nonnull(strstr(b.s, "-Wno-no-localization silences it"));
    ck_assert_ptr_nonnull(strstr(b.s, "\"version\": \"9.9\""));
    /* the first result: its message as printed, a relative URI, the
     * second place */
    ck_assert_ptr_nonnull(strstr(b.s,
        "          \"ruleId\": \"MCG1001\",\n"
        "          \"ruleIndex\": 0,\n"
        "          \"level\": \"error\",\n"
        "          \"message\": {\n"
        "            \"text\": \"dup \\\"x\\\" \\\\ 5\\u0001 \xEF\xBF\xBD (first defined at dir/a b.man:1:1)\"\n"
        "          },\n"
        "          \"locations\": [\n"
        "            {\n"
        "              \"physicalLocation\": {\n"
        "                \"artifactLocation\": {\n"
        "                  \"uri\": \"dir/a%20b.man\",\n"
        "                  \"uriBaseId\": \"%SRCROOT%\"\n"
        "                },\n"
        "                \"region\": {\n"
        "                  \"startLine\": 2,\n"
        "                  \"startColumn\": 3,\n"
        "                  \"snippet\": {\n"
        "                    \"text\": \"  <b x=\\\"1\\\"/>\"\n"
        "                  }\n"
        "                }\n"
        "              }\n"
        "            }\n"
        "          ],\n"
        "          \"relatedLocations\": [\n"
        "            {\n"
        "              \"id\": 1,\n"
        "              \"physicalLocation\": {\n"
        "                \"artifactLocation\": {\n"
        "                  \"uri\": \"dir/a%20b.man\",\n"
        "                  \"uriBaseId\": \"%SRCROOT%\"\n"
        "                },\n"
        "                \"region\": {\n"
        "                  \"startLine\": 1,\n"
        "                  \"startColumn\": 1\n"
        "                }\n"
        "              },\n"
        "              \"message\": {\n"
        "                \"text\": \"first defined\"\n"
        "              }\n"
        "            }\n"
        "          ]\n"));
    /* a warning made an error keeps its rule's default level */
    ck_assert_ptr_nonnull(strstr(b.s, "\"ruleId\": \"MCG5002\",\n"
                                      "          \"ruleIndex\": 1,\n"
                                      "          \"level\": \"error\""));
    ck_assert_ptr_nonnull(strstr(b.s, "\"defaultConfiguration\": {\n"
                                      "                \"level\": \"warning\""));
    /* the note has no file: a tool execution notification, not a result
     * (code scanning refuses a result without a location) */
    ck_assert_ptr_nonnull(strstr(b.s,
        "      \"invocations\": [\n"
        "        {\n"
        "          \"executionSuccessful\": true,\n"
        "          \"toolExecutionNotifications\": [\n"
        "            {\n"
        "              \"level\": \"note\",\n"
        "              \"message\": {\n"
        "                \"text\": \"just so you know\"\n"
        "              }\n"
        "            }\n"
        "          ]\n"
        "        }\n"
        "      ],\n"));
    ck_assert_ptr_null(strstr(strstr(b.s, "\"results\""), "\"level\": \"note\""));
    buf_free(&b);
    diag_reset();
}
END_TEST

START_TEST(test_diag_gcc_records_nothing)
{
    diag_reset();
    Buf cap = {0};
    diag_set_capture(&cap);
    report_three();
    ck_assert_str_eq(cap.s,
                     "dir/a b.man:2:3: error: [MCG1001] dup \"x\" \\ 5\x01 \xff (first defined at "
                     "dir/a b.man:1:1)\n"
                     "    <b x=\"1\"/>\n"
                     "    ^\n"
                     "dir/a b.man: error: [MCG5002, -Werror=no-localization] no strings\n"
                     "mcgen: note: just so you know\n");
    Buf b = {0};
    diag_write_json(&b);
    ck_assert_str_eq(b.s, "{\n  \"version\": 1,\n  \"diagnostics\": []\n}\n");
    buf_free(&b);
    diag_set_capture(NULL);
    buf_free(&cap);
    diag_reset();
}
END_TEST

START_TEST(test_diag_formatted_template_error)
{
    diag_reset();
    diag_set_format(DIAG_FORMAT_JSON);
    diag_formatted("my:tmpl.j2:4:7: error: '}}' expected");
    diag_formatted("no place: error here");
    Buf b = {0};
    diag_write_json(&b);
    ck_assert_ptr_nonnull(strstr(b.s, "\"file\": \"my:tmpl.j2\",\n"
                                      "      \"line\": 4,\n"
                                      "      \"column\": 7,\n"
                                      "      \"message\": \"'}}' expected\""));
    ck_assert_ptr_nonnull(strstr(b.s, "\"file\": null,\n"
                                      "      \"line\": null,\n"
                                      "      \"column\": null,\n"
                                      "      \"message\": \"no place: error here\""));
    /* a template is an input of the tool: an I/O problem, exit 2 */
    ck_assert_int_eq(diag_error_count(), 2);
    ck_assert_int_eq(diag_io_count(), 2);
    buf_free(&b);
    diag_reset();
}
END_TEST

/* gcc's habit: a warning names the option that controls it, and after
 * -Werror the option that made it an error; an error only its code. */
START_TEST(test_diag_gcc_warning_names_its_option)
{
    diag_reset();
    Buf cap = {0};
    diag_set_capture(&cap);
    diag_c(D_STRING_UNUSED, (Loc){diag_file("app.man"), 0, 0}, "string 'x' is not used");
    ck_assert(diag_set_warning("MCG5015", true, true)); /* -Werror=MCG5015 */
    diag_c(D_STRING_UNUSED, (Loc){diag_file("app.man"), 0, 0}, "string 'y' is not used");
    diag_c(D_BITMAP_VALUE, (Loc){diag_file("app.man"), 0, 0}, "two bits");
    diag_c(D_DUP_EVENT, (Loc){diag_file("app.man"), 0, 0}, "twice");
    ck_assert_str_eq(cap.s, "app.man: warning: [MCG5015, -Wunused-string] string 'x' is not used\n"
                            "app.man: error: [MCG5015, -Werror=unused-string] string 'y' is not "
                            "used\n"
                            "app.man: warning: [MCG6019, -Wbitmap-value] two bits\n"
                            "app.man: error: [MCG2010] twice\n");
    ck_assert(diag_set_warning("MCG6019", false, false)); /* -Wno-MCG6019 */
    diag_c(D_BITMAP_VALUE, (Loc){diag_file("app.man"), 0, 0}, "silenced");
    ck_assert_int_eq(diag_warning_count(), 2);
    /* names that are no warning: an error's name or code, a code that
     * does not exist, a code written otherwise */
    ck_assert(!diag_set_warning("duplicate-event", false, false));
    ck_assert(!diag_set_warning("MCG2010", false, false));
    ck_assert(!diag_set_warning("MCG9999", false, false));
    ck_assert(!diag_set_warning("MCG50150", false, false));
    ck_assert(!diag_set_warning("mcg5015", false, false));
    diag_set_capture(NULL);
    buf_free(&cap);
    diag_reset();
}
END_TEST

/* "N errors, M warnings": plural and singular forms, a zero left out,
 * notes not counted, nothing after a clean run or in the documents. */
START_TEST(test_diag_summary_counts)
{
    static const struct {
        int errors, warnings, notes;
        const char *line;
    } cases[] = {
        {0, 0, 1, ""},
        {1, 0, 0, "1 error\n"},
        {0, 1, 2, "1 warning\n"},
        {2, 3, 0, "2 errors, 3 warnings\n"},
        {1, 1, 1, "1 error, 1 warning\n"},
        {3, 0, 0, "3 errors\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        diag_reset();
        Buf cap = {0}, reported = {0};
        diag_set_capture(&reported);
        for (int k = 0; k < cases[i].errors; k++)
            diag_plain(DIAG_ERROR, "e");
        for (int k = 0; k < cases[i].warnings; k++)
            diag_plain(DIAG_WARNING, "w");
        for (int k = 0; k < cases[i].notes; k++)
            diag_plain(DIAG_NOTE, "n");
        diag_set_capture(&cap);
        diag_summary();
        ck_assert_str_eq(cap.s ? cap.s : "", cases[i].line);
        diag_set_capture(NULL);
        buf_free(&cap);
        buf_free(&reported);
    }
    diag_reset();
    Buf cap = {0};
    diag_set_capture(&cap);
    diag_set_format(DIAG_FORMAT_SARIF);
    diag_plain(DIAG_ERROR, "e");
    diag_summary();
    ck_assert_uint_eq(cap.len, 0);
    ck_assert_int_eq(diag_error_count(), 1);
    diag_set_capture(NULL);
    diag_reset();
}
END_TEST

/* 200 lines "L1".."L200" ending in turn with \r, \n and \r\n (XML's
 * three line ends), as UTF-8 or as UTF-16 with a byte-order mark. */
static void lines_text(Buf *b, int utf16, bool big_endian)
{
    Buf t = {0};
    for (int k = 1; k <= 200; k++)
        buf_printf(&t, "L%d%s", k, k % 3 == 0 ? "\r" : k % 3 == 1 ? "\n" : "\r\n");
    if (!utf16) {
        buf_add(b, t.s, t.len);
    } else {
        buf_add(b, big_endian ? "\xFE\xFF" : "\xFF\xFE", 2);
        for (size_t i = 0; i < t.len; i++) {
            char u[2] = {big_endian ? 0 : t.s[i], big_endian ? t.s[i] : 0};
            buf_add(b, u, 2);
        }
    }
    buf_free(&t);
}

/* `text` into a new file named after the template `path`. */
static void write_temp(char *path, const Buf *text)
{
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "wb");
    ck_assert_uint_eq(fwrite(text->s, 1, text->len, f), text->len);
    fclose(f);
}

/* The caret line of line k of `file`, as diag prints it: around the
 * sparse index's marks (every 64th line), across every kind of line end,
 * from a registered source and from a file on disk, in UTF-8 and UTF-16;
 * the empty line after the last line end and lines past it show none. */
static void check_lines_of(const char *file)
{
    static const int ks[] = {1, 2, 3, 63, 64, 65, 66, 127, 128, 129, 130, 199, 200};
    for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
        Buf cap = {0}, want = {0};
        diag_set_capture(&cap);
        diag_at(DIAG_ERROR, (Loc){diag_file(file), (uint32_t)ks[i], 2}, "x");
        buf_printf(&want, "%s:%d:2: error: x\n  L%d\n   ^\n", file, ks[i], ks[i]);
        ck_assert_str_eq(cap.s, want.s);
        buf_free(&cap);
        buf_free(&want);
    }
    for (uint32_t k = 201; k <= 202; k++) {
        Buf cap = {0}, want = {0};
        diag_set_capture(&cap);
        diag_at(DIAG_ERROR, (Loc){diag_file(file), k, 1}, "x");
        buf_printf(&want, "%s:%u:1: error: x\n", file, k);
        ck_assert_str_eq(cap.s, want.s);
        buf_free(&cap);
        buf_free(&want);
    }
    diag_set_capture(NULL);
}

START_TEST(test_diag_source_line_every_line_end)
{
    for (int enc = 0; enc < 3; enc++) {
        Buf text = {0};
        lines_text(&text, enc > 0, enc == 2);
        diag_reset();
        diag_register_source("mem.man", text.s, text.len);
        check_lines_of("mem.man");
        char path[] = "/tmp/mcgen-diag-test-XXXXXX";
        write_temp(path, &text);
        diag_reset();
        check_lines_of(path);
        diag_reset();
        remove(path);
        buf_free(&text);
    }
}
END_TEST

/* Lines long enough that the reads cross chunks (the file is read 4 and
 * 16 KiB at a time, a registered source looked at as much), asked for out
 * of order (the index of line starts is built only as far as asked), each
 * holding U+0D0A, whose UTF-16 code unit is the bytes of \n and \r. */
static void check_long_lines(int enc)
{
    enum { LINES = 300 };
    static const int order[] = {250, 3, 129, 64, 300, 1, 200, 65, 66, 128, 299, 2};
    const char *uu = "\xE0\xB4\x8A"; /* U+0D0A as UTF-8 */
    char *want_line[LINES + 1];
    Buf text = {0};
    if (enc)
        buf_add(&text, enc == 2 ? "\xFE\xFF" : "\xFF\xFE", 2);
    for (int k = 1; k <= LINES; k++) {
        Buf l = {0};
        buf_printf(&l, "L%d ", k);
        for (int x = 0; x < k * 37 % 700; x++)
            buf_addc(&l, (char)('a' + x % 26));
        const char *end = k % 3 == 0 ? "\r" : k % 3 == 1 ? "\n" : "\r\n";
        if (!enc) {
            buf_printf(&text, "%s%s%s", l.s, uu, end);
        } else {
            Buf ascii = {0};
            buf_printf(&ascii, "%s\x01%s", l.s, end); /* \x01: where U+0D0A goes */
            for (size_t i = 0; i < ascii.len; i++) {
                unsigned hi = ascii.s[i] == 1 ? 0x0D : 0, lo = ascii.s[i] == 1 ? 0x0A : (unsigned char)ascii.s[i];
                char u[2] = {(char)(enc == 2 ? hi : lo), (char)(enc == 2 ? lo : hi)};
                buf_add(&text, u, 2);
            }
            buf_free(&ascii);
        }
        buf_adds(&l, uu);
        want_line[k] = l.s;
    }
    char path[] = "/tmp/mcgen-diag-test-XXXXXX";
    write_temp(path, &text);
    for (int from_file = 0; from_file < 2; from_file++) {
        const char *file = from_file ? path : "mem.man";
        diag_reset();
        if (!from_file)
            diag_register_source(file, text.s, text.len);
        for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
            Buf cap = {0}, want = {0};
            diag_set_capture(&cap);
            diag_at(DIAG_ERROR, (Loc){diag_file(file), (uint32_t)order[i], 2}, "x");
            buf_printf(&want, "%s:%d:2: error: x\n  %s\n   ^\n", file, order[i],
                       want_line[order[i]]);
            ck_assert_str_eq(cap.s, want.s);
            buf_free(&cap);
            buf_free(&want);
        }
        Buf cap = {0};
        diag_set_capture(&cap);
        diag_at(DIAG_ERROR, (Loc){diag_file(file), LINES + 2, 1}, "x");
        diag_at(DIAG_ERROR, (Loc){diag_file(file), 7, 1}, "y");
        Buf want = {0};
        buf_printf(&want, "%s:%d:1: error: x\n%s:7:1: error: y\n  %s\n  ^\n", file, LINES + 2,
                   file, want_line[7]);
        ck_assert_str_eq(cap.s, want.s);
        buf_free(&cap);
        buf_free(&want);
        diag_set_capture(NULL);
    }
    diag_reset();
    remove(path);
    for (int k = 1; k <= LINES; k++)
        free(want_line[k]);
    buf_free(&text);
}

START_TEST(test_diag_source_line_long_lines_any_order)
{
    for (int enc = 0; enc < 3; enc++)
        check_long_lines(enc);
}
END_TEST

/* Every code of diagcodes.def is found by its number, and nothing else
 * is. */
START_TEST(test_diag_code_info_finds_every_code)
{
    size_t n = 0;
    for (const DiagCodeInfo *c = diag_codes; c->name; c++, n++) {
        ck_assert_ptr_eq(diag_code_info(c->code), c);
        ck_assert_ptr_eq(diag_code_by_name(c->name), c);
    }
    ck_assert_uint_gt(n, 50);
    ck_assert_ptr_null(diag_code_info((DiagCode)0));
    ck_assert_ptr_null(diag_code_info((DiagCode)999));
    ck_assert_ptr_null(diag_code_info((DiagCode)10000));
}
END_TEST

Suite *diag_suite(void)
{
    Suite *s = suite_create("diag");
    TCase *tc = tcase_create("diag");
    tcase_add_test(tc, test_diag_json_records_everything);
    tcase_add_test(tc, test_diag_sarif_related_location);
    tcase_add_test(tc, test_diag_gcc_records_nothing);
    tcase_add_test(tc, test_diag_formatted_template_error);
    tcase_add_test(tc, test_diag_gcc_warning_names_its_option);
    tcase_add_test(tc, test_diag_summary_counts);
    tcase_add_test(tc, test_diag_source_line_every_line_end);
    tcase_add_test(tc, test_diag_source_line_long_lines_any_order);
    tcase_add_test(tc, test_diag_code_info_finds_every_code);
    suite_add_tcase(s, tc);
    return s;
}
