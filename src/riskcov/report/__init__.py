"""Reporting: the metrics artifact, the stored evaluation rows and the console summary."""
