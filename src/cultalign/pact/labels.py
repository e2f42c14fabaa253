"""The decision labels of the behaviour and human-study tables."""

FOLLOW = "FOLLOW_CULTURE"
ALLOW = "ALLOW_PREFERENCE"
UNKNOWN = "UNKNOWN"
