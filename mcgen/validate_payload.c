/*
 * validate_payload.c - the semantic rules of payloads and texts:
 * templates, fields, inType/outType pairs, maps, messages, placeholders and
 * localized strings.  Same conventions as validate.c.
 */
#include "mcgen.h"

void validate_payload(Manifest *m)
{
    (void)m;
}
