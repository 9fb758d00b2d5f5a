"""Helpers for testing simpop and the bots it tests against real loopback servers."""
