/* util_test.c - the domain-free helpers. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "unit.h"

START_TEST(test_util_buf_invariants)
{
    Buf b = {0};
    buf_adds(&b, "ab");
    buf_addc(&b, 'c');
    buf_printf(&b, "%d-%s", 42, "x");
    ck_assert_uint_eq(b.len, 7);
    ck_assert_str_eq(b.s, "abc42-x");
    ck_assert_int_eq(b.s[b.len], 0);
    /* longer than the printf fast path */
    char big[600];
    memset(big, 'y', sizeof big - 1);
    big[sizeof big - 1] = 0;
    buf_printf(&b, "%s", big);
    ck_assert_uint_eq(b.len, 7 + 599);
    ck_assert_int_eq(b.s[b.len], 0);
    buf_reset(&b);
    ck_assert_uint_eq(b.len, 0);
    ck_assert_str_eq(b.s, "");
    buf_free(&b);
}
END_TEST

START_TEST(test_util_buf_little_endian)
{
    Buf b = {0};
    buf_u8(&b, 0x01);
    buf_u16le(&b, 0x0302);
    buf_u32le(&b, 0x07060504);
    buf_u64le(&b, 0x0f0e0d0c0b0a0908ULL);
    ck_assert_uint_eq(b.len, 15);
    for (int i = 0; i < 15; i++)
        ck_assert_int_eq((unsigned char)b.s[i], i + 1);
    buf_free(&b);
}
END_TEST

START_TEST(test_util_map_put_get_grow)
{
    Map m = {0};
    Arena a = {0};
    for (int i = 0; i < 5000; i++)
        map_put(&m, arena_printf(&a, "key%d", i), (void *)(intptr_t)(i + 1), false);
    ck_assert_uint_eq(m.n, 5000);
    for (int i = 0; i < 5000; i++) {
        char k[32];
        snprintf(k, sizeof k, "key%d", i);
        ck_assert_ptr_eq(map_get(&m, k), (void *)(intptr_t)(i + 1));
    }
    ck_assert_ptr_null(map_get(&m, "nope"));
    /* keep_old keeps the first value and reports it */
    void *old = map_put(&m, "key7", (void *)99, true);
    ck_assert_ptr_eq(old, (void *)8);
    ck_assert_ptr_eq(map_get(&m, "key7"), (void *)8);
    map_free(&m);
    arena_free(&a);
}
END_TEST

/* map_ref: one probe adds a key with a NULL value, or finds its value,
 * through rehashes (a slot keeps a byte of the hash; the rest is
 * recomputed when the table grows); the empty string is a key too. */
START_TEST(test_util_map_ref)
{
    Map m = {0};
    Arena a = {0};
    void **r = map_ref(&m, "");
    ck_assert_ptr_null(*r);
    *r = (void *)1;
    for (int i = 0; i < 3000; i++) {
        r = map_ref(&m, arena_printf(&a, "k%d", i));
        ck_assert_ptr_null(*r);
        *r = (void *)(intptr_t)(i + 2);
    }
    ck_assert_uint_eq(m.n, 3001);
    ck_assert_ptr_eq(*map_ref(&m, ""), (void *)1);
    ck_assert_ptr_eq(*map_ref(&m, "k2999"), (void *)3001);
    ck_assert_ptr_eq(map_get(&m, "k0"), (void *)2);
    ck_assert_uint_eq(m.n, 3001);
    map_reserve(&m, 0); /* room already */
    ck_assert_uint_eq(m.cap, 4096);
    map_reserve(&m, 6144); /* 3/4 of 8192 */
    ck_assert_uint_eq(m.cap, 8192);
    ck_assert_ptr_eq(map_get(&m, "k1234"), (void *)1236);
    size_t seen = 0; /* every entry is in a slot with its key */
    for (size_t i = 0; i < m.cap; i++)
        seen += m.e[i].key != NULL;
    ck_assert_uint_eq(seen, 3001);
    map_free(&m);
    Map none = {0};
    map_reserve(&none, 0); /* nothing to hold: nothing allocated */
    ck_assert_ptr_null(none.e);
    arena_free(&a);
}
END_TEST

/* map_ref_n: a key given as bytes that no NUL ends (here the parts of
 * one text) is found under the same text however it was put; a key that
 * is a prefix of a stored one, or has one as its prefix, is a key of its
 * own. */
START_TEST(test_util_map_ref_n)
{
    Map m = {0};
    const char *text = "abcabcd";
    bool added;
    MapEntry *e = map_ref_n(&m, text, 3, &added); /* "abc" */
    ck_assert(added);
    ck_assert_ptr_null(e->val);
    e->key = "abc", e->val = (void *)1;
    e = map_ref_n(&m, text + 3, 3, &added); /* "abc" again, followed by 'd' */
    ck_assert(!added);
    ck_assert_ptr_eq(e->val, (void *)1);
    e = map_ref_n(&m, text, 2, &added); /* "ab" */
    ck_assert(added);
    e->key = "ab", e->val = (void *)2;
    e = map_ref_n(&m, text + 3, 4, &added); /* "abcd" */
    ck_assert(added);
    e->key = "abcd", e->val = (void *)3;
    e = map_ref_n(&m, text, 0, &added); /* "" */
    ck_assert(added);
    e->key = "", e->val = (void *)4;
    ck_assert_ptr_eq(map_get(&m, "abc"), (void *)1);
    ck_assert_ptr_eq(map_get(&m, "ab"), (void *)2);
    ck_assert_ptr_eq(map_get(&m, "abcd"), (void *)3);
    ck_assert_ptr_eq(map_get(&m, ""), (void *)4);
    ck_assert_ptr_eq(map_ref_n(&m, "abcdef", 4, &added)->val, (void *)3);
    ck_assert(!added);
    Arena a = {0}; /* through the rehashes, and found by map_get */
    for (int i = 0; i < 2000; i++) {
        const char *k = arena_printf(&a, "k%dz", i);
        e = map_ref_n(&m, k, strlen(k) - 1, &added);
        ck_assert(added);
        e->key = arena_strndup(&a, k, strlen(k) - 1), e->val = (void *)(intptr_t)(i + 10);
    }
    ck_assert_uint_eq(m.n, 2004);
    ck_assert_ptr_eq(map_get(&m, "k1999"), (void *)2009);
    ck_assert_ptr_eq(map_ref_n(&m, "k7x", 2, &added)->val, (void *)17);
    ck_assert(!added);
    map_free(&m);
    arena_free(&a);
}
END_TEST

/* A copied map holds the same keys and values in a table of its own:
 * what is put in either afterwards is not in the other. */
START_TEST(test_util_map_copy)
{
    Map m = {0}, c = {0};
    map_copy(&c, &m); /* an empty map copies to an empty one */
    ck_assert_ptr_null(c.e);
    ck_assert_ptr_null(map_get(&c, "x"));
    Arena a = {0};
    for (int i = 0; i < 100; i++)
        map_put(&m, arena_printf(&a, "k%d", i), (void *)(intptr_t)(i + 1), false);
    map_copy(&c, &m);
    ck_assert_ptr_ne(c.e, m.e);
    ck_assert_uint_eq(c.n, 100);
    for (int i = 0; i < 100; i++) {
        char k[16];
        snprintf(k, sizeof k, "k%d", i);
        ck_assert_ptr_eq(map_get(&c, k), (void *)(intptr_t)(i + 1));
    }
    map_put(&c, "new", (void *)7, false);
    map_put(&m, "k5", (void *)9, false);
    ck_assert_ptr_null(map_get(&m, "new"));
    ck_assert_ptr_eq(map_get(&c, "k5"), (void *)6);
    ck_assert_ptr_eq(map_get(&m, "k5"), (void *)9);
    map_free(&m);
    map_free(&c);
    arena_free(&a);
}
END_TEST

/* A pointer map reserved for n keys takes them with no rehash (its
 * table stays where it is, 3/4 full at most) and keeps what it held. */
START_TEST(test_util_ptrmap_reserve)
{
    static int keys[12289];
    PtrMap m = {0};
    ptrmap_reserve(&m, 0); /* nothing to hold: nothing allocated */
    ck_assert_ptr_null(m.e);
    ptrmap_put(&m, &keys[0], (void *)1);
    ptrmap_reserve(&m, 12288); /* 3/4 of 16384 */
    ck_assert_uint_eq(m.cap, 16384);
    const PtrMapEntry *table = m.e;
    for (int i = 1; i < 12288; i++)
        ptrmap_put(&m, &keys[i], (void *)(intptr_t)(i + 1));
    ck_assert_ptr_eq(m.e, table);
    ck_assert_uint_eq(m.n, 12288);
    ck_assert_ptr_eq(ptrmap_get(&m, &keys[0]), (void *)1);
    ck_assert_ptr_eq(ptrmap_get(&m, &keys[12287]), (void *)12288);
    ck_assert_ptr_null(ptrmap_get(&m, &keys[12288]));
    ptrmap_reserve(&m, 100); /* never shrinks */
    ck_assert_uint_eq(m.cap, 16384);
    ptrmap_free(&m);
}
END_TEST

/* The map's hash reads keys a word at a time, the last word overlapping
 * the one before: every byte of a key of every length changes the hash,
 * and keys that are prefixes of one another (same bytes, other lengths)
 * are told apart. */
START_TEST(test_util_hash_every_byte_counts)
{
    char key[41];
    for (size_t n = 1; n <= 40; n++) {
        memset(key, 'x', n);
        uint32_t base = util_hash(key, n);
        for (size_t p = 0; p < n; p++) {
            key[p] = 'y';
            ck_assert_msg(util_hash(key, n) != base, "length %zu, byte %zu", n, p);
            key[p] = 'x';
        }
    }
    Map m = {0};
    Arena a = {0};
    for (size_t n = 0; n <= 40; n++) {
        char *k = arena_alloc(&a, n + 1);
        memset(k, 'x', n);
        ck_assert_ptr_null(map_put(&m, k, (void *)(uintptr_t)(n + 1), false));
    }
    ck_assert_uint_eq(m.n, 41);
    for (size_t n = 0; n <= 40; n++) {
        memset(key, 'x', n);
        key[n] = 0;
        ck_assert_ptr_eq(map_get(&m, key), (void *)(uintptr_t)(n + 1));
    }
    map_free(&m);
    arena_free(&a);
}
END_TEST

/* The build's tables quote strings so that the C compiler reads back the
 * same bytes: quotes and backslashes escaped, everything else outside
 * printable ASCII (and '?', no trigraph) as three octal digits, so a digit
 * after one stays a character of its own. */
START_TEST(test_util_put_c_string)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    put_c_string(f, "a\"b\\c?\?/\n\x01\xc3\xa9" "1");
    fputc(' ', f);
    put_c_string(f, NULL);
    char text[128] = {0};
    rewind(f);
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    ck_assert_uint_lt(len, sizeof text - 1);
    ck_assert_str_eq(text, "\"a\\\"b\\\\c\\077\\077/\\012\\001\\303\\2511\" NULL");
}
END_TEST

START_TEST(test_util_arena_zeroed_aligned)
{
    Arena a = {0};
    for (int i = 1; i < 2000; i++) {
        unsigned char *p = arena_alloc(&a, (size_t)i);
        ck_assert_uint_eq((uintptr_t)p % 8, 0);
        unsigned char any = 0;
        for (int j = 0; j < i; j++)
            any |= p[j];
        ck_assert_int_eq(any, 0);
        memset(p, 0xAB, (size_t)i);
    }
    void *big = arena_alloc(&a, 10 * 1024 * 1024);
    ck_assert_ptr_nonnull(big);
    ck_assert_str_eq(arena_printf(&a, "%s=%u", "x", 5u), "x=5");
    arena_free(&a);
}
END_TEST


/* While the pool keeps blocks, an arena made after another was freed
 * takes that one's block (its pages already touched), the smallest that
 * suits.  What is handed out is zeroed whatever the block held. */
START_TEST(test_util_arena_pool)
{
    arena_pool_keep((size_t)8 << 20);
    Arena a = {0}, big = {0};
    memset(arena_alloc(&a, 100), 0xAB, 100);
    arena_alloc(&big, (size_t)1 << 20);
    ArenaBlock *small_block = a.head, *big_block = big.head;
    arena_free(&big);
    arena_free(&a);
    Arena b = {0};
    unsigned char *p = arena_alloc(&b, 100);
    ck_assert_ptr_eq(b.head, small_block);
    for (int i = 0; i < 100; i++)
        ck_assert_uint_eq(p[i], 0);
    arena_alloc(&b, (size_t)512 << 10); /* too much for the small block */
    ck_assert_ptr_eq(b.head, big_block);
    arena_free(&b);
    arena_pool_keep(0); /* frees what it kept (LeakSanitizer would see it) */
}
END_TEST
/* What was allocated before a mark stays; what came after is given back,
 * and a loop that marks and releases reuses one block instead of
 * allocating a block each time round (the template engine's loops). */
START_TEST(test_util_arena_mark_release)
{
    Arena a = {0};
    char *kept = arena_strdup(&a, "kept");
    ArenaMark m = arena_mark(&a);
    size_t total = a.total;
    ArenaBlock *spare = NULL;
    for (int round = 0; round < 100; round++) {
        /* more than the first block holds: new blocks each round */
        for (int i = 0; i < 40; i++)
            memset(arena_alloc(&a, 4000), 0xAB, 4000);
        ck_assert_uint_gt(a.total, total);
        arena_release(&a, m);
        ck_assert_uint_eq(a.total, total);
        ck_assert_ptr_nonnull(a.spare);
        if (round == 0)
            spare = a.spare;
        ck_assert_ptr_eq(a.spare, spare); /* the same block, reused */
        ck_assert_str_eq(kept, "kept");
        /* memory handed out again after a release is zeroed */
        unsigned char *p = arena_alloc(&a, 64);
        for (int j = 0; j < 64; j++)
            ck_assert_int_eq(p[j], 0);
        arena_release(&a, m);
    }
    /* a mark of an empty arena gives back everything */
    Arena b = {0};
    ArenaMark empty = arena_mark(&b);
    arena_alloc(&b, 100);
    arena_release(&b, empty);
    ck_assert_ptr_null(b.head);
    ck_assert_uint_eq(b.total, 0);
    ck_assert_ptr_nonnull(arena_alloc(&b, 8));
    arena_free(&b);
    arena_free(&a);
}
END_TEST

START_TEST(test_util_parse_uint)
{
    uint64_t v;
    ck_assert(parse_uint("0", 255, &v) && v == 0);
    ck_assert(parse_uint(" 0x1F ", 255, &v) && v == 31);
    ck_assert(parse_uint("0xFFFFFFFFFFFFFFFF", UINT64_MAX, &v) && v == UINT64_MAX);
    ck_assert(!parse_uint("0x10000000000000000", UINT64_MAX, &v));
    ck_assert(!parse_uint("256", 255, &v));
    ck_assert(!parse_uint("", 255, &v));
    ck_assert(!parse_uint("0x", 255, &v));
    ck_assert(!parse_uint("-1", 255, &v));
    ck_assert(!parse_uint("12a", 255, &v));
    bool b;
    ck_assert(parse_bool("true", &b) && b);
    ck_assert(parse_bool(" 0 ", &b) && !b);
    ck_assert(!parse_bool("yes", &b));
}
END_TEST

START_TEST(test_util_utf_round_trip)
{
    const char *s = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"; /* a e-acute euro emoji */
    Buf w = {0}, back = {0};
    utf8_to_utf16le(&w, s, strlen(s));
    ck_assert_uint_eq(w.len, 2 * 5); /* a, e, euro, surrogate pair */
    utf16_to_utf8(&back, (const unsigned char *)w.s, w.len, false);
    ck_assert_str_eq(back.s, s);
    uint32_t c;
    ck_assert_uint_eq(utf8_get("\xff", 1, &c), 1);
    ck_assert_uint_eq(c, 0xFFFD);
    ck_assert_uint_eq(utf8_get("\xe2\x82", 2, &c), 1); /* truncated */
    ck_assert_uint_eq(c, 0xFFFD);
    buf_free(&w);
    buf_free(&back);
}
END_TEST

/* UTF-16LE of ASCII runs of every length around other characters, so the
 * 8-bytes-at-a-time path meets each of them at every offset: U+00E9, a
 * stray byte (U+FFFD), U+1F600 (a surrogate pair), a truncated sequence
 * at the end (U+FFFD for each of its bytes), appended after what the
 * buffer held. */
START_TEST(test_util_utf16le_ascii_runs)
{
    for (size_t pre = 0; pre <= 17; pre++)
        for (size_t mid = 0; mid <= 9; mid++) {
            Buf in = {0}, w = {0};
            VEC(uint16_t) want = {0};
            for (size_t k = 0; k < pre; k++) {
                buf_addc(&in, (char)('a' + k));
                vec_push(&want, (uint16_t)('a' + k));
            }
            buf_adds(&in, "\xc3\xa9");
            vec_push(&want, 0x00E9);
            for (size_t k = 0; k < mid; k++) {
                buf_addc(&in, 'y');
                vec_push(&want, 'y');
            }
            buf_adds(&in, "\xff");
            vec_push(&want, 0xFFFD);
            buf_adds(&in, "\xf0\x9f\x98\x80");
            vec_push(&want, 0xD83D);
            vec_push(&want, 0xDE00);
            for (size_t k = 0; k < pre + mid; k++) {
                buf_addc(&in, 'z');
                vec_push(&want, 'z');
            }
            buf_adds(&in, "\xe2\x82");
            vec_push(&want, 0xFFFD);
            vec_push(&want, 0xFFFD);
            buf_adds(&w, "AB");
            utf8_to_utf16le(&w, in.s, in.len);
            ck_assert_uint_eq(w.len, 2 + 2 * want.n);
            ck_assert(w.s[0] == 'A' && w.s[1] == 'B' && w.s[w.len] == '\0');
            for (size_t k = 0; k < want.n; k++) {
                unsigned u = (unsigned char)w.s[2 + 2 * k] | (unsigned char)w.s[3 + 2 * k] << 8;
                ck_assert_msg(u == want.v[k], "pre %zu mid %zu unit %zu: %04x, not %04x", pre,
                              mid, k, u, want.v[k]);
            }
            buf_free(&in);
            buf_free(&w);
            vec_free(&want);
        }
}
END_TEST

START_TEST(test_util_guid_parse_format)
{
    Guid g;
    ck_assert(guid_parse("{716EFEF7-5AC2-4EE0-8277-D9226411A155}", &g));
    ck_assert_uint_eq(g.d1, 0x716EFEF7);
    ck_assert_uint_eq(g.d2, 0x5AC2);
    ck_assert_uint_eq(g.d3, 0x4EE0);
    ck_assert_uint_eq(g.d4[0], 0x82);
    ck_assert_uint_eq(g.d4[7], 0x55);
    char out[39];
    guid_format(&g, out);
    ck_assert_str_eq(out, "{716EFEF7-5AC2-4EE0-8277-D9226411A155}");
    ck_assert(guid_parse("c651f5f6-1c0d-492e-8ae1-b4efd7c9d503", &g));
    ck_assert(!guid_parse("{716EFEF7-5AC2-4EE0-8277-D9226411A15}", &g));
    ck_assert(!guid_parse("{716EFEF7x5AC2-4EE0-8277-D9226411A155}", &g));
    ck_assert(!guid_parse("{716EFEF7-5AC2-4EE0-8277-D9226411A15G}", &g));
}
END_TEST

/* Test vectors of FIPS 180-4 (SHA-256) and RFC 1321 (MD5). */
static void hex(const unsigned char *d, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

START_TEST(test_util_sha256_md5_vectors)
{
    unsigned char d[32];
    char h[65];
    sha256("abc", 3, d);
    hex(d, 32, h);
    ck_assert_str_eq(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    static const char two[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha256(two, strlen(two), d);
    hex(d, 32, h);
    ck_assert_str_eq(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    sha256("", 0, d);
    hex(d, 32, h);
    ck_assert_str_eq(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    md5("", 0, d);
    hex(d, 16, h);
    ck_assert_str_eq(h, "d41d8cd98f00b204e9800998ecf8427e");
    md5("abc", 3, d);
    hex(d, 16, h);
    ck_assert_str_eq(h, "900150983cd24fb0d6963f7d28e17f72");
    static const char digits[] =
        "12345678901234567890123456789012345678901234567890123456789012345678901234567890";
    md5(digits, strlen(digits), d);
    hex(d, 16, h);
    ck_assert_str_eq(h, "57edf4a22be3c955ac49da2e2107b67a");
}
END_TEST

/* The SHA instructions and the portable code give the same digests: the
 * FIPS 180-4 one-million-'a' vector, and every length from 0 to 300 of
 * varied bytes (each tail and padding case, one to six blocks), hashed by
 * sha256 (the SHA instructions where the CPU has them) and by the portable
 * compression over a message padded here as FIPS 180-4 5.1.1 says. */
START_TEST(test_util_sha256_hw_matches_portable)
{
    unsigned char d[32];
    char h[65];
    size_t big = 1000000;
    unsigned char *a = malloc(big);
    ck_assert_ptr_nonnull(a);
    memset(a, 'a', big);
    sha256(a, big, d);
    hex(d, 32, h);
    ck_assert_str_eq(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(a);

    unsigned char msg[300], pad[448];
    for (size_t i = 0; i < sizeof msg; i++)
        msg[i] = (unsigned char)(i * 131 + 7);
    for (size_t n = 0; n <= sizeof msg; n++) {
        size_t padded = (n + 9 + 63) / 64 * 64;
        memset(pad, 0, padded);
        memcpy(pad, msg, n);
        pad[n] = 0x80;
        for (int i = 0; i < 8; i++)
            pad[padded - 1 - (size_t)i] = (unsigned char)((uint64_t)n * 8 >> (8 * i));
        uint32_t st[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                          0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
        sha256_blocks_portable(st, pad, padded / 64);
        unsigned char want[32];
        for (int i = 0; i < 32; i++)
            want[i] = (unsigned char)(st[i / 4] >> (24 - 8 * (i % 4)));
        sha256(msg, n, d);
        ck_assert_msg(memcmp(d, want, 32) == 0, "length %zu (SHA instructions: %d)", n,
                      (int)sha256_hw());
    }
}
END_TEST

/* A stable sort keeps equal elements in order. */
static int cmp_first(const void *a, const void *b)
{
    return ((const int *)a)[0] - ((const int *)b)[0];
}

START_TEST(test_util_sort_stable)
{
    int v[8][2] = {{3, 0}, {1, 1}, {3, 2}, {2, 3}, {1, 4}, {3, 5}, {0, 6}, {2, 7}};
    sort_stable(v, 8, sizeof v[0], cmp_first);
    static const int order[8] = {6, 1, 4, 3, 7, 0, 2, 5};
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(v[i][1], order[i]);
    sort_stable(NULL, 0, sizeof v[0], cmp_first);
}
END_TEST

/* The radix sort by a 32-bit key gives sort_stable's order: 24-byte
 * records whose keys differ in each byte, with runs of equal keys and
 * bytes shared by every key (a pass it skips). */
typedef struct Rec24 {
    uint64_t seq;
    uint32_t pad, key;
    uint64_t more;
} Rec24;

static int cmp_rec24(const void *a, const void *b)
{
    uint32_t x = ((const Rec24 *)a)->key, y = ((const Rec24 *)b)->key;
    return x < y ? -1 : x > y;
}

START_TEST(test_util_sort_stable_u32)
{
    enum { N = 3000 };
    static Rec24 got[N], want[N];
    uint32_t seed = 7;
    for (size_t i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        /* the middle byte is 0x5A in every key; the rest take few values,
         * so equal keys are common */
        uint32_t k = ((seed >> 4) & 0x7) << 24 | 0x5A << 16 | ((seed >> 9) & 0x3) << 8 |
                     ((seed >> 13) & 0xF);
        got[i] = (Rec24){i, 0, k, ~(uint64_t)i};
    }
    memcpy(want, got, sizeof got);
    sort_stable(want, N, sizeof want[0], cmp_rec24);
    sort_stable_u32(got, N, sizeof got[0], offsetof(Rec24, key));
    for (size_t i = 0; i < N; i++) {
        ck_assert_uint_eq(got[i].key, want[i].key);
        ck_assert_uint_eq(got[i].seq, want[i].seq);
        ck_assert(got[i].more == ~got[i].seq);
    }
    sort_stable_u32(NULL, 0, sizeof got[0], 0);
    sort_stable_u32(got, 1, sizeof got[0], offsetof(Rec24, key));
}
END_TEST

/* The injected failure comes after exactly n successful allocations of
 * either kind, and only that one fails; util_fail_after says how many were
 * left, so a test can count a run's allocations. */
START_TEST(test_util_fail_after_fails_one)
{
    util_fail_after(2);
    void *a = util_try_malloc(8);
    void *b = util_try_realloc(NULL, 8);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_null(util_try_realloc(a, 16)); /* `a` is still the caller's */
    void *c = util_try_malloc(8);
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(util_fail_after(10), -1);
    free(xmalloc(1));
    free(xstrdup("x"));
    ck_assert_int_eq(util_fail_after(-1), 8);
    free(a);
    free(b);
    free(c);
}
END_TEST

/* fn, run in a child, ends it with the message and exit status 2. */
static void expect_out_of_memory(void (*fn)(void *))
{
    Buf err = {0};
    int st = unit_in_child(fn, NULL, &err);
    ck_assert_msg(WIFEXITED(st), "the child did not exit (status %d): %s", st, err.s ? err.s : "");
    ck_assert_msg(WEXITSTATUS(st) == 2, "exit status %d: %s", WEXITSTATUS(st), err.s ? err.s : "");
    ck_assert_str_eq(err.s, "mcgen: error: out of memory\n");
    buf_free(&err);
}

static void allocate_forever(void *arg)
{
    (void)arg;
    util_fail_after(3);
    for (;;)
        free(xmalloc(16));
}

/* xmalloc does not return NULL: the run ends with the message and status
 * 2, an environment problem like I/O (exit 1 means a bad manifest). */
START_TEST(test_util_out_of_memory_exits_2)
{
    expect_out_of_memory(allocate_forever);
}
END_TEST

/* Set by an exit handler that then holds the exit up for a while: the
 * other threads run out of memory while the first one is exiting. */
static atomic_bool exit_started;

static void slow_exit(void)
{
    atomic_store(&exit_started, true);
    nanosleep(&(struct timespec){0, 200 * 1000 * 1000}, NULL);
}

static void *run_out_later(void *arg)
{
    (void)arg;
    while (!atomic_load(&exit_started))
        sched_yield();
    util_out_of_memory();
}

static void threads_run_out(void *arg)
{
    (void)arg;
    atexit(slow_exit);
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, run_out_later, NULL);
    util_out_of_memory();
}

/* Three threads running out of memory while a fourth is exiting for that
 * reason: one message, one exit (C11 leaves two concurrent exit() calls
 * undefined). */
START_TEST(test_util_out_of_memory_threads_exit_once)
{
    expect_out_of_memory(threads_run_out);
}
END_TEST

/* The VmFlags of the mapping that holds p ("hg": advised for huge pages),
 * from /proc/self/smaps; false when there is no such file (not Linux). */
static bool vm_flags_of(const void *p, char *flags, size_t n)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return false;
    char line[512];
    bool in = false, found = false;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
            in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
        } else if (in && strncmp(line, "VmFlags:", 8) == 0) {
            size_t k = strlen(line + 8);
            if (k >= n)
                k = n - 1;
            memcpy(flags, line + 8, k);
            flags[k] = '\0';
            found = true;
            break;
        }
    }
    fclose(f);
    return found;
}

/* A vector or hash table of 4 MiB or more is advised for transparent huge
 * pages (Linux), so that a large manifest's first touches cost few faults;
 * a small block is not. */
START_TEST(test_util_large_blocks_advised_huge)
{
    char flags[256];
    size_t big = 16u * 1024 * 1024;
    char *a = xmalloc(big), *c = xcalloc(big / 8, 8), *r = xrealloc(xmalloc(16), big);
    memset(a, 1, big);
    memset(r, 1, big);
    if (!vm_flags_of(a, flags, sizeof flags)) {
        free(a), free(c), free(r);
        return; /* no /proc/self/smaps: nothing advised to see */
    }
    char *mid[] = {a + big / 2, c + big / 2, r + big / 2};
    for (int i = 0; i < 3; i++) {
        ck_assert(vm_flags_of(mid[i], flags, sizeof flags));
        ck_assert_msg(strstr(flags, " hg") != NULL, "block %d: VmFlags:%s", i, flags);
    }
    free(a), free(c), free(r);
}
END_TEST

Suite *util_suite(void)
{
    Suite *s = suite_create("util");
    TCase *tc = tcase_create("util");
    /* the sanitizer builds run several times slower on a busy machine */
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_util_buf_invariants);
    tcase_add_test(tc, test_util_buf_little_endian);
    tcase_add_test(tc, test_util_map_put_get_grow);
    tcase_add_test(tc, test_util_map_ref_n);
    tcase_add_test(tc, test_util_map_ref);
    tcase_add_test(tc, test_util_map_copy);
    tcase_add_test(tc, test_util_ptrmap_reserve);
    tcase_add_test(tc, test_util_hash_every_byte_counts);
    tcase_add_test(tc, test_util_put_c_string);
    tcase_add_test(tc, test_util_arena_zeroed_aligned);
    tcase_add_test(tc, test_util_arena_mark_release);
    tcase_add_test(tc, test_util_arena_pool);
    tcase_add_test(tc, test_util_parse_uint);
    tcase_add_test(tc, test_util_utf_round_trip);
    tcase_add_test(tc, test_util_utf16le_ascii_runs);
    tcase_add_test(tc, test_util_guid_parse_format);
    tcase_add_test(tc, test_util_sha256_md5_vectors);
    tcase_add_test(tc, test_util_sha256_hw_matches_portable);
    tcase_add_test(tc, test_util_sort_stable);
    tcase_add_test(tc, test_util_sort_stable_u32);
    tcase_add_test(tc, test_util_fail_after_fails_one);
    tcase_add_test(tc, test_util_out_of_memory_exits_2);
    tcase_add_test(tc, test_util_out_of_memory_threads_exit_once);
    tcase_add_test(tc, test_util_large_blocks_advised_huge);
    suite_add_tcase(s, tc);
    return s;
}
