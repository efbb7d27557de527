"""The endpoint side: how the course talks to a model, scripted or live (no harness code lives here).

Read the files in this order:

- `cafe.endpoint.errors`         the package's errors, as one tree;
- `cafe.endpoint.environment`    where settings come from: the environment, then a `.env` file;
- `cafe.endpoint.secret_shapes`  what a credential looks like;
- `cafe.endpoint.secrets`        one redactor, by value, fragment and shape; URLs shown without credentials;
- `cafe.endpoint.variables`      one validator per setting, each failing with a one-line error;
- `cafe.endpoint.config`         the mode (`COURSE_MODE`), the live settings, the reply cap and deadline;
- `cafe.endpoint.protocol`       `ChatClient`: what the course needs of a client, as a type;
- `cafe.endpoint.completions`    a scripted reply, and the chat completion that carries it;
- `cafe.endpoint.script`         where scripted replies come from, and the default reply;
- `cafe.endpoint.scripted`       the scripted client, with its running log of messages;
- `cafe.endpoint.problems`       what can go wrong with an endpoint, and the one table of words for it;
- `cafe.endpoint.diagnosis`      an exception sorted into a problem, its words scrubbed, then clipped;
- `cafe.endpoint.deadline`       a deadline for a whole call;
- `cafe.endpoint.formats`        the output formats a draft can ask for, strictest first;
- `cafe.endpoint.client`         `make_client()` and `chat()`: the one door every model call goes through;
- `cafe.endpoint.terminal`       a stream that scrubs what a command prints;
- `cafe.endpoint.validation`     what a chat request must look like to `cafe serve`;
- `cafe.endpoint.faults`         the misbehaviour `cafe serve --fault-*` acts out on purpose;
- `cafe.endpoint.drafters`, `stand_ins`, `rehearsals`   the scripts `cafe serve --session NN` answers from;
- `cafe.endpoint.handler`        one HTTP request to `cafe serve`;
- `cafe.endpoint.serve`          a local OpenAI-compatible HTTP endpoint for rehearsing live mode;
- `cafe.endpoint.serve_command`  `cafe serve` as a command: the banner, the script, Ctrl-C;
- `cafe.endpoint.probes`         the doctor's questions to an endpoint;
- `cafe.endpoint.speed`          how fast the model writes, and the cap and deadline that fit it;
- `cafe.endpoint.checks`         the doctor's report, one line per check;
- `cafe.endpoint.setup_checks`   the doctor's checks of this machine and its settings;
- `cafe.endpoint.network_checks` the doctor's checks that talk to the model;
- `cafe.endpoint.health`         `doctor()`: is the endpoint usable, and if not, how to fix it;
- `cafe.endpoint.local`          `cafe local`: a small real model on this machine.

The harness packages (`cafe.loop`, `cafe.repair`, ...) reach a model only through
`cafe.endpoint.client` (a test checks that no module calls the SDK itself). Session 00
(`sessions/s00-setup/lesson.md`) walks through it.
"""
