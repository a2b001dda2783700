/* match_state.c — the rollback state of a match (see blendsync/match.h, docs/match.md "Rollback
 * state"): the bytes that change from tick to tick, copied without the caches (sample cursors, scratch
 * poses, layer and inertialization scratch: internal/instance_state.h) and without what is constant
 * after init (the desc, the graphs, the layout). Native memory of this process, not a file format:
 * portable, checked bytes are bsync_match_save. No allocation, no floats. */
#include <string.h>

#include "blendsync/match.h"

#include "internal/block.h"
#include "internal/instance_state.h"
#include "internal/match_impl.h"

#define STATE_HEAD 24u /* u64 match hash, u64 state size, u64 tick (native byte order) */
#define INST_HEAD 40u  /* u64 tick, vec3 rm_t, quat rm_r, 4 bytes 0 */

static bsync_instance* inst_of(bsync_match* m, uint32_t c) {
    return (bsync_instance*)(void*)((unsigned char*)m + m->characters[c].instance_offset);
}
static const bsync_instance* cinst_of(const bsync_match* m, uint32_t c) {
    return (const bsync_instance*)(const void*)((const unsigned char*)m + m->characters[c].instance_offset);
}

/* One character's bytes: targets, the NPC script, the instance's header fields and state spans. */
static size_t character_bytes(const bsync_match* m, uint32_t c) {
    const match_character* ch = &m->characters[c];
    size_t n = bsync_align_up((size_t)ch->target_count * sizeof(fix16_t), 8);
    if (ch->desc.slot == BSYNC_MATCH_NPC) n += bsync_align_up(sizeof(bsync_match_script), 8);
    instance_state_span s[INSTANCE_STATE_MAX_SPANS];
    const uint32_t k = instance_state_spans(cinst_of(m, c), s);
    n += INST_HEAD;
    for (uint32_t i = 0; i < k; i++) n += s[i].len; /* every span is a multiple of 8 */
    return n;
}

size_t bsync_match_state_size(const bsync_match* m) {
    if (!match_ok(m)) return 0;
    size_t n = STATE_HEAD;
    for (uint32_t c = 0; c < m->desc.character_count; c++) n += character_bytes(m, c);
    return n;
}

/* dst's state = src's (same desc: same layout). `p` walks the buffer in one of the two directions:
 * save (to_buf) writes match -> buffer, restore reads it back. */
static unsigned char* character_copy(bsync_match* m, uint32_t c, unsigned char* p, int to_buf) {
    match_character* ch = &m->characters[c];
    const size_t tb = (size_t)ch->target_count * sizeof(fix16_t);
    if (to_buf) memcpy(p, ch->targets, tb);
    else memcpy(ch->targets, p, tb);
    p += bsync_align_up(tb, 8);
    if (ch->desc.slot == BSYNC_MATCH_NPC) {
        if (to_buf) memcpy(p, &ch->script, sizeof ch->script);
        else memcpy(&ch->script, p, sizeof ch->script);
        p += bsync_align_up(sizeof(bsync_match_script), 8);
    }
    bsync_instance* inst = inst_of(m, c);
    if (to_buf) {
        memcpy(p, &inst->tick, 8);
        memcpy(p + 8, &inst->rm_t, sizeof inst->rm_t);
        memcpy(p + 20, &inst->rm_r, sizeof inst->rm_r);
        memset(p + 36, 0, 4);
    } else {
        memcpy(&inst->tick, p, 8);
        memcpy(&inst->rm_t, p + 8, sizeof inst->rm_t);
        memcpy(&inst->rm_r, p + 20, sizeof inst->rm_r);
    }
    p += INST_HEAD;
    instance_state_span s[INSTANCE_STATE_MAX_SPANS];
    const uint32_t k = instance_state_spans(inst, s);
    unsigned char* base = (unsigned char*)inst;
    for (uint32_t i = 0; i < k; i++) {
        if (to_buf) memcpy(p, base + s[i].off, s[i].len);
        else memcpy(base + s[i].off, p, s[i].len);
        p += s[i].len;
    }
    return p;
}

bsync_result bsync_match_state_save(const bsync_match* m, void* buf, size_t cap, size_t* written) {
    if (!match_ok(m) || !buf) return BSYNC_INVALID_ARGUMENT;
    const size_t total = bsync_match_state_size(m);
    if (cap < total) return BSYNC_BUFFER_TOO_SMALL;
    unsigned char* p = (unsigned char*)buf;
    const uint64_t size64 = (uint64_t)total;
    memcpy(p, &m->hash, 8);
    memcpy(p + 8, &size64, 8);
    memcpy(p + 16, &m->tick, 8);
    p += STATE_HEAD;
    /* save never writes the match: the walk shares restore's code through a cast (the match lives in
     * caller memory, never in const storage) */
    bsync_match* mm = (bsync_match*)(uintptr_t)m;
    for (uint32_t c = 0; c < m->desc.character_count; c++) p = character_copy(mm, c, p, 1);
    if (written) *written = total;
    return BSYNC_OK;
}

bsync_result bsync_match_state_restore(bsync_match* m, const void* buf, size_t len) {
    if (!match_ok(m) || !buf) return BSYNC_INVALID_ARGUMENT;
    const size_t total = bsync_match_state_size(m);
    const unsigned char* q = (const unsigned char*)buf;
    uint64_t hash = 0, size64 = 0, tick = 0;
    if (len < STATE_HEAD) return BSYNC_BAD_BLOB;
    memcpy(&hash, q, 8);
    memcpy(&size64, q + 8, 8);
    memcpy(&tick, q + 16, 8);
    if (hash != m->hash) return BSYNC_MISMATCH;
    if (len != total || size64 != (uint64_t)total) return BSYNC_BAD_BLOB;
    /* restore reads the buffer only: character_copy's pointer walks it without writing */
    unsigned char* p = (unsigned char*)(uintptr_t)(q + STATE_HEAD);
    for (uint32_t c = 0; c < m->desc.character_count; c++) p = character_copy(m, c, p, 0);
    m->tick = tick;
    m->desc.characters = m->character_descs; /* after a memcpy of the match */
    return BSYNC_OK;
}

bsync_result bsync_match_state_copy(bsync_match* dst, const bsync_match* src) {
    if (!match_ok(dst) || !match_ok(src)) return BSYNC_INVALID_ARGUMENT;
    if (dst == src) return BSYNC_OK;
    if (dst->hash != src->hash || dst->size != src->size || dst->desc.character_count != src->desc.character_count)
        return BSYNC_MISMATCH;
    for (uint32_t c = 0; c < src->desc.character_count; c++) {
        const match_character* sc = &src->characters[c];
        match_character* dc = &dst->characters[c];
        const bsync_instance* si = cinst_of(src, c);
        bsync_instance* di = inst_of(dst, c);
        if (sc->instance_offset != dc->instance_offset || si->size != di->size || si->graph != di->graph)
            return BSYNC_MISMATCH;
    }
    for (uint32_t c = 0; c < src->desc.character_count; c++) {
        const match_character* sc = &src->characters[c];
        match_character* dc = &dst->characters[c];
        memcpy(dc->targets, sc->targets, (size_t)sc->target_count * sizeof(fix16_t));
        if (sc->desc.slot == BSYNC_MATCH_NPC) dc->script = sc->script;
        const bsync_instance* si = cinst_of(src, c);
        bsync_instance* di = inst_of(dst, c);
        di->tick = si->tick;
        di->rm_t = si->rm_t;
        di->rm_r = si->rm_r;
        instance_state_span s[INSTANCE_STATE_MAX_SPANS];
        const uint32_t k = instance_state_spans(si, s);
        for (uint32_t i = 0; i < k; i++)
            memcpy((unsigned char*)di + s[i].off, (const unsigned char*)si + s[i].off, s[i].len);
    }
    dst->tick = src->tick;
    dst->desc.characters = dst->character_descs;
    return BSYNC_OK;
}
