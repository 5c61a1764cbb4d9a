/*
 * sim.h - the incident lab's shared model: a directory server (W workers, one
 * FIFO queue, a connection table, a TLS session cache), its clients (sessions
 * from a population of hosts, timeouts, retry policies) and the trigger of the
 * incident, plus the writers of what the server would have left behind (a 389
 * access log, an OpenLDAP stats log, a capture of the TLS handshakes) and the
 * measurement of the truth (truth.json). Times are nanoseconds from the start
 * of the simulation; the logs add the wall-clock start (LAB_T0_UNIX).
 */
#ifndef SAT_LAB_SIM_H
#define SAT_LAB_SIM_H

#include <stdint.h>
#include <stdio.h>

#define NS 1000000000ULL
#define MS 1000000ULL
#define US 1000ULL
#define LAB_T0_UNIX 1749477600LL /* 2025-06-09T14:00:00Z */
#define NONE32 0xffffffffu
#define WIN_S 10                 /* the truth's window (the contract's window_s) */

enum { K_UNINDEXED, K_HEAVY, K_FLUSH, K_SLOW, K_RISING, K_NONE, K_N };
enum { OP_BIND, OP_SRCH, OP_SRCHU, OP_MOD, OP_ADD, OP_UNBIND, OP_HS, OP_N };
enum { R_NONE, R_IMMEDIATE, R_BACKOFF };          /* retry policies */
enum { ROLE_USER, ROLE_BATCH, ROLE_HEAVY };        /* who opened a session */
enum { CL_U1, CL_B1, CL_A1 };                      /* close codes written */
enum { EV_ARRIVAL, EV_ATTEMPT, EV_SEND, EV_TIMEOUT, EV_DONE, EV_TRIGGER, EV_HEAVY, EV_END };

typedef struct {
    int kind, minutes, workers, max_conns, qbusy, hosts, users, max_attempts, batch_conns;
    int policy, keep_session;            /* retry policy of the user population */
    uint64_t seed;
    double sess_rate, ldaps_share, timeout_s, p_abandon, backoff_s, think_s;
    /* service times: medians (ms) and one log-normal sigma; full/resumed handshake */
    double c_bind, c_srch, c_mod, c_add, sigma, c_unidx_lo, c_unidx_hi;
    double c_full_lo, c_full_hi, c_resumed, c_skip, sess_life_s;
    /* the trigger: start, length, and its size */
    double trig_at_s, trig_len_s, slow_factor, heavy_rate, ramp_peak;
    int pcap;
    uint64_t max_events;
} lab_params;

typedef struct {
    uint32_t ip;
    uint32_t sess_gen;      /* the session id the client holds (0: none) */
    int64_t sess_t;         /* when the server created it (cache entry; < 0: before the run) */
    uint8_t role, policy, ldaps, affected, refreshed;
} host;

typedef struct {
    uint32_t host, user, conn, attempts;
    uint8_t role, nops, next, done, failed;
    uint8_t ops[24];
    uint64_t t_first;
} sess;

typedef struct {
    uint32_t id, sess, cur_job, tcp_c, tcp_s;
    int fd, opnum, outstanding, close_code;
    uint16_t port;
    uint32_t sid_offered;
    uint8_t ldaps, offered, full, gone, open, hs_done, fin_c, fin_s;
    uint64_t deadline;
} conn;

typedef struct {
    uint32_t conn;
    int32_t opnum;
    uint8_t op, abandoned, trig, retry, err, noresult;
    uint64_t t_arr, t_start, t_done, svc;
} job;

/* per-window measurements (truth) */
typedef struct {
    uint32_t fail_timeout, fail_hs, fail_busy, fail_refused;
    uint32_t retries, conn_opens, full_hs, resumed_hs, ops_in, ops_ok, trig_jobs;
    double work_in, trig_work;
} window;

/* what the run counted, to check the logs against (sim_truth.c) */
typedef struct {
    uint64_t conns, ldaps, tls_lines, refused, ops[OP_N], results, res_err0, res_err51;
    uint64_t abandons, unbinds, closes[3], no_result, jobs, events, sessions, sess_failed;
    uint64_t res_unindexed, full_hs, resumed_hs, hs_incomplete, retries, timeouts;
    double sum_etime_res, area_in_system, sum_sojourn;
    uint64_t arrivals_in_system;
} counts;

typedef struct {
    lab_params P;
    uint64_t now, end;
    host *hosts; uint32_t nhosts, heavy_host, batch_host;
    sess *sessions; size_t nsess, csess;
    conn *conns; size_t nconns, cconns;
    job *jobs; size_t njobs, cjobs;
    uint32_t *queue; size_t qhead, qlen, qcap;
    uint32_t *busy;             /* job per worker or NONE32 */
    uint8_t *fd_used;
    int open_conns, in_system;
    uint64_t last_t;
    window *win; size_t nwin;
    counts C;
    /* trigger bookkeeping */
    uint64_t trig_first, trig_last, slow_from, slow_to;
    int64_t flush_t;            /* the session cache was emptied then (INT64_MIN: never) */
    uint32_t n_affected, n_refreshed, refreshed_goal;
    uint64_t refreshed_at;
    int trig_seen;
    FILE *f389, *fol, *fpcap;
} lab_state;

extern lab_state S;

/* sim_server.c: random numbers, events, the server */
double sim_urand(void);
uint32_t sim_irand(uint32_t n);
int sim_chance(double p);
double sim_exp(double mean);
double sim_lognorm(double median, double sigma);
void sim_push(uint64_t t, int type, uint32_t idx);
int sim_pop(uint64_t *t, int *type, uint32_t *idx);
uint32_t sim_new_job(uint32_t c, int op, int32_t opnum, uint64_t svc);
int sim_submit(uint32_t j);         /* 0 queued, -1 busy (err=51 answered) */
void sim_job_done(uint32_t worker);
int sim_conn_open(uint32_t s);      /* conn index, or -1 refused */
void sim_conn_release(uint32_t c);  /* the server closes it once nothing is left */
void sim_advance(uint64_t t);
window *sim_win(uint64_t t);
int sim_session_valid(const host *h);

/* sim_clients.c: the population, the sessions, the triggers */
void cl_init(void);
void cl_event(int type, uint32_t idx);
void cl_job_finished(uint32_t j);   /* the server finished job j */
uint64_t cl_service(int op);

/* sim_write389.c / sim_writeopenldap.c / sim_pcap.c */
int w389_open(const char *path);
int wol_open(const char *path);
int wpcap_open(const char *path);
void w_close_all(void);
void w_connect(uint32_t c);
void w_tls(uint32_t c);
void w_request(uint32_t c, uint32_t j);
void w_result(uint32_t c, uint32_t j);
void w_abandon(uint32_t c, int32_t opnum, int32_t target);
void w_unbind(uint32_t c, int32_t opnum);
void w_closed(uint32_t c, int code);
void w389_connect(uint32_t c); void w389_tls(uint32_t c); void w389_request(uint32_t c, uint32_t j);
void w389_result(uint32_t c, uint32_t j); void w389_abandon(uint32_t c, int32_t o, int32_t t);
void w389_unbind(uint32_t c, int32_t o); void w389_closed(uint32_t c, int code);
void wol_connect(uint32_t c); void wol_tls(uint32_t c); void wol_request(uint32_t c, uint32_t j);
void wol_result(uint32_t c, uint32_t j); void wol_abandon(uint32_t c, int32_t o, int32_t t);
void wol_unbind(uint32_t c, int32_t o); void wol_closed(uint32_t c, int code);
void wpcap_connect(uint32_t c);
void wpcap_refused(uint32_t s);
void wpcap_hs_done(uint32_t c);
void wpcap_closed(uint32_t c, int by_client);
const char *lab_ip(uint32_t ip, char *buf);
void lab_user_dn(uint32_t user, uint8_t role, char *buf, size_t n);

/* sim_truth.c */
int truth_write(const char *dir, const char *incident);
int truth_check(const char *dir);
extern const char *KIND_NAME[K_N];

#endif
