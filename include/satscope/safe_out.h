/*
 * safe_out.h - the one way satscope writes a file (base/safe_out.c): traces,
 * reports, charts, CSV tables.
 *
 * satscope runs as root on the servers whose logs it reads, often into
 * shared directories, and what it writes holds bind DNs, client addresses and
 * filter values. So every output
 *   - is written to a temporary file beside the target ("PATH.XXXXXX.partial",
 *     six random characters), created O_CREAT|O_EXCL|O_NOFOLLOW: a name
 *     planted there, a symlink included, is never opened;
 *   - replaces the target only when complete and on disk: flushed, fsync'd,
 *     renamed, the directory fsync'd. A write error (a full disk, EIO, a
 *     short write, a cairo surface's error passed on by the caller) leaves
 *     nothing under the final name, and the temporary file is removed;
 *   - refuses a target that exists and is not a regular file (a symlink, a
 *     FIFO that would block for ever, a device, a directory, a socket), and
 *     a target that is one of the run's inputs (sat_out_opts.inputs);
 *   - gets the run's mode (the caller's: cli/cli_output.c), never looser
 *     than the regular file it replaces, and always readable and writable by
 *     its owner.
 * "-" and "/dev/stdout" are standard output, written through: nothing is
 * renamed, and the caller's write errors are still errors.
 *
 * Ownership: a handle from sat_out_open is the caller's until
 * sat_out_commit or sat_out_discard, which free it (and its stream).
 */
#ifndef SATSCOPE_SAFE_OUT_H
#define SATSCOPE_SAFE_OUT_H

#include <stdio.h>
#include <sys/types.h>

#include "satscope/base.h"

/* A file read by the run, by identity (stat's st_dev, st_ino). */
typedef struct sat_file_id {
    dev_t dev;
    ino_t ino;
} sat_file_id;

typedef struct sat_out_opts {
    unsigned mode;              /* permission bits of a new file; 0: 0600 */
    const sat_file_id *inputs;  /* the run's input files: a target that is one is refused */
    size_t ninputs;
    const char *what;           /* in messages: "the trace", "the report" (NULL: "it") */
    const char *alt;            /* in a refusal, the other way: ", or to standard output
                                   with -o -" (NULL: none) */
} sat_out_opts;

typedef struct sat_out sat_out;

/* Opens path for writing as above. NULL with diag set (SAT_E_USAGE for a
 * target refused, SAT_E_IO, SAT_E_NOMEM). */
sat_out *sat_out_open(const char *path, const sat_out_opts *o, sat_diag *diag);
/* A stdio stream over it, made at the first call (NULL: out of memory). */
FILE *sat_out_stream(sat_out *o);
/* Its descriptor (the temporary file's, or 1). */
int sat_out_fd(const sat_out *o);
/* Whether it is standard output. */
int sat_out_is_stdout(const sat_out *o);
/* The temporary file's name (NULL for standard output): what a SIGKILL
 * leaves behind. */
const char *sat_out_partial(const sat_out *o);
/* The mode the file got (0 for standard output). */
unsigned sat_out_mode(const sat_out *o);
/* Whether the target is refused (a target sat_out_open would refuse), so a
 * command can say so before hours of analysis: SAT_OK or as sat_out_open. */
int sat_out_check(const char *path, const sat_out_opts *o, sat_diag *diag);
/* Flushes, checks every write, fsyncs and renames the temporary file onto
 * the target; frees o. SAT_OK, or SAT_E_IO with diag set (nothing is then
 * under the final name: the temporary file is removed). */
int sat_out_commit(sat_out *o, sat_diag *diag);
/* Drops what was written (the temporary file is removed); frees o. NULL ok. */
void sat_out_discard(sat_out *o);

#endif /* SATSCOPE_SAFE_OUT_H */
