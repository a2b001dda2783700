/* json_exact.h — strict JSON with numbers kept as their exact text, shared by the config readers
 * (config.c: graph configs; match_config.c: match files). Internal to blendsync_io.
 *
 * cJSON keeps only a double per number, so the text is scanned first by a small lexer that knows
 * JSON strings (escapes included) and records, in document order, the byte span of every number
 * token (a run of [0-9+-.eE] starting with '-' or a digit outside strings). A strict recognizer then
 * checks the whole text against RFC 8259 (numbers by bsync_fx_parse's grammar) and reports the first
 * error at its line:column. cJSON then parses a copy of the text in which every number token is
 * replaced by "0" and spaces of the same length (so offsets, lines and columns are unchanged and
 * cJSON's 63-character number limit and locale-dependent strtod never matter). cJSON keeps children in
 * document order, duplicates included, so the k-th number node of a depth-first walk is the k-th span;
 * the walk stores k in the node's valueint (unused otherwise), and a reader converts a number from its
 * span (bsync_fx_parse, or an integer scan) when it uses it. */
#ifndef BLENDSYNC_IO_JSON_EXACT_H
#define BLENDSYNC_IO_JSON_EXACT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "blendsync/base.h"

typedef struct bsync_json_span {
    size_t off, len;
} bsync_json_span;

typedef struct bsync_json_doc {
    cJSON* root;
    bsync_json_span* spans; /* span_count spans; a number node's valueint indexes them */
    size_t span_count;
} bsync_json_doc;

/* BSYNC_OK with *out filled (free with bsync_json_exact_free); BSYNC_CONFIG_ERROR with err's message
 * "NAME:LINE:COLUMN: invalid JSON: ..." at the first offending byte; BSYNC_OUT_OF_MEMORY. */
bsync_result bsync_json_exact_parse(const char* name, const char* text, size_t len, bsync_json_doc* out,
                                    bsync_error* err);
void bsync_json_exact_free(bsync_json_doc* doc);
/* Where a reader is in a document, for messages: "FILE: /json/pointer: what". */
typedef struct bsync_json_where {
    const char* file;
    bsync_error* err;
    char path[768];
    size_t path_len;
} bsync_json_where;

/* Set err to BSYNC_CONFIG_ERROR "FILE: /path: what" ("/" for the root); returns BSYNC_CONFIG_ERROR. */
bsync_result bsync_json_fail(bsync_json_where* w, const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Append a JSON Pointer token ("~" -> "~0", "/" -> "~1"); returns the old length for _path_pop. */
size_t bsync_json_path_push(bsync_json_where* w, const char* token);
size_t bsync_json_path_push_index(bsync_json_where* w, long i);
void bsync_json_path_pop(bsync_json_where* w, size_t old);
/* A string quoted for a message (at most 60 bytes shown). */
const char* bsync_json_quoted(const char* s, char* buf, size_t cap);
/* Every field of obj must be one of allowed (NULL-terminated) and appear once; describe says what
 * the object is ("a Simple1D node"). */
bsync_result bsync_json_check_fields(bsync_json_where* w, const cJSON* obj, const char* const* allowed,
                                     const char* describe);
const cJSON* bsync_json_field(const cJSON* obj, const char* name); /* NULL when absent */
/* The field, or a failure "missing field \"NAME\"". */
bsync_result bsync_json_require(bsync_json_where* w, const cJSON* obj, const char* name, const cJSON** out);

/* 1-based line and byte column of offset off in text. */
void bsync_json_line_col(const char* text, size_t off, unsigned long* line, unsigned long* col);

#endif /* BLENDSYNC_IO_JSON_EXACT_H */
