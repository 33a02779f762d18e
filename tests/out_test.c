/* out_test.c - output sets (out.c) in a scratch directory: all or nothing,
 * write-if-changed in every shape a change can take, symlinks followed,
 * and the path clashes refused, with their messages word for word. */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

static char dir[64];

static void scratch(void)
{
    strcpy(dir, "/tmp/mcgen-out-test-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void scratch_remove(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* dir/name, in a static buffer of four (several are alive at once). */
static const char *at(const char *name)
{
    static char paths[4][128];
    static int next;
    char *p = paths[next++ % 4];
    snprintf(p, sizeof paths[0], "%s/%s", dir, name);
    return p;
}

static void put_file(const char *name, const char *text)
{
    FILE *f = fopen(at(name), "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* The file's bytes as a string; "(none)" when it does not exist. */
static const char *file_text(const char *name)
{
    static char text[256];
    size_t n;
    char *b = read_file(at(name), &n);
    if (!b)
        return "(none)";
    ck_assert_uint_lt(n, sizeof text);
    memcpy(text, b, n);
    text[n] = '\0';
    free(b);
    return text;
}

/* How many entries the scratch directory holds (temporaries included). */
static int entries(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    ck_assert_int_eq(fscanf(p, "%d", &n), 1);
    pclose(p);
    return n;
}

static void put(Out *o, const char *s) { out_put(o, s, strlen(s)); }

START_TEST(test_out_set_all_or_nothing)
{
    scratch();
    put_file("a", "old a\n");
    /* the caller says the run failed: nothing written, nothing left */
    OutSet *s = outset_new();
    put(outset_open(s, at("a")), "new a\n");
    put(outset_open(s, at("b")), "new b\n");
    ck_assert(!outset_commit(s, false));
    ck_assert_str_eq(file_text("a"), "old a\n");
    ck_assert_str_eq(file_text("b"), "(none)");
    ck_assert_int_eq(entries(), 1);
    /* one output cannot be made: the others are not written either */
    diag_reset();
    Buf cap = {0};
    diag_set_capture(&cap);
    s = outset_new();
    put(outset_open(s, at("a")), "new a\n");
    put(outset_open(s, at("missing/c")), "new c\n");
    ck_assert(!outset_commit(s, true));
    diag_set_capture(NULL);
    Buf want = {0};
    buf_printf(&want,
               "mcgen: error: cannot create a temporary file for '%s': No such file or "
               "directory\n",
               at("missing/c"));
    ck_assert_str_eq(cap.s, want.s);
    ck_assert_int_eq(diag_io_count(), 1);
    ck_assert_str_eq(file_text("a"), "old a\n");
    ck_assert_int_eq(entries(), 1);
    /* and when all can be made, all are */
    s = outset_new();
    put(outset_open(s, at("a")), "new a\n");
    put(outset_open(s, at("b")), "new b\n");
    ck_assert(outset_commit(s, true));
    ck_assert_str_eq(file_text("a"), "new a\n");
    ck_assert_str_eq(file_text("b"), "new b\n");
    ck_assert_int_eq(entries(), 2);
    buf_free(&cap);
    buf_free(&want);
    diag_reset();
    scratch_remove();
}
END_TEST

START_TEST(test_out_write_if_changed)
{
    /* old text, new text put in pieces, whether the file is rewritten */
    static const struct {
        const char *old, *pieces[3];
        bool rewritten;
    } cases[] = {
        {"abcdef", {"abc", "def", NULL}, false}, /* the same, in two pieces */
        {"abcdef", {"abc", NULL}, true},         /* a prefix of the old */
        {"abc", {"abc", "def", NULL}, true},     /* longer than the old */
        {"abcdef", {"abX", "def", NULL}, true},  /* differs inside a piece */
        {"", {NULL}, false},                     /* empty, both */
        {"x", {NULL}, true},                     /* now empty */
    };
    scratch();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        put_file("f", cases[i].old);
        struct timespec old_time[2] = {{1000000000, 0}, {1000000000, 0}};
        ck_assert_int_eq(utimensat(AT_FDCWD, at("f"), old_time, 0), 0);
        OutSet *s = outset_new();
        Out *o = outset_open(s, at("f"));
        Buf want = {0};
        for (int k = 0; cases[i].pieces[k]; k++) {
            put(o, cases[i].pieces[k]);
            buf_adds(&want, cases[i].pieces[k]);
        }
        ck_assert(outset_commit(s, true));
        ck_assert_str_eq(file_text("f"), want.len ? want.s : "");
        struct stat st;
        ck_assert_int_eq(stat(at("f"), &st), 0);
        ck_assert_msg((st.st_mtime != 1000000000) == cases[i].rewritten, "case %zu", i);
        ck_assert_int_eq(entries(), 1);
        buf_free(&want);
    }
    scratch_remove();
}
END_TEST

/* A size known only later: "ab" then a placeholder "00" patched to "cd",
 * then "ef" (TEMP.BIN's way, wevt_write).  The file is compared when
 * complete: rewritten only when the final bytes differ, nothing left. */
START_TEST(test_out_patch_write_if_changed)
{
    static const struct {
        const char *old; /* NULL: no file yet */
        bool rewritten;
    } cases[] = {
        {"abcdef", false}, /* the same once patched, though "ab00" was not */
        {"ab00ef", true},  /* the bytes put, not the final ones */
        {"abcdeX", true},  /* differs after the patch */
        {"abcdefg", true}, /* longer than the new */
        {NULL, true},
    };
    scratch();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unlink(at("f"));
        if (cases[i].old) {
            put_file("f", cases[i].old);
            struct timespec old_time[2] = {{1000000000, 0}, {1000000000, 0}};
            ck_assert_int_eq(utimensat(AT_FDCWD, at("f"), old_time, 0), 0);
        }
        OutSet *s = outset_new();
        Out *o = outset_open(s, at("f"));
        put(o, "ab00");
        out_patch(o, 2, "cd", 2);
        put(o, "ef");
        ck_assert(outset_commit(s, true));
        ck_assert_str_eq(file_text("f"), "abcdef");
        struct stat st;
        ck_assert_int_eq(stat(at("f"), &st), 0);
        ck_assert_msg((st.st_mtime != 1000000000) == cases[i].rewritten, "case %zu", i);
        ck_assert_int_eq(entries(), 1);
    }
    /* a failed run: the old file stays, no temporary */
    put_file("f", "old");
    OutSet *s = outset_new();
    Out *o = outset_open(s, at("f"));
    put(o, "ab00");
    out_patch(o, 0, "xy", 2);
    ck_assert(!outset_commit(s, false));
    ck_assert_str_eq(file_text("f"), "old");
    ck_assert_int_eq(entries(), 1);
    scratch_remove();
}
END_TEST

START_TEST(test_out_symlink_target_replaced)
{
    scratch();
    put_file("target", "old\n");
    ck_assert_int_eq(chmod(at("target"), 0640), 0);
    ck_assert_int_eq(symlink("target", at("link")), 0);
    OutSet *s = outset_new();
    put(outset_open(s, at("link")), "new\n");
    ck_assert(outset_commit(s, true));
    struct stat st;
    ck_assert_int_eq(lstat(at("link"), &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    ck_assert_str_eq(file_text("target"), "new\n");
    ck_assert_int_eq(stat(at("target"), &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, 0640);
    ck_assert_int_eq(entries(), 2);
    scratch_remove();
}
END_TEST

START_TEST(test_out_check_paths)
{
    scratch();
    put_file("app.man", "<x/>");
    ck_assert_int_eq(symlink("app.man", at("alias.man")), 0);
    ck_assert_int_eq(mkdir(at("sub"), 0777), 0);
    char *app = xstrdup(at("app.man")), *alias = xstrdup(at("alias.man"));
    char *x = xstrdup(at("x")), *x2 = xstrdup(at("sub/../x"));
    struct {
        const char *out[2];
        const char *message; /* NULL: accepted */
    } cases[] = {
        {{x, NULL}, NULL},
        {{app, NULL}, "output '%1$s' is an input of this run"},
        {{alias, NULL}, "output '%2$s' is the input '%1$s' of this run"},
        {{x, x}, "output '%3$s' is named twice in this run"},
        {{x, x2}, "outputs '%3$s' and '%4$s' are the same file"},
        {{"-", "-"}, "output '-' is named twice in this run"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        diag_reset();
        Buf cap = {0};
        diag_set_capture(&cap);
        const char *in[] = {app};
        size_t n = cases[i].out[1] ? 2 : 1;
        bool ok = out_check_paths(in, 1, cases[i].out, n);
        diag_set_capture(NULL);
        ck_assert_msg(ok == !cases[i].message, "case %zu", i);
        if (cases[i].message) {
            Buf want = {0};
            buf_adds(&want, "mcgen: error: ");
            /* the paths by number, as the cases name them */
            const char *m = cases[i].message;
            const char *args[] = {app, alias, x, x2};
            while (*m) {
                if (m[0] == '%' && m[2] == '$') {
                    buf_adds(&want, args[m[1] - '1']);
                    m += 4;
                } else {
                    buf_addc(&want, *m++);
                }
            }
            buf_addc(&want, '\n');
            ck_assert_str_eq(cap.s, want.s);
            buf_free(&want);
        } else {
            ck_assert_uint_eq(cap.len, 0);
        }
        buf_free(&cap);
    }
    diag_reset();
    free(app), free(alias), free(x), free(x2);
    scratch_remove();
}
END_TEST

Suite *out_suite(void)
{
    Suite *s = suite_create("out");
    TCase *tc = tcase_create("out");
    tcase_add_test(tc, test_out_set_all_or_nothing);
    tcase_add_test(tc, test_out_write_if_changed);
    tcase_add_test(tc, test_out_patch_write_if_changed);
    tcase_add_test(tc, test_out_symlink_target_replaced);
    tcase_add_test(tc, test_out_check_paths);
    suite_add_tcase(s, tc);
    return s;
}
