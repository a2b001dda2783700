/* blendsync/blend_tree.h — nested blend nodes over named parameters and motions.
 *
 * Index
 *   bsync_blend_child_ref, bsync_blend_node_desc, bsync_blend_tree_desc   the definition
 *   bsync_blend_tree_create / _destroy   one block; validation codes and the failed node
 *   bsync_blend_tree_eval_node           weights of one node's children
 *   bsync_blend_tree_eval_leaves         flattened weights of every motion under a node
 *   accessors: parameters, motions, nodes, children, the built blend space of a node
 *
 * Acyclic; a node may have several parents. No allocation after create, no floats, no recursion.
 * Out-of-range accessors return 0, "", UINT32_MAX. design: docs/blend-tree.md
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
    const uint32_t* params;               /* indices into the tree's parameters */
    uint32_t param_count;                 /* 0 or the type's arity */
} bsync_blend_node_desc;

typedef struct bsync_blend_tree_desc {
    const char* const* parameter_names;   /* unique */
    const fix16_t* parameter_defaults;    /* may be NULL: all 0 */
    uint32_t parameter_count;
    const char* const* motion_names;      /* unique */
    uint32_t motion_count;
    const bsync_blend_node_desc* nodes;
    uint32_t node_count;
    uint32_t root;
} bsync_blend_tree_desc;

typedef struct bsync_blend_tree bsync_blend_tree;

/* diags: NULL or node_count; *out_failed_node (may be NULL) names the node that failed. */
BSYNC_API bsync_result bsync_blend_tree_create(const bsync_blend_tree_desc* desc, const bsync_allocator* allocator,
                                     bsync_blend_tree** out, bsync_blend_diagnostics* diags,
                                     uint32_t* out_failed_node);
BSYNC_API void bsync_blend_tree_destroy(bsync_blend_tree* tree);

/* params: all the tree's parameter values. BSYNC_INVALID_ARGUMENT. */
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
/* As its space's; the slot count is its type's arity. */
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
