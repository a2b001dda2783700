/* blendsync/match.h — the deterministic simulation of one match: every character's instance, driven
 * per tick by one frame of player inputs (or a seeded script for NPCs), with match checksums and
 * snapshots. Caller memory (a memcpy is a copy); no allocation, no floats.
 *
 * Index
 *   bsync_match_input / _frame        one player's input for a tick; all players' inputs for a tick
 *   bsync_match_character_desc        a character: its graph, its driver (slot or NPC seed), input maps
 *   bsync_match_desc                  players, the input layout, the characters
 *   bsync_match_hash                  identity of a desc (sent in HELLO; stored in replays)
 *   bsync_match_memory_size / _init   the match in caller memory (8-byte aligned)
 *   bsync_match_tick                  advance every character exactly one tick
 *   bsync_match_checksums             root and per-character blend-state / pose checksums
 *   bsync_match_tick_range / _tick_finish, bsync_match_checksums_range / _checksums_finish   threads
 *   bsync_match_snapshot_size / _size_max / _save / _load
 *   bsync_match_state_size / _save / _restore / _copy   rollback state: native bytes, no caches
 *   bsync_match_random_input          the seeded joystick script (NPCs and bots use the same one)
 *
 * design: docs/match.md (maps, one tick, the script, checksums, hash, snapshot bytes, errors)
 */
#ifndef BLENDSYNC_MATCH_H
#define BLENDSYNC_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "blendsync/base.h"
#include "blendsync/fixed.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_MATCH_MAX_PLAYERS 16u    /* = BSYNC_PROTO_MAX_PLAYERS */
#define BSYNC_MATCH_MAX_PARAMS 64u     /* = BSYNC_PROTO_MAX_PARAMS */
#define BSYNC_MATCH_MAX_TRIGGERS 16u   /* = BSYNC_PROTO_MAX_TRIGGERS */
#define BSYNC_MATCH_MAX_CHARACTERS 64u /* = BSYNC_PROTO_MAX_CHARACTERS */
#define BSYNC_MATCH_UNMAPPED 0xFFFFFFFFu
#define BSYNC_MATCH_NPC 0xFFFFFFFFu    /* character slot of a non-player character */
#define BSYNC_MATCH_SNAPSHOT_MAGIC 0x534D5342u /* "BSMS" */
#define BSYNC_MATCH_SNAPSHOT_VERSION 1u
#define BSYNC_CHECKSUM_SEED_MATCH ((uint64_t)0x626c656e646d7463ull)      /* "blendmtc" */
#define BSYNC_CHECKSUM_SEED_MATCH_POSE ((uint64_t)0x626c656e646d7073ull) /* "blendmps" */
#define BSYNC_CHECKSUM_SEED_MATCH_DESC ((uint64_t)0x626c656e646d6473ull) /* "blendmds" */

typedef struct bsync_match_input {
    fix16_t params[BSYNC_MATCH_MAX_PARAMS];     /* first param_count used */
    uint8_t triggers[BSYNC_MATCH_MAX_TRIGGERS]; /* first trigger_count used */
} bsync_match_input;

typedef struct bsync_match_frame {
    uint32_t player_count; /* the desc's */
    bsync_match_input players[BSYNC_MATCH_MAX_PLAYERS];
} bsync_match_frame;

typedef struct bsync_match_character_desc {
    const bsync_graph* graph;
    uint32_t slot;     /* < player_count, or BSYNC_MATCH_NPC */
    uint64_t npc_seed; /* NPCs */
    uint32_t param_map[BSYNC_MATCH_MAX_PARAMS];          /* or UNMAPPED */
    uint32_t trigger_map[BSYNC_MATCH_MAX_TRIGGERS];      /* switch index or UNMAPPED */
    uint32_t trigger_fade_ticks[BSYNC_MATCH_MAX_TRIGGERS];
    uint32_t trigger_carry[BSYNC_MATCH_MAX_TRIGGERS];       /* 0 or 1 */
    uint32_t trigger_inertialize[BSYNC_MATCH_MAX_TRIGGERS]; /* 0 or 1 */
} bsync_match_character_desc;

typedef struct bsync_match_desc {
    uint32_t player_count;  /* 1..16 */
    uint32_t param_count;   /* 0..64 */
    uint32_t trigger_count; /* 0..16 */
    fix16_t param_min[BSYNC_MATCH_MAX_PARAMS]; /* the seeded script's range */
    fix16_t param_max[BSYNC_MATCH_MAX_PARAMS];
    uint32_t hold_min, hold_max; /* ticks a scripted record is held */
    uint8_t script_states[BSYNC_MATCH_MAX_TRIGGERS];
    uint32_t character_count;    /* 1..64 */
    const bsync_match_character_desc* characters;
} bsync_match_desc;

typedef struct bsync_match bsync_match;

/* The seeded script's generator (plain data). */
typedef struct bsync_match_script {
    uint64_t state;
    uint32_t hold_left;
    bsync_match_input record;
} bsync_match_script;

typedef struct bsync_match_checksums {
    uint64_t tick;
    uint64_t blend;
    uint64_t pose;       /* 0 unless asked */
    uint32_t character_count;
    uint64_t character_blend[BSYNC_MATCH_MAX_CHARACTERS];
    uint64_t character_pose[BSYNC_MATCH_MAX_CHARACTERS]; /* 0 unless asked */
} bsync_match_checksums;

/* 0 for an invalid desc. */
BSYNC_API uint64_t bsync_match_hash(const bsync_match_desc* desc);
/* BSYNC_INVALID_ARGUMENT for a desc that breaks a rule. */
BSYNC_API bsync_result bsync_match_desc_validate(const bsync_match_desc* desc);

BSYNC_API size_t bsync_match_memory_size(const bsync_match_desc* desc);
/* The desc is copied (characters included); the graphs must outlive the match. */
BSYNC_API bsync_result bsync_match_init(void* mem, size_t size, const bsync_match_desc* desc, bsync_match** out);

BSYNC_API bsync_result bsync_match_tick(bsync_match* match, const bsync_match_frame* frame);
BSYNC_API uint64_t bsync_match_tick_count(const bsync_match* match);
BSYNC_API const bsync_match_desc* bsync_match_get_desc(const bsync_match* match);
BSYNC_API uint32_t bsync_match_character_count(const bsync_match* match);
BSYNC_API bsync_instance* bsync_match_instance(bsync_match* match, uint32_t character); /* NULL out of range */
BSYNC_API const bsync_instance* bsync_match_instance_const(const bsync_match* match, uint32_t character);
/* NULL for a player character. */
BSYNC_API const bsync_match_script* bsync_match_npc_script(const bsync_match* match, uint32_t character);

/* with_poses 1 computes every character's pose. */
BSYNC_API bsync_result bsync_match_get_checksums(bsync_match* match, int with_poses, bsync_match_checksums* out);
/* ---- over threads: disjoint ranges in parallel, then finish once; the same bits as the whole call. */
BSYNC_API bsync_result bsync_match_tick_range(bsync_match* match, const bsync_match_frame* frame, uint32_t first,
                                              uint32_t count);
BSYNC_API bsync_result bsync_match_tick_finish(bsync_match* match);
BSYNC_API bsync_result bsync_match_checksums_range(bsync_match* match, int with_poses, bsync_match_checksums* out,
                                                   uint32_t first, uint32_t count);
BSYNC_API bsync_result bsync_match_checksums_finish(const bsync_match* match, int with_poses, bsync_match_checksums* out);

/* BSYNC_MISMATCH without a skeleton. */
BSYNC_API bsync_result bsync_match_joint_checksums(bsync_match* match, uint32_t character, uint64_t* out, uint32_t cap,
                                         uint32_t* count);

/* What save writes now. */
BSYNC_API size_t bsync_match_snapshot_size(const bsync_match* match);
/* A buffer of this size always fits. */
BSYNC_API size_t bsync_match_snapshot_size_max(const bsync_match* match);
/* BSYNC_BUFFER_TOO_SMALL. load: untouched on failure (BSYNC_BAD_BLOB, BSYNC_MISMATCH). */
BSYNC_API bsync_result bsync_match_save(const bsync_match* match, void* buf, size_t cap, size_t* written);
BSYNC_API bsync_result bsync_match_load(bsync_match* match, const void* buf, size_t len);

/* Rollback state: this process's bytes of a match of the same desc (not portable, not checked beyond
 * the match hash and the length; constant size per match). After restore or copy the match is the
 * saved one in every checksum, pose, event and next tick. restore: BSYNC_MISMATCH (another match
 * hash), BSYNC_BAD_BLOB (length); copy: BSYNC_MISMATCH unless both use the same graphs in the same layout. */
BSYNC_API size_t bsync_match_state_size(const bsync_match* match);
BSYNC_API bsync_result bsync_match_state_save(const bsync_match* match, void* buf, size_t cap, size_t* written);
BSYNC_API bsync_result bsync_match_state_restore(bsync_match* match, const void* buf, size_t len);
BSYNC_API bsync_result bsync_match_state_copy(bsync_match* dst, const bsync_match* src);

/* The seeded script: start, and one tick's record. */
BSYNC_API void bsync_match_script_init(bsync_match_script* script, uint64_t seed);
BSYNC_API void bsync_match_random_input(bsync_match_script* script, const bsync_match_desc* desc, bsync_match_input* out);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_MATCH_H */
