/*
 * unit_main.c - runs every Check suite.  The summary line Check prints
 * ("100%: Checks: N, Failures: 0, Errors: 0") is what CI reads.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

const size_t unit_chunks[5] = {1, 2, 3, 7, 0};

void unit_corrupt(const Buf *b, bool (*read)(const char *bytes, size_t n, Buf *err),
                  uint32_t seed)
{
    Buf err = {0};
    for (size_t n = 0; n < b->len; n++) {
        buf_reset(&err);
        ck_assert_msg(!read(b->s, n, &err), "truncated at %zu: accepted", n);
        ck_assert_uint_gt(err.len, 0);
    }
    char *copy = xmalloc(b->len);
    for (int i = 0; i < 10000; i++) {
        memcpy(copy, b->s, b->len);
        for (int k = 0; k < 1 + i % 4; k++) {
            seed = seed * 1103515245u + 12345u;
            copy[(seed >> 8) % b->len] = (char)(seed >> 24);
        }
        buf_reset(&err);
        bool ok = read(copy, b->len, &err);
        ck_assert(ok || err.len > 0);
    }
    free(copy);
    buf_free(&err);
}

Manifest *unit_load(const char *name, const void *bytes, size_t len, size_t chunk, Facts *facts)
{
    Facts own = {0};
    Manifest *m = read_man_mem(name, bytes, len, chunk);
    if (m && !check_manifest(m, NULL, facts ? facts : &own)) {
        manifest_free(m);
        m = NULL;
    }
    facts_free(&own);
    return m;
}

#if defined(__SANITIZE_THREAD__)
/* unit_in_child's children end the process from inside a parse, as mcgen
 * does when memory runs out; exit() ends any thread running without a join,
 * which ThreadSanitizer would report as a thread leak. */
const char *__tsan_default_options(void);
const char *__tsan_default_options(void) { return "report_thread_leaks=0"; }
#endif

void unit_write_twice(void (*write)(Out *out, const void *ctx), const void *ctx,
                      const Buf *want, const char *what)
{
    char dir[] = "/tmp/mcgen-unit-XXXXXX", path[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/out.bin", dir);
    for (int round = 0; round < 2; round++) {
        OutSet *set = outset_new();
        write(outset_open(set, path), ctx);
        ck_assert(outset_commit(set, true));
        size_t n;
        char *got = read_file(path, &n);
        ck_assert_ptr_nonnull(got);
        ck_assert_uint_eq(n, want->len);
        ck_assert_msg(memcmp(got, want->s, n) == 0, "%s: the bytes differ", what);
        free(got);
    }
    remove(path);
    remove(dir);
}

int unit_in_child(void (*fn)(void *), void *arg, Buf *err)
{
    int fd[2];
    ck_assert_int_eq(pipe(fd), 0);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], 2);
        close(fd[1]);
        fn(arg);
        exit(0);
    }
    close(fd[1]);
    char chunk[4096];
    ssize_t n;
    while ((n = read(fd[0], chunk, sizeof chunk)) > 0)
        buf_add(err, chunk, (size_t)n);
    close(fd[0]);
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    return status;
}

int main(void)
{
    SRunner *sr = srunner_create(util_suite());
    srunner_add_suite(sr, xml_suite());
    srunner_add_suite(sr, parse_suite());
    srunner_add_suite(sr, msgid_suite());
    srunner_add_suite(sr, wevt_suite());
    srunner_add_suite(sr, tmpl_suite());
    srunner_add_suite(sr, codegen_suite());
    srunner_add_suite(sr, diag_suite());
    srunner_add_suite(sr, out_suite());
    srunner_add_suite(sr, culture_suite());
    srunner_add_suite(sr, jsonw_suite());
    srunner_add_suite(sr, mc_suite());
    srunner_add_suite(sr, bin_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
