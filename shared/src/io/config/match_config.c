/* match_config.c — match configuration JSON -> bsync_match_desc + graphs + match settings
 * (io/match_config.h).
 *
 * Numbers are read exactly from their text, as config.c does (json_exact.h: strict JSON, each number
 * node's valueint indexes its text span); integers are then read digit by digit from the span and the
 * parameter bounds with bsync_fx_parse.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "blendsync/blend_tree.h"
#include "blendsync/checksum.h"
#include "blendsync/fixed.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/io/match_config.h"
#include "file_internal.h"
#include "hex.h"
#include "json_exact.h"
#include "platform.h"

typedef bsync_json_span span;

/* ---------------------------------------------------------------- the loaded object */

typedef struct graph_file {
    char* resolved;
    const char* written; /* points into the characters' written paths */
    bsync_graph_config* gc;
    uint32_t first_character;
} graph_file;

struct bsync_match_config {
    bsync_match_desc desc;
    bsync_match_character_desc chars[BSYNC_MATCH_MAX_CHARACTERS];
    uint64_t match_id;
    char tokens[BSYNC_MATCH_MAX_PLAYERS][BSYNC_MATCH_CONFIG_MAX_TOKEN + 1];
    uint32_t token_len[BSYNC_MATCH_MAX_PLAYERS];
    uint8_t secrets[BSYNC_MATCH_MAX_PLAYERS][BSYNC_MATCH_CONFIG_SECRET_BYTES];
    uint32_t secret_count;  /* players with a "secret": 0 or all of them */
    uint32_t session_mode;  /* bsync_match_session */
    char* replay_text;      /* the text with every secret's digits zeroed (what replays record) */
    char param_names[BSYNC_MATCH_MAX_PARAMS][BSYNC_MAX_NAME];
    char trigger_names[BSYNC_MATCH_MAX_TRIGGERS][BSYNC_MAX_NAME];
    char trigger_switch[BSYNC_MATCH_MAX_TRIGGERS][BSYNC_MAX_NAME];
    uint32_t trigger_fade[BSYNC_MATCH_MAX_TRIGGERS];
    uint32_t trigger_carry[BSYNC_MATCH_MAX_TRIGGERS];       /* 0 or 1 */
    uint32_t trigger_inertialize[BSYNC_MATCH_MAX_TRIGGERS]; /* 0 or 1 */
    char char_names[BSYNC_MATCH_MAX_CHARACTERS][BSYNC_MAX_NAME];
    char char_graph[BSYNC_MATCH_MAX_CHARACTERS][BSYNC_MATCH_CONFIG_MAX_PATH]; /* as written */
    uint32_t char_file[BSYNC_MATCH_MAX_CHARACTERS];
    uint32_t input_delay, checksum_interval, duration_ticks, payload_max, tick_rate;
    bsync_match_policy policy;
    bsync_match_timeouts timeouts;
    char* replay; /* resolved, "" when none */
    graph_file files[BSYNC_MATCH_MAX_CHARACTERS];
    uint32_t file_count;
    char* text;
    size_t text_len;
    char* path;
    char* base_dir; /* "", or ending in a separator (or a Windows drive's ':') */
    uint32_t asset_count;
    char** asset_names;
    uint64_t* asset_hashes;
    char notes[8192];
};

typedef struct ctx {
    bsync_json_where w; /* file, err, the JSON path */
    const char* text;
    const span* spans;
    bsync_match_config* cfg;
    const bsync_config_load_options* options; /* how graph files are read (NULL: stdio) */
} ctx;

/* ---------------------------------------------------------------- messages and paths */






static void note(bsync_match_config* m, const char* fmt, ...) {
    size_t n = strlen(m->notes);
    if (n + 2 >= sizeof m->notes) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->notes + n, sizeof m->notes - n, fmt, ap);
    va_end(ap);
    n = strlen(m->notes);
    if (n + 1 < sizeof m->notes) {
        m->notes[n] = '\n';
        m->notes[n + 1] = '\0';
    }
}

/* ---------------------------------------------------------------- typed getters */




/* An integer lo..hi written as a plain JSON integer, read exactly from its text. The path must
 * already name the item. */
static bsync_result get_uint(ctx* c, const cJSON* item, uint64_t lo, uint64_t hi, uint64_t* out) {
    const span* s = cJSON_IsNumber(item) ? &c->spans[item->valueint] : NULL;
    int ok = s != NULL && s->len > 0;
    int negative = 0;
    uint64_t v = 0;
    size_t i = 0;
    if (ok && c->text[s->off] == '-') {
        negative = 1;
        i = 1;
    }
    if (ok && i >= s->len) ok = 0;
    for (; ok && i < s->len; i++) {
        char ch = c->text[s->off + i];
        if (ch < '0' || ch > '9') {
            ok = 0;
            break;
        }
        if (v <= ((uint64_t)1 << 62)) v = v * 10u + (uint64_t)(ch - '0'); /* else: already too large */
    }
    if (ok && negative && v != 0) ok = 0; /* "-0" is 0 */
    if (!ok || v < lo || v > hi)
        return bsync_json_fail(&c->w, "expected an integer from %llu to %llu", (unsigned long long)lo, (unsigned long long)hi);
    *out = v;
    return BSYNC_OK;
}

/* An optional integer field; *out untouched when absent. */
static bsync_result opt_uint(ctx* c, const cJSON* obj, const char* name, uint64_t lo, uint64_t hi, uint32_t* out) {
    const cJSON* f = bsync_json_field(obj, name);
    if (!f) return BSYNC_OK;
    size_t o = bsync_json_path_push(&c->w, name);
    uint64_t v;
    bsync_result r = get_uint(c, f, lo, hi, &v);
    if (r != BSYNC_OK) return r;
    *out = (uint32_t)v;
    bsync_json_path_pop(&c->w, o);
    return BSYNC_OK;
}

/* An optional JSON true/false field: *out 1 or 0 (left as it was when absent). */
static bsync_result opt_bool(ctx* c, const cJSON* obj, const char* name, uint32_t* out) {
    const cJSON* f = bsync_json_field(obj, name);
    if (!f) return BSYNC_OK;
    size_t o = bsync_json_path_push(&c->w, name);
    if (!cJSON_IsBool(f)) return bsync_json_fail(&c->w, "expected true or false");
    *out = cJSON_IsTrue(f) ? 1u : 0u;
    bsync_json_path_pop(&c->w, o);
    return BSYNC_OK;
}

static bsync_result get_fx(ctx* c, const cJSON* item, fix16_t* out) {
    if (!cJSON_IsNumber(item)) return bsync_json_fail(&c->w, "expected a number");
    const span* s = &c->spans[item->valueint];
    bsync_result r = bsync_fx_parse(c->text + s->off, s->len, out);
    if (r == BSYNC_OVERFLOW)
        return bsync_json_fail(&c->w, "%.*s%s is outside the fixed-point range (-32767.99998 to 32767.99998)",
                    (int)(s->len > 40 ? 40 : s->len), c->text + s->off, s->len > 40 ? "..." : "");
    if (r != BSYNC_OK) return bsync_json_fail(&c->w, "invalid number"); /* the recognizer already refused these */
    return BSYNC_OK;
}

/* A name string of 1..BSYNC_MAX_NAME-1 bytes copied to out (BSYNC_MAX_NAME bytes). */
static bsync_result get_name(ctx* c, const cJSON* item, char* out, const char* what) {
    if (!cJSON_IsString(item)) return bsync_json_fail(&c->w, "expected a string (%s name)", what);
    size_t n = strlen(item->valuestring);
    if (n < 1 || n >= BSYNC_MAX_NAME) return bsync_json_fail(&c->w, "%s name must be 1 to %d bytes long", what, BSYNC_MAX_NAME - 1);
    memcpy(out, item->valuestring, n + 1);
    return BSYNC_OK;
}

static bsync_result get_path(ctx* c, const cJSON* item, char* out, int allow_empty) {
    if (!cJSON_IsString(item)) return bsync_json_fail(&c->w, "expected a string (a file path)");
    size_t n = strlen(item->valuestring);
    if ((n == 0 && !allow_empty) || n >= BSYNC_MATCH_CONFIG_MAX_PATH)
        return bsync_json_fail(&c->w, "a file path must be %d to %u bytes long", allow_empty ? 0 : 1, BSYNC_MATCH_CONFIG_MAX_PATH - 1);
    memcpy(out, item->valuestring, n + 1);
    return BSYNC_OK;
}

/* An array of min..max entries. */
static bsync_result get_array(ctx* c, const cJSON* item, uint32_t min, uint32_t max, const char* what, uint32_t* count) {
    *count = 0; /* defined on every path: callers never read it after a failure, but Release gcc cannot see that */
    if (!cJSON_IsArray(item)) return bsync_json_fail(&c->w, "expected an array of %s", what);
    int n = cJSON_GetArraySize(item);
    if (n < (int)min || n > (int)max) return bsync_json_fail(&c->w, "expected %u to %u %s (got %d)", min, max, what, n);
    *count = (uint32_t)n;
    return BSYNC_OK;
}

/* ---------------------------------------------------------------- sections */

/* The offset of the first `"s"`'s first character (after its quote) in text[0..len), or (size_t)-1. */
static size_t find_quoted(const char* text, size_t len, const char* s) {
    size_t n = strlen(s);
    for (size_t i = 0; i + n + 2 <= len; i++)
        if (text[i] == '"' && text[i + n + 1] == '"' && memcmp(text + i + 1, s, n) == 0) return i + 1;
    return (size_t)-1;
}

static bsync_result parse_players(ctx* c, const cJSON* players) {
    bsync_match_config* m = c->cfg;
    bsync_result r;
    size_t old = bsync_json_path_push(&c->w, "players");
    uint32_t n;
    if ((r = get_array(c, players, 1, BSYNC_MATCH_MAX_PLAYERS, "players", &n)) != BSYNC_OK) return r;
    uint32_t k = 0;
    for (const cJSON* p = players->child; p; p = p->next, k++) {
        size_t o = bsync_json_path_push_index(&c->w, k);
        if (!cJSON_IsObject(p)) return bsync_json_fail(&c->w, "expected an object (a player)");
        static const char* const allowed[] = {"token", "secret", NULL};
        if ((r = bsync_json_check_fields(&c->w, p, allowed, "a player")) != BSYNC_OK) return r;
        const cJSON* sec = bsync_json_field(p, "secret");
        if (sec) {
            size_t so = bsync_json_path_push(&c->w, "secret");
            if (!cJSON_IsString(sec) || bsync_io_hex_decode(sec->valuestring, m->secrets[k], BSYNC_MATCH_CONFIG_SECRET_BYTES) != 0)
                return bsync_json_fail(&c->w, "expected 64 hex digits (the slot's 32-byte session secret)");
            if (!m->replay_text && !(m->replay_text = malloc(m->text_len + 1u)))
                return bsync_json_fail(&c->w, "out of memory");
            if (m->secret_count == 0) memcpy(m->replay_text, m->text, m->text_len + 1u);
            size_t at = find_quoted(m->replay_text, m->text_len, sec->valuestring);
            if (at == (size_t)-1)
                return bsync_json_fail(&c->w, "write the secret as 64 plain hex digits (no escapes): replays record the "
                                             "config with it zeroed");
            memset(m->replay_text + at, '0', 2u * BSYNC_MATCH_CONFIG_SECRET_BYTES);
            m->secret_count++;
            bsync_json_path_pop(&c->w, so);
        }
        const cJSON* t;
        if ((r = bsync_json_require(&c->w, p, "token", &t)) != BSYNC_OK) return r;
        bsync_json_path_push(&c->w, "token");
        if (!cJSON_IsString(t)) return bsync_json_fail(&c->w, "expected a string (the player's connect token)");
        size_t len = strlen(t->valuestring);
        if (len < 1 || len > BSYNC_MATCH_CONFIG_MAX_TOKEN)
            return bsync_json_fail(&c->w, "a token must be 1 to %u bytes long (got %zu)", BSYNC_MATCH_CONFIG_MAX_TOKEN, len);
        for (size_t i = 0; i < len; i++) {
            unsigned char ch = (unsigned char)t->valuestring[i];
            if (ch < 0x21 || ch > 0x7E)
                return bsync_json_fail(&c->w, "a token must be visible ASCII (0x21 to 0x7E): byte %zu is 0x%02X", i, (unsigned)ch);
        }
        memcpy(m->tokens[k], t->valuestring, len + 1);
        m->token_len[k] = (uint32_t)len;
        bsync_json_path_pop(&c->w, o);
    }
    m->desc.player_count = n;
    if (m->secret_count && m->secret_count != n)
        return bsync_json_fail(&c->w, "%u of %u players have a \"secret\": give every player one (an authenticated "
                                      "match) or none (plain tokens, insecure)", m->secret_count, n);
    bsync_json_path_pop(&c->w, old);
    return BSYNC_OK;
}

static bsync_result parse_parameters(ctx* c, const cJSON* params) {
    bsync_match_config* m = c->cfg;
    bsync_result r;
    size_t old = bsync_json_path_push(&c->w, "parameters");
    uint32_t n;
    if ((r = get_array(c, params, 0, BSYNC_MATCH_MAX_PARAMS, "input parameters", &n)) != BSYNC_OK) return r;
    uint32_t k = 0;
    for (const cJSON* p = params->child; p; p = p->next, k++) {
        size_t o = bsync_json_path_push_index(&c->w, k);
        if (!cJSON_IsObject(p)) return bsync_json_fail(&c->w, "expected an object (an input parameter)");
        static const char* const allowed[] = {"name", "min", "max", NULL};
        if ((r = bsync_json_check_fields(&c->w, p, allowed, "an input parameter")) != BSYNC_OK) return r;
        const cJSON *nm, *lo, *hi;
        if ((r = bsync_json_require(&c->w, p, "name", &nm)) != BSYNC_OK || (r = bsync_json_require(&c->w, p, "min", &lo)) != BSYNC_OK ||
            (r = bsync_json_require(&c->w, p, "max", &hi)) != BSYNC_OK)
            return r;
        size_t f = bsync_json_path_push(&c->w, "name");
        if ((r = get_name(c, nm, m->param_names[k], "an input parameter")) != BSYNC_OK) return r;
        char q[80];
        for (uint32_t i = 0; i < k; i++)
            if (!strcmp(m->param_names[i], m->param_names[k]))
                return bsync_json_fail(&c->w, "duplicate input parameter name %s (also parameter %u)", bsync_json_quoted(m->param_names[k], q, sizeof q), i);
        bsync_json_path_pop(&c->w, f);
        f = bsync_json_path_push(&c->w, "min");
        if ((r = get_fx(c, lo, &m->desc.param_min[k])) != BSYNC_OK) return r;
        bsync_json_path_pop(&c->w, f);
        f = bsync_json_path_push(&c->w, "max");
        if ((r = get_fx(c, hi, &m->desc.param_max[k])) != BSYNC_OK) return r;
        if (m->desc.param_min[k] > m->desc.param_max[k]) {
            const span* a = &c->spans[lo->valueint];
            const span* b = &c->spans[hi->valueint];
            return bsync_json_fail(&c->w, "max %.*s is less than min %.*s", (int)(b->len > 40 ? 40 : b->len), c->text + b->off,
                        (int)(a->len > 40 ? 40 : a->len), c->text + a->off);
        }
        bsync_json_path_pop(&c->w, o);
    }
    m->desc.param_count = n;
    bsync_json_path_pop(&c->w, old);
    return BSYNC_OK;
}

static bsync_result parse_triggers(ctx* c, const cJSON* triggers) {
    bsync_match_config* m = c->cfg;
    bsync_result r;
    size_t old = bsync_json_path_push(&c->w, "triggers");
    uint32_t n;
    if ((r = get_array(c, triggers, 0, BSYNC_MATCH_MAX_TRIGGERS, "input triggers", &n)) != BSYNC_OK) return r;
    uint32_t k = 0;
    for (const cJSON* t = triggers->child; t; t = t->next, k++) {
        size_t o = bsync_json_path_push_index(&c->w, k);
        if (!cJSON_IsObject(t)) return bsync_json_fail(&c->w, "expected an object (an input trigger)");
        static const char* const allowed[] = {"name", "switch", "fade_ticks", "carry", "inertialize", "script_states", NULL};
        if ((r = bsync_json_check_fields(&c->w, t, allowed, "an input trigger")) != BSYNC_OK) return r;
        const cJSON *nm, *sw;
        if ((r = bsync_json_require(&c->w, t, "name", &nm)) != BSYNC_OK || (r = bsync_json_require(&c->w, t, "switch", &sw)) != BSYNC_OK) return r;
        size_t f = bsync_json_path_push(&c->w, "name");
        if ((r = get_name(c, nm, m->trigger_names[k], "an input trigger")) != BSYNC_OK) return r;
        char q[80];
        for (uint32_t i = 0; i < k; i++)
            if (!strcmp(m->trigger_names[i], m->trigger_names[k]))
                return bsync_json_fail(&c->w, "duplicate input trigger name %s (also trigger %u)", bsync_json_quoted(m->trigger_names[k], q, sizeof q), i);
        bsync_json_path_pop(&c->w, f);
        f = bsync_json_path_push(&c->w, "switch");
        if ((r = get_name(c, sw, m->trigger_switch[k], "a switch node")) != BSYNC_OK) return r;
        bsync_json_path_pop(&c->w, f);
        m->trigger_fade[k] = 0;
        if ((r = opt_uint(c, t, "fade_ticks", 0, BSYNC_SWITCH_MAX_FADE_TICKS, &m->trigger_fade[k])) != BSYNC_OK) return r;
        m->trigger_carry[k] = 0;
        m->trigger_inertialize[k] = 0;
        if ((r = opt_bool(c, t, "carry", &m->trigger_carry[k])) != BSYNC_OK) return r;
        if ((r = opt_bool(c, t, "inertialize", &m->trigger_inertialize[k])) != BSYNC_OK) return r;
        if (m->trigger_inertialize[k] && m->trigger_fade[k] == 0) {
            f = bsync_json_path_push(&c->w, "inertialize");
            return bsync_json_fail(&c->w, "an inertialized trigger needs \"fade_ticks\" of 1 or more (the decay length)");
        }
        uint32_t states = 0;
        if ((r = opt_uint(c, t, "script_states", 0, 255, &states)) != BSYNC_OK) return r;
        m->desc.script_states[k] = (uint8_t)states;
        bsync_json_path_pop(&c->w, o);
    }
    m->desc.trigger_count = n;
    bsync_json_path_pop(&c->w, old);
    return BSYNC_OK;
}

static bsync_result parse_input(ctx* c, const cJSON* input) {
    bsync_match_config* m = c->cfg;
    bsync_result r;
    size_t old = bsync_json_path_push(&c->w, "input");
    if (!cJSON_IsObject(input)) return bsync_json_fail(&c->w, "expected an object (the input layout)");
    static const char* const allowed[] = {"parameters", "triggers", "hold_ticks", NULL};
    if ((r = bsync_json_check_fields(&c->w, input, allowed, "\"input\"")) != BSYNC_OK) return r;
    const cJSON* f;
    if ((f = bsync_json_field(input, "parameters")) && (r = parse_parameters(c, f)) != BSYNC_OK) return r;
    if ((f = bsync_json_field(input, "triggers")) && (r = parse_triggers(c, f)) != BSYNC_OK) return r;
    if ((f = bsync_json_field(input, "hold_ticks"))) {
        size_t o = bsync_json_path_push(&c->w, "hold_ticks");
        if (!cJSON_IsArray(f) || cJSON_GetArraySize(f) != 2)
            return bsync_json_fail(&c->w, "expected an array of 2 integers [min, max] (ticks a scripted input is held)");
        uint64_t lo, hi;
        size_t e = bsync_json_path_push(&c->w, "0");
        if ((r = get_uint(c, f->child, 1, BSYNC_MATCH_CONFIG_MAX_HOLD, &lo)) != BSYNC_OK) return r;
        bsync_json_path_pop(&c->w, e);
        bsync_json_path_push(&c->w, "1");
        if ((r = get_uint(c, f->child->next, 1, BSYNC_MATCH_CONFIG_MAX_HOLD, &hi)) != BSYNC_OK) return r;
        if (hi < lo) return bsync_json_fail(&c->w, "max %llu is less than min %llu", (unsigned long long)hi, (unsigned long long)lo);
        bsync_json_path_pop(&c->w, e);
        m->desc.hold_min = (uint32_t)lo;
        m->desc.hold_max = (uint32_t)hi;
        bsync_json_path_pop(&c->w, o);
    }
    bsync_json_path_pop(&c->w, old);
    return BSYNC_OK;
}

static bsync_result parse_characters(ctx* c, const cJSON* chars) {
    bsync_match_config* m = c->cfg;
    bsync_result r;
    size_t old = bsync_json_path_push(&c->w, "characters");
    uint32_t n;
    if ((r = get_array(c, chars, 1, BSYNC_MATCH_MAX_CHARACTERS, "characters", &n)) != BSYNC_OK) return r;
    uint32_t k = 0;
    for (const cJSON* ch = chars->child; ch; ch = ch->next, k++) {
        bsync_match_character_desc* d = &m->chars[k];
        size_t o = bsync_json_path_push_index(&c->w, k);
        if (!cJSON_IsObject(ch)) return bsync_json_fail(&c->w, "expected an object (a character)");
        static const char* const allowed[] = {"name", "graph", "slot", "npc_seed", NULL};
        if ((r = bsync_json_check_fields(&c->w, ch, allowed, "a character")) != BSYNC_OK) return r;
        const cJSON *nm, *gr;
        if ((r = bsync_json_require(&c->w, ch, "name", &nm)) != BSYNC_OK || (r = bsync_json_require(&c->w, ch, "graph", &gr)) != BSYNC_OK) return r;
        const cJSON* slot = bsync_json_field(ch, "slot");
        const cJSON* seed = bsync_json_field(ch, "npc_seed");
        if (slot && seed) return bsync_json_fail(&c->w, "both \"slot\" and \"npc_seed\" given (exactly one is needed)");
        if (!slot && !seed)
            return bsync_json_fail(&c->w, "missing field \"slot\" (a player character) or \"npc_seed\" (a non-player character)");
        size_t f = bsync_json_path_push(&c->w, "name");
        if ((r = get_name(c, nm, m->char_names[k], "a character")) != BSYNC_OK) return r;
        char q[80];
        for (uint32_t i = 0; i < k; i++)
            if (!strcmp(m->char_names[i], m->char_names[k]))
                return bsync_json_fail(&c->w, "duplicate character name %s (also character %u)", bsync_json_quoted(m->char_names[k], q, sizeof q), i);
        bsync_json_path_pop(&c->w, f);
        f = bsync_json_path_push(&c->w, "graph");
        if ((r = get_path(c, gr, m->char_graph[k], 0)) != BSYNC_OK) return r;
        bsync_json_path_pop(&c->w, f);
        uint64_t v;
        if (slot) {
            f = bsync_json_path_push(&c->w, "slot");
            if (!cJSON_IsNumber(slot) || get_uint(c, slot, 0, UINT32_MAX, &v) != BSYNC_OK)
                return bsync_json_fail(&c->w, "expected an integer from 0 to %u (a player slot)", m->desc.player_count - 1);
            if (v >= m->desc.player_count)
                return bsync_json_fail(&c->w, "slot %llu is out of range: the match has %u player%s (slots 0 to %u)",
                            (unsigned long long)v, m->desc.player_count, m->desc.player_count == 1 ? "" : "s",
                            m->desc.player_count - 1);
            d->slot = (uint32_t)v;
            d->npc_seed = 0;
        } else {
            f = bsync_json_path_push(&c->w, "npc_seed");
            if ((r = get_uint(c, seed, 0, BSYNC_MATCH_CONFIG_MAX_ID, &v)) != BSYNC_OK) return r;
            d->slot = BSYNC_MATCH_NPC;
            d->npc_seed = v;
        }
        bsync_json_path_pop(&c->w, f);
        bsync_json_path_pop(&c->w, o);
    }
    m->desc.character_count = n;
    bsync_json_path_pop(&c->w, old);
    return BSYNC_OK;
}

static char* join_path(const char* base_dir, const char* written) {
    size_t b = bsync_platform_path_is_absolute(BSYNC_PATH_NATIVE, written) ? 0 : strlen(base_dir), w = strlen(written);
    char* out = (char*)malloc(b + w + 1);
    if (!out) return NULL;
    memcpy(out, base_dir, b);
    memcpy(out + b, written, w + 1);
    return out;
}

static bsync_result oom(ctx* c) {
    bsync_io_set_error(c->w.err, BSYNC_OUT_OF_MEMORY, "%s: out of memory", c->w.file);
    return BSYNC_OUT_OF_MEMORY;
}

/* Load the distinct graph files, check tick rates, fill the maps. */
static bsync_result load_graphs(ctx* c, const bsync_allocator* allocator) {
    bsync_match_config* m = c->cfg;
    char q[80], q2[80];
    for (uint32_t k = 0; k < m->desc.character_count; k++) {
        char* resolved = join_path(m->base_dir, m->char_graph[k]);
        if (!resolved) return oom(c);
        uint32_t fi = 0;
        while (fi < m->file_count && strcmp(m->files[fi].resolved, resolved) != 0) fi++;
        char at[64];
        snprintf(at, sizeof at, "/characters/%u/graph", k);
        if (fi < m->file_count) {
            free(resolved);
        } else {
            graph_file* gf = &m->files[m->file_count];
            bsync_error e;
            memset(&e, 0, sizeof e);
            bsync_result r = bsync_graph_config_load_ex(resolved, c->options, allocator, &gf->gc, NULL, &e);
            if (r == BSYNC_OUT_OF_MEMORY) {
                free(resolved);
                return oom(c);
            }
            if (r != BSYNC_OK) {
                bsync_io_set_error(c->w.err, BSYNC_CONFIG_ERROR, "%s: %s: cannot load %s: %s", c->w.file, at,
                          bsync_json_quoted(m->char_graph[k], q, sizeof q), e.message);
                free(resolved);
                return BSYNC_CONFIG_ERROR;
            }
            gf->resolved = resolved;
            gf->written = m->char_graph[k];
            gf->first_character = k;
            m->file_count++;
        }
        m->char_file[k] = fi;
        const bsync_graph* g = bsync_graph_config_graph(m->files[fi].gc);
        const uint32_t rate = bsync_graph_tick_rate(g);
        if (rate < BSYNC_GRAPH_MIN_TICK_RATE || rate > BSYNC_GRAPH_MAX_TICK_RATE) {
            bsync_io_set_error(c->w.err, BSYNC_CONFIG_ERROR, "%s: %s: tick rate %u of %s is outside %u to %u", c->w.file, at, rate,
                      bsync_json_quoted(m->char_graph[k], q, sizeof q), BSYNC_GRAPH_MIN_TICK_RATE, BSYNC_GRAPH_MAX_TICK_RATE);
            return BSYNC_CONFIG_ERROR;
        }
        if (k == 0) {
            m->tick_rate = rate;
        } else if (rate != m->tick_rate) {
            bsync_io_set_error(c->w.err, BSYNC_CONFIG_ERROR,
                      "%s: %s: tick rate %u of %s (character %s) differs from tick rate %u of %s (character %s)", c->w.file,
                      at, rate, bsync_json_quoted(m->char_graph[k], q, sizeof q), m->char_names[k], m->tick_rate,
                      bsync_json_quoted(m->char_graph[0], q2, sizeof q2), m->char_names[0]);
            return BSYNC_CONFIG_ERROR;
        }
        /* the maps */
        bsync_match_character_desc* d = &m->chars[k];
        const bsync_blend_tree* tree = bsync_graph_tree(g);
        d->graph = g;
        for (uint32_t i = 0; i < BSYNC_MATCH_MAX_PARAMS; i++) d->param_map[i] = BSYNC_MATCH_UNMAPPED;
        for (uint32_t j = 0; j < BSYNC_MATCH_MAX_TRIGGERS; j++) d->trigger_map[j] = BSYNC_MATCH_UNMAPPED;
        for (uint32_t i = 0; i < m->desc.param_count; i++) {
            uint32_t p;
            if (bsync_blend_tree_find_parameter(tree, m->param_names[i], &p) == BSYNC_OK) d->param_map[i] = p;
            else note(m, "character %s: input parameter %s drives nothing", m->char_names[k], m->param_names[i]);
        }
        const uint32_t switches = bsync_graph_switch_count(g);
        for (uint32_t j = 0; j < m->desc.trigger_count; j++) {
            d->trigger_fade_ticks[j] = m->trigger_fade[j];
            d->trigger_carry[j] = m->trigger_carry[j];
            d->trigger_inertialize[j] = m->trigger_inertialize[j];
            for (uint32_t s = 0; s < switches && d->trigger_map[j] == BSYNC_MATCH_UNMAPPED; s++) {
                const char* nn = bsync_blend_tree_node_name(tree, bsync_graph_switch_node(g, s));
                if (nn && !strcmp(nn, m->trigger_switch[j])) d->trigger_map[j] = s;
            }
            if (d->trigger_map[j] == BSYNC_MATCH_UNMAPPED)
                note(m, "character %s: input trigger %s drives nothing (no switch node \"%s\")", m->char_names[k],
                     m->trigger_names[j], m->trigger_switch[j]);
            else if (d->trigger_inertialize[j] && bsync_graph_joint_count(g) == 0) {
                bsync_io_set_error(c->w.err, BSYNC_CONFIG_ERROR,
                                   "%s: %s: input trigger %s inertializes switch \"%s\", but %s has no skeleton", c->w.file,
                                   at, m->trigger_names[j], m->trigger_switch[j],
                                   bsync_json_quoted(m->char_graph[k], q, sizeof q));
                return BSYNC_CONFIG_ERROR;
            }
        }
    }
    return BSYNC_OK;
}

/* One entry per (graph file, motion) with a bound clip. */
static bsync_result collect_assets(ctx* c) {
    bsync_match_config* m = c->cfg;
    uint32_t total = 0;
    for (uint32_t f = 0; f < m->file_count; f++) {
        const bsync_graph* g = bsync_graph_config_graph(m->files[f].gc);
        for (uint32_t i = 0; i < bsync_graph_motion_count(g); i++)
            if (bsync_graph_motion_clip(g, i)) total++;
    }
    m->asset_names = (char**)calloc(total ? total : 1, sizeof(char*));
    m->asset_hashes = (uint64_t*)calloc(total ? total : 1, sizeof(uint64_t));
    if (!m->asset_names || !m->asset_hashes) return oom(c);
    for (uint32_t f = 0; f < m->file_count; f++) {
        const bsync_graph* g = bsync_graph_config_graph(m->files[f].gc);
        const bsync_blend_tree* tree = bsync_graph_tree(g);
        for (uint32_t i = 0; i < bsync_graph_motion_count(g); i++) {
            const bsync_clip* clip = bsync_graph_motion_clip(g, i);
            if (!clip) continue;
            const char* motion = bsync_blend_tree_motion_name(tree, i);
            size_t n = strlen(m->files[f].written) + 1 + strlen(motion) + 1;
            char* name = (char*)malloc(n);
            if (!name) return oom(c);
            snprintf(name, n, "%s:%s", m->files[f].written, motion);
            m->asset_names[m->asset_count] = name;
            m->asset_hashes[m->asset_count] = bsync_checksum_clip(clip);
            m->asset_count++;
        }
    }
    return BSYNC_OK;
}

static bsync_result parse_document(ctx* c, const cJSON* doc, const bsync_allocator* allocator) {
    bsync_match_config* m = c->cfg;
    bsync_result r;
    if (!cJSON_IsObject(doc)) return bsync_json_fail(&c->w, "expected an object (a match config)");
    static const char* const allowed[] = {"match_id",          "players",       "input",          "characters",
                                          "input_delay",       "checksum_interval", "desync_policy", "replay",
                                          "duration_ticks",    "timeouts",      "payload_max",    "session", NULL};
    if ((r = bsync_json_check_fields(&c->w, doc, allowed, "a match config")) != BSYNC_OK) return r;
    const cJSON *id, *players, *chars, *f;
    if ((r = bsync_json_require(&c->w, doc, "match_id", &id)) != BSYNC_OK || (r = bsync_json_require(&c->w, doc, "players", &players)) != BSYNC_OK ||
        (r = bsync_json_require(&c->w, doc, "characters", &chars)) != BSYNC_OK)
        return r;
    size_t o = bsync_json_path_push(&c->w, "match_id");
    if ((r = get_uint(c, id, 1, BSYNC_MATCH_CONFIG_MAX_ID, &m->match_id)) != BSYNC_OK) return r;
    bsync_json_path_pop(&c->w, o);
    if ((r = parse_players(c, players)) != BSYNC_OK) return r;
    if ((f = bsync_json_field(doc, "input")) && (r = parse_input(c, f)) != BSYNC_OK) return r;
    if ((r = parse_characters(c, chars)) != BSYNC_OK) return r;
    if ((r = opt_uint(c, doc, "input_delay", 0, BSYNC_MATCH_CONFIG_MAX_INPUT_DELAY, &m->input_delay)) != BSYNC_OK ||
        (r = opt_uint(c, doc, "checksum_interval", 1, BSYNC_MATCH_CONFIG_MAX_CHECKSUM_INTERVAL, &m->checksum_interval)) !=
            BSYNC_OK ||
        (r = opt_uint(c, doc, "duration_ticks", 0, UINT32_MAX, &m->duration_ticks)) != BSYNC_OK ||
        (r = opt_uint(c, doc, "payload_max", 0, BSYNC_MATCH_CONFIG_MAX_PAYLOAD, &m->payload_max)) != BSYNC_OK)
        return r;
    if ((f = bsync_json_field(doc, "desync_policy"))) {
        o = bsync_json_path_push(&c->w, "desync_policy");
        static const char* const names[] = {"report", "resync", "kick"};
        int found = -1;
        for (int i = 0; i < 3 && cJSON_IsString(f); i++)
            if (!strcmp(f->valuestring, names[i])) found = i;
        char q[80];
        if (!cJSON_IsString(f)) return bsync_json_fail(&c->w, "expected a string, one of: report, resync, kick");
        if (found < 0) return bsync_json_fail(&c->w, "unknown value %s (valid: report, resync, kick)", bsync_json_quoted(f->valuestring, q, sizeof q));
        m->policy = (bsync_match_policy)found;
        bsync_json_path_pop(&c->w, o);
    }
    m->session_mode = m->secret_count ? BSYNC_MATCH_SESSION_ENCRYPT : BSYNC_MATCH_SESSION_PLAIN;
    if ((f = bsync_json_field(doc, "session"))) {
        o = bsync_json_path_push(&c->w, "session");
        if (!cJSON_IsString(f) || (strcmp(f->valuestring, "encrypt") && strcmp(f->valuestring, "authenticate")))
            return bsync_json_fail(&c->w, "expected \"encrypt\" or \"authenticate\" (authenticated sessions)");
        if (!m->secret_count)
            return bsync_json_fail(&c->w, "a session needs a \"secret\" for every player");
        m->session_mode = strcmp(f->valuestring, "encrypt") ? BSYNC_MATCH_SESSION_AUTHENTICATE : BSYNC_MATCH_SESSION_ENCRYPT;
        bsync_json_path_pop(&c->w, o);
    }
    if ((f = bsync_json_field(doc, "timeouts"))) {
        o = bsync_json_path_push(&c->w, "timeouts");
        if (!cJSON_IsObject(f)) return bsync_json_fail(&c->w, "expected an object (timeouts in milliseconds)");
        static const char* const t_allowed[] = {"start_ms", "peer_ms", "idle_ms", NULL};
        if ((r = bsync_json_check_fields(&c->w, f, t_allowed, "\"timeouts\"")) != BSYNC_OK) return r;
        if ((r = opt_uint(c, f, "start_ms", BSYNC_MATCH_CONFIG_MIN_TIMEOUT_MS, BSYNC_MATCH_CONFIG_MAX_TIMEOUT_MS,
                          &m->timeouts.start_ms)) != BSYNC_OK ||
            (r = opt_uint(c, f, "peer_ms", BSYNC_MATCH_CONFIG_MIN_TIMEOUT_MS, BSYNC_MATCH_CONFIG_MAX_TIMEOUT_MS,
                          &m->timeouts.peer_ms)) != BSYNC_OK ||
            (r = opt_uint(c, f, "idle_ms", BSYNC_MATCH_CONFIG_MIN_TIMEOUT_MS, BSYNC_MATCH_CONFIG_MAX_TIMEOUT_MS,
                          &m->timeouts.idle_ms)) != BSYNC_OK)
            return r;
        bsync_json_path_pop(&c->w, o);
    }
    char replay[BSYNC_MATCH_CONFIG_MAX_PATH];
    replay[0] = '\0';
    if ((f = bsync_json_field(doc, "replay"))) {
        o = bsync_json_path_push(&c->w, "replay");
        if ((r = get_path(c, f, replay, 1)) != BSYNC_OK) return r;
        bsync_json_path_pop(&c->w, o);
    }
    m->replay = replay[0] ? join_path(m->base_dir, replay) : (char*)calloc(1, 1);
    if (!m->replay) return oom(c);

    if ((r = load_graphs(c, allocator)) != BSYNC_OK) return r;
    if ((r = collect_assets(c)) != BSYNC_OK) return r;
    m->desc.characters = m->chars;
    r = bsync_match_desc_validate(&m->desc);
    if (r != BSYNC_OK) return bsync_json_fail(&c->w, "the match description is invalid: %s", bsync_result_string(r));
    return BSYNC_OK;
}

/* ---------------------------------------------------------------- entry points */

void bsync_match_config_destroy(bsync_match_config* m) {
    if (!m) return;
    for (uint32_t f = 0; f < m->file_count; f++) {
        bsync_graph_config_destroy(m->files[f].gc);
        free(m->files[f].resolved);
    }
    for (uint32_t i = 0; i < m->asset_count; i++) free(m->asset_names[i]);
    free(m->asset_names);
    free(m->asset_hashes);
    free(m->replay);
    free(m->text);
    free(m->replay_text);
    free(m->path);
    free(m->base_dir);
    free(m);
}

static char* dup_n(const char* s, size_t n) {
    char* out = (char*)malloc(n + 1);
    if (!out) return NULL;
    if (n) memcpy(out, s, n);
    out[n] = '\0';
    return out;
}

/* base_dir[0..dir_len) is the directory (a '/' is added when it does not end in a separator, or on
 * Windows is not a bare drive "C:"). */
static bsync_result parse_impl(const char* text, size_t len, const char* name, const char* base_dir, size_t dir_len,
                               const bsync_config_load_options* options, const bsync_allocator* allocator,
                               bsync_match_config** out, bsync_error* err) {
    bsync_match_config* m = (bsync_match_config*)calloc(1, sizeof *m);
    /* (base_dir is either a folder, dir_len its length, or a file path whose folder part is dir_len long:
     * either way its folder part is dir_len long exactly when base_dir[0..dir_len) ends the folder) */
    int need_slash = dir_len > 0 && bsync_platform_path_dir_len(BSYNC_PATH_NATIVE, base_dir) != dir_len;
    if (m) {
        m->text = dup_n(text, len);
        m->path = dup_n(name, strlen(name));
        m->base_dir = (char*)malloc(dir_len + 2);
    }
    if (!m || !m->text || !m->path || !m->base_dir) {
        bsync_match_config_destroy(m);
        bsync_io_set_error(err, BSYNC_OUT_OF_MEMORY, "%s: out of memory", name);
        return BSYNC_OUT_OF_MEMORY;
    }
    memcpy(m->base_dir, base_dir, dir_len);
    if (need_slash) m->base_dir[dir_len++] = '/';
    m->base_dir[dir_len] = '\0';
    m->text_len = len;
    m->input_delay = BSYNC_MATCH_CONFIG_DEFAULT_INPUT_DELAY;
    m->checksum_interval = BSYNC_MATCH_CONFIG_DEFAULT_CHECKSUM_INTERVAL;
    m->policy = BSYNC_MATCH_POLICY_REPORT;
    m->timeouts.start_ms = BSYNC_MATCH_CONFIG_DEFAULT_START_MS;
    m->timeouts.peer_ms = BSYNC_MATCH_CONFIG_DEFAULT_PEER_MS;
    m->timeouts.idle_ms = BSYNC_MATCH_CONFIG_DEFAULT_IDLE_MS;
    m->desc.hold_min = BSYNC_MATCH_CONFIG_DEFAULT_HOLD_MIN;
    m->desc.hold_max = BSYNC_MATCH_CONFIG_DEFAULT_HOLD_MAX;
    m->text_len = len;

    bsync_json_doc jd;
    bsync_result r = bsync_json_exact_parse(name, text, len, &jd, err);
    ctx c;
    memset(&c, 0, sizeof c);
    c.w.file = name;
    c.text = text;
    c.spans = jd.spans;
    c.w.err = err;
    c.cfg = m;
    c.options = options;
    if (r == BSYNC_OK) r = parse_document(&c, jd.root, allocator);
    bsync_json_exact_free(&jd);
    if (r != BSYNC_OK) {
        bsync_match_config_destroy(m);
        return r;
    }
    *out = m;
    return BSYNC_OK;
}

bsync_result bsync_match_config_parse(const char* text, size_t len, const char* name, const char* base_dir,
                                      const bsync_allocator* allocator, bsync_match_config** out, bsync_error* err) {
    return bsync_match_config_parse_ex(text, len, name, base_dir, NULL, allocator, out, err);
}

bsync_result bsync_match_config_parse_ex(const char* text, size_t len, const char* name, const char* base_dir,
                                         const bsync_config_load_options* options, const bsync_allocator* allocator,
                                         bsync_match_config** out, bsync_error* err) {
    if (err) {
        err->code = BSYNC_OK;
        err->message[0] = '\0';
    }
    if (!name) name = "match";
    if (out) *out = NULL;
    if (!out || (!text && len > 0)) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "%s: %s", name, bsync_result_string(BSYNC_INVALID_ARGUMENT));
        return BSYNC_INVALID_ARGUMENT;
    }
    if (!text) text = "";
    if (!base_dir) base_dir = "";
    return parse_impl(text, len, name, base_dir, strlen(base_dir), options, allocator, out, err);
}

bsync_result bsync_match_config_load(const char* path, const bsync_allocator* allocator, bsync_match_config** out,
                                     bsync_error* err) {
    return bsync_match_config_load_ex(path, NULL, allocator, out, err);
}

bsync_result bsync_match_config_load_ex(const char* path, const bsync_config_load_options* options,
                                        const bsync_allocator* allocator, bsync_match_config** out, bsync_error* err) {
    if (err) {
        err->code = BSYNC_OK;
        err->message[0] = '\0';
    }
    if (out) *out = NULL;
    if (!path || !out) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "match config: %s", bsync_result_string(BSYNC_INVALID_ARGUMENT));
        return BSYNC_INVALID_ARGUMENT;
    }
    unsigned char* buf;
    size_t n;
    bsync_io_file_status st;
    const bsync_file_callbacks* cb = options ? &options->file : NULL;
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
    const size_t dir_len = bsync_platform_path_dir_len(BSYNC_PATH_NATIVE, path);
    bsync_result r = parse_impl((const char*)buf, n, path, path, dir_len, options, allocator, out, err);
    free(buf);
    return r;
}

/* ---------------------------------------------------------------- accessors */

const char* bsync_match_policy_name(bsync_match_policy policy) {
    switch (policy) {
    case BSYNC_MATCH_POLICY_REPORT: return "report";
    case BSYNC_MATCH_POLICY_RESYNC: return "resync";
    case BSYNC_MATCH_POLICY_KICK: return "kick";
    }
    return "unknown";
}

const bsync_match_desc* bsync_match_config_desc(const bsync_match_config* m) { return m ? &m->desc : NULL; }
uint64_t bsync_match_config_match_id(const bsync_match_config* m) { return m ? m->match_id : 0; }
uint32_t bsync_match_config_player_count(const bsync_match_config* m) { return m ? m->desc.player_count : 0; }
const char* bsync_match_config_token(const bsync_match_config* m, uint32_t slot, size_t* len) {
    if (!m || slot >= m->desc.player_count) {
        if (len) *len = 0;
        return NULL;
    }
    if (len) *len = m->token_len[slot];
    return m->tokens[slot];
}
const char* bsync_match_config_param_name(const bsync_match_config* m, uint32_t i) {
    return m && i < m->desc.param_count ? m->param_names[i] : NULL;
}
const char* bsync_match_config_trigger_name(const bsync_match_config* m, uint32_t j) {
    return m && j < m->desc.trigger_count ? m->trigger_names[j] : NULL;
}
const char* bsync_match_config_trigger_switch(const bsync_match_config* m, uint32_t j) {
    return m && j < m->desc.trigger_count ? m->trigger_switch[j] : NULL;
}
const char* bsync_match_config_character_name(const bsync_match_config* m, uint32_t c) {
    return m && c < m->desc.character_count ? m->char_names[c] : NULL;
}
uint32_t bsync_match_config_character_slot(const bsync_match_config* m, uint32_t c) {
    return m && c < m->desc.character_count ? m->chars[c].slot : UINT32_MAX;
}
uint32_t bsync_match_config_input_delay(const bsync_match_config* m) { return m ? m->input_delay : 0; }
uint32_t bsync_match_config_checksum_interval(const bsync_match_config* m) { return m ? m->checksum_interval : 0; }
bsync_match_policy bsync_match_config_desync_policy(const bsync_match_config* m) {
    return m ? m->policy : BSYNC_MATCH_POLICY_REPORT;
}
const char* bsync_match_config_replay_path(const bsync_match_config* m) { return m ? m->replay : ""; }
uint32_t bsync_match_config_duration_ticks(const bsync_match_config* m) { return m ? m->duration_ticks : 0; }
bsync_match_timeouts bsync_match_config_timeouts(const bsync_match_config* m) {
    bsync_match_timeouts none = {0, 0, 0};
    return m ? m->timeouts : none;
}
uint32_t bsync_match_config_payload_max(const bsync_match_config* m) { return m ? m->payload_max : 0; }
uint32_t bsync_match_config_tick_rate(const bsync_match_config* m) { return m ? m->tick_rate : 0; }
const bsync_graph_config* bsync_match_config_character_graph(const bsync_match_config* m, uint32_t c) {
    return m && c < m->desc.character_count ? m->files[m->char_file[c]].gc : NULL;
}
uint32_t bsync_match_config_character_graph_file(const bsync_match_config* m, uint32_t c) {
    return m && c < m->desc.character_count ? m->char_file[c] : UINT32_MAX;
}
uint32_t bsync_match_config_graph_file_count(const bsync_match_config* m) { return m ? m->file_count : 0; }
const char* bsync_match_config_graph_file_path(const bsync_match_config* m, uint32_t i) {
    return m && i < m->file_count ? m->files[i].resolved : NULL;
}
const char* bsync_match_config_graph_file_written(const bsync_match_config* m, uint32_t i) {
    return m && i < m->file_count ? m->files[i].written : NULL;
}
uint64_t bsync_match_config_graph_file_hash(const bsync_match_config* m, uint32_t i) {
    return m && i < m->file_count ? bsync_graph_hash(bsync_graph_config_graph(m->files[i].gc)) : 0;
}
const bsync_graph_config* bsync_match_config_graph_file_config(const bsync_match_config* m, uint32_t i) {
    return m && i < m->file_count ? m->files[i].gc : NULL;
}
const char* bsync_match_config_text(const bsync_match_config* m, size_t* len) {
    if (len) *len = m ? m->text_len : 0;
    return m ? m->text : "";
}

const char* bsync_match_config_replay_text(const bsync_match_config* m, size_t* len) {
    if (len) *len = m ? m->text_len : 0;
    return m ? (m->replay_text ? m->replay_text : m->text) : "";
}

bsync_match_session bsync_match_config_session(const bsync_match_config* m) {
    return m ? (bsync_match_session)m->session_mode : BSYNC_MATCH_SESSION_PLAIN;
}

int bsync_match_config_secret(const bsync_match_config* m, uint32_t slot, uint8_t out[BSYNC_MATCH_CONFIG_SECRET_BYTES]) {
    if (!m || !m->secret_count || slot >= m->desc.player_count) return 0;
    if (out) memcpy(out, m->secrets[slot], BSYNC_MATCH_CONFIG_SECRET_BYTES);
    return 1;
}
const char* bsync_match_config_path(const bsync_match_config* m) { return m ? m->path : ""; }
const char* bsync_match_config_base_dir(const bsync_match_config* m) { return m ? m->base_dir : ""; }
const char* bsync_match_config_notes(const bsync_match_config* m) { return m ? m->notes : ""; }

uint32_t bsync_match_config_asset_hashes(const bsync_match_config* m, const char** names, uint64_t* hashes,
                                         uint32_t cap) {
    if (!m) return 0;
    for (uint32_t k = 0; k < m->asset_count && k < cap; k++) {
        if (names) names[k] = m->asset_names[k];
        if (hashes) hashes[k] = m->asset_hashes[k];
    }
    return m->asset_count;
}

void bsync_match_config_replay_header(const bsync_match_config* cfg, const char* build_version, uint32_t start_tick,
                                      bsync_replay_header* h) {
    memset(h, 0, sizeof *h);
    const bsync_match_desc* d = bsync_match_config_desc(cfg);
    h->format_version = BSYNC_REPLAY_FORMAT_VERSION;
    snprintf(h->build_version, sizeof h->build_version, "%s", build_version ? build_version : "");
    h->match_id = bsync_match_config_match_id(cfg);
    h->match_hash = bsync_match_hash(d);
    h->tick_rate = bsync_match_config_tick_rate(cfg);
    h->player_count = d->player_count;
    h->param_count = d->param_count;
    h->trigger_count = d->trigger_count;
    h->character_count = d->character_count;
    h->input_delay = bsync_match_config_input_delay(cfg);
    h->checksum_interval = bsync_match_config_checksum_interval(cfg);
    h->start_tick = start_tick;
    const char* names[BSYNC_REPLAY_MAX_ASSETS];
    uint64_t hashes[BSYNC_REPLAY_MAX_ASSETS];
    uint32_t n = bsync_match_config_asset_hashes(cfg, names, hashes, BSYNC_REPLAY_MAX_ASSETS);
    h->asset_count = n < BSYNC_REPLAY_MAX_ASSETS ? n : BSYNC_REPLAY_MAX_ASSETS;
    for (uint32_t i = 0; i < h->asset_count; i++) {
        snprintf(h->assets[i].name, sizeof h->assets[i].name, "%s", names[i]);
        h->assets[i].hash = hashes[i];
    }
    snprintf(h->config_path, sizeof h->config_path, "%s", bsync_match_config_path(cfg));
    size_t len = 0;
    h->config_text = bsync_match_config_replay_text(cfg, &len); /* secrets zeroed */
    h->config_len = (uint32_t)len;
}
