/*
 * fuzz_tmpl.c - the template engine: any bytes parsed as a template and,
 * when they parse, rendered against the values --render gives a template
 * (render_values) of a small manifest of this file's own with a bit of
 * everything (a provider, channels, levels, tasks, opcodes, keywords, a
 * map, a template with fields, events, strings in two cultures).  An
 * include of any name gives the input itself, so include chains are
 * reached too.  The values are built once and kept for the whole run.
 * Renders run within limits far below the defaults (1 MiB of output or of
 * one string, 100,000 iterations), so that an input that would run into
 * the defaults is refused in milliseconds rather than counted as a
 * timeout: the limits themselves are what is exercised.
 */
#include "fuzz.h"

#include <string.h>

static const char manifest[] =
    "<?xml version='1.0' encoding='UTF-8'?>\n"
    "<instrumentationManifest xmlns='http://schemas.microsoft.com/win/2004/08/events'\n"
    "    xmlns:win='http://manifests.microsoft.com/win/2004/08/windows/events'\n"
    "    xmlns:xs='http://www.w3.org/2001/XMLSchema'>\n"
    "<instrumentation><events>\n"
    "<provider name='Fuzz-Provider' guid='{8c8a5ce8-5f1b-4c5b-9d7e-0123456789ab}'\n"
    "    symbol='FUZZ_PROVIDER' resourceFileName='f.dll' messageFileName='f.dll'\n"
    "    message='$(string.provider)'>\n"
    "<channels><channel chid='op' name='Fuzz-Provider/Operational' type='Operational'\n"
    "    enabled='true' symbol='FUZZ_OP'/></channels>\n"
    "<levels><level name='Chatty' value='16' symbol='LVL_CHATTY'/></levels>\n"
    "<tasks><task name='Work' value='1' symbol='TASK_WORK'>\n"
    "  <opcodes><opcode name='Step' value='10' symbol='OP_STEP'/></opcodes></task></tasks>\n"
    "<keywords><keyword name='Io' mask='0x1' symbol='KW_IO'/>\n"
    "  <keyword name='Net' mask='0x2'/></keywords>\n"
    "<maps><valueMap name='Color'><map value='1' message='$(string.red)'/>\n"
    "  <map value='2' message='$(string.green)'/></valueMap></maps>\n"
    "<templates><template tid='T'>\n"
    "  <data name='Count' inType='win:UInt32'/>\n"
    "  <data name='Name' inType='win:UnicodeString'/>\n"
    "  <data name='Color' inType='win:UInt32' map='Color'/>\n"
    "  <data name='Items' inType='win:Int64' count='Count'/>\n"
    "  <data name='Blob' inType='win:Binary' length='Count'/>\n"
    "  <struct name='Pair' count='Count'><data name='A' inType='win:Int8'/>\n"
    "    <data name='B' inType='win:AnsiString'/></struct>\n"
    "</template></templates>\n"
    "<events>\n"
    "<event value='1' symbol='Started' level='win:Informational' task='Work' opcode='Step'\n"
    "    keywords='Io Net' channel='op' template='T' message='$(string.started)'/>\n"
    "<event value='2' version='1' symbol='Stopped' level='Chatty' channel='op'/>\n"
    "</events></provider></events></instrumentation>\n"
    "<localization>\n"
    "<resources culture='en-US'><stringTable>\n"
    "  <string id='provider' value='Fuzz provider'/><string id='red' value='Red'/>\n"
    "  <string id='green' value='Green'/><string id='started' value='Started %1 %2'/>\n"
    "</stringTable></resources>\n"
    "<resources culture='de-DE'><stringTable>\n"
    "  <string id='provider' value='Fuzz-Anbieter'/><string id='red' value='Rot'/>\n"
    "  <string id='green' value='Gr\xC3\xBCn'/><string id='started' value='Gestartet %1 %2'/>\n"
    "</stringTable></resources>\n"
    "</localization></instrumentationManifest>\n";

/* Kept for the whole run (the values may point into the model). */
static Manifest *model;
static Facts facts;
static Arena values_arena;
static TValue *values;

static void make_values(void)
{
    Options o = {.mode = HEADER_UM, .header_ext = "h"};
    Buf diags = {0};
    diag_set_capture(&diags);
    model = read_man_mem("fuzz-values.man", manifest, sizeof manifest - 1, 0);
    if (!model || !check_manifest(model, &o, &facts)) {
        fprintf(stderr, "fuzz_tmpl: the values' manifest does not compile:\n%s\n", diags.s);
        abort();
    }
    values = render_values(model, &facts, &o, &values_arena);
    diag_set_capture(NULL);
    diag_reset();
    buf_free(&diags);
}

static const TmplLimits limits = {1 << 20, 1 << 20, 100000};

typedef struct Input {
    const char *s;
    size_t n;
} Input;

static const char *load_self(void *ctx, const char *name, size_t *len)
{
    (void)name;
    const Input *in = ctx;
    *len = in->n;
    return in->s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!values)
        make_values();
    fuzz_begin();
    Buf err = {0}, out = {0};
    Input in = {(const char *)data, size};
    TmplLoader loader = {&in, load_self};
    Tmpl *t = tmpl_parse("fuzz.j2", (const char *)data, size, &err);
    FUZZ_ASSERT(t || err.len > 0, "a template refused without an error");
    if (t) {
        bool ok = tmpl_render(t, values, &loader, &limits, &out, &err);
        FUZZ_ASSERT(ok || err.len > 0, "a render failed without an error");
        tmpl_free(t);
    }
    buf_free(&err);
    buf_free(&out);
    fuzz_end();
    return 0;
}
