/*
 * cmd_verify.c - `satscope verify TRACE.sat`: every block checksum and the
 * footer; exit 0 only if the trace is intact and complete.
 */
#include <getopt.h> /* optind */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "satscope/result_out.h"
#include "satscope/trace.h"

extern const sat_command sat_cmd_verify;

typedef struct verify_ctx {
    const char *path;
    unsigned long problems;
    sat_text *t; /* standard output, within 100 columns: a problem wraps */
} verify_ctx;

static void report_problem(void *vctx, const char *where, const char *msg)
{
    verify_ctx *v = vctx;
    v->problems++;
    /* The trace library names the file in `where` ("t.sat: block 3 ..."). */
    sat_text_line(v->t, "%s: %s", where && *where ? where : v->path, msg);
}

static int run_verify(int argc, char **argv)
{
    sat_cli_args a;
    sat_cli_args_init(&a, &sat_cmd_verify, NULL);
    while (sat_cli_args_next(&a, argc, argv) != -1)
        ;
    if (a.exit >= 0)
        return a.exit;
    if (optind >= argc)
        return sat_cli_usage_error("verify", "no trace given");
    int code = SAT_EXIT_OK;
    sat_text t;
    sat_text_init(&t, stdout, 0);
    for (int i = optind; i < argc; i++) {
        verify_ctx v = {argv[i], 0, &t};
        sat_diag diag;
        memset(&diag, 0, sizeof diag);
        int rc = sat_trace_verify(argv[i], report_problem, &v, &diag);
        if (rc == SAT_OK) {
            sat_text_line(&t, "%s: ok", argv[i]);
        } else if (rc == SAT_E_IO) {
            sat_cli_path_error("verify", argv[i], diag.where, diag.msg);
            code = SAT_EXIT_UNREADABLE;
        } else {
            if (v.problems == 0)
                sat_text_line(&t, "%s: %s", diag.where[0] ? diag.where : argv[i],
                              diag.msg[0] ? diag.msg : sat_strerror(rc));
            /* a partial trace with nothing else wrong is not damaged: its
             * writer stopped before the footer */
            sat_text_line(&t, "%s: %s", argv[i], rc == SAT_E_TRUNCATED ? "PARTIAL" : "DAMAGED");
            if (code == SAT_EXIT_OK)
                code = SAT_EXIT_REJECTS;
        }
    }
    return code;
}

const sat_command sat_cmd_verify = {
    "verify", "check a trace's checksums (exit 0 only if intact)", run_verify,
    "TRACE.sat...",
    "Checks every block checksum and the footer index of each trace.",
    NULL, 0,
    "exit: 0 every trace intact and complete, 1 damaged (DAMAGED) or partial\n"
    "      (PARTIAL: a collect that did not finish; its complete blocks read),\n"
    "      2 usage, 3 a file could not be read"};
