/*
 * base.h - what every satscope module shares: status codes, the caller-owned
 * diagnostic, a bump arena, a bounds-checked byte cursor and a string view.
 *
 * Header-only on purpose: parse/ and trace/ must depend on nothing of ours
 * (DESIGN.md), so the few helpers they all need live here as static inlines.
 *
 * Error convention (after zstd's RETURN_ERROR_IF / FORWARD_IF_ERROR): functions
 * return SAT_OK (0) or a negative sat_status; when the caller passed a sat_diag
 * the failing function fills it with what failed and where (file:line or
 * packet number). Library code never exits and never aborts on bad input.
 */
#ifndef SATSCOPE_BASE_H
#define SATSCOPE_BASE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- status codes -------------------------------------------------------- */

enum sat_status {
    SAT_OK = 0,
    SAT_E_NOMEM = -1,       /* allocation failed */
    SAT_E_IO = -2,          /* read/write/open failed (errno in the diag) */
    SAT_E_CORRUPT = -3,     /* checksum mismatch, impossible value */
    SAT_E_TRUNCATED = -4,   /* input ended in the middle of a unit */
    SAT_E_FORMAT = -5,      /* bytes are not what the format says */
    SAT_E_USAGE = -6,       /* caller passed something invalid */
    SAT_E_UNSUPPORTED = -7, /* valid but not handled (newer version, ...) */
    SAT_E_LIMIT = -8,       /* a configured bound was reached */
    SAT_E_STOP = -9         /* a sink asked the producer to stop early */
};

static inline const char *sat_strerror(int code)
{
    switch (code) {
    case SAT_OK: return "ok";
    case SAT_E_NOMEM: return "out of memory";
    case SAT_E_IO: return "I/O error";
    case SAT_E_CORRUPT: return "corrupt data";
    case SAT_E_TRUNCATED: return "truncated input";
    case SAT_E_FORMAT: return "malformed input";
    case SAT_E_USAGE: return "invalid argument";
    case SAT_E_UNSUPPORTED: return "unsupported";
    case SAT_E_LIMIT: return "limit reached";
    case SAT_E_STOP: return "stopped";
    default: return "unknown error";
    }
}

/* Caller-owned diagnostic: where = "file:line" / "packet 17" / "block 3",
 * msg = human sentence. Zero-initialise it; functions only write on failure. */
typedef struct sat_diag {
    int code;
    char where[512];
    char msg[512];
} sat_diag;

#if defined(__GNUC__)
#define SAT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SAT_PRINTF(a, b)
#endif

static inline int sat_diag_set(sat_diag *d, int code, const char *where,
                               const char *fmt, ...) SAT_PRINTF(4, 5);
static inline int sat_diag_set(sat_diag *d, int code, const char *where,
                               const char *fmt, ...)
{
    if (d) {
        va_list ap;
        d->code = code;
        snprintf(d->where, sizeof d->where, "%s", where ? where : "");
        va_start(ap, fmt);
        vsnprintf(d->msg, sizeof d->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

#define SAT_RETURN_ERROR_IF(cond, code, diag, where, ...)                    \
    do {                                                                     \
        if (cond)                                                            \
            return sat_diag_set((diag), (code), (where), __VA_ARGS__);       \
    } while (0)

#define SAT_FORWARD_IF_ERROR(expr)                                           \
    do {                                                                     \
        int sat_fwd_rc_ = (expr);                                            \
        if (sat_fwd_rc_ < 0)                                                 \
            return sat_fwd_rc_;                                              \
    } while (0)

/* ---- string view ------------------------------------------------------------
 * ptr == NULL means "absent"; ptr != NULL && len == 0 means "present, empty"
 * (an anonymous bind's dn="" is not the same as no dn at all). Borrowed: the
 * producer says how long the bytes live. */
typedef struct sat_str {
    const char *ptr;
    uint32_t len;
} sat_str;

#define SAT_STR_NONE ((sat_str){NULL, 0})
static inline sat_str sat_str_make(const char *p, size_t n)
{
    sat_str s;
    s.ptr = p;
    s.len = (uint32_t)(n > UINT32_MAX ? UINT32_MAX : n);
    return s;
}
static inline sat_str sat_str_cstr(const char *p)
{
    return p ? sat_str_make(p, strlen(p)) : SAT_STR_NONE;
}
static inline int sat_str_present(sat_str s) { return s.ptr != NULL; }
static inline int sat_str_eq(sat_str a, sat_str b)
{
    if (!a.ptr || !b.ptr)
        return a.ptr == b.ptr;
    return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}

/* 64-bit FNV-1a finished with a murmur-style mix: cheap, good enough for the
 * open-addressing tables used across the tree (not a defence against
 * adversarial collisions; tables cap their probe length instead). */
static inline uint64_t sat_hash_bytes(const void *p, size_t n, uint64_t seed)
{
    const unsigned char *b = (const unsigned char *)p;
    uint64_t h = 1469598103934665603ULL ^ seed;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ULL;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}
static inline uint64_t sat_hash_u64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* ---- bump arena ---------------------------------------------------------------
 * Per-batch allocations (one parse batch, one trace block): many small
 * allocations, one reset. Chunks are malloc'd; sat_arena_free(NULL) is fine. */
typedef struct sat_arena_chunk {
    struct sat_arena_chunk *next;
    size_t cap, used;
    /* data follows, max_align_t aligned */
} sat_arena_chunk;

typedef struct sat_arena {
    sat_arena_chunk *head;
    size_t chunk_size; /* default chunk payload size; 0 -> 64 KiB */
    size_t total;      /* bytes handed out since the last reset */
} sat_arena;

#define SAT_ARENA_HDR                                                        \
    ((sizeof(sat_arena_chunk) + sizeof(max_align_t) - 1) /                  \
     sizeof(max_align_t) * sizeof(max_align_t))

static inline void *sat_arena_alloc(sat_arena *a, size_t n)
{
    const size_t align = sizeof(max_align_t);
    n = (n + align - 1) / align * align;
    if (!a->head || a->head->cap - a->head->used < n) {
        size_t cs = a->chunk_size ? a->chunk_size : 65536;
        if (cs < n)
            cs = n;
        sat_arena_chunk *c = (sat_arena_chunk *)malloc(SAT_ARENA_HDR + cs);
        if (!c)
            return NULL;
        c->cap = cs;
        c->used = 0;
        c->next = a->head;
        a->head = c;
    }
    void *p = (char *)a->head + SAT_ARENA_HDR + a->head->used;
    a->head->used += n;
    a->total += n;
    return p;
}

/* Copy n bytes plus a NUL terminator into the arena. */
static inline char *sat_arena_strdup(sat_arena *a, const char *s, size_t n)
{
    char *p = (char *)sat_arena_alloc(a, n + 1);
    if (p) {
        if (n)
            memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

/* Keep the newest chunk, free the others: steady-state batches do not malloc. */
static inline void sat_arena_reset(sat_arena *a)
{
    if (!a->head)
        return;
    sat_arena_chunk *c = a->head->next;
    while (c) {
        sat_arena_chunk *n = c->next;
        free(c);
        c = n;
    }
    a->head->next = NULL;
    a->head->used = 0;
    a->total = 0;
}

static inline void sat_arena_free(sat_arena *a)
{
    if (!a)
        return;
    sat_arena_chunk *c = a->head;
    while (c) {
        sat_arena_chunk *n = c->next;
        free(c);
        c = n;
    }
    a->head = NULL;
    a->total = 0;
}

/* ---- growable arrays -----------------------------------------------------------
 * The one way an array grows: SAT_GROW(arr, cap, need) makes the array
 * pointer variable `arr` (elements of sizeof *arr bytes, `cap` a size_t
 * variable holding their number) hold at least `need` elements, doubling its
 * capacity (from 8). SAT_OK, or SAT_E_NOMEM (overflow or no memory) with arr
 * and cap untouched: the caller still owns the old array. The pointer is
 * read and written with memcpy, so any object pointer type is fine. */
static inline int sat_grow_(void *arrp, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return SAT_OK;
    size_t nc = *cap ? *cap : 8;
    while (nc < need) {
        if (nc > SIZE_MAX / 2)
            return SAT_E_NOMEM;
        nc *= 2;
    }
    if (elem && nc > SIZE_MAX / elem)
        return SAT_E_NOMEM;
    void *old;
    memcpy(&old, arrp, sizeof old);
    void *p = realloc(old, nc * elem);
    if (!p)
        return SAT_E_NOMEM;
    memcpy(arrp, &p, sizeof p);
    *cap = nc;
    return SAT_OK;
}
#define SAT_GROW(arr, cap, need) sat_grow_(&(arr), &(cap), (size_t)(need), sizeof *(arr))

/* ---- bounds-checked cursor ----------------------------------------------------
 * Untrusted bytes (trace blocks, captures, cores) are read only through this.
 * A read past the end sets the sticky `err` and returns zero; callers check
 * `err` once after a run of reads (tcpdump's GET_ macros, redis listpack). */
typedef struct sat_cursor {
    const uint8_t *p;
    size_t len;
    size_t pos;
    int err; /* 0 or SAT_E_TRUNCATED / SAT_E_CORRUPT, sticky */
} sat_cursor;

static inline sat_cursor sat_cursor_make(const void *p, size_t len)
{
    sat_cursor c;
    c.p = (const uint8_t *)p;
    c.len = len;
    c.pos = 0;
    c.err = 0;
    return c;
}
static inline size_t sat_cursor_left(const sat_cursor *c)
{
    return c->err ? 0 : c->len - c->pos;
}
static inline int sat_cursor_need(sat_cursor *c, size_t n)
{
    if (c->err)
        return 0;
    if (c->len - c->pos < n) {
        c->err = SAT_E_TRUNCATED;
        return 0;
    }
    return 1;
}
static inline uint8_t sat_cursor_u8(sat_cursor *c)
{
    return sat_cursor_need(c, 1) ? c->p[c->pos++] : 0;
}
static inline uint16_t sat_cursor_le16(sat_cursor *c)
{
    if (!sat_cursor_need(c, 2))
        return 0;
    uint16_t v = (uint16_t)(c->p[c->pos] | (c->p[c->pos + 1] << 8));
    c->pos += 2;
    return v;
}
static inline uint16_t sat_cursor_be16(sat_cursor *c)
{
    if (!sat_cursor_need(c, 2))
        return 0;
    uint16_t v = (uint16_t)((c->p[c->pos] << 8) | c->p[c->pos + 1]);
    c->pos += 2;
    return v;
}
static inline uint32_t sat_cursor_le32(sat_cursor *c)
{
    if (!sat_cursor_need(c, 4))
        return 0;
    const uint8_t *b = c->p + c->pos;
    c->pos += 4;
    return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) |
           ((uint32_t)b[3] << 24);
}
static inline uint32_t sat_cursor_be32(sat_cursor *c)
{
    if (!sat_cursor_need(c, 4))
        return 0;
    const uint8_t *b = c->p + c->pos;
    c->pos += 4;
    return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) |
           ((uint32_t)b[2] << 8) | (uint32_t)b[3];
}
static inline uint64_t sat_cursor_le64(sat_cursor *c)
{
    uint64_t lo = sat_cursor_le32(c);
    uint64_t hi = sat_cursor_le32(c);
    return lo | (hi << 32);
}
/* LEB128 unsigned varint, at most 10 bytes; longer is corrupt. */
static inline uint64_t sat_cursor_uvarint(sat_cursor *c)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if (!sat_cursor_need(c, 1))
            return 0;
        uint8_t b = c->p[c->pos++];
        if (shift == 63 && b > 1) {
            c->err = SAT_E_CORRUPT;
            return 0;
        }
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    c->err = SAT_E_CORRUPT;
    return 0;
}
static inline int64_t sat_zigzag_decode(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}
static inline uint64_t sat_zigzag_encode(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
static inline int64_t sat_cursor_svarint(sat_cursor *c)
{
    return sat_zigzag_decode(sat_cursor_uvarint(c));
}
/* Borrow n bytes in place (valid as long as the underlying buffer). */
static inline const uint8_t *sat_cursor_bytes(sat_cursor *c, size_t n)
{
    if (!sat_cursor_need(c, n))
        return NULL;
    const uint8_t *b = c->p + c->pos;
    c->pos += n;
    return b;
}
static inline void sat_cursor_skip(sat_cursor *c, size_t n)
{
    if (sat_cursor_need(c, n))
        c->pos += n;
}

#endif /* SATSCOPE_BASE_H */
