/*
 * winmeta.c - the built-in win: definitions (levels, tasks, opcodes,
 * keywords, channels, inTypes, outTypes).  They are data, not code: the
 * build embeds schema/winmeta.xml as the records of the XML layer's reader
 * (tools/xmlrec.c, when mcgen is built), and this file replays them into
 * the manifest's arena, so every model object a reference can resolve to
 * is an ordinary model object (flagged builtin).
 */
#include "mcgen.h"

#include <string.h>

typedef struct WmParser {
    Manifest *m;
    InType *in; /* the <inType> being read */
    bool bad;
} WmParser;

static const char *wm_attr(WmParser *w, const XmlElem *e, const char *name)
{
    const char *v = xml_attr(e, name);
    if (!v) {
        diag_at(DIAG_ERROR, e->loc, "winmeta: <%s> lacks '%s'", e->local, name);
        w->bad = true;
        return "";
    }
    return v;
}

static uint64_t wm_num(WmParser *w, const XmlElem *e, const char *name, uint64_t max)
{
    uint64_t v = 0;
    if (!parse_uint(wm_attr(w, e, name), max, &v)) {
        diag_at(DIAG_ERROR, e->loc, "winmeta: bad %s on <%s>", name, e->local);
        w->bad = true;
    }
    return v;
}

static void wm_named(WmParser *w, const XmlElem *e, Named *n)
{
    Arena *a = &w->m->arena;
    n->name.ns = NS_WIN;
    n->name.local = arena_strdup(a, wm_attr(w, e, "name"));
    n->display = arena_printf(a, "win:%s", n->name.local);
    n->written = n->display;
    n->symbol = arena_strdup(a, wm_attr(w, e, "symbol"));
    n->builtin_msg = arena_strdup(a, wm_attr(w, e, "message"));
    n->builtin_msgid = arena_strdup(a, wm_attr(w, e, "msgId"));
    n->builtin = true;
}

static OutType *wm_out(WmParser *w, const XmlElem *e, const char *name)
{
    OutType *o = map_get(&w->m->wm.out_by_name, name);
    if (!o) {
        diag_at(DIAG_ERROR, e->loc, "winmeta: unknown outType '%s'", name);
        w->bad = true;
    }
    return o;
}

static void wm_start(void *ctx, XmlReader *r, const XmlElem *e)
{
    (void)r;
    WmParser *w = ctx;
    Winmeta *wm = &w->m->wm;
    Arena *a = &w->m->arena;
    const char *n = e->local;
    if (strcmp(n, "channel") == 0) {
        Channel *c = arena_alloc(a, sizeof *c);
        c->name = c->chid = arena_strdup(a, wm_attr(w, e, "name"));
        c->value = (uint8_t)wm_num(w, e, "value", 255);
        c->has_value = true;
        c->symbol = arena_strdup(a, wm_attr(w, e, "symbol"));
        c->builtin_msg = arena_strdup(a, wm_attr(w, e, "message"));
        c->builtin_msgid = arena_strdup(a, wm_attr(w, e, "msgId"));
        c->builtin = true;
        const char *t = wm_attr(w, e, "type");
        static const char *types[] = {"Admin", "Operational", "Analytic", "Debug"};
        c->type = CHAN_NONE;
        for (int i = 0; i < 4; i++)
            if (strcmp(t, types[i]) == 0)
                c->type = (ChannelType)i;
        vec_push(&wm->channels, c);
        map_put(&wm->channel_by_name, c->name, c, true);
    } else if (strcmp(n, "level") == 0) {
        Level *l = arena_alloc(a, sizeof *l);
        wm_named(w, e, &l->n);
        l->value = (uint8_t)wm_num(w, e, "value", 255);
        vec_push(&wm->levels, l);
        map_put(&wm->level_by_name, l->n.name.local, l, true);
    } else if (strcmp(n, "task") == 0) {
        Task *t = arena_alloc(a, sizeof *t);
        wm_named(w, e, &t->n);
        t->value = (uint16_t)wm_num(w, e, "value", 65535);
        vec_push(&wm->tasks, t);
        map_put(&wm->task_by_name, t->n.name.local, t, true);
    } else if (strcmp(n, "opcode") == 0 && !w->in) {
        Opcode *o = arena_alloc(a, sizeof *o);
        wm_named(w, e, &o->n);
        o->value = (uint8_t)wm_num(w, e, "value", 255);
        vec_push(&wm->opcodes, o);
        map_put(&wm->opcode_by_name, o->n.name.local, o, true);
    } else if (strcmp(n, "keyword") == 0) {
        Keyword *k = arena_alloc(a, sizeof *k);
        wm_named(w, e, &k->n);
        k->mask = wm_num(w, e, "mask", UINT64_MAX);
        vec_push(&wm->keywords, k);
        map_put(&wm->keyword_by_name, k->n.name.local, k, true);
    } else if (strcmp(n, "outType") == 0 && !w->in) {
        OutType *o = arena_alloc(a, sizeof *o);
        const char *name = wm_attr(w, e, "name");
        o->display = arena_strdup(a, name);
        const char *colon = strchr(o->display, ':');
        o->name.ns = colon && strncmp(o->display, "xs:", 3) == 0 ? NS_XS : NS_WIN;
        o->name.local = colon ? colon + 1 : o->display;
        o->value = (uint8_t)wm_num(w, e, "value", 255);
        vec_push(&wm->out_types, o);
        map_put(&wm->out_by_name, o->display, o, true);
    } else if (strcmp(n, "inType") == 0) {
        InType *t = arena_alloc(a, sizeof *t);
        t->name.ns = NS_WIN;
        t->name.local = arena_strdup(a, wm_attr(w, e, "name"));
        t->display = arena_printf(a, "win:%s", t->name.local);
        t->value = (uint8_t)wm_num(w, e, "value", 255);
        t->size = (uint8_t)wm_num(w, e, "size", 255);
        const char *mg = wm_attr(w, e, "mangle");
        t->mangle = mg[0];
        const char *ptr = xml_attr(e, "pointer");
        t->pointer = ptr && strcmp(ptr, "true") == 0;
        t->default_out = wm_out(w, e, wm_attr(w, e, "defaultOutType"));
        vec_push(&wm->in_types, t);
        map_put(&wm->in_by_name, t->name.local, t, true);
        w->in = t;
    } else if (strcmp(n, "outType") == 0 && w->in) {
        OutType *o = wm_out(w, e, wm_attr(w, e, "name"));
        if (o)
            vec_push(&w->in->allowed, o);
    }
}

static void wm_end(void *ctx, XmlReader *r, const XmlElem *e, const char *text, size_t len)
{
    (void)r, (void)text, (void)len;
    WmParser *w = ctx;
    if (strcmp(e->local, "inType") == 0)
        w->in = NULL;
}

bool winmeta_load(Manifest *m)
{
    WmParser w = {m, NULL, false};
    XmlHandler h = {&w, wm_start, wm_end};
    bool ok = xml_parse_recorded("<embedded>/schema/winmeta.xml", embed_winmeta_xml,
                                 embed_winmeta_xml_len, rec_winmeta_xml, rec_winmeta_xml_len,
                                 &m->arena, &h);
    return ok && !w.bad;
}
