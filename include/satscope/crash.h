/*
 * crash.h - what the crash producers (core files: parse/core_*.c, crash text in
 * logs: parse/crash_text.c) share: the fingerprint that groups crashes, and
 * the frames it skips. Pure functions over borrowed frames; no I/O.
 *
 * Fingerprint (issue 5): the top meaningful frames of the crashing thread,
 * innermost first, skipping the frames every crash of a kind shares (abort,
 * raise, pthread_kill, the kernel's signal trampoline, assertion and
 * fortify wrappers, a fatal-signal handler's own frames up to the
 * trampoline), at most SAT_FP_FRAMES of them, each written module-relative
 * so that the same bug groups across builds and load addresses:
 *     "module:function"      when the function is known (the name only: no
 *                            offset inside it, which moves between builds)
 *     "module+0x1a2b"        otherwise (the offset in the module: groups the
 *                            crashes of one build only)
 *     "?"                    neither module nor function
 * joined with '|'. The key is "fp:" and 16 hex digits of its 64-bit FNV-1a
 * hash. The exact-build key is "bk:" and the hash of the executable's build-id
 * and the module+offset of the same frames.
 */
#ifndef SATSCOPE_CRASH_H
#define SATSCOPE_CRASH_H

#include "satscope/event.h"

#define SAT_FP_FRAMES 5

/* 1 if a frame with this function name is one every crash shares (abort,
 * raise, pthread_kill, __restore_rt, __assert_fail, ...); name may be NULL. */
int sat_crash_frame_is_noise(sat_str function);

typedef struct sat_crash_keys {
    char fingerprint[20];   /* "fp:" + 16 hex digits + NUL */
    char build_key[20];     /* "bk:" + 16 hex digits + NUL */
    char text[512];         /* the frames the fingerprint hashes ("libc.so.6:f|prog:main"),
                               cut at a frame boundary if longer */
    int nframes;            /* frames used (0: no meaningful frame: key of "?") */
} sat_crash_keys;

/* frames: one thread's frames, innermost first (depth order), borrowed.
 * exe_build_id may be SAT_STR_NONE. Never fails. */
void sat_crash_keys_of(const sat_frame *frames, size_t n, sat_str exe_build_id,
                       sat_crash_keys *out);

#endif /* SATSCOPE_CRASH_H */
