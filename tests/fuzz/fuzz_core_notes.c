/*
 * fuzz_core_notes.c - libFuzzer target for parse/crash/core_notes.c: the facts of
 * arbitrary bytes taken as an ELF core (exactly as long as given, so a read
 * past the end is caught by ASan), every string and table touched, the
 * invariants the unwinder relies on checked (loads sorted and inside the
 * file, the executable's index in range), process memory read at each
 * thread's pc and sp, and the handler-signal reader run on each thread's sp.
 * Seed corpus: tests/fuzz/corpus/fuzz_core_notes/ (x86_64, aarch64, i386
 * cores in kernel and gdb note order, cut and corrupted variants), made by
 * tests/fuzz/gen_core_corpus.c.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "satscope/core.h"

static volatile size_t fuzz_touched;

static void touch(const char *s)
{
    if (s)
        fuzz_touched += strlen(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    if (size)
        memcpy(copy, data, size);
    sat_core_facts f;
    sat_diag d;
    memset(&d, 0, sizeof d);
    int rc = sat_core_parse(copy, size, &f, &d);
    if (rc == SAT_OK) {
        touch(f.fname);
        touch(f.psargs);
        touch(f.execfn);
        touch(f.warning);
        for (size_t i = 0; i < f.nmaps; i++) {
            touch(f.maps[i].path);
            if (f.maps[i].end < f.maps[i].start)
                abort();
        }
        for (size_t i = 0; i < f.nmodules; i++) {
            touch(f.modules[i].path);
            touch(f.modules[i].build_id);
        }
        if (f.exe != (size_t)-1 && f.exe >= f.nmodules)
            abort();
        for (size_t i = 0; i < f.nloads; i++) {
            const sat_core_load *l = &f.loads[i];
            if (l->filesz && (l->offset > size || l->filesz > size - l->offset))
                abort(); /* a load must never point past the bytes there are */
            if (i && f.loads[i - 1].vaddr > l->vaddr)
                abort();
        }
        uint8_t buf[256];
        for (size_t t = 0; t < f.nthreads && t < 8; t++) {
            fuzz_touched += sat_core_read_mem(&f, copy, size, f.threads[t].pc, buf, sizeof buf);
            fuzz_touched += sat_core_read_mem(&f, copy, size, f.threads[t].sp, buf, sizeof buf);
            int32_t signo;
            int64_t addr;
            if (sat_core_handler_signal(&f, copy, size, f.threads[t].sp, &signo, &addr) &&
                (signo < 1 || signo > 64))
                abort();
        }
    } else if (rc != SAT_E_NOMEM && !d.msg[0]) {
        abort(); /* every refusal says why */
    }
    sat_core_facts_free(&f);
    free(copy);
    return 0;
}
