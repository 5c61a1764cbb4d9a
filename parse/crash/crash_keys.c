/*
 * crash_keys.c - the keys that group crashes (include/satscope/crash.h): the
 * fingerprint of the crashing thread's top meaningful frames, module-relative,
 * and the exact-build key. The skip list is the frames every crash of a kind
 * shares, whatever the bug: glibc's abort path (raise, pthread_kill), the
 * kernel's signal trampolines, assertion, fortify and C++ terminate wrappers.
 */
#include "satscope/crash.h"

/* FNV-1a, 64 bits: stable across builds and platforms (a key stored in a
 * trace must mean the same thing when read elsewhere). */
static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}
#define FNV_BASIS 0xcbf29ce484222325ULL

static int str_eq(sat_str s, const char *lit)
{
    size_t n = strlen(lit);
    return s.len == n && memcmp(s.ptr, lit, n) == 0;
}

static int str_starts(sat_str s, const char *lit)
{
    size_t n = strlen(lit);
    return s.len >= n && memcmp(s.ptr, lit, n) == 0;
}

int sat_crash_frame_is_noise(sat_str fn)
{
    static const char *const noise[] = {
        /* glibc's abort path (the internal aliases lose their __GI_ below) */
        "abort", "raise", "gsignal", "pthread_kill", "__pthread_kill",
        "__pthread_kill_implementation", "__pthread_kill_internal", "__libc_message",
        "__libc_fatal", "__fortify_fail", "__chk_fail", "__stack_chk_fail",
        "malloc_printerr", "__malloc_assert",
        /* assertions */
        "__assert_fail", "__assert_fail_base", "__assert_perror_fail", "__assert",
        /* signal trampolines (x86_64 glibc, aarch64 vDSO, i386) */
        "__restore_rt", "__kernel_rt_sigreturn", "__restore", "<signal handler called>",
        /* C++ */
        "std::terminate()", "std::terminate", "__cxxabiv1::__terminate(void (*)())",
        "__gnu_cxx::__verbose_terminate_handler()", "__cxa_throw", "__cxa_rethrow",
        "std::__terminate()", "__clang_call_terminate",
    };
    if (!fn.ptr || !fn.len)
        return 0;
    while (str_starts(fn, "__GI_")) {
        fn.ptr += 5;
        fn.len -= 5;
    }
    for (size_t i = 0; i < sizeof noise / sizeof noise[0]; i++)
        if (str_eq(fn, noise[i]))
            return 1;
    /* assertion wrappers whose demangled names carry their arguments */
    static const char *const noise_prefix[] = {"ceph::__ceph_assert_fail(", "ceph::__ceph_abort(",
                                               "__ceph_assert_fail(", "__gnu_debug::_Error_formatter::_M_error("};
    for (size_t i = 0; i < sizeof noise_prefix / sizeof noise_prefix[0]; i++)
        if (str_starts(fn, noise_prefix[i]))
            return 1;
    return 0;
}

/* "module:function", "module+0x1a2b" or "?" */
static size_t frame_token(const sat_frame *f, char *b, size_t cap, int with_offset)
{
    int n;
    const char *mod = f->module.ptr && f->module.len ? f->module.ptr : "?";
    int mlen = f->module.ptr && f->module.len ? (int)f->module.len : 1;
    if (!with_offset && f->function.ptr && f->function.len)
        n = snprintf(b, cap, "%.*s:%.*s", mlen, mod, (int)f->function.len, f->function.ptr);
    else if (f->offset >= 0 && f->module.len)
        n = snprintf(b, cap, "%.*s+0x%llx", mlen, mod, (unsigned long long)f->offset);
    else if (f->function.ptr && f->function.len)
        n = snprintf(b, cap, "%.*s:%.*s", mlen, mod, (int)f->function.len, f->function.ptr);
    else
        n = snprintf(b, cap, "?");
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

void sat_crash_keys_of(const sat_frame *frames, size_t n, sat_str exe_build_id,
                       sat_crash_keys *out)
{
    memset(out, 0, sizeof *out);
    /* a fatal-signal handler's frames (innermost, up to the trampoline) are
     * its own, not the bug's: start below the trampoline if there is one */
    size_t first = 0;
    for (size_t i = 0; i < n; i++)
        if ((frames[i].flags & SAT_FRAMEF_SIGNAL) ||
            str_eq(frames[i].function, "<signal handler called>") ||
            str_eq(frames[i].function, "__restore_rt") ||
            str_eq(frames[i].function, "__kernel_rt_sigreturn")) {
            first = i + 1;
            break;
        }
    if (first >= n)
        first = 0; /* a trampoline at the bottom: nothing below it */
    uint64_t fp = FNV_BASIS, bk = FNV_BASIS;
    if (exe_build_id.ptr && exe_build_id.len)
        bk = fnv1a(bk, exe_build_id.ptr, exe_build_id.len);
    size_t used = 0, tlen = 0;
    char tok[384];
    for (size_t i = first; i < n && out->nframes < SAT_FP_FRAMES; i++) {
        if (sat_crash_frame_is_noise(frames[i].function))
            continue;
        size_t k = frame_token(&frames[i], tok, sizeof tok, 0);
        fp = fnv1a(fp, "|", 1);
        fp = fnv1a(fp, tok, k);
        if (tlen + k + 2 < sizeof out->text) {
            if (tlen)
                out->text[tlen++] = '|';
            memcpy(out->text + tlen, tok, k);
            tlen += k;
            out->text[tlen] = '\0';
        }
        k = frame_token(&frames[i], tok, sizeof tok, 1);
        bk = fnv1a(bk, "|", 1);
        bk = fnv1a(bk, tok, k);
        out->nframes++;
        used++;
    }
    if (!used) {
        fp = fnv1a(fp, "?", 1);
        snprintf(out->text, sizeof out->text, "?");
    }
    snprintf(out->fingerprint, sizeof out->fingerprint, "fp:%016llx", (unsigned long long)fp);
    snprintf(out->build_key, sizeof out->build_key, "bk:%016llx", (unsigned long long)bk);
}
