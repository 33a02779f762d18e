# MCG1301: a UTF-16LE file (byte-order mark FF FE) whose text holds a high
# surrogate, U+D83D, followed by a space instead of its low half (a smiley
# cut in two).  The diagnostic points at the character after the
# surrogate, on the text's line, shown decoded.
import sys

text = ("; // A UTF-16 text with half a surrogate pair.\r\n"
        "MessageId=1\r\n"
        "SymbolicName=MSG_HELLO\r\n"
        "Language=English\r\n"
        "Hello \ud83d world.\r\n"
        ".\r\n")
sys.stdout.buffer.write(b"\xff\xfe" + text.encode("utf-16-le", "surrogatepass"))
