/*
 * section_etime.c - the sections of the etime analyzer's result
 * (analyze/etime_result.c), in the order an operator reads them during an
 * incident: what was read, where the time went (per operation type, then
 * per --by key), internal operations, the operation counts of logconv.pl,
 * connections, codes, unindexed searches, binds, tops, the minute series,
 * then the HTTP requests read beside the directory's logs. `satscope etime`
 * prints them; the post-mortem embeds those it names (its ops table, the
 * unindexed searches, the top lists). This file has the lead, what was
 * read, where the time went, the operations, the series and the helpers the
 * other parts share (section_etime.h).
 */
#include <stdarg.h>
#include <string.h>

#include "section_etime.h"

#define MINUTES_FULL 120 /* series longer than this: the slowest buckets only */

/* ---- helpers (section_etime.h) ---------------------------------------------------- */

/* The not_logged row of field, NULL when every input can log it. */
static const sat_rnode *nl_row(const etb *x, const char *field)
{
    return field ? sat_get_row(sat_get_table(x->root, "not_logged"), "field", field) : NULL;
}

int etb_some_cannot(const etb *x, const char *field) { return nl_row(x, field) != NULL; }

int etb_not_logged(const etb *x, const char *field)
{
    return sat_get_bool(nl_row(x, field), "partial", -1) == 0;
}

const char *etb_field_note(const etb *x, const char *field, const char *usual, char *buf,
                           size_t n)
{
    const sat_rnode *r = nl_row(x, field);
    if (!usual)
        usual = "";
    if (!r)
        return usual;
    const char *w = sat_get_text(r, "why", "the inputs do not log it");
    if (etb_not_logged(x, field))
        snprintf(buf, n, "(%s)", w);
    else
        snprintf(buf, n, "%s%s(partial: %llu of %llu inputs cannot log it: %s)", usual,
                 *usual ? " " : "", (unsigned long long)sat_get_count(r, "inputs_without", 0),
                 (unsigned long long)sat_get_count(r, "of_inputs", 0), w);
    return buf;
}

const char *etb_rate(const etb *x, uint64_t n, char *buf, size_t n_buf)
{
    if (!(x->span_s > 0)) {
        snprintf(buf, n_buf, "(span 0: no rate)");
        return buf;
    }
    char s[64], m[64];
    sat_fmt_sig3(s, sizeof s, (double)n / x->span_s);
    sat_fmt_sig3(m, sizeof m, (double)n / x->span_s * 60.0);
    snprintf(buf, n_buf, "(%s/s, %s/min)", s, m);
    return buf;
}

void etb_value(const etb *x, sat_rnode *vals, const sat_rnode *obj, const char *path,
               const char *key, const char *label, const char *field, const char *usual)
{
    const sat_value *v = obj ? sat_rnode_val(obj, path) : NULL;
    if (!vals || !v)
        return;
    if (v->absent && field && etb_not_logged(x, field))
        sat_put_text(vals, key, "not logged");
    else
        sat_put_value(vals, key, v);
    char nb[512];
    const char *note = etb_field_note(x, field, usual, nb, sizeof nb);
    if (*note)
        sat_put_note(vals, note);
    sat_put_label(vals, label);
}

void etb_top(const etb *x, sat_rnode *parent_section, const char *id, const char *title,
             const sat_rnode *parent, const char *name, const char *keycol, const char *keytitle,
             int skip_empty)
{
    const sat_rnode *t = sat_get_table(parent, name);
    char k[96];
    snprintf(k, sizeof k, "%s_distinct", name);
    uint64_t distinct = sat_get_count(parent, k, 0);
    snprintf(k, sizeof k, "%s_folded", name);
    uint64_t folded = sat_get_count(parent, k, 0);
    size_t n = sat_rnode_count(t);
    if (skip_empty && !n)
        return;
    sat_rnode *s = distinct > n ? sec_section(x->c, parent_section, id, "%s (top %zu of %llu)", title,
                                              n, (unsigned long long)distinct)
                                : sec_section(x->c, parent_section, id, "%s", title);
    char cols[160];
    snprintf(cols, sizeof cols, "count,total_s,%s=%s", keycol, keytitle);
    sat_doc_table(s, NULL, NULL, t, cols, 0, NULL, NULL);
    if (folded)
        sat_doc_footnote(s,
                         "(about %llu more distinct keys past the table cap were counted as "
                         "\"(other)\")",
                         (unsigned long long)folded);
}

void etb_series(const etb *x, sat_rnode *parent, const char *id, const char *per_title)
{
    const sat_rnode *w = sat_get_table(x->root, "windows");
    size_t n = sat_rnode_count(w);
    if (!n)
        return;
    double win_min = (double)sat_table_window(w) / 60e9;
    char per[48] = "minute";
    if (win_min > 1)
        snprintf(per, sizeof per, "%.0f minutes", win_min);
    const char *cols = win_min > 1 ? "start_ts=from (UTC),count,errors,mean_s,p99_s,max_s"
                                   : "start_ts,count,errors,mean_s,p99_s,max_s";
    if (n <= MINUTES_FULL) {
        sat_doc_table(sec_section(x->c, parent, id, "%s %s", per_title, per), NULL, NULL, w, cols, 0,
                      NULL, NULL);
        return;
    }
    /* too long to read: the slowest buckets by p99 (ties: earlier first) */
    size_t top = (size_t)sat_get_count(x->root, "top_n", 20), show = top < n ? top : n;
    sat_rnode *s =
        win_min > 1
            ? sec_section(x->c, parent, id, "Slowest buckets of %s by p99 (%zu of %zu; --json for the "
                                         "series)",
                          per, show, n)
            : sec_section(x->c, parent, id, "Slowest minutes by p99 (%zu of %zu %s; --json for the "
                                         "series)",
                          show, n, sat_plural(n, "minute", "minutes"));
    sat_doc_table_by(s, NULL, NULL, w, cols, show, "p99_s");
}

/* ---- what was read -------------------------------------------------------------------- */

static void lead(const sec_ctx *c, const sat_rnode *root, char *buf, size_t n)
{
    (void)c;
    uint64_t nin = sat_rnode_count(sat_get_table(root, "inputs")),
             lines = sat_get_count(root, "lines", 0), rej = sat_get_count(root, "rejects", 0);
    /* HTTP logs alone: requests instead of operations */
    int http = !sat_get_has(root, "operations") && sat_get_has(root, "requests");
    uint64_t ops = sat_get_count(root, http ? "requests" : "operations", 0);
    snprintf(buf, n, "%llu %s in %llu %s (%llu %s, %llu rejected)", (unsigned long long)ops,
             http ? sat_plural(ops, "request", "requests")
                  : sat_plural(ops, "operation", "operations"),
             (unsigned long long)nin, sat_plural(nin, "input", "inputs"),
             (unsigned long long)lines, sat_plural(lines, "line", "lines"),
             (unsigned long long)rej);
}

static void read_what(const etb *x, sat_rnode *parent)
{
    const sat_rnode *root = x->root;
    sat_rnode *s = sec_section(x->c, parent, "span", NULL);
    if (sat_get_time(root, "first_ts", 0)) {
        char a[64], b[64], d[64];
        sec_fmt(x->c, a, sizeof a, root, "first_ts");
        sec_fmt(x->c, b, sizeof b, root, "last_ts");
        sec_fmt(x->c, d, sizeof d, root, "span_s");
        sat_doc_para(s, "from %s to %s (%s)", a, b, d);
    } else {
        sat_doc_para(s, "no timestamps");
    }

    /* one paragraph per input, its path never cut */
    const sat_rnode *in = sat_get_table(root, "inputs");
    if (sat_rnode_first(in))
        s = sec_section(x->c, parent, "inputs", "Inputs");
    for (const sat_rnode *r = sat_rnode_first(in); r; r = sat_rnode_next(r)) {
        uint64_t nl = sat_get_count(r, "lines", 0);
        sat_doc_para(s, "%s, %s, %llu %s, %llu rejected%s: %s", sat_get_text(r, "format", "?"),
                     sat_get_text(r, "compression", "?"), (unsigned long long)nl,
                     sat_plural(nl, "line", "lines"),
                     (unsigned long long)sat_get_count(r, "rejects", 0),
                     sat_get_bool(r, "truncated", 0) ? " (ended early: truncated or unreadable)"
                                                     : "",
                     sat_get_text(r, "path", "?"));
    }

    uint64_t rej = sat_get_count(root, "rejects", 0);
    if (!rej)
        return;
    const sat_rnode *rs = sat_get_table(root, "reject_samples");
    size_t ns = sat_rnode_count(rs);
    s = ns ? sec_section(x->c, parent, "rejects", "Rejected lines: %llu (the first %zu shown)",
                         (unsigned long long)rej, ns)
           : sec_section(x->c, parent, "rejects", "Rejected lines: %llu", (unsigned long long)rej);
    for (const sat_rnode *r = sat_rnode_first(rs); r; r = sat_rnode_next(r)) {
        const char *ex = sat_get_text(r, "excerpt", "");
        char e[1024] = "";
        if (*ex) {
            /* one line: control bytes shown as '?' */
            size_t k = 0;
            e[k++] = ':';
            e[k++] = ' ';
            for (const char *p = ex; *p && k < sizeof e - 1; p++)
                e[k++] = ((unsigned char)*p < 0x20 || *p == 0x7f) ? '?' : *p;
            e[k] = '\0';
        }
        sat_doc_para(s, "%s:%llu: %s%s", sat_get_text(r, "path", "?"),
                     (unsigned long long)sat_get_count(r, "line", 0),
                     sat_get_text(r, "reason", "?"), e);
    }
}

/* ---- where the time went ---------------------------------------------------------------- */

/* The columns of the grouped tables: within 100 columns the ones an
 * operator reads first; the rate, p90 and p99.9 where there is room. */
#define TIME_COLS                                                                                \
    "count,+rate_per_s,mean_s,p50_s,p90_s,p99_s,+p999_s,max_s,total_s,share,wtime_mean_s,"     \
    "optime_mean_s,errors"

static void where(const etb *x, sat_rnode *parent)
{
    const sat_rnode *root = x->root;
    sat_rnode *s = sec_section(x->c, parent, "ops", "Where the time went, by operation type");
    sat_doc_table(s, NULL, NULL, sat_get_table(root, "ops"), "op," TIME_COLS, 0, NULL, NULL);
    sat_doc_footnote(s, "(\"all\": every operation with a RESULT. UNBIND, AUTOBIND and unfinished "
                        "operations have no RESULT: counted, no timings. share = the group's "
                        "total etime / all's total etime)");

    const sat_rnode *g = sat_get_table(root, "groups");
    if (!g)
        return;
    const char *dim = sat_get_text(root, "by", "?");
    int minute = !strcmp(dim, "minute");
    size_t n = sat_rnode_count(g), top = (size_t)sat_get_count(root, "top_n", 20);
    size_t show = !minute && n > top ? top : n;
    double w = (double)sat_table_window(g) / 1e9;
    char cols[512];
    if (minute && w > 60)
        s = sec_section(x->c, parent, "groups",
                        "Where the time went, by %s (buckets of %.0f minutes: a long span)", dim,
                        w / 60);
    else if (show < n)
        s = sec_section(x->c, parent, "groups",
                        "Where the time went, by %s (top %zu of %zu groups by total etime)", dim,
                        show, n);
    else
        s = sec_section(x->c, parent, "groups", "Where the time went, by %s", dim);
    if (minute)
        snprintf(cols, sizeof cols, "start_ts=%s," TIME_COLS,
                 w > 60 ? "from (UTC)" : "minute (UTC)");
    else
        snprintf(cols, sizeof cols, TIME_COLS ",%s", dim);
    sat_doc_table(s, NULL, NULL, g, cols, show, NULL, NULL);
    uint64_t folded = sat_get_count(root, "groups_folded_keys", 0);
    if (folded)
        sat_doc_footnote(s, "(about %llu keys past the key cap are folded into \"(other)\")",
                         (unsigned long long)folded);
}

/* ---- operations (logconv.pl's counts) ----------------------------------------------------- */

/* the first of two fields no input logs, else the first some cannot */
static const char *worst(const etb *x, const char *a, const char *b)
{
    if (etb_not_logged(x, a))
        return a;
    if (etb_not_logged(x, b))
        return b;
    return etb_some_cannot(x, a) ? a : b;
}

static void operations(const etb *x, sat_rnode *parent)
{
    const sat_rnode *o = sat_get_obj(x->root, "operation_stats");
    sat_rnode *v = sat_doc_values(sec_section(x->c, parent, "operations", "Operations"));
    const char *vf = worst(x, "controls", "notes");
    static const struct {
        const char *path, *label, *field, *usual;
    } rows[] = {
        {"total", "Total operations", NULL, NULL},
        {"answered", "Total results", NULL,
         "(RESULTs and abandons: an ABANDON is never answered)"},
        {"answered_ratio", "Overall performance", NULL,
         "(answered / operations expecting an answer)"},
        {"results", "With a RESULT", NULL, NULL},
        {"unfinished", "Unfinished (no RESULT by the end)", NULL, NULL},
        {"no_request", "RESULT without its request", NULL, NULL},
        {"internal", "Internal operations", NULL, "(not in the tables)"},
        {"persistent_searches", "Persistent searches", NULL, NULL},
        {"paged_searches", "Paged searches", "controls", NULL},
        {"whole_subtree_searches", "Entire search base queries", NULL,
         "(subtree, filter (objectclass=*) or (objectclass=top))"},
        {"proxied_auth", "Proxied authorization operations", NULL, NULL},
        {"vlv", "VLV operations", "controls", NULL},
        {"vlv_unindexed", " - VLV unindexed searches", "", "(notes=A)"},
        {"vlv_unindexed_components", " - VLV unindexed components", "", "(notes=U)"},
        {"sort", "SORT operations", "controls", NULL},
        {"entries_returned", "Entries returned", NULL, NULL},
        {"entry_lines", "Entry operations (ENTRY lines)", NULL, NULL},
        {"referral_lines", "Smart referrals (REFERRAL lines)", NULL, NULL},
        {"extended", "Extended operations", NULL, NULL},
        {"abandons", "Abandon requests", NULL, NULL},
        {"unbinds", "Unbinds", NULL, NULL},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *field = rows[i].field && !*rows[i].field ? vf : rows[i].field;
        const char *usual = rows[i].usual;
        if (!strcmp(rows[i].path, "internal") && sat_get_count(o, "internal", 0))
            usual = "(not in the tables: see Internal operations above)";
        etb_value(x, v, o, rows[i].path, rows[i].path, rows[i].label, field, usual);
    }
    /* what was taken for a restart (parse/ldap_join.c): disorder of
     * connection numbers never is */
    uint64_t rs = sat_get_count(o, "restarts", 0);
    char why[200] = "";
    if (rs) {
        uint64_t sl = sat_get_count(o, "restarts_start_line", 0),
                 nb = sat_get_count(o, "restarts_connection_number", 0), rest = rs - sl - nb;
        int w = snprintf(why, sizeof why,
                         "(taken for one: the server's start line %llu, connection numbers "
                         "starting again %llu",
                         (unsigned long long)sl, (unsigned long long)nb);
        snprintf(why + w, sizeof why - (size_t)w, rest ? ", not said %llu)" : ")",
                 (unsigned long long)rest);
    }
    etb_value(x, v, o, "restarts", "restarts", "Server restarts", NULL, why);
    /* logconv.pl's per-type lines; Binds as in the Binds section */
    static const struct {
        const char *label, *op, *key;
    } bytype[] = {{"Searches", "SRCH", "searches"},      {"Modifications", "MOD", "modifications"},
                  {"Adds", "ADD", "adds"},               {"Deletes", "DEL", "deletes"},
                  {"Mod RDNs", "MODRDN", "mod_rdns"},    {"Compares", "CMP", "compares"}};
    const sat_rnode *ops = sat_get_table(x->root, "ops");
    char rate[128];
    for (size_t i = 0; i < sizeof bytype / sizeof bytype[0]; i++) {
        uint64_t n = sat_get_count(sat_get_row(ops, "op", bytype[i].op), "count", 0);
        sat_put_count(v, bytype[i].key, n);
        sat_put_note(v, etb_rate(x, n, rate, sizeof rate));
        sat_put_label(v, bytype[i].label);
    }
    const sat_rnode *b = sat_get_obj(x->root, "binds");
    etb_value(x, v, b, "total", "binds", "Binds", NULL,
              etb_rate(x, sat_get_count(b, "total", 0), rate, sizeof rate));
    etb_value(x, v, o, "etime_mean_s", "etime_mean_s", "Average etime", "etime", NULL);
    etb_value(x, v, o, "wtime_mean_s", "wtime_mean_s", "Average wtime (queue wait)", "wtime",
              NULL);
    etb_value(x, v, o, "optime_mean_s", "optime_mean_s", "Average optime (service)", "wtime",
              NULL);
}

/* ---- the document ----------------------------------------------------------------------- */

static void percentiles(const etb *x, sat_rnode *parent, const char *what)
{
    sat_doc_para(sec_section(x->c, parent, "percentiles", "Percentiles are nearest-rank"),
                 "exact for groups of up to 2048 timed %s, within 0.5%% of the exact value for "
                 "larger groups.",
                 what);
}

static void build(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    etb x = {c, root, sat_get_dur(root, "span_s", NAN)};
    read_what(&x, parent);
    if (!sat_get_has(root, "operations") && sat_get_has(root, "requests")) {
        /* HTTP logs alone */
        etb_http(&x, parent);
        percentiles(&x, parent, "requests");
        return;
    }
    where(&x, parent);
    etb_usage(&x, parent);
    etb_usage_during(&x, parent);
    etb_internal(&x, parent);
    operations(&x, parent);
    etb_connections(&x, parent);
    etb_codes(&x, parent);
    etb_unindexed(&x, parent);
    etb_binds(&x, parent);
    etb_tops(&x, parent);
    etb_series(&x, parent, "windows", "Per");
    const sat_rnode *http = sat_get_obj(root, "http");
    if (http) {
        /* beside a directory's logs: the web front's requests */
        etb hx = {c, http, sat_get_dur(http, "span_s", NAN)};
        sat_rnode *s =
            sec_section(c, parent, "http",
                        "HTTP requests: %llu (from the HTTP access logs among the inputs)",
                        (unsigned long long)sat_get_count(http, "requests", 0));
        if (s)
            etb_http(&hx, s);
    }
    percentiles(&x, parent, "operations");
}

/* the result's tables (analyze/etime_result.c), the main ones first: ops by
 * default and --by op, groups with another --by, internal_operations.ops with
 * --by internal (the CLI checks --csv NAME against these) */
static const char *const csv_tables[] = {"ops",
                                         "groups",
                                         "internal_operations.ops",
                                         "internal_operations.groups",
                                         "connection_stats.tls_versions",
                                         "close_codes",
                                         "result_codes",
                                         "note_counts",
                                         "unindexed.searches",
                                         "binds.sasl_mechs",
                                         "binds.failed_by_dn",
                                         "binds.failed_by_client",
                                         "top.clients",
                                         "top.bind_dns",
                                         "top.bases",
                                         "top.filters",
                                         "top.extended_ops",
                                         "top.attributes",
                                         "usage.filter_shapes_used",
                                         "usage.filter_shapes_waited",
                                         "usage.clients_used",
                                         "usage.clients_waited",
                                         "usage.bind_dns_used",
                                         "usage.bind_dns_waited",
                                         "usage.bases_used",
                                         "usage.bases_waited",
                                         "abandon_requests",
                                         "windows",
                                         "hours",
                                         "not_logged",
                                         "inputs",
                                         "reject_samples",
                                         /* HTTP requests (the main one: groups) */
                                         "methods",
                                         "statuses",
                                         "top.not_found",
                                         "http.methods",
                                         "http.groups",
                                         "http.statuses",
                                         "http.top.clients",
                                         "http.top.not_found",
                                         "http.windows",
                                         "http.not_logged",
                                         NULL};

const sec_builder sec_etime = {"etime", lead, build, csv_tables};
