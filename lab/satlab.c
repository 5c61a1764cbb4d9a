/*
 * satlab.c - the incident lab's command: runs one simulated incident of a
 * given kind and seed (sim_*.c) and writes what the server left behind (a 389
 * access log, an OpenLDAP stats log, a capture of port 636) and the truth
 * measured in the simulation (truth.json), or checks a written incident
 * against itself (--check). lab/README.md describes the model.
 *
 *   satlab --kind KIND --seed N --out DIR [--minutes M] [--no-pcap]
 *   satlab --check DIR
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim.h"

lab_state S;
void sim_seed(uint64_t s);

static void usage(FILE *f)
{
    fprintf(f, "usage: satlab --kind KIND --seed N --out DIR [--minutes M] [--no-pcap]\n"
               "       satlab --check DIR\n"
               "KIND: unindexed_batch heavy_client session_flush slow_storage rising_load none\n");
}

static void defaults(lab_params *P)
{
    *P = (lab_params){0};
    P->minutes = 30;
    P->workers = 2;
    P->max_conns = 512;
    P->qbusy = 200;
    P->hosts = 800;
    P->users = 20000;
    P->max_attempts = 6;
    P->batch_conns = 3;
    P->sess_rate = 8.5;
    P->ldaps_share = 0.8;
    P->timeout_s = 10;
    P->p_abandon = 0.5;
    P->backoff_s = 2;
    P->think_s = 0.05;
    P->c_bind = 15;
    P->c_srch = 40;
    P->c_mod = 60;
    P->c_add = 80;
    P->sigma = 0.5;
    P->c_unidx_lo = 3000;
    P->c_unidx_hi = 9000;
    P->c_full_lo = 300;
    P->c_full_hi = 500;
    P->c_resumed = 4;
    P->c_skip = 0.05;
    P->sess_life_s = 3600;
    P->slow_factor = 2.2;
    P->heavy_rate = 1.5;
    P->ramp_peak = 1.9;
    P->pcap = 1;
    P->max_events = 20000000;
}

/* the kind's trigger and the seed's retry policy */
static void for_kind(lab_params *P)
{
    double span = P->minutes * 60.0;
    P->trig_at_s = span / 3 + (double)(P->seed * 37 % 60);
    switch (P->kind) {
    case K_UNINDEXED: P->trig_len_s = 240; break;
    case K_HEAVY: P->trig_len_s = 240; break;
    case K_SLOW: P->trig_len_s = 180; break;
    case K_RISING:
        P->trig_at_s = span / 6;
        P->trig_len_s = span / 2;
        break;
    default: P->trig_len_s = 0; break;
    }
    if (P->trig_at_s + P->trig_len_s > span * 0.9)
        P->trig_len_s = span * 0.9 - P->trig_at_s;
    /* immediate retries on a fresh TLS context (metastable), backoff keeping
     * the session (recovers), or no retries at all */
    switch ((P->seed + (uint64_t)P->kind) % 3) {
    case 0: P->policy = R_IMMEDIATE; P->keep_session = 0; break;
    case 1: P->policy = R_BACKOFF; P->keep_session = 1; break;
    default: P->policy = R_NONE; P->keep_session = 1; break;
    }
}

/* mkdir -p */
static int make_dirs(const char *dir)
{
    char p[4096];
    if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *q = p + 1; *q; q++)
        if (*q == '/') {
            *q = 0;
            if (mkdir(p, 0755) && errno != EEXIST)
                return -1;
            *q = '/';
        }
    return mkdir(p, 0755) && errno != EEXIST ? -1 : 0;
}

static int run(const char *dir)
{
    lab_params *P = &S.P;
    char path[4096];
    if (make_dirs(dir)) {
        fprintf(stderr, "satlab: %s: %s\n", dir, strerror(errno));
        return 3;
    }
    snprintf(path, sizeof path, "%s/access", dir);
    if (w389_open(path)) goto io;
    snprintf(path, sizeof path, "%s/slapd-stats.log", dir);
    if (wol_open(path)) goto io;
    if (P->pcap) {
        snprintf(path, sizeof path, "%s/handshakes.pcap", dir);
        if (wpcap_open(path)) goto io;
    }
    sim_seed(P->seed * 0x9e3779b97f4a7c15ULL + (uint64_t)P->kind);
    S.end = (uint64_t)P->minutes * 60 * NS;
    S.nwin = (size_t)(S.end / (WIN_S * NS)) + 1;
    S.win = calloc(S.nwin, sizeof *S.win);
    S.busy = malloc((size_t)P->workers * sizeof *S.busy);
    S.fd_used = calloc((size_t)P->max_conns + 1, 1);
    if (!S.win || !S.busy || !S.fd_used)
        return 3;
    for (int w = 0; w < P->workers; w++)
        S.busy[w] = NONE32;
    S.flush_t = INT64_MIN;
    cl_init();
    uint64_t t;
    int type;
    uint32_t idx;
    while (sim_pop(&t, &type, &idx) && t < S.end) {
        if (++S.C.events > P->max_events) {
            fprintf(stderr, "satlab: event cap %llu reached at %.1f s\n",
                    (unsigned long long)P->max_events, (double)t / 1e9);
            S.end = t;
            break;
        }
        sim_advance(t);
        if (type == EV_DONE)
            sim_job_done(idx);
        else
            cl_event(type, idx);
    }
    sim_advance(S.end);
    /* jobs still in the server count until the end (Little's law on the run) */
    for (int w = 0; w < P->workers; w++)
        if (S.busy[w] != NONE32)
            S.C.sum_sojourn += (double)(S.end - S.jobs[S.busy[w]].t_arr) / 1e9;
    for (size_t i = 0; i < S.qlen; i++)
        S.C.sum_sojourn += (double)(S.end - S.jobs[S.queue[S.qhead + i]].t_arr) / 1e9;
    int bad = (S.f389 && ferror(S.f389)) || (S.fol && ferror(S.fol)) || (S.fpcap && ferror(S.fpcap));
    w_close_all();
    if (bad)
        goto io;
    char name[128];
    snprintf(name, sizeof name, "%s-seed%llu", KIND_NAME[P->kind], (unsigned long long)P->seed);
    for (char *p = name; *p; p++)
        if (*p == '_')
            *p = '-';
    if (truth_write(dir, name))
        goto io;
    fprintf(stderr, "satlab: %s: %llu events, %llu connections, %llu results, %llu timeouts, "
                    "%llu retries, %llu refused\n", name, (unsigned long long)S.C.events,
            (unsigned long long)S.C.conns, (unsigned long long)S.C.results,
            (unsigned long long)S.C.timeouts, (unsigned long long)S.C.retries,
            (unsigned long long)S.C.refused);
    return 0;
io:
    fprintf(stderr, "satlab: writing in %s: %s\n", dir, strerror(errno));
    return 3;
}

int main(int argc, char **argv)
{
    lab_params *P = &S.P;
    defaults(P);
    const char *out = NULL, *check = NULL;
    int kind = -1, have_seed = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        if (!strcmp(a, "--no-pcap")) { P->pcap = 0; continue; }
        if (!v) { fprintf(stderr, "satlab: %s needs a value\n", a); return 2; }
        i++;
        char *e = NULL;
        if (!strcmp(a, "--kind")) {
            for (int k = 0; k < K_N; k++)
                if (!strcmp(v, KIND_NAME[k]))
                    kind = k;
            if (kind < 0) { fprintf(stderr, "satlab: unknown kind %s\n", v); usage(stderr); return 2; }
        } else if (!strcmp(a, "--seed")) {
            P->seed = strtoull(v, &e, 10);
            have_seed = 1;
            if (*e) { fprintf(stderr, "satlab: bad --seed %s\n", v); return 2; }
        } else if (!strcmp(a, "--minutes")) {
            long m = strtol(v, &e, 10);
            if (*e || m < 3 || m > 240) { fprintf(stderr, "satlab: --minutes wants 3..240\n"); return 2; }
            P->minutes = (int)m;
        } else if (!strcmp(a, "--out")) {
            out = v;
        } else if (!strcmp(a, "--check")) {
            check = v;
        } else {
            fprintf(stderr, "satlab: unknown option %s\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (check)
        return truth_check(check);
    if (kind < 0 || !have_seed || !out) {
        usage(stderr);
        return 2;
    }
    P->kind = kind;
    for_kind(P);
    return run(out);
}
