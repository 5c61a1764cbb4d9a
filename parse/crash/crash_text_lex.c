/*
 * crash_text_lex.c - the small readers of the crash text scanner (crash_text.c):
 * hexadecimal and decimal numbers, a line's prefix matched against a block's
 * up to digits and blank runs, and signal names and descriptions as Linux
 * spells them (signal(7), glibc's strsignal()).
 */
#include "crash_text_int.h"

/* Hex digits (after an optional "0x"), at most 16: the end, or NULL. */
const char *sat_ct_hex_num(const char *p, const char *end, int need_0x, int64_t *v)
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
const char *sat_ct_dec_num(const char *p, const char *end, int32_t *v)
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
const char *sat_ct_skel_match(const char *pre, size_t plen, const char *p, const char *end)
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

size_t sat_ct_set_prefix(char *dst, const char *p, const char *e)
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
int sat_ct_sig_word(const char *p, const char *end, const char **e)
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
