/* The level-by-level explorer's index of int keys (solver/explore_batch.py): an open-addressing hash
 * table (linear probing) from a state's key to its node number, filled in the order keys are met,
 * so a key new to the table gets the next number -- the breadth-first numbering of the explorer.
 *
 * The table lives in the caller's array of slots, two int64 each (key, node): node -1 marks an
 * empty slot (one cache line holds both halves of a slot, so a probe costs one miss). The capacity
 * is a power of two, kept by the caller at least twice the number of keys (it grows the table
 * with `index_rehash`).
 */
#include <stdint.h>

/* a hint to fetch a cache line ahead of its use (compilers without the builtin skip it) */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(address) __builtin_prefetch((address), 0)
#else
#define PREFETCH(address) ((void)(address))
#endif

#define AHEAD 16

static inline uint64_t mix(uint64_t x) {   /* splitmix64's finaliser */
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* Number `m` keys in order: out[i] is the node of query[i], a new key taking node `next` (then
 * next + 1, ...); the positions of the new keys' first occurrences go to fresh[0..count), and the
 * count is returned. */
int64_t index_keys(const int64_t *query, int64_t m, int64_t *slots, int64_t capacity, int64_t next,
                   int64_t *out, int64_t *fresh) {
    const uint64_t mask = (uint64_t)capacity - 1;
    int64_t count = 0;
    for (int64_t i = 0; i < m; i++) {
        /* the slot of a key AHEAD places on is fetched while this one is probed: the probes are
         * cache misses (the table is tens of MiB), and they overlap instead of queueing */
        if (i + AHEAD < m)
            PREFETCH(slots + 2 * (mix((uint64_t)query[i + AHEAD]) & mask));
        const int64_t k = query[i];
        uint64_t s = mix((uint64_t)k) & mask;
        while (slots[2 * s + 1] >= 0 && slots[2 * s] != k)
            s = (s + 1) & mask;
        if (slots[2 * s + 1] < 0) {
            slots[2 * s] = k;
            slots[2 * s + 1] = next + count;
            fresh[count++] = i;
        }
        out[i] = slots[2 * s + 1];
    }
    return count;
}

/* Move every key of one table into another (empty, larger) one. */
void index_rehash(const int64_t *slots, int64_t capacity, int64_t *new_slots, int64_t new_capacity) {
    const uint64_t mask = (uint64_t)new_capacity - 1;
    for (int64_t s = 0; s < capacity; s++) {
        if (slots[2 * s + 1] < 0)
            continue;
        uint64_t t = mix((uint64_t)slots[2 * s]) & mask;
        while (new_slots[2 * t + 1] >= 0)
            t = (t + 1) & mask;
        new_slots[2 * t] = slots[2 * s];
        new_slots[2 * t + 1] = slots[2 * s + 1];
    }
}
