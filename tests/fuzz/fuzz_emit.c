/*
 * fuzz_emit.c - a whole compile into memory: the .man reader, the check
 * stage, then every output mc writes (the header, the .rc, each culture's
 * message table, TEMP.BIN) and the JSON model, built into buffers and
 * thrown away.  Only a manifest that passes the check is emitted, as in a
 * compile.  The binaries are read back by mcgen's own strict readers: a
 * file the writers make that the readers refuse is a finding (one of the
 * two is wrong), and so is a message table whose entry count is not what
 * the writer said it would hold.  The header's mode (descriptors, -um,
 * -km), -A and the TEMP.BIN format come from the input's length.
 */
#include "fuzz.h"

static void read_back(const Manifest *m, const Options *o, size_t culture, const Buf *table)
{
    MsgTable t;
    Buf err = {0};
    bool ok = msgtable_read(table->s, table->len, &t, &err);
    FUZZ_ASSERT(ok, "a message table the writer made does not read back");
    FUZZ_ASSERT(t.entries.n == msgtable_count(m, culture), "a message table's entry count");
    for (size_t i = 0; i < t.entries.n; i++)
        FUZZ_ASSERT(t.entries.v[i].kind == (o->tables.ansi ? MSGTEXT_ANSI : MSGTEXT_UTF16), "a message table entry's flags");
    msgtable_free(&t);
    buf_free(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_begin();
    Options o = {.mode = size % 3 == 0 ? HEADER_DESCRIPTORS : size % 3 == 1 ? HEADER_UM : HEADER_KM,
                 .header_ext = "h",
                 .format = size % 4 == 3 ? WEVT_V3 : WEVT_V5};
    o.tables.ansi = size % 5 == 0;
    o.tables.no_crlf = size % 7 == 0;
    Manifest *m = read_man_mem("fuzz.man", data, size, 0);
    Facts f = {0};
    if (m && check_manifest(m, &o, &f)) {
        TemplateFinder tf;
        finder_init(&tf, NULL, NULL);
        Buf b = {0};
        TmplSink sink = tmpl_buf_sink(&b), lines[2] = {sink, sink};
        FUZZ_ASSERT(header_build(m, &f, &o, &tf, &sink, size % 2 ? lines : NULL),
                    "the built-in header template failed");
        b.len = 0;
        size_t n = m->cultures.n;
        const char **names = xcalloc(n + 1, sizeof *names);
        for (size_t i = 0; i < n; i++) {
            b.len = 0;
            msgtable_build(m, i, &o.tables, &b);
            if (msgtable_count(m, i) > 0) {
                read_back(m, &o, i, &b);
                names[i] = "MSG.bin";
            }
        }
        b.len = 0;
        RcTable *t = xcalloc(n + 1, sizeof *t);
        size_t nt = rc_manifest_tables(m, names, t);
        FUZZ_ASSERT(rc_build(t, nt, "TEMP.BIN", true, &tf, &b), "the built-in .rc template failed");
        free(t);
        free(names);
        b.len = 0;
        wevt_build(m, o.format, &b);
        WevtFile w;
        Buf err = {0};
        FUZZ_ASSERT(wevt_read(b.s, b.len, &w, &err), "a TEMP.BIN the writer made does not read back");
        wevt_free(&w);
        buf_free(&err);
        b.len = 0;
        json_model_to_buf(m, &b);
        buf_free(&b);
        finder_free(&tf);
    }
    facts_free(&f);
    manifest_free(m);
    fuzz_end();
    return 0;
}
