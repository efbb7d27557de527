"""Grading a class: learners hand in their work, the instructor turns it into a gradebook.

Course machinery for instructors, inside `cafe.course` (session 00's machinery); no lesson teaches it.
`docs/teaching.md` is the guide. The files, in reading order:

- `cafe.course.grading.handin`       `cafe hand-in`: a learner packs `work/` and their progress file into one zip;
- `cafe.course.grading.submissions`  a class's submissions found (folders, zips, nbgrader's layout) and copied;
- `cafe.course.grading.runner`       one notebook run on a copy: clean kernel, offline, no secrets, a time limit;
- `cafe.course.grading.kernel_run`   the child process that runs it (nbclient);
- `cafe.course.grading.gradebook`    what each run banked, read back as one line per thing graded;
- `cafe.course.grading.writers`      gradebook.csv, gradebook.json and gradebook.html with the class summary;
- `cafe.course.grading.command`      `cafe grade`: all of the above, several notebooks at once
                              (`python -m cafe.course.grading` runs it too).

Strict mode (`CAFE_STRICT=1`, for nbval over learners' notebooks) is `cafe.course.strict`.
"""

from __future__ import annotations

from cafe.course.grading.command import grade
from cafe.course.grading.command import main as grade_main
from cafe.course.grading.handin import hand_in
from cafe.course.grading.handin import main as hand_in_main

__all__ = ["grade", "grade_main", "hand_in", "hand_in_main"]
