/*
 * safe_out.c - the one safe writer of every output file (the rules are in
 * include/satscope/safe_out.h): a temporary file created O_EXCL|O_NOFOLLOW
 * beside the target, every write checked, fsync, rename, the directory
 * fsync'd; targets that are not regular files, or are inputs, refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "satscope/safe_out.h"

struct sat_out {
    int fd;        /* the temporary file's, or STDOUT_FILENO */
    FILE *f;       /* made by sat_out_stream */
    int is_stdout;
    unsigned mode;
    const char *what, *alt;
    char *path, *partial;
};

/* What lstat says a path is, for "is a FIFO, not a regular file". */
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

static int is_stdout_name(const char *path)
{
    return !strcmp(path, "-") || !strcmp(path, "/dev/stdout");
}

/* The target must be absent or a regular file that is not an input; *old
 * gets the permission bits of a regular file there (0: absent). */
static int check_target(const char *path, const sat_out_opts *o, unsigned *old, sat_diag *diag)
{
    const char *what = o && o->what ? o->what : "it";
    const char *alt = o && o->alt ? o->alt : "";
    struct stat st;
    *old = 0;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return SAT_OK;
        return sat_diag_set(diag, SAT_E_IO, path, "cannot look at it: %s", strerror(errno));
    }
    if (!S_ISREG(st.st_mode))
        return sat_diag_set(diag, SAT_E_USAGE, path,
                            "is %s, not a regular file: not replaced (write %s to a regular "
                            "file%s)", file_kind(st.st_mode), what, alt);
    for (size_t i = 0; o && i < o->ninputs; i++)
        if (o->inputs[i].dev == st.st_dev && o->inputs[i].ino == st.st_ino)
            return sat_diag_set(diag, SAT_E_USAGE, path,
                                "is one of the inputs: not replaced (write %s elsewhere)", what);
    *old = (unsigned)st.st_mode & 0777u;
    if (!*old)
        *old = 0600u; /* a 0000 file: keep the output readable by its owner */
    return SAT_OK;
}

int sat_out_check(const char *path, const sat_out_opts *o, sat_diag *diag)
{
    unsigned old;
    if (!path || !*path)
        return sat_diag_set(diag, SAT_E_USAGE, NULL, "no output file named");
    return is_stdout_name(path) ? SAT_OK : check_target(path, o, &old, diag);
}

/* Six characters no other process can guess (getrandom; the clock and the
 * pid if it fails, as O_EXCL still keeps a planted name from being opened). */
static void random_tag(char tag[7], int attempt)
{
    static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    unsigned char rnd[6];
    if (getrandom(rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = (uint64_t)ts.tv_nsec * 6364136223846793005ull ^
                     ((uint64_t)getpid() << 20) ^ (uint64_t)attempt;
        for (int i = 0; i < 6; i++)
            rnd[i] = (unsigned char)(x >> (8 * i));
    }
    for (int i = 0; i < 6; i++)
        tag[i] = set[rnd[i] % (sizeof set - 1)];
    tag[6] = '\0';
}

static void out_free(sat_out *o)
{
    if (!o)
        return;
    free(o->path);
    free(o->partial);
    free(o);
}

sat_out *sat_out_open(const char *path, const sat_out_opts *opts, sat_diag *diag)
{
    if (sat_out_check(path, opts, diag) != SAT_OK)
        return NULL;
    sat_out *o = (sat_out *)calloc(1, sizeof *o);
    if (!o || !(o->path = strdup(path))) {
        out_free(o);
        sat_diag_set(diag, SAT_E_NOMEM, path, "out of memory");
        return NULL;
    }
    o->what = opts && opts->what ? opts->what : "it";
    if (is_stdout_name(path)) {
        o->fd = STDOUT_FILENO;
        o->is_stdout = 1;
        return o;
    }
    unsigned old;
    if (check_target(path, opts, &old, diag) != SAT_OK) {
        out_free(o);
        return NULL;
    }
    unsigned mode = (opts && opts->mode ? opts->mode : 0600u) & 0777u;
    if (old)
        mode &= old;
    mode |= 0600u; /* the owner must be able to write it and read it back */
    size_t pl = strlen(path);
    if (!(o->partial = (char *)malloc(pl + 16))) {
        out_free(o);
        sat_diag_set(diag, SAT_E_NOMEM, path, "out of memory");
        return NULL;
    }
    o->fd = -1;
    for (int attempt = 0; attempt < 100 && o->fd < 0; attempt++) {
        char tag[7];
        random_tag(tag, attempt);
        snprintf(o->partial, pl + 16, "%s.%s.partial", path, tag);
        o->fd = open(o->partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (o->fd < 0 && errno != EEXIST) {
            sat_diag_set(diag, SAT_E_IO, path, "cannot create a file beside it: %s",
                         strerror(errno));
            out_free(o);
            return NULL;
        }
    }
    if (o->fd < 0) {
        sat_diag_set(diag, SAT_E_IO, path, "cannot create a temporary file beside it");
        out_free(o);
        return NULL;
    }
    /* fchmod on the descriptor: exact bits whatever the umask, and no path
     * lookup that a swapped name could redirect */
    if (fchmod(o->fd, (mode_t)mode) != 0) {
        sat_diag_set(diag, SAT_E_IO, o->partial, "cannot set its mode: %s", strerror(errno));
        sat_out_discard(o);
        return NULL;
    }
    o->mode = mode;
    return o;
}

FILE *sat_out_stream(sat_out *o)
{
    if (!o)
        return NULL;
    if (!o->f)
        o->f = o->is_stdout ? stdout : fdopen(o->fd, "wb");
    return o->f;
}

int sat_out_fd(const sat_out *o) { return o ? o->fd : -1; }
int sat_out_is_stdout(const sat_out *o) { return o && o->is_stdout; }
unsigned sat_out_mode(const sat_out *o) { return o ? o->mode : 0; }
const char *sat_out_partial(const sat_out *o) { return o && !o->is_stdout ? o->partial : NULL; }

void sat_out_discard(sat_out *o)
{
    if (!o)
        return;
    if (o->is_stdout) {
        if (o->f)
            fflush(o->f);
    } else {
        if (o->f)
            fclose(o->f); /* closes fd */
        else if (o->fd >= 0)
            close(o->fd);
        if (o->partial)
            unlink(o->partial);
    }
    out_free(o);
}

/* Makes the rename durable: the directory's entry on disk. */
static void sync_dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (slash)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path + (slash == path)), path);
    else
        snprintf(dir, sizeof dir, ".");
    int dfd = open(dir, O_RDONLY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
}

int sat_out_commit(sat_out *o, sat_diag *diag)
{
    if (!o)
        return sat_diag_set(diag, SAT_E_USAGE, NULL, "no output");
    const char *where = o->is_stdout ? "standard output" : o->path;
    int rc = SAT_OK, e = 0;
    if (o->f && (fflush(o->f) != 0 || ferror(o->f)))
        e = errno ? errno : EIO;
    if (o->is_stdout) {
        if (e)
            rc = sat_diag_set(diag, SAT_E_IO, where, "writing failed: %s", strerror(e));
        out_free(o);
        return rc;
    }
    if (!e && fsync(o->fd) != 0 && errno != EINVAL)
        e = errno;
    int closed = o->f ? fclose(o->f) : close(o->fd);
    o->f = NULL;
    o->fd = -1;
    if (!e && closed != 0)
        e = errno;
    if (e) {
        rc = sat_diag_set(diag, SAT_E_IO, where, "writing failed: %s; nothing written", strerror(e));
        unlink(o->partial);
        out_free(o);
        return rc;
    }
    /* the target again: something not a regular file may have appeared at
     * it meanwhile; the complete output then stays in the temporary file */
    unsigned old;
    sat_out_opts again = {0, NULL, 0, o->what, NULL};
    if ((rc = check_target(o->path, &again, &old, diag)) != SAT_OK) {
        if (diag) {
            size_t l = strlen(diag->msg);
            snprintf(diag->msg + l, sizeof diag->msg - l, "; %s is left in %s", o->what, o->partial);
        }
    } else if (rename(o->partial, o->path) != 0) {
        rc = sat_diag_set(diag, SAT_E_IO, o->path, "cannot rename %s onto it: %s", o->partial,
                          strerror(errno));
        unlink(o->partial);
    } else {
        sync_dir_of(o->path);
    }
    out_free(o);
    return rc;
}
