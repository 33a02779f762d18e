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

#endif
