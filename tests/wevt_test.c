/*
 * wevt_test.c - TEMP.BIN details confirmed by mc.exe's bytes and quoted in
 * ../shared/docs/wevt-template.md: the 18-byte file of a manifest without
 * providers (section 2), and the template of section 14.1 (wpf-etw, two
 * UInt32 fields): its BinXml and its template id, SHA-256 for mc 10.0.x.
 * The byte-for-byte comparison with every golden TEMP.BIN is in
 * tests/corpus_test.py.
 */
#include <string.h>

#include "unit.h"

#define NS "xmlns='" NS_EVENTS "' xmlns:win='" NS_WIN "'"

static Manifest *load(const char *doc)
{
    Manifest *m = manifest_load_mem("t.man", doc, strlen(doc), 0);
    ck_assert_ptr_nonnull(m);
    return m;
}

START_TEST(test_wevt_no_providers_is_18_bytes)
{
    Manifest *m = load("<instrumentationManifest " NS "><instrumentation><events/>"
                       "</instrumentation></instrumentationManifest>");
    Buf b = {0};
    wevt_build(m, WEVT_V5, &b);
    static const unsigned char want[18] = {0x43, 0x52, 0x49, 0x4d, 0x10, 0, 0, 0, 0x05, 0,
                                           0x01, 0, 0, 0, 0, 0, 0, 0};
    ck_assert_uint_eq(b.len, 18);
    ck_assert_mem_eq(b.s, want, 18);
    buf_reset(&b);
    wevt_build(m, WEVT_V3, &b);
    ck_assert_uint_eq((unsigned char)b.s[8], 3); /* CRIM 3.1 */
    buf_free(&b);
    manifest_free(m);
    diag_reset();
}
END_TEST

/* Finds "TEMP" in the file. */
static size_t find_temp(const Buf *b)
{
    for (size_t i = 0; i + 4 <= b->len; i++)
        if (memcmp(b->s + i, "TEMP", 4) == 0)
            return i;
    ck_abort_msg("no TEMP entry");
    return 0;
}

START_TEST(test_wevt_template_binxml_and_id)
{
    Manifest *m = load(
        "<instrumentationManifest " NS "><instrumentation><events>\n"
        "<provider name='P' guid='{00000000-0000-0000-0000-000000000001}'>\n"
        "<templates><template tid='T'><data name='width' inType='win:UInt32'/>"
        "<data name='height' inType='win:UInt32'/></template></templates>\n"
        "</provider></events></instrumentation></instrumentationManifest>\n");
    Buf b = {0};
    wevt_build(m, WEVT_V5, &b);
    const unsigned char *t = (const unsigned char *)b.s + find_temp(&b);
    /* size 276, 2 parameters, 2 properties, kind 1 */
    static const unsigned char head[8] = {0x14, 0x01, 0, 0, 0x02, 0, 0, 0};
    ck_assert_mem_eq(t + 4, head, 8);
    ck_assert_uint_eq(t[20], 1);
    /* template id {E9B66488-EA4B-5340-7E84-E40F231DBE73} */
    static const unsigned char id[16] = {0x88, 0x64, 0xb6, 0xe9, 0x4b, 0xea, 0x40, 0x53,
                                         0x7e, 0x84, 0xe4, 0x0f, 0x23, 0x1d, 0xbe, 0x73};
    ck_assert_mem_eq(t + 24, id, 16);
    /* fragment header, <EventData with data size 148, its name hash 0x8244 */
    static const unsigned char frag[15] = {0x0f, 0x01, 0x01, 0x00, 0x01, 0xff, 0xff, 0x94,
                                           0x00, 0x00, 0x00, 0x44, 0x82, 0x09, 0x00};
    ck_assert_mem_eq(t + 40, frag, sizeof frag);
    /* <Data Name="width">: token 41, data size 53, hash 0x6f8a, attribute
     * list 29 bytes, attribute token 06 and hash 0x954b */
    const unsigned char *d = t + 40 + 0x24; /* 0x510 - 0x4ec in the listing */
    static const unsigned char data[] = {0x41, 0xff, 0xff, 0x35, 0x00, 0x00, 0x00, 0x8a, 0x6f,
                                         0x04, 0x00};
    ck_assert_mem_eq(d, data, sizeof data);
    ck_assert_mem_eq(d + 0x15, "\x1d\x00\x00\x00\x06\x4b\x95\x04\x00", 9);
    /* substitution %1: index 0, type 8 (UInt32), then </Data> */
    ck_assert_mem_eq(d + 0x37, "\x0d\x00\x00\x08\x04", 5);
    /* the property entries: flags 0, in 8, out 8 (xs:unsignedInt) */
    const unsigned char *p = t + 40 + 160;
    static const unsigned char prop[8] = {0, 0, 0, 0, 0x08, 0x08, 0, 0};
    ck_assert_mem_eq(p, prop, 8);
    ck_assert_mem_eq(p + 20, prop, 8);
    buf_reset(&b);
    /* mc 10.0.15063 gives the same id (section 12) */
    wevt_build(m, WEVT_V3, &b);
    ck_assert_mem_eq(b.s + find_temp(&b) + 24, id, 16);
    buf_free(&b);
    manifest_free(m);
    diag_reset();
}
END_TEST

Suite *wevt_suite(void)
{
    Suite *s = suite_create("wevt");
    TCase *tc = tcase_create("wevt");
    tcase_add_test(tc, test_wevt_no_providers_is_18_bytes);
    tcase_add_test(tc, test_wevt_template_binxml_and_id);
    suite_add_tcase(s, tc);
    return s;
}
