/*
 * mcgen.h - the table of contents of the compiler, every file in pipeline
 * order (main.c runs them in this order: read -> check -> emit -> commit).
 *
 *   the driver and what every stage uses
 *     main.c          the pipeline: command line, read, check, emit, commit
 *     cli.c           the command line as one table of options; mc's output names
 *     diag.c          diagnostics: file:line:col: error: [MCGnnnn] message, caret
 *     util.[ch]       domain-free helpers: allocation, arena, Buf, maps, UTF-8/16
 *     jsonw.[ch]      the one JSON writer (--json, diagnostics documents, tojson)
 *     tmpl.[ch]       the template engine, over generic values (TValue)
 *   read: bytes -> a raw model (nothing resolved)
 *     read.c          the reader table: which reader takes an input
 *     read_man.c      the .man reader: XML events -> model
 *     xml.c           expat with namespaces, positions, records
 *     codepages.c     windows-874 and windows-1250..1258 for expat (generated)
 *     schema.c        the structural check: schema/eventman.xsd, interpreted
 *     winmeta.c       the built-in win: definitions (schema/winmeta.xml)
 *     read_wevt.c     a TEMP.BIN read back strictly, whole (--check-wevt, --dump)
 *     read_msgtable.c a message table read back strictly
 *     read_res.c      a .res file's resources (--dump, --decompile)
 *     read_pe.c       a PE image's resources (--dump, --decompile)
 *   check: raw model -> checked model + Facts; every manifest diagnostic
 *     check.c         the stage, in order:
 *     check_resolve.c   every reference resolved
 *     check_rules.c     the semantic rules (names, values, channels, symbols)
 *     check_payload.c   the rules of templates, messages and strings
 *     culture.c         culture names -> Windows language ids ([MS-LCID])
 *     check_msgid.c     mc's message ids
 *     check_names.c     the C header's names and their clashes
 *     check_facts.c     Facts, and values that are functions of the model
 *   emit: checked model -> output files, nothing changed, nothing diagnosed
 *     emit.c          the emitter table; text encodings of the outputs
 *     emit_header.c   the C header's values, rendered from templates/header.h.j2
 *     emit_linux.c    the header's Linux backends (LTTng, no-op), LTTng's files
 *     emit_rc.c       the resource script (templates/rc.j2)
 *     emit_msgtable.c a culture's message table (MSG00001.bin)
 *     emit_wevt.c     the WEVT_TEMPLATE resource (TEMP.BIN)
 *     emit_json.c     the model walk: --json, and the values of templates
 *     emit_render.c   --render: user templates against the model
 *     finder.c        where templates come from (built in, --templates, beside)
 *   binaries: what read.c's binary rows read (a BinImage) -> text
 *     dump.c          --dump: a listing, or JSON in the JSON model's vocabulary
 *     decompile.c     --decompile: a manifest that compiles back to the binaries
 *   commit
 *     out.c           the outputs of a run, committed together only on success
 *
 * The sections below follow the order the types need (the model comes
 * early, the options before the tables that take them); each names its
 * file.
 */
#ifndef MCGEN_H
#define MCGEN_H

#include "jsonw.h"
#include "tmpl.h"
#include "util.h"

/* ======================================================================
 * diag.c
 * ==================================================================== */

/* A position.  The file is a number (diag_file), not a name pointer: a
 * large manifest's model holds millions of positions, and 12 bytes pack
 * beside 32-bit members where 16 did not. */
typedef struct Loc {
    uint32_t file;      /* diag_file's number; 0: no position */
    uint32_t line, col; /* 1-based */
} Loc;

/* An attribute's position, relative to its element's Loc, in 4 bytes
 * where a Loc takes 12: an event has six, a field three.  Nearly every
 * attribute sits on its element's line or a few lines below, so:
 *   v == 0                 the element's own position (attribute absent);
 *   bit 31 clear           the element's line, column v;
 *   bits 31..30 == 10      line + bits 29..24 (1..63), column bits 23..0;
 *   bits 31..30 == 11      any other: entry bits 29..0 of a side table
 *                          (pos_far, read_man.c). */
typedef struct Pos {
    uint32_t v;
} Pos;
/* The Loc of a Pos whose entry is in the side table. */
Loc pos_far(Loc in, uint32_t v);
/* `pos` of the element at `in` (the Loc `pos` was made against). */
static inline Loc loc_in(Loc in, Pos pos)
{
    uint32_t v = pos.v;
    if (v == 0)
        return in;
    if (!(v >> 31))
        return (Loc){in.file, in.line, v};
    if (!(v >> 30 & 1))
        return (Loc){in.file, in.line + (v >> 24 & 63), v & 0xffffff};
    return pos_far(in, v);
}

/* The number of a file name, for Loc.file: the same name has the same
 * number for the whole process (diag_reset keeps them); NULL gives 0. */
uint32_t diag_file(const char *name);
/* The name of a Loc.file; NULL for 0. */
const char *diag_file_name(uint32_t file);

typedef enum { DIAG_NOTE, DIAG_WARNING, DIAG_ERROR } DiagLevel;

/* Stable diagnostic codes, [MCGnnnn] (mcgen/diagcodes.def). */
typedef enum {
    D_NONE = 0, /* an uncoded diagnostic: notes, command line, I/O */
#define DIAG_CODE(num, id, name, lvl, summary) id = num,
#include "diagcodes.def"
#undef DIAG_CODE
} DiagCode;

typedef struct DiagCodeInfo {
    DiagCode code;
    const char *name;    /* -Wno-<name> */
    DiagLevel level;     /* default level */
    const char *summary; /* one line */
} DiagCodeInfo;

/* Every code, in number order, ending with {0}. */
extern const DiagCodeInfo diag_codes[];
const DiagCodeInfo *diag_code_info(DiagCode code);
const DiagCodeInfo *diag_code_by_name(const char *name);

/* A coded diagnostic at `loc`, at the code's level (after -Werror and
 * -Wno-: a suppressed warning prints nothing). */
void diag_c(DiagCode code, Loc loc, const char *fmt, ...) PRINTF_LIKE(3, 4);
void diag_vc(DiagCode code, Loc loc, const char *fmt, va_list ap);
/* The same, naming a second place: the message is followed by
 * " (<what> at file:line:col)", and SARIF gets a related location.
 * E.g. what = "first defined". */
void diag_ex(DiagCode code, Loc loc, Loc related, const char *what, const char *fmt, ...)
    PRINTF_LIKE(5, 6);
/* "file:line:col" of a position (into a static buffer, for messages). */
const char *diag_loc_text(Loc loc);

/* Warning controls (command line): -Werror makes every warning an error;
 * -Werror=<name> one; -Wno-<name> silences one; <name> is the code's name
 * or "MCGnnnn".  false: no warning has that name. */
void diag_warnings_as_errors(bool on);
bool diag_set_warning(const char *name, bool enabled, bool as_error);
int diag_warning_count(void);
/* Problems of the environment (unreadable input, unwritable output):
 * counted apart so that main can exit 2 instead of 1. */
void diag_io(const char *fmt, ...) PRINTF_LIKE(1, 2);
int diag_io_count(void);

/* Makes `bytes` the text shown for `file` in caret lines (copied).  Files
 * not registered are re-read from disk when a diagnostic needs a line. */
void diag_register_source(const char *file, const void *bytes, size_t len);
/* The same without a copy: `bytes` (from malloc, room for len + 1) is
 * the diagnostics' from now on, valid until diag_reset. */
void diag_adopt_source(const char *file, char *bytes, size_t len);
/* Where diagnostics go: stderr by default; a Buf when capturing (tests). */
void diag_set_capture(Buf *b);
void diag_at(DiagLevel lvl, Loc loc, const char *fmt, ...) PRINTF_LIKE(3, 4);
void diag_vat(DiagLevel lvl, Loc loc, const char *fmt, va_list ap);
/* An error already formatted as "file:line:col: error: message" (the
 * template engine's): printed as it is, or recorded for the document;
 * counted as an I/O problem (a template is no part of the manifest). */
void diag_formatted(const char *text);
/* A diagnostic with no position: "mcgen: error: ..." */
void diag_plain(DiagLevel lvl, const char *fmt, ...) PRINTF_LIKE(2, 3);
int diag_error_count(void);
/* "N errors, M warnings" on stderr after a run in the text format that
 * had any (notes are not counted; a count of 0 is left out: "1 error"). */
void diag_summary(void);
/* In the text format, at most n diagnostics of one code are printed (0:
 * all); diag_summary names how many more there were, per code. */
#define DIAG_LIMIT_DEFAULT 100
void diag_set_limit(uint64_t n);
/* Forgets everything: counts, controls, sources, records, the limit; the
 * text format. */
void diag_reset(void);

/* --diagnostics-format: GCC prints each diagnostic as it comes (the text
 * above); JSON and SARIF print nothing and record every diagnostic, for
 * one document at the end of the run (docs/diagnostics.md). */
typedef enum { DIAG_FORMAT_GCC, DIAG_FORMAT_JSON, DIAG_FORMAT_SARIF } DiagFormat;
void diag_set_format(DiagFormat f);
DiagFormat diag_format(void);
/* The recorded diagnostics as mcgen's JSON document, or as a SARIF 2.1.0
 * log whose tool is "mcgen" `tool_version`; appended to `b`. */
void diag_write_json(Buf *b);
void diag_write_sarif(Buf *b, const char *tool_version);

/* ======================================================================
 * xml.c
 * ==================================================================== */

/* Namespace URIs the compiler knows. */
#define NS_EVENTS "http://schemas.microsoft.com/win/2004/08/events"
#define NS_WIN "http://manifests.microsoft.com/win/2004/08/windows/events"
/* the root of a Windows component manifest, <assembly>, which may carry an
 * <instrumentation> (read_man.c) */
#define NS_ASM_V3 "urn:schemas-microsoft-com:asm.v3"
#define NS_XS "http://www.w3.org/2001/XMLSchema"
#define NS_ASM "urn:schemas-microsoft-com:asm.v3"
#define NS_WINMETA "urn:mcgen:winmeta"

typedef struct XmlAttr {
    const char *ns;    /* interned; "" when unqualified */
    const char *local; /* valid during the callback only */
    const char *value; /* valid during the callback only */
    Loc loc;           /* position of the attribute name */
    uint32_t local_len; /* strlen(local), so a lookup compares lengths first */
    size_t value_len;   /* strlen(value) */
} XmlAttr;

/* An element's unqualified attributes by a hash of their names
 * (xml_attr_slot): 1 + the attribute's index, 0 for none, XML_SLOT_SHARED
 * when two or more share the slot (then looked up by a scan).  The hash
 * keeps apart the names any one element of a manifest takes. */
enum { XML_SLOTS = 32, XML_SLOT_SHARED = 255 };

static inline unsigned xml_attr_slot(const char *name, size_t n)
{
    return (unsigned)(n * 4 + (unsigned char)name[0] * 14 + (unsigned char)name[n - 1] * 3) &
           (XML_SLOTS - 1);
}

typedef struct XmlElem {
    const char *ns; /* interned; "" when none */
    const char *local;
    const XmlAttr *attrs;
    size_t nattrs;
    Loc loc; /* position of '<' */
    uint8_t by_slot[XML_SLOTS];
} XmlElem;

typedef struct XmlReader XmlReader;

typedef struct XmlHandler {
    void *ctx;
    void (*start)(void *ctx, XmlReader *r, const XmlElem *e);
    /* `text` is the element's own character data (all of it, joined),
     * valid during the callback only. */
    void (*end)(void *ctx, XmlReader *r, const XmlElem *e, const char *text, size_t len);
} XmlHandler;

/* A qualified name, resolved through the in-scope namespace declarations. */
typedef struct QName {
    const char *ns; /* interned URI; "" when unprefixed and no default ns */
    const char *local;
} QName;

/* Parses a file, streaming it in 64 KiB chunks.  Returns false after a
 * diagnostic.  Interned strings live in `arena`. */
bool xml_parse_file(const char *path, Arena *arena, const XmlHandler *h);
/* Parses bytes in memory, fed to expat `chunk` bytes at a time (0: all). */
bool xml_parse_mem(const char *name, const void *bytes, size_t len, size_t chunk,
                   Arena *arena, const XmlHandler *h);
/* The records of a whole document's parse (no
 * tag bytes), appended to `out`: what tools/xmlrec.c embeds at build
 * time.  False after a problem (nothing appended). */
bool xml_record(const char *name, const void *bytes, size_t len, Buf *out);
/* A document recorded by xml_record, replayed into the handlers on this
 * thread, no expat involved; `text` is its source, for caret lines. */
bool xml_parse_recorded(const char *name, const void *text, size_t text_len,
                        const void *records, size_t len, Arena *arena, const XmlHandler *h);
/* Resolves a QName value against the declarations in scope at the current
 * element (call from the start callback).  The local part is interned.
 * false when the prefix is not declared. */
bool xml_qname(XmlReader *r, const char *value, QName *out);
/* xml_qname of a value whose length is known (value[len] is '\0'). */
bool xml_qname_n(XmlReader *r, const char *value, size_t len, QName *out);
/* Whether the prefix p[0..n) is declared at the current element. */
bool xml_prefix_declared(XmlReader *r, const char *p, size_t n);
/* How many times a namespace declaration came into or went out of scope
 * so far: the same count, the same declarations in scope. */
uint64_t xml_ns_epoch(const XmlReader *r);
/* Interns a string in the reader's arena (namespace URIs, names). */
const char *xml_intern(XmlReader *r, const char *s);
/* Stops the parse after the current callback (used on fatal errors). */
void xml_stop(XmlReader *r);
/* From the start callback: the element being started takes no text (the
 * schema allows it only white space between its children), so the pieces
 * of its character data that are all white space are left out of the
 * text its end callback gets, which is then blank only if all of it was
 * (most of a manifest's text is the indentation between elements). */
void xml_drop_blank_text(XmlReader *r);
/* The element's unqualified attribute `local`, or NULL.  Inline so that
 * the callers' literal names have their length and slot known at compile
 * time: a lookup is one slot and one fixed-size compare, no scan (the
 * readers make some ten lookups per element). */
static inline const XmlAttr *xml_attr_full(const XmlElem *e, const char *local)
{
    size_t n = strlen(local);
    if (!n)
        return NULL;
    unsigned s = e->by_slot[xml_attr_slot(local, n)];
    if (s == 0)
        return NULL;
    if (s != XML_SLOT_SHARED) {
        const XmlAttr *a = &e->attrs[s - 1];
        return a->local_len == n && memcmp(a->local, local, n) == 0 ? a : NULL;
    }
    for (size_t i = 0; i < e->nattrs; i++) {
        const XmlAttr *a = &e->attrs[i];
        if (a->local_len == n && a->ns[0] == '\0' && memcmp(a->local, local, n) == 0)
            return a;
    }
    return NULL;
}

static inline const char *xml_attr(const XmlElem *e, const char *local)
{
    const XmlAttr *a = xml_attr_full(e, local);
    return a ? a->value : NULL;
}

/* ======================================================================
 * codepages.c (written by tools/codepages)
 * ==================================================================== */

/* The characters of the bytes 0x80..0xFF in the single-byte Windows code
 * page an XML declaration names (windows-874, windows-1250 ... -1258, any
 * case), 0 for a byte it leaves undefined; NULL for any other name. */
const uint16_t *codepage_high(const char *name);

/* ======================================================================
 * model
 * ==================================================================== */

typedef struct Out Out; /* out.c */

typedef struct Guid {
    uint32_t d1;
    uint16_t d2, d3;
    uint8_t d4[8];
} Guid;

/* message="$(string.ID)": the string's id; text per culture is looked up in
 * Manifest.cultures.  Its position is a Pos of its owner's Loc (every
 * owner, a provider, channel, named item, map item, event, filter or
 * messageTable entry, has the Loc of its element): manifest_each_msgref
 * hands each reference out with its Loc. */
typedef struct String String;
typedef struct MsgRef {
    const char *id; /* NULL: no message attribute */
    const String **text; /* after resolution: the string in each culture
                          * (Manifest.cultures order), NULL where missing */
    uint32_t msgid;      /* mc's message id (check_msgid.c), valid when has_msgid;
                          * built-in items and imported winmeta channels
                          * have one without a string id */
    bool has_msgid;
    Pos pos; /* of message= */
} MsgRef;

typedef struct Provider Provider;
typedef struct Task Task;

/* Fields shared by the named items levels, tasks, opcodes, keywords. */
typedef struct Named {
    QName name;
    const char *display; /* name as the manifest would write it: "win:Error" */
    const char *written; /* the name attribute as written ("ns1:Level1"), trimmed */
    const char *symbol; /* NULL when absent */
    MsgRef msg;
    const char *builtin_msg; /* winmeta item: its message text */
    const char *builtin_msgid; /* winmeta item: its string id (level.Error) */
    struct Named *homonym;   /* next item of the same kind and local name */
    Loc loc;
    bool builtin; /* from winmeta */
} Named;

typedef struct Level {
    Named n;
    uint8_t value;
} Level;

typedef struct Opcode {
    Named n;
    uint8_t value;
    Task *task; /* NULL for provider-level and winmeta opcodes */
    const char *mof_value;
} Opcode;

/* A task's own opcodes are an array in the arena, sized exactly, and
 * found by name with a scan (task_opcode): a task has a few, most none,
 * where a heap vector and a map took 56 bytes of every task. */
struct Task {
    Named n;
    uint16_t value;
    bool has_guid;
    Guid event_guid;
    const char *mof_guid;
    struct { Opcode **v; size_t n; } opcodes; /* in the arena */
};

typedef struct Keyword {
    Named n;
    uint64_t mask;
} Keyword;

typedef enum { CHAN_ADMIN, CHAN_OPERATIONAL, CHAN_ANALYTIC, CHAN_DEBUG, CHAN_NONE } ChannelType;
typedef enum { ISO_NONE, ISO_APPLICATION, ISO_SYSTEM, ISO_CUSTOM } Isolation;

typedef struct ChannelLogging {
    bool present;
    bool has_auto_backup, auto_backup;
    bool has_retention, retention;
    bool has_max_size;
    uint64_t max_size;
    Loc loc;
} ChannelLogging;

typedef struct ChannelPublishing {
    bool present;
    bool has_level, has_keywords, has_control_guid, has_buffer_size, has_min_buffers,
        has_max_buffers, has_latency, has_clock_type, has_sid_type, has_file_max;
    uint8_t level;
    uint64_t keywords;
    Guid control_guid;
    uint32_t buffer_size, min_buffers, max_buffers, latency, file_max;
    const char *clock_type; /* SystemTime / QPC */
    const char *sid_type;   /* None / Publishing */
    Loc loc;
} ChannelPublishing;

typedef struct Channel {
    const char *name;
    const char *chid; /* NULL when absent */
    const char *symbol;
    ChannelType type;
    bool has_value; /* value written in the manifest */
    uint8_t value;  /* resolved: written, assigned (16..), or the import's */
    bool has_enabled, enabled;
    Isolation isolation;
    const char *access;
    MsgRef msg;
    const char *builtin_msg;   /* winmeta channel: its message text */
    const char *builtin_msgid; /* winmeta channel: its string id */
    bool builtin;              /* the winmeta definition itself */
    bool imported;             /* <importChannel>, or auto-imported */
    bool auto_imported;        /* added because an event named a winmeta channel */
    struct Channel *import_of; /* the imported channel (winmeta or another provider's) */
    Provider *owner;
    uint32_t index; /* position in the provider's channel list (CHAN order) */
    ChannelLogging logging;
    ChannelPublishing publishing;
    Loc loc;
} Channel;

typedef enum { MAP_VALUE, MAP_BIT, MAP_PATTERN } MapKind;

typedef struct MapItem {
    uint32_t value;
    const char *pattern_name;  /* patternMap items: name= */
    const char *pattern_value; /* patternMap items: value= as text */
    const char *symbol;
    MsgRef msg;
    Loc loc;
} MapItem;

typedef struct ValueMap {
    MapKind kind;
    const char *name; /* maps are named by plain strings, not QNames */
    const char *symbol;
    const char *format; /* patternMap */
    VEC(MapItem *) items;
    Loc loc;
} ValueMap;

/* winmeta inTypes and outTypes: made once a process (winmeta.c), the
 * same objects in every manifest, each with its number (1 + its position
 * among its kind), by which a field names it (Field.in_type) */
typedef struct OutType {
    QName name;
    const char *display; /* "xs:string" */
    uint8_t value;
    uint8_t number;
} OutType;

typedef struct InType {
    QName name;
    const char *display; /* "win:UnicodeString" */
    uint8_t value;
    uint8_t size; /* 0: variable */
    bool pointer;
    char mangle;  /* mc template-function letter */
    uint8_t number;
    OutType *default_out;
    VEC(OutType *) allowed;
} InType;

/* Every inType and outType by its number, NULL at [0] (winmeta.c; made
 * before the first manifest is read). */
extern InType *const *winmeta_in_types;
extern OutType *const *winmeta_out_types;

typedef enum { QTY_NONE, QTY_FIXED, QTY_FIELD } QtyKind;

typedef struct Field Field;

/* count= / length=: absent, a number, or the name of another field. */
typedef struct Quantity {
    const char *text; /* QTY_FIELD: the field name as written */
    Field *ref;       /* QTY_FIELD */
    Loc loc;
    uint16_t n;   /* QTY_FIXED (the schema's and mc's limit: 65,535) */
    uint8_t kind; /* QtyKind */
} Quantity;

/* A field's count= and length=, together behind one pointer: most fields
 * have neither. */
typedef struct FieldQty {
    Quantity count, length;
} FieldQty;

/* The FieldQty of a field with neither: both QTY_NONE. */
extern const FieldQty field_qty_none;

/* One <data> or <struct> of a payload layout (a manifest <template>).
 * A large manifest has tens of thousands, the biggest part of the model:
 * members are ordered so that none pads, count= and length=, which
 * most fields lack, are behind one pointer, inType= and outType=, which
 * name built-in types only, are resolved as they are read
 * (resolve_field_types) into the types' numbers, a byte each, so the
 * names as written are kept only for the few that do not resolve, and
 * what only a <data> has written shares its bytes with what only a
 * <struct> has (members): read only after is_struct says which it is. */
struct Field {
    const char *name;
    ValueMap *map;     /* data, optional; NULL for a struct */
    union {
        struct { Field **v; size_t n; } members; /* struct; in the arena */
        struct {
            const char *map_name; /* data: map= as written */
            Pos in_pos, out_pos;  /* data: of inType=, outType= (the element's when absent) */
        };
    };
    /* never NULL: &field_qty_none when neither; check_resolve.c writes
     * the ref of a QTY_FIELD one (in the arena, never field_qty_none) */
    const FieldQty *qty;
    uint32_t index;       /* position among its siblings */
    Loc loc;
    Pos map_pos; /* data: of map= (the element's when absent) */
    /* data: InType.number, 0 for a struct or a type that did not resolve
     * (field_in_type); OutType.number, 0 for the inType's default (or
     * unresolved; field_out_type) */
    uint8_t in_type_no, out_type_no;
    bool is_struct;
    bool has_out;
};

static inline InType *field_in_type(const Field *f) { return winmeta_in_types[f->in_type_no]; }
static inline OutType *field_out_type(const Field *f) { return winmeta_out_types[f->out_type_no]; }

/* Generic XML kept verbatim (the <UserData> of a template). */
typedef struct XmlNode {
    QName name;
    const char *prefix;
    VEC(struct XmlAttrNode { QName name; const char *value; } ) attrs;
    VEC(struct XmlNode *) children;
    const char *text; /* character data, NULL when none */
    Loc loc;
} XmlNode;

typedef struct Layout {
    const char *tid;
    const char *name; /* name= attribute, optional */
    struct { Field **v; size_t n; } fields; /* in the arena */
    XmlNode *user_data;
    Loc loc;
} Layout;

typedef struct EventAttr {
    const char *key, *value;
} EventAttr;

/* What few events have (Event.rare). */
typedef struct EventRare {
    const char *name;
    const char *attributes;                   /* as written */
    struct { EventAttr *v; size_t n; } attrs; /* parsed key=value pairs, in the arena */
} EventRare;
/* An event's EventRare when it has neither name= nor attributes=. */
extern const EventRare event_rare_none;

/* One <event>.  After the fields, the most numerous node of a large
 * manifest: no member pads, its lists are arrays in the arena, sized
 * exactly (no heap block per event), and what few events have is behind
 * one pointer.  The references as written share the members they resolve
 * to (anonymous unions): read_man.c stores what an event names (QNames
 * interned once per document, names as text) and sets refs_written;
 * check_resolve.c, the only reader of them, replaces each with what it
 * names (NULL when it names nothing) and clears the flag.  A model not
 * read from XML has refs_written false and its references resolved. */
typedef struct Event {
    uint16_t value;
    uint8_t version;
    /* one bit each: with the keyword count, the first eight bytes */
    bool not_logged : 1, suppress_projection : 1;
    bool has_level : 1, has_task : 1, has_opcode : 1; /* level=, task=, opcode= written */
    bool has_template : 1; /* template= written (resolved or not) */
    bool refs_written : 1; /* the unions hold references as written */
    uint32_t nkeywords;
    const char *symbol;
    const EventRare *rare; /* never NULL: &event_rare_none when neither */
    union { Channel *channel; const char *channel_ref; };
    union { Level *level; const QName *level_q; };
    union { Task *task; const QName *task_q; };
    union { Opcode *opcode; const QName *opcode_q; };
    /* keyword_qs: the words of keywords= (arena), resolved in place;
     * nkeywords counts either (the OR of their masks is a function,
     * event_keyword_mask, not a member) */
    union { Keyword **keywords; const QName **keyword_qs; };
    union { Layout *layout; const char *template_ref; };
    MsgRef msg;
    Loc loc;
    /* of channel=, level=, ... (the element's when absent) */
    Pos channel_pos, level_pos, task_pos, opcode_pos, keywords_pos, template_pos;
} Event;

typedef struct Filter {
    QName name;
    const char *display; /* name as written in the manifest's terms */
    const char *written; /* the name attribute as written, trimmed */
    uint8_t value, version;
    const char *symbol;
    const char *tid;
    Layout *layout;
    MsgRef msg;
    Loc loc;
} Filter;

typedef struct Traits {
    bool has_group_guid;
    Guid group_guid;
    bool has_include_name, include_name;
    Loc loc;
} Traits;

typedef struct MessageEntry {
    uint32_t value;
    const char *symbol;
    const char *mid;
    MsgRef msg;
    Loc loc;
} MessageEntry;

struct Provider {
    int index; /* position among all <provider> elements */
    const char *name;
    Guid guid;
    const char *symbol;
    const char *resource_file, *message_file, *parameter_file;
    const char *namespace_;
    const char *source; /* non-schema source= (TDH reconstructions) */
    bool has_control_guid;
    Guid control_guid;
    MsgRef msg;
    Traits *traits;
    VEC(Channel *) channels; /* declared in order, then auto-imported */
    VEC(Level *) levels;
    VEC(Task *) tasks;
    VEC(Opcode *) opcodes; /* provider-level */
    VEC(Keyword *) keywords;
    VEC(ValueMap *) maps;
    VEC(Layout *) layouts;
    VEC(Event *) events;
    VEC(Filter *) filters;
    /* keyed by local name; items whose names differ only in namespace are
     * chained through Named.homonym */
    Map level_by_name, task_by_name, opcode_by_name, keyword_by_name;
    Map map_by_name, layout_by_tid;
    Map warned; /* decompiled manifests: messages already reported */
    Loc loc;
};

/* (its stringType=, which few have, is in Manifest.string_types) */
struct String {
    const char *id;
    const char *value;
    bool referenced;         /* check_payload.c: some reference names it, */
    bool event_message;      /* an event's message= names it, */
    bool culture_checked;    /* its id's rule_string_in_every_culture ran, */
    uint8_t inserts;         /* 1 + its highest insert %N (0: not read) */
    Loc loc;
};

typedef struct Culture {
    const char *name;
    VEC(String *) strings;
    Map by_id;
    Loc loc; /* its culture= attribute */
} Culture;

typedef struct Winmeta {
    VEC(Channel *) channels;
    VEC(Level *) levels;
    VEC(Task *) tasks;
    VEC(Opcode *) opcodes;
    VEC(Keyword *) keywords;
    VEC(InType *) in_types;
    VEC(OutType *) out_types;
    Map channel_by_name, level_by_name, task_by_name, opcode_by_name, keyword_by_name,
        in_by_name, out_by_name; /* keys: local names; outTypes "xs:x"/"win:x" */
} Winmeta;

/* ---- message-text (.mc) files (read_mc.c; checked by check_mc.c) ----
 * A .mc file read as it is written: its header-section names (mc's
 * built-in ones first), then its comments and messages in file order.
 * Texts are UTF-8 whatever the file's encoding; a text's lines are joined
 * with "\r\n" as the message table holds them, without the "\r\n" mc adds
 * after the last line. */
typedef struct McName {
    const char *name;   /* SeverityNames / FacilityNames entry: Error=0x3:SYM */
    uint32_t value;
    const char *symbol; /* NULL when absent */
    bool builtin;       /* mc's default, not declared */
    uint32_t order;     /* when it was (last) declared: the header's order */
    Loc loc;
} McName;

typedef struct McLanguage {
    const char *name;  /* LanguageNames entry: English=0x409:MSG00409 */
    uint32_t langid;
    const char *file;  /* MSG00409: the message table's file name, no .bin */
    bool builtin;      /* English=0x409:MSG00001, not declared */
    uint32_t order;    /* declaration order (the built-in English first) */
    Loc loc;
} McLanguage;

typedef struct McText {
    const char *lang_name; /* as written after Language= */
    const McLanguage *lang; /* check_mc.c: resolved */
    const char *text;      /* the lines joined with "\r\n" */
    uint32_t nlines;
    Loc loc;      /* of the language's name after Language= */
    Loc text_loc; /* of the text's first line */
} McText;

typedef enum { MCID_NEXT, MCID_ABSOLUTE, MCID_RELATIVE } McIdKind;

typedef struct McMessage {
    McIdKind id_kind;   /* MessageId=, MessageId=N, MessageId=+N */
    uint32_t id_arg;
    const char *severity_name, *facility_name; /* as written here; NULL: carried */
    const char *symbol;                       /* SymbolicName, NULL when absent */
    const char *id_typedef, *id_macro;        /* MessageIdTypedef(Macro) in force */
    uint32_t output_base;                     /* OutputBase in force: 16, 10, 0 none */
    VEC(McText) texts;
    /* check_mc.c */
    const McName *severity, *facility;
    uint32_t code; /* the 16-bit message number */
    uint32_t id;   /* the 32-bit message id (severity, customer bit, facility, code) */
    Loc loc, id_loc, severity_loc, facility_loc, symbol_loc;
} McMessage;

/* A comment line (";..." : the text after ';') or a message; a message
 * is listed where its first text ends, as mc writes it into the header
 * then, and a comment when it reads it. */
typedef struct McItem {
    const char *comment;
    McMessage *msg;
    Loc loc;
} McItem;

typedef enum { MCENC_ANSI, MCENC_UTF16, MCENC_UTF8 } McEncoding;

typedef struct McFile {
    McEncoding encoding; /* as read: -a, -u or a byte-order mark */
    VEC(McItem) items;
    VEC(McName *) severities, facilities; /* built-in, then declared */
    VEC(McLanguage *) languages;          /* built-in English, then declared */
    size_t nmessages;
    /* where the header's banner goes: the index in items at which the
     * first message started (comments before it are the header
     * section's); items.n when there is no message */
    size_t first_message;
    uint32_t next_order;
    bool damaged; /* the reader reported errors: checked, never compiled */
} McFile;

/* The message id of a string (check_msgid.c): a manifest string's, or a
 * built-in item's winmeta string's (level.Error). */
typedef struct StringMsgId {
    uint32_t id;
    bool in_header; /* gets a MSG_ define: referenced by the manifest, or a
                     * built-in's string that the manifest also defines */
} StringMsgId;

typedef struct Manifest {
    const char *file;
    Arena arena;
    Arena scratch; /* what lives only until resolution (types_written):
                    * check_resolve.c frees it */
    PtrMap types_written; /* Field -> QName[2], its inType= and outType= as
                           * written, for a field where either did not
                           * resolve (in scratch) */
    struct TypeMemo *type_memo; /* resolve_field_types' (check_resolve.c), in scratch */
    Winmeta wm;
    VEC(Provider *) providers;
    VEC(MessageEntry *) message_table;
    VEC(Culture *) cultures;
    Map culture_by_name;
    Map provider_by_name; /* for importChannel across providers */
    Map msgid_by_string; /* string id -> StringMsgId* (check_msgid.c) */
    PtrMap string_types; /* String -> its stringType= (the few written) */
    size_t skipped_counter_sections;
    int warned_no_localization;
    McFile *mc; /* a message-text file (read_mc.c): no providers then */
} Manifest;

/* "prefix-less" display form: "win:Error" for the win namespace, else the
 * local name (plus {ns} when it has another namespace). */
const char *qname_display(Arena *a, QName q);
bool guid_parse(const char *s, Guid *g);
void guid_format(const Guid *g, char out[39]); /* {XXXXXXXX-XXXX-...} */
/* Text of a string in a culture, or NULL. */
const String *manifest_string(const Manifest *m, const Culture *c, const char *id);

/* ======================================================================
 * winmeta.c
 * ==================================================================== */

/* Loads the built-in definitions of schema/winmeta.xml (read when mcgen
 * was built) into m->wm. */
bool winmeta_load(Manifest *m);
/* The name of winmeta's inType ("win:UInt32", in) or outType ("xs:int")
 * of that value, or NULL: for readers of compiled binaries. */
const char *winmeta_type_name(bool in, unsigned value);
/* The value of the default outType of the inType of value `in`, or -1. */
int winmeta_default_out(unsigned in);
/* The name of winmeta's channel of that value ("System"), or NULL. */
const char *winmeta_channel_name(unsigned value);
/* At build time only (winmeta.c compiled with WINMETA_COMPILER, linked
 * into tools/xmlrec.c): winmeta.xml's text checked and written to `out`
 * as the table of rows mcgen's winmeta.c includes; false after a
 * diagnostic. */
bool winmeta_write_tables(const char *name, const void *text, size_t len, FILE *out);

/* ======================================================================
 * schema.c
 * ==================================================================== */

/* schema/eventman.xsd as the build compiled it into tables (no work at
 * run time); schema_release frees what runs filled in. */
typedef struct Schema Schema;
const Schema *schema_get(void);
void schema_release(void);
/* At build time only (schema.c compiled with SCHEMA_COMPILER, linked into
 * tools/xmlrec.c): the schema text compiled and written to `out` as the
 * C tables mcgen's schema.c includes; false after a diagnostic (mcgen
 * cannot interpret what the schema uses). */
bool schema_write_tables(const char *name, const void *text, size_t len, FILE *out);

/* One document's check: schema_start for every start tag, schema_end for
 * every end tag, in document order.  Each returns false after reporting
 * what is wrong with that element (codes MCG11xx and MCG12xx); the
 * descendants of an element that is not allowed where it is are not
 * checked. */
typedef struct SchemaCheck SchemaCheck;
SchemaCheck *schema_check_new(void);
bool schema_start(SchemaCheck *sc, XmlReader *r, const XmlElem *e);
bool schema_end(SchemaCheck *sc, const XmlElem *e, const char *text, size_t len);
/* the same for an <instrumentation>, <localization> or <metadata> of a
 * Windows component manifest (<assembly> root): checked as the only child
 * of an <instrumentationManifest> */
/* an element the parent allows once, met again where read_man.c accepts
 * it: checked as the first one was, the parent's content model unmoved */
bool schema_start_again(SchemaCheck *sc, XmlReader *r, const XmlElem *e);
bool schema_start_part(SchemaCheck *sc, XmlReader *r, const XmlElem *e);
bool schema_end_part(SchemaCheck *sc, const XmlElem *e, const char *text, size_t len);
int schema_check_errors(const SchemaCheck *sc);
void schema_check_free(SchemaCheck *sc);

/* ======================================================================
 * read_man.c
 * ==================================================================== */

/* The .man reader: a document read into a raw model (references as
 * written, nothing resolved).  NULL after the diagnostics of a document
 * that cannot be read, is not well-formed or is not valid under the
 * schema. */
Manifest *read_man_file(const char *path);
/* The same from bytes in memory fed in chunks of `chunk` bytes (0: all). */
Manifest *read_man_mem(const char *name, const void *bytes, size_t len, size_t chunk);
void manifest_free(Manifest *m);
/* The item named q in a provider's map keyed by local name (Provider). */
void *qmap_get(const Map *m, QName q);
/* Whether a provider comes from a manifest reconstructed by a TDH tool
 * (source=): what does not resolve in it is a warning (MCG9001). */
bool provider_decompiled(const Provider *pv);

/* ======================================================================
 * read_mc.c
 * ==================================================================== */

/* The .mc reader: bytes in any chunks (mc_reader_feed), then the raw
 * model (mc_reader_finish: after syntax errors too, marked
 * McFile.damaged, so that check_mc reports the rest and then refuses it;
 * read_mc_file: NULL when the file cannot be read).  utf16: mc's -u
 * (UTF-16LE without a byte-order mark); otherwise ANSI (Windows-1252)
 * unless a byte-order mark says UTF-16LE or UTF-8. */
typedef struct McReader McReader;
McReader *mc_reader_new(const char *name, bool utf16);
void mc_reader_feed(McReader *r, const void *bytes, size_t n);
Manifest *mc_reader_finish(McReader *r);
/* The same from bytes in memory fed `chunk` bytes at a time (0: all). */
Manifest *read_mc_mem(const char *name, const void *bytes, size_t len, size_t chunk, bool utf16);
Manifest *read_mc_file(const char *path, bool utf16);
/* Frees what an McFile holds outside its manifest's arena (manifest_free
 * calls it). */
void mc_free(McFile *f);

/* ======================================================================
 * check.c, check_resolve.c, check_names.c: the check stage
 * ==================================================================== */

/* What the check stage derives beside the model, for the emitters. */
typedef struct Facts {
    Arena arena;  /* the names */
    /* the names of the C header (check_names.c): a provider -> its
     * events' names, an array in the order of its events (the emitters
     * walk them so, and a table keyed by each event's address missed the
     * cache at every lookup), and item -> its name for every other item */
    PtrMap event_names, names;
} Facts;

/* Checks a raw manifest from any reader: resolution, every semantic rule,
 * the rules of the compile's options (o NULL: mc's defaults), message
 * ids, the header's names.  false after errors (warnings allowed). */
struct Options;
bool check_manifest(Manifest *m, const struct Options *o, Facts *f);
/* The name the C header gives an item: a Provider (its symbol), a
 * Channel, Level, Opcode, Task or Keyword (its #define), &Task.event_guid
 * (the task's GUID variable); NULL when the header names none. */
const char *facts_name(const Facts *f, const void *item);
/* The name the C header gives event i of pv (its macros' name). */
const char *facts_event_name(const Facts *f, const Provider *pv, size_t i);
void facts_free(Facts *f);
/* Every reference resolved; what does not resolve reported and left NULL. */
void check_resolve(Manifest *m);
/* A <data>'s inType= and outType= (as written; a NULL local name: absent)
 * resolved against winmeta, which is loaded before the reader starts: the
 * reader calls it, and check_resolve() reports, in document order, what
 * did not resolve. */
void resolve_field_types(Manifest *m, Field *f, QName in_q, QName out_q);
/* The header's names and their clashes (MCG8001). */
void check_names(Manifest *m, Facts *f);
/* The keyword bit a channel gives its events (0 for an auto-imported one),
 * and the EVENT_DESCRIPTOR's Keyword (with that bit; TEMP.BIN's EVNT entries
 * have the same) and Channel as mc's header gives them. */
uint64_t channel_keyword(const Channel *c);
uint64_t event_descriptor_keyword(const Event *e);
/* The OR of an event's keywords' masks. */
uint64_t event_keyword_mask(const Event *e);
uint8_t event_descriptor_channel(const Event *e, const Provider *pv);
/* Whether a task has an eventGUID other than all zeros. */
bool task_has_guid(const Task *t);
/* The payload plan of a field: how its values lie in an event's payload,
 * in words any language maps to its own types (docs/json-model.md,
 * "Payload"), so that a wrapper is written from the plan alone.  The kinds
 * come from TDH's input types (an inType's value), its outType only
 * choosing UTF-8 for an ANSI string; count= and length= are normalised as
 * mc's header reads them (a count of 0 or 1, a length of 0, a reference
 * that did not resolve, a length on a type that takes none: absent). */
#define PAYLOAD_KINDS(X)                                                           \
    X(PK_UNKNOWN, "unknown") X(PK_INT8, "int8") X(PK_UINT8, "uint8")               \
    X(PK_INT16, "int16") X(PK_UINT16, "uint16") X(PK_INT32, "int32")               \
    X(PK_UINT32, "uint32") X(PK_INT64, "int64") X(PK_UINT64, "uint64")             \
    X(PK_FLOAT32, "float32") X(PK_FLOAT64, "float64") X(PK_BOOL32, "bool32")       \
    X(PK_POINTER, "pointer") X(PK_GUID, "guid") X(PK_FILETIME, "filetime")         \
    X(PK_SYSTEMTIME, "systemtime") X(PK_SID, "sid") X(PK_STRING, "string")         \
    X(PK_BINARY, "binary") X(PK_STRUCT, "struct")
#define PAYLOAD_ENUM(e, s) e,
typedef enum { PAYLOAD_KINDS(PAYLOAD_ENUM) PK_COUNT } PayloadKind;
#undef PAYLOAD_ENUM
/* a string's code units; how a string or binary value ends: a NUL, a
 * length= of characters or bytes, a 16-bit byte count before it, or
 * nothing (binary without length=: the writer's bytes) */
typedef enum { PE_NONE, PE_UTF16, PE_ANSI, PE_UTF8 } PayloadEncoding;
typedef enum { PT_NONE, PT_NUL, PT_LENGTH, PT_COUNTED, PT_UNMARKED } PayloadTermination;
typedef struct FieldPlan {
    uint8_t kind;        /* PayloadKind */
    uint8_t size;        /* bytes of one value; 0: variable, or the writer's pointer size */
    uint8_t encoding;    /* PayloadEncoding: strings only */
    uint8_t termination; /* PayloadTermination: strings and binary only */
    const Quantity *count;  /* how many values (NULL: one) */
    const Quantity *length; /* PT_LENGTH: units of a string, bytes of binary */
} FieldPlan;
extern const char *const payload_kind_names[PK_COUNT];
extern const char *const payload_encoding_names[];    /* NULL for PE_NONE */
extern const char *const payload_termination_names[]; /* NULL for PT_NONE */
FieldPlan field_plan(const Field *f);
/* Calls fn on every message reference of a manifest, in document order:
 * each provider's own, its channels', levels', tasks' (and their
 * opcodes'), opcodes', keywords', map items', events', filters'; then the
 * messageTable's. */
void manifest_each_msgref(Manifest *m, void (*fn)(Manifest *m, MsgRef *r, Loc at, void *arg),
                          void *arg);

/* ======================================================================
 * check_mc.c
 * ==================================================================== */

/* The check of a .mc file's model: names resolved, ids computed (-c sets
 * the customer bit), every rule; false after errors. */
bool check_mc(Manifest *m, const struct Options *o);
/* A manifest and a .mc compiled in one run share the .mc's message tables:
 * every culture of the manifest needs the .mc language of its language id,
 * and no manifest message may have the id of a .mc message.  false after
 * errors. */
bool check_mc_with_manifest(const Manifest *man, const Manifest *mc);
/* The manifest culture (index) whose language id is the .mc language's,
 * or SIZE_MAX. */
size_t mc_culture_of(const Manifest *man, const McLanguage *lang);
/* Whether a .mc language has a text in some message (and so a table). */
bool mc_language_used(const McFile *f, const McLanguage *lang);

/* ======================================================================
 * culture.c
 * ==================================================================== */

/* A culture name and its Windows language id ([MS-LCID]). */
typedef struct CultureLang {
    const char *name;
    uint16_t langid;
} CultureLang;

/* Every culture name with a language id, sorted by name ignoring case. */
extern const CultureLang culture_langs[];
extern const size_t culture_nlangs;
/* The language id of a culture name, case ignored ("en-US" -> 0x0409,
 * "de" -> 0x0007); false when Windows assigns it none. */
bool culture_langid(const char *name, uint16_t *langid);
/* The first culture name (in name order) of a language id, or NULL. */
const char *culture_name(uint16_t langid);

/* ======================================================================
 * check_msgid.c
 * ==================================================================== */

/* Gives every message its id as mc.exe 10.0.18362 does
 * (../shared/docs/message-ids.md); run on a resolved model. */
void msgid_assign(Manifest *m);

/* ======================================================================
 * emit_msgtable.c
 * ==================================================================== */

typedef struct MsgTableOptions {
    bool ansi;    /* mc -A: Windows-1252 texts, flags 0 */
    bool no_crlf; /* mc -n: no "\r\n" after each text */
} MsgTableOptions;

/* The message table of culture number `culture` (Manifest.cultures
 * order), appended to `out` as mc writes MSG0000N.bin; opt may be NULL
 * (mc's defaults).  With -A every text must have passed
 * check_ansi_tables. */
void msgtable_build(const Manifest *m, size_t culture, const MsgTableOptions *opt, Buf *out);
/* The same into an Out, as it is made: never whole in memory. */
void msgtable_write(const Manifest *m, size_t culture, const MsgTableOptions *opt, Out *out);
/* Appends a manifest string's text as the message tables hold it: each
 * line feed as CR LF (a CR already before it kept as that pair's CR). */
void msgtable_manifest_text(Buf *out, const char *s);
/* How many messages that table holds (0: mc writes no file). */
size_t msgtable_count(const Manifest *m, size_t culture);
/* Whether it holds any (msgtable_count > 0, cheaper). */
bool msgtable_any(const Manifest *m, size_t culture);
/* The message table of a .mc language: its messages' texts, plus, when a
 * manifest is compiled in the same run (man not NULL), the strings of the
 * manifest's culture of the same language id. */
void msgtable_build_mc(const Manifest *mc, const McLanguage *lang, const Manifest *man,
                       const MsgTableOptions *opt, Buf *out);
void msgtable_write_mc(const Manifest *mc, const McLanguage *lang, const Manifest *man,
                       const MsgTableOptions *opt, Out *out);

/* ======================================================================
 * read_msgtable.c
 * ==================================================================== */

/* How an entry's text is stored: its Flags (winnt.h's
 * MESSAGE_RESOURCE_UNICODE 1 and MESSAGE_RESOURCE_UTF8 2; 0 is ANSI, which
 * mcgen reads as Windows-1252, the code page mc -A writes). */
typedef enum { MSGTEXT_ANSI, MSGTEXT_UTF16, MSGTEXT_UTF8 } MsgTextKind;

typedef struct MsgTableEntry {
    uint32_t id;
    MsgTextKind kind;
    char *text; /* UTF-8, heap */
} MsgTableEntry;

typedef struct MsgTable {
    VEC(MsgTableEntry) entries; /* in id order */
} MsgTable;

/* Reads a MESSAGE_RESOURCE_DATA.  false with `err` set to
 * "offset 0x..: what is wrong" on the first inconsistency; `out` then holds
 * what was read before it (free it either way). */
bool msgtable_read(const void *bytes, size_t n, MsgTable *out, Buf *err);
void msgtable_free(MsgTable *t);

/* ======================================================================
 * emit_wevt.c
 * ==================================================================== */

typedef enum {
    WEVT_V5,      /* CRIM 5.1, mc 10.0.18362 (and later) */
    WEVT_V3,      /* CRIM 3.1, mc 10.0.15063 */
    WEVT_V3_MC81, /* CRIM 3.1 with mc 8.1's template ids */
} WevtFormat;

/* The WEVT_TEMPLATE resource (<base>TEMP.BIN), appended to `out`. */
void wevt_build(const Manifest *m, WevtFormat format, Buf *out);
/* The same into an Out, as it is made: never whole in memory. */
void wevt_write(const Manifest *m, WevtFormat format, Out *out);

/* ======================================================================
 * read_wevt.c
 * ==================================================================== */

typedef struct WevtSpan {
    uint32_t at, len;
    char *what; /* "provider 0, EVNT[3] message id" (heap) */
} WevtSpan;

/* A named entry of CHAN, OPCO, LEVL, TASK, KEYW or FLTR, as stored. */
typedef struct WevtItem {
    uint64_t value;   /* channel, level, task or filter value, opcode value, keyword mask */
    uint32_t flags;   /* CHAN: 1 imported */
    uint16_t task;    /* OPCO: the task value (0 provider-level) */
    uint8_t version;  /* FLTR */
    int tmpl;         /* FLTR: its template's index, -1 none */
    uint32_t message; /* 0xFFFFFFFF: none */
    Guid guid;        /* TASK: eventGUID (zero: none) */
    const char *name; /* UTF-8 */
} WevtItem;

typedef struct WevtMapItem {
    uint32_t value, message;
} WevtMapItem;

typedef struct WevtMap {
    bool bitmap;
    const char *name;
    size_t n;
    WevtMapItem *items; /* as stored: sorted by value */
} WevtMap;

/* A property entry (wevt-template.md 10.1). */
typedef struct WevtProperty {
    uint32_t flags; /* 1 struct, 2 fixed length, 4 length names a property, 8 fixed count,
                     * 0x10 count names a property */
    uint8_t in, out;        /* data: inType, outType codes */
    uint16_t first, members; /* struct: its members' first index and count */
    int map;                /* index into the provider's maps, -1 none */
    uint16_t count, length;
    const char *name;
} WevtProperty;

/* A patternMap of QTAB: its name, format and items. */
typedef struct WevtQuery {
    const char *name, *format;
    size_t n;
    const char **item_names, **item_values;
} WevtQuery;

typedef struct WevtTemplate {
    uint32_t kind; /* 1 EventData, 2 UserData */
    uint32_t ntop;
    unsigned char id[16];
    const char *name; /* EventData's Name attribute (the tid's name=), or NULL */
    const char *xml; /* the BinXml fragment as XML text, substitutions as %N */
    size_t n;
    WevtProperty *props;
} WevtTemplate;

typedef struct WevtEvent {
    uint16_t id;
    uint8_t version, channel, level, opcode;
    uint16_t task;
    uint64_t keywords;
    uint32_t message;
    /* the entries it points at: indices into the provider's lists, -1 none */
    int tmpl, chan, levl, opco, tsk;
    size_t nkeyw;
    int *keyw;
    const char *name;         /* EVTA: name=, or NULL */
    size_t nattrs;
    const char **attrs;       /* EVTA: "key=value", as written */
} WevtEvent;

typedef struct WevtProvider {
    Guid guid;
    uint32_t message;
    uint32_t channels, opcodes, levels, tasks, keywords, templates;
    VEC(WevtEvent) events;
    /* the lists in full (in the file's arena); counts above */
    WevtItem *chan, *opco, *levl, *task, *keyw;
    WevtTemplate *temp;
    size_t nmaps, nfilters, nqueries;
    WevtMap *maps;     /* in file (manifest) order */
    WevtItem *filters;
    WevtQuery *queries;
    const char *name;  /* PRVA (v5): the provider's name, or NULL */
    bool has_control, has_group;
    Guid control, group; /* PRVA */
} WevtProvider;

typedef struct WevtFile {
    uint16_t major, minor;
    VEC(WevtProvider) providers;
    VEC(WevtSpan) spans; /* where each field lives */
    Arena arena;         /* names, entries and lists of the providers */
} WevtFile;

/* Reads a TEMP.BIN strictly.  false with `err` set to "offset 0x..: what
 * is wrong"; `out` holds what was read before (free it either way). */
bool wevt_read(const void *bytes, size_t n, WevtFile *out, Buf *err);
/* The same, recording the spans only when `spans` (--dump and --decompile
 * need none: a span is a formatted string per field). */
bool wevt_read_content(const void *bytes, size_t n, WevtFile *out, Buf *err, bool spans);
/* The name of the field at `offset`, as recorded by wevt_read. */
const char *wevt_explain(const WevtFile *f, uint32_t offset);
void wevt_free(WevtFile *f);

/* ======================================================================
 * emit_rc.c
 * ==================================================================== */

/* The resource script: a LANGUAGE / message-table pair for every table
 * (in the order given), then the WEVT_TEMPLATE line when wevt_name is not
 * NULL.  CRLF.  quoted: file names in quotes (all but mc 2005).  false
 * after a diagnostic (the rc.j2 template missing or failing, a file name
 * an .rc string cannot hold). */
struct TemplateFinder;
typedef struct RcTable {
    uint32_t langid;
    const char *file;
} RcTable;
bool rc_build(const RcTable *tables, size_t n, const char *wevt_name, bool quoted,
              struct TemplateFinder *tf, Buf *out);
/* A manifest's tables: for each culture with a name in names[] (NULL:
 * no table), its language id and that name; out has room for one per
 * culture.  Returns how many. */
size_t rc_manifest_tables(const Manifest *m, const char *const *names, RcTable *out);

/* ======================================================================
 * emit_json.c
 * ==================================================================== */

/* The model as the document docs/json-model.md describes, walked once for
 * both of its readers: --json's text and the values user templates see
 * (emit_render.c).  The walk calls the sink in document order: begin/end of an
 * object or list, a key before each member of an object, then its value.
 * Keys are literals or strings of the manifest (they live as long as it
 * does); a string value may be a temporary, so a sink keeps a copy. */
typedef struct ModelSink ModelSink;
struct ModelSink {
    void (*begin)(ModelSink *s, bool list);
    void (*end)(ModelSink *s, bool list);
    void (*key)(ModelSink *s, const char *k);
    void (*str)(ModelSink *s, const char *v);
    void (*uint)(ModelSink *s, uint64_t v);
    void (*boolean)(ModelSink *s, bool v);
    void (*null)(ModelSink *s);
    /* keep: the value just ended is obj's (a template's fields); again:
     * obj's kept value added once more (false: none kept), so that an
     * event's fields are its template's, not a copy */
    void (*keep)(ModelSink *s, const void *obj);
    bool (*again)(ModelSink *s, const void *obj);
};
void json_walk(const Manifest *m, ModelSink *s);
/* --json: the walk as compact JSON text, written out as it is made. */
void json_write_model(const Manifest *m, Out *out);
void json_model_to_buf(const Manifest *m, Buf *b);

/* ======================================================================
 * out.c
 * ==================================================================== */

/* The outputs of one run, committed together (see out.c).  outset_open
 * adds an output; bytes put into it reach its target only at
 * outset_commit(s, true), and only when every output of the set could be
 * made complete: regular files through a temporary renamed into place
 * (untouched when their bytes do not change; a symlink's target replaced,
 * the link kept), anything else (`-` for standard output, a device, a FIFO,
 * /dev/stdout) written in place.  outset_commit(s, false), or any failure,
 * writes nothing and leaves every old output as it was.  Errors are
 * diagnosed once (diag_io); outset_commit returns false then.  It frees the
 * set and its Outs. */
typedef struct OutSet OutSet;
OutSet *outset_new(void);
Out *outset_open(OutSet *s, const char *path);
void out_put(Out *o, const void *p, size_t n);
/* Overwrites n bytes at `at`, among those put already (a size or an offset
 * known only later).  An output patched is compared with the file it
 * replaces when complete, so an unchanged one still keeps its mtime. */
void out_patch(Out *o, uint64_t at, const void *p, size_t n);
bool outset_commit(OutSet *s, bool ok);
/* A run's files, before anything is read or written: false after a usage
 * diagnostic (exit 2) when an output names an input (the same file, or the
 * same normalised name when it does not exist yet) or another output. */
/* Whether path is (or, when absent, will be) a regular file, through any
 * symlinks: not standard output, a device, a FIFO or a socket. */
bool out_is_file(const char *path);
bool out_check_paths(const char *const *inputs, size_t ninputs, const char *const *outputs,
                     size_t noutputs);

/* ======================================================================
 * generated at build time (from schema/, templates/, tools/version)
 * ==================================================================== */

extern const unsigned char embed_winmeta_xml[];
extern const unsigned long embed_winmeta_xml_len;
extern const unsigned char embed_eventman_xsd[];
extern const unsigned long embed_eventman_xsd_len;
/* The same documents recorded by xml_record when mcgen is built
 * (tools/xmlrec.c into build/gen/records.c). */
extern const unsigned char rec_winmeta_xml[];
extern const unsigned long rec_winmeta_xml_len;
extern const unsigned char rec_eventman_xsd[];
extern const unsigned long rec_eventman_xsd_len;
/* build/gen/version.c (tools/version): the version, and the commit as
 * `git describe --tags --always --dirty` gave it */
extern const char mcgen_version[];
extern const char mcgen_commit[];

/* ======================================================================
 * cli.c
 * ==================================================================== */

typedef enum { HEADER_DESCRIPTORS, HEADER_UM, HEADER_KM } HeaderMode;
/* --backends: what the -um header's logging code writes to (a mask);
 * etw alone is mc's header (docs/linux.md). */
enum { BACKEND_ETW = 1, BACKEND_LTTNG = 2, BACKEND_USER_EVENTS = 4 };
/* Which mc's .mc outputs (docs/message-text.md lists the differences):
 * today's; the Windows 10 SDK's of Oct 2018 to 2024 (.rc languages in
 * reverse order, no (char*) in the .dbg); up to 10.0.17134 (and facility
 * and severity defines sorted by name, descending; the .dbg with LF line
 * ends); 2005's (and "layed out", "//  " before text lines, .rc file
 * names unquoted); and an older one whose tables were ANSI by default. */
typedef enum { MC_CURRENT, MC_2020, MC_2017, MC_2005, MC_1998 } McEra;
typedef enum { ENC_ANSI, ENC_UTF8, ENC_UTF16 } TextEncoding;

typedef struct RenderJob {
    const char *tmpl, *output;
} RenderJob;

/* What the command line asks for: mc.exe's switches and mcgen's own. */
typedef struct Options {
    const char *input; /* the first of inputs */
    VEC(const char *) inputs; /* several only with --validate */
    bool validate;            /* --validate: check, write nothing */
    /* mc.exe's switches (../shared/docs/mc-cli.md) */
    HeaderMode mode;                 /* -um, -km; neither: descriptors only */
    const char *header_dir, *rc_dir; /* -h, -r; NULL: the current directory */
    const char *base;                /* -z */
    const char *header_ext;          /* -e, "h" by default */
    const char *prefix;              /* -p */
    const char *strip_prefix;        /* -P */
    const char *ignored_schema;      /* -W/-w: accepted, not used */
    bool input_base;                 /* -b */
    bool callout;                    /* -co */
    bool verbose;                    /* -v */
    MsgTableOptions tables;          /* -A, -U, -n */
    TextEncoding encoding;           /* -cp */
    bool encoding_given;             /* -cp was given (--render follows it then) */
    /* mc.exe's switches for message-text (.mc) files */
    bool utf16_input;                /* -u (-a: ANSI, the default) */
    bool customer_bit;               /* -c */
    bool decimal;                    /* -d */
    bool ole2;                       /* -o */
    bool unicode_tables;             /* -U given (beats --mc-compat=1998's ANSI) */
    uint32_t max_message_length;     /* -m N; 0: no limit */
    const char *dbg_dir;             /* -x */
    const char *cs_namespace;        /* -cs/-css: <base>.cs in this namespace */
    bool cs_static;                  /* -css: a static class */
    McEra era;                       /* --mc-compat: the mc of .mc outputs */
    bool era_year;                   /* --mc-compat named a year before manifests */
    /* mcgen's own */
    bool lf;                         /* --line-endings=lf */
    bool line_endings_given;         /* --line-endings was given (--render follows it then) */
    unsigned backends;               /* --backends: BACKEND_* bits; 0: etw */
    bool help, version, print_outputs;
    bool selected; /* an output was named: write only the named ones ... */
    bool mc_outputs; /* --mc-outputs: ... and mc's outputs too */
    const char *json, *wevt, *rc, *tables_dir, *check_wevt, *explain;
    bool dump, dump_json;  /* --dump, --dump-format=json */
    bool decompile;        /* --decompile */
    const char *output;    /* --output (-o FILE with --decompile): the manifest */
    const char *depfile; /* --depfile: Makefile rule of outputs and inputs */
    const char *diag_output; /* --diagnostics-output: the document's file */
    const char *templates_dir; /* --templates: built-in templates overridden by name */
    TmplLimits template_limits; /* --template-max-*: renders of the user's templates */
    VEC(RenderJob) renders;    /* --render=TEMPLATE:OUTPUT */
    const char *dotnet_namespace; /* --dotnet-namespace: --dotnet's classes' namespace */
    /* --NAME=VALUE of an emitter row that has its own option (emit.c) */
    VEC(struct EmitterArg { const struct Emitter *by; const char *value; }) emitter_args;
    Arena arena; /* strings the options own */
    WevtFormat format;
} Options;

/* Reads the command line.  -1: go on; otherwise the exit status, after a
 * diagnostic for a bad command line. */
int cli_parse(int argc, char **argv, Options *o);
/* --help: the usage, then one line per row of the option table. */
void cli_usage(FILE *f);

/* The files mc would write (paths, with -h/-r directories) and the names
 * the .rc gives the binaries.  tables[i] is NULL for a culture without a
 * table (has_table[i] false). */
typedef struct OutputNames {
    char *header, *rc, *wevt, *wevt_name;
    char *mc_header, *dbg; /* a .mc's header and -x's symbol map */
    size_t ntables;
    char **tables, **table_names;
} OutputNames;
/* man, mc: the run's manifest and .mc (either may be NULL); tables[i]:
 * the name of table i without ".bin" (MSG00001), NULL for none.  The .rc
 * and TEMP.BIN are named after the .mc when there is one (mc's naming). */
void cli_output_names(const Options *o, const char *man, const char *mc, size_t ntables,
                      const char *const *tables, OutputNames *out);
/* Whether a path names a message-text file (.mc, any case). */
bool cli_is_mc(const char *path);
void cli_output_names_free(OutputNames *n);

/* ======================================================================
 * check_rules.c, check_payload.c
 * ==================================================================== */

/* The semantic rules, on a resolved model with a valid structure (called
 * by the manifest loaders): errors and warnings through diag_c/diag_ex. */
void check_rules(Manifest *m);
/* "12", or "12 version 1": an event as a diagnostic names it. */
const char *event_label(Arena *a, const Event *e);
void check_payload(Manifest *m);

/* One '%' sequence of a message text that FormatMessage reads as more than
 * a character (check_payload.c has its grammar): an insert, %0, or a '%'
 * that ends the text or a line.  Shared by manifest strings and .mc texts. */
typedef enum InsertKind {
    INS_ARG,  /* %1 .. %99, optionally !format! */
    INS_STOP, /* %0: FormatMessage writes nothing after it */
    INS_LONE, /* '%' before the end of the text, a CR or an LF */
} InsertKind;
typedef enum FormatState {
    FMT_NONE,        /* no !format! (FormatMessage's default, !s!) */
    FMT_OK,          /* a printf format FormatMessage takes */
    FMT_UNCLOSED,    /* '!' and no '!' after it: FormatMessage fails */
    FMT_BAD,         /* up to the next '!' is no printf format */
    FMT_UNSUPPORTED, /* a printf conversion FormatMessage does not take */
} FormatState;
typedef struct Insert {
    InsertKind kind;
    uint32_t n;         /* INS_ARG: 1..99 */
    bool third_digit;   /* INS_ARG: a digit follows the two FormatMessage reads */
    FormatState format; /* INS_ARG */
    const char *at;     /* the '%' */
    size_t len;         /* as written (to the end of the text when unclosed) */
    const char *fmt;    /* after the first '!' (format != FMT_NONE) */
    size_t fmt_len;     /* up to the next '!' (not FMT_UNCLOSED) */
} Insert;
/* The next such sequence of `s` from *pos (a byte offset, 0 at first),
 * *pos moved past it; false at the end. */
bool insert_next(const char *s, size_t *pos, Insert *out);
/* Why FormatMessage does not take an FMT_UNSUPPORTED format's conversion. */
const char *insert_unsupported_why(const Insert *in);
/* mc's -A (ANSI message tables): every text a message table holds must be
 * written in Windows-1252; MCG5018 at each string that cannot.  Run by
 * check_manifest when -A is given, in a compile and in --validate alike. */
void check_ansi_tables(Manifest *m);

/* ======================================================================
 * check_limits.c
 * ==================================================================== */

/* The limits of the formats and of the generated code (message-table
 * entry lengths, TEMP.BIN's 16-bit counts and indices, EventWrite's 128
 * descriptors, 127 macro parameters), each a coded error at the element
 * that exceeds it; the options say which tables (-A, -n) and which
 * logging code (-um, -km) the run writes. */
void check_limits(Manifest *m, const Options *o);
/* What one top-level field takes in -um/-km logging code: its
 * EVENT_DATA_DESCRIPTORs and its parameters in the write macros (2 when
 * the caller passes a length), from its payload plan (field_plan); the
 * header checks each function it writes against them. */
void check_field_pieces(const Field *f, unsigned *descriptors, unsigned *params);

/* ======================================================================
 * emit_header.c
 * ==================================================================== */

/* mc's C identifier for a name (a leading digit and every character
 * outside [A-Za-z0-9_] become '_'). */
char *header_ident(Arena *a, const char *name);
/* The same, but name itself when it is one already (no copy). */
const char *header_ident_of(Arena *a, const char *name);
/* Appends mc's type code of a template field (header-api.md 6). */
void header_mangle_field(const Field *f, Buf *out);
/* How the header passes one top-level field, as add_field reads it: mc's
 * letter, count= and length= normalised (a count of 0 or 1 and a length
 * of 0 are none; a field count is the index of its field), whether the
 * caller passes a length (_Len_) and whether a struct's members all have
 * a size the manifest gives.  The Linux backends' parameters follow it. */
typedef struct FieldShape {
    char letter;
    QtyKind count, length;
    uint32_t count_n, length_n;
    bool takes_len, members_fixed;
} FieldShape;
void header_field_shape(const Field *f, FieldShape *s);
/* The values the logging code of the header needs, as a template value:
 *   providers[i]: ident (the provider name as an identifier), symbol,
 *     control_guid (bool), traits (none, or the pieces {literal, comment}
 *     of the traits' C string), traits_size, enable_count,
 *     enable_levels[], enable_keywords[], events[j]: symbol, macro_name
 *     (the symbol without the -P prefix), not_logged,
 *     bit, and unless notLogged: function (the McTemplate name), args[]
 *     (the EventWrite macro's parameters)
 *   functions[]: one per name, sorted: name, template (the first tid or
 *     none), argcount, params[] {sal, type, name}, data[] {index, ptr,
 *     size}, locals[] (C declarations)
 *   write_prefix: EventWrite, or -p's prefix
 *   activity: -km: the write macros and functions take an activity id
 * providers and events are in Manifest order; o may be NULL (-um).
 * events[], functions[] and messages[] are generated lists (tv_generated):
 * their items are made when a template asks for them, from m and f, which
 * must outlive the values (o need not). */
struct TValue;
struct TValue *header_values(const Manifest *m, const Facts *f, const Options *o, Arena *a);
/* Finds templates by name: in first_dir (a user template's own
 * directory), then override_dir (--templates), then among the built-in
 * ones; remembers the files read from disk (for --depfile). */
typedef struct TemplateFinder {
    TmplLoader loader; /* pass &finder.loader to tmpl_render */
    const char *override_dir, *first_dir;
    TmplLimits limits; /* for the user's templates (Options.template_limits) */
    VEC(char *) read;  /* paths of the template files read */
    VEC(char *) texts;
} TemplateFinder;
void finder_init(TemplateFinder *tf, const char *override_dir, const char *first_dir);
const char *finder_load(TemplateFinder *tf, const char *name, size_t *len);
/* The limits of a render of a built-in output's template (the header, the
 * .rc): the user's when --templates may put user text in it; none for
 * the built-in templates alone, whose work is linear in the model. */
const TmplLimits *finder_limits(const TemplateFinder *tf);
void finder_free(TemplateFinder *tf);
/* A built-in template's text, or NULL. */
const char *template_builtin(const char *name, size_t *len);

/* The C header mc would write for the options (-um/-km: with the logging
 * code; otherwise descriptors only), rendered from header.h.j2 into `out`
 * as it is made (whole lines); false after a diagnostic.  `lines`, when
 * not NULL, is two sinks for text whose line ends are as o->lf asks
 * already (the built-in header writer makes them itself and writes
 * there): lines[1] for text known to be ASCII, lines[0] for the rest. */
bool header_build(const Manifest *m, const Facts *f, const Options *o, TemplateFinder *tf,
                  const TmplSink *out, const TmplSink *lines);

/* ======================================================================
 * emit_mc.c
 * ==================================================================== */

/* A .mc file's C header as mc writes it for the options (-d, -o,
 * --mc-compat); false after a diagnostic (a template). */
bool mc_header_build(const Manifest *m, const Options *o, TemplateFinder *tf, Buf *out);
/* What mc -x writes: <base>SymbolicNames[], the ids' symbolic names. */
bool mc_dbg_build(const Manifest *m, const Options *o, const char *base, TemplateFinder *tf,
                  Buf *out);

/* ======================================================================
 * emit_render.c
 * ==================================================================== */

/* The values user templates render against: the JSON model
 * (docs/json-model.md) plus `header` (header_values, with logging and
 * callout); see docs/templates.md. */
struct TValue *render_values(const Manifest *m, const Facts *f, const Options *o, Arena *a);
/* --render: the template file at path rendered against render_values;
 * false after a diagnostic. */
bool render_user_template(const Manifest *m, const Facts *f, const Options *o, const char *path,
                          const TmplSink *out, TemplateFinder *tf);
/* The template `name` (finder.c finds it) rendered against vars; false
 * after a diagnostic. */
bool render_named(TemplateFinder *tf, const char *name, const struct TValue *vars,
                  const TmplSink *out);
/* A built-in template (templates/, or --templates' file of that name)
 * rendered against render_values plus `cs`: {namespace (or none), static}
 * (the C# outputs: -cs/-css and --dotnet); false after a diagnostic. */
bool render_builtin(const Manifest *m, const Facts *f, const Options *o, const char *name,
                    const char *ns, bool static_class, const TmplSink *out, TemplateFinder *tf);

/* The files of templates/, built in (build/gen/templates.c); the list
 * ends with a NULL name. */
typedef struct EmbeddedFile {
    const char *name;
    const unsigned char *bytes;
    unsigned long len;
} EmbeddedFile;
extern const EmbeddedFile embedded_templates[];

/* ======================================================================
 * read.c: the reader table
 * ==================================================================== */

/* A binary input, decoded: the WEVT_TEMPLATE resource and the message
 * tables of one or more files (a TEMP.BIN, MSG*.bin, a .res, a PE image),
 * for --dump and --decompile. */
typedef struct BinTable {
    uint16_t lang;    /* the resource's language; 0 for a bare MSG*.bin */
    const char *from; /* "app.dll" or "MSG00001.bin" */
    MsgTable table;
} BinTable;

typedef struct BinImage {
    bool has_wevt;
    const char *wevt_from;
    uint16_t wevt_lang; /* the resource's language (rc gives it the last
                         * LANGUAGE's: the .rc's last culture); 0 bare */
    WevtFile wevt;
    VEC(BinTable) tables;
    Arena arena;
} BinImage;

/* An input format: its name, whether a file is of it (its path and its
 * first 64 bytes), and its reader: a text format's `read` gives a raw
 * model (or NULL after diagnostics); a binary format's `read_bin` adds
 * what the file holds to an image (false with `err` set to "offset 0x..:
 * what is wrong"). */
typedef struct Reader {
    const char *name;
    bool (*recognises)(const char *path, const unsigned char *head, size_t n);
    Manifest *(*read)(const char *path, const struct Options *o);
    bool (*read_bin)(const char *path, const unsigned char *p, size_t n, BinImage *img,
                     Buf *err);
} Reader;
extern const Reader readers[]; /* ends with a NULL name */
/* The row of that name ("wevt", "pe", ...), or NULL. */
const Reader *reader_named(const char *name);
/* The input read by the first reader that recognises it (the first row
 * when none does, to report what is wrong with it). */
Manifest *read_input(const char *path, const struct Options *o);
/* A binary input added to `img` by the row that recognises it; false with
 * "PATH: what is wrong" in `err` (a text input, an unreadable file, the
 * reader's error).  A second WEVT_TEMPLATE is an error. */
bool read_binary(const char *path, BinImage *img, Buf *err);
void bin_free(BinImage *img);
/* "offset 0x..: " and the message into err; false (the binary readers'
 * one error form). */
bool bin_fail(Buf *err, size_t at, const char *fmt, ...) PRINTF_LIKE(3, 4);

/* ======================================================================
 * dump.c: --dump
 * ==================================================================== */

/* What the binaries of `img` declare, as a listing or as JSON (the JSON
 * model's vocabulary), appended to `out`. */
void dump_write(const BinImage *img, bool json, Buf *out);
/* The tid a template of a binary is given: "T" and its index. */
void bin_tid(Buf *b, size_t index);
/* The text of message `id` in table t without mc's "\r\n" (in scratch),
 * or NULL when t has no such message. */
const char *bin_message_text(const BinTable *t, uint32_t id, Buf *scratch);
/* The culture of a table: its language's name; en-US for a bare
 * MSG*.bin (language 0) when it is the image's only one; else
 * "unknown". */
const char *bin_culture(const BinImage *img, const BinTable *t);

/* ======================================================================
 * decompile.c: --decompile
 * ==================================================================== */

/* A manifest that compiles back to the binaries of `img`, appended to
 * out; `file` goes into resourceFileName and messageFileName.  false with
 * err set when the image cannot give one (a table whose language is not
 * known). */
bool decompile_write(const BinImage *img, const char *file, Buf *out, Buf *err);

/* ======================================================================
 * read_res.c, read_pe.c: resource containers
 * ==================================================================== */

/* A resource of a .res file or a PE image. */
typedef struct Resource {
    const char *type; /* a named type ("WEVT_TEMPLATE"), or NULL: type_id */
    uint32_t type_id; /* 11: RT_MESSAGETABLE */
    const char *name; /* or NULL: name_id */
    uint32_t name_id;
    uint16_t lang;
    size_t at, size; /* the data's place in the file */
} Resource;
typedef VEC(Resource) ResourceList;

/* Whether the first bytes are a .res file's marker entry, a PE's "MZ". */
bool res_is(const unsigned char *head, size_t n);
bool pe_is(const unsigned char *head, size_t n);
/* The resources of a .res file or a PE image (names in `a`), strictly;
 * false with "offset 0x..: what is wrong" in err. */
bool res_read(const void *bytes, size_t n, ResourceList *out, Arena *a, Buf *err);
bool pe_read(const void *bytes, size_t n, ResourceList *out, Arena *a, Buf *err);

/* ======================================================================
 * emit.c: the emitter table
 * ==================================================================== */

/* What every emitter gets: all const but the template finder (which
 * remembers the template files read, for --depfile). */
typedef struct EmitCtx {
    const Manifest *m;  /* the manifest, or NULL */
    const Manifest *mc; /* the .mc file compiled in the same run, or NULL */
    const Facts *facts;
    const Options *o;
    TemplateFinder *tf;
    OutputNames names; /* mc's names for this input */
    bool mc_outputs;   /* mc's default outputs are written */
} EmitCtx;

struct Emitter;
typedef struct OutputFile {
    const char *path;
    const struct Emitter *by;
    size_t part; /* which of the row's files: a culture, a --render job */
} OutputFile;

typedef struct OutputList {
    VEC(OutputFile) files;
    Arena arena; /* paths made here */
} OutputList;

/* An output: `files` adds the files it writes in this run (none when it
 * is not asked for); `build` writes file `part` into `out`, false after a
 * diagnostic.  A row with an `option` is asked for by --OPTION=ARG (the
 * command line finds it here, and --help lists it with `help`). */
typedef struct Emitter {
    const char *name;
    void (*files)(const EmitCtx *c, OutputList *l);
    bool (*build)(const EmitCtx *c, size_t part, const char *path, Out *out);
    const char *option, *arg, *help;
} Emitter;
/* Every output, in the order files are listed and written; ends with NULL. */
extern const Emitter *const emitters[];
/* The value given to a row's own option, or NULL. */
const char *emit_arg(const Options *o, const Emitter *e);

void emit_outputs(const EmitCtx *c, OutputList *l);
void output_add(OutputList *l, const char *path, size_t part);
/* "dir/name", kept in the list's arena. */
const char *output_path(OutputList *l, const char *dir, const char *name);
void output_list_free(OutputList *l);

/* ======================================================================
 * emit_linux.c: the header's Linux backends (--backends, docs/linux.md)
 * ==================================================================== */

/* What goes before the ETW header and after it (#if defined(_WIN32) ...
 * #else the Linux branch #endif), BASE_lttng.h and BASE_lttng.c. */
typedef enum { LINUX_BEGIN, LINUX_END, LINUX_LTTNG_HEADER, LINUX_LTTNG_SOURCE } LinuxPart;
bool linux_build(const EmitCtx *c, LinuxPart part, const TmplSink *out);
/* BASE_lttng.h (or .c when source) beside the header path, in a. */
const char *linux_lttng_path(Arena *a, const char *header, bool source);

#endif
