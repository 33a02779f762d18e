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
    int prov; /* provider being read */
} R;

static uint32_t u32(const R *r, size_t at)
{
    const unsigned char *p = r->p + at;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t u16(const R *r, size_t at) { return (uint32_t)(r->p[at] | r->p[at + 1] << 8); }

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
 * 4, inside) and a UTF-16 NUL inside it. */
static bool cstr_ok(R *r, size_t at, size_t lo, size_t hi, const char *what)
{
    if (!inside(at, 4, lo, hi))
        return fail(r, at, "%s: name outside its list", what);
    uint32_t size = u32(r, at);
    if (size < 6 || size % 4 || !inside(at, size, lo, hi))
        return fail(r, at, "%s: name size %u (at least 6, a multiple of 4, inside the list)",
                    what, size);
    for (size_t i = at + 4; i + 1 < at + size; i += 2)
        if (!r->p[i] && !r->p[i + 1])
            return true;
    return fail(r, at, "%s: name without a NUL", what);
}

/* Entry starts of one list, to check what events point at. */
typedef VEC(uint32_t) Offsets;

static bool member(const Offsets *o, uint32_t at)
{
    for (size_t i = 0; i < o->n; i++)
        if (o->v[i] == at)
            return true;
    return false;
}

typedef struct Lists {
    Offsets chan, opco, levl, task, keyw, temp, maps;
} Lists;

/* A list with a 12-byte header {sig, size, count}; entry_size > 0 for
 * entry lists whose entries carry a name offset at `name_at`. */
static bool entry_list(R *r, size_t at, size_t end, const char *sig, size_t entry_size,
                       size_t name_at, Offsets *starts, uint32_t *count)
{
    if (!inside(at, 12, at, end))
        return fail(r, at, "%s: header past the end of its provider block", sig);
    if (memcmp(r->p + at, sig, 4) != 0)
        return fail(r, at, "expected the signature %s", sig);
    uint32_t size = u32(r, at + 4), n = u32(r, at + 8);
    span(r, at, 12, "%s header (signature, size %u, count %u)", sig, size, n);
    size_t lend = size ? at + size : at + 12; /* empty lists: size 0 */
    if (size && (size < 12 || !inside(at, size, at, end)))
        return fail(r, at + 4, "%s: size %u outside its provider block", sig, size);
    if (n > (lend - at - 12) / (entry_size ? entry_size : 1))
        return fail(r, at + 8, "%s: %u entries do not fit in %zu bytes", sig, n, lend - at);
    for (uint32_t i = 0; i < n && entry_size; i++) {
        size_t e = at + 12 + (size_t)i * entry_size;
        span(r, e, entry_size, "%s[%u]", sig, i);
        vec_push(starts, (uint32_t)e);
        char what[32];
        snprintf(what, sizeof what, "%s[%u]", sig, i);
        if (!cstr_ok(r, u32(r, e + name_at), at, lend, what))
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
        for (size_t k = 0; k < 5; k++) {
            uint32_t o = u32(r, e + refs[k].off);
            if (o && !member(lists[refs[k].list], o))
                return fail(r, e + refs[k].off, "EVNT[%u]: %s offset 0x%x is no %s entry", i,
                            refs[k].what, o, refs[k].what);
        }
        uint32_t nk = u32(r, e + 36), ko = u32(r, e + 40);
        if (nk) {
            if (!inside(ko, 4 * (size_t)nk, at, at + size))
                return fail(r, e + 40, "EVNT[%u]: %u keywords at 0x%x outside EVNT", i, nk, ko);
            for (uint32_t k = 0; k < nk; k++) {
                span(r, ko + 4 * (size_t)k, 4, "EVNT[%u] keyword %u offset", i, k);
                if (!member(&l->keyw, u32(r, ko + 4 * (size_t)k)))
                    return fail(r, ko + 4 * (size_t)k, "EVNT[%u]: keyword %u is no KEYW entry", i,
                                k);
            }
        }
        WevtEvent ev = {(uint16_t)u16(r, e), r->p[e + 2], r->p[e + 3], r->p[e + 4], r->p[e + 5],
                        (uint16_t)u16(r, e + 6),
                        (uint64_t)u32(r, e + 8) | (uint64_t)u32(r, e + 12) << 32,
                        u32(r, e + 16)};
        vec_push(&wp->events, ev);
    }
    return true;
}

static bool read_ttbl(R *r, size_t at, size_t end, Lists *l)
{
    if (!inside(at, 12, at, end) || memcmp(r->p + at, "TTBL", 4) != 0)
        return fail(r, at, "expected the signature TTBL");
    uint32_t size = u32(r, at + 4), n = u32(r, at + 8);
    span(r, at, 12, "TTBL header (size %u, count %u)", size, n);
    if (size < 12 || !inside(at, size, at, end))
        return fail(r, at + 4, "TTBL: size %u outside its provider block", size);
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
            if (!(flags & 1) && map && !member(&l->maps, map))
                return fail(r, pe + 8, "TEMP[%u] property %u: map offset 0x%x is no map", i, k,
                            map);
            char what[40];
            snprintf(what, sizeof what, "TEMP[%u] property %u", i, k);
            if (!cstr_ok(r, u32(r, pe + 16), t, t + tsize, what))
                return false;
        }
        t += tsize;
    }
    if (t != lend)
        return fail(r, t, "TTBL: %zu bytes after the last template", lend - t);
    return true;
}

static bool read_maps(R *r, size_t at, size_t end, Lists *l)
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
        if (!cstr_ok(r, u32(r, m + 8), at, at + size, "map"))
            return false;
    }
    return true;
}

/* PRVA, EVTA, FLTR, QTAB: bounds only. */
static bool read_plain(R *r, size_t at, size_t end, const char *sig, size_t header)
{
    if (!inside(at, header, at, end) || memcmp(r->p + at, sig, 4) != 0)
        return fail(r, at, "expected the signature %s", sig);
    uint32_t size = u32(r, at + 4);
    if (size < header || !inside(at, size, at, end))
        return fail(r, at + 4, "%s: size %u outside its provider block", sig, size);
    span(r, at, size, "%s list", sig);
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
        uint32_t n = 0;
        switch (type) {
        case 5: ok = entry_list(r, off, wend, "CHAN", 16, 4, &l.chan, &n), wp->channels = n; break;
        case 2: ok = entry_list(r, off, wend, "OPCO", 12, 8, &l.opco, &n), wp->opcodes = n; break;
        case 0: ok = entry_list(r, off, wend, "LEVL", 12, 8, &l.levl, &n), wp->levels = n; break;
        case 1: ok = entry_list(r, off, wend, "TASK", 28, 24, &l.task, &n), wp->tasks = n; break;
        case 3: ok = entry_list(r, off, wend, "KEYW", 16, 12, &l.keyw, &n), wp->keywords = n; break;
        case 6: ok = read_maps(r, off, wend, &l); break;
        case 7: ok = read_ttbl(r, off, wend, &l), wp->templates = (uint32_t)l.temp.n; break;
        case 4: ok = read_evnt(r, off, wend, &l, wp); break;
        case 9: ok = read_plain(r, off, wend, "FLTR", 16); break;
        default: ok = read_plain(r, off, wend, sig, 12); break;
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
    memset(out, 0, sizeof *out);
    R r = {bytes, n, out, err, -1};
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
    if (np > (size - 16) / 20)
        return fail(&r, 12, "%u providers do not fit", np);
    for (uint32_t i = 0; i < np; i++) {
        size_t e = 16 + 20 * (size_t)i;
        span(&r, e, 16, "provider table %u GUID", i);
        span(&r, e + 16, 4, "provider table %u WEVT offset", i);
        WevtProvider wp = {0};
        const unsigned char *g = r.p + e;
        wp.guid.d1 = u32(&r, e);
        wp.guid.d2 = (uint16_t)u16(&r, e + 4);
        wp.guid.d3 = (uint16_t)u16(&r, e + 6);
        memcpy(wp.guid.d4, g + 8, 8);
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
}
