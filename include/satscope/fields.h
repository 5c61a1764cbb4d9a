/*
 * fields.h - which figures an input can hold at all: absent is not zero.
 *
 * A figure counted from a field that the input's format (or the generation of
 * the server that wrote it) never writes is not 0, it is unknown: OpenLDAP's
 * `loglevel stats` lines never mark an unindexed search, 389 DS 1.2 logs no
 * wtime, a capture holds no file descriptor. Every source row says which of
 * these fields it could carry (sat_source.fields); analyzers OR them over the
 * inputs they read, and a renderer shows a figure whose field no input could
 * carry as "not logged" (JSON null, CSV empty) with the reason below, and as
 * partial when only some inputs could.
 *
 * The rule, written once here: a format declares the fields it can ever carry
 * (`fields`); those of them that only some generations write (`by_generation`)
 * count for a source only when its parser saw one (it sets the bit in
 * sat_source.fields while parsing; sat_fields_settle() keeps the declared ones
 * plus the seen generational ones). A source with no LDAP rows (a TLS-only
 * capture, a core, an empty file) declares nothing (fields 0) and does not
 * count either way. A trace written before the column existed has 0 there:
 * its log sources fall back to their format's declaration.
 *
 * Header-only (static inlines over one const table) so that parse/, collect/
 * and analyze/ share it without a link dependency between them.
 */
#ifndef SATSCOPE_FIELDS_H
#define SATSCOPE_FIELDS_H

#include "satscope/event.h"

enum sat_field {
    SAT_FIELD_ETIME = 0,    /* an operation's elapsed time (etime=; the wire's latency) */
    SAT_FIELD_WTIME,        /* its queue wait and service time (wtime= optime=, qtime=) */
    SAT_FIELD_NOTES,        /* notes= marks: unindexed searches (A, U) and the others */
    SAT_FIELD_CONTROLS,     /* request controls: paged results, VLV, server-side sort */
    SAT_FIELD_BIND_VERSION, /* the LDAP version a BIND asked for */
    SAT_FIELD_FD,           /* the file descriptor a connection took and gave back */
    SAT_FIELD_CLOSE_CODE,   /* 389's close codes (B1, B2, T1, U1, ...) */
    SAT_FIELD_CLOSE_ERRNO,  /* the system error that ended a connection (Broken pipe,
                               Connection reset by peer, Resource unavailable) */
    SAT_FIELD_CLOSE_LOST,   /* OpenLDAP's `closed (connection lost)` and
                               `closed (connection lost on write)` */
    /* HTTP access logs (http_req rows), whose formats are the server admin's
     * choice: ETIME above is their response time; these are their own. */
    SAT_FIELD_TLS_SESSION,  /* whether the request's TLS session was resumed
                               ($ssl_session_reused, %{SSL_SESSION_RESUMED}x) */
    SAT_FIELD_CONN_REQUEST, /* the request's number on its connection
                               ($connection_requests, %k): which one did the handshake */
    SAT_FIELD_UPSTREAM,     /* the upstream's (backend's) response time */
    SAT_FIELD__COUNT
};
#define SAT_FIELD_BIT(f) (1u << (f))
#define SAT_FIELDS_ALL ((1u << SAT_FIELD__COUNT) - 1u)
/* The fields that concern LDAP rows, and those that concern HTTP rows: a source
 * is judged only on the fields of its kind of rows (an LDAP log does not lack
 * an upstream time). An HTTP log's source row has SAT_FIELDS_HTTP_SOURCE set. */
#define SAT_FIELDS_LDAP ((1u << SAT_FIELD_TLS_SESSION) - 1u)
#define SAT_FIELDS_HTTP                                                                  \
    (SAT_FIELD_BIT(SAT_FIELD_ETIME) | SAT_FIELD_BIT(SAT_FIELD_TLS_SESSION) |             \
     SAT_FIELD_BIT(SAT_FIELD_CONN_REQUEST) | SAT_FIELD_BIT(SAT_FIELD_UPSTREAM))
#define SAT_FIELDS_HTTP_SOURCE (1u << 30)
/* Set in sat_source.fields once the mask is final (sat_fields_settle). */
#define SAT_FIELDS_DECLARED (1u << 31)

static inline const char *sat_field_name(int f)
{
    static const char *const names[SAT_FIELD__COUNT] = {
        "etime", "wtime", "notes", "controls", "bind_version", "fd",
        "close_code", "close_errno", "close_lost", "tls_session", "conn_request",
        "upstream"};
    return (f >= 0 && f < SAT_FIELD__COUNT) ? names[f] : "?";
}

typedef struct sat_format_fields {
    const char *format;      /* sat_source.format */
    uint32_t fields;         /* what the format can carry at best */
    uint32_t by_generation;  /* of them, those only some generations write */
    const char *why[SAT_FIELD__COUNT]; /* why a field is missing (NULL: never is) */
} sat_format_fields;

#define SAT_FB_(f) SAT_FIELD_BIT(SAT_FIELD_##f)
/* LDAP decoded from a capture (parse/wire/dis_ldap.c): the requests and answers as sent */
#define SAT_WIRE_FIELDS_ (SAT_FB_(ETIME) | SAT_FB_(CONTROLS) | SAT_FB_(BIND_VERSION))
#define SAT_WIRE_WHY_                                                                        \
    {[SAT_FIELD_WTIME] = "a capture shows the wire's latency, not the server's queue wait",  \
     [SAT_FIELD_NOTES] = "notes= marks of unindexed searches are the server's, not on "        \
                         "the wire",                                                         \
     [SAT_FIELD_FD] = "file descriptors are not on the wire",                                \
     [SAT_FIELD_CLOSE_CODE] = "close codes are the server's log marks, not on the wire",     \
     [SAT_FIELD_CLOSE_ERRNO] = "a capture shows FIN and RST, not the server's system error", \
     [SAT_FIELD_CLOSE_LOST] = "OpenLDAP's connection-lost closes are log lines, not on the " \
                              "wire"}

/* HTTP access logs (parse/http/fmt_http.c names the formats): a source row says
 * what its own definition logs; these say why a field is missing. */
#define SAT_NCSA_WHY_                                                                        \
    {[SAT_FIELD_ETIME] = "the common and combined formats log no response time: read the "   \
                         "server's own format with $request_time or %D (--log-format)",      \
     [SAT_FIELD_TLS_SESSION] = "the common and combined formats do not log TLS session "     \
                               "resumption ($ssl_session_reused, %{SSL_SESSION_RESUMED}x): "  \
                               "a capture of the same period gives it",                      \
     [SAT_FIELD_CONN_REQUEST] = "the common and combined formats log no request number on "  \
                                "the connection ($connection_requests, %k)",                 \
     [SAT_FIELD_UPSTREAM] = "the common and combined formats log no upstream time "          \
                            "($upstream_response_time)"}
#define SAT_TOMCAT_WHY_                                                                      \
    {[SAT_FIELD_ETIME] = "this AccessLogValve pattern has no %D or %T",                      \
     [SAT_FIELD_TLS_SESSION] = "Tomcat's AccessLogValve has no field for TLS session "       \
                               "resumption: a capture of the same period gives it",          \
     [SAT_FIELD_CONN_REQUEST] = "Tomcat's AccessLogValve logs no request number on the "     \
                                "connection",                                                \
     [SAT_FIELD_UPSTREAM] = "Tomcat answers requests itself: no upstream time"}

/* The i-th format of the table, NULL past its end (the table walked: a
 * partial's reasons read back as the table's own texts, state_fields.c). */
static inline const sat_format_fields *sat_format_fields_nth(size_t i)
{
    static const sat_format_fields table[] = {
        {"389-text", SAT_FIELDS_LDAP & ~SAT_FB_(CLOSE_LOST), SAT_FB_(WTIME),
         {[SAT_FIELD_WTIME] = "this 389 log's RESULT lines carry no wtime= or optime=: "
                              "389 DS 1.2 and other older versions do not log them",
          [SAT_FIELD_CLOSE_LOST] = "389 logs close codes instead: see Close codes"}},
        {"389-json", SAT_FIELDS_LDAP & ~SAT_FB_(CLOSE_LOST), 0,
         {[SAT_FIELD_CLOSE_LOST] = "389 logs close codes instead: see Close codes"}},
        {"openldap",
         SAT_FB_(ETIME) | SAT_FB_(WTIME) | SAT_FB_(FD) | SAT_FB_(CLOSE_LOST),
         SAT_FB_(ETIME) | SAT_FB_(WTIME),
         {[SAT_FIELD_ETIME] = "this OpenLDAP log's RESULT lines carry no etime=: "
                              "slapd 2.4 does not log it",
          [SAT_FIELD_WTIME] = "this OpenLDAP log's RESULT lines carry no qtime=: "
                              "slapd 2.4 does not log it",
          [SAT_FIELD_NOTES] = "OpenLDAP stats logs do not mark unindexed searches: "
                              "no notes=",
          [SAT_FIELD_CONTROLS] = "OpenLDAP stats logs do not show paged, VLV or sort controls",
          [SAT_FIELD_BIND_VERSION] = "OpenLDAP stats logs do not show a BIND's LDAP version",
          [SAT_FIELD_CLOSE_CODE] = "OpenLDAP logs no close codes",
          [SAT_FIELD_CLOSE_ERRNO] = "OpenLDAP logs a failed connection as connection lost, "
                                    "without its system error"}},
        {"pcap", SAT_WIRE_FIELDS_, 0, SAT_WIRE_WHY_},
        {"http-combined", 0, 0, SAT_NCSA_WHY_},
        {"http-common", 0, 0, SAT_NCSA_WHY_},
        {"nginx-combined", 0, 0, SAT_NCSA_WHY_},
        {"nginx-main", 0, 0, SAT_NCSA_WHY_},
        {"apache-common", 0, 0, SAT_NCSA_WHY_},
        {"apache-combined", 0, 0, SAT_NCSA_WHY_},
        {"apache-vhost_combined", 0, 0, SAT_NCSA_WHY_},
        {"tomcat-common", 0, 0, SAT_NCSA_WHY_},
        {"tomcat-combined", 0, 0, SAT_NCSA_WHY_},
        {"nginx-custom", SAT_FIELDS_HTTP, 0,
         {[SAT_FIELD_ETIME] = "this nginx log_format has no $request_time",
          [SAT_FIELD_TLS_SESSION] = "this nginx log_format has no $ssl_session_reused: a "
                                    "capture of the same period gives it",
          [SAT_FIELD_CONN_REQUEST] = "this nginx log_format has no $connection_requests",
          [SAT_FIELD_UPSTREAM] = "this nginx log_format has no $upstream_response_time"}},
        {"apache-custom",
         SAT_FB_(ETIME) | SAT_FB_(TLS_SESSION) | SAT_FB_(CONN_REQUEST), 0,
         {[SAT_FIELD_ETIME] = "this Apache LogFormat has no %D or %T",
          [SAT_FIELD_TLS_SESSION] = "this Apache LogFormat has no %{SSL_SESSION_RESUMED}x: a "
                                    "capture of the same period gives it",
          [SAT_FIELD_CONN_REQUEST] = "this Apache LogFormat has no %k",
          [SAT_FIELD_UPSTREAM] = "Apache's LogFormat logs no upstream response time"}},
        {"tomcat-custom", SAT_FB_(ETIME), 0, SAT_TOMCAT_WHY_},
        {"tomcat9-custom", SAT_FB_(ETIME), 0, SAT_TOMCAT_WHY_},
        {"pcapng", SAT_WIRE_FIELDS_, 0, SAT_WIRE_WHY_},
    };
    return i < sizeof table / sizeof table[0] ? &table[i] : NULL;
}

static inline const sat_format_fields *sat_format_fields_find(sat_str format)
{
    const sat_format_fields *t;
    for (size_t i = 0; (t = sat_format_fields_nth(i)) != NULL; i++) {
        size_t n = strlen(t->format);
        if (format.ptr && format.len == n && memcmp(format.ptr, t->format, n) == 0)
            return t;
    }
    return NULL;
}

/* The final mask of a source whose parser set the generational fields it saw
 * in `seen`: SAT_FIELDS_DECLARED | declared | seen generational ones; 0 for a
 * format that declares nothing. */
static inline uint32_t sat_fields_settle(sat_str format, uint32_t seen)
{
    const sat_format_fields *f = sat_format_fields_find(format);
    if (!f)
        return 0;
    return SAT_FIELDS_DECLARED | (f->fields & ~f->by_generation) |
           (seen & f->fields & f->by_generation);
}

/* What a source row can carry (without SAT_FIELDS_DECLARED), or 0 when it
 * holds no LDAP rows. A row of a trace written before sat_source.fields
 * existed reads 0 there: a log of a known format then counts as its format
 * declares (generational fields included: old traces said nothing). */
static inline uint32_t sat_source_fields(const sat_source *s)
{
    if (s->fields & SAT_FIELDS_DECLARED)
        return s->fields & SAT_FIELDS_ALL;
    if (s->fields == 0 && s->kind.ptr && s->kind.len == 3 && memcmp(s->kind.ptr, "log", 3) == 0) {
        const sat_format_fields *f = sat_format_fields_find(s->format);
        return f ? f->fields : 0;
    }
    return 0;
}

/* Why `format` cannot carry field f (a sentence), NULL if it can or unknown. */
static inline const char *sat_field_why(sat_str format, int f)
{
    const sat_format_fields *t = sat_format_fields_find(format);
    if (!t || f < 0 || f >= SAT_FIELD__COUNT)
        return NULL;
    return t->why[f];
}

/* Why an HTTP log cannot carry field f, whatever its server: its format (the
 * admin's log_format, LogFormat or pattern) has no such field. NULL for the
 * fields that do not concern HTTP rows. */
static inline const char *sat_http_field_why(int f)
{
    switch (f) {
    case SAT_FIELD_ETIME:
        return "the log format has no response time (nginx $request_time, Apache %D or "
               "%{ms}T, Tomcat %D or %T)";
    case SAT_FIELD_TLS_SESSION:
        return "the log format has no TLS session flag (nginx $ssl_session_reused, Apache "
               "%{SSL_SESSION_RESUMED}x; Tomcat's AccessLogValve has none)";
    case SAT_FIELD_CONN_REQUEST:
        return "the log format has no request number on its connection (nginx "
               "$connection_requests, Apache %k)";
    case SAT_FIELD_UPSTREAM:
        return "the log format has no upstream time (nginx $upstream_response_time)";
    default:
        return NULL;
    }
}

/* ---- what a set of inputs can hold, for an analyzer ------------------------------
 * A figure is known when at least one input can carry its field, partial when
 * some cannot; inputs without LDAP rows do not count. Merging adds up. */
typedef struct sat_fields_seen {
    uint32_t any;     /* OR of the inputs' fields */
    uint32_t inputs;  /* inputs with LDAP rows that said what they carry */
    uint32_t without[SAT_FIELD__COUNT]; /* of them, those that cannot carry field k */
    const char *why[SAT_FIELD__COUNT];  /* why (the first such input's format; static) */
} sat_fields_seen;

static inline void sat_fields_see(sat_fields_seen *a, const sat_source *s)
{
    uint32_t f = sat_source_fields(s);
    int http = (s->fields & SAT_FIELDS_HTTP_SOURCE) && (s->fields & SAT_FIELDS_DECLARED);
    if (!f && !http) /* an HTTP log that logs none of them (common) still counts */
        return;
    a->inputs++;
    a->any |= f;
    uint32_t concerns = (s->fields & SAT_FIELDS_HTTP_SOURCE) ? SAT_FIELDS_HTTP : SAT_FIELDS_LDAP;
    for (int k = 0; k < SAT_FIELD__COUNT; k++) {
        if ((f & SAT_FIELD_BIT(k)) || !(concerns & SAT_FIELD_BIT(k)))
            continue;
        a->without[k]++;
        if (!a->why[k])
            a->why[k] = sat_field_why(s->format, k) ? sat_field_why(s->format, k)
                        : http                           ? sat_http_field_why(k)
                                                         : NULL;
    }
}

static inline void sat_fields_merge(sat_fields_seen *into, const sat_fields_seen *from)
{
    into->any |= from->any;
    into->inputs += from->inputs;
    for (int k = 0; k < SAT_FIELD__COUNT; k++) {
        into->without[k] += from->without[k];
        if (!into->why[k])
            into->why[k] = from->why[k];
    }
}

/* The fields known: those some input carries; all of them when no input said
 * anything (rows fed to an analyzer without source rows, as tests and older
 * callers do). */
static inline uint32_t sat_fields_known(const sat_fields_seen *a)
{
    return a->inputs ? a->any : SAT_FIELDS_ALL;
}

#undef SAT_FB_
#undef SAT_NCSA_WHY_
#undef SAT_TOMCAT_WHY_
#undef SAT_WIRE_FIELDS_
#undef SAT_WIRE_WHY_
#endif /* SATSCOPE_FIELDS_H */
