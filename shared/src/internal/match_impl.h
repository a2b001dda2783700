/* internal/match_impl.h — the match's header struct as match.c lays it out, for the files that read
 * it directly (match*.c). Not public. The instances follow the struct in the same memory
 * (instance_offset from the match's start), then one scratch instance of the largest size. */
#ifndef BLENDSYNC_INTERNAL_MATCH_IMPL_H
#define BLENDSYNC_INTERNAL_MATCH_IMPL_H

#include "blendsync/match.h"

#define MATCH_MAGIC 0x48544D42u /* "BMTH" */
#define MATCH_VERSION 1u

typedef struct match_character {
    bsync_match_character_desc desc;
    size_t instance_offset; /* from the match's start */
    fix16_t targets[BSYNC_MAX_PARAMETERS];
    uint32_t target_count;
    bsync_match_script script; /* NPCs only */
} match_character;

struct bsync_match {
    uint32_t magic;
    uint32_t version;
    uint64_t hash;
    bsync_match_desc desc; /* desc.characters points at the copies below */
    bsync_match_character_desc character_descs[BSYNC_MATCH_MAX_CHARACTERS];
    match_character characters[BSYNC_MATCH_MAX_CHARACTERS];
    uint64_t tick;
    size_t size;
    size_t scratch_offset; /* one instance of the largest size: unused since loads check in place; kept so
                           * bsync_match_memory_size stays what it was */
    size_t scratch_size;
};

static inline int match_ok(const bsync_match* m) { return m && m->magic == MATCH_MAGIC && m->version == MATCH_VERSION; }

#endif /* BLENDSYNC_INTERNAL_MATCH_IMPL_H */
