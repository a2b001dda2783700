/* fuzz_corpus_main.c — runs a fuzz target without libFuzzer: every file of the seed corpus, then
 * deterministic mutations of the seeds (byte flips, truncations, insertions, deletions, chunk copies,
 * interesting integers), so ctest exercises each target under ASan+UBSan on every run.
 *   fuzz_<format> CORPUS_DIR [--mutations N] [--seal-bsclip]
 * --seal-bsclip recomputes a .bsclip checksum after mutating, so the block checks behind the
 * checksum are reached. Prints a `N passed, 0 failed` line; a crash aborts the program. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/io/clip_file.h"
#include "fuzz_target.h"

#define MAX_SEEDS 64
#define MAX_INPUT (1u << 20)

static uint64_t next(uint64_t* s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static size_t mutate(uint8_t* buf, size_t n, size_t cap, uint64_t* s) {
    int rounds = 1 + (int)(next(s) % 4);
    for (int r = 0; r < rounds; r++) {
        uint64_t x = next(s);
        size_t at = n ? (size_t)(next(s) % n) : 0;
        switch (x % 7) {
        case 0: if (n) buf[at] ^= (uint8_t)(1u << (x >> 8) % 8); break;           /* flip a bit */
        case 1: if (n) buf[at] = (uint8_t)(x >> 16); break;                       /* set a byte */
        case 2: n = at; break;                                                      /* truncate */
        case 3: if (n < cap) { memmove(buf + at + 1, buf + at, n - at); buf[at] = (uint8_t)(x >> 24); n++; } break;
        case 4: if (n) { memmove(buf + at, buf + at + 1, n - at - 1); n--; } break; /* delete a byte */
        case 5: { /* copy a chunk over another place */
            size_t len = 1 + (size_t)(next(s) % 16), from = n ? (size_t)(next(s) % n) : 0;
            if (from + len <= n && at + len <= n) memmove(buf + at, buf + from, len);
            break;
        }
        default: { /* an interesting 32-bit value */
            static const uint32_t k[] = {0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x10000, 0xFFFF, 64, 1024};
            uint32_t v = k[(x >> 8) % (sizeof k / sizeof k[0])];
            if (at + 4 <= n) memcpy(buf + at, &v, 4);
            break;
        }
        }
    }
    return n;
}

static void seal_bsclip(uint8_t* buf, size_t n) {
    if (n < 32) return;
    uint64_t c = bsync_clip_file_checksum(buf, n);
    for (int i = 0; i < 8; i++) buf[24 + i] = (uint8_t)(c >> (8 * i));
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR [--mutations N] [--seal-bsclip]\n", argv[0]);
        return 2;
    }
    long mutations = 2000;
    int seal = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--mutations") && i + 1 < argc) mutations = atol(argv[++i]);
        else if (!strcmp(argv[i], "--seal-bsclip")) seal = 1;
        else { fprintf(stderr, "unknown option %s\n", argv[i]); return 2; }
    }
    static uint8_t* seeds[MAX_SEEDS];
    static size_t sizes[MAX_SEEDS];
    int count = 0;
    DIR* dir = opendir(argv[1]);
    if (!dir) { fprintf(stderr, "cannot open %s\n", argv[1]); return 2; }
    struct dirent* e;
    while ((e = readdir(dir)) && count < MAX_SEEDS) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
        FILE* f = fopen(path, "rb");
        if (!f) continue;
        uint8_t* b = malloc(MAX_INPUT);
        size_t n = b ? fread(b, 1, MAX_INPUT, f) : 0;
        fclose(f);
        if (!b) return 2;
        seeds[count] = b;
        sizes[count++] = n;
    }
    closedir(dir);
    if (count == 0) { fprintf(stderr, "no seeds in %s\n", argv[1]); printf("0 passed, 1 failed\n"); return 1; }
    long runs = 0;
    for (int i = 0; i < count; i++, runs++) {
        uint8_t* copy = malloc(sizes[i] ? sizes[i] : 1); /* exact-size copy: ASan sees any overread */
        memcpy(copy, seeds[i], sizes[i]);
        LLVMFuzzerTestOneInput(copy, sizes[i]);
        free(copy);
    }
    uint8_t* work = malloc(MAX_INPUT);
    uint64_t s = 0x626c656e6466757aull;
    for (long m = 0; m < mutations; m++, runs++) {
        int i = (int)(next(&s) % (uint64_t)count);
        size_t n = sizes[i] < MAX_INPUT / 2 ? sizes[i] : MAX_INPUT / 2;
        memcpy(work, seeds[i], n);
        n = mutate(work, n, MAX_INPUT / 2, &s);
        if (seal && (m & 1)) seal_bsclip(work, n);
        uint8_t* copy = malloc(n ? n : 1);
        memcpy(copy, work, n);
        LLVMFuzzerTestOneInput(copy, n);
        free(copy);
    }
    free(work);
    for (int i = 0; i < count; i++) free(seeds[i]);
    printf("%s: %d seeds, %ld inputs, no crash\n", argv[0], count, runs);
    printf("1 passed, 0 failed\n");
    return 0;
}
