/*
 * read.c - the reader table: each input format is a row (its name, how it
 * recognises a file, its reader).  A reader turns bytes into a raw model
 * and nothing else; the check stage (check.c) takes it from there,
 * whatever the format was.
 */
#include "mcgen.h"
#include "os.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcasecmp(s + n - t, tail) == 0;
}

/* An XML document: a .man or .xml name, or a first non-blank character
 * '<' (after a UTF-8 or UTF-16 byte-order mark). */
static bool is_xml(const char *path, const unsigned char *head, size_t n)
{
    if (ends_with(path, ".man") || ends_with(path, ".xml"))
        return true;
    size_t i = 0;
    if (n >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF)
        i = 3;
    else if (n >= 2 && ((head[0] == 0xFF && head[1] == 0xFE) || (head[0] == 0xFE && head[1] == 0xFF)))
        return true;
    while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n'))
        i++;
    return i < n && head[i] == '<';
}

static Manifest *read_man(const char *path, const Options *o)
{
    (void)o;
    return read_man_file(path);
}

/* A message-text file: a .mc name (any case). */
static bool is_mc(const char *path, const unsigned char *head, size_t n)
{
    (void)head, (void)n;
    return cli_is_mc(path);
}

static Manifest *read_mc(const char *path, const Options *o)
{
    return read_mc_file(path, o && o->utf16_input);
}

const Reader readers[] = {
    {"mc", is_mc, read_mc},
    {"man", is_xml, read_man},
    {NULL, NULL, NULL},
};

Manifest *read_input(const char *path, const Options *o)
{
    unsigned char head[64];
    size_t n = 0;
    FILE *f = os_fopen(path, "rb");
    if (f) {
        n = fread(head, 1, sizeof head, f);
        fclose(f);
    }
    for (const Reader *r = readers; r->name; r++)
        if (r->recognises(path, head, n))
            return r->read(path, o);
    /* the manifest reader says what is wrong with anything else */
    return readers[1].read(path, o);
}
