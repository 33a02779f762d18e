/*
 * emit_msgtable.c - the message-table resource (RT_MESSAGETABLE, MSG0000N.bin)
 * of one culture, byte for byte as mc.exe writes it for manifests
 * (../shared/docs/msgtable.md):
 *
 *   u32 block count, then blocks {u32 low id, u32 high id, u32 offset},
 *   one block per run of consecutive ids, then the entries of all blocks
 *   in id order: {u16 length, u16 flags = 1 (UTF-16)} + text + "\r\n" +
 *   NUL, zero-padded to a multiple of 4.
 *
 * mc's -A writes the texts in the ANSI code page with flags 0 (mcgen:
 * Windows-1252, whatever the host, so that output does not depend on the
 * machine; a text it cannot hold is refused before, by the check stage:
 * check_ansi_tables, MCG5018); -n leaves out the "\r\n".
 *
 * A .mc file's table (msgtable_build_mc) holds the texts of one of its
 * languages under the messages' ids (check_mc.c), and, when a manifest is
 * compiled in the same run, that manifest's strings of the culture of the
 * same language id: mc puts both into the .mc's tables.
 *
 * Every message that received an id (check_msgid.c) contributes its text in the
 * culture once; built-in items and imported winmeta channels contribute
 * winmeta's text.  Texts are stored as written (insert sequences, %1 ...,
 * are for FormatMessage to interpret at run time), but for one thing: a
 * line feed in a manifest's string (value="a&#xA;b") is written as CR LF,
 * as mc writes it ("a\r\nb\r\n" in its tables; issue 15).  A .mc text
 * already has CR LF between its lines (read_mc.c) and is left alone.
 */
#include "mcgen.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct Entry {
    uint32_t id;
    const char *text;
    bool manifest; /* a manifest's string or winmeta's: LF becomes CR LF */
} Entry;

/* A line feed becomes CR LF, as mc writes a manifest string's line feeds.
 * A CR already before it is kept as that pair's CR: no mc output shows
 * what mc writes for value="a&#xD;&#xA;b", and "a\r\nb" is the text
 * FormatMessage renders with one line break, as its author wrote it
 * ("\r\r\n" renders two: FormatMessage makes a lone CR a line break too,
 * as Wine's FormatMessage tests, which pass on Windows, show).  A lone CR
 * is kept as written.  -A changes nothing (CR is in Windows-1252); nor
 * does -n, which mc documents as leaving out the CR LF after each text
 * (no mc output shows -n with a line feed inside one either). */
void msgtable_manifest_text(Buf *out, const char *s)
{
    const char *p = s;
    for (const char *lf; (lf = strchr(p, '\n')); p = lf + 1) {
        buf_add(out, p, (size_t)(lf - p));
        if (lf == s || lf[-1] != '\r')
            buf_addc(out, '\r');
        buf_addc(out, '\n');
    }
    buf_adds(out, p);
}

typedef struct Collect {
    VEC(Entry) v;
    size_t culture;
    PtrMap builtins; /* the built-in items an event has added already */
} Collect;

/* Adds the message of `r`: its string in the culture, or `builtin`. */
static void add(Collect *c, const MsgRef *r, const char *builtin)
{
    if (!r->has_msgid)
        return;
    const char *text = builtin;
    if (r->id) {
        const String *s = r->text ? r->text[c->culture] : NULL;
        if (!s)
            return; /* not in this culture (a validation error elsewhere) */
        text = s->value;
    }
    if (!text)
        return;
    Entry e = {r->msgid, text, true};
    vec_push(&c->v, e);
}

static void add_named(Collect *c, const Named *n)
{
    add(c, &n->msg, n->builtin ? n->builtin_msg : NULL);
}

/* A built-in item an event uses, once: every event of a large manifest
 * names a level and an opcode or two, and a copy per event made the
 * table's working set several times its entries (the copies after the
 * first would only be dropped as duplicates of its id and text). */
static void add_builtin(Collect *c, const Named *n)
{
    if (ptrmap_get(&c->builtins, n))
        return;
    ptrmap_put(&c->builtins, n, (void *)n);
    add_named(c, n);
}

/* Every message of the culture, in model order, an id more than once when
 * several items share it. */
static void gather(const Manifest *m, Collect *c)
{
    for (size_t i = 0; i < m->providers.n; i++) {
        const Provider *pv = m->providers.v[i];
        add(c, &pv->msg, NULL);
        for (size_t j = 0; j < pv->channels.n; j++) {
            const Channel *ch = pv->channels.v[j];
            const Channel *wm = ch->import_of && ch->import_of->builtin ? ch->import_of : NULL;
            add(c, &ch->msg, wm ? wm->builtin_msg : NULL);
        }
        for (size_t j = 0; j < pv->levels.n; j++)
            add_named(c, &pv->levels.v[j]->n);
        for (size_t j = 0; j < pv->tasks.n; j++) {
            add_named(c, &pv->tasks.v[j]->n);
            for (size_t k = 0; k < pv->tasks.v[j]->opcodes.n; k++)
                add_named(c, &pv->tasks.v[j]->opcodes.v[k]->n);
        }
        for (size_t j = 0; j < pv->opcodes.n; j++)
            add_named(c, &pv->opcodes.v[j]->n);
        for (size_t j = 0; j < pv->keywords.n; j++)
            add_named(c, &pv->keywords.v[j]->n);
        for (size_t j = 0; j < pv->maps.n; j++)
            for (size_t k = 0; k < pv->maps.v[j]->items.n; k++)
                add(c, &pv->maps.v[j]->items.v[k]->msg, NULL);
        for (size_t j = 0; j < pv->events.n; j++) {
            const Event *e = pv->events.v[j];
            add(c, &e->msg, NULL);
            /* built-in items the events use: winmeta's text */
            if (e->level && e->level->n.builtin)
                add_builtin(c, &e->level->n);
            if (e->task && e->task->n.builtin)
                add_builtin(c, &e->task->n);
            if (e->opcode && e->opcode->n.builtin)
                add_builtin(c, &e->opcode->n);
            for (size_t k = 0; k < e->nkeywords; k++)
                if (e->keywords[k]->n.builtin)
                    add_builtin(c, &e->keywords[k]->n);
        }
        for (size_t j = 0; j < pv->filters.n; j++)
            add(c, &pv->filters.v[j]->msg, NULL);
    }
    for (size_t i = 0; i < m->message_table.n; i++)
        add(c, &m->message_table.v[i]->msg, NULL);
}

static void collect(const Manifest *m, Collect *c)
{
    gather(m, c);
    ptrmap_free(&c->builtins);
    /* one entry per id: a shared string or a built-in item used by several
     * events is collected more than once, always with the same text */
    sort_stable_u32(c->v.v, c->v.n, sizeof *c->v.v, offsetof(Entry, id));
    size_t n = 0;
    for (size_t i = 0; i < c->v.n; i++)
        if (n == 0 || c->v.v[n - 1].id != c->v.v[i].id)
            c->v.v[n++] = c->v.v[i];
    c->v.n = n;
}

size_t msgtable_count(const Manifest *m, size_t culture)
{
    Collect c = {.culture = culture};
    collect(m, &c);
    size_t n = c.v.n;
    vec_free(&c.v);
    return n;
}

/* msgtable_count(m, culture) > 0 without sorting for the count: an id
 * collected once is still there after the duplicates go. */
bool msgtable_any(const Manifest *m, size_t culture)
{
    Collect c = {.culture = culture};
    gather(m, &c);
    bool any = c.v.n > 0;
    vec_free(&c.v);
    ptrmap_free(&c.builtins);
    return any;
}

/* Where a table goes: appended to a Buf, or into an Out as it is made. */
typedef struct Sink {
    Buf *buf;
    Out *out;
    size_t start; /* buf: its length before the table */
} Sink;

static void sink_put(Sink *k, const Buf *b)
{
    if (k->buf)
        buf_add(k->buf, b->s, b->len);
    else
        out_put(k->out, b->s, b->len);
}

/* Entries sorted by id, one each, as a MESSAGE_RESOURCE_DATA.  The block
 * table's offsets are known once the entries before each block are
 * converted, and the entries go on in pieces of about 64 KiB, so a large
 * table is never whole in memory: the block table is put as zeros before
 * the first piece and patched at the end (a small table is put once,
 * complete). */
static void write_table(const Collect *c, const MsgTableOptions *opt, Sink *k)
{
    static const MsgTableOptions defaults = {0};
    if (!opt)
        opt = &defaults;
    /* blocks: runs of consecutive ids */
    size_t nblocks = 0;
    for (size_t i = 0; i < c->v.n; i++)
        if (i == 0 || c->v.v[i].id != c->v.v[i - 1].id + 1)
            nblocks++;
    Buf head = {0}, entries = {0}, crlf = {0};
    buf_u32le(&head, (uint32_t)nblocks);
    size_t first_entry = 4 + 12 * nblocks;
    size_t put = 0; /* bytes of entries handed on */
    for (size_t i = 0; i < c->v.n;) {
        size_t j = i + 1;
        while (j < c->v.n && c->v.v[j].id == c->v.v[j - 1].id + 1)
            j++;
        buf_u32le(&head, c->v.v[i].id);
        buf_u32le(&head, c->v.v[j - 1].id);
        guard_here(first_entry + put + entries.len <= UINT32_MAX, "message table of 4 GiB or more");
        buf_u32le(&head, (uint32_t)(first_entry + put + entries.len));
        for (; i < j; i++) {
            const Entry *e = &c->v.v[i];
            const char *s = e->text;
            const char *lf = e->manifest ? strchr(s, '\n') : NULL;
            size_t n;
            if (lf) { /* a text without line feeds is used as it is */
                buf_reset(&crlf);
                msgtable_manifest_text(&crlf, s);
                s = crlf.s ? crlf.s : "";
                n = crlf.len;
            } else {
                n = strlen(s);
            }
            /* the entry converted straight into `entries` after room for
             * its length and flags, which are known once it is */
            size_t at = entries.len;
            buf_add(&entries, "\0\0\0\0", 4);
            if (!opt->ansi) {
                utf8_to_utf16le(&entries, s, n);
                if (opt->no_crlf)
                    buf_add(&entries, "\0\0", 2);
                else
                    buf_add(&entries, "\r\0\n\0\0\0", 6);
            } else {
                /* check_ansi_tables and check_mc have refused every text
                 * Windows-1252 cannot hold (MCG5018); winmeta's texts are
                 * ASCII */
                if (utf8_to_cp1252(&entries, s, n) != SIZE_MAX)
                    unreachable_here();
                if (opt->no_crlf)
                    buf_add(&entries, "\0", 1);
                else
                    buf_add(&entries, "\r\n\0", 3);
            }
            size_t len = entries.len - at;
            size_t pad = (4 - len % 4) % 4;
            guard_here(len + pad <= 0xFFFF, "message-table entry over 65,535 bytes (MCG5019)");
            buf_add(&entries, "\0\0\0", pad);
            unsigned char *h = (unsigned char *)entries.s + at;
            h[0] = (unsigned char)(len + pad), h[1] = (unsigned char)((len + pad) >> 8);
            h[2] = opt->ansi ? 0 : 1, h[3] = 0;
            if (entries.len >= 64 * 1024) {
                if (!put) { /* the block table's place */
                    Buf zeros = {0};
                    buf_grow(&zeros, first_entry);
                    memset(zeros.s, 0, first_entry);
                    zeros.len = first_entry;
                    sink_put(k, &zeros);
                    buf_free(&zeros);
                }
                sink_put(k, &entries);
                put += entries.len;
                entries.len = 0;
            }
        }
    }
    if (!put)
        sink_put(k, &head);
    sink_put(k, &entries);
    if (put && k->buf)
        memcpy(k->buf->s + k->start, head.s, head.len);
    else if (put)
        out_patch(k->out, 0, head.s, head.len);
    buf_free(&head);
    buf_free(&entries);
    buf_free(&crlf);
}

static void table_of(const Manifest *m, size_t culture, const MsgTableOptions *opt, Sink *k)
{
    Collect c = {.culture = culture};
    collect(m, &c);
    write_table(&c, opt, k);
    vec_free(&c.v);
}

void msgtable_build(const Manifest *m, size_t culture, const MsgTableOptions *opt, Buf *out)
{
    Sink k = {out, NULL, out->len};
    table_of(m, culture, opt, &k);
}

void msgtable_write(const Manifest *m, size_t culture, const MsgTableOptions *opt, Out *out)
{
    Sink k = {NULL, out, 0};
    table_of(m, culture, opt, &k);
}

static void table_of_mc(const Manifest *mc, const McLanguage *lang, const Manifest *man,
                        const MsgTableOptions *opt, Sink *sink)
{
    Collect c = {.culture = man ? mc_culture_of(man, lang) : SIZE_MAX};
    if (c.culture != SIZE_MAX)
        collect(man, &c); /* check_mc_with_manifest: no id is in both */
    const McFile *f = mc->mc;
    for (size_t i = 0; i < f->items.n; i++) {
        const McMessage *msg = f->items.v[i].msg;
        for (size_t k = 0; msg && k < msg->texts.n; k++)
            if (msg->texts.v[k].lang == lang) {
                Entry e = {msg->id, msg->texts.v[k].text, false};
                vec_push(&c.v, e);
            }
    }
    sort_stable_u32(c.v.v, c.v.n, sizeof *c.v.v, offsetof(Entry, id));
    write_table(&c, opt, sink);
    vec_free(&c.v);
}

void msgtable_build_mc(const Manifest *mc, const McLanguage *lang, const Manifest *man,
                       const MsgTableOptions *opt, Buf *out)
{
    Sink k = {out, NULL, out->len};
    table_of_mc(mc, lang, man, opt, &k);
}

void msgtable_write_mc(const Manifest *mc, const McLanguage *lang, const Manifest *man,
                       const MsgTableOptions *opt, Out *out)
{
    Sink k = {NULL, out, 0};
    table_of_mc(mc, lang, man, opt, &k);
}
