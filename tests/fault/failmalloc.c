/*
 * failmalloc.c - allocation failure injection for the out-of-memory tests
 * (tests/cli/out_of_memory.sh), loaded with LD_PRELOAD into a satscope
 * command: from the Nth allocation of the process on (SAT_FAILMALLOC_AT=N),
 * every malloc, calloc, realloc, posix_memalign and aligned_alloc fails, as
 * when the machine's memory is gone for good (a single failure would only
 * test the caller of that one allocation). The first failure writes the
 * file SAT_FAILMALLOC_MARK names, so the test knows one happened. With
 * SAT_FAILMALLOC_COUNT=PATH nothing fails and the number of allocations
 * satscope's code made is written to PATH at exit (where to aim the failures).
 *
 * Only the allocations satscope's own code makes fail (the caller's address
 * is in the executable): the libraries' (libc's stdio, fontconfig, cairo)
 * are not ours to mend, and fontconfig loops on a failed one.
 *
 * The real allocator is found with dlsym(RTLD_NEXT); dlsym itself may
 * allocate before it is known, which a small static arena serves. Not for
 * the sanitizer build (ASan replaces the allocator itself): the test skips
 * there.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);

static unsigned long long fail_at; /* 0: never */
static unsigned long long calls;
static int marked, resolving;

/* dlsym's own allocations, before the real ones are known */
static _Alignas(16) unsigned char boot[16384];
static size_t boot_used;

static void *boot_alloc(size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (boot_used + n > sizeof boot)
        return NULL;
    void *p = boot + boot_used;
    boot_used += n;
    return p;
}

static int from_boot(const void *p)
{
    return (const unsigned char *)p >= boot && (const unsigned char *)p < boot + sizeof boot;
}

static void resolve(void)
{
    if (real_malloc || resolving)
        return;
    resolving = 1;
    real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
    real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    real_posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
    real_aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
    const char *at = getenv("SAT_FAILMALLOC_AT");
    fail_at = at ? strtoull(at, NULL, 10) : 0;
    resolving = 0;
}

/* The executable's load address: an allocation is ours when the code that
 * called the allocator belongs to it (dladdr's object base). */
static uintptr_t exe_base;
static int exe_known;

static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    *(uintptr_t *)data = (uintptr_t)info->dlpi_addr; /* the first is the program */
    return 1;
}

static int ours(const void *caller)
{
    if (!exe_known) {
        dl_iterate_phdr(first_object, &exe_base);
        exe_known = 1;
    }
    Dl_info di;
    return dladdr(caller, &di) != 0 && (uintptr_t)di.dli_fbase == exe_base;
}

/* Whether this allocation fails (and, the first time, the mark). */
static int failing(const void *caller)
{
    if (!ours(caller))
        return 0;
    unsigned long long n = __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
    if (!fail_at || n < fail_at)
        return 0;
    if (!__atomic_exchange_n(&marked, 1, __ATOMIC_RELAXED)) {
        const char *mark = getenv("SAT_FAILMALLOC_MARK");
        if (mark) {
            int fd = open(mark, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
            if (fd >= 0)
                close(fd);
        }
    }
    errno = ENOMEM;
    return 1;
}

__attribute__((destructor)) static void write_count(void)
{
    const char *path = getenv("SAT_FAILMALLOC_COUNT");
    if (!path)
        return;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    char buf[32];
    int k = 0;
    unsigned long long n = calls;
    char tmp[32];
    do
        tmp[k++] = (char)('0' + n % 10);
    while ((n /= 10) && k < 30);
    for (int i = 0; i < k; i++)
        buf[i] = tmp[k - 1 - i];
    buf[k++] = '\n';
    if (write(fd, buf, (size_t)k) < 0)
        k = 0;
    close(fd);
}

void *malloc(size_t n)
{
    resolve();
    if (!real_malloc)
        return boot_alloc(n);
    return failing(__builtin_return_address(0)) ? NULL : real_malloc(n);
}

void *calloc(size_t a, size_t b)
{
    resolve();
    if (!real_calloc) {
        void *p = b && a > SIZE_MAX / b ? NULL : boot_alloc(a * b);
        if (p)
            memset(p, 0, a * b);
        return p;
    }
    return failing(__builtin_return_address(0)) ? NULL : real_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
    resolve();
    if (from_boot(p)) { /* rare: a boot block grown once the real allocator is known */
        size_t have = (size_t)(boot + sizeof boot - (const unsigned char *)p);
        void *q = malloc(n);
        if (q)
            memcpy(q, p, n < have ? n : have);
        return q;
    }
    return failing(__builtin_return_address(0)) ? NULL : real_realloc(p, n);
}

void free(void *p)
{
    if (!p || from_boot(p))
        return;
    resolve();
    real_free(p);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    resolve();
    return failing(__builtin_return_address(0)) ? ENOMEM : real_posix_memalign(out, align, n);
}

void *aligned_alloc(size_t align, size_t n)
{
    resolve();
    return failing(__builtin_return_address(0)) ? NULL : real_aligned_alloc(align, n);
}
