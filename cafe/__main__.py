"""`python -m cafe` is the same as the `cafe` command."""

from cafe.cli import main

raise SystemExit(main())
