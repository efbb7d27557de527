"""The settings: where each one comes from, and the check it passes on the way in (session 00).

Read the files in this order:

- `environment`  the environment first, then the nearest `.env` up to the course root
                 (`CAFE_ENV_FILE` names another, or none);
- `reading`      how that file is read: a regular file, at most 64 KiB, UTF-8, or one line why not;
- `variables`    one validator per setting, each failing with a one-line error that says the fix;
- `banner`       the one line a notebook prints: which model at which endpoint, or offline and why;
- `shell`        the shell a command runs in (bash, never WSL's launcher), for the doctor and session 15;
- `config`       the mode (`COURSE_MODE`), the live settings, the reply cap and the deadline.
"""
