"""The exercises' starting files: ``dlgo exercise start N`` copies one to the student's folder."""
