/*
 * read_man.c - the .man reader: XML events to the raw manifest model.
 *
 * The reader is a push parser: xml.c calls on_start/on_end as expat meets
 * tags, and a stack of frames says what each open element is (a provider,
 * a channel, a template field, ...).  Elements the model does not know are
 * skipped with their whole subtree (the schema check of the validation
 * stage reports them); <counters> and <perftrack> are skipped with a note.
 *
 * A Windows component manifest (root <assembly> in namespace asm.v3, as
 * PowerShell's instrumentation manifest is written) carries the manifest's
 * parts as children: <instrumentation> and <localization>, written in the
 * asm.v3 namespace with the <events> inside in the events namespace.  mc
 * compiles them; here each part is read as the same element of an
 * <instrumentationManifest> (asm.v3 names inside a part stand for the
 * events namespace's) and checked as the only child of one (schema.c); the
 * component's own elements (<assemblyIdentity> with its $(build.x)
 * placeholders, <registryKeys>, ...) are read past unchecked.
 *
 * Attribute values that the schema types as QNames (level, task, opcode,
 * keyword names and references, inType/outType) are resolved through the
 * namespace declarations in scope at the element, when the element is
 * read, as only the document knows them.  Every other reference (an
 * event's level, a data field's map, a $(string.X), ...) is kept as
 * written: the check stage resolves them (check_resolve.c), whatever
 * reader made the model.
 */
#include "mcgen.h"
#include "os.h"

#include <stdlib.h>
#include <string.h>

/* A slot of Parser.qnames: an interned QName and its parts (q NULL: empty). */
typedef struct QNameSlot {
    const char *local, *ns;
    const QName *q;
} QNameSlot;

typedef enum {
    K_DOC, K_SKIP, K_ASSEMBLY, K_COMPONENT, K_MANIFEST, K_INSTRUMENTATION, K_EVENTS, K_PROVIDER, K_PEVENTS, K_EVENT,
    K_CHANNELS, K_CHANNEL, K_LOGGING, K_PUBLISHING, K_LEAF, K_LEVELS, K_LEVEL, K_TASKS, K_TASK,
    K_OPCODES, K_OPCODE, K_KEYWORDS, K_KEYWORD, K_MAPS, K_MAP, K_MAPITEM, K_TEMPLATES,
    K_TEMPLATE, K_DATA, K_STRUCT, K_USERDATA_ROOT, K_USERDATA, K_FILTERS, K_FILTER, K_TRAITS, K_NAMEDQUERIES,
    K_PATTERNMAPS, K_MSGTABLE, K_MESSAGE, K_LOCALIZATION, K_RESOURCES, K_STRINGTABLE, K_STRING,
} Kind;

typedef struct PFrame {
    Kind kind;
    void *obj; /* the model object this element built, if any */
    size_t first; /* a <template> or <struct>: its first field in Parser.fields */
} PFrame;

typedef struct Parser {
    Manifest *m;
    VEC(PFrame) stack;
    Provider *prov;
    Culture *culture;
    SchemaCheck *sc; /* the structural check (schema.c) */
    /* NS_EVENTS as the reader interned it, once seen (interned names are
     * one pointer per text for the whole parse) */
    const char *events_ns;
    bool saw_root;
    bool failed;
    /* a Windows component manifest (<assembly> root): the depth of the
     * frame of the part being read (<instrumentation>, <localization>),
     * 0 outside one, and whether an <instrumentation> was seen */
    size_t part_depth;
    bool saw_instrumentation;
    Loc channels_at; /* the current provider's first <channels>; line 0: none yet */
    Buf word; /* read_event: a word of keywords=, the trimmed template= */
    /* the fields of the open <template> and <struct>s, outermost first:
     * each gets its own at its end tag, an array sized exactly */
    VEC(Field *) fields;
    /* the opcodes of the open <task>, which gets them at its end tag */
    VEC(Opcode *) task_opcodes;
    /* the QNames events name, one copy each (intern_qname) */
    struct { QNameSlot *v; size_t n, cap; } qnames;
} Parser;

/* ---- helpers ---- */

/* The helpers that take an attribute's name are inlined at each call, so
 * that xml_attr_full sees the literal name there: its length, slot and
 * compare known at compile time, not a strlen and a hash per lookup. */
#if defined(__GNUC__)
#define BY_NAME static inline __attribute__((always_inline))
#else
#define BY_NAME static inline
#endif

static Arena *A(Parser *p) { return &p->m->arena; }

static const char *dup(Parser *p, const char *s) { return s ? arena_strdup(A(p), s) : NULL; }

/* A value that many elements repeat (a field's name and map=, an event's
 * channel= and template=): one copy, interned by the XML reader. */
static const char *shared(XmlReader *r, const char *s) { return s ? xml_intern(r, s) : NULL; }

/* An event's level=, task=, opcode= or keyword: one QName in the arena
 * per name for the whole document, found by its parts' pointers (the
 * reader interns both), so that an event holds 8 bytes per reference and
 * check_resolve.c's memo keys stay the parts' pointers. */
/* A QName's slot in qnames: its parts' pointers mixed. */
static size_t qname_hash(const char *local, const char *ns, size_t cap)
{
    uint64_t h = ((uint64_t)(uintptr_t)local ^ (uint64_t)(uintptr_t)ns * 31) *
                 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 32) & (cap - 1);
}

/* The slots hold the parts' pointers beside the QName, so a probe reads
 * the table only: a QName is allocated among the events of its first
 * use, and reading it on every probe missed the cache (intern_qname was
 * 3% of a 50 MB manifest's --validate). */
static const QName *intern_qname(Parser *p, QName q)
{
    if (p->qnames.n * 2 >= p->qnames.cap) {
        size_t cap = p->qnames.cap ? p->qnames.cap * 2 : 64;
        QNameSlot *v = xcalloc(cap, sizeof *v);
        for (size_t i = 0; i < p->qnames.cap; i++) {
            const QNameSlot *e = &p->qnames.v[i];
            if (!e->q)
                continue;
            size_t j = qname_hash(e->local, e->ns, cap);
            while (v[j].q)
                j = (j + 1) & (cap - 1);
            v[j] = *e;
        }
        free(p->qnames.v);
        p->qnames.v = v, p->qnames.cap = cap;
    }
    size_t j = qname_hash(q.local, q.ns, p->qnames.cap);
    for (const QNameSlot *e; (e = &p->qnames.v[j])->q; j = (j + 1) & (p->qnames.cap - 1))
        if (e->local == q.local && e->ns == q.ns)
            return e->q;
    QName *e = arena_alloc(A(p), sizeof *e);
    *e = q;
    p->qnames.n++;
    p->qnames.v[j] = (QNameSlot){q.local, q.ns, e};
    return e;
}

BY_NAME Loc attr_loc(const XmlElem *e, const char *name)
{
    const XmlAttr *a = xml_attr_full(e, name);
    return a ? a->loc : e->loc;
}

/* The positions no Pos encodes in place (see Pos): an attribute 64 lines
 * or more below its element, or past column 2^24 below it.  Hardly any
 * input has one; the table lives as long as the process, as the models
 * that point into it may. */
static struct {
    struct FarPos { uint32_t line, col; } *v;
    size_t n, cap;
} far_pos;

Loc pos_far(Loc in, uint32_t v)
{
    const struct FarPos *f = &far_pos.v[v & 0x3fffffff];
    return (Loc){in.file, f->line, f->col};
}

static Pos pos_put_far(Loc at)
{
    if (far_pos.n >= 0x40000000u)
        return (Pos){0}; /* not reached: the input would be gigabytes of such tags */
    vec_push(&far_pos, ((struct FarPos){at.line, at.col}));
    return (Pos){0xc0000000u | (uint32_t)(far_pos.n - 1)};
}

/* An attribute's position as a Pos of its element's. */
BY_NAME Pos pos_of(Loc elem, Loc at)
{
    if (at.line == elem.line && at.col < 0x80000000u)
        return (Pos){at.col};
    uint32_t down = at.line - elem.line;
    if (at.line > elem.line && down < 64 && at.col < 0x1000000u)
        return (Pos){0x80000000u | down << 24 | at.col};
    return pos_put_far(at);
}

BY_NAME Pos attr_pos(const XmlElem *e, const char *name)
{
    const XmlAttr *a = xml_attr_full(e, name);
    return a ? pos_of(e->loc, a->loc) : (Pos){0};
}

static void error_c(Parser *p, DiagCode code, Loc loc, const char *fmt, ...) PRINTF_LIKE(4, 5);
static void error_c(Parser *p, DiagCode code, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vc(code, loc, fmt, ap);
    va_end(ap);
    p->failed = true;
}

/*
 * The schema check (schema.c) has accepted an element before it is read
 * here, so the attribute checks below only fire where the model needs
 * more than the schema says: a number too large for its field (the
 * schema types an event's value as 32-bit, the model holds 16 bits) is
 * MCG3001; the structural codes after them would mean the schema and
 * this reader disagree, which the mutation test looks for.
 */

/* A required attribute; NULL after a diagnostic. */
BY_NAME const char *need(Parser *p, const XmlElem *e, const char *name)
{
    const char *v = xml_attr(e, name);
    if (!v)
        error_c(p, D_SCHEMA_MISSING_ATTRIBUTE, e->loc,
                "<%s> is missing the required attribute '%s'", e->local, name);
    return v;
}

/* An unsigned number as the schema's number types write it: decimal
 * (with an optional '+') or 0x hex. */
static bool number(const char *v, uint64_t max, uint64_t *out)
{
    /* the usual value, a few decimal digits and nothing else, read here
     * as parse_uint reads it (19 digits cannot overflow) */
    uint64_t x = 0;
    size_t i = 0;
    while (i < 19 && v[i] >= '0' && v[i] <= '9')
        x = x * 10 + (uint64_t)(v[i++] - '0');
    if (i > 0 && v[i] == '\0') {
        if (x > max)
            return false;
        *out = x;
        return true;
    }
    size_t n;
    const char *t = trim_span(v, &n);
    if (n > 1 && t[0] == '+' && t[1] != '+')
        v = t + 1;
    return parse_uint(v, max, out);
}

/* Whether v is written as a number (decimal, or 0x hex), whatever its size. */
static bool is_numeral(const char *v)
{
    size_t n;
    const char *t = trim_span(v, &n);
    size_t i = n && t[0] == '+' ? 1 : 0;
    bool hex = n > i + 2 && t[i] == '0' && (t[i + 1] == 'x' || t[i + 1] == 'X');
    if (hex)
        i += 2;
    if (i == n)
        return false;
    for (; i < n; i++)
        if (!(t[i] >= '0' && t[i] <= '9') &&
            !(hex && ((t[i] | 0x20) >= 'a' && (t[i] | 0x20) <= 'f')))
            return false;
    return true;
}

/* A number the schema accepted but `max` (the model's field) cannot
 * hold, or no number at all: diagnosed. */
static void bad_number(Parser *p, Loc loc, const char *what, const char *v, const char *elem,
                       uint64_t max)
{
    if (is_numeral(v))
        error_c(p, D_VALUE_RANGE, loc, "%s '%s' on <%s> is out of range: expected 0 to %llu",
                what, v, elem, (unsigned long long)max);
    else
        error_c(p, D_SCHEMA_VALUE, loc,
                "invalid %s '%s' on <%s>: expected an integer from 0 to %llu (decimal or 0x hex)",
                what, v, elem, (unsigned long long)max);
}

BY_NAME bool num_attr(Parser *p, const XmlElem *e, const char *name, uint64_t max, uint64_t *out)
{
    const char *v = xml_attr(e, name);
    if (!v)
        return false;
    if (!number(v, max, out)) {
        bad_number(p, attr_loc(e, name), name, v, e->local, max);
        return false;
    }
    return true;
}

BY_NAME bool need_num(Parser *p, const XmlElem *e, const char *name, uint64_t max, uint64_t *out)
{
    if (!need(p, e, name))
        return false;
    return num_attr(p, e, name, max, out);
}

BY_NAME bool bool_attr(Parser *p, const XmlElem *e, const char *name, bool *has, bool *out)
{
    const char *v = xml_attr(e, name);
    if (!v)
        return false;
    if (!parse_bool(v, out)) {
        error_c(p, D_SCHEMA_VALUE, attr_loc(e, name),
                "invalid %s '%s' on <%s>: expected true or false", name, v, e->local);
        return false;
    }
    if (has)
        *has = true;
    return true;
}

/* Manifests reconstructed from installed providers (TDH decompilers) mark
 * their provider with the non-schema attribute source=; they are read for
 * their content, and what does not resolve in them is a warning, reported
 * once per name, instead of an error. */
bool provider_decompiled(const Provider *pv) { return pv && pv->source; }

static void lenient_note(Parser *p, Loc loc, const char *what, const char *value)
{
    Map *seen = &p->prov->warned;
    const char *key = arena_printf(A(p), "prefix\x01%s", value);
    if (map_put(seen, key, (void *)key, true))
        return;
    diag_c(D_LENIENT, loc,
            "%s '%s' has an undeclared namespace prefix; taken literally (decompiled "
            "manifest: provider has source='%s')",
            what, value, p->prov->source);
}

/* An attribute whose value is a QName.  false when absent or invalid. */
static bool qname_value(Parser *p, XmlReader *r, const XmlElem *e, const char *name,
                        const char *v, size_t len, Loc loc, QName *q)
{
    if (xml_qname_n(r, v, len, q))
        return true;
    if (provider_decompiled(p->prov)) {
        size_t n;
        const char *t = trim_span(v, &n);
        q->ns = "";
        q->local = arena_strndup(A(p), t, n);
        lenient_note(p, loc, name, q->local);
        return true;
    }
    error_c(p, D_SCHEMA_VALUE, loc, "invalid %s '%s' on <%s>: undeclared namespace prefix", name,
            v, e->local);
    return false;
}

BY_NAME bool qname_attr(Parser *p, XmlReader *r, const XmlElem *e, const char *name, QName *q)
{
    const XmlAttr *a = xml_attr_full(e, name);
    if (!a)
        return false;
    return qname_value(p, r, e, name, a->value, a->value_len, a->loc, q);
}

/* qname_attr of an event's reference: its interned QName, NULL when
 * absent or invalid. */
BY_NAME const QName *event_qname(Parser *p, XmlReader *r, const XmlElem *e, const char *name)
{
    QName q;
    return qname_attr(p, r, e, name, &q) ? intern_qname(p, q) : NULL;
}

static bool guid_attr(Parser *p, const XmlElem *e, const char *name, Guid *g)
{
    const char *v = xml_attr(e, name);
    if (!v)
        return false;
    if (!guid_parse(v, g)) {
        error_c(p, D_SCHEMA_VALUE, attr_loc(e, name),
                 "invalid %s '%s' on <%s>: expected a GUID like "
                 "{12345678-1234-1234-1234-123456789abc}",
                 name, v, e->local);
        return false;
    }
    return true;
}

/* message="$(string.ID)" */
static void msg_attr(Parser *p, const XmlElem *e, const char *name, MsgRef *out)
{
    const XmlAttr *a = xml_attr_full(e, name);
    if (!a)
        return;
    size_t n;
    const char *v = trim_span(a->value, &n);
    out->pos = pos_of(e->loc, a->loc);
    if (n > 10 && memcmp(v, "$(string.", 9) == 0 && v[n - 1] == ')') {
        out->id = arena_strndup(A(p), v + 9, n - 10);
        return;
    }
    error_c(p, D_SCHEMA_VALUE, a->loc,
            "invalid %s '%s' on <%s>: expected a string reference '$(string.ID)'",
             name, a->value, e->local);
}

static bool same_ns(const char *a, const char *b) { return a == b || strcmp(a, b) == 0; }

/* The item named q in a map keyed by local name (see Provider). */
void *qmap_get(const Map *m, QName q)
{
    Named *n = map_get(m, q.local);
    while (n && !same_ns(n->name.ns, q.ns))
        n = n->homonym;
    return n;
}

const char *qname_display(Arena *a, QName q)
{
    if (!q.ns || !q.ns[0] || strcmp(q.ns, NS_EVENTS) == 0)
        return q.local;
    if (strcmp(q.ns, NS_WIN) == 0)
        return arena_printf(a, "win:%s", q.local);
    if (strcmp(q.ns, NS_XS) == 0)
        return arena_printf(a, "xs:%s", q.local);
    return arena_printf(a, "{%s}%s", q.ns, q.local);
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

bool guid_parse(const char *s, Guid *g)
{
    size_t n;
    s = trim_span(s, &n);
    if (n == 38 && s[0] == '{' && s[37] == '}')
        s++, n -= 2;
    if (n != 36)
        return false;
    uint8_t b[16];
    int k = 0;
    for (size_t i = 0; i < 36;) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-')
                return false;
            i++;
            continue;
        }
        int hi = hexval((unsigned char)s[i]), lo = hexval((unsigned char)s[i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        b[k++] = (uint8_t)(hi << 4 | lo);
        i += 2;
    }
    g->d1 = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    g->d2 = (uint16_t)(b[4] << 8 | b[5]);
    g->d3 = (uint16_t)(b[6] << 8 | b[7]);
    memcpy(g->d4, b + 8, 8);
    return true;
}

void guid_format(const Guid *g, char out[39])
{
    snprintf(out, 39, "{%08X-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X}", g->d1, g->d2, g->d3,
             g->d4[0], g->d4[1], g->d4[2], g->d4[3], g->d4[4], g->d4[5], g->d4[6], g->d4[7]);
}

const String *manifest_string(const Manifest *m, const Culture *c, const char *id)
{
    (void)m;
    return map_get(&c->by_id, id);
}

static bool ns_ok(Parser *p, const char *ns)
{
    if (ns[0] == '\0' || ns == p->events_ns)
        return true;
    if (strcmp(ns, NS_EVENTS) == 0) {
        p->events_ns = ns;
        return true;
    }
    return strcmp(ns, NS_WIN) == 0;
}

static PFrame *top(Parser *p) { return &p->stack.v[p->stack.n - 1]; }

static void push(Parser *p, Kind k, void *obj)
{
    PFrame f = {k, obj, p->fields.n};
    vec_push(&p->stack, f);
}

/* The name= attribute exactly as written (trimmed), prefix included:
 * the binary outputs store names that way.  Mostly it is unprefixed,
 * the same text as the QName's local name (`local`): that copy is kept. */
static const char *written_name(Parser *p, const XmlElem *e, const char *local)
{
    const char *v = xml_attr(e, "name");
    if (!v)
        return "";
    size_t n;
    const char *t = trim_span(v, &n);
    if (strncmp(local, t, n) == 0 && local[n] == '\0')
        return local;
    return arena_strndup(A(p), t, n);
}

static void named(Parser *p, XmlReader *r, const XmlElem *e, Named *n)
{
    n->loc = e->loc;
    if (need(p, e, "name") && !qname_attr(p, r, e, "name", &n->name))
        n->name.local = dup(p, xml_attr(e, "name")), n->name.ns = "";
    if (!n->name.local)
        n->name.local = "", n->name.ns = "";
    n->display = qname_display(A(p), n->name);
    n->written = written_name(p, e, n->name.local);
    n->symbol = dup(p, xml_attr(e, "symbol"));
    msg_attr(p, e, "message", &n->msg);
}

/* `n` must be the first member of `obj` (Level, Task, Opcode, Keyword). */
static void index_named(Parser *p, Map *m, Named *n, void *obj)
{
    (void)p;
    if (!n->name.local[0])
        return;
    Named *first = map_put(m, n->name.local, obj, true);
    if (!first)
        return;
    while (first->homonym)
        first = first->homonym;
    first->homonym = n;
}

/* ---- element readers: one per schema element ---- */

/* provider: name guid symbol resourceFileName messageFileName
 *           parameterFileName message controlGuid namespace */
static Provider *read_provider(Parser *p, const XmlElem *e)
{
    Provider *v = arena_alloc(A(p), sizeof *v);
    v->index = (int)p->m->providers.n;
    v->loc = e->loc;
    v->name = dup(p, need(p, e, "name"));
    if (!v->name)
        v->name = "";
    if (need(p, e, "guid"))
        guid_attr(p, e, "guid", &v->guid);
    v->symbol = dup(p, xml_attr(e, "symbol"));
    v->resource_file = dup(p, xml_attr(e, "resourceFileName"));
    v->message_file = dup(p, xml_attr(e, "messageFileName"));
    v->parameter_file = dup(p, xml_attr(e, "parameterFileName"));
    v->namespace_ = dup(p, xml_attr(e, "namespace"));
    v->source = dup(p, xml_attr(e, "source"));
    v->has_control_guid = guid_attr(p, e, "controlGuid", &v->control_guid);
    msg_attr(p, e, "message", &v->msg);
    vec_push(&p->m->providers, v);
    if (v->name[0])
        map_put(&p->m->provider_by_name, v->name, v, true);
    return v;
}

static ChannelType channel_type(Parser *p, const XmlElem *e)
{
    const char *t = xml_attr(e, "type");
    if (!t)
        return CHAN_NONE;
    static const char *names[] = {"Admin", "Operational", "Analytic", "Debug"};
    for (int i = 0; i < 4; i++)
        if (strcmp(t, names[i]) == 0)
            return (ChannelType)i;
    error_c(p, D_SCHEMA_VALUE, attr_loc(e, "type"),
             "invalid channel type '%s': expected Admin, Operational, Analytic or Debug", t);
    return CHAN_NONE;
}

/* channel: name chid type symbol value enabled isolation access message
 * importChannel: name chid symbol */
static Channel *read_channel(Parser *p, const XmlElem *e, bool import)
{
    Channel *c = arena_alloc(A(p), sizeof *c);
    c->loc = e->loc;
    c->owner = p->prov;
    c->imported = import;
    c->name = dup(p, need(p, e, "name"));
    if (!c->name)
        c->name = "";
    c->chid = dup(p, xml_attr(e, "chid"));
    c->symbol = dup(p, xml_attr(e, "symbol"));
    c->type = CHAN_NONE;
    if (!import) {
        if (need(p, e, "type"))
            c->type = channel_type(p, e);
        uint64_t v;
        if (num_attr(p, e, "value", 255, &v))
            c->has_value = true, c->value = (uint8_t)v;
        bool_attr(p, e, "enabled", &c->has_enabled, &c->enabled);
        const char *iso = xml_attr(e, "isolation");
        if (iso) {
            if (strcmp(iso, "Application") == 0)
                c->isolation = ISO_APPLICATION;
            else if (strcmp(iso, "System") == 0)
                c->isolation = ISO_SYSTEM;
            else if (strcmp(iso, "Custom") == 0)
                c->isolation = ISO_CUSTOM;
            else
                error_c(p, D_SCHEMA_VALUE, attr_loc(e, "isolation"),
                         "invalid isolation '%s': expected Application, System or Custom", iso);
        }
        c->access = dup(p, xml_attr(e, "access"));
        msg_attr(p, e, "message", &c->msg);
    }
    if (p->prov) {
        c->index = (uint32_t)p->prov->channels.n;
        vec_push(&p->prov->channels, c);
    }
    return c;
}

/* level: name value symbol message */
static void read_level(Parser *p, XmlReader *r, const XmlElem *e)
{
    Level *l = arena_alloc(A(p), sizeof *l);
    named(p, r, e, &l->n);
    uint64_t v;
    if (need_num(p, e, "value", 255, &v))
        l->value = (uint8_t)v;
    vec_push(&p->prov->levels, l);
    index_named(p, &p->prov->level_by_name, &l->n, l);
}

/* task: name value symbol eventGUID message mofGUID; may hold <opcodes> */
static Task *read_task(Parser *p, XmlReader *r, const XmlElem *e)
{
    Task *t = arena_alloc(A(p), sizeof *t);
    named(p, r, e, &t->n);
    uint64_t v;
    if (need_num(p, e, "value", 65535, &v))
        t->value = (uint16_t)v;
    t->has_guid = guid_attr(p, e, "eventGUID", &t->event_guid);
    t->mof_guid = dup(p, xml_attr(e, "mofGUID"));
    vec_push(&p->prov->tasks, t);
    index_named(p, &p->prov->task_by_name, &t->n, t);
    return t;
}

/* opcode: name value symbol message mofValue (global or inside a task) */
static void read_opcode(Parser *p, XmlReader *r, const XmlElem *e, Task *task)
{
    Opcode *o = arena_alloc(A(p), sizeof *o);
    named(p, r, e, &o->n);
    uint64_t v;
    if (need_num(p, e, "value", 255, &v))
        o->value = (uint8_t)v;
    o->mof_value = dup(p, xml_attr(e, "mofValue"));
    o->task = task;
    if (task) {
        vec_push(&p->task_opcodes, o);
    } else {
        vec_push(&p->prov->opcodes, o);
        index_named(p, &p->prov->opcode_by_name, &o->n, o);
    }
}

/* keyword: name mask symbol message */
static void read_keyword(Parser *p, XmlReader *r, const XmlElem *e)
{
    Keyword *k = arena_alloc(A(p), sizeof *k);
    named(p, r, e, &k->n);
    uint64_t v;
    if (need(p, e, "mask") && num_attr(p, e, "mask", UINT64_MAX, &v))
        k->mask = v;
    vec_push(&p->prov->keywords, k);
    index_named(p, &p->prov->keyword_by_name, &k->n, k);
}

/* valueMap | bitMap | patternMap: name symbol (format) */
static ValueMap *read_map(Parser *p, const XmlElem *e, MapKind kind)
{
    ValueMap *m = arena_alloc(A(p), sizeof *m);
    m->kind = kind;
    m->loc = e->loc;
    m->name = dup(p, need(p, e, "name"));
    if (!m->name)
        m->name = "";
    m->symbol = dup(p, xml_attr(e, "symbol"));
    m->format = dup(p, xml_attr(e, "format"));
    vec_push(&p->prov->maps, m);
    if (m->name[0])
        map_put(&p->prov->map_by_name, m->name, m, true);
    return m;
}

/* map: value symbol message (patternMap items: name value) */
static void read_map_item(Parser *p, const XmlElem *e, ValueMap *m)
{
    MapItem *it = arena_alloc(A(p), sizeof *it);
    it->loc = e->loc;
    if (m->kind == MAP_PATTERN) {
        it->pattern_name = dup(p, need(p, e, "name"));
        it->pattern_value = dup(p, need(p, e, "value"));
    } else {
        uint64_t v;
        if (need_num(p, e, "value", UINT32_MAX, &v))
            it->value = (uint32_t)v;
        msg_attr(p, e, "message", &it->msg);
    }
    it->symbol = dup(p, xml_attr(e, "symbol"));
    vec_push(&m->items, it);
}

/* template: tid name */
static Layout *read_template(Parser *p, const XmlElem *e)
{
    Layout *l = arena_alloc(A(p), sizeof *l);
    l->loc = e->loc;
    l->tid = dup(p, need(p, e, "tid"));
    if (!l->tid)
        l->tid = "";
    l->name = dup(p, xml_attr(e, "name"));
    vec_push(&p->prov->layouts, l);
    if (l->tid[0])
        map_put(&p->prov->layout_by_tid, l->tid, l, true);
    return l;
}

const FieldQty field_qty_none = {{NULL, NULL, {0}, 0, QTY_NONE}, {NULL, NULL, {0}, 0, QTY_NONE}};

/* count= or length= (attribute a, named `name`) into q */
static void quantity_of(Parser *p, const XmlElem *e, const char *name, const XmlAttr *a,
                        Quantity *q)
{
    q->loc = a->loc;
    uint64_t v;
    size_t n;
    const char *s = trim_span(a->value, &n);
    if (is_numeral(a->value)) {
        if (!number(a->value, 65535, &v)) {
            bad_number(p, a->loc, name, a->value, e->local, 65535);
            return;
        }
        q->kind = QTY_FIXED;
        q->n = (uint16_t)v;
    } else {
        q->kind = QTY_FIELD; /* resolved later */
        q->text = arena_strndup(A(p), s, n);
    }
}

/* count= and length=; &field_qty_none when neither (most fields) */
static const FieldQty *read_quantities(Parser *p, const XmlElem *e)
{
    const XmlAttr *count = xml_attr_full(e, "count"), *length = xml_attr_full(e, "length");
    if (!count && !length)
        return &field_qty_none;
    FieldQty *q = arena_alloc(A(p), sizeof *q);
    if (count)
        quantity_of(p, e, "count", count, &q->count);
    if (length)
        quantity_of(p, e, "length", length, &q->length);
    return q;
}

/* data: name inType outType map count length
 * struct: name count length; holds data and struct */
static Field *read_field(Parser *p, XmlReader *r, const XmlElem *e, bool is_struct)
{
    Field *f = arena_alloc(A(p), sizeof *f);
    f->loc = e->loc;
    f->is_struct = is_struct;
    f->name = shared(r, need(p, e, "name"));
    if (!f->name)
        f->name = "";
    if (!is_struct) {
        QName in_q = {0}, out_q = {0};
        if (need(p, e, "inType"))
            qname_attr(p, r, e, "inType", &in_q);
        f->has_out = qname_attr(p, r, e, "outType", &out_q);
        resolve_field_types(p->m, f, in_q, out_q);
        f->map_name = shared(r, xml_attr(e, "map"));
        f->in_pos = attr_pos(e, "inType");
        f->out_pos = attr_pos(e, "outType");
        f->map_pos = attr_pos(e, "map");
    }
    f->qty = read_quantities(p, e);
    PFrame *parent = top(p);
    f->index = (uint32_t)(p->fields.n - parent->first);
    vec_push(&p->fields, f);
    return f;
}

/* The end of a <template> or <struct>: its fields into an array of its own. */
static void end_fields(Parser *p, const PFrame *f)
{
    size_t n = p->fields.n - f->first;
    Field **v = n ? arena_alloc(A(p), n * sizeof *v) : NULL;
    if (n)
        memcpy(v, p->fields.v + f->first, n * sizeof *v);
    if (f->kind == K_STRUCT) {
        Field *s = f->obj;
        s->members.v = v, s->members.n = n;
    } else {
        Layout *l = f->obj;
        l->fields.v = v, l->fields.n = n;
    }
    p->fields.n = f->first;
}

/* The end of a <task>: its opcodes into an array of its own. */
static void end_task(Parser *p, Task *t)
{
    size_t n = p->task_opcodes.n;
    if (n) {
        t->opcodes.v = arena_alloc(A(p), n * sizeof *t->opcodes.v);
        memcpy(t->opcodes.v, p->task_opcodes.v, n * sizeof *t->opcodes.v);
        t->opcodes.n = n;
    }
    p->task_opcodes.n = 0;
}

const EventRare event_rare_none = {NULL, NULL, {NULL, 0}};

/* Splits "FILE=a.cpp;MJ=\"x y\";LINE=6" into key/value pairs. */
static void parse_event_attributes(Parser *p, EventRare *ev, const char *s)
{
    Buf key = {0}, val = {0};
    size_t i = 0, n = strlen(s);
    size_t most = 1; /* pairs: at most one more than the ';' */
    for (size_t j = 0; j < n; j++)
        most += s[j] == ';';
    ev->attrs.v = arena_alloc(A(p), most * sizeof *ev->attrs.v);
    while (i < n) {
        buf_reset(&key);
        buf_reset(&val);
        while (i < n && s[i] != '=' && s[i] != ';')
            buf_addc(&key, s[i++]);
        if (i < n && s[i] == '=') {
            i++;
            if (i < n && s[i] == '"') {
                i++;
                while (i < n && s[i] != '"')
                    buf_addc(&val, s[i++]);
                if (i < n)
                    i++;
                while (i < n && s[i] != ';')
                    i++;
            } else {
                while (i < n && s[i] != ';')
                    buf_addc(&val, s[i++]);
            }
        }
        if (i < n && s[i] == ';')
            i++;
        if (key.len) {
            EventAttr a = {arena_strndup(A(p), key.s, key.len),
                           arena_strndup(A(p), val.s ? val.s : "", val.len)};
            ev->attrs.v[ev->attrs.n++] = a;
        }
    }
    buf_free(&key);
    buf_free(&val);
}

/* is_xml_space, inline: a keywords= list is split a character at a time. */
static inline bool list_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* event: value version symbol name channel level task opcode keywords
 *        template message notLogged suppressProjection attributes */
static void read_event(Parser *p, XmlReader *r, const XmlElem *e)
{
    Event *ev = arena_alloc(A(p), sizeof *ev);
    ev->loc = e->loc;
    uint64_t v;
    if (need_num(p, e, "value", 65535, &v))
        ev->value = (uint16_t)v;
    if (num_attr(p, e, "version", 255, &v))
        ev->version = (uint8_t)v;
    ev->symbol = dup(p, xml_attr(e, "symbol"));
    const char *name = xml_attr(e, "name"), *attributes = xml_attr(e, "attributes");
    ev->rare = &event_rare_none;
    if (name || attributes) {
        EventRare *rare = arena_alloc(A(p), sizeof *rare);
        rare->name = dup(p, name);
        rare->attributes = dup(p, attributes);
        if (attributes)
            parse_event_attributes(p, rare, rare->attributes);
        ev->rare = rare;
    }
    ev->refs_written = true;
    ev->channel_ref = shared(r, xml_attr(e, "channel"));
    ev->channel_pos = attr_pos(e, "channel");
    ev->level_pos = attr_pos(e, "level");
    ev->has_level = (ev->level_q = event_qname(p, r, e, "level")) != NULL;
    ev->task_pos = attr_pos(e, "task");
    ev->has_task = (ev->task_q = event_qname(p, r, e, "task")) != NULL;
    ev->opcode_pos = attr_pos(e, "opcode");
    ev->has_opcode = (ev->opcode_q = event_qname(p, r, e, "opcode")) != NULL;
    const char *keywords = xml_attr(e, "keywords");
    ev->keywords_pos = attr_pos(e, "keywords");
    if (keywords) {
        size_t most = 0; /* words: at most one per start of a run of non-spaces */
        bool after_space = true;
        for (const char *s = keywords; *s; s++) {
            bool space = list_space(*s);
            most += after_space && !space;
            after_space = space;
        }
        /* the array the resolved keywords take in place (Keyword *) */
        ev->keyword_qs = most ? arena_alloc(A(p), most * sizeof *ev->keyword_qs) : NULL;
        const char *s = keywords;
        while (*s) {
            while (*s && list_space(*s))
                s++;
            const char *start = s;
            while (*s && !list_space(*s))
                s++;
            if (s == start)
                break;
            /* the QName's local name is interned (or, in a decompiled
             * manifest, copied): the word itself is not kept */
            buf_reset(&p->word);
            buf_add(&p->word, start, (size_t)(s - start));
            QName q;
            if (qname_value(p, r, e, "keywords", p->word.s, p->word.len,
                            loc_in(ev->loc, ev->keywords_pos), &q))
                ev->keyword_qs[ev->nkeywords++] = intern_qname(p, q);
        }
    }
    const char *tref = xml_attr(e, "template");
    if (tref) {
        size_t n;
        const char *t = trim_span(tref, &n);
        buf_reset(&p->word);
        buf_add(&p->word, t, n);
        ev->template_ref = shared(r, p->word.s);
        ev->has_template = true;
    }
    ev->template_pos = attr_pos(e, "template");
    msg_attr(p, e, "message", &ev->msg);
    bool has, not_logged = false, suppress_projection = false;
    bool_attr(p, e, "notLogged", &has, &not_logged);
    bool_attr(p, e, "suppressProjection", &has, &suppress_projection);
    ev->not_logged = not_logged, ev->suppress_projection = suppress_projection;
    vec_push(&p->prov->events, ev);
}

/* filter: name value version symbol tid message */
static void read_filter(Parser *p, XmlReader *r, const XmlElem *e)
{
    Filter *f = arena_alloc(A(p), sizeof *f);
    f->loc = e->loc;
    if (need(p, e, "name") && !qname_attr(p, r, e, "name", &f->name))
        f->name.local = "";
    if (!f->name.local)
        f->name.local = "", f->name.ns = "";
    f->display = qname_display(A(p), f->name);
    f->written = written_name(p, e, f->name.local);
    uint64_t v;
    if (need_num(p, e, "value", 255, &v))
        f->value = (uint8_t)v;
    if (num_attr(p, e, "version", 255, &v))
        f->version = (uint8_t)v;
    f->symbol = dup(p, xml_attr(e, "symbol"));
    f->tid = dup(p, xml_attr(e, "tid"));
    msg_attr(p, e, "message", &f->msg);
    vec_push(&p->prov->filters, f);
}

/* traits: groupGuid includeName */
static void read_traits(Parser *p, const XmlElem *e)
{
    Traits *t = arena_alloc(A(p), sizeof *t);
    t->loc = e->loc;
    t->has_group_guid = guid_attr(p, e, "groupGuid", &t->group_guid);
    bool_attr(p, e, "includeName", &t->has_include_name, &t->include_name);
    p->prov->traits = t;
}

/* messageTable/message: value symbol mid message */
static void read_message(Parser *p, const XmlElem *e)
{
    MessageEntry *me = arena_alloc(A(p), sizeof *me);
    me->loc = e->loc;
    uint64_t v;
    if (need_num(p, e, "value", UINT32_MAX, &v))
        me->value = (uint32_t)v;
    me->symbol = dup(p, xml_attr(e, "symbol"));
    me->mid = dup(p, xml_attr(e, "mid"));
    msg_attr(p, e, "message", &me->msg);
    vec_push(&p->m->message_table, me);
}

/* resources: culture */
static void read_resources(Parser *p, const XmlElem *e)
{
    const char *name = need(p, e, "culture");
    if (!name)
        name = "";
    Culture *c = map_get(&p->m->culture_by_name, name);
    if (!c) {
        c = arena_alloc(A(p), sizeof *c);
        c->name = dup(p, name);
        c->loc = attr_loc(e, "culture");
        vec_push(&p->m->cultures, c);
        map_put(&p->m->culture_by_name, c->name, c, false);
    }
    p->culture = c;
}

/* string: id value stringType */
static void read_string(Parser *p, const XmlElem *e)
{
    String *s = arena_alloc(A(p), sizeof *s);
    s->loc = e->loc;
    const char *id = need(p, e, "id");
    /* a copy of its own, not the one a reference above made: finding
     * that one took a map of every id referenced, a put per reference
     * and a lookup per string, each a few cache misses in a large
     * manifest (7% of the 50 MB manifest's --validate) for 2.6 MB of
     * its 59 MB model */
    s->id = dup(p, id);
    s->value = dup(p, need(p, e, "value"));
    if (!s->id || !s->value || !p->culture)
        return;
    const char *type = xml_attr(e, "stringType");
    if (type)
        ptrmap_put(&p->m->string_types, s, (void *)dup(p, type));
    vec_push(&p->culture->strings, s);
}

/* Each culture's strings by id, the first of an id kept, made after the
 * parse: while it runs, the rest of the mapped input is alive, so these
 * maps would add to the peak, and their size is known only now. */
static void index_strings(Manifest *m)
{
    for (size_t i = 0; i < m->cultures.n; i++) {
        Culture *c = m->cultures.v[i];
        map_reserve(&c->by_id, c->strings.n);
        for (size_t j = 0; j < c->strings.n; j++)
            map_put(&c->by_id, c->strings.v[j]->id, c->strings.v[j], true);
    }
}

/* UserData: any XML, kept as a tree */
static void free_xml(XmlNode *n);

static XmlNode *read_xml_node(Parser *p, const XmlElem *e, XmlNode *parent, Layout *owner)
{
    XmlNode *n = arena_alloc(A(p), sizeof *n);
    n->name.ns = e->ns;
    n->name.local = e->local;
    n->loc = e->loc;
    for (size_t i = 0; i < e->nattrs; i++) {
        struct XmlAttrNode a = {{e->attrs[i].ns, dup(p, e->attrs[i].local)},
                                dup(p, e->attrs[i].value)};
        vec_push(&n->attrs, a);
    }
    if (parent) {
        vec_push(&parent->children, n);
    } else {
        /* the schema lets a template repeat <UserData>; the last is kept,
         * as before, and the vectors of the one it replaces freed */
        free_xml(owner->user_data);
        owner->user_data = n;
    }
    return n;
}

/* ---- the element dispatcher ---- */

/* (the first characters compared inline: the dispatcher's chains of
 * names mostly differ there) */
static bool is(const XmlElem *e, const char *local)
{
    return e->local[0] == local[0] && strcmp(e->local, local) == 0;
}

/* Inside a part of a component manifest an element in the asm.v3
 * namespace is read as the events namespace's: `alias` gets the copy. */
static const XmlElem *part_elem(const Parser *p, const XmlElem *e, XmlElem *alias)
{
    if (!p->part_depth || strcmp(e->ns, NS_ASM_V3) != 0)
        return e;
    *alias = *e;
    alias->ns = NS_EVENTS;
    return alias;
}

/* A child of <assembly> that is one of an instrumentation manifest's parts
 * (the choice of the schema's InstrumentationManifestType). */
static bool is_part(const XmlElem *e)
{
    return (strcmp(e->ns, NS_ASM_V3) == 0 || strcmp(e->ns, NS_EVENTS) == 0) &&
           (is(e, "instrumentation") || is(e, "localization") || is(e, "metadata"));
}

static void on_start(void *ctx, XmlReader *r, const XmlElem *e)
{
    Parser *p = ctx;
    PFrame *f = top(p);
    Kind k = f->kind;
    XmlElem alias;
    bool part = false;
    if (k == K_COMPONENT || (k == K_ASSEMBLY && !is_part(e))) {
        /* the component's own elements: neither read nor checked (the
         * schema check sees an element outside its schema, unchecked) */
        if (p->sc)
            schema_start(p->sc, r, e);
        push(p, K_COMPONENT, NULL);
        return;
    }
    if (k == K_ASSEMBLY) {
        part = true, k = K_MANIFEST;
        p->part_depth = p->stack.n + 1; /* the frame pushed below */
        p->saw_instrumentation |= is(e, "instrumentation");
    }
    e = part_elem(p, e, &alias);
    /* A second <channels> in a provider: eventman.xsd allows one, but mc
     * accepts more (tpn/perfecthash's manifest ends its provider with an
     * empty <channels/>), so it is checked as the first and its channels
     * join the first's, with a warning. */
    bool again = k == K_PROVIDER && p->channels_at.line && is(e, "channels") &&
                 strcmp(e->ns, NS_EVENTS) == 0;
    if (again)
        diag_ex(D_SCHEMA_CHANNELS_AGAIN, e->loc, p->channels_at, "the first",
                "a second <channels> in <provider>: eventman.xsd allows one, mc accepts more; "
                "their channels are read as one list");
    if (p->sc && !(part ? schema_start_part : again ? schema_start_again : schema_start)(p->sc, r, e)) {
        p->failed = true;
        if (k == K_DOC)
            p->saw_root = true;
        push(p, K_SKIP, NULL);
        return;
    }
    if (k == K_SKIP || k == K_LEAF) {
        push(p, K_SKIP, NULL);
        return;
    }
    if (k == K_USERDATA || k == K_USERDATA_ROOT) {
        XmlNode *n = k == K_USERDATA ? read_xml_node(p, e, f->obj, NULL)
                                     : read_xml_node(p, e, NULL, f->obj);
        push(p, K_USERDATA, n);
        return;
    }
    if (k == K_DOC) {
        p->saw_root = true;
        if (is(e, "instrumentationManifest") && strcmp(e->ns, NS_EVENTS) == 0) {
            push(p, K_MANIFEST, NULL);
        } else if (is(e, "assembly") && strcmp(e->ns, NS_ASM_V3) == 0) {
            push(p, K_ASSEMBLY, NULL);
        } else {
            error_c(p, D_XML_ROOT, e->loc,
                     "not an instrumentation manifest: the root element is <%s>%s%s%s, expected "
                     "<instrumentationManifest> in namespace '" NS_EVENTS "'",
                     e->local, e->ns[0] ? " (namespace '" : "", e->ns, e->ns[0] ? "')" : "");
            xml_stop(r);
            push(p, K_SKIP, NULL);
        }
        return;
    }
    if (k == K_INSTRUMENTATION && (is(e, "counters") || is(e, "perftrack"))) {
        /* performance counters, usually in their own namespace */
        p->m->skipped_counter_sections++;
        diag_at(DIAG_NOTE, e->loc, "<%s> section skipped: mcgen compiles event providers only",
                e->local);
        push(p, K_SKIP, NULL);
        return;
    }
    if (!ns_ok(p, e->ns) && k != K_MANIFEST) {
        push(p, K_SKIP, NULL);
        return;
    }
    Kind nk = K_SKIP;
    void *obj = NULL;
    switch (k) {
    case K_MANIFEST:
        if (is(e, "instrumentation"))
            nk = K_INSTRUMENTATION;
        else if (is(e, "localization"))
            nk = K_LOCALIZATION;
        break;
    case K_INSTRUMENTATION:
        if (is(e, "events"))
            nk = K_EVENTS;
        break;
    case K_EVENTS:
        if (is(e, "provider"))
            nk = K_PROVIDER, obj = p->prov = read_provider(p, e), p->channels_at = (Loc){0};
        else if (is(e, "messageTable"))
            nk = K_MSGTABLE;
        break;
    case K_PROVIDER:
        if (is(e, "events"))
            nk = K_PEVENTS;
        else if (is(e, "channels"))
            nk = K_CHANNELS, p->channels_at = p->channels_at.line ? p->channels_at : e->loc;
        else if (is(e, "levels"))
            nk = K_LEVELS;
        else if (is(e, "tasks"))
            nk = K_TASKS;
        else if (is(e, "opcodes"))
            nk = K_OPCODES;
        else if (is(e, "keywords"))
            nk = K_KEYWORDS;
        else if (is(e, "maps"))
            nk = K_MAPS;
        else if (is(e, "templates"))
            nk = K_TEMPLATES;
        else if (is(e, "filters"))
            nk = K_FILTERS;
        else if (is(e, "traits"))
            nk = K_TRAITS, read_traits(p, e);
        else if (is(e, "namedQueries"))
            nk = K_NAMEDQUERIES;
        break;
    case K_PEVENTS:
        if (is(e, "event"))
            nk = K_EVENT, read_event(p, r, e);
        else if (is(e, "messageTable"))
            nk = K_MSGTABLE;
        break;
    case K_CHANNELS:
        if (is(e, "channel"))
            nk = K_CHANNEL, obj = read_channel(p, e, false);
        else if (is(e, "importChannel"))
            nk = K_CHANNEL, obj = read_channel(p, e, true);
        break;
    case K_CHANNEL: {
        Channel *c = f->obj;
        if (is(e, "logging"))
            nk = K_LOGGING, obj = c, c->logging.present = true, c->logging.loc = e->loc;
        else if (is(e, "publishing"))
            nk = K_PUBLISHING, obj = c, c->publishing.present = true, c->publishing.loc = e->loc;
        break;
    }
    case K_LOGGING:
    case K_PUBLISHING:
        nk = K_LEAF, obj = f->obj; /* value read at the end tag */
        break;
    case K_LEVELS:
        if (is(e, "level"))
            nk = K_LEAF, read_level(p, r, e);
        break;
    case K_TASKS:
        if (is(e, "task"))
            nk = K_TASK, obj = read_task(p, r, e);
        break;
    case K_TASK:
        if (is(e, "opcodes"))
            nk = K_OPCODES, obj = f->obj;
        break;
    case K_OPCODES:
        if (is(e, "opcode"))
            nk = K_LEAF, read_opcode(p, r, e, f->obj);
        break;
    case K_KEYWORDS:
        if (is(e, "keyword"))
            nk = K_LEAF, read_keyword(p, r, e);
        break;
    case K_MAPS:
        if (is(e, "valueMap"))
            nk = K_MAP, obj = read_map(p, e, MAP_VALUE);
        else if (is(e, "bitMap"))
            nk = K_MAP, obj = read_map(p, e, MAP_BIT);
        break;
    case K_NAMEDQUERIES:
        if (is(e, "patternMaps"))
            nk = K_PATTERNMAPS;
        break;
    case K_PATTERNMAPS:
        if (is(e, "patternMap"))
            nk = K_MAP, obj = read_map(p, e, MAP_PATTERN);
        break;
    case K_MAP:
        if (is(e, "map"))
            nk = K_LEAF, read_map_item(p, e, f->obj);
        break;
    case K_TEMPLATES:
        if (is(e, "template"))
            nk = K_TEMPLATE, obj = read_template(p, e);
        break;
    case K_TEMPLATE:
    case K_STRUCT:
        if (is(e, "data")) {
            nk = K_LEAF, read_field(p, r, e, false);
        } else if (is(e, "struct")) {
            nk = K_STRUCT, obj = read_field(p, r, e, true);
        } else if (is(e, "UserData") && k == K_TEMPLATE) {
            /* The element itself is not kept, only its child. */
            nk = K_USERDATA_ROOT, obj = f->obj;
        }
        break;
    case K_FILTERS:
        if (is(e, "filter"))
            nk = K_LEAF, read_filter(p, r, e);
        break;
    case K_MSGTABLE:
        if (is(e, "message"))
            nk = K_LEAF, read_message(p, e);
        break;
    case K_LOCALIZATION:
        if (is(e, "resources"))
            nk = K_RESOURCES, read_resources(p, e);
        break;
    case K_RESOURCES:
        if (is(e, "stringTable"))
            nk = K_STRINGTABLE;
        break;
    case K_STRINGTABLE:
        if (is(e, "string"))
            nk = K_LEAF, read_string(p, e);
        break;
    default:
        break;
    }
    push(p, nk, obj);
}

static void leaf_value(Parser *p, const XmlElem *e, Kind parent, Channel *c, const char *text,
                       size_t len)
{
    char *s = arena_strndup(A(p), text, len);
    uint64_t v;
    bool b;
#define NUM(field, max, has) \
    do { \
        if (!number(s, max, &v)) \
            bad_number(p, e->loc, "content", s, e->local, max); \
        else \
            field = v, has = true; \
    } while (0)
#define BOOL(field, has) \
    do { \
        if (!parse_bool(s, &b)) \
            error_c(p, D_SCHEMA_VALUE, e->loc, "invalid <%s> '%s': expected true or false", \
                    e->local, s); \
        else \
            field = b, has = true; \
    } while (0)
    if (parent == K_LOGGING) {
        ChannelLogging *l = &c->logging;
        if (is(e, "autoBackup"))
            BOOL(l->auto_backup, l->has_auto_backup);
        else if (is(e, "retention"))
            BOOL(l->retention, l->has_retention);
        else if (is(e, "maxSize"))
            NUM(l->max_size, UINT64_MAX, l->has_max_size);
        return;
    }
    ChannelPublishing *pb = &c->publishing;
    if (is(e, "level")) {
        NUM(pb->level, 255, pb->has_level);
    } else if (is(e, "keywords")) {
        NUM(pb->keywords, UINT64_MAX, pb->has_keywords);
    } else if (is(e, "controlGuid")) {
        if (!guid_parse(s, &pb->control_guid))
            error_c(p, D_SCHEMA_VALUE, e->loc, "invalid <controlGuid> '%s': expected a GUID", s);
        else
            pb->has_control_guid = true;
    } else if (is(e, "bufferSize")) {
        NUM(pb->buffer_size, UINT32_MAX, pb->has_buffer_size);
    } else if (is(e, "minBuffers")) {
        NUM(pb->min_buffers, UINT32_MAX, pb->has_min_buffers);
    } else if (is(e, "maxBuffers")) {
        NUM(pb->max_buffers, UINT32_MAX, pb->has_max_buffers);
    } else if (is(e, "latency")) {
        NUM(pb->latency, UINT32_MAX, pb->has_latency);
    } else if (is(e, "fileMax")) {
        NUM(pb->file_max, UINT32_MAX, pb->has_file_max);
    } else if (is(e, "clockType")) {
        size_t n;
        const char *t = trim_span(s, &n);
        pb->clock_type = arena_strndup(A(p), t, n);
        pb->has_clock_type = true;
    } else if (is(e, "sidType")) {
        size_t n;
        const char *t = trim_span(s, &n);
        pb->sid_type = arena_strndup(A(p), t, n);
        pb->has_sid_type = true;
    }
#undef NUM
#undef BOOL
}

static void on_end(void *ctx, XmlReader *r, const XmlElem *e, const char *text, size_t len)
{
    (void)r;
    Parser *p = ctx;
    bool part = p->part_depth && p->part_depth == p->stack.n;
    XmlElem alias;
    e = part_elem(p, e, &alias);
    bool valid = !p->sc || (part ? schema_end_part : schema_end)(p->sc, e, text, len);
    PFrame f = *top(p);
    p->stack.n--;
    if (part)
        p->part_depth = 0;
    if (f.kind == K_ASSEMBLY && !p->saw_instrumentation)
        error_c(p, D_XML_ROOT, e->loc,
                "not an instrumentation manifest: this Windows component manifest (<assembly>) "
                "has no <instrumentation> element");
    PFrame *parent = top(p);
    if (!valid) {
        p->failed = true;
        if (f.kind == K_LEAF) /* its text was refused: not read again */
            return;
    }
    if (f.kind == K_USERDATA && f.obj) {
        XmlNode *n = f.obj;
        size_t tl;
        char *t = arena_strndup(A(p), text, len);
        trim_span(t, &tl);
        if (tl)
            n->text = t;
        return;
    }
    if (f.kind == K_LEAF && (parent->kind == K_LOGGING || parent->kind == K_PUBLISHING)) {
        leaf_value(p, e, parent->kind, parent->obj, text, len);
        return;
    }
    if (f.kind == K_TEMPLATE || f.kind == K_STRUCT)
        end_fields(p, &f);
    if (f.kind == K_TASK)
        end_task(p, f.obj);
    if (f.kind == K_PROVIDER)
        p->prov = NULL;
    if (f.kind == K_RESOURCES)
        p->culture = NULL;
}

/* ---- entry points ---- */

static Manifest *manifest_new(const char *name)
{
    Manifest *m = xcalloc(1, sizeof *m);
    m->file = arena_strdup(&m->arena, name);
    return m;
}

/* Before the first element: the built-in definitions and the schema. */
static bool load_builtins(Parser *p)
{
    return winmeta_load(p->m) && (p->sc = schema_check_new()) != NULL;
}

/* Reads a document into a raw model: no reference is resolved here (the
 * check stage does that); NULL after the diagnostics of a document that is
 * not well-formed or not valid under the schema. */
static Manifest *load(Manifest *m, bool (*run)(Manifest *, const XmlHandler *, void *), void *arg)
{
    Parser p = {0};
    p.m = m;
    push(&p, K_DOC, NULL);
    XmlHandler h = {&p, on_start, on_end};
    bool ok = load_builtins(&p) && run(m, &h, arg);
    vec_free(&p.stack);
    buf_free(&p.word);
    vec_free(&p.fields);
    vec_free(&p.task_opcodes);
    free(p.qnames.v);
    schema_check_free(p.sc);
    if (!ok || !p.saw_root || p.failed) {
        manifest_free(m);
        return NULL;
    }
    index_strings(m);
    return m;
}

typedef struct MemArg {
    const void *bytes;
    size_t len, chunk;
} MemArg;

static bool run_mem(Manifest *m, const XmlHandler *h, void *arg)
{
    MemArg *a = arg;
    return xml_parse_mem(m->file, a->bytes, a->len, a->chunk, &m->arena, h);
}

static bool run_file(Manifest *m, const XmlHandler *h, void *arg)
{
    (void)arg;
    /* the model takes about 1.5 bytes per input byte: its first block is
     * as large as the input (up to 4 MiB, arena_expect) */
    OsStat st;
    if (os_stat(m->file, &st) && st.kind == OS_FILE)
        arena_expect(&m->arena, st.size > SIZE_MAX ? SIZE_MAX : (size_t)st.size);
    return xml_parse_file(m->file, &m->arena, h);
}

Manifest *read_man_mem(const char *name, const void *bytes, size_t len, size_t chunk)
{
    MemArg a = {bytes, len, chunk};
    return load(manifest_new(name), run_mem, &a);
}

Manifest *read_man_file(const char *path)
{
    return load(manifest_new(path), run_file, NULL);
}

static void free_named_maps(Provider *pv)
{
    map_free(&pv->level_by_name);
    map_free(&pv->task_by_name);
    map_free(&pv->opcode_by_name);
    map_free(&pv->keyword_by_name);
    map_free(&pv->map_by_name);
    map_free(&pv->layout_by_tid);
    map_free(&pv->warned);
}


static void free_xml(XmlNode *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->children.n; i++)
        free_xml(n->children.v[i]);
    vec_free(&n->children);
    vec_free(&n->attrs);
}

void manifest_free(Manifest *m)
{
    if (!m)
        return;
    if (m->mc)
        mc_free(m->mc);
    for (size_t i = 0; i < m->providers.n; i++) {
        Provider *pv = m->providers.v[i];
        for (size_t j = 0; j < pv->maps.n; j++)
            vec_free(&pv->maps.v[j]->items);
        for (size_t j = 0; j < pv->layouts.n; j++) {
            Layout *l = pv->layouts.v[j];
            free_xml(l->user_data);
        }
        vec_free(&pv->channels);
        vec_free(&pv->levels);
        vec_free(&pv->tasks);
        vec_free(&pv->opcodes);
        vec_free(&pv->keywords);
        vec_free(&pv->maps);
        vec_free(&pv->layouts);
        vec_free(&pv->events);
        vec_free(&pv->filters);
        free_named_maps(pv);
    }
    for (size_t i = 0; i < m->cultures.n; i++) {
        vec_free(&m->cultures.v[i]->strings);
        map_free(&m->cultures.v[i]->by_id);
    }
    Winmeta *w = &m->wm;
    vec_free(&w->channels);
    vec_free(&w->levels);
    vec_free(&w->tasks);
    vec_free(&w->opcodes);
    vec_free(&w->keywords);
    vec_free(&w->in_types);
    vec_free(&w->out_types);
    map_free(&w->channel_by_name);
    map_free(&w->level_by_name);
    map_free(&w->task_by_name);
    map_free(&w->opcode_by_name);
    map_free(&w->keyword_by_name);
    map_free(&w->in_by_name);
    map_free(&w->out_by_name);
    vec_free(&m->providers);
    vec_free(&m->message_table);
    vec_free(&m->cultures);
    map_free(&m->culture_by_name);
    map_free(&m->provider_by_name);
    map_free(&m->msgid_by_string);
    ptrmap_free(&m->string_types);
    arena_free(&m->arena);
    arena_free(&m->scratch);
    ptrmap_free(&m->types_written);
    free(m);
}
