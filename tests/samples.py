"""Sample values shared by several test modules (pytest puts this folder on the path)."""

# The answer text the reveal tests hide and then load.
ANSWER = "The cap turns a repeated defect into an honest stop."
