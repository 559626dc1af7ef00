"""The run orchestrator: plan → workspace → agent → session → evidence → isolation → judge → artifacts."""
