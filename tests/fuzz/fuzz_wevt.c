/*
 * fuzz_wevt.c - the TEMP.BIN reader (--check-wevt): any bytes are read
 * strictly, then offsets are explained, as --explain does.  A file the
 * reader accepts must account for its own fields: each span it recorded
 * lies inside the file.  (Explaining is linear in the spans: a sample of
 * offsets, not every span's, keeps a run linear in the input.)  Then the
 * same bytes as --dump and --decompile take them (fuzz_binary).
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_begin();
    WevtFile f;
    Buf err = {0};
    bool ok = wevt_read(data, size, &f, &err);
    FUZZ_ASSERT(ok || err.len > 0, "the reader refused a file without saying why");
    for (size_t i = 0; i < f.spans.n; i++) {
        const WevtSpan *s = &f.spans.v[i];
        FUZZ_ASSERT(!ok || ((uint64_t)s->at + s->len <= size), "a span lies outside the file");
    }
    for (size_t i = 0; i < 8; i++)
        FUZZ_ASSERT(wevt_explain(&f, (uint32_t)(size * i / 7)) != NULL, "an offset unexplained");
    wevt_free(&f);
    buf_free(&err);
    fuzz_end();
    fuzz_binary("wevt", data, size);
    return 0;
}
