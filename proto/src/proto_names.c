/* proto_names.c — stable text of the protocol's codes (blendsync/proto.h). */
#include "blendsync/proto.h"

const char* bsync_proto_result_string(bsync_proto_result r) {
    static const char* const names[] = {
#define BSYNC_PROTO_RESULT_TEXT_(id, text) text,
        BSYNC_PROTO_RESULTS(BSYNC_PROTO_RESULT_TEXT_)
#undef BSYNC_PROTO_RESULT_TEXT_
    };
    if ((unsigned)r >= sizeof names / sizeof names[0]) return "unknown proto result";
    return names[r];
}

const char* bsync_proto_bye_reason_string(uint32_t reason) {
    static const char* const names[] = {
#define BSYNC_PROTO_BYE_TEXT_(id, text) text,
        BSYNC_PROTO_BYE_REASONS(BSYNC_PROTO_BYE_TEXT_)
#undef BSYNC_PROTO_BYE_TEXT_
    };
    if (reason >= sizeof names / sizeof names[0]) return "unknown bye reason";
    return names[reason];
}

const char* bsync_proto_type_string(uint32_t type) {
    static const char* const names[] = {"unknown",  "hello",    "welcome", "input",   "input_ack",
                                        "frame",    "checksum", "desync",  "snapshot", "bye",
                                        "end",      "start",    "auth_init", "auth_challenge", "frames"};
    if (type >= sizeof names / sizeof names[0]) return "unknown";
    return names[type];
}

const char* bsync_proto_desync_kind_string(uint32_t kind) {
    static const char* const names[] = {"root blend state", "root pose", "character blend state",
                                        "character pose", "joint"};
    if (kind >= sizeof names / sizeof names[0]) return "unknown";
    return names[kind];
}

const char* bsync_proto_action_string(uint32_t action) {
    static const char* const names[] = {"report", "resync", "kick", "detail"};
    if (action >= sizeof names / sizeof names[0]) return "unknown";
    return names[action];
}
