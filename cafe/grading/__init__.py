"""Grading a class: learners hand in their work, the instructor turns it into a gradebook.

Course machinery for instructors (session 00 lists it beside `cafe.course`); no lesson teaches it.
`docs/teaching.md` is the guide. The files, in reading order:

- `cafe.grading.handin`       `cafe hand-in`: a learner packs `work/` and their progress file into one zip;
- `cafe.grading.submissions`  a class's submissions found (folders, zips, nbgrader's layout) and copied;
- `cafe.grading.runner`       one notebook run on a copy: clean kernel, offline, no secrets, a time limit;
- `cafe.grading.kernel_run`   the child process that runs it (nbclient);
- `cafe.grading.gradebook`    what each run banked, read back as one line per thing graded;
- `cafe.grading.writers`      gradebook.csv, gradebook.json and gradebook.html with the class summary;
- `cafe.grading.command`      `cafe grade`: all of the above, several notebooks at once.

Strict mode (`CAFE_STRICT=1`, for nbval over learners' notebooks) is `cafe.course.strict`.
"""

from __future__ import annotations

from cafe.grading.command import grade
from cafe.grading.command import main as grade_main
from cafe.grading.handin import hand_in
from cafe.grading.handin import main as hand_in_main

__all__ = ["grade", "grade_main", "hand_in", "hand_in_main"]
