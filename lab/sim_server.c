/*
 * sim_server.c - the incident lab's event queue and server: the random numbers
 * and the (time, event) heap come from bench/gen_common.h (a seed gives the same
 * run everywhere); the server is W worker threads fed by ONE FIFO queue, so an
 * operation's wtime is its real wait in that queue and etime = wtime + service.
 * TLS handshakes are jobs on the same workers. The connection table holds at
 * most max_conns connections; a connection is released when the client has
 * left and nothing of it is queued or running. Every job entering or leaving
 * the server moves the number-in-system counter, integrated over time for the
 * Little's-law self-check.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/gen_common.h"
#include "sim.h"

double sim_urand(void) { return urand(); }
uint32_t sim_irand(uint32_t n) { return irand(n); }
int sim_chance(double p) { return chance(p); }
double sim_exp(double mean) { return -log(1.0 - urand()) * mean; }
double sim_lognorm(double median, double sigma)
{
    /* Box-Muller: one normal draw */
    double u1 = urand(), u2 = urand();
    double z = sqrt(-2.0 * log(1.0 - u1)) * cos(6.283185307179586 * u2);
    return median * exp(sigma * z);
}

/* An event is its type in the top 4 bits of the heap's actor field. */
void sim_push(uint64_t t, int type, uint32_t idx)
{
    if (idx >= (1u << 27)) {
        fprintf(stderr, "satlab: too many objects\n");
        exit(3);
    }
    hpush(t, ((uint32_t)type << 27) | idx);
}

int sim_pop(uint64_t *t, int *type, uint32_t *idx)
{
    if (!hn)
        return 0;
    hev e = hpop();
    *t = e.t;
    *type = (int)(e.a >> 27);
    *idx = e.a & ((1u << 27) - 1);
    return 1;
}

void sim_seed(uint64_t s);
void sim_seed(uint64_t s) { seed_rng(s); }

window *sim_win(uint64_t t)
{
    size_t w = (size_t)(t / (WIN_S * NS));
    return &S.win[w < S.nwin ? w : S.nwin - 1];
}

/* Time moves on: the number in the system is integrated up to t. */
void sim_advance(uint64_t t)
{
    if (t > S.last_t) {
        S.C.area_in_system += (double)S.in_system * (double)(t - S.last_t) / 1e9;
        S.last_t = t;
    }
    S.now = t;
}

int sim_session_valid(const host *h)
{
    return h->sess_gen && h->sess_t > S.flush_t &&
           (int64_t)S.now < h->sess_t + (int64_t)(S.P.sess_life_s * 1e9);
}

uint32_t sim_new_job(uint32_t c, int op, int32_t opnum, uint64_t svc)
{
    if (SAT_GROW(S.jobs, S.cjobs, S.njobs + 1) != SAT_OK)
        exit(3);
    job *j = &S.jobs[S.njobs];
    *j = (job){0};
    j->conn = c;
    j->op = (uint8_t)op;
    j->opnum = opnum;
    j->svc = svc;
    j->t_arr = S.now;
    return (uint32_t)S.njobs++;
}

static void start_job(uint32_t w, uint32_t j)
{
    job *jb = &S.jobs[j];
    jb->t_start = S.now;
    /* abandoned before a worker took it, or a handshake whose client has
     * hung up (the worker sees the closed socket): the worker only drops it */
    if (jb->abandoned || (jb->op == OP_HS && S.conns[jb->conn].gone)) {
        jb->svc = (uint64_t)(S.P.c_skip * MS);
        jb->abandoned = 1;
    }
    /* slow storage: work started in the window takes slow_factor times longer */
    if (S.P.kind == K_SLOW && S.now >= S.slow_from && S.now < S.slow_to) {
        jb->svc = (uint64_t)((double)jb->svc * S.P.slow_factor);
        jb->trig = 1;
    }
    S.busy[w] = j;
    sim_push(S.now + jb->svc, EV_DONE, w);
}

int sim_submit(uint32_t j)
{
    job *jb = &S.jobs[j];
    window *wn = sim_win(S.now);
    if (jb->op != OP_HS && S.qlen >= (size_t)S.P.qbusy) {
        /* the server answers at once that it is busy: no queue, no work */
        jb->err = 51;
        jb->t_start = jb->t_done = S.now;
        jb->svc = 20 * US;
        return -1;
    }
    S.in_system++;
    S.C.arrivals_in_system++;
    wn->ops_in++;
    wn->work_in += (double)jb->svc / 1e9;
    if (jb->trig) {
        wn->trig_jobs++;
        wn->trig_work += (double)jb->svc / 1e9;
    }
    for (int w = 0; w < S.P.workers; w++)
        if (S.busy[w] == NONE32) {
            start_job((uint32_t)w, j);
            return 0;
        }
    /* a flat array read from qhead; the read part is dropped now and then */
    if (S.qhead > 4096 && S.qhead > S.qlen) {
        memmove(S.queue, S.queue + S.qhead, S.qlen * sizeof *S.queue);
        S.qhead = 0;
    }
    if (SAT_GROW(S.queue, S.qcap, S.qhead + S.qlen + 1) != SAT_OK)
        exit(3);
    S.queue[S.qhead + S.qlen] = j;
    S.qlen++;
    return 0;
}

void sim_job_done(uint32_t w)
{
    uint32_t j = S.busy[w];
    job *jb = &S.jobs[j];
    jb->t_done = S.now;
    S.in_system--;
    S.C.sum_sojourn += (double)(jb->t_done - jb->t_arr) / 1e9;
    S.busy[w] = NONE32;
    if (S.qlen) {
        uint32_t nj = S.queue[S.qhead++];
        if (!--S.qlen)
            S.qhead = 0;
        start_job(w, nj);
    }
    cl_job_finished(j);
}

int sim_conn_open(uint32_t s)
{
    if (S.open_conns >= S.P.max_conns)
        return -1;
    if (SAT_GROW(S.conns, S.cconns, S.nconns + 1) != SAT_OK)
        exit(3);
    conn *c = &S.conns[S.nconns];
    *c = (conn){0};
    c->id = (uint32_t)S.nconns + 1;
    c->sess = s;
    c->cur_job = NONE32;
    int fd = 0;
    while (S.fd_used[fd])
        fd++;
    S.fd_used[fd] = 1;
    c->fd = 64 + fd;
    c->port = (uint16_t)(32768 + (c->id * 7919u) % 28000u);
    c->open = 1;
    S.open_conns++;
    return (int)S.nconns++;
}

void sim_conn_release(uint32_t ci)
{
    conn *c = &S.conns[ci];
    if (!c->open)
        return;
    c->open = 0;
    S.fd_used[c->fd - 64] = 0;
    S.open_conns--;
}
