/*
 * fuzz_mc.c - a whole .mc compile into memory: the message-text reader,
 * check_mc, then every output mc writes for a .mc file (the header, the
 * .rc, each language's message table, the -x symbol map), built into
 * buffers and thrown away.  The input's first byte picks the chunk size
 * the reader is fed in (its value modulo 17; 0: all at once); the byte
 * stays part of the file, so that a seed is a .mc file as it is.  The
 * options that change the verdict or the outputs (-u, -A, -n, -c, -d, -o,
 * -m, --mc-compat) come from the input's length, never from its bytes.
 *
 * Oracles: a refused file has an error; check_mc's verdict agrees with
 * its error count; the built-in templates render; and every message table
 * the writer makes reads back through mcgen's strict reader with exactly
 * the language's texts, in id order, each with the "\r\n" mc adds (none
 * with -n), in Windows-1252 with -A.
 */
#include "fuzz.h"

#include <string.h>

typedef struct Expected {
    uint32_t id;
    const char *text;
} Expected;

static int by_id(const void *a, const void *b)
{
    uint32_t x = ((const Expected *)a)->id, y = ((const Expected *)b)->id;
    return x < y ? -1 : x > y;
}

/* The table of one language against the texts the model holds for it. */
static void read_back(const McFile *f, const McLanguage *lang, const Options *o, const Buf *table)
{
    VEC(Expected) want = {0};
    for (size_t i = 0; i < f->items.n; i++) {
        const McMessage *msg = f->items.v[i].msg;
        for (size_t k = 0; msg && k < msg->texts.n; k++)
            if (msg->texts.v[k].lang == lang) {
                Expected e = {msg->id, msg->texts.v[k].text};
                vec_push(&want, e);
            }
    }
    sort_stable(want.v, want.n, sizeof *want.v, by_id);
    MsgTable t;
    Buf err = {0}, text = {0};
    FUZZ_ASSERT(msgtable_read(table->s, table->len, &t, &err),
                "a message table the writer made does not read back");
    FUZZ_ASSERT(t.entries.n == want.n, "a message table's entry count is not the language's");
    for (size_t i = 0; i < t.entries.n; i++) {
        const MsgTableEntry *e = &t.entries.v[i];
        FUZZ_ASSERT(e->id == want.v[i].id, "a message table entry's id");
        FUZZ_ASSERT(e->kind == (o->tables.ansi ? MSGTEXT_ANSI : MSGTEXT_UTF16), "a message table entry's flags");
        buf_reset(&text);
        const char *s = want.v[i].text;
        if (o->tables.ansi) { /* written in Windows-1252, read back as UTF-8: the text again */
            FUZZ_ASSERT(utf8_to_cp1252(&text, s, strlen(s)) == SIZE_MAX,
                        "an -A table holds a text Windows-1252 cannot");
            buf_reset(&text);
        }
        buf_add(&text, s, strlen(s));
        if (!o->tables.no_crlf)
            buf_add(&text, "\r\n", 2);
        FUZZ_ASSERT(strlen(e->text) == text.len && memcmp(e->text, text.s, text.len) == 0,
                    "a message table entry's text is not the message's");
    }
    msgtable_free(&t);
    vec_free(&want);
    buf_free(&err);
    buf_free(&text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_begin();
    size_t chunk = size ? data[0] % 17 : 0;
    static const McEra eras[] = {MC_CURRENT, MC_2020, MC_2017, MC_2005, MC_1998};
    Options o = {.header_ext = "h", .era = eras[size / 3 % 5]};
    o.tables.ansi = size % 5 == 0;
    o.tables.no_crlf = size % 7 == 0;
    o.customer_bit = size % 3 == 0;
    o.decimal = size % 11 == 0;
    o.ole2 = size % 13 == 0;
    o.max_message_length = size % 9 == 0 ? 40 : 0;
    Manifest *m = read_mc_mem("fuzz.mc", data, size, chunk, size % 8 == 0);
    if (!m) {
        FUZZ_ASSERT(diag_error_count() > 0, "the reader refused a file without an error");
        fuzz_end();
        return 0;
    }
    bool ok = check_mc(m, &o);
    FUZZ_ASSERT(ok == (diag_error_count() == 0), "check_mc's verdict disagrees with its errors");
    if (ok) {
        const McFile *f = m->mc;
        TemplateFinder tf;
        finder_init(&tf, NULL, NULL);
        Buf b = {0};
        FUZZ_ASSERT(mc_header_build(m, &o, &tf, &b), "the built-in .mc header template failed");
        RcTable *t = xcalloc(f->languages.n + 1, sizeof *t);
        size_t nt = 0;
        for (size_t i = 0; i < f->languages.n; i++) {
            const McLanguage *lang = f->languages.v[i];
            if (!mc_language_used(f, lang))
                continue;
            b.len = 0;
            msgtable_build_mc(m, lang, NULL, &o.tables, &b);
            read_back(f, lang, &o, &b);
            t[nt++] = (RcTable){lang->langid, lang->file};
        }
        b.len = 0;
        FUZZ_ASSERT(rc_build(t, nt, NULL, !(o.era >= MC_2005), &tf, &b),
                    "the built-in .rc template failed");
        free(t);
        b.len = 0;
        FUZZ_ASSERT(mc_dbg_build(m, &o, "fuzz", &tf, &b), "the built-in .dbg template failed");
        buf_free(&b);
        finder_free(&tf);
    }
    manifest_free(m);
    fuzz_end();
    return 0;
}
