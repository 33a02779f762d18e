/*
 * read.c - the reader table: each input format is a row (its name, how it
 * recognises a file, its reader).  A reader turns bytes into a raw model
 * and nothing else; the check stage (check.c) takes it from there,
 * whatever the format was.
 */
#include "mcgen.h"
#include "os.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcasecmp(s + n - t, tail) == 0;
}

/* An XML document: a .man or .xml name, or a first non-blank character
 * '<' (after a UTF-8 or UTF-16 byte-order mark). */
static bool is_xml(const char *path, const unsigned char *head, size_t n)
{
    if (ends_with(path, ".man") || ends_with(path, ".xml"))
        return true;
    size_t i = 0;
    if (n >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF)
        i = 3;
    else if (n >= 2 && ((head[0] == 0xFF && head[1] == 0xFE) || (head[0] == 0xFE && head[1] == 0xFF)))
        return true;
    while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n'))
        i++;
    return i < n && head[i] == '<';
}

static Manifest *read_man(const char *path, const Options *o)
{
    (void)o;
    return read_man_file(path);
}

/* A message-text file: a .mc name (any case). */
static bool is_mc(const char *path, const unsigned char *head, size_t n)
{
    (void)head, (void)n;
    return cli_is_mc(path);
}

static Manifest *read_mc(const char *path, const Options *o)
{
    return read_mc_file(path, o && o->utf16_input);
}

/* ---- binary formats: --dump and --decompile read them ---- */

bool bin_fail(Buf *err, size_t at, const char *fmt, ...)
{
    buf_printf(err, "offset 0x%zx: ", at);
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(err, fmt, ap);
    va_end(ap);
    return false;
}

static bool is_wevt(const char *path, const unsigned char *head, size_t n)
{
    (void)path;
    return n >= 4 && memcmp(head, "CRIM", 4) == 0;
}

/* A message table has no signature: its first block's entries start right
 * after the block headers, and its ids ascend. */
static bool is_msgtable(const char *path, const unsigned char *head, size_t n)
{
    (void)path;
    if (n < 16)
        return false;
    uint32_t nblocks = get_u32le(head);
    return nblocks && nblocks < 0x10000000 && get_u32le(head + 12) == 4 + 12 * nblocks &&
           get_u32le(head + 4) <= get_u32le(head + 8);
}

static bool is_res(const char *path, const unsigned char *head, size_t n)
{
    (void)path;
    return res_is(head, n);
}

static bool is_pe(const char *path, const unsigned char *head, size_t n)
{
    (void)path;
    return pe_is(head, n);
}

static bool add_wevt(BinImage *img, const char *from, uint16_t lang, const unsigned char *p,
                     size_t n, Buf *err)
{
    if (img->has_wevt) {
        buf_printf(err, "a second WEVT_TEMPLATE (the first from %s)", img->wevt_from);
        return false;
    }
    img->has_wevt = true;
    img->wevt_lang = lang;
    img->wevt_from = arena_strdup(&img->arena, from);
    return wevt_read_content(p, n, &img->wevt, err, false);
}

static bool add_table(BinImage *img, const char *from, uint16_t lang, const unsigned char *p,
                      size_t n, Buf *err)
{
    BinTable t = {lang, arena_strdup(&img->arena, from), {{0}}};
    bool ok = msgtable_read(p, n, &t.table, err);
    vec_push(&img->tables, t);
    return ok;
}

static bool read_wevt_bin(const char *path, const unsigned char *p, size_t n, BinImage *img,
                          Buf *err)
{
    return add_wevt(img, path, 0, p, n, err);
}

static bool read_msgtable_bin(const char *path, const unsigned char *p, size_t n, BinImage *img,
                              Buf *err)
{
    return add_table(img, path, 0, p, n, err);
}

/* The resources of a container that mcgen reads: WEVT_TEMPLATE and every
 * RT_MESSAGETABLE (type 11) language. */
static bool add_resources(const char *path, const unsigned char *p, const ResourceList *l,
                          BinImage *img, Buf *err)
{
    for (size_t i = 0; i < l->n; i++) {
        const Resource *r = &l->v[i];
        bool wevt = r->type && strcmp(r->type, "WEVT_TEMPLATE") == 0;
        if (!wevt && (r->type || r->type_id != 11))
            continue;
        Buf inner = {0};
        bool ok = wevt ? add_wevt(img, path, r->lang, p + r->at, r->size, &inner)
                       : add_table(img, path, r->lang, p + r->at, r->size, &inner);
        if (!ok)
            buf_printf(err, "%s resource (language 0x%04x) at offset 0x%zx: %s",
                       wevt ? "WEVT_TEMPLATE" : "message table", r->lang, r->at, inner.s);
        buf_free(&inner);
        if (!ok)
            return false;
    }
    return true;
}

static bool read_container(const char *path, const unsigned char *p, size_t n, BinImage *img,
                           Buf *err, bool pe)
{
    ResourceList l = {0};
    bool ok = pe ? pe_read(p, n, &l, &img->arena, err) : res_read(p, n, &l, &img->arena, err);
    ok = ok && add_resources(path, p, &l, img, err);
    vec_free(&l);
    return ok;
}

static bool read_res_bin(const char *path, const unsigned char *p, size_t n, BinImage *img,
                         Buf *err)
{
    return read_container(path, p, n, img, err, false);
}

static bool read_pe_bin(const char *path, const unsigned char *p, size_t n, BinImage *img,
                        Buf *err)
{
    return read_container(path, p, n, img, err, true);
}

const Reader readers[] = {
    {"mc", is_mc, read_mc, NULL},
    {"man", is_xml, read_man, NULL},
    {"wevt", is_wevt, NULL, read_wevt_bin},
    {"pe", is_pe, NULL, read_pe_bin},
    {"res", is_res, NULL, read_res_bin},
    {"msgtable", is_msgtable, NULL, read_msgtable_bin},
    {NULL, NULL, NULL, NULL},
};

const Reader *reader_named(const char *name)
{
    for (const Reader *r = readers; r->name; r++)
        if (strcmp(r->name, name) == 0)
            return r;
    return NULL;
}

/* The row that recognises the file at `path` (its first bytes read), or
 * NULL. */
static const Reader *reader_of(const char *path)
{
    unsigned char head[64];
    size_t n = 0;
    FILE *f = os_fopen(path, "rb");
    if (f) {
        n = fread(head, 1, sizeof head, f);
        fclose(f);
    }
    for (const Reader *r = readers; r->name; r++)
        if (r->recognises(path, head, n))
            return r;
    return NULL;
}

Manifest *read_input(const char *path, const Options *o)
{
    const Reader *r = reader_of(path);
    if (r && !r->read) {
        diag_plain(DIAG_ERROR, "'%s' is a compiled binary (%s), not a manifest: --dump and "
                               "--decompile read it",
                   path, r->name);
        return NULL;
    }
    /* the manifest reader says what is wrong with anything else */
    return (r ? r : &readers[1])->read(path, o);
}

bool read_binary(const char *path, BinImage *img, Buf *err)
{
    const Reader *r = reader_of(path);
    size_t n;
    char *bytes = r && r->read_bin ? read_file(path, &n) : NULL;
    if (!bytes) {
        if (r && r->read_bin)
            buf_printf(err, "cannot open '%s': %s", path, strerror(errno));
        else
            buf_printf(err, "%s: not a binary mcgen reads (TEMP.BIN, MSG*.bin, .res, PE image)",
                       path);
        return false;
    }
    Buf inner = {0};
    bool ok = r->read_bin(path, (const unsigned char *)bytes, n, img, &inner);
    if (!ok)
        buf_printf(err, "%s: %s", path, inner.s);
    buf_free(&inner);
    free(bytes);
    return ok;
}

void bin_free(BinImage *img)
{
    if (img->has_wevt)
        wevt_free(&img->wevt);
    for (size_t i = 0; i < img->tables.n; i++)
        msgtable_free(&img->tables.v[i].table);
    vec_free(&img->tables);
    arena_free(&img->arena);
}
