/*
 * render.c - templates against the model: the values user templates see,
 * where templates are found, and --render=TEMPLATE:OUTPUT.
 *
 * The value tree is the JSON model (json.c, docs/json-model.md) read back
 * into template values, so the two cannot drift apart: one walk of the
 * model, one document.  Beside it, under `header`, the values the header
 * templates use (header.c).  docs/templates.md describes both.
 *
 * Templates are looked up by name in the --templates directory, then among
 * the built-in ones (templates/, embedded at build time); a user template
 * given by path finds its includes beside it first.  Every file read from
 * disk is remembered for --depfile.
 */
#include "mcgen.h"
#include "tmpl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- JSON text to values ---- */

typedef struct JsonIn {
    const char *p, *end;
    Arena *a;
    int depth;
} JsonIn;

static void skip_ws(JsonIn *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t'))
        j->p++;
}

static TValue *json_value(JsonIn *j);

/* A string literal (json.c escapes ", \, control characters as \uXXXX). */
static char *json_string(JsonIn *j)
{
    Buf b = {0};
    j->p++; /* " */
    while (j->p < j->end && *j->p != '"') {
        if (*j->p != '\\') {
            const char *q = j->p;
            while (q < j->end && *q != '"' && *q != '\\')
                q++;
            buf_add(&b, j->p, (size_t)(q - j->p));
            j->p = q;
            continue;
        }
        j->p++;
        if (j->p >= j->end)
            break;
        char c = *j->p++;
        switch (c) {
        case 'n': buf_add(&b, "\n", 1); break;
        case 't': buf_add(&b, "\t", 1); break;
        case 'r': buf_add(&b, "\r", 1); break;
        case 'b': buf_add(&b, "\b", 1); break;
        case 'f': buf_add(&b, "\f", 1); break;
        case 'u': {
            uint32_t u = 0;
            for (int k = 0; k < 4 && j->p < j->end; k++, j->p++) {
                char h = *j->p;
                u = u * 16 + (uint32_t)(h >= 'a' ? h - 'a' + 10 : h >= 'A' ? h - 'A' + 10 : h - '0');
            }
            if (u >= 0xD800 && u < 0xDC00 && j->end - j->p >= 6 && j->p[0] == '\\' &&
                j->p[1] == 'u') {
                uint32_t lo = 0;
                j->p += 2;
                for (int k = 0; k < 4; k++, j->p++) {
                    char h = *j->p;
                    lo = lo * 16 +
                         (uint32_t)(h >= 'a' ? h - 'a' + 10 : h >= 'A' ? h - 'A' + 10 : h - '0');
                }
                u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
            }
            utf8_put(&b, u);
            break;
        }
        default: buf_add(&b, &c, 1); break; /* \" \\ \/ */
        }
    }
    j->p++; /* " */
    char *s = arena_strndup(j->a, b.s ? b.s : "", b.len);
    buf_free(&b);
    return s;
}

static TValue *json_value(JsonIn *j)
{
    skip_ws(j);
    if (j->p >= j->end || ++j->depth > 64)
        return tv_none(j->a);
    TValue *v;
    char c = *j->p;
    if (c == '{' || c == '[') {
        v = c == '{' ? tv_dict(j->a) : tv_list(j->a);
        j->p++;
        for (;;) {
            skip_ws(j);
            if (j->p >= j->end || *j->p == '}' || *j->p == ']') {
                j->p++;
                break;
            }
            if (*j->p == ',') {
                j->p++;
                continue;
            }
            if (c == '{') {
                char *key = json_string(j);
                skip_ws(j);
                j->p++; /* : */
                tv_add(j->a, v, key, json_value(j));
            } else {
                tv_push(j->a, v, json_value(j));
            }
        }
    } else if (c == '"') {
        v = tv_none(j->a);
        v->kind = TV_STR;
        v->s = json_string(j);
        v->n = strlen(v->s);
    } else if (c == 't' || c == 'f' || c == 'n') {
        v = c == 'n' ? tv_none(j->a) : tv_bool(j->a, c == 't');
        while (j->p < j->end && *j->p >= 'a' && *j->p <= 'z')
            j->p++;
    } else {
        v = tv_int(j->a, strtoll(j->p, NULL, 10));
        while (j->p < j->end && (*j->p == '-' || (*j->p >= '0' && *j->p <= '9')))
            j->p++;
    }
    j->depth--;
    return v;
}

TValue *render_values(const Manifest *m, const Facts *f, const Options *o, Arena *a)
{
    Buf json = {0};
    json_model_to_buf(m, &json);
    JsonIn j = {json.s, json.s + json.len, a, 0};
    TValue *root = json_value(&j);
    buf_free(&json);
    TValue *h = header_values(m, f, o, a);
    tv_set(a, h, "logging", tv_bool(a, o && o->mode != HEADER_DESCRIPTORS));
    tv_set(a, h, "callout", tv_bool(a, o && o->callout));
    tv_set(a, root, "header", h);
    return root;
}

/* ---- finding templates ---- */

const char *template_builtin(const char *name, size_t *len)
{
    for (const EmbeddedFile *f = embedded_templates; f->name; f++)
        if (strcmp(f->name, name) == 0) {
            *len = f->len;
            return (const char *)f->bytes;
        }
    return NULL;
}

/* A template file under dir, or NULL when there is none (a name with a
 * directory part is refused: templates include each other by name).  One
 * that is there but cannot be read is an I/O problem, not an absence. */
static const char *from_dir(TemplateFinder *tf, const char *dir, const char *name, size_t *len)
{
    if (!dir || strchr(name, '/') || strcmp(name, "..") == 0)
        return NULL;
    Buf path = {0};
    buf_printf(&path, "%s/%s", dir, name);
    char *text = read_file(path.s, len);
    if (text) {
        vec_push(&tf->read, path.s);
        vec_push(&tf->texts, text);
    } else {
        if (errno != ENOENT)
            diag_io("cannot read the template '%s': %s", path.s, strerror(errno));
        buf_free(&path);
    }
    return text; /* freed by finder_free */
}

static const char *find(void *ctx, const char *name, size_t *len)
{
    TemplateFinder *tf = ctx;
    const char *t = from_dir(tf, tf->first_dir, name, len);
    if (!t)
        t = from_dir(tf, tf->override_dir, name, len);
    return t ? t : template_builtin(name, len);
}

void finder_init(TemplateFinder *tf, const char *override_dir, const char *first_dir)
{
    memset(tf, 0, sizeof *tf);
    tf->override_dir = override_dir;
    tf->first_dir = first_dir;
    tf->loader.ctx = tf;
    tf->loader.load = find;
}

const char *finder_load(TemplateFinder *tf, const char *name, size_t *len)
{
    return find(tf, name, len);
}

void finder_free(TemplateFinder *tf)
{
    for (size_t i = 0; i < tf->texts.n; i++)
        free(tf->texts.v[i]);
    vec_free(&tf->texts);
    for (size_t i = 0; i < tf->read.n; i++)
        free(tf->read.v[i]);
    vec_free(&tf->read);
}

/* ---- --render ---- */

bool render_user_template(const Manifest *m, const Facts *f, const Options *o, const char *path,
                          Buf *out, TemplateFinder *tf)
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
    const char *slash = strrchr(path, '/');
    tf->first_dir = slash ? arena_strndup(&a, path, (size_t)(slash - path)) : ".";
    Buf err = {0};
    TValue *vars = render_values(m, f, o, &a);
    Tmpl *t = tmpl_parse(path, text, len, &err);
    bool ok = t && tmpl_render(t, vars, &tf->loader, out, &err);
    if (!ok) /* "template:line:col: error: ..." already */
        diag_formatted(err.s ? err.s : "template failed");
    tf->first_dir = NULL;
    tmpl_free(t);
    buf_free(&err);
    arena_free(&a);
    free(text);
    return ok;
}
