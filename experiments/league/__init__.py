"""A class's bots for the league: ``connect4_class/`` holds one file a student, each a bot
of another strength (see docs/course.md, "Run a class tournament")."""
