/* cmd_match.c — `blendsync match create|list|show|end`: a client of blendsync-server's admin HTTP API
 * (docs/operations.md) on libcurl. create posts a match config (a file or stdin) and prints the
 * server's answer (match id, address, per-player tokens); list prints a table (--json: the answer);
 * show and end print the match's JSON.
 *
 * Exit: 0 the server answered 2xx; 1 it answered an error (printed: status, path, message); 2 bad
 * arguments, an unreadable file, no connection. */
/* Only with libcurl (client/CMakeLists.txt defines BSYNC_HAVE_MATCH_CMD and links it; without it the file
 * is left out). Builds that compile every CLI source without it (the platform matrix) get an empty unit. */
#if defined(BSYNC_HAVE_MATCH_CMD)
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "commands.h"

#define MATCH_BODY_MAX (4u * 1024u * 1024u)

static void usage(FILE* f) {
    fprintf(f,
            "usage: blendsync match create FILE|-  --admin URL [--token-file F]\n"
            "       blendsync match list            --admin URL [--token-file F] [--json]\n"
            "       blendsync match show ID         --admin URL [--token-file F]\n"
            "       blendsync match end ID          --admin URL [--token-file F]\n"
            "\n"
            "Creates, lists, shows and ends matches on a running blendsync-server through its admin API\n"
            "(blendsync-server --admin HOST:PORT; docs/operations.md).\n"
            "\n"
            "  --admin URL        the API's base, e.g. http://127.0.0.1:7780\n"
            "  --token-file F     the bearer token (first line of F); default: $BLENDSYNC_ADMIN_TOKEN\n"
            "  --json             list: print the server's JSON instead of a table\n"
            "\n"
            "Exit status: 0 done, 1 the server refused (status and message printed), 2 usage or connection error.\n");
}

typedef struct buffer {
    char* data;
    size_t len;
    int over;
} buffer;

static size_t on_data(char* ptr, size_t size, size_t n, void* user) {
    buffer* b = user;
    size_t add = size * n;
    if (b->len + add > MATCH_BODY_MAX) {
        b->over = 1;
        return 0;
    }
    char* nd = realloc(b->data, b->len + add + 1);
    if (!nd) return 0;
    memcpy(nd + b->len, ptr, add);
    b->data = nd;
    b->len += add;
    b->data[b->len] = '\0';
    return add;
}

/* The whole of a file or of stdin ("-"); NULL after a message. */
static char* read_all(const char* path, size_t* len) {
    FILE* f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        perror(path);
        return NULL;
    }
    buffer b = {NULL, 0, 0};
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        if (on_data(chunk, 1, n, &b) != n) {
            fprintf(stderr, "blendsync match: %s: too large (or out of memory)\n", path);
            free(b.data);
            if (f != stdin) fclose(f);
            return NULL;
        }
    if (f != stdin) fclose(f);
    *len = b.len;
    return b.data ? b.data : calloc(1, 1);
}

static int read_token(const char* path, char* out, size_t cap) {
    if (!path) {
        const char* env = getenv("BLENDSYNC_ADMIN_TOKEN");
        if (!env || !env[0] || strlen(env) >= cap) {
            fprintf(stderr, "blendsync match: give --token-file F or set BLENDSYNC_ADMIN_TOKEN\n");
            return -1;
        }
        snprintf(out, cap, "%s", env);
        return 0;
    }
    FILE* f = fopen(path, "r");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t n = fgets(out, (int)cap, f) ? strlen(out) : 0;
    fclose(f);
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == '\r' || out[n - 1] == ' ')) out[--n] = '\0';
    if (n == 0) {
        fprintf(stderr, "blendsync match: %s: no token in its first line\n", path);
        return -1;
    }
    return 0;
}

/* One request; the HTTP status (0: no answer, after a message). */
static long request(const char* method, const char* url, const char* token, const char* body, size_t body_len,
                    buffer* answer) {
    CURL* c = curl_easy_init();
    if (!c) {
        fprintf(stderr, "blendsync match: cannot start libcurl\n");
        return 0;
    }
    char auth[700];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    struct curl_slist* headers = curl_slist_append(NULL, auth);
    if (body) headers = curl_slist_append(headers, "Content-Type: application/json");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, answer);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
    }
    long status = 0;
    CURLcode rc = curl_easy_perform(c);
    if (rc != CURLE_OK) fprintf(stderr, "blendsync match: %s: %s\n", url, curl_easy_strerror(rc));
    else curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(c);
    return status;
}

/* An error answer: "HTTP 422 invalid_config at /characters/0/graph: message". */
static void print_error(long status, const buffer* b) {
    cJSON* o = b->data ? cJSON_Parse(b->data) : NULL;
    const cJSON* code = cJSON_GetObjectItemCaseSensitive(o, "error");
    const cJSON* path = cJSON_GetObjectItemCaseSensitive(o, "path");
    const cJSON* msg = cJSON_GetObjectItemCaseSensitive(o, "message");
    if (cJSON_IsString(code) && cJSON_IsString(msg))
        fprintf(stderr, "blendsync match: HTTP %ld %s%s%s: %s\n", status, code->valuestring, cJSON_IsString(path) ? " at " : "",
                cJSON_IsString(path) ? path->valuestring : "", msg->valuestring);
    else
        fprintf(stderr, "blendsync match: HTTP %ld: %s\n", status, b->data ? b->data : "");
    cJSON_Delete(o);
}

static double num(const cJSON* o, const char* key) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0.0;
}

static const char* str(const cJSON* o, const char* key) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "-";
}

static int print_table(const buffer* b) {
    cJSON* root = b->data ? cJSON_Parse(b->data) : NULL;
    const cJSON* list = cJSON_GetObjectItemCaseSensitive(root, "matches");
    if (!cJSON_IsArray(list)) {
        fprintf(stderr, "blendsync match: the server's answer has no \"matches\" list\n");
        cJSON_Delete(root);
        return 2;
    }
    printf("%-12s %-8s %-8s %-10s %-8s %-22s %s\n", "ID", "STATE", "PLAYERS", "TICKS", "DESYNCS", "ADDRESS", "REPLAY");
    for (const cJSON* m = list->child; m; m = m->next) {
        char players[32];
        snprintf(players, sizeof players, "%.0f/%.0f", num(m, "players_connected"), num(m, "players"));
        printf("%-12.0f %-8s %-8s %-10.0f %-8.0f %-22s %s\n", num(m, "match_id"), str(m, "state"), players, num(m, "ticks"),
               num(m, "desyncs"), str(m, "address"), str(m, "replay"));
    }
    cJSON_Delete(root);
    return 0;
}

int bsync_cmd_match(int argc, char** argv) {
    const char* verb = argc > 1 ? argv[1] : NULL;
    if (!verb || !strcmp(verb, "--help") || !strcmp(verb, "-h")) {
        usage(verb ? stdout : stderr);
        return verb ? 0 : 2;
    }
    const char* admin = NULL;
    const char* token_file = NULL;
    const char* arg = NULL;
    int json = 0;
    for (int i = 2; i < argc; i++) {
        const char* a = argv[i];
        if (!strcmp(a, "--admin") && i + 1 < argc) admin = argv[++i];
        else if (!strcmp(a, "--token-file") && i + 1 < argc) token_file = argv[++i];
        else if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!arg && (a[0] != '-' || !strcmp(a, "-"))) arg = a;
        else {
            fprintf(stderr, "blendsync match: unknown or incomplete argument \"%s\"\n\n", a);
            usage(stderr);
            return 2;
        }
    }
    const int create = !strcmp(verb, "create"), list = !strcmp(verb, "list"), show = !strcmp(verb, "show"),
              end = !strcmp(verb, "end");
    if (!(create || list || show || end) || !admin || (list ? arg != NULL : arg == NULL)) {
        usage(stderr);
        return 2;
    }
    if ((show || end) && strspn(arg, "0123456789") != strlen(arg)) {
        fprintf(stderr, "blendsync match: %s: expected a match id, got \"%s\"\n", verb, arg);
        return 2;
    }
    char token[600];
    if (read_token(token_file, token, sizeof token) != 0) return 2;
    size_t body_len = 0;
    char* body = NULL;
    if (create && !(body = read_all(arg, &body_len))) return 2;
    char url[2048];
    size_t base = strlen(admin);
    while (base > 0 && admin[base - 1] == '/') base--;
    snprintf(url, sizeof url, "%.*s/v1/matches%s%s", (int)base, admin, arg && !create ? "/" : "", arg && !create ? arg : "");
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
        fprintf(stderr, "blendsync match: cannot start libcurl\n");
        free(body);
        return 2;
    }
    buffer answer = {NULL, 0, 0};
    long status = request(create ? "POST" : end ? "DELETE" : "GET", url, token, body, body_len, &answer);
    memset(token, 0, sizeof token);
    free(body);
    int rc;
    if (status == 0) rc = 2;
    else if (status < 200 || status >= 300) {
        print_error(status, &answer);
        rc = 1;
    } else if (list && !json) {
        rc = print_table(&answer);
    } else {
        fputs(answer.data ? answer.data : "", stdout);
        rc = 0;
    }
    free(answer.data);
    curl_global_cleanup();
    return rc;
}
#else
typedef int bsync_cmd_match_unavailable; /* ISO C wants a declaration in every unit */
#endif
