/*
 * test_main.c - runs every unit suite, or with arguments only the suites
 * named (test_unit coll cart), or one test of a suite ("coll:sort: the
 * schedule on Fig. 4"); exit status = number of failures (capped),
 * so automake sees any failure.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/Basic.h>
#include "log.h"
#include "test_unit.h"

int main(int argc, char **argv)
{
    unsigned fails = 0;
    int i;

    /* many tests provoke errors on purpose: keep the log quiet */
    rtopo__log_level = RTOPO__LOG_ERROR;
    if (getenv("RTOPO_LOG_LEVEL"))
        rtopo__log_set_level(getenv("RTOPO_LOG_LEVEL"));
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 99;
    if (tu_suite_topo() || tu_suite_shift_sched() || tu_suite_sim() ||
        tu_suite_formulas() || tu_suite_runtime() || tu_suite_kernel() ||
        tu_suite_cart() || tu_suite_coll() || tu_suite_memmon() || tu_suite_place() ||
        tu_suite_share()) {
        fprintf(stderr, "suite registration: %s\n", CU_get_error_msg());
        CU_cleanup_registry();
        return 99;
    }
    /* a test that cannot run here is registered inactive, says why, and
     * shows in the summary's Inactive column: a skip, not a failure */
    CU_set_fail_on_inactive(CU_FALSE);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    if (argc < 2) {
        CU_basic_run_tests();
        fails = CU_get_number_of_failures();
        if (CU_get_error() != CUE_SUCCESS)
            fails++;
    }
    for (i = 1; i < argc; i++) {
        /* "suite" or "suite:test name" */
        char name[256];
        const char *colon = strchr(argv[i], ':');
        size_t n = colon ? (size_t)(colon - argv[i]) : strlen(argv[i]);
        CU_pSuite s = NULL;
        CU_pTest t = NULL;

        if (n < sizeof(name)) {
            memcpy(name, argv[i], n);
            name[n] = '\0';
            s = CU_get_suite(name);
        }
        if (s && colon)
            t = CU_get_test(s, colon + 1);
        if (!s || (colon && !t)) {
            fprintf(stderr, "no %s '%s'\n", s ? "test" : "suite", argv[i]);
            fails++;
            continue;
        }
        if (t)
            CU_basic_run_test(s, t);
        else
            CU_basic_run_suite(s);
        fails += CU_get_number_of_failures();
        if (CU_get_error() != CUE_SUCCESS)
            fails++;
    }
    if (CU_get_number_of_tests_inactive())
        printf("%u test(s) inactive, not run (skipped): see above\n",
               CU_get_number_of_tests_inactive());
    CU_cleanup_registry();
    return fails > 98 ? 98 : (int)fails;
}
