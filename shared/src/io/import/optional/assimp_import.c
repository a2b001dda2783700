/* assimp_import.c — FBX and Collada through assimp's C API (optional: compiled only when CMake finds
 * libassimp; see docs/import.md "FBX and Collada (optional assimp)").
 *
 * The skeleton: the nodes that an animation channel or a mesh bone names, plus all their ancestors,
 * except assimp's scene root node (unless it is itself named by a channel or bone). With no bones and
 * no channels at all, every node below the root. Joints keep the node tree's pre-order (parents
 * first). Rest pose = each node's mTransformation, decomposed by aiDecomposeMatrix.
 *
 * The scene root node carries what assimp did to the file's units and up axis (Collada: <unit> scale
 * and the Z_UP -> Y_UP rotation). It is decomposed into T, R, S: the mean of S is taken as a unit
 * scale u applied to every translation (rest and keys), and T, R are folded into the top joints
 * (t' = T + R (u t), r' = R r). FBX: assimp keeps the file's units, so the "UnitScaleFactor"
 * metadata (centimetres per unit) scales translations by UnitScaleFactor / 100 as well; an FBX up
 * axis other than Y is only noted. Non-uniform root scale is noted (the mean is used).
 *
 * Every aiAnimation is a clip (name, or "animation<i>"), every channel gives up to three LINEAR
 * tracks; times are ticks / mTicksPerSecond (25 when 0). Keys not after the previous one are dropped
 * (counted in the notes); a negative time is an error. Then imp_build_clip, like gltf.c.
 *
 * assimp computes in float (ai_real): the same file gives the same bits with the same assimp build;
 * a different assimp version may round differently. Convert to glTF for a fully pinned pipeline. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/scene.h>
#include <assimp/version.h>

#include "import_internal.h"

#define AS_MAX_NODES 65536u

typedef struct as_node {
    const struct aiNode* node;
    int32_t parent; /* index or -1 */
    int32_t joint;  /* joint index or -1 */
} as_node;

typedef struct as_ctx {
    const char* file;
    bsync_error* err;
    bsync_asset* asset;
    as_node* nodes;
    uint32_t n;
    double u;            /* unit scale for translations */
    double ft[3], fr[4]; /* fold into the top joints */
    int fold;            /* the root node is not a joint: fold into its joint children */
} as_ctx;

static void qmul(const double a[4], const double b[4], double o[4]) {
    double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    o[0] = x;
    o[1] = y;
    o[2] = z;
    o[3] = w;
}

static void qrot(const double q[4], const double v[3], double o[3]) {
    double c1[3] = {q[1] * v[2] - q[2] * v[1], q[2] * v[0] - q[0] * v[2], q[0] * v[1] - q[1] * v[0]};
    double c2[3] = {q[1] * c1[2] - q[2] * c1[1], q[2] * c1[0] - q[0] * c1[2], q[0] * c1[1] - q[1] * c1[0]};
    for (int i = 0; i < 3; i++) o[i] = v[i] + 2.0 * q[3] * c1[i] + 2.0 * c2[i];
}

/* A translation of joint j in final units (and folded for the top joints). */
static void fix_translation(const as_ctx* c, int top, double t[3]) {
    double s[3] = {t[0] * c->u, t[1] * c->u, t[2] * c->u};
    if (top && c->fold) {
        qrot(c->fr, s, t);
        for (int i = 0; i < 3; i++) t[i] += c->ft[i];
    } else {
        memcpy(t, s, sizeof s);
    }
}

static void fix_rotation(const as_ctx* c, int top, double r[4]) {
    if (top && c->fold) {
        double o[4];
        qmul(c->fr, r, o);
        memcpy(r, o, sizeof o);
    }
}

static int32_t find_node(const as_ctx* c, const struct aiString* name) {
    for (uint32_t i = 0; i < c->n; i++)
        if (c->nodes[i].node->mName.length == name->length &&
            memcmp(c->nodes[i].node->mName.data, name->data, name->length) == 0)
            return (int32_t)i;
    return -1;
}

static int meta_double(const struct aiMetadata* m, const char* key, double* out) {
    if (!m) return 0;
    for (unsigned i = 0; i < m->mNumProperties; i++) {
        if (strcmp(m->mKeys[i].data, key) != 0 || !m->mValues[i].mData) continue;
        switch (m->mValues[i].mType) {
        case AI_FLOAT: *out = *(const float*)m->mValues[i].mData; return 1;
        case AI_DOUBLE: *out = *(const double*)m->mValues[i].mData; return 1;
        case AI_INT32: *out = *(const int32_t*)m->mValues[i].mData; return 1;
        default: return 0;
        }
    }
    return 0;
}

/* Flatten the node tree in pre-order (iteratively: no recursion depth taken from the file). */
static bsync_result collect_nodes(as_ctx* c, const struct aiScene* sc) {
    uint32_t cap = 64;
    c->nodes = malloc(cap * sizeof *c->nodes);
    uint32_t* stack = NULL;
    if (!c->nodes) return imp_fail(c->err, BSYNC_OUT_OF_MEMORY, c->file, "out of memory");
    c->nodes[0].node = sc->mRootNode;
    c->nodes[0].parent = -1;
    c->nodes[0].joint = -1;
    c->n = 1;
    /* explicit stack of (node index, next child) pairs */
    uint32_t sp = 0, scap = 64;
    stack = malloc(scap * 2 * sizeof *stack);
    if (!stack) return imp_fail(c->err, BSYNC_OUT_OF_MEMORY, c->file, "out of memory");
    stack[0] = 0;
    stack[1] = 0;
    sp = 1;
    bsync_result r = BSYNC_OK;
    while (sp > 0) {
        uint32_t ni = stack[2 * (sp - 1)], ci = stack[2 * (sp - 1) + 1];
        const struct aiNode* nd = c->nodes[ni].node;
        if (ci >= nd->mNumChildren || !nd->mChildren) {
            sp--;
            continue;
        }
        stack[2 * (sp - 1) + 1] = ci + 1;
        if (!nd->mChildren[ci]) continue;
        if (c->n >= AS_MAX_NODES) {
            r = imp_fail(c->err, BSYNC_LIMIT_EXCEEDED, c->file, "more than %u nodes", (unsigned)AS_MAX_NODES);
            break;
        }
        if (c->n == cap) {
            as_node* nn = realloc(c->nodes, (size_t)cap * 2 * sizeof *nn);
            if (!nn) {
                r = imp_fail(c->err, BSYNC_OUT_OF_MEMORY, c->file, "out of memory");
                break;
            }
            c->nodes = nn;
            cap *= 2;
        }
        c->nodes[c->n].node = nd->mChildren[ci];
        c->nodes[c->n].parent = (int32_t)ni;
        c->nodes[c->n].joint = -1;
        if (sp == scap) {
            uint32_t* ns = realloc(stack, (size_t)scap * 2 * 2 * sizeof *ns);
            if (!ns) {
                r = imp_fail(c->err, BSYNC_OUT_OF_MEMORY, c->file, "out of memory");
                break;
            }
            stack = ns;
            scap *= 2;
        }
        stack[2 * sp] = c->n;
        stack[2 * sp + 1] = 0;
        sp++;
        c->n++;
    }
    free(stack);
    return r;
}

static void decompose(const struct aiNode* nd, double t[3], double r[4], double s[3]) {
    struct aiVector3D sc, pos;
    struct aiQuaternion q;
    aiDecomposeMatrix(&nd->mTransformation, &sc, &q, &pos);
    t[0] = pos.x;
    t[1] = pos.y;
    t[2] = pos.z;
    r[0] = q.x;
    r[1] = q.y;
    r[2] = q.z;
    r[3] = q.w;
    s[0] = sc.x;
    s[1] = sc.y;
    s[2] = sc.z;
    imp_quat_normalize(r);
}

static bsync_result build_skeleton(as_ctx* c, const struct aiScene* sc) {
    unsigned char* in = calloc(c->n, 1);
    imp_joint* joints = NULL;
    bsync_result r = BSYNC_OK;
    if (!in) return imp_fail(c->err, BSYNC_OUT_OF_MEMORY, c->file, "out of memory");
    uint32_t refs = 0, unknown = 0;
    for (unsigned a = 0; a < sc->mNumAnimations && sc->mAnimations; a++) {
        const struct aiAnimation* an = sc->mAnimations[a];
        for (unsigned k = 0; an && an->mChannels && k < an->mNumChannels; k++) {
            if (!an->mChannels[k]) continue;
            int32_t i = find_node(c, &an->mChannels[k]->mNodeName);
            if (i >= 0) in[i] = 1, refs++;
            else unknown++;
        }
    }
    for (unsigned m = 0; m < sc->mNumMeshes && sc->mMeshes; m++) {
        const struct aiMesh* me = sc->mMeshes[m];
        for (unsigned b = 0; me && me->mBones && b < me->mNumBones; b++) {
            if (!me->mBones[b]) continue;
            int32_t i = find_node(c, &me->mBones[b]->mName);
            if (i >= 0) in[i] = 1, refs++;
            else unknown++;
        }
    }
    if (unknown) bsync_asset_note(c->asset, "%u channels or bones name no node (ignored)", (unsigned)unknown);
    if (refs == 0) {
        for (uint32_t i = 1; i < c->n; i++) in[i] = 1;
        if (c->n == 1) in[0] = 1;
        bsync_asset_note(c->asset, "no bones or animated nodes: the skeleton is every node below the root");
    }
    for (uint32_t i = c->n; i-- > 1;) /* ancestors (children come after parents: walk back) */
        if (in[i] && c->nodes[i].parent > 0) in[c->nodes[i].parent] = 1;
    uint32_t nj = 0;
    for (uint32_t i = 0; i < c->n; i++) nj += in[i];
    if (nj > BSYNC_MAX_JOINTS) {
        free(in);
        return imp_fail(c->err, BSYNC_LIMIT_EXCEEDED, c->file, "%u joints, more than the limit of %u", (unsigned)nj,
                        (unsigned)BSYNC_MAX_JOINTS);
    }
    joints = calloc(nj ? nj : 1, sizeof *joints);
    if (!joints) {
        free(in);
        return imp_fail(c->err, BSYNC_OUT_OF_MEMORY, c->file, "out of memory");
    }
    /* the root node: unit scale and fold */
    double rt[3], rr[4], rs[3];
    decompose(sc->mRootNode, rt, rr, rs);
    c->fold = !in[0];
    c->u = 1.0;
    if (c->fold) {
        c->u = (rs[0] + rs[1] + rs[2]) / 3.0;
        if (!(c->u > 0) || !isfinite(c->u)) c->u = 1.0;
        if (fabs(rs[0] - c->u) > 1e-4 * c->u || fabs(rs[1] - c->u) > 1e-4 * c->u || fabs(rs[2] - c->u) > 1e-4 * c->u)
            bsync_asset_note(c->asset, "root node scale %g %g %g is not uniform: translations scaled by the mean %g",
                             rs[0], rs[1], rs[2], c->u);
        memcpy(c->ft, rt, sizeof rt);
        memcpy(c->fr, rr, sizeof rr);
    }
    double fbx_unit;
    if (meta_double(sc->mMetaData, "UnitScaleFactor", &fbx_unit) && fbx_unit > 0 && isfinite(fbx_unit)) {
        c->u *= fbx_unit / 100.0;
        bsync_asset_note(c->asset, "FBX UnitScaleFactor %g cm per unit: translations scaled by %g", fbx_unit,
                         fbx_unit / 100.0);
    }
    double up;
    if (meta_double(sc->mMetaData, "UpAxis", &up) && up != 1.0)
        bsync_asset_note(c->asset, "FBX UpAxis is %g (not Y): not converted", up);
    if (c->u != 1.0) bsync_asset_note(c->asset, "unit scale %g applied to translations", c->u);
    uint32_t k = 0, cut = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        if (!in[i]) continue;
        const struct aiNode* nd = c->nodes[i].node;
        imp_joint* j = &joints[k];
        int32_t p = c->nodes[i].parent;
        j->parent = p >= 0 && in[p] ? c->nodes[p].joint : BSYNC_NO_PARENT;
        cut += (uint32_t)imp_copy_name(j->name, nd->mName.data, nd->mName.length);
        decompose(nd, j->t, j->r, j->s);
        int top = p == 0 && !in[0];
        fix_translation(c, top, j->t);
        fix_rotation(c, top, j->r);
        c->nodes[i].joint = (int32_t)k++;
    }
    if (cut) bsync_asset_note(c->asset, "%u joint names longer than 63 bytes were shortened", (unsigned)cut);
    uint32_t dup = imp_unique_joint_names(joints, nj);
    if (dup) bsync_asset_note(c->asset, "%u duplicate or empty joint names got a #<index> suffix", (unsigned)dup);
    r = imp_build_skeleton(joints, nj, c->file, c->asset, c->err);
    free(joints);
    free(in);
    return r;
}

/* One key array (vector or quaternion keys) into a malloc'd double track. Returns -1 on error. */
static int read_keys(as_ctx* c, const imp_clip* clip, const char* jname, const char* what, unsigned count,
                     const struct aiVectorKey* vk, const struct aiQuatKey* qk, double tps, double** ot, double** ov,
                     uint32_t* on, uint32_t* dropped) {
    int nc = qk ? 4 : 3;
    double* t = malloc((size_t)(count ? count : 1) * sizeof *t);
    double* v = malloc((size_t)(count ? count : 1) * (size_t)nc * sizeof *v);
    if (!t || !v) {
        free(t);
        free(v);
        imp_fail(c->err, BSYNC_OUT_OF_MEMORY, c->file, "out of memory");
        return -1;
    }
    uint32_t n = 0;
    for (unsigned k = 0; k < count; k++) {
        double tk = (qk ? qk[k].mTime : vk[k].mTime) / tps;
        if (!(tk >= 0) || !isfinite(tk)) {
            imp_fail(c->err, isfinite(tk) ? BSYNC_KEY_OUT_OF_RANGE : BSYNC_NOT_FINITE, c->file,
                     "clip '%s', joint '%s': %s key %u time %g s is negative or not finite", clip->name, jname, what,
                     (unsigned)k, tk);
            free(t);
            free(v);
            return -1;
        }
        if (n > 0 && !(tk > t[n - 1])) {
            (*dropped)++;
            continue;
        }
        t[n] = tk;
        double* x = v + (size_t)n * (size_t)nc;
        if (qk) {
            x[0] = qk[k].mValue.x;
            x[1] = qk[k].mValue.y;
            x[2] = qk[k].mValue.z;
            x[3] = qk[k].mValue.w;
            if (!(x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + x[3] * x[3] > 1e-12)) {
                imp_fail(c->err, BSYNC_BAD_ROTATION, c->file, "clip '%s', joint '%s': rotation key %u is zero",
                         clip->name, jname, (unsigned)k);
                free(t);
                free(v);
                return -1;
            }
        } else {
            x[0] = vk[k].mValue.x;
            x[1] = vk[k].mValue.y;
            x[2] = vk[k].mValue.z;
        }
        n++;
    }
    *ot = t;
    *ov = v;
    *on = n;
    return 0;
}

static bsync_result read_animation(as_ctx* c, const struct aiAnimation* an, const char* name) {
    imp_clip clip;
    memset(&clip, 0, sizeof clip);
    imp_copy_name(clip.name, name, strlen(name));
    double tps = an->mTicksPerSecond > 0 && isfinite(an->mTicksPerSecond) ? an->mTicksPerSecond : 25.0;
    uint32_t nj = bsync_skeleton_joint_count(c->asset->skeleton);
    unsigned char* seen = calloc(nj ? nj : 1, 1);
    if (!seen) return imp_fail(c->err, BSYNC_OUT_OF_MEMORY, c->file, "out of memory");
    uint32_t dropped = 0, dups = 0;
    bsync_result r = BSYNC_OK;
    for (unsigned ci = 0; an->mChannels && ci < an->mNumChannels && r == BSYNC_OK; ci++) {
        const struct aiNodeAnim* ch = an->mChannels[ci];
        if (!ch) continue;
        int32_t ni = find_node(c, &ch->mNodeName);
        if (ni < 0 || c->nodes[ni].joint < 0) continue; /* counted with the skeleton's notes */
        uint32_t joint = (uint32_t)c->nodes[ni].joint;
        if (seen[joint]) {
            dups++;
            continue;
        }
        seen[joint] = 1;
        int top = c->nodes[ni].parent == 0 && c->fold;
        const char* jname = bsync_skeleton_joint_name(c->asset->skeleton, joint);
        for (int kind = 0; kind < 3 && r == BSYNC_OK; kind++) {
            unsigned count = kind == 0 ? ch->mNumPositionKeys : kind == 1 ? ch->mNumRotationKeys : ch->mNumScalingKeys;
            const void* keys = kind == 0 ? (const void*)ch->mPositionKeys
                               : kind == 1 ? (const void*)ch->mRotationKeys
                                           : (const void*)ch->mScalingKeys;
            if (count == 0 || !keys) continue;
            double *t, *v;
            uint32_t n;
            if (read_keys(c, &clip, jname, kind == 0 ? "position" : kind == 1 ? "rotation" : "scale", count,
                          kind == 1 ? NULL : (const struct aiVectorKey*)keys,
                          kind == 1 ? (const struct aiQuatKey*)keys : NULL, tps, &t, &v, &n, &dropped)) {
                r = c->err ? c->err->code : BSYNC_PARSE_ERROR;
                break;
            }
            for (uint32_t k = 0; k < n; k++) {
                if (kind == 0) fix_translation(c, top, v + 3 * (size_t)k);
                else if (kind == 1) {
                    imp_quat_normalize(v + 4 * (size_t)k);
                    fix_rotation(c, top, v + 4 * (size_t)k);
                }
            }
            if (kind == 1) imp_quats_continuous(v, n);
            bsync_track_kind tk = kind == 0   ? BSYNC_TRACK_TRANSLATION
                                  : kind == 1 ? BSYNC_TRACK_ROTATION
                                              : BSYNC_TRACK_SCALE;
            if (!imp_clip_add_track(&clip, joint, tk, n, t, v, 0))
                r = imp_fail(c->err, BSYNC_OUT_OF_MEMORY, c->file, "out of memory");
        }
    }
    if (r == BSYNC_OK) r = imp_build_clip(&clip, c->file, c->asset, c->err);
    if (r == BSYNC_OK) {
        if (dropped)
            bsync_asset_note(c->asset, "clip '%s': %u keys not after the previous one dropped", clip.name,
                             (unsigned)dropped);
        if (dups)
            bsync_asset_note(c->asset, "clip '%s': %u duplicate channels (same node) ignored", clip.name,
                             (unsigned)dups);
        if (clip.track_count == 0)
            bsync_asset_note(c->asset, "clip '%s' has no joint tracks (it plays the rest pose)", clip.name);
    }
    free(seen);
    imp_clip_free(&clip);
    return r;
}

bsync_result bsync_assimp_import(const char* path, const bsync_import_options* o, bsync_asset* out,
                                 bsync_error* err) {
    unsigned char* data;
    size_t size;
    bsync_result r = imp_read_input(o, path, out, &data, &size, err);
    if (r != BSYNC_OK) return r;
    const char* file = imp_basename(path);
    if (size == 0 || size > 0x7FFFFFFFu) { /* assimp asserts (aborts) on an empty buffer */
        free(data);
        return imp_fail(err, BSYNC_PARSE_ERROR, file,
                        "assimp could not read it: the file is %s (or convert to glTF with Blender or FBX2glTF)",
                        size == 0 ? "empty" : "larger than 2 GiB");
    }
    size_t pl = strlen(path);
    const char* hint = pl >= 4 ? path + pl - 3 : "";
    int is_fbx = (hint[0] | 0x20) == 'f';
    struct aiPropertyStore* props = aiCreatePropertyStore();
    if (props) aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, 0);
    const struct aiScene* sc =
        aiImportFileFromMemoryWithProperties((const char*)data, (unsigned int)size, 0, hint, props);
    if (props) aiReleasePropertyStore(props);
    free(data);
    if (!sc || !sc->mRootNode) {
        r = imp_fail(err, BSYNC_PARSE_ERROR, file, "assimp could not read it: %s (or convert to glTF with Blender or FBX2glTF)",
                     aiGetErrorString());
        if (sc) aiReleaseImport(sc);
        return r;
    }
    as_ctx c;
    memset(&c, 0, sizeof c);
    c.file = file;
    c.err = err;
    c.asset = out;
    snprintf(out->source, sizeof out->source, "%.120s: %s via assimp %u.%u (metres, Y up)", file,
             is_fbx ? "FBX" : "Collada", aiGetVersionMajor(), aiGetVersionMinor());
    r = collect_nodes(&c, sc);
    if (r == BSYNC_OK) r = build_skeleton(&c, sc);
    for (unsigned a = 0; r == BSYNC_OK && sc->mAnimations && a < sc->mNumAnimations; a++) {
        const struct aiAnimation* an = sc->mAnimations[a];
        if (!an) continue;
        char name[BSYNC_MAX_NAME];
        if (an->mName.length > 0) imp_copy_name(name, an->mName.data, an->mName.length);
        else snprintf(name, sizeof name, "animation%u", a);
        if (imp_clip_wanted(o, name)) r = read_animation(&c, an, name);
    }
    free(c.nodes);
    aiReleaseImport(sc);
    if (r != BSYNC_OK) bsync_asset_destroy(out);
    return r;
}
