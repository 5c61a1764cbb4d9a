/*
 * schema.c - the trace schema: one sat_table_def per event table of
 * include/satscope/event.h, every field a column (name = field name, located
 * with offsetof). This is part of the .sat format (trace/FORMAT.md "Schema"):
 * column names are stable; a field added to event.h is added here too.
 * The STR columns are also the one list of a row's strings: whatever copies
 * rows beyond their callback (collect/'s pipe between threads, a parsed
 * chunk) copies the strings named here (sat_table_str_offsets).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>

#include "trace_internal.h"

/* C, type, absent value (FORMAT.md: 0, SAT_ABSENT, SAT_SCOPE_NONE). */
#define COL(S, f, ty) {#f, ty, (uint16_t)offsetof(S, f)}

static const sat_column_def source_cols[] = {
    COL(sat_source, id, SAT_COL_I32),
    COL(sat_source, server, SAT_COL_I32),
    COL(sat_source, path, SAT_COL_STR),
    COL(sat_source, kind, SAT_COL_STR),
    COL(sat_source, format, SAT_COL_STR),
    COL(sat_source, compression, SAT_COL_STR),
    COL(sat_source, server_name, SAT_COL_STR),
    COL(sat_source, server_version, SAT_COL_STR),
    COL(sat_source, bytes, SAT_COL_I64),
    COL(sat_source, lines, SAT_COL_I64),
    COL(sat_source, rejects, SAT_COL_I64),
    COL(sat_source, first_ts, SAT_COL_TS),
    COL(sat_source, last_ts, SAT_COL_TS),
    COL(sat_source, utc_offset_s, SAT_COL_I32),
    COL(sat_source, truncated, SAT_COL_U8),
    COL(sat_source, fields, SAT_COL_I32),
};
static const int64_t source_absent[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

static const sat_column_def reject_cols[] = {
    COL(sat_reject, source, SAT_COL_I32),
    COL(sat_reject, line_no, SAT_COL_I64),
    COL(sat_reject, reason, SAT_COL_STR),
    COL(sat_reject, excerpt, SAT_COL_STR),
};
static const int64_t reject_absent[] = {0, 0, 0, 0};

static const sat_column_def op_cols[] = {
    COL(sat_ldap_op, ts_ns, SAT_COL_TS),
    COL(sat_ldap_op, result_ts_ns, SAT_COL_TS),
    COL(sat_ldap_op, server, SAT_COL_I32),
    COL(sat_ldap_op, conn_epoch, SAT_COL_I32),
    COL(sat_ldap_op, conn, SAT_COL_I64),
    COL(sat_ldap_op, op, SAT_COL_I64),
    COL(sat_ldap_op, internal_op, SAT_COL_I32),
    COL(sat_ldap_op, internal_depth, SAT_COL_U8),
    COL(sat_ldap_op, type, SAT_COL_U8),
    COL(sat_ldap_op, scope, SAT_COL_U8),
    COL(sat_ldap_op, flags, SAT_COL_U16), /* U8 in format 1.0 */
    COL(sat_ldap_op, notes, SAT_COL_U16),
    COL(sat_ldap_op, err, SAT_COL_I32),
    COL(sat_ldap_op, tag, SAT_COL_I32),
    COL(sat_ldap_op, nentries, SAT_COL_I64),
    COL(sat_ldap_op, etime, SAT_COL_I64),
    COL(sat_ldap_op, wtime, SAT_COL_I64),
    COL(sat_ldap_op, optime, SAT_COL_I64),
    COL(sat_ldap_op, wbusy, SAT_COL_I32),
    COL(sat_ldap_op, wbusy_max, SAT_COL_I32),
    COL(sat_ldap_op, wqdepth, SAT_COL_I32),
    COL(sat_ldap_op, entry_lines, SAT_COL_I32),    /* since 1.1 */
    COL(sat_ldap_op, referral_lines, SAT_COL_I32), /* since 1.1 */
    COL(sat_ldap_op, target_op, SAT_COL_I64),
    COL(sat_ldap_op, dn, SAT_COL_STR),
    COL(sat_ldap_op, filter, SAT_COL_STR),
    COL(sat_ldap_op, filter_shape, SAT_COL_STR),
    COL(sat_ldap_op, attrs, SAT_COL_STR),
    COL(sat_ldap_op, method, SAT_COL_STR),
    COL(sat_ldap_op, extra, SAT_COL_STR),
    COL(sat_ldap_op, bind_dn, SAT_COL_STR),
    COL(sat_ldap_op, client_ip, SAT_COL_STR),
    COL(sat_ldap_op, text, SAT_COL_STR),
    COL(sat_ldap_op, details, SAT_COL_STR),
    COL(sat_ldap_op, sid, SAT_COL_STR),
    COL(sat_ldap_op, entry_dns, SAT_COL_STR), /* 1.3 */
};
/* op: SAT_ABSENT if none; internal_op, err, tag, nentries, times, pool stats,
 * target_op: SAT_ABSENT; scope: SAT_SCOPE_NONE. */
static const int64_t op_absent[] = {
    0, 0, 0, 0, 0, SAT_ABSENT, SAT_ABSENT, 0, 0, SAT_SCOPE_NONE, 0, 0,
    SAT_ABSENT, SAT_ABSENT, SAT_ABSENT, SAT_ABSENT, SAT_ABSENT, SAT_ABSENT,
    SAT_ABSENT, SAT_ABSENT, SAT_ABSENT, 0, 0, SAT_ABSENT,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

static const sat_column_def conn_cols[] = {
    COL(sat_ldap_conn, open_ts, SAT_COL_TS),
    COL(sat_ldap_conn, close_ts, SAT_COL_TS),
    COL(sat_ldap_conn, server, SAT_COL_I32),
    COL(sat_ldap_conn, conn_epoch, SAT_COL_I32),
    COL(sat_ldap_conn, conn, SAT_COL_I64),
    COL(sat_ldap_conn, fd, SAT_COL_I32),
    COL(sat_ldap_conn, client_port, SAT_COL_U16),
    COL(sat_ldap_conn, listener, SAT_COL_U8),
    COL(sat_ldap_conn, close_code, SAT_COL_U8),
    COL(sat_ldap_conn, flags, SAT_COL_U8),
    COL(sat_ldap_conn, ops, SAT_COL_I32),
    COL(sat_ldap_conn, concurrent, SAT_COL_I32),     /* format 1.1 */
    COL(sat_ldap_conn, preopen_closed, SAT_COL_I32), /* format 1.1 */
    COL(sat_ldap_conn, client_ip, SAT_COL_STR),
    COL(sat_ldap_conn, server_addr, SAT_COL_STR),
    COL(sat_ldap_conn, tls_version, SAT_COL_STR),
    COL(sat_ldap_conn, tls_cipher, SAT_COL_STR),
    COL(sat_ldap_conn, client_cert, SAT_COL_STR),
    COL(sat_ldap_conn, close_reason, SAT_COL_STR),
    COL(sat_ldap_conn, bind_dn, SAT_COL_STR),
};
static const int64_t conn_absent[] = {0, 0, 0, 0, 0, SAT_ABSENT, 0, 0, 0, 0, 0,
                                      0, 0, 0, 0, 0, 0, 0, 0, 0};

/* format 1.2: the wire tables */
static const sat_column_def tcp_cols[] = {
    COL(sat_tcp_conn, syn_ts, SAT_COL_TS),
    COL(sat_tcp_conn, end_ts, SAT_COL_TS),
    COL(sat_tcp_conn, source, SAT_COL_I32),
    COL(sat_tcp_conn, flow, SAT_COL_I32),
    COL(sat_tcp_conn, client_ip, SAT_COL_STR),
    COL(sat_tcp_conn, server_ip, SAT_COL_STR),
    COL(sat_tcp_conn, client_port, SAT_COL_U16),
    COL(sat_tcp_conn, server_port, SAT_COL_U16),
    COL(sat_tcp_conn, end, SAT_COL_U8),
    COL(sat_tcp_conn, flags, SAT_COL_U8),
    COL(sat_tcp_conn, syn_retrans, SAT_COL_U16),
    COL(sat_tcp_conn, rtt, SAT_COL_I64),
    COL(sat_tcp_conn, bytes_c2s, SAT_COL_I64),
    COL(sat_tcp_conn, bytes_s2c, SAT_COL_I64),
    COL(sat_tcp_conn, pkts_c2s, SAT_COL_I32),
    COL(sat_tcp_conn, pkts_s2c, SAT_COL_I32),
    COL(sat_tcp_conn, retrans, SAT_COL_I32),
    COL(sat_tcp_conn, out_of_order, SAT_COL_I32),
    COL(sat_tcp_conn, last_c2s_to_end, SAT_COL_I64),
    COL(sat_tcp_conn, client_left_ts, SAT_COL_TS),
};
static const int64_t tcp_absent[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                     0, SAT_ABSENT, 0, 0, 0, 0, 0, 0, SAT_ABSENT, 0};

static const sat_column_def tls_cols[] = {
    COL(sat_tls_hs, ts, SAT_COL_TS),
    COL(sat_tls_hs, server_hello_ts, SAT_COL_TS),
    COL(sat_tls_hs, done_ts, SAT_COL_TS),
    COL(sat_tls_hs, source, SAT_COL_I32),
    COL(sat_tls_hs, flow, SAT_COL_I32),
    COL(sat_tls_hs, client_ip, SAT_COL_STR),
    COL(sat_tls_hs, server_ip, SAT_COL_STR),
    COL(sat_tls_hs, client_port, SAT_COL_U16),
    COL(sat_tls_hs, server_port, SAT_COL_U16),
    COL(sat_tls_hs, sni, SAT_COL_STR),
    COL(sat_tls_hs, offered_version, SAT_COL_U16),
    COL(sat_tls_hs, version, SAT_COL_U16),
    COL(sat_tls_hs, cipher, SAT_COL_U16),
    COL(sat_tls_hs, outcome, SAT_COL_U8),
    COL(sat_tls_hs, resumed_by, SAT_COL_U8),
    COL(sat_tls_hs, offered, SAT_COL_U8),
    COL(sat_tls_hs, flags, SAT_COL_U8),
    COL(sat_tls_hs, alert, SAT_COL_I32),
    COL(sat_tls_hs, duration, SAT_COL_I64),
};
static const int64_t tls_absent[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                     0, 0, 0, 0, 0, 0, 0, SAT_ABSENT, SAT_ABSENT};

/* format 1.3: a crash and the frames of its threads */
static const sat_column_def crash_cols[] = {
    COL(sat_crash, ts, SAT_COL_TS),
    COL(sat_crash, source, SAT_COL_I32),
    COL(sat_crash, crash, SAT_COL_I32),
    COL(sat_crash, host, SAT_COL_STR),
    COL(sat_crash, pid, SAT_COL_I32),
    COL(sat_crash, uid, SAT_COL_I32),
    COL(sat_crash, exe, SAT_COL_STR),
    COL(sat_crash, command, SAT_COL_STR),
    COL(sat_crash, build_id, SAT_COL_STR),
    COL(sat_crash, signal, SAT_COL_I32),
    COL(sat_crash, si_code, SAT_COL_I32),
    COL(sat_crash, fault_addr, SAT_COL_I64),
    COL(sat_crash, orig_signal, SAT_COL_I32),
    COL(sat_crash, orig_fault_addr, SAT_COL_I64),
    COL(sat_crash, threads, SAT_COL_I32),
    COL(sat_crash, crashing_tid, SAT_COL_I32),
    COL(sat_crash, origin, SAT_COL_U8),
    COL(sat_crash, arch, SAT_COL_U8),
    COL(sat_crash, flags, SAT_COL_U16),
    COL(sat_crash, fingerprint, SAT_COL_STR),
    COL(sat_crash, signature, SAT_COL_STR),
    COL(sat_crash, build_key, SAT_COL_STR),
    COL(sat_crash, missing, SAT_COL_STR),
    COL(sat_crash, time_source, SAT_COL_U8),
    COL(sat_crash, sender_pid, SAT_COL_I32),
    COL(sat_crash, sender_uid, SAT_COL_I32),
};
static const int64_t crash_absent[] = {0, 0, 0, 0, SAT_ABSENT, SAT_ABSENT, 0, 0, 0,
                                       SAT_ABSENT, SAT_ABSENT, SAT_ABSENT, SAT_ABSENT,
                                       SAT_ABSENT, 0, SAT_ABSENT, 0, 0, 0, 0, 0, 0, 0,
                                       0, 0, 0};

static const sat_column_def frame_cols[] = {
    COL(sat_frame, source, SAT_COL_I32),
    COL(sat_frame, crash, SAT_COL_I32),
    COL(sat_frame, thread, SAT_COL_I32),
    COL(sat_frame, depth, SAT_COL_I32),
    COL(sat_frame, pc, SAT_COL_I64),
    COL(sat_frame, module, SAT_COL_STR),
    COL(sat_frame, build_id, SAT_COL_STR),
    COL(sat_frame, offset, SAT_COL_I64),
    COL(sat_frame, function, SAT_COL_STR),
    COL(sat_frame, fn_offset, SAT_COL_I64),
    COL(sat_frame, file, SAT_COL_STR),
    COL(sat_frame, line, SAT_COL_I32),
    COL(sat_frame, flags, SAT_COL_U8),
};
static const int64_t frame_absent[] = {0, 0, 0, 0, SAT_ABSENT, 0, 0, SAT_ABSENT, 0,
                                       SAT_ABSENT, 0, SAT_ABSENT, 0};

/* format 1.5: HTTP access logs */
static const sat_column_def http_cols[] = {
    COL(sat_http_req, ts, SAT_COL_TS),
    COL(sat_http_req, source, SAT_COL_I32),
    COL(sat_http_req, server, SAT_COL_I32),
    COL(sat_http_req, utc_offset_s, SAT_COL_I32),
    COL(sat_http_req, status, SAT_COL_I32),
    COL(sat_http_req, bytes, SAT_COL_I64),
    COL(sat_http_req, response_time, SAT_COL_I64),
    COL(sat_http_req, upstream_time, SAT_COL_I64),
    COL(sat_http_req, conn, SAT_COL_I64),
    COL(sat_http_req, conn_request, SAT_COL_I64),
    COL(sat_http_req, client_port, SAT_COL_U16),
    COL(sat_http_req, tls_session, SAT_COL_U8),
    COL(sat_http_req, flags, SAT_COL_U8),
    COL(sat_http_req, client_ip, SAT_COL_STR),
    COL(sat_http_req, method, SAT_COL_STR),
    COL(sat_http_req, path, SAT_COL_STR),
    COL(sat_http_req, path_template, SAT_COL_STR),
    COL(sat_http_req, protocol, SAT_COL_STR),
    COL(sat_http_req, tls_protocol, SAT_COL_STR),
    COL(sat_http_req, vhost, SAT_COL_STR),
    COL(sat_http_req, user, SAT_COL_STR),
    COL(sat_http_req, user_agent, SAT_COL_STR),
};
static const int64_t http_absent[] = {0, 0, 0, 0, SAT_ABSENT, SAT_ABSENT, SAT_ABSENT,
                                      SAT_ABSENT, SAT_ABSENT, SAT_ABSENT, 0, 0, 0,
                                      0, 0, 0, 0, 0, 0, 0, 0, 0};

#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))
_Static_assert(NCOLS(source_cols) == NCOLS(source_absent), "source absent");
_Static_assert(NCOLS(reject_cols) == NCOLS(reject_absent), "reject absent");
_Static_assert(NCOLS(op_cols) == NCOLS(op_absent), "op absent");
_Static_assert(NCOLS(conn_cols) == NCOLS(conn_absent), "conn absent");
_Static_assert(NCOLS(tcp_cols) == NCOLS(tcp_absent), "tcp absent");
_Static_assert(NCOLS(tls_cols) == NCOLS(tls_absent), "tls absent");
_Static_assert(NCOLS(crash_cols) == NCOLS(crash_absent), "crash absent");
_Static_assert(NCOLS(frame_cols) == NCOLS(frame_absent), "frame absent");
_Static_assert(NCOLS(http_cols) == NCOLS(http_absent), "http absent");
/* the writer's per-table arrays and str_offsets below hold this many */
_Static_assert(NCOLS(source_cols) <= SAT_MAX_COLS_TABLE, "column bound");
_Static_assert(NCOLS(reject_cols) <= SAT_MAX_COLS_TABLE, "column bound");
_Static_assert(NCOLS(op_cols) <= SAT_MAX_COLS_TABLE, "column bound");
_Static_assert(NCOLS(conn_cols) <= SAT_MAX_COLS_TABLE, "column bound");
_Static_assert(NCOLS(tcp_cols) <= SAT_MAX_COLS_TABLE, "column bound");
_Static_assert(NCOLS(tls_cols) <= SAT_MAX_COLS_TABLE, "column bound");
_Static_assert(NCOLS(crash_cols) <= SAT_MAX_COLS_TABLE, "column bound");
_Static_assert(NCOLS(frame_cols) <= SAT_MAX_COLS_TABLE, "column bound");
_Static_assert(NCOLS(http_cols) <= SAT_MAX_COLS_TABLE, "column bound");

static const sat_table_def tables[SAT_TABLE__COUNT] = {
    {"source", SAT_TABLE_SOURCE, sizeof(sat_source), "first_ts", source_cols,
     NCOLS(source_cols)},
    {"reject", SAT_TABLE_REJECT, sizeof(sat_reject), NULL, reject_cols,
     NCOLS(reject_cols)},
    {"ldap_op", SAT_TABLE_LDAP_OP, sizeof(sat_ldap_op), "ts_ns", op_cols,
     NCOLS(op_cols)},
    {"ldap_conn", SAT_TABLE_LDAP_CONN, sizeof(sat_ldap_conn), "open_ts",
     conn_cols, NCOLS(conn_cols)},
    {"tcp_conn", SAT_TABLE_TCP_CONN, sizeof(sat_tcp_conn), "syn_ts", tcp_cols,
     NCOLS(tcp_cols)},
    {"tls_hs", SAT_TABLE_TLS_HS, sizeof(sat_tls_hs), "ts", tls_cols, NCOLS(tls_cols)},
    {"crash", SAT_TABLE_CRASH, sizeof(sat_crash), "ts", crash_cols, NCOLS(crash_cols)},
    {"frame", SAT_TABLE_FRAME, sizeof(sat_frame), NULL, frame_cols, NCOLS(frame_cols)},
    {"http_req", SAT_TABLE_HTTP_REQ, sizeof(sat_http_req), "ts", http_cols,
     NCOLS(http_cols)},
};
static const int64_t *const absents[SAT_TABLE__COUNT] = {
    source_absent, reject_absent, op_absent, conn_absent, tcp_absent, tls_absent,
    crash_absent, frame_absent, http_absent};

const sat_table_def *sat_table_get(int table_id)
{
    return (table_id >= 0 && table_id < SAT_TABLE__COUNT) ? &tables[table_id]
                                                          : NULL;
}

/* The string fields of every table, found once in the columns above. */
static uint16_t str_offsets[SAT_TABLE__COUNT][SAT_MAX_COLS_TABLE];
static size_t str_count[SAT_TABLE__COUNT];
static pthread_once_t str_once = PTHREAD_ONCE_INIT;

static void find_str_offsets(void)
{
    for (int t = 0; t < SAT_TABLE__COUNT; t++)
        for (size_t i = 0; i < tables[t].ncolumns; i++)
            if (tables[t].columns[i].type == SAT_COL_STR)
                str_offsets[t][str_count[t]++] = tables[t].columns[i].offset;
}

const uint16_t *sat_table_str_offsets(int table_id, size_t *n)
{
    if (!sat_table_get(table_id)) {
        *n = 0;
        return NULL;
    }
    pthread_once(&str_once, find_str_offsets);
    *n = str_count[table_id];
    return str_offsets[table_id];
}

void *sat_table_row_copy(int table_id, const void *row)
{
    const sat_table_def *def = sat_table_get(table_id);
    if (!def)
        return NULL;
    size_t nstr;
    const uint16_t *off = sat_table_str_offsets(table_id, &nstr);
    size_t extra = 0;
    for (size_t i = 0; i < nstr; i++) {
        const sat_str *s = (const sat_str *)((const char *)row + off[i]);
        extra += s->ptr ? s->len + 1 : 0;
    }
    char *copy = (char *)malloc(def->row_size + extra);
    if (!copy)
        return NULL;
    memcpy(copy, row, def->row_size);
    char *p = copy + def->row_size;
    for (size_t i = 0; i < nstr; i++) {
        sat_str *s = (sat_str *)(void *)(copy + off[i]);
        if (!s->ptr)
            continue;
        if (s->len)
            memcpy(p, s->ptr, s->len);
        p[s->len] = '\0';
        s->ptr = p;
        p += s->len + 1;
    }
    return copy;
}

const sat_table_def *sat_table_by_name(const char *name)
{
    for (int i = 0; name && i < SAT_TABLE__COUNT; i++)
        if (strcmp(tables[i].name, name) == 0)
            return &tables[i];
    return NULL;
}

int64_t sat_col_absent(int table_id, size_t col)
{
    const sat_table_def *t = sat_table_get(table_id);
    return (t && col < t->ncolumns) ? absents[table_id][col] : 0;
}

int sat_col_refs(int table_id, size_t col, int refs[2])
{
    const sat_table_def *t = sat_table_get(table_id);
    if (!t || col >= t->ncolumns)
        return 0;
    const char *n = t->columns[col].name;
    const char *a = NULL, *b = NULL;
    if (table_id == SAT_TABLE_LDAP_OP && strcmp(n, "result_ts_ns") == 0)
        a = "ts_ns";
    else if (table_id == SAT_TABLE_LDAP_OP && strcmp(n, "etime") == 0)
        a = "wtime", b = "optime";
    else if (table_id == SAT_TABLE_LDAP_CONN && strcmp(n, "close_ts") == 0)
        a = "open_ts";
    else if (table_id == SAT_TABLE_SOURCE && strcmp(n, "last_ts") == 0)
        a = "first_ts";
    if (!a)
        return 0;
    refs[0] = sat_col_index(t, a, strlen(a));
    if (!b)
        return 1;
    refs[1] = sat_col_index(t, b, strlen(b));
    return 2;
}

int sat_col_index(const sat_table_def *t, const char *name, size_t len)
{
    for (size_t i = 0; i < t->ncolumns; i++)
        if (strlen(t->columns[i].name) == len &&
            memcmp(t->columns[i].name, name, len) == 0)
            return (int)i;
    return -1;
}
