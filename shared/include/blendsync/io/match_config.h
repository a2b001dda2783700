/* blendsync/io/match_config.h — match configuration files (JSON) -> a bsync_match_desc plus everything a
 * server, a client or a replay needs to know about the match (tokens, timing, policies, graph files).
 *
 * Index
 *   bsync_match_config_load / _parse / _destroy   a file (or text) -> bsync_match_config
 *   bsync_match_policy                            what the server does on a desync
 *   bsync_match_timeouts                          start / peer / idle timeouts in milliseconds
 *   accessors                                     desc, id, tokens, names, character slots, timing,
 *                                                 graphs, text, notes
 *   bsync_match_config_asset_hashes               per bound clip: "GRAPHFILE:MOTION" + bsync_checksum_clip
 *
 * Format (strict JSON, RFC 8259; unknown fields are errors, so typos never pass silently; each field at
 * most once):
 *   {
 *     "match_id": 1,                                  required; integer 1 .. 2^53
 *     "players": [ {"token": "alpha-7f3k"}, ... ],    required; 1..16 players, slot = array index;
 *                                                     "token" required, 1..32 bytes of visible ASCII
 *                                                     (0x21..0x7E: no spaces, no control bytes);
 *                                                     "secret" optional, 64 hex digits: the slot's 32-byte
 *                                                     session secret (blendsync/session.h) — every player
 *                                                     has one (an authenticated match) or none (plain
 *                                                     tokens: insecure, logged so); replays record the
 *                                                     config with every secret's digits zeroed
 *     "session": "encrypt",                           optional, with secrets only: "encrypt" (default) or
 *                                                     "authenticate" (sealed but readable, for captures)
 *     "input": {                                      optional (no parameters, no triggers)
 *       "parameters": [ {"name": "speed", "min": 0, "max": 3.5}, ... ],
 *                                                     optional, 0..64; all three fields required; names
 *                                                     1..63 bytes, unique; min <= max (compared after
 *                                                     rounding to fix16); min and max are
 *                                                     the seeded script's range (exact fix16 decimals)
 *       "triggers": [ {"name": "action", "switch": "upper", "fade_ticks": 6}, ... ],
 *                                                     optional, 0..16; "name" (1..63 bytes, unique among
 *                                                     triggers) and "switch" (1..63 bytes: the NAME of a
 *                                                     switch node of the graphs) required; "fade_ticks"
 *                                                     integer 0..1048576 (BSYNC_SWITCH_MAX_FADE_TICKS),
 *                                                     default 0; "carry" and "inertialize" true/false,
 *                                                     default false (bsync_switch_trigger's carry_time and
 *                                                     inertialize; inertialize needs fade_ticks >= 1 and,
 *                                                     on every graph it drives, a skeleton); several
 *                                                     triggers may name one switch; "script_states"
 *                                                     integer 0..255, default 0: the seeded script draws
 *                                                     0..n for it
 *       "hold_ticks": [15, 60]                        optional; the seeded script's hold range [min, max],
 *                                                     integers 1 <= min <= max <= 1000000; default [15, 60]
 *     },
 *     "characters": [                                 required; 1..64
 *       { "name": "p0", "graph": "loco.json", "slot": 0 },
 *       { "name": "npc1", "graph": "loco.json", "npc_seed": 7 }
 *                                                     "name" required, 1..63 bytes, unique; "graph"
 *                                                     required: a graph config file (io/graph_config.h),
 *                                                     relative to the match config's directory (an
 *                                                     absolute path is kept), 1..1023 bytes; exactly one
 *                                                     of "slot" (integer < the player count: a player
 *                                                     character) and "npc_seed" (integer 0 .. 2^53: a
 *                                                     non-player character driven by the seeded script)
 *     ],
 *     "input_delay": 3,                               optional; integer 0..30, default 3 (ticks)
 *     "checksum_interval": 30,                        optional; integer 1..3600, default 30 (ticks)
 *     "desync_policy": "report",                      optional; "report" | "resync" | "kick", default report
 *     "replay": "replays/match-1.bsreplay",           optional; a file path relative to the config's
 *                                                     directory (absolute kept), 0..1023 bytes; "" or
 *                                                     absent: no replay
 *     "duration_ticks": 600,                          optional; integer 0 .. 4294967295, default 0 (0: the
 *                                                     match runs until every player has left)
 *     "timeouts": {"start_ms": 10000, "peer_ms": 5000, "idle_ms": 30000},
 *                                                     optional, each field optional; integers 100..600000;
 *                                                     defaults 10000, 5000, 30000
 *     "payload_max": 0                                optional; integer 0..256, default 0 (bytes of
 *                                                     per-player game payload relayed per frame)
 *   }
 * Integers are written as plain JSON integers (no fraction, no exponent: "30.0" and "3e1" are refused)
 * and are read exactly from their text (never through a double). The parameter bounds become fix16 by
 * exact decimal rounding of their text (bsync_fx_parse), never through a float; a bound outside Q16.16's
 * range is an error naming its path.
 *
 * Graphs: every DISTINCT resolved "graph" path (resolved = base directory + path as a string; no
 * normalisation) is loaded once with bsync_graph_config_load (the given allocator) and shared by every
 * character naming it (bsync_match_config_character_graph returns the same pointer). Every graph must
 * have the same tick rate (an error names both characters), which must be 15..60.
 * Input maps, per character: input parameter i -> the graph parameter of the same name
 * (bsync_blend_tree_find_parameter on the graph's tree), BSYNC_MATCH_UNMAPPED when the graph has none
 * (a note "character NAME: input parameter P drives nothing"); input trigger j -> the index of the
 * graph's switch whose tree node is named "switch" (bsync_graph_switch_node), UNMAPPED when there is
 * none (a note "character NAME: input trigger T drives nothing (no switch node \"S\")"), with fade
 * fade_ticks, carry and inertialize (an inertialized trigger mapped on a graph without a skeleton is an
 * error at /characters/K/graph). A character none of whose graph parameters is driven is fine. Player characters have
 * npc_seed 0 in the desc; NPCs have slot BSYNC_MATCH_NPC. Finally bsync_match_desc_validate must
 * accept the desc (otherwise "FILE: /: the match description is invalid: ...").
 *
 * Errors fill a bsync_error whose message is "FILE: /json/path: message" (FILE = the path given to
 * _load, or `name` for _parse), e.g.
 *   "match.json: /characters/2: both \"slot\" and \"npc_seed\" given (exactly one is needed)"
 *   "match.json: /input/parameters/1/name: duplicate input parameter name \"x\""
 *   "match.json: /characters/1/graph: cannot load \"loco.json\": loco.json: /nodes: ..."
 *   "match.json: /characters/2/graph: tick rate 60 of \"fast.json\" (character npc1) differs from tick
 *    rate 30 of \"loco.json\" (character p0)"
 * and return BSYNC_CONFIG_ERROR; invalid JSON is "FILE:LINE:COLUMN: invalid JSON: ..." (as config.h).
 * BSYNC_IO_ERROR when the match config file itself cannot be read (a graph file that cannot be read is
 * a BSYNC_CONFIG_ERROR at its "graph" path), BSYNC_OUT_OF_MEMORY when an allocation fails,
 * BSYNC_INVALID_ARGUMENT for NULL arguments. *out is NULL on failure.
 *
 * Edge code (blendsync_io): reads files, allocates (malloc for its own data; the allocator, NULL =
 * default, for the graphs).
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
#define BSYNC_MATCH_CONFIG_MAX_PATH 1024u     /* bytes of a written "graph" / "replay" path, with NUL */
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

/* "report", "resync", "kick" ("unknown" for another value). */
BSYNC_API const char* bsync_match_policy_name(bsync_match_policy policy);

typedef struct bsync_match_timeouts {
    uint32_t start_ms; /* every player must have joined within this after the server starts */
    uint32_t peer_ms;  /* a connected player silent this long is dropped */
    uint32_t idle_ms;  /* the server ends a match nobody sends anything to for this long */
} bsync_match_timeouts;

typedef struct bsync_match_config bsync_match_config; /* opaque */

/* Read and load a match config file; relative paths are resolved against the file's directory. */
BSYNC_API bsync_result bsync_match_config_load(const char* path, const bsync_allocator* allocator, bsync_match_config** out,
                                     bsync_error* err);
/* The same from text: `name` is used in messages and as the config's path (NULL: "match"); `base_dir`
 * (NULL or "": the current directory) is the directory relative paths are resolved against (a '/' is
 * added between it and a path when it does not end with one). */
BSYNC_API bsync_result bsync_match_config_parse(const char* text, size_t len, const char* name, const char* base_dir,
                                      const bsync_allocator* allocator, bsync_match_config** out, bsync_error* err);
/* The same two reading every file (the match config for _load_ex, each graph config and the clip
 * sources they name) through options->file (io/graph_config.h, bsync_config_load_options; NULL: stdio):
 * a match packed in an engine's pak file or a C# stream, paths joined as text. */
BSYNC_API bsync_result bsync_match_config_load_ex(const char* path, const bsync_config_load_options* options,
                                                  const bsync_allocator* allocator, bsync_match_config** out,
                                                  bsync_error* err);
BSYNC_API bsync_result bsync_match_config_parse_ex(const char* text, size_t len, const char* name, const char* base_dir,
                                                   const bsync_config_load_options* options,
                                                   const bsync_allocator* allocator, bsync_match_config** out,
                                                   bsync_error* err);
BSYNC_API void bsync_match_config_destroy(bsync_match_config* cfg); /* NULL is ignored */

/* Accessors. NULL cfg or an index out of range: NULL / 0 / "" (as the type allows). */
/* The desc (its characters array and graphs are owned by cfg and live until destroy). */
BSYNC_API const bsync_match_desc* bsync_match_config_desc(const bsync_match_config* cfg);
BSYNC_API uint64_t bsync_match_config_match_id(const bsync_match_config* cfg);
BSYNC_API uint32_t bsync_match_config_player_count(const bsync_match_config* cfg);
#define BSYNC_MATCH_CONFIG_SECRET_BYTES 32u

typedef enum bsync_match_session {
    BSYNC_MATCH_SESSION_PLAIN = 0,       /* tokens in clear (local play; insecure) */
    BSYNC_MATCH_SESSION_ENCRYPT = 1,     /* authenticated and encrypted sessions */
    BSYNC_MATCH_SESSION_AUTHENTICATE = 2 /* authenticated, readable */
} bsync_match_session;

/* PLAIN without secrets; ENCRYPT or AUTHENTICATE ("session") with them. */
BSYNC_API bsync_match_session bsync_match_config_session(const bsync_match_config* cfg);
/* 1 and the slot's secret in out (may be NULL) when the match has secrets; 0 otherwise. */
BSYNC_API int bsync_match_config_secret(const bsync_match_config* cfg, uint32_t slot,
                                        uint8_t out[BSYNC_MATCH_CONFIG_SECRET_BYTES]);
/* The config text as replays record it: the text with every secret's digits zeroed (the same text
 * without secrets). Same length as bsync_match_config_text. */
BSYNC_API const char* bsync_match_config_replay_text(const bsync_match_config* cfg, size_t* len);

/* The token of a player slot: NUL-terminated, *len (may be NULL) = its byte count (1..32). */
BSYNC_API const char* bsync_match_config_token(const bsync_match_config* cfg, uint32_t slot, size_t* len);
BSYNC_API const char* bsync_match_config_param_name(const bsync_match_config* cfg, uint32_t i);
BSYNC_API const char* bsync_match_config_trigger_name(const bsync_match_config* cfg, uint32_t j);
BSYNC_API const char* bsync_match_config_trigger_switch(const bsync_match_config* cfg, uint32_t j); /* the switch node name */
BSYNC_API const char* bsync_match_config_character_name(const bsync_match_config* cfg, uint32_t c);
/* The player slot whose inputs drive character c, BSYNC_MATCH_NPC for an NPC (UINT32_MAX out of range). */
BSYNC_API uint32_t bsync_match_config_character_slot(const bsync_match_config* cfg, uint32_t c);
BSYNC_API uint32_t bsync_match_config_input_delay(const bsync_match_config* cfg);
BSYNC_API uint32_t bsync_match_config_checksum_interval(const bsync_match_config* cfg);
BSYNC_API bsync_match_policy bsync_match_config_desync_policy(const bsync_match_config* cfg); /* NULL: REPORT */
/* The resolved replay path ("" when none). */
BSYNC_API const char* bsync_match_config_replay_path(const bsync_match_config* cfg);
BSYNC_API uint32_t bsync_match_config_duration_ticks(const bsync_match_config* cfg);
BSYNC_API bsync_match_timeouts bsync_match_config_timeouts(const bsync_match_config* cfg); /* NULL: all 0 */
BSYNC_API uint32_t bsync_match_config_payload_max(const bsync_match_config* cfg);
BSYNC_API uint32_t bsync_match_config_tick_rate(const bsync_match_config* cfg); /* the graphs' common tick rate */
/* The loaded graph config of character c (shared by the characters naming the same file). */
BSYNC_API const bsync_graph_config* bsync_match_config_character_graph(const bsync_match_config* cfg, uint32_t c);
/* The index (into the graph files below) of character c's graph file (UINT32_MAX out of range). */
BSYNC_API uint32_t bsync_match_config_character_graph_file(const bsync_match_config* cfg, uint32_t c);
/* Distinct graph files, in order of first use by the characters. */
BSYNC_API uint32_t bsync_match_config_graph_file_count(const bsync_match_config* cfg);
BSYNC_API const char* bsync_match_config_graph_file_path(const bsync_match_config* cfg, uint32_t i);    /* resolved */
BSYNC_API const char* bsync_match_config_graph_file_written(const bsync_match_config* cfg, uint32_t i); /* as written */
BSYNC_API uint64_t bsync_match_config_graph_file_hash(const bsync_match_config* cfg, uint32_t i);       /* bsync_graph_hash */
BSYNC_API const bsync_graph_config* bsync_match_config_graph_file_config(const bsync_match_config* cfg, uint32_t i);
/* The config text exactly as read (NUL-terminated; *len may be NULL), its path (or `name`) and the base
 * directory relative paths were resolved against, ending in '/' ("" for the current directory). */
BSYNC_API const char* bsync_match_config_text(const bsync_match_config* cfg, size_t* len);
BSYNC_API const char* bsync_match_config_path(const bsync_match_config* cfg);
BSYNC_API const char* bsync_match_config_base_dir(const bsync_match_config* cfg);
/* One line per note (each ending in "\n"; "" when none; cut beyond 8 KiB): unmapped input parameters
 * and triggers. */
BSYNC_API const char* bsync_match_config_notes(const bsync_match_config* cfg);

/* One entry per (graph file, motion) that has a bound clip: graph files in the order above, motions in
 * the tree's motion order. names[k] = "GRAPHFILE:MOTION" (GRAPHFILE the path AS WRITTEN in the match
 * config, so it does not depend on where the config lies; owned by cfg), hashes[k] =
 * bsync_checksum_clip of the bound clip. The first min(cap, total) entries are written (names or hashes
 * may be NULL when cap is 0); returns the total count (0 for NULL cfg). */
BSYNC_API uint32_t bsync_match_config_asset_hashes(const bsync_match_config* cfg, const char** names, uint64_t* hashes,
                                         uint32_t cap);

/* The replay header of this match (io/replay.h) as the server, `replay record` and the client library
 * write it: format version, build_version (copied, truncated to 256 bytes), match id and hash, tick
 * rate, counts, input delay, checksum interval, start_tick, every bound clip's hash (the first 256),
 * the config's path and text (config_text points into cfg: keep cfg alive while the header is used). */
BSYNC_API void bsync_match_config_replay_header(const bsync_match_config* cfg, const char* build_version, uint32_t start_tick,
                                      bsync_replay_header* out);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_MATCH_CONFIG_H */
