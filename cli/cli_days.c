/*
 * cli_days.c - the digest's server-days (cli.h "the digest's days"): from
 * inputs (the split's days of one pass) or from partials (.satp blocks),
 * each named as the digest shows it, and those of one name and date (two
 * halves of a day, two hosts behind one name) merged into one, unfinished:
 * `satscope partial` writes them, `satscope report --kind digest` finishes
 * them one at a time and reads their results.
 *
 * A server's name: --server or its log's host (named: one server whatever
 * its inputs), else its input's rotated set's path without suffixes; two
 * unnamed servers of one name are told apart ("access", "access (2)") and
 * that is said once. Days come out by server (in the order servers first
 * appear) then date.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "satscope/anonymize.h"
#include "satscope/partial.h"

typedef struct day_item {
    char *name;        /* as shown */
    char *base;        /* as its sources give it (before telling apart) */
    uint32_t server;   /* collect: its server index; partials: its file */
    sat_partial_day m; /* m.server = name */
    sat_multi *set;    /* collect: the split's (borrowed); NULL for a partial's */
    size_t file, pday; /* partials: which block */
    size_t order;      /* its server's first appearance */
} day_item;

typedef struct day_group {
    size_t first, n; /* items[first .. first + n) in the sorted items */
} day_group;

struct sat_cli_dayset {
    const sat_multi_opts *set;
    sat_split *split;
    sat_partial_file **files;
    size_t nfiles;
    day_item *items;
    size_t n;
    day_group *groups;
    size_t ngroups;
    sat_multi *loaded; /* partials: the group taken last */
    uint64_t dropped_days;
};

/* A server's name: the host name its logs give, else its input's. */
static char *split_name(const sat_split_day *sd)
{
    if (sd->host)
        return strdup(sd->host);
    if (sd->path) {
        char *n = sat_collect_group_key(sd->path);
        if (n)
            return n;
    }
    return strdup(sd->path ? sd->path : "(unknown server)");
}

/* Item k's shown name from its base (taken): named keeps it; an unnamed
 * server whose name another unnamed server of an earlier index has gets
 * " (2)", " (3)". 0, or -1 out of memory. */
static int distinct_name(sat_cli_dayset *s, size_t k, int named, char *base, const char *cmd)
{
    day_item *it = &s->items[k];
    it->base = base;
    if (named)
        return (it->name = strdup(base)) ? 0 : -1;
    for (size_t i = 0; i < k; i++)
        if (s->items[i].server == it->server) /* a day of this server named already */
            return (it->name = strdup(s->items[i].name)) ? 0 : -1;
    unsigned others = 0; /* servers of this name before it */
    for (size_t i = 0; i < k; i++) {
        int first = strcmp(s->items[i].base, base) == 0;
        for (size_t j = 0; first && j < i; j++)
            first = s->items[j].server != s->items[i].server;
        others += (unsigned)first;
    }
    if (!others)
        return (it->name = strdup(base)) ? 0 : -1;
    size_t len = strlen(base) + 16;
    if (!(it->name = malloc(len)))
        return -1;
    snprintf(it->name, len, "%s (%u)", base, others + 1);
    if (others == 1)
        fprintf(stderr, "satscope %s: two servers are both named '%s' (their logs name no "
                        "host):\n  shown as '%s' and '%s'; name each with --server NAME\n",
                cmd, base, base, it->name);
    return 0;
}

static int item_cmp(const void *a, const void *b)
{
    const day_item *x = a, *y = b;
    if (x->order != y->order)
        return x->order < y->order ? -1 : 1;
    if (x->m.day != y->m.day)
        return x->m.day < y->m.day ? -1 : 1;
    /* within a server-day: the inputs' order (a stable merge order) */
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    if (x->server != y->server)
        return x->server < y->server ? -1 : 1;
    return (x->pday > y->pday) - (x->pday < y->pday);
}

/* Orders the items by server then day and groups those of one name and
 * day. SAT_OK or SAT_E_NOMEM. */
static int group_items(sat_cli_dayset *s)
{
    for (size_t i = 0; i < s->n; i++) {
        s->items[i].m.server = s->items[i].name;
        s->items[i].order = i;
        for (size_t k = 0; k < i; k++)
            if (!strcmp(s->items[k].name, s->items[i].name)) {
                s->items[i].order = s->items[k].order;
                break;
            }
    }
    if (s->n)
        qsort(s->items, s->n, sizeof *s->items, item_cmp);
    if (!(s->groups = calloc(s->n ? s->n : 1, sizeof *s->groups)))
        return SAT_E_NOMEM;
    for (size_t i = 0; i < s->n;) {
        size_t j = i + 1;
        while (j < s->n && s->items[j].order == s->items[i].order &&
               s->items[j].m.day == s->items[i].m.day)
            j++;
        s->groups[s->ngroups++] = (day_group){i, j - i};
        i = j;
    }
    return SAT_OK;
}

void sat_cli_dayset_free(sat_cli_dayset *s);

/* The set's items grouped by name and day (rc: how making them went), the
 * rows of a group summed into its first, and the sets of a collection's
 * merged into the first (a partial's are merged when loaded): s, or NULL
 * after a message (s freed). */
static sat_cli_dayset *grouped(sat_cli_dayset *s, int rc, const char *cmd, int *code)
{
    if (rc >= 0)
        rc = group_items(s);
    for (size_t g = 0; g < s->ngroups && rc >= 0; g++) {
        day_item *first = &s->items[s->groups[g].first];
        for (size_t k = 1; k < s->groups[g].n && rc >= 0; k++) {
            if (first->set)
                rc = sat_multi_merge(first->set, first[k].set);
            first->m.rows += first[k].m.rows;
        }
    }
    if (rc < 0) {
        sat_cli_fail(cmd, rc, "nothing written");
        *code = SAT_EXIT_FAILED;
        sat_cli_dayset_free(s);
        return NULL;
    }
    return s;
}

void sat_cli_dayset_free(sat_cli_dayset *s)
{
    if (!s)
        return;
    sat_multi_free(s->loaded);
    for (size_t i = 0; i < s->n; i++) {
        free(s->items[i].name);
        free(s->items[i].base);
    }
    free(s->items);
    free(s->groups);
    for (size_t i = 0; i < s->nfiles; i++)
        sat_partial_close(s->files[i]);
    free(s->files);
    sat_split_free(s->split);
    free(s);
}

sat_cli_dayset *sat_cli_dayset_collect(sat_cli_collect *c, const sat_digest_plan *plan,
                                       struct sat_anon *anon, char *const *paths, size_t npaths,
                                       const char *cmd, int *code)
{
    sat_cli_dayset *s = calloc(1, sizeof *s);
    if (!s || !(s->split = sat_split_create(&plan->split))) {
        free(s);
        sat_cli_fail(cmd, SAT_E_NOMEM, "nothing written");
        *code = SAT_EXIT_FAILED;
        return NULL;
    }
    s->set = &plan->set;
    int cc;
    if (anon) { /* pseudonymised before any analyzer sees a row: one pass */
        sat_event_sink rows = sat_split_sink(s->split);
        sat_event_sink sink = sat_anon_sink(anon, &rows);
        cc = sat_cli_collect_run(c, paths, npaths, &sink);
        if (sat_anon_failed(anon))
            c->failed = 1;
    } else {
        cc = sat_cli_collect_into(c, &sat_split_analyzer, &plan->split, s->split, paths, npaths);
    }
    if (cc > *code)
        *code = cc;
    int rc = c->failed ? SAT_E_NOMEM : sat_split_assemble(s->split);
    size_t n = sat_split_days(s->split);
    sat_split_dropped(s->split, &s->dropped_days, NULL);
    if (rc >= 0 && !(s->items = calloc(n ? n : 1, sizeof *s->items)))
        rc = SAT_E_NOMEM;
    for (size_t i = 0; i < n && rc >= 0; i++) {
        const sat_split_day *sd = sat_split_day_at(s->split, i);
        day_item *it = &s->items[s->n++];
        it->server = sd->server;
        it->set = sd->set;
        it->m.named = sd->host != NULL;
        sat_split_day_name(sd->day, it->m.date, sizeof it->m.date);
        it->m.day = sd->day;
        it->m.start_ts = sd->start_ts;
        it->m.utc_offset_s = sd->utc_offset_s;
        it->m.rows = sd->rows;
        char *base = split_name(sd);
        if (!base || distinct_name(s, s->n - 1, it->m.named, base, cmd) < 0) {
            if (!it->base)
                free(base);
            rc = SAT_E_NOMEM;
        }
    }
    return grouped(s, rc, cmd, code);
}

int sat_cli_are_partials(const char *cmd, char *const *paths, size_t npaths)
{
    size_t n = 0;
    for (size_t i = 0; i < npaths; i++)
        n += sat_partial_sniff(paths[i]) == 1;
    if (n && n != npaths) {
        sat_cli_usage_error(cmd, "%zu of the %zu inputs are partials (.satp): give partials "
                                 "alone, or logs and traces alone",
                            n, npaths);
        return -1;
    }
    return n != 0;
}

static void warn_cb(void *ctx, const char *where, const char *msg)
{
    fprintf(stderr, "satscope %s: %s: %s\n", (const char *)ctx, where, msg);
}

sat_cli_dayset *sat_cli_dayset_partials(const sat_digest_plan *plan, char *const *paths,
                                        size_t npaths, const char *cmd, int *code)
{
    sat_cli_dayset *s = calloc(1, sizeof *s);
    if (s)
        s->files = calloc(npaths ? npaths : 1, sizeof *s->files);
    if (!s || !s->files) {
        free(s);
        sat_cli_fail(cmd, SAT_E_NOMEM, "nothing written");
        *code = SAT_EXIT_FAILED;
        return NULL;
    }
    s->set = &plan->set;
    size_t total = 0;
    for (size_t i = 0; i < npaths; i++) {
        sat_diag d;
        memset(&d, 0, sizeof d);
        sat_partial_file *f = sat_partial_open(paths[i], warn_cb, (void *)cmd, &d);
        if (!f) {
            fprintf(stderr, "satscope %s: %s: %s\n", cmd, paths[i], d.msg);
            *code = SAT_EXIT_UNREADABLE;
            continue;
        }
        s->files[s->nfiles++] = f;
        total += sat_partial_ndays(f);
    }
    int rc = (s->items = calloc(total ? total : 1, sizeof *s->items)) ? SAT_OK : SAT_E_NOMEM;
    for (size_t fi = 0; fi < s->nfiles && rc >= 0; fi++)
        for (size_t k = 0; k < sat_partial_ndays(s->files[fi]) && rc >= 0; k++) {
            const sat_partial_day *m = sat_partial_day_at(s->files[fi], k);
            day_item *it = &s->items[s->n++];
            it->m = *m;
            it->file = fi;
            it->pday = k;
            it->server = (uint32_t)fi;
            /* named as the host named it: the same name is one server */
            if (!(it->name = strdup(m->server)) || !(it->base = strdup(m->server)))
                rc = SAT_E_NOMEM;
        }
    return grouped(s, rc, cmd, code);
}

size_t sat_cli_dayset_n(const sat_cli_dayset *s) { return s ? s->ngroups : 0; }

uint64_t sat_cli_dayset_dropped(const sat_cli_dayset *s) { return s ? s->dropped_days : 0; }

const sat_partial_day *sat_cli_dayset_meta(const sat_cli_dayset *s, size_t i)
{
    return &s->items[s->groups[i].first].m;
}

sat_multi *sat_cli_dayset_take(sat_cli_dayset *s, size_t i, sat_diag *d)
{
    const day_group *g = &s->groups[i];
    const day_item *first = &s->items[g->first];
    if (first->set)
        return first->set;
    sat_multi_free(s->loaded);
    s->loaded = NULL;
    sat_multi *into = NULL;
    int rc = SAT_OK;
    for (size_t k = 0; k < g->n && rc >= 0; k++) {
        const day_item *it = &first[k];
        sat_multi *m = sat_multi_create(s->set);
        if (!m) {
            rc = sat_diag_set(d, SAT_E_NOMEM, "", "out of memory");
            break;
        }
        rc = sat_partial_load(s->files[it->file], it->pday, m, d);
        if (rc >= 0 && into) {
            rc = sat_multi_merge(into, m);
            sat_multi_free(m);
        } else if (rc >= 0) {
            into = m;
        } else {
            sat_multi_free(m);
        }
    }
    if (rc < 0) {
        sat_multi_free(into);
        return NULL;
    }
    return s->loaded = into;
}

void sat_cli_dayset_release(sat_cli_dayset *s, size_t i)
{
    (void)i;
    sat_multi_free(s->loaded);
    s->loaded = NULL;
}
