/*
 * finder.c - where text templates come from, for every emitter that
 * renders one (the header, the .rc, --render): by name in the directory of
 * the user template being rendered (its includes), then in the
 * --templates directory, then among the built-in ones (templates/,
 * embedded at build time); "builtin/NAME" names a built-in one directly.
 * Every file read from disk is remembered for --depfile.
 */
#include "mcgen.h"
#include "os.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
    if (!dir || os_last_sep(name) || strcmp(name, "..") == 0)
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

/* "builtin/NAME" is always the built-in NAME (a loader prefix, as
 * Jinja's PrefixLoader names one of its loaders): an override can extend
 * or include the template it replaces, where its own name would find
 * itself.  No directory is searched for it (from_dir takes no name with a
 * separator); an unknown NAME is no template at all. */
#define BUILTIN_PREFIX "builtin/"

static const char *find(void *ctx, const char *name, size_t *len)
{
    TemplateFinder *tf = ctx;
    if (strncmp(name, BUILTIN_PREFIX, sizeof BUILTIN_PREFIX - 1) == 0)
        return template_builtin(name + sizeof BUILTIN_PREFIX - 1, len);
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
    tf->limits = tmpl_default_limits;
}

const TmplLimits *finder_limits(const TemplateFinder *tf)
{
    return tf->override_dir ? &tf->limits : &tmpl_no_limits;
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
