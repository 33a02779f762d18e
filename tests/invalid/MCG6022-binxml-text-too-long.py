# MCG6022: a field name of 65,536 UTF-16 units, one past the 16-bit count of
# TEMP.BIN's BinXml (the <Data Name="..."> of the template); written over
# lines (a line break in an attribute is read as a space).
name = "\n".join("n" * 99 for _ in range(655)) + "\n" + "x" * 36
assert len(name) == 65536
print('''<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
                         xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation>
    <events>
      <provider name="Demo" guid="{8c7a2a4b-0c39-4b4c-9d1b-1d2e3f405162}" symbol="DEMO"
                resourceFileName="demo.exe" messageFileName="demo.exe">
        <templates>
          <template tid="T1">
            <data name="Size" inType="win:UInt32"/>
            <data inType="win:UInt32" name="%s"/>
          </template>
        </templates>
      </provider>
    </events>
  </instrumentation>
</instrumentationManifest>''' % name)
