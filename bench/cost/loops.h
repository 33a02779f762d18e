/* bench/cost/loops.h - the loops of loops.c and main.c. */
#ifndef COST_LOOPS_H
#define COST_LOOPS_H

/* n opaque to the compiler: the loop stays, its arguments are computed
 * each time */
#define COST_BARRIER(n) __asm__ volatile("" : "+r"(n))

#if defined(MCGEN_BACKEND_LTTNG)
#define COST_LOOP(x) loop_lttng_##x
#else
#define COST_LOOP(x) loop_noop_##x
#endif

void loop_lttng_ansi(long n);
void loop_lttng_wide(long n);
int loop_lttng_enabled(void);
void loop_noop_ansi(long n);
void loop_noop_wide(long n);
int loop_noop_enabled(void);

#endif
