/*
 * fuzz_res.c - a compiled resource file (.res) as --dump and --decompile
 * read it: read_res.c's resource list (every resource it accepts lies
 * inside the file), then the WEVT_TEMPLATE and message tables it holds
 * read, listed and decompiled (fuzz_binary).
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_resources(res_read, data, size);
    fuzz_binary("res", data, size);
    return 0;
}
