/*
 * read_mc.c - the .mc reader: a message-text file read into a raw model
 * (McFile in a Manifest with no providers), nothing resolved.  The syntax
 * is mc.exe's, as Microsoft documents it ("Message Text Files"):
 *
 *   file      = { comment | statement | message }
 *   comment   = ';' text-to-end-of-line          copied to the header
 *   statement = MessageIdTypedef = [type] | MessageIdTypedefMacro = [macro]
 *             | OutputBase = number
 *             | SeverityNames = '(' { name = number [ ':' symbol ] } ')'
 *             | FacilityNames = '(' { name = number [ ':' symbol ] } ')'
 *             | LanguageNames = '(' { name = number ':' file } ')'
 *   message   = MessageId = [ number | '+' number ]
 *               { Severity = name | Facility = name | SymbolicName = symbol }
 *               { Language = name NEWLINE { text-line } '.' NEWLINE }
 *
 * Keywords ignore case; a value ends at white space, line ends included,
 * so several keyword=value pairs may share a line and one pair may span
 * two.  After "Language=name" the following lines are the message's text,
 * verbatim, up to a line holding only '.'.
 *
 * Reading is two steps.  The bytes, in any chunks, are decoded to UTF-8
 * (mc_reader_feed: ANSI as Windows-1252 by default and with -a, UTF-16LE
 * with -u or a byte-order mark, UTF-8 after its byte-order mark; a
 * character split between two chunks is held until the next), so that
 * positions are counted in characters and caret lines show the text
 * whatever the file's encoding.  Then the decoded text is parsed line by
 * line (mc_reader_finish).  Every problem is reported with its position;
 * the reader goes on after one where it can, so one run shows them all.
 */
#include "mcgen.h"
#include "os.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- keywords ---- */

typedef enum {
    K_NONE,
    K_TYPEDEF,
    K_TYPEDEF_MACRO,
    K_OUTPUT_BASE,
    K_SEVERITY_NAMES,
    K_FACILITY_NAMES,
    K_LANGUAGE_NAMES,
    K_MESSAGE_ID,
    K_SEVERITY,
    K_FACILITY,
    K_SYMBOLIC_NAME,
    K_LANGUAGE,
} McKw;

static const struct {
    const char *name;
    McKw kw;
} keywords[] = {
    {"MessageIdTypedef", K_TYPEDEF},          {"MessageIdTypedefMacro", K_TYPEDEF_MACRO},
    {"OutputBase", K_OUTPUT_BASE},            {"SeverityNames", K_SEVERITY_NAMES},
    {"FacilityNames", K_FACILITY_NAMES},      {"LanguageNames", K_LANGUAGE_NAMES},
    {"MessageId", K_MESSAGE_ID},              {"Severity", K_SEVERITY},
    {"Facility", K_FACILITY},                 {"SymbolicName", K_SYMBOLIC_NAME},
    {"Language", K_LANGUAGE},
};

static McKw keyword(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++)
        if (strlen(keywords[i].name) == n && strncasecmp(keywords[i].name, s, n) == 0)
            return keywords[i].kw;
    return K_NONE;
}

static const char *keyword_name(McKw k)
{
    for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++)
        if (keywords[i].kw == k)
            return keywords[i].name;
    return "?";
}

/* ---- the reader ---- */

typedef enum {
    P_KEY,        /* a keyword, a ';' comment, or the end */
    P_EQ,         /* '=' after a keyword */
    P_VALUE,      /* the keyword's value */
    P_PLUS,       /* the number after MessageId=+ */
    P_OPEN,       /* '(' of a names list */
    P_ENTRY,      /* a name of the list, or ')' */
    P_ENTRY_EQ,   /* '=' after the name */
    P_ENTRY_NUM,  /* its number */
    P_ENTRY_NEXT, /* ':' and a symbol or file, the next name, or ')' */
    P_ENTRY_SYM,  /* the symbol or file after ':' */
} ParseState;

/* A decoding problem, reported once the text is registered for carets. */
typedef struct Problem {
    DiagCode code;
    Loc loc;
    char *msg;
} Problem;

struct McReader {
    Manifest *m;
    McFile *f;
    const char *name;
    uint32_t file; /* diag_file(name) */
    /* decoding */
    bool utf16_flag, decided;
    McEncoding enc;
    unsigned char head[3];
    size_t nhead;
    unsigned char pend[4]; /* bytes of a character not complete yet */
    size_t npend;
    uint32_t high; /* a UTF-16 high surrogate waiting for its low half */
    Buf src;       /* the decoded text, UTF-8, '\n' line ends */
    uint32_t line, col; /* position of the next character */
    bool ctrl_z;        /* an 8-bit file's end-of-file mark was read */
    VEC(Problem) problems;
    size_t more_problems; /* beyond the first 100, not kept */
    /* parsing */
    ParseState st;
    McKw kw;          /* the statement being read */
    Loc kw_loc;
    McKw list;        /* the names list being read */
    McName *entry;       /* its current entry (SeverityNames, FacilityNames) */
    McLanguage *lang;    /* its current entry (LanguageNames) */
    McMessage *msg;      /* the message being read */
    bool in_text;
    McText *text;        /* the text being read */
    Buf text_buf;
    const char *id_typedef, *id_macro;
    uint32_t output_base; /* 0 until OutputBase= */
};

typedef struct McReader McReader;

McReader *mc_reader_new(const char *name, bool utf16)
{
    McReader *r = xcalloc(1, sizeof *r);
    r->m = xcalloc(1, sizeof *r->m);
    r->name = arena_strdup(&r->m->arena, name);
    r->file = diag_file(name);
    r->m->file = r->name;
    r->f = arena_alloc(&r->m->arena, sizeof *r->f);
    r->m->mc = r->f;
    r->utf16_flag = utf16;
    r->line = 1;
    r->col = 1;
    return r;
}

static Loc here(const McReader *r, uint32_t line, uint32_t col)
{
    return (Loc){r->file, line, col};
}

static void problem(McReader *r, DiagCode code, Loc loc, const char *fmt, ...) PRINTF_LIKE(4, 5);
static void problem(McReader *r, DiagCode code, Loc loc, const char *fmt, ...)
{
    /* a file of undecodable bytes would report each: the first 100 say
     * enough, the count says the rest */
    if (r->problems.n >= 100) {
        r->more_problems++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    Buf b = {0};
    buf_vprintf(&b, fmt, ap);
    va_end(ap);
    Problem p = {code, loc, b.s};
    vec_push(&r->problems, p);
}

/* One decoded character into the text. */
static void put_char(McReader *r, uint32_t c)
{
    if (c == 0) {
        problem(r, D_MC_ENCODING, here(r, r->line, r->col),
                "a NUL character; a message-text file holds text (a UTF-16 file "
                "without a byte-order mark is read as UTF-16 with -u)");
        c = 0xFFFD;
    }
    if (c == '\n') {
        buf_addc(&r->src, '\n');
        r->line++;
        r->col = 1;
        return;
    }
    utf8_put(&r->src, c);
    r->col++;
}

/* Decides the encoding from the first bytes: a byte-order mark, else -u
 * or ANSI. */
static void decide(McReader *r)
{
    r->decided = true;
    const unsigned char *h = r->head;
    size_t skip = 0;
    if (r->nhead >= 3 && h[0] == 0xEF && h[1] == 0xBB && h[2] == 0xBF)
        r->enc = MCENC_UTF8, skip = 3;
    else if (r->nhead >= 2 && h[0] == 0xFF && h[1] == 0xFE)
        r->enc = MCENC_UTF16, skip = 2;
    else if (r->nhead >= 2 && h[0] == 0xFE && h[1] == 0xFF) {
        r->enc = MCENC_UTF16, skip = 2;
        problem(r, D_MC_ENCODING, here(r, 1, 1),
                "the file is UTF-16 big-endian; mc reads UTF-16 little-endian (with the "
                "byte-order mark FF FE) only");
    } else
        r->enc = r->utf16_flag ? MCENC_UTF16 : MCENC_ANSI;
    r->f->encoding = r->enc;
    size_t n = r->nhead;
    r->nhead = 0;
    mc_reader_feed(r, h + skip, n - skip);
}

static void feed_utf16(McReader *r, uint32_t u)
{
    if (r->high) {
        uint32_t hi = r->high;
        r->high = 0;
        if (u >= 0xDC00 && u <= 0xDFFF) {
            put_char(r, 0x10000 + ((hi - 0xD800) << 10) + (u - 0xDC00));
            return;
        }
        problem(r, D_MC_ENCODING, here(r, r->line, r->col),
                "a UTF-16 high surrogate (0x%04X) without its low half", (unsigned)hi);
        put_char(r, 0xFFFD);
    }
    if (u >= 0xD800 && u <= 0xDBFF) {
        r->high = u;
        return;
    }
    if (u >= 0xDC00 && u <= 0xDFFF) {
        problem(r, D_MC_ENCODING, here(r, r->line, r->col),
                "a UTF-16 low surrogate (0x%04X) without its high half", (unsigned)u);
        u = 0xFFFD;
    }
    put_char(r, u);
}

/* The length of the UTF-8 sequence a lead byte starts (0: not a lead). */
static size_t utf8_len(unsigned char c)
{
    return c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
                                                    : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
}

/* A complete UTF-8 sequence of n bytes: its code point, or -1 when it is
 * not the shortest form, a surrogate, or has a bad continuation byte
 * (utf8_get's U+FFFD, unless the bytes are U+FFFD's own). */
static long utf8_decode(const unsigned char *p, size_t n)
{
    uint32_t c;
    utf8_get((const char *)p, n, &c);
    if (c == 0xFFFD && !(n == 3 && memcmp(p, "\xEF\xBF\xBD", 3) == 0))
        return -1;
    return (long)c;
}

static void feed_utf8(McReader *r, unsigned char c)
{
    if (r->npend == 0) {
        size_t n = utf8_len(c);
        if (n == 0) {
            problem(r, D_MC_ENCODING, here(r, r->line, r->col),
                    "the byte 0x%02X is not UTF-8 (the file starts with UTF-8's byte-order "
                    "mark)",
                    c);
            put_char(r, 0xFFFD);
            return;
        }
        if (n == 1) {
            put_char(r, c);
            return;
        }
    } else if ((c & 0xC0) != 0x80) {
        /* the sequence ends early: report it, then read c afresh */
        problem(r, D_MC_ENCODING, here(r, r->line, r->col),
                "the byte 0x%02X starts a UTF-8 sequence that the byte 0x%02X does not "
                "continue (the file starts with UTF-8's byte-order mark, so all of it "
                "must be UTF-8)",
                r->pend[0], c);
        r->npend = 0;
        put_char(r, 0xFFFD);
        feed_utf8(r, c);
        return;
    }
    r->pend[r->npend++] = c;
    if (r->npend < utf8_len(r->pend[0]))
        return;
    long cp = utf8_decode(r->pend, r->npend);
    if (cp < 0)
        problem(r, D_MC_ENCODING, here(r, r->line, r->col),
                "an invalid UTF-8 sequence (an overlong form or a surrogate)");
    r->npend = 0;
    put_char(r, cp < 0 ? 0xFFFD : (uint32_t)cp);
}

void mc_reader_feed(McReader *r, const void *bytes, size_t n)
{
    const unsigned char *p = bytes;
    size_t i = 0;
    while (!r->decided && i < n) {
        r->head[r->nhead++] = p[i++];
        if (r->nhead == 3)
            decide(r);
    }
    for (; i < n && !r->ctrl_z; i++) {
        unsigned char c = p[i];
        /* mc reads 8-bit files as the C library's text mode does: a
         * Ctrl-Z ends them (appmem's MemCtrs.Mc ends with one) */
        if (c == 0x1A && r->enc != MCENC_UTF16) {
            r->ctrl_z = true;
            break;
        }
        switch (r->enc) {
        case MCENC_ANSI:
            put_char(r, cp1252_decode(c));
            break;
        case MCENC_UTF16:
            r->pend[r->npend++] = c;
            if (r->npend == 2) {
                r->npend = 0;
                feed_utf16(r, (uint32_t)r->pend[0] | (uint32_t)r->pend[1] << 8);
            }
            break;
        case MCENC_UTF8:
            feed_utf8(r, c);
            break;
        }
    }
}

/* ---- parsing ---- */

static void *alloc(McReader *r, size_t n) { return arena_alloc(&r->m->arena, n); }

static const char *dup(McReader *r, const char *s, size_t n)
{
    return arena_strndup(&r->m->arena, s, n);
}

/* A token of a line: a word (a run of characters up to white space or
 * one of "=():;+"), or one of those characters. */
typedef struct Token {
    const char *s;
    size_t n;
    uint32_t col;
} Token;

static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

static bool is_punct(char c) { return c && strchr("=():;+", c) != NULL; }

static bool is_word(const Token *t) { return t->n && !is_punct(t->s[0]); }

static bool is_ident(const char *s, size_t n)
{
    if (!n || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return false;
    }
    return true;
}

/* A C integer constant: decimal, 0x hex or 0 octal, no suffix; false when
 * it is not one or does not fit in 32 bits. */
static bool parse_number(const char *s, size_t n, uint32_t *out)
{
    uint64_t v = 0;
    unsigned base = 10;
    size_t i = 0;
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        base = 16, i = 2;
    else if (n > 1 && s[0] == '0')
        base = 8, i = 1;
    if (i >= n)
        return false;
    for (; i < n; i++) {
        char c = s[i];
        unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                            : 99;
        if (d >= base)
            return false;
        v = v * base + d;
        if (v > UINT32_MAX)
            return false;
    }
    *out = (uint32_t)v;
    return true;
}

static Loc tok_loc(const McReader *r, const Token *t) { return here(r, r->line, t->col); }

/* "'x'" or "the end of the line" for messages about a token. */
static const char *shown(McReader *r, const Token *t)
{
    if (!t->n)
        return "the end of the line";
    return arena_printf(&r->m->arena, "'%.*s'", (int)(t->n > 40 ? 40 : t->n), t->s);
}

typedef VEC(McName *) NameVec;

static McName *find_name(NameVec *v, const char *s, size_t n)
{
    for (size_t i = 0; i < v->n; i++)
        if (strlen(v->v[i]->name) == n && strncasecmp(v->v[i]->name, s, n) == 0)
            return v->v[i];
    return NULL;
}

static McName *add_name(McReader *r, NameVec *v, const char *name, uint32_t value,
                        const char *symbol, bool builtin, Loc loc)
{
    McName *e = alloc(r, sizeof *e);
    *e = (McName){name, value, symbol, builtin, r->f->next_order++, loc};
    vec_push(v, e);
    return e;
}

/* mc's built-in names: SeverityNames=(Success=0x0 Informational=0x1
 * Warning=0x2 Error=0x3); FacilityNames=(System Application), documented
 * as 0x0FF and 0xFFF, but every real id of a message with
 * Facility=Application, or none, has facility 0 (easydynamicdns,
 * spamhater), and System is taken as 0 too (no output shows it);
 * LanguageNames=(English=0x409:MSG00001). */
static void builtins(McReader *r)
{
    static const char *const sev[] = {"Success", "Informational", "Warning", "Error"};
    Loc none = {0};
    for (uint32_t i = 0; i < 4; i++)
        add_name(r, (NameVec *)&r->f->severities, sev[i], i, NULL, true, none);
    add_name(r, (NameVec *)&r->f->facilities, "System", 0, NULL, true, none);
    add_name(r, (NameVec *)&r->f->facilities, "Application", 0, NULL, true, none);
    McLanguage *l = alloc(r, sizeof *l);
    *l = (McLanguage){"English", 0x409, "MSG00001", true, r->f->next_order++, none};
    vec_push(&r->f->languages, l);
}

static void add_item(McReader *r, const char *comment, McMessage *msg, Loc loc)
{
    McItem it = {comment, msg, loc};
    vec_push(&r->f->items, it);
}

/* The message being read ends (at the next MessageId or the end of the
 * file). */
static void end_message(McReader *r)
{
    McMessage *msg = r->msg;
    r->msg = NULL;
    if (msg && !msg->texts.n)
        add_item(r, NULL, msg, msg->loc);
    if (msg && !msg->texts.n)
        diag_c(D_MC_NO_TEXT, msg->loc,
               "message%s%s has no text: a message needs at least one Language=NAME "
               "followed by its text and a line holding only '.'",
               msg->symbol ? " " : "", msg->symbol ? msg->symbol : "");
}

/* A names-list entry is complete. */
static void end_entry(McReader *r)
{
    if (r->list == K_LANGUAGE_NAMES && r->lang && !r->lang->file)
        diag_c(D_MC_SYNTAX, r->lang->loc,
               "language %s has no file name: LanguageNames entries are NAME=ID:FILE "
               "(English=0x409:MSG00409)",
               r->lang->name);
    r->entry = NULL;
    r->lang = NULL;
}

/* The name of a new list entry: replaces a built-in name, redefines a
 * declared one (with a warning), or adds one. */
static void list_name(McReader *r, const Token *t)
{
    const char *name = dup(r, t->s, t->n);
    Loc loc = tok_loc(r, t);
    if (!is_ident(t->s, t->n))
        diag_c(D_MC_SYNTAX, loc, "'%s' is not a name: names are letters, digits and '_', "
                                 "not starting with a digit",
               name);
    if (r->list == K_LANGUAGE_NAMES) {
        McLanguage *l = NULL;
        for (size_t i = 0; i < r->f->languages.n; i++)
            if (strcasecmp(r->f->languages.v[i]->name, name) == 0)
                l = r->f->languages.v[i];
        if (l && !l->builtin)
            diag_ex(D_MC_REDEFINED, loc, l->loc, "first defined",
                    "language %s is defined again", name);
        if (!l) {
            l = alloc(r, sizeof *l);
            l->order = r->f->next_order++;
            vec_push(&r->f->languages, l);
        }
        l->name = name;
        l->file = NULL;
        l->builtin = false;
        l->loc = loc;
        r->lang = l;
        return;
    }
    NameVec *v = (NameVec *)(r->list == K_SEVERITY_NAMES ? (void *)&r->f->severities
                                                          : (void *)&r->f->facilities);
    McName *e = find_name(v, t->s, t->n);
    if (e && !e->builtin)
        diag_ex(D_MC_REDEFINED, loc, e->loc, "first defined", "%s %s is defined again",
                r->list == K_SEVERITY_NAMES ? "severity" : "facility", name);
    if (!e)
        e = add_name(r, v, name, 0, NULL, false, loc);
    e->name = name;
    e->symbol = NULL;
    e->builtin = false;
    e->order = r->f->next_order++;
    e->loc = loc;
    r->entry = e;
}

static void list_number(McReader *r, const Token *t, uint32_t v)
{
    Loc loc = tok_loc(r, t);
    if (r->list == K_LANGUAGE_NAMES) {
        if (v > 0xFFFF)
            diag_c(D_MC_VALUE_RANGE, loc,
                   "language id 0x%X does not fit in 16 bits (a Windows LANGID)", (unsigned)v);
        if (r->lang)
            r->lang->langid = v & 0xFFFF;
        return;
    }
    bool sev = r->list == K_SEVERITY_NAMES;
    if (v > (sev ? 3u : 0xFFFu))
        diag_c(D_MC_VALUE_RANGE, loc,
               sev ? "severity 0x%X does not fit in the id's 2 severity bits (0 to 3)"
                   : "facility 0x%X does not fit in the id's 12 facility bits (0 to 0xFFF)",
               (unsigned)v);
    if (r->entry)
        r->entry->value = v & (sev ? 3u : 0xFFFu);
}

static void list_symbol(McReader *r, const Token *t)
{
    const char *s = dup(r, t->s, t->n);
    Loc loc = tok_loc(r, t);
    if (r->list == K_LANGUAGE_NAMES) {
        bool ok = t->n > 0;
        for (size_t i = 0; i < t->n; i++)
            ok &= (unsigned char)t->s[i] > ' ' && !strchr("\\/:*?\"<>|.", t->s[i]);
        /* and one the .rc can name in the ANSI code page */
        Buf ansi = {0};
        ok &= utf8_to_cp1252(&ansi, t->s, t->n) == SIZE_MAX;
        buf_free(&ansi);
        if (!ok)
            diag_c(D_MC_SYNTAX, loc,
                   "'%s' cannot name a message-table file: a file name without '.', "
                   "'/', '\\' or any of :*?\"<>|, in characters of Windows-1252 (the .rc "
                   "names it in the ANSI code page)",
                   s);
        if (r->lang)
            r->lang->file = s;
        return;
    }
    if (!is_ident(t->s, t->n))
        diag_c(D_MC_SYNTAX, loc, "'%s' is not a C identifier, which the header's #define needs",
               s);
    if (r->entry)
        r->entry->symbol = s;
}

/* The message a Severity, Facility, SymbolicName or Language belongs to;
 * NULL after a diagnostic. */
static McMessage *message_for(McReader *r, McKw k, Loc loc)
{
    if (!r->msg) {
        diag_c(D_MC_SYNTAX, loc,
               "%s= outside a message definition: a message starts with MessageId=",
               keyword_name(k));
        return NULL;
    }
    if (k != K_LANGUAGE && r->msg->texts.n) {
        diag_c(D_MC_SYNTAX, loc,
               "%s= after the message's text: it belongs before the first Language=",
               keyword_name(k));
        return NULL;
    }
    return r->msg;
}

/* A keyword's value: a word (or, for MessageId, a number), or none. */
static void value(McReader *r, const Token *t)
{
    Loc loc = tok_loc(r, t);
    const char *v = t->n ? dup(r, t->s, t->n) : NULL;
    McMessage *msg;
    switch (r->kw) {
    case K_TYPEDEF:
    case K_TYPEDEF_MACRO:
        if (v && !is_ident(t->s, t->n))
            diag_c(D_MC_SYNTAX, loc, "%s takes a C type name, not '%s'", keyword_name(r->kw), v);
        if (r->kw == K_TYPEDEF)
            r->id_typedef = v;
        else
            r->id_macro = v;
        /* it applies to the message being read until its text starts */
        if (r->msg && !r->msg->texts.n) {
            r->msg->id_typedef = r->id_typedef;
            r->msg->id_macro = r->id_macro;
        }
        break;
    case K_OUTPUT_BASE: {
        uint32_t b = 0;
        if (!v || !parse_number(t->s, t->n, &b) || (b != 10 && b != 16))
            diag_c(D_MC_VALUE_RANGE, loc, "OutputBase takes 10 or 16, not %s", shown(r, t));
        else
            r->output_base = b;
        if (r->msg && !r->msg->texts.n)
            r->msg->output_base = r->output_base;
        break;
    }
    case K_MESSAGE_ID:
        msg = r->msg;
        if (msg && v) {
            uint32_t n;
            if (!parse_number(t->s, t->n, &n))
                diag_c(D_MC_SYNTAX, loc, "MessageId takes a number (100, 0x64) or +N, not '%s'",
                       v);
            else
                msg->id_arg = n;
            msg->id_kind = r->st == P_PLUS ? MCID_RELATIVE : MCID_ABSOLUTE;
            msg->id_loc = loc;
        }
        break;
    case K_SEVERITY:
    case K_FACILITY:
    case K_SYMBOLIC_NAME:
        if (!v) {
            diag_c(D_MC_SYNTAX, loc, "%s= has no value", keyword_name(r->kw));
            break;
        }
        if (!(msg = message_for(r, r->kw, r->kw_loc)))
            break;
        if (!is_ident(t->s, t->n)) {
            diag_c(D_MC_SYNTAX, loc,
                   r->kw == K_SYMBOLIC_NAME
                       ? "'%s' is not a C identifier, which the header's #define needs"
                       : "'%s' is not a name: names are letters, digits and '_', not "
                         "starting with a digit",
                   v);
            break; /* not kept: check_mc would report it again as undefined */
        }
        const char **slot = r->kw == K_SEVERITY   ? &msg->severity_name
                            : r->kw == K_FACILITY ? &msg->facility_name
                                                  : &msg->symbol;
        Loc *at = r->kw == K_SEVERITY   ? &msg->severity_loc
                  : r->kw == K_FACILITY ? &msg->facility_loc
                                        : &msg->symbol_loc;
        if (*slot)
            diag_ex(D_MC_SYNTAX, loc, *at, "first given", "a second %s= in one message",
                    keyword_name(r->kw));
        *slot = v;
        *at = loc;
        break;
    case K_LANGUAGE:
        if (!v) {
            diag_c(D_MC_SYNTAX, loc, "Language= has no value");
            break;
        }
        if (!(msg = message_for(r, K_LANGUAGE, r->kw_loc)))
            break;
        McText tx = {v, NULL, NULL, 0, loc, here(r, r->line + 1, 1)};
        vec_push(&msg->texts, tx);
        r->text = &msg->texts.v[msg->texts.n - 1];
        r->in_text = true;
        buf_reset(&r->text_buf);
        break;
    default:
        unreachable_here();
    }
}

/* A keyword starts a statement. */
static void start_keyword(McReader *r, McKw k, Loc loc)
{
    r->kw = k;
    r->kw_loc = loc;
    r->st = P_EQ;
    if (k == K_MESSAGE_ID) {
        end_message(r);
        McMessage *msg = alloc(r, sizeof *msg);
        msg->id_kind = MCID_NEXT;
        msg->id_typedef = r->id_typedef;
        msg->id_macro = r->id_macro;
        msg->output_base = r->output_base;
        msg->loc = loc;
        msg->id_loc = loc;
        r->msg = msg;
        if (!r->f->nmessages++)
            r->f->first_message = r->f->items.n;
    }
}

/* One token in the current state; false: the rest of the line is not
 * read (after an error, or a Language= that starts the text). */
static bool token(McReader *r, const Token *t)
{
    Loc loc = tok_loc(r, t);
    switch (r->st) {
    case P_KEY: {
        McKw k = is_word(t) ? keyword(t->s, t->n) : K_NONE;
        if (k == K_NONE) {
            diag_c(D_MC_SYNTAX, loc,
                   "%s is not a keyword of a message-text file (they are MessageId, "
                   "Severity, Facility, SymbolicName, Language, MessageIdTypedef, "
                   "MessageIdTypedefMacro, SeverityNames, FacilityNames, LanguageNames, "
                   "OutputBase)",
                   shown(r, t));
            return false;
        }
        start_keyword(r, k, loc);
        return true;
    }
    case P_EQ:
        if (t->n != 1 || t->s[0] != '=') {
            diag_c(D_MC_SYNTAX, loc, "expected '=' after %s, found %s", keyword_name(r->kw),
                   shown(r, t));
            r->st = P_KEY;
            return false;
        }
        r->st = P_VALUE;
        if (r->kw == K_SEVERITY_NAMES || r->kw == K_FACILITY_NAMES || r->kw == K_LANGUAGE_NAMES)
            r->st = P_OPEN;
        return true;
    case P_VALUE:
        if (r->kw == K_MESSAGE_ID && t->n == 1 && t->s[0] == '+') {
            r->st = P_PLUS;
            return true;
        }
        /* a value left empty: MessageId= (the next id), MessageIdTypedef=
         * (no cast); what follows is the next keyword */
        if ((r->kw == K_MESSAGE_ID && !(is_word(t) && t->s[0] >= '0' && t->s[0] <= '9')) ||
            ((r->kw == K_TYPEDEF || r->kw == K_TYPEDEF_MACRO) && is_word(t) &&
             keyword(t->s, t->n) != K_NONE)) {
            Token none = {t->s, 0, t->col};
            value(r, &none);
            r->st = P_KEY;
            return token(r, t);
        }
        /* fall through */
    case P_PLUS:
        if (!is_word(t) || (r->st == P_PLUS && !(t->s[0] >= '0' && t->s[0] <= '9'))) {
            diag_c(D_MC_SYNTAX, loc, "expected %s, found %s",
                   r->st == P_PLUS ? "a number after MessageId=+" : "a value", shown(r, t));
            r->st = P_KEY;
            return false;
        }
        value(r, t);
        r->st = P_KEY;
        return !r->in_text;
    case P_OPEN:
        if (t->n != 1 || t->s[0] != '(') {
            diag_c(D_MC_SYNTAX, loc, "expected '(' after %s=, found %s", keyword_name(r->kw),
                   shown(r, t));
            r->st = P_KEY;
            return false;
        }
        r->list = r->kw;
        r->st = P_ENTRY;
        return true;
    case P_ENTRY:
    case P_ENTRY_NEXT:
        if (t->n == 1 && t->s[0] == ')') {
            end_entry(r);
            r->st = P_KEY;
            return true;
        }
        if (r->st == P_ENTRY_NEXT && t->n == 1 && t->s[0] == ':') {
            r->st = P_ENTRY_SYM;
            return true;
        }
        if (!is_word(t)) {
            diag_c(D_MC_SYNTAX, loc, "expected a name or ')' in %s, found %s",
                   keyword_name(r->list), shown(r, t));
            return false;
        }
        end_entry(r);
        list_name(r, t);
        r->st = P_ENTRY_EQ;
        return true;
    case P_ENTRY_EQ:
        if (t->n != 1 || t->s[0] != '=') {
            diag_c(D_MC_SYNTAX, loc, "expected '=' after the name in %s, found %s",
                   keyword_name(r->list), shown(r, t));
            r->st = P_ENTRY;
            return false;
        }
        r->st = P_ENTRY_NUM;
        return true;
    case P_ENTRY_NUM: {
        uint32_t v;
        if (!is_word(t) || !parse_number(t->s, t->n, &v)) {
            diag_c(D_MC_SYNTAX, loc, "expected a number in %s, found %s", keyword_name(r->list),
                   shown(r, t));
            r->st = P_ENTRY;
            return false;
        }
        list_number(r, t, v);
        r->st = P_ENTRY_NEXT;
        return true;
    }
    case P_ENTRY_SYM:
        if (!is_word(t)) {
            diag_c(D_MC_SYNTAX, loc, "expected %s after ':' in %s, found %s",
                   r->list == K_LANGUAGE_NAMES ? "a file name" : "a symbol",
                   keyword_name(r->list), shown(r, t));
            r->st = P_ENTRY;
            return false;
        }
        list_symbol(r, t);
        r->st = P_ENTRY;
        return true;
    }
    return false;
}

/* A line outside a message's text: its tokens, or a comment. */
static void statement_line(McReader *r, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        while (i < n && is_blank(s[i]))
            i++;
        if (i == n)
            break;
        uint32_t col = (uint32_t)utf8_chars(s, i) + 1;
        if (s[i] == ';' && (r->st == P_KEY || r->st == P_ENTRY || r->st == P_ENTRY_NEXT)) {
            Loc loc = here(r, r->line, col);
            add_item(r, dup(r, s + i + 1, n - i - 1), NULL, loc);
            return;
        }
        size_t j = i + 1;
        if (!is_punct(s[i]))
            while (j < n && !is_blank(s[j]) && !is_punct(s[j]))
                j++;
        Token t = {s + i, j - i, col};
        if (!token(r, &t)) {
            if (r->in_text) {
                /* Language=NAME starts the text on the next line */
                size_t k = j;
                while (k < n && is_blank(s[k]))
                    k++;
                if (k < n)
                    diag_c(D_MC_SYNTAX, here(r, r->line, (uint32_t)utf8_chars(s, k) + 1),
                           "text after Language=%s on the same line; the message's text "
                           "starts on the next line",
                           r->text->lang_name);
            }
            return;
        }
        i = j;
    }
    /* the line ends: a MessageId or typedef without value is complete */
    if (r->st == P_VALUE && (r->kw == K_MESSAGE_ID || r->kw == K_TYPEDEF ||
                             r->kw == K_TYPEDEF_MACRO)) {
        Token none = {s + n, 0, (uint32_t)utf8_chars(s, n) + 1};
        value(r, &none);
        r->st = P_KEY;
    }
}

/* The text being read ends: at its '.', or (after MCG1303) at the end of
 * the file. */
static void end_text(McReader *r)
{
    /* mc writes a message into the header when its first text ends:
     * comments after it follow it, even before another language's
     * text (perfecthash's PerfectHashErrors.h) */
    if (r->msg->texts.n == 1)
        add_item(r, NULL, r->msg, r->msg->loc);
    r->text->text = dup(r, r->text_buf.s ? r->text_buf.s : "", r->text_buf.len);
    r->in_text = false;
    r->text = NULL;
}

/* A line of a message's text, or the '.' that ends it. */
static void text_line(McReader *r, const char *s, size_t n)
{
    if (n == 1 && s[0] == '.') {
        end_text(r);
        return;
    }
    if (n > 1 && s[0] == '.') {
        size_t k = 1;
        while (k < n && is_blank(s[k]))
            k++;
        if (k == n)
            diag_c(D_MC_DOT_BLANKS, here(r, r->line, 2),
                   "a line of '.' and blanks is text, not the end of the message; the end "
                   "is a line holding only '.'");
    }
    if (r->text->nlines++)
        buf_add(&r->text_buf, "\r\n", 2);
    buf_add(&r->text_buf, s, n);
}

Manifest *mc_reader_finish(McReader *r)
{
    /* what the last chunk left incomplete */
    if (!r->decided)
        decide(r);
    if (r->npend || r->high)
        problem(r, D_MC_ENCODING, here(r, r->line, r->col),
                "the file ends inside a character (an incomplete %s sequence)",
                r->enc == MCENC_UTF16 ? "UTF-16" : "UTF-8");
    /* the decoded text becomes the diagnostics' (their caret lines), and
     * is parsed there: a large file is not held twice */
    if (!r->src.s)
        buf_add(&r->src, "", 0);
    const char *src = r->src.s;
    size_t src_len = r->src.len;
    diag_adopt_source(r->name, r->src.s, r->src.len);
    r->src = (Buf){0};
    int before = diag_error_count();
    for (size_t i = 0; i < r->problems.n; i++) {
        diag_c(r->problems.v[i].code, r->problems.v[i].loc, "%s", r->problems.v[i].msg);
        free(r->problems.v[i].msg);
    }
    if (r->more_problems)
        diag_plain(DIAG_NOTE, "%s: %zu more characters cannot be decoded; the first 100 are shown",
                   r->name, r->more_problems);
    vec_free(&r->problems);
    builtins(r);
    r->f->first_message = SIZE_MAX;
    const char *p = src, *end = p + src_len;
    r->line = 1;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *stop = nl ? nl : end;
        size_t n = (size_t)(stop - p);
        if (n && stop[-1] == '\r')
            n--; /* CR LF: one line end */
        if (r->in_text)
            text_line(r, p, n);
        else
            statement_line(r, p, n);
        r->line++;
        p = nl ? nl + 1 : end;
    }
    /* the end of the file */
    if (r->in_text)
        diag_c(D_MC_UNTERMINATED, r->text->loc,
               "the file ends inside the %s text of message%s%s: a line holding only '.' "
               "ends a message's text",
               r->text->lang_name, r->msg && r->msg->symbol ? " " : "",
               r->msg && r->msg->symbol ? r->msg->symbol : "");
    else if (r->st != P_KEY && r->st != P_VALUE)
        diag_c(D_MC_SYNTAX, r->kw_loc, "the file ends inside %s=", keyword_name(r->kw));
    else if (r->st == P_VALUE) {
        Token none = {"", 0, 1};
        if (r->kw == K_MESSAGE_ID || r->kw == K_TYPEDEF || r->kw == K_TYPEDEF_MACRO)
            value(r, &none);
        else
            diag_c(D_MC_SYNTAX, r->kw_loc, "the file ends before the value of %s=",
                   keyword_name(r->kw));
    }
    if (r->in_text)
        end_text(r); /* as far as it goes, for check_mc's rules */
    end_message(r);
    if (r->f->first_message == SIZE_MAX)
        r->f->first_message = r->f->items.n;
    Manifest *m = r->m;
    /* after a syntax error the model is still whole (every text has its
     * lines; only a language's file may be missing), so check_mc runs its
     * rules on it too and one run shows every problem; it is never
     * compiled */
    r->f->damaged = diag_error_count() != before;
    buf_free(&r->text_buf);
    free(r);
    return m;
}

Manifest *read_mc_mem(const char *name, const void *bytes, size_t len, size_t chunk, bool utf16)
{
    McReader *r = mc_reader_new(name, utf16);
    const unsigned char *p = bytes;
    if (!chunk)
        chunk = len ? len : 1;
    for (size_t i = 0; i < len; i += chunk)
        mc_reader_feed(r, p + i, len - i < chunk ? len - i : chunk);
    return mc_reader_finish(r);
}

/* A reader dropped before its text is parsed (the file could not be
 * read to its end). */
static void abandon(McReader *r)
{
    for (size_t i = 0; i < r->problems.n; i++)
        free(r->problems.v[i].msg);
    vec_free(&r->problems);
    buf_free(&r->src);
    buf_free(&r->text_buf);
    manifest_free(r->m);
    free(r);
}

/* The file in 64 KiB chunks: its bytes are never all in memory beside
 * their decoded text. */
Manifest *read_mc_file(const char *path, bool utf16)
{
    FILE *f = os_fopen(path, "rb");
    if (!f) {
        diag_io("cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    McReader *r = mc_reader_new(path, utf16);
    int64_t size = os_file_size(f);
    if (size > 0 && (uint64_t)size < SIZE_MAX / 2)
        buf_grow(&r->src, (size_t)size + 1); /* the decoded text's usual size */
    enum { CHUNK = 64 * 1024 };
    unsigned char *chunk = xmalloc(CHUNK);
    size_t n;
    while ((n = fread(chunk, 1, CHUNK, f)) > 0)
        mc_reader_feed(r, chunk, n);
    free(chunk);
    bool failed = ferror(f);
    int e = errno;
    fclose(f);
    if (failed) {
        diag_io("cannot read '%s': %s", path, strerror(e));
        abandon(r);
        return NULL;
    }
    return mc_reader_finish(r);
}

void mc_free(McFile *f)
{
    for (size_t i = 0; i < f->items.n; i++)
        if (f->items.v[i].msg)
            vec_free(&f->items.v[i].msg->texts);
    vec_free(&f->items);
    vec_free(&f->severities);
    vec_free(&f->facilities);
    vec_free(&f->languages);
}
