/*
 * core_notes_mem.c - what a core's memory tells (core.h): the bytes at a
 * process address (the PT_LOAD segments), a siginfo as the kernel lays it out
 * (include/uapi/asm-generic/siginfo.h), and the signal a handler's frame holds
 * (the rt_sigframe of arch/{x86,arm64}/kernel/signal*.c).
 */
#include "core_notes_int.h"

/* ---- process memory held by the core ---------------------------------------------- */

/* The load holding addr (the last one starting at or below it), or NULL. */
static const sat_core_load *load_at(const sat_core_facts *f, uint64_t addr)
{
    size_t lo = 0, hi = f->nloads;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->loads[mid].vaddr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const sat_core_load *l = &f->loads[lo - 1];
    return addr - l->vaddr < l->memsz ? l : NULL;
}

size_t sat_core_read_mem(const sat_core_facts *f, const void *bytes, size_t len,
                         uint64_t addr, void *dst, size_t n)
{
    size_t done = 0;
    if (!f || !bytes || !dst)
        return 0;
    while (done < n) {
        const sat_core_load *l = load_at(f, addr);
        if (!l)
            break;
        uint64_t in = addr - l->vaddr;
        if (in >= l->filesz)
            break; /* in the process, not in the core (not dumped) */
        uint64_t take = l->filesz - in;
        if (take > n - done)
            take = n - done;
        if (!in_file(l->offset + in, take, len) || l->offset + in < l->offset)
            break;
        memcpy((uint8_t *)dst + done, (const uint8_t *)bytes + l->offset + in, (size_t)take);
        done += (size_t)take;
        if (addr + take < addr)
            break;
        addr += take;
    }
    return done;
}

int sat_core_siginfo(const sat_core_facts *f, const void *si, size_t n, int32_t *signo,
                     int32_t *code, uint64_t *addr)
{
    int is64 = f->elfclass == 64;
    sat_cursor c = sat_cursor_make(si, n);
    int32_t s = (int32_t)sat_cursor_le32(&c);
    sat_cursor_skip(&c, 4); /* si_errno */
    int32_t k = (int32_t)sat_cursor_le32(&c);
    sat_cursor_skip(&c, is64 ? 4 : 0); /* the union is 8-aligned in 64-bit */
    uint64_t a = word(&c, is64);
    if (c.err)
        return 0;
    *signo = s;
    *code = k;
    *addr = a;
    return 1;
}

int sat_core_signal_has_addr(int32_t signo, int32_t code)
{
    /* SIGILL SIGTRAP SIGBUS SIGFPE SIGSEGV (the same numbers on every Linux
     * architecture decoded here); si_code <= 0 is a signal sent by a process,
     * whose union holds the sender's pid and uid instead */
    return code > 0 && (signo == 4 || signo == 5 || signo == 7 || signo == 8 || signo == 11);
}

/* A siginfo that the kernel wrote: a signal number, si_errno 0, an si_code
 * the kernel or a sender uses (SI_* are -7..0, fault codes small, SI_KERNEL
 * 0x80). Stack garbage where no siginfo was copied rarely passes. */
static int plausible_siginfo(int32_t signo, int32_t err, int32_t code)
{
    return signo >= 1 && signo <= 64 && err == 0 && ((code >= -7 && code <= 15) || code == 0x80);
}

static uint64_t mem_word(const sat_core_facts *f, const void *bytes, size_t len, uint64_t addr,
                         unsigned size, int *ok)
{
    uint8_t b[8] = {0};
    if (sat_core_read_mem(f, bytes, len, addr, b, size) < size) {
        *ok = 0;
        return 0;
    }
    uint64_t v = 0;
    for (unsigned i = 0; i < size; i++)
        v |= (uint64_t)b[i] << (8 * i);
    return v;
}

static int one_signal(uint64_t set)
{
    if (!set || (set & (set - 1)))
        return 0;
    int n = 1;
    while (!(set & 1)) {
        set >>= 1;
        n++;
    }
    return n;
}

int sat_core_handler_signal(const sat_core_facts *f, const void *bytes, size_t len,
                            uint64_t sp, int32_t *signo, int64_t *fault_addr)
{
    /* where the pieces are, from sp (see core.h for the layouts' sources):
     * info: the siginfo; mask: uc_sigmask; sig: i386's signal argument;
     * addr: the fault address register; trapno: x86's trap number */
    int64_t info, mask = -1, sig = -1, addr = -1, trapno = -1;
    switch (f->arch) {
    case SAT_ARCH_X86_64:
        /* rt_sigframe = { pretcode (popped by the handler's ret), ucontext
         * { flags 8, link 8, stack_t 24, sigcontext 256, sigmask 8 }, siginfo } */
        mask = 40 + 256;
        info = 304;
        trapno = 40 + 160;
        addr = 40 + 176;
        break;
    case SAT_ARCH_AARCH64:
        /* rt_sigframe = { siginfo 128, ucontext { flags 8, link 8, stack_t 24,
         * sigmask 8, pad 120, sigcontext (16-aligned) { fault_address, ... } } } */
        info = 0;
        mask = 128 + 40;
        addr = 128 + 176;
        break;
    case SAT_ARCH_I386:
        /* rt: { pretcode (popped), sig, pinfo, puc, siginfo, ucontext ... };
         * without SA_SIGINFO: { pretcode (popped), sig, sigcontext ... } */
        sig = 0;
        info = 12;
        break;
    default:
        return 0;
    }
    uint64_t hold = f->nthreads ? f->threads[0].sighold : 0;
    uint64_t entered = 0; /* the signals the handler's entry blocked */
    int ok = 1;
    if (mask >= 0) {
        uint64_t saved = mem_word(f, bytes, len, sp + (uint64_t)mask, 8, &ok);
        if (ok)
            entered = hold & ~saved;
    }
    int32_t s = 0, code = 0;
    uint64_t a = 0;
    uint8_t si[128];
    int have_info = 0;
    if (sat_core_read_mem(f, bytes, len, sp + (uint64_t)info, si, sizeof si) == sizeof si &&
        sat_core_siginfo(f, si, sizeof si, &s, &code, &a)) {
        int32_t err = (int32_t)(si[4] | si[5] << 8 | si[6] << 16 | (uint32_t)si[7] << 24);
        have_info = plausible_siginfo(s, err, code);
    }
    if (sig >= 0) { /* i386: the handler's argument is in the frame */
        ok = 1;
        int32_t arg = (int32_t)mem_word(f, bytes, len, sp + (uint64_t)sig, 4, &ok);
        if (!ok || arg < 1 || arg > 64)
            return 0;
        *signo = arg;
        *fault_addr = SAT_ABSENT;
        if (have_info && s == arg) {
            if (sat_core_signal_has_addr(s, code))
                *fault_addr = (int64_t)a;
        } else if (arg == 11 || arg == 7) {
            /* no siginfo: the sigcontext follows sig; cr2 after a page fault */
            ok = 1;
            uint64_t trap = mem_word(f, bytes, len, sp + 4 + 48, 4, &ok);
            uint64_t cr2 = mem_word(f, bytes, len, sp + 4 + 84, 4, &ok);
            if (ok && trap == 14)
                *fault_addr = (int64_t)cr2;
        }
        return 1;
    }
    if (have_info && (!entered || (entered >> (s - 1) & 1))) {
        *signo = s;
        *fault_addr = sat_core_signal_has_addr(s, code) ? (int64_t)a : SAT_ABSENT;
        return 1;
    }
    int n = one_signal(entered);
    if (!n)
        return 0;
    /* no siginfo (a handler without SA_SIGINFO): the blocked-set difference
     * names the signal; the fault registers hold its address when it was a
     * fault (x86: a page fault, trap 14) */
    *signo = n;
    *fault_addr = SAT_ABSENT;
    if (n == 11 || n == 7) {
        ok = 1;
        uint64_t fa = mem_word(f, bytes, len, sp + (uint64_t)addr, 8, &ok);
        uint64_t trap = trapno >= 0 ? mem_word(f, bytes, len, sp + (uint64_t)trapno, 8, &ok) : 14;
        if (ok && trap == 14)
            *fault_addr = (int64_t)fa;
    }
    return 1;
}
