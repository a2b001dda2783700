/* cmd_bot.c — `blendsync bot`: a headless client that joins a match on a blendsync server and plays a
 * scripted joystick path (--script CSV) or a seeded random one (the same generator NPCs use,
 * bsync_match_random_input), printing a
 * status line per second. With --inject-desync TICK it flips one bit of its own state after that frame
 * (client_testing.h: a planted fault, not part of the client library's API), so the server's detection
 * can be shown and tested. --drop and --delay act on the bot's own inputs before the client library
 * sees them; network loss, delay and reordering are the relay's (tests/tools/udp_relay.c).
 *
 * Exit: 0 the match ended normally and no desync was reported to this bot; 1 the match ended (or the
 * bot was kicked) with a desync reported; 2 an error: refused (BYE with a reason), the connection
 * lost, bad arguments; 3 the match ended but this bot could not apply all of it (frames missing: the
 * client library's EVENT_INCOMPLETE; its replay then ends with reason aborted). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blendsync/client.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/match.h"
#include "blendsync/io/match_config.h"
#include "blendsync/io/script.h"
#include "blendsync/net.h"
#include "blendsync/present.h"
#include "client_testing.h"
#include "commands.h"

static void usage(FILE* f) {
    fprintf(f,
            "usage: blendsync bot --server HOST:PORT --config MATCH.json --slot N --token T\n"
            "                     [--match ID] [--script FILE | --seed S] [--inject-desync TICK] [--quiet]\n"
            "                     [--inject-pose-desync TICK:CHARACTER:JOINT]\n"
            "                     [--replay FILE] [--desync-dir DIR] [--capture FILE] [--secret HEX]\n"
            "                     [--drop PERMILLE] [--delay MIN_MS:MAX_MS] [--timeout SECONDS] [--protocol 6|7]\n"
            "                     [--reconnect-seconds S]\n"
            "                     [--predict [--rollback-window W] [--local-delay D] [--predict-synctest]]\n"
            "                     [--latency]\n"
            "\n"
            "A headless client: joins the match, sends a seeded random joystick input every tick,\n"
            "simulates every confirmed frame, sends pose and blend-state checksums, and prints a status\n"
            "line per second (tick, round-trip time, checksums sent, desyncs). It needs the match's\n"
            "config file (the same graphs as the server: the HELLO carries their hash).\n"
            "\n"
            "  --server HOST:PORT     the blendsync-server\n"
            "  --config FILE          the match config (docs/match-config.md)\n"
            "  --slot N, --token T    the player slot and its token (from the match config)\n"
            "  --secret HEX           the slot's session secret, 64 hex digits (default: the match\n"
            "                         config's \"secret\" of the slot, when the match has secrets): an\n"
            "                         authenticated, encrypted session (docs/security.md); without one\n"
            "                         the token travels in clear (insecure)\n"
            "  --match ID             the match id (default: the config's)\n"
            "  --script FILE          a CSV joystick path: header \"tick,NAME,...\" (input parameters and\n"
            "                         triggers of the match), rows \"TICK,VALUE,...\" by input tick; a row\n"
            "                         holds from its tick on (triggers fire on their row's tick only)\n"
            "  --seed S               the seeded random joystick path's seed (default: 1000 + slot)\n"
            "  --inject-desync TICK   flip one bit of this bot's own state after frame TICK\n"
            "  --inject-pose-desync TICK:CHARACTER:JOINT\n"
            "                         from frame TICK on, report joint JOINT (index) of character\n"
            "                         CHARACTER (index) as differing: a pose-only desync (the state agrees)\n"
            "  --replay FILE          record this bot's own view of the match as a replay (its frames\n"
            "                         and the checksums it sent; `blendsync replay verify FILE`)\n"
            "  --desync-dir DIR       when the server reports a desync of this bot, also keep its own\n"
            "                         dump in DIR/tick<T>-slot<S>/ (its state then and at the last\n"
            "                         agreeing tick, its per-tick trail, the inputs in between)\n"
            "  --capture FILE         write every packet this bot sends and receives, as bytes on the\n"
            "                         wire with its ENet channel and time (docs/protocol.md \"Captures\")\n"
            "  --drop PERMILLE        skip this share of the bot's ticks: no input sent (the server\n"
            "                         defaults them); network loss is the relay's (bsync_udp_relay)\n"
            "  --delay MIN:MAX        hand each input to the client MIN..MAX ms late (a slow game\n"
            "                         loop: it goes to a later tick)\n"
            "  --timeout SECONDS      give up after this long (default 600)\n"
            "  --reconnect-seconds S  after losing the server mid-match, keep reconnecting this long and\n"
            "                         resume (default 10; e.g. a server restarted with --recover)\n"
            "  --protocol 6|7         the protocol version to speak (default 7; 6 to compare, docs/protocol.md)\n"
            "  --quiet                no status lines, only the summary\n"
            "  --actions              print each character's range actions (e.g. a punch's hit window)\n"
            "                         as they open in the local match (docs/actions.md)\n"
            "  --predict              predict and roll back (docs/prediction.md): the shown match runs\n"
            "                         ahead of the confirmed one; the summary adds rollbacks, their depth\n"
            "                         p50/p99/max, predicted ticks, corrections smoothed and teleported\n"
            "  --rollback-window W    predict at most W ticks past the last confirmed frame (default 8)\n"
            "  --local-delay D        show the local input D ticks after its tick (default 0)\n"
            "  --predict-synctest     re-simulate every predicted span from the confirmed state and\n"
            "                         compare (the sync test over prediction; costs CPU)\n"
            "  --latency              measure input-to-screen at a 60 Hz display: from sending an input\n"
            "                         to the first frame whose shown match includes its tick\n"
            "\n"
            "Exit status: 0 match over, no desync; 1 match over with a desync reported (or kicked);\n"
            "2 error (refused, connection lost, bad arguments); 3 the match ended but this bot did not\n"
            "apply all of it (frames missing; its replay ends \"aborted\").\n");
}


#define BOT_HELD_MAX 64u

static uint64_t splitmix(uint64_t* s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* --capture FILE (docs/protocol.md "Captures"): an 8-byte header "BSCP", u16 version 1, u16 0; then
 * per packet u8 direction (1 sent, 0 received), u8 ENet channel, u16 length, u32 ms since the
 * capture began, the packet's bytes; all little-endian, appended record by record. */
typedef struct bot_capture {
    FILE* f;
    uint64_t start_us;
    int failed;
} bot_capture;

static void put_le(uint8_t* p, uint64_t v, int n) {
    for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void capture_packet(void* user, int sent, unsigned channel, const uint8_t* data, size_t len) {
    bot_capture* cap = user;
    if (!cap->f || cap->failed || len > UINT16_MAX) return;
    uint8_t head[8];
    head[0] = (uint8_t)(sent ? 1 : 0);
    head[1] = (uint8_t)channel;
    put_le(head + 2, len, 2);
    put_le(head + 4, (bsync_net_now_us() - cap->start_us) / 1000u, 4);
    if (fwrite(head, 1, sizeof head, cap->f) != sizeof head || fwrite(data, 1, len, cap->f) != len) cap->failed = 1;
}

static int parse_u64(const char* s, uint64_t* out) {
    if (!s || !*s) return -1;
    char* end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (!end || *end || s[0] == '-') return -1;
    *out = v;
    return 0;
}

/* --inject-pose-desync TICK:CHARACTER:JOINT: three decimal numbers, a character index below
 * BSYNC_MATCH_MAX_CHARACTERS and a joint index below BSYNC_MAX_JOINTS. 0, or -1 (out zeroed). */
static int parse_pose_spec(const char* s, uint32_t out[3]) {
    static const uint64_t limit[3] = {UINT32_MAX, BSYNC_MATCH_MAX_CHARACTERS - 1u, BSYNC_MAX_JOINTS - 1u};
    out[0] = out[1] = out[2] = 0;
    for (int k = 0; k < 3; k++) {
        if (!s || *s < '0' || *s > '9') return -1;
        char* end = NULL;
        unsigned long long v = strtoull(s, &end, 10);
        if (!end || v > limit[k] || *end != (k < 2 ? ':' : '\0')) return -1;
        out[k] = (uint32_t)v;
        s = end + 1;
    }
    return 0;
}

/* --actions: what was open after the last tick looked at, per character and action (a display of the
 * local match, not simulation: the client may apply several ticks between two looks, and a range open
 * for at least one tick is seen open after one of them only if the look falls on it; the demo's hit
 * window stays open for 6 ticks at 30 Hz). */
#define OPENED_CHARACTERS 64u
#define OPENED_ACTIONS 64u
typedef struct opened_ranges {
    uint64_t tick;
    uint8_t open[OPENED_CHARACTERS][OPENED_ACTIONS];
} opened_ranges;

static void print_opened_ranges(bsync_client* c, const bsync_match_config* mc, uint64_t slot, opened_ranges* o) {
    const bsync_match* m = bsync_client_match(c);
    if (!m) return;
    const uint64_t tick = bsync_match_tick_count(m);
    if (tick == o->tick) return;
    o->tick = tick;
    const uint32_t chars = bsync_match_character_count(m);
    for (uint32_t ch = 0; ch < chars && ch < OPENED_CHARACTERS; ch++) {
        const bsync_instance* inst = bsync_match_instance_const(m, ch);
        const bsync_action_report* r = NULL;
        uint32_t n = 0;
        uint8_t now[OPENED_ACTIONS] = {0};
        if (!inst || bsync_instance_actions(inst, &r, &n) != BSYNC_OK) continue;
        for (uint32_t i = 0; i < n; i++) {
            if (r[i].kind != (uint32_t)BSYNC_ACTION_RANGE || r[i].action >= OPENED_ACTIONS) continue;
            if (!r[i].active && r[i].count == 0) continue;
            now[r[i].action] = 1;
            if (o->open[ch][r[i].action]) continue;
            bsync_graph_action_desc d;
            if (bsync_graph_action(bsync_instance_graph(inst), r[i].action, &d) != BSYNC_OK) continue;
            printf("bot slot %llu: tick %llu  %s: %s window open (payload %d)\n", (unsigned long long)slot,
                   (unsigned long long)(tick - 1), bsync_match_config_character_name(mc, ch), d.name, (int)d.payload);
        }
        memcpy(o->open[ch], now, sizeof now);
    }
}

/* --predict: the bot renders as a game would, once per tick period, from the predicted match with the
 * correction offsets (bsync_client_predict_present), so corrections are smoothed and counted. */
#define BOT_ADV_MAX 65536u
typedef struct bot_shown {
    int16_t adv[BOT_ADV_MAX];    /* frame advantage over the server's clock, per shown frame: shown tick */
    int16_t adv_in[BOT_ADV_MAX]; /* ... and the newest input's tick + 1 (what the window may hold back) */
    uint32_t adv_n;
    uint32_t input_next; /* the newest input's tick + 1 */
    void* scratch;
    size_t scratch_size;
    bsync_trs* pose;
    bsync_root_motion root[BSYNC_MATCH_MAX_CHARACTERS];
    uint64_t next_us, last_ns;
} bot_shown;

static void bot_present(bsync_client* c, bot_shown* s, uint64_t period_us) {
    const uint64_t now = bsync_net_now_us();
    if (now < s->next_us) return;
    s->next_us = now + period_us;
    bsync_match* m = bsync_client_predict_match(c);
    if (!s->pose) {
        s->scratch_size = bsync_present_match_scratch_size(m);
        s->scratch = malloc(s->scratch_size ? s->scratch_size : 1u);
        s->pose = malloc(sizeof *s->pose * (bsync_present_match_joint_count(m) + 1u));
        if (!s->scratch || !s->pose) return;
    }
    const uint64_t ns = now * 1000u;
    (void)bsync_client_predict_present(c, bsync_client_predict_alpha(c), s->last_ns ? ns - s->last_ns : 0, s->scratch,
                                       s->scratch_size, s->pose, s->root);
    s->last_ns = ns;
    /* the frame advantage: the shown (predicted) tick against the server's tick by this client's clock
     * (START's deadline, corrected by half the round trip, plus the periods since: docs/lockstep.md) */
    bsync_client_stats st;
    bsync_client_get_stats(c, &st);
    const uint32_t rate = bsync_client_tick_rate(c);
    if (st.start_known && rate && now > st.start_deadline_us && s->adv_n < BOT_ADV_MAX) {
        const int64_t clock = (int64_t)st.start_tick + 1 + (int64_t)((now - st.start_deadline_us) * rate / 1000000u);
        const int64_t adv = (int64_t)bsync_client_predict_tick(c) - clock, in = (int64_t)s->input_next - clock;
        s->adv_in[s->adv_n] = (int16_t)(in < -30000 ? -30000 : in > 30000 ? 30000 : in);
        s->adv[s->adv_n++] = (int16_t)(adv < -30000 ? -30000 : adv > 30000 ? 30000 : adv);
    }
}

/* Mean frame advantage over the first and the last third of the shown frames (a drift shows as a
 * difference). */
static void bot_print_advantage(const bot_shown* s, uint64_t slot) {
    const uint32_t k = s->adv_n / 3u;
    if (!k) return;
    double a = 0, b = 0, ai = 0, bi = 0;
    for (uint32_t i = 0; i < k; i++) {
        a += s->adv[i];
        b += s->adv[s->adv_n - k + i];
        ai += s->adv_in[i];
        bi += s->adv_in[s->adv_n - k + i];
    }
    printf("bot slot %llu: frame advantage over the server's clock, first / last third of the match: shown tick "
           "%.2f / %.2f, input tick %.2f / %.2f\n",
           (unsigned long long)slot, a / k, b / k, ai / k, bi / k);
}

/* --latency: input-to-screen, measured at a 60 Hz display: an input sent for tick t is on screen at the
 * first display frame whose shown match (predicted, or confirmed in lockstep) holds the state after t. */
#define BOT_LAT_RING 512u
#define BOT_LAT_MAX 65536u
typedef struct bot_latency {
    uint64_t sent_us[BOT_LAT_RING];
    uint32_t sent_tick[BOT_LAT_RING];
    uint32_t shown_upto; /* ticks below it were on screen already */
    uint64_t next_us;
    uint32_t n;
    uint32_t ms10[BOT_LAT_MAX]; /* samples, 0.1 ms */
} bot_latency;

static void bot_latency_sent(bot_latency* l, uint32_t tick) {
    l->sent_us[tick % BOT_LAT_RING] = bsync_net_now_us();
    l->sent_tick[tick % BOT_LAT_RING] = tick;
}

static void bot_latency_frame(bsync_client* c, bot_latency* l) {
    const uint64_t now = bsync_net_now_us();
    if (now < l->next_us) return;
    l->next_us = now + 16667u;
    const uint32_t shown = bsync_client_predict_tick(c);
    for (uint32_t t = l->shown_upto; t < shown; t++) /* the state after t is shown: t + 1 <= shown */
        if (l->sent_tick[t % BOT_LAT_RING] == t && l->n < BOT_LAT_MAX && now >= l->sent_us[t % BOT_LAT_RING])
            l->ms10[l->n++] = (uint32_t)((now - l->sent_us[t % BOT_LAT_RING]) / 100u);
    if (shown > l->shown_upto) l->shown_upto = shown;
}

static int bot_cmp_u32(const void* a, const void* b) {
    const uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
    return (x > y) - (x < y);
}

static void bot_latency_print(bot_latency* l, uint64_t slot, int predicting) {
    if (!l->n) return;
    qsort(l->ms10, l->n, sizeof l->ms10[0], bot_cmp_u32);
    printf("bot slot %llu: input-to-screen (%s, 60 Hz display): p50 %.1f ms p99 %.1f ms over %u inputs\n",
           (unsigned long long)slot, predicting ? "prediction" : "lockstep", l->ms10[l->n / 2] / 10.0,
           l->ms10[(uint64_t)l->n * 99u / 100u] / 10.0, l->n);
}

static void bot_present_free(bot_shown* s) {
    free(s->scratch);
    free(s->pose);
}

static void bot_print_prediction(bsync_client* c, uint64_t slot) {
    bsync_client_predict_stats ps;
    bsync_client_predict_get_stats(c, &ps);
    printf("bot slot %llu: prediction: %llu rollbacks, depth p50 %u p99 %u max %u, %llu predicted ticks, %llu "
           "re-simulated, %llu mispredicted frames, %llu window waits, corrections %llu smoothed %llu teleported, "
           "synctest %llu checks %llu mismatches\n",
           (unsigned long long)slot, (unsigned long long)ps.rollbacks, bsync_client_predict_depth_quantile(&ps, 500),
           bsync_client_predict_depth_quantile(&ps, 990), ps.depth_max, (unsigned long long)ps.predicted_ticks,
           (unsigned long long)ps.resimulated_ticks, (unsigned long long)ps.mispredicted_frames,
           (unsigned long long)ps.window_waits, (unsigned long long)ps.corrections_smoothed,
           (unsigned long long)ps.corrections_teleported, (unsigned long long)ps.synctest_checks,
           (unsigned long long)ps.synctest_mismatches);
}

int bsync_cmd_bot(int argc, char** argv) {
    const char* server = NULL;
    const char* config = NULL;
    const char* token = NULL;
    const char* secret_hex = NULL;
    const char* script_path = NULL;
    const char* replay_path = NULL;
    const char* desync_dir = NULL;
    const char* capture_path = NULL;
    uint64_t slot = UINT64_MAX, match_id = 0, seed = 0, inject = 0, drop = 0, timeout = 600, reconnect_s = 0, protocol = 0;
    int have_seed = 0, have_inject = 0, have_pose_inject = 0, quiet = 0, actions = 0;
    uint32_t delay_min = 0, delay_max = 0, pose_tick = 0, pose_character = 0, pose_joint = 0;
    bsync_client_predict_config predict;
    memset(&predict, 0, sizeof predict);
    bot_latency* latency = NULL; /* --latency */
    int want_latency = 0;
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--quiet")) {
            quiet = 1;
            continue;
        } else if (!strcmp(a, "--actions")) {
            actions = 1;
            continue;
        } else if (!strcmp(a, "--latency")) {
            want_latency = 1;
            continue;
        } else if (!strcmp(a, "--predict") || !strcmp(a, "--predict-synctest")) {
            predict.enabled = 1;
            if (a[9]) predict.synctest = 1;
            continue;
        } else if (!v) {
            bad = 1;
        } else if (!strcmp(a, "--server")) server = v;
        else if (!strcmp(a, "--config")) config = v;
        else if (!strcmp(a, "--token")) token = v;
        else if (!strcmp(a, "--secret")) secret_hex = v;
        else if (!strcmp(a, "--script")) script_path = v;
        else if (!strcmp(a, "--replay")) replay_path = v;
        else if (!strcmp(a, "--desync-dir")) desync_dir = v;
        else if (!strcmp(a, "--capture")) capture_path = v;
        else if (!strcmp(a, "--slot")) bad = parse_u64(v, &slot) || slot >= BSYNC_PROTO_MAX_PLAYERS;
        else if (!strcmp(a, "--match")) bad = parse_u64(v, &match_id);
        else if (!strcmp(a, "--seed")) bad = parse_u64(v, &seed), have_seed = 1;
        else if (!strcmp(a, "--inject-desync")) bad = parse_u64(v, &inject) || inject > UINT32_MAX, have_inject = 1;
        else if (!strcmp(a, "--inject-pose-desync")) {
            uint32_t spec[3];
            bad = parse_pose_spec(v, spec);
            pose_tick = spec[0], pose_character = spec[1], pose_joint = spec[2], have_pose_inject = 1;
        } else if (!strcmp(a, "--drop")) bad = parse_u64(v, &drop) || drop > 1000;
        else if (!strcmp(a, "--timeout")) bad = parse_u64(v, &timeout) || timeout == 0;
        else if (!strcmp(a, "--reconnect-seconds")) bad = parse_u64(v, &reconnect_s) || reconnect_s == 0 || reconnect_s > 3600;
        else if (!strcmp(a, "--rollback-window") || !strcmp(a, "--local-delay")) {
            uint64_t n = 0;
            bad = parse_u64(v, &n) || n > BSYNC_CLIENT_PREDICT_WINDOW_MAX || (a[2] == 'r' && n == 0);
            if (a[2] == 'r') predict.rollback_window = (uint32_t)n;
            else predict.local_delay = (uint32_t)n;
        }
        else if (!strcmp(a, "--protocol")) /* docs/protocol.md "Versioning": 6 for comparisons */
            bad = parse_u64(v, &protocol) || protocol < BSYNC_PROTO_VERSION_MIN || protocol > BSYNC_PROTO_VERSION;
        else if (!strcmp(a, "--delay")) {
            unsigned lo = 0, hi = 0;
            char tail = 0;
            bad = sscanf(v, "%u:%u%c", &lo, &hi, &tail) != 2 || lo > hi || hi > 10000;
            delay_min = lo;
            delay_max = hi;
        } else bad = 2;
        if (bad) {
            fprintf(stderr, "blendsync bot: %s \"%s\"\n\n", bad == 2 ? "unknown argument" : "bad value for", a);
            usage(stderr);
            return 2;
        }
        i++;
    }
    if (!server || !config || !token || slot == UINT64_MAX) {
        fprintf(stderr, "blendsync bot: --server, --config, --slot and --token are required\n\n");
        usage(stderr);
        return 2;
    }
    char host[256];
    uint16_t port = 0;
    if (bsync_net_parse_address(server, host, sizeof host, &port) != 0) {
        fprintf(stderr, "blendsync bot: --server: expected HOST:PORT, got \"%s\"\n", server);
        return 2;
    }
    bsync_match_config* mc = NULL;
    bsync_error err;
    memset(&err, 0, sizeof err);
    if (bsync_match_config_load(config, NULL, &mc, &err) != BSYNC_OK) {
        fprintf(stderr, "blendsync bot: %s\n", err.message);
        return 2;
    }
    const bsync_match_desc* desc = bsync_match_config_desc(mc);
    bsync_script* bs = NULL; /* --script: the input script (io/script.h, docs/scripts.md) */
    if (script_path && bsync_script_load_inputs(script_path, mc, NULL, &bs, &err) != BSYNC_OK) {
        fprintf(stderr, "blendsync bot: %s\n", err.message);
        bsync_match_config_destroy(mc);
        return 2;
    }
    if (!match_id) match_id = bsync_match_config_match_id(mc);
    if (!have_seed) seed = 1000u + slot;
    bsync_client_config cc;
    memset(&cc, 0, sizeof cc);
    cc.host = host;
    cc.port = port;
    cc.match_id = match_id;
    cc.slot = (uint8_t)slot;
    cc.token = (const uint8_t*)token;
    cc.token_len = (uint32_t)strlen(token);
    cc.reconnect_timeout_ms = (uint32_t)(reconnect_s * 1000u); /* 0: the library's 10 s */
    cc.protocol_version = (uint32_t)protocol;
    uint8_t secret[BSYNC_SESSION_SECRET_BYTES];
    if (secret_hex) {
        if (bsync_session_secret_parse(secret_hex, secret) != 0) {
            fprintf(stderr, "blendsync bot: --secret: expected 64 hex digits\n");
            bsync_script_destroy(bs);
            bsync_match_config_destroy(mc);
            return 2;
        }
        cc.secret = secret;
    } else if (bsync_match_config_secret(mc, (uint32_t)slot, secret)) {
        cc.secret = secret;
    }
    if (cc.secret) cc.session_mode = bsync_match_config_session(mc) == BSYNC_MATCH_SESSION_AUTHENTICATE ? 2u : 1u;
    if (cc.secret && !bsync_session_available()) {
        fprintf(stderr, "blendsync bot: this build has no libsodium: it cannot play an authenticated match\n");
        bsync_script_destroy(bs);
        bsync_match_config_destroy(mc);
        return 2;
    }
    if (!quiet)
        printf("bot slot %llu: session %s\n", (unsigned long long)slot,
               !cc.secret ? "plain (insecure: the token travels in clear)"
               : cc.session_mode == 2 ? "authenticated (not encrypted)" : "authenticated and encrypted");
    cc.desc = desc;
    cc.compute_poses = 1;
    cc.predict = predict;
    cc.desync_dir = desync_dir;
    cc.names = mc;
    static bsync_replay_header rh; /* large (asset names) */
    if (replay_path) {
        char build[96];
        snprintf(build, sizeof build, "blendsync %s bot slot %u", BSYNC_VERSION_STRING, (unsigned)slot);
        bsync_match_config_replay_header(mc, build, 0, &rh);
        cc.replay_path = replay_path;
        cc.replay_header = &rh;
    }
    bsync_client* c = NULL;
    if (bsync_client_create(&cc, &c, &err) != BSYNC_OK) {
        fprintf(stderr, "blendsync bot: %s\n", err.message);
        bsync_match_config_destroy(mc);
        return 2;
    }
    if (have_inject) bsync_client_fault_desync(c, (uint32_t)inject);
    if (have_pose_inject) bsync_client_fault_pose(c, pose_tick, pose_character, pose_joint);
    bot_capture cap;
    memset(&cap, 0, sizeof cap);
    if (capture_path) {
        static const uint8_t magic[8] = {'B', 'S', 'C', 'P', 1, 0, 0, 0};
        cap.f = fopen(capture_path, "wb");
        if (!cap.f || fwrite(magic, 1, sizeof magic, cap.f) != sizeof magic) {
            fprintf(stderr, "blendsync bot: cannot write the capture %s\n", capture_path);
            if (cap.f) fclose(cap.f);
            bsync_client_destroy(c);
            bsync_script_destroy(bs);
            bsync_match_config_destroy(mc);
            return 2;
        }
        cap.start_us = bsync_net_now_us();
        bsync_client_set_packet_hook(c, capture_packet, &cap);
    }
    bsync_match_script script;
    bsync_match_script_init(&script, seed);
    uint64_t start = bsync_net_now_us(), next_input = 0, next_status = start + 1000000u;
    uint64_t period = 0;
    uint32_t next_script_tick = 0;
    /* --drop and --delay: seeded, one draw each per tick */
    uint64_t rng = seed ^ 0x626c656e64636c69ull;
    uint64_t held[BOT_HELD_MAX]; /* --delay: when each held tick's input is handed over */
    uint32_t held_count = 0;
    int status = -1, desynced = 0, incomplete = 0;
    uint32_t bye = 0;
    opened_ranges opened;
    memset(&opened, 0, sizeof opened);
    static bot_shown shown; /* large (the advantage samples) */
    memset(&shown, 0, sizeof shown);
    if (want_latency) latency = calloc(1, sizeof *latency); /* NULL: no measurement */
    uint64_t rx_bytes = 0, rx_us = bsync_net_now_us(); /* when the last packet came (a silent server) */
    while (status < 0) {
        bsync_client_service(c, 2);
        bsync_client_event ev;
        while (bsync_client_poll_event(c, &ev)) {
            switch (ev.type) {
            case BSYNC_CLIENT_EVENT_RECONNECTING:
                printf("bot slot %llu: connection lost at frame %u, %llu ms after the last packet: reconnecting\n",
                       (unsigned long long)slot, ev.tick, (unsigned long long)((bsync_net_now_us() - rx_us) / 1000u));
                fflush(stdout);
                break;
            case BSYNC_CLIENT_EVENT_WELCOME:
                period = 1000000u / bsync_client_tick_rate(c);
                next_input = bsync_net_now_us();
                if (!quiet)
                    printf("bot slot %llu: joined match %llu at tick %u (%u Hz, input delay %u)\n",
                           (unsigned long long)slot, (unsigned long long)match_id, ev.tick, bsync_client_tick_rate(c),
                           bsync_client_input_delay(c));
                break;
            case BSYNC_CLIENT_EVENT_DESYNC:
                desynced = 1;
                printf("bot slot %llu: DESYNC reported by the server at tick %u: %s, character %d, expected %016llx got "
                       "%016llx, action %s\n",
                       (unsigned long long)slot, ev.desync.tick, bsync_proto_desync_kind_string(ev.desync.kind),
                       ev.desync.character == BSYNC_PROTO_NO_CHARACTER ? -1 : (int)ev.desync.character,
                       (unsigned long long)ev.desync.expected, (unsigned long long)ev.desync.got,
                       bsync_proto_action_string(ev.desync.action));
                break;
            case BSYNC_CLIENT_EVENT_RESYNC:
                printf("bot slot %llu: resynced from the server's snapshot at tick %u\n", (unsigned long long)slot, ev.tick);
                break;
            case BSYNC_CLIENT_EVENT_INCOMPLETE:
                incomplete = 1;
                fprintf(stderr,
                        "blendsync bot: slot %llu: INCOMPLETE: applied frames up to tick %u of %s%u (%s); the match is "
                        "not complete on this machine\n",
                        (unsigned long long)slot, ev.tick, ev.end_ticks ? "" : "at least ",
                        ev.end_ticks ? ev.end_ticks : ev.tick, bsync_proto_bye_reason_string(ev.bye_reason));
                break;
            case BSYNC_CLIENT_EVENT_BYE:
                bye = ev.bye_reason;
                status = bye == BSYNC_PROTO_BYE_MATCH_OVER || bye == BSYNC_PROTO_BYE_SHUTDOWN ? (desynced ? 1 : 0)
                         : bye == BSYNC_PROTO_BYE_KICKED_DESYNC                             ? 1
                                                                                            : 2;
                break;
            case BSYNC_CLIENT_EVENT_DISCONNECTED:
                if (status < 0) status = 2;
                break;
            default: break;
            }
        }
        {
            bsync_client_stats rx;
            bsync_client_get_stats(c, &rx);
            if (rx.bytes_received != rx_bytes) rx_us = bsync_net_now_us();
            rx_bytes = rx.bytes_received;
        }
        if (actions) print_opened_ranges(c, mc, slot, &opened);
        if (predict.enabled && period) bot_present(c, &shown, period);
        if (latency && period) bot_latency_frame(c, latency);
        uint64_t now = bsync_net_now_us();
        int send_now = 0;
        if (period && now >= next_input && bsync_client_get_state(c) != BSYNC_CLIENT_ENDED) {
            next_input += period;
            if (now > next_input + 10 * period) next_input = now; /* paused: do not burst */
            if (!(drop && splitmix(&rng) % 1000u < drop)) {
                const uint32_t span = delay_max - delay_min;
                const uint32_t d = delay_min + (span ? (uint32_t)(splitmix(&rng) % (span + 1u)) : 0u);
                if (delay_max == 0) send_now = 1;
                else if (held_count < BOT_HELD_MAX) held[held_count++] = now + 1000ull * d;
            }
        }
        for (uint32_t k = 0; k < held_count;) /* --delay: the inputs whose time has come */
            if (held[k] <= now) {
                held[k] = held[--held_count];
                send_now++;
            } else {
                k++;
            }
        for (; send_now > 0 && bsync_client_get_state(c) != BSYNC_CLIENT_ENDED; send_now--) {
            bsync_match_input in;
            if (script_path) {
                /* keyed by the tick the input will be assigned to */
                bsync_client_stats cs;
                bsync_client_get_stats(c, &cs);
                uint32_t t = cs.server_tick + bsync_client_input_delay(c);
                if (t < next_script_tick) t = next_script_tick;
                bsync_script_input(bs, t, &in);
                uint32_t assigned = 0;
                if (bsync_client_send_input(c, &in, &assigned) == BSYNC_OK) next_script_tick = shown.input_next = assigned + 1;
            } else {
                bsync_match_random_input(&script, desc, &in);
                uint32_t assigned = 0;
                if (bsync_client_send_input(c, &in, &assigned) == BSYNC_OK) {
                    if (latency) bot_latency_sent(latency, assigned);
                    shown.input_next = assigned + 1u;
                }
            }
        }
        if (now >= next_status) {
            next_status += 1000000u;
            bsync_client_stats st;
            bsync_client_get_stats(c, &st);
            if (!quiet && period)
                printf("bot slot %llu: tick %u  rtt %u ms  checksums sent %llu (last %016llx)  desyncs %llu  "
                       "defaulted %llu\n",
                       (unsigned long long)slot, st.next_frame_tick, st.rtt_ms, (unsigned long long)st.checksums_sent,
                       (unsigned long long)st.last_pose, (unsigned long long)st.desyncs,
                       (unsigned long long)st.frames_defaulted_self);
            fflush(stdout);
        }
        if (now - start > timeout * 1000000u) {
            fprintf(stderr, "blendsync bot: slot %llu: gave up after %llu s\n", (unsigned long long)slot,
                    (unsigned long long)timeout);
            status = 2;
        }
    }
    if (predict.enabled) bot_print_prediction(c, slot);
    if (predict.enabled) bot_print_advantage(&shown, slot);
    if (latency) bot_latency_print(latency, slot, predict.enabled);
    free(latency);
    bot_present_free(&shown);
    bsync_client_stats st;
    bsync_client_get_stats(c, &st);
    if (incomplete && status != 1) status = 3; /* never a partial match reported as a success */
    if (status == 2 && bye)
        fprintf(stderr, "blendsync bot: slot %llu: the server said bye: %s\n", (unsigned long long)slot,
                bsync_proto_bye_reason_string(bye));
    else if (status == 2)
        fprintf(stderr, "blendsync bot: slot %llu: connection lost or refused (is the server at %s running?)\n",
                (unsigned long long)slot, server);
    printf("bot slot %llu: done%s: %llu frames applied, %llu checksums sent, %llu desyncs, %llu inputs defaulted, "
           "%llu bytes sent, %llu received (%s)\n",
           (unsigned long long)slot, incomplete ? " (INCOMPLETE)" : "", (unsigned long long)st.frames_applied,
           (unsigned long long)st.checksums_sent, (unsigned long long)st.desyncs, (unsigned long long)st.frames_defaulted_self, (unsigned long long)st.bytes_sent,
           (unsigned long long)st.bytes_received, bye ? bsync_proto_bye_reason_string(bye) : "disconnected");
    if (st.reconnects)
        printf("bot slot %llu: reconnected %llu times, resumed %llu from frames, %llu from a snapshot\n",
               (unsigned long long)slot, (unsigned long long)st.reconnects, (unsigned long long)st.resumes,
               (unsigned long long)st.resumes_snapshot);
    if (st.checksums_sent)
        printf("bot slot %llu: last checksum: tick %u blend %016llx pose %016llx\n", (unsigned long long)slot,
               st.last_checksum_tick, (unsigned long long)st.last_blend, (unsigned long long)st.last_pose);
    fflush(stdout);
    bsync_client_destroy(c);
    if (cap.f && (fclose(cap.f) != 0 || cap.failed)) {
        fprintf(stderr, "blendsync bot: the capture %s is incomplete (write failed)\n", capture_path);
        if (status == 0) status = 2;
    }
    bsync_script_destroy(bs);
    bsync_match_config_destroy(mc);
    return status;
}
