/*
 * emit_mc.c - the text outputs of a message-text (.mc) file: the C header
 * (templates/mc.h.j2) and the symbol map mc -x writes (templates/mc.dbg.j2),
 * from a checked McFile.  This file computes what the templates print:
 * each #define's padding (mc pads a name to 32 columns and puts one space
 * after it), its value as mc spells it, and the order of the facility and
 * severity names; the text is the templates'.
 *
 * A message's value is 0x%08XL, or %uL in decimal (OutputBase=10, or -d
 * until an OutputBase= says otherwise), inside ((TYPE)...) with
 * MessageIdTypedef=TYPE or MACRO(...) with MessageIdTypedefMacro=MACRO;
 * a facility's or severity's is 0x%X, or %u with -d.
 */
#include "mcgen.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Spaces that pad a name to mc's 32 columns (none beyond). */
static TValue *pad(Arena *a, const char *name)
{
    size_t n = strlen(name);
    char sp[33];
    size_t k = n < 32 ? 32 - n : 0;
    memset(sp, ' ', k);
    sp[k] = '\0';
    return tv_str(a, sp);
}

static int by_order(const void *x, const void *y)
{
    const McName *a = *(const McName *const *)x, *b = *(const McName *const *)y;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* mc up to 2018 wrote the names sorted by name, descending. */
static int by_name_descending(const void *x, const void *y)
{
    const McName *a = *(const McName *const *)x, *b = *(const McName *const *)y;
    return strcasecmp(b->name, a->name);
}

static TValue *names(Arena *a, const void *vec, const Options *o)
{
    const VEC(McName *) *v = vec;
    VEC(const McName *) w = {0};
    for (size_t i = 0; i < v->n; i++)
        if (v->v[i]->symbol)
            vec_push(&w, v->v[i]);
    sort_stable(w.v, w.n, sizeof *w.v, o->era >= MC_2017 ? by_name_descending : by_order);
    TValue *list = tv_list(a);
    for (size_t i = 0; i < w.n; i++) {
        TValue *d = tv_dict(a);
        tv_add(a, d, "symbol", tv_str(a, w.v[i]->symbol));
        tv_add(a, d, "pad", pad(a, w.v[i]->symbol));
        tv_add(a, d, "value", tv_str(a, arena_printf(a, o->decimal ? "%u" : "0x%X",
                                                     (unsigned)w.v[i]->value)));
        tv_push(a, list, d);
    }
    vec_free(&w);
    return list;
}

/* The #define's value of a message. */
static const char *message_value(Arena *a, const McMessage *msg, const Options *o)
{
    unsigned base = msg->output_base ? msg->output_base : o->decimal ? 10 : 16;
    const char *v = base == 10 ? arena_printf(a, "%uL", (unsigned)msg->id)
                               : arena_printf(a, "0x%08XL", (unsigned)msg->id);
    if (msg->id_macro)
        return arena_printf(a, "%s(%s)", msg->id_macro, v);
    if (msg->id_typedef)
        return arena_printf(a, "((%s)%s)", msg->id_typedef, v);
    return v;
}

/* The text a message shows in the header: its first text (mc shows one
 * language; nssm's header shows the first of English, French, Italian). */
static TValue *text_lines(Arena *a, const McMessage *msg)
{
    TValue *lines = tv_list(a);
    if (!msg->texts.n)
        return lines;
    const char *s = msg->texts.v[0].text;
    for (;;) {
        const char *e = strstr(s, "\r\n");
        tv_push(a, lines, tv_str(a, e ? arena_strndup(a, s, (size_t)(e - s)) : s));
        if (!e)
            break;
        s = e + 2;
    }
    return lines;
}

static bool render(const char *name, TValue *vars, TemplateFinder *tf, Buf *out)
{
    Buf err = {0};
    size_t len = 0;
    const char *src = finder_load(tf, name, &len);
    Tmpl *t = src ? tmpl_parse(name, src, len, &err) : NULL;
    bool ok = t && tmpl_render(t, vars, &tf->loader, finder_limits(tf), out, &err);
    if (!ok) {
        if (err.len)
            diag_formatted(err.s);
        else
            diag_plain(DIAG_ERROR, "no template %s", name);
    }
    tmpl_free(t);
    buf_free(&err);
    return ok;
}

bool mc_header_build(const Manifest *m, const Options *o, TemplateFinder *tf, Buf *out)
{
    const McFile *f = m->mc;
    Arena a = {0};
    TValue *vars = tv_dict(&a), *leading = tv_list(&a), *items = tv_list(&a);
    for (size_t i = 0; i < f->items.n; i++) {
        const McItem *it = &f->items.v[i];
        if (i < f->first_message) {
            tv_push(&a, leading, tv_str(&a, it->comment));
            continue;
        }
        TValue *d = tv_dict(&a);
        if (it->comment) {
            tv_add(&a, d, "comment", tv_str(&a, it->comment));
        } else {
            const McMessage *msg = it->msg;
            tv_add(&a, d, "comment", tv_none(&a));
            tv_add(&a, d, "symbol", msg->symbol ? tv_str(&a, msg->symbol) : tv_none(&a));
            tv_add(&a, d, "id_text", tv_str(&a, arena_printf(&a, "0x%08XL", (unsigned)msg->id)));
            tv_add(&a, d, "lines", text_lines(&a, msg));
            tv_add(&a, d, "pad", pad(&a, msg->symbol ? msg->symbol : ""));
            tv_add(&a, d, "value", tv_str(&a, message_value(&a, msg, o)));
        }
        tv_push(&a, items, d);
    }
    tv_add(&a, vars, "leading", leading);
    tv_add(&a, vars, "items", items);
    tv_add(&a, vars, "layed", tv_bool(&a, o->era >= MC_2005));
    tv_add(&a, vars, "ole2", tv_bool(&a, o->ole2));
    tv_add(&a, vars, "facilities", names(&a, &f->facilities, o));
    tv_add(&a, vars, "severities", names(&a, &f->severities, o));
    tv_add(&a, vars, "text_prefix", tv_str(&a, o->era >= MC_2005 ? "//  " : "// "));
    bool ok = render("mc.h.j2", vars, tf, out);
    arena_free(&a);
    return ok;
}

bool mc_dbg_build(const Manifest *m, const Options *o, const char *base, TemplateFinder *tf,
                  Buf *out)
{
    const McFile *f = m->mc;
    Arena a = {0};
    TValue *vars = tv_dict(&a), *symbols = tv_list(&a);
    const char *type = NULL;
    for (size_t i = 0; i < f->items.n; i++) {
        const McMessage *msg = f->items.v[i].msg;
        if (!msg)
            continue;
        if (msg->id_typedef)
            type = msg->id_typedef;
        if (msg->symbol)
            tv_push(&a, symbols, tv_str(&a, msg->symbol));
    }
    tv_add(&a, vars, "type", tv_str(&a, type ? type : "DWORD"));
    tv_add(&a, vars, "array", tv_str(&a, arena_printf(&a, "%sSymbolicNames", base)));
    tv_add(&a, vars, "cast", tv_bool(&a, o->era == MC_CURRENT));
    tv_add(&a, vars, "symbols", symbols);
    bool ok = render("mc.dbg.j2", vars, tf, out);
    arena_free(&a);
    return ok;
}
