/*
 * text_etime_logconv.c - the sections of the etime text report that follow
 * logconv.pl's default report (389-ds-base ldap/admin/src/logconv.pl):
 * connections, close codes, result codes, notes, unindexed searches, binds,
 * the top-N lists and the abandon requests, read from the result sections
 * (analyze/etime_result.c). A figure no input can log says "not logged" and
 * why; one only some inputs can log says it is partial.
 */
#include <string.h>

#include "text_etime.h"

void etx_connections(etx *x)
{
    const sat_rnode *c = sat_rnode_get(x->root, "connection_stats");
    sat_text_title(x->t, "Connections");
    etx_kvs k;
    etx_kv_init(&k, x);
    etx_kv(&k, "Total connections:", c, "total", NULL, etx_rate(x, etx_count(c, "total")));
    etx_kv(&k, " - opened in the input:", c, "opened", NULL, NULL);
    etx_kv(&k, " - already open at its start:", c, "no_open_line", NULL,
           "(no open line: open from the start for the peak)");
    const sat_rnode *bl = sat_rnode_get(c, "by_listener");
    for (const sat_rnode *l = sat_rnode_first(bl); l; l = sat_rnode_next(l)) {
        const char *name = sat_rnode_key(l);
        char label[64];
        uint64_t n = etx_count(bl, name);
        if (!strcmp(name, "unknown")) {
            etx_kv(&k, " - listener unknown:", bl, name, NULL, NULL);
            continue;
        }
        snprintf(label, sizeof label, " - on %s:", name);
        etx_kv(&k, label, bl, name, NULL, etx_rate(x, n));
    }
    char at[96] = "";
    const sat_value *pt = etx_val(c, "peak_ts");
    if (pt && !pt->absent) {
        char ts[64];
        sat_fmt_value(ts, sizeof ts, pt);
        snprintf(at, sizeof at, "at %s", ts);
    }
    etx_kv(&k, "Peak concurrent connections:", c, "peak_concurrent", NULL, at);
    etx_kv(&k, "Still open at the end:", c, "unclosed", NULL,
           "(never closed: open to the end for the peak)");
    etx_kv(&k, "FDs taken:", c, "fds_taken", "fd", NULL);
    etx_kv(&k, "FDs returned:", c, "fds_returned", "fd", NULL);
    etx_kv(&k, "Highest FD taken:", c, "highest_fd", "fd", NULL);
    etx_kv(&k, "Broken pipes:", c, "broken_pipe", "close_errno", NULL);
    etx_kv(&k, "Connections reset by peer:", c, "reset_by_peer", "close_errno", NULL);
    etx_kv(&k, "Resource unavailable:", c, "resource_unavailable", "close_errno", NULL);
    etx_kv(&k, "Max BER size exceeded (B2):", c, "max_ber_exceeded", "close_code", NULL);
    /* OpenLDAP's own close kinds: shown where an input can log them */
    if (!etx_not_logged(x, "close_lost")) {
        etx_kv(&k, "Connections lost:", c, "lost", "close_lost",
               "(gone without an UNBIND, or a read failed)");
        etx_kv(&k, "Connections lost on write:", c, "lost_on_write", "close_lost",
               "(an answer could not be sent)");
    }
    etx_kv_print(&k, NULL);
    const sat_rnode *tls = sat_rnode_get(c, "tls_versions");
    if (sat_rnode_count(tls)) {
        sat_text_line(x->t, "  Secure protocol versions:");
        sat_text_table(x->t, tls, "count,version", 0, "    ");
    }
}

void etx_codes(etx *x)
{
    const sat_rnode *cc = sat_rnode_get(x->root, "close_codes");
    sat_text_title(x->t, "Close codes");
    if (sat_rnode_count(cc))
        sat_text_table(x->t, cc, "close_code=code,count,meaning", 0, NULL);
    else
        sat_text_line(x->t, "  none");

    const sat_rnode *rc = sat_rnode_get(x->root, "result_codes");
    sat_text_title(x->t, "Result codes");
    if (sat_rnode_count(rc))
        sat_text_table(x->t, rc, "result_code=err,count,name", 0, NULL);
    else
        sat_text_line(x->t, "  none");

    sat_text_title(x->t, "Notes (each letter of notes=A,P counts)");
    if (etx_not_logged(x, "notes")) {
        sat_text_line(x->t, "  not logged %s", etx_field_note(x, "notes", NULL));
        return;
    }
    sat_text_table(x->t, sat_rnode_get(x->root, "note_counts"), "note,count,meaning", 0, NULL);
    const char *n = etx_field_note(x, "notes", NULL);
    if (*n)
        sat_text_line(x->t, "  %s", n);
}

void etx_unindexed(etx *x)
{
    const sat_rnode *u = sat_rnode_get(x->root, "unindexed");
    const char *n = etx_field_note(x, "notes", NULL);
    if (etx_not_logged(x, "notes")) {
        sat_text_title(x->t, "Unindexed searches (notes=A or U): not logged");
        sat_text_line(x->t, "  %s", n);
        return;
    }
    const sat_rnode *s = sat_rnode_get(u, "searches");
    size_t ns = sat_rnode_count(s);
    uint64_t total = etx_count(u, "total"), distinct = etx_count(u, "distinct"),
             folded = etx_count(u, "folded");
    char more[64] = "";
    if (ns < distinct)
        snprintf(more, sizeof more, " (the %zu most frequent shown)", ns);
    sat_text_title(x->t, "Unindexed searches (notes=A or U): %llu, %llu distinct%s",
                   (unsigned long long)total, (unsigned long long)distinct, more);
    if (*n)
        sat_text_line(x->t, "  %s", n);
    if (folded)
        sat_text_line(x->t, "  (%llu more past the table cap not itemised)",
                      (unsigned long long)folded);
    size_t i = 0;
    for (const sat_rnode *r = sat_rnode_first(s); r; r = sat_rnode_next(r)) {
        char mx[64], tot[64], ne[32], ts[64];
        sat_fmt_value(mx, sizeof mx, sat_row_get(r, "max_s"));
        sat_fmt_value(tot, sizeof tot, sat_row_get(r, "total_s"));
        sat_fmt_value(ne, sizeof ne, sat_row_get(r, "nentries_max"));
        sat_fmt_value(ts, sizeof ts, sat_row_get(r, "first_ts"));
        sat_text_line(x->t, "  %zu. %llu x notes=%s  etime max %s, total %s, nentries max %s",
                      ++i, (unsigned long long)etx_count(r, "count"),
                      sat_row_get(r, "notes")->v.s, mx, tot, ne);
        etx_kvs k;
        etx_kv_init(&k, x);
        sat_tbl_init(&k.tb, "ll");
        const char *bd = sat_row_get(r, "binddn")->v.s;
        char first[128];
        snprintf(first, sizeof first, "%s conn=%lld op=%lld", ts,
                 (long long)sat_row_get(r, "first_conn_id")->v.i,
                 (long long)sat_row_get(r, "first_op_id")->v.i);
        const char *rows[5][2] = {{"base:", sat_row_get(r, "base")->v.s},
                                  {"filter:", sat_row_get(r, "filter")->v.s},
                                  {"client:", sat_row_get(r, "client")->v.s},
                                  {"bind DN:", *bd ? bd : "(anonymous or unknown)"},
                                  {"first:", first}};
        for (int j = 0; j < 5; j++)
            sat_tbl_row(&k.tb, rows[j]);
        etx_kv_print(&k, "       ");
    }
}

void etx_binds(etx *x)
{
    const sat_rnode *b = sat_rnode_get(x->root, "binds");
    sat_text_title(x->t, "Binds (SASL steps answered err=14 folded into their bind; "
                         "AUTOBIND + BIND = one)");
    etx_kvs k;
    etx_kv_init(&k, x);
    etx_kv(&k, "Binds:", b, "total", NULL, etx_rate(x, etx_count(b, "total")));
    etx_kv(&k, " - LDAP v2:", b, "ldap_v2", "bind_version", "(BIND version=2)");
    etx_kv(&k, " - LDAP v3:", b, "ldap_v3", "bind_version", "(BIND version=3)");
    etx_kv(&k, " - simple:", b, "simple", NULL, NULL);
    etx_kv(&k, " - anonymous:", b, "anonymous", NULL, NULL);
    etx_kv(&k, " - SASL:", b, "sasl", NULL, NULL);
    const sat_rnode *m = sat_rnode_get(b, "sasl_mechs");
    for (const sat_rnode *r = sat_rnode_first(m); r; r = sat_rnode_next(r)) {
        char label[160];
        snprintf(label, sizeof label, "    - %s:", sat_row_get(r, "mech")->v.s);
        etx_kv(&k, label, r, "count", NULL, NULL);
    }
    etx_kv(&k, " - AUTOBIND (LDAPI):", b, "autobind", NULL, NULL);
    etx_kv(&k, "SASL in-progress steps (err=14):", b, "sasl_steps_folded", NULL, "(folded)");
    const sat_value *rn = etx_val(b, "root_dn_name");
    char rd[320];
    snprintf(rd, sizeof rd, "(\"%s\", any case)", rn && !rn->absent ? rn->v.s : "");
    etx_kv(&k, "Root DN (Directory Manager) binds:", b, "root_dn", NULL, rd);
    etx_kv(&k, "Failed binds (err=49):", b, "failed", NULL, NULL);
    etx_kv(&k, "SSL client (certificate) binds:", b, "ssl_client", NULL,
           "(connections: \"client bound as\")");
    etx_kv(&k, "Failed SSL client binds:", b, "ssl_client_failed", NULL,
           "(connections: certificate not mapped to a DN)");
    etx_kv_print(&k, NULL);
    if (etx_count(b, "failed")) {
        etx_top(x, "Failed binds by DN", b, "failed_by_dn", "binddn", "bind DN");
        etx_top(x, "Failed binds by client", b, "failed_by_client", "client", "client");
    }
}

void etx_top(etx *x, const char *title, const sat_rnode *parent, const char *name,
             const char *keycol, const char *keytitle)
{
    const sat_rnode *t = sat_rnode_get(parent, name);
    char k[96];
    snprintf(k, sizeof k, "%s_distinct", name);
    uint64_t distinct = etx_count(parent, k);
    snprintf(k, sizeof k, "%s_folded", name);
    uint64_t folded = etx_count(parent, k);
    size_t n = sat_rnode_count(t);
    if (distinct > n)
        sat_text_title(x->t, "%s (top %zu of %llu)", title, n, (unsigned long long)distinct);
    else
        sat_text_title(x->t, "%s", title);
    if (!n) {
        sat_text_line(x->t, "  none");
        return;
    }
    char cols[160];
    snprintf(cols, sizeof cols, "count,total_s,%s=%s", keycol, keytitle);
    sat_text_table(x->t, t, cols, 0, NULL);
    if (folded)
        sat_text_line(x->t,
                      "  (about %llu more distinct keys past the table cap were counted as "
                      "\"(other)\")",
                      (unsigned long long)folded);
}

void etx_tops(etx *x)
{
    const sat_rnode *top = sat_rnode_get(x->root, "top");
    etx_top(x, "Top clients", top, "clients", "client", "client");
    etx_top(x, "Top bind DNs", top, "bind_dns", "binddn", "bind DN");
    etx_top(x, "Top search bases", top, "bases", "base", "base");
    etx_top(x, "Top search filters", top, "filters", "filter", "filter");
    if (sat_rnode_count(sat_rnode_get(top, "extended_ops")))
        etx_top(x, "Extended operations", top, "extended_ops", "oid", "oid (name)");
    etx_top(x, "Most requested attributes", top, "attributes", "attribute", "attribute");

    uint64_t na = etx_count(sat_rnode_get(x->root, "operation_stats"), "abandons");
    const sat_rnode *ab = sat_rnode_get(x->root, "abandon_requests");
    size_t n = sat_rnode_count(ab);
    if (!na)
        return;
    if (n < na)
        sat_text_title(x->t, "Abandon requests: %llu (the first %zu)", (unsigned long long)na, n);
    else
        sat_text_title(x->t, "Abandon requests: %llu", (unsigned long long)na);
    sat_text_table(x->t, ab, "ts,conn_id,op_id,target_op_id,client", 0, NULL);
}
