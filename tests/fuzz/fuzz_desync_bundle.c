/* fuzz_desync_bundle.c — a desync bundle (io/desync_bundle.h) from memory. The input packs the bundle's
 * files as parts, each a u32 little-endian length and its bytes, in this order: bundle.json,
 * server.bsms, client.bsms, server-previous.bsms, client-trail.bstrail, inputs.csv (a part cut short
 * takes what is left; missing ones are empty). Runs bsync_desync_bundle_parse on bundle.json (its
 * fields must come out NUL-terminated inside their arrays; what it read, written again with
 * bsync_desync_bundle_json and parsed, gives the same fields), bsync_desync_bundle_trace_memory (what
 * `blendsync desync diff BUNDLE` does after reading the files) against the fuzz match (fuzz_match.h) with
 * the snapshots and the trail re-sealed, bsync_desync_describe of server against client, and
 * bsync_desync_bundle_inputs_parse of inputs.csv over the rows it holds; when that parses, writing the
 * frames back with bsync_desync_inputs_csv and parsing again gives the same frames (its inverse).
 * Seeds: real bundles written by blendsync-server after a planted desync (make_seeds.sh). */
#include <stdlib.h>
#include <string.h>

#include "blendsync/io/desync.h"
#include "blendsync/io/desync_bundle.h"
#include "fuzz_match.h"
#include "fuzz_target.h"

#define PARTS 6
#define MAX_FRAMES 64u

static bsync_match *work, *other;
static char text[8192];
static bsync_match_frame frames[MAX_FRAMES], back[MAX_FRAMES];

static char json[1u << 20];

/* b's fields as a description, written with bsync_desync_bundle_json and read again: the same fields. */
static void round_trip(const bsync_desync_bundle* b, const bsync_match_config* cfg) {
    static const char* names[BSYNC_REPLAY_MAX_ASSETS];
    static uint64_t hashes[BSYNC_REPLAY_MAX_ASSETS];
    static bsync_desync_bundle again;
    static const uint8_t file = 0;
    bsync_desync_bundle_desc d;
    memset(&d, 0, sizeof d);
    d.root = "fuzz";
    d.tick = b->tick >= 0 && b->tick <= (long long)UINT32_MAX ? (uint32_t)b->tick : 0u;
    d.slot = b->slot >= 0 && b->slot <= (long long)UINT32_MAX ? (uint32_t)b->slot : 0u;
    d.match_id = b->match_id;
    d.match_hash = b->match_hash;
    d.match_config = b->has_match_config ? b->match_config : NULL;
    d.previous_tick = b->previous_tick;
    d.first_divergent_tick = b->first_divergent_tick;
    d.first_divergent_character = b->first_divergent_character;
    d.build = b->build;
    for (uint32_t i = 0; i < b->asset_count; i++) {
        names[i] = b->assets[i].name;
        hashes[i] = b->assets[i].hash;
    }
    d.asset_count = b->asset_count;
    d.asset_names = names;
    d.asset_hashes = hashes;
    d.server_previous = b->has_server_previous ? &file : NULL;
    d.client_trail = b->has_client_trail ? &file : NULL;
    d.match = b->has_inputs ? bsync_match_config_desc(cfg) : NULL;
    d.pose = b->has_pose ? &b->pose : NULL;
    size_t need = bsync_desync_bundle_json(&d, NULL, 0);
    if (need == 0) return; /* out of memory */
    if (need >= sizeof json || bsync_desync_bundle_json(&d, json, sizeof json) != need || strlen(json) != need) abort();
    bsync_error err;
    if (bsync_desync_bundle_parse("fuzz", json, need, &again, &err) != BSYNC_OK || again.format != BSYNC_DESYNC_BUNDLE_FORMAT)
        abort();
    if (again.has_match_config != b->has_match_config || strcmp(again.match_config, b->match_config) ||
        again.match_id != b->match_id || (b->has_match_hash && again.match_hash != b->match_hash) ||
        (uint64_t)again.tick != d.tick || (uint64_t)again.slot != d.slot || again.previous_tick != b->previous_tick ||
        again.first_divergent_tick != b->first_divergent_tick ||
        again.first_divergent_character != b->first_divergent_character || strcmp(again.build, b->build) ||
        again.has_server_previous != b->has_server_previous || again.has_client_trail != b->has_client_trail ||
        again.has_inputs != b->has_inputs || again.asset_count != b->asset_count)
        abort();
    for (uint32_t i = 0; i < b->asset_count; i++)
        if (strcmp(again.assets[i].name, b->assets[i].name) || again.assets[i].hash != b->assets[i].hash) abort();
    if (again.has_pose != b->has_pose) abort();
    if (!b->has_pose) return;
    const bsync_desync_bundle_pose *p = &b->pose, *q = &again.pose;
    if (q->tick != p->tick || q->agreed_tick != p->agreed_tick || q->character != p->character ||
        strcmp(q->character_name, p->character_name) || q->compared != p->compared ||
        q->differing != (p->differing > p->joint_count ? p->differing : p->joint_count) ||
        q->joint_count != p->joint_count)
        abort();
    for (uint32_t i = 0; i < p->joint_count; i++)
        if (q->joints[i].index != p->joints[i].index || strcmp(q->joints[i].name, p->joints[i].name) ||
            q->joints[i].server != p->joints[i].server || q->joints[i].client != p->joints[i].client)
            abort();
}

static uint32_t u32_at(const uint8_t* p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

static void terminated(const char* s, size_t cap) {
    if (!memchr(s, 0, cap)) abort();
}

static void inputs(const bsync_match_config* cfg, const char* csv, size_t len, uint32_t first) {
    const bsync_match_desc* d = bsync_match_config_desc(cfg);
    size_t rows = bsync_desync_bundle_inputs_rows(csv, len);
    uint32_t count = (uint32_t)(rows / d->player_count);
    if (count > MAX_FRAMES) count = MAX_FRAMES;
    if (count == 0) count = 1;
    bsync_error err;
    if (bsync_desync_bundle_inputs_parse(csv, len, "inputs.csv", d, first, count, frames, NULL, &err) != BSYNC_OK) return;
    size_t need = bsync_desync_inputs_csv(d, cfg, frames, NULL, first, count, NULL, 0);
    char* again = malloc(need + 1);
    if (!again) return;
    if (bsync_desync_inputs_csv(d, cfg, frames, NULL, first, count, again, need + 1) != need) abort();
    if (bsync_desync_bundle_inputs_parse(again, need, "again.csv", d, first, count, back, NULL, &err) != BSYNC_OK) abort();
    for (uint32_t i = 0; i < count; i++)
        for (uint32_t p = 0; p < d->player_count; p++)
            if (memcmp(back[i].players[p].params, frames[i].players[p].params, d->param_count * sizeof(fix16_t)) ||
                memcmp(back[i].players[p].triggers, frames[i].players[p].triggers, d->trigger_count))
                abort();
    free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const bsync_match_config* cfg = fuzz_match_config();
    if (!work) {
        work = fuzz_match_new(NULL);
        other = fuzz_match_new(NULL);
    }
    const uint8_t* part[PARTS];
    size_t len[PARTS], pos = 0;
    for (int i = 0; i < PARTS; i++) {
        size_t n = 0;
        if (pos + 4 <= size) {
            n = u32_at(data + pos);
            pos += 4;
        } else {
            pos = size;
        }
        if (n > size - pos) n = size - pos;
        part[i] = data + pos;
        len[i] = n;
        pos += n;
    }
    static bsync_desync_bundle b;
    bsync_error err;
    memset(&b, 0, sizeof b);
    if (bsync_desync_bundle_parse("fuzz/server.bsreplay.desync/tick1-slot0", (const char*)part[0], len[0], &b, &err) == BSYNC_OK) {
        terminated(b.server_state, sizeof b.server_state);
        terminated(b.client_state, sizeof b.client_state);
        terminated(b.match_config, sizeof b.match_config);
        terminated(b.build, sizeof b.build);
        if (b.asset_count > BSYNC_REPLAY_MAX_ASSETS) abort();
        for (uint32_t i = 0; i < b.asset_count; i++) terminated(b.assets[i].name, sizeof b.assets[i].name);
        round_trip(&b, cfg);
    }
    uint8_t* server = fuzz_reseal(part[1], len[1], 0);
    uint8_t* client = fuzz_reseal(part[2], len[2], 0);
    uint8_t* previous = fuzz_reseal(part[3], len[3], 0);
    uint8_t* trail = fuzz_reseal(part[4], len[4], BSYNC_TRAIL_SEED);
    if (server) {
        bsync_desync_trace_result res;
        int reproduced = 0;
        memset(text, 0x5A, sizeof text);
        bsync_result r = bsync_desync_bundle_trace_memory(&b, cfg, work, other, server, len[1], previous, previous ? len[3] : 0,
                                                          trail, trail ? len[4] : 0, (const char*)part[5], len[5], NULL, &res,
                                                          text, sizeof text - 1, &reproduced, &err);
        if (r == BSYNC_OK && (!memchr(text, 0, sizeof text - 1) || res.operation < 0 || res.operation > 6 || (!res.located && res.operation != 0))) abort();
        if (text[sizeof text - 1] != 0x5A) abort();
        if (client && bsync_match_load(work, server, len[1]) == BSYNC_OK && bsync_match_load(other, client, len[2]) == BSYNC_OK)
            bsync_desync_describe(work, other, cfg, text, sizeof text);
    }
    uint32_t first = previous && bsync_match_load(work, previous, len[3]) == BSYNC_OK ? (uint32_t)bsync_match_tick_count(work) : 0;
    inputs(cfg, (const char*)part[5], len[5], first);
    free(server);
    free(client);
    free(previous);
    free(trail);
    return 0;
}
