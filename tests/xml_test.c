/*
 * xml_test.c - the XML layer: positions (1-based, elements and attributes),
 * encodings, QName resolution through namespace scopes, refusal of DTDs,
 * and identical results for every chunk size.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "os.h"
#include "unit.h"

/* Records every callback as one line of text. */
typedef struct Rec {
    Buf out;
} Rec;

static void rec_start(void *ctx, XmlReader *r, const XmlElem *e)
{
    Rec *rec = ctx;
    buf_printf(&rec->out, "<%s%s%s %u:%u", e->ns, e->ns[0] ? "|" : "", e->local, e->loc.line,
               e->loc.col);
    for (size_t i = 0; i < e->nattrs; i++)
        buf_printf(&rec->out, " %s=%s@%u:%u", e->attrs[i].local, e->attrs[i].value,
                   e->attrs[i].loc.line, e->attrs[i].loc.col);
    const char *ref = xml_attr(e, "ref");
    if (ref) {
        QName q;
        if (xml_qname(r, ref, &q))
            buf_printf(&rec->out, " ref={%s}%s", q.ns, q.local);
        else
            buf_adds(&rec->out, " ref=undeclared");
    }
    buf_addc(&rec->out, '\n');
}

static void rec_end(void *ctx, XmlReader *r, const XmlElem *e, const char *text, size_t len)
{
    (void)r;
    Rec *rec = ctx;
    size_t n;
    char *t = strndup(text, len);
    const char *s = trim_span(t, &n);
    buf_printf(&rec->out, ">%s '%.*s'\n", e->local, (int)n, s);
    free(t);
}

/* Parses `bytes` with every chunk size; all must give `want`. */
static void expect_events(const void *bytes, size_t len, const char *want)
{
    for (int i = 0; i < 5; i++) {
        Rec rec = {0};
        Arena a = {0};
        XmlHandler h = {&rec, rec_start, rec_end};
        bool ok = xml_parse_mem("t.xml", bytes, len, unit_chunks[i], &a, &h);
        ck_assert_msg(ok, "parse failed with chunk %zu", unit_chunks[i]);
        ck_assert_str_eq(rec.out.s, want);
        buf_free(&rec.out);
        arena_free(&a);
    }
    diag_reset();
}

/* Parses and expects failure with exactly `want` on the diagnostic stream. */
static void expect_error(const void *bytes, size_t len, const char *want)
{
    for (int i = 0; i < 5; i++) {
        Rec rec = {0};
        Arena a = {0};
        Buf diag = {0};
        diag_set_capture(&diag);
        XmlHandler h = {&rec, rec_start, rec_end};
        bool ok = xml_parse_mem("t.xml", bytes, len, unit_chunks[i], &a, &h);
        diag_set_capture(NULL);
        ck_assert_msg(!ok, "parse succeeded with chunk %zu", unit_chunks[i]);
        ck_assert_str_eq(diag.s, want);
        buf_free(&diag);
        buf_free(&rec.out);
        arena_free(&a);
    }
    diag_reset();
}

static const char positions_doc[] =
    "<?xml version=\"1.0\"?>\n"
    "<root xmlns=\"urn:a\" one=\"1\"\n"
    "      two='2'>\n"
    "\t<child  x=\"y\"\r\n"
    "   z=\"multi\nline\" w=\"\xc3\xa9\" v=\"after\"/>text\n"
    "</root>\n";

static const char positions_want[] =
    "<urn:a|root 2:1 one=1@2:21 two=2@3:7\n"
    "<urn:a|child 4:2 x=y@4:10 z=multi line@5:4 w=\xc3\xa9@6:7 v=after@6:13\n"
    ">child ''\n"
    ">root 'text'\n";

START_TEST(test_xml_positions_are_one_based)
{
    expect_events(positions_doc, strlen(positions_doc), positions_want);
}
END_TEST

/* A one-line ASCII tag: spaces around '=', a namespace declaration among
 * the attributes (not one of them), '=' inside a value; columns counted
 * by hand. */
START_TEST(test_xml_positions_on_one_line)
{
    expect_events("<e a = \"1\" xmlns:p='urn:p' p:b=\"x=y\" c='2'/>", 44,
                  "<e 1:1 a=1@1:4 b=x=y@1:28 c=2@1:38\n>e ''\n");
}
END_TEST

/* Tags of the least length for their names and values (placed by their
 * length, tight_tag) and tags one deviation longer each (a reference, a
 * wider gap, a prefixed element, a declaration or a prefixed attribute
 * among the attributes, spaces around '=' and before '/>'), one a line;
 * columns counted by hand. */
START_TEST(test_xml_positions_of_tight_tags)
{
    static const char doc[] = "<r xmlns='urn:a' xmlns:p='urn:p'>\n"
                              "<e a=\"1\" b=\"xy\"/>\n"
                              "<e a=\"&amp;\" b=\"x\"/>\n"
                              "<e a=\"1\"  b=\"x\"></e>\n"
                              "<p:e a=\"1\" b=\"x\"/>\n"
                              "<e xmlns:q='urn:q' a='1'/>\n"
                              "<e a='1' q:b='2' xmlns:q='urn:q'/>\n"
                              "<e a = '1' b='2' />\n"
                              "<e\ta='1'\tb='2'>\t</e></r>";
    expect_events(doc, sizeof doc - 1,
                  "<urn:a|r 1:1\n"
                  "<urn:a|e 2:1 a=1@2:4 b=xy@2:10\n>e ''\n"
                  "<urn:a|e 3:1 a=&@3:4 b=x@3:14\n>e ''\n"
                  "<urn:a|e 4:1 a=1@4:4 b=x@4:11\n>e ''\n"
                  "<urn:p|e 5:1 a=1@5:6 b=x@5:12\n>e ''\n"
                  "<urn:a|e 6:1 a=1@6:20\n>e ''\n"
                  "<urn:a|e 7:1 a=1@7:4 b=2@7:10\n>e ''\n"
                  "<urn:a|e 8:1 a=1@8:4 b=2@8:12\n>e ''\n"
                  "<urn:a|e 9:1 a=1@9:4 b=2@9:10\n>e ''\n"
                  ">r ''\n");
}
END_TEST

/* Lone \r and \r\n line ends, and characters of 2 and 4 UTF-8 bytes
 * before a tag on its line; element positions as Python's pyexpat gives
 * them, attribute positions counted by hand. */
START_TEST(test_xml_positions_after_cr_and_multibyte)
{
    static const char doc[] = "<r>\r<a x='1'/>\xc3\xa9\xf0\x9d\x84\x9e<b\ry='2'/>\r\n\t<c/>"
                              "\xc3\xbc<d/></r>";
    expect_events(doc, sizeof doc - 1,
                  "<r 1:1\n<a 2:1 x=1@2:4\n>a ''\n<b 2:13 y=2@3:1\n>b ''\n<c 4:2\n>c ''\n"
                  "<d 4:7\n>d ''\n>r '\xc3\xa9\xf0\x9d\x84\x9e\n\t\xc3\xbc'\n");
}
END_TEST

START_TEST(test_xml_utf8_bom)
{
    Buf b = {0};
    buf_add(&b, "\xef\xbb\xbf", 3);
    buf_adds(&b, positions_doc);
    expect_events(b.s, b.len, positions_want);
    buf_free(&b);
}
END_TEST

static void to_utf16(Buf *out, const char *s, bool be)
{
    Buf le = {0};
    buf_add(out, be ? "\xfe\xff" : "\xff\xfe", 2);
    utf8_to_utf16le(&le, s, strlen(s));
    for (size_t i = 0; i + 1 < le.len; i += 2) {
        char x[2] = {le.s[i], le.s[i + 1]};
        if (be) {
            char t = x[0];
            x[0] = x[1];
            x[1] = t;
        }
        buf_add(out, x, 2);
    }
    buf_free(&le);
}

START_TEST(test_xml_utf16le_and_be_with_bom)
{
    /* the XML declaration must name an encoding compatible with UTF-16 */
    const char *doc = positions_doc + strlen("<?xml version=\"1.0\"?>\n");
    Buf src = {0};
    buf_adds(&src, "<?xml version=\"1.0\" encoding=\"utf-16\"?>\n");
    buf_adds(&src, doc);
    for (int be = 0; be < 2; be++) {
        Buf b = {0};
        to_utf16(&b, src.s, be);
        expect_events(b.s, b.len, positions_want);
        buf_free(&b);
    }
    buf_free(&src);
}
END_TEST

START_TEST(test_xml_utf16_without_bom_is_refused)
{
    Buf b = {0};
    to_utf16(&b, "<root/>", false);
    expect_error(b.s + 2, b.len - 2,
                 "t.xml:1:1: error: [MCG1004] UTF-16 input without a byte-order mark or XML "
                 "declaration (XML requires a BOM for UTF-16; save the file with one)\n");
    buf_free(&b);
}
END_TEST

/* Checks every lookup on each element against a scan of its attributes:
 * the unqualified attribute of that name, or none. */
static void lookup_start(void *ctx, XmlReader *r, const XmlElem *e)
{
    (void)r;
    int *checked = ctx;
    static const char *const absent[] = {"ref", "nam", "namex", "x", "ao2", "a300"};
    for (size_t i = 0; i < e->nattrs; i++) {
        const XmlAttr *want = e->attrs[i].ns[0] ? NULL : &e->attrs[i];
        for (size_t j = 0; j < e->nattrs && !want; j++)
            if (!e->attrs[j].ns[0] && !strcmp(e->attrs[j].local, e->attrs[i].local))
                want = &e->attrs[j];
        ck_assert_ptr_eq(xml_attr_full(e, e->attrs[i].local), want);
        ck_assert_uint_eq(e->attrs[i].local_len, strlen(e->attrs[i].local));
        (*checked)++;
    }
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++)
        ck_assert_ptr_null(xml_attr(e, absent[i]));
    ck_assert_ptr_null(xml_attr(e, ""));
}

static void lookup_end(void *ctx, XmlReader *r, const XmlElem *e, const char *text, size_t len)
{
    (void)ctx, (void)r, (void)e, (void)text, (void)len;
}

START_TEST(test_xml_attr_lookup_matches_a_scan)
{
    /* names sharing a slot ("name" and "ao"), a qualified attribute
     * whose local name is also an unqualified one's, and more attributes
     * than the slots can index (300) */
    Buf doc = {0};
    buf_adds(&doc, "<r xmlns:p='urn:p'><a p:name='q' ao='1' name='2' map='3'/><b p:map='4'/><c");
    for (int i = 0; i < 300; i++)
        buf_printf(&doc, " a%d='%d'", i, i);
    buf_adds(&doc, " name='n'/></r>");
    int checked = 0;
    Arena a = {0};
    XmlHandler h = {&checked, lookup_start, lookup_end};
    ck_assert(xml_parse_mem("t.xml", doc.s, doc.len, 0, &a, &h));
    ck_assert_int_eq(checked, 4 + 1 + 301);
    buf_free(&doc);
    arena_free(&a);
    diag_reset();
}
END_TEST

START_TEST(test_xml_qname_uses_scopes)
{
    static const char doc[] =
        "<r xmlns='urn:d' xmlns:p='urn:p1'>\n"
        "<a ref='p:x'/>\n"
        "<b xmlns:p='urn:p2' ref='p:y'><c ref='z'/></b>\n"
        "<d ref='p:w' xmlns='urn:other'/>\n"
        "<e ref='q:v'/>\n"
        "</r>";
    expect_events(doc, strlen(doc),
                  "<urn:d|r 1:1\n"
                  "<urn:d|a 2:1 ref=p:x@2:4 ref={urn:p1}x\n>a ''\n"
                  "<urn:d|b 3:1 ref=p:y@3:21 ref={urn:p2}y\n"
                  "<urn:d|c 3:31 ref=z@3:34 ref={urn:d}z\n>c ''\n>b ''\n"
                  "<urn:other|d 4:1 ref=p:w@4:4 ref={urn:p1}w\n>d ''\n"
                  "<urn:d|e 5:1 ref=q:v@5:4 ref=undeclared\n>e ''\n"
                  ">r ''\n");
}
END_TEST

START_TEST(test_xml_billion_laughs_refused)
{
    static const char doc[] = "<?xml version=\"1.0\"?>\n"
                              "<!DOCTYPE lolz [\n"
                              " <!ENTITY lol \"lol\">\n"
                              " <!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n"
                              " <!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">\n"
                              "]>\n"
                              "<lolz>&lol3;</lolz>\n";
    expect_error(doc, strlen(doc),
                 "t.xml:2:1: error: [MCG1002] document type declarations are not allowed in a manifest "
                 "(DTDs and entities are refused)\n"
                 "  <!DOCTYPE lolz [\n"
                 "  ^\n");
}
END_TEST

START_TEST(test_xml_external_entity_refused)
{
    static const char doc[] = "<!DOCTYPE r SYSTEM \"file:///etc/passwd\">\n<r/>";
    expect_error(doc, strlen(doc),
                 "t.xml:1:1: error: [MCG1002] document type declarations are not allowed in a manifest "
                 "(DTDs and entities are refused)\n"
                 "  <!DOCTYPE r SYSTEM \"file:///etc/passwd\">\n"
                 "  ^\n");
}
END_TEST

START_TEST(test_xml_truncated_reports_position)
{
    static const char doc[] = "<r>\n  <a>\n  </a>\n  <b x='1'";
    expect_error(doc, strlen(doc),
                 "t.xml:4:3: error: [MCG1001] malformed XML: unclosed token\n"
                 "    <b x='1'\n"
                 "    ^\n");
}
END_TEST

START_TEST(test_xml_mismatched_tag)
{
    static const char doc[] = "<r>\n<a></b>\n</r>\n";
    expect_error(doc, strlen(doc),
                 "t.xml:2:6: error: [MCG1001] malformed XML: mismatched tag\n"
                 "  <a></b>\n"
                 "       ^\n");
}
END_TEST

START_TEST(test_xml_empty_input)
{
    expect_error("", 0, "t.xml:1:1: error: [MCG1001] malformed XML: no element found\n");
}
END_TEST

/* A 200 KB attribute, 300 KB of text and 20000 elements, fed in 4 KiB
 * chunks, arrive whole and in order. */
START_TEST(test_xml_large_records_and_many_blocks)
{
    Buf doc = {0};
    buf_adds(&doc, "<r a='");
    for (int i = 0; i < 200 * 1024; i++)
        buf_addc(&doc, (char)('a' + i % 26));
    buf_adds(&doc, "'>");
    for (int i = 0; i < 300 * 1024; i++)
        buf_addc(&doc, (char)('0' + i % 10));
    for (int i = 0; i < 20000; i++)
        buf_printf(&doc, "<e n='%d'/>", i);
    buf_adds(&doc, "</r>");
    Rec rec = {0};
    Arena a = {0};
    XmlHandler h = {&rec, rec_start, rec_end};
    ck_assert(xml_parse_mem("t.xml", doc.s, doc.len, 4096, &a, &h));
    /* the root's start line carries the whole attribute; then 20000 child
     * elements, each a start and an end line; then the root's end with its
     * 300 KB of text */
    const char *first_nl = strchr(rec.out.s, '\n');
    ck_assert_uint_eq((size_t)(first_nl - rec.out.s), strlen("<r 1:1 a=") + 200 * 1024 + 4);
    ck_assert_ptr_nonnull(strstr(rec.out.s, "<e 1:780885 n=19999@1:780888\n>e ''\n"));
    const char *last = strstr(rec.out.s, ">r '0123456789");
    ck_assert_ptr_nonnull(last);
    ck_assert_uint_eq(strlen(last), strlen(">r ''\n") + 300 * 1024);
    buf_free(&rec.out);
    buf_free(&doc);
    arena_free(&a);
    diag_reset();
}
END_TEST

/* A recorded document replays as the reader gives it, but for the
 * attributes' places, which are their element's (no tag bytes kept). */
START_TEST(test_xml_recorded_replays_the_parse)
{
    static const char doc[] = "<?xml version='1.0'?>\n<r xmlns='urn:a' xmlns:p='urn:p'>\n"
                               "  <e a='1'\n     p:b='x' ref='p:y'>text &amp; more</e>\n"
                               "  <p:e ref='q:z'/><e>\xC3\xA9</e></r>";
    Buf rec = {0};
    ck_assert(xml_record("t.xml", doc, sizeof doc - 1, &rec));
    Rec got = {0};
    Arena a = {0};
    XmlHandler h = {&got, rec_start, rec_end};
    ck_assert(xml_parse_recorded("t.xml", doc, sizeof doc - 1, rec.s, rec.len, &a, &h));
    ck_assert_str_eq(got.out.s, "<urn:a|r 2:1\n"
                                "<urn:a|e 3:3 a=1@3:3 b=x@3:3 ref=p:y@3:3 ref={urn:p}y\n"
                                ">e 'text & more'\n"
                                "<urn:p|e 5:3 ref=q:z@5:3 ref=undeclared\n"
                                ">e ''\n"
                                "<urn:a|e 5:19\n"
                                ">e '\xC3\xA9'\n"
                                ">r ''\n");
    /* not well-formed: nothing recorded */
    Buf none = {0};
    ck_assert(!xml_record("t.xml", "<r><e></r>", 10, &none));
    ck_assert_uint_eq(none.len, 0);
    buf_free(&got.out);
    buf_free(&rec);
    arena_free(&a);
    diag_reset();
}
END_TEST

/* The records built into mcgen are those of the documents built into it
 * (build/gen/records.c is not stale). */
START_TEST(test_xml_embedded_records_are_current)
{
    Buf rec = {0};
    ck_assert(xml_record("w", embed_winmeta_xml, embed_winmeta_xml_len, &rec));
    ck_assert_uint_eq(rec.len, rec_winmeta_xml_len);
    ck_assert(memcmp(rec.s, rec_winmeta_xml, rec.len) == 0);
    buf_reset(&rec);
    ck_assert(xml_record("x", embed_eventman_xsd, embed_eventman_xsd_len, &rec));
    ck_assert_uint_eq(rec.len, rec_eventman_xsd_len);
    ck_assert(memcmp(rec.s, rec_eventman_xsd, rec.len) == 0);
    buf_free(&rec);
}
END_TEST

/* ---- allocation failure ---- */

static const char oom_doc[] = "<r xmlns='urn:a' xmlns:p='urn:p'><e a='1' p:b='x'>text</e>"
                              "<p:e/><e>more text</e></r>";

/* oom_doc recorded (xml_record) before any allocation fails */
static Buf oom_records;

/* how: 0 a parse, whole input; 1 a parse, 7-byte chunks; 2 records
 * replayed (the embedded documents' path: no expat). */
static bool oom_parse(int how, Buf *out)
{
    Rec rec = {0};
    Arena a = {0};
    XmlHandler h = {&rec, rec_start, rec_end};
    size_t len = sizeof oom_doc - 1;
    bool ok = how == 2 ? xml_parse_recorded("t.xml", oom_doc, len, oom_records.s,
                                            oom_records.len, &a, &h)
                       : xml_parse_mem("t.xml", oom_doc, len, how ? 7 : 0, &a, &h);
    buf_add(out, rec.out.s, rec.out.len);
    buf_free(&rec.out);
    arena_free(&a);
    return ok;
}

typedef struct OomRun {
    long k; /* allocations that succeed before the one that fails */
    int how;
    const Buf *want; /* the callbacks of a parse without failure */
} OomRun;

/* Exit status 0: parsed; 3: the parse failed and returned (expat's
 * allocation failed), and the handlers saw a beginning of what a parse
 * without failure gives them (4 if not); 2: util_out_of_memory ended the
 * process. */
static void oom_child(void *arg)
{
    OomRun *r = arg;
    Buf got = {0};
    buf_grow(&got, r->want->len); /* no allocation of the test's own in the count */
    util_fail_after(r->k);
    bool ok = oom_parse(r->how, &got);
    bool prefix = got.len <= r->want->len && memcmp(got.s, r->want->s, got.len) == 0;
    buf_free(&got);
    exit(!prefix ? 4 : ok ? 0 : 3);
}

/* Every allocation of a parse failed in turn, mcgen's and expat's (expat
 * allocates through util.c): each run ends with "out of memory" and no
 * crash and, in the ASan build, no leak (the child's exit is checked);
 * some of the failures land in expat, which returns, and are diagnosed;
 * the handlers never see what expat got wrong after a failure (expat 2.5
 * passes on an xmlns:p whose binding it could not store as an attribute).
 * The sweep goes a little past the count, where every run succeeds. */
START_TEST(test_xml_every_allocation_failure_ends_cleanly)
{
    buf_reset(&oom_records);
    ck_assert(xml_record("t.xml", oom_doc, sizeof oom_doc - 1, &oom_records));
    for (int how = 0; how < 3; how++) {
        long used = 0;
        Buf want = {0};
        for (int i = 0; i < 2; i++) { /* the second count: diag's sources now registered */
            buf_reset(&want);
            util_fail_after(1L << 30);
            ck_assert(oom_parse(how, &want));
            used = (1L << 30) - util_fail_after(-1);
        }
        long failed = 0, in_expat = 0;
        for (long k = 0; k <= used + 3; k++) {
            Buf err = {0};
            OomRun run = {k, how, &want};
            int st = unit_in_child(oom_child, &run, &err);
            const char *text = err.s ? err.s : "";
            ck_assert_msg(WIFEXITED(st), "mode %d, allocation %ld of %ld: status %d: %s", how,
                          k + 1, used, st, text);
            int code = WEXITSTATUS(st);
            bool ok = code == 0 && !err.len;
            bool oom = (code == 2 || code == 3) && strcmp(text, "mcgen: error: out of memory\n") == 0;
            ck_assert_msg(ok || oom, "mode %d, allocation %ld of %ld: status %d: %s", how, k + 1,
                          used, code, text);
            ck_assert_msg(oom || k >= used, "mode %d: allocation %ld of %ld did not fail",
                          how, k + 1, used);
            ck_assert_msg(ok || k < used, "mode %d: allocation %ld of %ld failed", how,
                          k + 1, used);
            failed += oom;
            in_expat += code == 3;
            buf_free(&err);
        }
        ck_assert_int_eq(failed, used);
        /* a replay has no expat: every failure ends the run */
        ck_assert_msg(how == 2 ? in_expat == 0 : in_expat > 0, "mode %d: %ld failures reached expat",
                      how, in_expat);
        buf_free(&want);
    }
    buf_free(&oom_records);
    diag_reset();
}
END_TEST

/* ---- a file mapped into expat's buffer (os_map_file) ----
 * A document of 9 MiB and more: its pages are let go behind the parse
 * every 4 MiB, and read from the file again by what looks back. */

/* A document of `lines` lines of elements, line breaks `nl` ("\n" or
 * "\r\n"), a character outside ASCII every 97th line; `tail` ends it. */
static void big_doc(Buf *doc, int lines, const char *nl, const char *tail)
{
    buf_printf(doc, "<?xml version='1.0'?>%s<r xmlns='urn:a'>%s", nl, nl);
    for (int i = 0; i < lines; i++)
        buf_printf(doc, "  <e n='%d' s='%s'%s     t='%08d'/>%s", i, i % 97 ? "ascii" : "\xc3\xa9t\xc3\xa9",
                   nl, i * 7, nl);
    buf_adds(doc, tail);
}

static void write_doc(const char *path, const Buf *doc)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(doc->s, 1, doc->len, f), doc->len);
    ck_assert_int_eq(fclose(f), 0);
}

static void temp_path(char *path, size_t size)
{
    char dir[] = "/tmp/mcgen-unit-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, size, "%s/big.xml", dir);
}

static void remove_temp(const char *path)
{
    remove(path);
    char dir[64];
    snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(path, '/') - path), path);
    remove(dir);
}

/* Every event and position of a mapped parse is the in-memory parse's
 * (read whole: nothing let go), with either line break. */
START_TEST(test_xml_mapped_file_parses_as_in_memory)
{
    static const char *const breaks[] = {"\n", "\r\n"};
    for (int b = 0; b < 2; b++) {
        Buf doc = {0};
        big_doc(&doc, 240 * 1024, breaks[b], "</r>\n");
        ck_assert_uint_gt(doc.len, 9u * 1024 * 1024);
        char path[64];
        temp_path(path, sizeof path);
        write_doc(path, &doc);
        Rec mapped = {0}, mem = {0};
        Arena a = {0}, c = {0};
        XmlHandler hm = {&mapped, rec_start, rec_end}, hr = {&mem, rec_start, rec_end};
        ck_assert(xml_parse_file(path, &a, &hm));
        ck_assert(xml_parse_mem("t.xml", doc.s, doc.len, 0, &c, &hr));
        ck_assert_uint_eq(mapped.out.len, mem.out.len);
        ck_assert_msg(memcmp(mapped.out.s, mem.out.s, mem.out.len) == 0, "breaks %d differ", b);
        /* the last element's place, counted here: the lines before it */
        char want[64];
        snprintf(want, sizeof want, "<urn:a|e %d:3 n=%d@%d:6", 2 + 2 * (240 * 1024 - 1) + 1,
                 240 * 1024 - 1, 2 + 2 * (240 * 1024 - 1) + 1);
        ck_assert_ptr_nonnull(strstr(mapped.out.s, want));
        buf_free(&mapped.out), buf_free(&mem.out), buf_free(&doc);
        arena_free(&a), arena_free(&c);
        remove_temp(path);
    }
    diag_reset();
}
END_TEST

/* An error at the end of a large file is placed by expat counting from
 * the first byte, over pages let go long before: they are read again. */
START_TEST(test_xml_mapped_file_late_error_position)
{
    Buf doc = {0};
    int lines = 240 * 1024;
    big_doc(&doc, lines, "\n", "  <b x='1'");
    char path[64];
    temp_path(path, sizeof path);
    write_doc(path, &doc);
    Rec rec = {0};
    Arena a = {0};
    Buf diag = {0};
    diag_set_capture(&diag);
    XmlHandler h = {&rec, rec_start, rec_end};
    ck_assert(!xml_parse_file(path, &a, &h));
    diag_set_capture(NULL);
    char want[160];
    snprintf(want, sizeof want,
             "%s:%d:3: error: [MCG1001] malformed XML: unclosed token\n    <b x='1'\n    ^\n", path,
             2 + 2 * lines + 1);
    ck_assert_str_eq(diag.s, want);
    buf_free(&diag), buf_free(&rec.out), buf_free(&doc);
    arena_free(&a);
    remove_temp(path);
    diag_reset();
}
END_TEST

/* Elements named "e" take no text (xml_drop_blank_text): an all-blank
 * text comes to their end callback empty; any other keeps its
 * characters (which pieces of white space go depends on where expat cut
 * the text, so they are shown without it).  Other elements keep theirs
 * whole. */
static void drop_start(void *ctx, XmlReader *r, const XmlElem *e)
{
    (void)ctx;
    if (!strcmp(e->local, "e"))
        xml_drop_blank_text(r);
}

static void drop_end(void *ctx, XmlReader *r, const XmlElem *e, const char *text, size_t len)
{
    (void)r;
    Buf *out = ctx;
    buf_printf(out, "%s[", e->local);
    for (size_t i = 0; i < len; i++)
        if (strcmp(e->local, "e") || !strchr(" \t\r\n", text[i]))
            buf_addc(out, text[i]);
    buf_printf(out, "]%s", len ? "" : "empty ");
}

START_TEST(test_xml_drop_blank_text_keeps_the_rest)
{
    static const char doc[] =
        "<r>\n <e>\n  <e> \t\r\n</e>\n  <k> </k>\n  x y\n         \n</e> </r>";
    for (int i = 0; i < 5; i++) {
        Buf out = {0};
        Arena a = {0};
        XmlHandler h = {&out, drop_start, drop_end};
        ck_assert(xml_parse_mem("t.xml", doc, sizeof doc - 1, unit_chunks[i], &a, &h));
        ck_assert_str_eq(out.s, "e[]empty k[ ]e[xy]r[\n  ]");
        buf_free(&out);
        arena_free(&a);
    }
    diag_reset();
}
END_TEST

/* The file cut short by another process while mapped: the pages past its
 * new end cannot be read.  The run ends with a message and status 2. */
static void cut_start(void *ctx, XmlReader *r, const XmlElem *e)
{
    (void)r, (void)e;
    const char *path = ctx;
    FILE *f = fopen(path, "wb"); /* truncates */
    if (f)
        fclose(f);
}

static void cut_end(void *ctx, XmlReader *r, const XmlElem *e, const char *text, size_t len)
{
    (void)ctx, (void)r, (void)e, (void)text, (void)len;
}

static void cut_child(void *arg)
{
    Arena a = {0};
    XmlHandler h = {arg, cut_start, cut_end};
    xml_parse_file(arg, &a, &h);
    fprintf(stderr, "parse returned\n");
    exit(0);
}

START_TEST(test_xml_mapped_file_cut_short)
{
    Buf doc = {0};
    big_doc(&doc, 240 * 1024, "\n", "</r>\n");
    char path[64];
    temp_path(path, sizeof path);
    write_doc(path, &doc);
    Buf err = {0};
    int st = unit_in_child(cut_child, path, &err);
    char want[128];
    snprintf(want, sizeof want, "mcgen: error: '%s' changed while it was read\n", path);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2, "status %d: %s", st,
                  err.s ? err.s : "");
    ck_assert_str_eq(err.s ? err.s : "", want);
    buf_free(&err), buf_free(&doc);
    remove_temp(path);
}
END_TEST

/* os_map_file maps only inside a block of os_pages_alloc: a page-aligned
 * block from malloc may share its pages with other blocks, whose headers
 * a mapping would replace (the input buffer of a small file once was
 * one).  Refused there, it leaves the bytes as they were. */
START_TEST(test_os_map_file_only_over_its_pages)
{
    Buf doc = {0};
    for (int i = 0; i < 8192; i++)
        buf_addc(&doc, (char)('a' + i % 26));
    char path[64];
    temp_path(path, sizeof path);
    write_doc(path, &doc);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    void *heap = NULL;
    ck_assert_int_eq(posix_memalign(&heap, 65536, 65536), 0);
    memset(heap, 'x', 65536);
    ck_assert(!os_map_file(heap, f, doc.len, path));
    for (size_t i = 0; i < 65536; i++)
        ck_assert_int_eq(((unsigned char *)heap)[i], 'x');
    free(heap);
    char *pages = os_pages_alloc(4 * 65536);
    ck_assert_ptr_nonnull(pages);
    /* not past the block's end either */
    ck_assert(!os_map_file(pages + 4 * 65536 - 4096, f, doc.len, path));
    ck_assert(os_map_file(pages + 65536, f, doc.len, path));
    ck_assert(memcmp(pages + 65536, doc.s, doc.len) == 0);
    ck_assert(!os_map_possible(f)); /* one file at a time */
    os_pages_free(pages, 4 * 65536);
    ck_assert(os_map_possible(f));
    fclose(f);
    buf_free(&doc);
    remove_temp(path);
}
END_TEST

Suite *xml_suite(void)
{
    Suite *s = suite_create("xml");
    TCase *tc = tcase_create("xml");
    /* the sanitizer builds run several times slower on a busy machine */
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_xml_positions_are_one_based);
    tcase_add_test(tc, test_xml_positions_on_one_line);
    tcase_add_test(tc, test_xml_positions_of_tight_tags);
    tcase_add_test(tc, test_xml_positions_after_cr_and_multibyte);
    tcase_add_test(tc, test_xml_utf8_bom);
    tcase_add_test(tc, test_xml_utf16le_and_be_with_bom);
    tcase_add_test(tc, test_xml_utf16_without_bom_is_refused);
    tcase_add_test(tc, test_xml_qname_uses_scopes);
    tcase_add_test(tc, test_xml_attr_lookup_matches_a_scan);
    tcase_add_test(tc, test_xml_billion_laughs_refused);
    tcase_add_test(tc, test_xml_external_entity_refused);
    tcase_add_test(tc, test_xml_truncated_reports_position);
    tcase_add_test(tc, test_xml_mismatched_tag);
    tcase_add_test(tc, test_xml_empty_input);
    tcase_add_test(tc, test_xml_large_records_and_many_blocks);
    tcase_add_test(tc, test_xml_mapped_file_parses_as_in_memory);
    tcase_add_test(tc, test_xml_mapped_file_late_error_position);
    tcase_add_test(tc, test_xml_mapped_file_cut_short);
    tcase_add_test(tc, test_xml_drop_blank_text_keeps_the_rest);
    tcase_add_test(tc, test_os_map_file_only_over_its_pages);
    tcase_add_test(tc, test_xml_every_allocation_failure_ends_cleanly);
    tcase_add_test(tc, test_xml_recorded_replays_the_parse);
    tcase_add_test(tc, test_xml_embedded_records_are_current);
    suite_add_tcase(s, tc);
    return s;
}
