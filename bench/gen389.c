/* gen389: a generator of large, realistic 389 Directory Server legacy access logs for
 * benchmarks and fixtures. Deterministic for a given seed and option set.
 *
 * The line formats follow the format strings of 389-ds-base 2.x (ldap/servers/slapd:
 * result.c, connection.c, daemon.c; checked against the strings of the 2.3.1 libslapd
 * and the real 3.1.1 log in ../shared/corpus/ldap): hi-res timestamps
 * `[dd/Mon/yyyy:HH:MM:SS.nnnnnnnnn +zzzz]`, `wtime= optime= etime=` with
 * etime = wtime + optime, `Disconnect - <reason> - <CODE>` closes (2.1+) or the older
 * `closed - U1` form (--legacy-close), low-res timestamps and integer etime (--lowres).
 *
 * The traffic is a discrete-event simulation: every connection is an actor with at most
 * one pending event in a time-ordered heap, so operations of different connections
 * interleave and a RESULT is usually not next to its request. An incident (by default
 * minutes 20-25 of every simulated hour) adds a storm of fully unindexed searches; the
 * queue wait (wtime) of every operation explodes, clients time out (ABANDON, A1 closes),
 * reconnect in a storm, and the server answers err=51/52/3 and closes with T2/B4.
 *
 * Output goes to stdout or -o FILE; a summary of what was generated (operation counts,
 * errors, notes, close codes) goes to stderr so a reader of the log can be checked.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NS 1000000000ULL
#define MS 1000000ULL
#define US 1000ULL

#include "gen_common.h"

/* log-uniform between lo and hi (ns): a heavy but bounded tail, cheap */
static uint64_t rlogu(double lo, double hi) { return (uint64_t)(lo * exp(urand() * log(hi / lo))); }

/* ---------- output buffer ---------- */
static FILE *out;
static char obuf[1 << 20];
static size_t olen;
static uint64_t bytes_out, lines_out;
static char line[8192];
static size_t ll;

static void oflush(void)
{
    if (olen && fwrite(obuf, 1, olen, out) != olen) {
        fprintf(stderr, "gen389: write error: %s\n", strerror(errno));
        exit(3);
    }
    olen = 0;
}
static void ls_(const char *s) { size_t n = strlen(s); memcpy(line + ll, s, n); ll += n; }
static void lc(char c) { line[ll++] = c; }
static void lu(uint64_t v)
{
    char t[24]; int n = 0;
    do { t[n++] = (char)('0' + v % 10); v /= 10; } while (v);
    while (n) line[ll++] = t[--n];
}
static void li(int64_t v) { if (v < 0) { lc('-'); v = -v; } lu((uint64_t)v); }
static void lpad(uint64_t v, int w)
{
    for (int i = w - 1; i >= 0; i--) { line[ll + (size_t)i] = (char)('0' + v % 10); v /= 10; }
    ll += (size_t)w;
}

/* ---------- options and clock ---------- */
static int opt_lowres, opt_legacy, opt_incident = 1;
static int tz_off_min;           /* printed offset, minutes east of UTC */
static double opt_rate = 1000;   /* target operations per second outside the incident */
static uint64_t t_start;         /* ns since epoch, UTC */
static uint64_t now;
static int inc_at_min = 20, inc_len_min = 5;
/* day-to-day changes for digest fixtures; the defaults change nothing (no extra random draw) */
static double opt_srch_scale = 1.0; /* --srch-scale: searches' optime multiplied */
static int opt_new_error;           /* --new-error: a share of MODs answered with this code */
static int opt_batch;               /* --batch-client: a new heavy client */
static const char *opt_host = "ldap01.example.com";

static const char *MON[12] = {"Jan","Feb","Mar","Apr","May","Jun","Jul","Aug","Sep","Oct","Nov","Dec"};
static int64_t cached_sec = -1;
static char cached_ts[40];
static size_t cached_len;

static void lts(uint64_t t)
{
    int64_t sec = (int64_t)(t / NS);
    if (sec != cached_sec) {
        time_t lt = (time_t)(sec + tz_off_min * 60);
        struct tm tm;
        gmtime_r(&lt, &tm);
        cached_len = (size_t)snprintf(cached_ts, sizeof cached_ts, "[%02d/%s/%04d:%02d:%02d:%02d",
                                      tm.tm_mday, MON[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour,
                                      tm.tm_min, tm.tm_sec);
        cached_sec = sec;
    }
    memcpy(line + ll, cached_ts, cached_len); ll += cached_len;
    if (!opt_lowres) { lc('.'); lpad(t % NS, 9); }
    lc(' '); int a = tz_off_min < 0 ? -tz_off_min : tz_off_min;
    lc(tz_off_min < 0 ? '-' : '+'); lpad((uint64_t)(a / 60), 2); lpad((uint64_t)(a % 60), 2);
    ls_("] ");
}
static void ldur(uint64_t d) /* seconds with 9 digits */
{
    lu(d / NS); lc('.'); lpad(d % NS, 9);
}

/* ---------- limits and statistics ---------- */
static uint64_t max_bytes, max_lines, max_dur;
static int done;
enum { OP_BIND, OP_SRCH, OP_MOD, OP_ADD, OP_DEL, OP_MODRDN, OP_CMP, OP_EXT, OP_ABANDON, OP_UNBIND, OP_AUTOBIND, OP_N };
static const char *OPNAME[OP_N] = {"BIND","SRCH","MOD","ADD","DEL","MODRDN","CMP","EXT","ABANDON","UNBIND","AUTOBIND"};
static const int OPTAG[OP_N] = {97, 101, 103, 105, 107, 109, 111, 120, 0, 0, 0};
static uint64_t st_ops[OP_N], st_results, st_err[128], st_notes[26], st_conn[4], st_close[16];
static uint64_t st_ssl_conns, st_starttls, st_sasl_binds, st_unfinished_abandoned;
enum { L_LDAP, L_LDAPS, L_LDAPI, L_STARTTLS };
static const char *LSTNAME[4] = {"LDAP", "LDAPS", "LDAPI", "StartTLS"};
enum { C_U1, C_B1, C_A1, C_T1, C_T2, C_B4, C_N };
static const char *CCODE[C_N] = {"U1", "B1", "A1", "T1", "T2", "B4"};

static void lend(void)
{
    lc('\n');
    if (olen + ll > sizeof obuf) oflush();
    memcpy(obuf + olen, line, ll); olen += ll;
    bytes_out += ll; lines_out++;
    ll = 0;
    if ((max_bytes && bytes_out >= max_bytes) || (max_lines && lines_out >= max_lines)) done = 1;
}

/* ---------- the directory: users, groups, clients ---------- */
static const char *FIRST[] = {"james","mary","robert","patricia","john","jennifer","michael","linda","david","elizabeth",
    "william","barbara","richard","susan","joseph","jessica","thomas","sarah","charles","karen","christopher","lisa",
    "daniel","nancy","matthew","betty","anthony","margaret","mark","sandra","donald","ashley","steven","kimberly",
    "paul","emily","andrew","donna","joshua","michelle","kenneth","carol","kevin","amanda","brian","melissa","george",
    "deborah","timothy","stephanie","ronald","rebecca","jason","sharon","edward","laura","jeffrey","cynthia","ryan","amy"};
static const char *LAST[] = {"smith","johnson","williams","brown","jones","garcia","miller","davis","rodriguez","martinez",
    "hernandez","lopez","gonzalez","wilson","anderson","thomas","taylor","moore","jackson","martin","lee","perez",
    "thompson","white","harris","sanchez","clark","ramirez","lewis","robinson","walker","young","allen","king","wright",
    "scott","torres","nguyen","hill","flores","green","adams","nelson","baker","hall","rivera","campbell","mitchell",
    "carter","roberts","gomez","phillips","evans","turner","diaz","parker","cruz","edwards","collins","reyes","stewart",
    "morris","morales","murphy","cook","rogers","gutierrez","ortiz","morgan","cooper","peterson","bailey","reed","kelly",
    "howard","ramos","kim","cox","ward","richardson","watson","brooks","chavez","wood","james","bennett","gray","mendoza",
    "ruiz","hughes","price","alvarez","castillo","sanders","patel","myers","long","ross","foster","jimenez"};
#define NFIRST (sizeof FIRST / sizeof FIRST[0])
#define NLAST (sizeof LAST / sizeof LAST[0])
static uint32_t nusers = 50000;
static double *zcdf;
static const char *SUFFIX = "dc=example,dc=com";

static void user_uid(uint32_t u)
{
    const char *f = FIRST[u % NFIRST], *l = LAST[(u / NFIRST) % NLAST];
    uint32_t n = u / (uint32_t)(NFIRST * NLAST);
    lc(f[0]); ls_(l); if (n) lu(n);
}
static void user_dn(uint32_t u) { ls_("uid="); user_uid(u); ls_(",ou=people,"); ls_(SUFFIX); }
static void user_mail(uint32_t u)
{
    const char *f = FIRST[u % NFIRST], *l = LAST[(u / NFIRST) % NLAST];
    uint32_t n = u / (uint32_t)(NFIRST * NLAST);
    ls_(f); lc('.'); ls_(l); if (n) lu(n); ls_("@example.com");
}
static void user_cn(uint32_t u)
{
    const char *f = FIRST[u % NFIRST], *l = LAST[(u / NFIRST) % NLAST];
    lc((char)(f[0] - 32)); ls_(f + 1); lc(' '); lc((char)(l[0] - 32)); ls_(l + 1);
}
static void zipf_init(double s)
{
    zcdf = malloc(sizeof *zcdf * nusers);
    if (!zcdf) { fprintf(stderr, "gen389: out of memory\n"); exit(3); }
    double acc = 0;
    for (uint32_t i = 0; i < nusers; i++) { acc += 1.0 / pow((double)(i + 1), s); zcdf[i] = acc; }
    for (uint32_t i = 0; i < nusers; i++) zcdf[i] /= acc;
}
/* a user drawn with Zipf-like popularity; ranks are scattered over the user ids */
static uint32_t zuser(void)
{
    double u = urand();
    uint32_t lo = 0, hi = nusers - 1;
    while (lo < hi) { uint32_t m = (lo + hi) / 2; if (zcdf[m] < u) lo = m + 1; else hi = m; }
    return (uint32_t)(((uint64_t)lo * 7919u + 13u) % nusers);
}

/* ---------- incident model ---------- */
/* severity 0..1 of the incident at time t: ramp up over the first minute of the window,
 * full for the middle, easing off during the last minute, then a two-minute recovery tail
 * (the reconnect storm drains) */
static double severity(uint64_t t)
{
    if (!opt_incident) return 0;
    double off = fmod((double)(t - t_start) / 1e9, 3600.0) - inc_at_min * 60.0;
    double len = inc_len_min * 60.0;
    if (off < 0) return 0;
    if (off < 60) return off / 60.0;
    if (off < len - 60) return 1.0;
    if (off < len) return 1.0 - 0.7 * (off - (len - 60)) / 60.0;
    if (off < len + 120) return 0.3 * (1.0 - (off - len) / 120.0);
    return 0;
}

/* ---------- actors ---------- */
enum { K_POOL, K_WEB, K_LDAPI, K_ADMIN, K_SASL, K_REPORT, K_PROBE, K_SPAWN, K_BATCH };
enum { S_OPEN, S_TLS, S_REQ, S_RES, S_ABANDON, S_CLOSE, S_SPAWN };

typedef struct {
    int used, kind, state, listener, ssl;
    uint64_t connid;
    int fd, opnum, step, nsteps, retries;
    uint32_t ip, user, bound;
    uint64_t timeout;
    /* the operation in flight */
    int op, err, nentries, notes_u, notes_a, notes_p, sasl_more;
    uint64_t wtime, optime, t_req;
    int close_code, quit;
    int spawn_kind;
} actor;

static actor *actors;
static uint32_t nact;
static size_t capact, capfree; /* freelist: room for every actor */
static uint32_t *freelist;
static uint32_t nfree;


static uint32_t new_actor(int kind)
{
    uint32_t a;
    if (nfree) a = freelist[--nfree];
    else {
        if (SAT_GROW(actors, capact, (size_t)nact + 1) != SAT_OK ||
            SAT_GROW(freelist, capfree, (size_t)nact + 1) != SAT_OK)
            exit(3);
        a = nact++;
    }
    memset(&actors[a], 0, sizeof actors[a]);
    actors[a].used = 1; actors[a].kind = kind;
    return a;
}

/* file descriptors: the lowest free one, as the kernel hands them out */
static uint8_t fdused[65536];
static int fd_low = 64; /* no free descriptor below this one */
static int fd_alloc(void)
{
    for (int f = fd_low; f < 65536; f++) if (!fdused[f]) { fdused[f] = 1; fd_low = f + 1; return f; }
    return 65535;
}
static void fd_free(int f) { fdused[f] = 0; if (f < fd_low) fd_low = f; }
static uint64_t next_connid = 1;
static int conns_open, conns_peak;

/* client addresses: app servers, web portals, workstations, a reporting host, admin */
static void lip(const actor *c)
{
    uint32_t ip = c->ip;
    switch (c->kind) {
    case K_POOL: ls_("10.20.1."); lu(11 + ip % 16); break;
    case K_WEB:
        if (ip % 23 == 0) { ls_("2001:db8:40::"); lu(0x10 + ip % 64); }
        else { ls_("10.40."); lu(ip / 250 % 4); lc('.'); lu(10 + ip % 240); }
        break;
    case K_SASL: ls_("172.16."); lu(ip / 200 % 32); lc('.'); lu(20 + ip % 200); break;
    case K_REPORT: ls_("10.30.4."); lu(21 + ip % 3); break;
    case K_ADMIN: ls_("10.10.0."); lu(5 + ip % 2); break;
    case K_BATCH: ls_("10.60.0.7"); break;
    default: ls_("10.50.0."); lu(2 + ip % 2); break; /* load balancer probes */
    }
}

/* ---------- line emitters ---------- */
static void conn_prefix(const actor *c) { lts(now); ls_("conn="); lu(c->connid); lc(' '); }
static void op_prefix(const actor *c, int op) { conn_prefix(c); ls_("op="); li(op); lc(' '); }

static void emit_connect(actor *c)
{
    c->connid = next_connid++;
    c->fd = fd_alloc();
    conns_open++; if (conns_open > conns_peak) conns_peak = conns_open;
    st_conn[c->listener]++;
    conn_prefix(c); ls_("fd="); lu((uint64_t)c->fd); ls_(" slot="); lu((uint64_t)c->fd); lc(' ');
    if (c->listener == L_LDAPI) ls_("connection from local to /run/slapd-example.socket");
    else {
        if (c->listener == L_LDAPS) { ls_("SSL "); st_ssl_conns++; }
        ls_("connection from "); lip(c);
        ls_(c->kind == K_WEB && c->ip % 23 == 0 ? " to 2001:db8:1::5" : " to 10.0.0.5");
    }
    lend();
}
static void emit_tls(actor *c)
{
    conn_prefix(c);
    uint32_t r = c->connid % 10;
    ls_(r < 7 ? "TLS1.3 256-bit AES-GCM" : r < 9 ? "TLS1.2 256-bit AES-GCM" : "TLS1.3 128-bit AES-GCM");
    lend();
}
static void emit_close(actor *c, int code)
{
    op_prefix(c, c->opnum > 0 ? c->opnum - 1 : -1);
    ls_("fd="); lu((uint64_t)c->fd); lc(' ');
    if (opt_legacy) {
        switch (code) {
        case C_U1: ls_("closed - U1"); break;
        case C_B1: ls_(c->connid % 3 ? "closed - B1" : "closed error 104 (Connection reset by peer) - B1"); break;
        case C_A1: ls_("closed error 125 (Operation canceled) - A1"); break;
        case C_T1: ls_("closed - T1"); break;
        case C_T2: ls_("closed error 11 (Resource temporarily unavailable) - T2"); break;
        default: ls_("closed error 32 (Broken pipe) - B4"); break;
        }
    } else {
        ls_("Disconnect - ");
        switch (code) {
        case C_U1: ls_("Cleanly Closed Connection - U1"); break;
        case C_B1: ls_(c->connid % 3 ? "Bad Ber Tag or uncleanly closed connection - B1"
                                      : "Connection reset by peer - Bad Ber Tag or uncleanly closed connection - B1"); break;
        case C_A1: ls_("Operation canceled - Connection aborted - A1"); break;
        case C_T1: ls_("Idle Timeout (nsslapd-idletimeout) - T1"); break;
        case C_T2: ls_("IO Block Timeout (nsslapd-ioblocktimeout) - T2"); break;
        default: ls_("Server failed to flush response back to Client - B4"); break;
        }
    }
    lend();
    st_close[code]++;
    fd_free(c->fd);
    conns_open--;
}

/* filter kinds for searches */
enum { F_UID, F_MAIL, F_PERSON_CN, F_GROUPMEMBER, F_MEMBEROF, F_OR, F_BASEENTRY, F_ROOTDSE, F_UIDNUMBER,
       F_PARTIAL_U, F_PAGED, F_HEAVY_A, F_SELF, F_BATCH };

/* the request line of an operation; fills in what its RESULT will say */
static void emit_request(actor *c, int op, int filt)
{
    double sev = severity(now);
    c->op = op; c->err = 0; c->nentries = 0; c->notes_u = c->notes_a = c->notes_p = 0; c->sasl_more = 0;
    uint64_t opt = 0;
    uint32_t u = zuser();
    op_prefix(c, c->opnum);
    st_ops[op]++;
    switch (op) {
    case OP_BIND:
        if (c->kind == K_SASL) {
            st_sasl_binds++;
            ls_("BIND dn=\"\" method=sasl version=3 mech=GSSAPI");
            c->sasl_more = c->step < 2; /* two in-progress steps, then the final bind */
            c->err = c->sasl_more ? 14 : 0;
            opt = c->sasl_more ? rlogu(80 * US, 600 * US) : rlogu(300 * US, 3 * MS);
        } else if (c->kind == K_BATCH) {
            ls_("BIND dn=\"uid=svc-batch,ou=services,dc=example,dc=com\" method=128 version=3");
            opt = rlogu(2 * MS, 14 * MS);
            if (chance(0.3)) { c->err = 49; opt = rlogu(1 * MS, 4 * MS); }
        } else if (c->kind == K_POOL || c->kind == K_REPORT || c->kind == K_ADMIN) {
            ls_("BIND dn=\"");
            if (c->kind == K_ADMIN) ls_(c->ip % 2 ? "cn=Directory Manager" : "uid=provisioning,ou=services,dc=example,dc=com");
            else if (c->kind == K_REPORT) ls_("uid=svc-reports,ou=services,dc=example,dc=com");
            else if (c->step == 0) { ls_("uid=svc-app"); lu(c->ip % 16); ls_(",ou=services,dc=example,dc=com"); }
            else { user_dn(u); c->user = u; }
            ls_("\" method=128 version=3");
            opt = rlogu(2 * MS, 14 * MS); /* PBKDF2 password hashing dominates */
            if (c->step != 0 && chance(0.06)) c->err = 49;
        } else {
            ls_("BIND dn=\""); user_dn(u); c->user = u; ls_("\" method=128 version=3");
            opt = rlogu(2 * MS, 14 * MS);
            if (chance(0.08)) c->err = 49;
        }
        if (c->err == 49) opt = rlogu(1 * MS, 4 * MS);
        break;
    case OP_SRCH: {
        ls_("SRCH base=\"");
        switch (filt) {
        case F_UID:
            ls_("ou=people,"); ls_(SUFFIX); ls_("\" scope=2 filter=\"(uid="); user_uid(u);
            ls_(")\" attrs=\"uid cn mail memberOf\""); c->nentries = chance(0.97); opt = rlogu(60 * US, 500 * US); break;
        case F_MAIL:
            ls_(SUFFIX); ls_("\" scope=2 filter=\"(mail="); user_mail(u); ls_(")\" attrs=\"uid cn\"");
            c->nentries = chance(0.95); opt = rlogu(80 * US, 700 * US); break;
        case F_PERSON_CN:
            ls_("ou=people,"); ls_(SUFFIX); ls_("\" scope=2 filter=\"(&(objectClass=person)(cn="); user_cn(u);
            ls_("))\" attrs=ALL"); c->nentries = (int)irand(3); opt = rlogu(200 * US, 2 * MS); break;
        case F_GROUPMEMBER:
            ls_("ou=groups,"); ls_(SUFFIX); ls_("\" scope=2 filter=\"(&(objectClass=groupOfNames)(member=");
            user_dn(u); ls_("))\" attrs=\"cn\""); c->nentries = (int)irand(12); opt = rlogu(300 * US, 3 * MS); break;
        case F_MEMBEROF:
            ls_("ou=people,"); ls_(SUFFIX); ls_("\" scope=2 filter=\"(memberOf=cn=grp"); lu(irand(40));
            ls_(",ou=groups,"); ls_(SUFFIX); ls_(")\" attrs=\"uid mail\"");
            c->nentries = 5 + (int)irand(400); opt = rlogu(1 * MS, 30 * MS); break;
        case F_OR:
            ls_(SUFFIX); ls_("\" scope=2 filter=\"(|(uid="); user_uid(u); ls_(")(mail="); user_mail(u);
            ls_("))\" attrs=ALL"); c->nentries = chance(0.96); opt = rlogu(150 * US, 1 * MS); break;
        case F_BASEENTRY: case F_SELF:
            user_dn(filt == F_SELF ? c->user : u); ls_("\" scope=0 filter=\"(objectClass=*)\" attrs=\"cn mail telephoneNumber\"");
            c->nentries = 1; opt = rlogu(40 * US, 300 * US); break;
        case F_ROOTDSE:
            ls_("\" scope=0 filter=\"(objectClass=*)\" attrs=\"");
            ls_(c->kind == K_LDAPI ? "vendorVersion\"" : "supportedControl supportedExtension namingContexts\"");
            c->nentries = 1; opt = rlogu(100 * US, 4 * MS); break;
        case F_UIDNUMBER:
            ls_(SUFFIX); ls_("\" scope=2 filter=\"(&(objectClass=posixAccount)(uidNumber="); lu(10000 + u);
            ls_("))\" attrs=\"uid uidNumber gidNumber homeDirectory loginShell\""); c->nentries = 1;
            opt = rlogu(100 * US, 800 * US); break;
        case F_PARTIAL_U:
            ls_("ou=people,"); ls_(SUFFIX); ls_("\" scope=2 filter=\"(&(objectClass=person)(description=*");
            ls_(LAST[irand(NLAST)]); ls_("*))\" attrs=\"uid cn description\"");
            c->notes_u = 1; c->nentries = (int)irand(30); opt = rlogu(20 * MS, 400 * MS); break;
        case F_BATCH:
            ls_("ou=people,"); ls_(SUFFIX); ls_("\" scope=2 filter=\"(&(objectClass=person)(employeeNumber=*");
            lu(irand(1000)); ls_("*))\" attrs=\"uid employeeNumber\"");
            c->notes_u = 1; c->nentries = (int)irand(20); opt = rlogu(40 * MS, 300 * MS); break;
        case F_PAGED:
            ls_("ou=people,"); ls_(SUFFIX); ls_("\" scope=1 filter=\"(objectClass=person)\" attrs=\"uid cn mail\"");
            c->notes_p = 1; c->nentries = 500; opt = rlogu(5 * MS, 40 * MS); break;
        case F_HEAVY_A: default:
            ls_(SUFFIX); ls_("\" scope=2 filter=\"");
            switch (irand(3)) {
            case 0: ls_("(|(title=*contractor*)(description=*vpn*))"); break;
            case 1: ls_("(&(objectClass=person)(!(employeeType=retired)))"); break;
            default: ls_("(postalAddress=*"); ls_(LAST[irand(NLAST)]); ls_("*)"); break;
            }
            ls_("\" attrs=ALL");
            c->notes_a = 1; c->nentries = 1000 + (int)irand(49000);
            opt = sev > 0 ? rlogu(3 * NS, 30 * NS) : rlogu(800 * MS, 6 * NS);
            if (opt > 10 * NS && chance(0.5)) { c->err = 3; opt = 10 * NS + rlogu(1 * MS, 40 * MS); c->nentries = (int)irand(5000); }
            else if (chance(0.1)) { c->err = 11; c->nentries = 2000; }
            break;
        }
        if (opt_srch_scale != 1.0 && filt != F_BATCH) opt = (uint64_t)((double)opt * opt_srch_scale);
        if (filt != F_HEAVY_A && sev > 0) opt = (uint64_t)(opt * (1.0 + 6.0 * sev * urand()));
        if (filt != F_HEAVY_A && sev > 0.5 && chance(0.04 * sev)) { c->err = 3; c->nentries = 0; }
        break;
    }
    case OP_MOD:
        ls_("MOD dn=\""); user_dn(u); lc('"'); opt = rlogu(1 * MS, 12 * MS);
        if (chance(0.02)) c->err = 32; else if (chance(0.01)) c->err = 50;
        else if (opt_new_error && chance(0.10)) { c->err = opt_new_error; opt = rlogu(50 * US, 400 * US); }
        break;
    case OP_ADD:
        ls_("ADD dn=\"uid=new"); lu(c->connid % 100000); lc('-'); lu((uint64_t)c->opnum); ls_(",ou=people,");
        ls_(SUFFIX); lc('"'); opt = rlogu(3 * MS, 25 * MS); if (chance(0.03)) c->err = 68;
        break;
    case OP_DEL:
        ls_("DEL dn=\"uid=new"); lu((c->connid + 99999) % 100000); lc('-'); lu((uint64_t)c->opnum); ls_(",ou=people,");
        ls_(SUFFIX); lc('"'); opt = rlogu(2 * MS, 15 * MS); if (chance(0.05)) c->err = 32;
        break;
    case OP_MODRDN:
        ls_("MODRDN dn=\""); user_dn(u); ls_("\" newrdn=\"uid="); user_uid(u); ls_("-old\" newsuperior=\"(null)\"");
        opt = rlogu(5 * MS, 30 * MS);
        break;
    case OP_CMP:
        ls_("CMP dn=\"cn=grp"); lu(irand(40)); ls_(",ou=groups,"); ls_(SUFFIX); ls_("\" attr=\"member\"");
        c->err = chance(0.7) ? 6 : 5; opt = rlogu(100 * US, 900 * US);
        break;
    case OP_EXT:
        if (filt == 1) { ls_("EXT oid=\"1.3.6.1.4.1.1466.20037\" name=\"start_tls_plugin\""); st_starttls++; opt = rlogu(60 * US, 300 * US); }
        else if (filt == 2) { ls_("EXT oid=\"1.3.6.1.4.1.4203.1.11.1\" name=\"passwd_modify_plugin\""); opt = rlogu(4 * MS, 20 * MS); if (chance(0.1)) c->err = 19; }
        else { ls_("EXT oid=\"1.3.6.1.4.1.4203.1.11.3\" name=\"whoami-plugin\""); opt = rlogu(80 * US, 400 * US); }
        break;
    default: break;
    }
    lend();
    /* queue wait: a few tens of microseconds normally; seconds during the incident, when the
     * worker threads are all stuck in unindexed searches */
    uint64_t w = rlogu(20 * US, 250 * US);
    if (sev > 0) w += (uint64_t)(sev * sev * (0.2 + 5.0 * urand()) * NS);
    /* server-side refusals under load: fast answers */
    if (sev > 0.4 && c->err == 0 && filt != F_HEAVY_A) {
        if ((op == OP_BIND || op == OP_MOD || op == OP_ADD) && chance(0.06 * sev)) { c->err = 51; opt = rlogu(20 * US, 200 * US); }
        else if (op == OP_BIND && chance(0.02 * sev)) { c->err = 52; opt = rlogu(20 * US, 200 * US); }
    }
    if (c->err == 14 || c->err == 51 || c->err == 52) c->nentries = 0;
    c->wtime = w; c->optime = opt; c->t_req = now;
}

static void emit_result(actor *c)
{
    op_prefix(c, c->opnum);
    ls_("RESULT err="); lu((uint64_t)c->err); ls_(" tag="); lu((uint64_t)OPTAG[c->op]);
    ls_(" nentries="); lu((uint64_t)c->nentries);
    uint64_t et = c->wtime + c->optime;
    if (opt_lowres) { ls_(" etime="); lu(et / NS); }
    else { ls_(" wtime="); ldur(c->wtime); ls_(" optime="); ldur(c->optime); ls_(" etime="); ldur(et); }
    if (c->notes_a) { ls_(" notes=A details=\"Fully Unindexed Filter\""); st_notes['A' - 'A']++; }
    else if (c->notes_u && c->notes_p) { ls_(" notes=U,P details=\"Partially Unindexed Filter,Paged Search\""); st_notes['U' - 'A']++; st_notes['P' - 'A']++; }
    else if (c->notes_u) { ls_(" notes=U details=\"Partially Unindexed Filter\""); st_notes['U' - 'A']++; }
    else if (c->notes_p) { ls_(" notes=P details=\"Paged Search\""); st_notes['P' - 'A']++; }
    if (c->notes_p) ls_(" pr_idx=0 pr_cookie=-1");
    if (c->err == 14) ls_(", SASL bind in progress");
    else if (c->op == OP_BIND && c->err == 0) {
        ls_(" dn=\"");
        if (c->kind == K_SASL) { user_dn(c->user); }
        else if (c->kind == K_LDAPI) ls_("cn=Directory Manager");
        else {
            /* echo the bind DN: reconstructing it from the request keeps state small */
            if (c->kind == K_ADMIN) ls_(c->ip % 2 ? "cn=directory manager" : "uid=provisioning,ou=services,dc=example,dc=com");
            else if (c->kind == K_REPORT) ls_("uid=svc-reports,ou=services,dc=example,dc=com");
            else if (c->kind == K_POOL && c->step == 0) { ls_("uid=svc-app"); lu(c->ip % 16); ls_(",ou=services,dc=example,dc=com"); }
            else user_dn(c->user);
        }
        lc('"');
    } else if (c->err == 49) ls_(" - Invalid credentials");
    else if (c->err == 32 && c->op != OP_SRCH) ls_(" - Entry does not exist");
    lend();
    st_results++;
    st_err[c->err < 128 ? c->err : 127]++;
}

static void emit_abandon(actor *c, int target)
{
    op_prefix(c, c->opnum);
    st_ops[OP_ABANDON]++;
    ls_("ABANDON targetop="); lu((uint64_t)target); ls_(" msgid="); lu((uint64_t)target + 1);
    ls_(" nentries=0 etime=0."); lpad(rlogu(2000, 90000), 10);
    lend();
}

/* ---------- scenario per kind of client ---------- */
static uint32_t pool_size;
static uint64_t pool_think_mean;

/* schedule a connection's next request after a think time, or its close */
static void next_after(uint32_t a, uint64_t think)
{
    actor *c = &actors[a];
    c->state = c->step >= c->nsteps ? S_CLOSE : S_REQ;
    hpush(now + think, a);
}

static uint32_t spawn_conn(int kind, uint64_t at, uint32_t ip)
{
    uint32_t a = new_actor(kind);
    actor *c = &actors[a];
    c->ip = ip; c->state = S_OPEN;
    switch (kind) {
    case K_POOL: c->listener = L_LDAPS; c->ssl = 1; c->nsteps = 200 + (int)irand(4000); c->timeout = 5 * NS; break;
    case K_WEB: {
        uint32_t r = irand(10);
        c->listener = r < 6 ? L_LDAPS : L_LDAP; c->ssl = r < 6 || r == 9;
        if (r == 9) c->listener = L_STARTTLS;
        c->nsteps = 3 + (chance(0.1) ? 1 : 0); c->timeout = 3 * NS; break;
    }
    case K_LDAPI: c->listener = L_LDAPI; c->nsteps = 4; c->timeout = 30 * NS; break;
    case K_ADMIN: c->listener = c->ip % 2 ? L_LDAPI : L_LDAPS; c->ssl = c->listener == L_LDAPS; c->nsteps = 4 + (int)irand(30); c->timeout = 60 * NS; break;
    case K_SASL: c->listener = L_LDAP; c->nsteps = 5; c->timeout = 10 * NS; break;
    case K_REPORT: c->listener = L_LDAP; c->nsteps = 3; c->timeout = 0; break;
    case K_BATCH: c->listener = L_LDAP; c->nsteps = 20; c->timeout = 0; break;
    default: c->listener = L_LDAP; c->nsteps = 0; break;
    }
    hpush(at, a);
    return a;
}

static void do_request(uint32_t a)
{
    actor *c = &actors[a];
    int op = OP_SRCH, filt = F_UID;
    if (c->quit) { op = OP_UNBIND; goto unbind; }
    switch (c->kind) {
    case K_POOL:
        if (c->step == 0) op = OP_BIND;
        else {
            uint32_t r = irand(1000);
            if (r < 90) op = OP_BIND;
            else if (r < 100) op = OP_CMP;
            else if (r < 115) op = OP_MOD;
            else { op = OP_SRCH; uint32_t f = irand(1000);
                filt = f < 420 ? F_UID : f < 580 ? F_MAIL : f < 680 ? F_PERSON_CN : f < 780 ? F_GROUPMEMBER :
                       f < 850 ? F_MEMBEROF : f < 900 ? F_OR : f < 940 ? F_BASEENTRY : f < 960 ? F_ROOTDSE :
                       f < 993 ? F_UIDNUMBER : f < 997 ? F_PARTIAL_U : F_PAGED; }
        }
        break;
    case K_WEB:
        if (c->listener == L_STARTTLS && c->step == 0) { op = OP_EXT; filt = 1; }
        else {
            int s = c->step - (c->listener == L_STARTTLS);
            if (s == 0) op = OP_BIND;
            else if (s == 1) { op = OP_SRCH; filt = F_SELF; }
            else if (s == 2 && c->nsteps == 4) { op = OP_EXT; filt = 2; }
            else op = OP_UNBIND;
        }
        break;
    case K_LDAPI:
        if (c->step == 0) {
            conn_prefix(c); ls_("AUTOBIND dn=\"cn=Directory Manager\""); lend(); st_ops[OP_AUTOBIND]++;
            op = OP_BIND;
            op_prefix(c, c->opnum); ls_("BIND dn=\"cn=Directory Manager\" method=sasl version=3 mech=EXTERNAL"); lend();
            st_ops[OP_BIND]++; st_sasl_binds++;
            c->op = OP_BIND; c->err = 0; c->nentries = 0; c->notes_u = c->notes_a = c->notes_p = 0;
            c->wtime = rlogu(30 * US, 90 * US); c->optime = rlogu(80 * US, 200 * US); c->t_req = now;
            if (severity(now) > 0) c->wtime += (uint64_t)(severity(now) * severity(now) * (0.2 + 5.0 * urand()) * NS);
            goto sched_result;
        }
        op = c->step == 1 ? OP_SRCH : c->step == 2 ? OP_EXT : OP_UNBIND; filt = c->step == 1 ? F_ROOTDSE : 0;
        break;
    case K_ADMIN:
        if (c->step == 0) op = OP_BIND;
        else if (c->step == c->nsteps - 1) op = OP_UNBIND;
        else { uint32_t r = irand(100);
            op = r < 35 ? OP_MOD : r < 55 ? OP_ADD : r < 70 ? OP_DEL : r < 78 ? OP_MODRDN : r < 85 ? OP_CMP : OP_SRCH;
            filt = F_UID; }
        break;
    case K_SASL:
        if (c->step < 3) op = OP_BIND;
        else if (c->step == 3) { op = OP_SRCH; filt = chance(0.5) ? F_UIDNUMBER : F_GROUPMEMBER; }
        else op = OP_UNBIND;
        break;
    case K_BATCH:
        op = c->step == 0 ? OP_BIND : c->step == c->nsteps - 1 ? OP_UNBIND : OP_SRCH;
        filt = F_BATCH;
        break;
    case K_REPORT:
        op = c->step == 0 ? OP_BIND : c->step == 1 ? OP_SRCH : OP_UNBIND;
        filt = severity(now) > 0 || chance(0.5) ? F_HEAVY_A : F_PARTIAL_U;
        break;
    default: break;
    }
unbind:
    if (op == OP_UNBIND) {
        op_prefix(c, c->opnum); ls_("UNBIND"); lend(); st_ops[OP_UNBIND]++;
        c->opnum++;
        emit_close(c, C_U1);
        c->used = 0; freelist[nfree++] = a;
        return;
    }
    emit_request(c, op, filt);
    if (c->kind == K_SASL && c->step == 2) c->user = zuser();
sched_result:
    /* a client that gives up before the answer abandons it and drops the connection */
    if (c->timeout && c->wtime + c->optime > c->timeout) {
        c->state = S_ABANDON;
        hpush(now + c->timeout, a);
    } else {
        c->state = S_RES;
        hpush(now + c->wtime + c->optime, a);
    }
}

static void close_and_free(uint32_t a, int code)
{
    actor *c = &actors[a];
    emit_close(c, code);
    c->used = 0; freelist[nfree++] = a;
}

static void step(uint32_t a)
{
    actor *c = &actors[a];
    double sev;
    switch (c->state) {
    case S_SPAWN: {
        /* a Poisson source of new connections of one kind */
        int k = c->spawn_kind;
        sev = severity(now);
        double mean_gap; /* seconds */
        switch (k) {
        case K_WEB: spawn_conn(K_WEB, now, irand(960)); mean_gap = 1.0 / (0.035 * opt_rate * (1 + 2.5 * sev)); break;
        case K_SASL: spawn_conn(K_SASL, now, irand(6400)); mean_gap = 1.0 / (0.008 * opt_rate); break;
        case K_ADMIN: spawn_conn(K_ADMIN, now, irand(2)); mean_gap = 1.0 / (0.002 * opt_rate); break;
        case K_LDAPI: spawn_conn(K_LDAPI, now, 0); hpush(now + 6 * NS + rlogu(1 * MS, 30 * MS), a); return;
        case K_PROBE: spawn_conn(K_PROBE, now, irand(2)); hpush(now + 10 * NS + irand(20) * MS, a); return;
        case K_BATCH: spawn_conn(K_BATCH, now, 0); hpush(now + 120 * NS + irand(20000) * MS, a); return;
        default: /* reports: one every ten minutes or so; a storm during the incident. A tick
                  * every 2 s thins the rate, so a quiet spell never sleeps through the incident */
            if (chance(2.0 * (sev > 0.05 ? 1.5 * sev + 0.2 : 1.0 / 600.0))) spawn_conn(K_REPORT, now, irand(3));
            hpush(now + 2 * NS, a);
            return;
        }
        hpush(now + rexp(mean_gap * 1e9) + 1, a);
        return;
    }
    case S_OPEN:
        emit_connect(c);
        if (c->kind == K_PROBE) { c->state = S_CLOSE; c->close_code = C_B1; hpush(now + rlogu(200 * US, 3 * MS), a); return; }
        if (c->listener == L_LDAPS) { c->state = S_TLS; hpush(now + rlogu(1 * MS, 6 * MS), a); return; }
        c->state = S_REQ;
        hpush(now + rlogu(100 * US, 2 * MS), a);
        return;
    case S_TLS:
        emit_tls(c);
        c->state = S_REQ;
        hpush(now + rlogu(100 * US, 1 * MS), a);
        return;
    case S_REQ:
        do_request(a);
        return;
    case S_RES: {
        emit_result(c);
        int was_starttls = c->op == OP_EXT && c->listener == L_STARTTLS && c->step == 0;
        int failed_bind = c->op == OP_BIND && c->err == 49;
        int busy = c->err == 51 || c->err == 52;
        int big = c->nentries >= 100;
        c->opnum++;
        c->step++;
        sev = severity(now);
        if (was_starttls) { c->state = S_TLS; hpush(now + rlogu(1 * MS, 5 * MS), a); return; }
        /* under load the server fails to write large answers */
        if (big && sev > 0.3 && chance(0.3 * sev)) {
            int kind = c->kind; uint32_t ip = c->ip;
            close_and_free(a, chance(0.6) ? C_T2 : C_B4);
            if (kind == K_POOL) spawn_conn(K_POOL, now + rlogu(1 * MS, 200 * MS), ip); /* the pool refills */
            return;
        }
        if (c->kind == K_BATCH && failed_bind) { close_and_free(a, C_U1); return; }
        if (c->kind == K_WEB && (failed_bind || busy)) {
            /* the portal shows an error and drops the connection without unbinding */
            if (chance(0.5)) { close_and_free(a, C_B1); return; }
            c->quit = 1;
        }
        if (c->kind == K_POOL) {
            if (c->step >= c->nsteps) {
                /* recycle: either a clean unbind or an idle timeout, then a fresh pooled conn */
                uint32_t ip = c->ip;
                if (chance(0.3)) { close_and_free(a, C_T1); spawn_conn(K_POOL, now + rlogu(5 * MS, 2 * NS), ip); return; }
                c->quit = 1; c->state = S_REQ;
                hpush(now + rlogu(100 * US, 5 * MS), a);
                spawn_conn(K_POOL, now + rlogu(5 * MS, 500 * MS), ip); /* may move actors[] */
                return;
            }
            next_after(a, rexp((double)pool_think_mean));
            return;
        }
        uint64_t think = c->kind == K_ADMIN ? rlogu(500 * US, 200 * MS) : c->kind == K_LDAPI ? rlogu(8 * MS, 260 * MS)
                                                                          : rlogu(200 * US, 20 * MS);
        c->state = S_REQ;
        hpush(now + think, a);
        return;
    }
    case S_ABANDON: {
        /* client-side timeout: ABANDON the operation (its RESULT never comes) and hang up */
        int target = c->opnum;
        st_unfinished_abandoned++;
        c->opnum++;
        if (chance(0.7)) { emit_abandon(c, target); c->opnum++; }
        int kind = c->kind, retries = c->retries;
        uint32_t ip = c->ip;
        close_and_free(a, chance(0.8) ? C_A1 : C_B1);
        /* the reconnect storm: pooled connections come back at once, portals retry */
        if (kind == K_POOL) spawn_conn(K_POOL, now + rlogu(1 * MS, 200 * MS), ip);
        else if (kind == K_WEB && retries < 3) {
            uint32_t n = spawn_conn(K_WEB, now + rlogu(50 * MS, 1500 * MS), ip);
            actors[n].retries = retries + 1;
        }
        return;
    }
    case S_CLOSE:
    default:
        close_and_free(a, c->close_code ? c->close_code : C_U1);
        return;
    }
}

static void start_spawner(int kind, uint64_t at)
{
    uint32_t a = new_actor(K_SPAWN);
    actors[a].state = S_SPAWN; actors[a].spawn_kind = kind;
    hpush(at, a);
}

/* ---------- main ---------- */
static int parse_time(const char *s, uint64_t *t)
{
    struct tm tm; memset(&tm, 0, sizeof tm);
    if (sscanf(s, "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
        return -1;
    tm.tm_year -= 1900; tm.tm_mon -= 1;
    time_t x = timegm(&tm);
    if (x == (time_t)-1) return -1;
    *t = (uint64_t)x * NS;
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
        "usage: gen389 [options] [-o FILE]\n"
        "Writes a realistic 389 Directory Server access log (2.x legacy text format).\n"
        "  --seed N            random seed (default 1); same seed and options = same bytes\n"
        "  --size-mb N         stop after N MB (10^6 bytes) of output (default 100)\n"
        "  --lines N           stop after N lines instead\n"
        "  --duration SEC      stop after SEC seconds of simulated time instead\n"
        "  --start TIME        first timestamp, UTC, YYYY-MM-DDTHH:MM:SS (default 2025-06-09T14:00:00)\n"
        "  --tz +HHMM          print timestamps in this UTC offset (default +0000)\n"
        "  --rate N            operations per second outside the incident (default 1000)\n"
        "  --users N           number of users (default 50000), Zipf-like popularity\n"
        "  --incident on|off   incident window in every simulated hour (default on)\n"
        "  --incident-at MIN   minute of the hour where it starts (default 20)\n"
        "  --incident-len MIN  its length in minutes (default 5)\n"
        "  --conn-start N      first connection number (default 1000 + seed)\n"
        "  --legacy-close      pre-2.1 close lines: 'fd=N closed - U1'\n"
        "  --lowres            no nanoseconds in timestamps, integer etime, no wtime/optime\n"
        "  --no-header         omit the tab-indented header lines\n"
        "  --host NAME         the host name of the header (default ldap01.example.com)\n"
        "  --srch-scale X      searches take X times their optime (default 1)\n"
        "  --new-error CODE    10%% of MODs answered err=CODE (default none)\n"
        "  --batch-client      a new client 10.60.0.7 (uid=svc-batch, 30%% of its binds fail)\n"
        "                      running unindexed (employeeNumber=*N*) searches\n"
        "  -o FILE             output file (default stdout)\n"
        "A summary of what was written goes to stderr.\n");
}

int main(int argc, char **argv)
{
    uint64_t seed = 1, conn_start = 0;
    double size_mb = -1;
    const char *outpath = NULL, *start = "2025-06-09T14:00:00";
    int header = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEEDV do { if (!v) { fprintf(stderr, "gen389: %s needs a value\n", a); return 2; } i++; } while (0)
        if (!strcmp(a, "--seed")) { NEEDV; seed = strtoull(v, NULL, 10); }
        else if (!strcmp(a, "--size-mb")) { NEEDV; size_mb = atof(v); }
        else if (!strcmp(a, "--lines")) { NEEDV; max_lines = strtoull(v, NULL, 10); }
        else if (!strcmp(a, "--duration")) { NEEDV; max_dur = (uint64_t)(atof(v) * 1e9); }
        else if (!strcmp(a, "--start")) { NEEDV; start = v; }
        else if (!strcmp(a, "--tz")) { NEEDV; int h = atoi(v); int sgn = h < 0 || v[0] == '-' ? -1 : 1; if (h < 0) h = -h;
            tz_off_min = sgn * ((h / 100) * 60 + h % 100); }
        else if (!strcmp(a, "--rate")) { NEEDV; opt_rate = atof(v); }
        else if (!strcmp(a, "--users")) { NEEDV; nusers = (uint32_t)strtoul(v, NULL, 10); }
        else if (!strcmp(a, "--incident")) { NEEDV; opt_incident = strcmp(v, "off") != 0; }
        else if (!strcmp(a, "--incident-at")) { NEEDV; inc_at_min = atoi(v); }
        else if (!strcmp(a, "--incident-len")) { NEEDV; inc_len_min = atoi(v); }
        else if (!strcmp(a, "--conn-start")) { NEEDV; conn_start = strtoull(v, NULL, 10); }
        else if (!strcmp(a, "--legacy-close")) opt_legacy = 1;
        else if (!strcmp(a, "--lowres")) opt_lowres = 1;
        else if (!strcmp(a, "--no-header")) header = 0;
        else if (!strcmp(a, "--host")) { NEEDV; opt_host = v; }
        else if (!strcmp(a, "--srch-scale")) { NEEDV; opt_srch_scale = atof(v); }
        else if (!strcmp(a, "--new-error")) { NEEDV; opt_new_error = atoi(v); }
        else if (!strcmp(a, "--batch-client")) opt_batch = 1;
        else if (!strcmp(a, "-o")) { NEEDV; outpath = v; }
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else { fprintf(stderr, "gen389: unknown option %s\n", a); usage(stderr); return 2; }
    }
    if (opt_srch_scale <= 0 || opt_new_error < 0 || opt_new_error > 127) {
        fprintf(stderr, "gen389: bad --srch-scale or --new-error\n"); return 2;
    }
    if (opt_rate <= 0 || nusers < 10 || inc_len_min < 2 || inc_at_min < 0 || inc_at_min + inc_len_min > 55) {
        fprintf(stderr, "gen389: bad --rate, --users or incident window\n"); return 2;
    }
    if (parse_time(start, &t_start)) { fprintf(stderr, "gen389: bad --start %s\n", start); return 2; }
    if (size_mb < 0 && !max_lines && !max_dur) size_mb = 100;
    if (size_mb > 0) max_bytes = (uint64_t)(size_mb * 1e6);
    out = outpath ? fopen(outpath, "wb") : stdout;
    if (!out) { fprintf(stderr, "gen389: %s: %s\n", outpath, strerror(errno)); return 3; }
    seed_rng(seed);
    zipf_init(1.07);
    next_connid = conn_start ? conn_start : 1000 + seed;
    pool_size = (uint32_t)(opt_rate / 30.0); if (pool_size < 3) pool_size = 3; if (pool_size > 96) pool_size = 96;
    /* pooled connections carry ~75% of the operations */
    pool_think_mean = (uint64_t)((double)pool_size / (0.75 * opt_rate) * 1e9);
    now = t_start;

    clock_t c0 = clock();
    if (header) {
        ls_(opt_lowres ? "\t389-Directory/1.2.11.15 B2014.300.2010" : opt_legacy ? "\t389-Directory/1.4.3.39 B2024.010.0000"
                                                                                : "\t389-Directory/2.3.1 B2023.052.0000");
        lend();
        lc('\t'); ls_(opt_host); ls_(":636 (/etc/dirsrv/slapd-example)"); lend();
        lend();
    }
    for (uint32_t i = 0; i < pool_size; i++) spawn_conn(K_POOL, t_start + rlogu(1 * MS, 2 * NS), i);
    start_spawner(K_WEB, t_start + rlogu(1 * MS, 500 * MS));
    start_spawner(K_SASL, t_start + rlogu(1 * MS, 900 * MS));
    start_spawner(K_ADMIN, t_start + rlogu(1 * MS, 3 * NS));
    start_spawner(K_LDAPI, t_start + rlogu(1 * MS, 6 * NS));
    start_spawner(K_PROBE, t_start + rlogu(1 * MS, 10 * NS));
    start_spawner(K_REPORT, t_start + rlogu(1 * NS, 300 * NS));
    if (opt_batch) start_spawner(K_BATCH, t_start + rlogu(1 * NS, 20 * NS));

    while (!done && hn) {
        hev e = hpop();
        if (max_dur && e.t >= t_start + max_dur) break;
        now = e.t;
        step(e.a);
    }
    oflush();
    if (outpath && fclose(out)) { fprintf(stderr, "gen389: %s: %s\n", outpath, strerror(errno)); return 3; }
    else if (!outpath) fflush(stdout);
    double secs = (double)(clock() - c0) / CLOCKS_PER_SEC;

    /* the summary a reader of the log can be checked against */
    FILE *e = stderr;
    fprintf(e, "gen389: %llu lines, %llu bytes in %.2f s CPU (%.1f MB/s)\n", (unsigned long long)lines_out,
            (unsigned long long)bytes_out, secs, secs > 0 ? bytes_out / 1e6 / secs : 0.0);
    fprintf(e, "span: %.1f s simulated\n", (double)(now - t_start) / 1e9);
    fprintf(e, "connections: %llu (LDAP %llu, LDAPS %llu, LDAPI %llu, StartTLS %llu); peak concurrent %d\n",
            (unsigned long long)(st_conn[0] + st_conn[1] + st_conn[2] + st_conn[3]), (unsigned long long)st_conn[0],
            (unsigned long long)st_conn[1], (unsigned long long)st_conn[2], (unsigned long long)st_conn[3], conns_peak);
    fprintf(e, "requests:");
    for (int i = 0; i < OP_N; i++) fprintf(e, " %s=%llu", OPNAME[i], (unsigned long long)st_ops[i]);
    fprintf(e, "\nresults: %llu; abandoned-by-client (no RESULT): %llu; sasl binds: %llu; starttls: %llu\n",
            (unsigned long long)st_results, (unsigned long long)st_unfinished_abandoned,
            (unsigned long long)st_sasl_binds, (unsigned long long)st_starttls);
    fprintf(e, "errors:");
    for (int i = 0; i < 128; i++) if (st_err[i]) fprintf(e, " err=%d:%llu", i, (unsigned long long)st_err[i]);
    fprintf(e, "\nnotes: A=%llu U=%llu P=%llu\nclose codes:", (unsigned long long)st_notes[0],
            (unsigned long long)st_notes['U' - 'A'], (unsigned long long)st_notes['P' - 'A']);
    for (int i = 0; i < C_N; i++) fprintf(e, " %s=%llu", CCODE[i], (unsigned long long)st_close[i]);
    fprintf(e, "\nstill open at the end: %d connections\n", conns_open);
    (void)LSTNAME;
    free(zcdf); free(actors); free(freelist); free(heap);
    return 0;
}
