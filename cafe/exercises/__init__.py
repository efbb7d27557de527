"""The your-turn checkers, one module per session (`cafe.exercises.s07`, ...).

A checker takes the learner's function and returns a list of problems (empty when every case
holds); `cafe.course.compare` runs it. Checkers live here, apart from the library modules, so a
module in `cafe/` holds only what its lesson teaches.
"""
