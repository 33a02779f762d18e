/*
 * fuzz_msgtable.c - the message-table reader: any bytes read strictly as
 * a MESSAGE_RESOURCE_DATA.  What it accepts it must give back whole: the
 * ids in order, and every entry's text as valid UTF-8 (a Unicode entry's
 * unpaired surrogate decoded to U+FFFD, never copied raw; an ANSI entry's
 * bytes decoded as Windows-1252; a UTF-8 entry's checked).
 */
#include "fuzz.h"

#include <string.h>

static bool utf8_ok(const char *s)
{
    for (size_t n = strlen(s), i = 0; i < n;) {
        uint32_t c;
        size_t k = utf8_get(s + i, n - i, &c);
        if (c == 0xFFFD && (k != 3 || memcmp(s + i, "\xEF\xBF\xBD", 3) != 0))
            return false;
        i += k;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_begin();
    MsgTable t;
    Buf err = {0};
    bool ok = msgtable_read(data, size, &t, &err);
    FUZZ_ASSERT(ok || err.len > 0, "the reader refused a table without saying why");
    for (size_t i = 0; ok && i < t.entries.n; i++) {
        const MsgTableEntry *e = &t.entries.v[i];
        FUZZ_ASSERT(e->text != NULL, "an entry without text");
        FUZZ_ASSERT(e->kind <= MSGTEXT_UTF8, "an entry of no kind");
        FUZZ_ASSERT(utf8_ok(e->text), "an entry's text is not UTF-8");
        FUZZ_ASSERT(i == 0 || t.entries.v[i - 1].id < e->id, "entries out of id order");
    }
    msgtable_free(&t);
    buf_free(&err);
    fuzz_end();
    return 0;
}
