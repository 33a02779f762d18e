/*
 * json.c - the resolved model as JSON (--json).  Documented field by field
 * in docs/json-model.md.  Deterministic: keys in a fixed order, objects in
 * manifest order, numbers in decimal, 64-bit masks as "0x%016llx" strings
 * (JSON numbers lose precision past 2^53), no host data, no white space
 * but the final newline (a 50 MB manifest gives a large model; pipe it
 * through a pretty-printer to read it).  Large models are rendered in
 * parts by two threads and written in order (see "the document as parts").
 */
#include "mcgen.h"

#include <stdlib.h>
#include <string.h>
#include <pthread.h>

typedef struct JW {
    Buf b;
    bool first; /* no member written yet at this level */
    const Manifest *m;
} JW;

/* The writer appends to b directly: reserve() makes room once, then the
 * bytes are stored without further checks (b.s[b.len] is kept '\0' only
 * when the document is finished). */
static char *reserve(JW *w, size_t n)
{
    if (w->b.len + n + 1 > w->b.cap)
        buf_grow(&w->b, n);
    return w->b.s + w->b.len;
}

static void put(JW *w, const char *s, size_t n)
{
    memcpy(reserve(w, n), s, n);
    w->b.len += n;
}

#define PUTS(w, lit) put(w, lit, sizeof(lit) - 1)

static void putc_(JW *w, char c)
{
    *reserve(w, 1) = c;
    w->b.len++;
}

static void sep(JW *w)
{
    if (!w->first)
        putc_(w, ',');
    w->first = false;
}

/* Characters that need escaping in a JSON string. */
static const unsigned char needs_escape[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
};

static void str(JW *w, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    putc_(w, '"');
    const char *run = s;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (!needs_escape[c])
            continue;
        put(w, run, (size_t)(s - run));
        run = s + 1;
        switch (c) {
        case '"': PUTS(w, "\\\""); break;
        case '\\': PUTS(w, "\\\\"); break;
        case '\n': PUTS(w, "\\n"); break;
        case '\r': PUTS(w, "\\r"); break;
        case '\t': PUTS(w, "\\t"); break;
        default: {
            char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            put(w, u, 6);
        }
        }
    }
    put(w, run, (size_t)(s - run));
    putc_(w, '"');
}

/* A key is a plain identifier: no escaping needed. */
static void key(JW *w, const char *k)
{
    size_t n = strlen(k);
    char *p = reserve(w, n + 4);
    size_t i = 0;
    if (!w->first)
        p[i++] = ',';
    w->first = false;
    p[i++] = '"';
    memcpy(p + i, k, n);
    i += n;
    p[i++] = '"';
    p[i++] = ':';
    w->b.len += i;
}

static void open_(JW *w, char c)
{
    putc_(w, c);
    w->first = true;
}

static void close_(JW *w, char c)
{
    putc_(w, c);
    w->first = false;
}

static void obj_begin(JW *w, const char *k)
{
    if (k)
        key(w, k);
    else
        sep(w);
    open_(w, '{');
}

static void arr_begin(JW *w, const char *k)
{
    key(w, k);
    open_(w, '[');
}

static void knull(JW *w, const char *k)
{
    key(w, k);
    PUTS(w, "null");
}

static void kstr(JW *w, const char *k, const char *v)
{
    key(w, k);
    if (v)
        str(w, v);
    else
        PUTS(w, "null");
}

static void num(JW *w, unsigned long long v)
{
    char tmp[24];
    int i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put(w, tmp + i, sizeof tmp - (size_t)i);
}

static void knum(JW *w, const char *k, unsigned long long v)
{
    key(w, k);
    num(w, v);
}

static void kbool(JW *w, const char *k, bool v)
{
    key(w, k);
    if (v)
        PUTS(w, "true");
    else
        PUTS(w, "false");
}

static void kmask(JW *w, const char *k, uint64_t v)
{
    static const char hex[] = "0123456789abcdef";
    char tmp[18] = {'0', 'x'};
    for (int i = 0; i < 16; i++)
        tmp[2 + i] = hex[(v >> (60 - 4 * i)) & 15];
    key(w, k);
    putc_(w, '"');
    put(w, tmp, 18);
    putc_(w, '"');
}

static void kguid(JW *w, const char *k, const Guid *g, bool has)
{
    if (!has) {
        knull(w, k);
        return;
    }
    char tmp[39];
    guid_format(g, tmp);
    kstr(w, k, tmp);
}

static void kloc(JW *w, Loc loc)
{
    key(w, "loc");
    putc_(w, '[');
    num(w, loc.line);
    putc_(w, ',');
    num(w, loc.col);
    putc_(w, ']');
}

/* "message": {"id": ..., "text": {"culture": text, ...}} */
static void kmsg(JW *w, const char *k, const MsgRef *r, const char *builtin,
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
        close_(w, '}');
        close_(w, '}');
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
    close_(w, '}');
    close_(w, '}');
}

static void named_fields(JW *w, const Named *n)
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

static void channel(JW *w, const Channel *c)
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
        close_(w, '}');
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
        close_(w, '}');
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
        close_(w, '}');
    } else {
        knull(w, "publishing");
    }
    kloc(w, c->loc);
    close_(w, '}');
}

static void opcode(JW *w, const Opcode *o)
{
    obj_begin(w, NULL);
    named_fields(w, &o->n);
    knum(w, "value", o->value);
    kstr(w, "task", o->task ? o->task->n.display : NULL);
    kstr(w, "mofValue", o->mof_value);
    kloc(w, o->n.loc);
    close_(w, '}');
}

static void quantity(JW *w, const char *k, const Quantity *q)
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
    close_(w, '}');
}

static void fields(JW *w, const char *k, Field *const *v, size_t n)
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
        quantity(w, "count", &f->count);
        quantity(w, "length", &f->length);
        if (f->is_struct)
            fields(w, "members", f->members.v, f->members.n);
        kloc(w, f->loc);
        close_(w, '}');
    }
    close_(w, ']');
}

static void xml_node(JW *w, const char *k, const XmlNode *n)
{
    obj_begin(w, k);
    kstr(w, "namespace", n->name.ns);
    kstr(w, "name", n->name.local);
    obj_begin(w, "attributes");
    for (size_t i = 0; i < n->attrs.n; i++)
        kstr(w, n->attrs.v[i].name.local, n->attrs.v[i].value);
    close_(w, '}');
    kstr(w, "text", n->text);
    arr_begin(w, "children");
    for (size_t i = 0; i < n->children.n; i++)
        xml_node(w, NULL, n->children.v[i]);
    close_(w, ']');
    close_(w, '}');
}

static void ref(JW *w, const char *k, const Named *n, unsigned value, bool present)
{
    if (!present) {
        knull(w, k);
        return;
    }
    obj_begin(w, k);
    kstr(w, "name", n->display);
    knum(w, "value", value);
    kbool(w, "builtin", n->builtin);
    close_(w, '}');
}

static void event(JW *w, const Event *e)
{
    obj_begin(w, NULL);
    knum(w, "value", e->value);
    knum(w, "version", e->version);
    kstr(w, "symbol", e->symbol);
    kstr(w, "name", e->name);
    if (e->channel) {
        obj_begin(w, "channel");
        kstr(w, "name", e->channel->name);
        kstr(w, "chid", e->channel->chid);
        knum(w, "index", e->channel->index);
        knum(w, "value", e->channel->value);
        close_(w, '}');
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
        close_(w, '}');
    }
    close_(w, ']');
    kmask(w, "keywordMask", e->keyword_mask);
    kstr(w, "template", e->layout ? e->layout->tid : NULL);
    kmsg(w, "message", &e->msg, NULL, NULL);
    kbool(w, "notLogged", e->not_logged);
    kbool(w, "suppressProjection", e->suppress_projection);
    if (e->attributes) {
        obj_begin(w, "attributes");
        for (size_t i = 0; i < e->attrs.n; i++)
            kstr(w, e->attrs.v[i].key, e->attrs.v[i].value);
        close_(w, '}');
    } else {
        knull(w, "attributes");
    }
    kloc(w, e->loc);
    close_(w, '}');
}

/* The provider object up to and including '"events":['. */
static void provider_head(JW *w, const Provider *p)
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
        close_(w, '}');
    } else {
        knull(w, "traits");
    }

    arr_begin(w, "channels");
    for (size_t i = 0; i < p->channels.n; i++)
        channel(w, p->channels.v[i]);
    close_(w, ']');

    arr_begin(w, "levels");
    for (size_t i = 0; i < p->levels.n; i++) {
        const Level *l = p->levels.v[i];
        obj_begin(w, NULL);
        named_fields(w, &l->n);
        knum(w, "value", l->value);
        kloc(w, l->n.loc);
        close_(w, '}');
    }
    close_(w, ']');

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
        close_(w, ']');
        kloc(w, t->n.loc);
        close_(w, '}');
    }
    close_(w, ']');

    arr_begin(w, "opcodes");
    for (size_t i = 0; i < p->opcodes.n; i++)
        opcode(w, p->opcodes.v[i]);
    close_(w, ']');

    arr_begin(w, "keywords");
    for (size_t i = 0; i < p->keywords.n; i++) {
        const Keyword *k = p->keywords.v[i];
        obj_begin(w, NULL);
        named_fields(w, &k->n);
        kmask(w, "mask", k->mask);
        kloc(w, k->n.loc);
        close_(w, '}');
    }
    close_(w, ']');

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
            close_(w, '}');
        }
        close_(w, ']');
        kloc(w, m->loc);
        close_(w, '}');
    }
    close_(w, ']');

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
        close_(w, '}');
    }
    close_(w, ']');

    arr_begin(w, "events");
}

/* After the events: the rest of the provider object. */
static void provider_tail(JW *w, const Provider *p)
{
    close_(w, ']');
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
        close_(w, '}');
    }
    close_(w, ']');
    kloc(w, p->loc);
    close_(w, '}');
}

/* ---- the document as parts ----
 *
 * The document is cut into parts that can be rendered independently:
 * provider heads, runs of events, provider tails, runs of strings.  Two
 * threads render parts into their own buffers; the calling thread writes
 * finished parts in order.  A part is only started when it is less than
 * WINDOW parts ahead of the writer, so memory stays bounded.  The bytes do
 * not depend on which thread rendered what. */

enum { EVENTS_PER_PART = 256, STRINGS_PER_PART = 1024, WINDOW = 16 };

typedef enum { P_START, P_PROV_HEAD, P_EVENTS, P_PROV_TAIL, P_MIDDLE, P_CULTURE_HEAD,
               P_STRINGS, P_CULTURE_TAIL, P_END } PartKind;

typedef struct Part {
    PartKind kind;
    size_t index; /* provider or culture */
    size_t begin, end;
    Buf out;
    bool done;
} Part;

static void render(const Manifest *m, Part *part)
{
    JW w = {.m = m, .first = part->begin == 0};
    switch (part->kind) {
    case P_START:
        open_(&w, '{');
        knum(&w, "mcgenJsonVersion", 1);
        kstr(&w, "file", m->file);
        arr_begin(&w, "providers");
        break;
    case P_PROV_HEAD:
        w.first = part->index == 0;
        provider_head(&w, m->providers.v[part->index]);
        break;
    case P_EVENTS: {
        const Provider *p = m->providers.v[part->index];
        for (size_t i = part->begin; i < part->end; i++)
            event(&w, p->events.v[i]);
        break;
    }
    case P_PROV_TAIL:
        w.first = false;
        provider_tail(&w, m->providers.v[part->index]);
        break;
    case P_MIDDLE:
        w.first = false;
        close_(&w, ']');
        arr_begin(&w, "messageTable");
        for (size_t i = 0; i < m->message_table.n; i++) {
            const MessageEntry *e = m->message_table.v[i];
            obj_begin(&w, NULL);
            knum(&w, "value", e->value);
            kstr(&w, "symbol", e->symbol);
            kstr(&w, "mid", e->mid);
            kmsg(&w, "message", &e->msg, NULL, NULL);
            kloc(&w, e->loc);
            close_(&w, '}');
        }
        close_(&w, ']');
        arr_begin(&w, "cultures");
        break;
    case P_CULTURE_HEAD:
        w.first = part->index == 0;
        obj_begin(&w, NULL);
        kstr(&w, "name", m->cultures.v[part->index]->name);
        arr_begin(&w, "strings");
        break;
    case P_STRINGS: {
        const Culture *c = m->cultures.v[part->index];
        for (size_t j = part->begin; j < part->end; j++) {
            const String *s = c->strings.v[j];
            obj_begin(&w, NULL);
            kstr(&w, "id", s->id);
            kstr(&w, "value", s->value);
            if (s->string_type)
                kstr(&w, "stringType", s->string_type);
            kloc(&w, s->loc);
            close_(&w, '}');
        }
        break;
    }
    case P_CULTURE_TAIL:
        w.first = false;
        close_(&w, ']');
        close_(&w, '}');
        break;
    case P_END:
        w.first = false;
        close_(&w, ']');
        close_(&w, '}');
        putc_(&w, '\n');
        break;
    }
    part->out = w.b;
}

typedef VEC(Part) PartVec;

static void add_part(PartVec *parts, PartKind kind, size_t index, size_t begin, size_t end)
{
    Part p = {kind, index, begin, end, {0}, false};
    vec_push(parts, p);
}

typedef struct Render {
    const Manifest *m;
    Part *parts;
    size_t n;
    size_t next;    /* first part nobody has started */
    size_t written; /* parts before this are written and freed */
    pthread_mutex_t lock;
    pthread_cond_t changed;
} Render;

/* Renders parts until none is left to start; the writer (`write` set)
 * also writes finished parts in order. */
static void render_loop(Render *r, Out *write)
{
    pthread_mutex_lock(&r->lock);
    for (;;) {
        if (write && r->written < r->n && r->parts[r->written].done) {
            Part *p = &r->parts[r->written];
            pthread_mutex_unlock(&r->lock);
            out_put(write, p->out.s, p->out.len);
            buf_free(&p->out);
            pthread_mutex_lock(&r->lock);
            r->written++;
            pthread_cond_broadcast(&r->changed);
            continue;
        }
        if (r->next < r->n && r->next < r->written + WINDOW) {
            Part *p = &r->parts[r->next++];
            pthread_mutex_unlock(&r->lock);
            render(r->m, p);
            pthread_mutex_lock(&r->lock);
            p->done = true;
            pthread_cond_broadcast(&r->changed);
            continue;
        }
        if (write ? r->written == r->n : r->next == r->n)
            break;
        pthread_cond_wait(&r->changed, &r->lock);
    }
    pthread_mutex_unlock(&r->lock);
}

static void *render_thread(void *arg)
{
    render_loop(arg, NULL);
    return NULL;
}

static void plan(const Manifest *m, PartVec *parts)
{
    add_part(parts, P_START, 0, 0, 0);
    for (size_t i = 0; i < m->providers.n; i++) {
        const Provider *p = m->providers.v[i];
        add_part(parts, P_PROV_HEAD, i, 0, 0);
        for (size_t b = 0; b < p->events.n; b += EVENTS_PER_PART)
            add_part(parts, P_EVENTS, i, b,
                     b + EVENTS_PER_PART < p->events.n ? b + EVENTS_PER_PART : p->events.n);
        add_part(parts, P_PROV_TAIL, i, 0, 0);
    }
    add_part(parts, P_MIDDLE, 0, 0, 0);
    for (size_t i = 0; i < m->cultures.n; i++) {
        const Culture *c = m->cultures.v[i];
        add_part(parts, P_CULTURE_HEAD, i, 0, 0);
        for (size_t b = 0; b < c->strings.n; b += STRINGS_PER_PART)
            add_part(parts, P_STRINGS, i, b,
                     b + STRINGS_PER_PART < c->strings.n ? b + STRINGS_PER_PART : c->strings.n);
        add_part(parts, P_CULTURE_TAIL, i, 0, 0);
    }
    add_part(parts, P_END, 0, 0, 0);
}

void json_write_model(const Manifest *m, Out *f)
{
    PartVec parts = {0};
    plan(m, &parts);
    Render r = {.m = m, .parts = parts.v, .n = parts.n};
    bool sync = pthread_mutex_init(&r.lock, NULL) == 0 && pthread_cond_init(&r.changed, NULL) == 0;
    pthread_t t;
    bool threaded = sync && parts.n > 4 && pthread_create(&t, NULL, render_thread, &r) == 0;
    if (sync) {
        render_loop(&r, f);
    } else {
        for (size_t i = 0; i < parts.n; i++) {
            render(m, &parts.v[i]);
            out_put(f, parts.v[i].out.s, parts.v[i].out.len);
            buf_free(&parts.v[i].out);
        }
    }
    if (threaded)
        pthread_join(t, NULL);
    if (sync) {
        pthread_mutex_destroy(&r.lock);
        pthread_cond_destroy(&r.changed);
    }
    vec_free(&parts);
}

void json_model_to_buf(const Manifest *m, Buf *b)
{
    PartVec parts = {0};
    plan(m, &parts);
    for (size_t i = 0; i < parts.n; i++) {
        render(m, &parts.v[i]);
        buf_add(b, parts.v[i].out.s ? parts.v[i].out.s : "", parts.v[i].out.len);
        buf_free(&parts.v[i].out);
    }
    vec_free(&parts);
}
