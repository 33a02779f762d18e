/*
 * emit_json.c - the model as the document docs/json-model.md describes, walked
 * once for both of its readers: --json's text and the values user templates
 * see (emit_render.c builds them from the same walk).  The walk calls a
 * ModelSink (mcgen.h); the text sink here writes through the program's
 * JSON writer (jsonw.h).  Deterministic: keys in a fixed order, objects in
 * manifest order, numbers in decimal, 64-bit masks as "0x%016llx" strings
 * (JSON numbers lose precision past 2^53), no host data, no white space
 * but the final newline (a 50 MB manifest gives a large model; pipe it
 * through a pretty-printer to read it).  The text goes to the output in
 * 64 KiB pieces as it is made (see "--json").
 */
#include "mcgen.h"

#include <stdlib.h>
#include <string.h>

/* ---- the walk ----
 * W carries the sink and the manifest (message texts are keyed by culture
 * name).  The helpers below are the only callers of the sink. */

typedef struct W {
    ModelSink *s;
    const Manifest *m;
} W;

static void key(W *w, const char *k) { w->s->key(w->s, k); }

static void obj_begin(W *w, const char *k)
{
    if (k)
        key(w, k);
    w->s->begin(w->s, false);
}

static void obj_end(W *w) { w->s->end(w->s, false); }

static void arr_begin(W *w, const char *k)
{
    key(w, k);
    w->s->begin(w->s, true);
}

static void arr_end(W *w) { w->s->end(w->s, true); }

static void knull(W *w, const char *k)
{
    key(w, k);
    w->s->null(w->s);
}

static void kstr(W *w, const char *k, const char *v)
{
    key(w, k);
    if (v)
        w->s->str(w->s, v);
    else
        w->s->null(w->s);
}

static void knum(W *w, const char *k, uint64_t v)
{
    key(w, k);
    w->s->uint(w->s, v);
}

static void kbool(W *w, const char *k, bool v)
{
    key(w, k);
    w->s->boolean(w->s, v);
}

static void kmask(W *w, const char *k, uint64_t v)
{
    static const char hex[] = "0123456789abcdef";
    char tmp[19] = {'0', 'x'};
    for (int i = 0; i < 16; i++)
        tmp[2 + i] = hex[(v >> (60 - 4 * i)) & 15];
    kstr(w, k, tmp);
}

static void kguid(W *w, const char *k, const Guid *g, bool has)
{
    if (!has) {
        knull(w, k);
        return;
    }
    char tmp[39];
    guid_format(g, tmp);
    kstr(w, k, tmp);
}

static void kloc(W *w, Loc loc)
{
    arr_begin(w, "loc");
    w->s->uint(w->s, loc.line);
    w->s->uint(w->s, loc.col);
    arr_end(w);
}

/* "message": {"id": ..., "text": {"culture": text, ...}} */
static void kmsg(W *w, const char *k, const MsgRef *r, const char *builtin,
                 const char *builtin_id)
{
    if (builtin) {
        obj_begin(w, k);
        kstr(w, "id", builtin_id);
        if (r->has_msgid)
            knum(w, "messageId", r->msgid);
        kbool(w, "builtin", true);
        obj_begin(w, "text");
        kstr(w, "neutral", builtin);
        obj_end(w);
        obj_end(w);
        return;
    }
    if (!r->id) {
        knull(w, k);
        return;
    }
    obj_begin(w, k);
    kstr(w, "id", r->id);
    if (r->has_msgid)
        knum(w, "messageId", r->msgid);
    obj_begin(w, "text");
    for (size_t i = 0; r->text && i < w->m->cultures.n; i++)
        if (r->text[i])
            kstr(w, w->m->cultures.v[i]->name, r->text[i]->value);
    obj_end(w);
    obj_end(w);
}

static void named_fields(W *w, const Named *n)
{
    kstr(w, "name", n->display);
    kstr(w, "symbol", n->symbol);
    kbool(w, "builtin", n->builtin);
    kmsg(w, "message", &n->msg, n->builtin_msg, n->builtin_msgid);
}

static const char *chan_type(ChannelType t)
{
    static const char *n[] = {"Admin", "Operational", "Analytic", "Debug", NULL};
    return n[t];
}

static const char *isolation(Isolation i)
{
    static const char *n[] = {NULL, "Application", "System", "Custom"};
    return n[i];
}

static void channel(W *w, const Channel *c)
{
    obj_begin(w, NULL);
    kstr(w, "name", c->name);
    kstr(w, "chid", c->chid);
    kstr(w, "symbol", c->symbol);
    knum(w, "index", c->index);
    kstr(w, "type", chan_type(c->type));
    knum(w, "value", c->value);
    kbool(w, "valueAssigned", !c->has_value && !c->imported);
    if (c->has_enabled)
        kbool(w, "enabled", c->enabled);
    else
        knull(w, "enabled");
    kstr(w, "isolation", isolation(c->isolation));
    kstr(w, "access", c->access);
    kbool(w, "imported", c->imported);
    kbool(w, "autoImported", c->auto_imported);
    if (c->import_of) {
        obj_begin(w, "importOf");
        kstr(w, "provider", c->import_of->owner ? c->import_of->owner->name : NULL);
        kstr(w, "name", c->import_of->name);
        kbool(w, "builtin", c->import_of->builtin);
        obj_end(w);
    } else {
        knull(w, "importOf");
    }
    const Channel *msgsrc = c->import_of && c->import_of->builtin ? c->import_of : c;
    kmsg(w, "message", &c->msg, msgsrc->builtin_msg, msgsrc->builtin_msgid);
    if (c->logging.present) {
        const ChannelLogging *l = &c->logging;
        obj_begin(w, "logging");
        if (l->has_auto_backup)
            kbool(w, "autoBackup", l->auto_backup);
        if (l->has_retention)
            kbool(w, "retention", l->retention);
        if (l->has_max_size)
            knum(w, "maxSize", l->max_size);
        obj_end(w);
    } else {
        knull(w, "logging");
    }
    if (c->publishing.present) {
        const ChannelPublishing *p = &c->publishing;
        obj_begin(w, "publishing");
        if (p->has_level)
            knum(w, "level", p->level);
        if (p->has_keywords)
            kmask(w, "keywords", p->keywords);
        if (p->has_control_guid)
            kguid(w, "controlGuid", &p->control_guid, true);
        if (p->has_buffer_size)
            knum(w, "bufferSize", p->buffer_size);
        if (p->has_min_buffers)
            knum(w, "minBuffers", p->min_buffers);
        if (p->has_max_buffers)
            knum(w, "maxBuffers", p->max_buffers);
        if (p->has_latency)
            knum(w, "latency", p->latency);
        if (p->has_clock_type)
            kstr(w, "clockType", p->clock_type);
        if (p->has_sid_type)
            kstr(w, "sidType", p->sid_type);
        if (p->has_file_max)
            knum(w, "fileMax", p->file_max);
        obj_end(w);
    } else {
        knull(w, "publishing");
    }
    kloc(w, c->loc);
    obj_end(w);
}

static void opcode(W *w, const Opcode *o)
{
    obj_begin(w, NULL);
    named_fields(w, &o->n);
    knum(w, "value", o->value);
    kstr(w, "task", o->task ? o->task->n.display : NULL);
    kstr(w, "mofValue", o->mof_value);
    kloc(w, o->n.loc);
    obj_end(w);
}

static void quantity(W *w, const char *k, const Quantity *q)
{
    if (q->kind == QTY_NONE) {
        knull(w, k);
        return;
    }
    obj_begin(w, k);
    if (q->kind == QTY_FIXED) {
        knum(w, "fixed", q->n);
    } else {
        kstr(w, "field", q->ref ? q->ref->name : q->text);
        if (q->ref)
            knum(w, "index", q->ref->index);
    }
    obj_end(w);
}

static void fields(W *w, const char *k, Field *const *v, size_t n)
{
    arr_begin(w, k);
    for (size_t i = 0; i < n; i++) {
        const Field *f = v[i];
        obj_begin(w, NULL);
        kstr(w, "name", f->name);
        kstr(w, "kind", f->is_struct ? "struct" : "data");
        knum(w, "index", f->index);
        if (!f->is_struct) {
            kstr(w, "inType", f->in_type ? f->in_type->display : NULL);
            knum(w, "inTypeValue", f->in_type ? f->in_type->value : 0);
            const OutType *out = f->out_type ? f->out_type
                                 : f->in_type ? f->in_type->default_out
                                              : NULL;
            kstr(w, "outType", out ? out->display : NULL);
            knum(w, "outTypeValue", out ? out->value : 0);
            kbool(w, "outTypeExplicit", f->out_type != NULL);
            kstr(w, "map", f->map ? f->map->name : NULL);
        }
        quantity(w, "count", f->count);
        quantity(w, "length", f->length);
        if (f->is_struct)
            fields(w, "members", f->members.v, f->members.n);
        kloc(w, f->loc);
        obj_end(w);
    }
    arr_end(w);
}

static void xml_node(W *w, const char *k, const XmlNode *n)
{
    obj_begin(w, k);
    kstr(w, "namespace", n->name.ns);
    kstr(w, "name", n->name.local);
    obj_begin(w, "attributes");
    for (size_t i = 0; i < n->attrs.n; i++)
        kstr(w, n->attrs.v[i].name.local, n->attrs.v[i].value);
    obj_end(w);
    kstr(w, "text", n->text);
    arr_begin(w, "children");
    for (size_t i = 0; i < n->children.n; i++)
        xml_node(w, NULL, n->children.v[i]);
    arr_end(w);
    obj_end(w);
}

static void ref(W *w, const char *k, const Named *n, unsigned value, bool present)
{
    if (!present) {
        knull(w, k);
        return;
    }
    obj_begin(w, k);
    kstr(w, "name", n->display);
    knum(w, "value", value);
    kbool(w, "builtin", n->builtin);
    obj_end(w);
}

static void event(W *w, const Event *e)
{
    obj_begin(w, NULL);
    knum(w, "value", e->value);
    knum(w, "version", e->version);
    kstr(w, "symbol", e->symbol);
    kstr(w, "name", e->rare->name);
    if (e->channel) {
        obj_begin(w, "channel");
        kstr(w, "name", e->channel->name);
        kstr(w, "chid", e->channel->chid);
        knum(w, "index", e->channel->index);
        knum(w, "value", e->channel->value);
        obj_end(w);
    } else {
        knull(w, "channel");
    }
    ref(w, "level", e->level ? &e->level->n : NULL, e->level ? e->level->value : 0, e->level);
    ref(w, "task", e->task ? &e->task->n : NULL, e->task ? e->task->value : 0, e->task);
    ref(w, "opcode", e->opcode ? &e->opcode->n : NULL, e->opcode ? e->opcode->value : 0,
        e->opcode);
    arr_begin(w, "keywords");
    for (size_t i = 0; i < e->keywords.n; i++) {
        obj_begin(w, NULL);
        kstr(w, "name", e->keywords.v[i]->n.display);
        kmask(w, "mask", e->keywords.v[i]->mask);
        kbool(w, "builtin", e->keywords.v[i]->n.builtin);
        obj_end(w);
    }
    arr_end(w);
    kmask(w, "keywordMask", e->keyword_mask);
    kstr(w, "template", e->layout ? e->layout->tid : NULL);
    kmsg(w, "message", &e->msg, NULL, NULL);
    kbool(w, "notLogged", e->not_logged);
    kbool(w, "suppressProjection", e->suppress_projection);
    if (e->rare->attributes) {
        obj_begin(w, "attributes");
        for (size_t i = 0; i < e->rare->attrs.n; i++)
            kstr(w, e->rare->attrs.v[i].key, e->rare->attrs.v[i].value);
        obj_end(w);
    } else {
        knull(w, "attributes");
    }
    kloc(w, e->loc);
    obj_end(w);
}

static void provider(W *w, const Provider *p)
{
    obj_begin(w, NULL);
    knum(w, "index", (unsigned)p->index);
    kstr(w, "name", p->name);
    kguid(w, "guid", &p->guid, true);
    kstr(w, "symbol", p->symbol);
    kstr(w, "resourceFileName", p->resource_file);
    kstr(w, "messageFileName", p->message_file);
    kstr(w, "parameterFileName", p->parameter_file);
    kstr(w, "namespace", p->namespace_);
    kguid(w, "controlGuid", &p->control_guid, p->has_control_guid);
    kmsg(w, "message", &p->msg, NULL, NULL);
    if (p->traits) {
        obj_begin(w, "traits");
        kguid(w, "groupGuid", &p->traits->group_guid, p->traits->has_group_guid);
        if (p->traits->has_include_name)
            kbool(w, "includeName", p->traits->include_name);
        else
            knull(w, "includeName");
        obj_end(w);
    } else {
        knull(w, "traits");
    }

    arr_begin(w, "channels");
    for (size_t i = 0; i < p->channels.n; i++)
        channel(w, p->channels.v[i]);
    arr_end(w);

    arr_begin(w, "levels");
    for (size_t i = 0; i < p->levels.n; i++) {
        const Level *l = p->levels.v[i];
        obj_begin(w, NULL);
        named_fields(w, &l->n);
        knum(w, "value", l->value);
        kloc(w, l->n.loc);
        obj_end(w);
    }
    arr_end(w);

    arr_begin(w, "tasks");
    for (size_t i = 0; i < p->tasks.n; i++) {
        const Task *t = p->tasks.v[i];
        obj_begin(w, NULL);
        named_fields(w, &t->n);
        knum(w, "value", t->value);
        kguid(w, "eventGuid", &t->event_guid, t->has_guid);
        kstr(w, "mofGuid", t->mof_guid);
        arr_begin(w, "opcodes");
        for (size_t j = 0; j < t->opcodes.n; j++)
            opcode(w, t->opcodes.v[j]);
        arr_end(w);
        kloc(w, t->n.loc);
        obj_end(w);
    }
    arr_end(w);

    arr_begin(w, "opcodes");
    for (size_t i = 0; i < p->opcodes.n; i++)
        opcode(w, p->opcodes.v[i]);
    arr_end(w);

    arr_begin(w, "keywords");
    for (size_t i = 0; i < p->keywords.n; i++) {
        const Keyword *k = p->keywords.v[i];
        obj_begin(w, NULL);
        named_fields(w, &k->n);
        kmask(w, "mask", k->mask);
        kloc(w, k->n.loc);
        obj_end(w);
    }
    arr_end(w);

    arr_begin(w, "maps");
    for (size_t i = 0; i < p->maps.n; i++) {
        const ValueMap *m = p->maps.v[i];
        static const char *kinds[] = {"valueMap", "bitMap", "patternMap"};
        obj_begin(w, NULL);
        kstr(w, "kind", kinds[m->kind]);
        kstr(w, "name", m->name);
        kstr(w, "symbol", m->symbol);
        if (m->kind == MAP_PATTERN)
            kstr(w, "format", m->format);
        arr_begin(w, "items");
        for (size_t j = 0; j < m->items.n; j++) {
            const MapItem *it = m->items.v[j];
            obj_begin(w, NULL);
            if (m->kind == MAP_PATTERN) {
                kstr(w, "name", it->pattern_name);
                kstr(w, "value", it->pattern_value);
            } else {
                knum(w, "value", it->value);
                kmsg(w, "message", &it->msg, NULL, NULL);
            }
            kstr(w, "symbol", it->symbol);
            kloc(w, it->loc);
            obj_end(w);
        }
        arr_end(w);
        kloc(w, m->loc);
        obj_end(w);
    }
    arr_end(w);

    arr_begin(w, "templates");
    for (size_t i = 0; i < p->layouts.n; i++) {
        const Layout *l = p->layouts.v[i];
        obj_begin(w, NULL);
        kstr(w, "tid", l->tid);
        kstr(w, "name", l->name);
        fields(w, "fields", l->fields.v, l->fields.n);
        if (l->user_data)
            xml_node(w, "userData", l->user_data);
        else
            knull(w, "userData");
        kloc(w, l->loc);
        obj_end(w);
    }
    arr_end(w);

    arr_begin(w, "events");
    for (size_t i = 0; i < p->events.n; i++)
        event(w, p->events.v[i]);
    arr_end(w);

    arr_begin(w, "filters");
    for (size_t i = 0; i < p->filters.n; i++) {
        const Filter *f = p->filters.v[i];
        obj_begin(w, NULL);
        kstr(w, "name", f->display);
        knum(w, "value", f->value);
        knum(w, "version", f->version);
        kstr(w, "symbol", f->symbol);
        kstr(w, "template", f->layout ? f->layout->tid : f->tid);
        kmsg(w, "message", &f->msg, NULL, NULL);
        kloc(w, f->loc);
        obj_end(w);
    }
    arr_end(w);
    kloc(w, p->loc);
    obj_end(w);
}

void json_walk(const Manifest *m, ModelSink *s)
{
    W *w = &(W){s, m};
    obj_begin(w, NULL);
    knum(w, "mcgenJsonVersion", 1);
    kstr(w, "file", m->file);
    arr_begin(w, "providers");
    for (size_t i = 0; i < m->providers.n; i++)
        provider(w, m->providers.v[i]);
    arr_end(w);
    arr_begin(w, "messageTable");
    for (size_t i = 0; i < m->message_table.n; i++) {
        const MessageEntry *e = m->message_table.v[i];
        obj_begin(w, NULL);
        knum(w, "value", e->value);
        kstr(w, "symbol", e->symbol);
        kstr(w, "mid", e->mid);
        kmsg(w, "message", &e->msg, NULL, NULL);
        kloc(w, e->loc);
        obj_end(w);
    }
    arr_end(w);
    arr_begin(w, "cultures");
    for (size_t i = 0; i < m->cultures.n; i++) {
        const Culture *c = m->cultures.v[i];
        obj_begin(w, NULL);
        kstr(w, "name", c->name);
        arr_begin(w, "strings");
        for (size_t j = 0; j < c->strings.n; j++) {
            const String *str = c->strings.v[j];
            obj_begin(w, NULL);
            kstr(w, "id", str->id);
            kstr(w, "value", str->value);
            if (str->string_type)
                kstr(w, "stringType", str->string_type);
            kloc(w, str->loc);
            obj_end(w);
        }
        arr_end(w);
        obj_end(w);
    }
    arr_end(w);
    obj_end(w);
}

/* ---- --json: the walk as JSON text ----
 * One thread, one buffer: the text goes to the output whenever FLUSH_AT
 * bytes have gathered at the end of an object, so the buffer's pages are
 * touched once and reused (first-touch page faults are a large part of
 * the CPU time here).  --json used to render parts of the document on a
 * second thread: measured on gen-5mb and gen-50mb it saved no CPU time
 * and cost 1,200 page faults and 1.5-5 MiB of peak RSS in part buffers. */

enum { FLUSH_AT = 64 * 1024 };

/* Keys repeat (the address of a literal, of a culture name): each one's
 * text is made once (jsonw_key_prepare), in a small cache by address (the
 * walk's keys do not change while it runs). */
enum { KEY_BITS = 9, KEY_SLOTS = 1 << KEY_BITS, KEY_PROBES = 4 };

typedef struct KeySeen {
    const char *k;
    bool prepared;
    JsonKey key;
} KeySeen;

typedef struct TextSink {
    ModelSink s;
    JsonW j;
    Out *out; /* NULL: all of the text stays in the buffer */
    KeySeen keys[KEY_SLOTS];
} TextSink;

static void t_begin(ModelSink *s, bool list)
{
    JsonW *j = &((TextSink *)s)->j;
    if (list)
        jsonw_begin_list(j);
    else
        jsonw_begin_object(j);
}

static void t_end(ModelSink *s, bool list)
{
    TextSink *t = (TextSink *)s;
    if (list)
        jsonw_end_list(&t->j);
    else
        jsonw_end_object(&t->j);
    if (t->out && t->j.b->len >= FLUSH_AT) {
        out_put(t->out, t->j.b->s, t->j.b->len);
        t->j.b->len = 0;
        t->j.b->s[0] = '\0';
    }
}

/* The key's slot: its own, or one of the next few (the walk has about
 * 150 keys, so some share a home slot); when all of those hold other
 * keys, the home slot is taken over. */
static KeySeen *key_slot(TextSink *t, const char *k)
{
    size_t home = (size_t)(((uint64_t)(uintptr_t)k * 0x9E3779B97F4A7C15u) >> (64 - KEY_BITS));
    if (t->keys[home].k == k)
        return &t->keys[home];
    for (size_t i = 0; i < KEY_PROBES; i++) {
        KeySeen *seen = &t->keys[(home + i) & (KEY_SLOTS - 1)];
        if (seen->k == k)
            return seen;
        if (!seen->k) {
            seen->k = k;
            seen->prepared = jsonw_key_prepare(&seen->key, k);
            return seen;
        }
    }
    KeySeen *seen = &t->keys[home];
    seen->k = k;
    seen->prepared = jsonw_key_prepare(&seen->key, k);
    return seen;
}

static void t_key(ModelSink *s, const char *k)
{
    TextSink *t = (TextSink *)s;
    KeySeen *seen = key_slot(t, k);
    if (seen->prepared)
        jsonw_key_prepared(&t->j, &seen->key);
    else
        jsonw_key(&t->j, k);
}

static void t_str(ModelSink *s, const char *v) { jsonw_str(&((TextSink *)s)->j, v); }
static void t_uint(ModelSink *s, uint64_t v) { jsonw_uint(&((TextSink *)s)->j, v); }
static void t_bool(ModelSink *s, bool v) { jsonw_bool(&((TextSink *)s)->j, v); }
static void t_null(ModelSink *s) { jsonw_null(&((TextSink *)s)->j); }

/* The document into b, and into out (when not NULL) as it goes. */
static void text_walk(const Manifest *m, Buf *b, Out *out)
{
    TextSink *t = xcalloc(1, sizeof *t);
    t->s = (ModelSink){t_begin, t_end, t_key, t_str, t_uint, t_bool, t_null};
    t->out = out;
    jsonw_init(&t->j, b, 0);
    json_walk(m, &t->s);
    buf_addc(b, '\n');
    free(t);
}

void json_write_model(const Manifest *m, Out *f)
{
    Buf b = {0};
    text_walk(m, &b, f);
    out_put(f, b.s, b.len);
    buf_free(&b);
}

void json_model_to_buf(const Manifest *m, Buf *b) { text_walk(m, b, NULL); }
