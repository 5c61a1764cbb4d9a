/*
 * satscope.c - the command line's entry point: finds the command in the
 * table of cli.h and runs it. Only cli/ decides to exit.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

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
            "Every command has --help. Inputs may be logs (plain, .gz, .bz2,\n"
            ".xz, .zst, '-' for stdin; kinds detected by content) or .sat traces.\n"
            "exit codes: 0 ok, 1 some input was rejected (the rest analysed),\n"
            "            2 usage error, 3 an input could not be read at all\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_help(stderr);
        return SAT_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        print_help(stdout);
        return SAT_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("satscope 0.1.0\n");
        return SAT_EXIT_OK;
    }
    for (const sat_command *const *c = sat_commands; *c; c++)
        if (!strcmp((*c)->name, argv[1]))
            return (*c)->run(argc - 1, argv + 1);
    fprintf(stderr, "satscope: unknown command '%s' (see satscope --help)\n", argv[1]);
    return SAT_EXIT_USAGE;
}
