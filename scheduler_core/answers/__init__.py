"""Answers to users' questions, built on runs: explain a cycle or a pod, what-if, capacity,
compare, findings, check, report, recorded vs replayed, where a step's pods went.

May import: run and everything below it."""
