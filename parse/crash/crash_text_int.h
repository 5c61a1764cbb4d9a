/*
 * crash_text_int.h - (private to the crash text scanner, parse/crash/crash_text*.c)
 * the state its files share: the scanner, its open blocks and their frames,
 * the character helpers every reader uses, and the functions one file calls
 * in another.
 *   crash_text.c         the scanner: a line offered to the open blocks, then
 *                        taken as a kernel notice or as a block's first line;
 *   crash_text_lex.c     numbers, the prefix's skeleton, signal names;
 *   crash_text_time.c    the timestamps of a line's prefix, its syslog facts;
 *   crash_text_block.c   a block's strings, frames and gdb threads;
 *   crash_text_emit.c    a finished block made into frame rows and a crash row;
 *   crash_text_frame.c   one frame as glibc, Ceph and gdb print it;
 *   crash_text_ceph.c    Ceph's fatal-signal block;
 *   crash_text_glibc.c   a run of backtrace_symbols() lines;
 *   crash_text_gdb.c     gdb's session: frames, threads, signal lines;
 *   crash_text_kernel.c  the kernel's and systemd-coredump's one-line notices.
 * The formats and their sources are named in crash_text.c's opening comment.
 *
 * Ownership: the scanner owns every block and its buffers; rows handed to the
 * sink borrow them for the callback only.
 */
#ifndef SAT_PARSE_CRASH_TEXT_INT_H
#define SAT_PARSE_CRASH_TEXT_INT_H

#include "satscope/crash.h"
#include "satscope/parse.h"
#include "timefmt.h"
#include "text_scan.h"

#define PREFIX_MAX 192          /* bytes of a block's prefix kept for matching */
#define RING 6                  /* lines kept for the glibc run's announcing line */
#define RING_LINE 512
#define HINT_LINES 4            /* how far back that line may be */
#define FIELD_MAX 2048          /* one string of a frame (long C++ names are cut) */
#define BLOCK_STR_MAX ((size_t)2 << 20) /* string bytes of one block */
#define THREADS_MAX 4096        /* gdb threads tracked per crash (looked up linearly);
                                   more are counted, not told apart */
#define DEDUP_KEEP 8            /* Ceph crashes remembered to tell repeats */
#define FRAMES_DEFAULT 4096

enum { NOT_MINE = 0, TAKEN, ENDED, ENDED_TAKEN };

typedef struct cstr {
    uint32_t off, len;
    uint8_t set;
} cstr;

typedef struct cframe {
    int32_t thread, depth, line;
    int32_t sigarg;             /* gdb: a handler's "sig=N" argument, 0 if none */
    int64_t pc, offset, fn_offset;
    uint8_t flags;
    cstr module, function, file;
} cframe;

typedef struct cthread {
    int32_t num, lwp;
} cthread;

typedef struct block {
    int origin;                 /* enum sat_crash_origin; 0: the slot is free */
    uint64_t first_line, last_line;
    char hdr_prefix[PREFIX_MAX];/* the first line's prefix (Ceph: the header's) */
    size_t hdr_len;
    char prefix[PREFIX_MAX];    /* the prefix of the block's following lines */
    size_t prefix_len;
    int prefix_known;
    uint32_t cont_lines;        /* lines that continued it (not blank ones) */
    sat_ts_ns ts;
    int32_t signal, pid, orig_signal;
    uint16_t flags;
    cstr exe, command, host, version, tag;
    uint64_t ceph_thread;       /* "in thread 7f..": a pthread_t, not a tid */
    char *sbuf;
    size_t slen, scap;
    int strings_full;
    cframe *fr;
    size_t nfr, capfr;
    /* gdb */
    int32_t cur_thread, cur_depth;
    int32_t crash_thread, crash_lwp;
    cthread *th;
    size_t nth, capth;
    uint32_t threads_untracked; /* headers past THREADS_MAX */
    int had_signal_line, had_core_line, unwind_cut_thread;
    uint64_t frame0_hash;       /* thread 0's "#0" line: a repeated bt, or a new one */
    /* glibc */
    int hinted;
    int glibc_abort;            /* announced by glibc's "*** Error in": no handler */
} block;

typedef struct ringline {
    uint64_t line_no;
    size_t len;
    char text[RING_LINE];
} ringline;

typedef struct seen_crash {
    sat_ts_ns ts;
    int32_t signal;
    uint64_t thread;
    char text[sizeof(((sat_crash_keys *)0)->text)]; /* the fingerprint's frames */
} seen_crash;

struct sat_crash_text {
    sat_crash_text_opts opts;
    const sat_event_sink *sink;
    sat_crash_text_stats stats;
    uint64_t line_no;
    uint32_t next_crash;
    int year, last_month;
    block blocks[SAT_CRASH_TEXT_BLOCKS];
    ringline ring[RING];
    size_t ring_next;
    seen_crash seen[DEDUP_KEEP];
    size_t seen_next, seen_n;
    sat_frame *scratch;
    size_t scratch_cap;
    int nomem, finished;
    uint64_t last_taken; /* the last line a block took */
    int err; /* a sink's status met where it could not be returned at once */
};

/* ---- characters and numbers ------------------------------------------------------ */
static inline int isdig(int c) { return c >= '0' && c <= '9'; }
static inline int ishex(int c)
{
    return isdig(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
static inline int isblank_(int c) { return c == ' ' || c == '\t'; }
static inline int isalpha_(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static inline int isalnum_(int c) { return isalpha_(c) || isdig(c); }
static inline int hexval(int c)
{
    return isdig(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : c - 'A' + 10;
}

static inline const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && isblank_(*p))
        p++;
    return p;
}

static inline const char *trim_end(const char *p, const char *end)
{
    while (end > p && (isblank_(end[-1]) || end[-1] == '\r'))
        end--;
    return end;
}

/* A frame as read from the text, before it is kept. */
typedef struct fview {
    const char *module, *function, *file;
    size_t module_len, function_len, file_len;
    int64_t pc, offset, fn_offset;
    int32_t line, sigarg;
    uint8_t flags;
    const char *start; /* where the frame's text starts (glibc: its module) */
    int bare_pc;       /* glibc "[0x...]" only */
    int cut;           /* the text ended inside the frame */
} fview;

/* ---- crash_text_lex.c --------------------------------------------------------------- */
const char *sat_ct_hex_num(const char *p, const char *end, int need_0x, int64_t *v);
const char *sat_ct_dec_num(const char *p, const char *end, int32_t *v);
const char *sat_ct_skel_match(const char *pre, size_t plen, const char *p, const char *end);
size_t sat_ct_set_prefix(char *dst, const char *p, const char *e);
int sat_ct_sig_word(const char *p, const char *end, const char **e);

/* ---- crash_text_time.c -------------------------------------------------------------- */
sat_ts_ns sat_ct_ts_in(sat_crash_text *ct, const char *p, const char *end);
void sat_ct_prefix_facts(sat_crash_text *ct, block *b, const char *p, const char *e);

/* ---- crash_text_block.c ------------------------------------------------------------- */
cstr sat_ct_keep(sat_crash_text *ct, block *b, const char *p, size_t n);
sat_str sat_ct_view(const block *b, cstr s);
void sat_ct_add_frame(sat_crash_text *ct, block *b, const fview *v);
void sat_ct_drop_thread_frames(block *b, int32_t thread);
size_t sat_ct_thread_frames(const block *b, int32_t thread);
void sat_ct_see_thread(sat_crash_text *ct, block *b, int32_t num, int32_t lwp);
void sat_ct_block_clear(block *b);
block *sat_ct_new_block(sat_crash_text *ct, int origin);

/* ---- crash_text_emit.c -------------------------------------------------------------- */
int sat_ct_emit_block(sat_crash_text *ct, block *b);

/* ---- crash_text_frame.c ------------------------------------------------------------- */
void sat_ct_fview_init(fview *f);
int sat_ct_glibc_frame(const char *p, const char *end, fview *f);
void sat_ct_ceph_frame(const char *p, const char *end, fview *f);
int sat_ct_gdb_frame_body(const char *q, const char *end, fview *f);
int sat_ct_gdb_frame(const char *p, const char *end, fview *f);

/* ---- the block kinds: a line offered to an open block (NOT_MINE, TAKEN, ENDED,
 * ENDED_TAKEN), and a line that may start one (1 started, 0 not, -1 ct->err) ---- */
int sat_ct_ceph_line(sat_crash_text *ct, block *b, const char *p, const char *end);
int sat_ct_ceph_start(sat_crash_text *ct, const char *p, const char *end, const char *sigpos,
                      block **out);
int sat_ct_glibc_line(sat_crash_text *ct, block *b, const char *p, const char *end);
int sat_ct_glibc_start(sat_crash_text *ct, const char *p, const char *end);
int sat_ct_gdb_line(sat_crash_text *ct, block *b, const char *p, const char *end);
const char *sat_ct_gdb_marker(const char *p, const char *end, const char *sigpos);
int sat_ct_gdb_start(sat_crash_text *ct, const char *p, const char *end, const char *m);

/* ---- crash_text_kernel.c ------------------------------------------------------------ */
int sat_ct_kernel_line(sat_crash_text *ct, const char *p, const char *end, int *taken);

#endif
