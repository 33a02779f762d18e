/* unit.h - shared declarations of the Check unit-test suites. */
#ifndef MCGEN_UNIT_H
#define MCGEN_UNIT_H

#include <check.h>

#include "mcgen.h"

Suite *util_suite(void);
Suite *xml_suite(void);
Suite *parse_suite(void);
Suite *msgid_suite(void);
Suite *wevt_suite(void);
Suite *tmpl_suite(void);
Suite *codegen_suite(void);
Suite *diag_suite(void);
Suite *out_suite(void);
Suite *culture_suite(void);
Suite *jsonw_suite(void);
Suite *mc_suite(void);
Suite *bin_suite(void);

/* Feeds `read` the bytes of `b` truncated at every length, then 10,000
 * copies with 1 to 4 random bytes changed (seeded): every call must give
 * a clean answer (true, or false with a message); ASan and UBSan watch
 * the reads. */
void unit_corrupt(const Buf *b, bool (*read)(const char *bytes, size_t n, Buf *err),
                  uint32_t seed);

/* A manifest from memory through the .man reader and the check stage
 * (mc's default options), fed in chunks of `chunk` bytes (0: all); NULL
 * after diagnostics.  The facts go to `facts` (NULL: dropped). */
Manifest *unit_load(const char *name, const void *bytes, size_t len, size_t chunk, Facts *facts);

/* Runs fn(arg) in a child process and returns its wait status (as
 * waitpid gives it); what the child writes to stderr is appended to `err`.
 * The child ends with exit(0) when fn returns, so LeakSanitizer checks it
 * as it checks mcgen.  For code that ends the process (out of memory). */
int unit_in_child(void (*fn)(void *), void *arg, Buf *err);

/* Writes a file with write(out, ctx) into an Out of a new output set in a
 * scratch directory, twice (a new file, then over the same bytes): each
 * time the committed file must hold exactly `want` ("what" names the
 * writer in the failure). */
void unit_write_twice(void (*write)(Out *out, const void *ctx), const void *ctx,
                      const Buf *want, const char *what);

/* The chunk sizes every in-memory parse is run with (0 = all at once). */
extern const size_t unit_chunks[5];

#endif
