/*
 * digest_plan.c - the nightly digest's analysis plan (analyze.h "the digest's
 * analysis plan"): which analyzers read each (server, day), with which
 * options and over which rows, each result named after its role, so that the
 * report reads the day's results by name and runs no analysis of its own.
 */
#include <string.h>

#include "satscope/analyze.h"

/* Unindexed searches only (notes=A or U), and the sources that say whose. */
static int keep_unindexed(int table, const void *row)
{
    if (table == SAT_TABLE_SOURCE)
        return 1;
    if (table != SAT_TABLE_LDAP_OP)
        return 0;
    const sat_ldap_op *op = row;
    return op->type == SAT_OP_SRCH && (op->notes & (SAT_NOTE_A | SAT_NOTE_U)) != 0;
}

/* The crashes alone: the digest lists them, without the load of the minute
 * before each (which the crashes analyzer keeps every row's trace of, in
 * every hour of every day: the post-mortem's business). */
static int keep_crash_rows(int table, const void *row)
{
    (void)row;
    return table == SAT_TABLE_SOURCE || table == SAT_TABLE_CRASH || table == SAT_TABLE_FRAME;
}

void sat_digest_plan_init(sat_digest_plan *p, const void *(*given)(void *ctx, const char *analyzer),
                          void *ctx)
{
    static const struct {
        const char *role, *analyzer;
    } roles[] = {{"etime", "etime"},         {"etime_unindexed", "etime"},
                 {"etime_clients", "etime"}, {"storms", "storms"},
                 {"crashes", "crashes"},     {"cachesize", "cachesize"},
                 {"handshakes", "handshakes"}, {"timeline", "timeline"}};
    _Static_assert(sizeof roles / sizeof roles[0] <= SAT_DIGEST_ROLES_MAX, "room for every role");
    memset(p, 0, sizeof *p);
    p->etime.by = SAT_ETIME_BY_NONE;
    p->by_filter.by = SAT_ETIME_BY_FILTER;
    p->by_client.by = SAT_ETIME_BY_CLIENT;
    /* storms at 10 s, the step its default takes for anything longer than 5
     * minutes: one series per hour of the split, not one per step */
    p->storms.window = 10 * (sat_dur_ns)1000000000;
    size_t n = 0;
    for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++) {
        const sat_analyzer *a = sat_analyzer_find(roles[i].analyzer);
        if (!a)
            continue;
        const char *role = roles[i].role;
        const void *opts = NULL;
        if (!strcmp(role, "etime")) {
            opts = &p->etime;
        } else if (!strcmp(role, "etime_clients")) {
            opts = &p->by_client;
        } else if (!strcmp(role, "storms")) {
            opts = &p->storms;
        } else if (!strcmp(role, "crashes")) {
            p->crash_only = (sat_filtered_opts){a, NULL, keep_crash_rows};
            a = &sat_filtered_analyzer;
            opts = &p->crash_only;
        } else if (!strcmp(role, "etime_unindexed")) {
            p->unindexed = (sat_filtered_opts){a, &p->by_filter, keep_unindexed};
            a = &sat_filtered_analyzer;
            opts = &p->unindexed;
        }
        if (!opts && given)
            opts = given(ctx, roles[i].analyzer);
        p->members[n++] = (sat_multi_member){a, opts, role};
    }
    p->set.members = p->members;
    p->set.n = n;
    p->split.set = &p->set;
}
