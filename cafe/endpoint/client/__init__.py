"""The client: what a learner's code calls to reach a model, offline or live (session 00).

Read the files in this order:

- `protocol`     `ChatClient`: what the course needs of a client, as a type;
- `completions`  a scripted reply, and the chat completion that carries it;
- `script`       where scripted replies come from, and the default reply;
- `scripted`     the scripted client (offline), with its running log of messages;
- `problems`     what can go wrong with an endpoint, and the one table of words for it;
- `diagnosis`    an exception sorted into a problem, its words scrubbed, then clipped;
- `deadline`     a deadline for a whole call;
- `readable`     a completion checked field by field, in the one shape the course reads;
- `sendable`     a request UTF-8 cannot encode, refused by naming where it holds a surrogate;
- `formats`      the output formats a draft can ask for, strictest first;
- `chat`         `make_client()` and `chat()`: the one door every model call goes through.

It reads its settings from `cafe.endpoint.settings` and scrubs what it quotes with
`cafe.endpoint.secrets`; it never imports the server or the doctor.
"""
