/* blendsync/io/match_config.h — match configuration files (JSON) -> a bsync_match_desc plus what a
 * server, a client or a replay needs (tokens, timing, policies, graph files).
 *
 * Index
 *   bsync_match_config_load / _parse / _load_ex / _parse_ex / _destroy   a file or text -> config
 *   bsync_match_policy, bsync_match_policy_name   what the server does on a desync
 *   bsync_match_timeouts                          start / peer / idle timeouts (ms)
 *   bsync_match_session, bsync_match_config_session, _secret, _replay_text   authenticated sessions
 *   accessors                                     desc, id, tokens, names, character slots, timing,
 *                                                 graphs, text, notes
 *   bsync_match_config_asset_hashes               per bound clip: "GRAPHFILE:MOTION" + its clip hash
 *   bsync_match_config_replay_header              the replay header of this match
 *
 * Strict JSON, unknown fields are errors. Errors: BSYNC_CONFIG_ERROR ("FILE: /json/path: message"),
 * BSYNC_IO_ERROR, BSYNC_OUT_OF_MEMORY, BSYNC_INVALID_ARGUMENT; *out NULL on failure.
 * design: docs/match-config.md (fields, graphs and input maps, errors, the calls)
 */
#ifndef BLENDSYNC_IO_MATCH_CONFIG_H
#define BLENDSYNC_IO_MATCH_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "blendsync/base.h"
#include "blendsync/io/graph_config.h"
#include "blendsync/match.h"
#include "blendsync/io/replay.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_MATCH_CONFIG_MAX_TOKEN 32u      /* = BSYNC_PROTO_MAX_TOKEN */
#define BSYNC_MATCH_CONFIG_MAX_INPUT_DELAY 30u
#define BSYNC_MATCH_CONFIG_MAX_CHECKSUM_INTERVAL 3600u
#define BSYNC_MATCH_CONFIG_MAX_PAYLOAD 256u
#define BSYNC_MATCH_CONFIG_MIN_TIMEOUT_MS 100u
#define BSYNC_MATCH_CONFIG_MAX_TIMEOUT_MS 600000u
#define BSYNC_MATCH_CONFIG_MAX_HOLD 1000000u
#define BSYNC_MATCH_CONFIG_MAX_PATH 1024u     /* with the NUL */
#define BSYNC_MATCH_CONFIG_MAX_ID ((uint64_t)1 << 53)
#define BSYNC_MATCH_CONFIG_DEFAULT_INPUT_DELAY 3u
#define BSYNC_MATCH_CONFIG_DEFAULT_CHECKSUM_INTERVAL 30u
#define BSYNC_MATCH_CONFIG_DEFAULT_HOLD_MIN 15u
#define BSYNC_MATCH_CONFIG_DEFAULT_HOLD_MAX 60u
#define BSYNC_MATCH_CONFIG_DEFAULT_START_MS 10000u
#define BSYNC_MATCH_CONFIG_DEFAULT_PEER_MS 5000u
#define BSYNC_MATCH_CONFIG_DEFAULT_IDLE_MS 30000u

typedef enum bsync_match_policy {
    BSYNC_MATCH_POLICY_REPORT = 0, /* log the desync, keep playing */
    BSYNC_MATCH_POLICY_RESYNC = 1, /* send the diverged client a snapshot */
    BSYNC_MATCH_POLICY_KICK = 2    /* disconnect the diverged client */
} bsync_match_policy;

BSYNC_API const char* bsync_match_policy_name(bsync_match_policy policy);

typedef struct bsync_match_timeouts {
    uint32_t start_ms; /* every player joined by then */
    uint32_t peer_ms;  /* a silent player is dropped */
    uint32_t idle_ms;  /* a silent match ends */
} bsync_match_timeouts;

typedef struct bsync_match_config bsync_match_config;

/* Relative paths are resolved against the file's directory. */
BSYNC_API bsync_result bsync_match_config_load(const char* path, const bsync_allocator* allocator, bsync_match_config** out,
                                     bsync_error* err);
/* `name` for messages (NULL: "match"); `base_dir` for relative paths (NULL: current directory). */
BSYNC_API bsync_result bsync_match_config_parse(const char* text, size_t len, const char* name, const char* base_dir,
                                      const bsync_allocator* allocator, bsync_match_config** out, bsync_error* err);
/* Every file read through options->file (NULL: stdio). */
BSYNC_API bsync_result bsync_match_config_load_ex(const char* path, const bsync_config_load_options* options,
                                                  const bsync_allocator* allocator, bsync_match_config** out,
                                                  bsync_error* err);
BSYNC_API bsync_result bsync_match_config_parse_ex(const char* text, size_t len, const char* name, const char* base_dir,
                                                   const bsync_config_load_options* options,
                                                   const bsync_allocator* allocator, bsync_match_config** out,
                                                   bsync_error* err);
BSYNC_API void bsync_match_config_destroy(bsync_match_config* cfg); /* NULL is ignored */

/* Accessors: NULL cfg or index out of range gives NULL / 0 / "". Everything is owned by cfg. */
BSYNC_API const bsync_match_desc* bsync_match_config_desc(const bsync_match_config* cfg);
BSYNC_API uint64_t bsync_match_config_match_id(const bsync_match_config* cfg);
BSYNC_API uint32_t bsync_match_config_player_count(const bsync_match_config* cfg);
#define BSYNC_MATCH_CONFIG_SECRET_BYTES 32u

typedef enum bsync_match_session {
    BSYNC_MATCH_SESSION_PLAIN = 0,       /* insecure */
    BSYNC_MATCH_SESSION_ENCRYPT = 1,
    BSYNC_MATCH_SESSION_AUTHENTICATE = 2
} bsync_match_session;

BSYNC_API bsync_match_session bsync_match_config_session(const bsync_match_config* cfg);
/* 1 and the slot's secret when the match has secrets, else 0. */
BSYNC_API int bsync_match_config_secret(const bsync_match_config* cfg, uint32_t slot,
                                        uint8_t out[BSYNC_MATCH_CONFIG_SECRET_BYTES]);
/* The text with every secret's digits zeroed. */
BSYNC_API const char* bsync_match_config_replay_text(const bsync_match_config* cfg, size_t* len);

/* *len (may be NULL): 1..32. */
BSYNC_API const char* bsync_match_config_token(const bsync_match_config* cfg, uint32_t slot, size_t* len);
BSYNC_API const char* bsync_match_config_param_name(const bsync_match_config* cfg, uint32_t i);
BSYNC_API const char* bsync_match_config_trigger_name(const bsync_match_config* cfg, uint32_t j);
BSYNC_API const char* bsync_match_config_trigger_switch(const bsync_match_config* cfg, uint32_t j);
BSYNC_API const char* bsync_match_config_character_name(const bsync_match_config* cfg, uint32_t c);
/* The player slot whose inputs drive character c, BSYNC_MATCH_NPC for an NPC (UINT32_MAX out of range). */
BSYNC_API uint32_t bsync_match_config_character_slot(const bsync_match_config* cfg, uint32_t c);
BSYNC_API uint32_t bsync_match_config_input_delay(const bsync_match_config* cfg);
BSYNC_API uint32_t bsync_match_config_checksum_interval(const bsync_match_config* cfg);
BSYNC_API bsync_match_policy bsync_match_config_desync_policy(const bsync_match_config* cfg);
BSYNC_API const char* bsync_match_config_replay_path(const bsync_match_config* cfg);
BSYNC_API uint32_t bsync_match_config_duration_ticks(const bsync_match_config* cfg);
BSYNC_API bsync_match_timeouts bsync_match_config_timeouts(const bsync_match_config* cfg);
BSYNC_API uint32_t bsync_match_config_payload_max(const bsync_match_config* cfg);
BSYNC_API uint32_t bsync_match_config_tick_rate(const bsync_match_config* cfg);
BSYNC_API const bsync_graph_config* bsync_match_config_character_graph(const bsync_match_config* cfg, uint32_t c);
/* Index into the distinct graph files (first use order); UINT32_MAX out of range. */
BSYNC_API uint32_t bsync_match_config_character_graph_file(const bsync_match_config* cfg, uint32_t c);
BSYNC_API uint32_t bsync_match_config_graph_file_count(const bsync_match_config* cfg);
BSYNC_API const char* bsync_match_config_graph_file_path(const bsync_match_config* cfg, uint32_t i);    /* resolved */
BSYNC_API const char* bsync_match_config_graph_file_written(const bsync_match_config* cfg, uint32_t i); /* as written */
BSYNC_API uint64_t bsync_match_config_graph_file_hash(const bsync_match_config* cfg, uint32_t i);
BSYNC_API const bsync_graph_config* bsync_match_config_graph_file_config(const bsync_match_config* cfg, uint32_t i);
/* The text as read; base_dir ends in '/' ("" for the current directory). */
BSYNC_API const char* bsync_match_config_text(const bsync_match_config* cfg, size_t* len);
BSYNC_API const char* bsync_match_config_path(const bsync_match_config* cfg);
BSYNC_API const char* bsync_match_config_base_dir(const bsync_match_config* cfg);
/* Unmapped input parameters and triggers, one line each. */
BSYNC_API const char* bsync_match_config_notes(const bsync_match_config* cfg);

/* Writes min(cap, total) entries (GRAPHFILE as written); returns the total. */
BSYNC_API uint32_t bsync_match_config_asset_hashes(const bsync_match_config* cfg, const char** names, uint64_t* hashes,
                                         uint32_t cap);

/* out->config_text points into cfg: keep cfg alive while the header is used. */
BSYNC_API void bsync_match_config_replay_header(const bsync_match_config* cfg, const char* build_version, uint32_t start_tick,
                                      bsync_replay_header* out);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_MATCH_CONFIG_H */
