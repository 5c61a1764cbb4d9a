/*
 * postmortem_findings_ops.c - the post-mortem's findings on what the
 * operations themselves tell (after the storm's and the crash's), each
 * written from etime's and the timeline's results with the figures it
 * quotes, each only when it matters:
 *   1. failed binds (err=49): when they are PM_FB_SHARE of the binds or
 *      more, or one client has PM_FB_ONE_CLIENT of them (a password guessed,
 *      or a stale one in a client's configuration), from PM_FB_MIN on;
 *   2. internal operations: when those a type of client operation ran took
 *      PM_IO_SHARE of its etime or more and that type PM_IO_TYPE_SHARE of the
 *      server's time (which type, how many, per operation, their errors, the
 *      costliest of them and the one that failed most, with its result codes);
 *   3. the throughput collapse: when the operations answered per window
 *      during the storm fell by PM_TP_DROP or more from before it while the
 *      load offered (operations asked for, or connections opened) did not
 *      fall (within PM_TP_HELD): the figures of the throughput section
 *      (section_throughput.h);
 *   4. who used the server during the storm (pm_finding_who_used, told
 *      with the storm's findings): of each dimension (filter shape, client,
 *      bind DN, base) the key with the most work in the storm, when it had
 *      PM_WU_SHARE of it or more (etime's "during": its least work).
 */
#include <math.h>
#include <string.h>

#include "postmortem.h"
#include "section_throughput.h"

#define PM_FB_MIN 20          /* failed binds, at least */
#define PM_FB_SHARE 0.05      /* of the binds */
#define PM_FB_ONE_CLIENT 0.5  /* of the failed binds, from one client */
#define PM_IO_SHARE 0.10      /* of a client operation type's etime */
#define PM_IO_TYPE_SHARE 0.10 /* of the server's time, that type */
#define PM_IO_MIN 20          /* internal operations of that type, at least */
#define PM_IO_MAX_FINDINGS 2
#define PM_TP_DROP (1.0 / 3)  /* answered per window, the fall */
#define PM_TP_HELD 0.9        /* offered during / before, at least */
#define PM_TP_MIN_BEFORE 3    /* windows before the storm, at least */
#define PM_WU_SHARE 0.10      /* of the storm's work, a key named */
#define PM_WU_BUSY 0.10       /* logged work / the storm's span, under which the log shows
                                 too little of what the server did to name anyone */

static void pct(char *buf, size_t n, double ratio)
{
    char t[48];
    sat_fmt_sig3(t, sizeof t, 100 * ratio);
    snprintf(buf, n, "%s%%", t);
}

/* ---- failed binds ------------------------------------------------------------------ */

static void finding_failed_binds(const pm_ctx *p, sat_rnode *list)
{
    const sat_rnode *b = sat_get_obj(p->etime, "binds");
    double total = sat_get_num(b, "total", NAN), failed = sat_get_num(b, "failed", NAN);
    if (!(total > 0) || !(failed >= PM_FB_MIN))
        return;
    const sat_rnode *client = sat_rnode_first(sat_get_table(b, "failed_by_client"));
    const sat_rnode *dn = sat_rnode_first(sat_get_table(b, "failed_by_dn"));
    double by_client = sat_get_num(client, "count", 0), by_dn = sat_get_num(dn, "count", 0);
    const char *cname = sat_get_text(client, "client", NULL), *dname = sat_get_text(dn, "binddn", NULL);
    /* one client among others (with one client in all, that one tells nothing) */
    int only = sat_get_count(p->etime, "top.clients_distinct", 0) == 1;
    int one = cname && !only && by_client >= PM_FB_ONE_CLIENT * failed;
    if (failed / total < PM_FB_SHARE && !one)
        return;
    char share[64], who[512] = "";
    pct(share, sizeof share, failed / total);
    uint64_t nclients = sat_get_count(b, "failed_by_client_distinct", 0);
    if (one) {
        char cs[64];
        pct(cs, sizeof cs, by_client / failed);
        snprintf(who, sizeof who, "; %.0f of them (%s) from one client, %s", by_client, cs, cname);
    } else if (only && cname) {
        snprintf(who, sizeof who, "; from the only client, %s", cname);
    } else if (nclients) {
        snprintf(who, sizeof who, "; from %llu %s", (unsigned long long)nclients,
                 sat_plural(nclients, "client", "clients"));
    }
    size_t l = strlen(who);
    if (dname)
        snprintf(who + l, sizeof who - l, ", the most for %s (%.0f)", dname, by_dn);
    sat_rnode *fig = sat_doc_finding(
        list, "warning", "results",
        "%.0f of %.0f binds (%s) failed with invalid credentials (err=49)%s: %s.", failed, total,
        share, who,
        one ? "a client retrying a wrong or stale password (one left in its configuration "
              "after a change), or guessing passwords"
            : "wrong or stale passwords (left in clients' configurations after a change), or "
              "passwords being guessed");
    sat_put_copy(fig, "binds", b, "total");
    sat_put_copy(fig, "failed", b, "failed");
    sat_put_ratio(fig, "failed_share", failed / total, 4);
    if (cname) {
        sat_put_text(fig, "client", cname);
        sat_put_count(fig, "client_failed", (uint64_t)by_client);
    }
    if (dname) {
        sat_put_text(fig, "binddn", dname);
        sat_put_count(fig, "binddn_failed", (uint64_t)by_dn);
    }
}

/* ---- internal operations --------------------------------------------------------------- */

typedef struct io_type {
    const char *op;
    double parents, internal, internal_s, etime_s, errors;
    const sat_rnode *costliest; /* the row of the most time */
    const sat_rnode *failing;   /* the row of the most errors */
} io_type;

static void finding_internal(const pm_ctx *p, sat_rnode *list)
{
    const sat_rnode *io = sat_get_obj(p->etime, "internal_operations");
    const sat_rnode *groups = sat_get_table(io, "groups"), *rows = sat_get_table(io, "ops");
    double all = sat_get_dur(sat_get_row(sat_get_table(p->etime, "ops"), "op", "all"), "total_s", NAN);
    if (!sat_rnode_first(groups) || !(all > 0))
        return;
    /* the groups (type and base) summed per client operation type */
    io_type t[16];
    size_t nt = 0;
    for (const sat_rnode *g = sat_rnode_first(groups); g; g = sat_rnode_next(g)) {
        const char *op = sat_get_text(g, "op", NULL);
        double es = sat_get_num(g, "operations_etime_s", NAN);
        if (!op || !isfinite(es)) /* the server's own have no client etime */
            continue;
        size_t i = 0;
        while (i < nt && strcmp(t[i].op, op))
            i++;
        if (i == nt) {
            if (nt == sizeof t / sizeof t[0])
                continue;
            memset(&t[nt], 0, sizeof t[nt]);
            t[nt++].op = op;
        }
        t[i].parents += sat_get_num(g, "operations", 0);
        t[i].internal += sat_get_num(g, "internal", 0);
        t[i].internal_s += sat_get_num(g, "internal_s", 0);
        t[i].etime_s += es;
    }
    for (const sat_rnode *r = sat_rnode_first(rows); r; r = sat_rnode_next(r)) {
        const char *op = sat_get_text(r, "parent_op", NULL);
        for (size_t i = 0; op && i < nt; i++)
            if (!strcmp(t[i].op, op)) {
                t[i].errors += sat_get_num(r, "errors", 0);
                if (!t[i].costliest ||
                    sat_get_num(r, "total_s", 0) > sat_get_num(t[i].costliest, "total_s", 0))
                    t[i].costliest = r;
                if (sat_get_num(r, "errors", 0) > 0 &&
                    (!t[i].failing ||
                     sat_get_num(r, "errors", 0) > sat_get_num(t[i].failing, "errors", 0)))
                    t[i].failing = r;
            }
    }
    /* the types past the thresholds, the most internal time first */
    for (int k = 0; k < PM_IO_MAX_FINDINGS; k++) {
        io_type *best = NULL;
        for (size_t i = 0; i < nt; i++) {
            const sat_rnode *typ = sat_get_row(sat_get_table(p->etime, "ops"), "op", t[i].op);
            double type_s = sat_get_dur(typ, "total_s", NAN);
            if (t[i].internal < PM_IO_MIN || !(t[i].etime_s > 0) ||
                t[i].internal_s / t[i].etime_s < PM_IO_SHARE || !(type_s / all >= PM_IO_TYPE_SHARE))
                continue;
            if (!best || t[i].internal_s > best->internal_s)
                best = &t[i];
        }
        if (!best)
            break;
        const sat_rnode *typ = sat_get_row(sat_get_table(p->etime, "ops"), "op", best->op);
        double type_s = sat_get_dur(typ, "total_s", NAN);
        char is[64], es[64], sh[64], tsh[64], per[64], errs[64] = "", cost[1024] = "";
        pm_dur(is, sizeof is, best->internal_s);
        pm_dur(es, sizeof es, best->etime_s);
        pct(sh, sizeof sh, best->internal_s / best->etime_s);
        pct(tsh, sizeof tsh, type_s / all);
        sat_fmt_sig3(per, sizeof per, best->internal / best->parents);
        if (best->errors > 0)
            snprintf(errs, sizeof errs, ", %.0f of them failed", best->errors);
        const sat_rnode *c = best->costliest, *f = best->failing;
        if (c) {
            char cs[64];
            pm_dur(cs, sizeof cs, sat_get_num(c, "total_s", NAN));
            double ce = sat_get_num(c, "errors", 0);
            const char *codes = sat_get_text(c, "error_codes", NULL);
            char cerr[256] = "";
            if (ce > 0)
                snprintf(cerr, sizeof cerr, ", %.0f failed%s%s", ce, codes ? ": " : "",
                         codes ? codes : "");
            snprintf(cost, sizeof cost, "; the costliest: %.0f internal %s of %s (%s%s)",
                     sat_get_num(c, "count", NAN), sat_get_text(c, "op", "?"),
                     sat_get_text(c, "base", "?"), cs, cerr);
        }
        if (f && f != c) {
            size_t l = strlen(cost);
            const char *codes = sat_get_text(f, "error_codes", NULL);
            snprintf(cost + l, sizeof cost - l, "; the most failures: %.0f of %.0f internal %s of %s%s%s",
                     sat_get_num(f, "errors", NAN), sat_get_num(f, "count", NAN),
                     sat_get_text(f, "op", "?"), sat_get_text(f, "base", "?"),
                     codes ? ", " : "", codes ? codes : "");
        }
        sat_rnode *fig = sat_doc_finding(
            list, "warning", "offenders",
            "Internal operations took %s of the %s operations' %s etime (%s): %.0f %s "
            "operations ran %.0f internal ones (%s per operation%s)%s. %s operations took %s of "
            "the server's time.",
            is, best->op, es, sh, best->parents, best->op, best->internal, per, errs, cost,
            best->op, tsh);
        sat_put_text(fig, "op", best->op);
        sat_put_count(fig, "operations", (uint64_t)best->parents);
        sat_put_count(fig, "internal", (uint64_t)best->internal);
        sat_put_count(fig, "internal_errors", (uint64_t)best->errors);
        sat_put_dur(fig, "internal_s", best->internal_s, 6);
        sat_put_dur(fig, "operations_etime_s", best->etime_s, 6);
        sat_put_ratio(fig, "share", best->internal_s / best->etime_s, 4);
        sat_put_ratio(fig, "type_share", type_s / all, 4);
        best->internal = -1; /* said */
    }
}

/* ---- throughput ---------------------------------------------------------------------- */

static void finding_throughput(const pm_ctx *p, sat_rnode *list)
{
    const sat_rnode *st = p->storm;
    if (!st)
        return;
    sec_tput t[SEC_TPUT_N];
    int64_t start = sat_get_time(st, "start_ts", 0), end = sat_get_time(st, "end_ts", 0);
    double w = sec_tput_periods(p->timeline, start, end, sat_get_time(st, "trigger.onset_ts", 0), t);
    const sec_tput *b = &t[SEC_TPUT_BEFORE], *d = &t[SEC_TPUT_DURING], *a = &t[SEC_TPUT_AFTER];
    if (!(w > 0) || b->windows < PM_TP_MIN_BEFORE || !d->windows || !(b->answered > 0))
        return;
    double drop = 1 - d->answered / b->answered;
    int asked = d->requested >= PM_TP_HELD * b->requested;
    int opened = d->opened > 0 && d->opened >= PM_TP_HELD * b->opened; /* from none: rose */
    if (drop < PM_TP_DROP || !(asked || opened))
        return;
    const char *noun = !p->http ? "operations" : p->ldap ? "operations and requests" : "requests";
    char ws[64], ds[64], bs[64], as[64], rq[64], rb[64], after[128] = "", held[256];
    pm_dur(ws, sizeof ws, w);
    pct(ds, sizeof ds, drop);
    sat_fmt_sig3(bs, sizeof bs, b->answered);
    sat_fmt_sig3(as, sizeof as, d->answered);
    sat_fmt_sig3(rq, sizeof rq, d->requested);
    sat_fmt_sig3(rb, sizeof rb, b->requested);
    if (asked) {
        snprintf(held, sizeof held, "clients asked for %s per window (%s before)", rq, rb);
    } else {
        char ob[64], od[64];
        sat_fmt_sig3(od, sizeof od, d->opened);
        sat_fmt_sig3(ob, sizeof ob, b->opened);
        snprintf(held, sizeof held, "clients opened %s connections per window (%s before)", od,
                 ob);
    }
    if (a->windows) {
        char aa[64];
        sat_fmt_sig3(aa, sizeof aa, a->answered);
        snprintf(after, sizeof after, "; after it, %s per window", aa);
    }
    sat_rnode *fig = sat_doc_finding(
        list, "critical", "storms",
        "Throughput collapsed during storm %.0f: the server answered %s %s per %s window against "
        "%s before it (%s fewer), while %s: the load was there, the answers were not%s.",
        sat_get_num(st, "storm", NAN), as, noun, ws, bs, ds, held, after);
    sat_put_copy(fig, "storm", st, "storm");
    sat_put_dur(fig, "window_s", w, 3);
    sat_put_num(fig, "answered_before", b->answered, 1);
    sat_put_num(fig, "answered_during", d->answered, 1);
    if (a->windows)
        sat_put_num(fig, "answered_after", a->answered, 1);
    sat_put_num(fig, "requested_before", b->requested, 1);
    sat_put_num(fig, "requested_during", d->requested, 1);
    sat_put_num(fig, "opened_before", b->opened, 1);
    sat_put_num(fig, "opened_during", d->opened, 1);
    sat_put_ratio(fig, "answered_drop", drop, 4);
}

/* ---- who used the server during the storm ----------------------------------------------- */

int pm_finding_who_used(const pm_ctx *p, sat_rnode *list)
{
    static const struct {
        const char *dim, *what, *whole;
    } dims[] = {{"filter_shapes", "the filter shape", "of the searches' work"},
                {"clients", "the client", "of all work"},
                {"bind_dns", "the bind DN", "of all work"},
                {"bases", "the base", "of the searches' work"}};
    uint64_t storm = sat_get_count(p->storm, "storm", 0);
    const sat_rnode *t = sat_get_table(p->etime, "during.used");
    const sat_rnode *top[4] = {NULL, NULL, NULL, NULL};
    double logged = 0; /* every operation's work in the storm: the clients' rows */
    int any = 0;
    for (const sat_rnode *r = sat_rnode_first(t); r; r = sat_rnode_next(r)) {
        if (sat_get_count(r, "storm", 0) != storm)
            continue;
        any = 1;
        if (!strcmp(sat_get_text(r, "dimension", ""), "clients"))
            logged += sat_get_dur(r, "work_s", 0);
        if (!strcmp(sat_get_text(r, "key", ""), "(other)"))
            continue;
        for (int d = 0; d < 4; d++)
            if (!strcmp(sat_get_text(r, "dimension", ""), dims[d].dim) && !top[d] &&
                sat_get_num(r, "work_share", 0) >= PM_WU_SHARE)
                top[d] = r; /* rows come by work, the heaviest first */
    }
    double span = sat_get_dur(p->storm, "span_s", NAN);
    if (any && isfinite(span) && span > 0 && logged < PM_WU_BUSY * span) {
        /* the workers were busy with what the log does not show */
        char lw[64], sp[64];
        pm_dur(lw, sizeof lw, logged);
        pm_dur(sp, sizeof sp, span);
        sat_rnode *fig = sat_doc_finding(
            list, "warning", "storms",
            "During it the log shows little work: %s of its operations' work in %s, a tenth of "
            "one worker's time or less: what kept the server from answering is not in the log "
            "(TLS handshakes and connections a capture would show, or the server itself).",
            lw, sp);
        sat_put_dur(fig, "logged_work_s", logged, 3);
        return 0;
    }
    char parts[2048] = "";
    size_t l = 0;
    int n = 0;
    for (int d = 0; d < 4; d++) {
        if (!top[d])
            continue;
        char w[64], s[64], key[96];
        pm_dur(w, sizeof w, sat_get_dur(top[d], "work_s", NAN));
        pct(s, sizeof s, sat_get_num(top[d], "work_share", NAN));
        /* a generated filter can run to kilobytes: its start, and its length */
        const char *kt = sat_get_text(top[d], "key", "?");
        size_t kl = strlen(kt);
        if (kl > 72)
            snprintf(key, sizeof key, "%.56s... (%zu characters)", kt, kl);
        else
            snprintf(key, sizeof key, "%s", kt);
        int k = snprintf(parts + l, sizeof parts - l, "%s%s %s %s (%s, %s)", n ? "; " : "",
                         dims[d].what, key, s, dims[d].whole, w);
        if (k > 0 && (size_t)k < sizeof parts - l)
            l += (size_t)k;
        n++;
    }
    if (!n)
        return 0;
    sat_rnode *fig = sat_doc_finding(list, "warning", "storms",
                                     "Who used the server during it, by the work its operations "
                                     "took (not their wait): %s.",
                                     parts);
    for (int d = 0; d < 4; d++)
        if (top[d]) {
            char k[64];
            snprintf(k, sizeof k, "%s_key", dims[d].dim);
            sat_put_copy(fig, k, top[d], "key");
            snprintf(k, sizeof k, "%s_share", dims[d].dim);
            sat_put_copy(fig, k, top[d], "work_share");
        }
    return 1;
}

void pm_findings_ops(pm_ctx *p)
{
    sat_rnode *list = sat_doc_findings(p->rep, NULL);
    finding_throughput(p, list);
    if (p->etime) {
        finding_failed_binds(p, list);
        finding_internal(p, list);
    }
}
