/* blend_tree.c — nested blend nodes: validation, one-block layout, evaluation and flattening.
 *
 * Block layout (offsets from the block start, 8-byte aligned):
 *   [0, 96)            header (struct bsync_blend_tree below; identical on 32- and 64-bit targets)
 *   defaults_offset    fix16_t[parameter_count]
 *   pnames_offset      uint32_t[parameter_count]   offsets of NUL-terminated parameter names
 *   mnames_offset      uint32_t[motion_count]      offsets of motion names
 *   nodes_offset       node_rec[node_count]        (32 bytes each)
 *   topo_offset        uint32_t[node_count]        nodes in topological order (parents first)
 *   refs_offset        child_rec[total children]   (8 bytes each)
 *   slots_offset       uint32_t[total parameter slots]
 *   (then)             the name bytes, each followed by NUL
 *   (8-aligned)        one blend space block per node (bsync_blend_space_init), each 8-aligned
 * Every byte is written (padding zero) except what bsync_blend_space_init writes itself.
 */
#include "blendsync/blend_tree.h"
#include "internal/block.h"
#include "internal/names.h"

#define TREE_MAGIC 0x45525442u /* "BTRE" */
#define TREE_VERSION 1u

struct bsync_blend_tree {
    bsync_block_header head;
    uint32_t parameter_count, motion_count, node_count, root;
    uint32_t defaults_offset, pnames_offset, mnames_offset, nodes_offset;
    uint32_t topo_offset, refs_offset, slots_offset, reserved;
};
_Static_assert(sizeof(struct bsync_blend_tree) == 96, "tree header must be 96 bytes on every target");

typedef struct node_rec {
    uint32_t name_offset;
    uint32_t space_offset;
    uint32_t first_child; /* into the child records */
    uint32_t first_slot;  /* into the parameter slots */
    uint32_t child_count;
    uint32_t param_count;
    uint32_t topo_pos;
    uint32_t reserved;
} node_rec;

typedef struct child_rec {
    uint32_t kind;
    uint32_t index;
} child_rec;




static uint32_t type_arity(bsync_blend_type type, uint32_t child_count) {
    switch (type) {
    case BSYNC_BLEND_SIMPLE_1D: return 1;
    case BSYNC_BLEND_DIRECT: return child_count;
    default: return 2;
    }
}

/* Names of one list: valid and unique. */
static bsync_result check_names(const char* const* names, uint32_t count, size_t* bytes) {
    for (uint32_t i = 0; i < count; i++) {
        size_t len = bsync_name_length(names[i]);
        if (len == 0) return BSYNC_BAD_NAME;
        for (uint32_t k = 0; k < i; k++)
            if (bsync_names_equal(names[k], names[i])) return BSYNC_DUPLICATE_NAME;
        *bytes += len + 1;
    }
    return BSYNC_OK;
}

typedef struct plan {
    size_t size;
    size_t names_bytes;
    uint32_t total_children, total_slots;
    uint32_t topo[BSYNC_MAX_BLEND_NODES];
    size_t space_size[BSYNC_MAX_BLEND_NODES];
} plan;

/* Depth-first search over node->node edges in index order. Fills the topological order (reverse
 * post-order) or reports a node on a cycle. */
static bsync_result order_nodes(const bsync_blend_tree_desc* desc, plan* p, uint32_t* failed) {
    const uint32_t n = desc->node_count;
    unsigned char color[BSYNC_MAX_BLEND_NODES]; /* 0 white, 1 on the stack, 2 done */
    uint32_t stack[BSYNC_MAX_BLEND_NODES], cursor[BSYNC_MAX_BLEND_NODES];
    uint32_t done = 0;
    for (uint32_t i = 0; i < n; i++) color[i] = 0;
    for (uint32_t start = 0; start < n; start++) {
        if (color[start]) continue;
        uint32_t depth = 0;
        stack[depth] = start;
        cursor[depth] = 0;
        depth++;
        color[start] = 1;
        while (depth > 0) {
            uint32_t t = stack[depth - 1];
            const bsync_blend_node_desc* nd = &desc->nodes[t];
            if (cursor[depth - 1] < nd->space.child_count) {
                bsync_blend_child_ref c = nd->children[cursor[depth - 1]++];
                if (c.kind != BSYNC_CHILD_NODE) continue;
                if (color[c.index] == 1) {
                    *failed = c.index;
                    return BSYNC_CYCLE;
                }
                if (color[c.index] == 0) {
                    color[c.index] = 1;
                    stack[depth] = c.index;
                    cursor[depth] = 0;
                    depth++;
                }
            } else {
                color[t] = 2;
                depth--;
                p->topo[n - 1 - done] = t;
                done++;
            }
        }
    }
    return BSYNC_OK;
}

static bsync_result validate_and_plan(const bsync_blend_tree_desc* desc, plan* p, uint32_t* failed) {
    *failed = UINT32_MAX;
    if (!desc || !desc->nodes || desc->node_count == 0) return BSYNC_INVALID_ARGUMENT;
    if (desc->node_count > BSYNC_MAX_BLEND_NODES || desc->parameter_count > BSYNC_MAX_PARAMETERS ||
        desc->motion_count > BSYNC_MAX_MOTIONS)
        return BSYNC_LIMIT_EXCEEDED;
    if ((desc->parameter_count > 0 && !desc->parameter_names) || (desc->motion_count > 0 && !desc->motion_names))
        return BSYNC_INVALID_ARGUMENT;
    if (desc->root >= desc->node_count) return BSYNC_INVALID_ARGUMENT;
    const uint32_t n = desc->node_count;

    size_t name_bytes = 0;
    bsync_result r = check_names(desc->parameter_names, desc->parameter_count, &name_bytes);
    if (r != BSYNC_OK) return r;
    r = check_names(desc->motion_names, desc->motion_count, &name_bytes);
    if (r != BSYNC_OK) return r;
    for (uint32_t i = 0; i < n; i++) {
        const char* name = desc->nodes[i].name;
        size_t len = bsync_name_length(name);
        *failed = i;
        if (len == 0) return BSYNC_BAD_NAME;
        for (uint32_t k = 0; k < i; k++)
            if (bsync_names_equal(desc->nodes[k].name, name)) return BSYNC_DUPLICATE_NAME;
        for (uint32_t m = 0; m < desc->motion_count; m++)
            if (bsync_names_equal(desc->motion_names[m], name)) return BSYNC_DUPLICATE_NAME;
        name_bytes += len + 1;
    }

    uint32_t total_children = 0, total_slots = 0;
    for (uint32_t i = 0; i < n; i++) {
        const bsync_blend_node_desc* nd = &desc->nodes[i];
        *failed = i;
        if ((unsigned)nd->space.type >= (unsigned)BSYNC_BLEND_TYPE_COUNT) return BSYNC_INVALID_ARGUMENT;
        if (nd->space.child_count == 0 || nd->space.child_count > BSYNC_MAX_BLEND_CHILDREN)
            return BSYNC_LIMIT_EXCEEDED;
        if (!nd->children || !nd->params) return BSYNC_INVALID_ARGUMENT;
        uint32_t arity = type_arity(nd->space.type, nd->space.child_count);
        if (nd->param_count != 0 && nd->param_count != arity) return BSYNC_MISMATCH;
        for (uint32_t c = 0; c < nd->space.child_count; c++) {
            bsync_blend_child_ref ref = nd->children[c];
            if (ref.kind == BSYNC_CHILD_MOTION) {
                if (ref.index >= desc->motion_count) return BSYNC_INVALID_ARGUMENT;
            } else if (ref.kind == BSYNC_CHILD_NODE) {
                if (ref.index >= n) return BSYNC_INVALID_ARGUMENT;
            } else {
                return BSYNC_INVALID_ARGUMENT;
            }
        }
        for (uint32_t k = 0; k < arity; k++)
            if (nd->params[k] >= desc->parameter_count) return BSYNC_INVALID_ARGUMENT;
        r = bsync_blend_space_validate(&nd->space);
        if (r != BSYNC_OK) return r;
        p->space_size[i] = bsync_blend_space_memory_size(&nd->space);
        if (p->space_size[i] == 0) return BSYNC_INVALID_ARGUMENT;
        total_children += nd->space.child_count;
        total_slots += arity;
    }
    *failed = UINT32_MAX;
    r = order_nodes(desc, p, failed);
    if (r != BSYNC_OK) return r;

    size_t size = sizeof(struct bsync_blend_tree);
    size += (size_t)desc->parameter_count * sizeof(fix16_t);
    size += (size_t)desc->parameter_count * sizeof(uint32_t);
    size += (size_t)desc->motion_count * sizeof(uint32_t);
    size = bsync_align_up(size, 8);
    size += (size_t)n * sizeof(node_rec);
    size += (size_t)n * sizeof(uint32_t);
    size = bsync_align_up(size, 8);
    size += (size_t)total_children * sizeof(child_rec);
    size += (size_t)total_slots * sizeof(uint32_t);
    size += name_bytes;
    size = bsync_align_up(size, 8);
    for (uint32_t i = 0; i < n; i++) size += bsync_align_up(p->space_size[i], 8);
    if (size > (size_t)UINT32_MAX) return BSYNC_LIMIT_EXCEEDED;
    p->size = size;
    p->names_bytes = name_bytes;
    p->total_children = total_children;
    p->total_slots = total_slots;
    return BSYNC_OK;
}

static const node_rec* node_at(const bsync_blend_tree* t, uint32_t i) {
    return (const node_rec*)((const unsigned char*)t + t->nodes_offset) + i;
}

static size_t copy_name(unsigned char* base, size_t off, const char* name) {
    size_t len = bsync_name_length(name);
    for (size_t c = 0; c < len; c++) base[off + c] = (unsigned char)name[c];
    return off + len + 1; /* NUL from the zero fill */
}

bsync_result bsync_blend_tree_create(const bsync_blend_tree_desc* desc, const bsync_allocator* allocator,
                                     bsync_blend_tree** out, bsync_blend_diagnostics* diags,
                                     uint32_t* out_failed_node) {
    uint32_t failed = UINT32_MAX;
    plan p;
    p.size = p.names_bytes = 0;
    p.total_children = p.total_slots = 0;
    bsync_result r = out ? validate_and_plan(desc, &p, &failed) : BSYNC_INVALID_ARGUMENT;
    if (out_failed_node) *out_failed_node = failed;
    if (r != BSYNC_OK) return r;

    bsync_allocator a;
    unsigned char* base = (unsigned char*)bsync_block_alloc(allocator, p.size, &a);
    if (!base) return BSYNC_OUT_OF_MEMORY;
    bsync_block_start(base, p.size, TREE_MAGIC, TREE_VERSION);

    const uint32_t n = desc->node_count, np = desc->parameter_count, nm = desc->motion_count;
    struct bsync_blend_tree* t = (struct bsync_blend_tree*)base;
    t->parameter_count = np;
    t->motion_count = nm;
    t->node_count = n;
    t->root = desc->root;
    size_t off = sizeof(struct bsync_blend_tree);
    t->defaults_offset = (uint32_t)off;
    off += (size_t)np * sizeof(fix16_t);
    t->pnames_offset = (uint32_t)off;
    off += (size_t)np * sizeof(uint32_t);
    t->mnames_offset = (uint32_t)off;
    off += (size_t)nm * sizeof(uint32_t);
    off = bsync_align_up(off, 8);
    t->nodes_offset = (uint32_t)off;
    off += (size_t)n * sizeof(node_rec);
    t->topo_offset = (uint32_t)off;
    off += (size_t)n * sizeof(uint32_t);
    off = bsync_align_up(off, 8);
    t->refs_offset = (uint32_t)off;
    off += (size_t)p.total_children * sizeof(child_rec);
    t->slots_offset = (uint32_t)off;
    off += (size_t)p.total_slots * sizeof(uint32_t);

    fix16_t* defaults = (fix16_t*)(base + t->defaults_offset);
    uint32_t* pnames = (uint32_t*)(base + t->pnames_offset);
    uint32_t* mnames = (uint32_t*)(base + t->mnames_offset);
    node_rec* nodes = (node_rec*)(base + t->nodes_offset);
    uint32_t* topo = (uint32_t*)(base + t->topo_offset);
    child_rec* refs = (child_rec*)(base + t->refs_offset);
    uint32_t* slots = (uint32_t*)(base + t->slots_offset);

    for (uint32_t i = 0; i < np; i++) {
        defaults[i] = desc->parameter_defaults ? desc->parameter_defaults[i] : 0;
        pnames[i] = (uint32_t)off;
        off = copy_name(base, off, desc->parameter_names[i]);
    }
    for (uint32_t i = 0; i < nm; i++) {
        mnames[i] = (uint32_t)off;
        off = copy_name(base, off, desc->motion_names[i]);
    }
    for (uint32_t i = 0; i < n; i++) {
        nodes[i].name_offset = (uint32_t)off;
        off = copy_name(base, off, desc->nodes[i].name);
    }
    off = bsync_align_up(off, 8);
    for (uint32_t i = 0; i < n; i++) {
        topo[i] = p.topo[i];
        nodes[p.topo[i]].topo_pos = i;
    }
    uint32_t child_cursor = 0, slot_cursor = 0;
    for (uint32_t i = 0; i < n; i++) {
        const bsync_blend_node_desc* nd = &desc->nodes[i];
        node_rec* rec = &nodes[i];
        rec->child_count = nd->space.child_count;
        rec->param_count = type_arity(nd->space.type, nd->space.child_count);
        rec->first_child = child_cursor;
        rec->first_slot = slot_cursor;
        for (uint32_t c = 0; c < rec->child_count; c++) {
            refs[child_cursor + c].kind = (uint32_t)nd->children[c].kind;
            refs[child_cursor + c].index = nd->children[c].index;
        }
        for (uint32_t k = 0; k < rec->param_count; k++) slots[slot_cursor + k] = nd->params[k];
        child_cursor += rec->child_count;
        slot_cursor += rec->param_count;
        rec->space_offset = (uint32_t)off;
        bsync_blend_space* space = NULL;
        r = bsync_blend_space_init(base + off, p.space_size[i], &nd->space, &space, diags ? &diags[i] : NULL);
        if (r != BSYNC_OK) {
            if (out_failed_node) *out_failed_node = i;
            return bsync_block_adopt(r, base, p.size, &a);
        }
        off += bsync_align_up(p.space_size[i], 8);
    }
    t->head.alloc.allocator = a;
    *out = t;
    return BSYNC_OK;
}

void bsync_blend_tree_destroy(bsync_blend_tree* tree) { bsync_block_destroy(tree ? &tree->head : NULL); }

/* ---------------------------------------------------------------- evaluation */

static bsync_result eval_node_(const bsync_blend_tree* tree, uint32_t node, const fix16_t* params, fix16_t* out) {
    const node_rec* rec = node_at(tree, node);
    const uint32_t* slots = (const uint32_t*)((const unsigned char*)tree + tree->slots_offset) + rec->first_slot;
    fix16_t values[BSYNC_MAX_BLEND_CHILDREN];
    for (uint32_t k = 0; k < rec->param_count; k++) values[k] = params[slots[k]];
    const bsync_blend_space* space = (const bsync_blend_space*)((const unsigned char*)tree + rec->space_offset);
    return bsync_blend_space_eval(space, values, rec->param_count, out);
}

bsync_result bsync_blend_tree_eval_node(const bsync_blend_tree* tree, uint32_t node, const fix16_t* params,
                                        fix16_t* out_child_weights) {
    if (!tree || !params || !out_child_weights || node >= tree->node_count) return BSYNC_INVALID_ARGUMENT;
    return eval_node_(tree, node, params, out_child_weights);
}

bsync_result bsync_blend_tree_eval_leaves(const bsync_blend_tree* tree, uint32_t node, const fix16_t* params,
                                          fix16_t* out_motion_weights) {
    if (!tree || !params || !out_motion_weights || node >= tree->node_count) return BSYNC_INVALID_ARGUMENT;
    const unsigned char* base = (const unsigned char*)tree;
    const uint32_t* topo = (const uint32_t*)(base + tree->topo_offset);
    const child_rec* refs = (const child_rec*)(base + tree->refs_offset);
    fix16_t mass[BSYNC_MAX_BLEND_NODES];
    fix16_t w[BSYNC_MAX_BLEND_CHILDREN];
    for (uint32_t i = 0; i < tree->node_count; i++) mass[i] = 0;
    for (uint32_t i = 0; i < tree->motion_count; i++) out_motion_weights[i] = 0;
    mass[node] = BSYNC_FX_ONE;
    for (uint32_t pos = node_at(tree, node)->topo_pos; pos < tree->node_count; pos++) {
        uint32_t cur = topo[pos];
        fix16_t m = mass[cur];
        if (m <= 0) continue;
        bsync_result r = eval_node_(tree, cur, params, w);
        if (r != BSYNC_OK) return r;
        const node_rec* rec = node_at(tree, cur);
        for (uint32_t c = 0; c < rec->child_count; c++) {
            if (w[c] <= 0) continue;
            fix16_t contribution = bsync_fx_mul(m, w[c]);
            if (contribution <= 0) continue;
            const child_rec* ref = &refs[rec->first_child + c];
            if (ref->kind == (uint32_t)BSYNC_CHILD_NODE)
                mass[ref->index] = bsync_fx_add(mass[ref->index], contribution);
            else
                out_motion_weights[ref->index] = bsync_fx_add(out_motion_weights[ref->index], contribution);
        }
    }
    return BSYNC_OK;
}

/* ---------------------------------------------------------------- accessors */

static const char* name_at(const bsync_blend_tree* t, uint32_t table_offset, uint32_t i) {
    const unsigned char* base = (const unsigned char*)t;
    const uint32_t* offs = (const uint32_t*)(base + table_offset);
    return (const char*)(base + offs[i]);
}

uint32_t bsync_blend_tree_parameter_count(const bsync_blend_tree* tree) { return tree ? tree->parameter_count : 0; }

const char* bsync_blend_tree_parameter_name(const bsync_blend_tree* tree, uint32_t i) {
    if (!tree || i >= tree->parameter_count) return "";
    return name_at(tree, tree->pnames_offset, i);
}

fix16_t bsync_blend_tree_parameter_default(const bsync_blend_tree* tree, uint32_t i) {
    if (!tree || i >= tree->parameter_count) return 0;
    return ((const fix16_t*)((const unsigned char*)tree + tree->defaults_offset))[i];
}

bsync_result bsync_blend_tree_find_parameter(const bsync_blend_tree* tree, const char* name, uint32_t* out) {
    if (!tree || !name || !out) return BSYNC_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < tree->parameter_count; i++)
        if (bsync_names_equal(name_at(tree, tree->pnames_offset, i), name)) {
            *out = i;
            return BSYNC_OK;
        }
    return BSYNC_NOT_FOUND;
}

uint32_t bsync_blend_tree_motion_count(const bsync_blend_tree* tree) { return tree ? tree->motion_count : 0; }

const char* bsync_blend_tree_motion_name(const bsync_blend_tree* tree, uint32_t i) {
    if (!tree || i >= tree->motion_count) return "";
    return name_at(tree, tree->mnames_offset, i);
}

bsync_result bsync_blend_tree_find_motion(const bsync_blend_tree* tree, const char* name, uint32_t* out) {
    if (!tree || !name || !out) return BSYNC_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < tree->motion_count; i++)
        if (bsync_names_equal(name_at(tree, tree->mnames_offset, i), name)) {
            *out = i;
            return BSYNC_OK;
        }
    return BSYNC_NOT_FOUND;
}

uint32_t bsync_blend_tree_node_count(const bsync_blend_tree* tree) { return tree ? tree->node_count : 0; }

uint32_t bsync_blend_tree_root(const bsync_blend_tree* tree) { return tree ? tree->root : UINT32_MAX; }

const char* bsync_blend_tree_node_name(const bsync_blend_tree* tree, uint32_t node) {
    if (!tree || node >= tree->node_count) return "";
    return (const char*)tree + node_at(tree, node)->name_offset;
}

bsync_result bsync_blend_tree_find_node(const bsync_blend_tree* tree, const char* name, uint32_t* out) {
    if (!tree || !name || !out) return BSYNC_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < tree->node_count; i++)
        if (bsync_names_equal(bsync_blend_tree_node_name(tree, i), name)) {
            *out = i;
            return BSYNC_OK;
        }
    return BSYNC_NOT_FOUND;
}

const bsync_blend_space* bsync_blend_tree_node_space(const bsync_blend_tree* tree, uint32_t node) {
    if (!tree || node >= tree->node_count) return NULL;
    return (const bsync_blend_space*)((const unsigned char*)tree + node_at(tree, node)->space_offset);
}

uint32_t bsync_blend_tree_node_child_count(const bsync_blend_tree* tree, uint32_t node) {
    if (!tree || node >= tree->node_count) return 0;
    return node_at(tree, node)->child_count;
}

uint32_t bsync_blend_tree_node_param_count(const bsync_blend_tree* tree, uint32_t node) {
    if (!tree || node >= tree->node_count) return 0;
    return node_at(tree, node)->param_count;
}

bsync_blend_child_ref bsync_blend_tree_node_child(const bsync_blend_tree* tree, uint32_t node, uint32_t child) {
    bsync_blend_child_ref none = {BSYNC_CHILD_MOTION, UINT32_MAX};
    if (!tree || node >= tree->node_count) return none;
    const node_rec* rec = node_at(tree, node);
    if (child >= rec->child_count) return none;
    const child_rec* refs = (const child_rec*)((const unsigned char*)tree + tree->refs_offset);
    bsync_blend_child_ref r;
    r.kind = refs[rec->first_child + child].kind == (uint32_t)BSYNC_CHILD_NODE ? BSYNC_CHILD_NODE : BSYNC_CHILD_MOTION;
    r.index = refs[rec->first_child + child].index;
    return r;
}

uint32_t bsync_blend_tree_node_param(const bsync_blend_tree* tree, uint32_t node, uint32_t k) {
    if (!tree || node >= tree->node_count) return UINT32_MAX;
    const node_rec* rec = node_at(tree, node);
    if (k >= rec->param_count) return UINT32_MAX;
    return ((const uint32_t*)((const unsigned char*)tree + tree->slots_offset))[rec->first_slot + k];
}
