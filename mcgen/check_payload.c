/*
 * check_payload.c - the semantic rules of payloads and texts:
 * templates, fields, inType/outType pairs, maps, messages, placeholders and
 * localized strings.  Same conventions as check_rules.c: one static function
 * per rule, the rule cited above it, every problem reported (never only
 * the first) through diag_c/diag_ex with the rule's own code.
 *
 * The rules read the resolved model, so a reference that did not resolve
 * (an error, MCG2001, or in a decompiled manifest a warning) shows up here
 * as a NULL pointer and the rule skips what it cannot judge without it:
 * every other problem is still reported in the same run.  Decompiled
 * providers (source=, rebuilt from TDH metadata) have lost the lengths of
 * their binary fields and come with a generated string table that repeats
 * ids; the rules about those leave them out.
 *
 * Every golden manifest was accepted by mc.exe, so a rule that would flag
 * one of them is wrong: where the documentation says more than mc enforces
 * (fixed counts and lengths of 0, length= on win:SID, map= on
 * win:HexInt32), the rule follows what mc accepted.
 */
#include "mcgen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ---------------------------------------------------------- */

static bool decompiled(const Provider *pv) { return pv->source != NULL; }

/* "event 5 version 0 ('Started')": how messages name an event. */
static const char *event_text(Arena *a, const Event *ev)
{
    if (ev->symbol)
        return arena_printf(a, "event %u version %u ('%s')", ev->value, ev->version,
                            ev->symbol);
    return arena_printf(a, "event %u version %u", ev->value, ev->version);
}

static bool in_type_is(const InType *t, const char *local)
{
    return t && strcmp(t->name.local, local) == 0;
}

/* ---- messages and their inserts --------------------------------------- */

/* FormatMessage's escapes, as it reads a message text at run time (its
 * documentation, "FormatMessage function", and Wine's FormatMessage tests,
 * which pass on Windows): '%' then
 *
 *   1..9, and a second digit    insert %1..%99, then optionally !format!
 *                               up to the next '!' (default !s!); a third
 *                               digit is text ("%100" is %10 and "0")
 *   0                           the end: nothing after it is written
 *   % n r t . ! space ...       a character (any other character is
 *                               written without its '%')
 *   nothing                     FormatMessage fails (ERROR_INVALID_PARAMETER)
 *
 * The format is a printf format (printf_format below).  One reader for
 * manifest strings (the rules below) and .mc texts (check_mc.c), so the two
 * agree on what an insert is.  A '%' at the end of a line is reported as if
 * it ended the text: in a table the line's CR follows it, which FormatMessage
 * writes as a bare CR instead of the '%' meant. */

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* A width or a precision at s[i]: '*' (taken from the next insert number)
 * or digits; returns where it ends. */
static size_t printf_count(const char *s, size_t n, size_t i)
{
    if (i < n && s[i] == '*')
        return i + 1;
    while (i < n && is_digit(s[i]))
        i++;
    return i;
}

/* The format between an insert's '!'s (s, n bytes): flags "-+ #0", a
 * width, a precision, a size prefix (I64 I32 ll hh h l L w I z j t), one
 * conversion, and nothing after it.  FormatMessage hands it to its printf:
 * c C d i o u x X p s S, and Microsoft's Z (an ANSI_STRING, wZ a
 * UNICODE_STRING: perfecthash's %1!wZ!) are FMT_OK; the floating-point
 * conversions e E f g G a A, which FormatMessage's documentation says it
 * does not support (Wine's writes the letter), and n, which writes through
 * its argument (Wine's FormatMessage crashes on it), are FMT_UNSUPPORTED;
 * anything else is FMT_BAD. */
static FormatState printf_format(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && strchr("-+ #0", s[i]))
        i++;
    i = printf_count(s, n, i);
    if (i < n && s[i] == '.')
        i = printf_count(s, n, i + 1);
    static const char *const sizes[] = {"I64", "I32", "ll", "hh", "h", "l", "L", "w", "I", "z", "j", "t"};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t len = strlen(sizes[k]);
        if (i + len <= n && strncmp(s + i, sizes[k], len) == 0) {
            i += len;
            break;
        }
    }
    if (i + 1 != n)
        return FMT_BAD;
    if (strchr("cCdiouxXpsSZ", s[i]))
        return FMT_OK;
    return strchr("eEfgGaAn", s[i]) ? FMT_UNSUPPORTED : FMT_BAD;
}

const char *insert_unsupported_why(const Insert *in)
{
    return in->fmt[in->fmt_len - 1] == 'n' ? "it writes through its argument"
                                           : "no floating-point formats";
}

bool insert_next(const char *s, size_t *pos, Insert *out)
{
    size_t i = *pos;
    /* strchr: texts are mostly words, and a byte-wise scan for '%' was a
     * third of check_payload's time */
    for (const char *p; (p = strchr(s + i, '%'));) {
        i = (size_t)(p - s);
        memset(out, 0, sizeof *out);
        out->at = s + i;
        char c = s[i + 1];
        if (c == '\0' || c == '\r' || c == '\n') {
            out->kind = INS_LONE;
            out->len = 1;
            *pos = i + 1;
            return true;
        }
        if (c == '0') {
            out->kind = INS_STOP;
            out->len = 2;
            *pos = i + 2;
            return true;
        }
        if (!is_digit(c)) {
            i += 2; /* an escape: %%, %n, %!, ... */
            continue;
        }
        size_t j = i + 1;
        out->kind = INS_ARG;
        out->n = (uint32_t)(s[j++] - '0');
        if (is_digit(s[j]))
            out->n = out->n * 10 + (uint32_t)(s[j++] - '0');
        out->third_digit = is_digit(s[j]);
        if (s[j] == '!') {
            out->fmt = s + j + 1;
            const char *end = strchr(out->fmt, '!');
            if (!end) {
                out->format = FMT_UNCLOSED;
                out->len = strlen(out->at);
                *pos = j + 1;
                return true;
            }
            out->fmt_len = (size_t)(end - out->fmt);
            out->format = printf_format(out->fmt, out->fmt_len);
            out->len = (size_t)(end + 1 - out->at);
            /* a bad format: read on after its first '!', so that what it
             * swallows is checked too */
            *pos = out->format == FMT_OK ? (size_t)(end + 1 - s) : j + 1;
            return true;
        }
        if (out->third_digit)
            while (is_digit(s[j]))
                j++; /* shown whole in the message */
        out->len = j - i;
        *pos = j;
        return true;
    }
    *pos = i + strlen(s + i);
    return false;
}

/* The text of an insert as written, for messages ("%3", "%2!d!"), cut
 * short when long. */
static const char *insert_text(Arena *a, const Insert *in)
{
    int len = in->len > 40 ? 40 : (int)in->len;
    return arena_printf(a, "%.*s%s", len, in->at, in->len > 40 ? "..." : "");
}

/* Reference r's string in culture c, or NULL: the reference holds them
 * (check_resolve.c), so no lookup; not const, for the rules' marks on
 * the strings. */
static String *ref_string(const MsgRef *r, size_t c)
{
    return r->id && r->text ? (String *)r->text[c] : NULL;
}

/* Whether every string of the culture is the first of its id: the reader
 * puts each string in by_id, the first of an id kept, so then the map
 * holds one entry a string; the usual case, where the string rules need no
 * lookup per string. */
static bool ids_unique(const Culture *cu) { return cu->by_id.n == cu->strings.n; }

/* FormatMessage's reading of a text (insert_next), checked once in every
 * string an event message uses, in each culture.  Errors where
 * FormatMessage fails or writes something other than the value: a '%'
 * that ends the text or a line (MCG5021), a !format! that is no printf
 * format (MCG5020) or one FormatMessage does not support (MCG5023).
 * Warnings where it still writes what was probably meant, or mc's verdict
 * is not known: %100 (%10 and "0", MCG5011), an unclosed !format! (kept a
 * warning as it always was: mc accepts it, MCG5012), text after %0, which
 * is never written (MCG5022). */
static void check_insert_syntax(Manifest *m, String *s)
{
    size_t pos = 0;
    Insert in;
    /* the highest insert, for rule_insert_range: read to the end, past a
     * %0 too (it reads every insert of the text) */
    unsigned highest = 0;
    bool stopped = false;
    while (insert_next(s->value, &pos, &in)) {
        if (in.kind == INS_ARG && in.n > highest)
            highest = in.n;
        if (stopped)
            continue;
        if (in.kind == INS_LONE) {
            diag_c(D_MSG_LONE_PERCENT, s->loc,
                   "string '%s' has a '%%' at the end of %s: FormatMessage fails on a '%%' "
                   "that ends the text, and writes a bare CR for one before a line break "
                   "(write %%%% for a percent sign)",
                   s->id, in.at[1] ? "a line" : "the text");
            continue;
        }
        if (in.kind == INS_STOP) {
            if (in.at[2])
                diag_c(D_MSG_TEXT_AFTER_STOP, s->loc,
                       "string '%s' has text after %%0, which FormatMessage never writes: it "
                       "stops at %%0 ('%s')",
                       s->id, arena_printf(&m->arena, "%.20s%s", in.at + 2,
                                           strlen(in.at + 2) > 20 ? "..." : ""));
            stopped = true; /* FormatMessage reads no further */
            continue;
        }
        if (in.third_digit)
            diag_c(D_MSG_INSERT_NUMBER, s->loc,
                   "string '%s' has '%s': insert numbers go from 1 to 99 (FormatMessage reads "
                   "%%%u, then the text '%.*s')",
                   s->id, insert_text(&m->arena, &in), in.n, (int)(in.len - 3), in.at + 3);
        if (in.format == FMT_UNCLOSED)
            diag_c(D_MSG_INSERT_FORMAT, s->loc,
                   "string '%s' has the insert '%s' with no closing '!' after its format "
                   "(write %%N!format!)",
                   s->id, insert_text(&m->arena, &in));
        else if (in.format == FMT_BAD)
            diag_c(D_MSG_INSERT_FORMAT_BAD, s->loc,
                   "string '%s' has the insert '%s': its format !%.*s! is not a printf format "
                   "(such as !d!, !-20s!, !08lX!)",
                   s->id, insert_text(&m->arena, &in), (int)in.fmt_len, in.fmt);
        else if (in.format == FMT_UNSUPPORTED)
            diag_c(D_MSG_INSERT_UNSUPPORTED, s->loc,
                   "string '%s' has the insert '%s': FormatMessage does not support the "
                   "conversion '%c' (%s)",
                   s->id, insert_text(&m->arena, &in), in.fmt[in.fmt_len - 1],
                   insert_unsupported_why(&in));
    }
    s->inserts = (uint8_t)(highest + 1);
}

static void rule_insert_syntax(Manifest *m)
{
    /* the strings an event's message names, marked on the strings: each
     * reference holds its string of every culture (check_resolve.c), and
     * the strings are checked in document order */
    for (size_t i = 0; i < m->providers.n; i++) {
        Provider *pv = m->providers.v[i];
        for (size_t j = 0; j < pv->events.n; j++) {
            for (size_t c = 0; c < m->cultures.n; c++) {
                String *s = ref_string(&pv->events.v[j]->msg, c);
                if (s)
                    s->event_message = true;
            }
        }
    }
    for (size_t c = 0; c < m->cultures.n; c++) {
        Culture *cu = m->cultures.v[c];
        for (size_t k = 0; k < cu->strings.n; k++) {
            String *s = cu->strings.v[k];
            /* a repeated id (MCG5014) is named by the first of its strings */
            const String *first = ids_unique(cu) ? s : map_get(&cu->by_id, s->id);
            if (first && first->event_message)
                check_insert_syntax(m, s);
        }
    }
}

/* An event's message may insert only the fields its template has: %N is
 * the template's Nth top-level <data> or <struct> (an event without a
 * template has none).  Checked in every culture's text. */
static void rule_insert_range(Manifest *m)
{
    for (size_t i = 0; i < m->providers.n; i++) {
        Provider *pv = m->providers.v[i];
        for (size_t j = 0; j < pv->events.n; j++) {
            Event *ev = pv->events.v[j];
            if (!ev->msg.id || !ev->msg.text || (ev->has_template && !ev->layout))
                continue;
            size_t nfields = ev->layout ? ev->layout->fields.n : 0;
            for (size_t c = 0; c < m->cultures.n; c++) {
                const String *s = ev->msg.text[c];
                /* rule_insert_syntax has read its inserts */
                if (!s || (s->inserts && s->inserts - 1u <= nfields))
                    continue;
                bool seen[100] = {0};
                size_t pos = 0;
                Insert in;
                while (insert_next(s->value, &pos, &in)) {
                    if (in.kind != INS_ARG || in.n <= nfields || seen[in.n])
                        continue;
                    seen[in.n] = true;
                    const char *has =
                        ev->layout
                            ? arena_printf(&m->arena, "its template '%s' has %zu field%s",
                                           ev->layout->tid, nfields, nfields == 1 ? "" : "s")
                            : "it has no template";
                    diag_ex(D_MSG_INSERT_RANGE, s->loc, ev->loc, "event defined",
                            "insert %%%u in string '%s' (culture '%s') names no field: %s has "
                            "this string as its message, and %s",
                            in.n, s->id, m->cultures.v[c]->name, event_text(&m->arena, ev), has);
                }
            }
        }
    }
}

/* ---- strings ------------------------------------------------------------ */

/* A referenced string must be in every culture: each culture's message
 * table needs its text (a string no culture defines is read_man.c's
 * undefined-string).  Reported once per string id, at its first use. */
static void rule_string_in_every_culture(Manifest *m, MsgRef *r, Loc at, void *arg)
{
    (void)arg;
    if (!r->id || !r->text)
        return;
    String *some = NULL;
    const char *some_culture = NULL;
    for (size_t c = 0; c < m->cultures.n && !some; c++)
        if ((some = ref_string(r, c)))
            some_culture = m->cultures.v[c]->name;
    /* every reference of one id holds the same strings: the first
     * one's mark says the id was judged */
    if (!some || some->culture_checked)
        return;
    some->culture_checked = true;
    for (size_t c = 0; c < m->cultures.n; c++)
        if (!r->text[c])
            diag_ex(D_STRING_MISSING_CULTURE, at, some->loc,
                    arena_printf(&m->arena, "defined in '%s'", some_culture),
                    "string '%s' is not defined in culture '%s'", r->id,
                    m->cultures.v[c]->name);
}

/* StringTableType: the id "uniquely identifies the string within the
 * string table" of a culture.  Not checked in a manifest with a
 * decompiled provider, whose string table a tool wrote. */
static void rule_string_unique(Manifest *m)
{
    /* a decompiler's string table repeats ids (one per map item name) */
    for (size_t i = 0; i < m->providers.n; i++)
        if (decompiled(m->providers.v[i]))
            return;
    for (size_t c = 0; c < m->cultures.n; c++) {
        Culture *cu = m->cultures.v[c];
        for (size_t k = 0; k < cu->strings.n && !ids_unique(cu); k++) {
            String *s = cu->strings.v[k];
            String *first = map_get(&cu->by_id, s->id);
            if (first && first != s)
                diag_ex(D_STRING_DUPLICATE, s->loc, first->loc, "first defined",
                        "duplicate string id '%s' in culture '%s'", s->id, cu->name);
        }
    }
}

static void mark_used(Manifest *m, const char *id)
{
    if (!id)
        return;
    for (size_t c = 0; c < m->cultures.n; c++) {
        String *s = map_get(&m->cultures.v[c]->by_id, id);
        if (s)
            s->referenced = true;
    }
}

/* A string nothing references is dead text (often a misspelt id).  Only a
 * warning: mc accepts it.  Left out when mcgen skipped a section
 * (<counters>, <perftrack>) whose references it did not read. */
/* marks on the strings themselves (String.referenced), not a map: a
 * large manifest has hundreds of thousands of strings */
static void mark_referenced(Manifest *m, MsgRef *r, Loc at, void *arg)
{
    (void)at, (void)arg;
    for (size_t c = 0; c < m->cultures.n; c++) {
        String *s = ref_string(r, c);
        if (s)
            s->referenced = true;
    }
}

static void rule_string_used(Manifest *m)
{
    if (m->skipped_counter_sections)
        return;
    manifest_each_msgref(m, mark_referenced, NULL);
    /* the ids winmeta gives its own texts (level.Error, opcode.Stop...):
     * manifest editors write them into the string table for the win:
     * items a manifest uses */
    const Winmeta *wm = &m->wm;
    for (size_t i = 0; i < wm->channels.n; i++)
        mark_used(m, wm->channels.v[i]->builtin_msgid);
    for (size_t i = 0; i < wm->levels.n; i++)
        mark_used(m, wm->levels.v[i]->n.builtin_msgid);
    for (size_t i = 0; i < wm->tasks.n; i++)
        mark_used(m, wm->tasks.v[i]->n.builtin_msgid);
    for (size_t i = 0; i < wm->opcodes.n; i++)
        mark_used(m, wm->opcodes.v[i]->n.builtin_msgid);
    for (size_t i = 0; i < wm->keywords.n; i++)
        mark_used(m, wm->keywords.v[i]->n.builtin_msgid);
    for (size_t c = 0; c < m->cultures.n; c++) {
        Culture *cu = m->cultures.v[c];
        for (size_t k = 0; k < cu->strings.n; k++) {
            String *s = cu->strings.v[k];
            const String *first = ids_unique(cu) ? s : map_get(&cu->by_id, s->id);
            if (!(first ? first : s)->referenced)
                diag_c(D_STRING_UNUSED, s->loc,
                       "string '%s' (culture '%s') is defined but never referenced", s->id,
                       cu->name);
        }
    }
}

/* ---- templates -------------------------------------------------------- */

/* TemplateItemType: tid "uniquely identifies the template" among the
 * provider's templates (events name it in template=). */
static void rule_template_unique(Provider *pv)
{
    for (size_t i = 0; i < pv->layouts.n; i++) {
        Layout *l = pv->layouts.v[i];
        Layout *first = map_get(&pv->layout_by_tid, l->tid);
        if (l->tid[0] && first && first != l)
            diag_ex(D_TEMPLATE_DUPLICATE, l->loc, first->loc, "first defined",
                    "duplicate template id '%s' in provider '%s'", l->tid, pv->name);
    }
}

/* A field's name is how count=, length= and the <UserData> fragment name
 * it, and how consumers name the property: unique among its siblings (the
 * top level of a template, or the members of one struct). */
/* v[0..n): the fields of `parent` (NULL: the template's own) */
static void rule_field_names(Layout *l, const Field *parent, Field **v, size_t n)
{
    /* a map for many fields (a template may have 65,536), pairs for the
     * usual few, where building the map cost more than the comparisons */
    enum { PAIRS_UP_TO = 16 };
    Map seen = {0};
    for (size_t i = 0; i < n; i++) {
        if (!v[i]->name[0])
            continue;
        const Field *first = NULL;
        if (n > PAIRS_UP_TO)
            first = map_put(&seen, v[i]->name, v[i], true);
        else
            for (size_t j = 0; j < i && !first; j++)
                if (v[j]->name[0] == v[i]->name[0] && strcmp(v[j]->name, v[i]->name) == 0)
                    first = v[j];
        if (first && first != v[i])
            diag_ex(D_FIELD_DUPLICATE, v[i]->loc, first->loc, "first defined",
                    "duplicate field name '%s' %s%s%s of template '%s'", v[i]->name,
                    parent ? "in struct '" : "at the top level", parent ? parent->name : "",
                    parent ? "'" : "", l->tid);
        if (v[i]->is_struct)
            rule_field_names(l, v[i], v[i]->members.v, v[i]->members.n);
    }
    map_free(&seen);
}

static bool integer_in_type(const InType *t)
{
    static const char *const ints[] = {"UInt8", "UInt16", "UInt32", "UInt64", "Int8",
                                       "Int16", "Int32",  "Int64",  "HexInt32", "HexInt64"};
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
        if (in_type_is(t, ints[i]))
            return true;
    return false;
}

/* Whether f is one of the fields v[0..n) (its index says where). */
static bool is_one_of(const Field *f, Field **v, size_t n)
{
    return f->index < n && v[f->index] == f;
}

/* DataDefinitionType count/length: "the name of another data item that
 * contains the count" (or length).  A consumer reads the payload in
 * order, so that item must come before the field: earlier at the same
 * level, or earlier at the top level; and it holds a number, so it is a
 * <data> of an integer inType. */
/* f is one of v[0..n), fields within the top-level field `top` (NULL:
 * the template's own fields); the field a quantity names is one of v or
 * a top-level field (resolve_quantity). */
static void check_quantity(Layout *l, Field **v, size_t n, const Field *top, const Field *f,
                           const Quantity *q, const char *what)
{
    if (q->kind != QTY_FIELD || !q->ref)
        return;
    const Field *ref = q->ref;
    const char *kind = f->is_struct ? "struct" : "data";
    bool before = is_one_of(ref, v, n) ? ref->index < f->index
                  : is_one_of(ref, l->fields.v, l->fields.n) ? ref->index < top->index
                                                               : false;
    if (ref == f)
        diag_c(D_QTY_ORDER, q->loc, "%s='%s' of <%s> '%s' (template '%s') names the field itself",
               what, q->text, kind, f->name, l->tid);
    else if (!before)
        diag_ex(D_QTY_ORDER, q->loc, ref->loc, "field defined",
                "%s='%s' of <%s> '%s' (template '%s') names a field that comes after it; the "
                "field holding the %s must come first",
                what, q->text, kind, f->name, l->tid, what);
    if (ref == f)
        return;
    if (ref->is_struct)
        diag_ex(D_QTY_TYPE, q->loc, ref->loc, "struct defined",
                "%s='%s' of <%s> '%s' (template '%s') names a struct; it must name an integer "
                "<data>",
                what, q->text, kind, f->name, l->tid);
    else if (field_in_type(ref) && !integer_in_type(field_in_type(ref)))
        diag_ex(D_QTY_TYPE, q->loc, ref->loc, "field defined",
                "%s='%s' of <%s> '%s' (template '%s') names a field of inType '%s'; it must "
                "name an integer field (win:UInt8, win:UInt16, win:UInt32, ...)",
                what, q->text, kind, f->name, l->tid, field_in_type(ref)->display);
}

/* LengthType: "the length of a variable length data item" - strings (in
 * characters), binary data (in bytes); mc also accepts it on win:SID.  A
 * type whose size is fixed has no length to give. */
static void check_length_type(Layout *l, const Field *f)
{
    if (f->is_struct || f->qty->length.kind == QTY_NONE || !field_in_type(f))
        return;
    if (field_in_type(f)->size || field_in_type(f)->pointer)
        diag_c(D_LENGTH_FIXED_TYPE, f->qty->length.loc,
               "length= on <data> '%s' (template '%s'): inType '%s' has a fixed size; length= "
               "is for strings and binary data",
               f->name, l->tid, field_in_type(f)->display);
}

/* DataDefinitionType remarks: "For variable length input types, such as
 * binary blobs, you must use the length attribute"; the documented
 * example <data inType="win:Binary"/> is "illegal because no length is
 * specified". */
static void check_binary_length(Provider *pv, Layout *l, const Field *f)
{
    if (f->is_struct || !in_type_is(field_in_type(f), "Binary") ||
        f->qty->length.kind != QTY_NONE || decompiled(pv))
        return;
    diag_c(D_BINARY_LENGTH, f->loc,
           "<data> '%s' (template '%s') is win:Binary without length=: give its size in bytes "
           "or the name of the field that holds it",
           f->name, l->tid);
}

/* InputType: each inType lists the outTypes it can be rendered as
 * (schema/winmeta.xml, InType.allowed). */
static void check_out_type(Layout *l, const Field *f)
{
    if (f->is_struct || !field_in_type(f) || !field_out_type(f))
        return;
    const InType *t = field_in_type(f);
    for (size_t i = 0; i < t->allowed.n; i++)
        if (t->allowed.v[i] == field_out_type(f))
            return;
    Buf b = {0};
    for (size_t i = 0; i < t->allowed.n; i++)
        buf_printf(&b, "%s%s", i ? ", " : "", t->allowed.v[i]->display);
    diag_c(D_OUTTYPE_MISMATCH, loc_in(f->loc, f->out_pos),
           "outType '%s' on <data> '%s' (template '%s') is not allowed with inType '%s' "
           "(allowed: %s)",
           field_out_type(f)->display, f->name, l->tid, t->display, b.len ? b.s : "none");
    buf_free(&b);
}

/* DataDefinitionType map: "The data type of the data item must be" win:UInt8,
 * win:UInt16 or win:UInt32; mc also accepts win:HexInt32 (a golden
 * manifest has one). */
static void check_map_type(Layout *l, const Field *f)
{
    if (f->is_struct || !f->map || !field_in_type(f))
        return;
    const InType *t = field_in_type(f);
    if (in_type_is(t, "UInt8") || in_type_is(t, "UInt16") || in_type_is(t, "UInt32") ||
        in_type_is(t, "HexInt32"))
        return;
    diag_c(D_MAP_INTYPE, loc_in(f->loc, f->map_pos),
           "map='%s' on <data> '%s' (template '%s') of inType '%s': maps apply to win:UInt8, "
           "win:UInt16, win:UInt32 and win:HexInt32 only",
           f->map_name, f->name, l->tid, t->display);
}

/* UserData (TemplateItemType): the XML fragment takes the template's
 * fields through "%N" element text, N from 1 to the number of top-level
 * fields; an N past them is substituted by nothing (emit_wevt.c drops it). */
static void rule_userdata_inserts(const Layout *l, const XmlNode *n)
{
    if (!n)
        return;
    const char *t = n->text;
    if (t && t[0] == '%' && is_digit(t[1])) {
        unsigned long idx = strtoul(t + 1, NULL, 10);
        if (idx < 1 || idx > l->fields.n)
            diag_c(D_USERDATA_INSERT, n->loc,
                   "<%s> of the <UserData> of template '%s' takes %%%lu, but the template has "
                   "%zu field%s",
                   n->name.local, l->tid, idx, l->fields.n, l->fields.n == 1 ? "" : "s");
    }
    for (size_t i = 0; i < n->children.n; i++)
        rule_userdata_inserts(l, n->children.v[i]);
}

/* v[0..n): fields of the top-level field `top` (NULL: the template's own) */
static void check_fields(Manifest *m, Provider *pv, Layout *l, const Field *top, Field **v,
                         size_t n)
{
    for (size_t i = 0; i < n; i++) {
        Field *f = v[i];
        check_quantity(l, v, n, top, f, &f->qty->count, "count");
        check_quantity(l, v, n, top, f, &f->qty->length, "length");
        check_length_type(l, f);
        check_binary_length(pv, l, f);
        check_out_type(l, f);
        check_map_type(l, f);
        if (f->is_struct)
            check_fields(m, pv, l, top ? top : f, f->members.v, f->members.n);
    }
}

/* ---- maps ------------------------------------------------------------- */

/* A valueMap or bitMap maps each value to one string: two items with the
 * same value make the rendering ambiguous. */
static void rule_map_values(Manifest *m, const ValueMap *vm)
{
    if (vm->kind == MAP_PATTERN)
        return;
    Map seen = {0};
    char key[16];
    for (size_t i = 0; i < vm->items.n; i++) {
        MapItem *it = vm->items.v[i];
        snprintf(key, sizeof key, "%u", it->value);
        MapItem *first = map_get(&seen, key);
        if (first) {
            if (vm->kind == MAP_BIT)
                diag_ex(D_MAP_DUPLICATE_VALUE, it->loc, first->loc, "first defined",
                        "duplicate value 0x%x in bitMap '%s'", it->value, vm->name);
            else
                diag_ex(D_MAP_DUPLICATE_VALUE, it->loc, first->loc, "first defined",
                        "duplicate value %u in valueMap '%s'", it->value, vm->name);
            continue;
        }
        map_put(&seen, arena_strdup(&m->arena, key), it, true); /* keys outlive the map */
    }
    map_free(&seen);
}

/* BitMapValueType value: "a hexadecimal number that has a single bit set".
 * A warning: an item for a combination of bits still renders.  0 (the
 * "no flags" item, in a golden manifest) is let through. */
static void rule_bitmap_bits(const ValueMap *vm)
{
    if (vm->kind != MAP_BIT)
        return;
    for (size_t i = 0; i < vm->items.n; i++) {
        uint32_t v = vm->items.v[i]->value;
        if ((v & (v - 1)) != 0)
            diag_c(D_BITMAP_VALUE, vm->items.v[i]->loc,
                   "bitMap '%s' item 0x%x has more than one bit set", vm->name, v);
    }
}

/* ---- entry point ------------------------------------------------------ */

void check_payload(Manifest *m)
{
    rule_string_unique(m);
    manifest_each_msgref(m, rule_string_in_every_culture, NULL);
    rule_string_used(m);
    rule_insert_syntax(m);
    rule_insert_range(m);
    for (size_t i = 0; i < m->providers.n; i++) {
        Provider *pv = m->providers.v[i];
        rule_template_unique(pv);
        for (size_t j = 0; j < pv->layouts.n; j++) {
            Layout *l = pv->layouts.v[j];
            rule_field_names(l, NULL, l->fields.v, l->fields.n);
            check_fields(m, pv, l, NULL, l->fields.v, l->fields.n);
            rule_userdata_inserts(l, l->user_data);
        }
        for (size_t j = 0; j < pv->maps.n; j++) {
            rule_map_values(m, pv->maps.v[j]);
            rule_bitmap_bits(pv->maps.v[j]);
        }
    }
}
