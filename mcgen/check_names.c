/*
 * check_names.c - the names the C header gives a checked manifest, and the
 * clashes among them (MCG8001), decided in the check stage so that
 * `--validate` and a compile report the same ones and the header emitter
 * only reads them (Facts, check.c).
 *
 * Two name spaces, as in mc's header: the event macros (EventWrite<Sym>,
 * one per event symbol, across providers) and the #defines and variables
 * of the descriptors part (provider, channel, level, opcode, task and
 * keyword symbols, task GUIDs).  A name taken already gets
 * <name>_<ProviderSymbol> (then _2, _3 ...) and a warning: mc writes both
 * and its header does not compile.  A #define that repeats with the same
 * value is no clash (C allows it).  The walk is the header's own order, so
 * the first of two claims keeps the name.
 */
#include "mcgen.h"

#include <stdlib.h>
#include <string.h>

/* What a byte may be in a C identifier: 1 anywhere (a letter, '_'), 2
 * not first (a digit), 0 nowhere; a table, as every event's and field's
 * name passes through here. */
/* clang-format off */
static const unsigned char ident_class[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0,
    0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1,
    0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0,
    /* 0x80-0xFF: 0 */
};
/* clang-format on */

/* How many bytes at the start of name are an identifier already. */
static size_t ident_prefix(const char *name)
{
    const unsigned char *s = (const unsigned char *)name;
    if (ident_class[s[0]] != 1)
        return 0;
    /* four bytes a round: every event's symbol passes through here; the
     * terminating NUL (class 0) stops each test before the next byte */
    size_t i = 1;
    for (;; i += 4) {
        if (!ident_class[s[i]])
            return i;
        if (!ident_class[s[i + 1]])
            return i + 1;
        if (!ident_class[s[i + 2]])
            return i + 2;
        if (!ident_class[s[i + 3]])
            return i + 3;
    }
}

/* Whether name is already what header_ident would make of it. */
static bool is_ident(const char *name) { return name[ident_prefix(name)] == '\0'; }

/* Makes bytes from..n of s what header_ident makes of them. */
static void ident_in_place(char *s, size_t from, size_t n)
{
    for (size_t i = from; i < n; i++) {
        unsigned char k = ident_class[(unsigned char)s[i]];
        if (k == 0 || (k == 2 && i == 0))
            s[i] = '_';
    }
}

char *header_ident(Arena *a, const char *name)
{
    size_t n = strlen(name);
    char *s = arena_strndup(a, name, n);
    ident_in_place(s, 0, n);
    return s;
}

/* The n parts one after another in one string of the arena, part
 * `ident` made an identifier as header_ident makes it (-1: none): the
 * names made here (<ProvSym>_TASK_<name>, <task>Id, <name>_<ProvSym>)
 * without printf, as most items of a manifest have no symbol= and each
 * gets one. */
static const char *name_join(Arena *a, int ident, size_t n, const char *const *parts)
{
    size_t len[5], total = 0;
    guard_here(n <= 5, "name_join of more than 5 parts");
    for (size_t k = 0; k < n; k++)
        total += len[k] = strlen(parts[k]);
    char *s = arena_alloc(a, total + 1), *q = s;
    for (size_t k = 0; k < n; k++) {
        memcpy(q, parts[k], len[k]);
        if ((int)k == ident)
            ident_in_place(q, 0, len[k]);
        q += len[k];
    }
    return s;
}

const char *header_ident_of(Arena *a, const char *name)
{
    /* the emitters ask for every field's and message's name: the bytes
     * before the first that is not an identifier's are looked at once */
    size_t ok = ident_prefix(name);
    if (!name[ok])
        return name;
    size_t n = ok + strlen(name + ok);
    char *s = arena_strndup(a, name, n);
    ident_in_place(s, ok, n);
    return s;
}

/* Which providers repeat the symbol= (or, both without one, the name) of
 * an earlier provider: MCG2017 reports that (check_rules.c), and every
 * name made from the repeated prefix clashes with the earlier provider's,
 * so the renames of its items say nothing new.  One map probe a provider
 * (a pairwise search took 100 s for 100,000 providers); heap, n entries. */
static bool *repeated_providers(const Manifest *m)
{
    bool *r = xcalloc(m->providers.n + 1, sizeof *r);
    Map symbols = {0}, names = {0};
    for (size_t i = 0; i < m->providers.n; i++) {
        const Provider *pv = m->providers.v[i];
        bool written = pv->symbol && *pv->symbol;
        r[i] = written ? map_put(&symbols, pv->symbol, (void *)pv, true) != NULL
                       : map_put(&names, pv->name, (void *)pv, true) != NULL;
    }
    map_free(&symbols);
    map_free(&names);
    return r;
}

/* ---- event macros ---- */

/* An event with its provider: what holds a name in name_events. */
typedef struct Holder {
    const Event *e;
    const Provider *pv;
} Holder;

/* v in hex as %x writes it, at q; returns where it ends. */
static char *hex_put(char *q, uint64_t v)
{
    char tmp[16];
    int n = 0;
    do
        tmp[n++] = "0123456789abcdef"[v & 15];
    while (v >>= 4);
    while (n)
        *q++ = tmp[--n];
    return q;
}

/* mc's name for an event without symbol=: <ProvSym>_EVENT_0x followed by
 * its id, version, channel, level, opcode, task and keyword in hex,
 * joined by '_'; without printf, as a manifest whose events have no
 * symbol= makes one for each. */
static const char *event_made_name(Arena *a, const char *ps, const uint64_t v[7])
{
    char tail[sizeof "_EVENT_0x" + 7 * 17], *q = tail;
    memcpy(q, "_EVENT_0x", 9);
    q += 9;
    for (int k = 0; k < 7; k++) {
        if (k)
            *q++ = '_';
        q = hex_put(q, v[k]);
    }
    *q = '\0';
    return name_join(a, -1, 2, (const char *[]){ps, tail});
}

/* symbol=, or mc's synthesized <ProvSym>_EVENT_0x<id>_<ver>_<chan>_<level>
 * _<opcode>_<task>_<keyword>. */
static void name_events(Manifest *m, Facts *f)
{
    Arena *a = &f->arena;
    /* name -> the Holder of the event that has it; one map, not a second
     * one for the provider: a large manifest names 100,000 events */
    Map taken = {0};
    size_t events = 0; /* nearly every event takes a name: sized once */
    for (size_t i = 0; i < m->providers.n; i++)
        events += m->providers.v[i]->events.n;
    map_reserve(&taken, events);
    ptrmap_reserve(&f->event_names, m->providers.n);
    Arena holders = {0}; /* gone with the map */
    bool *repeated = repeated_providers(m);
    for (size_t i = 0; i < m->providers.n; i++) {
        const Provider *pv = m->providers.v[i];
        const char *pn = pv->symbol && *pv->symbol ? pv->symbol : pv->name;
        const char *ps = is_ident(pn) ? pn : header_ident(a, pn);
        bool repeats = repeated[i];
        const char **names = pv->events.n ? arena_alloc(a, pv->events.n * sizeof *names) : NULL;
        ptrmap_put(&f->event_names, pv, (void *)names);
        for (size_t j = 0; j < pv->events.n; j++) {
            Event *e = pv->events.v[j];
            const char *s = e->symbol && *e->symbol ? e->symbol : NULL;
            if (s && !is_ident(s)) {
                const char *fixed = header_ident(a, s);
                diag_c(D_SYMBOL_RENAMED, e->loc,
                        "event symbol '%s' is not a C identifier; the header calls it %s", s,
                        fixed);
                s = fixed;
            }
            if (!s)
                s = event_made_name(
                    a, ps,
                    (const uint64_t[7]){e->value, e->version, event_descriptor_channel(e, pv),
                                        e->level ? e->level->value : 0,
                                        e->opcode ? e->opcode->value : 0,
                                        e->task ? e->task->value : 0, event_descriptor_keyword(e)});
            /* one probe: the event that has the name already, or (NULL)
             * the name is taken for this one now */
            Holder *h = NULL;
            const Holder *held = NULL;
            if (!e->not_logged) {
                h = arena_alloc(&holders, sizeof *h);
                *h = (Holder){e, pv};
                held = map_put(&taken, s, h, true);
            }
            const Event *first = held ? held->e : NULL;
            if (first) {
                const char *renamed = name_join(a, -1, 3, (const char *[]){s, "_", ps});
                for (int k = 2; map_get(&taken, renamed); k++)
                    renamed = arena_printf(a, "%s_%s_%d", s, ps, k);
                /* in one provider, one symbol= twice is MCG2020 (check_rules.c)
                 * and one made name twice is one event value twice (MCG2010) */
                const Provider *fp = held->pv;
                bool same = fp == pv;
                bool wrote = e->symbol && *e->symbol, first_wrote = first->symbol && *first->symbol;
                if (!repeats &&
                    (!same || wrote != first_wrote || (wrote && strcmp(e->symbol, first->symbol))))
                    diag_ex(D_SYMBOL_RENAMED, e->loc, first->loc, "first defined",
                            "%s '%s' %s event %s is also %s event %s of %s; the header "
                            "calls this event's descriptor and macros %s (EventWrite%s, "
                            "EventEnabled%s)",
                            wrote ? "symbol" : "the name", s,
                            wrote ? "of" : "the header makes for", event_label(a, e),
                            first_wrote ? "the symbol of" : "the name the header makes for",
                            event_label(a, first),
                            same ? "the same provider"
                                 : arena_printf(a, "provider '%s'", fp->name),
                            renamed, renamed, renamed);
                s = renamed;
            }
            names[j] = s;
            if (first) /* the new name, free (above) */
                map_put(&taken, s, h, false);
        }
    }
    map_free(&taken);
    arena_free(&holders);
    free(repeated);
}

/* ---- the descriptors part ---- */

typedef struct Claims {
    Facts *f;
    Map taken; /* name -> its Claim */
    const char *ps;
    bool quiet; /* the provider repeats an earlier one (MCG2017) */
} Claims;

/* What a name made from an item's name stands for: the item's kind, its
 * scope (the provider, a task for a task's opcodes, NULL for providers)
 * and the name as written.  Two claims with one Origin are two items of
 * one name in one scope, which check_rules.c reports as a duplicate
 * (MCG2011-2017): the clash of their header names is the same fact. */
typedef struct Origin {
    const char *kind;
    const void *scope;
    const char *name;
} Origin;

typedef struct Claim {
    bool is_define; /* a #define, with a value */
    bool written;   /* the manifest's symbol=, not a name made here */
    int64_t value;
    Origin from; /* of a name made here */
} Claim;

static bool same_origin(const Origin *a, const Origin *b)
{
    return a->kind && b->kind && strcmp(a->kind, b->kind) == 0 && a->scope == b->scope &&
           strcmp(a->name, b->name) == 0;
}

/* The name `sym` for an item; value: a #define's (NULL: a variable); from:
 * what a name made here stands for (NULL for symbol=).  Two written
 * symbol= that are not both #defines are MCG8011's to report (check_rules.c),
 * and two items of one name in one scope a duplicate's, so the rename
 * says nothing more then. */
static const char *claim(Claims *c, const char *sym, const int64_t *value, bool written,
                         const Origin *from, Loc loc)
{
    Arena *a = &c->f->arena;
    void **slot = map_ref(&c->taken, sym); /* one probe for a name that is free */
    const Claim *had = *slot;
    if (had && value && had->is_define && had->value == *value)
        return sym;
    if (had) {
        const char *renamed = name_join(a, -1, 3, (const char *[]){sym, "_", c->ps});
        for (int k = 2; map_get(&c->taken, renamed); k++)
            renamed = arena_printf(a, "%s_%s_%d", sym, c->ps, k);
        if (!(written && had->written && !(value && had->is_define)) &&
            !(from && same_origin(from, &had->from)) && !c->quiet)
            diag_c(D_SYMBOL_RENAMED, loc,
                    "'%s' names another item of the header already; the header calls this one %s",
                    sym, renamed);
        sym = renamed;
        slot = map_ref(&c->taken, sym);
    }
    Claim *n = arena_alloc(a, sizeof *n);
    *n = (Claim){value != NULL, written, value ? *value : 0, from ? *from : (Origin){0}};
    *slot = n;
    return sym;
}

/* A #define: the item's symbol=, else <ProvSym>_<KIND>_<name>; scope:
 * where its name must be unique (the provider, or a task). */
static void define(Claims *c, const void *item, const char *symbol, const char *kind,
                   const char *name, int64_t value, const void *scope, Loc loc)
{
    Arena *a = &c->f->arena;
    bool written = symbol && *symbol;
    const char *sym = written ? header_ident_of(a, symbol)
                              : name_join(a, 4, 5, (const char *[]){c->ps, "_", kind, "_", name});
    Origin from = {kind, scope, name};
    ptrmap_put(&c->f->names, item, (void *)claim(c, sym, &value, written, &from, loc));
}

/* A level, opcode or keyword the manifest declares (winmeta's have theirs
 * in the SDK); name: the item's, unless given. */
static void define_item(Claims *c, const void *item, const Named *n, const char *kind,
                        const char *name, int64_t value, const void *scope)
{
    if (!n->builtin)
        define(c, item, n->symbol, kind, name ? name : n->written, value, scope, n->loc);
}

static void name_descriptors(Manifest *m, Facts *f)
{
    Claims c = {f, {0}, NULL, false};
    Arena *a = &f->arena;
    bool *repeated = repeated_providers(m);
    size_t names = 0; /* sized once: each item claims one or two */
    for (size_t i = 0; i < m->providers.n; i++) {
        const Provider *pv = m->providers.v[i];
        names += 1 + pv->channels.n + pv->levels.n + pv->opcodes.n + 2 * pv->tasks.n +
                 pv->keywords.n;
        for (size_t j = 0; j < pv->tasks.n; j++)
            names += pv->tasks.v[j]->opcodes.n;
    }
    map_reserve(&c.taken, names);
    for (size_t i = 0; i < m->providers.n; i++) {
        const Provider *pv = m->providers.v[i];
        bool written = pv->symbol && *pv->symbol;
        Origin named = {"PROVIDER", NULL, pv->name};
        c.quiet = repeated[i];
        c.ps = claim(&c, header_ident(a, written ? pv->symbol : pv->name), NULL, written, &named,
                     pv->loc);
        ptrmap_put(&f->names, pv, (void *)c.ps);
        for (size_t j = 0; j < pv->channels.n; j++) {
            const Channel *ch = pv->channels.v[j];
            /* a chid and a name are unique each in its own list (MCG2011) */
            define(&c, ch, ch->symbol, "CHANNEL", ch->chid ? ch->chid : ch->name, ch->value,
                   ch->chid ? (const void *)&pv->channels : pv, ch->loc);
        }
        for (size_t j = 0; j < pv->levels.n; j++)
            define_item(&c, pv->levels.v[j], &pv->levels.v[j]->n, "LEVEL", NULL,
                        pv->levels.v[j]->value, pv);
        /* provider opcodes, then each task's; a task's opcode is named
         * after its task too, as two tasks may have opcodes of the same
         * name */
        for (size_t j = 0; j < pv->opcodes.n; j++)
            define_item(&c, pv->opcodes.v[j], &pv->opcodes.v[j]->n, "OPCODE", NULL,
                        pv->opcodes.v[j]->value, pv);
        for (size_t j = 0; j < pv->tasks.n; j++) {
            const Task *t = pv->tasks.v[j];
            for (size_t k = 0; k < t->opcodes.n; k++) {
                const Opcode *o = t->opcodes.v[k];
                const char *both =
                    name_join(a, -1, 3, (const char *[]){t->n.written, "_", o->n.written});
                define_item(&c, o, &o->n, "OPCODE", both, o->value, t);
            }
        }
        for (size_t j = 0; j < pv->tasks.n; j++) {
            const Task *t = pv->tasks.v[j];
            if (t->n.builtin)
                continue;
            define(&c, t, t->n.symbol, "TASK", t->n.written, t->value, pv, t->n.loc);
            Origin guid = {"TASK GUID", pv, t->n.written};
            if (task_has_guid(t)) {
                const char *id = name_join(a, 0, 2, (const char *[]){t->n.written, "Id"});
                ptrmap_put(&f->names, &t->event_guid,
                           (void *)claim(&c, id, NULL, false, &guid, t->n.loc));
            }
        }
        for (size_t j = 0; j < pv->keywords.n; j++)
            define_item(&c, pv->keywords.v[j], &pv->keywords.v[j]->n, "KEYWORD", NULL,
                        (int64_t)pv->keywords.v[j]->mask, pv);
    }
    map_free(&c.taken);
    free(repeated);
}

void check_names(Manifest *m, Facts *f)
{
    name_events(m, f);
    name_descriptors(m, f);
}
