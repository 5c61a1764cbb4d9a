/*
 * cachesize_result.c - the sections of the cachesize analyzer's result
 * (satscope/result.h, docs/output.md), the recommendation first: the size
 * for each target hit ratio (`targets`, what --csv prints), the suggested
 * nsslapd-* settings with their LDIF, how much of the server's entry reads
 * the log names, the cn=monitor comparison, the reference stream and what
 * it cannot see, the sampling, then the working set per hour and the
 * miss-ratio curve. Text, JSON and CSV are all written from these.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "satscope/analyze.h"

static const sat_col target_cols[] = {
    {"hit_ratio", SAT_UNIT_RATIO, 6, "target"},
    {"reachable", SAT_UNIT_BOOL, 0, NULL},
    {"entries", SAT_UNIT_COUNT, 0, NULL},
    {"bytes", SAT_UNIT_BYTES, 0, NULL},
};
static const sat_col hour_cols[] = {
    {"start_ts", SAT_UNIT_TIME, 0, "hour"},
    {"references", SAT_UNIT_COUNT, 0, NULL},
    {"distinct", SAT_UNIT_COUNT, 0, "distinct entries"},
};
static const sat_col mrc_cols[] = {
    {"entries", SAT_UNIT_COUNT, 0, NULL},
    {"bytes", SAT_UNIT_BYTES, 0, NULL},
    {"hit_ratio", SAT_UNIT_RATIO, 6, "hit ratio"},
    {"miss_ratio", SAT_UNIT_RATIO, 6, "miss ratio"},
};
#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))

/* bytes the curve gives as a double (entries x a mean entry size): absent
 * without an entry size */
static void put_dbytes(sat_rnode *o, const char *k, double b)
{
    if (isnan(b) || b < 0)
        sat_put_absent(o, k, SAT_UNIT_BYTES);
    else
        sat_put_bytes(o, k, (uint64_t)llround(b));
}

/* An estimate of a number of things (scaled up from a sample) as a count,
 * rounded as the writers round a number with no decimals. NAN: absent. */
static void put_estimate(sat_rnode *o, const char *k, double x)
{
    if (isnan(x) || x < 0)
        sat_put_absent(o, k, SAT_UNIT_COUNT);
    else
        sat_put_count(o, k, (uint64_t)nearbyint(x));
}

/* a suggested size: 0 = none */
static void put_size(sat_rnode *o, const char *k, uint64_t b)
{
    if (b)
        sat_put_bytes(o, k, b);
    else
        sat_put_absent(o, k, SAT_UNIT_BYTES);
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

/* the modification ldapmodify applies; nothing when there is nothing to suggest */
static void write_ldif(const sat_cs_view *v, FILE *out)
{
    if (v->cachememsize || v->dncachememsize) {
        fprintf(out, "dn: cn=%s,cn=ldbm database,cn=plugins,cn=config\nchangetype: modify\n",
                v->backend);
        if (v->cachememsize)
            fprintf(out, "replace: nsslapd-cachememsize\nnsslapd-cachememsize: %llu\n",
                    (unsigned long long)v->cachememsize);
        if (v->dncachememsize)
            fprintf(out, "%sreplace: nsslapd-dncachememsize\nnsslapd-dncachememsize: %llu\n",
                    v->cachememsize ? "-\n" : "", (unsigned long long)v->dncachememsize);
    }
    if (v->dbcachesize)
        fprintf(out,
                "%sdn: cn=bdb,cn=config,cn=ldbm database,cn=plugins,cn=config\nchangetype: modify\n"
                "replace: nsslapd-dbcachesize\nnsslapd-dbcachesize: %llu\n",
                v->cachememsize || v->dncachememsize ? "\n" : "",
                (unsigned long long)v->dbcachesize);
}

static void put_recommend(sat_rnode *root, const sat_cs_view *v)
{
    sat_rnode *o = sat_obj(root, "recommend");
    sat_put_text(o, "backend", v->backend);
    sat_put_num(o, "entry_size", v->entry_bytes, 1);
    sat_put_text(o, "entry_size_from", v->entry_bytes_from);
    sat_put_num(o, "dn_entry_size", v->dn_entry_bytes, 1);
    sat_put_text(o, "dn_entry_size_from", v->dn_bytes_from);
    put_size(o, "cachememsize_bytes", v->cachememsize);
    put_size(o, "dncachememsize_bytes", v->dncachememsize);
    put_size(o, "dbcachesize_bytes", v->dbcachesize);
    sat_put_text(o, "db", v->db_kind == SAT_CS_DB_BDB    ? "bdb"
                          : v->db_kind == SAT_CS_DB_LMDB ? "lmdb"
                                                         : NULL);
    sat_put_text(o, "db_note", db_note(v));
    if (v->db_kind == SAT_CS_DB_BDB) {
        sat_put_count(o, "db_index_files", v->db_files ? v->db_files - 1 : 0);
        sat_put_count(o, "db_indexes_read", v->db_indexes_used);
        sat_put_text(o, "db_indexes_read_names", v->db_used_names);
        sat_put_bytes(o, "db_index_read_bytes", v->db_used_index_bytes);
        sat_put_bytes(o, "db_id2entry_read_bytes", v->db_id2entry_part);
        sat_put_bytes(o, "db_id2entry_bytes", v->db_id2entry_bytes);
    }
    char *ldif = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&ldif, &len);
    if (mf) {
        write_ldif(v, mf);
        fclose(mf);
    }
    sat_put_text(o, "ldif", ldif && len ? ldif : NULL);
    free(ldif);
}

static void put_stream(sat_rnode *root, const sat_cs_view *v)
{
    sat_rnode *o = sat_obj(root, "stream");
    sat_put_count(o, "operations", v->ops);
    sat_put_count(o, "naming_operations", v->naming_ops);
    sat_rnode *by = sat_obj(o, "references_by_op");
    sat_set_compact(by);
    for (int t = 0; t < SAT_OP__COUNT; t++)
        if (v->refs_by_type[t])
            sat_put_count(by, sat_optype_name(t), v->refs_by_type[t]);
    sat_put_count(o, "modrdn_new_dns", v->modrdn_new);
    sat_put_count(o, "internal_references", v->internal_refs);
    sat_put_count(o, "unseen_operations", v->unseen_ops);
    sat_put_count(o, "unseen_onelevel", v->unseen_onelevel);
    sat_put_count(o, "unseen_subtree", v->unseen_subtree);
    /* unindexed searches need notes= (fields.h): null where no input logs them */
    const char *why = v->fields.why[SAT_FIELD_NOTES] ? v->fields.why[SAT_FIELD_NOTES]
                                                     : "the inputs do not log it";
    char note[600];
    if (!(v->fields_known & SAT_FIELD_BIT(SAT_FIELD_NOTES))) {
        sat_put_absent(o, "unseen_unindexed", SAT_UNIT_COUNT);
        snprintf(note, sizeof note, "not logged (%s)", why);
        sat_put_note(o, note);
    } else {
        sat_put_count(o, "unseen_unindexed", v->unseen_unindexed);
        if (v->fields.without[SAT_FIELD_NOTES]) {
            snprintf(note, sizeof note, "partial: %u of %u inputs cannot log it: %s",
                     v->fields.without[SAT_FIELD_NOTES], v->fields.inputs, why);
            sat_put_note(o, note);
        }
    }
    sat_put_count(o, "unseen_entries_returned", v->unseen_entries);
    sat_put_count(o, "entry_lines", v->entry_lines);
    sat_put_count(o, "entry_refs", v->entry_refs);
    sat_put_count(o, "outside_backends", v->outside);
    sat_put_count(o, "binds_without_dn", v->no_dn);
    sat_put_count(o, "missing_entries", v->missing);
    sat_put_num(o, "dn_mean_length", v->dn_mean_len, 2);
}

static void put_monitor(sat_rnode *root, const sat_cs_view *v)
{
    sat_rnode *o = sat_obj(root, "monitor");
    sat_put_count(o, "snapshots", v->nmonitor);
    const sat_cs_monitor *m = v->nmonitor ? &v->monitor[v->nmonitor - 1] : NULL;
    if (m && m->entry_max_bytes >= 0)
        sat_put_bytes(o, "max_entry_cache_bytes", (uint64_t)m->entry_max_bytes);
    else
        sat_put_absent(o, "max_entry_cache_bytes", SAT_UNIT_BYTES);
    sat_put_ratio(o, "measured_hit_ratio", v->measured_hit, 6);
    sat_put_bool(o, "measured_interval", v->measured_interval);
    sat_put_ratio(o, "measured_dn_hit_ratio", v->measured_dn_hit, 6);
    put_estimate(o, "current_entries", v->current_entries);
    sat_put_ratio(o, "predicted_hit_ratio", v->predicted_hit, 6);
}

int sat_cs_result(const sat_cs *c, sat_result *res)
{
    const sat_cs_view *v = sat_cs_get_view(c);
    sat_rnode *root = sat_result_root(res);
    if (!v || !root)
        return SAT_E_USAGE;
    sat_put_text(root, "method", v->method == SAT_CS_SHARDS ? "shards" : "exact");
    sat_put_count(root, "references", v->references);
    put_estimate(root, "unique", v->unique);
    sat_put_ratio(root, "max_hit_ratio", v->max_hit_ratio, 6);
    sat_put_ratio(root, "unseen_share", v->unseen_share, 6);
    sat_put_time(root, "first_ts", v->first_ts);
    sat_put_time(root, "last_ts", v->first_ts ? v->last_ts : 0);

    sat_rnode *t = sat_table(root, "targets", target_cols, NCOLS(target_cols));
    sat_result_set_main(res, t);
    for (size_t i = 0; i < v->ntargets; i++) {
        const sat_cs_target *g = &v->targets[i];
        sat_rnode *r = sat_table_row(t);
        sat_put_ratio(r, "hit_ratio", g->target, 6);
        sat_put_bool(r, "reachable", g->reachable);
        sat_put_count(r, "entries", g->entries);
        put_dbytes(r, "bytes", g->bytes);
    }
    put_recommend(root, v);

    sat_rnode *o = sat_obj(root, "reads_seen");
    put_estimate(o, "server_reads", v->server_reads);
    sat_put_text(o, "server_reads_from", v->reads_from);
    sat_put_ratio(o, "share_named", v->seen_reads_share, 6);
    sat_put_bool(o, "most_unseen", v->most_reads_unseen);
    put_monitor(root, v);
    put_stream(root, v);
    o = sat_obj(root, "sampling");
    sat_put_count(o, "kept", v->kept);
    sat_put_ratio(o, "keep_rate", v->keep_rate, 9);
    sat_put_ratio(o, "shards_rate", v->shards_rate, 9);
    sat_put_count(o, "shards_smax", v->shards_smax);

    t = sat_table(root, "working_set", hour_cols, NCOLS(hour_cols));
    sat_table_set_window(t, (int64_t)3600 * 1000000000);
    for (size_t i = 0; i < v->nhours; i++) {
        sat_rnode *r = sat_table_row(t);
        sat_put_time(r, "start_ts", v->hours[i].start);
        sat_put_count(r, "references", v->hours[i].refs);
        put_estimate(r, "distinct", v->hours[i].distinct);
    }
    t = sat_table(root, "mrc", mrc_cols, NCOLS(mrc_cols));
    for (size_t i = 0; i < v->nmrc; i++) {
        sat_rnode *r = sat_table_row(t);
        sat_put_count(r, "entries", v->mrc[i].entries);
        put_dbytes(r, "bytes", v->mrc[i].bytes);
        sat_put_ratio(r, "hit_ratio", v->mrc[i].hit_ratio, 6);
        sat_put_ratio(r, "miss_ratio", 1.0 - v->mrc[i].hit_ratio, 6);
    }
    return sat_result_status(res);
}
