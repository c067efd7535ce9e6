"""quizsvc: quizzes and randomized numeric drills for 'Transformer by hand'."""
