/*
 * cachesize_result.c - the sections of the cachesize analyzer's result
 * (satscope/result.h, docs/output.md), written from its state (the
 * stream's counters, their values in `stream` from their lists in
 * cachesize_internal.h; the figures of the finished curve from
 * cachesize_sizes.c), the recommendation first: the size
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

#include "cachesize_internal.h"

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

static const char *db_note(int db_kind)
{
    switch (db_kind) {
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
static void write_ldif(const cs_sizes *z, FILE *out)
{
    if (z->cachememsize || z->dncachememsize) {
        fprintf(out, "dn: cn=%s,cn=ldbm database,cn=plugins,cn=config\nchangetype: modify\n",
                z->backend);
        if (z->cachememsize)
            fprintf(out, "replace: nsslapd-cachememsize\nnsslapd-cachememsize: %llu\n",
                    (unsigned long long)z->cachememsize);
        if (z->dncachememsize)
            fprintf(out, "%sreplace: nsslapd-dncachememsize\nnsslapd-dncachememsize: %llu\n",
                    z->cachememsize ? "-\n" : "", (unsigned long long)z->dncachememsize);
    }
    if (z->dbcachesize)
        fprintf(out,
                "%sdn: cn=bdb,cn=config,cn=ldbm database,cn=plugins,cn=config\nchangetype: modify\n"
                "replace: nsslapd-dbcachesize\nnsslapd-dbcachesize: %llu\n",
                z->cachememsize || z->dncachememsize ? "\n" : "",
                (unsigned long long)z->dbcachesize);
}

/* What a server's caches are: 389 DS has an entry cache, a DN cache and
 * (BerkeleyDB) a DB cache, each a setting sized here; OpenLDAP's back-mdb
 * (the one database of 2.5+) has none: its entries are read through a
 * memory map the filesystem cache serves. */
static const char *const mdb_applies =
    "OpenLDAP back-mdb has no entry cache and no DN cache: entries are read through the "
    "memory map of the database file, which the filesystem cache serves. What applies: "
    "olcDbMaxSize (the map's size) above the database's size on disk (not in a log), and free "
    "memory for the filesystem cache to hold the working set below; the 389 settings "
    "(nsslapd-cachememsize, nsslapd-dncachememsize, nsslapd-dbcachesize) do not apply";

static void put_recommend(sat_rnode *root, const sat_cs *c, const cs_sizes *z)
{
    sat_rnode *o = sat_obj(root, "recommend");
    uint64_t sv = c->s.servers;
    sat_put_text(o, "server_kind", sv == CS_SERVER_389 ? "389" : sv == CS_SERVER_OPENLDAP ? "openldap"
                              : sv ? "389+openldap" : NULL);
    if (sv == CS_SERVER_OPENLDAP) {
        sat_put_text(o, "applies", mdb_applies);
        put_estimate(o, "working_set_entries", z->unique);
        sat_put_note(o, "every distinct entry the log names");
        put_dbytes(o, "working_set_bytes", z->unique * z->entry_bytes);
        sat_put_note(o, "x the entry size, when known: memory for the filesystem cache");
        sat_put_num(o, "entry_size", z->entry_bytes, 1);
        sat_put_text(o, "entry_size_from", z->entry_bytes_from);
        return;
    }
    sat_put_text(o, "backend", z->backend);
    sat_put_num(o, "entry_size", z->entry_bytes, 1);
    sat_put_text(o, "entry_size_from", z->entry_bytes_from);
    sat_put_num(o, "dn_entry_size", z->dn_entry_bytes, 1);
    sat_put_text(o, "dn_entry_size_from", z->dn_bytes_from);
    put_size(o, "cachememsize_bytes", z->cachememsize);
    put_size(o, "dncachememsize_bytes", z->dncachememsize);
    put_size(o, "dbcachesize_bytes", z->dbcachesize);
    int db = c->o.db_kind;
    sat_put_text(o, "db", db == SAT_CS_DB_BDB ? "bdb" : db == SAT_CS_DB_LMDB ? "lmdb" : NULL);
    sat_put_text(o, "db_note", db_note(db));
    if (db == SAT_CS_DB_BDB) {
        sat_put_count(o, "db_index_files", c->o.db_files ? c->o.db_files - 1 : 0);
        sat_put_count(o, "db_indexes_read", z->db_indexes_used);
        sat_put_text(o, "db_indexes_read_names", z->db_used_names);
        sat_put_bytes(o, "db_index_read_bytes", z->db_used_index_bytes);
        sat_put_bytes(o, "db_id2entry_read_bytes", z->db_id2entry_part);
        sat_put_bytes(o, "db_id2entry_bytes", c->o.db_id2entry_bytes);
    }
    char *ldif = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&ldif, &len);
    if (mf) {
        write_ldif(z, mf);
        fclose(mf);
    }
    sat_put_text(o, "ldif", ldif && len ? ldif : NULL);
    free(ldif);
}

/* The stream's counts, in the order `stream` writes them: three runs of
 * their lists (cachesize_internal.h), each a descriptor over cs_counts. */
#define CS_OUT(field, key, title, note) SAT_COUNTER(cs_counts, field, key, title, note),
static const sat_acc_field ops_out[] = {CS_OPS(CS_OUT)};
static const sat_acc_field refs_out[] = {CS_REFS_OF(CS_OUT) CS_UNSEEN(CS_OUT)};
static const sat_acc_field reads_out[] = {CS_UNSEEN_READS(CS_OUT) CS_NOT_REFS(CS_OUT)};
#undef CS_OUT
#define CS_DESC(fields) {sizeof(cs_counts), fields, sizeof fields / sizeof fields[0], NULL}
static const sat_rec_desc ops_desc = CS_DESC(ops_out), refs_desc = CS_DESC(refs_out),
                          reads_desc = CS_DESC(reads_out);
#undef CS_DESC

static void put_stream(sat_rnode *root, const sat_cs *c)
{
    const cs_counts *k = &c->s.n;
    const sat_fields_seen *fs = &c->s.fields;
    sat_rnode *o = sat_obj(root, "stream");
    sat_rec_put(&ops_desc, o, k, NULL);
    sat_rnode *by = sat_obj(o, "references_by_op");
    sat_set_compact(by);
    for (int t = 0; t < SAT_OP__COUNT; t++)
        if (k->refs_by_type[t])
            sat_put_count(by, sat_optype_name(t), k->refs_by_type[t]);
    sat_rec_put(&refs_desc, o, k, NULL);
    /* unindexed searches need notes= (fields.h): null where no input logs them */
    const char *why = fs->why[SAT_FIELD_NOTES] ? fs->why[SAT_FIELD_NOTES] : "the inputs do not log it";
    char note[600];
    if (!(sat_fields_known(fs) & SAT_FIELD_BIT(SAT_FIELD_NOTES))) {
        sat_put_absent(o, "unseen_unindexed", SAT_UNIT_COUNT);
        snprintf(note, sizeof note, "not logged (%s)", why);
        sat_put_note(o, note);
    } else {
        sat_put_count(o, "unseen_unindexed", k->unseen_unindexed);
        if (fs->without[SAT_FIELD_NOTES]) {
            snprintf(note, sizeof note, "partial: %u of %u inputs cannot log it: %s",
                     fs->without[SAT_FIELD_NOTES], fs->inputs, why);
            sat_put_note(o, note);
        }
    }
    sat_rec_put(&reads_desc, o, k, NULL);
    sat_put_num(o, "dn_mean_length", c->mrc.dn_mean_len, 2);
}

static void put_monitor(sat_rnode *root, const sat_cs *c, const cs_sizes *z)
{
    sat_rnode *o = sat_obj(root, "monitor");
    sat_put_count(o, "snapshots", c->o.nmonitor);
    const sat_cs_monitor *m = c->o.nmonitor ? &c->mon[c->o.nmonitor - 1] : NULL;
    if (m && m->entry_max_bytes >= 0)
        sat_put_bytes(o, "max_entry_cache_bytes", (uint64_t)m->entry_max_bytes);
    else
        sat_put_absent(o, "max_entry_cache_bytes", SAT_UNIT_BYTES);
    sat_put_ratio(o, "measured_hit_ratio", z->measured_hit, 6);
    sat_put_bool(o, "measured_interval", z->measured_interval);
    sat_put_ratio(o, "measured_dn_hit_ratio", z->measured_dn_hit, 6);
    put_estimate(o, "current_entries", z->current_entries);
    sat_put_ratio(o, "predicted_hit_ratio", z->predicted_hit, 6);
}

int sat_cs_result(const sat_cs *c, sat_result *res)
{
    sat_rnode *root = sat_result_root(res);
    if (!c || !c->finished || !root)
        return SAT_E_USAGE;
    cs_sizes *z = malloc(sizeof *z);
    cs_hour *hours = NULL;
    size_t nhours = 0;
    if (!z || cs_working_set(c, &hours, &nhours) < 0) {
        free(z);
        return SAT_E_NOMEM;
    }
    cs_sizes_of(c, z);
    const cs_mrc *m = &c->mrc;
    sat_put_text(root, "method", m->method == CS_SHARDS ? "shards" : "exact");
    sat_put_count(root, "references", c->s.n.references);
    put_estimate(root, "unique", z->unique);
    sat_put_ratio(root, "max_hit_ratio", z->max_hit_ratio, 6);
    sat_put_ratio(root, "unseen_share", z->unseen_share, 6);
    sat_put_time(root, "first_ts", c->s.first_ts);
    sat_put_time(root, "last_ts", c->s.first_ts ? c->s.last_ts : 0);

    sat_rnode *t = sat_table(root, "targets", target_cols, NCOLS(target_cols));
    sat_result_set_main(res, t);
    for (size_t i = 0; i < z->ntargets; i++) {
        const cs_target *g = &z->targets[i];
        sat_rnode *r = sat_table_row(t);
        sat_put_ratio(r, "hit_ratio", g->target, 6);
        sat_put_bool(r, "reachable", g->reachable);
        /* a target the access pattern cannot reach (its cold misses: the
         * first reference to each entry) has no size: absent, not the size
         * of every entry */
        if (g->reachable) {
            sat_put_count(r, "entries", g->entries);
            put_dbytes(r, "bytes", g->bytes);
        } else {
            sat_put_absent(r, "entries", SAT_UNIT_COUNT);
            sat_put_absent(r, "bytes", SAT_UNIT_BYTES);
        }
    }
    put_recommend(root, c, z);

    sat_rnode *o = sat_obj(root, "reads_seen");
    put_estimate(o, "server_reads", z->server_reads);
    sat_put_text(o, "server_reads_from", z->reads_from);
    sat_put_ratio(o, "share_named", z->seen_reads_share, 6);
    sat_put_bool(o, "most_unseen", z->most_reads_unseen);
    put_monitor(root, c, z);
    put_stream(root, c);
    o = sat_obj(root, "sampling");
    sat_put_count(o, "kept", m->nrefs);
    sat_put_ratio(o, "keep_rate", cs_mrc_keep_rate(m), 9);
    sat_put_ratio(o, "shards_rate", m->shards_rate, 9);
    sat_put_count(o, "shards_smax", c->o.shards_smax);

    t = sat_table(root, "working_set", hour_cols, NCOLS(hour_cols));
    sat_table_set_window(t, (int64_t)3600 * 1000000000);
    for (size_t i = 0; i < nhours; i++) {
        sat_rnode *r = sat_table_row(t);
        sat_put_time(r, "start_ts", hours[i].start);
        sat_put_count(r, "references", hours[i].refs);
        put_estimate(r, "distinct", hours[i].distinct);
    }
    t = sat_table(root, "mrc", mrc_cols, NCOLS(mrc_cols));
    for (size_t i = 0; i < z->nmrc; i++) {
        sat_rnode *r = sat_table_row(t);
        sat_put_count(r, "entries", z->mrc[i].entries);
        put_dbytes(r, "bytes", z->mrc[i].bytes);
        sat_put_ratio(r, "hit_ratio", z->mrc[i].hit_ratio, 6);
        sat_put_ratio(r, "miss_ratio", 1.0 - z->mrc[i].hit_ratio, 6);
    }
    free(hours);
    free(z);
    return sat_result_status(res);
}
