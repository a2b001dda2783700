/* fuzz_target.h — every tests/fuzz/fuzz_<format>.c defines LLVMFuzzerTestOneInput for one input
 * format. Built with clang -fsanitize=fuzzer (scripts/fuzz.sh) it is a libFuzzer target; built
 * normally (ctest) it is linked with fuzz_corpus_main.c, which replays the seed corpus and
 * deterministic mutations of it, so CI exercises every target under ASan+UBSan without libFuzzer.
 * A target must never crash, leak or read out of bounds, whatever the bytes; it returns 0. */
#ifndef BSYNC_FUZZ_TARGET_H
#define BSYNC_FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#endif
