/*
 * read_pe.c - a PE32 or PE32+ image (.dll, .exe, .sys) as the list of its
 * resources, read from the resource directory (data directory 2): three
 * levels of IMAGE_RESOURCE_DIRECTORY (type, name, language), each entry a
 * number or a UTF-16 name, the leaves IMAGE_RESOURCE_DATA_ENTRY {RVA,
 * size}.  RVAs become file offsets through the section table (the bytes a
 * section has in the file, not its virtual size).  Everything is checked
 * against the bytes there before it is followed ("offset 0x..: what is
 * wrong", bin_fail); directories may share subdirectories, so the entries
 * visited are bounded by what the resource section can hold (8 bytes an
 * entry): a directory that points back at itself is an error, not a loop.
 * Layout: the PE/COFF specification, "The .rsrc Section".
 */
#include "mcgen.h"

#include <string.h>

bool pe_is(const unsigned char *head, size_t n)
{
    return n >= 2 && head[0] == 'M' && head[1] == 'Z';
}

typedef struct Pe {
    const unsigned char *p;
    size_t n;
    size_t sections, nsections; /* the section table */
    size_t rsrc, rsrc_size;     /* the resource section's bytes in the file */
    uint32_t rsrc_rva;
    size_t budget; /* directory entries that may still be visited */
    ResourceList *out;
    Arena *a;
    Buf *err;
} Pe;

/* The file offset of `size` bytes at `rva`, or false. */
static bool pe_offset(const Pe *pe, uint32_t rva, size_t size, size_t *at)
{
    for (size_t i = 0; i < pe->nsections; i++) {
        const unsigned char *s = pe->p + pe->sections + 40 * i;
        uint32_t va = get_u32le(s + 12), raw = get_u32le(s + 16), ptr = get_u32le(s + 20);
        if (rva < va || rva - va >= raw || size > raw - (rva - va))
            continue;
        if (ptr > pe->n || raw > pe->n - ptr)
            return false;
        *at = ptr + (rva - va);
        return true;
    }
    return false;
}

/* A directory entry's name: a number, or (high bit) a counted UTF-16
 * string at that offset in the resource section. */
static bool pe_name(Pe *pe, size_t entry, const char **name, uint32_t *id)
{
    uint32_t v = get_u32le(pe->p + entry);
    *name = NULL;
    *id = v;
    if (!(v & 0x80000000u))
        return true;
    size_t o = v & 0x7FFFFFFFu;
    if (o > pe->rsrc_size || pe->rsrc_size - o < 2 ||
        2 * (size_t)get_u16le(pe->p + pe->rsrc + o) > pe->rsrc_size - o - 2)
        return bin_fail(pe->err, entry, "resource name at 0x%zx outside the resource section", o);
    Buf b = {0};
    utf16_to_utf8(&b, pe->p + pe->rsrc + o + 2, 2 * (size_t)get_u16le(pe->p + pe->rsrc + o), false);
    *name = arena_strndup(pe->a, b.s ? b.s : "", b.len);
    buf_free(&b);
    *id = 0;
    return true;
}

/* The directory at `o` (in the resource section) of level 0 (types), 1
 * (names) or 2 (languages); `r` holds the levels above. */
static bool pe_dir(Pe *pe, size_t o, int level, Resource r)
{
    if (o > pe->rsrc_size || pe->rsrc_size - o < 16)
        return bin_fail(pe->err, pe->rsrc,
                        "resource directory at 0x%zx outside the resource "
                        "section (%zu bytes)",
                        o, pe->rsrc_size);
    size_t d = pe->rsrc + o;
    size_t count = (size_t)get_u16le(pe->p + d + 12) + get_u16le(pe->p + d + 14);
    if (count > (pe->rsrc_size - o - 16) / 8)
        return bin_fail(pe->err, d + 12,
                        "resource directory: %zu entries do not fit in the "
                        "resource section",
                        count);
    if (count > pe->budget)
        return bin_fail(pe->err, d + 12,
                        "resource directory: entries visited more than once "
                        "(a directory shared or pointing back)");
    pe->budget -= count;
    for (size_t i = 0; i < count; i++) {
        size_t e = d + 16 + 8 * i;
        uint32_t to = get_u32le(pe->p + e + 4);
        const char *name;
        uint32_t id;
        if (!pe_name(pe, e, &name, &id))
            return false;
        if (level == 0)
            r.type = name, r.type_id = id;
        else if (level == 1)
            r.name = name, r.name_id = id;
        else
            r.lang = (uint16_t)id;
        bool sub = to & 0x80000000u;
        if (sub != (level < 2))
            return bin_fail(pe->err, e + 4,
                            "resource directory level %d: %s where the format "
                            "has %s",
                            level + 1, sub ? "a subdirectory" : "data",
                            level < 2 ? "a subdirectory" : "data");
        if (sub) {
            if (!pe_dir(pe, to & 0x7FFFFFFFu, level + 1, r))
                return false;
            continue;
        }
        if (to > pe->rsrc_size || pe->rsrc_size - to < 16)
            return bin_fail(pe->err, e + 4,
                            "resource data entry at 0x%x outside the resource "
                            "section",
                            to);
        const unsigned char *de = pe->p + pe->rsrc + to;
        uint32_t rva = get_u32le(de), size = get_u32le(de + 4);
        if (!pe_offset(pe, rva, size, &r.at))
            return bin_fail(pe->err, pe->rsrc + to,
                            "resource data: %u bytes at RVA 0x%x are not "
                            "in the file",
                            size, rva);
        r.size = size;
        vec_push(pe->out, r);
    }
    return true;
}

bool pe_read(const void *bytes, size_t n, ResourceList *out, Arena *a, Buf *err)
{
    Pe pe = {bytes, n, 0, 0, 0, 0, 0, 0, out, a, err};
    const unsigned char *p = bytes;
    if (!pe_is(p, n) || n < 64)
        return bin_fail(err, 0, "%zu bytes: not a PE image (no MZ header)", n);
    size_t h = get_u32le(p + 0x3C);
    if (h > n || n - h < 24 || memcmp(p + h, "PE\0\0", 4) != 0)
        return bin_fail(err, 0x3C, "the PE header offset 0x%zx does not lead to \"PE\\0\\0\"", h);
    size_t nsec = get_u16le(p + h + 6), optsize = get_u16le(p + h + 20), opt = h + 24;
    if (optsize > n - opt || optsize < 2)
        return bin_fail(err, h + 20, "optional header size %zu runs past the end of the file",
                        optsize);
    uint32_t magic = get_u16le(p + opt);
    if (magic != 0x10B && magic != 0x20B)
        return bin_fail(err, opt, "optional header magic 0x%x (0x10b PE32, 0x20b PE32+)", magic);
    size_t ndirs_at = opt + (magic == 0x10B ? 92 : 108), dirs = ndirs_at + 4;
    if (dirs > opt + optsize)
        return bin_fail(err, opt,
                        "optional header of %zu bytes too short for its data "
                        "directories",
                        optsize);
    uint32_t ndirs = get_u32le(p + ndirs_at);
    pe.sections = opt + optsize;
    pe.nsections = nsec;
    if (nsec > (n - pe.sections) / 40)
        return bin_fail(err, h + 6, "%zu sections do not fit in the file", nsec);
    if (ndirs < 3 || dirs + 24 > opt + optsize)
        return true; /* no resource directory: no resources */
    pe.rsrc_rva = get_u32le(p + dirs + 16);
    uint32_t rsize = get_u32le(p + dirs + 20);
    if (!pe.rsrc_rva || !rsize)
        return true;
    if (!pe_offset(&pe, pe.rsrc_rva, 16, &pe.rsrc))
        return bin_fail(err, dirs + 16,
                        "the resource directory's RVA 0x%x is in no section's "
                        "bytes",
                        pe.rsrc_rva);
    /* the directory may be larger than its data directory says (linkers
     * differ): the section's bytes bound it */
    size_t sec_end = 0;
    for (size_t i = 0; i < nsec && !sec_end; i++) {
        /* the section pe_offset found it in: the first that holds it */
        const unsigned char *s = p + pe.sections + 40 * i;
        uint32_t va = get_u32le(s + 12), raw = get_u32le(s + 16), ptr = get_u32le(s + 20);
        if (pe.rsrc_rva >= va && pe.rsrc_rva - va < raw && 16 <= raw - (pe.rsrc_rva - va))
            sec_end = (size_t)ptr + raw;
    }
    if (sec_end > n || sec_end < pe.rsrc + 16) /* pe_offset checked that section: unreachable */
        return bin_fail(err, dirs + 16, "the resource section runs past the end of the file");
    pe.rsrc_size = sec_end - pe.rsrc;
    pe.budget = pe.rsrc_size / 8;
    Resource r = {0};
    return pe_dir(&pe, 0, 0, r);
}
