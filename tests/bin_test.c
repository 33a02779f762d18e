/*
 * bin_test.c - the resource containers mcgen reads for --dump and
 * --decompile: a RES32 .res (read_res.c) and a PE image's resource
 * directory (read_pe.c), built here byte by byte after the formats'
 * specifications (the RESOURCEHEADER of the Win32 resource file format;
 * the PE/COFF specification's ".rsrc Section"): what each resource is and
 * where its bytes are, the exact error of each kind of damage, hostile
 * counts refused before anything is allocated, and every truncation and
 * 10,000 mutations read without a crash (unit_corrupt).
 */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

static void put16(Buf *b, uint32_t v) { buf_u16le(b, (uint16_t)v); }
static void put32(Buf *b, uint32_t v) { buf_u32le(b, v); }

static void set32(Buf *b, size_t at, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b->s[at + i] = (char)(v >> 8 * i);
}

/* One RES32 entry: type and name as numbers (or type as a string),
 * language, data. */
static void res_entry(Buf *b, const char *type, uint32_t type_id, uint32_t name_id, uint16_t lang,
                      const void *data, uint32_t size)
{
    size_t start = b->len;
    put32(b, size);
    put32(b, 0); /* header size, below */
    if (type) {
        for (const char *c = type; *c; c++)
            put16(b, (unsigned char)*c);
        put16(b, 0);
    } else {
        put16(b, 0xFFFF), put16(b, type_id);
    }
    put16(b, 0xFFFF), put16(b, name_id);
    while ((b->len - start) % 4)
        buf_u8(b, 0);
    put32(b, 0);                    /* DataVersion */
    put16(b, 0x30), put16(b, lang); /* MemoryFlags, LanguageId */
    put32(b, 0), put32(b, 0);       /* Version, Characteristics */
    set32(b, start + 4, (uint32_t)(b->len - start));
    buf_add(b, data, size);
    while (b->len % 4)
        buf_u8(b, 0);
}

static void sample_res(Buf *b)
{
    res_entry(b, NULL, 0, 0, 0, "", 0); /* the marker */
    res_entry(b, "WEVT_TEMPLATE", 0, 1, 0x409, "CRIMxx", 6);
    res_entry(b, NULL, 11, 1, 0x407, "table", 5);
}

typedef bool ReadFn(const void *bytes, size_t n, ResourceList *out, Arena *a, Buf *err);

/* Both samples hold the same two resources: WEVT_TEMPLATE/1/0x409 with
 * "CRIMxx" at wevt_at and RT_MESSAGETABLE/1/0x407 with "table". */
static void lists_sample(ReadFn *read, const Buf *b, size_t wevt_at)
{
    ResourceList l = {0};
    Arena a = {0};
    Buf err = {0};
    ck_assert_msg(read(b->s, b->len, &l, &a, &err), "%s", err.s ? err.s : "");
    ck_assert_uint_eq(l.n, 2);
    ck_assert_str_eq(l.v[0].type, "WEVT_TEMPLATE");
    ck_assert_uint_eq(l.v[0].name_id, 1);
    ck_assert_uint_eq(l.v[0].lang, 0x409);
    ck_assert_uint_eq(l.v[0].at, wevt_at);
    ck_assert_uint_eq(l.v[0].size, 6);
    ck_assert_ptr_null(l.v[1].type);
    ck_assert_uint_eq(l.v[1].type_id, 11);
    ck_assert_uint_eq(l.v[1].lang, 0x407);
    ck_assert_uint_eq(l.v[1].size, 5);
    ck_assert_int_eq(memcmp(b->s + l.v[1].at, "table", 5), 0);
    vec_free(&l);
    arena_free(&a);
    buf_free(&err);
}

/* The reader refuses b with exactly `want`. */
static void fails(ReadFn *read, const Buf *b, const char *want)
{
    ResourceList l = {0};
    Arena a = {0};
    Buf err = {0};
    ck_assert_msg(!read(b->s, b->len, &l, &a, &err), "accepted");
    ck_assert_str_eq(err.s, want);
    vec_free(&l);
    arena_free(&a);
    buf_free(&err);
}

static void res_fails(const Buf *b, const char *want) { fails(res_read, b, want); }
static void pe_fails(const Buf *b, const char *want) { fails(pe_read, b, want); }

START_TEST(test_read_res_lists_resources)
{
    Buf b = {0};
    sample_res(&b);
    ck_assert_uint_eq(b.len, 32 + 56 + 8 + 32 + 8);
    lists_sample(res_read, &b, 32 + 56);
    buf_free(&b);
}
END_TEST

START_TEST(test_read_res_exact_errors)
{
    Buf b = {0};
    sample_res(&b);
    set32(&b, 32 + 4, 0xFFFFFFF0u); /* the header size of the second entry */
    res_fails(&b, "offset 0x24: resource header size 4294967280 (32 or more, a multiple of 4, "
                  "inside the file's 136 bytes)");
    buf_reset(&b);
    sample_res(&b);
    set32(&b, 32, 4000000000u); /* its data size: 4 billion bytes in 136 */
    res_fails(&b, "offset 0x20: resource data size 4000000000 runs past the end of the file "
                  "(48 bytes after the header)");
    buf_reset(&b);
    sample_res(&b);
    b.s[0] = 1;
    res_fails(&b, "offset 0x0: 136 bytes: not a .res file (no empty 32-byte first entry)");
    buf_free(&b);
}
END_TEST

/* A PE32+ image (or, pe32, a PE32 one: a 32-bit image's optional header
 * has its data directories 16 bytes earlier) with one section, .rsrc at
 * RVA 0x1000 (file 0x200), whose directory holds WEVT_TEMPLATE/1/0x409
 * and 11/1/0x407.  Offsets inside the resource section are relative to
 * its start. */
enum { SEC = 0x200, RVA = 0x1000 };

static void sample_pe_of(Buf *b, bool pe32)
{
    buf_reset(b);
    buf_add(b, "MZ", 2);
    while (b->len < 0x3C)
        buf_u8(b, 0);
    put32(b, 0x40);
    buf_add(b, "PE\0\0", 4);
    put16(b, pe32 ? 0x14C : 0x8664), put16(b, 1); /* machine, one section */
    put32(b, 0), put32(b, 0), put32(b, 0);
    put16(b, pe32 ? 224 : 240), put16(b, 0x2022); /* optional header size, characteristics */
    size_t opt = b->len;
    put16(b, pe32 ? 0x10B : 0x20B);
    while (b->len < opt + (pe32 ? 92 : 108))
        buf_u8(b, 0);
    put32(b, 16); /* data directories */
    for (int i = 0; i < 16; i++)
        put32(b, i == 2 ? RVA : 0), put32(b, i == 2 ? 0x100 : 0);
    /* the section table */
    buf_add(b, ".rsrc\0\0\0", 8);
    put32(b, 0x200), put32(b, RVA), put32(b, 0x200), put32(b, SEC);
    put32(b, 0), put32(b, 0), put32(b, 0), put32(b, 0x40000040);
    while (b->len < SEC)
        buf_u8(b, 0);
    /* root: one named entry (WEVT_TEMPLATE), one id entry (11) */
    put32(b, 0), put32(b, 0), put32(b, 0), put16(b, 1), put16(b, 1);
    put32(b, 0x80000000u | 0xC0), put32(b, 0x80000000u | 0x20); /* -> name dir A */
    put32(b, 11), put32(b, 0x80000000u | 0x50);                 /* -> name dir B */
    /* 0x20: name dir A: id 1 -> language dir at 0x38 */
    put32(b, 0), put32(b, 0), put32(b, 0), put16(b, 0), put16(b, 1);
    put32(b, 1), put32(b, 0x80000000u | 0x38);
    /* 0x38: language 0x409 -> data entry 0x80 */
    put32(b, 0), put32(b, 0), put32(b, 0), put16(b, 0), put16(b, 1);
    put32(b, 0x409), put32(b, 0x80);
    /* 0x50: name dir B: id 1 -> language dir 0x68 */
    put32(b, 0), put32(b, 0), put32(b, 0), put16(b, 0), put16(b, 1);
    put32(b, 1), put32(b, 0x80000000u | 0x68);
    /* 0x68: language 0x407 -> data entry 0x90 */
    put32(b, 0), put32(b, 0), put32(b, 0), put16(b, 0), put16(b, 1);
    put32(b, 0x407), put32(b, 0x90);
    /* 0x80, 0x90: data entries {RVA, size, code page, 0} */
    put32(b, RVA + 0x100), put32(b, 6), put32(b, 0), put32(b, 0);
    put32(b, RVA + 0x108), put32(b, 5), put32(b, 0), put32(b, 0);
    while (b->len < SEC + 0xC0)
        buf_u8(b, 0);
    /* 0xC0: the type's name, counted UTF-16 */
    put16(b, 13);
    for (const char *c = "WEVT_TEMPLATE"; *c; c++)
        put16(b, (unsigned char)*c);
    while (b->len < SEC + 0x100)
        buf_u8(b, 0);
    buf_add(b, "CRIMxx\0\0table", 13);
    while (b->len < SEC + 0x200)
        buf_u8(b, 0);
}

static void sample_pe(Buf *b) { sample_pe_of(b, false); }

START_TEST(test_read_pe_lists_resources)
{
    Buf b = {0};
    sample_pe(&b);
    lists_sample(pe_read, &b, SEC + 0x100);
    buf_free(&b);
}
END_TEST

START_TEST(test_read_pe32_lists_resources)
{
    Buf b = {0};
    sample_pe_of(&b, true);
    ck_assert_uint_eq(b.len, SEC + 0x200); /* the section still at 0x200 */
    lists_sample(pe_read, &b, SEC + 0x100);
    buf_free(&b);
}
END_TEST

START_TEST(test_read_pe_exact_errors)
{
    Buf b = {0};
    sample_pe(&b);
    set32(&b, 0x3C, 0x7FFFFFF0u);
    pe_fails(&b, "offset 0x3c: the PE header offset 0x7ffffff0 does not lead to \"PE\\0\\0\"");
    /* a language directory that points back at the root: each visit
     * spends the budget of what the section holds */
    sample_pe(&b);
    set32(&b, SEC + 0x38 + 20, 0x80000000u);
    pe_fails(&b, "offset 0x24c: resource directory level 3: a subdirectory where the format "
                 "has data");
    sample_pe(&b);
    set32(&b, SEC + 0x1C, 0x80); /* the type 11 straight to a data entry */
    pe_fails(&b, "offset 0x21c: resource directory level 1: data where the format has a "
                 "subdirectory");
    /* 65535 + 65535 entries in a section of 512 bytes */
    sample_pe(&b);
    set32(&b, SEC + 12, 0xFFFFFFFFu);
    pe_fails(&b, "offset 0x20c: resource directory: 131070 entries do not fit in the "
                 "resource section");
    /* data 4 billion bytes long */
    sample_pe(&b);
    set32(&b, SEC + 0x80 + 4, 4000000000u);
    pe_fails(&b, "offset 0x280: resource data: 4000000000 bytes at RVA 0x1100 are not in the "
                 "file");
    buf_free(&b);
}
END_TEST

/* A second section that also claims the directory's RVA, with more bytes
 * than the file has: the first section holding it bounds the directory,
 * as it gives its offset (a fuzz finding read past the file's end:
 * tests/fuzz/regress/pe/resource-rva-in-two-sections-the-last-larger.dll). */
START_TEST(test_read_pe_first_section_bounds_the_directory)
{
    Buf b = {0};
    sample_pe(&b);
    b.s[0x46] = 2; /* two sections */
    size_t second = 0x40 + 24 + 240 + 40;
    memcpy(b.s + second, ".big\0\0\0\0", 8);
    set32(&b, second + 8, 0x100000);
    set32(&b, second + 12, RVA);
    set32(&b, second + 16, 0x100000);
    set32(&b, second + 20, SEC);
    lists_sample(pe_read, &b, SEC + 0x100);
    /* a name past the first section's bytes is outside the directory */
    set32(&b, SEC + 16, 0x80000000u | 0x1000);
    pe_fails(&b, "offset 0x210: resource name at 0x1000 outside the resource section");
    buf_free(&b);
}
END_TEST

/* Directories that share a subdirectory many times over: the entries
 * visited are bounded by the section's bytes (512 / 8 = 64), not
 * multiplied (20 x 20 leaves from 41 entries). */
START_TEST(test_read_pe_shared_directories_bounded)
{
    Buf b = {0};
    sample_pe(&b);
    b.len = SEC;
    /* root: 20 ids, each -> the name dir at 0xB0 */
    put32(&b, 0), put32(&b, 0), put32(&b, 0), put16(&b, 0), put16(&b, 20);
    for (uint32_t i = 0; i < 20; i++)
        put32(&b, i + 1), put32(&b, 0x80000000u | 0xB0);
    /* 0xB0: 20 ids, each -> the language dir at 0x160 */
    put32(&b, 0), put32(&b, 0), put32(&b, 0), put16(&b, 0), put16(&b, 20);
    for (uint32_t i = 0; i < 20; i++)
        put32(&b, i + 1), put32(&b, 0x80000000u | 0x160);
    /* 0x160: one language -> the data entry at 0x178 */
    put32(&b, 0), put32(&b, 0), put32(&b, 0), put16(&b, 0), put16(&b, 1);
    put32(&b, 0x409), put32(&b, 0x178);
    put32(&b, RVA + 0x190), put32(&b, 4), put32(&b, 0), put32(&b, 0);
    while (b.len < SEC + 0x200)
        buf_u8(&b, 0);
    pe_fails(&b, "offset 0x2bc: resource directory: entries visited more than once (a "
                 "directory shared or pointing back)");
    buf_free(&b);
}
END_TEST

static bool read_res_any(const char *bytes, size_t n, Buf *err)
{
    ResourceList l = {0};
    Arena a = {0};
    bool ok = res_read(bytes, n, &l, &a, err);
    vec_free(&l);
    arena_free(&a);
    return ok;
}

static bool read_pe_any(const char *bytes, size_t n, Buf *err)
{
    ResourceList l = {0};
    Arena a = {0};
    bool ok = pe_read(bytes, n, &l, &a, err);
    for (size_t i = 0; ok && i < l.n; i++)
        ck_assert(l.v[i].at <= n && l.v[i].size <= n - l.v[i].at);
    vec_free(&l);
    arena_free(&a);
    return ok;
}

START_TEST(test_read_res_corrupted_never_crashes)
{
    Buf b = {0};
    sample_res(&b);
    /* a .res cut at an entry boundary is a shorter .res: corrupt only
     * what truncation at every offset cannot accept */
    Buf err = {0};
    for (size_t n = 0; n < b.len; n++) {
        buf_reset(&err);
        bool ok = read_res_any(b.s, n, &err);
        ck_assert(ok || err.len > 0);
    }
    buf_free(&err);
    buf_free(&b);
}
END_TEST

START_TEST(test_read_pe_corrupted_never_crashes)
{
    Buf b = {0};
    sample_pe(&b);
    unit_corrupt(&b, read_pe_any, 17);
    buf_free(&b);
}
END_TEST

Suite *bin_suite(void)
{
    Suite *s = suite_create("bin");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_read_res_lists_resources);
    tcase_add_test(tc, test_read_res_exact_errors);
    tcase_add_test(tc, test_read_pe_lists_resources);
    tcase_add_test(tc, test_read_pe32_lists_resources);
    tcase_add_test(tc, test_read_pe_exact_errors);
    tcase_add_test(tc, test_read_pe_shared_directories_bounded);
    tcase_add_test(tc, test_read_pe_first_section_bounds_the_directory);
    tcase_add_test(tc, test_read_res_corrupted_never_crashes);
    tcase_add_test(tc, test_read_pe_corrupted_never_crashes);
    suite_add_tcase(s, tc);
    return s;
}
