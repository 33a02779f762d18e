/*
 * check_msgid.c - message ids, as mc.exe 10.0.18362 assigns them
 * (../shared/docs/message-ids.md; the #define MSG_* lines of the golden
 * headers are the ground truth, checked by tests/corpus_test.py).
 *
 *   id = tag << 28 | provider position << 24 | value (24 bits)
 *
 * with a tag and a value per kind of element.  A string has one id: the
 * first element that references it (providers in document order; within
 * a provider: the provider, channels, levels, tasks, opcodes, keywords,
 * events, map items, filters) fixes it and later references reuse it.
 * <messageTable> entries give ids explicitly and win over the formula.
 *
 * A built-in (win:) item's message is winmeta's string (level.Error,
 * channel.System), keyed by that string id like any manifest string: so a
 * winmeta channel imported by several providers has one id, the first
 * import's, as mc gives it (issue 15; each import still takes a value of
 * its provider's counter, as any channel whose string already has an id
 * does: the golden cases have no two imports of one winmeta channel to say
 * otherwise).  Levels, tasks, opcodes and keywords get the formula for
 * position 0, the same in every provider.  The header names such a
 * string (MSG_level_Error) only when the manifest's own string table
 * defines that id, as mc does (StringMsgId.in_header).
 */
#include "mcgen.h"

enum {
    TAG_EVENT_GLOBAL = 0x0,
    TAG_KEYWORD = 0x1,
    TAG_OPCODE = 0x3,
    TAG_LEVEL = 0x5, /* filters share it */
    TAG_TASK = 0x7,
    TAG_PROVIDER = 0x9, /* channels share its counter */
    TAG_EVENT = 0xB,
    TAG_VALUEMAP = 0xD,
    TAG_BITMAP = 0xF,
};

static uint32_t make(uint32_t tag, int provider, uint32_t value)
{
    /* Four bits of provider position: mc numbers at most 16 providers
     * (later ones must get their ids through <messageTable>). */
    return tag << 28 | (uint32_t)(provider & 0xF) << 24 | (value & 0xFFFFFF);
}

/* The id of string `key`, given `id` if it has none yet. */
static StringMsgId *string_id(Manifest *m, const char *key, uint32_t id)
{
    void **known = map_ref(&m->msgid_by_string, key);
    if (!*known) {
        StringMsgId *s = arena_alloc(&m->arena, sizeof *s);
        *s = (StringMsgId){id, false};
        *known = s;
    }
    return *known;
}

/* Gives `r` the id of its string if the string has one, else `id`. */
static void give(Manifest *m, MsgRef *r, uint32_t id)
{
    if (r->id) {
        StringMsgId *s = string_id(m, r->id, id);
        s->in_header = true;
        id = s->id;
    }
    r->msgid = id;
    r->has_msgid = true;
}

/* Does some culture of the manifest define string `id`? */
static bool defined_here(const Manifest *m, const char *id)
{
    for (size_t i = 0; i < m->cultures.n; i++)
        if (manifest_string(m, m->cultures.v[i], id))
            return true;
    return false;
}

/* Gives `r`, the message of a built-in item whose winmeta string id is
 * `key`, that string's id, or `id` if it has none yet. */
static void give_builtin(Manifest *m, MsgRef *r, const char *key, uint32_t id)
{
    StringMsgId *s = string_id(m, key, id);
    if (defined_here(m, key))
        s->in_header = true;
    r->msgid = s->id;
    r->has_msgid = true;
}

/* Bit length of a mask: the index of its highest set bit, plus one. */
static uint32_t bit_length(uint64_t mask)
{
    /* a halving search, not a shift a bit (win: keywords have bit 63 set) */
    uint32_t n = 0;
    for (uint32_t step = 32; step; step >>= 1)
        if (mask >> (n + step - 1) >> 1)
            n += step;
    return mask ? n + 1 : 0;
}

/* A built-in item gets winmeta's id once (position 0). */
static void builtin(Manifest *m, Named *n, uint32_t tag, uint32_t value)
{
    if (n->builtin && !n->msg.has_msgid)
        give_builtin(m, &n->msg, n->builtin_msgid, make(tag, 0, value));
}

/* An event on an imported System, Application or Security channel uses
 * tag 0: its message id then equals its event id for provider 0. */
static bool global_channel(const Channel *c)
{
    return c && c->imported && c->import_of && c->import_of->builtin && c->value >= 8 &&
           c->value <= 10;
}

static void assign_provider(Manifest *m, Provider *pv)
{
    int p = pv->index;
    uint32_t counter = 1;
    if (pv->msg.id)
        give(m, &pv->msg, make(TAG_PROVIDER, p, counter++));
    for (size_t i = 0; i < pv->channels.n; i++) {
        Channel *c = pv->channels.v[i];
        /* imports of winmeta channels carry winmeta's message; imports of
         * other channels carry none */
        bool winmeta = c->imported && c->import_of && c->import_of->builtin;
        if (winmeta)
            give_builtin(m, &c->msg, c->import_of->builtin_msgid, make(TAG_PROVIDER, p, counter++));
        else if (c->msg.id)
            give(m, &c->msg, make(TAG_PROVIDER, p, counter++));
    }
    for (size_t i = 0; i < pv->levels.n; i++)
        if (pv->levels.v[i]->n.msg.id)
            give(m, &pv->levels.v[i]->n.msg, make(TAG_LEVEL, p, pv->levels.v[i]->value));
    for (size_t i = 0; i < pv->tasks.n; i++)
        if (pv->tasks.v[i]->n.msg.id)
            give(m, &pv->tasks.v[i]->n.msg, make(TAG_TASK, p, pv->tasks.v[i]->value));
    for (size_t i = 0; i < pv->opcodes.n; i++)
        if (pv->opcodes.v[i]->n.msg.id)
            give(m, &pv->opcodes.v[i]->n.msg, make(TAG_OPCODE, p, pv->opcodes.v[i]->value));
    for (size_t i = 0; i < pv->tasks.n; i++) {
        Task *t = pv->tasks.v[i];
        for (size_t j = 0; j < t->opcodes.n; j++) {
            Opcode *o = t->opcodes.v[j];
            if (o->n.msg.id)
                give(m, &o->n.msg,
                     make(TAG_OPCODE, p, (uint32_t)(t->value & 0xFF) << 16 | o->value));
        }
    }
    for (size_t i = 0; i < pv->keywords.n; i++)
        if (pv->keywords.v[i]->n.msg.id)
            give(m, &pv->keywords.v[i]->n.msg,
                 make(TAG_KEYWORD, p, bit_length(pv->keywords.v[i]->mask)));
    for (size_t i = 0; i < pv->events.n; i++) {
        Event *e = pv->events.v[i];
        if (e->msg.id)
            give(m, &e->msg,
                 make(global_channel(e->channel) ? TAG_EVENT_GLOBAL : TAG_EVENT, p,
                      (uint32_t)e->version << 16 | e->value));
        /* built-in items the event uses get winmeta's ids */
        if (e->level)
            builtin(m, &e->level->n, TAG_LEVEL, e->level->value);
        if (e->task)
            builtin(m, &e->task->n, TAG_TASK, e->task->value);
        if (e->opcode)
            builtin(m, &e->opcode->n, TAG_OPCODE, e->opcode->value);
        for (size_t k = 0; k < e->nkeywords; k++) {
            Keyword *kw = e->keywords[k]; /* the bit length only for the first use */
            if (kw->n.builtin && !kw->n.msg.has_msgid)
                builtin(m, &kw->n, TAG_KEYWORD, bit_length(kw->mask));
        }
    }
    uint32_t values = 1, bits = 1;
    for (size_t i = 0; i < pv->maps.n; i++) {
        ValueMap *vm = pv->maps.v[i];
        if (vm->kind == MAP_PATTERN)
            continue;
        for (size_t j = 0; j < vm->items.n; j++) {
            MapItem *it = vm->items.v[j];
            if (!it->msg.id)
                continue; /* an item without message takes no number */
            if (vm->kind == MAP_VALUE)
                give(m, &it->msg, make(TAG_VALUEMAP, p, values++));
            else
                give(m, &it->msg, make(TAG_BITMAP, p, bits++));
        }
    }
    for (size_t i = 0; i < pv->filters.n; i++) {
        Filter *f = pv->filters.v[i];
        if (f->msg.id)
            give(m, &f->msg,
                 make(TAG_LEVEL, p, 0x80u << 16 | (uint32_t)f->version << 8 | f->value));
    }
}

void msgid_assign(Manifest *m)
{
    /* sized once: a valid manifest references only strings it defines
     * (and a few of winmeta's), nearly all of them, each keyed once */
    size_t strings = 0;
    for (size_t i = 0; i < m->cultures.n; i++)
        if (m->cultures.v[i]->strings.n > strings)
            strings = m->cultures.v[i]->strings.n;
    map_reserve(&m->msgid_by_string, strings + m->message_table.n);
    /* explicit ids first: they win over every formula */
    for (size_t i = 0; i < m->message_table.n; i++) {
        MessageEntry *e = m->message_table.v[i];
        give(m, &e->msg, e->value);
    }
    for (size_t i = 0; i < m->providers.n; i++)
        assign_provider(m, m->providers.v[i]);
}
