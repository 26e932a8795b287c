"""L3: the final moderator over anonymized arguments, the score, its interval and the verdict."""
