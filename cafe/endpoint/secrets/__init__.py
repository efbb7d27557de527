"""The secrets: the API key never reaches an output, a trace, a notebook or an error (session 00).

Redaction happens where text leaves the program (a trace, the terminal, a cell, an error's words),
not inside the code that parses or decides. Read the files in this order:

- `shapes`     what a credential looks like, for keys nobody named, and what labels one;
- `encodings`  a known key in disguise: spaced out, percent-encoded, JSON-escaped, hex, base64 at
               each alignment;
- `urls`       the credentials inside a URL, and the URL shown without them;
- `redaction`  one redactor, by value, encoding, fragment, shape and label;
- `terminal`   a stream that scrubs what a command prints before it reaches the terminal;
- `notebook`   the same guard at a notebook kernel's sinks: its streams, a cell's value, a traceback.
"""
