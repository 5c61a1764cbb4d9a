/*
 * section_etime_logconv.c - the sections of the etime result that follow
 * logconv.pl's default report (389-ds-base ldap/admin/src/logconv.pl):
 * connections, close codes, result codes, notes, unindexed searches (each
 * a section of its own, its filter and DNs whole), binds, the top-N lists
 * and the abandon requests, read from analyze/etime_result.c's sections. A
 * figure no input can log says "not logged" and why; one only some inputs
 * can log says it is partial.
 */
#include <string.h>

#include "section_etime.h"

void etb_connections(const etb *x, sat_rnode *parent)
{
    const sat_rnode *c = sat_get_obj(x->root, "connection_stats");
    sat_rnode *s = sec_section(x->c, parent, "connections", "Connections");
    sat_rnode *v = sat_doc_values(s);
    char rate[128];
    etb_value(x, v, c, "total", "total", "Total connections", NULL,
              etb_rate(x, sat_get_count(c, "total", 0), rate, sizeof rate));
    etb_value(x, v, c, "opened", "opened", " - opened in the input", NULL, NULL);
    etb_value(x, v, c, "no_open_line", "no_open_line", " - already open at its start", NULL,
              "(no open line: open from the start for the peak)");
    const sat_rnode *bl = sat_get_obj(c, "by_listener");
    for (const sat_rnode *l = sat_rnode_first(bl); l; l = sat_rnode_next(l)) {
        const char *name = sat_rnode_key(l);
        char key[64], label[64];
        snprintf(key, sizeof key, "on_%s", name);
        if (!strcmp(name, "unknown")) {
            etb_value(x, v, bl, name, key, " - listener unknown", NULL, NULL);
            continue;
        }
        snprintf(label, sizeof label, " - on %s", name);
        etb_value(x, v, bl, name, key, label, NULL,
                  etb_rate(x, sat_get_count(bl, name, 0), rate, sizeof rate));
    }
    char at[96] = "";
    if (sat_get_time(c, "peak_ts", 0)) {
        char ts[64];
        sec_fmt(x->c, ts, sizeof ts, c, "peak_ts");
        snprintf(at, sizeof at, "at %s", ts);
    }
    etb_value(x, v, c, "peak_concurrent", "peak_concurrent", "Peak concurrent connections", NULL,
              at);
    etb_value(x, v, c, "unclosed", "unclosed", "Still open at the end", NULL,
              "(never closed: open to the end for the peak)");
    etb_value(x, v, c, "fds_taken", "fds_taken", "FDs taken", "fd", NULL);
    etb_value(x, v, c, "fds_returned", "fds_returned", "FDs returned", "fd", NULL);
    etb_value(x, v, c, "highest_fd", "highest_fd", "Highest FD taken", "fd", NULL);
    etb_value(x, v, c, "broken_pipe", "broken_pipe", "Broken pipes", "close_errno", NULL);
    etb_value(x, v, c, "reset_by_peer", "reset_by_peer", "Connections reset by peer",
              "close_errno", NULL);
    etb_value(x, v, c, "resource_unavailable", "resource_unavailable", "Resource unavailable",
              "close_errno", NULL);
    etb_value(x, v, c, "max_ber_exceeded", "max_ber_exceeded", "Max BER size exceeded (B2)",
              "close_code", NULL);
    /* OpenLDAP's own close kinds: shown where an input can log them */
    if (!etb_not_logged(x, "close_lost")) {
        etb_value(x, v, c, "lost", "lost", "Connections lost", "close_lost",
                  "(gone without an UNBIND, or a read failed)");
        etb_value(x, v, c, "lost_on_write", "lost_on_write", "Connections lost on write",
                  "close_lost", "(an answer could not be sent)");
    }
    const sat_rnode *tls = sat_get_table(c, "tls_versions");
    if (sat_rnode_first(tls))
        sat_doc_table(s, "Secure protocol versions", NULL, tls, "count,version,cipher", 0, NULL, NULL);
}

void etb_codes(const etb *x, sat_rnode *parent)
{
    sat_doc_table(sec_section(x->c, parent, "close_codes", "Close codes"), NULL, NULL,
                  sat_get_table(x->root, "close_codes"), "close_code=code,count,meaning", 0, NULL,
                  NULL);
    sat_doc_table(sec_section(x->c, parent, "result_codes", "Result codes"), NULL, NULL,
                  sat_get_table(x->root, "result_codes"), "result_code=err,count,name", 0, NULL,
                  NULL);

    sat_rnode *s = sec_section(x->c, parent, "notes", "Notes (each letter of notes=A,P counts)");
    char nb[512];
    const char *n = etb_field_note(x, "notes", NULL, nb, sizeof nb);
    if (etb_not_logged(x, "notes")) {
        sat_doc_para(s, "not logged %s", n);
        return;
    }
    sat_doc_table(s, NULL, NULL, sat_get_table(x->root, "note_counts"), "note,count,meaning", 0,
                  NULL, NULL);
    if (*n)
        sat_doc_footnote(s, "%s", n);
}

void etb_unindexed(const etb *x, sat_rnode *parent)
{
    const sat_rnode *u = sat_get_obj(x->root, "unindexed");
    char nb[512];
    const char *n = etb_field_note(x, "notes", NULL, nb, sizeof nb);
    if (etb_not_logged(x, "notes")) {
        sat_doc_para(sec_section(x->c, parent, "unindexed",
                                 "Unindexed searches (notes=A or U): not marked by this "
                                 "log format"),
                     "%s", n);
        return;
    }
    const sat_rnode *t = sat_get_table(u, "searches");
    size_t ns = sat_rnode_count(t);
    uint64_t total = sat_get_count(u, "total", 0), distinct = sat_get_count(u, "distinct", 0),
             folded = sat_get_count(u, "folded", 0);
    char more[64] = "";
    if (ns < distinct)
        snprintf(more, sizeof more, " (the %zu most frequent shown)", ns);
    sat_rnode *s = sec_section(x->c, parent, "unindexed",
                               "Unindexed searches (notes=A or U): %llu, %llu distinct%s",
                               (unsigned long long)total, (unsigned long long)distinct, more);
    if (*n)
        sat_doc_para(s, "%s", n);
    if (folded)
        sat_doc_para(s, "(%llu more past the table cap not itemised)", (unsigned long long)folded);
    /* each search a section of its own: its filter and DNs whole */
    size_t i = 0;
    for (const sat_rnode *r = sat_rnode_first(t); r && s; r = sat_rnode_next(r)) {
        char id[32], mx[64], tot[64], ne[32], ts[64], first[160];
        snprintf(id, sizeof id, "%zu", ++i);
        sec_fmt(x->c, mx, sizeof mx, r, "max_s");
        sec_fmt(x->c, tot, sizeof tot, r, "total_s");
        sec_fmt(x->c, ne, sizeof ne, r, "nentries_max");
        sec_fmt(x->c, ts, sizeof ts, r, "first_ts");
        sat_rnode *e = sec_section(x->c, s, id, "%zu. %llu x notes=%s  etime max %s, total %s, nentries max %s",
                                i, (unsigned long long)sat_get_count(r, "count", 0),
                                sat_get_text(r, "notes", ""), mx, tot, ne);
        sat_rnode *v = sat_doc_values(e);
        const char *bd = sat_get_text(r, "binddn", "");
        snprintf(first, sizeof first, "%s conn=%lld op=%lld", ts,
                 (long long)sat_get_int(r, "first_conn_id", 0),
                 (long long)sat_get_int(r, "first_op_id", 0));
        sat_put_text(v, "base", sat_get_text(r, "base", ""));
        sat_put_text(v, "filter", sat_get_text(r, "filter", ""));
        sat_put_text(v, "client", sat_get_text(r, "client", ""));
        sat_put_text(v, "binddn", *bd ? bd : "(anonymous or unknown)");
        sat_put_label(v, "bind DN");
        sat_put_text(v, "first", first);
    }
}

void etb_binds(const etb *x, sat_rnode *parent)
{
    const sat_rnode *b = sat_get_obj(x->root, "binds");
    sat_rnode *s = sec_section(x->c, parent, "binds",
                               "Binds (SASL steps answered err=14 folded into their bind; "
                               "AUTOBIND + BIND = one)");
    sat_rnode *v = sat_doc_values(s);
    char rate[128];
    etb_value(x, v, b, "total", "total", "Binds", NULL,
              etb_rate(x, sat_get_count(b, "total", 0), rate, sizeof rate));
    etb_value(x, v, b, "ldap_v2", "ldap_v2", " - LDAP v2", "bind_version", "(BIND version=2)");
    etb_value(x, v, b, "ldap_v3", "ldap_v3", " - LDAP v3", "bind_version", "(BIND version=3)");
    etb_value(x, v, b, "simple", "simple", " - simple", NULL, NULL);
    etb_value(x, v, b, "anonymous", "anonymous", " - anonymous", NULL, NULL);
    etb_value(x, v, b, "sasl", "sasl", " - SASL", NULL, NULL);
    for (const sat_rnode *r = sat_rnode_first(sat_get_table(b, "sasl_mechs")); r;
         r = sat_rnode_next(r)) {
        const char *mech = sat_get_text(r, "mech", "?");
        char key[160], label[160];
        snprintf(key, sizeof key, "sasl_%s", mech);
        snprintf(label, sizeof label, "    - %s", mech);
        etb_value(x, v, r, "count", key, label, NULL, NULL);
    }
    etb_value(x, v, b, "autobind", "autobind", " - AUTOBIND (LDAPI)", NULL, NULL);
    etb_value(x, v, b, "sasl_steps_folded", "sasl_steps_folded", "SASL in-progress steps (err=14)",
              NULL, "(folded)");
    char rd[320];
    snprintf(rd, sizeof rd, "(\"%s\", any case)", sat_get_text(b, "root_dn_name", ""));
    etb_value(x, v, b, "root_dn", "root_dn", "Root DN (Directory Manager) binds", NULL, rd);
    etb_value(x, v, b, "failed", "failed", "Failed binds (err=49)", NULL, NULL);
    etb_value(x, v, b, "ssl_client", "ssl_client", "SSL client (certificate) binds", NULL,
              "(connections: \"client bound as\")");
    etb_value(x, v, b, "ssl_client_failed", "ssl_client_failed", "Failed SSL client binds", NULL,
              "(connections: certificate not mapped to a DN)");
    if (sat_get_count(b, "failed", 0)) {
        etb_top(x, parent, "failed_binds_by_dn", "Failed binds by DN", b, "failed_by_dn",
                "binddn", "bind DN", 0);
        etb_top(x, parent, "failed_binds_by_client", "Failed binds by client", b,
                "failed_by_client", "client", "client", 0);
    }
}

void etb_tops(const etb *x, sat_rnode *parent)
{
    const sat_rnode *top = sat_get_obj(x->root, "top");
    etb_top(x, parent, "top_clients", "Top clients", top, "clients", "client", "client", 0);
    etb_top(x, parent, "top_bind_dns", "Top bind DNs", top, "bind_dns", "binddn", "bind DN", 0);
    etb_top(x, parent, "top_bases", "Top search bases", top, "bases", "base", "base", 0);
    etb_top(x, parent, "top_filters", "Top search filters", top, "filters", "filter", "filter", 0);
    etb_top(x, parent, "extended_ops", "Extended operations", top, "extended_ops", "oid",
            "oid (name)", 1);
    etb_top(x, parent, "top_attributes", "Most requested attributes", top, "attributes",
            "attribute", "attribute", 0);

    uint64_t na = sat_get_count(x->root, "operation_stats.abandons", 0);
    const sat_rnode *ab = sat_get_table(x->root, "abandon_requests");
    size_t n = sat_rnode_count(ab);
    if (!na)
        return;
    sat_rnode *s = n < na ? sec_section(x->c, parent, "abandons", "Abandon requests: %llu (the "
                                                                  "first %zu)",
                                        (unsigned long long)na, n)
                          : sec_section(x->c, parent, "abandons", "Abandon requests: %llu",
                                        (unsigned long long)na);
    sat_doc_table(s, NULL, NULL, ab, "ts,conn_id,op_id,target_op_id,client", 0, NULL, NULL);
}
