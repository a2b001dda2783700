/* test_support.h — small helpers shared by the cmocka tests (not part of the product). */
#ifndef BSYNC_TEST_SUPPORT_H
#define BSYNC_TEST_SUPPORT_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "blendsync/fixed.h"

#include "blendsync/base.h"
#include "blendsync/graph.h"
#include "blendsync/match.h"
#include "blendsync/sample.h"

/* The ../shared folder (BSYNC_SHARED_DIR; default ../shared beside the project, fixed at configure
 * time) if it exists, else NULL. */
const char* bsync_test_shared_dir(void);
/* Path of a file inside the shared folder, in a static buffer; NULL when the file is absent. */
const char* bsync_test_shared_path(const char* relative);

/* The whole file at path, malloc'd and NUL-terminated (free with free()); NULL when it cannot be
 * opened or read. *size (when size is not NULL) gets the byte count. */
char* bsync_test_read_file(const char* path, size_t* size);
/* Read and parse a JSON file, asserting that both succeed; free the result with cJSON_Delete. */
cJSON* bsync_test_load_json(const char* path);
/* A JSON number, or one of the strings "inf", "-inf", "nan" (the vector files' non-finite values);
 * anything else fails the test. */
double bsync_test_json_number(const cJSON* j);

/* Assert that n blend weights are all >= 0 and sum to exactly 1.0 (65536 raw). */
void bsync_test_assert_partition(const fix16_t* w, size_t n);

/* sample.h's rule written out (the reference the sampler is tested against): the local pose of clip
 * at `time`, over its keys as bsync_clip_track_key gives them (any encoding): the clip-local time
 * (wrapped or clamped), then per track a linear scan for the interval, bsync_fx_div for alpha,
 * bsync_vec3_lerp / bsync_quat_nlerp; joints without a track keep `rest`. */
void bsync_test_rule_sample(const bsync_clip* clip, fix16_t time, bsync_loop_mode mode, const bsync_trs* rest,
                            uint32_t joint_count, bsync_trs* out);
/* The lerp samplers' rule (sample.h, pose rule 2) written out the same way: between keys the rotation
 * is the hemisphere-aligned component lerp (exact int64 dot, bsync_fx_lerp), not normalised. */
void bsync_test_rule_sample_lerp(const bsync_clip* clip, fix16_t time, bsync_loop_mode mode, const bsync_trs* rest,
                                 uint32_t joint_count, bsync_trs* out);

/* The angle in radians between the rotations of two quaternions of any length (test-side doubles,
 * for bounds only). */
double bsync_test_quat_angle(bsync_quat a, bsync_quat b);

/* An allocator that counts calls and live bytes (wraps malloc). */
typedef struct bsync_test_counting_allocator {
    bsync_allocator allocator; /* hand &this->allocator to the core */
    size_t allocs, frees, live_bytes;
} bsync_test_counting_allocator;
void bsync_test_counting_allocator_init(bsync_test_counting_allocator* c);

/* An allocator whose alloc_fn always returns NULL and counts its calls in *calls; its free_fn fails
 * the test (nothing was allocated, so nothing may be freed). */
bsync_allocator bsync_test_failing_allocator(int* calls);

/* Standard base64 (RFC 4648, with padding) of n bytes, NUL-terminated, malloc'ed (free it). */
char* bsync_test_base64(const unsigned char* data, size_t n);

/* Deterministic pseudo-random numbers for stratified sweeps (splitmix64). */
uint64_t bsync_test_rand(uint64_t* state);

/* A match of desc in fresh 16-byte aligned memory (*mem: free it); asserts it initialises. */
bsync_match* bsync_test_match_new(const bsync_match_desc* desc, void** mem);

/* The blend's reference rounding: v / den (den > 0) rounded to nearest, ties away from zero,
 * saturated to [-0x7FFFFFFF, 0x7FFFFFFF], with plain int64 division. */
fix16_t bsync_test_round_div(int64_t v, int64_t den);

#endif
