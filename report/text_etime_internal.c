/*
 * text_etime_internal.c - the "Internal operations" part of the etime text
 * report, read from the result's internal_operations section (built from
 * analyze/internal_ops.c's attribution): per client operation type and base,
 * the internal operations it ran (type, base, scope, filter shape), how many
 * per client operation, their etime and its share of the client operations'
 * etime; nested ones indented under the one that ran them. Shown under the
 * main table whenever the input has internal operations (the first `top`
 * groups and rows of each), all of them with --by internal.
 */
#include <stdlib.h>
#include <string.h>

#include "text_etime.h"

static int same_text(const sat_rnode *a, const char *ka, const sat_rnode *b, const char *kb)
{
    const sat_value *x = sat_row_get(a, ka), *y = sat_row_get(b, kb);
    return x && y && !x->absent && !y->absent && !strcmp(x->v.s, y->v.s);
}

/* A nested operation's type indented under the one that ran it. */
static int nested_op(const sat_rnode *row, const char *col, char *buf, size_t n)
{
    if (strcmp(col, "op") != 0)
        return 0;
    uint64_t d = etx_count(row, "depth");
    int ind = d > 1 ? (int)(d - 1) * 2 : 0;
    snprintf(buf, n, "%*s%s", ind > 16 ? 16 : ind, "", sat_row_get(row, "op")->v.s);
    return 1;
}

/* One group's heading line, as its figures allow. */
static void group_line(etx *x, const sat_rnode *g)
{
    const char *op = sat_row_get(g, "op")->v.s, *base = sat_row_get(g, "base")->v.s;
    uint64_t parents = etx_count(g, "operations"), internal = etx_count(g, "internal");
    char is[64], ps[64], sh[64];
    sat_fmt_value(is, sizeof is, sat_row_get(g, "internal_s"));
    sat_fmt_value(ps, sizeof ps, sat_row_get(g, "operations_etime_s"));
    sat_fmt_value(sh, sizeof sh, sat_row_get(g, "share"));
    const sat_value *pe = sat_row_get(g, "operations_etime_s");
    fputc('\n', x->t->out); /* a blank line before each group */
    if (!strcmp(op, "(server)"))
        sat_text_line(x->t, "  %s: %llu internal %s, %llu of them outermost: %s", op,
                      (unsigned long long)internal,
                      sat_plural(internal, "operation", "operations"),
                      (unsigned long long)parents, is);
    else if (parents && pe && !pe->absent)
        sat_text_line(x->t, "  %s %s: %llu %s ran %llu internal ones: %s of their %s etime (%s)",
                      op, base, (unsigned long long)parents,
                      sat_plural(parents, "operation", "operations"),
                      (unsigned long long)internal, is, ps, sh);
    else if (parents)
        sat_text_line(x->t, "  %s %s: %llu %s ran %llu internal ones: %s", op, base,
                      (unsigned long long)parents, sat_plural(parents, "operation", "operations"),
                      (unsigned long long)internal, is);
    else
        sat_text_line(x->t, "  %s %s: %llu internal %s: %s", op, base,
                      (unsigned long long)internal,
                      sat_plural(internal, "operation", "operations"), is);
}

void etx_internal(etx *x)
{
    const sat_rnode *io = sat_rnode_get(x->root, "internal_operations");
    if (!io)
        return;
    const sat_value *by = etx_val(x->root, "by");
    int all = by && !by->absent && !strcmp(by->v.s, "internal");
    size_t top = (size_t)etx_count(x->root, "top_n");
    uint64_t total = etx_count(io, "total");
    sat_text_title(x->t, "Internal operations, by the client operation that ran them");
    char un[96] = "";
    if (etx_count(io, "unattributed"))
        snprintf(un, sizeof un, ", %llu not attributed (past the memory caps)",
                 (unsigned long long)etx_count(io, "unattributed"));
    sat_text_line(x->t,
                  "  %llu internal %s: %llu run for client operations, %llu by the server "
                  "itself, %llu for client operations not in the input%s",
                  (unsigned long long)total, sat_plural(total, "operation", "operations"),
                  (unsigned long long)etx_count(io, "of_clients"),
                  (unsigned long long)etx_count(io, "of_server"),
                  (unsigned long long)etx_count(io, "of_operations_not_in_input"), un);
    if (!total)
        sat_text_line(x->t, "  (none in the input: 389 Directory Server logs them with "
                            "nsslapd-accesslog-level 4 added to its default 256, and its "
                            "plugins' with nsslapd-plugin-logging: on)");
    const sat_rnode *groups = sat_rnode_get(io, "groups"), *rows = sat_rnode_get(io, "ops");
    size_t ngroups = sat_rnode_count(groups);
    if (!ngroups)
        return;
    char types[512] = "";
    size_t o = 0;
    const sat_rnode *bt = sat_rnode_get(io, "by_type");
    for (const sat_rnode *c = sat_rnode_first(bt); c && o < sizeof types; c = sat_rnode_next(c))
        o += (size_t)snprintf(types + o, sizeof types - o, "%s %s %llu", o ? "," : "",
                              sat_rnode_key(c), (unsigned long long)etx_count(bt, sat_rnode_key(c)));
    sat_text_line(x->t, "  by type:%s; nested in another internal operation: %llu", types,
                  (unsigned long long)etx_count(io, "nested"));
    sat_text_line(x->t, "  (nested operations are indented under the one that ran them and "
                        "their time is inside its time; share = time / the client "
                        "operations' etime; per op = count / the client operations of the "
                        "group that ran internal ones, or for the server's own the outermost "
                        "ones)");
    size_t nrows = sat_rnode_count(rows);
    const sat_rnode **sel = (const sat_rnode **)malloc((nrows ? nrows : 1) * sizeof *sel);
    if (!sel) {
        x->t->err = SAT_E_NOMEM;
        return;
    }
    /* rows come group by group, in the groups' order */
    const sat_rnode *r = sat_rnode_first(rows);
    size_t shown = 0;
    for (const sat_rnode *g = sat_rnode_first(groups); g && (all || shown < top);
         g = sat_rnode_next(g), shown++) {
        size_t n = 0;
        for (; r && same_text(r, "parent_op", g, "op") && same_text(r, "parent_base", g, "base");
             r = sat_rnode_next(r))
            sel[n++] = r;
        group_line(x, g);
        size_t show = all || n <= top ? n : top;
        /* within 100 columns: where the time went first, then what ran (the
         * depth shows as the indent of op); --wide: every column */
        etx_rows(x, rows,
                 x->t->width ? "op,count,per_operation,errors,total_s,share,scope,base,filter"
                             : "depth,op,base,scope,filter,count,per_operation,errors,total_s,"
                               "mean_s,max_s,share",
                 sel, show, "    ", nested_op);
        if (show < n)
            sat_text_line(x->t, "    (%zu more %s: --by internal, --json or --csv for all)",
                          n - show, sat_plural(n - show, "row", "rows"));
    }
    free(sel);
    if (shown < ngroups)
        sat_text_line(x->t, "  (%zu more %s: --by internal, --json or --csv for all)",
                      ngroups - shown, sat_plural(ngroups - shown, "group", "groups"));
}
