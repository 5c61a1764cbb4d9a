/*
 * collect.h - turning input files into events.
 *
 * sat_input: one input opened for reading lines, whatever its compression
 * (detected from the magic bytes, not the name: gzip via zlib, bzip2 via
 * libbz2, xz via liblzma, zstd via libzstd, or plain), "-" for standard input.
 *
 * sat_collect_run: the whole collection of many inputs: groups them into
 * servers (a rotated set of one server's logs), orders each set by the time of
 * its content, sniffs each file's format (parse/ registry), drives the parser
 * and the per-server joiner, and emits everything (sources, rejects, ldap_op,
 * ldap_conn rows; tcp_conn/tls_hs from captures; frame and crash rows from
 * ELF core files, include/satscope/core.h) into one sink - the trace writer for `satscope collect`, an
 * analyzer for `satscope etime access.log`. Inputs that are .sat traces are
 * replayed through the trace reader into the same sink.
 */
#ifndef SATSCOPE_COLLECT_H
#define SATSCOPE_COLLECT_H

#include "satscope/event.h"

#include <sys/types.h>
/* sig_atomic_t alone: <signal.h> would bring glibc's si_addr and friends,
 * macros that clash with field names of core.h */
#if defined(__has_include)
#if __has_include(<bits/types/sig_atomic_t.h>)
#include <bits/types/sig_atomic_t.h>
#else
#include <signal.h>
#endif
#else
#include <signal.h>
#endif

/* ---- one input --------------------------------------------------------------- */
typedef struct sat_input sat_input;

/* Opens path ("-" = stdin). NULL with diag set if it cannot be opened. */
sat_input *sat_input_open(const char *path, sat_diag *diag);
/* The process's interrupt flag (NULL: none): a read that a signal interrupts
 * (EINTR) while *flag is non-zero ends the input there, as an end of file,
 * instead of waiting on (a FIFO, a terminal, a pipe that stays open). Set by
 * sat_collect_run from its opts for the time of the run. */
void sat_input_set_interrupt(const volatile sig_atomic_t *flag);
/* 1 when in ended because of that flag (the rest of it was not read). The
 * line it ended inside, whose end was never read, is not given as a line:
 * sat_input_cut_by_interrupt says how many bytes of it were dropped. */
int sat_input_interrupted(const sat_input *in);
size_t sat_input_cut_by_interrupt(const sat_input *in);
/* First decompressed bytes (up to 64 KiB) without consuming them; valid until
 * the next call on the input. */
const char *sat_input_peek(sat_input *in, size_t *len);
/* Next line without its '\n'; the view is valid until the next call.
 * Returns 1 (a line), 0 (end of input), or a negative status with diag set
 * (SAT_E_TRUNCATED for a compressed stream that ends early, SAT_E_IO). A last
 * line without '\n' is returned as a line. Lines longer than 1 MiB are
 * returned cut at 1 MiB, the rest skipped (so a binary file cannot exhaust
 * memory). */
int sat_input_next_line(sat_input *in, const char **line, size_t *len,
                        sat_diag *diag);
/* Next whole lines copied into dst, each ending with '\n' (also a last line
 * that had none), about `want` bytes: up to the first line end at or past
 * it. cap must be at least want + 1 MiB + 1. A line over 1 MiB may be copied
 * whole when it fits in the input's buffer; the caller cuts it (next_line's
 * rule). Sets *len. Returns 1 (some lines), 0 (end of input) or a negative
 * status with diag set, as next_line; an error met after some lines is
 * returned by the next call. */
int sat_input_read_lines(sat_input *in, char *dst, size_t cap, size_t want, size_t *len,
                         sat_diag *diag);
/* Up to n raw decompressed bytes (binary inputs: captures), not mixed with
 * the line calls. Returns the count (> 0), 0 at the end, or a negative status
 * with diag set (as next_line). */
ssize_t sat_input_read(sat_input *in, void *dst, size_t n, sat_diag *diag);
const char *sat_input_compression(const sat_input *in); /* "none", "gzip", ... */
uint64_t sat_input_bytes(const sat_input *in);            /* decompressed bytes so far */
uint64_t sat_input_raw_bytes(const sat_input *in);        /* bytes read from the file */
uint64_t sat_input_raw_size(const sat_input *in);         /* file size, 0 if unknown */
/* Lines longer than 1 MiB that were returned cut so far (additive, collect/). */
uint64_t sat_input_cut_lines(const sat_input *in);
void sat_input_close(sat_input *in); /* NULL is fine */

/* ---- a collection -------------------------------------------------------------- */
typedef struct sat_collect_opts {
    const char *format;        /* force a format by name; NULL = sniff */
    const char *log_format;    /* HTTP access logs: the server's format (a preset
                                  name or its definition: sat_http_log_format_check);
                                  every log input is read as such. NULL = detect */
    uint32_t reject_sample_max;/* 0 -> 100 per source */
    int progress;              /* 1: progress line on stderr (cli sets it when
                                  stderr is a terminal) */
    sat_ts_ns from_ns, to_ns;  /* time window [from, to); 0 = unbounded. Logs are
                                  read whole (a request before the window may be
                                  answered inside it); rows are kept by their time */
    int no_filter_shapes;      /* the sink never reads ldap_op.filter_shape */
    size_t max_open;           /* connections a server's joiner holds; 0 = default
                                  (SAT_JOIN_MAX_OPEN_DEFAULT, parse.h) */
    size_t max_pending;        /* requests awaiting a RESULT it holds; 0 = default */
    int year;                  /* year of timestamps written without one (syslog);
                                  0 = each file's modification year */
    int parse_threads;         /* 2: a log in a line-independent format is parsed
                                  on two threads and joined in order (same rows);
                                  0 or 1: on the calling thread only */
    size_t parse_chunk_bytes;  /* chunk size for parse_threads; 0 = 64 KiB (tests
                                  use tiny chunks to cross every boundary) */
    /* Live capture (collect/capture.c, libpcap): when live_iface is set, the
     * interface is read first as one more source, until live_duration or
     * live_count packets (at least one of them must be set). */
    const char *live_iface;
    const char *live_filter;     /* BPF expression, NULL = everything */
    /* Interruption: when *stop becomes non-zero (a signal handler sets it;
     * library code installs none), the input being read is closed where it
     * is - the lines or packets already read are parsed and joined, its
     * source row is marked truncated - the inputs not started are left, and
     * the run returns SAT_OK with stats.interrupted set. A live capture
     * without duration or count runs until then. NULL: never. */
    const volatile sig_atomic_t *stop;
    sat_dur_ns live_duration;    /* 0 = no time bound */
    uint64_t live_count;         /* 0 = no packet bound */
    uint16_t ldap_port;          /* captures: LDAP on this port whatever the content */
    /* core files (collect/core_unwind.c): where the executable and debug
     * files are, beside the paths and build-ids the core holds */
    const char *exe;             /* the executable that crashed */
    const char *debuginfo_path;  /* ':'-separated directories of debug files and
                                    copies of the modules */
    const char *sysroot;         /* the core's paths are looked up below it */
    sat_ts_ns crash_time;        /* --crash-time: the time of every core given, whatever
                                    its name or mtime say; 0 = find it (core.h) */
    int no_source_lines;         /* cores: no source file and line per frame */
    /* warnings and per-input errors are reported here (file: message);
     * NULL -> stderr */
    void (*warn)(void *ctx, const char *where, const char *msg);
    void *warn_ctx;
    /* The first sat_source.id and server number this run gives (0, 0: a run
     * of its own). A caller collecting the inputs of one collection in
     * several runs (the CLI's per-input analyses) starts each run where the
     * inputs before it ended (stats next_source / next_server), so that
     * every row is numbered as one run would number it. */
    uint32_t source_base, server_base;
    /* Servers' names (sat_source.server_name) given by the caller: an entry
     * with a path names the sources read from that input (as given), one
     * without names every other input. An explicit one (--server) replaces
     * what a log's header says; a default one (the CLI's: the directory of
     * inputs sharing a file name) only a header that says nothing. */
    const struct sat_server_naming *server_names;
    size_t nserver_names;
} sat_collect_opts;

typedef struct sat_server_naming {
    const char *path; /* an input as given; NULL: every input no entry names */
    const char *name;
    int is_explicit;  /* 1: --server; 0: a default, below the log's own header */
} sat_server_naming;

/* The name opts give the source read from input `path` into src: see
 * sat_collect_opts.server_names (src->server_name is left when none applies). */
void sat_collect_name_source(const sat_collect_opts *opts, const char *path, sat_source *src);

typedef struct sat_collect_stats {
    uint64_t inputs, unreadable;   /* inputs given / could not be read at all */
    uint64_t skipped;              /* files found in a named directory or pattern
                                      that are not logs (warned, not failures) */
    uint64_t truncated;            /* compressed inputs that ended early */
    uint64_t bytes, lines, rejects;
    uint64_t ops, conns, unfinished;
    uint64_t traces;               /* .sat inputs replayed */
    /* captures (pcap/pcapng files and live interfaces) */
    uint64_t captures, packets, not_tcp, unsupported_link;
    uint64_t pcapng_skipped;       /* pcapng blocks of kinds not read (statistics, name
                                      resolution, secrets, custom): skipped, not errors */
    uint64_t flows, evicted, expired;
    uint64_t conns_evicted;        /* LDAP connections ended at opts.max_open */
    uint64_t ops_evicted;          /* requests ended unanswered at opts.max_pending */
    /* core files */
    uint64_t cores, crashes, frames;
    uint64_t damaged_blocks;       /* blocks of .sat inputs skipped as damaged
                                      (warned one by one; the others read) */
    uint64_t damaged_headers;      /* .sat inputs read despite a damaged file header
                                      (warned; their blocks found all the same) */
    uint64_t interrupted;          /* 1: *opts->stop ended the run early */
    uint64_t not_started;          /* inputs left unread because of it */
    uint64_t next_source, next_server; /* the first source id and server number the
                                      run left unused (opts source_base/server_base
                                      when it used none) */
    uint64_t http_requests;        /* http_req rows the access logs gave (before
                                      --from/--to) */
} sat_collect_stats;

/* Collects every path into sink. Returns SAT_OK when everything was read
 * (rejected lines are counted in stats, not errors), a negative status if an
 * input could not be read (the others are still collected; stats tell how
 * many), or the sink's negative status. */
int sat_collect_run(const char *const *paths, size_t npaths,
                    const sat_collect_opts *opts, const sat_event_sink *sink,
                    sat_collect_stats *stats, sat_diag *diag);

/* The rotated set a path belongs to (collect/rotation.c): directory + base
 * name with rotation, date and compression suffixes removed, "d/access.2.gz"
 * -> "d/access"; inputs with the same key are one server's log, read in one
 * run. Malloc'd (caller frees), NULL on allocation failure. "-" stays "-". */
char *sat_collect_group_key(const char *path);

/* Names that a directory or pattern expansion leaves out because they are
 * bookkeeping, not logs (389's access.rotationinfo): export --clickhouse
 * fingerprints the files a collection reads. */
int sat_collect_skip_name(const char *base);

/* ---- a sink on a second thread ------------------------------------------------------
 * Rows given to sat_sink_pipe_sink are copied into bounded batches and
 * replayed, in order, into `inner` on a consumer thread, so that parsing and
 * consuming overlap on two cores. The inner sink's first error is returned
 * by a later call (at the next batch) and by close. inner's callbacks run on
 * the consumer thread only. */
typedef struct sat_sink_pipe sat_sink_pipe;
sat_sink_pipe *sat_sink_pipe_create(const sat_event_sink *inner); /* NULL: no memory/thread */
sat_event_sink sat_sink_pipe_sink(sat_sink_pipe *p);
/* Delivers every row given so far, stops the thread, frees p (NULL is fine).
 * Returns SAT_OK or the inner sink's first error. */
int sat_sink_pipe_close(sat_sink_pipe *p);

#endif /* SATSCOPE_COLLECT_H */
