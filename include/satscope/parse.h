/*
 * parse.h - pure decoding of log bytes into LDAP events (no I/O here).
 *
 * Two layers:
 *  1. A log format (sat_log_format, one const table per format, listed in
 *     parse/format_registry.c) turns one line into zero or more sat_ldap_record:
 *     "conn 5 opened from 10.0.0.1", "conn 5 op 2 SRCH base=...", "conn 5 op 2
 *     RESULT err=0 etime=...". Formats are stateless about LDAP semantics.
 *  2. The joiner (sat_ldap_join, parse/join/ldap_join.c) is the stateful part shared
 *     by every format: it pairs requests with their RESULT however far apart
 *     (lines of concurrent operations interleave), carries the connection's
 *     client, listener and bind DN onto each operation, nests internal
 *     operations, tells server restarts apart (connection numbers start again)
 *     and emits finished sat_ldap_op / sat_ldap_conn rows into a sink.
 *
 * One joiner per server (a rotated set of one server's logs), one format
 * parser state per input file, both fed in time order by collect/.
 */
#ifndef SATSCOPE_PARSE_H
#define SATSCOPE_PARSE_H

#include "satscope/event.h"
#include "satscope/fields.h"

/* ---- records: what one log line says ----------------------------------------- */
enum sat_ldap_rec_kind {
    SAT_REC_CONNECT = 1, /* conn.{client_ip,client_port,server_addr,listener,fd} */
    SAT_REC_TLS,         /* conn.{tls_version,tls_cipher} (TLS established) */
    SAT_REC_CLIENT_CERT, /* conn.client_cert */
    SAT_REC_REQUEST,     /* op.type and the request fields */
    SAT_REC_DETAIL,      /* amends the pending request: non-absent op fields are
                            merged (OpenLDAP's 2nd BIND line, SRCH attr=, SORT,
                            VLV, STAT, ENTRY/REFERRAL counted in op.nentries) */
    SAT_REC_RESULT,      /* op.{err,tag,nentries,etime,wtime,optime,notes,text,...} */
    SAT_REC_AUTOBIND,    /* op.dn = the autobound DN (389 LDAPI) */
    SAT_REC_SESSION,     /* op.sid for the connection (389 SESSION line) */
    SAT_REC_CLOSE,       /* conn.{close_code,close_reason,fd} */
    SAT_REC_RESTART      /* the log says the server started again (header) */
};

typedef struct sat_ldap_record {
    int kind;             /* enum sat_ldap_rec_kind */
    sat_ts_ns ts;         /* the line's timestamp (UTC ns) */
    int64_t conn;         /* connection number; internal ops: parent conn or 0 */
    int64_t op;           /* op number, SAT_ABSENT if the line has none */
    int32_t internal_op;  /* internal op id, SAT_ABSENT if external */
    uint8_t internal_depth; /* 0 external, >= 1 internal nesting level */
    uint8_t internal;     /* 1 for any internal op (also `conn=Internal op=-1`) */
    sat_ldap_op op_fields;   /* fields the line carries, others SAT_ABSENT/NONE */
    sat_ldap_conn conn_fields;
} sat_ldap_record;

/* Reset a record to "nothing known": every number SAT_ABSENT, strings NONE,
 * scope SAT_SCOPE_NONE. Formats call it before filling a record. */
void sat_ldap_record_clear(sat_ldap_record *r);

/* ---- joiner ----------------------------------------------------------------------- */
typedef struct sat_ldap_join sat_ldap_join;

typedef struct sat_join_stats {
    uint64_t ops;                 /* ldap_op rows emitted */
    uint64_t conns;               /* ldap_conn rows emitted */
    uint64_t unfinished;          /* requests that never got a RESULT */
    uint64_t results_without_request;
    uint64_t restarts;            /* server restarts detected */
    uint64_t evicted;             /* pending ops evicted at the capacity bound */
    uint64_t conns_evicted;       /* connections ended at their bound (max_open) */
    /* what was taken for each restart: the server's start line, or an open
     * line whose number was opened already or lies below the window */
    uint64_t restarts_by_start_line, restarts_by_number;
    uint64_t opens_out_of_order;  /* open lines below a higher one: disorder */
    uint64_t opens_after_lines;   /* open lines after their connection's own */
} sat_join_stats;

/* The joiner's memory bounds: requests awaiting a RESULT (~2 KB each) and
 * connections held (open, or closed and awaiting late RESULTs: ~1 KB each).
 * A log whose close lines or RESULTs are missing would otherwise grow them
 * without end. */
#define SAT_JOIN_MAX_PENDING_DEFAULT 65536
#define SAT_JOIN_MAX_OPEN_DEFAULT 131072

/* Creates a joiner that stamps `server` on every row and emits into `sink`
 * (borrowed: must outlive the joiner). max_pending bounds the table of
 * requests awaiting a RESULT (0 = SAT_JOIN_MAX_PENDING_DEFAULT); past it the
 * oldest is emitted as unfinished and counted in `evicted`. NULL on
 * allocation failure. */
sat_ldap_join *sat_ldap_join_create(uint32_t server, const sat_event_sink *sink,
                                    size_t max_pending);
/* Feeds one record. Returns SAT_OK or the sink's negative status. */
int sat_ldap_join_record(sat_ldap_join *j, const sat_ldap_record *rec);
/* End of all input for this server: pending requests are emitted as unfinished,
 * open connections as unclosed. Idempotent. */
int sat_ldap_join_finish(sat_ldap_join *j);
void sat_ldap_join_stats(const sat_ldap_join *j, sat_join_stats *out);
/* Whether SRCH rows carry filter_shape (default: yes). A consumer that never
 * looks at shapes (etime not grouped by filter) turns them off: computing
 * one per search is work on the parsing thread's hot path. */
void sat_ldap_join_set_filter_shapes(sat_ldap_join *j, int on);
/* The connections held at most (0 = SAT_JOIN_MAX_OPEN_DEFAULT): past it the
 * oldest is ended as if the input ended for it (its row unclosed, its
 * pending requests unfinished) and counted in conns_evicted. */
void sat_ldap_join_set_max_open(sat_ldap_join *j, size_t max_open);
/* Whether a CONNECT whose number was opened already in this epoch, or lies far
 * below the highest (ldap_join.c says how far), means the server restarted
 * (default: yes: log connection numbers only grow, give or take the disorder
 * of several threads writing open lines).
 * Wire dissectors number connections by flow and open them when their first
 * LDAP message arrives, which need not be in flow order: a joiner fed from a
 * capture turns this off. */
void sat_ldap_join_set_restart_detection(sat_ldap_join *j, int on);
void sat_ldap_join_free(sat_ldap_join *j); /* NULL is fine */

/* ---- filter shape ----------------------------------------------------------------
 * The filter with every assertion value replaced by '*', attribute names
 * lower-cased, whitespace outside values dropped: "(&(uid=jdoe)(cn=J*))" ->
 * "(&(uid=*)(cn=*))". Writes at most cap-1 bytes plus NUL into out and returns
 * the shape's full length (like snprintf). A filter that does not parse is
 * shaped as far as possible; never reads past len. */
size_t sat_filter_shape(const char *filter, size_t len, char *out, size_t cap);

/* ---- RFC 3339 date-times: the one reader (parse/rfc3339.c) ------------------------
 * Reads "2025-06-09T14:24:10.123+02:00" from [p, p + n), never a byte past it:
 * *ts the instant (UTC ns), *off_s the offset it was written with (seconds
 * east of UTC, 0 for "Z" or no zone), *used (if not NULL) the bytes it took.
 * Returns SAT_OK, or SAT_E_TRUNCATED (the bytes end inside the time),
 * SAT_E_CORRUPT (a field out of range: month 13, hour 24, a year before 1970
 * or after 2261, where int64 nanoseconds end) or SAT_E_FORMAT; nothing is
 * written unless SAT_OK.
 * With flags 0 the span is exactly RFC 3339's date-time, with ' ' allowed for
 * the 'T' and "+hhmm" for "+hh:mm": YYYY-MM-DD, 'T' or ' ', hh:mm:ss, an
 * optional fraction ('.' and at least one digit: nanoseconds, later digits
 * dropped), a zone "Z", "z", "+hh:mm" or "+hhmm" (hh up to 23). Days up to 31
 * in any month carry into the next (Feb 30 is Mar 2) and second 60 into the
 * next minute, as timegm(3) does. The flags add what some writers do: */
enum {
    SAT_TIME_PREFIX = 1u << 0,         /* the time may be followed by more bytes
                                          (the head of a log line): see *used */
    SAT_TIME_ZONE_OPTIONAL = 1u << 1,  /* no zone: UTC (nginx $time_iso8601 on a
                                          UTC host, crash logs); with PREFIX, what
                                          makes no zone after the time is left */
    SAT_TIME_ZONE_BLANKS = 1u << 2,    /* blanks before the zone (389's JSON
                                          local_time "...09 -0500") */
    SAT_TIME_ZONE_FREE = 1u << 3,      /* a zone in free text: "+hh" alone is one
                                          (ISO 8601), one past +-14:59 is not */
    SAT_TIME_ZONE_COLON = 1u << 4,     /* offsets only as "+hh:mm" */
    SAT_TIME_DECIMAL_COMMA = 1u << 5,  /* ',' before the fraction too (ISO 8601) */
    SAT_TIME_EMPTY_FRACTION = 1u << 6, /* a '.' (or ',') without digits: no fraction */
    SAT_TIME_LOWER_T = 1u << 7,        /* 't' for the 'T' (RFC 3339 5.6 allows it) */
    /* The command line's options, read as they were when strptime(3) read them:
     * blanks before any number, a number of one digit up to its width, a
     * digit more taken only while the value times ten is within the field's
     * maximum (glibc's rule); years 0..9999 (the instant must fit int64 ns),
     * seconds up to 61; an offset's hours 00..29. */
    SAT_TIME_STRPTIME = 1u << 8,
    /* --from / --to's forms: the date alone, or the date, 'T' or nothing (or
     * blanks, with STRPTIME), hh:mm and optionally :ss; no fraction; no zone
     * or "Z" (no offset, no 'z') */
    SAT_TIME_RANGE_FORMS = 1u << 9,
};
int sat_parse_rfc3339(const char *p, size_t n, unsigned flags, sat_ts_ns *ts, int32_t *off_s,
                      size_t *used);

/* ---- log formats ---------------------------------------------------------------- */
typedef struct sat_parse_ctx {
    sat_ldap_join *join;          /* records go here */
    const sat_event_sink *sink;   /* rejects go here (SAT_TABLE_REJECT) */
    sat_source *source;           /* the parser keeps lines, rejects, first/last
                                     ts, utc offset and header facts up to date */
    uint32_t reject_sample_max;   /* rejected lines kept per source (all counted) */
    int default_year;             /* year for timestamps that carry none (syslog
                                     "Mon dd HH:MM:SS"); 0 = the current UTC year */
    /* When set, records go to emit instead of the joiner: collect/'s parallel
     * parsing keeps them in the chunk they came from and joins the chunks in
     * order on one thread. A record's strings are valid only during the call. */
    int (*emit)(void *emit_ctx, const sat_ldap_record *rec);
    void *emit_ctx;
    /* Optional, with emit: where the next record should be built, so that
     * emitting it needs no copy (NULL when out of memory). A format may use
     * it or not; a record built there and not emitted is simply dropped. */
    sat_ldap_record *(*record_slot)(void *emit_ctx);
    /* HTTP access logs (parse/http/fmt_http.c), whose rows need no joiner: the
     * sink their http_req rows go to (collect/'s, behind --from/--to; NULL:
     * `sink`), and the format the user gave (--log-format: a preset name or
     * the server's own definition, parse/http/http_format.c; NULL: the standard
     * formats are detected line by line). */
    const sat_event_sink *rows;
    const char *log_format;
} sat_parse_ctx;

/* How a format hands a parsed record on: to ctx->emit if set, else to the
 * joiner (nowhere if neither: a parser driven alone, as by the fuzzers).
 * Returns SAT_OK or a negative status. */
static inline int sat_parse_emit(sat_parse_ctx *ctx, const sat_ldap_record *rec)
{
    /* The timings some generations of a format write and others do not
     * (fields.h): seen once, the source carries them. */
    if (rec->kind == SAT_REC_RESULT && ctx->source) {
        if (rec->op_fields.etime != SAT_ABSENT)
            ctx->source->fields |= SAT_FIELD_BIT(SAT_FIELD_ETIME);
        if (rec->op_fields.wtime != SAT_ABSENT || rec->op_fields.optime != SAT_ABSENT)
            ctx->source->fields |= SAT_FIELD_BIT(SAT_FIELD_WTIME);
    }
    if (ctx->emit)
        return ctx->emit(ctx->emit_ctx, rec);
    return ctx->join ? sat_ldap_join_record(ctx->join, rec) : SAT_OK;
}

/* Count a rejected line in ctx->source and, while under the sample limit, emit
 * a sat_reject with a sanitised excerpt. Returns the sink's status. */
int sat_parse_reject(sat_parse_ctx *ctx, uint64_t line_no, const char *reason,
                     const char *line, size_t len);

/* A line holding a NUL byte is bad input: every output would end its field
 * at the NUL (keys and texts are C strings) without saying so. 0 when the
 * line holds none; else the line is rejected ("a NUL byte at byte N"), the
 * sink's status goes to *rc, and 1. Every format's line function asks first. */
int sat_parse_reject_nul_(sat_parse_ctx *ctx, uint64_t line_no, const char *line, size_t len,
                          const char *nul, int *rc);
static inline int sat_parse_nul_rejected(sat_parse_ctx *ctx, uint64_t line_no, const char *line,
                                         size_t len, int *rc)
{
    const char *nul = (const char *)memchr(line, '\0', len);
    return nul ? sat_parse_reject_nul_(ctx, line_no, line, len, nul, rc) : 0;
}

/* A duration a line gave for `field` ("wtime", "response time"): 0 when it
 * is within SAT_DUR_PLAUSIBLE_MAX_NS (event.h), else -1 with the reject's
 * reason written into buf ("wtime 6000000000 s is past the plausible bound
 * of 7 d"); the caller rejects the line with it (sat_parse_reject). Inline:
 * every RESULT line has two or three durations. */
int sat_parse_dur_past(sat_dur_ns ns, const char *field, char *buf, size_t n);
static inline int sat_parse_dur_check(sat_dur_ns ns, const char *field, char *buf, size_t n)
{
    return ns <= SAT_DUR_PLAUSIBLE_MAX_NS ? 0 : sat_parse_dur_past(ns, field, buf, n);
}

typedef struct sat_log_format {
    const char *name;        /* "389-text", "389-json", "openldap" */
    const char *description;
    /* Confidence 0..100 that buf (the first bytes of a file, possibly cut
     * mid-line) is in this format. */
    int (*sniff)(const char *buf, size_t len);
    /* Timestamp of the first event in buf, for ordering rotated sets by
     * content. Returns SAT_OK and sets *ts, or a negative status. */
    int (*first_ts)(const char *buf, size_t len, sat_ts_ns *ts);
    void *(*create)(sat_parse_ctx *ctx); /* NULL on allocation failure */
    /* One line without its newline (a trailing '\r' may remain). Returns
     * SAT_OK (also for a rejected line) or a sink's negative status. */
    int (*line)(void *state, const char *line, size_t len, uint64_t line_no);
    int (*finish)(void *state); /* end of this file */
    void (*destroy)(void *state); /* NULL is fine */
    /* 1 when each line parses on its own (no state carried from one line to
     * the next but caches and header facts) and finish emits nothing: the
     * lines of one file may then be parsed in chunks on several threads,
     * each with its own state, and joined in order (collect/). */
    int line_independent;
    /* Optional, for formats whose timestamps carry no year (BSD syslog
     * "Mon dd HH:MM:SS"): the year assumed for the first such line of buf
     * and that line's time, by sat_year_for with ref = the time the input was
     * last written (its mtime). SAT_E_FORMAT when buf has no year-less
     * timestamp before the first dated one. */
    int (*first_year)(const char *buf, size_t len, sat_ts_ns ref, int *year,
                      sat_ts_ns *ts);
} sat_log_format;

/* The one year inference for timestamps without a year: the latest year in
 * which month/day secs (seconds into the day, UTC) is not after ref plus one
 * day (the slack of a time zone): a line is never written after its file was
 * last modified. ref <= 0: now. Later lines of one input move on to the next
 * year when the months wrap Dec -> Jan. */
int sat_year_for(int month, int day, int secs, sat_ts_ns ref);

/* Whether def compiles as an HTTP access-log format (--log-format: a preset
 * name or an nginx / Apache / Tomcat definition, parse/http/http_format.c):
 * SAT_OK, or SAT_E_USAGE with diag saying what is wrong and where. */
int sat_http_log_format_check(const char *def, sat_diag *diag);
/* The time of the first line among the first bytes of an input that format
 * def reads (the first_ts of sat_log_format for a --log-format input, by
 * which rotated sets are ordered): SAT_OK and *ts, or SAT_E_FORMAT. */
int sat_http_log_first_ts(const char *def, const char *buf, size_t len, sat_ts_ns *ts);

/* NULL-terminated registry of formats (parse/format_registry.c). */
const sat_log_format *const *sat_log_formats(void);
const sat_log_format *sat_log_format_by_name(const char *name);
/* Best match for the first bytes of an input, NULL when none reaches 30. */
const sat_log_format *sat_log_format_sniff(const char *buf, size_t len);

#endif /* SATSCOPE_PARSE_H */
