"""Scripted stand-ins: the rule-following models that drive the notebooks' and toys' stories offline.

Not harness code. Each file plays the model (or the agent) in one session's stories, so the story
happens the same way every time offline; live mode replaces it with your model. They are written
as plain rules so you can read what the stand-in does, and each session's live cells measure the
same claim on your model:

- `waiter.py` (session 02): a hurried waiter that reads names and numbers literally;
- `obedient_waiter.py` (session 03): obeys an instruction only where it is not marked as data;
- `obedient_drafter.py` (session 06): obeys every instruction in a request, on every channel of a
  ticket, to measure what the checks still hold;
- `feedback_model.py` (session 07): a drafter that fixes what the failure view names;
- `practice_shift.py` (session 10): a shift with failures to sort into a taxonomy;
- `scenarios.py` (session 13): scripted agents working in the workbench;
- `monitor_stories.py` (session 15): the run-monitor stories.

This package imports nothing; import the file you need.
"""
