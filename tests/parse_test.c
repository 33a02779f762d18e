/*
 * parse_test.c - the manifest reader: one test per schema element, each
 * asserting resolved values of an in-memory manifest that is fed to expat
 * in chunks of 1, 2, 3, 7 and all bytes; then the bad inputs, each with
 * its diagnostic word for word.
 */
#include <string.h>

#include "unit.h"

#define HEAD \
    "<?xml version='1.0' encoding='UTF-8'?>\n" \
    "<instrumentationManifest xmlns='" NS_EVENTS "'\n" \
    "    xmlns:win='" NS_WIN "' xmlns:xs='" NS_XS "'>\n" \
    "<instrumentation><events>\n"
#define PROV_OPEN \
    "<provider name='Prov-A' guid='{11111111-2222-3333-4444-555555555555}' symbol='PA'\n" \
    "    resourceFileName='a.dll' messageFileName='a.dll'>\n"
#define PROV_CLOSE "</provider>\n"
#define STRINGS(s) \
    "<localization><resources culture='en-US'><stringTable>\n" s \
    "</stringTable></resources></localization>\n"
#define TAIL_NOSTR "</events></instrumentation>\n</instrumentationManifest>\n"
#define TAIL(s) "</events></instrumentation>\n" STRINGS(s) "</instrumentationManifest>\n"

typedef void (*Checker)(Manifest *m);

/* Loads `doc` with every chunk size and runs `check` on each model. */
static void load_all(const char *doc, Checker check)
{
    for (int i = 0; i < 5; i++) {
        Buf diag = {0};
        diag_set_capture(&diag);
        Manifest *m = unit_load("t.man", doc, strlen(doc), unit_chunks[i], NULL);
        diag_set_capture(NULL);
        ck_assert_msg(m != NULL, "load failed (chunk %zu): %s", unit_chunks[i],
                      diag.s ? diag.s : "");
        check(m);
        manifest_free(m);
        buf_free(&diag);
    }
    diag_reset();
}

/* Loads `doc` with every chunk size; it must fail with exactly `want`. */
static void load_fails(const char *doc, const char *want)
{
    for (int i = 0; i < 5; i++) {
        Buf diag = {0};
        diag_set_capture(&diag);
        Manifest *m = unit_load("t.man", doc, strlen(doc), unit_chunks[i], NULL);
        diag_set_capture(NULL);
        ck_assert_msg(m == NULL, "load succeeded (chunk %zu)", unit_chunks[i]);
        ck_assert_str_eq(diag.s ? diag.s : "", want);
        buf_free(&diag);
    }
    diag_reset();
}

static Provider *prov0(Manifest *m)
{
    ck_assert_uint_ge(m->providers.n, 1);
    return m->providers.v[0];
}

static const char *text_of(Manifest *m, const char *culture, const MsgRef *r)
{
    ck_assert_ptr_nonnull(r->id);
    Culture *c = map_get(&m->culture_by_name, culture);
    ck_assert_ptr_nonnull(c);
    const String *s = manifest_string(m, c, r->id);
    return s ? s->value : NULL;
}

/* ---- provider ---- */

static const char provider_doc[] =
    HEAD
    "<provider name='Contoso-App' guid='{716EFEF7-5AC2-4EE0-8277-D9226411A155}'\n"
    "  symbol='CONTOSO' resourceFileName='res.dll' messageFileName='msg.dll'\n"
    "  parameterFileName='param.dll' message='$(string.prov)'\n"
    "  controlGuid='{35919CDE-6E0D-458F-84C1-D8930E18AC57}' namespace='Contoso.Ns'/>\n"
    "<provider name='Second' guid='{00000000-0000-0000-0000-000000000002}' symbol='SECOND'/>\n"
    TAIL("<string id='prov' value='Contoso application'/>\n");

static void check_provider(Manifest *m)
{
    ck_assert_uint_eq(m->providers.n, 2);
    Provider *p = prov0(m);
    ck_assert_int_eq(p->index, 0);
    ck_assert_str_eq(p->name, "Contoso-App");
    char g[39];
    guid_format(&p->guid, g);
    ck_assert_str_eq(g, "{716EFEF7-5AC2-4EE0-8277-D9226411A155}");
    ck_assert_str_eq(p->symbol, "CONTOSO");
    ck_assert_str_eq(p->resource_file, "res.dll");
    ck_assert_str_eq(p->message_file, "msg.dll");
    ck_assert_str_eq(p->parameter_file, "param.dll");
    ck_assert_str_eq(p->namespace_, "Contoso.Ns");
    ck_assert(p->has_control_guid);
    guid_format(&p->control_guid, g);
    ck_assert_str_eq(g, "{35919CDE-6E0D-458F-84C1-D8930E18AC57}");
    ck_assert_str_eq(text_of(m, "en-US", &p->msg), "Contoso application");
    ck_assert_uint_eq(p->loc.line, 5);
    ck_assert_uint_eq(p->loc.col, 1);
    ck_assert_uint_eq(loc_in(p->loc, p->msg.pos).line, 7);
    ck_assert_uint_eq(loc_in(p->loc, p->msg.pos).col, 33);
    Provider *q = m->providers.v[1];
    ck_assert_int_eq(q->index, 1);
    ck_assert(!q->has_control_guid);
    ck_assert_str_eq(q->symbol, "SECOND");
    ck_assert_ptr_null(q->resource_file);
    ck_assert_ptr_null(q->msg.id);
    ck_assert_uint_eq(q->guid.d4[7], 2);
    ck_assert_ptr_eq(map_get(&m->provider_by_name, "Second"), q);
}

START_TEST(test_parse_provider)
{
    load_all(provider_doc, check_provider);
}
END_TEST

/* ---- channels, importChannel, logging, publishing ---- */

static const char channels_doc[] =
    HEAD PROV_OPEN
    "<events>\n"
    "  <event value='1' channel='Op'/>\n"
    "  <event value='2' channel='Contoso/Admin' level='win:Error' message='$(string.adm)'/>\n"
    "  <event value='3' channel='Application' level='win:Error' message='$(string.adm)'/>\n"
    "  <event value='4' channel='Sys' level='win:Error' message='$(string.adm)'/>\n"
    "</events>\n"
    "<channels>\n"
    "  <channel name='Contoso/Admin' chid='Adm' type='Admin' value='16' symbol='ADM_SYM'\n"
    "      enabled='true' isolation='Application' access='O:BAG:SYD:' message='$(string.adm)'>\n"
    "    <logging><autoBackup>true</autoBackup><retention>false</retention>\n"
    "      <maxSize>1048576</maxSize></logging>\n"
    "    <publishing><level>4</level><keywords>0x30</keywords>\n"
    "      <controlGuid>{D0883FA6-F3FD-43C3-A0E4-1FCECC87AF8B}</controlGuid>\n"
    "      <bufferSize>64</bufferSize><minBuffers>2</minBuffers><fileMax>3</fileMax>\n"
    "      <maxBuffers>8</maxBuffers><latency>5</latency><clockType>QPC</clockType>\n"
    "      <sidType>Publishing</sidType></publishing>\n"
    "  </channel>\n"
    "  <channel name='Contoso/Operational' chid='Op' type='Operational' enabled='false'\n"
    "      isolation='System'/>\n"
    "  <channel name='Contoso/Debug' type='Debug' isolation='Custom'/>\n"
    "  <importChannel name='System' chid='Sys'/>\n"
    "  <importChannel name='Other/Chan'/>\n"
    "</channels>\n"
    PROV_CLOSE
    "<provider name='Other' guid='{00000000-0000-0000-0000-000000000009}' symbol='OTHER'>\n"
    "<channels><channel name='Other/Chan' type='Analytic' value='40'/></channels>\n"
    PROV_CLOSE
    TAIL("<string id='adm' value='Admin channel'/>\n");

static void check_channels(Manifest *m)
{
    Provider *p = prov0(m);
    ck_assert_uint_eq(p->channels.n, 6); /* 5 declared + auto-imported Application */
    Channel *adm = p->channels.v[0];
    ck_assert_str_eq(adm->name, "Contoso/Admin");
    ck_assert_str_eq(adm->chid, "Adm");
    ck_assert_int_eq(adm->type, CHAN_ADMIN);
    ck_assert(adm->has_value);
    ck_assert_uint_eq(adm->value, 16);
    ck_assert_str_eq(adm->symbol, "ADM_SYM");
    ck_assert(adm->has_enabled && adm->enabled);
    ck_assert_int_eq(adm->isolation, ISO_APPLICATION);
    ck_assert_str_eq(adm->access, "O:BAG:SYD:");
    ck_assert_str_eq(text_of(m, "en-US", &adm->msg), "Admin channel");
    ck_assert(adm->logging.present);
    ck_assert(adm->logging.has_auto_backup && adm->logging.auto_backup);
    ck_assert(adm->logging.has_retention && !adm->logging.retention);
    ck_assert(adm->logging.has_max_size);
    ck_assert_uint_eq(adm->logging.max_size, 1048576);
    ChannelPublishing *pb = &adm->publishing;
    ck_assert(pb->present && pb->has_level && pb->level == 4);
    ck_assert(pb->has_keywords && pb->keywords == 0x30);
    ck_assert(pb->has_control_guid && pb->control_guid.d1 == 0xD0883FA6);
    ck_assert(pb->buffer_size == 64 && pb->min_buffers == 2 && pb->max_buffers == 8);
    ck_assert(pb->latency == 5 && pb->file_max == 3);
    ck_assert_str_eq(pb->clock_type, "QPC");
    ck_assert_str_eq(pb->sid_type, "Publishing");

    Channel *op = p->channels.v[1];
    ck_assert_int_eq(op->type, CHAN_OPERATIONAL);
    ck_assert(!op->has_value);
    ck_assert_uint_eq(op->value, 17); /* lowest free from 16 up */
    ck_assert(op->has_enabled && !op->enabled);
    ck_assert_int_eq(op->isolation, ISO_SYSTEM);
    ck_assert(!op->logging.present && !op->publishing.present);

    Channel *dbg = p->channels.v[2];
    ck_assert_int_eq(dbg->type, CHAN_DEBUG);
    ck_assert_uint_eq(dbg->value, 18);
    ck_assert_int_eq(dbg->isolation, ISO_CUSTOM);
    ck_assert_ptr_null(dbg->chid);

    Channel *sys = p->channels.v[3];
    ck_assert(sys->imported && !sys->auto_imported);
    ck_assert_str_eq(sys->chid, "Sys");
    ck_assert_ptr_nonnull(sys->import_of);
    ck_assert(sys->import_of->builtin);
    ck_assert_uint_eq(sys->value, 8);

    Channel *other = p->channels.v[4];
    ck_assert(other->imported);
    ck_assert_ptr_eq(other->import_of, m->providers.v[1]->channels.v[0]);
    ck_assert_uint_eq(other->value, 19); /* numbered like the provider's own */

    Channel *app = p->channels.v[5];
    ck_assert(app->imported && app->auto_imported);
    ck_assert_str_eq(app->name, "Application");
    ck_assert_uint_eq(app->value, 9);
    ck_assert_uint_eq(app->index, 5);

    ck_assert_ptr_eq(p->events.v[0]->channel, op);  /* by chid */
    ck_assert_ptr_eq(p->events.v[1]->channel, adm); /* by name */
    ck_assert_ptr_eq(p->events.v[2]->channel, app); /* auto-imported */
    ck_assert_ptr_eq(p->events.v[3]->channel, sys); /* importChannel chid */
}

START_TEST(test_parse_channels)
{
    load_all(channels_doc, check_channels);
}
END_TEST

/* ---- levels ---- */

static const char levels_doc[] =
    HEAD PROV_OPEN
    "<levels>\n"
    "  <level name='Detail' value='16' symbol='LVL_DETAIL' message='$(string.lvl)'/>\n"
    "  <level name='win:Weird' value='0xFF'/>\n"
    "</levels>\n"
    "<events><event value='1' level='Detail'/><event value='2' level='win:Error'/>\n"
    "  <event value='3' level='win:Weird'/></events>\n"
    PROV_CLOSE TAIL("<string id='lvl' value='Detailed'/>\n");

static void check_levels(Manifest *m)
{
    Provider *p = prov0(m);
    ck_assert_uint_eq(p->levels.n, 2);
    Level *l = p->levels.v[0];
    ck_assert_str_eq(l->n.name.ns, NS_EVENTS);
    ck_assert_str_eq(l->n.name.local, "Detail");
    ck_assert_uint_eq(l->value, 16);
    ck_assert_str_eq(l->n.symbol, "LVL_DETAIL");
    ck_assert_str_eq(text_of(m, "en-US", &l->n.msg), "Detailed");
    ck_assert(!l->n.builtin);
    ck_assert_uint_eq(p->levels.v[1]->value, 255);
    ck_assert_ptr_eq(p->events.v[0]->level, l);
    Level *err = p->events.v[1]->level;
    ck_assert(err->n.builtin);
    ck_assert_uint_eq(err->value, 2);
    ck_assert_str_eq(err->n.display, "win:Error");
    ck_assert_str_eq(err->n.builtin_msg, "Error");
    /* a provider level in the win namespace wins over winmeta */
    ck_assert_ptr_eq(p->events.v[2]->level, p->levels.v[1]);
}

START_TEST(test_parse_levels)
{
    load_all(levels_doc, check_levels);
}
END_TEST

/* ---- tasks with their opcodes ---- */

static const char tasks_doc[] =
    HEAD PROV_OPEN
    "<tasks>\n"
    "  <task name='Connect' value='1' symbol='TASK_CONNECT' eventGUID='{D0883FA6-F3FD-43C3-A0E4-000000000001}'\n"
    "      message='$(string.t1)'>\n"
    "    <opcodes>\n"
    "      <opcode name='Begin' value='10' symbol='OP_BEGIN' message='$(string.o1)'/>\n"
    "      <opcode name='Shared' value='11'/>\n"
    "    </opcodes>\n"
    "  </task>\n"
    "  <task name='Idle' value='0xFFFF'/>\n"
    "</tasks>\n"
    "<opcodes><opcode name='Shared' value='20'/></opcodes>\n"
    "<events>\n"
    "  <event value='1' task='Connect' opcode='Begin'/>\n"
    "  <event value='2' task='Connect' opcode='Shared'/>\n"
    "  <event value='3' task='Idle' opcode='Shared'/>\n"
    "  <event value='4' task='win:None' opcode='win:Start'/>\n"
    "</events>\n"
    PROV_CLOSE
    TAIL("<string id='t1' value='Connecting'/><string id='o1' value='Begin'/>\n");

static void check_tasks(Manifest *m)
{
    Provider *p = prov0(m);
    ck_assert_uint_eq(p->tasks.n, 2);
    Task *t = p->tasks.v[0];
    ck_assert_str_eq(t->n.name.local, "Connect");
    ck_assert_uint_eq(t->value, 1);
    ck_assert_str_eq(t->n.symbol, "TASK_CONNECT");
    ck_assert(t->has_guid);
    ck_assert_uint_eq(t->event_guid.d4[7], 1);
    ck_assert_str_eq(text_of(m, "en-US", &t->n.msg), "Connecting");
    ck_assert_uint_eq(t->opcodes.n, 2);
    Opcode *begin = t->opcodes.v[0];
    ck_assert_ptr_eq(begin->task, t);
    ck_assert_uint_eq(begin->value, 10);
    ck_assert_str_eq(begin->n.symbol, "OP_BEGIN");
    ck_assert_str_eq(text_of(m, "en-US", &begin->n.msg), "Begin");
    Task *idle = p->tasks.v[1];
    ck_assert_uint_eq(idle->value, 65535);
    ck_assert(!idle->has_guid);
    ck_assert_uint_eq(p->opcodes.n, 1);
    /* opcodes resolve in the event's task first, then the provider */
    ck_assert_ptr_eq(p->events.v[0]->opcode, begin);
    ck_assert_ptr_eq(p->events.v[1]->opcode, t->opcodes.v[1]);
    ck_assert_ptr_eq(p->events.v[2]->opcode, p->opcodes.v[0]);
    ck_assert_ptr_eq(p->events.v[2]->task, idle);
    ck_assert(p->events.v[3]->task->n.builtin);
    ck_assert_uint_eq(p->events.v[3]->task->value, 0);
    ck_assert(p->events.v[3]->opcode->n.builtin);
    ck_assert_uint_eq(p->events.v[3]->opcode->value, 1);
}

START_TEST(test_parse_tasks)
{
    load_all(tasks_doc, check_tasks);
}
END_TEST

/* ---- opcodes ---- */

static const char opcodes_doc[] =
    HEAD PROV_OPEN
    "<opcodes>\n"
    "  <opcode name='Send' value='239' symbol='OP_SEND' mofValue='66' message='$(string.o)'/>\n"
    "</opcodes>\n"
    PROV_CLOSE TAIL("<string id='o' value='Sending'/>\n");

static void check_opcodes(Manifest *m)
{
    Provider *p = prov0(m);
    ck_assert_uint_eq(p->opcodes.n, 1);
    Opcode *o = p->opcodes.v[0];
    ck_assert_str_eq(o->n.name.local, "Send");
    ck_assert_uint_eq(o->value, 239);
    ck_assert_str_eq(o->mof_value, "66");
    ck_assert_ptr_null(o->task);
    ck_assert_str_eq(text_of(m, "en-US", &o->n.msg), "Sending");
    ck_assert_uint_eq(o->n.loc.line, 8);
    ck_assert_uint_eq(o->n.loc.col, 3);
}

START_TEST(test_parse_opcodes)
{
    load_all(opcodes_doc, check_opcodes);
}
END_TEST

/* ---- keywords ---- */

static const char keywords_doc[] =
    HEAD PROV_OPEN
    "<keywords>\n"
    "  <keyword name='Net' mask='0x1' symbol='KW_NET' message='$(string.k)'/>\n"
    "  <keyword name='Disk' mask='0x0000800000000000'/>\n"
    "</keywords>\n"
    "<events><event value='1' keywords='Net  Disk\n win:ResponseTime'/></events>\n"
    PROV_CLOSE TAIL("<string id='k' value='Network'/>\n");

static void check_keywords(Manifest *m)
{
    Provider *p = prov0(m);
    ck_assert_uint_eq(p->keywords.n, 2);
    ck_assert_uint_eq(p->keywords.v[0]->mask, 1);
    ck_assert_str_eq(p->keywords.v[0]->n.symbol, "KW_NET");
    ck_assert_str_eq(text_of(m, "en-US", &p->keywords.v[0]->n.msg), "Network");
    ck_assert_uint_eq(p->keywords.v[1]->mask, 0x0000800000000000ULL);
    Event *e = p->events.v[0];
    ck_assert_uint_eq(e->nkeywords, 3);
    ck_assert(e->keywords[2]->n.builtin);
    ck_assert_uint_eq(e->keywords[2]->mask, 0x0001000000000000ULL);
    ck_assert_uint_eq(event_keyword_mask(e), 0x0001800000000001ULL);
}

START_TEST(test_parse_keywords)
{
    load_all(keywords_doc, check_keywords);
}
END_TEST

/* ---- maps ---- */

static const char maps_doc[] =
    HEAD PROV_OPEN
    "<maps>\n"
    "  <valueMap name='ns1:States' symbol='STATES'>\n"
    "    <map value='22' symbol='S_UP' message='$(string.up)'/>\n"
    "    <map value='0xFFFFFFFF' message='$(string.down)'/>\n"
    "  </valueMap>\n"
    "  <bitMap name='Flags'><map value='0x80000000' message='$(string.up)'/></bitMap>\n"
    "</maps>\n"
    "<namedQueries><patternMaps>\n"
    "  <patternMap name='PM' format='winrxv1' symbol='PMS'><map name='a' value='b'/></patternMap>\n"
    "</patternMaps></namedQueries>\n"
    PROV_CLOSE TAIL("<string id='up' value='Up'/><string id='down' value='Down'/>\n");

static void check_maps(Manifest *m)
{
    Provider *p = prov0(m);
    ck_assert_uint_eq(p->maps.n, 3);
    ValueMap *vm = p->maps.v[0];
    ck_assert_int_eq(vm->kind, MAP_VALUE);
    ck_assert_str_eq(vm->name, "ns1:States"); /* map names are plain strings */
    ck_assert_str_eq(vm->symbol, "STATES");
    ck_assert_uint_eq(vm->items.n, 2);
    ck_assert_uint_eq(vm->items.v[0]->value, 22);
    ck_assert_str_eq(vm->items.v[0]->symbol, "S_UP");
    ck_assert_str_eq(text_of(m, "en-US", &vm->items.v[0]->msg), "Up");
    ck_assert_uint_eq(vm->items.v[1]->value, 0xFFFFFFFFu);
    ck_assert_str_eq(text_of(m, "en-US", &vm->items.v[1]->msg), "Down");
    ValueMap *bm = p->maps.v[1];
    ck_assert_int_eq(bm->kind, MAP_BIT);
    ck_assert_uint_eq(bm->items.v[0]->value, 0x80000000u);
    ValueMap *pm = p->maps.v[2];
    ck_assert_int_eq(pm->kind, MAP_PATTERN);
    ck_assert_str_eq(pm->format, "winrxv1");
    ck_assert_str_eq(pm->items.v[0]->pattern_name, "a");
    ck_assert_str_eq(pm->items.v[0]->pattern_value, "b");
    ck_assert_ptr_eq(map_get(&p->map_by_name, "Flags"), bm);
}

START_TEST(test_parse_maps)
{
    load_all(maps_doc, check_maps);
}
END_TEST

/* ---- templates: data, struct, count/length, UserData ---- */

static const char templates_doc[] =
    HEAD PROV_OPEN
    "<maps><valueMap name='M'><map value='1' message='$(string.one)'/></valueMap></maps>\n"
    "<templates>\n"
    "  <template tid='T1' name='FirstTemplate'>\n"
    "    <data name='Count' inType='win:UInt16'/>\n"
    "    <data name='Items' inType='win:UInt32' count='Count' map='M'/>\n"
    "    <data name='Fixed' inType='win:Binary' length='16' outType='win:IPv6'/>\n"
    "    <data name='Name' inType='win:UnicodeString' outType='xs:string'/>\n"
    "    <data name='Id' inType='win:GUID'/>\n"
    "    <struct name='Pairs' count='Count'>\n"
    "      <data name='Len' inType='win:UInt8'/>\n"
    "      <data name='Bytes' inType='win:Binary' length='Len'/>\n"
    "    </struct>\n"
    "    <data name='Three' inType='win:Int64' count='3'/>\n"
    "  </template>\n"
    "  <template tid='T2'>\n"
    "    <data name='A' inType='win:Int32'/>\n"
    "    <UserData>\n"
    "      <Root xmlns='urn:user' kind='x'><Field>%1</Field></Root>\n"
    "    </UserData>\n"
    "  </template>\n"
    "</templates>\n"
    "<events><event value='1' template='T1'/><event value='2' template='T2'/></events>\n"
    PROV_CLOSE TAIL("<string id='one' value='One'/>\n");

static void check_templates(Manifest *m)
{
    Provider *p = prov0(m);
    ck_assert_uint_eq(p->layouts.n, 2);
    Layout *l = p->layouts.v[0];
    ck_assert_str_eq(l->tid, "T1");
    ck_assert_str_eq(l->name, "FirstTemplate");
    ck_assert_uint_eq(l->fields.n, 7);
    Field *count = l->fields.v[0], *items = l->fields.v[1], *fixed = l->fields.v[2];
    ck_assert_str_eq(field_in_type(count)->display, "win:UInt16");
    ck_assert_uint_eq(field_in_type(count)->value, 6);
    ck_assert_ptr_null(field_out_type(count));
    ck_assert_str_eq(field_in_type(count)->default_out->display, "xs:unsignedShort");
    ck_assert_int_eq(items->qty->count.kind, QTY_FIELD);
    ck_assert_ptr_eq(items->qty->count.ref, count);
    ck_assert_ptr_eq(items->map, p->maps.v[0]);
    ck_assert_int_eq(fixed->qty->length.kind, QTY_FIXED);
    ck_assert_uint_eq(fixed->qty->length.n, 16);
    ck_assert_str_eq(field_out_type(fixed)->display, "win:IPv6");
    ck_assert_uint_eq(field_out_type(fixed)->value, 24);
    ck_assert_uint_eq(field_in_type(fixed)->value, 14);
    ck_assert_str_eq(field_out_type(l->fields.v[3])->display, "xs:string");
    ck_assert_uint_eq(field_in_type(l->fields.v[4])->value, 15);
    Field *pairs = l->fields.v[5];
    ck_assert(pairs->is_struct);
    ck_assert_uint_eq(pairs->index, 5);
    ck_assert_ptr_eq(pairs->qty->count.ref, count);
    ck_assert_uint_eq(pairs->members.n, 2);
    Field *bytes = pairs->members.v[1];
    ck_assert_uint_eq(bytes->index, 1);
    ck_assert_ptr_eq(bytes->qty->length.ref, pairs->members.v[0]); /* sibling first */
    ck_assert_int_eq(l->fields.v[6]->qty->count.kind, QTY_FIXED);
    ck_assert_uint_eq(l->fields.v[6]->qty->count.n, 3);
    Layout *t2 = p->layouts.v[1];
    ck_assert_ptr_null(t2->name);
    ck_assert_ptr_nonnull(t2->user_data);
    ck_assert_str_eq(t2->user_data->name.ns, "urn:user");
    ck_assert_str_eq(t2->user_data->name.local, "Root");
    ck_assert_uint_eq(t2->user_data->attrs.n, 1);
    ck_assert_str_eq(t2->user_data->attrs.v[0].value, "x");
    ck_assert_uint_eq(t2->user_data->children.n, 1);
    ck_assert_str_eq(t2->user_data->children.v[0]->text, "%1");
    ck_assert_ptr_eq(p->events.v[0]->layout, l);
    ck_assert_ptr_eq(p->events.v[1]->layout, t2);
}

START_TEST(test_parse_templates)
{
    load_all(templates_doc, check_templates);
}
END_TEST

/* ---- events ---- */

static const char events_doc[] =
    HEAD PROV_OPEN
    "<events>\n"
    "  <event value='0xFFFF' version='0xFF' symbol='EvBig' name='Big' channel='C'\n"
    "      level='win:Informational' task='T' opcode='win:Stop' keywords='K'\n"
    "      template='Tp' message='$(string.ev)' notLogged='true' suppressProjection='1'\n"
    "      attributes='FILE=source.cpp;MJ=\"major comp\";LINE=6'/>\n"
    "  <event value='7'/>\n"
    "</events>\n"
    "<channels><channel name='C' type='Operational'/></channels>\n"
    "<tasks><task name='T' value='3'/></tasks>\n"
    "<keywords><keyword name='K' mask='0x4'/></keywords>\n"
    "<templates><template tid='Tp'><data name='x' inType='win:Boolean'/></template></templates>\n"
    PROV_CLOSE TAIL("<string id='ev' value='Event %1'/>\n");

static void check_events(Manifest *m)
{
    Provider *p = prov0(m);
    ck_assert_uint_eq(p->events.n, 2);
    Event *e = p->events.v[0];
    ck_assert_uint_eq(e->value, 0xFFFF);
    ck_assert_uint_eq(e->version, 255);
    ck_assert_str_eq(e->symbol, "EvBig");
    ck_assert_str_eq(e->rare->name, "Big");
    ck_assert_ptr_eq(e->channel, p->channels.v[0]);
    ck_assert_uint_eq(e->level->value, 4);
    ck_assert_ptr_eq(e->task, p->tasks.v[0]);
    ck_assert_uint_eq(e->opcode->value, 2);
    ck_assert_uint_eq(event_keyword_mask(e), 4);
    ck_assert_ptr_eq(e->layout, p->layouts.v[0]);
    ck_assert_str_eq(text_of(m, "en-US", &e->msg), "Event %1");
    ck_assert(e->not_logged);
    ck_assert(e->suppress_projection);
    ck_assert_uint_eq(e->rare->attrs.n, 3);
    ck_assert_str_eq(e->rare->attrs.v[0].key, "FILE");
    ck_assert_str_eq(e->rare->attrs.v[0].value, "source.cpp");
    ck_assert_str_eq(e->rare->attrs.v[1].key, "MJ");
    ck_assert_str_eq(e->rare->attrs.v[1].value, "major comp");
    ck_assert_str_eq(e->rare->attrs.v[2].value, "6");
    ck_assert_uint_eq(e->loc.line, 8);
    ck_assert_uint_eq(e->loc.col, 3);
    ck_assert_uint_eq(loc_in(e->loc, e->level_pos).line, 9);
    ck_assert_uint_eq(loc_in(e->loc, e->level_pos).col, 7);
    Event *f = p->events.v[1];
    ck_assert_uint_eq(f->value, 7);
    ck_assert_uint_eq(f->version, 0);
    ck_assert_ptr_null(f->channel);
    ck_assert_ptr_null(f->level);
    ck_assert_ptr_null(f->task);
    ck_assert_ptr_null(f->opcode);
    ck_assert_ptr_null(f->layout);
    ck_assert(!f->not_logged);
}

START_TEST(test_parse_events)
{
    load_all(events_doc, check_events);
}
END_TEST

/* Attribute positions kept relative to the element (Pos): on its line,
 * lines below it, and farther below than a Pos holds in place. */
#define NL10 "\n\n\n\n\n\n\n\n\n\n"
static const char event_pos_doc[] =
    HEAD PROV_OPEN
    "<events>\n"
    "  <event value='1' channel='C'\n"
    "\n"
    "      level='win:Informational'" NL10 NL10 NL10 NL10 NL10 NL10 NL10 "\t task='T'/>\n"
    "</events>\n"
    "<channels><channel name='C' type='Operational'/></channels>\n"
    "<tasks><task name='T' value='3'/></tasks>\n"
    PROV_CLOSE TAIL_NOSTR;

static void check_event_pos(Manifest *m)
{
    Event *e = prov0(m)->events.v[0];
    ck_assert_uint_eq(e->loc.line, 8);
    ck_assert_uint_eq(e->loc.col, 3);
    Loc c = loc_in(e->loc, e->channel_pos), l = loc_in(e->loc, e->level_pos),
        t = loc_in(e->loc, e->task_pos), o = loc_in(e->loc, e->opcode_pos);
    ck_assert_uint_eq(c.file, e->loc.file);
    ck_assert_uint_eq(c.line, 8);
    ck_assert_uint_eq(c.col, 20);
    ck_assert_uint_eq(l.line, 10);
    ck_assert_uint_eq(l.col, 7);
    ck_assert_uint_eq(t.file, e->loc.file);
    ck_assert_uint_eq(t.line, 80);
    ck_assert_uint_eq(t.col, 3);
    ck_assert_uint_eq(o.line, 8); /* no opcode=: the element's */
    ck_assert_uint_eq(o.col, 3);
}

START_TEST(test_parse_event_positions)
{
    load_all(event_pos_doc, check_event_pos);
}
END_TEST

/* ---- filters, traits, messageTable ---- */

static const char misc_doc[] =
    HEAD
    "<provider name='P' guid='{00000000-0000-0000-0000-000000000001}' symbol='P'>\n"
    "  <traits groupGuid='{5FA0E8FD-0AC9-4EE1-98DE-73C69912E6D1}' includeName='true'/>\n"
    "  <templates><template tid='FT'><data name='a' inType='win:UInt32'/></template></templates>\n"
    "  <filters>\n"
    "    <filter name='Flt' value='0xFE' version='2' symbol='FLT' tid='FT' message='$(string.f)'/>\n"
    "  </filters>\n"
    "</provider>\n"
    "<messageTable>\n"
    "  <message value='0x10000001' symbol='MSG_X' mid='x' message='$(string.f)'/>\n"
    "</messageTable>\n"
    TAIL("<string id='f' value='Filter'/>\n");

static void check_misc(Manifest *m)
{
    Provider *p = prov0(m);
    ck_assert_ptr_nonnull(p->traits);
    ck_assert(p->traits->has_group_guid);
    ck_assert_uint_eq(p->traits->group_guid.d1, 0x5FA0E8FD);
    ck_assert(p->traits->has_include_name && p->traits->include_name);
    ck_assert_uint_eq(p->filters.n, 1);
    Filter *f = p->filters.v[0];
    ck_assert_str_eq(f->name.local, "Flt");
    ck_assert_uint_eq(f->value, 0xFE);
    ck_assert_uint_eq(f->version, 2);
    ck_assert_str_eq(f->symbol, "FLT");
    ck_assert_ptr_eq(f->layout, p->layouts.v[0]);
    ck_assert_str_eq(text_of(m, "en-US", &f->msg), "Filter");
    ck_assert_uint_eq(m->message_table.n, 1);
    MessageEntry *me = m->message_table.v[0];
    ck_assert_uint_eq(me->value, 0x10000001);
    ck_assert_str_eq(me->symbol, "MSG_X");
    ck_assert_str_eq(me->mid, "x");
    ck_assert_str_eq(me->msg.id, "f");
}

START_TEST(test_parse_filters_traits_message_table)
{
    load_all(misc_doc, check_misc);
}
END_TEST

/* ---- localization ---- */

static const char localization_doc[] =
    HEAD PROV_OPEN
    "<events><event value='1' message='$(string.hello)'/></events>\n"
    PROV_CLOSE
    "</events></instrumentation>\n"
    "<localization>\n"
    "  <resources culture='en-US'><stringTable>\n"
    "    <string id='hello' value='Hello &amp; welcome'/>\n"
    "    <string id='only.en' value='x' stringType='string'/>\n"
    "  </stringTable></resources>\n"
    "  <resources culture='de-DE'><stringTable>\n"
    "    <string id='hello' value='Hallo &#x2014; willkommen'/>\n"
    "  </stringTable></resources>\n"
    "</localization>\n"
    "</instrumentationManifest>\n";

static void check_localization(Manifest *m)
{
    ck_assert_uint_eq(m->cultures.n, 2);
    ck_assert_str_eq(m->cultures.v[0]->name, "en-US");
    ck_assert_str_eq(m->cultures.v[1]->name, "de-DE");
    ck_assert_uint_eq(m->cultures.v[0]->strings.n, 2);
    ck_assert_str_eq(ptrmap_get(&m->string_types, m->cultures.v[0]->strings.v[1]), "string");
    Event *e = prov0(m)->events.v[0];
    ck_assert_str_eq(text_of(m, "en-US", &e->msg), "Hello & welcome");
    ck_assert_str_eq(text_of(m, "de-DE", &e->msg), "Hallo \xe2\x80\x94 willkommen");
    ck_assert_ptr_null(text_of(m, "de-DE", &(MsgRef){.id = "only.en"}));
}

START_TEST(test_parse_localization)
{
    load_all(localization_doc, check_localization);
}
END_TEST

/* ---- counters are skipped with a note; assembly roots ---- */

/* The schema admits after <events> only elements of another namespace;
 * the note is given for a <counters> in the win: namespace (one in the
 * counters namespace of real manifests is skipped without it). */
START_TEST(test_parse_counters_skipped_with_note)
{
    static const char doc[] = HEAD PROV_OPEN PROV_CLOSE
        "</events>\n"
        "<win:counters schemaVersion='1.1'><provider name='x'><counterSet/></provider></win:counters>\n"
        "</instrumentation>\n</instrumentationManifest>\n";
    Buf diag = {0};
    diag_set_capture(&diag);
    Manifest *m = unit_load("t.man", doc, strlen(doc), 0, NULL);
    diag_set_capture(NULL);
    ck_assert_msg(m != NULL, "load failed: %s", diag.s ? diag.s : "");
    ck_assert_uint_eq(m->providers.n, 1);
    ck_assert_uint_eq(m->skipped_counter_sections, 1);
    ck_assert_str_eq(diag.s,
                     "t.man:9:1: note: <counters> section skipped: mcgen compiles event "
                     "providers only\n"
                     "  <win:counters schemaVersion='1.1'><provider name='x'><counterSet/></provider>"
                     "</win:counters>\n"
                     "  ^\n");
    manifest_free(m);
    buf_free(&diag);
    diag_reset();
}
END_TEST

static const char assembly_doc[] =
    "<assembly xmlns='urn:schemas-microsoft-com:asm.v3' manifestVersion='1.0'>\n"
    "  <assemblyIdentity name='x' version='1.0.0.0'/>\n"
    "  <instrumentation xmlns:win='" NS_WIN "'>\n"
    "    <events xmlns='" NS_EVENTS "'>\n"
    PROV_OPEN "<events><event value='1' level='win:Verbose'/></events>" PROV_CLOSE
    "    </events>\n"
    "  </instrumentation>\n"
    "</assembly>\n";

static void check_assembly(Manifest *m)
{
    ck_assert_uint_eq(m->providers.n, 1);
    Provider *p = prov0(m);
    ck_assert_uint_eq(p->events.n, 1);
    ck_assert_uint_eq(p->events.v[0]->level->value, 5); /* win:Verbose */
}

/* A Windows component manifest wraps its instrumentation in <assembly>
 * (asm.v3), which mc compiles: the <instrumentation> is read as an
 * instrumentationManifest's, <assemblyIdentity> is read past.  One
 * without <instrumentation> is no manifest. */
START_TEST(test_parse_assembly_root)
{
    load_all(assembly_doc, check_assembly);
    load_fails("<assembly xmlns='urn:schemas-microsoft-com:asm.v3' manifestVersion='1.0'>\n"
               "  <assemblyIdentity name='x' version='$(build.version)'/>\n"
               "</assembly>\n",
               "t.man:1:1: error: [MCG1003] not an instrumentation manifest: this Windows "
               "component manifest (<assembly>) has no <instrumentation> element\n"
               "  <assembly xmlns='urn:schemas-microsoft-com:asm.v3' manifestVersion='1.0'>\n"
               "  ^\n");
}
END_TEST

/* QName references resolve by namespace URI, not by prefix text. */
static const char qname_doc[] =
    "<instrumentationManifest xmlns='" NS_EVENTS "' xmlns:a='urn:one'>\n"
    "<instrumentation><events>\n" PROV_OPEN
    "<levels><level name='a:L' value='20'/></levels>\n"
    "<events xmlns:b='urn:one' xmlns:w='" NS_WIN "'>\n"
    "  <event value='1' level='b:L'/><event value='2' level='w:Critical'/>\n"
    "</events>\n" PROV_CLOSE TAIL_NOSTR;

static void check_qname(Manifest *m)
{
    Provider *p = prov0(m);
    ck_assert_ptr_eq(p->events.v[0]->level, p->levels.v[0]);
    ck_assert_uint_eq(p->events.v[1]->level->value, 1);
}

START_TEST(test_parse_qname_by_namespace)
{
    load_all(qname_doc, check_qname);
}
END_TEST

/* ---- bad inputs ---- */

/* Appends one expected diagnostic: position, message, source line, caret. */
static void want(Buf *b, unsigned line, unsigned col, const char *msg, const char *src)
{
    buf_printf(b, "t.man:%u:%u: %s\n", line, col, msg);
    if (src)
        buf_printf(b, "  %s\n  %*s^\n", src, (int)col - 1, "");
}

START_TEST(test_parse_truncated_xml)
{
    static const char doc[] = HEAD PROV_OPEN "<events><event value='1'";
    Buf w = {0};
    want(&w, 7, 9, "error: [MCG1001] malformed XML: unclosed token", "<events><event value='1'");
    load_fails(doc, w.s);
    buf_free(&w);
}
END_TEST

/* UTF-16 without a byte-order mark: an XML declaration first ("<\0?\0")
 * says which UTF-16 it is (XML 1.0 appendix F), and xmllint and MSXML read
 * it; so does mcgen, with a warning (MCG1005).  Without the declaration
 * it is refused (MCG1004), as xmllint refuses it. */
START_TEST(test_parse_utf16_without_bom)
{
    const char *decl = "<?xml version='1.0' encoding='UTF-8'?>\n";
    ck_assert_int_eq(strncmp(provider_doc, decl, strlen(decl)), 0);
    Buf doc = {0};
    buf_adds(&doc, "<?xml version='1.0' encoding='UTF-16'?>\n");
    buf_adds(&doc, provider_doc + strlen(decl));
    for (int pass = 0; pass < 2; pass++) {
        Buf b = {0};
        const char *text = pass ? doc.s + strlen("<?xml version='1.0' encoding='UTF-16'?>\n") : doc.s;
        utf8_to_utf16le(&b, text, strlen(text));
        Buf diag = {0};
        diag_set_capture(&diag);
        Manifest *m = unit_load("t.man", b.s, b.len, 0, NULL);
        diag_set_capture(NULL);
        if (pass == 0) {
            ck_assert_ptr_nonnull(m);
            ck_assert_uint_eq(m->providers.n, 2); /* provider_doc's two */
            ck_assert_str_eq(diag.s, "t.man:1:1: warning: [MCG1005, -Wutf16-no-bom] UTF-16 input "
                                     "without a byte-order mark, read as UTF-16LE from its XML "
                                     "declaration (XML requires a BOM for UTF-16; save the file "
                                     "with one)\n"
                                     "t.man:9:1: warning: [MCG7010, -Wno-resource-file] provider "
                                     "'Second' has no resourceFileName: consumers will not find "
                                     "its metadata\n");
        } else {
            ck_assert_ptr_null(m);
            ck_assert_str_eq(diag.s, "t.man:1:1: error: [MCG1004] UTF-16 input without a "
                                     "byte-order mark or XML declaration (XML requires a BOM for "
                                     "UTF-16; save the file with one)\n");
        }
        manifest_free(m);
        buf_free(&diag);
        buf_free(&b);
    }
    buf_free(&doc);
    diag_reset();
}
END_TEST

START_TEST(test_parse_billion_laughs)
{
    static const char doc[] = "<?xml version='1.0'?>\n"
                              "<!DOCTYPE m [<!ENTITY a 'aaaaaaaaaa'><!ENTITY b '&a;&a;&a;&a;'>]>\n"
                              "<instrumentationManifest xmlns='" NS_EVENTS "'>&b;</instrumentationManifest>\n";
    Buf w = {0};
    want(&w, 2, 1,
         "error: [MCG1002] document type declarations are not allowed in a manifest (DTDs and entities "
         "are refused)",
         "<!DOCTYPE m [<!ENTITY a 'aaaaaaaaaa'><!ENTITY b '&a;&a;&a;&a;'>]>");
    load_fails(doc, w.s);
    buf_free(&w);
}
END_TEST

START_TEST(test_parse_unknown_win_level)
{
    static const char doc[] = HEAD PROV_OPEN
        "<events>\n"
        "  <event value='1' level='win:Informational'/>\n"
        "  <event value='2' level='win:Chatty'/>\n"
        "</events>\n" PROV_CLOSE TAIL_NOSTR;
    Buf w = {0};
    want(&w, 9, 20, "error: [MCG2001] unknown level 'win:Chatty'", "  <event value='2' level='win:Chatty'/>");
    load_fails(doc, w.s);
    buf_free(&w);
}
END_TEST

START_TEST(test_parse_dangling_string)
{
    static const char doc[] = HEAD PROV_OPEN
        "<events><event value='1' message='$(string.missing)'/></events>\n"
        PROV_CLOSE TAIL("<string id='present' value='x'/>\n");
    Buf w = {0};
    want(&w, 7, 26, "error: [MCG5001] undefined string 'missing' in '$(string.missing)'",
         "<events><event value='1' message='$(string.missing)'/></events>");
    /* the rules run after it too: the string nothing references is shown */
    want(&w, 11, 1, "warning: [MCG5015, -Wunused-string] string 'present' (culture 'en-US') is defined but never "
         "referenced", "<string id='present' value='x'/>");
    load_fails(doc, w.s);
    buf_free(&w);
}
END_TEST

/* Attribute positions in tags of the shapes xml.c's reader checks
 * (locate_attrs_shaped) and of those it must leave to its scan: an xmlns
 * declaration before an attribute, a reference in a value, two spaces
 * between attributes.  The columns are those of the names in the line. */
START_TEST(test_parse_attribute_positions)
{
    static const char doc[] = HEAD PROV_OPEN
        "<events><event value='1' xmlns:q='urn:q' version='12345'/>"
        "<event symbol='a&amp;b'  level='zz:y' value='2'/></events>\n"
        PROV_CLOSE TAIL_NOSTR;
    const char *l7 = "<events><event value='1' xmlns:q='urn:q' version='12345'/>"
                     "<event symbol='a&amp;b'  level='zz:y' value='2'/></events>";
    Buf w = {0};
    /* the declaration is as long as version= and its value as long as
     * version's: only its name tells it from the attribute */
    want(&w, 7, 42,
         "error: [MCG1203] invalid value '12345' of attribute 'version' on <event>: expected an "
         "integer from 0 to 255 (decimal, or hex like 0x1F)", l7);
    want(&w, 7, 66,
         "error: [MCG1203] invalid value 'a&b' of attribute 'symbol' on <event>: expected a C "
         "identifier: letters, digits and _, not starting with a digit", l7);
    want(&w, 7, 84,
         "error: [MCG1203] invalid value 'zz:y' of attribute 'level' on <event>: the prefix 'zz' "
         "is not declared", l7);
    load_fails(doc, w.s);
    buf_free(&w);
}
END_TEST

/* Attribute positions in tags across lines: a line break between
 * attributes (\n, \r\n) starts the next one's line; one inside a value
 * is a space in the value but still a line of the file. */
START_TEST(test_parse_attribute_lines)
{
    static const char doc[] = HEAD PROV_OPEN
        "<events><event\n"
        "  value='1'\n"
        "  level='zz:a'/>\n"
        "<event value='2' symbol='a\n"
        "b' level='zz:b'/>\n"
        "<event value='3'\r\n"
        "   level='zz:c'/></events>\n"
        PROV_CLOSE TAIL_NOSTR;
    Buf w = {0};
    want(&w, 9, 3,
         "error: [MCG1203] invalid value 'zz:a' of attribute 'level' on <event>: the prefix 'zz' "
         "is not declared", "  level='zz:a'/>");
    want(&w, 10, 18,
         "error: [MCG1203] invalid value 'a b' of attribute 'symbol' on <event>: expected a C "
         "identifier: letters, digits and _, not starting with a digit",
         "<event value='2' symbol='a");
    want(&w, 11, 4,
         "error: [MCG1203] invalid value 'zz:b' of attribute 'level' on <event>: the prefix 'zz' "
         "is not declared", "b' level='zz:b'/>");
    want(&w, 13, 4,
         "error: [MCG1203] invalid value 'zz:c' of attribute 'level' on <event>: the prefix 'zz' "
         "is not declared", "   level='zz:c'/></events>");
    load_fails(doc, w.s);
    buf_free(&w);
}
END_TEST

/* Columns after non-ASCII bytes: a UTF-8 character takes one column, in
 * a tag and before it on its line, and the tags before the first such
 * byte and after it are placed alike whatever the chunking (expat counts
 * the positions of the chunked parses itself). */
START_TEST(test_parse_attribute_high_bytes)
{
    static const char doc[] = HEAD PROV_OPEN
        "<events><event value='1' level='zz:a'/><event value='2' symbol='\xC3\xA9v'/>"
        "<event value='3' level='zz:b'/>\n"
        "<event value='4' level='zz:c'/></events>\n"
        PROV_CLOSE TAIL_NOSTR;
    Buf w = {0};
    const char *l7 = "<events><event value='1' level='zz:a'/><event value='2' symbol='\xC3\xA9v'/>"
                     "<event value='3' level='zz:b'/>";
    want(&w, 7, 26,
         "error: [MCG1203] invalid value 'zz:a' of attribute 'level' on <event>: the prefix 'zz' "
         "is not declared", l7);
    want(&w, 7, 57,
         "error: [MCG1203] invalid value '\xC3\xA9v' of attribute 'symbol' on <event>: expected a "
         "C identifier: letters, digits and _, not starting with a digit", l7);
    want(&w, 7, 87,
         "error: [MCG1203] invalid value 'zz:b' of attribute 'level' on <event>: the prefix 'zz' "
         "is not declared", l7);
    want(&w, 8, 18,
         "error: [MCG1203] invalid value 'zz:c' of attribute 'level' on <event>: the prefix 'zz' "
         "is not declared", "<event value='4' level='zz:c'/></events>");
    load_fails(doc, w.s);
    buf_free(&w);
}
END_TEST

/* A QName value resolves through the declarations in scope where it is
 * written, however often the same text came before (xml.c keeps the
 * last resolutions of values). */
START_TEST(test_parse_qname_scope)
{
    static const char doc[] = HEAD PROV_OPEN
        "<events><event value='1' level='win:Informational'/>"
        "<event value='2' level='win:Informational' xmlns:win='urn:other'/>"
        "<event value='3' level='win:Informational'/></events>\n"
        PROV_CLOSE TAIL_NOSTR;
    Buf w = {0};
    want(&w, 7, 70, "error: [MCG2001] unknown level '{urn:other}Informational'",
         "<events><event value='1' level='win:Informational'/>"
         "<event value='2' level='win:Informational' xmlns:win='urn:other'/>"
         "<event value='3' level='win:Informational'/></events>");
    load_fails(doc, w.s);
    buf_free(&w);
}
END_TEST

START_TEST(test_parse_not_a_manifest)
{
    static const char doc[] = "<?xml version='1.0'?>\n<project xmlns='urn:x'>\n</project>\n";
    Buf w = {0};
    want(&w, 2, 1,
         "error: [MCG1003] not an instrumentation manifest: the root element is <project> (namespace "
         "'urn:x'), expected <instrumentationManifest> in namespace '" NS_EVENTS "'",
         "<project xmlns='urn:x'>");
    load_fails(doc, w.s);
    buf_free(&w);
}
END_TEST

START_TEST(test_parse_bad_attribute_values)
{
    static const char doc[] = HEAD
        "<provider name='P' guid='{not-a-guid}'>\n"
        "<events><event value='70000'/><event value='1' level='zz:x'/></events>\n"
        "<channels><channel name='c' type='Secret'/><channel type='Admin'/></channels>\n"
        "</provider>\n" TAIL_NOSTR;
    const char *l5 = "<provider name='P' guid='{not-a-guid}'>";
    const char *l6 = "<events><event value='70000'/><event value='1' level='zz:x'/></events>";
    const char *l7 = "<channels><channel name='c' type='Secret'/><channel type='Admin'/></channels>";
    Buf w = {0};
    /* structural errors (the schema's); the provider is not read further,
     * so value='70000' (MCG3001 on a valid provider) is not reached */
    want(&w, 5, 20,
         "error: [MCG1203] invalid value '{not-a-guid}' of attribute 'guid' on <provider>: "
         "expected a GUID in braces, like {12345678-1234-1234-1234-123456789abc}", l5);
    want(&w, 5, 1, "error: [MCG1202] <provider> is missing the required attribute 'symbol'", l5);
    want(&w, 6, 48,
         "error: [MCG1203] invalid value 'zz:x' of attribute 'level' on <event>: the prefix 'zz' "
         "is not declared", l6);
    want(&w, 7, 29,
         "error: [MCG1203] invalid value 'Secret' of attribute 'type' on <channel>: expected one "
         "of Admin, Operational, Analytic or Debug", l7);
    want(&w, 7, 44, "error: [MCG1202] <channel> is missing the required attribute 'name'", l7);
    load_fails(doc, w.s);
    buf_free(&w);
}
END_TEST

START_TEST(test_parse_unresolved_references)
{
    static const char doc[] = HEAD PROV_OPEN
        "<templates><template tid='T'><data name='a' inType='win:Nope' count='b'/>\n"
        "  <data name='c' inType='win:UInt8' outType='xs:what' map='NoMap'/></template></templates>\n"
        "<events><event value='1' channel='NoChan' task='NoTask' opcode='NoOp' keywords='NoKw'\n"
        "  template='NoT'/></events>\n" PROV_CLOSE TAIL_NOSTR;
    const char *l7 = "<templates><template tid='T'><data name='a' inType='win:Nope' count='b'/>";
    const char *l8 =
        "  <data name='c' inType='win:UInt8' outType='xs:what' map='NoMap'/></template></templates>";
    const char *l9 =
        "<events><event value='1' channel='NoChan' task='NoTask' opcode='NoOp' keywords='NoKw'";
    Buf w = {0};
    want(&w, 7, 63, "error: [MCG2001] unknown field 'b' in count= of <data> 'a' (template 'T')", l7);
    want(&w, 7, 45, "error: [MCG2001] unknown inType 'win:Nope' on <data> 'a'", l7);
    want(&w, 8, 37, "error: [MCG2001] unknown outType 'xs:what' on <data> 'c'", l8);
    want(&w, 8, 55, "error: [MCG2001] unknown map 'NoMap' on <data> 'c'", l8);
    want(&w, 9, 26,
         "error: [MCG2001] unknown channel 'NoChan' (not a channel, chid or importChannel of provider "
         "'Prov-A', nor a built-in channel)", l9);
    want(&w, 9, 43, "error: [MCG2001] unknown task 'NoTask'", l9);
    want(&w, 9, 57, "error: [MCG2001] unknown opcode 'NoOp'", l9);
    want(&w, 9, 71, "error: [MCG2001] unknown keyword 'NoKw'", l9);
    want(&w, 10, 3, "error: [MCG2001] unknown template 'NoT'", "  template='NoT'/></events>");
    load_fails(doc, w.s);
    buf_free(&w);
}
END_TEST

/* mc accepts an outType by its local name in either namespace. */
static const char outtype_doc[] =
    HEAD PROV_OPEN
    "<templates><template tid='T'><data name='p' inType='win:Pointer' outType='xs:HexInt64'/>"
    "</template></templates>\n" PROV_CLOSE TAIL_NOSTR;

static void check_outtype(Manifest *m)
{
    Field *f = prov0(m)->layouts.v[0]->fields.v[0];
    ck_assert_str_eq(field_out_type(f)->display, "win:HexInt64");
    ck_assert_uint_eq(field_out_type(f)->value, 19);
}

START_TEST(test_parse_outtype_by_local_name)
{
    load_all(outtype_doc, check_outtype);
}
END_TEST

/* Without any <localization>, strings come from elsewhere: one warning. */
START_TEST(test_parse_no_localization_warns_once)
{
    static const char doc[] = HEAD PROV_OPEN
        "<events><event value='1' message='$(string.a)'/><event value='2' message='$(string.b)'/>"
        "</events>\n" PROV_CLOSE TAIL_NOSTR;
    Buf diag = {0};
    diag_set_capture(&diag);
    Manifest *m = unit_load("t.man", doc, strlen(doc), 0, NULL);
    diag_set_capture(NULL);
    ck_assert_msg(m != NULL, "load failed: %s", diag.s ? diag.s : "");
    Buf w = {0};
    want(&w, 7, 26,
         "warning: [MCG5002, -Wno-localization] string 'a' is not defined here: the manifest has no <localization> "
         "(messages are left without text; further such references not reported)",
         "<events><event value='1' message='$(string.a)'/><event value='2' message='$(string.b)'/></events>");
    ck_assert_str_eq(diag.s, w.s);
    ck_assert_ptr_null(prov0(m)->events.v[0]->msg.text);
    manifest_free(m);
    buf_free(&diag);
    buf_free(&w);
    diag_reset();
}
END_TEST

/* A provider with source= (a decompiled manifest) is read leniently:
 * what does not resolve is one warning per name.  (Its names must still
 * be schema-valid: a QName with an undeclared prefix is refused by the
 * schema before the reader could take it literally.) */
START_TEST(test_parse_decompiled_provider_is_lenient)
{
    static const char doc[] = HEAD
        "<provider name='P' guid='{00000000-0000-0000-0000-000000000001}' symbol='P' source='Xml'>\n"
        "<keywords><keyword name='Send' mask='0x1'/></keywords>\n"
        "<events><event value='1' level='win:Always' keywords='Send Recv'/>\n"
        "<event value='2' level='win:Always' keywords='Recv'/></events>\n"
        PROV_CLOSE TAIL_NOSTR;
    Buf diag = {0};
    diag_set_capture(&diag);
    Manifest *m = unit_load("t.man", doc, strlen(doc), 0, NULL);
    diag_set_capture(NULL);
    ck_assert_msg(m != NULL, "load failed: %s", diag.s ? diag.s : "");
    Provider *p = prov0(m);
    ck_assert_ptr_eq(p->events.v[0]->keywords[0], p->keywords.v[0]);
    ck_assert_ptr_null(p->events.v[0]->level);
    ck_assert_ptr_null(p->events.v[1]->level);
    const char *l7 = "<events><event value='1' level='win:Always' keywords='Send Recv'/>";
    Buf w = {0};
    want(&w, 7, 26,
         "warning: [MCG9001, -Wdecompiled-manifest] unknown level 'win:Always'; left unresolved (decompiled manifest: provider "
         "has source='Xml'; further uses not reported)", l7);
    want(&w, 7, 45,
         "warning: [MCG9001, -Wdecompiled-manifest] unknown keyword 'Recv'; left unresolved (decompiled manifest: provider "
         "has source='Xml'; further uses not reported)", l7);
    ck_assert_str_eq(diag.s, w.s);
    manifest_free(m);
    buf_free(&diag);
    buf_free(&w);
    diag_reset();
}
END_TEST

/* JSON is deterministic and carries the resolved values. */
START_TEST(test_parse_json_deterministic)
{
    Manifest *a = unit_load("t.man", events_doc, strlen(events_doc), 0, NULL);
    Manifest *b = unit_load("t.man", events_doc, strlen(events_doc), 3, NULL);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    Buf ja = {0}, jb = {0};
    json_model_to_buf(a, &ja);
    json_model_to_buf(b, &jb);
    ck_assert_str_eq(ja.s, jb.s);
    ck_assert_ptr_nonnull(strstr(ja.s, "\"keywordMask\":\"0x0000000000000004\""));
    ck_assert_ptr_nonnull(strstr(ja.s, "\"level\":{\"name\":\"win:Informational\",\"value\":4,"
                                       "\"builtin\":true}"));
    ck_assert_ptr_nonnull(strstr(ja.s, "\"MJ\":\"major comp\""));
    manifest_free(a);
    manifest_free(b);
    buf_free(&ja);
    buf_free(&jb);
    diag_reset();
}
END_TEST

Suite *parse_suite(void)
{
    Suite *s = suite_create("parse");
    TCase *tc = tcase_create("elements");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_parse_provider);
    tcase_add_test(tc, test_parse_channels);
    tcase_add_test(tc, test_parse_levels);
    tcase_add_test(tc, test_parse_tasks);
    tcase_add_test(tc, test_parse_opcodes);
    tcase_add_test(tc, test_parse_keywords);
    tcase_add_test(tc, test_parse_maps);
    tcase_add_test(tc, test_parse_templates);
    tcase_add_test(tc, test_parse_events);
    tcase_add_test(tc, test_parse_event_positions);
    tcase_add_test(tc, test_parse_filters_traits_message_table);
    tcase_add_test(tc, test_parse_localization);
    tcase_add_test(tc, test_parse_counters_skipped_with_note);
    tcase_add_test(tc, test_parse_assembly_root);
    tcase_add_test(tc, test_parse_qname_by_namespace);
    suite_add_tcase(s, tc);
    TCase *bad = tcase_create("bad input");
    tcase_set_timeout(bad, 60);
    tcase_add_test(bad, test_parse_truncated_xml);
    tcase_add_test(bad, test_parse_utf16_without_bom);
    tcase_add_test(bad, test_parse_billion_laughs);
    tcase_add_test(bad, test_parse_unknown_win_level);
    tcase_add_test(bad, test_parse_dangling_string);
    tcase_add_test(bad, test_parse_not_a_manifest);
    tcase_add_test(bad, test_parse_bad_attribute_values);
    tcase_add_test(bad, test_parse_attribute_positions);
    tcase_add_test(bad, test_parse_qname_scope);
    tcase_add_test(bad, test_parse_attribute_lines);
    tcase_add_test(bad, test_parse_attribute_high_bytes);
    tcase_add_test(bad, test_parse_unresolved_references);
    tcase_add_test(bad, test_parse_json_deterministic);
    tcase_add_test(bad, test_parse_outtype_by_local_name);
    tcase_add_test(bad, test_parse_no_localization_warns_once);
    tcase_add_test(bad, test_parse_decompiled_provider_is_lenient);
    suite_add_tcase(s, bad);
    return s;
}
