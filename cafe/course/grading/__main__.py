"""`python -m cafe.course.grading SUBMISSIONS ...`: `cafe grade` without the `cafe` command (see `command`)."""

from __future__ import annotations

from cafe.course.grading.command import main

raise SystemExit(main())
