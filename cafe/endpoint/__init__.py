"""The endpoint side: how the course talks to a model, scripted or live (no harness code lives here).

It is five rooms and one shared file. A learner following `chat()` from a notebook needs only the
first: the client. Read the rest when a session sends you there.

- `cafe.endpoint.errors`    the package's errors, as one tree (every room raises from it);
- `cafe.endpoint.client`    what your code calls: `make_client()` and `chat()`, the scripted model
                            offline, the problems a call can meet and the words for them (session 00);
- `cafe.endpoint.settings`  where the settings come from (the environment, a `.env` file) and one
                            validator per variable: `COURSE_MODE`, `CAFE_BASE_URL`, ...;
- `cafe.endpoint.secrets`   keeping the key out of every sink: the redactor, the shapes of a
                            credential, a terminal stream that scrubs what a command prints;
- `cafe.endpoint.scripts`   the scripted replies `cafe serve --session NN` and the offline stories
                            answer from;
- `cafe.endpoint.server`    `cafe serve` (a local OpenAI-compatible endpoint), its faults on purpose,
                            and `cafe local` (a small real model);
- `cafe.endpoint.doctor`    `cafe doctor`: the checks, the probes, the speed, the diagnosis.

The harness packages (`cafe.loop`, `cafe.repair`, ...) reach a model only through
`cafe.endpoint.client.chat` (a test checks that no module calls the SDK itself), and never import
the server or the doctor. Session 00 (`sessions/s00-setup/lesson.md`) walks through it.
"""
