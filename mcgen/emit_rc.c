/*
 * emit_rc.c - the resource script (<base>.rc) that puts the binaries into a
 * module, as mc.exe writes it (../shared/docs/mc-cli.md 4.3):
 *
 *   LANGUAGE 0x9,0x1                       one pair per culture
 *   1 11 "MSG00001.bin"                    RT_MESSAGETABLE, id 1
 *   1 WEVT_TEMPLATE "appTEMP.BIN"          once, for manifests with providers
 *
 * with CRLF line endings (the caller's encoding step).  The LANGUAGE pair
 * is the primary and sub language of the culture's Windows language id
 * (culture.c: "de" gives 0x7,0x0, zh-Hant 0x4,0x1f); the text comes from
 * templates/rc.j2.
 *
 * A .mc file's languages get a pair each, with their LanguageNames ids
 * and file names; the order (declaration order, or its reverse as mc did
 * up to 2020) and mc 2005's unquoted names are the caller's choice.
 *
 * The file names are the manifest's base name or -z's, which may hold any
 * character but '/': they are written as rc.exe and windres read a string,
 * a quote doubled ("a""b") and a backslash doubled ("a\\b": windres reads
 * "\b" as an escape); a control character (a newline would end the
 * statement) has no spelling there, and the run is refused (exit 2).
 */
#include "mcgen.h"

/* `name` as the inside of an .rc string; NULL after a diagnostic. */
static const char *rc_string(Arena *a, const char *name)
{
    Buf b = {0};
    for (const char *p = name; *p; p++) {
        if ((unsigned char)*p < 0x20 || *p == 0x7F) {
            buf_reset(&b);
            buf_add_shown(&b, name);
            diag_io("the file name '%s' cannot be written into the .rc: it has the control "
                    "character U+%04X, which a resource script string cannot hold (choose "
                    "another name with -z)",
                    b.s, (unsigned)(unsigned char)*p);
            buf_free(&b);
            return NULL;
        }
        if (*p == '"' || *p == '\\')
            buf_addc(&b, *p);
        buf_addc(&b, *p);
    }
    const char *s = arena_strndup(a, b.s ? b.s : "", b.len);
    buf_free(&b);
    return s;
}

bool rc_build(const RcTable *tabs, size_t ntabs, const char *wevt_name, bool quoted,
              TemplateFinder *tf, Buf *out)
{
    Arena a = {0};
    TValue *vars = tv_dict(&a), *tables = tv_list(&a);
    for (size_t i = 0; i < ntabs; i++) {
        const char *file = rc_string(&a, tabs[i].file);
        if (!file) {
            arena_free(&a);
            return false;
        }
        TValue *t = tv_dict(&a);
        tv_add(&a, t, "primary", tv_int(&a, tabs[i].langid & 0x3FF));
        tv_add(&a, t, "sub", tv_int(&a, tabs[i].langid >> 10));
        tv_add(&a, t, "file", tv_str(&a, file));
        tv_push(&a, tables, t);
    }
    tv_add(&a, vars, "tables", tables);
    tv_add(&a, vars, "quoted", tv_bool(&a, quoted));
    const char *wevt = wevt_name ? rc_string(&a, wevt_name) : NULL;
    if (wevt_name && !wevt) {
        arena_free(&a);
        return false;
    }
    tv_add(&a, vars, "wevt", wevt ? tv_str(&a, wevt) : tv_none(&a));
    Buf err = {0};
    size_t len = 0;
    const char *src = finder_load(tf, "rc.j2", &len);
    Tmpl *t = src ? tmpl_parse("rc.j2", src, len, &err) : NULL;
    bool ok = t && tmpl_render(t, vars, &tf->loader, finder_limits(tf), out, &err);
    if (!ok) {
        if (err.len) /* "template:line:col: error: ..." already */
            diag_formatted(err.s);
        else
            diag_plain(DIAG_ERROR, "no template rc.j2");
    }
    tmpl_free(t);
    buf_free(&err);
    arena_free(&a);
    return ok;
}

size_t rc_manifest_tables(const Manifest *m, const char *const *names, RcTable *out)
{
    size_t n = 0;
    for (size_t i = 0; i < m->cultures.n; i++) {
        if (!names[i])
            continue;
        uint16_t id;
        if (!culture_langid(m->cultures.v[i]->name, &id))
            unreachable_here(); /* check_rules.c refuses the manifest (MCG5016) */
        out[n++] = (RcTable){id, names[i]};
    }
    return n;
}
