"""Domain logic of the web app. Views, consumers and tasks call these; they never touch the engine."""
