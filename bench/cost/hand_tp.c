/* bench/cost/hand_tp.c - defines the hand-written tracepoints of hand_tp.h. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "hand_tp.h"
