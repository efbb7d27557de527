"""The settings: where each one comes from, and the check it passes on the way in (session 00).

Read the files in this order:

- `environment`  the environment first, then a `.env` file (`CAFE_ENV_FILE` says which);
- `variables`    one validator per setting, each failing with a one-line error that says the fix;
- `config`       the mode (`COURSE_MODE`), the live settings, the reply cap and the deadline.
"""
