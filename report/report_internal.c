/*
 * report_internal.c - the "Internal operations" part of the etime report
 * (analyze/internal_ops.c builds it): per client operation type and base,
 * the internal operations it ran (type, base, scope, filter shape), how many
 * per client operation, their etime and its share of the client operations'
 * etime; nested ones indented under the one that ran them.
 *
 * Text: shown under the main table whenever the input has internal
 * operations (the first `top` groups and rows of each), all of them with
 * `--by internal`. JSON: "internal_operations" (every group and row) when
 * there are any or with --by internal. CSV (--by internal): one line per row,
 * its group's type and base in the first columns.
 */
#include <math.h>
#include <string.h>

#include "report_internal.h"
#include "text_table.h"

#define DUR_DECIMALS 9
#define TXT_DECIMALS 6

/* Totals over every attributed row: per internal operation type, and nested
 * (depth >= 2). */
typedef struct itotals {
    uint64_t by_type[SAT_OP__COUNT];
    uint64_t nested;
} itotals;

static void totals(const sat_etime_view *v, itotals *t)
{
    memset(t, 0, sizeof *t);
    for (size_t g = 0; g < v->niparents; g++)
        for (size_t i = 0; i < v->iparents[g].nrows; i++) {
            const sat_etime_irow *r = &v->iparents[g].rows[i];
            for (int k = 0; k < SAT_OP__COUNT; k++)
                if (!strcmp(r->type, sat_optype_name(k)))
                    t->by_type[k] += r->count;
            if (r->depth >= 2)
                t->nested += r->count;
        }
}

static const char *num(char *b, size_t n, double v, int dec)
{
    if (!isfinite(v))
        snprintf(b, n, "-");
    else
        snprintf(b, n, "%.*f", dec, v);
    return b;
}

static const char *pct(char *b, size_t n, double v)
{
    if (!isfinite(v))
        snprintf(b, n, "-");
    else
        snprintf(b, n, "%.1f%%", v * 100.0);
    return b;
}

void sat_report_internal_text(const sat_etime_view *v, FILE *out)
{
    if (!v->internal_ops && v->by != SAT_ETIME_BY_INTERNAL)
        return;
    int all = v->by == SAT_ETIME_BY_INTERNAL;
    size_t top = v->top ? v->top : 20;
    fprintf(out, "\nInternal operations, by the client operation that ran them (etime in seconds)\n");
    fprintf(out, "  %llu internal operations: %llu run for client operations, %llu by the server "
                 "itself, %llu for client operations not in the input",
            (unsigned long long)v->internal_ops, (unsigned long long)v->internal_of_clients,
            (unsigned long long)v->internal_of_server, (unsigned long long)v->internal_orphans);
    if (v->internal_unattributed)
        fprintf(out, ", %llu not attributed (past the memory caps)",
                (unsigned long long)v->internal_unattributed);
    fputs("\n", out);
    if (!v->internal_ops)
        fputs("  (none in the input: 389 Directory Server logs them with nsslapd-accesslog-level\n"
              "   4 added to its default 256, and its plugins' with nsslapd-plugin-logging: on)\n",
              out);
    if (!v->niparents)
        return;
    itotals tt;
    totals(v, &tt);
    fputs("  by type:", out);
    for (int k = 0, first = 1; k < SAT_OP__COUNT; k++)
        if (tt.by_type[k]) {
            fprintf(out, "%s %s %llu", first ? "" : ",", sat_optype_name(k),
                    (unsigned long long)tt.by_type[k]);
            first = 0;
        }
    fprintf(out, "; nested in another internal operation: %llu\n", (unsigned long long)tt.nested);
    fputs("  (nested operations are indented under the one that ran them and their time is\n"
          "   inside its time; share = time / the client operations' etime; per op = count /\n"
          "   the client operations of the group that ran internal ones, or for the\n"
          "   server's own the outermost ones)\n",
          out);
    size_t ng = all || v->niparents <= top ? v->niparents : top;
    for (size_t g = 0; g < ng; g++) {
        const sat_etime_iparent *p = &v->iparents[g];
        char a[64], b[64], c[64];
        if (!strcmp(p->type, "(server)"))
            fprintf(out, "\n  %s: %llu internal operations, %llu of them outermost: %s s\n",
                    p->type, (unsigned long long)p->internal, (unsigned long long)p->parents,
                    num(a, sizeof a, p->internal_s, 3));
        else if (p->parents && isfinite(p->parents_etime_s))
            fprintf(out, "\n  %s %s: %llu operations ran %llu internal ones: %s s of their %s s "
                         "etime (%s)\n",
                    p->type, p->base, (unsigned long long)p->parents,
                    (unsigned long long)p->internal, num(a, sizeof a, p->internal_s, 3),
                    num(b, sizeof b, p->parents_etime_s, 3), pct(c, sizeof c, p->share));
        else if (p->parents)
            fprintf(out, "\n  %s %s: %llu operations ran %llu internal ones: %s s\n", p->type,
                    p->base, (unsigned long long)p->parents, (unsigned long long)p->internal,
                    num(a, sizeof a, p->internal_s, 3));
        else
            fprintf(out, "\n  %s %s: %llu internal operations: %s s\n", p->type, p->base,
                    (unsigned long long)p->internal, num(a, sizeof a, p->internal_s, 3));
        tbl t;
        sat_tbl_init(&t, "rllllrrrrrrr");
        const char *h[12] = {"depth", "op", "base", "scope", "filter", "count", "per op",
                             "errors", "total", "mean", "max", "share"};
        sat_tbl_row(&t, h);
        size_t nr = all || p->nrows <= top ? p->nrows : top;
        for (size_t i = 0; i < nr; i++) {
            const sat_etime_irow *r = &p->rows[i];
            char dep[16], op[48], cnt[32], per[32], err[32], tot[32], mean[32], mx[32], sh[32];
            snprintf(dep, sizeof dep, "%u", r->depth);
            unsigned ind = r->depth > 1 ? (r->depth - 1) * 2 : 0;
            if (ind > 16)
                ind = 16;
            snprintf(op, sizeof op, "%*s%s", (int)ind, "", r->type);
            snprintf(cnt, sizeof cnt, "%llu", (unsigned long long)r->count);
            snprintf(err, sizeof err, "%llu", (unsigned long long)r->errors);
            const char *cells[12] = {dep,
                                     op,
                                     r->base,
                                     r->scope,
                                     r->filter,
                                     cnt,
                                     num(per, sizeof per, r->per_parent, 2),
                                     err,
                                     num(tot, sizeof tot, r->total_s, 3),
                                     num(mean, sizeof mean, r->mean_s, TXT_DECIMALS),
                                     num(mx, sizeof mx, r->max_s, TXT_DECIMALS),
                                     pct(sh, sizeof sh, r->share)};
            sat_tbl_row(&t, cells);
        }
        sat_tbl_print(&t, out, "    ");
        if (nr < p->nrows)
            fprintf(out, "    (%zu more rows: --by internal, --json or --csv for all)\n",
                    p->nrows - nr);
    }
    if (ng < v->niparents)
        fprintf(out, "\n  (%zu more groups: --by internal, --json or --csv for all)\n",
                v->niparents - ng);
}

void sat_report_internal_json(sat_json *j, const sat_etime_view *v)
{
    if (!v->internal_ops && v->by != SAT_ETIME_BY_INTERNAL)
        return;
    sat_json_object(j, "internal_operations");
    sat_json_u64(j, "total", v->internal_ops);
    sat_json_u64(j, "of_clients", v->internal_of_clients);
    sat_json_u64(j, "of_server", v->internal_of_server);
    sat_json_u64(j, "of_operations_not_in_input", v->internal_orphans);
    sat_json_u64(j, "unattributed", v->internal_unattributed);
    itotals tt;
    totals(v, &tt);
    sat_json_object(j, "by_type");
    for (int k = 0; k < SAT_OP__COUNT; k++)
        if (tt.by_type[k])
            sat_json_u64(j, sat_optype_name(k), tt.by_type[k]);
    sat_json_end(j);
    sat_json_u64(j, "nested", tt.nested);
    /* a group's keys one per line, each of its rows on one line */
    int compact_was = j->compact_from;
    sat_json_set_compact_depth(j, 6);
    sat_json_array(j, "groups");
    for (size_t g = 0; g < v->niparents; g++) {
        const sat_etime_iparent *p = &v->iparents[g];
        sat_json_object(j, NULL);
        sat_json_str(j, "op", p->type);
        sat_json_str(j, "base", p->base);
        sat_json_u64(j, "operations", p->parents);
        sat_json_u64(j, "internal", p->internal);
        sat_json_num(j, "operations_etime_s", p->parents_etime_s, DUR_DECIMALS);
        sat_json_num(j, "internal_s", p->internal_s, DUR_DECIMALS);
        sat_json_num(j, "share", p->share, 6);
        sat_json_array(j, "rows");
        for (size_t i = 0; i < p->nrows; i++) {
            const sat_etime_irow *r = &p->rows[i];
            sat_json_object(j, NULL);
            sat_json_u64(j, "depth", r->depth);
            sat_json_str(j, "op", r->type);
            sat_json_str(j, "base", r->base);
            sat_json_str(j, "scope", r->scope);
            sat_json_str(j, "filter", r->filter);
            sat_json_u64(j, "count", r->count);
            sat_json_num(j, "per_operation", r->per_parent, 6);
            sat_json_u64(j, "errors", r->errors);
            sat_json_num(j, "total_s", r->total_s, DUR_DECIMALS);
            sat_json_num(j, "mean_s", r->mean_s, DUR_DECIMALS);
            sat_json_num(j, "max_s", r->max_s, DUR_DECIMALS);
            sat_json_num(j, "share", r->share, 6);
            sat_json_end(j);
        }
        sat_json_end(j);
        sat_json_end(j);
    }
    sat_json_end(j);
    sat_json_set_compact_depth(j, compact_was);
    sat_json_end(j);
}

static void csv_num(FILE *out, double v, int dec)
{
    char b[64];
    putc(',', out);
    if (!isfinite(v))
        return;
    sat_report_fmt_num(b, sizeof b, v, dec);
    fputs(b, out);
}

int sat_report_internal_csv(const sat_etime_view *v, FILE *out)
{
    fputs("parent_op,parent_base,parent_operations,depth,op,base,scope,filter,count,"
          "per_operation,errors,total_s,mean_s,max_s,share\n",
          out);
    for (size_t g = 0; g < v->niparents; g++) {
        const sat_etime_iparent *p = &v->iparents[g];
        for (size_t i = 0; i < p->nrows; i++) {
            const sat_etime_irow *r = &p->rows[i];
            sat_csv_field(out, p->type);
            putc(',', out);
            sat_csv_field(out, p->base);
            fprintf(out, ",%llu,%u,", (unsigned long long)p->parents, r->depth);
            sat_csv_field(out, r->type);
            putc(',', out);
            sat_csv_field(out, r->base);
            putc(',', out);
            sat_csv_field(out, r->scope);
            putc(',', out);
            sat_csv_field(out, r->filter);
            fprintf(out, ",%llu", (unsigned long long)r->count);
            csv_num(out, r->per_parent, 6);
            fprintf(out, ",%llu", (unsigned long long)r->errors);
            csv_num(out, r->total_s, DUR_DECIMALS);
            csv_num(out, r->mean_s, DUR_DECIMALS);
            csv_num(out, r->max_s, DUR_DECIMALS);
            csv_num(out, r->share, 6);
            putc('\n', out);
        }
    }
    return ferror(out) ? SAT_E_IO : SAT_OK;
}
