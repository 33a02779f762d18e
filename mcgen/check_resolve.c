/*
 * check_resolve.c - the first step of the check stage: every reference of
 * a raw manifest resolved to what it names.
 *
 * The reader (read_man.c) keeps references as written: QNames already
 * resolved through the namespace declarations in scope (that needs the
 * document), names and ids as text.  Here each provider's references are
 * looked up in its own tables, then in the built-in win: definitions, and
 * what mc derives is filled in: channel values left to the compiler,
 * auto-imported winmeta channels, imports across providers, the string of
 * each culture behind every $(string.X).  A reference that does not
 * resolve is reported where it is written and left NULL; nothing else is
 * given up because of it.  Events repeat the same few names: theirs are
 * looked up once per provider and then found by their interned pointers
 * (Memo, below).
 *
 * The names as written live only until here: an event's in the members
 * they resolve to (Event's unions), replaced here.  A field's
 * inType= and outType=, which name built-in types only, the reader
 * resolves as it reads them (resolve_field_types, below: each pair of
 * interned local name and namespace looked up once a manifest), keeping
 * the names only where one did not resolve, for the report here.
 */
#include "mcgen.h"

#include <stdlib.h>
#include <string.h>


static Level *find_level(Manifest *m, Provider *pv, QName q)
{
    Level *l = qmap_get(&pv->level_by_name, q);
    if (!l && strcmp(q.ns, NS_WIN) == 0)
        l = map_get(&m->wm.level_by_name, q.local);
    return l;
}

static Task *find_task(Manifest *m, Provider *pv, QName q)
{
    Task *t = qmap_get(&pv->task_by_name, q);
    if (!t && strcmp(q.ns, NS_WIN) == 0)
        t = map_get(&m->wm.task_by_name, q.local);
    return t;
}

/* The first of a task's opcodes named q (qmap_get's answer for a map of
 * them: an item with no name is in no map). */
static Opcode *task_opcode(const Task *t, QName q)
{
    for (size_t i = 0; i < t->opcodes.n; i++) {
        Opcode *o = t->opcodes.v[i];
        if (o->n.name.local[0] && strcmp(o->n.name.local, q.local) == 0 &&
            (o->n.name.ns == q.ns || strcmp(o->n.name.ns, q.ns) == 0))
            return o;
    }
    return NULL;
}

static Opcode *find_opcode(Manifest *m, Provider *pv, Task *task, QName q)
{
    Opcode *o = task ? task_opcode(task, q) : NULL;
    if (!o)
        o = qmap_get(&pv->opcode_by_name, q);
    if (!o && strcmp(q.ns, NS_WIN) == 0)
        o = map_get(&m->wm.opcode_by_name, q.local);
    return o;
}

static bool in_some_task(Provider *pv, QName q)
{
    for (size_t i = 0; i < pv->tasks.n; i++)
        if (task_opcode(pv->tasks.v[i], q))
            return true;
    return false;
}

static Keyword *find_keyword(Manifest *m, Provider *pv, QName q)
{
    Keyword *k = qmap_get(&pv->keyword_by_name, q);
    if (!k && strcmp(q.ns, NS_WIN) == 0)
        k = map_get(&m->wm.keyword_by_name, q.local);
    return k;
}

static Channel *find_channel(Provider *pv, const char *ref)
{
    for (size_t i = 0; i < pv->channels.n; i++) {
        Channel *c = pv->channels.v[i];
        if ((c->chid && strcmp(c->chid, ref) == 0) || strcmp(c->name, ref) == 0)
            return c;
    }
    return NULL;
}

static Channel *auto_import(Manifest *m, Provider *pv, Channel *wm, Loc loc)
{
    Channel *c = arena_alloc(&m->arena, sizeof *c);
    c->name = wm->name;
    c->chid = wm->name;
    c->type = wm->type;
    c->value = wm->value;
    c->imported = c->auto_imported = true;
    c->import_of = wm;
    c->owner = pv;
    c->loc = loc;
    c->index = (uint32_t)pv->channels.n;
    vec_push(&pv->channels, c);
    return c;
}

/* importChannel of a winmeta channel: it takes the built-in value and type
 * (provider-local, done when the provider ends). */
static void resolve_builtin_imports(Manifest *m, Provider *pv)
{
    for (size_t i = 0; i < pv->channels.n; i++) {
        Channel *c = pv->channels.v[i];
        if (!c->imported || c->auto_imported)
            continue;
        Channel *wm = map_get(&m->wm.channel_by_name, c->name);
        if (wm) {
            c->import_of = wm;
            c->value = wm->value;
            c->has_value = true;
            c->type = wm->type;
        }
    }
}

/* importChannel of a channel of another provider of this manifest (by
 * name or chid), once every provider is read.  mc accepts names it cannot
 * find and numbers them like the provider's own channels. */
static void link_foreign_imports(Manifest *m, Provider *pv)
{
    for (size_t i = 0; i < pv->channels.n; i++) {
        Channel *c = pv->channels.v[i];
        if (!c->imported || c->auto_imported || c->import_of)
            continue;
        for (size_t j = 0; j < m->providers.n && !c->import_of; j++) {
            Provider *o = m->providers.v[j];
            if (o == pv)
                continue;
            for (size_t k = 0; k < o->channels.n; k++) {
                Channel *x = o->channels.v[k];
                if (x->imported)
                    continue;
                if (strcmp(x->name, c->name) == 0 || (x->chid && strcmp(x->chid, c->name) == 0)) {
                    c->import_of = x;
                    c->type = x->type;
                    break;
                }
            }
        }
    }
}

/* Channels without a value get the lowest free value from 16 up, in
 * channel order (etk-Large: the channel after an explicit 16 gets 17). */
static void assign_channel_values(Provider *pv)
{
    bool used[256] = {0};
    for (size_t i = 0; i < pv->channels.n; i++)
        if (pv->channels.v[i]->has_value)
            used[pv->channels.v[i]->value] = true;
    unsigned next = 16;
    for (size_t i = 0; i < pv->channels.n; i++) {
        Channel *c = pv->channels.v[i];
        if (c->has_value || c->auto_imported)
            continue;
        while (next < 256 && used[next])
            next++;
        if (next < 256) {
            c->value = (uint8_t)next;
            used[next] = true;
        }
    }
}

/* A reference that does not resolve: an error, or in a decompiled
 * manifest a warning reported once per distinct message. */
static void unresolved(Manifest *m, Provider *pv, Loc loc, const char *fmt, ...)
    PRINTF_LIKE(4, 5);
static void unresolved(Manifest *m, Provider *pv, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (!provider_decompiled(pv)) {
        diag_vc(D_REF_UNKNOWN, loc, fmt, ap);
        va_end(ap);
        return;
    }
    Buf b = {0};
    buf_vprintf(&b, fmt, ap);
    va_end(ap);
    const char *key = arena_strndup(&m->arena, b.s, b.len);
    if (!map_put(&pv->warned, key, (void *)key, true))
        diag_c(D_LENIENT, loc,
                "%s; left unresolved (decompiled manifest: provider has source='%s'; "
                "further uses not reported)",
                key, pv->source);
    buf_free(&b);
}

static Field *find_sibling(Field **v, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i]->name, name) == 0)
            return v[i];
    return NULL;
}

/* A field's count= or length= names a field among its siblings v[0..n),
 * else at the top level. */
static void resolve_quantity(Manifest *m, Provider *pv, Layout *l, Field **v, size_t n, Field *f,
                             const Quantity *cq, const char *what)
{
    if (cq->kind != QTY_FIELD)
        return;
    Quantity *q = (Quantity *)cq; /* read_man.c's, in the arena (Field.qty) */
    const char *name = q->text;
    Field *ref = find_sibling(v, n, name);
    if (!ref && v != l->fields.v)
        ref = find_sibling(l->fields.v, l->fields.n, name);
    if (!ref)
        unresolved(m, pv, q->loc, "unknown field '%s' in %s= of <%s> '%s' (template '%s')",
                name, what, f->is_struct ? "struct" : "data", f->name, l->tid);
    q->ref = ref;
}

/* What resolve_field_types found for a (local name, namespace) pair: a
 * manifest has thousands of <data> and a handful of types.  The local
 * names are interned by the reader (one pointer a name for the whole
 * parse), the namespaces are not (a declaration's URI may go with its
 * element), so a namespace is keyed by what it is. */
enum { NS_OTHER, NS_IS_WIN, NS_IS_XS, TYPE_MEMO_SLOTS = 64 };
typedef struct TypeSlot {
    const char *local; /* NULL: empty */
    int ns;
    const void *type;
} TypeSlot;
typedef struct TypeMemo {
    TypeSlot in[TYPE_MEMO_SLOTS], out[TYPE_MEMO_SLOTS];
} TypeMemo;

static int ns_kind(const char *ns)
{
    return strcmp(ns, NS_WIN) == 0 ? NS_IS_WIN : strcmp(ns, NS_XS) == 0 ? NS_IS_XS : NS_OTHER;
}

static TypeSlot *type_slot(TypeSlot *v, const char *local, int ns)
{
    uintptr_t x = (uintptr_t)local;
    return &v[((x >> 3) ^ (x >> 11) ^ (uintptr_t)ns) & (TYPE_MEMO_SLOTS - 1)];
}

static OutType *out_type_of(Manifest *m, QName out_q, int ns)
{
    OutType *t = NULL;
    char key[512];
    const char *pfx = ns == NS_IS_XS ? "xs:" : ns == NS_IS_WIN ? "win:" : NULL;
    size_t pl = pfx ? strlen(pfx) : 0, ll = strlen(out_q.local);
    if (pfx && pl + ll < sizeof key) {
        memcpy(key, pfx, pl);
        memcpy(key + pl, out_q.local, ll + 1);
        t = map_get(&m->wm.out_by_name, key);
    }
    /* mc accepts an outType by its local name in either namespace
     * (etk-wpf-etw, compiled by mc, writes xs:HexInt64) */
    for (size_t k = 0; !t && k < m->wm.out_types.n; k++)
        if (strcmp(m->wm.out_types.v[k]->name.local, out_q.local) == 0)
            t = m->wm.out_types.v[k];
    return t;
}

void resolve_field_types(Manifest *m, Field *f, QName in_q, QName out_q)
{
    if (!m->type_memo)
        m->type_memo = arena_alloc(&m->scratch, sizeof *m->type_memo);
    TypeMemo *mo = m->type_memo;
    if (in_q.local) {
        int ns = ns_kind(in_q.ns);
        TypeSlot *s = type_slot(mo->in, in_q.local, ns);
        if (s->local != in_q.local || s->ns != ns)
            *s = (TypeSlot){in_q.local, ns,
                            ns == NS_IS_WIN ? map_get(&m->wm.in_by_name, in_q.local) : NULL};
        f->in_type_no = s->type ? ((const InType *)s->type)->number : 0;
    }
    if (f->has_out) {
        int ns = ns_kind(out_q.ns);
        TypeSlot *s = type_slot(mo->out, out_q.local, ns);
        if (s->local != out_q.local || s->ns != ns)
            *s = (TypeSlot){out_q.local, ns, out_type_of(m, out_q, ns)};
        f->out_type_no = s->type ? ((const OutType *)s->type)->number : 0;
    }
    if ((in_q.local && !field_in_type(f)) || (f->has_out && !field_out_type(f))) {
        QName *w = arena_alloc(&m->scratch, 2 * sizeof *w);
        w[0] = in_q, w[1] = out_q;
        ptrmap_put(&m->types_written, f, w);
    }
}

static void resolve_fields(Manifest *m, Provider *pv, Layout *l, Field **v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        Field *f = v[i];
        resolve_quantity(m, pv, l, v, n, f, &f->qty->count, "count");
        resolve_quantity(m, pv, l, v, n, f, &f->qty->length, "length");
        if (f->is_struct) {
            resolve_fields(m, pv, l, f->members.v, f->members.n);
            continue;
        }
        /* the types were resolved as read (resolve_field_types): what did
         * not resolve is reported here, in document order */
        const QName *w = !field_in_type(f) || (f->has_out && !field_out_type(f))
                             ? ptrmap_get(&m->types_written, f)
                             : NULL;
        if (w && w[0].local && !field_in_type(f))
            unresolved(m, pv, loc_in(f->loc, f->in_pos), "unknown inType '%s' on <data> '%s'",
                    qname_display(&m->arena, w[0]), f->name);
        if (w && f->has_out && !field_out_type(f))
            unresolved(m, pv, loc_in(f->loc, f->out_pos), "unknown outType '%s' on <data> '%s'",
                    qname_display(&m->arena, w[1]), f->name);
        if (f->map_name) {
            f->map = map_get(&pv->map_by_name, f->map_name);
            if (!f->map)
                unresolved(m, pv, loc_in(f->loc, f->map_pos), "unknown map '%s' on <data> '%s'",
                        f->map_name, f->name);
        }
    }
}

/* What a provider's events resolved last, by the names' interned
 * pointers: the reader interns every name an event writes (xml_intern,
 * xml_qname_n), and events name the same few channels, levels, opcodes and
 * keywords and their task over and over, so most references cost a pointer
 * compare instead of a hash of the name, a probe and a strcmp.  A slot
 * holds the last resolution whose keys hash to it; only what resolved is
 * kept (what did not is reported each time, as before).  One per provider:
 * the same name may mean another item in another provider. */
enum { MEMO_CHANNEL, MEMO_LEVEL, MEMO_TASK, MEMO_OPCODE, MEMO_KEYWORD, MEMO_TEMPLATE, MEMO_KINDS };
enum { MEMO_SLOTS = 64 };

typedef struct MemoSlot {
    const void *k[3];
    void *hit;
} MemoSlot;

typedef struct Memo {
    MemoSlot s[MEMO_KINDS][MEMO_SLOTS];
} Memo;

static MemoSlot *memo_slot(Memo *mo, int kind, const void *k0, const void *k1, const void *k2)
{
    uint64_t x = (uint64_t)(uintptr_t)k0 ^ (uint64_t)(uintptr_t)k1 * 7 ^ (uint64_t)(uintptr_t)k2 * 31;
    x *= 0x9e3779b97f4a7c15ull;
    return &mo->s[kind][x >> 58];
}

static void *memo_get(Memo *mo, int kind, const void *k0, const void *k1, const void *k2)
{
    const MemoSlot *s = memo_slot(mo, kind, k0, k1, k2);
    return s->k[0] == k0 && s->k[1] == k1 && s->k[2] == k2 ? s->hit : NULL;
}

static void *memo_put(Memo *mo, int kind, const void *k0, const void *k1, const void *k2,
                      void *hit)
{
    if (hit)
        *memo_slot(mo, kind, k0, k1, k2) = (MemoSlot){{k0, k1, k2}, hit};
    return hit;
}

static Channel *event_channel(Provider *pv, Memo *mo, const char *ref)
{
    Channel *c = memo_get(mo, MEMO_CHANNEL, ref, NULL, NULL);
    return c ? c : memo_put(mo, MEMO_CHANNEL, ref, NULL, NULL, find_channel(pv, ref));
}

static Level *event_level(Manifest *m, Provider *pv, Memo *mo, QName q)
{
    Level *l = memo_get(mo, MEMO_LEVEL, q.local, q.ns, NULL);
    return l ? l : memo_put(mo, MEMO_LEVEL, q.local, q.ns, NULL, find_level(m, pv, q));
}

static Task *event_task(Manifest *m, Provider *pv, Memo *mo, QName q)
{
    Task *t = memo_get(mo, MEMO_TASK, q.local, q.ns, NULL);
    return t ? t : memo_put(mo, MEMO_TASK, q.local, q.ns, NULL, find_task(m, pv, q));
}

static Opcode *event_opcode(Manifest *m, Provider *pv, Memo *mo, Task *task, QName q)
{
    Opcode *o = memo_get(mo, MEMO_OPCODE, q.local, q.ns, task);
    return o ? o : memo_put(mo, MEMO_OPCODE, q.local, q.ns, task, find_opcode(m, pv, task, q));
}

static Keyword *event_keyword(Manifest *m, Provider *pv, Memo *mo, QName q)
{
    Keyword *k = memo_get(mo, MEMO_KEYWORD, q.local, q.ns, NULL);
    return k ? k : memo_put(mo, MEMO_KEYWORD, q.local, q.ns, NULL, find_keyword(m, pv, q));
}

static Layout *event_layout(Provider *pv, Memo *mo, const char *tid)
{
    Layout *l = memo_get(mo, MEMO_TEMPLATE, tid, NULL, NULL);
    return l ? l : memo_put(mo, MEMO_TEMPLATE, tid, NULL, NULL, map_get(&pv->layout_by_tid, tid));
}

static void resolve_event(Manifest *m, Provider *pv, Memo *mo, Event *ev)
{
    Arena *a = &m->arena;
    if (!ev->refs_written)
        return;
    ev->refs_written = false;
    /* each reference as written, taken before its member gets what it names */
    const char *channel_ref = ev->channel_ref, *template_ref = ev->template_ref;
    const QName *level_q = ev->level_q, *task_q = ev->task_q, *opcode_q = ev->opcode_q;
    ev->channel = NULL, ev->level = NULL, ev->task = NULL, ev->opcode = NULL, ev->layout = NULL;
    if (channel_ref) {
        ev->channel = event_channel(pv, mo, channel_ref);
        if (!ev->channel) {
            Channel *wm = map_get(&m->wm.channel_by_name, channel_ref);
            if (wm)
                ev->channel = memo_put(mo, MEMO_CHANNEL, channel_ref, NULL, NULL,
                                       auto_import(m, pv, wm, loc_in(ev->loc, ev->channel_pos)));
            else
                unresolved(m, pv, loc_in(ev->loc, ev->channel_pos),
                        "unknown channel '%s' (not a channel, chid or importChannel of provider "
                        "'%s', nor a built-in channel)",
                        channel_ref, pv->name);
        }
    }
    if (ev->has_level && !(ev->level = event_level(m, pv, mo, *level_q)))
        unresolved(m, pv, loc_in(ev->loc, ev->level_pos), "unknown level '%s'",
                qname_display(a, *level_q));
    if (ev->has_task && !(ev->task = event_task(m, pv, mo, *task_q)))
        unresolved(m, pv, loc_in(ev->loc, ev->task_pos), "unknown task '%s'",
                qname_display(a, *task_q));
    /* an opcode of the task a task= meant to name is no second problem */
    if (ev->has_opcode && !(ev->opcode = event_opcode(m, pv, mo, ev->task, *opcode_q)) &&
        !(ev->has_task && !ev->task && in_some_task(pv, *opcode_q)))
        unresolved(m, pv, loc_in(ev->loc, ev->opcode_pos), "unknown opcode '%s'%s%s%s",
                qname_display(a, *opcode_q), ev->task ? " (in task '" : "",
                ev->task ? qname_display(a, ev->task->n.name) : "", ev->task ? "')" : "");
    /* the keywords take the words' array in place: the i-th word is read
     * before the n-th keyword (n <= i) is written over it */
    size_t words = ev->nkeywords;
    const QName **qs = ev->keyword_qs;
    ev->nkeywords = 0;
    for (size_t i = 0; i < words; i++) {
        const QName *q = qs[i];
        Keyword *k = event_keyword(m, pv, mo, *q);
        if (!k) {
            unresolved(m, pv, loc_in(ev->loc, ev->keywords_pos), "unknown keyword '%s'",
                    qname_display(a, *q));
            continue;
        }
        ev->keywords[ev->nkeywords++] = k;
    }
    if (!ev->nkeywords)
        ev->keywords = NULL;
    if (template_ref) {
        ev->layout = event_layout(pv, mo, template_ref);
        if (!ev->layout)
            unresolved(m, pv, loc_in(ev->loc, ev->template_pos), "unknown template '%s'",
                    template_ref);
    }
}

/* Every $(string.X) must name a string of some culture; the string of
 * each culture is kept with the reference. */
static void check_msg(Manifest *m, MsgRef *r, Loc at)
{
    if (!r->id)
        return;
    bool found = false;
    if (m->cultures.n) {
        r->text = arena_alloc(&m->arena, m->cultures.n * sizeof *r->text);
        for (size_t i = 0; i < m->cultures.n; i++)
            found |= (r->text[i] = map_get(&m->cultures.v[i]->by_id, r->id)) != NULL;
    }
    if (found)
        return;
    /* A manifest without any <localization> gets its strings from elsewhere
     * (Windows component manifests ship them as separate resources): the
     * reference is noted, not refused. */
    if (!m->cultures.n) {
        if (!m->warned_no_localization++)
            diag_c(D_NO_LOCALIZATION, at,
                    "string '%s' is not defined here: the manifest has no <localization> "
                    "(messages are left without text; further such references not reported)",
                    r->id);
        return;
    }
    diag_c(D_STRING_UNDEFINED, at, "undefined string '%s' in '$(string.%s)'", r->id, r->id);
}

/* fn's call for the reference of an owner that has a `loc` and a `msg`;
 * no position when no message= was written */
#define EACH(owner) \
    fn(m, &(owner)->msg, (owner)->msg.id ? loc_in((owner)->loc, (owner)->msg.pos) : (Loc){0}, arg)

void manifest_each_msgref(Manifest *m, void (*fn)(Manifest *m, MsgRef *r, Loc at, void *arg),
                          void *arg)
{
    for (size_t p = 0; p < m->providers.n; p++) {
        Provider *pv = m->providers.v[p];
        EACH(pv);
        for (size_t i = 0; i < pv->channels.n; i++)
            EACH(pv->channels.v[i]);
        for (size_t i = 0; i < pv->levels.n; i++)
            EACH(&pv->levels.v[i]->n);
        for (size_t i = 0; i < pv->tasks.n; i++) {
            Task *t = pv->tasks.v[i];
            EACH(&t->n);
            for (size_t j = 0; j < t->opcodes.n; j++)
                EACH(&t->opcodes.v[j]->n);
        }
        for (size_t i = 0; i < pv->opcodes.n; i++)
            EACH(&pv->opcodes.v[i]->n);
        for (size_t i = 0; i < pv->keywords.n; i++)
            EACH(&pv->keywords.v[i]->n);
        for (size_t i = 0; i < pv->maps.n; i++)
            for (size_t j = 0; j < pv->maps.v[i]->items.n; j++)
                EACH(pv->maps.v[i]->items.v[j]);
        for (size_t i = 0; i < pv->events.n; i++)
            EACH(pv->events.v[i]);
        for (size_t i = 0; i < pv->filters.n; i++)
            EACH(pv->filters.v[i]);
    }
    for (size_t i = 0; i < m->message_table.n; i++)
        EACH(m->message_table.v[i]);
}
#undef EACH

static void check_msg_cb(Manifest *m, MsgRef *r, Loc at, void *arg)
{
    (void)arg;
    check_msg(m, r, at);
}

/* Everything a provider's own references need. */
static void resolve_provider(Manifest *m, Provider *pv)
{
    resolve_builtin_imports(m, pv);
    assign_channel_values(pv);
    for (size_t j = 0; j < pv->layouts.n; j++) {
        Layout *l = pv->layouts.v[j];
        resolve_fields(m, pv, l, l->fields.v, l->fields.n);
    }
    Memo *mo = xcalloc(1, sizeof *mo);
    for (size_t j = 0; j < pv->events.n; j++)
        resolve_event(m, pv, mo, pv->events.v[j]);
    free(mo);
    for (size_t j = 0; j < pv->filters.n; j++) {
        Filter *f = pv->filters.v[j];
        if (f->tid && !(f->layout = map_get(&pv->layout_by_tid, f->tid)))
            unresolved(m, pv, f->loc, "unknown template '%s' on <filter>", f->tid);
    }
}

void check_resolve(Manifest *m)
{
    for (size_t i = 0; i < m->providers.n; i++)
        resolve_provider(m, m->providers.v[i]);
    /* what needs every provider: imports across providers */
    for (size_t i = 0; i < m->providers.n; i++)
        link_foreign_imports(m, m->providers.v[i]);
    /* the types as written (types_written) are all reported: their
     * block goes back before the rules and the emitters allocate theirs */
    arena_free(&m->scratch);
    m->type_memo = NULL;
    ptrmap_free(&m->types_written);
    manifest_each_msgref(m, check_msg_cb, NULL);
}
