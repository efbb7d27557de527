"""The doctor: `cafe doctor` says whether the course can reach a model, and how to fix it if not.

Read the files in this order:

- `checks`          the report, one line per check, each failure with its fix;
- `setup_checks`    the checks of this machine and its settings;
- `probes`          the questions the doctor asks an endpoint;
- `speed`           how fast the model writes, and the cap and deadline that fit it;
- `network_checks`  the checks that talk to the model;
- `crashes`         how a local model server dies, and the fix for each way;
- `health`          `doctor()`: all of it, in order.
"""
