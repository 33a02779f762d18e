/*
 * check.c - the check stage: a raw manifest, from any reader, becomes a
 * checked one.  It is the only source of manifest diagnostics after the
 * reader's structural ones, so `--validate` (read + check) and a compile
 * (read + check + emit) give one verdict.
 *
 * In order: references resolved (check_resolve.c); the semantic rules
 * (validate.c, validate_payload.c); the rules that depend on the
 * compile's options (-A); message ids (msgid.c); the header's names and
 * their clashes (check_names.c).  What the emitters derive from a checked
 * model lives beside it in Facts, or is a pure function of it (below), so
 * that no emitter changes the model or reports on it.
 */
#include "mcgen.h"

#include <string.h>

bool check_manifest(Manifest *m, const Options *o, Facts *f)
{
    static const Options defaults = {.mode = HEADER_UM};
    if (!o)
        o = &defaults;
    int before = diag_error_count();
    /* Every problem in one run: a reference that did not resolve stays
     * NULL and marks only itself, so every rule and the header's names run
     * after resolution errors too (each rule skips what it cannot judge
     * without the reference).  Message ids report nothing and serve only
     * the emitters, which do not run after an error. */
    check_resolve(m);
    validate_manifest(m);
    if (o->tables.ansi)
        validate_ansi_tables(m); /* -A: MCG5018 */
    if (diag_error_count() == before)
        msgid_assign(m);
    check_names(m, f);
    return diag_error_count() == before;
}

const char *facts_name(const Facts *f, const void *item)
{
    return ptrmap_get(&f->names, item);
}

void facts_free(Facts *f)
{
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

uint64_t event_descriptor_keyword(const Event *e)
{
    return e->keyword_mask | (e->channel ? channel_keyword(e->channel) : 0);
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
