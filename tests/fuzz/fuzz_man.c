/*
 * fuzz_man.c - the .man reader and the check stage: what --validate does
 * with one input, in process.  The bytes are fed to expat in chunks whose
 * size the input's length picks (1 byte, all at once, or 2 to 4096
 * bytes), so that text and positions split across buffers are exercised
 * too.  The options that change the verdict (-um, -km, -A) also come from
 * the length, never from the bytes, so the document stays a document.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_begin();
    size_t chunk = size % 7 == 0 ? 1 : size % 7 == 1 ? 0 : (size_t)1 << (size % 13);
    Options o = {.mode = size % 3 == 0 ? HEADER_DESCRIPTORS : size % 3 == 1 ? HEADER_UM : HEADER_KM};
    o.tables.ansi = size % 5 == 0;
    Manifest *m = read_man_mem("fuzz.man", data, size, chunk);
    if (m) {
        Facts f = {0};
        bool ok = check_manifest(m, &o, &f);
        FUZZ_ASSERT(ok == (diag_error_count() == 0), "check's verdict disagrees with its errors");
        facts_free(&f);
        manifest_free(m);
    } else {
        FUZZ_ASSERT(diag_error_count() > 0, "the reader refused an input without an error");
    }
    fuzz_end();
    return 0;
}
