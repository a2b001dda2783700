/* bsync_graph_config_load_ex / bsync_match_config_load_ex / _parse_ex read every file through caller
 * callbacks (bsync_config_load_options.file): a match packed in an engine's pak file. From names that
 * exist nowhere on disk they give the same graph hashes as loading the real files, every read goes
 * through the callback and is released, and a missing file is an error naming it.
 * Files: the match demo (scripts/demo: match.json and its graph on the built-in humanoid) always; the
 * pab example (scripts/examples/pab_locomotion.json, whose clips come from a glTF with an external
 * .bin in ../shared/data) when the shared data is present (skipped cleanly otherwise). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "blendsync/graph.h"
#include "blendsync/io/graph_config.h"
#include "blendsync/io/match_config.h"
#include "test_support.h"
#include "fixtures.h"

static bsync_config_load_options pak_options(bsync_test_pak* p) {
    bsync_config_load_options o;
    memset(&o, 0, sizeof o);
    o.file.read = bsync_test_pak_read;
    o.file.release = bsync_test_pak_release;
    o.file.user = p;
    return o;
}

static void test_demo_match(void** state) {
    (void)state;
    bsync_test_pak p;
    memset(&p, 0, sizeof p);
    bsync_test_pak_add_file(&p, "pak:/demo/match.json", BSYNC_SOURCE_DIR "/scripts/demo/match.json");
    bsync_test_pak_add_file(&p, "pak:/demo/humanoid_locomotion.json", BSYNC_SOURCE_DIR "/scripts/demo/humanoid_locomotion.json");
    const bsync_config_load_options o = pak_options(&p);

    bsync_error err;
    bsync_match_config* disk = NULL;
    bsync_match_config* packed = NULL;
    assert_int_equal(bsync_match_config_load(BSYNC_SOURCE_DIR "/scripts/demo/match.json", NULL, &disk, &err), BSYNC_OK);
    assert_int_equal(bsync_match_config_load_ex("pak:/demo/match.json", &o, NULL, &packed, &err), BSYNC_OK);
    assert_int_equal(p.reads, 2); /* the match and its one graph file, each once */
    assert_int_equal(p.releases, p.reads);
    assert_int_equal(bsync_match_config_graph_file_count(packed), 1);
    assert_string_equal(bsync_match_config_graph_file_path(packed, 0), "pak:/demo/humanoid_locomotion.json");
    assert_int_equal(bsync_match_config_graph_file_hash(packed, 0), bsync_match_config_graph_file_hash(disk, 0));
    assert_int_equal(bsync_match_config_player_count(packed), bsync_match_config_player_count(disk));
    bsync_match_config_destroy(packed);

    /* the same text parsed with a pak folder as base */
    size_t n = 0;
    const char* text = bsync_match_config_text(disk, &n);
    assert_int_equal(bsync_match_config_parse_ex(text, n, "m", "pak:/demo/", &o, NULL, &packed, &err), BSYNC_OK);
    assert_int_equal(bsync_match_config_graph_file_hash(packed, 0), bsync_match_config_graph_file_hash(disk, 0));
    bsync_match_config_destroy(packed);

    /* without the graph in the pak: the error names it and the callback */
    bsync_test_pak q;
    memset(&q, 0, sizeof q);
    bsync_test_pak_add_file(&q, "pak:/demo/match.json", BSYNC_SOURCE_DIR "/scripts/demo/match.json");
    const bsync_config_load_options oq = pak_options(&q);
    assert_int_not_equal(bsync_match_config_load_ex("pak:/demo/match.json", &oq, NULL, &packed, &err), BSYNC_OK);
    assert_null(packed);
    assert_string_equal(q.missing, "pak:/demo/humanoid_locomotion.json");
    assert_non_null(strstr(err.message, "humanoid_locomotion.json"));
    assert_non_null(strstr(err.message, "the file callback failed"));
    assert_int_equal(q.releases, q.reads);
    /* and a match file missing from the pak altogether */
    assert_int_equal(bsync_match_config_load_ex("pak:/demo/nope.json", &oq, NULL, &packed, &err), BSYNC_IO_ERROR);
    assert_non_null(strstr(err.message, "pak:/demo/nope.json: cannot read: the file callback failed"));
    /* options NULL, or zero callbacks: stdio, as bsync_match_config_load */
    bsync_config_load_options zero;
    memset(&zero, 0, sizeof zero);
    assert_int_equal(bsync_match_config_load_ex(BSYNC_SOURCE_DIR "/scripts/demo/match.json", &zero, NULL, &packed, &err),
                     BSYNC_OK);
    assert_int_equal(bsync_match_config_graph_file_hash(packed, 0), bsync_match_config_graph_file_hash(disk, 0));
    bsync_match_config_destroy(packed);
    bsync_match_config_destroy(disk);
    bsync_test_pak_free(&p);
    bsync_test_pak_free(&q);
}

static void test_pab_graph(void** state) {
    (void)state;
    const char* gltf = bsync_test_shared_path("data/ozz-animation-pab/converted/pab_locomotion_runtime.gltf");
    FILE* f = gltf ? fopen(gltf, "rb") : NULL;
    if (!f) {
        print_message("shared data absent: skipped\n");
        skip();
        return;
    }
    fclose(f);
    char gltf_copy[1024], bin_copy[1024]; /* (bsync_test_shared_path returns a static buffer) */
    snprintf(gltf_copy, sizeof gltf_copy, "%s", gltf);
    const char* bin = bsync_test_shared_path("data/ozz-animation-pab/converted/pab_locomotion_runtime.bin");
    assert_non_null(bin);
    snprintf(bin_copy, sizeof bin_copy, "%s", bin);
    bsync_test_pak p;
    memset(&p, 0, sizeof p);
    /* The example's clip source is "../../../shared/data/ozz-animation-pab/converted/...gltf", relative to
     * the config's folder, joined as text; the glTF's buffer uri is relative to the glTF's folder. */
    bsync_test_pak_add_file(&p, "pak:/game/scripts/examples/pab_locomotion.json", BSYNC_SOURCE_DIR "/scripts/examples/pab_locomotion.json");
    bsync_test_pak_add_file(&p, "pak:/game/scripts/examples/../../../shared/data/ozz-animation-pab/converted/pab_locomotion_runtime.gltf",
            gltf_copy);
    bsync_test_pak_add_file(&p, "pak:/game/scripts/examples/../../../shared/data/ozz-animation-pab/converted/pab_locomotion_runtime.bin",
            bin_copy);
    const bsync_config_load_options o = pak_options(&p);
    bsync_error err;
    bsync_graph_config* disk = NULL;
    bsync_graph_config* packed = NULL;
    assert_int_equal(bsync_graph_config_load(BSYNC_SOURCE_DIR "/scripts/examples/pab_locomotion.json", NULL, &disk, NULL, &err),
                     BSYNC_OK);
    const bsync_result r =
        bsync_graph_config_load_ex("pak:/game/scripts/examples/pab_locomotion.json", &o, NULL, &packed, NULL, &err);
    if (r != BSYNC_OK) fail_msg("load_ex: %s (last name not in the pak: %s)", err.message, p.missing);
    assert_int_equal(p.reads, 3); /* the config, the glTF (one import for the three clips) and its .bin */
    assert_int_equal(p.releases, p.reads);
    assert_int_equal(bsync_graph_hash(bsync_graph_config_graph(packed)), bsync_graph_hash(bsync_graph_config_graph(disk)));
    assert_int_equal(bsync_graph_config_bound_clip_count(packed), 3);
    bsync_graph_config_destroy(packed);
    bsync_graph_config_destroy(disk);
    bsync_test_pak_free(&p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_demo_match),
        cmocka_unit_test(test_pab_graph),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
