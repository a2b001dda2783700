/* cmd_studio.c — `blendsync studio [FILES...] [--port N] [--root DIR]`: serve the studio page (the
 * web/ build output: index.html, app.js, the wasm core studio_core.js, three.js) on 127.0.0.1 with
 * libmicrohttpd, and the FILES given (graph configs, clips, replays, match configs, desync bundle
 * folders) to the page, read-only, except that a graph config may be saved back (docs/studio.md).
 *
 * HTTP (GET unless said):
 *   /                    index.html of the page; other paths: files under the page's folder
 *   /api/files           the FILES as JSON: {"files": [{"id", "name", "size", "kind"}...]}; a folder
 *                        given (a desync bundle) lists each regular file in it as "FOLDER/FILE"
 *   /api/file?id=N       file N's bytes
 *   POST /api/save?id=N  the body replaces file N (a graph config given on the command line), written
 *                        through bsync_file_write (PATH.tmp.<pid> + rename: whole or not at all); the
 *                        request must carry "X-Blendsync-Studio: save" (a custom header, so a page from
 *                        another origin cannot post without a CORS preflight, which is never granted)
 * Paths with ".." are refused. The server listens on 127.0.0.1 only; --port 0 (the default) takes a
 * free port. It prints "blendsync studio: http://127.0.0.1:PORT/" and serves until interrupted.
 * Exit: 0 after an interrupt, 2 error. */
#include <stdio.h>

#include "commands.h"

/* Only with libmicrohttpd (client/CMakeLists.txt defines BSYNC_HAVE_STUDIO and links it; without it the
 * file is left out of the tool). Builds that compile every CLI source without it (the platform
 * matrix's cross and wasm32 rows) get an empty unit here: main.c lists `studio` only with the macro. */
#if defined(BSYNC_HAVE_STUDIO)
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#include <microhttpd.h>

#include "blendsync/io/file.h"
#include "blendsync/io/validate.h"
#include "cli_json.h"
#include "platform.h"

#ifndef BSYNC_STUDIO_WEB_ROOT
#define BSYNC_STUDIO_WEB_ROOT "web"
#endif

#define STUDIO_MAX_FILES 256
#define STUDIO_MAX_BODY (16u << 20)

typedef struct studio_file {
    char path[1024]; /* on disk */
    char name[512];  /* as shown to the page (as given; "FOLDER/FILE" inside a folder given) */
    const char* kind;
    int savable;
} studio_file;

typedef struct studio {
    const char* root;
    studio_file files[STUDIO_MAX_FILES];
    unsigned count;
} studio;

typedef struct upload {
    char* data;
    size_t len;
    int too_big;
} upload;

static void usage(FILE* f) {
    fprintf(f,
            "usage: blendsync studio [FILES...] [--port N] [--root DIR]\n"
            "\n"
            "Serves the studio page on http://127.0.0.1:PORT/ and the FILES to it: graph configs (Tune),\n"
            "replays (.bsreplay) and the match configs they name (Replay), desync bundle folders (Desync),\n"
            "clips. A graph config given here can be saved back from the page (atomically).\n"
            "\n"
            "  --port N    the port (default 0: a free one)\n"
            "  --root DIR  the page's folder (default: the build's web output, %s)\n"
            "  --help      this text\n"
            "\n"
            "Serves until interrupted (Ctrl-C). Exit status: 0 after an interrupt, 2 error.\n",
            BSYNC_STUDIO_WEB_ROOT);
}

static const char* ends(const char* s, const char* suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix) ? s + a - b : NULL;
}

static const char* file_kind(const char* path, int* savable) {
    *savable = 0;
    if (ends(path, ".bsreplay")) return "replay";
    if (ends(path, ".bsms")) return "snapshot";
    if (ends(path, ".bstrail")) return "trail";
    if (ends(path, ".csv")) return "csv";
    if (ends(path, "bundle.json")) return "bundle";
    if (ends(path, ".json")) {
        if (bsync_validate_is_match_config(path)) return "match";
        *savable = 1;
        return "config";
    }
    if (ends(path, ".txt")) return "text";
    return "clip";
}

static int add_file(studio* s, const char* path, const char* name) {
    if (s->count == STUDIO_MAX_FILES) {
        fprintf(stderr, "blendsync studio: more than %d files\n", STUDIO_MAX_FILES);
        return -1;
    }
    studio_file* f = &s->files[s->count];
    if (snprintf(f->path, sizeof f->path, "%s", path) >= (int)sizeof f->path ||
        snprintf(f->name, sizeof f->name, "%s", name) >= (int)sizeof f->name) {
        fprintf(stderr, "blendsync studio: %s: path too long\n", path);
        return -1;
    }
    f->kind = file_kind(path, &f->savable);
    s->count++;
    return 0;
}

static int add_arg(studio* s, const char* arg) {
    struct stat st;
    if (stat(arg, &st) != 0) {
        fprintf(stderr, "blendsync studio: %s: %s\n", arg, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) return add_file(s, arg, arg);
    DIR* d = opendir(arg);
    if (!d) {
        fprintf(stderr, "blendsync studio: %s: %s\n", arg, strerror(errno));
        return -1;
    }
    size_t n = strlen(arg);
    while (n > 1 && arg[n - 1] == '/') n--;
    struct dirent* e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char p[1024];
        if (snprintf(p, sizeof p, "%.*s/%s", (int)n, arg, e->d_name) >= (int)sizeof p) continue;
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) rc = add_file(s, p, p);
    }
    closedir(d);
    return rc;
}

static enum MHD_Result respond(struct MHD_Connection* c, unsigned status, const char* type, void* data, size_t len,
                               enum MHD_ResponseMemoryMode mode) {
    struct MHD_Response* r = MHD_create_response_from_buffer(len, data, mode);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result respond_text(struct MHD_Connection* c, unsigned status, const char* text) {
    return respond(c, status, "text/plain; charset=utf-8", (void*)text, strlen(text), MHD_RESPMEM_MUST_COPY);
}

static enum MHD_Result respond_json(struct MHD_Connection* c, unsigned status, cJSON* o) {
    char* text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!text) return respond_text(c, 500, "out of memory");
    size_t len = strlen(text);
    char* copy = malloc(len + 1); /* MHD frees with free(): cJSON's allocator may differ */
    if (!copy) {
        cJSON_free(text);
        return respond_text(c, 500, "out of memory");
    }
    memcpy(copy, text, len + 1);
    cJSON_free(text);
    return respond(c, status, "application/json", copy, len, MHD_RESPMEM_MUST_FREE);
}

static const char* mime(const char* path) {
    if (ends(path, ".html")) return "text/html; charset=utf-8";
    if (ends(path, ".js") || ends(path, ".mjs")) return "text/javascript; charset=utf-8";
    if (ends(path, ".css")) return "text/css; charset=utf-8";
    if (ends(path, ".json")) return "application/json";
    if (ends(path, ".wasm")) return "application/wasm";
    if (ends(path, ".png")) return "image/png";
    if (ends(path, ".svg")) return "image/svg+xml";
    return "application/octet-stream";
}

static enum MHD_Result send_file(struct MHD_Connection* c, const char* path, const char* type) {
    uint8_t* data = NULL;
    FILE* f = fopen(path, "rb");
    if (!f) return respond_text(c, 404, "not found");
    size_t cap = 0, len = 0;
    for (;;) {
        if (len == cap) {
            size_t ncap = cap ? cap * 2 : 65536;
            uint8_t* n = realloc(data, ncap);
            if (!n) {
                free(data);
                fclose(f);
                return respond_text(c, 500, "out of memory");
            }
            data = n;
            cap = ncap;
        }
        size_t got = fread(data + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(data);
        return respond_text(c, 500, "read error");
    }
    return respond(c, 200, type, data, len, MHD_RESPMEM_MUST_FREE);
}

static int file_id(struct MHD_Connection* c, const studio* s) {
    const char* v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "id");
    if (!v || !*v) return -1;
    char* end;
    long id = strtol(v, &end, 10);
    return *end || id < 0 || id >= (long)s->count ? -1 : (int)id;
}

static enum MHD_Result handle(void* cls, struct MHD_Connection* c, const char* url, const char* method, const char* version,
                              const char* upload_data, size_t* upload_data_size, void** con_cls) {
    (void)version;
    studio* s = cls;
    if (!strcmp(method, "POST")) {
        upload* u = *con_cls;
        if (!u) {
            u = calloc(1, sizeof *u);
            if (!u) return MHD_NO;
            *con_cls = u;
            return MHD_YES;
        }
        if (*upload_data_size) {
            if (u->len + *upload_data_size > STUDIO_MAX_BODY) u->too_big = 1;
            else {
                char* n = realloc(u->data, u->len + *upload_data_size + 1);
                if (!n) return MHD_NO;
                u->data = n;
                memcpy(u->data + u->len, upload_data, *upload_data_size);
                u->len += *upload_data_size;
            }
            *upload_data_size = 0;
            return MHD_YES;
        }
        if (strcmp(url, "/api/save")) return respond_text(c, 404, "not found");
        const char* h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Blendsync-Studio");
        if (!h || strcmp(h, "save")) return respond_text(c, 403, "a save needs the header X-Blendsync-Studio: save");
        int id = file_id(c, s);
        if (id < 0 || !s->files[id].savable) return respond_text(c, 400, "not a graph config given on the command line");
        if (u->too_big) return respond_text(c, 413, "too large");
        if (bsync_file_write(s->files[id].path, u->data ? u->data : "", u->len) != BSYNC_OK) {
            char msg[1200];
            snprintf(msg, sizeof msg, "cannot write %s: %s", s->files[id].path, strerror(errno));
            return respond_text(c, 500, msg);
        }
        fprintf(stderr, "blendsync studio: saved %s (%zu bytes)\n", s->files[id].path, u->len);
        cJSON* o = cJSON_CreateObject();
        bsync_cli_json_str(o, "saved", s->files[id].name);
        bsync_cli_json_num(o, "bytes", "%zu", u->len);
        return respond_json(c, 200, o);
    }
    if (strcmp(method, "GET") && strcmp(method, "HEAD")) return respond_text(c, 405, "method not allowed");
    if (!strcmp(url, "/api/files")) {
        cJSON* o = cJSON_CreateObject();
        cJSON* list = bsync_cli_json_add(o, "files", cJSON_CreateArray());
        for (unsigned i = 0; i < s->count; i++) {
            struct stat st;
            cJSON* e = bsync_cli_json_add(list, NULL, cJSON_CreateObject());
            bsync_cli_json_num(e, "id", "%u", i);
            bsync_cli_json_str(e, "name", s->files[i].name);
            bsync_cli_json_str(e, "kind", s->files[i].kind);
            bsync_cli_json_num(e, "size", "%lld", stat(s->files[i].path, &st) == 0 ? (long long)st.st_size : -1LL);
            bsync_cli_json_add(e, "savable", cJSON_CreateBool(s->files[i].savable));
        }
        return respond_json(c, 200, o);
    }
    if (!strcmp(url, "/api/file")) {
        int id = file_id(c, s);
        if (id < 0) return respond_text(c, 404, "no such file id");
        return send_file(c, s->files[id].path, "application/octet-stream");
    }
    if (strstr(url, "..") || url[0] != '/') return respond_text(c, 400, "bad path");
    char path[2048];
    const char* rel = !strcmp(url, "/") ? "/index.html" : url;
    if (snprintf(path, sizeof path, "%s%s", s->root, rel) >= (int)sizeof path) return respond_text(c, 414, "path too long");
    return send_file(c, path, mime(path));
}

static void completed(void* cls, struct MHD_Connection* c, void** con_cls, enum MHD_RequestTerminationCode toe) {
    (void)cls;
    (void)c;
    (void)toe;
    upload* u = *con_cls;
    if (u) {
        free(u->data);
        free(u);
        *con_cls = NULL;
    }
}

int bsync_cmd_studio(int argc, char** argv) {
    static studio s;
    long port = 0;
    s.root = getenv("BSYNC_STUDIO_ROOT") ? getenv("BSYNC_STUDIO_ROOT") : BSYNC_STUDIO_WEB_ROOT;
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--port") || !strcmp(a, "--root")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "blendsync studio: %s needs a value\n", a);
                return 2;
            }
            const char* v = argv[++i];
            if (!strcmp(a, "--root")) {
                s.root = v;
            } else {
                char* end;
                port = strtol(v, &end, 10);
                if (*end || end == v || port < 0 || port > 65535) {
                    fprintf(stderr, "blendsync studio: --port: '%s' is not a port (0..65535)\n", v);
                    return 2;
                }
            }
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "blendsync studio: unknown option '%s'\n", a);
            return 2;
        } else if (add_arg(&s, a) != 0) {
            return 2;
        }
    }
    char index[2048];
    snprintf(index, sizeof index, "%s/index.html", s.root);
    if (!bsync_platform_is_readable_file(index)) {
        fprintf(stderr,
                "blendsync studio: no page at %s (build the web target: it needs emscripten and npm; or give --root "
                "DIR)\n",
                index);
        return 2;
    }
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct MHD_Daemon* d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, (uint16_t)port, NULL, NULL,
                                            handle, &s, MHD_OPTION_SOCK_ADDR, (struct sockaddr*)&addr,
                                            MHD_OPTION_NOTIFY_COMPLETED, completed, NULL, MHD_OPTION_END);
    if (!d) {
        fprintf(stderr, "blendsync studio: cannot listen on 127.0.0.1:%ld\n", port);
        return 2;
    }
    const union MHD_DaemonInfo* info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    unsigned bound = info ? info->port : (unsigned)port;
    bsync_platform_catch_interrupts();
    printf("blendsync studio: http://127.0.0.1:%u/\n", bound);
    for (unsigned i = 0; i < s.count; i++) printf("  %-8s %s\n", s.files[i].kind, s.files[i].name);
    fflush(stdout);
    while (!bsync_platform_interrupted()) {
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    MHD_stop_daemon(d);
    printf("blendsync studio: stopped\n");
    return 0;
}
#else
typedef int bsync_cmd_studio_unavailable; /* ISO C wants a declaration in every unit */
#endif
