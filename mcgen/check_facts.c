/*
 * check_facts.c - what the check stage derives beside a checked model, for
 * the emitters: the side tables (Facts) and the values that are pure
 * functions of the checked model (a descriptor's keyword and channel, a
 * task's GUID), kept in one place so that the header and TEMP.BIN cannot
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
