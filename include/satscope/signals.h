/*
 * signals.h - Linux signal numbers, names and si_code names (signal(7),
 * sigaction(2) "The siginfo_t argument"), header-only so that every stage
 * (crash text parsing, the crashes analyzer, reports) shares one table
 * without a link dependency. Numbers are Linux's for x86_64, aarch64 and i386
 * (they agree for every signal below).
 */
#ifndef SATSCOPE_SIGNALS_H
#define SATSCOPE_SIGNALS_H

#include <string.h>

typedef struct sat_signal_def {
    int num;
    const char *name;  /* "SIGSEGV" */
    const char *desc;  /* strsignal()'s text in glibc: "Segmentation fault" */
} sat_signal_def;

static const sat_signal_def sat_signal_defs[] = {
    {1, "SIGHUP", "Hangup"},           {2, "SIGINT", "Interrupt"},
    {3, "SIGQUIT", "Quit"},            {4, "SIGILL", "Illegal instruction"},
    {5, "SIGTRAP", "Trace/breakpoint trap"}, {6, "SIGABRT", "Aborted"},
    {7, "SIGBUS", "Bus error"},        {8, "SIGFPE", "Floating point exception"},
    {9, "SIGKILL", "Killed"},          {10, "SIGUSR1", "User defined signal 1"},
    {11, "SIGSEGV", "Segmentation fault"}, {12, "SIGUSR2", "User defined signal 2"},
    {13, "SIGPIPE", "Broken pipe"},    {14, "SIGALRM", "Alarm clock"},
    {15, "SIGTERM", "Terminated"},     {16, "SIGSTKFLT", "Stack fault"},
    {17, "SIGCHLD", "Child exited"},   {18, "SIGCONT", "Continued"},
    {19, "SIGSTOP", "Stopped (signal)"}, {20, "SIGTSTP", "Stopped"},
    {21, "SIGTTIN", "Stopped (tty input)"}, {22, "SIGTTOU", "Stopped (tty output)"},
    {23, "SIGURG", "Urgent I/O condition"}, {24, "SIGXCPU", "CPU time limit exceeded"},
    {25, "SIGXFSZ", "File size limit exceeded"}, {26, "SIGVTALRM", "Virtual timer expired"},
    {27, "SIGPROF", "Profiling timer expired"}, {28, "SIGWINCH", "Window changed"},
    {29, "SIGIO", "I/O possible"},     {30, "SIGPWR", "Power failure"},
    {31, "SIGSYS", "Bad system call"},
};

/* "SIGSEGV", or NULL if unknown */
static inline const char *sat_signal_name(int num)
{
    for (size_t i = 0; i < sizeof sat_signal_defs / sizeof sat_signal_defs[0]; i++)
        if (sat_signal_defs[i].num == num)
            return sat_signal_defs[i].name;
    return NULL;
}

/* "Segmentation fault", or NULL if unknown */
static inline const char *sat_signal_desc(int num)
{
    for (size_t i = 0; i < sizeof sat_signal_defs / sizeof sat_signal_defs[0]; i++)
        if (sat_signal_defs[i].num == num)
            return sat_signal_defs[i].desc;
    return NULL;
}

/* The number of "SIGSEGV", "SEGV", "Segmentation fault" (case-insensitive
 * for the description), n bytes of s; -1 if none. */
static inline int sat_signal_by_name(const char *s, size_t n)
{
    if (n > 3 && memcmp(s, "SIG", 3) == 0) {
        s += 3;
        n -= 3;
    }
    for (size_t i = 0; i < sizeof sat_signal_defs / sizeof sat_signal_defs[0]; i++) {
        const sat_signal_def *d = &sat_signal_defs[i];
        if (strlen(d->name + 3) == n && memcmp(d->name + 3, s, n) == 0)
            return d->num;
        size_t dl = strlen(d->desc);
        if (dl == n) {
            size_t k = 0;
            for (; k < n; k++) {
                char a = s[k], b = d->desc[k];
                if (a >= 'A' && a <= 'Z')
                    a = (char)(a - 'A' + 'a');
                if (b >= 'A' && b <= 'Z')
                    b = (char)(b - 'A' + 'a');
                if (a != b)
                    break;
            }
            if (k == n)
                return d->num;
        }
    }
    return -1;
}

/* si_code's name for this signal ("SEGV_MAPERR", "SI_USER"), or NULL. */
static inline const char *sat_si_code_name(int sig, int code)
{
    switch (code) { /* the codes any signal can carry */
    case 0: return "SI_USER";
    case 0x80: return "SI_KERNEL";
    case -1: return "SI_QUEUE";
    case -2: return "SI_TIMER";
    case -3: return "SI_MESGQ";
    case -4: return "SI_ASYNCIO";
    case -5: return "SI_SIGIO";
    case -6: return "SI_TKILL";
    default: break;
    }
    static const char *const segv[] = {"SEGV_MAPERR", "SEGV_ACCERR", "SEGV_BNDERR",
                                       "SEGV_PKUERR"};
    static const char *const bus[] = {"BUS_ADRALN", "BUS_ADRERR", "BUS_OBJERR",
                                      "BUS_MCEERR_AR", "BUS_MCEERR_AO"};
    static const char *const fpe[] = {"FPE_INTDIV", "FPE_INTOVF", "FPE_FLTDIV", "FPE_FLTOVF",
                                      "FPE_FLTUND", "FPE_FLTRES", "FPE_FLTINV", "FPE_FLTSUB"};
    static const char *const ill[] = {"ILL_ILLOPC", "ILL_ILLOPN", "ILL_ILLADR", "ILL_ILLTRP",
                                      "ILL_PRVOPC", "ILL_PRVREG", "ILL_COPROC", "ILL_BADSTK"};
    static const char *const trap[] = {"TRAP_BRKPT", "TRAP_TRACE", "TRAP_BRANCH", "TRAP_HWBKPT"};
#define SAT_SIC(tab) (code >= 1 && (size_t)code <= sizeof tab / sizeof tab[0] ? tab[code - 1] : NULL)
    switch (sig) {
    case 11: return SAT_SIC(segv);
    case 7: return SAT_SIC(bus);
    case 8: return SAT_SIC(fpe);
    case 4: return SAT_SIC(ill);
    case 5: return SAT_SIC(trap);
    default: return NULL;
    }
#undef SAT_SIC
}

/* Signals whose si_addr is a fault address (sigaction(2)). */
static inline int sat_signal_has_fault_addr(int sig)
{
    return sig == 11 || sig == 7 || sig == 4 || sig == 8;
}

#endif /* SATSCOPE_SIGNALS_H */
