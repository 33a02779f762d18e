/*
 * fuzz_pe.c - a PE32/PE32+ image as --dump and --decompile read it:
 * read_pe.c's walk of the resource directory (every resource it accepts
 * lies inside the file; directories that share or point back are bounded
 * by the section's size, so no input makes it loop or blow up: no more
 * resources than directory entries fit in the file), then the
 * WEVT_TEMPLATE and message tables it holds read, listed and decompiled
 * (fuzz_binary).
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t n = fuzz_resources(pe_read, data, size);
    FUZZ_ASSERT(n <= size / 8, "more resources than directory entries fit in the file");
    fuzz_binary("pe", data, size);
    return 0;
}
