/*
 * read_msgtable.c - reads a message-table resource back (mc's or ours),
 * strictly: every count, offset and length is checked against the bytes
 * that are there before it is used, and the first inconsistency ends the
 * read with a message naming its offset.  The golden tests use it to
 * explain a mismatch; later, `mcgen dump` and decompilation build on it.
 */
#include "mcgen.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The n bytes at s, UTF-8, appended to text; false at the first byte that
 * is not (text then ends before it). */
static bool utf8_text(Buf *text, const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        uint32_t c;
        size_t k = utf8_get(s + i, n - i, &c);
        if (c == 0xFFFD && k == 1)
            return false; /* a U+FFFD written as such is three bytes */
        buf_add(text, s + i, k);
        i += k;
    }
    return true;
}

bool msgtable_read(const void *bytes, size_t n, MsgTable *out, Buf *err)
{
    const unsigned char *p = bytes;
    memset(out, 0, sizeof *out);
    if (n < 4)
        return bin_fail(err, 0, "%zu bytes: too short for a message table (4-byte block count)", n);
    uint32_t nblocks = get_u32le(p);
    if (nblocks > (n - 4) / 12)
        return bin_fail(err, 0, "block count %u needs %llu bytes of block headers, the table has %zu",
                    nblocks, 4 + 12ull * nblocks, n);
    size_t expect = 4 + 12 * (size_t)nblocks; /* where the next block's entries must start */
    uint32_t prev_high = 0;
    for (uint32_t b = 0; b < nblocks; b++) {
        size_t h = 4 + 12 * (size_t)b;
        uint32_t low = get_u32le(p + h), high = get_u32le(p + h + 4), off = get_u32le(p + h + 8);
        if (low > high)
            return bin_fail(err, h, "block %u: low id 0x%08X above high id 0x%08X", b, low, high);
        if (b > 0 && low <= prev_high)
            return bin_fail(err, h, "block %u: ids 0x%08X.. not above the previous block's 0x%08X",
                        b, low, prev_high);
        if (off != expect)
            return bin_fail(err, h + 8,
                        "block %u: entries at 0x%x, expected 0x%zx (right after the previous "
                        "block's)",
                        b, off, expect);
        prev_high = high;
        size_t at = off;
        for (uint64_t id = low; id <= high; id++) {
            if (at + 4 > n)
                return bin_fail(err, at, "message 0x%08llX: entry header past the end (%zu bytes)",
                            (unsigned long long)id, n);
            uint32_t len = get_u16le(p + at), flags = get_u16le(p + at + 2);
            if (len < 4 || at + len > n)
                return bin_fail(err, at, "message 0x%08llX: length %u %s", (unsigned long long)id,
                            len, len < 4 ? "is below the 4-byte header" : "runs past the end");
            if (flags > MSGTEXT_UTF8)
                return bin_fail(err, at + 2,
                                "message 0x%08llX: flags 0x%x (0 ANSI, 1 Unicode, 2 UTF-8)",
                                (unsigned long long)id, flags);
            const unsigned char *t = p + at + 4;
            size_t tn = len - 4, chars = 0;
            Buf text = {0};
            if (flags == 1) {
                while (chars + 1 < tn && (t[chars] || t[chars + 1]))
                    chars += 2;
                if (chars + 1 >= tn) {
                    buf_free(&text);
                    return bin_fail(err, at, "message 0x%08llX: Unicode text without a NUL",
                                (unsigned long long)id);
                }
                /* the writers pad with 0 or 2 zero bytes after the NUL: more (or
                 * an odd byte) is a length that disagrees with the text (a wrapped
                 * one) */
                size_t pad = tn - chars - 2;
                if (pad != 0 && (pad != 2 || t[chars + 2] || t[chars + 3])) {
                    buf_free(&text);
                    return bin_fail(err, at, "message 0x%08llX: length %u leaves %zu bytes after the "
                                "text's NUL (at most 2 zero bytes of padding)",
                                (unsigned long long)id, len, pad);
                }
                utf16_to_utf8(&text, t, chars, false);
            } else {
                const char *kind = flags == MSGTEXT_UTF8 ? "UTF-8" : "ANSI";
                while (chars < tn && t[chars])
                    chars++;
                if (chars >= tn) {
                    buf_free(&text);
                    return bin_fail(err, at, "message 0x%08llX: %s text without a NUL",
                                    (unsigned long long)id, kind);
                }
                if (flags == MSGTEXT_UTF8 && !utf8_text(&text, (const char *)t, chars)) {
                    size_t bad = at + 4 + text.len; /* the bytes before it were UTF-8 */
                    buf_free(&text);
                    return bin_fail(err, bad,
                                    "message 0x%08llX: UTF-8 text with a byte that is not UTF-8",
                                    (unsigned long long)id);
                }
                if (flags == MSGTEXT_ANSI) /* Windows-1252 (mc -A) */
                    for (size_t i = 0; i < chars; i++)
                        utf8_put(&text, cp1252_decode(t[i]));
            }
            MsgTableEntry e = {(uint32_t)id, (MsgTextKind)flags, text.s ? text.s : xstrdup("")};
            vec_push(&out->entries, e);
            at += len;
        }
        expect = at;
    }
    if (expect != n)
        return bin_fail(err, expect, "%zu bytes after the last entry", n - expect);
    return true;
}

void msgtable_free(MsgTable *t)
{
    for (size_t i = 0; i < t->entries.n; i++)
        free(t->entries.v[i].text);
    vec_free(&t->entries);
}
