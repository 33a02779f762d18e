/*
 * msgid_test.c - message ids by mc's formula (../shared/docs/message-ids.md):
 * every kind of element, the counters, shared strings, explicit
 * <messageTable> ids, the tag-0 form for events on imported System/
 * Application/Security channels, built-in items, and a second provider.
 * Expected values are worked out from the document's formula, by hand.
 */
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#define NS "xmlns='" NS_EVENTS "' xmlns:win='" NS_WIN "'"

static const char doc[] =
    "<instrumentationManifest " NS "><instrumentation><events>\n"
    "<provider name='A' guid='{00000000-0000-0000-0000-000000000001}' symbol='A' message='$(string.p)'>\n"
    " <channels>\n"
    "  <channel name='A/Op' type='Operational' message='$(string.c1)'/>\n"
    "  <channel name='A/Dbg' type='Debug'/>\n"
    "  <importChannel name='System' chid='Sys'/>\n"
    "  <channel name='A/Adm' type='Admin' message='$(string.c2)'/>\n"
    " </channels>\n"
    " <levels><level name='L' value='16' message='$(string.l)'/></levels>\n"
    " <tasks><task name='T' value='0x11' message='$(string.t)'>\n"
    "   <opcodes><opcode name='TO' value='102' message='$(string.to)'/></opcodes></task></tasks>\n"
    " <opcodes><opcode name='O' value='11' message='$(string.o)'/></opcodes>\n"
    " <keywords><keyword name='K' mask='0x400000000000' message='$(string.k)'/></keywords>\n"
    " <maps>\n"
    "  <valueMap name='V'><map value='7' message='$(string.v1)'/><map value='8' message='$(string.v3)'/>\n"
    "   <map value='9' message='$(string.v2)'/></valueMap>\n"
    "  <bitMap name='B'><map value='0x1' message='$(string.b1)'/></bitMap>\n"
    " </maps>\n"
    " <events>\n"
    "  <event value='5' version='1' message='$(string.e)'/>\n"
    "  <event value='6' channel='Sys' message='$(string.sys)' level='win:Error'/>\n"
    "  <event value='7' channel='Application' message='$(string.app)' level='win:Error'/>\n"
    "  <event value='8' message='$(string.shared)'/>\n"
    "  <event value='9' message='$(string.shared)'/>\n"
    "  <event value='10' message='$(string.explicit)'/>\n"
    " </events>\n"
    " <filters><filter name='F' value='0xFE' version='2' message='$(string.f)'/></filters>\n"
    "</provider>\n"
    "<provider name='B' guid='{00000000-0000-0000-0000-000000000002}' symbol='B' message='$(string.p2)'>\n"
    " <events><event value='1' message='$(string.e2)'/></events>\n"
    "</provider>\n"
    "<messageTable><message value='0x12345' message='$(string.explicit)'/></messageTable>\n"
    "</events></instrumentation>\n"
    "<localization><resources culture='en-US'><stringTable>\n"
    " <string id='p' value='x'/><string id='c1' value='x'/><string id='c2' value='x'/>\n"
    " <string id='l' value='x'/><string id='t' value='x'/><string id='to' value='x'/>\n"
    " <string id='o' value='x'/><string id='k' value='x'/><string id='v1' value='x'/>\n"
    " <string id='v2' value='x'/><string id='b1' value='x'/><string id='e' value='x'/>\n"
    " <string id='sys' value='x'/><string id='app' value='x'/><string id='shared' value='x'/>\n"
    " <string id='explicit' value='x'/><string id='f' value='x'/><string id='p2' value='x'/>\n"
    " <string id='e2' value='x'/><string id='v3' value='x'/>\n"
    "</stringTable></resources></localization></instrumentationManifest>\n";

static uint32_t id_of(const MsgRef *r)
{
    ck_assert_msg(r->has_msgid, "no message id for '%s'", r->id ? r->id : "(none)");
    return r->msgid;
}

START_TEST(test_msgid_formula_for_every_kind)
{
    Manifest *m = unit_load("t.man", doc, strlen(doc), 0, NULL);
    ck_assert_ptr_nonnull(m);
    Provider *a = m->providers.v[0], *b = m->providers.v[1];
    /* 0x9 counter: the provider, then channels that have a message, in
     * channel order; an imported winmeta channel always has one */
    ck_assert_uint_eq(id_of(&a->msg), 0x90000001);
    ck_assert_uint_eq(id_of(&a->channels.v[0]->msg), 0x90000002);
    ck_assert(!a->channels.v[1]->msg.has_msgid);
    ck_assert_uint_eq(id_of(&a->channels.v[2]->msg), 0x90000003);
    ck_assert_uint_eq(id_of(&a->channels.v[3]->msg), 0x90000004);
    ck_assert_uint_eq(id_of(&a->channels.v[4]->msg), 0x90000005); /* auto-imported Application */
    ck_assert_uint_eq(id_of(&a->levels.v[0]->n.msg), 0x50000010);
    ck_assert_uint_eq(id_of(&a->tasks.v[0]->n.msg), 0x70000011);
    ck_assert_uint_eq(id_of(&a->tasks.v[0]->opcodes.v[0]->n.msg), 0x30110066);
    ck_assert_uint_eq(id_of(&a->opcodes.v[0]->n.msg), 0x3000000B);
    ck_assert_uint_eq(id_of(&a->keywords.v[0]->n.msg), 0x1000002F);
    /* value-map and bit-map items count separately, in manifest order
     * (the schema requires a message on every item) */
    ck_assert_uint_eq(id_of(&a->maps.v[0]->items.v[0]->msg), 0xD0000001);
    ck_assert_uint_eq(id_of(&a->maps.v[0]->items.v[1]->msg), 0xD0000002);
    ck_assert_uint_eq(id_of(&a->maps.v[0]->items.v[2]->msg), 0xD0000003);
    ck_assert_uint_eq(id_of(&a->maps.v[1]->items.v[0]->msg), 0xF0000001);
    ck_assert_uint_eq(id_of(&a->events.v[0]->msg), 0xB0010005);
    ck_assert_uint_eq(id_of(&a->events.v[1]->msg), 0x00000006); /* on imported System */
    ck_assert_uint_eq(id_of(&a->events.v[2]->msg), 0x00000007); /* on auto-imported Application */
    /* a shared string keeps the id of its first user */
    ck_assert_uint_eq(id_of(&a->events.v[3]->msg), 0xB0000008);
    ck_assert_uint_eq(id_of(&a->events.v[4]->msg), 0xB0000008);
    /* <messageTable> wins over the formula */
    ck_assert_uint_eq(id_of(&a->events.v[5]->msg), 0x12345);
    ck_assert_uint_eq(id_of(&a->filters.v[0]->msg), 0x508002FE);
    /* built-in items keep winmeta's id (position 0) */
    ck_assert_uint_eq(id_of(&a->events.v[2]->level->n.msg), 0x50000002);
    /* the second provider: position 1 */
    ck_assert_uint_eq(id_of(&b->msg), 0x91000001);
    ck_assert_uint_eq(id_of(&b->events.v[0]->msg), 0xB1000001);
    manifest_free(m);
    diag_reset();
}
END_TEST

/* A built-in's message is winmeta's string (issue 15): a winmeta channel
 * imported by two providers has the first import's id in both (the second
 * import still advances its provider's counter: B's own channel gets 3);
 * the header names a built-in's string only when the manifest defines it
 * (channel.System here, not channel.Application nor level.Error). */
START_TEST(test_msgid_winmeta_string_shared)
{
    static const char man[] =
        "<instrumentationManifest " NS "><instrumentation><events>\n"
        "<provider name='A' guid='{00000000-0000-0000-0000-000000000001}' symbol='A'>\n"
        " <channels><importChannel name='System'/></channels>\n"
        " <events><event value='1' channel='System' level='win:Error' message='$(string.e)'/></events>\n"
        "</provider>\n"
        "<provider name='B' guid='{00000000-0000-0000-0000-000000000002}' symbol='B'>\n"
        " <channels><importChannel name='Application'/><importChannel name='System' chid='S'/>\n"
        "  <channel name='B/Op' type='Operational' message='$(string.c)'/></channels>\n"
        " <events><event value='1' channel='B/Op' level='win:Error'/></events>\n"
        "</provider></events></instrumentation>\n"
        "<localization><resources culture='en-US'><stringTable>\n"
        " <string id='e' value='x'/><string id='c' value='x'/>\n"
        " <string id='channel.System' value='System'/>\n"
        "</stringTable></resources></localization></instrumentationManifest>\n";
    Manifest *m = unit_load("t.man", man, strlen(man), 0, NULL);
    ck_assert_ptr_nonnull(m);
    Provider *a = m->providers.v[0], *b = m->providers.v[1];
    ck_assert_uint_eq(id_of(&a->channels.v[0]->msg), 0x90000001);
    ck_assert_uint_eq(id_of(&b->channels.v[0]->msg), 0x91000001); /* Application */
    ck_assert_uint_eq(id_of(&b->channels.v[1]->msg), 0x90000001); /* System: A's */
    ck_assert_uint_eq(id_of(&b->channels.v[2]->msg), 0x91000003);
    const StringMsgId *sys = map_get(&m->msgid_by_string, "channel.System");
    const StringMsgId *app = map_get(&m->msgid_by_string, "channel.Application");
    const StringMsgId *err = map_get(&m->msgid_by_string, "level.Error");
    ck_assert(sys && sys->id == 0x90000001 && sys->in_header);
    ck_assert(app && app->id == 0x91000001 && !app->in_header);
    ck_assert(err && err->id == 0x50000002 && !err->in_header);
    manifest_free(m);
    diag_reset();
}
END_TEST

/* The worked example of ../shared/docs/msgtable.md section 5 (mc's
 * EventAttributes.msg.bin, 168 bytes), rebuilt from an equivalent manifest. */
static void worked_example_table(Buf *b)
{
    static const char man[] =
        "<instrumentationManifest " NS "><instrumentation><events>\n"
        "<provider name='P' guid='{00000000-0000-0000-0000-000000000001}' symbol='P' message='$(string.p)'>\n"
        " <channels><channel name='C' type='Operational' message='$(string.c)'/></channels>\n"
        " <events><event value='1' level='win:Error'/><event value='2' level='win:Warning'/>\n"
        "  <event value='3' level='win:Informational'/></events>\n"
        "</provider></events></instrumentation>\n"
        "<localization><resources culture='en-US'><stringTable>\n"
        " <string id='p' value='Provider.1'/><string id='c' value='Channel.1.1'/>\n"
        "</stringTable></resources></localization></instrumentationManifest>\n";
    Manifest *m = unit_load("t.man", man, strlen(man), 0, NULL);
    ck_assert_ptr_nonnull(m);
    msgtable_build(m, 0, NULL, b);
    manifest_free(m);
    diag_reset();
}

START_TEST(test_msgtable_worked_example)
{
    Buf b = {0};
    worked_example_table(&b);
    const unsigned char *u = (const unsigned char *)b.s;
    ck_assert_uint_eq(b.len, 168);
    static const unsigned char head[28] = {
        0x02, 0, 0, 0,
        0x02, 0, 0, 0x50, 0x04, 0, 0, 0x50, 0x1c, 0, 0, 0,
        0x01, 0, 0, 0x90, 0x02, 0, 0, 0x90, 0x68, 0, 0, 0};
    ck_assert_mem_eq(u, head, sizeof head);
    static const struct { size_t at; unsigned len; const char *text; } e[] = {
        {0x1c, 20, "Error"}, {0x30, 24, "Warning"}, {0x48, 32, "Information"},
        {0x68, 32, "Provider.1"}, {0x88, 32, "Channel.1.1"}};
    for (size_t i = 0; i < 5; i++) {
        ck_assert_uint_eq(u[e[i].at] | u[e[i].at + 1] << 8, e[i].len);
        ck_assert_uint_eq(u[e[i].at + 2] | u[e[i].at + 3] << 8, 1); /* Unicode */
        size_t n = strlen(e[i].text);
        for (size_t k = 0; k < n; k++) {
            ck_assert_uint_eq(u[e[i].at + 4 + 2 * k], (unsigned char)e[i].text[k]);
            ck_assert_uint_eq(u[e[i].at + 5 + 2 * k], 0);
        }
        static const unsigned char crlfnul[6] = {'\r', 0, '\n', 0, 0, 0};
        ck_assert_mem_eq(u + e[i].at + 4 + 2 * n, crlfnul, 6);
        for (size_t k = e[i].at + 10 + 2 * n; k < e[i].at + e[i].len; k++)
            ck_assert_uint_eq(u[k], 0); /* padding */
    }
    buf_free(&b);
}
END_TEST

START_TEST(test_msgtable_read_round_trip)
{
    Buf b = {0}, err = {0};
    worked_example_table(&b);
    MsgTable t;
    ck_assert(msgtable_read(b.s, b.len, &t, &err));
    ck_assert_uint_eq(t.entries.n, 5);
    static const struct { uint32_t id; const char *text; } want[] = {
        {0x50000002, "Error\r\n"}, {0x50000003, "Warning\r\n"}, {0x50000004, "Information\r\n"},
        {0x90000001, "Provider.1\r\n"}, {0x90000002, "Channel.1.1\r\n"}};
    for (size_t i = 0; i < 5; i++) {
        ck_assert_uint_eq(t.entries.v[i].id, want[i].id);
        ck_assert(t.entries.v[i].kind == MSGTEXT_UTF16);
        ck_assert_str_eq(t.entries.v[i].text, want[i].text);
    }
    msgtable_free(&t);
    buf_free(&b);
    buf_free(&err);
}
END_TEST

START_TEST(test_msgtable_read_exact_errors)
{
    Buf b = {0}, err = {0};
    worked_example_table(&b);
    MsgTable t;
    /* the second block's entries moved by 4 */
    b.s[0x18] = 0x6c;
    ck_assert(!msgtable_read(b.s, b.len, &t, &err));
    ck_assert_str_eq(err.s, "offset 0x18: block 1: entries at 0x6c, expected 0x68 (right after "
                            "the previous block's)");
    msgtable_free(&t);
    b.s[0x18] = 0x68;
    buf_reset(&err);
    ck_assert(!msgtable_read(b.s, 100, &t, &err));
    ck_assert_str_eq(err.s, "offset 0x48: message 0x50000004: length 32 runs past the end");
    msgtable_free(&t);
    buf_reset(&err);
    ck_assert(!msgtable_read(b.s, 2, &t, &err));
    ck_assert_str_eq(err.s, "offset 0x0: 2 bytes: too short for a message table (4-byte block "
                            "count)");
    msgtable_free(&t);
    buf_free(&b);
    buf_free(&err);
}
END_TEST

/* One block of three entries, one of each kind of text a message table
 * holds (winnt.h's MESSAGE_RESOURCE_ENTRY Flags: 0 ANSI, 1 Unicode, 2
 * UTF-8), each padded to 4 bytes. */
static void three_kinds_table(Buf *b)
{
    buf_u32le(b, 1);                                     /* blocks */
    buf_u32le(b, 1), buf_u32le(b, 3), buf_u32le(b, 16);  /* ids 1..3, entries at 16 */
    buf_u16le(b, 12), buf_u16le(b, 0);                   /* ANSI: "caf\xe9\x80", Windows-1252 */
    buf_add(b, "caf\xe9\x80\0\0\0", 8);
    buf_u16le(b, 8), buf_u16le(b, 1);                    /* UTF-16: "x" */
    buf_add(b, "x\0\0\0", 4);
    buf_u16le(b, 12), buf_u16le(b, 2);                   /* UTF-8: "\u00e9\u20ac" */
    buf_add(b, "\xc3\xa9\xe2\x82\xac\0\0\0", 8);
}

START_TEST(test_msgtable_read_every_kind_of_text)
{
    Buf b = {0}, err = {0};
    three_kinds_table(&b);
    ck_assert_uint_eq(b.len, 48);
    MsgTable t;
    ck_assert(msgtable_read(b.s, b.len, &t, &err));
    ck_assert_uint_eq(t.entries.n, 3);
    ck_assert(t.entries.v[0].kind == MSGTEXT_ANSI);
    ck_assert_str_eq(t.entries.v[0].text, "caf\u00e9\u20ac"); /* 0xE9 e-acute, 0x80 euro */
    ck_assert(t.entries.v[1].kind == MSGTEXT_UTF16);
    ck_assert_str_eq(t.entries.v[1].text, "x");
    ck_assert(t.entries.v[2].kind == MSGTEXT_UTF8);
    ck_assert_str_eq(t.entries.v[2].text, "\u00e9\u20ac");
    msgtable_free(&t);

    b.s[42] = (char)0xff; /* the UTF-8 text's third byte, where 0xE2 began the euro sign */
    ck_assert(!msgtable_read(b.s, b.len, &t, &err));
    ck_assert_str_eq(err.s, "offset 0x2a: message 0x00000003: UTF-8 text with a byte that is "
                            "not UTF-8");
    msgtable_free(&t);
    b.s[42] = (char)0xe2;
    b.s[38] = 3; /* flags */
    buf_reset(&err);
    ck_assert(!msgtable_read(b.s, b.len, &t, &err));
    ck_assert_str_eq(err.s, "offset 0x26: message 0x00000003: flags 0x3 (0 ANSI, 1 Unicode, "
                            "2 UTF-8)");
    msgtable_free(&t);
    b.s[38] = 2;
    memset(b.s + 40, 'a', 8); /* no NUL */
    buf_reset(&err);
    ck_assert(!msgtable_read(b.s, b.len, &t, &err));
    ck_assert_str_eq(err.s, "offset 0x24: message 0x00000003: UTF-8 text without a NUL");
    msgtable_free(&t);
    buf_free(&b);
    buf_free(&err);
}
END_TEST

static bool read_msgtable(const char *bytes, size_t n, Buf *err)
{
    MsgTable t;
    bool ok = msgtable_read(bytes, n, &t, err);
    msgtable_free(&t);
    return ok;
}

START_TEST(test_msgtable_read_corrupted_never_crashes)
{
    Buf b = {0};
    worked_example_table(&b);
    unit_corrupt(&b, read_msgtable, 12345);
    buf_free(&b);
}
END_TEST

Suite *msgid_suite(void)
{
    Suite *s = suite_create("msgid");
    TCase *tc = tcase_create("msgid");
    /* the sanitizer builds run several times slower on a busy machine */
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_msgid_formula_for_every_kind);
    tcase_add_test(tc, test_msgid_winmeta_string_shared);
    tcase_add_test(tc, test_msgtable_worked_example);
    tcase_add_test(tc, test_msgtable_read_round_trip);
    tcase_add_test(tc, test_msgtable_read_exact_errors);
    tcase_add_test(tc, test_msgtable_read_every_kind_of_text);
    tcase_add_test(tc, test_msgtable_read_corrupted_never_crashes);
    suite_add_tcase(s, tc);
    return s;
}
