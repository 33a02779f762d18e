/*
 * bench/cost/loops.c - the timed loops that call the generated header's
 * EventWrite macros.  Compiled twice into the benchmark, once with
 * MCGEN_BACKEND_LTTNG (COST_LOOP(x) names loop_lttng_x) and once with
 * MCGEN_BACKEND_NOOP (loop_noop_x): the backend is chosen per unit.
 *
 * Each loop has the shape of main.c's empty loop: COST_BARRIER makes the
 * counter opaque to the compiler every iteration, so the loop is neither
 * removed nor its arguments computed once; what a loop costs above the
 * empty one is the event's cost.
 */
#include <stdint.h>
#include "cost.h"
#include "loops.h"

static const GUID session = {0x3E5C1A2B, 0x9D4F, 0x4E07, {0x8A, 0x61, 0x5B, 0x2C, 0x7D, 0x9E, 0x0F, 0x13}};

void COST_LOOP(ansi)(long n)
{
    for (long i = 0; i < n; i++) {
        COST_BARRIER(i);
        EventWriteCostAnsi((uint32_t)i, (int64_t)i * 3, (uint16_t)i, "hello, world", &session);
    }
}

void COST_LOOP(wide)(long n)
{
    static const MCGEN_WCHAR name[] = {'h', 'e', 'l', 'l', 'o', ',', ' ', 'w', 'o', 'r', 'l', 'd', 0};
    for (long i = 0; i < n; i++) {
        COST_BARRIER(i);
        EventWriteCostWide((uint32_t)i, (int64_t)i * 3, (uint16_t)i, name, &session);
    }
}

int COST_LOOP(enabled)(void)
{
    return EventEnabledCostAnsi() && EventEnabledCostWide();
}
