/*
 * collect_sets.c - the logs of a collection as rotated sets, one per server
 * (rotation.c's key: directory + base name without rotation, date and
 * compression suffixes), each read in the order of its content (the first
 * timestamp of each file), not of its names; and the year of syslog lines,
 * which carry none, settled across a set (an older file whose first line
 * comes after the next newer one's belongs to the year before).
 */
#include "collect_run.h"

/* ---- years of year-less timestamps --------------------------------------------------------- */
sat_ts_ns sat_run_year_end(int y)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    tm.tm_year = y - 1900;
    tm.tm_mon = 11;
    tm.tm_mday = 30;
    return (sat_ts_ns)timegm(&tm) * 1000000000LL;
}

/* ts moved to the same date and time of day in year y. */
static sat_ts_ns in_year(sat_ts_ns ts, int y)
{
    time_t t = (time_t)(ts / 1000000000LL);
    struct tm tm;
    if (!gmtime_r(&t, &tm))
        return ts;
    tm.tm_year = y - 1900;
    return (sat_ts_ns)timegm(&tm) * 1000000000LL + ts % 1000000000LL;
}

/* A rotated set is written in its rotation order (slapd.log.2, .1, then the
 * live file): the file's own year (by its mtime) is an upper bound (no line is written after
 * the file was last modified, and a copy only makes the mtime later), so an
 * older file whose first line, in its year, comes after the first line of the
 * next newer one belongs to the year before (slapd.log.1 ending on Dec 31,
 * slapd.log starting on Jan 1, both copied later). */
static void order_years(run *r, group *g)
{
    /* --year gives the oldest file's year: newer files move on instead */
    int forward = r->opts->year != 0;
    for (int moved = 1; moved;) {
        moved = 0;
        for (size_t a = 0; a < g->nitems; a++) {
            item *older = &r->items[g->items[a]];
            int ra = sat_collect_rotation_index(older->path);
            if (!older->yearless || ra == 0)
                continue;
            for (size_t b = 0; b < g->nitems; b++) {
                item *newer = &r->items[g->items[b]];
                if (!newer->yearless || sat_collect_rotation_index(newer->path) >= ra)
                    continue;
                while (older->first_ts > newer->first_ts && older->year > 1970 &&
                       newer->year < 9999) {
                    item *it = forward ? newer : older;
                    it->year += forward ? 1 : -1;
                    it->first_ts = in_year(it->first_ts, it->year);
                    it->year_why = forward ? "after the older files of its rotated set"
                                           : "before the newer files of its rotated set";
                    moved = 1;
                }
            }
        }
    }
}

/* ---- grouping ------------------------------------------------------------------------- */
int sat_run_group_items(run *r)
{
    for (size_t i = 0; i < r->nitems; i++) {
        item *it = &r->items[i];
        if (it->kind != ITEM_LOG)
            continue;
        char *key = sat_collect_group_key(it->path);
        if (!key)
            return SAT_E_NOMEM;
        size_t g;
        for (g = 0; g < r->ngroups; g++)
            if (strcmp(r->groups[g].key, key) == 0)
                break;
        if (g == r->ngroups) {
            if (SAT_GROW(r->groups, r->gcap, r->ngroups + 1)) {
                free(key);
                return SAT_E_NOMEM;
            }
            memset(&r->groups[g], 0, sizeof r->groups[g]);
            r->groups[g].key = key;
            r->groups[g].first_order = it->order;
            r->ngroups++;
        } else {
            free(key);
        }
        group *gr = &r->groups[g];
        if (SAT_GROW(gr->items, gr->cap, gr->nitems + 1))
            return SAT_E_NOMEM;
        gr->items[gr->nitems++] = i;
        it->group = g;
    }
    return SAT_OK;
}

static _Thread_local const item *sort_base; /* runs may go on at once (collect.c) */
/* Files whose first timestamp is known come first, by that time; the others
 * (empty, unrecognised, no timestamp in the first 64 KiB) after them. Ties
 * and unknowns fall back to the name, then to the order given. */
static int cmp_items(const void *a, const void *b)
{
    const item *x = &sort_base[*(const size_t *)a], *y = &sort_base[*(const size_t *)b];
    if (x->has_ts != y->has_ts)
        return x->has_ts ? -1 : 1;
    if (x->has_ts && x->first_ts != y->first_ts)
        return x->first_ts < y->first_ts ? -1 : 1;
    int c = strcmp(x->path, y->path);
    if (c)
        return c;
    return x->order < y->order ? -1 : x->order > y->order;
}

void sat_run_order_set(run *r, group *g)
{
    order_years(r, g);
    sort_base = r->items;
    qsort(g->items, g->nitems, sizeof *g->items, cmp_items);
}
