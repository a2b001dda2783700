/* test_base.c — result codes and their strings. */
#include <string.h>

#include "blendsync/base.h"
#include "test_support.h"

static void test_every_code_has_a_distinct_text(void** state) {
    (void)state;
    for (int i = 0; i < BSYNC_RESULT_COUNT; i++) {
        const char* a = bsync_result_string((bsync_result)i);
        assert_non_null(a);
        assert_true(strlen(a) > 1);
        assert_string_not_equal(a, "unknown result");
        for (int j = 0; j < i; j++) assert_string_not_equal(a, bsync_result_string((bsync_result)j));
    }
}

static void test_ok_is_zero_and_stable_ids(void** state) {
    (void)state;
    /* The numeric ids are part of the wire and file formats of later modules: append only. */
    assert_int_equal(BSYNC_OK, 0);
    assert_int_equal(BSYNC_INVALID_ARGUMENT, 1);
    assert_string_equal(bsync_result_string(BSYNC_OK), "ok");
    assert_string_equal(bsync_result_string(BSYNC_KEYS_UNSORTED), "key times must be strictly ascending");
}

static void test_out_of_range_code(void** state) {
    (void)state;
    assert_string_equal(bsync_result_string(BSYNC_RESULT_COUNT), "unknown result");
    assert_string_equal(bsync_result_string((bsync_result)-1), "unknown result");
    assert_string_equal(bsync_result_string((bsync_result)100000), "unknown result");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_code_has_a_distinct_text),
        cmocka_unit_test(test_ok_is_zero_and_stable_ids),
        cmocka_unit_test(test_out_of_range_code),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
