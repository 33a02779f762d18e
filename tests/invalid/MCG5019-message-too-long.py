# MCG5019: a string of 32,762 UTF-16 units, one past what a message-table
# entry's 16-bit length holds (4 + 2 * (32,762 + 3) > 65,532).  The value is
# written over lines of 100 characters (a line break in an attribute is read
# as a space), so that the transcript shows one short line.
text = "\n".join("A" * 99 for _ in range(327)) + "\n" + "B" * 62
assert len(text) == 32762
print('''<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
  <instrumentation>
    <events>
      <provider name="Demo" guid="{8c7a2a4b-0c39-4b4c-9d1b-1d2e3f405162}" symbol="DEMO"
                resourceFileName="demo.exe" messageFileName="demo.exe" message="$(string.long)"/>
    </events>
  </instrumentation>
  <localization>
    <resources culture="en-US">
      <stringTable>
        <string id="long" value="%s"/>
      </stringTable>
    </resources>
  </localization>
</instrumentationManifest>''' % text)
