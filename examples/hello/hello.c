/*
 * examples/hello/hello.c - a provider program written against the header
 * mcgen generates from hello.man (mc.exe's -um API: EventRegister<Name>,
 * EventWrite<Symbol>, EventUnregister<Name>).  The header generator is the
 * next step of the pipeline; until it lands, `ninja example` compiles the
 * manifest and shows the model (hello.json).
 *
 * Build on Windows or with mingw-w64 once the header exists:
 *   mcgen -um hello.man && x86_64-w64-mingw32-gcc hello.c -o hello.exe -ladvapi32
 */
#include <windows.h>

#include "hello.h"

int main(void)
{
    GUID session;
    CoCreateGuid(&session);
    EventRegisterMcgen_Example_Hello();
    for (unsigned i = 1; i <= 3; i++)
        EventWriteHelloGreeting(L"world", i, &session);
    EventWriteHelloFarewell(L"world", 3, &session);
    EventUnregisterMcgen_Example_Hello();
    return 0;
}
