/*
 * gen_common.h - what the bench generators (gen389.c, genhttp.c) share: the
 * deterministic random numbers (xoshiro256** seeded by splitmix64, so that a
 * seed gives the same log on every machine and every run) and the event queue
 * of their simulations (a binary min-heap of (time, actor) events; ties come
 * out in the order they were pushed, which keeps the output deterministic).
 */
#ifndef SAT_BENCH_GEN_COMMON_H
#define SAT_BENCH_GEN_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "satscope/base.h" /* SAT_GROW (header only: the generators link no stage) */

static uint64_t rs[4];
static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
static inline uint64_t rnd(void)
{
    uint64_t r = rotl(rs[1] * 5, 7) * 9, t = rs[1] << 17;
    rs[2] ^= rs[0]; rs[3] ^= rs[1]; rs[1] ^= rs[2]; rs[0] ^= rs[3];
    rs[2] ^= t; rs[3] = rotl(rs[3], 45);
    return r;
}
static inline void seed_rng(uint64_t s)
{
    for (int i = 0; i < 4; i++) { /* splitmix64 */
        s += 0x9e3779b97f4a7c15ULL;
        uint64_t z = s;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        rs[i] = z ^ (z >> 31);
    }
}
static inline double urand(void) { return (double)(rnd() >> 11) * (1.0 / 9007199254740992.0); }
static inline uint32_t irand(uint32_t n) { return (uint32_t)(((rnd() >> 32) * (uint64_t)n) >> 32); }
static inline int chance(double p) { return urand() < p; }
/* exponential with the given mean */
static inline uint64_t rexp(double mean) { return (uint64_t)(-log(1.0 - urand()) * mean); }

typedef struct { uint64_t t, seq; uint32_t a; } hev;
static hev *heap;
static uint32_t hn;
static size_t hcap;
static uint64_t hseq;
static inline int hless(const hev *x, const hev *y)
{
    return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}
/* A generator is a program of its own: out of memory ends it (exit 3). */
static inline void hpush(uint64_t t, uint32_t a)
{
    if (SAT_GROW(heap, hcap, (size_t)hn + 1) != SAT_OK)
        exit(3);
    hev e = {t, hseq++, a};
    uint32_t i = hn++;
    while (i) {
        uint32_t p = (i - 1) / 2;
        if (!hless(&e, &heap[p]))
            break;
        heap[i] = heap[p];
        i = p;
    }
    heap[i] = e;
}
static inline hev hpop(void)
{
    hev top = heap[0], last = heap[--hn];
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= hn)
            break;
        if (c + 1 < hn && hless(&heap[c + 1], &heap[c]))
            c++;
        if (!hless(&heap[c], &last))
            break;
        heap[i] = heap[c];
        i = c;
    }
    if (hn)
        heap[i] = last;
    return top;
}

#endif
