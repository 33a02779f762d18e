/*
 * xml.c - the XML layer: expat with namespace processing, streaming.
 *
 * The caller gets one callback per start tag (with every attribute and its
 * own position) and one per end tag (with the element's character data).
 *
 * expat's callbacks call the caller's handlers at once, on the caller's
 * thread: no copy of the events, no queue.  (A reader thread that
 * recorded expat's events and a consumer that replayed them used to run
 * the two halves in parallel; the records and their copies cost more CPU
 * than the overlap saved: docs/internals.md has the figures.)  The
 * records remain for the documents built into the binary: xml_record
 * writes them when mcgen is built, and xml_parse_recorded replays them
 * with no expat at all.
 *
 * A regular file is mapped into expat's buffer (os_map_file: its pages
 * come from the page cache as expat reads them, with no copy and no page
 * to zero, and are let go behind the parse) and parsed in one final call;
 * where it cannot be mapped, a file up to WHOLE_MAX is read whole into
 * that buffer, and a larger one (or a pipe) fed in 64 KiB chunks.  expat
 * keeps its own line
 * and column only at the end of a call that is not the last (a pass over
 * every byte, a fifth of its time), so while its buffer holds the
 * document from the first byte, start tags are placed by counting line
 * breaks (memchr) and characters from the previous tag; otherwise expat
 * is asked.  expat reports the position of a start tag only, so attribute
 * positions are found in the raw bytes of the tag (which expat still
 * holds): a tag of the usual shape, ASCII with line breaks only between
 * attributes, in any of the encodings, is checked against the names and
 * value lengths expat gives rather than scanned (one on one line of the
 * least length those allow is placed by the lengths alone).  Both counts know the input's code-unit width (UTF-8 or UTF-16)
 * from the byte-order mark, or from an XML declaration's first bytes
 * (UTF-16 without a mark, read with a warning as xmllint and MSXML read
 * it), and the single-byte encodings from the declaration's name; a
 * document in hand whole is searched once for a '\r', and the counts
 * skip that search when it has none.  The counting keeps the next byte
 * above 0x7F too (found once, like the next '\n'): characters before it
 * are bytes, and a tag before it needs no check that it is ASCII.  expat
 * knows UTF-8, UTF-16,
 * ISO-8859-1 and US-ASCII; the single-byte Windows code pages real
 * manifests declare (windows-1252, ...) come from codepages.c through
 * expat's unknown-encoding handler.  Namespace declarations are kept in a
 * stack so that attribute values which are QNames
 * (level="win:Informational") resolve through the declarations in scope,
 * as the schema defines them, not by their prefix text.  Each element
 * files its unqualified attributes in a small table by a hash of the
 * name, so that the readers' lookups (xml_attr, inline in mcgen.h) read a
 * slot, not scan; names are interned through a small cache in front of
 * the map.  Document type declarations are refused outright: a manifest
 * has no use for them
 * and they are the door to entity-expansion attacks.
 */
#include "mcgen.h"
#include "os.h"

#include <errno.h>
#include <expat.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NS_SEP '\x01'
static const XML_Char ns_sep[] = {NS_SEP, '\0'};

/* How the raw bytes of a tag count columns: UTF-8 (continuation bytes take
 * none), another single-byte encoding (ISO-8859-1, windows-1252, ...: every
 * byte is a character), UTF-16. */
typedef enum { ENC_8BIT, ENC_UTF16LE, ENC_UTF16BE, ENC_SINGLE } Encoding;

/* expat allocates through mcgen's choke point (util.h), so the counter
 * that fails the N-th allocation in tests counts expat's too.  A failure
 * returns NULL to expat, which stops with XML_ERROR_NO_MEMORY, diagnosed
 * as "out of memory" like every other allocation failure.  Not always:
 * expat 2.5 loses a failed allocation for an xmlns:p declaration and
 * reports "unbound prefix" at the first use of p.  So a failure is also
 * remembered, per thread (a parser runs on one thread), and a parse that
 * saw one ends as out of memory whatever expat made of it. */
static _Thread_local bool expat_ran_out;

/* expat's blocks of PAGE_BLOCK_MIN bytes and more, its input buffer for
 * a file read whole above all, are pages of their own (os_pages_alloc),
 * so that the file can be mapped into that buffer (read_whole).  The
 * few alive, with their sizes, for expat_free; past PAGE_BLOCKS of them
 * a block comes from malloc. */
enum { PAGE_BLOCK_MIN = 256 * 1024, PAGE_BLOCKS = 4 };
static _Thread_local struct {
    void *p;
    size_t n;
} page_blocks[PAGE_BLOCKS];

static void *expat_malloc(size_t n)
{
    void *p = NULL;
    int slot = -1;
    for (int i = 0; n >= PAGE_BLOCK_MIN && slot < 0 && i < PAGE_BLOCKS; i++)
        if (!page_blocks[i].p)
            slot = i;
    if (slot >= 0) {
        p = util_try_pages(n);
        if (p)
            page_blocks[slot].p = p, page_blocks[slot].n = n;
    } else {
        p = util_try_malloc(n);
    }
    if (!p)
        expat_ran_out = true;
    return p;
}

static int page_block(const void *p)
{
    for (int i = 0; p && i < PAGE_BLOCKS; i++)
        if (page_blocks[i].p == p)
            return i;
    return -1;
}

static void expat_free(void *p)
{
    int i = page_block(p);
    if (i < 0) {
        free(p);
        return;
    }
    os_pages_free(p, page_blocks[i].n);
    page_blocks[i].p = NULL;
}

static void *expat_realloc(void *p, size_t n)
{
    int i = page_block(p);
    if (i >= 0) {
        void *q = expat_malloc(n);
        if (q) {
            memcpy(q, p, n < page_blocks[i].n ? n : page_blocks[i].n);
            expat_free(p);
        }
        return q;
    }
    void *q = util_try_realloc(p, n);
    if (!q)
        expat_ran_out = true;
    return q;
}

static const XML_Memory_Handling_Suite expat_memory = {expat_malloc, expat_realloc, expat_free};

/* A parser with namespace processing and mcgen's allocator; NULL after a
 * diagnostic. */
static XML_Parser parser_new(void)
{
    XML_Parser p = XML_ParserCreate_MM(NULL, &expat_memory, ns_sep);
    if (!p)
        diag_io("out of memory");
    return p;
}

/* ======================================================================
 * Records: the events of a parse as bytes (xml_record), replayed by
 * xml_parse_recorded.  Errors have a record type too: the producer's
 * errors go through the same types whether they are recorded or given at
 * once.
 * ==================================================================== */

typedef enum {
    R_START = 1, /* u32 line, col, nattrs, rawlen; name; (attr name, value)*; raw tag */
    R_END,       /* -- */
    R_TEXT,      /* u32 len; bytes */
    R_NS_START,  /* prefix; uri */
    R_NS_END,    /* prefix */
    R_XML_ERROR, /* u32 line, col, expat error code */
    R_DOCTYPE,   /* u32 line, col: a document type declaration (refused) */
    R_ENTITY,    /* u32 line, col: an entity declaration (refused) */
    R_NO_BOM,    /* UTF-16 without a byte-order mark or XML declaration */
    R_NO_BOM_DECL, /* u32 Encoding: UTF-16 without a byte-order mark, read from its declaration */
    R_BAD_ENCODING, /* u32 line, col; name: an encoding mcgen does not know */
    R_BAD_BYTE,  /* u32 line, col, byte; name: a byte the declared code page leaves undefined */
    R_IO_ERROR,  /* u32 errno */
    R_ENCODING,  /* u32 Encoding, sent once the encoding is known */
} RecType;

/* ======================================================================
 * The producer: expat's callbacks, handing each event to the reader
 * (a parse) or writing it as a record (xml_record).
 * ==================================================================== */

typedef struct Producer {
    XML_Parser p;
    XmlReader *r;   /* a parse: the events go straight to it */
    Buf *rec;       /* xml_record: the events are appended as records */
    const char *file;
    /* input: a file, or bytes fed `chunk` at a time */
    FILE *f;
    const unsigned char *bytes;
    size_t len, chunk;
    Encoding enc;
    bool decided;
    unsigned char head[4];
    size_t nhead;
    bool failed;
    char declared[40];     /* the XML declaration's encoding name, cut short */
    const uint16_t *page;  /* its code page (codepages.c), when it is one */
    /* start tags' positions as counted here (position_at): line and
     * column of byte pos_off */
    size_t pos_off;
    uint32_t pos_line, pos_col;
    bool pos_expat; /* a byte-order mark the declaration contradicts: expat's */
    /* the document is all of expat's buffer, from its first byte, in one
     * final call (read_whole): an offset there is the byte index, not to
     * be asked of expat */
    bool whole;
    /* the first '\n' at or after pos_off, searched for in the buffer's
     * first nl_end bytes (nl_end itself: none there); nl_known: searched */
    size_t next_nl, nl_end;
    bool nl_known;
    /* the same for the first byte above 0x7F at or after pos_off: the
     * bytes before it are ASCII, so no tag there needs its characters
     * counted or checked one by one */
    size_t next_high, high_end;
    bool high_known;
    /* the whole document is known to hold no '\r' (read whole, or from
     * memory): line breaks are then found by one memchr for '\n' */
    bool cr_free;
    /* a file mapped into expat's buffer (read_whole): the buffer, and how
     * much of it, parsed already, has been let go (os_map_release) */
    const char *map;
    size_t released;
} Producer;

/* The reader's side of a parse (the consumer section below). */
static void reader_start(XmlReader *r, uint32_t line, uint32_t col, const char *name,
                         const char **atts, const unsigned char *raw, size_t rawlen,
                         int nl_hint, bool ascii);
static void reader_end(XmlReader *r);
static void reader_text(XmlReader *r, const char *s, size_t len);
static inline bool reader_drops(const XmlReader *r, const char *s, size_t len);
static void reader_ns_start(XmlReader *r, const char *prefix, const char *uri);
static void reader_ns_end(XmlReader *r, const char *prefix);
static void reader_error(XmlReader *r, RecType type, uint32_t line, uint32_t col,
                         uint32_t extra, const char *name);
static void reader_encoding(XmlReader *r, Encoding enc);
static void reader_cr_free(XmlReader *r, bool cr_free);
static bool reader_failed(const XmlReader *r);

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

/* Room for a record of `payload` bytes after its 8-byte header; returns
 * where the payload goes and fills in the header.  The padding is zeroed
 * so that a document records to the same bytes in every build. */
static unsigned char *rec_begin(Producer *pr, RecType type, size_t payload)
{
    size_t size = align8(8 + payload);
    buf_grow(pr->rec, size);
    unsigned char *h = (unsigned char *)pr->rec->s + pr->rec->len;
    memset(h + 8 + payload, 0, size - 8 - payload);
    uint32_t t = (uint32_t)type, sz = (uint32_t)size;
    memcpy(h, &t, 4);
    memcpy(h + 4, &sz, 4);
    pr->rec->len += size;
    pr->rec->s[pr->rec->len] = '\0';
    return h + 8;
}

static unsigned char *put_u32(unsigned char *p, uint32_t v)
{
    memcpy(p, &v, 4);
    return p + 4;
}

static unsigned char *put_str(unsigned char *p, const char *s, size_t n)
{
    memcpy(p, s, n);
    p[n] = '\0';
    return p + n + 1;
}

/* An error the producer finds (or the warning about UTF-16 without a
 * mark), given at once or recorded.  Its position and `extra` are used as
 * its type says (RecType); the errors about an encoding name the XML
 * declaration's. */
static void producer_error(Producer *pr, RecType type, uint32_t line, uint32_t col,
                           uint32_t extra)
{
    bool named = type == R_BAD_ENCODING || type == R_BAD_BYTE;
    if (pr->r) {
        reader_error(pr->r, type, line, col, extra, named ? pr->declared : "");
        return;
    }
    if (type == R_NO_BOM) {
        rec_begin(pr, type, 0);
    } else if (type == R_NO_BOM_DECL || type == R_IO_ERROR) {
        put_u32(rec_begin(pr, type, 4), extra);
    } else {
        size_t n = named ? strlen(pr->declared) : 0;
        unsigned char *p = rec_begin(pr, type, 12 + (named ? n + 1 : 0));
        p = put_u32(p, line);
        p = put_u32(p, col);
        p = put_u32(p, extra);
        if (named)
            put_str(p, pr->declared, n);
    }
}

static void producer_encoding(Producer *pr)
{
    if (pr->r)
        reader_encoding(pr->r, pr->enc);
    else
        put_u32(rec_begin(pr, R_ENCODING, 4), (uint32_t)pr->enc);
}

/* Whether the parse is over: a failed allocation or a handler's stop is
 * made the end of it here (the parser stopped, the first noted). */
static bool stop_now(Producer *pr)
{
    if (expat_ran_out && !pr->failed) {
        /* after a failed allocation expat may report what it did not
         * finish (an xmlns:p declaration as a plain attribute): nothing
         * more is passed on */
        producer_error(pr, R_XML_ERROR, (uint32_t)XML_GetCurrentLineNumber(pr->p),
                       (uint32_t)XML_GetCurrentColumnNumber(pr->p) + 1, XML_ERROR_NO_MEMORY);
        pr->failed = true;
        XML_StopParser(pr->p, XML_FALSE);
        return true;
    }
    if (pr->r && reader_failed(pr->r) && !pr->failed) {
        pr->failed = true;
        XML_StopParser(pr->p, XML_FALSE);
        return true;
    }
    return pr->failed;
}

/* stop_now's answer, its common case (nothing failed) tested inline: it
 * is asked at every callback. */
static inline bool stopped(Producer *pr)
{
    if (!expat_ran_out && !(pr->r && reader_failed(pr->r)))
        return pr->failed;
    return stop_now(pr);
}

/* Whether s[0..len) is all white space.  expat gives the text between
 * child elements as a line break, then a run of spaces: a run of 8 or
 * more is compared 8 at a time, the last 8 overlapping the word before
 * (any other text goes character by character). */
static inline bool all_space(const char *s, size_t len)
{
    const uint64_t spaces = 0x2020202020202020ULL;
    uint64_t w;
    if (len >= 8) {
        size_t i = 0;
        while (i + 8 < len && (memcpy(&w, s + i, 8), w == spaces))
            i += 8;
        if (i + 8 >= len && (memcpy(&w, s + len - 8, 8), w == spaces))
            return true;
    }
    for (size_t i = 0; i < len; i++)
        if (s[i] != ' ' && s[i] != '\n' && s[i] != '\t' && s[i] != '\r')
            return false;
    return true;
}

/* How many of the bytes p[0..n) are UTF-8 continuation bytes (10xxxxxx),
 * 8 bytes at a time. */
static size_t continuation_bytes(const unsigned char *p, size_t n)
{
    const uint64_t highs = 0x8080808080808080ULL;
    size_t count = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        uint64_t m = w & ~(w << 1) & highs; /* bit 7 set, bit 6 clear */
        while (m) {
            count++;
            m &= m - 1;
        }
    }
    for (; i < n; i++)
        count += (p[i] & 0xC0) == 0x80;
    return count;
}

/* The first byte above 0x7F of p[from..end), or end: 64 bytes a step
 * while none is found. */
static size_t next_high(const unsigned char *p, size_t from, size_t end)
{
    const uint64_t highs = 0x8080808080808080ULL;
    size_t i = from;
    for (; i + 64 <= end; i += 64) {
        uint64_t w[8];
        memcpy(w, p + i, sizeof w);
        if ((w[0] | w[1] | w[2] | w[3] | w[4] | w[5] | w[6] | w[7]) & highs)
            break;
    }
    for (; i < end; i++)
        if (p[i] & 0x80)
            return i;
    return end;
}

/* The first '\n' of p[from..end), or end. */
static size_t next_newline(const unsigned char *p, size_t from, size_t end)
{
    const unsigned char *q = from < end ? memchr(p + from, '\n', end - from) : NULL;
    return q ? (size_t)(q - p) : end;
}

/* The line and column of byte `to` of the document, whose bytes from the
 * first are at p (`size` of them in the buffer), counted on from the last
 * position asked for (pos_*): \n, \r\n and a lone \r end a line, and
 * each character takes a column (a UTF-8 continuation byte none), as
 * expat counts them.  The '\n' after `to` is kept (next_nl), so that
 * each is searched for once and the caller knows whether a tag holds
 * one. */
static void position_at(Producer *pr, const unsigned char *p, size_t to, size_t size,
                        uint32_t *line, uint32_t *col)
{
    size_t from = pr->pos_off, bol = from;
    uint32_t breaks = 0;
    size_t nl = pr->next_nl;
    if (!pr->nl_known || (nl == pr->nl_end && size > nl)) /* the buffer grew */
        nl = next_newline(p, pr->nl_known ? nl : from, size);
    while (nl < to) {
        breaks++;
        bol = nl + 1;
        nl = next_newline(p, bol, size);
    }
    pr->next_nl = nl;
    pr->nl_end = size;
    pr->nl_known = true;
    for (const unsigned char *q = p + from;
         !pr->cr_free && (q = memchr(q, '\r', (size_t)(p + to - q))); q++) {
        size_t at = (size_t)(q - p);
        if (at + 1 < to && p[at + 1] == '\n')
            continue; /* the \n counted it */
        breaks++;
        if (at + 1 > bol)
            bol = at + 1;
    }
    /* the first high byte at or after `from`, then after `to` */
    size_t hi = pr->next_high;
    if (!pr->high_known || hi < from || (hi == pr->high_end && size > hi))
        hi = next_high(p, pr->high_known && hi >= from ? hi : from, size);
    size_t chars = to - bol;
    if (pr->enc == ENC_8BIT && hi < to)
        chars -= continuation_bytes(p + bol, to - bol);
    if (hi < to)
        hi = next_high(p, to, size);
    pr->next_high = hi;
    pr->high_end = size;
    pr->high_known = true;
    pr->pos_line += breaks;
    pr->pos_col = (breaks ? 1 : pr->pos_col) + (uint32_t)chars;
    pr->pos_off = to;
    *line = pr->pos_line;
    *col = pr->pos_col;
}

/* The position of the start tag being reported, at byte `off` of expat's
 * buffer `ctx`.  While that buffer holds the document from its first
 * byte (the whole of it was given in one final call, or no chunk has
 * been let go yet), in an 8-bit encoding, it is counted here; otherwise
 * expat's, which costs expat a pass over every byte before the tag.  A
 * UTF-8 byte-order mark takes no column.  True when counted here. */
static bool tag_position(Producer *pr, const char *ctx, int off, int size, uint32_t *line,
                         uint32_t *col)
{
    if (ctx && off >= 0 && (pr->whole || (XML_Index)off == XML_GetCurrentByteIndex(pr->p)) &&
        (size_t)off >= pr->pos_off && (pr->enc == ENC_8BIT || pr->enc == ENC_SINGLE) &&
        !pr->pos_expat) {
        const unsigned char *p = (const unsigned char *)ctx;
        if (pr->pos_line == 0) {
            bool bom = off >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3);
            pr->pos_line = pr->pos_col = 1;
            pr->pos_off = bom ? 3 : 0;
            pr->pos_expat = bom && pr->enc != ENC_8BIT;
        }
        if (!pr->pos_expat) {
            position_at(pr, p, (size_t)off, (size_t)size, line, col);
            return true;
        }
    }
    *line = (uint32_t)XML_GetCurrentLineNumber(pr->p);
    *col = (uint32_t)XML_GetCurrentColumnNumber(pr->p) + 1;
    return false;
}

/* A mapped file's bytes before the tag being reported are parsed for
 * good: expat, in its one final call, does not go back to them, and
 * what does (the line of a late error, which expat counts from the first
 * byte) reads them from the file again.  So its pages are let go every
 * RELEASE_STEP: while the model grows, few of the input's stay resident. */
#define RELEASE_STEP (4u * 1024 * 1024)

static void let_go(Producer *pr, size_t off)
{
    size_t done = off & ~(size_t)(RELEASE_STEP - 1);
    if (done > pr->released) {
        os_map_release((char *)pr->map + pr->released, done - pr->released);
        pr->released = done;
    }
}

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **atts)
{
    Producer *pr = ud;
    if (stopped(pr))
        return;
    int off = 0, size = 0;
    const char *ctx = XML_GetInputContext(pr->p, &off, &size);
    uint32_t line, col;
    bool counted = tag_position(pr, ctx, off, size, &line, &col);
    if (pr->map && ctx == pr->map && off >= 0)
        let_go(pr, (size_t)off);
    if (pr->r) {
        /* the tag's bytes, for the attributes' positions, and whether
         * they hold a '\n' when position_at knows (-1: not known) */
        int count = XML_GetCurrentByteCount(pr->p);
        bool raw = ctx && count > 0 && off >= 0 && off + count <= size;
        int nl = counted && raw ? pr->next_nl < (size_t)off + (size_t)count : -1;
        bool ascii = counted && raw && pr->next_high >= (size_t)off + (size_t)count;
        reader_start(pr->r, line, col, name, atts,
                     raw ? (const unsigned char *)ctx + off : NULL, raw ? (size_t)count : 0, nl,
                     ascii);
        return;
    }
    /* recorded without the tag's bytes: attributes get their element's
     * place.  Lengths of the first attribute names and values, measured
     * once. */
    enum { KNOWN = 64 };
    size_t lens[KNOWN];
    size_t nlen = strlen(name), payload = 16 + nlen + 1, n = 0;
    for (; atts[n]; n++) {
        size_t l = strlen(atts[n]);
        if (n < KNOWN)
            lens[n] = l;
        payload += l + 1;
    }
    unsigned char *p = rec_begin(pr, R_START, payload);
    p = put_u32(p, line);
    p = put_u32(p, col);
    p = put_u32(p, (uint32_t)(n / 2));
    p = put_u32(p, 0);
    p = put_str(p, name, nlen);
    for (size_t i = 0; i < n; i++)
        p = put_str(p, atts[i], i < KNOWN ? lens[i] : strlen(atts[i]));
}

static void XMLCALL on_end(void *ud, const XML_Char *name)
{
    (void)name;
    Producer *pr = ud;
    if (stopped(pr))
        return;
    if (pr->r)
        reader_end(pr->r);
    else
        rec_begin(pr, R_END, 0);
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int len)
{
    Producer *pr = ud;
    /* the indentation between elements, first: dropped, nothing else to
     * ask (after a stop too, it would be dropped) */
    if (pr->r && len > 0 && reader_drops(pr->r, s, (size_t)len))
        return;
    if (stopped(pr) || len <= 0)
        return;
    if (pr->r) {
        reader_text(pr->r, s, (size_t)len);
        return;
    }
    unsigned char *p = rec_begin(pr, R_TEXT, 4 + (size_t)len);
    p = put_u32(p, (uint32_t)len);
    memcpy(p, s, (size_t)len);
}

static void XMLCALL on_ns_start(void *ud, const XML_Char *prefix, const XML_Char *uri)
{
    Producer *pr = ud;
    if (stopped(pr))
        return;
    const char *a = prefix ? prefix : "", *b = uri ? uri : "";
    if (pr->r) {
        reader_ns_start(pr->r, a, b);
        return;
    }
    size_t na = strlen(a), nb = strlen(b);
    unsigned char *p = rec_begin(pr, R_NS_START, na + nb + 2);
    p = put_str(p, a, na);
    put_str(p, b, nb);
}

static void XMLCALL on_ns_end(void *ud, const XML_Char *prefix)
{
    Producer *pr = ud;
    if (stopped(pr))
        return;
    const char *a = prefix ? prefix : "";
    if (pr->r) {
        reader_ns_end(pr->r, a);
        return;
    }
    size_t na = strlen(a);
    put_str(rec_begin(pr, R_NS_END, na + 1), a, na);
}

/* Position of the "<!DOCTYPE" before the current parse position: expat
 * calls the doctype handler after the name and identifiers, so the
 * declaration's start is found by scanning back in the input context. */
static void doctype_pos(Producer *pr, uint32_t *line, uint32_t *col)
{
    *line = (uint32_t)XML_GetCurrentLineNumber(pr->p);
    *col = (uint32_t)XML_GetCurrentColumnNumber(pr->p) + 1;
    int off = 0, size = 0;
    const char *ctx = XML_GetInputContext(pr->p, &off, &size);
    if (!ctx || off < 0 || off > size)
        return;
    size_t w = pr->enc == ENC_8BIT || pr->enc == ENC_SINGLE ? 1 : 2;
    const unsigned char *p = (const unsigned char *)ctx;
    /* the code unit at byte i, as an ASCII character or 0 */
#define UNIT(i) (w == 1 ? p[i] : pr->enc == ENC_UTF16LE ? (p[(i) + 1] ? 0 : p[i]) \
                                                         : (p[i] ? 0 : p[(i) + 1]))
    size_t cur = (size_t)off, start = cur;
    bool found = false;
    while (start >= w) {
        start -= w;
        if (UNIT(start) == '<' && start + 2 * w <= (size_t)size && UNIT(start + w) == '!') {
            found = true;
            break;
        }
    }
    if (!found)
        return;
    uint32_t newlines = 0;
    for (size_t i = start; i < cur; i += w)
        if (UNIT(i) == '\n')
            newlines++;
    if (newlines == 0) {
        uint32_t chars = 0;
        for (size_t i = start; i < cur; i += w)
            if (!(pr->enc == ENC_8BIT && (p[i] & 0xC0) == 0x80))
                chars++;
        *col = *col > chars ? *col - chars : 1;
        return;
    }
    *line -= newlines;
    size_t bol = start;
    while (bol >= w && UNIT(bol - w) != '\n')
        bol -= w;
    *col = 1;
    for (size_t i = bol; i < start; i += w)
        if (!(pr->enc == ENC_8BIT && (p[i] & 0xC0) == 0x80))
            (*col)++;
#undef UNIT
}

static void XMLCALL on_doctype(void *ud, const XML_Char *name, const XML_Char *sysid,
                               const XML_Char *pubid, int has_internal_subset)
{
    (void)name, (void)sysid, (void)pubid, (void)has_internal_subset;
    Producer *pr = ud;
    if (stopped(pr))
        return;
    uint32_t line, col;
    doctype_pos(pr, &line, &col);
    producer_error(pr, R_DOCTYPE, line, col, 0);
    pr->failed = true;
    XML_StopParser(pr->p, XML_FALSE);
}

static void XMLCALL on_entity(void *ud, const XML_Char *name, int is_param, const XML_Char *value,
                              int value_len, const XML_Char *base, const XML_Char *sysid,
                              const XML_Char *pubid, const XML_Char *notation)
{
    (void)name, (void)is_param, (void)value, (void)value_len, (void)base, (void)sysid,
        (void)pubid, (void)notation;
    Producer *pr = ud;
    if (stopped(pr))
        return;
    producer_error(pr, R_ENTITY, (uint32_t)XML_GetCurrentLineNumber(pr->p),
                   (uint32_t)XML_GetCurrentColumnNumber(pr->p) + 1, 0);
    pr->failed = true;
    XML_StopParser(pr->p, XML_FALSE);
}

/* Decides the code-unit width from the first bytes.  UTF-16 must carry a
 * byte-order mark (XML 1.0 section 4.3.3).  Without one, an XML
 * declaration's "<?" (3C 00 3F 00 or 00 3C 00 3F, XML 1.0 appendix F)
 * still says which UTF-16 it is: xmllint and MSXML (so mc) read such a
 * file, and so does mcgen, with a warning.  A document that starts with
 * "<\0" or "\0<" and no declaration is refused with a clear message, as
 * xmllint refuses it (expat alone would guess). */
static bool sniff(Producer *pr)
{
    const unsigned char *h = pr->head;
    size_t n = pr->nhead;
    pr->decided = true;
    if (n >= 2 && h[0] == 0xFF && h[1] == 0xFE) {
        pr->enc = ENC_UTF16LE;
    } else if (n >= 2 && h[0] == 0xFE && h[1] == 0xFF) {
        pr->enc = ENC_UTF16BE;
    } else if (n >= 4 && !memcmp(h, "<\0?\0", 4)) {
        pr->enc = ENC_UTF16LE;
        producer_error(pr, R_NO_BOM_DECL, 1, 1, (uint32_t)pr->enc);
    } else if (n >= 4 && !memcmp(h, "\0<\0?", 4)) {
        pr->enc = ENC_UTF16BE;
        producer_error(pr, R_NO_BOM_DECL, 1, 1, (uint32_t)pr->enc);
    } else if (n >= 2 && ((h[0] == '<' && h[1] == 0) || (h[0] == 0 && h[1] == '<'))) {
        producer_error(pr, R_NO_BOM, 1, 1, 0);
        pr->failed = true;
        return false;
    } else {
        pr->enc = ENC_8BIT;
    }
    producer_encoding(pr);
    return true;
}

/* The XML declaration: an encoding other than UTF-8 and UTF-16 in a file
 * without UTF-16's bytes is a single-byte one, which changes how columns
 * are counted in a tag's raw bytes. */
static void XMLCALL on_xml_decl(void *ud, const XML_Char *version, const XML_Char *encoding,
                                int standalone)
{
    (void)version, (void)standalone;
    Producer *pr = ud;
    if (!encoding || stopped(pr))
        return;
    snprintf(pr->declared, sizeof pr->declared, "%s", encoding);
    if (pr->enc == ENC_8BIT && strcasecmp(encoding, "utf-8") != 0 &&
        strcasecmp(encoding, "utf-16") != 0) {
        pr->enc = ENC_SINGLE;
        producer_encoding(pr);
    }
}

/* expat's handler for an encoding it does not know: the single-byte
 * Windows code pages of codepages.c; a byte a page leaves undefined maps
 * to -1, which expat reports as an invalid token where the byte stands. */
static int XMLCALL on_unknown_encoding(void *ud, const XML_Char *name, XML_Encoding *info)
{
    Producer *pr = ud;
    const uint16_t *high = codepage_high(name);
    if (!high)
        return XML_STATUS_ERROR;
    pr->page = high;
    for (int b = 0; b < 0x80; b++)
        info->map[b] = b;
    for (int b = 0x80; b < 0x100; b++)
        info->map[b] = high[b - 0x80] ? high[b - 0x80] : -1;
    info->data = NULL;
    info->convert = NULL;
    info->release = NULL;
    return XML_STATUS_OK;
}

static bool parse_error(Producer *pr)
{
    if (!pr->failed) {
        enum XML_Error e = expat_ran_out ? XML_ERROR_NO_MEMORY : XML_GetErrorCode(pr->p);
        uint32_t line = (uint32_t)XML_GetErrorLineNumber(pr->p);
        uint32_t col = (uint32_t)XML_GetErrorColumnNumber(pr->p) + 1;
        int off = 0, size = 0;
        const char *ctx = XML_GetInputContext(pr->p, &off, &size);
        unsigned char at = ctx && off >= 0 && off < size ? (unsigned char)ctx[off] : 0;
        if (e == XML_ERROR_UNKNOWN_ENCODING)
            producer_error(pr, R_BAD_ENCODING, line, col, 0);
        else if (e == XML_ERROR_INVALID_TOKEN && pr->page && at >= 0x80 && !pr->page[at - 0x80])
            producer_error(pr, R_BAD_BYTE, line, col, at);
        else if (e != XML_ERROR_ABORTED)
            producer_error(pr, R_XML_ERROR, line, col, (uint32_t)e);
    }
    pr->failed = true;
    return false;
}

static bool feed(Producer *pr, const void *data, size_t len, bool final)
{
    if (pr->failed)
        return false;
    if (!pr->decided) {
        /* Hold back up to 4 bytes until the encoding can be decided. */
        const unsigned char *d = data;
        while (pr->nhead < sizeof pr->head && len > 0) {
            pr->head[pr->nhead++] = *d++;
            len--;
        }
        if (pr->nhead < sizeof pr->head && !final)
            return true;
        if (!sniff(pr))
            return false;
        if (XML_Parse(pr->p, (const char *)pr->head, (int)pr->nhead, final && len == 0) ==
            XML_STATUS_ERROR)
            return parse_error(pr);
        data = d;
        if (len == 0)
            return !pr->failed;
    }
    while (len > 0 || final) {
        int n = len > (1 << 30) ? (1 << 30) : (int)len;
        bool last = final && (size_t)n == len;
        if (XML_Parse(pr->p, data, n, last) == XML_STATUS_ERROR)
            return parse_error(pr);
        data = (const char *)data + n;
        len -= (size_t)n;
        if (last)
            break;
    }
    return !pr->failed;
}

/* Notes whether the whole document is free of '\r', for the position
 * counts here and in the reader. */
static void producer_cr_free(Producer *pr, bool cr_free)
{
    pr->cr_free = cr_free;
    if (pr->r)
        reader_cr_free(pr->r, cr_free);
}

/* Files up to WHOLE_MAX that cannot be mapped are read whole into
 * expat's buffer; larger ones in chunks, so that a large input is not
 * held in memory twice over (its bytes and the model made of them).  A
 * mapped file is whole up to MAP_MAX (expat counts its buffer in an int,
 * and rounds it up to a power of two): its pages are let go behind the
 * parse. */
#define WHOLE_MAX (16 * 1024 * 1024)
#define MAP_MAX (1024 * 1024 * 1024 - 64 * 1024)

/* Puts a file of `size` bytes whole into expat's buffer, mapped there
 * (os_map_file: no copy, and no page to zero) or read, and parses it in
 * one final call, so that expat keeps no line and column of its own
 * (after a call that is not the last it passes over every byte it was
 * given to update them, a fifth of its time) and start tags are placed
 * by tag_position's count (a file larger than WHOLE_MAX that could be
 * mapped only in principle, the mapping failing, is read all the same:
 * expat has its buffer).  Returns true when the file grew: the rest is
 * read in chunks. */
static bool read_whole(Producer *pr, size_t size)
{
    char *buf = XML_GetBuffer(pr->p, (int)size);
    if (!buf) {
        parse_error(pr);
        return false;
    }
    size_t n = size;
    if (os_map_file(buf, pr->f, size, pr->file) &&
        os_seek(pr->f, (int64_t)size, SEEK_SET)) {
        pr->map = buf;
    } else {
        /* the bytes read fill it: huge pages where they cover whole ones */
        os_advise_large(buf, size);
        n = fread(buf, 1, size, pr->f);
    }
    int c = n == size && !ferror(pr->f) ? getc(pr->f) : EOF;
    if (ferror(pr->f)) {
        producer_error(pr, R_IO_ERROR, 1, 1, (uint32_t)errno);
        pr->failed = true;
        return false;
    }
    bool final = c == EOF;
    if (!final)
        ungetc(c, pr->f);
    producer_cr_free(pr, final && !memchr(buf, '\r', n));
    pr->nhead = n < sizeof pr->head ? n : sizeof pr->head;
    memcpy(pr->head, buf, pr->nhead);
    if (!sniff(pr))
        return false;
    pr->whole = final;
    if (XML_ParseBuffer(pr->p, (int)n, final) == XML_STATUS_ERROR) {
        parse_error(pr);
        return false;
    }
    return !final && !pr->failed;
}

static void producer_main(Producer *pr)
{
    expat_ran_out = false;
    int64_t size = pr->f ? os_file_size(pr->f) : -1;
    bool more = pr->f != NULL;
    if (size >= (int64_t)sizeof pr->head &&
        (size <= WHOLE_MAX || (size <= MAP_MAX && os_map_possible(pr->f))))
        more = read_whole(pr, (size_t)size);
    if (more) {
        enum { CHUNK = 64 * 1024 };
        char *chunk = xmalloc(CHUNK);
        for (;;) {
            size_t n = fread(chunk, 1, CHUNK, pr->f);
            if (ferror(pr->f)) {
                producer_error(pr, R_IO_ERROR, 1, 1, (uint32_t)errno);
                pr->failed = true;
                break;
            }
            bool eof = n < CHUNK && feof(pr->f);
            if (!feed(pr, chunk, n, eof) || eof)
                break;
        }
        free(chunk);
    } else if (!pr->f) {
        producer_cr_free(pr, !pr->len || !memchr(pr->bytes, '\r', pr->len));
        size_t chunk = pr->chunk ? pr->chunk : (pr->len ? pr->len : 1), i = 0;
        do {
            size_t n = pr->len - i < chunk ? pr->len - i : chunk;
            if (!feed(pr, pr->bytes + i, n, i + n == pr->len))
                break;
            i += n;
        } while (i < pr->len); /* an empty input is fed once, as final */
    }
    if (expat_ran_out && !pr->failed) {
        producer_error(pr, R_XML_ERROR, 1, 1, XML_ERROR_NO_MEMORY);
        pr->failed = true;
    }
}

/* ======================================================================
 * The reader: turns the events into XmlElems and calls the handlers.
 * ==================================================================== */

typedef struct NsDecl {
    const char *prefix; /* "" for the default namespace */
    const char *uri;    /* "" to undeclare the default */
    size_t prefix_len;
} NsDecl;

/* A cache in front of the interned strings, by a cheap hash of the
 * bytes: element names and QName values repeat (<data>,
 * inType="win:UInt32"), and a hit costs a compare of a dozen bytes, not
 * a copy, a full hash and a map lookup.  A miss only costs the lookup. */
enum { ICACHE = 512 };
typedef struct ICacheEntry {
    const char *s; /* interned; NULL: empty */
    size_t len;
} ICacheEntry;

/* An element's name as expat gives it ("uri\x01local") and its split,
 * by a cheap hash of the whole name: element names repeat (<event>,
 * <data>), and a hit is one compare, not a search for the separator and
 * an intern of the local part. */
enum { ECACHE = 64 };
typedef struct ECacheEntry {
    const char *name; /* interned; NULL: empty */
    size_t len;
    const char *ns, *local;
    size_t local_len;
} ECacheEntry;

/* The last resolution of a QName value, by a cheap hash of its text:
 * such values repeat (inType="win:UInt32", level="win:Informational"),
 * and a resolution holds until a namespace declaration comes or goes
 * (XmlReader.ns_gen; 0: an empty entry). */
enum { QCACHE = 256, QCACHE_TEXT = 40 };
typedef struct QCacheEntry {
    uint32_t gen;
    uint32_t len;
    char text[QCACHE_TEXT];
    QName q;
} QCacheEntry;

typedef struct Frame {
    XmlElem elem;
    size_t local_len;  /* strlen(elem.local) */
    size_t text_start; /* where this element's text starts in r->text */
    size_t attr_start; /* where its attributes start in r->attrs */
    bool drop_blank;   /* xml_drop_blank_text: its white-space pieces are not kept */
} Frame;

struct XmlReader {
    XML_Parser p; /* NULL while replaying records */
    const char *file;
    uint32_t file_id; /* diag_file(file), for the positions */
    Arena *arena;
    const XmlHandler *h;
    Map interned;
    VEC(NsDecl) ns;
    VEC(Frame) stack;
    VEC(XmlAttr) attrs;
    VEC(const char *) argv; /* a replayed start tag's names and values */
    Buf text;
    Encoding enc;
    bool drop_blank; /* the innermost open element's Frame.drop_blank */
    bool failed; /* a diagnostic was given or a handler stopped the parse */
    bool cr_free; /* the document holds no '\r' (Producer.cr_free) */
    const char *last_ns; /* intern_ns cache */
    size_t last_ns_len;
    ICacheEntry icache[ICACHE];
    ECacheEntry ecache[ECACHE];
    uint32_t ns_gen; /* bumped by every declaration's start and end */
    uint64_t ns_changes; /* the same count, never wrapping (xml_ns_epoch) */
    QCacheEntry qcache[QCACHE];
};

/* A hash of s[0..n) from its length and four of its bytes, for the
 * caches in front of the interned strings and the QName resolutions. */
static inline size_t cheap_hash(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t h = n * 7;
    if (n)
        h += u[0] + u[n / 2] * 3 + u[n - 1] * 5 + u[n >= 2 ? n - 2 : 0] * 11;
    return h;
}

/* Interns the `n` bytes at s, which s[n] may not end: through the cache,
 * then one probe of the map, which adds a copy when the text is new. */
static const char *intern_n(XmlReader *r, const char *s, size_t n)
{
    ICacheEntry *c = &r->icache[cheap_hash(s, n) % ICACHE];
    if (c->s && c->len == n && memcmp(c->s, s, n) == 0)
        return c->s;
    bool added;
    MapEntry *e = map_ref_n(&r->interned, s, n, &added);
    if (added)
        e->key = e->val = arena_strndup(r->arena, s, n);
    const char *v = e->val;
    c->s = v;
    c->len = n;
    return v;
}

const char *xml_intern(XmlReader *r, const char *s) { return intern_n(r, s, strlen(s)); }

void xml_stop(XmlReader *r)
{
    r->failed = true;
    if (r->p) /* called from a handler, so from inside expat */
        XML_StopParser(r->p, XML_FALSE);
}

static bool reader_failed(const XmlReader *r) { return r->failed; }

static void reader_encoding(XmlReader *r, Encoding enc) { r->enc = enc; }

static void reader_cr_free(XmlReader *r, bool cr_free) { r->cr_free = cr_free; }

/* Interns a namespace URI of `n` bytes.  Documents use a handful of
 * namespaces, so the last one is remembered and compared first. */
static const char *intern_ns(XmlReader *r, const char *s, size_t n)
{
    if (r->last_ns && r->last_ns_len == n && memcmp(r->last_ns, s, n) == 0)
        return r->last_ns;
    r->last_ns = intern_n(r, s, n);
    r->last_ns_len = n;
    return r->last_ns;
}

/* Splits expat's "uri\x01local" element name into its parts, both
 * interned (an element's names live as long as the element), through
 * r->ecache; returns the local part's length. */
static size_t split_name(XmlReader *r, const char *name, const char **ns, const char **local)
{
    size_t len = strlen(name);
    ECacheEntry *c = &r->ecache[cheap_hash(name, len) % ECACHE];
    if (!c->name || c->len != len || memcmp(c->name, name, len) != 0) {
        const char *sep = memchr(name, NS_SEP, len);
        const char *lp = sep ? sep + 1 : name;
        c->ns = sep ? intern_ns(r, name, (size_t)(sep - name)) : "";
        c->local_len = len - (size_t)(lp - name);
        c->local = intern_n(r, lp, c->local_len);
        c->name = intern_n(r, name, len);
        c->len = len;
    }
    *ns = c->ns;
    *local = c->local;
    return c->local_len;
}

/* An attribute's name, split as split_name does (the local part not
 * interned: it lives during the callback only), and its length measured
 * on the way: names are short and mostly unqualified, so one pass over
 * the bytes finds both the separator and the end. */
static void split_attr(XmlReader *r, const char *name, XmlAttr *a)
{
    const char *s = name;
    while (*s && *s != NS_SEP)
        s++;
    if (!*s) {
        a->ns = "";
        a->local = name;
        a->local_len = (uint32_t)(s - name);
        return;
    }
    a->ns = intern_ns(r, name, (size_t)(s - name));
    a->local = s + 1;
    a->local_len = (uint32_t)strlen(s + 1);
}

/* ---- attribute positions ---- */

typedef struct Scan {
    const unsigned char *p;
    size_t len, i;
    Encoding enc;
    uint32_t line, col;
} Scan;

static int scan_peek(const Scan *s, size_t ahead)
{
    size_t w = s->enc == ENC_8BIT ? 1 : 2;
    size_t at = s->i + ahead * w;
    if (at + w > s->len)
        return -1;
    if (s->enc == ENC_8BIT)
        return s->p[at];
    if (s->enc == ENC_UTF16LE)
        return s->p[at] | s->p[at + 1] << 8;
    return s->p[at] << 8 | s->p[at + 1];
}

/* Advances one code unit, keeping line and column as expat counts them:
 * \n, \r\n and \r end a line; UTF-8 continuation bytes and UTF-16 low
 * surrogates do not start a new column. */
static void scan_next(Scan *s)
{
    int c = scan_peek(s, 0);
    size_t w = s->enc == ENC_8BIT ? 1 : 2;
    if (c < 0)
        return;
    s->i += w;
    if (c == '\n') {
        s->line++, s->col = 1;
    } else if (c == '\r') {
        if (scan_peek(s, 0) == '\n')
            s->i += w;
        s->line++, s->col = 1;
    } else if (!(s->enc == ENC_8BIT && (c & 0xC0) == 0x80) &&
               !(s->enc != ENC_8BIT && c >= 0xDC00 && c <= 0xDFFF)) {
        s->col++;
    }
}

static bool scan_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static bool is_xmlns(const char *name, size_t nl)
{
    return (nl == 5 && memcmp(name, "xmlns", 5) == 0) || (nl >= 6 && memcmp(name, "xmlns:", 6) == 0);
}

/* true when none of the 8 bytes in w is a line break or a non-ASCII byte
 * (the classic "has zero byte" test, applied to w ^ '\n' and w ^ '\r') */
static bool word_plain(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    uint64_t x = w ^ (ones * '\n'), y = w ^ (ones * '\r');
    return !((w & highs) | ((x - ones) & ~x & highs) | ((y - ones) & ~y & highs));
}

/* Advances over p[i..end) updating line and column as expat counts them:
 * \n, \r\n and a lone \r end a line; UTF-8 continuation bytes take no
 * column (in a single-byte encoding, `!utf8`, every byte takes one).
 * Plain ASCII is skipped 8 bytes at a time. */
static void advance_8bit(const unsigned char *p, size_t i, size_t end, size_t len, bool utf8,
                         uint32_t *line, uint32_t *col)
{
    while (i < end) {
        if (i + 8 <= len) {
            /* a whole word, or the last bytes of the run padded with
             * spaces in place of the bytes past `end` */
            uint64_t w;
            memcpy(&w, p + i, 8);
            size_t n = end - i < 8 ? end - i : 8;
            if (n < 8) {
                uint64_t keep = (UINT64_C(1) << (8 * n)) - 1;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
                keep = ~(~UINT64_C(0) >> (8 * n));
#endif
                w = (w & keep) | (UINT64_C(0x2020202020202020) & ~keep);
            }
            if (word_plain(w)) {
                *col += (uint32_t)n;
                i += n;
                continue;
            }
        }
        unsigned char c = p[i++];
        if (c == '\n' || (c == '\r' && !(i < len && p[i] == '\n')))
            (*line)++, *col = 1;
        else if (c != '\r' && (!utf8 || (c & 0xC0) != 0x80))
            (*col)++;
    }
}

/* Whether the tag's n bytes are all ASCII characters in its encoding
 * (UTF-16: each unit below 0x80), by the bytes OR-ed 8 at a time, each
 * byte of the word keeping its place in a code unit. */
static bool tag_ascii(const unsigned char *p, size_t n, Encoding enc)
{
    uint64_t acc = 0, w;
    unsigned char b[8] = {0};
    if (n < 8) {
        memcpy(b, p, n);
        memcpy(&acc, b, 8);
    } else {
        for (size_t i = 0; i + 8 <= n; i += 8) {
            memcpy(&w, p + i, 8);
            acc |= w;
        }
        /* the last 8 bytes again, from an even offset (a code unit's
         * first byte) */
        memcpy(&w, p + ((n - 8) & ~(size_t)1), 8);
        acc |= w;
    }
    memcpy(b, &acc, 8);
    unsigned even = b[0] | b[2] | b[4] | b[6], odd = b[1] | b[3] | b[5] | b[7];
    if (enc == ENC_UTF16LE)
        return even < 0x80 && odd == 0;
    if (enc == ENC_UTF16BE)
        return even == 0 && odd < 0x80;
    return (even | odd) < 0x80;
}

/* How many bytes of p[0..n) are c. */
static size_t count_byte(const unsigned char *p, size_t n, int c)
{
    size_t count = 0;
    for (const unsigned char *q = p, *end = p + n; (q = memchr(q, c, (size_t)(end - q))); q++)
        count++;
    return count;
}

/* Code unit i of a tag. */
static inline unsigned tag_unit(const unsigned char *p, size_t i, Encoding enc)
{
    if (enc == ENC_UTF16LE)
        return p[2 * i] | (unsigned)p[2 * i + 1] << 8;
    if (enc == ENC_UTF16BE)
        return (unsigned)p[2 * i] << 8 | p[2 * i + 1];
    return p[i];
}

/* An ASCII tag of the usual shape, checked rather than scanned: each
 * attribute is the name expat gave, '=', a quote, then as many units as
 * expat's value before the closing quote.  In an ASCII tag no unit
 * becomes more than one byte of expat's value, and only references
 * (&amp;, &#233;) and a \r\n become fewer, so a closing quote exactly
 * there proves the raw value is expat's value unit for byte (the raw one
 * cannot hold its own quote), except that a line break in it is a space
 * in expat's: so the tag's line breaks (`breaks`, units '\n' and '\r')
 * must all be in the gaps between the attributes, where they are
 * counted as expat counts lines.  The raw attribute at each step is the
 * one after the last found, so it is expat's next unless it is an xmlns
 * declaration (which expat does not report): a name starting with 'x' is
 * compared whole, to keep a declaration from being taken for the
 * attribute after it.  Sets the attributes' positions and returns true
 * when every attribute was found so; false (positions not all set) for
 * any other shape: a prefixed name, spaces around '=', references,
 * declarations among the attributes.  len is in units; enc is a
 * constant at each call, and the walk inlined there, so that the unit
 * reads are plain loads. */
#if defined(__GNUC__)
#define WALK_INLINE inline __attribute__((always_inline))
#else
#define WALK_INLINE inline
#endif
static WALK_INLINE bool shaped_walk(XmlReader *r, const unsigned char *p, size_t len, Encoding enc,
                                    size_t local_len, XmlAttr *attrs, size_t nattrs, Loc start,
                                    size_t breaks)
{
    size_t i = 1 + local_len, bol = 0, seen = 0; /* bol: where the line of unit i starts */
    uint32_t line = start.line, base = start.col; /* the column of unit bol */
    unsigned c;
    /* the raw name ends with the local name, so where that would end it
     * ends unless it has a prefix */
    if (i >= len || (!scan_space(c = tag_unit(p, i, enc)) && c != '/' && c != '>'))
        for (i = 1; i < len && !scan_space(c = tag_unit(p, i, enc)) && c != '/' && c != '>';)
            i++;
    for (size_t k = 0; k < nattrs; k++) {
        const XmlAttr *a = &attrs[k];
        if (i >= len || !scan_space(tag_unit(p, i, enc)) || a->ns[0])
            return false;
        do {
            c = tag_unit(p, i++, enc);
            if (c == '\n' || c == '\r') {
                seen++;
                if (c == '\n' || i >= len || tag_unit(p, i, enc) != '\n')
                    line++, bol = i, base = 1;
            }
        } while (i < len && scan_space(tag_unit(p, i, enc)));
        size_t nl = a->local_len, close = i + nl + 2 + a->value_len;
        if (close >= len || tag_unit(p, i + nl, enc) != '=')
            return false;
        unsigned q = tag_unit(p, i + nl + 1, enc);
        if ((q != '"' && q != '\'') || tag_unit(p, close, enc) != q)
            return false;
        if (tag_unit(p, i, enc) == 'x')
            for (size_t j = 0; j < nl; j++)
                if (tag_unit(p, i + j, enc) != (unsigned char)a->local[j])
                    return false;
        attrs[k].loc = (Loc){r->file_id, line, base + (uint32_t)(i - bol)};
        i = close + 1;
    }
    while (i < len && scan_space(c = tag_unit(p, i, enc))) {
        seen += c == '\n' || c == '\r';
        i++;
    }
    return seen == breaks;
}

/* A tight tag: one placed by its length alone.  Every part of a start
 * tag, '<' Name (S Name Eq AttValue)* S? ('>' | '/>'), has a least
 * length, met only by the shape '<' local (' ' name '=' quote value
 * quote)* ('>' | '/>') with the names and values expat gives; anything
 * else makes an ASCII tag longer (a prefix, a wider gap, spaces around
 * '=', an xmlns declaration expat does not report, a reference or "\r\n"
 * in a value, which expat shortens; every other ASCII unit is one byte of
 * expat's value).  So a tag on one line of exactly that least length has
 * that shape, and each name's column is the tag's plus its offset:
 * reader_start sets the attributes' positions so as it sums the length
 * (`tight`, without the tag's end; 0: a prefixed name, not tight), and
 * they stand when the tag is that long, with no unit of it read. */
static bool tight_tag(const unsigned char *raw, size_t units, Encoding enc, size_t tight)
{
    return tight && units >= 2 &&
           tight + (tag_unit(raw, units - 2, enc) == '/' ? 2 : 1) == units;
}

/* A tight tag, or shaped_walk for the tag's encoding: true when the
 * attributes are placed.  *plain: the tag is ASCII without a line break.
 * nl_hint 0: the producer knows the tag holds no '\n'; ascii: it knows
 * the tag is ASCII bytes (in an 8-bit encoding). */
static bool locate_attrs_shaped(XmlReader *r, const unsigned char *raw, size_t rawlen,
                                int nl_hint, bool ascii, size_t local_len, XmlAttr *attrs,
                                size_t nattrs, Loc start, size_t tight, bool *plain)
{
    *plain = false;
    if (!ascii && !tag_ascii(raw, rawlen, r->enc))
        return false;
    /* in an ASCII tag a byte 0x0A or 0x0D is a line break's unit */
    size_t breaks = (nl_hint == 0 ? 0 : count_byte(raw, rawlen, '\n')) +
                    (r->cr_free ? 0 : count_byte(raw, rawlen, '\r'));
    *plain = breaks == 0;
    size_t units = r->enc == ENC_UTF16LE || r->enc == ENC_UTF16BE ? rawlen / 2 : rawlen;
    if (*plain && tight_tag(raw, units, r->enc, tight))
        return true;
    bool done;
    switch (r->enc) {
    case ENC_UTF16LE:
        done = shaped_walk(r, raw, rawlen / 2, ENC_UTF16LE, local_len, attrs, nattrs, start,
                           breaks);
        break;
    case ENC_UTF16BE:
        done = shaped_walk(r, raw, rawlen / 2, ENC_UTF16BE, local_len, attrs, nattrs, start,
                           breaks);
        break;
    default:
        done = shaped_walk(r, raw, rawlen, ENC_8BIT, local_len, attrs, nattrs, start,
                           breaks);
        break;
    }
    return done;
}

/* The 8-bit case (UTF-8 and the single-byte encodings) of the scan that
 * places the attributes of a tag of any other shape; UTF-16 goes through
 * scan_peek/next.  In a tag that is ASCII on one line (`plain`) a name's
 * column is the tag's plus its byte offset; in the others line and
 * column are counted from one name to the next.  expat has accepted the
 * tag, so each attribute is `name S? = S? quoted-value`. */
static void locate_attrs_8bit(XmlReader *r, const unsigned char *p, size_t len, XmlAttr *attrs,
                              size_t nattrs, Loc start, bool plain)
{
    uint32_t line = start.line, col = start.col;
    bool utf8 = r->enc == ENC_8BIT;
    size_t i = 1, k = 0, counted = 0; /* line and col are those of p[counted] */
    while (i < len && !scan_space(p[i]) && p[i] != '/' && p[i] != '>')
        i++;
    while (k < nattrs && i < len) {
        while (i < len && scan_space(p[i]))
            i++;
        if (i >= len || p[i] == '/' || p[i] == '>')
            break;
        size_t name = i;
        const unsigned char *eq = memchr(p + i, '=', len - i);
        if (!eq)
            break;
        size_t nl = (size_t)(eq - p) - name;
        while (nl > 0 && scan_space(p[name + nl - 1]))
            nl--;
        i = (size_t)(eq - p) + 1;
        while (i < len && p[i] != '\'' && p[i] != '"')
            i++;
        if (i >= len)
            break;
        const unsigned char *close = memchr(p + i + 1, p[i], len - i - 1);
        i = close ? (size_t)(close - p) + 1 : len;
        if (is_xmlns((const char *)p + name, nl))
            continue;
        if (plain) {
            col = start.col + (uint32_t)name;
        } else {
            advance_8bit(p, counted, name, len, utf8, &line, &col);
            counted = name;
        }
        Loc at = {r->file_id, line, col};
        attrs[k++].loc = at;
    }
}

/* The attributes from index `start` on: NULL while the vector has none
 * (adding even 0 to a null pointer is undefined behaviour). */
static XmlAttr *attrs_from(XmlReader *r, size_t start)
{
    return r->attrs.v ? r->attrs.v + start : NULL;
}

/* The attributes of a tag of another shape than shaped_walk's, placed by
 * a scan of its units. */
static void locate_attrs_scan(XmlReader *r, const Frame *f, XmlAttr *attrs, size_t nattrs,
                              const unsigned char *raw, size_t rawlen, bool plain)
{
    if (r->enc == ENC_8BIT || r->enc == ENC_SINGLE) {
        locate_attrs_8bit(r, raw, rawlen, attrs, nattrs, f->elem.loc, plain);
        return;
    }
    Scan s = {raw, rawlen, 0, r->enc, f->elem.loc.line, f->elem.loc.col};
    scan_next(&s); /* '<' */
    int c;
    while ((c = scan_peek(&s, 0)) >= 0 && !scan_space(c) && c != '/' && c != '>')
        scan_next(&s);
    size_t k = 0;
    while (k < nattrs) {
        while ((c = scan_peek(&s, 0)) >= 0 && scan_space(c))
            scan_next(&s);
        if (c < 0 || c == '/' || c == '>')
            break;
        Loc at = {r->file_id, s.line, s.col};
        char name[8];
        size_t nl = 0;
        while ((c = scan_peek(&s, 0)) >= 0 && c != '=' && !scan_space(c)) {
            if (nl < sizeof name)
                name[nl++] = (char)c;
            scan_next(&s);
        }
        while ((c = scan_peek(&s, 0)) >= 0 && c != '\'' && c != '"')
            scan_next(&s);
        if (c < 0)
            break;
        int q = c;
        scan_next(&s);
        while ((c = scan_peek(&s, 0)) >= 0 && c != q)
            scan_next(&s);
        scan_next(&s);
        if (!is_xmlns(name, nl))
            attrs[k++].loc = at;
    }
}

/* Gives every attribute of the element the position of its name, from the
 * raw bytes of the start tag (without them, the element's; a tag the walk
 * does not place is scanned from that start).  tight: tight_tag's. */
static void locate_attrs(XmlReader *r, Frame *f, XmlAttr *attrs, size_t nattrs,
                         const unsigned char *raw, size_t rawlen, int nl_hint, bool ascii,
                         size_t tight)
{
    bool plain = false;
    if (nattrs == 0 ||
        (rawlen && locate_attrs_shaped(r, raw, rawlen, nl_hint, ascii, f->local_len, attrs,
                                       nattrs, f->elem.loc, tight, &plain)))
        return;
    for (size_t k = 0; k < nattrs; k++)
        attrs[k].loc = f->elem.loc;
    if (rawlen)
        locate_attrs_scan(r, f, attrs, nattrs, raw, rawlen, plain);
}


static uint32_t get_u32(const unsigned char **p)
{
    uint32_t v;
    memcpy(&v, *p, 4);
    *p += 4;
    return v;
}

static const char *get_str(const unsigned char **p)
{
    const char *s = (const char *)*p;
    *p += strlen(s) + 1;
    return s;
}

/* Pushes the element made in the stack's next place, whose attributes
 * are the last ones in r->attrs, and hands it to the handler. */
static void open_element(XmlReader *r)
{
    Frame *top = &r->stack.v[r->stack.n++];
    top->elem.attrs = attrs_from(r, top->attr_start);
    r->h->start(r->h->ctx, r, &top->elem);
}

/* What a reader holds besides its arena. */
static void reader_free(XmlReader *r)
{
    map_free(&r->interned);
    vec_free(&r->ns);
    vec_free(&r->stack);
    vec_free(&r->attrs);
    vec_free(&r->argv);
    buf_free(&r->text);
}

/* A start tag: expat's name and its (name, value) pairs, NULL-ended, and
 * the tag's bytes (rawlen 0: none); nl_hint 0: they hold no '\n'; ascii:
 * they are known to be ASCII. */
static void reader_start(XmlReader *r, uint32_t line, uint32_t col, const char *name,
                         const char **atts, const unsigned char *raw, size_t rawlen,
                         int nl_hint, bool ascii)
{
    /* the frame is made in its place on the stack, not copied there */
    if (r->stack.n == r->stack.cap)
        vec_grow_((void **)&r->stack.v, &r->stack.cap, sizeof *r->stack.v);
    Frame *f = &r->stack.v[r->stack.n];
    memset(f->elem.by_slot, 0, sizeof f->elem.by_slot);
    f->elem.loc = (Loc){r->file_id, line, col};
    f->local_len = split_name(r, name, &f->elem.ns, &f->elem.local);
    f->text_start = r->text.len;
    f->attr_start = r->attrs.n;
    f->drop_blank = r->drop_blank = false;
    size_t n = 0;
    while (atts[2 * n])
        n++;
    while (r->attrs.cap - r->attrs.n < n)
        vec_grow_((void **)&r->attrs.v, &r->attrs.cap, sizeof *r->attrs.v);
    XmlAttr *attrs = attrs_from(r, r->attrs.n);
    uint32_t file_id = r->file_id;
    size_t at = 2 + f->local_len; /* the next name's offset in a tight tag */
    bool tight = true;
    for (size_t k = 0; k < n; k++) {
        XmlAttr *a = &attrs[k];
        split_attr(r, atts[2 * k], a);
        a->value = atts[2 * k + 1];
        size_t local_len = a->local_len, value_len = a->value_len = strlen(a->value);
        /* placed as in a tight tag, and kept when it is one */
        a->loc = (Loc){file_id, line, col + (uint32_t)at};
        at += 4 + local_len + value_len;
        if (a->ns[0] || !local_len) {
            tight = false;
            continue;
        }
        uint8_t *s = &f->elem.by_slot[xml_attr_slot(a->local, local_len)];
        *s = *s || k + 1 >= XML_SLOT_SHARED ? XML_SLOT_SHARED : (uint8_t)(k + 1);
    }
    r->attrs.n += n;
    locate_attrs(r, f, attrs, n, raw, rawlen, nl_hint, ascii, tight ? at - 1 : 0);
    f->elem.nattrs = n;
    open_element(r);
}

static void replay_start(XmlReader *r, const unsigned char *p)
{
    uint32_t line = get_u32(&p);
    uint32_t col = get_u32(&p);
    size_t n = get_u32(&p);
    size_t rawlen = get_u32(&p);
    const char *name = get_str(&p);
    r->argv.n = 0;
    for (size_t i = 0; i < 2 * n; i++)
        vec_push(&r->argv, get_str(&p));
    vec_push(&r->argv, NULL);
    reader_start(r, line, col, name, r->argv.v, p, rawlen, -1, false);
}

static void reader_end(XmlReader *r)
{
    if (r->stack.n == 0)
        return;
    Frame *f = &r->stack.v[r->stack.n - 1];
    f->elem.attrs = attrs_from(r, f->attr_start);
    r->h->end(r->h->ctx, r, &f->elem, r->text.s ? r->text.s + f->text_start : "",
              r->text.len - f->text_start);
    r->text.len = f->text_start;
    if (r->text.s)
        r->text.s[r->text.len] = '\0';
    r->attrs.n = f->attr_start;
    r->stack.n--;
    r->drop_blank = r->stack.n && r->stack.v[r->stack.n - 1].drop_blank;
}

void xml_drop_blank_text(XmlReader *r)
{
    if (r->stack.n)
        r->stack.v[r->stack.n - 1].drop_blank = r->drop_blank = true;
}

/* Whether the piece of text s[0..len) is dropped (xml_drop_blank_text). */
static inline bool reader_drops(const XmlReader *r, const char *s, size_t len)
{
    return r->drop_blank && all_space(s, len);
}

static void reader_text(XmlReader *r, const char *s, size_t len)
{
    if (!r->stack.n || reader_drops(r, s, len))
        return;
    buf_add(&r->text, s, len);
}

/* The declarations in scope changed: every cached QName resolution is
 * stale (after 2^32 changes the entries are cleared rather than the
 * generation counted round to theirs). */
static void ns_changed(XmlReader *r)
{
    r->ns_changes++;
    if (++r->ns_gen == 0) {
        memset(r->qcache, 0, sizeof r->qcache);
        r->ns_gen = 1;
    }
}

uint64_t xml_ns_epoch(const XmlReader *r) { return r->ns_changes; }

static void reader_ns_start(XmlReader *r, const char *prefix, const char *uri)
{
    NsDecl d = {xml_intern(r, prefix), xml_intern(r, uri), strlen(prefix)};
    vec_push(&r->ns, d);
    ns_changed(r);
}

static void reader_ns_end(XmlReader *r, const char *p)
{
    ns_changed(r);
    for (size_t i = r->ns.n; i-- > 0;) {
        if (strcmp(r->ns.v[i].prefix, p) == 0) {
            memmove(&r->ns.v[i], &r->ns.v[i + 1], (r->ns.n - i - 1) * sizeof(NsDecl));
            r->ns.n--;
            return;
        }
    }
}

/* An error (or the warning) of one of the error record types; nothing
 * once the parse has failed. */
static void reader_error(XmlReader *r, RecType type, uint32_t line, uint32_t col,
                         uint32_t extra, const char *name)
{
    if (r->failed)
        return;
    Loc loc = {r->file_id, line, col};
    switch (type) {
    case R_NO_BOM_DECL:
        /* a warning: the parse goes on */
        diag_c(D_XML_UTF16_NO_BOM, loc,
               "UTF-16 input without a byte-order mark, read as UTF-16%s from its XML "
               "declaration (XML requires a BOM for UTF-16; save the file with one)",
               extra == ENC_UTF16LE ? "LE" : "BE");
        return;
    case R_BAD_ENCODING:
        diag_c(D_XML_ENCODING, loc,
               "unsupported encoding '%s' in the XML declaration: mcgen reads UTF-8, UTF-16, "
               "ISO-8859-1, US-ASCII, windows-874 and windows-1250 to windows-1258",
               name);
        break;
    case R_BAD_BYTE:
        diag_c(D_XML_SYNTAX, loc,
               "malformed XML: the byte 0x%02X is not a character in %s (the encoding the XML "
               "declaration names)",
               (unsigned)extra, name);
        break;
    case R_XML_ERROR:
        if (extra == XML_ERROR_NO_MEMORY)
            diag_io("out of memory");
        else
            diag_c(D_XML_SYNTAX, loc, "malformed XML: %s",
                   XML_ErrorString((enum XML_Error)extra));
        break;
    case R_DOCTYPE:
        diag_c(D_XML_DTD, loc,
                "document type declarations are not allowed in a manifest (DTDs and "
                "entities are refused)");
        break;
    case R_ENTITY:
        diag_c(D_XML_DTD, loc, "entity declarations are not allowed in a manifest");
        break;
    case R_NO_BOM:
        diag_c(D_XML_ENCODING, loc,
                "UTF-16 input without a byte-order mark or XML declaration (XML requires a "
                "BOM for UTF-16; save the file with one)");
        break;
    case R_IO_ERROR:
        diag_io("cannot read '%s': %s", r->file, strerror((int)extra));
        break;
    default:
        unreachable_here();
    }
    r->failed = true;
}

static void replay_error(XmlReader *r, RecType type, const unsigned char *p)
{
    uint32_t line = 1, col = 1, extra = 0;
    const char *name = "";
    if (type == R_XML_ERROR || type == R_DOCTYPE || type == R_ENTITY || type == R_BAD_ENCODING ||
        type == R_BAD_BYTE) {
        line = get_u32(&p);
        col = get_u32(&p);
        extra = get_u32(&p);
        if (type == R_BAD_ENCODING || type == R_BAD_BYTE)
            name = get_str(&p);
    } else if (type == R_IO_ERROR || type == R_NO_BOM_DECL) {
        extra = get_u32(&p);
    }
    reader_error(r, type, line, col, extra, name);
}

static void replay(XmlReader *r, const unsigned char *data, size_t used)
{
    size_t at = 0;
    while (at < used) {
        uint32_t type, size;
        memcpy(&type, data + at, 4);
        memcpy(&size, data + at + 4, 4);
        const unsigned char *p = data + at + 8;
        at += size;
        if (r->failed)
            continue;
        switch ((RecType)type) {
        case R_START:
            replay_start(r, p);
            break;
        case R_END:
            reader_end(r);
            break;
        case R_TEXT: {
            uint32_t n = get_u32(&p);
            reader_text(r, (const char *)p, n);
            break;
        }
        case R_NS_START: {
            const char *prefix = get_str(&p);
            reader_ns_start(r, prefix, get_str(&p));
            break;
        }
        case R_NS_END:
            reader_ns_end(r, get_str(&p));
            break;
        case R_ENCODING:
            reader_encoding(r, (Encoding)get_u32(&p));
            break;
        default:
            replay_error(r, (RecType)type, p);
            break;
        }
    }
}

/* The declaration in scope of the prefix p[0..n), or NULL. */
static const NsDecl *ns_lookup(const XmlReader *r, const char *p, size_t n)
{
    for (size_t i = r->ns.n; i-- > 0;) {
        const NsDecl *d = &r->ns.v[i];
        if (d->prefix_len == n && memcmp(d->prefix, p, n) == 0)
            return d;
    }
    return NULL;
}

static bool qname_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* The cache entry for the value[0..n) (NULL: too long to be kept). */
static QCacheEntry *qcache_entry(XmlReader *r, const char *value, size_t n)
{
    return n < QCACHE_TEXT ? &r->qcache[cheap_hash(value, n) % QCACHE] : NULL;
}

bool xml_qname(XmlReader *r, const char *value, QName *out)
{
    return xml_qname_n(r, value, strlen(value), out);
}

/* A function kept out of its caller, so that the caller's common case
 * saves and restores no registers for what it does. */
#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

/* xml_qname_n past its cache (c: the entry to make, or NULL). */
static NOINLINE bool qname_resolve(XmlReader *r, const char *value, size_t vn, QCacheEntry *c,
                                   QName *out)
{
    /* the value trimmed of XML whitespace, split at its first ':' */
    const char *v = value;
    while (qname_space(*v))
        v++;
    size_t n = vn - (size_t)(v - value);
    while (n && qname_space(v[n - 1]))
        n--;
    const char *colon = memchr(v, ':', n);
    size_t pl = colon ? (size_t)(colon - v) : 0; /* the prefix is v[0..pl) */
    const char *local = colon ? colon + 1 : v;
    size_t ll = n - (size_t)(local - v);
    out->ns = "";
    const NsDecl *d = ns_lookup(r, v, pl);
    if (d)
        out->ns = d->uri;
    else if (colon)
        return false; /* an undeclared default namespace is no error */
    if (ll == 0)
        return false;
    out->local = intern_n(r, local, ll);
    if (c) {
        c->gen = r->ns_gen;
        c->len = (uint32_t)vn;
        memcpy(c->text, value, vn);
        c->q = *out;
    }
    return true;
}

bool xml_qname_n(XmlReader *r, const char *value, size_t vn, QName *out)
{
    QCacheEntry *c = qcache_entry(r, value, vn);
    if (c && c->gen == r->ns_gen && c->len == vn && memcmp(c->text, value, vn) == 0) {
        *out = c->q;
        return true;
    }
    return qname_resolve(r, value, vn, c, out);
}

bool xml_prefix_declared(XmlReader *r, const char *p, size_t n)
{
    return ns_lookup(r, p, n) != NULL;
}

/* ======================================================================
 * Driving a parse.
 * ==================================================================== */

/* expat with the producer's callbacks. */
static bool producer_init(Producer *pr, const char *file)
{
    pr->file = file;
    pr->p = parser_new();
    if (!pr->p)
        return false;
    XML_SetUserData(pr->p, pr);
    XML_SetElementHandler(pr->p, on_start, on_end);
    XML_SetCharacterDataHandler(pr->p, on_text);
    XML_SetNamespaceDeclHandler(pr->p, on_ns_start, on_ns_end);
    XML_SetStartDoctypeDeclHandler(pr->p, on_doctype);
    XML_SetEntityDeclHandler(pr->p, on_entity);
    XML_SetParamEntityParsing(pr->p, XML_PARAM_ENTITY_PARSING_NEVER);
    XML_SetXmlDeclHandler(pr->p, on_xml_decl);
    XML_SetUnknownEncodingHandler(pr->p, on_unknown_encoding, pr);
    return true;
}

static bool run(const char *file, Arena *arena, const XmlHandler *h, Producer *pr)
{
    XmlReader r = {0};
    r.ns_gen = 1;
    r.file = file;
    r.file_id = diag_file(file);
    r.arena = arena;
    r.h = h;
    pr->r = &r;
    if (!producer_init(pr, file))
        return false;
    r.p = pr->p;
    producer_main(pr);
    bool ok = !r.failed && !pr->failed;
    XML_ParserFree(pr->p);
    pr->p = NULL;
    pr->r = NULL; /* the reader lives in this frame */
    reader_free(&r);
    return ok;
}

bool xml_parse_mem(const char *name, const void *bytes, size_t len, size_t chunk, Arena *arena,
                   const XmlHandler *h)
{
    diag_register_source(name, bytes, len);
    Producer pr = {0};
    pr.bytes = bytes;
    pr.len = len;
    pr.chunk = chunk;
    return run(name, arena, h, &pr);
}

/* ---- documents recorded at build time ----
 * The schema files built into the binary are recorded when mcgen is
 * built (tools/xmlrec.c, through xml_record): the records of the whole
 * document, without the tags' bytes, so attributes get their
 * element's position (these documents are ours, and a mistake in them is
 * an internal error).  A run replays them into the handlers with no
 * expat: about 1 ms of expat work per run saved, per
 * manifest in a batch for winmeta.xml. */

bool xml_record(const char *name, const void *bytes, size_t len, Buf *out)
{
    Buf rec = {0};
    Producer pr = {0};
    pr.bytes = bytes;
    pr.len = len;
    pr.rec = &rec;
    bool ok = producer_init(&pr, name);
    if (ok) {
        producer_main(&pr);
        ok = !pr.failed;
        XML_ParserFree(pr.p);
    }
    if (ok)
        buf_add(out, rec.s, rec.len);
    buf_free(&rec);
    return ok;
}

bool xml_parse_recorded(const char *name, const void *text, size_t text_len,
                        const void *records, size_t len, Arena *arena, const XmlHandler *h)
{
    diag_register_source(name, text, text_len);
    XmlReader r = {0};
    r.ns_gen = 1;
    r.file = name;
    r.file_id = diag_file(name);
    r.arena = arena;
    r.h = h;
    replay(&r, records, len);
    reader_free(&r);
    return !r.failed;
}

bool xml_parse_file(const char *path, Arena *arena, const XmlHandler *h)
{
    FILE *f = os_fopen(path, "rb");
    if (!f) {
        diag_io("cannot open '%s': %s", path, strerror(errno));
        return false;
    }
    Producer pr = {0};
    pr.f = f;
    bool ok = run(path, arena, h, &pr);
    fclose(f);
    return ok;
}
