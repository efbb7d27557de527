#!/usr/bin/env bash
# The dev container's one-time set-up, from the repository root: Graphviz for the site's
# diagrams, then the README's Quickstart (first block), installing the versions the test suite
# last passed with (constraints.txt). tests/test_oneclick.py keeps these lines in step with the
# README.
set -euo pipefail
sudo apt-get update -qq
sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null
python3 -m venv .venv && . .venv/bin/activate
pip install -c constraints.txt -e ".[test]"
cafe doctor
cafe toy 00
echo "Ready. JupyterLab opens on port 8888; copy a notebook into work/ before you start (README, 'Your work')."
