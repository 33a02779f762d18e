/*
 * wevt_test.c - TEMP.BIN details confirmed by mc.exe's bytes and quoted in
 * ../shared/docs/wevt-template.md: the 18-byte file of a manifest without
 * providers (section 2), and the template of section 14.1 (wpf-etw, two
 * UInt32 fields): its BinXml and its template id, SHA-256 for mc 10.0.x.
 * The byte-for-byte comparison with every golden TEMP.BIN is in
 * tests/corpus_test.py.
 */
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#define NS "xmlns='" NS_EVENTS "' xmlns:win='" NS_WIN "'"

static Manifest *load(const char *doc)
{
    Manifest *m = unit_load("t.man", doc, strlen(doc), 0, NULL);
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
        "<provider name='P' guid='{00000000-0000-0000-0000-000000000001}' symbol='P'>\n"
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

/* A manifest that fills most lists, for the reader tests. */
static const char rich[] =
    "<instrumentationManifest " NS "><instrumentation><events>\n"
    "<provider name='Rich' guid='{00000000-0000-0000-0000-000000000009}' symbol='RICH'"
    " message='$(string.p)'"
    " controlGuid='{00000000-0000-0000-0000-00000000000A}'>\n"
    " <traits groupGuid='{00000000-0000-0000-0000-00000000000B}'/>\n"
    " <channels><channel name='R/Op' type='Operational' message='$(string.c)'/></channels>\n"
    " <levels><level name='L' value='16'/></levels>\n"
    " <tasks><task name='T' value='1'><opcodes><opcode name='O' value='10'/></opcodes></task></tasks>\n"
    " <keywords><keyword name='K1' mask='0x1'/><keyword name='K2' mask='0x2'/></keywords>\n"
    " <maps><valueMap name='V'><map value='1' message='$(string.v)'/></valueMap></maps>\n"
    " <namedQueries><patternMaps><patternMap name='Q' format='winrxv1'><map name='a' value='b'/>"
    "</patternMap></patternMaps></namedQueries>\n"
    " <templates><template tid='T1'><data name='n' inType='win:UInt32' map='V'/>"
    "<struct name='S' count='n'><data name='x' inType='win:UInt8'/></struct></template>\n"
    "  <template tid='T2'><data name='a' inType='win:Int32'/><UserData><U xmlns='urn:u'>"
    "<F>%1</F></U></UserData></template></templates>\n"
    " <events><event value='2' name='Two' attributes='A=1;B=2' channel='R/Op' level='L' task='T'"
    " opcode='O' keywords='K2 K1' template='T1' message='$(string.e)'/>\n"
    "  <event value='1' level='win:Error' template='T2'/></events>\n"
    " <filters><filter name='F' value='1' tid='T1'/></filters>\n"
    "</provider></events></instrumentation>\n"
    "<localization><resources culture='en-US'><stringTable><string id='p' value='p'/>"
    "<string id='c' value='c'/><string id='v' value='v'/><string id='e' value='e'/>"
    "</stringTable></resources></localization></instrumentationManifest>\n";

static void rich_wevt(Buf *b)
{
    Manifest *m = load(rich);
    wevt_build(m, WEVT_V5, b);
    manifest_free(m);
    diag_reset();
}

static void write_v5(Out *out, const void *m) { wevt_write(m, WEVT_V5, out); }

/* wevt_write hands the file on in pieces and patches what it has handed
 * on (out_patch): its bytes are wevt_build's.  Two providers of 700
 * templates of eight fields make a file of about 1 MB, handed on in
 * several pieces of each provider's TTBL. */
START_TEST(test_wevt_write_in_pieces_is_wevt_build)
{
    Buf doc = {0};
    buf_adds(&doc, "<instrumentationManifest " NS "><instrumentation><events>\n");
    for (int p = 0; p < 2; p++) {
        buf_printf(&doc, "<provider name='P%d' guid='{00000000-0000-0000-0000-00000000000%d}' "
                         "symbol='P%d' resourceFileName='r' messageFileName='m'><templates>\n",
                   p, p + 1, p);
        for (int t = 0; t < 700; t++) {
            buf_printf(&doc, "<template tid='T%d'>", t);
            for (int f = 0; f < 8; f++)
                buf_printf(&doc, "<data name='field%d_%d' inType='win:UInt32'/>", f, t);
            buf_adds(&doc, "</template>\n");
        }
        buf_adds(&doc, "</templates><events>\n");
        for (int e = 0; e < 700; e++)
            buf_printf(&doc, "<event value='%d' version='0' template='T%d'/>\n", e + 1, e);
        buf_adds(&doc, "</events></provider>\n");
    }
    buf_adds(&doc, "</events></instrumentation></instrumentationManifest>\n");
    Manifest *m = load(doc.s);
    Buf want = {0};
    wevt_build(m, WEVT_V5, &want);
    ck_assert_uint_gt(want.len, 4 * 256 * 1024);
    unit_write_twice(write_v5, m, &want, "wevt_write");
    buf_free(&want);
    buf_free(&doc);
    manifest_free(m);
    diag_reset();
}
END_TEST

START_TEST(test_wevt_read_back)
{
    Buf b = {0}, err = {0};
    rich_wevt(&b);
    WevtFile f;
    ck_assert_msg(wevt_read(b.s, b.len, &f, &err), "%s", err.s ? err.s : "");
    ck_assert_uint_eq(f.major, 5);
    ck_assert_uint_eq(f.providers.n, 1);
    WevtProvider *p = &f.providers.v[0];
    ck_assert_uint_eq(p->guid.d4[7], 9);
    ck_assert_uint_eq(p->message, 0x90000001);
    ck_assert_uint_eq(p->channels, 1);
    ck_assert_uint_eq(p->levels, 2);   /* L and the win:Error an event uses */
    ck_assert_uint_eq(p->opcodes, 1);
    ck_assert_uint_eq(p->keywords, 2);
    ck_assert_uint_eq(p->templates, 2);
    ck_assert_uint_eq(p->events.n, 2);
    /* sorted by event id */
    ck_assert_uint_eq(p->events.v[0].id, 1);
    ck_assert_uint_eq(p->events.v[0].level, 2);
    ck_assert_uint_eq(p->events.v[1].id, 2);
    ck_assert_uint_eq(p->events.v[1].channel, 16);
    ck_assert_uint_eq(p->events.v[1].opcode, 10);
    ck_assert_uint_eq(p->events.v[1].keywords, 0x8000000000000003ULL);
    ck_assert_uint_eq(p->events.v[1].message, 0xB0000002);
    /* naming the field at an offset */
    size_t evnt = 0;
    for (size_t i = 0; i + 4 <= b.len; i++)
        if (memcmp(b.s + i, "EVNT", 4) == 0)
            evnt = i;
    ck_assert_str_eq(wevt_explain(&f, (uint32_t)(evnt + 16 + 48 + 16)),
                     "provider 0, EVNT[1] message id");
    Buf want = {0};
    buf_printf(&want, "CRIM header (size %zu, version 5.1, 1 providers)", b.len - 2);
    ck_assert_str_eq(wevt_explain(&f, 5), want.s);
    buf_free(&want);
    wevt_free(&f);
    buf_free(&b);
    buf_free(&err);
}
END_TEST

START_TEST(test_wevt_read_exact_errors)
{
    Buf b = {0}, err = {0};
    rich_wevt(&b);
    WevtFile f;
    ck_assert(!wevt_read(b.s, b.len - 1, &f, &err));
    Buf want = {0};
    buf_printf(&want, "offset 0x4: CRIM size %zu: mc's files are that plus two zero bytes; "
                      "this one has %zu bytes", b.len - 2, b.len - 1);
    ck_assert_str_eq(err.s, want.s);
    buf_free(&want);
    wevt_free(&f);
    buf_reset(&err);
    b.s[0x24] = 'X'; /* the WEVT signature of provider 0 */
    ck_assert(!wevt_read(b.s, b.len, &f, &err));
    ck_assert_str_eq(err.s, "offset 0x24: expected the signature WEVT");
    wevt_free(&f);
    buf_free(&b);
    buf_free(&err);
}
END_TEST

/* Everything the file keeps, read back as the manifest above wrote it
 * (wevt-template.md: the names as written, maps in manifest order, items
 * sorted by value, properties top-level first then struct members, PRVA's
 * name and GUIDs, EVTA's name and attributes). */
START_TEST(test_wevt_read_back_in_full)
{
    Buf b = {0}, err = {0};
    rich_wevt(&b);
    WevtFile f;
    ck_assert_msg(wevt_read(b.s, b.len, &f, &err), "%s", err.s ? err.s : "");
    const WevtProvider *p = &f.providers.v[0];
    ck_assert_str_eq(p->name, "Rich");
    ck_assert(p->has_control && p->has_group);
    ck_assert_uint_eq(p->control.d4[7], 0xA);
    ck_assert_uint_eq(p->group.d4[7], 0xB);
    ck_assert_str_eq(p->chan[0].name, "R/Op");
    ck_assert_uint_eq(p->chan[0].value, 16);
    ck_assert_uint_eq(p->chan[0].flags, 0);
    ck_assert_uint_eq(p->chan[0].message, 0x90000002);
    ck_assert_str_eq(p->levl[0].name, "win:Error"); /* sorted by value: 2, 16 */
    ck_assert_uint_eq(p->levl[0].message, 0x50000002);
    ck_assert_str_eq(p->levl[1].name, "L");
    ck_assert_uint_eq(p->levl[1].message, 0xFFFFFFFF);
    ck_assert_str_eq(p->task[0].name, "T");
    ck_assert_str_eq(p->opco[0].name, "O");
    ck_assert_uint_eq(p->opco[0].task, 1);
    ck_assert_uint_eq(p->opco[0].value, 10);
    ck_assert_str_eq(p->keyw[1].name, "K2");
    ck_assert_uint_eq(p->keyw[1].value, 2);
    ck_assert_uint_eq(p->nmaps, 1);
    ck_assert(!p->maps[0].bitmap);
    ck_assert_str_eq(p->maps[0].name, "V");
    ck_assert_uint_eq(p->maps[0].n, 1);
    ck_assert_uint_eq(p->maps[0].items[0].value, 1);
    ck_assert_uint_eq(p->maps[0].items[0].message, 0xD0000001);
    ck_assert_uint_eq(p->nqueries, 1);
    const WevtTemplate *t = &p->temp[0];
    ck_assert_uint_eq(t->kind, 1);
    ck_assert_uint_eq(t->ntop, 2);
    ck_assert_uint_eq(t->n, 3);
    ck_assert_str_eq(t->props[0].name, "n");
    ck_assert_uint_eq(t->props[0].in, 8);  /* win:UInt32 */
    ck_assert_uint_eq(t->props[0].out, 8); /* xs:unsignedInt */
    ck_assert_int_eq(t->props[0].map, 0);
    ck_assert_str_eq(t->props[1].name, "S");
    ck_assert_uint_eq(t->props[1].flags, 0x11); /* struct, count names a property */
    ck_assert_uint_eq(t->props[1].first, 2);
    ck_assert_uint_eq(t->props[1].members, 1);
    ck_assert_uint_eq(t->props[1].count, 0);
    ck_assert_str_eq(t->props[2].name, "x");
    ck_assert_uint_eq(p->temp[1].kind, 2);
    ck_assert_int_eq(p->events.v[0].tmpl, 1);
    ck_assert_int_eq(p->events.v[0].levl, 0);
    ck_assert_ptr_null(p->events.v[0].name);
    const WevtEvent *e = &p->events.v[1];
    ck_assert_str_eq(e->name, "Two");
    ck_assert_uint_eq(e->nattrs, 2);
    ck_assert_str_eq(e->attrs[0], "A=1");
    ck_assert_str_eq(e->attrs[1], "B=2");
    ck_assert_int_eq(e->chan, 0);
    ck_assert_int_eq(e->tsk, 0);
    ck_assert_int_eq(e->opco, 0);
    ck_assert_uint_eq(e->nkeyw, 2);
    ck_assert_int_eq(e->keyw[0], 0); /* sorted by mask: K1, K2 */
    ck_assert_int_eq(e->keyw[1], 1);
    ck_assert_uint_eq(p->nfilters, 1);
    ck_assert_str_eq(p->filters[0].name, "F");
    ck_assert_int_eq(p->filters[0].tmpl, 0);
    wevt_free(&f);
    buf_free(&b);
    buf_free(&err);
}
END_TEST

/* A count of 4 billion entries in a file of a few hundred bytes is an
 * error before anything is allocated for them. */
START_TEST(test_wevt_read_hostile_counts)
{
    Buf b = {0}, err = {0};
    rich_wevt(&b);
    size_t keyw = 0;
    for (size_t i = 0; i + 4 <= b.len; i++)
        if (memcmp(b.s + i, "KEYW", 4) == 0)
            keyw = i;
    ck_assert_uint_gt(keyw, 0);
    uint32_t size = get_u32le((const unsigned char *)b.s + keyw + 4);
    memcpy(b.s + keyw + 8, "\x00\x28\x6b\xee", 4); /* 4,000,000,000 */
    WevtFile f;
    ck_assert(!wevt_read(b.s, b.len, &f, &err));
    Buf want = {0};
    buf_printf(&want, "offset 0x%zx: KEYW: 4000000000 entries do not fit in %u bytes", keyw + 8,
               size);
    ck_assert_str_eq(err.s, want.s);
    wevt_free(&f);
    buf_free(&want);
    buf_free(&b);
    buf_free(&err);
}
END_TEST

static bool read_wevt(const char *bytes, size_t n, Buf *err)
{
    WevtFile f;
    bool ok = wevt_read(bytes, n, &f, err);
    wevt_free(&f);
    return ok;
}

START_TEST(test_wevt_read_corrupted_never_crashes)
{
    Buf b = {0};
    rich_wevt(&b);
    unit_corrupt(&b, read_wevt, 99);
    buf_free(&b);
}
END_TEST

Suite *wevt_suite(void)
{
    Suite *s = suite_create("wevt");
    TCase *tc = tcase_create("wevt");
    /* the sanitizer builds run several times slower on a busy machine */
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_wevt_no_providers_is_18_bytes);
    tcase_add_test(tc, test_wevt_template_binxml_and_id);
    tcase_add_test(tc, test_wevt_write_in_pieces_is_wevt_build);
    tcase_add_test(tc, test_wevt_read_back);
    tcase_add_test(tc, test_wevt_read_exact_errors);
    tcase_add_test(tc, test_wevt_read_back_in_full);
    tcase_add_test(tc, test_wevt_read_hostile_counts);
    tcase_add_test(tc, test_wevt_read_corrupted_never_crashes);
    suite_add_tcase(s, tc);
    return s;
}
