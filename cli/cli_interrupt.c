/*
 * cli_interrupt.c - SIGINT and SIGTERM during a collection (cli.h).
 *
 * Library code installs no handler and never exits: the first signal only
 * sets a flag (sig_atomic_t) that the collection checks between lines,
 * chunks and packets, and that makes a read blocked on a FIFO or a terminal
 * end as if the input ended (collect.h sat_input_set_interrupt). A
 * process-directed signal may land on any thread (a parser, the trace
 * compressor); the handler then passes it on to the thread that runs the
 * collection, so that its blocked read() returns EINTR (SA_RESTART is off).
 * A second signal of either kind ends the process at once (default action):
 * the way out of a collection that does not stop by itself.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "cli.h"

static volatile sig_atomic_t stop_sig;  /* the first signal's number */
static volatile sig_atomic_t forwarded; /* a signal passed on to the main thread */
static pthread_t main_thread;
static struct sigaction old_int, old_term;
static int installed, have_int, have_term;

static void on_signal(int sig)
{
    int saved = errno;
    if (!pthread_equal(pthread_self(), main_thread)) {
        if (!stop_sig) {
            stop_sig = sig;
            forwarded = 1;
            pthread_kill(main_thread, sig); /* async-signal-safe (POSIX.1-2008) */
            errno = saved;
            return;
        }
    } else if (forwarded) {
        forwarded = 0; /* the first signal, passed on: its EINTR is all it is for */
        errno = saved;
        return;
    } else if (!stop_sig) {
        stop_sig = sig;
        errno = saved;
        return;
    }
    /* a second signal: the default action, now */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);
    errno = saved;
}

const volatile sig_atomic_t *sat_cli_interrupt_install(void)
{
    stop_sig = 0;
    forwarded = 0;
    main_thread = pthread_self();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: a blocked read returns EINTR */
    /* A signal the parent ignores stays ignored (nohup, a background job of
     * a shell without job control), as the default action would have it. */
    have_int = sigaction(SIGINT, NULL, &old_int) == 0 && old_int.sa_handler != SIG_IGN &&
               sigaction(SIGINT, &sa, NULL) == 0;
    have_term = sigaction(SIGTERM, NULL, &old_term) == 0 && old_term.sa_handler != SIG_IGN &&
                sigaction(SIGTERM, &sa, NULL) == 0;
    installed = 1;
    return &stop_sig;
}

void sat_cli_interrupt_restore(void)
{
    if (!installed)
        return;
    if (have_int)
        sigaction(SIGINT, &old_int, NULL);
    if (have_term)
        sigaction(SIGTERM, &old_term, NULL);
    installed = 0;
}

int sat_cli_interrupt_signal(void)
{
    return stop_sig;
}
