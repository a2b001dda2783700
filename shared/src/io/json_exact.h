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
/* 1-based line and byte column of offset off in text. */
void bsync_json_line_col(const char* text, size_t off, unsigned long* line, unsigned long* col);

#endif /* BLENDSYNC_IO_JSON_EXACT_H */
