/*
 * bench/cost/main.c - bench/run's Linux cost section (bench/cost.py builds
 * and runs it): CPU time of N calls of each loop named on the command
 * line, ROUNDS rounds, the loops' order rotating from round to round.
 *
 *     cost N ROUNDS LOOP...
 *
 * Loops: empty (the floor), noop_ansi and noop_wide (the generated header
 * with MCGEN_BACKEND_NOOP), lttng_ansi and lttng_wide (with
 * MCGEN_BACKEND_LTTNG), hand_ansi and hand_wide (hand_tp.h's tracepoints,
 * the same fields).  Prints "enabled GENERATED HAND" (whether a session
 * records the events), then one line "ROUND LOOP NANOSECONDS" per run.
 * CPU time of this thread (CLOCK_THREAD_CPUTIME_ID): LTTng-UST's own
 * threads and the rest of a shared machine are not counted.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "loops.h"
#if !defined(COST_NO_LTTNG)
#include "hand_tp.h"
#endif

static const uint8_t session[16] = {0x2B, 0x1A, 0x5C, 0x3E, 0x4F, 0x9D, 0x07, 0x4E,
                                    0x8A, 0x61, 0x5B, 0x2C, 0x7D, 0x9E, 0x0F, 0x13};

static __attribute__((noinline)) void loop_empty(long n)
{
    for (long i = 0; i < n; i++)
        COST_BARRIER(i);
}

#if !defined(COST_NO_LTTNG)
static __attribute__((noinline)) void loop_hand_ansi(long n)
{
    for (long i = 0; i < n; i++) {
        COST_BARRIER(i);
        lttng_ust_tracepoint(cost_hand, ansi, (uint32_t)i, (int64_t)i * 3, (uint16_t)i,
                             "hello, world", session);
    }
}

static __attribute__((noinline)) void loop_hand_wide(long n)
{
    for (long i = 0; i < n; i++) {
        COST_BARRIER(i);
        lttng_ust_tracepoint(cost_hand, wide, (uint32_t)i, (int64_t)i * 3, (uint16_t)i,
                             "hello, world", session);
    }
}
#endif

static const struct {
    const char *name;
    void (*run)(long n);
} loops[] = {
    {"empty", loop_empty},
    {"noop_ansi", loop_noop_ansi},
    {"noop_wide", loop_noop_wide},
#if !defined(COST_NO_LTTNG)
    {"lttng_ansi", loop_lttng_ansi},
    {"lttng_wide", loop_lttng_wide},
    {"hand_ansi", loop_hand_ansi},
    {"hand_wide", loop_hand_wide},
#endif
};
#define NLOOPS (sizeof(loops) / sizeof(loops[0]))

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (long long)t.tv_sec * 1000000000 + t.tv_nsec;
}

int main(int argc, char **argv)
{
    size_t pick[NLOOPS], npick = 0;
    if (argc < 4) {
        fprintf(stderr, "usage: cost N ROUNDS LOOP...\n");
        return 2;
    }
    long n = atol(argv[1]), rounds = atol(argv[2]);
    for (int i = 3; i < argc; i++) {
        size_t k = 0;
        while (k < NLOOPS && strcmp(loops[k].name, argv[i]) != 0)
            k++;
        if (k == NLOOPS || npick == NLOOPS) {
            fprintf(stderr, "cost: no loop %s\n", argv[i]);
            return 2;
        }
        pick[npick++] = k;
    }
#if !defined(COST_NO_LTTNG)
    printf("enabled %d %d\n", loop_lttng_enabled(),
           lttng_ust_tracepoint_enabled(cost_hand, ansi) && lttng_ust_tracepoint_enabled(cost_hand, wide));
#else
    printf("enabled 0 0\n");
#endif
    loop_empty(n); /* warm-up: the clock, the page tables, the CPU's frequency */
    for (long r = 0; r < rounds; r++) {
        for (size_t j = 0; j < npick; j++) {
            size_t k = pick[(j + (size_t)r) % npick];
            long long t0 = now_ns();
            loops[k].run(n);
            printf("%ld %s %lld\n", r, loops[k].name, now_ns() - t0);
        }
    }
    return 0;
}
