/*
 * mc_test.c - the message-text (.mc) reader and check_mc.  First the chunk
 * harness: the same bytes (ANSI, UTF-8 with a byte-order mark, UTF-16LE
 * with one and with -u; non-ASCII text and surrogate pairs; CRLF and LF;
 * a Ctrl-Z end; bad bytes) read through read_mc_mem in every chunk size
 * from 1 to the file's length must give the model and the diagnostics of
 * the read in one chunk, byte for byte.  Then the language's rules, each
 * with values taken from Microsoft's "Message Text Files" documentation
 * or from real mc outputs (/work/prompts/i13/mc-facts.md: [D] and [B]),
 * not from mcgen: an id is severity << 30 | customer << 29 | facility << 16
 * | number, numbers count per facility, Severity and Facility carry over.
 */
#include <string.h>

#include "unit.h"

/* ---- the model as text, to compare two reads ---- */

static void dump_name(Buf *b, const McName *n)
{
    buf_printf(b, "  %s=%u:%s builtin=%d order=%u at %u:%u\n", n->name, (unsigned)n->value,
               n->symbol ? n->symbol : "-", n->builtin, (unsigned)n->order, (unsigned)n->loc.line,
               (unsigned)n->loc.col);
}

static void dump(const Manifest *m, Buf *b)
{
    if (!m) {
        buf_printf(b, "no model\n");
        return;
    }
    const McFile *f = m->mc;
    buf_printf(b, "encoding %d, %zu messages, first at item %zu\n", (int)f->encoding,
               f->nmessages, f->first_message);
    for (size_t i = 0; i < f->severities.n; i++)
        dump_name(b, f->severities.v[i]);
    for (size_t i = 0; i < f->facilities.n; i++)
        dump_name(b, f->facilities.v[i]);
    for (size_t i = 0; i < f->languages.n; i++) {
        const McLanguage *l = f->languages.v[i];
        buf_printf(b, "  language %s=0x%X:%s builtin=%d order=%u at %u:%u\n", l->name,
                   (unsigned)l->langid, l->file ? l->file : "-", l->builtin, (unsigned)l->order,
                   (unsigned)l->loc.line, (unsigned)l->loc.col);
    }
    for (size_t i = 0; i < f->items.n; i++) {
        const McItem *it = &f->items.v[i];
        buf_printf(b, "item at %u:%u\n", (unsigned)it->loc.line, (unsigned)it->loc.col);
        if (it->comment) {
            buf_printf(b, "  comment [%s]\n", it->comment);
            continue;
        }
        const McMessage *msg = it->msg;
        buf_printf(b, "  message kind %d arg %u id 0x%08X sev %s fac %s sym %s type %s macro %s "
                      "base %u at %u:%u id at %u:%u\n",
                   (int)msg->id_kind, (unsigned)msg->id_arg, (unsigned)msg->id,
                   msg->severity_name ? msg->severity_name : "-",
                   msg->facility_name ? msg->facility_name : "-", msg->symbol ? msg->symbol : "-",
                   msg->id_typedef ? msg->id_typedef : "-", msg->id_macro ? msg->id_macro : "-",
                   (unsigned)msg->output_base, (unsigned)msg->loc.line, (unsigned)msg->loc.col,
                   (unsigned)msg->id_loc.line, (unsigned)msg->id_loc.col);
        for (size_t k = 0; k < msg->texts.n; k++) {
            const McText *t = &msg->texts.v[k];
            buf_printf(b, "  text %s, %u lines at %u:%u, text at %u:%u [%s]\n", t->lang_name,
                       (unsigned)t->nlines, (unsigned)t->loc.line, (unsigned)t->loc.col,
                       (unsigned)t->text_loc.line, (unsigned)t->text_loc.col,
                       t->text ? t->text : "(none)");
        }
    }
}

/* One read (and, when it succeeds, check_mc) in chunks of `chunk`: the
 * model and every diagnostic as text. */
static void read_dump(const void *bytes, size_t len, size_t chunk, bool utf16, Buf *out)
{
    Buf diags = {0};
    diag_reset();
    diag_set_capture(&diags);
    Manifest *m = read_mc_mem("t.mc", bytes, len, chunk, utf16);
    if (m)
        buf_printf(out, "check %d\n", check_mc(m, NULL));
    diag_set_capture(NULL);
    dump(m, out);
    buf_printf(out, "diagnostics:\n%s", diags.s ? diags.s : "");
    manifest_free(m);
    buf_free(&diags);
    diag_reset();
}

/* Every chunk size from 1 to len gives what one chunk gives. */
static void same_in_every_chunk(const void *bytes, size_t len, bool utf16, const char *must)
{
    Buf whole = {0}, part = {0};
    read_dump(bytes, len, 0, utf16, &whole);
    ck_assert_msg(strstr(whole.s, must) != NULL, "'%s' not in:\n%s", must, whole.s);
    for (size_t chunk = 1; chunk <= len; chunk++) {
        buf_reset(&part);
        read_dump(bytes, len, chunk, utf16, &part);
        ck_assert_msg(part.len == whole.len && memcmp(part.s, whole.s, whole.len) == 0,
                      "chunks of %zu bytes:\n%s\n---- all at once:\n%s", chunk, part.s, whole.s);
    }
    buf_free(&whole);
    buf_free(&part);
}

/* An ANSI (Windows-1252) file, CRLF line ends: é is 0xE9, € is 0x80;
 * after the Ctrl-Z nothing is read (8-bit files end there, as in the C
 * library's text mode: appmem's MemCtrs.Mc ends with one). */
static const char ansi_doc[] =
    ";// caf\xE9 \x80\r\n"
    "SeverityNames=(Success=0x0:SEV_S Error=0x3:SEV_E)\r\n"
    "FacilityNames=(Io=0x4:FAC_IO)\r\n"
    "MessageId=0x10 Severity=Error Facility=Io SymbolicName=MSG_A\r\n"
    "Language=English\r\n"
    "Co\xFBt: 5 \x80 %1!d!%n\r\n"
    "second line\r\n"
    ".\r\n"
    "MessageId=\r\n"
    "SymbolicName=MSG_B\r\n"
    "Language=English\r\n"
    "%% done\r\n"
    ".\r\n"
    "\x1A"
    "MessageId=oops this is after the end\r\n";

START_TEST(test_mc_chunks_ansi)
{
    /* é read as U+00E9, € as U+20AC, the text's CRLF kept between lines */
    same_in_every_chunk(ansi_doc, sizeof ansi_doc - 1, false,
                        "[Co\xC3\xBBt: 5 \xE2\x82\xAC %1!d!%n\r\nsecond line]");
    Buf b = {0};
    read_dump(ansi_doc, sizeof ansi_doc - 1, 0, false, &b);
    ck_assert_ptr_nonnull(strstr(b.s, "comment [// caf\xC3\xA9 \xE2\x82\xAC]"));
    ck_assert_ptr_nonnull(strstr(b.s, "id 0xC0040010 "));
    ck_assert_ptr_nonnull(strstr(b.s, "id 0xC0040011 "));
    ck_assert_ptr_null(strstr(b.s, "oops"));
    ck_assert_ptr_nonnull(strstr(b.s, "check 1\n"));
    buf_free(&b);
}
END_TEST

/* UTF-8 after its byte-order mark, LF line ends: 2-, 3- and 4-byte
 * characters (U+1F600 is a surrogate pair in UTF-16). */
static const char utf8_text[] =
    ";// \xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\n"
    "LanguageNames=(German=0x407:MSG00407)\n"
    "MessageId=1 SymbolicName=MSG_ONE\n"
    "Language=English\n"
    "smile \xF0\x9F\x98\x80 and \xE2\x82\xAC\n"
    ";not a comment: text\n"
    ".\n"
    "Language=German\n"
    "L\xC3\xA4" "cheln \xF0\x9F\x98\x80\n"
    ".\n";

START_TEST(test_mc_chunks_utf8_bom)
{
    Buf doc = {0};
    buf_add(&doc, "\xEF\xBB\xBF", 3);
    buf_add(&doc, utf8_text, sizeof utf8_text - 1);
    same_in_every_chunk(doc.s, doc.len, false,
                        "[smile \xF0\x9F\x98\x80 and \xE2\x82\xAC\r\n;not a comment: text]");
    buf_free(&doc);
}
END_TEST

START_TEST(test_mc_chunks_utf16)
{
    Buf doc = {0};
    buf_add(&doc, "\xFF\xFE", 2);
    utf8_to_utf16le(&doc, utf8_text, sizeof utf8_text - 1);
    /* the pair D83D DE00 in the file */
    bool pair = false;
    for (size_t i = 0; i + 4 <= doc.len; i++)
        pair |= memcmp(doc.s + i, "\x3D\xD8\x00\xDE", 4) == 0;
    ck_assert(pair);
    same_in_every_chunk(doc.s, doc.len, false, "[L\xC3\xA4" "cheln \xF0\x9F\x98\x80]");
    /* and the same text without the mark, read with -u: the same model */
    Buf with_bom = {0}, with_u = {0};
    read_dump(doc.s, doc.len, 0, false, &with_bom);
    read_dump(doc.s + 2, doc.len - 2, 0, true, &with_u);
    ck_assert_str_eq(with_u.s, with_bom.s);
    same_in_every_chunk(doc.s + 2, doc.len - 2, true, "[L\xC3\xA4" "cheln \xF0\x9F\x98\x80]");
    buf_free(&with_bom);
    buf_free(&with_u);
    buf_free(&doc);
}
END_TEST

/* Bad bytes and bad statements: the same diagnostics at the same places
 * in every chunk size (a character split between chunks is held). */
START_TEST(test_mc_chunks_errors)
{
    static const char bad8[] = "\xEF\xBB\xBF"
                               "MessageId=1\n"
                               "Language=English\n"
                               "bad \xFF byte, cut \xE2\x82 sequence, good \xE2\x82\xAC\n"
                               ". \n"
                               ".\n"
                               "Bogus=1\n"
                               "MessageId=2\n"
                               "Language=English\n"
                               "never ends\n";
    same_in_every_chunk(bad8, sizeof bad8 - 1, false, "[MCG1301]");
    Buf b = {0};
    read_dump(bad8, sizeof bad8 - 1, 0, false, &b);
    ck_assert_ptr_nonnull(strstr(b.s, "[MCG1305, -Wmc-dot-blanks]"));
    ck_assert_ptr_nonnull(strstr(b.s, "[MCG1302]"));
    ck_assert_ptr_nonnull(strstr(b.s, "[MCG1303]"));
    buf_free(&b);
    /* UTF-16: a lone low surrogate, then a high one without its low half,
     * and an odd byte at the end */
    Buf doc = {0};
    buf_add(&doc, "\xFF\xFE", 2);
    utf8_to_utf16le(&doc, "MessageId=1\nLanguage=English\nx", 30);
    buf_add(&doc, "\x00\xDC", 2);
    buf_add(&doc, "\x00\xD8" "a\0", 4);
    utf8_to_utf16le(&doc, "\n.\n", 3);
    buf_add(&doc, "!", 1);
    same_in_every_chunk(doc.s, doc.len, false, "low surrogate (0xDC00) without its high half");
    buf_free(&doc);
}
END_TEST

/* ---- the rules ---- */

/* A file that must read and check without errors. */
static Manifest *load(const char *doc)
{
    Buf diags = {0};
    diag_reset();
    diag_set_capture(&diags);
    Manifest *m = read_mc_mem("t.mc", doc, strlen(doc), 0, false);
    bool ok = m && check_mc(m, NULL);
    diag_set_capture(NULL);
    ck_assert_msg(ok, "%s", diags.s ? diags.s : "");
    buf_free(&diags);
    return m;
}

/* The message with SymbolicName sym. */
static const McMessage *message(const Manifest *m, const char *sym)
{
    const McFile *f = m->mc;
    for (size_t i = 0; i < f->items.n; i++)
        if (f->items.v[i].msg && f->items.v[i].msg->symbol &&
            strcmp(f->items.v[i].msg->symbol, sym) == 0)
            return f->items.v[i].msg;
    ck_abort_msg("no message %s", sym);
    return NULL;
}

/* "the value is delimited by white space (including line breaks) from the
 * next keyword/value pair" [D]: several pairs on a line (OpenAM's
 * agent_ev.mc [B]), a value on the line after its keyword. */
START_TEST(test_mc_pairs_and_lines)
{
    Manifest *m = load("FacilityNames=(Io=0x4:FACILITY_IO)\n"
                       "MessageId=0x10 Severity=Error Facility=Io SymbolicName=MSG_A\n"
                       "Language=English\nA\n.\n"
                       "MessageId=0x11\nSeverity=\nWarning\nSymbolicName=\nMSG_B\n"
                       "Language=English\nB\n.\n");
    ck_assert_uint_eq(message(m, "MSG_A")->id, 0xC0040010);
    /* Warning is 0x2: bits 30-31 = 10 */
    ck_assert_uint_eq(message(m, "MSG_B")->id, 0x80040011);
    manifest_free(m);
}
END_TEST

/* "If no value is specified, the value used is the previous value for the
 * facility plus one.  If the value is specified as +number then the value
 * used is the previous value for the facility, plus the number" [D]. */
START_TEST(test_mc_ids_per_facility)
{
    Manifest *m = load("FacilityNames=(A=0x1 B=0x2)\n"
                       "MessageId=0x10 Facility=A SymbolicName=A1\nLanguage=English\nx\n.\n"
                       "MessageId=0x50 Facility=B SymbolicName=B1\nLanguage=English\nx\n.\n"
                       "MessageId= Facility=A SymbolicName=A2\nLanguage=English\nx\n.\n"
                       "MessageId=+4 Facility=B SymbolicName=B2\nLanguage=English\nx\n.\n"
                       "MessageId= SymbolicName=B3\nLanguage=English\nx\n.\n");
    ck_assert_uint_eq(message(m, "A1")->id, 0x00010010);
    ck_assert_uint_eq(message(m, "B1")->id, 0x00020050);
    ck_assert_uint_eq(message(m, "A2")->id, 0x00010011);
    ck_assert_uint_eq(message(m, "B2")->id, 0x00020054);
    ck_assert_uint_eq(message(m, "B3")->id, 0x00020055);
    manifest_free(m);
}
END_TEST

/* "Any MessageId value that does not fit in 16 bits is an error" [D]:
 * 0xFFFF then MessageId= is 0x10000. */
START_TEST(test_mc_id_overflows)
{
    static const char doc[] = "MessageId=0xFFFF SymbolicName=LAST\nLanguage=English\nx\n.\n"
                              "MessageId=\nSymbolicName=NEXT\nLanguage=English\ny\n.\n";
    Buf diags = {0};
    diag_reset();
    diag_set_capture(&diags);
    Manifest *m = read_mc_mem("t.mc", doc, strlen(doc), 0, false);
    ck_assert_ptr_nonnull(m);
    ck_assert(!check_mc(m, NULL));
    diag_set_capture(NULL);
    ck_assert_ptr_nonnull(strstr(diags.s, "t.mc:5:1: error: [MCG5102] message number 0x10000 "
                                          "does not fit in the id's 16 bits (0 to 0xFFFF); "
                                          "MessageId= counts on from 0xFFFF, the previous "
                                          "number of facility Application\n"));
    manifest_free(m);
    buf_free(&diags);
    diag_reset();
}
END_TEST

/* "If not specified they default to the value last specified for a
 * message definition.  The initial values prior to processing the first
 * message definition are: Severity=Success Facility=Application" [D];
 * MessageId=0x1 first, with neither, is 0x00000001 [B]. */
START_TEST(test_mc_severity_facility_carried)
{
    Manifest *m = load("FacilityNames=(Io=0x4)\n"
                       "MessageId=0x1 SymbolicName=FIRST\nLanguage=English\nx\n.\n"
                       "MessageId=0x2 Severity=Warning Facility=Io SymbolicName=SET\n"
                       "Language=English\nx\n.\n"
                       "MessageId=0x3 SymbolicName=CARRIED\nLanguage=English\nx\n.\n"
                       "MessageId=0x4 Severity=Informational SymbolicName=HALF\n"
                       "Language=English\nx\n.\n");
    ck_assert_uint_eq(message(m, "FIRST")->id, 0x00000001);
    ck_assert_uint_eq(message(m, "SET")->id, 0x80040002);
    ck_assert_uint_eq(message(m, "CARRIED")->id, 0x80040003);
    ck_assert_uint_eq(message(m, "HALF")->id, 0x40040004);
    manifest_free(m);
}
END_TEST

/* LanguageNames accumulate over several statements (PerlLog.mc declares
 * English, then French in a second one, for mc [S]); each language's
 * table holds its texts under the messages' ids. */
START_TEST(test_mc_language_names_accumulate)
{
    Manifest *m = load("LanguageNames=(French=0x40C:MSG0040C)\n"
                       "LanguageNames=(German=0x407:MSG00407)\n"
                       "MessageId=0x7 SymbolicName=M\n"
                       "Language=English\nhello\n.\n"
                       "Language=French\nbonjour\n.\n"
                       "Language=German\nhallo\n.\n");
    const McFile *f = m->mc;
    ck_assert_uint_eq(f->languages.n, 3);
    static const char *const names[] = {"English", "French", "German"};
    static const char *const files[] = {"MSG00001", "MSG0040C", "MSG00407"};
    static const uint32_t ids[] = {0x409, 0x40C, 0x407};
    static const char *const texts[] = {"hello\r\n", "bonjour\r\n", "hallo\r\n"};
    for (size_t i = 0; i < 3; i++) {
        const McLanguage *l = f->languages.v[i];
        ck_assert_str_eq(l->name, names[i]);
        ck_assert_str_eq(l->file, files[i]);
        ck_assert_uint_eq(l->langid, ids[i]);
        ck_assert(mc_language_used(f, l));
        Buf t = {0}, err = {0};
        msgtable_build_mc(m, l, NULL, NULL, &t);
        MsgTable mt;
        ck_assert(msgtable_read(t.s, t.len, &mt, &err));
        ck_assert_uint_eq(mt.entries.n, 1);
        ck_assert_uint_eq(mt.entries.v[0].id, 7);
        ck_assert_str_eq(mt.entries.v[0].text, texts[i]);
        msgtable_free(&mt);
        buf_free(&t);
        buf_free(&err);
    }
    manifest_free(m);
}
END_TEST

/* msgtable_write_mc hands a large table on in pieces and patches its
 * block table at the end: its bytes are msgtable_build_mc's.  3,000
 * messages in runs of consecutive ids (60 blocks), about 360 KB. */
static void write_english(Out *out, const void *m)
{
    const Manifest *mc = m;
    msgtable_write_mc(mc, mc->mc->languages.v[0], NULL, NULL, out);
}

START_TEST(test_mc_table_written_in_pieces_is_built_table)
{
    Buf doc = {0};
    for (int i = 0; i < 3000; i++)
        buf_printf(&doc, "MessageId=0x%x SymbolicName=M%d\nLanguage=English\n"
                         "message number %d of the table, long enough to fill it\n.\n",
                   (i / 50) * 100 + i % 50 + 1, i, i);
    Manifest *m = load(doc.s);
    const McLanguage *l = m->mc->languages.v[0];
    Buf want = {0};
    msgtable_build_mc(m, l, NULL, NULL, &want);
    ck_assert_uint_gt(want.len, 5 * 64 * 1024);
    unit_write_twice(write_english, m, &want, "msgtable_write_mc");
    buf_free(&want);
    buf_free(&doc);
    manifest_free(m);
}
END_TEST

/* nssm declares English=0x0409:MSG00409 and mc writes MSG00409.bin, not
 * MSG00001.bin [B]: the built-in English is replaced, without a warning
 * (it was never declared twice). */
START_TEST(test_mc_builtin_english_redefined)
{
    Manifest *m = load("LanguageNames=(English=0x0409:MSG00409)\n"
                       "MessageId=1\nLanguage=English\nx\n.\n");
    ck_assert_int_eq(diag_warning_count(), 0);
    const McFile *f = m->mc;
    size_t english = 0;
    for (size_t i = 0; i < f->languages.n; i++)
        if (strcmp(f->languages.v[i]->name, "English") == 0) {
            english++;
            ck_assert_str_eq(f->languages.v[i]->file, "MSG00409");
            ck_assert_uint_eq(f->languages.v[i]->langid, 0x409);
        }
    ck_assert_uint_eq(english, 1);
    manifest_free(m);
}
END_TEST

/* ';' lines are comments, written to the header as they are read, the
 * ';' removed [B]; inside a message's text a ';' line is text (the text
 * is verbatim up to the line holding only '.' [D]).  A comment between a
 * MessageId and its Language= is read before the message is complete, so
 * it comes first. */
START_TEST(test_mc_comment_inside_message)
{
    Manifest *m = load("MessageId=1 SymbolicName=M\n"
                       ";// read while the message is\n"
                       "Language=English\n"
                       ";in the text\n"
                       ".\n");
    const McFile *f = m->mc;
    ck_assert_uint_eq(f->items.n, 2);
    ck_assert_str_eq(f->items.v[0].comment, "// read while the message is");
    ck_assert_ptr_nonnull(f->items.v[1].msg);
    ck_assert_str_eq(f->items.v[1].msg->texts.v[0].text, ";in the text");
    manifest_free(m);
}
END_TEST

/* The header section's comments, even after SeverityNames, come before
 * the banner; a comment after the first message comes after its #define
 * and the empty line that ends it [B: WordPerfectIndexer's LogMessages.h]. */
START_TEST(test_mc_banner_after_header_comments)
{
    Manifest *m = load(";// A\n"
                       "SeverityNames=(Success=0x0:SEV_S)\n"
                       ";// B\n"
                       "MessageId=0x1 SymbolicName=MSG_1\nLanguage=English\none\n.\n"
                       ";// C\n"
                       "MessageId=0x2 SymbolicName=MSG_2\nLanguage=English\ntwo\n.\n");
    ck_assert_uint_eq(m->mc->first_message, 2);
    Options o = {.header_ext = "h"};
    TemplateFinder tf;
    finder_init(&tf, NULL, NULL);
    Buf h = {0};
    ck_assert(mc_header_build(m, &o, &tf, &h));
    buf_addc(&h, '\0');
    /* CRLF or LF: compare without the CRs */
    char *s = h.s, *w = h.s;
    for (; *s; s++)
        if (*s != '\r')
            *w++ = *s;
    *w = '\0';
    ck_assert_msg(strncmp(h.s, "// A\n// B\n//\n//  Values are 32 bit values laid out as follows:\n",
                          63) == 0,
                  "%s", h.s);
    const char *d1 = strstr(h.s, "#define MSG_1 "), *c = strstr(h.s, "// C\n"),
               *d2 = strstr(h.s, "#define MSG_2 ");
    ck_assert(d1 && c && d2 && d1 < c && c < d2);
    ck_assert_ptr_nonnull(strstr(h.s, "#define MSG_1                            0x00000001L\n\n// C\n//\n// MessageId: MSG_2\n"));
    buf_free(&h);
    finder_free(&tf);
    manifest_free(m);
}
END_TEST

Suite *mc_suite(void)
{
    Suite *s = suite_create("mc");
    TCase *tc = tcase_create("chunks");
    tcase_add_test(tc, test_mc_chunks_ansi);
    tcase_add_test(tc, test_mc_chunks_utf8_bom);
    tcase_add_test(tc, test_mc_chunks_utf16);
    tcase_add_test(tc, test_mc_chunks_errors);
    suite_add_tcase(s, tc);
    tc = tcase_create("rules");
    tcase_add_test(tc, test_mc_pairs_and_lines);
    tcase_add_test(tc, test_mc_ids_per_facility);
    tcase_add_test(tc, test_mc_id_overflows);
    tcase_add_test(tc, test_mc_severity_facility_carried);
    tcase_add_test(tc, test_mc_language_names_accumulate);
    tcase_add_test(tc, test_mc_table_written_in_pieces_is_built_table);
    tcase_add_test(tc, test_mc_builtin_english_redefined);
    tcase_add_test(tc, test_mc_comment_inside_message);
    tcase_add_test(tc, test_mc_banner_after_header_comments);
    suite_add_tcase(s, tc);
    return s;
}
