"""The server: `cafe serve` and `cafe local`, for rehearsing live mode with no key (session 00).

Nothing in a session's harness imports this room; the tests and the command line do. Read the files
in this order:

- `validation`  what a chat request must look like to `cafe serve`, and the errors it answers with;
- `faults`      the misbehaviour `cafe serve --fault-*` acts out on purpose;
- `handler`     one HTTP request to `cafe serve`;
- `serve`       a local OpenAI-compatible HTTP endpoint that answers from a script;
- `command`     `cafe serve` as a command: the banner, the script, Ctrl-C;
- `local`       `cafe local`: a small real model on this machine.
"""
