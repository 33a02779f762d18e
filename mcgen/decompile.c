/*
 * decompile.c - --decompile: a manifest that compiles back to the
 * binaries read (a BinImage: TEMP.BIN and message tables, a .res, a PE
 * image), byte for byte, in the CRIM version they were read in.  The
 * manifest is written from what the binaries keep; what they do not keep
 * is generated deterministically (docs/decompile.md lists both):
 *
 * - kept: GUIDs, the provider's name (PRVA, CRIM 5 only), every list's
 *   names as written (QNames with their prefixes), values, the entries
 *   events and filters point at, event names and attributes (EVTA, CRIM
 *   5 only), templates (field names, types, counts, lengths, maps, the
 *   EventData name, UserData as XML), message ids and texts;
 * - generated: tids (T0, T1, ...: dump.c's names), channel chids
 *   ("chid" and the channel's index), channel types (Operational), the
 *   resource and message file names, string ids (msg_ and the message id
 *   in hex), the namespace URIs of QName prefixes (urn:mcgen:decompiled:
 *   and the prefix), a provider name where CRIM 3 keeps none (Provider
 *   and its index), the placeholder text of a message no table holds;
 * - source="Xml" on a provider whose binaries hold what only a manifest
 *   reconstructed from an installed provider compiles to (a task of value
 *   0, a win:Binary field without a length);
 * - not written: symbols (the header's names are synthesised as for any
 *   manifest without them), everything that lives only in the manifest
 *   (channel settings, notLogged, mofValue, ...).
 *
 * The message ids come back through mc's formula (check_msgid.c): the
 * elements are written in the order the binaries keep, which is the order
 * the ids were given in (map items, which the file sorts by value, go
 * back to their places by their ids).  A message is pinned by a
 * <messageTable> entry (its id explicit) when the formula would not give
 * it back: several elements share it (the order of sorted lists no longer
 * says which one gave it its id), the element's formula gives another id
 * (an explicit id in the original, a 17th provider), or no element of
 * TEMP.BIN refers to it.  `win:` items are referred to by their QNames,
 * never declared: the compile copies them as mc does.
 */
#include "mcgen.h"

#include <stdlib.h>
#include <string.h>

typedef struct Ref {
    uint32_t id;
    int uses;
    bool pin; /* an element's formula does not give it back */
} Ref;

typedef VEC(uint32_t) Ids;

typedef struct Dc {
    const BinImage *img;
    Buf *out;
    VEC(Ref) refs; /* message ids of the elements written, in id order */
    VEC(const char *) prefixes;
} Dc;

static bool is_builtin(const char *name) { return strncmp(name, "win:", 4) == 0; }

/* Counts a reference to message id (none: 0xFFFFFFFF) by an element to
 * which mc's formula gives `formula`. */
static void count_ref(Dc *dc, uint32_t id, uint32_t formula)
{
    if (id == 0xFFFFFFFF)
        return;
    size_t lo = search_u32(dc->refs.v, dc->refs.n, sizeof *dc->refs.v, 0, id);
    if (lo < dc->refs.n && dc->refs.v[lo].id == id) {
        dc->refs.v[lo].uses++;
        dc->refs.v[lo].pin |= id != formula;
        return;
    }
    Ref r = {id, 1, id != formula};
    vec_push(&dc->refs, r);
    memmove(dc->refs.v + lo + 1, dc->refs.v + lo, (dc->refs.n - 1 - lo) * sizeof r);
    dc->refs.v[lo] = r;
}

/* mc's message id of an element (message-ids.md 1). */
static uint32_t formula(uint32_t tag, size_t provider, uint32_t v)
{
    return tag << 28 | (uint32_t)(provider & 0xF) << 24 | (v & 0xFFFFFF);
}

static uint32_t bit_length(uint64_t mask)
{
    uint32_t n = 0;
    while (mask)
        n++, mask >>= 1;
    return n;
}

/* An imported built-in channel of value 8, 9 or 10 (System, Application,
 * Security): its events' messages take tag 0 (message-ids.md 3). */
static bool global_channel(const WevtItem *c)
{
    const char *wm = winmeta_channel_name((unsigned)c->value);
    return (c->flags & 1) && c->value >= 8 && c->value <= 10 && wm && strcmp(wm, c->name) == 0;
}

static void add_prefix(Dc *dc, const char *qname)
{
    const char *colon = strchr(qname, ':');
    if (!colon || is_builtin(qname))
        return;
    for (size_t i = 0; i < dc->prefixes.n; i++)
        if (strncmp(dc->prefixes.v[i], qname, (size_t)(colon - qname)) == 0 &&
            dc->prefixes.v[i][colon - qname] == ':')
            return;
    vec_push(&dc->prefixes, qname);
}

/* Whether channel c of p was added by the compile because an event named a
 * built-in channel the provider did not declare: an event uses it and no
 * event in it has its keyword bit (wevt-template.md 7.1). */
static bool channel_auto(const WevtProvider *p, size_t c)
{
    if (!(p->chan[c].flags & 1) || c >= 64)
        return false;
    bool used = false;
    for (size_t i = 0; i < p->events.n; i++) {
        const WevtEvent *e = &p->events.v[i];
        if (e->chan != (int)c)
            continue;
        used = true;
        if (e->keywords >> (63 - c) & 1)
            return false;
    }
    return used;
}

static void map_order(const WevtMap *map, uint32_t tag, size_t provider, uint32_t start,
                      const WevtMapItem **slots);

/* The messages the manifest's elements refer to, each with whether the
 * formula gives it back, and the prefixes of their QNames (a first pass,
 * before anything is written). */
static void collect(Dc *dc, const WevtProvider *p, size_t index)
{
    uint32_t counter = 1;
    if (p->message != 0xFFFFFFFF)
        count_ref(dc, p->message, formula(0x9, index, counter++));
    for (size_t i = 0; i < p->channels; i++) {
        const WevtItem *c = &p->chan[i];
        if (c->message == 0xFFFFFFFF)
            continue;
        if (c->flags & 1) /* a built-in channel's import: winmeta's text */
            counter++;
        else
            count_ref(dc, c->message, formula(0x9, index, counter++));
    }
    const WevtItem *lists[] = {p->levl, p->task, p->opco, p->keyw, p->filters};
    size_t counts[] = {p->levels, p->tasks, p->opcodes, p->keywords, p->nfilters};
    for (size_t l = 0; l < 5; l++)
        for (size_t i = 0; i < counts[l]; i++) {
            const WevtItem *it = &lists[l][i];
            if (is_builtin(it->name))
                continue;
            static const uint32_t tags[] = {0x5, 0x7, 0x3, 0x1, 0x5};
            uint32_t v = l == 2   ? (uint32_t)(it->task & 0xFF) << 16 | (uint32_t)it->value
                         : l == 3 ? bit_length(it->value)
                         : l == 4 ? 0x80u << 16 | (uint32_t)it->version << 8 | (it->value & 0xFF)
                                  : (uint32_t)it->value;
            count_ref(dc, it->message, formula(tags[l], index, v));
            add_prefix(dc, it->name);
        }
    for (size_t i = 0; i < p->events.n; i++) {
        const WevtEvent *e = &p->events.v[i];
        bool global = e->chan >= 0 && global_channel(&p->chan[e->chan]);
        count_ref(dc, e->message,
                  formula(global ? 0 : 0xB, index, (uint32_t)e->version << 16 | e->id));
    }
    uint32_t mcounter[2] = {1, 1};
    for (size_t m = 0; m < p->nmaps; m++) {
        const WevtMap *map = &p->maps[m];
        const WevtMapItem **items = xmalloc((map->n ? map->n : 1) * sizeof *items);
        map_order(map, map->bitmap ? 0xF : 0xD, index, mcounter[map->bitmap], items);
        for (size_t i = 0; i < map->n; i++)
            count_ref(dc, items[i]->message, formula(map->bitmap ? 0xF : 0xD, index,
                                                     mcounter[map->bitmap] + (uint32_t)i));
        mcounter[map->bitmap] += (uint32_t)map->n;
        free(items);
    }
}

static void attr(Dc *dc, const char *name, const char *value)
{
    buf_printf(dc->out, " %s=\"", name);
    buf_add_xml(dc->out, value, true);
    buf_addc(dc->out, '"');
}

static void attr_u(Dc *dc, const char *name, unsigned long long v)
{
    buf_printf(dc->out, " %s=\"%llu\"", name, v);
}

static void attr_msg(Dc *dc, uint32_t id)
{
    if (id != 0xFFFFFFFF)
        buf_printf(dc->out, " message=\"$(string.msg_%08X)\"", id);
}

static void attr_guid(Dc *dc, const char *name, const Guid *g)
{
    char s[39];
    guid_format(g, s);
    attr(dc, name, s);
}

static void indent(Dc *dc, int n) { buf_printf(dc->out, "%*s", 2 * n, ""); }

static void write_channels(Dc *dc, const WevtProvider *p)
{
    size_t declared = 0;
    for (size_t i = 0; i < p->channels; i++)
        declared += !channel_auto(p, i);
    if (!declared)
        return;
    indent(dc, 4);
    buf_adds(dc->out, "<channels>\n");
    for (size_t i = 0; i < p->channels; i++) {
        const WevtItem *c = &p->chan[i];
        if (channel_auto(p, i))
            continue;
        indent(dc, 5);
        bool imported = c->flags & 1;
        buf_adds(dc->out, imported ? "<importChannel" : "<channel");
        attr(dc, "name", c->name);
        buf_printf(dc->out, " chid=\"chid%zu\"", i);
        if (!imported) {
            attr(dc, "type", "Operational");
            attr_u(dc, "value", c->value);
            attr_msg(dc, c->message);
        }
        buf_adds(dc->out, "/>\n");
    }
    indent(dc, 4);
    buf_adds(dc->out, "</channels>\n");
}

/* <levels>, <keywords>, provider-level <opcodes>: the provider's own items
 * (not win:) of a sorted list. */
static void write_named(Dc *dc, const char *list, const char *item, const WevtItem *it, size_t n,
                        bool mask)
{
    size_t own = 0;
    for (size_t i = 0; i < n; i++)
        own += !is_builtin(it[i].name) && !(item[0] == 'o' && it[i].task);
    if (!own)
        return;
    indent(dc, 4);
    buf_printf(dc->out, "<%s>\n", list);
    for (size_t i = 0; i < n; i++) {
        if (is_builtin(it[i].name) || (item[0] == 'o' && it[i].task))
            continue;
        indent(dc, 5);
        buf_printf(dc->out, "<%s", item);
        attr(dc, "name", it[i].name);
        if (mask)
            buf_printf(dc->out, " mask=\"0x%016llX\"", (unsigned long long)it[i].value);
        else
            attr_u(dc, "value", it[i].value);
        attr_msg(dc, it[i].message);
        buf_adds(dc->out, "/>\n");
    }
    indent(dc, 4);
    buf_printf(dc->out, "</%s>\n", list);
}

static void write_tasks(Dc *dc, const WevtProvider *p)
{
    size_t own = 0;
    for (size_t i = 0; i < p->tasks; i++)
        own += !is_builtin(p->task[i].name);
    if (!own)
        return;
    indent(dc, 4);
    buf_adds(dc->out, "<tasks>\n");
    for (size_t i = 0; i < p->tasks; i++) {
        const WevtItem *t = &p->task[i];
        if (is_builtin(t->name))
            continue;
        indent(dc, 5);
        buf_adds(dc->out, "<task");
        attr(dc, "name", t->name);
        attr_u(dc, "value", t->value);
        if (memcmp(&t->guid, &(Guid){0}, sizeof t->guid) != 0)
            attr_guid(dc, "eventGUID", &t->guid);
        attr_msg(dc, t->message);
        size_t scoped = 0;
        for (size_t k = 0; k < p->opcodes; k++)
            scoped += p->opco[k].task && p->opco[k].task == t->value;
        if (!scoped) {
            buf_adds(dc->out, "/>\n");
            continue;
        }
        buf_adds(dc->out, ">\n");
        indent(dc, 6);
        buf_adds(dc->out, "<opcodes>\n");
        for (size_t k = 0; k < p->opcodes; k++) {
            const WevtItem *o = &p->opco[k];
            if (!o->task || o->task != t->value)
                continue;
            indent(dc, 7);
            buf_adds(dc->out, "<opcode");
            attr(dc, "name", o->name);
            attr_u(dc, "value", o->value);
            attr_msg(dc, o->message);
            buf_adds(dc->out, "/>\n");
        }
        indent(dc, 6);
        buf_adds(dc->out, "</opcodes>\n");
        indent(dc, 5);
        buf_adds(dc->out, "</task>\n");
    }
    indent(dc, 4);
    buf_adds(dc->out, "</tasks>\n");
}

/* A map's items in manifest order.  The file keeps them by value, but
 * every item took the next value of its provider's counter (one for value
 * maps, one for bitmaps, maps in manifest order: message-ids.md 2), which
 * is its message id unless its string got an id earlier (shared): an item
 * whose id is its own counter value goes back to that place, the others
 * fill the places left, in value order. */
static void map_order(const WevtMap *map, uint32_t tag, size_t provider, uint32_t start,
                      const WevtMapItem **slots)
{
    for (size_t i = 0; i < map->n; i++)
        slots[i] = NULL;
    bool *placed = xcalloc(map->n ? map->n : 1, sizeof *placed);
    for (size_t i = 0; i < map->n; i++) {
        uint32_t id = map->items[i].message, c = id & 0xFFFFFF;
        if (id >> 28 == tag && (id >> 24 & 0xF) == (provider & 0xF) && c >= start &&
            c - start < map->n && !slots[c - start]) {
            slots[c - start] = &map->items[i];
            placed[i] = true;
        }
    }
    size_t k = 0;
    for (size_t i = 0; i < map->n; i++) {
        if (placed[i])
            continue;
        while (slots[k])
            k++;
        slots[k] = &map->items[i];
    }
    free(placed);
}

static void write_maps(Dc *dc, const WevtProvider *p, size_t index)
{
    uint32_t counter[2] = {1, 1}; /* value maps, bitmaps */
    if (!p->nmaps && !p->nqueries)
        return;
    if (p->nmaps) {
        indent(dc, 4);
        buf_adds(dc->out, "<maps>\n");
    }
    for (size_t m = 0; m < p->nmaps; m++) {
        const WevtMap *map = &p->maps[m];
        const char *kind = map->bitmap ? "bitMap" : "valueMap";
        indent(dc, 5);
        buf_printf(dc->out, "<%s", kind);
        attr(dc, "name", map->name);
        buf_adds(dc->out, ">\n");
        /* the items are stored by value; their message ids count them in
         * manifest order (message-ids.md 2), which the counter needs back */
        const WevtMapItem **items = xmalloc((map->n ? map->n : 1) * sizeof *items);
        map_order(map, map->bitmap ? 0xF : 0xD, index, counter[map->bitmap], items);
        counter[map->bitmap] += (uint32_t)map->n;
        for (size_t i = 0; i < map->n; i++) {
            indent(dc, 6);
            buf_printf(dc->out, "<map value=\"0x%X\"", items[i]->value);
            attr_msg(dc, items[i]->message);
            buf_adds(dc->out, "/>\n");
        }
        free(items);
        indent(dc, 5);
        buf_printf(dc->out, "</%s>\n", kind);
    }
    if (p->nmaps) {
        indent(dc, 4);
        buf_adds(dc->out, "</maps>\n");
    }
    if (!p->nqueries)
        return;
    indent(dc, 4);
    buf_adds(dc->out, "<namedQueries>\n");
    indent(dc, 5);
    buf_adds(dc->out, "<patternMaps>\n");
    for (size_t q = 0; q < p->nqueries; q++) {
        const WevtQuery *wq = &p->queries[q];
        indent(dc, 6);
        buf_adds(dc->out, "<patternMap");
        attr(dc, "name", wq->name);
        attr(dc, "format", wq->format);
        buf_adds(dc->out, ">\n");
        for (size_t i = 0; i < wq->n; i++) {
            indent(dc, 7);
            buf_adds(dc->out, "<map");
            attr(dc, "name", wq->item_names[i]);
            attr(dc, "value", wq->item_values[i]);
            buf_adds(dc->out, "/>\n");
        }
        indent(dc, 6);
        buf_adds(dc->out, "</patternMap>\n");
    }
    indent(dc, 5);
    buf_adds(dc->out, "</patternMaps>\n");
    indent(dc, 4);
    buf_adds(dc->out, "</namedQueries>\n");
}

/* count= or length=: a number (fixed, or stored without its flag, as mc
 * keeps a win:SID's length), or the name of the field it names. */
static void write_quantity(Dc *dc, const WevtTemplate *t, const char *name, uint32_t flags,
                           uint32_t field_flag, uint16_t v)
{
    if (flags & field_flag)
        attr(dc, name, v < t->n ? t->props[v].name : "");
    else if (v)
        attr_u(dc, name, v);
}

static void write_fields(Dc *dc, const WevtProvider *p, const WevtTemplate *t, size_t first,
                         size_t n, int depth)
{
    for (size_t i = first; i < first + n && i < t->n; i++) {
        const WevtProperty *f = &t->props[i];
        indent(dc, 6 + depth);
        bool st = f->flags & 1;
        buf_adds(dc->out, st ? "<struct" : "<data");
        attr(dc, "name", f->name);
        if (!st) {
            const char *in = winmeta_type_name(true, f->in);
            attr(dc, "inType", in ? in : "");
            const char *out = winmeta_type_name(false, f->out);
            if (winmeta_default_out(f->in) != f->out)
                attr(dc, "outType", out ? out : "");
            if (f->map >= 0)
                attr(dc, "map", p->maps[f->map].name);
        }
        write_quantity(dc, t, "count", f->flags, 0x10, f->count);
        write_quantity(dc, t, "length", f->flags, 0x4, f->length);
        if (!st || depth > 0) {
            buf_adds(dc->out, "/>\n");
            continue;
        }
        buf_adds(dc->out, ">\n");
        write_fields(dc, p, t, f->first, f->members, depth + 1);
        indent(dc, 6 + depth);
        buf_adds(dc->out, "</struct>\n");
    }
}

static void write_templates(Dc *dc, const WevtProvider *p)
{
    if (!p->templates)
        return;
    indent(dc, 4);
    buf_adds(dc->out, "<templates>\n");
    for (size_t i = 0; i < p->templates; i++) {
        const WevtTemplate *t = &p->temp[i];
        indent(dc, 5);
        buf_printf(dc->out, "<template tid=\"T%zu\"", i);
        if (t->name && t->kind == 1)
            attr(dc, "name", t->name);
        if (!t->n && t->kind == 1) {
            buf_adds(dc->out, "/>\n");
            continue;
        }
        buf_adds(dc->out, ">\n");
        write_fields(dc, p, t, 0, t->ntop, 0);
        if (t->kind == 2) {
            indent(dc, 6);
            buf_printf(dc->out, "<UserData>%s</UserData>\n", t->xml);
        }
        indent(dc, 5);
        buf_adds(dc->out, "</template>\n");
    }
    indent(dc, 4);
    buf_adds(dc->out, "</templates>\n");
}

static void write_events(Dc *dc, const WevtProvider *p)
{
    if (!p->events.n)
        return;
    indent(dc, 4);
    buf_adds(dc->out, "<events>\n");
    for (size_t i = 0; i < p->events.n; i++) {
        const WevtEvent *e = &p->events.v[i];
        indent(dc, 5);
        buf_adds(dc->out, "<event");
        attr_u(dc, "value", e->id);
        attr_u(dc, "version", e->version);
        if (e->name)
            attr(dc, "name", e->name);
        if (e->chan >= 0) {
            if (channel_auto(p, (size_t)e->chan))
                attr(dc, "channel", p->chan[e->chan].name);
            else
                buf_printf(dc->out, " channel=\"chid%d\"", e->chan);
        }
        if (e->levl >= 0)
            attr(dc, "level", p->levl[e->levl].name);
        if (e->tsk >= 0)
            attr(dc, "task", p->task[e->tsk].name);
        if (e->opco >= 0)
            attr(dc, "opcode", p->opco[e->opco].name);
        if (e->nkeyw) {
            Buf k = {0};
            for (size_t j = 0; j < e->nkeyw; j++)
                buf_printf(&k, "%s%s", j ? " " : "", p->keyw[e->keyw[j]].name);
            attr(dc, "keywords", k.s);
            buf_free(&k);
        }
        if (e->tmpl >= 0)
            buf_printf(dc->out, " template=\"T%d\"", e->tmpl);
        attr_msg(dc, e->message);
        if (e->nattrs) {
            Buf a = {0};
            for (size_t j = 0; j < e->nattrs; j++)
                buf_printf(&a, "%s%s", j ? ";" : "", e->attrs[j]);
            attr(dc, "attributes", a.s);
            buf_free(&a);
        }
        buf_adds(dc->out, "/>\n");
    }
    indent(dc, 4);
    buf_adds(dc->out, "</events>\n");
}

static void write_filters(Dc *dc, const WevtProvider *p)
{
    if (!p->nfilters)
        return;
    indent(dc, 4);
    buf_adds(dc->out, "<filters>\n");
    for (size_t i = 0; i < p->nfilters; i++) {
        const WevtItem *f = &p->filters[i];
        indent(dc, 5);
        buf_adds(dc->out, "<filter");
        attr(dc, "name", f->name);
        attr_u(dc, "value", f->value);
        attr_u(dc, "version", f->version);
        if (f->tmpl >= 0)
            buf_printf(dc->out, " tid=\"T%d\"", f->tmpl);
        attr_msg(dc, f->message);
        buf_adds(dc->out, "/>\n");
    }
    indent(dc, 4);
    buf_adds(dc->out, "</filters>\n");
}

/* Whether the binaries hold what only a manifest reconstructed from an
 * installed provider compiles to (a task of value 0, a win:Binary field
 * without a length: rules the check skips for a provider with source=,
 * read_man.c's provider_decompiled): the manifest's provider then says
 * source="Xml" too. */
static bool needs_source(const WevtProvider *p)
{
    for (size_t i = 0; i < p->tasks; i++)
        if (p->task[i].value == 0 && !is_builtin(p->task[i].name))
            return true;
    for (size_t t = 0; t < p->templates; t++)
        for (size_t i = 0; i < p->temp[t].n; i++) {
            const WevtProperty *f = &p->temp[t].props[i];
            if (!(f->flags & 1) && f->in == 14 && !(f->flags & 6) && !f->length)
                return true;
        }
    return false;
}

static void write_provider(Dc *dc, const WevtProvider *p, size_t index, const char *file)
{
    indent(dc, 3);
    buf_adds(dc->out, "<provider");
    if (p->name)
        attr(dc, "name", p->name);
    else
        buf_printf(dc->out, " name=\"Provider%zu\"", index);
    /* the header's symbol: the name made an identifier, as mc makes one,
     * and the provider's index after it, so no two clash */
    Arena a = {0};
    buf_printf(dc->out, " symbol=\"%s_%zu\"",
               p->name ? header_ident(&a, p->name) : "Provider", index);
    arena_free(&a);
    attr_guid(dc, "guid", &p->guid);
    attr(dc, "resourceFileName", file);
    attr(dc, "messageFileName", file);
    if (p->has_control)
        attr_guid(dc, "controlGuid", &p->control);
    attr_msg(dc, p->message);
    if (needs_source(p))
        attr(dc, "source", "Xml");
    buf_adds(dc->out, ">\n");
    if (p->has_group) {
        indent(dc, 4);
        buf_adds(dc->out, "<traits");
        attr_guid(dc, "groupGuid", &p->group);
        buf_adds(dc->out, "/>\n");
    }
    write_channels(dc, p);
    write_named(dc, "levels", "level", p->levl, p->levels, false);
    write_tasks(dc, p);
    write_named(dc, "opcodes", "opcode", p->opco, p->opcodes, false);
    write_named(dc, "keywords", "keyword", p->keyw, p->keywords, true);
    write_maps(dc, p, index);
    write_templates(dc, p);
    write_events(dc, p);
    write_filters(dc, p);
    indent(dc, 3);
    buf_adds(dc->out, "</provider>\n");
}

/* Whether message id is referred to by an element written. */
static const Ref *ref_of(const Dc *dc, uint32_t id)
{
    size_t i = search_u32(dc->refs.v, dc->refs.n, sizeof *dc->refs.v, 0, id);
    return i < dc->refs.n && dc->refs.v[i].id == id ? &dc->refs.v[i] : NULL;
}

/* Every message of the tables, once, in id order: the referred ones and
 * those of no element (a sorted merge of the tables' ids). */
static void all_ids(const Dc *dc, Ids *ids)
{
    for (size_t i = 0; i < dc->refs.n; i++)
        vec_push(ids, dc->refs.v[i].id);
    for (size_t t = 0; t < dc->img->tables.n; t++) {
        const MsgTable *mt = &dc->img->tables.v[t].table;
        for (size_t k = 0; k < mt->entries.n; k++)
            vec_push(ids, mt->entries.v[k].id);
    }
    sort_stable_u32(ids->v, ids->n, sizeof *ids->v, 0);
    size_t w = 0;
    for (size_t i = 0; i < ids->n; i++)
        if (!w || ids->v[w - 1] != ids->v[i])
            ids->v[w++] = ids->v[i];
    ids->n = w;
}

/* Whether the message is one the compile writes itself: a built-in
 * item's (winmeta's text, winmeta's id) or an imported built-in
 * channel's. */
static bool builtin_message(const Dc *dc, uint32_t id)
{
    if (ref_of(dc, id))
        return false;
    const WevtFile *f = &dc->img->wevt;
    for (size_t i = 0; dc->img->has_wevt && i < f->providers.n; i++) {
        const WevtProvider *p = &f->providers.v[i];
        for (size_t c = 0; c < p->channels; c++)
            if ((p->chan[c].flags & 1) && p->chan[c].message == id)
                return true;
        const WevtItem *lists[] = {p->levl, p->task, p->opco, p->keyw};
        size_t counts[] = {p->levels, p->tasks, p->opcodes, p->keywords};
        for (size_t l = 0; l < 4; l++)
            for (size_t k = 0; k < counts[l]; k++)
                if (is_builtin(lists[l][k].name) && lists[l][k].message == id)
                    return true;
    }
    return false;
}

bool decompile_write(const BinImage *img, const char *file, Buf *out, Buf *err)
{
    size_t bare = 0;
    for (size_t i = 0; i < img->tables.n; i++)
        bare += img->tables.v[i].lang == 0;
    for (size_t i = 0; i < img->tables.n; i++)
        if (strcmp(bin_culture(img, &img->tables.v[i]), "unknown") == 0) {
            buf_printf(err, "%s: the language of this message table is not known%s",
                       img->tables.v[i].from,
                       bare > 1 ? " (several bare MSG*.bin: give the .res or the module that "
                                  "holds them, whose resources carry their languages)"
                                : "");
            return false;
        }
    Dc dc = {img, out, {0}, {0}};
    const WevtFile *f = &img->wevt;
    for (size_t i = 0; img->has_wevt && i < f->providers.n; i++)
        collect(&dc, &f->providers.v[i], i);
    buf_adds(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                  "<!-- decompiled by mcgen from compiled binaries: names they do not keep are "
                  "generated (docs/decompile.md) -->\n"
                  "<instrumentationManifest"
                  " xmlns=\"http://schemas.microsoft.com/win/2004/08/events\"\n"
                  "    xmlns:win=\"http://manifests.microsoft.com/win/2004/08/windows/events\"\n"
                  "    xmlns:xs=\"http://www.w3.org/2001/XMLSchema\"");
    for (size_t i = 0; i < dc.prefixes.n; i++) {
        size_t n = strcspn(dc.prefixes.v[i], ":");
        buf_printf(out, "\n    xmlns:%.*s=\"urn:mcgen:decompiled:%.*s\"", (int)n,
                   dc.prefixes.v[i], (int)n, dc.prefixes.v[i]);
    }
    buf_adds(out, ">\n  <instrumentation>\n    <events>\n");
    for (size_t i = 0; img->has_wevt && i < f->providers.n; i++)
        write_provider(&dc, &f->providers.v[i], i, file);
    /* ids the formula cannot give back: shared by several elements, or
     * of no element */
    Ids ids = {0};
    all_ids(&dc, &ids);
    bool table = false;
    for (size_t i = 0; i < ids.n; i++) {
        const Ref *r = ref_of(&dc, ids.v[i]);
        if ((r && r->uses < 2 && !r->pin) || (!r && builtin_message(&dc, ids.v[i])))
            continue;
        if (!table)
            buf_adds(out, "      <messageTable>\n");
        table = true;
        buf_printf(out, "        <message value=\"0x%08X\" message=\"$(string.msg_%08X)\"/>\n",
                   ids.v[i], ids.v[i]);
    }
    if (table)
        buf_adds(out, "      </messageTable>\n");
    buf_adds(out, "    </events>\n  </instrumentation>\n");
    /* the texts: a string table per culture; without tables, each message
     * a placeholder naming its id */
    size_t ntables = img->tables.n ? img->tables.n : 1;
    bool any = false;
    Buf scratch = {0};
    /* the cultures' order is the tables' numbering (MSG00001, ...), which
     * a module does not keep; but rc gives WEVT_TEMPLATE the language of
     * the .rc's last LANGUAGE line, the last culture's: that table goes
     * last, the others in the order read */
    size_t *order = xmalloc(ntables * sizeof *order), k = 0;
    for (int last = 0; last < 2; last++)
        for (size_t t = 0; t < img->tables.n; t++)
            if ((img->tables.v[t].lang && img->tables.v[t].lang == img->wevt_lang) == last)
                order[k++] = t;
    for (size_t t = 0; t < ntables; t++) {
        const BinTable *bt = img->tables.n ? &img->tables.v[order[t]] : NULL;
        bool open = false;
        for (size_t i = 0; i < ids.n; i++) {
            if (!ref_of(&dc, ids.v[i]) && builtin_message(&dc, ids.v[i]))
                continue;
            const char *text = bt ? bin_message_text(bt, ids.v[i], &scratch) : NULL;
            if (bt && !text)
                continue;
            if (!any)
                buf_adds(out, "  <localization>\n");
            any = true;
            if (!open)
                buf_printf(out, "    <resources culture=\"%s\">\n      <stringTable>\n",
                           bt ? bin_culture(img, bt) : "en-US");
            open = true;
            buf_printf(out, "        <string id=\"msg_%08X\" value=\"", ids.v[i]);
            if (text)
                buf_add_xml(out, text, true);
            else
                buf_printf(out, "(message 0x%08X)", ids.v[i]);
            buf_adds(out, "\"/>\n");
        }
        if (open)
            buf_adds(out, "      </stringTable>\n    </resources>\n");
    }
    if (any)
        buf_adds(out, "  </localization>\n");
    buf_adds(out, "</instrumentationManifest>\n");
    buf_free(&scratch);
    free(order);
    vec_free(&ids);
    vec_free(&dc.refs);
    vec_free(&dc.prefixes);
    return true;
}
