/*
 * fuzz.h - what the fuzz targets share.  Each target (fuzz_*.c) is a
 * libFuzzer entry point, LLVMFuzzerTestOneInput, over one stage of mcgen
 * called in process: nothing is written to disk, diagnostics are captured
 * in memory, and every run frees what it made, so a leak is a finding.
 * Linked with clang's -fsanitize=fuzzer it is a fuzzer (ninja fuzz);
 * linked with driver.c instead it is a plain program that runs the
 * inputs named on its command line once each (the regression inputs of
 * ninja test, with gcc or clang, with or without sanitizers).
 *
 * A target aborts (a finding) only where mcgen's own contract is broken:
 * a crash or sanitizer report anywhere, or an oracle below that says two
 * parts of mcgen disagree.  Refusing an input is never a finding.
 */
#ifndef MCGEN_FUZZ_H
#define MCGEN_FUZZ_H

#include "mcgen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Diagnostics of one input go here, not to stderr (printing them would
 * cost more than the run); emptied by fuzz_end. */
static Buf fuzz_diags;

static inline void fuzz_begin(void) { diag_set_capture(&fuzz_diags); }

static inline void fuzz_end(void)
{
    diag_reset();
    fuzz_diags.len = 0;
}

/* An oracle failed: say which, with the diagnostics so far, and abort so
 * that the fuzzer keeps the input. */
#define FUZZ_ASSERT(cond, what)                                                        \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "fuzz: %s\n%.*s\n", what, (int)fuzz_diags.len,             \
                    fuzz_diags.s ? fuzz_diags.s : "");                                 \
            abort();                                                                   \
        }                                                                              \
    } while (0)

/* A container's resource list (res_read, pe_read): a refusal says why,
 * every resource it accepts lies inside the file; their count. */
static inline size_t fuzz_resources(bool (*read)(const void *, size_t, ResourceList *, Arena *,
                                                 Buf *),
                                    const uint8_t *data, size_t size)
{
    fuzz_begin();
    ResourceList l = {0};
    Arena a = {0};
    Buf err = {0};
    bool ok = read(data, size, &l, &a, &err);
    FUZZ_ASSERT(ok || err.len > 0, "a container reader refused a file without saying why");
    for (size_t i = 0; i < l.n; i++)
        FUZZ_ASSERT(l.v[i].at <= size && l.v[i].size <= size - l.v[i].at,
                    "a resource lies outside the file");
    size_t n = l.n;
    vec_free(&l);
    arena_free(&a);
    buf_free(&err);
    fuzz_end();
    return n;
}

/* A binary as --dump and --decompile take it: read by the reader-table
 * row `row` ("wevt", "res", "pe") into an image, then listed as text and
 * as JSON and decompiled.  A refusal says why; the JSON is one document
 * ending in a line feed; a manifest is whole or refused with a reason. */
static inline void fuzz_binary(const char *row, const uint8_t *data, size_t size)
{
    fuzz_begin();
    BinImage img = {0};
    Buf err = {0}, out = {0};
    bool ok = reader_named(row)->read_bin("fuzz", data, size, &img, &err);
    FUZZ_ASSERT(ok || err.len > 0, "a binary reader refused a file without saying why");
    if (ok) {
        dump_write(&img, false, &out);
        buf_reset(&out);
        dump_write(&img, true, &out);
        FUZZ_ASSERT(out.len > 2 && out.s[0] == '{' && out.s[out.len - 1] == '\n',
                    "--dump's JSON is not one document");
        buf_reset(&out);
        buf_reset(&err);
        bool man = decompile_write(&img, "app.dll", &out, &err);
        static const char end[] = "</instrumentationManifest>\n";
        FUZZ_ASSERT(man ? out.len > sizeof end &&
                              memcmp(out.s + out.len - (sizeof end - 1), end, sizeof end - 1) == 0
                        : err.len > 0,
                    "--decompile neither wrote a whole manifest nor said why");
    }
    bin_free(&img);
    buf_free(&err);
    buf_free(&out);
    fuzz_end();
}

#endif
