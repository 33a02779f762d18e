/*
 * emit_wevt.c - the WEVT_TEMPLATE resource (<base>TEMP.BIN) as mc.exe writes it:
 * CRIM 5.1 like mc 10.0.18362 by default, CRIM 3.1 like mc 10.0.15063 or
 * mc 8.1 on request (mc81_pads_end).  Layout, orders and quirks: ../shared/docs/wevt-template.md
 * (section numbers below refer to it).
 *
 * Every offset is absolute (from the CRIM header), so a list records where
 * its entries land and later lists point there: a side table of its own
 * (W.at: item -> offset, valid for the provider being written) keeps them,
 * as the model is read-only here.  Sizes and counts are written as
 * placeholders and patched when the list is complete; nothing is guessed.
 * Into an Out (wevt_write) the bytes go on in pieces (W.b holds those not
 * handed on yet, at most a list of small entries, or one template, past
 * FLUSH_AT), and a patch of bytes already handed on is an out_patch: the
 * file is never whole in memory.  As it only reads the model, it can run
 * in a thread next to the other writers.
 */
#include "mcgen.h"

#include <stdlib.h>
#include <string.h>

#define NO_MESSAGE 0xFFFFFFFFu

/* Entry lists put all entries first, then the entries' names in entry
 * order (section 4): each entry leaves a slot for its name's offset, and
 * names_write fills the slots as it writes the names, and empties the
 * lists for the next (W.names: one pair of lists for every list, kept). */
typedef struct Names {
    VEC(size_t) slot;
    VEC(const char *) text;
} Names;

typedef VEC(Field *) FieldVec;

typedef struct W {
    Buf b;       /* the bytes from `base` on */
    size_t base; /* what is before them went to `out` */
    Out *out;    /* NULL: everything stays in b (wevt_build) */
    const Manifest *m;
    int major;       /* 5 or 3 */
    bool mc81;       /* mc 8.1: template ids by MD5, mc81_pads_end */
    PtrMap at;       /* channel, level, task, opcode, keyword, map, layout ->
                      * the offset of its entry (this provider's) */
    /* a template's BinXml, canonical text, and its id's input: emptied
     * per template, not made and freed (their growth was most of the
     * cost of a small template) */
    Buf bx, x, id_in, id_types;
    Names names;    /* the names of the list being written */
    FieldVec order; /* a template's fields, then its structs' members */
    /* the BinXml names of Data, ComplexData and Name, made once */
    Buf bx_data, bx_complex, bx_name_attr;
} W;

static size_t pos(const W *w) { return w->base + w->b.len; }

/* Past this many bytes, W.b goes on to the Out at the next flush point. */
enum { FLUSH_AT = 256 * 1024 };

/* A place where nothing written before is patched often: between the
 * templates of TTBL, between lists, between providers. */
static void flush_point(W *w)
{
    if (!w->out || w->b.len < FLUSH_AT)
        return;
    out_put(w->out, w->b.s, w->b.len);
    w->base += w->b.len;
    w->b.len = 0;
}

/* The entry of `item` starts here. */
static void mark(W *w, const void *item) { ptrmap_put(&w->at, item, (void *)(uintptr_t)pos(w)); }

/* The offset of item's entry; 0 for none (an item not written). */
static uint32_t at_of(const W *w, const void *item)
{
    return item ? (uint32_t)(uintptr_t)ptrmap_get(&w->at, item) : 0;
}

static void patch32(W *w, size_t at, uint32_t v)
{
    char le[4];
    for (int i = 0; i < 4; i++)
        le[i] = (char)(v >> (8 * i));
    if (at >= w->base)
        memcpy(w->b.s + (at - w->base), le, 4);
    else
        out_patch(w->out, at, le, 4);
}

static size_t placeholder(W *w)
{
    size_t at = pos(w);
    buf_u32le(&w->b, 0);
    return at;
}

static void sig(W *w, const char s[4]) { buf_add(&w->b, s, 4); }

static void pad4(W *w)
{
    while (pos(w) % 4)
        buf_u8(&w->b, 0);
}

static void guid(W *w, const Guid *g)
{
    buf_u32le(&w->b, g->d1);
    buf_u16le(&w->b, g->d2);
    buf_u16le(&w->b, g->d3);
    buf_add(&w->b, g->d4, 8);
}

static bool guid_zero(const Guid *g)
{
    static const Guid z;
    return memcmp(g, &z, sizeof z) == 0;
}

static uint32_t msg(const MsgRef *r) { return r->has_msgid ? r->msgid : NO_MESSAGE; }

/* Counted string (section 1): u32 size, UTF-16LE, NUL, padding to 4;
 * size includes everything. */
static void cstr(W *w, const char *s)
{
    size_t at = placeholder(w);
    utf8_to_utf16le(&w->b, s, strlen(s));
    buf_u16le(&w->b, 0);
    pad4(w);
    patch32(w, at, (uint32_t)(pos(w) - at));
}

/* UTF-16LE + NUL, no length, no padding. */
static void zstr(W *w, const char *s)
{
    utf8_to_utf16le(&w->b, s, strlen(s));
    buf_u16le(&w->b, 0);
}

/* ---- collecting a provider's lists ---- */

typedef VEC(Named *) NamedVec;
typedef VEC(const char *) StrVec;

static void add_unique(NamedVec *v, Named *n)
{
    for (size_t i = 0; i < v->n; i++)
        if (v->v[i] == n)
            return;
    vec_push(v, n);
}

/* OPCO order: (opcode value, task value) (section 5). */
static uint32_t opcode_task(const Opcode *o) { return o->task ? o->task->value : 0; }

static int cmp_opcode(const void *a, const void *b)
{
    const Opcode *x = *(Opcode *const *)a, *y = *(Opcode *const *)b;
    uint32_t kx = (uint32_t)x->value << 16 | opcode_task(x);
    uint32_t ky = (uint32_t)y->value << 16 | opcode_task(y);
    return kx < ky ? -1 : kx > ky;
}

static int cmp_level(const void *a, const void *b)
{
    const Level *x = *(Level *const *)a, *y = *(Level *const *)b;
    return x->value < y->value ? -1 : x->value > y->value;
}

static int cmp_keyword(const void *a, const void *b)
{
    const Keyword *x = *(Keyword *const *)a, *y = *(Keyword *const *)b;
    return x->mask < y->mask ? -1 : x->mask > y->mask;
}

/* ---- entry-based lists: CHAN, OPCO, LEVL, TASK, KEYW ---- */

/* Starts a list: signature, size and count placeholders. */
static size_t list_begin(W *w, const char s[4])
{
    size_t at = pos(w);
    sig(w, s);
    buf_u32le(&w->b, 0);
    buf_u32le(&w->b, 0);
    return at;
}

/* Ends a list: size from the signature (0 for an empty OPCO/LEVL/TASK/KEYW,
 * section 4), count. */
static void list_end(W *w, size_t at, uint32_t count, bool empty_size_zero)
{
    patch32(w, at + 4, count == 0 && empty_size_zero ? 0 : (uint32_t)(pos(w) - at));
    patch32(w, at + 8, count);
}

static void name_later(W *w, Names *n, const char *text)
{
    vec_push(&n->slot, placeholder(w));
    vec_push(&n->text, text);
}

static void names_write(W *w, Names *n)
{
    for (size_t i = 0; i < n->slot.n; i++) {
        patch32(w, n->slot.v[i], (uint32_t)pos(w));
        cstr(w, n->text.v[i]);
    }
    n->slot.n = n->text.n = 0;
}

static void write_chan(W *w, Provider *pv)
{
    size_t at = list_begin(w, "CHAN");
    Names *names = &w->names;
    for (size_t i = 0; i < pv->channels.n; i++) {
        Channel *c = pv->channels.v[i];
        mark(w, c);
        buf_u32le(&w->b, c->imported ? 1 : 0);
        name_later(w, names, c->name);
        buf_u32le(&w->b, c->value);
        buf_u32le(&w->b, msg(&c->msg));
    }
    names_write(w, names);
    list_end(w, at, (uint32_t)pv->channels.n, false);
}

static void write_opco(W *w, Opcode **v, size_t n)
{
    size_t at = list_begin(w, "OPCO");
    Names *names = &w->names;
    for (size_t i = 0; i < n; i++) {
        mark(w, v[i]);
        buf_u16le(&w->b, (uint16_t)opcode_task(v[i]));
        buf_u16le(&w->b, v[i]->value);
        buf_u32le(&w->b, msg(&v[i]->n.msg));
        name_later(w, names, v[i]->n.written);
    }
    names_write(w, names);
    list_end(w, at, (uint32_t)n, true);
}

static void write_levl(W *w, Level **v, size_t n)
{
    size_t at = list_begin(w, "LEVL");
    Names *names = &w->names;
    for (size_t i = 0; i < n; i++) {
        mark(w, v[i]);
        buf_u32le(&w->b, v[i]->value);
        buf_u32le(&w->b, msg(&v[i]->n.msg));
        name_later(w, names, v[i]->n.written);
    }
    names_write(w, names);
    list_end(w, at, (uint32_t)n, true);
}

static void write_task(W *w, Task **v, size_t n)
{
    size_t at = list_begin(w, "TASK");
    Names *names = &w->names;
    static const Guid zero;
    for (size_t i = 0; i < n; i++) {
        mark(w, v[i]);
        buf_u32le(&w->b, v[i]->value);
        buf_u32le(&w->b, msg(&v[i]->n.msg));
        guid(w, v[i]->has_guid ? &v[i]->event_guid : &zero);
        name_later(w, names, v[i]->n.written);
    }
    names_write(w, names);
    list_end(w, at, (uint32_t)n, true);
}

static void write_keyw(W *w, Keyword **v, size_t n)
{
    size_t at = list_begin(w, "KEYW");
    Names *names = &w->names;
    for (size_t i = 0; i < n; i++) {
        mark(w, v[i]);
        buf_u64le(&w->b, v[i]->mask);
        buf_u32le(&w->b, msg(&v[i]->n.msg));
        name_later(w, names, v[i]->n.written);
    }
    names_write(w, names);
    list_end(w, at, (uint32_t)n, true);
}

/* ---- MAPS (section 6) ---- */

static int cmp_map_name(const void *a, const void *b)
{
    return strcmp((*(ValueMap *const *)a)->name, (*(ValueMap *const *)b)->name);
}

static int cmp_item(const void *a, const void *b)
{
    const MapItem *x = *(MapItem *const *)a, *y = *(MapItem *const *)b;
    return x->value < y->value ? -1 : x->value > y->value;
}

static void write_maps(W *w, ValueMap **maps, size_t n)
{
    size_t at = list_begin(w, "MAPS");
    ValueMap **sorted = xmalloc((n ? n : 1) * sizeof *sorted);
    if (n)
        memcpy(sorted, maps, n * sizeof *sorted);
    sort_stable(sorted, n, sizeof *sorted, cmp_map_name);
    size_t offsets = pos(w);
    for (size_t i = 0; i < n; i++)
        buf_u32le(&w->b, 0);
    VEC(size_t) names = {0};
    for (size_t i = 0; i < n; i++) {
        ValueMap *m = maps[i];
        mark(w, m);
        sig(w, m->kind == MAP_BIT ? "BMAP" : "VMAP");
        buf_u32le(&w->b, (uint32_t)(20 + 8 * m->items.n));
        vec_push(&names, placeholder(w));
        buf_u32le(&w->b, m->kind == MAP_BIT ? 1 : 0);
        buf_u32le(&w->b, (uint32_t)m->items.n);
        MapItem **items = xmalloc((m->items.n ? m->items.n : 1) * sizeof *items);
        if (m->items.n)
            memcpy(items, m->items.v, m->items.n * sizeof *items);
        sort_stable(items, m->items.n, sizeof *items, cmp_item); /* by value */
        for (size_t k = 0; k < m->items.n; k++) {
            buf_u32le(&w->b, items[k]->value);
            buf_u32le(&w->b, msg(&items[k]->msg));
        }
        free(items);
    }
    for (size_t i = 0; i < n; i++) {
        patch32(w, offsets + 4 * i, at_of(w, sorted[i]));
        size_t k = 0;
        while (maps[k] != sorted[i])
            k++;
        patch32(w, names.v[k], (uint32_t)pos(w));
        cstr(w, sorted[i]->name);
    }
    vec_free(&names);
    free(sorted);
    list_end(w, at, (uint32_t)n, false);
}

/* ---- QTAB (section 9) ---- */

static void write_qtab(W *w, ValueMap **maps, size_t n)
{
    size_t at = list_begin(w, "QTAB");
    size_t offsets = pos(w);
    for (size_t i = 0; i < n; i++)
        buf_u32le(&w->b, 0);
    VEC(size_t) quer = {0}, refs = {0}; /* refs: name/format/item offsets to patch */
    for (size_t i = 0; i < n; i++) {
        ValueMap *m = maps[i];
        patch32(w, offsets + 4 * i, (uint32_t)pos(w));
        vec_push(&quer, pos(w));
        sig(w, "QUER");
        buf_u32le(&w->b, 0);
        vec_push(&refs, placeholder(w));
        vec_push(&refs, placeholder(w));
        buf_u32le(&w->b, (uint32_t)m->items.n);
        for (size_t k = 0; k < m->items.n; k++) {
            vec_push(&refs, placeholder(w));
            vec_push(&refs, placeholder(w));
        }
    }
    size_t r = 0;
    for (size_t i = 0; i < n; i++) {
        ValueMap *m = maps[i];
        patch32(w, refs.v[r++], (uint32_t)pos(w));
        cstr(w, m->name);
        patch32(w, refs.v[r++], (uint32_t)pos(w));
        cstr(w, m->format ? m->format : "");
        for (size_t k = 0; k < m->items.n; k++) {
            patch32(w, refs.v[r++], (uint32_t)pos(w));
            cstr(w, m->items.v[k]->pattern_name ? m->items.v[k]->pattern_name : "");
            patch32(w, refs.v[r++], (uint32_t)pos(w));
            cstr(w, m->items.v[k]->pattern_value ? m->items.v[k]->pattern_value : "");
        }
        /* QUER size reaches the end of this map's last string */
        patch32(w, quer.v[i] + 4, (uint32_t)(pos(w) - quer.v[i]));
    }
    vec_free(&quer);
    vec_free(&refs);
    list_end(w, at, (uint32_t)n, false);
}

/* ---- templates: properties, BinXml, template id (section 10) ---- */

enum { F_STRUCT = 0x1, F_FIXED_LENGTH = 0x2, F_VAR_LENGTH = 0x4, F_FIXED_COUNT = 0x8,
       F_VAR_COUNT = 0x10 };

/* Property order: top-level fields, then the members of every struct. */

static uint32_t prop_index(const Field *f, const FieldVec *order)
{
    for (size_t i = 0; i < order->n; i++)
        if (order->v[i] == f)
            return (uint32_t)i;
    return 0;
}

static uint32_t quantity_flags(const Field *f, const Quantity *q, bool length)
{
    if (q->kind == QTY_FIXED && q->n > 0) {
        const InType *in = field_in_type(f);
        if (length && !f->is_struct && in && strcmp(in->name.local, "SID") == 0)
            return 0; /* SID: the length is stored, never flagged */
        return length ? F_FIXED_LENGTH : F_FIXED_COUNT;
    }
    if (q->kind == QTY_FIELD && q->ref)
        return length ? F_VAR_LENGTH : F_VAR_COUNT;
    return 0;
}

static uint16_t quantity_value(const Quantity *q, const FieldVec *order)
{
    if (q->kind == QTY_FIXED)
        return (uint16_t)q->n;
    if (q->kind == QTY_FIELD && q->ref) {
        uint32_t i = prop_index(q->ref, order);
        guard_here(i <= 0xFFFF, "count/length property index over 65,535 (MCG6023)");
        return (uint16_t)i;
    }
    return 0;
}

/* Substitution type: the inType, Binary (0x0E) for a struct, | 0x80 when
 * the property has a count (section 10.3). */
static uint8_t subst_type(const Field *f)
{
    uint8_t t = f->is_struct ? 0x0E : (field_in_type(f) ? field_in_type(f)->value : 0);
    if (quantity_flags(f, &f->qty->count, false))
        t |= 0x80;
    return t;
}

static uint16_t name_hash(const char *u16, size_t nbytes)
{
    uint32_t h = 0;
    for (size_t i = 0; i + 1 < nbytes; i += 2)
        h = h * 65599u + (uint32_t)((unsigned char)u16[i] | (unsigned char)u16[i + 1] << 8);
    return (uint16_t)h;
}

static void patch16(Buf *b, size_t at, uint16_t v)
{
    b->s[at] = (char)v;
    b->s[at + 1] = (char)(v >> 8);
}

/* s in UTF-16 after a u16 count of its units (converted in place, no
 * copy); `over` is the guard's message.  Returns where its units start. */
static size_t counted_utf16(Buf *b, const char *s, const char *over)
{
    size_t n = 0;
    while (s[n] && !(s[n] & 0x80) && n < 0xFFFF)
        n++;
    if (!s[n]) { /* ASCII: no strlen and conversion call apart */
        buf_grow(b, 2 + 2 * n);
        unsigned char *q = (unsigned char *)b->s + b->len;
        q[0] = (unsigned char)n, q[1] = (unsigned char)(n >> 8);
        for (size_t i = 0; i < n; i++)
            q[2 + 2 * i] = (unsigned char)s[i], q[3 + 2 * i] = 0;
        b->len += 2 + 2 * n;
        b->s[b->len] = '\0';
        return b->len - 2 * n;
    }
    size_t count_at = b->len;
    buf_u16le(b, 0);
    size_t start = b->len;
    utf8_to_utf16le(b, s, strlen(s));
    size_t units = (b->len - start) / 2;
    guard_here(units <= 0xFFFF, over);
    patch16(b, count_at, (uint16_t)units);
    return start;
}

/* BinXml name: u16 hash, u16 chars, UTF-16, NUL. */
static void bx_name(Buf *b, const char *s)
{
    /* an ASCII name (every element and attribute name, nearly every
     * field's): converted and hashed in one pass */
    size_t n = 0;
    uint32_t h = 0;
    while (s[n] && !(s[n] & 0x80) && n < 0xFFFF)
        n++;
    if (!s[n]) {
        buf_grow(b, 6 + 2 * n);
        unsigned char *q = (unsigned char *)b->s + b->len;
        q[2] = (unsigned char)n, q[3] = (unsigned char)(n >> 8);
        for (size_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)s[i];
            h = h * 65599u + c;
            q[4 + 2 * i] = c, q[5 + 2 * i] = 0;
        }
        q[0] = (unsigned char)h, q[1] = (unsigned char)(h >> 8);
        q[4 + 2 * n] = 0, q[5 + 2 * n] = 0;
        b->len += 6 + 2 * n;
        b->s[b->len] = '\0';
        return;
    }
    size_t hash_at = b->len;
    buf_u16le(b, 0);
    size_t start = counted_utf16(b, s, "BinXml name over 65,535 UTF-16 units (MCG6022)");
    patch16(b, hash_at, name_hash(b->s + start, b->len - start));
    buf_u16le(b, 0);
}

typedef struct BxAttr {
    const char *name, *value;
} BxAttr;

/* <name attrs...> : open-start token through close-start; returns where
 * the data size goes (patched by bx_end). */
static size_t bx_open(Buf *b, const char *name, const BxAttr *attrs, size_t n)
{
    buf_u8(b, n ? 0x41 : 0x01);
    buf_u16le(b, 0xFFFF);
    size_t size_at = b->len;
    buf_u32le(b, 0);
    bx_name(b, name);
    if (n) {
        size_t list_at = b->len;
        buf_u32le(b, 0);
        for (size_t i = 0; i < n; i++) {
            buf_u8(b, i + 1 < n ? 0x46 : 0x06);
            bx_name(b, attrs[i].name);
            buf_u8(b, 0x05);
            buf_u8(b, 0x01);
            counted_utf16(b, attrs[i].value, "BinXml value over 65,535 UTF-16 units (MCG6022)");
        }
        uint32_t len = (uint32_t)(b->len - list_at - 4);
        for (int i = 0; i < 4; i++)
            b->s[list_at + (size_t)i] = (char)(len >> (8 * i));
    }
    buf_u8(b, 0x02);
    return size_at;
}

static void bx_end(Buf *b, size_t size_at)
{
    buf_u8(b, 0x04);
    uint32_t len = (uint32_t)(b->len - size_at - 4);
    for (int i = 0; i < 4; i++)
        b->s[size_at + (size_t)i] = (char)(len >> (8 * i));
}

static void bx_subst(Buf *b, size_t index, uint8_t type)
{
    guard_here(index <= 0xFFFF, "substitution index over 65,535 (MCG6023)");
    buf_u8(b, 0x0D);
    buf_u16le(b, (uint16_t)index);
    buf_u8(b, type);
}

/* Canonical XML text (section 10.4) alongside the BinXml. */
static void xml_open(Buf *x, const char *name, const BxAttr *attrs, size_t n)
{
    buf_addc(x, '<');
    buf_adds(x, name);
    for (size_t i = 0; i < n; i++) {
        buf_addc(x, ' ');
        buf_adds(x, attrs[i].name);
        buf_adds(x, "=\"");
        buf_adds(x, attrs[i].value);
        buf_addc(x, '"');
    }
    buf_addc(x, '>');
}

/* <Data Name="n">%i</Data> of field i (ComplexData for a struct), as
 * bx_open, bx_subst and bx_end make it, in place: el and name are the
 * element's and the attribute's bx_name bytes. */
static void bx_field(Buf *b, const Buf *el, const Buf *name, const Field *f, size_t i)
{
    size_t size_at = b->len + 3, list_at = size_at + 4 + el->len;
    buf_grow(b, 12 + el->len + name->len);
    char *q = b->s + b->len;
    memcpy(q, "\x41\xFF\xFF\0\0\0\0", 7);
    memcpy(q + 7, el->s, el->len);
    q += 7 + el->len;
    memcpy(q, "\0\0\0\0\x06", 5);
    memcpy(q + 5, name->s, name->len);
    q += 5 + name->len;
    q[0] = 0x05, q[1] = 0x01;
    b->len = (size_t)(q + 2 - b->s);
    counted_utf16(b, f->name, "BinXml value over 65,535 UTF-16 units (MCG6022)");
    uint32_t len = (uint32_t)(b->len - list_at - 4);
    for (int k = 0; k < 4; k++)
        b->s[list_at + (size_t)k] = (char)(len >> (8 * k));
    buf_u8(b, 0x02);
    bx_subst(b, i, subst_type(f));
    bx_end(b, size_at);
}

/* Its canonical text: <el Name="name">%n</el>. */
static void xml_field(Buf *x, const char *el, const char *name, size_t n)
{
    size_t el_len = strlen(el), name_len = strlen(name);
    char tmp[20], *d = tmp + sizeof tmp;
    do
        *--d = (char)('0' + n % 10);
    while (n /= 10);
    size_t dn = (size_t)(tmp + sizeof tmp - d);
    buf_grow(x, 2 * el_len + name_len + dn + 14);
    char *q = x->s + x->len;
    *q++ = '<';
    memcpy(q, el, el_len), q += el_len;
    memcpy(q, " Name=\"", 7), q += 7;
    memcpy(q, name, name_len), q += name_len;
    memcpy(q, "\">%", 3), q += 3;
    memcpy(q, d, dn), q += dn;
    memcpy(q, "</", 2), q += 2;
    memcpy(q, el, el_len), q += el_len;
    *q++ = '>';
    x->len = (size_t)(q - x->s);
    x->s[x->len] = '\0';
}

/* kind 1: <EventData[ Name=]> <Data Name="n">%i</Data> ... </EventData> */
static void bx_eventdata(W *w, const Layout *l, Buf *bx, Buf *x)
{
    BxAttr ed = {"Name", l->name};
    size_t n_ed = l->name ? 1 : 0;
    size_t at = bx_open(bx, "EventData", &ed, n_ed);
    if (!l->fields.n) {
        buf_adds(x, "<EventData");
        if (n_ed)
            buf_printf(x, " Name=\"%s\"", l->name);
        buf_adds(x, "/>");
    } else {
        xml_open(x, "EventData", &ed, n_ed);
    }
    /* the names' BinXml made once per file, not per field */
    if (!w->bx_data.len) {
        bx_name(&w->bx_data, "Data");
        bx_name(&w->bx_complex, "ComplexData");
        bx_name(&w->bx_name_attr, "Name");
    }
    for (size_t i = 0; i < l->fields.n; i++) {
        const Field *f = l->fields.v[i];
        bx_field(bx, f->is_struct ? &w->bx_complex : &w->bx_data, &w->bx_name_attr, f, i);
        xml_field(x, f->is_struct ? "ComplexData" : "Data", f->name, i + 1);
    }
    bx_end(bx, at);
    if (l->fields.n)
        buf_adds(x, "</EventData>");
}

/* kind 2: the element inside <UserData>, as written; "%N" text becomes a
 * substitution.  The root is re-indented in the canonical text. */
static void bx_userdata(const Layout *l, const XmlNode *n, int depth, Buf *bx, Buf *x)
{
    VEC(BxAttr) attrs = {0};
    if (depth == 0 && n->name.ns && n->name.ns[0]) {
        BxAttr a = {"xmlns", n->name.ns};
        vec_push(&attrs, a);
    }
    for (size_t i = 0; i < n->attrs.n; i++) {
        BxAttr a = {n->attrs.v[i].name.local, n->attrs.v[i].value};
        vec_push(&attrs, a);
    }
    size_t at = bx_open(bx, n->name.local, attrs.v, attrs.n);
    bool empty = !n->children.n && !n->text;
    buf_printf(x, "<%s", n->name.local);
    for (size_t i = 0; i < attrs.n; i++)
        buf_printf(x, " %s=\"%s\"", attrs.v[i].name, attrs.v[i].value);
    buf_adds(x, empty ? "/>" : ">");
    if (n->text) {
        unsigned idx = 0;
        if (n->text[0] == '%' && (idx = (unsigned)atoi(n->text + 1)) >= 1 &&
            idx <= l->fields.n) {
            bx_subst(bx, idx - 1, subst_type(l->fields.v[idx - 1]));
            buf_printf(x, "%%%u", idx);
        }
    }
    for (size_t i = 0; i < n->children.n; i++) {
        if (depth == 0)
            buf_adds(x, "\r\n\t\t");
        bx_userdata(l, n->children.v[i], depth + 1, bx, x);
    }
    if (depth == 0 && n->children.n)
        buf_adds(x, "\r\n\t");
    if (!empty)
        buf_printf(x, "</%s>", n->name.local);
    bx_end(bx, at);
    vec_free(&attrs);
}

/* Template id (section 10.4), from the canonical XML and the substitution
 * types of the top-level properties:
 *   mc 10.0.x: SHA-256("MS-WEVT\0" + UTF-16LE(xml) + u32 types...), 16
 *              bytes with version nibble 5;
 *   mc 8.1:    MD5(UTF-16LE(xml)), then MD5 continued from that state over
 *              the types (padding counting only the types). */
static void template_id(W *w, const Buf *xml, const Layout *l, unsigned char out[16])
{
    Buf in = w->id_in, types = w->id_types;
    in.len = types.len = 0;
    for (size_t i = 0; i < l->fields.n; i++)
        buf_u32le(&types, subst_type(l->fields.v[i]));
    if (w->mc81) {
        utf8_to_utf16le(&in, xml->s ? xml->s : "", xml->len);
        unsigned char s[16];
        md5(in.s ? in.s : "", in.len, s);
        uint32_t st[4];
        for (int i = 0; i < 4; i++)
            st[i] = (uint32_t)s[4 * i] | (uint32_t)s[4 * i + 1] << 8 |
                    (uint32_t)s[4 * i + 2] << 16 | (uint32_t)s[4 * i + 3] << 24;
        md5_from(st, types.s ? types.s : "", types.len, out);
    } else {
        buf_add(&in, "MS-WEVT\0", 8);
        utf8_to_utf16le(&in, xml->s ? xml->s : "", xml->len);
        buf_add(&in, types.s ? types.s : "", types.len);
        unsigned char h[32];
        sha256(in.s, in.len, h);
        memcpy(out, h, 16);
        out[7] = (unsigned char)((out[7] & 0x0F) | 0x50);
    }
    w->id_in = in, w->id_types = types;
}

static void write_temp(W *w, Layout *l)
{
    size_t at = pos(w);
    ptrmap_put(&w->at, l, (void *)(uintptr_t)at);
    FieldVec order = w->order;
    order.n = 0;
    for (size_t i = 0; i < l->fields.n; i++)
        vec_push(&order, l->fields.v[i]);
    for (size_t i = 0; i < l->fields.n; i++)
        for (size_t k = 0; l->fields.v[i]->is_struct && k < l->fields.v[i]->members.n; k++)
            vec_push(&order, l->fields.v[i]->members.v[k]);

    Buf bx = w->bx, x = w->x;
    bx.len = x.len = 0;
    buf_add(&bx, "\x0f\x01\x01\x00", 4);
    if (l->user_data)
        bx_userdata(l, l->user_data, 0, &bx, &x);
    else
        bx_eventdata(w, l, &bx, &x);
    buf_u8(&bx, 0x00);
    while (bx.len % 4)
        buf_u8(&bx, 0);
    unsigned char id[16];
    template_id(w, &x, l, id);

    sig(w, "TEMP");
    size_t size_at = placeholder(w);
    buf_u32le(&w->b, (uint32_t)l->fields.n);
    buf_u32le(&w->b, (uint32_t)order.n);
    buf_u32le(&w->b, (uint32_t)(at + 40 + bx.len));
    buf_u32le(&w->b, l->user_data ? 2 : 1);
    buf_add(&w->b, id, 16);
    buf_add(&w->b, bx.s, bx.len);
    Names *names = &w->names;
    for (size_t i = 0; i < order.n; i++) {
        Field *f = order.v[i];
        uint32_t flags = quantity_flags(f, &f->qty->count, false) | quantity_flags(f, &f->qty->length, true);
        if (f->is_struct) {
            buf_u32le(&w->b, flags | F_STRUCT);
            uint32_t first = f->members.n ? prop_index(f->members.v[0], &order) : 0;
            guard_here(first <= 0xFFFF && f->members.n <= 0xFFFF,
                       "struct member index or count over 65,535 (MCG6023)");
            buf_u16le(&w->b, (uint16_t)first);
            buf_u16le(&w->b, (uint16_t)f->members.n);
            buf_u32le(&w->b, 0);
        } else {
            buf_u32le(&w->b, flags);
            const InType *in = field_in_type(f);
            const OutType *out = field_out_type(f) ? field_out_type(f) : in ? in->default_out : NULL;
            buf_u8(&w->b, in ? in->value : 0);
            buf_u8(&w->b, out ? out->value : 0);
            buf_u16le(&w->b, 0);
            buf_u32le(&w->b, at_of(w, f->map));
        }
        buf_u16le(&w->b, quantity_value(&f->qty->count, &order));
        buf_u16le(&w->b, quantity_value(&f->qty->length, &order));
        name_later(w, names, f->name);
    }
    names_write(w, names);
    patch32(w, size_at, (uint32_t)(pos(w) - at));
    w->order = order;
    w->bx = bx, w->x = x;
}

static void write_ttbl(W *w, Provider *pv)
{
    size_t at = list_begin(w, "TTBL");
    for (size_t i = 0; i < pv->layouts.n; i++) {
        write_temp(w, pv->layouts.v[i]);
        flush_point(w);
    }
    list_end(w, at, (uint32_t)pv->layouts.n, false);
}

/* ---- PRVA (section 5) ---- */

static void write_prva(W *w, Provider *pv)
{
    size_t at = list_begin(w, "PRVA");
    uint32_t count = 1;
    bool control = pv->has_control_guid && !guid_zero(&pv->control_guid);
    bool group = pv->traits && pv->traits->has_group_guid;
    count += control + group;
    size_t entries = pos(w);
    for (uint32_t i = 0; i < count; i++) {
        buf_u32le(&w->b, 0);
        buf_u32le(&w->b, 0);
    }
    size_t e = entries;
    patch32(w, e, 0x10000001);
    patch32(w, e + 4, (uint32_t)pos(w));
    zstr(w, pv->name);
    e += 8;
    if (control) {
        pad4(w);
        patch32(w, e, 0x20000001);
        patch32(w, e + 4, (uint32_t)pos(w));
        guid(w, &pv->control_guid);
        e += 8;
    }
    if (group) {
        pad4(w);
        patch32(w, e, 0x20000002);
        patch32(w, e + 4, (uint32_t)pos(w));
        guid(w, &pv->traits->group_guid);
    }
    pad4(w);
    list_end(w, at, count, false);
}

/* ---- EVNT (section 7) ---- */

static int cmp_event(const void *a, const void *b)
{
    const Event *x = *(Event *const *)a, *y = *(Event *const *)b;
    return x->value < y->value ? -1 : x->value > y->value; /* ties: manifest order */
}

static void write_evnt(W *w, Event **ev, size_t n)
{
    size_t at = pos(w);
    sig(w, "EVNT");
    buf_u32le(&w->b, 0);
    buf_u32le(&w->b, (uint32_t)n);
    buf_u32le(&w->b, 0);
    VEC(size_t) arrays = {0};
    for (size_t i = 0; i < n; i++) {
        Event *e = ev[i];
        buf_u16le(&w->b, e->value);
        buf_u8(&w->b, e->version);
        buf_u8(&w->b, e->channel ? e->channel->value : 0);
        buf_u8(&w->b, e->level ? e->level->value : 0);
        buf_u8(&w->b, e->opcode ? e->opcode->value : 0);
        buf_u16le(&w->b, e->task ? e->task->value : 0);
        buf_u64le(&w->b, event_descriptor_keyword(e));
        buf_u32le(&w->b, msg(&e->msg));
        buf_u32le(&w->b, at_of(w, e->layout));
        buf_u32le(&w->b, at_of(w, e->opcode));
        buf_u32le(&w->b, at_of(w, e->level));
        buf_u32le(&w->b, at_of(w, e->task));
        buf_u32le(&w->b, (uint32_t)e->nkeywords);
        vec_push(&arrays, placeholder(w));
        buf_u32le(&w->b, at_of(w, e->channel));
    }
    for (size_t i = 0; i < n; i++) {
        Event *e = ev[i];
        if (!e->nkeywords)
            continue;
        patch32(w, arrays.v[i], (uint32_t)pos(w));
        Keyword **k = xmalloc(e->nkeywords * sizeof *k);
        memcpy(k, e->keywords, e->nkeywords * sizeof *k);
        sort_stable(k, e->nkeywords, sizeof *k, cmp_keyword);
        for (size_t j = 0; j < e->nkeywords; j++)
            buf_u32le(&w->b, at_of(w, k[j]));
        free(k);
    }
    vec_free(&arrays);
    patch32(w, at + 4, (uint32_t)(pos(w) - at));
}

/* ---- EVTA (section 8) ---- */

typedef struct Tag {
    uint8_t kind, version;
    uint16_t id;
    const char *text;
} Tag;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* attributes="A=1;B=\"x;y\"" split at ';' outside quotes, kept verbatim. */
static void split_attributes(Arena *ar, const char *s, StrVec *out)
{
    size_t start = 0, i = 0;
    bool quoted = false;
    for (;; i++) {
        if (s[i] == '"')
            quoted = !quoted;
        if (s[i] == '\0' || (s[i] == ';' && !quoted)) {
            if (i > start)
                vec_push(out, arena_strndup(ar, s + start, i - start));
            if (!s[i])
                break;
            start = i + 1;
        }
    }
}

static void write_evta(W *w, Event **ev, size_t n, Arena *ar)
{
    VEC(Tag) tags = {0};
    for (size_t i = 0; i < n; i++) {
        Event *e = ev[i];
        if (e->rare->name) {
            Tag t = {0x11, e->version, e->value, e->rare->name};
            vec_push(&tags, t);
        }
        if (e->rare->attributes) {
            StrVec parts = {0};
            split_attributes(ar, e->rare->attributes, &parts);
            for (size_t k = 0; k < parts.n; k++) {
                Tag t = {0x12, e->version, e->value, parts.v[k]};
                vec_push(&tags, t);
            }
            vec_free(&parts);
        }
    }
    size_t at = list_begin(w, "EVTA");
    StrVec pool = {0};
    for (size_t i = 0; i < tags.n; i++)
        vec_push(&pool, tags.v[i].text);
    sort_stable(pool.v, pool.n, sizeof *pool.v, cmp_str);
    size_t np = 0;
    for (size_t i = 0; i < pool.n; i++)
        if (!np || strcmp(pool.v[np - 1], pool.v[i]) != 0)
            pool.v[np++] = pool.v[i];
    pool.n = np;
    size_t entries = pos(w);
    for (size_t i = 0; i < tags.n; i++) {
        buf_u8(&w->b, tags.v[i].kind);
        buf_u8(&w->b, tags.v[i].version);
        buf_u16le(&w->b, tags.v[i].id);
        buf_u32le(&w->b, 0);
    }
    VEC(uint32_t) offs = {0};
    for (size_t i = 0; i < pool.n; i++) {
        vec_push(&offs, (uint32_t)pos(w));
        zstr(w, pool.v[i]);
    }
    for (size_t i = 0; i < tags.n; i++) {
        size_t k = 0;
        while (strcmp(pool.v[k], tags.v[i].text) != 0)
            k++;
        patch32(w, entries + 8 * i + 4, offs.v[k]);
    }
    pad4(w);
    list_end(w, at, (uint32_t)tags.n, false);
    vec_free(&offs);
    vec_free(&pool);
    vec_free(&tags);
}

static bool needs_evta(Event **ev, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (ev[i]->rare->name || ev[i]->rare->attributes)
            return true;
    return false;
}

/* ---- FLTR (section 9) ---- */

static void write_fltr(W *w, Provider *pv)
{
    size_t at = pos(w);
    sig(w, "FLTR");
    buf_u32le(&w->b, 0);
    buf_u32le(&w->b, (uint32_t)pv->filters.n);
    /* mc writes the template offset of the last filter here */
    Filter *last = pv->filters.v[pv->filters.n - 1];
    buf_u32le(&w->b, at_of(w, last->layout));
    Names *names = &w->names;
    for (size_t i = 0; i < pv->filters.n; i++) {
        Filter *f = pv->filters.v[i];
        buf_u8(&w->b, f->value);
        buf_u8(&w->b, f->version);
        buf_u16le(&w->b, 0);
        buf_u32le(&w->b, msg(&f->msg));
        name_later(w, names, f->written);
        buf_u32le(&w->b, at_of(w, f->layout));
    }
    names_write(w, names);
    patch32(w, at + 4, (uint32_t)(pos(w) - at));
}

/* ---- the provider block (section 3) ---- */

enum { L_LEVL = 0, L_TASK = 1, L_OPCO = 2, L_KEYW = 3, L_EVNT = 4, L_CHAN = 5, L_MAPS = 6,
       L_TTBL = 7, L_QTAB = 8, L_FLTR = 9, L_EVTA = 12, L_PRVA = 13 };

/*
 * mc 8.1 (6.3) ends some provider blocks 8-aligned where 10.0.15063 does
 * not.  Evidence: its CRIM 3.1 output of a manifest of two providers with
 * channels and nothing else (issue 15) has the first block 800 bytes where
 * 10.0.15063's layout gives 796: 4 zero bytes after its empty KEYW list,
 * counted in the WEVT size, so the second WEVT starts at 0x358, not 0x354.
 * The one shared 8.1 file (etk-wpf-etw, one provider with events) ends its
 * block at 0xdd98, aligned already, and lays out everything else as
 * 10.0.15063 does.  Explanations that fit both: mc 8.1 rounds a block's end
 * up to 8, or only before the next provider, or aligns the place EVNT
 * would start (absolute, as EVNT is: 0x97c0 in a block at 0x24) also when
 * there is no EVNT, or writes an empty KEYW as 16 bytes.  They disagree on
 * the last provider, on a block with events or filters, on a non-empty
 * KEYW and on a block starting at 4 mod 8 (absolute and relative alignment
 * differ there), so the padding is written only where they all agree: a
 * block that starts 8-aligned, ends with an empty KEYW at 4 mod 8, and is
 * followed by another provider.  Elsewhere the layout stays 10.0.15063's.
 * 10.0.15063 and 10.0.18362: every non-last block of their multi-provider
 * files (ImportChannelFromProvider, ReferenceChannels, ProviderTraits,
 * Large) ends 8-aligned with EVNT or FLTR last; none is a block such as
 * this, so nothing says they pad it, and they are left as they are.
 */
static bool mc81_pads_end(const W *w, size_t at, int last_list, size_t keywords, bool followed)
{
    return w->mc81 && followed && at % 8 == 0 && last_list == L_KEYW && keywords == 0 &&
           pos(w) % 8 == 4;
}

/* followed: another provider's block comes after this one */
static void write_provider(W *w, Provider *pv, Arena *ar, bool followed) /* ar: wevt_build's own */
{
    /* the lists' contents */
    VEC(Opcode *) opcodes = {0};
    VEC(Level *) levels = {0};
    VEC(Task *) tasks = {0};
    VEC(Keyword *) keywords = {0};
    NamedVec seen = {0};
    for (size_t i = 0; i < pv->opcodes.n; i++)
        vec_push(&opcodes, pv->opcodes.v[i]);
    for (size_t i = 0; i < pv->tasks.n; i++) {
        vec_push(&tasks, pv->tasks.v[i]);
        for (size_t k = 0; k < pv->tasks.v[i]->opcodes.n; k++)
            vec_push(&opcodes, pv->tasks.v[i]->opcodes.v[k]);
    }
    for (size_t i = 0; i < pv->levels.n; i++)
        vec_push(&levels, pv->levels.v[i]);
    for (size_t i = 0; i < pv->keywords.n; i++)
        vec_push(&keywords, pv->keywords.v[i]);
    /* built-in items the events use join the lists (section 5) */
    for (size_t i = 0; i < pv->events.n; i++) {
        Event *e = pv->events.v[i];
        size_t before = seen.n;
        if (e->opcode && e->opcode->n.builtin && (add_unique(&seen, &e->opcode->n), seen.n > before))
            vec_push(&opcodes, e->opcode);
        before = seen.n;
        if (e->level && e->level->n.builtin && (add_unique(&seen, &e->level->n), seen.n > before))
            vec_push(&levels, e->level);
        before = seen.n;
        if (e->task && e->task->n.builtin && (add_unique(&seen, &e->task->n), seen.n > before))
            vec_push(&tasks, e->task);
        for (size_t k = 0; k < e->nkeywords; k++) {
            before = seen.n;
            Keyword *kw = e->keywords[k];
            if (kw->n.builtin && (add_unique(&seen, &kw->n), seen.n > before))
                vec_push(&keywords, kw);
        }
    }
    sort_stable(opcodes.v, opcodes.n, sizeof *opcodes.v, cmp_opcode);
    sort_stable(levels.v, levels.n, sizeof *levels.v, cmp_level);
    sort_stable(keywords.v, keywords.n, sizeof *keywords.v, cmp_keyword);
    VEC(ValueMap *) maps = {0}, queries = {0};
    for (size_t i = 0; i < pv->maps.n; i++) {
        if (pv->maps.v[i]->kind == MAP_PATTERN)
            vec_push(&queries, pv->maps.v[i]);
        else
            vec_push(&maps, pv->maps.v[i]);
    }
    Event **events = xmalloc((pv->events.n ? pv->events.n : 1) * sizeof *events);
    if (pv->events.n)
        memcpy(events, pv->events.v, pv->events.n * sizeof *events);
    sort_stable(events, pv->events.n, sizeof *events, cmp_event);

    /* which lists, in their fixed order (section 3) */
    int lists[12], nl = 0;
    if (pv->channels.n)
        lists[nl++] = L_CHAN;
    if (maps.n)
        lists[nl++] = L_MAPS;
    if (queries.n)
        lists[nl++] = L_QTAB;
    if (pv->layouts.n)
        lists[nl++] = L_TTBL;
    if (w->major >= 5)
        lists[nl++] = L_PRVA;
    lists[nl++] = L_OPCO;
    lists[nl++] = L_LEVL;
    lists[nl++] = L_TASK;
    lists[nl++] = L_KEYW;
    if (pv->events.n)
        lists[nl++] = L_EVNT;
    if (w->major >= 5 && needs_evta(events, pv->events.n))
        lists[nl++] = L_EVTA;
    if (pv->filters.n)
        lists[nl++] = L_FLTR;

    size_t at = pos(w);
    sig(w, "WEVT");
    size_t size_at = placeholder(w);
    buf_u32le(&w->b, msg(&pv->msg));
    buf_u32le(&w->b, (uint32_t)nl);
    size_t desc = pos(w);
    int slots = w->major >= 5 ? nl : 11;
    for (int i = 0; i < slots; i++) {
        buf_u32le(&w->b, 0);
        buf_u32le(&w->b, 0);
    }
    for (int i = 0; i < nl; i++) {
        if (lists[i] == L_EVNT)
            while (pos(w) % 8) /* EVNT starts 8-aligned */
                buf_u8(&w->b, 0);
        patch32(w, desc + 8 * (size_t)i, (uint32_t)lists[i]);
        patch32(w, desc + 8 * (size_t)i + 4, (uint32_t)pos(w));
        switch (lists[i]) {
        case L_CHAN: write_chan(w, pv); break;
        case L_MAPS: write_maps(w, maps.v, maps.n); break;
        case L_QTAB: write_qtab(w, queries.v, queries.n); break;
        case L_TTBL: write_ttbl(w, pv); break;
        case L_PRVA: write_prva(w, pv); break;
        case L_OPCO: write_opco(w, opcodes.v, opcodes.n); break;
        case L_LEVL: write_levl(w, levels.v, levels.n); break;
        case L_TASK: write_task(w, tasks.v, tasks.n); break;
        case L_KEYW: write_keyw(w, keywords.v, keywords.n); break;
        case L_EVNT: write_evnt(w, events, pv->events.n); break;
        case L_EVTA: write_evta(w, events, pv->events.n, ar); break;
        case L_FLTR: write_fltr(w, pv); break;
        }
        flush_point(w);
    }
    if (mc81_pads_end(w, at, lists[nl - 1], keywords.n, followed))
        buf_u32le(&w->b, 0);
    patch32(w, size_at, (uint32_t)(pos(w) - at));
    free(events);
    vec_free(&maps);
    vec_free(&queries);
    vec_free(&seen);
    vec_free(&opcodes);
    vec_free(&levels);
    vec_free(&tasks);
    vec_free(&keywords);
}

/* The file into w->b, and through it into w->out when there is one. */
static void build(W *w)
{
    const Manifest *m = w->m;
    int major = w->major;
    sig(w, "CRIM");
    size_t size_at = placeholder(w);
    buf_u16le(&w->b, (uint16_t)major);
    buf_u16le(&w->b, 1);
    buf_u32le(&w->b, (uint32_t)m->providers.n);
    size_t table = pos(w);
    for (size_t i = 0; i < m->providers.n; i++) {
        guid(w, &m->providers.v[i]->guid);
        buf_u32le(&w->b, 0);
    }
    /* scratch strings live in an arena of our own: wevt_build may run in a
     * thread beside other writers, and touches no shared allocator state
     * but malloc's */
    Arena scratch = {0};
    for (size_t i = 0; i < m->providers.n; i++) {
        patch32(w, table + 20 * i + 16, (uint32_t)pos(w));
        write_provider(w, m->providers.v[i], &scratch, i + 1 < m->providers.n);
    }
    arena_free(&scratch);
    /* every offset and size is below the end, so all of them fit */
    guard_here(pos(w) <= UINT32_MAX, "TEMP.BIN of 4 GiB or more");
    patch32(w, size_at, (uint32_t)pos(w));
    buf_u16le(&w->b, 0); /* two bytes after the counted size (section 2) */
    ptrmap_free(&w->at);
    buf_free(&w->bx);
    buf_free(&w->x);
    buf_free(&w->id_in);
    buf_free(&w->id_types);
    vec_free(&w->names.slot);
    vec_free(&w->names.text);
    vec_free(&w->order);
    buf_free(&w->bx_data);
    buf_free(&w->bx_complex);
    buf_free(&w->bx_name_attr);
}

void wevt_build(const Manifest *m, WevtFormat format, Buf *out)
{
    W w = {.m = m, .major = format == WEVT_V5 ? 5 : 3, .mc81 = format == WEVT_V3_MC81};
    build(&w);
    if (out->len) {
        buf_add(out, w.b.s, w.b.len);
        buf_free(&w.b);
    } else {
        /* handed over, not copied */
        buf_free(out);
        *out = w.b;
    }
}

void wevt_write(const Manifest *m, WevtFormat format, Out *out)
{
    W w = {.m = m, .major = format == WEVT_V5 ? 5 : 3, .mc81 = format == WEVT_V3_MC81, .out = out};
    build(&w);
    out_put(out, w.b.s, w.b.len);
    buf_free(&w.b);
}
