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
 */
#include <windows.h>
#include <evntprov.h>
#include <stdio.h>

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

#include "hello.h"

int main(void)
{
    GUID session = {0x01234567, 0x89ab, 0xcdef, {1, 2, 3, 4, 5, 6, 7, 8}};
    unsigned i;
    ULONG error = EventRegisterMcgen_Example_Hello();
    printf("registered: error %lu\n", (unsigned long)error);
    printf("a session listens to HelloGreeting: %s\n", EventEnabledHelloGreeting() ? "yes" : "no");

    /* written when a trace session has enabled the provider for them */
    for (i = 1; i <= 3; i++)
        EventWriteHelloGreeting(L"world", i, &session);
    EventWriteHelloFarewell(L"world", 3, &session);

    /* written whatever the sessions say */
    printf("writing with _AssumeEnabled:\n");
    EventWriteHelloGreeting_AssumeEnabled(L"world", 42, &session);
    EventWriteHelloFarewell_AssumeEnabled(NULL, 43, &session);

    EventUnregisterMcgen_Example_Hello();
    return 0;
}
