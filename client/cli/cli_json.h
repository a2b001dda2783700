/* cli_json.h — the JSON the `blendsync` tool prints: objects built with cJSON (which escapes every
 * string and key), printed in the tool's layout {"key": value, "list": [1, 2]} (", " between members
 * and elements, ": " after a key; cJSON_PrintUnformatted has no spaces, cJSON_Print adds newlines).
 *
 * Numbers the tool prints in a fixed text (fix16 decimals from bsync_fx_format, "%.9g", "%.1f",
 * 64-bit integers) go in as raw number text (cJSON_CreateRaw), so they read exactly as they did;
 * cJSON would print doubles with "%1.15g" and integers above 2^53 rounded.
 *
 * The adders put `item` into `parent` under `key` (an object) or at its end (key NULL: an array) and
 * return it. A failed allocation anywhere (item, key, or a NULL parent) is remembered, and the next
 * bsync_cli_json_print (or _text) reports it instead of printing a partial object; callers check
 * only that. */
#ifndef BLENDSYNC_CLI_JSON_H
#define BLENDSYNC_CLI_JSON_H

#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "blendsync/fixed.h"

cJSON* bsync_cli_json_add(cJSON* parent, const char* key, cJSON* item);
cJSON* bsync_cli_json_str(cJSON* parent, const char* key, const char* s); /* s NULL: null */
cJSON* bsync_cli_json_fx(cJSON* parent, const char* key, fix16_t v);     /* bsync_fx_format's text */
cJSON* bsync_cli_json_hex64(cJSON* parent, const char* key, uint64_t v); /* "%016llx" as a string */
/* printf-formatted number text, e.g. ("%" PRIu64, n); the text must be a JSON number */
cJSON* bsync_cli_json_num(cJSON* parent, const char* key, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
/* a double in `fmt` (one conversion, e.g. "%.9g"); null when it is not finite (no JSON number) */
cJSON* bsync_cli_json_dbl(cJSON* parent, const char* key, const char* fmt, double v);

/* BSYNC_CLI_JSON_LINES: the top-level object's arrays one element per line, indented by two
 * ({"a": 1,\n "list": [\n  {...},\n  {...}]}), as `validate --json` prints them. */
#define BSYNC_CLI_JSON_LINES 1

/* `root` and a newline as text (free()); NULL after "blendsync: out of memory" on stderr when an
 * add failed since the last print (or root is NULL) or the text's allocation fails. Does not free
 * root. bsync_cli_json_print writes that text to f: 0, or -1 (nothing written, or a write error). */
char* bsync_cli_json_text(cJSON* root, int flags);
int bsync_cli_json_print(FILE* f, cJSON* root, int flags);

/* `s` as a quoted JSON string, escaped by cJSON (free with cJSON_free); NULL when out of memory. */
char* bsync_cli_json_quote(const char* s);

#endif
