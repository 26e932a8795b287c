"""Motion debates, the second format (statemachine/motion.asl.json): two teams argue a motion in turns
before a crowd of personas that votes before the debate and after every round; the judge maps the
debate (no winner); the result is the vote swing. The pure parts: the crowd (crowd.py) and each
role's task (turns.py). Data: personas.json (the versioned persona set) and debate_motions.json (real
motions with their audiences' votes; see README.md here)."""
