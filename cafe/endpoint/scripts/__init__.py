"""The scripts: the replies a scripted model gives, per session, offline and from `cafe serve`.

A script is a stand-in that makes a story read like the real thing, never a judgement a real model
would make. Read the files in this order:

- `drafters`    the ticket drafters for the sessions built on the re-ask;
- `stand_ins`   the replies where a brief is not enough: formats, shifts, judges;
- `restock`     the restock agent of session 16's capstone;
- `rehearsals`  which script `cafe serve --session NN` answers from, and how a toy can tell.
"""
