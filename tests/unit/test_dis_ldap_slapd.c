/*
 * test_dis_ldap_slapd.c - the LDAP stream dissector (parse/wire/dis_ldap.c) on a
 * real slapd exchange: fixtures/ldapwire/ldap.pcap, read by a minimal
 * classic-pcap reader that lives only in this test, through a capturing rig
 * (ldap_rig.h), compared with slapd's own log of the same run
 * (fixtures/ldapwire/slapd-stats.log, through the OpenLDAP format).
 */
#include "check.h"

#include "ldap_rig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Minimal classic-pcap reader (this test only): Ethernet / Linux cooked v1,
 * IPv4 / IPv6 without extension headers, TCP; reassembly is naive (in-order
 * segments appended, anything else dropped), enough for loopback captures. */
#define MAXF 64
typedef struct pflow {
    uint8_t used;
    uint16_t cport, sport;
    uint32_t next[2];
    uint8_t have[2];
    void *st;
    sat_flow_info fi;
    char cip[48], sip[48];
} pflow;

static uint32_t rd32(const uint8_t *p, int swap)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return swap ? __builtin_bswap32(v) : v;
}

static int read_pcap(const char *path, rig *r, uint16_t server_port, int *nflows)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    uint8_t gh[24];
    if (fread(gh, 1, 24, f) != 24) {
        fclose(f);
        return -1;
    }
    uint32_t magic;
    memcpy(&magic, gh, 4);
    int swap = magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1;
    int nano = magic == 0xa1b23c4d || magic == 0x4d3cb2a1;
    uint32_t link = rd32(gh + 20, swap);
    static pflow fl[MAXF];
    memset(fl, 0, sizeof fl);
    uint8_t ph[16];
    static uint8_t pkt[262144];
    uint32_t flow_no = 0;
    while (fread(ph, 1, 16, f) == 16) {
        uint32_t caplen = rd32(ph + 8, swap);
        if (caplen > sizeof pkt || fread(pkt, 1, caplen, f) != caplen)
            break;
        sat_ts_ns ts = (sat_ts_ns)rd32(ph, swap) * 1000000000LL +
                       (sat_ts_ns)rd32(ph + 4, swap) * (nano ? 1 : 1000);
        size_t off;
        uint16_t et;
        if (link == 1) {
            off = 14;
            et = (uint16_t)(pkt[12] << 8 | pkt[13]);
        } else if (link == 113) {
            off = 16;
            et = (uint16_t)(pkt[14] << 8 | pkt[15]);
        } else {
            continue;
        }
        const uint8_t *ip = pkt + off, *tcp;
        size_t iplen;
        char src[48], dst[48];
        if (et == 0x0800 && caplen >= off + 20 && ip[9] == 6) {
            size_t ihl = (size_t)(ip[0] & 15) * 4;
            iplen = (size_t)(ip[2] << 8 | ip[3]);
            snprintf(src, sizeof src, "%u.%u.%u.%u", ip[12], ip[13], ip[14], ip[15]);
            snprintf(dst, sizeof dst, "%u.%u.%u.%u", ip[16], ip[17], ip[18], ip[19]);
            tcp = ip + ihl;
            iplen -= ihl;
        } else if (et == 0x86dd && caplen >= off + 40 && ip[6] == 6) {
            iplen = (size_t)(ip[4] << 8 | ip[5]);
            snprintf(src, sizeof src, "v6");
            snprintf(dst, sizeof dst, "v6");
            tcp = ip + 40;
        } else {
            continue;
        }
        if ((size_t)(tcp - pkt) + 20 > caplen || (size_t)(tcp - pkt) + iplen > caplen)
            continue;
        uint16_t sp = (uint16_t)(tcp[0] << 8 | tcp[1]), dp = (uint16_t)(tcp[2] << 8 | tcp[3]);
        uint32_t seq = (uint32_t)tcp[4] << 24 | (uint32_t)tcp[5] << 16 | (uint32_t)tcp[6] << 8 | tcp[7];
        size_t thl = (size_t)(tcp[12] >> 4) * 4;
        uint8_t flags = tcp[13];
        if (thl > iplen)
            continue;
        const uint8_t *pl = tcp + thl;
        size_t plen = iplen - thl;
        int dir = dp == server_port ? SAT_DIR_C2S : sp == server_port ? SAT_DIR_S2C : -1;
        if (dir < 0)
            continue;
        uint16_t cport = dir == SAT_DIR_C2S ? sp : dp;
        pflow *p = NULL;
        for (int i = 0; i < MAXF; i++)
            if (fl[i].used && fl[i].cport == cport)
                p = &fl[i];
        if (!p && (flags & 0x02) && dir == SAT_DIR_C2S) {
            for (int i = 0; i < MAXF && !p; i++)
                if (!fl[i].used)
                    p = &fl[i];
            if (!p)
                continue;
            memset(p, 0, sizeof *p);
            p->used = 1;
            p->cport = cport;
            snprintf(p->cip, sizeof p->cip, "%s", src);
            snprintf(p->sip, sizeof p->sip, "%s", dst);
            p->fi.flow = ++flow_no;
            p->fi.client_ip = sat_str_cstr(p->cip);
            p->fi.server_ip = sat_str_cstr(p->sip);
            p->fi.client_port = cport;
            p->fi.server_port = server_port;
        }
        if (!p)
            continue;
        if (flags & 0x02) {
            p->next[dir] = seq + 1;
            p->have[dir] = 1;
            continue;
        }
        if (plen && p->have[dir] && seq == p->next[dir]) {
            if (!p->st)
                p->st = sat_dissect_ldap.create(&p->fi, &r->ctx);
            if (p->st)
                sat_dissect_ldap.data(p->st, dir, ts, pl, plen);
            p->next[dir] += (uint32_t)plen;
        }
        if (flags & 0x05) { /* FIN or RST: the first one ends it */
            if (p->st) {
                int how = (flags & 0x04) ? (dir == SAT_DIR_C2S ? SAT_TCP_END_RST_CLIENT
                                                               : SAT_TCP_END_RST_SERVER)
                                         : (dir == SAT_DIR_C2S ? SAT_TCP_END_FIN_CLIENT
                                                               : SAT_TCP_END_FIN_SERVER);
                sat_dissect_ldap.end(p->st, how, ts);
                sat_dissect_ldap.destroy(p->st);
            }
            p->used = 0;
            p->st = NULL;
        }
    }
    for (int i = 0; i < MAXF; i++)
        if (fl[i].used && fl[i].st) {
            sat_dissect_ldap.end(fl[i].st, SAT_TCP_END_NONE, 0);
            sat_dissect_ldap.destroy(fl[i].st);
        }
    fclose(f);
    *nflows = (int)flow_no;
    return 0;
}

/* slapd's own log of the same run, through the OpenLDAP format and a joiner */
extern const sat_log_format sat_fmt_openldap;

static int read_log(const char *path, cap *out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    sat_event_sink sink = {0};
    sink.ctx = out;
    sink.tables = SAT_TABLE_BIT(SAT_TABLE_LDAP_OP) | SAT_TABLE_BIT(SAT_TABLE_LDAP_CONN);
    sink.on_row = rows_op_conn;
    sat_ldap_join *j = sat_ldap_join_create(0, &sink, 0);
    sat_source src;
    memset(&src, 0, sizeof src);
    sat_parse_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.join = j;
    ctx.sink = &sink;
    ctx.source = &src;
    void *st = sat_fmt_openldap.create(&ctx);
    char line[4096];
    uint64_t no = 0;
    while (fgets(line, sizeof line, f)) {
        size_t n = strlen(line);
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            n--;
        sat_fmt_openldap.line(st, line, n, ++no);
    }
    sat_fmt_openldap.finish(st);
    sat_fmt_openldap.destroy(st);
    sat_ldap_join_finish(j);
    sat_ldap_join_free(j);
    fclose(f);
    return 0;
}

static int cmp_row(const void *a, const void *b)
{
    const crow *x = (const crow *)a, *y = (const crow *)b;
    if (x->conn != y->conn)
        return x->conn < y->conn ? -1 : 1;
    return x->op < y->op ? -1 : x->op > y->op;
}

static void test_slapd_capture(void)
{
    const char *srcdir = getenv("SAT_SRC");
    char pcap[1024], log[1024];
    snprintf(pcap, sizeof pcap, "%s/fixtures/ldapwire/ldap.pcap", srcdir ? srcdir : ".");
    snprintf(log, sizeof log, "%s/fixtures/ldapwire/slapd-stats.log", srcdir ? srcdir : ".");
    static rig r;
    rig_open(&r, 0);
    sat_dissect_ldap.destroy(r.st);
    int nflows = 0;
    CHECK_EQ_INT(read_pcap(pcap, &r, 38913, &nflows), 0);
    sat_ldap_join_finish(r.j);
    sat_ldap_join_free(r.j);
    static cap lg;
    memset(&lg, 0, sizeof lg);
    CHECK_EQ_INT(read_log(log, &lg), 0);
    /* one connection per client call on both sides, all closed by the client */
    CHECK_EQ_INT(nflows, 15);
    CHECK_EQ_INT(r.c.nconns, lg.nconns);
    for (int i = 0; i < r.c.nconns; i++) {
        CHECK_EQ_STR(r.c.conns[i].reason, "client closed (FIN)");
        CHECK_EQ_STR(r.c.conns[i].client, "127.0.0.1");
        CHECK_EQ_INT(r.c.conns[i].ops, lg.conns[i].ops);
    }
    /* the same operations in the same order per connection: type, result
     * code, entries (the log numbers ops from 0 per connection, the wire by
     * messageID; conns are 1000.. in the log, flows 1.. on the wire) */
    CHECK_EQ_INT(r.c.nops, lg.nops);
    qsort(r.c.ops, (size_t)r.c.nops, sizeof r.c.ops[0], cmp_row);
    qsort(lg.ops, (size_t)lg.nops, sizeof lg.ops[0], cmp_row);
    int n = r.c.nops < lg.nops ? r.c.nops : lg.nops, diffs = 0, timed = 0, srch = 0;
    for (int i = 0; i < n; i++) {
        const crow *w = &r.c.ops[i], *l = &lg.ops[i];
        if (w->conn != l->conn - 999 || w->type != l->type || w->err != l->err ||
            w->nentries != l->nentries || strcmp(w->dn, l->dn) != 0) {
            fprintf(stderr, "wire conn %lld op %lld %s err %d n %lld dn %s | log conn %lld op %lld %s err %d n %lld dn %s\n",
                    (long long)w->conn, (long long)w->op, sat_optype_name(w->type), w->err,
                    (long long)w->nentries, w->dn, (long long)l->conn, (long long)l->op,
                    sat_optype_name(l->type), l->err, (long long)l->nentries, l->dn);
            diffs++;
        }
        /* filters as slapd logs them, but for (cn>=c): slapd marks an
         * undefined ordering match as "(?cn>=c)", the wire has "(cn>=c)";
         * and slapd writes attribute names as the schema spells them
         * (ldapsearch sends "(objectclass=*)", slapd logs objectClass) */
        if (w->type == SAT_OP_SRCH) {
            srch++;
            if (strcasecmp(w->filter, l->filter) != 0 &&
                !(strcmp(l->filter, "(?cn>=c)") == 0 && strcmp(w->filter, "(cn>=c)") == 0)) {
                fprintf(stderr, "filter %s | %s\n", w->filter, l->filter);
                diffs++;
            }
        }
        if (w->type != SAT_OP_UNBIND) {
            /* wire latency seen by the client side of loopback: at least
             * the server's own etime minus its clock granularity */
            if (w->etime > 0 && l->etime > 0 && w->etime + 50000 >= l->etime)
                timed++;
        }
    }
    CHECK_EQ_INT(diffs, 0);
    CHECK_EQ_INT(srch, 10);
    int answered = 0;
    for (int i = 0; i < n; i++)
        if (lg.ops[i].type != SAT_OP_UNBIND)
            answered++;
    CHECK_EQ_INT(timed, answered);
    const crow *paged = NULL;
    for (int i = 0; i < r.c.nops; i++)
        if ((r.c.ops[i].flags & SAT_OPF_PAGED) && !paged)
            paged = &r.c.ops[i];
    CHECK(paged != NULL);
}

int main(void)
{
    test_slapd_capture();
    return CHECK_DONE();
}
