/*
 * emit_render.c - templates against the model: the values user templates see,
 * where templates are found, and --render=TEMPLATE:OUTPUT.
 *
 * The value tree is the JSON model (docs/json-model.md) built by the same
 * walk of the model that writes --json (emit_json.c), into template values
 * instead of text, so the two cannot drift apart.  Beside it, under
 * `header`, the values the header templates use (emit_header.c).
 * docs/templates.md describes both.  Templates are found by finder.c.
 */
#include "mcgen.h"
#include "os.h"
#include "tmpl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the model's values: the walk into a tree ----
 * The sink keeps the open dictionaries and lists on a stack; a value goes
 * into the innermost one (under the key the walk gave last, in a
 * dictionary).  Keys are not copied: the walk's keys live as long as the
 * manifest, which outlives the values. */

typedef struct TreeSink {
    ModelSink s;
    Arena *a;
    VEC(TValue *) open;
    const char *key;
    TValue *root;
    TValue *last;  /* the dictionary or list ended last */
    PtrMap kept;   /* object -> its value (ModelSink.keep) */
} TreeSink;

static void tree_add(TreeSink *t, TValue *v)
{
    if (!t->open.n) {
        t->root = v;
        return;
    }
    TValue *in = t->open.v[t->open.n - 1];
    if (in->kind == TV_DICT)
        tv_add(t->a, in, t->key, v);
    else
        tv_push(t->a, in, v);
}

static void tree_begin(ModelSink *s, bool list)
{
    TreeSink *t = (TreeSink *)s;
    TValue *v = list ? tv_list(t->a) : tv_dict(t->a);
    tree_add(t, v);
    vec_push(&t->open, v);
}

static void tree_end(ModelSink *s, bool list)
{
    (void)list;
    TreeSink *t = (TreeSink *)s;
    t->last = t->open.v[--t->open.n];
}

/* A value in two places is one value: templates cannot change what they
 * are given, and the tree is freed with its arena, not value by value. */
static void tree_keep(ModelSink *s, const void *obj)
{
    TreeSink *t = (TreeSink *)s;
    ptrmap_put(&t->kept, obj, t->last);
}

static bool tree_again(ModelSink *s, const void *obj)
{
    TreeSink *t = (TreeSink *)s;
    TValue *v = ptrmap_get(&t->kept, obj);
    if (v)
        tree_add(t, v);
    return v != NULL;
}

static void tree_key(ModelSink *s, const char *k) { ((TreeSink *)s)->key = k; }

static void tree_str(ModelSink *s, const char *v)
{
    tree_add((TreeSink *)s, tv_str(((TreeSink *)s)->a, v));
}

static void tree_uint(ModelSink *s, uint64_t v)
{
    /* the model's numbers are ids, values and positions: none passes 2^63 */
    tree_add((TreeSink *)s, tv_int(((TreeSink *)s)->a, (int64_t)v));
}

static void tree_bool(ModelSink *s, bool v)
{
    tree_add((TreeSink *)s, tv_bool(((TreeSink *)s)->a, v));
}

static void tree_null(ModelSink *s) { tree_add((TreeSink *)s, tv_none(((TreeSink *)s)->a)); }

TValue *render_values(const Manifest *m, const Facts *f, const Options *o, Arena *a)
{
    TreeSink t = {{tree_begin, tree_end, tree_key, tree_str, tree_uint, tree_bool, tree_null,
                   tree_keep, tree_again},
                  a, {0}, NULL, NULL, NULL, {0}};
    json_walk(m, &t.s);
    vec_free(&t.open);
    ptrmap_free(&t.kept);
    TValue *root = t.root;
    TValue *h = header_values(m, f, o, a);
    tv_set(a, h, "logging", tv_bool(a, o && o->mode != HEADER_DESCRIPTORS));
    tv_set(a, h, "callout", tv_bool(a, o && o->callout));
    tv_set(a, root, "header", h);
    return root;
}

/* ---- the built-in C# templates ---- */

bool render_named(TemplateFinder *tf, const char *name, const TValue *vars, const TmplSink *out)
{
    size_t len = 0;
    Buf err = {0};
    const char *src = finder_load(tf, name, &len);
    Tmpl *t = src ? tmpl_parse(name, src, len, &err) : NULL;
    bool ok = t && tmpl_render_to(t, vars, &tf->loader, finder_limits(tf), out, &err);
    if (!ok && err.len) /* "template:line:col: error: ..." already */
        diag_formatted(err.s);
    else if (!ok)
        diag_plain(DIAG_ERROR, "no template %s", name);
    tmpl_free(t);
    buf_free(&err);
    return ok;
}

bool render_builtin(const Manifest *m, const Facts *f, const Options *o, const char *name,
                    const char *ns, bool static_class, const TmplSink *out, TemplateFinder *tf)
{
    Arena a = {0};
    TValue *vars = render_values(m, f, o, &a);
    TValue *cs = tv_dict(&a);
    tv_set(&a, cs, "namespace", ns ? tv_strref(&a, ns) : tv_none(&a));
    tv_set(&a, cs, "static", tv_bool(&a, static_class));
    tv_set(&a, vars, "cs", cs);
    bool ok = render_named(tf, name, vars, out);
    arena_free(&a);
    return ok;
}

/* ---- --render ---- */

bool render_user_template(const Manifest *m, const Facts *f, const Options *o, const char *path,
                          const TmplSink *out, TemplateFinder *tf)
{
    size_t len;
    char *text = read_file(path, &len);
    if (!text) {
        diag_io("cannot open the template '%s': %s", path, strerror(errno));
        return false;
    }
    Buf p = {0};
    buf_printf(&p, "%s", path);
    vec_push(&tf->read, p.s);
    Arena a = {0};
    const char *slash = os_last_sep(path);
    tf->first_dir = slash ? arena_strndup(&a, path, (size_t)(slash - path)) : ".";
    Buf err = {0};
    TValue *vars = render_values(m, f, o, &a);
    Tmpl *t = tmpl_parse(path, text, len, &err);
    bool ok = t && tmpl_render_to(t, vars, &tf->loader, &tf->limits, out, &err);
    if (!ok) /* "template:line:col: error: ..." already */
        diag_formatted(err.s ? err.s : "template failed");
    tf->first_dir = NULL;
    tmpl_free(t);
    buf_free(&err);
    arena_free(&a);
    free(text);
    return ok;
}
