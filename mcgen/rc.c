/*
 * rc.c - the resource script (<base>.rc) that puts the binaries into a
 * module, as mc.exe writes it (../shared/docs/mc-cli.md 4.3):
 *
 *   LANGUAGE 0x9,0x1                       one pair per culture
 *   1 11 "MSG00001.bin"                    RT_MESSAGETABLE, id 1
 *   1 WEVT_TEMPLATE "appTEMP.BIN"          once, for manifests with providers
 *
 * with CRLF line endings (the caller's encoding step).  The LANGUAGE pair
 * is the primary and sub language of the culture's Windows language id;
 * the text comes from templates/rc.j2.
 */
#include "mcgen.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Culture names and their Windows language ids (LANGID, the low 16 bits
 * of the LCID), sorted by name ignoring case. */
static const struct Lang {
    const char *name;
    uint16_t langid;
} langs[] = {
    {"af-ZA", 0x0436},
    {"am-ET", 0x045E},
    {"ar-AE", 0x3801},
    {"ar-BH", 0x3C01},
    {"ar-DZ", 0x1401},
    {"ar-EG", 0x0C01},
    {"ar-IQ", 0x0801},
    {"ar-JO", 0x2C01},
    {"ar-KW", 0x3401},
    {"ar-LB", 0x3001},
    {"ar-LY", 0x1001},
    {"ar-MA", 0x1801},
    {"ar-OM", 0x2001},
    {"ar-QA", 0x4001},
    {"ar-SA", 0x0401},
    {"ar-SY", 0x2801},
    {"ar-TN", 0x1C01},
    {"ar-YE", 0x2401},
    {"arn-CL", 0x047A},
    {"as-IN", 0x044D},
    {"az-AZ", 0x042C},
    {"ba-RU", 0x046D},
    {"be-BY", 0x0423},
    {"bg-BG", 0x0402},
    {"bn-IN", 0x0445},
    {"bo-BT", 0x0851},
    {"bo-CN", 0x0451},
    {"br-FR", 0x047E},
    {"bs-BA", 0x201A},
    {"ca-ES", 0x0403},
    {"co-FR", 0x0483},
    {"cs-CZ", 0x0405},
    {"cy-GB", 0x0452},
    {"da-DK", 0x0406},
    {"de-AT", 0x0C07},
    {"de-CH", 0x0807},
    {"de-DE", 0x0407},
    {"de-LI", 0x1407},
    {"de-LU", 0x1007},
    {"div-MV", 0x0465},
    {"dsb-DE", 0x082E},
    {"el-GR", 0x0408},
    {"en-AU", 0x0C09},
    {"en-BZ", 0x2809},
    {"en-CA", 0x1009},
    {"en-CB", 0x2409},
    {"en-GB", 0x0809},
    {"en-IE", 0x1809},
    {"en-IN", 0x4009},
    {"en-JA", 0x2009},
    {"en-MY", 0x4409},
    {"en-NZ", 0x1409},
    {"en-PH", 0x3409},
    {"en-TT", 0x2C09},
    {"en-US", 0x0409},
    {"en-ZA", 0x1C09},
    {"en-ZW", 0x3009},
    {"es-AR", 0x2C0A},
    {"es-BO", 0x400A},
    {"es-CL", 0x340A},
    {"es-CO", 0x240A},
    {"es-CR", 0x140A},
    {"es-DO", 0x1C0A},
    {"es-EC", 0x300A},
    {"es-ES", 0x040A},
    {"es-GT", 0x100A},
    {"es-HN", 0x480A},
    {"es-MX", 0x080A},
    {"es-NI", 0x4C0A},
    {"es-PA", 0x180A},
    {"es-PE", 0x280A},
    {"es-PR", 0x500A},
    {"es-PY", 0x3C0A},
    {"es-SV", 0x440A},
    {"es-UR", 0x380A},
    {"es-US", 0x540A},
    {"es-VE", 0x200A},
    {"et-EE", 0x0425},
    {"eu-ES", 0x042D},
    {"fa-IR", 0x0429},
    {"fi-FI", 0x040B},
    {"fil-PH", 0x0464},
    {"fo-FO", 0x0438},
    {"fr-BE", 0x080C},
    {"fr-CA", 0x0C0C},
    {"fr-CH", 0x100C},
    {"fr-FR", 0x040C},
    {"fr-LU", 0x140C},
    {"fr-MC", 0x180C},
    {"fy-NL", 0x0462},
    {"ga-IE", 0x083C},
    {"gbz-AF", 0x048C},
    {"gl-ES", 0x0456},
    {"gsw-FR", 0x0484},
    {"gu-IN", 0x0447},
    {"ha-NG", 0x0468},
    {"he-IL", 0x040D},
    {"hi-IN", 0x0439},
    {"hr-BA", 0x101A},
    {"hr-HR", 0x041A},
    {"hu-HU", 0x040E},
    {"hy-AM", 0x042B},
    {"id-ID", 0x0421},
    {"ii-CN", 0x0478},
    {"is-IS", 0x040F},
    {"it-CH", 0x0810},
    {"it-IT", 0x0410},
    {"iu-CA", 0x045D},
    {"ja-JP", 0x0411},
    {"ka-GE", 0x0437},
    {"kh-KH", 0x0453},
    {"kk-KZ", 0x043F},
    {"kl-GL", 0x046F},
    {"kn-IN", 0x044B},
    {"ko-KR", 0x0412},
    {"kok-IN", 0x0457},
    {"ky-KG", 0x0440},
    {"lb-LU", 0x046E},
    {"lo-LA", 0x0454},
    {"lt-LT", 0x0427},
    {"lv-LV", 0x0426},
    {"mi-NZ", 0x0481},
    {"mk-MK", 0x042F},
    {"ml-IN", 0x044C},
    {"mn-CN", 0x0850},
    {"mn-MN", 0x0450},
    {"moh-CA", 0x047C},
    {"mr-IN", 0x044E},
    {"ms-BN", 0x083E},
    {"ms-MY", 0x043E},
    {"mt-MT", 0x043A},
    {"nb-NO", 0x0414},
    {"ne-NP", 0x0461},
    {"nl-BE", 0x0813},
    {"nl-NL", 0x0413},
    {"nn-NO", 0x0814},
    {"ns-ZA", 0x046C},
    {"oc-FR", 0x0482},
    {"or-IN", 0x0448},
    {"pa-IN", 0x0446},
    {"pl-PL", 0x0415},
    {"ps-AF", 0x0463},
    {"pt-BR", 0x0416},
    {"pt-PT", 0x0816},
    {"qut-GT", 0x0486},
    {"quz-BO", 0x046B},
    {"quz-EC", 0x086B},
    {"quz-PE", 0x0C6B},
    {"rm-CH", 0x0417},
    {"ro-RO", 0x0418},
    {"ru-RU", 0x0419},
    {"rw-RW", 0x0487},
    {"sa-IN", 0x044F},
    {"sah-RU", 0x0485},
    {"se-FI", 0x0C3B},
    {"se-NO", 0x043B},
    {"se-SE", 0x083B},
    {"si-LK", 0x045B},
    {"sk-SK", 0x041B},
    {"sl-SI", 0x0424},
    {"sma-NO", 0x183B},
    {"sma-SE", 0x1C3B},
    {"smj-NO", 0x103B},
    {"smj-SE", 0x143B},
    {"smn-FI", 0x243B},
    {"sms-FI", 0x203B},
    {"sq-AL", 0x041C},
    {"sr-BA", 0x1C1A},
    {"sr-SP", 0x0C1A},
    {"sv-FI", 0x081D},
    {"sv-SE", 0x041D},
    {"sw-KE", 0x0441},
    {"syr-SY", 0x045A},
    {"ta-IN", 0x0449},
    {"te-IN", 0x044A},
    {"tg-TJ", 0x0428},
    {"th-TH", 0x041E},
    {"tk-TM", 0x0442},
    {"tmz-DZ", 0x085F},
    {"tn-ZA", 0x0432},
    {"tr-TR", 0x041F},
    {"tt-RU", 0x0444},
    {"ug-CN", 0x0480},
    {"uk-UA", 0x0422},
    {"ur-IN", 0x0820},
    {"ur-PK", 0x0420},
    {"uz-UZ", 0x0443},
    {"vi-VN", 0x042A},
    {"wen-DE", 0x042E},
    {"wo-SN", 0x0488},
    {"xh-ZA", 0x0434},
    {"yo-NG", 0x046A},
    {"zh-CHS", 0x0004},
    {"zh-CHT", 0x7C04},
    {"zh-CN", 0x0804},
    {"zh-HK", 0x0C04},
    {"zh-MO", 0x1404},
    {"zh-SG", 0x1004},
    {"zh-TW", 0x0404},
    {"zu-ZA", 0x0435},
};

static int cmp_lang(const void *key, const void *elem)
{
    return strcasecmp(key, ((const struct Lang *)elem)->name);
}

bool rc_langid(const char *culture, uint16_t *langid)
{
    const struct Lang *l =
        bsearch(culture, langs, sizeof langs / sizeof *langs, sizeof *langs, cmp_lang);
    if (l)
        *langid = l->langid;
    return l != NULL;
}

bool rc_build(const Manifest *m, const char *const *msg_names, const char *wevt_name,
              TemplateFinder *tf, Buf *out)
{
    bool ok = true;
    Arena a = {0};
    TValue *vars = tv_dict(&a), *tables = tv_list(&a);
    for (size_t i = 0; i < m->cultures.n; i++) {
        if (!msg_names[i])
            continue;
        uint16_t id;
        if (!rc_langid(m->cultures.v[i]->name, &id)) {
            diag_at(DIAG_ERROR, m->cultures.v[i]->loc,
                    "culture '%s' has no Windows language id that mcgen knows",
                    m->cultures.v[i]->name);
            ok = false;
            continue;
        }
        TValue *t = tv_dict(&a);
        tv_add(&a, t, "primary", tv_int(&a, id & 0x3FF));
        tv_add(&a, t, "sub", tv_int(&a, id >> 10));
        tv_add(&a, t, "file", tv_str(&a, msg_names[i]));
        tv_push(&a, tables, t);
    }
    tv_add(&a, vars, "tables", tables);
    tv_add(&a, vars, "wevt",
           wevt_name && m->providers.n ? tv_str(&a, wevt_name) : tv_none(&a));
    Buf err = {0};
    size_t len = 0;
    const char *src = finder_load(tf, "rc.j2", &len);
    Tmpl *t = src ? tmpl_parse("rc.j2", src, len, &err) : NULL;
    if (ok && !(t && tmpl_render(t, vars, &tf->loader, out, &err))) {
        if (err.len) /* "template:line:col: error: ..." already */
            diag_formatted(err.s);
        else
            diag_plain(DIAG_ERROR, "no template rc.j2");
        ok = false;
    }
    tmpl_free(t);
    buf_free(&err);
    arena_free(&a);
    return ok;
}
