/*
 * read_wevt.c - reads a WEVT_TEMPLATE resource (TEMP.BIN) back, mc's or
 * ours, strictly: every signature, size, count and offset is checked
 * against the bytes that are there before it is followed, and every entry
 * an event points at must be an entry of the list it belongs to.  The
 * first inconsistency ends the read with "offset 0x..: what is wrong".
 *
 * While reading it records which field lives where (WevtSpan), so that a
 * byte difference against mc's output can be named: wevt_explain(0x1a4)
 * -> "provider 0, EVNT[3] message id".  Layout: ../shared/docs/
 * wevt-template.md.
 */
#include "mcgen.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct R {
    const unsigned char *p;
    size_t n;
    WevtFile *out;
    Buf *err;
    int prov;   /* provider being read */
    bool spans; /* record where each field lives (--explain) */
} R;

static uint32_t u32(const R *r, size_t at)
{
    const unsigned char *p = r->p + at;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t u16(const R *r, size_t at) { return (uint32_t)(r->p[at] | r->p[at + 1] << 8); }

/* `nbytes` of UTF-16LE at `at` as UTF-8 in the file's arena. */
static const char *utf16_text(R *r, size_t at, size_t nbytes)
{
    Buf b = {0};
    utf16_to_utf8(&b, r->p + at, nbytes, false);
    const char *s = arena_strndup(&r->out->arena, b.s ? b.s : "", b.len);
    buf_free(&b);
    return s;
}

static bool fail(R *r, size_t at, const char *fmt, ...) PRINTF_LIKE(3, 4);
static bool fail(R *r, size_t at, const char *fmt, ...)
{
    buf_printf(r->err, "offset 0x%zx: ", at);
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(r->err, fmt, ap);
    va_end(ap);
    return false;
}

static void span(R *r, size_t at, size_t len, const char *fmt, ...) PRINTF_LIKE(4, 5);
static void span(R *r, size_t at, size_t len, const char *fmt, ...)
{
    if (!r->spans)
        return;
    Buf b = {0};
    if (r->prov >= 0)
        buf_printf(&b, "provider %d, ", r->prov);
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&b, fmt, ap);
    va_end(ap);
    WevtSpan s = {(uint32_t)at, (uint32_t)len, b.s};
    vec_push(&r->out->spans, s);
}

/* [at, at+len) lies within [lo, hi). */
static bool inside(size_t at, size_t len, size_t lo, size_t hi)
{
    return hi >= lo && at >= lo && len <= hi - lo && at - lo <= hi - lo - len;
}

/* A counted string at `at` within [lo, hi): u32 size (>= 6, multiple of
 * 4, inside) and a UTF-16 NUL inside it; its text into *name (UTF-8, in
 * the file's arena) when name is not NULL. */
static bool cstr_ok(R *r, size_t at, size_t lo, size_t hi, const char *what, const char **name)
{
    if (!inside(at, 4, lo, hi))
        return fail(r, at, "%s: name outside its list", what);
    uint32_t size = u32(r, at);
    if (size < 6 || size % 4 || !inside(at, size, lo, hi))
        return fail(r, at, "%s: name size %u (at least 6, a multiple of 4, inside the list)",
                    what, size);
    for (size_t i = at + 4; i + 1 < at + size; i += 2)
        if (!r->p[i] && !r->p[i + 1]) {
            if (name)
                *name = utf16_text(r, at + 4, i - (at + 4));
            return true;
        }
    return fail(r, at, "%s: name without a NUL", what);
}

/* A UTF-16 string without a size (PRVA, EVTA) at `at`, its NUL before
 * `hi`. */
static bool zstr_ok(R *r, size_t at, size_t hi, const char *what, const char **name)
{
    for (size_t i = at; i + 1 < hi; i += 2)
        if (!r->p[i] && !r->p[i + 1]) {
            *name = utf16_text(r, at, i - at);
            return true;
        }
    return fail(r, at, "%s: string without a NUL inside its list", what);
}

static Guid guid_at(const R *r, size_t at)
{
    Guid g;
    g.d1 = u32(r, at);
    g.d2 = (uint16_t)u16(r, at + 4);
    g.d3 = (uint16_t)u16(r, at + 6);
    memcpy(g.d4, r->p + at + 8, 8);
    return g;
}

/* Entry starts of one list, to check what events point at. */
typedef VEC(uint32_t) Offsets;

/* The index of the entry starting at `at`, or -1 (entry starts ascend
 * within a list). */
static int index_of(const Offsets *o, uint32_t at)
{
    size_t i = search_u32(o->v, o->n, sizeof *o->v, 0, at);
    return i < o->n && o->v[i] == at ? (int)i : -1;
}

typedef struct Lists {
    Offsets chan, opco, levl, task, keyw, temp, maps;
} Lists;

/* One entry of a named list, decoded (wevt-template.md 5, 9). */
static void entry_fields(R *r, const char *sig, size_t e, WevtItem *it)
{
    it->tmpl = -1;
    switch (sig[0]) {
    case 'C': /* CHAN: flags, name, value, message */
        it->flags = u32(r, e), it->value = u32(r, e + 8), it->message = u32(r, e + 12);
        break;
    case 'O': /* OPCO: task, value, message, name */
        it->task = (uint16_t)u16(r, e), it->value = u16(r, e + 2), it->message = u32(r, e + 4);
        break;
    case 'L': /* LEVL: value, message, name */
        it->value = u32(r, e), it->message = u32(r, e + 4);
        break;
    case 'T': /* TASK: value, message, eventGUID, name */
        it->value = u32(r, e), it->message = u32(r, e + 4), it->guid = guid_at(r, e + 8);
        break;
    case 'K': /* KEYW: mask, message, name */
        it->value = (uint64_t)u32(r, e) | (uint64_t)u32(r, e + 4) << 32;
        it->message = u32(r, e + 8);
        break;
    default: /* FLTR: value, version, 0, message, name, template */
        it->value = r->p[e], it->version = r->p[e + 1], it->message = u32(r, e + 4);
        break;
    }
}

/* A list with a header {sig, size, count} of `header` bytes (12; FLTR's
 * 16), entries of entry_size bytes whose name offset is at `name_at`,
 * decoded into *items (in the file's arena). */
static bool entry_list(R *r, size_t at, size_t end, const char *sig, size_t header,
                       size_t entry_size, size_t name_at, Offsets *starts, uint32_t *count,
                       WevtItem **items)
{
    if (!inside(at, header, at, end))
        return fail(r, at, "%s: header past the end of its provider block", sig);
    if (memcmp(r->p + at, sig, 4) != 0)
        return fail(r, at, "expected the signature %s", sig);
    uint32_t size = u32(r, at + 4), n = u32(r, at + 8);
    span(r, at, header, "%s header (signature, size %u, count %u)", sig, size, n);
    size_t lend = size ? at + size : at + header; /* empty lists: size 0 */
    if (size && (size < header || !inside(at, size, at, end)))
        return fail(r, at + 4, "%s: size %u outside its provider block", sig, size);
    if (n > (lend - at - header) / entry_size)
        return fail(r, at + 8, "%s: %u entries do not fit in %zu bytes", sig, n, lend - at);
    /* n is bounded by the bytes there: the entries can be allocated */
    *items = arena_alloc(&r->out->arena, (n ? n : 1) * sizeof **items);
    memset(*items, 0, (n ? n : 1) * sizeof **items);
    for (uint32_t i = 0; i < n; i++) {
        size_t e = at + header + (size_t)i * entry_size;
        span(r, e, entry_size, "%s[%u]", sig, i);
        vec_push(starts, (uint32_t)e);
        entry_fields(r, sig, e, &(*items)[i]);
        char what[32];
        snprintf(what, sizeof what, "%s[%u]", sig, i);
        if (!cstr_ok(r, u32(r, e + name_at), at, lend, what, &(*items)[i].name))
            return false;
    }
    *count = n;
    return true;
}

static bool read_evnt(R *r, size_t at, size_t end, Lists *l, WevtProvider *wp)
{
    if (!inside(at, 16, at, end) || memcmp(r->p + at, "EVNT", 4) != 0)
        return fail(r, at, "expected the signature EVNT");
    uint32_t size = u32(r, at + 4), n = u32(r, at + 8);
    span(r, at, 16, "EVNT header (size %u, count %u)", size, n);
    if (size < 16 || !inside(at, size, at, end))
        return fail(r, at + 4, "EVNT: size %u outside its provider block", size);
    if (n > (size - 16) / 48)
        return fail(r, at + 8, "EVNT: %u events do not fit in %u bytes", n, size);
    static const struct { size_t off, len; const char *name; } f[] = {
        {0, 2, "event id"}, {2, 1, "version"}, {3, 1, "channel value"}, {4, 1, "level value"},
        {5, 1, "opcode value"}, {6, 2, "task value"}, {8, 8, "keyword mask"},
        {16, 4, "message id"}, {20, 4, "template offset"}, {24, 4, "opcode entry offset"},
        {28, 4, "level entry offset"}, {32, 4, "task entry offset"},
        {36, 4, "keyword count"}, {40, 4, "keyword array offset"},
        {44, 4, "channel entry offset"}};
    for (uint32_t i = 0; i < n; i++) {
        size_t e = at + 16 + (size_t)i * 48;
        for (size_t k = 0; k < sizeof f / sizeof *f; k++)
            span(r, e + f[k].off, f[k].len, "EVNT[%u] %s", i, f[k].name);
        static const struct { size_t off; const char *what; int list; } refs[] = {
            {20, "template", 0}, {24, "opcode", 1}, {28, "level", 2}, {32, "task", 3},
            {44, "channel", 4}};
        const Offsets *lists[5] = {&l->temp, &l->opco, &l->levl, &l->task, &l->chan};
        int idx[5];
        for (size_t k = 0; k < 5; k++) {
            uint32_t o = u32(r, e + refs[k].off);
            idx[k] = o ? index_of(lists[refs[k].list], o) : -1;
            if (o && idx[k] < 0)
                return fail(r, e + refs[k].off, "EVNT[%u]: %s offset 0x%x is no %s entry", i,
                            refs[k].what, o, refs[k].what);
        }
        WevtEvent ev = {(uint16_t)u16(r, e), r->p[e + 2], r->p[e + 3], r->p[e + 4], r->p[e + 5],
                        (uint16_t)u16(r, e + 6),
                        (uint64_t)u32(r, e + 8) | (uint64_t)u32(r, e + 12) << 32,
                        u32(r, e + 16), idx[0], idx[4], idx[2], idx[1], idx[3], 0, NULL,
                        NULL, 0, NULL};
        uint32_t nk = u32(r, e + 36), ko = u32(r, e + 40);
        if (nk) {
            if (!inside(ko, 4 * (size_t)nk, at, at + size))
                return fail(r, e + 40, "EVNT[%u]: %u keywords at 0x%x outside EVNT", i, nk, ko);
            ev.nkeyw = nk;
            ev.keyw = arena_alloc(&r->out->arena, nk * sizeof *ev.keyw);
            for (uint32_t k = 0; k < nk; k++) {
                span(r, ko + 4 * (size_t)k, 4, "EVNT[%u] keyword %u offset", i, k);
                ev.keyw[k] = index_of(&l->keyw, u32(r, ko + 4 * (size_t)k));
                if (ev.keyw[k] < 0)
                    return fail(r, ko + 4 * (size_t)k, "EVNT[%u]: keyword %u is no KEYW entry", i,
                                k);
            }
        }
        vec_push(&wp->events, ev);
    }
    return true;
}

/* ---- the template's BinXml (wevt-template.md 10.3), as XML text ---- */

typedef struct Bx {
    R *r;
    size_t at, end;
    Buf *xml;
    const char *root_name; /* the root element's Name attribute, or NULL */
    int depth;
} Bx;

/* u16 hash, u16 nchars, chars, NUL: the name as UTF-8. */
static bool bx_name(Bx *x, const char **name)
{
    if (x->end - x->at < 4)
        return fail(x->r, x->at, "BinXml: name past the end of the fragment");
    size_t nchars = u16(x->r, x->at + 2);
    if ((x->end - x->at - 4) / 2 < nchars + 1)
        return fail(x->r, x->at, "BinXml: name of %zu characters past the end of the fragment",
                    nchars);
    *name = utf16_text(x->r, x->at + 4, 2 * nchars);
    x->at += 4 + 2 * nchars + 2;
    return true;
}

/* 05 01 u16 nchars chars: a string value. */
static bool bx_value(Bx *x, const char **text)
{
    if (x->end - x->at < 4 || x->r->p[x->at] != 0x05 || x->r->p[x->at + 1] != 0x01)
        return fail(x->r, x->at, "BinXml: expected a string value (05 01)");
    size_t nchars = u16(x->r, x->at + 2);
    if ((x->end - x->at - 4) / 2 < nchars)
        return fail(x->r, x->at, "BinXml: value past the end of the fragment");
    *text = utf16_text(x->r, x->at + 4, 2 * nchars);
    x->at += 4 + 2 * nchars;
    return true;
}

static bool bx_element(Bx *x)
{
    R *r = x->r;
    if (++x->depth > 64)
        return fail(r, x->at, "BinXml: elements nested more than 64 deep");
    unsigned tok = r->p[x->at];
    if (x->end - x->at < 7)
        return fail(r, x->at, "BinXml: element header past the end of the fragment");
    x->at += 7; /* token, dependency id, data size */
    const char *name;
    if (!bx_name(x, &name))
        return false;
    buf_printf(x->xml, "<%s", name);
    if (tok & 0x40) {
        if (x->end - x->at < 4)
            return fail(r, x->at, "BinXml: attribute list past the end of the fragment");
        x->at += 4;
        for (bool more = true; more;) {
            if (x->at >= x->end || (r->p[x->at] & 0xBF) != 0x06)
                return fail(r, x->at, "BinXml: expected an attribute (06 or 46)");
            more = r->p[x->at++] & 0x40;
            const char *an, *av;
            if (!bx_name(x, &an) || !bx_value(x, &av))
                return false;
            if (x->depth == 1 && strcmp(an, "Name") == 0)
                x->root_name = av;
            buf_printf(x->xml, " %s=\"", an);
            buf_add_xml(x->xml, av, true);
            buf_addc(x->xml, '"');
        }
    }
    if (x->at >= x->end)
        return fail(r, x->at, "BinXml: element without its close-start token");
    if (r->p[x->at] == 0x03) { /* close-empty */
        x->at++;
        buf_adds(x->xml, "/>");
        x->depth--;
        return true;
    }
    if (r->p[x->at++] != 0x02)
        return fail(r, x->at - 1, "BinXml: expected the close-start token 02 or 03");
    buf_addc(x->xml, '>');
    for (;;) {
        if (x->at >= x->end)
            return fail(r, x->at, "BinXml: element <%s> without its end token", name);
        unsigned t = r->p[x->at];
        if (t == 0x04) {
            x->at++;
            break;
        }
        if (t == 0x01 || t == 0x41) {
            if (!bx_element(x))
                return false;
        } else if (t == 0x0D || t == 0x0E) {
            if (x->end - x->at < 4)
                return fail(r, x->at, "BinXml: substitution past the end of the fragment");
            buf_printf(x->xml, "%%%u", u16(r, x->at + 1) + 1);
            x->at += 4;
        } else if (t == 0x05) {
            const char *text;
            if (!bx_value(x, &text))
                return false;
            buf_add_xml(x->xml, text, false);
        } else {
            return fail(r, x->at, "BinXml: token 0x%02x inside <%s>", t, name);
        }
    }
    buf_printf(x->xml, "</%s>", name);
    x->depth--;
    return true;
}

/* The fragment [at, end): header 0F 01 01 00, one element, 00, zero
 * padding. */
static bool read_binxml(R *r, size_t at, size_t end, WevtTemplate *tp)
{
    Buf xml = {0};
    Bx x = {r, at, end, &xml, NULL, 0};
    bool ok = true;
    if (end - at < 5 || memcmp(r->p + at, "\x0F\x01\x01\x00", 4) != 0)
        ok = fail(r, at, "BinXml: expected the fragment header 0F 01 01 00");
    else if (x.at += 4, r->p[x.at] != 0x01 && r->p[x.at] != 0x41)
        ok = fail(r, x.at, "BinXml: expected an element");
    else if (!bx_element(&x))
        ok = false;
    else if (x.at >= end || r->p[x.at] != 0x00)
        ok = fail(r, x.at, "BinXml: expected the end of the fragment (00)");
    if (ok) {
        tp->xml = arena_strndup(&r->out->arena, xml.s ? xml.s : "", xml.len);
        tp->name = x.root_name;
    }
    buf_free(&xml);
    return ok;
}

static bool read_ttbl(R *r, size_t at, size_t end, Lists *l, WevtProvider *wp)
{
    if (!inside(at, 12, at, end) || memcmp(r->p + at, "TTBL", 4) != 0)
        return fail(r, at, "expected the signature TTBL");
    uint32_t size = u32(r, at + 4), n = u32(r, at + 8);
    span(r, at, 12, "TTBL header (size %u, count %u)", size, n);
    if (size < 12 || !inside(at, size, at, end))
        return fail(r, at + 4, "TTBL: size %u outside its provider block", size);
    if (n > (size - 12) / 40)
        return fail(r, at + 8, "TTBL: %u templates do not fit in %u bytes", n, size);
    wp->temp = arena_alloc(&r->out->arena, (n ? n : 1) * sizeof *wp->temp);
    size_t t = at + 12, lend = at + size;
    for (uint32_t i = 0; i < n; i++) {
        if (!inside(t, 40, t, lend) || memcmp(r->p + t, "TEMP", 4) != 0)
            return fail(r, t, "TTBL: template %u: expected the signature TEMP", i);
        uint32_t tsize = u32(r, t + 4), nprops = u32(r, t + 12), props = u32(r, t + 16);
        if (tsize < 40 || !inside(t, tsize, t, lend))
            return fail(r, t + 4, "TEMP[%u]: size %u outside TTBL", i, tsize);
        if (!inside(props, 20 * (size_t)nprops, t + 40, t + tsize))
            return fail(r, t + 16, "TEMP[%u]: %u properties at 0x%x outside the template", i,
                        nprops, props);
        /* properties are numbered in 16 bits (substitutions, count/length,
         * struct members: wevt-template.md 10.1); the writers refuse more
         * (MCG6023), so more is a file whose indices have wrapped */
        uint32_t ntop = u32(r, t + 8);
        if (nprops > 65536 || ntop > nprops)
            return fail(r, t + 8, "TEMP[%u]: %u top-level properties of %u (at most 65536, "
                        "numbered in 16 bits)", i, ntop, nprops);
        span(r, t, 24, "TEMP[%u] header", i);
        span(r, t + 24, 16, "TEMP[%u] template id", i);
        span(r, t + 40, props - (t + 40), "TEMP[%u] BinXml", i);
        vec_push(&l->temp, (uint32_t)t);
        WevtTemplate *tp = &wp->temp[i];
        memset(tp, 0, sizeof *tp);
        tp->kind = u32(r, t + 20);
        tp->ntop = ntop;
        memcpy(tp->id, r->p + t + 24, 16);
        if (!read_binxml(r, t + 40, props, tp))
            return false;
        tp->n = nprops; /* bounded by the bytes there (inside above) */
        tp->props = arena_alloc(&r->out->arena, (nprops ? nprops : 1) * sizeof *tp->props);
        wp->templates = i + 1;
        for (uint32_t k = 0; k < nprops; k++) {
            size_t pe = props + 20 * (size_t)k;
            span(r, pe, 20, "TEMP[%u] property %u", i, k);
            uint32_t map = u32(r, pe + 8), flags = u32(r, pe);
            uint32_t first = u16(r, pe + 4), count = u16(r, pe + 6);
            if ((flags & 1) && count && (first < ntop || first + count > nprops))
                return fail(r, pe + 4, "TEMP[%u] property %u: struct members %u..%u outside the "
                            "members %u..%u", i, k, first, first + count - 1, ntop, nprops - 1);
            uint32_t cnt = u16(r, pe + 12), len = u16(r, pe + 14);
            if (((flags & 0x10) && cnt >= nprops) || ((flags & 0x4) && len >= nprops))
                return fail(r, pe + 12, "TEMP[%u] property %u: count or length names property "
                            "%u of %u", i, k, (flags & 0x10) && cnt >= nprops ? cnt : len,
                            nprops);
            int mi = !(flags & 1) && map ? index_of(&l->maps, map) : -1;
            if (!(flags & 1) && map && mi < 0)
                return fail(r, pe + 8, "TEMP[%u] property %u: map offset 0x%x is no map", i, k,
                            map);
            WevtProperty *pp = &tp->props[k];
            *pp = (WevtProperty){flags, 0, 0, 0, 0, mi, (uint16_t)cnt, (uint16_t)len, NULL};
            if (flags & 1)
                pp->first = (uint16_t)first, pp->members = (uint16_t)count;
            else
                pp->in = r->p[pe + 4], pp->out = r->p[pe + 5];
            char what[40];
            snprintf(what, sizeof what, "TEMP[%u] property %u", i, k);
            if (!cstr_ok(r, u32(r, pe + 16), t, t + tsize, what, &pp->name))
                return false;
        }
        t += tsize;
    }
    if (t != lend)
        return fail(r, t, "TTBL: %zu bytes after the last template", lend - t);
    return true;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static bool read_maps(R *r, size_t at, size_t end, Lists *l, WevtProvider *wp)
{
    if (!inside(at, 12, at, end) || memcmp(r->p + at, "MAPS", 4) != 0)
        return fail(r, at, "expected the signature MAPS");
    uint32_t size = u32(r, at + 4), n = u32(r, at + 8);
    span(r, at, 12, "MAPS header (size %u, count %u)", size, n);
    if (size < 12 || !inside(at, size, at, end) || n > (size - 12) / 24)
        return fail(r, at + 4, "MAPS: size %u and count %u do not fit", size, n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t m = u32(r, at + 12 + 4 * (size_t)i);
        span(r, at + 12 + 4 * (size_t)i, 4, "MAPS offset %u", i);
        if (!inside(m, 20, at, at + size) ||
            (memcmp(r->p + m, "VMAP", 4) != 0 && memcmp(r->p + m, "BMAP", 4) != 0))
            return fail(r, at + 12 + 4 * (size_t)i, "MAPS: entry %u at 0x%x is no VMAP/BMAP", i,
                        m);
        uint32_t items = u32(r, m + 16);
        if (u32(r, m + 4) != 20 + 8 * (uint64_t)items || !inside(m, 20 + 8 * (size_t)items, at,
                                                                  at + size))
            return fail(r, m + 4, "MAPS: map at 0x%x: size does not match %u items", m, items);
        span(r, m, 20 + 8 * (size_t)items, "map at 0x%x (%u items)", m, items);
        vec_push(&l->maps, m);
        if (!cstr_ok(r, u32(r, m + 8), at, at + size, "map", NULL))
            return false;
    }
    /* the offsets are in name order, the maps themselves in manifest
     * order: the provider's list (and index_of) takes them by offset */
    sort_stable(l->maps.v, l->maps.n, sizeof *l->maps.v, cmp_u32);
    wp->maps = arena_alloc(&r->out->arena, (n ? n : 1) * sizeof *wp->maps);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t m = l->maps.v[i];
        if (i && m == l->maps.v[i - 1])
            return fail(r, at + 12, "MAPS: two offsets name the map at 0x%x", m);
        WevtMap *mp = &wp->maps[i];
        mp->bitmap = r->p[m] == 'B';
        mp->n = u32(r, m + 16);
        mp->items = arena_alloc(&r->out->arena, (mp->n ? mp->n : 1) * sizeof *mp->items);
        for (size_t k = 0; k < mp->n; k++)
            mp->items[k] = (WevtMapItem){u32(r, m + 20 + 8 * k), u32(r, m + 24 + 8 * k)};
        cstr_ok(r, u32(r, m + 8), at, at + size, "map", &mp->name);
    }
    wp->nmaps = n;
    return true;
}

/* PRVA (v5): the provider's name, then its control and group GUIDs. */
static bool read_prva(R *r, size_t at, size_t end, WevtProvider *wp)
{
    if (!inside(at, 12, at, end) || memcmp(r->p + at, "PRVA", 4) != 0)
        return fail(r, at, "expected the signature PRVA");
    uint32_t size = u32(r, at + 4), n = u32(r, at + 8);
    if (size < 12 || !inside(at, size, at, end) || n > (size - 12) / 8)
        return fail(r, at + 4, "PRVA: size %u and count %u do not fit", size, n);
    span(r, at, size, "PRVA list");
    for (uint32_t i = 0; i < n; i++) {
        size_t e = at + 12 + 8 * (size_t)i;
        uint32_t kind = u32(r, e), v = u32(r, e + 4);
        if (kind == 0x10000001) {
            if (!inside(v, 2, at, at + size) || !zstr_ok(r, v, at + size, "PRVA name", &wp->name))
                return fail(r, e + 4, "PRVA: the name at 0x%x is not inside the list", v);
        } else if (kind == 0x20000001 || kind == 0x20000002) {
            if (!inside(v, 16, at, at + size))
                return fail(r, e + 4, "PRVA: the GUID at 0x%x is not inside the list", v);
            *(kind == 0x20000001 ? &wp->control : &wp->group) = guid_at(r, v);
            *(kind == 0x20000001 ? &wp->has_control : &wp->has_group) = true;
        } else {
            return fail(r, e, "PRVA: unknown attribute kind 0x%x", kind);
        }
    }
    return true;
}

/* The event of (id, version), or NULL: events are sorted by id. */
static WevtEvent *event_of(WevtProvider *wp, uint32_t id, uint32_t version)
{
    size_t lo = 0, hi = wp->events.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (wp->events.v[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < wp->events.n && wp->events.v[lo].id == id; lo++)
        if (wp->events.v[lo].version == version)
            return &wp->events.v[lo];
    return NULL;
}

/* EVTA (v5): event names and attributes, after EVNT. */
static bool read_evta(R *r, size_t at, size_t end, WevtProvider *wp)
{
    if (!inside(at, 12, at, end) || memcmp(r->p + at, "EVTA", 4) != 0)
        return fail(r, at, "expected the signature EVTA");
    uint32_t size = u32(r, at + 4), n = u32(r, at + 8);
    if (size < 12 || !inside(at, size, at, end) || n > (size - 12) / 8)
        return fail(r, at + 4, "EVTA: size %u and count %u do not fit", size, n);
    span(r, at, size, "EVTA list");
    for (int pass = 0; pass < 2; pass++) {
        /* the first pass counts each event's attributes, the second fills them */
        for (uint32_t i = 0; i < n; i++) {
            size_t e = at + 12 + 8 * (size_t)i;
            unsigned kind = r->p[e];
            WevtEvent *ev = event_of(wp, u16(r, e + 2), r->p[e + 1]);
            if (!ev)
                return fail(r, e, "EVTA[%u]: event %u version %u is not in EVNT", i,
                            u16(r, e + 2), r->p[e + 1]);
            if (kind != 0x11 && kind != 0x12)
                return fail(r, e, "EVTA[%u]: kind 0x%x (0x11 name, 0x12 attribute)", i, kind);
            if (pass == 0) {
                uint32_t v = u32(r, e + 4);
                const char *text;
                if (!inside(v, 2, at, at + size) || !zstr_ok(r, v, at + size, "EVTA", &text))
                    return fail(r, e + 4, "EVTA[%u]: the string at 0x%x is not inside the list",
                                i, v);
                if (kind == 0x11)
                    ev->name = text;
                else
                    ev->nattrs++;
            } else if (kind == 0x12) {
                if (!ev->attrs) {
                    ev->attrs = arena_alloc(&r->out->arena, ev->nattrs * sizeof *ev->attrs);
                    ev->nattrs = 0;
                }
                zstr_ok(r, u32(r, e + 4), at + size, "EVTA", &ev->attrs[ev->nattrs++]);
            }
        }
    }
    return true;
}

/* FLTR: entries {value, version, 0, message, name, template}. */
static bool read_fltr(R *r, size_t at, size_t end, const Lists *l, WevtProvider *wp)
{
    Offsets starts = {0};
    uint32_t n = 0;
    bool ok = entry_list(r, at, end, "FLTR", 16, 16, 8, &starts, &n, &wp->filters);
    vec_free(&starts);
    wp->nfilters = n;
    for (uint32_t i = 0; ok && i < n; i++) {
        size_t e = at + 16 + 16 * (size_t)i;
        uint32_t t = u32(r, e + 12);
        wp->filters[i].tmpl = t ? index_of(&l->temp, t) : -1;
        if (t && wp->filters[i].tmpl < 0)
            ok = fail(r, e + 12, "FLTR[%u]: template offset 0x%x is no template", i, t);
    }
    return ok;
}

/* QTAB: patternMaps {QUER: name, format, items {name, value}}, strings
 * in the list's pool. */
static bool read_qtab(R *r, size_t at, size_t end, WevtProvider *wp)
{
    if (!inside(at, 12, at, end) || memcmp(r->p + at, "QTAB", 4) != 0)
        return fail(r, at, "expected the signature QTAB");
    uint32_t size = u32(r, at + 4), n = u32(r, at + 8);
    if (size < 12 || !inside(at, size, at, end) || n > (size - 12) / 24)
        return fail(r, at + 4, "QTAB: size %u and count %u do not fit", size, n);
    span(r, at, size, "QTAB list");
    size_t lend = at + size;
    wp->queries = arena_alloc(&r->out->arena, (n ? n : 1) * sizeof *wp->queries);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t q = u32(r, at + 12 + 4 * (size_t)i);
        if (!inside(q, 20, at, lend) || memcmp(r->p + q, "QUER", 4) != 0)
            return fail(r, at + 12 + 4 * (size_t)i, "QTAB: entry %u at 0x%x is no QUER", i, q);
        uint32_t items = u32(r, q + 16);
        if (!inside(q + 20, 8 * (size_t)items, at, lend))
            return fail(r, q + 16, "QUER[%u]: %u items do not fit in the list", i, items);
        WevtQuery *wq = &wp->queries[i];
        wq->n = items;
        wq->item_names = arena_alloc(&r->out->arena, (items ? items : 1) * sizeof(char *));
        wq->item_values = arena_alloc(&r->out->arena, (items ? items : 1) * sizeof(char *));
        char what[32];
        snprintf(what, sizeof what, "QUER[%u]", i);
        if (!cstr_ok(r, u32(r, q + 8), at, lend, what, &wq->name) ||
            !cstr_ok(r, u32(r, q + 12), at, lend, what, &wq->format))
            return false;
        for (uint32_t k = 0; k < items; k++)
            if (!cstr_ok(r, u32(r, q + 20 + 8 * (size_t)k), at, lend, what, &wq->item_names[k]) ||
                !cstr_ok(r, u32(r, q + 24 + 8 * (size_t)k), at, lend, what, &wq->item_values[k]))
                return false;
    }
    wp->nqueries = n;
    return true;
}

static const char *list_sig(uint32_t type)
{
    static const char *s[] = {"LEVL", "TASK", "OPCO", "KEYW", "EVNT", "CHAN", "MAPS",
                              "TTBL", "QTAB", "FLTR", NULL, NULL, "EVTA", "PRVA"};
    return type < sizeof s / sizeof *s ? s[type] : NULL;
}

static bool read_provider(R *r, size_t at, size_t end, int major, WevtProvider *wp)
{
    if (!inside(at, 16, 0, end) || memcmp(r->p + at, "WEVT", 4) != 0)
        return fail(r, at, "expected the signature WEVT");
    uint32_t size = u32(r, at + 4), nl = u32(r, at + 12);
    if (size < 16 || !inside(at, size, 0, end))
        return fail(r, at + 4, "WEVT: size %u past the end of the file", size);
    size_t wend = at + size;
    size_t slots = major >= 5 ? nl : 11;
    if (nl > 13 || !inside(at + 16, 8 * slots, at, wend))
        return fail(r, at + 12, "WEVT: %u lists do not fit", nl);
    span(r, at, 16, "WEVT header (size %u, %u lists)", size, nl);
    span(r, at + 8, 4, "provider message id");
    wp->message = u32(r, at + 8);
    Lists l = {0};
    bool ok = true;
    uint32_t seen = 0; /* list types read */
    /* read in physical order: the lists an event points at come first */
    for (uint32_t i = 0; ok && i < nl; i++) {
        uint32_t type = u32(r, at + 16 + 8 * (size_t)i), off = u32(r, at + 20 + 8 * (size_t)i);
        span(r, at + 16 + 8 * (size_t)i, 8, "list descriptor %u", i);
        const char *sig = list_sig(type);
        if (!sig) {
            ok = fail(r, at + 16 + 8 * (size_t)i, "WEVT: unknown list type %u", type);
            break;
        }
        if (!inside(off, 12, at, wend)) {
            ok = fail(r, at + 20 + 8 * (size_t)i, "WEVT: %s at 0x%x outside the block", sig, off);
            break;
        }
        if (seen & 1u << type) {
            ok = fail(r, at + 16 + 8 * (size_t)i, "WEVT: a second %s list", sig);
            break;
        }
        seen |= 1u << type;
        uint32_t n = 0;
        switch (type) {
        case 5:
            ok = entry_list(r, off, wend, "CHAN", 12, 16, 4, &l.chan, &n, &wp->chan);
            wp->channels = n;
            break;
        case 2:
            ok = entry_list(r, off, wend, "OPCO", 12, 12, 8, &l.opco, &n, &wp->opco);
            wp->opcodes = n;
            break;
        case 0:
            ok = entry_list(r, off, wend, "LEVL", 12, 12, 8, &l.levl, &n, &wp->levl);
            wp->levels = n;
            break;
        case 1:
            ok = entry_list(r, off, wend, "TASK", 12, 28, 24, &l.task, &n, &wp->task);
            wp->tasks = n;
            break;
        case 3:
            ok = entry_list(r, off, wend, "KEYW", 12, 16, 12, &l.keyw, &n, &wp->keyw);
            wp->keywords = n;
            break;
        case 6: ok = read_maps(r, off, wend, &l, wp); break;
        case 7: ok = read_ttbl(r, off, wend, &l, wp); break;
        case 4: ok = read_evnt(r, off, wend, &l, wp); break;
        case 9: ok = read_fltr(r, off, wend, &l, wp); break;
        case 12: ok = read_evta(r, off, wend, wp); break;
        case 13: ok = read_prva(r, off, wend, wp); break;
        default: ok = read_qtab(r, off, wend, wp); break; /* 8 */
        }
    }
    vec_free(&l.chan);
    vec_free(&l.opco);
    vec_free(&l.levl);
    vec_free(&l.task);
    vec_free(&l.keyw);
    vec_free(&l.temp);
    vec_free(&l.maps);
    return ok;
}

bool wevt_read(const void *bytes, size_t n, WevtFile *out, Buf *err)
{
    return wevt_read_content(bytes, n, out, err, true);
}

bool wevt_read_content(const void *bytes, size_t n, WevtFile *out, Buf *err, bool spans)
{
    memset(out, 0, sizeof *out);
    R r = {bytes, n, out, err, -1, spans};
    if (n < 16 || memcmp(r.p, "CRIM", 4) != 0)
        return fail(&r, 0, "%zu bytes: not a WEVT_TEMPLATE resource (no CRIM header)", n);
    uint32_t size = u32(&r, 4), np = u32(&r, 12);
    out->major = u16(&r, 8);
    out->minor = u16(&r, 10);
    span(&r, 0, 16, "CRIM header (size %u, version %u.%u, %u providers)", size, out->major,
         out->minor, np);
    if (size + (size_t)2 != n || r.p[n - 2] || r.p[n - 1])
        return fail(&r, 4, "CRIM size %u: mc's files are that plus two zero bytes; this one has "
                           "%zu bytes",
                    size, n);
    if ((out->major != 5 && out->major != 3) || out->minor != 1)
        return fail(&r, 8, "CRIM version %u.%u (5.1 or 3.1)", out->major, out->minor);
    if (size < 16 || np > (size - 16) / 20)
        return fail(&r, 12, "%u providers do not fit", np);
    for (uint32_t i = 0; i < np; i++) {
        size_t e = 16 + 20 * (size_t)i;
        span(&r, e, 16, "provider table %u GUID", i);
        span(&r, e + 16, 4, "provider table %u WEVT offset", i);
        WevtProvider wp = {0};
        wp.guid = guid_at(&r, e);
        r.prov = (int)i;
        bool ok = read_provider(&r, u32(&r, e + 16), size, out->major, &wp);
        r.prov = -1;
        vec_push(&out->providers, wp);
        if (!ok)
            return false;
    }
    return true;
}

const char *wevt_explain(const WevtFile *f, uint32_t offset)
{
    /* the narrowest recorded span containing the offset */
    const WevtSpan *best = NULL;
    for (size_t i = 0; i < f->spans.n; i++) {
        const WevtSpan *s = &f->spans.v[i];
        if (offset >= s->at && offset - s->at < s->len && (!best || s->len < best->len))
            best = s;
    }
    return best ? best->what : "(not inside any recorded field)";
}

void wevt_free(WevtFile *f)
{
    for (size_t i = 0; i < f->providers.n; i++)
        vec_free(&f->providers.v[i].events);
    vec_free(&f->providers);
    for (size_t i = 0; i < f->spans.n; i++)
        free(f->spans.v[i].what);
    vec_free(&f->spans);
    arena_free(&f->arena);
}
