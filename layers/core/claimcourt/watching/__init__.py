"""Watching claims: scheduled drift re-scoring (`drift`, functions/drift), runs triggered by bus
events (`events`, functions/monitor), and how far a run moved its claim's score (`changes`)."""
