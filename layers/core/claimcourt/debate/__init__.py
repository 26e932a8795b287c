"""L2: suitability, decomposition, arguing, moderation and the round controller."""
