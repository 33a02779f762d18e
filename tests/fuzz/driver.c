/*
 * driver.c - a fuzz target as a plain program: each file named on the
 * command line (a directory: each file in it, in name order, so that a run
 * is the same on any host) is passed to LLVMFuzzerTestOneInput once.  This
 * is how ninja test runs the regression inputs of tests/fuzz/regress/, and
 * how a finding is replayed in a debugger without libFuzzer.  Exit status
 * 0 when every input ran (a finding aborts), 2 when an input cannot be
 * read.
 */
#define _XOPEN_SOURCE 700
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static int names_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_file(const char *path)
{
    size_t n;
    char *bytes = read_file(path, &n);
    if (!bytes) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return 2;
    }
    LLVMFuzzerTestOneInput((const uint8_t *)bytes, n);
    free(bytes);
    return 0;
}

static int run_path(const char *path, size_t *count)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return 2;
    }
    if (!S_ISDIR(st.st_mode)) {
        ++*count;
        return run_file(path);
    }
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return 2;
    }
    VEC(char *) names = {0};
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.')
            vec_push(&names, xstrdup(e->d_name));
    closedir(d);
    qsort(names.v, names.n, sizeof *names.v, names_cmp);
    int status = 0;
    for (size_t i = 0; i < names.n; i++) {
        Buf p = {0};
        buf_printf(&p, "%s/%s", path, names.v[i]);
        if (run_path(p.s, count))
            status = 2;
        buf_free(&p);
        free(names.v[i]);
    }
    vec_free(&names);
    return status;
}

int main(int argc, char **argv)
{
    int status = 0;
    size_t count = 0;
    for (int i = 1; i < argc; i++)
        if (run_path(argv[i], &count))
            status = 2;
    printf("%s: %zu inputs\n", argv[0], count);
    return status;
}
