/*
 * main.c - the command line.  Loads the manifest, then writes the outputs
 * that were asked for.  Exit status: 0 success, 1 errors in the input,
 * 2 usage or I/O problems.  With --diagnostics-format=json or sarif the
 * diagnostics document is written last, after any run (main, below).
 */
#include "mcgen.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef MCGEN_VERSION
#define MCGEN_VERSION "0.1.0"
#endif

static void usage(FILE *f)
{
    fputs("usage: mcgen [mc.exe switches] [options] MANIFEST\n"
          "\n"
          "Compiles a Windows event instrumentation manifest.  Without options it\n"
          "writes what mc.exe writes: the header <base>.h, the resource script\n"
          "<base>.rc, a message table per culture (MSG00001.bin, ...) and the\n"
          "WEVT_TEMPLATE resource <base>TEMP.BIN, where <base> is the manifest's\n"
          "file name without extension.\n"
          "\n"
          "mc.exe's switches ('-' or '/'; long forms in brackets):\n"
          "  -um [--user-mode]      user-mode logging code in the header\n"
          "  -km [--kernel-mode]    kernel-mode logging code: write macros take an\n"
          "                         activity id first\n"
          "  -h DIR [--header-dir]  directory of the header\n"
          "  -r DIR [--rc-dir]      directory of the .rc and the binaries\n"
          "  -z BASE [--base-name]  base name of the outputs; tables become\n"
          "                         BASE_MSG00001.bin\n"
          "  -b [--input-base-names] tables named <input base>_MSG00001.bin\n"
          "  -e EXT [--header-ext]  header extension (1-3 characters, default h)\n"
          "  -A [--ansi-message-tables]  table texts in Windows-1252, flags 0\n"
          "  -U [--unicode-message-tables]  table texts in UTF-16 (the default)\n"
          "  -n [--no-crlf]         no \"\\r\\n\" after each table text\n"
          "  -cp ENC [--codepage]   text outputs in ansi (default), utf-8 or utf-16\n"
          "  -p PREFIX [--prefix]   write macros named PREFIX<Event> (default EventWrite)\n"
          "  -P PREFIX [--strip-prefix]  event macros without PREFIX (any case) at the\n"
          "                         start of the event's symbol\n"
          "  -co [--callout]        events also go to MCGEN_CALLOUT when it is defined\n"
          "  -v [--verbose]         notes on what is ignored\n"
          "  -W FILE, -w FILE       accepted and ignored (mcgen's schema is built in)\n"
          "  -a -u -d -o -m N -x DIR -U8   .mc-file switches: no effect on a manifest\n"
          "  -? [--help]            this help\n"
          "\n"
          "mcgen's options (naming one writes only the outputs named):\n"
          "  --json=FILE   write the resolved model as JSON (docs/json-model.md)\n"
          "  --wevt=FILE   write the WEVT_TEMPLATE resource (TEMP.BIN) as mc.exe does\n"
          "  --rc=FILE     write the resource script for --message-tables and --wevt\n"
          "  --message-tables=DIR\n"
          "                write the message table of each culture (MSG00001.bin, ...)\n"
          "  --mc-compat=VERSION\n"
          "                binary format of that mc.exe: 10.0.18362 (default, CRIM 5.1),\n"
          "                10.0.15063 (CRIM 3.1) or 8.1 (CRIM 3.1, MD5 template ids)\n"
          "  --line-endings=crlf|lf  line ends of text outputs (crlf, as mc)\n"
          "  --print-outputs  list the files a run would write, write nothing\n"
          "  --depfile=FILE  also write the Makefile rule \"outputs: inputs\" (make, ninja)\n"
          "  --render=TEMPLATE:OUTPUT\n"
          "                render a template of yours against the model (docs/templates.md);\n"
          "                repeatable\n"
          "  --templates=DIR  use DIR's header.h.j2, logging_*.h.j2 ... over the built-in ones\n"
          "  --check-wevt=FILE\n"
          "                read a TEMP.BIN (mc's or mcgen's) strictly and summarise it;\n"
          "                with --explain=OFFSET, name the field at that offset\n"
          "  --diagnostics-format=gcc|json|sarif\n"
          "                gcc (default): each diagnostic as text on stderr; json, sarif:\n"
          "                all of the run's diagnostics in one document on stdout at the\n"
          "                end, mcgen's JSON or SARIF 2.1.0 (docs/diagnostics.md)\n"
          "  --diagnostics-output=FILE  write that document to FILE instead\n"
          "  --version     show the version\n",
          f);
}

typedef struct WevtJob {
    Manifest *m;
    WevtFormat format;
    Buf bin;
} WevtJob;

static void *wevt_thread(void *arg)
{
    WevtJob *j = arg;
    wevt_build(j->m, j->format, &j->bin);
    return NULL;
}

/* --check-wevt: 0 when the file reads cleanly, 1 when it does not. */
static int check_wevt(const char *path, const char *explain)
{
    size_t n;
    char *bytes = read_file(path, &n);
    if (!bytes) {
        diag_io("cannot open '%s': %s", path, strerror(errno));
        return 2;
    }
    WevtFile f;
    Buf err = {0};
    bool ok = wevt_read(bytes, n, &f, &err);
    if (ok) {
        size_t events = 0;
        for (size_t i = 0; i < f.providers.n; i++)
            events += f.providers.v[i].events.n;
        printf("%s: CRIM %u.%u, %zu providers, %zu events\n", path, f.major, f.minor,
               f.providers.n, events);
    } else {
        diag_plain(DIAG_ERROR, "%s: %s", path, err.s);
    }
    if (explain) {
        uint64_t at = 0;
        if (parse_uint(explain, UINT32_MAX, &at))
            printf("0x%llx: %s\n", (unsigned long long)at, wevt_explain(&f, (uint32_t)at));
    }
    wevt_free(&f);
    buf_free(&err);
    free(bytes);
    return ok ? 0 : 1;
}

/* A text output in the encoding and line endings asked for (-cp,
 * --line-endings); `text` is UTF-8 with LF or CRLF line ends.  mc writes
 * the .rc in UTF-16 when UTF-8 is asked for, as rc.exe cannot read UTF-8.
 * false when a character has no place in the ANSI code page. */
static bool encode_text(const Options *o, const char *path, const Buf *text, bool rc, Buf *out)
{
    Buf lines = {0};
    const char *p = text->s, *end = text->s + text->len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *stop = nl ? nl : end;
        size_t n = (size_t)(stop - p);
        if (nl && n && stop[-1] == '\r')
            n--; /* CRLF in the text: one line end */
        buf_add(&lines, p, n);
        if (nl)
            buf_add(&lines, o->lf ? "\n" : "\r\n", o->lf ? 1 : 2);
        p = nl ? nl + 1 : end;
    }
    bool ok = true;
    TextEncoding enc = o->encoding == ENC_UTF8 && rc ? ENC_UTF16 : o->encoding;
    bool ascii = true;
    for (size_t i = 0; ascii && i < lines.len; i++)
        ascii = (unsigned char)lines.s[i] < 0x80;
    if (enc == ENC_ANSI && ascii && !out->len) {
        /* ASCII is its own Windows-1252: hand the buffer over */
        Buf t = *out;
        *out = lines;
        lines = t;
    } else if (enc == ENC_UTF8) {
        buf_add(out, "\xEF\xBB\xBF", 3);
        buf_add(out, lines.s, lines.len);
    } else if (enc == ENC_UTF16) {
        buf_add(out, "\xFF\xFE", 2);
        utf8_to_utf16le(out, lines.s, lines.len);
    } else if (lines.len) {
        size_t bad = utf8_to_cp1252(out, lines.s, lines.len);
        if (bad != SIZE_MAX) {
            diag_plain(DIAG_ERROR,
                       "%s: a character cannot be written in the ANSI code page "
                       "(Windows-1252); use -cp utf-8 or -cp utf-16",
                       path);
            ok = false;
        }
    }
    buf_free(&lines);
    return ok;
}

/* Writes one output file (through out.c: temporary file, renamed on
 * success, untouched when unchanged); false after a diagnostic. */
static bool write_file(const char *path, const void *p, size_t n)
{
    Out *o = out_open(path);
    out_put(o, p, n);
    return out_commit(o, true);
}

/* The .rc: LANGUAGE and message table per culture, then the TEMP.BIN. */
static int write_rc(const Manifest *m, const Options *o, const char *path,
                    char *const *table_names, const char *wevt_name, TemplateFinder *tf)
{
    Buf text = {0}, bytes = {0};
    int status = 0;
    if (!rc_build(m, (const char *const *)table_names, wevt_name, tf, &text))
        status = 1;
    else if (!encode_text(o, path, &text, true, &bytes))
        status = 1;
    else if (!write_file(path, bytes.s, bytes.len))
        status = 2;
    buf_free(&text);
    buf_free(&bytes);
    return status;
}

static int worse(int a, int b) { return a > b ? a : b; }

/* A path in a Makefile rule: spaces and '#' escaped with '\\', '$' doubled. */
static void make_path(Buf *b, const char *p)
{
    for (; *p; p++) {
        if (*p == ' ' || *p == '#' || *p == '\\')
            buf_add(b, "\\", 1);
        if (*p == '$')
            buf_add(b, "$", 1);
        buf_add(b, p, 1);
    }
}

/* --depfile: "outputs: inputs" as make and ninja read it.  The inputs are
 * the manifest and the templates read from disk (--templates, --render);
 * the built-in templates and schema files are part of the binary. */
static bool write_depfile(const char *path, const Options *o, const char *const *outputs,
                          size_t n, const TemplateFinder *tf)
{
    Buf b = {0};
    for (size_t i = 0; i < n; i++) {
        if (i)
            buf_add(&b, " ", 1);
        make_path(&b, outputs[i]);
    }
    buf_add(&b, ":", 1);
    buf_add(&b, " ", 1);
    make_path(&b, o->input);
    for (size_t i = 0; i < tf->read.n; i++) {
        buf_add(&b, " ", 1);
        make_path(&b, tf->read.v[i]);
    }
    buf_add(&b, "\n", 1);
    bool ok = write_file(path, b.s, b.len);
    buf_free(&b);
    return ok;
}

/* Creates a directory and its parents as `mkdir -p` does; false after a
 * diagnostic. */
static bool ensure_dir(const char *dir)
{
    if (!dir || !*dir)
        return true;
    Buf p = {0};
    buf_add(&p, dir, strlen(dir));
    bool ok = true;
    for (size_t i = 1; ok && i <= p.len; i++) {
        if (i < p.len && p.s[i] != '/')
            continue;
        char c = p.s[i];
        p.s[i] = '\0';
        struct stat st;
        if (stat(p.s, &st) != 0 && mkdir(p.s, 0777) != 0 && errno != EEXIST) {
            diag_io("cannot create the directory '%s': %s", p.s, strerror(errno));
            ok = false;
        }
        p.s[i] = c;
    }
    buf_free(&p);
    return ok;
}

/* --validate: every input checked, all problems reported, nothing
 * written.  0: clean (warnings allowed), 1: errors, 2: an input could not
 * be read. */
static int validate_inputs(Options *o)
{
    for (size_t i = 0; i < o->inputs.n; i++) {
        Manifest *m = manifest_check_file(o->inputs.v[i]);
        if (m) {
            header_assign_symbols(m); /* the header's names: MCG8001 */
            manifest_free(m);
        }
    }
    int status = diag_io_count() ? 2 : diag_error_count() ? 1 : 0;
    vec_free(&o->inputs);
    arena_free(&o->arena);
    return status;
}

/* One run after the command line was read; the exit status. */
static int run(Options *o)
{
    if (o->help) {
        usage(stdout);
        return 0;
    }
    if (o->version) {
        puts("mcgen " MCGEN_VERSION);
        return 0;
    }
    if (o->check_wevt)
        return check_wevt(o->check_wevt, o->explain);
    if (o->verbose && o->ignored_schema)
        diag_plain(DIAG_NOTE, "-W/-w '%s' ignored: mcgen uses its built-in schema files",
                   o->ignored_schema);
    if (o->validate)
        return validate_inputs(o);
    /* mc's outputs unless only some were named (--json, --wevt, ...) */
    bool mc_outputs = !o->selected;
    Manifest *m = manifest_load_file(o->input);
    if (!m)
        return diag_io_count() ? 2 : 1;
    bool *has_table = xcalloc(m->cultures.n + 1, sizeof *has_table);
    for (size_t i = 0; i < m->cultures.n; i++)
        has_table[i] = msgtable_count(m, i) > 0;
    OutputNames names;
    cli_output_names(o, m->cultures.n, has_table, &names);
    const char *wevt_path = mc_outputs ? names.wevt : o->wevt;
    const char *rc_path = mc_outputs ? names.rc : o->rc;
    int status = 0;
    TemplateFinder finder;
    finder_init(&finder, o->templates_dir, NULL);
    /* every file this run writes, in the order it writes them */
    Buf *table_paths = xcalloc(m->cultures.n + 1, sizeof *table_paths);
    VEC(const char *) outputs = {0};
    if (mc_outputs)
        vec_push(&outputs, names.header);
    if (o->json)
        vec_push(&outputs, o->json);
    if (rc_path)
        vec_push(&outputs, rc_path);
    for (size_t i = 0; i < m->cultures.n; i++) {
        if (!has_table[i] || !(mc_outputs || o->tables_dir))
            continue;
        if (mc_outputs)
            buf_printf(&table_paths[i], "%s", names.tables[i]);
        else
            buf_printf(&table_paths[i], "%s/%s", o->tables_dir, names.table_names[i]);
        vec_push(&outputs, table_paths[i].s);
    }
    if (wevt_path)
        vec_push(&outputs, wevt_path);
    for (size_t i = 0; i < o->renders.n; i++)
        vec_push(&outputs, o->renders.v[i].output);
    if (o->print_outputs) {
        for (size_t i = 0; i < outputs.n; i++)
            puts(outputs.v[i]);
        goto done;
    }
    if (mc_outputs && (!ensure_dir(o->header_dir) || !ensure_dir(o->rc_dir))) {
        status = 2;
        goto done;
    }
    /* TEMP.BIN is built in a thread of its own while the other outputs are
     * made (wevt.c reads the model and writes only its own offset
     * annotations) */
    WevtJob job = {m, o->format, {0}};
    pthread_t wt;
    bool threaded = wevt_path && pthread_create(&wt, NULL, wevt_thread, &job) == 0;
    if (wevt_path && !threaded)
        wevt_thread(&job);
    /* every output is built in memory first: nothing is written when any
     * of them fails */
    Buf *rendered = xcalloc(o->renders.n + 1, sizeof *rendered);
    for (size_t i = 0; status == 0 && i < o->renders.n; i++)
        if (!render_user_template(m, o, o->renders.v[i].tmpl, &rendered[i], &finder))
            status = 1;
    Buf header = {0}, header_bytes = {0};
    if (mc_outputs && (!header_build(m, o, &finder, &header) ||
                       !encode_text(o, names.header, &header, false, &header_bytes)))
        status = 1;
    Buf *tables = xcalloc(m->cultures.n + 1, sizeof *tables);
    for (size_t i = 0; i < m->cultures.n; i++)
        if (has_table[i] && (mc_outputs || o->tables_dir) &&
            !msgtable_build(m, i, &o->tables, &tables[i]))
            status = 1;
    if (threaded)
        pthread_join(wt, NULL);
    /* a warning made an error by -Werror while building: nothing written */
    if (status == 0 && diag_error_count())
        status = 1;
    if (status == 0 && mc_outputs && !write_file(names.header, header_bytes.s, header_bytes.len))
        status = 2;
    buf_free(&header);
    buf_free(&header_bytes);
    if (status == 0 && o->json) {
        Out *out = out_open(o->json);
        json_write_model(m, out);
        if (!out_commit(out, true))
            status = 2;
    }
    if (status == 0 && rc_path) {
        /* the --wevt file is named by its own name in the .rc */
        const char *wname = names.wevt_name;
        if (!mc_outputs) {
            const char *slash = o->wevt ? strrchr(o->wevt, '/') : NULL;
            wname = o->wevt ? (slash ? slash + 1 : o->wevt) : NULL;
        }
        status = worse(status, write_rc(m, o, rc_path, names.table_names, wname, &finder));
    }
    for (size_t i = 0; status == 0 && i < m->cultures.n; i++)
        if (table_paths[i].s && !write_file(table_paths[i].s, tables[i].s, tables[i].len))
            status = 2;
    if (status == 0 && wevt_path && !write_file(wevt_path, job.bin.s, job.bin.len))
        status = 2;
    for (size_t i = 0; i < o->renders.n; i++) {
        if (status == 0 && !write_file(o->renders.v[i].output, rendered[i].s, rendered[i].len))
            status = 2;
        buf_free(&rendered[i]);
    }
    free(rendered);
    if (status == 0 && o->depfile &&
        !write_depfile(o->depfile, o, outputs.v, outputs.n, &finder))
        status = 2;
    buf_free(&job.bin);
    for (size_t i = 0; i < m->cultures.n; i++)
        buf_free(&tables[i]);
    free(tables);
done:
    finder_free(&finder);
    vec_free(&o->renders);
    vec_free(&o->inputs);
    arena_free(&o->arena);
    for (size_t i = 0; i < m->cultures.n; i++)
        buf_free(&table_paths[i]);
    free(table_paths);
    vec_free(&outputs);
    cli_output_names_free(&names);
    free(has_table);
    /* The process is about to end and take the model with it; freeing a
     * large model costs time for nothing.  Sanitizer builds free it so that
     * LeakSanitizer can check that everything is reachable and freed. */
#if defined(__SANITIZE_ADDRESS__) || defined(MCGEN_FREE_AT_EXIT)
    manifest_free(m);
#endif
    return o->print_outputs ? 0 : status;
}

/* --diagnostics-format=json|sarif: the document, on standard output or in
 * the --diagnostics-output file.  Problems writing it are printed as text. */
static int write_diagnostics(const Options *o)
{
    DiagFormat f = diag_format();
    diag_set_format(DIAG_FORMAT_GCC);
    Buf doc = {0};
    if (f == DIAG_FORMAT_JSON)
        diag_write_json(&doc);
    else
        diag_write_sarif(&doc, MCGEN_VERSION);
    int status = 0;
    if (o->diag_output) {
        if (!write_file(o->diag_output, doc.s, doc.len))
            status = 2;
    } else if (fwrite(doc.s, 1, doc.len, stdout) != doc.len || fflush(stdout) != 0) {
        diag_io("cannot write the diagnostics to standard output: %s", strerror(errno));
        status = 2;
    }
    buf_free(&doc);
    return status;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    Options o;
    int status = cli_parse(argc, argv, &o);
    bool told = status < 0 && (o.help || o.version);
    if (status < 0)
        status = run(&o);
    if (diag_format() != DIAG_FORMAT_GCC && !told)
        status = worse(status, write_diagnostics(&o));
    /* run() frees these on its usual paths; the early returns leave them */
    vec_free(&o.inputs);
    vec_free(&o.renders);
    arena_free(&o.arena);
    diag_reset();
    return status;
}
