/* test_clip_file_actions.c — clip actions in .bsclip files (docs/clip-format.md "Clip actions"): version 3 is
 * written only for files with actions (a file without them keeps the version-1 bytes of the old call),
 * the header's section offset and size and the section's size follow the documented layout (8 + per
 * action 88 + 8 per curve key, worked out here from the list), every action reads back as written,
 * broken lists are refused by the writer, broken sections (re-sealed with a fresh checksum) by the
 * reader with BSYNC_BAD_BLOB, and a graph config whose clip comes from the file takes the file's
 * events, ranges, markers and curves for each kind its clip entry does not list; retargeting keeps them. */
#include "test_support.h"
#include "fixtures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blendsync/graph.h"
#include "blendsync/io/clip_file.h"
#include "blendsync/io/graph_config.h"
#include "blendsync/io/gltf.h"
#include "blendsync/io/retarget.h"

#define FXI(v) ((fix16_t)((v) * 65536))

static const bsync_vec3 k_vecs[2] = {{0, 0, 0}, {FXI(1), 0, 0}};

static bsync_clip* make_clip(const bsync_skeleton* s, const char* name, fix16_t dur) {
    const fix16_t times[2] = {0, dur};
    bsync_raw_track t = {0, BSYNC_TRACK_TRANSLATION, 2, times, k_vecs, NULL};
    bsync_clip_desc d = {name, dur, 1, &t, 1};
    bsync_clip* c = NULL;
    assert_int_equal(bsync_clip_create(&d, s, NULL, &c), BSYNC_OK);
    return c;
}

static const fix16_t lift_t[2] = {0, FXI(1) / 2}, lift_v[2] = {0, FXI(2)};
static const fix16_t ik_t[1] = {0}, ik_v[1] = {FXI(1)};

/* clip 0 "walk" (1.0 s): an instant, a range, two markers, a two-key curve; clip 1 "hop" (0.5 s): a
 * marker and a one-key curve. 7 actions, 3 curve keys. */
static const bsync_clip_action k_actions[7] = {
    {0, BSYNC_CLIP_ACTION_EVENT, "step", FXI(1) / 4, 0, 7, 0, NULL, NULL},
    {0, BSYNC_CLIP_ACTION_RANGE, "hit", 26214, 39322, 10, 0, NULL, NULL},
    {0, BSYNC_CLIP_ACTION_MARKER, "foot_l", FXI(1) / 4, 0, 0, 0, NULL, NULL},
    {0, BSYNC_CLIP_ACTION_MARKER, "foot_r", FXI(3) / 4, 0, 0, 0, NULL, NULL},
    {0, BSYNC_CLIP_ACTION_CURVE, "lift", 0, 0, 0, 2, lift_t, lift_v},
    {1, BSYNC_CLIP_ACTION_MARKER, "foot_l", FXI(1) / 10, 0, 0, 0, NULL, NULL},
    {1, BSYNC_CLIP_ACTION_CURVE, "ik", 0, 0, 0, 1, ik_t, ik_v},
};

typedef struct fixture {
    bsync_skeleton* skel;
    bsync_clip* clips[2];
} fixture;

static void make_fixture(fixture* f) {
    static const char* const names[1] = {"root"};
    f->skel = bsync_test_chain_skeleton(names, 1, NULL);
    f->clips[0] = make_clip(f->skel, "walk", FXI(1));
    f->clips[1] = make_clip(f->skel, "hop", FXI(1) / 2);
}

static void free_fixture(fixture* f) {
    bsync_clip_destroy(f->clips[0]);
    bsync_clip_destroy(f->clips[1]);
    bsync_skeleton_destroy(f->skel);
}

static uint64_t rd64(const unsigned char* p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
static void wr32(unsigned char* p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void reseal(unsigned char* p, size_t n) {
    const uint64_t c = bsync_clip_file_checksum(p, n);
    for (int i = 0; i < 8; i++) p[24 + i] = (unsigned char)(c >> (8 * i));
}

static unsigned char* write_with(const fixture* f, const bsync_clip_action* a, uint32_t n, size_t* size) {
    *size = bsync_clip_file_size_ex(f->skel, (const bsync_clip* const*)f->clips, 2, a, n);
    assert_true(*size > 64);
    unsigned char* buf = malloc(*size);
    assert_int_equal(bsync_clip_file_write_memory_ex(f->skel, (const bsync_clip* const*)f->clips, 2, a, n, buf, *size),
                     BSYNC_OK);
    return buf;
}

static void test_round_trip(void** state) {
    (void)state;
    fixture f;
    make_fixture(&f);
    size_t plain_size, size;
    unsigned char* plain = write_with(&f, NULL, 0, &plain_size);
    /* without actions: the old call's bytes, version 1 */
    unsigned char* old = malloc(plain_size);
    assert_int_equal(bsync_clip_file_size(f.skel, (const bsync_clip* const*)f.clips, 2), plain_size);
    assert_int_equal(bsync_clip_file_write_memory(f.skel, (const bsync_clip* const*)f.clips, 2, old, plain_size), BSYNC_OK);
    assert_memory_equal(old, plain, plain_size);
    assert_int_equal(plain[8], 1);
    unsigned char* file = write_with(&f, k_actions, 7, &size);
    /* the section: 8 + 7 * 88 + 8 * 3 = 648 bytes (already a multiple of 8) after the blocks */
    assert_int_equal(size, plain_size + 648);
    assert_int_equal(file[8], 3);
    assert_int_equal(rd64(file + 40), plain_size);
    assert_int_equal(rd64(file + 48), 648);
    assert_memory_equal(file + 64, plain + 64, 16); /* the skeleton's directory entry is where it was */
    bsync_asset a;
    bsync_error err;
    assert_int_equal(bsync_clip_file_load_memory(file, size, "a.bsclip", &a, &err), BSYNC_OK);
    assert_int_equal(a.clip_count, 2);
    assert_int_equal(bsync_asset_clip_action_count(&a), 7);
    for (uint32_t i = 0; i < 7; i++) {
        bsync_clip_action x;
        assert_int_equal(bsync_asset_get_clip_action(&a, i, &x), BSYNC_OK);
        const bsync_clip_action* w = &k_actions[i];
        assert_int_equal(x.clip, w->clip);
        assert_int_equal(x.kind, w->kind);
        assert_string_equal(x.name, w->name);
        assert_int_equal(x.time, w->time);
        assert_int_equal(x.end, w->end);
        assert_int_equal(x.payload, w->payload);
        assert_int_equal(x.key_count, w->key_count);
        if (w->key_count) {
            assert_memory_equal(x.key_times, w->key_times, w->key_count * sizeof(fix16_t));
            assert_memory_equal(x.key_values, w->key_values, w->key_count * sizeof(fix16_t));
        }
    }
    bsync_clip_action x;
    assert_int_equal(bsync_asset_get_clip_action(&a, 7, &x), BSYNC_INVALID_ARGUMENT);
    /* retargeted to a skeleton with one more joint: new clips, the same actions */
    static const char* const two[2] = {"root", "tip"};
    bsync_skeleton* other = bsync_test_chain_skeleton(two, 2, NULL);
    bsync_retarget_report rep;
    assert_int_equal(bsync_retarget_asset(&a, other, 0, &rep, &err), BSYNC_OK);
    assert_int_equal(bsync_skeleton_joint_count(a.skeleton), 2);
    assert_int_equal(bsync_asset_clip_action_count(&a), 7);
    assert_int_equal(bsync_asset_get_clip_action(&a, 4, &x), BSYNC_OK);
    assert_string_equal(x.name, "lift");
    assert_memory_equal(x.key_values, lift_v, sizeof lift_v);
    assert_int_equal(bsync_asset_get_clip_action(&a, 6, &x), BSYNC_OK);
    assert_int_equal(x.clip, 1);
    assert_string_equal(x.name, "ik");
    bsync_skeleton_destroy(other);
    bsync_asset_destroy(&a);
    /* a version-1 file has no actions */
    assert_int_equal(bsync_clip_file_load_memory(plain, plain_size, "p.bsclip", &a, &err), BSYNC_OK);
    assert_int_equal(bsync_asset_clip_action_count(&a), 0);
    bsync_asset_destroy(&a);
    free(plain);
    free(old);
    free(file);
    free_fixture(&f);
}

static void expect_refused(const fixture* f, const bsync_clip_action* a, uint32_t n) {
    assert_int_equal(bsync_clip_file_size_ex(f->skel, (const bsync_clip* const*)f->clips, 2, a, n), 0);
    unsigned char buf[4096];
    assert_int_equal(bsync_clip_file_write_memory_ex(f->skel, (const bsync_clip* const*)f->clips, 2, a, n, buf, sizeof buf),
                     BSYNC_INVALID_ARGUMENT);
}

static void test_writer_rules(void** state) {
    (void)state;
    fixture f;
    make_fixture(&f);
    bsync_clip_action a[7];
    memcpy(a, k_actions, sizeof a);
    a[3].time = FXI(1) / 8; /* foot_r before foot_l: markers sorted by time */
    expect_refused(&f, a, 7);
    memcpy(a, k_actions, sizeof a);
    a[3].name = "foot_l"; /* still sorted, a different time: fine; then the same time too: a duplicate */
    assert_true(bsync_clip_file_size_ex(f.skel, (const bsync_clip* const*)f.clips, 2, a, 7) > 0);
    a[3].time = a[2].time;
    expect_refused(&f, a, 7);
    memcpy(a, k_actions, sizeof a);
    a[0].time = FXI(1) + 1; /* an event past the 1.0 s clip */
    expect_refused(&f, a, 7);
    memcpy(a, k_actions, sizeof a);
    a[5].time = FXI(1) / 2; /* a marker at the 0.5 s clip's end (markers are below the duration) */
    expect_refused(&f, a, 7);
    memcpy(a, k_actions, sizeof a);
    a[1].end = a[1].time; /* an empty range */
    expect_refused(&f, a, 7);
    memcpy(a, k_actions, sizeof a);
    static const fix16_t flat[2] = {FXI(1) / 2, FXI(1) / 2};
    a[4].key_times = flat; /* curve keys not ascending */
    expect_refused(&f, a, 7);
    memcpy(a, k_actions, sizeof a);
    a[6].clip = 2; /* no such clip */
    expect_refused(&f, a, 7);
    memcpy(a, k_actions, sizeof a);
    a[5].clip = 0; /* clip 0 after clip 1's... then clip 1 again: not grouped */
    a[4].clip = 1;
    expect_refused(&f, a, 7);
    memcpy(a, k_actions, sizeof a);
    a[0].name = ""; /* an empty name */
    expect_refused(&f, a, 7);
    free_fixture(&f);
}

static void expect_bad(unsigned char* file, size_t size) {
    reseal(file, size);
    bsync_asset a;
    bsync_error err;
    assert_int_equal(bsync_clip_file_load_memory(file, size, "x.bsclip", &a, &err), BSYNC_BAD_BLOB);
    assert_non_null(strstr(err.message, "x.bsclip"));
    assert_null(a.clips);
}

static void test_reader_rules(void** state) {
    (void)state;
    fixture f;
    make_fixture(&f);
    size_t size;
    unsigned char* good = write_with(&f, k_actions, 7, &size);
    unsigned char* file = malloc(size);
    const size_t sec = (size_t)rd64(good + 40);
    const size_t e3 = sec + 8 + 3 * 88; /* action 3: foot_r of clip 0 */
    memcpy(file, good, size);
    wr32(file + e3 + 72, FXI(1) / 8); /* unsorted markers */
    expect_bad(file, size);
    memcpy(file, good, size);
    wr32(file + e3 + 4, 9); /* no such kind */
    expect_bad(file, size);
    memcpy(file, good, size);
    file[e3 + 8 + 10] = 'x'; /* a byte after the name's end */
    expect_bad(file, size);
    memcpy(file, good, size);
    wr32(file + sec, 8); /* one action more than there is */
    expect_bad(file, size);
    memcpy(file, good, size);
    wr32(file + e3 + 84, 5000); /* more keys than allowed */
    expect_bad(file, size);
    memcpy(file, good, size);
    file[8] = 2; /* a section in a version-2 file: reserved bytes not zero */
    expect_bad(file, size);
    memcpy(file, good, size);
    file[8] = 4; /* a version this build does not read */
    reseal(file, size);
    bsync_asset a;
    bsync_error err;
    assert_int_equal(bsync_clip_file_load_memory(file, size, "v.bsclip", &a, &err), BSYNC_BAD_BLOB);
    assert_non_null(strstr(err.message, "unsupported version 4 (this build reads versions 1 to 3)"));
    for (size_t cut = sec; cut < size; cut += 13) { /* every truncation of the section */
        memcpy(file, good, size);
        assert_int_equal(bsync_clip_file_load_memory(file, cut, "t.bsclip", &a, &err), BSYNC_BAD_BLOB);
    }
    free(file);
    free(good);
    free_fixture(&f);
}

/* A graph config binding both clips from the file: "walk" lists no events, markers or curves (the
 * file's are used: 2 actions, 2 markers, channel "lift"); "hop" lists its own marker (the file's is not
 * used) and no curve (the file's "ik"). */
static void test_graph_config(void** state) {
    (void)state;
    fixture f;
    make_fixture(&f);
    char dir[] = "/tmp/bsync_actions_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256], cfg[256];
    snprintf(path, sizeof path, "%s/acts.bsclip", dir);
    snprintf(cfg, sizeof cfg, "%s/g.json", dir);
    bsync_error err;
    assert_int_equal(bsync_clip_file_save_ex(path, f.skel, (const bsync_clip* const*)f.clips, 2, k_actions, 7, &err), BSYNC_OK);
    static const char text[] =
        "{ \"parameters\": { \"speed\": {} }, \"root\": \"loco\", \"nodes\": { \"loco\": { \"type\": \"Simple1D\", "
        "\"parameter\": \"speed\", \"sync\": \"markers\", \"children\": [ { \"motion\": \"walk\", \"threshold\": 0 }, "
        "{ \"motion\": \"hop\", \"threshold\": 1 } ] } }, \"clips\": { \"walk\": { \"source\": \"acts.bsclip\", "
        "\"animation\": \"walk\" }, \"hop\": { \"source\": \"acts.bsclip\", \"animation\": \"hop\", "
        "\"markers\": [ {\"name\": \"foot_r\", \"time\": 0.2} ] } } }";
    bsync_graph_config* gc = NULL;
    bsync_result r = bsync_graph_config_parse(text, strlen(text), cfg, NULL, &gc, NULL, &err);
    if (r != BSYNC_OK) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(r, BSYNC_OK);
    const bsync_graph* g = bsync_graph_config_graph(gc);
    assert_int_equal(bsync_graph_action_count(g), 2);
    bsync_graph_action_desc ad;
    assert_int_equal(bsync_graph_action(g, 0, &ad), BSYNC_OK);
    assert_string_equal(ad.name, "step");
    assert_int_equal(ad.kind, BSYNC_ACTION_EVENT);
    assert_int_equal(ad.time, FXI(1) / 4);
    assert_int_equal(ad.payload, 7);
    assert_int_equal(ad.policy, BSYNC_ACTION_POLICY_WEIGHT);
    assert_int_equal(bsync_graph_action(g, 1, &ad), BSYNC_OK);
    assert_string_equal(ad.name, "hit");
    assert_int_equal(ad.kind, BSYNC_ACTION_RANGE);
    assert_int_equal(ad.end, 39322);
    assert_int_equal(bsync_graph_curve_channel_count(g), 2);
    assert_string_equal(bsync_graph_curve_channel_name(g, 0), "lift");
    assert_string_equal(bsync_graph_curve_channel_name(g, 1), "ik");
    /* the same graph written with the file's actions in the config hashes the same */
    static const char same[] =
        "{ \"parameters\": { \"speed\": {} }, \"root\": \"loco\", \"nodes\": { \"loco\": { \"type\": \"Simple1D\", "
        "\"parameter\": \"speed\", \"sync\": \"markers\", \"children\": [ { \"motion\": \"walk\", \"threshold\": 0 }, "
        "{ \"motion\": \"hop\", \"threshold\": 1 } ] } }, \"clips\": { \"walk\": { \"source\": \"acts.bsclip\", "
        "\"animation\": \"walk\", \"events\": [ {\"name\": \"step\", \"time\": 0.25, \"payload\": 7}, "
        "{\"name\": \"hit\", \"begin\": 0.4, \"end\": 0.6, \"payload\": 10} ], "
        "\"markers\": [ {\"name\": \"foot_l\", \"time\": 0.25}, {\"name\": \"foot_r\", \"time\": 0.75} ], "
        "\"curves\": { \"lift\": [[0, 0], [0.5, 2]] } }, \"hop\": { \"source\": \"acts.bsclip\", \"animation\": \"hop\", "
        "\"markers\": [ {\"name\": \"foot_r\", \"time\": 0.2} ], \"curves\": { \"ik\": [[0, 1]] } } } }";
    bsync_graph_config* gc2 = NULL;
    r = bsync_graph_config_parse(same, strlen(same), cfg, NULL, &gc2, NULL, &err);
    if (r != BSYNC_OK) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(r, BSYNC_OK);
    assert_int_equal(bsync_graph_hash(bsync_graph_config_graph(gc2)), bsync_graph_hash(g));
    bsync_graph_config_destroy(gc2);
    bsync_graph_config_destroy(gc);
    unlink(path);
    rmdir(dir);
    free_fixture(&f);
}

/* glTF extras (docs/clip-format.md "glTF extras"): a 2-joint glTF with a 1 s animation "reach" (the
 * fuzz corpus's reach.gltf) whose extras hold the graph config's syntax; markers given out of order
 * come back sorted by time; times and values rounded to nearest fix16 (0.25 s = 16384 exactly, 1.5 =
 * 98304); bad extras fail the import naming the JSON path. */
#define REACH_PRE "{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [{\"name\": \"root\", \"children\": [1]}, {\"name\": \"hand\", \"translation\": [0, 1, 0]}], \"scenes\": [{\"nodes\": [0]}], \"scene\": 0, \"skins\": [{\"joints\": [0, 1]}], \"buffers\": [{\"byteLength\": 132, \"uri\": \"data:application/octet-stream;base64,AAAAAAAAAD8AAIA/AAAAAAAAAAAAAAAAAAAAAAAAAAAzMzM/AAAAAAAAAAAzM7M/AAAAAAAAAAAAAAAAAACAPwAAAAAV78M+AAAAAF6DbD8AAAAA8wQ1PwAAAADzBDU/AACAPwAAgD8AAIA/AADAPwAAwD8AAMA/AACAPwAAgD8AAIA/\"}], \"bufferViews\": [{\"buffer\": 0, \"byteOffset\": 0, \"byteLength\": 12}, {\"buffer\": 0, \"byteOffset\": 12, \"byteLength\": 36}, {\"buffer\": 0, \"byteOffset\": 48, \"byteLength\": 48}, {\"buffer\": 0, \"byteOffset\": 96, \"byteLength\": 36}], \"accessors\": [{\"bufferView\": 0, \"componentType\": 5126, \"count\": 3, \"type\": \"SCALAR\", \"min\": [0], \"max\": [1]}, {\"bufferView\": 1, \"componentType\": 5126, \"count\": 3, \"type\": \"VEC3\"}, {\"bufferView\": 2, \"componentType\": 5126, \"count\": 3, \"type\": \"VEC4\"}, {\"bufferView\": 3, \"componentType\": 5126, \"count\": 3, \"type\": \"VEC3\"}], \"animations\": [{"
#define REACH_POST "\"samplers\": [{\"input\": 0, \"output\": 1}, {\"input\": 0, \"output\": 2}, {\"input\": 0, \"output\": 3, \"interpolation\": \"STEP\"}], \"channels\": [{\"sampler\": 0, \"target\": {\"node\": 0, \"path\": \"translation\"}}, {\"sampler\": 1, \"target\": {\"node\": 1, \"path\": \"rotation\"}}, {\"sampler\": 2, \"target\": {\"node\": 1, \"path\": \"scale\"}}]}]}"
#define REACH(EXTRAS) REACH_PRE "\"name\": \"reach\", \"extras\": " EXTRAS ", " REACH_POST

static bsync_result import_gltf(const char* text, bsync_asset* a, bsync_error* err) {
    return bsync_gltf_import_memory(text, strlen(text), "reach.gltf", NULL, NULL, a, err);
}

static void test_gltf_extras(void** state) {
    (void)state;
    bsync_asset a;
    bsync_error err;
    static const char good[] = REACH(
        "{ \"author\": \"someone\", \"events\": [ {\"name\": \"grab\", \"time\": 0.25, \"payload\": 3}, "
        "{\"name\": \"hold\", \"begin\": 0.5, \"end\": 1} ], "
        "\"markers\": [ {\"name\": \"foot_r\", \"time\": 0.75}, {\"name\": \"foot_l\", \"time\": 0.25} ], "
        "\"curves\": { \"grip\": [[0, 0], [1, 1.5]] } }");
    bsync_result r = import_gltf(good, &a, &err);
    if (r != BSYNC_OK) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(r, BSYNC_OK);
    assert_int_equal(a.clip_count, 1);
    assert_int_equal(bsync_asset_clip_action_count(&a), 5);
    bsync_clip_action x;
    assert_int_equal(bsync_asset_get_clip_action(&a, 0, &x), BSYNC_OK);
    assert_string_equal(x.name, "grab");
    assert_int_equal(x.kind, BSYNC_CLIP_ACTION_EVENT);
    assert_int_equal(x.time, 16384);
    assert_int_equal(x.payload, 3);
    assert_int_equal(bsync_asset_get_clip_action(&a, 1, &x), BSYNC_OK);
    assert_int_equal(x.kind, BSYNC_CLIP_ACTION_RANGE);
    assert_int_equal(x.time, 32768);
    assert_int_equal(x.end, 65536);
    assert_int_equal(bsync_asset_get_clip_action(&a, 2, &x), BSYNC_OK);
    assert_string_equal(x.name, "foot_l");
    assert_int_equal(x.time, 16384);
    assert_int_equal(bsync_asset_get_clip_action(&a, 3, &x), BSYNC_OK);
    assert_string_equal(x.name, "foot_r");
    assert_int_equal(x.time, 49152);
    assert_int_equal(bsync_asset_get_clip_action(&a, 4, &x), BSYNC_OK);
    assert_int_equal(x.kind, BSYNC_CLIP_ACTION_CURVE);
    assert_string_equal(x.name, "grip");
    assert_int_equal(x.key_count, 2);
    assert_int_equal(x.key_times[1], 65536);
    assert_int_equal(x.key_values[1], 98304);
    /* written to a .bsclip and read back: the same actions */
    size_t size = bsync_clip_file_size_ex(a.skeleton, (const bsync_clip* const*)a.clips, 1, NULL, 0);
    bsync_clip_action list[5];
    for (uint32_t i = 0; i < 5; i++) assert_int_equal(bsync_asset_get_clip_action(&a, i, &list[i]), BSYNC_OK);
    size = bsync_clip_file_size_ex(a.skeleton, (const bsync_clip* const*)a.clips, 1, list, 5);
    unsigned char* file = malloc(size);
    assert_int_equal(bsync_clip_file_write_memory_ex(a.skeleton, (const bsync_clip* const*)a.clips, 1, list, 5, file, size),
                     BSYNC_OK);
    bsync_asset b;
    assert_int_equal(bsync_clip_file_load_memory(file, size, "reach.bsclip", &b, &err), BSYNC_OK);
    assert_int_equal(bsync_asset_clip_action_count(&b), 5);
    assert_int_equal(bsync_asset_get_clip_action(&b, 4, &x), BSYNC_OK);
    assert_int_equal(x.key_values[1], 98304);
    bsync_asset_destroy(&b);
    free(file);
    bsync_asset_destroy(&a);
    /* without extras: none */
    static const char plain[] = REACH("{}");
    assert_int_equal(import_gltf(plain, &a, &err), BSYNC_OK);
    assert_int_equal(bsync_asset_clip_action_count(&a), 0);
    bsync_asset_destroy(&a);
    /* bad extras: the import fails, naming where */
    assert_int_equal(import_gltf(REACH("{ \"events\": [ {\"name\": \"late\", \"time\": 2} ] }"), &a, &err), BSYNC_BAD_BLOB);
    assert_non_null(strstr(err.message, "clip 'reach': event 'late'"));
    assert_null(a.clips);
    assert_int_equal(import_gltf(REACH("{ \"markers\": [ {\"time\": 0.5} ] }"), &a, &err), BSYNC_BAD_BLOB);
    assert_non_null(strstr(err.message, "animations[0].extras.markers[0]: a name of 1 to 63 bytes is needed"));
    assert_int_equal(import_gltf(REACH("{ \"curves\": { \"c\": [[0.5, 1], [0.25, 2]] } }"), &a, &err), BSYNC_BAD_BLOB);
    assert_int_equal(import_gltf(REACH("{ \"events\": [ {\"name\": \"p\", \"time\": 0, \"payload\": 0.5} ] }"), &a, &err),
                     BSYNC_BAD_BLOB);
    assert_non_null(strstr(err.message, "a payload is a 32-bit integer"));
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_round_trip), cmocka_unit_test(test_writer_rules),
                                       cmocka_unit_test(test_reader_rules), cmocka_unit_test(test_graph_config),
                                       cmocka_unit_test(test_gltf_extras)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
