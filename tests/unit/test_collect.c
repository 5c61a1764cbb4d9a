/*
 * test_collect.c - collect/collect.c and rotation.c: a rotated set given in
 * the wrong name order is read in content-time order by one joiner (an
 * operation whose RESULT is in the next file is joined), each file gets a
 * source row with its final counts, unreadable and unrecognised inputs are
 * warned about and counted, patterns and directories expand, .sat traces are
 * replayed (their source and server numbers moved past those used before,
 * crash and frame rows included; a window applies), and the rotation naming
 * rules group files into servers.
 */
#include "check.h"
#include "satscope/collect.h"
#include "satscope/parse.h"
#include "satscope/trace.h"
#include "collect/collect_internal.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

static char tmpdir[256];

/* ---- a sink that records what it is given -------------------------------------------- */
typedef struct rec_source {
    uint32_t id, server;
    char path[300], format[32], compression[16];
    uint64_t lines, rejects, bytes;
    sat_ts_ns first_ts, last_ts;
    int truncated;
} rec_source;

typedef struct recorder {
    rec_source src[32];
    int nsrc;
    int nops, nconns, nrejects;
    uint32_t reject_source[32];
    int op_type[64];
    uint32_t op_server[64];
    uint8_t op_flags[64];
    sat_dur_ns op_etime[64];
    char warnings[4096];
} recorder;

static void cpy(char *dst, size_t cap, sat_str s)
{
    size_t n = s.ptr ? (s.len < cap - 1 ? s.len : cap - 1) : 0;
    if (n)
        memcpy(dst, s.ptr, n);
    dst[n] = '\0';
}

static int on_source(void *ctx, const sat_source *s)
{
    recorder *r = ctx;
    if (r->nsrc < 32) {
        rec_source *x = &r->src[r->nsrc];
        x->id = s->id;
        x->server = s->server;
        cpy(x->path, sizeof x->path, s->path);
        cpy(x->format, sizeof x->format, s->format);
        cpy(x->compression, sizeof x->compression, s->compression);
        x->lines = s->lines;
        x->rejects = s->rejects;
        x->bytes = s->bytes;
        x->first_ts = s->first_ts;
        x->last_ts = s->last_ts;
        x->truncated = s->truncated;
    }
    r->nsrc++;
    return 0;
}
static int on_reject(void *ctx, const sat_reject *x)
{
    recorder *r = ctx;
    if (r->nrejects < 32)
        r->reject_source[r->nrejects] = x->source;
    r->nrejects++;
    return 0;
}
static int on_op(void *ctx, const sat_ldap_op *o)
{
    recorder *r = ctx;
    if (r->nops < 64) {
        r->op_type[r->nops] = o->type;
        r->op_server[r->nops] = o->server;
        r->op_flags[r->nops] = o->flags;
        r->op_etime[r->nops] = o->etime;
    }
    r->nops++;
    return 0;
}
static int on_conn(void *ctx, const sat_ldap_conn *c)
{
    (void)c;
    ((recorder *)ctx)->nconns++;
    return 0;
}

static int rows_source_reject_op_conn(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_SOURCE:
        return on_source(ctx, (const sat_source *)row);
    case SAT_TABLE_REJECT:
        return on_reject(ctx, (const sat_reject *)row);
    case SAT_TABLE_LDAP_OP:
        return on_op(ctx, (const sat_ldap_op *)row);
    case SAT_TABLE_LDAP_CONN:
        return on_conn(ctx, (const sat_ldap_conn *)row);
    default:
        return 0;
    }
}

static void on_warn(void *ctx, const char *where, const char *msg)
{
    recorder *r = ctx;
    size_t l = strlen(r->warnings);
    snprintf(r->warnings + l, sizeof r->warnings - l, "%s: %s\n", where, msg);
}

static sat_event_sink sink_of(recorder *r)
{
    sat_event_sink s = {r, SAT_TABLE_BIT(SAT_TABLE_SOURCE) | SAT_TABLE_BIT(SAT_TABLE_REJECT) |
                           SAT_TABLE_BIT(SAT_TABLE_LDAP_OP) |
                           SAT_TABLE_BIT(SAT_TABLE_LDAP_CONN), rows_source_reject_op_conn};
    return s;
}

static char *path_of(const char *name)
{
    static char paths[16][512];
    static int next;
    char *p = paths[next++ % 16];
    snprintf(p, 512, "%s/%s", tmpdir, name);
    return p;
}

static void write_text(const char *name, const char *text)
{
    FILE *f = fopen(path_of(name), "wb");
    fputs(text, f);
    fclose(f);
}

static void write_gz(const char *name, const char *text)
{
    gzFile g = gzopen(path_of(name), "wb");
    gzputs(g, text);
    gzclose(g);
}

#define HDR "\t389-Directory/2.4.5 B2024.100.0000\n\tldap.example.com:389 (/etc/dirsrv/slapd-ex)\n\n"

/* Oldest: a connection opens, a search starts (its RESULT is in the next file). */
static const char *day1 =
    HDR
    "[01/Jun/2025:10:00:00.000000001 +0000] conn=1 fd=64 slot=64 connection from 10.0.0.1 to 10.0.0.2\n"
    "[01/Jun/2025:10:00:00.100000000 +0000] conn=1 op=0 BIND dn=\"cn=app\" method=128 version=3\n"
    "[01/Jun/2025:10:00:00.200000000 +0000] conn=1 op=0 RESULT err=0 tag=97 nentries=0 wtime=0.000100000 optime=0.000200000 etime=0.000300000 dn=\"cn=app\"\n"
    "[01/Jun/2025:23:59:59.900000000 +0000] conn=1 op=1 SRCH base=\"dc=example,dc=com\" scope=2 filter=\"(uid=jdoe)\" attrs=ALL\n";
/* Middle: the RESULT, one malformed line, an unbind and close. */
static const char *day2 =
    HDR
    "[02/Jun/2025:00:00:01.900000000 +0000] conn=1 op=1 RESULT err=0 tag=101 nentries=1 wtime=0.000100000 optime=1.999900000 etime=2.000000000\n"
    "this line is not a log line\n"
    "[02/Jun/2025:00:00:02.000000000 +0000] conn=1 op=2 UNBIND\n"
    "[02/Jun/2025:00:00:02.000000100 +0000] conn=1 op=2 fd=64 closed - U1\n";
/* Newest: another connection with one search. */
static const char *day3 =
    HDR
    "[03/Jun/2025:09:00:00.000000000 +0000] conn=2 fd=65 slot=65 connection from 10.0.0.3 to 10.0.0.2\n"
    "[03/Jun/2025:09:00:00.100000000 +0000] conn=2 op=0 SRCH base=\"\" scope=0 filter=\"(objectClass=*)\" attrs=\"namingContexts\"\n"
    "[03/Jun/2025:09:00:00.100500000 +0000] conn=2 op=0 RESULT err=0 tag=101 nentries=1 wtime=0.000100000 optime=0.000400000 etime=0.000500000\n"
    "[03/Jun/2025:09:00:01.000000000 +0000] conn=2 op=1 UNBIND\n"
    "[03/Jun/2025:09:00:01.000000100 +0000] conn=2 op=1 fd=65 closed - U1\n";

static void make_set(void)
{
    /* Names in strcmp order are the reverse of time order on purpose. */
    write_gz("access.2.gz", day1);
    write_text("access.1", day2);
    write_text("access", day3);
    write_text("access.rotationinfo", "1748736000\n");
}

static int src_index(const recorder *r, const char *name)
{
    for (int i = 0; i < r->nsrc && i < 32; i++) {
        const char *b = strrchr(r->src[i].path, '/');
        if (strcmp(b ? b + 1 : r->src[i].path, name) == 0)
            return i;
    }
    return -1;
}

static void test_rotated_set(void)
{
    recorder rec;
    memset(&rec, 0, sizeof rec);
    sat_event_sink sink = sink_of(&rec);
    const char *paths[3];
    char p0[512], p1[512], p2[512];
    snprintf(p0, sizeof p0, "%s", path_of("access"));
    snprintf(p1, sizeof p1, "%s", path_of("access.1"));
    snprintf(p2, sizeof p2, "%s", path_of("access.2.gz"));
    paths[0] = p0;
    paths[1] = p1;
    paths[2] = p2;
    sat_collect_opts o;
    memset(&o, 0, sizeof o);
    o.warn = on_warn;
    o.warn_ctx = &rec;
    sat_collect_stats st;
    sat_diag d = {0};
    int rc = sat_collect_run(paths, 3, &o, &sink, &st, &d);
    CHECK_EQ_INT(rc, SAT_OK);
    CHECK_EQ_INT(st.inputs, 3);
    CHECK_EQ_INT(st.unreadable, 0);
    CHECK_EQ_INT(rec.nsrc, 3);
    /* Read in content order: access.2.gz, access.1, access. */
    CHECK(rec.nsrc == 3 && strstr(rec.src[0].path, "access.2.gz") != NULL);
    CHECK(rec.nsrc == 3 && strstr(rec.src[1].path, "access.1") != NULL);
    CHECK(rec.nsrc == 3 && strcmp(strrchr(rec.src[2].path, '/'), "/access") == 0);
    for (int i = 0; i < rec.nsrc && i < 3; i++) {
        CHECK_EQ_INT(rec.src[i].id, i);
        CHECK_EQ_INT(rec.src[i].server, 0);
        CHECK_EQ_STR(rec.src[i].format, "389-text");
    }
    CHECK_EQ_STR(rec.src[0].compression, "gzip");
    CHECK_EQ_STR(rec.src[1].compression, "none");
    /* Final counts in each source row. */
    CHECK_EQ_INT(rec.src[0].lines, 7);
    CHECK_EQ_INT(rec.src[0].bytes, strlen(day1));
    CHECK_EQ_INT(rec.src[1].lines, 7);
    CHECK_EQ_INT(rec.src[1].rejects, 1);
    CHECK_EQ_INT(rec.src[2].lines, 8);
    CHECK_EQ_INT(rec.src[2].rejects, 0);
    CHECK_EQ_INT(st.lines, 22);
    CHECK_EQ_INT(st.rejects, 1);
    CHECK_EQ_INT(rec.nrejects, 1);
    CHECK_EQ_INT(rec.reject_source[0], 1);
    /* The search of day 1 got its RESULT from day 2: joined, not unfinished. */
    int joined = 0;
    for (int i = 0; i < rec.nops && i < 64; i++)
        if (rec.op_type[i] == SAT_OP_SRCH && rec.op_etime[i] == 2000000000LL &&
            !(rec.op_flags[i] & (SAT_OPF_UNFINISHED | SAT_OPF_NO_REQUEST)))
            joined = 1;
    CHECK(joined);
    CHECK_EQ_INT(st.unfinished, 0);
    CHECK_EQ_INT(st.ops, rec.nops);
    CHECK_EQ_INT(st.conns, 2);
    CHECK_EQ_INT(rec.nconns, 2);
    if (rec.warnings[0])
        fprintf(stderr, "warnings:\n%s", rec.warnings);
}

static void test_unreadable_and_unknown(void)
{
    recorder rec;
    memset(&rec, 0, sizeof rec);
    sat_event_sink sink = sink_of(&rec);
    write_text("blob.bin", "\x7f" "ELF\x02\x01\x01 binary stuff\n");
    char a[512], b[512], c[512];
    snprintf(a, sizeof a, "%s", path_of("access"));
    snprintf(b, sizeof b, "%s", path_of("no-such-file.log"));
    snprintf(c, sizeof c, "%s", path_of("blob.bin"));
    const char *paths[] = {a, b, c};
    sat_collect_opts o;
    memset(&o, 0, sizeof o);
    o.warn = on_warn;
    o.warn_ctx = &rec;
    sat_collect_stats st;
    sat_diag d = {0};
    int rc = sat_collect_run(paths, 3, &o, &sink, &st, &d);
    CHECK(rc < 0);
    CHECK_EQ_INT(st.inputs, 3);
    CHECK_EQ_INT(st.unreadable, 2);
    CHECK(strstr(rec.warnings, "no-such-file.log: No such file or directory") != NULL);
    CHECK(strstr(rec.warnings, "blob.bin: not a recognised log format (first bytes: ") != NULL);
    CHECK(d.msg[0] != '\0');
    /* The good input was still read; the unknown one has a source row. */
    CHECK_EQ_INT(st.lines, 8);
    int u = src_index(&rec, "blob.bin");
    CHECK(u >= 0);
    if (u >= 0)
        CHECK_EQ_STR(rec.src[u].format, "unknown");
    /* Two different servers: access and blob.bin. */
    int g = src_index(&rec, "access");
    CHECK(g >= 0 && u >= 0 && rec.src[g].server != rec.src[u].server);
}

static void test_pattern_and_directory(void)
{
    /* A quoted pattern (the shell did not expand it). */
    recorder rec;
    memset(&rec, 0, sizeof rec);
    sat_event_sink sink = sink_of(&rec);
    char pat[512];
    snprintf(pat, sizeof pat, "%s/access*", tmpdir);
    const char *paths[] = {pat};
    sat_collect_opts o;
    memset(&o, 0, sizeof o);
    o.warn = on_warn;
    o.warn_ctx = &rec;
    sat_collect_stats st;
    sat_diag d = {0};
    int rc = sat_collect_run(paths, 1, &o, &sink, &st, &d);
    CHECK_EQ_INT(rc, SAT_OK);
    CHECK_EQ_INT(st.inputs, 3); /* access.rotationinfo left out */
    CHECK_EQ_INT(rec.nsrc, 3);
    CHECK(rec.nsrc == 3 && strstr(rec.src[0].path, "access.2.gz") != NULL);

    /* The same file named twice is read once. */
    memset(&rec, 0, sizeof rec);
    char again[512];
    snprintf(again, sizeof again, "%s/access.1", tmpdir);
    const char *twice[] = {pat, again};
    rc = sat_collect_run(twice, 2, &o, &sink, &st, &d);
    CHECK_EQ_INT(rc, SAT_OK);
    CHECK_EQ_INT(rec.nsrc, 3);
    CHECK_EQ_INT(st.lines, 22);
    CHECK(strstr(rec.warnings, "access.1: same file as ") != NULL);

    /* No match. */
    memset(&rec, 0, sizeof rec);
    snprintf(pat, sizeof pat, "%s/nothing*", tmpdir);
    rc = sat_collect_run(paths, 1, &o, &sink, &st, &d);
    CHECK(rc < 0);
    CHECK_EQ_INT(st.unreadable, 1);
    CHECK(strstr(rec.warnings, "no file matches") != NULL);

    /* A directory: its regular files. */
    char dir[512];
    snprintf(dir, sizeof dir, "%s/sub", tmpdir);
    mkdir(dir, 0755);
    FILE *f = fopen(path_of("sub/access"), "w");
    fputs(day3, f);
    fclose(f);
    f = fopen(path_of("sub/access.1"), "w");
    fputs(day2, f);
    fclose(f);
    memset(&rec, 0, sizeof rec);
    const char *dpaths[] = {dir};
    rc = sat_collect_run(dpaths, 1, &o, &sink, &st, &d);
    CHECK_EQ_INT(st.inputs, 2);
    CHECK_EQ_INT(rec.nsrc, 2);
    CHECK(rec.nsrc == 2 && strstr(rec.src[0].path, "access.1") != NULL);
    /* day2's RESULT lacks its request here: rc is still OK (rejects are not errors). */
    CHECK_EQ_INT(rc, SAT_OK);
}

static void test_trace_replay(void)
{
    sat_diag d = {0};
    char out[512];
    snprintf(out, sizeof out, "%s", path_of("t.sat"));
    sat_trace_writer *w = sat_trace_writer_create(out, NULL, &d);
    CHECK(w != NULL);
    if (!w) {
        fprintf(stderr, "trace writer: %s\n", d.msg);
        return;
    }
    sat_event_sink ws = sat_trace_writer_sink(w);
    char p0[512];
    snprintf(p0, sizeof p0, "%s/access*", tmpdir);
    const char *paths[] = {p0};
    sat_collect_opts o;
    memset(&o, 0, sizeof o);
    sat_collect_stats st1, st2;
    int rc = sat_collect_run(paths, 1, &o, &ws, &st1, &d);
    CHECK_EQ_INT(rc, SAT_OK);
    rc = sat_trace_writer_close(w, &d);
    CHECK_EQ_INT(rc, SAT_OK);

    /* The trace and a log together: the log's server follows the trace's. */
    recorder rec;
    memset(&rec, 0, sizeof rec);
    sat_event_sink sink = sink_of(&rec);
    o.warn = on_warn;
    o.warn_ctx = &rec;
    char p1[512];
    snprintf(p1, sizeof p1, "%s", path_of("sub/access"));
    const char *tpaths[] = {out, p1};
    rc = sat_collect_run(tpaths, 2, &o, &sink, &st2, &d);
    CHECK_EQ_INT(rc, SAT_OK);
    CHECK_EQ_INT(st2.traces, 1);
    CHECK_EQ_INT(st2.inputs, 2);
    CHECK_EQ_INT(rec.nsrc, 4);
    CHECK_EQ_INT(st2.ops, st1.ops + 2);
    CHECK_EQ_INT(st2.conns, st1.conns + 1);
    CHECK_EQ_INT(st2.rejects, 1);
    /* Source ids and servers do not collide. */
    for (int i = 0; i < rec.nsrc && i < 4; i++)
        CHECK_EQ_INT(rec.src[i].id, i);
    CHECK(rec.nsrc == 4 && rec.src[3].server == rec.src[0].server + 1);
    CHECK(rec.nsrc == 4 && rec.src[1].lines == 7 && rec.src[1].rejects == 1);
    if (rec.warnings[0])
        fprintf(stderr, "warnings:\n%s", rec.warnings);

    /* A time window applies to the replayed trace. */
    memset(&rec, 0, sizeof rec);
    o.from_ns = 1748908800LL * 1000000000LL; /* 2025-06-03 00:00 UTC */
    const char *only[] = {out};
    rc = sat_collect_run(only, 1, &o, &sink, &st2, &d);
    CHECK_EQ_INT(rc, SAT_OK);
    CHECK_EQ_INT(st2.ops, 2);
}

/* 1.3: crash and frame rows of replayed traces get their source moved past
 * the ones used before (a frame still names its crash), and a window keeps
 * crashes by their time and every frame. */
typedef struct crash_rec {
    int ncrash, nframe;
    uint32_t crash_source[16], crash_no[16];
    sat_ts_ns crash_ts[16];
    uint32_t frame_source[64], frame_crash[64];
    int32_t frame_depth[64];
    char fingerprint[16][32], function[64][32];
    int nsrc;
    uint32_t src_id[16];
} crash_rec;

static int cr_source(void *ctx, const sat_source *s)
{
    crash_rec *r = ctx;
    if (r->nsrc < 16)
        r->src_id[r->nsrc] = s->id;
    r->nsrc++;
    return SAT_OK;
}

static int rows_source(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_SOURCE:
        return cr_source(ctx, (const sat_source *)row);
    default:
        return 0;
    }
}

static int cr_crash(void *ctx, const sat_crash *k)
{
    crash_rec *r = ctx;
    if (r->ncrash < 16) {
        r->crash_source[r->ncrash] = k->source;
        r->crash_no[r->ncrash] = k->crash;
        r->crash_ts[r->ncrash] = k->ts;
        cpy(r->fingerprint[r->ncrash], sizeof r->fingerprint[0], k->fingerprint);
    }
    r->ncrash++;
    return SAT_OK;
}
static int cr_frame(void *ctx, const sat_frame *f)
{
    crash_rec *r = ctx;
    if (r->nframe < 64) {
        r->frame_source[r->nframe] = f->source;
        r->frame_crash[r->nframe] = f->crash;
        r->frame_depth[r->nframe] = f->depth;
        cpy(r->function[r->nframe], sizeof r->function[0], f->function);
    }
    r->nframe++;
    return SAT_OK;
}

static int rows_source_crash_frame(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_SOURCE:
        return cr_source(ctx, (const sat_source *)row);
    case SAT_TABLE_CRASH:
        return cr_crash(ctx, (const sat_crash *)row);
    case SAT_TABLE_FRAME:
        return cr_frame(ctx, (const sat_frame *)row);
    default:
        return 0;
    }
}

#define CRASH_T0 1748736000000000000LL /* 2025-06-01 00:00 UTC */

/* A trace as a core collector would write it: sources 0 and 1, crash 1 of
 * each (a day apart), three frames each, written before their crash. */
static void write_crash_trace(const char *path)
{
    sat_diag d = {0};
    sat_trace_writer *w = sat_trace_writer_create(path, NULL, &d);
    CHECK(w != NULL);
    if (!w)
        return;
    sat_event_sink ws = sat_trace_writer_sink(w);
    static const char *const fns[] = {"raise", "abort", "main"};
    for (uint32_t src = 0; src < 2; src++) {
        for (int32_t depth = 0; depth < 3; depth++) {
            sat_frame f;
            memset(&f, 0, sizeof f);
            f.source = src;
            f.crash = 1;
            f.depth = depth;
            f.pc = 0x401000 + depth;
            f.offset = f.fn_offset = SAT_ABSENT;
            f.line = SAT_ABSENT;
            f.function = sat_str_cstr(fns[depth]);
            CHECK_EQ_INT(sat_sink_emit(&ws, SAT_TABLE_FRAME, &f), SAT_OK);
        }
        sat_crash k;
        memset(&k, 0, sizeof k);
        k.ts = CRASH_T0 + (int64_t)src * 86400000000000LL;
        k.source = src;
        k.crash = 1;
        k.pid = k.uid = k.si_code = k.orig_signal = k.crashing_tid = SAT_ABSENT;
        k.fault_addr = k.orig_fault_addr = SAT_ABSENT;
        k.signal = 6;
        k.origin = SAT_CRASH_CORE;
        k.fingerprint = sat_str_cstr(src ? "fp:1111111111111111" : "fp:0000000000000000");
        CHECK_EQ_INT(sat_sink_emit(&ws, SAT_TABLE_CRASH, &k), SAT_OK);
        sat_source so;
        memset(&so, 0, sizeof so);
        so.id = src;
        so.path = sat_str_cstr(src ? "core.2" : "core.1");
        so.kind = sat_str_cstr("core");
        CHECK_EQ_INT(sat_sink_emit(&ws, SAT_TABLE_SOURCE, &so), SAT_OK);
    }
    CHECK_EQ_INT(sat_trace_writer_close(w, &d), SAT_OK);
}

static void test_crash_replay(void)
{
    char t1[512], t2[512], log[512];
    snprintf(t1, sizeof t1, "%s", path_of("crash1.sat"));
    snprintf(t2, sizeof t2, "%s", path_of("crash2.sat"));
    snprintf(log, sizeof log, "%s", path_of("sub/access"));
    write_crash_trace(t1);
    write_crash_trace(t2);

    /* a log (source 0), then the two traces: sources 1, 2 and 3, 4 */
    crash_rec rec;
    memset(&rec, 0, sizeof rec);
    sat_event_sink sink = {&rec, SAT_TABLE_BIT(SAT_TABLE_SOURCE) | SAT_TABLE_BIT(SAT_TABLE_CRASH) |
                                 SAT_TABLE_BIT(SAT_TABLE_FRAME), rows_source_crash_frame};
    const char *paths[] = {log, t1, t2};
    sat_collect_stats st;
    sat_diag d = {0};
    CHECK_EQ_INT(sat_collect_run(paths, 3, NULL, &sink, &st, &d), SAT_OK);
    CHECK_EQ_INT(st.traces, 2);
    CHECK_EQ_INT(rec.nsrc, 5);
    CHECK_EQ_INT(rec.ncrash, 4);
    CHECK_EQ_INT(rec.nframe, 12);
    for (int i = 0; i < rec.nsrc && i < 5; i++)
        CHECK_EQ_INT(rec.src_id[i], i);
    for (int i = 0; i < rec.ncrash && i < 4; i++) {
        CHECK_EQ_INT(rec.crash_source[i], (uint32_t)i + 1);
        CHECK_EQ_INT(rec.crash_no[i], 1);
        CHECK_EQ_STR(rec.fingerprint[i], i % 2 ? "fp:1111111111111111" : "fp:0000000000000000");
    }
    /* each frame still names a crash row, and keeps its fields */
    for (int i = 0; i < rec.nframe && i < 12; i++) {
        int found = 0;
        for (int k = 0; k < rec.ncrash && k < 4; k++)
            found |= rec.frame_source[i] == rec.crash_source[k] &&
                     rec.frame_crash[i] == rec.crash_no[k];
        CHECK(found);
        CHECK_EQ_INT(rec.frame_source[i], (uint32_t)i / 3 + 1);
        CHECK_EQ_INT(rec.frame_depth[i], i % 3);
    }
    CHECK_EQ_STR(rec.function[11], "main");

    /* a window: the second crash of each trace only, every frame */
    memset(&rec, 0, sizeof rec);
    sat_collect_opts o;
    memset(&o, 0, sizeof o);
    o.from_ns = CRASH_T0 + 3600000000000LL;
    const char *traces[] = {t1, t2};
    CHECK_EQ_INT(sat_collect_run(traces, 2, &o, &sink, &st, &d), SAT_OK);
    CHECK_EQ_INT(rec.ncrash, 2);
    CHECK_EQ_INT(rec.nframe, 12);
    for (int i = 0; i < rec.ncrash && i < 2; i++) {
        CHECK_EQ_INT(rec.crash_ts[i], CRASH_T0 + 86400000000000LL);
        CHECK_EQ_INT(rec.crash_source[i], (uint32_t)(2 * i + 1));
    }

    /* a sink without the tables: not decoded, nothing delivered */
    memset(&rec, 0, sizeof rec);
    sat_event_sink sources_only = {&rec, SAT_TABLE_BIT(SAT_TABLE_SOURCE), rows_source};
    CHECK_EQ_INT(sat_collect_run(traces, 2, NULL, &sources_only, &st, &d), SAT_OK);
    CHECK_EQ_INT(rec.nsrc, 4);
    CHECK_EQ_INT(rec.ncrash + rec.nframe, 0);
}

/* A named pipe can be read once only: it must not be consumed by the first
 * look at its bytes. */
static void test_fifo(void)
{
    char *fifo = path_of("pipe");
    if (mkfifo(fifo, 0600) != 0) {
        fprintf(stderr, "note: mkfifo failed, pipe test skipped\n");
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        FILE *f = fopen(fifo, "w");
        if (f) {
            fputs(day3, f);
            fclose(f);
        }
        _exit(0);
    }
    recorder rec;
    memset(&rec, 0, sizeof rec);
    sat_event_sink sink = sink_of(&rec);
    const char *paths[] = {fifo};
    sat_collect_opts o;
    memset(&o, 0, sizeof o);
    o.warn = on_warn;
    o.warn_ctx = &rec;
    sat_collect_stats st;
    sat_diag d = {0};
    int rc = sat_collect_run(paths, 1, &o, &sink, &st, &d);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK_EQ_INT(rc, SAT_OK);
    CHECK_EQ_INT(st.lines, 8);
    CHECK_EQ_INT(rec.nsrc, 1);
    CHECK_EQ_INT(st.ops, 2);
}

static void test_group_keys(void)
{
    static const char *const same[] = {
        "d/access", "d/access.1", "d/access.2.gz", "d/access.20250608-071914",
        "d/access-20250608.gz", "d/access.log.1", "d/access.log", "d/access.log-20250608.xz",
        "d/access.log.2025-06-08.zst", "d/access.3.bz2",
    };
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        char *k = sat_collect_group_key(same[i]);
        CHECK_EQ_STR(k, "d/access");
        free(k);
    }
    char *k = sat_collect_group_key("/var/log/dirsrv/slapd-ex/errors.1");
    CHECK_EQ_STR(k, "/var/log/dirsrv/slapd-ex/errors");
    free(k);
    k = sat_collect_group_key("slapd-ex");
    CHECK_EQ_STR(k, "slapd-ex");
    free(k);
    k = sat_collect_group_key("-");
    CHECK_EQ_STR(k, "-");
    free(k);
    k = sat_collect_group_key("20250608.log");
    CHECK_EQ_STR(k, "20250608");
    free(k);
    CHECK(sat_collect_skip_name("access.rotationinfo"));
    CHECK(!sat_collect_skip_name("access.1"));
    /* the rotation index orders year-less rotated sets */
    CHECK_EQ_INT(sat_collect_rotation_index("d/slapd.log"), 0);
    CHECK_EQ_INT(sat_collect_rotation_index("d/slapd.log.1"), 1);
    CHECK_EQ_INT(sat_collect_rotation_index("d/slapd.log.12.gz"), 12);
    CHECK_EQ_INT(sat_collect_rotation_index("d/access.20250608-071914"), 0);
    CHECK_EQ_INT(sat_collect_rotation_index("d/access-20250608.gz"), 0);
    CHECK_EQ_INT(sat_collect_rotation_index("20250608.log"), 0);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/sat_test_collect.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_group_keys();
    make_set();
    test_rotated_set();
    test_unreadable_and_unknown();
    test_pattern_and_directory();
    test_trace_replay();
    test_crash_replay();
    test_fifo();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return CHECK_DONE();
}
