/* base.c — result strings. */
#include "blendsync/base.h"

const char* bsync_result_string(bsync_result r) {
    static const char* const texts[] = {
#define BSYNC_RESULT_TEXT_(id, text) text,
        BSYNC_RESULTS(BSYNC_RESULT_TEXT_)
#undef BSYNC_RESULT_TEXT_
    };
    if ((unsigned)r >= (unsigned)BSYNC_RESULT_COUNT) return "unknown result";
    return texts[r];
}
