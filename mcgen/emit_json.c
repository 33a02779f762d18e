/*
 * emit_json.c - the model as the document docs/json-model.md describes, walked
 * once for both of its readers: --json's text and the values user templates
 * see (emit_render.c builds them from the same walk).  For the values the
 * walk calls a ModelSink (mcgen.h); for the text it writes through the
 * program's JSON writer (jsonw.h) itself, each key with its value in one
 * call.  Deterministic: keys in a fixed order, objects in
 * manifest order, numbers in decimal, 64-bit masks as "0x%016llx" strings
 * (JSON numbers lose precision past 2^53), no host data, no white space
 * but the final newline (a 50 MB manifest gives a large model; pipe it
 * through a pretty-printer to read it).  The text goes to the output in
 * 64 KiB pieces as it is made (see "--json").
 */
#include "mcgen.h"
#include "os.h"

#include <stdlib.h>
#include <string.h>

/* ---- the walk ----
 * W carries the sink and the manifest (message texts are keyed by culture
 * name).  The helpers below are the only callers of the sink. */

typedef struct TypesText TypesText;

typedef struct W {
    ModelSink *s;
    const Manifest *m;
    JsonW *j;  /* --json's text: written here directly, not through s */
    Out *out;  /* where j's text goes (NULL: it stays in j's buffer) */
    const struct Key *culture_keys; /* with j: each culture's name as a key */
    PtrMap *shared; /* with j: the text of objects events refer to (Shared) */
    TypesText *types; /* with j: by input type's value, 256 (types()) */
} W;

struct TypesText {
    const InType *in;
    const OutType *out; /* the field's own (NULL: in's default) */
    Buf text;
};

/* A key: a literal made by K(), its quoted text `"name":` made by the
 * compiler after its NUL (n: its length), or any other string (n 0), whose
 * text the writer makes each time. */
typedef struct Key {
    const char *k;
    size_t n;
} Key;

#define K(lit) ((Key){lit "\0\"" lit "\":" JSONW_LIT_PAD, sizeof(lit) - 1})
#define NOKEY ((Key){NULL, 0})
static Key kdyn(const char *k) { return (Key){k, 0}; }

/* a literal key's quoted text, as jsonw_lk* take it */
#define LIT(key) (key).k + (key).n + 1, (key).n + 3

enum { FLUSH_AT = 64 * 1024 };

static inline void key(W *w, Key k)
{
    if (!w->j)
        w->s->key(w->s, k.k);
    else if (k.n)
        jsonw_lkey(w->j, LIT(k));
    else
        jsonw_key(w->j, k.k);
}

static inline void begin(W *w, Key k, bool list)
{
    if (w->j && k.n) {
        jsonw_lkbegin(w->j, LIT(k), list);
        return;
    }
    if (k.k)
        key(w, k);
    if (!w->j)
        w->s->begin(w->s, list);
    else if (list)
        jsonw_begin_list(w->j);
    else
        jsonw_begin_object(w->j);
}

/* The text goes to the output whenever FLUSH_AT bytes have gathered at
 * the end of an object or list (see "--json" below). */
static inline void end(W *w, bool list)
{
    if (!w->j) {
        w->s->end(w->s, list);
        return;
    }
    Buf *b = w->j->b;
    if (list)
        jsonw_end_list(w->j);
    else
        jsonw_end_object(w->j);
    if (w->out && b->len >= FLUSH_AT) {
        out_put(w->out, b->s, b->len);
        b->len = 0;
        b->s[0] = '\0';
    }
}

static inline void obj_begin(W *w, Key k) { begin(w, k, false); }
static inline void obj_end(W *w) { end(w, false); }
static inline void arr_begin(W *w, Key k) { begin(w, k, true); }
static inline void arr_end(W *w) { end(w, true); }

static inline void knull(W *w, Key k)
{
    if (w->j && k.n) {
        jsonw_lknull(w->j, LIT(k));
        return;
    }
    key(w, k);
    if (w->j)
        jsonw_null(w->j);
    else
        w->s->null(w->s);
}

static inline void kstr(W *w, Key k, const char *v)
{
    if (w->j && k.n) {
        jsonw_lkstr(w->j, LIT(k), v);
        return;
    }
    key(w, k);
    if (w->j)
        jsonw_str(w->j, v);
    else if (v)
        w->s->str(w->s, v);
    else
        w->s->null(w->s);
}

static inline void knum(W *w, Key k, uint64_t v)
{
    if (w->j && k.n) {
        jsonw_lkuint(w->j, LIT(k), v);
        return;
    }
    key(w, k);
    if (w->j)
        jsonw_uint(w->j, v);
    else
        w->s->uint(w->s, v);
}

static inline void kbool(W *w, Key k, bool v)
{
    if (w->j && k.n) {
        jsonw_lkbool(w->j, LIT(k), v);
        return;
    }
    key(w, k);
    if (w->j)
        jsonw_bool(w->j, v);
    else
        w->s->boolean(w->s, v);
}

static void kmask(W *w, Key k, uint64_t v)
{
    if (w->j && k.n) {
        jsonw_lkhex64(w->j, LIT(k), v);
        return;
    }
    char tmp[19];
    jsonw_hex64(tmp, v);
    kstr(w, k, tmp);
}

static void kguid(W *w, Key k, const Guid *g, bool has)
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
    if (w->j) {
        Key k = K("loc");
        jsonw_lkpair(w->j, LIT(k), loc.line, loc.col);
        return;
    }
    arr_begin(w, K("loc"));
    w->s->uint(w->s, loc.line);
    w->s->uint(w->s, loc.col);
    arr_end(w);
}

/* "message": {"id": ..., "text": {"culture": text, ...}} */
static void kmsg(W *w, Key k, const MsgRef *r, const char *builtin,
                 const char *builtin_id)
{
    if (builtin) {
        obj_begin(w, k);
        kstr(w, K("id"), builtin_id);
        if (r->has_msgid)
            knum(w, K("messageId"), r->msgid);
        kbool(w, K("builtin"), true);
        obj_begin(w, K("text"));
        kstr(w, K("neutral"), builtin);
        obj_end(w);
        obj_end(w);
        return;
    }
    if (!r->id) {
        knull(w, k);
        return;
    }
    obj_begin(w, k);
    kstr(w, K("id"), r->id);
    if (r->has_msgid)
        knum(w, K("messageId"), r->msgid);
    obj_begin(w, K("text"));
    for (size_t i = 0; r->text && i < w->m->cultures.n; i++)
        if (r->text[i])
            kstr(w, w->culture_keys ? w->culture_keys[i] : kdyn(w->m->cultures.v[i]->name),
                 r->text[i]->value);
    obj_end(w);
    obj_end(w);
}

static void named_fields(W *w, const Named *n)
{
    kstr(w, K("name"), n->display);
    kstr(w, K("symbol"), n->symbol);
    kbool(w, K("builtin"), n->builtin);
    kmsg(w, K("message"), &n->msg, n->builtin_msg, n->builtin_msgid);
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
    obj_begin(w, NOKEY);
    kstr(w, K("name"), c->name);
    kstr(w, K("chid"), c->chid);
    kstr(w, K("symbol"), c->symbol);
    knum(w, K("index"), c->index);
    kstr(w, K("type"), chan_type(c->type));
    knum(w, K("value"), c->value);
    kbool(w, K("valueAssigned"), !c->has_value && !c->imported);
    if (c->has_enabled)
        kbool(w, K("enabled"), c->enabled);
    else
        knull(w, K("enabled"));
    kstr(w, K("isolation"), isolation(c->isolation));
    kstr(w, K("access"), c->access);
    kbool(w, K("imported"), c->imported);
    kbool(w, K("autoImported"), c->auto_imported);
    if (c->import_of) {
        obj_begin(w, K("importOf"));
        kstr(w, K("provider"), c->import_of->owner ? c->import_of->owner->name : NULL);
        kstr(w, K("name"), c->import_of->name);
        kbool(w, K("builtin"), c->import_of->builtin);
        obj_end(w);
    } else {
        knull(w, K("importOf"));
    }
    const Channel *msgsrc = c->import_of && c->import_of->builtin ? c->import_of : c;
    kmsg(w, K("message"), &c->msg, msgsrc->builtin_msg, msgsrc->builtin_msgid);
    if (c->logging.present) {
        const ChannelLogging *l = &c->logging;
        obj_begin(w, K("logging"));
        if (l->has_auto_backup)
            kbool(w, K("autoBackup"), l->auto_backup);
        if (l->has_retention)
            kbool(w, K("retention"), l->retention);
        if (l->has_max_size)
            knum(w, K("maxSize"), l->max_size);
        obj_end(w);
    } else {
        knull(w, K("logging"));
    }
    if (c->publishing.present) {
        const ChannelPublishing *p = &c->publishing;
        obj_begin(w, K("publishing"));
        if (p->has_level)
            knum(w, K("level"), p->level);
        if (p->has_keywords)
            kmask(w, K("keywords"), p->keywords);
        if (p->has_control_guid)
            kguid(w, K("controlGuid"), &p->control_guid, true);
        if (p->has_buffer_size)
            knum(w, K("bufferSize"), p->buffer_size);
        if (p->has_min_buffers)
            knum(w, K("minBuffers"), p->min_buffers);
        if (p->has_max_buffers)
            knum(w, K("maxBuffers"), p->max_buffers);
        if (p->has_latency)
            knum(w, K("latency"), p->latency);
        if (p->has_clock_type)
            kstr(w, K("clockType"), p->clock_type);
        if (p->has_sid_type)
            kstr(w, K("sidType"), p->sid_type);
        if (p->has_file_max)
            knum(w, K("fileMax"), p->file_max);
        obj_end(w);
    } else {
        knull(w, K("publishing"));
    }
    kloc(w, c->loc);
    obj_end(w);
}

static void opcode(W *w, const Opcode *o)
{
    obj_begin(w, NOKEY);
    named_fields(w, &o->n);
    knum(w, K("value"), o->value);
    kstr(w, K("task"), o->task ? o->task->n.display : NULL);
    kstr(w, K("mofValue"), o->mof_value);
    kloc(w, o->n.loc);
    obj_end(w);
}

static void quantity(W *w, Key k, const Quantity *q)
{
    if (q->kind == QTY_NONE) {
        knull(w, k);
        return;
    }
    obj_begin(w, k);
    if (q->kind == QTY_FIXED) {
        knum(w, K("fixed"), q->n);
    } else {
        kstr(w, K("field"), q->ref ? q->ref->name : q->text);
        if (q->ref)
            knum(w, K("index"), q->ref->index);
    }
    obj_end(w);
}

static void types_make(W *w, const Field *f)
{
    const InType *in = field_in_type(f);
    const OutType *written = field_out_type(f);
    kstr(w, K("inType"), in ? in->display : NULL);
    knum(w, K("inTypeValue"), in ? in->value : 0);
    const OutType *out = written ? written : in ? in->default_out : NULL;
    kstr(w, K("outType"), out ? out->display : NULL);
    knum(w, K("outTypeValue"), out ? out->value : 0);
    kbool(w, K("outTypeExplicit"), written != NULL);
}

/* A field's types, five members that thousands of fields share a few
 * ways: with j, their text is kept per input type (the last output type
 * seen with it) and copied while the next field's types are the same. */
static void types(W *w, const Field *f)
{
    const InType *in = field_in_type(f);
    if (!w->j || !in) {
        types_make(w, f);
        return;
    }
    TypesText *t = &w->types[in->value];
    if (t->in != in || t->out != field_out_type(f)) {
        JsonW j, *outer = w->j;
        Out *out = w->out;
        t->in = in;
        t->out = field_out_type(f);
        t->text.len = 0;
        jsonw_init(&j, &t->text, 0);
        j.depth = 1; /* members of an object: the first without a comma */
        w->j = &j;
        w->out = NULL;
        types_make(w, f);
        w->j = outer;
        w->out = out;
    }
    jsonw_raw(w->j, t->text.s, t->text.len);
}

/* The field's payload plan (check_facts.c): how its values lie in the
 * payload, in the words of docs/json-model.md's "Payload" table. */
static void payload(W *w, const Field *f)
{
    FieldPlan p = field_plan(f);
    /* For the values, a plan without count or length is one of a few
     * dozen: one value each, shared (a dictionary per field made a 50 MB
     * manifest's values 145 MB larger).  A byte per plan names it. */
    static char plan_names[PK_COUNT][4][5];
    const void *shared_plan =
        !w->j && !p.count && !p.length ? &plan_names[p.kind][p.encoding][p.termination] : NULL;
    if (shared_plan) {
        key(w, K("payload"));
        if (w->s->again(w->s, shared_plan))
            return;
        obj_begin(w, NOKEY);
    } else {
        obj_begin(w, K("payload"));
    }
    kstr(w, K("kind"), payload_kind_names[p.kind]);
    if (p.size)
        knum(w, K("size"), p.size);
    else
        knull(w, K("size"));
    kstr(w, K("encoding"), payload_encoding_names[p.encoding]);
    kstr(w, K("termination"), payload_termination_names[p.termination]);
    static const Quantity none = {.kind = QTY_NONE};
    quantity(w, K("count"), p.count ? p.count : &none);
    quantity(w, K("length"), p.length ? p.length : &none);
    obj_end(w);
    if (shared_plan)
        w->s->keep(w->s, shared_plan);
}

static void fields(W *w, Key k, Field *const *v, size_t n)
{
    arr_begin(w, k);
    for (size_t i = 0; i < n; i++) {
        const Field *f = v[i];
        obj_begin(w, NOKEY);
        kstr(w, K("name"), f->name);
        kstr(w, K("kind"), f->is_struct ? "struct" : "data");
        knum(w, K("index"), f->index);
        if (!f->is_struct) {
            types(w, f);
            kstr(w, K("map"), f->map ? f->map->name : NULL);
        }
        quantity(w, K("count"), &f->qty->count);
        quantity(w, K("length"), &f->qty->length);
        payload(w, f);
        if (f->is_struct)
            fields(w, K("members"), f->members.v, f->members.n);
        kloc(w, f->loc);
        obj_end(w);
    }
    arr_end(w);
}

static void xml_node(W *w, Key k, const XmlNode *n)
{
    obj_begin(w, k);
    kstr(w, K("namespace"), n->name.ns);
    kstr(w, K("name"), n->name.local);
    obj_begin(w, K("attributes"));
    for (size_t i = 0; i < n->attrs.n; i++)
        kstr(w, kdyn(n->attrs.v[i].name.local), n->attrs.v[i].value);
    obj_end(w);
    kstr(w, K("text"), n->text);
    arr_begin(w, K("children"));
    for (size_t i = 0; i < n->children.n; i++)
        xml_node(w, NOKEY, n->children.v[i]);
    arr_end(w);
    obj_end(w);
}

/* An object that many events refer to (their channel, level, opcode and
 * keywords) is written by make(w, obj) as the value of k (NOKEY: a
 * list's element; obj NULL: null).  With j, its text is made once, the first time, into
 * a buffer of its own, and copied for each reference after that. */
typedef struct Shared {
    size_t n;
    char text[];
} Shared;

static void shared(W *w, Key k, const void *obj, void (*make)(W *w, const void *obj))
{
    if (!obj) {
        knull(w, k);
        return;
    }
    if (!w->j) {
        if (k.k)
            key(w, k);
        make(w, obj);
        return;
    }
    Shared *sh = ptrmap_get(w->shared, obj);
    if (!sh) {
        Buf b = {0};
        JsonW j, *outer = w->j;
        Out *out = w->out;
        jsonw_init(&j, &b, 0);
        w->j = &j;
        w->out = NULL;
        make(w, obj);
        w->j = outer;
        w->out = out;
        sh = xmalloc(sizeof *sh + b.len);
        sh->n = b.len;
        memcpy(sh->text, b.s, b.len);
        buf_free(&b);
        ptrmap_put(w->shared, obj, sh);
    }
    if (k.n)
        jsonw_lkraw(w->j, LIT(k), sh->text, sh->n);
    else if (k.k)
        jsonw_key(w->j, k.k), jsonw_raw(w->j, sh->text, sh->n);
    else
        jsonw_raw(w->j, sh->text, sh->n);
}

static void ref(W *w, Key k, const Named *n, unsigned value)
{
    obj_begin(w, k);
    kstr(w, K("name"), n->display);
    knum(w, K("value"), value);
    kbool(w, K("builtin"), n->builtin);
    obj_end(w);
}

static void level_ref(W *w, const void *obj)
{
    const Level *l = obj;
    ref(w, NOKEY, &l->n, l->value);
}

static void opcode_ref(W *w, const void *obj)
{
    const Opcode *o = obj;
    ref(w, NOKEY, &o->n, o->value);
}

static void channel_ref(W *w, const void *obj)
{
    const Channel *c = obj;
    obj_begin(w, NOKEY);
    kstr(w, K("name"), c->name);
    kstr(w, K("chid"), c->chid);
    knum(w, K("index"), c->index);
    knum(w, K("value"), c->value);
    obj_end(w);
}

static void keyword_ref(W *w, const void *obj)
{
    const Keyword *k = obj;
    obj_begin(w, NOKEY);
    kstr(w, K("name"), k->n.display);
    kmask(w, K("mask"), k->mask);
    kbool(w, K("builtin"), k->n.builtin);
    obj_end(w);
}

static void event(W *w, const Event *e)
{
    obj_begin(w, NOKEY);
    knum(w, K("value"), e->value);
    knum(w, K("version"), e->version);
    kstr(w, K("symbol"), e->symbol);
    kstr(w, K("name"), e->rare->name);
    shared(w, K("channel"), e->channel, channel_ref);
    shared(w, K("level"), e->level, level_ref);
    /* a task has a few events: its text made for each, not kept */
    if (e->task)
        ref(w, K("task"), &e->task->n, e->task->value);
    else
        knull(w, K("task"));
    shared(w, K("opcode"), e->opcode, opcode_ref);
    arr_begin(w, K("keywords"));
    for (size_t i = 0; i < e->nkeywords; i++)
        shared(w, NOKEY, e->keywords[i], keyword_ref);
    arr_end(w);
    kmask(w, K("keywordMask"), event_keyword_mask(e));
    kstr(w, K("template"), e->layout ? e->layout->tid : NULL);
    if (!w->j) {
        /* the values only: the template's fields again, the same value
         * (kept by the sink when the template's were made), so that a
         * wrapper needs no lookup by tid.  --json leaves them out: a
         * reader joins by tid, and a copy per event would make a large
         * model two thirds larger (docs/json-model.md, "Event"). */
        key(w, K("fields"));
        if (!e->layout || !w->s->again(w->s, e->layout)) {
            arr_begin(w, NOKEY);
            arr_end(w);
        }
    }
    kmsg(w, K("message"), &e->msg, NULL, NULL);
    kbool(w, K("notLogged"), e->not_logged);
    kbool(w, K("suppressProjection"), e->suppress_projection);
    if (e->rare->attributes) {
        obj_begin(w, K("attributes"));
        for (size_t i = 0; i < e->rare->attrs.n; i++)
            kstr(w, kdyn(e->rare->attrs.v[i].key), e->rare->attrs.v[i].value);
        obj_end(w);
    } else {
        knull(w, K("attributes"));
    }
    kloc(w, e->loc);
    obj_end(w);
}

static void provider(W *w, const Provider *p)
{
    obj_begin(w, NOKEY);
    knum(w, K("index"), (unsigned)p->index);
    kstr(w, K("name"), p->name);
    kguid(w, K("guid"), &p->guid, true);
    kstr(w, K("symbol"), p->symbol);
    kstr(w, K("resourceFileName"), p->resource_file);
    kstr(w, K("messageFileName"), p->message_file);
    kstr(w, K("parameterFileName"), p->parameter_file);
    kstr(w, K("namespace"), p->namespace_);
    kguid(w, K("controlGuid"), &p->control_guid, p->has_control_guid);
    kmsg(w, K("message"), &p->msg, NULL, NULL);
    if (p->traits) {
        obj_begin(w, K("traits"));
        kguid(w, K("groupGuid"), &p->traits->group_guid, p->traits->has_group_guid);
        if (p->traits->has_include_name)
            kbool(w, K("includeName"), p->traits->include_name);
        else
            knull(w, K("includeName"));
        obj_end(w);
    } else {
        knull(w, K("traits"));
    }

    arr_begin(w, K("channels"));
    for (size_t i = 0; i < p->channels.n; i++)
        channel(w, p->channels.v[i]);
    arr_end(w);

    arr_begin(w, K("levels"));
    for (size_t i = 0; i < p->levels.n; i++) {
        const Level *l = p->levels.v[i];
        obj_begin(w, NOKEY);
        named_fields(w, &l->n);
        knum(w, K("value"), l->value);
        kloc(w, l->n.loc);
        obj_end(w);
    }
    arr_end(w);

    arr_begin(w, K("tasks"));
    for (size_t i = 0; i < p->tasks.n; i++) {
        const Task *t = p->tasks.v[i];
        obj_begin(w, NOKEY);
        named_fields(w, &t->n);
        knum(w, K("value"), t->value);
        kguid(w, K("eventGuid"), &t->event_guid, t->has_guid);
        kstr(w, K("mofGuid"), t->mof_guid);
        arr_begin(w, K("opcodes"));
        for (size_t j = 0; j < t->opcodes.n; j++)
            opcode(w, t->opcodes.v[j]);
        arr_end(w);
        kloc(w, t->n.loc);
        obj_end(w);
    }
    arr_end(w);

    arr_begin(w, K("opcodes"));
    for (size_t i = 0; i < p->opcodes.n; i++)
        opcode(w, p->opcodes.v[i]);
    arr_end(w);

    arr_begin(w, K("keywords"));
    for (size_t i = 0; i < p->keywords.n; i++) {
        const Keyword *k = p->keywords.v[i];
        obj_begin(w, NOKEY);
        named_fields(w, &k->n);
        kmask(w, K("mask"), k->mask);
        kloc(w, k->n.loc);
        obj_end(w);
    }
    arr_end(w);

    arr_begin(w, K("maps"));
    for (size_t i = 0; i < p->maps.n; i++) {
        const ValueMap *m = p->maps.v[i];
        static const char *kinds[] = {"valueMap", "bitMap", "patternMap"};
        obj_begin(w, NOKEY);
        kstr(w, K("kind"), kinds[m->kind]);
        kstr(w, K("name"), m->name);
        kstr(w, K("symbol"), m->symbol);
        if (m->kind == MAP_PATTERN)
            kstr(w, K("format"), m->format);
        arr_begin(w, K("items"));
        for (size_t j = 0; j < m->items.n; j++) {
            const MapItem *it = m->items.v[j];
            obj_begin(w, NOKEY);
            if (m->kind == MAP_PATTERN) {
                kstr(w, K("name"), it->pattern_name);
                kstr(w, K("value"), it->pattern_value);
            } else {
                knum(w, K("value"), it->value);
                kmsg(w, K("message"), &it->msg, NULL, NULL);
            }
            kstr(w, K("symbol"), it->symbol);
            kloc(w, it->loc);
            obj_end(w);
        }
        arr_end(w);
        kloc(w, m->loc);
        obj_end(w);
    }
    arr_end(w);

    arr_begin(w, K("templates"));
    for (size_t i = 0; i < p->layouts.n; i++) {
        const Layout *l = p->layouts.v[i];
        obj_begin(w, NOKEY);
        kstr(w, K("tid"), l->tid);
        kstr(w, K("name"), l->name);
        fields(w, K("fields"), l->fields.v, l->fields.n);
        if (!w->j)
            w->s->keep(w->s, l);
        if (l->user_data)
            xml_node(w, K("userData"), l->user_data);
        else
            knull(w, K("userData"));
        kloc(w, l->loc);
        obj_end(w);
    }
    arr_end(w);

    arr_begin(w, K("events"));
    for (size_t i = 0; i < p->events.n; i++)
        event(w, p->events.v[i]);
    arr_end(w);

    arr_begin(w, K("filters"));
    for (size_t i = 0; i < p->filters.n; i++) {
        const Filter *f = p->filters.v[i];
        obj_begin(w, NOKEY);
        kstr(w, K("name"), f->display);
        knum(w, K("value"), f->value);
        knum(w, K("version"), f->version);
        kstr(w, K("symbol"), f->symbol);
        kstr(w, K("template"), f->layout ? f->layout->tid : f->tid);
        kmsg(w, K("message"), &f->msg, NULL, NULL);
        kloc(w, f->loc);
        obj_end(w);
    }
    arr_end(w);
    kloc(w, p->loc);
    obj_end(w);
}

static void walk(W *w)
{
    const Manifest *m = w->m;
    obj_begin(w, NOKEY);
    knum(w, K("mcgenJsonVersion"), 1);
    kstr(w, K("file"), m->file);
    const char *sep = m->file ? os_last_sep(m->file) : NULL;
    kstr(w, K("fileName"), sep ? sep + 1 : m->file);
    arr_begin(w, K("providers"));
    for (size_t i = 0; i < m->providers.n; i++)
        provider(w, m->providers.v[i]);
    arr_end(w);
    arr_begin(w, K("messageTable"));
    for (size_t i = 0; i < m->message_table.n; i++) {
        const MessageEntry *e = m->message_table.v[i];
        obj_begin(w, NOKEY);
        knum(w, K("value"), e->value);
        kstr(w, K("symbol"), e->symbol);
        kstr(w, K("mid"), e->mid);
        kmsg(w, K("message"), &e->msg, NULL, NULL);
        kloc(w, e->loc);
        obj_end(w);
    }
    arr_end(w);
    arr_begin(w, K("cultures"));
    for (size_t i = 0; i < m->cultures.n; i++) {
        const Culture *c = m->cultures.v[i];
        obj_begin(w, NOKEY);
        kstr(w, K("name"), c->name);
        arr_begin(w, K("strings"));
        for (size_t j = 0; j < c->strings.n; j++) {
            const String *str = c->strings.v[j];
            obj_begin(w, NOKEY);
            kstr(w, K("id"), str->id);
            kstr(w, K("value"), str->value);
            const char *type = ptrmap_get(&m->string_types, str);
            if (type)
                kstr(w, K("stringType"), type);
            kloc(w, str->loc);
            obj_end(w);
        }
        arr_end(w);
        obj_end(w);
    }
    arr_end(w);
    obj_end(w);
}

void json_walk(const Manifest *m, ModelSink *s) { walk(&(W){.s = s, .m = m}); }

/* ---- --json: the walk as JSON text ----
 * One thread, one buffer: the text goes to the output whenever FLUSH_AT
 * bytes have gathered at the end of an object, so the buffer's pages are
 * touched once and reused (first-touch page faults are a large part of
 * the CPU time here).  --json used to render parts of the document on a
 * second thread: measured on gen-5mb and gen-50mb it saved no CPU time
 * and cost 1,200 page faults and 1.5-5 MiB of peak RSS in part buffers.
 * The walk writes the text itself (W.j) rather than through a ModelSink:
 * a key and its value are one call into the writer, the key's text made
 * by the compiler (K), where a sink took three indirect calls and a
 * lookup of the key's prepared text by its address. */

/* The document into b, and into out (when not NULL) as it goes. */
static void text_walk(const Manifest *m, Buf *b, Out *out)
{
    JsonW j;
    jsonw_init(&j, b, 0);
    /* a message's texts are keyed by culture name: each made a key once,
     * laid out as K makes one (the name, its NUL, the key's text) */
    size_t n = m->cultures.n;
    Key *keys = xcalloc(n ? n : 1, sizeof *keys);
    for (size_t i = 0; i < n; i++) {
        const char *name = m->cultures.v[i]->name;
        size_t len = strlen(name);
        char *text = xmalloc(2 * len + 4 + JSONW_LIT_READ);
        memcpy(text, name, len + 1);
        keys[i] = jsonw_lit_make(text + len + 1, name) ? (Key){text, len} : kdyn(name);
    }
    PtrMap made = {0};
    TypesText *types = xcalloc(256, sizeof *types);
    walk(&(W){.m = m, .j = &j, .out = out, .culture_keys = keys, .shared = &made, .types = types});
    for (size_t i = 0; i < made.cap; i++)
        free(made.e[i].val);
    ptrmap_free(&made);
    for (size_t i = 0; i < 256; i++)
        buf_free(&types[i].text);
    free(types);
    for (size_t i = 0; i < n; i++)
        free((char *)(keys[i].n ? keys[i].k : NULL));
    free(keys);
    buf_addc(b, '\n');
}

void json_write_model(const Manifest *m, Out *f)
{
    Buf b = {0};
    text_walk(m, &b, f);
    out_put(f, b.s, b.len);
    buf_free(&b);
}

void json_model_to_buf(const Manifest *m, Buf *b) { text_walk(m, b, NULL); }
