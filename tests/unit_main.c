/*
 * unit_main.c - runs every Check suite.  The summary line Check prints
 * ("100%: Checks: N, Failures: 0, Errors: 0") is what CI reads.
 */
#include <stdlib.h>

#include "unit.h"

const size_t unit_chunks[5] = {1, 2, 3, 7, 0};

int main(void)
{
    SRunner *sr = srunner_create(util_suite());
    srunner_add_suite(sr, xml_suite());
    srunner_add_suite(sr, parse_suite());
    srunner_add_suite(sr, msgid_suite());
    srunner_add_suite(sr, wevt_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
