/*
 * gen_trace_corpus.c - makes the seed corpus of fuzz_trace_reader: a few
 * small valid traces shaped like real 389 data, and truncated / corrupted
 * variants. Run once by hand (not part of the build):
 *   cc -Iinclude tests/fuzz/gen_trace_corpus.c build/trace/libsat_trace.a \
 *      -lzstd -lz -lpthread -o /tmp/gen && /tmp/gen tests/fuzz/corpus/fuzz_trace_reader
 * The ldap seeds in the corpus are still the ones this program made when it
 * wrote format 1.0 (kept: they cover reading an older minor version); the
 * crash seeds (valid_crash.sat, partial_crash.sat) were made at 1.3.
 */
#include <stdio.h>

#include "satscope/trace.h"

static void write_file(const char *dir, const char *name, const uint8_t *b, size_t n)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    if (f) {
        fwrite(b, 1, n, f);
        fclose(f);
    }
}

static uint8_t *make(const char *dir, const char *name, int nops, uint32_t rpb,
                     size_t *len)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    sat_trace_write_opts o = {rpb, 0};
    sat_diag d = {0};
    sat_trace_writer *w = sat_trace_writer_create(p, &o, &d);
    static const char *const dns[] = {"cn=Directory Manager", "",
                                      "uid=u1,ou=people,dc=example,dc=com"};
    int64_t ts = 1749367154214871640LL;
    sat_source s;
    memset(&s, 0, sizeof s);
    s.path = sat_str_cstr("access");
    s.format = sat_str_cstr("389-text");
    s.first_ts = ts;
    s.last_ts = ts + nops * 1000000LL;
    sat_trace_writer_append(w, SAT_TABLE_SOURCE, &s);
    sat_reject rj = {0, 7, sat_str_cstr("no timestamp"), sat_str_cstr("garbage")};
    sat_trace_writer_append(w, SAT_TABLE_REJECT, &rj);
    for (int i = 0; i < nops; i++) {
        sat_ldap_op op;
        memset(&op, 0, sizeof op);
        op.ts_ns = ts + i * 3000117LL;
        op.result_ts_ns = op.ts_ns + 160000 + (i % 7) * 1000;
        op.conn = 149981 + i / 4;
        op.op = i % 4;
        op.internal_op = SAT_ABSENT;
        op.type = (uint8_t)(1 + i % 4);
        op.scope = (uint8_t)(i % 4 == 1 ? 0 : SAT_SCOPE_NONE);
        op.err = i % 13 ? 0 : 32;
        op.tag = 101;
        op.nentries = i % 2;
        op.etime = 160000 + (i * 7919) % 5000;
        op.wtime = 54000 + (i * 31) % 900;
        op.optime = op.etime - op.wtime;
        op.wbusy = op.wbusy_max = op.wqdepth = SAT_ABSENT;
        op.target_op = SAT_ABSENT;
        op.dn = i % 5 ? sat_str_cstr(dns[i % 3]) : SAT_STR_NONE;
        op.filter = i % 4 == 1 ? sat_str_cstr("(objectClass=*)") : SAT_STR_NONE;
        op.client_ip = sat_str_cstr("local");
        sat_trace_writer_append(w, SAT_TABLE_LDAP_OP, &op);
        if (i % 4 == 3) {
            sat_ldap_conn c;
            memset(&c, 0, sizeof c);
            c.open_ts = i % 8 == 7 ? 0 : op.ts_ns - 5000000;
            c.close_ts = op.ts_ns + 30000;
            c.conn = op.conn;
            c.fd = 65;
            c.listener = SAT_LISTENER_LDAPI;
            c.close_code = SAT_CLOSE_U1;
            c.ops = 4;
            c.client_ip = sat_str_cstr("local");
            c.close_reason = sat_str_cstr("Cleanly Closed Connection");
            sat_trace_writer_append(w, SAT_TABLE_LDAP_CONN, &c);
        }
    }
    sat_trace_writer_close(w, &d);
    FILE *f = fopen(p, "rb");
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(*len);
    if (fread(b, 1, *len, f) != *len)
        *len = 0;
    fclose(f);
    return b;
}

/* Format 1.3: a core's crash and the frames of its threads (two crashes, the
 * second from a text backtrace with most facts unknown), 4 rows a block. */
static uint8_t *make_crashes(const char *dir, const char *name, size_t *len)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    sat_trace_write_opts o = {4, 0};
    sat_diag d = {0};
    sat_trace_writer *w = sat_trace_writer_create(p, &o, &d);
    static const char *const fns[] = {"__pthread_kill_implementation", "raise", "abort",
                                      "slapi_ch_free", "op_shared_search", "main"};
    static const char *const mods[] = {"libc.so.6", "libc.so.6", "libc.so.6",
                                       "libslapd.so.0", "libslapd.so.0", "ns-slapd"};
    int64_t ts = 1749367154214871640LL;
    for (uint32_t c = 1; c <= 2; c++) {
        for (int32_t thread = 0; thread < 2; thread++)
            for (int32_t depth = 0; depth < 6; depth++) {
                sat_frame f;
                memset(&f, 0, sizeof f);
                f.source = 0;
                f.crash = c;
                f.thread = c == 1 ? 4100 + thread : thread;
                f.depth = depth;
                f.pc = c == 1 ? (int64_t)(0x7f3a1c08e000ULL + depth * 0x1be) : SAT_ABSENT;
                f.module = sat_str_cstr(mods[depth]);
                f.build_id = c == 1 ? sat_str_cstr("a4b1c2d3e4f5061728394a5b6c7d8e9f00112233")
                                    : SAT_STR_NONE;
                f.offset = c == 1 ? 0x8e000 + depth * 0x1be : SAT_ABSENT;
                f.function = depth == 3 && thread ? SAT_STR_NONE : sat_str_cstr(fns[depth]);
                f.fn_offset = f.function.ptr ? depth * 16 : SAT_ABSENT;
                f.file = depth >= 3 ? sat_str_cstr("ldap/servers/slapd/search.c")
                                    : SAT_STR_NONE;
                f.line = depth >= 3 ? 400 + depth : SAT_ABSENT;
                f.flags = depth ? SAT_FRAMEF_INEXACT : 0;
                sat_trace_writer_append(w, SAT_TABLE_FRAME, &f);
            }
        sat_crash k;
        memset(&k, 0, sizeof k);
        k.ts = c == 1 ? ts : 0;
        k.source = 0;
        k.crash = c;
        k.host = c == 1 ? sat_str_cstr("ldap1.example.com") : SAT_STR_NONE;
        k.pid = c == 1 ? 2187 : SAT_ABSENT;
        k.uid = c == 1 ? 389 : SAT_ABSENT;
        k.exe = sat_str_cstr("/usr/sbin/ns-slapd");
        k.command = sat_str_cstr("ns-slapd -D /etc/dirsrv/slapd-ex -i /run/dirsrv/slapd-ex.pid");
        k.build_id = c == 1 ? sat_str_cstr("a4b1c2d3e4f5061728394a5b6c7d8e9f00112233")
                            : SAT_STR_NONE;
        k.signal = 6;
        k.si_code = c == 1 ? -6 : SAT_ABSENT;
        k.fault_addr = SAT_ABSENT;
        k.orig_signal = c == 1 ? 11 : SAT_ABSENT;
        k.orig_fault_addr = c == 1 ? (int64_t)0xffffffffff600000ULL : SAT_ABSENT;
        k.threads = 2;
        k.crashing_tid = c == 1 ? 4100 : SAT_ABSENT;
        k.origin = c == 1 ? SAT_CRASH_CORE : SAT_CRASH_TEXT_GDB;
        k.arch = c == 1 ? SAT_ARCH_X86_64 : SAT_ARCH_UNKNOWN;
        k.flags = c == 1 ? SAT_CRASHF_HANDLER : SAT_CRASHF_NO_EXE;
        k.fingerprint = sat_str_cstr(c == 1 ? "fp:0123456789abcdef" : "fp:fedcba9876543210");
        k.build_key = c == 1 ? sat_str_cstr("a4b1c2d3:+0x8e000|+0x8e1be") : SAT_STR_NONE;
        k.missing = c == 1 ? SAT_STR_NONE : sat_str_cstr("executable");
        sat_trace_writer_append(w, SAT_TABLE_CRASH, &k);
    }
    sat_source s;
    memset(&s, 0, sizeof s);
    s.path = sat_str_cstr("core.2187");
    s.kind = sat_str_cstr("core");
    s.first_ts = s.last_ts = ts;
    sat_trace_writer_append(w, SAT_TABLE_SOURCE, &s);
    sat_trace_writer_close(w, &d);
    FILE *f = fopen(p, "rb");
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(*len);
    if (fread(b, 1, *len, f) != *len)
        *len = 0;
    fclose(f);
    return b;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    size_t n;
    free(make(dir, "valid_small.sat", 12, 0, &n));
    free(make(dir, "valid_empty.sat", 0, 0, &n));
    uint8_t *b = make(dir, "valid_multiblock.sat", 60, 16, &n);
    write_file(dir, "partial_no_footer.sat", b, n - 200);
    write_file(dir, "partial_mid_block.sat", b, n / 2);
    write_file(dir, "header_only.sat", b, 20);
    /* a damaged file header (one flipped byte): the blocks are found all the
     * same, by the footer or, without one, by scanning */
    b[3] ^= 0x04; /* SATSCOPE -> SATWCOPE */
    write_file(dir, "damaged_header_magic.sat", b, n);
    write_file(dir, "damaged_header_partial.sat", b, n - 200);
    b[3] ^= 0x04;
    b[17] ^= 0x01; /* the header's checksum */
    write_file(dir, "damaged_header_crc.sat", b, n);
    b[17] ^= 0x01;
    b[n / 3] ^= 0x20;
    write_file(dir, "corrupt_block.sat", b, n);
    b[n / 3] ^= 0x20;
    b[n - 10] ^= 0x01;
    write_file(dir, "corrupt_trailer.sat", b, n);
    free(b);
    b = make_crashes(dir, "valid_crash.sat", &n);
    write_file(dir, "partial_crash.sat", b, n * 2 / 3);
    free(b);
    return 0;
}
