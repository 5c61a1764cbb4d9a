/*
 * report_cachesize.c - the `satscope cachesize` report (issue 6): the entry
 * reference stream and what it cannot see, the LRU miss-ratio curve (entries,
 * bytes, hit ratio), the size for each target hit ratio, the working set per
 * hour, the comparison with cn=monitor, and the suggested nsslapd-cachememsize
 * / nsslapd-dncachememsize / nsslapd-dbcachesize as an LDIF modification ready
 * for ldapmodify. As text, or JSON with the keys: references, unique,
 * mrc [{entries, bytes, hit_ratio}], recommend, unseen_share, method.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <stdlib.h>

#include "render.h"
#include "text_table.h"

static const char *method_name(int m) { return m == SAT_CS_SHARDS ? "shards" : "exact"; }

/* "12.5 MiB" */
static void fmt_bytes(char *b, size_t n, double v)
{
    char num[64];
    if (isnan(v)) {
        snprintf(b, n, "-");
        return;
    }
    if (v >= 1073741824.0) {
        sat_report_fmt_num(num, sizeof num, v / 1073741824.0, 2);
        snprintf(b, n, "%s GiB", num);
    } else if (v >= 1048576.0) {
        sat_report_fmt_num(num, sizeof num, v / 1048576.0, 1);
        snprintf(b, n, "%s MiB", num);
    } else if (v >= 1024.0) {
        sat_report_fmt_num(num, sizeof num, v / 1024.0, 1);
        snprintf(b, n, "%s KiB", num);
    } else {
        sat_report_fmt_num(num, sizeof num, v, 0);
        snprintf(b, n, "%s B", num);
    }
}

/* the modification ldapmodify applies; empty when there is nothing to suggest */
static void write_ldif(const sat_cs_view *v, FILE *out)
{
    if (v->cachememsize || v->dncachememsize) {
        fprintf(out, "dn: cn=%s,cn=ldbm database,cn=plugins,cn=config\nchangetype: modify\n",
                v->backend);
        int sep = 0;
        if (v->cachememsize) {
            fprintf(out, "replace: nsslapd-cachememsize\nnsslapd-cachememsize: %llu\n",
                    (unsigned long long)v->cachememsize);
            sep = 1;
        }
        if (v->dncachememsize)
            fprintf(out, "%sreplace: nsslapd-dncachememsize\nnsslapd-dncachememsize: %llu\n",
                    sep ? "-\n" : "", (unsigned long long)v->dncachememsize);
    }
    if (v->dbcachesize)
        fprintf(out,
                "%sdn: cn=bdb,cn=config,cn=ldbm database,cn=plugins,cn=config\nchangetype: modify\n"
                "replace: nsslapd-dbcachesize\nnsslapd-dbcachesize: %llu\n",
                v->cachememsize || v->dncachememsize ? "\n" : "",
                (unsigned long long)v->dbcachesize);
}

static const char *db_note(const sat_cs_view *v)
{
    switch (v->db_kind) {
    case SAT_CS_DB_LMDB:
        return "LMDB backend: no DB cache (the filesystem cache serves the memory map); "
               "nsslapd-dbcachesize does not apply";
    case SAT_CS_DB_BDB:
        return "nsslapd-dbcachesize: the index files the workload reads (below) and the part "
               "of id2entry.db its distinct entries make";
    default:
        return "nsslapd-dbcachesize: not sized (give --db-dir with a BerkeleyDB backend's "
               "directory; LMDB backends have no DB cache)";
    }
}

static int render_text(const void *view, FILE *out)
{
    const sat_cs_view *v = view;
    char a[80], b[80], c[80];
    fprintf(out, "Cache sizing from the entry reference stream (LRU, %s)\n",
            v->method == SAT_CS_EXACT ? "exact: Mattson stack distances"
                                      : "SHARDS: spatially hashed sampling");
    if (v->first_ts) {
        sat_report_fmt_ts(a, sizeof a, v->first_ts);
        sat_report_fmt_ts(b, sizeof b, v->last_ts);
        fprintf(out, "  span               %s - %s\n", a, b);
    }
    fprintf(out, "  operations         %llu, %llu naming entries\n", (unsigned long long)v->ops,
            (unsigned long long)v->naming_ops);
    fprintf(out, "  references         %llu%s", (unsigned long long)v->references,
            v->references ? ":" : "");
    int first = 1;
    for (int t = 0; t < SAT_OP__COUNT; t++) {
        if (!v->refs_by_type[t])
            continue;
        fprintf(out, "%s %s %llu", first ? "" : ",", t == SAT_OP_SRCH ? "SRCH base" : sat_optype_name(t),
                (unsigned long long)v->refs_by_type[t]);
        first = 0;
    }
    if (v->modrdn_new)
        fprintf(out, " (MODRDN new DNs %llu)", (unsigned long long)v->modrdn_new);
    if (v->entry_refs)
        fprintf(out, ", ENTRY lines %llu", (unsigned long long)v->entry_refs);
    if (v->internal_refs)
        fprintf(out, "; internal operations %llu", (unsigned long long)v->internal_refs);
    fprintf(out, "\n");
    sat_report_fmt_num(a, sizeof a, v->unique, 0);
    fprintf(out, "  distinct entries   %s%s\n", a,
            v->method == SAT_CS_SHARDS ? " (estimated)" : "");
    if (v->method == SAT_CS_SHARDS) {
        sat_report_fmt_num(a, sizeof a, v->keep_rate, 6);
        sat_report_fmt_num(b, sizeof b, v->shards_rate, 6);
        fprintf(out, "  sampling           %llu references kept (rate %s), SHARDS s_max %zu, "
                     "final rate %s\n",
                (unsigned long long)v->kept, a, v->shards_smax, b);
    }
    if (v->references) {
        sat_report_fmt_num(a, sizeof a, v->max_hit_ratio, 4);
        fprintf(out, "  best hit ratio     %s (the first reference to each entry is a miss)\n",
                a);
    }
    sat_report_fmt_num(a, sizeof a, 100.0 * v->unseen_share, 1);
    /* unindexed needs notes= (fields.h): "not logged" where no input has them */
    char unidx[600];
    const int notes_known = (v->fields_known & SAT_FIELD_BIT(SAT_FIELD_NOTES)) != 0;
    const char *nwhy = v->fields.why[SAT_FIELD_NOTES] ? v->fields.why[SAT_FIELD_NOTES]
                                                      : "the inputs do not log it";
    if (!notes_known)
        snprintf(unidx, sizeof unidx, "unindexed not logged (%s)", nwhy);
    else if (v->fields.without[SAT_FIELD_NOTES])
        snprintf(unidx, sizeof unidx, "%llu of them unindexed (partial: %u of %u inputs cannot "
                 "log it: %s)", (unsigned long long)v->unseen_unindexed,
                 v->fields.without[SAT_FIELD_NOTES], v->fields.inputs, nwhy);
    else
        snprintf(unidx, sizeof unidx, "%llu of them unindexed",
                 (unsigned long long)v->unseen_unindexed);
    fprintf(out,
            "  unseen by curve    %llu one-level/subtree searches (%s%% of the operations that "
            "read entries), %s, %llu entries returned; %llu ENTRY lines\n",
            (unsigned long long)v->unseen_ops, isnan(v->unseen_share) ? "-" : a, unidx,
            (unsigned long long)v->unseen_entries, (unsigned long long)v->entry_lines);
    fprintf(out,
            "  not references     %llu DNs outside the backends (root DSE, cn=config, cn=schema, "
            "cn=monitor, root DN), %llu BINDs without a DN\n",
            (unsigned long long)v->outside, (unsigned long long)v->no_dn);
    if (v->missing)
        fprintf(out,
                "  no such entry      %llu operation%s named entries that do not exist (err=32, "
                "BIND err=49 \"No such entry\"): left out, not cache entries\n",
                (unsigned long long)v->missing, v->missing == 1 ? "" : "s");
    if (v->references && v->most_reads_unseen) {
        /* said plainly: the curve is then not the stream the server's cache saw */
        sat_report_fmt_num(a, sizeof a, 100.0 * v->seen_reads_share, 1);
        sat_report_fmt_num(b, sizeof b, v->server_reads, 0);
        fprintf(out, "\nThe log cannot see most of this server's entry reads: it names %llu of them, ",
                (unsigned long long)v->references);
        if (strcmp(v->reads_from, "cn=monitor") == 0)
            fprintf(out, "where\ncn=monitor counted %s entry cache lookups between the snapshots "
                         "(%s%% named).\n", b, a);
        else
            fprintf(out, "where its\none-level and subtree searches read at least %llu more that "
                         "it does not name (%s%% named).\n",
                    (unsigned long long)(v->server_reads - (double)v->references), a);
        fprintf(out, "The curve below is the stream the log names, not the one the server's cache "
                     "saw (with\nsearch-then-bind, for example, the bind finds the entry its search "
                     "has just read: a hit\nthe log shows as a first reference)");
        if (!isnan(v->measured_hit) && !isnan(v->predicted_hit)) {
            sat_report_fmt_num(a, sizeof a, v->predicted_hit, 4);
            sat_report_fmt_num(b, sizeof b, v->measured_hit, 4);
            fprintf(out, ": it predicts %s at the current size\nwhere cn=monitor measured %s. "
                         "Size the entry cache from the measured ratio.\n", a, b);
        } else {
            fprintf(out, ". Measure the server's: two cn=monitor\nsnapshots around the same "
                         "period (--monitor BEFORE.ldif --monitor AFTER.ldif).\n");
        }
    }
    if (!v->references) {
        fprintf(out, "\nNo entry references: nothing to size.\n");
        return SAT_OK;
    }

    fmt_bytes(a, sizeof a, v->entry_bytes);
    if (v->entry_bytes_from) {
        sat_report_fmt_num(b, sizeof b, v->entry_bytes, 0);
        fprintf(out, "\nMiss-ratio curve (entry size %s bytes, from %s)\n", b, v->entry_bytes_from);
    } else {
        fprintf(out, "\nMiss-ratio curve (no entry size: give --entry-size, --monitor or --ldif "
                     "for bytes)\n");
    }
    tbl t;
    sat_tbl_init(&t, "rrrr");
    const char *hdr[] = {"entries", "bytes", "hit ratio", "miss ratio"};
    sat_tbl_row(&t, hdr);
    for (size_t i = 0; i < v->nmrc; i++) {
        char e[32];
        snprintf(e, sizeof e, "%llu", (unsigned long long)v->mrc[i].entries);
        fmt_bytes(a, sizeof a, v->mrc[i].bytes);
        sat_report_fmt_num(b, sizeof b, v->mrc[i].hit_ratio, 4);
        sat_report_fmt_num(c, sizeof c, 1.0 - v->mrc[i].hit_ratio, 4);
        const char *row[] = {e, a, b, c};
        sat_tbl_row(&t, row);
    }
    sat_tbl_print(&t, out, "  ");

    fprintf(out, "\nTarget hit ratios\n");
    sat_tbl_init(&t, "rrrl");
    const char *th[] = {"target", "entries", "bytes", ""};
    sat_tbl_row(&t, th);
    for (size_t i = 0; i < v->ntargets; i++) {
        const sat_cs_target *g = &v->targets[i];
        char tg[32], e[32];
        sat_report_fmt_num(tg, sizeof tg, g->target, 4);
        snprintf(e, sizeof e, "%llu", (unsigned long long)g->entries);
        fmt_bytes(a, sizeof a, g->bytes);
        const char *row[] = {tg, e, a,
                             g->reachable ? "" : "unreachable in this log: every entry it names"};
        sat_tbl_row(&t, row);
    }
    sat_tbl_print(&t, out, "  ");

    if (v->nhours) {
        fprintf(out, "\nWorking set (entries touched per hour)\n");
        sat_tbl_init(&t, "lrr");
        const char *hh[] = {"hour", "references", "distinct entries"};
        sat_tbl_row(&t, hh);
        for (size_t i = 0; i < v->nhours; i++) {
            char r[32];
            sat_report_fmt_ts(a, sizeof a, v->hours[i].start);
            snprintf(r, sizeof r, "%llu", (unsigned long long)v->hours[i].refs);
            sat_report_fmt_num(b, sizeof b, v->hours[i].distinct, 0);
            const char *row[] = {a, r, b};
            sat_tbl_row(&t, row);
        }
        sat_tbl_print(&t, out, "  ");
    }

    if (v->nmonitor) {
        const sat_cs_monitor *m = &v->monitor[v->nmonitor - 1];
        fprintf(out, "\nCurrent settings (cn=monitor of backend %s, %zu snapshot%s)\n",
                v->backend, v->nmonitor, v->nmonitor == 1 ? "" : "s");
        if (m->entry_max_bytes >= 0) {
            fmt_bytes(a, sizeof a, (double)m->entry_max_bytes);
            fprintf(out, "  entry cache        maxentrycachesize %lld (%s)", (long long)m->entry_max_bytes, a);
            if (!isnan(v->current_entries))
                fprintf(out, ", about %.0f entries", v->current_entries);
            fprintf(out, "\n");
        }
        sat_report_fmt_num(a, sizeof a, v->measured_hit, 4);
        sat_report_fmt_num(b, sizeof b, v->predicted_hit, 4);
        fprintf(out, "  hit ratio          measured %s%s; the curve predicts %s at that size\n",
                isnan(v->measured_hit) ? "-" : a,
                v->measured_interval ? " (between the two snapshots)"
                                     : isnan(v->measured_hit) ? "" : " (since the server started)",
                isnan(v->predicted_hit) ? "-" : b);
        if (!isnan(v->measured_dn_hit)) {
            sat_report_fmt_num(a, sizeof a, v->measured_dn_hit, 4);
            fprintf(out, "  DN cache hit ratio measured %s\n", a);
        }
        fprintf(out, "  (the measured ratio also counts the entries one-level and subtree searches "
                     "read, which the curve cannot see)\n");
    }

    fprintf(out, "\nSuggested settings (for the largest target; ldapmodify -D \"cn=directory "
                 "manager\" -W -f FILE)\n");
    if (v->cachememsize || v->dncachememsize || v->dbcachesize) {
        fprintf(out, "\n");
        write_ldif(v, out);
        fprintf(out, "\n");
    }
    if (!v->cachememsize)
        fprintf(out, "  nsslapd-cachememsize: no entry size (give --entry-size, --monitor or "
                     "--ldif)\n");
    else
    {
        fprintf(out, "  nsslapd-cachememsize: target entries x entry size, rounded up to a MiB "
                     "(at least 512000)\n");
        if (v->most_reads_unseen) {
            sat_report_fmt_num(a, sizeof a, 100.0 * v->seen_reads_share, 1);
            fprintf(out, "    (from a curve of %s%% of the server's entry reads: see above)\n", a);
        }
    }
    if (v->dncachememsize) {
        sat_report_fmt_num(a, sizeof a, v->dn_entry_bytes, 0);
        fprintf(out, "  nsslapd-dncachememsize: every distinct entry x %s bytes a DN (%s)\n", a,
                v->dn_bytes_from);
    }
    fprintf(out, "  %s\n", db_note(v));
    if (v->db_kind == SAT_CS_DB_BDB)
        fprintf(out, "    indexes read: %u of %u files, %llu bytes (%s); id2entry.db: %llu of "
                     "%llu bytes\n",
                v->db_indexes_used, v->db_files ? v->db_files - 1 : 0,
                (unsigned long long)v->db_used_index_bytes,
                v->db_used_names[0] ? v->db_used_names : "none",
                (unsigned long long)v->db_id2entry_part,
                (unsigned long long)v->db_id2entry_bytes);
    fprintf(out, "  389 ignores nsslapd-cachememsize while nsslapd-cache-autosize is not 0; 389 2.x "
                 "keeps it and nsslapd-dbcachesize in cn=bdb,cn=config,cn=ldbm database,"
                 "cn=plugins,cn=config (1.4 and older: cn=config,cn=ldbm database,...)\n");
    return SAT_OK;
}

static int render_json(const void *view, FILE *out)
{
    const sat_cs_view *v = view;
    sat_json j;
    sat_json_init(&j, out);
    sat_json_set_compact_depth(&j, 3);
    sat_json_document(&j);
    sat_json_str(&j, "method", method_name(v->method));
    sat_json_u64(&j, "references", v->references);
    sat_json_num(&j, "unique", v->unique, 0);
    sat_json_num(&j, "max_hit_ratio", v->max_hit_ratio, 6);
    sat_json_num(&j, "unseen_share", v->unseen_share, 6);
    sat_json_ts(&j, "first_ts", v->first_ts);
    sat_json_ts(&j, "last_ts", v->first_ts ? v->last_ts : 0);
    sat_json_object(&j, "sampling");
    sat_json_u64(&j, "kept", v->kept);
    sat_json_num(&j, "keep_rate", v->keep_rate, 9);
    sat_json_num(&j, "shards_rate", v->shards_rate, 9);
    sat_json_u64(&j, "shards_smax", v->shards_smax);
    sat_json_end(&j);
    sat_json_object(&j, "stream");
    sat_json_u64(&j, "operations", v->ops);
    sat_json_u64(&j, "naming_operations", v->naming_ops);
    sat_json_object(&j, "references_by_op");
    for (int t = 0; t < SAT_OP__COUNT; t++)
        if (v->refs_by_type[t])
            sat_json_u64(&j, sat_optype_name(t), v->refs_by_type[t]);
    sat_json_end(&j);
    sat_json_u64(&j, "modrdn_new_dns", v->modrdn_new);
    sat_json_u64(&j, "internal_references", v->internal_refs);
    sat_json_u64(&j, "unseen_operations", v->unseen_ops);
    sat_json_u64(&j, "unseen_onelevel", v->unseen_onelevel);
    sat_json_u64(&j, "unseen_subtree", v->unseen_subtree);
    if (v->fields_known & SAT_FIELD_BIT(SAT_FIELD_NOTES))
        sat_json_u64(&j, "unseen_unindexed", v->unseen_unindexed);
    else
        sat_json_null(&j, "unseen_unindexed"); /* notes= not logged (fields.h) */
    sat_json_u64(&j, "unseen_entries_returned", v->unseen_entries);
    sat_json_u64(&j, "entry_lines", v->entry_lines);
    sat_json_u64(&j, "entry_refs", v->entry_refs);
    sat_json_u64(&j, "outside_backends", v->outside);
    sat_json_u64(&j, "binds_without_dn", v->no_dn);
    sat_json_u64(&j, "missing_entries", v->missing);
    sat_json_num(&j, "dn_mean_length", v->dn_mean_len, 2);
    sat_json_end(&j);
    sat_json_array(&j, "mrc");
    for (size_t i = 0; i < v->nmrc; i++) {
        sat_json_object(&j, NULL);
        sat_json_u64(&j, "entries", v->mrc[i].entries);
        sat_json_num(&j, "bytes", v->mrc[i].bytes, 0);
        sat_json_num(&j, "hit_ratio", v->mrc[i].hit_ratio, 6);
        sat_json_end(&j);
    }
    sat_json_end(&j);
    sat_json_array(&j, "working_set");
    for (size_t i = 0; i < v->nhours; i++) {
        sat_json_object(&j, NULL);
        sat_json_ts(&j, "hour_ts", v->hours[i].start);
        sat_json_u64(&j, "references", v->hours[i].refs);
        sat_json_num(&j, "distinct", v->hours[i].distinct, 0);
        sat_json_end(&j);
    }
    sat_json_end(&j);
    sat_json_object(&j, "recommend");
    sat_json_array(&j, "targets");
    for (size_t i = 0; i < v->ntargets; i++) {
        const sat_cs_target *g = &v->targets[i];
        sat_json_object(&j, NULL);
        sat_json_num(&j, "hit_ratio", g->target, 6);
        sat_json_bool(&j, "reachable", g->reachable);
        sat_json_u64(&j, "entries", g->entries);
        sat_json_num(&j, "bytes", g->bytes, 0);
        sat_json_end(&j);
    }
    sat_json_end(&j);
    sat_json_str(&j, "backend", v->backend);
    sat_json_num(&j, "entry_bytes", v->entry_bytes, 1);
    sat_json_str(&j, "entry_bytes_from", v->entry_bytes_from);
    sat_json_num(&j, "dn_entry_bytes", v->dn_entry_bytes, 1);
    sat_json_str(&j, "dn_bytes_from", v->dn_bytes_from);
    if (v->cachememsize)
        sat_json_u64(&j, "nsslapd-cachememsize", v->cachememsize);
    else
        sat_json_null(&j, "nsslapd-cachememsize");
    if (v->dncachememsize)
        sat_json_u64(&j, "nsslapd-dncachememsize", v->dncachememsize);
    else
        sat_json_null(&j, "nsslapd-dncachememsize");
    if (v->dbcachesize)
        sat_json_u64(&j, "nsslapd-dbcachesize", v->dbcachesize);
    else
        sat_json_null(&j, "nsslapd-dbcachesize");
    sat_json_str(&j, "db", v->db_kind == SAT_CS_DB_BDB    ? "bdb"
                           : v->db_kind == SAT_CS_DB_LMDB ? "lmdb"
                                                          : NULL);
    sat_json_str(&j, "db_note", db_note(v));
    if (v->db_kind == SAT_CS_DB_BDB) {
        sat_json_u64(&j, "db_indexes_read", v->db_indexes_used);
        sat_json_str(&j, "db_indexes_read_names", v->db_used_names);
        sat_json_u64(&j, "db_index_bytes_read", v->db_used_index_bytes);
        sat_json_u64(&j, "db_id2entry_bytes_read", v->db_id2entry_part);
    }
    char *ldif = NULL;
    size_t ldif_len = 0;
    FILE *mf = open_memstream(&ldif, &ldif_len);
    if (mf) {
        write_ldif(v, mf);
        fclose(mf);
    }
    if (ldif && ldif_len)
        sat_json_str(&j, "ldif", ldif);
    else
        sat_json_null(&j, "ldif");
    free(ldif);
    sat_json_end(&j);
    sat_json_object(&j, "monitor");
    sat_json_u64(&j, "snapshots", v->nmonitor);
    sat_json_num(&j, "measured_hit_ratio", v->measured_hit, 6);
    sat_json_bool(&j, "measured_interval", v->measured_interval);
    sat_json_num(&j, "measured_dn_hit_ratio", v->measured_dn_hit, 6);
    sat_json_num(&j, "current_entries", v->current_entries, 0);
    sat_json_num(&j, "predicted_hit_ratio", v->predicted_hit, 6);
    sat_json_end(&j);
    sat_json_object(&j, "reads_seen");
    sat_json_num(&j, "server_reads", v->server_reads, 0);
    sat_json_str(&j, "server_reads_from", v->reads_from);
    sat_json_num(&j, "share_named", v->seen_reads_share, 6);
    sat_json_bool(&j, "most_unseen", v->most_reads_unseen);
    sat_json_end(&j);
    sat_json_end(&j);
    return sat_json_finish(&j);
}

/* CSV, the main section: the recommendation, one row per target hit ratio,
 * named as the keys of recommend.targets in the JSON. */
static int render_csv(const void *view, FILE *out)
{
    const sat_cs_view *v = (const sat_cs_view *)view;
    static const char *const cols[] = {"hit_ratio", "reachable", "entries", "bytes", NULL};
    sat_csv c;
    sat_csv_init(&c, out);
    sat_csv_header(&c, cols);
    for (size_t i = 0; i < v->ntargets; i++) {
        const sat_cs_target *g = &v->targets[i];
        sat_csv_num(&c, g->target, 6);
        sat_csv_str(&c, g->reachable ? "true" : "false");
        sat_csv_u64(&c, g->entries);
        sat_csv_num(&c, g->bytes, 0);
        sat_csv_end_row(&c);
    }
    return ferror(out) ? SAT_E_IO : SAT_OK;
}

/* The miss ratio curve, one row per point (mrc[] of the JSON). */
static int csv_mrc(const void *view, FILE *out)
{
    const sat_cs_view *v = (const sat_cs_view *)view;
    static const char *const cols[] = {"entries", "bytes", "hit_ratio", NULL};
    sat_csv c;
    sat_csv_init(&c, out);
    sat_csv_header(&c, cols);
    for (size_t i = 0; i < v->nmrc; i++) {
        sat_csv_u64(&c, v->mrc[i].entries);
        sat_csv_num(&c, v->mrc[i].bytes, 0);
        sat_csv_num(&c, v->mrc[i].hit_ratio, 6);
        sat_csv_end_row(&c);
    }
    return ferror(out) ? SAT_E_IO : SAT_OK;
}

/* The working set, one row per hour (working_set[] of the JSON). */
static int csv_working_set(const void *view, FILE *out)
{
    const sat_cs_view *v = (const sat_cs_view *)view;
    static const char *const cols[] = {"hour_ts", "references", "distinct", NULL};
    sat_csv c;
    sat_csv_init(&c, out);
    sat_csv_header(&c, cols);
    for (size_t i = 0; i < v->nhours; i++) {
        sat_csv_ts(&c, v->hours[i].start);
        sat_csv_u64(&c, v->hours[i].refs);
        sat_csv_num(&c, v->hours[i].distinct, 0);
        sat_csv_end_row(&c);
    }
    return ferror(out) ? SAT_E_IO : SAT_OK;
}

static const void *cs_view(const void *r) { return sat_cs_get_view((const sat_cs *)r); }
static const char *const csv_names[] = {"targets", "mrc", "working_set", NULL};
static const sat_render_fn csv_write[] = {render_csv, csv_mrc, csv_working_set};
const sat_csv_report sat_csv_cachesize = {"cachesize", cs_view, csv_names, csv_write};

int sat_report_cachesize(const sat_cs *c, int fmt, FILE *out, sat_diag *diag)
{
    return sat_report_render(sat_cs_get_view(c), fmt, render_text, render_json, render_csv, out, diag);
}
