/* match.c — one match's deterministic simulation (see blendsync/match.h). Caller memory, no
 * allocation, no globals, no floating point. */
#include "blendsync/match.h"

#include "blendsync/blend_tree.h"
#include "blendsync/checksum.h"
#include "internal/block.h"
#include "internal/instance_snapshot.h"
#include "internal/le.h"
#include "internal/match_impl.h"

#define HOLD_LIMIT 1000000u
#define SNAP_HEAD 32u /* magic, version, hash, length, count, tick */

/* ---------------------------------------------------------------- desc */

bsync_result bsync_match_desc_validate(const bsync_match_desc* d) {
    if (!d || !d->characters) return BSYNC_INVALID_ARGUMENT;
    if (d->player_count < 1 || d->player_count > BSYNC_MATCH_MAX_PLAYERS) return BSYNC_INVALID_ARGUMENT;
    if (d->param_count > BSYNC_MATCH_MAX_PARAMS || d->trigger_count > BSYNC_MATCH_MAX_TRIGGERS)
        return BSYNC_INVALID_ARGUMENT;
    if (d->character_count < 1 || d->character_count > BSYNC_MATCH_MAX_CHARACTERS) return BSYNC_INVALID_ARGUMENT;
    if (d->hold_min < 1 || d->hold_min > d->hold_max || d->hold_max > HOLD_LIMIT) return BSYNC_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < d->param_count; i++)
        if (d->param_min[i] > d->param_max[i] || d->param_min[i] == INT32_MIN) return BSYNC_INVALID_ARGUMENT;
    uint32_t rate = 0;
    for (uint32_t c = 0; c < d->character_count; c++) {
        const bsync_match_character_desc* ch = &d->characters[c];
        if (!ch->graph) return BSYNC_INVALID_ARGUMENT;
        uint32_t r = bsync_graph_tick_rate(ch->graph);
        if (c == 0) rate = r;
        else if (r != rate) return BSYNC_INVALID_ARGUMENT;
        if (ch->slot != BSYNC_MATCH_NPC && ch->slot >= d->player_count) return BSYNC_INVALID_ARGUMENT;
        uint32_t pc = bsync_graph_parameter_count(ch->graph);
        for (uint32_t i = 0; i < d->param_count; i++)
            if (ch->param_map[i] != BSYNC_MATCH_UNMAPPED && ch->param_map[i] >= pc) return BSYNC_INVALID_ARGUMENT;
        uint32_t sc = bsync_graph_switch_count(ch->graph);
        for (uint32_t j = 0; j < d->trigger_count; j++) {
            if (ch->trigger_map[j] != BSYNC_MATCH_UNMAPPED && ch->trigger_map[j] >= sc) return BSYNC_INVALID_ARGUMENT;
            if (ch->trigger_fade_ticks[j] > BSYNC_SWITCH_MAX_FADE_TICKS) return BSYNC_INVALID_ARGUMENT;
            if (ch->trigger_carry[j] > 1u || ch->trigger_inertialize[j] > 1u) return BSYNC_INVALID_ARGUMENT;
            if (ch->trigger_map[j] != BSYNC_MATCH_UNMAPPED && ch->trigger_inertialize[j] &&
                (ch->trigger_fade_ticks[j] == 0 || bsync_graph_joint_count(ch->graph) == 0))
                return BSYNC_INVALID_ARGUMENT; /* bsync_instance_tick_ex would refuse it */
        }
    }
    return BSYNC_OK;
}

uint64_t bsync_match_hash(const bsync_match_desc* d) {
    if (bsync_match_desc_validate(d) != BSYNC_OK) return 0;
    bsync_checksum_state s;
    bsync_checksum_init(&s, BSYNC_CHECKSUM_SEED_MATCH_DESC);
    bsync_checksum_u32(&s, 1u);
    bsync_checksum_u32(&s, d->player_count);
    bsync_checksum_u32(&s, d->param_count);
    bsync_checksum_u32(&s, d->trigger_count);
    for (uint32_t i = 0; i < d->param_count; i++) {
        bsync_checksum_fx(&s, d->param_min[i]);
        bsync_checksum_fx(&s, d->param_max[i]);
    }
    bsync_checksum_u32(&s, d->hold_min);
    bsync_checksum_u32(&s, d->hold_max);
    int any_states = 0;
    for (uint32_t j = 0; j < d->trigger_count; j++) any_states |= d->script_states[j] != 0;
    if (any_states) {
        bsync_checksum_u32(&s, 2u);
        for (uint32_t j = 0; j < d->trigger_count; j++) bsync_checksum_bytes(&s, &d->script_states[j], 1);
    }
    bsync_checksum_u32(&s, d->character_count);
    for (uint32_t c = 0; c < d->character_count; c++) {
        const bsync_match_character_desc* ch = &d->characters[c];
        bsync_checksum_u64(&s, bsync_graph_hash(ch->graph));
        bsync_checksum_u32(&s, ch->slot);
        bsync_checksum_u64(&s, ch->npc_seed);
        for (uint32_t i = 0; i < d->param_count; i++) bsync_checksum_u32(&s, ch->param_map[i]);
        for (uint32_t j = 0; j < d->trigger_count; j++) {
            bsync_checksum_u32(&s, ch->trigger_map[j]);
            bsync_checksum_u32(&s, ch->trigger_fade_ticks[j]);
        }
    }
    int any_options = 0;
    for (uint32_t c = 0; c < d->character_count; c++)
        for (uint32_t j = 0; j < d->trigger_count; j++)
            any_options |= d->characters[c].trigger_carry[j] != 0 || d->characters[c].trigger_inertialize[j] != 0;
    if (any_options) {
        bsync_checksum_u32(&s, 3u);
        for (uint32_t c = 0; c < d->character_count; c++)
            for (uint32_t j = 0; j < d->trigger_count; j++) {
                bsync_checksum_u32(&s, d->characters[c].trigger_carry[j]);
                bsync_checksum_u32(&s, d->characters[c].trigger_inertialize[j]);
            }
    }
    return bsync_checksum_final(&s);
}

/* ---------------------------------------------------------------- memory */

size_t bsync_match_memory_size(const bsync_match_desc* d) {
    if (bsync_match_desc_validate(d) != BSYNC_OK) return 0;
    size_t size = bsync_align_up(sizeof(bsync_match), 16);
    size_t largest = 0;
    for (uint32_t c = 0; c < d->character_count; c++) {
        size_t isz = bsync_instance_memory_size(d->characters[c].graph);
        if (isz > largest) largest = isz;
        size = bsync_align_up(size + isz, 16);
    }
    return bsync_align_up(size + largest, 16);
}

bsync_instance* bsync_match_instance(bsync_match* m, uint32_t c) {
    if (!match_ok(m) || c >= m->desc.character_count) return NULL;
    return (bsync_instance*)((unsigned char*)m + m->characters[c].instance_offset);
}

const bsync_instance* bsync_match_instance_const(const bsync_match* m, uint32_t c) {
    if (!match_ok(m) || c >= m->desc.character_count) return NULL;
    return (const bsync_instance*)((const unsigned char*)m + m->characters[c].instance_offset);
}

static void reset_character_state(bsync_match* m, uint32_t c) {
    match_character* ch = &m->characters[c];
    const bsync_blend_tree* tree = bsync_graph_tree(ch->desc.graph);
    ch->target_count = bsync_graph_parameter_count(ch->desc.graph);
    for (uint32_t i = 0; i < ch->target_count; i++) ch->targets[i] = bsync_blend_tree_parameter_default(tree, i);
    bsync_match_script_init(&ch->script, ch->desc.npc_seed);
}

bsync_result bsync_match_init(void* mem, size_t size, const bsync_match_desc* d, bsync_match** out) {
    if (!mem || !d || !out || ((uintptr_t)mem & 7u) != 0) return BSYNC_INVALID_ARGUMENT;
    size_t need = bsync_match_memory_size(d);
    if (need == 0) return BSYNC_INVALID_ARGUMENT;
    if (size < need) return BSYNC_BUFFER_TOO_SMALL;
    unsigned char* base = (unsigned char*)mem;
    for (size_t i = 0; i < need; i++) base[i] = 0;
    bsync_match* m = (bsync_match*)mem;
    m->magic = MATCH_MAGIC;
    m->version = MATCH_VERSION;
    m->desc = *d;
    for (uint32_t c = 0; c < d->character_count; c++) {
        m->character_descs[c] = d->characters[c];
        m->characters[c].desc = d->characters[c];
    }
    m->desc.characters = m->character_descs;
    m->hash = bsync_match_hash(d);
    m->size = need;
    size_t off = bsync_align_up(sizeof(bsync_match), 16);
    for (uint32_t c = 0; c < d->character_count; c++) {
        const bsync_graph* g = d->characters[c].graph;
        size_t isz = bsync_instance_memory_size(g);
        bsync_instance* inst = NULL;
        bsync_result r = bsync_instance_init(base + off, isz, g, &inst);
        if (r != BSYNC_OK) return r;
        m->characters[c].instance_offset = off;
        reset_character_state(m, c);
        off = bsync_align_up(off + isz, 16);
    }
    m->scratch_offset = off;
    m->scratch_size = need - off;
    *out = m;
    return BSYNC_OK;
}

uint64_t bsync_match_tick_count(const bsync_match* m) { return match_ok(m) ? m->tick : 0; }
/* The desc's characters pointer is absolute: re-pointed here so a memcpy'd match reports its own copy
 * (the match lives in caller memory, never in const storage, so the cast is well defined). */
const bsync_match_desc* bsync_match_get_desc(const bsync_match* m) {
    if (!match_ok(m)) return NULL;
    bsync_match* mm = (bsync_match*)(uintptr_t)m;
    mm->desc.characters = mm->character_descs;
    return &m->desc;
}
uint32_t bsync_match_character_count(const bsync_match* m) { return match_ok(m) ? m->desc.character_count : 0; }

const bsync_match_script* bsync_match_npc_script(const bsync_match* m, uint32_t c) {
    if (!match_ok(m) || c >= m->desc.character_count || m->characters[c].desc.slot != BSYNC_MATCH_NPC) return NULL;
    return &m->characters[c].script;
}

/* ---------------------------------------------------------------- the seeded script */

static uint64_t splitmix64(uint64_t* state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void bsync_match_script_init(bsync_match_script* s, uint64_t seed) {
    if (!s) return;
    unsigned char* p = (unsigned char*)s;
    for (size_t i = 0; i < sizeof *s; i++) p[i] = 0;
    s->state = seed;
}

void bsync_match_random_input(bsync_match_script* s, const bsync_match_desc* d, bsync_match_input* out) {
    if (!s || !d || !out) return;
    if (s->hold_left == 0) {
        uint32_t span = d->hold_max - d->hold_min + 1u;
        s->hold_left = d->hold_min + (uint32_t)(splitmix64(&s->state) % span);
        for (uint32_t i = 0; i < d->param_count && i < BSYNC_MATCH_MAX_PARAMS; i++) {
            /* span of raw steps as an unsigned 64-bit count: max - min + 1 <= 2^32 */
            uint64_t range = (uint64_t)((int64_t)d->param_max[i] - (int64_t)d->param_min[i]) + 1u;
            uint64_t r = splitmix64(&s->state) % range;
            s->record.params[i] = (fix16_t)((int64_t)d->param_min[i] + (int64_t)r);
        }
        for (uint32_t j = 0; j < BSYNC_MATCH_MAX_TRIGGERS; j++) {
            uint32_t n = j < d->trigger_count ? d->script_states[j] : 0u;
            s->record.triggers[j] = n ? (uint8_t)(splitmix64(&s->state) % (n + 1u)) : 0u;
        }
    }
    s->hold_left--;
    *out = s->record;
}

/* ---------------------------------------------------------------- tick */

/* One character's step of a tick: its input (the frame's player, or its NPC script's), then its instance. */
static bsync_result tick_character(bsync_match* m, uint32_t c, const bsync_match_frame* frame) {
    match_character* ch = &m->characters[c];
    bsync_match_input npc;
    const bsync_match_input* in;
    if (ch->desc.slot == BSYNC_MATCH_NPC) {
        bsync_match_random_input(&ch->script, &m->desc, &npc);
        in = &npc;
    } else {
        in = &frame->players[ch->desc.slot];
    }
    for (uint32_t i = 0; i < m->desc.param_count; i++) {
        uint32_t p = ch->desc.param_map[i];
        if (p != BSYNC_MATCH_UNMAPPED) ch->targets[p] = in->params[i];
    }
    bsync_switch_trigger triggers[BSYNC_MATCH_MAX_TRIGGERS];
    uint32_t n = 0;
    const bsync_graph* g = ch->desc.graph;
    for (uint32_t j = 0; j < m->desc.trigger_count; j++) {
        uint32_t sw = ch->desc.trigger_map[j];
        uint8_t v = in->triggers[j];
        if (sw == BSYNC_MATCH_UNMAPPED || v == 0) continue;
        uint32_t node = bsync_graph_switch_node(g, sw);
        uint32_t child = (uint32_t)v - 1u;
        if (child >= bsync_blend_tree_node_child_count(bsync_graph_tree(g), node)) continue;
        triggers[n].switch_index = sw;
        triggers[n].child = child;
        triggers[n].fade_ticks = ch->desc.trigger_fade_ticks[j];
        triggers[n].carry_time = ch->desc.trigger_carry[j];
        triggers[n].inertialize = ch->desc.trigger_inertialize[j];
        n++;
    }
    bsync_instance_input input = {ch->targets, ch->target_count};
    /* cannot fail for a validated desc: arguments checked by the callers */
    return bsync_instance_tick_ex(bsync_match_instance(m, c), &input, triggers, n);
}

static int range_ok(const bsync_match* m, uint32_t first, uint32_t count) {
    return first <= m->desc.character_count && count <= m->desc.character_count - first;
}

bsync_result bsync_match_tick_range(bsync_match* m, const bsync_match_frame* frame, uint32_t first, uint32_t count) {
    if (!match_ok(m) || !frame || !range_ok(m, first, count)) return BSYNC_INVALID_ARGUMENT;
    if (frame->player_count != m->desc.player_count) return BSYNC_INVALID_ARGUMENT;
    for (uint32_t c = first; c < first + count; c++) {
        bsync_result r = tick_character(m, c, frame);
        if (r != BSYNC_OK) return r;
    }
    return BSYNC_OK;
}

bsync_result bsync_match_tick_finish(bsync_match* m) {
    if (!match_ok(m)) return BSYNC_INVALID_ARGUMENT;
    m->desc.characters = m->character_descs; /* after a memcpy */
    m->tick++;
    return BSYNC_OK;
}

bsync_result bsync_match_tick(bsync_match* m, const bsync_match_frame* frame) {
    if (!match_ok(m) || !frame) return BSYNC_INVALID_ARGUMENT;
    bsync_result r = bsync_match_tick_range(m, frame, 0, m->desc.character_count);
    if (r != BSYNC_OK) return r;
    return bsync_match_tick_finish(m);
}

/* ---------------------------------------------------------------- checksums */

static void feed_script(bsync_checksum_state* s, const bsync_match* m, const bsync_match_script* sc) {
    bsync_checksum_u64(s, sc->state);
    bsync_checksum_u32(s, sc->hold_left);
    for (uint32_t i = 0; i < m->desc.param_count; i++) bsync_checksum_fx(s, sc->record.params[i]);
    for (uint32_t j = 0; j < m->desc.trigger_count; j++) bsync_checksum_u32(s, sc->record.triggers[j]);
}

bsync_result bsync_match_checksums_range(bsync_match* m, int with_poses, bsync_match_checksums* out, uint32_t first,
                                         uint32_t count) {
    if (!match_ok(m) || !out || !range_ok(m, first, count)) return BSYNC_INVALID_ARGUMENT;
    for (uint32_t c = first; c < first + count; c++) {
        bsync_instance* inst = bsync_match_instance(m, c);
        out->character_blend[c] = bsync_instance_state_checksum(inst);
        out->character_pose[c] = 0;
        if (with_poses && bsync_graph_skeleton(m->characters[c].desc.graph)) {
            bsync_result r = bsync_instance_pose_checksum(inst, &out->character_pose[c], NULL);
            if (r != BSYNC_OK) return r;
        }
    }
    return BSYNC_OK;
}

bsync_result bsync_match_checksums_finish(const bsync_match* m, int with_poses, bsync_match_checksums* out) {
    if (!match_ok(m) || !out) return BSYNC_INVALID_ARGUMENT;
    uint32_t n = m->desc.character_count;
    out->tick = m->tick;
    out->character_count = n;
    bsync_checksum_state s, p;
    bsync_checksum_init(&s, BSYNC_CHECKSUM_SEED_MATCH);
    bsync_checksum_u64(&s, m->tick);
    bsync_checksum_u32(&s, n);
    bsync_checksum_init(&p, BSYNC_CHECKSUM_SEED_MATCH_POSE);
    bsync_checksum_u64(&p, m->tick);
    bsync_checksum_u32(&p, n);
    uint32_t npcs = 0;
    for (uint32_t c = 0; c < n; c++) {
        bsync_checksum_u64(&s, out->character_blend[c]);
        bsync_checksum_u64(&p, out->character_pose[c]);
        if (m->characters[c].desc.slot == BSYNC_MATCH_NPC) npcs++;
    }
    bsync_checksum_u32(&s, npcs);
    for (uint32_t c = 0; c < n; c++)
        if (m->characters[c].desc.slot == BSYNC_MATCH_NPC) feed_script(&s, m, &m->characters[c].script);
    out->blend = bsync_checksum_final(&s);
    out->pose = with_poses ? bsync_checksum_final(&p) : 0;
    return BSYNC_OK;
}

bsync_result bsync_match_get_checksums(bsync_match* m, int with_poses, bsync_match_checksums* out) {
    if (!match_ok(m) || !out) return BSYNC_INVALID_ARGUMENT;
    bsync_result r = bsync_match_checksums_range(m, with_poses, out, 0, m->desc.character_count);
    if (r != BSYNC_OK) return r;
    return bsync_match_checksums_finish(m, with_poses, out);
}

bsync_result bsync_match_joint_checksums(bsync_match* m, uint32_t c, uint64_t* out, uint32_t cap, uint32_t* count) {
    if (!match_ok(m) || !out || !count || c >= m->desc.character_count) return BSYNC_INVALID_ARGUMENT;
    const bsync_graph* g = m->characters[c].desc.graph;
    uint32_t j = bsync_graph_joint_count(g);
    if (!bsync_graph_skeleton(g)) return BSYNC_MISMATCH;
    if (cap < j) return BSYNC_BUFFER_TOO_SMALL;
    uint64_t whole = 0;
    bsync_result r = bsync_instance_pose_checksum(bsync_match_instance(m, c), &whole, out);
    if (r != BSYNC_OK) return r;
    *count = j;
    return BSYNC_OK;
}

/* ---------------------------------------------------------------- snapshots */

static size_t npc_bytes(const bsync_match_desc* d) { return 12u + 4u * d->param_count + d->trigger_count; }

/* The bytes of the match snapshot around the instance blobs: header, NPC records, each blob's u32
 * length, the XXH64. */
static size_t snapshot_frame_bytes(const bsync_match* m) {
    size_t n = SNAP_HEAD + 8u;
    for (uint32_t c = 0; c < m->desc.character_count; c++)
        n += 4u + (m->characters[c].desc.slot == BSYNC_MATCH_NPC ? npc_bytes(&m->desc) : 0u);
    return n;
}

size_t bsync_match_snapshot_size(const bsync_match* m) {
    if (!match_ok(m)) return 0;
    size_t n = snapshot_frame_bytes(m);
    for (uint32_t c = 0; c < m->desc.character_count; c++)
        n += bsync_instance_snapshot_size_now(bsync_match_instance_const(m, c));
    return n;
}

size_t bsync_match_snapshot_size_max(const bsync_match* m) {
    if (!match_ok(m)) return 0;
    size_t n = snapshot_frame_bytes(m);
    for (uint32_t c = 0; c < m->desc.character_count; c++)
        n += bsync_instance_snapshot_size_max(m->characters[c].desc.graph);
    return n;
}

bsync_result bsync_match_save(const bsync_match* m, void* buf, size_t cap, size_t* written) {
    if (!match_ok(m) || !buf) return BSYNC_INVALID_ARGUMENT;
    const size_t total = bsync_match_snapshot_size(m);
    if (cap < total || total > 0xFFFFFFFFu) return BSYNC_BUFFER_TOO_SMALL;
    unsigned char* p = (unsigned char*)buf;
    bsync_le_put32(p, BSYNC_MATCH_SNAPSHOT_MAGIC);
    bsync_le_put32(p + 4, BSYNC_MATCH_SNAPSHOT_VERSION);
    bsync_le_put64(p + 8, m->hash);
    bsync_le_put32(p + 16, (uint32_t)total);
    bsync_le_put32(p + 20, m->desc.character_count);
    bsync_le_put64(p + 24, m->tick);
    size_t o = SNAP_HEAD;
    for (uint32_t c = 0; c < m->desc.character_count; c++) {
        const match_character* ch = &m->characters[c];
        if (ch->desc.slot != BSYNC_MATCH_NPC) continue;
        bsync_le_put64(p + o, ch->script.state);
        bsync_le_put32(p + o + 8, ch->script.hold_left);
        o += 12;
        for (uint32_t i = 0; i < m->desc.param_count; i++, o += 4) bsync_le_put32(p + o, (uint32_t)ch->script.record.params[i]);
        for (uint32_t j = 0; j < m->desc.trigger_count; j++) p[o++] = ch->script.record.triggers[j];
    }
    for (uint32_t c = 0; c < m->desc.character_count; c++) {
        /* the blob's size depends on the character's state (an inertializing switch adds a block) */
        size_t w = 0;
        bsync_result r = bsync_instance_save(bsync_match_instance_const(m, c), p + o + 4, total - 8u - (o + 4u), &w);
        if (r != BSYNC_OK) return r;
        bsync_le_put32(p + o, (uint32_t)w);
        o += 4 + w;
    }
    bsync_le_put64(p + o, bsync_checksum_xxh64(p, o, 0));
    if (written) *written = total;
    return BSYNC_OK;
}

bsync_result bsync_match_load(bsync_match* m, const void* buf, size_t len) {
    if (!match_ok(m) || !buf) return BSYNC_INVALID_ARGUMENT;
    const unsigned char* p = (const unsigned char*)buf;
    if (len < SNAP_HEAD + 8u || bsync_le_get32(p) != BSYNC_MATCH_SNAPSHOT_MAGIC || bsync_le_get32(p + 4) != BSYNC_MATCH_SNAPSHOT_VERSION)
        return BSYNC_BAD_BLOB;
    if (bsync_le_get64(p + 8) != m->hash) return BSYNC_MISMATCH;
    /* The instance blobs vary in size with their state: between each graph's base size and its
     * maximum, and together they must fill the snapshot exactly. */
    const size_t total = len;
    if (total < snapshot_frame_bytes(m) || total > bsync_match_snapshot_size_max(m) || bsync_le_get32(p + 16) != total ||
        bsync_le_get32(p + 20) != m->desc.character_count)
        return BSYNC_BAD_BLOB;
    if (bsync_le_get64(p + total - 8) != bsync_checksum_xxh64(p, total - 8, 0)) return BSYNC_BAD_BLOB;
    uint64_t tick = bsync_le_get64(p + 24);
    if (tick > ((uint64_t)1 << 62)) return BSYNC_BAD_BLOB;
    /* Check every part before writing anything (all or nothing): the NPC fields, then each
     * instance blob by instance_snapshot_check; only then load the real instances (which cannot fail
     * any more: same graphs, same bytes). */
    size_t o = SNAP_HEAD;
    for (uint32_t c = 0; c < m->desc.character_count; c++) {
        if (m->characters[c].desc.slot != BSYNC_MATCH_NPC) continue;
        if (bsync_le_get32(p + o + 8) > m->desc.hold_max) return BSYNC_BAD_BLOB;
        for (uint32_t i = 0; i < m->desc.param_count; i++)
            if (bsync_le_get32(p + o + 12 + 4 * i) == 0x80000000u) return BSYNC_BAD_BLOB;
        for (uint32_t j = 0; j < m->desc.trigger_count; j++)
            if (p[o + 12 + 4 * m->desc.param_count + j] > m->desc.script_states[j]) return BSYNC_BAD_BLOB;
        o += npc_bytes(&m->desc);
    }
    size_t inst_start = o;
    for (uint32_t c = 0; c < m->desc.character_count; c++) {
        const bsync_graph* g = m->characters[c].desc.graph;
        if (o + 4u > total - 8u) return BSYNC_BAD_BLOB;
        const size_t isz = bsync_le_get32(p + o);
        if (isz < bsync_instance_snapshot_size(g) || isz > bsync_instance_snapshot_size_max(g) ||
            isz > total - 8u - (o + 4u))
            return BSYNC_BAD_BLOB;
        const unsigned char* blob = p + o + 4;
        if (isz < 32u || bsync_le_get64(blob + 24) != tick) return BSYNC_BAD_BLOB; /* instance tick = match tick */
        /* the checks alone, against the character's own instance (nothing written; no scratch
         * instance to build, whose sample cursors cost most of a load) */
        bsync_result r = instance_snapshot_check(bsync_match_instance_const(m, c), blob, isz);
        if (r != BSYNC_OK) return r == BSYNC_MISMATCH ? BSYNC_MISMATCH : BSYNC_BAD_BLOB;
        o += 4 + isz;
    }
    if (o != total - 8u) return BSYNC_BAD_BLOB; /* bytes left over between the last blob and the XXH64 */
    o = inst_start;
    for (uint32_t c = 0; c < m->desc.character_count; c++) {
        const size_t isz = bsync_le_get32(p + o);
        bsync_result r = bsync_instance_load(bsync_match_instance(m, c), p + o + 4, isz);
        if (r != BSYNC_OK) return r;
        o += 4 + isz;
    }
    o = SNAP_HEAD;
    for (uint32_t c = 0; c < m->desc.character_count; c++) {
        match_character* ch = &m->characters[c];
        if (ch->desc.slot != BSYNC_MATCH_NPC) continue;
        ch->script.state = bsync_le_get64(p + o);
        ch->script.hold_left = bsync_le_get32(p + o + 8);
        for (uint32_t i = 0; i < BSYNC_MATCH_MAX_PARAMS; i++)
            ch->script.record.params[i] = i < m->desc.param_count ? (fix16_t)bsync_le_get32(p + o + 12 + 4 * i) : 0;
        for (uint32_t j = 0; j < BSYNC_MATCH_MAX_TRIGGERS; j++)
            ch->script.record.triggers[j] = j < m->desc.trigger_count ? p[o + 12 + 4 * m->desc.param_count + j] : 0u;
        o += npc_bytes(&m->desc);
    }
    /* targets: the instance snapshot holds each parameter's last target */
    for (uint32_t c = 0; c < m->desc.character_count; c++) {
        match_character* ch = &m->characters[c];
        const bsync_instance* inst = bsync_match_instance_const(m, c);
        for (uint32_t i = 0; i < ch->target_count; i++) ch->targets[i] = bsync_instance_target(inst, i);
    }
    m->tick = tick;
    return BSYNC_OK;
}
