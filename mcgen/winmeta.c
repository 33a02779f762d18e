/*
 * winmeta.c - the built-in win: definitions (levels, tasks, opcodes,
 * keywords, channels, inTypes, outTypes).  They are data, not code:
 * schema/winmeta.xml is read when mcgen is built, by this same file built
 * with WINMETA_COMPILER into the build's host program (tools/xmlrec.c),
 * which checks every item and writes them as one table of rows
 * (build/gen/winmeta_tables.inc), in the document's order.  mcgen's own
 * build of this file includes that table, and winmeta_load turns its rows
 * into the manifest's model objects (flagged builtin), so every model
 * object a reference can resolve to is an ordinary model object; their
 * strings are the table's, not copies.  The inTypes and outTypes are
 * made once a process and shared by every manifest (a field names them
 * by number).  The name maps are hashed once per
 * process and copied into each manifest (a batch loads the table once per
 * manifest).
 */
#include "mcgen.h"

#include <string.h>

/* One winmeta.xml item.  An inType's allowed outTypes follow it, one
 * WM_ALLOWED_OUT row each. */
typedef enum {
    WM_CHANNEL, WM_LEVEL, WM_TASK, WM_OPCODE, WM_KEYWORD, WM_OUT_TYPE, WM_IN_TYPE,
    WM_ALLOWED_OUT
} WmKind;

typedef struct WmRow {
    WmKind kind;
    const char *name;    /* name=; an outType's "xs:string"; WM_ALLOWED_OUT: the outType */
    const char *display; /* "win:Error" (levels, tasks, opcodes, keywords, inTypes) */
    const char *symbol, *message, *msgid; /* channels and named items */
    const char *default_out;              /* an inType's defaultOutType= */
    uint64_t value;                       /* value=; a keyword's mask= */
    ChannelType type;                     /* a channel's type= */
    uint8_t size;                         /* inType */
    char mangle;                          /* inType */
    bool pointer;                         /* inType */
} WmRow;

#ifdef WINMETA_COMPILER

/* ---- schema/winmeta.xml read into rows (at build time) ---- */

#include <stdlib.h>

typedef struct WmReader {
    VEC(WmRow) rows;
    Map out_names; /* outTypes declared so far */
    bool in;       /* inside an <inType> */
    bool bad;
    Arena *arena;
} WmReader;

static const char *wm_attr(WmReader *w, const XmlElem *e, const char *name)
{
    const char *v = xml_attr(e, name);
    if (!v) {
        diag_at(DIAG_ERROR, e->loc, "winmeta: <%s> lacks '%s'", e->local, name);
        w->bad = true;
        return "";
    }
    return arena_strdup(w->arena, v);
}

static uint64_t wm_num(WmReader *w, const XmlElem *e, const char *name, uint64_t max)
{
    uint64_t v = 0;
    if (!parse_uint(wm_attr(w, e, name), max, &v)) {
        diag_at(DIAG_ERROR, e->loc, "winmeta: bad %s on <%s>", name, e->local);
        w->bad = true;
    }
    return v;
}

static const char *wm_out(WmReader *w, const XmlElem *e, const char *name)
{
    if (!map_get(&w->out_names, name)) {
        diag_at(DIAG_ERROR, e->loc, "winmeta: unknown outType '%s'", name);
        w->bad = true;
    }
    return name;
}

/* A level, task, opcode or keyword: its value (a keyword's mask) under
 * `value_attr`, at most max. */
static void wm_named(WmReader *w, const XmlElem *e, WmKind kind, const char *value_attr,
                     uint64_t max)
{
    WmRow row = {kind, wm_attr(w, e, "name"), NULL, NULL, NULL, NULL, NULL, 0, CHAN_NONE, 0, 0,
                 false};
    row.display = arena_printf(w->arena, "win:%s", row.name);
    row.symbol = wm_attr(w, e, "symbol");
    row.message = wm_attr(w, e, "message");
    row.msgid = wm_attr(w, e, "msgId");
    row.value = wm_num(w, e, value_attr, max);
    vec_push(&w->rows, row);
}

static void wm_start(void *ctx, XmlReader *r, const XmlElem *e)
{
    (void)r;
    WmReader *w = ctx;
    const char *n = e->local;
    WmRow row = {WM_CHANNEL, NULL, NULL, NULL, NULL, NULL, NULL, 0, CHAN_NONE, 0, 0, false};
    if (strcmp(n, "channel") == 0) {
        row.name = wm_attr(w, e, "name");
        row.value = wm_num(w, e, "value", 255);
        row.symbol = wm_attr(w, e, "symbol");
        row.message = wm_attr(w, e, "message");
        row.msgid = wm_attr(w, e, "msgId");
        const char *t = wm_attr(w, e, "type");
        static const char *types[] = {"Admin", "Operational", "Analytic", "Debug"};
        for (int i = 0; i < 4; i++)
            if (strcmp(t, types[i]) == 0)
                row.type = (ChannelType)i;
        vec_push(&w->rows, row);
    } else if (strcmp(n, "level") == 0) {
        wm_named(w, e, WM_LEVEL, "value", 255);
    } else if (strcmp(n, "task") == 0) {
        wm_named(w, e, WM_TASK, "value", 65535);
    } else if (strcmp(n, "opcode") == 0 && !w->in) {
        wm_named(w, e, WM_OPCODE, "value", 255);
    } else if (strcmp(n, "keyword") == 0) {
        wm_named(w, e, WM_KEYWORD, "mask", UINT64_MAX);
    } else if (strcmp(n, "outType") == 0 && !w->in) {
        row.kind = WM_OUT_TYPE;
        row.name = wm_attr(w, e, "name");
        row.value = wm_num(w, e, "value", 255);
        map_put(&w->out_names, row.name, (void *)row.name, true);
        vec_push(&w->rows, row);
    } else if (strcmp(n, "inType") == 0) {
        row.kind = WM_IN_TYPE;
        row.name = wm_attr(w, e, "name");
        row.display = arena_printf(w->arena, "win:%s", row.name);
        row.value = wm_num(w, e, "value", 255);
        row.size = (uint8_t)wm_num(w, e, "size", 255);
        row.mangle = wm_attr(w, e, "mangle")[0];
        const char *ptr = xml_attr(e, "pointer");
        row.pointer = ptr && strcmp(ptr, "true") == 0;
        row.default_out = wm_out(w, e, wm_attr(w, e, "defaultOutType"));
        vec_push(&w->rows, row);
        w->in = true;
    } else if (strcmp(n, "outType") == 0 && w->in) {
        row.kind = WM_ALLOWED_OUT;
        row.name = wm_out(w, e, wm_attr(w, e, "name"));
        vec_push(&w->rows, row);
    }
}

static void wm_end(void *ctx, XmlReader *r, const XmlElem *e, const char *text, size_t len)
{
    (void)r, (void)text, (void)len;
    WmReader *w = ctx;
    if (strcmp(e->local, "inType") == 0)
        w->in = false;
}

bool winmeta_write_tables(const char *name, const void *text, size_t len, FILE *out)
{
    static const char *kinds[] = {"WM_CHANNEL", "WM_LEVEL", "WM_TASK", "WM_OPCODE",
                                  "WM_KEYWORD", "WM_OUT_TYPE", "WM_IN_TYPE", "WM_ALLOWED_OUT"};
    static const char *types[] = {"CHAN_ADMIN", "CHAN_OPERATIONAL", "CHAN_ANALYTIC",
                                  "CHAN_DEBUG", "CHAN_NONE"};
    Arena arena = {0};
    WmReader w = {{0}, {0}, false, false, &arena};
    XmlHandler h = {&w, wm_start, wm_end};
    int before = diag_error_count();
    bool ok = xml_parse_mem(name, text, len, 0, &arena, &h) && !w.bad &&
              diag_error_count() == before;
    if (ok) {
        fprintf(out, "/* generated from %s by tools/xmlrec.c (winmeta_write_tables),\n"
                     " * for mcgen/winmeta.c to include */\n\n"
                     "static const WmRow winmeta_rows[] = {\n", name);
        for (size_t i = 0; i < w.rows.n; i++) {
            const WmRow *r = &w.rows.v[i];
            fprintf(out, "    {%s, ", kinds[r->kind]);
            const char *strs[] = {r->name, r->display, r->symbol, r->message, r->msgid,
                                  r->default_out};
            for (size_t k = 0; k < sizeof strs / sizeof strs[0]; k++) {
                put_c_string(out, strs[k]);
                fputs(", ", out);
            }
            fprintf(out, "%lluull, %s, %u, ", (unsigned long long)r->value, types[r->type],
                    r->size);
            if (r->mangle >= 'a' && r->mangle <= 'z')
                fprintf(out, "'%c'", r->mangle);
            else
                fprintf(out, "%d", r->mangle);
            fprintf(out, ", %s},\n", r->pointer ? "true" : "false");
        }
        fputs("};\n", out);
    }
    vec_free(&w.rows);
    map_free(&w.out_names);
    arena_free(&arena);
    return ok;
}

#else

/* ---- the rows into a manifest's model (every run) ---- */

#include "../build/gen/winmeta_tables.inc"

static void wm_named(Named *n, const WmRow *r)
{
    n->name.ns = NS_WIN;
    n->name.local = r->name;
    n->display = r->display;
    n->written = n->display;
    n->symbol = r->symbol;
    n->builtin_msg = r->message;
    n->builtin_msgid = r->msgid;
    n->builtin = true;
}

#define WM_ROWS (sizeof winmeta_rows / sizeof winmeta_rows[0])

/* The seven name maps are the same for every manifest but for their
 * values, so they are hashed once per process: keys the table's strings,
 * values a row's index plus one.  A manifest's maps are copies of these
 * with each value pointed at that row's object (a batch of manifests
 * loads the table once per manifest: this was a third of the fixed cost
 * of one).  An inType's outTypes are found once too, as row indexes. */
static struct {
    bool built;
    Map by_name[WM_ALLOWED_OUT]; /* by WmKind: every kind's key is its row's name */
    size_t count[WM_ALLOWED_OUT + 1];
    uint16_t out_row[WM_ROWS]; /* inType, allowed outType: the outType's row */
    uint16_t allowed[WM_ROWS]; /* inType: how many allowed outTypes follow it */
} wm_index;

static void wm_index_build(void)
{
    size_t in = 0;
    for (size_t i = 0; i < WM_ROWS; i++) {
        const WmRow *r = &winmeta_rows[i];
        wm_index.count[r->kind]++;
        if (r->kind == WM_IN_TYPE)
            in = i;
        else if (r->kind == WM_ALLOWED_OUT)
            wm_index.allowed[in]++;
        if (r->kind != WM_ALLOWED_OUT)
            map_put(&wm_index.by_name[r->kind], r->name, (void *)(uintptr_t)(i + 1), true);
        const char *out = r->kind == WM_IN_TYPE ? r->default_out
                          : r->kind == WM_ALLOWED_OUT ? r->name : NULL;
        if (out)
            wm_index.out_row[i] =
                (uint16_t)((uintptr_t)map_get(&wm_index.by_name[WM_OUT_TYPE], out) - 1);
    }
    wm_index.built = true;
}

/* The inTypes and outTypes, made once a process, the same objects in
 * every manifest: a field names its types by number (Field.in_type_no),
 * one byte where a pointer took eight.  type_obj: a type row's object. */
static InType *in_by_number[256];
static OutType *out_by_number[256];
InType *const *winmeta_in_types = in_by_number;
OutType *const *winmeta_out_types = out_by_number;
static void *type_obj[WM_ROWS];
static Arena types_arena; /* lives as long as the process */

static void wm_types_build(void)
{
    Arena *a = &types_arena;
    size_t nin = 0, nout = 0;
    InType *in = NULL;
    for (size_t i = 0; i < WM_ROWS; i++) {
        const WmRow *r = &winmeta_rows[i];
        if (r->kind == WM_OUT_TYPE) {
            OutType *o = arena_alloc(a, sizeof *o);
            o->display = r->name;
            const char *colon = strchr(o->display, ':');
            o->name.ns = colon && strncmp(o->display, "xs:", 3) == 0 ? NS_XS : NS_WIN;
            o->name.local = colon ? colon + 1 : o->display;
            o->value = (uint8_t)r->value;
            o->number = (uint8_t)++nout;
            out_by_number[nout] = o;
            type_obj[i] = o;
        } else if (r->kind == WM_IN_TYPE) {
            in = arena_alloc(a, sizeof *in);
            in->name.ns = NS_WIN;
            in->name.local = r->name;
            in->display = r->display;
            in->value = (uint8_t)r->value;
            in->size = r->size;
            in->mangle = r->mangle;
            in->pointer = r->pointer;
            in->number = (uint8_t)++nin;
            in->default_out = type_obj[wm_index.out_row[i]];
            in->allowed.v = arena_alloc(a, (wm_index.allowed[i] + 1) * sizeof *in->allowed.v);
            in_by_number[nin] = in;
            type_obj[i] = in;
        } else if (r->kind == WM_ALLOWED_OUT) {
            in->allowed.v[in->allowed.n++] = type_obj[wm_index.out_row[i]];
        }
    }
}

/* A copy of the index's map for `kind`, its values made the objects. */
static void wm_map(Map *dst, WmKind kind, void *const *obj)
{
    map_copy(dst, &wm_index.by_name[kind]);
    for (size_t i = 0; i < dst->cap; i++)
        if (dst->tag[i])
            dst->e[i].val = obj[(uintptr_t)dst->e[i].val - 1];
}

/* room for n items (and one more: never a zero-byte allocation) */
#define WM_RESERVE(vec, n) \
    ((vec)->v = xmalloc(((n) + 1) * sizeof *(vec)->v), (vec)->cap = (n) + 1)

bool winmeta_load(Manifest *m)
{
    if (!wm_index.built) {
        wm_index_build();
        wm_types_build();
    }
    Winmeta *wm = &m->wm;
    Arena *a = &m->arena;
    WM_RESERVE(&wm->channels, wm_index.count[WM_CHANNEL]);
    WM_RESERVE(&wm->levels, wm_index.count[WM_LEVEL]);
    WM_RESERVE(&wm->tasks, wm_index.count[WM_TASK]);
    WM_RESERVE(&wm->opcodes, wm_index.count[WM_OPCODE]);
    WM_RESERVE(&wm->keywords, wm_index.count[WM_KEYWORD]);
    WM_RESERVE(&wm->out_types, wm_index.count[WM_OUT_TYPE]);
    WM_RESERVE(&wm->in_types, wm_index.count[WM_IN_TYPE]);
    void *obj[WM_ROWS];
    for (size_t i = 0; i < WM_ROWS; i++) {
        const WmRow *r = &winmeta_rows[i];
        obj[i] = NULL;
        switch (r->kind) {
        case WM_CHANNEL: {
            Channel *c = arena_alloc(a, sizeof *c);
            c->name = c->chid = r->name;
            c->value = (uint8_t)r->value;
            c->has_value = true;
            c->symbol = r->symbol;
            c->builtin_msg = r->message;
            c->builtin_msgid = r->msgid;
            c->builtin = true;
            c->type = r->type;
            vec_push(&wm->channels, c);
            obj[i] = c;
            break;
        }
        case WM_LEVEL: {
            Level *l = arena_alloc(a, sizeof *l);
            wm_named(&l->n, r);
            l->value = (uint8_t)r->value;
            vec_push(&wm->levels, l);
            obj[i] = l;
            break;
        }
        case WM_TASK: {
            Task *t = arena_alloc(a, sizeof *t);
            wm_named(&t->n, r);
            t->value = (uint16_t)r->value;
            vec_push(&wm->tasks, t);
            obj[i] = t;
            break;
        }
        case WM_OPCODE: {
            Opcode *o = arena_alloc(a, sizeof *o);
            wm_named(&o->n, r);
            o->value = (uint8_t)r->value;
            vec_push(&wm->opcodes, o);
            obj[i] = o;
            break;
        }
        case WM_KEYWORD: {
            Keyword *k = arena_alloc(a, sizeof *k);
            wm_named(&k->n, r);
            k->mask = r->value;
            vec_push(&wm->keywords, k);
            obj[i] = k;
            break;
        }
        case WM_OUT_TYPE:
            vec_push(&wm->out_types, (OutType *)type_obj[i]);
            obj[i] = type_obj[i];
            break;
        case WM_IN_TYPE:
            vec_push(&wm->in_types, (InType *)type_obj[i]);
            obj[i] = type_obj[i];
            break;
        case WM_ALLOWED_OUT:
            break;
        }
    }
    wm_map(&wm->channel_by_name, WM_CHANNEL, obj);
    wm_map(&wm->level_by_name, WM_LEVEL, obj);
    wm_map(&wm->task_by_name, WM_TASK, obj);
    wm_map(&wm->opcode_by_name, WM_OPCODE, obj);
    wm_map(&wm->keyword_by_name, WM_KEYWORD, obj);
    wm_map(&wm->out_by_name, WM_OUT_TYPE, obj);
    wm_map(&wm->in_by_name, WM_IN_TYPE, obj);
    return true;
}

const char *winmeta_type_name(bool in, unsigned value)
{
    for (size_t i = 0; i < WM_ROWS; i++) {
        const WmRow *r = &winmeta_rows[i];
        if (r->kind == (in ? WM_IN_TYPE : WM_OUT_TYPE) && r->value == value)
            return in ? r->display : r->name;
    }
    return NULL;
}

const char *winmeta_channel_name(unsigned value)
{
    for (size_t i = 0; i < WM_ROWS; i++)
        if (winmeta_rows[i].kind == WM_CHANNEL && winmeta_rows[i].value == value)
            return winmeta_rows[i].name;
    return NULL;
}

int winmeta_default_out(unsigned in)
{
    if (!wm_index.built)
        wm_index_build();
    for (size_t i = 0; i < WM_ROWS; i++)
        if (winmeta_rows[i].kind == WM_IN_TYPE && winmeta_rows[i].value == in)
            return (int)winmeta_rows[wm_index.out_row[i]].value;
    return -1;
}
#endif
