/* blendsync/match.h — the deterministic simulation of one match: every character's graph instance,
 * driven per tick by one frame of player inputs (or by a seeded script for non-player characters),
 * with match-level checksums and snapshots. Server, client library and replay verification all run
 * exactly this, so they agree bit for bit.
 *
 * Index
 *   bsync_match_input / _frame        one player's input for a tick; all players' inputs for a tick
 *   bsync_match_character_desc        a character: its graph, its driver (slot or NPC seed), input maps
 *   bsync_match_desc                  players, the input layout, the characters
 *   bsync_match_hash                  identity of a desc (sent in HELLO; stored in replays)
 *   bsync_match_memory_size / _init   the match in caller memory (8-byte aligned)
 *   bsync_match_tick                  advance every character exactly one tick
 *   bsync_match_checksums             root and per-character blend-state / pose checksums
 *   bsync_match_snapshot_size / _size_max / _save / _load
 *   bsync_match_random_input          the seeded joystick script (NPCs and bots use the same one)
 *
 * Input layout: every player slot sends the same layout: param_count fix16 targets and trigger_count
 * u8 trigger values per tick. Character c maps input parameter i to its graph parameter
 * param_map[i] (BSYNC_MATCH_UNMAPPED: ignored by this character) and input trigger j to switch
 * trigger_map[j] (UNMAPPED: ignored): a trigger value v > 0 plays child v - 1 of that switch with
 * trigger_fade_ticks[j] ticks of fade, carry_time trigger_carry[j] and inertialize
 * trigger_inertialize[j] (bsync_switch_trigger; both 0 unless set); v = 0 does nothing; a value whose
 * child is out of range for the switch is ignored (it cannot fail the tick). Several triggers may map
 * to one switch (e.g. the same switch with different fades); their triggers are applied in input order.
 *
 * One tick (bsync_match_tick), characters in index order: the character's driver input is the frame's
 * record of its slot (a player character) or the next record of its script (an NPC: 
 * bsync_match_random_input on its own generator state). Its graph targets start from the previous
 * tick's targets (at init: every parameter's tree default); mapped input parameters overwrite theirs;
 * then bsync_instance_tick_ex with the mapped triggers in input order. So an unmapped graph
 * parameter keeps its default forever, and an input value reaches exactly one parameter per map entry.
 *
 * Seeded script (bsync_match_random_input): splitmix64 on a u64 state. The record is held for a random
 * number of ticks in [hold_min, hold_max] (desc fields): when hold_left is 0, first the hold is drawn,
 * hold_min + (r mod (hold_max - hold_min + 1)), then each input parameter i in order
 * becomes param_min[i] + (r mod (param_max[i] - param_min[i] + 1)) in raw fix16 steps (r the next
 * splitmix64 output), then each trigger j with script_states[j] = n > 0 becomes r mod (n + 1) (0: no
 * trigger; v: play child v - 1; held like the parameters — repeats of the state already fading in are
 * ignored by the switch), triggers with n = 0 stay 0 and draw nothing. The generator state (u64 state, u32 ticks left in the current
 * hold, the current record) is part of the match state: snapshots hold it, the checksum covers it.
 *
 * Checksums (XXH64, checksum.h):
 *   character blend = bsync_instance_state_checksum of its instance (that already covers the tick);
 *   character pose  = bsync_instance_pose_checksum (computed only on request: pose work);
 *   root blend = seed BSYNC_CHECKSUM_SEED_MATCH; u64 tick; u32 character count; per character u64
 *                blend; u32 NPC count; per NPC u64 generator state, u32 hold left, then its record's
 *                param_count fx and trigger_count u32;
 *   root pose  = seed BSYNC_CHECKSUM_SEED_MATCH_POSE; u64 tick; u32 character count; per character u64
 *                pose (0 for a character whose graph has no skeleton).
 * Hash (bsync_match_hash): seed BSYNC_CHECKSUM_SEED_MATCH_DESC; u32 1 (format); u32 player_count,
 * u32 param_count, u32 trigger_count; per input parameter fx min, fx max; u32 hold_min, u32 hold_max;
 * then only if some script_states[j] != 0: u32 2 and the trigger_count u8 script_states;
 * u32 character_count; per character: u64 bsync_graph_hash, u32 slot, u64 npc_seed, the param_count
 * u32 param_map entries, per trigger u32 map and u32 fade; then only if some character's
 * trigger_carry[j] or trigger_inertialize[j] (j < trigger_count) is not 0: u32 3 and, per character,
 * per trigger u32 carry and u32 inertialize. (So a desc without them hashes as before they existed.)
 *
 * Snapshot bytes (little-endian): u32 magic "BSMS" (0x534D5342), u32 version 1, u64 match hash,
 * u32 total length, u32 character count, u64 tick; per NPC (characters in order): u64 state, u32 hold
 * left, param_count fx and trigger_count u8 of its record; per character: u32 length n, then n bytes of
 * bsync_instance_save; u64 XXH64 (seed 0) of every byte before it. An instance blob's length depends
 * on its state (a switch that inertializes adds a block: instance.h), so a match snapshot's size does
 * too: bsync_match_snapshot_size is what save writes in the current state, bsync_match_snapshot_size_max
 * the most it can ever write for this match (a buffer of that size always suffices: rings and
 * preallocated buffers use it, and keep the length save reports). Load checks everything before it
 * writes anything (BSYNC_BAD_BLOB; a different match hash: BSYNC_MISMATCH): lengths (each blob between
 * its graph's bsync_instance_snapshot_size and _size_max, the blobs filling the snapshot), the XXH64, hold
 * left <= hold_max, record values != 0x80000000, trigger bytes <= script_states, every
 * instance blob's tick = the match tick, and every instance blob by loading it into a scratch instance
 * (part of memory_size); the match is untouched on failure.
 *
 * Two input parameters mapped to one graph parameter: the later one (in input order) wins.
 *
 * Errors: BSYNC_INVALID_ARGUMENT for NULL arguments, a desc that breaks a rule (counts over the
 * limits, a slot >= player_count, a map entry out of range, param_min > param_max, param_min =
 * INT32_MIN (libfixmath's overflow marker), hold_min 0 or > hold_max, hold_max > 1000000, a fade over
 * BSYNC_SWITCH_MAX_FADE_TICKS, a trigger_carry or trigger_inertialize other than 0 or 1, a MAPPED
 * trigger with inertialize 1 and fade 0 or on a graph without a skeleton (joint count 0), graphs of different tick rates, a NULL graph), or a frame whose
 * player_count differs. The match is plain data: a memcpy of memory_size bytes is a working copy.
 * BSYNC_BUFFER_TOO_SMALL for short memory or buffers.
 *
 * Does not: allocate (the match lives in caller memory), keep globals, use floating point.
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
    uint32_t player_count; /* must equal the desc's */
    bsync_match_input players[BSYNC_MATCH_MAX_PLAYERS];
} bsync_match_frame;

typedef struct bsync_match_character_desc {
    const bsync_graph* graph;
    uint32_t slot;     /* < player_count, or BSYNC_MATCH_NPC */
    uint64_t npc_seed; /* NPCs: the script's seed (ignored for player characters, and hashed as given) */
    uint32_t param_map[BSYNC_MATCH_MAX_PARAMS];          /* graph parameter index or UNMAPPED */
    uint32_t trigger_map[BSYNC_MATCH_MAX_TRIGGERS];      /* switch index or UNMAPPED */
    uint32_t trigger_fade_ticks[BSYNC_MATCH_MAX_TRIGGERS]; /* <= BSYNC_SWITCH_MAX_FADE_TICKS */
    uint32_t trigger_carry[BSYNC_MATCH_MAX_TRIGGERS];       /* 0 or 1: bsync_switch_trigger.carry_time */
    uint32_t trigger_inertialize[BSYNC_MATCH_MAX_TRIGGERS]; /* 0 or 1: bsync_switch_trigger.inertialize */
} bsync_match_character_desc;

typedef struct bsync_match_desc {
    uint32_t player_count;  /* 1..16 */
    uint32_t param_count;   /* 0..64 */
    uint32_t trigger_count; /* 0..16 */
    fix16_t param_min[BSYNC_MATCH_MAX_PARAMS]; /* the seeded script's range per input parameter */
    fix16_t param_max[BSYNC_MATCH_MAX_PARAMS];
    uint32_t hold_min, hold_max; /* ticks a scripted record is held (1 <= min <= max <= 1000000) */
    uint8_t script_states[BSYNC_MATCH_MAX_TRIGGERS]; /* the seeded script's trigger values: 0..n (0: never) */
    uint32_t character_count;    /* 1..64 */
    const bsync_match_character_desc* characters;
} bsync_match_desc;

typedef struct bsync_match bsync_match; /* opaque, caller memory */

/* The seeded script's generator (plain data: copy it freely). */
typedef struct bsync_match_script {
    uint64_t state;
    uint32_t hold_left; /* ticks the current record is still held (0: draw a new one next) */
    bsync_match_input record;
} bsync_match_script;

typedef struct bsync_match_checksums {
    uint64_t tick;       /* ticks simulated */
    uint64_t blend;      /* root blend-state checksum */
    uint64_t pose;       /* root pose checksum (0 unless asked) */
    uint32_t character_count;
    uint64_t character_blend[BSYNC_MATCH_MAX_CHARACTERS];
    uint64_t character_pose[BSYNC_MATCH_MAX_CHARACTERS]; /* 0 unless asked */
} bsync_match_checksums;

/* 0 for a desc that breaks a rule (or NULL). */
BSYNC_API uint64_t bsync_match_hash(const bsync_match_desc* desc);
/* The rules alone (see Errors above). */
BSYNC_API bsync_result bsync_match_desc_validate(const bsync_match_desc* desc);

BSYNC_API size_t bsync_match_memory_size(const bsync_match_desc* desc); /* 0 for an invalid desc */
/* The desc is copied (characters included); the graphs must outlive the match. */
BSYNC_API bsync_result bsync_match_init(void* mem, size_t size, const bsync_match_desc* desc, bsync_match** out);

BSYNC_API bsync_result bsync_match_tick(bsync_match* match, const bsync_match_frame* frame);
BSYNC_API uint64_t bsync_match_tick_count(const bsync_match* match);
BSYNC_API const bsync_match_desc* bsync_match_get_desc(const bsync_match* match); /* the match's own copy */
BSYNC_API uint32_t bsync_match_character_count(const bsync_match* match);
BSYNC_API bsync_instance* bsync_match_instance(bsync_match* match, uint32_t character); /* NULL out of range */
BSYNC_API const bsync_instance* bsync_match_instance_const(const bsync_match* match, uint32_t character);
/* The generator of an NPC character (NULL for a player character or out of range). */
BSYNC_API const bsync_match_script* bsync_match_npc_script(const bsync_match* match, uint32_t character);

/* with_poses 0: blend checksums only (no pose work); 1: poses too (computes every character's pose). */
BSYNC_API bsync_result bsync_match_checksums_get(bsync_match* match, int with_poses, bsync_match_checksums* out);
/* ---- One match over a job system's threads (issue 17: a batch API).
 * A tick is a range step per character and a finish:
 *     bsync_match_tick(m, f)  ==  bsync_match_tick_range(m, f, 0, n); bsync_match_tick_finish(m)
 * and the checksums likewise:
 *     bsync_match_checksums_get(m, p, out)
 *         ==  bsync_match_checksums_range(m, p, out, 0, n); bsync_match_checksums_finish(m, p, out)
 * (n = bsync_match_character_count). Any split of [0, n) into ranges gives the same bits. Range calls
 * on disjoint character ranges read the match and write only their own characters (each character's
 * instance, targets and NPC script; for checksums, their entries of out->character_blend and
 * character_pose), so they may run on different threads at the same time with no lock and no
 * allocation; finish runs once, after every range of that step has returned. A range is
 * [first, first + count) inside [0, n) (else BSYNC_INVALID_ARGUMENT, nothing done). */
BSYNC_API bsync_result bsync_match_tick_range(bsync_match* match, const bsync_match_frame* frame, uint32_t first,
                                              uint32_t count);
BSYNC_API bsync_result bsync_match_tick_finish(bsync_match* match);
BSYNC_API bsync_result bsync_match_checksums_range(bsync_match* match, int with_poses, bsync_match_checksums* out,
                                                   uint32_t first, uint32_t count);
BSYNC_API bsync_result bsync_match_checksums_finish(const bsync_match* match, int with_poses, bsync_match_checksums* out);

/* The per-joint pose checksums of one character (joint_count entries; BSYNC_MISMATCH without a
 * skeleton). */
BSYNC_API bsync_result bsync_match_joint_checksums(bsync_match* match, uint32_t character, uint64_t* out, uint32_t cap,
                                         uint32_t* count);

/* The bytes bsync_match_save writes in the match's current state (0 for an invalid match). */
BSYNC_API size_t bsync_match_snapshot_size(const bsync_match* match);
/* The most bytes bsync_match_save can write for this match in any state (>= bsync_match_snapshot_size;
 * equal for a match whose triggers never inertialize). */
BSYNC_API size_t bsync_match_snapshot_size_max(const bsync_match* match);
/* *written (may be NULL) = the bytes written (bsync_match_snapshot_size); BSYNC_BUFFER_TOO_SMALL
 * (nothing meaningful written) when cap is less than that. */
BSYNC_API bsync_result bsync_match_save(const bsync_match* match, void* buf, size_t cap, size_t* written);
BSYNC_API bsync_result bsync_match_load(bsync_match* match, const void* buf, size_t len);

/* The seeded script: start (record all zero, hold_left 0) and one tick's record. */
BSYNC_API void bsync_match_script_init(bsync_match_script* script, uint64_t seed);
BSYNC_API void bsync_match_random_input(bsync_match_script* script, const bsync_match_desc* desc, bsync_match_input* out);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_MATCH_H */
