/* The level-by-level explorer's index of int keys (solver/explore_batch.py): an open-addressing hash
 * table (linear probing) from a state's key to its node number, filled in the order keys are met,
 * so a key new to the table gets the next number -- the breadth-first numbering of the explorer.
 *
 * The table lives in the caller's arrays: `ids[slot]` is -1 for an empty slot, else the node whose
 * key is `keys[slot]`; the capacity is a power of two, kept by the caller at least twice the number
 * of keys (the caller grows it with `index_rehash`).
 */
#include <stdint.h>

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
int64_t index_keys(const int64_t *query, int64_t m, int64_t *keys, int64_t *ids, int64_t capacity,
                   int64_t next, int64_t *out, int64_t *fresh) {
    const uint64_t mask = (uint64_t)capacity - 1;
    int64_t count = 0;
    for (int64_t i = 0; i < m; i++) {
        const int64_t k = query[i];
        uint64_t slot = mix((uint64_t)k) & mask;
        while (ids[slot] >= 0 && keys[slot] != k)
            slot = (slot + 1) & mask;
        if (ids[slot] < 0) {
            keys[slot] = k;
            ids[slot] = next + count;
            fresh[count++] = i;
        }
        out[i] = ids[slot];
    }
    return count;
}

/* Move every key of one table into another (empty, larger) one. */
void index_rehash(const int64_t *keys, const int64_t *ids, int64_t capacity, int64_t *new_keys,
                  int64_t *new_ids, int64_t new_capacity) {
    const uint64_t mask = (uint64_t)new_capacity - 1;
    for (int64_t s = 0; s < capacity; s++) {
        if (ids[s] < 0)
            continue;
        uint64_t slot = mix((uint64_t)keys[s]) & mask;
        while (new_ids[slot] >= 0)
            slot = (slot + 1) & mask;
        new_keys[slot] = keys[s];
        new_ids[slot] = ids[s];
    }
}
