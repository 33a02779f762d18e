/*
 * check.c - the check stage: a raw manifest, from any reader, becomes a
 * checked one.  It is the only source of manifest diagnostics after the
 * reader's structural ones, so `--validate` (read + check) and a compile
 * (read + check + emit) give one verdict.
 *
 * In order: references resolved (check_resolve.c); the semantic rules
 * (check_rules.c, check_payload.c); the rules that depend on the
 * compile's options (-A); the limits of the formats and of the generated
 * code (check_limits.c: the options say which tables and code); message ids (check_msgid.c); the header's names and
 * their clashes (check_names.c).  What the emitters derive from a checked
 * model lives beside it in Facts, or is a pure function of it
 * (check_facts.c), so that no emitter changes the model or reports on it.
 */
#include "mcgen.h"


bool check_manifest(Manifest *m, const Options *o, Facts *f)
{
    static const Options defaults = {.mode = HEADER_UM};
    if (!o)
        o = &defaults;
    if (m->mc)
        return check_mc(m, o); /* a message-text file: its own rules */
    int before = diag_error_count();
    /* Every problem in one run: a reference that did not resolve stays
     * NULL and marks only itself, so every rule and the header's names run
     * after resolution errors too (each rule skips what it cannot judge
     * without the reference).  Message ids report nothing and serve only
     * the emitters, which do not run after an error. */
    check_resolve(m);
    check_rules(m);
    if (o->tables.ansi)
        check_ansi_tables(m); /* -A: MCG5018 */
    check_limits(m, o);       /* the formats' and the generated code's */
    if (diag_error_count() == before)
        msgid_assign(m);
    check_names(m, f);
    return diag_error_count() == before;
}
