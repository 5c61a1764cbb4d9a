/*
 * sim_clients.c - the incident lab's clients and triggers. Sessions arrive as
 * a Poisson process (thinned for the rising load) from a population of hosts;
 * each connects (LDAPS for the hosts that use it, offering the TLS session it
 * holds), binds, runs a few searches and writes, and unbinds. A client waits
 * for one answer at a time; past its timeout it gives up (ABANDON then hang
 * up, or just hang up), and retries the whole session by its policy: none,
 * immediately, or with exponential backoff, keeping or dropping its TLS
 * session. The triggers: a batch client of unindexed searches, a new heavy
 * client, a flush of the server's session cache, slow storage (sim_server.c
 * multiplies the work it starts), a slow ramp of the arrival rate.
 */
#include <math.h>
#include <stdlib.h>

#include "satscope/base.h"
#include "sim.h"

static uint32_t sess_gen_next = 1;

static double rate_mult(uint64_t t)
{
    if (S.P.kind != K_RISING)
        return 1.0;
    double at = S.P.trig_at_s, len = S.P.trig_len_s, x = (double)t / 1e9;
    if (x < at || x >= at + len)
        return 1.0;
    return 1.0 + (S.P.ramp_peak - 1.0) * (x - at) / len;
}

uint64_t cl_service(int op)
{
    const lab_params *P = &S.P;
    double ms;
    switch (op) {
    case OP_BIND: ms = sim_lognorm(P->c_bind, P->sigma); break;
    case OP_SRCH: ms = sim_lognorm(P->c_srch, P->sigma); break;
    case OP_SRCHU: ms = P->c_unidx_lo + (P->c_unidx_hi - P->c_unidx_lo) * sim_urand(); break;
    case OP_MOD: ms = sim_lognorm(P->c_mod, P->sigma); break;
    case OP_ADD: ms = sim_lognorm(P->c_add, P->sigma); break;
    default: ms = 0.1; break;
    }
    return (uint64_t)(ms * (double)MS) + 1000;
}

static uint32_t new_session(uint32_t h, int role)
{
    if (SAT_GROW(S.sessions, S.csess, S.nsess + 1) != SAT_OK)
        exit(3);
    sess *s = &S.sessions[S.nsess];
    *s = (sess){0};
    s->host = h;
    s->role = (uint8_t)role;
    s->conn = NONE32;
    s->t_first = S.now;
    s->user = role == ROLE_USER ? sim_irand((uint32_t)S.P.users) : 0;
    int n = 0;
    s->ops[n++] = OP_BIND;
    if (role == ROLE_BATCH) {
        s->ops[n++] = OP_SRCHU;
    } else if (role == ROLE_HEAVY) {
        for (int i = 0; i < 15; i++)
            s->ops[n++] = OP_SRCH;
    } else {
        s->ops[n++] = OP_SRCH;
        while (n < 8 && sim_chance(0.6))
            s->ops[n++] = OP_SRCH;
        if (sim_chance(0.25))
            s->ops[n++] = OP_MOD;
        if (sim_chance(0.05))
            s->ops[n++] = OP_ADD;
    }
    s->ops[n++] = OP_UNBIND;
    s->nops = (uint8_t)n;
    S.C.sessions++;
    return (uint32_t)S.nsess++;
}

static double timeout_of(const sess *s)
{
    return s->role == ROLE_BATCH ? 600.0 : S.P.timeout_s;
}

/* The client gave up on session s's attempt: retry it by its policy. */
static void on_failure(uint32_t si)
{
    sess *s = &S.sessions[si];
    host *h = &S.hosts[s->host];
    if (!S.P.keep_session)
        h->sess_gen = 0; /* a new TLS context: the next handshake is a full one */
    if (s->role == ROLE_BATCH) {
        /* the batch job runner tries again a second later until its window ends */
        if ((double)S.now / 1e9 < S.P.trig_at_s + S.P.trig_len_s)
            sim_push(S.now + NS, EV_ATTEMPT, si);
        return;
    }
    int pol = h->policy;
    /* backoff clients give up after 3 attempts, impatient ones after max_attempts */
    uint32_t cap = pol == R_BACKOFF ? 3u : (uint32_t)S.P.max_attempts;
    if (pol == R_NONE || s->attempts >= cap) {
        s->failed = 1;
        S.C.sess_failed++;
        return;
    }
    double d = pol == R_IMMEDIATE ? 0.05 * sim_urand()
                                  : S.P.backoff_s * pow(2.0, (double)s->attempts - 1) *
                                        (0.5 + sim_urand());
    sim_push(S.now + (uint64_t)(d * 1e9), EV_ATTEMPT, si);
}

static void maybe_close(uint32_t ci)
{
    conn *c = &S.conns[ci];
    if (c->gone && c->outstanding == 0 && c->open) {
        w_closed(ci, c->close_code);
        S.C.closes[c->close_code]++;
        sim_conn_release(ci);
    }
}

static void attempt(uint32_t si)
{
    sess *s = &S.sessions[si];
    host *h = &S.hosts[s->host];
    window *wn = sim_win(S.now);
    s->attempts++;
    /* the batch runner's own re-tries are its load, not the population's retries */
    if (s->attempts > 1 && s->role != ROLE_BATCH) {
        wn->retries++;
        S.C.retries++;
    }
    int ci = sim_conn_open(si);
    if (ci < 0) {
        wn->fail_refused++;
        S.C.refused++;
        wpcap_refused(si);
        on_failure(si);
        return;
    }
    conn *c = &S.conns[ci];
    s->conn = (uint32_t)ci;
    s->next = 0;
    c->ldaps = h->ldaps;
    wn->conn_opens++;
    S.C.conns++;
    if (!c->ldaps) {
        w_connect((uint32_t)ci);
        sim_push(S.now + 500 * US, EV_SEND, (uint32_t)ci);
        return;
    }
    S.C.ldaps++;
    /* the flush's extra load: each host's first connection after it */
    if (h->affected && !h->refreshed) {
        h->refreshed = 1;
        if (++S.n_refreshed == S.refreshed_goal)
            S.refreshed_at = S.now;
    }
    c->offered = h->sess_gen != 0;
    c->sid_offered = h->sess_gen;
    c->full = !(c->offered && sim_session_valid(h));
    w_connect((uint32_t)ci);
    const lab_params *P = &S.P;
    double ms = c->full ? P->c_full_lo + (P->c_full_hi - P->c_full_lo) * sim_urand() : P->c_resumed;
    uint32_t j = sim_new_job((uint32_t)ci, OP_HS, -1, (uint64_t)(ms * (double)MS));
    sim_submit(j);
    c->outstanding++;
    c->cur_job = j;
    c->deadline = S.now + (uint64_t)(timeout_of(s) * 1e9);
    sim_push(c->deadline, EV_TIMEOUT, (uint32_t)ci);
}

static void send_next(uint32_t ci)
{
    conn *c = &S.conns[ci];
    if (c->gone)
        return;
    sess *s = &S.sessions[c->sess];
    int op = s->ops[s->next];
    if (s->role == ROLE_BATCH && op == OP_SRCHU &&
        S.now >= (uint64_t)((S.P.trig_at_s + S.P.trig_len_s) * 1e9))
        op = OP_UNBIND;
    if (op == OP_UNBIND) {
        w_unbind(ci, c->opnum++);
        S.C.unbinds++;
        c->gone = 1;
        c->close_code = CL_U1;
        s->done = 1;
        wpcap_closed(ci, 1);
        maybe_close(ci);
        return;
    }
    uint32_t j = sim_new_job(ci, op, c->opnum++, cl_service(op));
    job *jb = &S.jobs[j];
    jb->retry = s->attempts > 1;
    if (s->role != ROLE_USER) {
        jb->trig = 1;
        if (!S.trig_first)
            S.trig_first = S.now;
        if (S.now > S.trig_last)
            S.trig_last = S.now;
    }
    S.C.ops[op]++;
    w_request(ci, j);
    if (sim_submit(j) < 0) {
        /* err=51: the client hangs up and counts it a failure */
        w_result(ci, j);
        S.C.results++;
        S.C.res_err51++;
        sim_win(S.now)->fail_busy++;
        c->gone = 1;
        c->close_code = CL_B1;
        wpcap_closed(ci, 1);
        maybe_close(ci);
        on_failure(c->sess);
        return;
    }
    c->outstanding++;
    c->cur_job = j;
    c->deadline = S.now + (uint64_t)(timeout_of(s) * 1e9);
    sim_push(c->deadline, EV_TIMEOUT, ci);
}

static void timed_out(uint32_t ci)
{
    conn *c = &S.conns[ci];
    if (c->gone || c->cur_job == NONE32 || c->deadline != S.now)
        return;
    job *jb = &S.jobs[c->cur_job];
    window *wn = sim_win(S.now);
    S.C.timeouts++;
    if (jb->op == OP_HS) {
        wn->fail_hs++;
        c->close_code = CL_B1;
    } else {
        wn->fail_timeout++;
        if (sim_chance(S.P.p_abandon)) {
            w_abandon(ci, c->opnum++, jb->opnum);
            S.C.abandons++;
            jb->abandoned = 1;
            c->close_code = CL_A1;
        } else {
            c->close_code = CL_B1;
        }
    }
    c->gone = 1;
    c->cur_job = NONE32;
    wpcap_closed(ci, 1);
    maybe_close(ci);
    on_failure(c->sess);
}

void cl_job_finished(uint32_t j)
{
    job *jb = &S.jobs[j];
    uint32_t ci = jb->conn;
    conn *c = &S.conns[ci];
    sess *s = &S.sessions[c->sess];
    host *h = &S.hosts[s->host];
    window *wn = sim_win(S.now);
    c->outstanding--;
    if (jb->trig && S.now > S.trig_last)
        S.trig_last = S.now;
    int waiting = !c->gone && c->cur_job == j;
    if (jb->op == OP_HS && jb->abandoned) {
        S.C.hs_incomplete++;
        maybe_close(ci);
        return;
    }
    if (jb->op == OP_HS) {
        if (c->full) {
            wn->full_hs++;
            S.C.full_hs++;
        } else {
            wn->resumed_hs++;
            S.C.resumed_hs++;
        }
        jb->noresult = 1;
        if (waiting) {
            c->hs_done = 1;
            if (c->full) {
                h->sess_gen = sess_gen_next++;
                h->sess_t = (int64_t)S.now;
            }
            S.C.tls_lines++;
            w_tls(ci);
            wpcap_hs_done(ci);
            c->cur_job = NONE32;
            sim_push(S.now + 1 * MS, EV_SEND, ci);
        } else {
            S.C.hs_incomplete++;
        }
        maybe_close(ci);
        return;
    }
    if (jb->abandoned) {
        jb->noresult = 1;
        S.C.no_result++;
    } else {
        w_result(ci, j);
        S.C.results++;
        S.C.res_err0++;
        S.C.res_unindexed += jb->op == OP_SRCHU;
        S.C.sum_etime_res += (double)(jb->t_done - jb->t_arr) / 1e9;
        wn->ops_ok++;
    }
    if (waiting) {
        c->cur_job = NONE32;
        if (!(s->role == ROLE_BATCH && s->ops[s->next] == OP_SRCHU))
            s->next++;
        double think = s->role == ROLE_BATCH ? 0.05 : s->role == ROLE_HEAVY ? 0.005
                                                                             : sim_exp(S.P.think_s);
        sim_push(S.now + (uint64_t)(think * 1e9), EV_SEND, ci);
    }
    maybe_close(ci);
}

static void trigger(void)
{
    const lab_params *P = &S.P;
    switch (P->kind) {
    case K_UNINDEXED:
        for (int i = 0; i < P->batch_conns; i++)
            sim_push(S.now + (uint64_t)i * 2 * NS, EV_ATTEMPT, new_session(S.batch_host, ROLE_BATCH));
        break;
    case K_HEAVY:
        sim_push(S.now, EV_HEAVY, 0);
        break;
    case K_FLUSH:
        for (uint32_t i = 0; i < S.nhosts; i++)
            if (S.hosts[i].ldaps && sim_session_valid(&S.hosts[i])) {
                S.hosts[i].affected = 1;
                S.n_affected++;
            }
        S.refreshed_goal = (uint32_t)ceil(0.9 * S.n_affected);
        S.flush_t = (int64_t)S.now;
        break;
    default:
        break;
    }
}

void cl_event(int type, uint32_t idx)
{
    switch (type) {
    case EV_ARRIVAL: {
        /* thinning: candidates at the peak rate, kept with the current share */
        double peak = S.P.kind == K_RISING ? S.P.ramp_peak : 1.0;
        if (sim_chance(rate_mult(S.now) / peak))
            sim_push(S.now, EV_ATTEMPT, new_session(sim_irand(S.nhosts), ROLE_USER));
        sim_push(S.now + (uint64_t)(sim_exp(1.0 / (S.P.sess_rate * peak)) * 1e9), EV_ARRIVAL, 0);
        break;
    }
    case EV_ATTEMPT: attempt(idx); break;
    case EV_SEND: send_next(idx); break;
    case EV_TIMEOUT: timed_out(idx); break;
    case EV_TRIGGER: trigger(); break;
    case EV_HEAVY:
        if ((double)S.now / 1e9 < S.P.trig_at_s + S.P.trig_len_s) {
            sim_push(S.now, EV_ATTEMPT, new_session(S.heavy_host, ROLE_HEAVY));
            sim_push(S.now + (uint64_t)(sim_exp(1.0 / S.P.heavy_rate) * 1e9), EV_HEAVY, 0);
        }
        break;
    default: break;
    }
}

void cl_init(void)
{
    const lab_params *P = &S.P;
    S.nhosts = (uint32_t)P->hosts;
    S.hosts = calloc((size_t)S.nhosts + 2, sizeof *S.hosts);
    if (!S.hosts)
        exit(3);
    for (uint32_t i = 0; i < S.nhosts; i++) {
        host *h = &S.hosts[i];
        h->ip = (10u << 24) | (40u << 16) | ((i / 250) << 8) | (i % 250 + 1);
        h->ldaps = (uint8_t)sim_chance(P->ldaps_share);
        h->policy = (uint8_t)(sim_chance(0.9) ? P->policy : R_NONE);
        h->role = ROLE_USER;
        /* a warm cache: the session each host holds was made some time ago */
        if (h->ldaps) {
            h->sess_gen = sess_gen_next++;
            h->sess_t = -(int64_t)(sim_urand() * P->sess_life_s * 1e9);
        }
    }
    S.batch_host = S.nhosts;
    S.hosts[S.batch_host] = (host){.ip = (10u << 24) | (30u << 16) | (4u << 8) | 21, .role = ROLE_BATCH};
    S.heavy_host = S.nhosts + 1;
    S.hosts[S.heavy_host] = (host){.ip = (10u << 24) | (60u << 16) | 9, .role = ROLE_HEAVY,
                                   .policy = (uint8_t)P->policy};
    if (P->kind == K_SLOW) {
        S.slow_from = (uint64_t)(P->trig_at_s * 1e9);
        S.slow_to = (uint64_t)((P->trig_at_s + P->trig_len_s) * 1e9);
    }
    sim_push((uint64_t)(sim_exp(1.0 / P->sess_rate) * 1e9), EV_ARRIVAL, 0);
    if (P->kind != K_NONE)
        sim_push((uint64_t)(P->trig_at_s * 1e9), EV_TRIGGER, 0);
}
