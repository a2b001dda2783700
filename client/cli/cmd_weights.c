/* cmd_weights.c — `blendsync weights CONFIG [--node NAME] [--set PARAM=VALUE ...] [--json]`:
 * a blend node's child weights (and flattened motion weights) for given parameter values.
 *
 * Values are decimal text converted exactly (bsync_fx_parse). The spec's policy for values that are
 * not Q16.16 numbers: NaN -> 0; +-inf and values beyond the range saturate to +-32767.99998 (the
 * blend space then clamps 1D values to the end thresholds and pulls 2D points back towards the
 * layout); each such change is noted on stderr. Exit: 0 ok, 2 error (message on stderr, nothing on
 * stdout). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "blendsync/blend_tree.h"
#include "blendsync/fixed.h"
#include "blendsync/io/config.h"
#include "cli_json.h"
#include "commands.h"

static void usage(FILE* f) {
    fprintf(f,
            "usage: blendsync weights CONFIG [--node NAME] [--set PARAM=VALUE ...] [--json]\n"
            "\n"
            "Prints the weights of a blend node's children for the given parameter values, and the\n"
            "flattened weight of every motion under it when the node nests other nodes.\n"
            "\n"
            "  CONFIG            a graph configuration file (JSON)\n"
            "  --node NAME       the node to evaluate (default: the config's root)\n"
            "  --set PARAM=VALUE a parameter value as a decimal (exactly converted to Q16.16);\n"
            "                    parameters not set take their defaults. nan becomes 0; inf, -inf and\n"
            "                    values beyond +-32767.99998 saturate (a note says so on stderr)\n"
            "  --json            print one JSON object instead of a table\n"
            "  --help            this text\n"
            "\n"
            "Exit status: 0 success, 2 error.\n");
}

static const char* fmt(fix16_t v, char* buf) {
    bsync_fx_format(v, buf, 24);
    return buf;
}

/* Parse VALUE per the policy above; 0 on success (note printed when the value changed), -1 if it
 * is not a number. */
static int parse_value(const char* param, const char* text, fix16_t* out) {
    const char* t = text;
    int neg = 0;
    if (*t == '+' || *t == '-') {
        neg = *t == '-';
        t++;
    }
    if (!strcasecmp(t, "nan")) {
        *out = 0;
        fprintf(stderr, "note: %s=%s is not a number; using 0\n", param, text);
        return 0;
    }
    if (!strcasecmp(t, "inf") || !strcasecmp(t, "infinity")) {
        *out = neg ? BSYNC_FX_MIN : BSYNC_FX_MAX;
        fprintf(stderr,
                "note: %s=%s saturates to %s32767.99998 (1D blend spaces clamp it to the end threshold, 2D ones "
                "pull the point back towards the layout)\n",
                param, text, neg ? "-" : "");
        return 0;
    }
    const char* num = text[0] == '+' ? text + 1 : text; /* JSON has no '+'; accept it here */
    bsync_result r = bsync_fx_parse(num, strlen(num), out);
    if (r == BSYNC_OVERFLOW) {
        *out = neg ? BSYNC_FX_MIN : BSYNC_FX_MAX;
        fprintf(stderr,
                "note: %s=%s is beyond Q16.16 and saturates to %s32767.99998 (1D blend spaces clamp it to the end "
                "threshold, 2D ones pull the point back towards the layout)\n",
                param, text, neg ? "-" : "");
        return 0;
    }
    return r == BSYNC_OK ? 0 : -1;
}

/* Mark every motion reachable from `node`. */
static void reach(const bsync_blend_tree* t, uint32_t node, unsigned char* node_seen, unsigned char* motion_seen) {
    if (node_seen[node]) return;
    node_seen[node] = 1;
    uint32_t n = bsync_blend_tree_node_child_count(t, node);
    for (uint32_t c = 0; c < n; c++) {
        bsync_blend_child_ref ref = bsync_blend_tree_node_child(t, node, c);
        if (ref.kind == BSYNC_CHILD_NODE) reach(t, ref.index, node_seen, motion_seen);
        else motion_seen[ref.index] = 1;
    }
}

int bsync_cmd_weights(int argc, char** argv) {
    const char* config = NULL;
    const char* node_name = NULL;
    int json = 0;
    const char* sets[BSYNC_MAX_PARAMETERS * 2];
    int set_count = 0;
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--node") || !strcmp(a, "--set")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "blendsync weights: %s needs a value\n", a);
                return 2;
            }
            if (!strcmp(a, "--node")) {
                node_name = argv[++i];
            } else {
                if (set_count == (int)(sizeof sets / sizeof sets[0])) {
                    fprintf(stderr, "blendsync weights: too many --set options\n");
                    return 2;
                }
                sets[set_count++] = argv[++i];
            }
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "blendsync weights: unknown option '%s'\n", a);
            return 2;
        } else if (!config) {
            config = a;
        } else {
            fprintf(stderr, "blendsync weights: one CONFIG file only ('%s' is extra)\n", a);
            return 2;
        }
    }
    if (!config) {
        fprintf(stderr, "blendsync weights: missing CONFIG\n");
        usage(stderr);
        return 2;
    }

    static bsync_blend_diagnostics diags[BSYNC_MAX_BLEND_NODES];
    bsync_blend_tree* tree = NULL;
    bsync_error err;
    if (bsync_config_load(config, NULL, &tree, diags, &err) != BSYNC_OK) {
        fprintf(stderr, "blendsync weights: %s\n", err.message);
        return 2;
    }
    int status = 2;
    const uint32_t np = bsync_blend_tree_parameter_count(tree), nm = bsync_blend_tree_motion_count(tree);
    const uint32_t nn = bsync_blend_tree_node_count(tree);
    fix16_t params[BSYNC_MAX_PARAMETERS];
    unsigned char was_set[BSYNC_MAX_PARAMETERS] = {0};
    static fix16_t leaves[BSYNC_MAX_MOTIONS];
    fix16_t weights[BSYNC_MAX_BLEND_CHILDREN];
    static unsigned char motion_seen[BSYNC_MAX_MOTIONS];
    unsigned char node_seen[BSYNC_MAX_BLEND_NODES] = {0};
    for (uint32_t i = 0; i < np; i++) params[i] = bsync_blend_tree_parameter_default(tree, i);

    uint32_t node = bsync_blend_tree_root(tree);
    if (node_name && bsync_blend_tree_find_node(tree, node_name, &node) != BSYNC_OK) {
        fprintf(stderr, "blendsync weights: %s: no node named '%s' (nodes:", config, node_name);
        for (uint32_t i = 0; i < nn; i++) fprintf(stderr, "%s %s", i ? "," : "", bsync_blend_tree_node_name(tree, i));
        fprintf(stderr, ")\n");
        goto done;
    }
    for (int s = 0; s < set_count; s++) {
        const char* eq = strchr(sets[s], '=');
        char pname[BSYNC_MAX_NAME + 1];
        size_t plen = eq ? (size_t)(eq - sets[s]) : 0;
        if (!eq || plen == 0 || plen >= sizeof pname) {
            fprintf(stderr, "blendsync weights: --set needs PARAM=VALUE, got '%s'\n", sets[s]);
            goto done;
        }
        memcpy(pname, sets[s], plen);
        pname[plen] = '\0';
        uint32_t pi;
        if (bsync_blend_tree_find_parameter(tree, pname, &pi) != BSYNC_OK) {
            fprintf(stderr, "blendsync weights: %s: no parameter named '%s' (parameters:", config, pname);
            for (uint32_t i = 0; i < np; i++)
                fprintf(stderr, "%s %s", i ? "," : "", bsync_blend_tree_parameter_name(tree, i));
            fprintf(stderr, "%s)\n", np ? "" : " none");
            goto done;
        }
        if (was_set[pi]) {
            fprintf(stderr, "blendsync weights: parameter '%s' is set twice\n", pname);
            goto done;
        }
        was_set[pi] = 1;
        if (parse_value(pname, eq + 1, &params[pi]) != 0) {
            fprintf(stderr, "blendsync weights: --set %s: '%s' is not a number\n", pname, eq + 1);
            goto done;
        }
    }

    for (uint32_t i = 0; i < nn; i++)
        for (uint32_t w = 0; w < diags[i].count; w++) {
            const bsync_blend_warning* wr = &diags[i].warnings[w];
            const char* na = "", *nb = "";
            bsync_blend_child_ref ca = bsync_blend_tree_node_child(tree, i, wr->child_a);
            bsync_blend_child_ref cb = bsync_blend_tree_node_child(tree, i, wr->child_b);
            na = ca.kind == BSYNC_CHILD_NODE ? bsync_blend_tree_node_name(tree, ca.index) : bsync_blend_tree_motion_name(tree, ca.index);
            nb = cb.kind == BSYNC_CHILD_NODE ? bsync_blend_tree_node_name(tree, cb.index) : bsync_blend_tree_motion_name(tree, cb.index);
            if (wr->child_a == wr->child_b)
                fprintf(stderr, "warning: %s: node %s: %s (child %u: %s)\n", config, bsync_blend_tree_node_name(tree, i),
                        bsync_blend_warning_string(wr->code), (unsigned)wr->child_a, na);
            else
                fprintf(stderr, "warning: %s: node %s: %s (children %u and %u: %s, %s)\n", config,
                        bsync_blend_tree_node_name(tree, i), bsync_blend_warning_string(wr->code),
                        (unsigned)wr->child_a, (unsigned)wr->child_b, na, nb);
        }

    bsync_result r = bsync_blend_tree_eval_node(tree, node, params, weights);
    if (r == BSYNC_OK) r = bsync_blend_tree_eval_leaves(tree, node, params, leaves);
    if (r != BSYNC_OK) {
        fprintf(stderr, "blendsync weights: evaluation failed: %s\n", bsync_result_string(r));
        goto done;
    }
    reach(tree, node, node_seen, motion_seen);
    const uint32_t nc = bsync_blend_tree_node_child_count(tree, node);
    int nests = 0;
    for (uint32_t c = 0; c < nc; c++)
        if (bsync_blend_tree_node_child(tree, node, c).kind == BSYNC_CHILD_NODE) nests = 1;
    char buf[24];
    const char* nname = bsync_blend_tree_node_name(tree, node);

    if (json) {
        cJSON* o = cJSON_CreateObject();
        bsync_cli_json_str(o, "node", nname);
        cJSON* list = bsync_cli_json_add(o, "weights", cJSON_CreateArray());
        for (uint32_t c = 0; c < nc; c++) {
            bsync_blend_child_ref ref = bsync_blend_tree_node_child(tree, node, c);
            cJSON* e = bsync_cli_json_add(list, NULL, cJSON_CreateObject());
            bsync_cli_json_str(e, "motion", ref.kind == BSYNC_CHILD_NODE ? bsync_blend_tree_node_name(tree, ref.index)
                                                                         : bsync_blend_tree_motion_name(tree, ref.index));
            bsync_cli_json_fx(e, "weight", weights[c]);
            bsync_cli_json_num(e, "raw", "%ld", (long)weights[c]);
        }
        cJSON* flat = bsync_cli_json_add(o, "leaves", cJSON_CreateObject());
        for (uint32_t m = 0; m < nm; m++)
            if (motion_seen[m]) bsync_cli_json_fx(flat, bsync_blend_tree_motion_name(tree, m), leaves[m]);
        int bad = bsync_cli_json_print(stdout, o, 0);
        cJSON_Delete(o);
        if (bad) goto done;
    } else {
        const bsync_blend_space* space = bsync_blend_tree_node_space(tree, node);
        printf("node %s (%s)", nname, bsync_blend_type_name(bsync_blend_space_type(space)));
        uint32_t pc = bsync_blend_tree_node_param_count(tree, node);
        for (uint32_t k = 0; k < pc; k++) {
            uint32_t pi = bsync_blend_tree_node_param(tree, node, k);
            printf("%s%s=%s", k ? " " : ", ", bsync_blend_tree_parameter_name(tree, pi), fmt(params[pi], buf));
        }
        printf("\n  %-24s %12s %11s\n", "motion", "weight", "raw");
        for (uint32_t c = 0; c < nc; c++) {
            bsync_blend_child_ref ref = bsync_blend_tree_node_child(tree, node, c);
            char label[BSYNC_MAX_NAME + 8];
            if (ref.kind == BSYNC_CHILD_NODE) snprintf(label, sizeof label, "%s (node)", bsync_blend_tree_node_name(tree, ref.index));
            else snprintf(label, sizeof label, "%s", bsync_blend_tree_motion_name(tree, ref.index));
            printf("  %-24s %12s %11ld\n", label, fmt(weights[c], buf), (long)weights[c]);
        }
        if (nests) {
            printf("leaves (flattened)\n  %-24s %12s %11s\n", "motion", "weight", "raw");
            for (uint32_t m = 0; m < nm; m++)
                if (motion_seen[m])
                    printf("  %-24s %12s %11ld\n", bsync_blend_tree_motion_name(tree, m), fmt(leaves[m], buf), (long)leaves[m]);
        }
    }
    status = 0;
done:
    bsync_blend_tree_destroy(tree);
    return status;
}
