/*
 * satscope.c - the command line's entry point: finds the command in the
 * table of cli.h and runs it. Only cli/ decides to exit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#ifndef SAT_VERSION
#define SAT_VERSION "0.1.0"
#endif

static void print_help(FILE *out)
{
    fprintf(out,
            "usage: satscope COMMAND [ARGS...]\n"
            "\n"
            "Post-mortems, digests and cache sizing for directory servers\n"
            "(389 DS, Red Hat/Sun/Oracle DS, OpenLDAP) from their access logs.\n"
            "\n"
            "commands:\n");
    for (const sat_command *const *c = sat_commands; *c; c++)
        fprintf(out, "  %-10s %s\n", (*c)->name, (*c)->summary);
    fprintf(out,
            "\n"
            "satscope help COMMAND (= satscope COMMAND --help) tells more; every\n"
            "command has --help and --version. Inputs may be logs (plain, .gz, .bz2,\n"
            ".xz, .zst, '-' for stdin; kinds detected by content) or .sat traces.\n"
            "exit codes: 0 ok, 1 some input was rejected (the rest analysed),\n"
            "            2 usage error, 3 an input could not be read at all, or\n"
            "            satscope could not finish (out of memory, an output not\n"
            "            written): nothing is then printed or published\n");
}

/* glibc's malloc, as tuned here: the heap grows in 32 MiB steps backed by
 * transparent huge pages (THP "madvise" mode, Debian's default), big
 * blocks come from the heap instead of fresh mmaps, and the threads share
 * that heap (they allocate little once running). Why: the analyzers' hash
 * tables, the input buffers and the thread hand-over batches otherwise take
 * a page fault per 4 KiB first touched, and under a hypervisor a fault costs
 * microseconds: on the 50 MB benchmark slice 3,000 faults were a fifth of
 * the run (0.140 s -> 0.115 s, 3,000 -> 400 faults; bench/RESULTS.md).
 * The tunables are read only at start-up, hence one re-exec, before any input
 * is touched. An environment that sets GLIBC_TUNABLES itself is left alone;
 * SAT_MALLOC_TUNE=0 turns this off. Not glibc, no /proc: nothing happens. */
static void tune_malloc(char **argv)
{
#ifdef __GLIBC__
    const char *off = getenv("SAT_MALLOC_TUNE");
    if (getenv("GLIBC_TUNABLES") || (off && !strcmp(off, "0")))
        return;
    if (setenv("GLIBC_TUNABLES",
               "glibc.malloc.hugetlb=1:glibc.malloc.top_pad=33554432:"
               "glibc.malloc.mmap_threshold=1073741824:glibc.malloc.arena_max=1", 1) != 0)
        return;
    /* the real path, not /proc/self/exe: the process keeps its name in ps */
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        execv(self, argv);
    }
    unsetenv("GLIBC_TUNABLES"); /* no exec: go on as we are */
#else
    (void)argv;
#endif
}

int main(int argc, char **argv)
{
    tune_malloc(argv);
    if (argc < 2) {
        fprintf(stderr, "usage: satscope COMMAND [ARGS...] (see satscope --help)\n");
        return SAT_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h") || (!strcmp(name, "help") && argc == 2)) {
        print_help(stdout);
        return sat_cli_finish_stdout(NULL, SAT_EXIT_OK);
    }
    if (!strcmp(name, "--version")) {
        printf("satscope %s\n", SAT_VERSION);
        return sat_cli_finish_stdout(NULL, SAT_EXIT_OK);
    }
    /* hidden: what the build installs, made from the commands' option tables */
    if (!strcmp(name, "--man")) {
        sat_cli_print_man(stdout);
        return sat_cli_finish_stdout(NULL, SAT_EXIT_OK);
    }
    if (!strcmp(name, "--completion")) {
        sat_cli_print_completion(stdout);
        return sat_cli_finish_stdout(NULL, SAT_EXIT_OK);
    }
    int help = !strcmp(name, "help"); /* `satscope help CMD` = `satscope CMD --help` */
    if (help) {
        if (argc > 3) {
            fprintf(stderr, "satscope help: one command at most (see satscope --help)\n");
            return SAT_EXIT_USAGE;
        }
        name = argv[2];
    }
    for (const sat_command *const *c = sat_commands; *c; c++)
        if (!strcmp((*c)->name, name)) {
            if (help) {
                sat_cli_print_help(*c, stdout);
                return sat_cli_finish_stdout("help", SAT_EXIT_OK);
            }
            /* whatever the command wrote, a write error is never exit 0 */
            return sat_cli_finish_stdout((*c)->name, (*c)->run(argc - 1, argv + 1));
        }
    fprintf(stderr, "satscope: unknown command '%s' (see satscope --help)\n", name);
    return SAT_EXIT_USAGE;
}
