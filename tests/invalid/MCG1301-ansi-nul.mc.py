# MCG1301: an ANSI file with a NUL byte in a text (a file saved as UTF-16
# without a byte-order mark, read without -u, looks like this throughout).
import sys

sys.stdout.buffer.write(b"MessageId=1\r\n"
                        b"SymbolicName=MSG_HELLO\r\n"
                        b"Language=English\r\n"
                        b"Hello\x00 world.\r\n"
                        b".\r\n")
