"""Metrics: functions from probe and response records to scores."""
