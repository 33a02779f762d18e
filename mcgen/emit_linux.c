/*
 * emit_linux.c - the header's Linux backends (--backends=etw,lttng,
 * user_events, docs/linux.md): the values of templates/linux.h.j2 (the Linux branch
 * around the ETW header), of templates/lttng_ust.h.j2 (BASE_lttng.h, the
 * LTTng-UST tracepoint provider) and of templates/lttng_probes.c.j2
 * (BASE_lttng.c, which defines the probes in one unit).
 *
 * The write functions take the parameters of the ETW header's macros:
 * each top-level field is passed as the ETW header passes it
 * (header_field_shape: mc's letter, count= and length=, a _Len_), so a
 * call site compiles against both.  What LTTng records is planned here
 * per template ("class": LTTng's TRACEPOINT_EVENT_CLASS) as a list of
 * columns, each one LTTng field: its kind (how the write function stores
 * it and which lttng_ust_field_* records it), its C type, the parameter
 * it comes from and the count of its elements.  The templates spell the
 * C; nothing here depends on a particular manifest.
 *
 * A class takes one pointer to a struct of its columns: LTTng's
 * tracepoints take at most 10 arguments, a template has up to hundreds
 * of fields.
 *
 * With user_events (templates/user_events.h.j2) the same parameters are
 * written as EventHeader events: per template its field definitions (the
 * metadata extension's bytes, made here and written as a C literal) and
 * a column per field saying how the write passes its bytes to writev;
 * per provider its tracepoints, one per level and keyword its events
 * use; per event its tracepoint and the eventheader's numbers.
 */
#include "mcgen.h"
#include "os.h"
#include "tmpl.h"

#include <stdio.h>
#include <string.h>

/* ---- one template's columns ---- */

typedef struct Plan {
    Arena *a;
    TValue *params, *cols;
    Map names; /* the column names used so far (unique within a class) */
    const PtrMap *enums; /* a provider's valueMaps: their enum's number + 1 */
} Plan;

static void plan_param(Plan *p, const char *type, const char *name)
{
    TValue *d = tv_dict(p->a);
    tv_add(p->a, d, "type", tv_strref(p->a, type));
    tv_add(p->a, d, "name", tv_strref(p->a, name));
    tv_push(p->a, p->params, d);
}

/* A column's name: the field's as an identifier, made unique within the
 * class with _2, _3 ... (a struct's members are Struct_Member). */
static const char *plan_name(Plan *p, const char *name)
{
    const char *s = name;
    for (int k = 2; map_get(&p->names, s); k++)
        s = arena_printf(p->a, "%s_%d", name, k);
    map_put(&p->names, s, (void *)s, false);
    return s;
}

/* One column: kind (int, enum, float, filetime, array, seq, text, string,
 * utf16z, utf16, utf16_bytes, sid), the element's C type, hex (shown in hex), the
 * parameter (arg), the element count (len: an expression, for seq, text,
 * utf16 and utf16_bytes; n: a number, for array), and off: the byte offset of a
 * struct member inside its struct's parameter (or none). */
static void plan_col(Plan *p, const char *kind, const char *name, const char *ctype, bool hex,
                     const char *arg, const char *len, long n, long off)
{
    Arena *a = p->a;
    TValue *d = tv_dict(a);
    tv_add(a, d, "kind", tv_strref(a, kind));
    tv_add(a, d, "name", tv_strref(a, plan_name(p, name)));
    tv_add(a, d, "ctype", ctype ? tv_strref(a, ctype) : tv_none(a));
    tv_add(a, d, "hex", tv_bool(a, hex));
    tv_add(a, d, "arg", tv_strref(a, arg));
    tv_add(a, d, "len", len ? tv_strref(a, len) : tv_none(a));
    tv_add(a, d, "n", tv_int(a, n));
    tv_add(a, d, "off", off >= 0 ? tv_int(a, off) : tv_none(a));
    tv_push(a, p->cols, d);
}

/* The C type of a fixed-size element by mc's letter on Linux, and its
 * size in a payload (0: not one). */
static const char *scalar_type(char l, unsigned *size)
{
    static const struct { char l; const char *t; unsigned size; } types[] = {
        {'c', "int8_t", 1},   {'u', "uint8_t", 1},   {'l', "int16_t", 2}, {'h', "uint16_t", 2},
        {'d', "int32_t", 4},  {'q', "uint32_t", 4},  {'i', "int64_t", 8}, {'x', "uint64_t", 8},
        {'f', "float", 4},    {'g', "double", 8},    {'t', "int32_t", 4}, {'j', "GUID", 16},
        {'m', "FILETIME", 8}, {'y', "SYSTEMTIME", 16},
    };
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (types[i].l == l) {
            *size = types[i].size;
            return types[i].t;
        }
    *size = 0;
    return NULL;
}

static bool hex_type(const Field *f)
{
    /* win:HexInt32, win:HexInt64 (mangled as Int32, Int64) */
    const InType *t = field_in_type(f);
    return t && (t->value == 20 || t->value == 21);
}

/* An integer with a valueMap: the column of kind enum names its enum
 * (the provider's enums[k]). */
static void plan_enum(Plan *p, const char *name, const char *ctype, const char *arg, long off,
                      long k)
{
    plan_col(p, "enum", name, ctype, false, arg, NULL, 0, off);
    TValue *col = p->cols->items[p->cols->n - 1];
    tv_add(p->a, col, "enum", tv_strref(p->a, arena_printf(p->a, "mcgen_map_%ld", k)));
}

static const char *hex_unsigned(unsigned size) { return size == 8 ? "uint64_t" : "uint32_t"; }

/* One element (or `count` elements, an expression; NULL: one) of a
 * fixed-size type at arg (+ off when a struct member). */
static void plan_scalar(Plan *p, const Field *f, char l, const char *name, const char *arg,
                        const char *count, long off)
{
    Arena *a = p->a;
    unsigned size;
    const char *t = scalar_type(l, &size);
    if (!count) {
        if (l == 'j')
            plan_col(p, "array", name, "uint8_t", true, arg, NULL, 16, off);
        else if (l == 'y')
            plan_col(p, "array", name, "uint16_t", false, arg, NULL, 8, off);
        else if (l == 'm')
            plan_col(p, "filetime", name, NULL, false, arg, NULL, 0, off);
        else if (l == 'f' || l == 'g')
            plan_col(p, "float", name, t, false, arg, NULL, 0, off);
        else if (f->map && ptrmap_get(p->enums, f->map)) /* a valueMap: LTTng's enum */
            plan_enum(p, name, hex_type(f) ? hex_unsigned(size) : t, arg, off,
                      (long)(intptr_t)ptrmap_get(p->enums, f->map) - 1);
        else /* a hex type is shown as unsigned */
            plan_col(p, "int", name, hex_type(f) ? hex_unsigned(size) : t, hex_type(f), arg, NULL,
                     0, off);
        return;
    }
    /* an array: GUIDs as their bytes, FILETIMEs as 64-bit numbers,
     * SYSTEMTIMEs as their 16-bit members, floats as their bits (LTTng-UST's
     * sequences hold integers only) */
    if (hex_type(f))
        t = hex_unsigned(size);
    const char *et = l == 'j'   ? "uint8_t"
                     : l == 'm' ? "uint64_t"
                     : l == 'y' ? "uint16_t"
                     : l == 'f' ? "uint32_t"
                     : l == 'g' ? "uint64_t"
                                : t;
    const char *per = l == 'j' ? "16 * " : l == 'y' ? "8 * " : "";
    plan_col(p, "seq", name, et, l == 'j' || l == 'f' || l == 'g' || hex_type(f), arg,
             arena_printf(a, "%s(%s)", per, count), 0, -1);
}

/* Whether a struct can be recorded member by member: one element whose
 * members are all fixed-size data without count= (their offsets are
 * known).  Others are recorded as their bytes. */
static bool flattens(const Field *f, const FieldShape *s)
{
    if (!f->is_struct || s->count != QTY_NONE)
        return false;
    for (size_t i = 0; i < f->members.n; i++) {
        const Field *m = f->members.v[i];
        unsigned size;
        if (m->is_struct || !field_in_type(m) || m->qty->count.kind == QTY_FIELD ||
            (m->qty->count.kind == QTY_FIXED && m->qty->count.n > 1) ||
            !scalar_type(field_in_type(m)->mangle, &size))
            return false;
    }
    return f->members.n > 0;
}

static const char *field_ident(Arena *a, const Field *f, size_t i)
{
    return f->name && *f->name ? header_ident_of(a, f->name) : arena_printf(a, "Field%zu", i);
}

/* The names a field's write uses: its parameter (_ArgI), its length
 * parameter (_ArgI_Len_), and its count= as an expression (a number or
 * the parameter of the field it names; NULL: none). */
static const char *field_args(Arena *a, const FieldShape *s, size_t i, const char **arg,
                              const char **len)
{
    *arg = arena_printf(a, "_Arg%zu", i);
    *len = arena_printf(a, "_Arg%zu_Len_", i);
    return s->count == QTY_FIXED   ? arena_printf(a, "%u", s->count_n)
           : s->count == QTY_FIELD ? arena_printf(a, "_Arg%u", s->count_n)
                                   : NULL;
}

/* Field i of a template: its parameters, as the ETW header's macro takes
 * them (emit_header.c's add_field), and its columns. */
static void plan_field(Plan *p, const Field *f, size_t i)
{
    Arena *a = p->a;
    FieldShape s;
    header_field_shape(f, &s);
    char l = s.letter;
    const char *arg, *len, *cnt = field_args(a, &s, i, &arg, &len);
    const char *name = field_ident(a, f, i);
    if (s.takes_len)
        plan_param(p, "unsigned int", len);
    const char *ptype = l == 'z' || l == 'w' ? "const MCGEN_WCHAR*"
                        : l == 's' || l == 'a' ? "const char*"
                                               : "const unsigned char*";
    switch (l) {
    case 'z':
    case 's':
    case 'b': {
        plan_param(p, ptype, arg);
        const char *units = len;
        if (s.count == QTY_NONE && s.length == QTY_NONE && l != 'b') {
            plan_col(p, l == 'z' ? "utf16z" : "string", name, NULL, false, arg, NULL, 0, -1);
            return;
        }
        if (!s.takes_len) {
            const char *each = s.length == QTY_FIXED ? arena_printf(a, "%u", s.length_n)
                                                     : arena_printf(a, "_Arg%u", s.length_n);
            units = cnt ? arena_printf(a, "(%s) * (%s)", cnt, each) : each;
        }
        /* a list of NUL-terminated strings (count= without length=) as
         * its bytes (UTF-8 for UTF-16): text would end at the first NUL */
        bool packed = s.takes_len && l != 'b';
        plan_col(p, l == 'z' ? (packed ? "utf16_bytes" : "utf16") : l == 's' && !packed ? "text" : "seq",
                 name, l == 'b' || packed ? "uint8_t" : NULL, l == 'b', arg, units, 0, -1);
        return;
    }
    case 'w':
    case 'a':
    case 'e':
        plan_param(p, ptype, arg);
        if (s.count == QTY_NONE)
            plan_col(p, l == 'w' ? "utf16" : l == 'a' ? "text" : "seq", name,
                     l == 'e' ? "uint8_t" : NULL, l == 'e', arg, len, 0, -1);
        else /* the caller packed each item with its size: the bytes */
            plan_col(p, "seq", name, "uint8_t", true, arg,
                     arena_printf(a, "%s%s", l == 'w' ? "2 * " : "", len), 0, -1);
        return;
    case 'k':
        if (s.count == QTY_NONE) {
            plan_param(p, "const SID*", arg);
            plan_col(p, "sid", name, "uint8_t", true, arg, NULL, 0, -1);
        } else {
            plan_param(p, "const unsigned char*", arg);
            plan_col(p, "seq", name, "uint8_t", true, arg, len, 0, -1);
        }
        return;
    case 'n':
        plan_param(p, "const void*", arg);
        if (flattens(f, &s)) {
            long off = 0;
            for (size_t k = 0; k < f->members.n; k++) {
                const Field *m = f->members.v[k];
                unsigned size;
                scalar_type(field_in_type(m)->mangle, &size);
                const char *mn = arena_printf(a, "%s_%s", name, field_ident(a, m, k));
                plan_scalar(p, m, field_in_type(m)->mangle, mn, arg, NULL, off);
                off += size;
            }
            return;
        }
        /* the bytes, as ETW gets them: _Len_ is one element's size when
         * all have the same size */
        plan_col(p, "seq", name, "uint8_t", true, arg,
                 cnt && s.members_fixed ? arena_printf(a, "(%s) * %s", cnt, len) : len, 0, -1);
        return;
    case 'p':
        if (!cnt) {
            plan_param(p, "const void*", arg);
            plan_col(p, "int", name, "uintptr_t", true, arg, NULL, 0, -1);
        } else {
            plan_param(p, "const void**", arg);
            plan_col(p, "seq", name, "uintptr_t", true, arg, cnt, 0, -1);
        }
        return;
    default: {
        unsigned size;
        const char *t = scalar_type(l, &size);
        if (!t) /* cannot happen: winmeta gives every inType a letter */
            t = "uint8_t";
        bool by_ptr = cnt || l == 'j' || l == 'm' || l == 'y';
        plan_param(p, by_ptr ? arena_printf(a, "const %s*", t) : arena_printf(a, "const %s", t), arg);
        plan_scalar(p, f, l, name, arg, cnt, -1);
        return;
    }
    }
}

/* ---- user_events: one template's EventHeader fields ---- */

/* The EventHeader field encodings and formats (LinuxTracepoints'
 * eventheader.h, docs/linux.md's table says which manifest type takes
 * which): the encoding byte's low 5 bits, its flags, the format byte. */
enum {
    UE_STRUCT = 1, UE_VALUE8, UE_VALUE16, UE_VALUE32, UE_VALUE64, UE_VALUE128, UE_ZCHAR8,
    UE_ZCHAR16, UE_LEN8 = 10, UE_LEN16, UE_BIN8 = 13,
    UE_CARRAY = 0x20, UE_VARRAY = 0x40, UE_CHAIN = 0x80
};
enum {
    UF_UNSIGNED = 1, UF_SIGNED, UF_HEX, UF_PID = 5, UF_TIME, UF_BOOL, UF_FLOAT, UF_HEXBYTES,
    UF_UTF = 11, UF_XML = 13, UF_JSON, UF_UUID, UF_PORT, UF_IP
};

/* An EventHeader struct holds at most 127 fields (the format byte's 7
 * bits); an extension block at most 65,535 bytes (its u16 size). */
#define UE_STRUCT_MAX 127
#define UE_EXTENSION_MAX 65535

typedef struct UePlan {
    Arena *a;
    Buf meta;       /* the field definitions of the metadata extension */
    TValue *cols;   /* how the write function passes each field's bytes */
    unsigned slots; /* the u16 counts and lengths it writes */
    unsigned iovs;  /* the iovecs its fields take */
    unsigned mems;  /* the blocks it allocates */
} UePlan;

/* One field definition: name (';' is the metadata's separator, so '_'),
 * encoding with the chain flag and array flag, format, and a constant
 * array's count. */
static void ue_def(UePlan *u, const char *name, unsigned enc, unsigned fmt, char array,
                   unsigned n)
{
    for (const char *p = name; *p; p++)
        buf_addc(&u->meta, *p == ';' ? '_' : *p);
    buf_addc(&u->meta, 0);
    buf_addc(&u->meta, (char)(enc | UE_CHAIN | (array == 'c' ? UE_CARRAY : 0) |
                              (array == 'v' ? UE_VARRAY : 0)));
    buf_addc(&u->meta, (char)fmt);
    if (array == 'c') {
        buf_addc(&u->meta, (char)(n & 0xFF));
        buf_addc(&u->meta, (char)(n >> 8));
    }
}

/* The format an outType asks for, when the encoding can show it
 * (docs/linux.md); else dflt. */
static unsigned ue_out_format(const Field *f, unsigned enc, unsigned dflt)
{
    const OutType *o = field_out_type(f);
    if (f->map && f->map->kind != MAP_VALUE)
        return enc <= UE_VALUE64 ? UF_HEX : dflt; /* a bitMap: its bits */
    if (!o)
        return dflt;
    switch (o->value) {
    case 13: /* xs:boolean */
        return enc <= UE_VALUE32 ? UF_BOOL : dflt;
    case 15: case 16: case 17: case 18: case 19: /* xs:hexBinary, win:HexInt8..64 */
    case 29: case 31: case 32: /* win:ErrorCode, win:NTSTATUS, win:HResult */
        return enc <= UE_VALUE64 ? UF_HEX : dflt;
    case 20: case 21: /* win:PID, win:TID */
        return enc == UE_VALUE32 ? UF_PID : dflt;
    case 22: /* win:Port, network byte order as ETW's */
        return enc == UE_VALUE16 ? UF_PORT : dflt;
    case 23: /* win:IPv4 */
        return enc == UE_VALUE32 ? UF_IP : dflt;
    case 24: /* win:IPv6: a binary of 16 bytes */
        return enc == UE_BIN8 ? UF_IP : dflt;
    case 28: /* win:Xml */
        return enc == UE_ZCHAR8 || enc == UE_ZCHAR16 || enc == UE_LEN8 || enc == UE_LEN16 ? UF_XML : dflt;
    case 34: /* win:Json */
        return enc == UE_ZCHAR8 || enc == UE_ZCHAR16 || enc == UE_LEN8 || enc == UE_LEN16 ? UF_JSON : dflt;
    default:
        return dflt;
    }
}

/* The encoding and format of one element of a fixed-size type by mc's
 * letter (a SYSTEMTIME is a struct: ue_scalar_def). */
static void ue_scalar_type(const Field *f, char l, unsigned *enc, unsigned *fmt)
{
    static const struct { char l; unsigned enc, fmt; } types[] = {
        {'c', UE_VALUE8, UF_SIGNED},   {'u', UE_VALUE8, UF_UNSIGNED},  {'l', UE_VALUE16, UF_SIGNED},
        {'h', UE_VALUE16, UF_UNSIGNED}, {'d', UE_VALUE32, UF_SIGNED},  {'q', UE_VALUE32, UF_UNSIGNED},
        {'i', UE_VALUE64, UF_SIGNED},  {'x', UE_VALUE64, UF_UNSIGNED}, {'f', UE_VALUE32, UF_FLOAT},
        {'g', UE_VALUE64, UF_FLOAT},   {'t', UE_VALUE32, UF_BOOL},     {'j', UE_VALUE128, UF_UUID},
        {'m', UE_VALUE64, UF_TIME},    {'p', UE_VALUE64, UF_HEX},
    };
    *enc = UE_VALUE8, *fmt = UF_HEXBYTES;
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (types[i].l == l)
            *enc = types[i].enc, *fmt = types[i].fmt;
    if (hex_type(f))
        *fmt = UF_HEX;
    else if (l != 'j' && l != 'm' && l != 'f' && l != 'g')
        *fmt = ue_out_format(f, *enc, *fmt);
}

/* The definition of a fixed-size element (with array and count: of an
 * array of them); a SYSTEMTIME as a struct of its eight 16-bit members. */
static void ue_scalar_def(UePlan *u, const Field *f, char l, const char *name, char array,
                          unsigned n)
{
    if (l == 'y') {
        static const char *const parts[] = {"wYear", "wMonth", "wDayOfWeek", "wDay",
                                            "wHour", "wMinute", "wSecond", "wMilliseconds"};
        ue_def(u, name, UE_STRUCT, 8, array, n);
        for (size_t k = 0; k < 8; k++)
            ue_def(u, parts[k], UE_VALUE16, UF_UNSIGNED, 0, 0);
        return;
    }
    unsigned enc, fmt;
    ue_scalar_type(f, l, &enc, &fmt);
    ue_def(u, name, enc, fmt, array, n);
}

/* One column: kind (val, ptr, ptrs, zs, zlist, len, sid), the parameter,
 * the element's size (unit), array ('c', 'v' or none) and its count (an
 * expression; n when a number), the count of bytes or units for len and
 * zlist (units), byval (the parameter is the value, not a pointer to
 * it), and fix: the values the write function converts, (offset, letter)
 * pairs in each element (McGenUeFix: a GUID to RFC 4122's byte order, a
 * FILETIME to seconds since 1970), into a local array (bytes, when its
 * size is known and small) or a block it allocates (mem). */
static void ue_col(UePlan *u, const char *kind, const char *arg, unsigned unit, char array,
                   const char *count, unsigned n, const char *units, bool byval, TValue *fix)
{
    Arena *a = u->a;
    TValue *d = tv_dict(a);
    bool slot = array == 'v' || !strcmp(kind, "len") || !strcmp(kind, "sid");
    bool local = fix && array != 'v' && (uint64_t)unit * n <= 1024;
    tv_add(a, d, "kind", tv_strref(a, kind));
    tv_add(a, d, "arg", tv_strref(a, arg));
    tv_add(a, d, "unit", tv_int(a, unit));
    tv_add(a, d, "array", tv_strref(a, array == 'c' ? "c" : array == 'v' ? "v" : ""));
    tv_add(a, d, "count", count ? tv_strref(a, count) : tv_none(a));
    tv_add(a, d, "units", units ? tv_strref(a, units) : tv_none(a));
    tv_add(a, d, "byval", tv_bool(a, byval));
    tv_add(a, d, "slot", slot ? tv_int(a, u->slots++) : tv_none(a));
    tv_add(a, d, "fixups", fix ? fix : tv_none(a));
    tv_add(a, d, "bytes", tv_int(a, local ? (int64_t)unit * n : 0));
    bool mem = (fix && !local) || !strcmp(kind, "ptrs");
    tv_add(a, d, "mem", mem ? tv_int(a, u->mems++) : tv_none(a));
    u->iovs += slot ? 2 : 1;
    tv_push(a, u->cols, d);
}

static void ue_fix(Arena *a, TValue *list, long off, char l)
{
    tv_push(a, list, tv_int(a, off));
    tv_push(a, list, tv_int(a, l));
}

static const char *ue_name(Arena *a, const Field *f, size_t i)
{
    return f->name && *f->name ? f->name : arena_printf(a, "Field%zu", i);
}

/* Field i of a template: its definition in the metadata and its column
 * (the parameters are plan_field's, the ETW header's). */
static void ue_field(UePlan *u, const Field *f, size_t i)
{
    Arena *a = u->a;
    FieldShape s;
    header_field_shape(f, &s);
    char l = s.letter;
    const char *arg, *len, *cnt = field_args(a, &s, i, &arg, &len);
    const char *name = ue_name(a, f, i);
    char array = s.count == QTY_FIXED ? 'c' : s.count == QTY_FIELD ? 'v' : 0;
    unsigned fixed_n = s.count == QTY_FIXED ? s.count_n : 1;
    switch (l) {
    case 'z':
    case 's':
    case 'b': {
        unsigned unit = l == 'z' ? 2 : 1, z = l == 'z' ? UE_ZCHAR16 : UE_ZCHAR8;
        if (s.count == QTY_NONE && s.length == QTY_NONE && l != 'b') {
            ue_col(u, "zs", arg, unit, 0, NULL, 0, NULL, false, NULL);
            ue_def(u, name, z, ue_out_format(f, z, UF_UTF), 0, 0);
            return;
        }
        if (s.takes_len && l != 'b') {
            /* count= without length=: that many NUL-terminated strings,
             * packed: an array of them */
            ue_col(u, "zlist", arg, unit, array, cnt, 0, len, false, NULL);
            ue_def(u, name, z, ue_out_format(f, z, UF_UTF), array, s.count_n);
            return;
        }
        const char *units = len;
        if (!s.takes_len) {
            const char *each = s.length == QTY_FIXED ? arena_printf(a, "%u", s.length_n)
                                                     : arena_printf(a, "_Arg%u", s.length_n);
            units = cnt ? arena_printf(a, "(%s) * (%s)", cnt, each) : each;
        }
        unsigned enc = l == 'b' ? UE_BIN8 : l == 'z' ? UE_LEN16 : UE_LEN8;
        ue_col(u, "len", arg, unit, 0, NULL, 0, units, false, NULL);
        ue_def(u, name, enc, ue_out_format(f, enc, l == 'b' ? UF_HEXBYTES : UF_UTF), 0, 0);
        return;
    }
    case 'w':
    case 'a':
    case 'e':
        if (s.count == QTY_NONE) {
            unsigned enc = l == 'w' ? UE_LEN16 : l == 'a' ? UE_LEN8 : UE_BIN8;
            ue_col(u, "len", arg, l == 'w' ? 2 : 1, 0, NULL, 0, len, false, NULL);
            ue_def(u, name, enc, ue_out_format(f, enc, l == 'e' ? UF_HEXBYTES : UF_UTF), 0, 0);
        } else { /* the caller packed each item with its size: the bytes */
            ue_col(u, "len", arg, 1, 0, NULL, 0, arena_printf(a, "%s%s", l == 'w' ? "2 * " : "", len),
                   false, NULL);
            ue_def(u, name, UE_BIN8, UF_HEXBYTES, 0, 0);
        }
        return;
    case 'k':
        ue_col(u, s.count == QTY_NONE ? "sid" : "len", arg, 1, 0, NULL, 0, len, false, NULL);
        ue_def(u, name, UE_BIN8, UF_HEXBYTES, 0, 0);
        return;
    case 'n':
        /* member by member as LTTng's (flattens), when a struct can say it */
        if (flattens(f, &s) && f->members.n <= UE_STRUCT_MAX) {
            TValue *fix = tv_list(a);
            unsigned off = 0;
            for (size_t k = 0; k < f->members.n; k++) {
                unsigned size;
                char ml = field_in_type(f->members.v[k])->mangle;
                scalar_type(ml, &size);
                if (ml == 'j' || ml == 'm')
                    ue_fix(a, fix, off, ml);
                off += size;
            }
            ue_col(u, "val", arg, off, array, cnt, fixed_n, NULL, false, fix->n ? fix : NULL);
            ue_def(u, name, UE_STRUCT, (unsigned)f->members.n, array, s.count_n);
            for (size_t k = 0; k < f->members.n; k++) {
                const Field *m = f->members.v[k];
                ue_scalar_def(u, m, field_in_type(m)->mangle, ue_name(a, m, k), 0, 0);
            }
            return;
        }
        /* the bytes, as ETW gets them: _Len_ is one element's size when
         * all have the same size */
        ue_col(u, "len", arg, 1, 0, NULL, 0,
               cnt && s.members_fixed ? arena_printf(a, "(%s) * %s", cnt, len) : len, false, NULL);
        ue_def(u, name, UE_BIN8, UF_HEXBYTES, 0, 0);
        return;
    case 'p': /* as 64 bits on any host */
        ue_col(u, cnt ? "ptrs" : "ptr", arg, 8, array, cnt, fixed_n, NULL, false, NULL);
        ue_scalar_def(u, f, l, name, array, s.count_n);
        return;
    default: {
        unsigned size;
        if (!scalar_type(l, &size)) /* cannot happen: winmeta gives every inType a letter */
            l = 'u', size = 1;
        bool byval = !cnt && l != 'j' && l != 'm' && l != 'y';
        TValue *fix = NULL;
        if (l == 'j' || l == 'm')
            ue_fix(a, fix = tv_list(a), 0, l);
        ue_col(u, "val", arg, size, array, cnt, fixed_n, NULL, byval, fix);
        ue_scalar_def(u, f, l, name, array, s.count_n);
        return;
    }
    }
}

/* The bytes as a C string literal: printable ASCII as itself, any other
 * byte as a three-digit octal escape (a digit after it is not read into
 * it); '?' escaped against trigraphs. */
static const char *ue_literal(Arena *a, const char *p, size_t n)
{
    Buf b = {0};
    buf_addc(&b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\' && c != '?')
            buf_addc(&b, (char)c);
        else
            buf_printf(&b, "\\%03o", c);
    }
    buf_addc(&b, '"');
    const char *s = arena_printf(a, "%s", b.s);
    buf_free(&b);
    return s;
}

/* The user_events plan of one template: ue_meta (the literal of its
 * field definitions), ue_meta_len, ue_cols, ue_slots, ue_iovs, ue_mems. */
static void ue_class(Arena *a, TValue *cd, const Layout *l)
{
    UePlan u = {a, {0}, tv_list(a), 0, 4, 0};
    for (size_t i = 0; l && i < l->fields.n; i++)
        ue_field(&u, l->fields.v[i], i);
    tv_add(a, cd, "ue_meta", tv_strref(a, ue_literal(a, u.meta.s ? u.meta.s : "", u.meta.len)));
    tv_add(a, cd, "ue_meta_len", tv_int(a, (int64_t)u.meta.len));
    tv_add(a, cd, "ue_cols", u.cols);
    tv_add(a, cd, "ue_slots", tv_int(a, u.slots));
    tv_add(a, cd, "ue_iovs", tv_int(a, u.iovs));
    tv_add(a, cd, "ue_mems", tv_int(a, u.mems));
    buf_free(&u.meta);
}

/* ---- a provider ---- */

/* The manifest's level as LTTng's log level: the five Windows levels by
 * meaning, LogAlways (0) as EMERG (every filter takes it), a provider's
 * own levels (16 and up) as DEBUG. */
static const char *lttng_level(unsigned level)
{
    static const char *const by_level[] = {"EMERG", "CRIT", "ERR", "WARNING", "INFO", "DEBUG_LINE"};
    return level < 6 ? by_level[level] : "DEBUG";
}

static void guid_text(char out[40], const Guid *g)
{
    snprintf(out, 40, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x", g->d1, g->d2, g->d3,
             g->d4[0], g->d4[1], g->d4[2], g->d4[3], g->d4[4], g->d4[5], g->d4[6], g->d4[7]);
}

/* The tracepoint of an event: one per level and keyword of a provider
 * (EventHeader's "ProviderName_L<level>K<keyword>", both lowercase hex;
 * the provider name as an identifier, as LTTng's), its index in tps[]
 * {name, command: the DIAG_IOCSREG string}. */
static long ue_tracepoint(Arena *a, TValue *tps, const char *provider, unsigned level,
                          uint64_t keyword)
{
    const char *name = arena_printf(a, "%s_L%xK%llx", provider, level, (unsigned long long)keyword);
    for (size_t i = 0; i < tps->n; i++)
        if (!strcmp(tv_get(tps->items[i], "name")->s, name))
            return (long)i;
    TValue *d = tv_dict(a);
    tv_add(a, d, "name", tv_strref(a, name));
    tv_add(a, d, "command",
           tv_strref(a, arena_printf(a, "%s u8 eventheader_flags; u8 version; u16 id; u16 tag; "
                                        "u8 opcode; u8 level", name)));
    tv_push(a, tps, d);
    return (long)tps->n - 1;
}

/* What an event's write needs besides its template's plan (name: its symbol): ue_tp (its
 * tracepoint), ue_name (the literal of its name and NUL, the metadata's
 * start), ue_name_len (0: no metadata extension, when it would pass
 * 65,535 bytes), and the header's numbers: id, version, opcode, level, and
 * the task as the tag. */
static void ue_event(Arena *a, TValue *ed, const Event *e, const char *name, TValue *tps,
                     const char *provider, int64_t meta_len)
{
    unsigned level = e->level ? e->level->value : 0;
    tv_add(a, ed, "ue_tp", tv_int(a, ue_tracepoint(a, tps, provider, level,
                                                   event_descriptor_keyword(e))));
    size_t n = strlen(name) + 1;
    tv_add(a, ed, "ue_name", tv_strref(a, ue_literal(a, name, n)));
    tv_add(a, ed, "ue_name_len", tv_int(a, (int64_t)n + meta_len > UE_EXTENSION_MAX ? 0 : (int64_t)n));
    tv_add(a, ed, "ue_id", tv_int(a, e->value));
    tv_add(a, ed, "ue_version", tv_int(a, e->version));
    tv_add(a, ed, "ue_opcode", tv_int(a, e->opcode ? e->opcode->value : 0u));
    tv_add(a, ed, "ue_level", tv_int(a, level));
    tv_add(a, ed, "ue_tag", tv_int(a, e->task ? e->task->value : 0u));
}

/* The plan of one provider: name (LTTng's provider: the provider name as
 * an identifier), classes[] and events[] (parallel to the header's). */
static TValue *provider_values(Arena *a, const Provider *pv, const Facts *f, bool ue)
{
    TValue *d = tv_dict(a), *classes = tv_list(a), *events = tv_list(a);
    const char *name = header_ident(a, pv->name);
    tv_add(a, d, "name", tv_strref(a, name));
    /* the valueMaps as LTTng enums: each item's label is its message
     * (the first culture's), else its symbol, else its value */
    PtrMap enums = {0};
    TValue *maps = tv_list(a);
    for (size_t i = 0; i < pv->maps.n; i++) {
        const ValueMap *vm = pv->maps.v[i];
        if (vm->kind != MAP_VALUE || !vm->items.n)
            continue;
        TValue *md = tv_dict(a), *items = tv_list(a);
        tv_add(a, md, "name", tv_strref(a, arena_printf(a, "mcgen_map_%zu", maps->n)));
        tv_add(a, md, "map", tv_strref(a, vm->name));
        for (size_t j = 0; j < vm->items.n; j++) {
            const MapItem *it = vm->items.v[j];
            const String *text = it->msg.text ? it->msg.text[0] : NULL;
            TValue *id = tv_dict(a);
            tv_add(a, id, "label",
                   tv_strref(a, text ? text->value
                                : it->symbol && *it->symbol ? it->symbol
                                                            : arena_printf(a, "%u", it->value)));
            tv_add(a, id, "value", tv_int(a, it->value));
            tv_push(a, items, id);
        }
        tv_add(a, md, "items", items);
        tv_push(a, maps, md);
        ptrmap_put(&enums, vm, (void *)(intptr_t)maps->n);
    }
    tv_add(a, d, "maps", maps);
    PtrMap by_layout = {0};
    long none = -1;
    TValue *tps = tv_list(a);
    char guid[40];
    guid_text(guid, &pv->guid);
    for (size_t j = 0; j < pv->events.n; j++) {
        const Event *e = pv->events.v[j];
        TValue *ed = tv_dict(a);
        tv_add(a, ed, "logged", tv_bool(a, !e->not_logged));
        tv_push(a, events, ed);
        if (e->not_logged)
            continue;
        /* the event's class: its template's, made for its first event */
        void *known = e->layout ? ptrmap_get(&by_layout, e->layout) : (none >= 0 ? &none : NULL);
        long k = known ? (long)(known == &none ? none : (intptr_t)known - 1) : (long)classes->n;
        if (!known) {
            Plan p = {a, tv_list(a), tv_list(a), {0}, &enums};
            const Layout *l = e->layout;
            for (size_t i = 0; l && i < l->fields.n; i++)
                plan_field(&p, l->fields.v[i], i);
            map_free(&p.names);
            TValue *cd = tv_dict(a);
            tv_add(a, cd, "struct", tv_strref(a, arena_printf(a, "McGenLttng_%s_%ld", name, k)));
            tv_add(a, cd, "cls", tv_strref(a, arena_printf(a, "mcgen_class_%ld", k)));
            tv_add(a, cd, "tid", tv_strref(a, l ? l->tid : "(none)"));
            tv_add(a, cd, "params", p.params);
            tv_add(a, cd, "cols", p.cols);
            if (ue)
                ue_class(a, cd, l);
            tv_push(a, classes, cd);
            if (l)
                ptrmap_put(&by_layout, l, (void *)(intptr_t)(k + 1));
            else
                none = k;
        }
        unsigned level = e->level ? e->level->value : 0;
        tv_add(a, ed, "symbol", tv_strref(a, facts_event_name(f, pv, j)));
        tv_add(a, ed, "class", tv_int(a, k));
        tv_add(a, ed, "loglevel", tv_strref(a, lttng_level(level)));
        /* what the manifest says of the event, for consumers: in the
         * trace's metadata (model.emf.uri) */
        tv_add(a, ed, "uri",
               tv_strref(a, arena_printf(a,
                                         "etw:provider={%s};id=%u;version=%u;channel=%u;level=%u;"
                                         "opcode=%u;task=%u;keyword=0x%llx",
                                         guid, e->value, e->version,
                                         event_descriptor_channel(e, pv), level,
                                         e->opcode ? e->opcode->value : 0u,
                                         e->task ? e->task->value : 0u,
                                         (unsigned long long)event_descriptor_keyword(e))));
        if (ue)
            ue_event(a, ed, e, facts_event_name(f, pv, j), tps, name, tv_get(classes->items[k], "ue_meta_len")->i);
    }
    ptrmap_free(&by_layout);
    ptrmap_free(&enums);
    tv_add(a, d, "classes", classes);
    tv_add(a, d, "events", events);
    tv_add(a, d, "tracepoints", tps);
    return d;
}

/* ---- the files ---- */

const char *linux_lttng_path(Arena *a, const char *header, bool source)
{
    const char *base = os_last_sep(header);
    base = base ? base + 1 : header;
    const char *dot = strrchr(base, '.');
    int stem = (int)(dot ? (size_t)(dot - header) : strlen(header));
    return arena_printf(a, "%.*s_lttng.%s", stem, header, source ? "c" : "h");
}

static const char *file_name(const char *path)
{
    const char *s = os_last_sep(path);
    return s ? s + 1 : path;
}

static const char *const part_templates[] = {"linux.h.j2", "linux.h.j2", "lttng_ust.h.j2",
                                             "lttng_probes.c.j2"};

bool linux_build(const EmitCtx *c, LinuxPart part, const TmplSink *out)
{
    Arena a = {0};
    const Options *o = c->o;
    TValue *vars = header_values(c->m, c->facts, o, &a);
    const char *tp = linux_lttng_path(&a, c->names.header, false);
    const char *src = linux_lttng_path(&a, c->names.header, true);
    bool lttng = o->backends & BACKEND_LTTNG, ue = o->backends & BACKEND_USER_EVENTS;
    tv_add(&a, vars, "logging", tv_bool(&a, o->mode == HEADER_UM));
    tv_add(&a, vars, "part", tv_strref(&a, part == LINUX_BEGIN ? "begin" : "end"));
    tv_add(&a, vars, "backends",
           tv_strref(&a, arena_printf(&a, "etw%s%s", lttng ? ",lttng" : "",
                                      ue ? ",user_events" : "")));
    tv_add(&a, vars, "lttng", tv_bool(&a, lttng));
    tv_add(&a, vars, "user_events", tv_bool(&a, ue));
    tv_add(&a, vars, "tp_header", tv_strref(&a, file_name(tp)));
    tv_add(&a, vars, "tp_source", tv_strref(&a, file_name(src)));
    tv_add(&a, vars, "guard", tv_strref(&a, header_ident(&a, file_name(tp))));
    TValue *list = tv_list(&a);
    for (size_t i = 0; i < c->m->providers.n; i++)
        tv_push(&a, list, provider_values(&a, c->m->providers.v[i], c->facts, ue));
    tv_add(&a, vars, "linux", list);
    bool ok = render_named(c->tf, part_templates[part], vars, out);
    arena_free(&a);
    return ok;
}
