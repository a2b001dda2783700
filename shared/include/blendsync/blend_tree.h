/* blendsync/blend_tree.h — nested blend nodes over named parameters and motions.
 *
 * Index
 *   bsync_blend_child_ref, bsync_blend_node_desc, bsync_blend_tree_desc   the definition
 *   bsync_blend_tree_create / _destroy
 *   bsync_blend_tree_eval_node        weights of one node's children
 *   bsync_blend_tree_eval_leaves      flattened weights of every motion under a node
 *   accessors: parameters, motions, nodes, children, the built blend space of a node
 *
 * A tree has parameters (name, default value), motions (leaf names: clips, or names that are not
 * bound to clip data yet, which is valid for designing), and nodes. Each node is a blend space
 * (blend_space.h) whose children are motions or other nodes. A node's parameters are indices into
 * the tree's parameters: 1 for Simple1D, 2 (x, y) for the 2D types, one per child for Direct.
 * The node graph must be acyclic (BSYNC_CYCLE otherwise); a node may be used by several parents.
 *
 * Validation (create; the first failure is returned, and *out_failed_node names the node when the
 * failure belongs to one, else it is set to UINT32_MAX):
 *   BSYNC_INVALID_ARGUMENT  null desc/out/arrays, node_count 0, root out of range, a child or a
 *                           parameter index out of range (failed node set)
 *   BSYNC_LIMIT_EXCEEDED    more than BSYNC_MAX_BLEND_NODES nodes, BSYNC_MAX_PARAMETERS parameters or
 *                           BSYNC_MAX_MOTIONS motions; a node's child_count outside
 *                           1..BSYNC_MAX_BLEND_CHILDREN (failed node set)
 *   BSYNC_BAD_NAME          an empty name or one of BSYNC_MAX_NAME bytes or more (failed node set
 *                           when it is a node's name)
 *   BSYNC_DUPLICATE_NAME    two parameters, two motions or two nodes with one name, or a node named
 *                           like a motion (parameters have their own name space)
 *   BSYNC_MISMATCH          a node's parameter count is not its type's arity (1 for Simple1D, 2 for
 *                           the 2D types, child_count for Direct) (failed node set)
 *   BSYNC_CYCLE             a node reaches itself; the failed node is one ON the cycle
 *   any blend space error   (bsync_blend_space_validate: BSYNC_BAD_LAYOUT, ...) (failed node set)
 *   BSYNC_OUT_OF_MEMORY     the allocator returned null
 * The tree is one block (bsync_blend_tree_destroy frees it); each node's blend space is built inside
 * it with bsync_blend_space_init.
 *
 * Flattening (eval_leaves): every node reachable from N gets a mass: N has mass 1; the nodes are
 * visited once each in a topological order fixed at create (parents before children), and a node
 * of mass m > 0 evaluates its weights w_i and adds bsync_fx_mul(m, w_i) (saturating add) to the mass
 * of child i (a node) or to the output weight of child i (a motion). Children with weight 0 are not
 * descended into. For a tree without shared nodes this is exactly the product of the weights along
 * the path, rounded per step from the top (mul(mul(w1, w2), w3)); a node used by several parents is
 * evaluated once and its parents' contributions are summed BEFORE being multiplied down, so the
 * cost is one evaluation per reachable node (never exponential in the depth). Every rounding is at
 * most half a raw step, so flattened weights of a node whose own weights sum to one sum to one
 * within (edges with nonzero weight)/2 raw steps; they are not re-normalised. Direct nodes that are
 * not normalised can make masses above 1; products and sums saturate, never overflow.
 *
 * Does not: allocate except in create, keep globals, use floating point, or print. Evaluation
 * needs no scratch memory from the caller beyond its outputs; it does not recurse (stack use is
 * about 1.6 KB: one mass per node, one weight and one parameter value per child).
 *
 * Eval errors: BSYNC_INVALID_ARGUMENT for a null tree/params/output or a node out of range.
 * Accessors given an index out of range return 0, "" (names), UINT32_MAX (indices) or
 * {BSYNC_CHILD_MOTION, UINT32_MAX} (children).
 */
#ifndef BLENDSYNC_BLEND_TREE_H
#define BLENDSYNC_BLEND_TREE_H

#include "blendsync/base.h"
#include "blendsync/blend_space.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bsync_blend_child_kind { BSYNC_CHILD_MOTION = 0, BSYNC_CHILD_NODE = 1 } bsync_blend_child_kind;

typedef struct bsync_blend_child_ref {
    bsync_blend_child_kind kind;
    uint32_t index; /* into the tree's motions or nodes */
} bsync_blend_child_ref;

typedef struct bsync_blend_node_desc {
    const char* name;                     /* unique, 1..BSYNC_MAX_NAME-1 bytes */
    bsync_blend_space_desc space;         /* space.child_count children */
    const bsync_blend_child_ref* children;
    const uint32_t* params;               /* indices into the tree's parameters (see above) */
    uint32_t param_count;                 /* 0: the type's arity (read that many from params);
                                             else it must equal the arity (BSYNC_MISMATCH) */
} bsync_blend_node_desc;

typedef struct bsync_blend_tree_desc {
    const char* const* parameter_names;   /* unique */
    const fix16_t* parameter_defaults;    /* may be NULL: all 0 */
    uint32_t parameter_count;
    const char* const* motion_names;      /* unique */
    uint32_t motion_count;
    const bsync_blend_node_desc* nodes;
    uint32_t node_count;
    uint32_t root;                        /* index of the root node */
} bsync_blend_tree_desc;

typedef struct bsync_blend_tree bsync_blend_tree;

/* Per-node diagnostics of a create call: node i's warnings in diags[i] (array of node_count; may be
 * NULL). On BSYNC_BAD_LAYOUT or another node error, *out_failed_node (may be NULL) names the node. */
BSYNC_API bsync_result bsync_blend_tree_create(const bsync_blend_tree_desc* desc, const bsync_allocator* allocator,
                                     bsync_blend_tree** out, bsync_blend_diagnostics* diags,
                                     uint32_t* out_failed_node);
BSYNC_API void bsync_blend_tree_destroy(bsync_blend_tree* tree);

/* params: all parameter_count values of the tree (bsync_blend_tree_parameter_count). */
BSYNC_API bsync_result bsync_blend_tree_eval_node(const bsync_blend_tree* tree, uint32_t node, const fix16_t* params,
                                        fix16_t* out_child_weights);
BSYNC_API bsync_result bsync_blend_tree_eval_leaves(const bsync_blend_tree* tree, uint32_t node, const fix16_t* params,
                                          fix16_t* out_motion_weights /* motion_count */);

BSYNC_API uint32_t bsync_blend_tree_parameter_count(const bsync_blend_tree* tree);
BSYNC_API const char* bsync_blend_tree_parameter_name(const bsync_blend_tree* tree, uint32_t i);
BSYNC_API fix16_t bsync_blend_tree_parameter_default(const bsync_blend_tree* tree, uint32_t i);
BSYNC_API bsync_result bsync_blend_tree_find_parameter(const bsync_blend_tree* tree, const char* name, uint32_t* out);
BSYNC_API uint32_t bsync_blend_tree_motion_count(const bsync_blend_tree* tree);
BSYNC_API const char* bsync_blend_tree_motion_name(const bsync_blend_tree* tree, uint32_t i);
BSYNC_API uint32_t bsync_blend_tree_node_count(const bsync_blend_tree* tree);
BSYNC_API uint32_t bsync_blend_tree_root(const bsync_blend_tree* tree);
BSYNC_API const char* bsync_blend_tree_node_name(const bsync_blend_tree* tree, uint32_t node);
BSYNC_API bsync_result bsync_blend_tree_find_node(const bsync_blend_tree* tree, const char* name, uint32_t* out);
BSYNC_API const bsync_blend_space* bsync_blend_tree_node_space(const bsync_blend_tree* tree, uint32_t node);
/* The node's child count (as its space's) and its parameter slot count (its type's arity). */
BSYNC_API uint32_t bsync_blend_tree_node_child_count(const bsync_blend_tree* tree, uint32_t node);
BSYNC_API uint32_t bsync_blend_tree_node_param_count(const bsync_blend_tree* tree, uint32_t node);
BSYNC_API bsync_result bsync_blend_tree_find_motion(const bsync_blend_tree* tree, const char* name, uint32_t* out);
BSYNC_API bsync_blend_child_ref bsync_blend_tree_node_child(const bsync_blend_tree* tree, uint32_t node, uint32_t child);
/* The tree parameter feeding the node's k-th parameter slot. */
BSYNC_API uint32_t bsync_blend_tree_node_param(const bsync_blend_tree* tree, uint32_t node, uint32_t k);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_BLEND_TREE_H */
