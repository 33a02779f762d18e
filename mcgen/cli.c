/*
 * cli.c - the command line: mc.exe's switches (../shared/docs/mc-cli.md)
 * and mcgen's own options, read into one Options; `--help` and the names
 * of the files mc would write for them.
 *
 * Every switch and option is one row of `options` below: its spellings,
 * its value, one line of help and what it sets.  The parser, `--help`,
 * and through them docs/mcgen.1 and README.md (tests/cli_test.py checks
 * both against --help) all come from that table, so an option cannot
 * exist without being documented, nor be documented without existing.
 *
 * mc's switches are case-sensitive, start with '-' or '/', and take their
 * argument as the next word (-h DIR).  Single-letter flags may be run
 * together as in mc's synopsis (-cv = -c -v) when the word is no switch of
 * its own (-co, -cp, -um ...).  Long options take "--name=value" or
 * "--name value".  The warning controls take their name in the same word
 * (-Werror=NAME, -Wno-NAME), as gcc's do.  "--" ends the options.
 */
#include "mcgen.h"
#include "os.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Where a row is listed in --help; REFUSED rows are listed together on
 * one line. */
typedef enum {
    OPT_MC,      /* mc.exe's switches */
    OPT_REFUSED, /* mc.exe's switches mcgen refuses */
    OPT_MCGEN,   /* mcgen's own */
} OptGroup;

typedef struct OptDef OptDef;
/* Applies a row: -1 to go on, else the exit status after a diagnostic.
 * `word` is the switch as mc would name it in a message ("-h"). */
typedef int OptSet(Options *o, const OptDef *d, const char *word, const char *val);

struct OptDef {
    const char *mc;  /* the one-dash spelling without '-' ("um"); a trailing
                      * '=' or '-' takes the value in the word ("Wno-") */
    const char *lng; /* the GNU-style spelling without "--"; "" is "--" */
    const char *arg; /* the value's name in --help; NULL: takes none */
    OptGroup group;
    OptSet *set;
    size_t field;     /* the Options member that generic setters write */
    const char *help; /* one line (MC_FILE and REFUSED rows: NULL) */
};

static int usage_error(const char *fmt, const char *a)
{
    Buf b = {0};
    buf_printf(&b, fmt, a);
    diag_plain(DIAG_ERROR, "%s (see mcgen --help)", b.s);
    buf_free(&b);
    return 2;
}

/* ---- setters ---- */

#define FIELD(o, d, type) ((type *)((char *)(o) + (d)->field))

static int set_true(Options *o, const OptDef *d, const char *word, const char *val)
{
    (void)word, (void)val;
    *FIELD(o, d, bool) = true;
    return -1;
}

static int set_false(Options *o, const OptDef *d, const char *word, const char *val)
{
    (void)word, (void)val;
    *FIELD(o, d, bool) = false;
    return -1;
}

static int set_string(Options *o, const OptDef *d, const char *word, const char *val)
{
    (void)word;
    *FIELD(o, d, const char *) = val;
    return -1;
}

/* --json, --wevt, --rc, --message-tables: an output named, so only the
 * outputs named are written. */
static int set_output(Options *o, const OptDef *d, const char *word, const char *val)
{
    o->selected = true;
    return set_string(o, d, word, val);
}

static int set_mode(Options *o, const OptDef *d, const char *word, const char *val)
{
    (void)val;
    HeaderMode mode = strcmp(d->mc, "um") == 0 ? HEADER_UM : HEADER_KM;
    if ((o->mode != HEADER_DESCRIPTORS && o->mode != mode) || o->cs_namespace)
        return usage_error("%s cannot be combined with another of -um, -km, -cs, -css and "
                           "-generateProjections",
                           word);
    o->mode = mode;
    return -1;
}

/* A C# namespace: ASCII identifiers joined by single dots (a keyword is
 * the user's business: the compiler names it). */
static bool cs_identifier_path(const char *s)
{
    bool start = true;
    for (const char *c = s;; c++) {
        bool letter = (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || *c == '_';
        if (letter || (!start && *c >= '0' && *c <= '9')) {
            start = false;
        } else if ((*c == '.' || !*c) && !start) {
            if (!*c)
                return true;
            start = true;
        } else {
            return false;
        }
    }
}

static int namespace_error(const char *word, const char *val)
{
    Buf b = {0};
    /* the switch without its "=value" */
    buf_printf(&b, "%.*s takes a C# namespace (identifiers joined by dots), not '%%s'",
               (int)strcspn(word, "="), word);
    int r = usage_error(b.s, val);
    buf_free(&b);
    return r;
}

/* -cs NS, -css NS: mc's C# class (a mode of its own: the header has no
 * logging code then, as without -um). */
static int set_cs(Options *o, const OptDef *d, const char *word, const char *val)
{
    bool st = strcmp(d->mc, "css") == 0;
    if (o->mode != HEADER_DESCRIPTORS || (o->cs_namespace && o->cs_static != st))
        return usage_error("%s cannot be combined with another of -um, -km, -cs, -css and "
                           "-generateProjections",
                           word);
    if (!cs_identifier_path(val))
        return namespace_error(word, val);
    o->cs_namespace = val;
    o->cs_static = st;
    return -1;
}

/* --dotnet-namespace=NS */
static int set_cs_namespace(Options *o, const OptDef *d, const char *word, const char *val)
{
    (void)d;
    if (!cs_identifier_path(val))
        return namespace_error(word, val);
    o->dotnet_namespace = val;
    return -1;
}

static int set_header_ext(Options *o, const OptDef *d, const char *word, const char *val)
{
    (void)d, (void)word;
    size_t n = strlen(val);
    if (n < 1 || n > 3 || strchr(val, '.') || strchr(val, '/') || strchr(val, '\\'))
        return usage_error("the header extension of -e is 1 to 3 characters without a dot, "
                           "not '%s'",
                           val);
    o->header_ext = val;
    return -1;
}

static int set_base(Options *o, const OptDef *d, const char *word, const char *val)
{
    (void)d, (void)word;
    if (!*val || strchr(val, '/') || strchr(val, '\\'))
        return usage_error("-z takes a base name without a directory, not '%s'", val);
    o->base = val;
    return -1;
}

/* The place of `val` among the words of `list` ("crlf|lf"), or -1. */
static int pick(const char *val, const char *list)
{
    size_t n = strlen(val);
    for (int k = 0; *list; k++) {
        size_t w = strcspn(list, "|");
        if (w == n && strncmp(list, val, n) == 0)
            return k;
        list += w + (list[w] == '|');
    }
    return -1;
}

static int set_codepage(Options *o, const OptDef *d, const char *word, const char *val)
{
    (void)d, (void)word;
    static const TextEncoding enc[] = {ENC_ANSI, ENC_UTF8, ENC_UTF16};
    int k = pick(val, "ansi|utf-8|utf-16");
    if (k < 0)
        return usage_error("-cp takes ansi, utf-8 or utf-16, not '%s'", val);
    o->encoding = enc[k];
    o->encoding_given = true;
    return -1;
}

/* -p and -P: the start of a C identifier. */
static int set_identifier(Options *o, const OptDef *d, const char *word, const char *val)
{
    (void)word;
    for (const char *c = val; *c; c++)
        if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || *c == '_' ||
              (c > val && *c >= '0' && *c <= '9')))
            return usage_error(strcmp(d->mc, "p") == 0
                                   ? "-p takes the start of a C identifier, not '%s'"
                                   : "-P takes the start of a C identifier, not '%s'",
                               val);
    return set_string(o, d, word, val);
}

/* -U: Unicode tables, also over --mc-compat=1998's ANSI default. */
static int set_unicode(Options *o, const OptDef *d, const char *word, const char *val)
{
    (void)d, (void)word, (void)val;
    o->tables.ansi = false;
    o->unicode_tables = true;
    return -1;
}

/* -m N: the longest message text without a warning. */
static int set_max_length(Options *o, const OptDef *d, const char *word, const char *val)
{
    (void)d, (void)word;
    uint64_t n;
    if (!parse_uint(val, UINT32_MAX, &n) || n == 0)
        return usage_error("-m takes a length in characters (1 or more), not '%s'", val);
    o->max_message_length = (uint32_t)n;
    return -1;
}

static int refuse_utf8_tables(Options *o, const OptDef *d, const char *word, const char *val)
{
    (void)o, (void)d, (void)val;
    /* mc documents -U8 in its usage text only; the entry flags it writes
     * are not known from any output */
    return usage_error("%s (UTF-8 message tables) is not supported: no mc output shows the "
                       "entries' flags; use -U (UTF-16, readable by every Windows)",
                       word);
}

static int refuse(Options *o, const OptDef *d, const char *word, const char *val)
{
    (void)o, (void)d, (void)val;
    return usage_error("mc's %s is not supported by mcgen (MOF, projections and baselines "
                       "are not generated)",
                       word);
}

static int set_explain(Options *o, const OptDef *d, const char *word, const char *val)
{
    (void)d, (void)word;
    uint64_t at;
    if (!parse_uint(val, UINT32_MAX, &at))
        return usage_error("--explain takes an offset into the file (16 or 0x10), not '%s'",
                           val);
    o->explain = val;
    return -1;
}

static int set_dump_format(Options *o, const OptDef *d, const char *word, const char *val)
{
    (void)word;
    int k = pick(val, d->arg); /* text|json */
    if (k < 0)
        return usage_error("--dump-format takes text or json, not '%s'", val);
    o->dump_json = k == 1;
    return -1;
}

/* --mc-compat: the mc whose outputs to write.  The versions name the
 * binary formats of manifests (and the .mc outputs of their time); the
 * years name older mc generations seen only in .mc outputs. */
static int set_compat(Options *o, const OptDef *d, const char *word, const char *val)
{
    (void)d, (void)word;
    static const WevtFormat format[] = {WEVT_V5, WEVT_V5, WEVT_V3, WEVT_V3_MC81,
                                        WEVT_V5, WEVT_V3, WEVT_V3, WEVT_V3};
    static const McEra era[] = {MC_CURRENT, MC_2020, MC_2017, MC_2017,
                                MC_2020,    MC_2017, MC_2005, MC_1998};
    int k = pick(val, "current|10.0.18362|10.0.15063|8.1|2020|2017|2005|1998");
    if (k < 0)
        return usage_error("unknown --mc-compat version '%s' (current, 10.0.18362, 10.0.15063, "
                           "8.1; for .mc files also 2020, 2017, 2005, 1998)",
                           val);
    o->format = format[k];
    o->era = era[k];
    o->era_year = k >= 6; /* 2005, 1998: mc generations before manifests */
    return -1;
}

static int set_line_endings(Options *o, const OptDef *d, const char *word, const char *val)
{
    (void)word;
    int k = pick(val, d->arg); /* crlf|lf */
    if (k < 0)
        return usage_error("--line-endings takes crlf or lf, not '%s'", val);
    o->lf = k == 1;
    o->line_endings_given = true;
    return -1;
}

/* --backends=LIST: etw, lttng, user_events, separated by commas
 * (docs/linux.md). */
static int set_backends(Options *o, const OptDef *d, const char *word, const char *val)
{
    (void)d, (void)word;
    static const char *const names[] = {"etw", "lttng", "user_events"};
    unsigned mask = 0;
    for (const char *p = val;;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        unsigned bit = 0;
        for (unsigned k = 0; k < 3; k++)
            if (strlen(names[k]) == n && strncmp(names[k], p, n) == 0)
                bit = 1u << k;
        if (!bit)
            return usage_error("--backends takes etw, lttng or user_events, separated by "
                               "commas, not '%s'", val);
        mask |= bit;
        if (!comma)
            break;
        p = comma + 1;
    }
    o->backends = mask;
    return -1;
}

/* --templates: a directory that is not there would silently leave every
 * built-in template in place. */
static int set_templates(Options *o, const OptDef *d, const char *word, const char *val)
{
    (void)d, (void)word;
    OsStat st;
    if (!os_stat(val, &st)) {
        diag_io("cannot open the template directory '%s': %s", val, strerror(errno));
        return 2;
    }
    if (st.kind != OS_DIR)
        return usage_error("--templates takes a directory, and '%s' is none", val);
    o->templates_dir = val;
    return -1;
}

/* --template-max-*: a limit of TmplLimits (a uint64_t at d->field), 1 up. */
static int set_limit(Options *o, const OptDef *d, const char *word, const char *val)
{
    (void)word;
    uint64_t v;
    if (!parse_uint(val, UINT64_MAX, &v) || v == 0) {
        Buf b = {0};
        buf_printf(&b, "--%s takes a number from 1 up, not '%s'", d->lng, val);
        int r = usage_error("%s", b.s);
        buf_free(&b);
        return r;
    }
    *(uint64_t *)((char *)o + d->field) = v;
    return -1;
}

/* Where --render's TEMPLATE:OUTPUT splits: at the first colon, except
 * that a drive at the start ("C:\\" or "C:/") is part of the template's
 * path, on every host (so one command line means the same on both). */
static const char *render_colon(const char *val)
{
    bool drive = ((val[0] >= 'A' && val[0] <= 'Z') || (val[0] >= 'a' && val[0] <= 'z')) &&
                 val[1] == ':' && (val[2] == '\\' || val[2] == '/');
    return strchr(drive ? val + 2 : val, ':');
}

static int set_render(Options *o, const OptDef *d, const char *word, const char *val)
{
    (void)d, (void)word;
    const char *colon = render_colon(val);
    if (!colon || colon == val || !colon[1])
        return usage_error("--render takes TEMPLATE:OUTPUT, not '%s'", val);
    RenderJob job = {arena_strndup(&o->arena, val, (size_t)(colon - val)), colon + 1};
    vec_push(&o->renders, job);
    o->selected = true;
    return -1;
}

static int set_diag_format(Options *o, const OptDef *d, const char *word, const char *val)
{
    (void)o, (void)word;
    static const DiagFormat format[] = {DIAG_FORMAT_GCC, DIAG_FORMAT_JSON, DIAG_FORMAT_SARIF};
    int k = pick(val, d->arg); /* gcc|json|sarif */
    if (k < 0)
        return usage_error("--diagnostics-format takes gcc, json or sarif, not '%s'", val);
    diag_set_format(format[k]);
    return -1;
}

static int set_diag_limit(Options *o, const OptDef *d, const char *word, const char *val)
{
    (void)o, (void)d, (void)word;
    uint64_t n;
    if (!parse_uint(val, UINT64_MAX, &n))
        return usage_error("--diagnostics-limit takes a number of diagnostics (0: no limit), "
                           "not '%s'",
                           val);
    diag_set_limit(n);
    return -1;
}

static int set_werror(Options *o, const OptDef *d, const char *word, const char *val)
{
    (void)o, (void)d, (void)word, (void)val;
    diag_warnings_as_errors(true);
    return -1;
}

/* -Werror=NAME, -Wno-NAME: NAME as docs/diagnostics.md lists it, or its
 * code (MCG5015). */
static int set_warning(Options *o, const OptDef *d, const char *word, const char *val)
{
    (void)o;
    bool as_error = strcmp(d->mc, "Werror=") == 0;
    if (diag_set_warning(val, as_error, as_error))
        return -1;
    const DiagCodeInfo *c = diag_code_by_name(val);
    Buf b = {0};
    if (c)
        buf_printf(&b, "'%s': MCG%04d %s is an error, not a warning", word, (int)c->code,
                   c->name);
    else
        buf_printf(&b, "'%s' names no warning (docs/diagnostics.md lists them)", word);
    int r = usage_error("%s", b.s);
    buf_free(&b);
    return r;
}

/* ---- the table ---- */

#define F(member) offsetof(Options, member)

static const OptDef options[] = {
    /* mc.exe's switches, in the order of mc's own usage text */
    {"um", "user-mode", NULL, OPT_MC, set_mode, 0, "user-mode logging code in the header"},
    {"km", "kernel-mode", NULL, OPT_MC, set_mode, 0,
     "kernel-mode logging code: the write macros take an activity id first"},
    {"h", "header-dir", "DIR", OPT_MC, set_string, F(header_dir),
     "directory of the header (created if missing)"},
    {"r", "rc-dir", "DIR", OPT_MC, set_string, F(rc_dir),
     "directory of the .rc, the message tables and TEMP.BIN"},
    {"z", "base-name", "BASE", OPT_MC, set_base, 0,
     "base name of the outputs; tables become BASE_MSG00001.bin"},
    {"b", "input-base-names", NULL, OPT_MC, set_true, F(input_base),
     "tables named <manifest base>_MSG00001.bin"},
    {"e", "header-ext", "EXT", OPT_MC, set_header_ext, 0,
     "header extension, 1-3 characters (default h)"},
    {"A", "ansi-message-tables", NULL, OPT_MC, set_true, F(tables.ansi),
     "message texts in Windows-1252 with flags 0 (mc's deprecated ANSI tables)"},
    {"U", "unicode-message-tables", NULL, OPT_MC, set_unicode, 0,
     "message texts in UTF-16 (the default)"},
    {"n", "no-crlf", NULL, OPT_MC, set_true, F(tables.no_crlf),
     "no \"\\r\\n\" after each message text"},
    {"cp", "codepage", "ENC", OPT_MC, set_codepage, 0,
     "text outputs in ansi (default), utf-8 or utf-16"},
    {"p", "prefix", "PREFIX", OPT_MC, set_identifier, F(prefix),
     "write macros named PREFIX<Event> instead of EventWrite<Event>"},
    {"P", "strip-prefix", "PREFIX", OPT_MC, set_identifier, F(strip_prefix),
     "event macros without PREFIX (any case) at the start of the event's symbol"},
    {"co", "callout", NULL, OPT_MC, set_true, F(callout),
     "events also go to MCGEN_CALLOUT when it is defined"},
    {"v", "verbose", NULL, OPT_MC, set_true, F(verbose), "notes on what is ignored"},
    {"W", "winmeta", "FILE", OPT_MC, set_string, F(ignored_schema),
     "accepted and ignored: mcgen's winmeta.xml is built in"},
    {"w", "xsd", "FILE", OPT_MC, set_string, F(ignored_schema),
     "accepted and ignored: mcgen's eventman.xsd is built in"},
    {"cs", NULL, "NS", OPT_MC, set_cs, 0,
     "write <base>.cs, mc's C# class on .NET Framework's EventProvider, in namespace NS"},
    {"css", NULL, "NS", OPT_MC, set_cs, 0, "the same as a static class"},
    {"?", "help", NULL, OPT_MC, set_true, F(help), "this help"},
    /* .mc message-text files only */
    {"a", "ansi-input", NULL, OPT_MC, set_false, F(utf16_input),
     ".mc input in Windows-1252 unless a byte-order mark says otherwise (default)"},
    {"u", "unicode-input", NULL, OPT_MC, set_true, F(utf16_input),
     ".mc input in UTF-16LE without a byte-order mark"},
    {"c", "customer-bit", NULL, OPT_MC, set_true, F(customer_bit),
     "the customer bit (0x20000000) in every .mc message id"},
    {"d", "decimal", NULL, OPT_MC, set_true, F(decimal),
     "facility and severity values, and message ids until OutputBase=, in decimal"},
    {"o", "ole2", NULL, OPT_MC, set_true, F(ole2),
     "the header's layout comment for HRESULTs (OLE2) instead of status codes"},
    {"m", "max-length", "N", OPT_MC, set_max_length, 0,
     "a warning for every message text longer than N characters"},
    {"x", "dbg-dir", "DIR", OPT_MC, set_string, F(dbg_dir),
     "write <base>.dbg, the message ids' symbolic names as a C array, in DIR"},
    /* refused */
    {"U8", NULL, NULL, OPT_REFUSED, refuse_utf8_tables, 0, NULL},
    {"s", NULL, "FILE", OPT_REFUSED, refuse, 0, NULL},
    {"t", NULL, "FILE", OPT_REFUSED, refuse, 0, NULL},
    {"mof", NULL, NULL, OPT_REFUSED, refuse, 0, NULL},
    {"generateProjections", NULL, NULL, OPT_REFUSED, refuse, 0, NULL},
    {"generateTemplateProjections", NULL, NULL, OPT_REFUSED, refuse, 0, NULL},
    {"generateTemplateStubs", NULL, "FILE", OPT_REFUSED, refuse, 0, NULL},
    /* mcgen's own */
    {NULL, "json", "FILE", OPT_MCGEN, set_output, F(json),
     "write the resolved model as JSON (docs/json-model.md)"},
    {NULL, "wevt", "FILE", OPT_MCGEN, set_output, F(wevt),
     "write the WEVT_TEMPLATE resource (TEMP.BIN) as mc.exe does"},
    {NULL, "rc", "FILE", OPT_MCGEN, set_output, F(rc),
     "write the resource script for --message-tables and --wevt"},
    {NULL, "message-tables", "DIR", OPT_MCGEN, set_output, F(tables_dir),
     "write the message table of each culture (MSG00001.bin, ...)"},
    {NULL, "render", "TEMPLATE:OUTPUT", OPT_MCGEN, set_render, 0,
     "render a template of yours against the model (docs/templates.md); repeatable"},
    {NULL, "dotnet-namespace", "NS", OPT_MCGEN, set_cs_namespace, 0,
     "the namespace of --dotnet's classes (default: none)"},
    {NULL, "mc-outputs", NULL, OPT_MCGEN, set_true, F(mc_outputs),
     "with outputs named, write mc's outputs too"},
    {NULL, "templates", "DIR", OPT_MCGEN, set_templates, 0,
     "use DIR's header.h.j2, logging_*.h.j2 ... over the built-in ones"},
    {NULL, "template-max-output", "BYTES", OPT_MCGEN, set_limit,
     F(template_limits.max_output),
     "a render of your templates (--render, --templates) writes at most BYTES "
     "(default 536870912, 512 MiB)"},
    {NULL, "template-max-string", "BYTES", OPT_MCGEN, set_limit,
     F(template_limits.max_string),
     "a string your templates make is at most BYTES long (default 16777216, 16 MiB)"},
    {NULL, "template-max-iterations", "N", OPT_MCGEN, set_limit,
     F(template_limits.max_iterations),
     "a render of your templates runs at most N loop iterations, macro calls and "
     "includes (default 5000000)"},
    {NULL, "mc-compat", "VERSION", OPT_MCGEN, set_compat, 0,
     "outputs of that mc.exe: current (default), 10.0.18362, 10.0.15063, 8.1; "
     "for .mc files also 2020, 2017, 2005, 1998"},
    {NULL, "line-endings", "crlf|lf", OPT_MCGEN, set_line_endings, 0,
     "line ends of the text outputs (crlf, as mc)"},
    {NULL, "backends", "LIST", OPT_MCGEN, set_backends, 0,
     "what -um logging code writes to: etw (mc's header), lttng, user_events "
     "(docs/linux.md)"},
    {NULL, "print-outputs", NULL, OPT_MCGEN, set_true, F(print_outputs),
     "list the files the run would write, one per line; write nothing"},
    {NULL, "depfile", "FILE", OPT_MCGEN, set_string, F(depfile),
     "also write the Makefile rule \"outputs: inputs\" (make, ninja)"},
    {NULL, "validate", NULL, OPT_MCGEN, set_true, F(validate),
     "check the manifests named (several allowed) and write nothing"},
    {"Werror", NULL, NULL, OPT_MCGEN, set_werror, 0, "every warning is an error"},
    {"Werror=", NULL, "NAME", OPT_MCGEN, set_warning, 0,
     "that warning is an error (NAME as in docs/diagnostics.md, or its code: MCG5015)"},
    {"Wno-", NULL, "NAME", OPT_MCGEN, set_warning, 0, "silence that warning"},
    {NULL, "diagnostics-format", "gcc|json|sarif", OPT_MCGEN, set_diag_format, 0,
     "gcc (default): each diagnostic as text on stderr; json, sarif: all of the run's "
     "diagnostics in one document on stdout at the end (docs/diagnostics.md)"},
    {NULL, "diagnostics-output", "FILE", OPT_MCGEN, set_string, F(diag_output),
     "write that document to FILE instead"},
    {NULL, "diagnostics-limit", "N", OPT_MCGEN, set_diag_limit, 0,
     "gcc format: print at most N diagnostics of one code, then how many more (default "
     "100; 0: all)"},
    {NULL, "dump", NULL, OPT_MCGEN, set_true, F(dump),
     "read the binaries named (TEMP.BIN, MSG*.bin, .res, PE image) strictly and list what "
     "they declare: providers, channels, levels, tasks, opcodes, keywords, maps, templates, "
     "events, messages per language"},
    {NULL, "dump-format", "text|json", OPT_MCGEN, set_dump_format, 0,
     "--dump's listing as text (default) or as JSON in the JSON model's vocabulary"},
    {NULL, "decompile", NULL, OPT_MCGEN, set_true, F(decompile),
     "write a manifest that compiles back to the binaries named (docs/decompile.md); "
     "-o FILE names it (default: standard output)"},
    {NULL, "output", "FILE", OPT_MCGEN, set_string, F(output),
     "--decompile's manifest (-o FILE with --decompile)"},
    {NULL, "check-wevt", "FILE", OPT_MCGEN, set_string, F(check_wevt),
     "read a TEMP.BIN (mc's or mcgen's) strictly and summarise it in one line (--dump "
     "lists it whole)"},
    {NULL, "explain", "OFFSET", OPT_MCGEN, set_explain, 0,
     "with --check-wevt, name the field at that offset of the file"},
    {NULL, "version", NULL, OPT_MCGEN, set_true, F(version), "show the version, the commit, the licence and the mc formats written"},
    {NULL, "", NULL, OPT_MCGEN, NULL, 0,
     "the words that follow are manifests, even when they start with '-'"},
};
#define NOPTIONS (sizeof options / sizeof *options)

/* A row whose value is in the same word: "-Werror=NAME", "-Wno-NAME". */
static bool joined(const OptDef *d)
{
    size_t n = d->mc ? strlen(d->mc) : 0;
    return n && (d->mc[n - 1] == '=' || d->mc[n - 1] == '-');
}

/* An mc switch ("um") or a one-dash option ("Werror"); a value in the
 * same word matches a row ending in '=' or '-' ("Wno-unused-string"). */
static const OptDef *find_short(const char *name, bool slash, const char **val)
{
    *val = NULL;
    for (size_t i = 0; i < NOPTIONS; i++) {
        const OptDef *d = &options[i];
        if (!d->mc || (slash && d->group == OPT_MCGEN))
            continue;
        if (joined(d) && strncmp(d->mc, name, strlen(d->mc)) == 0) {
            *val = name + strlen(d->mc);
            return d;
        }
        if (!joined(d) && strcmp(d->mc, name) == 0)
            return d;
    }
    return NULL;
}

static const OptDef *find_long(const char *name, size_t n)
{
    for (size_t i = 0; i < NOPTIONS; i++)
        if (options[i].lng && *options[i].lng && strlen(options[i].lng) == n &&
            strncmp(options[i].lng, name, n) == 0)
            return &options[i];
    return NULL;
}

/* ---- --help ---- */

/* "-h DIR, --header-dir=DIR" */
static void spelling(Buf *b, const OptDef *d)
{
    if (d->mc)
        buf_printf(b, "-%s%s%s", d->mc, d->arg && !joined(d) ? " " : "", d->arg ? d->arg : "");
    if (d->lng)
        buf_printf(b, "%s--%s%s%s", d->mc ? ", " : "", d->lng, d->arg ? "=" : "",
                   d->arg ? d->arg : "");
}

enum { HELP_COL = 29, HELP_WIDTH = 79 };

/* "  spelling   help", the help wrapped at HELP_WIDTH under HELP_COL. */
static void help_line(Buf *b, const char *left, const char *help)
{
    buf_printf(b, "  %s", left);
    size_t col = 2 + strlen(left);
    if (col + 2 > HELP_COL) {
        buf_addc(b, '\n');
        col = 0;
    }
    for (const char *w = help; *w;) {
        size_t n = strcspn(w, " ");
        if (col > HELP_COL && col + 1 + n > HELP_WIDTH) {
            buf_addc(b, '\n');
            col = 0;
        }
        if (col < HELP_COL) {
            buf_printf(b, "%*s", (int)(HELP_COL - col), "");
            col = HELP_COL;
        } else {
            buf_addc(b, ' ');
            col++;
        }
        buf_add(b, w, n);
        col += n;
        w += n;
        while (*w == ' ')
            w++;
    }
    buf_addc(b, '\n');
}

/* The rows of one group together, "-a -u -m N", on as many lines as
 * they need, then the help. */
static void group_line(Buf *b, OptGroup g, const char *help)
{
    Buf line = {0}, one = {0};
    for (size_t i = 0; i < NOPTIONS; i++) {
        if (options[i].group != g)
            continue;
        one.len = 0;
        spelling(&one, &options[i]);
        if (line.len && 2 + line.len + 1 + one.len > HELP_WIDTH) {
            buf_printf(b, "  %s\n", line.s);
            line.len = 0;
        }
        if (line.len)
            buf_addc(&line, ' ');
        buf_add(&line, one.s, one.len);
    }
    help_line(b, line.s, help);
    buf_free(&line);
    buf_free(&one);
}

void cli_usage(FILE *f)
{
    Buf b = {0};
    buf_adds(&b, "usage: mcgen [mc.exe switches] [options] [MANIFEST] [FILE.mc]\n"
                 "       mcgen --validate [options] MANIFEST|FILE.mc...\n"
                 "       mcgen --check-wevt=FILE [--explain=OFFSET]\n"
                 "       mcgen --dump [--dump-format=json] BINARY...\n"
                 "       mcgen --decompile BINARY... [-o FILE.man]\n"

                 "\n"
                 "Compiles a Windows event instrumentation manifest.  Without options it\n"
                 "writes what mc.exe writes: the header <base>.h, the resource script\n"
                 "<base>.rc, a message table per culture (MSG00001.bin, ...) and the\n"
                 "WEVT_TEMPLATE resource <base>TEMP.BIN, where <base> is the manifest's\n"
                 "file name without extension.  For a message-text file (.mc) it writes\n"
                 "its header, .rc and a message table per language; given both, the\n"
                 ".rc and the tables are the .mc's and hold the manifest's messages.\n"
                 "Naming outputs (--json, --wevt, --rc, --message-tables, --render)\n"
                 "writes only those, unless --mc-outputs asks for mc's outputs too.\n"
                 "Exit status: 0 success, 1 errors in the manifest, 2 usage, I/O or\n"
                 "template problems.\n"
                 "\n"
                 "mc.exe's switches ('-' or '/'; case matters):\n");
    for (size_t i = 0; i < NOPTIONS; i++) {
        const OptDef *d = &options[i];
        if (d->group == OPT_MCGEN && i > 0 && options[i - 1].group != OPT_MCGEN) {
            group_line(&b, OPT_REFUSED,
                       "refused: C# classes, MOF, projections, baselines and UTF-8 tables "
                       "are not generated");
            buf_adds(&b, "\nmcgen's options:\n");
        }
        if (d->group != OPT_MC && d->group != OPT_MCGEN)
            continue;
        Buf left = {0};
        if (d->lng && !*d->lng)
            buf_adds(&left, "--");
        else
            spelling(&left, d);
        help_line(&b, left.s, d->help);
        buf_free(&left);
    }
    /* the outputs that bring their own option */
    for (const Emitter *const *e = emitters; *e; e++) {
        if (!(*e)->option)
            continue;
        Buf left = {0};
        buf_printf(&left, "--%s=%s", (*e)->option, (*e)->arg);
        help_line(&b, left.s, (*e)->help);
        buf_free(&left);
    }
    fwrite(b.s, 1, b.len, f);
    buf_free(&b);
}

/* ---- parsing ---- */

/* Checks that a value is there and applies the row. */
static int apply(Options *o, const OptDef *d, const char *word, const char *val)
{
    if (d->arg && !*val)
        return usage_error("%s needs a value", word);
    return d->set(o, d, word, val);
}

/* "--NAME=VALUE" of an emitter row with an option of its own (emit.c):
 * an output named, so only the outputs named are written. */
static int emitter_option(Options *o, int argc, char **argv, int *i, size_t n, const char *val)
{
    const char *a = argv[*i];
    for (const Emitter *const *e = emitters; *e; e++) {
        const char *name = (*e)->option;
        if (!name || strlen(name) != n || strncmp(name, a + 2, n) != 0)
            continue;
        if (!val) {
            if (*i + 1 >= argc)
                return usage_error("%s needs a value", a);
            val = argv[++*i];
        }
        if (!*val)
            return usage_error("%s needs a value", a);
        struct EmitterArg x = {*e, val};
        vec_push(&o->emitter_args, x);
        o->selected = true;
        return -1;
    }
    return usage_error("unknown option '%s'", a);
}

/* "--name[=value]" */
static int parse_long(Options *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i] + 2;
    const char *eq = strchr(a, '=');
    size_t n = eq ? (size_t)(eq - a) : strlen(a);
    const char *val = eq ? eq + 1 : NULL;
    const OptDef *d = find_long(a, n);
    if (!d)
        return emitter_option(o, argc, argv, i, n, val);
    if (d->arg && !val) {
        if (*i + 1 >= argc)
            return usage_error("%s needs a value", argv[*i]);
        val = argv[++*i];
    } else if (!d->arg && val) {
        return usage_error("%s takes no value", argv[*i]);
    }
    if (d->mc && d->group != OPT_MCGEN) {
        /* the word mc would have seen, for messages */
        char word[40];
        snprintf(word, sizeof word, "-%s", d->mc);
        return apply(o, d, word, val ? val : "");
    }
    return apply(o, d, argv[*i - (eq || !d->arg ? 0 : 1)], val ? val : "");
}

/* "-x" or "/x", with mc's error texts. */
static int parse_short(Options *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    const char *val;
    const OptDef *d = find_short(a + 1, a[0] == '/', &val);
    if (d && val) /* -Werror=NAME */
        return apply(o, d, a, val);
    if (!d && a[0] == '-' && a[1] == 'W' && a[2])
        /* mc's -W takes its file as the next word, so "-Wxyz" is meant
         * as a warning control */
        return usage_error("unknown option '%s' (-Werror, -Werror=NAME or -Wno-NAME)", a);
    if (!d) {
        /* run-together flags: -cv */
        size_t n = strlen(a + 1);
        bool all = n > 1;
        for (size_t k = 1; all && k <= n; k++) {
            char one[2] = {a[k], 0};
            const OptDef *f = find_short(one, true, &val);
            all = f && !f->arg;
        }
        if (!all) {
            diag_plain(DIAG_ERROR, "Invalid switch: %s. (see mcgen --help)", a);
            return 2;
        }
        for (size_t k = 1; k <= n; k++) {
            char one[2] = {a[k], 0}, word[3] = {a[0], a[k], 0};
            int r = apply(o, find_short(one, true, &val), word, "");
            if (r >= 0)
                return r;
        }
        return -1;
    }
    if (d->arg) {
        if (*i + 1 >= argc || !*argv[*i + 1]) {
            diag_plain(DIAG_ERROR, "Missing argument for %s switch. (see mcgen --help)", a);
            return 2;
        }
        val = argv[++*i];
    }
    return apply(o, d, a, val ? val : "");
}

/* --diagnostics-format and --diagnostics-output are read before the rest,
 * so that a mistake anywhere on the command line goes into the document. */
static int diagnostics_options(Options *o, int argc, char **argv)
{
    static const char *const names[] = {"--diagnostics-format", "--diagnostics-output"};
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        for (int k = 0; k < 2; k++) {
            size_t n = strlen(names[k]);
            if (strncmp(argv[i], names[k], n) != 0 || (argv[i][n] && argv[i][n] != '='))
                continue;
            int at = i;
            int r = parse_long(o, argc, argv, &at);
            if (r >= 0)
                return r;
        }
    }
    return -1;
}

int cli_parse(int argc, char **argv, Options *o)
{
    memset(o, 0, sizeof *o);
    o->format = WEVT_V5;
    o->template_limits = tmpl_default_limits;
    o->header_ext = "h";
    int r0 = diagnostics_options(o, argc, argv);
    if (r0 >= 0)
        return r0;
    bool words = false; /* after "--" */
    /* with --decompile, -o names the manifest written (mc's -o, the OLE2
     * layout comment of a .mc header, means nothing there) */
    bool decompiling = false;
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        decompiling |= strcmp(argv[i], "--decompile") == 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = -1;
        if (words)
            vec_push(&o->inputs, a);
        else if (strcmp(a, "--") == 0)
            words = true;
        else if (decompiling && strcmp(a, "-o") == 0)
            r = i + 1 < argc ? apply(o, find_long("output", 6), a, argv[++i])
                             : usage_error("%s needs a value", a);
        else if (a[0] == '-' && a[1] == '-')
            r = parse_long(o, argc, argv, &i);
        else if (a[0] == '-' && a[1])
            r = parse_short(o, argc, argv, &i);
        else if (a[0] == '/' && find_short(a + 1, true, &(const char *){0}))
            /* "/h" is a switch, "/tmp/x.man" an absolute path */
            r = parse_short(o, argc, argv, &i);
        else
            vec_push(&o->inputs, a);
        if (r >= 0)
            return r;
    }
    if (o->diag_output && diag_format() == DIAG_FORMAT_GCC)
        return usage_error("%s", "--diagnostics-output needs --diagnostics-format=json or sarif");
    if (diag_format() != DIAG_FORMAT_GCC && !o->diag_output && !o->help && !o->version &&
        (o->print_outputs || o->check_wevt))
        return usage_error("%s writes to standard output, where the diagnostics document "
                           "goes; add --diagnostics-output=FILE",
                           o->print_outputs ? "--print-outputs" : "--check-wevt");
    if (o->help || o->version || o->check_wevt)
        return -1;
    if ((o->dump || o->decompile) && !o->inputs.n)
        return usage_error("%s", o->dump ? "--dump needs the binaries to read"
                                         : "--decompile needs the binaries to read");
    if (o->dump && o->decompile)
        return usage_error("%s", "--dump and --decompile are two runs");
    if (o->output && !o->decompile)
        return usage_error("%s", "--output names the manifest of --decompile, which is not given");
    if (o->dump_json && !o->dump)
        return usage_error("%s", "--dump-format is the format of --dump, which is not given");
    if (o->dump || o->decompile)
        return -1;
    if (!o->inputs.n)
        return usage_error("%s", "no manifest given");
    o->input = o->inputs.v[0];
    /* mc takes at most one manifest and one .mc */
    size_t nmc = 0;
    for (size_t i = 0; i < o->inputs.n; i++)
        nmc += cli_is_mc(o->inputs.v[i]);
    if (!o->validate && (o->inputs.n > 2 || (o->inputs.n == 2 && nmc != 1)))
        return usage_error("more than one manifest or .mc file given ('%s' and another); mc "
                           "takes one of each, and only --validate takes more",
                           o->inputs.v[1]);
    if (o->customer_bit && !nmc)
        return usage_error("%s", "-c (the customer bit) is given for .mc message ids; no output "
                                 "shows which ids of a manifest mc would give it");
    if (o->era_year && nmc != o->inputs.n)
        return usage_error("%s", "--mc-compat=2005 and 1998 name mc generations of .mc files "
                                 "only; a manifest needs a version (10.0.18362, ...)");
    if (nmc == o->inputs.n && !o->validate && (o->json || o->wevt || o->renders.n))
        return usage_error("%s describes a manifest; a .mc file has none (its outputs: the "
                           "header, the .rc, the message tables, -x's .dbg)",
                           o->json ? "--json" : o->wevt ? "--wevt" : "--render");
    /* the mc whose tables were ANSI unless -U said otherwise */
    if (o->era == MC_1998 && !o->unicode_tables)
        o->tables.ansi = true;
    return -1;
}

bool cli_is_mc(const char *path)
{
    size_t n = strlen(path);
    return n > 3 && strcasecmp(path + n - 3, ".mc") == 0;
}

/* The input's file name without directory and extension. */
static void input_base(const char *input, Buf *out)
{
    const char *s = input;
    for (const char *p = input; *p; p++)
        if (*p == '/' || *p == '\\')
            s = p + 1;
    const char *dot = strrchr(s, '.');
    buf_add(out, s, dot && dot != s ? (size_t)(dot - s) : strlen(s));
}

static char *join(const char *dir, const char *a, const char *b)
{
    Buf p = {0};
    if (dir && *dir) {
        buf_add(&p, dir, strlen(dir));
        if (!os_is_sep(dir[strlen(dir) - 1]))
            buf_add(&p, "/", 1);
    }
    buf_add(&p, a, strlen(a));
    buf_add(&p, b, strlen(b));
    return p.s;
}

void cli_output_names(const Options *o, const char *man, const char *mc, size_t ntables,
                      const char *const *tables, OutputNames *out)
{
    memset(out, 0, sizeof *out);
    /* the .rc, TEMP.BIN and the tables are named after the .mc when there
     * is one (mc -b a.man b.mc writes b.rc, bTEMP.BIN, b_MSG00001.bin) */
    const char *named = mc ? mc : man;
    Buf base = {0};
    if (o->base)
        buf_add(&base, o->base, strlen(o->base));
    else
        input_base(named, &base);
    /* message tables: <base>_MSG00001.bin with -z or -b (with -b the
     * input's name even when -z is given) */
    Buf tprefix = {0};
    if (o->input_base)
        input_base(named, &tprefix);
    else if (o->base)
        buf_add(&tprefix, o->base, strlen(o->base));
    if (tprefix.len)
        buf_add(&tprefix, "_", 1);
    Buf ext = {0};
    buf_printf(&ext, ".%s", o->header_ext);
    for (int i = 0; i < 2; i++) {
        const char *in = i ? mc : man;
        if (!in)
            continue;
        Buf b = {0};
        if (o->base)
            buf_add(&b, o->base, strlen(o->base));
        else
            input_base(in, &b);
        *(i ? &out->mc_header : &out->header) = join(o->header_dir, b.s, ext.s);
        if (i && o->dbg_dir)
            out->dbg = join(o->dbg_dir, b.s, ".dbg");
        buf_free(&b);
    }
    out->rc = join(o->rc_dir, base.s, ".rc");
    out->wevt = join(o->rc_dir, base.s, "TEMP.BIN");
    out->wevt_name = join(NULL, base.s, "TEMP.BIN");
    out->ntables = ntables;
    out->tables = xcalloc(ntables + 1, sizeof *out->tables);
    out->table_names = xcalloc(ntables + 1, sizeof *out->table_names);
    for (size_t i = 0; i < ntables; i++) {
        if (!tables[i])
            continue;
        Buf name = {0};
        buf_printf(&name, "%s%s.bin", tprefix.len ? tprefix.s : "", tables[i]);
        out->tables[i] = join(o->rc_dir, name.s, "");
        out->table_names[i] = name.s;
    }
    buf_free(&base);
    buf_free(&tprefix);
    buf_free(&ext);
}

void cli_output_names_free(OutputNames *n)
{
    free(n->header);
    free(n->mc_header);
    free(n->dbg);
    free(n->rc);
    free(n->wevt);
    free(n->wevt_name);
    for (size_t i = 0; i < n->ntables; i++) {
        free(n->tables[i]);
        free(n->table_names[i]);
    }
    free(n->tables);
    free(n->table_names);
    memset(n, 0, sizeof *n);
}
