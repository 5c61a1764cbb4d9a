/*
 * section_cachesize.c - the sections of the cachesize analyzer's result
 * (analyze/cachesize_result.c), the answer first: the suggested nsslapd-*
 * settings ("recommend"), the size for each target hit ratio ("targets"),
 * the LDIF ready for ldapmodify ("ldif", preformatted: it is copied as it
 * is); then whether the log sees the server's entry reads ("reads_seen"),
 * the cn=monitor comparison ("monitor"), the reference stream and what it
 * cannot see ("stream"), the working set per hour ("working_set") and the
 * miss-ratio curve ("curve"). `satscope cachesize` prints them; the
 * post-mortem's "Capacity" takes the targets and the recommendation.
 */
#include <string.h>

#include "sections.h"

static void lead(const sec_ctx *c, const sat_rnode *root, char *buf, size_t n)
{
    (void)c;
    uint64_t refs = sat_get_count(root, "references", 0),
             uniq = sat_get_count(root, "unique", 0);
    int shards = !strcmp(sat_get_text(root, "method", ""), "shards");
    snprintf(buf, n, "%llu entry %s, %llu distinct %s (LRU, %s)", (unsigned long long)refs,
             sat_plural(refs, "reference", "references"), (unsigned long long)uniq,
             sat_plural(uniq, "entry", "entries"), shards ? "sampled" : "exact");
}

/* A suggested size, its exact bytes and why: "2.00 MiB  2097152 bytes: why"
 * ("-  why" when there is none). */
static void setting(sat_rnode *v, const sat_rnode *rec, const char *key, const char *attr,
                    const char *why)
{
    char note[1024];
    if (sat_get_has(rec, key))
        snprintf(note, sizeof note, "%llu bytes: %s",
                 (unsigned long long)sat_get_count(rec, key, 0), why);
    else
        snprintf(note, sizeof note, "%s", why);
    sec_copy(v, rec, key, NULL, attr);
    sat_put_note(v, note);
}

static void recommend(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    const sat_rnode *rec = sat_get_obj(root, "recommend"), *reads = sat_get_obj(root, "reads_seen");
    char a[96], why[512];
    const char *server = sat_get_text(rec, "server_kind", "");
    if (!strcmp(server, "openldap")) { /* back-mdb: no cache settings to size */
        sat_rnode *s = sec_section(c, parent, "recommend",
                                   "What applies to this server (OpenLDAP back-mdb)");
        sat_doc_para(s, "%s.", sat_get_text(rec, "applies", ""));
        sat_rnode *v = sat_doc_values(s);
        sec_copy(v, rec, "working_set_entries", NULL, "working set");
        sec_copy(v, rec, "working_set_bytes", NULL, "working set bytes");
        if (!sat_get_has(rec, "working_set_bytes"))
            sat_put_note(v, "no entry size (give --entry-size or --ldif)");
        return;
    }
    /* the largest target, or when none is reachable the most the log allows */
    const sat_rnode *tl = NULL;
    for (const sat_rnode *r = sat_rnode_first(sat_get_table(root, "targets")); r;
         r = sat_rnode_next(r))
        tl = r;
    sat_rnode *s;
    if (tl && sat_get_bool(tl, "reachable", 1) == 0) {
        sec_fmt(c, a, sizeof a, root, "max_hit_ratio");
        s = sec_section(c, parent, "recommend",
                        "Suggested settings (for %s: the most this log allows)", a);
    } else {
        s = sec_section(c, parent, "recommend",
                        "Suggested settings (for the largest target hit ratio)");
    }
    sat_rnode *v = sat_doc_values(s);
    if (!v)
        return;
    if (!sat_get_has(rec, "cachememsize_bytes")) {
        snprintf(why, sizeof why, "no entry size (give --entry-size, --monitor or --ldif)");
    } else if (sat_get_bool(reads, "most_unseen", 0) == 1) {
        sec_fmt(c, a, sizeof a, reads, "share_named");
        snprintf(why, sizeof why, "target entries x entry size, rounded up to a MiB (at least "
                                  "512000), from a curve of %s of the server's entry reads (see "
                                  "below)", a);
    } else {
        snprintf(why, sizeof why, "target entries x entry size, rounded up to a MiB (at least "
                                  "512000)");
    }
    setting(v, rec, "cachememsize_bytes", "nsslapd-cachememsize", why);
    if (sat_get_has(rec, "dncachememsize_bytes")) {
        sat_fmt_fixed(a, sizeof a, sat_get_num(rec, "dn_entry_size", NAN), 0);
        snprintf(why, sizeof why, "every distinct entry x %s bytes a DN (%s)", a,
                 sat_get_text(rec, "dn_entry_size_from", "?"));
        setting(v, rec, "dncachememsize_bytes", "nsslapd-dncachememsize", why);
    }
    const char *note = sat_get_text(rec, "db_note", "");
    static const char prefix[] = "nsslapd-dbcachesize: ";
    if (!strncmp(note, prefix, sizeof prefix - 1))
        note += sizeof prefix - 1;
    setting(v, rec, "dbcachesize_bytes", "nsslapd-dbcachesize", note);
    if (!strcmp(sat_get_text(rec, "db", ""), "bdb")) {
        char ib[64], pb[64], tb[64];
        const char *names = sat_get_text(rec, "db_indexes_read_names", "");
        sec_fmt(c, ib, sizeof ib, rec, "db_index_read_bytes");
        sec_fmt(c, pb, sizeof pb, rec, "db_id2entry_read_bytes");
        sec_fmt(c, tb, sizeof tb, rec, "db_id2entry_bytes");
        snprintf(why, sizeof why, "of %llu index files, %s (%s); id2entry.db: %s of %s",
                 (unsigned long long)sat_get_count(rec, "db_index_files", 0), ib,
                 *names ? names : "none", pb, tb);
        sec_copy(v, rec, "db_indexes_read", NULL, "indexes read");
        sat_put_note(v, why);
    }
}

/* The targets, and under them those this log cannot reach. */
static void targets(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    const sat_rnode *t = sat_get_table(root, "targets");
    sat_rnode *s = sec_section(c, parent, "targets", "Target hit ratios");
    sat_doc_table(s, NULL, NULL, t, "hit_ratio,reachable,entries,bytes", 0, NULL, NULL);
    char list[512] = "", last[64] = "";
    size_t len = 0, n = 0;
    for (const sat_rnode *r = sat_rnode_first(t); r; r = sat_rnode_next(r)) {
        if (sat_get_bool(r, "reachable", 1) != 0)
            continue;
        if (n++) /* the one before goes into the list */
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", n > 2 ? ", " : "", last);
        if (len >= sizeof list)
            len = sizeof list - 1;
        sec_fmt(c, last, sizeof last, r, "hit_ratio");
    }
    char mx[64];
    sec_fmt(c, mx, sizeof mx, root, "max_hit_ratio");
    if (n == 1)
        sat_doc_footnote(s, "%s is unreachable: the first reference to each entry is a miss, so "
                            "no cache size reaches more than %s in this log",
                         last, mx);
    else if (n)
        sat_doc_footnote(s, "%s and %s are unreachable: the first reference to each entry is a "
                            "miss, so no cache size reaches more than %s in this log",
                         list, last, mx);
}

/* The modification for ldapmodify, line by line as it is to be copied. */
static void ldif(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    const char *text = sat_get_text(root, "recommend.ldif", NULL);
    if (!text)
        return;
    sat_rnode *s = sec_section(c, parent, "ldif",
                               "LDIF for ldapmodify -D \"cn=directory manager\" -W -f FILE");
    while (s && *text) {
        const char *e = strchr(text, '\n');
        size_t n = e ? (size_t)(e - text) : strlen(text);
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)n, text);
        sat_doc_pre(s, line);
        text += n + (e != NULL);
    }
}

/* Said plainly: the curve is then not the stream the server's cache saw. */
static void reads_seen(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    const sat_rnode *reads = sat_get_obj(root, "reads_seen"), *mon = sat_get_obj(root, "monitor");
    uint64_t refs = sat_get_count(root, "references", 0);
    if (!refs || sat_get_bool(reads, "most_unseen", 0) != 1)
        return;
    char a[64], head[512];
    sec_fmt(c, a, sizeof a, reads, "share_named");
    uint64_t server = sat_get_count(reads, "server_reads", 0);
    if (!strcmp(sat_get_text(reads, "server_reads_from", ""), "cn=monitor"))
        snprintf(head, sizeof head, "where cn=monitor counted %llu entry cache lookups between "
                                    "the snapshots (%s named).", (unsigned long long)server, a);
    else
        snprintf(head, sizeof head, "where its one-level and subtree searches read at least "
                                    "%.0f more that it does not name (%s named).",
                 (double)server - (double)refs, a);
    int compared = sat_get_has(mon, "measured_hit_ratio") && sat_get_has(mon, "predicted_hit_ratio");
    sat_rnode *s = sec_section(c, parent, "reads_seen",
                               "The log cannot see most of this server's entry reads");
    sat_doc_para(s, "It names %llu of them, %s The curve below is the stream the log names, not "
                    "the one the server's cache saw (with search-then-bind, for example, the bind "
                    "finds the entry its search has just read: a hit the log shows as a first "
                    "reference)%s",
                 (unsigned long long)refs, head, compared ? ":" : ".");
    if (compared) {
        char p[64], m[64];
        sec_fmt(c, p, sizeof p, mon, "predicted_hit_ratio");
        sec_fmt(c, m, sizeof m, mon, "measured_hit_ratio");
        sat_doc_para(s, "it predicts %s at the current size where cn=monitor measured %s. Size "
                        "the entry cache from the measured ratio.", p, m);
    } else {
        sat_doc_para(s, "Measure the server's: two cn=monitor snapshots around the same period "
                        "(--monitor BEFORE.ldif --monitor AFTER.ldif).");
    }
}

static void monitor(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    const sat_rnode *m = sat_get_obj(root, "monitor");
    uint64_t n = sat_get_count(m, "snapshots", 0);
    if (!n)
        return;
    sat_rnode *s = sec_section(c, parent, "monitor", "Current settings (cn=monitor of backend %s, "
                               "%llu %s)", sat_get_text(root, "recommend.backend", "?"),
                               (unsigned long long)n, sat_plural(n, "snapshot", "snapshots"));
    sat_rnode *v = sat_doc_values(s);
    char note[512];
    if (sat_get_has(m, "max_entry_cache_bytes")) {
        snprintf(note, sizeof note, "maxentrycachesize %llu",
                 (unsigned long long)sat_get_count(m, "max_entry_cache_bytes", 0));
        sec_copy(v, m, "max_entry_cache_bytes", NULL, "entry cache");
        sat_put_note(v, note);
        sec_copy(v, m, "current_entries", NULL, "entries it holds");
        sat_put_note(v, "about: the size over the entry size");
    }
    int interval = sat_get_bool(m, "measured_interval", 0) == 1;
    snprintf(note, sizeof note, "%s(it also counts the entries one-level and subtree searches "
                                "read, which the curve cannot see)",
             interval                              ? "between the two snapshots "
             : sat_get_has(m, "measured_hit_ratio") ? "since the server started "
                                                    : "");
    sec_copy(v, m, "measured_hit_ratio", NULL, "measured hit ratio");
    sat_put_note(v, note);
    sec_copy(v, m, "predicted_hit_ratio", NULL, "predicted hit ratio");
    sat_put_note(v, "by the curve, at that size");
    if (sat_get_has(m, "measured_dn_hit_ratio"))
        sec_copy(v, m, "measured_dn_hit_ratio", NULL, "measured DN hit ratio");
}

/* "BIND 211, SRCH base 570 (MODRDN new DNs 44), ENTRY lines 2; internal
 * operations 3": the references by where they come from. */
static void references_from(const sat_rnode *st, char *by, size_t size)
{
    size_t bl = 0;
    by[0] = '\0';
    for (const sat_rnode *o = sat_rnode_first(sat_get_obj(st, "references_by_op")); o && bl < size;
         o = sat_rnode_next(o)) {
        const char *k = sat_rnode_key(o);
        bl += (size_t)snprintf(by + bl, size - bl, "%s%s %llu", bl ? ", " : "",
                               !strcmp(k, "SRCH") ? "SRCH base" : k,
                               (unsigned long long)sat_get_count(o, NULL, 0));
    }
    uint64_t mod = sat_get_count(st, "modrdn_new_dns", 0), ent = sat_get_count(st, "entry_refs", 0),
             in = sat_get_count(st, "internal_references", 0);
    if (mod && bl < size)
        bl += (size_t)snprintf(by + bl, size - bl, " (MODRDN new DNs %llu)", (unsigned long long)mod);
    if (ent && bl < size)
        bl += (size_t)snprintf(by + bl, size - bl, "%sENTRY lines %llu", bl ? ", " : "",
                               (unsigned long long)ent);
    if (in && bl < size)
        snprintf(by + bl, size - bl, "%sinternal operations %llu", bl ? "; " : "",
                 (unsigned long long)in);
}

static void stream(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    const sat_rnode *st = sat_get_obj(root, "stream");
    sat_rnode *s = sec_section(c, parent, "stream", "Reference stream");
    sat_rnode *v = sat_doc_values(s);
    if (!v)
        return;
    int shards = !strcmp(sat_get_text(root, "method", ""), "shards");
    char a[96], b[96], note[1024];
    sat_put_text(v, "curve", shards ? "LRU, SHARDS: spatially hashed sampling"
                                    : "LRU, exact: Mattson stack distances");
    if (sat_get_has(root, "first_ts")) {
        sec_fmt(c, a, sizeof a, root, "first_ts");
        sec_fmt(c, b, sizeof b, root, "last_ts");
        snprintf(note, sizeof note, "%s - %s", a, b);
        sat_put_text(v, "span", note);
    }
    uint64_t nops = sat_get_count(st, "naming_operations", 0);
    snprintf(note, sizeof note, "%llu naming entries", (unsigned long long)nops);
    sec_copy(v, st, "operations", NULL, NULL);
    sat_put_note(v, note);
    references_from(st, note, sizeof note);
    sec_copy(v, root, "references", NULL, NULL);
    sat_put_note(v, *note ? note : NULL);
    sec_copy(v, root, "unique", NULL, "distinct entries");
    sat_put_note(v, shards ? "estimated" : NULL);
    if (shards) {
        const sat_rnode *sm = sat_get_obj(root, "sampling");
        sat_fmt_fixed(a, sizeof a, sat_get_num(sm, "keep_rate", NAN), 6);
        sat_fmt_fixed(b, sizeof b, sat_get_num(sm, "shards_rate", NAN), 6);
        snprintf(note, sizeof note, "references kept (rate %s), SHARDS s_max %llu, final rate %s",
                 a, (unsigned long long)sat_get_count(sm, "shards_smax", 0), b);
        sec_copy(v, sm, "kept", NULL, "sampling");
        sat_put_note(v, note);
    }
    if (sat_get_count(root, "references", 0)) {
        sec_copy(v, root, "max_hit_ratio", NULL, "best hit ratio");
        sat_put_note(v, "the first reference to each entry is a miss");
    }
    /* what the curve cannot see: the one-level and subtree searches */
    char unidx[700], share[192] = "";
    const sat_rnode *un = sat_rnode_get(st, "unseen_unindexed");
    const char *why = sat_rnode_note(un);
    if (!sat_get_has(st, "unseen_unindexed"))
        snprintf(unidx, sizeof unidx, "unindexed %s", why ? why : "not logged");
    else
        snprintf(unidx, sizeof unidx, "%llu of them unindexed%s%s%s",
                 (unsigned long long)sat_get_count(st, "unseen_unindexed", 0), why ? " (" : "",
                 why ? why : "", why ? ")" : "");
    if (sat_get_has(root, "unseen_share")) {
        sec_fmt(c, a, sizeof a, root, "unseen_share");
        snprintf(share, sizeof share, " (%s of the operations that read entries)", a);
    }
    uint64_t uo = sat_get_count(st, "unseen_operations", 0), el = sat_get_count(st, "entry_lines", 0);
    snprintf(note, sizeof note, "one-level/subtree %s%s, %s, %llu entries returned; %llu ENTRY %s",
             sat_plural(uo, "search", "searches"), share, unidx,
             (unsigned long long)sat_get_count(st, "unseen_entries_returned", 0),
             (unsigned long long)el, sat_plural(el, "line", "lines"));
    sec_copy(v, st, "unseen_operations", NULL, "unseen by curve");
    sat_put_note(v, note);
    uint64_t out = sat_get_count(st, "outside_backends", 0),
             nodn = sat_get_count(st, "binds_without_dn", 0);
    snprintf(note, sizeof note, "%s outside the backends (root DSE, cn=config, cn=schema, "
                                "cn=monitor, root DN), %llu %s without a DN",
             sat_plural(out, "DN", "DNs"), (unsigned long long)nodn,
             sat_plural(nodn, "BIND", "BINDs"));
    sec_copy(v, st, "outside_backends", NULL, "not references");
    sat_put_note(v, note);
    uint64_t miss = sat_get_count(st, "missing_entries", 0);
    if (miss) {
        snprintf(note, sizeof note, "%s named entries that do not exist (err=32, BIND err=49 "
                                    "\"No such entry\"): left out, not cache entries",
                 sat_plural(miss, "operation", "operations"));
        sec_copy(v, st, "missing_entries", NULL, "no such entry");
        sat_put_note(v, note);
    }
}

static void curve(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    const sat_rnode *rec = sat_get_obj(root, "recommend");
    const char *from = sat_get_text(rec, "entry_size_from", NULL);
    sat_rnode *s;
    if (from) {
        char b[64];
        sat_fmt_fixed(b, sizeof b, sat_get_num(rec, "entry_size", NAN), 0);
        s = sec_section(c, parent, "curve", "Miss-ratio curve (entry size %s bytes, from %s)", b,
                        from);
    } else {
        s = sec_section(c, parent, "curve", "Miss-ratio curve (no entry size: give --entry-size, "
                                            "--monitor or --ldif for bytes)");
    }
    sat_doc_table(s, NULL, NULL, sat_get_table(root, "mrc"), NULL, 0, NULL, NULL);
}

static void build(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    if (!sat_get_count(root, "references", 0)) {
        stream(c, root, parent);
        sec_section(c, parent, "none", "No entry references: nothing to size.");
        return;
    }
    recommend(c, root, parent);
    targets(c, root, parent);
    ldif(c, root, parent);
    reads_seen(c, root, parent);
    monitor(c, root, parent);
    stream(c, root, parent);
    const sat_rnode *ws = sat_get_table(root, "working_set");
    if (sat_rnode_count(ws))
        sat_doc_table(sec_section(c, parent, "working_set", "Working set (entries touched per hour)"),
                      NULL, NULL, ws, NULL, 0, NULL, NULL);
    curve(c, root, parent);
    sat_doc_para(sec_section(c, parent, "note", "Note"),
                 "389 ignores nsslapd-cachememsize while nsslapd-cache-autosize is not 0; 389 2.x "
                 "keeps it and nsslapd-dbcachesize in cn=bdb,cn=config,cn=ldbm database,"
                 "cn=plugins,cn=config (1.4 and older: cn=config,cn=ldbm database,...)");
}

static const char *const csv_tables[] = {"targets", "working_set", "mrc", NULL};

const sec_builder sec_cachesize = {"cachesize", lead, build, csv_tables};
