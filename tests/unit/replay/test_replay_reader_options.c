/* bsync_replay_reader_open_file_ex / _open_memory_ex: every allocation of the reader from the caller's
 * allocator (each freed with the size it was made with: the counting allocator's live bytes return to
 * 0), a borrowed buffer read in place (no copy of the bytes), a file read through callbacks from a name
 * that exists nowhere on disk, and a failing allocator refused cleanly; the records read are those of
 * the plain reader in every case (the committed v1 fixture, and a copy of it grown past the 64 KiB
 * first read block, which exercises the allocator-grown stdio read). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "blendsync/io/replay.h"
#include "test_support.h"

#define V1 BSYNC_SOURCE_DIR "/tests/fixtures/replay/v1/v1.bsreplay"

/* Read every record; the count of OK records, the final status and the valid bytes. */
typedef struct summary {
    unsigned records;
    bsync_replay_status final;
    uint64_t valid;
    uint32_t config_len;
} summary;
static summary read_all(bsync_replay_reader* r) {
    summary s = {0, BSYNC_REPLAY_OK, 0, 0};
    bsync_replay_record rec;
    while ((s.final = bsync_replay_reader_next(r, &rec, NULL, 0)) == BSYNC_REPLAY_OK) s.records++;
    s.valid = bsync_replay_reader_valid_bytes(r);
    const bsync_replay_header* h = bsync_replay_reader_header(r);
    s.config_len = h ? h->config_len : 0;
    return s;
}
static void assert_same(summary a, summary b) {
    assert_int_equal(a.records, b.records);
    assert_int_equal(a.final, b.final);
    assert_int_equal(a.valid, b.valid);
    assert_int_equal(a.config_len, b.config_len);
}

static summary plain_file(const char* path) {
    bsync_replay_reader* r = NULL;
    bsync_error err;
    assert_int_equal(bsync_replay_reader_open_file(path, &r, &err), BSYNC_OK);
    const summary s = read_all(r);
    bsync_replay_reader_close(r);
    return s;
}

static void test_allocator_file_and_memory(void** state) {
    (void)state;
    const summary want = plain_file(V1);
    assert_true(want.records > 10);
    assert_int_equal(want.final, BSYNC_REPLAY_EOF);
    size_t n = 0;
    char* bytes = bsync_test_read_file(V1, &n);
    assert_non_null(bytes);
    assert_int_equal(want.valid, n);

    bsync_test_counting_allocator c;
    bsync_test_counting_allocator_init(&c);
    bsync_replay_reader_options o;
    memset(&o, 0, sizeof o);
    o.allocator = &c.allocator;
    bsync_replay_reader* r = NULL;
    bsync_error err;
    assert_int_equal(bsync_replay_reader_open_file_ex(V1, &o, &r, &err), BSYNC_OK);
    assert_true(c.live_bytes > n); /* the reader holds the file's bytes, from our allocator */
    assert_same(read_all(r), want);
    bsync_replay_reader_close(r);
    assert_true(c.allocs >= 3); /* the bytes, the reader, the config text */
    assert_int_equal(c.frees, c.allocs);
    assert_int_equal(c.live_bytes, 0);

    /* memory, copied */
    bsync_test_counting_allocator_init(&c);
    assert_int_equal(bsync_replay_reader_open_memory_ex(bytes, n, &o, &r), BSYNC_OK);
    assert_int_equal(c.allocs, 2); /* the reader and its copy of the bytes */
    const size_t copied_bytes = c.live_bytes;
    assert_same(read_all(r), want);
    bsync_replay_reader_close(r);
    assert_int_equal(c.live_bytes, 0);

    /* memory, borrowed: only the reader itself, then the config text (no copy of the bytes) */
    bsync_test_counting_allocator_init(&c);
    o.borrow = 1;
    assert_int_equal(bsync_replay_reader_open_memory_ex(bytes, n, &o, &r), BSYNC_OK);
    assert_int_equal(c.allocs, 1);
    const size_t reader_bytes = c.live_bytes;
    assert_int_equal(copied_bytes - reader_bytes, n);
    const summary got = read_all(r);
    assert_int_equal(c.live_bytes, reader_bytes + want.config_len + 1);
    assert_same(got, want);
    bsync_replay_reader_close(r);
    assert_int_equal(c.frees, c.allocs);
    assert_int_equal(c.live_bytes, 0);

    /* options NULL: the plain readers */
    assert_int_equal(bsync_replay_reader_open_memory_ex(bytes, n, NULL, &r), BSYNC_OK);
    assert_same(read_all(r), want);
    bsync_replay_reader_close(r);
    free(bytes);
}

/* A file longer than the first 64 KiB read block: the fixture followed by 200 KB of zeros. */
static void test_grown_read(void** state) {
    (void)state;
    size_t n = 0;
    char* bytes = bsync_test_read_file(V1, &n);
    assert_non_null(bytes);
    const char* path = "grown.bsreplay";
    FILE* f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    static const char zeros[200000];
    assert_int_equal(fwrite(zeros, 1, sizeof zeros, f), sizeof zeros);
    assert_int_equal(fclose(f), 0);
    const summary want = plain_file(path);
    assert_int_equal(want.valid, n); /* the records of the fixture, then the zeros refused */
    assert_int_not_equal(want.final, BSYNC_REPLAY_OK);

    bsync_test_counting_allocator c;
    bsync_test_counting_allocator_init(&c);
    bsync_replay_reader_options o;
    memset(&o, 0, sizeof o);
    o.allocator = &c.allocator;
    bsync_replay_reader* r = NULL;
    bsync_error err;
    assert_int_equal(bsync_replay_reader_open_file_ex(path, &o, &r, &err), BSYNC_OK);
    assert_true(c.allocs >= 4); /* 64 KiB, 128 KiB, 256 KiB blocks (the smaller ones freed), the reader */
    assert_same(read_all(r), want);
    bsync_replay_reader_close(r);
    assert_int_equal(c.frees, c.allocs);
    assert_int_equal(c.live_bytes, 0);
    remove(path);
    free(bytes);
}

typedef struct one_file {
    const char* name;
    const char* data;
    size_t size;
    unsigned reads, releases;
} one_file;
static bsync_result one_read(const char* path, const void** data, size_t* size, void* user) {
    one_file* f = user;
    if (strcmp(path, f->name) != 0) return BSYNC_IO_ERROR;
    *data = f->data;
    *size = f->size;
    f->reads++;
    return BSYNC_OK;
}
static void one_release(const char* path, const void* data, size_t size, void* user) {
    (void)path;
    (void)data;
    (void)size;
    ((one_file*)user)->releases++;
}

static void test_file_callbacks_and_failures(void** state) {
    (void)state;
    const summary want = plain_file(V1);
    size_t n = 0;
    char* bytes = bsync_test_read_file(V1, &n);
    assert_non_null(bytes);
    one_file pak = {"pak:/replays/match.bsreplay", bytes, n, 0, 0};
    assert_null(fopen(pak.name, "rb"));
    bsync_replay_reader_options o;
    memset(&o, 0, sizeof o);
    o.file.read = one_read;
    o.file.release = one_release;
    o.file.user = &pak;
    bsync_replay_reader* r = NULL;
    bsync_error err;
    assert_int_equal(bsync_replay_reader_open_file_ex(pak.name, &o, &r, &err), BSYNC_OK);
    assert_int_equal(pak.reads, 1);
    assert_int_equal(pak.releases, 1); /* released before the call returned: the reader copied it */
    assert_same(read_all(r), want);
    bsync_replay_reader_close(r);
    assert_int_equal(bsync_replay_reader_open_file_ex("pak:/nope", &o, &r, &err), BSYNC_IO_ERROR);
    assert_null(r);
    assert_non_null(strstr(err.message, "pak:/nope: cannot open the replay: the file callback failed"));

    /* a failing allocator: refused, nothing freed (its free_fn fails the test), nothing out */
    int calls = 0;
    const bsync_allocator failing = bsync_test_failing_allocator(&calls);
    bsync_replay_reader_options f;
    memset(&f, 0, sizeof f);
    f.allocator = &failing;
    assert_int_equal(bsync_replay_reader_open_file_ex(V1, &f, &r, &err), BSYNC_OUT_OF_MEMORY);
    assert_null(r);
    assert_int_equal(bsync_replay_reader_open_memory_ex(bytes, n, &f, &r), BSYNC_OUT_OF_MEMORY);
    assert_null(r);
    f.borrow = 1;
    assert_int_equal(bsync_replay_reader_open_memory_ex(bytes, n, &f, &r), BSYNC_OUT_OF_MEMORY);
    assert_true(calls >= 3);
    free(bytes);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_allocator_file_and_memory),
        cmocka_unit_test(test_grown_read),
        cmocka_unit_test(test_file_callbacks_and_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
