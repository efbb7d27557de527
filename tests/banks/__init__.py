"""Wrong-answer banks for the your-turn checkers (issue 26), one file per session.

- `harness.py`: `Bank` and `Entry`, and `verdict`: a solution run through `cafe.course.compare`
  exactly as a learner's would be, so a verdict is what the learner sees;
- `mutants.py`: the small AST mutator the mutation benchmark (`benchmarks/checker_mutants.py`)
  runs over each bank's reference;
- `bank_sNN.py`: session NN's banks, `BANKS` (one per compare checker), and `EQUIVALENT`, the
  surviving mutants judged not wrong, each with its reason.

`tests/test_exercise_banks.py` runs every bank; docs/AUTHORING.md ("Its exercises") says how to
write one.
"""
