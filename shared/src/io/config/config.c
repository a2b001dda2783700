/* config.c — JSON graph configuration -> bsync_blend_tree, numbers converted exactly from their text
 * (strict JSON with every number's text kept: json_exact.h; a number is converted from its span with
 * bsync_fx_parse when the parser uses it). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "blendsync/fixed.h"
#include "blendsync/io/config.h"
#include "file_internal.h"
#include "graph_config_internal.h"
#include "json_exact.h"

typedef bsync_json_span span;

typedef struct node_build {
    bsync_blend_child_ref children[BSYNC_MAX_BLEND_CHILDREN];
    uint32_t params[BSYNC_MAX_BLEND_CHILDREN];
    fix16_t thresholds[BSYNC_MAX_BLEND_CHILDREN];
    bsync_vec2 positions[BSYNC_MAX_BLEND_CHILDREN];
} node_build;

typedef struct ctx {
    bsync_json_where w; /* file, err, the JSON path */
    const char* text;
    span* spans;
    size_t span_count;
    /* the tree being described */
    const char* param_names[BSYNC_MAX_PARAMETERS];
    fix16_t param_defaults[BSYNC_MAX_PARAMETERS];
    uint32_t param_count;
    const char* motion_names[BSYNC_MAX_MOTIONS];
    uint32_t motion_count;
    const char* node_names[BSYNC_MAX_BLEND_NODES];
    const cJSON* node_items[BSYNC_MAX_BLEND_NODES];
    uint32_t node_count;
    bsync_blend_node_desc nodes[BSYNC_MAX_BLEND_NODES];
    node_build* builds; /* node_count entries */
    bsync_config_graph_fields* g; /* the graph fields */
    const cJSON* pair_items[BSYNC_MAX_PARAMETERS]; /* "pair" fields, resolved after all parameters */
    const char* sync_groups[BSYNC_MAX_BLEND_NODES]; /* "sync_group" names, in order of first use */
    uint32_t sync_group_count;
} ctx;

static const char k_range_text[] = "-32767.99998 to 32767.99998";

/* ---------------------------------------------------------------- messages */






/* A list of names "a, b, c" (truncated with ", ..." beyond about 200 bytes). */
static void name_list(char* buf, size_t cap, const char* const* names, uint32_t count) {
    size_t n = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < count; i++) {
        if (n > 200) {
            snprintf(buf + n, cap - n, ", ...");
            return;
        }
        int w = snprintf(buf + n, cap - n, "%s%s", i ? ", " : "", names[i]);
        if (w < 0 || (size_t)w >= cap - n) return;
        n += (size_t)w;
    }
}

/* ---------------------------------------------------------------- typed getters */

static bsync_result get_number(ctx* c, const cJSON* item, fix16_t* out, const char* expected) {
    if (!cJSON_IsNumber(item)) return bsync_json_fail(&c->w, "expected %s", expected);
    const span* s = &c->spans[item->valueint];
    bsync_result r = bsync_fx_parse(c->text + s->off, s->len, out);
    if (r == BSYNC_OVERFLOW)
        return bsync_json_fail(&c->w, "%.*s%s is outside the fixed-point range (%s)", (int)(s->len > 40 ? 40 : s->len),
                    c->text + s->off, s->len > 40 ? "..." : "", k_range_text);
    if (r != BSYNC_OK) return bsync_json_fail(&c->w, "invalid number"); /* the lexer already refused these */
    return BSYNC_OK;
}

/* An integer written as digits (optional '-', no fraction or exponent) in [lo, hi] (the path is current). */
static bsync_result get_integer(ctx* c, const cJSON* item, int64_t lo, int64_t hi, int64_t* out, const char* expected) {
    if (!cJSON_IsNumber(item)) return bsync_json_fail(&c->w, "expected %s", expected);
    const span* s = &c->spans[item->valueint];
    const char* t = c->text + s->off;
    size_t i = 0;
    const int neg = s->len > 0 && t[0] == '-';
    if (neg) i = 1;
    if (i >= s->len || s->len - i > 12) return bsync_json_fail(&c->w, "expected %s", expected);
    int64_t v = 0;
    for (; i < s->len; i++) {
        if (t[i] < '0' || t[i] > '9') return bsync_json_fail(&c->w, "expected %s", expected);
        v = v * 10 + (t[i] - '0');
    }
    if (neg) v = -v;
    if (v < lo || v > hi) return bsync_json_fail(&c->w, "expected %s", expected);
    *out = v;
    return BSYNC_OK;
}

static int valid_name(const char* s) {
    size_t n = strlen(s);
    return n >= 1 && n < BSYNC_MAX_NAME;
}

static bsync_result check_name(ctx* c, const char* s, const char* what) {
    if (!valid_name(s))
        return bsync_json_fail(&c->w, "%s name must be 1 to %d bytes long", what, BSYNC_MAX_NAME - 1);
    return BSYNC_OK;
}




static bsync_result find_parameter(ctx* c, const cJSON* item, uint32_t* out) {
    if (!cJSON_IsString(item)) return bsync_json_fail(&c->w, "expected a string (a parameter name)");
    for (uint32_t i = 0; i < c->param_count; i++)
        if (!strcmp(c->param_names[i], item->valuestring)) {
            *out = i;
            return BSYNC_OK;
        }
    char q[80], list[300];
    if (c->param_count == 0) return bsync_json_fail(&c->w, "unknown parameter %s (no parameters are declared)", bsync_json_quoted(item->valuestring, q, sizeof q));
    name_list(list, sizeof list, c->param_names, c->param_count);
    return bsync_json_fail(&c->w, "unknown parameter %s (declared: %s)", bsync_json_quoted(item->valuestring, q, sizeof q), list);
}

/* ---------------------------------------------------------------- graph fields */

static const char* fx_text(fix16_t v, char* buf) {
    bsync_fx_format(v, buf, 24);
    return buf;
}

/* A string that must be one of `names` (NULL-terminated); *out = its index. */
static bsync_result get_enum(ctx* c, const cJSON* item, const char* const* names, int* out) {
    *out = -1; /* defined on every path: callers never read it after a failure, but Release gcc cannot see that */
    for (int i = 0; cJSON_IsString(item) && names[i]; i++)
        if (!strcmp(item->valuestring, names[i])) {
            *out = i;
            return BSYNC_OK;
        }
    char list[200];
    size_t n = 0;
    list[0] = '\0';
    for (int i = 0; names[i]; i++) n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", names[i]);
    if (!cJSON_IsString(item)) return bsync_json_fail(&c->w, "expected a string, one of: %s", list);
    char q[80];
    return bsync_json_fail(&c->w, "unknown value %s (valid: %s)", bsync_json_quoted(item->valuestring, q, sizeof q), list);
}

/* An optional number field with a lower bound; *out untouched when absent. `strict`: > lo, else >= lo. */
static bsync_result get_bounded(ctx* c, const cJSON* obj, const char* name, fix16_t lo, int strict, fix16_t* out,
                                const char* expected) {
    const cJSON* f = bsync_json_field(obj, name);
    if (!f) return BSYNC_OK;
    size_t o = bsync_json_path_push(&c->w, name);
    bsync_result r = get_number(c, f, out, expected);
    if (r != BSYNC_OK) return r;
    if (strict ? *out <= lo : *out < lo) return bsync_json_fail(&c->w, "expected %s", expected);
    bsync_json_path_pop(&c->w, o);
    return BSYNC_OK;
}

static bsync_result parse_curve(ctx* c, const cJSON* item, bsync_config_filter* f) {
    bsync_result r;
    size_t old = bsync_json_path_push(&c->w, "curve");
    const cJSON* keys = item;
    f->pre_wrap = f->post_wrap = BSYNC_CURVE_CLAMP;
    if (cJSON_IsObject(item)) {
        static const char* const allowed[] = {"keys", "pre_wrap", "post_wrap", NULL};
        if ((r = bsync_json_check_fields(&c->w, item, allowed, "a curve")) != BSYNC_OK) return r;
        if ((r = bsync_json_require(&c->w, item, "keys", &keys)) != BSYNC_OK) return r;
        static const char* const wraps[] = {"clamp", "loop", "pingpong", NULL};
        const char* wnames[2] = {"pre_wrap", "post_wrap"};
        bsync_curve_wrap* wout[2] = {&f->pre_wrap, &f->post_wrap};
        for (int w = 0; w < 2; w++) {
            const cJSON* wi = bsync_json_field(item, wnames[w]);
            if (!wi) continue;
            size_t o2 = bsync_json_path_push(&c->w, wnames[w]);
            int v;
            if ((r = get_enum(c, wi, wraps, &v)) != BSYNC_OK) return r;
            *wout[w] = (bsync_curve_wrap)v;
            bsync_json_path_pop(&c->w, o2);
        }
        bsync_json_path_push(&c->w, "keys");
    } else if (!cJSON_IsArray(item)) {
        return bsync_json_fail(&c->w, "expected an array of keys or an object {\"keys\": [...], \"pre_wrap\", \"post_wrap\"}");
    }
    int n = cJSON_IsArray(keys) ? cJSON_GetArraySize(keys) : 0;
    if (!cJSON_IsArray(keys) || n < 1 || n > BSYNC_MAX_CURVE_KEYS)
        return bsync_json_fail(&c->w, "expected an array of 1 to %d keys", BSYNC_MAX_CURVE_KEYS);
    f->keys = (bsync_curve_key*)calloc((size_t)n, sizeof(bsync_curve_key));
    if (!f->keys) {
        bsync_io_set_error(c->w.err, BSYNC_OUT_OF_MEMORY, "%s: out of memory", c->w.file);
        return BSYNC_OUT_OF_MEMORY;
    }
    f->has_curve = 1;
    static const char* const kfields[] = {"time", "value", "in_tangent", "out_tangent", "in_weight", "out_weight",
                                          "weighted_mode", "stepped", NULL};
    int k = 0;
    for (const cJSON* e = keys->child; e; e = e->next, k++) {
        size_t o3 = bsync_json_path_push_index(&c->w, k);
        if (!cJSON_IsObject(e)) return bsync_json_fail(&c->w, "expected an object (a key: {\"time\": t, \"value\": v, ...})");
        if ((r = bsync_json_check_fields(&c->w, e, kfields, "a curve key")) != BSYNC_OK) return r;
        bsync_curve_key* key = &f->keys[k];
        key->in_weight = key->out_weight = 21845; /* 1/3 */
        const cJSON* t;
        if ((r = bsync_json_require(&c->w, e, "time", &t)) != BSYNC_OK) return r;
        size_t o4 = bsync_json_path_push(&c->w, "time");
        if ((r = get_number(c, t, &key->time, "a number")) != BSYNC_OK) return r;
        for (int j = 0; j < k; j++)
            if (f->keys[j].time == key->time) {
                char tb[24];
                return bsync_json_fail(&c->w, "two keys at time %s (keys %d and %d)", fx_text(key->time, tb), j, k);
            }
        bsync_json_path_pop(&c->w, o4);
        const cJSON* v;
        if ((r = bsync_json_require(&c->w, e, "value", &v)) != BSYNC_OK) return r;
        o4 = bsync_json_path_push(&c->w, "value");
        if ((r = get_number(c, v, &key->value, "a number")) != BSYNC_OK) return r;
        bsync_json_path_pop(&c->w, o4);
        const char* tn[2] = {"in_tangent", "out_tangent"};
        fix16_t* tv[2] = {&key->in_tangent, &key->out_tangent};
        for (int j = 0; j < 2; j++) {
            const cJSON* x = bsync_json_field(e, tn[j]);
            if (!x) continue;
            o4 = bsync_json_path_push(&c->w, tn[j]);
            if ((r = get_number(c, x, tv[j], "a number")) != BSYNC_OK) return r;
            bsync_json_path_pop(&c->w, o4);
        }
        const char* wn[2] = {"in_weight", "out_weight"};
        fix16_t* wv[2] = {&key->in_weight, &key->out_weight};
        for (int j = 0; j < 2; j++) {
            const cJSON* x = bsync_json_field(e, wn[j]);
            if (!x) continue;
            o4 = bsync_json_path_push(&c->w, wn[j]);
            if ((r = get_number(c, x, wv[j], "a number from 0 to 1")) != BSYNC_OK) return r;
            if (*wv[j] < 0 || *wv[j] > BSYNC_FX_ONE) return bsync_json_fail(&c->w, "expected a number from 0 to 1");
            bsync_json_path_pop(&c->w, o4);
        }
        const cJSON* wm = bsync_json_field(e, "weighted_mode");
        if (wm) {
            o4 = bsync_json_path_push(&c->w, "weighted_mode");
            static const char* const modes[] = {"none", "in", "out", "both", NULL};
            int m;
            if ((r = get_enum(c, wm, modes, &m)) != BSYNC_OK) return r;
            if (m == 1 || m == 3) key->flags |= BSYNC_CURVE_IN_WEIGHTED;
            if (m == 2 || m == 3) key->flags |= BSYNC_CURVE_OUT_WEIGHTED;
            bsync_json_path_pop(&c->w, o4);
        }
        const cJSON* st = bsync_json_field(e, "stepped");
        if (st) {
            o4 = bsync_json_path_push(&c->w, "stepped");
            if (cJSON_IsBool(st)) {
                if (cJSON_IsTrue(st)) key->flags |= BSYNC_CURVE_IN_STEPPED | BSYNC_CURVE_OUT_STEPPED;
            } else {
                static const char* const sides[] = {"in", "out", "both", NULL};
                int m;
                if (!cJSON_IsString(st)) return bsync_json_fail(&c->w, "expected true, false, \"in\", \"out\" or \"both\"");
                if ((r = get_enum(c, st, sides, &m)) != BSYNC_OK) return r;
                if (m == 0 || m == 2) key->flags |= BSYNC_CURVE_IN_STEPPED;
                if (m == 1 || m == 2) key->flags |= BSYNC_CURVE_OUT_STEPPED;
            }
            bsync_json_path_pop(&c->w, o4);
        }
        bsync_json_path_pop(&c->w, o3);
    }
    f->key_count = (uint32_t)n;
    bsync_json_path_pop(&c->w, old);
    return BSYNC_OK;
}

/* The filter fields of parameter object p (its path is current). */
static bsync_result parse_filter(ctx* c, const cJSON* p, uint32_t index) {
    bsync_config_filter* f = &c->g->filters[index];
    bsync_result r;
    char b1[24], b2[24];
    if ((r = get_bounded(c, p, "dead_zone", 0, 0, &f->dead_zone, "a number >= 0")) != BSYNC_OK) return r;
    if ((r = get_bounded(c, p, "dead_zone_range", 0, 1, &f->dead_zone_range, "a number > 0")) != BSYNC_OK) return r;
    const fix16_t range = f->dead_zone_range ? f->dead_zone_range : BSYNC_FX_ONE;
    if (f->dead_zone >= range) {
        if (bsync_json_field(p, "dead_zone_range")) {
            bsync_json_path_push(&c->w, "dead_zone_range");
            return bsync_json_fail(&c->w, "must be greater than dead_zone (%s)", fx_text(f->dead_zone, b1));
        }
        bsync_json_path_push(&c->w, "dead_zone");
        return bsync_json_fail(&c->w, "must be less than dead_zone_range (%s: 1 when not given)", fx_text(range, b2));
    }
    const cJSON* cv = bsync_json_field(p, "curve");
    if (cv && (r = parse_curve(c, cv, f)) != BSYNC_OK) return r;
    if ((r = get_bounded(c, p, "smooth_time", 0, 0, &f->smooth_time, "a number >= 0 (seconds; 0 = no smoothing)")) !=
        BSYNC_OK)
        return r;
    if ((r = get_bounded(c, p, "max_speed", 0, 0, &f->max_speed, "a number >= 0 (units per second; 0 = unlimited)")) !=
        BSYNC_OK)
        return r;
    if (f->max_speed > 0 && f->smooth_time == 0) {
        bsync_json_path_push(&c->w, "max_speed");
        return bsync_json_fail(&c->w, "max_speed limits SmoothDamp: it needs smooth_time > 0");
    }
    c->pair_items[index] = bsync_json_field(p, "pair");
    return BSYNC_OK;
}

static int has_filter_fields(const cJSON* p) {
    static const char* const names[] = {"dead_zone", "dead_zone_range", "curve", "smooth_time", "max_speed", "pair", NULL};
    for (const char* const* n = names; *n; n++)
        if (bsync_json_field(p, *n)) return 1;
    return 0;
}

/* "pair": NAME on parameter i: NAME must be parameter i + 1, without filter fields of its own. The
 * current path is /parameters. */
static bsync_result resolve_pairs(ctx* c, const cJSON* params) {
    bsync_result r;
    for (uint32_t i = 0; i < c->param_count; i++) {
        const cJSON* item = c->pair_items[i];
        if (!item) continue;
        size_t o = bsync_json_path_push(&c->w, c->param_names[i]);
        bsync_json_path_push(&c->w, "pair");
        uint32_t j;
        if ((r = find_parameter(c, item, &j)) != BSYNC_OK) return r;
        char q1[80], q2[80];
        if (j == i) return bsync_json_fail(&c->w, "a parameter cannot be paired with itself");
        if (j != i + 1)
            return bsync_json_fail(&c->w, "the pair's second parameter %s must be declared right after %s",
                        bsync_json_quoted(c->param_names[j], q1, sizeof q1), bsync_json_quoted(c->param_names[i], q2, sizeof q2));
        bsync_json_path_pop(&c->w, o);
        const cJSON* partner = params->child;
        for (uint32_t k = 0; k < j && partner; k++) partner = partner->next;
        if (partner && has_filter_fields(partner)) {
            bsync_json_path_push(&c->w, c->param_names[j]);
            return bsync_json_fail(&c->w, "the second parameter of a pair takes its filters from %s: it cannot have dead_zone, "
                           "dead_zone_range, curve, smooth_time, max_speed or pair",
                        bsync_json_quoted(c->param_names[i], q2, sizeof q2));
        }
        c->g->filters[i].pair = 1;
    }
    return BSYNC_OK;
}

/* time_scale / cycle_offset of child k of node `node` (the child's path is current). */
static bsync_result parse_child_time(ctx* c, const cJSON* ch, uint32_t node, uint32_t k) {
    bsync_result r;
    const cJSON* ts = bsync_json_field(ch, "time_scale");
    if (ts) {
        size_t o = bsync_json_path_push(&c->w, "time_scale");
        fix16_t v;
        if ((r = get_number(c, ts, &v, "a number from 0.00098 (1/1024) to 1024")) != BSYNC_OK) return r;
        if (v < BSYNC_GRAPH_MIN_TIME_SCALE || v > BSYNC_GRAPH_MAX_TIME_SCALE)
            return bsync_json_fail(&c->w, "expected a number from 0.00098 (1/1024) to 1024");
        c->g->nodes[node].time_scales[k] = v;
        bsync_json_path_pop(&c->w, o);
    }
    const cJSON* co = bsync_json_field(ch, "cycle_offset");
    if (co) {
        size_t o = bsync_json_path_push(&c->w, "cycle_offset");
        fix16_t v;
        if ((r = get_number(c, co, &v, "a number from 0 to less than 1")) != BSYNC_OK) return r;
        if (v < 0 || v >= BSYNC_FX_ONE) return bsync_json_fail(&c->w, "expected a number from 0 to less than 1");
        c->g->nodes[node].cycle_offsets[k] = v;
        bsync_json_path_pop(&c->w, o);
    }
    return BSYNC_OK;
}

/* A string field's text, copied with a length check. */
static bsync_result get_string(ctx* c, const cJSON* item, char* out, size_t cap, const char* expected) {
    if (!cJSON_IsString(item) || item->valuestring[0] == '\0') return bsync_json_fail(&c->w, "expected %s", expected);
    if (strlen(item->valuestring) >= cap) return bsync_json_fail(&c->w, "too long (at most %u bytes)", (unsigned)(cap - 1));
    strcpy(out, item->valuestring);
    return BSYNC_OK;
}


/* "events": [{"name", "time" | "begin" + "end", "payload", "policy", "threshold"}, ...] of a clip (the
 * path is the clip's); times are checked against the clip's duration when it is bound (graph_config.c). */
static bsync_result parse_events(ctx* c, const cJSON* evs, bsync_config_clip* cl) {
    bsync_result r;
    size_t o = bsync_json_path_push(&c->w, "events");
    const int n = cJSON_IsArray(evs) ? cJSON_GetArraySize(evs) : -1;
    if (n < 0 || n > (int)BSYNC_GRAPH_MAX_ACTIONS)
        return bsync_json_fail(&c->w, "expected an array of at most %u events ({\"name\", \"time\"} or {\"name\", \"begin\", \"end\"})",
                               BSYNC_GRAPH_MAX_ACTIONS);
    if (n == 0) {
        bsync_json_path_pop(&c->w, o);
        return BSYNC_OK;
    }
    cl->events = (bsync_config_event*)calloc((size_t)n, sizeof(bsync_config_event));
    if (!cl->events) return bsync_json_fail(&c->w, "out of memory");
    static const char* const allowed[] = {"name", "time", "begin", "end", "payload", "policy", "threshold", NULL};
    int k = 0;
    for (const cJSON* ev = evs->child; ev; ev = ev->next, k++) {
        size_t o2 = bsync_json_path_push_index(&c->w, k);
        bsync_config_event* x = &cl->events[k];
        cl->event_count = (uint32_t)k + 1u;
        if (!cJSON_IsObject(ev)) return bsync_json_fail(&c->w, "expected an object ({\"name\", \"time\"} or {\"name\", \"begin\", \"end\"})");
        if ((r = bsync_json_check_fields(&c->w, ev, allowed, "an event")) != BSYNC_OK) return r;
        const cJSON* nm;
        if ((r = bsync_json_require(&c->w, ev, "name", &nm)) != BSYNC_OK) return r;
        size_t o3 = bsync_json_path_push(&c->w, "name");
        if ((r = get_string(c, nm, x->name, sizeof x->name, "a string (the event's name)")) != BSYNC_OK) return r;
        if ((r = check_name(c, x->name, "an event")) != BSYNC_OK) return r;
        bsync_json_path_pop(&c->w, o3);
        const cJSON* t = bsync_json_field(ev, "time");
        const cJSON* b = bsync_json_field(ev, "begin");
        const cJSON* en = bsync_json_field(ev, "end");
        if (t && (b || en)) return bsync_json_fail(&c->w, "an event has \"time\" (an instant) or \"begin\" and \"end\" (a range), not both");
        if (t) {
            x->kind = BSYNC_ACTION_EVENT;
            o3 = bsync_json_path_push(&c->w, "time");
            if ((r = get_number(c, t, &x->time, "a number (seconds)")) != BSYNC_OK) return r;
            bsync_json_path_pop(&c->w, o3);
        } else {
            if (!b || !en) return bsync_json_fail(&c->w, "an event needs \"time\" (an instant) or both \"begin\" and \"end\" (a range)");
            x->kind = BSYNC_ACTION_RANGE;
            o3 = bsync_json_path_push(&c->w, "begin");
            if ((r = get_number(c, b, &x->time, "a number (seconds)")) != BSYNC_OK) return r;
            bsync_json_path_pop(&c->w, o3);
            o3 = bsync_json_path_push(&c->w, "end");
            if ((r = get_number(c, en, &x->end, "a number (seconds)")) != BSYNC_OK) return r;
            if (x->end <= x->time) return bsync_json_fail(&c->w, "a range ends after it begins");
            bsync_json_path_pop(&c->w, o3);
        }
        const cJSON* pl = bsync_json_field(ev, "payload");
        if (pl) {
            o3 = bsync_json_path_push(&c->w, "payload");
            int64_t v;
            if ((r = get_integer(c, pl, INT32_MIN, INT32_MAX, &v, "an integer (32-bit)")) != BSYNC_OK) return r;
            x->payload = (int32_t)v;
            bsync_json_path_pop(&c->w, o3);
        }
        x->policy = BSYNC_ACTION_POLICY_WEIGHT;
        const cJSON* po = bsync_json_field(ev, "policy");
        if (po) {
            o3 = bsync_json_path_push(&c->w, "policy");
            if (cJSON_IsString(po) && !strcmp(po->valuestring, "weight")) x->policy = BSYNC_ACTION_POLICY_WEIGHT;
            else if (cJSON_IsString(po) && !strcmp(po->valuestring, "leader")) x->policy = BSYNC_ACTION_POLICY_LEADER;
            else if (cJSON_IsString(po) && !strcmp(po->valuestring, "always")) x->policy = BSYNC_ACTION_POLICY_ALWAYS;
            else return bsync_json_fail(&c->w, "expected \"weight\", \"leader\" or \"always\"");
            bsync_json_path_pop(&c->w, o3);
        }
        const cJSON* th = bsync_json_field(ev, "threshold");
        if (th) {
            o3 = bsync_json_path_push(&c->w, "threshold");
            if (x->policy != BSYNC_ACTION_POLICY_WEIGHT)
                return bsync_json_fail(&c->w, "only the \"weight\" policy takes a threshold");
            if ((r = get_number(c, th, &x->threshold, "a number in [0, 64]")) != BSYNC_OK) return r;
            if (x->threshold < 0 || x->threshold > 64 * BSYNC_FX_ONE) return bsync_json_fail(&c->w, "expected a number in [0, 64]");
            bsync_json_path_pop(&c->w, o3);
        }
        bsync_json_path_pop(&c->w, o2);
    }
    bsync_json_path_pop(&c->w, o);
    return BSYNC_OK;
}

static void free_curves(bsync_config_clip* cl) {
    for (uint32_t k = 0; cl->curves && k < cl->curve_count; k++) free(cl->curves[k].times);
    free(cl->curves);
    cl->curves = NULL;
    cl->curve_count = 0;
}

/* "curves": {"NAME": [[time, value], ...], ...} of a clip: times in seconds, strictly increasing
 * (checked against the clip's duration when it is bound, graph_config.c). */
static bsync_result parse_curves(ctx* c, const cJSON* cvs, bsync_config_clip* cl) {
    bsync_result r;
    size_t o = bsync_json_path_push(&c->w, "curves");
    const int n = cJSON_IsObject(cvs) ? cJSON_GetArraySize(cvs) : -1;
    if (n < 0 || n > (int)BSYNC_GRAPH_MAX_CURVES)
        return bsync_json_fail(&c->w, "expected an object of at most %u curves ({\"NAME\": [[time, value], ...]})",
                               BSYNC_GRAPH_MAX_CURVES);
    if (n == 0) {
        bsync_json_path_pop(&c->w, o);
        return BSYNC_OK;
    }
    cl->curves = (bsync_config_curve*)calloc((size_t)n, sizeof(bsync_config_curve));
    if (!cl->curves) return bsync_json_fail(&c->w, "out of memory");
    for (const cJSON* cv = cvs->child; cv; cv = cv->next) {
        size_t o2 = bsync_json_path_push(&c->w, cv->string);
        bsync_config_curve* x = &cl->curves[cl->curve_count++];
        if ((r = check_name(c, cv->string, "a curve")) != BSYNC_OK) return r;
        if (strlen(cv->string) >= sizeof x->name) return bsync_json_fail(&c->w, "a curve name has at most %d bytes", BSYNC_MAX_NAME - 1);
        strcpy(x->name, cv->string);
        for (const cJSON* d = cvs->child; d != cv; d = d->next)
            if (!strcmp(d->string, cv->string)) return bsync_json_fail(&c->w, "duplicate curve");
        const int k = cJSON_IsArray(cv) ? cJSON_GetArraySize(cv) : -1;
        if (k < 1 || k > (int)BSYNC_GRAPH_MAX_CURVE_KEYS)
            return bsync_json_fail(&c->w, "expected an array of 1 to %u keys [time, value]", BSYNC_GRAPH_MAX_CURVE_KEYS);
        x->times = (fix16_t*)calloc(2u * (size_t)k, sizeof(fix16_t));
        if (!x->times) return bsync_json_fail(&c->w, "out of memory");
        x->values = x->times + k;
        x->key_count = (uint32_t)k;
        int i = 0;
        for (const cJSON* key = cv->child; key; key = key->next, i++) {
            size_t o3 = bsync_json_path_push_index(&c->w, i);
            if (!cJSON_IsArray(key) || cJSON_GetArraySize(key) != 2)
                return bsync_json_fail(&c->w, "expected a key [time, value] (seconds, number)");
            size_t o4 = bsync_json_path_push_index(&c->w, 0);
            if ((r = get_number(c, key->child, &x->times[i], "a number (seconds)")) != BSYNC_OK) return r;
            if (x->times[i] < 0) return bsync_json_fail(&c->w, "a key time is >= 0");
            if (i > 0 && x->times[i] <= x->times[i - 1])
                return bsync_json_fail(&c->w, "key times increase strictly");
            bsync_json_path_pop(&c->w, o4);
            o4 = bsync_json_path_push_index(&c->w, 1);
            if ((r = get_number(c, key->child->next, &x->values[i], "a number")) != BSYNC_OK) return r;
            bsync_json_path_pop(&c->w, o4);
            bsync_json_path_pop(&c->w, o3);
        }
        bsync_json_path_pop(&c->w, o2);
    }
    bsync_json_path_pop(&c->w, o);
    return BSYNC_OK;
}

/* "markers": [{"name", "time"}, ...] of a clip (docs/actions.md "Sync markers"): times in seconds,
 * non-decreasing, no (name, time) twice (checked against the clip's duration when it is bound). */
static bsync_result parse_markers(ctx* c, const cJSON* mks, bsync_config_clip* cl) {
    bsync_result r;
    size_t o = bsync_json_path_push(&c->w, "markers");
    const int n = cJSON_IsArray(mks) ? cJSON_GetArraySize(mks) : -1;
    if (n < 0 || n > (int)BSYNC_GRAPH_MAX_MARKERS)
        return bsync_json_fail(&c->w, "expected an array of at most %u markers ({\"name\", \"time\"})", BSYNC_GRAPH_MAX_MARKERS);
    if (n == 0) {
        bsync_json_path_pop(&c->w, o);
        return BSYNC_OK;
    }
    cl->markers = (bsync_config_marker*)calloc((size_t)n, sizeof(bsync_config_marker));
    if (!cl->markers) return bsync_json_fail(&c->w, "out of memory");
    static const char* const allowed[] = {"name", "time", NULL};
    int k = 0;
    for (const cJSON* mk = mks->child; mk; mk = mk->next, k++) {
        size_t o2 = bsync_json_path_push_index(&c->w, k);
        bsync_config_marker* x = &cl->markers[k];
        cl->marker_count = (uint32_t)k + 1u;
        if (!cJSON_IsObject(mk)) return bsync_json_fail(&c->w, "expected an object ({\"name\", \"time\"})");
        if ((r = bsync_json_check_fields(&c->w, mk, allowed, "a marker")) != BSYNC_OK) return r;
        const cJSON* nm;
        if ((r = bsync_json_require(&c->w, mk, "name", &nm)) != BSYNC_OK) return r;
        size_t o3 = bsync_json_path_push(&c->w, "name");
        if ((r = get_string(c, nm, x->name, sizeof x->name, "a string (the marker's name)")) != BSYNC_OK) return r;
        if ((r = check_name(c, x->name, "a marker")) != BSYNC_OK) return r;
        bsync_json_path_pop(&c->w, o3);
        const cJSON* t;
        if ((r = bsync_json_require(&c->w, mk, "time", &t)) != BSYNC_OK) return r;
        o3 = bsync_json_path_push(&c->w, "time");
        if ((r = get_number(c, t, &x->time, "a number (seconds)")) != BSYNC_OK) return r;
        if (x->time < 0) return bsync_json_fail(&c->w, "a marker time is >= 0");
        if (k > 0 && x->time < cl->markers[k - 1].time)
            return bsync_json_fail(&c->w, "markers are sorted by time (this one is before marker %d)", k - 1);
        for (int i = 0; i < k; i++)
            if (cl->markers[i].time == x->time && !strcmp(cl->markers[i].name, x->name))
                return bsync_json_fail(&c->w, "duplicate marker (marker %d has the same name and time)", i);
        bsync_json_path_pop(&c->w, o3);
        bsync_json_path_pop(&c->w, o2);
    }
    bsync_json_path_pop(&c->w, o);
    return BSYNC_OK;
}

static void free_markers(bsync_config_clip* cl) {
    free(cl->markers);
    cl->markers = NULL;
    cl->marker_count = 0;
}

static bsync_result parse_clips(ctx* c, const cJSON* clips) {
    bsync_result r;
    size_t old = bsync_json_path_push(&c->w, "clips");
    if (!cJSON_IsObject(clips)) return bsync_json_fail(&c->w, "expected an object of clips ({\"MOTION\": {\"source\": FILE, ...}})");
    int n = cJSON_GetArraySize(clips);
    if (n > BSYNC_MAX_MOTIONS) return bsync_json_fail(&c->w, "too many clips (at most %d)", BSYNC_MAX_MOTIONS);
    if (n > 0) {
        c->g->clips = (bsync_config_clip*)calloc((size_t)n, sizeof(bsync_config_clip));
        if (!c->g->clips) {
            bsync_io_set_error(c->w.err, BSYNC_OUT_OF_MEMORY, "%s: out of memory", c->w.file);
            return BSYNC_OUT_OF_MEMORY;
        }
    }
    for (const cJSON* e = clips->child; e; e = e->next) {
        size_t o2 = bsync_json_path_push(&c->w, e->string);
        char q[80], list[300];
        for (const cJSON* g = clips->child; g != e; g = g->next)
            if (!strcmp(g->string, e->string)) return bsync_json_fail(&c->w, "duplicate clip");
        int is_motion = 0;
        for (uint32_t i = 0; i < c->motion_count; i++)
            if (!strcmp(c->motion_names[i], e->string)) is_motion = 1;
        if (!is_motion) {
            for (uint32_t i = 0; i < c->node_count; i++)
                if (!strcmp(c->node_names[i], e->string))
                    return bsync_json_fail(&c->w, "%s is a node, not a motion: only motions take clips", bsync_json_quoted(e->string, q, sizeof q));
            name_list(list, sizeof list, c->motion_names, c->motion_count);
            return bsync_json_fail(&c->w, "no motion named %s (motions: %s)", bsync_json_quoted(e->string, q, sizeof q), list);
        }
        if (!cJSON_IsObject(e)) return bsync_json_fail(&c->w, "expected an object ({\"source\": FILE, \"animation\": NAME, \"loop\": true})");
        /* "curves" is listed among a clip's fields only when the clip has curves: the message for
         * other clips is the one that existed before curves (a test pins it) */
        static const char* const allowed[] = {"source", "animation", "loop", "events", NULL};
        static const char* const allowed_curves[] = {"source", "animation", "loop", "events", "curves", NULL};
        static const char* const allowed_markers[] = {"source", "animation", "loop", "events", "curves", "markers", NULL};
        if ((r = bsync_json_check_fields(&c->w, e,
                                         bsync_json_field(e, "markers")  ? allowed_markers
                                         : bsync_json_field(e, "curves") ? allowed_curves
                                                                         : allowed,
                                         "a clip")) != BSYNC_OK)
            return r;
        bsync_config_clip* cl = &c->g->clips[c->g->clip_count];
        strcpy(cl->motion, e->string); /* motion names are < BSYNC_MAX_NAME (checked) */
        const cJSON* src;
        if ((r = bsync_json_require(&c->w, e, "source", &src)) != BSYNC_OK) return r;
        size_t o3 = bsync_json_path_push(&c->w, "source");
        if ((r = get_string(c, src, cl->source, sizeof cl->source, "a string (a file path)")) != BSYNC_OK) return r;
        if (!strncmp(cl->source, BSYNC_CONFIG_BUILTIN_PREFIX, strlen(BSYNC_CONFIG_BUILTIN_PREFIX)) &&
            strcmp(cl->source, BSYNC_CONFIG_BUILTIN_HUMANOID) != 0)
            return bsync_json_fail(&c->w, "unknown built-in source %s (built-ins: %s)", bsync_json_quoted(cl->source, q, sizeof q),
                        BSYNC_CONFIG_BUILTIN_HUMANOID);
        bsync_json_path_pop(&c->w, o3);
        strcpy(cl->animation, cl->motion);
        const cJSON* an = bsync_json_field(e, "animation");
        if (an) {
            o3 = bsync_json_path_push(&c->w, "animation");
            if ((r = get_string(c, an, cl->animation, sizeof cl->animation, "a string (an animation name)")) != BSYNC_OK)
                return r;
            cl->animation_given = 1;
            bsync_json_path_pop(&c->w, o3);
        }
        cl->loop = 1;
        const cJSON* lp = bsync_json_field(e, "loop");
        if (lp) {
            o3 = bsync_json_path_push(&c->w, "loop");
            if (!cJSON_IsBool(lp)) return bsync_json_fail(&c->w, "expected true or false");
            cl->loop = cJSON_IsTrue(lp) ? 1 : 0; /* false: a one-shot (docs/actions.md) */
            bsync_json_path_pop(&c->w, o3);
        }
        const cJSON* evs = bsync_json_field(e, "events");
        if (evs && (r = parse_events(c, evs, cl)) != BSYNC_OK) { /* this clip is not counted yet */
            free(cl->events);
            cl->events = NULL;
            cl->event_count = 0;
            return r;
        }
        const cJSON* cvs = bsync_json_field(e, "curves");
        if (cvs && (r = parse_curves(c, cvs, cl)) != BSYNC_OK) {
            free(cl->events);
            cl->events = NULL;
            cl->event_count = 0;
            free_curves(cl);
            return r;
        }
        const cJSON* mks = bsync_json_field(e, "markers");
        if (mks && (r = parse_markers(c, mks, cl)) != BSYNC_OK) {
            free(cl->events);
            cl->events = NULL;
            cl->event_count = 0;
            free_curves(cl);
            free_markers(cl);
            return r;
        }
        c->g->clip_count++;
        bsync_json_path_pop(&c->w, o2);
    }
    bsync_json_path_pop(&c->w, old);
    return BSYNC_OK;
}

/* "include_children": a bool (the path is current). */
static bsync_result get_bool(ctx* c, const cJSON* item, uint32_t* out) {
    if (!cJSON_IsBool(item)) return bsync_json_fail(&c->w, "expected true or false");
    *out = cJSON_IsTrue(item) ? 1u : 0u;
    return BSYNC_OK;
}

static bsync_result parse_mask(ctx* c, const cJSON* mask, bsync_config_layer* L) {
    bsync_result r;
    size_t old = bsync_json_path_push(&c->w, "mask");
    if (!cJSON_IsObject(mask))
        return bsync_json_fail(&c->w, "expected an object ({\"joints\": [NAME, ...], \"include_children\": true})");
    static const char* const allowed[] = {"joints", "include_children", NULL};
    if ((r = bsync_json_check_fields(&c->w, mask, allowed, "a layer mask")) != BSYNC_OK) return r;
    uint32_t incl = 1;
    const cJSON* ic = bsync_json_field(mask, "include_children");
    if (ic) {
        size_t o = bsync_json_path_push(&c->w, "include_children");
        if ((r = get_bool(c, ic, &incl)) != BSYNC_OK) return r;
        bsync_json_path_pop(&c->w, o);
    }
    const cJSON* joints;
    if ((r = bsync_json_require(&c->w, mask, "joints", &joints)) != BSYNC_OK) return r;
    size_t o2 = bsync_json_path_push(&c->w, "joints");
    int n = cJSON_IsArray(joints) ? cJSON_GetArraySize(joints) : -1;
    if (n < 0 || n > BSYNC_MAX_JOINTS)
        return bsync_json_fail(&c->w, "expected an array of at most %d joints (names, or {\"joint\": NAME, \"include_children\": "
                       "bool})", BSYNC_MAX_JOINTS);
    if (n > 0) {
        L->mask = (bsync_config_mask_joint*)calloc((size_t)n, sizeof(bsync_config_mask_joint));
        if (!L->mask) {
            bsync_io_set_error(c->w.err, BSYNC_OUT_OF_MEMORY, "%s: out of memory", c->w.file);
            return BSYNC_OUT_OF_MEMORY;
        }
    }
    int k = 0;
    for (const cJSON* e = joints->child; e; e = e->next, k++) {
        size_t o3 = bsync_json_path_push_index(&c->w, k);
        bsync_config_mask_joint* mj = &L->mask[k];
        mj->include_descendants = incl;
        const cJSON* name = e;
        if (cJSON_IsObject(e)) {
            static const char* const jallowed[] = {"joint", "include_children", NULL};
            if ((r = bsync_json_check_fields(&c->w, e, jallowed, "a mask joint")) != BSYNC_OK) return r;
            if ((r = bsync_json_require(&c->w, e, "joint", &name)) != BSYNC_OK) return r;
            const cJSON* jic = bsync_json_field(e, "include_children");
            if (jic) {
                size_t o4 = bsync_json_path_push(&c->w, "include_children");
                if ((r = get_bool(c, jic, &mj->include_descendants)) != BSYNC_OK) return r;
                bsync_json_path_pop(&c->w, o4);
            }
            bsync_json_path_push(&c->w, "joint");
        }
        if (!cJSON_IsString(name)) return bsync_json_fail(&c->w, "expected a joint name (a string)");
        if ((r = check_name(c, name->valuestring, "a joint")) != BSYNC_OK) return r;
        strcpy(mj->joint, name->valuestring);
        bsync_json_path_pop(&c->w, o3);
    }
    L->mask_count = (uint32_t)n;
    bsync_json_path_pop(&c->w, o2);
    bsync_json_path_pop(&c->w, old);
    return BSYNC_OK;
}

static bsync_result parse_layers(ctx* c, const cJSON* layers) {
    bsync_result r;
    size_t old = bsync_json_path_push(&c->w, "layers");
    int n = cJSON_IsArray(layers) ? cJSON_GetArraySize(layers) : -1;
    if (n < 0 || n > (int)BSYNC_GRAPH_MAX_LAYERS)
        return bsync_json_fail(&c->w, "expected an array of at most %u layers ({\"node\": NODE, \"mode\", \"weight\", \"mask\"})",
                    BSYNC_GRAPH_MAX_LAYERS);
    int k = 0;
    for (const cJSON* e = layers->child; e; e = e->next, k++) {
        size_t o2 = bsync_json_path_push_index(&c->w, k);
        bsync_config_layer* L = &c->g->layers[k];
        if (!cJSON_IsObject(e)) return bsync_json_fail(&c->w, "expected an object (a layer: {\"node\": NODE, ...})");
        static const char* const allowed[] = {"node", "mode", "weight", "weight_parameter", "mask", NULL};
        if ((r = bsync_json_check_fields(&c->w, e, allowed, "a layer")) != BSYNC_OK) return r;
        const cJSON* nd;
        if ((r = bsync_json_require(&c->w, e, "node", &nd)) != BSYNC_OK) return r;
        size_t o3 = bsync_json_path_push(&c->w, "node");
        if (!cJSON_IsString(nd)) return bsync_json_fail(&c->w, "expected a string (a node name)");
        L->node = UINT32_MAX;
        for (uint32_t i = 0; i < c->node_count; i++)
            if (!strcmp(c->node_names[i], nd->valuestring)) L->node = i;
        if (L->node == UINT32_MAX) {
            char q[80], list[300];
            name_list(list, sizeof list, c->node_names, c->node_count);
            return bsync_json_fail(&c->w, "no node named %s (nodes: %s)", bsync_json_quoted(nd->valuestring, q, sizeof q), list);
        }
        bsync_json_path_pop(&c->w, o3);
        L->mode = BSYNC_LAYER_OVERRIDE;
        const cJSON* md = bsync_json_field(e, "mode");
        if (md) {
            o3 = bsync_json_path_push(&c->w, "mode");
            static const char* const modes[] = {"override", "additive", NULL};
            int v;
            if ((r = get_enum(c, md, modes, &v)) != BSYNC_OK) return r;
            L->mode = v == 0 ? BSYNC_LAYER_OVERRIDE : BSYNC_LAYER_ADDITIVE;
            bsync_json_path_pop(&c->w, o3);
        }
        const cJSON* w = bsync_json_field(e, "weight");
        const cJSON* wp = bsync_json_field(e, "weight_parameter");
        L->weight_source = BSYNC_LAYER_WEIGHT_FIXED;
        L->weight = BSYNC_FX_ONE;
        if (w && wp) {
            bsync_json_path_push(&c->w, "weight_parameter");
            return bsync_json_fail(&c->w, "a layer has either \"weight\" or \"weight_parameter\", not both");
        }
        if (w) {
            o3 = bsync_json_path_push(&c->w, "weight");
            if ((r = get_number(c, w, &L->weight, "a number from 0 to 1")) != BSYNC_OK) return r;
            if (L->weight < 0 || L->weight > BSYNC_FX_ONE) return bsync_json_fail(&c->w, "expected a number from 0 to 1");
            bsync_json_path_pop(&c->w, o3);
        }
        if (wp) {
            o3 = bsync_json_path_push(&c->w, "weight_parameter");
            if ((r = find_parameter(c, wp, &L->weight_param)) != BSYNC_OK) return r;
            L->weight_source = BSYNC_LAYER_WEIGHT_PARAM;
            L->weight = 0;
            bsync_json_path_pop(&c->w, o3);
        }
        const cJSON* mk = bsync_json_field(e, "mask");
        if (mk && (r = parse_mask(c, mk, L)) != BSYNC_OK) return r;
        c->g->layer_count = (uint32_t)k + 1;
        bsync_json_path_pop(&c->w, o2);
    }
    bsync_json_path_pop(&c->w, old);
    return BSYNC_OK;
}

/* tick_rate, clips, root_motion, root_rotation, pose_rule, root_joint, layers. */
static bsync_result parse_graph_top(ctx* c, const cJSON* doc) {
    bsync_result r;
    const cJSON* tr = bsync_json_field(doc, "tick_rate");
    if (tr) {
        size_t o = bsync_json_path_push(&c->w, "tick_rate");
        fix16_t v;
        if (!cJSON_IsNumber(tr) || get_number(c, tr, &v, "an integer from 15 to 60") != BSYNC_OK || (v & 0xFFFF) != 0 ||
            v < (fix16_t)BSYNC_GRAPH_MIN_TICK_RATE * BSYNC_FX_ONE || v > (fix16_t)BSYNC_GRAPH_MAX_TICK_RATE * BSYNC_FX_ONE)
            return bsync_json_fail(&c->w, "expected an integer from %u to %u (ticks per second)", BSYNC_GRAPH_MIN_TICK_RATE,
                        BSYNC_GRAPH_MAX_TICK_RATE);
        c->g->tick_rate = (uint32_t)(v / BSYNC_FX_ONE);
        bsync_json_path_pop(&c->w, o);
    }
    const cJSON* rm = bsync_json_field(doc, "root_motion");
    if (rm) {
        size_t o = bsync_json_path_push(&c->w, "root_motion");
        static const char* const modes[] = {"keep", "extract", "none", NULL};
        int v;
        if ((r = get_enum(c, rm, modes, &v)) != BSYNC_OK) return r;
        c->g->root_motion = v == 0 ? BSYNC_ROOT_MOTION_KEEP : v == 1 ? BSYNC_ROOT_MOTION_EXTRACT : BSYNC_ROOT_MOTION_NONE;
        bsync_json_path_pop(&c->w, o);
    }
    const cJSON* rr = bsync_json_field(doc, "root_rotation");
    if (rr) {
        size_t o = bsync_json_path_push(&c->w, "root_rotation");
        static const char* const rots[] = {"yaw", "full", NULL};
        int v;
        if ((r = get_enum(c, rr, rots, &v)) != BSYNC_OK) return r;
        c->g->root_rotation = v == 0 ? BSYNC_ROOT_ROTATION_YAW : BSYNC_ROOT_ROTATION_FULL;
        bsync_json_path_pop(&c->w, o);
    }
    const cJSON* pr = bsync_json_field(doc, "pose_rule");
    if (pr) {
        size_t o = bsync_json_path_push(&c->w, "pose_rule");
        static const char* const rules[] = {"normalized", "lerped", NULL};
        int v;
        if ((r = get_enum(c, pr, rules, &v)) != BSYNC_OK) return r;
        c->g->pose_rule = v == 0 ? BSYNC_POSE_RULE_NORMALIZED : BSYNC_POSE_RULE_LERPED;
        bsync_json_path_pop(&c->w, o);
    }
    const cJSON* rj = bsync_json_field(doc, "root_joint");
    if (rj) {
        size_t o = bsync_json_path_push(&c->w, "root_joint");
        if (!cJSON_IsString(rj)) return bsync_json_fail(&c->w, "expected a string (a joint name)");
        if ((r = check_name(c, rj->valuestring, "a joint")) != BSYNC_OK) return r;
        strcpy(c->g->root_joint, rj->valuestring);
        bsync_json_path_pop(&c->w, o);
    }
    const cJSON* cl = bsync_json_field(doc, "clips");
    if (cl && (r = parse_clips(c, cl)) != BSYNC_OK) return r;
    const cJSON* ly = bsync_json_field(doc, "layers");
    if (ly && (r = parse_layers(c, ly)) != BSYNC_OK) return r;
    return BSYNC_OK;
}

/* ---------------------------------------------------------------- sections */

static bsync_result parse_parameters(ctx* c, const cJSON* params) {
    bsync_result r;
    size_t old = bsync_json_path_push(&c->w, "parameters");
    if (!cJSON_IsObject(params)) return bsync_json_fail(&c->w, "expected an object of parameters");
    if (cJSON_GetArraySize(params) > BSYNC_MAX_PARAMETERS) return bsync_json_fail(&c->w, "too many parameters (at most %d)", BSYNC_MAX_PARAMETERS);
    for (const cJSON* p = params->child; p; p = p->next) {
        size_t o2 = bsync_json_path_push(&c->w, p->string);
        r = check_name(c, p->string, "a parameter");
        if (r != BSYNC_OK) return r;
        for (uint32_t i = 0; i < c->param_count; i++)
            if (!strcmp(c->param_names[i], p->string)) return bsync_json_fail(&c->w, "duplicate parameter name");
        if (!cJSON_IsObject(p)) return bsync_json_fail(&c->w, "expected an object (e.g. {\"default\": 0})");
        static const char* const allowed[] = {"default", "dead_zone", "dead_zone_range", "curve",
                                              "smooth_time", "max_speed", "pair", NULL};
        r = bsync_json_check_fields(&c->w, p, allowed, "a parameter");
        if (r != BSYNC_OK) return r;
        fix16_t def = 0;
        const cJSON* d = bsync_json_field(p, "default");
        if (d) {
            size_t o3 = bsync_json_path_push(&c->w, "default");
            r = get_number(c, d, &def, "a number");
            if (r != BSYNC_OK) return r;
            bsync_json_path_pop(&c->w, o3);
        }
        c->param_names[c->param_count] = p->string;
        c->param_defaults[c->param_count] = def;
        if ((r = parse_filter(c, p, c->param_count)) != BSYNC_OK) return r;
        c->param_count++;
        bsync_json_path_pop(&c->w, o2);
    }
    if ((r = resolve_pairs(c, params)) != BSYNC_OK) return r;
    bsync_json_path_pop(&c->w, old);
    return BSYNC_OK;
}

static bsync_result resolve_child(ctx* c, const char* name, bsync_blend_child_ref* out) {
    for (uint32_t i = 0; i < c->node_count; i++)
        if (!strcmp(c->node_names[i], name)) {
            out->kind = BSYNC_CHILD_NODE;
            out->index = i;
            return BSYNC_OK;
        }
    out->kind = BSYNC_CHILD_MOTION;
    for (uint32_t i = 0; i < c->motion_count; i++)
        if (!strcmp(c->motion_names[i], name)) {
            out->index = i;
            return BSYNC_OK;
        }
    if (c->motion_count >= BSYNC_MAX_MOTIONS) return bsync_json_fail(&c->w, "too many motions (at most %d)", BSYNC_MAX_MOTIONS);
    c->motion_names[c->motion_count] = name;
    out->index = c->motion_count++;
    return BSYNC_OK;
}

/* {"type": "Switch", "initial": STATE, "children": [{"motion": STATE}, ...]} (config.h "Switch"): a
 * Simple1D tree node over parameter 0 with thresholds 0, 1, 2, ..., sync NONE, and a switch entry.
 * The path is /nodes/NAME. */
static bsync_result parse_switch_node(ctx* c, uint32_t index, const cJSON* obj) {
    bsync_blend_node_desc* nd = &c->nodes[index];
    node_build* b = &c->builds[index];
    bsync_result r;
    static const char* const allowed[] = {"type", "initial", "children", "sync", NULL};
    if ((r = bsync_json_check_fields(&c->w, obj, allowed, "a Switch node")) != BSYNC_OK) return r;
    if (c->param_count == 0)
        return bsync_json_fail(&c->w, "a Switch node needs at least one declared parameter (its tree node is a Simple1D over the "
                       "first parameter, whose weights the switch replaces)");
    if (c->g->switch_count >= BSYNC_GRAPH_MAX_SWITCHES)
        return bsync_json_fail(&c->w, "too many Switch nodes (at most %u)", BSYNC_GRAPH_MAX_SWITCHES);
    memset(nd, 0, sizeof *nd);
    nd->name = c->node_names[index];
    nd->space.type = BSYNC_BLEND_SIMPLE_1D;
    nd->children = b->children;
    nd->params = b->params;
    nd->space.thresholds = b->thresholds;
    nd->space.positions = b->positions;
    b->params[0] = 0;
    const cJSON* children;
    if ((r = bsync_json_require(&c->w, obj, "children", &children)) != BSYNC_OK) return r;
    size_t o2 = bsync_json_path_push(&c->w, "children");
    int count = cJSON_IsArray(children) ? cJSON_GetArraySize(children) : 0;
    if (!cJSON_IsArray(children) || count < 1 || count > BSYNC_MAX_BLEND_CHILDREN)
        return bsync_json_fail(&c->w, "expected an array of 1 to %d children (the states)", BSYNC_MAX_BLEND_CHILDREN);
    static const char* const callowed[] = {"motion", "time_scale", "cycle_offset", "exit", NULL};
    const char* state_names[BSYNC_MAX_BLEND_CHILDREN];
    const cJSON* exits[BSYNC_MAX_BLEND_CHILDREN];
    int k = 0;
    for (const cJSON* ch = children->child; ch; ch = ch->next, k++) {
        size_t o3 = bsync_json_path_push_index(&c->w, k);
        if (!cJSON_IsObject(ch)) return bsync_json_fail(&c->w, "expected an object (a state: {\"motion\": NAME})");
        if ((r = bsync_json_check_fields(&c->w, ch, callowed, "a Switch child")) != BSYNC_OK) return r;
        const cJSON* m;
        if ((r = bsync_json_require(&c->w, ch, "motion", &m)) != BSYNC_OK) return r;
        size_t o4 = bsync_json_path_push(&c->w, "motion");
        if (!cJSON_IsString(m)) return bsync_json_fail(&c->w, "expected a string (a motion or node name)");
        if ((r = check_name(c, m->valuestring, "a motion")) != BSYNC_OK) return r;
        for (int j = 0; j < k; j++)
            if (!strcmp(state_names[j], m->valuestring)) {
                char q[80];
                return bsync_json_fail(&c->w, "state %s is already child %d: each state of a switch once (play names it)",
                            bsync_json_quoted(m->valuestring, q, sizeof q), j);
            }
        state_names[k] = m->valuestring;
        if ((r = resolve_child(c, m->valuestring, &b->children[k])) != BSYNC_OK) return r;
        bsync_json_path_pop(&c->w, o4);
        b->thresholds[k] = (fix16_t)k * BSYNC_FX_ONE;
        if ((r = parse_child_time(c, ch, index, (uint32_t)k)) != BSYNC_OK) return r;
        exits[k] = bsync_json_field(ch, "exit");
        bsync_json_path_pop(&c->w, o3);
    }
    bsync_config_switch* cs = &c->g->switches[c->g->switch_count];
    cs->exit_count = 0;
    for (k = 0; k < count; k++) { /* "exit": {"to", "at", "fade", "carry", "inertialize"} (docs/actions.md) */
        if (!exits[k]) continue;
        size_t o3 = bsync_json_path_push_index(&c->w, k);
        size_t o4 = bsync_json_path_push(&c->w, "exit");
        const cJSON* ex = exits[k];
        static const char* const eallowed[] = {"to", "at", "fade", "carry", "inertialize", NULL};
        if (!cJSON_IsObject(ex)) return bsync_json_fail(&c->w, "expected an object ({\"to\": STATE, \"at\": 1.0, \"fade\": N})");
        static const char* const eallowed_start[] = {"to", "at", "fade", "carry", "inertialize", "start", NULL};
        if ((r = bsync_json_check_fields(&c->w, ex, bsync_json_field(ex, "start") ? eallowed_start : eallowed, "an exit")) !=
            BSYNC_OK)
            return r;
        bsync_config_exit* x = &cs->exits[cs->exit_count];
        x->state = (uint32_t)k;
        x->at = BSYNC_FX_ONE;
        x->fade = x->carry = x->inertialize = 0;
        const cJSON* to;
        if ((r = bsync_json_require(&c->w, ex, "to", &to)) != BSYNC_OK) return r;
        size_t o5 = bsync_json_path_push(&c->w, "to");
        if (!cJSON_IsString(to)) return bsync_json_fail(&c->w, "expected a string (the name of another child)");
        x->target = UINT32_MAX;
        for (int j = 0; j < count; j++)
            if (!strcmp(state_names[j], to->valuestring)) x->target = (uint32_t)j;
        if (x->target == UINT32_MAX) {
            char q[80], list[300];
            name_list(list, sizeof list, state_names, (uint32_t)count);
            return bsync_json_fail(&c->w, "no child %s (children: %s)", bsync_json_quoted(to->valuestring, q, sizeof q), list);
        }
        if (x->target == x->state) return bsync_json_fail(&c->w, "a state cannot exit to itself");
        bsync_json_path_pop(&c->w, o5);
        const cJSON* at = bsync_json_field(ex, "at");
        if (at) {
            o5 = bsync_json_path_push(&c->w, "at");
            if ((r = get_number(c, at, &x->at, "a number (normalised time, > 0)")) != BSYNC_OK) return r;
            if (x->at <= 0 || x->at > BSYNC_GRAPH_MAX_EXIT_TIME) return bsync_json_fail(&c->w, "expected a normalised time in (0, 1024]");
            bsync_json_path_pop(&c->w, o5);
        }
        const cJSON* fd = bsync_json_field(ex, "fade");
        if (fd) {
            o5 = bsync_json_path_push(&c->w, "fade");
            int64_t v;
            if ((r = get_integer(c, fd, 0, 1048576, &v, "an integer number of ticks from 0 to 1048576")) != BSYNC_OK) return r;
            x->fade = (uint32_t)v;
            bsync_json_path_pop(&c->w, o5);
        }
        const cJSON* ca = bsync_json_field(ex, "carry");
        if (ca) {
            o5 = bsync_json_path_push(&c->w, "carry");
            if ((r = get_bool(c, ca, &x->carry)) != BSYNC_OK) return r;
            bsync_json_path_pop(&c->w, o5);
        }
        const cJSON* st2 = bsync_json_field(ex, "start");
        if (st2) { /* "start": "marker": the target starts at the matching marker (docs/actions.md "Sync markers") */
            o5 = bsync_json_path_push(&c->w, "start");
            if (!cJSON_IsString(st2) || strcmp(st2->valuestring, "marker") != 0)
                return bsync_json_fail(&c->w, "expected \"marker\" (the target starts at the matching marker)");
            if (x->carry) return bsync_json_fail(&c->w, "\"start\": \"marker\" and \"carry\": true exclude each other");
            x->carry = 2u;
            bsync_json_path_pop(&c->w, o5);
        }
        const cJSON* in2 = bsync_json_field(ex, "inertialize");
        if (in2) {
            o5 = bsync_json_path_push(&c->w, "inertialize");
            if ((r = get_bool(c, in2, &x->inertialize)) != BSYNC_OK) return r;
            if (x->inertialize && x->fade == 0) return bsync_json_fail(&c->w, "inertialize needs \"fade\" from 1 to 1048576");
            bsync_json_path_pop(&c->w, o5);
        }
        cs->exit_count++;
        bsync_json_path_pop(&c->w, o4);
        bsync_json_path_pop(&c->w, o3);
    }
    nd->space.child_count = (uint32_t)count;
    bsync_json_path_pop(&c->w, o2);
    uint32_t initial = 0;
    const cJSON* in = bsync_json_field(obj, "initial");
    if (in) {
        o2 = bsync_json_path_push(&c->w, "initial");
        if (!cJSON_IsString(in)) return bsync_json_fail(&c->w, "expected a string (the name of one of the children)");
        initial = UINT32_MAX;
        for (int j = 0; j < count; j++)
            if (!strcmp(state_names[j], in->valuestring)) initial = (uint32_t)j;
        if (initial == UINT32_MAX) {
            char q[80], list[300];
            name_list(list, sizeof list, state_names, (uint32_t)count);
            return bsync_json_fail(&c->w, "no child %s (children: %s)", bsync_json_quoted(in->valuestring, q, sizeof q), list);
        }
        bsync_json_path_pop(&c->w, o2);
    }
    const cJSON* sy = bsync_json_field(obj, "sync");
    if (sy) {
        o2 = bsync_json_path_push(&c->w, "sync");
        if (!cJSON_IsString(sy) || strcmp(sy->valuestring, "none") != 0)
            return bsync_json_fail(&c->w, "a Switch node's sync is always \"none\" (every state keeps its own clock)");
        bsync_json_path_pop(&c->w, o2);
    }
    c->g->nodes[index].sync = BSYNC_SYNC_NONE;
    c->g->switches[c->g->switch_count].node = index;
    c->g->switches[c->g->switch_count].initial_child = initial;
    c->g->switch_count++;
    return BSYNC_OK;
}

static bsync_result parse_node(ctx* c, uint32_t index) {
    const cJSON* obj = c->node_items[index];
    bsync_blend_node_desc* nd = &c->nodes[index];
    node_build* b = &c->builds[index];
    bsync_result r;
    size_t old = bsync_json_path_push(&c->w, "nodes");
    bsync_json_path_push(&c->w, obj->string);
    if (!cJSON_IsObject(obj)) return bsync_json_fail(&c->w, "expected an object (a blend node)");
    const cJSON* type_item;
    if ((r = bsync_json_require(&c->w, obj, "type", &type_item)) != BSYNC_OK) return r;
    size_t o2 = bsync_json_path_push(&c->w, "type");
    bsync_blend_type type;
    if (cJSON_IsString(type_item) && !strcmp(type_item->valuestring, "Switch")) {
        bsync_json_path_pop(&c->w, o2);
        if ((r = parse_switch_node(c, index, obj)) != BSYNC_OK) return r;
        bsync_json_path_pop(&c->w, old);
        return BSYNC_OK;
    }
    if (!cJSON_IsString(type_item) || bsync_blend_type_from_name(type_item->valuestring, &type) != BSYNC_OK) {
        char list[300], q[80];
        const char* names[BSYNC_BLEND_TYPE_COUNT + 1];
        for (int t = 0; t < (int)BSYNC_BLEND_TYPE_COUNT; t++) names[t] = bsync_blend_type_name((bsync_blend_type)t);
        names[BSYNC_BLEND_TYPE_COUNT] = "Switch";
        name_list(list, sizeof list, names, BSYNC_BLEND_TYPE_COUNT + 1);
        if (!cJSON_IsString(type_item)) return bsync_json_fail(&c->w, "expected a string, one of: %s", list);
        return bsync_json_fail(&c->w, "unknown type %s (valid: %s)", bsync_json_quoted(type_item->valuestring, q, sizeof q), list);
    }
    bsync_json_path_pop(&c->w, o2);
    const char* tname = bsync_blend_type_name(type);
    char describe[64];
    snprintf(describe, sizeof describe, "a %s node", tname);

    const int is_1d = type == BSYNC_BLEND_SIMPLE_1D, is_direct = type == BSYNC_BLEND_DIRECT;
    const int is_2d = !is_1d && !is_direct;
    static const char* const f_1d[] = {"type", "parameter", "children", "sync", "sync_group", NULL};
    static const char* const f_2d[] = {"type", "parameters", "children", "sync", "sync_group", NULL};
    static const char* const f_idw[] = {"type", "parameters", "power", "children", "sync", "sync_group", NULL};
    static const char* const f_direct[] = {"type", "normalize", "children", "sync", "sync_group", NULL};
    const char* const* allowed = is_1d ? f_1d : is_direct ? f_direct : type == BSYNC_BLEND_INVERSE_DISTANCE_2D ? f_idw : f_2d;
    if ((r = bsync_json_check_fields(&c->w, obj, allowed, describe)) != BSYNC_OK) return r;

    memset(nd, 0, sizeof *nd);
    nd->name = c->node_names[index];
    nd->space.type = type;
    nd->children = b->children;
    nd->params = b->params;
    nd->space.thresholds = b->thresholds;
    nd->space.positions = b->positions;

    if (is_1d) {
        const cJSON* p;
        if ((r = bsync_json_require(&c->w, obj, "parameter", &p)) != BSYNC_OK) return r;
        o2 = bsync_json_path_push(&c->w, "parameter");
        if ((r = find_parameter(c, p, &b->params[0])) != BSYNC_OK) return r;
        bsync_json_path_pop(&c->w, o2);
    } else if (is_2d) {
        const cJSON* p;
        if ((r = bsync_json_require(&c->w, obj, "parameters", &p)) != BSYNC_OK) return r;
        o2 = bsync_json_path_push(&c->w, "parameters");
        if (!cJSON_IsArray(p) || cJSON_GetArraySize(p) != 2) return bsync_json_fail(&c->w, "expected an array of 2 parameter names (x, y)");
        int k = 0;
        for (const cJSON* e = p->child; e; e = e->next, k++) {
            size_t o3 = bsync_json_path_push_index(&c->w, k);
            if ((r = find_parameter(c, e, &b->params[k])) != BSYNC_OK) return r;
            bsync_json_path_pop(&c->w, o3);
        }
        bsync_json_path_pop(&c->w, o2);
        const cJSON* pw = bsync_json_field(obj, "power");
        if (pw) {
            o2 = bsync_json_path_push(&c->w, "power");
            fix16_t v;
            if (!cJSON_IsNumber(pw) || get_number(c, pw, &v, "an integer from 1 to 8") != BSYNC_OK || (v & 0xFFFF) != 0 ||
                v < BSYNC_FX_ONE || v > 8 * BSYNC_FX_ONE)
                return bsync_json_fail(&c->w, "expected an integer from 1 to 8");
            nd->space.power = (uint32_t)(v >> 16);
            bsync_json_path_pop(&c->w, o2);
        }
    } else {
        const cJSON* nz = bsync_json_field(obj, "normalize");
        if (nz) {
            o2 = bsync_json_path_push(&c->w, "normalize");
            if (!cJSON_IsBool(nz)) return bsync_json_fail(&c->w, "expected true or false");
            nd->space.normalize = cJSON_IsTrue(nz) ? 1 : 0;
            bsync_json_path_pop(&c->w, o2);
        }
    }

    const cJSON* children;
    if ((r = bsync_json_require(&c->w, obj, "children", &children)) != BSYNC_OK) return r;
    o2 = bsync_json_path_push(&c->w, "children");
    int count = cJSON_IsArray(children) ? cJSON_GetArraySize(children) : 0;
    if (!cJSON_IsArray(children) || count < 1 || count > BSYNC_MAX_BLEND_CHILDREN)
        return bsync_json_fail(&c->w, "expected an array of 1 to %d children", BSYNC_MAX_BLEND_CHILDREN);
    static const char* const c_1d[] = {"motion", "threshold", "time_scale", "cycle_offset", NULL};
    static const char* const c_2d[] = {"motion", "position", "time_scale", "cycle_offset", NULL};
    static const char* const c_direct[] = {"motion", "parameter", "time_scale", "cycle_offset", NULL};
    const char* const* callowed = is_1d ? c_1d : is_direct ? c_direct : c_2d;
    char cdescribe[64];
    snprintf(cdescribe, sizeof cdescribe, "a %s child", tname);
    int k = 0;
    for (const cJSON* ch = children->child; ch; ch = ch->next, k++) {
        size_t o3 = bsync_json_path_push_index(&c->w, k);
        if (!cJSON_IsObject(ch)) return bsync_json_fail(&c->w, "expected an object (a child)");
        if ((r = bsync_json_check_fields(&c->w, ch, callowed, cdescribe)) != BSYNC_OK) return r;
        const cJSON* m;
        if ((r = bsync_json_require(&c->w, ch, "motion", &m)) != BSYNC_OK) return r;
        size_t o4 = bsync_json_path_push(&c->w, "motion");
        if (!cJSON_IsString(m)) return bsync_json_fail(&c->w, "expected a string (a motion or node name)");
        if ((r = check_name(c, m->valuestring, "a motion")) != BSYNC_OK) return r;
        if ((r = resolve_child(c, m->valuestring, &b->children[k])) != BSYNC_OK) return r;
        bsync_json_path_pop(&c->w, o4);
        if (is_1d) {
            const cJSON* t;
            if ((r = bsync_json_require(&c->w, ch, "threshold", &t)) != BSYNC_OK) return r;
            o4 = bsync_json_path_push(&c->w, "threshold");
            if ((r = get_number(c, t, &b->thresholds[k], "a number")) != BSYNC_OK) return r;
            bsync_json_path_pop(&c->w, o4);
        } else if (is_2d) {
            const cJSON* pos;
            if ((r = bsync_json_require(&c->w, ch, "position", &pos)) != BSYNC_OK) return r;
            o4 = bsync_json_path_push(&c->w, "position");
            if (!cJSON_IsArray(pos) || cJSON_GetArraySize(pos) != 2 || !cJSON_IsNumber(pos->child) ||
                !cJSON_IsNumber(pos->child->next))
                return bsync_json_fail(&c->w, "expected an array of 2 numbers");
            size_t o5 = bsync_json_path_push(&c->w, "0");
            if ((r = get_number(c, pos->child, &b->positions[k].x, "a number")) != BSYNC_OK) return r;
            bsync_json_path_pop(&c->w, o5);
            o5 = bsync_json_path_push(&c->w, "1");
            if ((r = get_number(c, pos->child->next, &b->positions[k].y, "a number")) != BSYNC_OK) return r;
            bsync_json_path_pop(&c->w, o5);
            bsync_json_path_pop(&c->w, o4);
        } else {
            const cJSON* p;
            if ((r = bsync_json_require(&c->w, ch, "parameter", &p)) != BSYNC_OK) return r;
            o4 = bsync_json_path_push(&c->w, "parameter");
            if ((r = find_parameter(c, p, &b->params[k])) != BSYNC_OK) return r;
            bsync_json_path_pop(&c->w, o4);
        }
        if ((r = parse_child_time(c, ch, index, (uint32_t)k)) != BSYNC_OK) return r;
        bsync_json_path_pop(&c->w, o3);
    }
    nd->space.child_count = (uint32_t)count;
    bsync_json_path_pop(&c->w, o2); /* /children */
    const cJSON* sy = bsync_json_field(obj, "sync");
    if (sy) {
        o2 = bsync_json_path_push(&c->w, "sync");
        /* "markers" (docs/actions.md "Sync markers") is accepted outside the enum list, so the message for
         * an unknown value stays the one a test pins */
        static const char* const syncs[] = {"normalized", "none", NULL};
        int v = 2;
        if (!(cJSON_IsString(sy) && !strcmp(sy->valuestring, "markers")) && (r = get_enum(c, sy, syncs, &v)) != BSYNC_OK)
            return r;
        c->g->nodes[index].sync = v == 1 ? BSYNC_SYNC_NONE : BSYNC_SYNC_NORMALIZED;
        c->g->nodes[index].marker_sync = v == 2 ? 1u : 0u; /* docs/actions.md "Sync markers" */
        bsync_json_path_pop(&c->w, o2);
    }
    const cJSON* sg = bsync_json_field(obj, "sync_group");
    if (sg) { /* docs/actions.md "Sync groups": marker sync across the nodes of one name, ids 2.. */
        o2 = bsync_json_path_push(&c->w, "sync_group");
        if (!cJSON_IsString(sg)) return bsync_json_fail(&c->w, "expected a string (the sync group's name)");
        if ((r = check_name(c, sg->valuestring, "a sync group")) != BSYNC_OK) return r;
        if (c->g->nodes[index].sync == BSYNC_SYNC_NONE)
            return bsync_json_fail(&c->w, "a sync group needs the node's clock (\"sync\": \"none\" excludes it)");
        uint32_t id = 0;
        while (id < c->sync_group_count && strcmp(c->sync_groups[id], sg->valuestring) != 0) id++;
        if (id == c->sync_group_count) {
            if (id >= 254u) return bsync_json_fail(&c->w, "at most 254 sync groups");
            c->sync_groups[c->sync_group_count++] = sg->valuestring;
        }
        c->g->nodes[index].marker_sync = 2u + id;
        bsync_json_path_pop(&c->w, o2);
    }
    bsync_json_path_pop(&c->w, old);
    return BSYNC_OK;
}

/* A shortest cycle through `start` (breadth-first over node children), written as "a -> b -> a". */
static void describe_cycle(ctx* c, uint32_t start, char* buf, size_t cap) {
    uint32_t prev[BSYNC_MAX_BLEND_NODES], queue[BSYNC_MAX_BLEND_NODES];
    unsigned char seen[BSYNC_MAX_BLEND_NODES] = {0};
    uint32_t head = 0, tail = 0, found = UINT32_MAX;
    queue[tail++] = start;
    while (head < tail && found == UINT32_MAX) {
        uint32_t u = queue[head++];
        const bsync_blend_node_desc* nd = &c->nodes[u];
        for (uint32_t k = 0; k < nd->space.child_count; k++) {
            if (nd->children[k].kind != BSYNC_CHILD_NODE) continue;
            uint32_t v = nd->children[k].index;
            if (v == start) {
                found = u;
                break;
            }
            if (!seen[v]) {
                seen[v] = 1;
                prev[v] = u;
                queue[tail++] = v;
            }
        }
    }
    uint32_t path[BSYNC_MAX_BLEND_NODES + 1], n = 0;
    if (found != UINT32_MAX) {
        for (uint32_t v = found; v != start; v = prev[v]) path[n++] = v;
    }
    size_t w = (size_t)snprintf(buf, cap, "%s", c->node_names[start]);
    for (uint32_t i = n; i > 0 && w < cap; i--) w += (size_t)snprintf(buf + w, cap - w, " -> %s", c->node_names[path[i - 1]]);
    if (w < cap) snprintf(buf + w, cap - w, " -> %s", c->node_names[start]);
}

static bsync_result parse_document(ctx* c, const cJSON* doc, const bsync_allocator* allocator,
                                   bsync_blend_tree** out, bsync_blend_diagnostics* diags) {
    bsync_result r;
    if (!cJSON_IsObject(doc)) return bsync_json_fail(&c->w, "expected an object with \"parameters\", \"root\" and \"nodes\"");
    static const char* const top[] = {"parameters", "root", "nodes", "tick_rate", "clips", "root_motion",
                                      "root_rotation", "root_joint", "layers", "pose_rule", NULL};
    if ((r = bsync_json_check_fields(&c->w, doc, top, "the top level")) != BSYNC_OK) return r;
    const cJSON *params, *root, *nodes;
    if ((r = bsync_json_require(&c->w, doc, "parameters", &params)) != BSYNC_OK) return r;
    if ((r = bsync_json_require(&c->w, doc, "root", &root)) != BSYNC_OK) return r;
    if ((r = bsync_json_require(&c->w, doc, "nodes", &nodes)) != BSYNC_OK) return r;
    if ((r = parse_parameters(c, params)) != BSYNC_OK) return r;

    size_t old = bsync_json_path_push(&c->w, "nodes");
    if (!cJSON_IsObject(nodes)) return bsync_json_fail(&c->w, "expected an object of blend nodes");
    int nn = cJSON_GetArraySize(nodes);
    if (nn < 1 || nn > BSYNC_MAX_BLEND_NODES) return bsync_json_fail(&c->w, "expected 1 to %d nodes", BSYNC_MAX_BLEND_NODES);
    for (const cJSON* n = nodes->child; n; n = n->next) {
        size_t o2 = bsync_json_path_push(&c->w, n->string);
        if ((r = check_name(c, n->string, "a node")) != BSYNC_OK) return r;
        for (uint32_t i = 0; i < c->node_count; i++)
            if (!strcmp(c->node_names[i], n->string)) return bsync_json_fail(&c->w, "duplicate node name");
        c->node_names[c->node_count] = n->string;
        c->node_items[c->node_count] = n;
        c->node_count++;
        bsync_json_path_pop(&c->w, o2);
    }
    bsync_json_path_pop(&c->w, old);

    uint32_t root_index = UINT32_MAX;
    old = bsync_json_path_push(&c->w, "root");
    if (!cJSON_IsString(root)) return bsync_json_fail(&c->w, "expected a string (a node name)");
    for (uint32_t i = 0; i < c->node_count; i++)
        if (!strcmp(c->node_names[i], root->valuestring)) root_index = i;
    if (root_index == UINT32_MAX) {
        char q[80], list[300];
        name_list(list, sizeof list, c->node_names, c->node_count);
        return bsync_json_fail(&c->w, "no node named %s (nodes: %s)", bsync_json_quoted(root->valuestring, q, sizeof q), list);
    }
    bsync_json_path_pop(&c->w, old);

    c->builds = (node_build*)calloc(c->node_count, sizeof(node_build));
    if (!c->builds) {
        bsync_io_set_error(c->w.err, BSYNC_OUT_OF_MEMORY, "%s: out of memory", c->w.file);
        return BSYNC_OUT_OF_MEMORY;
    }
    for (uint32_t i = 0; i < c->node_count; i++)
        if ((r = parse_node(c, i)) != BSYNC_OK) return r;
    c->g->parameter_count = c->param_count;
    c->g->node_count = c->node_count;
    if ((r = parse_graph_top(c, doc)) != BSYNC_OK) return r;

    bsync_blend_tree_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.parameter_names = c->param_names;
    desc.parameter_defaults = c->param_defaults;
    desc.parameter_count = c->param_count;
    desc.motion_names = c->motion_names;
    desc.motion_count = c->motion_count;
    desc.nodes = c->nodes;
    desc.node_count = c->node_count;
    desc.root = root_index;
    uint32_t failed = UINT32_MAX;
    r = bsync_blend_tree_create(&desc, allocator, out, diags, &failed);
    if (r == BSYNC_OK) return BSYNC_OK;
    if (r == BSYNC_OUT_OF_MEMORY) {
        bsync_io_set_error(c->w.err, BSYNC_OUT_OF_MEMORY, "%s: out of memory", c->w.file);
        return r;
    }
    c->w.path_len = 0;
    c->w.path[0] = '\0';
    if (failed >= c->node_count) return bsync_json_fail(&c->w, "cannot build the blend tree: %s", bsync_result_string(r));
    bsync_json_path_push(&c->w, "nodes");
    bsync_json_path_push(&c->w, c->node_names[failed]);
    if (r == BSYNC_CYCLE) {
        char cycle[300];
        describe_cycle(c, failed, cycle, sizeof cycle);
        return bsync_json_fail(&c->w, "cycle: %s", cycle);
    }
    return bsync_json_fail(&c->w, "node %s: %s", c->node_names[failed], bsync_result_string(r));
}

void bsync_config_graph_fields_destroy(bsync_config_graph_fields* graph) {
    if (!graph) return;
    for (uint32_t i = 0; i < BSYNC_MAX_PARAMETERS; i++) free(graph->filters[i].keys);
    for (uint32_t i = 0; i < BSYNC_GRAPH_MAX_LAYERS; i++) free(graph->layers[i].mask);
    for (uint32_t i = 0; graph->clips && i < graph->clip_count; i++) {
        free(graph->clips[i].events);
        free_curves(&graph->clips[i]);
        free_markers(&graph->clips[i]);
    }
    free(graph->clips);
    free(graph);
}

static bsync_config_graph_fields* graph_new(void) {
    bsync_config_graph_fields* g = (bsync_config_graph_fields*)calloc(1, sizeof(bsync_config_graph_fields));
    if (!g) return NULL;
    g->tick_rate = BSYNC_CONFIG_DEFAULT_TICK_RATE;
    g->pose_rule = BSYNC_POSE_RULE_NORMALIZED;
    for (uint32_t n = 0; n < BSYNC_MAX_BLEND_NODES; n++)
        for (uint32_t k = 0; k < BSYNC_MAX_BLEND_CHILDREN; k++) g->nodes[n].time_scales[k] = BSYNC_FX_ONE;
    return g;
}

static bsync_result parse_text(const char* text, size_t len, const char* name, const bsync_allocator* allocator,
                               bsync_blend_tree** out, bsync_config_graph_fields** out_graph, bsync_blend_diagnostics* diags,
                               bsync_error* err) {
    if (err) {
        err->code = BSYNC_OK;
        err->message[0] = '\0';
    }
    if (!name) name = "config";
    if (!out || (!text && len > 0)) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "%s: %s", name, bsync_result_string(BSYNC_INVALID_ARGUMENT));
        return BSYNC_INVALID_ARGUMENT;
    }
    *out = NULL;
    if (out_graph) *out_graph = NULL;
    if (!text) text = "";
    ctx* c = (ctx*)calloc(1, sizeof(ctx));
    bsync_config_graph_fields* g = graph_new();
    if (!c || !g) {
        free(c);
        bsync_config_graph_fields_destroy(g);
        bsync_io_set_error(err, BSYNC_OUT_OF_MEMORY, "%s: out of memory", name);
        return BSYNC_OUT_OF_MEMORY;
    }
    bsync_json_doc jd;
    bsync_result r = bsync_json_exact_parse(name, text, len, &jd, err);
    c->w.file = name;
    c->text = text;
    c->spans = jd.spans;
    c->span_count = jd.span_count;
    c->w.err = err;
    c->g = g;
    if (r == BSYNC_OK) r = parse_document(c, jd.root, allocator, out, diags);
    bsync_json_exact_free(&jd);
    free(c->builds);
    free(c);
    if (r == BSYNC_OK && out_graph) *out_graph = g;
    else bsync_config_graph_fields_destroy(g);
    if (r != BSYNC_OK && *out) {
        bsync_blend_tree_destroy(*out);
        *out = NULL;
    }
    return r;
}

bsync_result bsync_config_parse(const char* text, size_t len, const char* name, const bsync_allocator* allocator,
                                bsync_blend_tree** out, bsync_blend_diagnostics* diags, bsync_error* err) {
    return parse_text(text, len, name, allocator, out, NULL, diags, err);
}

bsync_result bsync_config_parse_graph(const char* text, size_t len, const char* name, const bsync_allocator* allocator,
                                      bsync_blend_tree** out_tree, bsync_config_graph_fields** out_graph,
                                      bsync_blend_diagnostics* diags, bsync_error* err) {
    if (!out_graph) {
        if (out_tree) *out_tree = NULL;
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "%s: %s", name ? name : "config", bsync_result_string(BSYNC_INVALID_ARGUMENT));
        return BSYNC_INVALID_ARGUMENT;
    }
    return parse_text(text, len, name, allocator, out_tree, out_graph, diags, err);
}

static bsync_result load_file(const bsync_file_callbacks* cb, const char* path, const bsync_allocator* allocator,
                              bsync_blend_tree** out, bsync_config_graph_fields** out_graph, bsync_blend_diagnostics* diags,
                              bsync_error* err) {
    if (out_graph) *out_graph = NULL;
    if (out) *out = NULL;
    if (!path || !out) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "config: %s", bsync_result_string(BSYNC_INVALID_ARGUMENT));
        return BSYNC_INVALID_ARGUMENT;
    }
    unsigned char* buf;
    size_t n;
    bsync_io_file_status st;
    bsync_result rr = bsync_io_read_file_with(cb, path, &buf, &n, &st);
    if (rr == BSYNC_IO_ERROR) {
        bsync_io_set_error(err, BSYNC_IO_ERROR, "%s: cannot read: %s", path,
                           st.opened || !cb || !cb->read ? strerror(st.sys_errno) : "the file callback failed");
        return BSYNC_IO_ERROR;
    }
    if (rr != BSYNC_OK) {
        bsync_io_set_error(err, rr, "%s: %s", path,
                           rr == BSYNC_OUT_OF_MEMORY ? "out of memory (file too large)" : bsync_result_string(rr));
        return rr;
    }
    bsync_result r = parse_text((const char*)buf, n, path, allocator, out, out_graph, diags, err);
    free(buf);
    return r;
}

bsync_result bsync_config_load(const char* path, const bsync_allocator* allocator, bsync_blend_tree** out,
                                    bsync_blend_diagnostics* diags, bsync_error* err) {
    return load_file(NULL, path, allocator, out, NULL, diags, err);
}

bsync_result bsync_config_load_graph(const char* path, const bsync_allocator* allocator,
                                          bsync_blend_tree** out_tree, bsync_config_graph_fields** out_graph,
                                          bsync_blend_diagnostics* diags, bsync_error* err) {
    if (!out_graph) {
        if (out_tree) *out_tree = NULL;
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "config: %s", bsync_result_string(BSYNC_INVALID_ARGUMENT));
        return BSYNC_INVALID_ARGUMENT;
    }
    return load_file(NULL, path, allocator, out_tree, out_graph, diags, err);
}

bsync_result bsync_config_load_graph_with_(const bsync_file_callbacks* cb, const char* path,
                                                const bsync_allocator* allocator, bsync_blend_tree** out_tree,
                                                bsync_config_graph_fields** out_graph, bsync_blend_diagnostics* diags,
                                                bsync_error* err) {
    if (!out_graph) {
        if (out_tree) *out_tree = NULL;
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "config: %s", bsync_result_string(BSYNC_INVALID_ARGUMENT));
        return BSYNC_INVALID_ARGUMENT;
    }
    return load_file(cb, path, allocator, out_tree, out_graph, diags, err);
}
