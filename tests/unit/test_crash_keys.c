/*
 * test_crash_keys.c - crash fingerprints (parse/crash/crash_keys.c): the abort path
 * and a fatal-signal handler's own frames are skipped; the same bug on two
 * builds at different addresses groups together while the exact-build keys
 * differ; frames without names fall back to module+offset.
 */
#include "check.h"
#include "satscope/crash.h"

static sat_frame fr(int depth, const char *mod, const char *fn, int64_t off, int flags)
{
    sat_frame f;
    memset(&f, 0, sizeof f);
    f.depth = depth;
    f.module = mod ? sat_str_cstr(mod) : SAT_STR_NONE;
    f.function = fn ? sat_str_cstr(fn) : SAT_STR_NONE;
    f.offset = off;
    f.pc = 0x400000 + off;
    f.flags = (uint8_t)flags;
    return f;
}

int main(void)
{
    /* build A: abort() from an assertion in parse_entry */
    sat_frame a[] = {
        fr(0, "libc.so.6", "__pthread_kill_implementation", 0x8eebc, 0),
        fr(1, "libc.so.6", "__GI_raise", 0x3ffb2, 0),
        fr(2, "libc.so.6", "__GI_abort", 0x28472, 0),
        fr(3, "libc.so.6", "__assert_fail_base", 0x28399, 0),
        fr(4, "libback-ldbm.so", "parse_entry", 0x1234, 0),
        fr(5, "libback-ldbm.so", "id2entry", 0x2000, 0),
        fr(6, "ns-slapd", "op_shared_search", 0x3000, 0),
        fr(7, "ns-slapd", "connection_threadmain", 0x4000, 0),
        fr(8, "libc.so.6", "start_thread", 0x89134, 0),
        fr(9, "libc.so.6", "__clone3", 0x1097dc, 0),
    };
    /* build B: the same bug, other offsets, and through a fatal-signal handler */
    sat_frame b[] = {
        fr(0, "libc.so.6", "raise", 0x3e000, 0),
        fr(1, "libc.so.6", "abort", 0x27000, 0),
        fr(2, "ns-slapd", "fatal_signal_handler", 0x9999, 0),
        fr(3, "libc.so.6", "__restore_rt", 0x3f000, SAT_FRAMEF_SIGNAL),
        fr(4, "libback-ldbm.so", "parse_entry", 0x1300, 0),
        fr(5, "libback-ldbm.so", "id2entry", 0x2100, 0),
        fr(6, "ns-slapd", "op_shared_search", 0x3100, 0),
        fr(7, "ns-slapd", "connection_threadmain", 0x4100, 0),
        fr(8, "libc.so.6", "start_thread", 0x89000, 0),
        fr(9, "libc.so.6", "__clone3", 0x109000, 0),
    };
    sat_crash_keys ka, kb, kc;
    sat_crash_keys_of(a, 10, sat_str_cstr("aaaa"), &ka);
    sat_crash_keys_of(b, 10, sat_str_cstr("bbbb"), &kb);
    CHECK_EQ_STR(ka.text, "libback-ldbm.so:parse_entry|libback-ldbm.so:id2entry|"
                          "ns-slapd:op_shared_search|ns-slapd:connection_threadmain|"
                          "libc.so.6:start_thread");
    CHECK_EQ_STR(ka.text, kb.text);
    CHECK_EQ_STR(ka.fingerprint, kb.fingerprint);
    CHECK(strcmp(ka.build_key, kb.build_key) != 0);
    CHECK_EQ_INT(ka.nframes, 5);
    CHECK_EQ_INT(strlen(ka.fingerprint), 19);
    CHECK(strncmp(ka.fingerprint, "fp:", 3) == 0);
    /* another bug: another key */
    a[4].function = sat_str_cstr("parse_attr");
    sat_crash_keys_of(a, 10, SAT_STR_NONE, &kc);
    CHECK(strcmp(kc.fingerprint, ka.fingerprint) != 0);
    /* stripped: module+offset; nothing at all: "?" */
    sat_frame s[] = {fr(0, "prog", NULL, 0x11be, 0), fr(1, NULL, NULL, -1, 0)};
    sat_crash_keys_of(s, 2, SAT_STR_NONE, &kc);
    CHECK_EQ_STR(kc.text, "prog+0x11be|?");
    sat_crash_keys_of(NULL, 0, SAT_STR_NONE, &kc);
    CHECK_EQ_STR(kc.text, "?");
    CHECK_EQ_INT(kc.nframes, 0);
    CHECK(sat_crash_frame_is_noise(sat_str_cstr("__GI___assert_fail")));
    CHECK(sat_crash_frame_is_noise(sat_str_cstr("__GI_abort")));
    CHECK(!sat_crash_frame_is_noise(sat_str_cstr("main")));
    CHECK(sat_crash_frame_is_noise(
        sat_str_cstr("ceph::__ceph_assert_fail(char const*, char const*, int, char const*)")));
    return CHECK_DONE();
}
