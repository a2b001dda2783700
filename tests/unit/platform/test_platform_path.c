/* test_platform_path.c — the path functions of io/platform.h in both styles, on any host: POSIX
 * ('/' only) and Windows ('/' and '\\', drive letters, UNC roots), so that a Z:\dir\match.json
 * config is resolved correctly on Windows although this runs on Linux. Every expected value is
 * worked by hand from the contract in platform.h (lengths counted character by character). */
#include "test_support.h"

#include <string.h>

#include "platform.h"

#define P BSYNC_PATH_POSIX
#define W BSYNC_PATH_WINDOWS

static void rel_ok(bsync_path_style st, const char* target, const char* dir, const char* want) {
    char out[256];
    memset(out, 'x', sizeof out);
    int r = bsync_platform_path_relative(st, target, dir, out, sizeof out);
    if (r != 0 || strcmp(out, want) != 0)
        fail_msg("relative(%s, \"%s\", \"%s\") = %d \"%s\", want \"%s\"", st == W ? "windows" : "posix", target, dir, r,
                 r == 0 ? out : "", want);
}

static void rel_fails(bsync_path_style st, const char* target, const char* dir) {
    char out[256];
    assert_int_equal(bsync_platform_path_relative(st, target, dir, out, sizeof out), -1);
}

static void test_separators(void** state) {
    (void)state;
    assert_true(bsync_platform_path_is_separator(P, '/'));
    assert_false(bsync_platform_path_is_separator(P, '\\'));
    assert_true(bsync_platform_path_is_separator(W, '/'));
    assert_true(bsync_platform_path_is_separator(W, '\\'));
    assert_false(bsync_platform_path_is_separator(W, ':'));
    /* the native helpers are the native style's */
    assert_int_equal(bsync_platform_is_separator('\\'), bsync_platform_path_is_separator(BSYNC_PATH_NATIVE, '\\'));
    assert_int_equal(bsync_platform_is_separator('/'), 1);
}

static void test_roots_and_absolute(void** state) {
    (void)state;
    assert_int_equal(bsync_platform_path_root_len(P, "/a/b"), 1);
    assert_int_equal(bsync_platform_path_root_len(P, "a/b"), 0);
    assert_int_equal(bsync_platform_path_root_len(P, "C:\\x"), 0);
    assert_int_equal(bsync_platform_path_root_len(P, "\\x"), 0);
    assert_int_equal(bsync_platform_path_root_len(P, ""), 0);
    assert_int_equal(bsync_platform_path_root_len(P, NULL), 0);
    assert_int_equal(bsync_platform_path_root_len(W, "C:\\dir"), 3);
    assert_int_equal(bsync_platform_path_root_len(W, "z:/dir"), 3);
    assert_int_equal(bsync_platform_path_root_len(W, "C:dir"), 2);
    assert_int_equal(bsync_platform_path_root_len(W, "\\dir"), 1);
    assert_int_equal(bsync_platform_path_root_len(W, "/dir"), 1);
    /* \\srv\share\ : 2 + "srv" 3 + 1 + "share" 5 + 1 = 12 */
    assert_int_equal(bsync_platform_path_root_len(W, "\\\\srv\\share\\dir\\f"), 12);
    assert_int_equal(bsync_platform_path_root_len(W, "\\\\srv\\share"), 11);
    assert_int_equal(bsync_platform_path_root_len(W, "1:x"), 0); /* not a drive letter */
    assert_int_equal(bsync_platform_path_root_len(W, "dir\\x"), 0);
    assert_true(bsync_platform_path_is_absolute(P, "/x"));
    assert_false(bsync_platform_path_is_absolute(P, "x/y"));
    assert_false(bsync_platform_path_is_absolute(P, "Z:\\dir\\match.json")); /* a file name on POSIX */
    assert_true(bsync_platform_path_is_absolute(W, "Z:\\dir\\match.json"));
    assert_true(bsync_platform_path_is_absolute(W, "c:x.json"));
    assert_true(bsync_platform_path_is_absolute(W, "\\x.json"));
    assert_false(bsync_platform_path_is_absolute(W, "graphs\\loco.json"));
    assert_false(bsync_platform_path_is_absolute(W, "graphs/loco.json"));
}

static void test_dir_len(void** state) {
    (void)state;
    assert_int_equal(bsync_platform_path_dir_len(P, "a/b/c.json"), 4);
    assert_int_equal(bsync_platform_path_dir_len(P, "c.json"), 0);
    assert_int_equal(bsync_platform_path_dir_len(P, "/c.json"), 1);
    assert_int_equal(bsync_platform_path_dir_len(P, "a\\b.json"), 0);
    assert_int_equal(bsync_platform_path_dir_len(P, "dir/"), 4);
    assert_int_equal(bsync_platform_path_dir_len(P, NULL), 0);
    /* Z:\dir\ is 7 characters */
    assert_int_equal(bsync_platform_path_dir_len(W, "Z:\\dir\\match.json"), 7);
    assert_int_equal(bsync_platform_path_dir_len(W, "Z:\\match.json"), 3);
    assert_int_equal(bsync_platform_path_dir_len(W, "Z:match.json"), 2);
    assert_int_equal(bsync_platform_path_dir_len(W, "dir/sub\\m.json"), 8);
    assert_int_equal(bsync_platform_path_dir_len(W, "m.json"), 0);
    assert_int_equal(bsync_platform_path_dir_len(W, "\\\\srv\\share\\m.json"), 12);
}

static void test_relative_posix(void** state) {
    (void)state;
    rel_ok(P, "/a/b/g.json", "/a/b", "g.json");
    rel_ok(P, "/a/b/g.json", "/a/b/", "g.json");
    rel_ok(P, "/a/b/g.json", "/a/c", "../b/g.json");
    rel_ok(P, "/a/b/g.json", "/", "a/b/g.json");
    rel_ok(P, "/a/g.json", "/a/b/c", "../../g.json");
    rel_ok(P, "/ab/g.json", "/a", "../ab/g.json"); /* "a" is not a prefix component of "ab" */
    rel_ok(P, "/a/g.json", "/ab", "../a/g.json");
    rel_ok(P, "/a\\b/g.json", "/a", "../a\\b/g.json"); /* a backslash is part of a name on POSIX: "a\\b" is not "a" */
    rel_ok(P, "/a\\b/g.json", "/a\\b", "g.json");
    rel_fails(P, "a/g.json", "/a");   /* not absolute */
    rel_fails(P, "/a/g.json", "a");   /* not absolute */
    rel_fails(P, "/a/b", "/a/b/c");   /* no file below the shared folder */
    rel_fails(P, "/a/b", "/a/b");
    char small[6];
    assert_int_equal(bsync_platform_path_relative(P, "/a/g.json", "/a", small, sizeof small), -1); /* 7 bytes needed */
    char fits[7];
    assert_int_equal(bsync_platform_path_relative(P, "/a/g.json", "/a", fits, sizeof fits), 0);
    assert_string_equal(fits, "g.json");
}

static void test_relative_windows(void** state) {
    (void)state;
    rel_ok(W, "Z:\\dir\\g\\graph.json", "Z:\\dir\\rep", "../g/graph.json"); /* written with '/' */
    rel_ok(W, "z:\\dir\\graph.json", "Z:\\dir", "graph.json");             /* drive letters ignore case */
    rel_ok(W, "C:\\a\\g.json", "C:\\", "a/g.json");
    rel_ok(W, "C:/a\\b/g.json", "C:\\a/b", "g.json");                       /* mixed separators */
    rel_ok(W, "C:\\Dir\\g.json", "C:\\dir", "../Dir/g.json");               /* components compare exactly */
    rel_ok(W, "\\\\srv\\share\\a\\g.json", "\\\\srv\\share\\b", "../a/g.json");
    rel_fails(W, "D:\\a\\g.json", "C:\\a");               /* another drive: no relative path */
    rel_fails(W, "\\\\srv\\one\\g.json", "\\\\srv\\two"); /* another share */
    rel_fails(W, "C:\\a\\g.json", "\\a");                 /* different roots */
    rel_fails(W, "a\\g.json", "C:\\a");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_separators),   cmocka_unit_test(test_roots_and_absolute),
        cmocka_unit_test(test_dir_len),      cmocka_unit_test(test_relative_posix),
        cmocka_unit_test(test_relative_windows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
