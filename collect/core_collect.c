/*
 * core_collect.c - one core file into rows: frame rows, then the crash row
 * (collect/core_unwind.c), then its sat_source (kind "core", format
 * "elf-core-x86_64" / "-aarch64" / "-i386"; its time: --crash-time, else the
 * time in the file's name, else the file's modification time; the crash row
 * says which, event.h's sat_crash_time_source). A core holds no wall clock:
 * NT_PRPSINFO has none, NT_PRSTATUS's pr_utime/pr_stime are CPU times, the
 * auxiliary vector holds addresses and ids, and the vvar page where the
 * kernel keeps the time is never dumped (VM_DONTDUMP); the kernel's
 * core_pattern %t and systemd-coredump put it in the file's name instead.
 *
 * The image: a plain core file is mapped privately (copy-on-write: libelf
 * may write into the image, never into the file); a compressed one (.gz,
 * .zst, .xz, .bz2, told by its bytes through sat_input) or standard input is
 * decompressed into an unlinked temporary file under $TMPDIR, then mapped,
 * so that a core of gigabytes does not have to fit in memory. A stream that
 * ends early gives the core it held: the facts before the cut, with the
 * source flagged truncated and SAT_CRASHF_TRUNCATED on the crash.
 */
#include <pthread.h>
#include "collect_internal.h"
#include "satscope/core.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* a decompression bomb stops here (and is reported as truncated) */
#define CORE_MAX_BYTES ((uint64_t)64 << 30)

#define say(job, ...) sat_collect_warnf((job)->warn, (job)->warn_ctx, (job)->path, __VA_ARGS__)

typedef struct image {
    void *p;
    size_t len;
    int fd;
    const char *compression;
    int cut;          /* the stream ended early or hit CORE_MAX_BYTES */
    sat_diag why;     /* why it was cut */
} image;

static int map_fd(image *im, int fd, size_t len, sat_diag *d, const char *path)
{
    im->fd = fd;
    im->len = len;
    if (len == 0)
        return sat_diag_set(d, SAT_E_FORMAT, path, "empty file");
    im->p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (im->p == MAP_FAILED) {
        im->p = NULL;
        return sat_diag_set(d, SAT_E_IO, path, "cannot map %zu bytes: %s", len, strerror(errno));
    }
    return SAT_OK;
}

#define SPILL_PAGE 4096

static int all_zero(const char *p, size_t n)
{
    uint64_t acc = 0;
    for (size_t i = 0; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        acc |= w;
        if (acc)
            return 0;
    }
    return 1;
}

/* Decompresses in into an unlinked temporary file and maps it. */
static int spill(image *im, sat_input *in, sat_diag *d, const char *path)
{
    const char *dir = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/satscope-core-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(tmpl);
    if (fd < 0)
        return sat_diag_set(d, SAT_E_IO, path, "cannot make a temporary file in %s: %s",
                            dir && *dir ? dir : "/tmp", strerror(errno));
    unlink(tmpl);
    size_t cap = 1 << 20;
    char *buf = malloc(cap);
    if (!buf) {
        close(fd);
        return sat_diag_set(d, SAT_E_NOMEM, path, "out of memory");
    }
    uint64_t total = 0;
    int rc = SAT_OK;
    for (;;) {
        sat_diag rd;
        memset(&rd, 0, sizeof rd);
        ssize_t n = sat_input_read(in, buf, cap, &rd);
        if (n < 0) {
            im->cut = 1;
            im->why = rd;
            break;
        }
        if (n == 0)
            break;
        if (total + (uint64_t)n > CORE_MAX_BYTES) {
            im->cut = 1;
            sat_diag_set(&im->why, SAT_E_LIMIT, path,
                         "more than %llu GiB once decompressed: read up to there",
                         (unsigned long long)(CORE_MAX_BYTES >> 30));
            break;
        }
        /* Pages of zeros are left as holes (lseek past them): a core is mostly
         * untouched stack and heap the kernel dumped as holes, and writing them
         * out (hundreds of MB for a server's core) is what a decompressed core
         * waited on, the page cache flushing to disk. They read back as zeros. */
        for (ssize_t off = 0; off < n;) {
            size_t run = (size_t)(n - off) < SPILL_PAGE ? (size_t)(n - off) : SPILL_PAGE;
            if (run == SPILL_PAGE && all_zero(buf + off, run)) {
                size_t hole = run; /* the whole run of zero pages, one seek */
                while ((size_t)off + hole + SPILL_PAGE <= (size_t)n &&
                       all_zero(buf + off + hole, SPILL_PAGE))
                    hole += SPILL_PAGE;
                if (lseek(fd, (off_t)hole, SEEK_CUR) < 0) {
                    rc = sat_diag_set(d, SAT_E_IO, path, "cannot seek in the temporary file: %s",
                                      strerror(errno));
                    break;
                }
                off += (ssize_t)hole;
                continue;
            }
            /* the data up to the next page of zeros */
            size_t len = run;
            while ((size_t)off + len < (size_t)n) {
                size_t next = (size_t)n - ((size_t)off + len) < SPILL_PAGE
                                  ? (size_t)n - ((size_t)off + len)
                                  : SPILL_PAGE;
                if (next == SPILL_PAGE && all_zero(buf + off + len, next))
                    break;
                len += next;
            }
            ssize_t w = write(fd, buf + off, len);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                rc = sat_diag_set(d, SAT_E_IO, path, "cannot write the decompressed core to %s: %s",
                                  dir && *dir ? dir : "/tmp", strerror(errno));
                break;
            }
            off += w;
        }
        if (rc < 0)
            break;
        total += (uint64_t)n;
    }
    free(buf);
    /* trailing holes: the file's size is the core's */
    if (rc >= 0 && ftruncate(fd, (off_t)total) != 0)
        rc = sat_diag_set(d, SAT_E_IO, path, "cannot size the temporary file: %s",
                          strerror(errno));
    if (rc < 0) {
        close(fd);
        return rc;
    }
    if (total > SIZE_MAX) {
        close(fd);
        return sat_diag_set(d, SAT_E_LIMIT, path, "too large to map");
    }
    rc = map_fd(im, fd, (size_t)total, d, path);
    if (rc < 0)
        close(fd);
    return rc;
}

static int open_image(sat_core_job *job, image *im, sat_diag *d)
{
    memset(im, 0, sizeof *im);
    im->fd = -1;
    im->compression = "none";
    if (!job->in) {
        /* a plain file is mapped as it is */
        int fd = open(job->path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return sat_diag_set(d, SAT_E_IO, job->path, "%s", strerror(errno));
        struct stat st;
        char head[SELFMAG];
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
            pread(fd, head, SELFMAG, 0) == SELFMAG && memcmp(head, ELFMAG, SELFMAG) == 0) {
            if ((uint64_t)st.st_size > SIZE_MAX) {
                close(fd);
                return sat_diag_set(d, SAT_E_LIMIT, job->path, "too large to map");
            }
            int rc = map_fd(im, fd, (size_t)st.st_size, d, job->path);
            if (rc < 0)
                close(fd);
            return rc;
        }
        close(fd);
    }
    sat_input *in = job->in ? job->in : sat_input_open(job->path, d);
    if (!in)
        return d->code ? d->code : SAT_E_IO;
    im->compression = sat_input_compression(in);
    int rc = spill(im, in, d, job->path);
    if (in != job->in)
        sat_input_close(in);
    return rc;
}

static void close_image(image *im)
{
    if (im->p)
        munmap(im->p, im->len);
    if (im->fd >= 0)
        close(im->fd);
}

static const char *arch_name(int arch)
{
    switch (arch) {
    case SAT_ARCH_X86_64: return "x86_64";
    case SAT_ARCH_AARCH64: return "aarch64";
    case SAT_ARCH_I386: return "i386";
    default: return "unknown";
    }
}

static pthread_mutex_t unwind_lock = PTHREAD_MUTEX_INITIALIZER;

int sat_core_collect(sat_core_job *job)
{
    sat_diag d;
    memset(&d, 0, sizeof d);
    image im;
    int rc = open_image(job, &im, &d);
    if (rc < 0) {
        close_image(&im);
        if (rc == SAT_E_NOMEM)
            return rc;
        job->unreadable = 1;
        job->problem = d;
        say(job, "%s", d.msg);
        return SAT_OK;
    }
    sat_core_facts f;
    rc = sat_core_parse(im.p, im.len, &f, &d);
    if (rc < 0) {
        sat_core_facts_free(&f);
        close_image(&im);
        if (rc == SAT_E_NOMEM)
            return rc;
        job->unreadable = 1;
        job->problem = d;
        say(job, "%s", d.msg);
        return SAT_OK;
    }
    job->stats->cores++;
    if (im.cut) {
        f.flags |= SAT_CRASHF_TRUNCATED;
        say(job, "%s; the core's facts before the cut are used", im.why.msg);
    }
    if (f.warning[0])
        say(job, "%s", f.warning);
    if (im.cut || (f.flags & SAT_CRASHF_TRUNCATED)) {
        job->truncated = 1;
        if (im.cut)
            job->problem = im.why;
        else
            sat_diag_set(&job->problem, SAT_E_TRUNCATED, job->path, "%s", f.warning);
    }

    const sat_collect_opts *o = job->opts;
    /* The crash's time (event.h, sat_crash_time_source): the user's word, the
     * time in the core's name, else the file's mtime, which the analyzer may
     * still replace by a log line about the same process. */
    sat_ts_ns ts = job->mtime;
    uint8_t tsrc = job->mtime > 0 ? SAT_CRASH_TIME_MTIME : SAT_CRASH_TIME_UNKNOWN;
    sat_ts_ns named = sat_core_name_time(job->path, f.pid);
    if (o->crash_time > 0) {
        ts = o->crash_time;
        tsrc = SAT_CRASH_TIME_OPTION;
    } else if (named > 0) {
        ts = named;
        tsrc = SAT_CRASH_TIME_CORE_NAME;
    }
    int in_window = (!o->from_ns || ts >= o->from_ns) && (!o->to_ns || ts < o->to_ns);
    if (in_window) {
        sat_core_unwind_opts uo;
        memset(&uo, 0, sizeof uo);
        uo.exe = o->exe;
        uo.debuginfo_path = o->debuginfo_path;
        uo.sysroot = o->sysroot;
        uo.time_source = tsrc;
        uo.no_source_lines = o->no_source_lines;
        sat_core_unwind_result res;
        /* one unwind at a time in the process: two cores unwound at once on
         * two threads (an analysis command's inputs, --jobs) once gave one of
         * them a cut backtrace (2 frames of 5); elfutils' unwinder is not
         * documented as safe across threads */
        pthread_mutex_lock(&unwind_lock);
        rc = sat_core_unwind_emit(im.p, im.len, &f, &uo, job->source_id, 1, ts,
                                  job->rows, &res);
        pthread_mutex_unlock(&unwind_lock);
        if (rc >= 0) {
            job->stats->crashes++;
            job->stats->frames += res.frames;
            if (res.warning[0])
                say(job, "%s", res.warning);
            if (res.flags & SAT_CRASHF_NO_EXE)
                say(job, "the executable (%s) was not found: frames have no names "
                         "(give --exe FILE, or --sysroot DIR)",
                    f.exe != SIZE_MAX && f.modules[f.exe].path ? f.modules[f.exe].path
                    : f.execfn                                  ? f.execfn
                                                                : "unknown");
        }
    }
    if (rc >= 0) {
        sat_source src;
        memset(&src, 0, sizeof src);
        src.id = job->source_id;
        src.server = job->server;
        src.path = sat_str_cstr(job->path);
        src.kind = sat_str_cstr("core");
        char fmt[32];
        snprintf(fmt, sizeof fmt, "elf-core-%s", arch_name(f.arch));
        src.format = sat_str_cstr(fmt);
        src.compression = sat_str_cstr(im.compression);
        src.server_name = SAT_STR_NONE;
        src.server_version = SAT_STR_NONE;
        src.bytes = im.len;
        src.first_ts = src.last_ts = ts;
        src.truncated = (uint8_t)job->truncated;
        job->stats->bytes += im.len;
        sat_collect_name_source(job->opts, job->path, &src);
        rc = sat_sink_emit(job->sink, SAT_TABLE_SOURCE, &src);
    }
    sat_core_facts_free(&f);
    close_image(&im);
    return rc;
}
