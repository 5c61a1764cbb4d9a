/*
 * handshakes_dirlog.c - what a directory server's access log tells of TLS
 * (ldap_conn rows, event.h), for the handshakes analyzer: the "dirlogs"
 * object of its result (hs_dir_result).
 *
 * The rule: 389 DS logs each TLS connection ("SSL connection from", then
 * "conn=N TLS1.2 256-bit AES-GCM"; a StartTLS extended operation), OpenLDAP
 * its "TLS established"; neither logs whether the handshake resumed a
 * session. So a log gives the number of connections that did a TLS
 * handshake (on an LDAPS port, or upgraded by StartTLS), never how many of
 * them were full or resumed: those are absent, with why, not 0. A capture
 * of the same period gives them. Counts are a record (acc.h): parts merge
 * exactly.
 */
#include <stdlib.h>
#include <string.h>

#include "handshakes_int.h"
#include "state_io.h"

#define HS_DIR_COUNT_ACC(f, key, title, note) SAT_COUNTER(hs_dir_counts, f, key, title, note),
static const sat_acc_field dir_fields[] = {HS_DIR_COUNTS(HS_DIR_COUNT_ACC)};
static const sat_rec_desc dir_desc = {sizeof(hs_dir_counts), dir_fields,
                                      sizeof dir_fields / sizeof dir_fields[0], NULL};

typedef struct hs_dir_totals {
    hs_dir_counts c;
    sat_ts_ns first_ts, last_ts; /* of the TLS connections' opens */
} hs_dir_totals;

static const sat_acc_field totals_fields[] = {
    SAT_ACC_RUN(SAT_ACC_COUNT, hs_dir_totals, c),
    SAT_ACC(SAT_ACC_FIRST, hs_dir_totals, first_ts),
    SAT_ACC(SAT_ACC_LAST, hs_dir_totals, last_ts),
};
static const sat_rec_desc totals_desc = {sizeof(hs_dir_totals), totals_fields,
                                         sizeof totals_fields / sizeof totals_fields[0], NULL};

struct hs_dir {
    hs_dir_totals t;
    char format[32]; /* the first directory-server log format read ("389-text") */
};

hs_dir *hs_dir_create(void)
{
    hs_dir *d = (hs_dir *)calloc(1, sizeof *d);
    if (d)
        sat_rec_init(&totals_desc, &d->t);
    return d;
}

void hs_dir_free(hs_dir *d) { free(d); }

void hs_dir_source(hs_dir *d, const sat_source *s)
{
    if ((s->fields & SAT_FIELDS_HTTP_SOURCE) || d->format[0] || !s->format.ptr || !s->kind.ptr ||
        s->kind.len != 3 || memcmp(s->kind.ptr, "log", 3) != 0)
        return;
    size_t n = s->format.len < sizeof d->format - 1 ? s->format.len : sizeof d->format - 1;
    memcpy(d->format, s->format.ptr, n);
    d->format[n] = 0;
}

void hs_dir_conn(hs_dir *d, const sat_ldap_conn *x)
{
    hs_dir_counts *c = &d->t.c;
    c->connections++;
    int ldaps = x->listener == SAT_LISTENER_LDAPS, starttls = x->listener == SAT_LISTENER_STARTTLS;
    if (!(ldaps || starttls || (x->flags & SAT_CONNF_TLS)))
        return;
    c->tls++;
    c->ldaps += ldaps;
    c->starttls += starttls;
    if (x->open_ts > 0) {
        sat_acc_first(&d->t.first_ts, x->open_ts, NULL, 0);
        sat_acc_last(&d->t.last_ts, x->open_ts, NULL, 0);
    }
}

int hs_dir_merge(hs_dir *into, const hs_dir *from)
{
    if (!into->format[0])
        memcpy(into->format, from->format, sizeof into->format);
    return sat_rec_merge(&totals_desc, &into->t, &from->t);
}

/* Connections read from a directory server's log (ldap_conn rows also come
 * from LDAP dissected on the wire, which tell nothing of TLS). */
int hs_dir_any(const hs_dir *d) { return d && d->format[0] && d->t.c.connections; }

void hs_dir_result(const hs_dir *d, sat_rnode *root)
{
    const hs_dir_totals *t = &d->t;
    sat_rnode *o = sat_obj(root, "dirlogs");
    sat_put_text(o, "format", d->format[0] ? d->format : NULL);
    sat_rec_put(&dir_desc, o, &t->c, NULL);
    /* what the format cannot say is absent, with why */
    sat_put_absent(o, "full", SAT_UNIT_COUNT);
    sat_put_absent(o, "resumed", SAT_UNIT_COUNT);
    sat_put_text(o, "resumption",
                 "not logged by this format: a directory server's access log records that a "
                 "connection used TLS, not whether its handshake resumed a session; a capture of "
                 "the same period gives it (satscope handshakes CAPTURE.pcap)");
    sat_put_time(o, "first_ts", t->first_ts);
    sat_put_time(o, "last_ts", t->first_ts ? t->last_ts : 0);
}

/* ---- its state in a partial (handshakes_state.c) ------------------------------------ */

void hs_dir_save(const hs_dir *d, sat_sw *w)
{
    sat_sw_tag(w, "handshakes.dirlogs");
    sat_sw_recs(w, &totals_desc, &d->t, 1);
    sat_sw_str(w, d->format);
}

int hs_dir_load(hs_dir *d, sat_sr *r)
{
    if (sat_sr_tag(r, "handshakes.dirlogs") != SAT_OK ||
        sat_sr_recs(r, &totals_desc, &d->t, 1) != SAT_OK)
        return r->err;
    size_t n;
    const char *f = sat_sr_blob(r, &n);
    if (sat_sr_ok(r) && (!f || n >= sizeof d->format || memchr(f, 0, n)))
        return sat_sr_fail(r, SAT_E_CORRUPT, "handshakes: a directory-server log format of %zu "
                           "bytes", n);
    memset(d->format, 0, sizeof d->format);
    if (f)
        memcpy(d->format, f, n);
    return sat_sr_status(r);
}
