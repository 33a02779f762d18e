# MCG1301: a file that starts with UTF-8's byte-order mark (EF BB BF), so is
# read as UTF-8, whose text holds 0xE9 (Windows-1252's e-acute, as an editor
# that saved part of it in ANSI would leave it): no UTF-8 sequence starts
# with 0xE9 followed by a space.
import sys

sys.stdout.buffer.write(b"\xef\xbb\xbf"
                        b"; // A UTF-8 file with one byte of Windows-1252 in it.\r\n"
                        b"MessageId=1\r\n"
                        b"SymbolicName=MSG_CAFE\r\n"
                        b"Language=English\r\n"
                        b"Caf\xc3\xa9 or caf\xe9 ?\r\n"
                        b".\r\n")
