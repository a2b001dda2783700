/* A pose desync's joints in the desync bundle (bundle.json "pose_joints", format 3; report.txt's
 * "pose:" paragraph from bsync_desync_bundle_pose_text): written and read back, in memory and on disk;
 * the exact text docs/replay-verify.md specifies; bundles without the field (format 2, and this
 * version's null) read as naming no joint; a damaged field reads what it can; more differing joints
 * than a bundle names are counted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fixtures.h"
#include "test_support.h"
#include "blendsync/io/desync_bundle.h"

/* The pose of the documented example: character 1 "p1" at tick 44 (tick 29 agreed), 2 of 23 joints. */
static bsync_desync_bundle_pose example_pose(void) {
    bsync_desync_bundle_pose p;
    memset(&p, 0, sizeof p);
    p.tick = 44;
    p.agreed_tick = 29;
    p.character = 1;
    snprintf(p.character_name, sizeof p.character_name, "p1");
    p.compared = 23;
    p.differing = 2;
    p.joint_count = 2;
    p.joints[0].index = 12;
    snprintf(p.joints[0].name, sizeof p.joints[0].name, "upperarm_r");
    p.joints[0].server = 0x91bcc297731b44d9ull;
    p.joints[0].client = 0x91bcc297731b44d8ull;
    p.joints[1].index = 13;
    snprintf(p.joints[1].name, sizeof p.joints[1].name, "lowerarm_r");
    p.joints[1].server = 0x0000000000000001ull;
    p.joints[1].client = 0xffffffffffffffffull;
    return p;
}

static bsync_desync_bundle_desc example_desc(const bsync_desync_bundle_pose* pose, const char* root) {
    bsync_desync_bundle_desc d;
    memset(&d, 0, sizeof d);
    d.side = BSYNC_DESYNC_BUNDLE_SERVER;
    d.root = root;
    d.tick = 44;
    d.slot = 1;
    d.match_id = 9;
    d.match_hash = 0x4a43a5c364dc62a2ull;
    d.previous_tick = 29;
    d.first_divergent_tick = -1;
    d.first_divergent_character = -1;
    d.build = "test";
    d.pose = pose;
    return d;
}

static char* json_of(const bsync_desync_bundle_desc* d) {
    size_t need = bsync_desync_bundle_json(d, NULL, 0);
    assert_true(need > 0);
    char* text = malloc(need + 1);
    assert_non_null(text);
    assert_int_equal(bsync_desync_bundle_json(d, text, need + 1), need);
    return text;
}

static void assert_same_pose(const bsync_desync_bundle_pose* a, const bsync_desync_bundle_pose* b) {
    assert_int_equal(a->tick, b->tick);
    assert_int_equal(a->agreed_tick, b->agreed_tick);
    assert_int_equal(a->character, b->character);
    assert_string_equal(a->character_name, b->character_name);
    assert_int_equal(a->compared, b->compared);
    assert_int_equal(a->differing, b->differing);
    assert_int_equal(a->joint_count, b->joint_count);
    for (uint32_t i = 0; i < a->joint_count; i++) {
        assert_int_equal(a->joints[i].index, b->joints[i].index);
        assert_string_equal(a->joints[i].name, b->joints[i].name);
        assert_true(a->joints[i].server == b->joints[i].server);
        assert_true(a->joints[i].client == b->joints[i].client);
    }
}

/* bundle.json's text holds the field as docs/replay-verify.md shows it, and reads back whole. */
static void test_json_round_trip(void** state) {
    (void)state;
    bsync_desync_bundle_pose pose = example_pose();
    bsync_desync_bundle_desc d = example_desc(&pose, "/srv/run.desync");
    char* text = json_of(&d);
    assert_non_null(strstr(text, "{\"format\": 3, "));
    assert_non_null(strstr(text, "\"first_divergent_character\": -1, \"pose_joints\": {\"tick\": 44, \"agreed_tick\": 29, "
                                 "\"character\": 1, \"character_name\": \"p1\", \"compared\": 23, \"differing\": 2, "
                                 "\"joints\": [{\"index\": 12, \"name\": \"upperarm_r\", \"server\": \"91bcc297731b44d9\", "
                                 "\"client\": \"91bcc297731b44d8\"}, {\"index\": 13, \"name\": \"lowerarm_r\", "
                                 "\"server\": \"0000000000000001\", \"client\": \"ffffffffffffffff\"}]}, \"build\": "));
    static bsync_desync_bundle b;
    bsync_error err;
    assert_int_equal(bsync_desync_bundle_parse("dir", text, strlen(text), &b, &err), BSYNC_OK);
    assert_int_equal(b.format, 3);
    assert_int_equal(b.has_pose, 1);
    assert_same_pose(&b.pose, &pose);
    assert_int_equal(b.tick, 44);
    assert_int_equal(b.slot, 1);
    free(text);
}

/* Written to disk by bsync_desync_bundle_write and opened again. */
static void test_written_and_opened(void** state) {
    (void)state;
    char root[64], dir[BSYNC_DESYNC_BUNDLE_PATH_MAX];
    assert_int_equal(bsync_test_tmpdir(root, sizeof root, "bundle_joints"), 0);
    char sub[128];
    snprintf(sub, sizeof sub, "%s/rec.desync", root);
    bsync_desync_bundle_pose pose = example_pose();
    bsync_desync_bundle_desc d = example_desc(&pose, sub);
    d.report = "blendsync desync report\n";
    bsync_error err;
    assert_int_equal(bsync_desync_bundle_write(&d, dir, sizeof dir, &err), BSYNC_OK);
    char want[160];
    snprintf(want, sizeof want, "%s/tick44-slot1", sub);
    assert_string_equal(dir, want);
    static bsync_desync_bundle b;
    assert_int_equal(bsync_desync_bundle_open(dir, &b, &err), BSYNC_OK);
    assert_int_equal(b.has_pose, 1);
    assert_same_pose(&b.pose, &pose);
    bsync_test_rmtree(root);
}

/* No pose record: "pose_joints": null; a format-2 bundle (no field) and fields of other types read
 * as naming no joint, with the rest of the bundle intact. */
static void test_absent(void** state) {
    (void)state;
    bsync_desync_bundle_desc d = example_desc(NULL, "/r");
    char* text = json_of(&d);
    assert_non_null(strstr(text, "\"first_divergent_character\": -1, \"pose_joints\": null, \"build\": "));
    static bsync_desync_bundle b;
    bsync_error err;
    assert_int_equal(bsync_desync_bundle_parse("dir", text, strlen(text), &b, &err), BSYNC_OK);
    assert_int_equal(b.has_pose, 0);
    free(text);
    static const char* const others[] = {
        "{\"format\": 2, \"tick\": 44, \"slot\": 1, \"previous_tick\": 29}",
        "{\"format\": 3, \"tick\": 44, \"slot\": 1, \"previous_tick\": 29, \"pose_joints\": [1, 2]}",
        "{\"format\": 3, \"tick\": 44, \"slot\": 1, \"previous_tick\": 29, \"pose_joints\": \"upperarm_r\"}",
        /* without its character, or with a negative or fractional one, or without its tick */
        "{\"format\": 3, \"tick\": 44, \"slot\": 1, \"previous_tick\": 29, \"pose_joints\": {\"tick\": 44}}",
        "{\"format\": 3, \"tick\": 44, \"slot\": 1, \"previous_tick\": 29, \"pose_joints\": {\"tick\": 44, \"character\": -1}}",
        "{\"format\": 3, \"tick\": 44, \"slot\": 1, \"previous_tick\": 29, \"pose_joints\": {\"tick\": 44, \"character\": 1.5}}",
        "{\"format\": 3, \"tick\": 44, \"slot\": 1, \"previous_tick\": 29, \"pose_joints\": {\"character\": 1}}",
    };
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        assert_int_equal(bsync_desync_bundle_parse("dir", others[i], strlen(others[i]), &b, &err), BSYNC_OK);
        assert_int_equal(b.has_pose, 0);
        assert_int_equal(b.tick, 44);
        assert_int_equal(b.slot, 1);
        assert_int_equal(b.previous_tick, 29);
    }
}

/* A damaged field reads what it can: a joint without an index is skipped, a checksum that is not 16
 * hex digits reads 0, a name is cut to 63 bytes, "differing" is at least the joints listed, a missing
 * agreed tick is -1. */
static void test_damaged(void** state) {
    (void)state;
    char text[1024];
    char long_name[101];
    memset(long_name, 'x', 100);
    long_name[100] = '\0';
    snprintf(text, sizeof text,
             "{\"format\": 3, \"pose_joints\": {\"tick\": 7, \"character\": 0, \"compared\": 5, \"differing\": 0, "
             "\"joints\": [{\"name\": \"no_index\"}, {\"index\": 2, \"name\": \"%s\", \"server\": \"12\", \"client\": 5}, 3, "
             "{\"index\": 4, \"server\": \"00000000000000ff\", \"client\": \"FFFFFFFFFFFFFFFF\"}]}}",
             long_name);
    static bsync_desync_bundle b;
    bsync_error err;
    assert_int_equal(bsync_desync_bundle_parse("dir", text, strlen(text), &b, &err), BSYNC_OK);
    assert_int_equal(b.has_pose, 1);
    assert_int_equal(b.pose.tick, 7);
    assert_int_equal(b.pose.agreed_tick, -1);
    assert_int_equal(b.pose.character, 0);
    assert_string_equal(b.pose.character_name, "");
    assert_int_equal(b.pose.compared, 5);
    assert_int_equal(b.pose.joint_count, 2);
    assert_int_equal(b.pose.differing, 2);
    assert_int_equal(b.pose.joints[0].index, 2);
    assert_int_equal(strlen(b.pose.joints[0].name), BSYNC_DESYNC_BUNDLE_NAME_MAX - 1);
    assert_true(b.pose.joints[0].server == 0 && b.pose.joints[0].client == 0);
    assert_int_equal(b.pose.joints[1].index, 4);
    assert_string_equal(b.pose.joints[1].name, "");
    assert_true(b.pose.joints[1].server == 0xffu && b.pose.joints[1].client == UINT64_MAX);
}

static char* pose_text(const bsync_desync_bundle_pose* p) {
    size_t need = bsync_desync_bundle_pose_text(p, NULL, 0);
    assert_true(need > 0);
    char* out = malloc(need + 1);
    assert_non_null(out);
    assert_int_equal(bsync_desync_bundle_pose_text(p, out, need + 1), need);
    assert_int_equal(strlen(out), need);
    return out;
}

/* The report's words (docs/replay-verify.md "report.txt's pose paragraph"), case by case. */
static void test_text(void** state) {
    (void)state;
    bsync_desync_bundle_pose p = example_pose();
    char* t = pose_text(&p);
    assert_string_equal(t, "pose: character 1 (p1): its pose checksums first differed at tick 44 (the check before, tick 29, "
                           "agreed); 2 of its 23 joints differ:\n"
                           "  joint 12 upperarm_r: server 91bcc297731b44d9, client 91bcc297731b44d8\n"
                           "  joint 13 lowerarm_r: server 0000000000000001, client ffffffffffffffff\n");
    free(t);
    /* one joint, no earlier check, a control character in a name */
    p.joint_count = p.differing = 1;
    p.agreed_tick = -1;
    p.joints[0].name[2] = '\n';
    t = pose_text(&p);
    assert_string_equal(t, "pose: character 1 (p1): its pose checksums first differed at tick 44; 1 of its 23 joints "
                           "differs:\n  joint 12 up?erarm_r: server 91bcc297731b44d9, client 91bcc297731b44d8\n");
    free(t);
    /* every joint agrees */
    p.joint_count = p.differing = 0;
    t = pose_text(&p);
    assert_string_equal(t, "pose: character 1 (p1): its pose checksums first differed at tick 44; all 23 of its joints' "
                           "checksums agree (only the character's pose checksum differs)\n");
    free(t);
    /* nothing compared */
    p.compared = 0;
    t = pose_text(&p);
    assert_string_equal(t, "pose: character 1 (p1): its pose checksums first differed at tick 44; no per-joint checksums "
                           "were compared (the client sent none, or not as many as the skeleton has), so no joint is named\n");
    free(t);
    /* a short buffer: cut, NUL-terminated, the whole size returned */
    p = example_pose();
    char small[20];
    size_t need = bsync_desync_bundle_pose_text(&p, small, sizeof small);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_memory_equal(small, "pose: character 1 (", 19);
    assert_true(need > 200);
    assert_int_equal(bsync_desync_bundle_pose_text(NULL, small, sizeof small), 0);
    assert_string_equal(small, "");
}

/* More differing joints than a bundle names: the first BSYNC_DESYNC_BUNDLE_JOINTS_MAX are listed, the
 * rest counted, in the JSON and the text alike. */
static void test_many(void** state) {
    (void)state;
    bsync_desync_bundle_pose p;
    memset(&p, 0, sizeof p);
    p.tick = 100;
    p.agreed_tick = 70;
    p.character = 3;
    snprintf(p.character_name, sizeof p.character_name, "npc");
    p.compared = 40;
    p.differing = 40;
    p.joint_count = BSYNC_DESYNC_BUNDLE_JOINTS_MAX;
    for (uint32_t i = 0; i < p.joint_count; i++) {
        p.joints[i].index = i;
        snprintf(p.joints[i].name, sizeof p.joints[i].name, "j%u", i);
        p.joints[i].server = i;
        p.joints[i].client = i + 1u;
    }
    char* t = pose_text(&p);
    assert_non_null(strstr(t, "; 40 of its 40 joints differ:\n  joint 0 j0: server 0000000000000000, client 0000000000000001\n"));
    assert_non_null(strstr(t, "  joint 31 j31: server 000000000000001f, client 0000000000000020\n  and 8 more joints (not named)\n"));
    free(t);
    bsync_desync_bundle_desc d = example_desc(&p, "/r");
    char* text = json_of(&d);
    static bsync_desync_bundle b;
    bsync_error err;
    assert_int_equal(bsync_desync_bundle_parse("dir", text, strlen(text), &b, &err), BSYNC_OK);
    assert_int_equal(b.has_pose, 1);
    assert_int_equal(b.pose.differing, 40);
    assert_int_equal(b.pose.joint_count, BSYNC_DESYNC_BUNDLE_JOINTS_MAX);
    assert_same_pose(&b.pose, &p);
    free(text);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_round_trip), cmocka_unit_test(test_written_and_opened),
        cmocka_unit_test(test_absent),          cmocka_unit_test(test_damaged),
        cmocka_unit_test(test_text),            cmocka_unit_test(test_many),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
