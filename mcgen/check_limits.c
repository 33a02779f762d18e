/*
 * check_limits.c - the limits of the formats mcgen writes and of the code
 * it generates, as coded errors at the element that exceeds them.  The
 * writers hold lengths, counts and indices in fields of fixed width; a
 * value that does not fit would be cut to its low bits and give a resource
 * that loads but says something else (a message-table entry 12 bytes long
 * for a 200 MB text, field 65,537 substituted as field 1).  So every such
 * value is measured here, in the check stage, where `--validate` sees it
 * too, and the writers only keep a guard (an internal error) for a check
 * that would be missing.
 *
 *   message-table entry     u16 length, a multiple of 4     MCG5019
 *   BinXml name and value   u16 count of UTF-16 units       MCG6022
 *   template properties     u16 indices (substitutions,     MCG6023
 *                           count/length, struct members)
 *   -um/-km write function  128 EVENT_DATA_DESCRIPTORs      MCG8020 (MCG8022
 *                           (EventWrite's limit)             without -um/-km)
 *   -um/-km write macros    127 parameters (MSVC's limit)   MCG8021
 *
 * The sizes are the writers' own arithmetic (emit_msgtable.c,
 * emit_wevt.c, emit_header.c through check_field_pieces), written from
 * the format documents (../shared/docs/msgtable.md section 2,
 * wevt-template.md sections 10.1 and 10.3).
 */
#include "mcgen.h"

#include <stdlib.h>
#include <string.h>

/* The largest 16-bit length that is a multiple of 4: message-table entry
 * lengths are padded to 4 bytes. */
#define ENTRY_MAX 65532u
/* BinXml counts of UTF-16 units, TEMP.BIN property indices. */
#define U16_MAX 65535u
/* EventWrite's MAX_EVENT_DATA_DESCRIPTORS; MSVC's macro parameters. */
#define DESCRIPTORS_MAX 128u
#define MACRO_PARAMS_MAX 127u

/* ---- message tables ----------------------------------------------------- */

typedef struct MsgLimit {
    const Options *o;
    PtrMap done; /* String -> itself, once reported or measured */
    Buf text;    /* scratch: a string's text as the table holds it */
} MsgLimit;

/* A message-table entry is {u16 length, u16 flags} + text (a line feed
 * as CR LF, emit_msgtable.c) + "\r\n" (not with -n) + NUL, zero-padded to 4 bytes (msgtable.md section 2): in
 * UTF-16, 4 + 2 * (units + 3) <= 65532, so at most 32,761 units (32,763
 * with -n); with -A, 4 + bytes + 3 rounded up to 4 <= 65532, so at most
 * 65,525 bytes (65,527 with -n). */
static void check_entry(Manifest *m, MsgRef *r, Loc at, void *arg)
{
    (void)at;
    MsgLimit *ml = arg;
    if (!r->id || !r->text)
        return;
    bool ansi = ml->o->tables.ansi, crlf = !ml->o->tables.no_crlf;
    size_t unit = ansi ? 1 : 2, tail = (crlf ? 2 : 0) + 1; /* "\r\n", NUL */
    size_t most = (ENTRY_MAX - 4) / unit - tail;
    for (size_t c = 0; c < m->cultures.n; c++) {
        const String *s = r->text[c];
        /* a byte is at most two units or characters (a line feed becomes
         * CR LF): nearly every text is far too short to measure, or to
         * remember as measured */
        if (!s || 2 * strlen(s->value) <= most || ptrmap_get(&ml->done, s))
            continue;
        ptrmap_put(&ml->done, s, (void *)s);
        /* the text as the table holds it (a line feed as CR LF); in
         * Windows-1252 (-A) a character is a byte (MCG5018 refuses those it
         * cannot hold) */
        buf_reset(&ml->text);
        msgtable_manifest_text(&ml->text, s->value);
        const char *t = ml->text.s ? ml->text.s : "";
        size_t n = ansi ? utf8_chars(t, ml->text.len) : utf8_utf16_units(t);
        if (n <= most)
            continue;
        size_t len = 4 + unit * (n + tail);
        len += (4 - len % 4) % 4;
        diag_c(D_MSG_ENTRY_LENGTH, s->loc,
               "string '%s' (culture '%s') is %zu %s long: its message-table entry would take "
               "%zu bytes, and the entry's 16-bit length holds at most %u (a text of at most "
               "%zu %s%s)",
               s->id, m->cultures.v[c]->name, n, ansi ? "bytes in Windows-1252" : "UTF-16 units",
               len, ENTRY_MAX, most, ansi ? "bytes with -A" : "units",
               crlf ? "" : " with -n");
    }
}

/* ---- TEMP.BIN templates ------------------------------------------------- */

/* A name or value of the template's BinXml: u16 count of UTF-16 units
 * (wevt-template.md 10.3). */
static void check_binxml_text(const Layout *l, Loc loc, const char *what, const char *text)
{
    /* a UTF-8 text has no more UTF-16 units than bytes: nearly every
     * name is far too short to count its units */
    if (!text || strlen(text) <= U16_MAX)
        return;
    size_t n = utf8_utf16_units(text);
    if (n > U16_MAX)
        diag_c(D_BINXML_LENGTH, loc,
               "%s of template '%s' is %zu UTF-16 units long: TEMP.BIN's BinXml counts it in "
               "16 bits (at most %u)",
               what, l->tid, n, U16_MAX);
}

/* kind 2: the element inside <UserData> as written: element and attribute
 * names, attribute values, the root's namespace (an xmlns attribute). */
static void check_userdata(const Layout *l, const XmlNode *n, int depth)
{
    check_binxml_text(l, n->loc, "the element name in <UserData>", n->name.local);
    if (depth == 0 && n->name.ns)
        check_binxml_text(l, n->loc, "the namespace in <UserData>", n->name.ns);
    for (size_t i = 0; i < n->attrs.n; i++) {
        check_binxml_text(l, n->loc, "an attribute name in <UserData>", n->attrs.v[i].name.local);
        check_binxml_text(l, n->loc, "an attribute value in <UserData>", n->attrs.v[i].value);
    }
    for (size_t i = 0; i < n->children.n; i++)
        check_userdata(l, n->children.v[i], depth + 1);
}

/* Property entries are numbered top-level fields first, then the members
 * of every struct (wevt-template.md 10.1); substitutions, count= and
 * length= references and a struct's first member hold such a number in 16
 * bits.  So a template has at most 65,536 properties: reported at the
 * first one past it. */
static void check_properties(const Layout *l)
{
    size_t n = l->fields.n;
    const Field *past = n > U16_MAX + 1 ? l->fields.v[U16_MAX + 1] : NULL;
    for (size_t i = 0; i < l->fields.n; i++) {
        const Field *f = l->fields.v[i];
        if (!f->is_struct)
            continue;
        if (!past && n + f->members.n > U16_MAX + 1)
            past = f->members.v[U16_MAX + 1 - n];
        n += f->members.n;
    }
    if (past)
        diag_c(D_TEMPLATE_PROPERTIES, past->loc,
               "template '%s' has %zu fields and struct members: TEMP.BIN numbers them in 16 "
               "bits (at most %u); '%s' is number %u",
               l->tid, n, U16_MAX + 1, past->name ? past->name : "", U16_MAX + 2);
}

static void check_layout(const Layout *l)
{
    if (l->user_data) {
        check_userdata(l, l->user_data, 0);
    } else {
        check_binxml_text(l, l->loc, "the name", l->name);
        for (size_t i = 0; i < l->fields.n; i++)
            check_binxml_text(l, l->fields.v[i]->loc, "a field name", l->fields.v[i]->name);
    }
    check_properties(l);
}

/* ---- the header's logging code ------------------------------------------ */

/* From the field's payload plan (check_facts.c), so that the header's
 * descriptors are the plan's by construction: emit_header.c checks each
 * function it writes against these counts. */
void check_field_pieces(const Field *f, unsigned *descriptors, unsigned *params)
{
    FieldPlan p = field_plan(f);
    /* mc's z, s and b: a string or binary value that no count prefixes */
    bool sized = p.termination == PT_NUL || p.termination == PT_LENGTH ||
                 p.termination == PT_UNMARKED;
    /* the caller passes a size: a blob (struct, unknown type), a counted
     * string's, an array of SIDs' or of strings without a length, and
     * binary's without length= */
    bool takes_len = p.kind == PK_STRUCT || p.kind == PK_UNKNOWN || p.termination == PT_COUNTED ||
                     (p.kind == PK_SID && p.count) || (sized && p.count && !p.length) ||
                     (p.termination == PT_UNMARKED && !p.count);
    *params = takes_len ? 2 : 1;
    /* a counted string without count=: its 16-bit size, then its bytes */
    *descriptors = p.termination == PT_COUNTED && !p.count ? 2 : 1;
}

static const char *event_name(Arena *a, const Event *ev)
{
    return ev->symbol ? arena_printf(a, "event %u version %u ('%s')", ev->value, ev->version,
                                     ev->symbol)
                      : arena_printf(a, "event %u version %u", ev->value, ev->version);
}

/* The EVENT_DATA_DESCRIPTORs and macro parameters a layout's fields take
 * (check_field_pieces summed): worked out once per layout, as the events
 * of a provider share a few layouts. */
typedef struct Pieces {
    unsigned desc, params;
} Pieces;

static Pieces layout_pieces(const Layout *l)
{
    Pieces sum = {0, 0};
    for (size_t i = 0; i < l->fields.n; i++) {
        unsigned d, p;
        check_field_pieces(l->fields.v[i], &d, &p);
        sum.desc += d;
        sum.params += p;
    }
    return sum;
}

/* The write function of an event fills one EVENT_DATA_DESCRIPTOR for the
 * provider traits and one or two per field; EventWrite takes at most 128
 * (MAX_EVENT_DATA_DESCRIPTORS, evntprov.h).  Its largest macro,
 * EventWrite<Sym>_ForContext(pContext, [Activity,] fields...), has one or
 * two parameters per field; MSVC's traditional preprocessor allows 127.
 * Without -um/-km no such code is written: a warning, as a provider may
 * still log the event by packing fields into fewer descriptors.  `sums`:
 * each layout's Pieces. */
static void check_event_code(Manifest *m, const Event *ev, const Options *o, const PtrMap *sums)
{
    if (ev->not_logged || !ev->layout)
        return;
    const Pieces *known = ptrmap_get(sums, ev->layout);
    Pieces fields = known ? *known : layout_pieces(ev->layout);
    unsigned desc = 1 + fields.desc, params = 1 + (o->mode == HEADER_KM) + fields.params;
    const char *mode = o->mode == HEADER_KM ? "-km" : "-um";
    if (desc > DESCRIPTORS_MAX && o->mode == HEADER_DESCRIPTORS)
        diag_c(D_PAYLOAD_UNLOGGABLE, ev->loc,
               "%s: its template '%s' needs %u EVENT_DATA_DESCRIPTORs as -um's code would fill "
               "them (the provider traits and %u for its fields); EventWrite takes at most %u",
               event_name(&m->arena, ev), ev->layout->tid, desc, desc - 1, DESCRIPTORS_MAX);
    if (o->mode == HEADER_DESCRIPTORS)
        return;
    if (desc > DESCRIPTORS_MAX)
        diag_c(D_EVENT_DESCRIPTORS, ev->loc,
               "%s: with %s, its write function would fill %u EVENT_DATA_DESCRIPTORs (the "
               "provider traits and %u for the fields of template '%s'); EventWrite takes at "
               "most %u",
               event_name(&m->arena, ev), mode, desc, desc - 1, ev->layout->tid,
               DESCRIPTORS_MAX);
    if (params > MACRO_PARAMS_MAX)
        diag_c(D_MACRO_PARAMETERS, ev->loc,
               "%s: with %s, its write macro ..._ForContext would have %u parameters "
               "(pContext%s and %u for the fields of template '%s'); MSVC allows at most %u",
               event_name(&m->arena, ev), mode, params, o->mode == HEADER_KM ? ", Activity" : "",
               params - 1 - (o->mode == HEADER_KM), ev->layout->tid, MACRO_PARAMS_MAX);
}

void check_limits(Manifest *m, const Options *o)
{
    MsgLimit ml = {o, {0}, {0}};
    manifest_each_msgref(m, check_entry, &ml);
    ptrmap_free(&ml.done);
    buf_free(&ml.text);
    for (size_t i = 0; i < m->providers.n; i++) {
        const Provider *pv = m->providers.v[i];
        Pieces *pieces = xcalloc(pv->layouts.n + 1, sizeof *pieces);
        PtrMap sums = {0};
        for (size_t j = 0; j < pv->layouts.n; j++) {
            check_layout(pv->layouts.v[j]);
            pieces[j] = layout_pieces(pv->layouts.v[j]);
            ptrmap_put(&sums, pv->layouts.v[j], &pieces[j]);
        }
        for (size_t j = 0; j < pv->events.n; j++)
            check_event_code(m, pv->events.v[j], o, &sums);
        ptrmap_free(&sums);
        free(pieces);
    }
}
