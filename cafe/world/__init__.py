"""The café's world: its menu, its till, and the small code project the late sessions work in.

Not harness code. These are the things the harness acts on; the harness a learner builds is in the
topic packages beside this one (`cafe.loop`, `cafe.repair`, ...). Each file belongs to the session
that first needs it:

- `menu.py` (session 01): the menu, allergens and the 86'd list, read from `cafe/data/menu.json`;
- `allergens.py` (session 01): how customers write an allergy, folded onto the menu's names;
- `spelling.py` (session 01, taught in 05): one key for a word however it was typed (width, case,
  invisible characters, look-alike letters);
- `modifiers.py` (session 01, taught in 05): the kitchen modifiers the menu defines, the only
  things a ticket's notes may say;
- `orderpad.py` (session 01): the order pad, the tools session 01's agent calls;
- `workbench.py` (session 13): a real git work tree copied from `cafe/data/workbench/`, where an
  agent's edits are real writes and its checks really run;
- `atomic_write.py` (session 13): the workbench's writes, the whole file or nothing;
- `pytest_runs.py` (session 13): how the workbench runs pytest, each run in a process of its own;
- `processes.py` (session 13): starting a command and ending it with all it started, on every
  platform (the fresh pytest runs and session 15's `run_command` use it).

This package imports nothing; import the file you need (`from cafe.world.menu import load_menu`).
"""
