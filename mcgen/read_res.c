/*
 * read_res.c - a compiled resource file (.res, the RES32 format rc.exe and
 * windres write) as a list of resources: each one's type, name, language
 * and where its bytes are.  The file is a run of entries, each a header
 * (data size, header size, type and name as a 0xFFFF-prefixed number or
 * a UTF-16 string, DWORD-aligned, then version, flags, language) and its
 * data, padded to 4; the first entry is the empty 32-byte one that marks
 * the format.  Every size is checked against the bytes there before it is
 * followed; the first inconsistency ends the read with "offset 0x..: what
 * is wrong" (bin_fail).  Each entry takes at least 32 bytes, so the count
 * is bounded by the file.
 */
#include "mcgen.h"

#include <string.h>

/* The marker entry: data size 0, header size 32, type 0 and name 0 as
 * numbers. */
static const unsigned char res_magic[16] = {0,    0,    0, 0, 0x20, 0,    0, 0,
                                            0xFF, 0xFF, 0, 0, 0xFF, 0xFF, 0, 0};

bool res_is(const unsigned char *head, size_t n)
{
    return n >= 16 && memcmp(head, res_magic, 16) == 0;
}

/* A type or name at `*at` inside [.., end): a number (0xFFFF, u16) or a
 * UTF-16 string up to its NUL. */
static bool res_id(const unsigned char *p, size_t *at, size_t end, Arena *a, const char **name,
                   uint32_t *id, const char *what, Buf *err)
{
    if (*at + 4 <= end && get_u16le(p + *at) == 0xFFFF) {
        *id = get_u16le(p + *at + 2);
        *name = NULL;
        *at += 4;
        return true;
    }
    for (size_t i = *at; i + 2 <= end; i += 2)
        if (!p[i] && !p[i + 1]) {
            Buf b = {0};
            utf16_to_utf8(&b, p + *at, i - *at, false);
            *name = arena_strndup(a, b.s ? b.s : "", b.len);
            buf_free(&b);
            *id = 0;
            *at = i + 2;
            return true;
        }
    return bin_fail(err, *at,
                    "resource %s: no number and no NUL-terminated name inside the "
                    "header",
                    what);
}

bool res_read(const void *bytes, size_t n, ResourceList *out, Arena *a, Buf *err)
{
    const unsigned char *p = bytes;
    if (!res_is(p, n))
        return bin_fail(err, 0, "%zu bytes: not a .res file (no empty 32-byte first entry)", n);
    size_t at = 0;
    while (at < n) {
        if (n - at < 8)
            return bin_fail(err, at, "%zu bytes after the last resource", n - at);
        uint32_t dsize = get_u32le(p + at), hsize = get_u32le(p + at + 4);
        if (hsize < 32 || hsize % 4 || hsize > n - at)
            return bin_fail(err, at + 4,
                            "resource header size %u (32 or more, a multiple of 4, "
                            "inside the file's %zu bytes)",
                            hsize, n);
        size_t hend = at + hsize, q = at + 8;
        Resource r = {0};
        if (!res_id(p, &q, hend, a, &r.type, &r.type_id, "type", err) ||
            !res_id(p, &q, hend, a, &r.name, &r.name_id, "name", err))
            return false;
        q = at + ((q - at + 3) & ~(size_t)3);
        if (q + 16 > hend)
            return bin_fail(err, at + 4,
                            "resource header size %u leaves no room for its "
                            "version, flags and language",
                            hsize);
        r.lang = (uint16_t)get_u16le(p + q + 6);
        if (dsize > n - hend)
            return bin_fail(err, at,
                            "resource data size %u runs past the end of the file "
                            "(%zu bytes after the header)",
                            dsize, n - hend);
        r.at = hend;
        r.size = dsize;
        if (at) /* the first entry only marks the format */
            vec_push(out, r);
        at = hend + dsize;
        at += (4 - at % 4) % 4;
    }
    return true;
}
