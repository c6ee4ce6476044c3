"""The orchestration of the pipeline: a warehouse opened for work, the user's CSFs added and
removed, evaluations run (see docs/architecture.md)."""
