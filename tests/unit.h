/* unit.h - shared declarations of the Check unit-test suites. */
#ifndef MCGEN_UNIT_H
#define MCGEN_UNIT_H

#include <check.h>

#include "mcgen.h"

Suite *util_suite(void);
Suite *xml_suite(void);
Suite *parse_suite(void);
Suite *msgid_suite(void);
Suite *wevt_suite(void);

/* The chunk sizes every in-memory parse is run with (0 = all at once). */
extern const size_t unit_chunks[5];

#endif
