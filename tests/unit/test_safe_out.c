/*
 * test_safe_out.c - the one safe writer (base/safe_out.c): a complete output
 * renamed onto its target with the asked mode, never looser than the file it
 * replaces; a discarded one leaves nothing; targets that are symlinks, FIFOs
 * or directories, or an input, refused (a FIFO never opened); a symlink
 * planted at the target while the output was written keeps it in its
 * temporary file, which the message names. Each command's use of it is
 * checked by tests/cli/output_safety.sh.
 */
#include "check.h"
#include "satscope/safe_out.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/satscope-safe-out-XXXXXX";

static const char *at(const char *name)
{
    static char p[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

static int entries(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static unsigned mode_of(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 ? (unsigned)st.st_mode & 0777u : 0;
}

static void put(const char *p, const char *text, unsigned mode)
{
    FILE *f = fopen(p, "w");
    fputs(text, f);
    fclose(f);
    chmod(p, mode);
}

static void test_commit_and_discard(void)
{
    sat_diag d = {0};
    sat_out_opts o = {0640, NULL, 0, "the report", NULL};
    sat_out *w = sat_out_open(at("r.txt"), &o, &d);
    CHECK(w != NULL);
    CHECK_EQ_INT(entries(), 1); /* the temporary file only */
    fputs("hello\n", sat_out_stream(w));
    CHECK_EQ_INT(sat_out_commit(w, &d), SAT_OK);
    CHECK_EQ_INT(mode_of(at("r.txt")), 0640);
    CHECK_EQ_INT(entries(), 1);
    /* replacing a 0600 file: never looser */
    chmod(at("r.txt"), 0600);
    w = sat_out_open(at("r.txt"), &o, &d);
    fputs("again\n", sat_out_stream(w));
    CHECK_EQ_INT(sat_out_commit(w, &d), SAT_OK);
    CHECK_EQ_INT(mode_of(at("r.txt")), 0600);
    /* discarded: the target as it was, nothing beside it */
    w = sat_out_open(at("r.txt"), &o, &d);
    fputs("lost\n", sat_out_stream(w));
    sat_out_discard(w);
    CHECK_EQ_INT(entries(), 1);
    FILE *f = fopen(at("r.txt"), "r");
    char buf[16] = {0};
    CHECK(f && fgets(buf, sizeof buf, f));
    CHECK_EQ_STR(buf, "again\n");
    fclose(f);
    unlink(at("r.txt"));
}

static void test_refused(void)
{
    sat_diag d = {0};
    sat_out_opts o = {0600, NULL, 0, "the chart", ", or to standard output with -o -"};
    put(at("victim"), "keep", 0644);
    CHECK_EQ_INT(symlink("victim", at("sl")), 0);
    CHECK(sat_out_open(at("sl"), &o, &d) == NULL);
    CHECK_EQ_INT(d.code, SAT_E_USAGE);
    CHECK(strstr(d.msg, "is a symbolic link, not a regular file: not replaced (write the chart "
                        "to a regular file, or to standard output with -o -)") != NULL);
    CHECK_EQ_INT(mkfifo(at("ff"), 0600), 0);
    memset(&d, 0, sizeof d);
    CHECK(sat_out_open(at("ff"), &o, &d) == NULL); /* returns: never opened */
    CHECK(strstr(d.msg, "is a FIFO") != NULL);
    memset(&d, 0, sizeof d);
    CHECK(sat_out_open(dir, &o, &d) == NULL);
    CHECK(strstr(d.msg, "is a directory") != NULL);
    /* an input */
    struct stat st;
    stat(at("victim"), &st);
    sat_file_id id = {st.st_dev, st.st_ino};
    sat_out_opts oi = {0600, &id, 1, "the trace", NULL};
    memset(&d, 0, sizeof d);
    CHECK(sat_out_open(at("victim"), &oi, &d) == NULL);
    CHECK(strstr(d.msg, "is one of the inputs") != NULL);
    CHECK_EQ_INT(sat_out_check(at("victim"), &oi, &d), SAT_E_USAGE);
    CHECK_EQ_INT(sat_out_check("-", &oi, &d), SAT_OK);
    CHECK_EQ_INT(entries(), 3); /* victim, sl, ff: nothing made beside them */
    unlink(at("sl"));
    unlink(at("ff"));
    unlink(at("victim"));
}

/* A symlink swapped in at the target while the output was written: the
 * rename would replace it; the output stays in its temporary file instead. */
static void test_swapped_target(void)
{
    sat_diag d = {0};
    sat_out_opts o = {0600, NULL, 0, "the report", NULL};
    sat_out *w = sat_out_open(at("t.html"), &o, &d);
    CHECK(w != NULL);
    fputs("<p>x</p>\n", sat_out_stream(w));
    put(at("victim"), "keep", 0644);
    CHECK_EQ_INT(symlink("victim", at("t.html")), 0);
    CHECK_EQ_INT(sat_out_commit(w, &d), SAT_E_USAGE);
    CHECK(strstr(d.msg, "the report is left in ") != NULL);
    struct stat st;
    CHECK(lstat(at("t.html"), &st) == 0 && S_ISLNK(st.st_mode));
    CHECK_EQ_INT(entries(), 3); /* victim, the symlink, the kept output */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -f %s/*", dir);
    CHECK_EQ_INT(system(cmd), 0);
}

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    test_commit_and_discard();
    test_refused();
    test_swapped_target();
    rmdir(dir);
    return CHECK_DONE();
}
