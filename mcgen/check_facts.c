/*
 * check_facts.c - what the check stage derives beside a checked model, for
 * the emitters: the side tables (Facts) and the values that are pure
 * functions of the checked model (a descriptor's keyword and channel, a
 * task's GUID, a field's payload plan), kept in one place so that the header and TEMP.BIN cannot
 * compute them differently.
 */
#include "mcgen.h"

#include <string.h>

const char *facts_name(const Facts *f, const void *item) { return ptrmap_get(&f->names, item); }

const char *facts_event_name(const Facts *f, const Provider *pv, size_t i)
{
    const char **names = ptrmap_get(&f->event_names, pv);
    return names ? names[i] : NULL;
}

void facts_free(Facts *f)
{
    ptrmap_free(&f->event_names);
    ptrmap_free(&f->names);
    arena_free(&f->arena);
}

/* ---- facts that are functions of the checked model ---- */

uint64_t channel_keyword(const Channel *c)
{
    /* a declared (not auto-imported) channel: bit 63 - its index
     * (../shared/docs/wevt-template.md 7.1) */
    return !c->auto_imported && c->index < 64 ? (uint64_t)1 << (63 - c->index) : 0;
}

uint64_t event_keyword_mask(const Event *e)
{
    uint64_t mask = 0;
    for (size_t i = 0; i < e->nkeywords; i++)
        mask |= e->keywords[i]->mask;
    return mask;
}

uint64_t event_descriptor_keyword(const Event *e)
{
    return event_keyword_mask(e) | (e->channel ? channel_keyword(e->channel) : 0);
}

uint8_t event_descriptor_channel(const Event *e, const Provider *pv)
{
    if (e->channel)
        return e->channel->value;
    /* mc's header says 12 for an event without channel in a provider with
     * a controlGuid; TEMP.BIN says 0 (header-api.md section 2) */
    return pv->has_control_guid ? 0xC : 0;
}

bool task_has_guid(const Task *t)
{
    static const uint8_t zero[8];
    return t->has_guid && (t->event_guid.d1 || t->event_guid.d2 || t->event_guid.d3 ||
                           memcmp(t->event_guid.d4, zero, 8) != 0);
}

/* ---- the payload plan (mcgen.h FieldPlan; docs/json-model.md "Payload") ---- */

#define PAYLOAD_NAME(e, s) s,
const char *const payload_kind_names[PK_COUNT] = {PAYLOAD_KINDS(PAYLOAD_NAME)};
#undef PAYLOAD_NAME
const char *const payload_encoding_names[] = {NULL, "utf16", "ansi", "utf8"};
const char *const payload_termination_names[] = {NULL, "nul", "length", "counted", "none"};

/* TDH's input types by their value (TDH_INTYPE_*, the inType's value in
 * winmeta and TEMP.BIN): the kind, and the bytes of one value when fixed;
 * PK_UNKNOWN (0): not an inType (24 is unused).  The HexInts are
 * integers: their outType only shows them in hexadecimal. */
static const struct { uint8_t kind, size; } in_kinds[26] = {
    [1] = {PK_STRING, 0},      [2] = {PK_STRING, 0},      [3] = {PK_INT8, 1},
    [4] = {PK_UINT8, 1},       [5] = {PK_INT16, 2},       [6] = {PK_UINT16, 2},
    [7] = {PK_INT32, 4},       [8] = {PK_UINT32, 4},      [9] = {PK_INT64, 8},
    [10] = {PK_UINT64, 8},     [11] = {PK_FLOAT32, 4},    [12] = {PK_FLOAT64, 8},
    [13] = {PK_BOOL32, 4},     [14] = {PK_BINARY, 0},     [15] = {PK_GUID, 16},
    [16] = {PK_POINTER, 0},    [17] = {PK_FILETIME, 8},   [18] = {PK_SYSTEMTIME, 16},
    [19] = {PK_SID, 0},        [20] = {PK_UINT32, 4},     [21] = {PK_UINT64, 8},
    [22] = {PK_STRING, 0},     [23] = {PK_STRING, 0},     [25] = {PK_BINARY, 0},
};

/* count= and length= as mc's header reads them: a count of 0 or 1 and a
 * length of 0 are none, and so is a reference that did not resolve. */
static const Quantity *plan_qty(const Quantity *q, unsigned least)
{
    if (q->kind == QTY_FIXED)
        return q->n >= least ? q : NULL;
    return q->kind == QTY_FIELD && q->ref ? q : NULL;
}

FieldPlan field_plan(const Field *f)
{
    FieldPlan p = {PK_STRUCT, 0, PE_NONE, PT_NONE, plan_qty(&f->qty->count, 2), NULL};
    if (f->is_struct)
        return p;
    const InType *in = field_in_type(f);
    if (!in || in->value >= sizeof in_kinds / sizeof *in_kinds ||
        in_kinds[in->value].kind == PK_UNKNOWN) {
        p.kind = PK_UNKNOWN; /* a decompiled manifest's unknown type: the caller's bytes */
        return p;
    }
    p.kind = in_kinds[in->value].kind;
    p.size = in_kinds[in->value].size;
    const Quantity *length = plan_qty(&f->qty->length, 1);
    bool counted = in->value >= 22; /* CountedString, CountedAnsiString, CountedBinary */
    if (p.kind == PK_STRING) {
        const OutType *out = field_out_type(f) ? field_out_type(f) : in->default_out;
        bool utf16 = in->value == 1 || in->value == 22;
        p.encoding = utf16                                               ? PE_UTF16
                     : out && strcmp(out->name.local, "Utf8") == 0 ? PE_UTF8
                                                                   : PE_ANSI;
        p.termination = counted ? PT_COUNTED : length ? PT_LENGTH : PT_NUL;
    } else if (p.kind == PK_BINARY) {
        p.termination = counted ? PT_COUNTED : length ? PT_LENGTH : PT_UNMARKED;
    }
    if (p.termination == PT_LENGTH)
        p.length = length;
    return p;
}
