/*
 * dump.c - --dump: what compiled binaries declare (a BinImage: the
 * WEVT_TEMPLATE resource and the message tables, read.c's binary rows),
 * as a readable listing or, with --dump-format=json, as JSON in the JSON
 * model's vocabulary (docs/json-model.md; the shape is in docs/mcgen.1's
 * --dump).  One walk of the image writes both: each value goes through a
 * DumpW, which writes it as JSON (jsonw) or as an indented "key: value"
 * line, so the two cannot list different things.
 *
 * What the binaries do not keep is not invented here but named as the
 * decompiler names it: a template's tid ("T" and its index in the
 * provider's list).  A message is its id and, for every table that holds
 * it, its text without the "\r\n" mc appends (msgtable.md 2).
 */
#include "mcgen.h"
#include "jsonw.h"

#include <stdlib.h>
#include <string.h>

typedef struct DumpW {
    JsonW *json; /* NULL: text */
    Buf *out;
    int depth;
    bool pending_dash;    /* a list item's object: its first key takes "- " */
    const char *list_key; /* text: a list's key, written with its first item */
    int list_depth;
    bool in_list[64];
} DumpW;

static void dw_indent(DumpW *d, const char *key)
{
    if (d->list_key) { /* an empty list is not listed */
        const char *k = d->list_key;
        int depth = d->depth;
        bool dash = d->pending_dash;
        d->list_key = NULL;
        d->depth = d->list_depth;
        d->pending_dash = false;
        dw_indent(d, k);
        buf_addc(d->out, '\n');
        d->depth = depth;
        d->pending_dash = dash;
    }
    int n = 2 * (d->depth - 1);
    if (d->pending_dash) {
        buf_printf(d->out, "%*s- ", n > 2 ? n - 2 : 0, "");
        d->pending_dash = false;
    } else {
        buf_printf(d->out, "%*s", n > 0 ? n : 0, "");
    }
    if (key)
        buf_printf(d->out, "%s:", key);
    else
        buf_adds(d->out, "-");
}

/* A string as it is when plain, JSON-quoted when it would not read back
 * (empty, white space at an end, a line break, a quote, ": "). */
static void text_str(Buf *b, const char *s)
{
    size_t n = strlen(s);
    bool plain = n && s[0] != ' ' && s[n - 1] != ' ' && s[0] != '"' && s[0] != '-' &&
                 !strstr(s, ": ") && !strpbrk(s, "\r\n\t");
    if (plain) {
        buf_adds(b, s);
        return;
    }
    JsonW w;
    jsonw_init(&w, b, 0);
    jsonw_str(&w, s);
}

static void dw_begin(DumpW *d, const char *key, bool list)
{
    if (d->json) {
        if (key)
            jsonw_key(d->json, key);
        list ? jsonw_begin_list(d->json) : jsonw_begin_object(d->json);
    } else if (d->depth > 0 && list) {
        d->list_key = key;
        d->list_depth = d->depth;
    } else if (d->depth > 0 && key) {
        dw_indent(d, key);
        buf_addc(d->out, '\n');
    } else if (d->depth > 0 && d->in_list[d->depth]) {
        d->pending_dash = true;
    }
    d->depth++;
    d->in_list[d->depth] = list;
}

static void dw_end(DumpW *d, bool list)
{
    if (d->json)
        list ? jsonw_end_list(d->json) : jsonw_end_object(d->json);
    if (list && d->list_depth == d->depth - 1)
        d->list_key = NULL;
    d->pending_dash = false;
    d->depth--;
}

static void dw_str(DumpW *d, const char *key, const char *v)
{
    if (d->json) {
        if (key)
            jsonw_key(d->json, key);
        jsonw_str(d->json, v);
        return;
    }
    if (!v)
        return; /* text lists what is there */
    dw_indent(d, key);
    buf_addc(d->out, ' ');
    text_str(d->out, v);
    buf_addc(d->out, '\n');
}

static void dw_uint(DumpW *d, const char *key, uint64_t v)
{
    if (d->json) {
        jsonw_key(d->json, key);
        jsonw_uint(d->json, v);
        return;
    }
    dw_indent(d, key);
    buf_printf(d->out, " %llu\n", (unsigned long long)v);
}

static void dw_bool(DumpW *d, const char *key, bool v)
{
    if (d->json) {
        jsonw_key(d->json, key);
        jsonw_bool(d->json, v);
    } else if (v) {
        dw_indent(d, key);
        buf_adds(d->out, " true\n");
    }
}

static void dw_null(DumpW *d, const char *key)
{
    if (d->json) {
        jsonw_key(d->json, key);
        jsonw_null(d->json);
    }
}

static void dw_guid(DumpW *d, const char *key, const Guid *g)
{
    char s[39];
    guid_format(g, s);
    dw_str(d, key, s);
}

static void dw_mask(DumpW *d, const char *key, uint64_t v)
{
    char s[19];
    jsonw_hex64(s, v);
    dw_str(d, key, s);
}

void bin_tid(Buf *b, size_t index) { buf_printf(b, "T%zu", index); }

/* The text of message `id` in table t (without mc's "\r\n"), or NULL. */
const char *bin_message_text(const BinTable *t, uint32_t id, Buf *scratch)
{
    const MsgTableEntry *e = t->table.entries.v;
    size_t n = t->table.entries.n, i = search_u32(e, n, sizeof *e, 0, id);
    if (i == n || e[i].id != id)
        return NULL;
    size_t len = strlen(e[i].text);
    if (len >= 2 && e[i].text[len - 2] == '\r' && e[i].text[len - 1] == '\n')
        len -= 2;
    buf_reset(scratch);
    buf_add(scratch, e[i].text, len);
    return scratch->s ? scratch->s : "";
}

const char *bin_culture(const BinImage *img, const BinTable *t)
{
    if (t->lang) {
        const char *c = culture_name(t->lang);
        return c ? c : "unknown";
    }
    /* a bare MSG*.bin says nothing of its language: en-US when it is the
     * only one */
    size_t bare = 0;
    for (size_t i = 0; i < img->tables.n; i++)
        bare += img->tables.v[i].lang == 0;
    return bare == 1 ? "en-US" : "unknown";
}

static void dw_message(DumpW *d, const BinImage *img, const char *key, uint32_t id)
{
    if (id == 0xFFFFFFFF) {
        dw_null(d, key);
        return;
    }
    Buf scratch = {0};
    if (!d->json) {
        /* text: "message: 0x90000001 text", a line per culture when
         * there are several tables */
        dw_indent(d, key);
        buf_printf(d->out, " 0x%08X", id);
        for (size_t i = 0; i < img->tables.n; i++) {
            const char *text = bin_message_text(&img->tables.v[i], id, &scratch);
            if (!text)
                continue;
            if (img->tables.n > 1)
                buf_printf(d->out, "\n%*s%s:", 2 * d->depth, "",
                           bin_culture(img, &img->tables.v[i]));
            buf_addc(d->out, ' ');
            text_str(d->out, text);
        }
        buf_addc(d->out, '\n');
        buf_free(&scratch);
        return;
    }
    dw_begin(d, key, false);
    dw_uint(d, "messageId", id);
    bool any = false;
    for (size_t i = 0; i < img->tables.n; i++) {
        const char *text = bin_message_text(&img->tables.v[i], id, &scratch);
        if (!text)
            continue;
        if (!any)
            dw_begin(d, "text", false);
        any = true;
        dw_str(d, bin_culture(img, &img->tables.v[i]), text);
    }
    if (any)
        dw_end(d, false);
    buf_free(&scratch);
    dw_end(d, false);
}

static void dw_items(DumpW *d, const BinImage *img, const char *key, const WevtItem *it, size_t n,
                     char kind)
{
    dw_begin(d, key, true);
    for (size_t i = 0; i < n; i++) {
        dw_begin(d, NULL, false);
        dw_str(d, "name", it[i].name);
        if (kind == 'C') {
            dw_uint(d, "index", i);
            dw_uint(d, "value", it[i].value);
            dw_bool(d, "imported", it[i].flags & 1);
        } else if (kind == 'K') {
            dw_mask(d, "mask", it[i].value);
        } else {
            dw_uint(d, "value", it[i].value);
        }
        if (kind == 'O')
            dw_uint(d, "task", it[i].task);
        if (kind == 'T' && memcmp(&it[i].guid, &(Guid){0}, sizeof(Guid)) != 0)
            dw_guid(d, "eventGuid", &it[i].guid);
        if (kind == 'F') {
            dw_uint(d, "version", it[i].version);
            Buf tid = {0};
            if (it[i].tmpl >= 0)
                bin_tid(&tid, (size_t)it[i].tmpl);
            dw_str(d, "template", it[i].tmpl >= 0 ? tid.s : NULL);
            buf_free(&tid);
        }
        if (kind != 'C' && kind != 'F')
            dw_bool(d, "builtin", strncmp(it[i].name, "win:", 4) == 0);
        dw_message(d, img, "message", it[i].message);
        dw_end(d, false);
    }
    dw_end(d, true);
}

static void dw_quantity(DumpW *d, const char *key, const WevtTemplate *t, uint32_t flags,
                        uint32_t fixed_flag, uint32_t field_flag, uint16_t v)
{
    if (flags & field_flag) {
        dw_begin(d, key, false);
        dw_str(d, "field", v < t->n ? t->props[v].name : NULL);
        dw_uint(d, "index", v);
        dw_end(d, false);
    } else if (flags & fixed_flag) {
        dw_begin(d, key, false);
        dw_uint(d, "fixed", v);
        dw_end(d, false);
    } else if (v) {
        /* stored without its flag: mc keeps a win:SID's length= so */
        dw_begin(d, key, false);
        dw_uint(d, "fixed", v);
        dw_bool(d, "ignored", true);
        dw_end(d, false);
    } else {
        dw_null(d, key);
    }
}

static void dw_fields(DumpW *d, const WevtProvider *p, const WevtTemplate *t, size_t first,
                      size_t n, int depth)
{
    dw_begin(d, depth ? "members" : "fields", true);
    for (size_t i = first; i < first + n && i < t->n; i++) {
        const WevtProperty *f = &t->props[i];
        bool st = f->flags & 1;
        if (!d->json) {
            /* text: "- name: win:UInt32 (xs:unsignedInt), count 2, map M" */
            dw_indent(d, NULL);
            buf_printf(d->out, " %s: ", f->name);
            if (st) {
                buf_adds(d->out, "struct");
            } else {
                const char *in = winmeta_type_name(true, f->in);
                const char *out = winmeta_type_name(false, f->out);
                in ? buf_adds(d->out, in) : buf_printf(d->out, "inType %u", f->in);
                out ? buf_printf(d->out, " (%s)", out)
                    : buf_printf(d->out, " (outType %u)", f->out);
            }
            static const char *qn[2] = {"count", "length"};
            uint32_t fixed[2] = {0x8, 0x2}, field[2] = {0x10, 0x4};
            uint16_t qv[2] = {f->count, f->length};
            for (int q = 0; q < 2; q++)
                if (f->flags & field[q])
                    buf_printf(d->out, ", %s %s", qn[q],
                               qv[q] < t->n ? t->props[qv[q]].name : "?");
                else if ((f->flags & fixed[q]) || qv[q])
                    buf_printf(d->out, ", %s %u%s", qn[q], qv[q],
                               f->flags & fixed[q] ? "" : " (ignored)");
            if (!st && f->map >= 0)
                buf_printf(d->out, ", map %s", p->maps[f->map].name);
            buf_addc(d->out, '\n');
            if (st && depth < 1) {
                d->depth++;
                dw_fields(d, p, t, f->first, f->members, depth + 1);
                d->depth--;
            }
            continue;
        }
        dw_begin(d, NULL, false);
        dw_str(d, "name", f->name);
        dw_str(d, "kind", st ? "struct" : "data");
        dw_uint(d, "index", i - first);
        if (!st) {
            dw_str(d, "inType", winmeta_type_name(true, f->in));
            dw_uint(d, "inTypeValue", f->in);
            dw_str(d, "outType", winmeta_type_name(false, f->out));
            dw_uint(d, "outTypeValue", f->out);
            dw_str(d, "map", f->map >= 0 ? p->maps[f->map].name : NULL);
        }
        dw_quantity(d, "count", t, f->flags, 0x8, 0x10, f->count);
        dw_quantity(d, "length", t, f->flags, 0x2, 0x4, f->length);
        /* members nest once: mc's structs hold data only */
        if (st && depth < 1)
            dw_fields(d, p, t, f->first, f->members, depth + 1);
        dw_end(d, false);
    }
    dw_end(d, true);
}

/* The entry of list `items` at index i as {name, value}, or null. */
static void dw_ref(DumpW *d, const char *key, const WevtItem *items, int i, bool chan)
{
    if (i < 0) {
        dw_null(d, key);
        return;
    }
    if (!d->json) { /* "level: win:Error (2)" */
        dw_indent(d, key);
        buf_printf(d->out, " %s (%s%llu)\n", items[i].name, chan ? "value " : "",
                   (unsigned long long)items[i].value);
        return;
    }
    dw_begin(d, key, false);
    dw_str(d, "name", items[i].name);
    if (chan)
        dw_uint(d, "index", (uint64_t)i);
    dw_uint(d, "value", items[i].value);
    dw_end(d, false);
}

static void dw_event(DumpW *d, const BinImage *img, const WevtProvider *p, const WevtEvent *e)
{
    dw_begin(d, NULL, false);
    dw_uint(d, "value", e->id);
    dw_uint(d, "version", e->version);
    dw_str(d, "name", e->name);
    dw_ref(d, "channel", p->chan, e->chan, true);
    dw_ref(d, "level", p->levl, e->levl, false);
    dw_ref(d, "task", p->task, e->tsk, false);
    dw_ref(d, "opcode", p->opco, e->opco, false);
    if (!d->json && e->nkeyw) { /* "keywords: K1, K2" */
        dw_indent(d, "keywords");
        for (size_t k = 0; k < e->nkeyw; k++)
            buf_printf(d->out, "%s%s", k ? ", " : " ", p->keyw[e->keyw[k]].name);
        buf_addc(d->out, '\n');
    }
    dw_begin(d, "keywords", true);
    for (size_t k = 0; k < e->nkeyw && d->json; k++) {
        dw_begin(d, NULL, false);
        dw_str(d, "name", p->keyw[e->keyw[k]].name);
        dw_mask(d, "mask", p->keyw[e->keyw[k]].value);
        dw_end(d, false);
    }
    dw_end(d, true);
    /* as stored: with the channel's bit (wevt-template.md 7.1) */
    dw_mask(d, "keywordMask", e->keywords);
    Buf tid = {0};
    if (e->tmpl >= 0)
        bin_tid(&tid, (size_t)e->tmpl);
    dw_str(d, "template", e->tmpl >= 0 ? tid.s : NULL);
    buf_free(&tid);
    dw_message(d, img, "message", e->message);
    if (e->nattrs) {
        dw_begin(d, "attributes", false);
        for (size_t a = 0; a < e->nattrs; a++) {
            char *k = xstrdup(e->attrs[a]);
            size_t kn = strcspn(k, "=");
            const char *v = k[kn] ? e->attrs[a] + kn + 1 : "";
            k[kn] = '\0';
            dw_str(d, k, v);
            free(k);
        }
        dw_end(d, false);
    } else {
        dw_null(d, "attributes");
    }
    dw_end(d, false);
}

static void dw_provider(DumpW *d, const BinImage *img, const WevtProvider *p, size_t index)
{
    dw_begin(d, NULL, false);
    dw_uint(d, "index", index);
    dw_str(d, "name", p->name);
    dw_guid(d, "guid", &p->guid);
    if (p->has_control)
        dw_guid(d, "controlGuid", &p->control);
    else
        dw_null(d, "controlGuid");
    if (p->has_group) {
        dw_begin(d, "traits", false);
        dw_guid(d, "groupGuid", &p->group);
        dw_end(d, false);
    } else {
        dw_null(d, "traits");
    }
    dw_message(d, img, "message", p->message);
    dw_items(d, img, "channels", p->chan, p->channels, 'C');
    dw_items(d, img, "levels", p->levl, p->levels, 'L');
    dw_items(d, img, "tasks", p->task, p->tasks, 'T');
    dw_items(d, img, "opcodes", p->opco, p->opcodes, 'O');
    dw_items(d, img, "keywords", p->keyw, p->keywords, 'K');
    dw_begin(d, "maps", true);
    for (size_t i = 0; i < p->nmaps; i++) {
        const WevtMap *m = &p->maps[i];
        dw_begin(d, NULL, false);
        dw_str(d, "kind", m->bitmap ? "bitMap" : "valueMap");
        dw_str(d, "name", m->name);
        dw_begin(d, "items", true);
        for (size_t k = 0; k < m->n; k++) {
            dw_begin(d, NULL, false);
            dw_uint(d, "value", m->items[k].value);
            dw_message(d, img, "message", m->items[k].message);
            dw_end(d, false);
        }
        dw_end(d, true);
        dw_end(d, false);
    }
    for (size_t i = 0; i < p->nqueries; i++) {
        const WevtQuery *q = &p->queries[i];
        dw_begin(d, NULL, false);
        dw_str(d, "kind", "patternMap");
        dw_str(d, "name", q->name);
        dw_str(d, "format", q->format);
        dw_begin(d, "items", true);
        for (size_t k = 0; k < q->n; k++) {
            dw_begin(d, NULL, false);
            dw_str(d, "name", q->item_names[k]);
            dw_str(d, "value", q->item_values[k]);
            dw_end(d, false);
        }
        dw_end(d, true);
        dw_end(d, false);
    }
    dw_end(d, true);
    dw_begin(d, "templates", true);
    for (size_t i = 0; i < p->templates; i++) {
        const WevtTemplate *t = &p->temp[i];
        dw_begin(d, NULL, false);
        Buf tid = {0};
        bin_tid(&tid, i);
        dw_str(d, "tid", tid.s);
        buf_free(&tid);
        dw_str(d, "name", t->name);
        dw_fields(d, p, t, 0, t->ntop, 0);
        dw_str(d, "userData", t->kind == 2 ? t->xml : NULL);
        dw_end(d, false);
    }
    dw_end(d, true);
    dw_begin(d, "events", true);
    for (size_t i = 0; i < p->events.n; i++)
        dw_event(d, img, p, &p->events.v[i]);
    dw_end(d, true);
    dw_items(d, img, "filters", p->filters, p->nfilters, 'F');
    dw_end(d, false);
}

void dump_write(const BinImage *img, bool json, Buf *out)
{
    JsonW w;
    if (json)
        jsonw_init(&w, out, 0);
    DumpW d = {json ? &w : NULL, out, 0, false, NULL, 0, {false}};
    dw_begin(&d, NULL, false);
    dw_uint(&d, "mcgenJsonVersion", 1);
    if (img->has_wevt) {
        dw_begin(&d, "wevt", false);
        dw_str(&d, "file", img->wevt_from);
        char v[16];
        snprintf(v, sizeof v, "%u.%u", img->wevt.major, img->wevt.minor);
        dw_str(&d, "crimVersion", v);
        dw_end(&d, false);
    } else {
        dw_null(&d, "wevt");
    }
    dw_begin(&d, "providers", true);
    for (size_t i = 0; img->has_wevt && i < img->wevt.providers.n; i++)
        dw_provider(&d, img, &img->wevt.providers.v[i], i);
    dw_end(&d, true);
    dw_begin(&d, "messageTables", true);
    for (size_t i = 0; i < img->tables.n; i++) {
        const BinTable *t = &img->tables.v[i];
        dw_begin(&d, NULL, false);
        dw_str(&d, "file", t->from);
        dw_uint(&d, "language", t->lang);
        dw_str(&d, "culture", bin_culture(img, t));
        dw_begin(&d, "messages", true);
        for (size_t k = 0; k < t->table.entries.n; k++) {
            const MsgTableEntry *e = &t->table.entries.v[k];
            if (!json) { /* text: - 0x90000001 "Provider\r\n" (ANSI) */
                dw_indent(&d, NULL);
                buf_printf(out, " 0x%08X ", e->id);
                JsonW q;
                jsonw_init(&q, out, 0);
                jsonw_str(&q, e->text);
                buf_adds(out, e->kind == MSGTEXT_UTF16 ? "\n"
                              : e->kind == MSGTEXT_UTF8 ? " (UTF-8)\n" : " (ANSI)\n");
                continue;
            }
            dw_begin(&d, NULL, false);
            dw_uint(&d, "messageId", e->id);
            dw_str(&d, "text", e->text);
            dw_str(&d, "encoding", e->kind == MSGTEXT_UTF16 ? "utf-16"
                                   : e->kind == MSGTEXT_UTF8 ? "utf-8" : "ansi");
            dw_end(&d, false);
        }
        dw_end(&d, true);
        dw_end(&d, false);
    }
    dw_end(&d, true);
    dw_end(&d, false);
    if (json)
        buf_addc(out, '\n');
}
