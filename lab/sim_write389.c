/*
 * sim_write389.c - what the simulated server writes, in the 389 Directory
 * Server 2.x access-log format (the line forms of fixtures/389ds and
 * fixtures/incident: "connection from", "SSL connection from", "TLS1.2 256-bit
 * AES-GCM", requests, RESULT with wtime/optime/etime and notes=A for unindexed
 * searches, ABANDON, "Disconnect - ... - CODE" closes), and the fan-out of
 * every server event to the three writers (389, OpenLDAP, capture). A refused
 * connection leaves no access-log line: 389 never accepted it.
 */
#include <string.h>
#include <time.h>

#include "sim.h"

static const char *MON[12] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                              "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

const char *lab_ip(uint32_t ip, char *buf)
{
    snprintf(buf, 16, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
    return buf;
}

void lab_user_dn(uint32_t user, uint8_t role, char *buf, size_t n)
{
    if (role == ROLE_BATCH)
        snprintf(buf, n, "uid=svc-reports,ou=services,dc=example,dc=com");
    else if (role == ROLE_HEAVY)
        snprintf(buf, n, "uid=svc-sync,ou=services,dc=example,dc=com");
    else
        snprintf(buf, n, "uid=user%05u,ou=people,dc=example,dc=com", user);
}

static void ts(FILE *f, uint64_t t)
{
    static int64_t csec = -1;
    static char cbuf[40];
    int64_t sec = LAB_T0_UNIX + (int64_t)(t / NS);
    if (sec != csec) {
        time_t tt = (time_t)sec;
        struct tm tm;
        gmtime_r(&tt, &tm);
        snprintf(cbuf, sizeof cbuf, "[%02d/%s/%04d:%02d:%02d:%02d", tm.tm_mday, MON[tm.tm_mon],
                 tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
        csec = sec;
    }
    fprintf(f, "%s.%09llu +0000] ", cbuf, (unsigned long long)(t % NS));
}

int w389_open(const char *path)
{
    S.f389 = fopen(path, "w");
    if (!S.f389)
        return -1;
    fputs("\t389-Directory/2.3.1 B2023.052.0000\n"
          "\tldap01.example.com:636 (/etc/dirsrv/slapd-example)\n\n",
          S.f389);
    return 0;
}

static const sess *sess_of(uint32_t c) { return &S.sessions[S.conns[c].sess]; }

void w389_connect(uint32_t ci)
{
    const conn *c = &S.conns[ci];
    char ip[16];
    ts(S.f389, S.now);
    fprintf(S.f389, "conn=%u fd=%d slot=%d %sconnection from %s to 10.0.0.5\n", c->id, c->fd,
            c->fd, c->ldaps ? "SSL " : "", lab_ip(S.hosts[sess_of(ci)->host].ip, ip));
}

void w389_tls(uint32_t ci)
{
    ts(S.f389, S.now);
    fprintf(S.f389, "conn=%u TLS1.2 256-bit AES-GCM\n", S.conns[ci].id);
}

void w389_request(uint32_t ci, uint32_t j)
{
    const job *jb = &S.jobs[j];
    const sess *s = sess_of(ci);
    char dn[96];
    ts(S.f389, S.now);
    fprintf(S.f389, "conn=%u op=%d ", S.conns[ci].id, jb->opnum);
    switch (jb->op) {
    case OP_BIND:
        lab_user_dn(s->user, s->role, dn, sizeof dn);
        fprintf(S.f389, "BIND dn=\"%s\" method=128 version=3\n", dn);
        break;
    case OP_SRCH:
        fprintf(S.f389, "SRCH base=\"ou=people,dc=example,dc=com\" scope=2 filter=\"(uid=user%05u)\" "
                        "attrs=\"cn mail telephoneNumber\"\n", (j * 2654435761u) % (uint32_t)S.P.users);
        break;
    case OP_SRCHU:
        fprintf(S.f389, "SRCH base=\"dc=example,dc=com\" scope=2 "
                        "filter=\"(|(title=*contractor*)(description=*vpn*))\" attrs=ALL\n");
        break;
    case OP_MOD:
        lab_user_dn(s->user, s->role, dn, sizeof dn);
        fprintf(S.f389, "MOD dn=\"%s\"\n", dn);
        break;
    default:
        fprintf(S.f389, "ADD dn=\"uid=new%u,ou=people,dc=example,dc=com\"\n", j);
        break;
    }
}

static const int TAG[OP_N] = {97, 101, 101, 103, 105, 0, 0};

uint32_t lab_nentries(uint32_t j);
uint32_t lab_nentries(uint32_t j)
{
    const job *jb = &S.jobs[j];
    if (jb->err || (jb->op != OP_SRCH && jb->op != OP_SRCHU))
        return 0;
    return jb->op == OP_SRCHU ? 200 + (j * 40503u) % 1800 : 1;
}

void w389_result(uint32_t ci, uint32_t j)
{
    const job *jb = &S.jobs[j];
    const sess *s = sess_of(ci);
    uint64_t w = jb->t_start - jb->t_arr, o = jb->t_done - jb->t_start, e = w + o;
    ts(S.f389, S.now);
    fprintf(S.f389,
            "conn=%u op=%d RESULT err=%d tag=%d nentries=%u wtime=%llu.%09llu optime=%llu.%09llu "
            "etime=%llu.%09llu",
            S.conns[ci].id, jb->opnum, jb->err, TAG[jb->op], lab_nentries(j),
            (unsigned long long)(w / NS), (unsigned long long)(w % NS),
            (unsigned long long)(o / NS), (unsigned long long)(o % NS),
            (unsigned long long)(e / NS), (unsigned long long)(e % NS));
    if (jb->op == OP_SRCHU && jb->err == 0) /* a search refused as busy never ran */
        fputs(" notes=A details=\"Fully Unindexed Filter\"", S.f389);
    if (jb->op == OP_BIND && jb->err == 0) {
        char dn[96];
        lab_user_dn(s->user, s->role, dn, sizeof dn);
        fprintf(S.f389, " dn=\"%s\"", dn);
    }
    fputc('\n', S.f389);
}

void w389_abandon(uint32_t ci, int32_t opnum, int32_t target)
{
    ts(S.f389, S.now);
    fprintf(S.f389, "conn=%u op=%d ABANDON targetop=%d msgid=%d nentries=0 etime=0.0000%06u\n",
            S.conns[ci].id, opnum, target, target + 1, 20000 + (ci * 7u) % 60000);
}

void w389_unbind(uint32_t ci, int32_t opnum)
{
    ts(S.f389, S.now);
    fprintf(S.f389, "conn=%u op=%d UNBIND\n", S.conns[ci].id, opnum);
}

void w389_closed(uint32_t ci, int code)
{
    const conn *c = &S.conns[ci];
    ts(S.f389, S.now);
    fprintf(S.f389, "conn=%u op=%d fd=%d Disconnect - %s\n", c->id,
            code == CL_U1 ? c->opnum - 1 : -1, c->fd,
            code == CL_U1   ? "Cleanly Closed Connection - U1"
            : code == CL_A1 ? "Operation canceled - Connection aborted - A1"
                            : "Bad Ber Tag or uncleanly closed connection - B1");
}

/* ---- the fan-out: every writer sees every event ------------------------------- */
void w_connect(uint32_t c) { w389_connect(c); wol_connect(c); wpcap_connect(c); }
void w_tls(uint32_t c) { w389_tls(c); wol_tls(c); }
void w_request(uint32_t c, uint32_t j) { w389_request(c, j); wol_request(c, j); }
void w_result(uint32_t c, uint32_t j) { w389_result(c, j); wol_result(c, j); }
void w_abandon(uint32_t c, int32_t o, int32_t t) { w389_abandon(c, o, t); wol_abandon(c, o, t); }
void w_unbind(uint32_t c, int32_t o) { w389_unbind(c, o); wol_unbind(c, o); }
void w_closed(uint32_t c, int code)
{
    w389_closed(c, code);
    wol_closed(c, code);
    /* the client's FIN was written when it left; here the server's own close */
    wpcap_closed(c, 0);
}

void w_close_all(void)
{
    if (S.f389)
        fclose(S.f389);
    if (S.fol)
        fclose(S.fol);
    if (S.fpcap)
        fclose(S.fpcap);
    S.f389 = S.fol = S.fpcap = NULL;
}
