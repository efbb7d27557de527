"""The secrets: the API key never reaches an output, a trace, a notebook or an error (session 00).

Redaction happens where text leaves the program (a trace, the terminal, a cell, an error's words),
not inside the code that parses or decides. Read the files in this order:

- `shapes`     what a credential looks like, for keys nobody named;
- `encodings`  a known key in disguise: spaced out, percent-encoded, hex, base64 at each alignment;
- `redaction`  one redactor, by value, encoding, fragment and shape; URLs shown without their
               credentials;
- `terminal`   a stream that scrubs what a command prints before it reaches the terminal;
- `notebook`   the same guard at a notebook kernel's sinks: its streams, a cell's value, a traceback.
"""
