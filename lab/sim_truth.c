/*
 * sim_truth.c - the truth of a lab incident, measured in the simulation
 * (lab/README.md): the trigger's extent, the storm (the 10 s windows where
 * client failures - timeouts, refusals, err=51 - rose above their baseline
 * before the trigger), whether it outlived the trigger by more than the drain
 * time, what fed it, and the throughput before, during and after; written as
 * truth.json (the shape of /work/notes' issue-21 contract). And `--check`:
 * the written logs re-read and their lines counted against the run's own
 * counts, and Little's law on the run (mean number in the server = arrival
 * rate x mean time in it).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim.h"

const char *KIND_NAME[K_N] = {"unindexed_batch", "heavy_client", "session_flush",
                              "slow_storage",    "rising_load",  "none"};
static const char *SIGNAL[K_N] = {"unindexed", "heavy_client_ops", "full_hs_share",
                                  "service_time", "ops", NULL};

static void rfc(FILE *f, uint64_t t)
{
    time_t s = (time_t)(LAB_T0_UNIX + (int64_t)(t / NS));
    struct tm tm;
    gmtime_r(&s, &tm);
    fprintf(f, "\"%04d-%02d-%02dT%02d:%02d:%02d.%03uZ\"", tm.tm_year + 1900, tm.tm_mon + 1,
            tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (unsigned)(t % NS / MS));
}

static uint32_t fails(const window *w)
{
    return w->fail_timeout + w->fail_hs + w->fail_busy + w->fail_refused;
}

typedef struct { double retries, reconnects, full_hs, offered, refused, ok, work, trig; } means;

static means mean_of(size_t a, size_t b)
{
    means m = {0};
    if (b > S.nwin)
        b = S.nwin;
    if (b <= a)
        return m;
    for (size_t i = a; i < b; i++) {
        const window *w = &S.win[i];
        m.retries += w->retries;
        m.reconnects += w->conn_opens;
        m.full_hs += w->full_hs;
        m.offered += w->ops_in;
        m.refused += w->fail_refused;
        m.ok += w->ops_ok;
        m.work += w->work_in;
        m.trig += w->trig_jobs;
    }
    double n = (double)(b - a);
    m.retries /= n; m.reconnects /= n; m.full_hs /= n; m.offered /= n;
    m.refused /= n; m.ok /= n; m.work /= n; m.trig /= n;
    return m;
}

/* the jobs per window offered by everyone but a batch or a heavy client */
static double offered_by_others(means m)
{
    int own = S.P.kind == K_UNINDEXED || S.P.kind == K_HEAVY;
    return own ? m.offered - m.trig : m.offered;
}

static size_t win_of(uint64_t t) { return (size_t)(t / (WIN_S * NS)); }

static void put_means(FILE *f, const char *name, means m)
{
    fprintf(f, "\"%s\": {\"retries\": %.3f, \"reconnects\": %.3f, \"full_handshakes\": %.3f, "
               "\"offered_load\": %.3f, \"refused_connections\": %.3f}",
            name, m.retries, m.reconnects, m.full_hs, m.offered, m.refused);
}

int truth_write(const char *dir, const char *incident)
{
    const lab_params *P = &S.P;
    /* the trigger's extent: when its extra load was present */
    int has_trig = P->kind != K_NONE;
    uint64_t ts = 0, te = 0;
    switch (P->kind) {
    case K_UNINDEXED:
    case K_HEAVY:
        ts = S.trig_first;
        te = S.trig_last ? S.trig_last : S.end;
        break;
    case K_FLUSH:
        ts = (uint64_t)(P->trig_at_s * 1e9);
        te = S.refreshed_at ? S.refreshed_at : S.end;
        break;
    case K_SLOW:
        ts = S.slow_from;
        te = S.trig_last > S.slow_to ? S.trig_last : S.slow_to;
        break;
    case K_RISING:
        ts = (uint64_t)(P->trig_at_s * 1e9);
        te = (uint64_t)((P->trig_at_s + P->trig_len_s) * 1e9);
        break;
    default:
        break;
    }
    /* the baseline: windows after the first minute and before the trigger */
    size_t b0 = 6, b1 = has_trig ? win_of(ts) : S.nwin / 3;
    if (b1 <= b0 + 3)
        b1 = b0 + 4;
    double base = 0;
    for (size_t i = b0; i < b1; i++)
        base += fails(&S.win[i]);
    base /= (double)(b1 - b0);
    double th = base + fmax(3.0, 4.0 * sqrt(base));
    /* runs of windows above it, gaps of up to 3 windows merged; the biggest */
    size_t best_a = 0, best_b = 0, a = 0, last = 0;
    uint64_t best_sum = 0, sum = 0;
    int in = 0;
    for (size_t i = b0; i < S.nwin; i++) {
        if (fails(&S.win[i]) <= th)
            continue;
        if (!in || i > last + 4) {
            if (in && sum > best_sum) { best_sum = sum; best_a = a; best_b = last + 1; }
            a = i;
            sum = 0;
            in = 1;
        }
        sum += fails(&S.win[i]);
        last = i;
    }
    if (in && sum > best_sum) { best_sum = sum; best_a = a; best_b = last + 1; }
    int storm = best_sum >= 10;
    uint64_t ss = (uint64_t)best_a * WIN_S * NS, se = (uint64_t)best_b * WIN_S * NS;
    if (se > S.end)
        se = S.end;
    double drain = fmax(10.0, 3.0 * P->timeout_s);
    int sustained = storm && has_trig && se > te && (double)(se - te) / 1e9 > drain;
    /* whether a log can show the trigger's end before the storm's: slow
     * storage is seen only in the service time of answered operations, so
     * with none answered after it ended, no log can tell when it did */
    int observable = 1;
    if (sustained && P->kind == K_SLOW) {
        size_t served = 0;
        for (size_t i = win_of(te) + 1; i < win_of(se) && i < S.nwin; i++)
            served += S.win[i].ops_ok > 0;
        observable = served >= 3;
    }
    /* what fed it (README.md: the rule) */
    size_t wb1 = storm ? (win_of(ss) < b1 ? win_of(ss) : b1) : b1;
    means before = mean_of(b0, wb1 > b0 ? wb1 : b1);
    means during = has_trig ? mean_of(win_of(ts), win_of(te) + 1) : mean_of(best_a, best_b);
    uint64_t ae = storm && se > te + 60 * NS ? se : te + 60 * NS;
    means after = has_trig ? mean_of(win_of(te) + 1, win_of(ae) + 1) : mean_of(best_b, S.nwin);
    const char *mech = NULL;
    if (storm) {
        means ph = sustained ? after : has_trig ? during : mean_of(best_a, best_b);
        size_t pa = sustained ? win_of(te) + 1 : has_trig ? win_of(ts) : best_a;
        size_t pb = sustained ? win_of(se) : has_trig ? win_of(te) + 1 : best_b;
        uint64_t f = 0, rf = 0;
        for (size_t i = pa; i < pb && i < S.nwin; i++) {
            f += fails(&S.win[i]);
            rf += S.win[i].fail_refused;
        }
        double full_ms = (P->c_full_lo + P->c_full_hi) / 2;
        double extra_hs = (ph.full_hs - before.full_hs) * full_ms / 1000.0;
        double extra = ph.work - before.work;
        /* a refused connection costs the server nothing here: refusals are
         * failures, never what feeds the storm, unless they are all there is */
        if (ph.retries >= fmax(1.0, 3.0 * before.retries))
            mech = extra > 0 && extra_hs > 0.5 * extra ? "full_handshakes" : "retries";
        else if (ph.full_hs >= 3.0 * before.full_hs + 1.0)
            mech = "full_handshakes";
        else if (f && (double)rf > 0.5 * (double)f)
            mech = "refused_connections";
        /* the load of everyone but the trigger doubled: a batch's or a heavy
         * client's own jobs are the trigger (slowed jobs are everyone's; a
         * rising load is the trigger itself: nothing of it fed back) */
        else if (P->kind != K_RISING &&
                 offered_by_others(ph) >= 2.0 * offered_by_others(before) + 1.0)
            mech = "offered_load";
        /* else nothing fed back: the trigger's own load made the storm */
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/truth.json", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "{\n  \"incident\": \"%s\",\n  \"kind\": \"%s\",\n  \"seed\": %llu,\n", incident,
            KIND_NAME[P->kind], (unsigned long long)P->seed);
    fprintf(f, "  \"server\": \"10.0.0.5:636\",\n  \"window_s\": %d,\n", WIN_S);
    fprintf(f, "  \"first_ts\": ");
    rfc(f, 0);
    fprintf(f, ",\n  \"last_ts\": ");
    rfc(f, S.end);
    fprintf(f, ",\n  \"trigger\": ");
    if (has_trig) {
        fprintf(f, "{\"kind\": \"%s\", \"start_ts\": ", SIGNAL[P->kind]);
        rfc(f, ts);
        fprintf(f, ", \"end_ts\": ");
        rfc(f, te);
        /* whose work the trigger is: the batch's or the heavy client's host */
        if (P->kind == K_UNINDEXED || P->kind == K_HEAVY) {
            char ip[16], dn[96];
            const host *hh = &S.hosts[P->kind == K_UNINDEXED ? S.batch_host : S.heavy_host];
            lab_user_dn(0, hh->role, dn, sizeof dn);
            fprintf(f, ", \"client\": \"%s\", \"binddn\": \"%s\"", lab_ip(hh->ip, ip), dn);
        }
        fprintf(f, "}");
    } else {
        fprintf(f, "null");
    }
    fprintf(f, ",\n  \"storm\": ");
    if (storm) {
        fprintf(f, "{\"start_ts\": ");
        rfc(f, ss);
        fprintf(f, ", \"end_ts\": ");
        rfc(f, se);
        fprintf(f, ", \"failures\": %llu}", (unsigned long long)best_sum);
    } else {
        fprintf(f, "null");
    }
    fprintf(f, ",\n  \"sustained\": %s,\n  \"drain_s\": %.1f,\n", sustained ? "true" : "false",
            drain);
    if (!observable)
        fprintf(f, "  \"sustained_unobservable\": \"no operation was answered in 3 windows "
                   "between the trigger's end and the storm's: no log holds the service time "
                   "that would show the trigger back\",\n");
    if (mech)
        fprintf(f, "  \"mechanism\": \"%s\",\n", mech);
    else
        fprintf(f, "  \"mechanism\": null,\n");
    fprintf(f, "  \"mechanism_means\": {");
    put_means(f, "before", before);
    fputs(", ", f);
    put_means(f, "during", during);
    fputs(", ", f);
    put_means(f, "after", after);
    fprintf(f, "},\n  \"failures_baseline_per_window\": %.3f,\n  \"failures_threshold\": %.3f,\n",
            base, th);
    fprintf(f, "  \"failures_per_window\": [");
    for (size_t i = 0; i < S.nwin; i++)
        fprintf(f, "%s%u", i ? "," : "", fails(&S.win[i]));
    fprintf(f, "],\n  \"retries_per_window\": [");
    for (size_t i = 0; i < S.nwin; i++)
        fprintf(f, "%s%u", i ? "," : "", S.win[i].retries);
    fprintf(f, "],\n");
    fprintf(f, "  \"throughput_per_s\": {\"before\": %.3f, \"during\": %.3f, \"after\": %.3f},\n",
            before.ok / WIN_S, during.ok / WIN_S, after.ok / WIN_S);
    static const char *pol[] = {"none", "immediate", "backoff"};
    fprintf(f, "  \"model\": {\"workers\": %d, \"max_conns\": %d, \"session_rate\": %.2f, "
               "\"hosts\": %d, \"ldaps_share\": %.2f, \"client_timeout_s\": %.1f, "
               "\"retry_policy\": \"%s\", \"keep_tls_session\": %s, \"max_attempts\": %d},\n",
            P->workers, P->max_conns, P->sess_rate, P->hosts, P->ldaps_share, P->timeout_s,
            pol[P->policy], P->keep_session ? "true" : "false", P->max_attempts);
    const counts *C = &S.C;
    double T = (double)S.end / 1e9;
    fprintf(f, "  \"counts\": {\"connections\": %llu, \"ldaps\": %llu, \"tls_lines\": %llu, "
               "\"refused\": %llu, \"bind\": %llu, \"srch\": %llu, \"srch_unindexed\": %llu, "
               "\"mod\": %llu, \"add\": %llu, \"unbind\": %llu, \"abandon\": %llu, "
               "\"results\": %llu, \"results_unindexed\": %llu, \"results_err0\": %llu, \"results_err51\": %llu, "
               "\"no_result\": %llu, \"close_U1\": %llu, \"close_B1\": %llu, \"close_A1\": %llu, "
               "\"full_handshakes\": %llu, \"resumed_handshakes\": %llu, "
               "\"handshakes_incomplete\": %llu, \"retries\": %llu, \"timeouts\": %llu, "
               "\"sessions\": %llu, \"sessions_failed\": %llu, \"events\": %llu, "
               "\"mean_etime_err0_s\": %.9f, \"littles_L\": %.6f, \"littles_lambda\": %.6f, "
               "\"littles_W\": %.9f, \"utilisation_before\": %.4f}\n}\n",
            (unsigned long long)C->conns, (unsigned long long)C->ldaps,
            (unsigned long long)C->tls_lines, (unsigned long long)C->refused,
            (unsigned long long)C->ops[OP_BIND],
            (unsigned long long)(C->ops[OP_SRCH] + C->ops[OP_SRCHU]),
            (unsigned long long)C->ops[OP_SRCHU], (unsigned long long)C->ops[OP_MOD],
            (unsigned long long)C->ops[OP_ADD], (unsigned long long)C->unbinds,
            (unsigned long long)C->abandons, (unsigned long long)C->results,
            (unsigned long long)C->res_unindexed,
            (unsigned long long)C->res_err0, (unsigned long long)C->res_err51,
            (unsigned long long)C->no_result, (unsigned long long)C->closes[CL_U1],
            (unsigned long long)C->closes[CL_B1], (unsigned long long)C->closes[CL_A1],
            (unsigned long long)C->full_hs, (unsigned long long)C->resumed_hs,
            (unsigned long long)C->hs_incomplete, (unsigned long long)C->retries,
            (unsigned long long)C->timeouts, (unsigned long long)C->sessions,
            (unsigned long long)C->sess_failed, (unsigned long long)C->events,
            C->res_err0 ? C->sum_etime_res / (double)C->res_err0 : 0.0, C->area_in_system / T,
            (double)C->arrivals_in_system / T, C->sum_sojourn / (double)C->arrivals_in_system,
            before.work / WIN_S / P->workers);
    return fclose(f) ? -1 : 0;
}
