/*
 * section_etime_internal.c - the "Internal operations" section of the etime
 * result (its internal_operations object, built from analyze/internal_ops.c's
 * attribution): per client operation type and base, the internal operations
 * it ran (type, base, scope, filter shape), how many per client operation,
 * their etime and its share of the client operations' etime; nested ones
 * indented under the one that ran them. Shown under the main table whenever
 * the input has internal operations (the first `top` groups and rows of
 * each), all of them with --by internal.
 */
#include <string.h>

#include "section_etime.h"

/* The columns of a group's table: within 100 columns where the time went
 * first, then what ran (the depth shows as the indent of op); the depth,
 * mean and max where there is room. */
static const char *const group_cols[] = {"+depth", "op",  "count", "per_operation",
                                         "errors", "total_s", "+mean_s", "+max_s",
                                         "share",  "scope",   "base",    "filter"};
#define NGROUP_COLS (sizeof group_cols / sizeof group_cols[0])

static int same_text(const sat_rnode *a, const char *ka, const sat_rnode *b, const char *kb)
{
    const char *x = sat_get_text(a, ka, NULL), *y = sat_get_text(b, kb, NULL);
    return x && y && !strcmp(x, y);
}

/* One group's figures, as they allow (its title is its op and base). */
static void group_figures(const etb *x, const sat_rnode *g, sat_rnode *s)
{
    const char *op = sat_get_text(g, "op", "?");
    uint64_t parents = sat_get_count(g, "operations", 0), internal = sat_get_count(g, "internal", 0);
    char is[64], ps[64], sh[64];
    sec_fmt(x->c, is, sizeof is, g, "internal_s");
    sec_fmt(x->c, ps, sizeof ps, g, "operations_etime_s");
    sec_fmt(x->c, sh, sizeof sh, g, "share");
    if (!strcmp(op, "(server)"))
        sat_doc_para(s, "%llu internal %s, %llu of them outermost: %s",
                     (unsigned long long)internal, sat_plural(internal, "operation", "operations"),
                     (unsigned long long)parents, is);
    else if (parents && sat_get_has(g, "operations_etime_s"))
        sat_doc_para(s, "%llu %s ran %llu internal ones: %s of their %s etime (%s)",
                     (unsigned long long)parents, sat_plural(parents, "operation", "operations"),
                     (unsigned long long)internal, is, ps, sh);
    else if (parents)
        sat_doc_para(s, "%llu %s ran %llu internal ones: %s", (unsigned long long)parents,
                     sat_plural(parents, "operation", "operations"), (unsigned long long)internal,
                     is);
    else
        sat_doc_para(s, "%llu internal %s: %s", (unsigned long long)internal,
                     sat_plural(internal, "operation", "operations"), is);
}

/* The rows of one group (from *r on, advanced past them) as a table of s,
 * at most show of them. */
static void group_table(sat_rnode *s, const sat_rnode *rows, const sat_rnode *g,
                        const sat_rnode **r, int all, size_t top)
{
    size_t ncols;
    const sat_col *src = sat_table_cols(rows, &ncols);
    sat_col cols[NGROUP_COLS];
    size_t nc = 0;
    for (size_t i = 0; i < NGROUP_COLS; i++) {
        const char *name = group_cols[i] + (group_cols[i][0] == '+');
        for (size_t k = 0; k < ncols; k++)
            if (!strcmp(src[k].name, name)) {
                cols[nc] = src[k];
                cols[nc++].name = group_cols[i];
            }
    }
    sat_rnode *t = sat_doc_new_table(s, NULL, NULL, cols, nc);
    size_t n = 0;
    for (; *r && same_text(*r, "parent_op", g, "op") && same_text(*r, "parent_base", g, "base");
         *r = sat_rnode_next(*r), n++) {
        if (!all && n >= top)
            continue;
        sat_rnode *o = sat_table_row(t);
        for (size_t i = 0; i < nc; i++) {
            const char *name = cols[i].name + (cols[i].name[0] == '+');
            if (!strcmp(name, "op")) { /* indented under the one that ran it */
                uint64_t d = sat_get_count(*r, "depth", 0);
                int ind = d > 1 ? (int)(d - 1) * 2 : 0;
                char op[96];
                snprintf(op, sizeof op, "%*s%s", ind > 16 ? 16 : ind, "",
                         sat_get_text(*r, "op", "?"));
                sat_put_text(o, name, op);
            } else {
                const sat_value *v = sat_row_get(*r, name);
                if (v)
                    sat_put_value(o, name, v);
            }
        }
    }
    if (!all && n > top)
        sat_doc_footnote(s, "(%zu more %s: --by internal, --json or --csv for all)", n - top,
                         sat_plural(n - top, "row", "rows"));
}

void etb_internal(const etb *x, sat_rnode *parent)
{
    const sat_rnode *io = sat_get_obj(x->root, "internal_operations");
    if (!io)
        return;
    int all = !strcmp(sat_get_text(x->root, "by", ""), "internal");
    size_t top = (size_t)sat_get_count(x->root, "top_n", 20);
    uint64_t total = sat_get_count(io, "total", 0), un = sat_get_count(io, "unattributed", 0);
    sat_rnode *s = sec_section(x->c, parent, "internal",
                               "Internal operations, by the client operation that ran them");
    if (!s)
        return;
    char unb[96] = "";
    if (un)
        snprintf(unb, sizeof unb, ", %llu not attributed (past the memory caps)",
                 (unsigned long long)un);
    sat_doc_para(s,
                 "%llu internal %s: %llu run for client operations, %llu by the server itself, "
                 "%llu for client operations not in the input%s",
                 (unsigned long long)total, sat_plural(total, "operation", "operations"),
                 (unsigned long long)sat_get_count(io, "of_clients", 0),
                 (unsigned long long)sat_get_count(io, "of_server", 0),
                 (unsigned long long)sat_get_count(io, "of_operations_not_in_input", 0), unb);
    if (!total)
        sat_doc_para(s, "(none in the input: 389 Directory Server logs them with "
                        "nsslapd-accesslog-level 4 added to its default 256, and its plugins' "
                        "with nsslapd-plugin-logging: on)");
    const sat_rnode *groups = sat_get_table(io, "groups"), *rows = sat_get_table(io, "ops");
    size_t ngroups = sat_rnode_count(groups);
    if (!ngroups)
        return;
    char types[512] = "";
    size_t o = 0;
    const sat_rnode *bt = sat_get_obj(io, "by_type");
    for (const sat_rnode *c = sat_rnode_first(bt); c && o < sizeof types; c = sat_rnode_next(c))
        o += (size_t)snprintf(types + o, sizeof types - o, "%s %s %llu", o ? "," : "",
                              sat_rnode_key(c), (unsigned long long)sat_get_count(c, NULL, 0));
    sat_doc_para(s, "by type:%s; nested in another internal operation: %llu", types,
                 (unsigned long long)sat_get_count(io, "nested", 0));
    sat_doc_para(s, "(nested operations are indented under the one that ran them and their "
                    "time is inside its time; share = time / the client operations' etime; per "
                    "op = count / the client operations of the group that ran internal ones, or "
                    "for the server's own the outermost ones)");
    /* rows come group by group, in the groups' order */
    const sat_rnode *r = sat_rnode_first(rows);
    size_t shown = 0, i = 0;
    for (const sat_rnode *g = sat_rnode_first(groups); g && (all || shown < top);
         g = sat_rnode_next(g), shown++) {
        char id[32];
        snprintf(id, sizeof id, "group_%zu", ++i);
        const char *op = sat_get_text(g, "op", "?");
        sat_rnode *gs = !strcmp(op, "(server)")
                            ? sec_section(x->c, s, id, "%s", op)
                            : sec_section(x->c, s, id, "%s %s", op, sat_get_text(g, "base", "?"));
        group_figures(x, g, gs);
        group_table(gs, rows, g, &r, all, top);
    }
    if (shown < ngroups) {
        sat_rnode *more = sec_section(x->c, s, "more", NULL);
        sat_doc_para(more, "(%zu more %s: --by internal, --json or --csv for all)",
                     ngroups - shown, sat_plural(ngroups - shown, "group", "groups"));
    }
}
