/*
 * trace_output.c - where and how the .sat writer creates its output
 * (trace/FORMAT.md: a trace exists under its final name only when complete).
 *
 * Output safety (the trace holds DNs, client addresses and filter values):
 * the temporary file is created in PATH's directory under an unpredictable
 * name with O_CREAT|O_EXCL|O_NOFOLLOW (a planted file or symlink is never
 * opened, let alone followed), with the caller's mode, never looser than a
 * regular file it replaces; a PATH that exists and is not a regular file (a
 * device node, FIFO, symlink, directory) is refused, never replaced. close()
 * renames the complete file to PATH. A trace can instead be streamed to a
 * descriptor (standard output): the blocks and the footer are written in
 * order, nothing is renamed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "trace_internal.h"

int sat_trace_write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* What lstat says path is, for "is a FIFO, not a regular file". */
static const char *file_kind(mode_t m)
{
    if (S_ISDIR(m)) return "a directory";
    if (S_ISLNK(m)) return "a symbolic link";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISSOCK(m)) return "a socket";
    return "not a regular file";
}

/* PATH must be absent or a regular file: anything else is refused, never
 * replaced (a rename would put a regular file in place of a device node or
 * FIFO, and a symlink at PATH is not followed). *old_mode gets the permission
 * bits of a regular file there (0 when absent). */
static int check_target(const char *path, unsigned *old_mode, sat_diag *diag)
{
    struct stat st;
    *old_mode = 0;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return SAT_OK;
        return sat_diag_set(diag, SAT_E_IO, path, "cannot look at it: %s", strerror(errno));
    }
    if (!S_ISREG(st.st_mode))
        return sat_diag_set(diag, SAT_E_USAGE, path, "is %s, not a regular file: not "
                            "replaced (write the trace to a regular file, or to "
                            "standard output with -o -)", file_kind(st.st_mode));
    *old_mode = (unsigned)st.st_mode & 0777u;
    if (!*old_mode)
        *old_mode = 0600; /* a 0000 file: keep the trace readable by its owner */
    return SAT_OK;
}

/* Creates the temporary file beside path: "PATH.XXXXXX.partial" with six
 * random characters, opened O_CREAT|O_EXCL|O_NOFOLLOW (mkstemp's rule: an
 * existing name, a symlink included, is never opened) and given the mode:
 * the caller's, never looser than the regular file it will replace. */
int sat_trace_create_temp(sat_trace_writer *w, const char *path, unsigned mode, sat_diag *diag)
{
    unsigned old_mode;
    SAT_FORWARD_IF_ERROR(check_target(path, &old_mode, diag));
    mode = (mode ? mode : 0600u) & 0777u;
    if (old_mode)
        mode &= old_mode;
    mode |= 0600u; /* the owner must be able to write it and read it back */
    size_t pl = strlen(path);
    w->path = strdup(path);
    w->partial = (char *)malloc(pl + 16);
    if (!w->path || !w->partial)
        return sat_diag_set(diag, SAT_E_NOMEM, path, "out of memory");
    static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned char rnd[6];
        if (getentropy(rnd, sizeof rnd) != 0) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            uint64_t x = (uint64_t)ts.tv_nsec * 6364136223846793005ull ^
                         ((uint64_t)getpid() << 20) ^ (uint64_t)attempt;
            for (int i = 0; i < 6; i++)
                rnd[i] = (unsigned char)(x >> (8 * i));
        }
        char tag[7];
        for (int i = 0; i < 6; i++)
            tag[i] = set[rnd[i] % (sizeof set - 1)];
        tag[6] = '\0';
        snprintf(w->partial, pl + 16, "%s.%s.partial", path, tag);
        w->fd = open(w->partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (w->fd >= 0)
            break;
        if (errno != EEXIST)
            return sat_diag_set(diag, SAT_E_IO, w->partial, "cannot create: %s",
                                strerror(errno));
    }
    if (w->fd < 0)
        return sat_diag_set(diag, SAT_E_IO, w->partial, "cannot create a temporary file");
    /* fchmod on the descriptor: exact bits, whatever the umask, and no path
     * lookup that a swapped name could redirect */
    if (fchmod(w->fd, (mode_t)mode) != 0) {
        int e = errno;
        close(w->fd);
        w->fd = -1;
        unlink(w->partial);
        return sat_diag_set(diag, SAT_E_IO, w->partial, "cannot set its mode: %s",
                            strerror(e));
    }
    w->mode = mode;
    return SAT_OK;
}

/* Closes the temporary file of a complete trace (rc SAT_OK), checks PATH
 * again and renames the file to PATH; returns rc or the first failure. */
int sat_trace_commit_output(sat_trace_writer *w, int rc, sat_diag *diag)
{
    if (rc == SAT_OK) {
        if (close(w->fd) != 0)
            rc = sat_diag_set(diag, SAT_E_IO, w->partial, "close failed: %s",
                              strerror(errno));
        w->fd = -1;
    }
    unsigned old_mode;
    if (rc == SAT_OK && (rc = check_target(w->path, &old_mode, diag)) != SAT_OK && diag) {
        /* something not a regular file appeared at PATH meanwhile: the
         * complete trace stays in the temporary file, and the message says so */
        size_t l = strlen(diag->msg);
        snprintf(diag->msg + l, sizeof diag->msg - l, "; the trace is left in %s",
                 w->partial);
    }
    if (rc == SAT_OK && rename(w->partial, w->path) != 0)
        rc = sat_diag_set(diag, SAT_E_IO, w->path, "cannot rename %s: %s",
                          w->partial, strerror(errno));
    if (rc == SAT_OK) {
        /* Make the rename itself durable. */
        char *slash = strrchr(w->path, '/');
        char dir[4096];
        if (slash)
            snprintf(dir, sizeof dir, "%.*s", (int)(slash - w->path + (slash == w->path)), w->path);
        else
            snprintf(dir, sizeof dir, ".");
        int dfd = open(dir, O_RDONLY | O_CLOEXEC);
        if (dfd >= 0) {
            (void)fsync(dfd);
            close(dfd);
        }
    }
    return rc;
}
