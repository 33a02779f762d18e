# MCG6023: 65,537 fields, one past the 16-bit property numbers of TEMP.BIN
# (field 65,537 would be substituted as field 1).
fields = "".join('<data name="f%d" inType="win:UInt8"/>\n' % i for i in range(1, 65538))
print('''<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
                         xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation>
    <events>
      <provider name="Demo" guid="{8c7a2a4b-0c39-4b4c-9d1b-1d2e3f405162}" symbol="DEMO"
                resourceFileName="demo.exe" messageFileName="demo.exe">
        <templates>
          <template tid="T1">
%s          </template>
        </templates>
      </provider>
    </events>
  </instrumentation>
</instrumentationManifest>''' % fields)
