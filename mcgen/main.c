/*
 * main.c - the driver, which is the pipeline: the command line (cli.c);
 * each input read by the reader that recognises it (read.c) and checked
 * (check.c); then every output that the emitter table (emit.c) says this
 * run writes, built, and committed together only when the run has no
 * error (out.c).  --validate stops after the check: the verdict is the
 * same as a compile's.  Exit status: 0 success, 1 errors in the input,
 * 2 usage or I/O problems.  With --diagnostics-format=json or sarif the
 * diagnostics document is written last, after any run.
 */
#include "mcgen.h"
#include "os.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* AddressSanitizer builds free the model at the end of a run, so that
 * LeakSanitizer sees it freed (see compile).  gcc announces ASan with
 * __SANITIZE_ADDRESS__, clang only through __has_feature. */
#if defined(__SANITIZE_ADDRESS__)
#define MCGEN_FREE_AT_EXIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MCGEN_FREE_AT_EXIT 1
#endif
#endif

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

static int worse(int a, int b) { return a > b ? a : b; }

typedef VEC(char *) Dirs;

/* A path in a Makefile rule, as GNU make and ninja both read it (checked
 * with make 4.3 and ninja 1.11): ' ', '#' and ':' after a backslash, '$'
 * doubled, any other byte as it is.  A control character (a newline ends
 * the rule), or a backslash before a space, '#', ':' or the path's end (the two
 * read it differently) has no spelling: false, after a usage error. */
static bool make_path(Buf *b, const char *p)
{
    for (const char *s = p; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7F || (c == '\\' && strchr(" #:", s[1]))) { /* s[1] == 0 too */
            Buf shown = {0};
            buf_add_shown(&shown, p);
            diag_plain(DIAG_ERROR,
                       c == '\\' ? "--depfile cannot name '%s': make and ninja read a '\\' "
                                   "before a space, '#', ':' or the end differently"
                                   : "--depfile cannot name '%s': a control character has no "
                                     "spelling in a Makefile rule",
                       shown.s);
            buf_free(&shown);
            return false;
        }
        if (c == ' ' || c == '#' || c == ':')
            buf_addc(b, '\\');
        if (c == '$')
            buf_addc(b, '$');
        buf_addc(b, (char)c);
    }
    return true;
}

/* Creates a directory and its parents as `mkdir -p` does, adding the
 * ones it made to `made` (so that a failed run can take them away again);
 * false after a diagnostic. */
static bool ensure_dir(const char *dir, Dirs *made)
{
    if (!dir || !*dir)
        return true;
    Buf p = {0};
    buf_add(&p, dir, strlen(dir));
    bool ok = true;
    size_t root = os_root_len(p.s);
    for (size_t i = root ? root : 1; ok && i <= p.len; i++) {
        if (i < p.len && !os_is_sep(p.s[i]))
            continue;
        char c = p.s[i];
        p.s[i] = '\0';
        OsStat st;
        if (!os_stat(p.s, &st)) {
            if (os_mkdir(p.s))
                vec_push(made, xstrdup(p.s));
            else if (errno != EEXIST) {
                diag_io("cannot create the directory '%s': %s", p.s, strerror(errno));
                ok = false;
            }
        }
        p.s[i] = c;
    }
    buf_free(&p);
    return ok;
}

/* After a failed run: the directories it made, deepest first (rmdir
 * leaves any that is not empty). */
static void remove_dirs(Dirs *made, bool remove)
{
    for (size_t i = made->n; i-- > 0;) {
        if (remove)
            os_rmdir(made->v[i]);
        free(made->v[i]);
    }
    vec_free(made);
}

/* read -> check: the checked manifest and its facts, or NULL after the
 * diagnostics. */
static Manifest *read_and_check(const char *path, const Options *o, Facts *f)
{
    Manifest *m = read_input(path, o);
    if (m && !check_manifest(m, o, f)) {
        manifest_free(m);
        m = NULL;
    }
    return m;
}

static int verdict(void) { return diag_io_count() ? 2 : diag_error_count() ? 1 : 0; }

/* mc's outputs are written unless outputs were named without
 * --mc-outputs. */
static bool writes_mc_outputs(const Options *o) { return !o->selected || o->mc_outputs; }

/* A run refused by check_paths: its diagnostics document goes to
 * standard output, as the document's own file may be the one refused. */
static bool paths_refused;

/* No output may name an input or another output (out_check_paths): the
 * files listed (NULL: none), the depfile and the diagnostics document;
 * false after a usage diagnostic. */
static bool check_paths(const Options *o, const OutputList *files)
{
    VEC(const char *) in = {0}, out = {0};
    for (size_t i = 0; i < o->inputs.n; i++)
        vec_push(&in, o->inputs.v[i]);
    for (size_t i = 0; i < o->renders.n; i++)
        vec_push(&in, o->renders.v[i].tmpl);
    for (size_t i = 0; files && i < files->files.n; i++)
        vec_push(&out, files->files.v[i].path);
    if (o->depfile)
        vec_push(&out, o->depfile);
    if (diag_format() != DIAG_FORMAT_GCC)
        vec_push(&out, o->diag_output ? o->diag_output : "-");
    bool ok = out_check_paths(in.v, in.n, out.v, out.n);
    paths_refused = !ok;
    vec_free(&in);
    vec_free(&out);
    return ok;
}

/* Before anything is read: every file but the message tables, which wait
 * for the cultures (the rows list their files from the options alone). */
static bool check_paths_early(const Options *o)
{
    /* the rows ask only whether there is a manifest and a .mc */
    static const Manifest some = {0};
    const char *man = NULL, *mc = NULL;
    for (size_t i = 0; i < o->inputs.n; i++)
        *(cli_is_mc(o->inputs.v[i]) ? &mc : &man) = o->inputs.v[i];
    EmitCtx c = {.m = man ? &some : NULL, .mc = mc ? &some : NULL, .o = o,
                 .mc_outputs = writes_mc_outputs(o)};
    cli_output_names(o, man, mc, 0, NULL, &c.names);
    OutputList files = {0};
    emit_outputs(&c, &files);
    bool ok = check_paths(o, &files);
    output_list_free(&files);
    cli_output_names_free(&c.names);
    return ok;
}

/* What a batch keeps of one manifest's arenas for the next: the model of
 * a manifest of a few MB (a larger one's blocks beyond it are freed). */
#define BATCH_POOL ((size_t)16 << 20)

/* --validate: every input read and checked, all problems reported,
 * nothing written. */
static int validate(const Options *o)
{
    if (!check_paths(o, NULL))
        return 2;
    /* one manifest and one .mc: also what compiling them together checks */
    size_t nmc = 0;
    for (size_t i = 0; i < o->inputs.n; i++)
        nmc += cli_is_mc(o->inputs.v[i]);
    bool pair = o->inputs.n == 2 && nmc == 1;
    Manifest *kept[2] = {NULL, NULL};
    /* a batch: each manifest's arena blocks serve the next one */
    if (o->inputs.n > 1)
        arena_pool_keep(BATCH_POOL);
    for (size_t i = 0; i < o->inputs.n; i++) {
        Facts f = {0};
        Manifest *m = read_and_check(o->inputs.v[i], o, &f);
        if (pair)
            kept[i] = m;
        else
            manifest_free(m);
        facts_free(&f);
    }
    if (kept[0] && kept[1]) {
        bool first_mc = kept[0]->mc != NULL;
        check_mc_with_manifest(kept[first_mc], kept[!first_mc]);
    }
    manifest_free(kept[0]);
    manifest_free(kept[1]);
    arena_pool_keep(0);
    return verdict();
}

/* --depfile: "outputs: inputs" as make and ninja read it.  The inputs are
 * the manifest and the templates read from disk (--templates, --render);
 * the built-in templates and schema files are part of the binary.  false
 * (a usage error) when a path cannot be written there. */
static bool depfile(const Options *o, const OutputList *l, const TemplateFinder *tf, Out *out)
{
    Buf b = {0};
    bool ok = true;
    for (size_t i = 0; i < l->files.n; i++) {
        /* standard output, a device, a FIFO: nothing make can date */
        if (!out_is_file(l->files.v[i].path))
            continue;
        if (b.len)
            buf_add(&b, " ", 1);
        ok &= make_path(&b, l->files.v[i].path);
    }
    buf_add(&b, ":", 1);
    for (size_t i = 0; i < o->inputs.n; i++) {
        buf_add(&b, " ", 1);
        ok &= make_path(&b, o->inputs.v[i]);
    }
    for (size_t i = 0; i < tf->read.n; i++) {
        buf_add(&b, " ", 1);
        ok &= make_path(&b, tf->read.v[i]);
    }
    buf_add(&b, "\n", 1);
    if (ok)
        out_put(out, b.s, b.len);
    buf_free(&b);
    return ok;
}

/* Switches that shape mc's outputs, given for a run that writes none. */
static void warn_unused(const Options *o, bool mc_outputs)
{
    if (mc_outputs)
        return;
    const char *unused[7];
    size_t n = 0;
    if (o->header_dir)
        unused[n++] = "-h";
    if (o->rc_dir)
        unused[n++] = "-r";
    if (o->base)
        unused[n++] = "-z";
    if (o->input_base)
        unused[n++] = "-b";
    if (o->header_ext && strcmp(o->header_ext, "h") != 0)
        unused[n++] = "-e";
    if (o->mode != HEADER_DESCRIPTORS && !o->renders.n)
        unused[n++] = o->mode == HEADER_KM ? "-km" : "-um";
    if (o->cs_namespace)
        unused[n++] = o->cs_static ? "-css" : "-cs";
    for (size_t i = 0; i < n; i++)
        diag_plain(DIAG_WARNING,
                   "%s has no effect: only the outputs named are written (--mc-outputs writes "
                   "mc's too)",
                   unused[i]);
}

/* The message tables of a run, by their names without .bin: a .mc's
 * languages that have texts (LanguageNames' file names), else the
 * manifest's cultures that have messages (MSG00001, MSG00002, ...). */
static size_t table_names(const Manifest *man, const Manifest *mc, bool tables, char ***out)
{
    size_t n = mc ? mc->mc->languages.n : man->cultures.n;
    char **names = xcalloc(n + 1, sizeof *names);
    for (size_t i = 0; tables && i < n; i++) {
        if (mc && mc_language_used(mc->mc, mc->mc->languages.v[i]))
            names[i] = xstrdup(mc->mc->languages.v[i]->file);
        else if (!mc && msgtable_any(man, i)) {
            Buf b = {0};
            buf_printf(&b, "MSG%05zX", i + 1);
            names[i] = b.s;
        }
    }
    *out = names;
    return n;
}

/* read -> check -> emit -> commit: a manifest, a .mc file, or one of
 * each (mc's outputs of both; the .rc and the tables are the .mc's). */
static int compile(const Options *o)
{
    if (!check_paths_early(o))
        return 2;
    Facts facts = {0};
    Manifest *m = NULL, *mc = NULL;
    const char *man_path = NULL, *mc_path = NULL;
    bool read_ok = true;
    for (size_t i = 0; i < o->inputs.n; i++) {
        const char *path = o->inputs.v[i];
        Manifest *got = read_and_check(path, o, cli_is_mc(path) ? NULL : &facts);
        read_ok &= got != NULL;
        if (got && got->mc)
            mc = got, mc_path = path;
        else if (got)
            m = got, man_path = path;
    }
    if (read_ok && m && mc && !check_mc_with_manifest(m, mc))
        read_ok = false;
    if (!read_ok) {
        manifest_free(m);
        manifest_free(mc);
        facts_free(&facts);
        return verdict();
    }
    EmitCtx c = {.m = m, .mc = mc, .facts = &facts, .o = o, .mc_outputs = writes_mc_outputs(o)};
    warn_unused(o, c.mc_outputs);
    TemplateFinder finder;
    finder_init(&finder, o->templates_dir, NULL);
    finder.limits = o->template_limits;
    c.tf = &finder;
    /* which tables there are: only the rows that name them ask (counting
     * a manifest's means collecting every message) */
    char **tables;
    size_t ntables = table_names(m, mc, c.mc_outputs || o->tables_dir || o->rc, &tables);
    cli_output_names(o, man_path, mc_path, ntables, (const char *const *)tables, &c.names);
    for (size_t i = 0; i < ntables; i++)
        free(tables[i]);
    free(tables);
    OutputList files = {0};
    emit_outputs(&c, &files);
    int status = 0;
    Dirs made = {0};
    if (!check_paths(o, &files)) {
        status = 2;
    } else if (o->print_outputs) {
        for (size_t i = 0; i < files.files.n; i++)
            puts(files.files.v[i].path);
    } else if (c.mc_outputs &&
               (!ensure_dir(o->header_dir, &made) || !ensure_dir(o->rc_dir, &made) ||
                (mc && !ensure_dir(o->dbg_dir, &made)))) {
        status = 2;
    } else {
        /* every file built into one set before any is committed */
        OutSet *set = outset_new();
        for (size_t i = 0; i < files.files.n; i++) {
            const OutputFile *f = &files.files.v[i];
            if (!f->by->build(&c, f->part, f->path, outset_open(set, f->path)))
                status = 1;
        }
        if (o->depfile && !depfile(o, &files, &finder, outset_open(set, o->depfile)))
            status = 2;
        /* an output that could not be written, or a warning made an error
         * by -Werror while building */
        if (status == 0)
            status = verdict();
        /* all or, after an error, none (outset_commit(s, false) discards) */
        if (!outset_commit(set, status == 0) && status == 0)
            status = 2;
    }
    remove_dirs(&made, status != 0);
    output_list_free(&files);
    cli_output_names_free(&c.names);
    finder_free(&finder);
    facts_free(&facts);
    /* The process is about to end and take the model with it; freeing a
     * large model costs time for nothing.  Sanitizer builds free it so that
     * LeakSanitizer can check that everything is reachable and freed. */
#ifdef MCGEN_FREE_AT_EXIT
    manifest_free(m);
    manifest_free(mc);
#endif
    return status;
}

/* The binaries named, read into one image; false after a diagnostic. */
static bool read_binaries(const Options *o, BinImage *img)
{
    for (size_t i = 0; i < o->inputs.n; i++) {
        Buf err = {0};
        bool ok = read_binary(o->inputs.v[i], img, &err);
        if (!ok)
            diag_plain(DIAG_ERROR, "%s", err.s);
        buf_free(&err);
        if (!ok)
            return false;
    }
    return true;
}

/* --dump: 0 when every binary reads cleanly, 1 when one does not. */
static int dump(const Options *o)
{
    BinImage img = {0};
    bool ok = read_binaries(o, &img);
    if (ok) {
        Buf out = {0};
        dump_write(&img, o->dump_json, &out);
        if (fwrite(out.s, 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
            diag_io("cannot write to standard output: %s", strerror(errno));
            ok = false;
        }
        buf_free(&out);
    }
    bin_free(&img);
    return ok ? 0 : 1;
}

/* --decompile: the manifest, to -o's file or standard output, committed
 * only when every binary read cleanly. */
static int decompile(const Options *o)
{
    BinImage img = {0};
    bool ok = read_binaries(o, &img);
    /* the module the manifest's resources live in: a PE input's name */
    const char *file = "app.dll";
    for (size_t i = 0; i < o->inputs.n; i++) {
        const char *in = o->inputs.v[i], *base = in;
        for (const char *c = in; *c; c++)
            if (os_is_sep(*c))
                base = c + 1;
        size_t n = strlen(base);
        static const char *ext[] = {".dll", ".exe", ".sys"};
        for (int k = 0; k < 3; k++)
            if (n > 4 && strcasecmp(base + n - 4, ext[k]) == 0 && strcmp(file, "app.dll") == 0)
                file = base;
    }
    Buf man = {0}, err = {0};
    if (ok && !decompile_write(&img, file, &man, &err)) {
        diag_plain(DIAG_ERROR, "%s", err.s);
        ok = false;
    }
    int status = ok ? 0 : 1;
    if (ok) {
        OutSet *set = outset_new();
        out_put(outset_open(set, o->output ? o->output : "-"), man.s, man.len);
        if (!outset_commit(set, true))
            status = 2;
    }
    buf_free(&man);
    buf_free(&err);
    bin_free(&img);
    return status;
}

/* One run after the command line was read; the exit status. */
static int run(const Options *o)
{
    if (o->help) {
        cli_usage(stdout);
        return 0;
    }
    if (o->version) {
        /* the first line's second word is the version (SARIF's tool
         * version); the formats as --mc-compat names them (cli.c) */
        printf("mcgen %s\n"
               "commit %s\n"
               "MIT licence: free software, see LICENSE; no warranty\n"
               "writes the outputs of mc.exe:\n"
               "  manifests: WEVT_TEMPLATE CRIM 5.1 as mc 10.0.18362 and later (current),\n"
               "    CRIM 3.1 as mc 10.0.15063, and as mc 8.1 (MD5 template ids)\n"
               "  .mc files: today's mc (current), 10.0.18362 (2020), 10.0.15063 (2017),\n"
               "    2005, 1998\n",
               mcgen_version, mcgen_commit);
        return 0;
    }
    if (o->check_wevt)
        return check_wevt(o->check_wevt, o->explain);
    if (o->dump)
        return dump(o);
    if (o->decompile)
        return decompile(o);
    if (o->verbose && o->ignored_schema)
        diag_plain(DIAG_NOTE, "-W/-w '%s' ignored: mcgen uses its built-in schema files",
                   o->ignored_schema);
    return o->validate ? validate(o) : compile(o);
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
        diag_write_sarif(&doc, mcgen_version);
    int status = 0;
    if (o->diag_output && !paths_refused) {
        OutSet *set = outset_new();
        out_put(outset_open(set, o->diag_output), doc.s, doc.len);
        if (!outset_commit(set, true))
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
    util_tune_heap();
    os_init(&argc, &argv);
    if (argc < 2) {
        cli_usage(stderr);
        return 2;
    }
    Options o;
    int status = cli_parse(argc, argv, &o);
    bool told = status < 0 && (o.help || o.version);
    if (status < 0)
        status = run(&o);
    if (status == 1 && diag_io_count()) /* a template's or the system's problem */
        status = 2;
    diag_summary();
    if (diag_format() != DIAG_FORMAT_GCC && !told)
        status = worse(status, write_diagnostics(&o));
    vec_free(&o.inputs);
    vec_free(&o.renders);
    vec_free(&o.emitter_args);
    arena_free(&o.arena);
    diag_reset();
    return status;
}
