/*
 * check_mc.c - the check stage of a message-text (.mc) file: every name a
 * message uses resolved, its 32-bit id computed as mc does, and every rule
 * that mc enforces or that a demanding user wants enforced, each problem
 * at its place in the file.
 *
 * Ids follow Microsoft's "Message Text Files": a message's Severity and
 * Facility are the ones it names, else the previous message's (at first
 * Success and Application); its 16-bit number is MessageId=N, or the
 * previous number of the same facility plus one (MessageId=) or plus N
 * (MessageId=+N), a facility's first previous number being 0; the id is
 *
 *   severity << 30 | customer << 29 (mc -c) | facility << 16 | number.
 *
 * Texts: inserts are %1 to %99, optionally followed by a printf format
 * between '!'s (%1!-20s!); every other '%' sequence is FormatMessage's to
 * read at run time (%n, %t, %0, ...) and is kept as written; the text is
 * checked as FormatMessage reads it by the reader manifest strings share
 * (insert_next, check_payload.c).
 */
#include "mcgen.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const McName *find(const void *vec, const char *name)
{
    const VEC(McName *) *v = vec;
    for (size_t i = 0; i < v->n; i++)
        if (strcasecmp(v->v[i]->name, name) == 0)
            return v->v[i];
    return NULL;
}

static const McLanguage *find_language(const McFile *f, const char *name)
{
    for (size_t i = 0; i < f->languages.n; i++)
        if (strcasecmp(f->languages.v[i]->name, name) == 0)
            return f->languages.v[i];
    return NULL;
}

/* The names list a diagnostic offers: "Success, Informational, ...". */
static const char *names_of(Arena *a, const void *vec)
{
    const VEC(McName *) *v = vec;
    Buf b = {0};
    for (size_t i = 0; i < v->n; i++)
        buf_printf(&b, "%s%s", i ? ", " : "", v->v[i]->name);
    const char *s = arena_strdup(a, b.s ? b.s : "");
    buf_free(&b);
    return s;
}

/* The severity or facility a message names (NULL: the one carried
 * over, `current`); an undefined name is reported and carries `current`. */
static const McName *resolve(const void *vec, const char *what, const char *list,
                             const char *name, Loc loc, const McName *current, Arena *tmp)
{
    if (!name)
        return current;
    const McName *n = find(vec, name);
    if (!n)
        diag_c(D_MC_UNDEFINED_NAME, loc, "%s %s is not defined (%s has %s)", what, name, list,
               names_of(tmp, vec));
    return n ? n : current;
}

/* Two languages may not share a language id (the .rc would hold the
 * same resource twice) or a file name (one table would overwrite the
 * other); only languages some message uses have a table. */
static void check_languages(const McFile *f)
{
    bool *used = xcalloc(f->languages.n + 1, sizeof *used);
    for (size_t i = 0; i < f->languages.n; i++)
        used[i] = mc_language_used(f, f->languages.v[i]);
    for (size_t i = 0; i < f->languages.n; i++) {
        const McLanguage *a = f->languages.v[i];
        if (!used[i])
            continue;
        for (size_t j = 0; j < i; j++) {
            const McLanguage *b = f->languages.v[j];
            if (!used[j])
                continue;
            if (a->langid == b->langid)
                diag_ex(D_MC_LANGUAGE_CLASH, a->loc, b->loc, "the other defined",
                        "languages %s and %s have the same language id 0x%X; the .rc "
                        "would hold two message tables for it",
                        b->name, a->name, (unsigned)a->langid);
            else if (a->file && b->file && strcasecmp(a->file, b->file) == 0)
                diag_ex(D_MC_LANGUAGE_CLASH, a->loc, b->loc, "the other defined",
                        "languages %s and %s name the same message-table file %s.bin", b->name,
                        a->name, a->file);
        }
    }
    free(used);
}

/* The position of byte `at` of a text whose first line starts at
 * `start` (lines joined with "\r\n"). */
static Loc text_loc(const McText *t, size_t at)
{
    Loc loc = t->text_loc;
    size_t line_start = 0;
    for (size_t i = 0; i < at; i++)
        if (t->text[i] == '\n')
            loc.line++, line_start = i + 1;
    loc.col = (uint32_t)utf8_chars(t->text + line_start, at - line_start) + 1;
    return loc;
}

/* FormatMessage's reading of the text (insert_next, shared with manifest
 * strings): inserts %1 to %99, each optionally with a !printf format!, a
 * '%' at the end of a line, text after %0.  An insert followed by a '!'
 * with no closing '!' on its line is a warning (nssm's "in %2!": mc takes
 * it, FormatMessage fails on it); a format that is no printf format, or
 * one FormatMessage does not support, an error. */
static void check_inserts(const McText *t)
{
    const char *s = t->text;
    size_t pos = 0;
    Insert in;
    while (insert_next(s, &pos, &in)) {
        size_t i = (size_t)(in.at - s);
        if (in.kind == INS_LONE) {
            diag_c(D_MC_LONE_PERCENT, text_loc(t, i),
                   "'%%' at the end of %s: FormatMessage fails on a '%%' that ends the text, "
                   "and writes a bare CR for one before a line break (write %%%% for a percent "
                   "sign)",
                   in.at[1] ? "a line" : "the text");
            continue;
        }
        if (in.kind == INS_STOP) {
            if (in.at[2])
                diag_c(D_MC_TEXT_AFTER_STOP, text_loc(t, i),
                       "text after %%0, which FormatMessage never writes: it stops at %%0");
            break; /* FormatMessage reads no further */
        }
        if (in.third_digit) {
            diag_c(D_MC_INSERT_NUMBER, text_loc(t, i),
                   "insert %%%.*s: FormatMessage's inserts are %%1 to %%99", (int)(in.len - 1),
                   in.at + 1);
            continue;
        }
        int digits = in.n > 9 ? 2 : 1;
        size_t bang = i + 1 + (size_t)digits;
        bool other_line = in.format == FMT_BAD && memchr(in.fmt, '\r', in.fmt_len);
        if (in.format == FMT_UNCLOSED || other_line)
            diag_c(D_MC_INSERT_BANG, text_loc(t, bang),
                   "insert %%%.*s is followed by '!' and no closing '!' on its line: "
                   "FormatMessage reads a format there and fails; %%%.*s%%! writes the '!'",
                   digits, in.at + 1, digits, in.at + 1);
        else if (in.format == FMT_BAD)
            diag_c(D_MC_INSERT_FORMAT, text_loc(t, bang),
                   "insert %%%.*s's format !%.*s! is not a printf format (such as !d!, "
                   "!-20s!, !08lX!)",
                   digits, in.at + 1, (int)in.fmt_len, in.fmt);
        else if (in.format == FMT_UNSUPPORTED)
            diag_c(D_MC_INSERT_UNSUPPORTED, text_loc(t, bang),
                   "insert %%%.*s's format !%.*s!: FormatMessage does not support the "
                   "conversion '%c' (%s)",
                   digits, in.at + 1, (int)in.fmt_len, in.fmt, in.fmt[in.fmt_len - 1],
                   insert_unsupported_why(&in));
    }
}

/* What a message table can hold: with -A every character in
 * Windows-1252, and an entry (4 bytes, the text, "\r\n" unless -n, a NUL,
 * padding to 4) of at most 65,532 bytes (its length is 16 bits). */
static void check_table_text(const McText *t, const Options *o)
{
    bool ansi = o && o->tables.ansi, crlf = !(o && o->tables.no_crlf);
    size_t n = strlen(t->text), bytes;
    if (ansi) {
        Buf b = {0};
        size_t bad = utf8_to_cp1252(&b, t->text, n);
        if (bad != SIZE_MAX) {
            uint32_t c;
            utf8_get(t->text + bad, n - bad, &c);
            diag_c(D_ANSI_TEXT, text_loc(t, bad),
                   "with -A, the character U+%04X cannot be written in Windows-1252, the "
                   "ANSI code page of mcgen's message tables",
                   (unsigned)c);
        }
        bytes = b.len + (crlf ? 2 : 0) + 1;
        buf_free(&b);
    } else {
        bytes = 2 * (utf8_utf16_units(t->text) + (crlf ? 2 : 0) + 1);
    }
    size_t entry = (4 + bytes + 3) / 4 * 4;
    if (entry > 0xFFFC)
        diag_c(D_MSG_ENTRY_LENGTH, t->text_loc,
               "the %s text makes a message-table entry of %zu bytes; an entry's 16-bit length "
               "holds at most 65,532",
               t->lang_name, entry);
}

/* The header is written in the ANSI code page unless -cp says otherwise,
 * and shows every comment and each message's first text: a character
 * Windows-1252 lacks becomes '?' there, as in mc's header (chromium's
 * message_compiler.py drops such '?' lines from mc's headers). */
static void check_header_text(const McFile *f, const char *text, Loc at, const McText *t,
                              const Options *o)
{
    /* a file that could not be decoded has U+FFFD for what it could not
     * (MCG1301 said so); with -A, a text's character is already an error
     * (MCG5018) */
    if ((o && o->encoding != ENC_ANSI) || f->damaged || (t && o && o->tables.ansi))
        return;
    Buf b = {0};
    size_t n = strlen(text), bad = utf8_to_cp1252(&b, text, n);
    buf_free(&b);
    if (bad == SIZE_MAX)
        return;
    uint32_t c;
    utf8_get(text + bad, n - bad, &c);
    if (t)
        at = text_loc(t, bad);
    else
        at.col += (uint32_t)utf8_chars(text, bad) + 1; /* after the ';' */
    diag_c(D_MC_HEADER_CHARACTER, at,
           "the header shows U+%04X as '?': it is written in the ANSI code page "
           "(Windows-1252), which lacks it; -cp utf-8 or -cp utf-16 keeps it",
           (unsigned)c);
}

bool check_mc(Manifest *m, const Options *o)
{
    McFile *f = m->mc;
    int before = diag_error_count();
    bool customer = o && o->customer_bit;
    uint32_t max_len = o ? o->max_message_length : 0;
    Map by_id = {0}, by_symbol = {0};
    PtrMap last_number = {0}; /* facility -> its previous number + 1 */
    const McName *severity = find(&f->severities, "Success");
    const McName *facility = find(&f->facilities, "Application");
    Arena tmp = {0};
    for (size_t i = 0; i < f->items.n; i++) {
        McMessage *msg = f->items.v[i].msg;
        if (!msg) {
            check_header_text(f, f->items.v[i].comment, f->items.v[i].loc, NULL, o);
            continue;
        }
        if (msg->texts.n)
            check_header_text(f, msg->texts.v[0].text, msg->loc, &msg->texts.v[0], o);
        severity = resolve(&f->severities, "severity", "SeverityNames", msg->severity_name,
                           msg->severity_loc, severity, &tmp);
        facility = resolve(&f->facilities, "facility", "FacilityNames", msg->facility_name,
                           msg->facility_loc, facility, &tmp);
        msg->severity = severity;
        msg->facility = facility;
        /* the number, counted per facility */
        uintptr_t prev = (uintptr_t)ptrmap_get(&last_number, facility); /* number + 1 */
        uint64_t number = msg->id_kind == MCID_ABSOLUTE ? msg->id_arg
                          : msg->id_kind == MCID_RELATIVE
                              ? (prev ? prev - 1 : 0) + (uint64_t)msg->id_arg
                              : (prev ? prev - 1 : 0) + 1;
        if (number > 0xFFFF) {
            /* a counted number: say what it was counted from */
            const char *from =
                msg->id_kind == MCID_ABSOLUTE
                    ? ""
                    : arena_printf(&tmp, "; MessageId=%s counts on from 0x%X, the previous "
                                         "number of facility %s",
                                   msg->id_kind == MCID_NEXT
                                       ? ""
                                       : arena_printf(&tmp, "+%u", (unsigned)msg->id_arg),
                                   (unsigned)(prev ? prev - 1 : 0),
                                   facility ? facility->name : "?");
            diag_c(D_MC_ID_RANGE, msg->id_loc,
                   "message number 0x%llX does not fit in the id's 16 bits (0 to 0xFFFF)%s",
                   (unsigned long long)number, from);
            number &= 0xFFFF;
        }
        ptrmap_put(&last_number, facility, (void *)(uintptr_t)(number + 1));
        msg->code = (uint32_t)number;
        msg->id = (severity ? severity->value : 0) << 30 | (customer ? 1u << 29 : 0) |
                  (facility ? facility->value : 0) << 16 | msg->code;
        /* the same id or symbol twice */
        const char *key = arena_printf(&tmp, "%08X", (unsigned)msg->id);
        McMessage *first = map_put(&by_id, key, msg, true);
        if (first)
            diag_ex(D_MC_DUPLICATE_ID, msg->id_loc, first->id_loc, "first used",
                    "message id 0x%08X is used twice", (unsigned)msg->id);
        if (msg->symbol) {
            first = map_put(&by_symbol, msg->symbol, msg, true);
            if (first)
                diag_ex(D_MC_DUPLICATE_SYMBOL, msg->symbol_loc, first->symbol_loc,
                        "first defined", "symbolic name %s is used twice", msg->symbol);
        }
        /* texts */
        for (size_t k = 0; k < msg->texts.n; k++) {
            McText *t = &msg->texts.v[k];
            t->lang = find_language(f, t->lang_name);
            if (!t->lang) {
                Buf names = {0};
                for (size_t l = 0; l < f->languages.n; l++)
                    buf_printf(&names, "%s%s", l ? ", " : "", f->languages.v[l]->name);
                diag_c(D_MC_UNDEFINED_NAME, t->loc,
                       "language %s is not defined (LanguageNames has %s)", t->lang_name,
                       names.s);
                buf_free(&names);
            } else {
                for (size_t l = 0; l < k; l++)
                    if (msg->texts.v[l].lang == t->lang)
                        diag_ex(D_MC_DUPLICATE_TEXT, t->loc, msg->texts.v[l].loc,
                                "the first", "a second %s text in one message",
                                t->lang->name);
            }
            check_inserts(t);
            check_table_text(t, o);
            size_t chars = utf8_chars(t->text, strlen(t->text));
            if (max_len && chars > max_len)
                diag_c(D_MC_MAX_LENGTH, t->text_loc,
                       "the %s text of message%s%s has %zu characters, more than -m's %u",
                       t->lang_name, msg->symbol ? " " : "", msg->symbol ? msg->symbol : "",
                       chars, (unsigned)max_len);
        }
    }
    /* every message in every language a table is written for */
    for (size_t l = 0; l < f->languages.n; l++) {
        if (!mc_language_used(f, f->languages.v[l]))
            continue;
        for (size_t i = 0; i < f->items.n; i++) {
            const McMessage *msg = f->items.v[i].msg;
            if (!msg || !msg->texts.n)
                continue;
            /* a text in an undefined language (MCG5101) may be the one */
            bool has = false;
            for (size_t k = 0; k < msg->texts.n; k++)
                has |= msg->texts.v[k].lang == f->languages.v[l] || !msg->texts.v[k].lang;
            if (!has)
                diag_c(D_MC_MISSING_TEXT, msg->loc,
                       "message%s%s has no %s text; FormatMessage finds no text for it in "
                       "that language's table",
                       msg->symbol ? " " : "", msg->symbol ? msg->symbol : "",
                       f->languages.v[l]->name);
        }
    }
    check_languages(f);
    map_free(&by_id);
    map_free(&by_symbol);
    ptrmap_free(&last_number);
    arena_free(&tmp);
    return !f->damaged && diag_error_count() == before;
}

bool mc_language_used(const McFile *f, const McLanguage *lang)
{
    for (size_t i = 0; i < f->items.n; i++) {
        const McMessage *msg = f->items.v[i].msg;
        for (size_t k = 0; msg && k < msg->texts.n; k++)
            if (msg->texts.v[k].lang == lang)
                return true;
    }
    return false;
}

size_t mc_culture_of(const Manifest *man, const McLanguage *lang)
{
    for (size_t i = 0; i < man->cultures.n; i++) {
        uint16_t id;
        if (culture_langid(man->cultures.v[i]->name, &id) && id == lang->langid)
            return i;
    }
    return SIZE_MAX;
}

typedef struct IdClash {
    Map ids; /* "%08X" of each .mc id -> what has it */
    Arena a;
    const Manifest *mc;
} IdClash;

static void clash(Manifest *m, MsgRef *r, Loc at, void *arg)
{
    (void)m;
    IdClash *c = arg;
    if (!r->has_msgid)
        return;
    const char *what = map_get(&c->ids, arena_printf(&c->a, "%08X", (unsigned)r->msgid));
    if (what && at.line)
        diag_c(D_MC_MANIFEST_CULTURE, at,
               "this message's id 0x%08X is also %s's in %s; one message table cannot hold "
               "both",
               (unsigned)r->msgid, what, c->mc->file);
}

bool check_mc_with_manifest(const Manifest *man, const Manifest *mc)
{
    const McFile *f = mc->mc;
    int before = diag_error_count();
    /* every culture goes into the table of the .mc language of its id */
    for (size_t i = 0; i < man->cultures.n; i++) {
        const Culture *c = man->cultures.v[i];
        uint16_t id = 0;
        bool found = false;
        if (culture_langid(c->name, &id))
            for (size_t l = 0; l < f->languages.n; l++)
                found |= f->languages.v[l]->langid == id && mc_language_used(f, f->languages.v[l]);
        if (!found)
            diag_c(D_MC_MANIFEST_CULTURE, c->loc,
                   "culture %s (language id 0x%X) has no language in %s; compiled together, "
                   "the manifest's strings go into the .mc's message table of their language",
                   c->name, (unsigned)id, mc->file);
    }
    /* and no id is in both */
    IdClash c = {.mc = mc};
    for (size_t i = 0; i < f->items.n; i++) {
        const McMessage *msg = f->items.v[i].msg;
        if (msg)
            map_put(&c.ids, arena_printf(&c.a, "%08X", (unsigned)msg->id),
                    (void *)(msg->symbol ? msg->symbol : "a message"), true);
    }
    manifest_each_msgref((Manifest *)man, clash, &c);
    map_free(&c.ids);
    arena_free(&c.a);
    return diag_error_count() == before;
}
