/*
 * cmd_report.c - `satscope report INPUT... -o OUT [--kind postmortem|digest]
 * [--baseline OLD]... [--utc] [--mail-to ADDR] [--mail-from ADDR]
 * [--subject TEXT] [--title TEXT]`: a report (satscope/report_doc.h) of the
 * inputs, written in the form OUT's extension names (.html .pdf .png .svg
 * .eml .txt .json, or - for text on standard output).
 *
 * One pass over the inputs feeds every analyzer the report kind reads (the
 * set of analyze/multi.c, itself an analyzer, so --jobs collects the inputs
 * in parallel parts and merges them); the kind's builder writes the document
 * from their results; the renderer draws it. A file is written whole or not
 * at all: into a temporary file beside OUT, renamed over it at the end (with
 * the mode of the file it replaces); a device, FIFO or symlink at OUT is
 * written through instead, never replaced.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include <errno.h>
#include <getopt.h> /* optarg */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "satscope/analyze.h"
#include "satscope/chart.h"
#include "satscope/partial.h"
#include "satscope/report_doc.h"

extern const sat_command sat_cmd_report;

enum { OPT_OUT = 'o', OPT_KIND = 0x100, OPT_BASELINE, OPT_UTC, OPT_MAIL_TO, OPT_MAIL_FROM,
       OPT_SUBJECT, OPT_TITLE, OPT_MAIL_DATE, OPT_PROMETHEUS };

static const sat_cli_opt report_opts[] = {
    {"output", OPT_OUT, 'o', "OUT",
     "where to write the report; its extension names the\n"
     "form: .html .pdf .png .svg (the timeline) .eml .txt\n"
     ".json, or - for text on standard output (-.json,\n"
     "-.html ...: that form on standard output)", NULL},
    {"kind", OPT_KIND, 0, "KIND",
     "postmortem (default): what happened and the likely\n"
     "chain; digest: one page per server and day", "postmortem digest"},
    {"baseline", OPT_BASELINE, 0, "OLD",
     "digest: inputs of an earlier period to compare with\n"
     "(repeatable)", NULL},
    {"utc", OPT_UTC, 0, NULL, "times in UTC (default: the inputs' local time)", NULL},
    {"title", OPT_TITLE, 0, "TEXT", "the report's title", NULL},
    {"mail-to", OPT_MAIL_TO, 0, "ADDR", ".eml: the To: header (repeat for several)", NULL},
    {"mail-from", OPT_MAIL_FROM, 0, "ADDR", ".eml: the From: header", NULL},
    {"subject", OPT_SUBJECT, 0, "TEXT",
     ".eml: the Subject: (default: the title and how\n"
     "many findings of each severity)", NULL},
    {"prometheus", OPT_PROMETHEUS, 0, "FILE",
     "also the report's figures for monitoring as a\n"
     "node-exporter textfile (FILE.prom: Prometheus' text\n"
     "format; the same as -o FILE.prom)", NULL},
    {"mail-date", OPT_MAIL_DATE, 0, "T",
     ".eml: the Date: header, RFC 3339 (default: now;\n"
     "also SOURCE_DATE_EPOCH, seconds)", NULL},
    {NULL, 0, 0, NULL, NULL, NULL}};

#define MAX_MEMBERS 16

static int kind_reads(const sat_report_kind *k, const char *analyzer)
{
    for (const char *const *name = k->analyzers; name && *name; name++)
        if (!strcmp(*name, analyzer))
            return 1;
    return 0;
}

/* The analyzers of a kind found in the registry, with the options the
 * charts drawn from them want (else their defaults). A kind that reads the
 * storms has etime keep who used the server every 10 s (*et, which must
 * live as long as the set), to tell who did during each storm. */
static size_t kind_members(const sat_report_kind *k, sat_cli_cache *cc, sat_multi_member *m,
                           sat_etime_opts *et)
{
    size_t n = 0;
    for (const char *const *name = k->analyzers; name && *name && n < MAX_MEMBERS; name++) {
        const sat_analyzer *a = sat_analyzer_find(*name);
        if (!a || !a->result)
            continue;
        /* as given (the cache options), else as the charts want them (the
         * timeline's windows) */
        const void *o = sat_cli_member_opts(cc, a->name, sat_cli_chart_opts(a->name));
        if (!strcmp(a->name, "etime") && kind_reads(k, "storms")) {
            if (o)
                *et = *(const sat_etime_opts *)o;
            et->during = 1;
            o = et;
        }
        m[n++] = (sat_multi_member){a, o};
    }
    return n;
}

/* The storms of a finished set, as spans for the members that take them:
 * each storm's time and the inputs of its server. */
static int focus_on_storms(sat_multi *m, const sat_multi_member *members, size_t n)
{
    size_t is = n;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(members[i].a->name, "storms"))
            is = i;
    if (is == n)
        return SAT_OK;
    sat_result *r = sat_result_new("storms");
    if (!r || members[is].a->result(sat_multi_member_obj(m, is), r) != SAT_OK) {
        sat_result_free(r);
        return SAT_E_NOMEM;
    }
    const sat_rnode *root = sat_result_root(r);
    const sat_rnode *storms = sat_get_table(root, "storms");
    size_t ns = sat_rnode_count(storms), np = 0;
    for (const sat_rnode *sv = sat_rnode_first(sat_get_table(root, "servers")); sv;
         sv = sat_rnode_next(sv))
        np += sat_rnode_count(sat_get_list(sv, "inputs"));
    sat_span *spans = (sat_span *)calloc(ns ? ns : 1, sizeof *spans);
    const char **paths = (const char **)calloc(np ? np : 1, sizeof *paths);
    int rc = spans && paths ? SAT_OK : SAT_E_NOMEM;
    size_t k = 0, used = 0;
    for (const sat_rnode *st = sat_rnode_first(storms); st && rc == SAT_OK;
         st = sat_rnode_next(st), k++) {
        sat_span *s = &spans[k];
        s->from = sat_get_time(st, "start_ts", 0);
        s->to = sat_get_time(st, "end_ts", 0);
        s->label = (uint32_t)sat_get_count(st, "storm", k + 1);
        /* its server's inputs (a server the inputs cannot name: all of them) */
        const char *addr = sat_get_text(st, "server_addr", NULL);
        const sat_rnode *sv = addr ? sat_get_row(sat_get_table(root, "servers"), "server_addr", addr)
                                   : NULL;
        s->paths = paths + used;
        for (const sat_rnode *p = sat_rnode_first(sat_get_list(sv, "inputs")); p;
             p = sat_rnode_next(p)) {
            const sat_value *v = sat_rnode_value(p);
            if (v && v->unit == SAT_UNIT_TEXT && !v->absent && used < np)
                paths[used++] = v->v.s;
        }
        s->npaths = (size_t)(paths + used - s->paths);
    }
    if (rc == SAT_OK)
        rc = sat_multi_focus(m, spans, k);
    free(spans);
    free((void *)paths);
    sat_result_free(r);
    return rc;
}

typedef struct run_ctx {
    sat_cli_collect *c;
    sat_cli_cache *cache;
    const sat_report_kind *kind;
    int code;  /* the worst exit code of the collections */
} run_ctx;

/* Collects paths into a set of the kind's analyzers, adds their results to
 * rep: the set's index, or < 0. */
static int analyze_into(run_ctx *x, sat_report *rep, char *const *paths, size_t npaths)
{
    sat_multi_member members[MAX_MEMBERS];
    sat_etime_opts et;
    memset(&et, 0, sizeof et);
    size_t n = kind_members(x->kind, x->cache, members, &et);
    sat_multi_opts mo = {members, n};
    sat_multi *m = sat_multi_create(&mo);
    if (!m) {
        sat_cli_fail("report", SAT_E_NOMEM, "no report written");
        return SAT_E_NOMEM;
    }
    int code = sat_cli_collect_into(x->c, &sat_multi_analyzer, &mo, m, paths, npaths);
    if (code > x->code)
        x->code = code;
    /* an internal failure: no figure of this run is trusted, no report written */
    if (x->c->failed || sat_multi_finish(m) < 0 || focus_on_storms(m, members, n) < 0) {
        sat_multi_free(m);
        sat_cli_fail("report", SAT_E_NOMEM, "no report written");
        return SAT_E_NOMEM;
    }
    if (code == SAT_EXIT_UNREADABLE && x->c->stats.lines == 0 && x->c->stats.traces == 0 &&
        x->c->stats.cores == 0 && x->c->stats.packets == 0) {
        fprintf(stderr, "satscope report: nothing could be read\n");
        sat_multi_free(m);
        return SAT_E_IO;
    }
    sat_result *res[MAX_MEMBERS] = {0};
    int rc = sat_multi_results(m, res);
    sat_multi_free(m);
    if (rc < 0) {
        for (size_t i = 0; i < n; i++)
            sat_result_free(res[i]);
        sat_cli_fail("report", rc, "no report written");
        return rc;
    }
    return sat_report_add_set(rep, res, n);
}

/* ---- by_day kinds: the digest's plan (analyze.h) ----------------------------------- */

/* The options the command was given for an analyzer the plan runs. */
static const void *given_opts_cb(void *ctx, const char *analyzer)
{
    run_ctx *x = ctx;
    return sat_cli_member_opts(x->cache, analyzer, NULL);
}

/* Days and the set they borrow their names from. */
typedef struct day_list {
    sat_report_day *d;
    size_t n;
    uint64_t dropped_days;
    sat_cli_dayset *from;
} day_list;

static void days_free(day_list *ds)
{
    sat_cli_dayset_free(ds->from);
    free(ds->d);
}

/* Day i of a day set into the report: its analyzers finished (from
 * partials: loaded, then freed), their results into set `set` (reserved),
 * its entry into *day. 1 added; 0 left out (said: a damaged partial); < 0
 * a failure. */
static int add_day(run_ctx *x, sat_report *rep, sat_cli_dayset *from, size_t i, int set,
                   size_t nroles, sat_report_day *day)
{
    sat_diag d;
    memset(&d, 0, sizeof d);
    sat_multi *m = sat_cli_dayset_take(from, i, &d);
    if (!m) {
        fprintf(stderr, "satscope report: %s: %s\n", d.where, d.msg);
        if (x->code < SAT_EXIT_UNREADABLE)
            x->code = SAT_EXIT_UNREADABLE;
        return d.code == SAT_E_NOMEM ? SAT_E_NOMEM : 0;
    }
    sat_result *res[SAT_DIGEST_ROLES_MAX] = {NULL};
    int rc = sat_multi_finish(m);
    if (rc >= 0)
        rc = sat_multi_results(m, res);
    sat_cli_dayset_release(from, i);
    int prc = sat_report_put_set(rep, (size_t)set, res, nroles); /* takes them */
    if (rc < 0 || prc < 0)
        return rc < 0 ? rc : prc;
    const sat_partial_day *meta = sat_cli_dayset_meta(from, i);
    day->server = meta->server;
    memcpy(day->date, meta->date, sizeof day->date);
    day->start_ts = meta->start_ts;
    day->utc_offset_s = meta->utc_offset_s;
    day->rows = meta->rows;
    day->set = set;
    day->quiet = -1;
    return 1;
}

static sat_cli_dayset *open_days(run_ctx *x, const sat_digest_plan *plan, char *const *paths,
                                 size_t npaths)
{
    int partials = sat_cli_are_partials("report", paths, npaths);
    if (partials < 0) {
        x->code = SAT_EXIT_USAGE;
        return NULL;
    }
    return partials ? sat_cli_dayset_partials(plan, paths, npaths, "report", &x->code)
                    : sat_cli_dayset_collect(x->c, plan, NULL, paths, npaths, "report", &x->code);
}

/* The kind's look at one server's days and baseline days (base: indices
 * into b of that server's). */
static int settle(run_ctx *x, sat_report *rep, sat_report_day *days, size_t n, day_list *b,
                  const size_t *base, size_t nb, size_t total)
{
    if (!x->kind->settle)
        return SAT_OK;
    sat_report_day *bd = calloc(nb ? nb : 1, sizeof *bd);
    if (!bd)
        return SAT_E_NOMEM;
    for (size_t i = 0; i < nb; i++)
        bd[i] = b->d[base[i]];
    int rc = x->kind->settle(rep, days, n, bd, nb, total);
    free(bd);
    return rc;
}

/* The digest's server-days of paths and of the baseline (logs and traces,
 * or partials), a server at a time in the inputs' order: its baseline days
 * and its days finished and their results added, then the kind settles
 * them (keeps of the days without a page only what their fleet line reads)
 * before the next server's are made. From partials, one day's analyzers
 * are in memory at a time, and one server's full results. Sets are
 * numbered as the days come: the inputs', then the baseline's. 0, or < 0
 * after a message. */
static int analyze_days(run_ctx *x, sat_report *rep, char *const *paths, size_t npaths,
                        char *const *bpaths, size_t nbpaths, day_list *out, day_list *b)
{
    memset(out, 0, sizeof *out);
    memset(b, 0, sizeof *b);
    sat_digest_plan plan;
    sat_digest_plan_init(&plan, given_opts_cb, x);
    if (!(out->from = open_days(x, &plan, paths, npaths)) ||
        (nbpaths && !(b->from = open_days(x, &plan, bpaths, nbpaths))))
        return -1;
    size_t n = sat_cli_dayset_n(out->from), nb = sat_cli_dayset_n(b->from);
    out->dropped_days = sat_cli_dayset_dropped(out->from);
    b->dropped_days = sat_cli_dayset_dropped(b->from);
    int first = sat_report_reserve_sets(rep, n), bfirst = sat_report_reserve_sets(rep, nb);
    out->d = calloc(n ? n : 1, sizeof *out->d);
    b->d = calloc(nb ? nb : 1, sizeof *b->d);
    unsigned char *taken = calloc(nb ? nb : 1, 1), *added = calloc(nb ? nb : 1, 1);
    size_t *mine = calloc(nb ? nb : 1, sizeof *mine), nmine = 0, from = 0;
    int rc = first >= 0 && bfirst >= 0 && out->d && b->d && taken && added && mine ? SAT_OK
                                                                                   : SAT_E_NOMEM;
    for (size_t i = 0; i <= n && rc >= 0; i++) {
        const char *name = i < n ? sat_cli_dayset_meta(out->from, i)->server : NULL;
        if (i && (!name || strcmp(name, sat_cli_dayset_meta(out->from, i - 1)->server))) {
            rc = settle(x, rep, out->d + from, out->n - from, b, mine, nmine, n);
            nmine = 0;
            from = out->n;
        }
        if (!name || rc < 0)
            break;
        for (size_t k = 0; k < nb && rc >= 0 && (!i || from == out->n); k++) {
            if (taken[k] || strcmp(sat_cli_dayset_meta(b->from, k)->server, name))
                continue;
            taken[k] = 1;
            rc = add_day(x, rep, b->from, k, bfirst + (int)k, plan.set.n, &b->d[k]);
            if (rc > 0)
                added[mine[nmine++] = k] = 1;
        }
        if (rc >= 0)
            rc = add_day(x, rep, out->from, i, first + (int)i, plan.set.n, &out->d[out->n]);
        out->n += rc > 0;
    }
    /* baseline days of servers the inputs do not have: for the baseline table */
    for (size_t k = 0; k < nb && rc >= 0; k++) {
        if (taken[k])
            continue;
        rc = add_day(x, rep, b->from, k, bfirst + (int)k, plan.set.n, &b->d[k]);
        if (rc > 0) {
            added[k] = 1;
            rc = settle(x, rep, NULL, 0, b, &k, 1, n);
        }
    }
    for (size_t k = 0; k < nb; k++) /* the baseline's days in its order */
        if (added[k])
            b->d[b->n++] = b->d[k];
    free(taken);
    free(added);
    free(mine);
    if (rc < 0)
        sat_cli_fail("report", rc, "no report written");
    return rc < 0 ? rc : 0;
}

/* Writes the report to out_path through the safe writer ("-" or "-.EXT":
 * standard output). 0, or -1 after a message. */
static int write_out(const sat_report_renderer *r, sat_report *rep,
                     const sat_report_render_opts *ro, const char *out_path,
                     const sat_out_opts *oo)
{
    sat_diag diag;
    memset(&diag, 0, sizeof diag);
    const char *target = !strncmp(out_path, "-.", 2) ? "-" : out_path;
    sat_out *o = sat_out_open(target, oo, &diag);
    int rc = o ? SAT_OK : diag.code;
    FILE *f = o ? sat_out_stream(o) : NULL;
    if (o && !f)
        rc = sat_diag_set(&diag, SAT_E_NOMEM, out_path, "out of memory");
    if (rc >= 0)
        rc = r->render(rep, ro, f, &diag);
    if (rc >= 0)
        rc = sat_out_commit(o, &diag);
    else
        sat_out_discard(o);
    if (rc == SAT_E_NOMEM)
        sat_cli_fail("report", rc, "no report written");
    else if (rc < 0)
        sat_cli_path_error("report", out_path, diag.where,
                           diag.msg[0] ? diag.msg : sat_strerror(rc));
    return rc < 0 ? -1 : 0;
}

static int run_report(int argc, char **argv)
{
    sat_cli_collect c;
    memset(&c, 0, sizeof c);
    sat_cli_out co; /* the output's options, once the inputs are known */
    memset(&co, 0, sizeof co);
    sat_cli_cache cc; /* what --db-dir read: borrowed by the analyzers until the end */
    sat_cli_cache_init(&cc);
    sat_cli_args a;
    sat_cli_args_init(&a, &sat_cmd_report, &c);
    a.cache = &cc;
    const char *out = NULL, *kind_name = "postmortem", *title = NULL, *prom = NULL;
    sat_report_render_opts ro;
    memset(&ro, 0, sizeof ro);
    char **baseline = NULL;
    size_t nbaseline = 0;
    char *mail_to = NULL;
    int utc = 0, opt, code = SAT_EXIT_OK;
    while ((opt = sat_cli_args_next(&a, argc, argv)) != -1) {
        switch (opt) {
        case OPT_OUT:
            out = optarg;
            break;
        case OPT_KIND:
            kind_name = optarg;
            break;
        case OPT_BASELINE: {
            char **nb = realloc(baseline, (nbaseline + 1) * sizeof *nb);
            if (!nb) {
                code = SAT_EXIT_UNREADABLE;
                goto done;
            }
            baseline = nb;
            baseline[nbaseline++] = optarg;
            break;
        }
        case OPT_UTC:
            utc = 1;
            break;
        case OPT_TITLE:
            title = optarg;
            break;
        case OPT_MAIL_TO: {
            /* several --mail-to: one To: header, comma-separated (RFC 5322) */
            size_t l = mail_to ? strlen(mail_to) : 0;
            char *nm = realloc(mail_to, l + strlen(optarg) + 3);
            if (!nm) {
                code = SAT_EXIT_UNREADABLE;
                goto done;
            }
            snprintf(nm + l, strlen(optarg) + 3, "%s%s", l ? ", " : "", optarg);
            mail_to = nm;
            break;
        }
        case OPT_MAIL_FROM:
            ro.mail_from = optarg;
            break;
        case OPT_SUBJECT:
            ro.subject = optarg;
            break;
        case OPT_PROMETHEUS:
            prom = optarg;
            break;
        case OPT_MAIL_DATE:
            if (sat_cli_parse_rfc3339(optarg, &ro.mail_date_ns) < 0) {
                code = sat_cli_usage_error("report", "bad --mail-date '%s' (RFC 3339, with a "
                                                     "zone: 2026-11-04T06:00:00Z)",
                                           optarg);
                goto done;
            }
            break;
        }
    }
    if (a.exit >= 0) {
        code = a.exit;
        goto done;
    }
    const sat_report_kind *kind = sat_report_kind_find(kind_name);
    const sat_report_renderer *r = out ? sat_report_renderer_for(out) : NULL;
    if (!kind) {
        size_t nk;
        const sat_report_kind *const *ks = sat_report_kind_list(&nk);
        char names[256] = "";
        for (size_t i = 0; i < nk; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                     ks[i]->name);
        code = sat_cli_usage_error("report", "unknown --kind '%s' (one of %s)", kind_name, names);
        goto done;
    }
    if (!out) {
        code = sat_cli_usage_error("report", "no output given (-o OUT)");
        goto done;
    }
    if (!r) {
        code = sat_cli_usage_error("report",
                                   "-o %s: unknown form (the extension names it: .html .pdf "
                                   ".png .svg .eml .txt .json, or - for text)",
                                   out);
        goto done;
    }
    if (optind >= argc) {
        code = sat_cli_usage_error("report", "no input given");
        goto done;
    }
    if (!strcmp(r->ext, ".eml")) {
        /* what goes into a header is checked whole before the analysis: a CR
         * or LF there would start a header of its own (report_doc.h) */
        struct {
            const char *opt, *val;
            int addr;
        } hdr[] = {{"--mail-to", mail_to, 1},
                   {"--mail-from", ro.mail_from, 1},
                   {"--subject", ro.subject, 0},
                   {"--title", ro.subject ? NULL : title, 0}};
        for (size_t i = 0; i < sizeof hdr / sizeof hdr[0]; i++) {
            char why[256];
            if (hdr[i].val && (hdr[i].addr ? sat_mail_addr_check(hdr[i].val, why, sizeof why)
                                           : sat_mail_text_check(hdr[i].val, why, sizeof why)) !=
                                  SAT_OK) {
                code = sat_cli_usage_error("report", "%s %s: refused, it goes into the e-mail's %s header",
                                           hdr[i].opt, why,
                                           i == 0 ? "To:" : i == 1 ? "From:" : "Subject:");
                goto done;
            }
        }
    }
    ro.utc = utc;
    ro.wide = c.wide;
    ro.mail_to = mail_to;
    if (!ro.mail_date_ns && !strcmp(r->ext, ".eml")) {
        /* an e-mail is dated when it is made, so that today's report sorts
         * first whatever period it covers; SOURCE_DATE_EPOCH (the
         * reproducible-builds convention) fixes it */
        const char *sde = getenv("SOURCE_DATE_EPOCH");
        char *end = NULL;
        long long sec = sde && *sde ? strtoll(sde, &end, 10) : -1;
        if (sde && *sde && (*end || sec < 0 || sec > 253402300799LL)) {
            code = sat_cli_usage_error("report", "SOURCE_DATE_EPOCH '%s' is not a count of "
                                                 "seconds since 1970",
                                       sde);
            goto done;
        }
        struct timespec now;
        if (sec < 0 && clock_gettime(CLOCK_REALTIME, &now) == 0)
            sec = now.tv_sec;
        ro.mail_date_ns = sec > 0 ? (int64_t)sec * 1000000000 : 0;
    }
    /* the output: refused now, not after the analysis, when it must not be
     * written (a symlink, a FIFO, one of the inputs: safe_out.h) */
    sat_cli_out_init(&co, argv + optind, (size_t)(argc - optind), 0, "the report");
    sat_cli_out_add(&co, baseline, nbaseline);
    {
        sat_diag od;
        memset(&od, 0, sizeof od);
        if (sat_out_check(!strncmp(out, "-.", 2) ? "-" : out, &co.o, &od) != SAT_OK ||
            (prom && sat_out_check(prom, &co.o, &od) != SAT_OK)) {
            sat_cli_path_error("report", od.where[0] ? od.where : out, od.where, od.msg);
            code = od.code == SAT_E_USAGE ? SAT_EXIT_USAGE : SAT_EXIT_UNREADABLE;
            goto done;
        }
    }

    sat_report *rep = sat_report_new(kind->name);
    if (!rep) {
        code = sat_cli_fail("report", SAT_E_NOMEM, "no report written");
        goto done;
    }
    run_ctx x = {&c, &cc, kind, SAT_EXIT_OK};
    char *const *paths = argv + optind;
    size_t npaths = (size_t)(argc - optind);
    /* a kind that lists no analyzer runs its own collections (in.collect) */
    int set = kind->analyzers && kind->analyzers[0] ? analyze_into(&x, rep, paths, npaths)
                                                    : -1;
    code = x.code;
    if (set < 0 && kind->analyzers && kind->analyzers[0]) {
        sat_report_free(rep);
        code = SAT_EXIT_UNREADABLE;
        goto done;
    }
    if (set >= 0 && sat_cli_no_events(&c, "report", paths, npaths)) {
        sat_report_free(rep);
        if (code == SAT_EXIT_OK)
            code = SAT_EXIT_REJECTS;
        goto done;
    }
    sat_report_input in;
    memset(&in, 0, sizeof in);
    in.set = set >= 0 ? sat_report_set(rep, (size_t)set) : NULL;
    in.paths = paths;
    in.npaths = npaths;
    in.title = title;
    in.utc = utc;
    day_list days, base_days;
    memset(&days, 0, sizeof days);
    memset(&base_days, 0, sizeof base_days);
    if (kind->by_day &&
        analyze_days(&x, rep, paths, npaths, baseline, nbaseline, &days, &base_days) < 0) {
        days_free(&days);
        days_free(&base_days);
        sat_report_free(rep);
        code = x.code == SAT_EXIT_USAGE ? SAT_EXIT_USAGE : SAT_EXIT_UNREADABLE;
        goto done;
    }
    in.days = days.d;
    in.ndays = days.n;
    in.base_days = base_days.d;
    in.nbase_days = base_days.n;
    in.dropped_days = days.dropped_days;
    in.days_kept = SAT_SPLIT_DAYS_DEFAULT; /* the plan's split keeps the default */
    sat_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = kind->build(rep, &in, &diag);
    if (x.code > code)
        code = x.code;
    if (rc == SAT_E_NOMEM) {
        code = sat_cli_fail("report", rc, "no report written");
    } else if (rc < 0) {
        fprintf(stderr, "satscope report: %s\n", diag.msg[0] ? diag.msg : sat_strerror(rc));
        code = SAT_EXIT_UNREADABLE;
    } else if (write_out(r, rep, &ro, out, &co.o) < 0 ||
               (prom && write_out(sat_report_renderer_of_ext(".prom"), rep, &ro, prom, &co.o) < 0)) {
        code = SAT_EXIT_FAILED;
    }
    days_free(&days);
    days_free(&base_days);
    sat_report_free(rep);
    if (code == SAT_EXIT_OK && cc.partial)
        code = SAT_EXIT_REJECTS;
done:
    sat_cli_out_free(&co);
    sat_cli_cache_clear(&cc);
    free(baseline);
    free(mail_to);
    sat_chart_release_fonts(); /* no cache left to a leak checker */
    return code;
}

const sat_command sat_cmd_report = {
    "report", "a post-mortem or digest of the inputs as HTML, PDF, e-mail, text or JSON",
    run_report,
    "INPUT... -o OUT [--kind postmortem|digest] [--baseline OLD]... [options]",
    "A report of the inputs (access logs, packet captures, core files, .sat\n"
    "traces) drawn from the results of every analyzer, read in one pass.\n\n"
    "postmortem: what happened, when, and the likely chain - the trigger, how\n"
    "the storm of client failures fed itself (reconnects, full TLS handshakes),\n"
    "whether it outlived the trigger, the crash - then the timeline, the\n"
    "storms, where the time went, the handshakes, the crash with its backtrace\n"
    "and capacity. Every input is listed with its span.\n\n"
    "digest: one page per server and local day (a server is one input: a log,\n"
    "a rotated set, a capture; named by its log's host name, else its rotated\n"
    "set's path), each against the same servers' days in --baseline (logs or\n"
    "traces): latency by operation type, new result codes, new unindexed\n"
    "filter shapes, new heavy clients, newly failing bind DNs, old TLS, storms,\n"
    "crashes, the cache working set (against the entry cache --monitor says is\n"
    "configured, the same for every server); a fleet summary first\n"
    "(docs/digest.md). The cache options are cachesize's.\n\n"
    "The form follows OUT's extension: .html (one self-contained file: inline\n"
    "SVG charts and CSS, nothing fetched), .pdf (multi-page), .png or .svg (the\n"
    "timeline chart alone), .eml (a MIME message with the charts inline, for\n"
    "sendmail -t), .txt or - (text, with per-hour sparklines), .json (the\n"
    "report's document).",
    report_opts, SAT_CLI_CACHE_OPTS | SAT_CLI_INPUT_OPTS | SAT_CLI_REPORT_OPTS |
    SAT_CLI_ANALYSIS_OPTS,
    SAT_CLI_EXIT_NOTE};
