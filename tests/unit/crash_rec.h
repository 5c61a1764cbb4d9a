/*
 * crash_rec.h - what the crash text tests (test_crash_text_*.c) share: a
 * sink that keeps a copy of every crash and frame row in order (strings
 * copied, since rows are borrowed), the checks every input must pass (frame
 * rows before their crash row, crash numbers 1..N), and the feeding of a
 * text or of a fixture of fixtures/crashtext through parse/crash/crash_text.c,
 * line by line, each line in its own buffer as collect/ gives them.
 */
#ifndef SAT_TEST_CRASH_REC_H
#define SAT_TEST_CRASH_REC_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "satscope/crash.h"

/* ---- a sink that keeps copies of every row, in order ----------------------------- */
typedef struct rframe {
    sat_frame f;
    char module[256], function[4200], file[256];
    int has_module, has_function, has_file;
    int order;
} rframe;

typedef struct rcrash {
    sat_crash c;
    char exe[256], command[256], host[64], fingerprint[32], build_key[32], missing[32];
    int has_exe, has_command, has_host, has_missing;
    int order;
} rcrash;

typedef struct rec {
    rframe *fr;
    size_t nfr, capfr;
    rcrash cr[64];
    size_t ncr;
    int order;
    int fail_on_crash; /* return this from on_crash (0: none) */
} rec;

static inline int copy(char *dst, size_t cap, sat_str s)
{
    if (!s.ptr) {
        dst[0] = '\0';
        return 0;
    }
    size_t n = s.len < cap - 1 ? s.len : cap - 1;
    memcpy(dst, s.ptr, n);
    dst[n] = '\0';
    return 1;
}

static inline int rec_frame(void *ctx, const sat_frame *f)
{
    rec *r = ctx;
    if (r->nfr == r->capfr) {
        r->capfr = r->capfr ? r->capfr * 2 : 64;
        r->fr = realloc(r->fr, r->capfr * sizeof *r->fr);
        if (!r->fr)
            abort();
    }
    rframe *x = &r->fr[r->nfr++];
    x->f = *f;
    x->has_module = copy(x->module, sizeof x->module, f->module);
    x->has_function = copy(x->function, sizeof x->function, f->function);
    x->has_file = copy(x->file, sizeof x->file, f->file);
    x->order = r->order++;
    return 0;
}

static inline int rec_crash(void *ctx, const sat_crash *c)
{
    rec *r = ctx;
    if (r->fail_on_crash)
        return r->fail_on_crash;
    if (r->ncr == sizeof r->cr / sizeof r->cr[0])
        return SAT_E_LIMIT;
    rcrash *x = &r->cr[r->ncr++];
    x->c = *c;
    x->has_exe = copy(x->exe, sizeof x->exe, c->exe);
    x->has_command = copy(x->command, sizeof x->command, c->command);
    x->has_host = copy(x->host, sizeof x->host, c->host);
    copy(x->fingerprint, sizeof x->fingerprint, c->fingerprint);
    copy(x->build_key, sizeof x->build_key, c->build_key);
    x->has_missing = copy(x->missing, sizeof x->missing, c->missing);
    x->order = r->order++;
    return 0;
}

static inline int rows_crash_frame(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_CRASH:
        return rec_crash(ctx, (const sat_crash *)row);
    case SAT_TABLE_FRAME:
        return rec_frame(ctx, (const sat_frame *)row);
    default:
        return 0;
    }
}

static inline void rec_free(rec *r) { free(r->fr); }

/* The frames of crash `id`, in emission order. */
static inline size_t frames_of(const rec *r, uint32_t id, const rframe **out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nfr; i++)
        if (r->fr[i].f.crash == id && n < cap)
            out[n++] = &r->fr[i];
    return n;
}

/* Every frame row comes before its crash row, crash numbers run 1..N. */
static inline void check_order(const rec *r)
{
    for (size_t k = 0; k < r->ncr; k++) {
        CHECK_EQ_INT(r->cr[k].c.crash, k + 1);
        for (size_t i = 0; i < r->nfr; i++)
            if (r->fr[i].f.crash == r->cr[k].c.crash)
                CHECK(r->fr[i].order < r->cr[k].order);
    }
    for (size_t i = 0; i < r->nfr; i++) {
        int found = 0;
        for (size_t k = 0; k < r->ncr; k++)
            found |= r->fr[i].f.crash == r->cr[k].c.crash;
        CHECK(found); /* no frame row without its crash row */
    }
}

/* ---- feeding --------------------------------------------------------------------- */
static sat_crash_text_stats last_stats;

static inline int feed_text(rec *r, const char *text, size_t len, const sat_crash_text_opts *o)
{
    sat_event_sink sink;
    memset(&sink, 0, sizeof sink);
    sink.ctx = r;
    sink.tables = SAT_TABLE_BIT(SAT_TABLE_CRASH) | SAT_TABLE_BIT(SAT_TABLE_FRAME);
    sink.on_row = rows_crash_frame;
    sat_crash_text_opts def;
    memset(&def, 0, sizeof def);
    def.default_year = 2025;
    def.source = 7;
    sat_crash_text *ct = sat_crash_text_create(o ? o : &def, &sink);
    CHECK(ct != NULL);
    if (!ct)
        return SAT_E_NOMEM;
    const char *p = text, *end = text + len;
    uint64_t no = 0;
    int rc = SAT_OK;
    while (p < end && rc >= 0) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        /* each line in its own buffer, no NUL after it (as collect/ gives them) */
        char *line = malloc(n ? n : 1);
        memcpy(line, p, n);
        rc = sat_crash_text_line(ct, line, n, ++no);
        free(line);
        p = nl ? nl + 1 : end;
    }
    if (rc >= 0)
        rc = sat_crash_text_finish(ct);
    sat_crash_text_get_stats(ct, &last_stats);
    sat_crash_text_free(ct);
    return rc;
}

static inline char *slurp(const char *name, size_t *len)
{
    const char *src = getenv("SAT_SRC");
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/crashtext/%s", src ? src : ".", name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        check_failed++;
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (fread(b, 1, (size_t)n, f) != (size_t)n)
        n = 0;
    b[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return b;
}

static inline int feed_fixture(rec *r, const char *name)
{
    size_t len;
    char *b = slurp(name, &len);
    if (!b)
        return SAT_E_IO;
    int rc = feed_text(r, b, len, NULL);
    free(b);
    check_order(r);
    return rc;
}

/* A number the fixture itself says, after `key` (so regenerating it keeps the
 * test true): "[Current thread is 1 (Thread 0x.. (LWP 27597))]" -> 27597. */
static inline long fixture_number_after(const char *name, const char *line_has, const char *key)
{
    size_t len;
    char *b = slurp(name, &len);
    long v = -1;
    if (b) {
        const char *l = strstr(b, line_has);
        const char *k = l ? strstr(l, key) : NULL;
        if (k)
            v = strtol(k + strlen(key), NULL, 10);
        free(b);
    }
    return v;
}

#define NS(s) ((sat_ts_ns)(s) * 1000000000LL)

#endif
