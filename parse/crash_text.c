/*
 * crash_text.c - crash reports written as text inside log files (crash.h):
 * found line by line among a log's other lines, each turned into its frame
 * rows and a crash row (event.h). The three shapes are the programs' own:
 *
 *  - Ceph's fatal-signal block (src/global/signal_handler.cc with
 *    src/common/BackTrace.cc): "*** Caught signal (NAME) **", " in thread HEX
 *    thread_name:NAME", " ceph version V (SHA) name (stable)", frames " N: F"
 *    where F is "(demangled+0xOFF) [0xPC]" ("(()+0xOFF)" when the symbol was
 *    unknown), a raw backtrace_symbols() string "module(+0xOFF) [0xPC]" or,
 *    in newer versions, a bare "gsignal()", and a closing " NOTE: a copy of
 *    the executable ..." line.
 *  - glibc's backtrace_symbols() / backtrace_symbols_fd() (debug/
 *    backtracesyms.c): "module(function+0xOFF)[0xPC]", "module(+0xOFF)[0xPC]"
 *    (offset in the module when no symbol), "[0xPC]" when dladdr failed.
 *  - gdb's frame printing (gdb/stack.c): "#N  0xPC in function (args) at
 *    file:line" or "... from /path/lib.so", no "0xPC in" when the pc is at a
 *    line's start or the frame is inlined, "<signal handler called>" for the
 *    kernel's trampoline; "Thread N (Thread 0x.. (LWP L) "name"):" headers of
 *    "thread apply all bt", and the session lines around them.
 *
 * A line can carry a prefix before the crash text (a timestamp, "host
 * prog[pid]: ", "INFO:tasks.osd.0.stderr:"). A block remembers its prefix and
 * takes the later lines that start with the same prefix up to digits and blank
 * runs (the prefix's "skeleton"): the blocks of two streams written into one
 * file at once stay apart, and an ordinary line of the block's own stream ends
 * it. Nothing here does I/O; memory is bounded (crash.h).
 */
#include "satscope/crash.h"
#include "satscope/parse.h"
#include "timefmt.h"

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
static int isdig(int c) { return c >= '0' && c <= '9'; }
static int ishex(int c)
{
    return isdig(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
static int isblank_(int c) { return c == ' ' || c == '\t'; }
static int isalpha_(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int isalnum_(int c) { return isalpha_(c) || isdig(c); }
static int hexval(int c)
{
    return isdig(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : c - 'A' + 10;
}

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && isblank_(*p))
        p++;
    return p;
}

static const char *trim_end(const char *p, const char *end)
{
    while (end > p && (isblank_(end[-1]) || end[-1] == '\r'))
        end--;
    return end;
}

static int starts(const char *p, const char *end, const char *lit)
{
    size_t n = strlen(lit);
    return (size_t)(end - p) >= n && memcmp(p, lit, n) == 0;
}

/* The first lit in p..end (memchr for its first byte, then compare). */
static const char *find(const char *p, const char *end, const char *lit)
{
    size_t n = strlen(lit);
    while (p < end && (size_t)(end - p) >= n) {
        const char *c = memchr(p, lit[0], (size_t)(end - p) - n + 1);
        if (!c)
            return NULL;
        if (memcmp(c + 1, lit + 1, n - 1) == 0)
            return c;
        p = c + 1;
    }
    return NULL;
}

/* Hex digits (after an optional "0x"), at most 16: the end, or NULL. */
static const char *hex_num(const char *p, const char *end, int need_0x, int64_t *v)
{
    if (end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2;
    else if (need_0x)
        return NULL;
    uint64_t x = 0;
    int n = 0;
    while (p < end && ishex(*p)) {
        if (++n > 16)
            return NULL;
        x = x * 16 + (uint64_t)hexval(*p);
        p++;
    }
    if (!n)
        return NULL;
    *v = (int64_t)x; /* addresses over 2^63 (kernel) wrap: never SAT_ABSENT but ~0 */
    return p;
}

/* Decimal digits, at most 9: the end, or NULL. */
static const char *dec_num(const char *p, const char *end, int32_t *v)
{
    int32_t x = 0;
    int n = 0;
    while (p < end && isdig(*p)) {
        if (++n > 9)
            return NULL;
        x = x * 10 + (*p - '0');
        p++;
    }
    if (!n)
        return NULL;
    *v = x;
    return p;
}

/* Where p continues after a prefix equal to pre up to digits and blank runs
 * (a run of digits matches a run of digits, a run of blanks a run of blanks):
 * the log's timestamps, pids and counters change from line to line, its words
 * do not. NULL if p does not start so. */
static const char *skel_match(const char *pre, size_t plen, const char *p, const char *end)
{
    size_t i = 0;
    while (i < plen) {
        char c = pre[i];
        if (isdig(c)) {
            if (p >= end || !isdig(*p))
                return NULL;
            while (i < plen && isdig(pre[i]))
                i++;
            while (p < end && isdig(*p))
                p++;
        } else if (isblank_(c)) {
            if (p >= end || !isblank_(*p))
                return NULL;
            while (i < plen && isblank_(pre[i]))
                i++;
            while (p < end && isblank_(*p))
                p++;
        } else {
            if (p >= end || *p != c)
                return NULL;
            i++;
            p++;
        }
    }
    return p;
}

static size_t set_prefix(char *dst, const char *p, const char *e)
{
    e = trim_end(p, e);
    size_t n = (size_t)(e - p);
    if (n > PREFIX_MAX)
        n = PREFIX_MAX; /* a cut prefix still tells streams apart by its start */
    memcpy(dst, p, n);
    return n;
}

/* ---- signals ------------------------------------------------------------------- */
static const struct {
    const char *sig, *desc;
    int num;
} signals[] = {
    {"SIGHUP", "Hangup", 1},
    {"SIGINT", "Interrupt", 2},
    {"SIGQUIT", "Quit", 3},
    {"SIGILL", "Illegal instruction", 4},
    {"SIGTRAP", "Trace/breakpoint trap", 5},
    {"SIGABRT", "Aborted", 6},
    {"SIGIOT", "IOT trap", 6},
    {"SIGBUS", "Bus error", 7},
    {"SIGFPE", "Floating point exception", 8},
    {"SIGKILL", "Killed", 9},
    {"SIGUSR1", "User defined signal 1", 10},
    {"SIGSEGV", "Segmentation fault", 11},
    {"SIGUSR2", "User defined signal 2", 12},
    {"SIGPIPE", "Broken pipe", 13},
    {"SIGALRM", "Alarm clock", 14},
    {"SIGTERM", "Terminated", 15},
    {"SIGSTKFLT", "Stack fault", 16},
    {"SIGCHLD", "Child exited", 17},
    {"SIGCONT", "Continued", 18},
    {"SIGSTOP", "Stopped (signal)", 19},
    {"SIGTSTP", "Stopped", 20},
    {"SIGTTIN", "Stopped (tty input)", 21},
    {"SIGTTOU", "Stopped (tty output)", 22},
    {"SIGURG", "Urgent I/O condition", 23},
    {"SIGXCPU", "CPU time limit exceeded", 24},
    {"SIGXFSZ", "File size limit exceeded", 25},
    {"SIGVTALRM", "Virtual timer expired", 26},
    {"SIGPROF", "Profiling timer expired", 27},
    {"SIGWINCH", "Window changed", 28},
    {"SIGIO", "I/O possible", 29},
    {"SIGPWR", "Power failure", 30},
    {"SIGSYS", "Bad system call", 31},
};
#define NSIGNALS (sizeof signals / sizeof signals[0])

static int eq_nocase(const char *a, size_t n, const char *lit)
{
    if (strlen(lit) != n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        int x = (unsigned char)a[i], y = (unsigned char)lit[i];
        if (x >= 'A' && x <= 'Z')
            x += 32;
        if (y >= 'A' && y <= 'Z')
            y += 32;
        if (x != y)
            return 0;
    }
    return 1;
}

int sat_crash_signal_from_text(const char *p, size_t n)
{
    if (!p)
        return 0;
    for (size_t i = 0; i < NSIGNALS; i++) {
        size_t sl = strlen(signals[i].sig);
        if ((n == sl && memcmp(p, signals[i].sig, sl) == 0) ||
            (n == sl - 3 && memcmp(p, signals[i].sig + 3, sl - 3) == 0) ||
            eq_nocase(p, n, signals[i].desc))
            return signals[i].num;
    }
    return 0;
}

/* "SIGSEGV" at p (a whole word): its number, 0 if none; *e past it. */
static int sig_word(const char *p, const char *end, const char **e)
{
    const char *q = p;
    while (q < end && (isalnum_(*q)))
        q++;
    if (q - p < 4 || !starts(p, q, "SIG"))
        return 0;
    int s = sat_crash_signal_from_text(p, (size_t)(q - p));
    if (s && e)
        *e = q;
    return s;
}

/* ---- timestamps ------------------------------------------------------------------- */
static int dig2(const char *p) { return (p[0] - '0') * 10 + (p[1] - '0'); }
static int digs(const char *p, int n)
{
    for (int i = 0; i < n; i++)
        if (!isdig(p[i]))
            return 0;
    return 1;
}

static int civil_ok(int y, int mo, int d, int h, int mi, int s)
{
    /* int64 nanoseconds end in April 2262 */
    return y >= 1970 && y <= 2261 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h < 24 &&
           mi < 60 && s <= 60;
}

static sat_ts_ns civil_ns(int y, int mo, int d, int h, int mi, int s, int64_t frac, int off)
{
    int64_t secs = sat_days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 +
                   mi * 60 + s - off;
    return secs * 1000000000LL + frac;
}

/* "+02:00", "+0200", "-0500", "Z": seconds east of UTC (0 if none); *e past it. */
static const char *zone(const char *q, const char *end, int *off)
{
    *off = 0;
    if (q < end && *q == 'Z')
        return q + 1;
    if (q < end && (*q == '+' || *q == '-') && end - q >= 3 && digs(q + 1, 2)) {
        int sign = *q == '-' ? -1 : 1, hh = dig2(q + 1), mm = 0;
        const char *r = q + 3;
        if (r < end && *r == ':')
            r++;
        if (end - r >= 2 && digs(r, 2)) {
            mm = dig2(r);
            r += 2;
        } else if (r != q + 3) {
            return q;
        }
        if (hh > 14 || mm > 59)
            return q;
        *off = sign * (hh * 3600 + mm * 60);
        return r;
    }
    return q;
}

/* 2024-03-08T01:00:45.505, 2013-09-25 15:06:23.307320, ...+0000, ...Z */
static int iso_ts(const char *p, const char *end, sat_ts_ns *ts)
{
    if (end - p < 19 || !digs(p, 4) || p[4] != '-' || !digs(p + 5, 2) || p[7] != '-' ||
        !digs(p + 8, 2) || (p[10] != 'T' && p[10] != ' ') || !digs(p + 11, 2) ||
        p[13] != ':' || !digs(p + 14, 2) || p[16] != ':' || !digs(p + 17, 2))
        return 0;
    int y = dig2(p) * 100 + dig2(p + 2), mo = dig2(p + 5), d = dig2(p + 8), h = dig2(p + 11),
        mi = dig2(p + 14), s = dig2(p + 17);
    if (!civil_ok(y, mo, d, h, mi, s))
        return 0;
    const char *q = p + 19;
    int64_t frac = 0;
    if (q + 1 < end && (*q == '.' || *q == ',') && isdig(q[1]))
        q = sat_fraction_ns(q + 1, end, &frac, NULL);
    int off;
    zone(q, end, &off);
    *ts = civil_ns(y, mo, d, h, mi, s, frac, off); /* no zone: taken as UTC */
    return 1;
}

/* 389: [10/Jun/2025:14:35:00.123456789 +0200] */
static int ts389(const char *p, const char *end, sat_ts_ns *ts)
{
    if (end - p < 21 || *p != '[' || !digs(p + 1, 2) || p[3] != '/' || p[7] != '/' ||
        !digs(p + 8, 4) || p[12] != ':' || !digs(p + 13, 2) || p[15] != ':' ||
        !digs(p + 16, 2) || p[18] != ':' || !digs(p + 19, 2))
        return 0;
    int mo = sat_month_of(p + 4);
    int d = dig2(p + 1), y = dig2(p + 8) * 100 + dig2(p + 10), h = dig2(p + 13),
        mi = dig2(p + 16), s = dig2(p + 19);
    if (!mo || !civil_ok(y, mo, d, h, mi, s))
        return 0;
    const char *q = p + 21;
    int64_t frac = 0;
    if (q + 1 < end && *q == '.' && isdig(q[1]))
        q = sat_fraction_ns(q + 1, end, &frac, NULL);
    int off = 0;
    if (q < end && *q == ' ')
        zone(q + 1, end, &off);
    *ts = civil_ns(y, mo, d, h, mi, s, frac, off);
    return 1;
}

/* syslog: "Jun 10 14:35:00", "Jun  2 14:35:00" (no year, no zone: UTC) */
static int syslog_ts(sat_crash_text *ct, const char *p, const char *end, sat_ts_ns *ts,
                     const char **e)
{
    if (end - p < 15 || p[3] != ' ')
        return 0;
    int mo = sat_month_of(p);
    if (!mo)
        return 0;
    int d;
    if (p[4] == ' ' && isdig(p[5]))
        d = p[5] - '0';
    else if (digs(p + 4, 2))
        d = dig2(p + 4);
    else
        return 0;
    const char *t = p + 6;
    if (*t != ' ' || !digs(t + 1, 2) || t[3] != ':' || !digs(t + 4, 2) || t[6] != ':' ||
        !digs(t + 7, 2))
        return 0;
    int h = dig2(t + 1), mi = dig2(t + 4), s = dig2(t + 7);
    if (!ct->year) /* the one year rule, as for every year-less log */
        ct->year = sat_year_for(mo, d, h * 3600 + mi * 60 + s, ct->opts.year_ref);
    if (ct->last_month == 12 && mo == 1)
        ct->year++; /* the log went past New Year */
    ct->last_month = mo;
    if (!civil_ok(ct->year, mo, d, h, mi, s))
        return 0;
    const char *q = t + 9;
    int64_t frac = 0;
    if (q + 1 < end && *q == '.' && isdig(q[1]))
        q = sat_fraction_ns(q + 1, end, &frac, NULL);
    *ts = civil_ns(ct->year, mo, d, h, mi, s, frac, 0);
    if (e)
        *e = q;
    return 1;
}

/* The first timestamp among a prefix's first bytes, 0 if none. */
static sat_ts_ns ts_in(sat_crash_text *ct, const char *p, const char *end)
{
    if (end - p > 160)
        end = p + 160;
    sat_ts_ns ts;
    for (const char *q = p; q < end; q++) {
        if (q > p && isalnum_(q[-1]))
            continue; /* timestamps start a word */
        if ((isdig(*q) && iso_ts(q, end, &ts)) || (*q == '[' && ts389(q, end, &ts)) ||
            (*q >= 'A' && *q <= 'Z' && syslog_ts(ct, q, end, &ts, NULL)))
            return ts;
    }
    return 0;
}

/* ---- blocks: strings, frames, threads ----------------------------------------------- */
static cstr keep(sat_crash_text *ct, block *b, const char *p, size_t n)
{
    cstr s = {0, 0, 0};
    if (!p)
        return s;
    if (n > FIELD_MAX)
        n = FIELD_MAX;
    if (b->slen + n > BLOCK_STR_MAX) {
        b->strings_full = 1;
        return s;
    }
    if (b->slen + n > b->scap) {
        size_t cap = b->scap ? b->scap : 4096;
        while (cap < b->slen + n)
            cap *= 2;
        char *nb = realloc(b->sbuf, cap);
        if (!nb) {
            ct->nomem = 1;
            return s;
        }
        b->sbuf = nb;
        b->scap = cap;
    }
    if (n)
        memcpy(b->sbuf + b->slen, p, n);
    s.off = (uint32_t)b->slen;
    s.len = (uint32_t)n;
    s.set = 1;
    b->slen += n;
    return s;
}

static sat_str view(const block *b, cstr s)
{
    if (!s.set)
        return SAT_STR_NONE;
    return s.len ? sat_str_make(b->sbuf + s.off, s.len) : sat_str_make("", 0);
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

static void fview_init(fview *f)
{
    memset(f, 0, sizeof *f);
    f->pc = f->offset = f->fn_offset = SAT_ABSENT;
    f->line = SAT_ABSENT;
}

static void add_frame(sat_crash_text *ct, block *b, const fview *v)
{
    if (b->nfr >= ct->opts.max_frames || b->strings_full) {
        ct->stats.frames_dropped++;
        b->flags |= SAT_CRASHF_TRUNCATED;
        b->cur_depth++;
        return;
    }
    if (b->nfr == b->capfr) {
        size_t cap = b->capfr ? b->capfr * 2 : 32;
        cframe *nf = realloc(b->fr, cap * sizeof *nf);
        if (!nf) {
            ct->nomem = 1;
            return;
        }
        b->fr = nf;
        b->capfr = cap;
    }
    cframe *f = &b->fr[b->nfr];
    memset(f, 0, sizeof *f);
    f->thread = b->cur_thread;
    f->depth = b->cur_depth++;
    f->pc = v->pc;
    f->offset = v->offset;
    f->fn_offset = v->fn_offset;
    f->line = v->line;
    f->sigarg = v->sigarg;
    f->flags = v->flags;
    f->module = keep(ct, b, v->module, v->module_len);
    f->function = keep(ct, b, v->function, v->function_len);
    f->file = keep(ct, b, v->file, v->file_len);
    if (v->cut)
        b->flags |= SAT_CRASHF_TRUNCATED;
    b->nfr++;
}

/* Drops the frames of one thread (gdb printed its stack again). */
static void drop_thread_frames(block *b, int32_t thread)
{
    size_t o = 0;
    for (size_t i = 0; i < b->nfr; i++)
        if (b->fr[i].thread != thread)
            b->fr[o++] = b->fr[i];
    b->nfr = o;
}

static size_t thread_frames(const block *b, int32_t thread)
{
    size_t n = 0;
    for (size_t i = 0; i < b->nfr; i++)
        n += b->fr[i].thread == thread;
    return n;
}

/* Records gdb thread `num` (its LWP if known, else 0). */
static void see_thread(sat_crash_text *ct, block *b, int32_t num, int32_t lwp)
{
    for (size_t i = 0; i < b->nth; i++)
        if (b->th[i].num == num) {
            if (lwp)
                b->th[i].lwp = lwp;
            return;
        }
    if (b->nth >= THREADS_MAX) {
        b->threads_untracked++;
        return;
    }
    if (b->nth == b->capth) {
        size_t cap = b->capth ? b->capth * 2 : 16;
        cthread *nt = realloc(b->th, cap * sizeof *nt);
        if (!nt) {
            ct->nomem = 1;
            return;
        }
        b->th = nt;
        b->capth = cap;
    }
    b->th[b->nth].num = num;
    b->th[b->nth].lwp = lwp;
    b->nth++;
}

static void block_clear(block *b)
{
    char *sbuf = b->sbuf;
    cframe *fr = b->fr;
    cthread *th = b->th;
    size_t scap = b->scap, capfr = b->capfr, capth = b->capth;
    memset(b, 0, sizeof *b);
    b->sbuf = sbuf;
    b->scap = scap;
    b->fr = fr;
    b->capfr = capfr;
    b->th = th;
    b->capth = capth;
    b->signal = b->pid = b->orig_signal = SAT_ABSENT;
}

/* A module path's last component ("/lib64/libc.so.6" -> "libc.so.6"). */
static sat_str basename_of(sat_str s)
{
    if (!s.ptr)
        return s;
    for (uint32_t i = s.len; i > 0; i--)
        if (s.ptr[i - 1] == '/')
            return sat_str_make(s.ptr + i, s.len - i);
    return s;
}

/* A shared library or the vDSO, not an executable: "libc.so.6", "ld-2.28.so". */
static int is_library(sat_str base)
{
    for (uint32_t i = 0; i + 3 <= base.len; i++)
        if (memcmp(base.ptr + i, ".so", 3) == 0 &&
            (i + 3 == base.len || base.ptr[i + 3] == '.'))
            return 1;
    return (base.len >= 6 && memcmp(base.ptr, "[vdso]", 6) == 0) ||
           (base.len >= 10 && memcmp(base.ptr, "linux-vdso", 10) == 0);
}

/* ---- emitting a block ----------------------------------------------------------------- */
/* a is b, or b cut at a frame boundary ("?|?" of "?|?|?:f|..."), or none */
static int same_or_cut(const char *a, const char *b)
{
    size_t n = strlen(a);
    return strcmp(a, "?") == 0 || (strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '|'));
}

/* Ceph writes a crash's block into its log, then again in the "dump of
 * recent events" ("     0> ..."), and to stderr: the same thread, signal and
 * frames (one copy may be cut) at the same time (or one copy without one). */
static int is_duplicate(sat_crash_text *ct, const block *b, const char *text)
{
    if (!b->ceph_thread)
        return 0;
    for (size_t i = 0; i < ct->seen_n; i++) {
        const seen_crash *s = &ct->seen[i];
        if (s->signal == b->signal && s->thread == b->ceph_thread &&
            (s->ts == b->ts || !s->ts || !b->ts) &&
            (same_or_cut(s->text, text) || same_or_cut(text, s->text)))
            return 1;
    }
    return 0;
}

static int emittable(const block *b)
{
    switch (b->origin) {
    case SAT_CRASH_TEXT_CEPH:
        return b->cont_lines > 0;
    case SAT_CRASH_TEXT_GLIBC:
        return b->nfr >= 2 || (b->nfr >= 1 && b->hinted);
    case SAT_CRASH_TEXT_GDB:
        return b->nfr > 0 || b->had_signal_line || b->had_core_line;
    default:
        return 0;
    }
}

static int32_t lwp_of(const block *b, int32_t num)
{
    for (size_t i = 0; i < b->nth; i++)
        if (b->th[i].num == num)
            return b->th[i].lwp;
    return 0;
}

static int32_t num_of_lwp(const block *b, int32_t lwp)
{
    for (size_t i = 0; i < b->nth; i++)
        if (b->th[i].lwp == lwp)
            return b->th[i].num;
    return 0;
}

/* gdb: which thread crashed, and thread 0's frames (a "bt" before "thread
 * apply all bt", or the stop location) folded into it. */
static int32_t gdb_crash_thread(block *b)
{
    int32_t t = b->crash_thread;
    if (!t && b->crash_lwp)
        t = num_of_lwp(b, b->crash_lwp);
    size_t zero = thread_frames(b, 0);
    if (t) {
        if (zero && thread_frames(b, t))
            drop_thread_frames(b, 0); /* the same stack, printed under its header too */
        else if (zero)
            for (size_t i = 0; i < b->nfr; i++)
                if (b->fr[i].thread == 0)
                    b->fr[i].thread = t;
        return t;
    }
    if (zero)
        return 0;
    return b->nfr ? b->fr[0].thread : 0; /* the first thread printed */
}

/* A backtrace written by a fatal-signal handler (Ceph's; a program's that
 * calls backtrace_symbols) starts with the handler, then the kernel's signal
 * trampoline - glibc's __restore_rt, not exported, so written without a name
 * ("(()+0x12cf0)", "libc.so.6(+0x3c050)") - then the faulting code. The
 * trampoline is the last of the first two frames that have no function and
 * are in libc, libpthread or an unnamed module (the handler, when written,
 * is frame 1: "ceph-mon() [0x80fdea]", "(()+0x946e4e)"); the fingerprint
 * starts below it. */
static void mark_trampoline(block *b)
{
    cframe *t = NULL;
    for (size_t i = 0; i < b->nfr && i < 2; i++) {
        cframe *f = &b->fr[i];
        if (f->thread != 0 || f->function.set)
            continue;
        sat_str m = basename_of(view(b, f->module));
        if (!m.ptr || (m.len >= 7 && memcmp(m.ptr, "libc.so", 7) == 0) ||
            (m.len >= 13 && memcmp(m.ptr, "libpthread.so", 13) == 0))
            t = f;
    }
    if (t)
        t->flags |= SAT_FRAMEF_SIGNAL;
}

static int emit_block(sat_crash_text *ct, block *b)
{
    int rc = SAT_OK;
    if (!emittable(b) || ct->nomem)
        goto done;
    int32_t crash_thread = b->origin == SAT_CRASH_TEXT_GDB ? gdb_crash_thread(b) : 0;
    if (b->origin == SAT_CRASH_TEXT_CEPH || (b->origin == SAT_CRASH_TEXT_GLIBC &&
                                             b->signal != SAT_ABSENT && !b->glibc_abort))
        mark_trampoline(b);

    /* the crashing thread's frames, innermost first, for the keys */
    size_t n = 0;
    if (b->nfr > ct->scratch_cap) {
        sat_frame *ns = realloc(ct->scratch, b->nfr * sizeof *ns);
        if (!ns) {
            ct->nomem = 1;
            rc = SAT_E_NOMEM;
            goto done;
        }
        ct->scratch = ns;
        ct->scratch_cap = b->nfr;
    }
    int handler = 0;
    int32_t orig = SAT_ABSENT;
    for (size_t i = 0; i < b->nfr; i++) {
        const cframe *c = &b->fr[i];
        if (c->thread != crash_thread)
            continue;
        sat_frame *f = &ct->scratch[n];
        memset(f, 0, sizeof *f);
        f->thread = c->thread;
        f->depth = c->depth;
        f->pc = c->pc;
        f->offset = c->offset;
        f->fn_offset = c->fn_offset;
        f->line = c->line;
        f->flags = c->flags;
        f->module = basename_of(view(b, c->module));
        f->function = view(b, c->function);
        f->file = view(b, c->file);
        f->build_id = SAT_STR_NONE;
        if ((c->flags & SAT_FRAMEF_SIGNAL) && !handler && b->origin == SAT_CRASH_TEXT_GDB) {
            /* gdb's signal line names the handler's own signal (its abort);
             * the fault that entered the handler sits above the trampoline */
            handler = 1;
            if (n > 0 && b->fr[i - 1].thread == crash_thread && b->fr[i - 1].sigarg > 0)
                orig = b->fr[i - 1].sigarg;
        }
        n++;
    }
    sat_crash_keys keys;
    sat_crash_keys_of(ct->scratch, n, view(b, b->version), &keys);

    if (b->origin == SAT_CRASH_TEXT_CEPH) {
        if (is_duplicate(ct, b, keys.text)) {
            ct->stats.duplicates++;
            goto done;
        }
        seen_crash *s = &ct->seen[ct->seen_next];
        s->ts = b->ts;
        s->signal = b->signal;
        s->thread = b->ceph_thread;
        memcpy(s->text, keys.text, sizeof s->text);
        ct->seen_next = (ct->seen_next + 1) % DEDUP_KEEP;
        if (ct->seen_n < DEDUP_KEEP)
            ct->seen_n++;
    }
    if (b->ts && ((ct->opts.from_ns && b->ts < ct->opts.from_ns) ||
                  (ct->opts.to_ns && b->ts >= ct->opts.to_ns))) {
        ct->stats.outside_window++;
        goto done;
    }

    uint32_t id = ++ct->next_crash;
    /* frame rows: the crashing thread first, then the others as printed */
    for (int pass = 0; pass < 2 && rc >= 0; pass++)
        for (size_t i = 0; i < b->nfr && rc >= 0; i++) {
            const cframe *c = &b->fr[i];
            if ((c->thread == crash_thread) != (pass == 0))
                continue;
            sat_frame f;
            memset(&f, 0, sizeof f);
            f.source = ct->opts.source;
            f.crash = id;
            f.thread = c->thread;
            f.depth = c->depth;
            f.pc = c->pc;
            f.module = basename_of(view(b, c->module));
            f.build_id = SAT_STR_NONE;
            f.offset = c->offset;
            f.function = view(b, c->function);
            f.fn_offset = c->fn_offset;
            f.file = view(b, c->file);
            f.line = c->line;
            f.flags = c->flags;
            rc = sat_sink_emit(ct->sink, SAT_TABLE_FRAME, &f);
            ct->stats.frames++;
        }
    if (rc < 0)
        goto done;

    sat_crash c;
    memset(&c, 0, sizeof c);
    c.ts = b->ts;
    c.time_source = b->ts > 0 ? SAT_CRASH_TIME_LOG : SAT_CRASH_TIME_UNKNOWN;
    c.source = ct->opts.source;
    c.crash = id;
    c.host = view(b, b->host);
    c.pid = b->pid;
    c.uid = SAT_ABSENT;
    /* the executable: what the text names (gdb's core line, glibc's error
     * line), else the first module that is not a library, else the syslog tag */
    sat_str exe = view(b, b->exe);
    for (size_t i = 0; !exe.ptr && i < b->nfr; i++) {
        sat_str m = view(b, b->fr[i].module);
        if (m.ptr && m.len && !is_library(basename_of(m)))
            exe = m;
    }
    if (!exe.ptr)
        exe = view(b, b->tag);
    c.exe = exe;
    c.command = view(b, b->command);
    c.build_id = SAT_STR_NONE;
    c.signal = b->signal;
    c.si_code = SAT_ABSENT;
    c.fault_addr = SAT_ABSENT;
    c.orig_signal = handler ? orig : SAT_ABSENT;
    c.orig_fault_addr = SAT_ABSENT;
    if (b->origin == SAT_CRASH_TEXT_GDB) {
        uint64_t nthreads = (uint64_t)b->nth + b->threads_untracked;
        c.threads = nthreads ? (int32_t)(nthreads < INT32_MAX ? nthreads : INT32_MAX) : 1;
        int32_t lwp = crash_thread ? lwp_of(b, crash_thread) : 0;
        c.crashing_tid = lwp ? lwp : b->crash_lwp ? b->crash_lwp : SAT_ABSENT;
    } else {
        c.threads = 1;
        c.crashing_tid = SAT_ABSENT;
    }
    c.origin = (uint8_t)b->origin;
    c.arch = SAT_ARCH_UNKNOWN;
    if (!b->nfr)
        b->flags |= SAT_CRASHF_TRUNCATED;
    if (handler)
        b->flags |= SAT_CRASHF_HANDLER;
    if (b->unwind_cut_thread && b->unwind_cut_thread - 1 == crash_thread)
        b->flags |= SAT_CRASHF_UNWIND_CUT;
    c.flags = b->flags;
    c.fingerprint = sat_str_cstr(keys.fingerprint);
    c.signature = sat_str_cstr(keys.text);
    c.build_key = sat_str_cstr(keys.build_key);
    c.missing = b->nfr ? SAT_STR_NONE : sat_str_cstr("frames");
    rc = sat_sink_emit(ct->sink, SAT_TABLE_CRASH, &c);
    ct->stats.crashes++;
    ct->stats.by_origin[b->origin]++;
    if (b->flags & SAT_CRASHF_TRUNCATED)
        ct->stats.partial++;
done:
    block_clear(b);
    return rc < 0 ? rc : ct->nomem ? SAT_E_NOMEM : SAT_OK;
}

/* ---- the prefix's facts: time, syslog host and program[pid] --------------------------- */
static void prefix_facts(sat_crash_text *ct, block *b, const char *p, const char *e)
{
    b->ts = ts_in(ct, p, e);
    /* "Jun 10 14:35:00 host prog[1234]: " or "2025-06-10T14:35:00+02:00 host prog[1234]: " */
    const char *q = NULL;
    sat_ts_ns ts;
    if (syslog_ts(ct, p, e, &ts, &q)) {
        /* q is past the time */
    } else if (iso_ts(p, e, &ts) && p[10] == 'T') {
        for (q = p + 19; q < e && !isblank_(*q); q++)
            ;
    } else {
        return;
    }
    q = skip_blanks(q, e);
    const char *host = q;
    while (q < e && !isblank_(*q))
        q++;
    if (q == host || q >= e)
        return;
    const char *host_end = q;
    q = skip_blanks(q, e);
    const char *tag = q;
    while (q < e && *q != '[' && *q != ':' && !isblank_(*q))
        q++;
    if (q == tag || q >= e || *q != '[')
        return;
    const char *tag_end = q;
    int32_t pid;
    const char *r = dec_num(q + 1, e, &pid);
    if (!r || r >= e || *r != ']')
        return;
    b->host = keep(ct, b, host, (size_t)(host_end - host));
    b->tag = keep(ct, b, tag, (size_t)(tag_end - tag));
    b->pid = pid;
}

static block *new_block(sat_crash_text *ct, int origin)
{
    block *free_b = NULL, *oldest = NULL;
    for (int i = 0; i < SAT_CRASH_TEXT_BLOCKS; i++) {
        block *b = &ct->blocks[i];
        if (!b->origin && !free_b)
            free_b = b;
        if (b->origin && (!oldest || b->last_line < oldest->last_line))
            oldest = b;
    }
    if (!free_b) {
        free_b = oldest; /* more streams at once than slots: the quietest ends */
        int rc = emit_block(ct, free_b);
        if (rc < 0) {
            ct->err = rc;
            return NULL;
        }
    }
    block_clear(free_b);
    free_b->origin = origin;
    free_b->first_line = free_b->last_line = ct->line_no;
    return free_b;
}

/* ---- frame parsers ---------------------------------------------------------------------- */
static int module_char(int c)
{
    return isalnum_(c) || c == '.' || c == '/' || c == '_' || c == '-' || c == '+' ||
           c == '~' || c == '@';
}

/* A backtrace_symbols() frame ending the text p..end: "module(fn+0xoff)[0xpc]",
 * "module(+0xoff) [0xpc]", "module() [0xpc]" or "[0xpc]" (bare_pc). */
static int glibc_frame(const char *p, const char *end, fview *f)
{
    fview_init(f);
    end = trim_end(p, end);
    if (end - p < 4 || end[-1] != ']')
        return 0;
    const char *lb = end - 1;
    while (lb > p && lb[-1] != '[')
        lb--;
    if (lb == p)
        return 0;
    lb--; /* at '[' */
    int64_t pc;
    const char *h = hex_num(lb + 1, end - 1, 1, &pc);
    if (!h || h != end - 1)
        return 0;
    f->pc = pc;
    const char *r = lb;
    if (r > p && r[-1] == ' ')
        r--;
    if (r == p || r[-1] != ')') {
        if (lb == p || isblank_(lb[-1])) { /* "[0x...]" alone: dladdr found nothing */
            f->bare_pc = 1;
            f->start = lb;
            return 1;
        }
        return 0;
    }
    const char *close = r - 1, *open = close;
    while (open > p && *open != '(')
        open--;
    if (*open != '(')
        return 0;
    const char *in = open + 1, *plus = NULL;
    for (const char *q = in; q < close; q++)
        if (*q == '+')
            plus = q;
    if (plus) {
        int64_t off;
        const char *oe = hex_num(plus + 1, close, 1, &off);
        if (!oe || oe != close)
            return 0;
        if (plus > in) {
            f->function = in;
            f->function_len = (size_t)(plus - in);
            f->fn_offset = off;
        } else {
            f->offset = off;
        }
    } else if (in != close) {
        return 0;
    }
    const char *m = open;
    while (m > p && !isblank_(m[-1]))
        m--;
    if (m == open)
        return 0; /* glibc always names a module before '(' */
    for (const char *q = m; q < open; q++)
        if (!module_char((unsigned char)*q))
            return 0;
    f->module = m;
    f->module_len = (size_t)(open - m);
    f->start = m;
    return 1;
}

/* Ceph prints C functions it could not demangle as "name()": the name alone,
 * as gdb and the skip list spell it. C++ names keep their parameter list. */
static void strip_c_parens(fview *f)
{
    const char *s = f->function;
    size_t n = f->function_len;
    if (!s || n < 3 || s[n - 2] != '(' || s[n - 1] != ')')
        return;
    for (size_t i = 0; i + 2 < n; i++)
        if (!isalnum_((unsigned char)s[i]) && s[i] != '_' && s[i] != '.')
            return;
    f->function_len = n - 2;
}

/* One Ceph frame after " N: ". */
static void ceph_frame(const char *p, const char *end, fview *f)
{
    end = trim_end(p, end);
    if (p < end && *p == '(') {
        fview_init(f);
        const char *close = NULL;
        if (end[-1] == ']') {
            const char *lb = end - 1;
            while (lb > p && *lb != '[')
                lb--;
            int64_t pc;
            const char *h = *lb == '[' ? hex_num(lb + 1, end - 1, 1, &pc) : NULL;
            if (h && h == end - 1) {
                f->pc = pc;
                const char *r = lb;
                if (r > p && r[-1] == ' ')
                    r--;
                if (r > p + 1 && r[-1] == ')')
                    close = r - 1;
            }
        }
        if (!close) { /* cut: the function as far as it goes */
            f->function = p + 1;
            f->function_len = (size_t)(end - p - 1);
            f->cut = 1;
            return;
        }
        const char *plus = NULL;
        for (const char *q = close; q > p + 1; q--)
            if (q[-1] == '+' && q + 1 < close && q[0] == '0' && q[1] == 'x') {
                plus = q - 1;
                break;
            }
        int64_t off;
        if (plus && hex_num(plus + 1, close, 1, &off) == close) {
            const char *name = p + 1;
            size_t nlen = (size_t)(plus - name);
            if (nlen == 2 && name[0] == '(' && name[1] == ')') {
                f->offset = off; /* "(()+0x12cf0)": no symbol, offset in its module */
            } else {
                f->function = name;
                f->function_len = nlen;
                f->fn_offset = off;
            }
        } else {
            f->function = p + 1;
            f->function_len = (size_t)(close - p - 1);
        }
        strip_c_parens(f);
        return;
    }
    if (glibc_frame(p, end, f) && f->start == p)
        return; /* "/lib64/libc.so.6(+0x54db0) [0x..]", "ceph-mon() [0x..]" */
    fview_init(f); /* "gsignal()", "main()", or text this parser does not know */
    f->function = p;
    f->function_len = (size_t)(end - p);
    strip_c_parens(f);
}

/* gdb: the arguments' closing parenthesis, past quoted strings; NULL if cut. */
static const char *args_end(const char *p, const char *end)
{
    int depth = 0;
    for (const char *q = p; q < end; q++) {
        if (*q == '"' || *q == '\'') {
            char quote = *q;
            for (q++; q < end && *q != quote; q++)
                if (*q == '\\')
                    q++;
            if (q >= end)
                return NULL;
        } else if (*q == '(') {
            depth++;
        } else if (*q == ')') {
            if (--depth == 0)
                return q;
        }
    }
    return NULL;
}

/* A handler's signal argument: "sig=11", "signum=6", "signo=11". */
static int32_t sig_arg(const char *p, const char *end)
{
    static const char *const names[] = {"sig=", "signum=", "signo=", "signal="};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *q = p;
        while ((q = find(q, end, names[i])) != NULL) {
            if (q == p || q[-1] == '(' || q[-1] == ' ') {
                int32_t v;
                const char *e = dec_num(q + strlen(names[i]), end, &v);
                if (e && (e == end || *e == ',' || *e == ')') && v > 0 && v < 65)
                    return v;
            }
            q += strlen(names[i]);
        }
    }
    return 0;
}

/* What gdb prints of a frame after "#N  " (and alone for the stop location):
 * "0xPC in name (args) at file:line", "name (args) from lib", ... */
static int gdb_frame_body(const char *q, const char *end, fview *f)
{
    if (q >= end)
        return 0;
    if (starts(q, end, "<signal handler called>")) {
        f->function = q;
        f->function_len = 23;
        f->flags = SAT_FRAMEF_SIGNAL;
        return 1;
    }
    if (starts(q, end, "0x")) {
        int64_t pc;
        const char *h = hex_num(q, end, 1, &pc);
        if (!h || !starts(h, end, " in "))
            return 0;
        f->pc = pc;
        q = h + 4;
    } else if (!(isalpha_((unsigned char)*q) || *q == '_' || *q == '(' || *q == '?' ||
                 *q == '<' || *q == '~')) {
        return 0;
    }
    /* the name ends at " (" outside template brackets and parentheses */
    const char *name = q;
    int angle = 0, paren = 0;
    while (q < end) {
        if (starts(q, end, "operator")) { /* operator<<, operator(), operator-> */
            q += 8;
            if (starts(q, end, "()") || starts(q, end, "[]"))
                q += 2;
            else
                while (q < end && *q && strchr("<>=!+-*/%^&|~,", *q))
                    q++;
            continue;
        }
        if (*q == '<')
            angle++;
        else if (*q == '>' && angle > 0)
            angle--;
        else if (*q == '(')
            paren++;
        else if (*q == ')' && paren > 0)
            paren--;
        else if (*q == ' ' && q + 1 < end && q[1] == '(' && !angle && !paren)
            break;
        q++;
    }
    const char *name_end = q;
    if (name_end == name)
        return 0;
    if (!(name_end - name == 2 && name[0] == '?' && name[1] == '?')) {
        f->function = name;
        f->function_len = (size_t)(name_end - name);
    }
    if (q >= end) {
        f->cut = f->pc == SAT_ABSENT; /* "#0  0x.. in ??" is whole; a name alone is not */
        return 1;
    }
    const char *ae = args_end(q + 1, end);
    if (!ae) {
        f->cut = 1;
        return 1;
    }
    f->sigarg = sig_arg(q + 2, ae);
    q = ae + 1;
    const char *at = find(q, end, " at ");
    const char *from = find(q, end, " from ");
    if (at) {
        const char *file = at + 4, *colon = NULL;
        for (const char *r = end; r > file; r--)
            if (r[-1] == ':') {
                colon = r - 1;
                break;
            }
        int32_t line = 0;
        if (colon && dec_num(colon + 1, end, &line) == end) {
            f->file = file;
            f->file_len = (size_t)(colon - file);
            f->line = line;
        } else {
            f->file = file;
            f->file_len = (size_t)(end - file);
        }
    } else if (from) {
        f->module = from + 6;
        f->module_len = (size_t)(end - from - 6);
    }
    return 1;
}

/* A gdb frame line at p ('#'). */
static int gdb_frame(const char *p, const char *end, fview *f)
{
    fview_init(f);
    end = trim_end(p, end);
    if (p >= end || *p != '#')
        return 0;
    int32_t num;
    const char *q = dec_num(p + 1, end, &num);
    if (!q || q >= end || !isblank_(*q))
        return 0;
    f->start = p;
    return gdb_frame_body(skip_blanks(q, end), end, f);
}

/* ---- Ceph ---------------------------------------------------------------------------------- */
enum { C_OTHER = 0, C_BLANK, C_THREAD, C_VERSION, C_FRAME, C_NOTE };

/* What a line of a Ceph block says, from p (past the block's prefix). */
static int ceph_kind(const char *p, const char *end, const char **content)
{
    p = skip_blanks(p, end);
    *content = p;
    if (p >= end || trim_end(p, end) == p)
        return C_BLANK;
    if (starts(p, end, "in thread "))
        return C_THREAD;
    if (starts(p, end, "ceph version "))
        return C_VERSION;
    if (starts(p, end, "NOTE: a copy of the executable"))
        return C_NOTE;
    int32_t n;
    const char *q = dec_num(p, end, &n);
    if (q && q + 1 < end && q[0] == ':' && q[1] == ' ')
        return C_FRAME;
    return C_OTHER;
}

static void ceph_take(sat_crash_text *ct, block *b, int kind, const char *p, const char *end)
{
    end = trim_end(p, end);
    if (kind == C_BLANK)
        return;
    b->cont_lines++;
    if (kind == C_THREAD) {
        int64_t t;
        if (hex_num(p + 10, end, 0, &t))
            b->ceph_thread = (uint64_t)t;
    } else if (kind == C_VERSION) {
        b->version = keep(ct, b, p + 13, (size_t)(end - p - 13));
    } else if (kind == C_FRAME) {
        const char *q = p;
        while (q < end && *q != ':')
            q++;
        q = skip_blanks(q + 1, end);
        fview f;
        ceph_frame(q, end, &f);
        add_frame(ct, b, &f);
    }
}

/* A line offered to a Ceph block. */
static int ceph_line(sat_crash_text *ct, block *b, const char *p, const char *end)
{
    const char *rest, *content;
    if (!b->prefix_known) {
        /* the block's later lines carry the outer layer of the header's
         * prefix (or none): learn it from the first of them */
        static const char *const marks[] = {"in thread ", "ceph version ", "1: "};
        for (size_t i = 0; i < 3; i++) {
            const char *m = find(p, end, marks[i]);
            if (!m || (i == 2 && m > p && !isblank_(m[-1])))
                continue;
            const char *pe = trim_end(p, m);
            if (skel_match(p, (size_t)(pe - p), b->hdr_prefix, b->hdr_prefix + b->hdr_len)) {
                b->prefix_len = set_prefix(b->prefix, p, pe);
                b->prefix_known = 1;
                break;
            }
        }
        if (!b->prefix_known) {
            if (trim_end(p, end) == p)
                return TAKEN; /* a blank line before the first */
            return NOT_MINE;
        }
    }
    rest = skel_match(b->prefix, b->prefix_len, p, end);
    if (!rest)
        return NOT_MINE;
    int kind = ceph_kind(rest, end, &content);
    if (kind == C_OTHER)
        return ENDED;
    ceph_take(ct, b, kind, content, end);
    return kind == C_NOTE ? ENDED_TAKEN : TAKEN;
}

/* "*** Caught signal (Segmentation fault) **" in the line: starts a block. */
static int ceph_start(sat_crash_text *ct, const char *p, const char *end, const char *sigpos,
                      block **out)
{
    /* sigpos points at "signal" of "Caught signal (" */
    if (sigpos - p < 7 || memcmp(sigpos - 7, "Caught ", 7) != 0 ||
        !starts(sigpos, end, "signal ("))
        return 0;
    const char *c = sigpos - 7;
    const char *stars = c;
    while (stars > p && stars[-1] == ' ')
        stars--;
    int n = 0;
    while (stars > p && stars[-1] == '*') {
        stars--;
        n++;
    }
    if (n < 2)
        return 0;
    const char *name = sigpos + 8, *ne = name;
    while (ne < end && *ne != ')')
        ne++;
    block *b = new_block(ct, SAT_CRASH_TEXT_CEPH);
    if (!b)
        return -1;
    int s = sat_crash_signal_from_text(name, (size_t)(ne - name));
    b->signal = s ? s : SAT_ABSENT;
    b->hdr_len = set_prefix(b->hdr_prefix, p, stars);
    prefix_facts(ct, b, p, stars);
    *out = b;
    return 1;
}

/* ---- glibc ------------------------------------------------------------------------------------ */
/* The lines just before a run that announce it: a signal, "Backtrace:",
 * "Obtained N stack frames", glibc's "*** Error in `prog': ...". Lines
 * another block took are not looked at (they announced that one). */
static void glibc_hint(sat_crash_text *ct, block *b)
{
    sat_ts_ns hint_ts = 0;
    for (size_t k = 1; k <= RING; k++) {
        const ringline *r = &ct->ring[(ct->ring_next + RING - k) % RING];
        if (!r->line_no || r->line_no + HINT_LINES < ct->line_no || r->line_no >= ct->line_no ||
            r->line_no <= ct->last_taken)
            continue;
        const char *p = r->text, *end = r->text + r->len;
        int found = 0;
        const char *q;
        if ((q = find(p, end, "*** Error in `")) != NULL) {
            const char *prog = q + 14, *pe = prog;
            while (pe < end && *pe != '\'')
                pe++;
            if (pe < end && !b->exe.set)
                b->exe = keep(ct, b, prog, (size_t)(pe - prog));
            if (b->signal == SAT_ABSENT)
                b->signal = 6; /* glibc aborts after this message */
            b->glibc_abort = 1;
            found = 1;
        }
        for (q = p; b->signal == SAT_ABSENT && (q = find(q, end, "signal")) != NULL; q += 6) {
            const char *s = skip_blanks(q + 6, end);
            if (s < end && *s == ':')
                s = skip_blanks(s + 1, end);
            int32_t v;
            const char *e = dec_num(s, end, &v);
            if (e && v > 0 && v < 65 && (e == end || !isalnum_((unsigned char)*e))) {
                b->signal = v;
                found = 1;
            }
        }
        for (q = p; b->signal == SAT_ABSENT && (q = find(q, end, "SIG")) != NULL; q += 3) {
            int s = (q == p || !isalnum_((unsigned char)q[-1])) ? sig_word(q, end, NULL) : 0;
            if (s) {
                b->signal = s;
                found = 1;
            }
        }
        static const char *const descs[] = {"Segmentation fault", "Aborted", "Bus error",
                                            "Floating point exception",
                                            "Illegal instruction"};
        for (size_t i = 0; b->signal == SAT_ABSENT && i < sizeof descs / sizeof descs[0]; i++)
            if (find(p, end, descs[i])) {
                b->signal = sat_crash_signal_from_text(descs[i], strlen(descs[i]));
                found = 1;
            }
        if (find(p, end, "acktrace") || find(p, end, "stack frames"))
            found = 1;
        if (found) {
            b->hinted = 1;
            if (!hint_ts)
                hint_ts = ts_in(ct, p, end);
        }
    }
    if (!b->ts)
        b->ts = hint_ts;
}

/* A prefix ending in Ceph's frame number ("... 2:") is an assert block's
 * frame, not a glibc line. */
static int ends_in_frame_number(const char *p, const char *e)
{
    e = trim_end(p, e);
    if (e == p || e[-1] != ':')
        return 0;
    const char *d = e - 1;
    while (d > p && isdig(d[-1]))
        d--;
    return d < e - 1 && (d == p || isblank_(d[-1]));
}

static int glibc_line(sat_crash_text *ct, block *b, const char *p, const char *end)
{
    const char *rest = skel_match(b->prefix, b->prefix_len, p, end);
    if (!rest)
        return NOT_MINE;
    rest = skip_blanks(rest, end);
    fview f;
    if (!glibc_frame(rest, end, &f) || f.start != rest)
        return ENDED;
    add_frame(ct, b, &f);
    b->cont_lines++;
    return TAKEN;
}

static int glibc_start(sat_crash_text *ct, const char *p, const char *end)
{
    fview f;
    if (!glibc_frame(p, end, &f) || f.bare_pc || ends_in_frame_number(p, f.start))
        return 0;
    block *b = new_block(ct, SAT_CRASH_TEXT_GLIBC);
    if (!b)
        return -1;
    b->prefix_len = set_prefix(b->prefix, p, f.start);
    b->prefix_known = 1;
    memcpy(b->hdr_prefix, b->prefix, b->prefix_len);
    b->hdr_len = b->prefix_len;
    prefix_facts(ct, b, p, f.start);
    glibc_hint(ct, b);
    add_frame(ct, b, &f);
    return 1;
}

/* ---- gdb ---------------------------------------------------------------------------------------- */
enum {
    G_OTHER = 0, G_NEUTRAL, G_FRAME, G_THREAD_HDR, G_INFO_ROW, G_SIGNAL, G_THREAD_SIGNAL,
    G_CORE, G_CURRENT, G_SWITCH, G_STOPPED, G_READING
};

static uint64_t hash_line(const char *p, const char *end)
{
    return sat_hash_bytes(p, (size_t)(trim_end(p, end) - p), 0);
}

/* "Thread 3 (Thread 0x7f.. (LWP 1236) "name"):" / "Thread 1 (LWP 1234):" /
 * "Thread 1 (process 1234):" */
static int thread_header(const char *p, const char *end, int32_t *num, int32_t *lwp)
{
    if (!starts(p, end, "Thread "))
        return 0;
    const char *q = dec_num(p + 7, end, num);
    if (!q || !starts(q, end, " ("))
        return 0;
    end = trim_end(q, end);
    if (end - q < 3 || end[-1] != ':' || end[-2] != ')')
        return 0;
    const char *l = find(q, end, "(LWP ");
    const char *pr = find(q, end, "(process ");
    *lwp = 0;
    if (l)
        dec_num(l + 5, end, lwp);
    else if (pr)
        dec_num(pr + 9, end, lwp);
    else if (!find(q, end, "(Thread 0x"))
        return 0;
    return 1;
}

/* "* 6    Thread 0x7f.. (LWP 23470) "worker-5" frame..." / "  2    LWP 1235 ..." */
static int info_row(const char *p, const char *end, int32_t *num, int32_t *lwp, int *current)
{
    const char *q = skip_blanks(p, end);
    *current = 0;
    if (q < end && *q == '*') {
        *current = 1;
        q = skip_blanks(q + 1, end);
    }
    q = dec_num(q, end, num);
    if (!q || q >= end || !isblank_(*q))
        return 0;
    q = skip_blanks(q, end);
    if (!starts(q, end, "Thread ") && !starts(q, end, "LWP ") && !starts(q, end, "process "))
        return 0;
    *lwp = 0;
    const char *l = find(q, end, "(LWP ");
    if (l)
        dec_num(l + 5, end, lwp);
    else if (starts(q, end, "LWP "))
        dec_num(q + 4, end, lwp);
    else if (starts(q, end, "process "))
        dec_num(q + 8, end, lwp);
    return 1;
}

/* "Program received signal SIGSEGV, ..." / "Program terminated with signal SIGABRT, ..." */
static int program_signal(const char *p, const char *end)
{
    const char *q = NULL;
    if (starts(p, end, "Program received signal "))
        q = p + 24;
    else if (starts(p, end, "Program terminated with signal "))
        q = p + 31;
    if (!q)
        return 0;
    int s = sig_word(q, end, NULL);
    return s ? s : -1;
}

/* Thread 6 "worker-5" received signal SIGABRT, Aborted. */
static int thread_signal(const char *p, const char *end, int32_t *num)
{
    if (!starts(p, end, "Thread "))
        return 0;
    const char *q = dec_num(p + 7, end, num);
    if (!q)
        return 0;
    const char *r = find(q, end, " received signal ");
    if (!r)
        return 0;
    int s = sig_word(r + 17, end, NULL);
    return s ? s : -1;
}

static int gdb_kind(const char *p, const char *end, int have_frames, int after_signal)
{
    const char *q = skip_blanks(p, end);
    if (q >= end || trim_end(q, end) == q)
        return G_NEUTRAL;
    int32_t a, b;
    int c;
    fview f;
    if (*q == '#' && gdb_frame(q, end, &f))
        return G_FRAME;
    if (thread_header(q, end, &a, &b))
        return G_THREAD_HDR;
    if (program_signal(q, end))
        return G_SIGNAL;
    if (thread_signal(q, end, &a))
        return G_THREAD_SIGNAL;
    if (starts(q, end, "Core was generated by `"))
        return G_CORE;
    if (starts(q, end, "[Current thread is "))
        return G_CURRENT;
    if (starts(q, end, "[Switching to Thread "))
        return G_SWITCH;
    if (starts(q, end, "Backtrace stopped:"))
        return G_STOPPED;
    if (starts(q, end, "Reading symbols from "))
        return G_READING;
    if (info_row(q, end, &a, &b, &c))
        return G_INFO_ROW;
    static const char *const neutral[] = {
        "(gdb)", "[New Thread ", "[New LWP ", "[Thread debugging using", "Using host libthread_db",
        "[Inferior ", "Starting program: ", "Continuing.", "No locals.",
        "No symbol table info available.", "(More stack frames follow...)", "Id   Target Id",
        "[Thread 0x", "[Detaching after", "Download failed", "Downloading ", "warning: ",
        "Missing separate debuginfo", "Try: ", "[Switching to thread ", "Quit anyway?",
        "A debugging session is active.", "Inferior 1 "};
    for (size_t i = 0; i < sizeof neutral / sizeof neutral[0]; i++)
        if (starts(q, end, neutral[i]))
            return G_NEUTRAL;
    if (after_signal && !have_frames) {
        /* the stop location under "Program received signal": a frame
         * without its "#0" */
        fview_init(&f);
        if (gdb_frame_body(q, end, &f) && !f.cut &&
            (f.pc != SAT_ABSENT || f.file || f.module))
            return G_NEUTRAL;
    }
    int32_t n;
    const char *d = dec_num(q, end, &n);
    if (d && d < end && *d == '\t')
        return G_NEUTRAL; /* the source line gdb prints under frame #0 */
    if (q > p && have_frames)
        return G_NEUTRAL; /* "bt full" locals, indented */
    return G_OTHER;
}

/* Takes a gdb line of kind k (content at q). Returns TAKEN or ENDED (the
 * line starts another crash or is not gdb's). */
static int gdb_take(sat_crash_text *ct, block *b, int k, const char *q, const char *end)
{
    q = skip_blanks(q, end);
    end = trim_end(q, end);
    int32_t num, lwp;
    int cur;
    fview f;
    switch (k) {
    case G_FRAME: {
        gdb_frame(q, end, &f);
        int32_t depth = 0;
        dec_num(q + 1, end, &depth);
        if (depth == 0) {
            size_t have = thread_frames(b, b->cur_thread);
            uint64_t h = hash_line(q, end);
            if (have) {
                /* the same stack again (the stop location, then "bt"): the
                 * newer print replaces it; another stack after a whole one
                 * in the same thread is another crash */
                if (b->cur_thread == 0 && have > 1 && h != b->frame0_hash &&
                    (b->had_signal_line || b->had_core_line))
                    return ENDED;
                drop_thread_frames(b, b->cur_thread);
            }
            if (b->cur_thread == 0)
                b->frame0_hash = h;
            b->cur_depth = 0;
        }
        add_frame(ct, b, &f);
        break;
    }
    case G_THREAD_HDR:
        thread_header(q, end, &num, &lwp);
        see_thread(ct, b, num, lwp);
        if (thread_frames(b, num))
            drop_thread_frames(b, num); /* "thread apply all bt" again */
        b->cur_thread = num;
        b->cur_depth = 0;
        break;
    case G_INFO_ROW:
        info_row(q, end, &num, &lwp, &cur);
        see_thread(ct, b, num, lwp);
        if (cur) {
            b->crash_thread = num;
            if (lwp)
                b->crash_lwp = lwp;
        }
        break;
    case G_SIGNAL:
    case G_THREAD_SIGNAL: {
        if (b->had_signal_line && b->nfr)
            return ENDED;
        int s = k == G_SIGNAL ? program_signal(q, end) : thread_signal(q, end, &num);
        if (s > 0)
            b->signal = s;
        if (k == G_THREAD_SIGNAL)
            b->crash_thread = num;
        b->had_signal_line = 1;
        break;
    }
    case G_CORE: {
        if (b->had_core_line || (b->had_signal_line && b->nfr))
            return ENDED;
        const char *c = q + 23, *ce = end;
        while (ce > c && ce[-1] != '\'')
            ce--;
        if (ce > c)
            ce--; /* at the closing quote */
        else
            ce = end;
        b->command = keep(ct, b, c, (size_t)(ce - c));
        const char *w = c;
        while (w < ce && !isblank_(*w))
            w++;
        b->exe = keep(ct, b, c, (size_t)(w - c));
        b->had_core_line = 1;
        break;
    }
    case G_CURRENT: {
        const char *e = dec_num(q + 19, end, &num);
        if (e) {
            b->crash_thread = num;
            const char *l = find(e, end, "(LWP ");
            if (l && dec_num(l + 5, end, &lwp))
                b->crash_lwp = lwp;
        }
        break;
    }
    case G_SWITCH: {
        const char *l = find(q, end, "(LWP ");
        if (l && b->had_signal_line && dec_num(l + 5, end, &lwp))
            b->crash_lwp = lwp;
        break;
    }
    case G_STOPPED:
        if (!b->unwind_cut_thread)
            b->unwind_cut_thread = b->cur_thread + 1;
        break;
    case G_READING:
        if (!b->exe.set) {
            const char *s = q + 21, *e = end;
            while (e > s && e[-1] == '.')
                e--;
            b->exe = keep(ct, b, s, (size_t)(e - s));
        }
        break;
    default:
        break;
    }
    if (k != G_NEUTRAL)
        b->cont_lines++;
    return TAKEN;
}

static int gdb_line(sat_crash_text *ct, block *b, const char *p, const char *end)
{
    const char *rest = skel_match(b->prefix, b->prefix_len, p, end);
    if (!rest)
        return NOT_MINE;
    int k = gdb_kind(rest, end, b->nfr > 0, b->had_signal_line);
    if (k == G_OTHER)
        return ENDED;
    return gdb_take(ct, b, k, rest, end);
}

/* Where gdb output starts in a line that no block took: the position of a
 * "#0" frame, a "Program ... signal" / "Thread N ... received signal" line,
 * "Core was generated by", or a "thread apply all bt" header; NULL if none. */
static const char *gdb_marker(const char *p, const char *end, const char *sigpos)
{
    fview f;
    for (const char *h = p; (h = memchr(h, '#', (size_t)(end - h))) != NULL; h++) {
        if ((h == p || isblank_(h[-1]) || h[-1] == ':') && h + 2 < end && h[1] == '0' &&
            isblank_(h[2]) && gdb_frame(h, end, &f) && !f.cut)
            return h;
        if (h + 1 >= end)
            break;
    }
    if (sigpos) {
        const char *g = find(p, end, "Program ");
        if (g && program_signal(g, end))
            return g;
        int32_t n;
        for (g = p; (g = find(g, end, "Thread ")) != NULL; g += 7)
            if (thread_signal(g, end, &n))
                return g;
    }
    const char *c = find(p, end, "Core was generated by `");
    if (c)
        return c;
    int32_t n, l;
    for (const char *t = p; (t = find(t, end, "Thread ")) != NULL; t += 7)
        if ((t == p || isblank_(t[-1]) || t[-1] == ':') && thread_header(t, end, &n, &l))
            return t;
    return NULL;
}

static int gdb_start(sat_crash_text *ct, const char *p, const char *end, const char *m)
{
    block *b = new_block(ct, SAT_CRASH_TEXT_GDB);
    if (!b)
        return -1;
    b->prefix_len = set_prefix(b->prefix, p, m);
    b->prefix_known = 1;
    memcpy(b->hdr_prefix, b->prefix, b->prefix_len);
    b->hdr_len = b->prefix_len;
    prefix_facts(ct, b, p, m);
    int k = gdb_kind(m, end, 0, 0);
    if (k != G_OTHER && k != G_NEUTRAL)
        gdb_take(ct, b, k, m, end);
    return 1;
}

/* ---- the scanner ---------------------------------------------------------------------------------- */
sat_crash_text *sat_crash_text_create(const sat_crash_text_opts *opts,
                                      const sat_event_sink *sink)
{
    if (!sink)
        return NULL;
    sat_crash_text *ct = calloc(1, sizeof *ct);
    if (!ct)
        return NULL;
    if (opts)
        ct->opts = *opts;
    if (!ct->opts.max_frames)
        ct->opts.max_frames = FRAMES_DEFAULT;
    ct->sink = sink;
    ct->year = ct->opts.default_year; /* 0: from the first syslog line */
    for (int i = 0; i < SAT_CRASH_TEXT_BLOCKS; i++)
        block_clear(&ct->blocks[i]);
    return ct;
}

/* The open blocks in the order a line is offered to them: the longest
 * prefix first, so that a stream's own block takes its lines before a block
 * whose prefix is empty (which matches every line). */
static size_t offer_order(sat_crash_text *ct, block **order)
{
    size_t n = 0;
    for (int i = 0; i < SAT_CRASH_TEXT_BLOCKS; i++)
        if (ct->blocks[i].origin)
            order[n++] = &ct->blocks[i];
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0; j--) {
            size_t a = order[j - 1]->prefix_known ? order[j - 1]->prefix_len : order[j - 1]->hdr_len;
            size_t c = order[j]->prefix_known ? order[j]->prefix_len : order[j]->hdr_len;
            if (c > a || (c == a && order[j]->first_line > order[j - 1]->first_line)) {
                block *t = order[j];
                order[j] = order[j - 1];
                order[j - 1] = t;
            }
        }
    return n;
}

static int offer(sat_crash_text *ct, const char *p, const char *end, int *taken)
{
    block *order[SAT_CRASH_TEXT_BLOCKS];
    size_t n = offer_order(ct, order);
    *taken = 0;
    for (size_t i = 0; i < n; i++) {
        block *b = order[i];
        int r;
        if (b->origin == SAT_CRASH_TEXT_CEPH)
            r = ceph_line(ct, b, p, end);
        else if (b->origin == SAT_CRASH_TEXT_GLIBC)
            r = glibc_line(ct, b, p, end);
        else
            r = gdb_line(ct, b, p, end);
        if (r == NOT_MINE)
            continue;
        b->last_line = ct->line_no;
        if (r == TAKEN || r == ENDED_TAKEN)
            ct->last_taken = ct->line_no;
        if (r == TAKEN) {
            *taken = 1;
            return SAT_OK;
        }
        *taken = r == ENDED_TAKEN;
        return emit_block(ct, b);
    }
    return SAT_OK;
}

static int start(sat_crash_text *ct, const char *p, const char *end)
{
    block *b;
    const char *sig = find(p, end, "signal");
    int r = 0;
    for (const char *s = sig; s && !r; s = find(s + 6, end, "signal"))
        r = ceph_start(ct, p, end, s, &b);
    if (!r) {
        const char *m = gdb_marker(p, end, sig);
        r = m ? gdb_start(ct, p, end, m) : glibc_start(ct, p, end);
    }
    if (r < 0)
        return ct->err;
    if (r > 0)
        ct->last_taken = ct->line_no; /* the block's first line */
    return SAT_OK;
}

/* ---- the kernel's and systemd-coredump's one-line notices of a crash --------------
 * A fault the process did not handle makes the kernel log one line
 * (show_unhandled_signals, dmesg / the journal / syslog's kern.log):
 *     "COMM[PID]: segfault at ADDR ip IP sp SP error N in MODULE[OFF,BASE+SIZE]"
 *     "traps: COMM[PID] general protection fault ip:IP sp:SP error:N in MODULE[...]"
 *     "traps: COMM[PID] trap invalid opcode ip:..." / "trap divide error ip:..."
 * and systemd-coredump one per core it writes:
 *     "Process PID (COMM) of user UID dumped core."
 * Each is a crash row of its own (origin SAT_CRASH_TEXT_KERNEL, one frame when
 * the kernel gives the module and the offset in it), with the line's time: the
 * crashes analyzer takes that time for the core of the same process, which
 * holds no clock. */
static int hexnum(const char *p, const char *end, uint64_t *v, const char **e)
{
    uint64_t x = 0;
    const char *q = p;
    if (q + 1 < end && q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
        q += 2;
    const char *s = q;
    for (; q < end && ishex(*q) && q - s < 16; q++)
        x = x * 16 + (uint64_t)hexval(*q);
    if (q == s)
        return 0;
    *v = x;
    *e = q;
    return 1;
}

/* "COMM[PID]" ending just before at: the command and pid */
static int comm_pid_before(const char *line, const char *at, const char **comm, size_t *clen,
                           int32_t *pid)
{
    const char *q = at;
    if (q <= line || q[-1] != ']')
        return 0;
    q--;
    const char *de = q;
    while (q > line && isdig(q[-1]))
        q--;
    if (q == de || q <= line || q[-1] != '[' || de - q > 9)
        return 0;
    int64_t v = 0;
    for (const char *d = q; d < de; d++)
        v = v * 10 + (*d - '0');
    const char *ce = q - 1, *cs = ce;
    while (cs > line && cs[-1] != ' ' && cs[-1] != '\t')
        cs--;
    if (cs == ce || v <= 0)
        return 0;
    *comm = cs;
    *clen = (size_t)(ce - cs);
    *pid = (int32_t)v;
    return 1;
}

static int kernel_line(sat_crash_text *ct, const char *p, const char *end, int *taken)
{
    *taken = 0;
    const char *comm = NULL, *mod = NULL;
    size_t clen = 0, mlen = 0;
    int32_t pid = 0, signal = SAT_ABSENT;
    uint64_t addr = 0, ip = 0, off = 0;
    int have_addr = 0, have_ip = 0, have_off = 0;
    const char *m, *e;
    if ((m = find(p, end, ": segfault at ")) && comm_pid_before(p, m, &comm, &clen, &pid)) {
        signal = 11;
        have_addr = hexnum(m + 14, end, &addr, &e);
        const char *i = find(m, end, " ip ");
        have_ip = i && hexnum(i + 4, end, &ip, &e);
    } else if ((m = find(p, end, "traps: ")) && (e = find(m + 7, end, "] ")) &&
               comm_pid_before(p, e + 1, &comm, &clen, &pid)) {
        const char *what = e + 2;
        signal = find(what, end, "general protection") ? 11
                 : find(what, end, "invalid opcode")   ? 4
                 : find(what, end, "divide error")     ? 8
                 : find(what, end, "int3")             ? 5
                                                       : SAT_ABSENT;
        const char *i = find(what, end, " ip:");
        have_ip = i && hexnum(i + 4, end, &ip, &e);
        if (signal == SAT_ABSENT)
            return SAT_OK;
    } else if ((m = find(p, end, "Process ")) && find(m, end, " dumped core") &&
               (m == p || m[-1] == ' ')) {
        const char *q = m + 8;
        int64_t v = 0;
        while (q < end && isdig(*q) && v < 100000000)
            v = v * 10 + (*q++ - '0');
        if (v <= 0 || q + 2 >= end || q[0] != ' ' || q[1] != '(')
            return SAT_OK;
        const char *ce = memchr(q + 2, ')', (size_t)(end - q - 2));
        if (!ce || !find(ce, end, ") of user "))
            return SAT_OK;
        comm = q + 2;
        clen = (size_t)(ce - comm);
        pid = (int32_t)v;
    } else {
        return SAT_OK;
    }
    /* "in MODULE[OFF,BASE+SIZE]": the offset in the module (kernels since 6.1) */
    const char *in = find(m, end, " in ");
    if (in && (in += 4) < end) {
        const char *br = memchr(in, '[', (size_t)(end - in));
        if (br && br > in && !memchr(in, ' ', (size_t)(br - in))) {
            const char *comma = memchr(br, ',', (size_t)(end - br));
            const char *close = memchr(br, ']', (size_t)(end - br));
            if (comma && close && comma < close && hexnum(br + 1, comma, &off, &e) &&
                e == comma) {
                mod = in;
                mlen = (size_t)(br - in);
                have_off = 1;
            }
        }
    }
    *taken = 1;
    /* a backtrace of that process being read is the same crash, told better */
    for (int i = 0; i < SAT_CRASH_TEXT_BLOCKS; i++)
        if (ct->blocks[i].origin && ct->blocks[i].pid == pid)
            return SAT_OK;
    sat_ts_ns ts = ts_in(ct, p, end);
    if (ts && ((ct->opts.from_ns && ts < ct->opts.from_ns) ||
               (ct->opts.to_ns && ts >= ct->opts.to_ns))) {
        ct->stats.outside_window++;
        return SAT_OK;
    }
    uint32_t id = ++ct->next_crash;
    sat_frame f;
    memset(&f, 0, sizeof f);
    int rc = SAT_OK;
    if (have_off) {
        f.source = ct->opts.source;
        f.crash = id;
        f.pc = have_ip ? (int64_t)ip : SAT_ABSENT;
        f.module = sat_str_make(mod, mlen);
        f.build_id = SAT_STR_NONE;
        f.offset = (int64_t)off;
        f.function = SAT_STR_NONE;
        f.fn_offset = SAT_ABSENT;
        f.file = SAT_STR_NONE;
        f.line = SAT_ABSENT;
        rc = sat_sink_emit(ct->sink, SAT_TABLE_FRAME, &f);
        ct->stats.frames++;
        if (rc < 0)
            return rc;
    }
    sat_crash_keys keys;
    sat_crash_keys_of(have_off ? &f : NULL, have_off ? 1 : 0, SAT_STR_NONE, &keys);
    sat_crash c;
    memset(&c, 0, sizeof c);
    c.ts = ts;
    c.time_source = ts > 0 ? SAT_CRASH_TIME_LOG : SAT_CRASH_TIME_UNKNOWN;
    c.source = ct->opts.source;
    c.crash = id;
    c.host = SAT_STR_NONE;
    c.pid = pid;
    c.uid = SAT_ABSENT;
    c.exe = SAT_STR_NONE;
    c.command = sat_str_make(comm, clen);
    c.build_id = SAT_STR_NONE;
    c.signal = signal;
    c.si_code = SAT_ABSENT;
    c.fault_addr = have_addr ? (int64_t)addr : SAT_ABSENT;
    c.orig_signal = SAT_ABSENT;
    c.orig_fault_addr = SAT_ABSENT;
    c.threads = 1;
    c.crashing_tid = SAT_ABSENT;
    c.origin = SAT_CRASH_TEXT_KERNEL;
    c.arch = SAT_ARCH_UNKNOWN;
    c.flags = have_off ? 0 : SAT_CRASHF_TRUNCATED;
    c.fingerprint = sat_str_cstr(keys.fingerprint);
    c.signature = sat_str_cstr(keys.text);
    c.build_key = sat_str_cstr(keys.build_key);
    c.missing = sat_str_cstr(have_off ? "the other frames (a kernel log line holds one)"
                                      : "frames (a log line about the crash, not a backtrace)");
    rc = sat_sink_emit(ct->sink, SAT_TABLE_CRASH, &c);
    ct->stats.crashes++;
    ct->stats.by_origin[SAT_CRASH_TEXT_KERNEL]++;
    return rc;
}

int sat_crash_text_line(sat_crash_text *ct, const char *line, size_t len, uint64_t line_no)
{
    if (!ct || ct->finished)
        return SAT_E_USAGE;
    if (len > SAT_CRASH_TEXT_LINE_MAX) {
        len = SAT_CRASH_TEXT_LINE_MAX;
        ct->stats.lines_cut++;
    }
    const char *p = line, *end = trim_end(line, line + len);
    ct->line_no = line_no;
    int taken, rc = offer(ct, p, end, &taken);
    if (rc >= 0 && !taken)
        rc = kernel_line(ct, p, end, &taken);
    if (rc >= 0 && !taken)
        rc = start(ct, p, end);
    /* blocks whose stream went quiet */
    for (int i = 0; rc >= 0 && i < SAT_CRASH_TEXT_BLOCKS; i++) {
        block *b = &ct->blocks[i];
        if (b->origin && b->last_line + SAT_CRASH_TEXT_STALE < line_no)
            rc = emit_block(ct, b);
    }
    ringline *r = &ct->ring[ct->ring_next];
    r->line_no = line_no;
    r->len = (size_t)(end - p) < RING_LINE ? (size_t)(end - p) : RING_LINE;
    memcpy(r->text, p, r->len);
    ct->ring_next = (ct->ring_next + 1) % RING;
    if (rc >= 0 && ct->nomem)
        rc = SAT_E_NOMEM;
    return rc;
}

int sat_crash_text_finish(sat_crash_text *ct)
{
    if (!ct || ct->finished)
        return SAT_OK;
    ct->finished = 1;
    int rc = SAT_OK;
    /* in the order they started, so crash numbers follow the text */
    for (;;) {
        block *first = NULL;
        for (int i = 0; i < SAT_CRASH_TEXT_BLOCKS; i++)
            if (ct->blocks[i].origin && (!first || ct->blocks[i].first_line < first->first_line))
                first = &ct->blocks[i];
        if (!first)
            break;
        int r = emit_block(ct, first);
        if (r < 0 && rc >= 0)
            rc = r;
    }
    return rc;
}

void sat_crash_text_get_stats(const sat_crash_text *ct, sat_crash_text_stats *out)
{
    if (ct && out)
        *out = ct->stats;
}

void sat_crash_text_free(sat_crash_text *ct)
{
    if (!ct)
        return;
    for (int i = 0; i < SAT_CRASH_TEXT_BLOCKS; i++) {
        free(ct->blocks[i].sbuf);
        free(ct->blocks[i].fr);
        free(ct->blocks[i].th);
    }
    free(ct->scratch);
    free(ct);
}
