/* net_harness.c — see net_harness.h. */
#include "net_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blendsync/net.h"

static const char* k_graph =
    "{\n"
    "  \"tick_rate\": 60,\n"
    "  \"parameters\": { \"speed\": { \"default\": 0, \"smooth_time\": 0.2, \"max_speed\": 10 },\n"
    "                  \"lean\": { \"default\": 0 } },\n"
    "  \"root\": \"locomotion\",\n"
    "  \"nodes\": { \"locomotion\": { \"type\": \"Simple1D\", \"parameter\": \"speed\", \"children\": [\n"
    "      { \"motion\": \"idle\", \"threshold\": 0 }, { \"motion\": \"walk\", \"threshold\": 1.4 },\n"
    "      { \"motion\": \"run\", \"threshold\": 3.5 } ] } },\n"
    "  \"clips\": { \"idle\": { \"source\": \"builtin:humanoid\" }, \"walk\": { \"source\": \"builtin:humanoid\" },\n"
    "             \"run\": { \"source\": \"builtin:humanoid\" } }\n"
    "}\n";

uint32_t nh_config_start_ms;
uint32_t nh_config_overload_permille;

static int write_text(const char* path, const char* text) {
    FILE* f = fopen(path, "w");
    if (!f) return -1;
    fputs(text, f);
    return fclose(f);
}

int nh_start(nh_world* w, uint32_t players, uint32_t npcs, uint32_t input_delay, uint32_t checksum_interval,
             const char* policy, uint32_t duration_ticks, int verify_poses) {
    return nh_start_two(w, NULL, players, npcs, input_delay, checksum_interval, policy, duration_ticks, verify_poses);
}

const char* nh_config_session;

void nh_secret(uint32_t slot, uint8_t out[32]) {
    uint8_t d = (uint8_t)((slot + 1u) % 16u);
    memset(out, (int)(d << 4 | d), 32);
}

static int start(nh_world* w, const char* second_match_text, const nh_options* o, uint32_t players, uint32_t npcs,
                 uint32_t input_delay, uint32_t checksum_interval, const char* policy, uint32_t duration_ticks,
                 int verify_poses);

int nh_start_two(nh_world* w, const char* second_match_text, uint32_t players, uint32_t npcs, uint32_t input_delay,
                 uint32_t checksum_interval, const char* policy, uint32_t duration_ticks, int verify_poses) {
    return start(w, second_match_text, NULL, players, npcs, input_delay, checksum_interval, policy, duration_ticks,
                 verify_poses);
}

int nh_start_with(nh_world* w, const nh_options* o, uint32_t players, uint32_t npcs, uint32_t input_delay,
                  uint32_t checksum_interval, const char* policy, uint32_t duration_ticks, int verify_poses) {
    return start(w, NULL, o, players, npcs, input_delay, checksum_interval, policy, duration_ticks, verify_poses);
}

static int start(nh_world* w, const char* second_match_text, const nh_options* o, uint32_t players, uint32_t npcs,
                 uint32_t input_delay, uint32_t checksum_interval, const char* policy, uint32_t duration_ticks,
                 int verify_poses) {
    memset(w, 0, sizeof *w);
    w->second_match_text = second_match_text;
    snprintf(w->dir, sizeof w->dir, "/tmp/bsync-net-XXXXXX");
    if (!mkdtemp(w->dir)) return -1;
    char path[400];
    snprintf(path, sizeof path, "%s/loco.json", w->dir);
    if (write_text(path, o && o->graph_text ? o->graph_text : k_graph) != 0) return -1;
    char text[8192];
    size_t n = (size_t)snprintf(text, sizeof text, "{ \"match_id\": 42, \"players\": [");
    for (uint32_t p = 0; p < players; p++) {
        n += (size_t)snprintf(text + n, sizeof text - n, "%s{\"token\": \"tok-%u\"", p ? ", " : "", p);
        if (nh_config_session) {
            n += (size_t)snprintf(text + n, sizeof text - n, ", \"secret\": \"");
            for (int k = 0; k < 64; k++) n += (size_t)snprintf(text + n, sizeof text - n, "%x", (p + 1u) % 16u);
            n += (size_t)snprintf(text + n, sizeof text - n, "\"");
        }
        n += (size_t)snprintf(text + n, sizeof text - n, "}");
    }
    n += (size_t)snprintf(text + n, sizeof text - n,
                          "], \"input\": { \"parameters\": [ {\"name\": \"speed\", \"min\": 0, \"max\": 3.5}, "
                          "{\"name\": \"lean\", \"min\": -1, \"max\": 1} ]%s%s, \"hold_ticks\": [%u, %u] }, "
                          "\"characters\": [",
                          o && o->triggers_json ? ", \"triggers\": " : "", o && o->triggers_json ? o->triggers_json : "",
                          o && o->hold_max ? o->hold_min : 10u, o && o->hold_max ? o->hold_max : 40u);
    for (uint32_t p = 0; p < players; p++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s{\"name\": \"p%u\", \"graph\": \"loco.json\", \"slot\": %u}",
                              p ? ", " : "", p, p);
    for (uint32_t k = 0; k < npcs; k++)
        n += (size_t)snprintf(text + n, sizeof text - n,
                              ", {\"name\": \"npc%u\", \"graph\": \"loco.json\", \"npc_seed\": %u}", k, 100 + k);
    snprintf(text + n, sizeof text - n,
             "], \"input_delay\": %u, \"checksum_interval\": %u, \"desync_policy\": \"%s\", \"replay\": \"match.bsreplay\", "
             "\"duration_ticks\": %u, \"payload_max\": 32, \"timeouts\": {\"start_ms\": %u, \"peer_ms\": 5000, \"idle_ms\": 3000}%s%s%s }\n",
             input_delay, checksum_interval, policy, duration_ticks, nh_config_start_ms ? nh_config_start_ms : 3000u,
             nh_config_session ? ", \"session\": \"" : "", nh_config_session ? nh_config_session : "",
             nh_config_session ? "\"" : "");
    snprintf(w->match_path, sizeof w->match_path, "%s/match.json", w->dir);
    if (write_text(w->match_path, text) != 0) return -1;
    bsync_error err;
    if (bsync_match_config_load(w->match_path, NULL, &w->cfg, &err) != BSYNC_OK) {
        fprintf(stderr, "harness: %s\n", err.message);
        return -1;
    }
    bsync_server_config sc;
    memset(&sc, 0, sizeof sc);
    const char* paths[2] = {w->match_path, w->second_match_path};
    if (w->second_match_text) {
        snprintf(w->second_match_path, sizeof w->second_match_path, "%s/match2.json", w->dir);
        if (write_text(w->second_match_path, w->second_match_text) != 0) return -1;
    }
    sc.host = "127.0.0.1";
    sc.port = 0;
    sc.match_paths = paths;
    sc.match_count = w->second_match_text ? 2u : 1u;
    sc.verify_poses = verify_poses;
    sc.log = stderr;
    sc.overload_busy_permille = nh_config_overload_permille;
    if (bsync_server_create(&sc, &w->server, &err) != BSYNC_OK) {
        fprintf(stderr, "harness: server: %s\n", err.message);
        return -1;
    }
    w->port = bsync_server_port(w->server);
    return w->port ? 0 : -1;
}

int nh_connect(nh_world* w, uint32_t slot, const bsync_client_config* extra) {
    if (w->client_count == NH_MAX_CLIENTS) return -1;
    bsync_client_config cc;
    if (extra) cc = *extra;
    else memset(&cc, 0, sizeof cc);
    static char tokens[NH_MAX_CLIENTS][16];
    snprintf(tokens[slot], sizeof tokens[slot], "tok-%u", slot);
    cc.host = "127.0.0.1";
    cc.port = w->relay ? nr_relay_port(w->relay) : w->port;
    cc.match_id = 42;
    cc.slot = (uint8_t)slot;
    if (!extra || !extra->token) {
        cc.token = (const uint8_t*)tokens[slot];
        cc.token_len = (uint32_t)strlen(tokens[slot]);
    }
    cc.desc = bsync_match_config_desc(w->cfg);
    cc.compute_poses = 1;
    static uint8_t secrets[NH_MAX_CLIENTS][32];
    if (extra && extra->session_mode == NH_PLAIN) {
        cc.secret = NULL;
        cc.session_mode = 0;
    } else if ((!extra || !extra->secret) && bsync_match_config_secret(w->cfg, slot, secrets[slot])) {
        cc.secret = secrets[slot];
        cc.session_mode = bsync_match_config_session(w->cfg) == BSYNC_MATCH_SESSION_AUTHENTICATE ? 2u : 1u;
    }
    int i = (int)w->client_count;
    nh_client* c = &w->clients[i];
    memset(c, 0, sizeof *c);
    bsync_error err;
    if (bsync_client_create(&cc, &c->client, &err) != BSYNC_OK) return -1;
    c->slot = slot;
    bsync_match_script_init(&c->script, 500u + slot);
    c->first_frame = UINT32_MAX;
    w->client_count++;
    return i;
}

static void client_events(nh_client* c) {
    bsync_client_event ev;
    while (bsync_client_poll_event(c->client, &ev)) {
        uint64_t now = bsync_net_now_us();
        switch (ev.type) {
        case BSYNC_CLIENT_EVENT_RECONNECTING: c->reconnecting_events++; break;
        case BSYNC_CLIENT_EVENT_WELCOME:
            c->welcome_events++;
            c->period_us = 1000000u / bsync_client_tick_rate(c->client);
            c->next_input_us = now;
            break;
        case BSYNC_CLIENT_EVENT_FRAME:
            if (c->first_frame == UINT32_MAX) c->first_frame = ev.tick;
            else if (c->frames && now - c->frame_time_us[(ev.tick - 1) % NH_MAX_FRAMES] > c->max_gap_us)
                c->max_gap_us = now - c->frame_time_us[(ev.tick - 1) % NH_MAX_FRAMES];
            c->frames++;
            c->defaulted[ev.tick % NH_MAX_FRAMES] = ev.defaulted_mask;
            c->frame_time_us[ev.tick % NH_MAX_FRAMES] = now;
            break;
        case BSYNC_CLIENT_EVENT_CHECKSUM: c->checksum_ticks++; break;
        case BSYNC_CLIENT_EVENT_DESYNC:
            c->desync_events++;
            c->last_desync = ev.desync;
            break;
        case BSYNC_CLIENT_EVENT_RESYNC: c->resync_events++; break;
        case BSYNC_CLIENT_EVENT_INCOMPLETE: c->incomplete_events++; break;
        case BSYNC_CLIENT_EVENT_BYE:
            c->ended = 1;
            c->bye_reason = ev.bye_reason;
            break;
        case BSYNC_CLIENT_EVENT_DISCONNECTED: c->ended = 1; break;
        default: break;
        }
    }
}

void nh_pump(nh_world* w, uint32_t ms) {
    uint64_t end = bsync_net_now_us() + 1000ull * ms;
    do {
        nr_relay_pump(w->relay);
        bsync_server_service(w->server, 0);
        for (uint32_t i = 0; i < w->client_count; i++) {
            nh_client* c = &w->clients[i];
            if (!c->client) continue;
            bsync_client_service(c->client, 0);
            client_events(c);
            uint64_t now = bsync_net_now_us();
            if (c->period_us && !c->ended && now >= c->next_input_us) {
                bsync_match_input in;
                bsync_match_random_input(&c->script, bsync_match_config_desc(w->cfg), &in);
                if (c->send_payload) {
                    char pl[300];
                    int n = snprintf(pl, sizeof pl, "s%u#%u", c->slot, c->inputs_sent);
                    if (c->payload_size) {
                        memset(pl, 'x', c->payload_size);
                        n = (int)c->payload_size;
                    }
                    bsync_client_send_input_payload(c->client, &in, pl, (uint32_t)n, NULL);
                } else {
                    bsync_client_send_input(c->client, &in, NULL);
                }
                c->inputs_sent++;
                c->next_input_us += c->period_us;
            }
        }
        nr_relay_pump(w->relay);
        struct timespec ts = {0, 500000};
        nanosleep(&ts, NULL);
    } while (bsync_net_now_us() < end);
}

int nh_run_to_end(nh_world* w, uint32_t timeout_ms) {
    uint64_t end = bsync_net_now_us() + 1000ull * timeout_ms;
    while (bsync_net_now_us() < end) {
        nh_pump(w, 20);
        int all = bsync_server_done(w->server);
        for (uint32_t i = 0; i < w->client_count; i++)
            if (w->clients[i].client && !w->clients[i].ended) all = 0;
        if (all) return 0;
    }
    return -1;
}

void nh_disconnect(nh_world* w, int i) {
    bsync_client_destroy(w->clients[i].client);
    w->clients[i].client = NULL;
    w->clients[i].ended = 1;
}

void nh_client_checksums(nh_world* w, int i, bsync_match_checksums* out) {
    bsync_match_get_checksums(bsync_client_match(w->clients[i].client), 1, out);
}

int nh_use_relay(nh_world* w, const nr_impair* impair, uint64_t seed) {
    w->relay = nr_relay_create(w->port, impair, seed);
    return w->relay ? 0 : -1;
}

void nh_stop(nh_world* w) {
    for (uint32_t i = 0; i < w->client_count; i++) bsync_client_destroy(w->clients[i].client);
    nr_relay_destroy(w->relay);
    bsync_server_destroy(w->server);
    bsync_match_config_destroy(w->cfg);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", w->dir);
    if (system(cmd) != 0) fprintf(stderr, "harness: could not remove %s\n", w->dir);
}
