/*
 * emit.c - the emitter table: every output mcgen writes is a row (a name,
 * the files it writes in this run, and how to build one of them).  The
 * driver (main.c) asks every row for its files, which gives
 * --print-outputs and --depfile, then builds each file into an Out and
 * commits them all only when the run had no error.
 *
 * A row takes the checked manifest, its facts and the options, all const:
 * emitters change nothing and diagnose nothing about the manifest (the
 * check stage did that); what can still fail here is the environment (a
 * template file, a disk) and the text encoding asked for with -cp.
 *
 * Adding an output is a file with its build function and one row below.
 */
#include "mcgen.h"
#include "os.h"

#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---- text outputs ---- */

/* A text output on its way out, in the encoding and line endings asked
 * for (-cp, --line-endings): UTF-8 with LF or CRLF line ends goes in, piece
 * by piece, and each piece is converted and put into the Out at once, so
 * no whole copy of the text is held (a header is rendered straight into
 * it: TmplSink).  A piece ends at a line end or where the text ends (what
 * tmpl_render_to hands on), so no CR LF pair and no UTF-8 character is
 * split between two.  mc writes the .rc in UTF-16 when UTF-8 is asked for,
 * as rc.exe cannot read UTF-8.  A character the ANSI code page has no
 * place for is an error (one diagnostic; the run then writes nothing),
 * unless `lossy` (a .mc header or .dbg: '?' for it, as mc writes). */
typedef struct TextOut {
    const Options *o;
    const char *path;
    Out *out;
    TextEncoding enc;
    bool lossy;
    bool begun; /* the byte-order mark is out */
    bool ok;
    Buf lines, bytes; /* one piece's, reused */
} TextOut;

static void text_begin(TextOut *t, const EmitCtx *c, const char *path, bool rc, bool lossy,
                       Out *out)
{
    TextEncoding enc = c->o->encoding;
    *t = (TextOut){c->o, path, out, enc == ENC_UTF8 && rc ? ENC_UTF16 : enc, lossy, false, true,
                   {0}, {0}};
}

/* The byte-order mark of UTF-8 and UTF-16 (even before an empty text). */
static void text_bom(TextOut *t)
{
    if (t->begun)
        return;
    t->begun = true;
    if (t->enc == ENC_UTF8)
        out_put(t->out, "\xEF\xBB\xBF", 3);
    else if (t->enc == ENC_UTF16)
        out_put(t->out, "\xFF\xFE", 2);
}

/* Windows-1252 of UTF-8 text, '?' for each character it has none for. */
static void cp1252_lossy(Buf *out, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t bad = utf8_to_cp1252(out, s + i, n - i);
        if (bad == SIZE_MAX)
            return;
        uint32_t ch;
        i += bad + utf8_get(s + i + bad, n - i - bad, &ch);
        buf_addc(out, '?');
    }
}

/* The piece s..n in lines with every line end written as asked (a CR
 * LF in the text is one line end), in one pass that also ORs every byte
 * into *high (a byte with its high bit set: not ASCII).  16 bytes at a
 * time, 64 bytes an iteration, are copied, ORed and searched for LF at
 * once (a header is tens of megabytes of lines of about 100 bytes:
 * memchr and memcpy per line and a second pass for the ASCII test cost
 * twice the instructions). */
static void text_lines(Buf *lines, const char *s, size_t n, bool lf, uint64_t *high)
{
    /* at most twice the piece (every byte a LF made CR LF), room made
     * once; a block's 64-byte store stays inside it, since a block is
     * only stored while 64 bytes of the piece are left */
    lines->len = 0;
    buf_grow(lines, 2 * n);
    char *q = lines->s;
    const char *p = s, *line = s, *end = s + n;
    uint64_t h = 0;
#if defined(__SSE2__)
    __m128i acc = _mm_setzero_si128(), nlv = _mm_set1_epi8('\n');
    while (end - p >= 64) {
        const __m128i *in = (const __m128i *)(const void *)p;
        __m128i *to = (__m128i *)(void *)q;
        __m128i v0 = _mm_loadu_si128(in), v1 = _mm_loadu_si128(in + 1);
        __m128i v2 = _mm_loadu_si128(in + 2), v3 = _mm_loadu_si128(in + 3);
        _mm_storeu_si128(to, v0);
        _mm_storeu_si128(to + 1, v1);
        _mm_storeu_si128(to + 2, v2);
        _mm_storeu_si128(to + 3, v3);
        acc = _mm_or_si128(acc, _mm_or_si128(_mm_or_si128(v0, v1), _mm_or_si128(v2, v3)));
        uint64_t m = (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v0, nlv)) |
                     (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v1, nlv)) << 16 |
                     (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v2, nlv)) << 32 |
                     (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v3, nlv)) << 48;
        if (!m) {
            p += 64;
            q += 64;
            continue;
        }
        int j = __builtin_ctzll(m);
        const char *nl = p + j;
        q += j;
        if (nl > line && nl[-1] == '\r')
            q--; /* CR LF in the text: one line end */
        if (!lf)
            *q++ = '\r';
        *q++ = '\n';
        p = line = nl + 1;
    }
    if (_mm_movemask_epi8(acc))
        h = 0x80;
#endif
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *stop = nl ? nl : end;
        size_t k = (size_t)(stop - p);
        for (size_t i = 0; i < k; i++)
            h |= (unsigned char)p[i];
        memcpy(q, p, k);
        q += k;
        if (!nl)
            break;
        if (nl > line && nl[-1] == '\r')
            q--;
        if (!lf)
            *q++ = '\r';
        *q++ = '\n';
        p = line = nl + 1;
    }
    lines->len = (size_t)(q - lines->s);
    lines->s[lines->len] = '\0';
    *high = h;
}

/* Whether the n bytes at s are all ASCII (64 at a time). */
static bool text_ascii(const char *s, size_t n)
{
    size_t i = 0;
    unsigned char h = 0;
#if defined(__SSE2__)
    __m128i acc = _mm_setzero_si128();
    for (; i + 64 <= n; i += 64) {
        const __m128i *in = (const __m128i *)(const void *)(s + i);
        acc = _mm_or_si128(acc, _mm_or_si128(_mm_or_si128(_mm_loadu_si128(in), _mm_loadu_si128(in + 1)),
                                             _mm_or_si128(_mm_loadu_si128(in + 2), _mm_loadu_si128(in + 3))));
    }
    if (_mm_movemask_epi8(acc))
        return false;
#endif
    for (; i < n; i++)
        h |= (unsigned char)s[i];
    return !(h & 0x80);
}

/* A piece whose line ends are as asked already, into the code page. */
static void text_code(TextOut *t, const Buf *lines, bool ascii)
{
    Buf *bytes = &t->bytes;
    bytes->len = 0;
    const Buf *put = bytes;
    if (t->enc == ENC_UTF8) {
        put = lines;
    } else if (t->enc == ENC_UTF16) {
        utf8_to_utf16le(bytes, lines->s, lines->len);
    } else {
        if (ascii) {
            put = lines; /* ASCII is its own Windows-1252 */
        } else if (t->lossy) {
            /* a .mc header shows the messages' texts: what the code page
             * has no character for becomes '?', as mc's conversion makes
             * it (check_mc warned: MCG5113) */
            cp1252_lossy(bytes, lines->s, lines->len);
        } else if (utf8_to_cp1252(bytes, lines->s, lines->len) != SIZE_MAX) {
            diag_plain(DIAG_ERROR,
                       "%s: a character cannot be written in the ANSI code page "
                       "(Windows-1252); use -cp utf-8 or -cp utf-16",
                       t->path);
            t->ok = false;
            return;
        }
    }
    out_put(t->out, put->s, put->len);
}

/* One piece (a TmplSink's write). */
static void text_put(void *ctx, const char *s, size_t n)
{
    TextOut *t = ctx;
    if (!t->ok || !n)
        return;
    text_bom(t);
    uint64_t high;
    text_lines(&t->lines, s, n, t->o->lf, &high);
    text_code(t, &t->lines, !(high & 0x80));
}

/* One piece with its line ends written as asked by its maker (the
 * built-in header writer's): no pass over it for them; `ascii`: its maker
 * knows it to be ASCII, so no pass for the code page either. */
static void text_put_made(TextOut *t, const char *s, size_t n, bool ascii)
{
    if (!t->ok || !n)
        return;
    text_bom(t);
    Buf piece = {(char *)s, n, n}; /* read only */
    text_code(t, &piece, ascii || (t->enc == ENC_ANSI && text_ascii(s, n)));
}
static void text_put_lines(void *ctx, const char *s, size_t n) { text_put_made(ctx, s, n, false); }
static void text_put_ascii(void *ctx, const char *s, size_t n) { text_put_made(ctx, s, n, true); }

/* false when a piece could not be written (after its diagnostic). */
static bool text_end(TextOut *t)
{
    if (t->ok)
        text_bom(t);
    buf_free(&t->lines);
    buf_free(&t->bytes);
    return t->ok;
}

/* A whole text made in memory (the small outputs), as one piece. */
static bool put_text(const EmitCtx *c, const char *path, const Buf *text, bool rc, bool lossy,
                     Out *out)
{
    TextOut t;
    text_begin(&t, c, path, rc, lossy, out);
    text_put(&t, text->s, text->len);
    return text_end(&t);
}

/* ---- mc's outputs ---- */

static bool linux_backends(const EmitCtx *c);

/* Part 0: the manifest's header; part 1: the .mc's (mc writes both when
 * given both). */
static void header_files(const EmitCtx *c, OutputList *l)
{
    if (c->mc_outputs && c->names.header)
        output_add(l, c->names.header, 0);
    if (c->mc_outputs && c->names.mc_header)
        output_add(l, c->names.mc_header, 1);
}

static bool header_file(const EmitCtx *c, size_t part, const char *path, Out *out)
{
    if (part == 0) { /* rendered straight into the file: the largest output */
        TextOut t;
        text_begin(&t, c, path, false, false, out);
        TmplSink sink = {&t, text_put}, lines[2] = {{&t, text_put_lines}, {&t, text_put_ascii}};
        /* --backends=...,lttng: the ETW header inside #if defined(_WIN32),
         * the Linux branch after it (emit_linux.c) */
        bool wrap = linux_backends(c);
        bool ok = (!wrap || linux_build(c, LINUX_BEGIN, &sink)) &&
                  header_build(c->m, c->facts, c->o, c->tf, &sink, lines) &&
                  (!wrap || linux_build(c, LINUX_END, &sink));
        return text_end(&t) && ok;
    }
    Buf text = {0};
    bool ok = mc_header_build(c->mc, c->o, c->tf, &text) &&
              put_text(c, path, &text, false, true, out);
    buf_free(&text);
    return ok;
}

/* Whether the header has a Linux branch (--backends names one). */
static bool linux_backends(const EmitCtx *c)
{
    return c->m && (c->o->backends & ~(unsigned)BACKEND_ETW);
}

/* LTTng's tracepoint provider (BASE_lttng.h, part 0) and the unit that
 * defines its probes (BASE_lttng.c, part 1), beside a -um header. */
static void lttng_files(const EmitCtx *c, OutputList *l)
{
    if (!c->mc_outputs || !c->names.header || !c->m || c->o->mode != HEADER_UM ||
        !(c->o->backends & BACKEND_LTTNG))
        return;
    output_add(l, linux_lttng_path(&l->arena, c->names.header, false), 0);
    output_add(l, linux_lttng_path(&l->arena, c->names.header, true), 1);
}

static bool lttng_file(const EmitCtx *c, size_t part, const char *path, Out *out)
{
    TextOut t;
    text_begin(&t, c, path, false, false, out);
    TmplSink sink = {&t, text_put};
    bool ok = linux_build(c, part ? LINUX_LTTNG_SOURCE : LINUX_LTTNG_HEADER, &sink);
    return text_end(&t) && ok;
}

/* mc's outputs are part 0 of their rows, the ones named by --rc, --wevt
 * and --message-tables the next part (the same run may ask for both). */
enum { MC_PART, NAMED_PART };

static void rc_files(const EmitCtx *c, OutputList *l)
{
    if (c->mc_outputs)
        output_add(l, c->names.rc, MC_PART);
    if (c->o->rc)
        output_add(l, c->o->rc, NAMED_PART);
}

static bool rc_file(const EmitCtx *c, size_t part, const char *path, Out *out)
{
    /* a --wevt file is named by its own name in a --rc script */
    const char *wname = c->names.wevt_name;
    if (part == NAMED_PART) {
        const char *w = c->o->wevt, *slash = w ? os_last_sep(w) : NULL;
        wname = w ? (slash ? slash + 1 : w) : NULL;
    }
    /* the tables: a .mc's languages in declaration order (mc up to 2020:
     * the reverse), or the manifest's cultures */
    size_t n = c->names.ntables, nt = 0;
    RcTable *t = xcalloc(n + 1, sizeof *t);
    if (!c->mc) {
        nt = rc_manifest_tables(c->m, (const char *const *)c->names.table_names, t);
    } else {
        for (size_t i = 0; i < n; i++) {
            size_t k = c->o->era != MC_CURRENT ? n - 1 - i : i;
            if (c->names.table_names[k])
                t[nt++] = (RcTable){c->mc->mc->languages.v[k]->langid, c->names.table_names[k]};
        }
    }
    bool quoted = !(c->mc && c->o->era >= MC_2005);
    if (!c->m || !c->m->providers.n)
        wname = NULL;
    Buf text = {0};
    bool ok = rc_build(t, nt, wname, quoted, c->tf, &text) &&
              put_text(c, path, &text, true, false, out);
    buf_free(&text);
    free(t);
    return ok;
}

/* One message table per culture that has messages: MSG00001.bin, ...;
 * part: the culture, plus the number of cultures for --message-tables. */
static void table_files(const EmitCtx *c, OutputList *l)
{
    size_t n = c->names.ntables;
    for (size_t i = 0; i < n; i++)
        if (c->names.tables[i] && c->mc_outputs)
            output_add(l, c->names.tables[i], i);
    for (size_t i = 0; i < n; i++)
        if (c->names.tables[i] && c->o->tables_dir)
            output_add(l, output_path(l, c->o->tables_dir, c->names.table_names[i]), n + i);
}

static bool table_file(const EmitCtx *c, size_t part, const char *path, Out *out)
{
    (void)path;
    size_t k = part % c->names.ntables;
    if (c->mc)
        msgtable_write_mc(c->mc, c->mc->mc->languages.v[k], c->m, &c->o->tables, out);
    else
        msgtable_write(c->m, k, &c->o->tables, out);
    return true;
}

static void wevt_files(const EmitCtx *c, OutputList *l)
{
    if (!c->m)
        return;
    if (c->mc_outputs)
        output_add(l, c->names.wevt, MC_PART);
    if (c->o->wevt)
        output_add(l, c->o->wevt, NAMED_PART);
}

static bool wevt_file(const EmitCtx *c, size_t part, const char *path, Out *out)
{
    (void)part, (void)path;
    wevt_write(c->m, c->o->format, out);
    return true;
}

/* ---- mcgen's own ---- */

static void json_files(const EmitCtx *c, OutputList *l)
{
    if (c->o->json && c->m)
        output_add(l, c->o->json, 0);
}

static bool json_file(const EmitCtx *c, size_t part, const char *path, Out *out)
{
    (void)part, (void)path;
    json_write_model(c->m, out);
    return true;
}

static void render_files(const EmitCtx *c, OutputList *l)
{
    for (size_t i = 0; c->m && i < c->o->renders.n; i++)
        output_add(l, c->o->renders.v[i].output, i);
}

static void out_sink_write(void *out, const char *s, size_t n) { out_put(out, s, n); }

/* A render's output is the template's bytes as they come, unless
 * --line-endings or -cp is given: then it is a text output as the others
 * are, its line ends --line-endings' (CR LF unless lf), in -cp's encoding
 * (UTF-8 without a byte-order mark, as written, when only --line-endings
 * is given: a template's text need not fit the ANSI code page).  A failed
 * render's partial text goes nowhere, as the run fails. */
static bool render_file(const EmitCtx *c, size_t job, const char *path, Out *out)
{
    TmplSink sink = {out, out_sink_write};
    const char *tmpl = c->o->renders.v[job].tmpl;
    if (!c->o->line_endings_given && !c->o->encoding_given)
        return render_user_template(c->m, c->facts, c->o, tmpl, &sink, c->tf);
    TextOut t;
    text_begin(&t, c, path, false, false, out);
    if (!c->o->encoding_given)
        t.enc = ENC_UTF8, t.begun = true; /* no byte-order mark */
    sink = (TmplSink){&t, text_put};
    bool ok = render_user_template(c->m, c->facts, c->o, tmpl, &sink, c->tf);
    return text_end(&t) && ok;
}

/* mc -cs/-css: <base>.cs beside the header (the header's name with .cs
 * for its extension). */
static void cs_files(const EmitCtx *c, OutputList *l)
{
    if (!c->mc_outputs || !c->m || !c->names.header || !c->o->cs_namespace)
        return;
    const char *h = c->names.header;
    size_t stem = strlen(h) - strlen(c->o->header_ext) - 1;
    output_add(l, arena_printf(&l->arena, "%.*s.cs", (int)stem, h), 0);
}

/* A C# output: the -cp encoding and line ends as the header's. */
static bool cs_file(const EmitCtx *c, size_t part, const char *path, Out *out)
{
    (void)part;
    TextOut t;
    text_begin(&t, c, path, false, false, out);
    TmplSink sink = {&t, text_put};
    bool ok = render_builtin(c->m, c->facts, c->o, "cs.j2", c->o->cs_namespace, c->o->cs_static,
                             &sink, c->tf);
    return text_end(&t) && ok;
}

static const Emitter dotnet;

/* --dotnet=FILE: the P/Invoke class of every provider for .NET 6+ and
 * netstandard2.0; UTF-8 without a byte-order mark unless -cp asks. */
static void dotnet_files(const EmitCtx *c, OutputList *l)
{
    const char *path = emit_arg(c->o, &dotnet);
    if (path && c->m)
        output_add(l, path, 0);
}

static bool dotnet_file(const EmitCtx *c, size_t part, const char *path, Out *out)
{
    (void)part;
    TextOut t;
    text_begin(&t, c, path, false, false, out);
    if (!c->o->encoding_given)
        t.enc = ENC_UTF8, t.begun = true;
    TmplSink sink = {&t, text_put};
    bool ok = render_builtin(c->m, c->facts, c->o, "dotnet.cs.j2", c->o->dotnet_namespace, true,
                             &sink, c->tf);
    return text_end(&t) && ok;
}

/* mc -x: a .mc file's message ids and their symbolic names. */
static void dbg_files(const EmitCtx *c, OutputList *l)
{
    if (c->mc_outputs && c->names.dbg)
        output_add(l, c->names.dbg, 0);
}

static bool dbg_file(const EmitCtx *c, size_t part, const char *path, Out *out)
{
    (void)part;
    /* the array is named after the file: <base>SymbolicNames */
    const char *slash = os_last_sep(path), *name = slash ? slash + 1 : path;
    char *base = xstrdup(name);
    char *dot = strrchr(base, '.');
    if (dot)
        *dot = '\0';
    Buf text = {0};
    bool ok = mc_dbg_build(c->mc, c->o, base, c->tf, &text);
    if (ok && c->o->era >= MC_2017) {
        /* mc up to 2017 wrote this file with LF line ends */
        out_put(out, text.s, text.len);
    } else if (ok) {
        ok = put_text(c, path, &text, false, true, out); /* a base name's letters */
    }
    buf_free(&text);
    free(base);
    return ok;
}

static const Emitter header = {"header", header_files, header_file, NULL, NULL, NULL};
static const Emitter json = {"json", json_files, json_file, NULL, NULL, NULL};
static const Emitter rc = {"rc", rc_files, rc_file, NULL, NULL, NULL};
static const Emitter tables = {"message-tables", table_files, table_file, NULL, NULL, NULL};
static const Emitter wevt = {"wevt", wevt_files, wevt_file, NULL, NULL, NULL};
static const Emitter render = {"render", render_files, render_file, NULL, NULL, NULL};
static const Emitter dbg = {"dbg", dbg_files, dbg_file, NULL, NULL, NULL};
static const Emitter lttng = {"lttng", lttng_files, lttng_file, NULL, NULL, NULL};
static const Emitter cs = {"cs", cs_files, cs_file, NULL, NULL, NULL};
static const Emitter dotnet = {"dotnet", dotnet_files, dotnet_file, "dotnet", "FILE",
                               "write a C# class per provider that logs each event through "
                               "advapi32's EventWriteTransfer (.NET 6+, netstandard2.0)"};

/* In the order the files are listed (--print-outputs, --depfile) and
 * written.  An output of its own file is declared here and named below. */
const Emitter *const emitters[] = {
    &header, &lttng, &cs, &json, &rc, &tables, &wevt, &dbg, &render, &dotnet, NULL,
};

const char *emit_arg(const Options *o, const Emitter *e)
{
    for (size_t i = 0; i < o->emitter_args.n; i++)
        if (o->emitter_args.v[i].by == e)
            return o->emitter_args.v[i].value;
    return NULL;
}

/* ---- the list of files ---- */

void output_add(OutputList *l, const char *path, size_t part)
{
    OutputFile f = {path, NULL, part};
    vec_push(&l->files, f);
}

const char *output_path(OutputList *l, const char *dir, const char *name)
{
    return arena_printf(&l->arena, "%s/%s", dir, name);
}

void emit_outputs(const EmitCtx *c, OutputList *l)
{
    for (const Emitter *const *row = emitters; *row; row++) {
        const Emitter *e = *row;
        size_t from = l->files.n;
        e->files(c, l);
        for (size_t i = from; i < l->files.n; i++)
            l->files.v[i].by = e;
    }
}

void output_list_free(OutputList *l)
{
    vec_free(&l->files);
    arena_free(&l->arena);
}

