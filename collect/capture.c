/*
 * capture.c - packet captures into rows: pcap and pcapng files (plain or
 * compressed: the sat_input decompresses) and live interfaces. Each frame goes
 * through sat_pkt_decode with its interface's link type and then the flow table
 * (parse/tcp_flow.c), whose stream dissectors write tls_hs rows and LDAP
 * records (into a per-capture joiner: the capture is one "server", the flow
 * number is the connection number).
 *
 * Which reader reads what:
 *  - pcapng files (draft-ietf-opsawg-pcapng) are read here, block by block, by
 *    parse/wire/pcapng.c over the input's bytes: libpcap takes one link type for a
 *    whole file, refusing a file whose interfaces have different ones (tcpdump -i
 *    any on some versions, Wireshark's multi-interface captures, mergecap) and a
 *    later section of another link type; here every interface of every section
 *    keeps its own.
 *  - classic pcap files (tcpdump.org/manpages/pcap-savefile.5: one link type per
 *    file) are read by libpcap's offline reader, through a FILE* made with
 *    fopencookie over the sat_input, with nanosecond timestamps.
 *  - live interfaces are libpcap's.
 *
 * Accounting, as for logs: one sat_source per capture (kind "pcap", format
 * "pcap"/"pcapng"/"live", lines = packets read); a frame that does not decode
 * is a reject naming its packet number; frames that are not TCP are counted;
 * a link type the decoder does not know is said once (per link type), its
 * packets counted. pcapng only: a malformed packet block is a packet read and
 * rejected under its packet number, a malformed block of another kind is
 * rejected under its block number; the excerpt names the block and its byte
 * offset. A block whose length cannot be trusted, or a file that ends inside a
 * block, ends the reading: a reject under its block number (not a packet read),
 * said, the source marked truncated. Blocks of kinds
 * not read (statistics, name resolution, secrets, custom) are counted
 * (stats->pcapng_skipped), simple packet blocks (no time of their own) are
 * dated with the packet before them, and said so once.
 */
#define _GNU_SOURCE /* fopencookie */
#include <pcap/pcap.h>
#include <poll.h>
#include <stdio.h>
#include <time.h>

#include "collect_internal.h"
#include "satscope/parse.h"
#include "satscope/fields.h"
#include "satscope/wire.h"

int sat_capture_sniff(const void *head, size_t n)
{
    const uint8_t *b = head;
    if (n < 4)
        return 0;
    uint32_t be = ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3];
    uint32_t le = ((uint32_t)b[3] << 24) | ((uint32_t)b[2] << 16) | ((uint32_t)b[1] << 8) | b[0];
    if (be == 0xa1b2c3d4u || le == 0xa1b2c3d4u || be == 0xa1b23c4du || le == 0xa1b23c4du)
        return 1;
    if (be == 0x0a0d0d0au)
        return 2;
    return 0;
}

/* ---- FILE* over a sat_input ------------------------------------------------------------ */
typedef struct cookie {
    sat_input *in;
    sat_diag diag; /* the input's error, if any */
    int failed;
} cookie;

static ssize_t cookie_read(void *c, char *buf, size_t n)
{
    cookie *k = c;
    if (k->failed)
        return 0;
    ssize_t r = sat_input_read(k->in, buf, n, &k->diag);
    if (r < 0) {
        k->failed = 1; /* libpcap sees an end of file; we say why */
        return 0;
    }
    return r;
}

static int cookie_close(void *c)
{
    (void)c; /* the input is closed by its owner */
    return 0;
}

/* ---- the packet loop --------------------------------------------------------------------- */
typedef struct cap_run {
    sat_capture_job *job;
    sat_source src;
    sat_flow_table *flows;
    sat_ldap_join *join;
    sat_wire_ctx wctx;
    uint32_t reject_max;
    uint64_t emitted_rejects;
    int linktype;           /* of a pcap file or a live interface */
    int said_lt[16];        /* link types said to be unknown (said once each) */
    int nsaid;
} cap_run;

#define say(job, ...) sat_collect_warnf((job)->warn, (job)->warn_ctx, (job)->path, __VA_ARGS__)

static int reject_hex(cap_run *c, uint64_t number, const char *why, const char *prefix,
                      const uint8_t *bytes, size_t n)
{
    c->src.rejects++;
    if (c->emitted_rejects >= c->reject_max)
        return SAT_OK;
    c->emitted_rejects++;
    char hex[96 + 3 * 24 + 1];
    size_t o = 0;
    if (prefix)
        o = (size_t)snprintf(hex, 96, "%s", prefix);
    if (o >= 96)
        o = 95;
    if (n > 24)
        n = 24;
    for (size_t i = 0; i < n; i++)
        o += (size_t)snprintf(hex + o, sizeof hex - o, "%s%02x", i ? " " : "", bytes[i]);
    hex[o] = '\0';
    sat_reject r;
    r.source = c->src.id;
    r.line_no = number;
    r.reason = sat_str_cstr(why ? why : "malformed packet");
    r.excerpt = sat_str_make(hex, o);
    return sat_sink_emit(c->job->rows, SAT_TABLE_REJECT, &r);
}

static int reject(cap_run *c, uint64_t number, const char *why, const uint8_t *frame,
                  size_t caplen)
{
    return reject_hex(c, number, why, NULL, frame, caplen);
}

/* Link type not known to the decoder: said once per link type, its packets counted. */
static void unsupported(cap_run *c, int linktype)
{
    c->job->stats->unsupported_link++;
    for (int i = 0; i < c->nsaid; i++)
        if (c->said_lt[i] == linktype)
            return;
    if (c->nsaid < (int)(sizeof c->said_lt / sizeof c->said_lt[0]))
        c->said_lt[c->nsaid++] = linktype;
    else
        return; /* so many unknown link types: the count says the rest */
    const char *name = pcap_datalink_val_to_name(linktype);
    say(c->job, "link type %d (%s) is not supported: its packets are counted, "
                "not decoded", linktype, name ? name : "unknown");
}

/* One frame of link type linktype: ts in ns, caplen bytes at data. */
static int one_frame(cap_run *c, int linktype, sat_ts_ns ts, const uint8_t *data,
                     size_t caplen)
{
    sat_packet p;
    p.number = ++c->src.lines;
    p.ts = ts;
    if (!c->src.first_ts)
        c->src.first_ts = p.ts;
    if (p.ts)
        c->src.last_ts = p.ts;
    const char *why = NULL;
    int rc = sat_pkt_decode(linktype, data, caplen, &p, &why);
    if (rc == SAT_OK)
        return sat_flow_packet(c->flows, &p);
    if (rc == SAT_PKT_NOT_TCP) {
        c->job->stats->not_tcp++;
        return SAT_OK;
    }
    if (rc == SAT_E_UNSUPPORTED) {
        unsupported(c, linktype);
        return SAT_OK;
    }
    return reject(c, p.number, why, data, caplen);
}

static int one_packet(cap_run *c, const struct pcap_pkthdr *h, const uint8_t *data)
{
    /* ts.tv_usec holds nanoseconds: the file was opened with nanosecond precision */
    sat_ts_ns ts = (sat_ts_ns)h->ts.tv_sec * 1000000000LL + (sat_ts_ns)h->ts.tv_usec;
    return one_frame(c, c->linktype, ts, data, h->caplen);
}

/* *o->stop set: the packets read so far make the rows. 1 when the loop must end. */
static int interrupted(cap_run *c, int live)
{
    const sat_collect_opts *o = c->job->opts;
    if (!(o->stop && *o->stop))
        return 0;
    c->job->stats->interrupted = 1;
    if (live)
        say(c->job, "capture stopped by the interrupt after %llu packets",
            (unsigned long long)c->src.lines);
    else
        say(c->job, "interrupted after %llu packets: the rest of this capture "
            "was not read", (unsigned long long)c->src.lines);
    if (!live)
        c->src.truncated = 1;
    return 1;
}

static int drive(cap_run *c, pcap_t *pc, int live, sat_diag *err)
{
    struct pcap_pkthdr *h;
    const u_char *data;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const sat_collect_opts *o = c->job->opts;
    int r, rc = SAT_OK;
    for (;;) {
        if (interrupted(c, live))
            break;
        if (live) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            sat_dur_ns el = (sat_dur_ns)(now.tv_sec - t0.tv_sec) * 1000000000LL +
                            (now.tv_nsec - t0.tv_nsec);
            if (o->live_duration && el >= o->live_duration)
                break;
            if (o->live_count && c->src.lines >= o->live_count)
                break;
        }
        r = pcap_next_ex(pc, &h, &data);
        if (r == 1) {
            rc = one_packet(c, h, data);
            if (rc < 0)
                return rc;
        } else if (r == 0) {
            /* live, nothing pending: wait a little, then look at the clock
             * (the read timeout alone does not fire on an idle Linux socket) */
            int fd = pcap_get_selectable_fd(pc);
            if (fd >= 0) {
                struct pollfd pfd = {fd, POLLIN, 0};
                (void)poll(&pfd, 1, 100);
            }
            continue;
        } else if (r == PCAP_ERROR_BREAK) {
            break; /* end of the file */
        } else {
            sat_diag_set(err, SAT_E_TRUNCATED, c->job->path, "%s", pcap_geterr(pc));
            break;
        }
    }
    return rc;
}

/* ---- pcapng, read here (parse/wire/pcapng.c) ------------------------------------------ */
typedef struct ng_read {
    sat_input *in;
    uint8_t *buf;
    size_t cap, start, end;
    int eof;
    int input_failed;   /* the input ended early: its diag says why */
    sat_diag input_diag;
} ng_read;

/* Makes buf[start..end) hold at least need bytes (or all that is left). */
static int ng_fill(ng_read *g, size_t need)
{
    if (g->start) {
        memmove(g->buf, g->buf + g->start, g->end - g->start);
        g->end -= g->start;
        g->start = 0;
    }
    if (need > g->cap) {
        size_t nc = g->cap ? g->cap : 256 * 1024;
        while (nc < need)
            nc *= 2;
        uint8_t *nb = realloc(g->buf, nc);
        if (!nb)
            return SAT_E_NOMEM;
        g->buf = nb;
        g->cap = nc;
    }
    while (g->end < need && !g->eof) {
        ssize_t n = sat_input_read(g->in, g->buf + g->end, g->cap - g->end, &g->input_diag);
        if (n < 0) {
            g->input_failed = 1;
            g->eof = 1;
        } else if (n == 0) {
            g->eof = 1;
        } else {
            g->end += (size_t)n;
        }
    }
    return SAT_OK;
}

/* "block 7 at byte 1234 (interface description): " */
static void ng_where(char *dst, size_t cap, const sat_pcapng_step *s)
{
    snprintf(dst, cap, "block %llu at byte %llu (%s): ", (unsigned long long)s->block,
             (unsigned long long)s->offset, s->kind ? s->kind : "?");
}

static int drive_pcapng(cap_run *c, sat_input *in, sat_diag *err)
{
    sat_pcapng *r = sat_pcapng_create();
    ng_read g;
    memset(&g, 0, sizeof g);
    g.in = in;
    int rc = r ? SAT_OK : SAT_E_NOMEM;
    char where[128];
    while (rc >= 0) {
        if (interrupted(c, 0))
            break;
        sat_pcapng_step s;
        size_t used = 0;
        int w = sat_pcapng_next(r, g.buf ? g.buf + g.start : NULL, g.end - g.start, g.eof,
                                &used, &s);
        if (w < 0) {
            rc = w;
            break;
        }
        g.start += used;
        if (w == SAT_PCAPNG_MORE) {
            rc = ng_fill(&g, s.need);
        } else if (w == SAT_PCAPNG_PACKET) {
            rc = one_frame(c, s.linktype, s.ts, s.data, s.caplen);
        } else if (w == SAT_PCAPNG_REJECT) {
            uint64_t number = s.block;
            if (s.packet_block)
                number = ++c->src.lines; /* a packet read, and rejected */
            ng_where(where, sizeof where, &s);
            rc = reject_hex(c, number, s.why, where, s.head, s.head_len);
        } else if (w == SAT_PCAPNG_STOP) {
            if (c->job->opts->stop && *c->job->opts->stop) {
                (void)interrupted(c, 0); /* the input ended there because of it */
            } else if (g.input_failed) {
                *err = g.input_diag; /* the input was cut: it says why */
            } else {
                ng_where(where, sizeof where, &s);
                rc = reject_hex(c, s.block, s.why, where, s.head, s.head_len);
                sat_diag_set(err, SAT_E_TRUNCATED, c->job->path,
                             "%s%s: the rest of the capture was not read", where, s.why);
            }
            break;
        } else if (w == SAT_PCAPNG_END) {
            if (c->job->opts->stop && *c->job->opts->stop)
                (void)interrupted(c, 0);
            else if (g.input_failed)
                *err = g.input_diag;
            break;
        }
    }
    if (r) {
        sat_pcapng_counts n;
        sat_pcapng_get_counts(r, &n);
        c->job->stats->pcapng_skipped += n.skipped;
        if (n.undated)
            say(c->job, "%llu simple packet block%s carry no time: each is dated with the "
                "packet before it", (unsigned long long)n.undated, n.undated == 1 ? "" : "s");
    }
    sat_pcapng_free(r);
    free(g.buf);
    return rc;
}

static pcap_t *open_live(sat_capture_job *job, sat_diag *err)
{
    char eb[PCAP_ERRBUF_SIZE] = "";
    const sat_collect_opts *o = job->opts;
    pcap_t *pc = pcap_create(o->live_iface, eb);
    if (!pc) {
        sat_diag_set(err, SAT_E_IO, o->live_iface, "%s", eb);
        return NULL;
    }
    pcap_set_snaplen(pc, 262144);
    pcap_set_promisc(pc, 0);
    pcap_set_timeout(pc, 100); /* ms */
    pcap_set_immediate_mode(pc, 1);
    pcap_set_tstamp_precision(pc, PCAP_TSTAMP_PRECISION_NANO);
    int a = pcap_activate(pc);
    if (a < 0) {
        sat_diag_set(err, SAT_E_IO, o->live_iface, "%s", pcap_geterr(pc));
        pcap_close(pc);
        return NULL;
    }
    if (pcap_setnonblock(pc, 1, eb) != 0) {
        sat_diag_set(err, SAT_E_IO, o->live_iface, "%s", eb);
        pcap_close(pc);
        return NULL;
    }
    if (o->live_filter && *o->live_filter) {
        struct bpf_program prog;
        if (pcap_compile(pc, &prog, o->live_filter, 1, PCAP_NETMASK_UNKNOWN) != 0 ||
            pcap_setfilter(pc, &prog) != 0) {
            sat_diag_set(err, SAT_E_USAGE, o->live_iface, "filter '%s': %s", o->live_filter,
                         pcap_geterr(pc));
            pcap_freecode(&prog);
            pcap_close(pc);
            return NULL;
        }
        pcap_freecode(&prog);
    }
    return pc;
}

/* A classic pcap file opened by libpcap over the input (*pc NULL and *d set if not). */
static void pcap_over_input(sat_capture_job *job, sat_input *in, cookie *ck, pcap_t **pc,
                            sat_diag *d)
{
    ck->in = in;
    cookie_io_functions_t io = {cookie_read, NULL, NULL, cookie_close};
    FILE *fp = fopencookie(ck, "r", io);
    if (!fp) {
        sat_diag_set(d, SAT_E_NOMEM, job->path, "out of memory");
        return;
    }
    char eb[PCAP_ERRBUF_SIZE] = "";
    *pc = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, eb);
    if (!*pc) {
        fclose(fp);
        if (ck->failed)
            *d = ck->diag;
        else
            sat_diag_set(d, SAT_E_FORMAT, job->path, "not a readable capture: %s", eb);
    } /* else pcap_close closes fp */
}

/* 1 when the first block of a pcapng file (in its first bytes, head) can be read, else 0
 * with *d set: the file is not a readable capture. */
static int ng_first_block(const char *path, const char *head, size_t n, sat_diag *d)
{
    sat_pcapng *r = sat_pcapng_create();
    if (!r) {
        sat_diag_set(d, SAT_E_NOMEM, path, "out of memory");
        return 0;
    }
    sat_pcapng_step s;
    size_t used;
    int w = sat_pcapng_next(r, (const uint8_t *)head, n, 0, &used, &s);
    sat_pcapng_free(r);
    if (w == SAT_PCAPNG_STOP) {
        sat_diag_set(d, SAT_E_FORMAT, path, "not a readable capture: %s", s.why);
        return 0;
    }
    return 1;
}

int sat_capture_collect(sat_capture_job *job)
{
    sat_diag d;
    memset(&d, 0, sizeof d);
    int live = !job->path && job->opts->live_iface;
    char live_name[300];
    if (live) {
        snprintf(live_name, sizeof live_name, "live:%s", job->opts->live_iface);
        job->path = live_name;
    }
    cookie ck;
    memset(&ck, 0, sizeof ck);
    sat_input *in = job->in;
    pcap_t *pc = NULL;
    int ng = 0; /* a pcapng file, read here */
    const char *fmt = live ? "live" : "pcap";
    if (live) {
        pc = open_live(job, &d);
    } else {
        if (!in)
            in = sat_input_open(job->path, &d);
        if (in) {
            size_t pl = 0;
            const char *peek = sat_input_peek(in, &pl);
            if (sat_capture_sniff(peek, pl) == 2) {
                fmt = "pcapng";
                ng = ng_first_block(job->path, peek, pl, &d);
            } else {
                pcap_over_input(job, in, &ck, &pc, &d);
            }
        }
    }
    if (!pc && !ng) {
        job->unreadable = 1;
        job->problem = d;
        say(job, "%s", d.msg);
        if (in && in != job->in)
            sat_input_close(in);
        return SAT_OK;
    }

    cap_run c;
    memset(&c, 0, sizeof c);
    c.job = job;
    c.linktype = pc ? pcap_datalink(pc) : 0;
    c.reject_max = job->opts->reject_sample_max ? job->opts->reject_sample_max : 100;
    c.src.id = job->source_id;
    c.src.server = job->server;
    c.src.path = sat_str_cstr(job->path);
    c.src.kind = sat_str_cstr("pcap");
    c.src.format = sat_str_cstr(fmt);
    c.src.compression = sat_str_cstr(in ? sat_input_compression(in) : "none");
    c.src.server_name = SAT_STR_NONE;
    c.src.server_version = SAT_STR_NONE;
    c.join = sat_ldap_join_create(job->server, job->rows, 0);
    c.wctx.sink = job->rows;
    c.wctx.join = c.join;
    c.wctx.source = job->source_id;
    sat_flow_opts fo;
    memset(&fo, 0, sizeof fo);
    fo.ldap_port = job->opts->ldap_port;
    c.flows = c.join ? sat_flow_table_create(&fo, &c.wctx) : NULL;
    int rc = c.flows ? SAT_OK : SAT_E_NOMEM;
    if (rc == SAT_OK) {
        sat_ldap_join_set_filter_shapes(c.join, !job->opts->no_filter_shapes);
        /* flows open LDAP connections in the order their first message
         * arrives, not in flow-number order: a lower number is not a restart */
        sat_ldap_join_set_restart_detection(c.join, 0);
    }
    job->stats->captures++;

    sat_diag err;
    memset(&err, 0, sizeof err);
    if (rc == SAT_OK)
        rc = ng ? drive_pcapng(&c, in, &err) : drive(&c, pc, live, &err);
    if (rc >= 0)
        rc = sat_flow_finish(c.flows, c.src.last_ts);
    if (rc >= 0)
        rc = sat_ldap_join_finish(c.join);
    if (rc >= 0 && (ck.failed || err.code)) {
        /* Every packet before the damage was used; say what was lost. */
        sat_diag *why = ck.failed ? &ck.diag : &err;
        c.src.truncated = 1;
        job->truncated = 1;
        job->problem = *why;
        say(job, "%s", why->msg);
    }
    if (c.flows) {
        sat_flow_stats fs;
        sat_flow_get_stats(c.flows, &fs);
        job->stats->flows += fs.flows;
        job->stats->evicted += fs.evicted;
        job->stats->expired += fs.expired;
        if (fs.evicted)
            say(job, "%llu connection%s evicted at the flow table's capacity",
                (unsigned long long)fs.evicted, fs.evicted == 1 ? "" : "s");
    }
    if (c.join) {
        sat_join_stats js;
        sat_ldap_join_stats(c.join, &js);
        job->stats->ops += js.ops;
        job->stats->conns += js.conns;
        job->stats->unfinished += js.unfinished;
        /* LDAP decoded from the wire carries what the messages do (fields.h);
         * a capture without LDAP declares nothing */
        if (js.ops || js.conns)
            c.src.fields = sat_fields_settle(c.src.format, 0);
    }
    job->stats->packets += c.src.lines;
    job->stats->rejects += c.src.rejects;
    c.src.bytes = in ? sat_input_bytes(in) : 0;
    sat_collect_name_source(job->opts, job->path, &c.src);
    if (rc >= 0)
        rc = sat_sink_emit(job->sink, SAT_TABLE_SOURCE, &c.src);
    sat_flow_table_free(c.flows); /* after the last rows: they borrow its strings */
    sat_ldap_join_free(c.join);
    if (pc)
        pcap_close(pc);
    if (in && in != job->in)
        sat_input_close(in);
    return rc;
}
