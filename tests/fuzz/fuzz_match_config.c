/* fuzz_match_config.c — match configs (io/match_config.h) from memory: bsync_match_config_parse of any
 * text, its relative graph paths resolved in tests/fuzz/match (BSYNC_FUZZ_MATCH_DIR, where
 * humanoid_locomotion.json lies). For a config it accepts: every accessor over every index; the
 * replay header it gives (bsync_match_config_replay_header) encodes as a HEADER record that the
 * replay reader reads back with the same fields and config text (oracle, abort() on a break); and the
 * match it describes runs: init, a few ticks of the seeded script's inputs, save and load.
 * Seeds: the match files of tests/fuzz/match, scripts/demo and tests/fixtures/replay/v1. */
#include <stdlib.h>
#include <string.h>

#include "blendsync/io/match_config.h"
#include "blendsync/io/replay.h"
#include "fuzz_target.h"

#ifndef BSYNC_FUZZ_MATCH_DIR
#error "BSYNC_FUZZ_MATCH_DIR (the tests/fuzz/match directory) must be defined"
#endif

static bsync_replay_header header;
static bsync_replay_record rec;

static void header_roundtrip(const bsync_match_config* cfg) {
    bsync_match_config_replay_header(cfg, "fuzz", 7, &header);
    bsync_replay_record hr;
    memset(&hr, 0, sizeof hr);
    hr.type = BSYNC_REPLAY_HEADER;
    hr.header = header;
    size_t n = 0;
    if (bsync_replay_encode_record(&hr, NULL, NULL, 0, &n) != BSYNC_OK) abort();
    uint8_t* file = malloc(BSYNC_REPLAY_MAGIC_SIZE + n);
    if (!file) return;
    memcpy(file, "BSRPLY\r\n", BSYNC_REPLAY_MAGIC_SIZE);
    if (bsync_replay_encode_record(&hr, NULL, file + BSYNC_REPLAY_MAGIC_SIZE, n, &n) != BSYNC_OK) abort();
    bsync_replay_reader* r = NULL;
    if (bsync_replay_reader_open_memory(file, BSYNC_REPLAY_MAGIC_SIZE + n, &r) != BSYNC_OK) abort();
    if (bsync_replay_reader_next(r, &rec, NULL, 0) != BSYNC_REPLAY_OK || rec.type != BSYNC_REPLAY_HEADER) abort();
    const bsync_replay_header* h = &rec.header;
    if (h->match_id != header.match_id || h->match_hash != header.match_hash || h->tick_rate != header.tick_rate ||
        h->player_count != header.player_count || h->param_count != header.param_count ||
        h->trigger_count != header.trigger_count || h->character_count != header.character_count ||
        h->input_delay != header.input_delay || h->checksum_interval != header.checksum_interval || h->start_tick != 7 ||
        h->asset_count != header.asset_count || h->config_len != header.config_len ||
        memcmp(h->config_text, header.config_text, header.config_len) || strcmp(h->config_path, header.config_path))
        abort();
    for (uint32_t i = 0; i < h->asset_count; i++)
        if (h->assets[i].hash != header.assets[i].hash || strcmp(h->assets[i].name, header.assets[i].name)) abort();
    if (bsync_replay_reader_next(r, NULL, NULL, 0) != BSYNC_REPLAY_EOF) abort();
    bsync_replay_reader_close(r);
    free(file);
}

static void run_match(const bsync_match_desc* d) {
    size_t size = bsync_match_memory_size(d);
    if (size == 0) abort(); /* the config's desc passed bsync_match_desc_validate */
    void* mem = aligned_alloc(8, (size + 7) & ~(size_t)7);
    bsync_match* m = NULL;
    if (!mem) return;
    if (bsync_match_init(mem, size, d, &m) != BSYNC_OK) abort();
    bsync_match_script script[BSYNC_MATCH_MAX_PLAYERS];
    static bsync_match_frame f;
    memset(&f, 0, sizeof f);
    f.player_count = d->player_count;
    for (uint32_t p = 0; p < d->player_count; p++) bsync_match_script_init(&script[p], 1000 + p);
    for (int t = 0; t < 3; t++) {
        for (uint32_t p = 0; p < d->player_count; p++) bsync_match_random_input(&script[p], d, &f.players[p]);
        if (bsync_match_tick(m, &f) != BSYNC_OK) abort();
    }
    size_t cap = bsync_match_snapshot_size_max(m), n = 0;
    uint8_t* snap = malloc(cap ? cap : 1);
    if (snap) {
        if (bsync_match_save(m, snap, cap, &n) != BSYNC_OK || bsync_match_load(m, snap, n) != BSYNC_OK) abort();
        free(snap);
    }
    free(mem);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    bsync_match_config* cfg = NULL;
    bsync_error err;
    if (bsync_match_config_parse((const char*)data, size, "fuzz-match.json", BSYNC_FUZZ_MATCH_DIR, NULL, &cfg, &err) != BSYNC_OK) {
        if (cfg) abort(); /* *out is NULL on failure */
        return 0;
    }
    const bsync_match_desc* d = bsync_match_config_desc(cfg);
    uint32_t players = bsync_match_config_player_count(cfg);
    if (!d || players != d->player_count || players < 1 || players > BSYNC_MATCH_MAX_PLAYERS) abort();
    for (uint32_t s = 0; s < players; s++) {
        size_t tl = 0;
        const char* tok = bsync_match_config_token(cfg, s, &tl);
        if (!tok || tl < 1 || tl > BSYNC_MATCH_CONFIG_MAX_TOKEN || strlen(tok) != tl) abort();
    }
    for (uint32_t i = 0; i < d->param_count; i++) (void)strlen(bsync_match_config_param_name(cfg, i));
    for (uint32_t j = 0; j < d->trigger_count; j++)
        (void)(strlen(bsync_match_config_trigger_name(cfg, j)) + strlen(bsync_match_config_trigger_switch(cfg, j)));
    for (uint32_t c = 0; c < d->character_count; c++) {
        (void)strlen(bsync_match_config_character_name(cfg, c));
        if (!bsync_match_config_character_graph(cfg, c) ||
            bsync_match_config_character_graph_file(cfg, c) >= bsync_match_config_graph_file_count(cfg))
            abort();
    }
    for (uint32_t i = 0; i < bsync_match_config_graph_file_count(cfg); i++)
        (void)(strlen(bsync_match_config_graph_file_path(cfg, i)) + strlen(bsync_match_config_graph_file_written(cfg, i)) +
               bsync_match_config_graph_file_hash(cfg, i));
    size_t tl = 0;
    if (bsync_match_config_text(cfg, &tl) == NULL || tl != size) abort(); /* the text exactly as read */
    (void)(strlen(bsync_match_config_replay_path(cfg)) + strlen(bsync_match_config_notes(cfg)) +
           strlen(bsync_match_policy_name(bsync_match_config_desync_policy(cfg))));
    uint32_t assets = bsync_match_config_asset_hashes(cfg, NULL, NULL, 0);
    const char* names[8];
    uint64_t hashes[8];
    if (bsync_match_config_asset_hashes(cfg, names, hashes, 8) != assets) abort();
    header_roundtrip(cfg);
    run_match(d);
    bsync_match_config_destroy(cfg);
    return 0;
}
