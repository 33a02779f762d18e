/*
 * examples/hello/hello.c - a provider program written against the header
 * mcgen generates from hello.man with -um (mc.exe's API: EventRegister<Name>,
 * EventEnabled<Symbol>, EventWrite<Symbol>, EventUnregister<Name>).
 *
 * It also shows one of the header's hooks: MCGEN_EVENTWRITETRANSFER, the
 * function every event goes through, is defined here to print the event
 * before handing it to ETW.
 *
 *   mcgen -um hello.man
 *   x86_64-w64-mingw32-gcc -Wall -Wextra hello.c -o hello.exe -ladvapi32
 *   wine hello.exe        (or run it on Windows, under a trace session)
 *
 * The same file builds on Linux against the header of --backends=etw,lttng
 * (docs/linux.md; examples/hello/run-linux): with -DMCGEN_BACKEND_LTTNG the
 * events go to LTTng-UST, without it nowhere.  Only the hook is Windows'.
 *
 *   mcgen -um --backends=etw,lttng hello.man
 *   cc -std=c11 -DMCGEN_BACKEND_LTTNG -I. hello.c hello_lttng.c -llttng-ust -ldl
 */
#include <stdio.h>
#if defined(_WIN32)
#include <windows.h>
#include <evntprov.h>
#define TEXT16(s) L##s /* UnicodeString parameters: wide strings */

static ULONG __stdcall print_and_write(REGHANDLE handle, PCEVENT_DESCRIPTOR desc,
                                       LPCGUID activity, LPCGUID related, ULONG count,
                                       PEVENT_DATA_DESCRIPTOR data)
{
    ULONG i, size = 0;
    for (i = 1; i < count; i++) /* data[0] is the provider's traits */
        size += data[i].Size;
    printf("  event %u (version %u, level %u, keywords 0x%llx): %lu payload bytes in %lu "
           "pieces\n",
           desc->Id, desc->Version, desc->Level, (unsigned long long)desc->Keyword,
           (unsigned long)size, (unsigned long)(count - 1));
    return EventWriteTransfer(handle, desc, activity, related, count, data);
}
#define MCGEN_EVENTWRITETRANSFER print_and_write
#else
#define TEXT16(s) u##s /* UTF-16 literals (C11, C++11) */
#endif

#include "hello.h"

int main(void)
{
    GUID session = {0x01234567, 0x89ab, 0xcdef, {1, 2, 3, 4, 5, 6, 7, 8}};
    unsigned i;
    unsigned long error = EventRegisterMcgen_Example_Hello();
    printf("registered: error %lu\n", (unsigned long)error);
    printf("a session listens to HelloGreeting: %s\n", EventEnabledHelloGreeting() ? "yes" : "no");

    /* written when a trace session has enabled the provider for them */
    for (i = 1; i <= 3; i++)
        EventWriteHelloGreeting(TEXT16("world"), i, &session);
    EventWriteHelloFarewell(TEXT16("world"), 3, &session);

    /* written whatever the sessions say */
    printf("writing with _AssumeEnabled:\n");
    EventWriteHelloGreeting_AssumeEnabled(TEXT16("world"), 42, &session);
    EventWriteHelloFarewell_AssumeEnabled(NULL, 43, &session);

    EventUnregisterMcgen_Example_Hello();
    return 0;
}
