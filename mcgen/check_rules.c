/*
 * check_rules.c - the semantic rules of a manifest: what the schema
 * (schema/eventman.xsd, checked while parsing) cannot say.  They run on a
 * resolved model whose structure is valid, also after resolution errors (a
 * reference that names nothing is NULL, and a rule that needs it skips
 * that item), one static function per rule, each citing the rule it
 * enforces, each reporting through diag_c/diag_ex with its own code
 * (mcgen/diagcodes.def, docs/diagnostics.md).
 *
 * This file: names, symbols, duplicates, value ranges, channels, cultures
 * (and, with -A, their texts), the provider.  check_payload.c: templates, fields, types, maps, messages
 * and strings.
 *
 * Every rule reports every problem it finds and goes on; check_rules
 * runs them all in a fixed order, so the output does not depend on which
 * rule failed first.  Duplicates are found through hash maps keyed by the
 * item's name or value (large manifests have thousands of events); the map
 * remembers where the first item was, so that both places are named.
 *
 * The rules cite the Windows event manifest schema reference (the
 * EventManifest schema's complex types) and its "Defining ..." pages.  Where
 * the reference says "should" or where mc.exe has been seen to accept what
 * a rule would refuse (a golden input), the rule is a warning.
 */
#include "mcgen.h"

#include <stdlib.h>
#include <string.h>

/* ---- helpers ---- */

/* Integer keys seen, each with where it was seen first: open addressing
 * on the heap, freed after the rule (a large manifest has many events,
 * and string keys in the arena would stay for the whole run). */
typedef struct IntSeen {
    uint32_t *keys; /* key + 1; 0: empty */
    const Loc **locs;
    size_t cap, n;
} IntSeen;

static const Loc *int_seen_at(IntSeen *t, uint32_t key, const Loc *loc)
{
    if (2 * (t->n + 1) > t->cap) {
        IntSeen g = {NULL, NULL, t->cap ? 2 * t->cap : 64, 0};
        g.keys = xcalloc(g.cap, sizeof *g.keys);
        g.locs = xcalloc(g.cap, sizeof *g.locs);
        for (size_t i = 0; i < t->cap; i++)
            if (t->keys[i])
                int_seen_at(&g, t->keys[i] - 1, t->locs[i]);
        free(t->keys);
        free(t->locs);
        *t = g;
    }
    /* the high half of a 64-bit product: event keys are value << 8 |
     * version, whose low bits are nearly all 0, and the low bits of a
     * product depend only on the key's low bits (every event fell into 64
     * slots) */
    size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & (t->cap - 1);
    while (t->keys[i]) {
        if (t->keys[i] == key + 1)
            return t->locs[i];
        i = (i + 1) & (t->cap - 1);
    }
    t->keys[i] = key + 1;
    t->locs[i] = loc;
    t->n++;
    return NULL;
}

static void int_seen_free(IntSeen *t)
{
    free(t->keys);
    free(t->locs);
}

/* Gives an empty table room for n keys (a provider's events: one table,
 * not eight doublings). */
static void int_seen_reserve(IntSeen *t, size_t n)
{
    if (!n)
        return; /* nothing allocated for an empty list */
    size_t cap = 8; /* a task has a few opcodes */
    while (cap < 2 * (n + 1))
        cap *= 2;
    int_seen_free(t);
    *t = (IntSeen){xcalloc(cap, sizeof *t->keys), xcalloc(cap, sizeof *t->locs), cap, 0};
}

/* Records `key` as seen at `loc`; returns where it was seen first, or NULL
 * the first time.  Keys are arena strings (the map does not copy them). */
static const Loc *seen_at(Map *seen, const char *key, Loc *loc)
{
    return map_put(seen, key, loc, true);
}

/* The key of a qualified name, "ns\1local", in the rule's own arena
 * `keys` (freed with its map): not kept with the model, and no printf. */
static const char *qkey(Arena *keys, QName q)
{
    size_t a = strlen(q.ns), b = strlen(q.local);
    char *k = arena_alloc(keys, a + b + 2);
    memcpy(k, q.ns, a);
    k[a] = '\x01';
    memcpy(k + a + 1, q.local, b);
    return k;
}

/* Manifests reconstructed from installed providers (source=, see
 * read_man.c) print what the system registered, including the "no task" 0
 * as a task of its own. */
static bool decompiled(const Provider *pv) { return pv->source != NULL; }

/* The channels the manifest writes for the provider: its <channel> and
 * <importChannel> elements, not the winmeta channels mcgen adds because an
 * event names one. */
static bool written_channel(const Channel *c) { return !c->auto_imported; }

static int popcount64(uint64_t v)
{
    int n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

/* ======================================================================
 * 2010-2099: names and duplicates
 * ==================================================================== */

const char *event_label(Arena *a, const Event *e)
{
    return e->version ? arena_printf(a, "%u version %u", e->value, e->version)
                      : arena_printf(a, "%u", e->value);
}

/* EventDefinitionType value: "The identifier must be unique within the
 * list of events that you define"; versions of one event share the id, so
 * the pair (value, version) is what must be unique.  symbol: mc "uses the
 * symbol to create a constant ... in the header file" (CSymbolType), the
 * event's descriptor and its EventWrite macro: two events of one provider
 * with one symbol are a mistake, not a clash to rename (check_names.c
 * renames the events of two providers, MCG8001).  Events that are not
 * logged have no descriptor. */
static void rule_event_unique(Manifest *m, Provider *pv)
{
    IntSeen seen = {0};
    int_seen_reserve(&seen, pv->events.n);
    Map symbols = {0}; /* symbol -> its first Event */
    map_reserve(&symbols, pv->events.n);
    for (size_t i = 0; i < pv->events.n; i++) {
        Event *e = pv->events.v[i];
        const Loc *first = int_seen_at(&seen, (uint32_t)e->value << 8 | e->version, &e->loc);
        if (first)
            diag_ex(D_DUP_EVENT, e->loc, *first, "first defined",
                    "duplicate event value %u version %u in provider '%s'", e->value, e->version,
                    pv->name);
        const Event *had;
        if (e->symbol && e->symbol[0] && !e->not_logged &&
            (had = map_put(&symbols, e->symbol, e, true)))
            diag_ex(D_DUP_EVENT_SYMBOL, e->loc, had->loc, "first defined",
                    "symbol '%s' of event %s is also the symbol of event %s of the same "
                    "provider '%s': the header can define it once",
                    e->symbol, event_label(&m->arena, e), event_label(&m->arena, had), pv->name);
    }
    int_seen_free(&seen);
    map_free(&symbols);
}

/* ChannelType name: "The name must be unique within the list of channels
 * that the provider uses"; chid (ChannelType, ImportChannelType): "uniquely
 * identifies the channel in the list of channels that the provider defines
 * or imports"; value: "uniquely identifies the channel within the list of
 * channels that the provider defines". */
static void rule_channel_unique(Manifest *m, Provider *pv)
{
    (void)m;
    Map names = {0}, chids = {0};
    IntSeen values = {0};
    for (size_t i = 0; i < pv->channels.n; i++) {
        Channel *c = pv->channels.v[i];
        if (!written_channel(c))
            continue;
        const Loc *first = seen_at(&names, c->name, &c->loc);
        if (first && c->name[0])
            diag_ex(D_DUP_CHANNEL, c->loc, *first, "first defined",
                    "duplicate channel name '%s' in provider '%s'", c->name, pv->name);
        if (c->chid && (first = seen_at(&chids, c->chid, &c->loc)))
            diag_ex(D_DUP_CHANNEL, c->loc, *first, "first defined",
                    "duplicate channel chid '%s' in provider '%s'", c->chid, pv->name);
        /* values left to the compiler are unique by construction */
        if (!c->has_value)
            continue;
        if ((first = int_seen_at(&values, c->value, &c->loc)))
            diag_ex(D_DUP_CHANNEL, c->loc, *first, "first defined",
                    "duplicate channel value %u ('%s') in provider '%s'", c->value, c->name,
                    pv->name);
    }
    map_free(&names);
    map_free(&chids);
    int_seen_free(&values);
}

/* LevelType name: "This name must be unique within the scope of the
 * provider"; the value is what an event descriptor carries (its Level), so
 * two levels with one value could not be told apart by a consumer. */
static void rule_level_unique(Manifest *m, Provider *pv)
{
    (void)m;
    Map names = {0};
    map_reserve(&names, pv->levels.n);
    Arena keys = {0};
    IntSeen values = {0};
    int_seen_reserve(&values, pv->levels.n);
    for (size_t i = 0; i < pv->levels.n; i++) {
        Level *l = pv->levels.v[i];
        const Loc *first = seen_at(&names, qkey(&keys, l->n.name), &l->n.loc);
        if (first)
            diag_ex(D_DUP_LEVEL, l->n.loc, *first, "first defined",
                    "duplicate level name '%s' in provider '%s'", l->n.display, pv->name);
        if ((first = int_seen_at(&values, l->value, &l->n.loc)))
            diag_ex(D_DUP_LEVEL, l->n.loc, *first, "first defined",
                    "duplicate level value %u ('%s') in provider '%s'", l->value, l->n.display,
                    pv->name);
    }
    map_free(&names);
    arena_free(&keys);
    int_seen_free(&values);
}

/* TaskType value: "A numeric value that uniquely identifies this task
 * within the list of tasks that the provider defines"; a name is how
 * events reference a task, so it must be unique too. */
static void rule_task_unique(Manifest *m, Provider *pv)
{
    (void)m;
    Map names = {0};
    map_reserve(&names, pv->tasks.n);
    Arena keys = {0};
    IntSeen values = {0};
    int_seen_reserve(&values, pv->tasks.n);
    for (size_t i = 0; i < pv->tasks.n; i++) {
        Task *t = pv->tasks.v[i];
        const Loc *first = seen_at(&names, qkey(&keys, t->n.name), &t->n.loc);
        if (first)
            diag_ex(D_DUP_TASK, t->n.loc, *first, "first defined",
                    "duplicate task name '%s' in provider '%s'", t->n.display, pv->name);
        if ((first = int_seen_at(&values, t->value, &t->n.loc)))
            diag_ex(D_DUP_TASK, t->n.loc, *first, "first defined",
                    "duplicate task value %u ('%s') in provider '%s'", t->value, t->n.display,
                    pv->name);
    }
    map_free(&names);
    arena_free(&keys);
    int_seen_free(&values);
}

/* The first of v[0..i) with v[i]'s name, and with its value: a task's
 * opcodes are a few, compared in pairs (a map and a table for each of
 * thousands of tasks cost more than the comparisons). */
static void opcode_pairs_seen(Opcode **v, size_t i, const Loc **name_at, const Loc **value_at)
{
    const Opcode *o = v[i];
    *name_at = *value_at = NULL;
    for (size_t j = 0; j < i; j++) {
        const Opcode *x = v[j];
        if (!*name_at && x->n.name.local[0] == o->n.name.local[0] &&
            strcmp(x->n.name.local, o->n.name.local) == 0 &&
            strcmp(x->n.name.ns, o->n.name.ns) == 0)
            *name_at = &x->n.loc;
        if (!*value_at && x->value == o->value)
            *value_at = &x->n.loc;
    }
}

static void opcode_scope_unique(Provider *pv, Task *task, Opcode **v, size_t n)
{
    enum { PAIRS_UP_TO = 16 };
    bool pairs = n <= PAIRS_UP_TO;
    Map names = {0};
    Arena keys = {0};
    IntSeen values = {0};
    if (!pairs) {
        map_reserve(&names, n);
        int_seen_reserve(&values, n);
    }
    const char *scope = task ? "task" : "provider";
    const char *scope_name = task ? task->n.display : pv->name;
    for (size_t i = 0; i < n; i++) {
        Opcode *o = v[i];
        const Loc *first, *value_first;
        if (pairs) {
            opcode_pairs_seen(v, i, &first, &value_first);
        } else {
            first = seen_at(&names, qkey(&keys, o->n.name), &o->n.loc);
            value_first = int_seen_at(&values, o->value, &o->n.loc);
        }
        if (first)
            diag_ex(D_DUP_OPCODE, o->n.loc, *first, "first defined",
                    "duplicate opcode name '%s' in %s '%s'", o->n.display, scope, scope_name);
        if ((first = value_first))
            diag_ex(D_DUP_OPCODE, o->n.loc, *first, "first defined",
                    "duplicate opcode value %u ('%s') in %s '%s'", o->value, o->n.display, scope,
                    scope_name);
    }
    map_free(&names);
    arena_free(&keys);
    int_seen_free(&values);
}

/* OpcodeType name: "This name must be unique within the scope of this
 * provider"; the value identifies the opcode in an event descriptor.  The
 * scopes are the provider's own opcodes and each task's opcodes
 * (TaskType opcodes: "a list of task-specific opcodes"): two tasks may
 * both have an opcode named Connect, with the same value. */
static void rule_opcode_unique(Manifest *m, Provider *pv)
{
    (void)m;
    opcode_scope_unique(pv, NULL, pv->opcodes.v, pv->opcodes.n);
    for (size_t i = 0; i < pv->tasks.n; i++)
        opcode_scope_unique(pv, pv->tasks.v[i], pv->tasks.v[i]->opcodes.v,
                            pv->tasks.v[i]->opcodes.n);
}

/* KeywordType name: "The name must be unique within the list of keywords
 * that the provider defines"; mask: "The bit represents a category of
 * events", so one bit names one keyword. */
static void rule_keyword_unique(Manifest *m, Provider *pv)
{
    Map names = {0}, masks = {0};
    map_reserve(&names, pv->keywords.n);
    Arena keys = {0};
    for (size_t i = 0; i < pv->keywords.n; i++) {
        Keyword *k = pv->keywords.v[i];
        const Loc *first = seen_at(&names, qkey(&keys, k->n.name), &k->n.loc);
        if (first)
            diag_ex(D_DUP_KEYWORD, k->n.loc, *first, "first defined",
                    "duplicate keyword name '%s' in provider '%s'", k->n.display, pv->name);
        const char *key = arena_printf(&m->arena, "%llx", (unsigned long long)k->mask);
        if (k->mask && (first = seen_at(&masks, key, &k->n.loc)))
            diag_ex(D_DUP_KEYWORD, k->n.loc, *first, "first defined",
                    "duplicate keyword mask 0x%llx ('%s') in provider '%s'",
                    (unsigned long long)k->mask, k->n.display, pv->name);
    }
    map_free(&names);
    arena_free(&keys);
    map_free(&masks);
}

/* ValueMapType/BitMapType name: the name a template's data item gives in
 * map=, so it must name one map of the provider (value, bit and pattern
 * maps share the names). */
static void rule_map_unique(Manifest *m, Provider *pv)
{
    (void)m;
    Map names = {0};
    for (size_t i = 0; i < pv->maps.n; i++) {
        ValueMap *vm = pv->maps.v[i];
        const Loc *first = seen_at(&names, vm->name, &vm->loc);
        if (first && vm->name[0])
            diag_ex(D_DUP_MAP, vm->loc, *first, "first defined",
                    "duplicate map name '%s' in provider '%s'", vm->name, pv->name);
    }
    map_free(&names);
}

/* ProviderType guid: "A GUID that uniquely identifies the provider"; the
 * name is the provider's registry key, and symbol= names its GUID variable
 * in the header: both must be unique among the manifest's providers. */
static void rule_provider_unique(Manifest *m)
{
    Map names = {0}, guids = {0}, symbols = {0};
    for (size_t i = 0; i < m->providers.n; i++) {
        Provider *pv = m->providers.v[i];
        const Loc *first = seen_at(&names, pv->name, &pv->loc);
        if (first && pv->name[0])
            diag_ex(D_DUP_PROVIDER, pv->loc, *first, "first defined",
                    "duplicate provider name '%s'", pv->name);
        char g[39];
        guid_format(&pv->guid, g);
        if ((first = seen_at(&guids, arena_printf(&m->arena, "%s", g), &pv->loc)))
            diag_ex(D_DUP_PROVIDER, pv->loc, *first, "first defined",
                    "duplicate provider GUID %s (provider '%s')", g, pv->name);
        if (pv->symbol && pv->symbol[0] && (first = seen_at(&symbols, pv->symbol, &pv->loc)))
            diag_ex(D_DUP_PROVIDER, pv->loc, *first, "first defined",
                    "duplicate provider symbol '%s' (provider '%s')", pv->symbol, pv->name);
    }
    map_free(&names);
    map_free(&guids);
    map_free(&symbols);
}

/* Why `name` is not a name the event log accepts, or NULL. */
static const char *bad_name(Manifest *m, const char *name)
{
    size_t n = strlen(name);
    if (n > 255)
        return arena_printf(&m->arena, "has %zu characters (at most 255)", n);
    for (const unsigned char *s = (const unsigned char *)name; *s; s++) {
        if (*s < 31)
            return arena_printf(&m->arena, "has the control character 0x%02x", *s);
        if (strchr("><&\"|\\:`?*", *s))
            return arena_printf(&m->arena,
                                "has the character '%c' (none of > < & \" | \\ : ` ? * "
                                "may appear)",
                                *s);
    }
    return NULL;
}

/* A name for a message: long names are cut. */
static const char *shown(Manifest *m, const char *name)
{
    return strlen(name) > 60 ? arena_printf(&m->arena, "%.40s...", name) : name;
}

/* ProviderType name: "cannot be longer than 255 characters, and cannot
 * contain the characters: '>', '<', '&', '"', '|', '\', ':', '`', '?',
 * '*', or characters with codes less than 31"; ChannelType name: the same
 * characters, and "less than 255 characters". */
static void rule_names(Manifest *m, Provider *pv)
{
    const char *why = bad_name(m, pv->name);
    if (why)
        diag_c(D_BAD_NAME, pv->loc, "provider name '%s' %s", shown(m, pv->name), why);
    for (size_t i = 0; i < pv->channels.n; i++) {
        Channel *c = pv->channels.v[i];
        /* an import names another's channel: checked where it is defined */
        if (c->imported)
            continue;
        if ((why = bad_name(m, c->name)))
            diag_c(D_BAD_NAME, c->loc, "channel name '%s' %s", shown(m, c->name), why);
    }
}

/* EventDefinitionType opcode: "If you specify a global opcode, the value
 * of the global opcode cannot be the same as one of the local opcodes for
 * the task." */
static void rule_opcode_conflict(Manifest *m, Provider *pv)
{
    (void)m;
    for (size_t i = 0; i < pv->events.n; i++) {
        Event *e = pv->events.v[i];
        if (!e->task || !e->opcode || e->opcode->task)
            continue;
        for (size_t j = 0; j < e->task->opcodes.n; j++) {
            Opcode *local = e->task->opcodes.v[j];
            if (local->value != e->opcode->value)
                continue;
            diag_ex(D_OPCODE_SHADOWED, loc_in(e->loc, e->opcode_pos), local->n.loc,
                    "task opcode defined",
                    "event %u: opcode '%s' has value %u, the value of opcode '%s' of its task "
                    "'%s'",
                    e->value, e->opcode->n.display, e->opcode->value, local->n.display,
                    e->task->n.display);
            break;
        }
    }
}

/* ======================================================================
 * 3010-3099: value ranges and reserved values
 * ==================================================================== */

/* LevelType value: "You can specify values in the range 16 to 255"
 * (Defining Severity Levels: "must be in the range from 16 through 255");
 * 0-15 are winmeta's (win:Critical 1 ... win:Verbose 5). */
static void rule_level_range(Manifest *m, Provider *pv)
{
    (void)m;
    for (size_t i = 0; i < pv->levels.n; i++) {
        Level *l = pv->levels.v[i];
        if (l->value < 16)
            diag_c(D_LEVEL_RESERVED, l->n.loc,
                   "level '%s' has value %u: values 0-15 are reserved for the winmeta levels "
                   "(use 16-255)",
                   l->n.display, l->value);
    }
}

/* Defining Tasks and Opcodes: "The task value must be greater than 0"
 * (0 is what an event without a task carries).  The upper bound the
 * TaskType page states (239) does not hold: mc.exe accepts 65535.
 * Decompiled manifests list task 0 ("None") as registered: not checked. */
static void rule_task_range(Manifest *m, Provider *pv)
{
    (void)m;
    if (decompiled(pv))
        return;
    for (size_t i = 0; i < pv->tasks.n; i++) {
        Task *t = pv->tasks.v[i];
        if (t->value == 0)
            diag_c(D_TASK_RESERVED, t->n.loc,
                   "task '%s' has value 0: 0 means \"no task\" (use 1-65535)", t->n.display);
    }
}

/* OpcodeType value: "You can specify values in the range 10 and 239"
 * (Defining Tasks and Opcodes: "The opcodes must be in the range from 10
 * through 239"); TaskType opcodes: "You cannot use the opcode values
 * defined in Winmeta.xml for task-specific opcodes". */
static void rule_opcode_range(Manifest *m, Provider *pv)
{
    (void)m;
    for (size_t i = 0; i < pv->opcodes.n; i++) {
        Opcode *o = pv->opcodes.v[i];
        if (o->value < 10 || o->value > 239)
            diag_c(D_OPCODE_RESERVED, o->n.loc,
                   "opcode '%s' has value %u: values 0-9 and 240-255 are reserved for the "
                   "winmeta opcodes (use 10-239)",
                   o->n.display, o->value);
    }
    for (size_t i = 0; i < pv->tasks.n; i++) {
        Task *t = pv->tasks.v[i];
        for (size_t j = 0; j < t->opcodes.n; j++) {
            Opcode *o = t->opcodes.v[j];
            if (o->value < 10 || o->value > 239)
                diag_c(D_OPCODE_RESERVED, o->n.loc,
                       "opcode '%s' of task '%s' has value %u: a task-specific opcode cannot "
                       "use a winmeta opcode value (0-9, 240-255; use 10-239)",
                       o->n.display, t->n.display, o->value);
        }
    }
}

/* KeywordType mask: "A bitmask that must have only a single bit set ...
 * in the range from 0x0000000000000001 through 0x0000800000000000 (bits 0
 * through 47)"; Defining Keywords: "Bits 48 through 63 are defined by
 * Microsoft ... and cannot be used in the keyword element". */
static void rule_keyword_mask(Manifest *m, Provider *pv)
{
    (void)m;
    for (size_t i = 0; i < pv->keywords.n; i++) {
        Keyword *k = pv->keywords.v[i];
        if (popcount64(k->mask) != 1)
            diag_c(D_KEYWORD_MASK, k->n.loc,
                   "keyword '%s' has mask 0x%llx: a keyword mask has exactly one bit set",
                   k->n.display, (unsigned long long)k->mask);
        if (k->mask >> 48)
            diag_c(D_KEYWORD_RESERVED, k->n.loc,
                   "keyword '%s' has mask 0x%llx: bits 48-63 (0xFFFF000000000000) are "
                   "reserved for Microsoft (use bits 0-47)",
                   k->n.display, (unsigned long long)k->mask);
    }
}

/* The winmeta channels have values 0-12 (TraceClassic 0, System 8,
 * Application 9, Security 10, ...) and mc.exe numbers a provider's own
 * channels from 16 up; the reference gives no range for ChannelType value,
 * so a value below 16 is a warning. */
static void rule_channel_range(Manifest *m, Provider *pv)
{
    (void)m;
    for (size_t i = 0; i < pv->channels.n; i++) {
        Channel *c = pv->channels.v[i];
        if (c->imported || !c->has_value || c->value >= 16)
            continue;
        diag_c(D_CHANNEL_VALUE_LOW, c->loc,
               "channel '%s' has value %u: values 0-15 are those of the winmeta channels "
               "(mc numbers a provider's channels from 16)",
               c->name, c->value);
    }
}

/* ======================================================================
 * 4010-4099: channels
 * (At most eight channels per provider is the schema's rule: the channel
 * list's maxOccurs="8", MCG1102.)
 * ==================================================================== */

/* EventDefinitionType message: "You must specify a message if the channel
 * type to which the event is written is Admin"; level: "You must specify
 * a level if the channel type to which the event is written is Admin; the
 * level must be one of the following levels defined in Winmeta.xml:
 * win:Critical win:Error win:Warning win:Informational". */
static void rule_admin_events(Manifest *m, Provider *pv)
{
    (void)m;
    for (size_t i = 0; i < pv->events.n; i++) {
        Event *e = pv->events.v[i];
        if (!e->channel || e->channel->type != CHAN_ADMIN)
            continue;
        if (!e->msg.id)
            diag_c(D_ADMIN_MESSAGE, e->loc,
                   "event %u is written to Admin channel '%s' and has no message=", e->value,
                   e->channel->name);
        /* a level= that names nothing is MCG2001's: judged once it does */
        if (!e->level && !e->has_level)
            diag_c(D_ADMIN_LEVEL, e->loc,
                   "event %u is written to Admin channel '%s' and has no level= (use "
                   "win:Critical, win:Error, win:Warning or win:Informational)",
                   e->value, e->channel->name);
        else if (e->level && (!e->level->n.builtin || e->level->value < 1 || e->level->value > 4))
            diag_c(D_ADMIN_LEVEL, loc_in(e->loc, e->level_pos),
                   "event %u is written to Admin channel '%s' with level '%s': an Admin event "
                   "has level win:Critical, win:Error, win:Warning or win:Informational",
                   e->value, e->channel->name, e->level->n.display);
    }
}

/* ChannelType publishing: "Only Debug and Analytic channels and channels
 * that use Custom isolation can specify logging properties for their
 * session."  mc.exe accepts the element on other channels (golden input
 * etk-Large has it on an Admin channel), so this is a warning. */
static void rule_channel_publishing(Manifest *m, Provider *pv)
{
    (void)m;
    for (size_t i = 0; i < pv->channels.n; i++) {
        Channel *c = pv->channels.v[i];
        if (c->imported || !c->publishing.present)
            continue;
        if (c->type == CHAN_DEBUG || c->type == CHAN_ANALYTIC || c->isolation == ISO_CUSTOM)
            continue;
        diag_c(D_CHANNEL_PUBLISHING, c->publishing.loc,
               "<publishing> of channel '%s' is not used: only Debug and Analytic channels and "
               "channels of Custom isolation have their own session",
               c->name);
    }
}

/* ======================================================================
 * 5016-5018: cultures and their message tables
 * ==================================================================== */

/* <resources culture=...>: each culture's message table goes into the
 * module under the culture's Windows language id (the .rc's LANGUAGE
 * statement), so the culture needs one: a name [MS-LCID] gives an id
 * (culture.c).  xs:language accepts names Windows has no id for (qq-QQ,
 * aa-DJ, which Windows numbers 0x1000, "no id of its own").  Two cultures
 * with one id (en-US and EN-us, ff-NG and ff-Latn-NG) would put two
 * message tables of one language into the module, which rc.exe and windres
 * refuse as a duplicate resource. */
static void rule_cultures(Manifest *m)
{
    uint16_t *ids = xcalloc(m->cultures.n + 1, sizeof *ids);
    bool *known = xcalloc(m->cultures.n + 1, sizeof *known);
    for (size_t i = 0; i < m->cultures.n; i++) {
        Culture *cu = m->cultures.v[i];
        known[i] = culture_langid(cu->name, &ids[i]);
        if (!known[i]) {
            diag_c(D_CULTURE_LANGID, cu->loc,
                   "culture '%s' has no Windows language id, which the .rc's LANGUAGE "
                   "statement needs (cultures are named as [MS-LCID] lists them: en-US, de, "
                   "sr-Latn-RS, zh-Hans ...)",
                   cu->name);
            continue;
        }
        for (size_t j = 0; j < i; j++)
            if (known[j] && ids[j] == ids[i]) {
                diag_ex(D_CULTURE_DUPLICATE, cu->loc, m->cultures.v[j]->loc, "first defined",
                        "culture '%s' has the language id 0x%04X of culture '%s': the module "
                        "would get two message tables of one language",
                        cu->name, ids[i], m->cultures.v[j]->name);
                break;
            }
    }
    free(ids);
    free(known);
}

static void note_used(Manifest *m, MsgRef *r, Loc at, void *arg)
{
    (void)m, (void)at;
    if (r->id)
        map_put(arg, r->id, r, true);
}

/* mc's -A writes the message tables in the ANSI code page, which mcgen
 * takes to be Windows-1252 whatever the host (emit_msgtable.c): every text a
 * table holds (a string some message references, in each culture; the
 * first of a duplicated id, as the table takes it) must be written in
 * it.  winmeta's own texts are ASCII. */
void check_ansi_tables(Manifest *m)
{
    Map used = {0};
    manifest_each_msgref(m, note_used, &used);
    Buf scratch = {0};
    for (size_t c = 0; c < m->cultures.n; c++) {
        Culture *cu = m->cultures.v[c];
        for (size_t k = 0; k < cu->strings.n; k++) {
            const String *s = cu->strings.v[k];
            if (map_get(&cu->by_id, s->id) != s || !map_get(&used, s->id))
                continue;
            size_t n = strlen(s->value);
            buf_reset(&scratch);
            size_t bad = utf8_to_cp1252(&scratch, s->value, n);
            if (bad == SIZE_MAX)
                continue;
            uint32_t ch = 0;
            utf8_get(s->value + bad, n - bad, &ch);
            diag_c(D_ANSI_TEXT, s->loc,
                   "string '%s' (culture '%s') has the character U+%04X, which the ANSI code "
                   "page of -A (Windows-1252) does not have",
                   s->id, cu->name, (unsigned)ch);
        }
    }
    buf_free(&scratch);
    map_free(&used);
}

/* ======================================================================
 * 7010-7099: provider, resources, security
 * ==================================================================== */

static bool has_msg(const MsgRef *r) { return r->id != NULL; }

static bool provider_has_messages(const Provider *pv)
{
    if (has_msg(&pv->msg))
        return true;
    for (size_t i = 0; i < pv->events.n; i++)
        if (has_msg(&pv->events.v[i]->msg))
            return true;
    for (size_t i = 0; i < pv->channels.n; i++)
        if (has_msg(&pv->channels.v[i]->msg))
            return true;
    for (size_t i = 0; i < pv->levels.n; i++)
        if (has_msg(&pv->levels.v[i]->n.msg))
            return true;
    for (size_t i = 0; i < pv->tasks.n; i++)
        if (has_msg(&pv->tasks.v[i]->n.msg))
            return true;
    for (size_t i = 0; i < pv->opcodes.n; i++)
        if (has_msg(&pv->opcodes.v[i]->n.msg))
            return true;
    for (size_t i = 0; i < pv->keywords.n; i++)
        if (has_msg(&pv->keywords.v[i]->n.msg))
            return true;
    return false;
}

/* ProviderType resourceFileName: "The full path to the file that contains
 * the provider's metadata resources"; messageFileName: "... the provider's
 * localized message resources".  The schema leaves both optional and
 * mc.exe compiles without them, but an installed provider without them
 * has events no consumer can decode or show: a warning.  (Not for
 * decompiled manifests: they are read, not installed.) */
static void rule_provider_files(Manifest *m, Provider *pv)
{
    (void)m;
    if (decompiled(pv))
        return;
    if (!pv->resource_file || !pv->resource_file[0])
        diag_c(D_NO_RESOURCE_FILE, pv->loc,
               "provider '%s' has no resourceFileName: consumers will not find its metadata",
               pv->name);
    if ((!pv->message_file || !pv->message_file[0]) && provider_has_messages(pv))
        diag_c(D_NO_MESSAGE_FILE, pv->loc,
               "provider '%s' has messages but no messageFileName: consumers will not find "
               "their text",
               pv->name);
}

/* ---- SDDL (the Security Descriptor Definition Language) ----
 *
 *   sd    := ( "O:" sid | "G:" sid | "D:" acl | "S:" acl )*
 *   acl   := flags ( "(" ace ")" )*       flags: P AI AR NO_ACCESS_CONTROL
 *   ace   := type ";" aceflags ";" rights ";" guid? ";" guid? ";" sid
 *            [ ";" "(" condition or attribute ")" ]
 *   sid   := two-letter alias | "S-1-" number ( "-" number )*
 */

typedef struct Sddl {
    const char *s, *p;
    const char *err; /* first problem, NULL while fine */
} Sddl;

static bool sddl_fail(Sddl *x, const char *err)
{
    if (!x->err)
        x->err = err;
    return false;
}

static bool in_list(const char *s, size_t n, const char *const *list)
{
    for (; *list; list++)
        if (strlen(*list) == n && strncmp(*list, s, n) == 0)
            return true;
    return false;
}

/* True when s[0..n) is a run of the two-letter codes of `list`. */
static bool codes_of(const char *s, size_t n, const char *const *list)
{
    if (n % 2)
        return false;
    for (size_t i = 0; i < n; i += 2)
        if (!in_list(s + i, 2, list))
            return false;
    return true;
}

static bool is_hex(int c) { return (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'f'); }
static bool is_digit(int c) { return c >= '0' && c <= '9'; }

static const char *const sid_aliases[] = {
    "AA", "AC", "AN", "AO", "AP", "AS", "AU", "BA", "BG", "BO", "BU", "CA", "CD", "CG", "CN",
    "CO", "CY", "DA", "DC", "DD", "DG", "DU", "EA", "ED", "EK", "ER", "ES", "HA", "HI", "IS",
    "IU", "KA", "LA", "LG", "LS", "LU", "LW", "ME", "MP", "MU", "NO", "NS", "NU", "OW", "PA",
    "PO", "PS", "PU", "RA", "RC", "RD", "RE", "RM", "RO", "RS", "RU", "SA", "SI", "SO", "SS",
    "SU", "SY", "UD", "WD", "WR", NULL};

/* A SID in s[0..n). */
static bool sddl_sid_ok(const char *s, size_t n)
{
    if (n == 2)
        return in_list(s, 2, sid_aliases);
    if (n < 5 || strncmp(s, "S-1-", 4) != 0)
        return false;
    size_t i = 3;
    while (i < n) {
        if (s[i] != '-' || i + 1 >= n)
            return false;
        i++;
        size_t start = i;
        if (i + 1 < n && s[i] == '0' && (s[i + 1] | 32) == 'x') {
            i += 2;
            start = i;
            while (i < n && is_hex((unsigned char)s[i]))
                i++;
        } else {
            while (i < n && is_digit((unsigned char)s[i]))
                i++;
        }
        if (i == start)
            return false;
    }
    return true;
}

/* The owner or group SID after "O:" or "G:": an alias is two letters, a
 * numeric SID runs to the next component ("G:", "D:", "S:") or the end. */
static bool sddl_owner(Sddl *x)
{
    const char *s = x->p;
    size_t n;
    if (strncmp(s, "S-1-", 4) == 0) {
        n = 4;
        while (s[n] && (s[n] == '-' || is_hex((unsigned char)s[n]) || (s[n] | 32) == 'x'))
            n++;
        /* "S-1-5-32-544D:" : a letter of the next component is no hex digit
         * except A-F, and components are O G D S, so stop before "D:" */
        if (s[n] == ':' && n > 4)
            n--;
    } else {
        n = 2;
        if (!s[0] || !s[1])
            return sddl_fail(x, "a SID (two-letter alias or S-1-...) after O: or G:");
    }
    if (!sddl_sid_ok(s, n))
        return sddl_fail(x, "a SID (two-letter alias or S-1-...) after O: or G:");
    x->p += n;
    return true;
}

static const char *const ace_types[] = {"A",  "D",  "OA", "OD", "AU", "AL", "OU", "OL", "ML",
                                        "XA", "XD", "XU", "ZA", "RA", "SP", "TL", "FL", NULL};
static const char *const ace_flags[] = {"CI", "OI", "NP", "IO", "ID", "SA", "FA",
                                        "TP", "CR", NULL};
static const char *const ace_rights[] = {
    "GA", "GR", "GW", "GX", "RC", "SD", "WD", "WO", "RP", "WP", "CC", "DC", "LC", "SW",
    "LO", "DT", "CR", "FA", "FR", "FW", "FX", "KA", "KR", "KW", "KX", "NR", "NW", "NX", NULL};

static bool guid_text_ok(const char *s, size_t n)
{
    if (n == 0)
        return true;
    if (n != 36)
        return false;
    for (size_t i = 0; i < n; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : !is_hex((unsigned char)s[i]))
            return false;
    }
    return true;
}

static bool rights_ok(const char *s, size_t n)
{
    if (n == 0)
        return true;
    if (n > 2 && s[0] == '0' && (s[1] | 32) == 'x') {
        for (size_t i = 2; i < n; i++)
            if (!is_hex((unsigned char)s[i]))
                return false;
        return true;
    }
    if (is_digit((unsigned char)s[0])) {
        for (size_t i = 0; i < n; i++)
            if (!is_digit((unsigned char)s[i]))
                return false;
        return true;
    }
    return codes_of(s, n, ace_rights);
}

/* One "(...)" ACE, x->p at '('. */
static bool sddl_ace(Sddl *x)
{
    const char *f[7];
    size_t len[7];
    int nf = 0;
    const char *s = x->p + 1;
    for (;;) {
        const char *start = s;
        if (nf == 6 && *s == '(') { /* a conditional expression or attribute */
            int depth = 0;
            do {
                if (*s == '(')
                    depth++;
                else if (*s == ')')
                    depth--;
                else if (!*s)
                    return sddl_fail(x, "a ')' closing the ACE's condition");
                s++;
            } while (depth);
        } else {
            while (*s && *s != ';' && *s != ')' && *s != '(')
                s++;
        }
        if (nf == 7)
            return sddl_fail(x, "at most 7 fields in an ACE");
        f[nf] = start;
        len[nf++] = (size_t)(s - start);
        if (*s == ';') {
            s++;
            continue;
        }
        if (*s == ')')
            break;
        return sddl_fail(x, "')' at the end of an ACE");
    }
    if (nf < 6)
        return sddl_fail(x, "6 fields in an ACE: type;flags;rights;object guid;inherit guid;sid");
    if (!in_list(f[0], len[0], ace_types))
        return sddl_fail(x, "an ACE type (A, D, OA, OD, AU, AL, OU, OL, ML, XA, XD, ...)");
    if (!codes_of(f[1], len[1], ace_flags))
        return sddl_fail(x, "ACE flags (CI, OI, NP, IO, ID, SA, FA)");
    if (!rights_ok(f[2], len[2]))
        return sddl_fail(x, "ACE rights (0x hex, or codes such as GA GR GW GX)");
    if (!guid_text_ok(f[3], len[3]) || !guid_text_ok(f[4], len[4]))
        return sddl_fail(x, "an empty field or a GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)");
    if (!sddl_sid_ok(f[5], len[5]))
        return sddl_fail(x, "a SID (two-letter alias or S-1-...) in the ACE");
    x->p = s + 1;
    return true;
}

/* White space between the parts (a long descriptor may be written over
 * several lines) is let through. */
static void skip_space(Sddl *x)
{
    while (is_xml_space((unsigned char)*x->p))
        x->p++;
}

static bool sddl_acl(Sddl *x)
{
    for (;;) {
        if (*x->p == 'P')
            x->p++;
        else if (strncmp(x->p, "AI", 2) == 0 || strncmp(x->p, "AR", 2) == 0)
            x->p += 2;
        else if (strncmp(x->p, "NO_ACCESS_CONTROL", 17) == 0)
            x->p += 17;
        else
            break;
    }
    for (skip_space(x); *x->p == '('; skip_space(x))
        if (!sddl_ace(x))
            return false;
    return true;
}

/* NULL when `s` is a well-formed SDDL security descriptor, else what was
 * expected and where (an offset into s, through *at). */
static const char *sddl_check(const char *s, size_t *at)
{
    Sddl x = {s, s, NULL};
    bool owner = false, group = false, dacl = false, sacl = false;
    for (skip_space(&x); *x.p && !x.err; skip_space(&x)) {
        char k = x.p[0];
        bool *once = k == 'O'   ? &owner
                     : k == 'G' ? &group
                     : k == 'D' ? &dacl
                     : k == 'S' ? &sacl
                                : NULL;
        if (!once || x.p[1] != ':') {
            sddl_fail(&x, "O:, G:, D: or S:");
            break;
        }
        if (*once) {
            sddl_fail(&x, "each of O:, G:, D:, S: once");
            break;
        }
        *once = true;
        x.p += 2;
        if (k == 'O' || k == 'G')
            sddl_owner(&x);
        else
            sddl_acl(&x);
    }
    *at = (size_t)(x.p - s);
    return x.err;
}

/* ChannelType access: "A Security Descriptor Definition Language (SDDL)
 * access descriptor that controls access to the log file that backs the
 * channel". */
static void rule_channel_access(Manifest *m, Provider *pv)
{
    (void)m;
    for (size_t i = 0; i < pv->channels.n; i++) {
        Channel *c = pv->channels.v[i];
        if (c->imported || !c->access)
            continue;
        size_t n;
        const char *s = trim_span(c->access, &n);
        char *text = arena_strndup(&m->arena, s, n);
        size_t at;
        const char *want = sddl_check(text, &at);
        if (!n)
            want = "a security descriptor", at = 0;
        if (want)
            diag_c(D_CHANNEL_ACCESS, c->loc,
                   "access of channel '%s' is not valid SDDL (at offset %zu of '%s'): "
                   "expected %s",
                   c->name, at, text, want);
    }
}

/* ======================================================================
 * 8010-8099: symbols of the generated header
 * (That a symbol= is a C identifier is the schema's rule: CSymbolType,
 * MCG1203.)
 * ==================================================================== */

/* One name the header defines: what defines it, and whether it is a
 * #define (channels, levels, tasks, opcodes, keywords) or the name of a
 * variable or type (provider GUID, event descriptor, map enum). */
typedef struct Defined {
    const char *kind; /* "level", "event", ... */
    const char *name; /* the item's name (NULL for an event) */
    const Provider *pv;
    bool is_define, is_event;
    Loc loc;
} Defined;

/* name: the item's, for a diagnostic (an event's is its value, made only
 * for one: printing every event's was most of this rule's cost); the
 * claims live in `tmp` */
static void claim_symbol(Manifest *m, Arena *tmp, Map *taken, const Provider *pv, const char *sym,
                         const char *kind, bool is_define, const char *name, const Event *ev,
                         Loc loc)
{
    if (!sym || !sym[0])
        return;
    Defined *d = arena_alloc(tmp, sizeof *d);
    *d = (Defined){kind, name, pv, is_define, ev != NULL, loc};
    const Defined *first = map_put(taken, sym, d, true);
    if (!first)
        return;
    /* two events, or two #defines: emit_header.c renames the second when it
     * writes the header (MCG8001), unless the #define repeats its value;
     * two events of one provider: MCG2020; two providers: MCG2017 */
    if ((first->is_event && d->is_event) || (first->is_define && d->is_define))
        return;
    if (strcmp(first->kind, "provider") == 0 && strcmp(kind, "provider") == 0)
        return;
    /* an event's descriptor named like its own provider's GUID or one of
     * its #defines: a mistake in one provider, as two events of one symbol
     * are (MCG2020), and a header that cannot compile (the #define makes
     * the descriptor's name a number).  A map's enum is written only when
     * an item has a symbol, so a map stays MCG8011.  Events come last in
     * a provider: the event is the second claim. */
    if (d->is_event && first->pv == pv && strcmp(first->kind, "map") != 0)
        diag_ex(D_EVENT_SYMBOL_CLASH, loc, first->loc, "first defined",
                "symbol '%s' of event %s is also the symbol of %s: the header cannot define both",
                sym, event_label(&m->arena, ev),
                strcmp(first->kind, "provider") == 0
                    ? arena_printf(&m->arena, "its provider '%s' (the GUID)", pv->name)
                    : arena_printf(&m->arena, "%s '%s' of the same provider '%s'", first->kind,
                                   first->name, pv->name));
    else
        diag_ex(D_SYMBOL_CLASH, loc, first->loc, "first defined",
                "symbol '%s' of this %s names an earlier %s too: the header would define it "
                "twice",
                sym, kind, first->kind);
}

/* CSymbolType: mc.exe "uses the symbol to create a constant ... in the
 * header file that the compiler generates": the symbols of one manifest
 * all land in one C header, where a name can be defined once.  emit_header.c
 * sees the clashes among #defines and among event descriptors when it
 * writes the header (MCG8001); this rule reports the others: a provider's
 * GUID, an event descriptor or a map's enum named like another item. */
static void rule_symbol_unique(Manifest *m)
{
    /* a claim per symbol, tens of thousands in a large manifest: gone
     * when the rule ends, not kept with the model */
    Arena tmp = {0};
    Map taken = {0};
    size_t symbols = 0; /* sized once: every item of a provider may claim one */
    for (size_t i = 0; i < m->providers.n; i++) {
        const Provider *pv = m->providers.v[i];
        symbols += 1 + pv->channels.n + pv->levels.n + pv->opcodes.n + pv->tasks.n +
                   pv->keywords.n + pv->maps.n + pv->events.n;
        for (size_t j = 0; j < pv->tasks.n; j++)
            symbols += pv->tasks.v[j]->opcodes.n;
    }
    map_reserve(&taken, symbols);
    for (size_t i = 0; i < m->providers.n; i++) {
        Provider *pv = m->providers.v[i];
        claim_symbol(m, &tmp, &taken, pv, pv->symbol, "provider", false, pv->name, NULL, pv->loc);
        for (size_t j = 0; j < pv->channels.n; j++) {
            Channel *c = pv->channels.v[j];
            if (written_channel(c))
                claim_symbol(m, &tmp, &taken, pv, c->symbol, "channel", true, c->name, NULL,
                             c->loc);
        }
        for (size_t j = 0; j < pv->levels.n; j++)
            claim_symbol(m, &tmp, &taken, pv, pv->levels.v[j]->n.symbol, "level", true,
                         pv->levels.v[j]->n.written, NULL, pv->levels.v[j]->n.loc);
        for (size_t j = 0; j < pv->opcodes.n; j++)
            claim_symbol(m, &tmp, &taken, pv, pv->opcodes.v[j]->n.symbol, "opcode", true,
                         pv->opcodes.v[j]->n.written, NULL, pv->opcodes.v[j]->n.loc);
        for (size_t j = 0; j < pv->tasks.n; j++) {
            Task *t = pv->tasks.v[j];
            claim_symbol(m, &tmp, &taken, pv, t->n.symbol, "task", true, t->n.written, NULL,
                         t->n.loc);
            for (size_t k = 0; k < t->opcodes.n; k++)
                claim_symbol(m, &tmp, &taken, pv, t->opcodes.v[k]->n.symbol, "opcode", true,
                             t->opcodes.v[k]->n.written, NULL, t->opcodes.v[k]->n.loc);
        }
        for (size_t j = 0; j < pv->keywords.n; j++)
            claim_symbol(m, &tmp, &taken, pv, pv->keywords.v[j]->n.symbol, "keyword", true,
                         pv->keywords.v[j]->n.written, NULL, pv->keywords.v[j]->n.loc);
        for (size_t j = 0; j < pv->maps.n; j++)
            if (pv->maps.v[j]->kind != MAP_PATTERN)
                claim_symbol(m, &tmp, &taken, pv, pv->maps.v[j]->symbol, "map", false,
                             pv->maps.v[j]->name, NULL, pv->maps.v[j]->loc);
        for (size_t j = 0; j < pv->events.n; j++) {
            Event *e = pv->events.v[j];
            if (!e->not_logged)
                claim_symbol(m, &tmp, &taken, pv, e->symbol, "event", false, NULL, e, e->loc);
        }
    }
    map_free(&taken);
    arena_free(&tmp);
}

/* ---- entry point ---- */

void check_rules(Manifest *m)
{
    rule_provider_unique(m);
    rule_cultures(m);
    for (size_t i = 0; i < m->providers.n; i++) {
        Provider *pv = m->providers.v[i];
        /* names and duplicates */
        rule_names(m, pv);
        rule_event_unique(m, pv);
        rule_channel_unique(m, pv);
        rule_level_unique(m, pv);
        rule_task_unique(m, pv);
        rule_opcode_unique(m, pv);
        rule_keyword_unique(m, pv);
        rule_map_unique(m, pv);
        rule_opcode_conflict(m, pv);
        /* values */
        rule_level_range(m, pv);
        rule_task_range(m, pv);
        rule_opcode_range(m, pv);
        rule_keyword_mask(m, pv);
        rule_channel_range(m, pv);
        /* channels */
        rule_admin_events(m, pv);
        rule_channel_publishing(m, pv);
        /* provider */
        rule_provider_files(m, pv);
        rule_channel_access(m, pv);
        /* symbols */
    }
    rule_symbol_unique(m);
    check_payload(m);
}
