/*
 * event.h - the event rows that flow from collectors to the trace and to the
 * analyzers, one struct per event table of DESIGN.md, and the sink interface
 * through which every producer (log parsers, the trace reader) hands them on.
 *
 * Units: timestamps are UTC nanoseconds since the epoch (sat_ts_ns), durations
 * are nanoseconds (sat_dur_ns). "Absent" is spelled explicitly: SAT_ABSENT (-1)
 * for numbers that cannot be negative, SAT_STR_NONE for strings, 0 for
 * timestamps (no LDAP log predates 1970).
 *
 * Ownership: every sat_str inside a row is borrowed and valid only for the
 * duration of the sink callback that receives the row. A consumer that keeps a
 * string copies it (the trace writer's dictionary, an analyzer's intern table).
 *
 * The trace schema (trace/schema.c) maps these fields to columns with
 * offsetof(); a field added here must be added there, with a FORMAT.md note.
 */
#ifndef SATSCOPE_EVENT_H
#define SATSCOPE_EVENT_H

#include "satscope/base.h"

typedef int64_t sat_ts_ns;
typedef int64_t sat_dur_ns;
#define SAT_ABSENT (-1)

/* The longest duration a row may carry: one operation's etime, wtime or optime,
 * one HTTP request's response or upstream time. Nothing a server answers takes
 * a week; a value past it is a corrupt line (a bit flipped in a compressed log,
 * a clock that jumped), not a measurement, and added up it would pass what an
 * int64 of ns holds after some 15,000 rows. The parsers reject a line with
 * such a value (sat_parse_dur_check), so a row never carries one. */
#define SAT_DUR_PLAUSIBLE_MAX_NS ((sat_dur_ns)7 * 86400 * 1000000000)

/* ---- tables ------------------------------------------------------------------ */
enum sat_table {
    SAT_TABLE_SOURCE = 0,
    SAT_TABLE_REJECT = 1,
    SAT_TABLE_LDAP_OP = 2,
    SAT_TABLE_LDAP_CONN = 3,
    SAT_TABLE_TCP_CONN = 4,
    SAT_TABLE_TLS_HS = 5,
    SAT_TABLE_CRASH = 6,
    SAT_TABLE_FRAME = 7,
    SAT_TABLE_HTTP_REQ = 8, /* trace format 1.5 */
    SAT_TABLE__COUNT
};

/* ---- ldap_op ------------------------------------------------------------------- */
enum sat_ldap_optype {
    SAT_OP_UNKNOWN = 0, /* a RESULT whose request was never seen */
    SAT_OP_BIND,
    SAT_OP_SRCH,
    SAT_OP_ADD,
    SAT_OP_MOD,
    SAT_OP_DEL,
    SAT_OP_MODRDN,
    SAT_OP_CMP,
    SAT_OP_EXT,
    SAT_OP_ABANDON,
    SAT_OP_UNBIND,
    SAT_OP_AUTOBIND, /* 389 LDAPI autobind: informational, precedes a BIND */
    SAT_OP__COUNT
};

/* Short names as logged: "BIND", "SRCH", ... ; "?" when out of range. */
static inline const char *sat_optype_name(int t)
{
    static const char *const names[SAT_OP__COUNT] = {
        "UNKNOWN", "BIND", "SRCH", "ADD", "MOD", "DEL",
        "MODRDN", "CMP", "EXT", "ABANDON", "UNBIND", "AUTOBIND"};
    return (t >= 0 && t < SAT_OP__COUNT) ? names[t] : "?";
}

/* notes= letters (389): A all ids (unindexed, over limit), U unindexed,
 * F filter element missing from schema, P paged, M MFA, N virtual attr,
 * B bad (partially) unindexed component. Bit i is letter SAT_NOTE_LETTERS[i]. */
#define SAT_NOTE_LETTERS "AUFPMNB"
enum sat_note_bits {
    SAT_NOTE_A = 1 << 0,
    SAT_NOTE_U = 1 << 1,
    SAT_NOTE_F = 1 << 2,
    SAT_NOTE_P = 1 << 3,
    SAT_NOTE_M = 1 << 4,
    SAT_NOTE_N = 1 << 5,
    SAT_NOTE_B = 1 << 6
};

enum sat_ldap_op_flags {
    SAT_OPF_UNFINISHED = 1 << 0,      /* request seen, no RESULT by end/close */
    SAT_OPF_NO_REQUEST = 1 << 1,      /* RESULT seen, request line never was */
    SAT_OPF_PERSISTENT = 1 << 2,      /* options=persistent search */
    SAT_OPF_SASL_INPROGRESS = 1 << 3, /* BIND step answered err=14 */
    SAT_OPF_PAGED = 1 << 4,           /* pr_idx/pr_cookie or paged control */
    SAT_OPF_ETIME_COARSE = 1 << 5,    /* etime logged in whole seconds */
    /* trace format 1.1 (flags widened to 16 bits): */
    SAT_OPF_PROXIED = 1 << 6,         /* authzid= (proxied authorization control) */
    SAT_OPF_VLV = 1 << 7,             /* a VLV line (virtual list view control) */
    SAT_OPF_SORT = 1 << 8,            /* a SORT line (server-side sort control) */
    SAT_OPF_BIND_V2 = 1 << 9,         /* BIND version=2 */
    SAT_OPF_BIND_V3 = 1 << 10,        /* BIND version=3 */
    SAT_OPF_CONN_CLOSED = 1 << 11     /* with UNFINISHED: its connection's close was
                                         logged (not the end of the input) */
};

enum sat_scope { SAT_SCOPE_BASE = 0, SAT_SCOPE_ONE = 1, SAT_SCOPE_SUB = 2,
                 SAT_SCOPE_NONE = 255 };

typedef struct sat_ldap_op {
    sat_ts_ns ts_ns;        /* request time; the RESULT's if no request */
    sat_ts_ns result_ts_ns; /* 0 when there was no RESULT */
    uint32_t server;        /* server (input set) index within the collection */
    uint32_t conn_epoch;    /* server restarts seen so far: (epoch, conn) is unique */
    int64_t conn;           /* as logged; internal ops: the parent connection, 0 if none */
    int64_t op;             /* as logged; -1 for `op=-1`, SAT_ABSENT if none */
    int32_t internal_op;    /* internal op id `(N)`, SAT_ABSENT for external */
    uint8_t internal_depth; /* 0 external, 1.. nesting level of an internal op */
    uint8_t type;           /* enum sat_ldap_optype */
    uint8_t scope;          /* enum sat_scope */
    uint16_t flags;         /* enum sat_ldap_op_flags (8 bits in trace 1.0) */
    uint16_t notes;         /* enum sat_note_bits */
    int32_t err;            /* LDAP result code, SAT_ABSENT without RESULT */
    int32_t tag;            /* result tag, SAT_ABSENT if not logged */
    int64_t nentries;       /* SAT_ABSENT if not logged */
    sat_dur_ns etime, wtime, optime; /* SAT_ABSENT if not logged */
    int32_t wbusy, wbusy_max, wqdepth; /* 389 pool stats; SAT_ABSENT if not logged */
    uint32_t entry_lines;   /* 389 ENTRY lines logged for the op (0 if none; trace 1.1) */
    uint32_t referral_lines; /* 389 REFERRAL lines logged for the op (0 if none; trace 1.1) */
    int64_t target_op;      /* ABANDON targetop / msgid; SAT_ABSENT otherwise */
    sat_str dn;             /* BIND/ADD/MOD/DEL/MODRDN/CMP dn; SRCH base */
    sat_str filter;         /* SRCH filter as logged */
    sat_str filter_shape;   /* SRCH filter with values replaced: (uid=*) */
    sat_str attrs;          /* SRCH attrs as logged (space separated) */
    sat_str method;         /* BIND: "SIMPLE" or SASL mech; EXT: oid */
    sat_str extra;          /* EXT name; MODRDN "newrdn=... newsuperior=..."; CMP attr */
    sat_str bind_dn;        /* the connection's bound DN when the op ran ("" anonymous) */
    sat_str client_ip;      /* the connection's client ("local" for LDAPI) */
    sat_str text;           /* result text / trailing " - text" */
    sat_str details;        /* notes details="..." */
    sat_str sid;            /* 389 session id (SESSION / sid=) */
    sat_str entry_dns;      /* the DNs of its 389 ENTRY lines (access-log level 512),
                               '\n' between them, at most SAT_ENTRY_DNS_MAX bytes (whole
                               DNs; entry_lines still counts every line) */
} sat_ldap_op;
#define SAT_ENTRY_DNS_MAX 65536

/* ---- ldap_conn --------------------------------------------------------------- */
enum sat_listener {
    SAT_LISTENER_UNKNOWN = 0,
    SAT_LISTENER_LDAP,
    SAT_LISTENER_LDAPS,
    SAT_LISTENER_LDAPI,
    SAT_LISTENER_STARTTLS, /* plain LDAP upgraded with the StartTLS extop */
    SAT_LISTENER__COUNT
};
static inline const char *sat_listener_name(int l)
{
    static const char *const names[SAT_LISTENER__COUNT] = {
        "unknown", "LDAP", "LDAPS", "LDAPI", "StartTLS"};
    return (l >= 0 && l < SAT_LISTENER__COUNT) ? names[l] : "?";
}

/* 389 close codes (ldap/servers/slapd/disconnect_error_strings.h). */
enum sat_close_code {
    SAT_CLOSE_NONE = 0, /* not closed in the input */
    SAT_CLOSE_A1, SAT_CLOSE_B1, SAT_CLOSE_B2, SAT_CLOSE_B3, SAT_CLOSE_B4,
    SAT_CLOSE_P1, SAT_CLOSE_P2, SAT_CLOSE_P3, SAT_CLOSE_P4,
    SAT_CLOSE_R1, SAT_CLOSE_S1, SAT_CLOSE_T1, SAT_CLOSE_T2, SAT_CLOSE_T3,
    SAT_CLOSE_U1,
    SAT_CLOSE_OTHER, /* closed, code not one of the above or not logged (OpenLDAP) */
    /* OpenLDAP's own close kinds (servers/slapd/connection.c), after the 389 codes
     * so that the values stored in older traces keep their meaning: */
    SAT_CLOSE_LOST,       /* `closed (connection lost)`: the client went away without
                             an UNBIND, or reading from it failed */
    SAT_CLOSE_LOST_WRITE, /* `closed (connection lost on write)`: an answer could not
                             be written to it */
    SAT_CLOSE__COUNT
};
static inline const char *sat_close_code_name(int c)
{
    static const char *const names[SAT_CLOSE__COUNT] = {
        "-",  "A1", "B1", "B2", "B3", "B4", "P1", "P2", "P3",
        "P4", "R1", "S1", "T1", "T2", "T3", "U1", "other", "lost", "lost-write"};
    return (c >= 0 && c < SAT_CLOSE__COUNT) ? names[c] : "?";
}

enum sat_ldap_conn_flags {
    SAT_CONNF_NO_OPEN = 1 << 0,  /* ops/close seen, the open line was not */
    SAT_CONNF_UNCLOSED = 1 << 1, /* still open at the end of the input */
    SAT_CONNF_TLS = 1 << 2,      /* TLS was in use at some point */
    SAT_CONNF_RESTART = 1 << 3,  /* ended by a server restart, not a close line */
    SAT_CONNF_CERT_BOUND = 1 << 4, /* "SSL|TLS1.x client bound as ...": certificate bind */
    SAT_CONNF_CERT_MAP_FAILED = 1 << 5, /* "... failed to map client certificate to LDAP DN" */
    SAT_CONNF_COUNTED = 1 << 6,  /* `concurrent` and `preopen_closed` are filled
                                    (rows of the joiner; trace format 1.1+) */
    SAT_CONNF_RESTART_OPEN = 1 << 7 /* its open line was taken for a server restart:
                                       its number was opened already, or lies far
                                       below the others (parse/join/ldap_join.c) */
};

typedef struct sat_ldap_conn {
    sat_ts_ns open_ts;  /* 0 if the open line was not seen */
    sat_ts_ns close_ts; /* 0 if not closed in the input */
    uint32_t server;
    uint32_t conn_epoch;
    int64_t conn;
    int32_t fd;           /* SAT_ABSENT if not logged */
    uint16_t client_port; /* 0 if unknown */
    uint8_t listener;     /* enum sat_listener */
    uint8_t close_code;   /* enum sat_close_code */
    uint8_t flags;        /* enum sat_ldap_conn_flags */
    uint32_t ops;         /* operations seen on the connection */
    /* Concurrency at the instant this connection opened, as the joiner counts
     * it in log order (SAT_CONNF_COUNTED; 0 for a row without an open line):
     * `concurrent` connections of this server whose open line was seen were
     * open just after this one opened (itself included), and `preopen_closed`
     * of those without an open line (open before the input began) had closed.
     * Connections open then = concurrent + (rows of the server without an open
     * line) - preopen_closed, so an analyzer finds the exact peak from the rows
     * alone, without keeping every connection's open and close times. A row
     * emitted without a close time (still open at the end, ended by a
     * restart) never leaves the count, as in a sweep of open/close times. */
    uint32_t concurrent;
    uint32_t preopen_closed;
    sat_str client_ip;    /* "local" for LDAPI */
    sat_str server_addr;  /* "to ..." address or socket path */
    sat_str tls_version;  /* "TLS1.3" */
    sat_str tls_cipher;   /* "256-bit AES-GCM" */
    sat_str client_cert;  /* client certificate subject, if logged */
    sat_str close_reason; /* "Cleanly Closed Connection", "error 32 (Broken pipe)" */
    sat_str bind_dn;      /* last successful bind DN */
} sat_ldap_conn;

/* ---- source / reject ----------------------------------------------------------- */
typedef struct sat_source {
    uint32_t id;          /* index of this source within the collection */
    uint32_t server;      /* server (input set) it belongs to */
    sat_str path;         /* as given ("-" for standard input) */
    sat_str kind;         /* "log" (later "pcap", "core") */
    sat_str format;       /* "389-text", "389-json", "openldap", ... */
    sat_str compression;  /* "none", "gzip", "bzip2", "xz", "zstd" */
    sat_str server_name;  /* from the log header / syslog host, if any */
    sat_str server_version; /* "389-Directory/3.1.1 B2024.213.0201" */
    uint64_t bytes;       /* uncompressed bytes read */
    uint64_t lines;
    uint64_t rejects;     /* every rejected line, not only the sampled ones */
    sat_ts_ns first_ts, last_ts;
    int32_t utc_offset_s; /* the offset the timestamps were written with */
    uint8_t truncated;    /* compressed stream ended early / read error */
    uint32_t fields;      /* the fields its format and generation can carry:
                             SAT_FIELDS_DECLARED | SAT_FIELD_BIT()s of fields.h; 0 for
                             a source without LDAP rows (and in older traces; read it
                             through sat_source_fields()) */
} sat_source;

typedef struct sat_reject {
    uint32_t source;   /* sat_source.id */
    uint64_t line_no;  /* 1-based line (or packet) number */
    sat_str reason;    /* short, stable sentence: "no timestamp" */
    sat_str excerpt;   /* the start of the offending line, sanitised */
} sat_reject;

/* ---- tcp_conn: one TCP connection seen on the wire ------------------------------
 * Client = the side that sent the first SYN; when the capture starts after the
 * SYN, the side with the higher port (flag SAT_TCPF_NO_SYN says it is a guess). */
enum sat_tcp_end {
    SAT_TCP_END_NONE = 0,   /* still open when the capture ended */
    SAT_TCP_END_FIN_CLIENT, /* the client sent the first FIN */
    SAT_TCP_END_FIN_SERVER,
    SAT_TCP_END_RST_CLIENT, /* a RST ended it, sent by the client */
    SAT_TCP_END_RST_SERVER,
    SAT_TCP_END_IDLE,       /* expired: no packet for the idle timeout; also an
                               unanswered SYN given up for a new attempt (a new
                               ISN) on the same ports */
    SAT_TCP_END_EVICTED,    /* evicted at the flow table's capacity */
    SAT_TCP_END__COUNT
};
static inline const char *sat_tcp_end_name(int e)
{
    static const char *const names[SAT_TCP_END__COUNT] = {
        "open", "fin-client", "fin-server", "rst-client", "rst-server", "idle", "evicted"};
    return (e >= 0 && e < SAT_TCP_END__COUNT) ? names[e] : "?";
}
enum sat_tcp_conn_flags {
    SAT_TCPF_NO_SYN = 1 << 0,     /* started before the capture: roles guessed */
    SAT_TCPF_SYNACK = 1 << 1,     /* the server answered the SYN */
    SAT_TCPF_TLS = 1 << 2,        /* TLS records seen (by content, any port) */
    SAT_TCPF_LDAP = 1 << 3,       /* LDAP messages seen */
    SAT_TCPF_TRUNCATED = 1 << 4,  /* payload missing (snaplen or lost segments) */
    SAT_TCPF_IPV6 = 1 << 5,
    SAT_TCPF_CLIENT_LEFT_WAITING = 1 << 6, /* the client closed first (FIN) or reset
                                     while a request of its was unanswered (the
                                     dissector's view, else: its last payload
                                     came after the server's last) */
    SAT_TCPF_SYN_GAVE_UP = 1 << 7  /* the server never answered the SYN (no SYN/ACK,
                                     or one the client, gone, answered with a RST)
                                     and the client gave up: it reset or closed, or
                                     the capture went on past its next SYN
                                     retransmission timeout (1 s after the first
                                     SYN, doubling: RFC 6298 5.5) without one */
};

typedef struct sat_tcp_conn {
    sat_ts_ns syn_ts;        /* the first SYN; the first packet if SAT_TCPF_NO_SYN */
    sat_ts_ns end_ts;        /* the FIN/RST that ended it, else the last packet */
    uint32_t source;         /* sat_source.id of the capture */
    uint32_t flow;           /* flow number within the source, from 1; tls_hs and
                                ldap rows of this connection carry it */
    sat_str client_ip, server_ip; /* text form ("10.0.0.1", "2001:db8::1") */
    uint16_t client_port, server_port;
    uint8_t end;             /* enum sat_tcp_end */
    uint8_t flags;           /* enum sat_tcp_conn_flags */
    uint16_t syn_retrans;    /* SYNs sent again by the client (the same ISN) */
    sat_dur_ns rtt;          /* SYN -> ACK of the SYN/ACK (the client's first ACK),
                                SAT_ABSENT if not seen */
    uint64_t bytes_c2s, bytes_s2c; /* TCP payload bytes, retransmissions excluded */
    uint32_t pkts_c2s, pkts_s2c;
    uint32_t retrans;        /* segments carrying bytes already seen */
    uint32_t out_of_order;   /* segments that arrived ahead of a gap */
    sat_dur_ns last_c2s_to_end; /* from the client's last payload to the end,
                                   SAT_ABSENT if it sent none */
    sat_ts_ns client_left_ts;   /* the client's FIN (sent before the server's) or
                                   RST: when it gave up; 0 if it did neither */
} sat_tcp_conn;

/* ---- tls_hs: the first TLS handshake of a connection (RFC 5246, RFC 8446) ------ */
enum sat_tls_outcome {
    SAT_TLS_FULL = 1,       /* a full handshake (certificate / key exchange) */
    SAT_TLS_RESUMED,        /* abbreviated: session id, ticket or PSK accepted */
    SAT_TLS_FAILED,         /* an alert ended the handshake (after the ServerHello
                               when server_hello_ts is set: the server had done a
                               full handshake's work) */
    SAT_TLS_INCOMPLETE,     /* a ClientHello never answered by a ServerHello before
                               the client closed or the capture ended */
    SAT_TLS_OUTCOME__COUNT
};
static inline const char *sat_tls_outcome_name(int o)
{
    static const char *const names[SAT_TLS_OUTCOME__COUNT] = {"?", "full", "resumed", "failed",
                                                              "incomplete"};
    return (o > 0 && o < SAT_TLS_OUTCOME__COUNT) ? names[o] : "?";
}
enum sat_tls_resume {        /* how it was resumed (offered: bits of these) */
    SAT_TLS_RESUME_NONE = 0,
    SAT_TLS_RESUME_SESSION_ID = 1,
    SAT_TLS_RESUME_TICKET = 2,
    SAT_TLS_RESUME_PSK = 4
};
enum sat_tls_hs_flags {
    SAT_TLSF_HRR = 1 << 0,        /* a HelloRetryRequest was sent (not a 2nd handshake) */
    SAT_TLSF_SSL2_HELLO = 1 << 1, /* SSLv2-format ClientHello */
    SAT_TLSF_NO_CLIENT_HELLO = 1 << 2, /* capture started after the ClientHello */
    SAT_TLSF_RENEGOTIATED = 1 << 3,    /* more handshakes followed (not counted) */
    SAT_TLSF_DTLS = 1 << 4
};

typedef struct sat_tls_hs {
    sat_ts_ns ts;            /* the ClientHello (the ServerHello if no ClientHello) */
    sat_ts_ns server_hello_ts; /* 0 if none */
    sat_ts_ns done_ts;       /* handshake end: the server's Finished (1.2) / the
                                client's Finished (1.3) or first app data; 0 if not */
    uint32_t source, flow;   /* as in tcp_conn */
    sat_str client_ip, server_ip;
    uint16_t client_port, server_port;
    sat_str sni;             /* server_name, SAT_STR_NONE if not sent */
    uint16_t offered_version; /* highest the client offered (supported_versions
                                 or legacy_version), 0 if unknown */
    uint16_t version;        /* chosen (0x0304 for 1.3, 0x7e01 etc. kept as sent),
                                0 without ServerHello */
    uint16_t cipher;         /* chosen suite, 0 without ServerHello */
    uint8_t outcome;         /* enum sat_tls_outcome */
    uint8_t resumed_by;      /* enum sat_tls_resume (one value) */
    uint8_t offered;         /* enum sat_tls_resume bits the client offered */
    uint8_t flags;           /* enum sat_tls_hs_flags */
    int32_t alert;           /* alert description that ended it, SAT_ABSENT if none */
    sat_dur_ns duration;     /* ClientHello -> done_ts, SAT_ABSENT if not both */
} sat_tls_hs;

/* ---- crash: one crash, from a core file or a backtrace written in a log -------
 * Core files are read for facts only: no byte of process memory is kept
 * (registers are not rows; strings are the command, its arguments, paths and
 * symbol names). The frames of every thread are frame rows with the same
 * (source, crash). */
enum sat_crash_origin {
    SAT_CRASH_CORE = 1,      /* an ELF core file */
    SAT_CRASH_TEXT_CEPH,     /* "*** Caught signal (...) **" block in a log */
    SAT_CRASH_TEXT_GLIBC,    /* backtrace_symbols() lines: "./prog(+0x11be)[0x...]" */
    SAT_CRASH_TEXT_GDB,      /* gdb "bt" / "thread apply all bt" output */
    SAT_CRASH_TEXT_KERNEL,   /* the kernel's "segfault at" / "traps:" line, systemd-
                                coredump's "dumped core": one line, the process's pid */
    SAT_CRASH_ORIGIN__COUNT
};
enum sat_crash_arch { SAT_ARCH_UNKNOWN = 0, SAT_ARCH_X86_64, SAT_ARCH_AARCH64, SAT_ARCH_I386 };
enum sat_crash_flags {
    SAT_CRASHF_TRUNCATED = 1 << 0,   /* the core ends early: facts are partial */
    SAT_CRASHF_NO_EXE = 1 << 1,      /* the executable was not found: no names */
    SAT_CRASHF_NO_SYMBOLS = 1 << 2,  /* found, stripped, no debug file: module+offset */
    SAT_CRASHF_HANDLER = 1 << 3,     /* the signal went through a handler (e.g. one that
                                        logs and aborts): orig_* hold the first fault */
    SAT_CRASHF_GDB_CORE = 1 << 4,    /* written by gdb (generate-core-file), not the kernel */
    SAT_CRASHF_UNWIND_CUT = 1 << 5   /* the crashing thread's unwind stopped on an error */
};

/* Where a crash's time came from, best first: a core holds no clock, so its
 * time is, in this order, what --crash-time says, the time in the core's file
 * name (core_pattern %t, systemd-coredump's and apport's names), a log line
 * about that very process (the kernel's "segfault at" line, systemd-coredump's
 * "dumped core"), and last the core file's modification time, which a copy or
 * a decompression resets. A crash written as text in a log has its line's. */
enum sat_crash_time_source {
    SAT_CRASH_TIME_UNKNOWN = 0,
    SAT_CRASH_TIME_MTIME,    /* "file_mtime" */
    SAT_CRASH_TIME_CORE_NAME,/* "core_name" */
    SAT_CRASH_TIME_LOG,      /* "log": the crash text's line, or a log line naming the pid */
    SAT_CRASH_TIME_OPTION,   /* "option": --crash-time */
    SAT_CRASH_TIME__COUNT
};

typedef struct sat_crash {
    sat_ts_ns ts;            /* when: the log line's time; for a core, see
                                sat_crash_time_source; 0 unknown */
    uint32_t source;         /* sat_source.id */
    uint32_t crash;          /* number within the source, from 1; frame rows carry it */
    sat_str host;            /* SAT_STR_NONE if unknown */
    int32_t pid;             /* SAT_ABSENT if unknown */
    int32_t uid;             /* SAT_ABSENT if unknown */
    sat_str exe;             /* executable path (NT_FILE / AT_EXECFN / the log) */
    sat_str command;         /* NT_PRPSINFO pr_fname and pr_psargs: "ns-slapd -D ..." */
    sat_str build_id;        /* hex GNU build-id of the executable, SAT_STR_NONE */
    int32_t signal;          /* number, SAT_ABSENT if unknown */
    int32_t si_code;         /* NT_SIGINFO, SAT_ABSENT if unknown */
    int64_t fault_addr;      /* si_addr for SIGSEGV/SIGBUS/SIGILL/SIGFPE, SAT_ABSENT */
    int32_t orig_signal;     /* SAT_CRASHF_HANDLER: the fault that entered the handler */
    int64_t orig_fault_addr;
    int32_t threads;         /* threads in the process (core) or in the text */
    int32_t crashing_tid;    /* the first NT_PRSTATUS; SAT_ABSENT if unknown */
    uint8_t origin;          /* enum sat_crash_origin */
    uint8_t arch;            /* enum sat_crash_arch */
    uint16_t flags;          /* enum sat_crash_flags */
    sat_str fingerprint;     /* grouping key "fp:0123456789abcdef": the hash of the
                                signature (include/satscope/crash.h) */
    sat_str signature;       /* the top meaningful frames of the crashing thread,
                                module-relative: "libfoo.so:fn|prog:main" */
    sat_str build_key;       /* exact-build key "bk:...": build-id + those frames' offsets */
    sat_str missing;         /* what was missing ("executable", "debuginfo of libc.so.6"),
                                SAT_STR_NONE if nothing */
    uint8_t time_source;     /* enum sat_crash_time_source: where ts came from */
    int32_t sender_pid;      /* a signal sent by a process (si_code SI_USER, SI_TKILL,
                                SI_QUEUE, SI_MESGQ): NT_SIGINFO's si_pid; 0 otherwise */
    int32_t sender_uid;      /* its si_uid (meaningful when sender_pid > 0) */
} sat_crash;

/* ---- frame: one stack frame of one thread of a crash ------------------------- */
enum sat_frame_flags {
    SAT_FRAMEF_SIGNAL = 1 << 0,   /* the kernel's signal trampoline frame */
    SAT_FRAMEF_INEXACT = 1 << 1,  /* pc is a return address (not the faulting pc): for
                                     lookups pc - 1 was used */
    SAT_FRAMEF_FP = 1 << 2        /* found by the frame-pointer fallback, not CFI */
};
typedef struct sat_frame {
    uint32_t source, crash;  /* as in the crash row */
    int32_t thread;          /* tid (cores), thread number (gdb text), 0 if one thread */
    int32_t depth;           /* 0 = innermost */
    int64_t pc;              /* SAT_ABSENT if the text gave none */
    sat_str module;          /* basename of the module ("libc.so.6"), SAT_STR_NONE */
    sat_str build_id;        /* hex, SAT_STR_NONE */
    int64_t offset;          /* pc - module load address, SAT_ABSENT if unknown */
    sat_str function;        /* demangled; SAT_STR_NONE if unknown */
    int64_t fn_offset;       /* pc - function start, SAT_ABSENT */
    sat_str file;            /* source file, SAT_STR_NONE */
    int32_t line;            /* SAT_ABSENT */
    uint8_t flags;           /* enum sat_frame_flags */
} sat_frame;

/* ---- http_req: one request from a web or application server's access log -----
 * (nginx log_format, Apache httpd LogFormat, Tomcat AccessLogValve pattern, or a
 * user's PCRE2 pattern: parse/http/http_*.c). One row per logged request, in log
 * order, which is not time order: servers write a line when the response ends.
 *
 * Time: `ts` is when the request began. A format that logs the start (Apache
 * %t, Tomcat %t) gives it as written; one that logs the end (nginx $time_local,
 * $msec, $time_iso8601; Apache %{end:...}t) gives the end, and ts is that minus
 * the logged response time (SAT_HTTPF_TS_END says the line held the end; with
 * SAT_HTTPF_TS_END_ONLY no response time was logged, so ts is the end). */
enum sat_http_tls_session {
    SAT_HTTP_SESSION_UNKNOWN = 0, /* not logged, or "-" (no TLS on this request) */
    SAT_HTTP_SESSION_NEW,         /* a full handshake: nginx ".", Apache "Initial" */
    SAT_HTTP_SESSION_RESUMED      /* nginx "r", Apache "Resumed" */
};
enum sat_http_req_flags {
    SAT_HTTPF_TS_END = 1 << 0,      /* the line's time was the response's end */
    SAT_HTTPF_TS_END_ONLY = 1 << 1, /* ... and no response time: ts is the end */
    SAT_HTTPF_RT_COARSE = 1 << 2,   /* response time logged in whole seconds (%T) */
    SAT_HTTPF_TLS = 1 << 3,         /* the request came over TLS (a TLS protocol or
                                       session flag was logged for it) */
    SAT_HTTPF_NO_REQUEST_LINE = 1 << 4, /* the request line was "-" or unparsable
                                       (a client that sent nothing: 400/408) */
    SAT_HTTPF_STATIC = 1 << 5       /* a static file's request: its path ends in an
                                       extension of the one list (parse/http/http_path.c:
                                       .css .js .png ...); the others are dynamic */
};
typedef struct sat_http_req {
    sat_ts_ns ts;             /* request start (see above) */
    uint32_t source;          /* sat_source.id of the log */
    uint32_t server;          /* server (input set) index within the collection */
    int32_t utc_offset_s;     /* the offset the line's time was written with */
    int32_t status;           /* HTTP status, SAT_ABSENT if "-" or not logged */
    int64_t bytes;            /* response bytes as logged ($body_bytes_sent, %b,
                                 %B, %O), SAT_ABSENT if not logged ("-" for %b is 0) */
    sat_dur_ns response_time; /* $request_time, %D, %T, %{ms}T, ...; SAT_ABSENT */
    sat_dur_ns upstream_time; /* $upstream_response_time (the sum when several
                                 upstreams were tried), SAT_ABSENT */
    int64_t conn;             /* connection id ($connection, Tomcat %{...}r), SAT_ABSENT */
    int64_t conn_request;     /* 1 for a connection's first request ($connection_requests,
                                 Apache %k + 1), SAT_ABSENT if not logged */
    uint16_t client_port;     /* 0 if not logged */
    uint8_t tls_session;      /* enum sat_http_tls_session */
    uint8_t flags;            /* enum sat_http_req_flags */
    sat_str client_ip;        /* $remote_addr, %h, %a, %{c}a */
    sat_str method;           /* "GET"; SAT_STR_NONE without a request line */
    sat_str path;             /* the request target as logged, query included */
    sat_str path_template;    /* path without query, ids, hex and numbers collapsed:
                                 "/item/1234?x=1" -> "/item/{n}" (parse/http/http_path.c) */
    sat_str protocol;         /* "HTTP/1.1", SAT_STR_NONE */
    sat_str tls_protocol;     /* "TLSv1.3" as logged, SAT_STR_NONE ("-" = none) */
    sat_str vhost;            /* $host, %v, SAT_STR_NONE */
    sat_str user;             /* $remote_user, %u; SAT_STR_NONE for "-" */
    sat_str user_agent;       /* SAT_STR_NONE if not logged */
} sat_http_req;

/* ---- sink ---------------------------------------------------------------------
 * A consumer of events: one row callback and the set of tables it takes, one
 * bit SAT_TABLE_BIT(t) per table. A row of a table outside the mask is never
 * delivered, and a producer may skip building it at all (the trace reader does
 * not decode the blocks of such a table; a parser makes no rejects for a sink
 * without SAT_TABLE_REJECT), so asking only for what is used is what makes a
 * consumer cheap. on_row receives `row` as a pointer to the table's struct
 * (sat_source for SAT_TABLE_SOURCE, sat_ldap_op for SAT_TABLE_LDAP_OP, ...:
 * the enum's order) and returns SAT_OK, or a negative status that the
 * producer forwards (SAT_E_STOP to end early without it being an error).
 * Rows are borrowed. A new table is one enum value, its struct and its trace
 * schema entry: code that forwards rows (tees, pipes, windows, renumbering)
 * passes every table through the one callback.
 *
 * Of crash rows: a producer emits the frames of a crash before its crash row;
 * a trace may deliver the two tables in any order: consumers join on
 * (source, crash). */
#define SAT_TABLE_BIT(t) (1u << (unsigned)(t))
#define SAT_TABLES_ALL (SAT_TABLE_BIT(SAT_TABLE__COUNT) - 1u)
_Static_assert(SAT_TABLE__COUNT <= 32, "a table mask is 32 bits");

typedef int (*sat_row_fn)(void *ctx, int table, const void *row);

typedef struct sat_event_sink {
    void *ctx;
    uint32_t tables;   /* SAT_TABLE_BIT()s of the tables wanted; 0 = none */
    sat_row_fn on_row; /* NULL: no table is wanted, whatever the mask */
} sat_event_sink;

/* Whether the sink takes rows of table `t` (a NULL sink takes none). */
static inline int sat_sink_wants(const sat_event_sink *s, int t)
{
    return s && (unsigned)t < SAT_TABLE__COUNT && (s->tables & SAT_TABLE_BIT(t)) &&
           s->on_row;
}

/* Hand one row of table `t` to the sink, if it takes that table. */
static inline int sat_sink_emit(const sat_event_sink *s, int t, const void *row)
{
    if ((unsigned)t >= SAT_TABLE__COUNT)
        return SAT_E_USAGE;
    return s && (s->tables & SAT_TABLE_BIT(t)) && s->on_row ? s->on_row(s->ctx, t, row) : 0;
}

#endif /* SATSCOPE_EVENT_H */
