/*
 * sim_writeopenldap.c - what the simulated server writes, as OpenLDAP 2.5's
 * slapd does at `loglevel stats` (the forms of fixtures/slapd and
 * fixtures/slapd-load): a "hexsec.hexnsec threadid" prefix, ACCEPT, TLS
 * established, each request and its detail lines, RESULT / SEARCH RESULT with
 * qtime (the queue wait) and etime (wait + work), ABANDON msg=, "closed" and
 * "closed (connection lost)". Connection numbers start at 1000 as slapd's do.
 * slapd logs nothing at `stats` for an unindexed search or a refused connection.
 */
#include "sim.h"

uint32_t lab_nentries(uint32_t j);

static void pre(uint64_t t, uint32_t thread)
{
    uint64_t sec = (uint64_t)LAB_T0_UNIX + t / NS;
    fprintf(S.fol, "%08llx.%08llx 0x7f75%06xc0 ", (unsigned long long)sec,
            (unsigned long long)(t % NS), 0x2ffff6u - (thread % 8) * 0x8010u);
}

static uint32_t cid(uint32_t ci) { return S.conns[ci].id + 999; }
static int cfd(uint32_t ci) { return S.conns[ci].fd - 52; }

int wol_open(const char *path)
{
    S.fol = fopen(path, "w");
    if (!S.fol)
        return -1;
    pre(0, 0);
    fputs("@(#) $OpenLDAP: slapd 2.5.13+dfsg-5 (Feb  8 2023 01:56:12) $\n"
          "\tDebian OpenLDAP Maintainers <pkg-openldap-devel@lists.alioth.debian.org>\n",
          S.fol);
    pre(0, 0);
    fputs("slapd starting\n", S.fol);
    return 0;
}

void wol_connect(uint32_t ci)
{
    const conn *c = &S.conns[ci];
    char ip[16];
    pre(S.now, ci);
    fprintf(S.fol, "conn=%u fd=%d ACCEPT from IP=%s:%u (IP=10.0.0.5:%d)\n", cid(ci), cfd(ci),
            lab_ip(S.hosts[S.sessions[c->sess].host].ip, ip), c->port, c->ldaps ? 636 : 389);
}

void wol_tls(uint32_t ci)
{
    pre(S.now, ci);
    fprintf(S.fol, "conn=%u fd=%d TLS established tls_ssf=256 ssf=256 tls_proto=TLSv1.2 "
                   "tls_cipher=ECDHE-RSA-AES256-GCM-SHA384\n", cid(ci), cfd(ci));
}

void wol_request(uint32_t ci, uint32_t j)
{
    const job *jb = &S.jobs[j];
    const sess *s = &S.sessions[S.conns[ci].sess];
    char dn[96];
    pre(S.now, ci);
    fprintf(S.fol, "conn=%u op=%d ", cid(ci), jb->opnum);
    switch (jb->op) {
    case OP_BIND:
        lab_user_dn(s->user, s->role, dn, sizeof dn);
        fprintf(S.fol, "BIND dn=\"%s\" method=128\n", dn);
        break;
    case OP_SRCH:
        fprintf(S.fol, "SRCH base=\"ou=people,dc=example,dc=com\" scope=2 deref=0 "
                       "filter=\"(uid=user%05u)\"\n", (j * 2654435761u) % (uint32_t)S.P.users);
        pre(S.now, ci);
        fprintf(S.fol, "conn=%u op=%d SRCH attr=cn mail telephoneNumber\n", cid(ci), jb->opnum);
        break;
    case OP_SRCHU:
        fprintf(S.fol, "SRCH base=\"dc=example,dc=com\" scope=2 deref=0 "
                       "filter=\"(|(title=*contractor*)(description=*vpn*))\"\n");
        break;
    case OP_MOD:
        lab_user_dn(s->user, s->role, dn, sizeof dn);
        fprintf(S.fol, "MOD dn=\"%s\"\n", dn);
        pre(S.now, ci);
        fprintf(S.fol, "conn=%u op=%d MOD attr=description\n", cid(ci), jb->opnum);
        break;
    default:
        fprintf(S.fol, "ADD dn=\"uid=new%u,ou=people,dc=example,dc=com\"\n", j);
        break;
    }
}

static const int TAG[OP_N] = {97, 101, 101, 103, 105, 0, 0};

void wol_result(uint32_t ci, uint32_t j)
{
    const job *jb = &S.jobs[j];
    const sess *s = &S.sessions[S.conns[ci].sess];
    uint64_t q = jb->t_start - jb->t_arr, e = jb->t_done - jb->t_arr;
    /* slapd's times have microseconds */
    if (jb->op == OP_BIND && jb->err == 0) {
        char dn[96];
        lab_user_dn(s->user, s->role, dn, sizeof dn);
        pre(S.now, ci);
        fprintf(S.fol, "conn=%u op=%d BIND dn=\"%s\" mech=SIMPLE bind_ssf=0 ssf=%d\n", cid(ci),
                jb->opnum, dn, S.conns[ci].ldaps ? 256 : 0);
    }
    pre(S.now, ci);
    int srch = jb->op == OP_SRCH || jb->op == OP_SRCHU;
    fprintf(S.fol, "conn=%u op=%d %sRESULT tag=%d err=%d qtime=%llu.%06llu etime=%llu.%06llu",
            cid(ci), jb->opnum, srch ? "SEARCH " : "", TAG[jb->op], jb->err,
            (unsigned long long)(q / NS), (unsigned long long)(q % NS / 1000),
            (unsigned long long)(e / NS), (unsigned long long)(e % NS / 1000));
    if (srch)
        fprintf(S.fol, " nentries=%u", lab_nentries(j));
    fputs(" text=\n", S.fol);
}

void wol_abandon(uint32_t ci, int32_t opnum, int32_t target)
{
    pre(S.now, ci);
    fprintf(S.fol, "conn=%u op=%d ABANDON msg=%d\n", cid(ci), opnum, target + 1);
}

void wol_unbind(uint32_t ci, int32_t opnum)
{
    pre(S.now, ci);
    fprintf(S.fol, "conn=%u op=%d UNBIND\n", cid(ci), opnum);
}

void wol_closed(uint32_t ci, int code)
{
    pre(S.now, ci);
    fprintf(S.fol, "conn=%u fd=%d closed%s\n", cid(ci), cfd(ci),
            code == CL_U1 ? "" : " (connection lost)");
}
