"""XXH64 for the replay tests (cli_replay.sh, cli_eval_replay.sh): the standard algorithm written from
its specification, independent of the C implementation the tests check (checksum.h)."""

M = (1 << 64) - 1
P1, P2, P3, P4, P5 = 11400714785074694791, 14029467366897019727, 1609587929392839161, 9650029242287828579, 2870177450012600261
def rotl(x, r): return ((x << r) | (x >> (64 - r))) & M
def rnd(a, i): return (rotl((a + i * P2) & M, 31) * P1) & M
def xxh64(d, seed):
    # the standard XXH64, written from its specification
    n, i = len(d), 0
    u64 = lambda k: int.from_bytes(d[k:k + 8], 'little')
    if n >= 32:
        v = [(seed + P1 + P2) & M, (seed + P2) & M, seed, (seed - P1) & M]
        while i + 32 <= n:
            v = [rnd(v[j], u64(i + 8 * j)) for j in range(4)]
            i += 32
        h = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18)) & M
        for j in range(4):
            h = ((h ^ rnd(0, v[j])) * P1 + P4) & M
    else:
        h = (seed + P5) & M
    h = (h + n) & M
    while i + 8 <= n:
        h = (rotl(h ^ rnd(0, u64(i)), 27) * P1 + P4) & M
        i += 8
    if i + 4 <= n:
        h = (rotl(h ^ ((int.from_bytes(d[i:i + 4], 'little') * P1) & M), 23) * P2 + P3) & M
        i += 4
    while i < n:
        h = (rotl(h ^ ((d[i] * P5) & M), 11) * P1) & M
        i += 1
    h ^= h >> 33; h = (h * P2) & M; h ^= h >> 29; h = (h * P3) & M; h ^= h >> 32
    return h


assert xxh64(b'', 0) == 0xEF46DB3751D8E999  # the published XXH64 of the empty input
