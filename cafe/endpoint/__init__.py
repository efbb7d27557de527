"""The endpoint side: how the course talks to a model, scripted or live (no harness code lives here).

- `cafe.endpoint.config`      which mode we are in (`COURSE_MODE`) and the live endpoint's settings;
- `cafe.endpoint.errors`      the package's errors, as one tree;
- `cafe.endpoint.problems`    what can go wrong with an endpoint, and the one table of words for it;
- `cafe.endpoint.protocol`    `ChatClient`: what the course needs of a client, as a type;
- `cafe.endpoint.client`      `make_client()`: a scripted model offline, `openai.OpenAI` live; `chat()`;
- `cafe.endpoint.scripted`    the scripted model itself, shared by offline runs and `cafe serve`;
- `cafe.endpoint.validation`  what a chat request must look like to `cafe serve`;
- `cafe.endpoint.faults`      the misbehaviour `cafe serve --fault-*` acts out on purpose;
- `cafe.endpoint.serve`       a local OpenAI-compatible HTTP endpoint for rehearsing live mode;
- `cafe.endpoint.probes`      the doctor's three questions to an endpoint;
- `cafe.endpoint.health`      `doctor()`: is the endpoint usable, and if not, how to fix it.

The harness packages (`cafe.loop`, `cafe.repair`, ...) reach a model only through `cafe.endpoint.client`.
"""
