/*
 * crashes_finish.c - what the crashes analyzer finds in its rows
 * (crashes_internal.h cr_found, which its result is written from): crash
 * reports in logs matched to the core of the same crash, every crash with
 * its stacks and the load before it, and the groups of crashes.
 *
 * Crashes are grouped by fingerprint, and two groups are one when a crash of
 * each has the same exact-build key: the same core read with and without its
 * executable (named frames, then module+offset frames) is one bug.
 */
#include <stdlib.h>

#include "crashes_internal.h"

static int cmp_info(const void *a, const void *b)
{
    const cr_info *x = a, *y = b;
    sat_ts_ns tx = x->row.ts > 0 ? x->row.ts : INT64_MAX, ty = y->row.ts > 0 ? y->row.ts : INT64_MAX;
    if (tx != ty)
        return tx < ty ? -1 : 1;
    if (x->row.source != y->row.source)
        return x->row.source < y->row.source ? -1 : 1;
    return x->row.crash < y->row.crash ? -1 : x->row.crash > y->row.crash;
}

static int cmp_group(const void *a, const void *b)
{
    const cr_group *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

static sat_str base_of(sat_str s)
{
    size_t b = 0;
    for (size_t i = 0; i < s.len; i++)
        if (s.ptr[i] == '/')
            b = i + 1;
    return sat_str_make(s.ptr + b, s.len - b);
}

/* A log line's command (the kernel's comm: the first 15 bytes of the
 * executable's name) names the process of a core when it starts the core's
 * executable name or the first word of its command line. */
static int same_command(const sat_crash *core, sat_str comm)
{
    if (!comm.len)
        return 0;
    sat_str cands[2] = {base_of(core->exe), core->command};
    if (cands[1].len) {
        size_t w = 0;
        while (w < cands[1].len && cands[1].ptr[w] != ' ')
            w++;
        cands[1] = base_of(sat_str_make(cands[1].ptr, w));
    }
    for (int i = 0; i < 2; i++)
        if (cands[i].len >= comm.len && !memcmp(cands[i].ptr, comm.ptr, comm.len))
            return 1;
    return 0;
}

/* A crash report in the logs and the core of the same crash are one crash:
 * same pid, same command (the kernel's 15-byte comm, or the executable the
 * text names), and the report not later than the core's file was last
 * written (plus a minute). The reports: the kernel's or systemd-coredump's
 * line, and a backtrace the process wrote (its pid from a syslog prefix). The
 * core keeps its facts; it takes the report's time unless --crash-time or its
 * name gave one, and the kernel line's fault address when it has none. A
 * kernel line about a process whose backtrace is in the logs is that crash
 * too. */
static void match_log_lines(sat_crashes *c, cr_found *v)
{
    for (size_t i = 0; i < c->nentries; i++) {
        cr_entry *k = &c->entries[i];
        if (!k->have_row || k->row.origin == SAT_CRASH_CORE || k->row.pid <= 0)
            continue;
        int kernel = k->row.origin == SAT_CRASH_TEXT_KERNEL;
        sat_str comm = k->row.command.len && kernel ? k->row.command : base_of(k->row.exe);
        if (!comm.len)
            comm = k->row.command;
        for (size_t j = 0; j < c->nentries; j++) {
            cr_entry *e = &c->entries[j];
            if (j == i || !e->have_row || e->matched || e->row.origin == SAT_CRASH_TEXT_KERNEL ||
                (!kernel && e->row.origin != SAT_CRASH_CORE) || e->row.pid != k->row.pid ||
                !same_command(&e->row, comm))
                continue;
            int core = e->row.origin == SAT_CRASH_CORE;
            int dated = e->row.time_source == SAT_CRASH_TIME_OPTION ||
                        e->row.time_source == SAT_CRASH_TIME_CORE_NAME;
            const sat_ts_ns minute = 60 * (sat_ts_ns)1000000000;
            if (!kernel && k->row.ts <= 0)
                continue; /* a backtrace of no known time: maybe another process */
            /* a core dated by its mtime crashed before it; any other time is
             * the crash's own, and the report must be of then */
            if (k->row.ts > 0 && e->row.ts > 0 &&
                (k->row.ts > e->row.ts + minute ||
                 (e->row.time_source != SAT_CRASH_TIME_MTIME && k->row.ts < e->row.ts - minute)))
                continue; /* another process with the same pid, or another time */
            if (kernel && e->row.signal == k->row.signal && e->row.fault_addr == SAT_ABSENT)
                e->row.fault_addr = k->row.fault_addr;
            /* the kernel's line (written at the fault) before a backtrace */
            if (core && !dated && k->row.ts > 0 &&
                (e->row.time_source != SAT_CRASH_TIME_LOG || (kernel && !e->time_by_kernel))) {
                e->row.ts = k->row.ts;
                e->row.time_source = SAT_CRASH_TIME_LOG;
                e->time_by_kernel = kernel;
            }
            if (!k->matched)
                v->log_lines_matched++;
            k->matched = 1;
        }
    }
}

int sat_crashes_finish(sat_crashes *c)
{
    if (!c)
        return SAT_E_USAGE;
    cr_found *v = &c->found;
    memset(v, 0, sizeof *v);
    int rc = c->storms_borrowed ? SAT_OK : sat_storms_finish(c->storms);
    const sat_storms_view *sv = c->t.have_load ? st_storms_found(c->storms) : NULL;
    v->storms = sv;
    v->have_load = c->t.have_load != 0;
    match_log_lines(c, v);
    size_t n = 0;
    for (size_t i = 0; i < c->nentries; i++)
        n += c->entries[i].have_row && !c->entries[i].matched;
    cr_info *ci = (cr_info *)sat_arena_alloc(&c->arena, (n + 1) * sizeof *ci);
    cr_group *gr = (cr_group *)sat_arena_alloc(&c->arena, (n + 1) * sizeof *gr);
    if (!ci || !gr)
        return SAT_E_NOMEM;
    n = 0;
    for (size_t i = 0; i < c->nentries && rc >= 0; i++) {
        cr_entry *e = &c->entries[i];
        if (!e->have_row || e->matched)
            continue;
        memset(&ci[n], 0, sizeof ci[n]);
        ci[n].row = e->row;
        rc = cr_build_stacks(c, &ci[n], e);
        n++;
    }
    if (rc < 0)
        return rc;
    qsort(ci, n, sizeof *ci, cmp_info);
    /* Groups: crashes with the same fingerprint, and those linked by the same
     * exact-build key (one build, one place: the same bug whether its frames
     * were named or not), in order of their first crash, then by size. */
    size_t ng = 0;
    size_t *root = (size_t *)calloc(n + 1, sizeof *root);
    if (!root)
        return SAT_E_NOMEM;
    for (size_t i = 0; i < n; i++)
        root[i] = i;
    sat_strtab firsts, builds;
    sat_strtab_init(&firsts, sizeof(uint32_t), 0);
    sat_strtab_init(&builds, sizeof(uint32_t), 0);
    for (size_t i = 0; i < n && rc >= 0; i++) {
        for (int k = 0; k < 2; k++) {
            sat_str key = k ? ci[i].row.build_key : ci[i].row.fingerprint;
            if (!key.len)
                key = k ? SAT_STR_NONE : sat_str_cstr("fp:?");
            if (!key.len)
                continue;
            char kb[128];
            int kl = snprintf(kb, sizeof kb, "%c%.*s", k ? 'b' : 'f', (int)key.len, key.ptr);
            int is_new, capped;
            uint32_t *first = (uint32_t *)sat_strtab_upsert(
                &firsts, kb, (size_t)kl < sizeof kb ? (size_t)kl : sizeof kb - 1, &is_new,
                &capped);
            if (!first) {
                rc = SAT_E_NOMEM;
                break;
            }
            if (is_new) {
                *first = (uint32_t)i;
                continue;
            }
            /* union: the later root points at the earlier one */
            size_t a = *first, b = i;
            while (root[a] != a)
                a = root[a];
            while (root[b] != b)
                b = root[b];
            if (a < b)
                root[b] = a;
            else if (b < a)
                root[a] = b;
        }
    }
    sat_strtab_free(&firsts);
    for (size_t i = 0; i < n && rc >= 0; i++) {
        size_t r = i;
        while (root[r] != r)
            r = root[r];
        root[i] = r;
        if (r == i) { /* roots come in index (time) order */
            memset(&gr[ng], 0, sizeof gr[ng]);
            gr[ng].first = i;
            gr[ng].first_ts = ci[i].row.ts;
            ci[i].group = ng++;
        } else {
            ci[i].group = ci[r].group;
        }
        cr_group *G = &gr[ci[i].group];
        G->count++;
        if (ci[i].row.ts > 0 && (!G->first_ts || ci[i].row.ts < G->first_ts))
            G->first_ts = ci[i].row.ts;
        if (ci[i].row.ts > G->last_ts)
            G->last_ts = ci[i].row.ts;
        /* the group's name: the fingerprint of its crash with the most named
         * frames (the fewest "+0x" offsets in its signature), the first on a tie */
        sat_str sig = ci[i].row.signature;
        size_t unnamed = 0;
        for (size_t p = 0; sig.len && p + 3 <= sig.len; p++)
            unnamed += !memcmp(sig.ptr + p, "+0x", 3);
        if (r == i || unnamed < G->unnamed) {
            G->unnamed = unnamed;
            G->fingerprint = ci[i].row.fingerprint.len ? ci[i].row.fingerprint.ptr : "fp:?";
            G->signature = sig.len ? sig.ptr : "?";
        }
        /* distinct builds per group: key = group + build key */
        char bk[96];
        int bl = snprintf(bk, sizeof bk, "%zu|%.*s", ci[i].group, (int)ci[i].row.build_key.len,
                          ci[i].row.build_key.ptr ? ci[i].row.build_key.ptr : "");
        int is_new, capped;
        if (bl > 0 && sat_strtab_upsert(&builds, bk, (size_t)bl < sizeof bk ? (size_t)bl
                                                                              : sizeof bk - 1,
                                        &is_new, &capped) && is_new)
            G->builds++;
    }
    sat_strtab_free(&builds);
    free(root);
    if (rc < 0)
        return rc;
    /* groups by size (then by their first crash); crashes follow their group */
    qsort(gr, ng, sizeof *gr, cmp_group);
    size_t *remap = (size_t *)calloc(ng + 1, sizeof *remap);
    if (!remap)
        return SAT_E_NOMEM;
    for (size_t g = 0; g < ng; g++) /* a group's first crash still holds its old index */
        remap[ci[gr[g].first].group] = g;
    for (size_t i = 0; i < n; i++)
        ci[i].group = remap[ci[i].group];
    free(remap);
    rc = cr_contexts(c, ci, n, sv);
    v->crashes = ci;
    v->ncrashes = n;
    v->groups = gr;
    v->ngroups = ng;
    if (rc < 0)
        return rc;
    return c->nomem ? SAT_E_NOMEM : SAT_OK;
}

