/*
 * bench/cost/hand_tp.h - the tracepoints a programmer would write by hand
 * (LTTng-UST 2.13's API) to record the fields of bench/cost/cost.man's
 * events: what the generated LTTng backend is measured against.  The
 * string is UTF-8 already, as in a program written for Linux; the GUID is
 * its 16 bytes, as the generated backend records it.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER cost_hand
#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "hand_tp.h"

#if !defined(COST_HAND_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define COST_HAND_TP_H
#include <stdint.h>
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT_CLASS(cost_hand, fields,
    LTTNG_UST_TP_ARGS(uint32_t, count, int64_t, delta, uint16_t, flags, const char*, name,
                      const uint8_t*, guid),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint32_t, Count, count)
        lttng_ust_field_integer(int64_t, Delta, delta)
        lttng_ust_field_integer(uint16_t, Flags, flags)
        lttng_ust_field_string(Name, name)
        lttng_ust_field_array_hex(uint8_t, SessionId, guid, 16)
    )
)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(cost_hand, fields, cost_hand, ansi,
    LTTNG_UST_TP_ARGS(uint32_t, count, int64_t, delta, uint16_t, flags, const char*, name,
                      const uint8_t*, guid))
LTTNG_UST_TRACEPOINT_LOGLEVEL(cost_hand, ansi, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(cost_hand, fields, cost_hand, wide,
    LTTNG_UST_TP_ARGS(uint32_t, count, int64_t, delta, uint16_t, flags, const char*, name,
                      const uint8_t*, guid))
LTTNG_UST_TRACEPOINT_LOGLEVEL(cost_hand, wide, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

#endif
#include <lttng/tracepoint-event.h>
