/* internal/instance_impl.h — the instance's header struct as instance.c lays it out, for the files
 * that read an instance's arrays directly (instance.c, present.c). Not public.
 *
 * The layout itself (the order and sizes of the arrays behind the struct) is instance.c's layout() and
 * its file comment; offsets are from the instance start, so a memcpy of `size` bytes is a working copy
 * for the same graph (present.c relies on that). */
#ifndef BLENDSYNC_INTERNAL_INSTANCE_IMPL_H
#define BLENDSYNC_INTERNAL_INSTANCE_IMPL_H

#include "blendsync/instance.h"
#include "graph_impl.h"

#define INSTANCE_MAGIC 0x54534E49u /* "INST" */

struct bsync_instance {
    const bsync_graph* graph;
    uint64_t pad_ptr_;  /* reserved, 0 */
    uint64_t tick;
    uint64_t size;
    uint32_t magic;
    uint32_t reserved;
    uint64_t off_targets, off_filtered, off_states, off_changed, off_weights, off_contrib, off_mass;
    uint64_t off_length, off_steps, off_clocks, off_slot_clocks, off_leaf, off_cursors, off_scratch;
    bsync_vec3 rm_t;    /* the last tick's root-motion delta (state; recomputable, see instance.h) */
    bsync_quat rm_r;
    uint32_t rm_pad_;   /* 0 */
};

/* A switch's cross-fade stack (instance.h "Switches"), entries oldest first. */
typedef struct sw_entry {
    uint32_t child;  /* child index of the switch node */
    fix16_t base;    /* weight when the newest fade began (older entries; sum 1.0); 0 for the newest */
    fix16_t weight;  /* derived: the current weight */
    uint32_t fade;   /* newest entry: fade length in ticks; else 0 */
    uint32_t done;   /* newest entry: ticks of the fade done (< fade while count > 1); else 0 */
} sw_entry;
typedef struct sw_stack {
    uint32_t count, pad_;
    sw_entry e[BSYNC_SWITCH_STACK_DEPTH];
} sw_stack;

/* The switch stacks are the last switch_count * sizeof(sw_stack) bytes of the instance. */
#define INSTANCE_SWITCH_STACKS(inst) \
    ((sw_stack*)(void*)((unsigned char*)(inst) + (size_t)(inst)->size - \
                        (size_t)(inst)->graph->switch_count * sizeof(sw_stack)))

/* Masses, slot contributions, leaf weights, cycle lengths and phase steps from the node weights
 * (instance.c's flatten_and_lengths; present.c calls it on a copy). */
void instance_flatten_and_lengths(bsync_instance* inst);

#define ARR(inst, T, field) ((T*)(void*)((unsigned char*)(inst) + (size_t)(inst)->field))
#define CARR(inst, T, field) ((const T*)(const void*)((const unsigned char*)(inst) + (size_t)(inst)->field))

#endif /* BLENDSYNC_INTERNAL_INSTANCE_IMPL_H */
