/*
 * test_corpus_389.c - conformance of the 389 text format + joiner on the real
 * samples in $SAT_CORPUS/ldap (see its README for provenance). The expected
 * numbers were counted independently with grep/awk on the files:
 *   3.1.1 log: 19,534 lines; 1,953 "connection from local" lines (strictly
 *     increasing conn numbers, so no restart); 1,953 each of AUTOBIND, BIND,
 *     SRCH, EXT, UNBIND; 5,859 RESULT lines = 3 per connection, all paired;
 *     1,953 "- U1" closes plus the final conn=1 "- A1" with no open line.
 *   format zoo: 184 lines, 15 connection lines whose numbers go back 8 times
 *     (the docs repeat blocks: each is a restart by the counter rule), 24 BIND,
 *     25 SRCH, 2 ADD, 2 EXT, 10 UNBIND, 1 AUTOBIND, 1 UNPROCESSED (tag=101),
 *     72 RESULT of which 18 have no request (15 tag=101, 3 tag=103), 14 "- U1".
 *   garbage file: 8 garbage lines, 2 legacy lines, 6 JSON lines.
 *   pool stats: 9 lines, 1 BIND + 3 SRCH, 2 with notes=A, wbusy on 3 RESULTs.
 *   1.2.11: 12 lines incl. a non-indented header, -0400 offset, 3 SRCH, a B1.
 */
#include "check.h"
#include "p389_collect.h"

extern const sat_log_format sat_fmt_389text;

static char *slurp(const char *dir, const char *name, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/ldap/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = (char *)malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

typedef struct tally {
    size_t type[SAT_OP__COUNT], unfinished, no_request, notes_a, wbusy;
    size_t close[SAT_CLOSE__COUNT], listener[SAT_LISTENER__COUNT], no_open, unclosed;
    uint32_t max_epoch;
} tally;

static int run_file(const char *dir, const char *name, coll *c, sat_source *s, tally *t)
{
    size_t len;
    char *b = slurp(dir, name, &len);
    CHECK(b != NULL);
    if (!b)
        return -1;
    memset(c, 0, sizeof *c);
    memset(s, 0, sizeof *s);
    memset(t, 0, sizeof *t);
    coll_run(c, &sat_fmt_389text, s, b, len, 1);
    for (size_t i = 0; i < c->nops; i++) {
        const sat_ldap_op *o = &c->ops[i];
        t->type[o->type]++;
        t->unfinished += (o->flags & SAT_OPF_UNFINISHED) != 0;
        t->no_request += (o->flags & SAT_OPF_NO_REQUEST) != 0;
        t->notes_a += (o->notes & SAT_NOTE_A) != 0;
        t->wbusy += o->wbusy != SAT_ABSENT;
        if (o->conn_epoch > t->max_epoch)
            t->max_epoch = o->conn_epoch;
    }
    for (size_t i = 0; i < c->nconns; i++) {
        const sat_ldap_conn *k = &c->conns[i];
        t->close[k->close_code]++;
        t->listener[k->listener]++;
        t->no_open += (k->flags & SAT_CONNF_NO_OPEN) != 0;
        t->unclosed += (k->flags & SAT_CONNF_UNCLOSED) != 0;
    }
    free(b);
    return 0;
}

int main(void)
{
    const char *dir = getenv("SAT_CORPUS");
    char probe[4096];
    FILE *f = NULL;
    if (dir) {
        snprintf(probe, sizeof probe, "%s/ldap/389ds-3.1.1_theoweiss_access-2.log", dir);
        f = fopen(probe, "rb");
    }
    if (!f) {
        printf("SKIP: 389 corpus not found (SAT_CORPUS=%s)\n", dir ? dir : "(unset)");
        return 77;
    }
    fclose(f);
    coll c;
    sat_source s;
    tally t;

    if (run_file(dir, "389ds-3.1.1_theoweiss_access-2.log", &c, &s, &t) == 0) {
        CHECK_EQ_INT(s.lines, 19534);
        CHECK_EQ_INT(s.rejects, 0);
        CHECK_EQ_SSTR(s.server_version, "389-Directory/3.1.1 B2024.213.0201");
        CHECK_EQ_SSTR(s.server_name, "f4f1b2aab41e:3636");
        CHECK_EQ_INT(s.first_ts, 1749367154214871640LL); /* 08/Jun/2025:07:19:14.214871640 */
        CHECK_EQ_INT(s.last_ts, 1749384867168284817LL);  /* 08/Jun/2025:12:14:27.168284817 */
        CHECK_EQ_INT(c.nconns, 1954);
        CHECK_EQ_INT(t.listener[SAT_LISTENER_LDAPI], 1953);
        CHECK_EQ_INT(t.close[SAT_CLOSE_U1], 1953);
        CHECK_EQ_INT(t.close[SAT_CLOSE_A1], 1);
        CHECK_EQ_INT(t.no_open, 1);
        CHECK_EQ_INT(t.unclosed, 0);
        CHECK_EQ_INT(c.nops, 5 * 1953);
        CHECK_EQ_INT(t.type[SAT_OP_AUTOBIND], 1953);
        CHECK_EQ_INT(t.type[SAT_OP_BIND], 1953);
        CHECK_EQ_INT(t.type[SAT_OP_SRCH], 1953);
        CHECK_EQ_INT(t.type[SAT_OP_EXT], 1953);
        CHECK_EQ_INT(t.type[SAT_OP_UNBIND], 1953);
        CHECK_EQ_INT(t.unfinished, 0);
        CHECK_EQ_INT(t.no_request, 0);
        CHECK_EQ_INT(t.max_epoch, 0);
        for (size_t i = 0; i < c.nops; i++) {
            const sat_ldap_op *o = &c.ops[i];
            if (o->type == SAT_OP_BIND || o->type == SAT_OP_SRCH || o->type == SAT_OP_EXT) {
                if (o->etime <= 0 || o->wtime <= 0 || o->optime <= 0 || o->err != 0 ||
                    o->result_ts_ns < o->ts_ns) {
                    CHECK(!"RESULT fields of a paired op");
                    break;
                }
            }
            if (o->type == SAT_OP_SRCH &&
                !(o->filter_shape.len == 15 && memcmp(o->filter_shape.ptr, "(objectclass=*)", 15) == 0)) {
                CHECK(!"SRCH filter shape");
                break;
            }
        }
        for (size_t i = 0; i < c.nconns; i++)
            if (c.conns[i].conn == 151933) {
                CHECK_EQ_SSTR(c.conns[i].bind_dn, "cn=Directory Manager");
                CHECK_EQ_INT(c.conns[i].ops, 4);
            }
        coll_free(&c);
    }

    if (run_file(dir, "389ds-docs_format-variants_2009-2024.log", &c, &s, &t) == 0) {
        CHECK_EQ_INT(s.lines, 184);
        CHECK_EQ_INT(s.rejects, 0);
        CHECK_EQ_INT(t.max_epoch, 8);
        CHECK_EQ_INT(c.nops, 83);
        CHECK_EQ_INT(t.type[SAT_OP_BIND], 24);
        CHECK_EQ_INT(t.type[SAT_OP_SRCH], 25 + 15 + 1);
        CHECK_EQ_INT(t.type[SAT_OP_MOD], 3);
        CHECK_EQ_INT(t.type[SAT_OP_ADD], 2);
        CHECK_EQ_INT(t.type[SAT_OP_EXT], 2);
        CHECK_EQ_INT(t.type[SAT_OP_UNBIND], 10);
        CHECK_EQ_INT(t.type[SAT_OP_AUTOBIND], 1);
        CHECK_EQ_INT(t.no_request, 18);
        CHECK_EQ_INT(t.unfinished, 0);
        CHECK_EQ_INT(t.close[SAT_CLOSE_U1], 14);
        CHECK_EQ_INT(t.listener[SAT_LISTENER_LDAPI], 1);
        coll_free(&c);
    }

    if (run_file(dir, "389ds-logconv_test_mixed_legacy_json_garbage.log", &c, &s, &t) == 0) {
        CHECK_EQ_INT(s.lines, 16);
        CHECK_EQ_INT(s.rejects, 8);
        CHECK_EQ_INT(c.nrejects, 8);
        for (size_t i = 0; i < c.nrejects && i < 8; i++)
            CHECK_EQ_INT(c.rejects[i].line_no, i + 1);
        /* the legacy SRCH with its notes=F RESULT and trailing text */
        const sat_ldap_op *o = NULL;
        for (size_t i = 0; i < c.nops && !o; i++)
            if (c.ops[i].type == SAT_OP_SRCH && c.ops[i].notes == SAT_NOTE_F)
                o = &c.ops[i]; /* the legacy line comes first */
        CHECK(o != NULL);
        if (o) {
            CHECK_EQ_SSTR(o->text, "Invalid attribute in filter - results may not be complete.");
            CHECK_EQ_SSTR(o->details, "Filter Element Missing From Schema");
            CHECK_EQ_INT(o->etime, 65964499);
        }
        /* the JSON lines went to the JSON decoder: 2 SRCH, 1 ADD, 1 MODRDN in all */
        CHECK_EQ_INT(c.nops, 4);
        coll_free(&c);
    }

    if (run_file(dir, "389ds-synthetic_logconv_test_pool_stats_wbusy.log", &c, &s, &t) == 0) {
        CHECK_EQ_INT(s.rejects, 0);
        CHECK_EQ_INT(c.nops, 4);
        CHECK_EQ_INT(t.notes_a, 2);
        CHECK_EQ_INT(t.wbusy, 3);
        CHECK_EQ_INT(t.unfinished, 0);
        for (size_t i = 0; i < c.nops; i++)
            if (c.ops[i].op == 2)
                CHECK(c.ops[i].wbusy == 14 && c.ops[i].wbusy_max == 16 && c.ops[i].wqdepth == 7 &&
                      c.ops[i].etime == 1100000);
        coll_free(&c);
    }

    if (run_file(dir, "389ds-1.2.11_insights-core_test_dirsrv_logs.log", &c, &s, &t) == 0) {
        CHECK_EQ_INT(s.lines, 12);
        CHECK_EQ_INT(s.rejects, 0);
        CHECK_EQ_SSTR(s.server_version, "389-Directory/1.2.11.15 B2014.300.2010");
        CHECK_EQ_INT(s.utc_offset_s, -4 * 3600);
        CHECK_EQ_INT(t.type[SAT_OP_SRCH], 3);
        CHECK_EQ_INT(t.close[SAT_CLOSE_B1], 1);
        CHECK_EQ_INT(c.nconns, 3);
        CHECK_EQ_INT(t.no_open, 1);
        coll_free(&c);
    }
    return CHECK_DONE();
}
