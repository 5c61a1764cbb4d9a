/*
 * gen_rand.h - the deterministic random numbers of the bench generators
 * (gen389.c, genhttp.c): xoshiro256** seeded by splitmix64, so that a seed
 * gives the same log on every machine and every run.
 */
#ifndef SAT_BENCH_GEN_RAND_H
#define SAT_BENCH_GEN_RAND_H

#include <math.h>
#include <stdint.h>

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

#endif
