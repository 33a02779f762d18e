/*
 * cli.c - the command line: mc.exe's switches (../shared/docs/mc-cli.md)
 * and mcgen's own long options, read into one Options; and the names of
 * the files mc would write for them.
 *
 * mc's switches are case-sensitive, start with '-' or '/', and take their
 * argument as the next word (-h DIR).  Single-letter flags may be run
 * together as in mc's synopsis (-cv = -c -v) when the word is no switch of
 * its own (-co, -cp, -um ...).  Long options take "--name=value" or
 * "--name value".
 */
#include "mcgen.h"

#include <stdlib.h>
#include <string.h>

/* mc.exe's switches.  `arg`: takes a value.  `manifest`: has an effect on
 * a manifest (the others concern .mc message-text files or outputs mcgen
 * does not write; see cli_parse). */
typedef enum {
    SW_HELP, SW_ANSI_IN, SW_ANSI_OUT, SW_INPUT_BASE, SW_CUSTOMER, SW_DECIMAL, SW_NUL,
    SW_OLE, SW_UNICODE_IN, SW_UNICODE_OUT, SW_UTF8_OUT, SW_VERBOSE, SW_MAXLEN, SW_HDIR,
    SW_EXT, SW_RDIR, SW_XDIR, SW_XSD, SW_WINMETA, SW_BASE, SW_CODEPAGE, SW_UM, SW_KM,
    SW_CALLOUT, SW_PREFIX, SW_STRIP, SW_CS, SW_CSS, SW_MOF, SW_PROJ, SW_TPROJ, SW_TSTUBS,
    SW_BASELINE, SW_VALIDATE_BASELINE
} Switch;

typedef struct SwitchDef {
    const char *name; /* without the leading - or / */
    Switch sw;
    bool arg;
    const char *lng;  /* the GNU-style long option, NULL if none */
} SwitchDef;

static const SwitchDef switches[] = {
    {"?", SW_HELP, false, "help"},
    {"a", SW_ANSI_IN, false, NULL},
    {"A", SW_ANSI_OUT, false, "ansi-message-tables"},
    {"b", SW_INPUT_BASE, false, "input-base-names"},
    {"c", SW_CUSTOMER, false, "customer-bit"},
    {"d", SW_DECIMAL, false, NULL},
    {"n", SW_NUL, false, "no-crlf"},
    {"o", SW_OLE, false, NULL},
    {"u", SW_UNICODE_IN, false, NULL},
    {"U", SW_UNICODE_OUT, false, "unicode-message-tables"},
    {"U8", SW_UTF8_OUT, false, NULL},
    {"v", SW_VERBOSE, false, "verbose"},
    {"m", SW_MAXLEN, true, NULL},
    {"h", SW_HDIR, true, "header-dir"},
    {"e", SW_EXT, true, "header-ext"},
    {"r", SW_RDIR, true, "rc-dir"},
    {"x", SW_XDIR, true, NULL},
    {"w", SW_XSD, true, "xsd"},
    {"W", SW_WINMETA, true, "winmeta"},
    {"z", SW_BASE, true, "base-name"},
    {"cp", SW_CODEPAGE, true, "codepage"},
    {"um", SW_UM, false, "user-mode"},
    {"km", SW_KM, false, "kernel-mode"},
    {"co", SW_CALLOUT, false, "callout"},
    {"p", SW_PREFIX, true, "prefix"},
    {"P", SW_STRIP, true, "strip-prefix"},
    {"cs", SW_CS, true, NULL},
    {"css", SW_CSS, true, NULL},
    {"mof", SW_MOF, false, NULL},
    {"generateProjections", SW_PROJ, false, NULL},
    {"generateTemplateProjections", SW_TPROJ, false, NULL},
    {"generateTemplateStubs", SW_TSTUBS, true, NULL},
    {"s", SW_BASELINE, true, NULL},
    {"t", SW_VALIDATE_BASELINE, true, NULL},
};
#define NSWITCHES (sizeof switches / sizeof *switches)

static const SwitchDef *find_switch(const char *name)
{
    for (size_t i = 0; i < NSWITCHES; i++)
        if (strcmp(switches[i].name, name) == 0)
            return &switches[i];
    return NULL;
}

static const SwitchDef *find_long(const char *name, size_t n)
{
    for (size_t i = 0; i < NSWITCHES; i++)
        if (switches[i].lng && strlen(switches[i].lng) == n &&
            strncmp(switches[i].lng, name, n) == 0)
            return &switches[i];
    return NULL;
}

/* mcgen's own long options, beside the long forms of mc's switches. */
typedef enum {
    L_JSON, L_WEVT, L_RC, L_TABLES, L_CHECK, L_EXPLAIN, L_COMPAT, L_VERSION, L_EOL,
    L_PRINT_OUTPUTS, L_DEPFILE, L_TEMPLATES, L_RENDER, L_VALIDATE, L_DIAG_FORMAT, L_DIAG_OUTPUT
} LongOpt;

static const struct {
    const char *name;
    LongOpt opt;
    bool arg;
} longs[] = {
    {"json", L_JSON, true},
    {"wevt", L_WEVT, true},
    {"rc", L_RC, true},
    {"message-tables", L_TABLES, true},
    {"check-wevt", L_CHECK, true},
    {"explain", L_EXPLAIN, true},
    {"mc-compat", L_COMPAT, true},
    {"version", L_VERSION, false},
    {"line-endings", L_EOL, true},
    {"print-outputs", L_PRINT_OUTPUTS, false},
    {"depfile", L_DEPFILE, true},
    {"templates", L_TEMPLATES, true},
    {"render", L_RENDER, true},
    {"validate", L_VALIDATE, false},
    {"diagnostics-format", L_DIAG_FORMAT, true},
    {"diagnostics-output", L_DIAG_OUTPUT, true},
};

static int usage_error(const char *fmt, const char *a)
{
    Buf b = {0};
    buf_printf(&b, fmt, a);
    diag_plain(DIAG_ERROR, "%s (see mcgen --help)", b.s);
    buf_free(&b);
    return 2;
}

static int set_mode(Options *o, HeaderMode mode, const char *word)
{
    if (o->mode != HEADER_DESCRIPTORS && o->mode != mode)
        return usage_error("%s cannot be combined with another of -um, -km, -cs, -css and "
                           "-generateProjections",
                           word);
    o->mode = mode;
    return -1;
}

/* Applies one of mc's switches; -1 to go on, else the exit status. */
static int apply_switch(Options *o, const SwitchDef *d, const char *word, const char *val)
{
    switch (d->sw) {
    case SW_HELP:
        o->help = true;
        break;
    case SW_ANSI_OUT:
        o->tables.ansi = true;
        break;
    case SW_UNICODE_OUT:
        o->tables.ansi = false;
        break;
    case SW_INPUT_BASE:
        o->input_base = true;
        break;
    case SW_CUSTOMER:
        /* which ids mc gives the bit for a manifest (the table's, the
         * TEMP.BIN's, the explicit ones?) is not known from any output */
        return usage_error("%s (the customer bit) is not supported yet for manifests", word);
    case SW_NUL:
        o->tables.no_crlf = true;
        break;
    case SW_VERBOSE:
        o->verbose = true;
        break;
    case SW_HDIR:
        o->header_dir = val;
        break;
    case SW_RDIR:
        o->rc_dir = val;
        break;
    case SW_EXT: {
        size_t n = strlen(val);
        if (n < 1 || n > 3 || strchr(val, '.') || strchr(val, '/') || strchr(val, '\\'))
            return usage_error("the header extension of -e is 1 to 3 characters without a dot, "
                               "not '%s'",
                               val);
        o->header_ext = val;
        break;
    }
    case SW_BASE:
        if (!*val || strchr(val, '/') || strchr(val, '\\'))
            return usage_error("-z takes a base name without a directory, not '%s'", val);
        o->base = val;
        break;
    case SW_CODEPAGE:
        if (strcmp(val, "ansi") == 0)
            o->encoding = ENC_ANSI;
        else if (strcmp(val, "utf-8") == 0)
            o->encoding = ENC_UTF8;
        else if (strcmp(val, "utf-16") == 0)
            o->encoding = ENC_UTF16;
        else
            return usage_error("-cp takes ansi, utf-8 or utf-16, not '%s'", val);
        break;
    case SW_UM:
        return set_mode(o, HEADER_UM, word);
    case SW_KM:
        return set_mode(o, HEADER_KM, word);
    case SW_CALLOUT:
        o->callout = true;
        break;
    case SW_PREFIX:
    case SW_STRIP:
        for (const char *c = val; *c; c++)
            if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || *c == '_' ||
                  (c > val && *c >= '0' && *c <= '9')))
                return usage_error(d->sw == SW_PREFIX
                                       ? "-p takes the start of a C identifier, not '%s'"
                                       : "-P takes the start of a C identifier, not '%s'",
                                   val);
        if (d->sw == SW_PREFIX)
            o->prefix = val;
        else
            o->strip_prefix = val;
        break;
    case SW_XSD:
    case SW_WINMETA:
        /* mc's documentation: "the compiler ignores this argument"; mcgen
         * always uses its built-in schema/ files */
        o->ignored_schema = val;
        break;
    case SW_ANSI_IN:
    case SW_UNICODE_IN:
    case SW_DECIMAL:
    case SW_OLE:
    case SW_MAXLEN:
    case SW_XDIR:
    case SW_UTF8_OUT:
        /* switches for .mc message-text files: no effect on a manifest */
        break;
    case SW_CS:
    case SW_CSS:
    case SW_PROJ:
    case SW_TPROJ:
    case SW_TSTUBS:
    case SW_MOF:
    case SW_BASELINE:
    case SW_VALIDATE_BASELINE:
        return usage_error("mc's %s is not supported by mcgen (C# classes, MOF, projections "
                           "and baselines are not generated)",
                           word);
    }
    return -1;
}

static int apply_long(Options *o, LongOpt opt, const char *val)
{
    switch (opt) {
    case L_JSON:
        o->json = val;
        o->selected = true;
        break;
    case L_WEVT:
        o->wevt = val;
        o->selected = true;
        break;
    case L_RC:
        o->rc = val;
        o->selected = true;
        break;
    case L_TABLES:
        o->tables_dir = val;
        o->selected = true;
        break;
    case L_CHECK:
        o->check_wevt = val;
        break;
    case L_EXPLAIN:
        o->explain = val;
        break;
    case L_COMPAT:
        if (strcmp(val, "10.0.18362") == 0)
            o->format = WEVT_V5;
        else if (strcmp(val, "10.0.15063") == 0)
            o->format = WEVT_V3;
        else if (strcmp(val, "8.1") == 0)
            o->format = WEVT_V3_MC81;
        else {
            diag_plain(DIAG_ERROR,
                       "unknown --mc-compat version '%s' (10.0.18362, 10.0.15063 or 8.1)", val);
            return 2;
        }
        break;
    case L_VERSION:
        o->version = true;
        break;
    case L_EOL:
        if (strcmp(val, "lf") == 0)
            o->lf = true;
        else if (strcmp(val, "crlf") == 0)
            o->lf = false;
        else
            return usage_error("--line-endings takes crlf or lf, not '%s'", val);
        break;
    case L_PRINT_OUTPUTS:
        o->print_outputs = true;
        break;
    case L_DEPFILE:
        o->depfile = val;
        break;
    case L_TEMPLATES:
        o->templates_dir = val;
        break;
    case L_VALIDATE:
        o->validate = true;
        break;
    case L_DIAG_FORMAT:
        if (strcmp(val, "gcc") == 0)
            diag_set_format(DIAG_FORMAT_GCC);
        else if (strcmp(val, "json") == 0)
            diag_set_format(DIAG_FORMAT_JSON);
        else if (strcmp(val, "sarif") == 0)
            diag_set_format(DIAG_FORMAT_SARIF);
        else
            return usage_error("--diagnostics-format takes gcc, json or sarif, not '%s'", val);
        break;
    case L_DIAG_OUTPUT:
        o->diag_output = val;
        break;
    case L_RENDER: {
        const char *colon = strchr(val, ':');
        if (!colon || colon == val || !colon[1])
            return usage_error("--render takes TEMPLATE:OUTPUT, not '%s'", val);
        RenderJob job = {arena_strndup(&o->arena, val, (size_t)(colon - val)), colon + 1};
        vec_push(&o->renders, job);
        o->selected = true;
        break;
    }
    }
    return -1;
}

/* -Werror, -Werror=NAME, -Wno-NAME: the warning controls of diag.c. */
static int warning_option(const char *a)
{
    const char *w = a + 2;
    if (strcmp(w, "error") == 0) {
        diag_warnings_as_errors(true);
        return -1;
    }
    bool ok = false;
    if (strncmp(w, "error=", 6) == 0)
        ok = diag_set_warning(w + 6, true, true);
    else if (strncmp(w, "no-", 3) == 0)
        ok = diag_set_warning(w + 3, false, false);
    else
        return usage_error("unknown option '%s' (-Werror, -Werror=NAME or -Wno-NAME)", a);
    if (!ok)
        return usage_error("'%s' names no warning (docs/diagnostics.md lists them)", a);
    return -1;
}

/* "--name[=value]" */
static int parse_long(Options *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i] + 2;
    const char *eq = strchr(a, '=');
    size_t n = eq ? (size_t)(eq - a) : strlen(a);
    const char *val = eq ? eq + 1 : NULL;
    bool arg;
    const SwitchDef *d = find_long(a, n);
    int li = -1;
    if (d) {
        arg = d->arg;
    } else {
        for (size_t k = 0; k < sizeof longs / sizeof *longs; k++)
            if (strlen(longs[k].name) == n && strncmp(longs[k].name, a, n) == 0)
                li = (int)k;
        if (li < 0)
            return usage_error("unknown option '%s'", argv[*i]);
        arg = longs[li].arg;
    }
    if (arg && !val) {
        if (*i + 1 >= argc)
            return usage_error("%s needs a value", argv[*i]);
        val = argv[++*i];
    } else if (!arg && val) {
        return usage_error("%s takes no value", argv[*i]);
    }
    if (arg && !*val)
        return usage_error("%s needs a value", argv[*i]);
    if (d) {
        /* the word mc would have seen, for messages */
        static char word[40];
        snprintf(word, sizeof word, "-%s", d->name);
        return apply_switch(o, d, word, val);
    }
    return apply_long(o, longs[li].opt, val);
}

/* "-x" or "/x", with mc's error texts. */
static int parse_mc(Options *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    const SwitchDef *d = find_switch(a + 1);
    if (!d) {
        /* run-together flags: -cv */
        size_t n = strlen(a + 1);
        bool all = n > 1;
        for (size_t k = 1; all && k <= n; k++) {
            char one[2] = {a[k], 0};
            const SwitchDef *f = find_switch(one);
            all = f && !f->arg;
        }
        if (!all) {
            diag_plain(DIAG_ERROR, "Invalid switch: %s. (see mcgen --help)", a);
            return 2;
        }
        for (size_t k = 1; k <= n; k++) {
            char one[2] = {a[k], 0}, word[3] = {a[0], a[k], 0};
            int r = apply_switch(o, find_switch(one), word, NULL);
            if (r >= 0)
                return r;
        }
        return -1;
    }
    const char *val = NULL;
    if (d->arg) {
        if (*i + 1 >= argc || !*argv[*i + 1]) {
            diag_plain(DIAG_ERROR, "Missing argument for %s switch. (see mcgen --help)", a);
            return 2;
        }
        val = argv[++*i];
    }
    return apply_switch(o, d, a, val);
}

/* --diagnostics-format and --diagnostics-output are read before the rest,
 * so that a mistake anywhere on the command line goes into the document. */
static int diagnostics_options(Options *o, int argc, char **argv)
{
    static const char *const names[] = {"--diagnostics-format", "--diagnostics-output"};
    for (int i = 1; i < argc; i++) {
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
    o->header_ext = "h";
    int r0 = diagnostics_options(o, argc, argv);
    if (r0 >= 0)
        return r0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = -1;
        if (a[0] == '-' && a[1] == '-' && a[2])
            r = parse_long(o, argc, argv, &i);
        else if (a[0] == '-' && a[1] == 'W' && a[2])
            /* -Werror, -Werror=NAME, -Wno-NAME (mc's -W takes its file
             * as the next word, so these words are no mc switch) */
            r = warning_option(a);
        else if ((a[0] == '-' && a[1]) || (a[0] == '/' && find_switch(a + 1)))
            /* "/h" is a switch, "/tmp/x.man" an absolute path */
            r = parse_mc(o, argc, argv, &i);
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
    if (!o->inputs.n)
        return usage_error("%s", "no manifest given");
    o->input = o->inputs.v[0];
    if (o->inputs.n > 1 && !o->validate)
        return usage_error("more than one manifest given ('%s' and another); only --validate "
                           "takes several",
                           o->inputs.v[1]);
    for (size_t i = 0; i < o->inputs.n; i++) {
        size_t n = strlen(o->inputs.v[i]);
        if (n > 3 && strcmp(o->inputs.v[i] + n - 3, ".mc") == 0)
            return usage_error(
                "'%s' is a message-text file; mcgen compiles manifests (.man, .xml)",
                o->inputs.v[i]);
    }
    return -1;
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
        if (dir[strlen(dir) - 1] != '/')
            buf_add(&p, "/", 1);
    }
    buf_add(&p, a, strlen(a));
    buf_add(&p, b, strlen(b));
    return p.s;
}

void cli_output_names(const Options *o, size_t ncultures, const bool *has_table,
                      OutputNames *out)
{
    memset(out, 0, sizeof *out);
    Buf base = {0};
    if (o->base)
        buf_add(&base, o->base, strlen(o->base));
    else
        input_base(o->input, &base);
    /* message tables: <base>_MSG00001.bin with -z or -b (with -b the
     * input's name even when -z is given) */
    Buf tprefix = {0};
    if (o->input_base)
        input_base(o->input, &tprefix);
    else if (o->base)
        buf_add(&tprefix, o->base, strlen(o->base));
    if (tprefix.len)
        buf_add(&tprefix, "_", 1);
    Buf ext = {0};
    buf_printf(&ext, ".%s", o->header_ext);
    out->header = join(o->header_dir, base.s, ext.s);
    out->rc = join(o->rc_dir, base.s, ".rc");
    out->wevt = join(o->rc_dir, base.s, "TEMP.BIN");
    out->wevt_name = join(NULL, base.s, "TEMP.BIN");
    out->ntables = ncultures;
    out->tables = xcalloc(ncultures + 1, sizeof *out->tables);
    out->table_names = xcalloc(ncultures + 1, sizeof *out->table_names);
    for (size_t i = 0; i < ncultures; i++) {
        if (!has_table[i])
            continue;
        Buf name = {0};
        buf_printf(&name, "%sMSG%05zX.bin", tprefix.len ? tprefix.s : "", i + 1);
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
